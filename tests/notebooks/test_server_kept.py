"""The read-only pages of ``kingdomlog serve`` (reports, the public view) are kept per log head and viewer.

A page is rendered once per (head, viewer) and served from that (``server.ViewCache``); these tests plant
markers in what is kept and show that a kept page never reaches another viewer, and never outlives a commit.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from nb_support import REPO
from test_server_gate import call

from kingdomlog.app import Campaign
from kingdomlog.server import Credentials, StaticView, ViewCache, build

FELMONTE = REPO / "campaigns" / "felmonte"


@pytest.fixture()
def table(tmp_path: Path) -> tuple[Path, dict[str, str], Any, ViewCache]:
    if not (FELMONTE / "campaign.toml").is_file():
        pytest.skip("campaigns/felmonte is not built")
    folder = tmp_path / "felmonte"
    shutil.copytree(FELMONTE, folder, ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    keys = Credentials.load(folder).issue(["gm", *Campaign.open(folder).players(), "public"])
    app, _ = build(folder, tick=None, gm_sheet=False)
    cache = _cache_of(app)
    return folder, keys, app, cache


def _cache_of(app: Any) -> ViewCache:
    """The one ``ViewCache`` behind the served report pages (found through the routes)."""
    found = {id(r.app.app.cache): r.app.app.cache for r in app.app.routes if isinstance(r.app.app, StaticView)}
    assert len(found) == 1
    return next(iter(found.values()))


def plant(cache: ViewCache, viewer: str, marker: str) -> None:
    """Replace what is kept for ``viewer`` at the current head by a page holding ``marker``."""
    key = cache.key()
    assert (key, viewer) in cache.kept, "the page was not kept"
    cache.kept[(key, viewer)] = (f"<html><body><p>{marker}</p></body></html>", "planted-" + viewer)


def test_a_kept_page_is_served_again_and_to_its_own_viewer_only(table: Any) -> None:
    _folder, keys, app, cache = table
    first = call(app, "/f/fabian/report/", key=keys["fabian"])
    assert first["status"] == 200 and "felmonte" in first["body"].lower()
    renders = cache.renders
    call(app, "/f/marburg/report/", key=keys["marburg"])
    call(app, "/public/", key=keys["public"])
    plant(cache, "fabian", "MARK-FABIAN-ONLY")
    again = call(app, "/f/fabian/report/", key=keys["fabian"])
    assert "MARK-FABIAN-ONLY" in again["body"]  # served from what was kept, not rendered again
    assert cache.renders == renders + 2  # marburg's and the public page, each once
    for owner, path in (("marburg", "/f/marburg/report/"), ("public", "/public/")):
        page = call(app, path, key=keys[owner])
        assert page["status"] == 200 and "MARK-FABIAN-ONLY" not in page["body"], owner
        assert json.loads(call(app, path + "_view", key=keys[owner])["body"])["view"] != "planted-fabian"
    # another's credential on the kept page: refused by the gate, the marker nowhere in the answer
    for owner in ("marburg", "public", "gm"):
        refused = call(app, "/f/fabian/report/", key=keys[owner])
        assert refused["status"] == 403 and "MARK-FABIAN-ONLY" not in refused["body"], owner
        assert "MARK-FABIAN-ONLY" not in call(app, "/f/fabian/report/_view", key=keys[owner])["body"]
    assert json.loads(call(app, "/f/fabian/report/_view", key=keys["fabian"])["body"]) == {"view": "planted-fabian"}


def test_a_kept_page_is_never_served_after_a_commit(table: Any) -> None:
    folder, keys, app, cache = table
    call(app, "/f/fabian/report/", key=keys["fabian"])
    call(app, "/public/", key=keys["public"])
    plant(cache, "fabian", "MARK-OLD-HEAD")
    plant(cache, "public", "MARK-OLD-HEAD-PUBLIC")
    assert "MARK-OLD-HEAD" in call(app, "/f/fabian/report/", key=keys["fabian"])["body"]
    Campaign.open(folder).note("The bridge at Ostra fell: MARK-NEW-NOTE", visibility="faction:fabian")
    page = call(app, "/f/fabian/report/", key=keys["fabian"])
    assert page["status"] == 200 and "MARK-OLD-HEAD" not in page["body"]
    assert json.loads(call(app, "/f/fabian/report/_view", key=keys["fabian"])["body"])["view"] != "planted-fabian"
    public = call(app, "/public/", key=keys["public"])["body"]
    assert "MARK-OLD-HEAD-PUBLIC" not in public and "MARK-NEW-NOTE" not in public  # a note only fabian may see
    assert all(k[0] == cache.key() for k in cache.kept)  # only the newest head's pages are kept


def test_the_page_reloads_itself_only_through_its_own_gate(table: Any) -> None:
    _folder, keys, app, _cache = table
    page = call(app, "/f/fabian/report/", key=keys["fabian"])
    assert "/f/fabian/report/_view" in page["body"]
    policy = page["headers"]["content-security-policy"]
    assert "script-src 'sha256-" in policy and "connect-src 'self'" in policy
    assert call(app, "/f/fabian/report/", kind="websocket", key=keys["fabian"])["close"] == 4404
    assert call(app, "/f/fabian/report/anything", key=keys["fabian"])["status"] == 404
    assert call(app, "/f/fabian/report/_view")["status"] in (303, 403)  # no credential: nothing


def test_the_pages_are_rendered_ahead_once_the_head_has_settled(table: Any) -> None:
    folder, keys, app, cache = table
    viewers = ["fabian", "marburg", "public"]

    async def watch() -> None:
        """Until every viewer's page is kept at the head now (20 s at most: the machine may be busy)."""
        task = asyncio.create_task(cache.keep_warm(viewers, every=0.01, settle=0.2))
        deadline = asyncio.get_running_loop().time() + 20
        while {v for (k, v) in cache.kept if k == cache.key()} != set(viewers):
            assert asyncio.get_running_loop().time() < deadline, "not rendered ahead"
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.1)  # anything more it would do, it does now
        task.cancel()

    asyncio.run(watch())  # at the start: at once
    assert {v for (k, v) in cache.kept if k == cache.key()} == set(viewers)
    renders = cache.renders
    plant(cache, "fabian", "MARK-BEFORE-THE-NOTE")
    Campaign.open(folder).note("MARK-WARM-NOTE", visibility="faction:fabian")
    asyncio.run(watch())
    assert cache.renders == renders + 3  # each page once, at the new head
    page = call(app, "/f/fabian/report/", key=keys["fabian"])["body"]
    assert "MARK-BEFORE-THE-NOTE" not in page and "MARK-WARM-NOTE" in page
    assert "MARK-WARM-NOTE" not in call(app, "/f/marburg/report/", key=keys["marburg"])["body"]
    assert cache.renders == renders + 3  # the opens found them kept


def test_a_commit_hidden_from_a_viewer_leaves_their_page_tag_alone(table: Any) -> None:
    """The tag a page reloads on is a digest of what its viewer is shown: a GM-only commit does not move it (so
    the reload tells nobody that something they may not see happened), one they may see does."""
    folder, keys, app, _cache = table

    def tag(owner: str, path: str) -> str:
        return str(json.loads(call(app, path + "_view", key=keys[owner])["body"])["view"])

    before = tag("marburg", "/f/marburg/report/"), tag("public", "/public/")
    Campaign.open(folder).note("MARK-GM-ONLY", visibility="gm")
    assert (tag("marburg", "/f/marburg/report/"), tag("public", "/public/")) == before
    Campaign.open(folder).note("MARK-FOR-ALL", visibility="public")
    after = tag("marburg", "/f/marburg/report/"), tag("public", "/public/")
    assert after[0] != before[0] and after[1] != before[1]


# ---- what the marimo pages share: marimo's frontend files and the notebook's parse, never a viewer's data ----


def _an_asset() -> tuple[str, bytes]:
    """A frontend file marimo's pages load (its entry script, named in its index.html) and its bytes."""
    from kingdomlog.notebook_server import marimo_assets

    index = (marimo_assets().parent / "index.html").read_text(encoding="utf-8")
    name = index.split('src="./assets/', 1)[1].split('"', 1)[0]
    return name, (marimo_assets() / name).read_bytes()


def test_marimos_frontend_files_are_kept_once_and_only_behind_each_pages_gate(table: Any) -> None:
    """The files every marimo page loads are answered from memory (one read for every page and viewer), with a
    year's immutable cache, and still only to the credential of the page they are asked under."""
    from kingdomlog.notebook_server import frontend_files

    _folder, keys, app, _cache = table
    name, raw = _an_asset()
    files = frontend_files()
    got = call(app, f"/f/fabian/orders/assets/{name}", key=keys["fabian"])
    assert got["status"] == 200 and got["body"].encode("utf-8") == raw
    assert got["headers"]["cache-control"] == "public, max-age=31536000, immutable"
    assert got["headers"]["content-type"].startswith("text/javascript")
    reads = files.reads
    other = call(app, f"/f/marburg/orders/assets/{name}", key=keys["marburg"])
    assert other["status"] == 200 and other["body"] == got["body"] and files.reads == reads  # kept: not read again
    for key in (None, keys["marburg"], keys["public"], keys["gm"]):  # another's page, or no credential: nothing
        refused = call(app, f"/f/fabian/orders/assets/{name}", key=key)
        assert refused["status"] in (303, 403) and raw[:200].decode("utf-8", "replace") not in refused["body"]
    assert call(app, "/f/fabian/orders/assets/no-such-file.js", key=keys["fabian"])["status"] == 404


def test_only_files_of_marimos_assets_folder_are_kept(tmp_path: Path) -> None:
    """A name with a path, a dot-file or a folder is no frontend file: nothing outside the folder is read."""
    from kingdomlog.notebook_server import FrontendFiles

    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "app-1a2b.js").write_text("export const x = 1;\n" * 40)
    (tmp_path / "assets" / ".hidden.js").write_text("hidden")
    (tmp_path / "assets" / "sub").mkdir()
    (tmp_path / "secret.txt").write_text("MARK-SECRET")
    files = FrontendFiles(tmp_path / "assets")
    kept = files.get("app-1a2b.js")
    assert kept is not None and kept.body.startswith(b"export const x") and kept.zipped is not None
    for name in ("../secret.txt", "..", ".hidden.js", "sub", "sub/../app-1a2b.js", "%2e%2e/secret.txt", ""):
        assert files.get(name) is None, name
    assert files.reads == 1


def test_the_kept_notebook_gives_each_page_open_its_own_app_and_follows_an_edit(tmp_path: Path) -> None:
    """The notebook's parse is kept per version of its file: each session still gets an app of its own, and an
    edited notebook is parsed again (nothing of one version is served for another)."""
    from marimo._server.workspace import SingleFileWorkspace
    from marimo._utils.marimo_path import MarimoPath

    from kingdomlog.notebook_server import notebook
    from kingdomlog.server import keep_source_positions, kept_notebook

    nb = tmp_path / "table_page.py"
    nb.write_text(notebook("table_page").read_text(encoding="utf-8"), encoding="utf-8")
    workspace, _manager = kept_notebook(nb)
    key = workspace.get_unique_file_key()
    one, two = workspace.load(key), workspace.load(key)
    assert one is not two and one.app is not two.app  # a session's app is its own
    marimo_own = SingleFileWorkspace.from_path(MarimoPath(str(nb))).load(key)
    codes = [c.code for c in one.app.cell_manager.cell_data()]
    assert codes == [c.code for c in marimo_own.app.cell_manager.cell_data()]
    assert workspace.shared(key) is workspace.shared(key)  # the HTML's read-only asks share one
    text = nb.read_text(encoding="utf-8").replace("at the table", "MARK-EDITED-TITLE")
    nb.write_text(text, encoding="utf-8")
    os.utime(nb, ns=(nb.stat().st_atime_ns, nb.stat().st_mtime_ns + 10**9))
    edited = workspace.load(key)
    assert edited.app.config.app_title == "kingdomlog: MARK-EDITED-TITLE"
    assert workspace.shared(key).app.config.app_title == "kingdomlog: MARK-EDITED-TITLE"
    assert keep_source_positions()
    import marimo._ast.compiler as compiler

    positions = compiler._build_source_position_map
    before = positions(str(nb))
    positions.cache_clear()  # what each kernel does: the map stays while the file does not change
    assert positions(str(nb)) is before
    nb.write_text("# MARK: a line more\n" + text, encoding="utf-8")
    assert positions(str(nb)) is not before  # an edit: the lines moved, the map is made again
