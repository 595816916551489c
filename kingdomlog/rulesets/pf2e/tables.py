"""Typed rules data of the pf2e-kingmaker ruleset, loaded from ``data/`` (names and numbers only).

Every table is validated once at load; errors name the file and the entry. A
campaign may add homebrew activities, structures, feats and events: files in the
campaign context's ``data`` mapping, merged by :func:`catalog`.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from typing import Any, Literal, get_args

from pydantic import Field, field_validator, model_validator

from kingdomlog.core.data import package_document, rows
from kingdomlog.core.errors import InputError
from kingdomlog.core.model import Frozen
from kingdomlog.rulesets.pf2e.rules import check_amount

PKG = "kingdomlog.rulesets.pf2e.data"

ABILITIES = ("culture", "economy", "loyalty", "stability")
COMMODITIES = ("food", "lumber", "luxuries", "ore", "stone")
RUINS = ("corruption", "crime", "decay", "strife")
RANKS = ("untrained", "trained", "expert", "master", "legendary")
TERRAINS = ("plains", "hills", "forest", "swamp", "mountains")
DEGREES = ("critical_failure", "failure", "success", "critical_success")

Ability = Literal["culture", "economy", "loyalty", "stability"]
Commodity = Literal["food", "lumber", "luxuries", "ore", "stone"]
RuinName = Literal["corruption", "crime", "decay", "strife"]
Rank = Literal["untrained", "trained", "expert", "master", "legendary"]
Terrain = Literal["plains", "hills", "forest", "swamp", "mountains"]
RoleName = Literal["ruler", "counselor", "emissary", "general", "magister", "treasurer", "viceroy", "warden"]
Feature = Literal["bridge", "farmland", "freehold", "landmark", "refuge", "resource", "ruins", "settlement",
                  "structure", "work_site"]
Border = Literal["north", "east", "south", "west"]
ROLES: tuple[str, ...] = get_args(RoleName)
FEATURES: tuple[str, ...] = get_args(Feature)

EffectKind = Literal[
    "rp", "unrest", "fame", "xp", "food_loss", "ruin", "ruin_penalty", "commodity", "modifier", "pending",
    "cooldown", "claim_hex", "extra_region", "work_site", "farmland", "roads", "settlement", "build", "demolish",
    "choose", "treasury_debt", "trade_goods", "crop_failure_watch",
]
EFFECT_KINDS: tuple[str, ...] = get_args(EffectKind)
BonusType = Literal["circumstance", "status", "item", "untyped"]
Expiry = Literal["end_of_this_turn", "end_of_next_turn", "start_of_next_turn"]
EffectWhen = Literal["", "used_last_turn", "not_used_last_turn", "fame_zero", "fame_positive"]


class Effect(Frozen):
    """One outcome effect, interpreted by the engine (see data/activities.toml header)."""

    kind: EffectKind
    amount: int | str = 0
    target: str = ""
    count: int = 1
    selector: str = ""
    value: int = 0
    type: BonusType = "circumstance"
    expires: Expiry = "end_of_this_turn"
    turns: int = 0
    when: EffectWhen = ""
    options: list[list[Effect]] = Field(default_factory=list)

    @field_validator("amount")
    @classmethod
    def _amount(cls, v: int | str) -> int | str:
        if isinstance(v, str):
            check_amount(v)
        return v


class Outcomes(Frozen):
    critical_success: list[Effect] | None = None
    success: list[Effect] | None = None
    failure: list[Effect] | None = None
    critical_failure: list[Effect] | None = None

    def for_degree(self, degree: str) -> list[Effect]:
        """Effects of ``degree``; a missing critical entry falls back to success/failure (§3.0.1.6)."""
        got: list[Effect] | None = getattr(self, degree)
        if got is None and degree == "critical_success":
            got = self.success
        if got is None and degree == "critical_failure":
            got = self.failure
        return list(got or [])


_DC_RULE = re.compile(r"^(control(\+\d+)?|structure|negotiation|terrain_farmland|event|gm|none|\d+)$")


class Activity(Frozen):
    name: str
    title: str = ""
    category: Literal["upkeep", "commerce", "leadership", "region", "civic", "army"]
    skills: list[str]
    proficiency: Rank = "untrained"
    dc: str = "control"
    once_per_turn: bool | None = None
    anarchy_allowed: bool = False
    cost_rp: int | str = 0
    target: Literal["", "ruin", "hex", "structure", "lot"] = ""
    requires: Literal["", "water_hex"] = ""
    warfare: bool = False
    skill_proficiency: dict[str, Rank] = Field(default_factory=dict)
    """Per-skill minimum rank where a skill needs more than ``proficiency`` (checked like ``proficiency``)."""
    unlocked_by: str = ""
    """Empty = always available; "structure:<name>" or "companion:<name>" = only with that structure
    built or that companion in a leadership role; "gm" = a story unlock the GM records (state.activity_lock;
    campaign option unlock_all_activities lifts every lock)."""
    fortune: bool = False
    rules_in_spec: bool = True
    outcomes: Outcomes = Field(default_factory=Outcomes)
    source: str = "spec"

    @field_validator("dc")
    @classmethod
    def _dc_rule(cls, v: str) -> str:
        if not _DC_RULE.match(v):
            raise ValueError(f"dc rule {v!r} is not control, control+N, structure, negotiation, terrain_farmland, "
                             "event, gm, none or a number")
        return v

    @property
    def once(self) -> bool:
        """Leadership activities are once per turn kingdom-wide unless they say otherwise (§3.3 A1.3)."""
        if self.once_per_turn is not None:
            return self.once_per_turn
        return self.category == "leadership"


STRUCTURE_TRAITS = ("building", "edifice", "yard", "famous", "infamous", "residential", "infrastructure")
ITEM_GROUPS = ("alchemical", "arcane", "divine", "occult", "primal", "magical", "luxury", "any")
_SELECTOR = re.compile(r"^(activity:[a-z-]+(:[a-z]+)?|skill:[a-z]+(\+activity:[a-z-]+)?)$")


class Structure(Frozen):
    name: str
    title: str = ""
    level: int = Field(ge=0, le=20)
    lots: int = Field(ge=0, le=4)
    """Lots occupied; 0 only for infrastructure (walls, bridges, streets...), which occupies none."""
    cost_rp: int = Field(ge=0)
    cost: dict[Commodity, int] = Field(default_factory=dict)
    skills: list[str]
    proficiency: Rank = "untrained"
    dc: int
    traits: list[Literal["building", "edifice", "yard", "famous", "infamous", "residential",
                         "infrastructure"]] = Field(default_factory=list)
    residential: bool = False
    storage: dict[Commodity, int] = Field(default_factory=dict)
    seat: bool = False
    fame: bool = False
    """Grants 1 Fame or Infamy whichever the kingdom follows (a famous AND infamous structure); a structure with
    only the famous (infamous) trait grants 1 only to a kingdom following Fame (Infamy)."""
    consumption_reduction: int = 0
    item_bonuses: dict[str, int] = Field(default_factory=dict)
    """selector ("activity:<name>", "skill:<skill>", "activity:<name>:<target>" = only that target (Ruin,
    work-site commodity), "skill:<skill>+activity:<name>" = only that skill for that activity) -> item bonus."""
    item_level_bonuses: dict[Literal["alchemical", "arcane", "divine", "occult", "primal", "magical", "luxury",
                                     "any"], int] = Field(default_factory=dict)
    prevents_item_level_penalty: bool = False
    unlocks: list[str] = Field(default_factory=list)
    upgrade_from: str = ""
    placement: Literal["", "lot", "settlement", "block", "border"] = ""
    """Where it is built: lots (lots > 0), or for infrastructure (lots = 0) one per settlement, one per
    block, or one per border of the urban grid (north/east/south/west). Empty = lot, or settlement for lots = 0."""
    border: Literal["", "land", "water"] = ""
    """For border placement: a water border needs a river or lake in the settlement's hex."""
    first_built_each_turn: list[Effect] = Field(default_factory=list)
    built_effects: list[Effect] = Field(default_factory=list)
    """Effects every time one is built (after first_built_each_turn)."""
    built_effects_limit: int = Field(default=0, ge=0)
    """0 = always; N = built_effects apply only while the settlement held fewer than N of this structure's
    family (itself, the structure it upgrades from, those upgrading from it) before this one was built."""
    limits: list[str] = Field(default_factory=list)
    source: str = "spec"

    @field_validator("item_bonuses")
    @classmethod
    def _selectors(cls, v: dict[str, int]) -> dict[str, int]:
        for sel in v:
            if not _SELECTOR.match(sel):
                raise ValueError(f"item bonus selector {sel!r} is not activity:<name>[:<target>] or "
                                 "skill:<skill>[+activity:<name>]")
        return v

    @property
    def scope(self) -> str:
        """Where one is placed: "lot", "settlement", "block" or "border"."""
        if self.lots:
            return "lot"
        return self.placement or "settlement"

    @model_validator(mode="after")
    def _lots_and_traits(self) -> Structure:
        if self.lots and self.placement not in ("", "lot"):
            raise ValueError("placement settlement/block/border is for infrastructure (lots = 0) only")
        if self.lots == 0 and self.placement == "lot":
            raise ValueError("lots = 0 cannot be placed on a lot")
        if self.border and self.scope != "border":
            raise ValueError("border = land/water needs placement = border")
        if self.traits:
            if (self.lots == 0) != ("infrastructure" in self.traits):
                raise ValueError("lots = 0 exactly for infrastructure structures")
            if self.residential != ("residential" in self.traits):
                raise ValueError("residential must match the residential trait")
        elif self.lots == 0:
            raise ValueError("lots = 0 needs the infrastructure trait")
        return self


class FeatEffect(Frozen):
    """One feat effect as data (see data/feats.toml header), interpreted by state.feat_modifiers / feat_dice.

    kind "modifier": a bonus of ``type`` and ``value`` to kingdom checks whose selector matches (same selector
    language as temporary modifiers, §2.10), only while unrest >= ``min_unrest`` and level >= ``min_level``.
    kind "resource_dice": ``value`` extra Resource Dice every turn (§2.11.3).
    kind "critical_success_dice": ``value`` bonus Resource Dice next turn after a critical success on a check
    of one of ``categories`` (activity phases).
    kind "event_modifier": a bonus on kingdom event checks of an event having every one of ``traits``.
    kind "unrest_reduction": Unrest reduced by an Activity-phase outcome is reduced by ``value`` more while
    Unrest >= ``min_unrest``.
    """

    kind: Literal["modifier", "resource_dice", "critical_success_dice", "event_modifier", "unrest_reduction"]
    categories: list[str] = Field(default_factory=list)
    traits: list[str] = Field(default_factory=list)
    selector: str = ""
    type: Literal["circumstance", "status", "item", "untyped"] = "circumstance"
    value: int = 0
    min_unrest: int = Field(default=0, ge=0)
    min_level: int = Field(default=0, ge=0)

    @model_validator(mode="after")
    def _sel(self) -> FeatEffect:
        if self.kind == "modifier" and not self.selector:
            raise ValueError("a modifier feat effect needs a selector")
        return self


class Feat(Frozen):
    name: str
    title: str = ""
    level: int = Field(ge=1, le=20)
    repeatable: bool = False
    grants: Literal["", "skill_training"] = ""
    requires_trained: list[str] = Field(default_factory=list)
    """Kingdom skills the kingdom must be trained in; "chosen" = the skill the feat is taken for."""
    requires_ability: dict[Ability, int] = Field(default_factory=dict)
    """Minimum ability scores."""
    granted_by: list[str] = Field(default_factory=list)
    """Governments whose founding grants this feat (founding.toml)."""
    source: str = "published, unverified"
    effects: list[FeatEffect] = Field(default_factory=list)
    """Effects applied by the engine (data, not code)."""
    gm_ruling: bool = False
    """Part of the feat's effect is not modelled: the GM applies it (for example through a GM-ruling effect)."""
    gm_note: str = ""
    """What the GM applies by hand (own words)."""


EVENT_TRAITS = ("beneficial", "dangerous", "continuous", "settlement", "hex", "fortune", "downtime", "leadership")


class KingdomEventDef(Frozen):
    name: str
    title: str = ""
    modifier: int = Field(default=0, ge=-4, le=4)
    """Event modifier: the check's DC is the Control DC + modifier (§5.12)."""
    skills: list[str] = Field(default_factory=list)
    stage_skills: list[list[str]] = Field(default_factory=list)
    """For events resolved in stages: the skills of each stage in order (``skills`` is their union)."""
    traits: list[Literal["beneficial", "dangerous", "continuous", "settlement", "hex", "fortune", "downtime",
                         "leadership"]] = Field(default_factory=list)
    leader: str = ""
    """The leadership role that usually answers the event (a hint; any leader may act)."""
    resolved_on: list[Literal["critical_success", "success", "failure", "critical_failure"]] = Field(
        default_factory=list)
    """Degrees that end a continuous event."""
    continuous: bool = False
    gm_ruling: bool = False
    """True: the outcome effects are not plain numbers; the GM records them (choice "gm_effects")."""
    gm_note: str = ""
    """A rider the data leaves to the GM (recorded with "gm_effects") next to plain-number outcomes."""
    rules_in_spec: bool = True
    outcomes: Outcomes = Field(default_factory=Outcomes)
    source: str = "spec"

    @model_validator(mode="after")
    def _consistent(self) -> KingdomEventDef:
        if self.traits and self.continuous != ("continuous" in self.traits):
            raise ValueError("continuous must match the continuous trait")
        if self.stage_skills and sorted({s for st in self.stage_skills for s in st}) != sorted(set(self.skills)):
            raise ValueError("skills must be the union of stage_skills")
        return self


class Milestone(Frozen):
    name: str
    xp: int
    trigger: str


class LevelFeatures(Frozen):
    level: int
    features: list[str]
    feat: bool = False
    skill_increase: bool = False
    ability_boosts: int = 0
    ruin_resistance: bool = False


class Charter(Frozen):
    name: str
    boost: Ability | None = None
    flaw: Ability | None = None
    free_boosts: int = 0
    source: str = ""


class Heartland(Frozen):
    name: str
    boost: Ability
    terrain: list[str] = Field(default_factory=list)
    source: str = ""


class Government(Frozen):
    name: str
    boosts: list[Ability]
    free_boosts: int = 0
    skills: list[str]
    feat: str = ""
    source: str = ""


class Role(Frozen):
    name: str
    key_ability: Ability
    vacancy_selector: str
    vacancy_value: int
    vacancy_control_dc: int = 0
    vacancy_unrest_die: str = ""
    new_leadership_skill: str


class SizeBand(Frozen):
    min_size: int
    nation: str
    die: int
    control_dc_mod: int
    storage: int


class UnrestBand(Frozen):
    min_unrest: int
    penalty: int


class SettlementType(Frozen):
    name: Literal["village", "town", "city", "metropolis"]
    min_level: int
    max_blocks: int
    consumption: int
    max_item_bonus: int
    influence: int


class RuinInfo(Frozen):
    ability: Ability
    repair_skill: str


class CoreTables(Frozen):
    control_dc_by_level: list[int] = Field(min_length=20, max_length=20)
    size_band: list[SizeBand]
    unrest_band: list[UnrestBand]
    settlement_type: list[SettlementType]
    skills: dict[str, Ability]
    proficiency: dict[Rank, int]
    ruins: dict[RuinName, RuinInfo]
    terrain_rp: dict[Terrain, int]
    work_site_terrain: dict[Literal["lumber", "ore", "stone"], list[Terrain]]
    claim_hex_limits: list[tuple[int, int]]
    ruin_resistance_levels: list[int]
    ruin_resistance_increase: int
    invested_bonus: list[tuple[int, int]]
    event_xp_by_modifier: list[int] = Field(min_length=9, max_length=9)


@functools.cache
def core() -> CoreTables:
    """The core tables (§5.1, §5.2, §2.5, §5.6, §5.7, §5.10, §5.14)."""
    doc = package_document(PKG, "tables.toml")
    try:
        return CoreTables.model_validate(doc)
    except Exception as exc:  # pydantic ValidationError
        raise InputError(f"{PKG}/tables.toml: {exc}") from None


def _load(model: type[Any], file: str, key: str) -> list[Any]:
    doc = package_document(PKG, file)
    return rows(model, doc.get(key, []), source=f"{PKG}/{file}")


@functools.cache
def roles() -> dict[str, Role]:
    return {r.name: r for r in _load(Role, "roles.toml", "role")}


@functools.cache
def milestones() -> dict[str, Milestone]:
    return {m.name: m for m in _load(Milestone, "milestones.toml", "milestone")}


@functools.cache
def levels() -> dict[int, LevelFeatures]:
    return {lv.level: lv for lv in _load(LevelFeatures, "levels.toml", "level")}


@functools.cache
def charters() -> dict[str, Charter]:
    return {c.name: c for c in _load(Charter, "founding.toml", "charter")}


@functools.cache
def heartlands() -> dict[str, Heartland]:
    return {c.name: c for c in _load(Heartland, "founding.toml", "heartland")}


@functools.cache
def governments() -> dict[str, Government]:
    return {c.name: c for c in _load(Government, "founding.toml", "government")}


@functools.cache
def base_activities() -> dict[str, Activity]:
    return {a.name: a for a in _load(Activity, "activities.toml", "activity")}


@functools.cache
def base_structures() -> dict[str, Structure]:
    return {s.name: s for s in _load(Structure, "structures.toml", "structure")}


@functools.cache
def base_feats() -> dict[str, Feat]:
    return {f.name: f for f in _load(Feat, "feats.toml", "feat")}


@functools.cache
def base_events() -> dict[str, KingdomEventDef]:
    return {e.name: e for e in _load(KingdomEventDef, "events.toml", "event")}


class Catalog(Frozen):
    """Activities, structures, feats and events: the bundled data plus a campaign's homebrew."""

    activities: dict[str, Activity]
    structures: dict[str, Structure]
    feats: dict[str, Feat]
    events: dict[str, KingdomEventDef]


HOMEBREW_KEYS: dict[str, tuple[str, type[Any]]] = {
    "activity": ("activities", Activity),
    "structure": ("structures", Structure),
    "feat": ("feats", Feat),
    "event": ("events", KingdomEventDef),
}


def validate_homebrew(data: Mapping[str, Any]) -> dict[str, Any]:
    """Validate homebrew documents (file name -> parsed document) and return them as plain JSON.

    Each document may hold lists under ``activity``, ``structure``, ``feat`` and ``event`` (the same
    shape as the bundled files). Errors name the file and the entry; a homebrew entry may not reuse a
    bundled name unless it sets ``replace = true``.
    """
    out: dict[str, Any] = {}
    skills = set(core().skills)
    for fname in sorted(data):
        doc = data[fname]
        if not isinstance(doc, Mapping):
            raise InputError(f"homebrew file {fname}: expected a table of entries")
        unknown = sorted(set(doc) - set(HOMEBREW_KEYS))
        if unknown:
            raise InputError(
                f"homebrew file {fname}: unknown section(s) {', '.join(unknown)}; allowed: {', '.join(HOMEBREW_KEYS)}"
            )
        clean: dict[str, Any] = {}
        for section, items in doc.items():
            _, model = HOMEBREW_KEYS[section]
            items = list(items) if isinstance(items, list) else items
            if not isinstance(items, list):
                raise InputError(f"homebrew file {fname}: [{section}] must be a list of entries")
            stripped = []
            for i, item in enumerate(items):
                if not isinstance(item, Mapping):
                    raise InputError(f"homebrew file {fname}: {section} #{i + 1} is not a table")
                stripped.append({k: v for k, v in item.items() if k != "replace"})
            parsed = rows(model, stripped, source=f"homebrew file {fname} [{section}]")
            loaders: dict[str, Any] = {"activity": base_activities, "structure": base_structures,
                                       "feat": base_feats, "event": base_events}
            bundled: dict[str, Any] = loaders[section]()
            for item, row in zip(items, parsed, strict=True):
                if row.name in bundled and not item.get("replace", False):
                    raise InputError(
                        f"homebrew file {fname}: {section} {row.name!r} already exists in the bundled data;"
                        " set replace = true to override it"
                    )
                for sk in getattr(row, "skills", []):
                    if sk not in skills:
                        raise InputError(f"homebrew file {fname}: {section} {row.name!r}: unknown skill {sk!r}")
            clean[section] = [p.model_dump(mode="json") for p in parsed]
        out[fname] = clean
    return out


@functools.lru_cache(maxsize=32)
def _catalog(homebrew_json: str) -> Catalog:
    acts = dict(base_activities())
    structs = dict(base_structures())
    feats = dict(base_feats())
    events = dict(base_events())
    targets: dict[str, dict[str, Any]] = {"activity": acts, "structure": structs, "feat": feats, "event": events}
    homebrew = json.loads(homebrew_json)
    for fname in sorted(homebrew):
        for section, items in homebrew[fname].items():
            model = HOMEBREW_KEYS[section][1]
            for item in items:
                row = model.model_validate(item)
                targets[section][row.name] = row
    return Catalog(activities=acts, structures=structs, feats=feats, events=events)


def catalog(homebrew: Mapping[str, Any] | None = None) -> Catalog:
    """The merged catalogue for a campaign's (already validated) homebrew."""
    return _catalog(json.dumps(homebrew or {}, sort_keys=True))


def data_tables() -> dict[str, Any]:
    """Loader per table, for the conformance suite."""
    return {
        "core": core,
        "roles": roles,
        "milestones": milestones,
        "levels": levels,
        "charters": charters,
        "heartlands": heartlands,
        "governments": governments,
        "activities": base_activities,
        "structures": base_structures,
        "feats": base_feats,
        "events": base_events,
    }
