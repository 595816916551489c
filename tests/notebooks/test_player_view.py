"""The player view (design §7): no write code, only what the viewer may see, a self-contained static file."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from nb_support import NOTEBOOKS, SECRET, load_notebook

from kingdomlog.app import Campaign
from kingdomlog.core.errors import InputError
from kingdomlog.core.turn import Plan
from kingdomlog.views.player import page as player
from kingdomlog.views.sheet import draft as sheet

WRITE_CALLS = re.compile(
    r"\.(commit|append|append_raw|retract|note|play|import_lines|create|write_text|write_bytes|unlink|rmtree"
    r"|mkdir|rename|replace|touch)\s*\("
    r"|\bopen\s*\(|run_button|mo\.ui\.button|\bCampaign\b|\bEventLog\b|\bsubprocess\b|\bos\.system"
)


def test_player_notebook_has_no_write_code() -> None:
    src = (NOTEBOOKS / "kingdom_view.py").read_text()
    code = "\n".join(line for line in src.splitlines() if not line.lstrip().startswith("#"))
    assert WRITE_CALLS.findall(code) == []
    # and the check itself can fail: the GM sheet does write
    assert WRITE_CALLS.findall((NOTEBOOKS / "turn_sheet.py").read_text())


def test_player_library_has_no_write_code() -> None:
    src = Path(player.__file__).read_text()
    writes = (r"\b(camp|campaign|log|self)\.(commit|append|append_raw|retract|note|play)\s*\("
              r"|write_text|unlink|(?<!\.)\bopen\(")
    assert re.findall(writes, src) == []
    assert re.findall(writes, Path(sheet.__file__).read_text())  # the pattern does catch the sheet's writes


def retract_and_replay(folder: Path) -> None:
    """Play turn 2, undo it, play it again: the timeline then holds a struck-through turn."""
    camp = Campaign.open(folder)
    plan = Plan(seed="t2", steps={"market": {"choices": {"sell": 1}}})
    camp.play(plan)
    camp.retract(2, reason="wrong market")
    camp.play(Plan(seed="t2b", steps={"market": {"choices": {"sell": 2}}}))


def test_static_view_for_a_player_hides_gm_values_and_loads_nothing(toy: Path) -> None:
    retract_and_replay(toy)
    page = player.render_static(toy, "alice")
    assert SECRET not in page
    assert "market day was sunny" in page  # the public note is there
    assert "toy.secret_stash" not in page
    assert "http" not in page
    assert not re.search(r"<script|\bsrc\s*=|\bhref\s*=|url\(|@import", page, re.I)
    assert "<svg" in page  # the charts of the figures that moved
    # the toy ruleset narrates nothing itself: its turns are told by the change of their figures
    assert "Season 2" in page and re.search(r"Gold rose from \d+ to \d+", page)
    # the undone first telling of season 2 is said once, with its reason; the replayed one is the story
    assert page.count("A first telling of this season was undone (wrong market).") == 1
    # the GM's own view does show the note: the checks above can fail
    assert SECRET in player.render_static(toy, "gm")


def test_player_view_state_is_redacted(toy: Path) -> None:
    v = player.player_view(toy, "alice")
    assert v.summary["stash"] is None
    assert all(r["stash"] is None for r in v.per_turn)
    assert player.player_view(toy, "gm").summary["stash"] == 3


def test_player_notebook_runs_for_a_viewer_and_shows_no_gm_note(campaign: Path) -> None:
    nb = load_notebook("kingdom_view")
    outputs, defs = nb.app.run(defs={"folder": campaign, "viewer": "public"})
    assert defs["view"].viewer == "public"
    text = "".join(str(getattr(o, "text", "")) for o in outputs if o is not None)
    assert "Chronicle" in text and "The kingdom" in text
    assert SECRET not in text
    _, gm = nb.app.run(defs={"folder": campaign, "viewer": "gm"})
    assert any(SECRET in str(n["text"]) for n in gm["view"].notes)


def test_html_reaches_the_browser_as_its_text() -> None:
    """What the views build is ``views.html.Html`` (a subclass of ``str``), which msgspec, marimo's encoder, refuses:
    it says what it is (its text), so an ``mo.Html`` of it, or a widget's value holding it, reaches the page."""
    import json

    import marimo as mo
    import msgspec
    from marimo._messaging.msgspec_encoder import enc_hook

    from kingdomlog.views.html import h

    bundle = msgspec.json.encode(mo.Html(h("p", "a < b"))._serialized_mime_bundle, enc_hook=enc_hook)
    assert json.loads(bundle) == {"mimetype": "text/html", "data": "<p>a &lt; b</p>"}
    slots = msgspec.json.encode({"slots": {"x": h("b", 1)}}, enc_hook=enc_hook)  # views.sheet.live's widget
    assert json.loads(slots) == {"slots": {"x": "<b>1</b>"}}


def test_share_writes_one_html_file(toy: Path, tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    out = tmp_path / "view.html"
    res = subprocess.run([sys.executable, "-m", "kingdomlog", "share", str(toy), "--as", "alice", "-o", str(out)],
                         env=subprocess_env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    page = out.read_text()
    assert "Farm" in page and SECRET not in page and "http" not in page


def test_share_refuses_an_unknown_viewer(toy: Path, tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    res = subprocess.run([sys.executable, "-m", "kingdomlog", "share", str(toy), "--as", "mallory",
                          "-o", str(tmp_path / "x.html")], env=subprocess_env, capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 1
    assert "unknown viewer 'mallory'" in res.stderr
    assert "Traceback" not in res.stderr
    assert not (tmp_path / "x.html").exists()


@pytest.mark.parametrize("args", [{}, {"campaign": ""}])
def test_view_args_need_a_campaign(args: dict[str, str]) -> None:
    with pytest.raises(InputError, match="no campaign folder"):
        player.view_args(args, env={})


def test_ruleset_chart_figures_pick_the_charted_columns() -> None:
    """A ruleset's ``chart_figures`` choose what the player view charts (aikakirjat: abilities, population, fame)."""
    from kingdomlog.views.player.charts import chart_grid, line_chart_svg, moving_figures, numeric_figures, series

    rows = [{"turn": t, "a": t, "b": 2 * t, "culture_score": 10 + t, "population": 5 * t, "name": "x"}
            for t in range(3)]
    keys = moving_figures(rows, ("culture_score", "population", "missing"))
    assert keys == ["culture_score", "population"]
    charts = chart_grid(line_chart_svg(k, series(rows, k), turn_unit="year") for k in keys)
    assert re.findall(r"<title>(\w+) by year</title>", charts) == ["culture_score", "population"]
    assert moving_figures(rows) == numeric_figures(rows) == ["a", "b", "culture_score", "population"]
