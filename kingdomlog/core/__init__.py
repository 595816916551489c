"""The core: events and their registry, the ruleset seam, typed choices, viewers, the fold and draft turns.

Pure code: no I/O, no clock, no random draws.

``Plan``, ``plan_schema`` and ``preview_turn`` (``core.turn``, with the dice roller and the plan's models) are
imported at their first use: reading a state plays no turn (issue 31: ``kingdomlog state``).
"""

from typing import TYPE_CHECKING, Any

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
from kingdomlog.core.viewers import Viewer, Visibility, parse_viewer, parse_visibility

if TYPE_CHECKING:
    from kingdomlog.core.turn import Plan, plan_schema, preview_turn

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

_TURN = frozenset({"Plan", "plan_schema", "preview_turn"})


def __getattr__(name: str) -> Any:
    """``Plan``, ``plan_schema`` and ``preview_turn`` from ``core.turn``, imported when first asked for."""
    if name in _TURN:
        from kingdomlog.core import turn

        return getattr(turn, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
