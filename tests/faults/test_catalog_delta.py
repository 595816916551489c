"""The root record's delta (issue 31): one more turn in one of many campaigns writes that campaign, not the root.

A changed root keeps its record and writes beside it a delta (``projections.cache.save_delta``): the
campaigns not in the record and the record's folders gone, signed, naming the record it applies to by
its HMAC. These tests show that:

- a changed campaign leaves the record's file as it was and writes only the delta; every opening
  equals a catalog folded from nothing, and an unchanged root after it reads no log;
- the delta holds only what changed (no unchanged folder is named in it), a removed campaign as gone;
- past ``DELTA_SHARE`` the record is written whole again and the delta removed;
- a crash at any point of either write leaves a root that opens to the same catalog: a delta cut
  short, flipped or forged is not used, a delta left behind by a whole write that did not get to
  remove it names the record before and is not used, and a write that failed leaves the record alone.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from test_catalog_cache import found, fresh, snapshot, step
from test_catalog_root import NAMES, make_root, no_log_reads, record_of

from kingdomlog.app import Campaign
from kingdomlog.projections import cache as pcache
from kingdomlog.projections.sql import Catalog
from kingdomlog.store import log as logmod


@pytest.fixture(autouse=True)
def _no_racy_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(logmod, "RACY_SECONDS", 0.0)


@pytest.fixture
def deltas(monkeypatch: pytest.MonkeyPatch) -> None:
    """A toy root is small: let a delta hold up to ten times the record's rows."""
    monkeypatch.setattr(pcache, "DELTA_SHARE", 10.0)


def play(root: Path, name: str, i: int) -> None:
    camp = Campaign.open(root / name)
    while step(camp, random.Random(i), i) in ("none", "retract"):
        i += 1000


@pytest.mark.parametrize("viewer", ["gm", "alice"])
def test_a_changed_campaign_writes_only_the_delta(tmp_path: Path, deltas: None, viewer: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_root(tmp_path)
    Catalog(root, viewer=viewer)
    record = record_of(root, viewer)
    delta = pcache.delta_path(record)
    kept = record.read_bytes()
    assert not delta.exists()
    for i, name in enumerate(["birch", "ash", "birch", "cedar"]):
        play(root, name, 20 + i)
        cat = Catalog(root, viewer=viewer)
        assert cat.folded == [name] and cat.from_root == len(NAMES) - 1
        assert record.read_bytes() == kept  # the record is not written again
        assert delta.is_file()
        want = fresh(root, viewer, tmp_path)
        assert snapshot(cat) == want, (i, name)
        with monkeypatch.context() as m:
            no_log_reads(m)
            again = Catalog(root, viewer=viewer)
        assert again.from_root == len(NAMES) and again.folded == []
        assert snapshot(again) == want
    # a new campaign goes into the delta too
    step(found(root, "dogwood"), random.Random(4), 4)
    cat = Catalog(root, viewer=viewer)
    assert cat.folded == ["dogwood"] and record.read_bytes() == kept
    assert snapshot(cat) == fresh(root, viewer, tmp_path)
    assert Catalog(root, viewer=viewer).from_root == len(NAMES) + 1


def test_past_its_share_the_record_is_written_whole_and_the_delta_removed(tmp_path: Path, deltas: None,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_root(tmp_path)
    Catalog(root)
    record = record_of(root)
    play(root, "ash", 30)
    Catalog(root)
    assert pcache.delta_path(record).is_file()
    kept = record.read_bytes()
    monkeypatch.setattr(pcache, "DELTA_SHARE", 0.0)
    play(root, "cedar", 31)
    cat = Catalog(root)
    assert cat.folded == ["cedar"]
    assert record.read_bytes() != kept and not pcache.delta_path(record).exists()
    want = fresh(root, "gm", tmp_path)
    assert snapshot(cat) == want
    again = Catalog(root)
    assert again.from_root == len(NAMES) and snapshot(again) == want


def test_a_delta_left_by_a_whole_write_cut_short_is_not_used(tmp_path: Path, deltas: None,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A crash between writing the whole record and removing the delta: the delta names the record before."""
    root = make_root(tmp_path)
    Catalog(root)
    record = record_of(root)
    delta = pcache.delta_path(record)
    play(root, "ash", 40)
    Catalog(root)
    old_delta = delta.read_bytes()  # ash's new rows, over the first record
    monkeypatch.setattr(pcache, "DELTA_SHARE", 0.0)
    play(root, "birch", 41)
    Catalog(root)  # the whole record written again (ash and birch in it), the delta removed
    delta.write_bytes(old_delta)  # as if the crash came before the removal
    want = fresh(root, "gm", tmp_path)
    with monkeypatch.context() as m:
        no_log_reads(m)  # the new record alone serves every campaign: the old delta is not applied
        cat = Catalog(root)
    assert cat.from_root == len(NAMES) and snapshot(cat) == want


@pytest.mark.parametrize("damage", ["cut", "flip", "forge", "tmp"])
def test_a_damaged_delta_is_not_used(tmp_path: Path, deltas: None, damage: str) -> None:
    """A delta cut short (a crash mid-write on a file system that does not order it), a flipped byte, a forged
    figure, or only its temporary file written (a crash before the rename): the record alone serves, and the
    campaigns changed since it are checked again."""
    root = make_root(tmp_path)
    Catalog(root)
    record = record_of(root)
    delta = pcache.delta_path(record)
    play(root, "cedar", 50)
    Catalog(root)
    data = delta.read_bytes()
    if damage == "cut":
        delta.write_bytes(data[:len(data) // 2])
    elif damage == "flip":
        bad = bytearray(data)
        bad[len(bad) - 10] ^= 0x01
        delta.write_bytes(bytes(bad))
    elif damage == "forge":
        forged = data.replace(b'"head_seq":', b'"head_seq":9', 1)
        assert forged != data
        delta.write_bytes(forged)
    else:
        delta.rename(delta.with_name(f".{delta.name}.999.tmp"))
    cat = Catalog(root)
    assert cat.from_root == len(NAMES) - 1 and cat.folded == []  # cedar checked again (its projection kept)
    want = fresh(root, "gm", tmp_path)
    assert snapshot(cat) == want
    again = Catalog(root)  # the delta written again
    assert again.from_root == len(NAMES) and snapshot(again) == want


def test_a_delta_that_cannot_be_written_leaves_the_record_alone(tmp_path: Path, deltas: None,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_root(tmp_path)
    Catalog(root)
    record = record_of(root)
    kept = record.read_bytes()
    play(root, "birch", 60)

    def fail(*_a: object, **_k: object) -> None:
        raise OSError("disk full")

    with monkeypatch.context() as m:
        m.setattr(pcache.os, "replace", fail)
        cat = Catalog(root)
    assert cat.folded == ["birch"] and record.read_bytes() == kept and not pcache.delta_path(record).exists()
    want = fresh(root, "gm", tmp_path)
    assert snapshot(cat) == want
    again = Catalog(root)
    assert again.from_root == len(NAMES) - 1 and snapshot(again) == want
    assert Catalog(root).from_root == len(NAMES)


def _delta_head(record: Path) -> dict[str, object]:
    import json

    data = pcache.delta_path(record).read_bytes()
    head = json.loads(data.split(b"\n", 2)[1])
    assert isinstance(head, dict)
    return head


def test_a_delta_holds_only_what_changed(tmp_path: Path, deltas: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The delta lists the changed campaigns (their rows and `campaigns` row) and the record's folders gone, not
    every folder of the root with its options again: its size follows what changed, not the root's size."""
    import shutil

    root = make_root(tmp_path)
    step(found(root, "dogwood"), random.Random(5), 5)
    Catalog(root)
    record = record_of(root)
    play(root, "birch", 40)
    assert Catalog(root).folded == ["birch"]
    head = _delta_head(record)
    assert [f["folder"] for f in head["folders"]] == [str(root / "birch")]  # type: ignore[index, union-attr]
    assert head["gone"] == []
    unchanged = [n for n in [*NAMES, "dogwood"] if n != "birch"]
    data = pcache.delta_path(record).read_bytes()
    assert not any(str(root / n).encode() in data for n in unchanged)
    # a campaign removed from the root: named as gone, and the catalog is the root's as it is now
    shutil.rmtree(root / "cedar")
    cat = Catalog(root)
    assert cat.folded == [] and cat.from_root == 3
    head = _delta_head(record)
    assert [f["folder"] for f in head["folders"]] == [str(root / "birch")]  # type: ignore[index, union-attr]
    assert head["gone"] == [str(root / "cedar")]
    want = fresh(root, "gm", tmp_path)
    assert snapshot(cat) == want
    with monkeypatch.context() as m:
        no_log_reads(m)
        again = Catalog(root)
    assert again.from_root == 3 and again.folded == [] and snapshot(again) == want
    # and one whose rows sat in the delta
    shutil.rmtree(root / "birch")
    cat = Catalog(root)
    assert cat.from_root == 2 and snapshot(cat) == fresh(root, "gm", tmp_path)
    with monkeypatch.context() as m:
        no_log_reads(m)
        again = Catalog(root)
    assert again.from_root == 2 and snapshot(again) == snapshot(cat)
