"""War encounters by the rules text (Kingmaker Appendix 3: Warfare; AoN 1869), issue 30: condition penalties of
one type take the worst, each Strike uses its own modifier, conditions end when the rules say, and the
tactical war actions, tactics and unique tactics apply to the numbers they name.

Every expected number is worked out in the test's docstring from the army statistics (data/armies.toml, the
published table) and the rule quoted. Rolls are typed by key: ``b1.init.<army>`` initiative, ``b1.r<round>.
<army>.<n>`` the n-th war action of that army in the round, ``.s<i>`` the DC 11 flat check after a damage.
"""

from __future__ import annotations

from typing import Any

from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.state import Army, KingdomState
from kingdomlog.rulesets.pf2e.warfare import new_army, strike_modifiers

from .helpers import Game, events_of, step_state


def army(defn: str, aid: str, level: int = 1, side: str = "kingdom", **upd: Any) -> Army:
    a = new_army(T.army_defs()[defn], level, aid, side=side, hex_id="H0")
    return Army(**{**a.model_dump(), "tactics": tuple(a.tactics), **upd})


LAST: dict[str, Any] = {}


def fight(armies: list[Army], rounds: list[list[dict[str, Any]]], rolls: dict[str, list[int]],
          options: dict[str, Any] | None = None, **row: Any) -> tuple[list[Any], KingdomState]:
    """One battle of ``armies`` (kingdom side first, then enemy) from ``rounds`` of orders; it may stay
    unfinished (the GM stops it) so a test looks at one number."""
    g = Game(options=options).found()
    g.state = g.state.model_copy(update={"army_units": tuple(armies)})
    battle = {"id": "b", "hex": "H0", "kingdom": [a.id for a in armies if a.side == "kingdom"],
              "enemy": [a.id for a in armies if a.side == "enemy"], "rounds": rounds, "unfinished": True, **row}
    pv = g.play({"activity.battle": {"choices": {"battles": [battle]}, "rolls": rolls}})
    LAST["breakdowns"] = next(s.breakdown for s in pv.steps if s.phase.id == "activity.battle")
    return events_of(pv, "activity.battle"), step_state(pv, "activity.battle")


def terms(title: str) -> list[tuple[str, int, str]]:
    """The terms that counted in the last battle's check named ``title`` (its breakdown beside the step)."""
    bd = next(b for b in LAST["breakdowns"] if b.name.endswith(title))
    return [(t.label, int(t.value), t.kind) for t in bd.terms]


def acts(ev: list[Any], action: str | None = None) -> list[E.WarActionTaken]:
    return [e for e in ev if isinstance(e, E.WarActionTaken) and (action is None or e.action == action)]


INIT = {"b1.init.a": [20], "b1.init.x": [1]}  # the kingdom's army "a" acts first, the enemy "x" second


# ------------------------------------------------------------------ penalties of one type: the worst counts


def test_weary_and_mired_on_a_maneuver_take_the_worst() -> None:
    """Appendix 3 conditions: "A mired army takes a circumstance penalty on all maneuvers equal to its mired
    value"; "a weary army takes a circumstance penalty equal to its weary value to its AC, to its Maneuver
    checks". Both are circumstance penalties, and of one type only the worst applies (PF2e Core, AoN 2282).
    Infantry at level 1: Maneuver +4 (its low save). Weary 1 and mired 1: +4 - 1 = +3 (not +4 - 1 - 1 = +2).
    Weary 2 and mired 1: +4 - 2 = +2."""
    for weary, want in ((1, 3), (2, 2)):
        ev, _ = fight([army("infantry", "a", conditions={"weary": weary, "mired": 1}),
                       army("infantry", "x", side="enemy")],
                      [[{"army": "a", "action": "advance", "target": "x"}]], {**INIT, "b1.r1.a.1": [10]})
        adv = acts(ev, "advance")[0]
        assert adv.modifier == want
        assert [(v, k) for _, v, k in terms("advance")] == [(-weary, "circumstance")]  # one penalty counted


def test_outflanked_and_weary_on_ac_take_the_worst() -> None:
    """Appendix 3: outflanked: "-2 circumstance penalty to its AC"; weary 1: a circumstance penalty of 1 to AC.
    Infantry level 1, AC 16: outflanked and weary 1 -> 16 - 2 = 14 (not 13). A Battle at +9 rolls against 14."""
    ev, _ = fight([army("infantry", "a"), army("infantry", "x", side="enemy",
                                               conditions={"outflanked": 1, "weary": 1})],
                  [[{"army": "a", "action": "advance", "target": "x"},
                    {"army": "a", "action": "battle", "target": "x"}]],
                  {**INIT, "b1.r1.a.1": [15], "b1.r1.a.2": [2]})
    assert acts(ev, "battle")[0].dc == 14


def test_guard_and_magic_armor_are_both_item_bonuses() -> None:
    """Guard: "+2 item bonus to its AC"; Magic Armor +1: "increases the army's AC by 1" (an item bonus). The best
    item bonus counts: AC 16 + 2 = 18 (not 19). Guard's success applies against the target army only; the
    critical success against every army: here the raiders' Guard (success) is against the militia."""
    ev, _ = fight([army("infantry", "a"), army("infantry", "x", side="enemy", gear={"magic-armor-1": 1})],
                  [[{"army": "x", "action": "guard", "target": "a"}],
                   [{"army": "a", "action": "advance", "target": "x"},
                    {"army": "a", "action": "battle", "target": "x"}]],
                  {**INIT, "b1.r1.x.1": [14], "b1.r2.a.1": [15], "b1.r2.a.2": [2]})
    assert acts(ev, "guard")[0].degree == "success"
    # the raiders' turn came after the militia's in round 1; their Guard lasts to the start of their next turn,
    # so the militia's Battle in round 2 meets AC 16 + 2 (the armor's +1 does not add)
    assert acts(ev, "battle")[0].dc == 18


# ------------------------------------------------------------------ each Strike with its own modifier


def test_each_strike_uses_its_own_modifier() -> None:
    """Narlmarch Hunters (stat block: melee attack the table's -2, ranged +1, Sharpshooter's numbers in them) at
    level 3: the table's attack +12, so melee +10 and ranged (longbows) +13. Not engaged, they shoot at +13
    (the bug shot with the melee +10). A record made before each Strike was recorded shoots at +13 too."""
    hunters = army("narlmarch-hunters", "a", 3)
    assert (hunters.attack, hunters.ranged_attack) == (10, 13)
    old = hunters.model_copy(update={"ranged_attack": None})
    assert strike_modifiers(old) == (10, 13)
    for a in (hunters, old):
        ev, _ = fight([a, army("infantry", "x", side="enemy")],
                      [[{"army": "a", "action": "battle", "target": "x"}]], {**INIT, "b1.r1.a.1": [2]})
        shot = acts(ev, "battle")[0]
        assert (shot.note, shot.modifier) == ("ranged", 13)


def test_additional_weapon_gives_the_other_strike_at_the_basic_attack() -> None:
    """Additional Weapon (gear): the army gains the other Strike at the basic modifier of its level: Infantry at
    level 1 shoots at +9 with it, and cannot shoot without it."""
    ev, _ = fight([army("infantry", "a", gear={"additional-weapon": 1}), army("infantry", "x", side="enemy")],
                  [[{"army": "a", "action": "battle", "target": "x"}]], {**INIT, "b1.r1.a.1": [2]})
    assert (acts(ev, "battle")[0].note, acts(ev, "battle")[0].modifier) == ("ranged", 9)


# ------------------------------------------------------------------ conditions end when the rules say


def test_mired_from_a_failed_advance_ends_at_the_start_of_the_armys_next_turn() -> None:
    """Advance, critical failure: the army "becomes mired 1 until the start of its next turn". Infantry, Maneuver
    +4 against the raiders' Maneuver DC 14: d20 1 -> critical failure, mired 1. Its Guard later that turn is at
    +4 - 1 = +3; in round 2 its Advance is at +4 again, and after the battle it is not mired."""
    ev, s = fight([army("infantry", "a"), army("infantry", "x", side="enemy")],
                  [[{"army": "a", "action": "advance", "target": "x"},
                    {"army": "a", "action": "guard", "target": "x"}],
                   [{"army": "a", "action": "advance", "target": "x"}]],
                  {**INIT, "b1.r1.a.1": [1], "b1.r1.a.2": [10], "b1.r2.a.1": [10]})
    adv1, guard, adv2 = acts(ev, "advance")[0], acts(ev, "guard")[0], acts(ev, "advance")[1]
    assert adv1.degree == "critical_failure"
    assert (guard.modifier, adv2.modifier) == (3, 4)
    assert "mired" not in s.army_units[0].conditions


def test_a_guard_critical_failure_leaves_mired_1_not_one_more() -> None:
    """Guard, critical failure: the army "becomes mired 1" (a lasting condition; gained again, the higher value
    stays): an army already mired 2 stays mired 2."""
    _, s = fight([army("infantry", "a", conditions={"mired": 2}), army("infantry", "x", side="enemy")],
                 [[{"army": "a", "action": "guard", "target": "x"}]], {**INIT, "b1.r1.a.1": [1]})
    assert s.army_units[0].conditions["mired"] == 2


# ------------------------------------------------------------------ readings as campaign options


def test_option_sharpshooter_reading() -> None:
    """Sharpshooter (trained): the rules text: "-2 status [penalty] on attacks with melee Strikes. At 9th level
    ... reduced to -1, and at 15th level ... removed"; the published tool's numbers remove it at 17th. Skirmishers
    at level 15 (attack +30): melee +30 by the text (default), +29 by the tool's reading; ranged +31 either way."""
    from kingdomlog.rulesets.pf2e.warfare import army_numbers

    d = T.army_defs()["skirmishers"]
    text = army_numbers(d, 15, ["sharpshooter"])
    tool = army_numbers(d, 15, ["sharpshooter"], options={"sharpshooter_reading": "tool"})
    assert (text["melee_attack"], text["ranged_attack"]) == (30, 31)
    assert (tool["melee_attack"], tool["ranged_attack"]) == (29, 31)
    assert army_numbers(d, 9, ["sharpshooter"])["melee_attack"] == 21 - 1


# ------------------------------------------------------------------ every published army


STAT_BLOCKS = {  # AC, Maneuver, Morale, melee, ranged, Scouting at the army's level (the Adventure Path's stat
    # blocks as the published tool's stat-block table gives them)
    "tatzlford-town-guard": (25, 12, 18, 18, None, 15), "narlmarch-hunters": (24, 17, 11, 15, 18, 14),
    "drelev-irregulars": (25, 19, 11, 18, None, 15), "troll-marauders": (28, 13, 19, 20, None, 14),
    "pitaxian-raiders": (33, 25, 19, 26, 24, 22), "tusker-riders": (35, 22, 28, 30, 28, 24),
    "wyvern-flight": (33, 25, 17, 18, None, 23), "pitax-horde": (30, 22, 16, 25, None, 19),
    "pitax-war-machines": (36, 22, 28, None, 29, 25), "first-world-army": (38, 30, 25, 33, 33, 28),
    "greengripe-bombardiers": (23, 12, 18, 19, 18, 13), "lizardfolk-defenders": (23, 9, 15, 12, 12, 14),
    "mbotuu-frog-riders": (27, 22, 18, 25, 23, 19), "nomen-scouts": (27, 14, 19, 20, 20, 18),
    "sootscale-warriors": (20, 14, 5, 12, 12, 9), "tiger-lord-berserkers": (32, 19, 25, 28, None, 23),
    "tok-nikrat-scouts": (31, 22, 18, 23, 23, 20),
    # the basic armies at the level they may first be recruited (the army statistics table and their type)
    "infantry": (16, 4, 10, 9, None, 7), "cavalry": (19, 12, 6, 12, None, 9), "skirmishers": (20, 17, 11, 15, None, 12),
    "siege-engines": (25, 12, 18, None, 15, 15),
}


def test_every_published_army_matches_its_stat_block() -> None:
    """All 21 armies of Appendix 3 and the Adventure Path, raised at their own level, have their stat block's
    numbers, each Strike its own."""
    assert set(STAT_BLOCKS) == set(T.army_defs())
    for name, want in STAT_BLOCKS.items():
        d = T.army_defs()[name]
        a = army(name, "a", d.level)
        melee, ranged = strike_modifiers(a)
        assert (a.ac, a.maneuver, a.morale, melee, ranged, a.scouting) == want, name


# ------------------------------------------------------------------ tactical war actions (AoN/KMT Appendix 3)
# Army statistics used below (data/armies.toml [[statistic]]): level 3: AC 19, high save 12, low save 6, attack
# 12, Scouting 9; level 5: AC 22, high 15, low 9, attack 15, Scouting 12; level 6: AC 24, high 17, low 11, attack
# 17, Scouting 14. Infantry's high save is Morale; cavalry's and skirmishers' Maneuver. A DC is 10 + the number.


def trained(defn: str, aid: str, level: int, *tactics: str, side: str = "kingdom", **upd: Any) -> Army:
    a = army(defn, aid, level, side=side, **upd)
    return a.model_copy(update={"tactics": (*a.tactics, *tactics)})


def test_all_out_assault() -> None:
    """All-Out Assault (Merciless grants it; 2 actions): a melee Strike, 3 / 2 / 1 / 0 damage by degree, a
    critical failure outflanks the army until the start of its next turn. Infantry level 5 (Maneuver +9, attack
    +15) Advances (d20 15 + 9 = 24 >= DC 19: engaged), then assaults: d20 5 + 15 = 20 < AC 22: a failure still
    deals 1 damage (HP 4 -> 3). With d20 1: no damage, and the raiders' Battle meets AC 22 - 2 = 20. Without a
    tactic that grants it, the order is refused."""
    rounds = [[{"army": "a", "action": "advance", "target": "x"},
               {"army": "a", "action": "all-out-assault", "target": "x"},
               {"army": "x", "action": "battle", "target": "a"}]]
    for die, hp, ac in ((5, 3, 22), (1, 4, 20)):
        flat = {"b1.r1.a.2.s0": [15]} if hp < 4 else {}
        ev, s = fight([trained("infantry", "a", 5, "merciless"), army("infantry", "x", 5, side="enemy")], rounds,
                      {**INIT, "b1.r1.a.1": [15], "b1.r1.a.2": [die], **flat, "b1.r1.x.1": [2]})
        aoa = acts(ev, "all-out-assault")[0]
        assert (aoa.modifier, aoa.dc) == (15, 22)
        assert next(a for a in s.army_units if a.id == "x").hp == hp
        assert acts(ev, "battle")[0].dc == ac
    g = Game().found()
    g.state = g.state.model_copy(update={"army_units": (army("infantry", "a", 5), army("infantry", "x", 5,
                                                                                       side="enemy"))})
    pv = g.play({"activity.battle": {"choices": {"battles": [{"kingdom": ["a"], "enemy": ["x"], "rounds": rounds,
                                                              "unfinished": True}]}, "rolls": INIT}}, check=False)
    assert not pv.ok and "no tactic that grants All-Out Assault" in str(pv.error)


def test_taunt_shakes_until_the_start_of_the_armys_next_turn() -> None:
    """Taunt (Focused Devotion grants it): Morale against the target's Morale DC; success: shaken 1 until the
    start of the taunting army's next turn. Infantry level 3 (Morale +12) taunts: d20 12 + 12 = 24 >= DC 22. The
    raiders' Rally that turn is at +12 - 1 = +11; in round 2 (the taunt ended when the militia's turn began) at
    +12. Focused Devotion's +1 status counts on the militia's own Rally (+13), not on the Taunt."""
    ev, _ = fight([trained("infantry", "a", 3, "focused-devotion"), army("infantry", "x", 3, side="enemy")],
                  [[{"army": "a", "action": "taunt", "target": "x"}, {"army": "x", "action": "rally", "target": "a"}],
                   [{"army": "a", "action": "rally", "target": "x"}, {"army": "x", "action": "rally", "target": "a"}]],
                  {**INIT, "b1.r1.a.1": [12], "b1.r1.x.1": [5], "b1.r2.a.1": [5], "b1.r2.x.1": [5]})
    assert [(e.army, e.action, e.modifier) for e in acts(ev) if e.action in ("taunt", "rally")] == [
        ("a", "taunt", 12), ("x", "rally", 11), ("a", "rally", 13), ("x", "rally", 12)]


def test_defensive_stance_and_defensive_tactics() -> None:
    """Defensive Stance (Defensive Tactics grants it): a critical success and the allied army is no longer
    outflanked by any army. The militia (infantry level 3, Maneuver +6) d20 20 against the raiders' DC 16; the
    outflanked ally then has AC 19, not 17, against the raiders' Battle. Defensive Tactics: +1 status to Guard
    at level 3 (+6 + 1 = +7)."""
    ev, s = fight([trained("infantry", "a", 3, "defensive-tactics"), army("infantry", "b", 3,
                                                                           conditions={"outflanked": 1}),
                   army("infantry", "x", 3, side="enemy")],
                  [[{"army": "a", "action": "defensive-stance", "target": "x", "ally": "b"},
                    {"army": "a", "action": "guard", "target": "x"},
                    {"army": "x", "action": "advance", "target": "b"},
                    {"army": "x", "action": "battle", "target": "b"}]],
                  {**INIT, "b1.init.b": [19], "b1.r1.a.1": [20], "b1.r1.a.2": [5], "b1.r1.x.1": [15],
                   "b1.r1.x.2": [2]})
    assert acts(ev, "defensive-stance")[0].degree == "critical_success"
    assert acts(ev, "guard")[0].modifier == 7
    assert acts(ev, "battle")[0].dc == 19
    assert "outflanked" not in next(a for a in s.army_units if a.id == "b").conditions


def test_outflank_and_reckless_flankers() -> None:
    """Outflank (Reckless Flankers grants it; 2 actions): the target is outflanked until the start of the army's
    next turn and engaged with it. Cavalry level 5 (Maneuver +15, attack +15, Overrun +1 status against
    infantry): d20 10 + 15 = 25 >= DC 19; its Battle is at +16 against AC 22 - 2 = 20; in round 2 against 22."""
    ev, _ = fight([trained("cavalry", "a", 5, "reckless-flankers"), army("infantry", "x", 5, side="enemy")],
                  [[{"army": "a", "action": "outflank", "target": "x"},
                    {"army": "a", "action": "battle", "target": "x"}],
                   [{"army": "a", "action": "battle", "target": "x"}]],
                  {**INIT, "b1.r1.a.1": [10], "b1.r1.a.2": [2], "b1.r2.a.1": [2]})
    assert acts(ev, "outflank")[0].degree == "success"
    assert [(e.modifier, e.dc) for e in acts(ev, "battle")] == [(16, 20), (16, 22)]


def test_feint_outflanks_for_the_next_melee_strike() -> None:
    """Feint (Flexible Tactics grants it): a success and the target is outflanked against the army's next melee
    Strike this turn. Infantry level 5: Advance (d20 15: engaged), Feint +15 (d20 10 -> 25 >= AC 22), then Battle
    at +15 - 5 (the Feint was an attack) = +10 against AC 22 - 2 = 20."""
    ev, _ = fight([trained("infantry", "a", 5, "flexible-tactics"), army("infantry", "x", 5, side="enemy")],
                  [[{"army": "a", "action": "advance", "target": "x"}, {"army": "a", "action": "feint", "target": "x"},
                    {"army": "a", "action": "battle", "target": "x"}]],
                  {**INIT, "b1.r1.a.1": [15], "b1.r1.a.2": [10], "b1.r1.a.3": [2]})
    assert (acts(ev, "feint")[0].modifier, acts(ev, "feint")[0].degree) == (15, "success")
    assert (acts(ev, "battle")[0].modifier, acts(ev, "battle")[0].dc) == (10, 20)


def test_dirty_fighting_wearies_until_the_armys_next_turn() -> None:
    """Dirty Fighting (Flexible Tactics grants it) on an outflanked army: a hit makes it weary 1 until the start
    of the attacker's next turn (and deals the Strike's damage, our reading). Skirmishers level 5 (Maneuver +17,
    attack +15): Advance (d20 10: 27 >= 19), Dirty Fighting d20 10 + 15 = 25 >= AC 22 - 2 = 20. The raiders'
    Guard that turn is at +9 - 1 = +8 (d20 15: a failure against the skirmishers' DC 27); in round 2 at +9."""
    ev, s = fight([trained("skirmishers", "a", 5, "flexible-tactics"),
                   army("infantry", "x", 5, side="enemy", conditions={"outflanked": 1})],
                  [[{"army": "a", "action": "advance", "target": "x"},
                    {"army": "a", "action": "dirty-fighting", "target": "x"},
                    {"army": "x", "action": "guard", "target": "a"}],
                   [{"army": "x", "action": "guard", "target": "a"}]],
                  {**INIT, "b1.r1.a.1": [10], "b1.r1.a.2": [10], "b1.r1.a.2.s0": [15], "b1.r1.x.1": [15],
                   "b1.r2.x.1": [15]})
    assert acts(ev, "dirty-fighting")[0].dc == 20
    assert [e.modifier for e in acts(ev, "guard")] == [8, 9]
    assert next(a for a in s.army_units if a.id == "x").hp == 3


def test_counterattack_and_covering_fire() -> None:
    """Counterattack (the Drelev Irregulars' Tactical Training; a reaction): as an engaged army attempts a
    maneuver, a melee Strike outside the multiple attack penalty. The infantry (level 6, Maneuver +11, AC 24)
    Advances on the Irregulars (level 7, Maneuver DC 29; d20 20: engaged) and then Guards: the Irregulars strike
    at +18 (d20 10 -> 28 >= 24): 1 damage. When the Narlmarch Hunters' Covering Fire hit them first (ranged +18,
    -2 circumstance for the Irregulars' Unpredictable Movement = +16, d20 10 -> 26 >= AC 25: 1 damage), they take
    no reaction to a maneuver until the Hunters' next turn: no Counterattack."""
    base = {"b1.init.a": [20], "b1.init.b": [18], "b1.init.x": [1], "b1.r1.b.1": [20], "b1.r1.b.2": [5]}
    react = {"b1.r1.b.2.react.x": [10], "b1.r1.b.2.react.x.s0": [15]}
    shot = {"b1.r1.a.1": [10], "b1.r1.a.1.s0": [15]}
    orders = [{"army": "b", "action": "advance", "target": "x"}, {"army": "b", "action": "guard", "target": "x"},
              {"army": "x", "action": "counterattack", "target": "b"}]
    for cover in (False, True):
        ev, s = fight([army("narlmarch-hunters", "a", 6), army("infantry", "b", 6),
                       army("drelev-irregulars", "x", 7, side="enemy")],
                      [[*([{"army": "a", "action": "covering-fire", "target": "x"}] if cover else []), *orders]],
                      {**base, **(shot if cover else react)})
        counter = acts(ev, "counterattack")
        b = next(u for u in s.army_units if u.id == "b")
        if cover:
            assert (acts(ev, "covering-fire")[0].modifier, acts(ev, "covering-fire")[0].dc) == (16, 25)
            assert counter == [] and b.hp == 4
        else:
            assert [(e.modifier, e.dc, e.degree) for e in counter] == [(18, 24, "success")]
            assert b.hp == 3


def test_false_retreat_after_a_successful_rally() -> None:
    """False Retreat (Flexible Tactics; a reaction to the army's own successful Morale check): Morale against the
    target's Morale DC; success: the target is outflanked until the start of its next turn. Infantry level 5,
    shaken 1, Rallies (+15 - 1 = +14, d20 15 -> 29 >= DC 25), then feigns (+15, d20 12 -> 27 >= 25); the Narlmarch
    Hunters (level 5: ranged +16) then shoot the raiders at AC 22 - 2 = 20."""
    ev, _ = fight([trained("infantry", "a", 5, "flexible-tactics", conditions={"shaken": 1}),
                   army("narlmarch-hunters", "b", 5), army("infantry", "x", 5, side="enemy")],
                  [[{"army": "a", "action": "rally", "target": "x"},
                    {"army": "a", "action": "false-retreat", "target": "x"},
                    {"army": "b", "action": "battle", "target": "x"}]],
                  {**INIT, "b1.init.b": [18], "b1.r1.a.1": [15], "b1.r1.a.1.false-retreat": [12], "b1.r1.b.1": [2]})
    assert [(e.action, e.modifier, e.degree) for e in acts(ev) if e.action in ("rally", "false-retreat")] == [
        ("rally", 14, "success"), ("false-retreat", 15, "success")]
    assert (acts(ev, "battle")[0].modifier, acts(ev, "battle")[0].dc) == (16, 20)


def test_battlefield_medicine() -> None:
    """Battlefield Medicine (Field Triage grants it; 3 actions): DC 25 Scouting; success: the allied army regains
    1 HP; once per army a battle. Infantry level 6 (Scouting +14): d20 11 -> 25: the ally at 2 HP has 3."""
    ev, s = fight([trained("infantry", "a", 6, "field-triage"), army("infantry", "b", 6, hp=2),
                   army("infantry", "x", 6, side="enemy")],
                  [[{"army": "a", "action": "battlefield-medicine", "ally": "b"}]],
                  {**INIT, "b1.init.b": [2], "b1.r1.a.1": [11]})
    med = acts(ev, "battlefield-medicine")[0]
    assert (med.modifier, med.dc, med.degree) == (14, 25, "success")
    assert next(u for u in s.army_units if u.id == "b").hp == 3


# ------------------------------------------------------------------ trained tactics in battle


def test_keen_eyed_and_the_offensive_gambit() -> None:
    """Keen Eyed: +2 status to initiative (a Scouting check). Infantry level 1 (Scouting +7): +9."""
    ev, _ = fight([trained("infantry", "a", 1, "keen-eyed"), army("infantry", "x", side="enemy")], [[]], INIT)
    assert [(e.army, e.modifier) for e in acts(ev, "initiative")] == [("a", 9), ("x", 7)]


def test_keep_up_the_pressure() -> None:
    """Keep Up The Pressure: attacking the same army again in a round, the multiple attack penalty is -4 (and -8
    the third time) instead of -5 / -10. Infantry level 3 (+12): Advance, then Battle +12 and Battle +8."""
    ev, _ = fight([trained("infantry", "a", 3, "keep-up-the-pressure"), army("infantry", "x", 3, side="enemy")],
                  [[{"army": "a", "action": "advance", "target": "x"}, {"army": "a", "action": "battle", "target": "x"},
                    {"army": "a", "action": "battle", "target": "x"}]],
                  {**INIT, "b1.r1.a.1": [15], "b1.r1.a.2": [2], "b1.r1.a.3": [2]})
    assert [e.modifier for e in acts(ev, "battle")] == [12, 8]


def test_merciless_raises_the_dc_to_disengage() -> None:
    """Merciless: +2 status to the army's Maneuver DC against an army that Disengages from it. Infantry level 5
    (Maneuver +9): DC 19 + 2 = 21."""
    ev, _ = fight([army("infantry", "a", 5), trained("infantry", "x", 5, "merciless", side="enemy")],
                  [[{"army": "a", "action": "advance", "target": "x"},
                    {"army": "a", "action": "disengage", "target": "x"}]],
                  {**INIT, "b1.r1.a.1": [15], "b1.r1.a.2": [5]})
    assert acts(ev, "disengage")[0].dc == 21


def test_cavalry_experts_and_overrun_are_both_status_bonuses() -> None:
    """Overrun: +1 status to Strikes against infantry and skirmishers; Cavalry Experts raises it to +2 (status
    bonuses: the best counts, +2 not +3). Cavalry level 6 (+17) against infantry: +19; against cavalry: +17."""
    for target, want in (("infantry", 19), ("cavalry", 17)):
        ev, _ = fight([trained("cavalry", "a", 6, "cavalry-experts"), army(target, "x", 6, side="enemy")],
                      [[{"army": "a", "action": "advance", "target": "x"},
                        {"army": "a", "action": "battle", "target": "x"}]],
                      {**INIT, "b1.r1.a.1": [15], "b1.r1.a.2": [2]})
        assert acts(ev, "battle")[0].modifier == want


def test_hold_the_line_on_a_rout_check() -> None:
    """Hold the Line: +1 status to Morale checks to resist rout. Infantry level 1 (Morale +10) at HP 2 (its Rout
    Threshold 2) checks rout at +11 against the raiders' Morale DC 20."""
    ev, _ = fight([trained("infantry", "a", 1, "hold-the-line", hp=2), army("infantry", "x", side="enemy")],
                  [[]], {**INIT, "b1.r1.rout.a": [15]})
    assert (acts(ev, "rout")[0].modifier, acts(ev, "rout")[0].dc) == (11, 20)


def test_opening_salvo_starts_the_army_distant() -> None:
    """Opening Salvo: acting before every enemy, the army may start distant from all of them; ranged Strikes
    against a distant army take -5. Siege engines level 8 (ranged +20 - 3 = +17) shoot at the distant cavalry:
    +17 - 5 = +12."""
    ev, _ = fight([trained("cavalry", "a", 8, "opening-salvo"), army("siege-engines", "x", 8, side="enemy")],
                  [[{"army": "x", "action": "battle", "target": "a"}]], {**INIT, "b1.r1.x.1": [2]},
                  openings=[{"army": "a", "tactic": "opening-salvo"}])
    assert acts(ev, "battle")[0].modifier == 12


def test_ambush_starts_engaged_with_a_bonus() -> None:
    """Ambush: acting before every enemy, the skirmishers start engaged with a slower army and take +2 status
    on their first attack against it. Skirmishers level 8 (+20): a melee Battle at once, at +22."""
    ev, _ = fight([trained("skirmishers", "a", 8, "ambush"), army("infantry", "x", 8, side="enemy")],
                  [[{"army": "a", "action": "battle", "target": "x"},
                    {"army": "a", "action": "battle", "target": "x"}]],
                  {**INIT, "b1.r1.a.1": [2], "b1.r1.a.2": [2]},
                  openings=[{"army": "a", "tactic": "ambush", "target": "x"}])
    assert [(e.note, e.modifier) for e in acts(ev, "battle")] == [("melee", 22), ("melee", 15)]


def test_trained_static_tactics_change_the_record() -> None:
    """Train Army with Toughened Soldiers: +1 maximum HP (and HP); Increased Ammunition: +2 ranged Strikes. The
    record changes when the tactic is learned (Infantry level 1: HP 4 -> 5)."""
    g = Game().found()
    g.state = g.state.model_copy(update={"army_units": (army("infantry", "militia"),),
                                         "skills": {**g.state.skills, "warfare": "trained"}})
    pv = g.play({"activity.army": {"choices": {"activities": [
        {"activity": "train", "army": "militia", "tactic": "toughened-soldiers", "skill": "warfare"}]},
        "rolls": {"a1": [19]}}})
    a = step_state(pv, "activity.army").army_units[0]
    assert (a.tactics, a.hp_max, a.hp) == (("toughened-soldiers",), 5, 5)


# ------------------------------------------------------------------ armies' unique tactics in battle


def test_regeneration_restores_a_hit_point_each_turn() -> None:
    """Troll Marauders, Regeneration: 1 HP back at the start of each of their turns (HP 3 of 5 -> 4)."""
    ev, s = fight([army("infantry", "a", 8), army("troll-marauders", "x", 8, side="enemy", hp=3)], [[]], INIT)
    assert [e.action for e in acts(ev, "regeneration")] == ["regeneration"]
    assert next(u for u in s.army_units if u.id == "x").hp == 4


def test_brave_armies_make_no_rout_checks() -> None:
    """Nomen Scouts, Brave: no Rout Threshold: at HP 1 (below their threshold 2) no rout check."""
    ev, _ = fight([army("nomen-scouts", "a", 8, hp=1), army("infantry", "x", 8, side="enemy")], [[]], INIT)
    assert acts(ev, "rout") == []


def test_chorus_of_croaks_lowers_engaged_enemies_morale() -> None:
    """M'botuu Frog Riders, Chorus of Croaks: every enemy army engaged with them takes -2 status to Morale
    checks. Engaged infantry level 10 (Morale +22) Rallies at +20."""
    ev, _ = fight([army("mbotuu-frog-riders", "a", 10), army("infantry", "x", 10, side="enemy")],
                  [[{"army": "a", "action": "advance", "target": "x"},
                    {"army": "x", "action": "rally", "target": "a"}]],
                  {**INIT, "b1.r1.a.1": [15], "b1.r1.x.1": [5]})
    assert acts(ev, "rally")[0].modifier == 20


def test_hurled_nets_mire_instead_of_damaging() -> None:
    """Tok-Nikrat Scouts, Hurl Nets: a net hit deals no damage and raises mired by 1 (2 on a critical hit).
    Ranged +23 at level 10 against infantry AC 30: d20 10 -> 33: mired 1, HP 4."""
    _, s = fight([army("tok-nikrat-scouts", "a", 10), army("infantry", "x", 10, side="enemy")],
                 [[{"army": "a", "action": "battle", "target": "x"}]], {**INIT, "b1.r1.a.1": [10]})
    x = next(u for u in s.army_units if u.id == "x")
    assert (x.hp, x.conditions.get("mired")) == (4, 1)


def test_wyvern_venom_wearies_what_it_bites() -> None:
    """Wyvern Flight, Wyvern Venom: an army damaged by its melee Strike becomes weary +1. Melee +18 at level 12
    (-8 for the stat block) against infantry AC 33: d20 20 (natural 20 -> a critical hit): 2 damage, weary 1."""
    _, s = fight([army("wyvern-flight", "a", 12), army("infantry", "x", 12, side="enemy")],
                 [[{"army": "a", "action": "advance", "target": "x"},
                   {"army": "a", "action": "battle", "target": "x"}]],
                 {**INIT, "b1.r1.a.1": [15], "b1.r1.a.2": [20], "b1.r1.a.2.s0": [15], "b1.r1.a.2.s1": [15]})
    x = next(u for u in s.army_units if u.id == "x")
    assert (x.hp, x.conditions.get("weary")) == (2, 1)


def test_swift_recovery_and_furious_charge() -> None:
    """First World Army, Swift Recovery (once a battle): 2 HP back (HP 2 of 6 -> 4). Tiger Lord Berserkers,
    Furious Charge: an Advance that engages is followed by a melee Strike (+28 at level 12, against AC 33)."""
    _, s = fight([army("first-world-army", "a", 16, hp=2), army("infantry", "x", 16, side="enemy")],
                 [[{"army": "a", "action": "swift-recovery"}]], INIT)
    assert next(u for u in s.army_units if u.id == "a").hp == 4
    ev, _ = fight([army("tiger-lord-berserkers", "a", 12), army("infantry", "x", 12, side="enemy")],
                  [[{"army": "a", "action": "furious-charge", "target": "x"}]],
                  {**INIT, "b1.r1.a.1": [15], "b1.r1.a.1.charge": [2]})
    charge = acts(ev, "furious-charge")
    assert [(e.modifier, e.dc) for e in charge] == [(28, 33)]
    assert acts(ev, "advance")[0].degree == "success"


def test_water_terrain_tactics() -> None:
    """On a battlefield with swamp or water: Tok-Nikrat Scouts' Water Stride, +4 circumstance to initiative
    (Scouting +20 at level 10 -> +24); M'botuu Frog Riders' Amphibious, +2 circumstance to Maneuver checks
    (Maneuver +22 -> +24 on an Advance). On dry ground, neither."""
    for water, init, adv in ((True, 24, 24), (False, 20, 22)):
        ev, _ = fight([army("tok-nikrat-scouts", "a", 10), army("mbotuu-frog-riders", "x", 10, side="enemy")],
                      [[{"army": "x", "action": "advance", "target": "a"}]], {**INIT, "b1.r1.x.1": [2]}, water=water)
        assert (acts(ev, "initiative")[0].modifier, acts(ev, "advance")[0].modifier) == (init, adv)


def test_concealed() -> None:
    """Concealed: +2 circumstance to the army's Maneuver checks; attacks against it take -2 circumstance. A
    concealed infantry (level 1, Maneuver +4) Advances at +6; the raiders' Battle on it is at +9 - 2 = +7."""
    ev, _ = fight([army("infantry", "a", conditions={"concealed": 1}), army("infantry", "x", side="enemy")],
                  [[{"army": "a", "action": "advance", "target": "x"},
                    {"army": "x", "action": "battle", "target": "a"}]],
                  {**INIT, "b1.r1.a.1": [15], "b1.r1.x.1": [2]})
    assert (acts(ev, "advance")[0].modifier, acts(ev, "battle")[0].modifier) == (6, 7)


def test_live_off_the_land_at_upkeep() -> None:
    """Live Off The Land: at Upkeep, an army in a hex without a settlement and not garrisoned costs 1 less
    Consumption. Oakhold (village, 1) and an infantry (1) in a wild hex W1: 1 + 0 = 1; in Oakhold's hex: 2."""
    from kingdomlog.rulesets.pf2e.state import Hex, consumption

    g = Game().found()
    s = g.state.model_copy(update={"hexes": (*g.state.hexes, Hex(id="W1", terrain="forest", claimed=True))})
    wild = s.model_copy(update={"army_units": (trained("infantry", "a", 1, "live-off-the-land", hex="W1"),)})
    home = s.model_copy(update={"army_units": (trained("infantry", "a", 1, "live-off-the-land"),)})
    assert (int(consumption(wild).total), int(consumption(home).total)) == (1, 2)


def test_overwhelming_bombardment_on_a_fortification() -> None:
    """Overwhelming Bombardment (Explosive Shot grants it; two shots): a ranged Strike at a fortification;
    critical success: 2 damage to it and 1 to up to two armies inside. Pitax War Machines (level 14, ranged +29)
    at a Keep (AC 25, HP 5) holding the raiders: d20 10 -> 39 >= 35: the Keep 5 -> 3, the raiders 4 -> 3. A
    Battle after it (+29 - 5 = +24, d20 2 -> 26 >= 25): 1 more, the Keep at 2. Three of its 7 shots used."""
    ev, s = fight([army("pitax-war-machines", "a", 14), army("infantry", "x", 14, side="enemy")],
                  [[{"army": "a", "action": "overwhelming-bombardment", "target": "keep", "within": ["x"]},
                    {"army": "a", "action": "battle", "target": "keep"}]],
                  {**INIT, "b1.r1.a.1": [10], "b1.r1.a.1.in0.s0": [15], "b1.r1.a.2": [2]},
                  fortifications=[{"id": "keep", "kind": "keep", "side": "enemy", "armies": ["x"]}])
    assert [(e.action, e.modifier, e.dc, e.degree) for e in acts(ev) if e.target == "keep" and e.die] == [
        ("overwhelming-bombardment", 29, 25, "critical_success"), ("battle", 24, 25, "success")]
    assert [e.total for e in acts(ev, "fortification")] == [3, 2]
    assert next(u for u in s.army_units if u.id == "x").hp == 3


def test_the_readme_lists_every_army_tactic_and_war_action_with_its_source() -> None:
    """Issue 30: the armies, tactics and war actions are listed with their source in the ruleset's README."""
    from pathlib import Path

    import kingdomlog.rulesets.pf2e as pkg

    text = (Path(pkg.__file__).parent / "README.md").read_text()
    for rows in (T.army_defs(), T.tactic_defs(), T.war_action_defs()):
        for name, row in rows.items():
            assert f"(`{name}`)" in text, name
            assert row.source and row.source in text, name


def test_trampling_charge_and_trample() -> None:
    """Tusker Riders, Trampling Charge (3 actions): Maneuver against a non-engaged army's Maneuver DC; success:
    1 damage. Level 14 (Maneuver +22 low save) against infantry (DC 10 + 22 = 32): d20 15 -> 37: HP 4 -> 3.
    Nomen Scouts, Trample (3 actions): a +20 melee Strike on an engaged army; a hit: 1 damage and no longer
    engaged."""
    _, s = fight([army("tusker-riders", "a", 14), army("infantry", "x", 14, side="enemy")],
                 [[{"army": "a", "action": "trampling-charge", "target": "x"}]],
                 {**INIT, "b1.r1.a.1": [15], "b1.r1.a.1.s0": [15]})
    assert next(u for u in s.army_units if u.id == "x").hp == 3
    ev, s = fight([army("nomen-scouts", "a", 8), army("infantry", "x", 8, side="enemy")],
                  [[{"army": "a", "action": "advance", "target": "x"}],
                   [{"army": "a", "action": "trample", "target": "x"}]],
                  {**INIT, "b1.r1.a.1": [15], "b1.r2.a.1": [10], "b1.r2.a.1.s0": [15]})
    tr = acts(ev, "trample")[0]
    assert (tr.modifier, tr.dc, tr.degree) == (20, 27, "success")
    assert next(u for u in s.army_units if u.id == "x").hp == 3


def test_accustomed_to_panic_and_reactive_rally() -> None:
    """Sootscale Warriors, Accustomed to Panic: when their shaken would rise (not routed), weary -1 instead: a
    failed DC 11 flat check after damage leaves them weary 0 from weary 1, not shaken. Tiger Lord Berserkers,
    Reactive Rally: routed, they may Rally instead of Retreating."""
    _, s = fight([army("infantry", "a", 3), army("sootscale-warriors", "x", 3, side="enemy",
                                                  conditions={"weary": 1})],
                 [[{"army": "a", "action": "advance", "target": "x"},
                   {"army": "a", "action": "battle", "target": "x"}]],
                 {**INIT, "b1.r1.a.1": [19], "b1.r1.a.2": [15], "b1.r1.a.2.s0": [2]})
    x = next(u for u in s.army_units if u.id == "x")
    assert (x.hp, x.conditions) == (3, {})
    ev, _ = fight([army("infantry", "a", 12), army("tiger-lord-berserkers", "x", 12, side="enemy",
                                                   conditions={"routed": 1, "shaken": 1})],
                  [[{"army": "x", "action": "reactive-rally", "target": "a"}]], {**INIT, "b1.r1.x.1": [10]})
    assert [(e.action, e.modifier) for e in acts(ev, "rally")] == [("rally", 25 - 2)]


def test_a_routed_army_takes_its_turn_to_retreat() -> None:
    """Routed: "on its turn, a routed army must use the Retreat war action": it becomes distant, and a distant
    army that Retreats flees the battlefield (the bug: a routed army took no turn at all). Its side fights on
    with a second army."""
    ev, _ = fight([army("infantry", "a"), army("infantry", "x", side="enemy", conditions={"routed": 1}),
                   army("infantry", "y", side="enemy")],
                  [[{"army": "x", "action": "retreat"}], [{"army": "x", "action": "retreat"}]],
                  {**INIT, "b1.init.y": [2]})
    assert [e.note for e in acts(ev, "retreat")] == ["becomes distant", "flees"]


def test_brutal_assault_shakes_what_it_damages() -> None:
    """Troll Marauders, Brutal Assault: an army their All-Out Assault damages rolls Morale against DC 24 or is
    shaken 1 (2 on a critical failure). Trolls level 8 (melee +20) against infantry level 8 (AC 27, Morale +19):
    Advance d20 15, assault d20 10 -> 30 >= 27: 2 damage; Morale d20 2 -> 21 < 24: shaken 1."""
    ev, s = fight([army("troll-marauders", "a", 8), army("infantry", "x", 8, side="enemy")],
                  [[{"army": "a", "action": "advance", "target": "x"},
                    {"army": "a", "action": "all-out-assault", "target": "x"}]],
                  {**INIT, "b1.r1.a.1": [15], "b1.r1.a.2": [10], "b1.r1.a.2.s0": [15], "b1.r1.a.2.s1": [15],
                   "b1.r1.a.2.brutal": [2]})
    assert (acts(ev, "brutal-assault")[0].modifier, acts(ev, "brutal-assault")[0].dc) == (19, 24)
    x = next(u for u in s.army_units if u.id == "x")
    assert (x.hp, x.conditions.get("shaken")) == (2, 1)


def test_battlefield_adaptability_and_primal_magic() -> None:
    """First World Army: Battlefield Adaptability (mobility): +2 circumstance to Advance until its next turn
    (Maneuver +30 at level 16 -> +32). Primal Magic, not engaged: Morale +25 against the target's Morale DC;
    d10 3 (Horrific Visions) and a success: the target's shaken +1."""
    ev, s = fight([army("first-world-army", "a", 16), army("infantry", "x", 16, side="enemy")],
                  [[{"army": "a", "action": "primal-magic", "target": "x"},
                    {"army": "a", "action": "battlefield-adaptability", "choice": "mobility"}],
                   [{"army": "a", "action": "advance", "target": "x"}]],
                  {**INIT, "b1.r1.a.1.d10": [3], "b1.r1.a.1": [15], "b1.r2.a.1": [2]})
    pm = acts(ev, "primal-magic")[0]
    assert (pm.modifier, pm.dc, pm.degree) == (25, 10 + 30, "success")
    assert next(u for u in s.army_units if u.id == "x").conditions.get("shaken") == 1
    # round 2: the adaptability ended when the army's turn began
    assert acts(ev, "advance")[0].modifier == 30


def test_explosive_defeat_and_shaking_off_nets() -> None:
    """Greengripe Bombardiers, Explosive Defeat: defeated, every army engaged with them rolls Maneuver against
    their Maneuver DC (level 7, low save 12: DC 22) or takes 1 damage. Infantry level 7 (Maneuver +12) engaged,
    hits the Bombardiers at 1 HP (+18, d20 5 -> 23 >= AC 23), and rolls d20 2 -> 14 against the explosion: 1
    damage. Hurl Nets: the netted infantry's Battle against the
    Tok-Nikrat Scouts' Maneuver DC (level 10: 22 + 10 = 32) at +23 (level 10 attack), d20 15 -> 38: mired 1 -> 0."""
    ev, s = fight([army("infantry", "a", 7), army("greengripe-bombardiers", "x", 7, side="enemy", hp=1)],
                  [[{"army": "a", "action": "advance", "target": "x"},
                    {"army": "a", "action": "battle", "target": "x"}]],
                  {**INIT, "b1.r1.a.1": [15], "b1.r1.a.2": [5], "b1.r1.a.2.boom0.a": [2],
                   "b1.r1.a.2.boom0.a.s0": [15]})
    boom = acts(ev, "explosive-defeat")[0]
    assert (boom.army, boom.modifier, boom.dc, boom.degree) == ("a", 12, 22, "failure")
    assert next(u for u in s.army_units if u.id == "a").hp == 3
    ev, s = fight([army("infantry", "a", 10), army("tok-nikrat-scouts", "x", 10, side="enemy")],
                  [[{"army": "x", "action": "battle", "target": "a"}],
                   [{"army": "a", "action": "battle", "target": "x", "choice": "nets"}]],
                  {**INIT, "b1.r1.x.1": [10], "b1.r2.a.1": [15]})
    nets = next(e for e in acts(ev, "battle") if e.note == "nets")
    assert (nets.modifier, nets.dc, nets.degree) == (23, 32, "success")
    assert "mired" not in next(u for u in s.army_units if u.id == "a").conditions


def test_deploy_army_takes_the_worst_of_weary_and_mired() -> None:
    """Deploy Army: weary counts twice ("double this circumstance penalty on Deploy Army checks") and mired once
    ("a circumstance penalty ... to Deploy Army checks"): weary 1 and mired 1 give -2, the worst, not -3."""
    from kingdomlog.rulesets.pf2e.state import Hex

    g = Game().found()
    g.state = g.state.model_copy(update={
        "hexes": (*g.state.hexes, Hex(id="H1", terrain="forest", q=1, r=0)),
        "skills": {**g.state.skills, "exploration": "trained"},
        "army_units": (army("infantry", "militia", conditions={"weary": 1, "mired": 1}),)})
    pv = g.play({"activity.army": {"choices": {"activities": [
        {"activity": "deploy", "army": "militia", "hex": "H1", "skill": "exploration"}]}, "rolls": {"a1": [15]}}})
    chk = next(e for e in events_of(pv, "activity.army") if isinstance(e, E.CheckResolved))
    assert [t.value for t in chk.terms if t.kind == "circumstance" and "Infantry" in t.label] == [-2]


def test_a_healing_potion_with_a_maneuver() -> None:
    """Healing Potion (gear): a dose used with a maneuver war action restores 1 HP; doses are not replenished
    after the battle. Infantry at HP 2 with 2 doses Guards with one: HP 3, one dose left."""
    _, s = fight([army("infantry", "a", hp=2, gear={"healing-potions": 2}), army("infantry", "x", side="enemy")],
                 [[{"army": "a", "action": "guard", "target": "x", "potion": True}]], {**INIT, "b1.r1.a.1": [10]})
    a = next(u for u in s.army_units if u.id == "a")
    assert (a.hp, a.gear) == (3, {"healing-potions": 1})


def test_what_a_hit_brings_by_tactic() -> None:
    """Flaming Shot: after a ranged hit the target rolls Maneuver against the attacker's attack DC (Narlmarch
    Hunters level 9: ranged +22, DC 32) or takes 1 more: infantry level 9 (Maneuver +15) d20 5 -> 20: HP 4 -> 2.
    Explosive Shot: a critical ranged hit on an army that is not distant deals 1 more to another one (Pitax War
    Machines, +29, d20 20: the first raiders 4 -> 2, the second 4 -> 3). Revel in Battle: a critical melee hit
    restores 1 HP (Tiger Lord Berserkers at 4 of 6 -> 5). Supernatural Attacks: a critical hit makes the target
    weary +1 (First World Army)."""
    _, s = fight([trained("narlmarch-hunters", "a", 9, "flaming-shot"), army("infantry", "x", 9, side="enemy")],
                 [[{"army": "a", "action": "battle", "target": "x"}]],
                 {**INIT, "b1.r1.a.1": [10], "b1.r1.a.1.s0": [15], "b1.r1.a.1.flame": [5], "b1.r1.a.1.flamed.s0": [15]})
    assert next(u for u in s.army_units if u.id == "x").hp == 2
    _, s = fight([army("pitax-war-machines", "a", 14), army("infantry", "x", 14, side="enemy"),
                  army("infantry", "y", 14, side="enemy")],
                 [[{"army": "a", "action": "battle", "target": "x"}]],
                 {**INIT, "b1.init.y": [2], "b1.r1.a.1": [20], "b1.r1.a.1.s0": [15], "b1.r1.a.1.s1": [15],
                  "b1.r1.a.1.blast.s0": [15]})
    assert [(u.id, u.hp) for u in s.army_units if u.side == "enemy"] == [("x", 2), ("y", 3)]
    for name, hp_then, level in (("tiger-lord-berserkers", 4, 12), ("first-world-army", 6, 16)):
        _, s = fight([army(name, "a", level, hp=hp_then), army("infantry", "x", level, side="enemy")],
                     [[{"army": "a", "action": "advance", "target": "x"},
                       {"army": "a", "action": "battle", "target": "x"}]],
                     {**INIT, "b1.r1.a.1": [19], "b1.r1.a.2": [20], "b1.r1.a.2.s0": [15], "b1.r1.a.2.s1": [15]})
        a, x = (next(u for u in s.army_units if u.id == i) for i in ("a", "x"))
        if name == "tiger-lord-berserkers":
            assert (a.hp, x.hp) == (5, 2)
        else:
            assert x.conditions.get("weary") == 1


def test_disengage_rolls_against_each_engaged_army() -> None:
    """Disengage (2 actions): "attempt a Maneuver check against each army your army is engaged with"; a success
    frees it from that army. The militia (Maneuver +4) engaged with two raider armies (DC 14): d20 15 -> 19 frees
    it from the first, d20 2 -> 6 keeps it with the second; in the same round the second still strikes in melee."""
    ev, _ = fight([army("infantry", "a"), army("infantry", "x", side="enemy"), army("infantry", "y", side="enemy")],
                  [[{"army": "x", "action": "advance", "target": "a"},
                    {"army": "y", "action": "advance", "target": "a"}],
                   [{"army": "a", "action": "disengage", "target": "x"},
                    {"army": "y", "action": "battle", "target": "a"}]],
                  {**INIT, "b1.init.y": [2], "b1.r1.x.1": [15], "b1.r1.y.1": [15], "b1.r2.a.1": [15],
                   "b1.r2.a.1.y": [2], "b1.r2.y.1": [2]})
    assert [(e.target, e.degree) for e in acts(ev, "disengage")] == [("x", "success"), ("y", "failure")]
    assert acts(ev, "battle")[0].note == "melee"
