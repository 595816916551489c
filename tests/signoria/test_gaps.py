"""The Signoria gaps found in play (issue 14 item 8, issue 19 item 10), each with its numbers by hand.

- an agent planted by a faction that is then eliminated leaves play with his master's court (§5.13):
  he is neither sent home to a master who no longer exists nor offered to his host (the bug behind
  the flaky leak property test: ``StatesmanDefected(to_faction='')`` and a ``KeyError`` in evolve);
- an unexpected exception while deciding a step is an internal error naming the step, never "malformed
  choice";
- the GM's slot grants survive the command roll (§3.2), recorded in version 2 of the command roll event;
  a version-1 event still means what its format said (the roll replaced the slots);
- plunder gains only what the loser actually paid (§5.12, §4.8);
- a faction left without a province hires nothing (§5.13);
- a player chooses the order in which its side's units and neutral contingents fall (§7.2, §5.8 step 8);
- a battle's losses stay hidden from a player faction that was not in it (§5.9, §11.3).
"""

from __future__ import annotations

from typing import Any

import pytest

from kingdomlog.core.errors import InputError, InternalError, RuleError
from kingdomlog.core.events import Draft, decode_payload, provisional
from kingdomlog.core.turn import Plan, preview_turn, require_ok
from kingdomlog.rulesets.signoria import RULESET
from kingdomlog.rulesets.signoria import events as ev

from .play import Game, setup_plan, turn_plan, types
from .play import viewer as as_viewer

MARBURG_PASSAGE = {"gap": "t", "text": "passage", "visibility": "faction:marburg", "effects": [
    {"kind": "treaty", "type": "right_of_passage", "parties": ["marburg"], "neutral": "gusso"}]}


def test_an_agent_whose_master_is_eliminated_leaves_play() -> None:
    """The pinned example of the flaky leak test (issue 19 item 10). Turn 1: Fabian plants Orsino in Marburg
    (low stake 5+, [6, 6]). Turn 2: Marburg does not hire him; its 10 units (passage through Gusso's land)
    meet Fabian's 1 at Fabia: Hold makes Marburg need 5+, ten 6s kill 10, the 1 defender falls, Fabia is
    captured at once (no home force left, §5.13); at upkeep Fabian is eliminated. Orsino was planted last
    turn and not hired, but his master is gone: he stays out of play (no StatesmanDefected to '')."""
    g = Game()
    g.play(setup_plan(resources={"fabian": {"army": 1}, "marburg": {"army": 10}}, rulings=[MARBURG_PASSAGE]))
    g.play(turn_plan(1, orders={"fabian": [{"id": "O1", "action": "spy", "slots": ["ordinary"], "stake": "low",
                                            "target": "marburg", "params": {"agent": "orsino"}}]},
                     steps={"p2_espionage": {"rolls": {"fabian.O1.1": [6, 6]}}}))
    assert g.state.characters["orsino"].condition == "departed" and "orsino" in g.state.plants
    new = g.play(turn_plan(2, orders={"marburg": [{"id": "O1", "action": "war", "slots": ["ordinary"],
                                                   "target": "fabia", "params": {"units": 10, "tactic": "hold"}}]},
                           steps={"p3_war": {"rolls": {"b2.1.r1.attacker.main": [6] * 10,
                                                       "b2.1.r1.defender.main": [1]}}}))
    kinds = types(new)
    assert "faction_eliminated" in kinds and "statesman_defected" not in kinds
    s = g.state
    assert s.factions["fabian"].status == "eliminated" and s.finished and s.winner == "marburg"
    orsino = s.characters["orsino"]
    assert (orsino.condition, orsino.true_master, orsino.employer) == ("departed", None, "fabian")
    assert g.replayed() == s


def test_an_unexpected_exception_is_an_internal_error_naming_the_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug in the rules (here: a KeyError planted in the income lines) is not the user's mistake: it is an
    internal error naming the step, and no 'malformed choice'."""
    g = Game()
    g.play(setup_plan())

    def broken(*args: Any) -> list[dict[str, Any]]:
        raise KeyError("no-such-province")

    monkeypatch.setattr("kingdomlog.rulesets.signoria.decide.income_lines", broken)
    pv = preview_turn(RULESET, g.state, Plan.parse(turn_plan(1)), campaign="test", turn=1, start_seq=len(g.events),
                      seed="test-seed")
    bad = next(s for s in pv.steps if s.error)
    assert (bad.phase.id, bad.internal) == ("turn_open", True)
    text = bad.error or ""
    assert "internal error" in text and "step 'turn_open'" in text and "KeyError" in text and "bug" in text
    assert "malformed" not in text
    with pytest.raises(InternalError) as err:
        require_ok(pv)
    assert not isinstance(err.value, (InputError, RuleError)) and err.value.step == "turn_open"


GRANT = {"gap": "§3.2", "text": "the guilds lend their clerks", "visibility": "faction:fabian", "effects": [
    {"kind": "slots", "faction": "fabian", "slot": "special", "delta": 1},
    {"kind": "slots", "faction": "fabian", "slot": "ordinary", "delta": 1}]}


def test_the_gms_slot_grants_survive_the_command_roll() -> None:
    """§3.2: a grant of +1 special +1 ordinary at the opening, then a low-stake success [3, 3] (1 special +
    2 ordinary, §3.1): 2 special + 3 ordinary. A failed high stake [1, 2] then a bought reroll [6, 5]: the
    failure row (0 + 2) + grant = 1 + 3, the success row (2 + 2) + grant = 3 + 3."""
    g = Game()
    g.play(setup_plan())
    new = g.play(turn_plan(1, opening={"rulings": [GRANT]}))
    roll = next(e for e in new if e.type == "signoria.command_roll" and e.payload.faction == "fabian")
    assert roll.version == 2
    assert (roll.payload.success, roll.payload.special, roll.payload.ordinary) == (True, 2, 3)
    cr = g.state.command["fabian"]
    assert (cr.special, cr.ordinary) == (2, 3)
    plan = turn_plan(2, opening={"rulings": [GRANT]})
    plan["steps"]["command_fabian"] = {"choices": {"stake": "high", "pay": ["wealth"]},
                                       "rolls": {"cmd.1": [1, 2], "cmd.2": [6, 5]}}
    new = g.play(plan)
    rolls = [e.payload for e in new if e.type == "signoria.command_roll" and e.payload.faction == "fabian"]
    assert [(r.success, r.special, r.ordinary) for r in rolls] == [(False, 1, 3), (True, 3, 3)]
    assert (g.state.command["fabian"].special, g.state.command["fabian"].ordinary) == (3, 3)
    five = [{"id": f"O{i}", "action": "intrigue_self", "slots": ["ordinary"], "stake": "low"} for i in range(3)]
    five += [{"id": f"S{i}", "action": "liberties", "slots": ["special"], "stake": "elementary"} for i in range(2)]
    g.play(turn_plan(3, opening={"rulings": [GRANT]}, orders={"fabian": five}))  # all 2 special + 3 ordinary
    assert not any(e.type == "signoria.order_voided" for e in g.events)
    assert g.replayed() == g.state


def test_a_version_1_command_roll_still_means_what_it_said() -> None:
    """A stored v1 event has no slots: the upcaster writes its format's table out (a high-stake 7 failed:
    0 special + 2 ordinary), and a grant made before it is replaced, as the v1 log always replayed."""
    data = decode_payload("signoria.command_roll", 1, {"faction": "fabian", "attempt": 1, "stake": "high",
                                                       "dice": [3, 4], "paid_with": None})
    assert isinstance(data, ev.CommandRollMade)
    assert (data.success, data.special, data.ordinary) == (False, 0, 2)
    ok = decode_payload("signoria.command_roll", 1, {"faction": "fabian", "attempt": 1, "stake": "low",
                                                     "dice": [3, 3]})
    assert (ok.success, ok.special, ok.ordinary) == (True, 1, 2)  # type: ignore[attr-defined]
    g = Game()
    g.play(setup_plan())
    granted = RULESET.apply(g.state, provisional("test", 50, Draft(ev.GMRulingRecorded(
        gap="§3.2", text="grant", effects=({"kind": "slots", "faction": "fabian", "slot": "special", "delta": 1},)),
        "turn_open"), turn=1))
    after = RULESET.apply(granted, provisional("test", 51, Draft(ok, "command_fabian"), turn=1))
    assert (after.command["fabian"].special, after.command["fabian"].ordinary) == (1, 2)
    from kingdomlog.rulesets.signoria.audit import audit

    found = audit(granted, provisional("test", 51, Draft(ok, "command_fabian"), turn=1))
    assert len(found) == 1 and "today's rules give success=True, 2 special + 2 ordinary" in found[0]


FABIAN_PASSAGE = {"gap": "t", "text": "passage", "visibility": "faction:fabian", "effects": [
    {"kind": "treaty", "type": "right_of_passage", "parties": ["fabian"], "neutral": "gusso"}]}


def test_plunder_gains_only_what_the_loser_paid() -> None:
    """§5.12 with the §4.8 floor: Fabian besieges Marburg (Marburg shuts the gates). Turn 1: Marburg has
    6 + 3 income = 9: plunder takes 1 and Fabian gains 1 (1 + 2 income + 1 = 4). Turn 2: the GM sets Marburg's
    wealth to 0 at the opening: the plunder finds nothing (shortfall 1) and Fabian gains nothing (4 + 2 = 6)."""
    g = Game()
    g.play(setup_plan(rulings=[FABIAN_PASSAGE]))
    war = [{"id": "O1", "action": "war", "slots": ["ordinary"], "target": "marburg",
            "params": {"units": 5, "tactic": "hold", "if_defence": "siege"}}]
    shut = {"orders": [], "standing": {"response": {"response": "defence"}}}
    g.play(turn_plan(1, orders={"fabian": war, "marburg": shut}))
    assert (g.state.factions["marburg"].wealth, g.state.factions["fabian"].wealth) == (8, 4)
    empty = {"gap": "t", "text": "the treasury is empty", "visibility": "gm", "effects": [
        {"kind": "set_resource", "faction": "marburg", "resource": "wealth", "value": 0}]}
    new = g.play(turn_plan(2, opening={"rulings": [empty]}, orders={"marburg": shut}))
    plunder = [(e.payload.faction, e.payload.delta, e.payload.shortfall) for e in new
               if e.type == "signoria.resource_adjusted" and e.payload.reason == "plunder of Marburg"]
    assert plunder == [("marburg", -1, 1)]
    assert (g.state.factions["marburg"].wealth, g.state.factions["fabian"].wealth) == (0, 6)


def test_a_faction_without_a_province_hires_nothing() -> None:
    """§5.13: Marburg's 10 units take Fabia in phase 3 (ten 6s against 1 defender); Fabian's phase-5 orders
    (3 troops, a statesman, an heir) are void, told to Fabian, and it is eliminated at upkeep with Army 0."""
    g = Game()
    g.play(setup_plan(resources={"fabian": {"army": 1, "wealth": 5}, "marburg": {"army": 10}},
                      rulings=[MARBURG_PASSAGE]))
    new = g.play(turn_plan(1, opening={"candidates": [{"faction": "fabian", "name": "Piero"}]}, orders={
        "marburg": [{"id": "O1", "action": "war", "slots": ["ordinary"], "target": "fabia",
                     "params": {"units": 10, "tactic": "hold"}}],
        "fabian": [{"id": "O1", "action": "hire_troops", "slots": ["ordinary"], "params": {"units": 3}},
                   {"id": "O2", "action": "hire_statesman", "slots": ["ordinary"], "target": "t1.c1"},
                   {"id": "H", "action": "designate_heir", "target": "orsino"}]},
        steps={"p3_war": {"rolls": {"b1.1.r1.attacker.main": [6] * 10, "b1.1.r1.defender.main": [1]}}}))
    void = {e.payload.order: e.payload.rule for e in new if e.type == "signoria.order_voided"}
    assert void == {"O1": "§5.13", "O2": "§5.13", "H": "§5.13"}
    assert not any(e.type in ("signoria.troops_hired", "signoria.statesman_hired", "signoria.heir_designated")
                   for e in new)
    f = g.state.factions["fabian"]
    assert (f.status, f.army, f.wealth) == ("eliminated", 0, 5 + 2)


def _gusso_allies_fabian(losses: list[str] | None) -> Game:
    """Fabian (3 units at home, allied with Gusso: ceil(5/2) = 3 units) is attacked by Marburg's 4 units
    through Felmonte (Marburg holds passage there); Marburg's round-1 dice kill 4 (four 6s against Hold's 5+),
    Fabian's miss; round 2 nobody hits: the defender wins, 4 of its 6 units killed."""
    g = Game()
    alliance = {"gap": "t", "text": "alliance", "visibility": "faction:fabian", "effects": [
        {"kind": "treaty", "id": "gusso.alliance", "type": "military_alliance", "parties": ["fabian"],
         "neutral": "gusso", "aid_units": 3}]}
    passage = {"gap": "t", "text": "passage", "visibility": "faction:marburg", "effects": [
        {"kind": "treaty", "type": "right_of_passage", "parties": ["marburg"], "neutral": "felmonte"}]}
    g.play(setup_plan(resources={"fabian": {"army": 3}, "marburg": {"army": 4}}, rulings=[alliance, passage]))
    standing: dict[str, Any] = {"response": {"response": "battle", "tactic": "hold", "characters": []}}
    if losses is not None:
        standing["losses"] = losses
    g.play(turn_plan(1, orders={
        "marburg": [{"id": "O1", "action": "war", "slots": ["ordinary"], "target": "fabia",
                     "params": {"units": 4, "tactic": "hold"}}],
        "fabian": {"orders": [], "standing": standing}},
        steps={"p3_war": {"rolls": {"b1.1.r1.attacker.main": [6, 6, 6, 6], "b1.1.r1.defender.main": [1] * 6,
                                    "b1.1.r2.attacker.main": [1, 1, 1, 1], "b1.1.r2.defender.main": [1, 1]}}}))
    return g


@pytest.mark.parametrize(("losses", "own_army", "gusso_army", "split"), [
    (None, 0, 4, {"gusso": 1}),                 # default: own units first: 3 own, then 1 of Gusso's (5 -> 4)
    (["gusso", "own"], 2, 2, {"gusso": 3}),     # Gusso's 3 first, then 1 own (3 -> 2); Gusso 5 -> 2
])
def test_a_player_chooses_the_order_in_which_contingents_fall(losses: list[str] | None, own_army: int,
                                                              gusso_army: int, split: dict[str, int]) -> None:
    g = _gusso_allies_fabian(losses)
    ended = next(e.payload for e in g.events if e.type == "signoria.battle_ended")
    assert ended.winner == "fabian" and ended.killed["fabian"] == 3 - own_army
    assert ended.contingent_losses == {"fabian": split}
    assert (g.state.factions["fabian"].army, g.state.factions["gusso"].army) == (own_army, gusso_army)


def test_a_battles_losses_stay_hidden_from_a_faction_not_in_it() -> None:
    """§5.9, §11.3 (issue 19 item 10): with a third player faction, Venezia learns that Marburg and Fabian
    fought at Fabia and who won (public), never the losses: its view's battle has no ``killed`` and none of
    the battle's detailed events reach it; both sides see the losses (4 of Fabian's 6, as above)."""
    from kingdomlog.core.fold import filter_visible

    g = Game(players=["fabian", "marburg", "venezia"], extra_factions={
        "venezia": {"label": "Venezia", "province": "venezia", "leader": "Doge Zeno", "borders": ["felmonte"]}})
    traits = {"fabian": ["general", "intriguer"], "marburg": ["steward", "intriguer"],
              "venezia": ["steward", "devout"]}
    passage = {"gap": "t", "text": "passage", "visibility": "faction:marburg", "effects": [
        {"kind": "treaty", "type": "right_of_passage", "parties": ["marburg"], "neutral": "felmonte"}]}
    g.play(setup_plan(leader_traits=traits, resources={"fabian": {"army": 6}, "marburg": {"army": 4}},
                      rulings=[passage]))
    plan = turn_plan(1, orders={
        "marburg": [{"id": "O1", "action": "war", "slots": ["ordinary"], "target": "fabia",
                     "params": {"units": 4, "tactic": "hold"}}],
        "fabian": {"orders": [], "standing": {"response": {"response": "battle", "tactic": "hold",
                                                           "characters": []}}}},
        steps={"p3_war": {"rolls": {"b1.1.r1.attacker.main": [6, 6, 6, 6], "b1.1.r1.defender.main": [1] * 6,
                                    "b1.1.r2.attacker.main": [1, 1, 1, 1], "b1.1.r2.defender.main": [1, 1]}}})
    plan["steps"]["command_venezia"] = {"choices": {"stake": "low"}, "rolls": {"cmd.1": [4, 4]}}
    plan["steps"]["orders_venezia"] = {"choices": {"orders": []}}
    g.play(plan)
    truth = g.state.battles[0]
    assert (truth.winner, truth.killed) == ("fabian", {"marburg": 0, "fabian": 4})
    for side in ("fabian", "marburg"):
        assert RULESET.redact(g.state, as_viewer(side)).battles[0].killed == truth.killed
    seen = RULESET.redact(g.state, as_viewer("venezia")).battles
    assert [(b.province, b.attacker, b.defender, b.winner, b.killed) for b in seen] == [
        ("fabia", "marburg", "fabian", "fabian", {})]
    theirs = {e.type for e in filter_visible(g.events, "venezia") if e.turn == 1}
    assert "signoria.battle_reported" in theirs
    assert not theirs & {"signoria.battle_opened", "signoria.battle_round", "signoria.battle_ended",
                         "signoria.defender_responded", "signoria.campaign_launched"}
    assert RULESET.redact(g.state, as_viewer("public")).battles[0].killed == {}


def test_the_gms_question_to_a_faction_and_its_answer() -> None:
    """§8.2 [GM]: Marburg's council votes on the doge; the GM puts the question with two options and their
    effects. Unanswered, the default stands (and the question is asked of Marburg, with the GM's words only);
    answered "yield", its effects are the ruling (Power +1, Piety -1), told to Marburg alone."""
    from kingdomlog.core.turn import Plan, preview_turn

    g = Game()
    g.play(setup_plan())
    vote = {"faction": "marburg", "id": "council", "kind": "council_vote", "default": "defy",
            "text": "The council of Marburg votes on the doge's power.",
            "options": [{"id": "yield", "text": "yield to the council", "effects": [
                {"kind": "resource", "faction": "marburg", "resource": "power", "delta": 1},
                {"kind": "resource", "faction": "marburg", "resource": "piety", "delta": -1}]},
                {"id": "defy", "text": "defy it"}]}
    plan = turn_plan(1, steps={"upkeep": {"choices": {"questions": [vote]}}})
    pv = preview_turn(RULESET, g.state, Plan.parse(plan), campaign="test", turn=1, start_seq=len(g.events),
                      seed="x")
    asked = [q for q in pv.questions if q.kind == "council_vote"]
    assert [(q.id, q.to, q.path, q.default, [a.value for a in q.options]) for q in asked] == [
        ("gm:council", "marburg", ("answers", "council"), "defy", ["yield", "defy"])]
    plan["steps"]["upkeep"]["choices"]["answers"] = {"council": "yield"}
    new = g.play(plan)
    ruling = next(e for e in new if e.type == "signoria.gm_ruling" and e.payload.gap == "council_vote")
    assert ruling.visibility == "faction:marburg" and "Answer: yield to the council" in ruling.payload.text
    m = g.state.factions["marburg"]
    assert (m.power, m.piety) == (3 + 1, 6 - 1)
