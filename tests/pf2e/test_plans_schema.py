"""Every demo plan and sample plan fits the plan JSON Schema; typos and ids not in the state are refused.

The schema is ``kingdomlog.core.turn.plan_schema`` of the ruleset (what ``kingdomlog plan-schema pf2e``
prints); the refusals come from the typed choices of each step, checked against the state before it.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from kingdomlog.app import Campaign
from kingdomlog.core.fold import default_context, fold
from kingdomlog.core.turn import Plan, TurnPreview, plan_schema, preview_turn

from .helpers import RS, Game
from .make_demo import DEMO, plan_files

DEMO_PLANS = plan_files()


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    s = plan_schema(RS)
    jsonschema.Draft202012Validator.check_schema(s)
    return s


def test_there_are_demo_plans() -> None:
    assert len(DEMO_PLANS) >= 14


@pytest.mark.parametrize("path", DEMO_PLANS, ids=[p.stem for p in DEMO_PLANS])
def test_every_demo_plan_validates_against_the_plan_schema(schema: dict[str, Any], path: Any) -> None:
    jsonschema.validate(json.loads(path.read_text(encoding="utf-8")), schema)


def test_every_sample_plan_validates_against_the_plan_schema(schema: dict[str, Any]) -> None:
    for raw in RS.sample_plans():
        jsonschema.validate(raw, schema)


def test_the_schema_marks_ids_that_come_from_the_state(schema: dict[str, Any]) -> None:
    """Picks carry x-kingdomlog-source: the form (and a reader of the schema) knows where the values come from."""
    text = json.dumps(schema)
    for source in ("roles", "settlements", "structures", "leadership_activities", "region_activities",
                   "civic_activities", "claimed_hexes", "ongoing_events", "feats", "skills", "charters"):
        assert f'"x-kingdomlog-source": "{source}"' in text, source


def test_the_schema_refuses_a_typo_in_a_choice_key(schema: dict[str, Any]) -> None:
    bad = {"steps": {"commerce.trade": {"choices": {"comodity": "lumber"}}}}
    with pytest.raises(jsonschema.ValidationError, match="comodity"):
        jsonschema.validate(bad, schema)


def _demo_state(turns: int) -> tuple[Any, int]:
    """The demo kingdom after its first ``turns`` turns as committed, and the seq reached."""
    events = [e for e in Campaign.open(DEMO).events() if e.turn < turns]
    state = fold(RS, RS.initial_state(default_context(RS, "stolen-lands")), events)
    return state, events[-1].seq


def _refused(steps: dict[str, Any], turns: int = 3) -> TurnPreview:
    state, seq = _demo_state(turns)
    pv = preview_turn(RS, state, Plan.parse({"turn": turns, "seed": "x", "steps": steps}), campaign="stolen-lands",
                      turn=turns, start_seq=seq)
    assert not pv.ok
    return pv


def test_a_typo_in_a_choice_key_is_refused_naming_the_step_and_the_key() -> None:
    pv = _refused({"commerce.trade": {"choices": {"comodity": "lumber", "quantity": 2}}})
    assert pv.refused_step == "commerce.trade"
    assert "step 'commerce.trade'" in (pv.error or "") and "'comodity'" in (pv.error or "")
    assert "commodity" in (pv.error or "")  # the keys the step takes are listed


def test_a_typo_inside_an_activity_row_is_refused_naming_the_row() -> None:
    pv = _refused({"activity.civic": {"choices": {"activities": [
        {"activity": "build-structure", "structure": "granary", "setlement": "brightwater"}]}}})
    assert "step 'activity.civic'" in (pv.error or "") and "'setlement' in activities[0]" in (pv.error or "")


def test_an_id_not_in_the_state_is_refused_naming_the_step_and_the_key() -> None:
    pv = _refused({"activity.civic": {"choices": {"activities": [
        {"activity": "build-structure", "structure": "granary", "settlement": "restov"}]}}})
    err = pv.error or ""
    assert pv.refused_step == "activity.civic"
    assert "step 'activity.civic'" in err and "activities[0].settlement" in err and "'restov'" in err
    assert "allowed: brightwater" in err


@pytest.mark.parametrize(("steps", "key", "value"), [
    ({"activity.leadership": {"choices": {"activities": [{"activity": "quell-unrest", "role": "jester"}]}}},
     "activities[0].role", "'jester'"),
    ({"activity.leadership": {"choices": {"activities": [{"activity": "claim-hex", "role": "warden"}]}}},
     "activities[0].activity", "'claim-hex'"),
    ({"activity.civic": {"choices": {"activities": [{"activity": "build-structure", "structure": "moat"}]}}},
     "activities[0].structure", "'moat'"),
    ({"upkeep.unrest": {"choices": {"lost_hex": "Z9"}}}, "lost_hex", "'Z9'"),
    ({"event.resolve": {"choices": {"event": "dragon-attack"}}}, "event", "'dragon-attack'"),
    ({"event.resolve": {"choices": {"end_events": ["bandit-activity"]}}}, "end_events[0]", "'bandit-activity'"),
    ({"event.level": {"choices": {"feat": "dragon-diplomacy"}}}, "feat", "'dragon-diplomacy'"),
    ({"commerce.taxes": {"choices": {"skill": "juggling"}}}, "skill", "'juggling'"),
])
def test_ids_of_every_kind_are_checked_against_the_state(steps: dict[str, Any], key: str, value: str) -> None:
    pv = _refused(steps)
    step = next(iter(steps))
    assert pv.refused_step == step
    assert f"step '{step}'" in (pv.error or "") and key in (pv.error or "") and value in (pv.error or "")


def test_bounds_and_fixed_sets_are_part_of_the_choices() -> None:
    g = Game().found()
    pv = g.play({"upkeep.leadership": {"choices": {"party_level": 21}}}, check=False)
    assert not pv.ok and "party_level" in (pv.error or "") and "20" in (pv.error or "")
    g = Game().found()
    pv = g.play({"upkeep.consumption": {"choices": {"remainder": "gold"}}}, check=False)
    assert not pv.ok and "remainder" in (pv.error or "")


def test_a_region_row_may_name_a_hex_an_earlier_row_claims() -> None:
    """Choices are checked against the state before the step, so a Region row's hex stays open: the §6 turn
    claims H1 and puts a lumber camp on it in the same step."""
    g = Game().found()
    pv = g.play({"upkeep.resources": {"rolls": {"resource": [4, 4, 4, 4, 4]}},
                 "activity.region": {"choices": {"activities": [
                     {"activity": "claim-hex", "skill": "wilderness",
                      "hex": {"id": "H1", "terrain": "forest", "features": ["resource"], "resource": "lumber",
                              "q": 1, "r": 0}},
                     {"activity": "establish-work-site", "hex": "H1", "commodity": "lumber"}]},
                     "rolls": {"a1": [15], "a2": [15]}}})
    assert pv.state_after.hexes[-1].work_site is not None
