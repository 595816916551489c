"""Armies and war (Appendix 3: Warfare; data/armies.toml): army records from the army tables, Recruit Army,
the Army activities in their own step, Consumption per army, armies levelling with the kingdom, war and its
Unrest, a battle worked by hand, and the abstract warfare option."""

from __future__ import annotations

from typing import Any

import pytest

from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.state import Army, Hex, KingdomState, consumption
from kingdomlog.rulesets.pf2e.warfare import army_numbers, new_army

from .helpers import Game, events_of, step_state


def _army(defn: str, aid: str, level: int = 1, **upd: Any) -> Army:
    a = new_army(T.army_defs()[defn], level, aid, side=upd.pop("side", "kingdom"), hex_id=upd.pop("hex", "H0"))
    return Army(**{**a.model_dump(), "tactics": tuple(a.tactics), **upd})


def _with_armies(g: Game, *armies: Army) -> Game:
    g.state = g.state.model_copy(update={"army_units": (*g.state.army_units, *armies)})
    return g


def test_army_statistics_from_the_tables() -> None:
    """Infantry at level 1: AC 16, Morale (its high save) 10, Maneuver 4, Scouting 7, attack +9, HP 4, RT 2,
    Recruitment DC 15. Skirmishers at 5: AC 22 - 2 = 20, Maneuver 15 + 2 = 17, Morale 9 + 2 = 11. Siege engines at
    7: ranged attack 18 - 3 = 15. The Tatzlford Town Guard's stat block (HP 5) already holds its Toughened Soldiers
    (infantry 4 + 1); a second one trained makes it 6, and Hold the Line keeps the Rout Threshold a quarter of
    the HP (6 -> 2)."""
    inf = army_numbers(T.army_defs()["infantry"], 1)
    assert (inf["ac"], inf["morale"], inf["maneuver"], inf["scouting"], inf["attack"], inf["hp"],
            inf["rout_threshold"], inf["recruitment_dc"]) == (16, 10, 4, 7, 9, 4, 2, 15)
    sk = army_numbers(T.army_defs()["skirmishers"], 5)
    assert (sk["ac"], sk["maneuver"], sk["morale"]) == (20, 17, 11)
    assert army_numbers(T.army_defs()["siege-engines"], 7)["attack"] == 15
    town = army_numbers(T.army_defs()["tatzlford-town-guard"], 7, ["hold-the-line", "toughened-soldiers"])
    assert (town["hp"], town["rout_threshold"]) == (5, 2)
    town = army_numbers(T.army_defs()["tatzlford-town-guard"], 7,
                        ["hold-the-line", "toughened-soldiers", "toughened-soldiers"])
    assert (town["hp"], town["rout_threshold"]) == (6, 2)


@pytest.mark.parametrize(("die", "degree", "recruited", "efficient"), [
    (20, "critical_success", True, True), (16, "success", True, False), (5, "failure", False, False)])
def test_recruit_army(die: int, degree: str, recruited: bool, efficient: bool) -> None:
    """Recruit Army (Infantry: Warfare, Recruitment DC 15). Warfare trained +3, Loyalty +2, invested +1, Unrest 2
    -1, the vacant Magister's -4 on warfare activities (§5.11) = +1: d20 16 -> 17 success; 20 (natural) critical
    success (efficient); 5 -> 6 failure."""
    g = Game().found()
    g.state = g.state.model_copy(update={"skills": {**g.state.skills, "warfare": "trained"}})
    pv = g.play({"activity.leadership": {"choices": {"activities": [
        {"activity": "recruit-army", "role": "general", "army_type": "infantry", "army_id": "militia",
         "army_name": "Oakhold Militia"}]}, "rolls": {"a1": [die]}}})
    chk = next(e for e in events_of(pv, "activity.leadership") if isinstance(e, E.CheckResolved))
    assert (chk.skill, chk.dc, chk.degree) == ("warfare", 15, degree)
    s = step_state(pv, "activity.leadership")
    assert (len(s.army_units) == 1) == recruited
    if recruited:
        a = s.army_units[0]
        assert (a.id, a.name, a.level, a.hp, a.consumption) == ("militia", "Oakhold Militia", 1, 4, 1)
        assert ("efficient" in a.conditions) == efficient


def test_a_cavalry_needs_kingdom_level_3() -> None:
    g = Game().found()
    pv = g.play({"activity.leadership": {"choices": {"activities": [
        {"activity": "recruit-army", "role": "general", "army_type": "cavalry"}]}}}, check=False)
    assert not pv.ok and "Cavalry can be recruited from kingdom level 3" in str(pv.error)


def test_each_army_costs_its_consumption() -> None:
    """§2.11.8: a village (1) + Infantry (1) + Cavalry (2) = 4; a garrisoned critical success lowers an army's
    Consumption by 2, never below 1; an enemy army costs the kingdom nothing."""
    s = Game().found().state
    s = s.model_copy(update={"army_units": (_army("infantry", "a"), _army("cavalry", "b", 3),
                                            _army("infantry", "x", side="enemy"))})
    assert consumption(s).total == 4
    s2 = s.model_copy(update={"army_units": (_army("cavalry", "b", 3, garrison_consumption=2),)})
    assert consumption(s2).total == 1 + 1


def _army_turn(g: Game, row: dict[str, Any], die: int, more: dict[str, list[int]] | None = None) -> Any:
    return g.play({"activity.army": {"choices": {"activities": [row]}, "rolls": {"a1": [die], **(more or {})}}},
                  check=False)


def _fresh() -> Game:
    g = Game().found()
    hexes = (*g.state.hexes, Hex(id="H1", terrain="forest", q=1, r=0))
    g.state = g.state.model_copy(update={"hexes": hexes, "pending": g.state.pending.model_copy(update={"rp": 40}),
                                         "skills": {**g.state.skills, "exploration": "trained",
                                                    "politics": "trained", "warfare": "trained",
                                                    "scholarship": "trained", "magic": "expert"}})
    return _with_armies(g, _army("infantry", "militia"))


def test_deploy_army_moves_it_and_weary_doubles_its_penalty() -> None:
    """Deploy Army (Exploration vs Control DC 14) to H1: success moves it. Weary 1 counts twice on Deploy (-2)."""
    g = _fresh()
    g.state = g.state.model_copy(update={"army_units": (_army("infantry", "militia", conditions={"weary": 1}),)})
    pv = _army_turn(g, {"activity": "deploy", "army": "militia", "hex": "H1", "skill": "exploration"}, 15)
    assert pv.ok, pv.error
    chk = next(e for e in events_of(pv, "activity.army") if isinstance(e, E.CheckResolved))
    assert ("Infantry weary 1", -2, "circumstance") in [
        (t.label, t.value, t.kind) for t in chk.terms]
    assert step_state(pv, "activity.army").army_units[0].hex == "H1"


def test_an_army_takes_one_army_activity_unless_efficient() -> None:
    g = _fresh()
    pv = g.play({"activity.army": {"choices": {"activities": [
        {"activity": "deploy", "army": "militia", "hex": "H1", "skill": "exploration"},
        {"activity": "deploy", "army": "militia", "hex": "H0", "skill": "exploration"}]},
        "rolls": {"a1": [12], "a2": [12]}}}, check=False)
    assert not pv.ok and "has taken its Army activity this turn" in str(pv.error)
    g2 = _fresh()
    pv2 = g2.play({"activity.army": {"choices": {"activities": [
        {"activity": "deploy", "army": "militia", "hex": "H1", "skill": "exploration"},
        {"activity": "deploy", "army": "militia", "hex": "H0", "skill": "exploration"}]},
        "rolls": {"a1": [20], "a2": [15]}}})
    second = [e for e in events_of(pv2, "activity.army") if isinstance(e, E.CheckResolved)][1]
    assert ("efficient: second Army activity", -5, "untyped") in [(t.label, t.value, t.kind) for t in second.terms]


def test_garrison_in_a_settlement_uses_politics_and_fortifies() -> None:
    """Garrison Army in Oakhold's hex (a settlement: Politics); a critical success fortifies it and lowers its
    Consumption by 2 (to at least 1) until it deploys."""
    g = _fresh()
    pv = _army_turn(g, {"activity": "garrison", "army": "militia"}, 20)
    assert pv.ok, pv.error
    chk = next(e for e in events_of(pv, "activity.army") if isinstance(e, E.CheckResolved))
    assert chk.skill == "politics"
    a = step_state(pv, "activity.army").army_units[0]
    assert "fortified" in a.conditions and a.upkeep == 1


def test_train_army_learns_a_tactic_against_its_training_dc() -> None:
    """Train Army (Keen Eyed, level 1: standard DC 15): a success adds it; Infantry at level 1 holds one tactic."""
    g = _fresh()
    pv = _army_turn(g, {"activity": "train", "army": "militia", "tactic": "keen-eyed", "skill": "warfare"}, 16)
    chk = next(e for e in events_of(pv, "activity.army") if isinstance(e, E.CheckResolved))
    assert chk.dc == 15
    assert step_state(pv, "activity.army").army_units[0].tactics == ("keen-eyed",)


def test_outfit_army_buys_gear_for_its_rp_price() -> None:
    """Outfit Army: Magic Weapons +1 (melee) cost 20 RP (Trade; Magic expert); the army holds it."""
    g = _fresh()
    g.state = g.state.model_copy(update={"level": 2, "max_level": 2,
                                         "army_units": (_army("infantry", "militia", 2),)})
    pv = _army_turn(g, {"activity": "outfit", "army": "militia", "gear": "magic-weapons-melee-1"}, 15)
    assert pv.ok, pv.error
    paid = [e.delta for e in events_of(pv, "activity.army") if isinstance(e, E.RPChanged)]
    assert paid == [-20]
    assert step_state(pv, "activity.army").army_units[0].gear == {"magic-weapons-melee-1": 1}


def test_recover_army_lowers_a_condition() -> None:
    g = _fresh()
    g.state = g.state.model_copy(update={"army_units": (_army("infantry", "militia", conditions={"shaken": 3}),)})
    pv = _army_turn(g, {"activity": "recover", "army": "militia", "condition": "shaken", "skill": "arts"}, 20)
    assert step_state(pv, "activity.army").army_units[0].conditions.get("shaken") == 1


def test_armies_level_with_the_kingdom() -> None:
    """At the kingdom's level up, each kingdom army takes the next level's statistics (Infantry 1 -> 2: AC 18,
    attack 11, Morale 11)."""
    g = Game().found(resume={"turn": 1, "xp": 1000})
    g.state = g.state.model_copy(update={"max_level": 2, "army_units": (_army("infantry", "militia"),)})
    pv = g.play({"event.level": {"choices": {"feat": ""}}})
    a = step_state(pv, "event.level").army_units[0]
    assert (a.level, a.ac, a.attack, a.morale) == (2, 18, 11, 11)


def test_war_is_declared_and_costs_unrest_each_turn() -> None:
    """§2.9: at war, +1 Unrest at U2 every turn; peace ends it."""
    g = Game().found()
    pv = g.play({"upkeep.leadership": {"choices": {"declare_war": ["pitax"]}}})
    s = step_state(pv, "upkeep.leadership")
    assert s.enemies == ("pitax",) and s.at_war
    u = [e for e in events_of(pv, "upkeep.unrest") if isinstance(e, E.UnrestChanged)]
    assert [(x.delta, x.cause) for x in u] == [(1, "at war")]
    pv2 = g.play({"upkeep.leadership": {"choices": {"end_war": ["pitax"]}}})
    assert not step_state(pv2, "upkeep.leadership").at_war


def test_option_warfare_mode_abstract() -> None:
    """Appendix 3's abstract warfare: at the start of a turn after warfare, +1d6 Unrest (4) and a Ruin +1; with
    battles (default) the choice is refused."""
    g = Game(options={"warfare_mode": "abstract"}).found()
    pv = g.play({"upkeep.unrest": {"choices": {"warfare_last_turn": True}, "rolls": {"warfare": [4]}}})
    ev = events_of(pv, "upkeep.unrest")
    assert [e.delta for e in ev if isinstance(e, E.UnrestChanged)] == [4]
    assert sum(1 for e in ev if isinstance(e, E.RuinChanged)) == 1
    bad = Game().found().play({"upkeep.unrest": {"choices": {"warfare_last_turn": True}}}, check=False)
    assert not bad.ok


def test_enemy_armies_enter_hidden_and_are_revealed() -> None:
    g = Game().found()
    pv = g.play({"upkeep.leadership": {"choices": {"enemy_armies": [
        {"id": "raiders", "army": "infantry", "name": "Stag Lord Raiders", "hex": "H0"}]}}})
    a = step_state(pv, "upkeep.leadership").army_units[0]
    assert (a.side, a.revealed) == ("enemy", False)
    pv2 = g.play({"upkeep.leadership": {"choices": {"reveal_armies": ["raiders"]}}})
    assert step_state(pv2, "upkeep.leadership").army_units[0].revealed


# ------------------------------------------------------------------ a battle worked by hand


def test_a_battle_worked_by_hand() -> None:
    """Two level-1 Infantry armies (AC 16, Maneuver +4 / DC 14, Morale +10 / DC 20, attack +9, HP 4, RT 2).

    Initiative (Scouting +7): militia d20 12 -> 19, raiders 5 -> 12: the militia acts first.
    Round 1, militia: Advance +4 vs DC 14, d20 15 -> 19: success, engaged. Battle +9 vs AC 16, d20 12 -> 21
    (< 26): success, 1 damage (raiders 3; DC 11 flat 15: not shaken). Battle at -5 (+4), d20 18 -> 22: success,
    1 damage (raiders 2; flat 3: shaken 1).
    Round 1, raiders: Battle +9, d20 2 -> 11: failure; Battle +4, d20 10 -> 14: failure; Guard +4 vs DC 14,
    d20 9 -> 13: failure.
    Rout checks: raiders HP 2 <= RT 2: Morale 10 - shaken 1 = +9 vs the militia's Morale DC 20, d20 8 -> 17:
    failure, shaken 2.
    Round 2, militia: Battle +9, d20 17 -> 26 >= 26: critical success, 2 damage: raiders 1 (flat 4: shaken 3),
    then 0: defeated. Every raider army defeated: the militia wins; a side all defeated is destroyed.
    """
    g = Game().found()
    g = _with_armies(g, _army("infantry", "militia"), _army("infantry", "raiders", side="enemy"))
    orders = [
        [{"army": "militia", "action": "advance", "target": "raiders"},
         {"army": "militia", "action": "battle", "target": "raiders"},
         {"army": "militia", "action": "battle", "target": "raiders"},
         {"army": "raiders", "action": "battle", "target": "militia"},
         {"army": "raiders", "action": "battle", "target": "militia"},
         {"army": "raiders", "action": "guard", "target": "militia"}],
        [{"army": "militia", "action": "battle", "target": "raiders"}],
    ]
    rolls = {"b1.init.militia": [12], "b1.init.raiders": [5],
             "b1.r1.militia.1": [15], "b1.r1.militia.2": [12], "b1.r1.militia.2.s0": [15],
             "b1.r1.militia.3": [18], "b1.r1.militia.3.s0": [3],
             "b1.r1.raiders.1": [2], "b1.r1.raiders.2": [10], "b1.r1.raiders.3": [9],
             "b1.r1.rout.raiders": [8],
             "b1.r2.militia.1": [17], "b1.r2.militia.1.s0": [4]}
    pv = g.play({"activity.battle": {"choices": {"battles": [
        {"id": "fort", "hex": "H0", "kingdom": ["militia"], "enemy": ["raiders"], "rounds": orders}]},
        "rolls": rolls}})
    ev = events_of(pv, "activity.battle")
    acts = [(e.army, e.action, e.die, e.total, e.degree) for e in ev if isinstance(e, E.WarActionTaken)]
    assert acts == [
        ("militia", "initiative", 12, 19, None), ("raiders", "initiative", 5, 12, None),
        ("militia", "advance", 15, 19, "success"), ("militia", "battle", 12, 21, "success"),
        ("raiders", "flat", 15, 15, "success"), ("militia", "battle", 18, 22, "success"),
        ("raiders", "flat", 3, 3, "failure"),
        ("raiders", "battle", 2, 11, "failure"), ("raiders", "battle", 10, 14, "failure"),
        ("raiders", "guard", 9, 13, "failure"),
        ("raiders", "rout", 8, 17, "failure"),
        ("militia", "battle", 17, 26, "critical_success"), ("raiders", "flat", 4, 4, "failure"),
    ]
    end = next(e for e in ev if isinstance(e, E.BattleEnded))
    assert (end.winner, end.rounds, end.defeated) == ("kingdom", 2, ["raiders"])
    s: KingdomState = step_state(pv, "activity.battle")
    assert [a.id for a in s.army_units] == ["militia"]  # the defeated side is destroyed
    assert s.army_units[0].hp == 4


def test_a_battle_must_end_or_be_stopped_by_the_gm() -> None:
    g = _with_armies(Game().found(), _army("infantry", "militia"), _army("infantry", "raiders", side="enemy"))
    row = {"kingdom": ["militia"], "enemy": ["raiders"], "rounds": [[]]}
    pv = g.play({"activity.battle": {"choices": {"battles": [row]}}}, check=False)
    assert not pv.ok and "the battle is not over" in str(pv.error)
    g2 = _with_armies(Game().found(), _army("infantry", "militia"), _army("infantry", "raiders", side="enemy"))
    pv2 = g2.play({"activity.battle": {"choices": {"battles": [{**row, "unfinished": True}]}}})
    assert next(e for e in events_of(pv2, "activity.battle") if isinstance(e, E.BattleEnded)).winner == "none"
