"""The pf1 Event phase's form in words (issue 29): the event table offered by the books' names ("Rivers Run Red",
"Ultimate Campaign"; they read "rrr", "uc") and its help says which table an empty choice takes ("the campaign's
own (its option Event table)"; it read "default: option event table"), the Ultimate Campaign fields say so
in words (they began "uc:"), a hired adventurers' bonus says what it buys ("+5 on one event check", 8 BP)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from kingdomlog.app import Campaign
from kingdomlog.core.turn import Plan

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def camp(tmp_path_factory: pytest.TempPathFactory) -> Campaign:
    folder = tmp_path_factory.mktemp("pf1") / "river-kingdom"
    shutil.copytree(REPO / "campaigns" / "river-kingdom", folder, ignore=shutil.ignore_patterns(".cache", "drafts"))
    return Campaign.open(folder)


def test_the_event_phase_asks_in_words(camp: Campaign) -> None:
    fields = {f.name: f for f in camp.ruleset.choices(camp.state(), camp.next_turn(), "event")}
    table = fields["event_table"]
    assert [o.label for o in table.options or ()] == ["Rivers Run Red", "Ultimate Campaign"]
    assert "the campaign's own (its option Event table)" in table.help and "default: option" not in table.help
    assert [o.label for o in fields["hire_adventurers"].options or ()] == [
        "None", "+2 on one event check", "+5 on one event check", "+10 on one event check"]
    helps = [f.help for f in fields.values() if f.help]
    assert [x for x in helps if re.match(r"uc:|.*\b[a-z]+_[a-z]+\b", x)] == [], helps


def test_the_table_is_still_taken_by_its_value(camp: Campaign) -> None:
    """A plan names the table as before ("uc"); one not offered is refused at its field."""
    for table, ok in (("uc", True), ("ultimate", False)):
        plan = Plan.parse({"turn": camp.next_turn(), "seed": "x",
                           "steps": {"event": {"choices": {"event": "none", "event_table": table}}}})
        pv = camp.preview(plan)
        errors = [str(s.error) for s in pv.steps if s.error is not None]
        assert (not any("event_table" in e for e in errors)) if ok else any("event_table" in e for e in errors), \
            errors
