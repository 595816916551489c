"""Army special abilities (UC Kingdoms and War, Mass Combat: Special Abilities): every ability of the published
list is data, and each is applied by the battle rules. One test per family of effect, the expected number worked
out from the rules text; a test that no ability in the data is one the engine would silently ignore.

The armies: ours, a Large army of fighters (CR 1 + 2 steps: ACR 3, hp 16, OM +3, DV 13); theirs, a Medium army of
orcs (CR 2: ACR 2, hp 11, OM +2, DV 12). Neither has a commander, so every Morale modifier is 0 + the abilities'.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pf1.kit import kingdom, step

from kingdomlog.core.errors import InputError, RuleError
from kingdomlog.rulesets.pf1 import battle as bt
from kingdomlog.rulesets.pf1 import events as ev
from kingdomlog.rulesets.pf1 import specials as sx
from kingdomlog.rulesets.pf1.tables import load_mass_combat

OURS = {"name": "Guard", "size": "Large", "unit": "humans (fighter 2)", "unit_cr": "1", "hd": 10}
FOE = {"name": "Orcs", "size": "Medium", "unit": "orcs (fighter 3)", "unit_cr": "2", "hd": 10, "side": "enemy"}

PUBLISHED = """Ability Damage|Alchemy|Amphibious|Animal Companion|Aquatic|Aura of Courage|Armor Training|Bleed|
Blindsense|Blindsight|Bomb|Bravery|Breath Weapon|Brew Potion|Burn|Burrow|Cannibalize|Challenge|
Channel Negative Energy|Channel Positive Energy|Climb|Combat Style|Construct|Create Sandstorm|Create Spawn|
Damage Reduction|Darkvision|Discovery|Disease|Divine Health|Earth Glide|Eidolon|Energy Drain|Evasion|Fast Healing|
Favored Enemy|Favored Terrain|Fear|Ferocity|Flight|Flurry of Blows|Grab|Hex|Hunter's Bond|Immunity|Incorporeal|
Inspire Courage|Invisibility|Judgment|Ki Pool|Lay on Hands|Light Blindness|Light Sensitivity|Low-Light Vision|Mercy|
Mindless|Mobility|Mount|Order|Paralysis|Petrification|Plant|Poison Resistance|Poison|Pounce|Powerful Charge|Rage|Rake|
Regeneration|Rend|Resistance|Rock Catching|Rock Throwing|Rogue Talent|Scent|Shield Ally|Significant Defense|
Smite Evil|Sneak Attack|Spell Resistance|Spellcasting|Stunning Fist|Swarm|Tactician|Teleportation|Track|Trample|
Trap Sense|Tremorsense|Trip|Undead|Unnatural Aura|Vortex|Weapon Specialization|Whirlwind|Wild Shape"""
"""The UC list's ability names (Ability Damage/Drain is kept under its older name here)."""


def field(ours: dict[str, Any] | None = None, foe: dict[str, Any] | None = None, extra: Any = ()) -> Any:
    s = kingdom(3, treasury=100, extra=extra)
    s = s.model_copy(update={"counters": s.counters.model_copy(update={"districts": 0})})
    s, _ = step(s, "improvement", {"armies": [{**OURS, **(ours or {})}]})
    s, _ = step(s.model_copy(update={"phase": "TURN_ENDED"}), "gm", {"enemy_armies": [{**FOE, **(foe or {})}]})
    return s.model_copy(update={"phase": "IMPROVEMENT"})


def fight(s: Any, rolls: dict[str, list[int]], **battle: Any) -> tuple[list[Any], Any, list[Any]]:
    """The battle's phases, its end, and the GM rulings it asked for."""
    _, ps = step(s, "war", {"battles": [{"ours": "A1", "enemy": "A2", **battle}]}, rolls=rolls)
    return ([p for p in ps if isinstance(p, ev.BattlePhaseResolved)],
            next(p for p in ps if isinstance(p, ev.BattleEnded)),
            [p for p in ps if isinstance(p, ev.ArmyRulingNeeded)])


def melee1(s: Any, ours: int = 10, enemy: int = 10, **battle: Any) -> tuple[Any, Any]:
    """One Melee phase with the given d20s (max_rounds 1): our side and theirs."""
    phases, _, _ = fight(s, {"w1_r1_ours": [ours], "w1_r1_enemy": [enemy]}, max_rounds=1, **battle)
    m = next(p for p in phases if p.kind == "melee")
    return m.sides[0], m.sides[1]


# ------------------------------------------------------------------ the data


def test_every_published_ability_is_in_the_data() -> None:
    names = {n.strip() for n in PUBLISHED.replace("\n", "").split("|")}
    assert len(names) == 96
    assert set(load_mass_combat().specials) == names


def test_no_ability_is_silently_ignored() -> None:
    """Each ability either only carries constant numbers (added when raised), or has a kind the battle rules
    apply (specials.KINDS, each referenced by the engine's code or wholly data: immunities, magic); an ability
    the GM must rule on says why, and its kind is one that announces the ruling."""
    mc = load_mass_combat()
    code = Path(bt.__file__).read_text() + Path(sx.__file__).read_text().split("KINDS: dict")[0]
    code += Path(sx.__file__).read_text().split("NOT_LIVING = ")[1]
    for sp in mc.specials.values():
        constant = bool(sp.om or sp.dv or sp.damage or sp.ranged)
        assert sp.kind is not None or constant, f"{sp.name}: no rule applies it"
        if sp.kind is not None:
            assert sp.kind in sx.KINDS, f"{sp.name}: kind {sp.kind!r} unknown to the battle rules"
            in_code = f'"{sp.kind}"' in code
            assert in_code or sp.immune or sp.magic, f"{sp.name}: kind {sp.kind!r} applied nowhere"
        assert bool(sp.ruling) == (sp.kind in sx.RULING_KINDS), f"{sp.name}: ruling text vs RULING_KINDS"
        if sp.like is not None:
            like = mc.specials[sp.like]
            assert (like.kind, like.om, like.dv) == (sp.kind, sp.om, sp.dv), f"{sp.name} does not work as {sp.like}"
        assert set(sp.immune) <= set(mc.specials), sp.name
        assert sp.note and len(sp.note) < 240
    for k in sx.KINDS:
        assert any(sp.kind == k for sp in mc.specials.values()), f"KINDS lists {k!r}, no ability has it"
    assert {c for c in ("Water", "Bright Light", "Sandstorm")} <= set(mc.conditions)


def test_written_numbers_and_choices_are_checked_when_raised() -> None:
    """An ability that takes a number or a choice is written with it; a wrong one is refused naming the ability."""
    s = kingdom(3, treasury=100)
    s = s.model_copy(update={"counters": s.counters.model_copy(update={"districts": 0})})
    for bad, msg in ((["Fast Healing"], "Fast Healing needs its value"),
                     (["Favored Enemy"], r"Favored Enemy needs its choice"),
                     (["Hex (broom)"], "choose one of healing, cauldron"),
                     (["Immunity (Sneezing)"], "not an army special ability"),
                     (["Undead 3"], "takes no number"),
                     (["Levitation"], "unknown army special ability"),
                     (["Bleed", "Bleed"], "named twice")):
        with pytest.raises(InputError, match=msg):
            step(s, "improvement", {"armies": [{**OURS, "specials": bad}]})
    s2, _ = step(s, "improvement", {"armies": [{**OURS, "specials": ["bravery +1", "Favored Enemy (orc)",
                                                                      "hex (Cauldron)", "Fast Healing 05"]}]})
    assert s2.armies["A1"].specials == ("Bravery 1", "Favored Enemy (orc)", "Hex (cauldron)", "Fast Healing 5")


# ------------------------------------------------------------------ constant numbers (added when raised)


def test_constant_numbers_and_spell_level_are_in_the_army() -> None:
    """UC Spellcasting: OM and DV + the highest spell level (2); Mount OM and DV +1; Eidolon (as Animal Companion)
    OM +1; Hunter's Bond (animal) OM +1: OM 3 + 2 + 1 + 1 + 1 = 8, DV 13 + 2 + 1 = 16. Tactician: an ACR 3 army
    knows 1 tactic (half its ACR), 2 with it."""
    s = field({"specials": ["Spellcasting 2", "Mount", "Eidolon", "Hunter's Bond (animal)", "Tactician"],
               "tactics": ["Defensive Wall", "Full Defense"]})
    a = s.armies["A1"]
    assert (a.om, a.dv, a.tactics) == (8, 16, ("Defensive Wall", "Full Defense"))


# ------------------------------------------------------------------ conditional OM and DV


def test_conditional_om_and_dv_against_the_enemy() -> None:
    """Favored Enemy (orc) against orcs: OM 3 + 1 = 4. Spell Resistance against an army with Spellcasting 1 (orcs
    OM 3, DV 13): our DV 13 + 6 = 19. Evasion against Spellcasting 3 (orcs OM 5): their spell bonus halved, 3 → 1:
    OM 5 − 2 = 3. Aquatic against orcs in the water: OM 4, DV 14; against orcs on land: OM 3 − 2 = 1, not with
    Amphibious: OM 3."""
    us, _ = melee1(field({"specials": ["Favored Enemy (orcs)"]}))
    assert us.om == 4
    us, them = melee1(field({"specials": ["Spell Resistance"]}, {"specials": ["Spellcasting 1"]}))
    assert (us.dv, them.om) == (19, 3)
    _, them = melee1(field({"specials": ["Evasion"]}, {"specials": ["Spellcasting 3"]}))
    assert them.om == 3
    wet = field({"specials": ["Aquatic"]})
    us, _ = melee1(wet, conditions=[{"name": "Water", "side": "enemy"}])
    assert (us.om, us.dv) == (4, 14)
    us, _ = melee1(wet)
    assert (us.om, us.dv) == (1, 13)
    us, _ = melee1(field({"specials": ["Aquatic", "Amphibious"]}))
    assert us.om == 3


def test_invisibility_and_senses() -> None:
    """Invisible orcs: our OM and DV −2 (3 − 2 = 1, 13 − 2 = 11); Blindsense halves that (−1: 2, 12); Blindsight
    ignores it (3, 13). Darkness (OM −2, DV −3): with Scent halved, rounded down (−1, −1): OM 2, DV 12; with
    Darkvision none."""
    for ours, want in (([], (1, 11)), (["Blindsense"], (2, 12)), (["Blindsight"], (3, 13))):
        us, _ = melee1(field({"specials": ours}, {"specials": ["Invisibility"]}))
        assert (us.om, us.dv) == want, ours
    dark = [{"name": "Darkness"}]
    us, them = melee1(field({"specials": ["Scent"]}, {"specials": ["Darkvision"]}), conditions=dark)
    assert (us.om, us.dv, them.om, them.dv) == (2, 12, 2, 12)


def test_light_terrain_and_significant_defense() -> None:
    """Bright Light: Light Sensitivity OM and DV −1 (orcs 1, 11), Light Blindness −2. Advantageous Terrain gives
    the orcs DV +2 (14); our Favored Terrain halves it (+1: 13). Significant Defense: DV 13 + 10 = 23 against
    the orcs, and the GM is asked whether they overcome it; listed in overcome: 13."""
    _, them = melee1(field(None, {"specials": ["Light Sensitivity"]}), conditions=[{"name": "Bright Light"}])
    assert (them.om, them.dv) == (1, 11)
    _, them = melee1(field(None, {"specials": ["Light Blindness"]}), conditions=[{"name": "Bright Light"}])
    assert (them.om, them.dv) == (0, 10)
    hill = [{"name": "Advantageous Terrain", "side": "enemy"}]
    _, them = melee1(field(), conditions=hill)
    assert them.dv == 14
    _, them = melee1(field({"specials": ["Favored Terrain"]}), conditions=hill)
    assert them.dv == 13
    sd = field({"specials": ["Significant Defense"]})
    phases, _, rulings = fight(sd, {"w1_r1_ours": [10], "w1_r1_enemy": [10]}, max_rounds=1)
    assert phases[0].sides[0].dv == 23 and [r.ability for r in rulings] == ["Significant Defense"]
    us, _ = melee1(sd, overcome=["A2"])
    assert us.dv == 13


# ------------------------------------------------------------------ damage


def test_damage_by_ability_and_by_the_targets_nature() -> None:
    """Melee d20 14 + OM 3 = 17 vs DV 12: 5 damage. Rake: 5 + 1 = 6. Channel Positive Energy against undead orcs
    (DV 12 + 2 = 14): 17 − 14 = 3 + 1d4 (4) = 7. Incorporeal orcs: no damage from our nonmagical weapons; with
    Magic Weapons (OM 5 → 19 vs 12 = 7) half: 3. Swarm orcs: half of 5 = 2; a swarm attacking our Significant
    Defense deals nothing."""
    def dealt(ours: dict[str, Any] | None, foe: dict[str, Any] | None, d4: int = 1, **kw: Any) -> int:
        phases, _, _ = fight(field(ours, foe), {"w1_r1_ours": [14], "w1_r1_enemy": [14], "w1_r1_ours_channel": [d4]},
                             max_rounds=1, **kw)
        off = phases[0].sides[0].offense
        return int(off.damage)
    assert dealt(None, None) == 5
    assert dealt({"specials": ["Rake"]}, None) == 6
    assert dealt({"specials": ["Channel Positive Energy"]}, {"specials": ["Undead"]}, d4=4) == 7
    assert dealt({"specials": ["Channel Positive Energy"]}, None, d4=4) == 5  # the living orcs: no extra
    assert dealt(None, {"specials": ["Incorporeal"]}) == 0
    s = field(None, {"specials": ["Incorporeal"]}).model_copy()
    s = s.model_copy(update={"armies": {**s.armies, "A1": s.armies["A1"].model_copy(update={
        "om": 5, "resources": {"Magic Weapons": 1}})}})
    phases, _, _ = fight(s, {"w1_r1_ours": [14], "w1_r1_enemy": [14]}, max_rounds=1)
    assert phases[0].sides[0].offense.damage == 3
    assert dealt(None, {"specials": ["Swarm"]}) == 2
    phases, _, _ = fight(field({"specials": ["Significant Defense"]}, {"specials": ["Swarm"]}),
                         {"w1_r1_ours": [1], "w1_r1_enemy": [20]}, max_rounds=1)
    assert phases[0].sides[1].offense.damage == 0


def test_breath_evasion_and_tracking_in_fog() -> None:
    """Breath Weapon: +1d4 (3) in the Ranged phase: d20 14 + 3 = 17 vs 12: 5 + 3 = 8; against Evasion half the
    1d4 (1): 6. Fog halves damage: 8 // 2 = 4 for an army without Track; with Track only a quarter off:
    8 − 2 = 6."""
    def ranged(ours: list[str], foe: list[str], **kw: Any) -> int:
        phases, _, _ = fight(field({"specials": ours}, {"specials": foe}),
                             {"w1_ranged_ours": [14], "w1_ranged_ours_breath": [3], "w1_r1_ours": [1],
                              "w1_r1_ours_breath": [1], "w1_r1_enemy": [1]}, max_rounds=1, **kw)
        return int(phases[0].sides[0].offense.damage)
    assert ranged(["Breath Weapon"], []) == 8
    assert ranged(["Breath Weapon"], ["Evasion"]) == 6
    fog = [{"name": "Fog"}]
    assert ranged(["Breath Weapon"], [], conditions=fog) == 4
    assert ranged(["Breath Weapon", "Track"], [], conditions=fog) == 6


# ------------------------------------------------------------------ afflictions and immunities


def test_bleed_paralysis_drain_and_immunities() -> None:
    """Melee 1, d20 14 + 3 = 17 vs 12: 5; the bleed's 1d6 (4) at the start of Melee 2: the orcs 11 − 5 − 4 = 2.
    Poison works as bleed, but undead are immune to poison: no 1d6 (DV 14: 3 damage, 11 − 3 = 8 after Melee 1,
    no bleed in Melee 2). Paralysis: the orcs' DV 12 − 1 = 11 in Melee 2; against a construct, none. Energy
    Drain: the orcs' OM and DV −1 in Melee 2 (1, 11)."""
    rolls = {"w1_r1_ours": [14], "w1_r1_enemy": [1], "w1_r2_ours": [1], "w1_r2_enemy": [1], "w1_r2_enemy_bleed": [4]}

    def two(ours: list[str], foe: list[str]) -> tuple[Any, Any]:
        phases, _, _ = fight(field({"specials": ours}, {"specials": foe}), rolls, max_rounds=2)
        return phases[0].sides[1], phases[1].sides[1]
    _, m2 = two(["Bleed"], [])
    assert (m2.hp_before, m2.hp_after) == (6, 2) and "bleed 4" in m2.notes
    m1, m2 = two(["Poison"], ["Undead"])
    assert (m1.hp_after, m2.hp_after) == (8, 8)
    _, m2 = two(["Paralysis"], [])
    assert m2.dv == 11
    _, m2 = two(["Petrification"], ["Construct"])
    assert m2.dv == 12
    _, m2 = two(["Energy Drain"], [])
    assert (m2.om, m2.dv) == (1, 11)


def test_fear_and_what_resists_it() -> None:
    """Fear: the damaged orcs check Morale DC 10 + our ACR 3 = 13; d20 5 fails: afraid, no attack in Melee 2.
    Aura of Courage (immune to fear): no check. Unnatural Aura works only on animals: none against the orcs, a
    check once they ride (Mounts). Bravery +1 adds to the check: 5 + 1 = 6."""
    rolls = {"w1_r1_ours": [14], "w1_r1_enemy": [2], "w1_r1_enemy_fear": [5], "w1_r2_ours": [1], "w1_r2_enemy": [15]}

    def checks(ours: list[str], foe: list[str], resources: dict[str, int] | None = None) -> tuple[list[Any], bool]:
        """The orcs' Morale checks in Melee 1, and whether they attacked in Melee 2."""
        s = field({"specials": ours}, {"specials": foe})
        if resources:
            s = s.model_copy(update={"armies": {**s.armies, "A2": s.armies["A2"].model_copy(
                update={"resources": resources})}})
        phases, _, _ = fight(s, rolls, max_rounds=2)
        return list(phases[0].sides[1].morale_checks), phases[1].sides[1].offense is not None
    got, attacked = checks(["Fear"], [])
    assert got[0].dc == 13 and not got[0].success and not attacked
    assert checks(["Fear"], ["Aura of Courage"]) == ([], True)
    assert checks(["Unnatural Aura"], []) == ([], True)
    assert checks(["Unnatural Aura"], [], {"Mounts": 1})[0][0].purpose == "fear"
    assert checks(["Fear"], ["Bravery +1"])[0][0].modifier == 1


# ------------------------------------------------------------------ Morale


def test_morale_against_routs_and_withdrawals() -> None:
    """Melee 1: d20 18 + 3 = 21 vs DV 12: 9 damage, the orcs at 11 − 9 = 2, at or below their ACR 2: a DC 15 rout
    check (UC Rout). Its modifier: plain 0; our Grab −2; their Inspire Courage +2; their Bravery +1 with our Grab:
    −1. Withdraw: an army with Teleportation withdraws whatever the dice (1 against 20); Track adds our ACR 3 to
    holding a withdrawing army."""
    rolls = {"w1_r1_ours": [18], "w1_r1_enemy": [2], "w1_r1_enemy_rout": [10]}

    def rout_mod(ours: list[str], foe: list[str]) -> int:
        phases, _, _ = fight(field({"specials": ours}, {"specials": foe}), rolls, max_rounds=1)
        side = phases[0].sides[1]
        assert side.hp_after == 2
        return int(next(c for c in side.morale_checks if c.purpose == "rout").modifier)
    assert rout_mod([], []) == 0
    assert rout_mod(["Grab"], []) == -2
    assert rout_mod([], ["Inspire Courage"]) == 2
    assert rout_mod(["Grab"], ["Bravery +1"]) == -1
    wr = {"w1_r1_ours": [1], "w1_r1_enemy": [1], "w1_r1_enemy_withdraw": [1], "w1_r1_enemy_withdraw_vs": [20]}
    phases, end, _ = fight(field(None, {"specials": ["Teleportation"]}), wr, enemy_tactic="Withdraw", max_rounds=1)
    assert end.outcomes[1].result == "withdrew"
    phases, _, _ = fight(field({"specials": ["Track"]}), wr, enemy_tactic="Withdraw", max_rounds=1)
    assert phases[0].sides[0].morale_checks[0].modifier == 3


# ------------------------------------------------------------------ healing


def test_healing_each_phase_and_regenerating_from_zero() -> None:
    """Fast Healing 4: +2 hp a phase; Regeneration 6: +3. The orcs hit for d20 20 + 2 = 22 vs 13: 9 (16 → 7),
    then heal at the start of Melee 2: 7 + 2 = 9 (Fast Healing 4). Regeneration: our Guard at 3 hp falls to 0 in
    the phase it defeats the orcs: no enemy stands to finish it, so it is victorious (hp raised to its ACR 3)."""
    rolls = {"w1_r1_ours": [1], "w1_r1_enemy": [20], "w1_r2_ours": [1], "w1_r2_enemy": [2]}
    phases, _, _ = fight(field({"specials": ["Fast Healing 4"]}), rolls, max_rounds=2)
    assert (phases[0].sides[0].hp_after, phases[1].sides[0].hp_after) == (7, 9)
    s = field({"specials": ["Regeneration 6"]})
    s = s.model_copy(update={"armies": {**s.armies, "A1": s.armies["A1"].model_copy(update={"hp": 3}),
                                        "A2": s.armies["A2"].model_copy(update={"hp": 5})}})
    phases, end, _ = fight(s, {"w1_r1_ours": [20], "w1_r1_enemy": [20], "w1_victory_1": [1],
                               "w1_victory_2": [1]})
    m1 = phases[0].sides[0]
    assert m1.hp_before == 3 and m1.hp_after == 0 and m1.status == "fighting"  # 3 + 3 regenerated − 9
    assert [o.result for o in end.outcomes] == ["victorious", "defeated"] and end.outcomes[0].hp_after == 3


def test_ordered_heals() -> None:
    """Alchemy (once a battle): heals 2 × ACR 3 = 6, no attack that phase. Channel Positive Energy (heal): heals
    ACR 3 and OM − ACR // 2 = 1 that phase (OM 2). Hex (healing): half the ACR, 1."""
    s = field({"specials": ["Alchemy", "Channel Positive Energy", "Hex (healing)"]})
    s = s.model_copy(update={"armies": {**s.armies, "A1": s.armies["A1"].model_copy(update={"hp": 5})}})
    rolls = {f"w1_r{i}_{x}": [2] for i in (1, 2, 3) for x in ("ours", "enemy")}
    rounds = [{"ours_use": ["Alchemy"]}, {"ours_use": ["Channel Positive Energy (heal)"]},
              {"ours_use": ["Hex"]}]
    phases, _, _ = fight(s, rolls, rounds=rounds, max_rounds=3)
    a, b, c = (p.sides[0] for p in phases)
    assert (a.hp_after, a.offense) == (11, None)
    assert (b.hp_after, b.om) == (14, 2)
    assert c.hp_after == 15 and c.om == 3
    healed, _, _ = fight(s, rolls, rounds=[{"ours_use": ["Hex (healing)"]}], max_rounds=1)  # as written on the army
    assert healed[0].sides[0].hp_after == 6  # 5 hp, healed half the ACR 3 by Hex (healing)
    with pytest.raises(RuleError, match="used Alchemy already"):
        fight(s, rolls, rounds=[{"ours_use": ["Alchemy"]}, {"ours_use": ["Alchemy"]}], max_rounds=2)
    with pytest.raises(RuleError, match="not undead: negative energy"):
        fight(field({"specials": ["Channel Negative Energy"]}), rolls,
              rounds=[{"ours_use": ["Channel Negative Energy (heal)"]}])
    with pytest.raises(InputError, match=r"'Rage' is not an order our lead army can be given .*; allowed: Alchemy, "
                                         r"Channel Positive Energy \(heal\), Hex"):  # refused as the plan enters
        fight(s, rolls, ours_use=["Rage"])


# ------------------------------------------------------------------ ordered abilities


def test_rage_challenge_smite_and_specialization() -> None:
    """Rage: OM 3 + 2 = 5, DV 13 − 1 = 12, and no Defensive Wall while raging. Challenge: OM +2 against the army
    challenged (5). Smite Evil: +2 against an army the GM lists as evil (5), +4 against undead (7), nothing (3) and
    a ruling against one not listed. Weapon Specialization (melee): OM +2 for one phase (5, then 3)."""
    us, _ = melee1(field({"specials": ["Rage"]}), ours_use=["Rage"])
    assert (us.om, us.dv) == (5, 12)
    with pytest.raises(RuleError, match="raging: no Defensive Wall"):
        fight(field({"specials": ["Rage"], "tactics": ["Defensive Wall"]}), {}, ours_use=["Rage"],
              rounds=[{"ours_tactic": "Defensive Wall"}])
    us, _ = melee1(field({"specials": ["Challenge", "Order"]}), ours_use=["Challenge"])
    assert (us.om, us.dv) == (5, 14)
    smite = field({"specials": ["Smite Evil"]})
    assert melee1(smite, rounds=[{"ours_use": ["Smite Evil"]}], evil=["A2"])[0].om == 5
    undead = field({"specials": ["Smite Evil"]}, {"specials": ["Undead"]})
    assert melee1(undead, rounds=[{"ours_use": ["Smite Evil"]}])[0].om == 7
    phases, _, rulings = fight(smite, {}, rounds=[{"ours_use": ["Smite Evil"]}], max_rounds=1)
    assert phases[0].sides[0].om == 3 and [r.ability for r in rulings] == ["Smite Evil"]
    phases, _, _ = fight(field({"specials": ["Weapon Specialization"]}), {"w1_r1_enemy": [2], "w1_r2_enemy": [2]},
                         ours_use=["Weapon Specialization (melee)"], max_rounds=2)
    assert [p.sides[0].om for p in phases] == [5, 3]


def test_sandstorm_and_wild_shape_for_the_rest_of_the_battle() -> None:
    """Create Sandstorm (Melee 2): half damage from then on: d20 14 + 3 = 17 vs 12: 5 → 2. Wild Shape (Flight)
    loses Spellcasting 2: OM 5 → 3, DV 15 → 13; Combat Style (melee) OM +1 for the rest of the battle."""
    s = field({"specials": ["Create Sandstorm"]})
    rolls = {"w1_r1_ours": [14], "w1_r1_enemy": [2], "w1_r2_ours": [14], "w1_r2_enemy": [2]}
    phases, _, _ = fight(s, rolls, rounds=[{}, {"ours_use": ["Create Sandstorm"]}], max_rounds=2)
    assert [p.sides[0].offense.damage for p in phases] == [5, 2]
    s = field({"specials": ["Spellcasting 2", "Wild Shape", "Combat Style"]})
    phases, _, _ = fight(s, rolls, rounds=[{"ours_use": ["Combat Style (melee)"]},
                                           {"ours_use": ["Wild Shape (Flight)"]}], max_rounds=2)
    assert [(p.sides[0].om, p.sides[0].dv) for p in phases] == [(6, 15), (4, 13)]


# ------------------------------------------------------------------ fortifications


def test_fortifications_against_climbers_teleporters_fliers_and_burrowers() -> None:
    """The orcs hold a fortification of Defense 8: DV 12 + 8 = 20. Climb: a quarter off, rounded down: 8 − 2 = 6,
    DV 18. Teleportation: none, DV 12. Burrow: Melee 1 spent digging (no attack, the orcs cannot reach us), Melee 2
    the fortification gives nothing: DV 12. A flier against a fortification given as a number: the GM is asked
    what its City Wall adds."""
    fort = {"conditions": [{"name": "Fortifications", "side": "enemy"}], "fortification": 8}
    assert melee1(field(), **fort)[1].dv == 20
    assert melee1(field({"specials": ["Climb"]}), **fort)[1].dv == 18
    assert melee1(field({"specials": ["Teleportation"]}), **fort)[1].dv == 12
    phases, _, _ = fight(field({"specials": ["Burrow"]}), {"w1_r1_enemy": [20], "w1_r2_ours": [2],
                                                           "w1_r2_enemy": [2]},
                         rounds=[{"ours_use": ["Burrow"]}, {}], max_rounds=2, **fort)
    (u1, t1), (_u2, t2) = (p.sides for p in phases)
    assert u1.offense is None and t1.offense is None and t1.dv == 20 and t2.dv == 12
    _, _, rulings = fight(field({"specials": ["Flight"]}), {}, max_rounds=1, **fort)
    assert [r.ability for r in rulings] == ["Flight"]


def test_ferocity_fights_one_more_phase() -> None:
    """Orcs with Ferocity at 3 hp take 23 − 12 = 11: 0 hp, but fight Melee 2 at OM 2 − 4 = −2 and DV 12 − 4 = 8;
    then they are defeated."""
    s = field(None, {"specials": ["Ferocity"]})
    s = s.model_copy(update={"armies": {**s.armies, "A2": s.armies["A2"].model_copy(update={"hp": 3})}})
    phases, end, _ = fight(s, {"w1_r1_ours": [20], "w1_r1_enemy": [2], "w1_r2_ours": [2], "w1_r2_enemy": [15],
                               "w1_victory_1": [1], "w1_victory_2": [1]}, max_rounds=3)
    (m1, m2) = (p.sides[1] for p in phases)
    assert (m1.hp_after, m1.status) == (0, "fighting")
    assert (m2.om, m2.dv, m2.status) == (-2, 8, "defeated") and m2.offense is not None
    assert end.outcomes[1].result == "defeated" and len(phases) == 2


# ------------------------------------------------------------------ the GM's rulings


def test_what_the_engine_cannot_decide_is_a_gm_ruling() -> None:
    """A Medium army of ours (ACR 1): Disease (it damaged the orcs), Create Spawn (it destroyed a living army its
    size or larger; our Large army would not qualify against Medium orcs), Cannibalize
    (it won), Mobility (no terrain known), Armor Training (when raised): each a pf1.army_ruling_needed event."""
    s = field({"size": "Medium", "specials": ["Disease", "Create Spawn", "Cannibalize", "Mobility (swamp)"]})
    _phases, end, rulings = fight(s, {"w1_r1_ours": [20], "w1_r1_enemy": [2], "w1_r1_enemy_rout": [20],
                                     "w1_r2_ours": [20],
                                     "w1_r2_enemy": [2], "w1_victory_1": [1], "w1_victory_2": [1]})
    assert end.outcomes[0].result == "victorious"
    assert {r.ability for r in rulings} == {"Disease", "Create Spawn", "Cannibalize", "Mobility"}
    assert all(r.battle == "W1" and r.army == "A1" for r in rulings)
    s = kingdom(3, treasury=100)
    s = s.model_copy(update={"counters": s.counters.model_copy(update={"districts": 0})})
    _, ps = step(s, "improvement", {"armies": [{**OURS, "specials": ["Armor Training"]}]})
    assert [p.ability for p in ps if isinstance(p, ev.ArmyRulingNeeded)] == ["Armor Training"]
    us, _ = melee1(field({"specials": ["Mobility (swamp)"]}), terrain="SWAMP")
    assert us.om == 4


def test_more_conditional_numbers() -> None:
    """Sneak Attack: OM +1 with Expert Flankers (3 + 2 + 1 = 6; DV 13 − 2 = 11) and when ambushing (d20 10 + 4 =
    14 recorded in the Tactics phase). Trip: the army it attacks has DV −1 in Melee (orcs 11). Rock Catching: DV +1
    against ranged attacks (orcs 13 in the Ranged phase), +2 against rock throwers (14). Hunter's Bond
    (companions), ordered: OM +1 for the rest of the battle. Judgment (defense): DV +1 that phase."""
    us, _ = melee1(field({"specials": ["Sneak Attack"], "tactics": ["Expert Flankers"]}),
                   ours_tactic="Expert Flankers")
    assert (us.om, us.dv) == (6, 11)
    phases, _, _ = fight(field({"specials": ["Sneak Attack"]}), {"w1_ambush": [10]}, ambush="ours", max_rounds=1)
    assert phases[0].kind == "tactics" and phases[0].sides[0].om == 4
    assert melee1(field({"specials": ["Trip"]}))[1].dv == 11
    for ours, want in ((["Breath Weapon"], 13), (["Rock Throwing"], 14)):
        phases, _, _ = fight(field({"specials": ours}, {"specials": ["Rock Catching"]}), {}, max_rounds=1)
        assert phases[0].kind == "ranged" and phases[0].sides[1].dv == want
    s = field({"specials": ["Hunter's Bond (companions)", "Judgment"]})
    phases, _, _ = fight(s, {"w1_r1_enemy": [2], "w1_r2_enemy": [2]}, max_rounds=2,
                         rounds=[{"ours_use": ["Hunter's Bond", "Judgment (defense)"]}, {}])
    assert [(p.sides[0].om, p.sides[0].dv) for p in phases] == [(4, 14), (4, 13)]


def test_magic_attacks_and_afflictions_by_place_and_immunity() -> None:
    """Ki Pool makes attacks magic: against incorporeal orcs d20 14 + 3 = 17 vs 12: 5, halved: 2 (none without).
    Judgment (magic) the same. Vortex works as paralysis only on armies in the water: the orcs' DV 12 in Melee 2
    on land, 11 in the water (12 + 0, the Water condition changes no DV by itself). Immunity (Poison): no bleed
    from Poison. Poison Resistance +2: the poison's 1d6 (4) less half of 2: 3 (orcs 11 − 5 − 3 = 3)."""
    rolls = {"w1_r1_ours": [14], "w1_r1_enemy": [2], "w1_r2_ours": [1], "w1_r2_enemy": [2],
             "w1_r2_enemy_bleed": [4]}
    phases, _, _ = fight(field({"specials": ["Ki Pool"]}, {"specials": ["Incorporeal"]}), rolls, max_rounds=1)
    assert phases[0].sides[0].offense.damage == 2
    phases, _, _ = fight(field({"specials": ["Judgment"]}, {"specials": ["Incorporeal"]}), rolls, max_rounds=1,
                         ours_use=["Judgment (magic)"])
    assert phases[0].sides[0].offense.damage == 2

    def melee2(ours: list[str], foe: list[str], **kw: Any) -> Any:
        phases, _, _ = fight(field({"specials": ours}, {"specials": foe}), rolls, max_rounds=2, **kw)
        return phases[1].sides[1]
    assert melee2(["Vortex"], []).dv == 12
    assert melee2(["Vortex"], [], conditions=[{"name": "Water", "side": "enemy"}]).dv == 11
    assert melee2(["Poison"], ["Immunity (Poison)"]).hp_after == 6
    assert melee2(["Poison"], ["Poison Resistance +2"]).hp_after == 3
    assert melee2(["Bleed"], ["Poison Resistance +2"]).hp_after == 2  # a bleed that is not poison: 4


def test_channel_negative_energy_and_flight_out_of_reach() -> None:
    """Channel Negative Energy: +1d4 (3) in Melee against the living orcs (17 vs 12: 5 + 3 = 8), none against a
    construct (5). Flight ordered in Melee: no attack, and the orcs (no flight) cannot reach it."""
    rolls = {"w1_r1_ours": [14], "w1_r1_enemy": [14], "w1_r1_ours_channel": [3]}
    phases, _, _ = fight(field({"specials": ["Channel Negative Energy"]}), rolls, max_rounds=1)
    assert phases[0].sides[0].offense.damage == 8
    phases, _, _ = fight(field({"specials": ["Channel Negative Energy"]}, {"specials": ["Construct"]}), rolls,
                         max_rounds=1)
    assert phases[0].sides[0].offense.damage == 5
    phases, _, _ = fight(field({"specials": ["Flight"]}), rolls, max_rounds=1, rounds=[{"ours_use": ["Flight"]}])
    us, them = phases[0].sides
    assert us.offense is None and them.offense is None and "out of reach in melee" in " ".join(them.notes)


def test_brew_potion_buys_healing_potions_without_the_buildings() -> None:
    """Healing Potions need an Alchemist, Temple, … (none here): refused; with an army of ours that Brews Potions
    (or has Hex (cauldron)) they are bought, 10 BP × 2 for a Large army."""
    s = field()
    s = s.model_copy(update={"counters": s.counters.model_copy(update={"districts": 0})})
    act = {"army_actions": [{"army": "A1", "action": "equip", "resource": "Healing Potions"}]}
    with pytest.raises(RuleError, match="needs a settlement with one of"):
        step(s, "improvement", act)
    for brewer in ("Brew Potion", "Hex (cauldron)"):
        b = field({"specials": [brewer]})
        b = b.model_copy(update={"counters": b.counters.model_copy(update={"districts": 0})})
        _, ps = step(b, "improvement", act)
        eq = ps[-1]
        assert isinstance(eq, ev.ArmyEquipped) and eq.cost_bp == 20


def test_the_specials_pick_offers_what_can_be_written() -> None:
    """The form's options: each is raisable as offered, or the step says what it needs written with it; the
    abilities chosen from a list are offered with each choice."""
    from kingdomlog.rulesets.pf1.vocabulary import _specials
    s = kingdom(1)
    mc = s.catalog.mass_combat
    opts = [str(o.value) for o in _specials(s, {})]
    assert {"Hex (healing)", "Hex (cauldron)", "Immunity (Poison)"} <= set(opts) and "Hex" not in opts
    needs = []
    for o in opts:
        try:
            assert sx.check(mc, o, "t") == o
        except InputError as e:
            needs.append(o)
            assert "needs its" in str(e)
    assert sorted(needs) == ["Fast Healing", "Favored Enemy", "Mobility", "Regeneration"]


def test_a_flier_ignores_only_the_city_wall() -> None:
    """Our Guard holds a settlement whose only defence is a City Wall (Defense 4): DV 13 + 4 = 17 against the orcs;
    against flying orcs the wall counts for nothing: 13."""
    walls = [ev.CityFounded(city="C1", name="Keep", hex="H0", capital=True),
             ev.DistrictPreparationStarted(city="C1", district="D1", hex="H0", terrain="GRASSLAND", cost_bp=0,
                                           months=0, ready_on_turn=1), ev.DistrictReady(district="D1"),
             ev.BuildingConstructed(building="B1", city="C1", district="D1", building_type="City Wall", lots=(),
                                    base_cost_bp=0, cost_bp=0, unrest_delta=0)]
    held = {"hex": "H0", "conditions": [{"name": "Fortifications", "side": "ours"}]}
    assert melee1(field(extra=walls), **held)[0].dv == 17
    assert melee1(field(None, {"specials": ["Flight"]}, extra=walls), **held)[0].dv == 13


def test_trap_sense_and_rage_without_hold_the_line() -> None:
    """Siegebreaker against orcs with siege engines: the check d20 9 + OM 3 = 12 must beat the orcs' DV 12, and
    fails; with Trap Sense (+ half its ACR 3: 1) 13 beats it and an engine is destroyed. A raging army gets no Hold
    the Line reroll of a failed rout check (the orcs' 22 vs DV 13 or 12 leaves us at 3 or 2 of 12, ≤ ACR 3)."""
    s = field({"specials": [], "tactics": ["Siegebreaker"]})
    s = s.model_copy(update={"armies": {**s.armies, "A2": s.armies["A2"].model_copy(
        update={"resources": {"Siege Engines": 1}})}})
    rolls = {"w1_r1_ours": [14], "w1_r1_enemy": [2], "w1_r1_ours_siegebreaker": [9]}

    def broke(state: Any) -> bool:
        phases, _, _ = fight(state, rolls, max_rounds=1, ours_tactic="Siegebreaker")
        return "a siege engine destroyed (GM removes it)" in phases[0].sides[1].notes
    assert not broke(s)
    trap = s.model_copy(update={"armies": {**s.armies, "A1": s.armies["A1"].model_copy(
        update={"specials": ("Trap Sense",)})}})
    assert broke(trap)
    cmd = {"name": "Valeros", "level": 1, "boons": ["Hold the Line"]}
    rout = {"w1_r1_ours": [2], "w1_r1_enemy": [20], "w1_r1_ours_rout": [1], "w1_r1_ours_rout_reroll": [20]}
    for use, reroll in (([], True), (["Rage"], False)):
        s2 = field({"specials": ["Rage"], "commander": cmd})
        s2 = s2.model_copy(update={"armies": {**s2.armies, "A1": s2.armies["A1"].model_copy(update={"hp": 12})}})
        phases, _, _ = fight(s2, rout, max_rounds=1, ours_use=use)
        purposes = [c.purpose for c in phases[0].sides[0].morale_checks]
        assert ("rout (Hold the Line reroll)" in purposes) == reroll, use


def test_inspire_courage_and_hunters_bond_given_to_an_ally() -> None:
    """Inspire Courage may go to an allied army instead: our Guard's OM 3 + 1 = 4 falls back to 3, the Militia
    (Medium warriors CR 1/3: OM 0) gets 0 + 1 = 1. Hunter's Bond (companions) ordered for the Militia: its OM
    +1 (1), ours unchanged (3)."""
    def with_militia(specials: list[str]) -> Any:
        s = field({"specials": specials})
        s = s.model_copy(update={"counters": s.counters.model_copy(update={"districts": 0})})
        s, _ = step(s, "improvement", {"armies": [{"name": "Militia", "unit_cr": "1/3", "hd": 10}]})
        return s
    rolls = {"w1_r1_ours": [2], "w1_r1_A3": [2], "w1_r1_enemy": [2]}
    s = with_militia(["Inspire Courage"])
    assert s.armies["A1"].om == 4
    phases, _, _ = fight(s, rolls, allies=["A3"], ours_use=["Inspire Courage (A3)"], max_rounds=1)
    oms = {x.army: x.om for x in phases[0].sides}
    assert (oms["A1"], oms["A3"]) == (3, 1)
    phases, _, _ = fight(with_militia(["Hunter's Bond (companions)"]), rolls, allies=["A3"],
                         ours_use=["Hunter's Bond (A3)"], max_rounds=1)
    oms = {x.army: x.om for x in phases[0].sides}
    assert (oms["A1"], oms["A3"]) == (3, 1)
    with pytest.raises(InputError, match=r"'Inspire Courage \(A2\)' is not an order our lead army can be given"):
        fight(s, rolls, ours_use=["Inspire Courage (A2)"], max_rounds=1)  # A2 is the enemy: no ally to name


def test_rage_switches_a_running_defensive_strategy_to_standard() -> None:
    """Round 1 orders the Defensive strategy (OM 3 − 4 = −1, DV 13 + 4 = 17); Rage in round 2 switches it to the
    standard strategy (UC Rage): OM 3 + 2 = 5, DV 13 − 1 = 12, and so it stays in round 3."""
    rolls = {f"w1_r{i}_{x}": [2] for i in (1, 2, 3) for x in ("ours", "enemy")}
    phases, _, _ = fight(field({"specials": ["Rage"]}), rolls, max_rounds=3,
                         rounds=[{"ours_strategy": "Defensive"}, {"ours_use": ["Rage"]}])
    assert [(p.sides[0].om, p.sides[0].dv, p.sides[0].strategy) for p in phases] == [
        (-1, 17, "Defensive"), (5, 12, "Standard"), (5, 12, "Standard")]
