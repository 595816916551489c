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
