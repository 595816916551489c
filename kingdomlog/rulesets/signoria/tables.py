"""Signoria rules data: traits, factions, provinces, adjacency and the calendar (§2.9, §4.5, §8)."""

from __future__ import annotations

from functools import cache
from typing import Literal

from kingdomlog.core.data import package_document, rows
from kingdomlog.core.model import Frozen

PACKAGE = "kingdomlog.rulesets.signoria"
FILE = "data/signoria.toml"


class TraitRow(Frozen):
    """One character trait (§8.5): the resource it watches and the actions it is on-profile for."""

    name: str
    label: str
    parameter: Literal["power", "piety", "wealth", "army", ""]
    die: int
    profile: tuple[str, ...]


class FactionRow(Frozen):
    """A faction of the setting (§8) with its default starting values (§2.9)."""

    name: str
    label: str
    kind: Literal["player", "neutral"]
    traits: tuple[str, ...]
    province: str
    leader: str
    leader_traits: tuple[str, ...] = ()
    power: int
    piety: int
    wealth: int
    army: int
    heir_from_start: bool = False
    may_name_heir: bool = True
    keys: tuple[str, ...] = ()


class ProvinceRow(Frozen):
    """A province and its income (§2.2)."""

    name: str
    label: str
    income: int


class SeasonRow(Frozen):
    """A season of the 12-month calendar (§4.5)."""

    name: str
    turns: tuple[int, ...]
    year_label: str
    wealth_bonus: int


@cache
def _doc() -> dict[str, object]:
    doc = package_document(PACKAGE, FILE)
    assert isinstance(doc, dict)
    return doc


@cache
def traits() -> dict[str, TraitRow]:
    """Traits by id."""
    return {r.name: r for r in rows(TraitRow, _doc()["traits"], source=f"{PACKAGE}/{FILE}[traits]")}


@cache
def factions() -> dict[str, FactionRow]:
    """Setting factions by id."""
    return {r.name: r for r in rows(FactionRow, _doc()["factions"], source=f"{PACKAGE}/{FILE}[factions]")}


@cache
def provinces() -> dict[str, ProvinceRow]:
    """Provinces by id."""
    return {r.name: r for r in rows(ProvinceRow, _doc()["provinces"], source=f"{PACKAGE}/{FILE}[provinces]")}


@cache
def adjacency() -> frozenset[frozenset[str]]:
    """Adjacent province pairs (G-6)."""
    pairs = _doc()["adjacency"]
    assert isinstance(pairs, list)
    return frozenset(frozenset(p) for p in pairs)


@cache
def seasons() -> list[SeasonRow]:
    """The calendar, in order."""
    return rows(SeasonRow, _doc()["seasons"], source=f"{PACKAGE}/{FILE}[seasons]")


def season_of(turn: int) -> SeasonRow:
    """The season of ``turn`` (§4.5); turn 0 (setup) reads as summer's eve."""
    for s in seasons():
        if turn in s.turns:
            return s
    return seasons()[0] if turn < 1 else seasons()[-1]


RANDOM_TRAITS = ("steward", "intriguer", "general", "devout")
"""Traits a random draw may give (§8.5: the first four rows)."""


def trait_from_die(face: int) -> str | None:
    """d6 mapping of §8.5: 1 Steward, 2 Intriguer, 3 General, 4 piety trait, 5-6 roll again.

    >>> trait_from_die(2), trait_from_die(6)
    ('intriguer', None)
    """
    for t in traits().values():
        if t.die == face and t.die > 0:
            return t.name
    return None
