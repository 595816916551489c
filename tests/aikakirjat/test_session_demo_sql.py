"""The growth session planner (§4.0), choices() for the turn sheet, the demo campaign and the SQL view."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from aik_helpers import RS, Game

from kingdomlog.core.turn import Plan, preview_turn
from kingdomlog.rulesets.aikakirjat.samples import sample_founding
from kingdomlog.rulesets.aikakirjat.session import session_plans

DEMO = Path(__file__).resolve().parents[2] / "campaigns" / "aikakirjat-demo"


def founded() -> Game:
    g = Game()
    g.play({"steps": {"founding": {"choices": sample_founding()}}})
    return g


def test_session_plays_5d10_years_and_plans_replay_identically() -> None:
    """§4.0: typed 5d10 = 2+1+1+1+2 = 7 years; each explicit plan replays to the same state via preview_turn."""
    g = founded()
    years = session_plans(g.state, campaign="test", first_turn=1, seed="s",
                          overrides={1: {"start": {"rolls": {"years": [2, 1, 1, 1, 2]}}}})
    assert [y.turn for y in years] == list(range(1, 8))
    last = years[-1].state_after
    assert (last.session.session_no, last.session.years_total, last.session.years_played) == (1, 7, 7)
    s = g.state
    for y in years:
        assert y.plan.steps["start"].choices["new_session"] is (y.turn == 1)
        assert isinstance(y.plan.steps["actions"].choices["actions"], list)
        p = preview_turn(RS, s, Plan.parse(y.plan.model_dump()), campaign="test", turn=y.turn, start_seq=0)
        assert p.ok, p.error
        assert p.state_after == y.state_after
        s = p.state_after
    ended = [d.type for d in p.step_drafts]  # the plan's note (the reasons) is recorded after the steps
    assert ended[-1] == "aikakirjat.session_ended"


def test_session_refuses_an_illegal_override() -> None:
    """§2.9: an override with two actions at level 1 is refused while planning."""
    import pytest

    from kingdomlog.core.errors import RuleError

    g = founded()
    two = {"actions": {"choices": {"actions": [{"action": "tax_collection"}, {"action": "tax_collection"}]}}}
    with pytest.raises(RuleError, match=r"§2\.9"):
        session_plans(g.state, campaign="test", first_turn=1, seed="s", overrides={2: two})


def test_choices_describe_every_step_with_defaults() -> None:
    """The turn sheet seam: every step's typed choices describe as fields of the closed set of kinds, a select's
    default is one of its options (computed from the state), and the spelled-out defaults play."""
    from kingdomlog.rulesets.aikakirjat.decide import default_choices

    g = founded()
    kinds = {"select", "multiselect", "int", "float", "bool", "text", "rows", "group", "mapping", "json"}
    for phase in RS.phases_for(g.state, 1):
        for c in RS.choices(g.state, 1, phase.id):
            assert c.kind in kinds, (phase.id, c.name)
            if c.kind == "select" and c.options is not None and c.default is not None:
                assert c.default in [o.value for o in c.options], (phase.id, c.name)
    founding = {c.name: c for c in RS.choices(Game().state, 0, "founding")}
    assert {"government", "base_scores", "extra_proficiency", "territory", "neighbours"} <= set(founding)
    assert founding["territory"].kind == "rows" and founding["base_scores"].kind == "group"
    gov = founding["government"]
    assert gov.kind == "select" and gov.options is not None and len(gov.options) == 7
    skills = {c.name: c for c in RS.choices(Game().state, 0, "founding", {"government": "republic"})}
    assert "diplomacy" not in [o.value for o in skills["extra_proficiency"].options or ()]  # republic gives it
    actions = {c.name: c for c in RS.choices(g.state, 1, "actions")}["actions"]
    assert actions.kind == "rows" and {f.name for f in actions.fields} >= {"action", "performer", "pc_id", "skill"}
    pcs = {f.name: f for f in actions.fields}["pc_id"]
    assert [o.value for o in pcs.options or ()] == ["aino", "ilmari"] and pcs.options[0].detail == "level 5"
    defaults = {ph.id: {"choices": default_choices(g.state, ph.id)} for ph in RS.phases_for(g.state, 1)
                if ph.id == "start"}
    assert g.preview({"steps": defaults}).ok


def test_demo_log_verifies_and_matches_its_plans() -> None:
    """The committed demo: ≥ 15 session years, a war and a revolution roll; the log folds to the planned state."""
    from kingdomlog.app import Campaign

    camp = Campaign.open(DEMO)
    assert camp.verify().ok
    state = camp.state(use_cache=False)
    expected = json.loads((DEMO / "plans" / "expected-final-state.json").read_text())
    assert RS.summary(state) == expected
    types = [e.type for e in camp.events()]
    assert "aikakirjat.war_ended" in types and "aikakirjat.revolution_rolled" in types
    assert state.session.years_total >= 15 and state.session.years_played == state.session.years_total


def test_demo_plans_are_what_the_planner_builds() -> None:
    """The plan files are exactly session_plans' output for the demo's overrides (nothing hand-edited)."""
    spec = importlib.util.spec_from_file_location("aik_demo_build", DEMO / "build_plans.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    g = Game()
    g.play({"steps": {"founding": {"choices": sample_founding()}}})
    years = session_plans(g.state, campaign=mod.CAMPAIGN, first_turn=1, seed=mod.CAMPAIGN, overrides=mod.OVERRIDES,
                          policy=mod.POLICY)
    for y in years:
        on_disk = json.loads((DEMO / "plans" / f"turn-{y.turn:02d}.json").read_text())
        assert on_disk == json.loads(y.plan.to_json()), y.turn


def test_years_view_over_the_demo() -> None:
    """The aikakirjat_years view: one row per year with the random event, actions, wars and revolutions."""
    from kingdomlog.projections.sql import Catalog

    cat = Catalog(DEMO.parent, campaigns=[DEMO])
    rows = cat.con.execute("SELECT year, random_event, actions, revolutions, wars_ended, fame FROM aikakirjat_years "
                           "WHERE campaign = 'aikakirjat-demo' ORDER BY year").fetchall()
    assert [r[0] for r in rows] == list(range(0, 17))
    assert rows[4][4] == "war-4-tuonela:militia_zero:players"
    assert rows[14][3].startswith("unrest:") and rows[1][2].startswith("attract_population=")
    expected = json.loads((DEMO / "plans" / "expected-final-state.json").read_text())
    assert rows[16][5] == expected["fame"]
