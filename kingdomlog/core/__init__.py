"""The core: events and their registry, the ruleset seam, typed choices, viewers, the fold and draft turns.

Pure code: no I/O, no clock, no random draws.
"""

from kingdomlog.core import core_events as core_events
from kingdomlog.core.choices import Choices, FieldSpec, NoChoices, Option, Pick
from kingdomlog.core.errors import (
    ConflictError,
    CorruptLogError,
    InputError,
    KingdomlogError,
    RuleError,
    StoreError,
)
from kingdomlog.core.events import Draft, EventModel, RecordedEvent, register_event, register_upcaster
from kingdomlog.core.fold import Start, fold, replay, timeline
from kingdomlog.core.model import Frozen
from kingdomlog.core.ruleset import (
    Answer,
    Breakdown,
    CampaignContext,
    OptionSpec,
    Phase,
    Question,
    Ruleset,
    Step,
    StepContext,
    StepResult,
    Term,
    find_ruleset,
    register_ruleset,
    run_step,
)
from kingdomlog.core.turn import Plan, plan_schema, preview_turn
from kingdomlog.core.viewers import Viewer, Visibility, parse_viewer, parse_visibility

__all__ = [
    "Answer",
    "Breakdown",
    "CampaignContext",
    "Choices",
    "ConflictError",
    "CorruptLogError",
    "Draft",
    "EventModel",
    "FieldSpec",
    "Frozen",
    "InputError",
    "KingdomlogError",
    "NoChoices",
    "Option",
    "OptionSpec",
    "Phase",
    "Pick",
    "Plan",
    "Question",
    "RecordedEvent",
    "RuleError",
    "Ruleset",
    "Start",
    "Step",
    "StepContext",
    "StepResult",
    "StoreError",
    "Term",
    "Viewer",
    "Visibility",
    "core_events",
    "find_ruleset",
    "fold",
    "parse_viewer",
    "parse_visibility",
    "plan_schema",
    "preview_turn",
    "register_event",
    "register_ruleset",
    "register_upcaster",
    "replay",
    "run_step",
    "timeline",
]
