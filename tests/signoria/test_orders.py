"""Orders are checked where they enter and settled at the resolution (§1.3, §3.1, §3.5, §4.8, §7.2).

Two places check an order. The submission check runs the faction's own steps on its own redacted view
(``play.check``): whatever the faction can know to be wrong refuses the submission, naming the rule, and
the refusal says nothing the view does not hold. The GM's turn runs them on the truth: an order that
cannot be carried out there is void on its own (``signoria.order_voided``, told to its faction and kept
in its notices) and the month goes on. Malformed input (wrong types, another faction's orders) is refused
in both places.
"""

from __future__ import annotations

from typing import Any

import pytest

from kingdomlog.core.fold import filter_visible
from kingdomlog.rulesets.signoria import RULESET

from .play import Game, check, setup_plan, turn_plan
from .play import viewer as as_viewer


@pytest.fixture
def game() -> Game:
    g = Game()
    g.play(setup_plan())
    return g


def refused(g: Game, plan: dict[str, Any]) -> str:
    before = (len(g.events), g.state)
    err = g.try_play(plan)
    assert err is not None, "expected a refusal"
    assert (len(g.events), g.state) == before, "a refused turn must append nothing"
    return err


def voided(g: Game, plan: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """Play the GM's turn; the orders voided, by order id: (reason, rule)."""
    new = g.play(plan)
    return {e.payload.order: (e.payload.reason, e.payload.rule) for e in new if e.type == "signoria.order_voided"}


def test_orders_for_another_faction(game: Game) -> None:
    """§1.3: Fabian's orders step cannot carry Marburg's orders (refused on the truth too)."""
    err = refused(game, turn_plan(1, orders={"fabian": {"actor": "marburg", "orders": []}}))
    assert "orders_fabian" in err and "rule: §1.3" in err
    err = refused(game, turn_plan(1, orders={"fabian": [
        {"id": "O1", "faction": "marburg", "action": "intrigue_self", "slots": ["ordinary"]}]}))
    assert "is for 'marburg'" in err
    assert "a faction orders only itself" in str(check(game, "fabian", 1, orders={"actor": "marburg", "orders": []}))


def test_more_actions_than_the_command_roll_gave(game: Game) -> None:
    """§3.1: a failed low stake [1, 2] gives 3 ordinary slots. The check refuses a 4th action or any special
    slot; on the truth the 4th order is void and the first three stand."""
    four = [{"id": f"O{i}", "action": "intrigue_self", "slots": ["ordinary"], "stake": "low"} for i in range(4)]
    err = check(game, "fabian", 1, command=("low", [1, 2]), orders=four)
    assert err is not None and "4 action slots used" in err and "0 special + 3 ordinary" in err and "§3.1" in err
    assert "[1, 2]" not in err and "gave" not in err  # no refusal states a die
    err = check(game, "fabian", 1, command=("low", [1, 2]), orders=[
        {"id": "S1", "action": "intrigue_self", "slots": ["special"], "stake": "low"}])
    assert err is not None and "special slots" in err
    assert check(game, "fabian", 1, command=("low", [1, 2]), orders=four[:3]) is None
    out = voided(game, turn_plan(1, command={"fabian": ("low", [1, 2])}, orders={"fabian": four}))
    assert list(out) == ["O3"] and out["O3"][1] == "§3.1"
    assert [o.id for o in game.state.orders["fabian"].orders] == ["O0", "O1", "O2"]


def test_reroll_without_resources(game: Game) -> None:
    """§3.1: a bought reroll needs 1 Power or Wealth; Fabian's Wealth 1 + 2 income pays three, not four. The
    plan is checked before any die is rolled, whatever the dice would have been."""
    plan = turn_plan(1)
    plan["steps"]["command_fabian"] = {"choices": {"stake": "high", "pay": ["wealth", "wealth", "wealth", "wealth"]},
                                       "rolls": {"cmd.1": [6, 6]}}
    err = refused(game, plan)
    assert "cannot pay 1 wealth" in err and "§3.1" in err
    plan["steps"]["command_fabian"] = {"choices": {"stake": "high", "pay": ["wealth", "wealth", "power"]},
                                       "rolls": {"cmd.1": [1, 1], "cmd.2": [1, 1], "cmd.3": [1, 1],
                                                 "cmd.4": [1, 1]}}
    assert game.try_play(plan) is None
    f = game.state.factions["fabian"]
    assert (f.wealth, f.power) == (1, 4)
    assert game.state.command["fabian"].attempts == ((1, 1),) * 4


def test_neutral_action_without_required_treaties(game: Game) -> None:
    """§7.2: a military alliance or a legitimacy letter needs at least 2 treaties with that neutral."""
    for action in ("military_alliance", "legitimacy"):
        order = [{"id": "S1", "action": action, "slots": ["special"], "stake": "high", "target": "gusso"}]
        err = check(game, "fabian", 1, command=("high", [6, 6]), orders=order)
        assert err is not None and "needs at least 2 treaties" in err and "§7.2" in err
    err = check(game, "fabian", 1, orders=[
        {"id": "O1", "action": "trade", "slots": ["ordinary"], "stake": "low", "target": "marburg"}])
    assert err is not None and "needs a neutral" in err
    out = voided(game, turn_plan(1, command={"fabian": ("high", [6, 6])}, orders={"fabian": [
        {"id": "S1", "action": "legitimacy", "slots": ["special"], "stake": "high", "target": "gusso"},
        {"id": "S2", "action": "intrigue_self", "slots": ["special"], "stake": "low"}]},
        steps={"p1_internal": {"rolls": {"fabian.S2.1": [4, 4]}}}))
    assert list(out) == ["S1"] and "needs at least 2 treaties" in out["S1"][0]
    assert game.state.factions["fabian"].power == 5 + 1  # S2 went on: low-stake intrigue, [4, 4] = 8 >= 5


CASES = [
    ("fabian", [{"id": "O1", "action": "intrigue_self", "slots": ["ordinary"], "leader": "cesare"},
                {"id": "O2", "action": "liberties", "slots": ["ordinary"], "leader": "cesare"}], "§3.7", "O2"),
    ("marburg", [{"id": "H", "action": "designate_heir", "target": "lorenzo"}], "§8.2", "H"),
    ("fabian", [{"id": "O1", "action": "hire_troops", "slots": ["ordinary"], "params": {"units": 9}}], "§4.8", "O1"),
    ("fabian", [{"id": "O1", "action": "war", "slots": ["ordinary"], "target": "marburg",
                 "params": {"units": 20}}], "§5.1", "O1"),
    ("fabian", [{"id": "D", "action": "dismiss", "target": "lorenzo"}], "§4.3 phase 5", "D"),
    ("fabian", [{"id": "O1", "action": "support", "slots": ["ordinary"], "params": {"order": "O9", "wealth": 1}}],
     "A5c", "O1"),
    ("fabian", [{"id": "O1", "action": "war", "slots": ["ordinary"], "target": "marburg",
                 "params": {"units": 3, "tactic": "hold", "reserve": 1}}], "§5.4", "O1"),
    ("fabian", [{"id": "O1", "action": "player_treaty", "slots": ["ordinary"], "stake": "elementary",
                 "target": "marburg"}], "A4", "O1"),
]


@pytest.mark.parametrize(("fid", "orders", "rule", "bad"), CASES, ids=[c[2] for c in CASES])
def test_what_a_faction_can_know_is_refused_at_submission_and_void_at_resolution(
        game: Game, fid: str, orders: list[dict[str, Any]], rule: str, bad: str) -> None:
    """§3.7 one activity, §8.2 Marburg names no heir, §4.8 costs over wealth, §5.1 home force, §4.3 only own
    statesmen, A5c support names a rolled order, §5.4 only Ambush/Counterattack hold a reserve, A4 terms."""
    err = check(game, fid, 1, orders=orders)
    assert err is not None and rule in err, err
    out = voided(game, turn_plan(1, orders={fid: orders}))
    assert bad in out and rule in out[bad][1], out


def test_what_only_the_truth_can_settle_is_void_at_resolution(game: Game) -> None:
    """§6.5: Fabian's view holds no rival court, so a low-stake attempt on 'marburg.leader' passes the check;
    on the truth it is void (a leader is not wounded at low stake) and the faction is told why."""
    order = [{"id": "O1", "action": "assassination", "slots": ["ordinary"], "stake": "low",
              "target": "marburg.leader"}]
    assert check(game, "fabian", 1, orders=order) is None
    assert "own" in str(check(game, "fabian", 1, orders=[{**order[0], "target": "cesare"}]))
    out = voided(game, turn_plan(1, orders={"fabian": order}))
    assert out == {"O1": ("a low-stake attempt on a leader is not allowed", "§6.5")}
    out = voided(game, turn_plan(2, orders={"fabian": [{**order[0], "target": "nobody"}]}))
    assert out == {"O1": ("its target 'nobody' could not be found in a rival's service", "§6.3, §6.5")}


def test_an_order_made_unaffordable_voids_itself_not_the_month(game: Game) -> None:
    """§4.8, §3.5 step 1: Fabian has 1 + 2 income = 3 wealth when it orders 2 troops (cost 2) and a low-stake
    intrigue. The month's global event takes 2 of it: 1 left, the troops are void, the intrigue goes on
    ([4, 4] = 8 >= 5: Power 5 + 1), and Fabian's own report (its notices) says why; Marburg sees nothing."""
    orders = [{"id": "O1", "action": "hire_troops", "slots": ["ordinary"], "params": {"units": 2}},
              {"id": "O2", "action": "intrigue_self", "slots": ["ordinary"], "stake": "low"}]
    assert check(game, "fabian", 1, orders=orders) is None
    tax = {"key": "tax", "title": "The cardinal's tithe",
           "effects": [{"kind": "resource", "faction": "fabian", "resource": "wealth", "delta": -2}]}
    new = game.play(turn_plan(1, opening={"global_event": tax}, orders={"fabian": orders},
                              steps={"p1_internal": {"rolls": {"fabian.O2.1": [4, 4]}}}))
    void = [e for e in new if e.type == "signoria.order_voided"]
    assert len(void) == 1 and void[0].visibility == "faction:fabian"
    assert (void[0].payload.order, void[0].payload.rule) == ("O1", "§4.8 voluntary costs")
    assert "costs 2 wealth but Duke Fabian has 1 left" in void[0].payload.reason
    f = game.state.factions["fabian"]
    assert (f.wealth, f.army, f.power) == (1, 8, 6)
    mine = RULESET.redact(game.state, as_viewer("fabian"))
    assert [n.kind for n in mine.notices["fabian"]] == ["order_void"]
    assert "order O1 (hire_troops) is void: costs 2 wealth" in mine.notices["fabian"][0].text
    report = RULESET.portrait(mine, None, as_viewer("fabian"))  # the report page's picture of the month
    said = next(sec.lines for sec in report.sections if sec.title == "Reports this month")
    assert any(line.startswith("Our order to hire troops is void: costs 2 wealth but Duke Fabian has 1 left")
               for line in said), said  # in words, not "Order O1 (hire_troops) is void" (issue 29)
    rival = RULESET.portrait(RULESET.redact(game.state, as_viewer("marburg")), None, as_viewer("marburg"))
    assert "O1 (hire_troops)" not in str(rival)
    assert not any(e.type == "signoria.order_voided" for e in filter_visible(game.events, "marburg"))
    assert game.replayed() == game.state


def test_two_campaigns_cannot_send_more_than_the_home_force(game: Game) -> None:
    """§5.1 / G-8: several campaigns may split the army, but together no more than the home force."""
    war = {"action": "war", "target": "marburg", "params": {"units": 5, "tactic": "hold"}}
    orders = [{"id": "S1", "slots": ["special"], **war}, {"id": "S2", "slots": ["special"], **war}]
    err = check(game, "fabian", 1, command=("high", [6, 6]), orders=orders)
    assert err is not None and "home force is 3" in err and "§5.1" in err
    out = voided(game, turn_plan(1, command={"fabian": ("high", [6, 6])}, orders={"fabian": orders}))
    assert list(out) == ["S2"] and "home force is 3" in out["S2"][0]


def test_a_dilemma_or_a_candidate_answered_takes_its_slot(game: Game) -> None:
    """§4.1 A7, §4.6: a dilemma answered with an option (no dilemma order written) takes one ordinary slot;
    a candidate marked "hire" becomes a hire order (one slot, his cost 1). With the 3 ordinary slots of a
    failed roll already used, the dilemma has none left: refused at the check, void on the truth."""
    opening = {"dilemmas": [{"faction": "fabian", "id": "flood", "text": "The river rises",
                             "options": [{"id": "dam", "text": "build a dam", "effects": [
                                 {"kind": "resource", "faction": "fabian", "resource": "wealth", "delta": -1}]}]}],
               "candidates": [{"faction": "fabian", "name": "Giulia"}]}
    answers = {"orders": [], "dilemmas": {"flood": "dam"}, "candidates": {"t1.c1": "hire"}}
    assert check(game, "fabian", 1, orders=answers, opening=opening) is None
    three = [{"id": f"O{i}", "action": "intrigue_self", "slots": ["ordinary"], "stake": "elementary"}
             for i in range(3)]
    full = {"orders": three, "dilemmas": {"flood": "dam"}}
    err = check(game, "fabian", 1, command=("low", [1, 2]), orders=full, opening=opening)
    assert err is not None and "resolving the dilemma “The river rises” costs one action slot and none is left" in err
    new = game.play(turn_plan(1, opening=opening, orders={"fabian": answers}))
    sealed = next(e.payload for e in new if e.type == "signoria.orders_submitted" and e.payload.faction == "fabian")
    assert [(o["id"], o["action"], o["slots"]) for o in sealed.orders] == [
        ("dilemma-flood", "dilemma", ["ordinary"]), ("hire-t1.c1", "hire_statesman", ["ordinary"])]
    s = game.state
    assert s.dilemmas["fabian"][0].choice == "dam"
    assert "t1.c1" in s.factions["fabian"].statesmen and s.factions["fabian"].wealth == 3 - 1 - 1
    out = voided(game, turn_plan(2, opening={**opening, "candidates": []}, command={"fabian": ("low", [1, 2])},
                                 orders={"fabian": full}))
    assert list(out) == ["dilemma-flood"]


def test_a_faction_that_gives_no_orders_is_missing(game: Game) -> None:
    """G-34: a faction whose orders step is left at its defaults gave no orders: it is listed as missing when
    the orders lock, takes no action and abstains on every dilemma."""
    plan = turn_plan(1)
    plan["steps"]["orders_marburg"] = {"choices": {}}
    new = game.play(plan)
    locked = next(e.payload for e in new if e.type == "signoria.orders_locked")
    assert locked.missing == ("marburg",)
    assert "marburg" not in game.state.orders


def test_malformed_choices_are_input_errors(game: Game) -> None:
    """A wrong type in the orders is refused by the step's typed choices, naming the step and the key;
    nothing appended."""
    err = refused(game, turn_plan(1, orders={"fabian": [
        {"id": "O1", "action": "hire_troops", "slots": ["ordinary"], "params": {"units": "many"}}]}))
    assert "orders_fabian" in err and "orders[0].params.units" in err and "valid integer" in err
    err = refused(game, turn_plan(1, steps={"p3_war": {"choices": {"declarations": {"x": {"one": []}}}}}))
    assert "p3_war" in err


BAD_PARAMS = [
    ({"id": "O1", "action": "donation", "slots": ["ordinary"], "stake": "elementary", "params": {"piety": -50}},
     "orders[0].params.piety"),
    ({"id": "O1", "action": "donation", "slots": ["ordinary"], "stake": "elementary", "params": {"piety": 0}},
     "orders[0].params.piety"),
    ({"id": "O1", "action": "war", "slots": ["ordinary"], "target": "felmonte", "params": {"units": 2,
                                                                                          "reserve": -5}},
     "orders[0].params.reserve"),
    ({"id": "O1", "action": "hire_troops", "slots": ["ordinary"], "params": {"units": 0}}, "orders[0].params.units"),
    ({"id": "O1", "action": "bribery", "slots": ["ordinary"], "target": "bianca", "params": {"wealth": 0}},
     "orders[0].params.wealth"),
]


@pytest.mark.parametrize(("order", "where"), BAD_PARAMS, ids=[w for _, w in BAD_PARAMS])
def test_every_order_parameter_is_validated(game: Game, order: dict[str, Any], where: str) -> None:
    """Issue 14 item 7: a donation of -50 (or 0) piety, a reserve of -5, 0 troops, a bribe of 0 are refused
    where they enter, naming the key; before, -50 piety turned 3 wealth into 104."""
    err = refused(game, turn_plan(1, orders={"fabian": [order]}))
    assert where in err, err
    assert where in str(check(game, "fabian", 1, orders=[order]))


@pytest.mark.parametrize("standing", ["banana", {"response": "banana"}, {"response": {"response": "banana"}},
                                      {"losses": ["banana"]}])
def test_standing_orders_are_validated(game: Game, standing: Any) -> None:
    err = refused(game, turn_plan(1, orders={"fabian": {"orders": [], "standing": standing}}))
    assert "orders_fabian" in err and "standing" in err, err


def test_a_candidates_cost_is_validated(game: Game) -> None:
    """The GM's candidate costs -1,000 wealth: refused naming the key (before, it committed)."""
    err = refused(game, turn_plan(1, opening={"candidates": [{"faction": "fabian", "name": "X", "cost": -1000}]}))
    assert "turn_open" in err and "candidates[0].cost" in err


@pytest.mark.parametrize(("reserve", "refusal"), [(3, None), (4, "the reserve may be at most a third of the units")])
def test_a_war_reserve_is_at_most_a_third_of_the_units(reserve: int, refusal: str | None) -> None:
    """§5.4: an Ambush holds at most a third of the units sent in reserve: of 9 units, 3 at the limit, 4 one over
    (issue 28: the limit was never tested; "a half" or "under a third" passed the suite)."""
    g = Game()
    g.play(setup_plan(resources={"fabian": {"army": 9}}))
    order = {"id": "S1", "action": "war", "slots": ["special"], "target": "marburg",
             "params": {"units": 9, "reserve": reserve, "tactic": "ambush"}}
    err = check(g, "fabian", 1, command=("high", [6, 6]), orders=[order])
    if refusal is None:
        assert err is None
        new = g.play(turn_plan(1, command={"fabian": ("high", [6, 6])}, orders={"fabian": [order]}))
        sealed = next(e.payload for e in new if e.type == "signoria.orders_submitted" and e.payload.faction == "fabian")
        assert [(o["id"], o["params"]["reserve"]) for o in sealed.orders] == [("S1", 3)]
        assert not any(e.type == "signoria.order_voided" for e in new)
    else:
        assert err is not None and refusal in err and "§5.4" in err
        out = voided(g, turn_plan(1, command={"fabian": ("high", [6, 6])}, orders={"fabian": [order]}))
        assert out == {"S1": (refusal, "§5.4")}


def test_a_global_event_without_a_short_name_is_recorded_as_event(game: Game) -> None:
    """The GM sheet's "Short name" box is empty (it held "event", which read as code); left empty, the event is
    recorded under the key ``event`` as it was; given, under the GM's."""
    from kingdomlog.rulesets.signoria.choices import GlobalEvent

    assert GlobalEvent.model_fields["key"].default == ""
    new = game.play(turn_plan(1, opening={"global_event": {"title": "Spring fair in Felmonte"}},
                              orders={"fabian": []}))
    said = [e.payload for e in new if e.type == "signoria.global_event"]
    assert [(p.key, p.title) for p in said] == [("event", "Spring fair in Felmonte")]
