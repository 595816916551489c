"""The identity memo behind the turn sheet's remembered derivations (core.memo)."""

from __future__ import annotations

import pytest

from kingdomlog.core.memo import ByIdentity


class Thing:
    def __init__(self, n: int) -> None:
        self.n = n

    def __eq__(self, other: object) -> bool:  # equal things are still different objects
        return isinstance(other, Thing) and other.n == self.n

    __hash__ = None  # type: ignore[assignment]


def test_an_object_is_worked_out_once_and_an_equal_one_again() -> None:
    calls: list[int] = []
    memo: ByIdentity[Thing, int] = ByIdentity(limit=4)

    def make(t: Thing) -> int:
        calls.append(t.n)
        return t.n * 10

    a, b = Thing(1), Thing(1)
    assert memo.get(a, make) == 10 and memo.get(a, make) == 10
    assert calls == [1]
    assert memo.get(b, make) == 10 and calls == [1, 1]  # equal, not the same: worked out again


def test_the_memo_forgets_everything_at_its_limit_and_keeps_what_it_holds_alive() -> None:
    memo: ByIdentity[Thing, int] = ByIdentity(limit=2)
    things = [Thing(i) for i in range(3)]
    for t in things[:2]:
        memo.get(t, lambda t: t.n)
    assert len(memo) == 2
    memo.get(things[2], lambda t: t.n)
    assert len(memo) == 1  # cleared, then the new one
    latest: ByIdentity[Thing, int] = ByIdentity(limit=1)
    latest.get(Thing(5), lambda t: t.n)  # no other reference: the memo holds it, so its id is not reused
    assert latest.get(Thing(6), lambda t: t.n) == 6 and len(latest) == 1
    with pytest.raises(ValueError, match="at least 1"):
        ByIdentity(limit=0)
