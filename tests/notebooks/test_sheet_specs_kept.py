"""A step's form is listed once per (ruleset, state, turn, step, values): a sheet opened again on the same log head
takes its forms from what was listed, and they are what a fresh listing gives (``sheet._specs``).

Listing the 17 forms of a pf2e month (the ruleset's choices, its vocabularies and modifiers per option) was most
of an open of the sheet; a reload, a second tab or the benchmark's next open of the same month lists none again.
The key holds the state by its JSON's digest, so another state (an upstream edit, another month) is listed for
itself, never given the forms of the state before.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from nb_support import copy_demo, make_toy_campaign

from kingdomlog.core.choices import Option
from kingdomlog.views import forms as sf
from kingdomlog.views.sheet import draft as sheet


@pytest.fixture(params=["toy", "demo"])
def folder(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    if request.param == "demo":
        return copy_demo(tmp_path / "stolen-lands")
    return make_toy_campaign(tmp_path / "farm")


@pytest.fixture
def listed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Each step whose form a ruleset lists, in order (the bundled rulesets' ``choices`` end in the base class's);
    the kept forms are forgotten before and after."""
    from kingdomlog.core.ruleset import Ruleset

    calls: list[str] = []
    real = Ruleset.choices

    def counted(self: Any, state: Any, turn: int, step: str, values: Any = None) -> Any:
        calls.append(step)
        return real(self, state, turn, step, values)

    sheet._SPECS.clear()
    monkeypatch.setattr(Ruleset, "choices", counted)
    yield calls
    sheet._SPECS.clear()


def forms_of(s: sheet.SheetSession) -> dict[str, Any]:
    return {k: (f.specs, sf.form_key(f)) for k, f in s.forms.items()}


def test_a_sheet_opened_again_lists_no_form_and_shows_what_a_fresh_listing_gives(folder: Path,
                                                                                 listed: list[str]) -> None:
    first, _ = sheet.open_session(folder)
    assert first is not None and first.draft is not None
    steps = [c.id for c in first.draft.cards]
    assert sorted(listed) == sorted(steps)  # every step listed once, on the first open
    listed.clear()
    again, _ = sheet.open_session(folder)
    assert again is not None
    assert listed == []  # the same head: nothing listed again
    assert forms_of(again) == forms_of(first)
    sheet._SPECS.clear()
    fresh, _ = sheet.open_session(folder)
    assert fresh is not None
    assert sorted(listed) == sorted(steps)
    assert forms_of(fresh) == forms_of(again)  # the kept forms are a fresh listing's
    assert dict(fresh.widgets().value) == dict(again.widgets().value)


def test_another_state_or_other_values_are_listed_for_themselves(toy: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  listed: list[str]) -> None:
    """The toy's crops are labelled with the farm's gold here: a state with more gold must show more gold."""
    from toyrules import CROPS, ToyRuleset

    monkeypatch.setattr(ToyRuleset, "vocabulary", lambda self, state, source, within: [
        Option(c, f"{c} at {state.gold} gold") for c in CROPS])
    s, _ = sheet.open_session(toy)
    assert s is not None and s.draft is not None
    card = next(c for c in s.draft.cards if c.id == "harvest")
    labels = lambda specs: [o.label for f in specs if f.name == "crop" for o in f.options or ()]  # noqa: E731
    here, _ = sheet._specs(s.start, card, {})
    richer = SimpleNamespace(id=card.id, before=card.before.model_copy(update={"gold": card.before.gold + 7}))
    there, _ = sheet._specs(s.start, richer, {})  # type: ignore[arg-type]
    assert labels(here) == [f"{c} at {card.before.gold} gold" for c in CROPS]
    assert labels(there) == [f"{c} at {card.before.gold + 7} gold" for c in CROPS]
    n = len(listed)
    sheet._specs(s.start, card, {"crop": "barley"})  # other values: listed for them
    assert len(listed) == n + 1
    sheet._specs(s.start, card, {})  # the first again: kept
    assert len(listed) == n + 1
