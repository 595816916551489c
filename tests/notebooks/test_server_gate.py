"""The one server's gate without a browser (``kingdomlog serve``): its ASGI app called with hand-made requests.

The browser test (test_server_table.py) plays a month through it; here each rule of the gate is checked
on its own, fast: credentials stored as hashes only, the login link and its cookie, a faction's credential
refused on every other page (HTTP and websocket), the marimo endpoints a page does not need refused, a
stranger sent to the login form, ``--url`` for the printed links.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest
from nb_support import REPO

from kingdomlog.app import Campaign
from kingdomlog.server import COOKIE, Credentials, build

FELMONTE = REPO / "campaigns" / "felmonte"


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], Any, Any]:
    if not (FELMONTE / "campaign.toml").is_file():
        pytest.skip("campaigns/felmonte is not built")
    folder = tmp_path_factory.mktemp("gate") / "felmonte"
    shutil.copytree(FELMONTE, folder, ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    camp = Campaign.open(folder)
    keys = Credentials.load(folder).issue(["gm", *camp.players(), "public"])
    app, _ = build(folder, tick=None)
    secure, _ = build(folder, tick=None, secure=True, open_public=True)
    return folder, keys, app, secure


def call(app: Any, path: str, *, key: str | None = None, kind: str = "http", query: str = "",
         auth: str | None = None) -> dict[str, Any]:
    """One request through the ASGI app; returns the status (or the websocket close), headers and body."""
    headers = [(b"host", b"127.0.0.1")]
    if key is not None:
        headers.append((b"cookie", f"{COOKIE}={key}".encode()))
    if auth is not None:
        headers.append((b"authorization", f"Bearer {auth}".encode()))
    scope: dict[str, Any] = {"type": kind, "path": path, "raw_path": path.encode(), "query_string": query.encode(),
                             "headers": headers, "method": "GET", "scheme": "http" if kind == "http" else "ws",
                             "server": ("127.0.0.1", 2730), "client": ("127.0.0.1", 5000), "root_path": "",
                             "http_version": "1.1", "asgi": {"version": "3.0"}}
    if kind == "websocket":
        scope["subprotocols"] = []
    sent: list[dict[str, Any]] = []
    first = [{"type": "http.request", "body": b"", "more_body": False} if kind == "http"
             else {"type": "websocket.connect"}]

    async def receive() -> dict[str, Any]:
        if first:
            return first.pop()
        await asyncio.sleep(3600)  # pragma: no cover (the gate never waits for more)
        return {}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(asyncio.wait_for(app(scope, receive, send), 30))
    if kind == "websocket":
        return {"close": next(m for m in sent if m["type"] == "websocket.close")["code"]}
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return {"status": start["status"], "headers": {k.decode(): v.decode() for k, v in start["headers"]},
            "body": body.decode("utf-8", "replace")}


def test_credentials_are_stored_as_hashes_only(table: Any) -> None:
    folder, keys, _, _ = table
    path = folder / ".secrets" / "credentials.json"
    text = path.read_text(encoding="utf-8")
    assert set(json.loads(text)) == {"gm", "fabian", "marburg", "public"}
    assert not any(k in text for k in keys.values())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert not {p.name for p in folder.joinpath("log").iterdir()} & {".secrets", "credentials.json"}


def test_a_login_link_sets_its_own_cookie_and_goes_home(table: Any) -> None:
    _, keys, app, secure = table
    r = call(app, "/login", query=f"key={keys['fabian']}")
    assert r["status"] == 303 and r["headers"]["location"] == "/f/fabian/orders/"
    cookie = r["headers"]["set-cookie"]
    assert cookie.startswith(f"{COOKIE}={keys['fabian']};") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert "Secure" not in cookie
    assert "Secure" in call(secure, "/login", query=f"key={keys['fabian']}")["headers"]["set-cookie"]
    bad = call(app, "/login", query="key=" + keys["fabian"][:-2] + "xx")
    assert bad["status"] == 403 and "set-cookie" not in bad["headers"]
    # a next= outside the credential's own pages is not followed (no open redirect, no other faction's page)
    for nxt in ("//evil.example/", "/f/marburg/orders/", "/gm/"):
        r = call(app, "/login", query=f"key={keys['fabian']}&next={nxt}")
        assert r["headers"]["location"] == "/f/fabian/orders/", nxt
    assert call(app, "/", key=keys["marburg"])["headers"]["location"] == "/f/marburg/orders/"
    assert call(app, "/", key=keys["gm"])["headers"]["location"] == "/gm/"


PAGES = {"gm": ["/gm/"], "fabian": ["/f/fabian/orders/", "/f/fabian/report/"],
         "marburg": ["/f/marburg/orders/", "/f/marburg/report/"], "public": ["/public/"]}


@pytest.mark.parametrize("owner", list(PAGES))
def test_a_credential_opens_nothing_of_anothers(table: Any, owner: str) -> None:
    """Every other page refuses it, over HTTP (cookie or bearer token) and websockets: 403 / close 4403."""
    _, keys, app, _ = table
    for other, paths in PAGES.items():
        if other == owner:
            continue
        for path in paths:
            assert call(app, path, key=keys[owner])["status"] == 403, (owner, path)
            assert call(app, path + "api/kernel/instantiate", auth=keys[owner])["status"] == 403, (owner, path)
            assert call(app, path + "ws", key=keys[owner], kind="websocket")["close"] == 4403, (owner, path)


def test_strangers_are_sent_to_the_login_form(table: Any) -> None:
    _, _, app, secure = table
    r = call(app, "/f/fabian/orders/")
    assert r["status"] == 303 and r["headers"]["location"] == "/?next=%2Ff%2Ffabian%2Forders%2F"
    assert call(app, "/f/fabian/orders/ws", kind="websocket")["close"] == 4403
    assert call(app, "/f/fabian/orders/api/kernel/instantiate")["status"] == 403
    form = call(app, "/")
    assert form["status"] == 200 and "paste its key" in form["body"]
    # --open-public: the public page needs no link, and nothing else opens with it
    assert call(secure, "/f/fabian/orders/")["status"] == 303


def test_endpoints_a_page_does_not_need_are_refused(table: Any) -> None:
    """marimo's file browser and friends show server paths: refused even to the page's own credential."""
    folder, keys, app, _ = table
    for rel in ("api/home/workspace_files", "api/files/file_details", "api/packages/list", "terminal/ws"):
        r = call(app, f"/f/fabian/orders/{rel}", key=keys["fabian"])
        assert r["status"] == 404, rel
        assert str(folder.resolve()) not in r["body"]


def test_the_printed_links_use_the_url_behind_a_proxy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """``kingdomlog serve --url https://table.example.org``: the links are printed with that address (the
    server itself is not started here: uvicorn's run is replaced)."""
    import uvicorn

    from kingdomlog.cli import main as cli

    folder = tmp_path / "felmonte"
    shutil.copytree(FELMONTE, folder, ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    monkeypatch.setattr(uvicorn.Server, "run", lambda self: None)
    assert cli(["serve", str(folder), "--secure", "--url", "https://table.example.org/"]) == 0
    out = capsys.readouterr().out
    assert "  fabian: https://table.example.org/login?key=" in out
    assert "127.0.0.1" not in out
    assert cli(["serve", str(folder), "--host", "0.0.0.0", "--port", "2731"]) == 0
    err = capsys.readouterr().err
    assert "listening beyond this machine without TLS" in err


def test_a_served_page_shows_none_of_the_servers_paths(table: Any) -> None:
    """marimo writes the notebook's absolute path, its folder and the working folder into a run-mode page
    (``__MARIMO_MOUNT_CONFIG__``, ``<marimo-filename>``): every page of the table passes through the same
    scrubber as ``kingdomlog share``'s; the read-only pages are kept HTML (``server.StaticView``), scrubbed
    when rendered."""
    import sys

    folder, keys, app, _ = table
    secret_paths = {str(REPO), str(REPO / "notebooks"), str(folder.resolve()), str(folder.resolve().parent),
                    sys.prefix}
    for owner, path in (("gm", "/gm/"), ("fabian", "/f/fabian/orders/"), ("fabian", "/f/fabian/report/"),
                        ("public", "/public/")):
        r = call(app, path, key=keys[owner])
        live = not path.endswith(("/report/", "/public/"))
        assert r["status"] == 200 and ("<marimo-filename" in r["body"]) == live, (path, r["status"])
        shown = sorted(p for p in secret_paths if p in r["body"])
        assert shown == [], (path, shown)
