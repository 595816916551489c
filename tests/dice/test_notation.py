"""Dice notation: parsing every accepted form, refusing malformed ones, evaluating typed-in faces (design §5)."""

from __future__ import annotations

import pytest

from kingdomlog.core.errors import InputError
from kingdomlog.dice.notation import MAX_EXPLOSIONS, DiceTerm, parse

# ------------------------------------------------------------------ parsing


@pytest.mark.parametrize(
    ("text", "terms", "constant"),
    [
        ("2d6", [DiceTerm(2, 6)], 0),
        ("d20", [DiceTerm(1, 20)], 0),
        ("1d20+7", [DiceTerm(1, 20)], 7),
        ("1d20 - 2", [DiceTerm(1, 20)], -2),
        ("  2D6 + 1  ", [DiceTerm(2, 6)], 1),
        ("d%", [DiceTerm(1, 100)], 0),
        ("4d6kh3", [DiceTerm(4, 6, keep=("h", 3))], 0),
        ("4d6k3", [DiceTerm(4, 6, keep=("h", 3))], 0),
        ("2d20kl1", [DiceTerm(2, 20, keep=("l", 1))], 0),
        ("d6!", [DiceTerm(1, 6, explode=True)], 0),
        ("5d6!", [DiceTerm(5, 6, explode=True)], 0),
        ("3d6r1", [DiceTerm(3, 6, reroll_at_most=1)], 0),
        ("3d6r<3", [DiceTerm(3, 6, reroll_at_most=2)], 0),
        ("4d6!r1kh3", [DiceTerm(4, 6, explode=True, reroll_at_most=1, keep=("h", 3))], 0),
        ("1d20-1d4+2", [DiceTerm(1, 20), DiceTerm(1, 4, sign=-1)], 2),
        ("-1d4", [DiceTerm(1, 4, sign=-1)], 0),
        ("+3+2d8-1", [DiceTerm(2, 8)], 2),
        ("7", [], 7),
        ("1000d10000", [DiceTerm(1000, 10000)], 0),
    ],
)
def test_valid_forms_parse_to_terms(text: str, terms: list[DiceTerm], constant: int) -> None:
    e = parse(text)
    assert list(e.terms) == terms
    assert e.constant == constant
    assert e.text == text.strip()


def test_term_text_round_trips() -> None:
    for text in ["2d6", "4d6!r2kh3", "2d20kl1", "3d6r1"]:
        term = parse(text).terms[0]
        assert term.text() == text
        assert parse(term.text()).terms[0] == term


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "non-empty"),
        ("   ", "non-empty"),
        ("abc", "cannot read 'abc' at position 1"),
        ("2d6x", "cannot read 'x' at position 4"),
        ("1d6+", "ends with an operator"),
        ("+", "ends with an operator"),
        ("1d6-", "ends with an operator"),
        ("1d6++2", "cannot read '+2'"),
        ("0d6", "dice count must be 1..1000, got 0"),
        ("1001d6", "dice count must be 1..1000"),
        ("1d0", "2..10000 sides, got d0"),
        ("1d1", "2..10000 sides, got d1"),
        ("1d10001", "2..10000 sides"),
        ("99999999999999d6", "dice count 999999999999... is too large"),
        ("1d99999999999999", "die size"),
        ("1d6+99999999", "constant 99999999 is larger than 1000000"),
        ("1d6+" + "9" * 5000, "constant 999999999999... is too large"),
        ("4d6kh5", "cannot keep 5 of 4 dice"),
        ("4d6kh0", "cannot keep 0 of 4 dice"),
        ("4d6kh", "r and k need a number"),
        ("4d6kl", "r and k need a number"),
        ("1d6r", "r and k need a number"),
        ("1d6r6", "reroll threshold"),
        ("1d6r0", "reroll threshold"),
        ("1d6r<1", "reroll threshold"),
        ("1d6r<7", "reroll threshold"),
        ("1d6r1!", "order ! then r then k"),
        ("4d6kh3r1", "order ! then r then k"),
        ("1d6!!", "order ! then r then k"),
        ("1d6 2", "space inside a term"),
        ("1 d6", "space inside a term"),
        ("4d6 kh3", "space inside a term"),
        ("d", "cannot read 'd'"),
        ("2d", "cannot read 'd' at position 2 (after '2')"),
        ("1d6*2", "cannot read '*2'"),
        ("1d6/2", "cannot read '/2'"),
        ("(1d6)", "cannot read '(1d6)'"),
        ("\u0663d6", "cannot read"),  # Arabic-Indic digit three: digits are ASCII only
        ("1.5d6", "cannot read"),
    ],
)
def test_malformed_forms_are_refused_naming_the_input(text: str, fragment: str) -> None:
    with pytest.raises(InputError) as err:
        parse(text)
    msg = str(err.value)
    assert fragment in msg
    if text.strip():
        assert repr(text) in msg  # the message quotes exactly what was typed


@pytest.mark.parametrize("value", [None, 6, b"1d6", ["1d6"]])
def test_non_string_notation_is_an_input_error(value: object) -> None:
    with pytest.raises(InputError, match="non-empty string"):
        parse(value)  # type: ignore[arg-type]


def test_input_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        parse("nonsense")


# --------------------------------------------------------------- evaluation


def test_plain_sum_and_constant() -> None:
    ev = parse("2d6+3").evaluate([4, 5])
    assert (ev.faces, ev.dice, ev.kept, ev.total) == ((4, 5), (4, 5), (4, 5), 12)
    assert ev.roles == ("die", "die")


def test_negative_term_subtracts() -> None:
    assert parse("1d20-1d4+2").evaluate([10, 3]).total == 9


def test_constant_only_takes_no_faces() -> None:
    ev = parse("7").evaluate([])
    assert ev.total == 7 and ev.faces == ()


@pytest.mark.parametrize(
    ("text", "faces", "fragment"),
    [
        ("2d6", [4], "needs more faces than the 1 given"),
        ("2d6", [], "needs more faces than the 0 given"),
        ("2d6", [4, 5, 6], "3 faces given but only 2 are used"),
        ("d6!", [6], "needs more faces"),  # a 6 explodes: one more face is owed
        ("d6!", [5, 6], "2 faces given but only 1 are used"),
        ("3d6r1", [1, 1, 2], "needs more faces"),  # the first 1 is rerolled into the second 1
        ("2d6", [0, 3], "face #1 is 0, not a d6 face (1..6)"),
        ("2d6", [3, 7], "face #2 is 7, not a d6 face (1..6)"),
        ("1d20", [-1], "face #1 is -1"),
        ("1d6", [True], "face #1 is True"),
        ("1d6", [3.0], "face #1 is 3.0"),
        ("1d6", ["3"], "face #1 is '3'"),
        ("1d20+1d4", [20, 5], "face #2 is 5, not a d4 face (1..4)"),
    ],
)
def test_typed_faces_must_fit_exactly(text: str, faces: list[object], fragment: str) -> None:
    with pytest.raises(InputError) as err:
        parse(text).evaluate(faces)  # type: ignore[arg-type]
    assert fragment in str(err.value)
    assert text in str(err.value)


def test_exploding_chain_adds_every_max_face() -> None:
    ev = parse("d6!").evaluate([6, 6, 2])
    assert ev.total == 14
    assert ev.dice == (14,)
    assert ev.roles == ("die", "explosion", "explosion")


def test_exploding_pool_keeps_dice_separate() -> None:
    ev = parse("3d6!").evaluate([6, 1, 3, 6, 6, 4])
    assert ev.dice == (7, 3, 16)
    assert ev.total == 26
    assert ev.roles == ("die", "explosion", "die", "die", "explosion", "explosion")


def test_explosions_stop_at_the_cap() -> None:
    """A die explodes at most MAX_EXPLOSIONS times, so a typed chain cannot run forever."""
    faces = [2] * (MAX_EXPLOSIONS + 1)
    ev = parse("1d2!").evaluate(faces)
    assert ev.total == 2 * (MAX_EXPLOSIONS + 1)
    with pytest.raises(InputError, match="only 101 are used"):
        parse("1d2!").evaluate([*faces, 1])


def test_reroll_once_and_the_reroll_stands() -> None:
    ev = parse("2d6r1").evaluate([1, 1, 5])
    assert ev.dice == (1, 5)  # the reroll showed 1 again and stands
    assert ev.roles == ("rerolled", "reroll", "die")
    assert ev.standing() == (1, 5)


def test_reroll_below() -> None:
    ev = parse("3d6r<3").evaluate([2, 4, 3, 1, 6])
    assert ev.dice == (4, 3, 6)
    assert ev.total == 13


def test_reroll_then_keep() -> None:
    ev = parse("4d6r1kh3").evaluate([1, 5, 2, 6, 3])
    assert ev.dice == (5, 2, 6, 3)
    assert ev.kept == (5, 6, 3)  # kept in roll order
    assert ev.total == 14


def test_reroll_can_explode() -> None:
    ev = parse("1d6!r1").evaluate([1, 6, 6, 3])
    assert ev.total == 15
    assert ev.roles == ("rerolled", "reroll", "explosion", "explosion")
    assert ev.standing() == (6, 6, 3)


def test_keep_highest_and_lowest() -> None:
    assert parse("4d6kh3").evaluate([6, 1, 4, 3]).total == 13
    assert parse("4d6kl2").evaluate([6, 1, 4, 3]).kept == (1, 3)
    assert parse("2d20kh1").evaluate([7, 15]).total == 15
    assert parse("2d20kl1").evaluate([7, 15]).total == 7


def test_keep_ties_keep_the_earlier_die() -> None:
    ev = parse("3d6kh2").evaluate([5, 5, 5])
    assert ev.kept == (5, 5) and ev.total == 10


def test_keep_uses_exploded_values() -> None:
    ev = parse("2d6!kh1").evaluate([6, 2, 5])
    assert ev.dice == (8, 5)
    assert ev.kept == (8,)


def test_negative_keep_term() -> None:
    assert parse("10-2d6kh1").evaluate([3, 5]).total == 5


def test_roll_draws_through_the_callback() -> None:
    seen: list[int] = []

    def draw(sides: int) -> int:
        seen.append(sides)
        return sides  # always the maximum: explosions chain until the cap

    ev = parse("1d20+1d4!").roll(draw)
    assert seen[0] == 20 and set(seen[1:]) == {4}
    assert len(seen) == 2 + MAX_EXPLOSIONS
    assert ev.total == 20 + 4 * (MAX_EXPLOSIONS + 1)


def test_min_faces() -> None:
    assert parse("4d6kh3+1d20+2").min_faces == 5
