"""Test kit for the pf1 tests: build a kingdom by folding events, run one step, play plans headless.

Everything folds through core (``core.fold.fold``, ``core.turn.preview_turn``, ``core.ruleset.run_step``);
there is no pf1 fold of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kingdomlog.core.errors import RuleError
from kingdomlog.core.events import Draft, RecordedEvent, provisional
from kingdomlog.core.fold import fold
from kingdomlog.core.ruleset import CampaignContext, run_step, validate_options
from kingdomlog.core.turn import Plan, TurnPreview, preview_turn
from kingdomlog.dice.roller import KeyedRoller
from kingdomlog.rulesets.pf1 import RULESET
from kingdomlog.rulesets.pf1 import events as ev
from kingdomlog.rulesets.pf1.state import Counters, Pf1State

LEADERS = [
    ev.LeaderAssigned(role="RULER", name="R", ability="CHA", modifier=3, attributes=("STABILITY",)),
    ev.LeaderAssigned(role="TREASURER", name="T", ability="INT", modifier=2),
]


def context(campaign: str = "test", options: Mapping[str, Any] | None = None,
            data: Mapping[str, Any] | None = None) -> CampaignContext:
    return CampaignContext(campaign=campaign, options=validate_options(RULESET.options, dict(options or {})),
                           data=dict(data or {}))


def play(plans: Iterable[Mapping[str, Any]], *, campaign: str = "test", options: Mapping[str, Any] | None = None,
         data: Mapping[str, Any] | None = None, state: Pf1State | None = None,
         events: list[RecordedEvent] | None = None) -> tuple[Pf1State, list[RecordedEvent], list[TurnPreview]]:
    """Play ``plans`` in order from ``state`` (default: a new campaign); a refused step raises ``RuleError``."""
    st = state if state is not None else RULESET.initial_state(context(campaign, options, data))
    evs = list(events or [])
    previews = []
    for raw in plans:
        plan = Plan.parse(dict(raw))
        turn = plan.turn if plan.turn is not None else (st.turn + 1 if st.founded else 0)
        pv = preview_turn(RULESET, st, plan, campaign=campaign, turn=turn, start_seq=len(evs), seed=f"seed-{turn}")
        if not pv.ok:
            raise RuleError(pv.error or "refused")
        for d in pv.drafts:
            evs.append(provisional(campaign, len(evs) + 1, d, turn=turn))
        previews.append(pv)
        assert isinstance(pv.state_after, Pf1State)
        st = pv.state_after
    return st, evs, previews


def fold_payloads(payloads: Iterable[Any], *, campaign: str = "test", options: Mapping[str, Any] | None = None,
                  data: Mapping[str, Any] | None = None, turn: int = 0) -> Pf1State:
    """Fold event payloads straight into a state (``turn`` follows ``pf1.turn_started``), through core's fold."""
    events = []
    for i, p in enumerate(payloads, 1):
        if isinstance(p, ev.TurnStarted):
            turn = p.turn
        events.append(provisional(campaign, i, Draft(p, turn=turn)))
    return fold(RULESET, RULESET.initial_state(context(campaign, options, data)), events)


def kingdom(n: int, *, options: dict[str, Any] | None = None, extra: Any = (), leaders: bool = True,
            terrain: str = "GRASSLAND", unrest: int = 0, treasury: int | None = None, alignment: str = "N",
            data: dict[str, Any] | None = None) -> Any:
    """A kingdom of ``n`` claimed hexes H0..H{n-1} in a row (axial q = i), founded at turn 0, now turn 1."""
    ps: list[Any] = [ev.KingdomFounded(name="K", alignment=alignment, starting_treasury_bp=50)]
    for i in range(n + 2):
        ps += [ev.HexMapped(hex=f"H{i}", q=i, r=0, terrain=terrain), ev.HexExplored(hex=f"H{i}"),
               ev.HexCleared(hex=f"H{i}")]
    ps.append(ev.TurnStarted(turn=1))
    ps += [ev.HexClaimed(hex=f"H{i}", cost_bp=0) for i in range(n)]
    if leaders:
        ps += LEADERS
    if unrest:
        ps.append(ev.GmAdjustment(field="unrest", delta=unrest))
    if treasury is not None:
        ps.append(ev.GmAdjustment(field="treasury", delta=treasury - 50))
    ps += list(extra)
    return fold_payloads(ps, options=options, data=data)


def step(state: Any, step_id: str, choices: dict[str, Any] | None = None, rolls: dict[str, list[int]] | None = None,
         turn: int | None = None) -> Any:
    """Run one step on ``state`` through core's ``run_step`` (its choices validated); the state after and payloads.

    The step belongs to the state's month (the next month for ``gm``, which starts it); its keyed dice
    are those of the state's month.
    """
    dice = KeyedRoller("t", campaign="test", turn=state.turn).for_step(step_id, manual=rolls or {})
    if turn is None:
        turn = state.turn + 1 if step_id == "gm" else state.turn
    spec = next(s for s in RULESET.all_steps if s.id == step_id)
    res = run_step(RULESET, state, spec, choices or {}, dice, campaign=state.campaign, turn=turn)
    return res.state, [d.payload for d in res.drafts]


def month(state: Any, turn: int) -> Any:
    """``state`` moved to the start of ``turn`` (as ``pf1.turn_started`` would, without expiring anything)."""
    return state.model_copy(update={"turn": turn, "phase": "GM", "counters": Counters()})
