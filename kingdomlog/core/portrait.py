"""A kingdom in words: what a ruleset's ``portrait(state, previous, viewer)`` hook returns.

The player view and the play-by-post report show it: a headline and a few sentences,
the main figures with their labels and the change since the previous turn, the
leaders, and sections of sentences a ruleset adds (Signoria: what a faction believes
of each rival). Everything in it is meant for the viewer it was made for.

>>> f = Figure("unrest", "Unrest", 5, previous=3, better="down")
>>> f.change, f.trend
(2, 'worse')
>>> Figure("gold", "Gold", 5, previous=5).trend
'same'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Value = int | float | str | bool | None
Better = Literal["up", "down", ""]
"""Which way a figure is good for the kingdom: ``up`` (more is better), ``down`` (less is), ``""`` (neither)."""


@dataclass(frozen=True)
class Figure:
    """A labelled figure. ``key`` is its ``summary()`` column (charts use the label); ``better`` says
    which way is good for the kingdom (``up``, ``down`` or ``""``)."""

    key: str
    label: str
    value: Value
    previous: Value = None
    unit: str = ""
    better: Better = "up"

    @property
    def change(self) -> int | float | None:
        """``value - previous`` for numbers, else None."""
        v, p = self.value, self.previous
        if isinstance(v, bool) or isinstance(p, bool):
            return None
        if isinstance(v, (int, float)) and isinstance(p, (int, float)):
            return v - p
        return None

    @property
    def trend(self) -> Literal["better", "worse", "same", "changed", ""]:
        """How the change reads for the kingdom."""
        if self.previous is None:
            return ""
        d = self.change
        if d is None:
            return "same" if self.value == self.previous else "changed"
        if d == 0:
            return "same"
        if not self.better:
            return "changed"
        return "better" if (d > 0) == (self.better == "up") else "worse"


@dataclass(frozen=True)
class Leader:
    """Who holds a role: the role's name, the person, and a short note (vacant, absent, invested)."""

    role: str
    name: str
    note: str = ""


@dataclass(frozen=True)
class Section:
    """A titled list of sentences."""

    title: str
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Portrait:
    """A kingdom (or faction) in words, for one viewer."""

    headline: str
    sentences: tuple[str, ...] = ()
    figures: tuple[Figure, ...] = ()
    leaders: tuple[Leader, ...] = ()
    sections: tuple[Section, ...] = ()

    def label(self, key: str) -> str | None:
        """The label of the figure for ``summary()`` column ``key``, if the portrait has one."""
        return next((f.label for f in self.figures if f.key == key), None)


__all__ = ["Better", "Figure", "Leader", "Portrait", "Section"]
