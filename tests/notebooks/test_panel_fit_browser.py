"""The GM sheet's side panel at 1280 px, in a real browser that shows its scrollbars as a desktop browser does
(Playwright's headless chromium hides them unless asked): every table of the four demos' panels fits the panel,
nothing of it cut at the panel's right edge. pf1's Modifiers read "Cit…" and scrolled inside the panel; its Hexes
were 663 px wide in the 313 px panel, its Armies 1198, signoria's Factions 1008, pf2e's Army units 1315: a table
keeps the columns its ruleset names (``Ruleset.panel_columns``; a table of hexes its place) and says a record's
other fields on a line below it. On a phone (390 px) every table fits too, as it did not before either.

Screenshots go to test-artifacts/ (panel-<table>-<demo>.png, panel-hexes-river-kingdom-<width>.png).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from nb_support import REPO, chromium, gm_sheet

pytestmark = pytest.mark.browser

ARTIFACTS = REPO / "test-artifacts"

TABLES = {
    "river-kingdom": ("Modifiers", "Hexes", "Cities", "Districts", "Buildings", "Foreign", "Relations", "Trade routes",
                      "Armies", "Everything else", "Campaign options"),
    "stolen-lands": ("Stock against storage", "Leaders", "Ruin", "Hexes", "Settlements", "Modifiers", "Used last turn",
                     "Army units", "Abilities", "Everything else", "Campaign options"),
    "felmonte": ("The players this turn", "Factions", "Characters", "Provinces", "Treaties", "Intel", "Believed spies",
                 "Command", "Orders", "Battles", "Everything else", "Campaign options"),
    "aikakirjat-demo": ("Tracks", "Territory", "Feats", "Neighbours", "Institutions", "Provinces", "PCs",
                        "Everything else", "Campaign options"),
}
"""Every section of each demo's panel that holds a table, by its title (its count left off)."""

FIT_JS = r"""() => Array.from(document.querySelectorAll('details.kl-panel-sec')).filter(d => d.querySelector('table'))
  .map(d => { d.open = true; return d; })
  .map(d => { const t = d.querySelector('table'), right = d.getBoundingClientRect().right;
    return {title: d.querySelector('summary').textContent, scroll: t.scrollWidth, client: t.clientWidth,
            cut: Array.from(t.querySelectorAll('th')).filter(th => th.getBoundingClientRect().right > right)
              .map(th => th.textContent)}; })"""
"""Each table of the panel (its section opened): its width against the panel's, and the heads past its edge."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium with its scrollbars shown, as a desktop browser shows them (headless hides them)."""
    with chromium(scrollbars=True) as b:
        yield b


def _fits(demo: str, width: int, browser: Any, tmp_path: Path, env: dict[str, str]) -> list[dict[str, Any]]:
    """The tables of ``demo``'s panel at ``width`` x 900 as ``FIT_JS`` measures them, each screenshotted."""
    with gm_sheet(browser, demo, tmp_path, env, width=width) as page:
        page.evaluate(FIT_JS)
        page.wait_for_timeout(300)  # the sections opened laid out
        fits: list[dict[str, Any]] = page.evaluate(FIT_JS)
        ARTIFACTS.mkdir(exist_ok=True)
        page.set_viewport_size({"width": width, "height": 4000})  # a long section whole in its screenshot
        for fit in fits:
            title = re.sub(r" \(\d+\)$", "", fit["title"])
            sec = page.locator("details.kl-panel-sec", has=page.locator("summary", has_text=title)).first
            sec.scroll_into_view_if_needed()
            suffix = "" if width == 1280 else f"-{width}"
            sec.screenshot(path=str(ARTIFACTS / f"panel-{title.lower().replace(' ', '-')}-{demo}{suffix}.png"))
    return fits


def _wide(fits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [f for f in fits if f["scroll"] > f["client"] or f["cut"]]  # scrolls sideways, or a head is cut


@pytest.mark.parametrize("demo", list(TABLES))
def test_the_panels_tables_fit_at_1280(demo: str, browser: Any, tmp_path: Path,
                                       subprocess_env: dict[str, str]) -> None:
    fits = _fits(demo, 1280, browser, tmp_path, subprocess_env)
    assert [re.sub(r" \(\d+\)$", "", f["title"]) for f in fits] == list(TABLES[demo]), fits
    assert all(f["client"] > 250 for f in fits), fits  # measured in the panel, laid out
    assert _wide(fits) == [], _wide(fits)  # nothing to scroll sideways inside the panel


@pytest.mark.parametrize("demo", list(TABLES))
def test_the_panels_tables_fit_on_a_phone(demo: str, browser: Any, tmp_path: Path,
                                          subprocess_env: dict[str, str]) -> None:
    """At 390 px the panel follows the cards, 317 px wide: every table fits it as well (before, the same tables
    that were too wide at 1280 were too wide here: Armies 1198 px, Factions 1008)."""
    fits = _fits(demo, 390, browser, tmp_path, subprocess_env)
    assert [re.sub(r" \(\d+\)$", "", f["title"]) for f in fits] == list(TABLES[demo]), fits
    assert _wide(fits) == [], _wide(fits)


HEX_LINES_JS = r"""() => {
  const out = [];
  for (const t of document.querySelectorAll('details.kl-panel-sec table.kl-panel-table')) {
    const heads = Array.from(t.querySelectorAll('thead th')).map(th => th.textContent);
    const i = heads.indexOf('Hex');
    if (i < 0) continue;
    for (const tr of t.querySelectorAll('tbody tr:not(.kl-below)')) {  // a hex's row, not the line below it
      const td = tr.children[i], r = document.createRange();
      r.selectNodeContents(td);
      const tops = new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top)));
      out.push([td.textContent, tops.size]);
    }
  }
  return out; }"""


@pytest.mark.parametrize("width", [1280, 390])
def test_a_hex_in_the_panel_reads_on_one_line(width: int, browser: Any, tmp_path: Path,
                                              subprocess_env: dict[str, str]) -> None:
    """pf1's Hexes (and a city's, a district's Hex) column kept "hex 0" on one line: it wrapped "hex / 0"."""
    with gm_sheet(browser, "river-kingdom", tmp_path, subprocess_env, width=width) as page:
        sec = page.locator("details.kl-panel-sec", has=page.locator("summary", has_text="Hexes")).first
        sec.evaluate("d => { d.open = true; }")
        page.wait_for_timeout(300)
        lines = page.evaluate(HEX_LINES_JS)
        sec.scroll_into_view_if_needed()
        ARTIFACTS.mkdir(exist_ok=True)
        sec.screenshot(path=str(ARTIFACTS / f"panel-hexes-river-kingdom-{width}.png"))
    assert len(lines) > 10 and ["hex 0", 1] in lines, lines
    assert all(n == 1 for _, n in lines), [x for x in lines if x[1] != 1]
