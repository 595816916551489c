"""Derived values and rule kernels of aikakirjat (spec §2, §3). Pure functions of state and numbers.

>>> fame_required(2), fame_required(20), population_required(7), proficiency_for(9)
(20, 2090, 21, 4)
>>> add_points(Track(points=2), 14, 13)
Track(points=3, modifier=-1)
>>> remove_points(Track(points=3, modifier=-1), 5, 13)
Track(points=11, modifier=0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from kingdomlog.core.errors import InputError
from kingdomlog.core.modifiers import Modifier, stack
from kingdomlog.core.ruleset import Breakdown
from kingdomlog.dice.checks import CheckSpec as OddsSpec
from kingdomlog.dice.checks import check_5e, d20_adv, d20_mode, d20_notation
from kingdomlog.rulesets.aikakirjat import tables
from kingdomlog.rulesets.aikakirjat.options import DEFAULTS
from kingdomlog.rulesets.aikakirjat.state import KingdomState, Track
from kingdomlog.rulesets.aikakirjat.tables import ABILITY_TRACK, TRACK_ABILITY, LivingSpaceRow
from kingdomlog.rulesets.aikakirjat.tape import Tape

DIE_STEPS = (4, 6, 8, 10, 12)


def opt(state: KingdomState, name: str) -> Any:
    """A campaign option recorded in the state (defaults filled at founding)."""
    return state.options.get(name, DEFAULTS[name])


# --- abilities and corruption (§2.1, §2.2) ---------------------------------------------------


def government_bonus(government: str, ability: str) -> int:
    """+2 for each ability the government lists (§3.4)."""
    return 2 if ability in tables.governments()[government].abilities else 0


def score(state: KingdomState, ability: str) -> int:
    """``base + improvements + government bonus`` (§2.1)."""
    return state.base_scores[ability] + state.improvements.get(ability, 0) + government_bonus(state.government, ability)


def modifier_of(score_value: int) -> int:
    """5e convention ``floor((score − 10) / 2)`` (§2.1, A2)."""
    return (score_value - 10) // 2


def ability_modifier(state: KingdomState, ability: str) -> int:
    return modifier_of(score(state, ability))


def add_points(track: Track, n: int, ability_score: int, overflow: str = "carry") -> Track:
    """Add ``n`` corruption points (§2.2, A5): while points exceed the score, wrap and lower the modifier."""
    p, m = track.points + n, track.modifier
    s = max(1, ability_score)
    if p > s:  # "while over: wrap", counted rather than looped (a GM's thousand points are as quick as one)
        wraps = -(-(p - s) // s) if overflow == "carry" else 1
        p, m = (p - wraps * s if overflow == "carry" else 0), m - wraps
    return Track(points=p, modifier=m)


def remove_points(track: Track, n: int, ability_score: int) -> Track:
    """Remove ``n`` points (§2.2, A6, A7): below zero with a negative modifier, wrap up; else clamp at 0."""
    p, m = track.points - n, track.modifier
    s = max(1, ability_score)
    if p < 0 and m < 0:  # "while under zero with a modifier below zero: wrap up", counted
        wraps = min(-m, (-p + s - 1) // s)
        p, m = p + wraps * s, m + wraps
    return Track(points=max(0, p), modifier=m)


def change_track(state: KingdomState, track: str, delta: int) -> KingdomState:
    """Apply ``delta`` points to ``track`` with the §2.2 algorithms."""
    s = score(state, TRACK_ABILITY[track])
    old = state.tracks[track]
    new = add_points(old, delta, s, opt(state, "corruption_overflow")) if delta >= 0 else remove_points(old, -delta, s)
    return state.model_copy(update={"tracks": {**state.tracks, track: new}})


def renormalise(state: KingdomState) -> KingdomState:
    """Re-run the overflow loop with n = 0 after score changes (A8)."""
    for t in tables.TRACKS:
        state = change_track(state, t, 0)
    return state


def corruption_modifier(state: KingdomState, ability: str) -> int:
    """The corruption modifier of ``ability``'s track, plus evil presence (§2.2, A30)."""
    return state.tracks[ABILITY_TRACK[ability]].modifier + state.evil_presence.get(ability, 0)


# --- level, fame, population (§2.3, §3.1) ------------------------------------------------------


def fame_required(level: int) -> int:
    """``5·L·(L+1) − 10`` (§3.1), equal to the table's fame column."""
    return 5 * level * (level + 1) - 10


def population_required(level: int) -> int:
    return 3 * level


def proficiency_for(level: int) -> int:
    return tables.levels()[level - 1].proficiency


def proficiency_bonus(state: KingdomState) -> int:
    return proficiency_for(state.level)


def title(state: KingdomState) -> str:
    return tables.levels()[state.level - 1].title


def max_level(state: KingdomState) -> int:
    return tables.governments()[state.government].max_level


def actions_per_year(state: KingdomState) -> int:
    """``1 + [L≥5] + [L≥11] + [L≥19]`` (§2.9)."""
    lv = state.level
    return 1 + (lv >= 5) + (lv >= 11) + (lv >= 19)


def has_feat(state: KingdomState, feat: str) -> bool:
    return any(f.feat == feat for f in state.feats)


def armies_max(state: KingdomState) -> int:
    return actions_per_year(state) + has_feat(state, "general_staff")


def step_die(die: int, steps: int, cap: int = 12) -> int:
    """Step a die up ``steps`` times along d4 → d6 → d8 → d10 → d12 (A20)."""
    i = DIE_STEPS.index(die)
    return min(cap, DIE_STEPS[min(len(DIE_STEPS) - 1, i + steps)])


def levy_die(state: KingdomState) -> int:
    """d6, one step up per Military Traditions and Census (§2.4), capped at d10."""
    return step_die(6, has_feat(state, "military_traditions") + has_feat(state, "census"), cap=10)


def militia_damage_die(state: KingdomState) -> int:
    """The government's die, stepped up by Military Traditions (§2.4, A19, option ``damage_die``)."""
    if opt(state, "damage_die") == "levy_die":
        return levy_die(state)
    return step_die(tables.governments()[state.government].damage_die, int(has_feat(state, "military_traditions")))


def unrest_modifier(unrest: int) -> int:
    """``−floor(unrest / 5)`` (§2.8)."""
    return -(unrest // 5)


def revolution_reached(state: KingdomState, unrest: int) -> bool:
    """Unrest at the revolution threshold (A11; option ``revolution_threshold``)."""
    return unrest > 20 if opt(state, "revolution_threshold") == "gt20" else unrest >= 20


# --- skills (§2.5, §5) ---------------------------------------------------------------------------


def skill_map(state: KingdomState) -> dict[str, str]:
    return {**tables.skills(), **(opt(state, "skill_ability_map") or {})}


def skill_ability(state: KingdomState, skill: str) -> str:
    try:
        return skill_map(state)[skill]
    except KeyError:
        raise InputError(f"unknown kingdom skill {skill!r}; skills: {', '.join(sorted(skill_map(state)))}") from None


def government_proficiencies(state: KingdomState) -> frozenset[str]:
    return frozenset(tables.governments()[state.government].skills)


def proficiencies(state: KingdomState) -> frozenset[str]:
    return government_proficiencies(state) | frozenset(state.chosen_proficiencies)


def active_expertise(state: KingdomState) -> frozenset[str]:
    """Expertise in a skill no longer proficient is dormant (A28)."""
    return frozenset(state.expertise) & proficiencies(state)


def proficiency_term(state: KingdomState, skill: str | None) -> int:
    if skill is None or skill not in proficiencies(state):
        return 0
    pb = proficiency_bonus(state)
    return 2 * pb if skill in active_expertise(state) else pb


def skill_bonus(state: KingdomState, skill: str) -> int:
    """A skill's static bonus: ability modifier + proficiency term (no d20, no penalties; used by A71)."""
    return ability_modifier(state, skill_ability(state, skill)) + proficiency_term(state, skill)


# --- living space (§3.9) ---------------------------------------------------------------------


def unit_size(state: KingdomState, unit: str) -> int:
    """Hexes per unit (A44; options)."""
    province = int(opt(state, "province_hexes"))
    phex = int(opt(state, "phex_hexes"))
    tri = int(opt(state, "triangle_in_phex")) * phex
    return {"hex": 1, "province": province, "phex": phex, "triangle": tri,
            "planet": int(opt(state, "planet_triangles")) * tri}[unit]


def effective_area(state: KingdomState) -> float:
    """Σ amount × unit size × quality, in hexes (§3.9 step 1)."""
    return sum(a.amount * unit_size(state, a.unit) * a.quality for a in state.territory)


def living_space_row(state: KingdomState, population: int) -> tuple[int, int, int, int]:
    """(minimum, crowded, normal, sparse) in hexes for ``population``; extrapolated above 84 (A44)."""
    rows = tables.living_space()
    p = max(1, population)
    r: LivingSpaceRow = rows[min(p, 84) - 1]
    cols = [a.amount * unit_size(state, a.unit) for a in (r.minimum, r.crowded, r.normal, r.sparse)]
    if p > 84:
        cols = [math.ceil(v * 1.25 ** (p - 84)) for v in cols]
    return cols[0], cols[1], cols[2], cols[3]


def growth_dc(state: KingdomState) -> int | None:
    """The growth roll's DC, or None for no growth (§3.9, A42, A43)."""
    m, c, n, s = living_space_row(state, state.population)
    e = effective_area(state)
    if e >= s:
        return 5
    if e >= n:
        return 10
    if e >= c or e > m:
        return 20
    return None


# --- kingdom checks (§2.16) --------------------------------------------------------------------


@dataclass
class CheckSpec:
    """What a check is: a kingdom skill or ability check, a PC check or an NPC check."""

    kind: str  # "skill" | "ability" | "pc" | "npc"
    skill: str | None = None
    ability: str | None = None
    bonus: int = 0  # PC or NPC bonus
    label: str = ""
    advantage: list[str] = field(default_factory=list)
    disadvantage: list[str] = field(default_factory=list)
    take_10: bool = False
    spend_stored: bool = False
    spend_year: bool = False
    situational: list[tuple[str, int]] = field(default_factory=list)
    replace_corruption: bool = False  # Crime used positively replaces Economy's penalty (A10)


@dataclass
class CheckResult:
    """A resolved check: the d20 kept, the mode, faces and the breakdown of the total."""

    name: str
    d20: int
    faces: tuple[int, ...]
    mode: str
    total: int
    breakdown: Breakdown

    def meets(self, dc: int) -> bool:
        """Meet or beat (A79); no natural 1/20 effects (A80)."""
        return check_5e(self.d20, self.total - self.d20, dc)

    def audit(self) -> dict[str, Any]:
        return {"d20": self.d20, "faces": list(self.faces), "mode": self.mode, "total": self.total,
                "terms": {t.label: t.value for t in self.breakdown.terms}}


def check_modifiers(state: KingdomState, spec: CheckSpec) -> tuple[str, list[Modifier]]:
    """The name and the signed terms of a check (§2.16), without the d20."""
    mods: list[Modifier] = []
    if spec.kind in ("pc", "npc"):
        mods.append(Modifier(spec.label or spec.kind, spec.bonus, "untyped", spec.kind))
        name = spec.label or spec.kind
    else:
        ability = spec.ability if spec.kind == "ability" else skill_ability(state, spec.skill or "")
        assert ability is not None
        name = spec.skill if spec.kind == "skill" and spec.skill else ability
        mods.append(Modifier(f"{ability} modifier", ability_modifier(state, ability), "untyped", "§2.1"))
        if spec.kind == "skill":
            mods.append(Modifier(f"proficiency ({spec.skill})", proficiency_term(state, spec.skill), "untyped", "§2.5"))
        if not spec.replace_corruption:
            track = ABILITY_TRACK[ability]
            mods.append(Modifier(f"{track} modifier", state.tracks[track].modifier, "untyped", "§2.2"))
        mods.append(Modifier(f"evil presence ({ability})", state.evil_presence.get(ability, 0), "untyped", "A30"))
    if spec.kind != "npc":
        mods.append(Modifier("unrest modifier", unrest_modifier(state.unrest), "untyped", "§2.8"))
    for label, value in spec.situational:
        mods.append(Modifier(label, value, "untyped", "situational"))
    return name, mods


def check_ability(state: KingdomState, spec: CheckSpec) -> str | None:
    if spec.kind == "ability":
        return spec.ability
    if spec.kind == "skill" and spec.skill:
        return skill_ability(state, spec.skill)
    return None


def advantage_sources(state: KingdomState, spec: CheckSpec) -> tuple[list[str], list[str]]:
    """The advantage and disadvantage sources of a check before any advantage is spent (§2.16): the spec's own,
    and for Economy checks this year's trade boom (§3.7 result 12) or revolution result 11 (§3.5, A78)."""
    adv = list(spec.advantage)
    dis = list(spec.disadvantage)
    flags = set(state.year_flags)
    if check_ability(state, spec) == "economy" and spec.kind in ("skill", "ability"):
        if "economy_advantage" in flags:
            adv.append("trade boom (§3.7 result 12)")
        if "economy_disadvantage" in flags:
            dis.append("revolution result 11 (§3.5)")
    return adv, dis


def check_numbers(state: KingdomState, spec: CheckSpec) -> tuple[int, str]:
    """What a check's odds depend on, before the dice: its total modifier and its d20 mode (§2.16).

    The mode is ``take_10`` when the spec takes 10, else normal, advantage or disadvantage, counting a stored or
    this year's advantage the spec spends. The same numbers ``roll_check`` rolls with.
    """
    _, mods = check_modifiers(state, spec)
    modifier = int(sum(m.value for m in mods))
    if spec.take_10:
        return modifier, "take_10"
    adv, dis = advantage_sources(state, spec)
    spent = int(spec.spend_stored) + int(spec.spend_year)
    return modifier, d20_mode(len(adv) + spent, len(dis))


def check_label(state: KingdomState, spec: CheckSpec, name: str) -> str:
    """What a check (named ``name`` by ``check_modifiers``) is, in words, as the sheet titles it: a skill or ability
    with its underscores as spaces ("Animal handling"), a PC's check by the PC's name ("Aino's persuasion"), a court
    notable's as such; never a PC's id. The DC or table is not part of it (the sheet says it after the label).

    >>> check_label(KingdomState(), CheckSpec(kind="skill", skill="animal_handling"), "animal_handling")
    'Animal handling'
    >>> from kingdomlog.rulesets.aikakirjat.state import PC
    >>> s = KingdomState(pcs={"aino": PC(name="Aino")})
    >>> check_label(s, CheckSpec(kind="pc", label="aino persuasion"), "aino persuasion")
    "Aino's persuasion"
    >>> check_label(s, CheckSpec(kind="pc", label="court notable insight"), "court notable insight")
    "A court notable's insight"
    """
    said = name.replace("_", " ")
    if spec.kind in ("pc", "npc") and spec.label:
        who, _, what = spec.label.partition(" ")
        if who in state.pcs and what:
            return f"{state.pcs[who].name}'s {what.replace('_', ' ')}"
        if spec.label.startswith("court notable ") and spec.label != "court notable ":
            return f"A court notable's {spec.label.removeprefix('court notable ').replace('_', ' ')}"
    return said[:1].upper() + said[1:]


def roll_check(state: KingdomState, spec: CheckSpec, tape: Tape, key: str, *, dc: int | None = None,
               bands: str | None = None, against: str = "") -> tuple[CheckResult, KingdomState]:
    """Resolve a check (§2.16): pick the d20 mode, roll (or take 10), total it; spend advantages.

    ``dc`` (meet or beat), ``bands`` (the action whose §3.10 table reads the total) or
    ``against`` (an opposed roll) say what the total is compared with; the roll is
    handed to the tape with the check's numbers (a ``dice.checks.CheckSpec`` for its
    odds: modifier, mode and the DC, or the band table as ``bands`` with ``dc`` 0) and
    the breakdown of its total goes to the step.
    """
    name, mods = check_modifiers(state, spec)
    adv, dis = advantage_sources(state, spec)
    flags = set(state.year_flags)
    new = state
    if spec.spend_stored:
        if spec.kind in ("pc", "npc"):
            raise InputError("stored advantages apply only to kingdom checks (A50)")
        if state.stored_advantages < 1:
            raise InputError("no stored advantage to spend (§2.11)")
        new = new.model_copy(update={"stored_advantages": new.stored_advantages - 1})
        adv.append("stored advantage")
    if spec.spend_year:
        if spec.kind in ("pc", "npc"):
            raise InputError("this year's advantage applies only to kingdom checks (A50)")
        if state.year_advantages < 1:
            raise InputError("no advantage from tax collection this year (A50)")
        new = new.model_copy(update={"year_advantages": new.year_advantages - 1})
        adv.append("tax collection advantage")
    if spec.take_10:
        if spec.kind != "skill" or not has_feat(state, "competent_administration"):
            raise InputError("taking 10 needs Competent Administration and a skill check (§3.6)")
        if "competent_administration_used" in flags:
            raise InputError("Competent Administration was already used this year (A73)")
        new = new.model_copy(update={"year_flags": (*new.year_flags, "competent_administration_used")})
        d20, faces, mode = 10, tuple[int, ...](), "take_10"
    else:
        mode = d20_mode(len(adv), len(dis))
        modifier = int(sum(m.value for m in mods))
        table = tuple((b.min, b.max, b.key) for b in tables.bands()[bands]) if bands else ()
        # An opposed roll has no DC before the other side rolls (and CheckSpec no opposed kind): no odds then.
        shown = check_label(state, spec, name)  # the sheet says the DC or the table itself after it
        odds = (OddsSpec("5e", modifier=modifier, dc=dc, mode=mode, label=shown) if dc is not None
                else OddsSpec("5e", modifier=modifier, mode=mode, label=f"{shown} on the {bands.replace('_', ' ')} "
                                                                       f"table", bands=table)
                if bands else None)
        rec = tape.roll(key, d20_notation(mode), odds)
        d20, faces = d20_adv(rec.faces, mode), rec.faces
    note = ", ".join([*(f"advantage: {a}" for a in adv), *(f"disadvantage: {d}" for d in dis),
                      *([f"opposed by {against}"] if against else [])])
    bd = stack(name, [Modifier("d20", d20, "untyped", mode), *mods], note=note)
    tape.explain(bd)
    return CheckResult(name, d20, faces, mode, int(bd.total), bd), new


# --- unrest, militia, population helpers -------------------------------------------------------


def add_unrest(state: KingdomState, delta: int) -> KingdomState:
    """Change Unrest (never below 0); an increase reaching the threshold makes a revolution due (A11)."""
    new_unrest = max(0, state.unrest + delta)
    upd: dict[str, Any] = {"unrest": new_unrest}
    if delta > 0 and revolution_reached(state, new_unrest) and not state.revolution_rolled_this_year:
        upd["revolution_due"] = "unrest"
    return state.model_copy(update=upd)


def add_militia(state: KingdomState, gain: int, *, capped: bool = True) -> KingdomState:
    """Increase militia under the cap rule (A18): increases stop at population, never reduce."""
    if gain <= 0:
        return state
    target = state.militia + gain
    if capped:
        target = max(state.militia, min(state.population, target))
    return state.model_copy(update={"militia": target})


def set_population(state: KingdomState, value: int) -> KingdomState:
    """Population clamped at 0 (A81); 0 means the kingdom has fallen."""
    v = max(0, value)
    return state.model_copy(update={"population": v, "fallen": state.fallen or v == 0})


def clamp_diplomacy(value: int, allow_11: bool = False) -> int:
    return max(-10, min(11 if allow_11 else 10, value))
