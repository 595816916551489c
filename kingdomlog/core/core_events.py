"""Events every campaign understands, whatever its ruleset (namespace ``core.``)."""

from __future__ import annotations

from pydantic import Field

from kingdomlog.core.events import EventModel, register_event


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


CORE_EVENT_TYPES: tuple[type[EventModel], ...] = (TurnRetracted, NoteAdded)
