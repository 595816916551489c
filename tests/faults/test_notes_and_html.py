"""A plan's note is recorded, and NUL bytes never reach HTML (issue 19, item 8).

- ``"note"`` in a plan was accepted and silently dropped. It is now a ``core.note_added`` in
  the same batch as the turn, GM-only unless the plan's ``note_visibility`` says otherwise.
- Text holding NUL (and other control characters HTML forbids) reached the pages as is. Every
  HTML builder now writes U+FFFD in their place, and the static page has a last guard.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from clirun import run

from kingdomlog.app import Campaign
from kingdomlog.core.turn import Plan
from kingdomlog.views import html as kl_html
from kingdomlog.views.player.page import chronicle_html, player_view, render_static, title_html

CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")




@pytest.fixture
def farm(tmp_path: Path) -> Path:
    camp = Campaign.create(tmp_path / "farm", "toy-farm", name="Farm", viewers=["alice"])
    camp.play(Plan.parse({"seed": "a", "steps": {"found": {"choices": {"name": "Dale", "gold": 5}}}}))
    return camp.folder


def plan_file(tmp: Path, **extra: object) -> Path:
    p = tmp / "plan.json"
    p.write_text(json.dumps({"seed": "b", "steps": {"harvest": {"choices": {}}}, **extra}))
    return p


def test_a_plan_s_note_is_recorded_in_the_turn_s_batch_for_the_gm(farm: Path, tmp_path: Path) -> None:
    rc, out, err = run("turn", str(farm), "--plan", str(plan_file(tmp_path, note="the bandits are Sarn's men")),
                       "--json")
    assert rc == 0, err
    doc = json.loads(out)
    camp = Campaign.open(farm)
    new = [e for e in camp.events() if e.seq > 3]
    notes = [e for e in new if e.type == "core.note_added"]
    assert len(notes) == 1 and notes[0].payload.text == "the bandits are Sarn's men"  # type: ignore[attr-defined]
    assert notes[0].visibility == "gm" and notes[0].turn == 1
    assert {e.commit_id for e in new} == {doc["committed"]["commit_id"]}  # the same batch as the turn
    assert "Sarn" not in run("log", str(farm), "--as", "alice")[1]
    assert "Sarn" not in render_static(farm, "alice") and "Sarn" in render_static(farm, "gm")
    assert camp.next_turn() == 2  # a note does not make a turn


def test_the_plan_says_who_reads_its_note(farm: Path, tmp_path: Path) -> None:
    assert run("turn", str(farm), "--plan", str(plan_file(tmp_path, note="harvest festival",
                                                         note_visibility="public")))[0] == 0
    assert "harvest festival" in run("log", str(farm), "--as", "alice")[1]
    rc, _, err = run("turn", str(farm), "--plan", str(plan_file(tmp_path, note="x", note_visibility="faction:zed")))
    assert rc == 1 and "note_visibility" in err and "'zed'" in err
    assert Campaign.open(farm).next_turn() == 2  # refused whole: nothing of the turn was written


def test_a_dry_run_shows_the_note_it_would_record(farm: Path, tmp_path: Path) -> None:
    preview = Campaign.open(farm).preview(Plan.parse({"seed": "b", "note": "shown"}))
    assert [d.type for d in preview.drafts][-1] == "core.note_added"
    rc, out, _ = run("turn", str(farm), "--plan", str(plan_file(tmp_path, note="a long note " * 3)), "--dry-run")
    assert rc == 0 and "core.note_added" in out


NASTY = "nul\x00 bell\x07 esc\x1b del\x7f vt\x0b <b>tag</b> & \"q\""


def test_nul_and_control_characters_never_reach_html(farm: Path) -> None:
    camp = Campaign.open(farm)
    camp.note(NASTY, title=NASTY, visibility="public")
    camp.note(NASTY, visibility="faction:alice")
    camp.play(Plan.parse({"seed": "n", "steps": {"harvest": {"choices": {}}}, "note": NASTY,
                          "note_visibility": "public"}))
    for viewer in ("gm", "alice", "public"):
        page = render_static(farm, viewer)
        assert not CONTROL.search(page), (viewer, CONTROL.findall(page))
        assert "\ufffd" in page and "<b>tag</b>" not in page
        v = player_view(farm, viewer)
        for fragment in (title_html(v), chronicle_html(v)):
            assert not CONTROL.search(fragment)
    assert not CONTROL.search(kl_html.esc(NASTY)) and kl_html.esc("a\x00b") == "a\ufffdb"
    assert kl_html.esc("tab\tnl\ncr\r") == "tab\tnl\ncr\r"  # whitespace HTML allows is kept
    assert not CONTROL.search(kl_html.table([{NASTY: NASTY}]) + kl_html.key_values({NASTY: NASTY}))
    assert not CONTROL.search(kl_html.event_item("toy.x", {"k": NASTY}, NASTY))
