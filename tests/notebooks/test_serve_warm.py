"""Table pages made ahead (``kingdomlog.serve_warm``): a warm session is handed to its own viewer's browser only,
never across a head change, and a second tab of the same player never takes the first tab's session (issue 31).

The server runs in this process (uvicorn in a thread, ``server.build``), so that the tests can look at each page's
warm sessions while real browsers (Debian's chromium) open the pages.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from nb_support import LAUNCH, SECRET, copy_demo, free_port, page_html

from kingdomlog.app import Campaign
from kingdomlog.serve_warm import WarmSessions, failed, ran
from kingdomlog.server import COOKIE, Credentials, build


class InProcess:
    """``build``'s app served by uvicorn in a thread of this process; its table pages' ``WarmSessions``.

    Each marimo kernel started in this process puts its own module in ``sys.modules["__main__"]`` for good (marimo's
    ``patch_main_module``: kernels in threads share one ``sys.modules``), and again at the end of each of its runs
    (``patch_main_module_context``); ``stop`` waits for every kernel of its server to end, then puts this process's
    back, or a later test of the same process that starts a process with ``multiprocessing`` finds a ``__main__``
    without ``__spec__`` (seen in a full run: tests/signoria/test_table.py's real-process tests).
    """

    KERNELS_END = 60.0
    """Seconds ``stop`` waits for the kernels to end: a kernel reads marimo's stop once its run is done."""

    def __init__(self, folder: Path, *, gm_sheet: bool = False) -> None:
        import uvicorn

        self.main = sys.modules["__main__"]
        self.kernels_before = kernel_threads()  # another server's, not this one's to wait for

        self.app, _ = build(folder, tick=None, gm_sheet=gm_sheet)
        self.port = free_port()
        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning",
                                ws="websockets-sansio", lifespan="on", timeout_graceful_shutdown=5)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        until(lambda: self.server.started, 60, "the server did not start")
        self.base = f"http://127.0.0.1:{self.port}"
        self.warm: dict[str, WarmSessions] = {}
        for route in self.app.app.routes:  # type: ignore[attr-defined]  # Front -> Starlette -> Mount -> Gate
            inner = getattr(route.app.app, "app", None)
            manager = getattr(getattr(inner, "state", None), "session_manager", None)
            if manager is not None and manager.warm is not None:
                self.warm[route.app.owner] = manager.warm

    def stop(self) -> None:
        """Stop the server, then wait for its kernels to end before giving ``__main__`` back: the server's lifespan
        closes every session (marimo's ``StopKernelCommand`` to each kernel), but marimo does not join a run-mode
        kernel's thread, and a kernel still starting or running then set its own ``__main__`` after this returned,
        during a later test module (the conftest guard warned for test_words_state_text in a fresh-clone run)."""
        self.server.should_exit = True
        self.thread.join(30)
        deadline = time.monotonic() + self.KERNELS_END
        for kernel in kernel_threads() - self.kernels_before:
            kernel.join(max(0.0, deadline - time.monotonic()))
        left = sorted(t.name for t in kernel_threads() - self.kernels_before)
        sys.modules["__main__"] = self.main
        assert not self.thread.is_alive(), "the server did not stop in 30 s"
        assert not left, f"kernels of this server still run {self.KERNELS_END:.0f} s after it stopped: {left}"


def kernel_threads() -> set[threading.Thread]:
    """The threads of this process that run a marimo kernel: marimo's run mode starts each page's kernel as a
    ``threading.Thread`` whose target is its ``launch_kernel_with_cleanup``, and Python names such a thread
    ``Thread-N (launch_kernel_with_cleanup)``."""
    return {t for t in threading.enumerate() if t.name.endswith("(launch_kernel_with_cleanup)") and t.is_alive()}


def until(ok: Callable[[], bool], seconds: float, why: str) -> None:
    deadline = time.monotonic() + seconds
    while not ok():
        assert time.monotonic() < deadline, why
        time.sleep(0.1)


def all_ready(srv: InProcess) -> bool:
    """Every table page holds a warm session that has run."""
    return all(len(w.kept) == 1 and ran(w.kept[0].session) for w in srv.warm.values())


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str], InProcess]]:
    folder = copy_demo(tmp_path / "stolen-lands")
    keys = Credentials.load(folder).issue(["gm", *Campaign.open(folder).players(), "public"])
    main = sys.modules["__main__"]
    srv = InProcess(folder)
    try:
        yield folder, keys, srv
    finally:
        srv.stop()
    # the kernels this test started leave this process's ``__main__`` as it was (see ``InProcess``)
    assert sys.modules["__main__"] is main


def _open(browser: Any, srv: InProcess, key: str, who: str, ctx: Any = None) -> Any:
    if ctx is None:
        ctx = browser.new_context(viewport={"width": 900, "height": 1600})
        ctx.add_cookies([{"name": COOKIE, "value": key, "url": srv.base}])
    page = ctx.new_page()
    page.goto(f"{srv.base}/p/{who}/")
    page.get_by_role("heading", name="The table").wait_for(timeout=120_000)
    return page


def _sessions(srv: InProcess, who: str) -> list[Any]:
    """The sessions of ``who``'s page a browser is connected to (not the warm ones kept)."""
    return [s for s in srv.warm[who].manager.sessions.values() if s.room.main_consumer is not None]


@pytest.mark.browser
@pytest.mark.slow
def test_a_warm_page_goes_to_its_own_viewer_only_and_never_across_a_head_change(served: Any) -> None:
    from playwright.sync_api import sync_playwright

    folder, keys, srv = served
    assert set(srv.warm) == set(Campaign.open(folder).players())
    until(lambda: all_ready(srv), 150, "the table pages were not made ahead")
    ahead = {who: w.kept[0].session for who, w in srv.warm.items()}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=LAUNCH)
        page = _open(browser, srv, keys["ysolde"], "ysolde")
        assert "Ysolde's table" in page.inner_text("body") and SECRET not in page_html(page)
        # the browser's session is ysolde's warm one, renamed to the browser's id; nobody else's was touched
        assert srv.warm["ysolde"].handed == 1 and srv.warm["ysolde"].made == 1
        assert _sessions(srv, "ysolde") == [ahead["ysolde"]]
        assert ahead["ysolde"]._kernel_manager.app_metadata.cli_args["viewer"] == "ysolde"
        for who, warm in srv.warm.items():
            if who != "ysolde":
                assert warm.handed == 0 and [w.session for w in warm.kept] == [ahead[who]], who
        for who, session in ahead.items():  # each page's warm session runs its own viewer's page
            assert session._kernel_manager.app_metadata.cli_args["viewer"] == who

        # a commit: a warm session made before it is never handed (the open gets a new session, or one made
        # ahead at the new head if the head had settled by the time the browser connected)
        kesh = srv.warm["kesh"]
        stale = kesh.kept[0]
        Campaign.open(folder).note("The ferry at Tatzlford runs again", visibility="public")
        new_head = kesh.tag()
        assert new_head != stale.tag
        made = list(kesh.kept)
        _open(browser, srv, keys["kesh"], "kesh")
        assert kesh.dropped >= 1 and stale.session not in _sessions(srv, "kesh")
        assert stale.session not in kesh.manager.sessions.values()  # closed
        assert len(_sessions(srv, "kesh")) == 1
        # once the head has settled, the page is made ahead again, at the new head, and the next open takes it
        until(lambda: len(kesh.kept) == 1 and ran(kesh.kept[0].session), 120, "not made again after the commit")
        fresh = kesh.kept[0]
        assert fresh.tag == new_head and fresh.session is not stale.session and fresh not in made
        handed = kesh.handed
        _open(browser, srv, keys["kesh"], "kesh")
        assert kesh.handed == handed + 1 and fresh.session in _sessions(srv, "kesh")
        browser.close()


@pytest.mark.browser
@pytest.mark.slow
def test_a_second_tab_of_the_same_player_leaves_the_first_tabs_work_alone(served: Any) -> None:
    from playwright.sync_api import sync_playwright

    _folder, keys, srv = served
    until(lambda: all_ready(srv), 150, "the table pages were not made ahead")
    mine = srv.warm["ysolde"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=LAUNCH)
        first = _open(browser, srv, keys["ysolde"], "ysolde")
        assert mine.handed == 1
        typed = "MARK-TYPED-IN-THE-FIRST-TAB"
        first.get_by_placeholder("say something to the table").fill(typed)
        first.wait_for_timeout(500)
        second = _open(browser, srv, keys["ysolde"], "ysolde", ctx=first.context)  # the same browser, a new tab
        # the second tab got a session of its own (the next warm one or a new one), not the first tab's
        sessions = _sessions(srv, "ysolde")
        assert len(sessions) == 2 and sessions[0] is not sessions[1]
        # the first tab kept what was typed, and its kernel: Say goes through from it
        assert first.get_by_placeholder("say something to the table").input_value() == typed
        assert first.get_by_role("alert").filter(has_text="did not open properly").count() == 0
        first.get_by_role("button", name="Say").click()
        first.get_by_text(typed).first.wait_for(timeout=30_000)  # in its feed
        second.get_by_text(typed).first.wait_for(timeout=30_000)  # and live in the other tab's
        browser.close()


# ---- WarmSessions alone: what is handed, to whom, at which head (no browser) -----------------------------------

class _Session:
    """What ``WarmSessions`` asks of a marimo session: its connection and kernel, its run, its instantiate."""

    def __init__(self, viewer: str) -> None:
        from marimo._session.model import ConnectionState
        from marimo._session.types import KernelState

        self.viewer, self.closed, self.runs = viewer, False, 0
        self.state, self.kernel = ConnectionState.ORPHANED, KernelState.RUNNING

    def connection_state(self) -> Any:
        return self.state

    def kernel_state(self) -> Any:
        return self.kernel

    def instantiate(self, *_args: Any, **_kwargs: Any) -> None:
        self.runs += 1


class _Manager:
    """One page's session manager as ``WarmSessions`` uses it (one viewer's page)."""

    def __init__(self, viewer: str) -> None:
        self.viewer = viewer
        self.by_id: dict[str, _Session] = {}
        self._repository = self
        self.workspace = self

    def get_unique_file_key(self) -> str:
        return "table_page.py"

    async def _create_session(self, sid: str, *_args: Any) -> _Session:
        self.by_id[sid] = _Session(self.viewer)
        return self.by_id[sid]

    def update_session_id_sync(self, old: str, new: str) -> bool:
        self.by_id[new] = self.by_id.pop(old)
        return True

    def close_session(self, sid: str) -> bool:
        self.by_id.pop(sid).closed = True
        return True


def test_a_warm_session_is_handed_once_to_its_own_page_at_its_own_head_only() -> None:
    import asyncio

    head = ["h1"]

    async def go() -> None:
        pages = {who: WarmSessions(_Manager(who), lambda: head[0]) for who in ("ysolde", "kesh")}
        made = {who: (await w.make()).session for who, w in pages.items()}
        assert all(s.runs == 1 for s in made.values())  # run once, ahead
        got = await pages["ysolde"].take("browser-1")
        assert got is made["ysolde"] and pages["ysolde"].manager.by_id == {"browser-1": got}
        got.instantiate()  # the browser's connection asks marimo to run the notebook: it has run
        assert got.runs == 1
        assert await pages["ysolde"].take("browser-2") is None  # handed once: a second tab gets a new session
        assert pages["kesh"].kept[0].session is made["kesh"] and pages["kesh"].handed == 0
        head[0] = "h2"  # a commit
        assert await pages["kesh"].take("browser-3") is None
        assert made["kesh"].closed and pages["kesh"].dropped == 1 and not pages["kesh"].kept
        fresh = (await pages["kesh"].make()).session
        assert await pages["kesh"].take("browser-3") is fresh and fresh.viewer == "kesh"
        gone = (await pages["ysolde"].make()).session
        gone.state = type(gone.state).CLOSED  # a session closed meanwhile is not handed either
        assert await pages["ysolde"].take("browser-4") is None and gone.closed

    asyncio.run(go())


def test_the_keeper_closes_a_page_made_at_an_old_head_and_makes_it_again_once_settled() -> None:
    import asyncio

    from kingdomlog.serve_warm import keep_warm

    head = ["h1"]

    async def go() -> None:
        page = WarmSessions(_Manager("ysolde"), lambda: head[0])
        task = asyncio.create_task(keep_warm([page], lambda: head[0], every=0.01, settle=0.3, run_wait=0))
        await asyncio.sleep(0.1)
        assert page.made == 1 and [w.tag for w in page.kept] == ["h1"]  # at the start: at once
        first = page.kept[0].session
        head[0] = "h2"
        await asyncio.sleep(0.1)
        assert first.closed and not page.kept  # the head moved: closed at once, not made again yet
        await asyncio.sleep(0.4)
        assert page.made == 2 and [w.tag for w in page.kept] == ["h2"]  # settled: made again
        task.cancel()

    asyncio.run(go())


@pytest.mark.browser
@pytest.mark.slow
def test_a_page_made_ahead_whose_run_failed_is_not_handed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first run of the table page (a page made ahead, at the server's start) fails in a cell: the browser is
    not given that session; it gets a new one, which draws, and no failure is shown."""
    from playwright.sync_api import sync_playwright

    from kingdomlog.views.table import seat

    real, calls = seat.open_page, []

    def open_page(*args: Any, **kwargs: Any) -> Any:
        calls.append(args[1])
        if len(calls) == 1:
            raise RuntimeError("a failure of the page's first run")
        return real(*args, **kwargs)

    monkeypatch.setattr(seat, "open_page", open_page)
    folder = copy_demo(tmp_path / "stolen-lands")
    keys = Credentials.load(folder).issue(["gm", *Campaign.open(folder).players(), "public"])
    srv = InProcess(folder)
    try:
        until(lambda: all_ready(srv), 150, "the table pages were not made ahead")
        broken = next(w for w in srv.warm.values() if failed(w.kept[0].session))
        who = next(k for k, w in srv.warm.items() if w is broken)
        bad = broken.kept[0].session
        assert [w for w in srv.warm.values() if failed(w.kept[0].session)] == [broken]
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=LAUNCH)
            page = _open(browser, srv, keys[who], who)
            page.wait_for_timeout(1000)
            assert broken.handed == 0 and broken.dropped == 1 and bad not in _sessions(srv, who)
            assert page.get_by_role("alert").filter(has_text="did not open properly").count() == 0
            assert "Cannot open your table" not in page.inner_text("body")
            browser.close()
    finally:
        srv.stop()


@pytest.mark.slow
def test_a_stopped_server_leaves_no_kernel_running_and_this_processs_main_as_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A page's kernel still in its first run when the server stops: marimo stops a run-mode kernel with a command
    it reads once the run is done, and does not wait for its thread; the run, when it ends, puts the kernel's own
    module back in ``sys.modules["__main__"]`` (marimo's ``patch_main_module_context``), after ``InProcess.stop``
    gave this process's back (the conftest guard then warned for the next module of the worker, a fresh-clone
    run: test_words_state_text). ``stop`` returns once every kernel of its server has ended."""
    from kingdomlog.views.table import seat

    real, running = seat.open_page, threading.Event()

    def open_page(*args: Any, **kwargs: Any) -> Any:
        running.set()
        time.sleep(3)  # the page's first run still going when the server stops
        return real(*args, **kwargs)

    monkeypatch.setattr(seat, "open_page", open_page)
    folder = copy_demo(tmp_path / "stolen-lands")
    Credentials.load(folder).issue(["gm", *Campaign.open(folder).players(), "public"])
    main, before = sys.modules["__main__"], kernel_threads()
    srv = InProcess(folder)
    try:
        until(running.is_set, 150, "no table page was made ahead")
        assert kernel_threads() - before  # its kernel: a thread of this process, as kernel_threads finds them
        assert sys.modules["__main__"] is not main  # the kernel's own (marimo's patch_main_module)
    finally:
        srv.stop()
    assert not kernel_threads() - before
    time.sleep(4)  # longer than the run that was going when the server stopped
    assert not kernel_threads() - before
    assert sys.modules["__main__"] is main
