"""Espionage (§6): bribery bands, double agents, spy infiltration and spy slots, assassination, succession."""

from __future__ import annotations

from typing import Any

from kingdomlog.core.fold import filter_visible
from kingdomlog.rulesets.signoria import RULESET

from .play import Game, setup_plan, turn_plan, viewer


def game() -> Game:
    g = Game()
    g.play(setup_plan())
    return g


def bribe(faces: list[int], *, wealth: int = 2, mode: str = "defect", double: bool = False) -> tuple[Game, Any]:
    g = game()
    plan = turn_plan(1, command={"fabian": ("high", [6, 6])}, orders={"fabian": [
        {"id": "O1", "action": "bribery", "slots": ["ordinary"], "stake": "high", "target": "lorenzo",
         "params": {"wealth": wealth, "on_success": mode}}]},
        steps={"p2_espionage": {"rolls": {"fabian.O1.1": faces},
                                "choices": {"double_agents": {"fabian.O1": double}}}})
    new = g.play(plan)
    return g, new


def test_bribery_success_defect() -> None:
    """§6.3: total 2d6 + W - L = 8 + 2 - 2 >= 8: success; W spent; high stake lets him defect at once."""
    g, new = bribe([4, 4])
    assert g.state.characters["lorenzo"].employer == "fabian"
    assert "lorenzo" in g.state.factions["fabian"].statesmen
    assert g.state.factions["fabian"].wealth == 3 - 2
    res = next(e for e in new if e.type == "signoria.action_resolved" and e.payload.action == "bribery")
    assert (res.payload.outcome, res.payload.rolls, res.visibility) == ("reported", ((4, 4),), "faction:fabian")
    band = next(e for e in new if e.type == "signoria.gm_ruling")
    assert band.visibility == "gm" and band.payload.effects[0]["band"] == "success"  # loyalty is the GM's (§2.4)


def test_bribery_light_failure_keeps_money_and_tells_owner() -> None:
    """§6.3: total 6 in T-3..T-1: light failure; W kept; Marburg is told who tried."""
    g, _ = bribe([3, 3])
    assert g.state.factions["fabian"].wealth == 3
    note = next(n for n in g.state.notices["marburg"] if n.kind == "bribe_attempt")
    assert note.data["briber"] == "fabian"
    assert g.state.notices["fabian"][-1].data["outcome"] == "light_failure"


def test_bribery_full_failure_loses_money() -> None:
    """§6.3: total 3 < T-3: full failure; the money is gone (to no one)."""
    g, _ = bribe([1, 2])
    assert g.state.factions["fabian"].wealth == 1
    assert g.state.factions["marburg"].wealth == 9
    assert g.state.notices["fabian"][-1].data["outcome"] == "full_failure"


def test_double_agent_believed_spy() -> None:
    """§6.4: the owner turns a failed bribe; the briber is told 'success', pays, and believes it has a spy."""
    g, new = bribe([3, 3], mode="spy", double=True)
    s = g.state
    assert s.factions["fabian"].wealth == 1
    assert s.characters["lorenzo"].agent_kind == "double_agent" and s.characters["lorenzo"].true_master == "marburg"
    assert s.believed_spies["fabian"] == {"lorenzo": "marburg"}
    fv = RULESET.redact(s, viewer("fabian"))
    assert fv.characters["lorenzo"].true_master == "fabian" and fv.characters["lorenzo"].agent_kind == "spy"
    assert "double_agent" not in fv.model_dump_json()
    assert not any(e.type == "signoria.double_agent_chosen" for e in filter_visible(g.events, "fabian"))
    mv = RULESET.redact(s, viewer("marburg"))
    assert mv.characters["lorenzo"].agent_kind == "double_agent"
    # next turn Fabian uses the believed spy slot; Marburg sees the order and does not carry it out
    new = g.play(turn_plan(2, orders={"fabian": [
        {"id": "X", "action": "intrigue_foreign", "slots": ["spy:lorenzo"], "stake": "low", "target": "marburg"}]}))
    assert not any(e.type == "signoria.action_resolved" and e.payload.order == "X" for e in new)
    seen = [n for n in g.state.notices["marburg"] if n.kind == "double_agent_order"]
    assert seen and seen[0].data["order"]["action"] == "intrigue_foreign"
    assert g.state.notices["fabian"][-1].data == {"order": "X", "outcome": "failure"}


def test_spy_infiltration_hire_and_spy_slot() -> None:
    """§6.2: plant (5+), offered to the host next turn, hired in phase 5, spy slot from the turn after."""
    g = game()
    g.play(turn_plan(1, orders={"fabian": [
        {"id": "O1", "action": "spy", "slots": ["ordinary"], "stake": "low", "target": "marburg",
         "params": {"agent": "orsino"}}]}, steps={"p2_espionage": {"rolls": {"fabian.O1.1": [3, 2]}}}))
    assert "orsino" not in g.state.factions["fabian"].statesmen
    new = g.play(turn_plan(2, opening={"candidates": [{"faction": "marburg", "name": "Zeno"}]}, orders={"marburg": [
        {"id": "O1", "action": "hire_statesman", "slots": ["ordinary"], "target": "t2.c1"}]}))
    # offered like any candidate (sorted by name, no dice, no real id); only Fabian and the GM know the alias
    offers = [e for e in new if e.type == "signoria.candidate_offered"]
    assert [(e.payload.candidate, e.payload.name, e.payload.trait, e.payload.trait_dice, e.visibility)
            for e in offers] == [("t2.c1", "Orsino", "general", (), "faction:marburg"),
                                 ("t2.c2", "Zeno", offers[1].payload.trait, (), "faction:marburg")]
    alias = next(e for e in new if e.type == "signoria.candidate_alias")
    assert (alias.payload.agent, alias.visibility) == ("orsino", "faction:fabian")
    assert g.state.spies == {"orsino": "marburg"}
    assert "orsino" in g.state.factions["marburg"].statesmen
    assert RULESET.redact(g.state, viewer("marburg")).characters["orsino"].true_master is None
    g.play(turn_plan(3, orders={"fabian": [
        {"id": "X", "action": "intrigue_foreign", "slots": ["spy:orsino"], "stake": "low", "target": "marburg",
         "leader": None}]}, steps={"p2_espionage": {"rolls": {"fabian.X.1": [4, 4]}}}))
    assert g.state.factions["marburg"].power == 3 - 1


def test_unhired_plant_comes_home() -> None:
    """§6.2 step 3: if the host ignores the candidate, the agent returns to his master at upkeep."""
    g = game()
    g.play(turn_plan(1, orders={"fabian": [
        {"id": "O1", "action": "spy", "slots": ["ordinary"], "stake": "low", "target": "marburg",
         "params": {"agent": "orsino"}}]}, steps={"p2_espionage": {"rolls": {"fabian.O1.1": [3, 2]}}}))
    g.play(turn_plan(2))
    assert "orsino" in g.state.factions["fabian"].statesmen
    assert g.state.characters["orsino"].condition == "active"


def test_assassination_wound_kill_and_succession() -> None:
    """§6.5-6.6: low stake wounds a statesman (healed at upkeep); the leader dies on 10+; the heir succeeds,
    keeps his trait, and Fabian (Absolute power) gets a new statesman-heir."""
    g = game()
    new = g.play(turn_plan(1, command={"marburg": ("high", [6, 6])}, orders={"marburg": [
        {"id": "S1", "action": "assassination", "slots": ["special"], "stake": "high", "target": "fabian.leader",
         "params": {"kill_leader": True}},
        {"id": "O1", "action": "assassination", "slots": ["ordinary"], "stake": "low", "target": "orsino"}]},
        steps={"p2_espionage": {"rolls": {"marburg.S1.1": [4, 5], "marburg.S1.2": [5, 5],
                                          "marburg.O1.1": [2, 3], "succession.fabian.cesare.1": [3],
                                          "succession.fabian.newheir.1": [6], "succession.fabian.newheir.2": [4]}}}))
    s = g.state
    assert s.characters["fabian.leader"].condition == "dead"
    assert s.factions["fabian"].leader == "cesare"
    assert s.characters["cesare"].traits == ("steward", "general")
    heirs = [c for c in s.statesmen_of("fabian") if c.is_heir]
    assert len(heirs) == 1 and heirs[0].traits == ("devout",)
    wounds = [e for e in new if e.type == "signoria.character_status" and e.payload.character == "orsino"]
    assert [e.payload.condition for e in wounds] == ["wounded", "active"]
    died = next(e for e in new if e.type == "signoria.character_status" and e.payload.condition == "dead")
    assert died.visibility == "public"


def test_failed_assassination_tells_target_not_sender() -> None:
    """§6.5: failure: the target's owner hears of an attempt on that character; the sender is not named."""
    g = game()
    g.play(turn_plan(1, orders={"marburg": [
        {"id": "O1", "action": "assassination", "slots": ["ordinary"], "stake": "high", "target": "orsino"}]},
        steps={"p2_espionage": {"rolls": {"marburg.O1.1": [1, 1]}}}))
    note = g.state.notices["fabian"][-1]
    assert note.kind == "assassination_attempt" and "sender" not in note.data
    assert g.state.characters["orsino"].condition == "active"
