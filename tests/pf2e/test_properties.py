"""Random plans never crash the ruleset, and the §7.3 replay invariants hold after every step."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.state import KingdomState

from .helpers import Game

LEADERSHIP = [
    {"activity": "quell-unrest", "role": "ruler", "skill": "politics"},
    {"activity": "create-a-masterpiece", "role": "counselor"},
    {"activity": "repair-reputation", "role": "treasurer", "ruin": "crime"},
    {"activity": "craft-luxuries", "role": "general"},
    {"activity": "quell-unrest", "role": "general", "skill": "arts"},
]
REGION = [
    {"activity": "claim-hex", "skill": "wilderness",
     "hex": {"id": "R1", "terrain": "forest", "features": ["refuge"], "q": 1, "r": 0}},
    {"activity": "claim-hex", "skill": "wilderness",
     "hex": {"id": "R2", "terrain": "hills", "features": ["landmark"], "q": 0, "r": 1}},
    {"activity": "harvest-crops"},
    {"activity": "gather-livestock"},
    {"activity": "establish-farmland", "hex": "H0"},
    {"activity": "build-roads", "hex": "H0"},
    {"activity": "establish-work-site", "hex": "R1", "commodity": "lumber"},
]
CIVIC = [
    {"activity": "build-structure", "structure": "houses"},
    {"activity": "build-structure", "structure": "granary"},
    {"activity": "demolish", "block": 0, "lot": 0},
]


def invariants(s: KingdomState) -> None:
    """§7.3: size = claimed hexes; stock within caps; unrest, ruins >= 0 and ruins <= threshold; fame <= max."""
    assert s.size == sum(1 for h in s.hexes if h.claimed)
    for c in T.COMMODITIES:
        assert 0 <= s.commodities[c] <= s.storage[c]
    assert s.unrest >= 0 and s.rp >= 0
    for r in T.RUINS:
        assert 0 <= s.ruin[r].points <= s.ruin[r].threshold and s.ruin[r].penalty >= 0
    assert 0 <= s.fame <= s.fame_max


def _turn(draw: Any) -> dict[str, Any]:
    return {
        "upkeep.unrest": {"choices": {"ruin_split": draw(st.sampled_from(list(T.RUINS)))}},
        "commerce.taxes": {"choices": {"mode": draw(st.sampled_from(["collect-taxes", "flat-check", "none"]))}},
        "commerce.expenses": {"choices": {"activity": draw(st.sampled_from(
            ["none", "improve-lifestyle", "tap-treasury"]))}},
        "activity.leadership": {"choices": {"activities": draw(st.lists(st.sampled_from(LEADERSHIP), max_size=3))}},
        "activity.region": {"choices": {"activities": draw(st.lists(st.sampled_from(REGION), max_size=3))}},
        "activity.civic": {"choices": {"activities": draw(st.lists(st.sampled_from(CIVIC), max_size=1))}},
        "event.resolve": {"choices": {"gm_effects": [{"kind": "ruin", "target": "crime",
                                                        "amount": draw(st.integers(0, 25))}]}},
    }


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.integers(0, 10_000), st.integers(0, 25))
def test_random_turns_keep_the_invariants(data: Any, seed: int, unrest: int) -> None:
    g = Game().found(resume={"turn": 1, "unrest": unrest})
    for t in range(3):
        pv = g.play(_turn(data.draw), seed=f"p{seed}-{t}", check=False)
        for step in pv.steps:
            if step.state_after is not None:
                invariants(step.state_after)  # type: ignore[arg-type]
        if pv.ok:
            assert pv.state_after.fame == 0 and pv.state_after.rp == 0  # type: ignore[attr-defined]
