"""Trust in the GM sheet (issue 27, item 6), without a browser: a click commits only the draft it was drawn for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kingdomlog.app import Campaign
from kingdomlog.views.sheet import commit as sheet_commit
from kingdomlog.views.sheet import draft as sheet

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
