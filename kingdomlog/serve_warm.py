"""A player's table page made ahead: a marimo session run before anyone opens the page (``kingdomlog serve``).

A table page open cost the server a marimo session: its kernel, the notebook's cells run for the page's viewer,
on the path of the open, so players opening their pages at the same moment (a turn announced in a thread) queued
on the server's two cores. Here each page (one notebook, one
viewer: a page's session manager is its own) keeps a **warm** session: created and run in the background at the
server's start and again once the log's head has moved and settled, and handed to the next browser that opens the
page. marimo then sends that browser the session's outputs as it stands (its own replay for a browser that
reconnects) instead of running the notebook again. Measured (benchmarks/README.md, load 22-25): an open of a page
made ahead 0.13 s of the server's CPU, a cold open 0.24 s, the making 0.16 s: the kernel's run is moved off the
open's path, not removed (it is paid once per head and page, opened or not).

The rules:

- **One viewer, one browser.** A warm session belongs to its page's session manager, built for one viewer
  (``mo.cli_args()`` fixed by the server); the gate in front lets only that viewer's credential reach it. It is
  handed to one browser connection at most, and then it is that browser's session like any other (the pool no
  longer holds it): a second tab of the same player gets the next warm session or a new one, never the first
  tab's, so the first tab keeps its kernel and whatever its person typed.
- **One head.** A warm session is tagged with the log's head (seq and hash), ``campaign.toml``'s time and the
  notebook file's version when it is made; at a page open the tag is read again, and a session made at another
  head is closed, never handed (the browser gets a new session, as before). The page is live from then on
  (``views.table.live``: the feed, the proposals, the seats' waits and the turn follow the files), exactly as a
  page opened earlier and left open.
- **Nothing else changes.** A warm session is created by marimo's own session manager with the page's own
  arguments, run once by marimo's own instantiate; only the second instantiate the browser's connection asks for
  is not done (the notebook has run). Its id is random and never sent anywhere; a browser's connection takes it
  under the browser's own session id.
- **Quiet until handed.** A warm session has no browser: its page's watcher (``views.table.live``) computes
  nothing when the log moves (``views.table.browsers``); the browser it is handed to gets its outputs as made, and the
  watcher's first look then catches up with what moved since (a line of talk, the GM's draft).
- **A failed run is not handed.** A session made ahead whose notebook run ended in an error (a cell's error other
  than a stop) is closed at the open instead; the browser gets a new session, as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import sys
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

ENV_SPARES = "KINGDOMLOG_TABLE_AHEAD"
"""How many warm sessions to keep per table page (``0``: none, every open runs the notebook as before)."""


def _spares() -> int:
    raw = os.environ.get(ENV_SPARES, "1").strip()
    if not raw.isdigit() or int(raw) > 4:
        print(f"kingdomlog: {ENV_SPARES}={raw!r} is not 0 to 4; keeping 1 table page ahead per player", file=sys.stderr,
              flush=True)
        return 1
    return int(raw)


SPARES = _spares()
"""Warm sessions kept per page (each a kernel thread of the server, as an open page is; its watcher idle until a
browser is handed the page): ``$KINGDOMLOG_TABLE_AHEAD``, 1 unless set (0 to 4)."""
MAKE_EVERY = 1.0
"""How often the keeper looks whether a page lacks its warm session or the head moved, in seconds."""
SETTLE = 2.0
"""How long the head must stay put, and the page go unopened, before a warm session is made (a commit is followed
by its next draft; a burst of opens should not compete with the making)."""
RUN_WAIT = 60.0
"""How long the keeper waits for a warm session's first run before it makes the next page's."""


@dataclass
class Warm:
    """One warm session: the head tag it was made at, its id in marimo's session repository, the session."""

    tag: Hashable
    sid: str
    session: Any


def _ran_ahead(*_args: Any, **_kwargs: Any) -> None:
    """A warm session's ``instantiate`` once it has run: the browser's connection asks again, nothing to do."""


class WarmSessions:
    """The warm sessions of one page (one notebook, one viewer): made by ``make``, handed by ``take``.

    ``manager`` is the page's marimo session manager; ``tag`` what a warm session depends on (read at each
    make and each take; well under a millisecond). Counts: ``made``, ``handed``, ``dropped`` (closed unhanded:
    another head, a dead kernel).
    """

    def __init__(self, manager: Any, tag: Callable[[], Hashable], *, spares: int = SPARES) -> None:
        self.manager, self.tag, self.spares = manager, tag, spares
        self.kept: list[Warm] = []
        self.made = self.handed = self.dropped = 0
        self.last_take = float("-inf")

    @property
    def file_key(self) -> str:
        key = self.manager.workspace.get_unique_file_key()
        assert key is not None, "a page's workspace is its one notebook"
        return str(key)

    async def make(self) -> Warm:
        """A new warm session at the head now: created by marimo's session manager, its notebook run."""
        from marimo._session.requests import InstantiateNotebookRequest
        from marimo._session.startup import SessionStartup
        from marimo._types.ids import SessionId

        tag = await asyncio.to_thread(self.tag)
        sid = "kl-warm-" + secrets.token_urlsafe(24)
        session = await self.manager._create_session(SessionId(sid), {}, self.file_key, True, SessionStartup())
        session.instantiate(InstantiateNotebookRequest(object_ids=[], values=[], auto_run=True), http_request=None)
        session.instantiate = _ran_ahead  # the browser's connection (marimo's run mode) asks for it again
        warm = Warm(tag, sid, session)
        self.kept.append(warm)
        self.made += 1
        return warm

    async def take(self, session_id: str) -> Any | None:
        """A warm session at the head now for the browser connection ``session_id`` (renamed to it, no longer
        kept), or None (none kept, or only ones made at another head: those are closed)."""
        from marimo._session.model import ConnectionState
        from marimo._session.types import KernelState
        from marimo._types.ids import SessionId

        if not self.kept:
            return None
        tag = await asyncio.to_thread(self.tag)
        self.last_take = asyncio.get_running_loop().time()
        while self.kept:
            warm = self.kept.pop(0)
            alive = (warm.session.connection_state() == ConnectionState.ORPHANED
                     and warm.session.kernel_state() is KernelState.RUNNING)
            if warm.tag == tag and alive and not failed(warm.session):
                self.manager._repository.update_session_id_sync(SessionId(warm.sid), SessionId(session_id))
                self.handed += 1
                return warm.session
            self._close(warm)
        return None

    def drop_stale(self, tag: Hashable) -> None:
        """Close the warm sessions made at another head than ``tag``."""
        for warm in [w for w in self.kept if w.tag != tag]:
            self.kept.remove(warm)
            self._close(warm)

    def close_all(self) -> None:
        for warm in list(self.kept):
            self.kept.remove(warm)
            self._close(warm)

    def _close(self, warm: Warm) -> None:
        from marimo._types.ids import SessionId

        self.dropped += 1
        with contextlib.suppress(Exception):
            self.manager.close_session(SessionId(warm.sid))


def ran(session: Any) -> bool:
    """Whether ``session``'s kernel has run its notebook: it reported cells, none of them queued or running."""
    try:
        cells = list(session.session_view.cell_notifications.values())
    except AttributeError:  # not a marimo session as this marimo makes them: do not wait on it
        return True
    return bool(cells) and all(getattr(c, "status", None) not in ("queued", "running") for c in cells)


def failed(session: Any) -> bool:
    """Whether a cell of ``session`` ended in an error (other than a stop or an interruption): such a session is
    closed, never handed (the browser gets a new one, whose run may well go through)."""
    try:
        cells = list(session.session_view.cell_notifications.values())
    except AttributeError:
        return False
    for cell in cells:
        out = getattr(cell, "output", None)
        if out is None or getattr(out, "mimetype", "") != "application/vnd.marimo+error":
            continue
        errors = out.data if isinstance(out.data, list) else []
        if not errors or any(_kind(e) not in ("ancestor-stopped", "interruption") for e in errors):
            return True
    return False


def _kind(error: Any) -> Any:
    """The kind of one of marimo's cell errors (its msgspec tag, or ``type`` once it is a dict)."""
    if isinstance(error, dict):
        return error.get("type")
    return getattr(getattr(type(error), "__struct_config__", None), "tag", None)


async def keep_warm(pages: list[WarmSessions], tag: Callable[[], Hashable], *, every: float = MAKE_EVERY,
                    settle: float = SETTLE, run_wait: float = RUN_WAIT) -> None:
    """Keep each page's warm sessions made, one page at a time: at the start, and once the head has moved and
    stayed put for ``settle`` seconds and the page was not opened for as long (warm sessions of an old head are
    closed as soon as the head moved). Each new session is waited for (its first run, ``run_wait`` s at most)
    before the next is made, so that the making never runs several notebooks at once."""
    loop = asyncio.get_running_loop()
    last: Hashable = None
    moved_at = loop.time()
    started = False
    while True:
        try:
            now: Hashable = await asyncio.to_thread(tag)
        except Exception:  # the log mid-write or unreadable: the next look reads it (a page open says what is wrong)
            now = None
        if now is not None:
            if now != last:
                last, moved_at = now, loop.time()
                for page in pages:
                    page.drop_stale(now)
            quiet = not started or loop.time() - moved_at >= settle
            for page in pages:
                if not quiet or len(page.kept) >= page.spares or loop.time() - page.last_take < settle:
                    continue
                try:
                    warm = await page.make()
                except Exception as exc:  # the page's own open will say what is wrong, in words, to its viewer
                    print(f"kingdomlog: a table page could not be made ahead: {exc}", file=sys.stderr, flush=True)
                    continue
                deadline = loop.time() + run_wait
                while loop.time() < deadline and warm in page.kept and not ran(warm.session):
                    await asyncio.sleep(0.05)
            started = True
        await asyncio.sleep(every)


__all__ = ["ENV_SPARES", "SETTLE", "SPARES", "Warm", "WarmSessions", "failed", "keep_warm", "ran"]
