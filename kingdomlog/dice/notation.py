"""Dice notation: parse ``2d6+1``, ``4d6kh3``, ``d6!``, ``2d20kl1``, ``3d6r1`` and evaluate faces.

Grammar (case-insensitive, spaces ignored): terms joined by ``+``/``-``; a term is
an integer or a dice term ``[N]dM[!][rK|r<K][khN|klN|kN]``:

- ``!`` explodes: a die showing its maximum adds another die, chained (at most 100 times);
- ``rK`` rerolls once a face of K or less (``r<K``: below K); the reroll stands;
- ``khN``/``kN`` keeps the N highest dice, ``klN`` the N lowest.

``faces`` are every physical die read, in order (rerolled and exploded dice
included), so a GM who rolls real dice can type exactly what they saw.

>>> e = parse("4d6kh3")
>>> e.evaluate([6, 1, 4, 3]).total
13
>>> parse("1d20+7").evaluate([12]).total
19
>>> parse("d6!").evaluate([6, 6, 2]).total
14
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kingdomlog.core.errors import InputError

MAX_EXPLOSIONS = 100
MAX_DICE = 1000
MAX_SIDES = 10_000

_TERM = re.compile(
    r"(?P<count>\d*)d(?P<sides>\d+|%)"
    r"(?P<explode>!)?"
    r"(?:r(?P<lt><)?(?P<reroll>\d+))?"
    r"(?:k(?P<kdir>[hl])?(?P<keep>\d+))?"
)


@dataclass(frozen=True)
class DiceTerm:
    """``count`` dice of ``sides`` with optional explode, reroll-at-or-below, keep."""

    count: int
    sides: int
    sign: int = 1
    explode: bool = False
    reroll_at_most: int | None = None
    keep: tuple[str, int] | None = None

    def text(self) -> str:
        s = f"{self.count}d{self.sides}"
        if self.explode:
            s += "!"
        if self.reroll_at_most is not None:
            s += f"r{self.reroll_at_most}"
        if self.keep:
            s += f"k{self.keep[0]}{self.keep[1]}"
        return s


@dataclass(frozen=True)
class Evaluated:
    """The result of applying faces to an expression."""

    faces: tuple[int, ...]
    dice: tuple[int, ...]
    kept: tuple[int, ...]
    total: int


@dataclass(frozen=True)
class DiceExpr:
    """A parsed notation: dice terms plus a constant."""

    text: str
    terms: tuple[DiceTerm, ...]
    constant: int = 0

    @property
    def min_faces(self) -> int:
        """How many faces the fewest possible physical dice show."""
        return sum(t.count for t in self.terms)

    def roll(self, draw: Callable[[int], int]) -> Evaluated:
        """Evaluate with ``draw(sides) -> face`` supplying each physical die in turn."""
        return self._run(lambda sides, _i: draw(sides))

    def evaluate(self, faces: Sequence[int]) -> Evaluated:
        """Evaluate with typed-in ``faces``; raises ``InputError`` if they do not fit exactly."""
        faces = list(faces)
        pos = 0

        def take(sides: int, i: int) -> int:
            nonlocal pos
            if pos >= len(faces):
                raise InputError(f"{self.text}: needs more faces than the {len(faces)} given")
            f = faces[pos]
            if not isinstance(f, int) or isinstance(f, bool) or not 1 <= f <= sides:
                raise InputError(f"{self.text}: face #{pos + 1} is {f!r}, not a d{sides} face (1..{sides})")
            pos += 1
            return f

        out = self._run(take)
        if pos != len(faces):
            raise InputError(f"{self.text}: {len(faces)} faces given but only {pos} are used")
        return out

    def _run(self, take: Callable[[int, int], int]) -> Evaluated:
        all_faces: list[int] = []
        all_dice: list[int] = []
        all_kept: list[int] = []
        total = self.constant
        i = 0

        def nxt(sides: int) -> int:
            nonlocal i
            f = take(sides, i)
            i += 1
            all_faces.append(f)
            return f

        for t in self.terms:
            values = []
            for _ in range(t.count):
                f = nxt(t.sides)
                if t.reroll_at_most is not None and f <= t.reroll_at_most:
                    f = nxt(t.sides)
                v = f
                n = 0
                while t.explode and f == t.sides and n < MAX_EXPLOSIONS:
                    f = nxt(t.sides)
                    v += f
                    n += 1
                values.append(v)
            kept = values
            if t.keep:
                d, k = t.keep
                order = sorted(range(len(values)), key=lambda j: values[j], reverse=(d == "h"))
                chosen = sorted(order[:k])
                kept = [values[j] for j in chosen]
            all_dice.extend(values)
            all_kept.extend(kept)
            total += t.sign * sum(kept)
        return Evaluated(tuple(all_faces), tuple(all_dice), tuple(all_kept), total)


def parse(text: str) -> DiceExpr:
    """Parse dice notation; raises ``InputError`` quoting the text and the bad position."""
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"dice notation must be a non-empty string, got {text!r}")
    src = re.sub(r"\s+", "", text.lower())
    terms: list[DiceTerm] = []
    constant = 0
    pos = 0
    sign = 1
    first = True
    while pos < len(src):
        if src[pos] in "+-":
            sign = 1 if src[pos] == "+" else -1
            pos += 1
        elif not first:
            raise InputError(f"dice notation {text!r}: expected + or - at position {pos + 1}")
        first = False
        m = _TERM.match(src, pos)
        if m and m.end() > pos:
            count = int(m["count"]) if m["count"] else 1
            sides = 100 if m["sides"] == "%" else int(m["sides"])
            if not 1 <= count <= MAX_DICE:
                raise InputError(f"dice notation {text!r}: dice count must be 1..{MAX_DICE}")
            if not 2 <= sides <= MAX_SIDES:
                raise InputError(f"dice notation {text!r}: a die needs 2..{MAX_SIDES} sides")
            reroll = None
            if m["reroll"] is not None:
                reroll = int(m["reroll"]) - (1 if m["lt"] else 0)
                if not 1 <= reroll < sides:
                    raise InputError(f"dice notation {text!r}: reroll threshold must leave faces to keep")
            if m["explode"] and sides < 2:
                raise InputError(f"dice notation {text!r}: cannot explode a d{sides}")
            keep = None
            if m["keep"] is not None:
                k = int(m["keep"])
                if not 1 <= k <= count:
                    raise InputError(f"dice notation {text!r}: cannot keep {k} of {count} dice")
                keep = (m["kdir"] or "h", k)
            terms.append(DiceTerm(count, sides, sign, bool(m["explode"]), reroll, keep))
            pos = m.end()
            continue
        n = re.match(r"\d+", src[pos:])
        if not n:
            raise InputError(f"dice notation {text!r}: cannot read {src[pos:]!r} at position {pos + 1}")
        constant += sign * int(n.group())
        pos += n.end()
    if src and src[-1] in "+-":
        raise InputError(f"dice notation {text!r}: ends with an operator")
    return DiceExpr(text=text.strip(), terms=tuple(terms), constant=constant)
