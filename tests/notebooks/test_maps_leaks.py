"""A viewer's map never shows what that viewer may not see — page, SVG file, PNG's source and report included.

We plant recognisable secrets the way a GM would (raw events appended with a visibility): in the PF1 demo a
GM-only hex feature on a hex the players know and a GM-only new hex; in the Signoria demo a province only
marburg knows of. The player's page, map SVG and every report format are searched for the markers; the
GM's (and marburg's) do show them, so the searches can fail.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from nb_support import REPO

from kingdomlog.app import Campaign
from kingdomlog.views.player import maps
from kingdomlog.views.player import page as player
from kingdomlog.views.player.report import write_report

LAIR = "WYRM-LAIR-4417"
NEW_HEX = "h-secret-5521"
VALE = "HIDDEN-VALE-9920"


def _append(camp: Campaign, *rows: dict[str, object]) -> None:
    camp.append_raw(camp.parse_jsonl([json.dumps(r) for r in rows]))


@pytest.fixture
def river(tmp_path: Path) -> Path:
    folder = tmp_path / "river-kingdom"
    shutil.copytree(REPO / "campaigns" / "river-kingdom", folder, ignore=shutil.ignore_patterns(".cache"))
    camp = Campaign.open(folder)
    turn = camp.next_turn() - 1
    _append(camp,
            {"turn": turn, "type": "pf1.hex_mapped", "visibility": "gm",
             "payload": {"hex": "h5", "q": 2, "r": -1, "terrain": "HILLS", "features": ["CAVE", f"LAIR:{LAIR}"]}},
            {"turn": turn, "type": "pf1.hex_mapped", "visibility": "gm",
             "payload": {"hex": NEW_HEX, "q": 3, "r": -2, "terrain": "FOREST", "features": ["RESOURCE"]}},
            {"turn": turn, "type": "pf1.hex_explored", "visibility": "gm", "payload": {"hex": NEW_HEX}})
    st = camp.state()
    assert LAIR in " ".join(st.hexes["h5"].features) and st.hexes[NEW_HEX].explored  # type: ignore[attr-defined]
    return folder


@pytest.fixture
def felmonte(tmp_path: Path) -> Path:
    folder = tmp_path / "felmonte"
    shutil.copytree(REPO / "campaigns" / "felmonte", folder, ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    camp = Campaign.open(folder)
    _append(camp, {"turn": camp.next_turn() - 1, "type": "signoria.province_defined", "visibility": "faction:marburg",
                   "payload": {"province": "vale", "name": f"The {VALE}", "income": 1, "owner": "marburg"}})
    assert "vale" in camp.state().provinces  # type: ignore[attr-defined]
    return folder


def _everything(folder: Path, viewer: str, tmp: Path) -> list[str]:
    """The static page, each turn's map as a file, and the report in every format with its map files."""
    out = [player.render_static(folder, viewer)]
    v = player.player_view(folder, viewer)
    out += [maps.standalone_svg(m) for _, m in v.maps]
    for fmt in ("md", "bbcode", "html"):
        paths = write_report(folder, viewer, fmt=fmt, output=tmp / f"{viewer}-report.{fmt}", png=False)
        out += [p.read_text(encoding="utf-8") for p in paths]
    return out


def test_a_gm_only_hex_feature_and_hex_never_reach_a_players_map(river: Path, tmp_path: Path) -> None:
    for text in _everything(river, "public", tmp_path):
        assert LAIR not in text
        assert NEW_HEX not in text
    # the hex the players know is still drawn, as they know it (its cave, without the lair)
    v = player.player_view(river, "public")
    assert v.map is not None
    h5 = next(h for h in v.map.hexes if h.id == "h5")
    assert h5.features == ("cave",)
    gm = _everything(river, "gm", tmp_path)
    assert any(LAIR in t for t in gm) and any(NEW_HEX in t for t in gm)


def test_a_rivals_unrevealed_province_never_reaches_a_factions_map(felmonte: Path, tmp_path: Path) -> None:
    for text in _everything(felmonte, "fabian", tmp_path):
        assert VALE not in text
        assert 'data-region="vale"' not in text
    v = player.player_view(felmonte, "fabian")
    assert v.map is not None and {r.id for r in v.map.regions} == {"fabia", "marburg", "felmonte", "gusso"}
    assert any(VALE in t for t in _everything(felmonte, "marburg", tmp_path))
    assert any(VALE in t for t in _everything(felmonte, "gm", tmp_path))


def test_a_gm_only_pf2e_hex_fact_never_reaches_a_players_map(tmp_path: Path) -> None:
    folder = tmp_path / "stolen-lands"
    shutil.copytree(REPO / "campaigns" / "stolen-lands", folder, ignore=shutil.ignore_patterns(".cache", "drafts"))
    camp = Campaign.open(folder)
    before = next(h for h in camp.state().hexes if h.id == "B3")  # type: ignore[attr-defined]
    assert before.features == () and before.q is not None
    _append(camp, {"turn": camp.next_turn() - 1, "type": "pf2e.hex_placed", "visibility": "gm",
                   "payload": {"hex_id": "B3", "q": before.q, "r": before.r, "features": ["ruins"]}})
    v = player.player_view(folder, "public")
    gm = player.player_view(folder, "gm")
    assert v.map is not None and gm.map is not None
    assert next(h for h in gm.map.hexes if h.id == "B3").features == ("ruins",)
    assert next(h for h in v.map.hexes if h.id == "B3").features == ()
    for _, m in v.maps:  # B3's tooltip in every turn's map file tells no ruins
        svg = maps.standalone_svg(m)
        if 'data-hex="B3"' in svg:
            assert "<title>B3 · forest · not claimed</title>" in svg


def test_hexes_are_withheld_when_the_visible_events_alone_do_not_fold(river: Path) -> None:
    """A public event about a hex only a GM-only event created cannot be folded without it: the player's map then
    shows no hexes (and says so) rather than the GM's."""
    camp = Campaign.open(river)
    _append(camp, {"turn": camp.next_turn() - 1, "type": "pf1.hex_cleared", "visibility": "public",
                   "payload": {"hex": NEW_HEX}})
    v = player.player_view(river, "public")
    assert v.map is not None and v.map.hexes == () and "not shown" in v.map.caption
    page = player.render_static(river, "public")
    assert LAIR not in page and 'data-hex="' not in page
    assert f"Hex {NEW_HEX} was cleared." in page  # the public event itself is told: the GM made it public
