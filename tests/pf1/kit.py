"""Test kit for the pf1 tests: build a kingdom by folding events, run one step."""

from __future__ import annotations

from typing import Any

from kingdomlog.dice.roller import KeyedRoller
from kingdomlog.rulesets.pf1 import RULESET
from kingdomlog.rulesets.pf1 import events as ev
from kingdomlog.rulesets.pf1.decide import Acc
from kingdomlog.rulesets.pf1.play import fold_payloads

LEADERS = [
    ev.LeaderAssigned(role="RULER", name="R", ability="CHA", modifier=3, attributes=("STABILITY",)),
    ev.LeaderAssigned(role="TREASURER", name="T", ability="INT", modifier=2),
]


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
    """Run one step's decide+evolve (the other steps left out of the plan run with defaults)."""
    dice = KeyedRoller("t", campaign="test", turn=state.turn).for_step(step_id, manual=rolls or {})
    drafts = RULESET.decide(state, step_id, choices or {}, dice)
    acc = Acc(state, step_id, dice)
    for d in drafts:
        acc.add(d.payload)
    return acc.state, [d.payload for d in drafts]


def month(state: Any, turn: int) -> Any:
    """``state`` moved to the start of ``turn`` (as ``pf1.turn_started`` would, without expiring anything)."""
    from kingdomlog.rulesets.pf1.state import Counters

    return state.model_copy(update={"turn": turn, "phase": "GM", "counters": Counters()})
