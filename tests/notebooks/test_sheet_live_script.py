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
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from nb_support import make_toy_campaign

from kingdomlog.views.html import Html
from kingdomlog.views.sheet import commit as sheet_commit
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


@contextmanager
def drawn_by_the_new_model(chromium: Any) -> Iterator[Any]:
    """A page of ``PAGE`` with the script's view of the new model rendered into it, once its first frame has
    written the new drawing (the page's plan is the new one) and the card below the window is mounted; closed
    after."""
    page = chromium.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.set_content(PAGE)
        page.evaluate(HARNESS, sheet_live.ESM)
        page.evaluate("() => { window.__kl.render({ model: window.__kl.models.new,"
                      " el: document.getElementById('el-new') }); }")
        page.wait_for_function("() => document.querySelector('.kl-page').dataset.plan === 'new-plan'"
                               " && !document.querySelector('.kl-page').hasAttribute('data-kl-later')")
        yield page
    finally:
        page.close()


NEW = {"s1": '<i class="w">new widgets 1</i>', "s2": '<i class="w">new widgets 2</i>', "result": "new result",
       "status": "new status", "card": "new-card", "plan": "new-plan", "later": False}


@pytest.mark.browser
def test_the_view_of_the_drawing_before_never_writes_into_the_new_page(chromium: Any) -> None:
    with drawn_by_the_new_model(chromium) as page:
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


COMMITTING_PAGE = """<!doctype html><html><body>
<div id="bar"></div>
<div class="kl-cards">
  <input id="text" value="before"><input id="tick" type="checkbox">
  <select id="pick"><option>a</option><option>b</option></select>
  <button id="act" data-kl-act="roll" onclick="window.__hits = (window.__hits || 0) + 1">Roll</button>
</div>
</body></html>"""

COMMIT_HARNESS = """async (esm) => {
  const mod = await import(URL.createObjectURL(new Blob([esm], { type: "text/javascript" })));
  const data = { draft: "19@475", label: "Commit month 19", tooltip: "", disabled: false, click: {}, answered: "" };
  const on = {};
  const model = { get: (k) => data[k], on: (e, f) => { (on[e] = on[e] || []).push(f); }, off: () => {},
                  set: (k, v) => { data[k] = v; (on["change:" + k] || []).forEach((f) => f()); }, save_changes() {} };
  mod.default.render({ model, el: document.getElementById("bar") });
  window.__kl = { model };
}"""


def tried(page: Any) -> dict[str, Any]:
    """The GM types into a box, ticks a box, picks an option and presses a dice button on the cards."""
    page.focus("#text")
    page.keyboard.type("xyz")
    page.click("#tick")
    page.click("#act")
    page.focus("#pick")
    page.keyboard.press("ArrowDown")
    return page.evaluate("""() => ({ text: document.getElementById('text').value,
        tick: document.getElementById('tick').checked, pick: document.getElementById('pick').value,
        hits: window.__hits || 0, inert: !!document.querySelector('.kl-cards[inert]'),
        committing: document.documentElement.hasAttribute('data-kl-committing') })""")


@pytest.mark.browser
def test_while_a_commit_is_written_the_cards_take_no_input_without_being_made_inert(chromium: Any) -> None:
    """A click on Commit stops every input on the cards until the kernel answers (what the GM did then would be for
    the month being committed, and lost), without ``inert`` on the cards: that attribute restyled the whole page's
    elements at the click (the sheet's fifth pass in benchmarks/README.md). Answered, the cards take input again."""
    page = chromium.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.set_content(COMMITTING_PAGE)
        page.evaluate(COMMIT_HARNESS, sheet_commit.ESM)
        page.click("button.klc-commit")
        assert page.inner_text("button.klc-commit") == "↻ Committing…"
        assert tried(page) == {"text": "before", "tick": False, "pick": "a", "hits": 0, "inert": False,
                               "committing": True}
        page.evaluate("() => window.__kl.model.set('answered', window.__kl.model.get('click').n)")
        assert tried(page) == {"text": "xyzbefore", "tick": True, "pick": "b", "hits": 1, "inert": False,
                               "committing": False}
    finally:
        page.close()


@pytest.mark.browser
def test_the_widgets_before_below_the_window_are_hidden_without_a_style_pass_over_them(chromium: Any) -> None:
    """The month before's widgets below the window wait for the page's next frame to be patched: meanwhile they are
    transparent and take no input (``data-kl-stale``), not ``inert`` and ``visibility: hidden`` (inherited: a style
    pass over every widget inside, at each commit). Patched, they are shown and take input again."""
    with drawn_by_the_new_model(chromium) as page:
        got = page.evaluate("""() => new Promise((done) => {
            const s2 = document.querySelector('[data-kl-left="s2"]');
            const seen = [];
            new MutationObserver((rs) => rs.forEach((r) => seen.push([r.attributeName,
                s2.getAttribute(r.attributeName), s2.style.opacity]))).observe(s2, { attributes: true });
            let clicked = 0;
            s2.addEventListener('click', () => { clicked += 1; });
            window.__kl.models.new.set('lefts', { s1: '<i class="w">next 1</i>', s2: '<i class="w">next 2</i>' });
            const w = s2.querySelector('i');
            w.click();  // the month before's widget, before it is patched: stopped
            const during = { stale: s2.hasAttribute('data-kl-stale'), opacity: s2.style.opacity, clicked,
                             html: s2.innerHTML };
            requestAnimationFrame(() => setTimeout(() => setTimeout(() => {
                s2.querySelector('i').click();
                done({ seen, during, after: { stale: s2.hasAttribute('data-kl-stale'), opacity: s2.style.opacity,
                                              inert: s2.hasAttribute('inert'), html: s2.innerHTML, clicked } });
            }, 0), 0));
        })""")
        assert got["during"] == {"stale": True, "opacity": "0", "clicked": 0, "html": '<i class="w">new widgets 2</i>'}
        assert got["after"] == {"stale": False, "opacity": "", "inert": False, "html": '<i class="w">next 2</i>',
                                "clicked": 1}
        assert all(name not in ("inert", "style") or opacity in ("0", "") for name, _v, opacity in got["seen"])
        assert "inert" not in [name for name, _v, _o in got["seen"]]


SPLIT_HARNESS = """async ([esm, lefts]) => {
  const mod = await import(URL.createObjectURL(new Blob([esm], { type: "text/javascript" })));
  const on = {};
  const data = { token: "new", busy: "", slots: {}, attrs: { page: { "data-plan": "split-plan" } }, lefts,
                 rest: {}, more: true };
  const model = { get: (k) => data[k], on: (e, f) => { (on[e] = on[e] || []).push(f); }, off: () => {},
                  set: (k, v) => { data[k] = v; (on["change:" + k] || []).forEach((f) => f()); }, save_changes() {} };
  mod.default.render({ model, el: document.getElementById("el-new") });
  window.__kl = { model };
}"""

SETTLE = "() => new Promise((r) => requestAnimationFrame(() => setTimeout(() => setTimeout(r, 50), 0)))"


def split_page(chromium: Any, lefts: dict[str, str]) -> Any:
    page = chromium.new_page(viewport={"width": 1280, "height": 720})
    page.set_content(PAGE)
    page.evaluate(SPLIT_HARNESS, [sheet_live.ESM, lefts])
    page.evaluate(SETTLE)
    return page


@pytest.mark.browser
def test_the_cards_after_the_first_wait_for_their_widgets_and_the_page_is_drawn_once_those_in_view_have_them(
        chromium: Any) -> None:
    """``page(first=...)`` sends the first cards' widgets with the page and ``rest`` the others just after (``more``
    until then). A card below the window still to come: the page is drawn (``data-plan``) but stays
    ``data-kl-later`` until its widgets have come and are mounted. A card in the window still to come: the page is
    not drawn until they have."""
    page = split_page(chromium, {"s1": '<i class="w">widgets 1</i>'})
    try:
        got = shown(page)
        assert (got["s1"], got["s2"], got["plan"], got["later"]) == ('<i class="w">widgets 1</i>', "", "split-plan",
                                                                     True)
        page.evaluate("""() => { const m = window.__kl.model;
            m.set('rest', { s2: '<i class="w">widgets 2</i>' }); m.set('more', false); }""")
        page.wait_for_function("() => !document.querySelector('.kl-page').hasAttribute('data-kl-later')")
        got = shown(page)
        assert (got["s1"], got["s2"], got["plan"]) == ('<i class="w">widgets 1</i>', '<i class="w">widgets 2</i>',
                                                       "split-plan")
    finally:
        page.close()
    page = split_page(chromium, {"s2": '<i class="w">widgets 2</i>'})  # the card in the window is the one to come
    try:
        got = shown(page)
        assert (got["s1"], got["plan"], got["later"]) == ("", "", True)
        page.evaluate("""() => { const m = window.__kl.model;
            m.set('rest', { s1: '<i class="w">widgets 1</i>' }); m.set('more', false); }""")
        page.wait_for_function("() => document.querySelector('.kl-page').dataset.plan === 'split-plan'"
                               " && !document.querySelector('.kl-page').hasAttribute('data-kl-later')")
        got = shown(page)
        assert (got["s1"], got["s2"]) == ('<i class="w">widgets 1</i>', '<i class="w">widgets 2</i>')
    finally:
        page.close()


def test_the_page_sends_its_first_cards_widgets_and_rest_the_others_once(tmp_path: Path) -> None:
    """``page(first=1)``: the first card's left side goes with the page, ``rest`` sends every other card's once
    (the same HTML a page sent whole holds), and nothing for a drawing it was not made for."""
    folder = make_toy_campaign(tmp_path / "farm")
    s, _ = sheet.open_session(folder)
    assert s is not None and s.draft is not None
    cards = [c.id for c in s.draft.cards]
    assert len(cards) > 1
    whole = sheet_live.live_parts(s, s.widgets())
    sheet_live.page(whole, s, SimpleNamespace(text=""), SimpleNamespace(text=""), Html(""))
    assert set(whole.widget.lefts) == set(cards) and not whole.widget.more and s.lefts_to_come is None
    every = dict(whole.widget.lefts)
    live = sheet_live.live_parts(s, whole.widget.forms)
    drawn = str(sheet_live.page(live, s, SimpleNamespace(text=""), SimpleNamespace(text=""), Html(""), first=1))
    assert list(live.widget.lefts) == cards[:1] and live.widget.more and live.widget.rest == {}
    assert all(f'data-kl-left="{c}"></div>' in drawn for c in cards)  # every holder, empty
    sheet_live.rest(whole, s)  # another drawing's parts: nothing
    assert live.widget.more and live.widget.rest == {}
    sheet_live.rest(live, s)
    assert not live.widget.more and set(live.widget.rest) == set(cards[1:])
    assert {**live.widget.lefts, **live.widget.rest} == every
    sheet_live.rest(live, s)  # once
    assert s.lefts_to_come is None
