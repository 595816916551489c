"""Hex maps on axial coordinates ``(q, r)``: neighbours, distance and areas, as small pure functions.

Any ruleset whose map is a hex grid can use these (pf2e Kingmaker's kingdom map; pf1's map uses the
same axial convention). A hex touches six others; the third cube coordinate is ``s = -q - r``, and the
distance between two hexes is the number of steps from one to the other across shared sides.

>>> neighbours((0, 0))
((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
>>> distance((0, 0), (2, -1)), adjacent((0, 0), (1, -1)), adjacent((0, 0), (1, 1))
(2, True, False)
>>> len(within((3, 4), 2))
19
"""

from __future__ import annotations

from collections.abc import Iterable

Axial = tuple[int, int]
"""An axial coordinate ``(q, r)``."""

DIRECTIONS: tuple[Axial, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
"""The six steps to a neighbour, counter-clockwise from east (flat or pointy tops alike)."""


def neighbours(at: Axial) -> tuple[Axial, ...]:
    """The six hexes sharing a side with ``at``, in ``DIRECTIONS`` order."""
    q, r = at
    return tuple((q + dq, r + dr) for dq, dr in DIRECTIONS)


def distance(a: Axial, b: Axial) -> int:
    """Steps from ``a`` to ``b`` across shared sides (0 for the same hex).

    >>> distance((0, 0), (0, 0)), distance((0, 0), (3, -3)), distance((-2, 1), (1, 1))
    (0, 3, 3)
    """
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def adjacent(a: Axial, b: Axial) -> bool:
    """Whether ``a`` and ``b`` share a side (a hex is not adjacent to itself)."""
    return distance(a, b) == 1


def within(center: Axial, radius: int) -> tuple[Axial, ...]:
    """Every hex at most ``radius`` steps from ``center`` (``center`` included), sorted; 3r(r+1)+1 of them.

    >>> within((0, 0), 0), len(within((0, 0), 1)), len(within((0, 0), 3))
    (((0, 0),), 7, 37)
    """
    if radius < 0:
        return ()
    q0, r0 = center
    out = [(q0 + dq, r0 + dr) for dq in range(-radius, radius + 1)
           for dr in range(max(-radius, -dq - radius), min(radius, -dq + radius) + 1)]
    return tuple(sorted(out))


def ring(center: Axial, radius: int) -> tuple[Axial, ...]:
    """The hexes exactly ``radius`` steps from ``center`` (6·radius of them; the center alone for 0)."""
    return tuple(h for h in within(center, radius) if distance(center, h) == radius)


def touches(at: Axial, area: Iterable[Axial]) -> bool:
    """Whether ``at`` is adjacent to any hex of ``area`` (a kingdom's claimed hexes, say)."""
    around = set(neighbours(at))
    return any(h in around for h in area)


def nearest(at: Axial, candidates: Iterable[Axial]) -> Axial | None:
    """The candidate closest to ``at`` (ties: the smallest ``(q, r)``), or None when there is none."""
    best: Axial | None = None
    for h in candidates:
        if best is None or (distance(at, h), h) < (distance(at, best), best):
            best = h
    return best


__all__ = ["DIRECTIONS", "Axial", "adjacent", "distance", "nearest", "neighbours", "ring", "touches", "within"]
