"""Neutral map data: what a ruleset's ``map(state, viewer)`` hook returns and ``views.player.maps`` draws.

A ruleset turns its own state into these plain values; the library draws them as
inline SVG (hex maps, region maps, settlement grids). Nothing here knows a ruleset,
and everything in a ``MapData`` is meant to be shown to the viewer it was made for:
a ruleset leaves out what that viewer may not see (the drawing never filters).

Hexes use axial coordinates ``(q, r)`` on a pointy-top grid; a hex without
coordinates is *unplaced* (drawn in a row under the map). Regions (provinces,
realms) have no geometry: they are nodes linked by ``MapLink`` s and laid out by the
drawing. Settlement grids are blocks of lots; a structure names the lots it fills
(lot ``i`` is lot ``i % lots_per_block`` of block ``i // lots_per_block``).

>>> m = MapData(title="x", hexes=(MapHex("a", 0, 0, "plains"), MapHex("b", None, None, "forest")))
>>> [h.id for h in m.placed_hexes()], [h.id for h in m.unplaced_hexes()]
(['a'], ['b'])
>>> MapHex("a", 0, 0, "plains").neighbours()[:2]
[(1, 0), (1, -1)]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

AXIAL_DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
"""The six neighbours of an axial hex, clockwise from east."""


@dataclass(frozen=True)
class MapHex:
    """One hex as a viewer may see it.

    ``terrain`` is a lower-case word the drawing colours (plains, grassland, hills,
    forest, swamp, marsh, mountains, water, lake, tundra, desert, unknown);
    ``features`` and ``work_site`` are words for people ("landmark", "lumber camp").
    ``explored`` False draws the hex as fog (a ruleset then leaves its details out).
    """

    id: str
    q: int | None
    r: int | None
    terrain: str
    claimed: bool = False
    explored: bool = True
    river: bool = False
    road: bool = False
    settlement: str = ""
    capital: bool = False
    work_site: str = ""
    features: tuple[str, ...] = ()
    owner: str = ""
    note: str = ""
    armies: tuple[str, ...] = ()
    """Armies standing in the hex as the viewer may know them (``Tatzlford Guard``, ``Stag Lord's bandits (enemy)``)."""
    name: str = ""
    """The hex as the map labels it and a person reads it where its id is not a name (pf1's ``h3``: "hex 3");
    empty: its id is its name (pf2e's ``A1``)."""

    @property
    def label(self) -> str:
        """What the hex's tooltip starts with and a text names it by: its ``name``, else its id."""
        return self.name or self.id

    @property
    def mark(self) -> str:
        """What the map writes on the hex: its label without the word "hex" the drawing already says ("3" for
        "hex 3"; "A1" for pf2e's A1), so it stays short beside a settlement's name.

        >>> MapHex("h3", 0, 0, "hills", name="hex 3").mark, MapHex("A1", 0, 0, "plains").mark
        ('3', 'A1')
        """
        return self.label.removeprefix("hex ")

    @property
    def placed(self) -> bool:
        return self.q is not None and self.r is not None

    def neighbours(self) -> list[tuple[int, int]]:
        """The axial coordinates of the six neighbours (empty when unplaced)."""
        if self.q is None or self.r is None:
            return []
        return [(self.q + dq, self.r + dr) for dq, dr in AXIAL_DIRECTIONS]


@dataclass(frozen=True)
class MapRegion:
    """A province or realm: a node of a region map.

    ``owner`` is a ``MapParty`` id ("" = nobody); ``status`` are short words shown
    under the name ("besieged", "occupied by Marburg"); ``detail`` are lines of what the
    viewer knows of it (shown in its tooltip and in the list under the map).
    """

    id: str
    name: str
    owner: str = ""
    terrain: str = ""
    status: tuple[str, ...] = ()
    detail: tuple[str, ...] = ()


@dataclass(frozen=True)
class MapLink:
    """Two regions that border each other (``land``), joined by a road or a highway, or by sea."""

    a: str
    b: str
    kind: str = "land"


@dataclass(frozen=True)
class MapParty:
    """Someone who holds regions or hexes: id, name, and whether it is the viewer's own side."""

    id: str
    name: str
    own: bool = False
    note: str = ""


@dataclass(frozen=True)
class GridStructure:
    """A structure standing on a settlement grid: its name and the lots it fills."""

    name: str
    lots: tuple[int, ...]
    kind: str = ""
    note: str = ""


@dataclass(frozen=True)
class SettlementGrid:
    """A settlement (or one district of it) as blocks of lots.

    ``borders`` maps a side (N, E, S, W) to ``water``, ``land`` or ``wall``.
    """

    id: str
    name: str
    blocks: int
    lots_per_block: int = 4
    columns: int = 3
    structures: tuple[GridStructure, ...] = ()
    rubble: tuple[int, ...] = ()
    borders: Mapping[str, str] = field(default_factory=dict)
    kind: str = ""
    hex: str = ""
    note: str = ""

    @property
    def lots(self) -> int:
        return self.blocks * self.lots_per_block

    def used_lots(self) -> int:
        """Lots filled by a structure."""
        return len({lot for s in self.structures for lot in s.lots})


@dataclass(frozen=True)
class MapData:
    """Everything one viewer's map shows: hexes and/or regions, the links between regions, who holds
    what, and the settlements' grids."""

    title: str
    hexes: tuple[MapHex, ...] = ()
    regions: tuple[MapRegion, ...] = ()
    links: tuple[MapLink, ...] = ()
    parties: tuple[MapParty, ...] = ()
    settlements: tuple[SettlementGrid, ...] = ()
    caption: str = ""

    def placed_hexes(self) -> list[MapHex]:
        return [h for h in self.hexes if h.placed]

    def unplaced_hexes(self) -> list[MapHex]:
        return [h for h in self.hexes if not h.placed]

    def party(self, pid: str) -> MapParty | None:
        return next((p for p in self.parties if p.id == pid), None)


__all__ = ["AXIAL_DIRECTIONS", "GridStructure", "MapData", "MapHex", "MapLink", "MapParty", "MapRegion",
           "SettlementGrid"]
