"""Signoria's served player page (`kingdomlog share --as FACTION`) shows one faction nothing a rival hides.

Issue (signoria) asks that no hidden value reach "the served player page": on a copy of the Felmonte demo we
plant recognisable secrets of marburg (its Wealth set by a ruling only marburg may see, and notes for marburg
and the GM), serve fabian's view in a real browser, and search the rendered page and every websocket frame.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

import pytest
from nb_support import REPO, Server, free_port, number_shown

from kingdomlog.app import Campaign

FELMONTE = REPO / "campaigns" / "felmonte"


@pytest.mark.browser
def test_served_faction_view_never_carries_a_rivals_secret(tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    from nb_support import CHROMIUM
    from test_browser import FIRST_RENDER, shot

    if not CHROMIUM.exists():
        pytest.fail("Debian chromium is missing: .ci/run installs it (apt-get install chromium)")
    folder = tmp_path / "felmonte"
    shutil.copytree(FELMONTE, folder, ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    camp = Campaign.open(folder)
    secret, wealth = "RIVAL-SECRET-5523", 6947
    ruling = {"turn": camp.next_turn() - 1, "type": "signoria.gm_ruling", "visibility": "faction:marburg",
              "payload": {"gap": "test", "text": f"marburg's treasure {secret}",
                          "effects": [{"kind": "set_resource", "faction": "marburg", "resource": "wealth",
                                       "value": wealth}]}}
    camp.append_raw(camp.parse_jsonl([json.dumps(ruling)]))
    camp.note(f"marburg hides {secret}", visibility="faction:marburg", title="marburg only")
    camp.note(f"the GM hides {secret}", visibility="gm", title="gm only")
    camp.note("A public proclamation", visibility="public", title="for everyone")
    assert camp.state().factions["marburg"].wealth == wealth  # type: ignore[attr-defined]

    from playwright.sync_api import sync_playwright

    port = free_port()
    frames: list[str] = []
    with Server([sys.executable, "-m", "kingdomlog", "share", str(folder), "--as", "fabian", "--port", str(port)],
                env=subprocess_env, ready=r"Read-only view of .*: (http://\S+)") as srv, sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM),
                              args=["--no-sandbox", "--headless", "--disable-gpu", "--disable-dev-shm-usage"])
        page = b.new_page(viewport={"width": 1200, "height": 1600})
        page.on("websocket", lambda ws: (ws.on("framereceived", lambda f: frames.append(str(f))),
                                         ws.on("framesent", lambda f: frames.append(str(f)))))
        page.goto(srv.url)
        page.get_by_text("A public proclamation").first.wait_for(timeout=FIRST_RENDER)
        time.sleep(1.0)
        shot(page, "felmonte-view-fabian")
        content = page.content()
        b.close()

    assert frames, "no websocket frames captured"
    assert "marburg" in content  # the rivals' side of the page did render
    for text in [content, *frames]:
        assert secret not in text
        assert number_shown(text, wealth) is None, number_shown(text, wealth)
