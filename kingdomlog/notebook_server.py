"""Serving the notebooks: ``kingdomlog gm DIR`` (the turn sheet as an app) and ``kingdomlog share DIR --as VIEWER``.

- ``open_gm`` runs ``marimo run notebooks/turn_sheet.py -- --campaign DIR`` on
  localhost with a random access token (``--edit``: ``marimo edit``, for those who
  want the notebook's code), prints the URL once the server answers, and stops
  marimo when it is stopped itself.
- ``serve_orders`` runs ``marimo run notebooks/orders_sheet.py -- --campaign DIR --viewer F``
  with a password token: one player's orders sheet, which writes only that player's
  submission (``core.plan_submitted``).
- ``share`` either writes one self-contained HTML file for a viewer (``-o``) or
  serves ``notebooks/kingdom_view.py`` in run mode with a password token; the viewer
  is fixed on the server side (design §7), and the player notebook holds no write code.

The player apps (``share``, ``orders``) are served by ``python -m kingdomlog.notebook_server``:
marimo's run-mode ASGI app (``marimo.create_asgi_app``, the same app ``marimo run`` serves)
inside ``PrivateApp``, which answers only the routes a run-mode page uses (marimo's file
explorer, ``/api/home/workspace_files`` and the like, are 404) and strips the server's paths
(the notebook's, its folder's, the campaign's, the working directory's) from every page,
JSON answer and websocket frame. Campaign and viewer reach the notebook by environment
(``KINGDOMLOG_CAMPAIGN``, ``KINGDOMLOG_VIEWER``), never by a URL. marimo's frontend files
(``/assets/*``: about 300 requests and 6.8 MB for one page open) are answered from memory by
``FrontendFiles``, gzipped once, with a year's ``immutable`` cache (their names carry a digest
of their bytes): the same files for every page and viewer, no viewer's data in them.

The notebooks are located next to the package (the repository's ``notebooks/``
folder, which an editable install keeps in place) or in ``$KINGDOMLOG_NOTEBOOKS``.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import hashlib
import mimetypes
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from kingdomlog.app import Campaign
from kingdomlog.core.errors import InputError, KingdomlogError

ENV_NOTEBOOKS = "KINGDOMLOG_NOTEBOOKS"
HOST = "127.0.0.1"


def notebooks_dir() -> Path:
    """The folder holding ``turn_sheet.py``, ``kingdom_view.py`` and ``history.py``.

    ``$KINGDOMLOG_NOTEBOOKS`` wins; else the ``notebooks/`` folder beside the
    package (a source checkout or an editable install). Raises ``InputError``
    saying where it looked.
    """
    env = os.environ.get(ENV_NOTEBOOKS)
    candidates = [Path(env)] if env else []
    candidates.append(Path(__file__).resolve().parent.parent / "notebooks")
    for c in candidates:
        if (c / "turn_sheet.py").is_file():
            return c
    looked = ", ".join(str(c) for c in candidates)
    raise InputError(f"cannot find the kingdomlog notebooks (looked in {looked}); install kingdomlog from a source"
                     f" checkout (`pip install -e .`) or set {ENV_NOTEBOOKS} to the notebooks folder")


def notebook(name: str) -> Path:
    """The path of ``notebooks/<name>.py``."""
    return notebooks_dir() / f"{name}.py"


def resolve_viewer(camp: Campaign, viewer: str) -> str:
    """``gm``, ``public`` or a known player/faction id (``faction:`` prefix allowed); else ``InputError``."""
    return camp.viewer(viewer).id


def wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 60.0) -> bool:
    """True once something accepts connections on ``HOST:port``; False if ``proc`` exits or time runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        try:
            with socket.create_connection((HOST, port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.2)
    return False


def port_free(port: int) -> bool:
    """Whether nothing listens on ``HOST:port``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((HOST, port))
        except OSError:
            return False
    return True


def _serve(cmd: list[str], port: int, url: str, what: str, cleanup: Path | None = None) -> int:
    """Run a marimo server, print ``url`` once it answers, forward SIGTERM/SIGINT, return its exit code."""
    if not port_free(port):
        raise InputError(f"port {port} on {HOST} is in use; pass --port with a free one")
    proc = subprocess.Popen(cmd)

    def stop(signum: int, frame: FrameType | None) -> None:
        if proc.poll() is None:
            proc.terminate()

    old_term = signal.signal(signal.SIGTERM, stop)
    old_int = signal.signal(signal.SIGINT, stop)
    try:
        if wait_for_port(port, proc):
            print(f"{what}: {url}", flush=True)
            print("Stop with Ctrl-C.", flush=True)
        if cleanup is not None:
            cleanup.unlink(missing_ok=True)
        try:
            rc = proc.wait()
        except KeyboardInterrupt:  # pragma: no cover - the handler above normally catches it
            proc.terminate()
            rc = proc.wait()
        return 0 if rc in (0, -signal.SIGTERM, -signal.SIGINT) else rc
    finally:
        signal.signal(signal.SIGTERM, old_term)
        signal.signal(signal.SIGINT, old_int)
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        if cleanup is not None:
            cleanup.unlink(missing_ok=True)


def _password_file(password: str) -> Path:
    fd, name = tempfile.mkstemp(prefix="kingdomlog-token-", suffix=".txt")
    with os.fdopen(fd, "w") as fh:
        fh.write(password)
    return Path(name)


PRELOADED_MARIMO = "from kingdomlog.notebook_server import marimo_main; marimo_main()"
"""``python -c`` code that runs marimo's command line with kingdomlog already imported."""


def marimo_main() -> None:
    """marimo's command line (``sys.argv[1:]``), with the turn sheet's library and the rulesets imported first.

    A ``marimo run`` server runs each browser session as a thread of its own process, so
    what is imported here is not imported again when the GM opens the sheet.
    """
    import runpy

    from kingdomlog.core.ruleset import discover
    from kingdomlog.views.sheet import draft as sheet  # noqa: F401  (for the sessions)
    from kingdomlog.views.table import browsers

    discover()
    browsers.register_sessions()  # a closed tab's session: its watchers (the sheet's table panel) stop with it
    sys.argv = ["marimo", *sys.argv[1:]]
    runpy.run_module("marimo", run_name="__main__", alter_sys=True)


def open_gm(folder: Path, port: int = 2718, headless: bool = False, token: bool = True, edit: bool = False) -> int:
    """Serve the GM turn sheet on ``folder`` on localhost; returns marimo's exit code.

    By default the sheet is an app (``marimo run``: no code, no editor controls, no
    add-cell buttons) behind a random access token printed in its URL; ``edit`` opens
    the notebook in marimo's editor instead. Raises the store's error when ``folder`` is
    not a campaign (checked before anything starts).
    """
    camp = Campaign.open(folder)
    camp.events()
    nb = notebook("turn_sheet")
    absolute = str(Path(folder).resolve())
    mode = "edit" if edit else "run"
    cmd = [sys.executable, "-c", PRELOADED_MARIMO, mode, str(nb), "--host", HOST, "--port", str(port), "--no-sandbox"]
    if edit:
        cmd.append("--skip-update-check")
    if headless:
        cmd.append("--headless")
    pw_file = None
    url = f"http://{HOST}:{port}/"
    if token:
        password = secrets.token_urlsafe(16)
        pw_file = _password_file(password)
        cmd += ["--token-password-file", str(pw_file)]
        url += f"?access_token={password}"
    elif edit:
        cmd.append("--no-token")
    cmd += ["--", "--campaign", absolute]
    what = "GM turn sheet (editor)" if edit else "GM turn sheet"
    return _serve(cmd, port, url, f"{what} for {camp.config.name!r} ({absolute})", cleanup=pw_file)


def share(folder: Path, viewer: str, output: str | Path | None = None, port: int = 2719,
          password: str | None = None) -> int:
    """A read-only view of ``folder`` for ``viewer``: one HTML file (``output``) or a ``marimo run`` server.

    The server's viewer is fixed by its command line; players cannot change it,
    and the notebook they see has no write code. Returns 0 on success.
    """
    camp = Campaign.open(folder)
    who = resolve_viewer(camp, viewer)
    if output is not None:
        from kingdomlog.views.player.page import render_static

        page = render_static(Path(folder), who)
        if str(output) == "-":  # standard output, nothing else on it
            sys.stdout.write(page)
            return 0
        out = Path(output)
        try:
            out.write_text(page, encoding="utf-8")
        except OSError as exc:
            raise InputError(f"{out}: cannot write: {exc.strerror}") from None
        print(f"wrote the view of {camp.config.name!r} for {camp.viewer_name(who)} to {out}")
        return 0
    return _run_for_viewer("kingdom_view", folder, who, port, password,
                           f"Read-only view of {camp.config.name!r} for {camp.viewer_name(who)}")


def _run_for_viewer(name: str, folder: Path, who: str, port: int, password: str | None, what: str) -> int:
    """Serve a player notebook in run mode (``PrivateApp``) with the viewer fixed and a password token."""
    nb = notebook(name)
    pw = password or secrets.token_urlsafe(12)
    pw_file = _password_file(pw)
    cmd = [sys.executable, "-m", "kingdomlog.notebook_server", str(nb), "--port", str(port),
           "--password-file", str(pw_file), "--campaign", str(Path(folder).resolve()), "--viewer", who]
    url = f"http://{HOST}:{port}/?access_token={pw}"
    try:
        return _serve(cmd, port, url, what, cleanup=pw_file)
    except KingdomlogError:
        pw_file.unlink(missing_ok=True)
        raise


# ---- the served player apps -------------------------------------------------------------------------

ALLOWED_ROUTES = re.compile(
    r"^/(?:$|index\.html$|assets/|auth/|ws$|ws_sync$|api/kernel/(?!read_code)|@file/|favicon\.ico$|"
    r"manifest\.json$|android-chrome|apple-touch|og/|health$|healthz$|api/status/connections$)"
)
"""The routes a run-mode page uses. Everything else (marimo's file explorer, ``/api/home/*``,
``/api/files/*``, ``/api/storage/*``, documentation, export, packages, …) answers 404; so do ``/public/`` (marimo's
files of the notebook's folder, chosen by a header the browser sends: no page here has any) and its service worker
``public-files-sw.js``, whose registration ``guarded`` takes out of the page."""

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def path_scrubber(paths: Sequence[Path]) -> Callable[[str], str]:
    """Replace each of ``paths`` (and its ``file://`` URI) in a text: the first by its name, the others by ``.``.

    >>> scrub = path_scrubber([Path("/srv/kl/notebooks/view.py"), Path("/srv/kl/notebooks")])
    >>> scrub('{"filename": "/srv/kl/notebooks/view.py", "cwd": "/srv/kl/notebooks", "f": "/srv/kl/notebooks/x.py"}')
    '{"filename": "view.py", "cwd": ".", "f": "./x.py"}'
    """
    pairs: dict[str, str] = {}
    for i, p in enumerate(paths):
        text = str(p)
        if len(text) > 1 and text.startswith("/"):
            name = p.name if i == 0 else "."
            pairs["file://" + text] = name
            pairs[text] = name
    ordered = sorted(pairs, key=len, reverse=True)
    if not ordered:
        return lambda text: text
    # whole paths only: not inside a longer name (/root in /rooted), and up to a separator
    pattern = re.compile(r"(?<![\w.-])(?:" + "|".join(re.escape(k) for k in ordered) + r")(?=[/\\\"'\s<>,;:)\]}]|$)")
    return lambda text: pattern.sub(lambda m: pairs[m.group(0)], text)


@dataclass(frozen=True)
class FrontendFile:
    """One of marimo's frontend files as served: its bytes, gzipped (None when that is no smaller), type, ETag."""

    body: bytes
    zipped: bytes | None
    kind: bytes
    etag: bytes


ASSET_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]*$")
"""A frontend file's name: marimo's ``assets/`` folder is flat (``index-s-M1OXjs.js``): no path, no dot-file."""
COMPRESSED = (".js", ".css", ".svg", ".json", ".map", ".ttf", ".wasm", ".txt", ".html")


class FrontendFiles:
    """marimo's frontend files (its ``_static/assets`` folder), read once and kept in memory, answered by one send.

    Every run-mode page loads the same ~300 files (6.8 MB) when it opens in a browser with an empty cache;
    starlette's ``StaticFiles`` opens, reads and closes each one in worker threads on every request, a third
    of the server's CPU per page open. These files are marimo's own JavaScript, CSS and fonts, identical for
    every page and every viewer (no viewer's data, no server path), so one copy serves the whole process:
    kept as read, gzipped once for a browser that accepts it, sent with a year's ``immutable`` cache (their
    names carry a digest of their bytes, so a new marimo brings new names). A name that is not a file of
    the folder is left to marimo (its 404).
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.kept: dict[str, FrontendFile | None] = {}
        self.reads = 0
        self._lock = threading.Lock()

    def get(self, name: str) -> FrontendFile | None:
        """The file ``name`` of the folder (read and gzipped on its first ask, under a lock), or None."""
        if name in self.kept:
            return self.kept[name]
        with self._lock:
            if name not in self.kept:
                self.kept[name] = self._read(name)
            return self.kept[name]

    def _read(self, name: str) -> FrontendFile | None:
        if not ASSET_NAME.match(name):
            return None
        path = self.root / name
        try:
            body = path.read_bytes() if path.is_file() else None
        except OSError:
            body = None
        if body is None:
            return None
        self.reads += 1
        kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind in ("application/javascript", "image/svg+xml", "application/json"):
            kind += "; charset=utf-8"
        zipped = gzip.compress(body, compresslevel=6, mtime=0) if name.endswith(COMPRESSED) else None
        if zipped is not None and len(zipped) >= len(body) * 0.9:
            zipped = None
        etag = b'"' + hashlib.sha256(body).hexdigest()[:32].encode() + b'"'
        return FrontendFile(body, zipped, kind.encode(), etag)

    async def respond(self, name: str, scope: Scope, send: Send) -> bool:
        """Answer a GET or HEAD of ``assets/<name>`` from memory; False (nothing sent) when it is not one."""
        if scope.get("method", "GET") not in ("GET", "HEAD"):
            return False
        found = self.kept[name] if name in self.kept else await asyncio.to_thread(self.get, name)
        if found is None:
            return False
        request = {bytes(k).lower(): bytes(v) for k, v in scope.get("headers", ())}
        headers = [(b"content-type", found.kind), (b"cache-control", b"public, max-age=31536000, immutable"),
                   (b"etag", found.etag), (b"vary", b"accept-encoding"), (b"x-content-type-options", b"nosniff")]
        if found.etag in request.get(b"if-none-match", b""):
            await send({"type": "http.response.start", "status": 304, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return True
        body = found.body
        if found.zipped is not None and b"gzip" in request.get(b"accept-encoding", b""):
            body = found.zipped
            headers.append((b"content-encoding", b"gzip"))
        headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if scope.get("method") == "HEAD" else body})
        return True


def marimo_assets() -> Path:
    """The folder of marimo's frontend files (``marimo/_static/assets``)."""
    import marimo

    return Path(marimo.__file__).resolve().parent / "_static" / "assets"


_FRONTEND: FrontendFiles | None = None


def frontend_files() -> FrontendFiles:
    """The process's one ``FrontendFiles`` (made on first use): every page shares its kept files."""
    global _FRONTEND
    if _FRONTEND is None:
        _FRONTEND = FrontendFiles(marimo_assets())
    return _FRONTEND


PAGE_GUARD = """(function(){
var KEY='kingdomlog-reloads:'+location.pathname,WINDOW=300000,AUTO=2,WAIT=%(wait)d,touched=false,leaving=false,
ready=false,failed=false,Base=window.WebSocket;
['keydown','input','pointerdown'].forEach(function(e){addEventListener(e,function(){touched=true},true)});
addEventListener('pagehide',function(){leaving=true});addEventListener('beforeunload',function(){leaving=true});
function reloads(){try{return JSON.parse(sessionStorage.getItem(KEY)||'[]').filter(function(t){
return Date.now()-t<WINDOW})}catch(e){return[]}}
function fail(){if(failed||leaving)return;failed=true;var done=reloads(),auto=!touched&&done.length<AUTO;
var box=document.createElement('div');box.id='kingdomlog-reload';box.setAttribute('role','alert');
box.style.cssText='position:fixed;top:0;left:0;right:0;z-index:2147483647;padding:1em;background:#fff3cd;'+
'color:#222;font:1.1em system-ui,sans-serif;border-bottom:2px solid #c9a227;text-align:center';
box.textContent=auto?'This page did not open properly. It is reloading itself\u2026':
'This page did not open properly. Reload it (your link stays the same). ';
if(!auto){var b=document.createElement('button');b.textContent='Reload';b.onclick=function(){location.reload()};
box.appendChild(b)}
(document.body||document.documentElement).appendChild(box);
if(auto){done.push(Date.now());try{sessionStorage.setItem(KEY,JSON.stringify(done))}catch(e){}
setTimeout(function(){location.reload()},1500)}}
function broken(data){if(typeof data!=='string'||data.indexOf('application/vnd.marimo+error')<0)return false;
try{var m=JSON.parse(data),o=(m.data||{}).output||{};return (o.data||[]).some(function(e){
return e&&e.type!=='ancestor-stopped'&&e.type!=='interruption'})}catch(e){return false}}
function watch(ws){ws.addEventListener('message',function(e){
if(!ready&&typeof e.data==='string'&&e.data.indexOf('"kernel-ready"')>=0)ready=true;if(broken(e.data))fail()});
ws.addEventListener('close',function(){if(!ready)fail()})}
if(Base){var Guarded=function(url,protocols){var ws=protocols===undefined?new Base(url):new Base(url,protocols);
if(/\\/ws(\\?|$)/.test(String(url)))watch(ws);return ws};
Guarded.prototype=Base.prototype;['CONNECTING','OPEN','CLOSING','CLOSED'].forEach(function(k){Guarded[k]=Base[k]});
window.WebSocket=Guarded}
setTimeout(function(){if(!ready)fail()},WAIT)})();"""
"""What every marimo page served here runs first (``guarded``): a page whose kernel failed while it opened (a cell's
error other than a stop, its websocket closed before its kernel was ready, no kernel after ``GUARD_WAIT_S``) says so
in words at its top and reloads itself, at most twice in five minutes and never once the person has typed or
clicked on it (their work stays; they are told to reload). It reads the frames marimo's own frontend receives."""
GUARD_WAIT_S = 150
_SW_REGISTRATION = re.compile(r"<script[^>]*>\s*if \('serviceWorker' in navigator\).*?</script>", re.S)


def guarded(html: str) -> str:
    """A marimo page's HTML with ``PAGE_GUARD`` first in its head, and without marimo's registration of its
    ``public-files-sw.js`` service worker (a worker that adds the notebook's id to the page's asks of ``/public/``,
    marimo's files of the notebook's folder: no page here has any, and the route is not served).
    Any other HTML is returned as it is."""
    if "<marimo-" not in html or "<head>" not in html:
        return html
    html = _SW_REGISTRATION.sub("", html, count=1)
    return html.replace("<head>", "<head><script>" + PAGE_GUARD % {"wait": GUARD_WAIT_S * 1000} + "</script>", 1)


_AST_LOCK = threading.RLock()
"""Held while one thread builds or reads a Python AST (``serialize_ast``)."""


def _locked(fn: Callable[..., Any]) -> Callable[..., Any]:
    def locked(*args: Any, **kwargs: Any) -> Any:
        with _AST_LOCK:
            return fn(*args, **kwargs)

    locked.__wrapped__ = fn  # type: ignore[attr-defined]
    locked.__name__, locked.__doc__ = fn.__name__, fn.__doc__
    return locked


def serialize_ast() -> None:
    """One thread at a time builds a Python AST or compiles one: ``ast.parse`` and marimo's ``ast_compile``.

    CPython 3.11 counts the depth of every AST it converts (``ast.parse``; ``compile`` of an AST) in one counter
    of the ``_ast`` module, shared by all threads: when a garbage collection inside one conversion runs a
    finalizer, another thread may convert meanwhile, and one of them fails with ``SystemError: AST constructor
    recursion depth mismatch``. A served page open converts in two threads at once: the server's, building the
    new session's app (``load_notebook_ir``), and each running kernel's, compiling its cells. When that failed,
    a page never drew: its websocket was dropped, or its kernel's setup cell failed and every cell under it.
    Both calls go on doing what they did (the lock is taken around the unchanged functions, whose own frames
    still call ``compile``); idempotent.
    """
    import ast

    import marimo._ast.compiler as compiler

    if not hasattr(ast.parse, "__wrapped__"):
        ast.parse = _locked(ast.parse)
    if not hasattr(compiler.ast_compile, "__wrapped__"):
        compiler.ast_compile = _locked(compiler.ast_compile)


class PrivateApp:
    """An ASGI wrapper around marimo's run-mode app that keeps the server's paths to itself.

    HTTP requests outside ``ALLOWED_ROUTES`` get 404; HTML and JSON answers and websocket
    text frames pass through ``scrub`` (``path_scrubber``), with ``Content-Length`` fixed.
    marimo's frontend files (``/assets/<name>``) are answered from ``files`` (the process's
    ``frontend_files()`` unless given).
    """

    def __init__(self, app: ASGIApp, scrub: Callable[[str], str], files: FrontendFiles | None = None) -> None:
        self.app = app
        self.scrub = scrub
        self.files = files or frontend_files()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            path, root = scope.get("path", ""), scope.get("root_path", "")
            route = path[len(root):] if root and path.startswith(root) else path  # mounted (kingdomlog serve): below it
            if not ALLOWED_ROUTES.match(route or "/"):
                body = b'{"detail":"Not Found"}'
                await send({"type": "http.response.start", "status": 404,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
            if (route.startswith("/assets/")
                    and await self.files.respond(route.removeprefix("/assets/"), scope, send)):
                return
            # no compressed answers: a gzipped page could not be scrubbed (the served pages are small)
            headers = [(k, v) for k, v in scope.get("headers", []) if k.lower() != b"accept-encoding"]
            await self.app(dict(scope, headers=headers), receive, self._http_send(send))
        elif scope["type"] == "websocket":
            await self.app(scope, receive, self._ws_send(send))
        else:
            await self.app(scope, receive, send)

    def _http_send(self, send: Send) -> Send:
        start: Message | None = None
        chunks: list[bytes] = []

        async def wrapped(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                kind = dict(message.get("headers", [])).get(b"content-type", b"")
                if kind.startswith((b"text/html", b"application/json", b"text/plain")):
                    start = message  # held until the whole body is here
                    return
                await send(message)
            elif message["type"] == "http.response.body" and start is not None:
                chunks.append(message.get("body", b""))
                if message.get("more_body"):
                    return
                raw = b"".join(chunks)
                kind = dict(start.get("headers", [])).get(b"content-type", b"")
                encoded = dict(start.get("headers", [])).get(b"content-encoding", b"identity") != b"identity"
                try:
                    text = self.scrub(raw.decode("utf-8")) if not encoded else ""
                    if kind.startswith(b"text/html"):
                        text = guarded(text)
                    body = text.encode("utf-8")
                except UnicodeDecodeError:
                    body = b""
                if raw and not body:  # never pass on what could not be scrubbed
                    start = dict(start, status=502)
                    body = b"kingdomlog: this answer could not be checked for server paths"
                headers = [(k, v) for k, v in start.get("headers", [])
                           if k.lower() not in (b"content-length", b"content-encoding")]
                headers.append((b"content-length", str(len(body)).encode()))
                await send(dict(start, headers=headers))
                await send({"type": "http.response.body", "body": body})
            else:
                await send(message)

        return wrapped

    def _ws_send(self, send: Send) -> Send:
        async def wrapped(message: Message) -> None:
            if message["type"] == "websocket.send" and message.get("text") is not None:
                message = dict(message, text=self.scrub(message["text"]))
            await send(message)

        return wrapped


def build_app(nb: Path, password: str, *, campaign: Path) -> PrivateApp:
    """The run-mode app of ``nb`` behind its password, wrapped in ``PrivateApp``."""
    import marimo

    from kingdomlog.views.table import browsers

    serialize_ast()
    browsers.register_sessions()  # a page whose tab left: its watchers do no work, and stop with its session
    inner = marimo.create_asgi_app(quiet=True, include_code=False, token=password, show_tracebacks=False) \
        .with_app(path="", root=str(nb)).build()
    here = Path.cwd()
    paths = [nb, nb.parent, nb.parent.parent, campaign, campaign.parent, here, Path(sys.prefix), Path.home()]
    return PrivateApp(inner, path_scrubber(paths))


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m kingdomlog.notebook_server NOTEBOOK --port P --password-file F --campaign DIR --viewer V``."""
    p = argparse.ArgumentParser(prog="python -m kingdomlog.notebook_server",
                                description="serve a kingdomlog player notebook (run mode, no server paths)")
    p.add_argument("notebook")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--password-file", required=True)
    p.add_argument("--campaign", required=True)
    p.add_argument("--viewer", required=True)
    args = p.parse_args(argv)
    import uvicorn

    password = Path(args.password_file).read_text(encoding="utf-8").strip()
    os.environ["KINGDOMLOG_CAMPAIGN"] = args.campaign
    os.environ["KINGDOMLOG_VIEWER"] = args.viewer
    app = build_app(Path(args.notebook).resolve(), password, campaign=Path(args.campaign).resolve())
    uvicorn.run(app, host=HOST, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":  # pragma: no cover - run as a subprocess by share and orders
    raise SystemExit(main())


def serve_orders(folder: Path, viewer: str, port: int = 2720, password: str | None = None) -> int:
    """Serve ``notebooks/orders_sheet.py`` for one player with ``marimo run`` and a password token.

    The viewer is fixed on the command line, so the page can only show that player's
    redacted view and write that player's submission (``Campaign.submit``). Refuses the
    GM, the public and a viewer with no steps to submit in this campaign's ruleset.
    """
    camp = Campaign.open(folder)
    v = camp.viewer(viewer)
    who = v.id
    if not v.is_player:
        raise InputError("the orders sheet is for a player or faction; the GM uses `kingdomlog gm`")
    if not camp.player_steps(v):
        raise InputError(f"{camp.viewer_name(who)} has no steps to submit for {camp.ruleset.turn_unit}"
                         f" {camp.next_turn()} of this campaign ({camp.ruleset.name}); there are no orders to give now")
    return _run_for_viewer("orders_sheet", folder, who, port, password,
                           f"Orders sheet of {camp.config.name!r} for {camp.viewer_name(who)}")
