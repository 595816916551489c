"""A table page no browser looks at does no work when the log moves, and catches up when its browser is back
(``views.table.browsers``, ``views.table.live.tick``; issue 31: a new head cost the server seconds of CPU for pages
whose browsers had gone).

A page's session outlives its browser (marimo keeps it 120 s for a tab whose connection dropped); a page made
ahead (``serve_warm``) has no browser until one opens it; and marimo does not stop a kernel's threads when it
closes the session. Here: such a page's watcher computes nothing at a new head, stops with its session, and the
first look once its browser is back shows everything that moved meanwhile, with what its person typed still there.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from nb_support import DRAWN, LAUNCH, SECRET, copy_demo, page_text
from test_serve_warm import InProcess, _open, all_ready, until

from kingdomlog.app import Campaign
from kingdomlog.app import table as tbl
from kingdomlog.server import COOKIE, Credentials
from kingdomlog.views.table import browsers, seat


def _heavy(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every call of a look's heavy part from now on (the feed, the month's preview), by any page of this process:
    the kernels of a served page are threads of this process and call these through ``seat``."""
    calls: list[str] = []
    for name in ("feed_of", "month_waits"):
        real = getattr(seat, name)

        def counted(*args: Any, _real: Any = real, _name: str = name, **kwargs: Any) -> Any:
            calls.append(f"{_name} for {args[0].viewer.id}")
            return _real(*args, **kwargs)

        monkeypatch.setattr(seat, name, counted)
    return calls


class _Session:
    """What ``browsers`` reads of a marimo session: its kernel's thread and its connection."""

    def __init__(self, kernel: threading.Thread) -> None:
        from marimo._session.model import ConnectionState

        self._kernel_manager = SimpleNamespace(kernel_task=kernel)
        self.state = ConnectionState.ORPHANED

    def connection_state(self) -> Any:
        return self.state


@pytest.fixture
def sl(tmp_path: Path) -> Path:
    return copy_demo(tmp_path / "stolen-lands")


def test_a_page_whose_browser_left_looks_at_nothing_and_catches_up_when_it_is_back(
        sl: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from marimo._session.model import ConnectionState

    from kingdomlog.views.table import live

    lv = live.live(seat.open_page(sl, "kesh"), listed=lambda _l: None, waited=lambda _w: None, turned=lambda: None)
    live.watch(lv)  # its first look (run as a script: no thread; the ticks below are the watcher's)
    kernel_done = threading.Event()
    kernel = threading.Thread(target=kernel_done.wait, daemon=True)  # the page's kernel, as marimo runs it
    kernel.start()
    session = _Session(kernel)
    assert browsers.register(session)
    try:
        heavy = _heavy(monkeypatch)
        camp = Campaign.open(sl)
        tbl.say(camp, camp.viewer("maelis"), "SAY-6120: the ford is flooded")
        camp.note("The rider from Tatzlford is here.", visibility="public")  # a new head
        assert [live.tick(lv, kernel) for _ in range(5)] == [False] * 5  # the browser is away: nothing is looked at
        assert heavy == [] and lv.idle == 5 and "SAY-6120" not in lv.feed.widget.html
        session.state = ConnectionState.OPEN  # the browser is back (marimo's reconnect: the same session)
        assert live.tick(lv, kernel) is True  # at once: the first tick
        assert "SAY-6120: the ford is flooded" in lv.feed.widget.html and heavy == ["feed_of for kesh",
                                                                                   "month_waits for kesh"]
        assert SECRET not in lv.feed.widget.html + lv.proposals.widget.html
        assert live.tick(lv, kernel) is False  # caught up: a quiet table again
        session.state = ConnectionState.CLOSED  # the session closed (its TTL ran out): the watcher stops
        assert live.tick(lv, kernel) is None
        session.state = ConnectionState.ORPHANED
        kernel_done.set()
        kernel.join(5)
        assert live.tick(lv, kernel) is None  # its kernel ended: stops as well
    finally:
        kernel_done.set()
    # a page whose kernel this server did not start (``marimo run`` of the notebook, a test): looks as before
    other = threading.Thread(target=lambda: None)
    assert browsers.state(other) == browsers.UNKNOWN
    tbl.say(camp, camp.viewer("maelis"), "SAY-6121: and the bridge")
    assert live.tick(lv, other) is True and "SAY-6121" in lv.feed.widget.html


WS_SPY = """(() => {
  const Real = window.WebSocket;
  window.__klSockets = []; window.__klAway = false;
  function Spy(url, protocols) {
    const ws = new Real(window.__klAway ? 'ws://127.0.0.1:9/away' : url, protocols);
    window.__klSockets.push(ws);
    return ws;
  }
  Spy.prototype = Real.prototype;
  for (const k of ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED']) Spy[k] = Real[k];
  window.WebSocket = Spy;
})();"""
"""Lets a test take a page's connection away (its websockets closed, new ones go nowhere) and give it back: the
page (marimo's frontend) reconnects to its own session as it does after a dropped connection."""


@pytest.mark.browser
@pytest.mark.slow
def test_a_served_page_whose_browser_is_away_does_no_work_at_a_new_head_and_shows_it_when_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from marimo._session.model import ConnectionState
    from playwright.sync_api import sync_playwright

    folder = copy_demo(tmp_path / "stolen-lands")
    keys = Credentials.load(folder).issue(["gm", *Campaign.open(folder).players(), "public"])
    srv = InProcess(folder)
    try:
        until(lambda: all_ready(srv), 150, "the table pages were not made ahead")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=LAUNCH)
            ctx = browser.new_context(viewport={"width": 900, "height": 1600})
            ctx.add_cookies([{"name": COOKIE, "value": keys["ysolde"], "url": srv.base}])
            ctx.add_init_script(WS_SPY)
            page = _open(browser, srv, keys["ysolde"], "ysolde", ctx=ctx)
            [session] = [s for s in srv.warm["ysolde"].manager.sessions.values() if s.room.main_consumer]
            typed = "MARK-TYPED-BEFORE-THE-CONNECTION-DROPPED"
            page.get_by_placeholder("say something to the table").fill(typed)
            page.wait_for_timeout(500)

            page.evaluate("() => { window.__klAway = true; window.__klSockets.forEach(w => w.close()); }")
            until(lambda: session.connection_state() == ConnectionState.ORPHANED, 30, "the browser did not leave")
            heavy = _heavy(monkeypatch)
            camp = Campaign.open(folder)
            tbl.say(camp, camp.viewer("kesh"), "SAY-7733: the ferry is back")
            camp.note("The ferry at Tatzlford runs again.", visibility="public")  # a new head
            time.sleep(1.2)  # twelve of the watchers' ticks (before the pages are made again at the new head, 2 s)
            # neither Ysolde's page (its browser away) nor the pages made ahead (none yet) computed anything
            assert heavy == []
            assert "SAY-7733" not in page_text(page)

            page.evaluate("() => { window.__klAway = false; }")  # the connection is back: the page reconnects
            until(lambda: session.connection_state() == ConnectionState.OPEN, 60, "the page did not reconnect")
            page.get_by_text("SAY-7733: the ferry is back").first.wait_for(timeout=30_000)
            assert [s for s in srv.warm["ysolde"].manager.sessions.values() if s.room.main_consumer] == [session]
            assert "feed_of for ysolde" in heavy  # it caught up, once back
            assert page.get_by_placeholder("say something to the table").input_value() == typed
            page.get_by_role("button", name="Say").click()  # its kernel is the same: what was typed goes through
            page.get_by_text(typed).first.wait_for(timeout=30_000)
            assert SECRET not in page_text(page)
            browser.close()
    finally:
        srv.stop()


@pytest.mark.browser
@pytest.mark.slow
def test_a_closed_sessions_watcher_stops(tmp_path: Path) -> None:
    """marimo closes a session (its TTL ran out, or a page made ahead at an old head) without stopping its
    kernel's threads: each table page's watcher stops with it (before: one more thread per page and commit,
    each computing its page again at every new head, for good)."""
    folder = copy_demo(tmp_path / "stolen-lands")
    Credentials.load(folder).issue(["gm", *Campaign.open(folder).players(), "public"])
    before = set(threading.enumerate())  # another test's pages, in this process
    srv = InProcess(folder)

    def watchers() -> int:
        return sum(t.name == "kingdomlog-table-live" and t.is_alive() and t not in before
                   for t in threading.enumerate())

    try:
        until(lambda: all_ready(srv), 150, "the table pages were not made ahead")
        pages = len(srv.warm)
        until(lambda: watchers() == pages, 30, f"not one watcher per page made ahead ({watchers()})")
        for n in range(2):
            old = {who: w.kept[0].session for who, w in srv.warm.items()}
            Campaign.open(folder).note(f"Commit {n}: the ferry runs.", visibility="public")

            def made_again(old: dict[str, Any] = old) -> bool:
                return all_ready(srv) and all(w.kept[0].session is not old[who] for who, w in srv.warm.items())

            until(made_again, 150, "the pages were not made again")
            until(lambda: watchers() == pages, 10, f"the closed pages' watchers still run ({watchers()})")
    finally:
        srv.stop()


@pytest.mark.browser
@pytest.mark.slow
def test_the_gm_sheets_table_panel_draws_nothing_while_its_tab_is_away_and_catches_up_when_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The GM sheet's table panel (``views.sheet.table.watch``) as a table page's feed: a line said at the table
    while the GM's connection is away is not drawn for nobody; it is on the panel once the sheet reconnects."""
    from marimo._session.model import ConnectionState
    from playwright.sync_api import sync_playwright

    from kingdomlog.views.sheet import table as panel

    folder = copy_demo(tmp_path / "stolen-lands")
    keys = Credentials.load(folder).issue(["gm", *Campaign.open(folder).players(), "public"])
    srv = InProcess(folder, gm_sheet=True)
    gm = next(r.app for r in srv.app.app.routes if r.app.owner == "gm" and r.path == "/gm")  # type: ignore[attr-defined]
    manager = gm.app.app.state.session_manager
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=LAUNCH)
            ctx = browser.new_context(viewport={"width": 1400, "height": 1600})
            ctx.add_cookies([{"name": COOKIE, "value": keys["gm"], "url": srv.base}])
            ctx.add_init_script(WS_SPY)
            page = ctx.new_page()
            page.goto(f"{srv.base}/gm/")
            page.locator(DRAWN).first.wait_for(timeout=180_000)
            [session] = [s for s in manager.sessions.values() if s.room.main_consumer]

            drawn: list[int] = []
            real = panel.draw

            def counted(*args: Any, **kwargs: Any) -> Any:
                drawn.append(1)
                return real(*args, **kwargs)

            monkeypatch.setattr(panel, "draw", counted)
            page.evaluate("() => { window.__klAway = true; window.__klSockets.forEach(w => w.close()); }")
            until(lambda: session.connection_state() == ConnectionState.ORPHANED, 30, "the sheet did not leave")
            camp = Campaign.open(folder)
            tbl.say(camp, camp.viewer("kesh"), "SAY-9041: the GM should see this")
            time.sleep(1.2)  # twelve of the watcher's turns
            assert drawn == []
            page.evaluate("() => { window.__klAway = false; }")
            until(lambda: session.connection_state() == ConnectionState.OPEN, 60, "the sheet did not reconnect")
            page.get_by_text("SAY-9041: the GM should see this").first.wait_for(timeout=30_000)
            assert drawn and [s for s in manager.sessions.values() if s.room.main_consumer] == [session]
            browser.close()
    finally:
        srv.stop()


def test_every_process_that_serves_pages_registers_its_sessions(monkeypatch: pytest.MonkeyPatch) -> None:
    """``kingdomlog gm`` (marimo's own ``run``, ``notebook_server.marimo_main``) and the player pages of ``share`` /
    ``orders`` (``build_app``) make marimo's session manager register each session as ``serve`` does: before, a
    GM sheet reloaded left its table panel's watcher looking at the table for good (an unregistered kernel's
    threads see ``UNKNOWN`` and behave as if a browser were there)."""
    from marimo._server.session_manager import SessionManager

    kernel = threading.Thread(target=time.sleep, args=(5,), daemon=True)
    kernel.start()
    made = _Session(kernel)

    async def create(self: Any, *args: Any, **kwargs: Any) -> Any:
        return made

    monkeypatch.setattr(SessionManager, "_create_session", create)
    assert browsers.state(kernel) == browsers.UNKNOWN
    browsers.register_sessions()
    browsers.register_sessions()  # once: a second call does not wrap the wrapper
    import asyncio

    assert asyncio.run(SessionManager._create_session(object())) is made
    assert browsers.state(kernel) == browsers.AWAY  # registered: no browser, so its watchers rest

    import subprocess
    import sys

    code = ("import runpy; runpy.run_module = lambda *a, **k: None\n"
            "from marimo._server.session_manager import SessionManager as M\n"
            "from kingdomlog.notebook_server import marimo_main, build_app, notebook\n"
            "import pathlib, sys\n"
            "before = getattr(M._create_session, '_kl_registers', False)\n"
            "if sys.argv[1] == 'gm': marimo_main()\n"
            "else: build_app(notebook('table_page'), 'pw', campaign=pathlib.Path('campaigns/stolen-lands'))\n"
            "print(before, getattr(M._create_session, '_kl_registers', False))\n")
    root = Path(__file__).resolve().parents[2]
    for how in ("gm", "share"):
        out = subprocess.run([sys.executable, "-c", code, how], cwd=root, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr[-2000:]
        assert out.stdout.split() == ["False", "True"], (how, out.stdout, out.stderr[-500:])


def test_a_marimo_without_the_session_hook_still_serves_with_a_warning(monkeypatch: pytest.MonkeyPatch,
                                                                        caplog: pytest.LogCaptureFixture) -> None:
    """pyproject.toml names the marimo whose session internals kingdomlog reads; on another whose session manager
    has no ``_create_session`` the pages are still served (their watchers see ``UNKNOWN`` and look as before), and
    the log says why they cannot rest, instead of the server failing to start."""
    from marimo._server.session_manager import SessionManager

    monkeypatch.delattr(SessionManager, "_create_session")
    with caplog.at_level("WARNING", logger=browsers.__name__):
        browsers.register_sessions()
    assert "no _create_session" in caplog.text
    assert not hasattr(SessionManager, "_create_session")
