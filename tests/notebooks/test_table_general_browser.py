"""The General gives a battle's orders from their own page, in a real browser (issue 30; ``kingdomlog serve``, Debian
chromium, Playwright, a phone-sized page).

On a copy of the pf2e demo the Stag Lord's raiders (revealed) stand in the militia's hex and the GM's month has the
battle set up with the raiders' orders for two rounds. Kesh, the General, opens ``/p/kesh/``: the battle is a seat
of his, its orders the GM board's ``rounds`` form (no JSON field), its army picks the kingdom's militia only. He
picks the militia's war action and target for both rounds through the dropdowns, declares, and rolls: no frame
held the faces before Roll, and his proposal shows the battle as the GM's board draws it (each check's chances).
The GM accepts the row and commits the month: the militia's war actions are Kesh's acts in the log, the raiders'
the GM's, and the battle's numbers equal those of the same battle played from a plan written by hand with the faces
rolled at the table.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
from nb_support import copy_demo
from test_table_browser import Seat, _browser, serve

from kingdomlog.app import Campaign
from kingdomlog.app import table as tbl
from kingdomlog.app.drafts import Drafts
from kingdomlog.core.turn import Plan
from kingdomlog.rulesets.pf2e import events as E

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "table"))

from test_table_general import BATTLE, ENEMY, ORDERS, STEP, enemy_enters, facts, gm_battle

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WORDS = {"militia": "Brightwater Militia", "raiders": "Stag Raiders", "advance": "Advance", "guard": "Guard"}


def no_json_field(seat: Any) -> None:
    """No field of the seat is a JSON text field: no text area, no input whose label or placeholder says JSON."""
    got = seat.evaluate("""(root) => {
        const out = [];
        const walk = (r) => {
          for (const e of r.querySelectorAll('textarea, input')) {
            const label = (e.closest('label') || {}).textContent || '';
            const json = /json/i.test((e.placeholder || '') + label);
            if (e.tagName === 'TEXTAREA' || json) out.push(e.outerHTML.slice(0, 120));
          }
          for (const x of r.querySelectorAll('*')) { if (x.shadowRoot) walk(x.shadowRoot); }
        };
        walk(root);
        return out;
    }""")
    assert got == [], got


def test_the_general_gives_two_rounds_of_orders_from_his_page(tmp_path: Path, python: str,
                                                              subprocess_env: dict[str, str]) -> None:
    from playwright.sync_api import sync_playwright

    folder = copy_demo(tmp_path / "stolen-lands")
    camp = Campaign.open(folder)
    enemy_enters(camp)
    gm_battle(camp)
    twin = copy_demo(tmp_path / "twin")
    enemy_enters(Campaign.open(twin))
    turn, head = camp.next_turn(), camp.head_seq
    srv, keys = serve(folder, python, subprocess_env)
    with srv, sync_playwright() as p:
        browser = _browser(p)
        kesh = Seat(browser, srv.url.rstrip("/"), keys["kesh"])
        kesh.page.get_by_role("heading", name=re.compile("General: orders of battle 1")).wait_for(timeout=60_000)
        seat = kesh.page.locator(".kl-seat").filter(has_text="General: orders of battle 1")
        no_json_field(seat)
        assert "Round 1" in seat.inner_text() and "Round 2" in seat.inner_text()
        armies = seat.get_by_label("Army", exact=True).first.locator("option").all_inner_texts()
        assert [a for a in armies if a.strip() and a != "--"] and all("Stag" not in a for a in armies)
        for r, (order,) in enumerate(ORDERS):
            n = 2 * r  # each round offers two orders to fill
            for label, key in (("Army", "army"), ("Action", "action"), ("Target", "target")):
                box = seat.get_by_label(label, exact=True).nth(n)
                box.select_option(label=next(o for o in box.locator("option").all_inner_texts()
                                             if o.startswith(WORDS[order[key]])))
                kesh.page.wait_for_timeout(1800)  # the form rebuilds with what the pick opens
        no_json_field(seat)
        seat.get_by_role("button", name="Declare").click()
        kesh.page.get_by_text(re.compile(r"declared: not rolled yet")).first.wait_for(timeout=60_000)
        kesh.page.wait_for_timeout(800)
        before = kesh.seen()
        kesh.click("Roll", r"^rolled: ")
        camp = Campaign.open(folder)
        (prop,) = tbl.mine(camp, camp.viewer("kesh"))
        assert prop.status == "rolled" and prop.row == {"rounds": [[{**o, "engage": True} for o in r] for r in ORDERS]}
        assert "Round 1:" in prop.outcome and "Round 2:" in prop.outcome
        assert prop.outcome not in before and 'class="kl-face"' not in before
        kesh.page.locator(".kl-board-outcome").first.wait_for(timeout=20_000)  # the battle, once: on its board
        board = kesh.page.locator(".kl-board").first.inner_text()  # the battle as the GM's board draws it
        assert "Round 2" in board and "chances:" in board and "Stag Raiders" in board
        kesh.shot("6-general-rolled")

        # the GM accepts the orders into the battle and commits the month
        tbl.accept(camp, prop.id)
        gm = Drafts(folder).load(turn)
        assert gm is not None
        camp = Campaign.open(folder)
        tp = camp.preview(gm.plan)
        assert tp.ok, tp.error
        camp.commit(tp, plan=gm.plan)
        kesh.page.get_by_text(re.compile(rf"Month {turn + 1} · your seats")).wait_for(timeout=20_000)
        browser.close()

    logged = [e for e in Campaign.open(folder).events() if e.seq > head and e.phase == STEP]
    acts = {(e.payload.army, e.payload.action, e.actor) for e in logged if isinstance(e.payload, E.WarActionTaken)
            and e.payload.action in ("advance", "guard")}
    assert ("militia", "advance", "kesh") in acts and ("raiders", "advance", "gm") in acts
    # the same battle from a plan written by hand, with the faces rolled at the table: the same numbers
    rounds = [[*ENEMY[r], *ORDERS[r]] for r in range(2)]
    plan = Plan.parse({"turn": turn, "seed": "gm-seed", "dice": "auto", "steps": {STEP: {
        "choices": {"battles": [{**BATTLE, "rounds": rounds}]}, "rolls": prop.faces}}})
    mine = next(s for s in Campaign.open(twin).preview(plan).steps if s.phase.id == STEP)
    assert mine.error is None, mine.error
    assert facts(logged) == facts(mine.drafts) and len(facts(logged)) >= 8
