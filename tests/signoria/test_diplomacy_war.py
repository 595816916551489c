"""Diplomacy with neutrals (§7), war with sieges, storms and captures (§5.11-5.13), upkeep, final tally."""

from __future__ import annotations

from .play import Game, setup_plan, turn_plan


def game(**choices: object) -> Game:
    g = Game()
    g.play(setup_plan(**choices))
    return g


def test_two_treaties_open_alliance_and_legitimacy() -> None:
    """§7.2: pact + passage count as 2 treaties; then a military alliance and the one legitimacy letter."""
    g = game()
    g.play(turn_plan(1, command={"fabian": ("high", [6, 6])}, orders={"fabian": [
        {"id": "S1", "action": "pact", "slots": ["special"], "stake": "low", "target": "gusso"},
        {"id": "S2", "action": "passage", "slots": ["special"], "stake": "low", "target": "gusso"}]},
        steps={"p4_diplomacy": {"rolls": {"fabian.S1.1": [3, 2], "fabian.S2.1": [4, 1]}}}))
    assert {t.type for t in g.state.active_treaties("fabian", "gusso")} == {"non_aggression", "right_of_passage"}
    g.play(turn_plan(2, command={"fabian": ("high", [6, 6])}, orders={"fabian": [
        {"id": "S1", "action": "military_alliance", "slots": ["special"], "stake": "high", "target": "gusso"},
        {"id": "S2", "action": "legitimacy", "slots": ["special"], "stake": "high", "target": "gusso"}]},
        steps={"p4_diplomacy": {"rolls": {"fabian.S1.1": [4, 4], "fabian.S2.1": [6, 2]}}}))
    s = g.state
    alliance = next(t for t in s.active_treaties("fabian", "gusso") if t.type == "military_alliance")
    assert alliance.aid_units == 3  # ceil(5 / 2)
    assert s.factions["fabian"].letters == ("gusso",) and s.factions["gusso"].legitimacy_letter_to == "fabian"


def test_standing_lowers_threshold_and_turn_against() -> None:
    """§7.3: threshold = stake threshold - standing; improve relations +1 (low); turn-against -2 (high)."""
    g = game()
    g.play(turn_plan(1, command={"marburg": ("high", [6, 6])}, orders={
        "fabian": [{"id": "O1", "action": "improve_relations", "slots": ["ordinary"], "stake": "low",
                    "target": "felmonte"}],
        "marburg": [{"id": "S1", "action": "turn_against", "slots": ["special"], "stake": "high",
                     "target": "gusso", "params": {"against": "fabian"}}]},
        steps={"p4_diplomacy": {"rolls": {"fabian.O1.1": [3, 2], "marburg.S1.1": [6, 2]}}}))
    assert g.state.factions["fabian"].standing == {"felmonte": 1, "gusso": -2}
    new = g.play(turn_plan(2, orders={"fabian": [
        {"id": "O1", "action": "trade", "slots": ["ordinary"], "stake": "low", "target": "felmonte"}]},
        steps={"p4_diplomacy": {"rolls": {"fabian.O1.1": [2, 2]}}}))
    res = next(e.payload for e in new if e.type == "signoria.action_resolved")
    assert (res.threshold, res.outcome) == (4, "success")


def test_same_turn_trade_higher_stake_wins() -> None:
    """§7.2: two successful trade agreements on one neutral in one turn: the higher stake wins."""
    g = game()
    g.play(turn_plan(1, command={"marburg": ("high", [6, 6])}, orders={
        "fabian": [{"id": "O1", "action": "trade", "slots": ["ordinary"], "stake": "low", "target": "felmonte"}],
        "marburg": [{"id": "O1", "action": "trade", "slots": ["ordinary"], "stake": "high", "target": "felmonte"}]},
        steps={"p4_diplomacy": {"rolls": {"fabian.O1.1": [6, 6], "marburg.O1.1": [4, 4]}}}))
    assert [t.parties for t in g.state.treaties.values() if t.type == "trade" and t.active] == [("marburg",)]
    # the trade pays +1 from the next turn opening (§4.4)
    new = g.play(turn_plan(2))
    inc = next(e.payload for e in new if e.type == "signoria.income_credited" and e.payload.faction == "marburg")
    assert [x["source"] for x in inc.lines] == ["province:marburg", "trade:felmonte", "season:summer"]


def test_felmonte_sold_to_highest_unique_offer() -> None:
    """§7.7: the highest single offer >= 3 buys Felmonte; a tie sells nothing."""
    g = game()
    orders = {"fabian": [{"id": "O1", "action": "felmonte_offer", "slots": ["ordinary"], "stake": "elementary",
                          "params": {"wealth": 3}}],
              "marburg": [{"id": "O1", "action": "felmonte_offer", "slots": ["ordinary"], "stake": "elementary",
                           "params": {"wealth": 3}}]}
    g.play(turn_plan(1, orders=orders))
    assert g.state.provinces["felmonte"].owner == "felmonte"
    orders["marburg"][0]["params"]["wealth"] = 4
    g.play(turn_plan(2, orders=orders))
    assert g.state.provinces["felmonte"].owner == "marburg"
    assert g.state.factions["felmonte"].captured_by == "marburg"
    assert g.state.provinces["felmonte"].income == 1


def test_attacking_felmonte_calls_for_help_then_storm_captures() -> None:
    """§7.6-7.7: Luigi locks the gates (defence), Felmonte allies with Marburg, Gusso sends aid; a storm next
    turn (attacker without tactic, garrison without tactic) captures it."""
    g = game()
    new = g.play(turn_plan(1, orders={"fabian": [
        {"id": "O1", "action": "war", "slots": ["ordinary"], "target": "felmonte",
         "params": {"units": 8, "tactic": "breakthrough", "if_defence": "siege", "characters": ["orsino"]}}]}))
    assert g.state.provinces["felmonte"].siege_since == 1
    assert {(t.type, t.neutral) for t in g.state.active_treaties("marburg")} == {
        ("military_alliance", "felmonte"), ("military_aid", "gusso")}
    reaction = next(e for e in new if e.type == "signoria.neutral_reaction")
    assert reaction.visibility == "faction:marburg"
    storm = {f"b2.1.r{r}.{side}.main": faces for r, side, faces in (
        (1, "attacker", [6, 6, 6, 6, 5, 5, 5, 5]), (1, "defender", [1, 1, 1, 1]))}
    g.play(turn_plan(2, orders={"fabian": [
        {"id": "O1", "action": "storm", "slots": ["ordinary"], "target": "felmonte"}]},
        steps={"p3_war": {"rolls": storm}}))
    s = g.state
    assert s.battles[-1].winner == "fabian" and s.provinces["felmonte"].owner == "fabian"
    assert s.factions["felmonte"].army == 0
    assert not [t for t in s.treaties.values() if t.active and t.neutral == "felmonte"]


def test_defender_wins_attacker_goes_home_with_losses() -> None:
    """§5.13: defender wins: +1 Power; attacker -1 Power, -1 Piety, -1 Wealth; its campaign returns home."""
    g = game(rulings=[{"gap": "t", "text": "passage", "visibility": "faction:fabian", "effects": [
        {"kind": "treaty", "type": "right_of_passage", "parties": ["fabian"], "neutral": "gusso"}]}])
    rolls = {"b1.1.r1.attacker.main": [1, 2], "b1.1.r1.defender.main": [2, 2, 2, 2],
             "b1.1.r2.attacker.main": [1, 2], "b1.1.r2.defender.main": [2, 2, 2, 2]}
    g.play(turn_plan(1, orders={"fabian": [
        {"id": "O1", "action": "war", "slots": ["ordinary"], "target": "marburg",
         "params": {"units": 2, "tactic": "encirclement"}}]},
        steps={"p3_war": {"rolls": {**rolls, "b1.1.r1.attacker.main.reroll": [2],
                                    "b1.1.r2.attacker.main.reroll": [3]}}}))
    f, m = g.state.factions["fabian"], g.state.factions["marburg"]
    assert (f.power, f.piety, f.wealth) == (4, 3, 2)
    assert m.power == 4 and g.state.campaigns == {}


def test_siege_plunder_and_starvation_surrender() -> None:
    """§5.11-5.12: a siege plunders 1 wealth a turn to the besieger; at 0 wealth the garrison surrenders
    in the next phase 3 unless it sallies; with no province left the faction is eliminated and the game ends."""
    g = game(resources={"marburg": {"wealth": 0}},
             rulings=[{"gap": "t", "text": "passage", "visibility": "faction:fabian", "effects": [
                 {"kind": "treaty", "type": "right_of_passage", "parties": ["fabian"], "neutral": "gusso"}]}])
    g.play(turn_plan(1, orders={
        "fabian": [{"id": "O1", "action": "war", "slots": ["ordinary"], "target": "marburg",
                    "params": {"units": 5, "tactic": "hold", "if_defence": "siege"}}],
        "marburg": {"orders": [{"id": "O1", "action": "hire_troops", "slots": ["ordinary"], "params": {"units": 3}}],
                    "standing": {"response": {"response": "defence"}}}}))
    s = g.state
    # income 3 (2 + summer 1), troops -3, plunder -1 floors at 0 (shortfall recorded); Fabian gains what
    # Marburg paid: nothing (1 + 2 income = 3)
    assert s.factions["marburg"].wealth == 0 and s.factions["fabian"].wealth == 3
    assert any("marburg wealth short by 1" in x for x in s.shortfalls)
    assert s.starving == ("marburg",)
    new = g.play(turn_plan(2))
    assert g.state.provinces["marburg"].owner == "fabian"
    assert any(e.type == "signoria.faction_eliminated" for e in new)
    assert g.state.finished and g.state.winner == "fabian"
    m = g.state.factions["marburg"]
    assert (m.status, m.army, m.statesmen) == ("eliminated", 0, ())
    assert {c.condition for c in g.state.characters.values() if c.employer == "marburg"} == {"departed"}


def test_final_tally() -> None:
    """G-40: score = P + Pi + W + A + 3 x provinces + 5 x letters, on turn 12."""
    g = game(resume_turn=11)
    new = g.play({"turn": 12, "seed": "end", "steps": {"final_tally": {"choices": {}}}})
    tally = next(e.payload for e in new if e.type == "signoria.final_tally")
    assert tally.scores["fabian"]["total"] == 5 + 4 + 1 + 8 + 3
    assert tally.scores["marburg"]["total"] == 3 + 6 + 6 + 4 + 3
    assert tally.winner == "marburg" and g.state.finished  # 22 against 21


def test_statesman_cap_dismisses_most_recent() -> None:
    """§4.7: Power below the statesman count: at upkeep the most recently hired go, unless the owner picks."""
    g = game(resources={"marburg": {"power": 2}})
    g.play(turn_plan(1, opening={"candidates": [{"faction": "marburg", "name": "Giacomo"}]},
                     orders={"marburg": [{"id": "O1", "action": "liberties", "slots": ["ordinary"],
                                          "stake": "elementary"}]},
                     steps={"upkeep": {"choices": {"dismiss": {"marburg": ["bianca"]}}}}))
    assert [c.id for c in g.state.statesmen_of("marburg")] == ["lorenzo"]


def test_transit_arrives_next_turn_and_support_buys_rerolls() -> None:
    """§5.1: without a border or passage the army crosses a neutral's land and arrives in the next phase 3;
    A5c: an Expenses slot with wealth supports another action (+1 slot, +1 reroll per wealth, max 2)."""
    g = game()
    new = g.play(turn_plan(1, command={"fabian": ("high", [6, 6])}, orders={"fabian": [
        {"id": "S1", "action": "war", "slots": ["special"], "target": "marburg",
         "params": {"units": 3, "tactic": "hold", "if_defence": "siege"}},
        {"id": "S2", "action": "intrigue_self", "slots": ["special"], "stake": "high"},
        {"id": "O1", "action": "support", "slots": ["ordinary"], "params": {"order": "S2", "wealth": 2}}]},
        steps={"p1_internal": {"rolls": {"fabian.S2.1": [1, 1], "fabian.S2.2": [1, 1], "fabian.S2.3": [1, 1],
                                         "fabian.S2.4": [1, 1], "fabian.S2.5": [6, 2]}}}))
    intr = next(e.payload for e in new if e.type == "signoria.action_resolved" and e.payload.order == "S2")
    # slots: 1 special + 1 ordinary (support) -> 2, support wealth 2 -> R = 4
    assert (intr.rerolls_allowed, len(intr.rolls), intr.outcome) == (4, 5, "success")
    assert g.state.factions["fabian"].wealth == 3 - 2 and g.state.factions["fabian"].power == 7
    launched = next(e.payload for e in new if e.type == "signoria.campaign_launched")
    assert launched.route == "transit" and not any(e.type == "signoria.campaign_arrived" for e in new)
    assert g.state.campaigns["1.fabian.S1"].status == "in_transit"
    new = g.play(turn_plan(2, orders={"marburg": {"orders": [], "standing": {"response": {"response": "defence"}}}}))
    assert any(e.type == "signoria.campaign_arrived" for e in new)
    assert g.state.provinces["marburg"].occupier == "fabian"


def test_orders_revealed_after_turn_when_configured() -> None:
    """§11.3 reveal_orders_after_turn: orders become public at turn close only when the GM says so."""
    orders = {"fabian": [{"id": "O1", "action": "intrigue_self", "slots": ["ordinary"], "stake": "low"}]}
    hidden = Game()
    hidden.play(setup_plan())
    new = hidden.play(turn_plan(1, orders=orders))
    assert not any(e.type == "signoria.orders_revealed" for e in new)
    shown = Game(reveal_orders_after_turn=True)
    shown.play(setup_plan())
    new = shown.play(turn_plan(1, orders=orders))
    rev = [e for e in new if e.type == "signoria.orders_revealed"]
    assert {e.payload.faction for e in rev} == {"fabian", "marburg"} and {e.visibility for e in rev} == {"public"}
    assert rev[0].payload.orders[0]["action"] == "intrigue_self"


def test_three_player_factions_and_the_called_faction() -> None:
    """§1.2 / G-41: a third player faction defined by the GM (default 4/5/3/4); §7.6 / G-39: attacked Felmonte
    calls the non-attacker with the highest standing."""
    g = Game(players=["fabian", "marburg", "venezia"], extra_factions={
        "venezia": {"label": "Venezia", "province": "venezia", "leader": "Doge Zeno", "borders": ["felmonte"]}})
    traits = {"fabian": ["general", "intriguer"], "marburg": ["steward", "intriguer"],
              "venezia": ["steward", "devout"]}
    g.play(setup_plan(leader_traits=traits, rulings=[{"gap": "t", "text": "", "visibility": "gm", "effects": [
        {"kind": "standing", "neutral": "felmonte", "faction": "fabian", "delta": 2}]}]))
    v = g.state.factions["venezia"]
    assert (v.power, v.piety, v.wealth, v.army) == (4, 5, 3, 4)
    assert g.state.provinces["venezia"].owner == "venezia" and len(g.state.statesmen_of("venezia")) == 2
    plan = turn_plan(1)
    plan["steps"]["command_venezia"] = {"choices": {"stake": "low"}, "rolls": {"cmd.1": [4, 4]}}
    plan["steps"]["orders_venezia"] = {"choices": {"orders": [
        {"id": "O1", "action": "war", "slots": ["ordinary"], "target": "felmonte",
         "params": {"units": 4, "tactic": "hold", "if_defence": "siege"}}]}}
    new = g.play(plan)
    launched = next(e.payload for e in new if e.type == "signoria.campaign_launched")
    assert launched.route == "direct"
    reaction = next(e for e in new if e.type == "signoria.neutral_reaction" and e.payload.neutral == "felmonte")
    assert reaction.payload.beneficiary == "fabian" and reaction.visibility == "faction:fabian"
