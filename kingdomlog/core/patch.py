"""State patches: an event's outcome recorded as the values it set, so replay applies facts, not rules.

Where a ruleset's rules compute many changes from a few dice (a revolution, a war
turn), the event can carry the outcome as a ``StatePatch``: the paths of the state
(as its JSON form) that changed and their new values. ``evolve`` applies the patch;
``audit`` re-runs the rules on the recorded dice and compares. A rules fix then
changes what ``audit`` says, never what an old log replays to.

>>> from kingdomlog.core.model import Frozen
>>> class S(Frozen):
...     unrest: int = 0
...     towns: dict[str, int] = {}
>>> p = diff(S(unrest=1, towns={"a": 1}), S(unrest=3, towns={"a": 1, "b": 2}))
>>> [(op.path, op.value) for op in p.ops]
[(('towns', 'b'), 2), (('unrest',), 3)]
>>> apply_patch(S(unrest=1, towns={"a": 1}), p)
S(unrest=3, towns={'a': 1, 'b': 2})
"""

from __future__ import annotations

import copy
from typing import Any, TypeVar

from pydantic import BaseModel, Field

from kingdomlog.core.errors import CorruptLogError
from kingdomlog.core.model import Frozen

M = TypeVar("M", bound=BaseModel)


class PatchOp(Frozen):
    """Set the value at ``path`` (keys of the state's JSON form), or remove the key when ``remove``."""

    path: tuple[str, ...] = Field(min_length=1)
    value: Any = None
    remove: bool = False


class StatePatch(Frozen):
    """The recorded outcome of an event: every changed path of the state and its new value."""

    ops: tuple[PatchOp, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.ops)


def _diff(before: Any, after: Any, path: tuple[str, ...], out: list[PatchOp]) -> None:
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after)):
            if key not in after:
                out.append(PatchOp(path=(*path, key), remove=True))
            elif key not in before:
                out.append(PatchOp(path=(*path, key), value=after[key]))
            elif before[key] != after[key]:
                _diff(before[key], after[key], (*path, key), out)
        return
    if before != after:
        out.append(PatchOp(path=path, value=after))


def diff(before: BaseModel, after: BaseModel) -> StatePatch:
    """The patch that turns ``before`` into ``after`` (lists and scalars are replaced whole)."""
    out: list[PatchOp] = []
    _diff(before.model_dump(mode="json"), after.model_dump(mode="json"), (), out)
    return StatePatch(ops=tuple(out))


def apply_patch(state: M, patch: StatePatch, *, seq: int | None = None) -> M:
    """``state`` with ``patch`` applied; a path that does not fit the state is a ``CorruptLogError``."""
    if not patch.ops:
        return state
    doc = copy.deepcopy(state.model_dump(mode="json"))
    for op in patch.ops:
        node = doc
        for key in op.path[:-1]:
            nxt = node.get(key) if isinstance(node, dict) else None
            if not isinstance(nxt, dict):
                raise CorruptLogError(f"recorded outcome sets {'.'.join(op.path)}, which the state does not have",
                                      seq=seq)
            node = nxt
        if op.remove:
            node.pop(op.path[-1], None)
        else:
            node[op.path[-1]] = op.value
    try:
        return type(state).model_validate(doc)
    except Exception as exc:
        raise CorruptLogError(f"recorded outcome does not fit the state: {exc}", seq=seq) from None
