"""The GM sheet's side panel at 1280 px, in a real browser that shows its scrollbars as a desktop browser does
(Playwright's headless chromium hides them unless asked): the Modifiers table fits the panel, nothing of it cut at
the panel's right edge (pf1's read "Cit…" and scrolled inside the panel), and so does a table of hexes (pf1's was
663 px wide in the 313 px panel, its "Explored" cut and eight columns past it: a hex's columns after its place are
said on a line below it).

Screenshots go to test-artifacts/ (panel-modifiers-*.png, panel-hexes-*.png).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from nb_support import REPO, chromium, gm_sheet

pytestmark = pytest.mark.browser

ARTIFACTS = REPO / "test-artifacts"

FIT_JS = r"""(title) => {
  const sec = Array.from(document.querySelectorAll('details.kl-panel-sec'))
    .find(d => d.querySelector('summary').textContent.startsWith(title));
  const t = sec.querySelector('table');
  return {scroll: t.scrollWidth, client: t.clientWidth, heads: Array.from(t.querySelectorAll('th'))
    .map(th => [th.textContent, th.getBoundingClientRect().right <= sec.getBoundingClientRect().right])}; }"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium with its scrollbars shown, as a desktop browser shows them (headless hides them)."""
    with chromium(scrollbars=True) as b:
        yield b


@pytest.mark.parametrize(("demo", "table"), [("river-kingdom", "Modifiers"), ("stolen-lands", "Modifiers"),
                                             ("river-kingdom", "Hexes"), ("stolen-lands", "Hexes")])
def test_the_panels_tables_fit_at_1280(demo: str, table: str, browser: Any, tmp_path: Path,
                                       subprocess_env: dict[str, str]) -> None:
    with gm_sheet(browser, demo, tmp_path, subprocess_env) as page:
        fit = page.evaluate(FIT_JS, table)
        sec = page.locator("details.kl-panel-sec", has=page.locator("summary", has_text=table)).first
        sec.scroll_into_view_if_needed()
        ARTIFACTS.mkdir(exist_ok=True)
        sec.screenshot(path=str(ARTIFACTS / f"panel-{table.lower()}-{demo}.png"))
    assert fit["scroll"] <= fit["client"], fit  # nothing to scroll sideways inside the panel
    assert all(inside for _, inside in fit["heads"]), fit


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
