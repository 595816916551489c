"""Exact odds of a check before its dice are rolled, counted through the kernels that resolve it.

A ruleset describes each check it rolls with a ``CheckSpec`` (``StepContext.roll(...,
check=...)``). ``odds(spec)`` enumerates every way the dice can fall and asks the same
kernel the ruleset resolves the roll with (``degree_of_success``, ``flat_check``,
``d20_check``, ``check_5e`` with ``d20_adv``, ``two_d6_band``, ``PoolSpec.score``) what
each one gives, so the odds cannot drift from the rules. Probabilities are
``fractions.Fraction``: exact, not sampled.

- ``pf2e``: 20 faces → four degrees (natural 20/1 included), then ``spec.shift``;
- ``flat``: 20 faces → success/failure of a DC flat check;
- ``d20`` (PF1) and ``5e``: 20 faces, or the 400 ordered pairs of an advantage or
  disadvantage roll (``spec.mode``), kept die through ``d20_adv``;
- ``2d6``: 36 pairs, total = the two dice + ``spec.modifier``, read in ``spec.bands``
  (or success when ``total >= spec.dc`` when there are no bands);
- ``total``: a d20 + modifier compared with another roll's total (an initiative): no DC
  before the dice, so no outcomes, only ``Odds.note`` saying so;
- ``pool``: the successes of a d6 pool. One die's face sequences (its reroll, its
  chained explosions) are enumerated and scored by ``PoolSpec.score``; the pool is the
  sum of its independent dice. Explosions chain without end, so counts above
  ``top`` successes are gathered in one "or more" outcome whose probability is exactly
  what the lower counts leave.

``resolve(spec, roll)`` reads the outcome of a rolled (or typed) die the same way.

>>> o = odds(CheckSpec("pf2e", modifier=9, dc=20))
>>> [(x.label, str(x.chance)) for x in o.outcomes]
[('critical failure', '1/20'), ('failure', '9/20'), ('success', '9/20'), ('critical success', '1/20')]
>>> odds(CheckSpec("5e", modifier=3, dc=13, mode="advantage")).outcomes[1].percent
'79.8%'
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import product

from kingdomlog.core.errors import InputError
from kingdomlog.dice.checks import (
    CheckSpec,
    Degree,
    PoolSpec,
    check_5e,
    d20_adv,
    d20_check,
    degree_of_success,
    flat_check,
    two_d6_band,
)
from kingdomlog.dice.notation import parse
from kingdomlog.dice.roller import Roll

__all__ = ["NO_DC", "Odds", "Outcome", "odds", "resolve"]

NO_DC = "no DC, so no odds before the roll"
"""What the odds of a ``total`` check say (an initiative: the higher total acts first)."""

_PF2E_LABELS = tuple(d.label.replace("_", " ") for d in Degree)


@dataclass(frozen=True)
class Outcome:
    """One outcome of a check and its exact chance; ``good`` orders outcomes for display (worst first)."""

    label: str
    chance: Fraction
    good: int = 0

    @property
    def percent(self) -> str:
        """The chance as a percentage with one decimal (``"45.0%"``); ``"<0.1%"`` for a tiny non-zero chance."""
        if self.chance == 0:
            return "0%"
        p = float(self.chance) * 100
        if p < 0.05:
            return "<0.1%"
        return f"{p:.1f}%"


@dataclass(frozen=True)
class Odds:
    """Every outcome of a check with its chance (they sum to 1), and what the chances were computed from; none for a
    ``total`` check (its ``note`` says why)."""

    spec: CheckSpec
    notation: str
    outcomes: tuple[Outcome, ...]
    note: str = ""

    def chance(self, label: str) -> Fraction:
        """The chance of the outcome named ``label`` (0 when there is none)."""
        return sum((o.chance for o in self.outcomes if o.label == label), Fraction(0))

    def at_least(self, good: int) -> Fraction:
        """The chance of an outcome at least as good as ``good`` (e.g. 2 = success or better in PF2e)."""
        return sum((o.chance for o in self.outcomes if o.good >= good), Fraction(0))


def _d20_faces(mode: str) -> Iterator[tuple[Fraction, int]]:
    """(chance, kept d20) of a d20 roll in ``mode``, through ``d20_adv`` for advantage and disadvantage."""
    if mode == "normal":
        for f in range(1, 21):
            yield Fraction(1, 20), f
        return
    for a, b in product(range(1, 21), repeat=2):
        yield Fraction(1, 400), d20_adv((a, b), mode)


def _tally(pairs: Iterator[tuple[Fraction, str]], order: Sequence[str]) -> tuple[Outcome, ...]:
    got = dict.fromkeys(order, Fraction(0))
    for p, label in pairs:
        got[label] = got.get(label, Fraction(0)) + p
    labels = list(order) + [k for k in got if k not in order]
    return tuple(Outcome(k, got[k], i) for i, k in enumerate(labels))


def _notation(spec: CheckSpec) -> str:
    if spec.kind in ("pf2e", "flat", "total"):
        return "1d20"
    if spec.kind in ("d20", "5e"):
        return {"normal": "1d20", "advantage": "2d20kh1", "disadvantage": "2d20kl1"}.get(spec.mode, "1d20")
    if spec.kind == "2d6":
        return "2d6"
    if spec.pool is not None:
        return spec.pool.notation or "no dice"
    return ""


def odds(spec: CheckSpec, *, top: int | None = None) -> Odds:
    """The exact chance of each outcome of ``spec`` (worst outcome first).

    ``top`` (pools only) is the highest success count listed on its own; higher
    counts are one "N+ successes" outcome (default: the pool size, +2 when sixes explode, at least 3).
    Raises ``InputError`` for a spec the kernels refuse (a bad mode, an ambiguous band table,
    a pool without its ``PoolSpec``).

    >>> [str(o.chance) for o in odds(CheckSpec("flat", dc=11)).outcomes]
    ['1/2', '1/2']
    >>> odds(CheckSpec("total", modifier=11)).outcomes, odds(CheckSpec("total", modifier=11)).note[:5]
    ((), 'no DC')
    >>> bands = ((None, 6, "fail"), (7, None, "hold"))
    >>> [(o.label, str(o.chance)) for o in odds(CheckSpec("2d6", bands=bands)).outcomes]
    [('fail', '5/12'), ('hold', '7/12')]
    """
    if spec.kind in ("d20", "5e") and spec.mode not in ("normal", "advantage", "disadvantage"):
        raise InputError(f"check {spec.label or spec.kind!r}: d20 mode must be normal, advantage or disadvantage,"
                         f" got {spec.mode!r}")
    return _odds(spec, top)


@lru_cache(maxsize=512)
def _odds(spec: CheckSpec, top: int | None) -> Odds:
    note = ""
    if spec.kind == "pf2e":
        outs = _tally(((Fraction(1, 20), degree_of_success(f, spec.modifier, spec.dc).shift(spec.shift).label
                        .replace("_", " ")) for f in range(1, 21)), _PF2E_LABELS)
        if spec.shift:
            note = f"degree {'worsened' if spec.shift < 0 else 'improved'} {abs(spec.shift)} step(s) after the roll"
    elif spec.kind == "flat":
        outs = _tally(((Fraction(1, 20), "success" if flat_check(f, spec.dc) else "failure") for f in range(1, 21)),
                      ("failure", "success"))
    elif spec.kind in ("d20", "5e") and spec.bands:  # a result table read by the total (aikakirjat §3.5)
        order = [band_label(b) for b in sorted(spec.bands, key=_band_low)]
        outs = _tally(((p, _band_of(f + spec.modifier, spec.bands)) for p, f in _d20_faces(spec.mode)), order)
    elif spec.kind == "d20":
        outs = _tally(((p, "success" if d20_check(f, spec.modifier, spec.dc, nat1_fails=spec.nat1_fails,
                                                  nat20_succeeds=spec.nat20_succeeds) else "failure")
                       for p, f in _d20_faces(spec.mode)), ("failure", "success"))
    elif spec.kind == "5e":
        outs = _tally(((p, "success" if check_5e(f, spec.modifier, spec.dc) else "failure")
                       for p, f in _d20_faces(spec.mode)), ("failure", "success"))
    elif spec.kind == "2d6":
        outs = _two_d6(spec)
    elif spec.kind == "total":  # its total meets another roll's, not a DC: nothing to count before the dice
        outs, note = (), NO_DC
    elif spec.kind == "pool":
        if spec.pool is None:
            raise InputError(f"check {spec.label or 'pool'!r}: a pool check needs its PoolSpec")
        outs, note = _pool(spec, spec.pool, top)
    else:  # pragma: no cover - CheckKind is a closed Literal
        raise InputError(f"unknown check kind {spec.kind!r}")
    return Odds(spec, _notation(spec), outs, note)


def _band_low(band: tuple[int | None, int | None, str]) -> int:
    return -10**9 if band[0] is None else band[0]


def band_label(band: tuple[int | None, int | None, str]) -> str:
    """A d20 table's row in words with its totals: ``year advantage (5–14)``, ``tyranny (≤4)``, ``25+``."""
    low, high, key = band
    span = f"≤{high}" if low is None else f"{low}+" if high is None else f"{low}–{high}"
    if re.fullmatch(r"[0-9+<>≤–-]+", key):
        return key.replace("-", "–")
    return f"{key.replace('_', ' ')} ({span})"


def _band_of(total: int, bands: Sequence[tuple[int | None, int | None, str]]) -> str:
    key = two_d6_band(total, bands)
    return band_label(next(b for b in bands if b[2] == key))


def _two_d6(spec: CheckSpec) -> tuple[Outcome, ...]:
    pairs = [(Fraction(1, 36), a + b + spec.modifier) for a, b in product(range(1, 7), repeat=2)]
    if spec.bands:
        order = [label for _, _, label in sorted(spec.bands, key=lambda b: -10**9 if b[0] is None else b[0])]
        return _tally(((p, two_d6_band(t, spec.bands)) for p, t in pairs), order)
    return _tally(((p, "success" if t >= spec.dc else "failure") for p, t in pairs), ("failure", "success"))


# ---- d6 pools ----------------------------------------------------------------------------------


def _one_die(pool: PoolSpec, top: int) -> tuple[dict[int, Fraction], Fraction]:
    """One die of ``pool``: chance of each success count up to ``top``, and the chance of more than ``top``.

    Every face sequence one die can show (a first face, its reroll, its chain of
    explosions) is scored by ``PoolSpec.score``. A chain that has shown more than
    ``top`` sixes already has more than ``top`` successes (a six always succeeds when
    anything does), so it is not followed further: its whole chance goes to "more".
    """
    single = PoolSpec(1, threshold=pool.threshold, explode=pool.explode, reroll_ones=pool.reroll_ones)
    expr = parse(single.notation)
    dist: dict[int, Fraction] = {}
    more = Fraction(0)
    if pool.threshold > 6:  # no face succeeds: the kernel scores every sequence 0
        return {0: Fraction(1)}, Fraction(0)
    stack: list[tuple[int, ...]] = [()]
    while stack:
        prefix = stack.pop()
        for face in range(1, 7):
            seq = (*prefix, face)
            chance = Fraction(1, 6 ** len(seq))
            try:
                expr.evaluate(list(seq))
            except InputError:  # the die is not finished: it needs another face
                if seq.count(6) > top:
                    more += chance
                else:
                    stack.append(seq)
                continue
            n = single.score(list(seq)).successes
            if n > top:
                more += chance
            else:
                dist[n] = dist.get(n, Fraction(0)) + chance
    return dist, more


def _pool(spec: CheckSpec, pool: PoolSpec, top: int | None) -> tuple[tuple[Outcome, ...], str]:
    cap = top if top is not None else max(3, pool.count + (2 if pool.explode else 0))
    if pool.count == 0:
        return (Outcome("0 successes", Fraction(1), 0),), "an empty pool"
    die, _ = _one_die(pool, cap)
    total: dict[int, Fraction] = {0: Fraction(1)}
    for _ in range(pool.count):  # the pool's successes are the sum of its independent dice (exact up to cap)
        nxt: dict[int, Fraction] = {}
        for a, pa in total.items():
            for b, pb in die.items():
                if a + b <= cap:
                    nxt[a + b] = nxt.get(a + b, Fraction(0)) + pa * pb
        total = nxt
    outs = [Outcome(f"{k} success{'es' if k != 1 else ''}", total.get(k, Fraction(0)), k) for k in range(cap + 1)]
    rest = 1 - sum(total.values(), Fraction(0))
    if pool.explode:
        outs.append(Outcome(f"{cap + 1}+ successes", rest, cap + 1))
    elif rest:
        raise InputError(f"a pool of {pool.count} dice cannot score more than {cap} successes")  # pragma: no cover
    while len(outs) > 1 and outs[-1].chance == 0:
        outs.pop()
    parts = [f"d6 at {pool.threshold}+"]
    if pool.explode:
        parts.append("sixes explode")
    if pool.reroll_ones:
        parts.append("ones rerolled once")
    return tuple(outs), ", ".join(parts)


# ---- reading a roll ------------------------------------------------------------------------------


def resolve(spec: CheckSpec, roll: Roll) -> Outcome | None:
    """The outcome ``roll`` gives under ``spec`` through the same kernel as ``odds`` (None if the faces do not fit).

    >>> from kingdomlog.dice.roller import Roll
    >>> resolve(CheckSpec("pf2e", modifier=9, dc=20), Roll("k", "1d20", (20,), (20,), 20)).label
    'critical success'
    """
    table = {o.label: o for o in odds(spec).outcomes}
    try:
        if spec.kind == "pool":
            if spec.pool is None:
                return None
            n = spec.pool.score(list(roll.faces)).successes
            for o in table.values():
                if o.good == n or (o.label.endswith("+ successes") and n >= o.good):
                    return o
            return None
        dice = sum(roll.kept)
        if spec.kind == "2d6":
            t = dice + spec.modifier
            label = two_d6_band(t, spec.bands) if spec.bands else ("success" if t >= spec.dc else "failure")
            return table.get(label)
        die = d20_adv(roll.faces, spec.mode) if spec.kind in ("d20", "5e") and len(roll.faces) == 2 else dice
        if spec.kind in ("d20", "5e") and spec.bands:
            return table.get(_band_of(die + spec.modifier, spec.bands))
        if spec.kind == "pf2e":
            return table.get(degree_of_success(die, spec.modifier, spec.dc).shift(spec.shift).label.replace("_", " "))
        if spec.kind == "flat":
            return table.get("success" if flat_check(die, spec.dc) else "failure")
        if spec.kind == "d20":
            ok = d20_check(die, spec.modifier, spec.dc, nat1_fails=spec.nat1_fails, nat20_succeeds=spec.nat20_succeeds)
            return table.get("success" if ok else "failure")
        if spec.kind == "5e":
            return table.get("success" if check_5e(die, spec.modifier, spec.dc) else "failure")
    except InputError:
        return None
    return None
