"""Every choice of the bundled rulesets is a widget, not JSON (issue 29): the codec's ``mapping`` kind (a value per
role, Ruin, dilemma, question), unions of plain values with a list or a mapping, and lists picked in order; each
round-trips what the demo campaigns' plans hold.

Widget values are given as the flat ``{path: value}`` a ``mo.ui.dictionary`` of the flattened widgets holds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

import marimo as mo
import pytest
from pydantic import Field

from kingdomlog.app import Campaign
from kingdomlog.core.choices import KEY, Choices, FieldSpec, InOrder, Option, Pick, describe, validate_choices
from kingdomlog.core.errors import InputError
from kingdomlog.views import forms as sf

REPO = Path(__file__).resolve().parents[2]
DEMOS = ["stolen-lands", "aikakirjat-demo", "felmonte"]

Role = Literal["ruler", "counselor", "warden"]
Ruin = Literal["crime", "decay"]


Answer = Annotated[str, Pick("answers", what="an answer the question offers")]


class Upkeep(Choices):
    downtime: dict[Role, Literal["forfeit_activity", "vacancy_penalty"]] = Field(default_factory=dict)
    invested: dict[Role, bool] = Field(default_factory=dict)
    ruin_split: Ruin | dict[Ruin, Annotated[int, Field(ge=0, le=99)]] = Field(default_factory=dict)
    commodity: Literal["food", "ore"] | Literal[""] | None = None
    characters: list[Annotated[str, Pick("characters")]] | Literal["all"] | None = None
    pay: Annotated[list[Literal["power", "wealth"]], InOrder(4)] = Field(default_factory=list)
    answers: dict[Annotated[str, Pick("questions")], Answer] = Field(default_factory=dict)


def vocab(state: Any, source: str, within: Any) -> list[Option]:
    if source == "characters":
        return [Option("bianca", "Bianca"), Option("orsino", "Orsino")]
    if source == "questions":
        return [Option("q1", "Who is elected doge?")]
    return [Option("yes", "Vote for"), Option("no", "Vote against")] if within.get(KEY) == "q1" else []


def specs(values: dict[str, Any] | None = None) -> dict[str, FieldSpec]:
    return {s.name: s for s in describe(Upkeep, state=None, vocabulary=vocab, values=values)}


def flat(tree: Any) -> dict[str, Any]:
    return dict(mo.ui.dictionary(sf.flatten(tree)).value)


def roundtrip(given: dict[str, Any], change: dict[str, Any] | None = None) -> tuple[dict[str, Any], sf.Read]:
    sp = list(specs(given).values())
    values = {**flat(sf.choice_widgets(sp, given)), **(change or {})}
    out = sf.Read()
    return sf.read_fields(sp, sf.unflatten(values), given, (), out), out


def test_no_field_of_the_example_falls_back_to_json() -> None:
    kinds = {n: s.kind for n, s in specs().items()}
    assert kinds == {"downtime": "mapping", "invested": "mapping", "ruin_split": "mapping", "commodity": "select",
                     "characters": "multiselect", "pay": "list", "answers": "mapping"}
    s = specs()
    assert [(f.name, f.kind) for f in s["downtime"].fields] == [("ruler", "select"), ("counselor", "select"),
                                                                 ("warden", "select")]
    assert [f.label for f in s["downtime"].fields] == ["Ruler", "Counselor", "Warden"]  # the key in words
    assert [o.value for o in s["commodity"].options or ()] == ["food", "ore"]
    assert [o.value for o in s["characters"].alone] == ["all"] and s["characters"].alone[0].text == "all of them"
    assert [o.value for o in s["ruin_split"].alone] == ["crime", "decay"]
    assert s["answers"].fields[0].label == "Who is elected doge?"
    assert [o.text for o in s["answers"].fields[0].options or ()] == ["Vote for", "Vote against"]  # by the key
    assert s["pay"].item_kind == "select" and s["pay"].maximum == 4


@pytest.mark.parametrize("given", [
    {"downtime": {"counselor": "vacancy_penalty"}, "invested": {"ruler": False, "warden": True}},
    {"ruin_split": {"crime": 3, "decay": 0}}, {"ruin_split": "decay"}, {"ruin_split": {}},
    {"commodity": "ore"}, {"characters": "all"}, {"characters": ["orsino", "bianca"]},
    {"pay": ["wealth", "wealth", "power"]}, {"answers": {"q1": "no"}}, {},
])
def test_widgets_give_back_the_value_they_were_built_with(given: dict[str, Any]) -> None:
    got, out = roundtrip(given)
    assert got == given and not out.errors
    validate_choices(Upkeep, got, state=None, vocabulary=vocab, step="s")


def test_a_value_set_on_a_widget_reads_as_the_plan_takes_it() -> None:
    got, _ = roundtrip({}, {"downtime/warden": "forfeit_activity", "ruin_split/crime": 2, "ruin_split/decay": 1,
                            "characters": ["all", "bianca"], "pay/rows/#0": "power", "answers/q1": "yes"})
    assert got == {"downtime": {"warden": "forfeit_activity"}, "ruin_split": {"crime": 2, "decay": 1},
                   "characters": "all", "pay": ["power"], "answers": {"q1": "yes"}}
    got, out = roundtrip({"ruin_split": {"crime": 2}}, {"ruin_split/_alone": "decay"})
    assert got == {"ruin_split": "decay"}
    got, out = roundtrip({"pay": ["power"]}, {"pay/rows/#1": "wealth"})
    assert got == {"pay": ["power", "wealth"]} and out.restructure  # one more dropdown for the next reroll


def test_an_answer_the_question_does_not_offer_is_refused_naming_it() -> None:
    with pytest.raises(InputError, match=r"choice answers\.q1: 'maybe' is not an answer the question offers"):
        validate_choices(Upkeep, {"answers": {"q1": "maybe"}}, state=None, vocabulary=vocab, step="s")


def _walk(specs_: Any, path: tuple[str, ...] = ()) -> list[str]:
    out = []
    for s in specs_:
        here = (*path, s.name)
        if s.kind == "json":
            out.append("/".join(here))
        out += _walk(s.fields, here)
        for v in s.variants:
            out += _walk(v.fields, (*here, v.tag))
    return out


LEFT_AS_JSON = {
    # a GM's free-form ruling (core.choices.FreeJson: the escape hatch the rules leave to the GM)
    "value", "fields",
    # not asked on a month of play: founding values, pf2e GM-ruled effect amounts ("1d4" or 2) and nested options
    "pcs", "amount", "options", "situational", "rounds", "armies",
}


@pytest.mark.parametrize("demo", DEMOS)
def test_the_demo_steps_ask_nothing_as_json_but_the_gms_free_rulings(demo: str) -> None:
    camp = Campaign.open(REPO / "campaigns" / demo)
    state = camp.turn_start().state
    left = [f"{step.id}/{p}" for step in camp.ruleset.all_steps
            for p in _walk(describe(step.choices, state=state, vocabulary=camp.ruleset.vocabulary))
            if p.rsplit("/", 1)[-1] not in LEFT_AS_JSON]
    assert left == []


@pytest.mark.parametrize("demo", DEMOS)
def test_the_demo_plans_round_trip_through_the_new_widgets(demo: str) -> None:
    camp = Campaign.open(REPO / "campaigns" / demo)
    state = camp.turn_start().state
    steps = {s.id: s for s in camp.ruleset.all_steps}
    seen = 0
    for f in sorted((REPO / "campaigns" / demo / "plans").glob("*.json")):
        for sid, sp in (json.loads(f.read_text()).get("steps") or {}).items():
            given = sp.get("choices") or {}
            if sid not in steps:
                continue
            specs_ = describe(steps[sid].choices, state=state, vocabulary=camp.ruleset.vocabulary, values=given)
            out = sf.Read()
            got = sf.read_fields(specs_, sf.unflatten(flat(sf.choice_widgets(specs_, given))), given, (), out)
            for s in specs_:
                if s.kind in ("mapping", "multiselect", "list") and s.name in given:
                    seen += 1
                    assert got.get(s.name) == given[s.name], (f.name, sid, s.name)
    assert seen
