"""Dice notation: parse ``2d6+1``, ``4d6kh3``, ``d6!``, ``2d20kl1``, ``3d6r1`` and evaluate faces.

Grammar (case-insensitive): terms joined by ``+``/``-``; a term is an integer or
a dice term ``[N]dM[!][rK|r<K][khN|klN|kN]`` (``d%`` is ``d100``). Spaces are
allowed around operators but not inside a term (``1d6 2`` is refused rather
than read as ``1d62``). Digits are ASCII.

- ``!`` explodes: a die showing its maximum adds another die to its value,
  chained (at most 100 times per die);
- ``rK`` rerolls once a face of K or less (``r<K``: below K); the reroll stands
  (it may itself explode, it is never rerolled again);
- ``khN``/``kN`` keeps the N highest dice, ``klN`` the N lowest (a die's value
  includes its explosions; ties keep the earlier die).

``faces`` are every physical die read, in order (rerolled and exploded dice
included), so a GM who rolls real dice can type exactly what they saw. Dice are
read one at a time: a die's first face, its reroll if any, then its explosions,
then the next die. ``Evaluated.roles`` says what each face was (``FACE_ROLES``).

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
MAX_CONSTANT = 1_000_000
_MAX_DIGITS = 9

#: What a face in ``Evaluated.faces`` was: a die's first face that stands, a face
#: that was rerolled away, the reroll that replaced it, or an explosion die.
FACE_ROLES = ("die", "rerolled", "reroll", "explosion")

_TERM = re.compile(
    r"(?P<count>[0-9]*)d(?P<sides>[0-9]+|%)"
    r"(?P<explode>!)?"
    r"(?:r(?P<lt><)?(?P<reroll>[0-9]+))?"
    r"(?:k(?P<kdir>[hl])?(?P<keep>[0-9]+))?"
)
_NUMBER = re.compile(r"[0-9]+")
# whitespace between two characters of one term: "1d6 2", "1 d6", "4d6 kh3"
_INNER_SPACE = re.compile(r"[0-9a-z!%<]\s+[0-9a-z!%<]")


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
    #: one of ``FACE_ROLES`` per face, in the order of ``faces``
    roles: tuple[str, ...] = ()

    def standing(self) -> tuple[int, ...]:
        """The faces that count: every face except those rerolled away.

        >>> parse("3d6!r1").evaluate([1, 4, 6, 2, 5]).standing()
        (4, 6, 2, 5)
        """
        return tuple(f for f, r in zip(self.faces, self.roles, strict=True) if r != "rerolled")


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
        roles: list[str] = []
        all_dice: list[int] = []
        all_kept: list[int] = []
        total = self.constant
        i = 0

        def nxt(sides: int, role: str) -> int:
            nonlocal i
            f = take(sides, i)
            i += 1
            all_faces.append(f)
            roles.append(role)
            return f

        for t in self.terms:
            values = []
            for _ in range(t.count):
                f = nxt(t.sides, "die")
                if t.reroll_at_most is not None and f <= t.reroll_at_most:
                    roles[-1] = "rerolled"
                    f = nxt(t.sides, "reroll")
                v = f
                n = 0
                while t.explode and f == t.sides and n < MAX_EXPLOSIONS:
                    f = nxt(t.sides, "explosion")
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
        return Evaluated(tuple(all_faces), tuple(all_dice), tuple(all_kept), total, tuple(roles))


def _int(text: str, digits: str, what: str) -> int:
    if len(digits) > _MAX_DIGITS:
        raise InputError(f"dice notation {text!r}: {what} {digits[:12]}... is too large")
    return int(digits)


def parse(text: str) -> DiceExpr:
    """Parse dice notation; raises ``InputError`` quoting the text and saying what is wrong where.

    >>> parse("2d6 + 1").constant
    1
    >>> try:
    ...     parse("4d6kh")
    ... except InputError as exc:
    ...     print(exc)
    dice notation '4d6kh': cannot read 'kh' at position 4 (after '4d6') (r and k need a number: r1, r<3, kh3, kl1)
    """
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"dice notation must be a non-empty string, got {text!r}")
    low = text.lower()
    bad = _INNER_SPACE.search(low)
    if bad:
        raise InputError(f"dice notation {text!r}: space inside a term at {bad.group()!r}")
    src = re.sub(r"\s+", "", low)
    if src[-1] in "+-":
        raise InputError(f"dice notation {text!r}: ends with an operator")
    terms: list[DiceTerm] = []
    constant = 0
    pos = 0
    first = True
    while pos < len(src):
        sign = 1
        if src[pos] in "+-":
            sign = 1 if src[pos] == "+" else -1
            pos += 1
        elif not first:
            hint = ""
            if re.match(r"!|r<?[0-9]|k[hl]?[0-9]", src[pos:]):
                hint = " (a dice term's modifiers go in the order ! then r then k, each at most once)"
            elif src[pos] in "rk":
                hint = " (r and k need a number: r1, r<3, kh3, kl1)"
            raise InputError(
                f"dice notation {text!r}: cannot read {src[pos:]!r} at position {pos + 1} (after {src[:pos]!r})"
                + hint
            )
        first = False
        m = _TERM.match(src, pos)
        if m:
            count = _int(text, m["count"], "dice count") if m["count"] else 1
            sides = 100 if m["sides"] == "%" else _int(text, m["sides"], "die size")
            if not 1 <= count <= MAX_DICE:
                raise InputError(f"dice notation {text!r}: dice count must be 1..{MAX_DICE}, got {count}")
            if not 2 <= sides <= MAX_SIDES:
                raise InputError(f"dice notation {text!r}: a die needs 2..{MAX_SIDES} sides, got d{sides}")
            reroll = None
            if m["reroll"] is not None:
                reroll = _int(text, m["reroll"], "reroll threshold") - (1 if m["lt"] else 0)
                if not 1 <= reroll < sides:
                    raise InputError(
                        f"dice notation {text!r}: reroll threshold must reroll some faces of a d{sides}"
                        " and leave some to keep"
                    )
            keep = None
            if m["keep"] is not None:
                k = _int(text, m["keep"], "keep count")
                if not 1 <= k <= count:
                    raise InputError(f"dice notation {text!r}: cannot keep {k} of {count} dice")
                keep = (m["kdir"] or "h", k)
            terms.append(DiceTerm(count, sides, sign, bool(m["explode"]), reroll, keep))
            pos = m.end()
            continue
        n = _NUMBER.match(src, pos)
        if not n:
            where = f" (after {src[:pos]!r})" if pos else ""
            raise InputError(f"dice notation {text!r}: cannot read {src[pos:]!r} at position {pos + 1}{where}")
        value = _int(text, n.group(), "constant")
        if value > MAX_CONSTANT:
            raise InputError(f"dice notation {text!r}: constant {value} is larger than {MAX_CONSTANT}")
        constant += sign * value
        pos = n.end()
    return DiceExpr(text=text.strip(), terms=tuple(terms), constant=constant)
