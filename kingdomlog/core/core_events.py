"""Events every campaign understands, whatever its ruleset (namespace ``core.``)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from kingdomlog.core.events import EventModel, register_event


@register_event
class CampaignConfigured(EventModel):
    """The first event of every campaign: its ruleset and validated options, so the log alone replays."""

    type = "core.campaign_configured"
    version = 1

    ruleset: str = Field(min_length=1)
    options: dict[str, Any] = Field(default_factory=dict)
    name: str = ""


@register_event
class TurnRetracted(EventModel):
    """Undo by appending: the named batches no longer count in the fold; the timeline keeps them."""

    type = "core.turn_retracted"
    version = 1

    turn: int = Field(ge=0)
    commit_ids: tuple[str, ...] = Field(min_length=1)
    reason: str = ""


@register_event
class NoteAdded(EventModel):
    """A GM's journal entry; who may read it is the envelope's visibility."""

    type = "core.note_added"
    version = 1

    text: str = Field(min_length=1, max_length=20_000)
    title: str = ""


CORE_EVENT_TYPES: tuple[type[EventModel], ...] = (CampaignConfigured, TurnRetracted, NoteAdded)
