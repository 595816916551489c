"""§10 worked example (turn 5, Autumn 216) reproduced event by event from a plan with manual dice."""

from __future__ import annotations

from typing import Any

import pytest

from kingdomlog.core.fold import filter_visible
from kingdomlog.core.viewers import visible_to
from kingdomlog.rulesets.signoria import RULESET

from .play import Game, types, viewer

SETUP: dict[str, Any] = {"turn": 0, "seed": "s10", "steps": {"setup": {
    "choices": {
        "resume_turn": 4,
        "leader_traits": {"fabian": ["general", "intriguer"], "marburg": ["steward", "intriguer"]},
        "leader_names": {"marburg": "Doge Andrea"},
        "statesmen": {"fabian": [{"id": "cesare", "name": "Cesare", "heir": True}, {"id": "orsino", "name": "Orsino"}],
                      "marburg": [{"id": "lorenzo", "name": "Lorenzo"}, {"id": "bianca", "name": "Bianca"}]},
        "rulings": [
            {"gap": "§10.1", "text": "passage through Gusso's lands (turn 3)", "visibility": "faction:fabian",
             "effects": [{"kind": "treaty", "id": "gusso.passage.fabian", "type": "right_of_passage",
                          "parties": ["fabian"], "neutral": "gusso", "stake": "low", "turn": 3}]},
            {"gap": "§10.1", "text": "Marburg's trade agreement with Felmonte (turn 2)",
             "visibility": "faction:marburg",
             "effects": [{"kind": "treaty", "id": "felmonte.trade.marburg", "type": "trade", "parties": ["marburg"],
                          "neutral": "felmonte", "stake": "low", "turn": 2}]},
            {"gap": "§10.1", "text": "Marburg's turn-3 scouting report on Fabian's roster",
             "visibility": "faction:marburg",
             "effects": [{"kind": "intel", "observer": "marburg", "subject": "fabian", "turn": 3,
                          "phase": "p2_espionage", "source": "scouts",
                          "fields": {"roster": [{"id": "fabian.leader", "name": "Duke Fabian"},
                                                {"id": "cesare", "name": "Cesare"},
                                                {"id": "orsino", "name": "Orsino"}]}}]},
        ]},
    # d6 trait table (§8.5): 1 steward, 2 intriguer, 3 general
    "rolls": {"trait.cesare.1": [1], "trait.orsino.1": [3], "trait.lorenzo.1": [2], "trait.bianca.1": [1]}}}}

CAMPAIGN = "5.fabian.S1"
TURN5: dict[str, Any] = {"turn": 5, "seed": "s10-5", "steps": {
    "turn_open": {"choices": {
        "global_event": {"key": "autumn_fever", "title": "An autumn fever in the ports"},
        "dilemmas": [
            {"faction": "fabian", "id": "mercenary", "text": "A mercenary captain offers his sword",
             "options": [{"id": "hire", "text": "take him", "effects": []}]},
            {"faction": "marburg", "id": "festival", "text": "The guilds petition for a festival",
             "options": [{"id": "fund", "text": "fund it",
                          "effects": [{"kind": "resource", "faction": "marburg", "resource": "wealth", "delta": -1},
                                      {"kind": "resource", "faction": "marburg", "resource": "piety", "delta": 1}]}]},
        ]}},
    "command_fabian": {"choices": {"stake": "high", "pay": ["wealth"]}, "rolls": {"cmd.1": [3, 4], "cmd.2": [6, 4]}},
    "command_marburg": {"choices": {"stake": "low", "pay": ["wealth"]}, "rolls": {"cmd.1": [2, 1], "cmd.2": [5, 3]}},
    "orders_fabian": {"choices": {"actor": "fabian", "dilemmas": {"mercenary": "abstain"}, "orders": [
        {"id": "S1", "action": "war", "slots": ["special"], "target": "marburg",
         "params": {"units": 8, "characters": ["orsino"], "commander": "orsino", "tactic": "breakthrough",
                    "if_defence": "storm"}},
        {"id": "S2", "action": "scouts", "slots": ["special"], "stake": "high", "target": "marburg",
         "leader": "fabian.leader"},
        {"id": "O1", "action": "trade", "slots": ["ordinary"], "stake": "high", "target": "felmonte",
         "leader": "cesare"},
        {"id": "O2", "action": "intrigue_self", "slots": ["ordinary"], "stake": "low"}]}},
    "orders_marburg": {"choices": {"actor": "marburg", "dilemmas": {"festival": "fund"}, "orders": [
        {"id": "S1", "action": "assassination", "slots": ["special"], "stake": "high", "target": "orsino",
         "leader": "lorenzo"},
        {"id": "O1", "action": "dilemma", "slots": ["ordinary"], "target": "festival", "params": {"option": "fund"}},
        {"id": "O2", "action": "hire_troops", "slots": ["ordinary"], "params": {"units": 3}}]}},
    "p1_internal": {"rolls": {"fabian.O2.1": [3, 3]}},
    "p2_espionage": {"rolls": {"fabian.S2.1": [4, 3], "fabian.S2.2": [6, 2],
                               "marburg.S1.1": [3, 2], "marburg.S1.2": [4, 1], "marburg.S1.3": [6, 1],
                               "marburg.S1.4": [2, 5]}},
    "p3_war": {
        "choices": {
            "responses": {CAMPAIGN: {"response": "battle", "tactic": "hold",
                                     "characters": ["marburg.leader", "lorenzo"]}},
            "declarations": {CAMPAIGN: {
                "1": [{"side": "defender", "character": "marburg.leader", "option": "hospital"}],
                "2": [{"side": "defender", "character": "lorenzo", "option": "back_cowards"},
                      {"side": "attacker", "character": "orsino", "option": "regroup"},
                      {"side": "attacker", "character": "orsino", "option": "join", "group": "main"}]}}},
        "rolls": {
            "b5.1.r1.attacker.main": [6, 5, 2, 3, 6, 1, 4, 5], "b5.1.r1.attacker.main.x1": [6, 3],
            "b5.1.r1.attacker.main.x2": [2], "b5.1.r1.defender.main": [4, 6, 2, 5, 1, 3],
            "b5.1.r2.attacker.main": [5, 2, 6, 1, 3, 4, 5, 2, 4], "b5.1.r2.attacker.main.x1": [4],
            "b5.1.r2.defender.main": [6, 4, 1]}},
    "p4_diplomacy": {"rolls": {"fabian.O1.1": [5, 4]}},
}}

START = {"fabian": {"power": 5, "piety": 3, "wealth": 2, "army": 8},
         "marburg": {"power": 3, "piety": 6, "wealth": 7, "army": 6}}


@pytest.fixture(scope="module")
def game() -> Game:
    g = Game(initial_resources=START)
    g.play(SETUP)
    g.turn5 = g.play(TURN5)  # type: ignore[attr-defined]
    return g


def test_start_state_is_section_10_1(game: Game) -> None:
    """§10.1: the setup reproduces the state at the start of turn 5 (before income)."""
    g = Game(initial_resources=START)
    g.play(SETUP)
    s = g.state
    assert s.turn == 4
    assert [s.characters[c].traits for c in ("cesare", "orsino", "lorenzo", "bianca")] == [
        ("steward",), ("general",), ("intriguer",), ("steward",)]
    assert s.characters["cesare"].is_heir
    assert {t.type for t in s.active_treaties("fabian")} == {"right_of_passage"}
    assert {t.type for t in s.active_treaties("marburg")} == {"trade"}
    assert (s.factions["fabian"].power, s.factions["marburg"].wealth) == (5, 7)


def test_event_sequence(game: Game) -> None:
    """§11.5: the events of turn 5 in order (one action_resolved carries every 2d6 of an action)."""
    t = types(game.turn5)  # type: ignore[attr-defined]
    assert t == [
        "turn_opened", "income_credited", "income_credited", "global_event",
        "dilemma_presented", "dilemma_presented",
        "command_roll", "command_roll", "command_roll", "command_roll",
        "orders_submitted", "orders_submitted", "orders_locked",
        # phase 1: the festival (a GM ruling: wealth -1, piety +1), then Fabian's intrigue
        "action_resolved", "gm_ruling", "action_resolved", "resource_adjusted",
        # phase 2: scouts then the assassination
        "action_resolved", "intel_recorded", "action_resolved", "faction_notified",
        # phase 3: the battle of Marburg
        "campaign_launched", "campaign_arrived", "defender_responded", "battle_opened", "battle_round",
        "battle_round", "battle_ended", "battle_reported", "intel_recorded", "intel_recorded",
        "resource_adjusted", "resource_adjusted", "resource_adjusted", "province_status", "province_status",
        # phase 4: trade outbids Marburg's
        "action_resolved", "treaty_ended", "faction_notified", "treaty_concluded",
        # phase 5: troops; upkeep: plunder
        "action_resolved", "troops_hired", "resource_adjusted", "resource_adjusted", "turn_closed"]


def _one(events: list[Any], kind: str, **match: Any) -> Any:
    found = [e.payload for e in events if e.type == f"signoria.{kind}" and
             all(getattr(e.payload, k) == v for k, v in match.items())]
    assert len(found) == 1, (kind, match, found)
    return found[0]


def test_rolls_and_allowances(game: Game) -> None:
    """§10.3-10.8: command rolls, rerolls allowances (R = 3 scouts, 3 assassination, 2 trade) and outcomes."""
    ev = game.turn5  # type: ignore[attr-defined]
    income = _one(ev, "income_credited", faction="marburg")
    assert income.total == 3 and [x["amount"] for x in income.lines] == [2, 1]
    scouts = _one(ev, "action_resolved", faction="fabian", order="S2")
    assert (scouts.threshold, scouts.rerolls_allowed, scouts.rolls, scouts.outcome) == (8, 3, ((4, 3), (6, 2)),
                                                                                       "success")
    murder = _one(ev, "action_resolved", faction="marburg", order="S1")
    assert (murder.threshold, murder.rerolls_allowed, murder.outcome) == (8, 3, "failure")
    assert len(murder.rolls) == 4
    trade = _one(ev, "action_resolved", faction="fabian", order="O1")
    assert (trade.threshold, trade.rerolls_allowed, trade.rolls, trade.outcome) == (8, 2, ((5, 4),), "success")
    intr = _one(ev, "action_resolved", faction="fabian", order="O2")
    assert (intr.threshold, intr.rerolls_allowed, intr.outcome) == (5, 0, "success")
    intel = _one(ev, "intel_recorded", observer="fabian", subject="marburg", source="scouts")
    assert {k: intel.fields[k] for k in ("power", "piety", "wealth", "army")} == {
        "power": 3, "piety": 7, "wealth": 8, "army": 6}
    assert [r["name"] for r in intel.fields["roster"]] == ["Doge Andrea", "Lorenzo", "Bianca"]
    note = _one(ev, "faction_notified", faction="fabian")
    assert "Orsino" in note.text and "marburg" not in str(note.data)


def test_battle_rounds(game: Game) -> None:
    """§10.7: round 1 Fabian 1 kill 4 routs (hospital), Marburg 1 kill 2 routs; round 2 Marburg broken."""
    ev = game.turn5  # type: ignore[attr-defined]
    r1 = _one(ev, "battle_round", round=1).sides
    a, d = r1["attacker"], r1["defender"]
    assert a["groups"][0]["threshold"] == 5 and d["groups"][0]["threshold"] == 4
    assert a["groups"][0]["explosions"] == [6, 3, 2]
    assert (a["kills"], a["routs"], a["hospital"]) == (1, 4, 2)
    assert (d["kills"], d["routs"]) == (1, 2)
    assert (a["engaged_after"], d["engaged_after"]) == (5, 1)
    r2 = _one(ev, "battle_round", round=2).sides
    assert (r2["attacker"]["returned"], r2["defender"]["returned"]) == (2, 2)
    assert len(r2["attacker"]["groups"][0]["dice"]) == 9
    assert (r2["attacker"]["kills"], r2["attacker"]["routs"]) == (1, 2)
    assert (r2["defender"]["kills"], r2["defender"]["routs"]) == (1, 1)
    assert (r2["attacker"]["engaged_after"], r2["defender"]["engaged_after"]) == (5, 0)
    end = _one(ev, "battle_ended")
    assert (end.winner, end.reason, end.killed) == ("fabian", "broken", {"fabian": 2, "marburg": 2})
    assert end.routed_at_end == {"fabian": 1, "marburg": 4}


def test_end_state_is_section_10_11(game: Game) -> None:
    """§10.11: Fabian P7 Pi3 W3 A6 occupying Marburg; Marburg P2 Pi6 W4 A7 besieged; trade moved to Fabian."""
    s = game.state
    f, m = s.factions["fabian"], s.factions["marburg"]
    assert (f.power, f.piety, f.wealth, f.army) == (7, 3, 3, 6)
    assert (m.power, m.piety, m.wealth, m.army) == (2, 6, 4, 7)
    assert s.provinces["marburg"].occupier == "fabian" and s.provinces["marburg"].owner == "marburg"
    assert m.besieged
    assert s.campaigns[CAMPAIGN].units == 6 and s.campaigns[CAMPAIGN].status == "besieging"
    assert {(t.type, t.neutral, t.stake) for t in s.active_treaties("fabian")} == {
        ("right_of_passage", "gusso", "low"), ("trade", "felmonte", "high")}
    assert s.active_treaties("marburg") == []
    rec = s.intel["fabian"]["marburg"]
    assert (rec["power"].value, rec["power"].turn, rec["power"].phase) == (3, 5, "p2_espionage")
    assert game.replayed() == s


def test_what_each_side_saw(game: Game) -> None:
    """§10.11 'What each side saw': no rival command roll, orders or hiring; Marburg never sees the scouting."""
    ev = game.turn5  # type: ignore[attr-defined]
    fab = filter_visible(ev, "fabian")
    mar = filter_visible(ev, "marburg")
    pub = filter_visible(ev, "public")
    assert not any(e.type == "signoria.command_roll" and e.payload.faction == "marburg" for e in fab)
    assert not any(e.type == "signoria.orders_submitted" and e.payload.faction == "marburg" for e in fab)
    assert not any(e.type == "signoria.troops_hired" for e in fab)
    assert not any(e.type == "signoria.intel_recorded" and e.payload.observer == "fabian" for e in mar)
    assert not any(e.type == "signoria.action_resolved" and e.payload.faction == "fabian" for e in mar)
    assert sum(1 for e in fab if e.type == "signoria.battle_round") == 2
    assert sum(1 for e in mar if e.type == "signoria.battle_round") == 2
    assert any(e.type == "signoria.faction_notified" and e.payload.kind == "trade_outbid" for e in mar)
    assert any(e.type == "signoria.treaty_concluded" and e.payload.kind == "trade" for e in mar)
    assert {e.type for e in pub} >= {"signoria.battle_reported", "signoria.province_status",
                                     "signoria.campaign_arrived"}
    assert not any(e.type in ("signoria.battle_round", "signoria.battle_opened", "signoria.campaign_launched")
                   for e in pub)
    for e in ev:
        if e.type in ("signoria.command_roll", "signoria.orders_submitted"):
            assert e.actor == e.payload.faction
            assert visible_to(e.visibility, e.payload.faction)
            assert e.visibility == f"faction:{e.payload.faction}"


def test_views(game: Game) -> None:
    """§11.4: Fabian sees its intel on Marburg (dated), not Marburg's live values; Marburg the reverse."""
    fv = RULESET.redact(game.state, viewer("fabian"))
    # Marburg's wealth as Fabian last learned it (turn 5, phase 2): 8, though it is really 4 now (§10.11)
    assert (fv.factions["marburg"].wealth, fv.factions["marburg"].as_of["wealth"]) == (8, 5)
    assert game.state.factions["marburg"].wealth == 4 and fv.factions["fabian"].wealth == 3
    assert fv.intel["fabian"]["marburg"]["wealth"].value == 8
    assert "marburg" not in fv.intel and "lorenzo" not in fv.characters
    mv = RULESET.redact(game.state, viewer("marburg"))
    assert mv.factions["fabian"].power is None and mv.factions["fabian"].as_of == {}
    assert (mv.factions["felmonte"].army, mv.factions["felmonte"].as_of["army"]) == (4, 0)  # published stats
    assert mv.intel["marburg"]["fabian"]["roster"].turn == 3
    assert all(c.loyalty is None for c in mv.characters.values())


def test_explain_reroll_allowances(game: Game) -> None:
    """§10.4: R = 1 (special slot) + 2 (Duke Fabian, Intriguer, on-profile) for the scouts; Cesare's trade 0 + 2."""
    by_name = {b.name: b for b in RULESET.explain(game.state)}
    s2 = by_name["rerolls for fabian's special order 2 (send scouts)"]  # it read "fabian S2 (scouts) rerolls"
    assert s2.total == 3 and [(t.label, t.value) for t in s2.terms] == [
        ("slots (1 special, 0 ordinary)", 1), ("Duke Fabian (on-profile)", 2)]
    assert by_name["rerolls for fabian's ordinary order 1 (seek a trade treaty)"].total == 2
    assert by_name["rerolls for marburg's special order 1 (assassinate)"].total == 3
    assert by_name["fabian next income"].total == 1 + 1  # Fabia + the new Felmonte trade
    assert by_name["marburg home force"].total == 7


def test_explain_and_render_of_a_view(game: Game) -> None:
    """A faction's view explains only its own numbers and renders rivals as last learned (@turn)."""
    fv = RULESET.redact(game.state, viewer("fabian"))
    names = [b.name for b in RULESET.explain(fv)]
    assert names and all(n.startswith("fabian ") or n.startswith("rerolls for fabian's ") for n in names)
    text = RULESET.render(fv)
    assert "marburg Po3@t5 Pi7@t5 We8@t5 Ar6@t5" in text and "fabian Po7 Pi3 We3 Ar6" in text
    assert RULESET.summary(fv)["marburg_wealth"] == 8
