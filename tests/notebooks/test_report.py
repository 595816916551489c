"""`kingdomlog report DIR --as VIEWER --turn N --format md|bbcode|html`: a turn's report for a forum thread,
with the map as an image file beside it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from nb_support import REPO

from kingdomlog.core.errors import InputError
from kingdomlog.views.player.report import to_bbcode, to_markdown, turn_report, write_report

RIVER = REPO / "campaigns" / "river-kingdom"


def test_cli_writes_markdown_and_the_map_beside_it(tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    out = tmp_path / "month-13.md"
    res = subprocess.run([sys.executable, "-m", "kingdomlog", "report", str(RIVER), "--as", "public", "--turn", "13",
                          "--format", "md", "-o", str(out)], env=subprocess_env, capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    md = out.read_text()
    png = tmp_path / "month-13-map.png"
    svg = tmp_path / "month-13-map.svg"
    assert png.read_bytes()[:4] == b"\x89PNG" and svg.read_text().startswith("<svg xmlns=")
    assert f"wrote the md report for public: {out}, {svg}, {png}" in res.stdout
    assert md.startswith("# River Kingdom (PF1 demo) — Month 13\n")
    assert "![Map: River Kingdom (PF1 demo) — Month 13](month-13-map.png)" in md
    # month 13 by hand from the demo log: a House built in Oleg's Trading Post, Unrest 3 -> 1
    assert "- A House was built in Oleg's Trading Post for 3 BP; unrest fell by 1." in md
    assert "| Unrest | 1 | -2 |" in md
    assert "Since month 12: Unrest fell by 2 to 1" in md


def test_cli_refuses_an_unknown_viewer_and_a_turn_not_played(tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    res = subprocess.run([sys.executable, "-m", "kingdomlog", "report", str(RIVER), "--as", "mallory",
                          "-o", str(tmp_path / "x.md")], env=subprocess_env, capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 1 and "unknown viewer 'mallory'" in res.stderr and not (tmp_path / "x.md").exists()
    with pytest.raises(InputError, match="has no turn 99; turns played: 0–17"):
        write_report(RIVER, "public", turn=99, output=tmp_path / "y.md")


def test_bbcode_is_forum_markup_with_the_image_named() -> None:
    r = turn_report(RIVER, "public", 2)
    bb = to_bbcode(r, "m.png")
    assert bb.startswith("[size=150][b]River Kingdom (PF1 demo) — Month 2[/b][/size]")
    assert "[*]A Brewery was built in Tatzlford for 6 BP." in bb and bb.rstrip().endswith("[img]m.png[/img]")
    assert bb.count("[list]") == bb.count("[/list]")
    assert not re.search(r"[<>]", bb)  # no HTML in BBCode
    # markdown of the same turn tells the same sentences
    assert "- A Brewery was built in Tatzlford for 6 BP." in to_markdown(r, None)


def test_signoria_report_is_the_factions_month(tmp_path: Path) -> None:
    paths = write_report(REPO / "campaigns" / "felmonte", "fabian", turn=7, fmt="html", output=tmp_path / "r.html",
                         png=False)
    page = paths[0].read_text()
    for heading in ("What we believe of our rivals", "What we ordered", "What we learned", "What happened"):
        assert heading in page
    assert "<script" not in page and "http" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert [p.name for p in paths] == ["r.html", "r-map.svg"]
