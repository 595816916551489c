"""Check kernels: the arithmetic of a check, on plain numbers (design §5).

Nothing here rolls: a ruleset's ``decide`` rolls with the keyed roller, puts the
faces into its event, and calls a kernel with the faces it recorded. ``evolve``
and tests can then call the same kernel on the same numbers. Every kernel
validates its inputs and raises ``InputError`` naming the bad value.

Kernels:

- PF2e: ``degree_of_success`` (four degrees, natural 20/1 shift one step),
  ``pf2e_check`` (the same, as a ``CheckResult`` for an event payload),
  ``flat_check``;
- 5e style: ``d20_mode`` (advantage and disadvantage cancel), ``d20_notation``,
  ``d20_adv`` (which d20 is kept), ``check_5e`` (meet or beat);
- PF1 style: ``d20_check`` (natural 1 fails, natural 20 succeeds, each switchable);
- tables: ``two_d6_band`` (which band of a table a total falls in);
- d6 pools: ``pool_successes``, ``pool_sixes``, and ``PoolSpec`` (notation for
  the roller, scoring of the faces it returns: explosions and rerolled ones).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from itertools import pairwise
from typing import Literal, TypeVar

from kingdomlog.core.errors import InputError
from kingdomlog.dice.notation import parse

T = TypeVar("T")

D20Mode = Literal["normal", "advantage", "disadvantage"]
_MODES: tuple[str, ...] = ("normal", "advantage", "disadvantage")


def _int(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError(f"{what} must be an integer, got {value!r}")
    return value


def _face(value: object, sides: int, what: str = "die") -> int:
    v = _int(value, what)
    if not 1 <= v <= sides:
        raise InputError(f"{what} must be a d{sides} face (1..{sides}), got {v}")
    return v


# --------------------------------------------------------------------------- PF2e


class Degree(IntEnum):
    """PF2e degree of success, ordered worst to best (so ``<`` compares outcomes)."""

    CRITICAL_FAILURE = 0
    FAILURE = 1
    SUCCESS = 2
    CRITICAL_SUCCESS = 3

    @property
    def label(self) -> str:
        """The lower-case name used in payloads: ``"critical_success"``."""
        return self.name.lower()

    @property
    def succeeded(self) -> bool:
        """A critical success also counts as a success (pf2e spec §3.0.1 step 6)."""
        return self >= Degree.SUCCESS

    def shift(self, steps: int) -> Degree:
        """Improve (``steps > 0``) or worsen (``steps < 0``) by steps, clamped to the four degrees.

        Used for the natural 20/1 step and for rules that worsen a result further
        (pf2e spec §3.0.1 step 5: anarchy worsens one more step).

        >>> Degree.SUCCESS.shift(-1).label
        'failure'
        >>> Degree.CRITICAL_SUCCESS.shift(1).label
        'critical_success'
        >>> Degree.FAILURE.shift(-2).label
        'critical_failure'
        """
        return Degree(max(0, min(3, int(self) + _int(steps, "steps"))))

    @classmethod
    def from_label(cls, label: str) -> Degree:
        """The degree named ``label`` (``"success"``); ``InputError`` if there is none."""
        try:
            return cls[label.upper()]
        except (KeyError, AttributeError):
            names = ", ".join(d.label for d in cls)
            raise InputError(f"unknown degree of success {label!r}; expected one of {names}") from None


def _base_degree(total: int, dc: int) -> Degree:
    if total >= dc + 10:
        return Degree.CRITICAL_SUCCESS
    if total >= dc:
        return Degree.SUCCESS
    if total <= dc - 10:
        return Degree.CRITICAL_FAILURE
    return Degree.FAILURE


def _natural_step(die: int) -> int:
    return 1 if die == 20 else -1 if die == 1 else 0


def degree_of_success(die: int, modifier: int, dc: int) -> Degree:
    """PF2e degree of success of a d20 check (pf2e-kingmaker spec §3.0.1, steps 3-4).

    ``die`` is the d20 face (1..20), ``modifier`` the total modifier, ``dc`` the
    DC. With ``total = die + modifier``: ``total >= dc + 10`` is a critical
    success, ``total >= dc`` a success, ``total <= dc - 10`` a critical failure,
    otherwise a failure. Then a natural 20 improves the degree one step and a
    natural 1 worsens it one step, never past the ends. Raises ``InputError``
    for a face outside 1..20 or a non-integer.

    >>> degree_of_success(12, 7, 19).label         # 19 vs 19
    'success'
    >>> degree_of_success(20, 0, 25).label         # 20 is a failure, the natural 20 makes it a success
    'success'
    >>> degree_of_success(1, 30, 15).label         # 31 is a critical success, the natural 1 lowers it
    'success'
    >>> degree_of_success(5, 0, 15).label          # 5 <= 15 - 10
    'critical_failure'
    """
    d = _face(die, 20, "d20 die")
    total = d + _int(modifier, "modifier")
    return _base_degree(total, _int(dc, "DC")).shift(_natural_step(d))


@dataclass(frozen=True)
class CheckResult:
    """One PF2e check, every number of it: put ``as_dict()`` in the event payload.

    ``natural`` is the die when it is a natural 20 or 1 (whose step is already
    in ``degree``), else ``None``; ``base_degree`` is the degree before it.
    """

    die: int
    modifier: int
    total: int
    dc: int
    degree: Degree
    natural: int | None
    base_degree: Degree

    def as_dict(self) -> dict[str, object]:
        """Plain JSON-ready values; degrees by label.

        >>> pf2e_check(20, 3, 30).as_dict()
        {'die': 20, 'modifier': 3, 'total': 23, 'dc': 30, 'degree': 'success', 'natural': 20, 'base_degree': 'failure'}
        """
        return {
            "die": self.die,
            "modifier": self.modifier,
            "total": self.total,
            "dc": self.dc,
            "degree": self.degree.label,
            "natural": self.natural,
            "base_degree": self.base_degree.label,
        }


def pf2e_check(die: int, modifier: int, dc: int) -> CheckResult:
    """Resolve a PF2e check into a ``CheckResult`` (pf2e-kingmaker spec §3.0.1).

    Same rule as ``degree_of_success``; raises ``InputError`` likewise.

    >>> r = pf2e_check(1, 12, 14)
    >>> (r.total, r.base_degree.label, r.degree.label, r.natural)
    (13, 'failure', 'critical_failure', 1)
    """
    d = _face(die, 20, "d20 die")
    m = _int(modifier, "modifier")
    c = _int(dc, "DC")
    base = _base_degree(d + m, c)
    step = _natural_step(d)
    return CheckResult(d, m, d + m, c, base.shift(step), d if step else None, base)


def flat_check(die: int, dc: int) -> bool:
    """PF2e flat check: a bare d20 succeeds if ``die >= dc`` (pf2e-kingmaker spec §3.0.2).

    No modifiers and no degrees; a DC of 1 or less always succeeds and a DC of
    21 or more always fails (the spec's "without rolling": the face is ignored).
    Raises ``InputError`` for a face outside 1..20.

    >>> flat_check(11, 11), flat_check(10, 11), flat_check(1, 1), flat_check(20, 21)
    (True, False, True, False)
    """
    d = _face(die, 20, "d20 die")
    c = _int(dc, "DC")
    return c <= 1 or d >= c


# ------------------------------------------------------------------ 5e and PF1


def d20_mode(advantages: int, disadvantages: int) -> D20Mode:
    """Which d20 roll applies given counts of advantage and disadvantage sources (5e rule).

    Any advantage together with any disadvantage gives a normal roll; several
    sources of one kind do not stack (aikakirjat spec §2.16).

    >>> d20_mode(2, 0), d20_mode(0, 1), d20_mode(3, 1), d20_mode(0, 0)
    ('advantage', 'disadvantage', 'normal', 'normal')
    """
    a = _int(advantages, "advantage count")
    d = _int(disadvantages, "disadvantage count")
    if a < 0 or d < 0:
        raise InputError(f"advantage/disadvantage counts must be >= 0, got {a} and {d}")
    if a and not d:
        return "advantage"
    if d and not a:
        return "disadvantage"
    return "normal"


def _mode(mode: str) -> D20Mode:
    if mode == "advantage":
        return "advantage"
    if mode == "disadvantage":
        return "disadvantage"
    if mode == "normal":
        return "normal"
    raise InputError(f"d20 mode must be one of {', '.join(_MODES)}, got {mode!r}")


def d20_notation(mode: str) -> str:
    """Dice notation to give the roller for a d20 in ``mode``.

    >>> d20_notation("normal"), d20_notation("advantage"), d20_notation("disadvantage")
    ('1d20', '2d20kh1', '2d20kl1')
    """
    return {"normal": "1d20", "advantage": "2d20kh1", "disadvantage": "2d20kl1"}[_mode(mode)]


def d20_adv(faces: Sequence[int], mode: str) -> int:
    """The d20 face kept under advantage (higher), disadvantage (lower) or a normal roll.

    Advantage and disadvantage need exactly two faces. A normal roll takes one
    face, or two of which the first is used (so a sheet that always rolls two
    d20s can record both). Raises ``InputError`` for a wrong count or face
    (aikakirjat spec §2.16, 5e rule).

    >>> d20_adv((7, 15), "advantage"), d20_adv((7, 15), "disadvantage"), d20_adv((7, 15), "normal")
    (15, 7, 7)
    """
    m = _mode(mode)
    fs = [_face(f, 20, "d20 die") for f in faces]
    if m == "normal":
        if len(fs) not in (1, 2):
            raise InputError(f"a normal d20 roll needs 1 face (or 2, the first used), got {len(fs)}: {fs}")
        return fs[0]
    if len(fs) != 2:
        raise InputError(f"a d20 roll with {m} needs exactly 2 faces, got {len(fs)}: {fs}")
    return max(fs) if m == "advantage" else min(fs)


def check_5e(die: int, modifier: int, dc: int) -> bool:
    """5e-style check: success when ``die + modifier >= dc`` (meet or beat; aikakirjat spec §2.16, A79).

    No automatic result on a natural 1 or 20 (aikakirjat A80); ``die`` is the
    kept d20 (see ``d20_adv``).

    >>> check_5e(10, 3, 13), check_5e(10, 3, 14), check_5e(20, 0, 21), check_5e(1, 20, 21)
    (True, False, False, True)
    """
    return _face(die, 20, "d20 die") + _int(modifier, "modifier") >= _int(dc, "DC")


def d20_check(die: int, modifier: int, dc: int, *, nat1_fails: bool = True, nat20_succeeds: bool = True) -> bool:
    """A pass/fail d20 check with automatic natural results (pf1-kingmaker spec §2.5).

    ``success = (die = 20 and nat20_succeeds) or (not (die = 1 and nat1_fails)
    and die + modifier >= dc)``. With both switches off it is ``check_5e``.
    The failure margin of the PF1 spec is ``max(0, dc - total)``, computed by
    the caller.

    >>> d20_check(20, 1, 22), d20_check(1, 30, 22), d20_check(1, 30, 22, nat1_fails=False)
    (True, False, True)
    >>> d20_check(20, 1, 22, nat20_succeeds=False)
    False
    """
    d = _face(die, 20, "d20 die")
    total = d + _int(modifier, "modifier")
    c = _int(dc, "DC")
    if d == 20 and nat20_succeeds:
        return True
    if d == 1 and nat1_fails:
        return False
    return total >= c


# ---------------------------------------------------------------------- tables

def two_d6_band(total: int, bands: Sequence[tuple[int | None, int | None, T]]) -> T:
    """The label of the band ``(low, high, label)`` that holds ``total`` (inclusive bounds).

    Made for 2d6 result tables (signoria spec §3.1 and §3.3, aikakirjat spec §3.5 and §3.7) but
    works for any table of totals; ``None`` as ``low`` or ``high`` leaves that
    end open (``(25, None, "two advantages")`` is "25+"). Raises ``InputError``
    if the bands are malformed or overlap (an ambiguous table), or if no band
    holds ``total``, naming the total and the ranges the table covers.

    >>> table = [(None, 6, "fail"), (7, 9, "partial"), (10, None, "full")]
    >>> two_d6_band(8, table), two_d6_band(2, table), two_d6_band(12, table)
    ('partial', 'fail', 'full')
    """
    t = _int(total, "total")
    if not bands:
        raise InputError("a band table needs at least one (low, high, label) band")
    spans: list[tuple[float, float, T]] = []
    for i, band in enumerate(bands):
        if not isinstance(band, tuple) or len(band) != 3:
            raise InputError(f"band #{i + 1} must be a (low, high, label) tuple, got {band!r}")
        low, high, label = band
        lo = float("-inf") if low is None else _int(low, f"band #{i + 1} low")
        hi = float("inf") if high is None else _int(high, f"band #{i + 1} high")
        if lo > hi:
            raise InputError(f"band #{i + 1} {label!r} is empty: low {low} > high {high}")
        spans.append((lo, hi, label))
    ordered = sorted(spans, key=lambda s: s[0])
    for a, b in pairwise(ordered):
        if b[0] <= a[1]:
            raise InputError(f"bands {a[2]!r} and {b[2]!r} overlap: the table is ambiguous")
    for lo, hi, label in spans:
        if lo <= t <= hi:
            return label
    covered = ", ".join(_span_text(lo, hi) for lo, hi, _ in ordered)
    raise InputError(f"total {t} is not covered by any band (the table covers {covered})")


def _span_text(lo: float, hi: float) -> str:
    if lo == float("-inf") and hi == float("inf"):
        return "everything"
    if lo == float("-inf"):
        return f"up to {int(hi)}"
    if hi == float("inf"):
        return f"{int(lo)}+"
    return f"{int(lo)}" if lo == hi else f"{int(lo)}-{int(hi)}"


# ----------------------------------------------------------------------- pools


def _pool_faces(faces: Sequence[int]) -> list[int]:
    return [_face(f, 6, f"pool die #{i + 1}") for i, f in enumerate(faces)]


def pool_successes(faces: Sequence[int], threshold: int = 4) -> int:
    """How many d6 faces are at or above ``threshold`` ("d6 at 4+"; signoria spec conventions and §5.3).

    >>> pool_successes([1, 4, 6, 3, 5]), pool_successes([1, 4, 6, 3, 5], threshold=5)
    (3, 2)
    """
    th = _int(threshold, "threshold")
    return sum(1 for f in _pool_faces(faces) if f >= th)


def pool_sixes(faces: Sequence[int]) -> int:
    """How many d6 faces show 6 (a six in a battle roll is a kill; signoria spec §5.3).

    >>> pool_sixes([6, 1, 6, 5])
    2
    """
    return sum(1 for f in _pool_faces(faces) if f == 6)


@dataclass(frozen=True)
class PoolResult:
    """A scored d6 pool: the faces that stand, the successes, the successes showing 6 (kills in
    signoria), the explosion dice and the dice rerolled."""

    standing: tuple[int, ...]
    successes: int
    sixes: int
    explosions: int
    rerolls: int

    def as_dict(self) -> dict[str, object]:
        return {
            "standing": list(self.standing),
            "successes": self.successes,
            "sixes": self.sixes,
            "explosions": self.explosions,
            "rerolls": self.rerolls,
        }


@dataclass(frozen=True)
class PoolSpec:
    """A pool of ``count`` d6 succeeding at ``threshold``+, optionally exploding sixes and rerolling ones.

    ``notation`` is what to give the roller (``"5d6!"`` explodes sixes, chained;
    ``"5d6r1"`` rerolls each 1 once, the new face standing); ``score`` reads the
    faces the roller returned (or the GM typed), in the notation's order: each
    die's face, its reroll, then its explosions. A rerolled-away 1 does not
    count; an explosion die counts like any other die (signoria spec §5.4:
    Breakthrough, Encirclement). Explosions always chain (the spec's default
    ``explosions_chain = true``; the notation has no non-chaining form).

    >>> spec = PoolSpec(3, explode=True)
    >>> spec.notation
    '3d6!'
    >>> r = spec.score([6, 6, 2, 3, 5])     # die 1: 6, explodes 6, explodes 2; die 2: 3; die 3: 5
    >>> (r.successes, r.sixes, r.explosions)
    (3, 2, 2)
    >>> PoolSpec(2, reroll_ones=True).score([1, 4, 6]).as_dict()
    {'standing': [4, 6], 'successes': 2, 'sixes': 1, 'explosions': 0, 'rerolls': 1}
    """

    count: int
    threshold: int = 4
    explode: bool = False
    reroll_ones: bool = False

    def __post_init__(self) -> None:
        c = _int(self.count, "pool size")
        if c < 0:
            raise InputError(f"pool size must be >= 0, got {c}")
        th = _int(self.threshold, "pool threshold")
        if not 1 <= th <= 7:
            raise InputError(f"pool threshold must be 1..7 (7: nothing succeeds), got {th}")

    @property
    def notation(self) -> str:
        """Dice notation for the roller, e.g. ``"5d6!r1"``; ``""`` for an empty pool."""
        if self.count == 0:
            return ""
        return f"{self.count}d6" + ("!" if self.explode else "") + ("r1" if self.reroll_ones else "")

    def score(self, faces: Sequence[int]) -> PoolResult:
        """Score the physical faces of this pool; ``InputError`` if they do not fit its notation."""
        if self.count == 0:
            if len(faces):
                raise InputError(f"an empty pool takes no faces, got {list(faces)}")
            return PoolResult((), 0, 0, 0, 0)
        ev = parse(self.notation).evaluate(list(faces))
        standing = ev.standing()
        return PoolResult(
            standing=standing,
            successes=sum(1 for f in standing if f >= self.threshold),
            sixes=sum(1 for f in standing if f == 6 and f >= self.threshold),
            explosions=ev.roles.count("explosion"),
            rerolls=ev.roles.count("rerolled"),
        )


# ------------------------------------------------------------------ a check about to be rolled

CheckKind = Literal["pf2e", "flat", "d20", "5e", "2d6", "pool", "total"]


@dataclass(frozen=True)
class CheckSpec:
    """A check a step is about to roll, with every number its odds depend on (known before the dice).

    A ruleset passes one to ``StepContext.roll(key, notation, check=...)`` so the turn
    sheet can show the chance of each outcome beside the roll, computed from the same
    kernels that resolve it. ``kind``: ``pf2e`` (four degrees, natural 20/1; ``shift``
    moves the degree, e.g. −1 in anarchy), ``flat`` (d20 ≥ DC), ``d20`` (PF1: d20 +
    modifier ≥ DC, ``nat1_fails``/``nat20_succeeds``), ``5e`` (d20 in ``mode``:
    normal/advantage/disadvantage), ``2d6`` (``bands`` of (low, high, label)), ``pool``
    (``pool``: a d6 pool counting successes), ``total`` (d20 + modifier whose total is compared with
    another roll's, such as an initiative: no DC before the dice, no degree; ``dc`` unused).
    """

    kind: CheckKind
    modifier: int = 0
    dc: int = 0
    mode: str = "normal"
    shift: int = 0
    label: str = ""
    nat1_fails: bool = True
    nat20_succeeds: bool = True
    bands: tuple[tuple[int | None, int | None, str], ...] = ()
    pool: PoolSpec | None = None
