"""The shared conformance checks (design §4) for each optional module switched on alone and all together,
through the store; illegal plans are refused with the rule named and nothing is appended."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pf1.kit import context, play

from kingdomlog.app import Campaign
from kingdomlog.core.errors import RuleError
from kingdomlog.core.fold import fold
from kingdomlog.core.turn import Plan
from kingdomlog.rulesets.pf1 import RULESET
from kingdomlog.rulesets.pf1.state import MODULES, Pf1State

CONFIGS = [[m] for m in MODULES] + [list(MODULES)]


@pytest.mark.parametrize("modules", CONFIGS, ids=[*MODULES, "all"])
def test_conformance_with_modules(modules: list[str]) -> None:
    """Deterministic replay, evolve never mutates, prefix (through JSON) + rest equals the full fold."""
    cold, events, _ = play(RULESET.sample_plans(), campaign="conf", options={"modules": modules})
    again, events2, _ = play(RULESET.sample_plans(), campaign="conf", options={"modules": modules})
    assert [e.payload_text for e in events] == [e.payload_text for e in events2] and again == cold
    ctx = context("conf", {"modules": modules})
    assert cold.modules == tuple(m for m in MODULES if m in modules)
    state = RULESET.initial_state(ctx)
    checkpoints = {0, len(events) // 3, 2 * len(events) // 3, len(events) - 1}
    for k, e in enumerate(events):
        before = json.dumps(state.model_dump(mode="json"), sort_keys=True)
        nxt = RULESET.evolve(state, e)
        assert json.dumps(state.model_dump(mode="json"), sort_keys=True) == before, e.type
        if k in checkpoints:
            restored = Pf1State.model_validate(state.model_dump(mode="json"))
            assert fold(RULESET, restored, events[k:]) == cold
        state = nxt
    assert state == cold
    summary = RULESET.summary(cold)
    assert (summary["treasury_bp"], summary["unrest"], summary["economy"]) == (38, 3, 4)


def test_all_modules_through_the_store(tmp_path: Path) -> None:
    """Every module on: the sample campaign is stored, verifies, and cached state equals cold replay."""
    camp = Campaign.create(tmp_path / "kingdom", "pf1-kingmaker", options={"modules": list(MODULES)})
    for raw in RULESET.sample_plans():
        camp.play(Plan.parse(raw))
    assert camp.verify().ok
    cold = camp.state(use_cache=False)
    assert camp.state().model_dump(mode="json") == cold.model_dump(mode="json")
    assert cold.modules == MODULES


@pytest.mark.parametrize(("change", "rule"), [
    ({"claim": ["H9"]}, "base §4.3 I2"),                                   # not adjacent
    ({"buildings": [{"type": "Park", "lots": [0]}]}, "base §2.8"),         # lot already built on
    ({"special_edict": {"kind": "trade", "path": [{"road": True}]}}, "opt §1.1"),  # module off
])
def test_illegal_plans_append_nothing(change: dict, rule: str, tmp_path: Path) -> None:
    camp = Campaign.create(tmp_path / "kingdom", "pf1")
    plans = RULESET.sample_plans()
    plans[0]["steps"]["founding"]["choices"]["hexes"].append({"id": "H9", "q": 5, "r": 5, "terrain": "HILLS"})
    for raw in plans[:2]:
        camp.play(Plan.parse(raw))
    head = camp.head_seq
    bad = plans[2]
    bad["steps"]["improvement"]["choices"] = change
    with pytest.raises(RuleError) as info:
        camp.play(Plan.parse(bad))
    assert f"(rule: {rule}" in str(info.value)
    assert camp.head_seq == head and Campaign.open(tmp_path / "kingdom").head_seq == head
