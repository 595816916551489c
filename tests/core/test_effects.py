"""The shared effect vocabulary (core.effects): predicates, effects, outcomes per degree, the interpreter."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kingdomlog.core.effects import (
    Effect,
    Outcomes,
    Predicate,
    combine,
    holds,
    modifier_applies,
    run_effects,
)
from kingdomlog.core.errors import InputError

FACTS: dict[str, Any] = {"skill": "magic", "unrest": 6, "level": 3, "at_war": False, "traits": ["dangerous"],
                         "fame": 0}


@pytest.mark.parametrize(("text", "want"), [
    ("skill == magic", True),
    ("skill != magic", False),
    ("unrest >= 6", True),
    ("unrest > 6", False),
    ("unrest < 7 and level <= 3", True),
    ("at_war", False),
    ("not at_war", True),
    ("traits has dangerous", True),
    ("traits == dangerous", True),  # == against a collection: membership
    ("traits has beneficial", False),
    ("skill in [arts, magic]", True),
    ("missing_fact", False),
    ("missing_fact == 3", False),
    ("missing_fact != 3", True),
    ("fame == 0 or unrest >= 20", True),
    ("(fame == 1 or unrest >= 20) and level == 3", False),
    ("true", True),
    ("", True),
    ("all", True),
    ("skill:magic", True),
    ("skill:magic+unrest:6", True),
    ("skill:arts+unrest:6", False),
    ("activity == 'claim-hex'", False),
])
def test_predicates_by_hand(text: str, want: bool) -> None:
    assert holds(text, FACTS) is want


def test_predicate_text_is_normalised_and_reads_back() -> None:
    p = Predicate.parse("ability:economy+activity:quell-unrest")
    assert p.text == "ability == economy and activity == quell-unrest"
    assert Predicate.parse(p.text) == p
    assert Predicate.parse("not (a or b)").text == "not (a or b)"
    assert Predicate.parse("(a or b) and c").text == "(a or b) and c"
    assert Predicate.parse("x in [1, 2]").names() == {"x"}


@pytest.mark.parametrize("bad", ["unrest >=", "(a or b", "a and", "== 3", "a b", "x in [1, 2"])
def test_unreadable_predicates_are_input_errors(bad: str) -> None:
    with pytest.raises(InputError, match="condition"):
        Predicate.parse(bad)
    with pytest.raises(ValueError):
        Effect(kind="x", when=bad)


names = st.sampled_from(["a", "b", "c", "skill"])
atoms = st.one_of(names, st.builds(lambda n, v: f"{n} == {v}", names, st.sampled_from(["x", "y", "1"])),
                  st.builds(lambda n, v: f"{n} >= {v}", names, st.integers(-3, 3)))
exprs = st.recursive(atoms, lambda inner: st.one_of(
    st.builds(lambda a, b: f"({a}) and ({b})", inner, inner),
    st.builds(lambda a, b: f"({a}) or ({b})", inner, inner),
    st.builds(lambda a: f"not ({a})", inner)), max_leaves=6)
facts = st.fixed_dictionaries({}, optional={"a": st.one_of(st.booleans(), st.integers(-3, 3), st.just("x")),
                                            "b": st.integers(-3, 3), "c": st.just("y"),
                                            "skill": st.sampled_from(["x", "y"])})


@settings(max_examples=150, deadline=None)
@given(exprs, facts)
def test_normalising_a_predicate_keeps_its_meaning(text: str, f: dict[str, Any]) -> None:
    p = Predicate.parse(text)
    assert Predicate.parse(p.text).text == p.text
    assert p.holds(f) == holds(text, f)


def test_outcomes_fall_back_from_critical_degrees() -> None:
    o = Outcomes(success=[Effect(kind="gain", amount=1)], failure=[Effect(kind="lose", amount=1)],
                 critical_success=[Effect(kind="gain", amount=2)])
    assert [e.amount for e in o.for_degree("critical_success")] == [2]
    assert [e.kind for e in o.for_degree("critical_failure")] == ["lose"]  # no entry: the failure's
    assert Outcomes().for_degree("success") == []
    assert o.kinds() == {"gain", "lose"}
    with pytest.raises(InputError, match="unknown degree"):
        o.for_degree("triumph")


def test_run_effects_in_order_with_conditions_branches_and_keys() -> None:
    log: list[tuple[str, str, Any]] = []
    state = {"gold": 0}

    def gain(eff: Effect, key: str) -> None:
        state["gold"] += int(eff.amount)
        log.append(("gain", key, eff.amount))

    effects = [
        Effect(kind="gain", amount=3),
        Effect(kind="gain", amount=10, when="gold >= 5"),  # sees the 3 gained before it: skipped
        Effect(kind="choose", options=[[Effect(kind="gain", amount=1)], [Effect(kind="gain", amount=2),
                                                                         Effect(kind="gain", amount=4)]]),
        Effect(kind="gain", amount=100, when="gold >= 9"),  # 3 + 2 + 4 = 9: applies
    ]
    run_effects(effects, {"gain": gain}, facts=lambda: dict(state), choose=lambda eff, key: 1, key="a1")
    assert log == [("gain", "a1.e1", 3), ("gain", "a1.e3.o1.e1", 2), ("gain", "a1.e3.o1.e2", 4),
                   ("gain", "a1.e4", 100)]
    with pytest.raises(InputError, match="no rule applies effects of kind 'fly'"):
        run_effects([Effect(kind="fly")], {"gain": gain}, facts=dict, choose=lambda e, k: 0, key="k")
    with pytest.raises(InputError, match=r"option must be 0\.\.0"):
        run_effects([Effect(kind="choose", options=[[]])], {}, facts=dict, choose=lambda e, k: 3, key="k")


def test_a_bonus_applies_where_its_selector_and_condition_say() -> None:
    bonus = Effect(kind="modifier", selector="ability == culture", value=2, when="unrest >= 1")
    assert modifier_applies(bonus, {"ability": "culture"}, {"unrest": 1})
    assert not modifier_applies(bonus, {"ability": "culture"}, {"unrest": 0})
    assert not modifier_applies(bonus, {"ability": "economy"}, {"unrest": 3})
    assert modifier_applies(Effect(kind="modifier", value=1), {}, {})  # no selector: every check


def test_identical_sources_stack_or_count_once() -> None:
    # two Mills of -1 Consumption that stack: -2; that do not: -1; item bonuses of three Shrines capped at +2
    assert combine([1, 1], stacks=True) == 2
    assert combine([1, 1], stacks=False) == 1
    assert combine([1, 1, 1], stacks=True, cap=2) == 2
