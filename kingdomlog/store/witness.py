"""The records of where a log ends, and what they say about a log that ends earlier.

A log's batch files chain backwards only: each names its predecessor, none its successor, so a
log whose newest batches were deleted is itself a sound, shorter log. Two records of the head
(last seq and hash) say how far it once reached:

- **the log's own**, ``log/.heads`` (this module): one line per append, added once its batch is
  durable, kept beside the batches and never deleted with the cache. Append-only like the batches:
  a line is never rewritten. Each line is a sha256 and the JSON it covers (a checksum, not a
  signature, so a folder synced or copied to another machine keeps its record). Every batch
  appended while the file holds a head says so in its footer (``WITNESS_KEY``), so a deleted
  ``log/.heads`` is seen too (one that could not be made, on a full disk, is not: the batches
  appended meanwhile do not say so).
- **this machine's**, ``.cache/head.rec`` (``store.log``): signed, and what an append starts from.

Whatever damages a record, what the log once had is not forgotten: ``judge`` turns a record and
the log's end into a fault when the log ends before the record's head, differs from it at its seq,
when the record holds no readable head, or when its newest line is damaged and the log ends exactly
at the newest readable one (a crash damages only the line being written, after that line's batch
was durable, so a log ending at the line before lost the batch the damaged line was for). A read
refuses such a log (``CorruptLogError``), an append appends nothing, ``verify`` names the missing
seqs, and only ``kingdomlog verify --accept-head`` (the GM's explicit word) records the log's present
head as its head again: an ``accept`` line, after which the lines before it no longer count.

What no record in the folder can catch: someone who deletes the newest batches, cuts the lines
that name them from ``log/.heads`` (or writes a line: it is not signed) and deletes or rolls back
``.cache/``; or deletes ``.cache/`` and the batches of a log written before ``log/.heads``
existed. Only a head kept outside the folder (``verify --expect-head``) catches that.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Ident = list[int]

WITNESS_NAME = ".heads"
"""The log's own record of its heads, in ``log/`` (a dot-name: no reader of ``*.parquet`` or the batches lists it)."""
WHERE = f"log/{WITNESS_NAME}"
WITNESS_KEY = b"kingdomlog.head_witness"
"""Footer key of every batch appended while ``log/.heads`` holds a head (value: its name)."""
TAIL = 2048
"""Bytes read from the end of ``log/.heads``: its newest four lines at least (a line is at most about 400 bytes), room
for the lines of appends racing each other to land out of order."""
_SEQ = re.compile(rb'"seq":([0-9]{1,19})[,}]')
RECENT = 4
"""Lines read back from the newest: appends racing each other may add their lines out of order. A head they miss only
makes the record lag, which is safe (it says how far the log reached at least)."""
_FLAGS = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
"""Never follow a planted symlink, never wait on a planted FIFO."""


@dataclass(frozen=True)
class Mark:
    """What one record of the head says: its newest readable head, and whether its newest entry is damaged.

    ``present``: the record exists and counts (a record of this machine's cache signed under another
    key, an empty ``log/.heads``, or none at all, does not). ``seq`` is None when no head can be read.
    ``damaged``: the newest entry (line or slot) is neither whole nor readable. ``slot``: where the
    newest head is (``head.rec``). ``ragged``: ``log/.heads`` does not end with a line feed.
    """

    where: str
    present: bool = False
    seq: int | None = None
    hash: str = ""
    at: str = ""
    damaged: bool = False
    slot: int | None = None
    ragged: bool = False


ABSENT = Mark(WHERE)


def line(doc: dict[str, Any]) -> bytes:
    """One line of ``log/.heads``: the sha256 of the JSON (hex), a space, the JSON (compact, sorted keys, ASCII), a
    line feed."""
    body = json.dumps(doc, separators=(",", ":"), sort_keys=True).encode("ascii")
    return hashlib.sha256(body).hexdigest().encode("ascii") + b" " + body + b"\n"


def parse(text: bytes) -> dict[str, Any] | None:
    """The JSON object of one line (without its line feed), or None when it is torn or edited.

    >>> parse(line({"seq": 3})[:-1])
    {'seq': 3}
    >>> parse(line({"seq": 3})[:-1].replace(b"3", b"4")) is None
    True
    """
    digest, sep, body = text.partition(b" ")
    if not sep or digest != hashlib.sha256(body).hexdigest().encode("ascii"):
        return None
    try:
        doc = json.loads(body)
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None


def _head(doc: dict[str, Any] | None, campaign: str) -> tuple[int, str, str] | None:
    if doc is None or doc.get("campaign") != campaign:
        return None
    seq, hash_ = doc.get("seq"), doc.get("hash")
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0 or not isinstance(hash_, str):
        return None
    return seq, hash_, str(doc.get("at") or "")


def read(log_dir: Path, campaign: str) -> Mark:
    """What ``log/.heads`` says (``ABSENT`` when there is none, or it is empty): the highest head of its last
    ``RECENT`` lines since the last ``accept`` line. A line of another campaign counts as damaged."""
    return read_sized(log_dir, campaign)[0]


def read_sized(log_dir: Path, campaign: str) -> tuple[Mark, int | None]:
    """``read``, and the size of ``log/.heads`` it read (None when there is none or it is not a regular file):
    what ``write_own`` needs to tell that its line landed right after what was read."""
    path = log_dir / WITNESS_NAME
    try:
        fd = os.open(path, os.O_RDONLY | _FLAGS)
    except FileNotFoundError:
        return ABSENT, None
    except OSError:  # a symlink (ELOOP), or unreadable
        return Mark(WHERE, True, damaged=True), None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return Mark(WHERE, True, damaged=True), None
        start = max(0, st.st_size - TAIL)
        data = os.pread(fd, st.st_size - start, start)
    except OSError:
        return Mark(WHERE, True, damaged=True), None
    finally:
        os.close(fd)
    if len(data) != st.st_size - start:  # shorter than its size said: not the bytes of one moment
        size: int | None = None
    else:
        size = st.st_size
    return _parse_tail(data, start, campaign), size


def _parse_tail(data: bytes, start: int, campaign: str) -> Mark:
    """What the last ``data`` of ``log/.heads`` (read from offset ``start``) says: ``read``'s verdict."""
    if not data:
        return ABSENT
    pieces = data.split(b"\n")
    rest = pieces.pop()  # what follows the last line feed: a line being written, or torn
    if start > 0 and pieces:
        pieces.pop(0)  # cut by the window
    best: tuple[int, str, str] | None = None
    damaged = bool(rest)
    looked = 0
    for text in reversed(pieces):  # the newest lines, back to an ``accept`` line
        if not text:
            continue
        looked += 1
        if best is not None and b'"accept":true' not in text:
            seq = _SEQ.search(text)  # an older line is checked only if it may hold a higher head (racing appends)
            if seq is None or int(seq.group(1)) <= best[0]:
                if looked == RECENT:
                    break
                continue
        doc = parse(text)
        head = _head(doc, campaign)
        if looked == 1 and head is None:
            damaged = True  # the newest whole line
        if head is not None and (best is None or head[0] > best[0]):
            best = head
        if (head is not None and doc is not None and doc.get("accept") is True) or looked == RECENT:
            break
    if best is None:
        return Mark(WHERE, True, None, damaged=True, ragged=bool(rest))
    return Mark(WHERE, True, best[0], best[1], best[2], damaged, None, bool(rest))


def write(log_dir: Path, before: Mark, doc: dict[str, Any]) -> bool:
    """Add ``doc`` (campaign, seq, hash, file, file_sha, at) as a line of ``log/.heads``; when there is no record
    (``before``), as a new file made whole before it gets its name (no reader sees it empty).

    False (nothing raised) when it cannot be written: the record then lags the log, which is safe (it only ever
    says how far the log reached at least). Not fsynced, for the same reason.
    """
    return write_own(log_dir, before, doc, None)[0]


def write_own(log_dir: Path, before: Mark, doc: dict[str, Any], size_before: int | None) -> tuple[bool, Ident | None]:
    """``write``, and when the line landed right at ``size_before`` (the size ``read_sized`` read along with
    ``before``) and nothing followed it by the time of the write's own ``fstat``: the file's identity then
    (``ident``; None otherwise). The file is then exactly what was read with this line after it."""
    path = log_dir / WITNESS_NAME
    data = line(doc)
    if not before.present:
        tmp = log_dir / f".tmp-{os.getpid()}-{uuid.uuid4().hex}.inprogress"
        try:
            tmp.write_bytes(data)
            os.link(tmp, path)
            return True, None
        except FileExistsError:
            pass  # made meanwhile by another append: add the line to it
        except OSError:
            return False, None
        finally:
            with contextlib.suppress(OSError):
                tmp.unlink()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | _FLAGS)
    except OSError:
        return False, None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
            return False, None  # never written through a planted FIFO or hard link
        out = (b"\n" if before.ragged else b"") + data  # a torn line stays apart from the next
        if os.write(fd, out) != len(out):
            return False, None
        if size_before is None or not before.present:
            return True, None
        end = os.lseek(fd, 0, os.SEEK_CUR)  # O_APPEND: where this write ended
        after = os.fstat(fd)
        if end != size_before + len(out) or after.st_size != end:
            return True, None  # another line landed before or after this one
        return True, ident(after)
    except OSError:
        return False, None
    finally:
        os.close(fd)


def ident(st: os.stat_result) -> Ident:
    """A file's identity on disk: device, inode, size, mtime and ctime (ns) (``store.log.ident``)."""
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def after_own(before: Mark, doc: dict[str, Any]) -> Mark:
    """What ``read`` says of ``log/.heads`` once ``write_own`` added ``doc``'s line right after the lines ``before``
    was read from (it returned an identity), when ``before`` held and the log ends at ``doc``'s seq.

    The line is the newest, whole and of this campaign; every older line ``read`` looks at again was looked at
    for ``before`` (the window only moves forward by one line), and ``before`` judged against the log it extends
    (``judge``) says none holds a head past the one this line follows. ``tests/faults/test_append_left.py``
    checks it against ``read`` after appends over torn, foreign, racing and ``accept`` lines.
    """
    return Mark(WHERE, True, int(doc["seq"]), str(doc["hash"]), str(doc.get("at") or ""))


def accept(log_dir: Path, doc: dict[str, Any]) -> bool:
    """Add ``doc`` as an ``accept`` line: the GM's word that the log's head is this one, whatever was recorded before.

    A ``log/.heads`` that is not a regular file of one link is replaced.
    """
    path = log_dir / WITNESS_NAME
    with contextlib.suppress(FileNotFoundError):
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
            try:
                path.unlink()
            except OSError:
                return False
    return write(log_dir, read(log_dir, str(doc.get("campaign"))), dict(doc, accept=True))


def judge(mark: Mark, end: int, hash_at: Callable[[int], str | None], *, strict: bool = True) -> str | None:
    """What ``mark`` says about a log that ends at seq ``end``, or None when it holds.

    ``hash_at(seq)`` is the log's hash at ``seq`` (None: not known there, not compared).
    ``strict`` also counts a record that holds no readable head, and a damaged newest entry while
    the log ends exactly at the newest readable head (see the module docstring), against the log.

    >>> judge(Mark("log/.heads", True, 5, "ab" * 32), 4, lambda s: None)[:59]
    'the log ends at seq 4, but log/.heads recorded seq 5 as its'
    >>> judge(Mark("log/.heads", True, 4, "ab" * 32, damaged=True), 5, lambda s: None) is None
    True
    """
    if not mark.present:
        return None
    when = f" on {mark.at}" if mark.at else ""
    fix = ("restore the missing batch files from a copy; only if the log is as it should be (an older copy restored"
           " on purpose), record its present head with `kingdomlog verify DIR --accept-head`")
    if mark.seq is None:
        if not strict:
            return None
        return (f"{mark.where} is damaged (no head in it can be read): whether batches after seq {end} were removed"
                f" cannot be told; {fix}")
    if end < mark.seq:
        missing = f"seq {end + 1} is" if end + 1 == mark.seq else f"seqs {end + 1}..{mark.seq} are"
        return (f"the log ends at seq {end}, but {mark.where} recorded seq {mark.seq} as its head{when} (hash"
                f" {mark.hash[:16]}): {missing} missing (a deleted batch?); {fix}")
    have = hash_at(mark.seq)
    if have is not None and have != mark.hash:
        return (f"seq {mark.seq} is not the event {mark.where} recorded as its head{when} (hash {mark.hash[:16]}, now"
                f" {have[:16]}): the log was replaced or rewritten from there on; {fix}")
    if strict and mark.damaged and end == mark.seq:
        return (f"the newest entry of {mark.where} is damaged and the log ends exactly at the head recorded before it"
                f" (seq {mark.seq}); a crash damages only the entry of a later head the log then had, so seq"
                f" {mark.seq + 1} onward may be missing (a deleted batch?); {fix}")
    return None


__all__ = ["ABSENT", "RECENT", "TAIL", "WHERE", "WITNESS_KEY", "WITNESS_NAME", "Mark", "accept", "after_own", "ident",
           "judge", "line", "parse", "read", "read_sized", "write", "write_own"]
