"""Every dropdown a person uses shows its choice whole, at a desk's 1280 px and a phone's 390 px: no chosen option
and no option a person can pick is cut at the control's edge.

Each demo is served as the table serves it (``kingdomlog serve``) on a copy whose GM has a draft that reached the
players' part (every die drawn, ``gm_draft``), and its pages are opened in one browser: the first player's page
(a seat's table page, or a faction's orders sheet), the GM's pages of the ruleset's extras (aikakirjat's session
planner), the GM sheet, the public view. A player's page is measured before the GM sheet opens (the sheet takes
the draft on as the GM's own, and the table then waits for the GM's roll again). Each page is measured at 1280
px, then at 390 (the viewport resized, the measures read until they stay the same).

For every visible control:

- a native ``<select>`` (``mo.ui.dropdown``): a copy of it holding one option, its width left to the option
  (``width: auto``: a select is as wide as its widest option, with its padding and arrow), is no wider than the
  select. Measured for the option shown now and for each option a person can pick (not the disabled ones);
- a marimo multiselect (``mo.ui.multiselect``): the box holds each pick as a chip; every line of its text lies
  inside the box and inside whatever clips it (its ``truncate`` span). Measured for the picks shown now and, in a
  hidden copy of the box as wide as it, for each option picked alone.

Then, on each GM sheet at 390 px, an entry is added through every "+ ..." add dropdown of its cards (``ADDED``: its
first option, then, where the dropdown has four or more, its third: another kind of effect, another building, army
or hex), the sheets taken in turn, each waited for until its kernel is idle (``nb_support.Kernel``); every folded
``details`` is opened, and the sheet is measured again at 390 and at 1280 px: the controls of the entries added and
of the folds opened too.

Not measured: a control that shows only after another press (an entry's own add, a field a pick inside an entry
brings), a player's report (the public view's page for one viewer: no dropdown) and the other players' pages (the
same notebook as the first's).

Found on 943dfe9 (at 1280 px the GM sheet's dropdowns were 309 px wide, 335 at 390): aikakirjat's "Neighbour for
result 10" cut "Kalevala — diplomacy -3, population 0, independent" (318 px); a player's Action "Reduce Unrest — the
PC's Persuasion or Intimidation (§3.10.7)" (368 in 329 on a phone); pf2e's Activity on a player's page "Deliberate
Planning — agriculture, arts, …" (1361 px in 686 at 1280), its events ("Discover Desperate Spies — modifier +3;
defense, intrigue; continuous", 412), its hexes ("A2 — forest, claimed, resource, work site, lumber work site", 384
in the hex picker's 14 px font); pf1's Government ("Secret syndicate — corruption +1, crime +1, law -3, productivity
+1", 393), its events ("…; if the chance (75%) comes up", up to 450), its event tables (517), its hexes ("hex 10
(grassland) — claimed; Oleg's Trading Post; town (Oleg's Trading Post)", 493); signoria's orders' Action on a phone
("turn a neutral against a rival — resolved in the diplomacy phase", 380 in 354); and every multiselect cut its pick
on one line of monospace (pf1's "Hexes explored": the same hex 10, 505 px in a 309 px box).

Found on 2d83977 in the entries added (346 px wide on a phone, 337 for a field beside another): pf2e's Skill of an
event or an activity named it by its id ("Agriculture — stability, trained, +6; not a skill of archaeological-find",
405 px; "not a skill of garrison"), its branch "RP +1 Resource Die; Crime (Ruin) + the same amount — on a critical
failure" (438); pf1's building Type ("Black Market — 50 BP, 1 lot(s); Economy +2, Stability +1, Unrest +1; next to
2 house(s)", 496), an army's resources ("Healing Potions — 10 BP (Medium; scaled by size), Consumption +0/week;
needs Alchemist or Caster's Tower or ...", 1003), the armies ("Tatzlford Guard — Large ACR 3: hp 16/16, OM +4, DV
13, Morale +0, active, led by Amiri; kingdom", 558), hex improvements ("Aqueduct — 1 BP; on grassland, hills,
forest, marsh, mountains; loyalty +1, stability +1", 498), a district's hex, the Roles ("Spymaster — DEX/INT →
chosen attribute(s); held by Nok-Nok", 371), the buildings of a dedication and of magic items; signoria's battle
Option ("joins the battle — +2d6 (a leader +3d6) this round, to the main group or an attacking reserve (§5.5)",
566), its Target ("✗ Lorenzo — Lorenzo is not the leader of Duke Fabian's army: an epic duel targets the enemy
leader (§5.6)", 608) and Character; aikakirjat's "Reduce Unrest — a PC's Persuasion or Intimidation (§3.10.7)"
(356 in 346).
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from nb_support import DRAWN, REPO, Kernel, Server, chromium, free_port, ticking_cells

from kingdomlog.app import Campaign
from kingdomlog.app.drafts import Drafts, SavedDraft
from kingdomlog.core.turn import Plan
from kingdomlog.server import COOKIE, Credentials
from kingdomlog.server import pages as table_pages

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DEMOS = ("aikakirjat-demo", "felmonte", "river-kingdom", "stolen-lands")
WIDTHS = (1280, 390)

MEASURE_JS = r"""() => {
  const selects = [], multis = [];
  const walk = (root) => {
    for (const e of root.querySelectorAll('select')) selects.push(e);
    for (const e of root.querySelectorAll('marimo-multiselect')) multis.push(e);
    for (const e of root.querySelectorAll('*')) if (e.shadowRoot) walk(e.shadowRoot);
  };
  walk(document);
  const shown = (e) => { const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && e.checkVisibility({visibilityProperty: true}); };
  const words = (html) => {
    const d = document.createElement('div'); d.innerHTML = html || ''; return d.textContent.trim(); };
  const labelOf = (host, fallback) => {
    try { return words(JSON.parse(host.dataset.label || '""')) || fallback; } catch (_) { return fallback; } };
  const where = (host) => { const c = host.closest('[data-card]'); return c ? c.dataset.card : ''; };
  const out = [];

  for (const s of selects) {
    if (!shown(s)) continue;
    const width = s.getBoundingClientRect().width;
    const need = (text) => {  // the width a select needs to show ``text`` whole: a copy holding only it, its own width
      const c = s.cloneNode(false);
      const o = document.createElement('option'); o.text = text; c.appendChild(o);
      c.removeAttribute('id');
      for (const [k, v] of [['position', 'absolute'], ['visibility', 'hidden'], ['left', '0'], ['top', '0'],
                            ['width', 'auto'], ['min-width', '0'], ['max-width', 'none']])
        c.style.setProperty(k, v, 'important');
      s.parentNode.insertBefore(c, s);
      const w = c.getBoundingClientRect().width; c.remove(); return w; };
    const host = s.getRootNode().host;
    const label = host ? labelOf(host, '') : (s.labels && s.labels[0] ? s.labels[0].textContent.trim() : '');
    const now = s.selectedIndex >= 0 ? s.options[s.selectedIndex].text : '';
    const picks = Array.from(s.options).filter(o => !o.disabled && o.text !== '--').map(o => o.text);
    out.push({kind: 'select', label, card: where(host || s), width: Math.round(width),
              now: [now, Math.round(need(now))],
              picks: picks.map(t => [t, Math.round(need(t))]).filter(([, w]) => w > width + 0.5)});
  }

  const cutIn = (box) => {  // whether a line of text inside ``box`` lies outside it, or outside what clips it there
    const b = box.getBoundingClientRect();
    const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (!n.textContent.trim()) continue;
      let [l, r, t, bo] = [b.left, b.right, b.top, b.bottom];
      for (let e = n.parentElement; e && e !== box; e = e.parentElement) {
        const cs = getComputedStyle(e), x = e.getBoundingClientRect();
        if (cs.overflowX !== 'visible') { l = Math.max(l, x.left); r = Math.min(r, x.right); }
        if (cs.overflowY !== 'visible') { t = Math.max(t, x.top); bo = Math.min(bo, x.bottom); }
      }
      const range = document.createRange(); range.selectNodeContents(n);
      for (const q of range.getClientRects())
        if (q.left < l - 0.5 || q.right > r + 0.5 || q.top < t - 0.5 || q.bottom > bo + 0.5) return true;
    }
    return false; };
  // what marimo's multiselect puts in its box for one pick (a template when none is picked now)
  const CHIP = '<span class="inline-flex items-center gap-1"><span class="inline-flex items-center"><span class="' +
    'inline-flex items-center rounded-sm bg-muted/50 px-1 font-mono text-xs font-normal leading-tight ' +
    'text-foreground"></span></span></span>';

  for (const m of multis) {
    if (!m.shadowRoot) continue;  // its host is display: contents (no box of its own): its button is measured
    const button = m.shadowRoot.querySelector('button[aria-haspopup]');
    if (!button || !shown(button)) continue;
    const content = button.querySelector('span.truncate');
    const width = button.getBoundingClientRect().width;
    const holder = content && content.querySelector('span span') ? content.innerHTML : CHIP;
    const copy = button.cloneNode(true);
    copy.removeAttribute('id');
    for (const [k, v] of [['position', 'absolute'], ['visibility', 'hidden'], ['left', '0'], ['top', '0'],
                          ['width', width + 'px']]) copy.style.setProperty(k, v, 'important');
    button.parentNode.insertBefore(copy, button);
    const slot = copy.querySelector('span.truncate');
    let options = [];
    try { options = JSON.parse(m.dataset.options || '[]'); } catch (_) { options = []; }
    const cut = [];
    for (const text of options) {
      slot.innerHTML = holder;  // one chip: the last one's line of spans, its siblings at every level removed
      const leaves = Array.from(slot.querySelectorAll('span')).filter(e => !e.firstElementChild);
      const chip = leaves[leaves.length - 1] || slot;
      for (let e = chip; e !== slot; e = e.parentElement)
        for (const other of Array.from(e.parentElement.children)) if (other !== e) other.remove();
      chip.textContent = text;
      if (cutIn(copy)) cut.push([text, Math.round(chip.getBoundingClientRect().width)]);
    }
    copy.remove();
    out.push({kind: 'multiselect', label: labelOf(m, ''), card: where(m.closest('marimo-ui-element') || m),
              width: Math.round(width), now: [content ? content.textContent : '', cutIn(button) ? 1 : 0],
              picks: cut});
  }
  return out;
}"""
"""Every visible dropdown and multiselect of the page (in its widgets' shadow roots too), what it shows now and
what it would show for each pick: ``now`` the text shown and (a select) the width it needs or (a multiselect) 1
if it is cut; ``picks`` the options a person can pick that would be cut, with the width they need."""


def now_cut(c: dict[str, Any]) -> bool:
    """Whether the control ``c`` (``MEASURE_JS``) cuts the choice it shows now."""
    return bool(c["now"][1] > c["width"] if c["kind"] == "select" else c["now"][1])


def cut(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The controls of ``found`` (``MEASURE_JS``) that cut the choice shown now or an option a person can pick."""
    return [c for c in found if now_cut(c) or c["picks"]]


def gm_draft(folder: Path) -> None:
    """The GM's draft of the next turn, every die drawn: the month reaches the players' part (their forms open)."""
    camp = Campaign.open(folder)
    Drafts(folder).save(SavedDraft(camp.next_turn(), camp.head_seq,
                                   Plan(dice="auto", seed="gm-seed", turn=camp.next_turn())))


READY = {
    "turn_sheet": DRAWN,
    "table_page": "h2:has-text('The table'), h1:has-text('The table')",
    "orders_sheet": "text=Your orders",
    "session": "text=The session, year by year",
    "kingdom_view": "#chronicle, h2:has-text('Chronicle')",
}
"""What shows once each notebook's page is drawn."""


SHAPE_JS = r"""() => {
  const out = [];
  const walk = (root) => {
    for (const e of root.querySelectorAll('select, button[aria-haspopup]')) {
      const r = e.getBoundingClientRect();
      out.push([e.tagName, Math.round(r.left), Math.round(r.width), Math.round(r.height), e.textContent.length]);
    }
    for (const e of root.querySelectorAll('*')) if (e.shadowRoot) walk(e.shadowRoot);
  };
  walk(document);
  return out;
}"""
"""Where each control of the page is and how big, and how much text it holds: the same while its layout stands."""


def steady(page: Any, *, still_ms: int = 450, timeout_ms: int = 20_000) -> list[dict[str, Any]]:
    """The page's controls (``MEASURE_JS``) once its layout has settled: ``SHAPE_JS`` the same over ``still_ms``
    (read every 150 ms), then the same again after the measures (which take a second on a GM sheet)."""
    for _ in range(3):
        last, same, waited = None, 0, 0
        while True:
            now = page.evaluate(SHAPE_JS)
            same = same + 150 if now == last else 0
            if same >= still_ms:
                break
            if waited >= timeout_ms:
                pytest.fail(f"the controls of {page.url} did not settle in {timeout_ms} ms")
            last = now
            page.wait_for_timeout(150)
            waited += 150
        found = list(page.evaluate(MEASURE_JS))
        if page.evaluate(SHAPE_JS) == now:
            return found
    pytest.fail(f"the controls of {page.url} kept moving while they were measured")


class Demo:
    """A copy of the bundled demo ``name`` with the GM's draft (``gm_draft``), served by ``kingdomlog serve``; the
    pages of it this test opens (see the module's docstring): ``first`` the players' and the GM's extras, ``then``
    the GM sheet."""

    def __init__(self, name: str, tmp: Path, env: dict[str, str]) -> None:
        self.name = name
        folder = tmp / name
        shutil.copytree(REPO / "campaigns" / name, folder, ignore=shutil.ignore_patterns(".cache", "drafts", "table"))
        gm_draft(folder)
        camp = Campaign.open(folder)
        self.keys = Credentials.load(folder).issue(["gm", *camp.players(), "public"])
        every = [p for p in table_pages(folder, camp) if not p.path.endswith("/report")]  # a report: as /public
        players = [p for p in every if p.notebook in ("table_page", "orders_sheet")]
        self.first = [*players[:1], *(p for p in every if p.path.startswith("/gm-") or p.path == "/public")]
        self.then = [p for p in every if p.path == "/gm"]
        self.server = Server([sys.executable, "-m", "kingdomlog", "serve", str(folder), "--port", str(free_port())],
                             env=env, ready=r"Serving on (http://\S+?)/?\s")
        self.found: dict[str, dict[int, list[dict[str, Any]]]] = {}
        self.added: dict[str, list[str]] = {}
        """What each pass of ``ADDED`` added on the GM sheet (the add dropdown and the option picked)."""


ADD_JS = r"""([done, k]) => {
  const all = [];
  const walk = (root) => {
    for (const s of root.querySelectorAll('select')) all.push(s);
    for (const e of root.querySelectorAll('*')) if (e.shadowRoot) walk(e.shadowRoot);
  };
  walk(document);
  for (const s of all) {
    const host = s.getRootNode().host;
    let label = '';
    try { label = host ? String(JSON.parse(host.dataset.label || '""') || '') : ''; } catch (_) { label = ''; }
    label = label.replace(/<[^>]+>/g, '').replace(/^\\/, '').trim();
    const c = (host || s).closest('[data-card]');
    const key = (c ? c.dataset.card : '') + ' ' + label;
    if (!label.startsWith('+') || done.includes(key) || s.options.length <= k) continue;
    const i = k;
    s.selectedIndex = i;
    s.dispatchEvent(new Event('change', {bubbles: true}));
    return [key, s.options[i].text];
  }
  return null;
}"""
"""Picks option ``k`` of the first "+ ..." add dropdown of the page whose card and label are not in ``done`` (and
that has it): the card adds an entry of that kind. Returns ``[card and label, the option picked]``, or null when every
add dropdown is done. One evaluation finds and picks it (the page may be drawn again between two)."""

OPEN_JS = r"""() => {
  let n = 0;
  const walk = (root) => {
    for (const d of root.querySelectorAll('details:not([open])')) { d.open = true; n++; }
    for (const e of root.querySelectorAll('*')) if (e.shadowRoot) walk(e.shadowRoot);
  };
  walk(document);
  return n;
}"""
"""Opens every folded ``details`` of the page (an entry's secondary fields, a long list); how many it opened."""

ADDED = (("added, option 1", 1), ("added, option 3", 3))
"""The passes over the GM sheet's add dropdowns: the option each picks (the second adds an entry of another kind
where the dropdown has four options or more, a battle of another army, a building of another type...)."""


def add_entries(opened: list[tuple[Demo, Any, Any, Any, Kernel]], k: int) -> dict[str, list[str]]:
    """Through every add dropdown of each GM sheet of ``opened``, one entry of its option ``k`` (a dropdown without
    it skipped), the sheets taken in turn (one entry each, then each waited for until its kernel is idle); then
    every fold opened. What was added, by demo."""
    keys: dict[str, list[str]] = {d.name: [] for d, *_ in opened}
    done: dict[str, list[str]] = {d.name: [] for d, *_ in opened}
    live = list(opened)
    while live:
        picked = []
        for item in live:
            d, _, _, page, _ = item
            got = page.evaluate(ADD_JS, [keys[d.name], k])
            if got is None:  # every add dropdown done, or the page still drawing the last entry's card: look again
                steady(page)  # once its controls stand still (a fresh clone's CI, four workers: it ended a pass early)
                got = page.evaluate(ADD_JS, [keys[d.name], k])
            if got is not None:
                keys[d.name].append(got[0])
                done[d.name].append(f"{got[0]} -> {got[1]}")
                picked.append(item)
        for _, _, _, _, kernel in picked:
            kernel.settled(still=0.4, timeout=60)
        live = picked
    for _, _, _, page, kernel in opened:
        page.evaluate(OPEN_JS)
        kernel.settled(still=0.3, timeout=60)
    return done


def measure_all(browser: Any, demos: list[Demo]) -> None:
    """Each demo's pages measured at each of ``WIDTHS``: every demo's ``first`` pages opened at once, then their GM
    sheets; each page measured once it is drawn, every page resized between the widths. Then, on the GM sheets at
    390 px, the entries of each pass of ``ADDED`` added and every fold opened; measured at 390 and 1280 px after the
    last pass (the entries of the first stay)."""
    gm_cells = ticking_cells("turn_sheet")
    for wave in ("first", "then"):
        opened: list[tuple[Demo, Any, Any, Any, Kernel]] = []
        for d in demos:
            base = d.server.url.rstrip("/")
            for p in getattr(d, wave):
                ctx = browser.new_context(viewport={"width": WIDTHS[0], "height": 900})
                ctx.add_cookies([{"name": COOKIE, "value": d.keys[p.owner], "url": base}])
                page = ctx.new_page()
                kernel = Kernel(page, ticking=gm_cells if p.notebook == "turn_sheet" else frozenset())
                page.goto(f"{base}{p.path}/", wait_until="commit")
                opened.append((d, p, ctx, page, kernel))
        try:
            for _, p, _, page, _ in opened:
                page.locator(READY[p.notebook]).first.wait_for(timeout=180_000)
            for width in WIDTHS:
                for _, _, _, page, _ in opened:
                    page.set_viewport_size({"width": width, "height": 900})
                for d, p, _, page, _ in opened:
                    d.found.setdefault(p.path, {})[width] = steady(page)
            sheets = [o for o in opened if o[1].notebook == "turn_sheet"]
            for name, k in ADDED if sheets else ():  # the entries of a pass stay: measured once, after the last
                for dname, what in add_entries(sheets, k).items():
                    next(d for d in demos if d.name == dname).added[name] = what
            for width in (WIDTHS[1], WIDTHS[0]) if sheets else ():
                for _, _, _, page, _ in sheets:
                    page.set_viewport_size({"width": width, "height": 900})
                for d, p, _, page, _ in sheets:
                    d.found.setdefault(f"{p.path} (entries added)", {})[width] = steady(page)
        finally:
            for _, _, ctx, _, _ in opened:
                ctx.close()


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory, subprocess_env: dict[str, str]) -> Iterator[dict[str, Demo]]:
    """Every demo of ``DEMOS`` served at once and measured (``measure_all``) in one browser."""
    from concurrent.futures import ThreadPoolExecutor

    tmp = tmp_path_factory.mktemp("selects")
    with ThreadPoolExecutor(len(DEMOS)) as pool:  # the servers start side by side
        futures = [pool.submit(Demo, name, tmp, subprocess_env) for name in DEMOS]
    demos = [f.result() for f in futures]
    try:
        with chromium() as browser:
            measure_all(browser, demos)
        yield {d.name: d for d in demos}
    finally:
        for d in demos:
            d.server.stop()


def said(demo: str, found: dict[str, dict[int, list[dict[str, Any]]]]) -> list[str]:
    """What is cut, a line each: the page, the width, the control and the text it cuts."""
    lines = []
    for path, widths in found.items():
        for width, controls in widths.items():
            for c in cut(controls):
                what = [f"now {c['now'][0]!r}"] if now_cut(c) else []
                what += [f"{t!r} needs {w}" for t, w in c["picks"]]
                lines.append(f"{demo}{path} at {width} px: {c['kind']} {c['label'] or '(no label)'!r}"
                             f" [{c['card']}] {c['width']} px wide: " + "; ".join(what))
    return lines


@pytest.mark.parametrize("demo", DEMOS)
def test_no_dropdown_cuts_its_choice(demo: str, measured: dict[str, Demo]) -> None:
    found = measured[demo].found
    assert "/gm" in found and "/public" in found, list(found)
    assert any(c["kind"] == "select" for w in found["/gm"].values() for c in w), found["/gm"]  # measured, laid out
    added = measured[demo].added
    assert len(added.get(ADDED[0][0], ())) >= 2, added  # entries were added, and they drew controls of their own
    assert len(found["/gm (entries added)"][390]) > len(found["/gm"][390]), added
    lines = said(demo, found)
    assert lines == [], "\n".join(lines)
