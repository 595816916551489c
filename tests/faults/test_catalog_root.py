"""The root record of the catalog (issue 18): one signed file per campaigns root that cannot change an answer.

An unchanged root is taken from ``<root>/.cache/catalog-root/`` after a stat of each campaign's files
(``projections.cache.folder_identity``), with no log read. These tests show that:

- an unchanged root comes from the record, reads no log and equals a catalog folded from nothing;
- a flipped byte in a batch file (mtime restored), a deleted newest batch, an appended turn, an
  edited ``campaign.toml`` each send that campaign (only it) back to the full per-campaign check;
- an edited record (a forged figure, a flipped byte, a record of other code) is not used;
- deleting the record changes nothing; a catalog over a subset keeps its own record.

Files are normally trusted by identity only once they have not changed for ``RACY_SECONDS``;
the tests set that to 0 so they need not wait.
"""

from __future__ import annotations

import os
import random
import re
from pathlib import Path

import pytest
from test_catalog_cache import found, fresh, snapshot, step

from kingdomlog.app import Campaign
from kingdomlog.projections import cache as pcache
from kingdomlog.projections.sql import Catalog
from kingdomlog.store import log as logmod

NAMES = ["ash", "birch", "cedar"]


@pytest.fixture(autouse=True)
def _no_racy_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(logmod, "RACY_SECONDS", 0.0)


def make_root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    for i, n in enumerate(NAMES):
        step(found(root, n), random.Random(i), i)
    return root


def record_of(root: Path, viewer: str = "gm") -> Path:
    return pcache.root_path(root, viewer, None)


def no_log_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_a: object, **_k: object) -> None:
        raise AssertionError("a log was read although its campaign is in the root record")

    monkeypatch.setattr(logmod.EventLog, "read_after", refuse)
    monkeypatch.setattr(logmod.EventLog, "read_table", refuse)


@pytest.mark.parametrize("viewer", ["gm", "alice"])
def test_an_unchanged_root_comes_from_its_record_and_reads_no_log(tmp_path: Path, viewer: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_root(tmp_path)
    first = Catalog(root, viewer=viewer)
    assert first.from_root == 0 and sorted(first.folded) == NAMES
    assert record_of(root, viewer).is_file()
    want = fresh(root, viewer, tmp_path)
    assert snapshot(first) == want
    with monkeypatch.context() as m:
        no_log_reads(m)
        again = Catalog(root, viewer=viewer)
    assert again.from_root == len(NAMES) and again.folded == []
    assert snapshot(again) == want


def test_a_flipped_byte_under_the_record_is_still_refused(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    Catalog(root)
    Catalog(root)  # both the projections and the root record are kept
    files = sorted((root / "ash" / "log").glob("*.parquet"))
    for path in (files[0], files[-1]):
        data = path.read_bytes()
        st = path.stat()
        bad = bytearray(data)
        bad[len(bad) // 3] ^= 0x01
        path.write_bytes(bytes(bad))
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # the mtime put back: the ctime still moved
        try:
            cat = Catalog(root)
            assert cat.from_root == len(NAMES) - 1  # the others still come from the record
            assert cat.con.execute("SELECT DISTINCT campaign FROM states ORDER BY 1").fetchall() \
                == [("birch",), ("cedar",)]
            assert any(path.name in w for w in cat.warnings), cat.warnings
        finally:
            path.write_bytes(data)
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert snapshot(Catalog(root)) == fresh(root, "gm", tmp_path)


def test_a_deleted_newest_batch_is_not_served_from_the_record(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    Catalog(root)
    before = snapshot(Catalog(root))
    newest = sorted((root / "birch" / "log").glob("*.parquet"))[-1]
    newest.unlink()
    cat = Catalog(root)
    # the listing of log/ changed: birch is checked again, and its log ends before the head it recorded
    # (log/.heads): it is left out with a warning naming the missing seq, as a catalog folded from nothing does
    assert cat.from_root == len(NAMES) - 1 and cat.folded == []
    assert [w for w in cat.warnings if "birch" in w and re.search(rf"seqs? {int(newest.stem)}\b.* missing", w)], \
        cat.warnings
    got, folded = snapshot(cat), fresh(root, "gm", tmp_path)
    assert [w.replace(str(root), "") for w in got.pop("warnings")] == \
        [w.replace(str(tmp_path / "copy-gm"), "") for w in folded.pop("warnings")]
    assert got == folded != before


def test_a_changed_campaign_alone_is_checked_again(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    Catalog(root)
    step(found(root, "dogwood"), random.Random(4), 4)  # a new campaign
    cat = Catalog(root)
    assert cat.from_root == 3 and cat.folded == ["dogwood"]
    rng = random.Random(5)
    for i in range(6):
        name = rng.choice(NAMES)
        kind = step(Campaign.open(root / name), rng, 10 + i)
        cat = Catalog(root)
        assert cat.from_root == (4 if kind == "none" else 3), (i, kind)
        assert cat.folded == ([] if kind == "none" else [name])
        assert snapshot(cat) == fresh(root, "gm", tmp_path), (i, name, kind)
    toml = root / "cedar" / "campaign.toml"
    toml.write_text(toml.read_text().replace('name = "Cedar"', 'name = "Cedar Vale"'))
    cat = Catalog(root)
    assert cat.from_root == 3 and cat.folded == ["cedar"]
    assert ("Cedar Vale",) in cat.con.execute("SELECT name FROM campaigns").fetchall()


def test_an_edited_record_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_root(tmp_path)
    want = snapshot(Catalog(root))
    path = record_of(root)
    data = path.read_bytes()
    # a forged figure in the kept states, the file otherwise intact: its HMAC no longer matches
    forged = data.replace(b'"gold":', b'"gold":9', 1)
    assert forged != data
    path.write_bytes(forged)
    cat = Catalog(root)
    assert cat.from_root == 0 and snapshot(cat) == want
    flipped = bytearray(path.read_bytes())
    flipped[len(flipped) // 2] ^= 0xFF
    path.write_bytes(bytes(flipped))
    cat = Catalog(root)
    assert cat.from_root == 0 and snapshot(cat) == want
    assert Catalog(root).from_root == len(NAMES)  # rewritten by the opening before
    # a record of other catalog code is not used
    pcache.catalog_code_digest.cache_clear()
    monkeypatch.setattr(pcache, "catalog_code_digest", lambda: "other code")
    cat = Catalog(root)
    assert cat.from_root == 0 and snapshot(cat) == want


def test_deleting_the_record_changes_nothing_and_a_subset_keeps_its_own(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    want = snapshot(Catalog(root))
    record_of(root).unlink()
    cat = Catalog(root)
    assert cat.from_root == 0 and cat.folded == [] and snapshot(cat) == want
    subset = [root / "ash", root / "cedar"]
    sub = Catalog(root, campaigns=subset)
    assert sub.from_root == 0
    sub = Catalog(root, campaigns=subset)
    assert sub.from_root == 2
    assert [r[0] for r in sub.con.execute("SELECT campaign FROM campaigns ORDER BY 1").fetchall()] == ["ash", "cedar"]
    whole = Catalog(root)
    assert whole.from_root == len(NAMES) and snapshot(whole) == want


def test_states_are_in_campaign_and_turn_order_as_stored(tmp_path: Path) -> None:
    """The ``states`` table keeps its rows in (campaign, turn) order whether folded or taken from the record (which
    no longer sorts them when they already are): a query without ORDER BY sees them as before."""
    root = make_root(tmp_path)
    for i in range(3):
        play_more = found(root, f"z{i}")
        step(play_more, random.Random(10 + i), 10 + i)
        step(play_more, random.Random(20 + i), 20 + i)
    for _ in range(2):  # folded, then from the record
        cat = Catalog(root)
        rows = cat.con.execute("SELECT campaign, turn FROM states ORDER BY rowid").fetchall()
        assert len(rows) > len(NAMES) and rows == sorted(rows)
    assert cat.from_root == len(NAMES) + 3


def test_only_rows_in_order_skip_the_sort() -> None:
    import pyarrow as pa

    from kingdomlog.projections.sql import _in_order

    def t(camps: list[str | None], turns: list[int | None]) -> pa.Table:
        return pa.table({"campaign": camps, "turn": turns})

    assert _in_order(t(["a", "a", "b"], [1, 2, 1])) and _in_order(t([], [])) and _in_order(t(["a"], [3]))
    assert not _in_order(t(["a", "b", "a"], [1, 1, 2]))  # campaigns interleaved
    assert not _in_order(t(["a", "a"], [2, 1]))  # turns backwards
    assert not _in_order(t(["a", "a"], [1, 1]))  # a turn twice: sorted as before
    assert not _in_order(t(["a", None], [1, 1])) and not _in_order(t(["a", "a"], [1, None]))
