"""Check kernels (design §5): PF2e degrees and flat checks, 5e advantage, PF1 natural 1/20, 2d6 bands, d6 pools."""

from __future__ import annotations

import bisect
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kingdomlog.core.errors import InputError
from kingdomlog.dice.checks import (
    CheckResult,
    Degree,
    PoolSpec,
    check_5e,
    d20_adv,
    d20_check,
    d20_mode,
    d20_notation,
    degree_of_success,
    flat_check,
    pf2e_check,
    pool_sixes,
    pool_successes,
    two_d6_band,
)
from kingdomlog.dice.roller import KeyedRoller

CF, F, S, CS = Degree.CRITICAL_FAILURE, Degree.FAILURE, Degree.SUCCESS, Degree.CRITICAL_SUCCESS

dies = st.integers(1, 20)
mods = st.integers(-30, 60)
dcs = st.integers(-10, 60)

# ------------------------------------------------------------ PF2e degrees


@pytest.mark.parametrize(
    ("die", "mod", "dc", "expected"),
    [
        # pf2e spec §3.0.1 step 3, no natural: the four bands around DC 20
        (10, 20, 20, CS),  # 30 = DC + 10
        (10, 19, 20, S),  # 29
        (10, 10, 20, S),  # 20 = DC
        (10, 9, 20, F),  # 19
        (10, 1, 20, F),  # 11 = DC - 9
        (10, 0, 20, CF),  # 10 = DC - 10
        # step 4: natural 20 raises one step, natural 1 lowers one step
        (20, 0, 25, S),  # 20 is a failure -> success
        (20, -15, 25, F),  # 5 is a critical failure -> failure
        (20, 10, 20, CS),  # 30 is already critical success: stays
        (20, 0, 20, CS),  # 20 is a success -> critical success
        (1, 30, 15, S),  # 31 is a critical success -> success
        (1, 14, 15, F),  # 15 is a success -> failure
        (1, 0, 15, CF),  # 1 is a critical failure: stays
        (1, 5, 15, CF),  # 6 is a failure -> critical failure
    ],
)
def test_degree_golden_rows(die: int, mod: int, dc: int, expected: Degree) -> None:
    """Hand-computed from pf2e-kingmaker spec §3.0.1 steps 3-4."""
    assert degree_of_success(die, mod, dc) is expected


def _table_degree(die: int, mod: int, dc: int) -> Degree:
    """An independent restatement: margins cut at -10 (inclusive below), 0 and +10, then the natural step."""
    margin = die + mod - dc
    base = bisect.bisect_right([-9, 0, 10], margin)  # <=-10 -> 0, -9..-1 -> 1, 0..9 -> 2, >=10 -> 3
    step = {20: 1, 1: -1}.get(die, 0)
    return Degree(min(3, max(0, base + step)))


@pytest.mark.parametrize("dc", [5, 14, 15, 16, 25, 40])
def test_degree_exhaustive_table(dc: int) -> None:
    for die in range(1, 21):
        for mod in range(-15, 45):
            assert degree_of_success(die, mod, dc) is _table_degree(die, mod, dc), (die, mod, dc)


@settings(max_examples=300, deadline=None)
@given(die=dies, m1=mods, m2=mods, dc=dcs)
def test_degree_monotone_in_modifier(die: int, m1: int, m2: int, dc: int) -> None:
    lo, hi = sorted((m1, m2))
    assert degree_of_success(die, lo, dc) <= degree_of_success(die, hi, dc)


@settings(max_examples=300, deadline=None)
@given(d1=dies, d2=dies, mod=mods, dc1=dcs, dc2=dcs)
def test_degree_monotone_in_die_and_antitone_in_dc(d1: int, d2: int, mod: int, dc1: int, dc2: int) -> None:
    lo, hi = sorted((d1, d2))
    assert degree_of_success(lo, mod, dc1) <= degree_of_success(hi, mod, dc1)
    easy, hard = sorted((dc1, dc2))
    assert degree_of_success(d1, mod, easy) >= degree_of_success(d1, mod, hard)


@settings(max_examples=300, deadline=None)
@given(mod=mods, dc=dcs)
def test_natural_20_never_worse_and_natural_1_never_better(mod: int, dc: int) -> None:
    """Same total with and without the natural: a 20 is exactly one step better (unless capped), a 1 one worse."""
    plain20 = degree_of_success(19, mod + 1, dc)  # total 20 + mod, no natural
    nat20 = degree_of_success(20, mod, dc)
    assert nat20 >= plain20
    assert int(nat20) == min(3, int(plain20) + 1)
    plain1 = degree_of_success(2, mod - 1, dc)
    nat1 = degree_of_success(1, mod, dc)
    assert nat1 <= plain1
    assert int(nat1) == max(0, int(plain1) - 1)


def test_degree_helpers() -> None:
    assert [d.label for d in Degree] == ["critical_failure", "failure", "success", "critical_success"]
    assert Degree.from_label("critical_success") is CS
    assert Degree.from_label("Failure") is F
    with pytest.raises(InputError, match="unknown degree of success 'great'"):
        Degree.from_label("great")
    assert [d.succeeded for d in Degree] == [False, False, True, True]
    assert S.shift(-2) is CF and F.shift(5) is CS and CF.shift(-1) is CF and S.shift(0) is S


def test_check_result_records_every_number() -> None:
    r = pf2e_check(20, 4, 30)
    assert r == CheckResult(die=20, modifier=4, total=24, dc=30, degree=S, natural=20, base_degree=F)
    d = r.as_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["degree"] == "success" and d["base_degree"] == "failure" and d["natural"] == 20
    plain = pf2e_check(11, 4, 15)
    assert plain.natural is None and plain.degree is plain.base_degree is S


@settings(max_examples=200, deadline=None)
@given(die=dies, mod=mods, dc=dcs)
def test_check_result_agrees_with_degree_of_success(die: int, mod: int, dc: int) -> None:
    r = pf2e_check(die, mod, dc)
    assert r.degree is degree_of_success(die, mod, dc)
    assert r.total == die + mod
    assert (r.natural is not None) == (die in (1, 20))


@pytest.mark.parametrize("die", [0, 21, -1, True, 2.5, "10", None])
def test_degree_rejects_bad_die(die: object) -> None:
    with pytest.raises(InputError, match="d20 die"):
        degree_of_success(die, 0, 10)  # type: ignore[arg-type]


@pytest.mark.parametrize(("mod", "dc"), [(1.5, 10), (0, "10"), (False, 10)])
def test_degree_rejects_non_integer_modifier_or_dc(mod: object, dc: object) -> None:
    with pytest.raises(InputError, match="must be an integer"):
        degree_of_success(10, mod, dc)  # type: ignore[arg-type]


def test_flat_check() -> None:
    """pf2e spec §3.0.2: success if the roll >= DC; DC <= 1 always succeeds, DC >= 21 always fails."""
    assert flat_check(16, 16) and not flat_check(15, 16)
    assert flat_check(1, 1) and flat_check(1, 0) and flat_check(1, -5)
    assert not flat_check(20, 21)
    assert [flat_check(d, 11) for d in range(1, 21)].count(True) == 10  # DC 11: half the faces
    with pytest.raises(InputError):
        flat_check(0, 11)


# ------------------------------------------------------------- 5e and PF1


def test_d20_mode_cancels_and_does_not_stack() -> None:
    """aikakirjat spec §2.16: any advantage with any disadvantage gives a single d20; advantages do not stack."""
    assert d20_mode(0, 0) == "normal"
    assert d20_mode(1, 0) == d20_mode(5, 0) == "advantage"
    assert d20_mode(0, 1) == d20_mode(0, 3) == "disadvantage"
    assert d20_mode(1, 1) == d20_mode(4, 1) == d20_mode(1, 4) == "normal"
    with pytest.raises(InputError, match=">= 0"):
        d20_mode(-1, 0)


def test_d20_adv_keeps_the_right_die() -> None:
    assert d20_adv((3, 17), "advantage") == 17
    assert d20_adv((3, 17), "disadvantage") == 3
    assert d20_adv((17, 3), "normal") == 17
    assert d20_adv((9,), "normal") == 9
    with pytest.raises(InputError, match="needs exactly 2 faces, got 1"):
        d20_adv((9,), "advantage")
    with pytest.raises(InputError, match="needs exactly 2 faces, got 3"):
        d20_adv((9, 2, 4), "disadvantage")
    with pytest.raises(InputError, match="normal d20 roll needs 1 face"):
        d20_adv((), "normal")
    with pytest.raises(InputError, match="d20 mode must be one of"):
        d20_adv((1, 2), "double")
    with pytest.raises(InputError, match="d20 die"):
        d20_adv((0, 2), "advantage")


@settings(max_examples=100, deadline=None)
@given(mode=st.sampled_from(["normal", "advantage", "disadvantage"]), key=st.text(min_size=1, max_size=8))
def test_d20_notation_with_the_roller_matches_d20_adv(mode: str, key: str) -> None:
    roll = KeyedRoller("s", campaign="c", turn=1).for_step("x").roll(key, d20_notation(mode))
    assert len(roll.faces) == (1 if mode == "normal" else 2)
    assert d20_adv(roll.faces, mode) == roll.total


def test_check_5e_meets_or_beats_without_naturals() -> None:
    """aikakirjat spec §2.16 (A79: total >= DC succeeds; A80: no automatic natural results)."""
    assert check_5e(10, 3, 13) and not check_5e(10, 3, 14)
    assert not check_5e(20, 0, 21)
    assert check_5e(1, 20, 21)


def test_d20_check_pf1_naturals() -> None:
    """pf1-kingmaker spec §2.5 and N4 golden: d20 20, Economy 4, Unrest 3 -> 21 vs DC 22 succeeds."""
    assert d20_check(20, 4 - 3, 22)
    assert not d20_check(1, 40, 22)  # a natural 1 fails whatever the total
    assert d20_check(12, 10, 22) and not d20_check(12, 9, 22)
    assert not d20_check(20, 1, 22, nat20_succeeds=False)
    assert d20_check(1, 40, 22, nat1_fails=False)


@settings(max_examples=300, deadline=None)
@given(die=dies, mod=mods, dc=dcs)
def test_d20_check_without_naturals_is_check_5e(die: int, mod: int, dc: int) -> None:
    assert d20_check(die, mod, dc, nat1_fails=False, nat20_succeeds=False) == check_5e(die, mod, dc)
    with_naturals = d20_check(die, mod, dc)
    if die == 20:
        assert with_naturals
    elif die == 1:
        assert not with_naturals
    else:
        assert with_naturals == (die + mod >= dc)


# ------------------------------------------------------------------ bands


COMMAND_LOW = [(None, 4, "failure"), (5, None, "success")]  # signoria spec §3.1, low stake 5+
TAX = [(None, 4, "nothing"), (5, 14, "year advantage"), (15, 24, "one stored"), (25, None, "two stored")]


def test_two_d6_band_threshold_tables() -> None:
    assert [two_d6_band(t, COMMAND_LOW) for t in range(2, 13)] == ["failure"] * 3 + ["success"] * 8
    assert two_d6_band(14, TAX) == "year advantage"
    assert two_d6_band(15, TAX) == "one stored"
    assert two_d6_band(99, TAX) == "two stored"
    assert two_d6_band(-3, TAX) == "nothing"


def test_two_d6_band_every_2d6_total_of_a_closed_table() -> None:
    """aikakirjat spec §3.5 style: a closed 2..12 table covers every 2d6 total exactly once."""
    table = [(2, 2, "a"), (3, 4, "b"), (5, 9, "c"), (10, 11, "d"), (12, 12, "e")]
    got = [two_d6_band(a + b, table) for a in range(1, 7) for b in range(1, 7)]
    assert [got.count(label) for label in "abcde"] == [1, 5, 24, 5, 1]


def test_two_d6_band_errors() -> None:
    table = [(2, 6, "low"), (7, 12, "high")]
    with pytest.raises(InputError, match=r"total 13 is not covered by any band \(the table covers 2-6, 7-12\)"):
        two_d6_band(13, table)
    with pytest.raises(InputError, match="total 1 is not covered"):
        two_d6_band(1, table)
    with pytest.raises(InputError, match="'low' and 'mid' overlap"):
        two_d6_band(3, [(2, 6, "low"), (6, 8, "mid")])
    with pytest.raises(InputError, match="is empty: low 9 > high 8"):
        two_d6_band(3, [(9, 8, "bad")])
    with pytest.raises(InputError, match="at least one"):
        two_d6_band(3, [])
    with pytest.raises(InputError, match=r"band #1 must be a \(low, high, label\) tuple"):
        two_d6_band(3, [(2, 6)])  # type: ignore[arg-type]
    with pytest.raises(InputError, match="total must be an integer"):
        two_d6_band(3.0, table)  # type: ignore[arg-type]


# ------------------------------------------------------------------ pools


def test_pool_counts() -> None:
    faces = [4, 6, 2, 5, 1, 3]  # signoria spec §5 example, Marburg round 1 at 4+
    assert pool_successes(faces) == 3
    assert pool_sixes(faces) == 1
    assert pool_successes(faces, threshold=5) == 2
    assert pool_successes([]) == 0
    with pytest.raises(InputError, match=r"pool die #2 must be a d6 face \(1..6\), got 7"):
        pool_successes([3, 7])


def test_pool_spec_notation() -> None:
    assert PoolSpec(5).notation == "5d6"
    assert PoolSpec(5, explode=True).notation == "5d6!"
    assert PoolSpec(5, reroll_ones=True).notation == "5d6r1"
    assert PoolSpec(0).notation == ""
    with pytest.raises(InputError, match="pool size must be >= 0"):
        PoolSpec(-1)
    with pytest.raises(InputError, match=r"pool threshold must be 1\.\.7"):
        PoolSpec(3, threshold=0)


def test_pool_spec_breakthrough_golden() -> None:
    """signoria spec §5 worked battle, round 1: Fabian's 8 dice at 5+ with Breakthrough.

    Main dice 6 5 2 3 6 1 4 5; the two sixes explode into 6 and 3, and that 6 into 2. In the
    roller's order (each die, then its explosions) the faces are 6 6 2 | 5 | 2 | 3 | 6 3 | 1 | 4 | 5.
    The spec counts 5 successes, 3 of them sixes, and 3 explosions.
    """
    r = PoolSpec(8, threshold=5, explode=True).score([6, 6, 2, 5, 2, 3, 6, 3, 1, 4, 5])
    assert (r.successes, r.sixes, r.explosions, r.rerolls) == (5, 3, 3, 0)
    assert len(r.standing) == 11


def test_pool_spec_encirclement_rerolls_ones() -> None:
    """signoria spec §5.4 Encirclement: each 1 is rerolled once and the new face stands."""
    r = PoolSpec(4, reroll_ones=True).score([1, 1, 5, 1, 6, 3])
    # die 1: 1 -> 1 (stands); die 2: 5; die 3: 1 -> 6; die 4: 3
    assert r.standing == (1, 5, 6, 3)
    assert (r.successes, r.sixes, r.rerolls, r.explosions) == (2, 1, 2, 0)


def test_pool_spec_sixes_are_successes_showing_six() -> None:
    """A six counts as a kill only when it succeeds; at threshold 7 (nothing succeeds) there are none."""
    r = PoolSpec(3, threshold=7).score([6, 6, 5])
    assert (r.successes, r.sixes) == (0, 0)
    assert PoolSpec(3, threshold=6).score([6, 6, 5]).sixes == 2


def test_pool_spec_rejects_faces_that_do_not_fit() -> None:
    with pytest.raises(InputError, match="needs more faces"):
        PoolSpec(3, explode=True).score([6, 2, 3])  # the 6 owes an explosion die
    with pytest.raises(InputError, match="only 2 are used"):
        PoolSpec(2).score([3, 4, 5])
    with pytest.raises(InputError, match="empty pool takes no faces"):
        PoolSpec(0).score([1])
    assert PoolSpec(0).score([]).successes == 0


@settings(max_examples=150, deadline=None)
@given(
    count=st.integers(1, 12),
    threshold=st.integers(2, 6),
    explode=st.booleans(),
    reroll=st.booleans(),
    key=st.text(min_size=1, max_size=8),
)
def test_pool_spec_with_the_roller(count: int, threshold: int, explode: bool, reroll: bool, key: str) -> None:
    spec = PoolSpec(count, threshold=threshold, explode=explode, reroll_ones=reroll)
    roll = KeyedRoller("pool", campaign="c", turn=1).for_step("battle").roll(key, spec.notation)
    r = spec.score(roll.faces)
    assert len(r.standing) == len(roll.faces) - r.rerolls == count + r.explosions
    assert r.successes == sum(1 for f in r.standing if f >= threshold)
    assert r.sixes == r.standing.count(6)
    if explode:
        assert r.explosions == r.standing.count(6)  # every standing six owes exactly one more die
    else:
        assert r.explosions == 0
    if not reroll:
        assert r.rerolls == 0 and pool_successes(roll.faces, threshold) == r.successes
