"""The live parts' script (views.sheet.live.ESM) writes only into the drawing its model belongs to.

marimo draws the next drawing of the sheet (widgets rebuilt, the next month) in place of the last; the last one's
view may still run once more (a frame it had queued, a change that arrives late). Before, the script filled every
``[data-kl-left]`` / ``[data-kl-slot]`` of the document from whichever model ran last: the stale view put the widgets
of the drawing before into the new page's cards, for good (the new view's watcher ignores what happens inside a
card's left side). Seen in CI: the signoria war board's card showed its form from before the battle was declared,
without its "+ add" select (``test_a_signoria_battle_declared_on_the_board_and_answered_from_the_defenders_page``).

Here the script runs in chromium against a page drawn by hand and two stand-in models, the old and the new.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from nb_support import make_toy_campaign

from kingdomlog.views.html import Html
from kingdomlog.views.sheet import draft as sheet
from kingdomlog.views.sheet import live as sheet_live

CHROMIUM = Path("/usr/bin/chromium")

PAGE = """<!doctype html><html><body>
<div class="kl-drawing" data-kl-live="new" style="display: contents">
  <div class="kl-commitbar"><span data-kl-slot="status"></span></div>
  <div class="kl-page" data-kl-at="page" data-plan="">
    <section data-card="s1" data-kl-at="card:s1"><div class="kl-left" data-kl-left="s1"></div>
      <div data-kl-slot="res:s1"></div></section>
    <div style="height: 3000px"></div>
    <section data-card="s2" data-kl-at="card:s2"><div class="kl-left" data-kl-left="s2"></div></section>
  </div>
</div>
<div id="el-new"></div><div id="el-old"></div>
</body></html>"""

HARNESS = """async (esm) => {
  const mod = await import(URL.createObjectURL(new Blob([esm], { type: "text/javascript" })));
  const model = (data) => {
    const on = {};
    return { get: (k) => data[k], on: (e, f) => { (on[e] = on[e] || []).push(f); }, off: () => {},
             set: (k, v) => { data[k] = v; (on["change:" + k] || []).forEach((f) => f()); }, save_changes() {} };
  };
  const parts = (who) => ({ token: who, busy: "", slots: { status: `${who} status`, "res:s1": `${who} result` },
    attrs: { page: { "data-plan": `${who}-plan` }, "card:s1": { class: `${who}-card` } },
    lefts: { s1: `<i class="w">${who} widgets 1</i>`, s2: `<i class="w">${who} widgets 2</i>` } });
  window.__kl = { render: mod.default.render, models: { new: model(parts("new")), old: model(parts("old")) } };
}"""


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.fail("Debian chromium is missing: .ci/run installs it (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--headless", "--disable-gpu"])
        yield b
        b.close()


def shown(page: Any) -> dict[str, Any]:
    return page.evaluate("""() => ({
        s1: document.querySelector('[data-kl-left="s1"]').innerHTML,
        s2: document.querySelector('[data-kl-left="s2"]').innerHTML,
        result: document.querySelector('[data-kl-slot="res:s1"]').innerHTML,
        status: document.querySelector('[data-kl-slot="status"]').innerHTML,
        card: document.querySelector('[data-card="s1"]').className,
        plan: document.querySelector('.kl-page').dataset.plan,
        later: document.querySelector('.kl-page').hasAttribute('data-kl-later') })""")


NEW = {"s1": '<i class="w">new widgets 1</i>', "s2": '<i class="w">new widgets 2</i>', "result": "new result",
       "status": "new status", "card": "new-card", "plan": "new-plan", "later": False}


@pytest.mark.browser
def test_the_view_of_the_drawing_before_never_writes_into_the_new_page(chromium: Any) -> None:
    page = chromium.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.set_content(PAGE)
        page.evaluate(HARNESS, sheet_live.ESM)
        page.evaluate("() => { window.__kl.stopNew = window.__kl.render("
                      "{ model: window.__kl.models.new, el: document.getElementById('el-new') }); }")
        page.wait_for_function("() => document.querySelector('.kl-page').dataset.plan === 'new-plan'"
                               " && !document.querySelector('.kl-page').hasAttribute('data-kl-later')")
        assert shown(page) == NEW  # the card below the window mounted after the first frame
        # the old drawing's view runs once more (as a frame it had queued does), and a late change reaches it
        page.evaluate("""() => { const old = window.__kl.models.old;
            window.__kl.render({ model: old, el: document.getElementById('el-old') });
            old.set('lefts', { s1: '<b>old again</b>', s2: '<b>old again</b>' }); }""")
        page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame("
                      "() => setTimeout(r, 50))))")
        assert shown(page) == NEW
        # the new drawing's own changes still land
        page.evaluate("() => window.__kl.models.new.set('slots', { status: 'new status 2', 'res:s1': 'new result 2' })")
        got = shown(page)
        assert (got["status"], got["result"]) == ("new status 2", "new result 2")
    finally:
        page.close()


def test_each_drawing_is_marked_with_its_own_models_token(tmp_path: Path) -> None:
    folder = make_toy_campaign(tmp_path / "farm")
    s, _ = sheet.open_session(folder)
    assert s is not None and s.draft is not None
    first = sheet_live.live_parts(s, s.widgets())
    drawn = str(sheet_live.page(first, s, SimpleNamespace(text=""), SimpleNamespace(text=""), Html("")))
    token = first.widget.token
    assert len(token) == 32 and f'data-kl-live="{token}"' in drawn
    assert drawn.index(f'data-kl-live="{token}"') < drawn.index('data-kl-slot="status"') \
        < drawn.index('class="kl-page"') < drawn.index("data-kl-left=")
    second = sheet_live.live_parts(s, s.widgets())
    assert second.widget.token != token
