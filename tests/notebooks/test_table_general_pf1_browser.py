"""The pf1 General gives a battle's orders from their own page, in a real browser (issue 30; ``kingdomlog serve``,
Debian chromium, Playwright, a phone-sized page).

On a copy of the pf1 demo the Stag Lord's raiders stand in the Tatzlford Guard's hex and the GM's month has the battle
set up with the raiders' orders for two Melee phases. Amiri, the General, opens her page: the battle is a seat of
hers, its orders the GM board's fields of the Guard's side (no JSON field, none of the enemy's orders). She picks the
Guard's strategy of both phases through the dropdowns, declares and rolls: no frame held the outcome before Roll, and
her proposal shows the battle as the GM's board draws it. The GM accepts the row and commits the month: the battle's
numbers equal those of the same battle played from a plan written by hand with the faces rolled at the table.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from test_table_browser import Seat, _browser, serve
from test_table_general_browser import no_json_field

from kingdomlog.app import Campaign
from kingdomlog.app import table as tbl
from kingdomlog.app.drafts import Drafts
from kingdomlog.core.turn import Plan

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "table"))

from test_table import table_copy
from test_table_general_pf1 import BATTLE, ENEMY_ROUNDS, ORDERS, STEP, gm_battle, raiders_enter

pytestmark = [pytest.mark.browser, pytest.mark.slow]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def test_the_pf1_general_gives_two_phases_of_orders_from_her_page(tmp_path: Path, python: str,
                                                                  subprocess_env: dict[str, str]) -> None:
    from playwright.sync_api import sync_playwright

    camp = table_copy(tmp_path, "river-kingdom")
    raiders_enter(camp)
    gm_battle(camp)
    folder = camp.folder
    twin = table_copy(tmp_path / "twin", "river-kingdom")
    raiders_enter(twin)
    turn, head = camp.next_turn(), camp.head_seq
    srv, keys = serve(folder, python, subprocess_env)
    with srv, sync_playwright() as p:
        browser = _browser(p)
        amiri = Seat(browser, srv.url.rstrip("/"), keys["amiri"])
        amiri.page.get_by_role("heading", name=re.compile("General: orders of battle 1")).wait_for(timeout=60_000)
        seat = amiri.page.locator(".kl-seat").filter(has_text="General: orders of battle 1")
        no_json_field(seat)
        seat.get_by_label("Our strategy", exact=True).first.wait_for(timeout=30_000)
        assert seat.get_by_label("Our strategy", exact=True).count() >= 2  # one per Melee phase the GM set up
        assert seat.get_by_label("Our tactic", exact=True).count() >= 1  # in words, not "Ours tactic" (issue 29)
        assert "Melee phase 1" in seat.inner_text() and "Rounds" not in seat.inner_text()
        assert not any(w in amiri.seen() for w in ("Enemy strategy", "Enemy tactic", "Enemy's strategy",
                                                   "Enemy's tactic"))  # the GM's orders
        ARTIFACTS.mkdir(exist_ok=True)
        seat.screenshot(path=str(ARTIFACTS / "table-pf1-general-form-390.png"))
        for r, order in enumerate(ORDERS["rounds"]):
            box = seat.get_by_label("Our strategy", exact=True).nth(r)
            box.select_option(label=next(o for o in box.locator("option").all_inner_texts()
                                         if o.startswith(order["ours_strategy"])))
            amiri.page.wait_for_timeout(1800)  # the form rebuilds with what the pick opens
        no_json_field(seat)
        seat.get_by_role("button", name="Declare").click()
        amiri.page.get_by_text(re.compile(r"declared: not rolled yet")).first.wait_for(timeout=60_000)
        amiri.page.wait_for_timeout(800)
        before = amiri.seen()
        amiri.click("Roll", r"^rolled: ")
        camp = Campaign.open(folder)
        (prop,) = tbl.mine(camp, camp.viewer("amiri"))
        assert prop.status == "rolled" and prop.row["rounds"] == ORDERS["rounds"]
        assert prop.row.get("ours_tactic") in (None, "Standard") and not prop.row.get("ours_use")
        assert "Outcome: " in prop.outcome and prop.outcome not in before
        amiri.page.locator(".kl-board-outcome").first.wait_for(timeout=20_000)  # the battle, once: on its board
        board = amiri.page.locator(".kl-board").first.inner_text()  # the battle as the GM's board draws it
        assert "Stag Raiders" in board and "Tatzlford Guard" in board

        # the GM accepts the orders into the battle and commits the month
        tbl.accept(camp, prop.id)
        gm = Drafts(folder).load(turn)
        assert gm is not None
        camp = Campaign.open(folder)
        tp = camp.preview(gm.plan)
        assert tp.ok, tp.error
        camp.commit(tp, plan=gm.plan)
        browser.close()

    logged = [e for e in Campaign.open(folder).events() if e.seq > head and e.phase == STEP]
    # the same battle from a plan written by hand, with the faces rolled at the table: the same numbers
    joined = {**BATTLE, **({"ours_tactic": prop.row["ours_tactic"]} if "ours_tactic" in prop.row else {}),
              "rounds": [{**ENEMY_ROUNDS[r], **ORDERS["rounds"][r]} for r in range(2)]}
    plan = Plan.parse({"turn": turn, "seed": "gm-seed", "dice": "auto",
                       "steps": {STEP: {"choices": {"battles": [joined]}, "rolls": prop.faces}}})
    mine = next(s for s in twin.preview(plan).steps if s.phase.id == STEP)
    assert mine.error is None, mine.error
    got = [(e.type, e.payload.model_dump_json()) for e in logged]
    assert got == [(d.payload.type, d.payload.model_dump_json()) for d in mine.drafts]
    assert sum(t == "pf1.battle_phase_resolved" for t, _ in got) >= 2
