"""The read-only pages of ``kingdomlog serve`` (reports, the public view) are kept per log head and viewer.

A page is rendered once per (head, viewer) and served from that (``server.ViewCache``); these tests plant
markers in what is kept and show that a kept page never reaches another viewer, and never outlives a commit.
"""

from __future__ import annotations

import asyncio
import json
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
