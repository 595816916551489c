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


@pytest.mark.parametrize("demo", [*DEMOS, "river-kingdom"])
def test_the_demo_steps_ask_nothing_as_json(demo: str) -> None:
    """Every choice of every step, the GM's free rulings too (an effect's amount, an either/or, an army's
    Consumption, the founding PCs, a check's situational modifiers, an intel's facts), is a widget: no field is
    left to JSON."""
    camp = Campaign.open(REPO / "campaigns" / demo)
    state = camp.turn_start().state
    left = [f"{step.id}/{p}" for step in camp.ruleset.all_steps
            for p in _walk(describe(step.choices, state=state, vocabulary=camp.ruleset.vocabulary))]
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
                if (s.kind in ("mapping", "multiselect", "list", "scalar") or s.item_kind in ("keyed", "tuple")
                        or (s.kind == "rows" and any(f.kind == "scalar" for f in s.fields))) and s.name in given:
                    seen += 1
                    assert got.get(s.name) == given[s.name], (f.name, sid, s.name)
    assert seen


# ---- the GM's free rulings as widgets: keyed entries, pairs, a number or words, an either/or one level deep ----


def _step_specs(demo: str, step: str, given: dict[str, Any]) -> list[FieldSpec]:
    camp = Campaign.open(REPO / "campaigns" / demo)
    model = next(s for s in camp.ruleset.all_steps if s.id == step).choices
    return list(describe(model, state=camp.turn_start().state, vocabulary=camp.ruleset.vocabulary, values=given))


def _through_widgets(specs_: list[FieldSpec], given: dict[str, Any], change: dict[str, Any] | None = None
                     ) -> tuple[dict[str, Any], sf.Read]:
    widgets = flat(sf.choice_widgets(specs_, given))
    assert not [k for k, w in sf.flatten(sf.choice_widgets(specs_, given)).items()
                if "JSON" in str(getattr(w, "_label", "") or "")], "a field labelled JSON"
    out = sf.Read()
    return sf.read_fields(specs_, sf.unflatten({**widgets, **(change or {})}), given, (), out), out


GIVEN = [
    ("stolen-lands", "upkeep.leadership", {"armies": {"Black Hand": 2, "Reed Riders": None}}),
    ("stolen-lands", "event.resolve", {"event": "bandit-activity", "gm_effects": [
        {"kind": "ruin", "target": "crime", "amount": 2},
        {"kind": "resource", "target": "rp", "amount": "1d4", "options": [
            [{"kind": "unrest", "amount": -1, "options": [[{"kind": "unrest", "amount": 1}]]}],
            [{"kind": "fame", "amount": 1}]]}]}),
    ("aikakirjat-demo", "founding", {"pcs": {"aino": {"name": "Aino", "level": 5},
                                             "ilmari": {"name": "Ilmari", "level": 6}}}),
    ("aikakirjat-demo", "actions", {"actions": [{"action": "reduce_unrest", "situational": [["rain", -1],
                                                                                            ["a feast", 2]]}]}),
    ("felmonte", "turn_open", {"rulings": [{"effects": [{"kind": "intel", "fields": {
        "wealth": 12, "roster": ["Ottavio", "Bianca"], "mood": "restless"}}]}]}),
]


@pytest.mark.parametrize(("demo", "step", "given"), GIVEN, ids=[g[1] for g in GIVEN])
def test_a_gms_free_ruling_round_trips_through_its_widgets(demo: str, step: str, given: dict[str, Any]) -> None:
    specs_ = _step_specs(demo, step, given)
    got, out = _through_widgets(specs_, given)
    assert out.errors == [] and not out.restructure
    for name, value in given.items():
        assert got[name] == value


def test_an_armys_consumption_is_typed_beside_its_name() -> None:
    given = {"armies": {"Black Hand": 2}}
    specs_ = _step_specs("stolen-lands", "upkeep.leadership", given)
    armies = next(s for s in specs_ if s.name == "armies")
    assert armies.kind == "rows" and [f.label for f in armies.fields] == ["Army", "Consumption"]
    widgets = flat(sf.choice_widgets(specs_, given))
    key = next(k for k in widgets if k.startswith("armies") and k.endswith("value"))
    got, out = _through_widgets(specs_, given, {key: "3"})
    assert got["armies"] == {"Black Hand": 3} and out.errors == []
    add = next(k for k in widgets if k.startswith("armies") and k.endswith(sf.ADD))
    got, out = _through_widgets(specs_, given, {add: 1})
    assert out.restructure and got["armies"] == {"Black Hand": 2, "": None}  # a new line, its name to fill


def test_an_amount_is_a_number_or_dice_in_one_box() -> None:
    given = {"event": "bandit-activity", "gm_effects": [{"kind": "ruin", "target": "crime", "amount": 2}]}
    specs_ = _step_specs("stolen-lands", "event.resolve", given)
    effects = next(s for s in specs_ if s.name == "gm_effects")
    amount = next(f for f in effects.fields if f.name == "amount")
    assert amount.kind == "scalar"
    options = next(f for f in effects.fields if f.name == "options")
    assert options.kind == "rounds" and next(f for f in options.fields if f.name == "options").kind == "kept"
    key = next(k for k in flat(sf.choice_widgets(specs_, given)) if k.endswith("amount"))
    got, _ = _through_widgets(specs_, given, {key: "1d6"})
    assert got["gm_effects"][0]["amount"] == "1d6"
    got, _ = _through_widgets(specs_, given, {key: " -3 "})
    assert got["gm_effects"][0]["amount"] == -3


def test_who_may_read_a_signoria_ruling_is_picked_by_name() -> None:
    """A ruling's visibility is a dropdown in words filled from the state (the GM only, everyone, a faction by its
    name), not a box for ``faction:<id>``."""
    specs_ = _step_specs("felmonte", "p1_internal", {"rulings": [{"text": "x", "visibility": "faction:fabian"}]})
    rulings = next(s for s in specs_ if s.name == "rulings")
    vis = next(f for f in rulings.fields if f.name == "visibility")
    assert vis.kind == "select" and vis.label == "Who may read it"
    assert {o.value: o.label for o in vis.options or ()} == {
        "gm": "the GM only", "public": "everyone", "faction:fabian": "Duke Fabian only",
        "faction:marburg": "Doge of Marburg only",
        "faction:fabian,faction:marburg": "the player factions, not the public"}
    got, out = _through_widgets(specs_, {"rulings": [{"text": "x", "visibility": "faction:fabian"}]})
    assert got["rulings"][0]["visibility"] == "faction:fabian" and out.errors == []


# ---- aikakirjat's GM adjustment: its value asked as the figure needs, filled from the state ----------------------


def _adjustment(given: dict[str, Any]) -> tuple[list[FieldSpec], dict[str, FieldSpec]]:
    specs_ = _step_specs("aikakirjat-demo", "start", {"gm_events": [given]})
    events = next(s for s in specs_ if s.name == "gm_events")
    return specs_, {f.name: f for f in events.entries[0]}


def _fold(value: dict[str, Any]) -> Any:
    from kingdomlog.rulesets.aikakirjat.events import GmAdjustment
    from kingdomlog.rulesets.aikakirjat.outcomes import gm_adjustment

    camp = Campaign.open(REPO / "campaigns" / "aikakirjat-demo")
    payload = {k: v for k, v in value.items() if k != "event"}
    return gm_adjustment(camp.turn_start().state, GmAdjustment.model_validate(payload))


def test_a_gm_adjustments_value_is_asked_as_its_figure_needs() -> None:
    """The value of §8.3's escape hatch is no box for JSON: a number to set (its value now said), the omen picked in
    words, a switch, a neighbour's status, the territory's areas filled with the kingdom's, a record's fields (a PC's
    filled with its record); whose figure it is picked by name; what changes said in words."""
    specs_, f = _adjustment({"event": "gm_adjustment", "field": "fame"})
    kinds = {v.tag: v.label for v in next(s for s in specs_ if s.name == "gm_events").variants}
    assert kinds["gm_adjustment"] == "GM adjustment" and kinds["pc_level_reached"] == "PC level reached"
    assert (f["value"].kind, f["value"].label) == ("int", "Set to") and "now " in f["value"].help
    assert f["target"].unused and not f["delta"].unused
    assert {o.value: o.label for o in f["field"].options or ()}["technology_level"] == "Technology level"
    assert {o.value: o.label for o in f["field"].options or ()}["pc"] == "A player character"
    _, f = _adjustment({"event": "gm_adjustment", "field": "omen_modifier"})
    assert f["value"].kind == "select" and [o.label for o in f["value"].options or ()] == [
        "an ill omen (−1)", "no omen", "a good omen (+1)"]
    _, f = _adjustment({"event": "gm_adjustment", "field": "fire_capable"})
    assert (f["value"].kind, f["value"].label, f["value"].default) == ("bool", "Fire-capable", False)
    _, f = _adjustment({"event": "gm_adjustment", "field": "neighbour_status", "target": "kalevala"})
    assert f["value"].kind == "select" and f["value"].default == "independent"
    assert f["target"].kind == "select" and [o.label for o in f["target"].options or ()] == ["Kalevala", "Tuonela"]
    _, f = _adjustment({"event": "gm_adjustment", "field": "territory"})
    assert f["value"].kind == "rows" and f["value"].label == "Territory, all of it"
    assert [a["area_id"] for a in f["value"].default] == ["home", "marsh"]  # the kingdom's areas as they are
    assert [x.label for x in f["value"].fields] == ["Area", "Unit", "Amount", "Quality"]
    _, f = _adjustment({"event": "gm_adjustment", "field": "pc", "target": "aino"})
    assert f["value"].kind == "group" and f["value"].default == {"name": "Aino", "level": 5, "resident": True}
    assert {o.value: o.label for o in f["target"].options or ()} == {"aino": "Aino", "ilmari": "Ilmari"}
    _, f = _adjustment({"event": "gm_adjustment", "field": "province"})
    province = {x.name: x for x in f["value"].fields}
    assert f["value"].kind == "group" and province["owner"].kind == "select"
    assert province["adjacent"].kind == "multiselect"
    assert "players" in {o.value for o in province["owner"].options or ()}
    for kind in ("neighbour", "special_unit"):
        _, f = _adjustment({"event": "gm_adjustment", "field": kind})
        assert f["value"].kind == "group"
    _, f = _adjustment({"event": "gm_adjustment", "field": "crime", "delta": 2})
    assert f["value"].unused and f["target"].unused


LOGGED = [  # GM adjustments as the tests' and players' plans logged them
    {"event": "gm_adjustment", "field": "fame", "delta": 3, "reason": "a festival"},
    {"event": "gm_adjustment", "field": "population", "value": 9, "reason": "t"},
    {"event": "gm_adjustment", "field": "crime", "delta": -2, "reason": "t"},
    {"event": "gm_adjustment", "field": "omen_modifier", "value": -1, "reason": "t"},
    {"event": "gm_adjustment", "field": "fire_capable", "value": True, "reason": "t"},
    {"event": "gm_adjustment", "field": "neighbour_status", "target": "kalevala", "value": "annexed", "reason": "t"},
    {"event": "gm_adjustment", "field": "neighbour_diplomacy", "target": "kalevala", "delta": 2, "reason": "t"},
    {"event": "gm_adjustment", "field": "territory", "reason": "t",
     "value": [{"area_id": "big", "unit": "province", "amount": 2}]},
    {"event": "gm_adjustment", "field": "pc", "target": "aino", "value": {"name": "Aino"}, "reason": "t"},
    {"event": "gm_adjustment", "field": "neighbour", "reason": "t", "value": {"id": "pohjola", "name": "Pohjola"}},
    {"event": "gm_adjustment", "field": "special_unit", "reason": "t",
     "value": {"id": "sampo", "name": "Sampo guard", "damage_die": 10}},
    {"event": "gm_adjustment", "field": "province", "reason": "t",
     "value": {"id": "p-home", "owner": "players", "controller": "players", "adjacent": ["t-border"]}},
]


@pytest.mark.parametrize("given", LOGGED, ids=[g["field"] for g in LOGGED])
def test_a_logged_gm_adjustment_reads_back_from_its_widgets_to_the_same_kingdom(given: dict[str, Any]) -> None:
    specs_, f = _adjustment(given)
    assert f["value"].kind not in ("scalar", "json") or f["value"].unused  # a track's: only its change is asked
    got, out = _through_widgets(specs_, {"gm_events": [given]})
    assert out.errors == [] and not out.restructure
    back = got["gm_events"][0]
    assert {k: v for k, v in back.items() if k != "value"} == {k: v for k, v in given.items() if k != "value"}
    assert _fold(back) == _fold(given)  # the same kingdom: a record's defaults may be spelled out


def test_a_gm_adjustment_set_on_its_widgets_is_the_value_the_rules_take() -> None:
    given = {"event": "gm_adjustment", "field": "territory", "reason": "the marsh drained"}
    specs_, _ = _adjustment(given)
    keys = flat(sf.choice_widgets(specs_, {"gm_events": [given]}))
    quality = next(k for k in keys if k.endswith("value/rows/#1/quality"))
    got, out = _through_widgets(specs_, {"gm_events": [given]}, {quality: 1.0})
    assert out.errors == []
    assert [a.quality for a in _fold(got["gm_events"][0]).territory] == [1.0, 1.0]
    given = {"event": "gm_adjustment", "field": "pc", "target": "ilmari", "reason": "he trained"}
    specs_, _ = _adjustment(given)
    level = next(k for k in flat(sf.choice_widgets(specs_, {"gm_events": [given]})) if k.endswith("value/level"))
    got, _ = _through_widgets(specs_, {"gm_events": [given]}, {level: 9})
    assert _fold(got["gm_events"][0]).pcs["ilmari"].level == 9 and got["gm_events"][0]["value"]["name"] == "Ilmari"


def test_a_gm_adjustment_value_in_another_shape_keeps_its_box() -> None:
    """A value the figure's widget cannot hold (a list of area ids typed for the territory) is shown in its box as
    given and read back unchanged: nothing typed is lost."""
    given = {"event": "gm_adjustment", "field": "territory", "value": ["a", "b"], "reason": "t"}
    specs_, f = _adjustment(given)
    assert f["value"].kind == "scalar"
    got, out = _through_widgets(specs_, {"gm_events": [given]})
    assert got["gm_events"][0] == given and out.errors == []


def test_an_optional_number_asks_for_a_number_in_words() -> None:
    """An optional number's empty box says what it takes, "a number, or none" (it read "(none)")."""
    import html

    box = sf.widget(FieldSpec("unrest_after", "Unrest after", "int"), None)
    said = html.unescape(box.text)
    assert "a number, or none" in said and "(none)" not in said, said
