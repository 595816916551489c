"""Campaign options of aikakirjat: one per proposal that changes numbers (spec §8.4)."""

from __future__ import annotations

from typing import Any

from kingdomlog.core.ruleset import OptionSpec

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("modifier_formula", "choice", "5e", "score → modifier: floor((score − 10)/2) (A2)", ("5e",),
               title="Score to modifier", said=(("5e", "(score − 10) / 2, rounded down, as in 5e"),)),
    OptionSpec("corruption_overflow", "choice", "carry", "points over the score: carry the rest (A5) or reset to 0",
               ("carry", "reset"), title="A track's points over its score",
               said=(("carry", "the rest carried over"), ("reset", "back to 0"))),
    OptionSpec("revolution_threshold", "choice", "gte20", "revolution at unrest ≥ 20 (A11) or > 20", ("gte20", "gt20"),
               title="Revolution", said=(("gte20", "at Unrest 20 or more"), ("gt20", "at Unrest over 20"))),
    OptionSpec("damage_die", "choice", "militia_damage_die", "attack damage die (A19)",
               ("militia_damage_die", "levy_die"), title="An attack's damage die",
               said=(("militia_damage_die", "the government's militia damage die"), ("levy_die", "the levy die"))),
    OptionSpec("tech_extra_dice", "choice", "one_plus_difference", "damage dice from a technology gap (A63)",
               ("one_plus_difference", "difference"), title="Damage dice across a technology gap",
               said=(("one_plus_difference", "one die, and one more per level of difference"),
                     ("difference", "one die per level of difference (at least 1)"))),
    OptionSpec("defence_base", "int", 8, "base of the defence value (A61)", minimum=0, maximum=20,
               title="Defence value's base"),
    OptionSpec("growth_check", "choice", "agriculture_stability", "the growth roll (A45)",
               ("agriculture_stability", "stability"), title="The growth roll",
               said=(("agriculture_stability", "an Agriculture (Stability) check"),
                     ("stability", "a Stability check"))),
    OptionSpec("hold_level_ability", "choice", "stability", "ability of the hold-level check (A14)",
               ("culture", "economy", "loyalty", "stability"), title="Holding a level: the check",
               said=(("culture", "Culture"), ("economy", "Economy"), ("loyalty", "Loyalty"),
                     ("stability", "Stability"))),
    OptionSpec("province_hexes", "int", 100, "hexes per province (§3.9)", minimum=1, title="Hexes per province"),
    OptionSpec("phex_hexes", "int", 400, "hexes per planetary hex (§3.9)", minimum=1,
               title="Hexes per planetary hex"),
    OptionSpec("triangle_in_phex", "int", 300, "planetary hexes per triangle (A44)", minimum=1,
               title="Planetary hexes per triangle"),
    OptionSpec("planet_triangles", "int", 20, "triangles per planet (§3.9)", minimum=1, title="Triangles per planet"),
    OptionSpec("evil_presence_mode", "choice", "modifier", "random event 1: −1 until fixed (A30) or one point",
               ("modifier", "point"), title="An evil presence (random event 1)",
               said=(("modifier", "−1 to the ability until it is dealt with"), ("point", "one corruption point"))),
    OptionSpec("slightly_larger", "int", 3, "'slightly larger' for automatic wars, population points (A40)", minimum=0,
               title="'Slightly larger' in population, for automatic wars"),
    OptionSpec("levy_gain_floor", "bool", True, "a levy die's militia gain is at least 0 (A18)",
               title="A levy die's militia gain is at least 0"),
    OptionSpec("skill_ability_map", "table", {}, "overrides of the skill → ability mapping (§5, A77)",
               title="Skills on other abilities than the spec's"),
)

DEFAULTS: dict[str, Any] = {o.name: o.default for o in OPTIONS}
