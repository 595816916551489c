"""The GM turn sheet's logic under plain pytest (design §6): the notebook run with ``app.run(defs=...)``.

UI elements are replaced by stand-ins holding the values a GM would set; the Commit
and Undo click counters are 0 under ``app.run()``, so no cell writes unless a test
says a button was clicked (and a click already consumed is never replayed).
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import marimo as mo
import pytest
from nb_support import load_notebook

from kingdomlog.app import Campaign
from kingdomlog.core.choices import FieldSpec, Option
from kingdomlog.core.turn import Plan, StepPlan
from kingdomlog.views import sheet

NB = load_notebook("turn_sheet")


class FakeForms:
    """Stands in for the per-phase ``mo.ui.dictionary``: ``.value`` and item access for display."""

    def __init__(self, value: dict[str, dict[str, Any]]) -> None:
        self.value = value

    def __getitem__(self, step: str) -> Any:
        return {name: mo.md(str(v)) for name, v in self.value.get(step, {}).items()} | _Missing()


class _Missing(dict):
    def __missing__(self, key: str) -> Any:
        return mo.md("")

    def __or__(self, other: Any) -> Any:
        return NotImplemented

    def __ror__(self, other: dict[str, Any]) -> Any:
        out = _Missing()
        out.update(other)
        return out


def run(folder: Path, **overrides: Any) -> Any:
    _, defs = NB.app.run(defs={"folder": folder, **overrides})
    return defs


def log_files(folder: Path) -> list[str]:
    return sorted(p.name for p in (folder / "log").glob("*.parquet"))


def clicked(commit: int = 0, undo: int = 0, consumed: int = 0) -> dict[str, Any]:
    """The button cell's definitions after ``commit``/``undo`` clicks, ``consumed`` of them already handled."""
    done_c, set_done_c = mo.state(consumed)
    done_u, set_done_u = mo.state(consumed)
    return {"commit_button": SimpleNamespace(value=commit), "undo_button": SimpleNamespace(value=undo),
            "get_commits_done": done_c, "set_commits_done": set_done_c,
            "get_undos_done": done_u, "set_undos_done": set_done_u}


def test_default_plan_is_the_rulesets_defaults_and_nothing_is_written(toy: Path) -> None:
    before = log_files(toy)
    defs = run(toy)
    start, draft = defs["start"], defs["draft"]
    assert start.turn == 2
    assert draft.problem is None
    assert draft.plan == Plan(turn=2, seed=start.seed, steps={
        "harvest": StepPlan(choices={"crop": "wheat", "stash": 0}),
        "market": StepPlan(choices={"sell": 0}),
    })
    assert log_files(toy) == before


def test_plan_built_from_ui_values_equals_the_expected_plan(toy: Path) -> None:
    forms = FakeForms({"harvest": {"crop": "barley", "stash": 2}, "market": {"sell": 3.0}})
    defs = run(toy, forms=forms)
    start, draft = defs["start"], defs["draft"]
    expected = Plan(turn=2, seed=start.seed, steps={
        "harvest": StepPlan(choices={"crop": "barley", "stash": 2}),
        "market": StepPlan(choices={"sell": 3}),
    })
    assert draft.plan == expected
    # The same plan, as JSON, is what `kingdomlog turn --plan` plays: same events as the sheet's preview.
    camp = Campaign.open(toy)
    again = camp.preview(Plan.parse(expected.to_json()))
    assert [d.payload for d in again.drafts] == [d.payload for d in draft.preview.drafts]


def test_no_write_without_the_commit_button_even_with_choices_set(campaign: Path) -> None:
    before = log_files(campaign)
    head = Campaign.open(campaign).head_seq
    defs = run(campaign, **clicked(commit=0, undo=0))
    assert defs["draft"].preview is not None
    assert log_files(campaign) == before
    assert Campaign.open(campaign).head_seq == head


def test_commit_button_appends_the_previewed_turn_once(toy: Path) -> None:
    forms = FakeForms({"harvest": {"crop": "barley", "stash": 0}, "market": {"sell": 2}})
    before = log_files(toy)
    defs = run(toy, forms=forms, **clicked(commit=1))
    draft = defs["draft"]
    after = log_files(toy)
    assert len(after) == len(before) + 1
    camp = Campaign.open(toy)
    new = [e for e in camp.events() if e.seq > draft.preview.start_seq]
    assert [e.payload for e in new] == [d.payload for d in draft.preview.drafts]
    assert {e.turn for e in new} == {2}
    assert camp.verify().ok
    assert camp.next_turn() == 3


def test_a_click_already_consumed_is_not_replayed_by_a_rerun(toy: Path) -> None:
    before = log_files(toy)
    run(toy, **clicked(commit=1, undo=1, consumed=1))
    assert log_files(toy) == before


def test_undo_button_appends_a_retraction(toy: Path) -> None:
    run(toy, **clicked(undo=1))
    camp = Campaign.open(toy)
    last = camp.events()[-1]
    assert last.type == "core.turn_retracted"
    assert last.payload.turn == 1
    assert camp.next_turn() == 1


def test_a_loaded_plan_sets_the_ui_and_gives_back_the_same_plan(toy: Path) -> None:
    plan = Plan(turn=2, seed="fixed-seed", steps={
        "harvest": StepPlan(choices={"crop": "barley", "stash": 1}, rolls={"harvest": [6, 5]}),
        "market": StepPlan(choices={"sell": 4}),
    })
    upload = SimpleNamespace(value=[object()], name=lambda: "draft.json", contents=lambda: plan.to_json().encode())
    defs = run(toy, plan_file=upload)
    assert defs["start"].seed == "fixed-seed"
    assert defs["forms"].value == {"harvest": {"crop": "barley", "stash": 1}, "market": {"sell": 4}}
    # mo.state does not carry the loaded dice into the draft under app.run, so rebuild it as the sheet does:
    draft = sheet.draft_turn(defs["start"], defs["forms"].value, sheet.plan_dice(defs["start"].plan))
    assert draft.plan == plan
    roll = draft.preview.steps[0].rolls[0]
    assert (roll.faces, roll.total, roll.manual) == ((6, 5), 11, True)


def test_a_plan_for_another_turn_is_set_aside_with_a_message(toy: Path) -> None:
    upload = SimpleNamespace(value=[object()], name=lambda: "old.json",
                             contents=lambda: Plan(turn=1, seed="s").to_json().encode())
    defs = run(toy, plan_file=upload)
    assert defs["start"].plan is None
    assert "turn 1" in defs["load_message"] and "next turn is 2" in defs["load_message"]


def test_not_a_campaign_is_a_message_not_a_traceback(tmp_path: Path) -> None:
    defs = run(tmp_path)
    assert defs["start"] is None
    assert "campaign" in defs["load_message"].lower()


def test_changing_an_early_choice_changes_a_later_step(toy: Path) -> None:
    start = sheet.load_start(toy, seed="fixed")
    dice = {"harvest": {"rolls": {"harvest": "3 4"}}}
    wheat = sheet.draft_turn(start, {"harvest": {"crop": "wheat"}, "market": {"sell": 0}}, {})
    barley = sheet.draft_turn(start, {"harvest": {"crop": "barley"}, "market": {"sell": 0}}, dice)
    food_before = start.state.food
    assert wheat.preview.steps[1].state_after.food == food_before + wheat.preview.steps[0].rolls[0].total
    assert barley.preview.steps[1].state_after.food == food_before + 7
    html = sheet.step_result_html(start, barley.preview.steps[0], start.state)
    assert "[3, 4]" in html and "typed" in html


def test_rerolls_change_only_that_roll(toy: Path) -> None:
    start = sheet.load_start(toy, seed="fixed")
    a = sheet.draft_turn(start, {}, {})
    b = sheet.draft_turn(start, {}, {"harvest": {"rerolls": {"harvest": 1}}})
    assert b.plan.steps["harvest"].rerolls == {"harvest": 1}
    assert b.preview.steps[0].rolls[0].nonce == 1
    c = sheet.draft_turn(start, {}, {})
    assert a.preview.steps[0].rolls[0].faces == c.preview.steps[0].rolls[0].faces


def test_bad_typed_dice_and_bad_json_are_problems_not_exceptions(toy: Path) -> None:
    start = sheet.load_start(toy, seed="fixed")
    bad = sheet.draft_turn(start, {}, {"harvest": {"rolls": {"harvest": "four"}}})
    assert bad.preview is None and "harvest" in bad.problem
    refused = sheet.draft_turn(start, {"market": {"sell": 999}}, {})
    assert refused.preview is not None and not refused.preview.ok
    assert "cannot sell 999" in refused.preview.error
    assert not refused.committable
    with pytest.raises(Exception, match="not valid JSON"):
        sheet.choice_value(FieldSpec("j", "J", "json"), "{oops", step="s")


def test_a_conflict_is_reported_as_a_message(toy: Path) -> None:
    start = sheet.load_start(toy, seed="fixed")
    draft = sheet.draft_turn(start, {}, {})
    Campaign.open(toy).note("someone else wrote first")
    out = sheet.commit_draft(start, draft)
    assert out.kind == "danger"
    assert "someone else committed" in out.text
    assert Campaign.open(toy).next_turn() == 2


def test_every_choice_kind_gets_an_element_with_its_value() -> None:
    kinds = [
        (FieldSpec("s", "S", "select", options=(Option("a"), Option("b")), default="b"), "b"),
        (FieldSpec("m", "M", "multiselect", options=(Option("a"), Option("b")), default=["a"]), ["a"]),
        (FieldSpec("i", "I", "int", default=3, minimum=0), 3),
        (FieldSpec("t", "T", "text", default="x"), "x"),
        (FieldSpec("b", "B", "bool", default=True), True),
        (FieldSpec("j", "J", "json", default=(("k", 1),)), [["k", 1]]),
        (FieldSpec("r", "R", "rows", default=[{"a": 1}]), [{"a": 1}]),
    ]
    for choice, value in kinds:
        el = sheet.choice_widget(choice)
        assert sheet.choice_value(choice, el.value) == (True, value), choice.kind


def test_a_ruleset_may_provide_its_own_widget(toy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import toyrules

    def choice_widget(self: Any, state: Any, step: str, choice: FieldSpec, value: Any) -> Any:
        if choice.name == "crop":
            return mo.ui.radio(options=[str(o.value) for o in choice.options or ()], value=value,
                               label="Crop (radio)")
        return None

    monkeypatch.setattr(type(toyrules.TOY), "choice_widget", choice_widget)
    start = sheet.load_start(toy, seed="fixed")
    forms = sheet.phase_forms(start)
    assert isinstance(forms["harvest"]["crop"], mo.ui.radio)
    assert isinstance(forms["harvest"]["stash"], mo.ui.number)
    assert sheet.build_plan(start, forms.value).steps["harvest"].choices["crop"] == "wheat"
