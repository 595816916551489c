"""Table pages opened at the same moment through ``kingdomlog serve``: each one draws (issue 31).

Two causes of a page that never drew, both threads of the one server process at work at once:
- CPython 3.11 keeps the depth of the AST being converted in one counter shared by every thread: the server
  building a new session's app and a kernel compiling its cells met inside a garbage collection, and one failed
  with ``SystemError: AST constructor recursion depth mismatch`` (``notebook_server.serialize_ast``);
- a fresh server's first opens imported the notebooks' modules in several kernels at once: anywidget, IPython
  and marimo's formatter hooks deadlocked on their import locks, and IPython stayed half-imported for the life of
  the process (``server.preload``).
"""

from __future__ import annotations

import ast
import gc
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from nb_support import LAUNCH, NOTEBOOKS, Server, copy_demo, free_port

from kingdomlog.app import Campaign
from kingdomlog.notebook_server import serialize_ast
from kingdomlog.server import COOKIE, Credentials


class _Finalized:
    """Garbage in a reference cycle whose finalizer is Python code: a collection inside a conversion runs it, and
    the interpreter may hand the GIL to another thread there."""

    def __del__(self) -> None:
        _ = [0] * 8


def _convert_in_threads(seconds: float) -> list[BaseException]:
    """Four threads parsing and compiling the table page's source as marimo's compiler does; the errors seen."""
    import marimo._ast.compiler as compiler

    src = (NOTEBOOKS / "table_page.py").read_text(encoding="utf-8")
    errors: list[BaseException] = []
    stop = time.monotonic() + seconds

    def work() -> None:
        while time.monotonic() < stop and not errors:
            for _ in range(50):
                junk = _Finalized()
                junk.me = junk  # type: ignore[attr-defined]
            try:
                tree = ast.parse(src)
                compiler.ast_compile(tree, "<table_page>", mode="exec", dont_inherit=True)
            except SystemError as exc:
                errors.append(exc)

    old = gc.get_threshold()
    gc.set_threshold(50, 5, 5)  # collections often, as a busy server's allocations make them
    try:
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        gc.set_threshold(*old)
    return errors


def test_asts_converted_in_threads_at_once_do_not_fail() -> None:
    serialize_ast()
    assert _convert_in_threads(0.6) == []


# ---- in a browser: the page says what happened and reloads itself ---------------------------------------------

FAIL_ONCE = """
import asyncio, os, runpy, sys
os.environ["KINGDOMLOG_TABLE_AHEAD"] = "0"  # no page made ahead: the page open itself builds its session
import marimo._ast.load as load
real, seen = load.load_notebook_ir, []
def once(*args, **kwargs):  # the first page open's build of its app fails as CPython 3.11's race made it fail
    try:
        asyncio.get_running_loop()  # in the server's loop: a page open, not the server's start
    except RuntimeError:
        return real(*args, **kwargs)
    if not seen:
        seen.append(1)
        raise SystemError("AST constructor recursion depth mismatch (before=87, after=81)")
    return real(*args, **kwargs)
load.load_notebook_ir = once
sys.argv = ["kingdomlog", *sys.argv[1:]]
runpy.run_module("kingdomlog", run_name="__main__", alter_sys=True)
"""


def _serve(folder: Path, python: str, env: dict[str, str], *,
           prelude: str | None = None) -> tuple[Server, dict[str, str]]:
    camp = Campaign.open(folder)
    keys = Credentials.load(folder).issue(["gm", *camp.players(), "public"])
    head = [python, "-c", prelude] if prelude else [python, "-m", "kingdomlog"]
    srv = Server([*head, "serve", str(folder), "--port", str(free_port())], env=env,
                 ready=r"Serving on (http://\S+?)/?\s")
    return srv, keys


def _context(browser: Any, base: str, key: str) -> Any:
    ctx = browser.new_context(viewport={"width": 900, "height": 1200})
    ctx.add_cookies([{"name": COOKIE, "value": key, "url": base}])
    return ctx


@pytest.mark.browser
@pytest.mark.slow
def test_a_page_whose_kernel_failed_as_it_opened_says_so_and_reloads_itself_then_draws(
        tmp_path: Path, python: str, subprocess_env: dict[str, str]) -> None:
    from playwright.sync_api import sync_playwright

    folder = copy_demo(tmp_path / "stolen-lands")
    srv, keys = _serve(folder, python, subprocess_env, prelude=FAIL_ONCE)
    with srv, sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=LAUNCH)
        base = srv.url.rstrip("/")
        page = _context(browser, base, keys["ysolde"]).new_page()
        page.goto(base + "/p/ysolde/")
        said = page.get_by_role("alert").filter(has_text="This page did not open properly")
        said.wait_for(timeout=90_000)
        assert "reloading itself" in said.inner_text()
        page.get_by_role("heading", name="The table").wait_for(timeout=90_000)
        reloads = page.evaluate("() => JSON.parse(sessionStorage.getItem('kingdomlog-reloads:/p/ysolde/') || '[]')")
        assert len(reloads) == 1
        assert page.get_by_role("alert").filter(has_text="did not open properly").count() == 0
        browser.close()


PRELOADED = """
import sys
from pathlib import Path
from kingdomlog.server import build
build(Path(sys.argv[1]), tick=None, warm=False)
print(" ".join(m for m in ("anywidget", "IPython.display", "kingdomlog.views.table.live", "markdown.extensions.tables")
               if m in sys.modules))
"""


def test_the_server_imports_what_its_pages_kernels_import_before_any_page_opens(
        tmp_path: Path, python: str, subprocess_env: dict[str, str]) -> None:
    import subprocess

    folder = copy_demo(tmp_path / "stolen-lands")
    out = subprocess.run([python, "-c", PRELOADED, str(folder)], env=subprocess_env, capture_output=True, text=True,
                         timeout=120, check=True).stdout.split()
    assert out == ["anywidget", "IPython.display", "kingdomlog.views.table.live", "markdown.extensions.tables"]


def test_a_kept_compile_gives_each_session_a_cell_of_its_own() -> None:
    import marimo._ast.compiler as compiler
    import marimo._runtime.runtime as runtime

    from kingdomlog.server import keep_compiled_cells

    assert keep_compiled_cells()
    assert runtime.compile_cell is compiler.compile_cell
    code = "x = 1\ny = [x, 2]\ny"
    first, second = compiler.compile_cell(code, "Hbol"), runtime.compile_cell(code, "Hbol")
    assert first.body is second.body and first.last_expr is second.last_expr  # compiled once
    assert first is not second
    for name in ("_status", "_run_result_status", "_stale", "_output", "config", "defs", "refs", "variable_data"):
        assert getattr(first, name) is not getattr(second, name), name
    first._output.output = "Ysolde's seat"
    first.defs.add("z")
    assert second._output.output is None and "z" not in second.defs
    assert compiler.compile_cell("x = 2", "Hbol").body is not first.body  # other code: compiled
