"""Events every campaign understands, whatever its ruleset (namespace ``core.``)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

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


class SubmittedStep(BaseModel):
    """A player's input for one step: its choices and the faces the server rolled for it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    choices: dict[str, Any] = Field(default_factory=dict)
    rolls: dict[str, list[int]] = Field(default_factory=dict)


@register_event
class PlanSubmitted(EventModel):
    """A player's (or faction's) submission for a turn: the steps it may fill in, with server-rolled dice.

    The envelope's actor is the player and its visibility ``faction:<id>`` (the GM sees it
    too). It never changes state (the fold skips ``core.*``); the GM's plan for ``turn``
    takes the latest submission of each player for the steps it leaves out.
    """

    type = "core.plan_submitted"
    version = 1

    turn: int = Field(ge=0)
    steps: dict[str, SubmittedStep] = Field(default_factory=dict)
    note: str = Field(default="", max_length=20_000)


CORE_EVENT_TYPES: tuple[type[EventModel], ...] = (CampaignConfigured, TurnRetracted, NoteAdded, PlanSubmitted)
