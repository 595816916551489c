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
from kingdomlog.core.model import Frozen

PKG = "kingdomlog.rulesets.pf1.data"

Attribute = Literal["ECONOMY", "LOYALTY", "STABILITY"]
ATTRIBUTES: tuple[Attribute, ...] = ("ECONOMY", "LOYALTY", "STABILITY")
TERRAINS: tuple[str, ...] = ("GRASSLAND", "HILLS", "FOREST", "MARSH", "MOUNTAINS")
SETTLEMENT_MODIFIERS = ("corruption", "crime", "law", "lore", "productivity", "society")


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
    tag: str = "published"
    note: str = ""

    def attr(self, a: str) -> int:
        return int(getattr(self, a.lower()))


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
    tag: str = ""


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


class GovernmentForm(Frozen):
    name: str
    corruption: int = 0
    crime: int = 0
    law: int = 0
    lore: int = 0
    productivity: int = 0
    society: int = 0


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

    def building(self, name: str) -> BuildingType:
        """The building called ``name`` (or an alias, any case); ``InputError`` lists the known ones."""
        key = name.strip().lower()
        for b in self.buildings.values():
            if b.name.lower() == key or key in (a.lower() for a in b.aliases):
                return b
        raise InputError(f"unknown building {name!r}; known: {', '.join(sorted(self.buildings))}")

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


def load_terrains() -> list[Terrain]:
    return _table(Terrain, "terrain.toml", "terrain")


def load_improvements() -> list[ImprovementType]:
    return _table(ImprovementType, "improvements.toml", "improvement")


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


@lru_cache(maxsize=1)
def base_catalog() -> Catalog:
    """The shipped tables, validated once."""
    ed = load_edicts()
    return Catalog(
        buildings={b.name: b for b in load_buildings()},
        terrains={t.name: t for t in load_terrains()},
        improvements={i.name: i for i in load_improvements()},
        roles={r.name: r for r in load_roles()},
        promotion={e.name: e for e in ed["promotion"]},
        taxation={e.name: e for e in ed["taxation"]},
        festivals={e.name: e for e in ed["festivals"]},
        limits=tuple(sorted(load_limits(), key=lambda r: r.min_size)),
        events=tuple(load_events()),
        governments={g.name: g for g in load_governments()},
    )


HOMEBREW_TABLES = {"buildings": "building", "improvements": "improvement", "events": "event"}


def homebrew_catalog(data: Mapping[str, Any]) -> Catalog:
    """The shipped catalogue with a campaign's homebrew entries added or replacing ones of the same name.

    ``data`` is the campaign's ``data/`` folder by file stem (``CampaignContext.data``):
    ``data/buildings.toml`` holds ``[[building]]`` entries of the shipped shape,
    ``data/improvements.toml`` ``[[improvement]]``, ``data/events.toml`` ``[[event]]``.
    A list of entries is accepted too. Errors name the file and the entry.
    """
    base = base_catalog()
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
