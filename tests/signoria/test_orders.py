"""Illegal orders are refused with a message naming the rule, and nothing is appended (§1.3, §3.1, §7.2)."""

from __future__ import annotations

from typing import Any

import pytest

from .play import Game, setup_plan, turn_plan


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


def test_orders_for_another_faction(game: Game) -> None:
    """§1.3: Fabian's orders step cannot carry Marburg's orders."""
    err = refused(game, turn_plan(1, orders={"fabian": {"actor": "marburg", "orders": []}}))
    assert "orders_fabian" in err and "rule: §1.3" in err
    err = refused(game, turn_plan(1, orders={"fabian": [
        {"id": "O1", "faction": "marburg", "action": "intrigue_self", "slots": ["ordinary"]}]}))
    assert "is for 'marburg'" in err


def test_more_actions_than_the_command_roll_gave(game: Game) -> None:
    """§3.1: a failed low stake gives 3 ordinary slots; a 4th action or any special slot is refused."""
    four = [{"id": f"O{i}", "action": "intrigue_self", "slots": ["ordinary"], "stake": "low"} for i in range(4)]
    err = refused(game, turn_plan(1, command={"fabian": ("low", [1, 2])}, orders={"fabian": four}))
    assert "4 action slots used" in err and "§3.1" in err
    err = refused(game, turn_plan(1, command={"fabian": ("low", [1, 2])}, orders={"fabian": [
        {"id": "S1", "action": "intrigue_self", "slots": ["special"], "stake": "low"}]}))
    assert "special slots" in err
    assert game.try_play(turn_plan(1, command={"fabian": ("low", [1, 2])}, orders={"fabian": four[:3]})) is None


def test_reroll_without_resources(game: Game) -> None:
    """§3.1: a bought reroll needs 1 Power or Wealth; Fabian's Wealth 1 + 2 income pays three, not four."""
    plan = turn_plan(1)
    plan["steps"]["command_fabian"] = {"choices": {"stake": "high", "pay": ["wealth", "wealth", "wealth", "wealth"]},
                                       "rolls": {"cmd.1": [1, 1], "cmd.2": [1, 1], "cmd.3": [1, 1],
                                                 "cmd.4": [1, 1]}}
    err = refused(game, plan)
    assert "cannot pay 1 wealth" in err and "§3.1" in err
    plan["steps"]["command_fabian"]["choices"]["pay"] = ["wealth", "wealth", "power"]
    assert game.try_play(plan) is None
    f = game.state.factions["fabian"]
    assert (f.wealth, f.power) == (1, 4)
    assert game.state.command["fabian"].attempts == ((1, 1),) * 4


def test_neutral_action_without_required_treaties(game: Game) -> None:
    """§7.2: a military alliance or a legitimacy letter needs at least 2 treaties with that neutral."""
    for action in ("military_alliance", "legitimacy"):
        err = refused(game, turn_plan(1, orders={"fabian": [
            {"id": "S1", "action": action, "slots": ["special"], "stake": "high", "target": "gusso"}]},
            command={"fabian": ("high", [6, 6])}))
        assert "needs at least 2 treaties" in err and "§7.2" in err
    err = refused(game, turn_plan(1, orders={"fabian": [
        {"id": "O1", "action": "trade", "slots": ["ordinary"], "stake": "low", "target": "marburg"}]}))
    assert "needs a neutral" in err


def test_other_refusals(game: Game) -> None:
    """§6.5 low stake on a leader, §3.7 one activity, §8.2 Marburg names no heir, §4.8 costs over wealth."""
    cases = [
        ("fabian", [{"id": "O1", "action": "assassination", "slots": ["ordinary"], "stake": "low",
                     "target": "marburg.leader"}], "§6.5"),
        ("fabian", [{"id": "O1", "action": "intrigue_self", "slots": ["ordinary"], "leader": "cesare"},
                    {"id": "O2", "action": "liberties", "slots": ["ordinary"], "leader": "cesare"}], "§3.7"),
        ("marburg", [{"id": "H", "action": "designate_heir", "target": "lorenzo"}], "§8.2"),
        ("fabian", [{"id": "O1", "action": "hire_troops", "slots": ["ordinary"], "params": {"units": 9}}], "§4.8"),
        ("fabian", [{"id": "O1", "action": "war", "slots": ["ordinary"], "target": "marburg",
                     "params": {"units": 20}}], "§5.1"),
        ("fabian", [{"id": "D", "action": "dismiss", "target": "lorenzo"}], "§4.3 phase 5"),
        ("fabian", [{"id": "O1", "action": "support", "slots": ["ordinary"], "params": {"order": "O9",
                                                                                       "wealth": 1}}], "A5c"),
    ]
    for fid, orders, rule in cases:
        err = refused(game, turn_plan(1, orders={fid: orders}))
        assert rule in err, (rule, err)


def test_two_campaigns_cannot_send_more_than_the_home_force(game: Game) -> None:
    """§5.1 / G-8: several campaigns may split the army, but together no more than the home force."""
    war = {"action": "war", "target": "marburg", "params": {"units": 5, "tactic": "hold"}}
    err = refused(game, turn_plan(1, command={"fabian": ("high", [6, 6])}, orders={"fabian": [
        {"id": "S1", "slots": ["special"], **war}, {"id": "S2", "slots": ["special"], **war}]}))
    assert "home force is 3" in err and "§5.1" in err


def test_malformed_choices_are_input_errors(game: Game) -> None:
    """A wrong type in the orders is refused by the step's typed choices, naming the step and the key;
    nothing appended."""
    err = refused(game, turn_plan(1, orders={"fabian": [
        {"id": "O1", "action": "hire_troops", "slots": ["ordinary"], "params": {"units": "many"}}]}))
    assert "orders_fabian" in err and "orders[0].params.units" in err and "valid integer" in err
    err = refused(game, turn_plan(1, steps={"p3_war": {"choices": {"declarations": {"x": {"one": []}}}}}))
    assert "p3_war" in err
