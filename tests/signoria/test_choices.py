"""Typed choices (issue 11): every demo plan fits the plan JSON Schema; a typo'd key or an id the state does
not know is refused naming the step and the key; a faction's own steps list only what that faction may see;
the fold refuses what is a fault of the log (an unknown signoria event, a face that is no d6)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kingdomlog.app import Campaign
from kingdomlog.core.errors import CorruptLogError
from kingdomlog.core.events import Draft, EventModel, provisional
from kingdomlog.core.turn import plan_schema
from kingdomlog.rulesets.signoria import RULESET
from kingdomlog.rulesets.signoria import events as ev
from kingdomlog.rulesets.signoria.decide import setting_players
from kingdomlog.rulesets.signoria.rules import ACTIONS

from .make_demo import DEMO, plan_files
from .play import Game, setup_plan, turn_plan, viewer


def test_every_demo_plan_validates_against_the_plan_schema() -> None:
    import jsonschema

    schema = plan_schema(RULESET)
    jsonschema.Draft202012Validator.check_schema(schema)
    files = plan_files()
    assert len(files) == 8
    for p in files:
        jsonschema.validate(json.loads(p.read_text(encoding="utf-8")), schema)
    for raw in RULESET.sample_plans():
        jsonschema.validate(raw, schema)


def test_the_plan_schema_marks_ids_from_the_state() -> None:
    text = json.dumps(plan_schema(RULESET))
    for source in ("characters:fabian", "slots:marburg", "targets:fabian", "dilemmas:marburg", "player_factions",
                   "p3_campaigns", "turn_orders", "leader_traits"):
        assert f'"x-kingdomlog-source": "{source}"' in text, source


@pytest.fixture
def game() -> Game:
    g = Game()
    g.play(setup_plan())
    return g


def refusal(g: Game, plan: dict[str, Any]) -> str:
    before = len(g.events)
    err = g.try_play(plan)
    assert err is not None and len(g.events) == before
    return err


def test_a_typo_in_a_choice_key_is_refused_naming_the_step_and_the_key(game: Game) -> None:
    err = refusal(game, turn_plan(1, orders={"fabian": {"orderz": []}}))
    assert "step 'orders_fabian'" in err and "'orderz'" in err and "this step takes: actor, orders" in err
    err = refusal(game, turn_plan(1, orders={"fabian": [{"id": "O1", "acton": "liberties"}]}))
    assert "step 'orders_fabian'" in err and "'acton'" in err and "orders[0]" in err
    err = refusal(game, turn_plan(1, steps={"p3_war": {"choices": {"responce": {}}}}))
    assert "step 'p3_war'" in err and "'responce'" in err
    err = refusal(game, turn_plan(1, command={"fabian": ("mid", [3, 3])}))
    assert "step 'command_fabian'" in err and "stake" in err


def test_an_id_not_in_the_state_is_refused_naming_the_step_and_the_key(game: Game) -> None:
    err = refusal(game, turn_plan(1, orders={"fabian": [
        {"id": "O1", "action": "intrigue_self", "slots": ["ordinary"], "leader": "nobody"}]}))
    assert "step 'orders_fabian'" in err and "choice orders[0].leader: 'nobody'" in err
    err = refusal(game, turn_plan(1, orders={"fabian": [
        {"id": "O1", "action": "war", "slots": ["ordinary"], "target": "atlantis", "params": {"units": 1}}]}))
    assert "choice orders[0].target: 'atlantis'" in err and "allowed: fabia, marburg, felmonte, gusso" in err
    err = refusal(game, turn_plan(1, orders={"fabian": [
        {"id": "O1", "action": "intrigue_foreign", "slots": ["spy:lorenzo"], "target": "marburg"}]}))
    assert "choice orders[0].slots[0]: 'spy:lorenzo'" in err and "allowed: special, ordinary" in err
    err = refusal(game, turn_plan(1, opening={"dilemmas": [{"faction": "venezia", "id": "d", "options": []}]}))
    assert "step 'turn_open'" in err and "choice dilemmas[0].faction: 'venezia'" in err
    # ids used as map keys, and ids inside maps
    err = refusal(game, turn_plan(1, orders={"fabian": {"orders": [], "dilemmas": {"festival": "abstain"}}}))
    assert "step 'orders_fabian'" in err and "choice dilemmas.festival: 'festival'" in err
    err = refusal(game, turn_plan(1, steps={"p3_war": {"choices": {"responses": {"1.fabian.S9": {
        "response": "defence"}}}}}))
    assert "step 'p3_war'" in err and "choice responses.1.fabian.S9" in err
    err = refusal(game, turn_plan(1, steps={"upkeep": {"choices": {"dismiss": {"marburg": ["zeno"]}}}}))
    assert "step 'upkeep'" in err and "choice dismiss.marburg[0]: 'zeno'" in err
    fresh = Game()
    err = refusal(fresh, setup_plan(leader_traits={"fabian": ["general", "intriguer"], "venezia": ["steward"]}))
    assert "step 'setup'" in err and "choice leader_traits.venezia" in err
    err = refusal(fresh, setup_plan(leader_traits={"fabian": ["general", "liar"], "marburg": ["steward", "devout"]}))
    assert "choice leader_traits.fabian[1]: 'liar'" in err


def test_a_ruling_names_only_player_factions(game: Game) -> None:
    err = refusal(game, turn_plan(1, steps={"p1_internal": {"choices": {"rulings": [
        {"text": "x", "visibility": "faction:gusso"}]}}}))
    assert "step 'p1_internal'" in err and "rulings[0].visibility" in err and "'gusso'" in err
    assert game.try_play(turn_plan(1, steps={"p1_internal": {"choices": {"rulings": [
        {"text": "x", "visibility": "faction:fabian,faction:marburg"}]}}})) is None


def test_own_steps_offer_only_what_the_faction_may_see() -> None:
    """The picks of command_<f>/orders_<f> give the same options on the GM's state and on f's own view, at
    every turn of the demo: neither a form nor a refusal can show a faction a rival's secret."""
    camp = Campaign.open(DEMO)
    last = max(e.turn for e in camp.events())
    sources = ["factions", "player_factions", "neutrals"]
    for turn in range(1, last + 1):
        gm = camp.state(turn)
        for fid, _ in setting_players():
            mine = RULESET.redact(gm, viewer(fid))
            for src in [*sources, *(f"{k}:{fid}" for k in ("characters", "agents", "leaders", "slots", "dilemmas"))]:
                assert RULESET.vocabulary(gm, src, {}) == RULESET.vocabulary(mine, src, {}), (turn, fid, src)
            for action in ACTIONS:
                src = f"targets:{fid}"
                assert RULESET.vocabulary(gm, src, {"action": action}) == \
                    RULESET.vocabulary(mine, src, {"action": action}), (turn, fid, action)
    # the rival's statesmen are never offered: at turn 4 Marburg's own leaders are its doge and Bianca
    gm = camp.state(4)
    leaders = [o.value for o in RULESET.vocabulary(gm, "leaders:marburg", {}) or ()]
    assert leaders == ["marburg.leader", "bianca"]


def test_every_step_describes_its_form_on_the_gm_state_and_on_a_view() -> None:
    camp = Campaign.open(DEMO)
    state = camp.state()
    turn = camp.next_turn()
    for step in RULESET.phases_for(state, turn):
        fields = RULESET.choices(state, turn, step.id)
        assert fields and all(f.label for f in fields), step.id
    mine = camp.state(viewer=camp.viewer("fabian"))
    fields = {f.name: f for f in RULESET.choices(mine, turn, "orders_fabian")}
    assert fields["actor"].default == "fabian" and fields["orders"].kind == "rows"
    order = {f.name: f for f in fields["orders"].fields}
    assert order["action"].kind == "select" and order["leader"].options is not None
    assert {o.value for o in order["leader"].options} == {"fabian.leader", "cesare", "orsino", "lorenzo"}  # t4.c1 left
    assert order["target"].depends == ("action",)


@pytest.mark.parametrize("bad", [0, 7])
def test_a_recorded_face_that_is_no_d6_is_a_fault_of_the_log(bad: int) -> None:
    g = Game()
    g.play(setup_plan())
    roll = ev.CommandRollMade(faction="fabian", attempt=1, stake="low", dice=(3, bad), success=True, special=1,
                              ordinary=2)
    with pytest.raises(CorruptLogError, match=r"seq 99: recorded command roll has a face"):
        RULESET.apply(g.state, provisional("test", 99, Draft(roll, "command_fabian"), turn=1))


class _Unknown(EventModel):
    type = "signoria.no_such_event"
    n: int = 0


def test_an_unknown_signoria_event_is_a_fault_naming_the_seq() -> None:
    g = Game()
    with pytest.raises(CorruptLogError, match=r"seq 7: signoria has no rule to apply 'signoria.no_such_event'"):
        RULESET.apply(g.state, provisional("test", 7, Draft(_Unknown()), turn=0))
