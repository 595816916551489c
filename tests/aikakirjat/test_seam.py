"""The ruleset seam for aikakirjat: typed plans (JSON Schema, refused typos and ids), recorded facts and audits,
v1 logs, the checks and breakdowns a step reports."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from aik_helpers import RS, Game, quiet_year

from kingdomlog.app import Campaign
from kingdomlog.app.audit import audit
from kingdomlog.core.errors import CorruptLogError
from kingdomlog.core.events import Draft, EventModel, provisional, register_event
from kingdomlog.core.fold import default_context, fold
from kingdomlog.core.turn import Plan, plan_schema, preview_turn
from kingdomlog.rulesets.aikakirjat import rules as R
from kingdomlog.rulesets.aikakirjat.events import GrowthRolled, Recorded
from kingdomlog.rulesets.aikakirjat.samples import sample_founding

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "campaigns" / "aikakirjat-demo"
V1 = Path(__file__).resolve().parent / "fixtures" / "demo-v1"


def founded() -> Game:
    g = Game()
    g.play({"steps": {"founding": {"choices": sample_founding()}}})
    return g


# --- typed plans ------------------------------------------------------------------------------------------------


def test_every_demo_and_sample_plan_validates_against_the_plan_schema() -> None:
    schema = plan_schema(RS)
    jsonschema.Draft202012Validator.check_schema(schema)
    plans = sorted((DEMO / "plans").glob("turn-*.json"))
    assert len(plans) == 17
    for path in plans:
        jsonschema.validate(json.loads(path.read_text()), schema)
    for raw in RS.sample_plans():
        jsonschema.validate(raw, schema)
    steps = schema["properties"]["steps"]["properties"]
    assert set(steps) == {"founding", "start", "events", "growth", "actions", "war", "end"}
    action = schema["$defs"]["ActionChoice"]["properties"]
    assert action["pc_id"]["x-kingdomlog-source"] == "pcs" and action["action"]["x-kingdomlog-source"] == "actions"
    gm = schema["$defs"]["StartChoices"]["properties"]["gm_events"]["items"]
    assert gm["discriminator"]["propertyName"] == "event" and len(gm["oneOf"]) == 10  # incl. kingdom_contacted


def test_a_schema_invalid_plan_is_refused_by_the_schema() -> None:
    bad = {"turn": 1, "steps": {"actions": {"choices": {"actions": [{"action": "tax_collection", "naval": -1}]}}}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, plan_schema(RS))


@pytest.mark.parametrize(("step", "choices", "key"), [
    ("start", {"new_sesion": True}, "new_sesion"),
    ("actions", {"actions": [{"action": "tax_collection", "performr": "pc"}]}, "performr"),
    ("war", {"orders": {"1": [{"army_id": "p1", "knd": "hold"}]}}, "knd"),
    ("end", {"benefits": [{"level": 2, "benefit": "feat", "fet": "census"}]}, "fet"),
])
def test_a_typo_in_a_choice_key_is_refused_naming_the_step_and_the_key(step: str, choices: dict[str, Any],
                                                                         key: str) -> None:
    g = founded()
    p = g.preview({"steps": {step: {"choices": choices}}})
    assert not p.ok and p.refused_step == step
    assert f"step {step!r}" in (p.error or "") and repr(key) in (p.error or ""), p.error


@pytest.mark.parametrize(("step", "choices", "where", "value"), [
    ("actions", {"actions": [{"action": "embassy", "performer": "pc", "pc_id": "vaino", "neighbour_id": "kalevala"}]},
     "actions[0].pc_id", "vaino"),
    ("actions", {"actions": [{"action": "embassy", "neighbour_id": "pohjanmaa"}]}, "actions[0].neighbour_id",
     "pohjanmaa"),
    ("actions", {"actions": [{"action": "research", "institution_id": "academy-x"}]}, "actions[0].institution_id",
     "academy-x"),
    ("actions", {"actions": [{"action": "reduce_unrest", "performer": "pc", "pc_id": "aino", "skill": "charm"}]},
     "actions[0].skill", "charm"),
    ("events", {"neighbour_id": "pohjanmaa"}, "neighbour_id", "pohjanmaa"),
    ("end", {"law_and_order": "gluttony"}, "law_and_order", "gluttony"),
    ("end", {"benefits": [{"level": 2, "benefit": "feat", "feat": "dragons"}]}, "benefits[0].feat", "dragons"),
    ("war", {"orders": {"1": [{"army_id": "p1", "kind": "move", "path": ["atlantis"]}]}}, "orders.1[0].path[0]",
     "atlantis"),
])
def test_an_id_not_in_the_state_is_refused_naming_the_step_and_the_key(step: str, choices: dict[str, Any],
                                                                         where: str, value: str) -> None:
    g = founded()
    p = g.preview({"steps": {step: {"choices": choices}}})
    assert not p.ok and p.refused_step == step
    err = p.error or ""
    assert f"step {step!r}: choice {where}: {value!r}" in err, err
    assert "allowed:" in err or "there is none now" in err, err


def test_the_founding_skill_depends_on_the_government() -> None:
    """§2.5: a Republic already gives Diplomacy, so it cannot be the founding's extra skill."""
    f = {**sample_founding(), "government": "republic", "extra_proficiency": "diplomacy"}
    p = Game().preview({"steps": {"founding": {"choices": f}}})
    assert not p.ok and "choice extra_proficiency: 'diplomacy'" in (p.error or "")


def test_a_step_reports_its_checks_and_breakdowns() -> None:
    """The growth check: 5e, modifier = Stability 1 + Agriculture 2, DC 5 (population 3 on 3 hexes); Tax
    Collection reads its §3.10.5 band table. Each step explains the totals and DCs it used."""
    g = founded()
    p = g.preview(quiet_year())
    steps = {s.phase.id: s for s in p.steps}
    growth = steps["growth"].checks["growth"]
    assert (growth.kind, growth.modifier, growth.dc, growth.mode) == ("5e", 3, 5, "normal")
    names = [b.name for b in steps["growth"].breakdown]
    assert names == ["growth DC", "agriculture"]
    assert steps["growth"].breakdown[1].total == 1 + 3
    tax = steps["actions"].checks["a1.check"]
    assert tax.modifier == 1 and tax.bands and tax.bands[0][2] == "tyranny"
    assert [b.name for b in steps["actions"].breakdown] == ["bureaucracy"]


# --- recorded facts ---------------------------------------------------------------------------------------------


def test_every_event_that_the_rules_compute_records_its_outcome() -> None:
    g = founded()
    g.play(quiet_year())
    recorded = [e for e in g.events if isinstance(e.payload, Recorded)]
    assert recorded and all(e.payload.outcome is not None and e.version == 2 for e in recorded)  # type: ignore[attr-defined]
    growth = next(e.payload for e in recorded if e.type == "aikakirjat.growth_rolled")
    assert {op.path for op in growth.outcome.ops} == {("phase",)}  # type: ignore[union-attr]  # d20 1: no growth


def _old_rules_campaign(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Campaign:
    """A campaign whose year 1 was written by rules with a growth DC of 20 (today's living space gives 5)."""
    camp = Campaign.create(folder, "aikakirjat")
    camp.play(Plan.parse({"seed": "s0", "steps": {"founding": {"choices": sample_founding()}}}))
    with monkeypatch.context() as m:
        m.setattr(R, "growth_dc", lambda s: 20)
        camp.play(Plan.parse({"seed": "s1", **quiet_year(growth={"rolls": {"growth": [9]}})}))
    return camp


def test_a_log_written_by_other_rules_replays_as_recorded_and_the_audit_lists_the_differences(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The growth roll 9 + 3 = 12 failed against the old DC 20: the log replays to population 3 as recorded
    (today's DC 5 would have grown it); ``audit`` and ``kingdomlog audit`` name the numbers that differ."""
    from kingdomlog.cli import main

    camp = _old_rules_campaign(tmp_path / "old-rules", monkeypatch)
    assert camp.verify().ok
    state = camp.state(use_cache=False)
    assert state.population == 3 and state.year == 1
    rep = audit(camp)
    assert {f.type for f in rep.findings} == {"aikakirjat.growth_rolled"}
    text = " | ".join(f.message for f in rep.findings)
    assert "population: recorded 3, today 4" in text and "dc: recorded 20, today 5" in text
    assert "success: recorded false, today true" in text
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["audit", str(camp.folder)]) == 0
    out = buf.getvalue()
    assert "differences between the log and today's rules" in out and "year 1:" in out
    assert "aikakirjat.growth_rolled" in out and "population: recorded 3, today 4" in out


def test_the_committed_demo_records_facts_and_agrees_with_todays_rules() -> None:
    camp = Campaign.open(DEMO)
    assert all(e.version == 2 for e in camp.events() if isinstance(e.payload, Recorded))
    rep = audit(camp)
    assert rep.clean, rep.findings[:3]


def test_a_v1_log_still_replays_to_the_same_state_at_every_turn(tmp_path: Path) -> None:
    """The demo's log as written before outcomes were recorded (v1 events) folds by today's rules (legacy path) to
    the same state, turn by turn, as the rebuilt log of v2 events; the audit says which events took that path."""
    folder = tmp_path / "demo-v1"
    shutil.copytree(V1, folder)
    old, new = Campaign.open(folder), Campaign.open(DEMO)
    old_events, new_events = old.events(), new.events()
    assert len(old_events) == len(new_events) == 122
    assert {e.version for e in old_events if isinstance(e.payload, Recorded)} == {1}
    for turn in range(17):
        a = old.state(turn, use_cache=False).model_dump(mode="json")
        b = new.state(turn, use_cache=False).model_dump(mode="json")
        assert a == b, turn
    rep = audit(old)
    legacy = [f for f in rep.findings if "legacy path" in f.message]
    assert len(legacy) == sum(1 for e in old_events if isinstance(e.payload, Recorded))
    assert all("v1 event with no recorded outcome" in f.message for f in rep.findings)


def test_a_v2_event_without_outcome_that_the_rules_cannot_apply_is_a_fault() -> None:
    """The legacy path needs the rules' dice: a growth roll with no outcome and no dice cannot be folded."""
    g = founded()
    g.play(quiet_year())
    state = g.state.model_copy(update={"phase": "random_events", "year": 2})
    ev = provisional("test", 99, Draft(GrowthRolled(), turn=2))
    with pytest.raises(CorruptLogError, match=r"seq 99: .*records no outcome.*die 'growth'"):
        RS.apply(state, ev)


def test_an_event_out_of_step_order_is_folded_and_the_audit_reports_it() -> None:
    """§8.1.5: a recorded growth roll straight after the year started (no random event) folds as recorded; the
    audit names the step order it breaks."""
    g = founded()
    p = g.play(quiet_year())
    ev = next(e for e in g.events if e.type == "aikakirjat.growth_rolled")
    i = g.events.index(ev)
    before = fold(RS, RS.initial_state(default_context(RS, "test")), g.events[:i])
    odd = before.model_copy(update={"phase": "start"})
    assert RS.apply(odd, ev).population == p.state_after.population  # type: ignore[union-attr]
    warnings = RS.audit(odd, ev)
    assert any("step order" in w for w in warnings), warnings


@register_event
class _Stray(EventModel):
    type = "aikakirjat.stray_thing"


def test_an_unknown_event_of_the_namespace_is_a_corrupt_log_error_naming_the_seq() -> None:
    state = RS.initial_state(default_context(RS, "test"))
    with pytest.raises(CorruptLogError, match=r"seq 7: aikakirjat cannot apply event type 'aikakirjat\.stray_thing'"):
        RS.apply(state, provisional("test", 7, Draft(_Stray(), turn=0)))


def test_preview_plays_each_step_from_the_state_of_the_last() -> None:
    """A plan of all defaults, and the same plan through core's preview, give the same state (one fold)."""
    g = founded()
    p = preview_turn(RS, g.state, Plan.parse({"seed": "x", "steps": {}}), campaign="test", turn=1, start_seq=2)
    assert p.ok, p.error
    events = [provisional("test", 3 + k, d, turn=1) for k, d in enumerate(p.drafts)]
    assert fold(RS, g.state, events) == p.state_after
