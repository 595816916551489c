"""Typed modifiers and their stacking, shared by every d20-style ruleset.

A modifier has a kind (``status``, ``circumstance``, ``item``, ``ability``,
``proficiency``, ``untyped``, ...). Per kind, only the highest bonus and the
worst penalty count; ``untyped`` (and any kind listed in ``always_stack``) all
add. The result is a ``Breakdown`` listing the terms that counted, so every
total can be explained.

>>> from kingdomlog.core.modifiers import Modifier, stack
>>> b = stack("Loyalty", [Modifier("ability", 3, "ability"), Modifier("Shrine", 1, "item"),
...                       Modifier("Festival", 2, "item"), Modifier("Unrest", -1, "status")])
>>> b.total, [t.label for t in b.terms]
(4, ['ability', 'Festival', 'Unrest'])
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kingdomlog.core.ruleset import Breakdown, Term


@dataclass(frozen=True)
class Modifier:
    """A signed value of a kind from a source; ``enabled=False`` keeps it visible but unused."""

    label: str
    value: int
    kind: str = "untyped"
    source: str = ""
    enabled: bool = True


def stack(name: str, modifiers: Iterable[Modifier], *, always_stack: frozenset[str] = frozenset({"untyped"}),
          base: int = 0, note: str = "") -> Breakdown:
    """Stack ``modifiers`` into a breakdown: best bonus and worst penalty per kind, untyped all add."""
    best: dict[str, Modifier] = {}
    worst: dict[str, Modifier] = {}
    counted: list[Modifier] = []
    for m in modifiers:
        if not m.enabled or m.value == 0:
            continue
        if m.kind in always_stack:
            counted.append(m)
        elif m.value > 0:
            if m.kind not in best or m.value > best[m.kind].value:
                best[m.kind] = m
        elif m.kind not in worst or m.value < worst[m.kind].value:
            worst[m.kind] = m
    keep = {id(m) for m in (*counted, *best.values(), *worst.values())}
    ordered: list[Modifier] = []
    seen: set[int] = set()
    for m in modifiers if isinstance(modifiers, (list, tuple)) else [*counted, *best.values(), *worst.values()]:
        if id(m) in keep and id(m) not in seen:
            ordered.append(m)
            seen.add(id(m))
    total = base + sum(m.value for m in ordered)
    return Breakdown(name, total, tuple(Term(m.label, m.value, m.kind, m.source) for m in ordered), note)
