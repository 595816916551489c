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


# ---- the segment written from the pages the bulk check decoded (issue 31, branch perf-read5) -------------------


def _files_table(files: list[Path]) -> object:
    """The events of ``files`` as each file decodes on its own."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    return pa.concat_tables([pq.read_table(f).select(list(logmod.COLUMNS)).replace_schema_metadata(None)
                             for f in files])


def _segment_table(folder: Path) -> object:
    import pyarrow.parquet as pq

    seg = segment_record(folder)
    data = (folder / ".cache" / "segments" / seg["file"]).read_bytes()
    assert hashlib.sha256(data).hexdigest() == seg["sha256"]
    return pq.read_table(folder / ".cache" / "segments" / seg["file"]).select(list(logmod.COLUMNS))


def _count_encoded(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The rows of every piece the segment builder encodes (rather than taking a bulk-checked run's pages)."""
    encoded: list[int] = []
    real = logmod._segment_bytes

    def spy(table):  # type: ignore[no-untyped-def]
        encoded.append(table.num_rows)
        return real(table)

    monkeypatch.setattr(logmod, "_segment_bytes", spy)
    return encoded


def test_a_first_read_writes_the_segment_from_the_pages_it_checked(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A first read checks the whole log in bulk runs: the segment is their pages, not one row encoded again, and
    it decodes to exactly what each batch file decodes to; a read from it folds the same state."""
    camp = build(tmp_path / "farm")
    files = camp.log.files()
    want = Campaign.open(camp.folder).state(use_cache=False)
    shutil.rmtree(camp.folder / ".cache")
    encoded = _count_encoded(monkeypatch)
    assert Campaign.open(camp.folder).state(use_cache=False) == want
    assert encoded == []
    assert segment_record(camp.folder)["names"] == [p.name for p in files]
    assert _segment_table(camp.folder).equals(_files_table(files))
    used: list[int] = []
    real = logmod._segment_tables
    monkeypatch.setattr(logmod, "_segment_tables", lambda data: used.append(1) or real(data))
    assert Campaign.open(camp.folder).state(use_cache=False) == want
    assert used


def test_a_segment_built_again_holds_the_old_segment_s_rows_and_the_new_runs_pages(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A log that grew past its segment: the new segment holds the old one's rows (encoded) and the new files'
    runs (their pages), in order, equal to the files' own decode; a file too few for a run is encoded too."""
    camp = build(tmp_path / "farm")
    Campaign.open(camp.folder).state(use_cache=False)
    first, covered = segment_record(camp.folder)["file"], len(segment_record(camp.folder)["names"])
    head = camp.head_seq
    for i in range(logmod.SEGMENT_MIN_FILES + 3):  # a run of 32 and 3 more files: one run then a tail
        head = camp.log.append([Draft(toyrules.Sold(food=0, gold=1 + i % 2), turn=20)], expect_seq=head).last_seq
    files = camp.log.files()
    encoded = _count_encoded(monkeypatch)
    monkeypatch.setattr(logmod, "BULK_RUN_ROWS", logmod.SEGMENT_MIN_FILES)
    want = Campaign.open(camp.folder).state(use_cache=False)
    assert segment_record(camp.folder)["file"] != first
    assert segment_record(camp.folder)["names"] == [p.name for p in files]
    assert encoded == [len(_files_table(files[:covered])), 3]  # the old segment's rows, the 3 files left over
    assert _segment_table(camp.folder).equals(_files_table(files))
    shutil.rmtree(camp.folder / ".cache")
    monkeypatch.setattr(logmod, "BULK_MIN_FILES", 10**9)
    assert Campaign.open(camp.folder).state(use_cache=False) == want


def test_a_run_read_under_another_schema_or_writer_is_encoded(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A run's pages go into the segment only when they are read under the schema and ``created_by`` of the
    segment's footer; pages another writer wrote are encoded from their rows instead."""
    import pyarrow.parquet as pq

    from kingdomlog.store import bulk

    camp = build(tmp_path / "farm")
    files = camp.log.files()
    table = _files_table(files)
    group = bulk.group_of(logmod._segment_bytes(table))
    assert group is not None and group[3:] == logmod._segment_form()
    encoded = _count_encoded(monkeypatch)
    for given, want in [(group, []), ((*group[:4], group[4] + " (another)"), [table.num_rows])]:
        encoded.clear()
        builder = logmod._SegmentBuilder(camp.log)
        builder.add(table, given)  # type: ignore[arg-type]
        rec = builder.finish([p.name for p in files], ["0" * 64] * len(files), camp.head_seq, "0" * 64)
        assert rec is not None and encoded == want
        assert pq.read_table(camp.folder / ".cache" / "segments" / rec["file"]).equals(table)


def test_the_pf2e_demo_grown_past_a_segment_reads_the_same_through_it(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The campaign of the GM sheet's table test (the pf2e demo: files another writer wrote, zstd with an Arrow
    schema in the footer) grown by this writer past a segment: its first read writes the new files' runs as their
    pages and encodes the demo's rows; the segment decodes to what the files decode to, every column, and a read
    through it folds the state, and gives the events, of a read file by file."""
    folder = tmp_path / "stolen-lands"
    shutil.copytree(Path(__file__).resolve().parents[2] / "campaigns" / "stolen-lands", folder,
                    ignore=shutil.ignore_patterns(".cache", "plans"))
    camp = Campaign.open(folder)
    demo = len(camp.log.files())
    for i in range(logmod.SEGMENT_MIN_FILES + 8):
        camp.note(f"note {i}: \"quoted\", a back\\slash, é and 🜚", visibility="gm" if i % 3 else "public")
    files = camp.log.files()
    shutil.rmtree(folder / ".cache")
    encoded = _count_encoded(monkeypatch)
    monkeypatch.setattr(logmod, "BULK_RUN_ROWS", 10)  # several runs, each a row group of its pages
    first = Campaign.open(folder).state(use_cache=False)  # the first read: checks in bulk, writes the segment
    assert segment_record(folder)["names"] == [p.name for p in files]
    assert encoded and sum(encoded) == len(_files_table(files[:demo]))  # only the demo's rows encoded again
    assert _segment_table(folder).equals(_files_table(files))
    used: list[int] = []
    real = logmod._segment_tables
    monkeypatch.setattr(logmod, "_segment_tables", lambda data: used.append(1) or real(data))
    through = Campaign.open(folder)
    assert through.state(use_cache=False) == first
    events = [(e.seq, e.hash, e.phase, e.payload) for e in through.events()]
    assert used
    shutil.rmtree(folder / ".cache")
    monkeypatch.setattr(logmod, "BULK_MIN_FILES", 10**9)
    monkeypatch.setattr(logmod, "SEGMENT_MIN_FILES", 10**9)
    plain = Campaign.open(folder)
    assert plain.state(use_cache=False) == first
    assert [(e.seq, e.hash, e.phase, e.payload) for e in plain.events()] == events
