"""One server for the whole table: ``kingdomlog serve DIR``.

One process serves, each behind its own credential:

| path | page | who |
|---|---|---|
| ``/gm/`` | the GM's turn sheet (``notebooks/turn_sheet.py``) | the GM |
| ``/gm-<name>/`` | a GM page of the ruleset's extras (``views.extras``: aikakirjat's ``/gm-session/``) | the GM |
| ``/p/<player>/`` | that player's page at the table (``notebooks/table_page.py``) | that player |
| ``/p/<player>/report/`` | that player's report (as ``kingdomlog share -o`` writes it; kept) | that player |
| ``/f/<faction>/orders/`` | that faction's orders sheet (``notebooks/orders_sheet.py``) | that faction |
| ``/f/<faction>/report/`` | that faction's report (as ``kingdomlog share -o`` writes it; kept) | that faction |

A campaign whose ruleset seats its players at the table (``Ruleset.seats``: pf2e's PC leaders, pf1's leaders,
aikakirjat's PCs) gives each player a ``/p/`` page; one whose players give orders for whole steps (signoria's factions)
an ``/f/`` orders sheet.
| ``/public/`` | the public view (as ``kingdomlog share -o`` writes it; kept) | the public link |

Why this way: marimo's run mode serves several notebooks from one Starlette app (``marimo.create_asgi_app``
builds exactly that); here each page is its own marimo app whose command-line arguments (``mo.cli_args()``:
the campaign and the viewer) are fixed by the server when the app is built, so a page can only ever show
its own viewer, whatever the browser sends (the viewer never comes from the request). ``create_asgi_app``
itself gives every app empty arguments and builds one app per notebook file, so the apps are built here
with the same marimo parts it uses, one per (notebook, viewer). A pure-ASGI gate in front of every app
checks the credential on every HTTP request *and* every websocket (Starlette's ``BaseHTTPMiddleware``
would let websockets through) and lets through only the credential of that page's viewer. Credentials
are random tokens; the server keeps only their SHA-256 (``DIR/.secrets/credentials.json``, mode 0600)
and compares with ``hmac.compare_digest``; a browser logs in once with its link (``/login?key=...``) and
then holds an HttpOnly, SameSite=Strict cookie. A background task moves the turn on every minute
(``pbp.advance``: deadlines, questions whose time ran out).

The read-only pages (reports, the public view) are no marimo apps: a marimo page open cost the server about
1.2 s of CPU (its kernel, the notebook's cells), so a thread's worth of players opening at once queued. Each is
the self-contained HTML ``kingdomlog share -o`` writes for its viewer, rendered once per log head and viewer and
kept (``ViewCache``; ~0.06 s of CPU per render, a kept page costs a head read), with a small script that reloads
it when what its viewer would be shown changes (``/_view``, behind the same gate). The interactive pages (the
table page, the orders sheet, the GM's pages) stay marimo apps; what all of them load alike is kept once per
process, holding no viewer's data: marimo's frontend files (``notebook_server.FrontendFiles``), the notebook's parse
and its cells' source positions (``kept_notebook``, ``keep_source_positions``), each per version of the file, and
marimo's compile of each cell (``keep_compiled_cells``: each session still gets cells of its own).

A player's table page is made ahead (``serve_warm``): one marimo session per page (one viewer), run in the
background at the start and once the log's head has moved and settled, and handed to the next browser that opens
that page (once, and only at the head it was made at); marimo sends it the session's outputs instead of running
the notebook again.

A page no browser looks at costs nothing when the log moves: every session's kernel is registered as it is
created (``views.table.browsers``), and a table page's watcher (``views.table.live``) looks only while a browser
is connected (not for a tab gone within marimo's 120 s TTL, nor for a page made ahead until it is handed), catches
up at once when one is, and stops when its session is closed.

Pages opened at the same moment run in threads of this one process: the modules their kernels import are imported
at the start (``preload``), and one thread at a time builds or compiles a Python AST (``notebook_server.serialize_ast``:
CPython 3.11's converter is not safe across threads). A marimo page that fails all the same as it opens says so in
words and reloads itself (``notebook_server.PAGE_GUARD``).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import hashlib
import hmac
import json
import os
import secrets
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlencode

from kingdomlog.app import Campaign
from kingdomlog.core.errors import ConflictError, InputError, KingdomlogError
from kingdomlog.notebook_server import PrivateApp, notebook, path_scrubber, serialize_ast
from kingdomlog.serve_warm import WarmSessions, keep_warm
from kingdomlog.views.table import browsers

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

COOKIE = "kingdomlog_key"
SECRETS_DIR = ".secrets"
CREDENTIALS = "credentials.json"
GM = "gm"
PUBLIC = "public"
BLOCKED = ("/api/home", "/api/files", "/api/secrets", "/api/cache", "/api/documentation", "/api/datasources",
           "/api/sql", "/api/storage", "/api/ai", "/api/export", "/api/packages", "/api/lsp", "/auth", "/terminal",
           "/openapi")
"""marimo endpoints a run-mode page does not need (some show server paths or files): refused."""
TICK_SECONDS = 60.0
STATIC_NOTEBOOK = "kingdom_view"
"""The read-only pages' notebook: served as kept HTML (``StaticView``), not as a marimo app."""


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass
class Credentials:
    """Who may open what: credential owner -> SHA-256 of its token (``gm``, ``public``, faction ids)."""

    path: Path
    digests: dict[str, str]

    @classmethod
    def load(cls, folder: Path) -> Credentials:
        path = folder / SECRETS_DIR / CREDENTIALS
        if not path.is_file():
            return cls(path, {})
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(f"{path}: cannot read the credentials ({exc}); remove it and make new ones with "
                             "`kingdomlog serve DIR --new-credentials`") from None
        if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
            raise InputError(f"{path}: not a credentials file; remove it and make new ones")
        return cls(path, dict(data))

    def who(self, token: str | None) -> str | None:
        """The owner of ``token`` (constant-time comparisons), or None."""
        if not token:
            return None
        d = _digest(token)
        found = None
        for owner, digest in self.digests.items():
            if hmac.compare_digest(d, digest):
                found = owner
        return found

    def issue(self, owners: Sequence[str], *, renew: bool = False) -> dict[str, str]:
        """New tokens for ``owners`` that have none (all of them with ``renew``); returns owner -> token."""
        out: dict[str, str] = {}
        for owner in owners:
            if renew or owner not in self.digests:
                token = secrets.token_urlsafe(24)
                self.digests[owner] = _digest(token)
                out[owner] = token
        if out:
            self.save()
        return out

    def save(self) -> None:
        self.path.parent.mkdir(mode=0o700, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(self.digests, fh, indent=1, sort_keys=True)
        os.replace(tmp, self.path)


def _headers(scope: Scope, key: bytes) -> list[str]:
    return [bytes(v).decode("latin-1") for k, v in scope.get("headers", ()) if k == key]


def _cookie(scope: Scope) -> str | None:
    for value in _headers(scope, b"cookie"):
        for part in value.split(";"):
            k, _, v = part.strip().partition("=")
            if k == COOKIE:
                return v
    return None


def _bearer(scope: Scope) -> str | None:
    for value in _headers(scope, b"authorization"):
        kind, _, token = value.partition(" ")
        if kind.lower() == "bearer":
            return token.strip()
    return None


async def _respond(send: Send, status: int, body: str, *, headers: Sequence[tuple[bytes, bytes]] = (),
                   content_type: bytes = b"text/html; charset=utf-8") -> None:
    data = body.encode("utf-8")
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", content_type), (b"content-length", str(len(data)).encode()),
        (b"cache-control", b"no-store"), (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"), *headers]})
    await send({"type": "http.response.body", "body": data})


class Gate:
    """A pure-ASGI gate in front of one page: only the credential of its ``owner`` passes (HTTP and websocket)."""

    def __init__(self, app: ASGIApp, owner: str, creds: Credentials, mount: str, *, open_door: bool = False) -> None:
        self.app, self.owner, self.creds, self.mount, self.open_door = app, owner, creds, mount, open_door

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        who = self.creds.who(_cookie(scope) or _bearer(scope))
        allowed = who == self.owner or (self.open_door and self.owner == PUBLIC)
        path = str(scope.get("path", ""))
        rel = path[len(self.mount):] if path.startswith(self.mount) else path
        blocked = any(rel == b or rel.startswith(b + "/") for b in BLOCKED)
        if allowed and not blocked:
            scope.setdefault("state", {})["kingdomlog_viewer"] = self.owner
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 4403, "reason": "not your page"})
            return
        if blocked and allowed:
            await _respond(send, 404, "<p>Not here.</p>")
            return
        method = scope.get("method", "GET")
        if who is None and method == "GET" and not rel.strip("/").startswith(("api", "assets", "ws")):
            target = quote(path, safe="/")
            await _respond(send, 303, "", headers=[(b"location", f"/?{urlencode({'next': target})}".encode())])
            return
        await _respond(send, 403, _page("Not your page", "<p>This page belongs to someone else. Open your own link "
                                                         "from the GM.</p>"))


def _page(title: str, body: str) -> str:
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><meta name='viewport' "
            "content='width=device-width, initial-scale=1'><title>" + escape(title) + "</title><style>"
            "body{font-family:system-ui,sans-serif;max-width:36em;margin:2em auto;padding:0 1em;color:#222}"
            "a{color:#1a5fb4} input{font-size:1em;padding:.3em;width:100%;box-sizing:border-box}"
            "button{font-size:1em;padding:.4em 1em;margin-top:.5em}</style></head><body><h1>" + escape(title)
            + "</h1>" + body + "</body></html>")


RELOAD_SECONDS = 15
"""How often an open read-only page asks whether what it shows has changed (``StaticView``'s ``_view``)."""
WARM_EVERY = 1.0
"""How often the server looks whether the log's head moved, to render the read-only pages ahead."""
WARM_SETTLE = 2.0
"""How long the head must stay put before they are rendered ahead (a commit, then its next draft, come first)."""
STALE = "1970-01-01 00:00 UTC"  # the footer's time while a page is kept: the tag must not move without the view


class ViewCache:
    """Read-only pages kept per (log head, viewer): rendered once, served until the log's head moves.

    ``key`` is read on every open (the head record and ``campaign.toml``'s mtime: well under a
    millisecond), so a new commit is reflected on the next open; only the newest head's pages are kept.
    A kept page is found only under its own viewer: each page's app asks for its own (fixed) viewer.
    """

    def __init__(self, folder: Path, scrub: Callable[[str], str]) -> None:
        self.folder, self.scrub = folder, scrub
        self.kept: dict[tuple[tuple[object, ...], str], tuple[str, str]] = {}
        self.renders = 0
        self.warmed: tuple[object, ...] | None = None
        self._locks: dict[str, asyncio.Lock] = {}

    def key(self) -> tuple[object, ...]:
        """What a kept page depends on: the log's head (seq and hash) and the campaign's configuration."""
        head = Campaign.open(self.folder).log.head()
        try:
            conf = (self.folder / "campaign.toml").stat().st_mtime_ns
        except OSError:
            conf = 0
        return head.seq, head.hash, conf

    def render(self, viewer: str) -> tuple[str, str]:
        """``viewer``'s page (what ``kingdomlog share -o`` writes) and its tag: a digest of what it shows."""
        from kingdomlog.views.player.page import render_static

        stale = datetime(1970, 1, 1, tzinfo=UTC)
        page = self.scrub(render_static(self.folder, viewer, generated_at=stale))
        self.renders += 1
        return page, hashlib.sha256(page.encode("utf-8")).hexdigest()[:24]

    async def page(self, viewer: str) -> tuple[str, str]:
        """``viewer``'s page at the log's head now: kept, or rendered (once, however many ask at the same time)."""
        key = await asyncio.to_thread(self.key)
        found = self.kept.get((key, viewer))
        if found is not None:
            return found
        async with self._locks.setdefault(viewer, asyncio.Lock()):
            key = await asyncio.to_thread(self.key)
            found = self.kept.get((key, viewer))
            if found is None:
                found = await asyncio.to_thread(self.render, viewer)
                self.kept = {k: v for k, v in self.kept.items() if k[0] == key}
                self.kept[(key, viewer)] = found
            return found


    async def warm(self, viewers: Sequence[str]) -> None:
        """Render every one of ``viewers``' pages at the log's head now, one after the other (kept ones are skipped)."""
        for viewer in viewers:
            with contextlib.suppress(KingdomlogError):
                await self.page(viewer)

    async def keep_warm(self, viewers: Sequence[str], *, every: float = WARM_EVERY,
                        settle: float = WARM_SETTLE) -> None:
        """Render ``viewers``' pages ahead: at the start, and each time the head has moved and then stayed put
        for ``settle`` seconds (a GM's commit is followed by its next draft, which should not wait for this).

        A turn is announced after its commit: the players who open their pages then find them kept. The key is
        read every ``every`` seconds (a head read: well under a millisecond).
        """
        last: tuple[object, ...] | None = None
        moved_at = 0.0
        loop = asyncio.get_running_loop()
        while True:
            try:
                key: tuple[object, ...] | None = await asyncio.to_thread(self.key)
            except KingdomlogError:
                key = None
            if key is not None and key != self.warmed:
                if key != last:
                    last, moved_at = key, loop.time()
                if self.warmed is None or loop.time() - moved_at >= settle:
                    await self.warm(viewers)
                    self.warmed = key
            await asyncio.sleep(every)


def _reload_script(mount: str, tag: str) -> str:
    return ("(function(){var tag=" + json.dumps(tag) + ",url=" + json.dumps(mount + "/_view") + ";"
            "function look(){fetch(url,{credentials:'same-origin',cache:'no-store'}).then(function(r){"
            "return r.ok?r.json():null}).then(function(d){if(d&&d.view!==tag){location.reload()}})"
            ".catch(function(){})}"
            "setInterval(look," + str(RELOAD_SECONDS * 1000) + ");"
            "document.addEventListener('visibilitychange',function(){if(!document.hidden){look()}})})();")


class StaticView:
    """A read-only page (a player's or faction's report, the public view) as one self-contained HTML page.

    What ``kingdomlog share -o`` writes for the page's viewer, kept in ``ViewCache`` per log head and viewer,
    with a small script that reloads the page when ``_view`` (the tag of what the viewer would be shown now)
    changes. The viewer is fixed when the server is built, never taken from the request; the ``Gate`` in
    front lets only its credential through. Answers: ``/`` (the page) and ``/_view`` (JSON); anything else
    404, a websocket is closed.
    """

    def __init__(self, cache: ViewCache, viewer: str, mount: str) -> None:
        self.cache, self.viewer, self.mount = cache, viewer, mount

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 4404, "reason": "no live page here"})
            return
        if scope["type"] != "http":
            return
        path = str(scope.get("path", ""))
        rel = path[len(self.mount):] if path.startswith(self.mount) else path
        if rel == "":
            await _respond(send, 307, "", headers=[(b"location", (quote(self.mount) + "/").encode())])
            return
        if rel not in ("/", "/_view"):
            await _respond(send, 404, "<p>Not here.</p>")
            return
        try:
            page, tag = await self.cache.page(self.viewer)
        except KingdomlogError as exc:
            from kingdomlog.views.player.page import said_to_player

            await _respond(send, 500, _page("Cannot show the campaign", f"<p>{escape(said_to_player(exc))}</p>"))
            return
        if rel == "/_view":
            await _respond(send, 200, json.dumps({"view": tag}), content_type=b"application/json")
            return
        script = _reload_script(self.mount, tag)
        when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        head, sep, tail = page.rpartition(STALE)  # the footer's time: the last one in the page
        shown = (head + when + tail) if sep else page
        shown = shown.replace("</body>", f"<script>{script}</script></body>", 1)
        digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
        policy = (f"default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-{digest}'; "
                  "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
        await _respond(send, 200, shown, headers=[(b"content-security-policy", policy.encode())])


@dataclass(frozen=True)
class Page:
    """One served page: its mount path, notebook, the viewer fixed on it and the credential that opens it."""

    path: str
    notebook: str
    owner: str
    cli_args: dict[str, str]
    title: str


def seated(camp: Campaign) -> bool:
    """Whether ``camp``'s ruleset seats its players at the table (it gives ``Ruleset.seats``): its players get
    a table page (``/p/``); else they give orders for whole steps (``/f/``), as signoria's factions do."""
    from kingdomlog.core.ruleset import Ruleset

    return type(camp.ruleset).seats is not Ruleset.seats


def pages(folder: Path, camp: Campaign, *, gm_sheet: bool = True) -> list[Page]:
    """Every page of the table: the GM sheet and the GM's pages of the ruleset's extras (``/gm-<name>``, e.g.
    aikakirjat's session planner), each player's table page (``seated``) or orders sheet, and report, the
    public view."""
    from kingdomlog.views.extras import extras_for

    absolute = str(folder.resolve())
    out = []
    if gm_sheet:
        out.append(Page("/gm", "turn_sheet", GM, {"campaign": absolute}, "GM turn sheet"))
        for extra in extras_for(camp.config.ruleset).pages:
            out.append(Page(f"/gm-{extra.name}", extra.notebook, GM, {"campaign": absolute}, extra.title))
    at_table = seated(camp)
    for fid in camp.players():
        args = {"campaign": absolute, "viewer": fid}
        name = camp.player_name(fid)  # a title says who in words; the credential keeps the id
        if at_table:  # the report first: its mount lies under the table page's
            out.append(Page(f"/p/{fid}/report", "kingdom_view", fid, args, f"report of {name}"))
            out.append(Page(f"/p/{fid}", "table_page", fid, {**args, "report": f"/p/{fid}/report/"},
                            f"table of {name}"))
            continue
        out.append(Page(f"/f/{fid}/orders", "orders_sheet", fid, {**args, "report": f"/f/{fid}/report/"},
                        f"orders of {name}"))
        out.append(Page(f"/f/{fid}/report", "kingdom_view", fid, args, f"report of {name}"))
    out.append(Page("/public", "kingdom_view", PUBLIC, {"campaign": absolute, "viewer": PUBLIC}, "public view"))
    return out


def home_of(owner: str, *, at_table: bool = False) -> str:
    """Where a credential's browser goes after logging in (``at_table``: the campaign is ``seated``).

    >>> home_of("gm"), home_of("fabian"), home_of("ysolde", at_table=True)
    ('/gm/', '/f/fabian/orders/', '/p/ysolde/')
    """
    if owner == GM:
        return "/gm/"
    if owner == PUBLIC:
        return "/public/"
    return f"/p/{owner}/" if at_table else f"/f/{owner}/orders/"


_PARSED: dict[str, tuple[tuple[str, int, int], Any, Any]] = {}
"""Per notebook file: (its version, marimo's parse of it, the app read only for its configuration and name)."""


def kept_notebook(nb: Path) -> tuple[Any, type]:
    """A marimo workspace of ``nb`` that parses the notebook once per version of its file, and the session manager
    class that asks it for the notebook's kept app where only its configuration and file name are read.

    marimo reads and parses the notebook file on every page open, twice (the page's HTML asks for its app
    configuration, then the session builds its cells): a sixth of the server's CPU per table page open. Here the
    parse (marimo's own ``deserialize``: the notebook's code, the same for every page and viewer of the process)
    is kept per (mtime, size) of the file, and each session still gets an app of its own built from it
    (``load_notebook_ir``, as marimo's ``load_app`` does), so no session's app is another's; the HTML's
    read-only asks (its configuration, its file's name) share one per version of the file.
    """
    from marimo._ast.app import InternalApp
    from marimo._ast.app_config import overloads_from_env
    from marimo._ast.load import load_notebook_ir
    from marimo._server.session_manager import SessionManager
    from marimo._server.workspace import SingleFileWorkspace
    from marimo._session.notebook.file_manager import AppFileManager
    from marimo._session.notebook.serializer import get_notebook_serializer
    from marimo._utils.marimo_path import MarimoPath

    browsers.register_sessions()  # each new session (a browser's, or a page made ahead) has its kernel registered:
    # its threads (a table page's watcher) do no work while no browser is connected, and stop once it is closed

    class FromParsed(AppFileManager):
        """marimo's ``AppFileManager`` whose app is built from a kept parse rather than by reading the file."""

        def __init__(self, filename: str, parsed: Any, defaults: Any) -> None:
            self._parsed = parsed
            super().__init__(filename, defaults=defaults)

        def _load_app(self, path: str | None) -> Any:  # what marimo's _load_app does after load_app
            app = load_notebook_ir(self._parsed)
            app._cell_manager.ensure_one_cell()
            app._config.update(overloads_from_env().asdict_difference())
            result = InternalApp(app)
            result.cell_manager.ensure_one_cell()
            return result

    class Kept(SingleFileWorkspace):
        def _parse(self, key: str, defaults: Any) -> tuple[tuple[str, int, int], Any, Any] | None:
            path = self.resolve(key)
            if path is None:
                return None
            try:
                st = os.stat(path)
                version = (path, st.st_mtime_ns, st.st_size)
                kept = _PARSED.get(path)
                if kept is None or kept[0] != version:
                    text = Path(path).read_text(encoding="utf-8")
                    ir = get_notebook_serializer(Path(path)).deserialize(text, filepath=path)
                    if not ir.valid or not ir.cells:
                        return None  # marimo's own load says what is wrong
                    kept = _PARSED[path] = (version, ir, FromParsed(path, ir, defaults))
            except (OSError, SyntaxError, ValueError):
                return None
            return kept

        def load(self, key: Any, defaults: Any = None) -> Any:
            kept = self._parse(key, defaults)
            if kept is None:
                return super().load(key, defaults)
            return FromParsed(kept[0][0], kept[1], defaults)

        def shared(self, key: Any, defaults: Any = None) -> Any:
            """One app per version of the file, for the asks that only read its configuration and name."""
            kept = self._parse(key, defaults)
            return super().load(key, defaults) if kept is None else kept[2]

    class Manager(SessionManager):
        warm: Any = None
        """The page's ``serve_warm.WarmSessions`` (a table page served by ``build``), or None."""

        def app_manager(self, key: Any) -> Any:  # the page's HTML (its app's configuration) and /public/ (its folder)
            workspace = self.workspace
            return workspace.shared(key) if isinstance(workspace, Kept) else super().app_manager(key)

        async def create_session(self, session_id: Any, session_consumer: Any, query_params: Any, file_key: Any,
                                 auto_instantiate: bool, *, main: bool) -> Any:
            """A browser's new session: the page's warm session when one is kept at the head now
            (``serve_warm``), else marimo's own new session."""
            warm = self.warm
            if (warm is not None and main and self._repository.get_sync(session_id) is None
                    and not self.is_session_starting(session_id, file_key)):
                session = await warm.take(session_id)
                if session is not None:
                    session.connect_consumer(session_consumer, main=True)
                    return session
            return await super().create_session(session_id, session_consumer, query_params, file_key,
                                                auto_instantiate, main=main)

    file = SingleFileWorkspace.from_path(MarimoPath(str(nb))).single_file()  # marimo's checks of the path
    assert file is not None
    kept = Kept(file)
    kept._parse(file.path, None)  # at the server's start, not at a player's first open
    return kept, Manager


class _SourcePositions:
    """marimo's map of a notebook file's cells to their lines, kept per version (mtime, size) of the file.

    marimo (0.25) keeps the map of one file and clears it each time a kernel registers cells (so that cells
    compiled again after an edit find their new lines): in run mode, that is once per page open, each paying a
    parse of the notebook file. Keyed by the file's version, the map is still new after an edit, and a page
    open finds it. It holds the notebook's code positions only (the same for every page and viewer).
    """

    def __init__(self, build: Callable[[str], Any]) -> None:
        self._by_version = functools.lru_cache(maxsize=16)(lambda filename, _version: build(filename))

    def __call__(self, filename: str) -> Any:
        try:
            st = os.stat(filename)
            version: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except OSError:
            version = None
        return self._by_version(filename, version)

    def cache_clear(self) -> None:
        """What the kernel calls on each registration: nothing to do, the file's version is in the key."""


def keep_source_positions() -> bool:
    """Put ``_SourcePositions`` in place of marimo's map (its compiler and its kernel's reference to it); False
    when this marimo has no such map (then nothing is changed)."""
    import marimo._ast.compiler as compiler
    import marimo._runtime.runtime as runtime

    current = compiler.__dict__.get("_build_source_position_map")
    if isinstance(current, _SourcePositions):
        return True
    build = current.__dict__.get("__wrapped__") if current is not None else None
    if build is None or runtime.__dict__.get("_build_source_position_map") is not current:
        return False
    kept = _SourcePositions(build)
    compiler._build_source_position_map = kept  # type: ignore[assignment]
    runtime._build_source_position_map = kept  # type: ignore[assignment,attr-defined]
    return True


_COMPILED: dict[tuple[object, ...], Any] = {}
"""marimo's compiled cells by (code, cell id, file and its version, position): ``keep_compiled_cells``."""
_COMPILED_MAX = 1024


def _own_copy(kept: Any) -> Any:
    """A cell of its own made from a kept one: its code objects, AST and code shared (immutable, the notebook's
    code), every other field (status, output, staleness, configuration, names) a copy of its own."""
    import ast
    import copy
    import dataclasses
    from types import CodeType

    cell = copy.copy(kept)
    for field in dataclasses.fields(kept):
        value = getattr(kept, field.name)
        if not isinstance(value, str | int | float | bool | CodeType | ast.AST | type(None)):
            object.__setattr__(cell, field.name, copy.deepcopy(value))
    return cell


def keep_compiled_cells() -> bool:
    """Put a kept ``compile_cell`` in place of marimo's (its compiler's and its kernel's): False when this marimo
    has none (then nothing is changed).

    A table page open compiled each of its cells three times: the server building the session's app, then its
    kernel twice (looking for Markdown cells, then registering them): about a quarter of the server's CPU per
    open. The compile of a cell's code is the same for every page and viewer; it is kept per (code, cell id, the
    notebook file and its version, position) and each caller gets a cell of its own (``_own_copy``: no status or
    output is ever shared between sessions). Cells compiled with carried imports or for tests are not kept.
    """
    import marimo._ast.compiler as compiler
    import marimo._runtime.runtime as runtime

    current = compiler.__dict__.get("compile_cell")
    if getattr(current, "kingdomlog_kept", False):
        return True
    if current is None:
        return False
    if runtime.__dict__.get("compile_cell") is not current:
        return False
    real: Callable[..., Any] = compiler.compile_cell

    def compile_cell(code: str, cell_id: Any, source_position: Any = None, carried_imports: Any = None,
                     test_rewrite: bool = False, filename: str | None = None) -> Any:
        if carried_imports or test_rewrite:
            return real(code, cell_id, source_position, carried_imports, test_rewrite, filename)
        try:
            st = os.stat(filename) if filename else None
        except OSError:
            st = None
        where = None if source_position is None else (source_position.filename, source_position.lineno,
                                                      source_position.col_offset)
        key = (code, cell_id, filename, st and (st.st_mtime_ns, st.st_size), where)
        kept = _COMPILED.get(key)
        if kept is None:
            kept = real(code, cell_id, source_position, None, False, filename)
            if len(_COMPILED) >= _COMPILED_MAX:
                _COMPILED.clear()
            _COMPILED[key] = kept
        return _own_copy(kept)

    compile_cell.kingdomlog_kept = True  # type: ignore[attr-defined]
    compiler.compile_cell = compile_cell
    runtime.compile_cell = compile_cell  # type: ignore[attr-defined]
    return True


def marimo_app(nb: Path, base_url: str, cli_args: dict[str, str], *, quiet: bool = True) -> ASGIApp:
    """A run-mode marimo app for one notebook whose ``mo.cli_args()`` are ``cli_args``.

    Built with the parts ``marimo.create_asgi_app`` uses for each of its apps (which always passes
    empty arguments): one session manager per page, no code sent, no tracebacks shown.
    """
    from marimo._config.config import PartialMarimoConfig
    from marimo._config.manager import get_default_config_manager
    from marimo._server.api import lifespans
    from marimo._server.lsp import NoopLspServer
    from marimo._server.main import create_starlette_app
    from marimo._server.registry import LIFESPAN_REGISTRY
    from marimo._server.tokens import AuthToken
    from marimo._session.model import SessionMode
    from marimo._utils.lifespans import Lifespans

    config = get_default_config_manager(current_path=None).with_overrides(
        PartialMarimoConfig(runtime={"show_tracebacks": False}))  # type: ignore[typeddict-item]
    keep_source_positions()
    serialize_ast()
    keep_compiled_cells()
    workspace, manager_class = kept_notebook(nb)
    manager = manager_class(
        workspace=workspace, mode=SessionMode.RUN, quiet=quiet,
        include_code=False, lsp_server=NoopLspServer(), config_manager=config, cli_args=dict(cli_args), argv=None,
        auth_token=AuthToken(""), redirect_console_to_browser=False, ttl_seconds=120)
    app = create_starlette_app(base_url="", lifespan=Lifespans([lifespans.etc, *LIFESPAN_REGISTRY.get_all()]),
                               enable_auth=False, allow_origins=(), skew_protection=False)
    app.state.session_manager = manager
    app.state.base_url = base_url
    app.state.asset_url = None
    app.state.config_manager = config
    app.state.enable_auth = False
    app.state.html_head = None
    result: ASGIApp = app
    return result


def preload(notebooks: Sequence[Path], packages: Sequence[str] = ()) -> list[str]:
    """Import, in this thread and before any page opens, every module the served ``notebooks`` import (their cells'
    ``import`` statements) and every module of ``packages`` (the campaign's ruleset: its modules import one another
    lazily), and marimo's Markdown with its extensions, with marimo's formatter hooks in place as in its kernels;
    returns the modules imported.

    A page's kernel is a thread of the server: the first pages opened at once imported the same modules in several
    threads at once, and anywidget's chain (ipywidgets, IPython, each with marimo's formatter hook run as it loads)
    deadlocked on its import locks; the loser's import failed and left IPython half-imported for the life of the
    process, so that every page opened after it failed too. Imported here once, a kernel finds them all in
    ``sys.modules``. A module that cannot be imported is left to the page (its kernel says so, as before).
    """
    import ast
    import importlib
    import pkgutil

    import marimo as mo
    from marimo._output.formatters.formatters import register_formatters

    register_formatters()
    _remember_failed_formatter_imports()
    wanted: list[str] = []
    for package in packages:
        with contextlib.suppress(Exception):
            where = importlib.import_module(package).__path__
            wanted += [m.name for m in pkgutil.walk_packages(where, package + ".")]
    for nb in notebooks:
        try:
            tree = ast.parse(nb.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                wanted += [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                wanted += [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
    done: list[str] = []
    for name in dict.fromkeys(wanted):
        if name in sys.modules:
            continue
        try:
            importlib.import_module(name)
        except Exception:  # a name imported from a module (not a module of its own), or one the page will report
            continue
        done.append(name)
    mo.md("**a** [b](#c)\n\n| d |\n|---|\n| e |").text  # noqa: B018  (loads its extensions, pygments, ...)
    return done


FORMATTER_IMPORTS = ("pyspark.sql.connect.dataframe",)
"""Modules marimo's formatter hooks import again at every kernel start when their package is installed."""


def _remember_failed_formatter_imports() -> None:
    """A module of ``FORMATTER_IMPORTS`` that cannot be imported is marked so in ``sys.modules``, once, here.

    marimo registers its formatters at every kernel start; with pyspark installed (without pandas/grpc) it imports
    ``pyspark.sql.connect.dataframe`` again each time, whose package checks ``sys.modules["__main__"].__spec__``
    first. While another page's kernel thread runs its cells, ``__main__`` is that kernel's module, which has no
    ``__spec__``: the check raised AttributeError (not the ImportError marimo expects) and the page opening then
    never drew (seen in a CI run with pages opened while others ran). Marked as not importable, the import fails at
    once with ``ModuleNotFoundError``, which marimo expects, and nothing runs the check again.
    """
    import importlib

    for name in FORMATTER_IMPORTS:
        if name in sys.modules or name.split(".")[0] not in sys.modules:
            continue
        try:
            importlib.import_module(name)
        except Exception:  # ImportError, pyspark's own errors: the package is not usable here
            sys.modules[name] = None  # type: ignore[assignment]  # Python's "known not importable" mark


class Front:
    """The server's own routes (``/``, ``/login``, ``/logout``) in front of the pages."""

    def __init__(self, app: ASGIApp, creds: Credentials, name: str, secure: bool, *, at_table: bool = False) -> None:
        self.app, self.creds, self.name, self.secure, self.at_table = app, creds, name, secure, at_table

    def home(self, who: str) -> str:
        return home_of(who, at_table=self.at_table)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") not in ("/", "/login", "/logout"):
            await self.app(scope, receive, send)
            return
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        path = scope["path"]
        if path == "/logout":
            await _respond(send, 303, "", headers=[(b"location", b"/"), (b"set-cookie", self._cookie("", 0))])
            return
        if path == "/login":
            token = (query.get("key") or [""])[0]
            who = self.creds.who(token)
            if who is None:
                await _respond(send, 403, _page(self.name, "<p>That link is not valid (any more). Ask the GM for "
                                                           "yours.</p><p><a href='/'>Back</a></p>"))
                return
            nxt = (query.get("next") or [""])[0]
            home = self.home(who)
            dest = nxt if nxt.startswith(home.rstrip("/") + "/") and not nxt.startswith("//") else home
            await _respond(send, 303, "", headers=[(b"location", dest.encode()),
                                                   (b"set-cookie", self._cookie(token, 60 * 60 * 24 * 90))])
            return
        who = self.creds.who(_cookie(scope))
        if who is not None:
            await _respond(send, 303, "", headers=[(b"location", self.home(who).encode())])
            return
        nxt = escape((query.get("next") or [""])[0])
        body = (f"<p>The table of <b>{escape(self.name)}</b>. Open the link the GM gave you, or paste its key:</p>"
                "<form action='/login' method='get'><label>Key <input name='key' autocomplete='off' "
                "spellcheck='false'></label>" + (f"<input type='hidden' name='next' value='{nxt}'>" if nxt else "")
                + "<button type='submit'>Open</button></form>")
        await _respond(send, 200, _page(self.name, body))

    def _cookie(self, token: str, max_age: int) -> bytes:
        parts = [f"{COOKIE}={token}", "Path=/", "HttpOnly", "SameSite=Strict", f"Max-Age={max_age}"]
        if self.secure:
            parts.append("Secure")
        return "; ".join(parts).encode("latin-1")


def _server_paths(folder: Path, notebooks: Sequence[Path]) -> list[Path]:
    """The server's own paths a page could show (the notebooks, the install, the campaign, the working folder):
    each page's HTML, JSON and websocket frames pass through ``path_scrubber`` of these."""
    out = [*notebooks, *{nb.parent for nb in notebooks}, *{nb.parent.parent for nb in notebooks}]
    return [*out, folder.resolve(), folder.resolve().parent, Path.cwd(), Path(sys.prefix), Path.home()]


WARM_NOTEBOOKS = ("table_page",)
"""The pages made ahead (``serve_warm``): the players' table pages."""


def _warm_tag(views: ViewCache, nb: Path) -> tuple[object, ...]:
    """What a table page made ahead depends on: the log's head and ``campaign.toml`` (``ViewCache.key``) and the
    notebook file's version."""
    try:
        st = nb.stat()
        version: tuple[int, int] = (st.st_mtime_ns, st.st_size)
    except OSError:
        version = (0, 0)
    return (*views.key(), version)


def build(folder: Path, *, secure: bool = False, open_public: bool = False, gm_sheet: bool = True,
          tick: float | None = TICK_SECONDS, creds: Credentials | None = None,
          warm: bool = True) -> tuple[ASGIApp, list[Page]]:
    """The table's ASGI app and its pages (credentials from ``DIR/.secrets`` unless given; ``warm``: render the
    read-only pages ahead when the log's head moves, ``ViewCache.keep_warm``, and make each table page's session
    ahead, ``serve_warm.keep_warm``)."""
    from starlette.applications import Starlette
    from starlette.routing import Mount

    camp = Campaign.open(folder)
    camp.events()
    creds = Credentials.load(folder) if creds is None else creds
    served = pages(folder, camp, gm_sheet=gm_sheet)
    routes = []
    scrub = path_scrubber(_server_paths(folder, [notebook(p.notebook) for p in served]))
    views = ViewCache(folder, scrub)
    made_ahead: list[WarmSessions] = []
    managers: list[Any] = []
    for p in served:
        app: ASGIApp
        if p.notebook == STATIC_NOTEBOOK:
            app = StaticView(views, p.owner, p.path)
        else:
            inner = marimo_app(notebook(p.notebook), p.path, p.cli_args)
            manager = inner.state.session_manager  # type: ignore[attr-defined]
            managers.append(manager)
            if p.notebook in WARM_NOTEBOOKS:
                manager.warm = WarmSessions(manager, functools.partial(_warm_tag, views, notebook(p.notebook)))
                made_ahead.append(manager.warm)
            app = PrivateApp(inner, scrub)
        routes.append(Mount(p.path, app=Gate(app, p.owner, creds, p.path, open_door=open_public)))

    kept_viewers = [p.owner for p in served if p.notebook == STATIC_NOTEBOOK]
    preload(sorted({notebook(p.notebook) for p in served if p.notebook != STATIC_NOTEBOOK}),
            [type(camp.ruleset).__module__.rpartition(".")[0] or type(camp.ruleset).__module__])

    @contextlib.asynccontextmanager
    async def lifespan(_: Any) -> AsyncIterator[None]:
        tasks = [asyncio.create_task(_ticker(folder, tick))] if tick else []
        if warm and kept_viewers:
            tasks.append(asyncio.create_task(views.keep_warm(kept_viewers)))
        if warm and made_ahead:
            tasks.append(asyncio.create_task(keep_warm(made_ahead, made_ahead[0].tag)))
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            for page in made_ahead:
                page.close_all()
            for manager in managers:  # every page's sessions: their kernels are threads of this process
                with contextlib.suppress(Exception):
                    await manager.shutdown()

    root = Starlette(routes=routes, lifespan=lifespan)
    return Front(root, creds, camp.config.name, secure, at_table=seated(camp)), served


async def _ticker(folder: Path, every: float) -> None:
    """Move the turn on now and then: deadlines and questions whose time ran out (``pbp.advance``)."""
    from kingdomlog.app import pbp

    while True:
        await asyncio.sleep(every)
        try:
            done = await asyncio.to_thread(lambda: pbp.advance(Campaign.open(folder)).done)
            for line in done:
                print(f"kingdomlog: {line}", flush=True)
        except ConflictError:
            continue  # someone wrote meanwhile: the next tick tries again
        except KingdomlogError as exc:
            print(f"kingdomlog: the turn cannot move on: {exc}", file=sys.stderr, flush=True)


def serve(folder: Path, *, host: str = "127.0.0.1", port: int = 2730, secure: bool = False,
          open_public: bool = False, new_credentials: bool = False, gm_sheet: bool = True,
          tick: float = TICK_SECONDS, url: str | None = None) -> int:
    """Serve the whole table from one process until stopped; prints each new credential's link once.

    ``url``: the address the players open (a reverse proxy's ``https://table.example.org``); the links
    are printed with it instead of ``host:port``.
    """
    import uvicorn

    from kingdomlog.uvicorn_server import AnnouncingServer  # uvicorn is loaded only to serve

    camp = Campaign.open(folder)
    camp.events()
    creds = Credentials.load(folder)
    owners = [GM, *camp.players(), PUBLIC]
    fresh = creds.issue(owners, renew=new_credentials)
    app, served = build(folder, secure=secure, open_public=open_public, gm_sheet=gm_sheet, tick=tick, creds=creds)
    shown = host if host not in ("0.0.0.0", "::") else "127.0.0.1"
    base = f"{'https' if secure else 'http'}://{shown}:{port}"
    if url:
        if not url.startswith(("http://", "https://")):
            raise InputError(f"--url {url!r}: give the address with its scheme (https://table.example.org)")
        base = url.rstrip("/")
    print(f"Table of {camp.config.name!r} ({folder.resolve()}): {base}/", flush=True)
    for p in served:
        print(f"  {p.path}/  {p.title} (opened by the {p.owner!r} link)", flush=True)
    if fresh:
        print("New links (keep them; only their hashes are stored, in "
              f"{creds.path}):", flush=True)
        for owner in owners:
            if owner in fresh:
                print(f"  {owner}: {base}/login?key={fresh[owner]}", flush=True)
    else:
        print("The links were printed when they were made; `--new-credentials` makes new ones (old links stop).",
              flush=True)
    if host not in ("127.0.0.1", "localhost", "::1") and not secure:
        print("warning: listening beyond this machine without TLS: put a reverse proxy with TLS in front and pass "
              "--secure (docs/play-by-post.md)", file=sys.stderr, flush=True)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", ws="websockets-sansio", lifespan="on",
                            proxy_headers=True, forwarded_allow_ips="127.0.0.1")
    AnnouncingServer(config, f"Serving on {base}/  (stop with Ctrl-C)").run()
    return 0


__all__ = ["Credentials", "Gate", "Page", "StaticView", "ViewCache", "build", "home_of", "marimo_app", "pages",
           "seated", "serve"]
