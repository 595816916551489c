"""A settlement's name on the hex map hides no other hex's marks (words-nits2): on river-kingdom's map "Tatzlford"
sat across the bottom corner of its hex, over the numbers of hexes 4 and 2 below it; it now sits inside its hex,
under its symbol and works, smaller, with its white halo (a long name on two lines). Measured in a real browser
(the text's boxes as drawn), on the GM's map and a player's (public) map, and on pf2e's stolen-lands, drawn by the
same code (signoria's felmonte draws regions, ``region_map_svg``, not hexes).

Screenshots go to test-artifacts/ (map-labels-*.png, at 1280 and 390 px).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from nb_support import REPO

from kingdomlog.app import Campaign
from kingdomlog.views.player import maps

pytestmark = pytest.mark.browser

ARTIFACTS = REPO / "test-artifacts"

# each <text>'s drawn box, in the drawing's own units (the same at any page width): its words, whether a name's line
BOXES_JS = r"""(names) => {
  const svg = document.querySelector('svg');
  const box = e => { const b = e.getBBox(); return [b.x, b.y, b.x + b.width, b.y + b.height]; };
  return Array.from(svg.querySelectorAll('text')).map(t => [t.textContent, names.includes(t.textContent), box(t)]);
}"""



def overlaps(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize(("demo", "who"), [("river-kingdom", "gm"), ("river-kingdom", "public"),
                                           ("stolen-lands", "gm")])
def test_a_settlements_name_hides_no_other_hexs_mark(demo: str, who: str, browser: Any, tmp_path: Path) -> None:
    folder = tmp_path / demo
    shutil.copytree(REPO / "campaigns" / demo, folder, ignore=shutil.ignore_patterns(".cache", "drafts", "table"))
    camp = Campaign.open(folder)
    viewer = camp.viewer(who)
    m = camp.ruleset.map(camp.state(viewer=viewer), viewer)
    assert m is not None and m.placed_hexes()
    svg = str(maps.hex_map_svg(m, standalone=True))
    names = sorted({line for hx in m.placed_hexes() if hx.settlement and hx.explored
                    for line in maps.name_lines(hx.settlement)})
    marks = {hx.mark for hx in m.placed_hexes()}
    texts: list[Any] = []
    for width in (1280, 390):
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.set_content(f"<html><body style='margin:0'><div style='width:100%'>{svg}</div></body></html>")
        page.evaluate("() => { const s = document.querySelector('svg'); s.style.width = '100%'; "
                      "s.style.height = 'auto'; }")
        if width == 1280:
            texts = page.evaluate(BOXES_JS, names)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"map-labels-{demo}-{who}-{width}.png"), full_page=True)
        page.close()
    labels = [(t, b) for t, is_name, b in texts if is_name]
    others = [(t, b) for t, is_name, b in texts if not is_name and t in marks]
    if demo == "river-kingdom":
        assert "Tatzlford" in [t for t, _ in labels] and {"4", "2"} <= {t for t, _ in others}, texts
    hidden = [(t, o) for t, b in labels for o, ob in others if overlaps(b, ob)]
    assert labels and not hidden, hidden
