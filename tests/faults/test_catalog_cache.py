"""The incremental catalog (issue 18): kept projections never change what a historian sees.

Each campaign's part of the catalog is kept in its cache and checked like a snapshot. These tests
compare every opening with a catalog built from nothing (the cache deleted), across random
plays, notes, retractions and raw appends on several campaigns, for the GM and for a player,
and show that:

- only the campaigns that changed are folded (``Catalog.folded``), and the result is the same;
- a flipped byte in a batch file under a kept projection (mtime restored) still skips the
  campaign with a warning naming the file;
- an edited projection (a forged state, a flipped byte) is not ours and is not used;
- deleting the cache changes nothing.
"""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
import toyrules

from kingdomlog.app import Campaign
from kingdomlog.core.errors import RuleError
from kingdomlog.core.events import Draft
from kingdomlog.core.turn import Plan
from kingdomlog.projections import cache as pcache
from kingdomlog.projections.sql import Catalog

QUERIES = {
    "events": "SELECT * EXCLUDE (recorded_at), epoch_us(recorded_at) FROM events ORDER BY campaign, seq",
    "states": "SELECT * FROM states ORDER BY campaign, turn, last_seq",
    "campaigns": "SELECT * EXCLUDE (folder) FROM campaigns ORDER BY campaign",
    "turns": "SELECT * FROM turns ORDER BY campaign, first_seq",
}


def snapshot(cat: Catalog) -> dict[str, Any]:
    return {k: cat.con.execute(q).fetchall() for k, q in QUERIES.items()} | {"warnings": sorted(cat.warnings)}


def fresh(root: Path, viewer: str, tmp: Path) -> dict[str, Any]:
    """The catalog of a copy of ``root`` without any cache (folded from nothing)."""
    copy = tmp / f"copy-{viewer}"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".cache"))
    snap = snapshot(Catalog(copy, viewer=viewer))
    shutil.rmtree(copy)
    return snap


def found(root: Path, name: str) -> Campaign:
    camp = Campaign.create(root / name, "toy-farm", name=name.title(), viewers=["alice"])
    camp.play(Plan.parse({"seed": name, "steps": {"found": {"choices": {"name": name, "gold": 5}}}}))
    return camp


def step(camp: Campaign, rng: random.Random, i: int) -> str:
    op = rng.random()
    if op < 0.45:
        camp.play(Plan.parse({"seed": f"s{i}", "steps": {
            "harvest": {"choices": {"crop": rng.choice(["wheat", "barley"]), "stash": rng.randrange(3)}},
            "market": {"choices": {"sell": rng.randrange(2)}}}}))
        return "play"
    if op < 0.65:
        camp.note(f"note {i}", visibility=rng.choice(["public", "gm", "faction:alice"]))
        return "note"
    if op < 0.8:  # a raw append into an earlier turn than the last (turns need not grow)
        turn = rng.randrange(max(1, camp.next_turn()))
        camp.append_raw([Draft(toyrules.Sold(food=0, gold=1), turn=turn)], expect_seq=camp.head_seq)
        return "raw"
    if camp.next_turn() > 1:
        try:
            camp.retract(camp.next_turn() - 1, reason="test")
            return "retract"
        except RuleError:
            pass
    return "none"


@pytest.mark.parametrize("viewer", ["gm", "alice"])
def test_an_incremental_catalog_equals_one_folded_from_nothing(tmp_path: Path, viewer: str) -> None:
    root = tmp_path / "root"
    names = ["ash", "birch", "cedar"]
    for n in names:
        found(root, n)
    rng = random.Random(18 if viewer == "gm" else 19)
    cat = Catalog(root, viewer=viewer)
    assert sorted(cat.folded) == names  # the first opening folds everything
    assert snapshot(cat) == fresh(root, viewer, tmp_path)
    again = Catalog(root, viewer=viewer)
    assert again.folded == [] and snapshot(again) == snapshot(cat)  # nothing changed: nothing folded
    kinds: set[str] = set()
    for i in range(18):
        name = rng.choice(names)
        kind = step(Campaign.open(root / name), rng, i)
        kinds.add(kind)
        cat = Catalog(root, viewer=viewer)
        assert cat.folded == ([] if kind == "none" else [name]), (i, kind, cat.folded)
        # appended events are folded on from the kept state; a retraction folds the campaign again
        assert cat.extended == ([name] if kind in ("play", "note", "raw") else []), (i, kind, cat.extended)
        assert snapshot(cat) == fresh(root, viewer, tmp_path), (i, name)
    assert {"play", "note", "raw", "retract"} <= kinds


def test_damage_under_a_kept_projection_is_still_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    camps = [found(root, n) for n in ("ash", "birch")]
    for i in range(3):
        step(camps[0], random.Random(i), i)
    Catalog(root)  # keeps both projections
    files = camps[0].log.files()
    for path in (files[0], files[-1], files[len(files) // 2]):
        data = path.read_bytes()
        st = path.stat()
        bad = bytearray(data)
        bad[len(bad) // 3] ^= 0x01
        path.write_bytes(bytes(bad))
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        try:
            cat = Catalog(root)
            assert cat.con.execute("SELECT DISTINCT campaign FROM states").fetchall() == [("birch",)]
            assert any(path.name in w for w in cat.warnings), cat.warnings
        finally:
            path.write_bytes(data)
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert snapshot(Catalog(root)) == fresh(root, "gm", tmp_path)


def test_an_edited_projection_is_not_used(tmp_path: Path) -> None:
    root = tmp_path / "root"
    camp = found(root, "ash")
    step(camp, random.Random(1), 1)
    want = snapshot(Catalog(root))
    path = pcache.path_for(camp.folder, "gm")
    data = path.read_bytes()
    # a forged figure in the kept rows, with the file otherwise intact: its HMAC no longer matches
    forged = data.replace(b'"gold":', b'"gold":1000', 1)
    assert forged != data
    path.write_bytes(forged)
    cat = Catalog(root)
    assert cat.folded == ["ash"] and snapshot(cat) == want
    flipped = bytearray(path.read_bytes())
    flipped[-10] ^= 0xFF
    path.write_bytes(bytes(flipped))
    cat = Catalog(root)
    assert cat.folded == ["ash"] and snapshot(cat) == want


def test_deleting_the_cache_or_changing_code_refolds_to_the_same_catalog(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "root"
    for n in ("ash", "birch"):
        camp = found(root, n)
        step(camp, random.Random(len(n)), 1)
    want = snapshot(Catalog(root))
    shutil.rmtree(root / "ash" / ".cache")
    cat = Catalog(root)
    assert cat.folded == ["ash"] and snapshot(cat) == want
    pcache.catalog_code_digest.cache_clear()
    monkeypatch.setattr(pcache, "catalog_code_digest", lambda: "other code")
    cat = Catalog(root)
    assert sorted(cat.folded) == ["ash", "birch"] and snapshot(cat) == want
