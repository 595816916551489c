"""The pf1 package folds only through core and refuses unknown events of its namespace.

(The layout of every ruleset and the absence of import cycles are checked for all of them in tests/test_layout.py.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kingdomlog.core.errors import CorruptLogError
from kingdomlog.core.events import Draft, EventModel, provisional, register_event
from kingdomlog.core.fold import default_context
from kingdomlog.rulesets.pf1 import RULESET

PKG = Path(__file__).resolve().parents[2] / "kingdomlog" / "rulesets" / "pf1"


def test_the_views_are_read_from_views_sql() -> None:
    assert set(RULESET.sql_views()) == {"pf1_turns", "pf1_battles"}


def test_no_private_accumulator_or_fold() -> None:
    text = "\n".join(p.read_text() for p in PKG.glob("*.py"))
    assert "class Acc" not in text and "(StepContext" not in text
    assert "provisional(" not in text  # only StepContext.emit and core's fold build provisional events


@register_event
class _Unhandled(EventModel):
    type = "pf1.no_such_handler_xyz"


def test_an_unknown_event_of_the_pf1_namespace_is_a_corrupt_log_error_naming_the_seq() -> None:
    state = RULESET.initial_state(default_context(RULESET, "x"))
    with pytest.raises(CorruptLogError, match=r"seq 7: pf1 cannot apply event type 'pf1.no_such_handler_xyz'"):
        RULESET.apply(state, provisional("x", 7, Draft(_Unhandled(), turn=0)))
