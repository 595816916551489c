"""The compacted segment (issue 18) is a derived cache: it never hides a fault of the batch files it covers.

A log of many batch files is also kept as one Parquet segment in ``.cache/segments/``, pinned by the
signed verified record (the segment's sha256 and the digest of every file it covers). These tests
show that the batch files stay the truth:

- a flipped byte in any covered batch file (its mtime restored) is refused by every read path
  and named by ``verify``, as without a segment;
- a covered file forged with a valid digest is caught by its event hashes;
- an edited segment, or one with a forged record, is not used; deleting the cache changes nothing;
- compaction never writes ``log/``: every batch file keeps its bytes and inode.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
from pathlib import Path

import pytest
import toyrules
from test_forgery import alter_gold, reseal

from kingdomlog.app import Campaign
from kingdomlog.core.errors import CorruptLogError
from kingdomlog.core.events import Draft
from kingdomlog.core.turn import Plan
from kingdomlog.projections.sql import Catalog
from kingdomlog.store import keys
from kingdomlog.store import log as logmod

BATCHES = logmod.SEGMENT_MIN_FILES + 8


def build(folder: Path) -> Campaign:
    camp = Campaign.create(folder, "toy-farm", name="Farm", viewers=["alice"])
    camp.play(Plan.parse({"seed": "f0", "steps": {"found": {"choices": {"name": "Dale", "gold": 5}}}}))
    head = camp.head_seq
    for i in range(BATCHES):
        drafts = [Draft(toyrules.Sold(food=0, gold=1 + i % 3), turn=1 + i // 4)]
        if i % 5 == 0:
            drafts.append(Draft(toyrules.Sold(food=0, gold=2), turn=1 + i // 4, visibility="gm"))
        head = camp.log.append(drafts, expect_seq=head).last_seq
    return camp


def segment_record(folder: Path) -> dict:
    doc = keys.read_signed(folder / ".cache" / "verified.json")
    assert isinstance(doc, dict)
    return doc.get("segment") or {}


def readers(folder: Path) -> list:
    return [lambda: Campaign.open(folder).state(), lambda: Campaign.open(folder).state(use_cache=False),
            lambda: Campaign.open(folder).events(), lambda: Campaign.open(folder).stream_state(),
            lambda: Campaign.open(folder).state(until_turn=3)]


@pytest.fixture
def compacted(tmp_path: Path) -> tuple[Path, object, list[Path]]:
    camp = build(tmp_path / "farm")
    folder = camp.folder
    files = camp.log.files()
    before = {p.name: (p.stat().st_ino, p.read_bytes()) for p in files}
    good = Campaign.open(folder).state(use_cache=False)  # the first read checks every file, builds the segment
    seg = segment_record(folder)
    assert seg and seg["names"] == [p.name for p in files], seg
    assert (folder / ".cache" / "segments" / seg["file"]).is_file()
    # compaction wrote nothing in log/: the same files, bytes and inodes (and the log's record of its head)
    assert sorted(os.listdir(folder / "log")) == sorted([*before, ".heads"])
    for p in files:
        assert (p.stat().st_ino, p.read_bytes()) == before[p.name]
    return folder, good, files


def test_a_read_uses_the_segment_and_gives_the_same_state(compacted, monkeypatch: pytest.MonkeyPatch) -> None:
    folder, good, _files = compacted
    used: list[int] = []
    real = logmod._segment_tables

    def spy(data: bytes):
        used.append(len(data))
        return real(data)

    monkeypatch.setattr(logmod, "_segment_tables", spy)
    assert Campaign.open(folder).state(use_cache=False) == good
    assert used, "the segment was not used"
    assert [e.seq for e in Campaign.open(folder).events()] == list(range(1, Campaign.open(folder).head_seq + 1))


def test_a_flipped_byte_in_a_covered_batch_file_is_still_caught(compacted) -> None:
    folder, good, files = compacted
    rng = random.Random(18)
    for case in range(24):
        path = files[rng.randrange(len(files))]
        data = path.read_bytes()
        st = path.stat()
        bad = bytearray(data)
        off = rng.randrange(len(bad))
        bad[off] ^= rng.randrange(1, 256)
        path.write_bytes(bytes(bad))
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # the mtime cannot hide it
        try:
            for read in readers(folder)[: 5 if case % 4 == 0 else 2]:
                with pytest.raises(CorruptLogError, match=path.name):
                    read()
            report = Campaign.open(folder).verify()
            assert not report.ok and any(path.name in p for p in report.problems), (case, off, report.problems)
            if case % 8 == 0:
                cat = Catalog(folder.parent, campaigns=[folder])
                assert cat.con.execute("select count(*) from states").fetchone() == (0,)
                assert any(path.name in w for w in cat.warnings), cat.warnings
        finally:
            path.write_bytes(data)
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert Campaign.open(folder).verify().ok
    assert Campaign.open(folder).state(use_cache=False) == good


def test_a_covered_file_forged_with_a_valid_digest_is_caught_by_its_event_hashes(compacted) -> None:
    folder, _good, files = compacted
    target = files[5]  # every batch of build() holds a toy.sold
    reseal(target, alter_gold)
    for read in readers(folder):
        with pytest.raises(CorruptLogError, match="event altered"):
            read()


def test_an_edited_or_unsigned_segment_is_not_used(compacted) -> None:
    folder, good, _files = compacted
    seg = segment_record(folder)
    path = folder / ".cache" / "segments" / seg["file"]
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x10
    path.write_bytes(bytes(data))  # its sha256 is no longer the recorded one
    assert Campaign.open(folder).state(use_cache=False) == good
    rebuilt = segment_record(folder)
    assert rebuilt["sha256"] == hashlib.sha256((folder / ".cache" / "segments" / rebuilt["file"]).read_bytes()
                                               ).hexdigest()
    # a forger who rewrites the segment and its record cannot sign the record with this machine's key
    record = folder / ".cache" / "verified.json"
    doc = keys.read_signed(record)
    body = json.dumps(doc, separators=(",", ":")).encode()
    record.write_bytes(b"0" * 64 + b"\n" + body)
    assert Campaign.open(folder).state(use_cache=False) == good


def test_deleting_the_cache_changes_nothing(compacted) -> None:
    folder, good, _files = compacted
    events = [e.hash for e in Campaign.open(folder).events()]
    shutil.rmtree(folder / ".cache")
    assert [e.hash for e in Campaign.open(folder).events()] == events
    assert Campaign.open(folder).state(use_cache=False) == good
    assert Campaign.open(folder).state() == good
    assert Campaign.open(folder).verify().ok


def test_appends_after_the_segment_are_read_from_their_files(compacted) -> None:
    folder, _good, _files = compacted
    camp = Campaign.open(folder)
    camp.note("after the segment")
    camp.log.append([Draft(toyrules.Sold(food=0, gold=9), turn=20)], expect_seq=camp.head_seq)
    c = Campaign.open(folder)
    rs = c.ruleset
    from kingdomlog.core.fold import fold

    assert c.state(use_cache=False) == fold(rs, rs.initial_state(c.context), Campaign.open(folder).events())
    assert c.state(use_cache=False).gold == Campaign.open(folder).stream_state().gold
