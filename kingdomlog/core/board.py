"""A battle as a board (issue 30): the armies of each side and each round's war actions, in words.

A ruleset whose steps play battles says what a step's battles look like (``Ruleset.boards``): for each battle, the
armies of each side with their statistics and conditions from the state before the step, and a line per roll the
battle made (a war action, a rout check, a damage's flat check), in round order, each naming its roll key so a
view can set the check's odds (``dice.odds``) and its roll beside it; what came of the battle in words once the
step has run (damage, morale, routs, who won). The board is read from the step's preview (its choices, rolls,
checks and events): nothing on it is computed twice, and nothing not rolled yet is on it.

>>> b = Board("b1", "Battle at H0", (Side("The kingdom", (Unit("m", "Militia", ("HP 4/4", "AC 16")),)),))
>>> [u.name for s in b.sides for u in s.units]
['Militia']
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Unit:
    """One army as the board shows it: its statistics (``HP 4/4``, ``AC 16``) and its conditions, in words."""

    id: str
    name: str
    stats: tuple[str, ...] = ()
    conditions: tuple[str, ...] = ()
    note: str = ""
    """What else a GM weighs (its tactics, the war actions they grant)."""


@dataclass(frozen=True)
class Side:
    """The armies of one side of a battle."""

    label: str
    units: tuple[Unit, ...] = ()


@dataclass(frozen=True)
class Line:
    """One thing that happened in a round, in words: a war action, a rout check, a damage and what it did.

    ``key``: the roll key of its check, when it rolled one (its odds and faces are the step's, by that key).
    ``army``: the army it is about.
    """

    round: int
    army: str
    text: str
    key: str = ""


@dataclass(frozen=True)
class Board:
    """One battle of a step: its sides, its lines by round (round 0: before the first round: initiative,
    openings), and its outcome in words (empty while the battle is still being rolled)."""

    id: str
    title: str
    sides: tuple[Side, ...] = ()
    lines: tuple[Line, ...] = ()
    outcome: tuple[str, ...] = ()
    titles: tuple[tuple[int, str], ...] = ()
    """What a round number is called where the rules name their phases (pf1: ``(1, "Ranged phase")``); a round
    not named is ``Round n`` (0: before the first round)."""

    def round_title(self, n: int) -> str:
        """``Round 2``; ``Before the first round`` for 0; a phase's own name where ``titles`` gives one.

        >>> Board("w1", "", titles=((1, "Ranged phase"),)).round_title(1), Board("b1", "").round_title(0)
        ('Ranged phase', 'Before the first round')
        """
        named = dict(self.titles)
        if n in named:
            return named[n]
        return "Before the first round" if n == 0 else f"Round {n}"

    @property
    def rounds(self) -> tuple[int, ...]:
        """The rounds with a line, in order."""
        return tuple(sorted({x.round for x in self.lines}))
