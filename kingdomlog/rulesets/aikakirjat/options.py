"""Campaign options of aikakirjat: one per proposal that changes numbers (spec §8.4)."""

from __future__ import annotations

from typing import Any

from kingdomlog.core.ruleset import OptionSpec

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("modifier_formula", "choice", "5e", "score → modifier: floor((score − 10)/2) (A2)", ("5e",)),
    OptionSpec("corruption_overflow", "choice", "carry", "points over the score: carry the rest (A5) or reset to 0",
               ("carry", "reset")),
    OptionSpec("revolution_threshold", "choice", "gte20", "revolution at unrest ≥ 20 (A11) or > 20", ("gte20", "gt20")),
    OptionSpec("damage_die", "choice", "militia_damage_die", "attack damage die (A19)",
               ("militia_damage_die", "levy_die")),
    OptionSpec("tech_extra_dice", "choice", "one_plus_difference", "damage dice from a technology gap (A63)",
               ("one_plus_difference", "difference")),
    OptionSpec("defence_base", "int", 8, "base of the defence value (A61)", minimum=0, maximum=20),
    OptionSpec("growth_check", "choice", "agriculture_stability", "the growth roll (A45)",
               ("agriculture_stability", "stability")),
    OptionSpec("hold_level_ability", "choice", "stability", "ability of the hold-level check (A14)",
               ("culture", "economy", "loyalty", "stability")),
    OptionSpec("province_hexes", "int", 100, "hexes per province (§3.9)", minimum=1),
    OptionSpec("phex_hexes", "int", 400, "hexes per planetary hex (§3.9)", minimum=1),
    OptionSpec("triangle_in_phex", "int", 300, "planetary hexes per triangle (A44)", minimum=1),
    OptionSpec("planet_triangles", "int", 20, "triangles per planet (§3.9)", minimum=1),
    OptionSpec("evil_presence_mode", "choice", "modifier", "random event 1: −1 until fixed (A30) or one point",
               ("modifier", "point")),
    OptionSpec("slightly_larger", "int", 3, "'slightly larger' for automatic wars, population points (A40)", minimum=0),
    OptionSpec("levy_gain_floor", "bool", True, "a levy die's militia gain is at least 0 (A18)"),
    OptionSpec("skill_ability_map", "table", {}, "overrides of the skill → ability mapping (§5, A77)"),
)

DEFAULTS: dict[str, Any] = {o.name: o.default for o in OPTIONS}
