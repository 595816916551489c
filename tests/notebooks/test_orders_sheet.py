"""A player's orders sheet (notebooks/orders_sheet.py): run with ``app.run(defs=...)`` on a copy of the
Felmonte demo, and once in a real browser through ``kingdomlog orders``.

The sheet's viewer comes from its command line; its only write is ``Campaign.submit`` for that
viewer, once per click of "Submit orders" (a click counter consumed once, as in the GM sheet).
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import marimo as mo
import pytest
from nb_support import NOTEBOOKS, REPO, Server, free_port, load_notebook

from kingdomlog.app import Campaign
from kingdomlog.core.core_events import PlanSubmitted

NB = load_notebook("orders_sheet")
FELMONTE = REPO / "campaigns" / "felmonte"
SEED = "t-seed-1"  # fabian's cmd.1 in turn 8 of the demo: (3, 4), a low-stake success
ORDERS = [{"id": "Q7", "action": "hire_troops", "slots": ["ordinary"], "params": {"units": 1}}]
MARK = "SHEET-NOTE-2291"


@pytest.fixture
def fel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    if not (FELMONTE / "campaign.toml").is_file():
        pytest.skip("campaigns/felmonte is not built")
    folder = tmp_path / "felmonte"
    shutil.copytree(FELMONTE, folder, ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    monkeypatch.setattr("kingdomlog.dice.roller.new_seed", lambda: SEED)
    return folder


class FakeForms:
    def __init__(self, value: dict[str, dict[str, Any]]) -> None:
        self.value = value


def run(folder: Path, viewer: str = "fabian", **overrides: Any) -> Any:
    _, defs = NB.app.run(defs={"folder": folder, "viewer": viewer, **overrides})
    return defs


def clicked(n: int, consumed: int = 0) -> dict[str, Any]:
    done, set_done = mo.state(consumed)
    return {"submit_button": SimpleNamespace(value=n), "get_submits_done": done, "set_submits_done": set_done}


def ui(stake: str = "high", orders: Any = ORDERS, note: str = "") -> dict[str, Any]:
    """What a player types: the stake picked, the orders as JSON text, other fields left empty."""
    return {"forms": FakeForms({"command_fabian": {"stake": stake, "pay": "[]"},
                                "orders_fabian": {"actor": "fabian", "orders": json.dumps(orders),
                                                  "dilemmas": "", "standing": " "}}),
            "note": SimpleNamespace(value=note)}


def test_the_sheet_writes_nothing_without_the_button(fel: Path) -> None:
    head = Campaign.open(fel).head_seq
    defs = run(fel, **clicked(0))
    assert defs["start"]["steps"] == ["command_fabian", "orders_fabian"]
    assert defs["steps"] == {"command_fabian": {"choices": {"stake": "low", "pay": []}},
                             "orders_fabian": {"choices": {"actor": "fabian", "orders": [], "dilemmas": {}}}}
    assert defs["submittable"] is True
    run(fel, **ui(), **clicked(0))
    run(fel, **ui(), **clicked(1, consumed=1))  # a click already handled is never replayed
    assert Campaign.open(fel).head_seq == head


def test_the_submission_is_built_from_the_ui_values(fel: Path) -> None:
    defs = run(fel, **ui(stake="low", note=MARK), **clicked(0))
    assert defs["steps"] == {"command_fabian": {"choices": {"stake": "low", "pay": []}},
                             "orders_fabian": {"choices": {"actor": "fabian", "orders": ORDERS}}}
    assert defs["submittable"] is True


def test_one_click_submits_once_for_the_fixed_viewer(fel: Path) -> None:
    head = Campaign.open(fel).head_seq
    run(fel, **ui(stake="low", note=MARK), **clicked(1))
    camp = Campaign.open(fel)
    new = [e for e in camp.events() if e.seq > head]
    assert [(e.type, e.actor, e.visibility) for e in new] == [("core.plan_submitted", "fabian", "faction:fabian")]
    p = new[0].payload
    assert isinstance(p, PlanSubmitted) and p.note == MARK
    assert p.steps["command_fabian"].rolls == {"cmd.1": [3, 4]}
    assert p.steps["orders_fabian"].choices["orders"] == ORDERS


def test_refused_orders_are_not_submitted(fel: Path) -> None:
    head = Campaign.open(fel).head_seq
    bad = [{"id": "Q1", "action": "hire_troops", "slots": ["special"] * 5, "params": {"units": 1}}]
    defs = run(fel, **ui(orders=bad), **clicked(1))
    assert defs["submittable"] is False
    broken = run(fel, forms=FakeForms({"orders_fabian": {"orders": "[{not json"}}),
                 note=SimpleNamespace(value=""), **clicked(0))
    assert broken["steps"] is None and broken["submittable"] is False
    assert Campaign.open(fel).head_seq == head


def test_the_gm_and_the_public_get_no_sheet(fel: Path) -> None:
    for who in ("gm", "public", "felmonte"):
        defs = run(fel, viewer=who, **clicked(1))
        assert "start" not in defs or defs["start"] is None


def test_the_only_write_is_the_viewers_submission() -> None:
    src = (NOTEBOOKS / "orders_sheet.py").read_text()
    code = "\n".join(line for line in src.splitlines() if not line.lstrip().startswith("#"))
    writes = re.findall(r"\.(commit|append|append_raw|retract|note|play|import_lines|create|write_text|write_bytes"
                        r"|unlink|rmtree|mkdir|rename|touch|submit)\s*\(|\bsubprocess\b|\bos\.system", code)
    assert writes == ["submit"]
    assert 'camp.submit(start["viewer"]' in code


# ---- a real browser ---------------------------------------------------------------------------------------


@pytest.mark.browser
def test_orders_sheet_in_a_browser_submits_and_never_shows_a_rivals_secret(
        tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    """`kingdomlog orders` for fabian on a copy of Felmonte: the page submits one core.plan_submitted that
    only fabian (and the GM) may see, and no page or websocket frame carries marburg's hidden values."""
    from test_browser import CHROMIUM, FIRST_RENDER, shot

    if not CHROMIUM.exists():
        pytest.fail("Debian chromium is missing: .ci/run installs it (apt-get install chromium)")
    if not (FELMONTE / "campaign.toml").is_file():
        pytest.skip("campaigns/felmonte is not built")
    folder = tmp_path / "felmonte"
    shutil.copytree(FELMONTE, folder, ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    camp = Campaign.open(folder)
    # Recognisable secrets, as in tests/signoria/test_leaks.py: marburg's Wealth set to a value no other number
    # of the demo has, by a ruling only marburg may see, and notes for marburg and for the GM.
    secret, wealth = "RIVAL-SECRET-8812", 7351
    ruling = {"turn": 7, "type": "signoria.gm_ruling", "visibility": "faction:marburg",
              "payload": {"gap": "test", "text": f"marburg's treasure {secret}",
                          "effects": [{"kind": "set_resource", "faction": "marburg", "resource": "wealth",
                                       "value": wealth}]}}
    camp.append_raw(camp.parse_jsonl([json.dumps(ruling)]))
    camp.note(f"marburg hides {secret}", visibility="faction:marburg", title="marburg only")
    camp.note(f"the GM hides {secret}", visibility="gm", title="gm only")
    assert camp.state().factions["marburg"].wealth == wealth  # type: ignore[attr-defined]
    assert camp.state(viewer="fabian").factions["marburg"].wealth != wealth  # type: ignore[attr-defined]
    head = camp.head_seq

    from playwright.sync_api import sync_playwright

    port = free_port()
    frames: list[str] = []
    with Server([sys.executable, "-m", "kingdomlog", "orders", str(folder), "--as", "fabian", "--port", str(port)],
                env=subprocess_env, ready=r"Orders sheet of .*: (http://\S+)") as srv, sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM),
                              args=["--no-sandbox", "--headless", "--disable-gpu", "--disable-dev-shm-usage"])
        page = b.new_page(viewport={"width": 1200, "height": 1400})
        page.on("websocket", lambda ws: (ws.on("framereceived", lambda f: frames.append(str(f))),
                                         ws.on("framesent", lambda f: frames.append(str(f)))))
        page.goto(srv.url)
        page.get_by_role("button", name="Submit orders").wait_for(timeout=FIRST_RENDER)
        page.get_by_text("These orders pass the rules' checks").wait_for(timeout=60_000)
        shot(page, "orders-fabian-1-loaded")
        box = page.get_by_role("textbox", name="Orders", exact=True)
        box.fill(json.dumps(ORDERS))
        box.press("Tab")  # text areas send their value on blur
        page.get_by_text(re.compile(r"orders=\[.*Q7")).wait_for(timeout=60_000)
        assert Campaign.open(folder).head_seq == head  # typing orders writes nothing
        page.get_by_role("button", name="Submit orders").click()
        page.get_by_text(re.compile(r"Submitted for month \d+")).wait_for(timeout=60_000)
        page.get_by_text(re.compile(r"Your latest submission: seq \d+")).wait_for(timeout=60_000)
        time.sleep(1.0)  # a second submission would show up here if the click fired twice
        shot(page, "orders-fabian-2-submitted")
        content = page.content()
        anon = b.new_page()
        anon.goto(srv.url.split("?")[0])
        anon.locator("input[type=password]").wait_for(timeout=30_000)  # the refusal, awaited (not slept for)
        anon_content = anon.content()
        b.close()

    camp = Campaign.open(folder)
    new = [e for e in camp.events() if e.seq > head]
    assert [(e.type, e.actor, e.visibility) for e in new] == [("core.plan_submitted", "fabian", "faction:fabian")]
    sub = new[0].payload
    assert isinstance(sub, PlanSubmitted) and sub.steps["orders_fabian"].choices["orders"] == ORDERS
    assert [len(f) for f in sub.steps["command_fabian"].rolls.values()] == [2]
    assert new[0].seq not in {e.seq for e in camp.visible_events("marburg")}
    assert new[0].seq not in {e.seq for e in camp.visible_events("public")}
    assert camp.verify().ok
    assert frames, "no websocket frames captured"
    for text in [content, *frames]:
        assert secret not in text
        assert not re.search(rf"(?<![\d.]){wealth}(?![\d.])", text)
    assert "Submit orders" in content and "marburg" in content  # the page did render the rivals' side
    assert "Submit orders" not in anon_content
