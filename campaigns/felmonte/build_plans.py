"""Write the plans of the Felmonte demo (Signoria): setup and seven months of 216.

Run ``python campaigns/felmonte/build_plans.py`` to rewrite ``plans/turn-NN.json``; then
``python -m tests.signoria.make_demo`` replays them into ``log/``. Dice not typed here come
from each plan's seed (keyed by the campaign id ``felmonte``).

The story: Duke Fabian buys passage, a pact, an alliance and a letter to the cardinal from Signor
Gusso and bribes Marburg's intriguer Lorenzo into a spy; Marburg slips Bianca into the ducal court
as a spy and trades with Felmonte. Fabian wins at Marburg in summer (both spies change sides in the
battle) and besieges the city; the garrison sallies in autumn and breaks the siege. Marburg's bribe
of Cesare is turned into a double agent; Luigi sells Felmonte to Marburg; Fabian's second march
fails; in winter Marburg strikes at Fabia from Felmonte and is thrown back by Gusso's troops.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def cmd(stake: str, *faces: list[int], pay: list[str] | None = None) -> dict[str, Any]:
    rolls = {f"cmd.{i + 1}": f for i, f in enumerate(faces)}
    return {"choices": {"stake": stake, "pay": pay or []}, "rolls": rolls}


def orders(actor: str, items: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"choices": {"actor": actor, "orders": items, **extra}}


PLANS: list[dict[str, Any]] = [
    {"turn": 0, "seed": "felmonte-setup", "note": "The houses take their seats.", "steps": {"setup": {
        "choices": {
            "leader_traits": {"fabian": ["general", "intriguer"], "marburg": ["steward", "intriguer"]},
            "leader_names": {"marburg": "Doge Andrea"},
            "statesmen": {
                "fabian": [{"id": "cesare", "name": "Cesare", "heir": True}, {"id": "orsino", "name": "Orsino"}],
                "marburg": [{"id": "lorenzo", "name": "Lorenzo"}, {"id": "bianca", "name": "Bianca"}]}},
        "rolls": {"trait.cesare.1": [1], "trait.orsino.1": [3], "trait.lorenzo.1": [2], "trait.bianca.1": [6],
                  "trait.bianca.2": [4]}}}},
    # Month 1 (summer 216): Fabian seeks passage through Gusso's lands; Marburg trades with Felmonte and
    # sends Bianca to the ducal court as a spy.
    {"turn": 1, "seed": "felmonte-1", "steps": {
        "turn_open": {"choices": {"global_event": {"key": "good_harvest", "title": "A good harvest in the League"}}},
        "command_fabian": cmd("high", [3, 4], [6, 3], pay=["power"]),
        "command_marburg": cmd("low", [4, 4]),
        "orders_fabian": orders("fabian", [
            {"id": "S1", "action": "passage", "slots": ["special"], "stake": "low", "target": "gusso",
             "leader": "orsino"},
            {"id": "S2", "action": "scouts", "slots": ["special"], "stake": "high", "target": "marburg",
             "leader": "fabian.leader"},
            {"id": "O1", "action": "intrigue_self", "slots": ["ordinary"], "stake": "low"},
            {"id": "O2", "action": "hire_troops", "slots": ["ordinary"], "params": {"units": 1}}]),
        "orders_marburg": orders("marburg", [
            {"id": "S1", "action": "trade", "slots": ["special"], "stake": "low", "target": "felmonte",
             "leader": "marburg.leader"},
            {"id": "O1", "action": "spy", "slots": ["ordinary"], "stake": "low", "target": "fabian",
             "params": {"agent": "bianca"}},
            {"id": "O2", "action": "improve_relations", "slots": ["ordinary"], "stake": "low",
             "target": "gusso"}]),
        "p1_internal": {"rolls": {"fabian.O1.1": [4, 2]}},
        "p2_espionage": {"rolls": {"fabian.S2.1": [5, 4], "marburg.O1.1": [3, 3]}},
        "p4_diplomacy": {"rolls": {"fabian.S1.1": [2, 2], "fabian.S1.2": [4, 3], "marburg.S1.1": [5, 2],
                                   "marburg.O2.1": [2, 2]}},
    }},
    # Month 2: Bianca is offered to Fabian as a candidate and hired; Fabian makes a pact with Gusso and
    # tries to buy Lorenzo.
    {"turn": 2, "seed": "felmonte-2", "steps": {
        "turn_open": {"choices": {
            "global_event": {"key": "pilgrims", "title": "Pilgrims on the Patrei road"},
            "dilemmas": [{"faction": "marburg", "id": "guild_feast", "text": "The guilds ask for a feast",
                          "options": [{"id": "fund", "text": "pay for it", "effects": [
                              {"kind": "resource", "faction": "marburg", "resource": "wealth", "delta": -1},
                              {"kind": "resource", "faction": "marburg", "resource": "piety", "delta": 1}]}]}]}},
        "command_fabian": cmd("high", [5, 5]),
        "command_marburg": cmd("low", [6, 1]),
        "orders_fabian": orders("fabian", [
            {"id": "S1", "action": "pact", "slots": ["special"], "stake": "low", "target": "gusso",
             "leader": "orsino"},
            {"id": "S2", "action": "bribery", "slots": ["special"], "stake": "high", "target": "lorenzo",
             "leader": "fabian.leader", "params": {"wealth": 2, "on_success": "spy"}},
            {"id": "O1", "action": "hire_statesman", "slots": ["ordinary"], "target": "t2.c1"}]),
        "orders_marburg": orders("marburg", [
            {"id": "S1", "action": "intrigue_foreign", "slots": ["special"], "stake": "low", "target": "fabian",
             "leader": "lorenzo"},
            {"id": "O1", "action": "dilemma", "slots": ["ordinary"], "target": "guild_feast",
             "params": {"option": "fund"}},
            {"id": "O2", "action": "hire_troops", "slots": ["ordinary"], "params": {"units": 2}}],
            dilemmas={"guild_feast": "fund"}),
        "p2_espionage": {"rolls": {"fabian.S2.1": [3, 2], "fabian.S2.2": [4, 4], "marburg.S1.1": [1, 2],
                                   "marburg.S1.2": [2, 2], "marburg.S1.3": [5, 3]}},
        "p4_diplomacy": {"rolls": {"fabian.S1.1": [3, 3]}},
    }},
    # Month 3: Fabian marches on Marburg through Gusso's lands, taking Orsino and Bianca; Marburg's doge
    # holds position. Both courts hide a rival's spy, and both spies change sides in the battle.
    {"turn": 3, "seed": "felmonte-3", "steps": {
        "turn_open": {"choices": {"global_event": {"key": "heat", "title": "A hot, dry month"}}},
        "command_fabian": cmd("high", [6, 2]),
        "command_marburg": cmd("low", [3, 3]),
        "orders_fabian": orders("fabian", [
            {"id": "S1", "action": "war", "slots": ["special"], "target": "marburg",
             "params": {"units": 9, "characters": ["orsino", "bianca"], "commander": "orsino",
                        "tactic": "breakthrough", "if_defence": "storm"}},
            {"id": "S2", "action": "improve_relations", "slots": ["special"], "stake": "low", "target": "felmonte",
             "leader": "cesare"},
            {"id": "X1", "action": "scouts", "slots": ["spy:lorenzo"], "stake": "high", "target": "marburg",
             "leader": "lorenzo"}]),
        "orders_marburg": orders("marburg", [
            {"id": "S1", "action": "military_aid", "slots": ["special"], "stake": "high", "target": "gusso",
             "leader": "marburg.leader", "params": {"against": "fabian"}},
            {"id": "O1", "action": "intrigue_self", "slots": ["ordinary"], "stake": "low"},
            {"id": "O2", "action": "hire_troops", "slots": ["ordinary"], "params": {"units": 3}}],
            standing={"response": {"response": "battle", "tactic": "hold",
                                   "characters": ["marburg.leader", "lorenzo"]}}),
        "p2_espionage": {"rolls": {"fabian.X1.1": [5, 4]}},
        "p3_war": {"choices": {"declarations": {"3.fabian.S1": {
            "1": [{"side": "defender", "character": "bianca", "option": "join", "defect": True},
                  {"side": "attacker", "character": "lorenzo", "option": "hospital", "defect": True},
                  {"side": "defender", "character": "marburg.leader", "option": "no_prisoners"}],
            "2": [{"side": "attacker", "character": "orsino", "option": "regroup"},
                  {"side": "attacker", "character": "orsino", "option": "join"}]}}},
                   "rolls": {"b3.1.r1.attacker.main": [6, 5, 4, 2, 3, 1, 5, 4, 2],
                             "b3.1.r1.attacker.main.x1": [3],
                             "b3.1.r1.defender.main": [5, 4, 6, 2, 1, 3, 4, 5],
                             "b3.1.r2.attacker.main": [6, 5, 5, 2, 1, 3, 2, 4, 1],
                             "b3.1.r2.attacker.main.x1": [2], "b3.1.r2.defender.main": [2, 3, 4]}},
        "p4_diplomacy": {"rolls": {"fabian.S2.1": [4, 2], "marburg.S1.1": [4, 3], "marburg.S1.2": [2, 1]}},
    }},
    # Month 4 (autumn): Fabian buys a military alliance from Gusso and outbids Marburg's trade with
    # Felmonte; Marburg's garrison sallies with an ambush and breaks the besiegers.
    {"turn": 4, "seed": "felmonte-4", "steps": {
        "turn_open": {"choices": {"global_event": {"key": "autumn_fever", "title": "An autumn fever in the ports"},
                                  "candidates": [{"faction": "fabian", "name": "Piero"}]}},
        "command_fabian": cmd("high", [5, 4]),
        "command_marburg": cmd("low", [4, 2]),
        "orders_fabian": orders("fabian", [
            {"id": "S1", "action": "military_alliance", "slots": ["special"], "stake": "high", "target": "gusso",
             "leader": "orsino"},
            {"id": "S2", "action": "trade", "slots": ["special"], "stake": "high", "target": "felmonte",
             "leader": "cesare"},
            {"id": "O1", "action": "intrigue_self", "slots": ["ordinary"], "stake": "low", "leader": "lorenzo"},
            {"id": "O2", "action": "hire_statesman", "slots": ["ordinary"], "target": "t4.c1"}]),
        "orders_marburg": orders("marburg", [
            {"id": "S1", "action": "sally", "slots": ["special"], "target": "marburg",
             "params": {"characters": ["marburg.leader", "bianca"], "tactic": "ambush", "reserve": 2}},
            {"id": "O1", "action": "improve_relations", "slots": ["ordinary"], "stake": "low", "target": "gusso"},
            {"id": "O2", "action": "liberties", "slots": ["ordinary"], "stake": "elementary"}]),
        "p1_internal": {"rolls": {"fabian.O1.1": [2, 6]}},
        "p3_war": {"choices": {"declarations": {"3.fabian.S1": {
            "1": [{"side": "attacker", "character": "marburg.leader", "option": "join"}],
            "2": [{"side": "attacker", "character": "bianca", "option": "join", "group": "reserve"},
                  {"side": "defender", "character": "orsino", "option": "regroup"},
                  {"side": "defender", "character": "orsino", "option": "join"}]}}},
                   "rolls": {"b4.1.r1.attacker.main": [6, 6, 5, 5, 4, 4, 2, 1],
                             "b4.1.r1.defender.main": [6, 3, 2, 2, 1, 4, 3], "b4.1.r1.defender.main.x1": [2],
                             "b4.1.r2.attacker.main": [6, 5, 4], "b4.1.r2.attacker.reserve": [3, 3, 6, 2],
                             "b4.1.r2.defender.main": [2, 2, 3, 1, 2, 4, 3]}},
        "p4_diplomacy": {"rolls": {"fabian.S1.1": [5, 3], "fabian.S2.1": [2, 3], "fabian.S2.2": [6, 4],
                                   "marburg.O1.1": [4, 1]}},
    }},
    # Month 5: Fabian rebuilds and asks Gusso to write to the cardinal; Marburg tries to buy Cesare, and the
    # duke turns the heir into a double agent.
    {"turn": 5, "seed": "felmonte-5", "steps": {
        "turn_open": {"choices": {"global_event": {"key": "grain_prices", "title": "Grain prices rise"}}},
        "command_fabian": cmd("low", [4, 3]),
        "command_marburg": cmd("high", [2, 3], [4, 4], pay=["wealth"]),
        "orders_fabian": orders("fabian", [
            {"id": "S1", "action": "legitimacy", "slots": ["special"], "stake": "high", "target": "gusso",
             "leader": "t4.c1"},
            {"id": "O1", "action": "hire_troops", "slots": ["ordinary"], "params": {"units": 3}},
            {"id": "O2", "action": "scouts", "slots": ["ordinary"], "stake": "low", "target": "marburg",
             "params": {"field": "wealth"}}]),
        "orders_marburg": orders("marburg", [
            {"id": "S1", "action": "passage", "slots": ["special"], "stake": "low", "target": "felmonte",
             "leader": "bianca"},
            {"id": "S2", "action": "bribery", "slots": ["special"], "stake": "high", "target": "cesare",
             "leader": "marburg.leader", "params": {"wealth": 3, "on_success": "spy"}},
            {"id": "O1", "action": "hire_troops", "slots": ["ordinary"], "params": {"units": 4}},
            {"id": "O2", "action": "intrigue_self", "slots": ["ordinary"], "stake": "low"}]),
        "p1_internal": {"rolls": {"marburg.O2.1": [5, 1]}},
        "p2_espionage": {"rolls": {"fabian.O2.1": [3, 3], "marburg.S2.1": [2, 2], "marburg.S2.2": [3, 1],
                                   "marburg.S2.3": [1, 2], "marburg.S2.4": [2, 3]},
                         "choices": {"double_agents": {"marburg.S2": True}}},
        "p4_diplomacy": {"rolls": {"fabian.S1.1": [5, 4], "marburg.S1.1": [4, 2]}},
    }},
    # Month 6: Luigi sells Felmonte to Marburg; Marburg's believed spy is given an order the duke does not
    # carry out; Fabian marches again with Gusso's allied troops.
    {"turn": 6, "seed": "felmonte-6", "steps": {
        "turn_open": {"choices": {"global_event": {"key": "first_frost", "title": "An early frost"}}},
        "command_fabian": cmd("low", [5, 5]),
        "command_marburg": cmd("low", [6, 4]),
        "orders_fabian": orders("fabian", [
            {"id": "S1", "action": "war", "slots": ["special"], "target": "marburg",
             "params": {"units": 6, "characters": ["orsino", "lorenzo"], "commander": "orsino",
                        "tactic": "encirclement", "if_defence": "siege"}},
            {"id": "O1", "action": "intrigue_foreign", "slots": ["ordinary"], "stake": "low", "target": "marburg",
             "leader": "fabian.leader"}]),
        "orders_marburg": orders("marburg", [
            {"id": "S1", "action": "felmonte_offer", "slots": ["special"], "stake": "elementary",
             "params": {"wealth": 5}},
            {"id": "X1", "action": "scouts", "slots": ["spy:cesare"], "stake": "high", "target": "fabian"},
            {"id": "O1", "action": "hire_troops", "slots": ["ordinary"], "params": {"units": 2}}],
            standing={"response": {"response": "battle", "tactic": "counterattack", "reserve": 2,
                                   "characters": ["marburg.leader", "bianca"]}}),
        "p2_espionage": {"rolls": {"fabian.O1.1": [2, 2]}},
        "p3_war": {"choices": {"declarations": {"6.fabian.S1": {
            "1": [{"side": "attacker", "character": "lorenzo", "option": "no_prisoners"},
                  {"side": "defender", "character": "bianca", "option": "hospital"}],
            "2": [{"side": "defender", "character": "marburg.leader", "option": "join", "group": "reserve"},
                  {"side": "attacker", "character": "orsino", "option": "epic_duel",
                   "target": "marburg.leader"}]}}}},
    }},
    # Month 7 (winter): Marburg strikes at Fabia from its new fortress of Felmonte; winter hampers the
    # attacker (+1 to every threshold).
    {"turn": 7, "seed": "felmonte-7", "steps": {
        "turn_open": {"choices": {"global_event": {"key": "snow", "title": "Snow closes the passes"}}},
        "command_fabian": cmd("low", [3, 3]),
        "command_marburg": cmd("high", [6, 5]),
        "orders_fabian": orders("fabian", [
            {"id": "S1", "action": "improve_relations", "slots": ["special"], "stake": "low", "target": "gusso",
             "leader": "t4.c1"},
            {"id": "O1", "action": "hire_troops", "slots": ["ordinary"], "params": {"units": 2}}],
            standing={"response": {"response": "battle", "tactic": "hold",
                                   "characters": ["fabian.leader", "orsino"]}}),
        "orders_marburg": orders("marburg", [
            {"id": "S1", "action": "war", "slots": ["special"], "target": "fabia",
             "params": {"units": 8, "characters": ["bianca"], "commander": "bianca", "tactic": "breakthrough",
                        "if_defence": "siege"}},
            {"id": "S2", "action": "intrigue_foreign", "slots": ["special"], "stake": "high", "target": "fabian",
             "leader": "marburg.leader"},
            {"id": "O1", "action": "donation", "slots": ["ordinary"], "stake": "elementary",
             "params": {"piety": 1}}]),
        "p3_war": {"choices": {"declarations": {"7.marburg.S1": {
            "1": [{"side": "defender", "character": "fabian.leader", "option": "join"}],
            "2": [{"side": "defender", "character": "orsino", "option": "regroup"},
                  {"side": "defender", "character": "orsino", "option": "no_prisoners"}]}}}},
    }},
]


def main() -> None:
    for p in PLANS:
        (HERE / "plans" / f"turn-{p['turn']:02d}.json").write_text(json.dumps(p, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {len(PLANS)} plans")


if __name__ == "__main__":
    main()
