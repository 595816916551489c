"""Mass combat (UC Kingdoms and War, Mass Combat): armies from their units, resources, commanders, upkeep, and a
battle worked by hand round by round; illegal army actions refused naming the rule."""

from __future__ import annotations

from typing import Any

import pytest
from pf1.kit import kingdom, step

from kingdomlog.core.errors import InputError, RuleError
from kingdomlog.rulesets.pf1 import derive as dv
from kingdomlog.rulesets.pf1 import events as ev

MILITIA = {"name": "Guard", "size": "Large", "unit": "humans (fighter 2)", "unit_cr": "1", "hd": 10,
           "commander": {"name": "Amiri", "cha": 2, "ranks": 5, "level": 5}}
ORCS = {"name": "Orcs", "size": "Medium", "unit": "orcs (fighter 3)", "unit_cr": "2", "hd": 10, "side": "enemy"}


def armed(extra: Any = (), **kw: Any) -> Any:
    """Size 3, our Large army of fighters (ACR 3: hp 16, OM +3, DV 13) and an orc army (ACR 2: hp 11, OM +2,
    DV 12) placed by the GM."""
    s = kingdom(3, treasury=100, extra=extra, **kw)
    s = s.model_copy(update={"counters": s.counters.model_copy(update={"districts": 0})})
    s, _ = step(s, "improvement", {"armies": [MILITIA]})
    s, _ = step(s.model_copy(update={"phase": "TURN_ENDED"}), "gm", {"enemy_armies": [ORCS]})
    return s.model_copy(update={"phase": "IMPROVEMENT"})


def test_army_statistics_from_units() -> None:
    """UC Army Statistics: Large fighters 2 (CR 1 + 2 steps) ACR 3, hp 3 × 5.5 = 16, OM +3, DV 13, Consumption 1;
    Medium orcs CR 2: ACR 2, hp 11, DV 12."""
    s = armed()
    a, o = s.armies["A1"], s.armies["A2"]
    assert (a.acr, a.hp, a.om, a.dv, a.consumption, a.side) == ("3", 16, 3, 13, 1, "kingdom")
    assert (o.acr, o.hp, o.om, o.dv, o.side) == ("2", 11, 2, 12, "enemy")
    assert a.commander is not None and a.commander.leadership == 7


def test_a_battle_worked_by_hand_round_by_round() -> None:
    """Melee 1: ours Aggressive (OM 3 + 2 = 5, DV 13 − 2 = 11); d20 14 → 19 vs DV 12: 7 + 3 (Aggressive) = 10,
    orcs 11 → 1 hp. Orcs d20 12 + 2 = 14 vs DV 11: 3, ours 16 → 13. Orcs at 1 ≤ ACR 2: Morale check DC 15,
    d20 9 + 0 fails: they rout. Parting shot d20 10 + 5 = 15 vs 12: 3, orcs 0 hp: defeated.
    Victory: Loyalty check natural 20 (Defensive Wall learned, Morale +1), second natural 1 (no boon)."""
    s = armed()
    battle = {"ours": "A1", "enemy": "A2", "rounds": [{"ours_strategy": "Aggressive"}],
              "learn_tactic": "Defensive Wall", "learn_boon": "Loyalty"}
    rolls = {"w1_r1_ours": [14], "w1_r1_enemy": [12], "w1_r1_enemy_rout": [9], "w1_parting": [10],
             "w1_victory_1": [20], "w1_victory_2": [1]}
    s2, ps = step(s, "war", {"battles": [battle]}, rolls=rolls)
    phases = [p for p in ps if isinstance(p, ev.BattlePhaseResolved)]
    assert [p.kind for p in phases] == ["melee", "parting_shot"]
    us, them = phases[0].sides
    assert (us.om, us.dv, us.strategy) == (5, 11, "Aggressive") and (them.om, them.dv) == (2, 12)
    assert us.offense is not None and (us.offense.total, us.offense.damage) == (19, 10)
    assert them.offense is not None and (them.offense.total, them.offense.damage) == (14, 3)
    assert (us.hp_after, them.hp_after, them.status) == (13, 1, "routed")
    assert them.morale_checks[0].d20 == 9 and not them.morale_checks[0].success
    shot = phases[1].sides[0].offense
    assert shot is not None and (shot.total, shot.damage) == (15, 3) and phases[1].sides[1].hp_after == 0
    end = next(p for p in ps if isinstance(p, ev.BattleEnded))
    ours, orcs = end.outcomes
    assert (ours.result, ours.tactic_learned, ours.morale_delta, ours.boon_learned) == ("victorious",
                                                                                       "Defensive Wall", 1, None)
    assert orcs.result == "defeated" and end.kingdom_losses == {}
    a = s2.armies["A1"]
    assert (a.hp, a.morale, a.tactics, a.wins) == (13, 1, ("Defensive Wall",), 1)
    assert s2.armies["A2"].status == "defeated" and s2.battles == 1


def test_our_defeat_costs_the_kingdom_by_army_size_and_the_commander_may_be_captured() -> None:
    """A Large army defeated: Economy −3, Loyalty −2, Stability −2 (UC Defeated table); its NPC commander, d100 50:
    captured (21-70)."""
    s = armed()
    s = s.model_copy(update={"armies": {**s.armies, "A1": s.armies["A1"].model_copy(update={"hp": 2})}})
    e0 = int(dv.attribute(s, "ECONOMY").total)
    rolls = {"w1_r1_ours": [2], "w1_r1_enemy": [20], "w1_fate": [50]}
    s2, ps = step(s, "war", {"battles": [{"ours": "A1", "enemy": "A2"}]}, rolls=rolls)
    end = next(p for p in ps if isinstance(p, ev.BattleEnded))
    assert end.outcomes[0].result == "defeated" and end.outcomes[0].commander_fate == "captured"
    assert end.kingdom_losses == {"ECONOMY": -3, "LOYALTY": -2, "STABILITY": -2}
    assert int(dv.attribute(s2, "ECONOMY").total) == e0 - 3 and s2.armies["A1"].commander is None


def test_a_routed_army_refuses_battle_until_a_loyalty_check_rallies_it() -> None:
    s = armed()
    s = s.model_copy(update={"armies": {**s.armies, "A1": s.armies["A1"].model_copy(update={"status": "routed"})}})
    with pytest.raises(RuleError, match=r"routed and refuses to fight.*Routed"):
        step(s, "war", {"battles": [{"ours": "A1", "enemy": "A2"}]})
    s2, ps = step(s.model_copy(update={"phase": "GM"}), "upkeep", rolls={"stability": [10], "rally_A1": [20]})
    assert any(isinstance(p, ev.ArmyRallyCheckRolled) and p.check.success for p in ps)
    assert s2.armies["A1"].status == "active"


def test_upkeep_pays_weekly_consumption_or_costs_morale() -> None:
    """Army Consumption 1 a week × 4 weeks (option army_weeks_per_turn) = 4 BP; unpaid: Morale −2."""
    s = armed().model_copy(update={"phase": "GM"})
    _s2, ps = step(s, "upkeep", rolls={"stability": [10]})
    up = next(p for p in ps if isinstance(p, ev.ArmyUpkeepPaid))
    assert (up.total, up.paid, up.weeks) == (4, True, 4)
    poor = s.model_copy(update={"treasury": 3})
    s3, _ = step(poor, "upkeep", rolls={"stability": [10]})
    assert s3.armies["A1"].morale == -2 and s3.armies["A1"].unpaid


def test_raising_an_army_takes_the_months_new_settlement() -> None:
    """Size 3: one new settlement a month; an army takes it (UC Improvement Edicts note 1)."""
    s = kingdom(3, treasury=100)
    with pytest.raises(RuleError, match="in place of a new settlement"):
        step(s, "improvement", {"armies": [MILITIA, {**MILITIA, "name": "Second"}]})
    with pytest.raises(RuleError, match="below ACR 1/8"):
        step(s, "improvement", {"armies": [{"name": "Rats", "size": "Fine", "unit_cr": "1/8"}]})


def test_resources_need_their_buildings_and_scale_with_size() -> None:
    """Improved Armor needs a Smithy (or Foreign Quarter, Military Academy); for a Large army 3 × 2 = 6 BP, DV +1,
    Consumption +2 a week."""
    s = armed()
    s = s.model_copy(update={"counters": s.counters.model_copy(update={"districts": 0})})
    with pytest.raises(RuleError, match="needs a settlement with one of Foreign Quarter, Military Academy, Smithy"):
        step(s, "improvement", {"army_actions": [{"army": "A1", "action": "equip", "resource": "Improved Armor"}]})
    smith = [ev.CityFounded(city="C1", name="Forge", hex="H0", capital=True),
             ev.DistrictPreparationStarted(city="C1", district="D1", hex="H0", terrain="GRASSLAND", cost_bp=0,
                                           months=0, ready_on_turn=1), ev.DistrictReady(district="D1"),
             ev.BuildingConstructed(building="B1", city="C1", district="D1", building_type="Smithy", lots=(0,),
                                    base_cost_bp=0, cost_bp=0, unrest_delta=0)]
    s = armed(extra=smith)
    s = s.model_copy(update={"counters": s.counters.model_copy(update={"districts": 0})})
    s2, ps = step(s, "improvement", {"army_actions": [{"army": "A1", "action": "equip",
                                                       "resource": "Improved Armor"}]})
    eq = ps[-1]
    assert isinstance(eq, ev.ArmyEquipped) and (eq.cost_bp, eq.dv_delta, eq.consumption_delta) == (6, 1, 2)
    assert s2.armies["A1"].dv == 14 and s2.armies["A1"].consumption == 3


def test_illegal_orders_are_refused_naming_the_rule() -> None:
    s = armed()
    with pytest.raises(RuleError, match=r"does not know Relentless Brutality.*Army Tactics"):
        step(s, "war", {"battles": [{"ours": "A1", "enemy": "A2", "ours_tactic": "Relentless Brutality"}]})
    with pytest.raises(RuleError, match="Sniper Support needs ranged attacks"):
        step(kingdom(3), "improvement", {"armies": [{**MILITIA, "tactics": ["Sniper Support"]}]})
    with pytest.raises(RuleError, match="knows 1 tactic"):
        step(kingdom(3), "improvement", {"armies": [{**MILITIA, "tactics": ["Defensive Wall", "Full Defense"]}]})
    with pytest.raises(RuleError, match="Defensive Tactics needs Leadership 5"):
        step(kingdom(3), "improvement", {"armies": [{**MILITIA, "commander": {"name": "Pip", "level": 1,
                                                                              "boons": ["Defensive Tactics"]}}]})
    with pytest.raises(InputError, match="fights once in a battle"):
        step(s, "war", {"battles": [{"ours": "A1", "enemy": "A1"}]})



def test_an_ambush_denies_the_target_its_tactic() -> None:
    """Ambush: Offense d20 15 + 3 = 18 ≥ DV 12: the orcs fight with the standard tactic (UC Ambush)."""
    s = armed()
    rolls = {"w1_ambush": [15], "w1_r1_ours": [1], "w1_r1_enemy": [1], "w1_r2_ours": [1], "w1_r2_enemy": [1]}
    _, ps = step(s, "war", {"battles": [{"ours": "A1", "enemy": "A2", "ambush": "ours", "enemy_tactic": "Withdraw",
                                         "max_rounds": 2}]}, rolls=rolls)
    phases = [p for p in ps if isinstance(p, ev.BattlePhaseResolved)]
    assert phases[0].kind == "tactics" and phases[1].sides[1].tactic == "Standard"
    end = next(p for p in ps if isinstance(p, ev.BattleEnded))
    assert [o.result for o in end.outcomes] == ["undecided", "undecided"]


def test_a_month_at_rest_heals_an_army_fully() -> None:
    """UC Recovery: an army that fought last month is back to full hit points at this month's Upkeep; one that
    fought this month is not."""
    s = armed()
    hurt = s.armies["A1"].model_copy(update={"hp": 4, "last_battle": s.turn - 1})
    s2, ps = step(s.model_copy(update={"phase": "GM", "armies": {**s.armies, "A1": hurt}}), "upkeep",
                  rolls={"stability": [10]})
    assert s2.armies["A1"].hp == 16 and any(isinstance(p, ev.ArmyChanged) and p.hp == 16 for p in ps)
    fresh = hurt.model_copy(update={"last_battle": s.turn})
    s3, _ = step(s.model_copy(update={"phase": "GM", "armies": {**s.armies, "A1": fresh}}), "upkeep",
                 rolls={"stability": [10]})
    assert s3.armies["A1"].hp == 4


def test_reform_split_and_combine() -> None:
    """UC optional rules. Reform: the Large Guard at 8/16 hp → Medium (ACR 1: hp 5 of 5, OM +1, DV 11), Morale −1.
    Split: the Large Guard at 16/16 → two Medium armies at 5/5, Morale −1 each. Combine: two Medium armies at 5/5
    and 2/5 (70%) → Large, hp floor(16 × 7/10) = 11, Morale averaged."""
    s = armed()
    hurt = s.model_copy(update={"armies": {**s.armies, "A1": s.armies["A1"].model_copy(update={"hp": 8})}})
    s1, _ = step(hurt, "improvement", {"army_actions": [{"army": "A1", "action": "reform"}]})
    a = s1.armies["A1"]
    assert (a.size, a.acr, a.hp, a.max_hp, a.om, a.dv, a.morale) == ("Medium", "1", 5, 5, 1, 11, -1)
    with pytest.raises(RuleError, match="half its hit points or fewer"):
        step(s, "improvement", {"army_actions": [{"army": "A1", "action": "reform"}]})
    s2, _ = step(s, "improvement", {"army_actions": [{"army": "A1", "action": "split", "name": "Second Guard"}]})
    one, two = s2.armies["A1"], s2.armies["A3"]
    assert (one.size, one.hp, two.size, two.hp, two.name, two.morale) == ("Medium", 5, "Medium", 5,
                                                                          "Second Guard", -1)
    worn = s2.model_copy(update={"armies": {**s2.armies, "A3": two.model_copy(update={"hp": 2, "morale": -3})}})
    s3, _ = step(worn, "improvement", {"army_actions": [{"army": "A1", "action": "combine", "other": "A3"}]})
    c = s3.armies["A1"]
    assert (c.size, c.max_hp, c.hp, c.morale) == ("Large", 16, 11, -2) and "A3" not in s3.armies


def test_more_than_two_armies() -> None:
    """UC More Than Two Armies: the Guard and the Militia (Medium warriors, CR 1/3: ACR 1/3, hp 1, OM 0, DV 10)
    against the orcs. Melee 1: the Guard 15 + 3 = 18 vs DV 12: 6 → orcs 5; the Militia 12 + 0 vs 12: nothing;
    the orcs attack the Guard (the first still fighting): 5 + 2 = 7 vs 13, nothing. Melee 2: the Guard 14 + 3 vs
    12: 5 → the orcs are beaten (0 hp); both our armies victorious."""
    s = armed()
    s, _ = step(s.model_copy(update={"counters": s.counters.model_copy(update={"districts": 0})}), "improvement",
                {"armies": [{"name": "Militia", "unit_cr": "1/3", "hd": 10}]})
    assert s.armies["A3"].hp == 1 and s.armies["A3"].om == 0
    rolls = {"w1_r1_ours": [15], "w1_r1_A3": [12], "w1_r1_enemy": [5], "w1_r2_ours": [14], "w1_r2_A3": [3],
             "w1_r2_enemy": [5], "w1_victory_1": [2], "w1_victory_2": [2], "w1_A3_victory_1": [2],
             "w1_A3_victory_2": [2]}
    s2, ps = step(s, "war", {"battles": [{"ours": "A1", "allies": ["A3"], "enemy": "A2"}]}, rolls=rolls)
    phases = [p for p in ps if isinstance(p, ev.BattlePhaseResolved)]
    first = {x.army: x for x in phases[0].sides}
    assert first["A1"].offense.damage == 6 and first["A3"].offense.damage == 0  # type: ignore[union-attr]
    assert first["A2"].target == "A1" and first["A2"].offense.damage == 0  # type: ignore[union-attr]
    assert {x.army: x.hp_after for x in phases[1].sides}["A2"] == 0
    end = next(p for p in ps if isinstance(p, ev.BattleEnded))
    assert {o.army: o.result for o in end.outcomes} == {"A1": "victorious", "A2": "defeated", "A3": "victorious"}
    assert s2.armies["A2"].status == "defeated"


def test_live_off_the_land_halves_an_armys_consumption() -> None:
    """UC Live off the Land: the boon halves the month's Consumption (1 × 4 weeks → 2); without it, refused."""
    s = kingdom(3, treasury=100)
    s = s.model_copy(update={"counters": s.counters.model_copy(update={"districts": 0})})
    s, _ = step(s, "improvement", {"armies": [{**MILITIA, "commander": {
        "name": "Ekundayo", "level": 6, "boons": ["Live off the Land"]}}]})
    _s2, ps = step(s.model_copy(update={"turn": 2, "phase": "GM"}), "upkeep", {"live_off_the_land": ["A1"]},
                  rolls={"stability": [10]})
    up = next(p for p in ps if isinstance(p, ev.ArmyUpkeepPaid))
    assert up.per_army == {"A1": 2} and up.foraging == ("A1",)
    plain = armed().model_copy(update={"phase": "GM"})
    with pytest.raises(RuleError, match="does not know Live off the Land"):
        step(plain, "upkeep", {"live_off_the_land": ["A1"]}, rolls={"stability": [10]})
