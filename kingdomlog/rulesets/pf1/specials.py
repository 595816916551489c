"""Army special abilities (UC Kingdoms and War, Mass Combat: Special Abilities) as written on an army.

An army's ``specials`` are the ability names of data/mass_combat.toml, with the army's number or choice where the
ability takes one: ``Bravery +1``, ``Fast Healing 5``, ``Favored Enemy (orc)``, ``Hex (cauldron)``. ``KINDS`` is
every rule the battle engine (battle.py) applies, by the ``kind`` the data gives each ability: an ability whose kind
is not here would be silently ignored, and a test refuses that. ``RULING_KINDS`` are the kinds whose effect the
engine cannot decide (days after the battle, the GM's choice, a fortification's parts): it announces them with a
``pf1.army_ruling_needed`` event when they matter.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kingdomlog.core.errors import InputError
from kingdomlog.rulesets.pf1.state import Army, Pf1State
from kingdomlog.rulesets.pf1.tables import ArmySpecial, MassCombat

KINDS: dict[str, str] = {
    "alchemy": "order: heals 2 × ACR once a battle, no attack that phase",
    "amphibious": "cancels Aquatic's land penalty; water in a fortification: GM ruling",
    "aquatic": "OM/DV against armies in the Water condition, OM penalty against armies on land",
    "armor_training": "speed only: GM ruling when raised",
    "bleed": "1d6 at the start of the next phase after a damaging Melee hit",
    "breath": "ranged; +1d4 damage",
    "brew_potion": "Healing Potions without their buildings",
    "bright_light": "OM and DV penalty in the Bright Light condition",
    "burrow": "order: digs a phase (untouchable but by burrowers), then ignores the fortification",
    "cannibalize": "Consumption −1 the week of a victory: GM ruling",
    "challenge": "order: OM + vs the challenged army, DV − vs others, for the rest of the battle",
    "channel_negative": "+1d4 Melee damage vs the living; order (heal) for undead",
    "channel_positive": "+1d4 Melee damage vs undead; order (heal)",
    "climb": "an enemy fortification's Defense a quarter lower",
    "combat_style": "order: OM +1 on melee or ranged attacks for the rest of the battle",
    "construct": "not living; immunities",
    "courage": "Morale bonus against fear and routs (Inspire Courage: order it for an ally)",
    "create_sandstorm": "order: the Sandstorm condition for the rest of the battle",
    "create_spawn": "destroying a living army its size: GM ruling",
    "darkvision": "no Darkness or Dim Light penalty",
    "disease": "a damaged army falls sick after the battle: GM ruling",
    "earth_glide": "burrows like Burrow; earth and stone fortifications: GM ruling",
    "energy_drain": "each damaging hit: the target's OM and DV −1 for the battle",
    "evasion": "attackers get half their Spellcasting OM and half their breath damage",
    "fast_healing": "heals half its value each Ranged or Melee phase",
    "favored_enemy": "OM + against the named creature",
    "favored_terrain": "halves the enemy's terrain and battlefield advantage bonuses",
    "fear": "a damaged army checks Morale or is afraid; afraid twice: routs",
    "ferocity": "one more Melee phase at −4 after defeat or rout",
    "flight": "order: no attack, only fliers attack it in melee; City Walls give no Defense against it",
    "flurry": "OM +1 / +2 in Melee",
    "grab": "its target −2 on Morale checks against routs and to withdraw",
    "hex": "healing: order once a battle; cauldron: as Brew Potion",
    "hunters_bond": "companions: order, OM +1 for the battle (itself or an ally); animal: OM +1",
    "immunity": "immune to the named ability",
    "incorporeal": "no damage from nonmagical attacks, half from magic; ignores armor; always withdraws; mobility",
    "invisibility": "attackers OM −2, its targets DV −2; unstoppable withdrawal",
    "judgment": "order each phase: damage +1, DV +1, healing or magic attacks",
    "lowlight": "no Dim Light penalty",
    "magic": "its attacks count as magic",
    "mercy": "cures a diseased ally after the battle: GM ruling",
    "mindless": "never fails Morale; standard tactic and strategy",
    "mobility": "OM + in its terrain against armies without it",
    "no_rout": "never routs; immune to fear",
    "order": "DV + against the challenged army",
    "paralysis": "each damaging hit: the target's DV −1 for the battle",
    "plant": "immunities (plants are living)",
    "poison_resistance": "poison bleed against it reduced",
    "rage": "order: OM +, DV −, Morale vs fear/rout +; some tactics and strategies barred",
    "regeneration": "heals half its value each phase; at 0 hp defeated only if an enemy stands",
    "rock_catching": "DV + against ranged attacks",
    "rock_throwing": "ranged; +4 damage in the Ranged phase",
    "senses_half": "darkness, invisibility and weather penalties halved",
    "senses_none": "no darkness, invisibility or weather penalties",
    "significant_defense": "DV +10 against armies not in the battle's overcome list",
    "smite": "order: OM + against an evil army for one Melee phase",
    "sneak_attack": "OM +1 ambushing, with Expert Flankers, after a False Retreat",
    "spell_resistance": "DV + against armies with Spellcasting",
    "spellcasting": "OM and DV + the spell level; magic attacks",
    "swarm": "half damage from nonmagical attacks, 1.5 × from magic; ignores armor; always withdraws",
    "tactician": "one more known tactic",
    "teleportation": "fortifications give no Defense against it; always withdraws",
    "track": "+ACR to stop a withdrawal and to DV against an ambush; fog damage −¼ not −½",
    "trap_sense": "+half ACR to Siegebreaker's check",
    "trip": "its target's DV −1 each Melee phase",
    "undead": "not living; immunities",
    "weapon_specialization": "order: OM +2 for one melee or ranged phase",
    "wild_shape": "order: gains a form's ability and loses Spellcasting",
}
"""Every kind the battle rules apply (what they do, in short)."""

RULING_KINDS = frozenset({"amphibious", "armor_training", "cannibalize", "create_spawn", "disease", "earth_glide",
                          "flight", "mercy", "significant_defense", "favored_enemy", "mobility", "fast_healing",
                          "regeneration", "smite"})
"""Kinds that may need the GM's ruling (their data says what): announced as ``pf1.army_ruling_needed``."""

NOT_LIVING = frozenset({"undead", "construct"})

_CHOICE = re.compile(r"^(?P<name>.+?)\s*\((?P<v>[^()]+)\)$")
_NUMBER = re.compile(r"^(?P<name>.+?)\s+(?P<v>[+-]?\d+)$")


def split(text: str) -> tuple[str, str | None]:
    """``Bravery +1`` → (Bravery, 1); ``Favored Enemy (orc)`` → (Favored Enemy, orc); ``Undead`` → (Undead, None)."""
    t = text.strip()
    m = _CHOICE.match(t) or _NUMBER.match(t)
    if m is None:
        return t, None
    return m["name"].strip(), m["v"].strip().lstrip("+")


def check(mc: MassCombat, text: str, where: str) -> str:
    """One ability as written on an army, validated and written the one way (``Name N`` or ``Name (choice)``)."""
    name, v = split(text)
    by_lower = {k.lower(): x for k, x in mc.specials.items()}
    whole = by_lower.get(text.strip().lower())
    sp = whole or by_lower.get(name.lower())
    if sp is None:
        raise InputError(f"[{where}] unknown army special ability {text!r}")
    if whole is not None:
        v = None
    if sp.param is None:
        if v is not None:
            raise InputError(f"[{where}] {sp.name} takes no number or choice (got {text!r})")
        return sp.name
    if sp.param == "number":
        if v is None:
            if sp.default is None:
                raise InputError(f"[{where}] {sp.name} needs its value, e.g. '{sp.name} 5'")
            return sp.name
        if not v.isdigit() or int(v) > 99:
            raise InputError(f"[{where}] {sp.name} needs a whole number from 0 to 99 (got {text!r})")
        return f"{sp.name} {int(v)}"
    if v is None:
        hint = f"one of {', '.join(sp.choices)}" if sp.choices else "a creature or terrain"
        raise InputError(f"[{where}] {sp.name} needs its choice in brackets ({hint}), e.g. "
                         f"'{sp.name} ({sp.choices[0] if sp.choices else 'orc'})'")
    if sp.choices:
        canon = {c.lower(): c for c in sp.choices}
        if v.lower() not in canon:
            raise InputError(f"[{where}] {sp.name} ({v}): choose one of {', '.join(sp.choices)}")
        v = canon[v.lower()]
    elif sp.kind == "immunity" and v not in mc.specials:
        raise InputError(f"[{where}] Immunity ({v}): {v!r} is not an army special ability")
    return f"{sp.name} ({v})"


def held(mc: MassCombat, specials: Iterable[str]) -> dict[str, tuple[ArmySpecial, str | None]]:
    """The abilities named in ``specials`` with their value (unknown names are skipped: a logged army keeps names
    a later catalogue may lack)."""
    out: dict[str, tuple[ArmySpecial, str | None]] = {}
    for text in specials:
        sp = mc.specials.get(text)
        v: str | None = None
        if sp is None:
            name, v = split(text)
            sp = mc.specials.get(name)
        if sp is not None:
            out[sp.name] = (sp, v)
    return out


def of(s: Pf1State, a: Army) -> dict[str, tuple[ArmySpecial, str | None]]:
    return held(s.catalog.mass_combat, a.specials)


def number(s: Pf1State, a: Army, name: str) -> int | None:
    """The army's number for ``name`` (its default when written without one); None when it lacks the ability."""
    h = of(s, a).get(name)
    if h is None:
        return None
    sp, v = h
    return int(v) if v is not None and v.isdigit() else sp.default


def choice(s: Pf1State, a: Army, name: str) -> str | None:
    h = of(s, a).get(name)
    return h[1] if h is not None else None


def immune(s: Pf1State, a: Army, ability: str) -> bool:
    """UC Immunity: an army immune to an ability (or to the one it functions as) gives its holder nothing."""
    mc = s.catalog.mass_combat
    sp = mc.specials.get(ability)
    names = {ability} | ({sp.like} if sp is not None and sp.like else set())
    return any(names & set(x.immune) or (x.kind == "immunity" and v in names) for x, v in of(s, a).values())
