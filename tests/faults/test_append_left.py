"""An append after the same ``EventLog``'s own append (``store.log._Left``): the records of the head taken from what
that append wrote, not read, parsed and checked again, only while one ``lstat`` of each shows it as it was left.

What these tests hold it to: what it takes is exactly what a fresh read of the records gives (over ``log/.heads``
windows holding foreign, torn, racing and ``accept`` lines); it is taken when nothing changed and never after another
writer appended, a record was edited or the newest batch deleted or rewritten; and whatever the append refused before
it still refuses.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from kingdomlog.app import Campaign
from kingdomlog.core.core_events import NoteAdded
from kingdomlog.core.errors import ConflictError, CorruptLogError, StoreError
from kingdomlog.core.events import Draft
from kingdomlog.core.turn import Plan
from kingdomlog.store import log as logmod
from kingdomlog.store import witness
from kingdomlog.store.log import HEAD_NAME, EventLog


def build(folder: Path) -> Campaign:
    camp = Campaign.create(folder, "toy-farm", name="Farm", viewers=["alice"])
    camp.play(Plan.parse({"seed": "s0", "steps": {"found": {"choices": {"name": "Dale", "gold": 5}}}}))
    return camp


def note(log: EventLog, text: str, expect: int | None = None) -> int:
    seq = log.head(check=False).seq if expect is None else expect
    return log.append([Draft(NoteAdded(text=text), turn=1)], expect_seq=seq).last_seq


def check_left(log: EventLog) -> None:
    """What the log's last append left is what a read of each record gives now."""
    left = log._left
    assert left is not None
    rec, rm = log._cache_record()
    assert left.wm == witness.read(log.dir, log.campaign)
    assert (left.recorded, left.rm) == (rec, rm)
    assert left.head == log._recorded_tip(rec)
    assert log._still(left) is not None


class Reads:
    """Counts the reads of ``.cache/head.rec`` appends make (none when one takes what its log's last append left)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.n = 0
        self.appending = False
        real, real_append = EventLog._cache_record, EventLog._append

        def counted(log: EventLog) -> object:
            self.n += self.appending
            return real(log)

        def append(log: EventLog, *a: object, **k: object) -> object:
            self.appending = True
            try:
                return real_append(log, *a, **k)  # type: ignore[arg-type]
            finally:
                self.appending = False

        monkeypatch.setattr(EventLog, "_cache_record", counted)
        monkeypatch.setattr(EventLog, "_append", append)


def line_of(log: EventLog, **doc: object) -> bytes:
    return witness.line({"campaign": log.campaign, "hash": "ab" * 32, "file": "x", "file_sha": "0" * 64, **doc})


def add_raw(log: EventLog, data: bytes) -> None:
    with open(log.dir / witness.WITNESS_NAME, "ab") as fh:
        fh.write(data)


def copy_newest_line(log: EventLog) -> bytes:
    return (log.dir / witness.WITNESS_NAME).read_bytes().splitlines(keepends=True)[-1]


PLANTS: dict[str, Callable[[EventLog], None]] = {
    "nothing": lambda log: None,
    # a valid line of another campaign with a far seq, then the head again: a read parses it and passes it by
    "foreign line past the head": lambda log: add_raw(
        log, witness.line({"campaign": "other", "seq": 10**9, "hash": "cd" * 32}) + copy_newest_line(log)),
    # an edited line (its checksum no longer holds) claiming a far seq, then the head again
    "edited line past the head": lambda log: add_raw(
        log, line_of(log, seq=10**9).replace(b'"file":"x"', b'"file":"y"') + copy_newest_line(log)),
    # racing appends: an older head's line after the newest
    "older line last": lambda log: add_raw(log, line_of(log, seq=2)),
    "accept line": lambda log: add_raw(log, copy_newest_line(log).replace(b"}", b',"accept":true}')),
}


@pytest.mark.parametrize("plant", list(PLANTS))
def test_what_an_append_leaves_is_what_a_read_of_the_records_gives(tmp_path: Path, plant: str) -> None:
    log = build(tmp_path / "farm").log
    note(log, "one")
    if plant == "accept line":  # a whole accept line, checksummed: what `verify --accept-head` writes
        left = log._left
        assert left is not None
        h = left.head
        assert witness.accept(log.dir, {"campaign": log.campaign, "seq": h.seq, "hash": h.hash, "file": "x",
                                        "file_sha": h.file_sha})
    else:
        PLANTS[plant](log)
    if plant != "nothing":  # the planted lines changed log/.heads: the next append reads the records
        assert log._left is None or log._still(log._left) is None
    for i in range(4):
        note(log, f"n{i}")
        check_left(log)
    assert log.read(full_verify=True)[-1].payload == NoteAdded(text="n3")


def test_an_unchanged_log_is_not_read_again_and_a_changed_one_is(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    log = build(tmp_path / "farm").log
    note(log, "one")
    reads = Reads(monkeypatch)
    note(log, "two")
    note(log, "three")
    assert reads.n == 0  # what the append before left was taken
    other = Campaign.open(log.dir.parent).log  # the server and a CLI appending to one log
    head = note(other, "another writer")
    assert reads.n == 1
    reads.n = 0
    with pytest.raises(ConflictError):  # the head this writer saw is not the log's
        note(log, "stale", expect=head - 1)
    assert reads.n == 1
    reads.n = 0
    last = note(log, "on top", expect=head)
    assert reads.n == 1 and last == head + 1
    events = log.read(full_verify=True)
    assert [e.payload.text for e in events[-4:]] == ["two", "three", "another writer", "on top"]  # type: ignore[attr-defined]


def test_another_writer_between_two_appends_without_expect_seq(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    log = build(tmp_path / "farm").log
    note(log, "one")
    other = Campaign.open(log.dir.parent).log
    mid = note(other, "between")
    reads = Reads(monkeypatch)
    res = log.append([Draft(NoteAdded(text="after"), turn=1)])
    assert reads.n >= 1 and res.first_seq == mid + 1
    assert [e.seq for e in log.read(full_verify=True)] == list(range(1, res.last_seq + 1))


def test_a_deleted_newest_batch_is_still_refused(tmp_path: Path) -> None:
    log = build(tmp_path / "farm").log
    note(log, "one")
    last = note(log, "two")
    assert log._left is not None
    Path(log._left.head.file or "").unlink()
    left = log._left
    with pytest.raises(StoreError, match=rf"nothing appended: the log ends at seq {last - 1}, but log/.heads"):
        log.append([Draft(NoteAdded(text="on top of the hole"), turn=1)])  # no expect_seq: the head is the log's
    log._left = left  # as if the refusal had not dropped it
    with pytest.raises(StoreError, match=rf"nothing appended: the log ends at seq {last - 1}, but log/.heads"):
        note(log, "on top of the hole", expect=last - 1)
    assert not (log.dir / logmod.batch_name(last)).exists()
    assert not (log.dir / logmod.batch_name(last + 1)).exists()


def test_a_further_head_in_log_heads_is_still_refused(tmp_path: Path) -> None:
    """A line naming a head past the log's (the batches after it are missing, or not synced yet)."""
    log = build(tmp_path / "farm").log
    last = note(log, "one")
    add_raw(log, line_of(log, seq=last + 50))
    with pytest.raises(StoreError, match=rf"the log ends at seq {last}, but log/.heads recorded seq {last + 50}"):
        note(log, "over it", expect=last)


def test_a_rewritten_newest_batch_is_still_refused(tmp_path: Path) -> None:
    log = build(tmp_path / "farm").log
    note(log, "one")
    last = note(log, "two")
    assert log._left is not None
    path = Path(log._left.head.file or "")
    time.sleep(0.05)  # past the file system clock's tick: its ctime moves
    data = bytearray(path.read_bytes())
    data[len(data) // 3] ^= 0x01  # the same size, the same name, the same inode
    fd = os.open(path, os.O_WRONLY)
    try:
        os.pwrite(fd, bytes(data), 0)
    finally:
        os.close(fd)
    with pytest.raises((CorruptLogError, StoreError), match=f"{path.name}.*(altered|unreadable)"):
        note(log, "on top", expect=last)


def test_a_replaced_head_record_is_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = build(tmp_path / "farm").log
    note(log, "one")
    assert log.cache_dir is not None
    rec = log.cache_dir / HEAD_NAME
    data = rec.read_bytes()
    rec.unlink()
    rec.write_bytes(data)  # the same bytes, a new file
    reads = Reads(monkeypatch)
    note(log, "two")
    assert reads.n == 1
    check_left(log)


def test_a_dead_writer_s_temp_file_is_still_cleaned(tmp_path: Path) -> None:
    log = build(tmp_path / "farm").log
    note(log, "one")
    inflight = log._inflight()
    assert inflight is not None
    dead = inflight / f"{logmod.TEMP_PREFIX}999999999-feed{logmod.TEMP_SUFFIX}"  # no such process
    dead.write_bytes(b"half a batch")
    note(log, "two")
    assert not dead.exists()
