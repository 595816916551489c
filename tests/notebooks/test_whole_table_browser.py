"""The whole table plays a turn in real browsers, one browser context per person, through ``kingdomlog serve``.

Issue 27, "Must show": the GM on the sheet and each player on their own page. The GM rolls what the month
needs before the players' part; each player declares their act on their page (the odds shown, no face), rolls
it; no other player's page or websocket frame holds it until the GM shares it; the GM takes every rolled row
with one press of Accept all, rolls what is left and commits. ``kingdomlog log`` then shows each act with its
player as actor and the face the player rolled. The GM's own presses are counted (the issue's target: at most
10 for a pf2e month played with the players).

- pf2e: Ysolde (Ruler), Maelis (Counselor) and Kesh (General) each take a Leadership activity;
- pf1: Amiri (General) rolls the upkeep's Stability check; Jubilost watches;
- aikakirjat: Aino and Ilmari each take one of the year's actions.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from nb_support import DRAWN, REPO, Server, free_port, page_html

from kingdomlog.app import Campaign
from kingdomlog.app import table as tbl
from kingdomlog.core.viewers import GM_VIEWER
from kingdomlog.server import Credentials

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LAUNCH = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"]
SHOTS = REPO / "docs" / "images"

# per ruleset: the demo, the players written into its campaign.toml (id, name, character), the step the
# players act in, and what each acting player picks on their page (label -> option text's start)
TABLES: dict[str, dict[str, Any]] = {
    "pf2e": {"demo": "stolen-lands", "step": "activity.leadership", "players": None,
             "acts": {"ysolde": {"Activity": "Quell Unrest", "Skill": "Politics"},
                      "maelis": {"Activity": "Provide Care", "Skill": "Defense"},
                      "kesh": {"Activity": "Rest and Relax", "Skill": "Wilderness"}}},
    "pf1": {"demo": "river-kingdom", "step": "upkeep",
            "players": [("amiri", "Amiri", "Amiri"), ("jubilost", "Jubilost", "Jubilost")],
            "acts": {"amiri": {}}},
    "aikakirjat": {"demo": "aikakirjat-demo", "step": "actions", "players": None,
                   "acts": {"aino": {"Action": "Reduce Unrest"},
                            "ilmari": {"Action": "Reduce Corruption", "Corruption track reduced": "crime"}},
                   # the demo's kingdom (level 2) has one action a year (§2.9): the GM's Accept all takes Aino's
                   # and says why Ilmari's does not fit; Ilmari's stays out of the log
                   "refused": {"ilmari": "1 per year"}},
}


def table_campaign(tmp: Path, kind: str) -> Path:
    spec = TABLES[kind]
    folder = tmp / spec["demo"]
    shutil.copytree(REPO / "campaigns" / spec["demo"], folder, ignore=shutil.ignore_patterns(".cache", "drafts",
                                                                                         "table"))
    if spec["players"]:
        toml = folder / "campaign.toml"
        rows = "".join(f'    {{ id = "{i}", name = "{n}", character = "{c}" }},\n' for i, n, c in spec["players"])
        text = toml.read_text(encoding="utf-8")
        toml.write_text(text.replace("\n[options]", f"\nviewers = [\n{rows}]\n\n[options]", 1), encoding="utf-8")
    return folder


class Person:
    """One person's browser context: their page and every websocket frame it received."""

    def __init__(self, browser: Any, base: str, key: str, ready: str, width: int = 390) -> None:
        self.ctx = browser.new_context(viewport={"width": width, "height": 2400})
        self.page = self.ctx.new_page()
        self.frames: list[str] = []
        self.page.on("websocket", lambda ws: ws.on("framereceived", lambda f: self.frames.append(
            f if isinstance(f, str) else f.decode("utf-8", "replace"))))
        self.page.goto(f"{base}/login?key={key}")
        self.page.locator(ready).first.wait_for(timeout=180_000)
        self.presses = 0

    def seen(self) -> str:
        return page_html(self.page) + "\n".join(self.frames)

    def press(self, locator: Any) -> None:
        """A press of the GM's own (counted)."""
        self.presses += 1
        locator.click()


def plan_of(page: Any) -> str:
    return str(page.evaluate("() => { const e = document.querySelector('.kl-page'); return e ? e.dataset.plan"
                             " : '' }"))


def redrawn(page: Any, before: str) -> None:
    page.wait_for_function("(b) => { const e = document.querySelector('.kl-page'); return e && e.dataset.plan"
                           " !== b }", arg=before, polling="raf", timeout=90_000)
    page.wait_for_timeout(400)


def roll_before(gm: Person, step: str) -> None:
    """The GM presses Roll on each check the month waits for before ``step`` (each press counted)."""
    page = gm.page
    order = page.evaluate("() => Array.from(document.querySelectorAll('[data-card]')).map(c => c.dataset.card)")
    for _ in range(30):
        at = page.evaluate("() => { const c = document.querySelector('.kl-card-pending'); return c ?"
                           " c.dataset.card : null }")
        if at is None:  # a redraw in flight shows no card waiting for a moment: look again
            page.wait_for_timeout(1500)
            at = page.evaluate("() => { const c = document.querySelector('.kl-card-pending'); return c ?"
                               " c.dataset.card : null }")
        if at is None or at not in order or order.index(at) >= order.index(step):
            return
        before = plan_of(page)
        gm.press(page.locator(f'[data-card="{at}"] [data-kl-act="roll"]').first)
        redrawn(page, before)


def past(gm: Person, step: str) -> None:
    """Wait until the GM's month no longer waits for a roll at or before ``step``."""
    page = gm.page
    order = page.evaluate("() => Array.from(document.querySelectorAll('[data-card]')).map(c => c.dataset.card)")
    for _ in range(120):
        at = page.evaluate("() => { const c = document.querySelector('.kl-card-pending'); return c ?"
                           " c.dataset.card : null }")
        if at is None or at not in order or order.index(at) > order.index(step):
            page.wait_for_timeout(800)
            return
        page.wait_for_timeout(500)
    raise AssertionError(f"the GM's month still waits at {at}")


def act(person: Person, picks: dict[str, str]) -> None:
    """A player declares their act on their page (picking ``picks``), then presses Roll."""
    page = person.page
    page.get_by_role("button", name="Declare").first.wait_for(timeout=90_000)
    for _ in range(90):
        if "the GM is still at" not in page.inner_text("body"):
            break
        page.wait_for_timeout(1000)
    else:
        raise AssertionError(f"the player's seat never opened: {page.inner_text('body')[:1200]}")
    page.wait_for_timeout(1000)
    for label, starts in picks.items():
        box = page.get_by_label(label, exact=True).first
        texts = box.locator("option").all_inner_texts()
        pick = next((o for o in texts if o.lower().startswith(starts.lower())), None)
        assert pick is not None, f"{label}: no option {starts!r} among {texts}: {page.inner_text('body')[:1500]}"
        box.select_option(label=pick)
        page.wait_for_timeout(1800)  # the form rebuilds with what the choice opens
    page.get_by_role("button", name="Declare").first.click()
    try:
        page.get_by_text(re.compile(r"declared: not rolled yet")).first.wait_for(timeout=60_000)
    except Exception:
        raise AssertionError(f"not declared: {page.inner_text('body')[:1500]}") from None
    page.wait_for_timeout(800)


def log_json(python: str, folder: Path, env: dict[str, str]) -> list[dict[str, Any]]:
    out = subprocess.run([python, "-m", "kingdomlog", "log", str(folder), "--json"], capture_output=True, text=True,
                         env=env, check=True, timeout=120)
    events: list[dict[str, Any]] = json.loads(out.stdout)["events"]
    return events


@pytest.mark.parametrize("kind", list(TABLES))
def test_the_whole_table_plays_a_turn(kind: str, tmp_path: Path, python: str,
                                      subprocess_env: dict[str, str]) -> None:
    from playwright.sync_api import sync_playwright

    spec = TABLES[kind]
    folder = table_campaign(tmp_path, kind)
    camp = Campaign.open(folder)
    turn = camp.next_turn()
    players = list(camp.players())
    keys = Credentials.load(folder).issue(["gm", *players, "public"])
    srv = Server([python, "-m", "kingdomlog", "serve", str(folder), "--port", str(free_port())], env=subprocess_env,
                 ready=r"Serving on (http://\S+?)/?\s")
    with srv, sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=LAUNCH)
        base = srv.url.rstrip("/")
        gm = Person(browser, base, keys["gm"], DRAWN, width=1360)
        actors = list(spec["acts"])
        people = {pid: Person(browser, base, keys[pid], "role=heading[name='Your seats']") for pid in actors}
        watchers = {pid: Person(browser, base, keys[pid], "role=heading[name='The table']") for pid in players
                    if pid not in people}
        roll_before(gm, spec["step"])

        for pid, picks in spec["acts"].items():
            act(people[pid], picks)
        before = {pid: people[pid].seen() for pid in people}
        for pid in people:
            people[pid].page.get_by_role("button", name="Roll").first.click()
            people[pid].page.get_by_text(re.compile(r"^rolled: ")).first.wait_for(timeout=60_000)
        camp = Campaign.open(folder)
        rolled = {p.player: p for p in tbl.mine(camp, GM_VIEWER, turn)}
        assert set(rolled) == set(people)
        for pid, prop in rolled.items():
            assert prop.status == "rolled"
            assert prop.outcome not in before[pid]  # no face before Roll
            others = [q for q in (*people.values(), *watchers.values()) if q is not people[pid]]
            for q in others:  # nobody else holds it before the GM shares it
                assert prop.outcome not in q.seen() and f"data-proposal=\"{prop.id}\"" not in q.seen()

        # the GM: one press takes every rolled row; Roll all for what is left; Commit
        panel = gm.page.locator(".kl-table-panel")
        accept_all = panel.locator('[data-kl-table="accept_all"]')
        accept_all.wait_for(timeout=30_000)
        for _ in range(60):  # every rolled row on the GM's panel (the panel lives in a widget's shadow root)
            if len(re.findall(r"d20 = ", panel.inner_text())) >= len(people):
                break
            gm.page.wait_for_timeout(500)
        if kind == "pf2e":
            SHOTS.mkdir(parents=True, exist_ok=True)
            panel.screenshot(path=str(SHOTS / "table-gm-proposals.png"))
        gm.press(accept_all)
        panel.get_by_text(re.compile(r"Accepted \d+ rows? into the draft")).wait_for(timeout=30_000)
        said = panel.get_by_text(re.compile(r"Accepted \d+ rows? into the draft")).first.inner_text()
        refused = spec.get("refused", {})
        assert all(why in said for why in refused.values()), said
        took = int(re.search(r"Accepted (\d+) row", said).group(1))  # type: ignore[union-attr]
        status = {p.player: p.status for p in tbl.mine(Campaign.open(folder), GM_VIEWER, turn)}
        moved = [pid for pid in people if pid not in refused and status[pid] != "accepted"]
        assert took + len(moved) == len(people) - len(refused), (said, status)
        for pid in moved:  # a row accepted before it moved it across a degree (app.table.accept says so, in words):
            assert "in the month as it stands" in said, said  # the GM's ruling rolls it again where it stands
            item = panel.locator(f'[data-proposal="{rolled[pid].id}"]')
            item.locator("[data-kl-note]").fill("the month moved under it")
            gm.press(item.locator('[data-kl-table="reroll"]'))
            for _ in range(60):
                if any(ln.kind == "rerolled" and ln.proposal == rolled[pid].id
                       for ln in tbl.TableFile(folder, turn).lines()):
                    break
                gm.page.wait_for_timeout(500)
            item.locator('[data-kl-table="accept"]:enabled').wait_for(timeout=30_000)
            gm.press(item.locator('[data-kl-table="accept"]'))
            panel.locator(f'[data-proposal="{rolled[pid].id}"][data-status="accepted"]').wait_for(timeout=30_000)
        if moved:
            print(f"{kind}: {moved} rolled again by the GM's ruling: the rows accepted before moved them")
            rolled = {p.player: p for p in tbl.mine(Campaign.open(folder), GM_VIEWER, turn)}
        past(gm, spec["step"])  # the accepted rows are in the draft: the month no longer waits at their step
        for q in watchers.values():  # shared now: the table's feed shows it, without a reload
            q.page.get_by_text(re.compile("accepted")).first.wait_for(timeout=15_000)
        for _ in range(6):
            roll = gm.page.locator('[data-kl-act="roll_all"]')
            if not roll.count():
                break
            before_plan = plan_of(gm.page)
            gm.press(roll.first)
            try:
                redrawn(gm.page, before_plan)
            except Exception:
                gm.page.screenshot(path=str(tmp_path / "gm-stuck.png"), full_page=True)
                raise AssertionError(f"Roll all did nothing: {gm.page.inner_text('body')[:3000]}") from None
        unit = camp.ruleset.turn_unit
        commit = gm.page.get_by_role("button", name=re.compile(rf"Commit {unit} {turn}"))
        commit.and_(gm.page.locator(":enabled")).wait_for(timeout=60_000)
        gm.press(commit)
        gm.page.locator(f'{DRAWN}[data-turn="{turn + 1}"]').first.wait_for(timeout=120_000)
        print(f"{kind}: the GM pressed {gm.presses} times from opening the sheet to the committed {unit}")
        if kind == "pf2e":
            assert gm.presses <= 10
        browser.close()

    logged = [e for e in log_json(python, folder, subprocess_env) if e.get("turn") == turn]
    for pid, prop in rolled.items():
        theirs = [e for e in logged if e.get("actor") == pid]
        if pid in spec.get("refused", {}):
            assert not theirs, f"{pid}'s act was not accepted but is in the log as theirs"
            continue
        assert theirs, f"{pid}'s act is not in the log as theirs"
        faces = {f for v in prop.faces.values() for f in v}
        text = json.dumps([e.get("payload") for e in theirs])
        assert any(re.search(rf'"(die|d20)": {f}\b', text) for f in faces) or any(
            f"[{f}" in text for f in faces), f"{pid}'s face {faces} is not in its logged events"
