"""Exact odds of a check (kingdomlog.dice.odds): hand-computed golden values, closed forms, and the kernels."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kingdomlog.core.errors import InputError
from kingdomlog.dice.checks import CheckSpec, PoolSpec, degree_of_success, pool_successes
from kingdomlog.dice.odds import odds, resolve
from kingdomlog.dice.roller import Roll


def chances(spec: CheckSpec, **kw: int) -> dict[str, Fraction]:
    return {o.label: o.chance for o in odds(spec, **kw).outcomes}


def test_pf2e_golden_values_by_hand() -> None:
    # +9 against DC 20: 1 is a critical failure (10, also <= DC-10), 2-10 fail, 11-19 succeed, 20 succeeds (29)
    # and the natural 20 makes it a critical success.
    assert chances(CheckSpec("pf2e", modifier=9, dc=20)) == {
        "critical failure": Fraction(1, 20), "failure": Fraction(9, 20),
        "success": Fraction(9, 20), "critical success": Fraction(1, 20)}
    # +20 against DC 15: totals 21..40; 25+ (die 5+) critical; die 1-4 success, but the natural 1 lowers it.
    assert chances(CheckSpec("pf2e", modifier=20, dc=15)) == {
        "critical failure": Fraction(0), "failure": Fraction(1, 20),
        "success": Fraction(3, 20), "critical success": Fraction(16, 20)}
    # -5 against DC 30: every total <= 20 is a critical failure; the natural 20 lifts it to a failure.
    assert chances(CheckSpec("pf2e", modifier=-5, dc=30)) == {
        "critical failure": Fraction(19, 20), "failure": Fraction(1, 20),
        "success": Fraction(0), "critical success": Fraction(0)}


def test_pf2e_shift_worsens_after_the_roll() -> None:
    plain = chances(CheckSpec("pf2e", modifier=9, dc=20))
    worse = chances(CheckSpec("pf2e", modifier=9, dc=20, shift=-1))
    assert worse == {"critical failure": plain["critical failure"] + plain["failure"], "failure": plain["success"],
                     "success": plain["critical success"], "critical success": Fraction(0)}


@settings(max_examples=60, deadline=None)
@given(st.integers(-20, 40), st.integers(0, 50), st.integers(-2, 2))
def test_pf2e_odds_count_the_kernel_faces(mod: int, dc: int, shift: int) -> None:
    got = chances(CheckSpec("pf2e", modifier=mod, dc=dc, shift=shift))
    assert sum(got.values()) == 1
    for label, p in got.items():
        faces = [f for f in range(1, 21)
                 if degree_of_success(f, mod, dc).shift(shift).label.replace("_", " ") == label]
        assert p == Fraction(len(faces), 20)


def test_flat_check() -> None:
    assert chances(CheckSpec("flat", dc=11)) == {"failure": Fraction(1, 2), "success": Fraction(1, 2)}
    assert chances(CheckSpec("flat", dc=1))["success"] == 1
    assert chances(CheckSpec("flat", dc=21))["success"] == 0


@pytest.mark.parametrize("mode", ["normal", "advantage", "disadvantage"])
@pytest.mark.parametrize(("mod", "dc"), [(3, 13), (0, 21), (10, 5), (-2, 12)])
def test_5e_closed_forms(mode: str, mod: int, dc: int) -> None:
    single = Fraction(max(0, min(20, 21 - (dc - mod))), 20)  # faces f with f + mod >= dc; no natural results
    want = {"normal": single, "advantage": 1 - (1 - single) ** 2, "disadvantage": single ** 2}[mode]
    assert chances(CheckSpec("5e", modifier=mod, dc=dc, mode=mode))["success"] == want


def test_pf1_natural_one_and_twenty_switches() -> None:
    # +30 vs DC 22: only the natural 1 fails; +0 vs DC 40: only the natural 20 succeeds.
    assert chances(CheckSpec("d20", modifier=30, dc=22))["success"] == Fraction(19, 20)
    assert chances(CheckSpec("d20", modifier=30, dc=22, nat1_fails=False))["success"] == 1
    assert chances(CheckSpec("d20", modifier=0, dc=40))["success"] == Fraction(1, 20)
    assert chances(CheckSpec("d20", modifier=0, dc=40, nat20_succeeds=False))["success"] == 0
    # with advantage: 1 - P(both fail)
    assert chances(CheckSpec("d20", modifier=5, dc=16, mode="advantage"))["success"] == 1 - Fraction(10, 20) ** 2


def test_two_d6_bands_and_threshold() -> None:
    bands = ((None, 6, "fail"), (7, 9, "partial"), (10, None, "full"))
    got = chances(CheckSpec("2d6", bands=bands))
    assert got == {"fail": Fraction(15, 36), "partial": Fraction(15, 36), "full": Fraction(6, 36)}
    assert [o.label for o in odds(CheckSpec("2d6", bands=bands)).outcomes] == ["fail", "partial", "full"]
    assert chances(CheckSpec("2d6", modifier=2, bands=bands))["full"] == Fraction(15, 36)  # 8+ on the dice
    assert chances(CheckSpec("2d6", dc=8))["success"] == Fraction(15, 36)
    with pytest.raises(InputError, match="overlap"):
        odds(CheckSpec("2d6", bands=((None, 7, "a"), (7, None, "b"))))


def test_d20_result_table_by_hand() -> None:
    """A 5e check read on a result table (aikakirjat §3.5 tax collection): d20 -1, so faces 1-5 give a total of
    4 or less, 6-15 give 5-14, 16-20 give 15-19; no face reaches 25. With advantage, 4 or less needs both dice at
    5 or less: (5/20)^2."""
    bands = ((None, 4, "tyranny"), (5, 14, "year_advantage"), (15, 24, "store_one"), (25, None, "store_two"))
    got = chances(CheckSpec("5e", modifier=-1, bands=bands))
    assert got == {"tyranny (≤4)": Fraction(5, 20), "year advantage (5–14)": Fraction(10, 20),
                   "store one (15–24)": Fraction(5, 20), "store two (25+)": 0}
    assert chances(CheckSpec("5e", modifier=-1, mode="advantage", bands=bands))["tyranny (≤4)"] == Fraction(25, 400)
    ranged = ((None, 9, "nothing"), (10, 19, "10-19"), (20, None, "20+"))
    assert list(chances(CheckSpec("5e", modifier=0, bands=ranged))) == ["nothing (≤9)", "10–19", "20+"]
    spec = CheckSpec("5e", modifier=-1, bands=bands)
    assert resolve(spec, Roll("a1", "1d20", (8,), (8,), 8)).label == "year advantage (5–14)"  # type: ignore[union-attr]
    assert resolve(spec, Roll("a1", "1d20", (5,), (5,), 5)).label == "tyranny (≤4)"  # type: ignore[union-attr]


@pytest.mark.parametrize(("count", "th"), [(1, 4), (4, 4), (5, 5), (6, 6)])
def test_plain_pool_is_binomial(count: int, th: int) -> None:
    p = Fraction(7 - th, 6)
    got = odds(CheckSpec("pool", pool=PoolSpec(count, threshold=th))).outcomes
    from math import comb

    assert [o.chance for o in got] == [comb(count, k) * p ** k * (1 - p) ** (count - k) for k in range(count + 1)]


def test_one_exploding_die_by_hand() -> None:
    # d6 at 4+, sixes explode: 1-3 → 0, 4-5 → 1, 6 → 1 + another such die.
    # P(0) = 1/2, P(1) = 1/3 + 1/6·P(0) = 5/12, P(k) = 1/6·P(k-1) for k >= 2.
    got = odds(CheckSpec("pool", pool=PoolSpec(1, explode=True)), top=4).outcomes
    want = [Fraction(1, 2), Fraction(5, 12), Fraction(5, 72), Fraction(5, 432), Fraction(5, 2592)]
    assert [o.chance for o in got[:5]] == want
    assert got[5].label == "5+ successes" and got[5].chance == 1 - sum(want)


def test_rerolled_ones_by_hand() -> None:
    # d6 at 4+, a 1 rerolled once: P(success) = 1/2 + 1/6·1/2 = 7/12
    got = chances(CheckSpec("pool", pool=PoolSpec(1, reroll_ones=True)))
    assert got == {"0 successes": Fraction(5, 12), "1 success": Fraction(7, 12)}


@pytest.mark.parametrize("pool", [PoolSpec(2, explode=True), PoolSpec(2, explode=True, reroll_ones=True),
                                  PoolSpec(3, threshold=5, reroll_ones=True), PoolSpec(2, threshold=6, explode=True)])
def test_pool_odds_agree_with_the_kernel_on_every_short_face_sequence(pool: PoolSpec) -> None:
    """Every sequence of up to 5 faces that is a complete roll, scored by PoolSpec.score, gives a lower bound
    per success count; the odds may exceed it only by the chance of the longer sequences."""
    lower: dict[int, Fraction] = {}
    covered = Fraction(0)
    for n in range(pool.count, 6):
        for seq in product(range(1, 7), repeat=n):
            try:
                r = pool.score(list(seq))
            except InputError:
                continue
            lower[r.successes] = lower.get(r.successes, Fraction(0)) + Fraction(1, 6 ** n)
            covered += Fraction(1, 6 ** n)
    got = {o.good: o.chance for o in odds(CheckSpec("pool", pool=pool), top=8).outcomes}
    for k, lo in lower.items():
        assert lo <= got[k] <= lo + (1 - covered)
    assert sum(got.values()) == 1


def test_nothing_succeeds_at_seven() -> None:
    assert chances(CheckSpec("pool", pool=PoolSpec(3, threshold=7, explode=True))) == {"0 successes": 1}


def test_resolve_reads_a_roll_as_the_kernel_does() -> None:
    spec = CheckSpec("pf2e", modifier=9, dc=20)
    for f in range(1, 21):
        out = resolve(spec, Roll("k", "1d20", (f,), (f,), f))
        assert out is not None and out.label == degree_of_success(f, 9, 20).label.replace("_", " ")
    adv = CheckSpec("5e", modifier=0, dc=15, mode="advantage")
    assert resolve(adv, Roll("k", "2d20kh1", (3, 16), (16,), 16)).label == "success"  # type: ignore[union-attr]
    pool = CheckSpec("pool", pool=PoolSpec(4))
    out = resolve(pool, Roll("k", "4d6", (1, 4, 6, 3), (1, 4, 6, 3), 14))
    assert out is not None and out.good == pool_successes([1, 4, 6, 3])
    assert resolve(spec, Roll("k", "1d20", (25,), (25,), 25)) is None  # not a d20 face


def test_bad_specs_are_refused_by_name() -> None:
    with pytest.raises(InputError, match="mode"):
        odds(CheckSpec("5e", mode="sideways"))
    with pytest.raises(InputError, match="PoolSpec"):
        odds(CheckSpec("pool"))
