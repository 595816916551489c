"""Forged batches: re-sealed with a valid file digest, so only the event-level checks can catch them (issue 19, 10).

A random byte flip is always caught by the file's own sha256 first, so the suite's 1,000 flips
never reach the per-event hash check or the ``prev_hash`` link check. These tests rewrite a
batch the way a deliberate forger would (change the content, then recompute the file digest)
and show that each forgery is caught by the one check meant for it: removing that check from
``kingdomlog/store/log.py`` makes the matching test fail.

They also forge the derived cache that would let a reader skip those checks: an entry of
``.cache/verified.json`` naming the forged file's digest, and a file forged in place with its
size, inode and modification time kept (what the old stat fingerprint trusted).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from kingdomlog.app import Campaign
from kingdomlog.core.errors import CorruptLogError
from kingdomlog.core.events import event_hash
from kingdomlog.core.turn import Plan
from kingdomlog.store import keys
from kingdomlog.store.log import _SHA_PLACEHOLDER, FILE_SHA_KEY, _parquet_bytes, file_digest, seal


def build(folder: Path) -> Campaign:
    camp = Campaign.create(folder, "toy-farm", name="Farm")
    camp.play(Plan.parse({"seed": "f0", "steps": {"found": {"choices": {"name": "Dale", "gold": 5}}}}))
    for t in range(1, 4):
        camp.play(Plan.parse({"seed": f"f{t}", "steps": {"harvest": {"choices": {"crop": "barley"}},
                                                         "market": {"choices": {"sell": 1}}}}))
    return camp


def reseal(path: Path, change: Callable[[list[dict[str, Any]]], None], *, keep_stat: bool = False) -> None:
    """Rewrite the batch ``path`` with ``change`` applied to its rows, then give it a valid file digest."""
    pf = pq.ParquetFile(path)
    meta = dict(pf.schema_arrow.metadata or {})
    table = pf.read()
    rows = table.to_pylist()
    change(rows)
    meta[b"kingdomlog.last_hash"] = rows[-1]["hash"].encode()
    meta[FILE_SHA_KEY] = _SHA_PLACEHOLDER
    meta.pop(b"ARROW:schema", None)
    forged = pa.Table.from_pylist(rows, schema=table.schema.remove_metadata().with_metadata(meta))
    data, _ = seal(_parquet_bytes(forged))  # as the writer does (a forger copies its settings)
    stored, actual = file_digest(data)
    assert stored == actual  # the forgery carries a valid file digest
    st = path.stat()
    if keep_stat:
        assert len(data) == st.st_size
    path.write_bytes(data)  # in place: same inode
    if keep_stat:
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def alter_gold(rows: list[dict[str, Any]]) -> None:
    """Sell for more gold than recorded, keeping every hash as it was."""
    for r in rows:
        if r["type"] == "toy.sold":
            doc = json.loads(r["payload"])
            doc["gold"] = doc["gold"] + 7
            r["payload"] = json.dumps(doc, sort_keys=True, separators=(",", ":"))
            return
    raise AssertionError("no toy.sold in the batch")


def relink(rows: list[dict[str, Any]]) -> None:
    """Chain the batch to a wrong predecessor, every hash inside it recomputed (so they all match)."""
    prev = "f" * 64
    for r in rows:
        r["prev_hash"] = prev
        r["hash"] = event_hash(r)
        prev = r["hash"]


def readers(folder: Path) -> list[Callable[[], object]]:
    return [lambda: Campaign.open(folder).state(), lambda: Campaign.open(folder).state(use_cache=False),
            lambda: Campaign.open(folder).events(), lambda: Campaign.open(folder).stream_state()]


def test_an_altered_payload_with_a_valid_file_digest_is_caught_by_the_event_hash(tmp_path: Path) -> None:
    camp = build(tmp_path / "farm")
    good = Campaign.open(camp.folder).state()  # leaves a verified record and snapshots behind
    last = camp.log.files()[-1]
    reseal(last, alter_gold)
    report = Campaign.open(camp.folder).verify()
    assert not report.ok
    assert any(last.name in p and "event altered" in p for p in report.problems), report.problems
    for read in readers(camp.folder):
        with pytest.raises(CorruptLogError, match="event altered"):
            read()
    assert good.gold < 100


def test_a_wrong_prev_hash_with_valid_hashes_and_digest_is_caught_by_the_link_check(tmp_path: Path) -> None:
    camp = build(tmp_path / "farm")
    Campaign.open(camp.folder).state()
    last = camp.log.files()[-1]
    reseal(last, relink)
    report = Campaign.open(camp.folder).verify()
    assert not report.ok
    assert any(last.name in p and "prev_hash does not match the previous event" in p for p in report.problems), \
        report.problems
    for read in readers(camp.folder):
        with pytest.raises(CorruptLogError, match="prev_hash does not match"):
            read()


def test_a_forged_verified_record_does_not_skip_the_checks(tmp_path: Path) -> None:
    """The forger also writes the forged file's digest into .cache/verified.json: the record is not ours."""
    camp = build(tmp_path / "farm")
    true_gold = Campaign.open(camp.folder).state().gold
    record = camp.folder / ".cache" / "verified.json"
    last = camp.log.files()[-1]
    reseal(last, alter_gold)
    doc = keys.loads_signed(record.read_bytes())
    assert isinstance(doc, dict)
    _, digest = file_digest(last.read_bytes())
    doc["files"][last.name]["digest"] = digest
    body = json.dumps(doc, separators=(",", ":")).encode()
    record.write_bytes(b"0" * 64 + b"\n" + body)  # the forger cannot compute this machine's HMAC
    with pytest.raises(CorruptLogError, match="event altered"):
        Campaign.open(camp.folder).state()
    # and a record signed with this machine's key (which the forger does not have) would be trusted:
    # that is what the key protects, so the test above is not vacuous
    record.write_bytes(keys.dumps_signed(doc))
    shutil.rmtree(camp.folder / ".cache" / "snapshots")
    assert Campaign.open(camp.folder).state().gold == true_gold + 7


def test_a_file_forged_in_place_with_its_size_and_mtime_kept_is_still_checked(tmp_path: Path) -> None:
    """A stat fingerprint (size, mtime, inode) cannot stand for the per-event hash check."""
    camp = build(tmp_path / "farm")
    Campaign.open(camp.folder).state()
    last = camp.log.files()[-1]
    size = last.stat().st_size
    for delta in range(1, 10):  # find a digit change that compresses to the same size
        def change(rows: list[dict[str, Any]], delta: int = delta) -> None:
            for r in rows:
                if r["type"] == "toy.sold":
                    doc = json.loads(r["payload"])
                    doc["gold"] = (doc["gold"] + delta) % 10
                    r["payload"] = json.dumps(doc, sort_keys=True, separators=(",", ":"))

        original = last.read_bytes()
        try:
            reseal(last, change, keep_stat=True)
            break
        except AssertionError:
            last.write_bytes(original)
    else:
        pytest.fail("no same-size forgery found")
    assert last.stat().st_size == size
    with pytest.raises(CorruptLogError, match="event altered"):
        Campaign.open(camp.folder).state()
    assert not Campaign.open(camp.folder).verify().ok
