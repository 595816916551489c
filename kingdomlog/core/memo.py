"""Values worked out from an object that is never changed, remembered by that object's identity.

States are frozen and a catalog's tables are never edited, so what is derived from one (its summary, its JSON
dump, its panel's HTML, an index of its buildings by name) can be kept for as long as the object is in use. The
turn sheet asks for the same state's derivations on every edit; these memos make the second ask free.

An entry holds the object itself, so its ``id`` cannot be given to another object while the entry lives, and
each hit is confirmed by ``is``. A memo forgets everything once it holds ``limit`` entries (``limit=1``: only the
latest object), which bounds what it keeps alive without any bookkeeping per hit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class ByIdentity(Generic[K, V]):
    """``get(obj, make)``: ``make(obj)`` the first time ``obj`` is asked for, the same value after."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"a memo's limit is at least 1, not {limit}")
        self.limit = limit
        self._hits: dict[int, tuple[K, V]] = {}

    def get(self, obj: K, make: Callable[[K], V]) -> V:
        hit = self._hits.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        if len(self._hits) >= self.limit:
            self._hits.clear()
        value = make(obj)
        self._hits[id(obj)] = (obj, value)
        return value

    def __len__(self) -> int:
        return len(self._hits)

    def clear(self) -> None:
        self._hits.clear()
