"""The GM turn sheet in a real browser (Debian chromium, Playwright) against `kingdomlog gm` (the app, marimo run).

- one whole month (year) of each bundled demo played through the widgets only (no JSON typed), the
  interactions counted; the odds shown equal the kernels' (recomputed here from the saved draft);
  commit; `kingdomlog verify` passes; the state equals the same plan played by `kingdomlog turn` on a
  second copy of the campaign;
- on the toy campaign: no code cell, editor control or add-cell button on the page; Commit disabled
  while a step is refused; a reload restores the draft; a refused commit (the log moved) keeps every
  choice and die; three quick clicks commit once; Undo asks and reopens the retracted plan.

Screenshots go to test-artifacts/ (the ones in docs/notebooks.md are taken here).
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from nb_support import DRAWN, REPO, Kernel, Server, batches_since, gm_server, ticking_cells

from kingdomlog.app import Campaign
from kingdomlog.app.drafts import Drafts, SavedDraft
from kingdomlog.core.turn import Plan
from kingdomlog.dice.odds import odds
from kingdomlog.views.sheet import draft as sheet

pytestmark = pytest.mark.browser

ARTIFACTS = REPO / "test-artifacts"
FIRST_RENDER = 120_000
MAX_INTERACTIONS = 25
COUNTS = ARTIFACTS / "sheet-interactions.json"



class Sheet:
    """One open GM sheet page: every action a GM takes goes through here and is counted."""

    def __init__(self, page: Any, kernel: Kernel) -> None:
        self.page = page
        self.kernel = kernel
        self.actions = 0

    def tag(self) -> str | None:
        return self.page.evaluate("() => { const e = document.querySelector('.kl-page'); return e ? e.dataset.plan"
                                  " : null }")

    def settled(self, before: str | None, timeout: float = 60.0) -> None:
        """Wait until the draft changed from ``before`` and the page stays still for a moment (a rebuild may follow)."""
        self.page.wait_for_function("(b) => { const e = document.querySelector('.kl-page'); return e &&"
                                    " e.dataset.plan !== b }", arg=before, polling="raf", timeout=timeout * 1000)
        self.quiet(timeout)

    def quiet(self, timeout: float = 30.0, still: float = 0.7) -> None:
        start = time.monotonic()
        last = self.page.locator(".kl-page").first.inner_html()
        since = time.monotonic()
        while time.monotonic() - since < still and time.monotonic() - start < timeout:
            time.sleep(0.1)
            now = self.page.locator(".kl-page").first.inner_html()
            if now != last:
                last, since = now, time.monotonic()

    def card(self, step: str) -> Any:
        return self.page.locator(f'[data-card="{step}"]')

    def choose(self, selector: str, text: str) -> None:
        """Pick the option of a select whose text starts with ``text`` (one interaction)."""
        loc = self.page.locator(selector).first
        try:
            loc.wait_for(state="attached", timeout=30_000)
            texts = loc.evaluate("e => Array.from(e.options).map(o => o.text)")
        except Exception:  # what the page showed instead, for whoever reads the failure
            ARTIFACTS.mkdir(exist_ok=True)
            self.page.screenshot(path=str(ARTIFACTS / "sheet-failed-choose.png"))
            (ARTIFACTS / "sheet-failed-choose.txt").write_text(self.page.locator("body").inner_text())
            card = self.page.locator(selector.split("] ")[0] + "]").first
            if card.count():
                (ARTIFACTS / "sheet-failed-choose.html").write_text(card.evaluate(
                    "e => e.outerHTML + '\\n\\nshadow roots:\\n' + Array.from(e.querySelectorAll('*'))"
                    ".filter(x => x.shadowRoot).map(x => x.tagName + ': ' + x.shadowRoot.innerHTML.slice(0, 300))"
                    ".join('\\n')"))
            raise
        matches = [i for i, t in enumerate(texts) if t.strip().lower().startswith(text.lower())]
        assert matches, f"no option {text!r} in {selector}: {texts}"
        before = self.tag()
        self.actions += 1
        loc.select_option(index=matches[0])
        self.settled(before)

    def select(self, step: str, path: str, text: str) -> None:
        self.choose(f'[data-card="{step}"] [data-field="{path}"] select', text)

    def add(self, step: str, path: str, text: str) -> None:
        self.choose(f'[data-card="{step}"] [data-add="{path}"] select', text)

    def pick(self, step: str, path: str, text: str) -> None:
        """Tick one option of a multiselect (open it, click the option, close it: three interactions)."""
        before = self.tag()
        self.actions += 1
        self.card(step).locator(f'[data-field="{path}"] button').first.click()
        self.actions += 1
        self.page.get_by_role("option", name=re.compile("^" + re.escape(text))).first.click()
        self.actions += 1
        self.page.keyboard.press("Escape")
        self.settled(before)

    def type(self, step: str, path: str, value: str) -> None:
        """Type a number or a name into a field (one interaction; Tab sends it)."""
        loc = self.card(step).locator(f'[data-field="{path}"] input').first
        before = self.tag()
        self.actions += 1
        loc.fill(value)
        loc.press("Tab")
        self.settled(before)

    def more(self, step: str) -> None:
        """Open the folded fields of a step's entries ("More: ...")."""
        self.actions += 1
        self.card(step).get_by_text(re.compile("^More:")).first.click()
        time.sleep(0.4)

    def click(self, name: str, *, count: bool = True) -> None:
        if count:
            self.actions += 1
        self.page.get_by_role("button", name=name).first.click()


def shot(page: Any, name: str, locator: str | None = None) -> None:
    """A screenshot of the window (scrolled to ``locator`` first: the commit bar stays on top)."""
    ARTIFACTS.mkdir(exist_ok=True)
    if locator:
        page.locator(locator).first.evaluate("e => e.scrollIntoView({block: 'start'})")
        page.mouse.wheel(0, -60)
        time.sleep(0.3)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=False)


def open_sheet(browser: Any, server: Server, width: int = 1280, height: int = 900) -> tuple[Any, Sheet, list[str]]:
    frames: list[str] = []
    page = browser.new_page(viewport={"width": width, "height": height})
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(str(f))))
    kernel = Kernel(page, ticking=ticking_cells("turn_sheet"))
    page.goto(server.url)
    page.locator(DRAWN).first.wait_for(timeout=FIRST_RENDER)
    ui = Sheet(page, kernel)
    ui.quiet()
    return page, ui, frames


def cli(env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kingdomlog", *argv], env=env, capture_output=True, text=True,
                          timeout=300)


def shown_odds(page: Any) -> dict[tuple[str, str], dict[str, str]]:
    """Every check on the page: (step, roll key) -> {outcome: percent shown}."""
    return page.evaluate("""() => {
        const out = {};
        for (const card of document.querySelectorAll('[data-card]')) {
          for (const chk of card.querySelectorAll('.kl-check')) {
            const got = {};
            for (const li of chk.querySelectorAll('li[data-outcome]')) {
              got[li.dataset.outcome] = li.querySelector('b').textContent.trim();
            }
            out[card.dataset.card + '|' + chk.dataset.roll] = got;
          }
        }
        return out;
    }""")


def assert_odds_are_the_kernels(page: Any, folder: Path) -> int:
    """The odds on the page are those of the saved draft's checks, counted by kingdomlog.dice.odds."""
    s, _ = sheet.open_session(folder)
    assert s is not None and s.draft is not None
    want: dict[str, dict[str, str]] = {}
    for card in s.draft.cards:
        for key, spec in card.checks.items():
            want[f"{card.id}|{key}"] = {o.label: o.percent for o in odds(spec).outcomes}
    got = shown_odds(page)
    assert got, "no check on the page"
    for where, shown in got.items():
        assert where in want, f"{where} shown but not in the draft's checks"
        for label, percent in shown.items():
            assert want[where][label] == percent, (where, label, percent, want[where])
    return len(got)


def assert_years_ahead(page: Any) -> None:
    """Aikakirjat: the years-ahead panel is planned when opened: a chart and a row per year."""
    page.get_by_text(re.compile("^The years ahead")).first.click()
    rows = page.locator(".kl-sess-years tr[data-year]")
    rows.first.wait_for(timeout=60_000)
    assert rows.count() >= 1 and page.locator(".kl-sess svg").count() >= 1
    shot(page, "sheet-aikakirjat-years-ahead", ".kl-sess")


def assert_no_editor(page: Any, frames: list[str]) -> None:
    """Run mode: no code cell, editor, add-cell button; the notebook's source never sent."""
    assert page.locator(".cm-editor, .cm-content, [data-testid='cell-editor']").count() == 0
    assert page.get_by_role("button", name=re.compile(r"add (a )?cell|new cell|create cell", re.I)).count() == 0
    assert page.get_by_text(re.compile(r"^(Add cell|Run all|Generate with AI)$", re.I)).count() == 0
    assert page.locator("[data-testid='cell-actions-button'], [data-testid='create-cell-button']").count() == 0
    assert not [f for f in frames if "sheet.open_session(folder" in f or "def _(" in f]


def commit(ui: Sheet, when: str) -> None:
    ui.click(f"Commit {when}")
    ui.page.get_by_text(re.compile(rf"Committed {re.escape(when)}")).first.wait_for(timeout=60_000)


def record(name: str, n: int) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    got = json.loads(COUNTS.read_text()) if COUNTS.exists() else {}
    got[name] = n
    COUNTS.write_text(json.dumps(got, indent=1, sort_keys=True))


# ---- the dice: Roll as the table comes to a check ---------------------------------------------------


def press_roll(ui: Sheet, step: str, key: str) -> float:
    """Press Roll on ``key`` of ``step``: the seconds from the click to the card showing the face."""
    card = ui.card(step)
    button = card.locator(f'[data-kl-act="roll"][data-kl-key="{key}"]').first
    before = ui.tag()
    ui.actions += 1
    t0 = time.perf_counter()
    button.click()
    card.locator(f'.kl-check[data-roll="{key}"] .kl-roll, .kl-dice[data-roll="{key}"] .kl-roll').first.wait_for(
        timeout=30_000)
    took = time.perf_counter() - t0
    ui.settled(before)
    return took


def waiting_step(page: Any) -> tuple[str, str] | None:
    """The card waiting for its roll and that roll's key, as the page shows them."""
    got = page.evaluate("""() => { const c = document.querySelector('.kl-card-pending');
        if (!c) return null; const k = c.querySelector('[data-pending]');
        return k ? [c.dataset.card, k.dataset.pending] : null; }""")
    return (got[0], got[1]) if got else None


def roll_until(ui: Sheet, step: str) -> list[float]:
    """Press Roll on each check the turn reaches before ``step`` (the table rolls them in order, as it comes to
    them): the seconds each took from the click to its face shown."""
    order = ui.page.evaluate("() => Array.from(document.querySelectorAll('[data-card]')).map(c => c.dataset.card)")
    took = []
    for _ in range(40):
        at = waiting_step(ui.page)
        if at is None or order.index(at[0]) >= order.index(step):
            return took
        took.append(press_roll(ui, *at))
    raise AssertionError("the checks before the step never stopped waiting")


def roll_all(ui: Sheet) -> None:
    """Roll all: every check the turn still waits for, as the choices stand (one interaction)."""
    if ui.page.locator('[data-kl-act="roll_all"]').count() == 0:
        return
    before = ui.tag()
    ui.actions += 1
    ui.page.locator('[data-kl-act="roll_all"]').first.click()
    ui.settled(before)


# ---- a month of each demo, widgets only ----------------------------------------------------------


def play_pf2e(ui: Sheet) -> None:
    # a row, its leader and skill, then the next row (the '+ Activity' picker after a chosen skill went missing
    # in about 1 run of 3 while the page's widget cache was keyed by id() alone: test_turn_sheet.py)
    roll_until(ui, "activity.leadership")  # the resource dice and the taxes, as the table comes to them
    ui.add("activity.leadership", "activities", "Quell Unrest")
    ui.select("activity.leadership", "activities.0.role", "Ruler")
    ui.select("activity.leadership", "activities.0.skill", "Folklore")  # not politics again (§4.4)
    ui.add("activity.leadership", "activities", "Celebrate Holiday")
    ui.select("activity.leadership", "activities.1.role", "Counselor")
    roll_until(ui, "activity.region")  # both leaders roll: the RP and Unrest the region's activities see
    ui.add("activity.region", "activities", "Harvest Crops")
    roll_until(ui, "activity.civic")
    ui.add("activity.civic", "activities", "Build Structure")
    ui.select("activity.civic", "activities.0.structure", "Houses")
    # where it stands, on Brightwater's urban grid: block 1 has lots 2 and 3 empty
    ui.select("activity.civic", "activities.0.block", "block 1")
    ui.pick("activity.civic", "activities.0.lots", "lot 2")
    ui.type("event.xp", "gm_xp", "40")
    roll_all(ui)  # the Build Structure check and the month's event check


def play_pf1(ui: Sheet) -> None:
    # the treasury is nearly empty this month: the party explores a hex, the council sets the edicts and banks gold
    ui.pick("gm", "explore", "hex 11")
    roll_until(ui, "improvement")
    ui.select("improvement", "taxation", "Light")
    ui.select("improvement", "promotion", "Token")
    roll_until(ui, "income")
    ui.type("income", "deposit_gp", "500")
    roll_all(ui)


def play_aikakirjat(ui: Sheet) -> None:
    # one action a year at level 2
    roll_until(ui, "actions")
    ui.add("actions", "actions", "Tax collection")
    roll_until(ui, "events")
    ui.select("events", "god", "resist")
    roll_until(ui, "end")
    ui.select("end", "law_and_order", "crime")
    roll_all(ui)


def prepare_signoria(folder: Path) -> None:
    """Both factions hand in their orders (as their orders sheets do) before the GM opens the sheet."""
    camp = Campaign.open(folder)
    camp.submit(camp.viewer("fabian"), {"command_fabian": {"choices": {"stake": "low"}},
                           "orders_fabian": {"choices": {"actor": "fabian", "orders": [
                               {"id": "O1", "action": "hire_troops", "slots": ["ordinary"], "params": {"units": 1}}]}}})
    camp.submit(camp.viewer("marburg"), {"command_marburg": {"choices": {"stake": "low"}},
                            "orders_marburg": {"choices": {"actor": "marburg", "orders": [
                                {"id": "O1", "action": "donation", "slots": ["ordinary"], "stake": "elementary",
                                 "params": {"piety": 1}}]}}})


def play_signoria(ui: Sheet) -> None:
    for faction, name in (("fabian", "Duke Fabian"), ("marburg", "Doge of Marburg")):
        box = ui.card(f"orders_{faction}").locator(".kl-submitted")
        assert f"Orders submitted by {name}" in box.first.inner_text()
    roll_until(ui, "turn_open")
    ui.type("turn_open", "global_event.title", "Spring fair in Felmonte")
    roll_all(ui)


SCENARIOS: dict[str, tuple[str, Callable[[Sheet], None], Callable[[Path], None] | None, str]] = {
    "pf2e": ("stolen-lands", play_pf2e, None, "activity.civic"),
    "pf1": ("river-kingdom", play_pf1, None, "improvement"),
    "aikakirjat": ("aikakirjat-demo", play_aikakirjat, None, "actions"),
    "signoria": ("felmonte", play_signoria, prepare_signoria, "orders_fabian"),
}


@pytest.mark.parametrize("ruleset", sorted(SCENARIOS))
def test_a_whole_demo_month_through_the_widgets(browser: Any, tmp_path: Path, subprocess_env: dict[str, str],
                                                ruleset: str) -> None:
    demo, play, prepare, focus = SCENARIOS[ruleset]
    folder = tmp_path / demo
    shutil.copytree(REPO / "campaigns" / demo, folder, ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    if prepare is not None:
        prepare(folder)
    start = Campaign.open(folder)
    turn, head = start.next_turn(), start.head_seq
    # a fixed seed for the month's dice, as if the GM had opened the sheet before: the run is repeatable
    Drafts(folder).save(SavedDraft(turn, head, Plan(turn=turn, seed=f"browser-{ruleset}")))
    twin = tmp_path / f"{demo}-twin"
    shutil.copytree(folder, twin, ignore=shutil.ignore_patterns("drafts"))
    when = sheet.load_start(folder).when
    with gm_server(folder, subprocess_env) as gm:
        page, ui, frames = open_sheet(browser, gm)
        assert_no_editor(page, frames)
        play(ui)
        status = page.locator(".kl-status").first.inner_text()
        assert status.startswith("Ready"), status
        page.get_by_role("button", name=f"✔ Commit {when}").and_(page.locator(":enabled")).wait_for(timeout=10_000)
        checked = assert_odds_are_the_kernels(page, folder)
        assert checked >= 1
        if ruleset == "aikakirjat":
            assert_years_ahead(page)
        for width in (1280, 390):  # a desktop and a phone
            page.set_viewport_size({"width": width, "height": 900 if width > 400 else 844})
            ui.quiet(still=0.4)
            shot(page, f"sheet-{ruleset}-{width}", "h1")
            shot(page, f"sheet-{ruleset}-{width}-step", f'[data-card="{focus}"]')
        page.set_viewport_size({"width": 1280, "height": 900})
        assert page.get_by_text("An internal error occurred").count() == 0
        commit(ui, when)
        ui.actions += 0
        record(ruleset, ui.actions)
        assert ui.actions <= MAX_INTERACTIONS
        page.locator(f'{DRAWN}[data-turn="{turn + 1}"]').wait_for(timeout=60_000)
        page.close()
    camp = Campaign.open(folder)
    assert camp.next_turn() == turn + 1
    new = [e for e in camp.events() if e.seq > head]
    assert new and {e.turn for e in new} == {turn}
    res = cli(subprocess_env, "verify", str(folder))
    assert res.returncode == 0, res.stdout + res.stderr
    # the same plan, played headless by `kingdomlog turn` on a twin, gives the same state
    plan = Drafts(folder).committed_plan([new[-1].commit_id])
    assert plan is not None
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(plan.to_json())
    res = cli(subprocess_env, "turn", str(twin), "--plan", str(plan_file))
    assert res.returncode == 0, res.stdout + res.stderr
    a = json.loads(cli(subprocess_env, "state", str(folder), "--json").stdout)
    b = json.loads(cli(subprocess_env, "state", str(twin), "--json").stdout)
    # the "kingdomlog" block names each log's own head (its hash covers commit ids and times): not the state
    assert a.pop("kingdomlog")["turn"] == b.pop("kingdomlog")["turn"] == turn
    assert a == b


# ---- never losing the GM's work (toy campaign) ---------------------------------------------------


def values_shown(ui: Sheet) -> dict[str, str]:
    card = ui.card("harvest")
    return {"crop": card.locator('[data-field="crop"] select').first.evaluate("e => e.options[e.selectedIndex].text"),
            "sell": ui.card("market").locator('[data-field="sell"] input').first.input_value(),
            "dice": card.locator(".kl-roll").first.inner_text()}


def type_faces(ui: Sheet, step: str, key: str, faces: str) -> None:
    """The faces of physical dice, typed beside the check's Roll and taken (two interactions)."""
    bar = ui.card(step).locator(f'[data-pending="{key}"] .kl-rollbar').first
    before = ui.tag()
    ui.actions += 2
    bar.locator("input[data-kl-faces]").fill(faces)
    bar.locator('[data-kl-act="faces"]').click()
    ui.settled(before)


def test_the_sheet_never_loses_the_gms_work(browser: Any, toy: Path, subprocess_env: dict[str, str]) -> None:
    with gm_server(toy, subprocess_env) as gm:
        page, ui, frames = open_sheet(browser, gm)
        assert_no_editor(page, frames)
        # the crop, then the harvest's dice: physical ones, typed (they count as rolled)
        ui.select("harvest", "crop", "Barley")
        type_faces(ui, "harvest", "harvest", "5 6")
        # a refused step: Commit is disabled, the refusal names the rule, the error sits at the field
        ui.type("market", "sell", "999")
        assert page.get_by_role("button", name="✔ Commit season 2").is_disabled()
        refused = ui.card("market")
        assert "Refused by the rules" in refused.inner_text() and "toy §2" in refused.inner_text()
        assert "cannot sell 999" in refused.locator(".kl-field-error").first.inner_text()
        shot(page, "sheet-toy-refused", '[data-card="market"]')
        # choices and typed dice, then a reload: the draft is restored
        ui.type("market", "sell", "2")
        shown = values_shown(ui)
        assert shown["crop"].startswith("Barley") and "5, 6" in shown["dice"] and shown["sell"] == "2"
        page.reload()
        page.locator(DRAWN).first.wait_for(timeout=FIRST_RENDER)
        ui.quiet()
        page.get_by_text("Restored your draft").first.wait_for(timeout=10_000)
        assert values_shown(ui) == shown
        # someone else writes: the commit is refused, every choice and die stays as it was
        Campaign.open(toy).note("the steward wrote first")
        ui.click("✔ Commit season 2")
        page.get_by_text("the log changed since this draft was opened").first.wait_for(timeout=30_000)
        ui.quiet()
        assert values_shown(ui) == shown
        assert Campaign.open(toy).next_turn() == 2
        # three quick clicks commit once (a disabled button takes no click; one gone is the next season's)
        head = Campaign.open(toy).head_seq
        button = page.get_by_role("button", name="✔ Commit season 2")
        for _ in range(3):
            with contextlib.suppress(Exception):  # the button may be gone already: the sheet reloaded
                button.click(force=True, timeout=1_000)
        page.get_by_text(re.compile("Committed season 2")).first.wait_for(timeout=30_000)
        page.locator(f'{DRAWN}[data-turn="3"]').wait_for(timeout=30_000)
        ui.kernel.settled()  # a second run of the commit cell (a click that fired again) would have written by now
        assert len(batches_since(toy, head)) == 1 and Campaign.open(toy).next_turn() == 3
        # undo asks first, then reopens season 2's plan with its dice
        ui.click("↶ Undo season 2")
        page.get_by_text("Undo season 2?").first.wait_for(timeout=10_000)
        shot(page, "sheet-toy-undo-asks")
        assert Campaign.open(toy).next_turn() == 3  # asking wrote nothing
        ui.click("No, keep it")
        ui.kernel.settled()
        assert Campaign.open(toy).next_turn() == 3 and batches_since(toy, head)[1:] == []  # "no" wrote nothing
        ui.click("↶ Undo season 2")
        ui.click("Yes, undo it")
        page.get_by_text(re.compile("Undid season 2")).first.wait_for(timeout=30_000)
        page.locator(f'{DRAWN}[data-turn="2"]').wait_for(timeout=30_000)
        ui.quiet()
        assert values_shown(ui) == shown
        page.close()
    camp = Campaign.open(toy)
    assert camp.events()[-1].type == "core.turn_retracted" and camp.next_turn() == 2 and camp.verify().ok


def test_the_last_card_mounts_when_the_gm_scrolls_to_it_and_its_widget_takes_a_choice(
        browser: Any, tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    """The cards below the window are mounted after the first screen (views.sheet.live): a GM who scrolls to the
    last card at once, on a 1280x720 window, finds its widgets there and what they pick reaches the draft."""
    from nb_support import copy_demo

    folder = copy_demo(tmp_path / "stolen-lands")
    with gm_server(folder, subprocess_env) as gm:
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        ui = Sheet(page, Kernel(page, ticking=ticking_cells("turn_sheet")))
        page.goto(gm.url)
        page.locator('.kl-page:not([data-plan=""])').first.wait_for(timeout=FIRST_RENDER)  # the first screen
        last = page.evaluate("() => Array.from(document.querySelectorAll('[data-card]')).pop().dataset.card")
        assert last == "event.level"
        holder = page.locator(f'[data-card="{last}"] [data-kl-left]').first
        box = holder.bounding_box()
        assert box is not None and box["y"] > 720, "the last card is in the first screen: nothing to scroll to"
        page.mouse.move(400, 400)
        for _ in range(60):  # the GM scrolls down with the wheel until the last card is in the window
            page.mouse.wheel(0, 1500)
            time.sleep(0.05)
            box = holder.bounding_box()
            if box is not None and box["y"] < 720:
                break
        assert box is not None and box["y"] < 720, box
        field = page.locator(f'[data-card="{last}"] [data-field="ruin_resistance"] select').first
        field.wait_for(state="visible", timeout=30_000)
        texts = field.evaluate("e => Array.from(e.options).map(o => o.value + '|' + o.text)")
        assert len(texts) >= 3, texts
        ui.quiet()
        ui.choose(f'[data-card="{last}"] [data-field="ruin_resistance"] select', texts[2].split("|", 1)[1])
        page.locator(DRAWN).first.wait_for(timeout=60_000)
        ui.kernel.settled()
        page.close()
    s, _ = sheet.open_session(folder)
    assert s is not None and s.plan.steps[last].choices.get("ruin_resistance") not in (None, ""), s.plan.steps.get(
        last)


def figures(result: Any) -> list[str]:
    """A result's figures as moved: ``Gold 7 → 11``, each (what the last edit changed aside)."""
    return [t.split(" was ")[0] for t in result.locator(".kl-fig").all_inner_texts()]


def test_an_edit_redraws_its_results_not_the_widgets(browser: Any, toy: Path, subprocess_env: dict[str, str]) -> None:
    """views.sheet.live: an edit sends the parts it changes, never the page with its widgets again."""
    with gm_server(toy, subprocess_env) as gm:
        page, ui, frames = open_sheet(browser, gm)
        press_roll(ui, "harvest", "harvest")
        ui.type("market", "sell", "1")
        marked = "e => { e.dataset.klMark = 'kept'; return e.dataset.klMark }"
        crop = ui.card("harvest").locator('[data-field="crop"] select').first
        sell = ui.card("market").locator('[data-field="sell"] input').first
        assert crop.evaluate(marked) == "kept" and sell.evaluate(marked) == "kept"
        result = ui.card("market").locator(".kl-result").first
        before_text = result.inner_text()
        assert any("kl-cards" in f for f in frames)  # the page, as drawn when the widgets were built
        sent = len(frames)
        ui.type("market", "sell", "2")
        assert not any("kl-cards" in f for f in frames[sent:]), "an edit sent the whole page again"
        assert any("kl-fig" in f for f in frames[sent:])  # the card's new result, as a live part
        after_text = result.inner_text()
        assert after_text != before_text
        figures_after = figures(result)
        assert figures_after
        assert "changed by your last edit" in ui.card("market").locator(".kl-badges").inner_text()
        assert "kl-card-changed" in (ui.card("market").get_attribute("class") or "")
        # the same nodes: an attribute set on them before the edit is still there
        assert crop.evaluate("e => e.dataset.klMark || ''") == "kept"
        assert sell.evaluate("e => e.dataset.klMark || ''") == "kept"
        # an error moves to a widget: the page is drawn again, the error beside the field, the results live
        ui.type("market", "sell", "999")
        assert "cannot sell 999" in ui.card("market").locator(".kl-field-error").first.inner_text()
        assert "Refused by the rules" in result.inner_text()
        # ... and a card whose widgets did not change is not mounted again: its widgets are the same nodes (what
        # the GM typed in them, and the focus, stay)
        assert crop.evaluate("e => e.dataset.klMark || ''") == "kept"
        ui.type("market", "sell", "2")
        assert ui.card("market").locator(".kl-field-error").count() == 0
        assert "Refused" not in result.inner_text()
        assert figures(result) == figures_after
        assert page.get_by_text("Something went wrong").count() == 0
        page.close()


# ---- a hex target picked on the map (pf2e, pf1) ------------------------------------------------------


def hex_select(ui: Sheet, step: str, path: str) -> Any:
    return ui.card(step).locator(f'[data-field="{path}"] select.klhp-select').first


def shown_hexes(ui: Sheet, step: str, path: str) -> list[str]:
    """The options the hex picker's select shows as chosen (their texts)."""
    return hex_select(ui, step, path).evaluate("e => Array.from(e.selectedOptions).map(o => o.text)")


def click_hex(ui: Sheet, step: str, path: str, hex_id: str) -> None:
    """Click a hex on the field's map (opened first if it is folded): one interaction."""
    field = ui.card(step).locator(f'[data-field="{path}"]')
    fold = field.locator("details.klhp-fold").first
    fold.wait_for(state="attached", timeout=60_000)
    if not fold.evaluate("e => e.open"):
        ui.actions += 1
        fold.locator("summary").first.click()
    ui.actions += 1
    field.locator(f'g.kl-hex[data-hex="{hex_id}"] > polygon').first.click()


def saved_choices(folder: Path, turn: int, step: str) -> dict[str, Any]:
    saved = Drafts(folder).load(turn)
    assert saved is not None
    sp = saved.plan.steps.get(step)
    return dict(sp.choices) if sp is not None else {}


def wait_saved(folder: Path, turn: int, step: str, check: Callable[[dict[str, Any]], bool],
               timeout: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    got: dict[str, Any] = {}
    while time.monotonic() < deadline:
        got = saved_choices(folder, turn, step)
        if check(got):
            return got
        time.sleep(0.2)
    raise AssertionError(f"the draft of {step} never showed the pick: {got}")


HEX_SCENARIOS: dict[str, dict[str, Any]] = {
    # pf2e: a Claim Hex row; A5 is next to the kingdom (claimable), A1 is the capital's hex (already claimed)
    "pf2e": {"demo": "stolen-lands", "step": "activity.region", "add": ("activities", "Claim Hex"),
             "path": "activities.0.hex", "allowed": "A5", "refused": "A1", "why": "already claimed",
             "multi": False, "said": ("A5", "A1")},
    # pf1: claim a hex in the Improvement phase; h11 is explored, cleared and adjacent, h3 is the kingdom's already;
    # a person reads them as the map labels them, "hex 11" and "hex 3" ("said")
    "pf1": {"demo": "river-kingdom", "step": "improvement", "add": None, "path": "claim", "allowed": "h11",
            "refused": "h3", "why": "already claimed", "multi": True, "said": ("hex 11", "hex 3")},
}


@pytest.mark.parametrize("ruleset", sorted(HEX_SCENARIOS))
def test_a_hex_target_picked_on_the_map(browser: Any, tmp_path: Path, subprocess_env: dict[str, str],
                                        ruleset: str) -> None:
    sc = HEX_SCENARIOS[ruleset]
    step, path, good, bad = sc["step"], sc["path"], sc["allowed"], sc["refused"]
    said, said_bad = sc["said"]
    folder = tmp_path / sc["demo"]
    shutil.copytree(REPO / "campaigns" / sc["demo"], folder, ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    start = Campaign.open(folder)
    turn, head = start.next_turn(), start.head_seq
    Drafts(folder).save(SavedDraft(turn, head, Plan(turn=turn, seed=f"browser-hexmap-{ruleset}")))
    when = sheet.load_start(folder).when
    with gm_server(folder, subprocess_env) as gm:
        page, ui, _frames = open_sheet(browser, gm)
        roll_until(ui, step)
        if sc["add"]:
            ui.add(step, *sc["add"])
        field = ui.card(step).locator(f'[data-field="{path}"]')
        field.locator("g.kl-hex").first.wait_for(state="attached", timeout=60_000)  # a card below: mounted after
        assert field.locator("g.kl-hex").count() >= 10, "no map at the field"
        assert field.locator(f'g.kl-hex[data-hex="{good}"]').get_attribute("data-allowed") == "true"
        assert field.locator(f'g.kl-hex[data-hex="{bad}"]').get_attribute("data-allowed") == "false"
        assert said in (field.locator(f'g.kl-hex[data-hex="{good}"] > title').first.text_content() or "")
        # an allowed hex: the select follows at once, the step is computed again, the draft is saved
        before = ui.tag()
        click_hex(ui, step, path, good)
        ui.settled(before)
        assert [t for t in shown_hexes(ui, step, path) if t.startswith(said)], shown_hexes(ui, step, path)
        assert field.locator(f'[data-outline="{good}"]').count() == 1
        result = ui.card(step).locator(".kl-result").first
        if ruleset == "pf2e":
            title = result.locator(".kl-check-title").first.inner_text()
            assert f"on {good}" in title, title
        assert said in (result.text_content() or ""), "the step's outcome does not name the hex"
        if ruleset == "pf2e":
            # the pick rebuilt the widgets once (the check's dice appeared): every widget of the row kept its value
            row = ui.card(step).locator('[data-field="activities.0.activity"] select').first
            assert row.evaluate("e => e.options[e.selectedIndex].text").startswith("Claim Hex")
            for other in ("role", "skill"):
                assert ui.card(step).locator(f'[data-field="activities.0.{other}"] select').count() == 1, other
            # two quick clicks (no wait between them): the last one holds, in the select, the card and the draft
            before = ui.tag()
            click_hex(ui, step, path, "B6")
            click_hex(ui, step, path, "B3")
            ui.settled(before)
            assert shown_hexes(ui, step, path)[0].startswith("B3")
            wait_saved(folder, turn, step, lambda c: c["activities"][0].get("hex") == "B3")
            assert "on B3" in result.locator(".kl-check-title").first.inner_text()
            # the select, as a keyboard user would: the map's outline follows it
            before = ui.tag()
            ui.actions += 1
            hex_select(ui, step, path).select_option(label=next(
                t for t in hex_select(ui, step, path).evaluate("e => Array.from(e.options).map(o => o.text)")
                if t.startswith(good + " ")))
            ui.settled(before)
            assert field.locator(f'[data-outline="{good}"]').count() == 1
            assert field.locator('[data-outline="B3"]').count() == 0
            assert f"on {good}" in result.locator(".kl-check-title").first.inner_text()
        else:
            # a second click on a picked hex takes it out of the list, a third puts it back
            for now in ([], [good]):
                before = ui.tag()
                click_hex(ui, step, path, good)
                ui.settled(before)
                picked = [t for t in shown_hexes(ui, step, path) if t.startswith(said + " ")]
                assert bool(picked) == bool(now), picked
                wait_saved(folder, turn, step, lambda c, now=now: c.get("claim", []) == now)
        saved = wait_saved(folder, turn, step, lambda c: bool(c) and (
            c["activities"][0].get("hex") == good if ruleset == "pf2e" else c.get("claim") == [good]))
        # a hex the rules refuse: nothing changes, the picker says why
        tag = ui.tag()
        click_hex(ui, step, path, bad)
        msg = field.locator(".klhp-msg").first
        msg.wait_for(timeout=10_000)
        assert sc["why"] in msg.inner_text() and msg.inner_text().startswith(said_bad + " cannot be picked")
        time.sleep(1.5)
        assert ui.tag() == tag
        assert not [t for t in shown_hexes(ui, step, path) if t.startswith(said_bad + " ")]
        assert saved_choices(folder, turn, step) == saved
        for width in (1280, 390):
            page.set_viewport_size({"width": width, "height": 900 if width > 400 else 844})
            ui.quiet(still=0.4)
            shot(page, f"sheet-{ruleset}-{width}-hexmap", f'[data-card="{step}"]')
            scroll = page.evaluate("() => document.scrollingElement.scrollWidth - window.innerWidth")
            assert scroll <= 0, f"horizontal scroll of {scroll}px at {width}px"
        page.set_viewport_size({"width": 1280, "height": 900})
        ui.quiet(still=0.4)
        # the saved draft holds the hex; the committed events name it
        row = saved[path.split(".")[0]]
        value = row[int(path.split(".")[1])][path.split(".")[2]] if "." in path else row
        assert value == ([good] if sc["multi"] else good), saved
        assert page.get_by_text("An internal error occurred").count() == 0
        roll_all(ui)
        commit(ui, when)
        page.close()
    new = [e for e in Campaign.open(folder).events() if e.seq > head]
    named = [e for e in new if e.type.endswith("hex_claimed") or e.type.endswith("check_resolved")]
    assert any(good in e.payload.model_dump_json() for e in named), [e.type for e in new]
    record(f"{ruleset}-hexmap", ui.actions)


# ---- a roll has its moment (design §5) -------------------------------------------------------------


def test_a_roll_has_its_moment(browser: Any, tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    """pf2e: Quell Unrest is declared with Politics; its d20 is in no page and no frame until Roll is pressed, then
    it is; a change to Folklore is refused at the skill; a re-roll by GM ruling takes it and the log keeps it."""
    from kingdomlog.core.turn import StepPlan
    from kingdomlog.dice.roller import KeyedRoller

    folder = tmp_path / "stolen-lands"
    shutil.copytree(REPO / "campaigns" / "stolen-lands", folder,
                    ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    camp = Campaign.open(folder)
    turn, head = camp.next_turn(), camp.head_seq
    quell = {"activities": [{"activity": "quell-unrest", "role": "ruler", "skill": "politics"}]}
    Drafts(folder).save(SavedDraft(turn, head, Plan(turn=turn, seed="browser-roll", dice="on_roll",
                                                    steps={"activity.leadership": StepPlan(choices=quell)})))
    die = KeyedRoller("browser-roll", campaign=camp.id, turn=turn).for_step("activity.leadership").faces_at(
        "a1", "1d20", 0)[0]  # what Roll will show: the test knows it, the page must not
    when = sheet.load_start(folder).when
    step, sel = "activity.leadership", '[data-card="activity.leadership"]'
    with gm_server(folder, subprocess_env) as gm:
        page, ui, frames = open_sheet(browser, gm)
        timings = roll_until(ui, step)  # the resource dice, the taxes: rolled as the table comes to them
        assert waiting_step(page) == (step, "a1")
        card = ui.card(step)
        title = card.locator('[data-pending="a1"] .kl-check-title').first.inner_text()
        m = re.search(r"d20 ([+-]\d+) vs DC (\d+)", title)
        assert m is not None, title
        line = f": {die} {int(m.group(1)):+d} = {die + int(m.group(1))}"  # the roll line, as the card writes it
        assert "%" in card.inner_text() and card.locator('[data-kl-act="roll"]').count() == 1  # odds and Roll
        body = page.locator("body").inner_text()
        assert line not in body and f"⚄ {die}\n" not in body
        assert not [f for f in frames if line.replace(" = ", " = <b>") in f or line in f]
        assert not [f for f in frames if "browser-roll" in f]  # nor the seed that would tell it
        for width in (1280, 390):
            page.set_viewport_size({"width": width, "height": 900 if width > 400 else 844})
            ui.quiet(still=0.4)
            shot(page, f"sheet-roll-{width}-before", sel)
        page.set_viewport_size({"width": 1280, "height": 900})
        ui.quiet(still=0.4)
        sent = len(frames)
        timings.append(press_roll(ui, step, "a1"))
        text = card.inner_text()
        assert line.replace(" = ", " = ") in text.replace("\n", " ") or line in text, text
        assert any(str(die) in f and "kl-faces" in f for f in frames[sent:])
        assert "Rolled" in text and card.locator('.kl-check-rolled[data-roll="a1"]').count() == 1
        for width in (1280, 390):
            page.set_viewport_size({"width": width, "height": 900 if width > 400 else 844})
            ui.quiet(still=0.4)
            shot(page, f"sheet-roll-{width}-rolled", sel)
        page.set_viewport_size({"width": 1280, "height": 900})
        ui.quiet(still=0.4)
        # the skill changed after the roll: refused at the skill, in words; Commit stays off
        ui.select(step, "activities.0.skill", "Folklore")
        err = card.locator('[data-field="activities.0.skill"] .kl-field-error').first
        err.wait_for(timeout=30_000)
        assert "was rolled with skill politics" in err.inner_text() and f"d20 = {die}" in err.inner_text()
        assert page.get_by_role("button", name=f"✔ Commit {when}").is_disabled()
        for width in (1280, 390):
            page.set_viewport_size({"width": width, "height": 900 if width > 400 else 844})
            ui.quiet(still=0.4)
            shot(page, f"sheet-roll-{width}-refused", sel)
        page.set_viewport_size({"width": 1280, "height": 900})
        ui.quiet(still=0.4)
        # a re-roll by GM ruling, with its note: the skill is taken, the card says so
        reroll = card.locator('details.kl-reroll[data-reroll="a1"]').first
        reroll.locator("summary").click()
        reroll.locator("select[data-kl-reason]").select_option("gm")
        reroll.locator("input[data-kl-note]").fill("the ruler meant Folklore")
        before = ui.tag()
        ui.actions += 3
        reroll.locator('[data-kl-act="reroll"]').click()
        ui.settled(before)
        card.get_by_text("Re-rolled (GM ruling: the ruler meant Folklore)").first.wait_for(timeout=30_000)
        assert card.locator(".kl-field-error").count() == 0
        shot(page, "sheet-roll-1280-rerolled", sel)
        roll_all(ui)  # the rest of the month at once
        status = page.locator(".kl-status").first.inner_text()
        assert status.startswith("Ready"), status
        assert page.get_by_text("An internal error occurred").count() == 0
        commit(ui, when)
        page.close()
    log = cli(subprocess_env, "log", str(folder), "--turn", str(turn))
    assert log.returncode == 0, log.stderr
    assert "core.dice_rerolled" in log.stdout and "the ruler meant Folklore" in log.stdout, log.stdout[-2000:]
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "sheet-roll-latency.json").write_text(json.dumps({"roll_click_to_face_s": timings}, indent=1))
    assert max(timings) < 5.0, timings
