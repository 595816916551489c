"""The aikakirjat rules tables, loaded from package data and validated once.

Every table is TOML under ``data/`` (names and numbers only) read through
``kingdomlog.core.data``; errors name the file and the entry.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from kingdomlog.core.data import package_document, rows
from kingdomlog.core.errors import InputError

PKG = "kingdomlog.rulesets.aikakirjat.data"

ABILITIES = ("culture", "economy", "loyalty", "stability")
TRACKS = ("decadence", "crime", "corruption", "decay")
TRACK_ABILITY = {"decadence": "culture", "crime": "economy", "corruption": "loyalty", "decay": "stability"}
ABILITY_TRACK = {v: k for k, v in TRACK_ABILITY.items()}
BETTER: dict[str, Literal["up", "down"]] = {
    "population": "up", "fame": "up", "level": "up", "militia": "up", "levy_dice": "up", "naval_dice": "up",
    "research_points": "up", "technology_level": "up", "stored_advantages": "up", "actions_per_year": "up",
    "armies_max": "up", "proficiency_bonus": "up", "institutions": "up",
    "unrest": "down", "growth_dc": "down",
    **{f"{a}_score": "up" for a in ABILITIES}, **{f"{t}_points": "down" for t in TRACKS},
}
"""Which way each ``summary`` figure is good for the realm (``Ruleset.better_figures``): more population, fame
and ability scores, less Unrest and fewer points on the decadence, crime, corruption and decay tracks. The panel
colours a change by it, the portrait its trend."""
GOVERNMENTS = ("feudalism", "oligarchy", "tribe", "republic", "theocracy", "thaumocracy", "autocracy")
Unit = Literal["hex", "province", "phex", "triangle", "planet"]
UNITS: tuple[str, ...] = ("hex", "province", "phex", "triangle", "planet")


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LevelRow(_Row):
    """One row of the level table (§3.1)."""

    level: int
    fame: int
    population: int
    proficiency: int
    title: str
    benefit: str


class GovernmentRow(_Row):
    """One form of government (§3.4)."""

    name: str
    abilities: tuple[str, ...]
    skills: tuple[str, ...]
    damage_die: int
    title_usable: bool = False
    max_level: int = 20


class FeatRow(_Row):
    """One feat and its prerequisites (§3.6)."""

    name: str
    requires_skill: str | None = None
    requires_level: int | None = None
    repeatable: bool = False


class Area(_Row):
    """An amount of land in one unit."""

    amount: int
    unit: Unit


class LivingSpaceRow(_Row):
    """Living space for one population value (§3.9)."""

    population: int
    minimum: Area
    crowded: Area
    normal: Area
    sparse: Area


class Band(_Row):
    """One row of an action result table (§3.10); bounds inclusive, None = open."""

    action: str
    key: str
    min: int | None = None
    max: int | None = None

    def contains(self, total: int) -> bool:
        return (self.min is None or total >= self.min) and (self.max is None or total <= self.max)


@cache
def levels() -> tuple[LevelRow, ...]:
    doc = package_document(PKG, "levels.toml")
    out = tuple(rows(LevelRow, doc["level"], source="aikakirjat/levels.toml", key="level"))
    if [r.level for r in out] != list(range(1, 21)):
        raise InputError("aikakirjat/levels.toml: levels must run 1..20 in order")
    return out


@cache
def governments() -> dict[str, GovernmentRow]:
    doc = package_document(PKG, "governments.toml")
    out = {g.name: g for g in rows(GovernmentRow, doc["government"], source="aikakirjat/governments.toml")}
    if set(out) != set(GOVERNMENTS):
        raise InputError(f"aikakirjat/governments.toml: expected exactly {GOVERNMENTS}")
    for g in out.values():
        bad = [a for a in g.abilities if a not in ABILITIES]
        if bad:
            raise InputError(f"aikakirjat/governments.toml: entry {g.name!r}: unknown abilities {bad}")
    return out


@cache
def feats() -> dict[str, FeatRow]:
    doc = package_document(PKG, "feats.toml")
    return {f.name: f for f in rows(FeatRow, doc["feat"], source="aikakirjat/feats.toml")}


@cache
def skills() -> dict[str, str]:
    doc = package_document(PKG, "skills.toml")
    out = dict(doc["skill"])
    for s, a in out.items():
        if a not in ABILITIES:
            raise InputError(f"aikakirjat/skills.toml: entry {s!r}: unknown ability {a!r}")
    return out


@cache
def living_space() -> tuple[LivingSpaceRow, ...]:
    doc = package_document(PKG, "living_space.toml")
    items: list[dict[str, Any]] = []
    for i, r in enumerate(doc["rows"]):
        if len(r) != 5:
            raise InputError(f"aikakirjat/living_space.toml: row #{i + 1} must have 5 cells")
        cols = ("minimum", "crowded", "normal", "sparse")
        cells = {c: {"amount": v[0], "unit": v[1]} for c, v in zip(cols, r[1:], strict=True)}
        items.append({"population": r[0], **cells})
    out = tuple(rows(LivingSpaceRow, items, source="aikakirjat/living_space.toml", key="population"))
    if [r.population for r in out] != list(range(1, 85)):
        raise InputError("aikakirjat/living_space.toml: populations must run 1..84 in order")
    return out


@cache
def _tables() -> dict[str, Any]:
    doc: dict[str, Any] = package_document(PKG, "tables.toml")
    return doc


@cache
def random_events() -> dict[int, str]:
    return {int(k): v for k, v in _tables()["random_events"].items()}


@cache
def neighbour_events() -> dict[int, str]:
    return {int(k): v for k, v in _tables()["neighbour_events"].items()}


@cache
def revolution_results() -> dict[int, str]:
    return {int(k): v for k, v in _tables()["revolution"].items()}


@cache
def bands() -> dict[str, tuple[Band, ...]]:
    out: dict[str, list[Band]] = {}
    for i, b in enumerate(_tables()["band"]):
        row = rows(Band, [b], source=f"aikakirjat/tables.toml band #{i + 1}", key="key")[0]
        out.setdefault(row.action, []).append(row)
    return {k: tuple(v) for k, v in out.items()}


def band_for(action: str, total: int) -> str:
    """The band key of ``action``'s table that ``total`` falls in (§3.10)."""
    for b in bands()[action]:
        if b.contains(total):
            return b.key
    raise InputError(f"no band of {action!r} contains {total}")  # pragma: no cover - tables are total


DATA_TABLES = {
    "levels": levels,
    "governments": governments,
    "feats": feats,
    "skills": skills,
    "living_space": living_space,
    "random_events": random_events,
    "neighbour_events": neighbour_events,
    "revolution": revolution_results,
    "bands": bands,
}
