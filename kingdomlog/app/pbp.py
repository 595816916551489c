"""Play by post: a turn that runs itself between two commits of the log.

Everything the table says while a turn is open is kept in the log as ``core.*`` events (the fold skips
them; the turn's commit folds what they decided):

- the GM **publishes the opening** of the turn (``publish``: its events, dilemmas and candidates,
  ``core.steps_published``) and sets a **deadline** (``deadline``: when orders are due, how long each
  question stays open, whether the turn resolves itself when everything is in);
- each player **submits** its own steps (``submissions.submit``), **answers the questions** addressed to
  it (``answer``), writes **messages** to the others (``send_message``) and marks itself **ready**
  (``mark_ready``);
- ``advance`` moves the turn on, and every front end calls it (the server after each write and every
  minute, ``kingdomlog status``, ``kingdomlog resolve``): when every player is ready or the deadline has
  passed it closes the orders (``core.orders_closed``) and seals the resolution dice
  (``core.dice_sealed``, GM only); then it previews the resolution, posts the questions it asks
  (``core.question_posed``, to one player each, a group at a time: a battle's second round is asked
  after its first is answered), lets the default stand for those whose time ran out
  (``core.question_answered`` by default), and when nothing is left to ask commits the turn if the GM
  said so (else the GM commits with ``kingdomlog turn`` or the GM sheet).

``status`` says where a turn stands: who has submitted, who is ready, who is missing, which questions
wait for whom, and the time left. Every function takes ``now`` (aware, UTC) so tests fix the clock.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from kingdomlog.app import submissions as subs
from kingdomlog.core.core_events import (
    DeadlineSet,
    DiceSealed,
    MessageSent,
    OrdersClosed,
    PlanSubmitted,
    QuestionAnswered,
    QuestionOption,
    QuestionPosed,
    ReadyMarked,
    StepsPublished,
    SubmittedStep,
)
from kingdomlog.core.errors import InputError, KingdomlogError, RuleError
from kingdomlog.core.events import Draft, RecordedEvent
from kingdomlog.core.fold import next_turn
from kingdomlog.core.ruleset import Question, Ruleset, run_step
from kingdomlog.core.turn import Plan, StepPlan, TurnPreview
from kingdomlog.core.viewers import Viewer, visible_to
from kingdomlog.dice import roller

if TYPE_CHECKING:
    from kingdomlog.app.campaign import Campaign
    from kingdomlog.store.log import AppendResult

SYSTEM = "system"
"""The actor of what the table's clock decides (a default standing, the orders closing at the deadline)."""


def utcnow() -> datetime:
    return datetime.now(UTC)


def _now(now: datetime | None) -> datetime:
    return subs.now_utc(utcnow() if now is None else now)


def _head(events: Sequence[RecordedEvent]) -> int:
    return events[-1].seq if events else 0


# ---- reading a turn --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Posted:
    """A question as posted to one player, with its answer (if any)."""

    turn: int
    id: str
    to: str
    kind: str
    prompt: str
    step: str
    path: tuple[str, ...]
    options: tuple[QuestionOption, ...]
    default: Any
    deadline: datetime | None
    posted_seq: int
    answered: bool = False
    answer: Any = None
    by_default: bool = False

    @property
    def opening(self) -> bool:
        """Asked by the opening and answered into the player's own orders (changeable until they close)."""
        return _opening_question(self)

    def label_of(self, value: Any) -> str:
        """The words of an answer (its option's label, else the value as JSON)."""
        for o in self.options:
            if o.value == value:
                return o.label or json.dumps(value)
        if isinstance(value, list) and value:
            parts = [self.label_of([v]) for v in value]
            return "; ".join(parts)
        return json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class Message:
    """A message between factions (``to`` empty: an open letter)."""

    seq: int
    turn: int
    sender: str
    to: tuple[str, ...]
    subject: str
    text: str
    sent_at: datetime


@dataclass
class PlayerStatus:
    """Where one player stands in the turn."""

    id: str
    steps: list[str]
    submitted: list[str]
    ready: bool
    questions_open: list[str] = field(default_factory=list)

    @property
    def missing(self) -> list[str]:
        """Its steps it has submitted nothing for."""
        return [s for s in self.steps if s not in self.submitted]


@dataclass
class TurnStatus:
    """Where the next turn stands (``stage``: ``orders``, ``answers``, ``to resolve``, ``refused``, ``idle``)."""

    turn: int
    turn_unit: str
    stage: str
    published: bool
    orders_due: datetime | None
    answer_hours: float
    auto_resolve: bool
    closed: str | None
    players: list[PlayerStatus]
    questions: list[Posted]
    now: datetime
    problem: str | None = None

    @property
    def seconds_left(self) -> float | None:
        """Seconds until the orders are due (negative once passed); None without a deadline."""
        return None if self.orders_due is None else (self.orders_due - self.now).total_seconds()

    @property
    def waiting_on(self) -> list[str]:
        """Who the turn waits for now."""
        if self.stage == "orders":
            return [p.id for p in self.players if not p.ready]
        return sorted({q.to for q in self.questions if not q.answered})

    def time_left(self) -> str:
        """The time left in words (``2 d 3 h``, ``45 min``, ``passed``, ``no deadline``)."""
        return time_words(self.seconds_left)

    def as_dict(self) -> dict[str, Any]:
        """The status as JSON-able data (``kingdomlog status --json``)."""
        return {
            "turn": self.turn, "stage": self.stage, "published": self.published,
            "orders_due": self.orders_due.isoformat() if self.orders_due else None,
            "seconds_left": self.seconds_left, "time_left": self.time_left(), "answer_hours": self.answer_hours,
            "auto_resolve": self.auto_resolve, "closed": self.closed, "problem": self.problem,
            "waiting_on": self.waiting_on,
            "players": [{"id": p.id, "steps": p.steps, "submitted": p.submitted, "missing": p.missing,
                         "ready": p.ready, "questions_open": p.questions_open} for p in self.players],
            "questions": [{"id": q.id, "to": q.to, "kind": q.kind, "answered": q.answered,
                           "by_default": q.by_default, "deadline": q.deadline.isoformat() if q.deadline else None}
                          for q in self.questions],
        }


def time_words(seconds: float | None) -> str:
    """Seconds as the time left in words.

    >>> time_words(None), time_words(-5), time_words(59), time_words(3 * 3600 + 120), time_words(2 * 86400 + 3600)
    ('no deadline', 'passed', '1 min', '3 h 2 min', '2 d 1 h')
    """
    if seconds is None:
        return "no deadline"
    if seconds <= 0:
        return "passed"
    minutes = math.ceil(seconds / 60)
    d, rest = divmod(minutes, 24 * 60)
    h, m = divmod(rest, 60)
    if d:
        return f"{d} d {h} h"
    if h:
        return f"{h} h {m} min" if m else f"{h} h"
    return f"{m} min"


def deadline_of(events: Sequence[RecordedEvent], turn: int) -> DeadlineSet | None:
    """The GM's latest deadline settings for ``turn``."""
    return subs.deadline_set(events, turn)


def ready_flags(events: Sequence[RecordedEvent], turn: int) -> dict[str, bool]:
    """Player -> whether it said it is ready (its latest word)."""
    out: dict[str, bool] = {}
    for ev in subs.turn_events(events, turn, ReadyMarked):
        assert isinstance(ev.payload, ReadyMarked)
        out[ev.actor] = ev.payload.ready
    return out


def posted(events: Sequence[RecordedEvent], turn: int) -> dict[str, Posted]:
    """Question id -> the question as posted (its last posting), with its latest answer."""
    out: dict[str, Posted] = {}
    for ev in subs.turn_events(events, turn, QuestionPosed):
        q = ev.payload
        assert isinstance(q, QuestionPosed)
        out[q.question] = Posted(turn, q.question, q.to, q.kind, q.prompt, q.step, tuple(q.path), tuple(q.options),
                                 q.default, q.deadline, ev.seq)
    for ev in subs.turn_events(events, turn, QuestionAnswered):
        a = ev.payload
        assert isinstance(a, QuestionAnswered)
        if a.question in out:
            out[a.question] = replace(out[a.question], answered=True, answer=a.answer, by_default=a.by_default)
    return out


def questions(camp: Campaign, viewer: Viewer, turn: int | None = None) -> list[Posted]:
    """The questions posted to ``viewer`` (every question for the GM) for ``turn`` (default: the next).

    ``posted_seq`` is in the viewer's own numbering (``Campaign.visible_events``): a player is never
    shown where hidden events sit.
    """
    v = viewer
    events = camp.events()
    t = next_turn(events) if turn is None else turn
    if v.is_gm:
        return in_words(camp, v, list(posted(events, t).values()))
    if not v.is_player:
        return []
    return in_words(camp, v, [q for q in posted(camp.visible_events(v), t).values() if q.to == v.id])


def in_words(camp: Campaign, viewer: Viewer, asked: list[Posted]) -> list[Posted]:
    """``asked`` with each prompt and option label as ``viewer``'s state words it (``Ruleset.question_words``:
    a question posted before its ruleset named everything in words is told again from what it recorded; the
    log is not changed)."""
    rs = camp.ruleset
    if not asked or type(rs).question_words is Ruleset.question_words:
        return asked
    state = camp.state(viewer=viewer)
    out = []
    for q in asked:
        prompt, labels = rs.question_words(state, q.kind, q.prompt, [o.label for o in q.options])
        options = tuple(o if o.label == lab else o.model_copy(update={"label": lab})
                        for o, lab in zip(q.options, labels, strict=True))
        out.append(q if (prompt, options) == (q.prompt, q.options) else replace(q, prompt=prompt, options=options))
    return out


def messages(camp: Campaign, viewer: Viewer, turn: int | None = None) -> list[Message]:
    """The messages ``viewer`` may read (all turns, or ``turn``), oldest first; ``seq`` in the viewer's
    own numbering."""
    out: list[Message] = []
    for ev in camp.visible_events(viewer):
        m = ev.payload
        if isinstance(m, MessageSent) and (turn is None or m.turn == turn):
            out.append(Message(ev.seq, m.turn, m.sender, tuple(m.to), m.subject, m.text, ev.recorded_at))
    return out


def own_seq(camp: Campaign, viewer: Viewer, seq: int) -> int | None:
    """The GM's ``seq`` of an event as ``viewer`` numbers it (``Campaign.visible_events``); None when
    the viewer may not see that event. What a page or a command shows a player (its submission, the
    message it just sent) is numbered this way, never by the log's own seq."""
    v = viewer
    if v.is_gm:
        return seq
    n = 0
    for ev in camp.events():
        if visible_to(ev.visibility, v):
            n += 1
            if ev.seq == seq:
                return n
        elif ev.seq == seq:
            return None
    return None


def status(camp: Campaign, *, now: datetime | None = None, preview: TurnPreview | None = None) -> TurnStatus:
    """Where the next turn stands (the GM's view: every player, every question)."""
    t_now = _now(now)
    events = camp.events()
    t = next_turn(events)
    state = camp.state()
    rs = camp.ruleset
    dl = deadline_of(events, t)
    flags = ready_flags(events, t)
    subm = camp.submissions(t)
    asked = posted(events, t)
    players = []
    for pid in camp.players():
        steps = camp.player_steps(Viewer("player", pid), state=state, turn=t)
        if not steps:
            continue
        sub = subm.get(pid)
        done = list(sub.payload.steps) if sub is not None and hasattr(sub.payload, "steps") else []
        players.append(PlayerStatus(pid, steps, [s for s in steps if s in done], flags.get(pid, False),
                                    [q.id for q in asked.values() if q.to == pid and not q.answered]))
    closed = subs.orders_closed(events, t)
    stage = "idle" if dl is None and subs.published(events, t) is None and not subm else "orders"
    problem = None
    if closed is not None:
        stage = "answers" if any(not q.answered for q in asked.values()) else "to resolve"
        if preview is not None and not preview.ok:
            stage, problem = "refused", preview.error
    return TurnStatus(t, rs.turn_unit, stage, subs.published(events, t) is not None,
                      dl.orders_due if dl else None, dl.answer_hours if dl else 24.0, dl.auto_resolve if dl else False,
                      closed.reason if closed else None, players, list(asked.values()), t_now, problem)


@dataclass(frozen=True)
class SeenStatus:
    """Where the next turn stands as one player or the public may know it (``status_for``).

    Only what the viewer may see (docs/play-by-post.md; signoria §11.3): the turn, the deadline and
    whether the orders are closed (public), who was missing when they closed (public, names only), and
    for a player its own part: its steps, what it has submitted, its own ready flag and its own
    questions. No other player's steps, readiness or questions, no question's id but the viewer's own,
    no refusal of the resolution (the GM's), nothing of whom the turn waits for.

    ``stage``: ``idle`` (nothing announced), ``orders`` (the orders are open), ``answers`` (the orders are
    closed and a question to this player waits for its answer) or ``resolving`` (closed; the rest is the
    GM's and the other players').
    """

    viewer: str
    turn: int
    turn_unit: str
    stage: str
    orders_due: datetime | None
    closed: str | None
    missing: tuple[str, ...]
    me: PlayerStatus | None
    questions: tuple[Posted, ...]
    now: datetime

    @property
    def seconds_left(self) -> float | None:
        """Seconds until the orders are due (negative once passed); None without a deadline."""
        return None if self.orders_due is None else (self.orders_due - self.now).total_seconds()

    def time_left(self) -> str:
        """The time left in words (``2 d 3 h``, ``45 min``, ``passed``, ``no deadline``)."""
        return time_words(self.seconds_left)

    def as_dict(self) -> dict[str, Any]:
        """The status as JSON-able data (``kingdomlog status --as VIEWER --json``)."""
        doc: dict[str, Any] = {
            "turn": self.turn, "viewer": self.viewer, "stage": self.stage,
            "orders_due": self.orders_due.isoformat() if self.orders_due else None,
            "seconds_left": self.seconds_left, "time_left": self.time_left(), "closed": self.closed,
            "missing_orders": list(self.missing)}
        if self.me is not None:
            doc.update({"steps": self.me.steps, "submitted": self.me.submitted, "missing": self.me.missing,
                        "ready": self.me.ready,
                        "questions": [{"id": q.id, "kind": q.kind, "prompt": q.prompt, "answered": q.answered,
                                       "deadline": q.deadline.isoformat() if q.deadline else None}
                                      for q in self.questions]})
        return doc


def status_for(camp: Campaign, viewer: Viewer, *, now: datetime | None = None) -> SeenStatus:
    """Where the next turn stands for ``viewer`` (a player or the public; the GM has ``status``).

    Read from the events ``viewer`` may see only (``Campaign.visible_events``): the GM's deadline and the
    closing of the orders are public, a player's submissions, ready flags and questions its own. Raises
    ``InputError`` for the GM (whose status is ``status``).
    """
    if viewer.is_gm:
        raise InputError("the GM's status is pbp.status (every player, every question)")
    t_now = _now(now)
    t = camp.next_turn()
    seen = camp.visible_events(viewer)
    dl = deadline_of(seen, t)
    closed = subs.orders_closed(seen, t)
    me: PlayerStatus | None = None
    mine: list[Posted] = []
    if viewer.is_player:
        steps = camp.player_steps(viewer, turn=t)
        subm = [ev for ev in subs.turn_events(seen, t, PlanSubmitted) if ev.actor == viewer.id]
        done = list(subm[-1].payload.steps) if subm and isinstance(subm[-1].payload, PlanSubmitted) else []
        mine = [q for q in posted(seen, t).values() if q.to == viewer.id]
        me = PlayerStatus(viewer.id, steps, [s for s in steps if s in done], ready_flags(seen, t).get(viewer.id, False),
                          [q.id for q in mine if not q.answered])
    if closed is not None:
        stage = "answers" if me is not None and me.questions_open else "resolving"
    elif dl is not None or mine or (me is not None and me.submitted):
        stage = "orders"
    else:
        stage = "idle"
    return SeenStatus(viewer.id, t, camp.ruleset.turn_unit, stage, dl.orders_due if dl else None,
                      closed.reason if closed else None, tuple(closed.missing) if closed else (), me, tuple(mine),
                      t_now)


# ---- the GM's inputs --------------------------------------------------------------------------------------


def set_deadline(camp: Campaign, *, orders_due: datetime | None = None, answer_hours: float | None = None,
                 auto_resolve: bool | None = None, clear: bool = False) -> AppendResult:
    """The GM sets (or changes) the next turn's deadline; settings not given keep their last value.

    ``clear`` removes the orders deadline (the turn then waits until every player is ready).
    """
    events = camp.events()
    t = next_turn(events)
    old = deadline_of(events, t)
    due = None if clear else (orders_due if orders_due is not None else (old.orders_due if old else None))
    if due is not None:
        due = _now(due)
    try:
        payload = DeadlineSet(turn=t, orders_due=due,
                              answer_hours=answer_hours if answer_hours is not None else (old.answer_hours if old
                                                                                          else 24.0),
                              auto_resolve=auto_resolve if auto_resolve is not None else (old.auto_resolve if old
                                                                                          else False))
    except ValidationError as exc:
        raise InputError(f"deadline: {exc.errors()[0]['loc'][0]}: {exc.errors()[0]['msg']}") from None
    return camp.append([Draft(payload, actor="gm", visibility="public", turn=t)], expect_seq=_head(events))


def publish(camp: Campaign, plan: Plan, *, now: datetime | None = None) -> AppendResult:
    """The GM publishes the opening of the next turn (its steps before the players' own), before orders.

    The opening's dice are rolled now (its plan's typed faces win) and kept with it, so every player's
    check and the turn's commit see the same opening. Its questions (each player's dilemmas and the
    statesmen on offer) are posted at once, open until the orders close. Publishing again replaces the
    opening (allowed until the orders close).
    """
    events = camp.events()
    t = next_turn(events)
    if plan.turn is not None and plan.turn != t:
        raise InputError(f"the plan is for {camp.ruleset.turn_unit} {plan.turn}, but the next is {t}")
    if subs.orders_closed(events, t) is not None:
        raise RuleError(f"the orders of {camp.ruleset.turn_unit} {t} are closed: the opening cannot change now")
    rs = camp.ruleset
    state = camp.state()
    opening = subs.opening_steps(rs, state, t, [Viewer("player", p) for p in camp.players()])
    if not opening:
        raise RuleError(f"{camp.ruleset.turn_unit} {t} has no opening before the players' steps")
    ids = [s.id for s in opening]
    extra = sorted(set(plan.steps) - set(ids))
    if extra:
        raise InputError(f"publish names {', '.join(extra)}: only the opening ({', '.join(ids)}) is published; "
                         "the rest is played when the turn resolves")
    dice = roller.KeyedRoller(plan.seed or roller.new_seed(), campaign=camp.id, turn=t)
    stored: dict[str, SubmittedStep] = {}
    asked: list[Question] = []
    seq = _head(events)
    for step in opening:
        sp = plan.steps.get(step.id)
        try:
            res = run_step(rs, state, step, dict(sp.choices) if sp else {},
                           dice.for_step(step.id, manual=sp.rolls if sp else None, nonces=sp.rerolls if sp else None),
                           campaign=camp.id, turn=t, start_seq=seq)
        except (RuleError, InputError) as exc:
            raise RuleError(f"the opening is refused: {exc}") from None
        stored[step.id] = SubmittedStep(choices=dict(sp.choices) if sp else {},
                                        rolls={r.key: list(r.faces) for r in res.rolls})
        asked.extend(res.questions)
        state = res.state
        seq += len(res.drafts)
    dl = deadline_of(events, t)
    drafts = [Draft(StepsPublished(turn=t, steps=stored), actor="gm", visibility="gm", turn=t)]
    drafts += [_posting(q, t, dl.orders_due if dl else None) for q in asked]
    return camp.append(drafts, expect_seq=_head(events))


def _posting(q: Question, turn: int, deadline: datetime | None) -> Draft:
    payload = QuestionPosed(turn=turn, question=q.id, to=q.to, kind=q.kind, prompt=q.prompt, step=q.step,
                            path=q.path, options=tuple(QuestionOption(value=o.value, label=o.label, detail=o.detail)
                                                       for o in q.options),
                            default=q.default, deadline=deadline)
    return Draft(payload, actor="gm", visibility=f"faction:{q.to}", turn=turn)


# ---- the players' inputs ------------------------------------------------------------------------------------


def _player(viewer: Viewer) -> Viewer:
    """``viewer`` when it is a player or faction; ``InputError`` for the GM and the public."""
    if not viewer.is_player:
        raise InputError("only a player or faction does this; the GM has `kingdomlog deadline`, `publish` and "
                         "`resolve`")
    return viewer


def mark_ready(camp: Campaign, viewer: Viewer, ready: bool = True, *, turn: int | None = None,
               now: datetime | None = None) -> AppendResult:
    """A player says it is done with the next turn (or takes it back) until the orders close: refused once
    they are closed or ``now`` (default: the clock now) is at or past their deadline, and when ``turn`` (the
    turn the caller read) is no longer the next."""
    v = _player(viewer)
    t_now = _now(now)
    events = camp.events()
    t = next_turn(events)
    unit = camp.ruleset.turn_unit
    if turn is not None and turn != t:
        raise RuleError(f"this was written for {unit} {turn}, but the campaign is now at {unit} {t}: reload")
    if not camp.player_steps(v, turn=t):
        raise RuleError(f"{v.id} has nothing to give for {unit} {t}")
    closed = subs.orders_closed(events, t)
    if closed is not None:
        raise RuleError(f"the orders for {unit} {t} are closed ({closed.reason}); readiness no longer matters")
    due = subs.orders_due(events, t)
    if due is not None and t_now >= due:
        raise RuleError(f"the orders for {unit} {t} were due {subs.minute_words(due)}; readiness no longer matters")
    return camp.append([Draft(ReadyMarked(turn=t, ready=ready), actor=v.id, visibility=f"faction:{v.id}",
                              turn=t)], expect_seq=_head(events))


def send_message(camp: Campaign, sender: Viewer, to: Sequence[str], text: str, *,
                 subject: str = "") -> AppendResult:
    """A message from ``sender`` (a player or the GM) to players ``to`` (empty: an open letter to all).

    Its visibility is its sender and recipients (the GM reads every message); an open letter is public.
    """
    v = sender
    if v.is_public:
        raise InputError("a message has a sender: a player, a faction or the GM")
    declared = camp.players()
    names: list[str] = []
    for r in to:
        rid = str(r).removeprefix("faction:")
        if rid not in declared:
            raise InputError(f"recipient {r!r} is no player or faction of this campaign ({', '.join(declared)})")
        if v.is_player and rid == v.id:
            raise InputError("a message goes to someone else; leave yourself out of the recipients")
        if rid not in names:
            names.append(rid)
    if not text.strip():
        raise InputError("an empty message: write something")
    events = camp.events()
    t = next_turn(events)
    try:
        payload = MessageSent(turn=t, sender=v.id, to=tuple(names), subject=subject.strip(), text=text.strip())
    except ValidationError as exc:
        raise InputError(f"message: {exc.errors()[0]['loc'][0]}: {exc.errors()[0]['msg']}") from None
    if not names:
        vis = "public"
    else:
        parties = ([v.id] if v.is_player else []) + names
        vis = ",".join(f"faction:{p}" for p in parties)
    return camp.append([Draft(payload, actor=v.id, visibility=vis, turn=t)], expect_seq=_head(events))


def _allowed(q: Posted, value: Any) -> Any:
    """``value`` if it is one of the question's answers (or, for a list question, a list of their items)."""
    if not q.options:
        return value
    for o in q.options:
        if o.value == value:
            return value
    items = [x for o in q.options if isinstance(o.value, list) for x in o.value]
    if isinstance(value, list) and all(isinstance(o.value, list) for o in q.options) and all(v in items
                                                                                               for v in value):
        return value
    labels = "; ".join(f"{json.dumps(o.value, ensure_ascii=False)} ({o.label})" for o in q.options)
    raise InputError(f"question {q.id}: {json.dumps(value, ensure_ascii=False)} is not one of its answers: {labels}")


def answer(camp: Campaign, viewer: Viewer, question: str, value: Any, *,
           now: datetime | None = None, turn: int | None = None) -> AppendResult:
    """A player answers a question posted to it (``value`` one of its answers, as JSON).

    Refused after the question's deadline (its default stood; a question into the player's orders is
    open until the orders deadline in force, even when the GM moved it after the question was posted),
    for a question of another player, for a resolution question already answered (answers are final),
    when ``turn`` (the turn the caller read) is no longer the next, and when the answer would make the
    step that receives it refuse (the step's own message says why).
    """
    v = _player(viewer)
    t_now = _now(now)
    events = camp.events()
    t = next_turn(events)
    if turn is not None and turn != t:
        unit = camp.ruleset.turn_unit
        raise RuleError(f"this was written for {unit} {turn}, but the campaign is now at {unit} {t}: reload")
    q = posted(events, t).get(question)
    if q is None or q.to != v.id:
        mine = [p.id for p in posted(events, t).values() if p.to == v.id and not p.answered]
        raise InputError(f"no question {question!r} is open for {v.id}; open: {', '.join(mine) or 'none'}")
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        raise InputError(f"question {question}: the answer must be plain JSON") from None
    value = _allowed(q, value)
    closed = subs.orders_closed(events, t)
    if q.opening and closed is not None:
        raise RuleError(f"question {question}: the orders are closed; the answer given (or the default) stands")
    if q.answered and (q.by_default or not q.opening):
        raise RuleError(f"question {question} is answered ({q.label_of(q.answer)}); answers are final")
    due = q.deadline
    if q.opening:  # into the orders: open until the orders deadline in force now
        dl = deadline_of(events, t)
        due = subs.orders_due(events, t) if dl is not None else q.deadline
    if due is not None and t_now >= due:
        raise RuleError(f"question {question}: its deadline ({subs.minute_words(due)}) has passed; the "
                        "default stands")
    draft = Draft(QuestionAnswered(turn=t, question=question, answer=value), actor=v.id,
                  visibility=f"faction:{v.id}", turn=t)
    if not q.opening:
        _try_answer(camp, q, value)
    return camp.append([draft], expect_seq=_head(events))


def _try_answer(camp: Campaign, q: Posted, value: Any) -> None:
    """Refuse an answer the step receiving it would refuse (nothing written)."""
    plan = camp.with_submissions(Plan())
    if not any(x.id == q.id for x in camp.preview(plan).questions):
        # asked from the GM's own plan (a council vote, elections among the GM's rulings, §8.2): the log does not
        # hold the choices it was asked from, so its options alone check the answer (``_allowed``)
        return
    target = plan.steps.get(q.step)
    choices = json.loads(json.dumps(target.choices)) if target is not None else {}
    subs.put_answer(choices, q.path, value)
    steps = dict(plan.steps)
    steps[q.step] = StepPlan(choices=choices, rolls=dict(target.rolls) if target else {},
                             rerolls=dict(target.rerolls) if target else {})
    tp = camp.preview(plan.model_copy(update={"steps": steps}))
    bad = next((s for s in tp.steps if s.error), None)
    if bad is not None and bad.phase.id == q.step:
        # The step ran on the GM's whole state: its words may name what the player does not know.
        raise RuleError(f"question {q.id}: the rules cannot carry out this answer as things stand; choose"
                        " another of its answers (or ask the GM)")


# ---- moving the turn on --------------------------------------------------------------------------------------


@dataclass
class Advance:
    """What ``advance`` did (``done``, in words, for the GM) and where the turn stands now.

    ``told``: the same steps as each viewer may hear of them (audience None: everyone; else the one
    player concerned), without the log's seqs or another player's questions (``for_viewer``).
    """

    done: list[str]
    status: TurnStatus
    committed: AppendResult | None = None
    told: list[tuple[str | None, str]] = field(default_factory=list)

    def for_viewer(self, viewer: Viewer) -> list[str]:
        """What ``viewer`` may be told of this advance (the GM: ``done``)."""
        if viewer.is_gm:
            return list(self.done)
        return [line for who, line in self.told if who is None or (viewer.is_player and who == viewer.id)]


def _opening_question(q: Question | Posted) -> bool:
    """Asked by the opening and answered into the player's own steps (its orders)."""
    return q.step.startswith(("orders_", "command_"))


def _answered(q: Question, plan: Plan, done: Mapping[str, Posted]) -> bool:
    """Whether ``q`` has its answer: an answer in the log, or (a question the opening asks of a player's own
    orders) the player's orders already say it. A resolution question is asked only while it is missing."""
    p = done.get(q.id)
    if p is not None and p.answered:
        return True
    sp = plan.steps.get(q.step)
    return _opening_question(q) and sp is not None and subs._has(sp.choices, q.path)


def question_said(prompt: str) -> str:
    """What a question's prompt asks, without the help after it: its sentences up to the first that asks (the
    whole prompt when none does).

    >>> question_said("Marburg's army has arrived at Fabia. Fight a battle now or shut the gates? Your home force "
    ...               "is 3 units (§5.2).")
    "Marburg's army has arrived at Fabia. Fight a battle now or shut the gates?"
    >>> question_said("Choose a tactic.")
    'Choose a tactic.'
    """
    m = re.match(r".*?\?(?=\s|$)", prompt, re.S)
    return (m.group(0) if m else prompt).strip()


def asked_words(camp: Campaign, questions: Sequence[Question]) -> str:
    """Questions as the GM reads that they were asked: to whom, by name, and what each asks, in words ("Duke
    Fabian: Doge of Marburg's army has arrived at Fabia across its border. Fight a battle now or shut the
    gates?"); a question's id is a key nobody reads."""
    return "; ".join(f"{camp.viewer_name(q.to)}: {question_said(q.prompt)}" for q in questions)


def pending(preview: TurnPreview, plan: Plan, done: Mapping[str, Posted]) -> list[Question]:
    """The questions of ``preview`` still to answer, in the order asked, up to and including the first group
    that has one (a later group waits: its question depends on the earlier answers)."""
    out: list[Question] = []
    group: str | None = None
    for q in preview.questions:
        if _answered(q, plan, done):
            continue
        if group is None:
            group = q.group
        if q.group != group:
            break
        out.append(q)
    return out


def advance(camp: Campaign, *, now: datetime | None = None, plan: Plan | None = None,
            commit: bool | None = None) -> Advance:
    """Move the next turn on as far as its inputs allow (see the module docs); returns what was done.

    ``plan``: the GM's own plan for the resolution (rulings), merged with the table's inputs.
    ``commit``: commit when nothing is left to ask (default: the GM's ``auto_resolve``).
    """
    t_now = _now(now)
    done: list[str] = []
    told: list[tuple[str | None, str]] = []

    def result(st: TurnStatus, res: AppendResult | None = None) -> Advance:
        return Advance(done, st, res, told)

    for _ in range(50):  # every pass appends something or stops
        events = camp.events()
        t = next_turn(events)
        unit = camp.ruleset.turn_unit
        dl = deadline_of(events, t)
        st = status(camp, now=t_now)
        if st.stage == "idle":
            return result(st)
        closed = subs.orders_closed(events, t)
        if closed is None:
            everyone = bool(st.players) and all(p.ready for p in st.players)
            due = dl is not None and dl.orders_due is not None and t_now >= dl.orders_due
            if not (everyone or due):
                return result(st)
            if everyone:
                reason = "every player is ready"
            else:
                assert dl is not None and dl.orders_due is not None
                reason = f"the deadline passed ({dl.orders_due:%Y-%m-%d %H:%M} UTC)"
            _close(camp, events, t, reason, [p.id for p in st.players if p.missing])
            done.append(f"closed the orders of {unit} {t}: {reason}")
            told.append((None, f"the orders of {unit} {t} are closed: {reason}"))
            continue
        gm_plan = plan or Plan(turn=t)
        merged = camp.with_submissions(gm_plan)
        tp = camp.preview(gm_plan)
        if not tp.ok:
            return result(status(camp, now=t_now, preview=tp))
        asked = posted(events, t)
        todo = pending(tp, merged, asked)
        if not todo:
            go = dl.auto_resolve if commit is None and dl is not None else bool(commit)
            if not go:
                return result(status(camp, now=t_now, preview=tp))
            res = camp.commit(tp)
            done.append(f"committed {unit} {t} (seq {res.first_seq}..{res.last_seq})")
            told.append((None, f"{unit} {t} is resolved: see your report"))
            return result(status(camp, now=t_now), res)
        shut = [q for q in todo if _opening_question(q)]
        if shut:  # the orders are closed: a question into them can only take its default now
            drafts = [_posting(q, t, None) for q in shut if q.id not in asked]
            drafts += [Draft(QuestionAnswered(turn=t, question=q.id, answer=q.default, by_default=True), actor=SYSTEM,
                             visibility=f"faction:{q.to}", turn=t) for q in shut]
            camp.append(drafts, expect_seq=_head(events))
            done.append(f"defaults stood for {asked_words(camp, shut)} (the orders are closed)")
            told.extend((q.to, f"the default stood for your {q.kind.replace('_', ' ')} question (the orders are "
                                "closed)") for q in shut)
            continue
        new = [q for q in todo if q.id not in asked]
        if new:
            hours = dl.answer_hours if dl is not None else 24.0
            due_at = t_now + timedelta(hours=hours)
            camp.append([_posting(q, t, due_at) for q in new], expect_seq=_head(events))
            done.append(f"asked {asked_words(camp, new)}")
            told.extend((q.to, f"a question for you: {q.prompt}") for q in new)  # in words: its id is a key
            return result(status(camp, now=t_now))
        late = [p for p in (asked[q.id] for q in todo) if p.deadline is not None and t_now >= p.deadline]
        if not late:
            return result(status(camp, now=t_now))
        camp.append([Draft(QuestionAnswered(turn=t, question=q.id, answer=q.default, by_default=True), actor=SYSTEM,
                           visibility=f"faction:{q.to}", turn=t) for q in late], expect_seq=_head(events))
        done.append(f"defaults stood for {asked_words(camp, [q for q in todo if q.id in {p.id for p in late}])}")
        told.extend((q.to, f"the default stood for your {q.kind.replace('_', ' ')} question (its time ran out)")
                    for q in late)
    raise KingdomlogError("the turn did not settle after 50 steps; this is a bug")  # pragma: no cover


def _close(camp: Campaign, events: Sequence[RecordedEvent], turn: int, reason: str,
           missing: Sequence[str]) -> AppendResult:
    """Close the orders: the opening questions left unanswered take their defaults; the dice are sealed."""
    drafts = [Draft(OrdersClosed(turn=turn, reason=reason, missing=tuple(missing)), actor=SYSTEM, visibility="public",
                    turn=turn),
              Draft(DiceSealed(turn=turn, seed=roller.new_seed()), actor=SYSTEM, visibility="gm", turn=turn)]
    merged = camp.with_submissions(Plan(turn=turn))
    for q in posted(events, turn).values():
        sp = merged.steps.get(q.step)
        if q.opening and not q.answered and not (sp is not None and subs._has(sp.choices, q.path)):
            drafts.append(Draft(QuestionAnswered(turn=turn, question=q.id, answer=q.default, by_default=True),
                                actor=SYSTEM, visibility=f"faction:{q.to}", turn=turn))
    return camp.append(drafts, expect_seq=_head(events))


def close_orders(camp: Campaign, *, reason: str = "closed by the GM") -> AppendResult | None:
    """The GM closes the next turn's orders now (whoever is not ready); None if they are closed already."""
    events = camp.events()
    t = next_turn(events)
    if subs.orders_closed(events, t) is not None:
        return None
    st = status(camp)
    return _close(camp, events, t, reason, [p.id for p in st.players if p.missing])


__all__ = [
    "Advance",
    "Message",
    "PlayerStatus",
    "Posted",
    "SeenStatus",
    "TurnStatus",
    "advance",
    "answer",
    "close_orders",
    "mark_ready",
    "messages",
    "own_seq",
    "pending",
    "posted",
    "publish",
    "questions",
    "send_message",
    "set_deadline",
    "status",
    "status_for",
    "time_words",
]
