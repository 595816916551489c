"""A pf2e skill option's detail ("Loyalty, trained, +5") is worked out once per state and skill.

The sheet's forms list the same state's 16 skills for each activity and event row (about a dozen times an open, 208
check modifiers); the detail is kept by the state's identity (``pf2e.choices._MOD_TEXTS``, states are frozen), so
an open of the sheet works out at most 16 per state it lists, and another state never shows the details of the
state before.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from nb_support import copy_demo

from kingdomlog.app import Campaign
from kingdomlog.rulesets.pf2e import choices as pf2e_choices
from kingdomlog.views.sheet import draft as sheet


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    return copy_demo(tmp_path / "stolen-lands")


def test_an_open_works_out_each_skills_modifier_once_per_state(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sheet._SPECS.clear()
    pf2e_choices._MOD_TEXTS.clear()
    asked: list[tuple[int, str]] = []
    real = pf2e_choices.check_modifier

    def counted(state, skill, **kw):  # type: ignore[no-untyped-def]
        asked.append((id(state), skill))
        return real(state, skill, **kw)

    monkeypatch.setattr(pf2e_choices, "check_modifier", counted)
    s, message = sheet.open_session(demo)
    assert s is not None, message
    states = {who for who, _ in asked}
    assert asked and len(asked) == len(set(asked)) <= 16 * len(states), (len(asked), len(states))


def test_another_state_shows_its_own_details(demo: Path) -> None:
    state = Campaign.open(demo).state()
    worse = state.model_copy(update={"unrest": state.unrest + 10})  # an unrest penalty on every check
    before = [o.detail for o in pf2e_choices._skills(state)]
    after = [o.detail for o in pf2e_choices._skills(worse)]
    assert after == [pf2e_choices._mod_text(worse, str(o.value)) for o in pf2e_choices._skills(worse)]
    assert before == [pf2e_choices._mod_text(state, str(o.value)) for o in pf2e_choices._skills(state)]
    assert before != after
    assert [o.detail for o in pf2e_choices._skills(state)] == before  # asked again after the other state
