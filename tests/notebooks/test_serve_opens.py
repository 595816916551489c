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

from nb_support import NOTEBOOKS

from kingdomlog.notebook_server import serialize_ast


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
