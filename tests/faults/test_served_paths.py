"""Served player apps show no server paths (issue 19, item 8), and refuse a visitor without the password.

``kingdomlog share`` ran ``marimo run``, whose page embeds the notebook's absolute path, its
folder and the repository root (``__MARIMO_MOUNT_CONFIG__``, ``<marimo-filename>``) and whose
file-explorer endpoint ``/api/home/workspace_files`` lists server files. The served app now
answers only the routes a run-mode page uses and strips server paths from pages, JSON and
websocket frames. Checked over HTTP and in Debian chromium (page, DOM and every websocket
frame); the refusal of a visitor without the password is awaited, not slept for.
"""

from __future__ import annotations

import http.cookiejar
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kingdomlog.app import Campaign
from kingdomlog.core.turn import Plan
from kingdomlog.core.viewers import Viewer

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"
CHROMIUM = Path("/usr/bin/chromium")
ABSOLUTE = re.compile(r"(?<![\w.:/-])/(?:work|tmp|root|home|usr|srv|opt|var|etc)(?:/[\w.@+-]+)+")
FILE_ROUTES = ["/api/home/workspace_files", "/api/home/recent_files", "/api/home/running_notebooks",
               "/api/files/list_files", "/api/files/file_details", "/api/files/file_details?path=/etc/passwd",
               "/api/kernel/read_code", "/api/storage/list_entries", "/api/documentation/snippets",
               "/api/export/html", "/api/packages/list", "/api/status", "/api/usage", "/lsp/health"]
ALICE = Viewer("player", "alice")


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    root = tmp_path_factory.mktemp("served")
    camp = Campaign.create(root / "farm", "toy-farm", name="Farm", viewers=["alice"])
    camp.play(Plan.parse({"seed": "a", "steps": {"found": {"choices": {"name": "Dale", "gold": 5}}}}))
    camp.play(Plan.parse({"seed": "b", "steps": {"harvest": {"choices": {"stash": 2}}}}))
    site = tmp_path_factory.mktemp("site")
    (site / "sitecustomize.py").write_text("import toyrules  # noqa: F401\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(TESTS)]))
    env.pop("KINGDOMLOG_CAMPAIGN", None)
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "kingdomlog", "share", str(camp.folder), "--as", "alice",
                             "--port", str(port), "--password", "pw-served-1"], env=env, cwd=root,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = ""
    lines = []
    deadline = time.monotonic() + 120
    assert proc.stdout is not None
    while time.monotonic() < deadline and not url:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        m = re.search(r"Read-only view of .*: (http://\S+)", line)
        url = m.group(1) if m else ""
    if not url:
        proc.terminate()
        raise AssertionError("share did not start:\n" + "".join(lines))
    secret_paths = [str(REPO), str(REPO / "notebooks"), str(camp.folder), str(root), sys.prefix, str(Path.home())]
    try:
        yield {"url": url, "base": url.split("?")[0].rstrip("/"), "folder": camp.folder, "paths": secret_paths,
               "head": camp.head_for(ALICE)}
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def opener() -> urllib.request.OpenerDirector:
    return urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))


def fetch(op: urllib.request.OpenerDirector, url: str, data: bytes | None = None,
          headers: dict[str, str] | None = None) -> tuple[int, str]:
    req = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with op.open(req, timeout=30) as resp:
            return resp.status, resp.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8", "replace")


def no_server_paths(text: str, paths: list[str]) -> None:
    assert not [p for p in paths if p in text], [p for p in paths if p in text]
    assert not ABSOLUTE.findall(text), ABSOLUTE.findall(text)[:5]


def test_the_page_html_holds_no_server_path(served: dict[str, Any]) -> None:
    op = opener()
    status, page = fetch(op, served["url"])
    assert status == 200 and "__MARIMO_MOUNT_CONFIG__" in page
    no_server_paths(page, served["paths"])
    assert '"filename": "kingdom_view.py"' in page


def test_the_file_explorer_endpoints_are_gone(served: dict[str, Any]) -> None:
    op = opener()
    _, page = fetch(op, served["url"])
    token = re.search(r'data-token="([^"]+)"', page)
    assert token is not None
    headers = {"Marimo-Server-Token": token.group(1), "Content-Type": "application/json"}
    for route in FILE_ROUTES:
        for data in (None, b'{"path": "/", "includeMarkdown": false}'):
            status, body = fetch(op, served["base"] + route, data=data, headers=headers)
            assert status == 404, (route, status, body[:200])
            no_server_paths(body, served["paths"])


def test_a_visitor_without_the_password_is_refused(served: dict[str, Any]) -> None:
    op = opener()
    _, body = fetch(op, served["base"] + "/")
    assert "Kingdom overview" not in body and "__MARIMO_MOUNT_CONFIG__" not in body
    _, body = fetch(op, served["base"] + "/?access_token=wrong")
    assert "__MARIMO_MOUNT_CONFIG__" not in body


@pytest.mark.browser
def test_in_a_browser_no_server_path_reaches_the_page_or_its_frames(served: dict[str, Any]) -> None:
    if not CHROMIUM.exists():
        pytest.fail("Debian chromium is missing: .ci/run installs it (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=[
            "--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
            "--disable-dev-shm-usage"])
        try:
            page = browser.new_page(viewport={"width": 390, "height": 900})
            frames: list[str] = []
            page.on("websocket", lambda ws: (ws.on("framereceived", lambda f: frames.append(str(f))),
                                             ws.on("framesent", lambda f: frames.append(str(f)))))
            failed: list[str] = []
            page.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)
            page.goto(served["url"])
            page.get_by_role("heading", name="Chronicle").wait_for(timeout=120_000)
            page.get_by_text(served["head"].short).first.wait_for(timeout=30_000)  # the witness is on the page
            (REPO / "test-artifacts").mkdir(exist_ok=True)
            page.screenshot(path=str(REPO / "test-artifacts" / "served-no-paths-390.png"), full_page=True)
            assert frames
            no_server_paths(page.content(), served["paths"])
            for f in frames:
                no_server_paths(f, served["paths"])
            assert failed == [], failed  # the page needs none of the routes that answer 404
            # a visitor without the password: wait for the refusal (the login form), never sleep
            anon = browser.new_page()
            anon.goto(served["base"] + "/")
            anon.locator("input[type=password]").wait_for(timeout=30_000)
            assert "Kingdom overview" not in anon.content() and "__MARIMO_MOUNT_CONFIG__" not in anon.content()
            anon.close()
        finally:
            browser.close()


def test_the_wrapper_never_passes_on_what_it_could_not_scrub() -> None:
    """Unit: compressed or undecodable text answers become a 502; request compression is switched off."""
    import asyncio
    import gzip

    from kingdomlog.notebook_server import PrivateApp, path_scrubber

    secret = "/srv/secret/place/view.py"
    seen_headers: list[list[tuple[bytes, bytes]]] = []

    def inner(body: bytes, headers: list[tuple[bytes, bytes]]) -> Any:
        async def app(scope: Any, receive: Any, send: Any) -> None:
            seen_headers.append(list(scope["headers"]))
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": body[:10], "more_body": True})
            await send({"type": "http.response.body", "body": body[10:]})
        return app

    async def call(app: Any) -> tuple[int, bytes]:
        out: list[Any] = []

        async def send(m: Any) -> None:
            out.append(m)

        scope = {"type": "http", "path": "/", "headers": [(b"accept-encoding", b"gzip"), (b"host", b"x")]}
        await app(scope, None, send)
        return out[0]["status"], b"".join(m.get("body", b"") for m in out[1:])

    scrub = path_scrubber([Path(secret)])
    html = f'<script>{{"filename": "{secret}"}}</script>'.encode()
    status, body = asyncio.run(call(PrivateApp(inner(html, [(b"content-type", b"text/html")]), scrub)))
    assert status == 200 and secret.encode() not in body and b'"view.py"' in body
    assert seen_headers[-1] == [(b"host", b"x")]  # accept-encoding removed
    zipped = gzip.compress(html)
    status, body = asyncio.run(call(PrivateApp(inner(zipped, [(b"content-type", b"text/html"),
                                                              (b"content-encoding", b"gzip")]), scrub)))
    assert status == 502 and secret.encode() not in body
    status, body = asyncio.run(call(PrivateApp(inner(b"\xff\xfe" + html, [(b"content-type", b"application/json")]),
                                               scrub)))
    assert status == 502 and secret.encode() not in body
