"""The core: events and their registry, the ruleset seam, the fold and draft turns.

Pure code: no I/O, no clock, no random draws.
"""

from kingdomlog.core import core_events as core_events
from kingdomlog.core.errors import (
    ConflictError,
    CorruptLogError,
    InputError,
    KingdomlogError,
    RuleError,
    StoreError,
)
from kingdomlog.core.events import Draft, EventModel, RecordedEvent, register_event, register_upcaster
from kingdomlog.core.fold import replay, timeline
from kingdomlog.core.ruleset import (
    Breakdown,
    CampaignContext,
    Choice,
    OptionSpec,
    Phase,
    Ruleset,
    Term,
    find_ruleset,
    register_ruleset,
)
from kingdomlog.core.turn import Plan, preview_turn

__all__ = [
    "Breakdown",
    "CampaignContext",
    "Choice",
    "ConflictError",
    "CorruptLogError",
    "Draft",
    "EventModel",
    "InputError",
    "KingdomlogError",
    "OptionSpec",
    "Phase",
    "Plan",
    "RecordedEvent",
    "RuleError",
    "Ruleset",
    "StoreError",
    "Term",
    "core_events",
    "find_ruleset",
    "preview_turn",
    "register_event",
    "register_ruleset",
    "register_upcaster",
    "replay",
    "timeline",
]
