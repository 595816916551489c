"""Whether a served marimo page has a browser looking at it, asked from inside its kernel (``kingdomlog serve``).

``kingdomlog serve`` runs each page's kernel in a thread of its one process (marimo's run mode). A page's session
outlives its browser: marimo keeps it ``ttl_seconds`` (120 s) after the browser's websocket closed, so that a tab
whose connection dropped finds its kernel (and what its person typed) again; a page made ahead
(``serve_warm``) has no browser until one opens it. A kernel's own threads (a table page's watcher,
``views.table.live.watch``) keep running all the while, and marimo (0.25) does not stop them when the session
is closed either: its kernel ends, they do not. Measured (``kingdomlog serve``, no browser at all): each commit
left the five table pages made ahead at the old head closed with their watchers still looking, 5 more threads
per commit, each computing its page again at every new head, for good.

Here each session's kernel thread is registered as the session is created (``register``; ``register_sessions``
makes marimo's session manager do it, in every process that serves a page: ``kingdomlog serve``, ``kingdomlog gm``
and the player pages of ``share``/``orders``, whose sessions outlived their tabs the same way: each reload of the GM
sheet left a watcher of its table panel looking for good), and a thread of that kernel asks ``state(kernel)``:

- ``HERE``: a browser is connected (or connecting);
- ``AWAY``: none is (its browser left within the TTL, or a page made ahead not handed yet): do no work, and look
  again when one is back;
- ``GONE``: the session was closed or its kernel ended: stop;
- ``UNKNOWN``: not a session ``kingdomlog serve`` made (``marimo run``/``edit`` of the notebook, a test, a
  script): behave as before (a browser may be there).

The coupling to marimo is two reads, both tested (tests/notebooks/test_serve_quiet.py): a session's kernel
thread (``session._kernel_manager.kernel_task``: marimo's run mode starts each kernel as a ``threading.Thread``)
and its ``connection_state()``. Nothing is held that would keep a closed session alive (weak references only).
"""

from __future__ import annotations

import logging
import threading
import weakref
from typing import Any

HERE = "here"
AWAY = "away"
GONE = "gone"
UNKNOWN = "unknown"

_KERNELS: weakref.WeakKeyDictionary[threading.Thread, weakref.ref[Any]] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def kernel_thread(session: Any) -> threading.Thread | None:
    """The thread ``session``'s kernel runs in (marimo's run mode), or None (a kernel in a process, or a marimo
    whose session does not say)."""
    task = getattr(getattr(session, "_kernel_manager", None), "kernel_task", None)
    return task if isinstance(task, threading.Thread) else None


def register(session: Any) -> bool:
    """Remember ``session`` under its kernel's thread, so that the kernel's threads can ask ``state``; False when
    its kernel is not a thread of this process (nothing is registered: its threads see ``UNKNOWN``)."""
    kernel = kernel_thread(session)
    if kernel is None:
        return False
    with _LOCK:
        _KERNELS[kernel] = weakref.ref(session)
    return True


def register_sessions() -> None:
    """Make marimo's session manager register each session it creates (``register``), once per process: called
    where a process starts serving pages (``server.build``, ``notebook_server.marimo_main`` and ``build_app``)."""
    from marimo._server.session_manager import SessionManager

    made = getattr(SessionManager, "_create_session", None)
    if made is None:  # a marimo other than the one pyproject.toml names: pages are served, their watchers see UNKNOWN
        logging.getLogger(__name__).warning(
            "this marimo's session manager has no _create_session: page watchers cannot tell whether a browser is"
            " there and keep looking as if one were (kingdomlog is tested with the marimo pyproject.toml names)")
        return
    if getattr(made, "_kl_registers", False):
        return

    async def _create_session(self: Any, *args: Any, **kwargs: Any) -> Any:
        session = await made(self, *args, **kwargs)
        register(session)
        return session

    _create_session._kl_registers = True  # type: ignore[attr-defined]
    SessionManager._create_session = _create_session  # type: ignore[method-assign]


def state(kernel: threading.Thread) -> str:
    """Whether a browser looks at the page whose kernel runs in ``kernel`` (``HERE``, ``AWAY``, ``GONE``,
    ``UNKNOWN``: the module's docstring). Cheap: a dictionary look-up and marimo's ``connection_state()``."""
    from marimo._session.model import ConnectionState

    with _LOCK:
        ref = _KERNELS.get(kernel)
    if ref is None:
        return UNKNOWN
    session = ref()
    if session is None or not kernel.is_alive():
        return GONE
    try:
        now = session.connection_state()
    except Exception:  # a session half torn down
        return GONE
    if now == ConnectionState.CLOSED:
        return GONE
    if now == ConnectionState.ORPHANED:
        return AWAY
    return HERE  # OPEN or CONNECTING: a browser is there, or about to be given the page


def looking(kernel: threading.Thread) -> bool | None:
    """For a watcher of the page whose kernel runs in ``kernel``, at each of its turns: True to look (a browser is
    there, or the page is not one ``kingdomlog serve`` made), False to do nothing this turn (no browser: keep what
    was last seen, so the first look once one is back catches up), None to stop (the session is gone)."""
    now = state(kernel)
    return None if now == GONE else now != AWAY


__all__ = ["AWAY", "GONE", "HERE", "UNKNOWN", "kernel_thread", "looking", "register", "register_sessions",
           "state"]
