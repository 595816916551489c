"""Axial hex coordinates (core.hexes): neighbours, distance, areas — by hand and as properties."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kingdomlog.core.hexes import adjacent, distance, nearest, neighbours, ring, touches, within

coord = st.tuples(st.integers(-50, 50), st.integers(-50, 50))


def test_neighbours_by_hand() -> None:
    # around (2, -1): one step in q, in r, or in q and -r together
    assert set(neighbours((2, -1))) == {(3, -1), (1, -1), (2, 0), (2, -2), (3, -2), (1, 0)}


def test_distance_by_hand() -> None:
    # (0,0) -> (2,-1): q+2, r-1, s-1 -> (2+1+1)/2 = 2 steps
    assert distance((0, 0), (2, -1)) == 2
    # (0,0) -> (-3, 3): along one axis, 3 steps
    assert distance((0, 0), (-3, 3)) == 3
    # (0,0) -> (1, 1): q+1, r+1, s-2 -> 2 steps (not adjacent although both coordinates differ by 1)
    assert distance((0, 0), (1, 1)) == 2 and not adjacent((0, 0), (1, 1))


def test_within_and_ring_by_hand() -> None:
    assert set(within((0, 0), 1)) == {(0, 0), *neighbours((0, 0))}
    assert len(ring((5, 5), 2)) == 12
    assert ring((1, 1), 0) == ((1, 1),)
    assert within((0, 0), -1) == ()


def test_touches_and_nearest() -> None:
    kingdom = [(0, 0), (1, 0)]
    assert touches((2, 0), kingdom) and not touches((3, 0), kingdom) and not touches((0, 0), [(0, 0)])
    assert nearest((3, 0), kingdom) == (1, 0)
    assert nearest((0, 0), []) is None
    # a tie (both 1 step away) goes to the smaller coordinate
    assert nearest((0, 0), [(1, 0), (0, 1)]) == (0, 1)


@settings(max_examples=200, deadline=None)
@given(coord, coord, coord)
def test_distance_is_a_metric(a: tuple[int, int], b: tuple[int, int], c: tuple[int, int]) -> None:
    assert distance(a, b) == distance(b, a) >= 0
    assert (distance(a, b) == 0) == (a == b)
    assert distance(a, c) <= distance(a, b) + distance(b, c)


@settings(max_examples=100, deadline=None)
@given(coord, st.integers(0, 6))
def test_areas_have_the_published_hex_counts(center: tuple[int, int], radius: int) -> None:
    area = within(center, radius)
    assert len(area) == 3 * radius * (radius + 1) + 1 == len(set(area))
    assert all(distance(center, h) <= radius for h in area)
    assert all(adjacent(center, n) for n in neighbours(center))
    assert len(ring(center, radius)) == (6 * radius if radius else 1)
