"""A whole demo month through the one server (``kingdomlog serve``), two factions in a real browser.

On a copy of the Felmonte demo (month 8 next), the GM sets a deadline that resolves the month by itself
and publishes the opening (a dilemma for Fabian, a statesman on offer for Marburg). In the browser each
faction opens its own link: answers its opening question, makes its command roll, gives its orders (Marburg
marches on Fabia), Marburg writes to Fabian, both say they are ready. The orders close, Fabian is asked how
to meet the army, both sides are asked their battle declarations round by round, the month resolves, and
each faction reads its report. Markers planted in the GM's note and in each faction's orders never reach
the rival's pages or websocket frames; each credential is refused on the other's pages and websockets.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from nb_support import LAUNCH, REPO, Server, free_port

from kingdomlog.app import Campaign, pbp
from kingdomlog.core.turn import Plan
from kingdomlog.core.viewers import GM_VIEWER, Viewer
from kingdomlog.server import COOKIE, Credentials

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FELMONTE = REPO / "campaigns" / "felmonte"
GM_SECRET = "GM-ONLY-NOTE-5531"
MARKS = {"fabian": "FABIAN-ORDERS-NOTE-1907", "marburg": "MARBURG-ORDERS-NOTE-8264"}
LETTER = "MARBURG-LETTER-TO-FABIAN-3318"
SHOTS = REPO / "test-artifacts" / "pbp"
OPENING = {"steps": {"turn_open": {"choices": {
    "dilemmas": [{"faction": "fabian", "id": "winter_relief", "text": "The poor of Fabia ask for bread",
                  "options": [{"id": "give", "text": "open the granaries", "effects": [
                      {"kind": "resource", "faction": "fabian", "resource": "piety", "delta": 1}]}]}],
    "candidates": [{"faction": "marburg", "name": "Giulia"}]}}}}


def battle_lines(folder: Path, who: str) -> list[str]:
    """The sentences of month 8's battle in ``who``'s chronicle, as its report tells them (read from the log)."""
    from kingdomlog.views.player.page import player_view

    hist = player_view(folder, who).history
    assert hist is not None
    month = next(s for s in hist.stories if s.turn == 8)
    lines = [*month.lines, *(x for sec in month.sections.values() for x in sec)]
    return [line for line in lines if "battle at" in line.lower()]


@pytest.fixture
def table(tmp_path: Path, python: str, subprocess_env: dict[str, str]) -> Any:
    if not (FELMONTE / "campaign.toml").is_file():
        pytest.skip("campaigns/felmonte is not built")
    folder = tmp_path / "felmonte"
    shutil.copytree(FELMONTE, folder, ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    camp = Campaign.open(folder)
    camp.note(f"the GM knows {GM_SECRET}", visibility="gm", title="gm only")
    pbp.set_deadline(camp, orders_due=datetime.now(UTC) + timedelta(days=2), answer_hours=12, auto_resolve=True)
    pbp.publish(camp, Plan.parse(OPENING))
    keys = Credentials.load(folder).issue(["gm", "fabian", "marburg", "public"])
    port = free_port()
    with Server([python, "-m", "kingdomlog", "serve", str(folder), "--port", str(port)], env=subprocess_env,
                ready=r"Serving on (http://\S+?)/?\s") as srv:
        yield folder, srv.url.rstrip("/"), keys


def _browser(p: Any) -> Any:
    return p.chromium.launch(executable_path="/usr/bin/chromium", args=LAUNCH)


class Player:
    """One faction's browser: its context, its page, every websocket frame it received."""

    def __init__(self, browser: Any, base: str, who: str, key: str, width: int = 1000) -> None:
        self.who, self.base = who, base
        self.ctx = browser.new_context(viewport={"width": width, "height": 2400})
        self.page = self.ctx.new_page()
        self.frames: list[str] = []
        self.page.on("websocket", lambda ws: ws.on("framereceived", lambda f: self.frames.append(
            f if isinstance(f, str) else f.decode("utf-8", "replace"))))
        self.texts: list[str] = []
        self.page.goto(f"{base}/login?key={key}")
        self.wait_sheet()

    def wait_sheet(self) -> None:
        self.page.get_by_role("heading", name="Questions for you").wait_for(timeout=90_000)
        self.page.wait_for_timeout(800)

    def reload(self) -> None:
        self.page.goto(f"{self.base}/f/{self.who}/orders/")
        self.wait_sheet()

    def snap(self, name: str) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
        self.texts.append(self.page.content())

    def settle(self) -> None:
        """Let the kernel finish the cells an input changed (the sheet recomputes its check)."""
        self.page.wait_for_timeout(2500)

    def click(self, name: str, done: str) -> None:
        self.settle()
        self.page.get_by_role("button", name=name).click()
        self.page.get_by_text(re.compile(done)).first.wait_for(timeout=90_000)
        self.page.wait_for_timeout(600)

    def answer_first_open(self, pick: int = 0) -> bool:
        """Answer the first open question (its ``pick``-th option); False when none waits."""
        if self.page.get_by_text("No question waits for you.").count():
            return False
        boxes = self.page.get_by_label("Your answer", exact=True)
        if boxes.count():  # one answer of several (a list question, left empty, answers "none")
            options = boxes.first.locator("option").all_inner_texts()
            boxes.first.select_option(label=options[min(pick, len(options) - 1)])
        self.click("Send these answers", r"Answers\.|Answers: not done")
        return True

    def select(self, label: str, option: str, nth: int = 0) -> None:
        self.page.get_by_label(label, exact=True).nth(nth).select_option(label=option)
        self.page.wait_for_timeout(250)


def _month(folder: Path) -> int:
    return Campaign.open(folder).next_turn()


def test_a_whole_month_through_the_one_server(table: Any) -> None:
    folder, base, keys = table
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = _browser(p)
        fab = Player(browser, base, "fabian", keys["fabian"], width=390)  # a player on a phone
        mar = Player(browser, base, "marburg", keys["marburg"])
        fab.snap("01-fabian-opens")
        assert "The poor of Fabia ask for bread" in fab.page.content()
        assert "Giulia" not in fab.page.content() and "Giulia" in mar.page.content()

        # opening questions, answered in each sheet
        fab.page.get_by_label("Your answer", exact=True).first.select_option(label="open the granaries")
        fab.click("Send these answers", r"Answers\.")
        mar.page.get_by_label("Your answer", exact=True).first.select_option(label="Hire (1 wealth, one slot)")
        mar.click("Send these answers", r"Answers\.")

        # command rolls: rolled once by the server and sealed
        for pl in (fab, mar):
            pl.click("Make the command roll", r"Command roll made")
            pl.page.get_by_text("Rolled and sealed").wait_for(timeout=30_000)
            pl.settle()  # the sheet reloads after the write: let its new form settle
        fab.snap("02-fabian-rolled")

        # orders: Fabian introduces liberties (elementary); Marburg marches on Fabia with 3 units
        fab.select("Action", "grant liberties — in the internal affairs phase")
        fab.select("Stake", "Elementary")
        fab.page.get_by_label("Note to the GM").fill(MARKS["fabian"])
        fab.page.keyboard.press("Tab")
        fab.settle()
        fab.page.get_by_text("These orders pass the checks").wait_for(timeout=30_000)
        fab.click("Submit orders", r"Orders submitted")
        mar.select("Action", "march to war — in the war phase")
        mar.page.get_by_label("Target", exact=True).first.select_option(label="Fabia")
        mar.page.get_by_text("Details", exact=True).first.click()
        mar.page.get_by_label("Units", exact=True).first.fill("3")
        mar.page.get_by_label("Note to the GM").fill(MARKS["marburg"])
        mar.page.keyboard.press("Tab")
        mar.settle()
        mar.page.get_by_text("These orders pass the checks").wait_for(timeout=30_000)
        mar.snap("03-marburg-orders")
        mar.click("Submit orders", r"Orders submitted")

        # a message from Marburg to Fabian
        mar.page.get_by_label("Message", exact=True).fill(LETTER)
        mar.page.get_by_label("Subject").fill("a word before the snow")
        mar.page.get_by_role("checkbox", name="fabian").check()
        mar.page.wait_for_timeout(300)
        mar.click("Send message", r"Message sent")

        # ready flags: the orders close when both are ready
        fab.click("I'm done: ready", r"\*?Ready\.?|Ready\b")
        mar.click("I'm done: ready", r"Ready\b")
        assert pbp.status(Campaign.open(folder)).closed == "every player is ready"

        # the questions of the resolution, each in its own sheet, until the month resolves by itself
        asked: dict[str, int] = {"fabian": 0, "marburg": 0}
        deadline = time.monotonic() + 240
        while _month(folder) == 8 and time.monotonic() < deadline:
            moved = False
            for pl in (fab, mar):
                if not [q for q in pbp.questions(Campaign.open(folder), Viewer("player", pl.who)) if not q.answered]:
                    continue  # (the test reads the log to know whom to look at; the player sees it on reload)
                pl.reload()
                if pl.answer_first_open(pick=1):
                    asked[pl.who] += 1
                    moved = True
                    if asked[pl.who] == 1:
                        pl.snap(f"04-{pl.who}-question")
            if not moved:
                pbp.advance(Campaign.open(folder))
        assert _month(folder) == 9, pbp.status(Campaign.open(folder)).as_dict()
        camp = Campaign.open(folder)
        kinds = {q.kind for q in pbp.questions(camp, GM_VIEWER, 8)}
        assert {"dilemma", "candidate", "defender_response", "battle_declaration"} <= kinds, kinds
        assert asked["fabian"] >= 2  # its army's answer and at least one round of declarations
        month = [e for e in camp.events() if e.turn == 8]
        assert any(e.type == "signoria.battle_reported" for e in month)
        assert camp.state().dilemmas["fabian"][0].choice == "give"
        assert camp.verify().ok

        # each faction's report shows the month, the battle told in words (never a raw event type), and the
        # letter reached Fabian
        told = {who: battle_lines(folder, who) for who in ("fabian", "marburg")}
        for pl in (fab, mar):
            assert told[pl.who], pl.who  # both sides see the battle in their chronicle
            pl.page.goto(f"{base}/f/{pl.who}/report/")
            pl.page.get_by_text("after month 8").first.wait_for(timeout=90_000)
            for line in told[pl.who]:
                pl.page.get_by_text(line, exact=False).first.wait_for(state="attached", timeout=60_000)
            text = " ".join((pl.page.locator("body").text_content() or "").split())
            assert not re.search(r"\b(signoria|core)\.[a-z_]+\b|battle_reported", text, re.I), pl.who
            pl.snap(f"05-{pl.who}-report")
        fab.reload()
        fab.page.get_by_text(LETTER).first.wait_for(timeout=60_000)
        fab.snap("06-fabian-letter")

        # no marker of the rival (nor the GM's) in any page or websocket frame a faction received
        for pl, rival in ((fab, "marburg"), (mar, "fabian")):
            seen = "\n".join(pl.texts + pl.frames + [pl.page.content()])
            assert GM_SECRET not in seen, pl.who
            assert MARKS[rival] not in seen, (pl.who, rival)
            assert MARKS[pl.who] in seen
        assert LETTER in "\n".join(mar.frames + mar.texts)  # the sender sees its own letter

        # each credential is refused on the other's pages; the GM's pages refuse the factions
        for pl, rival in ((fab, "marburg"), (mar, "fabian")):
            for page in ("orders", "report"):
                r = pl.page.request.get(f"{base}/f/{rival}/{page}/", max_redirects=0)
                assert r.status == 403, (pl.who, rival, page, r.status)
            assert pl.page.request.get(f"{base}/gm/", max_redirects=0).status == 403
        gm = browser.new_context().new_page()
        gm.goto(f"{base}/login?key={keys['gm']}")
        gm.wait_for_url(re.compile(r"/gm/"), timeout=30_000)
        assert gm.request.get(f"{base}/f/fabian/orders/", max_redirects=0).status == 403
        anon = browser.new_context().new_page()
        r = anon.request.get(f"{base}/f/fabian/orders/", max_redirects=0)
        assert r.status == 303 and r.headers["location"].startswith("/?next=")
        browser.close()

    # websockets: a faction's cookie opens no websocket of the other's page
    assert asyncio.run(_ws_refused(base, keys["fabian"], "/f/marburg/orders/ws")) is True
    assert asyncio.run(_ws_refused(base, keys["marburg"], "/f/fabian/report/ws")) is True
    assert asyncio.run(_ws_refused(base, "", "/f/fabian/orders/ws")) is True


async def _ws_refused(base: str, key: str, path: str) -> bool:
    import websockets

    url = base.replace("http://", "ws://") + path + "?session_id=s_test"
    try:
        async with websockets.connect(url, additional_headers={"Cookie": f"{COOKIE}={key}"}, open_timeout=10) as ws:
            await ws.recv()
    except websockets.exceptions.InvalidStatus as exc:
        return bool(exc.response.status_code == 403)
    except websockets.exceptions.ConnectionClosed:
        return False
    return False
