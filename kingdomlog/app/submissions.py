"""Player submissions, in one place: which steps a player may submit, checking, storing and merging them.

A player (or faction) submits its own steps of the next turn (``core.plan_submitted``, visible to
that player and the GM). Three rules keep a submission honest:

- **Checked against what the player knows.** The check runs the GM's opening of the turn (as the GM
  published it, ``core.steps_published``) on the truth, then the player's own steps on the player's
  *redacted* view of the result. Whatever it refuses, and every word of the refusal, comes from that
  view; what only the truth can settle is settled when the GM's turn resolves.
- **Dice that cannot be fished.** A step's dice are rolled once, the first time the step is submitted,
  and sealed in the log at once, before anything else of the submission is checked: a refused
  submission keeps them, and its choices cannot change afterwards (the GM may rule otherwise in the
  GM's own plan). A check that would need dice not yet rolled checks nothing after them, so no refusal
  depends on, or states, a die.
- **One turn.** A sheet opened for one turn cannot file under another (``turn=``), and nothing is
  accepted once the turn's orders are closed (``core.orders_closed``).

The GM's preview takes the opening the GM published, each player's latest submission for the steps
the GM's plan leaves out, every answer to the turn's questions and the turn's sealed seed
(``with_submissions``): the one place the players' inputs and the GM's plan meet.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from kingdomlog.core.core_events import (
    DeadlineSet,
    DiceSealed,
    OrdersClosed,
    PlanSubmitted,
    QuestionAnswered,
    QuestionPosed,
    StepsPublished,
    SubmittedStep,
)
from kingdomlog.core.errors import ConflictError, InputError, RuleError
from kingdomlog.core.events import Draft, RecordedEvent
from kingdomlog.core.fold import next_turn
from kingdomlog.core.ruleset import Ruleset, State, Step, run_step
from kingdomlog.core.turn import Plan, StepPlan
from kingdomlog.core.viewers import Viewer, visible_to
from kingdomlog.dice import roller

if TYPE_CHECKING:
    from kingdomlog.app.campaign import Campaign
    from kingdomlog.store.log import AppendResult


@dataclass(frozen=True)
class SubmissionCheck:
    """A player's submission as ``Campaign.submit`` would store it (nothing written).

    ``steps`` hold the choices and the faces rolled (or kept from an earlier submission);
    ``fresh`` names the steps whose dice this check rolled anew (``submit`` seals exactly these
    faces first); ``unchecked`` the steps after them, which are checked only once those dice are
    sealed; ``events`` are the drafts of each checked step (all of them the viewer's own).
    """

    viewer: str
    turn: int
    expect_seq: int
    steps: dict[str, SubmittedStep]
    fresh: tuple[str, ...]
    events: dict[str, list[Draft]]
    unchecked: tuple[str, ...] = ()
    sealed: tuple[str, ...] = ()
    """Steps whose dice were sealed by an earlier submission this turn."""


def player_steps(camp: Campaign, viewer: Viewer, *, state: State | None = None,
                 turn: int | None = None) -> list[str]:
    """The steps of ``turn`` (default: the next) that ``viewer`` may submit; [] for the GM and the public."""
    if not viewer.is_player:
        return []
    st = camp.state() if state is None else state
    t = camp.next_turn() if turn is None else turn
    return [str(x) for x in camp.ruleset.player_steps(st, t, viewer)]


def turn_events(events: Sequence[RecordedEvent], turn: int, cls: type[Any]) -> list[RecordedEvent]:
    """The events of payload class ``cls`` recorded for ``turn`` (their payload's ``turn``), in log order."""
    return [ev for ev in events if isinstance(ev.payload, cls) and getattr(ev.payload, "turn", None) == turn]


def submissions(camp: Campaign, turn: int | None = None) -> dict[str, RecordedEvent]:
    """The latest ``core.plan_submitted`` of each player for ``turn`` (default: the next), by player id.

    Each value is the recorded event (``payload`` is a ``PlanSubmitted``); a later
    submission replaces the player's earlier ones whole.
    """
    events = camp.events()
    t = next_turn(events) if turn is None else turn
    return {ev.actor: ev for ev in turn_events(events, t, PlanSubmitted)}


def published(events: Sequence[RecordedEvent], turn: int) -> StepsPublished | None:
    """The GM's latest published opening of ``turn``, if any."""
    found = turn_events(events, turn, StepsPublished)
    payload = found[-1].payload if found else None
    return payload if isinstance(payload, StepsPublished) else None


def orders_closed(events: Sequence[RecordedEvent], turn: int) -> OrdersClosed | None:
    """Whether (and why) ``turn``'s orders were closed."""
    found = turn_events(events, turn, OrdersClosed)
    payload = found[0].payload if found else None
    return payload if isinstance(payload, OrdersClosed) else None


def deadline_set(events: Sequence[RecordedEvent], turn: int) -> DeadlineSet | None:
    """The GM's latest deadline settings for ``turn`` (``core.deadline_set``, public)."""
    found = turn_events(events, turn, DeadlineSet)
    payload = found[-1].payload if found else None
    return payload if isinstance(payload, DeadlineSet) else None


def orders_due(events: Sequence[RecordedEvent], turn: int) -> datetime | None:
    """When ``turn``'s orders are due (the GM's latest deadline); None without one.

    The orders close *at* this instant: a submission, a ready flag or an answer into the orders
    made at ``orders_due`` or later is refused, whether or not anything has closed them in the log yet.
    """
    dl = deadline_set(events, turn)
    return dl.orders_due.astimezone(UTC) if dl is not None and dl.orders_due is not None else None


def now_utc(now: datetime | None = None) -> datetime:
    """``now`` in UTC (default: the clock now; the edges pass theirs, tests fix it); ``InputError`` without
    a time zone."""
    t = datetime.now(UTC) if now is None else now
    if t.tzinfo is None:
        raise InputError("a time must say its time zone (e.g. 2026-12-05T18:00+00:00)")
    return t.astimezone(UTC)


def minute_words(t: datetime) -> str:
    """A time as a person reads a deadline: to the minute, in UTC.

    >>> from datetime import timedelta, timezone
    >>> minute_words(datetime(2026, 12, 8, 9, 6, 41, 630978, tzinfo=timezone(timedelta(hours=1))))
    '2026-12-08 08:06 UTC'
    """
    return f"{t.astimezone(UTC):%Y-%m-%d %H:%M} UTC"


def sealed_seed(events: Sequence[RecordedEvent], turn: int) -> str | None:
    """The seed of ``turn``'s resolution dice, once sealed (GM-only)."""
    found = turn_events(events, turn, DiceSealed)
    payload = found[0].payload if found else None
    return payload.seed if isinstance(payload, DiceSealed) else None


def answers(events: Sequence[RecordedEvent], turn: int) -> dict[str, tuple[QuestionPosed, QuestionAnswered]]:
    """Question id -> (the question as posted last, its latest answer), for ``turn``'s answered questions."""
    posted = {ev.payload.question: ev.payload for ev in turn_events(events, turn, QuestionPosed)
              if isinstance(ev.payload, QuestionPosed)}
    out: dict[str, tuple[QuestionPosed, QuestionAnswered]] = {}
    for ev in turn_events(events, turn, QuestionAnswered):
        a = ev.payload
        if isinstance(a, QuestionAnswered) and a.question in posted:
            out[a.question] = (posted[a.question], a)
    return out


def opening_steps(rs: Ruleset, state: State, turn: int, players: Sequence[Viewer]) -> list[Step]:
    """The GM's steps of ``turn`` before the first step any player submits (the turn's opening)."""
    own = {sid for p in players for sid in rs.player_steps(state, turn, p)}
    out: list[Step] = []
    for step in rs.phases_for(state, turn):
        if step.id in own:
            return out
        out.append(step)
    return []  # no player step this turn: nothing to open before the players


def opened(camp: Campaign, state: State, turn: int, *, events: Sequence[RecordedEvent] | None = None) -> State:
    """The truth after ``turn``'s opening as the GM published it (its defaults when unpublished)."""
    evs = camp.events() if events is None else events
    rs = camp.ruleset
    pub = published(evs, turn)
    players = [Viewer("player", p) for p in camp.players()]
    dice = roller.KeyedRoller("opening", campaign=camp.id, turn=turn)
    for step in opening_steps(rs, state, turn, players):
        sp = pub.steps.get(step.id) if pub is not None else None
        try:
            res = run_step(rs, state, step, dict(sp.choices) if sp else {},
                           dice.for_step(step.id, manual={k: list(v) for k, v in sp.rolls.items()} if sp else {}),
                           campaign=camp.id, turn=turn)
        except (RuleError, InputError):
            raise RuleError(f"the GM's opening of {rs.turn_unit} {turn} ({step.id}) does not resolve; ask the GM"
                            " to publish it again") from None
        state = res.state
    return state


def _has(choices: Mapping[str, Any], path: Sequence[str]) -> bool:
    cur: Any = choices
    for key in path:
        if not isinstance(cur, Mapping) or key not in cur:
            return False
        cur = cur[key]
    return True


def put_answer(choices: dict[str, Any], path: Sequence[str], value: Any) -> bool:
    """Put an answer into a step's choices at ``path``; a value already there wins (the GM's or the
    player's own input), except that list answers extend a list (the two sides' declarations of one
    round). Returns whether the choices changed.

    >>> c = {"declarations": {"b1": {"1": [{"side": "attacker"}]}}}
    >>> put_answer(c, ("declarations", "b1", "1"), [{"side": "defender"}]), len(c["declarations"]["b1"]["1"])
    (True, 2)
    >>> put_answer(c, ("responses", "c1"), {"response": "defence"}), put_answer(c, ("responses", "c1"), {})
    (True, False)
    """
    cur = choices
    for key in path[:-1]:
        nxt = cur.get(key)
        if nxt is None:
            nxt = cur[key] = {}
        if not isinstance(nxt, dict):
            return False
        cur = nxt
    last = path[-1]
    if last in cur:
        if isinstance(cur[last], list) and isinstance(value, list):
            added = [v for v in value if v not in cur[last]]
            cur[last] = [*cur[last], *added]
            return bool(added)
        return False
    cur[last] = value
    return True


def submitted_steps(camp: Campaign, turn: int, state: State) -> dict[str, tuple[str, StepPlan]]:
    """Step id -> (the player who submitted it, the step's plan), from each player's latest submission for ``turn``.

    The one reading of the players' submitted steps (the GM's preview merges them, the GM sheet
    shows whose they are). A step's dice become typed dice: the faces rolled at submission.
    Left out: a step its submitter may no longer submit in ``state`` (the state ``turn`` starts
    from) and a submitter the campaign no longer declares.
    """
    declared = camp.players()
    out: dict[str, tuple[str, StepPlan]] = {}
    for who, ev in submissions(camp, turn).items():
        payload = ev.payload
        if who not in declared or not isinstance(payload, PlanSubmitted):
            continue
        allowed = set(player_steps(camp, Viewer("player", who), state=state, turn=turn))
        for sid, sub in payload.steps.items():
            if sid in allowed and sid not in out:
                out[sid] = (who, StepPlan(choices=json.loads(json.dumps(sub.choices)),
                                          rolls={k: list(v) for k, v in sub.rolls.items()}))
    return out


def with_submissions(camp: Campaign, plan: Plan, *, state: State | None = None) -> Plan:
    """``plan`` with every input of the table for the next turn filled into the steps it leaves out.

    In order: the opening the GM published; each player's latest submission (its dice become typed
    dice, so the resolution uses exactly the faces rolled at submission; steps the submitter may no
    longer submit are ignored); the answers to the turn's questions, each at the place in its step's
    choices the question named (a value already there wins); and the turn's sealed seed, once the
    first question was posted. A step the GM's plan names wins (the GM's ruling). Last, the rows the
    GM accepted at the table (``app.table.merge``), after the plan's own rows of their steps.
    """
    events = camp.events()
    turn = next_turn(events)
    st = camp.state() if state is None else state
    steps = {k: v.model_copy(deep=True) for k, v in plan.steps.items()}
    pub = published(events, turn)
    if pub is not None:
        for sid, sub in pub.steps.items():
            if sid not in steps:
                steps[sid] = StepPlan(choices=json.loads(json.dumps(sub.choices)),
                                      rolls={k: list(v) for k, v in sub.rolls.items()})
    for sid, (_who, sp) in submitted_steps(camp, turn, st).items():
        steps.setdefault(sid, sp)
    known = {s.id for s in camp.ruleset.phases_for(st, turn)}
    for q, a in answers(events, turn).values():
        if q.step not in known or a.by_default:
            continue  # a default that stood is what the step does without an answer: nothing to put in
        target = steps.setdefault(q.step, StepPlan())
        put_answer(target.choices, q.path, json.loads(json.dumps(a.answer)))
    update: dict[str, Any] = {"steps": steps}
    seed = sealed_seed(events, turn)
    if seed is not None:
        update["seed"] = seed
    from kingdomlog.app import table

    return table.merge(camp, plan.model_copy(update=update), turn)


SUBMIT_ATTEMPTS = 8
"""How often ``submit`` decides again when the log moved between its reading and its write."""


def submit(camp: Campaign, viewer: Viewer, steps: Mapping[str, Any], *, note: str = "",
           turn: int | None = None, now: datetime | None = None) -> AppendResult:
    """Append a player's submission for the next turn (``core.plan_submitted``, visible to it and the GM).

    Checked first by ``check_submission`` (its refusals are this method's). When the submission holds
    a step whose dice have not been rolled yet, those dice are rolled and sealed in a submission of
    their own *before* the rest is checked: if the rest is then refused, the dice stay (no fishing).

    ``turn``: the turn the caller read (its sheet, its command); refused if the campaign has moved on.
    Without it, the turn of this call's own first reading: a retry never files under another turn.
    ``now``: the time of the submission (aware; default: the clock now); refused from the orders
    deadline on. Every write is the check's own reading of the log (``expect_seq``): when the log
    moved in between (another submission of the same player, the GM's commit, a new deadline), the
    whole submission is checked again on the new log, so a stake rolled by a concurrent submission
    is seen (the same choices keep its faces, other choices are refused as sealed) and a turn that
    moved on refuses it. ``RuleError`` when the log kept moving ``SUBMIT_ATTEMPTS`` times.
    """
    t_now = now_utc(now)
    seen = turn
    for _ in range(SUBMIT_ATTEMPTS):
        events = camp.events()
        check = _check(camp, viewer, steps, events, turn=seen, sealed=None, now=t_now)
        seen = check.turn
        try:
            if not check.fresh:
                return _store(camp, check, check.steps, note)
            keep = {sid: check.steps[sid] for sid in (*check.sealed, *check.fresh)}
            try:
                final = _check(camp, viewer, steps, events, turn=seen, sealed=keep, now=t_now)
            except (RuleError, InputError):
                _store(camp, check, keep, note)  # refused: the dice just rolled stay, sealed
                raise
            return _store(camp, final, final.steps, note)
        except ConflictError:
            continue  # the log moved since this reading: decide again on the new log
    unit = camp.ruleset.turn_unit
    raise RuleError(f"the {unit} kept changing while this submission was being filed ({SUBMIT_ATTEMPTS} tries);"
                    " nothing was filed: reload and submit again")


def _store(camp: Campaign, check: SubmissionCheck, steps: Mapping[str, SubmittedStep], note: str) -> AppendResult:
    try:
        payload = PlanSubmitted(turn=check.turn, steps=dict(steps), note=note)
    except ValidationError as exc:
        raise InputError(f"submission: {exc.errors()[0]['msg']}") from None
    return camp.append([Draft(payload, actor=check.viewer, visibility=f"faction:{check.viewer}",
                              turn=check.turn)], expect_seq=check.expect_seq)


def check_submission(camp: Campaign, viewer: Viewer, steps: Mapping[str, Any], *,
                     turn: int | None = None, sealed: Mapping[str, SubmittedStep] | None = None,
                     now: datetime | None = None) -> SubmissionCheck:
    """Everything ``submit`` checks and rolls, without writing: the steps as they would be stored.

    ``steps`` is ``{step id: {"choices": {...}}}`` (a ``StepPlan`` or its JSON). Refused (``RuleError``
    or ``InputError``, nothing appended) when ``turn`` is not the campaign's next turn, when the turn's
    orders are closed or ``now`` (default: the clock now) is at or past the orders deadline, when a step
    is not the viewer's, when dice are given (the server rolls them), when a step whose dice were sealed
    this turn is changed, or when the viewer's steps, run on the viewer's own redacted view after the
    GM's opening, refuse. Steps the viewer submitted earlier this turn and does not name again are
    carried over. ``sealed``: steps to treat as sealed by an earlier submission (``submit`` checks the
    rest against the dice it has just rolled).
    """
    return _check(camp, viewer, steps, camp.events(), turn=turn, sealed=sealed, now=now_utc(now))


def _check(camp: Campaign, viewer: Viewer, steps: Mapping[str, Any], events: Sequence[RecordedEvent], *,
           turn: int | None, sealed: Mapping[str, SubmittedStep] | None, now: datetime) -> SubmissionCheck:
    """``check_submission`` on the log as ``events`` (one reading: the check's ``expect_seq`` is its head)."""
    v = viewer
    if not v.is_player:
        raise InputError("a submission is made by a player or faction, not by the GM or the public;"
                         " the GM plays the turn with `kingdomlog turn`")
    who = v.id
    head = events[-1].seq if events else 0
    t = next_turn(events)
    rs = camp.ruleset
    unit = rs.turn_unit
    if turn is not None and turn != t:
        raise RuleError(f"this was written for {unit} {turn}, but the campaign is now at {unit} {t}: reload to"
                        f" see {unit} {t} and give its orders")
    closed = orders_closed(events, t)
    if closed is not None:
        raise RuleError(f"the orders for {unit} {t} are closed ({closed.reason or 'by the GM'}); nothing more can"
                        " be submitted this turn")
    due = orders_due(events, t)
    if due is not None and now >= due:
        raise RuleError(f"the orders for {unit} {t} were due {minute_words(due)}; nothing more can be submitted"
                        " this turn")
    state = camp.state()
    allowed = player_steps(camp, v, state=state, turn=t)
    if not steps:
        raise InputError(f"nothing to submit: name one of your steps for {unit} {t} ({', '.join(allowed) or 'none'})")
    given: dict[str, StepPlan] = {}
    for sid, raw in steps.items():
        if sid not in allowed:
            raise RuleError(f"this step is not {who}'s to submit; for {unit} {t} {who} may submit "
                            f"{', '.join(allowed) or 'nothing'}", step=str(sid))
        try:
            sp = raw if isinstance(raw, StepPlan) else StepPlan.model_validate(raw)
            json.dumps(sp.choices, allow_nan=False)
        except (ValidationError, TypeError, ValueError) as exc:
            raise InputError(f"step {sid!r}: not a step's input ({{\"choices\": {{...}}}}): {exc}") from None
        if sp.rolls or sp.rerolls:
            raise RuleError("a submission's dice are rolled by the server; leave out \"rolls\" and \"rerolls\"",
                            step=str(sid))
        given[sid] = sp
    mine = [ev for ev in turn_events(events, t, PlanSubmitted) if ev.actor == who]
    previous = mine[-1].payload if mine else None
    before: dict[str, SubmittedStep] = {}
    if isinstance(previous, PlanSubmitted):
        before = {k: s for k, s in previous.steps.items() if k in allowed}
    before.update({k: s for k, s in (sealed or {}).items() if k in allowed})
    merged: dict[str, StepPlan] = {
        sid: StepPlan(choices=dict(st.choices), rolls={k: list(f) for k, f in st.rolls.items()})
        for sid, st in before.items()
    }
    sealed_before = tuple(sid for sid, st in before.items() if st.rolls)
    for sid, sp in given.items():
        old = before.get(sid)
        if old is not None and old.rolls:
            if old.choices != sp.choices:
                raise RuleError("its dice were rolled when you submitted it earlier this turn, so its choices are"
                                " sealed; ask the GM to change them", step=sid)
            continue  # the same choices again: keep the faces already rolled
        merged[sid] = StepPlan(choices=dict(sp.choices))
    view = rs.redact(opened(camp, state, t, events=events), v)
    dice = roller.KeyedRoller(roller.new_seed(), campaign=camp.id, turn=t)
    out: dict[str, SubmittedStep] = {}
    seen: dict[str, list[Draft]] = {}
    fresh: list[str] = []
    unchecked: list[str] = []
    for step in rs.phases_for(view, t):
        sid = step.id
        if sid not in merged:
            continue
        sp = merged[sid]
        if fresh:  # after dice not sealed yet: checked once they are (no refusal may depend on them)
            unchecked.append(sid)
            out[sid] = SubmittedStep(choices=dict(sp.choices))
            continue
        try:
            res = run_step(rs, view, step, sp.choices, dice.for_step(sid, manual=sp.rolls), campaign=camp.id,
                           turn=t, start_seq=head)
        except RuleError as exc:
            raise RuleError(str(exc) if sid in str(exc) else f"[{sid}] {exc}") from None
        out[sid] = SubmittedStep(choices=dict(sp.choices), rolls={r.key: list(r.faces) for r in res.rolls})
        seen[sid] = [d for d in res.drafts if visible_to(d.visibility, v)]
        if res.rolls and not sp.rolls:
            fresh.append(sid)
        view = res.state
    missing = sorted(set(merged) - set(out))
    if missing:
        raise RuleError(f"cannot be checked: {', '.join(missing)} is not a step of {unit} {t} now; ask the GM")
    return SubmissionCheck(viewer=who, turn=t, expect_seq=head, steps=out, fresh=tuple(fresh), events=seen,
                           unchecked=tuple(unchecked), sealed=sealed_before)
