"""Trust in the GM sheet (issue 27, item 6), without a browser: a click commits only the draft it was drawn for, and a
change that reaches the kernel for widgets a rebuild replaced is placed on the new ones, never dropped.

The browser tests of the same (three clicks, two tabs, an activity added 200 ms after another, the busy state) are in
test_sheet_trust_browser.py. Widgets receive values here as marimo gives them a value from the page (``_update``).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from nb_support import REPO

from kingdomlog.app import Campaign
from kingdomlog.app.drafts import Drafts, SavedDraft
from kingdomlog.core.turn import Plan
from kingdomlog.views.sheet import commit as sheet_commit
from kingdomlog.views.sheet import draft as sheet
from kingdomlog.views.sheet import late as sheet_late
from kingdomlog.views.sheet.draft import Outcome

# ---- Commit: the draft a click names ---------------------------------------------------------------------------


def batches(folder: Path) -> int:
    return len({e.commit_id for e in Campaign.open(folder).events()})


def clicked(button: Any, draft: str, token: str) -> Any:
    button.widget.click = {"draft": draft, "n": token}
    return button


def rolled(folder: Path) -> sheet.SheetSession:
    """The sheet opened on ``folder`` with its widgets read once and Roll all pressed (the draft can be committed)."""
    s, _ = sheet.open_session(folder)
    assert s is not None
    s.update(dict(s.widgets().value))
    s.roll_all()
    return s


def test_a_click_commits_the_draft_it_was_drawn_for_once(toy: Path) -> None:
    s = rolled(toy)
    button = sheet_commit.control(s)
    assert button.widget.draft == f"2@{Campaign.open(toy).head_seq}" == sheet_commit.draft_id(s)
    assert button.widget.label == "✔ Commit season 2" and not button.widget.disabled
    assert sheet_commit.take(button, s) is None  # drawn, never clicked: nothing
    before = batches(toy)
    done = sheet_commit.take(clicked(button, sheet_commit.draft_id(s), "a"), s)
    assert done is not None and done.kind == "success" and "Committed season 2" in done.text
    assert button.widget.answered == ""  # the sheet reloads: the button stays "Committing…" until then
    assert sheet_commit.take(button, s) is None  # the same click, seen again
    assert batches(toy) == before + 1 and Campaign.open(toy).next_turn() == 3


def test_a_click_for_the_draft_just_committed_does_not_commit_the_next(toy: Path) -> None:
    """The bug: clicks queued while a commit ran reached the next month's new button and committed it untouched.
    A click names its draft, so the next month's button takes it as what it is: a click for the month before."""
    s = rolled(toy)
    old = sheet_commit.draft_id(s)
    first = sheet_commit.take(clicked(sheet_commit.control(s), old, "a"), s)
    assert first is not None and first.kind == "success"
    head = Campaign.open(toy).head_seq
    nxt = rolled(toy)  # the next season, its checks rolled: nothing but the click's draft stops a commit
    assert nxt.start.turn == 3
    button = sheet_commit.control(nxt)
    for token in ("b", "c"):  # the second and third clicks, given to the new button
        late = sheet_commit.take(clicked(button, old, token), nxt)
        assert late is not None and late.kind == "stale"
        assert late.text == ("A click on Commit for season 2 came after the sheet moved on to season 3: season 2 is"
                             " committed already.")
        assert button.widget.answered == token  # the button is enabled again at once
    assert Campaign.open(toy).head_seq == head and Campaign.open(toy).next_turn() == 3
    shown = sheet_commit.shown(first, late)
    assert shown.kind == "success" and shown.text.startswith(first.text) and shown.text.endswith("already.")
    assert sheet_commit.shown(shown, late) == shown  # said once
    # a click on the new button itself commits season 3
    done = sheet_commit.take(clicked(button, sheet_commit.draft_id(nxt), "d"), nxt)
    assert done is not None and done.kind == "success" and Campaign.open(toy).next_turn() == 4


def test_a_refused_commit_answers_the_click_and_a_retry_commits(toy: Path) -> None:
    s = rolled(toy)
    button = sheet_commit.control(s)
    Campaign.open(toy).note("the steward wrote first")  # the log moves on: the log refuses the draft
    done = sheet_commit.take(clicked(button, sheet_commit.draft_id(s), "a"), s)
    assert done is not None and done.kind == "danger" and Campaign.open(toy).next_turn() == 2
    again = rolled(toy)  # the sheet reloads on the same turn, from the new seq
    assert sheet_commit.draft_id(again) != sheet_commit.draft_id(s)
    late = sheet_commit.take(clicked(sheet_commit.control(again), sheet_commit.draft_id(s), "b"), again)
    assert late is not None and late.kind == "stale" and "nothing was committed" in late.text
    assert Campaign.open(toy).next_turn() == 2
    done = sheet_commit.take(clicked(sheet_commit.control(again), sheet_commit.draft_id(again), "c"), again)
    assert done is not None and done.kind == "success" and Campaign.open(toy).next_turn() == 3


def test_a_click_on_a_draft_the_rules_refuse_is_answered(toy: Path) -> None:
    s, _ = sheet.open_session(toy)
    assert s is not None
    values = dict(s.widgets().value)
    s.update(values)
    s.roll_all()
    s.update({**values, "market/c/sell": 999})
    button = sheet_commit.control(s)
    assert button.widget.disabled and button.widget.tooltip == "Fix the refused step first"
    done = sheet_commit.take(clicked(button, sheet_commit.draft_id(s), "a"), s)
    assert done is not None and done.kind == "warn" and "refused" in done.text
    assert button.widget.answered == "a" and Campaign.open(toy).next_turn() == 2


# ---- late input: a change for widgets a rebuild replaced --------------------------------------------------------

ACTS = "activity.region/c/activities"


@pytest.fixture
def pf2e(tmp_path: Path) -> Path:
    folder = tmp_path / "stolen-lands"
    shutil.copytree(REPO / "campaigns" / "stolen-lands", folder,
                    ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    camp = Campaign.open(folder)
    Drafts(folder).save(SavedDraft(camp.next_turn(), camp.head_seq, Plan(turn=camp.next_turn(), seed="late")))
    return folder


class Sheet:
    """The notebook's cells for one session, as the kernel runs them: build, read, save, rebuild."""

    def __init__(self, folder: Path) -> None:
        s, _ = sheet.open_session(folder)
        assert s is not None
        self.s = s
        self.rebuilds = 0
        self.told: list[Outcome] = []
        self.forms = self.build()

    def build(self) -> Any:
        forms = sheet_late.widgets(self.s, lambda _f: self.ask_rebuild(), self.told.append)
        self.s.update(dict(forms.value))
        return forms

    def ask_rebuild(self) -> None:
        self.rebuilds += 1

    def on_page(self, forms: Any, key: str, value: Any) -> None:
        """The page sends ``value`` for ``key`` of ``forms``; then the cells that read ``forms`` run.

        For an old build too: marimo keeps the name an element was bound to, so it runs the cell that reads
        ``forms`` with the build now on the page.
        """
        forms._update({key: value})
        draft = self.s.update(dict(self.forms.value), save=False)
        self.s.save()
        if forms is self.forms and self.s.refresh_forms(draft):
            self.forms = self.build()

    def then_rebuilt(self) -> None:
        """The layout state's cell, after a late change asked for it."""
        assert self.rebuilds
        self.rebuilds = 0
        self.forms = self.build()

    def rows(self) -> list[str]:
        sp = self.s.plan.steps.get("activity.region")
        return [r.get("activity") for r in (sp.choices.get("activities", []) if sp else [])]


def label(forms: Any, key: str, value: str) -> list[str]:
    """What the page sends for a dropdown's option ``value``: its text."""
    return [t for t, v in forms.elements[key].options.items() if v == value]


def saved_rows(folder: Path) -> list[str]:
    saved = Drafts(folder).load(Campaign.open(folder).next_turn())
    assert saved is not None
    return [r.get("activity") for r in saved.plan.steps["activity.region"].choices.get("activities", [])]


def test_an_activity_added_on_the_widgets_a_rebuild_replaced_is_kept(pf2e: Path) -> None:
    ui = Sheet(pf2e)
    old = ui.forms
    ui.on_page(old, f"{ACTS}/_add", label(old, f"{ACTS}/_add", "claim-hex"))
    assert ui.forms is not old and ui.rows() == ["claim-hex"]  # the first add rebuilt the widgets
    # the second add, made on the old widgets while they were still on the page, reaches the kernel now
    ui.on_page(old, f"{ACTS}/_add", label(old, f"{ACTS}/_add", "build-roads"))
    assert ui.rows() == ["claim-hex", "build-roads"] and saved_rows(pf2e) == ["claim-hex", "build-roads"]
    assert isinstance(ui.s.late, sheet_late.LateInput) and ui.s.late.placed == 1 and not ui.told
    ui.then_rebuilt()
    assert f"{ACTS}/rows/#1/activity" in ui.forms.elements and ui.rows() == ["claim-hex", "build-roads"]
    assert sorted(k for k in ui.forms.elements if k.endswith("/activity") and k.startswith(ACTS)) == [
        f"{ACTS}/rows/#0/activity", f"{ACTS}/rows/#1/activity"]


def test_a_late_change_follows_its_row_when_an_earlier_row_was_removed(pf2e: Path) -> None:
    ui = Sheet(pf2e)
    for act in ("claim-hex", "build-roads", "clear-hex"):
        ui.on_page(ui.forms, f"{ACTS}/_add", label(ui.forms, f"{ACTS}/_add", act))
    assert ui.rows() == ["claim-hex", "build-roads", "clear-hex"]
    old = ui.forms
    ui.on_page(old, f"{ACTS}/rows/#0/_remove", 1)  # remove Claim Hex: the rows after it move up
    assert ui.rows() == ["build-roads", "clear-hex"] and ui.forms is not old
    # on the old widgets: a skill for Clear Hex (old row 2, now row 1), then an edit in the row that is gone
    skill = f"{ACTS}/rows/#2/skill"
    options = [v for v in old.elements[skill].options.values() if v]
    ui.on_page(old, skill, label(old, skill, options[0]))
    got = ui.s.plan.steps["activity.region"].choices["activities"]
    assert [r["activity"] for r in got] == ["build-roads", "clear-hex"] and got[1].get("skill") == options[0]
    assert "skill" not in got[0]
    ui.then_rebuilt()
    ui.on_page(old, f"{ACTS}/rows/#0/_remove", 2)  # the removed row's button again: it is gone, nothing to say
    gone = f"{ACTS}/rows/#0/skill"
    ui.on_page(old, gone, label(old, gone, next(v for v in old.elements[gone].options.values() if v)))
    assert [r["activity"] for r in ui.s.plan.steps["activity.region"].choices["activities"]] == [
        "build-roads", "clear-hex"]
    assert len(ui.told) == 1 and ui.told[0].kind == "warn"
    assert "step 10 (Activity: Region Activities)" in ui.told[0].text and "not applied" in ui.told[0].text


def test_shift_and_follow() -> None:
    basis = {"s/c/a/rows/#0/_remove": 0, "s/c/a/rows/#1/_remove": 1, "s/c/a/rows/#2/_remove": 0}
    assert sheet_late.shift("s/c/a/rows/#2/x", basis) == "s/c/a/rows/#1/x"
    assert sheet_late.shift("s/c/a/rows/#1/x", basis) is None
    assert sheet_late.follow("s/c/a/rows/#2/x", [basis, basis]) is None  # row 2 became row 1, then was removed
    assert sheet_late.follow("s/c/a/rows/#0/x", [basis, None]) is None  # a build not made from the one before
    assert sheet_late.follow("s/c/b/x", [basis]) == "s/c/b/x"
