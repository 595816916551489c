"""A choices field's shape and kind are worked out once per field (``core.choices._SHAPES``, ``_KINDS``, ``_PLACES``,
``_PAIRS``, ``_TYPE_SHAPES``).

The turn sheet describes every step's form again for each new state (each commit, each upstream edit); a field's
shape comes from its declared type alone, so the second description of the same forms reads none of the
annotations again, and says exactly what a first description with nothing kept says.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from kingdomlog.core import choices as core_choices

REPO = Path(__file__).resolve().parents[2]


def forget() -> None:
    for memo in (core_choices._SHAPES, core_choices._KINDS, core_choices._PLACES, core_choices._PAIRS,
                 core_choices._TYPE_SHAPES):
        memo.clear()


def described(rs: Any, state: Any, turn: int) -> list[Any]:
    return [rs.choices(state, turn, p.id) for p in rs.phases]


@pytest.fixture(params=["toy", "pf2e demo"])
def camp(request: pytest.FixtureRequest, toy_campaign: Any, tmp_path: Path) -> Any:
    if request.param == "toy":
        return toy_campaign
    from kingdomlog.app import Campaign

    folder = tmp_path / "stolen-lands"
    shutil.copytree(REPO / "campaigns" / "stolen-lands", folder, ignore=shutil.ignore_patterns(".cache", "drafts"))
    return Campaign.open(folder)


def test_the_second_description_reads_no_annotation_and_says_the_same(monkeypatch: pytest.MonkeyPatch,
                                                                       camp: Any) -> None:
    rs, state, turn = camp.ruleset, camp.state(), camp.next_turn()
    forget()
    first = described(rs, state, turn)
    unwrapped: list[Any] = []
    real = core_choices._unwrap

    def counted(tp: Any, meta: tuple[Any, ...] = ()) -> Any:
        unwrapped.append(tp)
        return real(tp, meta)

    monkeypatch.setattr(core_choices, "_unwrap", counted)
    again = described(rs, state, turn)
    assert again == first
    assert unwrapped == []  # every field's shape, kind and places kept from the first
    forget()
    fresh = described(rs, state, turn)
    assert fresh == first and unwrapped  # nothing kept: worked out again, the same
