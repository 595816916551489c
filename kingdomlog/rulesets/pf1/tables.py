"""Typed rules data for PF1 kingdoms (the catalogue): buildings, terrain, improvements, roles, edicts, limits,
events, governments.

Tables ship as TOML package data (names and numbers only) and are validated into
pydantic rows by :mod:`kingdomlog.core.data`, so an error names the file and the
entry. A campaign may add or replace entries with homebrew data of the same
shape (``CampaignContext.data``), validated the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Literal

from pydantic import Field

from kingdomlog.core.data import package_document, rows
from kingdomlog.core.errors import InputError
from kingdomlog.core.memo import ByIdentity
from kingdomlog.core.model import Frozen

PKG = "kingdomlog.rulesets.pf1.data"

Attribute = Literal["ECONOMY", "LOYALTY", "STABILITY"]
ATTRIBUTES: tuple[Attribute, ...] = ("ECONOMY", "LOYALTY", "STABILITY")
TERRAINS: tuple[str, ...] = ("GRASSLAND", "HILLS", "FOREST", "MARSH", "MOUNTAINS")
SETTLEMENT_MODIFIERS = ("corruption", "crime", "law", "lore", "productivity", "society")
BETTER: dict[str, Literal["up", "down"]] = {
    "treasury_bp": "up", "economy": "up", "loyalty": "up", "stability": "up", "size": "up", "population": "up",
    "cities": "up", "districts": "up", "buildings": "up", "farms": "up", "road_hexes": "up", "fame": "up",
    "trade_routes": "up", "embassies": "up",
    "unrest": "down", "control_dc": "down", "consumption": "down",
}
"""Which way each ``summary`` figure is good for the kingdom (``Ruleset.better_figures``): more BP, Economy,
Loyalty and Stability, less Unrest, Control DC and Consumption; Infamy is neither. The panel colours a change by
it, the portrait its trend."""


class Slots(Frozen):
    minor: int = Field(0, ge=0)
    medium: int = Field(0, ge=0)
    major: int = Field(0, ge=0)


class SettlementLine(Frozen):
    corruption: int = 0
    crime: int = 0
    law: int = 0
    lore: int = 0
    productivity: int = 0
    society: int = 0

    def get(self, name: str) -> int:
        return int(getattr(self, name))


class BuildingType(Frozen):
    """A building of the catalogue (spec §2.8 building type, §6.10)."""

    name: str = Field(min_length=1)
    aliases: tuple[str, ...] = ()
    cost: int = Field(ge=0)
    lots: Literal[0, 1, 2, 4] = 1
    adjacent_houses: int = Field(0, ge=0, le=2)
    limit_per_city: int | None = Field(None, ge=1)
    economy: int = 0
    loyalty: int = 0
    stability: int = 0
    unrest: int = 0
    defense: int = 0
    base_value: int = Field(0, ge=0)
    slots: Slots = Slots()
    halves: tuple[str, ...] = ()
    halves_edict: Literal["promotion", "festival"] | None = None
    religion: Literal["shrine", "temple", "cathedral"] | None = None
    house: bool = False
    border: bool = False
    fame: int = Field(0, ge=0)
    settlement: SettlementLine = SettlementLine()
    # Ultimate Campaign building lines (data/buildings_uc.toml)
    adjacent_kinds: tuple[str, ...] = ()
    """Which buildings meet ``adjacent_houses`` (empty: any building marked ``house``)."""
    not_adjacent: tuple[str, ...] = ()
    water_border: bool = False
    limit_per_district: int | None = Field(None, ge=1)
    requires_any: tuple[str, ...] = ()
    upgrade_from: tuple[str, ...] = ()
    upgrade_to: tuple[str, ...] = ()
    free_first: bool = False
    unrest_once_per_settlement: bool = False
    farm_consumption: int | None = None
    """Stockyard: farms in its hex or an adjacent hex reduce Consumption by this (−3) instead of the farm's own."""
    foundry_mine: bool = False
    """Foundry: Economy +1 and +1 BP per turn for one Mine connected to the settlement by a road or river."""
    tax_loyalty_halved: bool = False
    """Waterfront: halves the Loyalty penalty of the Taxation edict."""
    special: str = ""
    """Rules text the GM applies (no number the reducer could use)."""
    tag: str = "published"
    note: str = ""

    def attr(self, a: str) -> int:
        return int(getattr(self, a.lower()))

    def names(self) -> set[str]:
        """The name and aliases, lower case (the keys a discount or limit may name it by)."""
        return {self.name.lower(), *(a.lower() for a in self.aliases)}


class Terrain(Frozen):
    name: Literal["GRASSLAND", "HILLS", "FOREST", "MARSH", "MOUNTAINS"]
    district_cost: int = Field(ge=0)
    district_months: int = Field(ge=0)
    road_cost: int = Field(ge=0)
    farm_cost: int | None = Field(None, ge=0)


class ImprovementType(Frozen):
    name: str
    terrains: tuple[str, ...]
    cost: int = Field(ge=0)
    half_cost_features: tuple[str, ...] = ()
    consumption: int = 0
    economy: int = 0
    loyalty: int = 0
    stability: int = 0
    unrest: int = 0
    double_with_feature: str | None = None
    needs_ruler: bool = False
    # Ultimate Campaign terrain improvements (data/improvements.toml, improvements_uc.toml)
    cost_as: Literal["road", "road_x2", "road_no_river"] | None = None
    shares_hex: bool = False
    bp_per_turn: int = Field(0, ge=0)
    defense: int = 0
    economy_per: int | None = Field(None, ge=1)
    stability_per: int | None = Field(None, ge=1)
    min_size: int = Field(0, ge=0)
    needs_road: bool = False
    needs_river: bool = False
    counts_as_river: bool = False
    resource_bonus: bool = False
    """UC Resource: a Mine, Quarry or Sawmill in a Resource hex gets +1 to each of its benefits."""
    resource_consumption: int = 0
    """UC Resource: a Farm or Fishery in a Resource hex reduces Consumption by this much more."""
    effect_needs_city: bool = False
    upgrade_from: tuple[str, ...] = ()
    not_with: tuple[str, ...] = ()
    tag: str = ""
    note: str = ""


class Role(Frozen):
    name: str
    abilities: tuple[str, ...]
    attributes: tuple[Attribute, ...] = ()
    vacancy_economy: int = 0
    vacancy_loyalty: int = 0
    vacancy_stability: int = 0
    vacancy_unrest: int = 0
    skill: str = ""
    max_occupants: int = 1
    half_modifier: bool = False
    module: str | None = None
    edition: Literal["rrr", "uc"] | None = None
    """Only with that option leadership_roles (the Royal Assassin is RRR's; Consort, Heir, Royal Enforcer UC's)."""
    acts_as_ruler: bool = False


class EdictLevel(Frozen):
    name: str
    economy: int = 0
    loyalty: int = 0
    stability: int = 0
    consumption: int = 0


class LimitRow(Frozen):
    name: str
    min_size: int = Field(ge=0)
    districts: int
    buildings: int
    terrain: int
    claims: int


class EventEffect(Frozen):
    kind: Literal["ATTRIBUTE", "UNREST", "TREASURY", "FAME", "INFAMY"]
    attribute: Attribute | None = None
    value: int
    turns: int | None = Field(None, ge=1)


class KingdomEventType(Frozen):
    name: str
    low: int = Field(ge=1, le=100)
    high: int = Field(ge=1, le=100)
    kind: Literal["harmful", "beneficial"]
    effects: tuple[EventEffect, ...] = ()


UcEffectKind = Literal["ATTRIBUTE", "CHECK", "SETTLEMENT", "UNREST", "TREASURY", "FAME", "INFAMY", "CONSUMPTION_PCT",
                       "FARMS_LOST", "FREE_BUILDING", "ECONOMY_BUILDINGS", "NOTE"]


class UcEffect(Frozen):
    """One effect of an Ultimate Campaign event (data/events_uc.toml header)."""

    kind: UcEffectKind
    target: str | None = None
    value: int = 0
    dice: str | None = None
    sign: Literal[1, -1] = 1
    scope: Literal["kingdom", "settlement", "each_settlement"] = "kingdom"
    turns: int | Literal["next_event"] | None = None
    note: str = ""
    buildings: tuple[tuple[int, int, str], ...] = ()


class UcEvent(Frozen):
    """An Ultimate Campaign kingdom or settlement event with its checks and effects as data."""

    name: str
    kind: Literal["beneficial", "harmful"]
    scope: Literal["kingdom", "settlement", "hex"] = "kingdom"
    continuous: bool = False
    checks: tuple[Attribute, ...] = ()
    check_penalty: tuple[str, ...] = ()
    check_bonus: tuple[str, ...] = ()
    check_law_crime: bool = False
    threatened: Literal["hex", "lot"] | None = None
    requires_any: tuple[str, ...] = ()
    ends_on: tuple[Literal["success", "partial", "failure"], ...] = ()
    end_after_successes: int = Field(1, ge=1)
    always: tuple[UcEffect, ...] = ()
    success: tuple[UcEffect, ...] = ()
    partial: tuple[UcEffect, ...] = ()
    failure: tuple[UcEffect, ...] = ()
    per_failure: tuple[UcEffect, ...] = ()
    continued: tuple[UcEffect, ...] = ()
    calm: tuple[UcEffect, ...] = ()
    note: str = ""


class UcTopRow(Frozen):
    low: int = Field(ge=1, le=100)
    high: int = Field(ge=1, le=100)
    event: str | None = None
    table: Literal["kb", "kd", "sb", "sd"] | None = None
    roll_again: bool = False


class UcSubTable(Frozen):
    table: Literal["kb", "kd", "sb", "sd"]
    rows: tuple[tuple[int, int, str], ...]


class UcEventTables(Frozen):
    """Table 4-7 and the four sub-tables of Ultimate Campaign events, and every event's effects."""

    top: tuple[UcTopRow, ...]
    tables: dict[str, tuple[tuple[int, int, str], ...]]
    events: dict[str, UcEvent]

    def top_row(self, d100: int) -> UcTopRow:
        return next(r for r in self.top if r.low <= d100 <= r.high)

    def sub_event(self, table: str, d100: int) -> UcEvent:
        name = next(n for lo, hi, n in self.tables[table] if lo <= d100 <= hi)
        return self.events[name]

    def named(self, name: str) -> UcEvent:
        for e in self.events.values():
            if e.name.lower() == name.strip().lower():
                return e
        raise InputError(f"unknown Ultimate Campaign event {name!r}; known: {', '.join(sorted(self.events))}")


class ArmySize(Frozen):
    name: Literal["Fine", "Diminutive", "Tiny", "Small", "Medium", "Large", "Huge", "Gargantuan", "Colossal"]
    units: int
    steps: int
    mult: tuple[int, int]
    defeat: tuple[int, int, int]


class Tactic(Frozen):
    name: str
    default: bool = False
    om: int = 0
    dv: int = 0
    morale: int = 0
    damage: int = 0
    once: bool = False
    requires: str | None = None
    special: str | None = None
    note: str = ""


class Strategy(Frozen):
    name: Literal["Defensive", "Cautious", "Standard", "Aggressive", "Reckless"]
    om: int = 0
    dv: int = 0
    damage: int = 0


class ArmyResource(Frozen):
    name: str
    cost: int = Field(ge=0)
    consumption: int = 0
    use_consumption: int = 0
    om: int = 0
    dv: int = 0
    ranged: bool = False
    per_engine: bool = False
    cost_is_mount_acr: bool = False
    requires_any: tuple[str, ...] = ()
    note: str = ""


class ArmySpecial(Frozen):
    """An army special ability (UC Mass Combat: Special Abilities); the fields are described in mass_combat.toml."""

    name: str
    om: int = 0
    dv: int = 0
    damage: int = 0
    ranged: bool = False
    kind: str | None = None
    like: str | None = None
    immune: tuple[str, ...] = ()
    param: Literal["number", "choice"] | None = None
    default: int | None = None
    choices: tuple[str, ...] = ()
    om_if: int = 0
    dv_if: int = 0
    amount: int = 0
    morale: int = 0
    vs: Literal["animal", "water"] | None = None
    magic: bool = False
    use: bool = False
    once: bool = False
    ruling: str = ""
    note: str = ""


class Boon(Frozen):
    name: str
    min_leadership: int = 0
    improves_at: int | None = None
    om: int = 0
    dv: int = 0
    morale: int = 0
    change_tactics: int = 0
    withdraw: int = 0
    note: str = ""


class Condition(Frozen):
    name: str
    om: int = 0
    dv: int = 0
    ranged_om: int = 0
    half_damage: bool = False
    withdraw: int = 0
    damage_each_phase: int = 0
    fortification: bool = False
    all: bool = False
    note: str = ""


class MassCombat(Frozen):
    """The Ultimate Campaign mass combat tables (data/mass_combat.toml)."""

    sizes: dict[str, ArmySize]
    tactics: dict[str, Tactic]
    strategies: dict[str, Strategy]
    resources: dict[str, ArmyResource]
    specials: dict[str, ArmySpecial]
    boons: dict[str, Boon]
    conditions: dict[str, Condition]
    role_boons: dict[str, tuple[str, ...]]


@lru_cache(maxsize=1)
def load_mass_combat() -> MassCombat:
    doc = package_document(PKG, "mass_combat.toml")
    src = "pf1/data/mass_combat.toml"

    def table(model: type[Frozen], key: str) -> dict[str, Any]:
        return {getattr(x, "name"): x for x in rows(model, doc.get(key, []), source=src)}  # noqa: B009

    mc = MassCombat(sizes=table(ArmySize, "size"), tactics=table(Tactic, "tactic"),
                    strategies=table(Strategy, "strategy"), resources=table(ArmyResource, "resource"),
                    specials=table(ArmySpecial, "special"), boons=table(Boon, "boon"),
                    conditions=table(Condition, "condition"),
                    role_boons={k: tuple(v) for k, v in doc.get("roles", {}).items()})
    bad = sorted({b for bs in mc.role_boons.values() for b in bs} - set(mc.boons))
    if bad:
        raise InputError(f"{src}: [roles] names unknown boons {bad}")
    return mc


class GovernmentForm(Frozen):
    name: str
    corruption: int = 0
    crime: int = 0
    law: int = 0
    lore: int = 0
    productivity: int = 0
    society: int = 0


_NAMES: ByIdentity[Mapping[str, BuildingType], dict[str, BuildingType]] = ByIdentity(limit=65)


def _building_names(buildings: Mapping[str, BuildingType]) -> dict[str, BuildingType]:
    """Every building of ``buildings`` by its name and its aliases in lower case (the first that answers wins).

    Kept per buildings table (a catalog's is never changed; a campaign's homebrew makes a new one), checked
    by identity: a lookup by name was a scan of every building, some 20,000 of them per turn-sheet edit.
    """
    def index(buildings: Mapping[str, BuildingType]) -> dict[str, BuildingType]:
        out: dict[str, BuildingType] = {}
        for b in buildings.values():
            for key in (b.name, *b.aliases):
                out.setdefault(key.lower(), b)
        return out

    return _NAMES.get(buildings, index)


class Catalog(Frozen):
    """Every rules table of one campaign (shipped data plus its homebrew)."""

    buildings: dict[str, BuildingType]
    terrains: dict[str, Terrain]
    improvements: dict[str, ImprovementType]
    roles: dict[str, Role]
    promotion: dict[str, EdictLevel]
    taxation: dict[str, EdictLevel]
    festivals: dict[str, EdictLevel]
    limits: tuple[LimitRow, ...]
    events: tuple[KingdomEventType, ...]
    governments: dict[str, GovernmentForm]
    uc_events: UcEventTables
    mass_combat: MassCombat

    def building(self, name: str) -> BuildingType:
        """The building called ``name`` (or an alias, any case); ``InputError`` lists the known ones."""
        hit = _building_names(self.buildings).get(name.strip().lower())
        if hit is None:
            raise InputError(f"unknown building {name!r}; known: {', '.join(sorted(self.buildings))}")
        return hit

    def event_for(self, d100: int) -> KingdomEventType:
        for e in self.events:
            if e.low <= d100 <= e.high:
                return e
        raise InputError(f"no kingdom event covers d100 = {d100}")

    def event_named(self, name: str) -> KingdomEventType:
        for e in self.events:
            if e.name.lower() == name.strip().lower():
                return e
        raise InputError(f"unknown kingdom event {name!r}; known: {', '.join(e.name for e in self.events)}")


def _table(model: type[Frozen], file: str, key: str) -> list[Any]:
    doc = package_document(PKG, file)
    return rows(model, doc.get(key, []), source=f"pf1/data/{file}")


def load_buildings() -> list[BuildingType]:
    return _table(BuildingType, "buildings.toml", "building")


def load_buildings_uc() -> list[BuildingType]:
    return _table(BuildingType, "buildings_uc.toml", "building")


EDITIONS = ("rrr", "uc")


def edition_buildings(edition: str) -> dict[str, BuildingType]:
    """The building catalogue of an edition (option ``building_edition``).

    ``rrr``: the base §6.10 entries unchanged, plus every Ultimate Campaign building base §6.10 lacks (matched by
    name or alias, so the UC Pier and Exotic Artisan are the base Piers and Exotic Craftsman). ``uc``: the Ultimate
    Campaign entries, replacing base entries of the same name or alias; base entries UC has no match for stay.
    """
    base = {b.name: b for b in load_buildings()}
    uc = load_buildings_uc()
    if edition == "uc":
        out: dict[str, BuildingType] = {}
        for b in uc:
            for name, old in list(base.items()):
                if old.names() & b.names():
                    base.pop(name)
                    b = b.model_copy(update={"aliases": tuple(sorted(set(b.aliases) | {old.name} - {b.name}))})
            out[b.name] = b
        return {**base, **out}
    known = set().union(*(b.names() for b in base.values()))
    return {**base, **{b.name: b for b in uc if not (b.names() & known)}}


def load_terrains() -> list[Terrain]:
    return _table(Terrain, "terrain.toml", "terrain")


def load_improvements() -> list[ImprovementType]:
    return _table(ImprovementType, "improvements.toml", "improvement")


def load_improvements_uc() -> list[ImprovementType]:
    return _table(ImprovementType, "improvements_uc.toml", "improvement")


IMPROVEMENT_EDITIONS = ("seed", "uc")


def edition_improvements(edition: str) -> dict[str, ImprovementType]:
    """Terrain improvements: the base §6.8 entries and the UC ones they lack (seed), or with the UC numbers for
    Farm, Fort, Mine and Sawmill (uc)."""
    out = {i.name: i for i in load_improvements()}
    if edition == "uc":
        out.update({i.name: i for i in load_improvements_uc()})
    return out


def load_roles() -> list[Role]:
    return _table(Role, "leaders.toml", "role")


def load_edicts() -> dict[str, list[EdictLevel]]:
    doc = package_document(PKG, "edicts.toml")
    return {k: rows(EdictLevel, doc.get(k, []), source=f"pf1/data/edicts.toml [{k}]")
            for k in ("promotion", "taxation", "festivals")}


def load_limits() -> list[LimitRow]:
    return _table(LimitRow, "limits.toml", "row")


def load_events() -> list[KingdomEventType]:
    return _table(KingdomEventType, "events.toml", "event")


def load_governments() -> list[GovernmentForm]:
    return _table(GovernmentForm, "government.toml", "form")


def _cover(name: str, ranges: list[tuple[int, int]]) -> None:
    cover = [0] * 101
    for lo, hi in ranges:
        for i in range(lo, hi + 1):
            cover[i] += 1
    bad = [i for i in range(1, 101) if cover[i] != 1]
    if bad:
        raise InputError(f"pf1/data/events_uc.toml: table {name} must cover 1..100 once; faces {bad[:5]} do not")


@lru_cache(maxsize=1)
def load_uc_events() -> UcEventTables:
    """The Ultimate Campaign event tables, checked: every d100 face covered once, every row names an event."""
    doc = package_document(PKG, "events_uc.toml")
    src = "pf1/data/events_uc.toml"
    top = rows(UcTopRow, doc.get("top", []), source=src)
    subs = rows(UcSubTable, doc.get("row", []), source=src)
    events = {e.name: e for e in rows(UcEvent, doc.get("event", []), source=src)}
    _cover("top", [(r.low, r.high) for r in top])
    for sub in subs:
        _cover(sub.table, [(lo, hi) for lo, hi, _ in sub.rows])
    named = [n for sub in subs for *_, n in sub.rows] + [r.event for r in top if r.event]
    missing = sorted({n for n in named if n not in events})
    if missing:
        raise InputError(f"{src}: rows name events without an [[event]] entry: {', '.join(missing)}")
    return UcEventTables(top=tuple(top), tables={s.table: s.rows for s in subs}, events=events)


@lru_cache(maxsize=8)
def base_catalog(edition: str = "rrr", improvements: str = "seed") -> Catalog:
    """The shipped tables of a building edition (``rrr``/``uc``) and an improvement edition (``seed``/``uc``)."""
    ed = load_edicts()
    return Catalog(
        buildings=edition_buildings(edition),
        terrains={t.name: t for t in load_terrains()},
        improvements=edition_improvements(improvements),
        roles={r.name: r for r in load_roles()},
        promotion={e.name: e for e in ed["promotion"]},
        taxation={e.name: e for e in ed["taxation"]},
        festivals={e.name: e for e in ed["festivals"]},
        limits=tuple(sorted(load_limits(), key=lambda r: r.min_size)),
        events=tuple(load_events()),
        governments={g.name: g for g in load_governments()},
        uc_events=load_uc_events(),
        mass_combat=load_mass_combat(),
    )


HOMEBREW_TABLES = {"buildings": "building", "improvements": "improvement", "events": "event"}


def homebrew_catalog(data: Mapping[str, Any], edition: str = "rrr", improvements: str = "seed") -> Catalog:
    """The shipped catalogue with a campaign's homebrew entries added or replacing ones of the same name.

    ``data`` is the campaign's ``data/`` folder by file stem (``CampaignContext.data``):
    ``data/buildings.toml`` holds ``[[building]]`` entries of the shipped shape,
    ``data/improvements.toml`` ``[[improvement]]``, ``data/events.toml`` ``[[event]]``.
    A list of entries is accepted too. Errors name the file and the entry.
    """
    base = base_catalog(edition, improvements)
    if not data:
        return base
    unknown = sorted(set(data) - set(HOMEBREW_TABLES))
    if unknown:
        raise InputError(f"campaign data: unknown pf1 data file(s) {', '.join(f'data/{u}.toml' for u in unknown)}; "
                         f"pf1 reads {', '.join(f'data/{k}.toml' for k in HOMEBREW_TABLES)}")
    upd: dict[str, Any] = {}
    for table, raw in data.items():
        entry = HOMEBREW_TABLES[table]
        source = f"campaign data/{table}.toml"
        items = raw
        if isinstance(raw, Mapping):
            extra = sorted(set(raw) - {entry})
            if extra:
                raise InputError(f"{source}: unknown key(s) {extra}; entries go in [[{entry}]] tables")
            items = raw.get(entry, [])
        if table == "buildings":
            new_b = dict(base.buildings)
            for b in rows(BuildingType, items, source=source):
                new_b[b.name] = b
            upd["buildings"] = new_b
        elif table == "improvements":
            new_i = dict(base.improvements)
            for i in rows(ImprovementType, items, source=source):
                new_i[i.name] = i
            upd["improvements"] = new_i
        else:
            by_name = {e.name: e for e in base.events}
            for e in rows(KingdomEventType, items, source=source):
                by_name[e.name] = e
            upd["events"] = tuple(by_name.values())
    cat = base.model_copy(update=upd)
    check_event_table(cat.events)
    return cat


def check_event_table(events: tuple[KingdomEventType, ...]) -> None:
    """Every d100 face 1..100 is covered by exactly one event (spec §6.11)."""
    cover = [0] * 101
    for e in events:
        if e.low > e.high:
            raise InputError(f"kingdom event {e.name!r}: low {e.low} > high {e.high}")
        for i in range(e.low, e.high + 1):
            cover[i] += 1
    bad = [i for i in range(1, 101) if cover[i] != 1]
    if bad:
        raise InputError(f"kingdom event table must cover 1..100 exactly once; faces {bad[:5]} are covered "
                         f"{[cover[i] for i in bad[:5]]} times")
