"""Real-browser tests: Debian's chromium driven by Playwright against `kingdomlog gm` and `kingdomlog share`.

Each test serves a COPY of a campaign (the toy campaign, and the bundled demo when
present) on a free localhost port and stops the server by its PID. Screenshots go
to test-artifacts/. The GM sheet's own behaviours (a month of each demo, drafts kept,
one commit per click, undo) are in test_sheet_browser.py.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from nb_support import DRAWN, REPO, SECRET, Kernel, Server, batches_since, free_port, ticking_cells

from kingdomlog.app import Campaign
from kingdomlog.views.sheet import draft as sheet

pytestmark = pytest.mark.browser

ARTIFACTS = REPO / "test-artifacts"
FIRST_RENDER = 120_000  # ms: the first render includes starting marimo's kernel



def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def step_text(page: Any, step: str) -> str:
    return str(page.locator(f'[data-step="{step}"]').inner_text())


def plan_tag(page: Any) -> str | None:
    return page.evaluate("() => { const e = document.querySelector('.kl-page'); return e ? e.dataset.plan : null }")


def change_a_choice(page: Any, kind: str) -> str:
    """Change a choice of an early step through its widget; return a later step whose result it changes."""
    before = plan_tag(page)
    if kind == "toy":
        page.locator('[data-card="harvest"] [data-field="crop"] select').select_option(index=2)  # barley
        later = "harvest"
    else:
        sel = page.locator('[data-card="commerce.taxes"] [data-field="mode"] select')
        texts = sel.evaluate("e => Array.from(e.options).map(o => o.text)")
        sel.select_option(index=next(i for i, t in enumerate(texts) if t.startswith("flat check")))
        later = "commerce.taxes"
    page.wait_for_function("(b) => { const e = document.querySelector('.kl-page'); return e && e.dataset.plan"
                           " !== b }", arg=before, polling="raf", timeout=30_000)
    return later


def press(page: Any, selector: str) -> None:
    """Click a dice button of the sheet (Roll, Roll all) and wait for the draft it makes to be drawn."""
    before = plan_tag(page)
    page.locator(selector).first.click()
    page.wait_for_function("(b) => { const e = document.querySelector('.kl-page'); return e && e.dataset.plan"
                           " !== b }", arg=before, polling="raf", timeout=30_000)


def test_gm_sheet_recomputes_commits_and_the_player_view_shows_it(
    browser: Any, campaign: Path, subprocess_env: dict[str, str]
) -> None:
    kind = "toy" if campaign.name == "farm" else "demo"
    start = sheet.load_start(campaign)
    files_before = sorted((campaign / "log").glob("*.parquet"))
    head_before = Campaign.open(campaign).head_seq

    port = free_port()
    with Server([sys.executable, "-m", "kingdomlog", "gm", str(campaign), "--headless", "--port", str(port)],
                env=subprocess_env, ready=r"GM turn sheet for .*: (http://\S+)") as gm:
        page = browser.new_page(viewport={"width": 1400, "height": 1200})
        kernel = Kernel(page, ticking=ticking_cells("turn_sheet"))
        page.goto(gm.url)
        page.locator(DRAWN).first.wait_for(timeout=FIRST_RENDER)
        shot(page, f"gm-{kind}-1-loaded")
        later = "harvest" if kind == "toy" else "commerce.taxes"
        if kind == "demo":  # the month's resource dice are rolled first: the taxes' check then waits for its Roll
            press(page, '[data-card="upkeep.resources"] [data-kl-act="roll"]')
        before = step_text(page, later)
        change_a_choice(page, kind)
        deadline = time.monotonic() + 20
        while step_text(page, later) == before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert step_text(page, later) != before
        assert Campaign.open(campaign).head_seq == head_before  # changing choices never writes
        shot(page, f"gm-{kind}-2-changed")

        press(page, '[data-kl-act="roll_all"]')  # every die of the month, as the choices stand
        commit = page.get_by_role("button", name=f"✔ Commit {start.when}")
        commit.and_(page.locator(":enabled")).wait_for(timeout=30_000)
        commit.click()
        page.get_by_text(re.compile(rf"Committed {re.escape(start.when)}")).first.wait_for(timeout=60_000)
        page.locator(f'{DRAWN}[data-turn="{start.turn + 1}"]').wait_for(timeout=60_000)
        shot(page, f"gm-{kind}-3-committed")
        kernel.settled()  # a second run of the commit cell (the button fired twice) would have written by now
        page.close()

    files_after = sorted((campaign / "log").glob("*.parquet"))
    assert len(files_after) == len(files_before) + 1
    assert len(batches_since(campaign, head_before)) == 1  # one click, one batch
    camp = Campaign.open(campaign)
    new = [e for e in camp.events() if e.seq > head_before]
    assert new and {e.turn for e in new} == {start.turn}
    assert camp.next_turn() == start.turn + 1
    res = subprocess.run([sys.executable, "-m", "kingdomlog", "verify", str(campaign)], env=subprocess_env,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr

    viewer = "alice" if kind == "toy" else "public"
    port = free_port()
    with Server([sys.executable, "-m", "kingdomlog", "share", str(campaign), "--as", viewer, "--port", str(port)],
                env=subprocess_env, ready=r"Read-only view of .*: (http://\S+)") as view:
        frames: list[str] = []
        page = browser.new_page(viewport={"width": 1200, "height": 1200})
        page.on("websocket", lambda ws: (ws.on("framereceived", lambda f: frames.append(str(f))),
                                         ws.on("framesent", lambda f: frames.append(str(f)))))
        page.goto(view.url)
        page.get_by_role("heading", name="Chronicle").wait_for(timeout=FIRST_RENDER)
        label = f"{start.turn_unit.capitalize()} {start.turn}"
        page.get_by_text(label).first.wait_for(timeout=30_000)
        page.get_by_text(re.compile("public note|The kingdom")).first.wait_for(timeout=30_000)
        shot(page, f"player-{kind}")
        content = page.content()
        assert SECRET not in content
        assert frames, "no websocket frames captured"
        assert not [f for f in frames if SECRET in f]
        if kind == "toy":
            assert "toy.secret_stash" not in content
        # without the password the page does not open: wait for the refusal (the login form), not a fixed time
        anon = browser.new_page()
        anon.goto(view.url.split("?")[0])
        anon.locator("input[type=password]").wait_for(timeout=30_000)
        assert "The kingdom" not in anon.content() and "__MARIMO_MOUNT_CONFIG__" not in anon.content()
        anon.close()
        page.close()
