"""Helpers for the notebook tests: campaigns (toy ruleset, and the pf2e demo once it exists), notebook loading."""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
TESTS = REPO / "tests"
DEMO = REPO / "campaigns" / "stolen-lands"
SECRET = "SECRET-PLUM-7731"
"""Text of a GM-only note planted in every test campaign; no player view may contain it."""
DRAWN = '.kl-page:not([data-plan=""]):not([data-kl-later])'
"""The GM sheet's page once its live parts are filled (views.sheet.live sets ``data-plan`` last) and every card's
widgets mounted (the cards below the window are mounted after the page is drawn, while ``data-kl-later`` is set)."""
CHROMIUM = Path("/usr/bin/chromium")
"""Debian's chromium, which ``.ci/run`` installs; Playwright drives it (no browser download)."""
LAUNCH = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"]
"""How every browser test starts it."""


@contextmanager
def chromium(*, scrollbars: bool = False) -> Iterator[Any]:
    """Debian's chromium under Playwright, started as every browser test starts it; ``scrollbars``: shown, as a
    desktop browser shows them (headless chromium hides them, which hides a table cut at a panel's edge)."""
    if not CHROMIUM.exists():
        pytest.fail("Debian chromium is missing: .ci/run installs it (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH,
                              ignore_default_args=["--hide-scrollbars"] if scrollbars else None)
        try:
            yield b
        finally:
            b.close()


DEEP = """(what) => { const out = [];
  const walk = (root) => { for (const e of root.querySelectorAll('*')) if (e.shadowRoot) {
      out.push(what === 'html' ? e.shadowRoot.innerHTML : e.shadowRoot.textContent); walk(e.shadowRoot); } };
  walk(document); return out.join('\\n'); }"""
"""What a page holds in its (open) shadow roots: a widget's HTML is in one (``page.content()`` and ``innerText``
leave them out)."""


def page_text(page: Any) -> str:
    """A browser page's text, with what its widgets' shadow roots hold (a player's live parts are there)."""
    return str(page.inner_text("body")) + "\n" + str(page.evaluate(DEEP, "text"))


def page_html(page: Any) -> str:
    """A browser page's HTML, with what its widgets' shadow roots hold."""
    return str(page.content()) + "\n" + str(page.evaluate(DEEP, "html"))


def panel_records(page: str, title: str) -> list[dict[str, str]]:
    """The records of the kingdom panel's table ``title`` (``views.sheet.panel.records_table``) as a GM reads them,
    each its fields by their names in words: its columns by their heads, and the fields said on the line below it
    (``kl-below``) by theirs ("Morale 2" gives ``{"Morale": "2"}``, "Features: Bridge" ``{"Features": "Bridge"}``,
    "Hex 4" ``{"Hex": "4"}``, a true one said by its name alone ``{"Explored": "yes"}``). ``page``: the panel's
    HTML (or a page holding it)."""
    import html

    def said(x: str) -> str:
        return html.unescape(re.sub(r"<[^>]+>", "", x)).strip()

    section = next(s for s in re.findall(r"<details.*?</details>", page, re.S)
                   if re.search(rf"<summary>{re.escape(title)} \(", s))
    heads = [said(x) for x in re.findall(r"<th[^>]*>(.*?)</th>", section.split("</thead>")[0], re.S)]
    out: list[dict[str, str]] = []
    for cls, row in re.findall(r'<tr(?: class="([^"]*)")?>(.*?)</tr>', section.split("</thead>")[1], re.S):
        if cls != "kl-below":
            out.append(dict(zip(heads, (said(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)),
                                strict=True)))
            continue
        for item in row.split('<span class="kl-below-item">')[1:]:
            key = re.match(r'<span class="kl-below-k">(.*?)</span>(.*)', item, re.S)
            if key is None:
                out[-1][said(item).rstrip(" ·")] = "yes"
            else:
                out[-1][said(key.group(1)).removesuffix(":")] = said(key.group(2)).rstrip(" ·").strip()
    return out


def load_notebook(name: str) -> ModuleType:
    """Import ``notebooks/<name>.py`` as a module (its ``app`` is what the tests run)."""
    path = NOTEBOOKS / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"kl_notebook_{name}", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def make_toy_campaign(folder: Path) -> Path:
    """A toy-farm campaign: founding, one turn (with a GM-only stash event), a GM-only note."""
    import toyrules

    from kingdomlog.app import Campaign
    from kingdomlog.core.turn import Plan

    camp = Campaign.create(folder, "toy-farm", name="Farm", viewers=["alice"])
    for plan in toyrules.TOY.sample_plans()[:2]:
        camp.play(Plan.parse(plan))
    camp.note(f"the GM hides {SECRET} in the barn", visibility="gm", title="gm only")
    camp.note("market day was sunny", visibility="public", title="public note")
    return folder


def copy_demo(folder: Path) -> Path:
    """A copy of the bundled demo campaign (without its derived cache) with the planted GM note."""
    from kingdomlog.app import Campaign

    shutil.copytree(DEMO, folder, ignore=shutil.ignore_patterns(".cache"))
    Campaign.open(folder).note(f"the GM hides {SECRET} in the vault", visibility="gm", title="gm only")
    return folder


def campaign_kinds() -> list[str]:
    """``toy`` always; ``demo`` when campaigns/stolen-lands exists."""
    return ["toy", "demo"] if (DEMO / "campaign.toml").is_file() else ["toy"]




def demo_session(demo: str, tmp: Path, *, dice: str = "auto") -> Any:
    """The bundled demo ``demo``'s next turn drafted as the GM sheet drafts it (``views.sheet.draft.SheetSession``,
    seed "x"; ``dice="auto"``: every die drawn), on a copy in ``tmp`` without its cache, drafts and table."""
    from kingdomlog.core.turn import Plan
    from kingdomlog.views.sheet.draft import SheetSession, load_start

    folder = tmp / demo
    shutil.copytree(REPO / "campaigns" / demo, folder, ignore=shutil.ignore_patterns(".cache", "drafts", "table"))
    start = load_start(folder, check_forms=False)
    return SheetSession(start, Plan(turn=start.turn, seed="x", dice=dice))


def free_port() -> int:
    """A TCP port on 127.0.0.1 nothing listens on right now."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """A `kingdomlog gm/share` server process: started, its URL read from stdout, stopped by PID.

    Use as a context manager; ``ready`` is a regex whose first group is the URL.
    """

    def __init__(self, cmd: list[str], *, env: dict[str, str], ready: str, timeout: float = 120.0) -> None:
        import queue
        import re
        import subprocess
        import threading
        import time

        self.proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: list[str] = []
        q: queue.Queue[str | None] = queue.Queue()

        def pump() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                q.put(line)
            q.put(None)

        threading.Thread(target=pump, daemon=True).start()
        pattern = re.compile(ready)
        deadline = time.monotonic() + timeout
        self.url = ""
        while time.monotonic() < deadline:
            try:
                line = q.get(timeout=0.5)
            except queue.Empty:
                continue
            if line is None:
                break
            self.lines.append(line)
            m = pattern.search(line)
            if m:
                self.url = m.group(1)
                break
        if not self.url:
            self.stop()
            raise AssertionError("server did not start:\n" + "".join(self.lines[-40:]))

    def stop(self) -> None:
        import subprocess

        if self.proc.poll() is None:
            self.proc.terminate()  # kingdomlog forwards SIGTERM to its marimo server
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def gm_server(folder: Path, env: dict[str, str]) -> Server:
    """``kingdomlog gm`` serving ``folder``'s GM turn sheet (headless, a free port), its URL read."""
    return Server([sys.executable, "-m", "kingdomlog", "gm", str(folder), "--headless", "--port", str(free_port())],
                  env=env, ready=r"GM turn sheet for .*: (http://\S+)")


@contextmanager
def gm_sheet(browser: Any, demo: str, tmp_path: Path, env: dict[str, str], *, width: int = 1280, height: int = 900,
             settle_ms: int = 1000) -> Iterator[Any]:
    """A copy of the bundled demo ``demo`` (without its cache) in ``tmp_path``, its GM turn sheet served and opened
    in ``browser`` at ``width`` x ``height``: the page, once the sheet is drawn (``DRAWN``) and ``settle_ms`` later
    (its side panel's sections laid out). The page is closed and the server stopped after."""
    folder = tmp_path / demo
    shutil.copytree(REPO / "campaigns" / demo, folder, ignore=shutil.ignore_patterns(".cache"))
    with gm_server(folder, env) as srv:
        page = browser.new_page(viewport={"width": width, "height": height})
        try:
            page.goto(srv.url)
            page.locator(DRAWN).first.wait_for(timeout=180_000)
            page.wait_for_timeout(settle_ms)
            yield page
        finally:
            page.close()


class Kernel:
    """A page's marimo kernel as its websocket tells it: each cell's last status (``cell-op`` frames).

    Attach before the page opens (``Kernel(page)``, then ``page.goto``). A write behind a button runs in a
    cell; ``settled`` waits, instead of sleeping, until no cell is queued or running and none has changed
    for ``still`` seconds, so a second run of a write cell (a click that fired twice, a run button that
    stayed true through the reload after the write) has had its chance to show in the log before the
    test counts the log's batches.
    """

    BUSY = ("queued", "running")

    def __init__(self, page: Any, *, ticking: frozenset[str] = frozenset()) -> None:
        import time

        self.page = page
        self.ticking = ticking
        """Cells that run on a timer (``ticking_cells``): never waited for, their runs are no change."""
        self.status: dict[str, str] = {}
        self.changed = time.monotonic()
        self.frames = 0
        page.on("websocket", self._socket)

    def _socket(self, ws: Any) -> None:
        ws.on("framereceived", self._frame)

    def _frame(self, payload: Any) -> None:
        import json
        import time

        try:
            msg = json.loads(payload)
        except (TypeError, ValueError):
            return
        data = msg.get("data") if isinstance(msg, dict) and msg.get("op") == "cell-op" else None
        if isinstance(data, dict) and data.get("status") and data.get("cell_id") \
                and data["cell_id"] not in self.ticking:
            self.status[str(data["cell_id"])] = str(data["status"])
            self.changed = time.monotonic()
            self.frames += 1

    def busy(self) -> list[str]:
        return [cid for cid, st in self.status.items() if st in self.BUSY]

    def settled(self, still: float = 1.5, timeout: float = 90.0) -> None:
        """Wait until every cell of the page's kernel is idle and has been for ``still`` seconds."""
        import time

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.page.wait_for_timeout(100)  # lets Playwright deliver the frames meanwhile
            if self.frames and not self.busy() and time.monotonic() - self.changed >= still:
                return
        raise AssertionError(f"the page's kernel never settled: busy {self.busy()} after {timeout} s")


def ticking_cells(name: str) -> frozenset[str]:
    """The ids of ``notebooks/<name>.py``'s cells that a ``mo.ui.refresh`` runs on its timer (the GM sheet's look at
    the table file, twice a second): marimo numbers a notebook's cells the same way in every process."""
    cells = load_notebook(name).app._cell_manager
    return frozenset(cid for cid, code in zip(cells.cell_ids(), cells.codes(), strict=True) if "_tick.value" in code)


def batches_since(folder: Path, seq: int) -> list[str]:
    """The commit ids of the batches appended to ``folder``'s log after ``seq``, in order (one per write)."""
    from kingdomlog.app import Campaign

    out: list[str] = []
    for e in Campaign.open(folder).events():
        if e.seq > seq and e.commit_id not in out:
            out.append(e.commit_id)
    return out


UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def number_shown(text: str, n: int) -> str | None:
    """Where ``text`` shows the number ``n`` as a number (with 40 characters around it), or None.

    A number a page shows stands between non-word characters (``>7351<``, ``"wealth": 7351``); the same digits
    inside an id or a hash (``a7351f``, a random UUID) are not the number. Counting those failed the orders
    sheet's leak test once in CI, on a page full of random ids and hashes (it passed in the runs before and after);
    a UUID's group between dashes (``85b2-7351-be29``, marimo's ``random-id``) failed it twice on words10.
    """
    text = UUID.sub("uuid", text)  # a UUID's group of digits ("85b2-7351-be29") stands between dashes
    m = re.search(rf"(?<![\w.]){n}(?![\w.])", text)
    return None if m is None else text[max(0, m.start() - 40):m.end() + 40]
