"""Every page a person plays speaks in words (issue 29), in a real browser: the GM sheet of each bundled demo and
a player's orders sheet ask nothing as a JSON text field, and their labels, options and roll lines name no raw id
(a snake_case name, a dotted key, an issue number), read over the page text and the aria-labels, shadow roots
included.

Screenshots go to test-artifacts/ (words-*.png).
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from nb_support import DRAWN, REPO, Server, free_port, gm_sheet

pytestmark = pytest.mark.browser

ARTIFACTS = REPO / "test-artifacts"

WORDS_JS = r"""() => {
  const out = {labels: [], options: [], rolls: [], help: [], json_fields: []};
  const walk = (root) => {
    for (const e of root.querySelectorAll('*')) {
      if (e.shadowRoot) walk(e.shadowRoot);
      const a = e.getAttribute('aria-label');
      if (a) out.labels.push(a);
      if (e.matches('label, .kl-rows-label, .kl-check-title, .kl-title')) out.labels.push(e.textContent.trim());
      if (e.matches('option, [role=option]')) out.options.push(e.textContent.trim());
      if (e.matches('.kl-roll, .kl-faces, .kl-dice, .kl-outcome')) out.rolls.push(e.textContent.trim());
      if (e.matches('.kl-help, .kl-step-help')) out.help.push(e.textContent.trim());
      if (e.matches('textarea')) {
        const around = e.closest('label');
        const label = (e.getAttribute('aria-label') || '') + ' ' + (around ? around.textContent : '');
        if (/JSON/.test(label) || e.closest('[data-field]')) out.json_fields.push(label.trim());
      }
    }
  };
  walk(document);
  for (const k of Object.keys(out)) out[k] = Array.from(new Set(out[k])).filter(x => x);
  return out; }"""

RAW_ID = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b|\b[a-z]+\d*\.[a-z0-9_]+\b|\(issue \d+\)|<span class="
                    r"|\b[A-Za-z]\d+ (?:\d+ )*[a-z]\d+\b|\[[a-z][a-z0-9_.-]*\]")
"""A machine's name on a page: ``hire_troops``, ``cmd.1``, ``b7.1``, "(issue 13)", a label's raw markup, a key said
as words ("A1 e1 o0", "Candidate t8 c1", a battle's roll "B8 1 r1 attacker main"), an id in brackets beside a name
("Fabia [fabia]")."""


def catalog_ids() -> frozenset[str]:
    """The hyphenated ids of the bundled rulesets' data (``collect-taxes``, ``archaeological-find``): each names a
    thing that has a title in words, and no English word of a page is spelt like one."""
    import tomllib

    found: set[str] = set()

    def walk(x: Any, key: str | None = None) -> None:
        if isinstance(x, dict):
            for k, v in x.items():
                if isinstance(k, str) and KEBAB.fullmatch(k):
                    found.add(k)
                walk(v, k)
        elif isinstance(x, list):
            for v in x:
                walk(v, key)
        elif isinstance(x, str) and key in ("name", "id") and KEBAB.fullmatch(x):
            found.add(x)

    for f in sorted((REPO / "kingdomlog" / "rulesets").glob("*/data/*.toml")):
        walk(tomllib.loads(f.read_text(encoding="utf-8")))
    return frozenset(found)


KEBAB = re.compile(r"[a-z]+(?:-[a-z0-9]+)+")
CATALOG_ID = re.compile(r"(?<![\w/.-])(?:" + "|".join(sorted(map(re.escape, catalog_ids()), key=len, reverse=True))
                        + r")(?![\w-])")
"""A bundled catalog's id said as it is stored ("not a skill of archaeological-find"), not as its title."""


def raw_ids(texts: list[str]) -> list[str]:
    """The texts that name a raw id ("e.g." is words), or a catalog's id (``CATALOG_ID``)."""
    return [t for t in texts if RAW_ID.search(t.replace("e.g.", "").replace("i.e.", "")) or CATALOG_ID.search(t)]


def labels_in_words(labels: list[str]) -> list[str]:
    """The labels and aria-labels that name a raw id, or hold a label's raw markup (marimo names a number box by its
    label's rendered HTML unless the codec gives it words: ``views.forms.PlainNumber``)."""
    return raw_ids(labels)



def copy(demo: str, tmp_path: Path) -> Path:
    folder = tmp_path / demo
    shutil.copytree(REPO / "campaigns" / demo, folder, ignore=shutil.ignore_patterns(".cache"))
    return folder


def words_of(page: Any) -> dict[str, list[str]]:
    return dict(page.evaluate(WORDS_JS))


@pytest.mark.parametrize("demo", ["stolen-lands", "river-kingdom", "aikakirjat-demo", "felmonte"])
def test_the_gm_sheet_asks_nothing_as_json(demo: str, browser: Any, tmp_path: Path,
                                           subprocess_env: dict[str, str]) -> None:
    with gm_sheet(browser, demo, tmp_path, subprocess_env, height=1600, settle_ms=2000) as page:
        got = read_page(page)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"words-gm-{demo}.png"))
        if demo == "aikakirjat-demo":  # the GM's escape hatch (§8.3) opened: its value asked as the figure needs
            adjust_territory(page)
            for k, v in read_page(page).items():
                got[k] = [*got[k], *(x for x in v if x not in got[k])]
    assert got["options"] and got["labels"]
    assert got["json_fields"] == []
    assert raw_ids(got["text"]) == []  # the page's text too: the panel's tables, the cards, the breakdowns
    assert [t for t in got["text"] if "(s)" in t] == []  # counted as a person counts: "1 event this step records"
    assert raw_ids(got["options"]) == []
    assert labels_in_words(got["labels"]) == [] and raw_ids(got["rolls"]) == [] and raw_ids(got["help"]) == []


def adjust_territory(page: Any) -> None:
    """On the aikakirjat GM sheet: a GM adjustment of the territory added, its areas shown as the kingdom holds them
    (a line each: Area, Unit, Amount, Quality), no JSON box; screenshot words-gm-aikakirjat-adjustment.png."""
    from test_sheet_browser import Sheet, shot

    ui = Sheet(page, None)
    ui.add("start", "gm_events", "GM adjustment")
    ui.select("start", "gm_events.0.field", "The territory")
    value = ui.card("start").locator('[data-field="gm_events.0.value"]').first
    value.wait_for(timeout=60_000)
    shot(page, "words-gm-aikakirjat-adjustment", '[data-card="start"]')
    typed = value.evaluate("""(root) => { const out = []; const walk = (r) => { for (const e of r.querySelectorAll('*'))
        { if (e.shadowRoot) walk(e.shadowRoot); if (e.tagName === 'INPUT' && e.type === 'text') out.push(e.value); } };
        walk(root); return out; }""")
    assert "Territory, all of it" in value.inner_text() and typed == ["home", "2", "1", "marsh", "2", "0.5"], typed
    assert not ui.card("start").locator("textarea").count()
    add = ui.card("start").locator('[data-add="gm_events.0.value"]').first.evaluate(
        "(root) => { const t = []; const walk = (r) => { t.push(r.textContent || '');"
        " for (const e of r.querySelectorAll('*')) if (e.shadowRoot) walk(e.shadowRoot); }; walk(root);"
        " return t.join(' '); }")
    assert "+ Area" in add and "Territory" not in add, add  # a new line of the territory: an area


def test_the_orders_sheet_asks_nothing_as_json(browser: Any, tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    folder = copy("felmonte", tmp_path)
    with Server([sys.executable, "-m", "kingdomlog", "orders", str(folder), "--as", "fabian", "--port",
                 str(free_port())], env=subprocess_env, ready=r"Orders sheet of .*: (http://\S+)") as srv:
        page = browser.new_page(viewport={"width": 1280, "height": 1600})
        page.goto(srv.url)
        page.get_by_role("button", name="Make the command roll").wait_for(timeout=180_000)
        page.wait_for_timeout(1500)
        got = words_of(page)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "words-orders-fabian.png"))
        page.close()
    assert got["options"] and got["labels"]
    assert got["json_fields"] == []
    assert not [x for x in got["labels"] if "JSON" in x]  # "Rerolls paid — JSON" is a dropdown per reroll
    assert raw_ids(got["options"]) == [] and labels_in_words(got["labels"]) == []


def test_a_signoria_month_opened_answered_and_resolved_in_the_browser(browser: Any, tmp_path: Path,
                                                                      subprocess_env: dict[str, str]) -> None:
    """The GM poses a statesman on offer to Marburg on the sheet and publishes the opening with a deadline (no
    opening.json); Marburg answers on its orders sheet; the GM closes the orders and moves the month on: it is
    committed. No file is written by hand."""
    from test_sheet_browser import gm_server, open_sheet, shot

    from kingdomlog.app import Campaign

    folder = copy("felmonte", tmp_path)
    month = Campaign.open(folder).next_turn()
    with gm_server(folder, subprocess_env) as gm:
        page, ui, _ = open_sheet(browser, gm)
        ui.add("turn_open", "candidates", "Doge of Marburg")
        ui.type("turn_open", "candidates.0.name", "Ottavio")
        page.get_by_label("Orders due in").first.fill("2d")
        page.get_by_role("button", name="Publish the opening to the players").first.click()
        page.get_by_text(re.compile(r"Published the opening of month \d+")).first.wait_for(timeout=120_000)
        page.locator(DRAWN).first.wait_for(timeout=120_000)
        shot(page, "words-signoria-published", ".kl-outcome-box")
        rolls = words_of(page)["rolls"]
        assert any("a candidate's trait" in r.lower() for r in rolls) and raw_ids(rolls) == [], rolls
        page.close()
        with Server([sys.executable, "-m", "kingdomlog", "orders", str(folder), "--as", "marburg", "--port",
                     str(free_port())], env=subprocess_env, ready=r"Orders sheet of .*: (http://\S+)") as srv:
            mar = browser.new_page(viewport={"width": 1280, "height": 1600})
            mar.goto(srv.url)
            box = mar.get_by_label("Your answer", exact=True).first
            box.wait_for(timeout=120_000)
            box.select_option(label=next(t for t in box.locator("option").all_inner_texts() if t.startswith("Pass")))
            mar.wait_for_timeout(300)
            mar.get_by_role("button", name="Send these answers").click()
            mar.get_by_text(re.compile(r"Answers\.")).first.wait_for(timeout=60_000)
            ARTIFACTS.mkdir(exist_ok=True)
            mar.screenshot(path=str(ARTIFACTS / "words-signoria-answered.png"))
            mar.close()
        page, ui, _ = open_sheet(browser, gm)
        page.get_by_role("button", name="Close the orders and move the month on").first.click()
        page.get_by_text(re.compile(r"committed month \d+")).first.wait_for(timeout=180_000)
        shot(page, "words-signoria-resolved", ".kl-outcome-box")
        page.close()
    camp = Campaign.open(folder)
    assert camp.next_turn() == month + 1
    month_events = [e for e in camp.events() if e.turn == month]
    assert any(e.type == "core.steps_published" for e in month_events)
    assert any(e.type == "core.question_answered" and e.actor == "marburg" for e in month_events)
    assert not list(folder.glob("*.json")) and camp.verify().ok


TEXT_JS = r"""() => { const all = []; const grab = (root) => { all.push(root.innerText || '');
  for (const e of root.querySelectorAll('*')) if (e.shadowRoot) grab(e.shadowRoot); };
  grab(document.body); return all.join('\n'); }"""
"""Every text the page shows, its widgets' shadow roots included."""

PLAYER_PAGES: dict[str, dict[str, Any]] = {
    # per ruleset demo: the player whose pages are read (and players written into a demo that has none), the
    # pages (path, what shows the page is drawn, then what the player does before the page is read again: pick an
    # option by its label and the start of its text, or press a button)
    "stolen-lands": {"player": "ysolde", "add": [], "pages": [
        ("/p/ysolde/", "role=button[name='Declare']", [("pick", "Activity", "Quell Unrest")]),
        ("/p/ysolde/report/", "text=as ysolde sees it", None)]},
    "river-kingdom": {"player": "amiri", "add": [("amiri", "Amiri", "Amiri")], "pages": [
        ("/p/amiri/", "role=heading[name='Your seats']", None),
        ("/p/amiri/report/", "text=as amiri sees it", None)]},
    "aikakirjat-demo": {"player": "aino", "add": [], "pages": [
        ("/p/aino/", "role=button[name='Declare']", [("pick", "Action", "Reduce Unrest")]),
        ("/p/aino/report/", "text=as aino sees it", None),
        ("/gm-session/", "role=heading[name='The GM\\'s policy']", None)]},
    "felmonte": {"player": "fabian", "add": [], "pages": [
        ("/f/fabian/orders/", "role=button[name='Make the command roll']",
         [("press", "Make the command roll", ""), ("pick", "Action", "march to war")]),
        ("/f/fabian/report/", "text=as Duke Fabian sees it", None)]},
}


def read_page(page: Any) -> dict[str, list[str]]:
    """What a page says: its words (``WORDS_JS``) and the lines of its text."""
    got = words_of(page)
    got["text"] = [ln.strip() for ln in str(page.evaluate(TEXT_JS)).splitlines() if ln.strip()]
    return got


def do(page: Any, act: tuple[str, str, str]) -> None:
    """The player picks an option (by its label and the start of its text) or presses a button, and the page
    redraws what that opens."""
    kind, label, starts = act
    if kind == "pick":
        box = page.get_by_label(label, exact=True).first
        texts = box.locator("option").all_inner_texts()
        box.select_option(label=next(t for t in texts if t.lower().startswith(starts.lower())))
    else:
        page.get_by_role("button", name=label).first.click()
    page.wait_for_timeout(4000)


def login(page: Any, base: str, key: str) -> None:
    """Open the server's login link, waiting while it is not listening yet (`serve` once said "Serving on" before
    uvicorn bound its port; it now says it after, test_serve_ready.py; the wait stays harmless)."""
    for _ in range(60):
        try:
            page.goto(f"{base}/login?key={key}")
            return
        except Exception as exc:
            if "ERR_CONNECTION_REFUSED" not in str(exc):
                raise
            page.wait_for_timeout(1000)
    raise AssertionError(f"{base} never answered")


def table_demo(demo: str, tmp_path: Path) -> Path:
    """A copy of ``demo`` with the players of ``PLAYER_PAGES`` and the GM's month played through (a saved draft
    that rolls every check: each seat is open to its player, as when the GM has rolled up to it)."""
    from kingdomlog.app import Campaign
    from kingdomlog.app.drafts import Drafts, SavedDraft
    from kingdomlog.core.turn import Plan

    folder = tmp_path / demo
    shutil.copytree(REPO / "campaigns" / demo, folder, ignore=shutil.ignore_patterns(".cache", "drafts", "table"))
    add = PLAYER_PAGES[demo]["add"]
    if add:
        toml = folder / "campaign.toml"
        rows = "".join(f'    {{ id = "{i}", name = "{n}", character = "{c}" }},\n' for i, n, c in add)
        toml.write_text(toml.read_text(encoding="utf-8").replace("\n[options]", f"\nviewers = [\n{rows}]\n\n[options]",
                                                                  1), encoding="utf-8")
    camp = Campaign.open(folder)
    turn = camp.next_turn()
    Drafts(folder).save(SavedDraft(turn, camp.head_seq, Plan(dice="auto", seed="gm-seed", turn=turn)))
    return folder


@pytest.mark.parametrize("demo", list(PLAYER_PAGES))
def test_the_player_pages_speak_in_words(demo: str, browser: Any, tmp_path: Path,
                                         subprocess_env: dict[str, str]) -> None:
    """A player's pages (the table page with its seat open, the report, the orders sheet) and the GM's session
    planner, served as ``kingdomlog serve`` serves them: no JSON text field, and no raw id in the page's text, its
    labels, aria-labels, options, roll lines or help."""
    from kingdomlog.server import Credentials

    spec = PLAYER_PAGES[demo]
    folder = table_demo(demo, tmp_path)
    keys = Credentials.load(folder).issue(["gm", spec["player"]])
    found: dict[str, dict[str, list[str]]] = {}
    with Server([sys.executable, "-m", "kingdomlog", "serve", str(folder), "--port", str(free_port())],
                env=subprocess_env, ready=r"Serving on (http://\S+?)/?\s") as srv:
        base = srv.url.rstrip("/")
        for path, ready, act in spec["pages"]:
            who = "gm" if path.startswith("/gm") else spec["player"]
            ctx = browser.new_context(viewport={"width": 1280, "height": 1600})
            page = ctx.new_page()
            login(page, base, keys[who])
            page.goto(base + path)
            page.locator(ready).first.wait_for(timeout=180_000)
            page.wait_for_timeout(2500)
            got = read_page(page)
            for one in act or ():
                do(page, one)
                for k, v in read_page(page).items():
                    got[k] = [*got[k], *(x for x in v if x not in got[k])]
            lines = got["text"]
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"words-{demo}-{path.strip('/').replace('/', '-')}.png"),
                            full_page=True)
            ctx.close()
            assert lines, f"{path}: nothing drawn"
            # no seq of the log in the page's words (the report's "Log head of this view", kept for `verify
            # --expect-head`, names its own)
            assert not [t for t in lines if re.search(r"\bseq \d+", t) and not t.startswith("Log head of this view")
                        ], f"{path}: a seq of the log shown"
            found[path] = {"json fields": got["json_fields"],
                           "labels": [*labels_in_words(got["labels"]),  # a label naming an id ("Neighbour id")
                                      *(x for x in got["labels"] if re.search(r"(?i)\bid$", x.strip()))],
                           "options": raw_ids(got["options"]), "rolls": raw_ids(got["rolls"]),
                           "help": raw_ids(got["help"]), "text": raw_ids(lines)}
    assert {p: {k: v for k, v in f.items() if v} for p, f in found.items()} == {p: {} for p in found}
