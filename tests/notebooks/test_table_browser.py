"""Players at the table in a real browser, one browser context per person, through ``kingdomlog serve``.

On a copy of the pf2e demo whose GM has a draft that reached the Activity phase, Ysolde (the Ruler) and Kesh
(the General) each open their own ``/p/<id>/`` link on a phone-sized page, declare Quell Unrest (with
Politics +6 and Warfare +1, so that their outcomes' words cannot be the same), see the
odds, press Roll and see the outcome. Every websocket frame each page receives is recorded: before Roll, no
frame and no page holds the face the roll then shows; Kesh's page and frames never hold Ysolde's proposal or
its outcome until the GM accepts it (``app.table.accept``), and then its feed shows it without a reload.
Kesh double-clicks Declare and Roll: one of each is recorded. The GM commits the month: the log records
Ysolde's activity as hers, and Kesh's page opens the next month by itself.
An aikakirjat PC proposes an action the same way. Screenshots at 390 px go to docs/images/table-player-*.png.
"""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from nb_support import LAUNCH, REPO, SECRET, Server, copy_demo, free_port, page_html, page_text

from kingdomlog.app import Campaign
from kingdomlog.app import table as tbl
from kingdomlog.app.drafts import Drafts, SavedDraft
from kingdomlog.core.turn import Plan
from kingdomlog.server import Credentials

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SHOTS = REPO / "docs" / "images"


def gm_draft(folder: Path) -> None:
    camp = Campaign.open(folder)
    Drafts(folder).save(SavedDraft(camp.next_turn(), camp.head_seq,
                                   Plan(dice="auto", seed="gm-seed", turn=camp.next_turn())))


def serve(folder: Path, python: str, env: dict[str, str]) -> tuple[Server, dict[str, str]]:
    camp = Campaign.open(folder)
    keys = Credentials.load(folder).issue(["gm", *camp.players(), "public"])
    srv = Server([python, "-m", "kingdomlog", "serve", str(folder), "--port", str(free_port())], env=env,
                 ready=r"Serving on (http://\S+?)/?\s")
    return srv, keys


class Seat:
    """One person's browser context on their own table page, with every websocket frame it received."""

    def __init__(self, browser: Any, base: str, key: str) -> None:
        self.ctx = browser.new_context(viewport={"width": 390, "height": 2400})
        self.page = self.ctx.new_page()
        self.frames: list[str] = []
        self.page.on("websocket", lambda ws: ws.on("framereceived", lambda f: self.frames.append(
            f if isinstance(f, str) else f.decode("utf-8", "replace"))))
        self.page.goto(f"{base}/login?key={key}")
        self.page.get_by_role("heading", name="Your seats").wait_for(timeout=120_000)
        self.page.get_by_role("heading", name="The table").wait_for(timeout=60_000)
        self.page.wait_for_timeout(1500)

    def seen(self) -> str:
        """Everything this person's browser holds: the page (its widgets' shadow roots too) and every frame so far."""
        return page_html(self.page) + "\n".join(self.frames)

    def pick(self, label: str, starts: str, nth: int = 0) -> None:
        box = self.page.get_by_label(label, exact=True).nth(nth)
        box.select_option(label=next(o for o in box.locator("option").all_inner_texts() if o.startswith(starts)))
        self.page.wait_for_timeout(1800)  # the form rebuilds with the options the choice opens

    def click(self, name: str, then: str, *, double: bool = False) -> None:
        button = self.page.get_by_role("button", name=name).first
        button.dblclick() if double else button.click()
        self.page.get_by_text(re.compile(then)).first.wait_for(timeout=60_000)
        self.page.wait_for_timeout(800)

    def shot(self, name: str) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        feed = self.page.locator(".kl-feed, .kl-feed-empty").last.bounding_box()
        bottom = min(2400, int(feed["y"] + feed["height"] + 24)) if feed else 2400
        self.page.screenshot(path=str(SHOTS / f"table-player-{name}.png"),
                             clip={"x": 0, "y": 0, "width": 390, "height": bottom})


def _browser(p: Any) -> Any:
    return p.chromium.launch(executable_path="/usr/bin/chromium", args=LAUNCH)


def test_two_leaders_declare_and_roll_and_see_only_their_own(tmp_path: Path, python: str,
                                                             subprocess_env: dict[str, str]) -> None:
    from playwright.sync_api import sync_playwright

    folder = copy_demo(tmp_path / "stolen-lands")
    gm_draft(folder)
    srv, keys = serve(folder, python, subprocess_env)
    with srv, sync_playwright() as p:
        browser = _browser(p)
        base = srv.url.rstrip("/")
        ysolde = Seat(browser, base, keys["ysolde"])
        kesh = Seat(browser, base, keys["kesh"])
        assert ysolde.page.url.endswith("/p/ysolde/") and kesh.page.url.endswith("/p/kesh/")
        ysolde.shot("1-opens")

        for who, skill in ((ysolde, "Politics"), (kesh, "Warfare")):  # +6 and +1: their outcomes' words differ
            who.pick("Activity", "Quell Unrest")
            who.pick("Skill", skill)
            who.click("Declare", r"declared: not rolled yet", double=who is kesh)  # Kesh double-clicks
        ysolde.page.locator(".kl-prop").get_by_text("critical success").first.wait_for()  # its odds
        ysolde.shot("2-declared")
        before = {"ysolde": ysolde.seen(), "kesh": kesh.seen()}

        ysolde.click("Roll", r"^rolled: ")
        kesh.click("Roll", r"^rolled: ", double=True)
        ysolde.shot("3-rolled")
        camp = Campaign.open(folder)
        mine = {who: tbl.mine(camp, camp.viewer(who))[0] for who in ("ysolde", "kesh")}
        for who, prop in mine.items():
            assert prop.status == "rolled" and prop.outcome
            face = prop.faces["a1"][0]
            assert f"d20 = {face} " in page_text((ysolde if who == "ysolde" else kesh).page)
            # the face the roll shows was in no page and no frame before Roll was pressed
            assert prop.outcome not in before[who] and 'class="kl-face"' not in before[who]

        # Kesh's browser holds nothing of Ysolde's proposal until the GM accepts it, then its feed shows it
        title, outcome = mine["ysolde"].title, mine["ysolde"].outcome
        kesh.page.wait_for_timeout(1500)
        assert title == "Quell Unrest (Ruler)" and title not in kesh.seen() and outcome not in kesh.seen()
        assert SECRET not in kesh.seen() + ysolde.seen()
        tbl.accept(camp, mine["ysolde"].id)
        written = time.monotonic()  # the accepted line is in the table's file
        kesh.page.get_by_text(re.compile(r"Ysolde.s Quell Unrest \(Ruler\)")).first.wait_for(timeout=15_000)
        print(f"the GM's accept in Kesh's feed {(time.monotonic() - written) * 1000:.0f} ms after it was written")
        assert outcome in page_text(kesh.page)
        assert mine["kesh"].title not in ysolde.seen()  # Kesh's own row is still his and the GM's
        kesh.shot("4-accepted-in-the-feed")
        kesh_lines = [ln.kind for ln in tbl.TableFile(folder, 19).lines() if ln.by == "kesh"]
        assert kesh_lines == ["declared", "rolled"]  # a double click on Declare and on Roll: one of each

        # the GM commits the month: the accepted row is Ysolde's act in the log; the pages open month 20
        gm = Drafts(folder).load(19)
        assert gm is not None
        camp = Campaign.open(folder)
        camp.commit(camp.preview(gm.plan), plan=gm.plan)
        acts = [e for e in Campaign.open(folder).events() if e.turn == 19 and e.actor == "ysolde"]
        assert "pf2e.check_resolved" in [e.type for e in acts]
        assert {e.phase for e in acts} == {"activity.leadership"}
        kesh.page.get_by_text(re.compile(r"Month 20 · your seats")).wait_for(timeout=20_000)
        kesh.page.get_by_text(re.compile(r"the GM is still at")).first.wait_for(timeout=20_000)
        browser.close()


def test_an_aikakirjat_pc_proposes_an_action(tmp_path: Path, python: str, subprocess_env: dict[str, str]) -> None:
    from playwright.sync_api import sync_playwright

    folder = tmp_path / "aikakirjat"
    shutil.copytree(REPO / "campaigns" / "aikakirjat-demo", folder, ignore=shutil.ignore_patterns(".cache"))
    gm_draft(folder)
    srv, keys = serve(folder, python, subprocess_env)
    with srv, sync_playwright() as p:
        browser = _browser(p)
        aino = Seat(browser, srv.url.rstrip("/"), keys["aino"])
        assert "Aino's actions" in aino.page.inner_text("body")
        aino.pick("Action", "Reduce Unrest")
        aino.click("Declare", r"declared: not rolled yet")
        before = aino.seen()
        aino.click("Roll", r"^rolled: ")
        camp = Campaign.open(folder)
        prop = tbl.mine(camp, camp.viewer("aino"))[0]
        assert prop.title == "Reduce Unrest (Aino's actions)" and prop.status == "rolled"
        assert prop.outcome not in before and prop.outcome in page_text(aino.page)
        aino.shot("5-aikakirjat")
        browser.close()
