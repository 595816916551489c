"""The player pages in a real browser (Debian chromium) at a phone's 390 px and a desktop's 1280 px.

For every bundled demo the offline file (`kingdomlog share -o`) opens with no network request, never scrolls
sideways, and shows the summary, the map and the chronicle; the CSS-only turn picker shows an earlier turn's
map. The served notebook is checked at 390 px too. Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
from nb_support import REPO, Server, free_port

from kingdomlog.views.player import page as player

pytestmark = pytest.mark.browser

ARTIFACTS = REPO / "test-artifacts"
DEMOS = {"river-kingdom": "public", "aikakirjat-demo": "public", "felmonte": "fabian", "stolen-lands": "public"}
EVENT_TYPE = re.compile(r"\b(pf1|pf2e|aikakirjat|signoria|core)\.[a-z_]+\b")



@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("pages")
    out = {}
    for demo, viewer in DEMOS.items():
        path = root / f"{demo}-{viewer}.html"
        path.write_text(player.render_static(REPO / "campaigns" / demo, viewer), encoding="utf-8")
        out[demo] = path
    return out


def open_offline(browser: Any, path: Path, width: int) -> tuple[Any, Any, list[str]]:
    ctx = browser.new_context(viewport={"width": width, "height": 900}, offline=True)
    requests: list[str] = []
    ctx.on("request", lambda r: requests.append(r.url))
    page = ctx.new_page()
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return ctx, page, requests


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("demo", sorted(DEMOS))
def test_offline_player_page_reads_at_phone_and_desktop_width(browser: Any, pages: dict[str, Path], demo: str,
                                                              width: int) -> None:
    ctx, page, requests = open_offline(browser, pages[demo], width)
    try:
        assert page.evaluate("document.documentElement.scrollWidth") <= width  # no sideways scrolling
        assert page.locator("#summary").is_visible() and page.locator("#chronicle").is_visible()
        text = page.locator("body").inner_text()
        assert "The kingdom" in text and "Chronicle" in text
        assert not EVENT_TYPE.search(text) and '{"' not in text
        svg = page.locator("#map .kl-frame:visible svg").first
        assert svg.is_visible()
        box = svg.bounding_box()
        assert box is not None and box["width"] <= width and box["height"] > 100
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"player-{demo}-{width}.png"), full_page=True)
        assert requests == [pages[demo].as_uri()]  # the file itself, nothing else
    finally:
        ctx.close()


def test_the_turn_picker_shows_an_earlier_map_without_script(browser: Any, pages: dict[str, Path]) -> None:
    ctx, page, _ = open_offline(browser, pages["river-kingdom"], 390)
    try:
        last = page.locator("#map .kl-map-f17")
        first = page.locator("#map .kl-map-f1")
        assert last.is_visible() and not first.is_visible()
        page.locator("label[for=kl-map-t1]").click()
        assert first.is_visible() and not last.is_visible()
        # month 1: only the capital's hex and its first claims; month 17: eleven claimed hexes
        assert first.locator(".kl-hex-claimed").count() < last.locator(".kl-hex-claimed").count() == 11
        page.screenshot(path=str(ARTIFACTS / "player-river-kingdom-390-month1.png"), full_page=False)
    finally:
        ctx.close()


def test_served_player_notebook_reads_on_a_phone(browser: Any, tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    import shutil

    folder = tmp_path / "river-kingdom"
    shutil.copytree(REPO / "campaigns" / "river-kingdom", folder, ignore=shutil.ignore_patterns(".cache"))
    port = free_port()
    with Server([sys.executable, "-m", "kingdomlog", "share", str(folder), "--as", "public", "--port", str(port)],
                env=subprocess_env, ready=r"Read-only view of .*: (http://\S+)") as srv:
        page = browser.new_page(viewport={"width": 390, "height": 900})
        page.goto(srv.url)
        page.get_by_role("heading", name="Chronicle").wait_for(timeout=120_000)
        page.locator("[data-hex]").first.wait_for(timeout=30_000)
        assert page.get_by_text("River Kingdom is a neutral good kingdom").first.is_visible()
        assert page.get_by_role("slider").count() >= 1  # the map's turn slider
        width = page.evaluate("document.documentElement.scrollWidth")
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "player-served-river-kingdom-390.png"), full_page=True)
        assert width <= 390
        page.close()


def test_an_imported_kingdoms_page_tells_its_history_from_the_import(browser: Any, tmp_path: Path) -> None:
    """A kingdom brought in from Foundry (issue 32) and played a month: the players' page says where it came
    from, shows the month played after it, keeps the GM's note from the sheet out, and reads at a phone's width
    though its hexes have no place on a map yet (the export keeps no coordinates)."""
    import json

    from kingdomlog.app import Campaign
    from kingdomlog.app.kingdom_import import import_kingdom
    from kingdomlog.core.turn import Plan
    from kingdomlog.rulesets.pf2e.samples import sample_plans

    fixture = REPO / "tests" / "fixtures" / "foundry" / "kmt-kingdom.json"
    folder = tmp_path / "tatzlford"
    import_kingdom(fixture.read_text(encoding="utf-8"), folder, source=str(fixture))
    Campaign.open(folder).play(Plan.parse(json.dumps(sample_plans()[1]), source="turn-1"))
    path = tmp_path / "tatzlford-public.html"
    path.write_text(player.render_static(folder, "public"), encoding="utf-8")
    for width in (390, 1280):
        ctx, page, requests = open_offline(browser, path, width)
        try:
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            chronicle = page.locator("#chronicle")
            assert chronicle.is_visible()
            text = chronicle.inner_text()
            assert "Tatzlford came from pf2e-kingmaker-tools kingdom sheet (kmt-kingdom.json)" in text
            assert "Month 1" in text or "month 1" in text
            body = page.locator("body").inner_text()
            assert "The river freezes early this year" in body  # the sheet's public notes
            assert "The mayor of Tuskwater is a spy" not in page.content()  # the GM's never reach the page
            assert not EVENT_TYPE.search(body) and '{"' not in body
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"player-imported-kingdom-{width}.png"), full_page=True)
            assert requests == [path.as_uri()]
        finally:
            ctx.close()
