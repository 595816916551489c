"""Player submissions, in one place: which steps a player may submit, checking, storing and merging them.

A player (or faction) submits its own steps of the next turn; the server rolls their
dice and seals the faces (``core.plan_submitted``, visible to that player and the GM).
The GM's preview takes each player's latest submission for the steps the GM's plan
leaves out (``with_submissions``): the one place submissions and plans meet.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from kingdomlog.core.core_events import PlanSubmitted, SubmittedStep
from kingdomlog.core.errors import InputError, RuleError
from kingdomlog.core.events import Draft, RecordedEvent
from kingdomlog.core.fold import next_turn
from kingdomlog.core.ruleset import State
from kingdomlog.core.turn import Plan, StepPlan, preview_turn
from kingdomlog.core.viewers import Viewer, visible_to
from kingdomlog.dice import roller

if TYPE_CHECKING:
    from kingdomlog.app.campaign import Campaign
    from kingdomlog.store.log import AppendResult


@dataclass(frozen=True)
class SubmissionCheck:
    """A player's submission as ``Campaign.submit`` would store it (nothing written).

    ``steps`` hold the choices and the faces rolled (or kept from an earlier submission);
    ``fresh`` names the steps whose dice this check rolled anew (a real submission rolls
    them again from its own seed); ``events`` are the drafts of each step the viewer may see.
    """

    viewer: str
    turn: int
    expect_seq: int
    steps: dict[str, SubmittedStep]
    fresh: tuple[str, ...]
    events: dict[str, list[Draft]]


def _player(camp: Campaign, viewer: str | Viewer) -> Viewer | None:
    v = viewer if isinstance(viewer, Viewer) else camp.viewer(viewer)
    return v if v.is_player else None

def player_steps(camp: Campaign, viewer: str | Viewer, *, state: State | None = None,
                 turn: int | None = None) -> list[str]:
    """The steps of ``turn`` (default: the next) that ``viewer`` may submit; [] for the GM and the public."""
    v = _player(camp, viewer)
    if v is None:
        return []
    st = camp.state() if state is None else state
    t = camp.next_turn() if turn is None else turn
    return [str(x) for x in camp.ruleset.player_steps(st, t, v)]

def submissions(camp: Campaign, turn: int | None = None) -> dict[str, RecordedEvent]:
    """The latest ``core.plan_submitted`` of each player for ``turn`` (default: the next), by player id.

    Each value is the recorded event (``payload`` is a ``PlanSubmitted``); a later
    submission replaces the player's earlier ones whole.
    """
    events = camp.events()
    t = next_turn(events) if turn is None else turn
    out: dict[str, RecordedEvent] = {}
    for ev in events:
        if isinstance(ev.payload, PlanSubmitted) and ev.payload.turn == t:
            out[ev.actor] = ev
    return out

def with_submissions(camp: Campaign, plan: Plan, *, state: State | None = None) -> Plan:
    """``plan`` with the players' latest submissions for the next turn filled into the steps it leaves out.

    A step the GM's plan names wins (the GM's ruling). Submitted dice become typed
    dice, so the resolution uses exactly the faces rolled at submission. Steps the
    submitter may no longer submit (e.g. a faction that left the game) are ignored.
    """
    turn = camp.next_turn()
    subs = camp.submissions(turn)
    if not subs:
        return plan
    st = camp.state() if state is None else state
    steps = dict(plan.steps)
    for who, ev in subs.items():
        assert isinstance(ev.payload, PlanSubmitted)
        try:
            allowed = set(camp.player_steps(who, state=st, turn=turn))
        except InputError:
            continue  # a submitter the campaign no longer declares
        for sid, sub in ev.payload.steps.items():
            if sid in allowed and sid not in steps:
                steps[sid] = StepPlan(choices=dict(sub.choices), rolls={k: list(v) for k, v in sub.rolls.items()})
    return plan.model_copy(update={"steps": steps})

def submit(camp: Campaign, viewer: str | Viewer, steps: Mapping[str, Any], *, note: str = "") -> AppendResult:
    """Append a player's submission for the next turn (``core.plan_submitted``, visible to it and the GM).

    Checked first by ``check_submission`` (its refusals are this method's); then one
    batch of one event is appended with ``expect_seq`` = the head the check read.
    """
    check = camp.check_submission(viewer, steps)
    try:
        payload = PlanSubmitted(turn=check.turn, steps=check.steps, note=note)
    except ValidationError as exc:
        raise InputError(f"submission: {exc.errors()[0]['msg']}") from None
    return camp._append([Draft(payload, actor=check.viewer, visibility=f"faction:{check.viewer}",
                               turn=check.turn)], expect_seq=check.expect_seq)

def check_submission(camp: Campaign, viewer: str | Viewer, steps: Mapping[str, Any]) -> SubmissionCheck:
    """Everything ``submit`` checks and rolls, without writing: the steps as they would be stored.

    ``steps`` is ``{step id: {"choices": {...}}}`` (a ``StepPlan`` or its JSON). Refused
    (``RuleError``, nothing appended) when a step is not the viewer's, when dice are
    given (the server rolls them), when a step whose dice were already rolled this turn
    is changed, or when previewing the next turn with this submission (every other step
    at its default) refuses one of the viewer's steps. The viewer's dice are rolled
    here with the keyed roller from a fresh seed, and their faces stored. Steps the
    viewer submitted earlier this turn and does not name again are carried over.
    """
    v = _player(camp, viewer)
    if v is None:
        raise InputError("a submission is made by a player or faction, not by the GM or the public;"
                         " the GM plays the turn with `kingdomlog turn`")
    who = v.id
    events = camp.events()
    head = events[-1].seq if events else 0
    turn = next_turn(events)
    state = camp.state()
    allowed = camp.player_steps(v, state=state, turn=turn)
    if not steps:
        raise InputError(f"nothing to submit: name one of your steps for turn {turn}"
                         f" ({', '.join(allowed) or 'none'})")
    given: dict[str, StepPlan] = {}
    for sid, raw in steps.items():
        if sid not in allowed:
            raise RuleError(f"this step is not {who}'s to submit; for turn {turn} {who} may submit "
                            f"{', '.join(allowed) or 'nothing'}", step=str(sid))
        try:
            sp = raw if isinstance(raw, StepPlan) else StepPlan.model_validate(raw)
            json.dumps(sp.choices, allow_nan=False)
        except (ValidationError, TypeError, ValueError) as exc:
            raise InputError(f"step {sid!r}: not a step's input ({{\"choices\": {{...}}}}): {exc}") from None
        if sp.rolls or sp.rerolls:
            raise RuleError("a submission's dice are rolled by the server; leave out"
                            " \"rolls\" and \"rerolls\"", step=str(sid))
        given[sid] = sp
    previous = camp.submissions(turn).get(who)
    before: dict[str, SubmittedStep] = {}
    if previous is not None and isinstance(previous.payload, PlanSubmitted):
        before = {k: s for k, s in previous.payload.steps.items() if k in allowed}
    merged: dict[str, StepPlan] = {
        sid: StepPlan(choices=dict(st.choices), rolls={k: list(f) for k, f in st.rolls.items()})
        for sid, st in before.items()
    }
    for sid, sp in given.items():
        old = before.get(sid)
        if old is not None and old.rolls:
            if old.choices != sp.choices:
                raise RuleError("its dice were rolled when you submitted it earlier this turn,"
                                " so its choices are sealed; ask the GM to change them", step=sid)
            continue  # the same choices again: keep the faces already rolled
        merged[sid] = StepPlan(choices=dict(sp.choices))
    plan = Plan(turn=turn, seed=roller.new_seed(), steps=merged)
    tp = preview_turn(camp.ruleset, state, plan, campaign=camp.id, turn=turn, start_seq=head)
    by_id = {sp.phase.id: sp for sp in tp.steps}
    out: dict[str, SubmittedStep] = {}
    seen: dict[str, list[Draft]] = {}
    fresh: list[str] = []
    for sid in merged:
        result = by_id.get(sid)
        if result is None:
            raise RuleError(f"cannot be checked yet: an earlier step of turn {turn} does not"
                            " resolve; ask the GM", step=sid)
        if result.error:
            raise RuleError(result.error if sid in result.error else f"[{sid}] {result.error}")
        out[sid] = SubmittedStep(choices=dict(merged[sid].choices),
                                 rolls={r.key: list(r.faces) for r in result.rolls})
        seen[sid] = [d for d in result.drafts if visible_to(d.visibility, v)]
        if result.rolls and not merged[sid].rolls:
            fresh.append(sid)
    return SubmissionCheck(viewer=who, turn=turn, expect_seq=head, steps=out, fresh=tuple(fresh),
                           events=seen)

