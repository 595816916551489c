"""Events every campaign understands, whatever its ruleset (namespace ``core.``)."""

from __future__ import annotations

from typing import Any

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

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




# ---- play by post: what the table says between two commits of a turn ------------------------------
# None of these changes a state (the fold skips ``core.*``): they are the GM's and the players'
# inputs for the next turn, kept in the log so that nothing typed is lost and every decision shows
# who made it and when. ``kingdomlog.app.pbp`` reads them.


class QuestionOption(BaseModel):
    """One allowed answer of a question: its value, a label and a detail, in words."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    value: Any
    label: str = ""
    detail: str = ""


@register_event
class StepsPublished(EventModel):
    """The GM publishes the first steps of turn ``turn`` (the opening) before the players give orders.

    Actor the GM, visibility ``gm`` (the choices hold the GM's secrets); each player sees what
    the opening does through its own redacted view. The steps are folded only when the turn is
    committed: the GM's turn takes them as it takes a player's submission (the dice are the faces
    rolled when the opening was published).
    """

    type = "core.steps_published"
    version = 1

    turn: int = Field(ge=0)
    steps: dict[str, SubmittedStep] = Field(default_factory=dict)


@register_event
class DeadlineSet(EventModel):
    """The GM's deadline for turn ``turn``'s orders, the time players get for each question, and
    whether the turn resolves itself when everything is in (visibility ``public``)."""

    type = "core.deadline_set"
    version = 1

    turn: int = Field(ge=0)
    orders_due: AwareDatetime | None = None
    answer_hours: float = Field(default=24.0, gt=0, le=24 * 60, allow_inf_nan=False)
    auto_resolve: bool = False


@register_event
class ReadyMarked(EventModel):
    """A player says it is done (or not yet) with turn ``turn``; actor and visibility the player's."""

    type = "core.ready_marked"
    version = 1

    turn: int = Field(ge=0)
    ready: bool = True


@register_event
class MessageSent(EventModel):
    """A message between factions: ``to`` empty is an open letter (visibility ``public``); else the
    sender and the recipients are its visibility. The GM may write and reads every message."""

    type = "core.message_sent"
    version = 1

    turn: int = Field(ge=0)
    sender: str = Field(min_length=1, max_length=64)
    to: tuple[str, ...] = ()
    subject: str = Field(default="", max_length=200)
    text: str = Field(min_length=1, max_length=20_000)


@register_event
class OrdersClosed(EventModel):
    """No more submissions for turn ``turn``: the deadline passed, everyone was ready, or the GM said so."""

    type = "core.orders_closed"
    version = 1

    turn: int = Field(ge=0)
    reason: str = ""
    missing: tuple[str, ...] = ()


@register_event
class DiceSealed(EventModel):
    """The seed of a turn's resolution dice, fixed when the first question of the turn is posted
    (visibility ``gm``: with it the dice could be foreseen). Every later preview and the commit use it."""

    type = "core.dice_sealed"
    version = 1

    turn: int = Field(ge=0)
    seed: str = Field(min_length=1, max_length=200)


@register_event
class QuestionPosed(EventModel):
    """A question a step of turn ``turn`` asks one player; visibility that player's (and the GM's).

    ``step`` and ``path`` say where the answer goes in that step's choices; ``default`` stands if
    no answer comes by ``deadline``. ``prompt`` and ``options`` show only what ``to`` may see.
    """

    type = "core.question_posed"
    version = 1

    turn: int = Field(ge=0)
    question: str = Field(min_length=1, max_length=300)
    to: str = Field(min_length=1, max_length=64)
    kind: str = Field(min_length=1, max_length=64)
    prompt: str = Field(max_length=20_000)
    step: str = Field(min_length=1)
    path: tuple[str, ...] = Field(min_length=1)
    options: tuple[QuestionOption, ...] = ()
    default: Any = None
    deadline: AwareDatetime | None = None


@register_event
class QuestionAnswered(EventModel):
    """A player's answer to a posted question (``by_default``: nobody answered by the deadline and the
    default stood). Actor the player (``system`` for a default); visibility the player's."""

    type = "core.question_answered"
    version = 1

    turn: int = Field(ge=0)
    question: str = Field(min_length=1, max_length=300)
    answer: Any = None
    by_default: bool = False


@register_event
class DiceRerolled(EventModel):
    """A rolled check of a turn's step was explicitly rolled again (design §5): why, and the faces before and after.

    Recorded in the turn's batch after the step's own events, with the visibility all of them
    share (whoever may see the step's events may see its re-rolls). ``reason`` is a re-roll the
    rules give (``Ruleset.reroll_reasons``, e.g. pf2e ``fame``, whose cost the step's own events
    record) or ``gm`` (a GM ruling, ``note`` says why). ``faces_after`` empty: the roll was taken
    back and not made again. Like every ``core.*`` event it never changes a state.
    """

    type = "core.dice_rerolled"
    version = 1

    step: str = Field(min_length=1)
    key: str = Field(min_length=1)
    nonce: int = Field(ge=1)
    reason: str = Field(min_length=1, max_length=64)
    reason_label: str = ""
    note: str = Field(default="", max_length=2000)
    check: str = ""
    faces_before: tuple[int, ...] = ()
    faces_after: tuple[int, ...] = ()


CORE_EVENT_TYPES: tuple[type[EventModel], ...] = (
    CampaignConfigured, TurnRetracted, NoteAdded, PlanSubmitted, StepsPublished, DeadlineSet, ReadyMarked,
    MessageSent, OrdersClosed, DiceSealed, QuestionPosed, QuestionAnswered, DiceRerolled,
)
