"""The append-only Parquet event log of one campaign (design §2, §3).

One immutable Parquet file per committed batch in ``log/``, named by its first
seq (``000000000001.parquet``). Appends are atomic and exclusive: the batch is
written to a dot-named temp file (in ``.cache/inflight/``, so no reader of ``log/`` ever
lists it; in ``log/`` itself when the campaign has no cache folder), fsynced, hard-linked
to its final name (``os.link`` fails if the name exists, so two writers cannot both take a
position), then the directory is fsynced. A retry of the same ``commit_id``
that finds its own batch reports success.

Every batch file carries a sha256 of its own bytes in its footer
(``kingdomlog.file_sha256``: the digest of the whole file with those 64 hex
characters set to ``0``; patched in place after writing, so the file stays valid
Parquet and no sidecar is needed), and the next batch records that digest as
``kingdomlog.prev_file_sha256``. A single flipped or missing byte anywhere in a
file, including footer padding, statistics or metadata that no reader decodes,
is therefore detected.

Readers check every file: its own digest, format version, name vs first seq,
gapless seqs, commit ids, the sha256 chain across events and files, and Parquet
page CRCs. What a full check found is recorded per file in ``.cache/verified.json``
(signed with this machine's key, see ``store.keys``): the file's digest, its links and,
once the file has not changed for ``RACY_SECONDS``, its identity on disk (device, inode,
size, mtime and ctime in ns). A later read trusts a file without reading it only while
that identity is exactly the recorded one: any write to the file sets its ctime to the
time of the write, and no process can set a ctime back (``utime`` sets it to now), so a
file rewritten in place with its size, inode and mtime kept is read again. A file whose
identity differs is read and hashed; if its digest is still the recorded one it is not
decoded again, otherwise it gets every check, each event's hash recomputed (``verify``
always recomputes everything). Any fault raises ``CorruptLogError`` naming the file and seq.

A log of many files is also kept as one **compacted segment** (``.cache/segments/``): a
Parquet file of every event of the first files (the pages of the runs a first read checked
in bulk, as they are: ``_SegmentBuilder``), pinned by the signed record (its own
sha256 and the list of files it covers). A read uses it only after confirming each covered
batch file as above, and never writes ``log/``: the batch files stay the truth and
immutable; a covered file that changed is checked in full (and refused if damaged), and
the segment is rebuilt by a later read.

The log's head (last seq and hash, the newest file and its digest) is recorded twice: in the
log's own ``log/.heads`` after each append (``store.witness``: one checksummed line per append,
append-only like the batches beside it), and in this machine's ``.cache/head.rec`` (two signed
slots, see ``store.keys``) after each append and each full read. Both only move forward, so a deleted
newest batch shows as a log that ends before a recorded head: every read refuses it
(``CorruptLogError``), ``verify`` names the missing seqs, appends append nothing, until the
batches are restored or ``accept_head`` records the present head (see ``store.witness`` for
what a torn record means, and docs/scale.md for what cannot be detected). Both records are
read before ``log/`` is listed. An append starts from this machine's record (one footer-free
read of the newest file, to confirm its digest): it never lists ``log/``, so it costs the same
at ten files or twenty thousand. An append after the same ``EventLog``'s own append takes both
records and the head from what that append wrote (``_Left``) while one ``lstat`` of each file shows
it exactly as left (docs/scale.md, "An append after one's own").

pyarrow is imported only when something must be decoded or written (``store.codec``).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import json
import os
import re
import stat
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

from kingdomlog.core.errors import ConflictError, CorruptLogError, KingdomlogError, StoreError
from kingdomlog.core.events import GENESIS_HASH, Draft, RecordedEvent, event_hash
from kingdomlog.store import codec, keys, witness
from kingdomlog.store.codec import (
    _SHA_LEAD,
    _SHA_PLACEHOLDER,
    CAMPAIGN_KEY,
    COLUMNS,
    FILE_SHA_KEY,
    FORMAT_KEY,
    PREV_FILE_SHA_KEY,
    decode_rows,
    decode_table,
    file_digest,
)
from kingdomlog.store.errors import describe_os_error, write_error
from kingdomlog.store.witness import WITNESS_KEY, Mark

if TYPE_CHECKING:
    import pyarrow as pa

    from kingdomlog.store.bulk import Column, Group

FORMAT_VERSION = 1
GENESIS_FILE_SHA = "0" * 64
FILE_RE = re.compile(r"\A([0-9]{12})\.parquet\Z")
TEMP_PREFIX = ".tmp-"
TEMP_SUFFIX = ".inprogress"
STALE_TEMP_SECONDS = 600
VERIFIED_FORMAT = 3
RACY_SECONDS = 2.0
"""A file changed less than this long ago may change again within the same tick of the file system's clock
(FAT: 2 s) without its identity changing, so its identity is not recorded until it is older."""
SEGMENT_MIN_FILES = 32
"""A compacted segment is built once at least this many batch files (and a quarter of those covered) are not in one."""
SEGMENT_ROWS = 16384
"""Rows per row group of a segment (what a streaming read holds in memory at once)."""
BULK_MIN_FILES = 8
"""A read checks at least this many files it has no record of together (``store.bulk``); fewer, one by one."""
BULK_RUN_ROWS = 4096
"""About how many events a run of files checked together holds (``store.bulk``): 100k events in 2,001 files were
read in 1.02-1.11 s of CPU in runs of 4,096 (59-64 MB), 1.09-1.15 s in runs of 16,384 (89-90 MB)."""
BULK_YIELD_ROWS = 2048
"""Rows per table a bulk-checked run is yielded in (what a streaming reader decodes at once)."""
HEAD_NAME = "head.rec"
"""The recorded head in the campaign's cache folder: two signed slots (``store.keys.write_signed_slot``)."""
LEGACY_HEAD_NAME = "head.json"
"""Where versions before ``head.rec`` recorded the head (one signed file, replaced on every append): read
while the cache has no ``head.rec``, removed once one is written."""
HEAD_SLOT = 1024
"""Bytes per slot of ``head.rec``: a record is about 400 bytes with a campaign id of the longest (64)."""

WRITE_OPTIONS: dict[str, Any] = {
    "compression": "snappy", "use_dictionary": False, "write_statistics": False, "write_page_checksum": True,
}
"""How a batch file is written (no dictionaries: on a batch this small they only cost time and bytes).

snappy for every column: a zstd column chunk costs ~23 us to set up when written and ~30 us when read, whatever
its size, which made the four zstd columns (payload and the hex of ids and hashes) most of the cost of writing
a batch and of reading one the first time. A 50-event ledger batch: written in 0.18 ms instead of 0.32, read in
0.13 ms instead of 0.23, 14.0 KB instead of 9.4 (docs/scale.md). The compacted segment a log is read from
afterwards is snappy too (``SEGMENT_WRITE_OPTIONS``)."""
SEGMENT_WRITE_OPTIONS: dict[str, Any] = {"compression": "snappy", "use_dictionary": False, "write_statistics": False}
"""How a compacted segment's rows are encoded when they are not a bulk-checked run's own pages (``_SegmentBuilder``;
it is a cache: its bytes are pinned by the signed record, not by CRCs).

snappy without dictionaries, like the batch files: 100,000 ledger events written in 89 ms of CPU instead of 128 with
zstd and dictionaries, read in 30 ms instead of 42, 18.7 MB instead of 9.7 (issue 31, measured apart)."""
INFLIGHT = "inflight"
"""The folder under the cache folder holding the temp files of appends in flight."""

Ident = list[int]


def __getattr__(name: str) -> Any:
    # SCHEMA and _TYPES need pyarrow: built on first use, so importing this module does not import it
    if name == "SCHEMA":
        return codec.schema()
    if name == "_TYPES":
        return codec.column_types()
    raise AttributeError(name)


def batch_name(first_seq: int) -> str:
    """The file name of the batch starting at ``first_seq``."""
    return f"{first_seq:012d}.parquet"


@dataclass(frozen=True)
class Head:
    """Where the log ends: last seq (0 if empty) and its hash."""

    seq: int
    hash: str
    file: str | None = None
    file_sha: str = GENESIS_FILE_SHA
    witnessed: bool = False
    """The newest batch was appended while the log kept its own record of its heads (``log/.heads``)."""


@dataclass(frozen=True)
class HeadRecord:
    """The head this folder's cache last saw (``.cache/head.rec``): seq, hash, and when (ISO time, UTC).

    ``file`` and ``file_sha`` name the newest batch file and its digest then; ``dir_mtime`` is the
    log folder's mtime (ns) right after the append that wrote the record (None after a read), so
    the next append can tell whether anyone else added a file to ``log/`` since. ``slot`` is the
    slot of ``head.rec`` it was read from (None: from the ``head.json`` of an older version).
    """

    seq: int
    hash: str
    at: str
    file: str | None = None
    file_sha: str | None = None
    dir_mtime: int | None = None
    slot: int | None = None


@dataclass(frozen=True)
class AppendResult:
    """What an append did. ``idempotent`` is True when the batch was already there."""

    commit_id: str
    first_seq: int
    last_seq: int
    file: str
    idempotent: bool = False


@dataclass(frozen=True)
class Stamp:
    """An event's own id and time, kept when events are copied in (import); new events get fresh ones."""

    event_id: str
    recorded_at: datetime


@dataclass(frozen=True)
class Walked:
    """What the last complete read of the whole log found: its head and every retracted commit id."""

    seq: int
    hash: str
    retracted: frozenset[str]
    files: int
    head_problems: tuple[str, ...] = ()
    """What the records of the head say against the log (``store.witness.judge``); empty when they hold."""
    last_file: str | None = None
    last_file_sha: str = GENESIS_FILE_SHA


@dataclass(frozen=True)
class _Left:
    """What an ``EventLog``'s own last append left on disk: the records of the head as a read of them would give
    them then, and the identity (``ident``) of each file right after its own write.

    The next append by the same ``EventLog`` takes the records from here instead of reading, parsing and checking
    them again, but only while one ``lstat`` of each shows it exactly as this append left it (and no batch follows
    its own, and ``log/`` holds no entry more or less): see ``EventLog._still``, and docs/scale.md ("An append after
    one's own") for why that is the same guarantee.
    """

    wm: Mark
    heads: Ident
    """``log/.heads`` (``witness.write_own``'s ``fstat``: the file exactly as read, then this append's line)."""
    recorded: HeadRecord
    rm: Mark
    rec: Ident
    """``.cache/head.rec`` (``fstat`` right after its slot was written)."""
    head: Head
    batch: Ident
    """The batch file this append linked (``lstat`` once its temp name was unlinked)."""
    inflight: Ident | None
    """The cache's ``inflight/`` folder once the temp file was unlinked, when ``clean_temps`` had left no temp file
    in it (None: look again next time)."""
    heads_path: str
    rec_path: str
    next_path: str
    """Where the batch after this append's would be."""
    inflight_dir: str
    """Where this append wrote its temp file."""


# Test hook for the fault-injection suite (tests/faults/): when set, ``append`` calls it with the
# name of each durability step it reaches ("start", "temp_written", "temp_synced", "linked",
# "dir_synced"), so a test can SIGKILL the process exactly between steps. ``None`` in production:
# the cost is one global lookup per step.
FAULT_HOOK: Callable[[str], None] | None = None

# fsync the batch file and the directory on every append (durable before acknowledged). Only
# throwaway bulk archives (benchmarks/generate.py --no-sync) turn this off; appends stay atomic and
# exclusive (temp file + link), but a power cut may then lose recent batches.
SYNC = True


def seal(data: bytes) -> tuple[bytes, str]:
    """Patch the file's own digest into its footer placeholder; returns (bytes, digest)."""
    i = data.rfind(FILE_SHA_KEY)
    at = i + len(FILE_SHA_KEY) + len(_SHA_LEAD)
    if i < 0 or data[at - len(_SHA_LEAD):at] != _SHA_LEAD or data[at:at + 64] != _SHA_PLACEHOLDER:
        raise StoreError("internal: the Parquet footer does not hold the digest placeholder where expected")
    digest = hashlib.sha256(data).hexdigest()
    return data[:at] + digest.encode("ascii") + data[at + 64:], digest


def footer_value(data: bytes, key: bytes) -> bytes | None:
    """The value of ``key`` in a batch file's footer metadata, read from its bytes without a Parquet reader.

    A footer key-value pair is Thrift compact: the key's bytes, then ``0x18`` (field 2, binary), a
    varint length and the value. The last occurrence of the key is the footer's (it is written
    after every page). Only meaningful for bytes whose digest was checked.
    """
    i = data.rfind(key)
    if i < 0:
        return None
    at = i + len(key)
    if data[at:at + 1] != b"\x18":
        return None
    at += 1
    n = shift = 0
    while at < len(data):
        b = data[at]
        at += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return data[at:at + n] if at + n <= len(data) else None
    return None


def _bad(path: Path, message: str) -> CorruptLogError:
    """A ``CorruptLogError`` naming ``path`` and the first seq its name gives."""
    return CorruptLogError(message, file=str(path), seq=_first_seq(path))


def _first_seq(path: Path) -> int | None:
    """The first seq of a batch file, from its name (None for a name not of the log's form)."""
    m = FILE_RE.match(path.name)
    return int(m.group(1)) if m else None


def _fsync_dir(path: str | Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _parquet_bytes(table: pa.Table) -> bytes:
    """A batch file's bytes: ``table`` written as Parquet with ``WRITE_OPTIONS``, in memory.

    The table's metadata goes into the footer as key-value pairs, but not the Arrow schema pyarrow adds by
    default (``ARROW:schema``, ~2.5 KB of base64): a reader derives the very same schema from the Parquet
    types (``codec.schema()``: the check compares it), and a file without it is read ~20 us faster, every
    time one is checked the first time (a fresh clone reads thousands: issue 31, ``store_schema=False``,
    measured apart: 139-147 against 158-168 us a 50-event file, least of 5 x 300) and written ~5-10 us faster.
    Files written before keep their ``ARROW:schema`` and read the same.

    Written by the public ``pq.ParquetWriter``: pyarrow's private writer class under it saves ~30 us of its
    Python a batch (issue 31's sixth pass), not worth an internal API whose arguments a pyarrow may change.
    """
    p = codec.pa()
    import pyarrow.parquet as pq

    sink = p.BufferOutputStream()
    if not hasattr(pq.ParquetWriter, "add_key_value_metadata"):  # an older pyarrow: the footer as before
        pq.write_table(table, sink, **WRITE_OPTIONS)
        return bytes(sink.getvalue().to_pybytes())
    writer = pq.ParquetWriter(sink, table.schema, store_schema=False, **WRITE_OPTIONS)
    try:
        writer.write_table(table)
        writer.add_key_value_metadata(table.schema.metadata or {})
    finally:
        writer.close()
    return bytes(sink.getvalue().to_pybytes())


def _write_new(path: str | Path, data: bytes, hook: Callable[[str], None] | None) -> None:
    """Write ``data`` to the new file ``path`` (never an existing one: ``O_EXCL``) and, with ``SYNC``, fsync it.

    On a bare descriptor (no file object: no ``fstat`` of its own, no buffer, no copy of the bytes). ``hook``
    (``FAULT_HOOK``) is called with ``"temp_written"`` once the bytes are written, before the fsync.
    """
    fd = _open_new(path)
    try:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            if not n:  # a regular file takes some bytes or raises; never spin on nothing written
                raise OSError(errno.EIO, os.strerror(errno.EIO))
            view = view[n:]
        if hook is not None:
            hook("temp_written")
        if SYNC:
            os.fsync(fd)
    finally:
        os.close(fd)


_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
"""How ``_write_new`` opens: what ``open(path, "xb")`` asks of the system."""


def _open_new(path: str | Path) -> int:
    """A descriptor on the new file ``path`` (``FileExistsError`` when there is one; the fault tests refuse it here)."""
    return os.open(path, _NEW_FILE, 0o666)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def ident(st: os.stat_result) -> Ident:
    """A file's identity on disk: device, inode, size, mtime and ctime (ns)."""
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def settled(st: os.stat_result) -> bool:
    """Whether the file last changed more than ``RACY_SECONDS`` ago (its identity may then be recorded)."""
    return time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) > RACY_SECONDS * 1e9


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
"""A batch file is opened without blocking: a FIFO (or device) named like a batch must not hang a reader."""


def _open_batch(path: Path) -> tuple[int, os.stat_result]:
    """An open descriptor of the batch file ``path`` and its stat; ``CorruptLogError`` unless it is a regular file."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except FileNotFoundError:
        raise _bad(path, "batch file vanished while reading") from None
    except OSError as exc:
        raise _bad(path, f"unreadable batch file ({exc.strerror})") from None
    try:
        st = os.fstat(fd)
    except OSError as exc:
        os.close(fd)
        raise _bad(path, f"unreadable batch file ({exc.strerror})") from None
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        kind = "a FIFO" if stat.S_ISFIFO(st.st_mode) else "a directory" if stat.S_ISDIR(st.st_mode) else \
            "a socket or device"
        raise _bad(path, f"not a batch file: {kind} named like one (remove it)")
    return fd, st


def read_batch(path: Path) -> bytes:
    """A batch file's bytes (``CorruptLogError`` naming it when it cannot be read or is not a regular file)."""
    fd, st = _open_batch(path)
    try:
        return _read_all(fd, st.st_size)
    except OSError as exc:
        raise _bad(path, f"unreadable batch file ({exc.strerror})") from None
    finally:
        os.close(fd)


def _read_all(fd: int, size: int) -> bytes:
    """Everything left in ``fd``, read in chunks of at least the size it had (one read and one at the end)."""
    chunks = []
    while True:
        chunk = os.read(fd, max(size + 1, 1 << 16))
        if not chunk:
            break
        chunks.append(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def read_pinned(path: Path) -> tuple[bytes, Ident | None]:
    """A batch file's bytes and, if it did not change while being read and has settled, its identity."""
    fd, before = _open_batch(path)
    try:
        data = _read_all(fd, before.st_size)
        after = os.fstat(fd)
    except OSError as exc:
        raise _bad(path, f"unreadable batch file ({exc.strerror})") from None
    finally:
        os.close(fd)
    same = ident(before) == ident(after) and after.st_size == len(data)
    return data, ident(after) if same and settled(after) else None


# ---- the verified record, parsed once per process while the file is unchanged -----------------

_RECORDS: dict[str, tuple[Ident, dict[str, Any]]] = {}


def _read_record(path: Path) -> dict[str, Any] | None:
    """The signed JSON at ``path`` (None when absent or not ours), parsed once while the file is the same."""
    try:
        st = os.stat(path)
    except OSError:
        _RECORDS.pop(str(path), None)
        return None
    key = ident(st)
    hit = _RECORDS.get(str(path))
    if hit is not None and hit[0] == key:
        return hit[1]
    doc = keys.read_signed(path)
    if not isinstance(doc, dict):
        _RECORDS.pop(str(path), None)
        return None
    _RECORDS[str(path)] = (key, doc)
    return doc


def _chained(ent: Any, expect_seq: int, prev_hash: str, prev_file_sha: str) -> TypeGuard[dict[str, Any]]:
    """Whether a verified-record entry continues the chain so far."""
    return (isinstance(ent, dict) and ent.get("first") == expect_seq and ent.get("prev_hash") == prev_hash
            and ent.get("prev_file") == prev_file_sha and isinstance(ent.get("count"), int))


class EventLog:
    """The ``log/`` folder of one campaign."""

    def __init__(self, log_dir: Path, campaign: str, cache_dir: Path | None = None) -> None:
        self.dir = Path(log_dir)
        self.campaign = campaign
        self.cache_dir = cache_dir
        self.walked: Walked | None = None
        """Set by every complete read of the whole log (``iter_tables``, ``read_after``)."""
        self._dir_s = str(self.dir)
        self._left: _Left | None = None
        """What this log's own last append left (``_Left``); None after anything else."""

    # ---- listing -------------------------------------------------------------------------

    def files(self) -> list[Path]:
        """Committed batch files in seq order. A non-dot ``*.parquet`` not named by a seq is an error."""
        if not self.dir.is_dir():
            raise StoreError(f"{self.dir}: the campaign has no log folder")
        names: list[str] = []
        for name in os.listdir(self.dir):
            if name.startswith("."):
                continue
            if len(name) == 20 and name.endswith(".parquet") and name[:12].isdigit() and name[:12].isascii():
                names.append(name)
            elif name.endswith(".parquet"):
                raise CorruptLogError("unexpected file in the log (not named by a seq)", file=str(self.dir / name))
        names.sort()  # twelve digits each: text order is seq order
        d = self.dir
        return [d / n for n in names]

    def _last_file(self) -> Path | None:
        """The newest batch file (what ``files()[-1]`` is), without building a Path per file."""
        if not self.dir.is_dir():
            raise StoreError(f"{self.dir}: the campaign has no log folder")
        best = -1
        best_name = ""
        for entry in os.scandir(self.dir):
            name = entry.name
            if name.startswith("."):
                continue
            m = FILE_RE.match(name)
            if m:
                n = int(m.group(1))
                if n > best:
                    best, best_name = n, name
            elif name.endswith(".parquet"):
                raise CorruptLogError("unexpected file in the log (not named by a seq)", file=str(entry.path))
        return self.dir / best_name if best >= 0 else None

    def _inflight(self) -> Path | None:
        return self.cache_dir / INFLIGHT if self.cache_dir is not None else None

    def temp_files(self) -> list[Path]:
        """Temp files of appends in flight or interrupted (the cache's ``inflight/``; older ones in ``log/``)."""
        out: list[Path] = []
        for d in (self._inflight(), self.dir):
            if d is not None and d.is_dir():
                out += [Path(e.path) for e in os.scandir(d) if e.name.startswith(TEMP_PREFIX)]
        return out

    def clean_temps(self, *, in_log: bool = True) -> list[Path]:
        """Remove temp files left by dead writers (or older than 10 minutes). Returns what was removed.

        ``in_log=False`` leaves ``log/`` unlisted (only the cache's ``inflight/`` folder is looked at).
        """
        return self._clean_temps(in_log=in_log)[0]

    def _clean_temps(self, *, in_log: bool = True) -> tuple[list[Path], int]:
        """``clean_temps``, and how many temp files it left (those of live writers)."""
        removed = []
        kept = 0
        now = datetime.now(UTC).timestamp()
        dirs = [self._inflight(), self.dir if in_log else None]
        for d in dirs:
            if d is None or not d.is_dir():
                continue
            for e in os.scandir(d):
                if not e.name.startswith(TEMP_PREFIX):
                    continue
                kept += 1
                p = Path(e.path)
                m = re.match(r"^\.tmp-(\d+)-", p.name)
                dead = m is not None and not _pid_alive(int(m.group(1)))
                try:
                    old = now - p.stat().st_mtime > STALE_TEMP_SECONDS
                except FileNotFoundError:
                    kept -= 1
                    continue
                if dead or old or m is None:
                    try:
                        p.unlink()
                        removed.append(p)
                        kept -= 1
                    except FileNotFoundError:
                        kept -= 1
        return removed, kept

    # ---- reading -------------------------------------------------------------------------

    def _open(self, path: Path, data: bytes | None = None) -> tuple[pa.Table, dict[bytes, bytes], bytes]:
        """Read one batch file whole and decode it (page CRCs checked); returns its bytes too.

        The file's own digest is checked by the caller after the content checks (so that a
        tampered file is reported by what changed when that can be told; see ``_check_digest``).
        """
        if data is None:
            data = self._bytes(path)
        pa_ = codec.pa()
        import pyarrow.parquet as pq

        try:
            pf = pq.ParquetFile(pa_.BufferReader(data), page_checksum_verification=True)
            meta = dict(pf.metadata.metadata or {})
            table = pf.read(use_threads=False)
        except Exception as exc:  # a damaged file fails in pyarrow in many ways (OSError, Arrow, ValueError)
            raise _bad(path, f"unreadable batch file ({type(exc).__name__}: {exc})") from None
        return table, meta, data

    @staticmethod
    def _bytes(path: Path) -> bytes:
        return read_batch(path)

    @staticmethod
    def _check_digest(path: Path, data: bytes) -> None:
        stored, actual = file_digest(data)
        if stored is None:
            raise _bad(path, "batch file has no kingdomlog.file_sha256 (damaged footer, or not a"
                                  " kingdomlog batch)")
        if stored != actual:
            raise _bad(path, "batch file altered: its bytes do not match its sha256")

    def _meta(self, path: Path) -> dict[bytes, bytes]:
        """The key-value metadata of a batch file, after checking the file's own digest."""
        data = self._bytes(path)
        import pyarrow.parquet as pq

        try:
            meta = dict(pq.ParquetFile(codec.pa().BufferReader(data)).metadata.metadata or {})
        except Exception as exc:  # a damaged file fails in pyarrow in many ways (OSError, Arrow, ValueError)
            raise _bad(path, f"unreadable batch file ({type(exc).__name__}: {exc})") from None
        self._check_digest(path, data)
        return meta

    def head(self, *, check: bool = True) -> Head:
        """The last seq and hash: from the recorded head when its file is still the newest and unchanged, else
        from the newest batch's metadata (one footer).

        ``check``: raise ``CorruptLogError`` when a record of the head says the log once reached further, or
        was another log there (``store.witness``).
        """
        wm = witness.read(self.dir, self.campaign) if check else witness.ABSENT
        recorded, rm = self._cache_record()
        tip = self._recorded_tip(recorded)
        head = tip if tip is not None else self._scan_head()
        if check:
            problems = self._judge(wm, rm, head)
            if problems:
                raise CorruptLogError(problems[0])
        return head

    def _recorded_tip(self, rec: HeadRecord | None) -> Head | None:
        """The head the record names, if no batch follows it and its file still has the recorded digest.

        No listing: a batch appended after the record would be named ``batch_name(seq + 1)``.
        """
        if rec is None or not rec.file or not rec.file_sha or not FILE_RE.match(rec.file):
            return None
        if os.path.exists(self.dir / batch_name(rec.seq + 1)):
            return None
        path = self.dir / rec.file
        try:
            data = read_batch(path)
        except CorruptLogError:
            return None
        stored, actual = file_digest(data)
        if stored != actual or stored != rec.file_sha:
            return None
        return Head(rec.seq, rec.hash, str(path), rec.file_sha, footer_value(data, WITNESS_KEY) is not None)

    def _scan_head(self) -> Head:
        last = self._last_file()
        if last is None:
            return Head(0, GENESIS_HASH, None)
        meta = self._meta(last)
        if meta.get(CAMPAIGN_KEY, b"").decode(errors="replace") != self.campaign:
            raise CorruptLogError(f"batch metadata names another campaign (this is {self.campaign!r})", file=str(last))
        try:
            first = int(meta[b"kingdomlog.first_seq"])
            count = int(meta[b"kingdomlog.count"])
            last_hash = meta[b"kingdomlog.last_hash"].decode()
            file_sha = meta[FILE_SHA_KEY].decode()
        except (KeyError, ValueError):
            raise CorruptLogError("batch metadata is missing or damaged", file=str(last)) from None
        return Head(first + count - 1, last_hash, str(last), file_sha, WITNESS_KEY in meta)

    def owner(self) -> str | None:
        """The campaign id the log's first batch was written for, or None for an empty log.

        From the verified record when the first file is exactly as recorded (no read), else from
        the first file's footer after checking its digest.
        """
        first = self.dir / batch_name(1)
        if not first.is_file():
            files = self.files()
            if not files:
                return None
            first = files[0]
        p = self._verified_path()
        doc = _read_record(p) if p is not None else None
        if isinstance(doc, dict) and doc.get("format") == VERIFIED_FORMAT and isinstance(doc.get("files"), dict):
            ent = doc["files"].get(first.name)
            if isinstance(ent, dict) and ent.get("stat") and isinstance(doc.get("campaign"), str):
                try:
                    if ent["stat"] == ident(os.stat(first)):
                        return str(doc["campaign"])
                except OSError:
                    pass
        data = self._bytes(first)
        self._check_digest(first, data)
        raw = footer_value(data, CAMPAIGN_KEY)
        if raw is None:
            raw = self._meta(first).get(CAMPAIGN_KEY)
        if raw is None:
            raise CorruptLogError("batch metadata names no campaign", file=str(first))
        return raw.decode(errors="replace")

    def read_table(self, *, full_verify: bool = False) -> pa.Table:
        """All events as one Arrow table in seq order, after checking the whole log.

        ``full_verify`` recomputes every event's hash even for files verified before.
        """
        tables = list(self.iter_tables(full_verify=full_verify))
        if not tables:
            return codec.schema().empty_table()
        return codec.pa().concat_tables(tables)

    # ---- the walk over the files ---------------------------------------------------------

    def _confirm(self, path: Path, ent: dict[str, Any]) -> tuple[bool, bytes | None, Ident | None]:
        """Whether ``path`` still holds the bytes ``ent`` recorded: by its identity (no read) or its digest.

        Returns (confirmed, the bytes if they were read, the identity to record if it is new).
        """
        rec = ent.get("stat")
        if rec:
            try:
                if ident(os.stat(path)) == rec:
                    return True, None, None
            except FileNotFoundError:
                raise _bad(path, "batch file vanished while reading") from None
            except OSError as exc:
                raise _bad(path, f"unreadable batch file ({exc.strerror})") from None
        data, new = read_pinned(path)
        stored, actual = file_digest(data)
        if stored is not None and stored == actual == ent.get("digest"):
            return True, data, new
        return False, data, None

    def _full(self, path: Path, data: bytes | None, expect_seq: int, prev_hash: str,
              prev_file_sha: str) -> tuple[pa.Table, dict[str, Any]]:
        """Every check of one file (each event's hash recomputed); returns its table and its record entry."""
        pinned: Ident | None = None
        if data is None:
            data, pinned = read_pinned(path)
        table, meta, data = self._open(path, data)
        self._check_batch(path, table, meta, expect_seq, prev_hash)
        self._check_hashes(path, table)
        self._check_digest(path, data)
        if meta.get(PREV_FILE_SHA_KEY, b"").decode(errors="replace") != prev_file_sha:
            raise CorruptLogError("file chain broken: prev_file_sha256 does not match the previous batch file",
                                  file=str(path))
        entry = _entry(table, meta)
        if pinned is not None:
            entry["stat"] = pinned
        return table.select(list(COLUMNS)), entry

    def _decode_known(self, path: Path, ent: dict[str, Any], data: bytes | None) -> pa.Table:
        """The table of a file confirmed by its record entry (page CRCs checked, not the event hashes again)."""
        if data is None:
            data = self._bytes(path)
            stored, actual = file_digest(data)
            if stored is None or stored != actual or stored != ent.get("digest"):
                raise _bad(path, "batch file altered: its bytes do not match its sha256")
        table = self._open(path, data)[0]
        if table.num_rows != ent["count"]:
            raise _bad(path, "batch file holds another number of events than when it was checked")
        return table.select(list(COLUMNS))

    def iter_tables(self, *, full_verify: bool = False, check_head: bool = True) -> Iterator[pa.Table]:
        """Events in seq order as Arrow tables (one per batch file, or one per row group of the compacted
        segment), each checked before it is yielded.

        Memory stays at one table: this is the streaming form of ``read_table`` (a fault in a
        later file is raised when the iteration reaches it). Without ``full_verify`` files are
        confirmed by the verified record where they can be and a compacted segment is used (and
        built, once the log has ``SEGMENT_MIN_FILES`` files it does not cover).

        At the end the records of the head are judged against the log (``store.witness.judge``): a log
        that ends before one of them, or differs from it, raises ``CorruptLogError`` unless
        ``check_head`` is False (``verify`` reports them itself); either way they are in ``walked``.
        """
        doc = {} if full_verify else self._verified_doc()
        verified: dict[str, Any] = dict(doc.get("files") or {})
        segment = doc.get("segment") if isinstance(doc.get("segment"), dict) else None
        state = self._walk_state()  # the records first: a concurrent append only moves the listing further
        files = self.files()
        builder: _SegmentBuilder | None = None
        start = 0
        if segment is not None and not full_verify:
            got = self._segment_prefix(files, verified, segment, state)
            if got is None:
                segment = None
            else:
                start, seg_data = got
        covered = start
        if not full_verify and self._segments_dir() is not None and \
                len(files) - covered >= max(SEGMENT_MIN_FILES, covered // 4):
            builder = _SegmentBuilder(self)
        try:
            if start:
                for t in _segment_tables(seg_data):
                    if builder is not None:
                        builder.add(t)
                    yield t
            i = start
            while i < len(files):
                path = files[i]
                ent = verified.get(path.name)
                data = None
                if _chained(ent, state.expect_seq, state.prev_hash, state.prev_file_sha):
                    ok, data, new = self._confirm(path, ent)
                    if ok:
                        if new is not None:
                            state.newly[path.name] = dict(ent, stat=new)
                        table = self._decode_known(path, ent, data)
                        state.advance(path.name, ent)
                        if builder is not None:
                            builder.add(table)
                        yield table
                        i += 1
                        continue
                if len(files) - i >= BULK_MIN_FILES and ent is None:
                    run = self._bulk(files, i, verified, state)
                    if run is not None:
                        table, taken, group = run
                        if builder is not None:
                            builder.add(table, group)
                        # in slices, so that a reader decodes a few thousand events at a time, not the run's all
                        for at in range(0, table.num_rows, BULK_YIELD_ROWS):
                            yield table.slice(at, BULK_YIELD_ROWS)
                        i += taken
                        continue
                table, entry = self._full(path, data, state.expect_seq, state.prev_hash, state.prev_file_sha)
                state.newly[path.name] = entry
                state.advance(path.name, entry)
                if builder is not None:
                    builder.add(table)
                yield table
                i += 1
            seg_record = None
            if builder is not None and state.files:
                seg_record = builder.finish([p.name for p in files], state.digests, state.expect_seq - 1,
                                            state.prev_hash)
            if not full_verify and (state.newly or seg_record is not None):
                verified.update(state.newly)
                self._save_verified(verified, seg_record if seg_record is not None else segment)
            self._finish_walk(state, len(files), check_head=check_head)
        finally:
            if builder is not None:
                builder.abandon()

    def _bulk(self, files: list[Path], i: int, verified: dict[str, Any],
              state: _WalkState) -> tuple[pa.Table, int, Group | None] | None:
        """Check the files from ``files[i]`` the log has no record of in one run (``store.bulk``), up to about
        ``BULK_RUN_ROWS`` events; their table, how many files it took and their pages as one row group (when
        decoded so), or None (then nothing is recorded and the caller checks ``files[i]`` on its own, which
        names the fault if there is one)."""
        from kingdomlog.store.bulk import check_run

        items: list[tuple[Path, bytes, Ident | None]] = []
        rows = 0  # the events of the run so far, as the files' names tell (the check itself counts them)
        for k, path in enumerate(files[i:], start=i):
            if items and (rows >= BULK_RUN_ROWS or path.name in verified):
                break
            try:
                data, pinned = read_pinned(path)
            except CorruptLogError:  # a file that cannot be read ends the run: faults before it are named first
                break
            items.append((path, data, pinned))
            rows = (_first_seq(files[k + 1]) or 0) - state.expect_seq if k + 1 < len(files) else rows
        if len(items) < 2:
            return None
        got = check_run(self.campaign, items, state.expect_seq, state.prev_hash, state.prev_file_sha,
                        format_version=FORMAT_VERSION)
        if got is None:
            return None
        table, entries, group = got
        for (path, _data, _pinned), entry in zip(items, entries, strict=True):
            state.newly[path.name] = entry
            state.advance(path.name, entry)
        return table, len(items), group

    def _segment_prefix(self, files: list[Path], verified: dict[str, Any], segment: dict[str, Any],
                        state: _WalkState) -> tuple[int, bytes] | None:
        """Confirm the files the segment covers (no decoding) and read the segment; None if it cannot be used.

        Nothing is yielded before this returns, so on None the read simply goes file by file
        (and a damaged covered file is then reported by its own checks).
        """
        names = segment.get("names")
        digests = segment.get("digests")
        seg_dir = self._segments_dir()
        if not isinstance(names, list) or not names or seg_dir is None or len(files) < len(names) \
                or not isinstance(digests, list) or len(digests) != len(names):
            return None
        if [p.name for p in files[:len(names)]] != names:
            return None
        probe = _WalkState(state.recorded, state.marks)
        for path, digest in zip(files[:len(names)], digests, strict=True):
            ent = verified.get(path.name)
            # pinned by the digest each covered file had when the segment was built
            if not _chained(ent, probe.expect_seq, probe.prev_hash, probe.prev_file_sha) or ent["digest"] != digest:
                return None
            ok, _data, new = self._confirm(path, ent)
            if not ok:
                return None
            if new is not None:
                probe.newly[path.name] = dict(ent, stat=new)
            probe.advance(path.name, ent)
        if probe.expect_seq - 1 != segment.get("last_seq") or probe.prev_hash != segment.get("last_hash"):
            return None
        try:
            data = (seg_dir / str(segment.get("file"))).read_bytes()
        except (OSError, ValueError):
            return None
        if hashlib.sha256(data).hexdigest() != segment.get("sha256"):
            return None
        state.__dict__.update(probe.__dict__)
        return len(names), data

    def read_after(self, seq: int) -> TailRead:
        """Check the whole log, decoding only the events after ``seq``; for the warm snapshot path.

        A file entirely at or before ``seq`` confirmed by the verified record (its identity on
        disk, or else its sha256) and whose recorded chain links continue the previous file is
        not decoded. Every other file gets every check of ``iter_tables``. Faults raise
        ``CorruptLogError`` as there. Nothing is decoded (nor pyarrow imported) when no event
        follows ``seq``.
        """
        verified: dict[str, Any] = dict(self._verified_doc().get("files") or {})
        tables: list[pa.Table] = []
        gone: set[str] = set()
        commits_upto: set[str] = set()
        hash_at: str | None = GENESIS_HASH if seq == 0 else None
        config: list[Any] | None = None
        state = self._walk_state()
        files = self.files()
        for path in files:
            ent = verified.get(path.name)
            data = None
            first = state.expect_seq
            table: pa.Table | None = None
            if _chained(ent, first, state.prev_hash, state.prev_file_sha):
                ok, data, new = self._confirm(path, ent)
                if ok:
                    if new is not None:
                        state.newly[path.name] = ent = dict(ent, stat=new)
                    if first + ent["count"] - 1 > seq:
                        table = self._decode_known(path, ent, data)
                else:
                    ent = None
            else:
                ent = None
            if ent is None:
                table, ent = self._full(path, data, first, state.prev_hash, state.prev_file_sha)
                state.newly[path.name] = ent
            n = ent["count"]
            gone.update(ent.get("retracts") or ())
            if config is None:
                config = ent.get("config")
            if first <= seq:
                commits_upto.add(ent["commit"])
            if first <= seq <= first + n - 1:
                hash_at = ent["last_hash"] if seq == first + n - 1 else None
                if hash_at is None:
                    if table is None:
                        table = self._decode_known(path, ent, data)
                    hash_at = table.column("hash")[seq - first].as_py()
            if table is not None and first + n - 1 > seq:
                tables.append(table.slice(max(0, seq + 1 - first)))
            state.advance(path.name, ent)
        if state.newly:
            verified.update(state.newly)
            self._save_verified(verified, self._verified_doc().get("segment"))
        self._finish_walk(state, len(files))
        tail = codec.pa().concat_tables(tables) if tables else None
        return TailRead(tail, state.expect_seq - 1, frozenset(gone), frozenset(commits_upto), hash_at, config,
                        state.prev_hash)

    def _walk_state(self) -> _WalkState:
        """A walk's start, with the records of the head it will be judged against (read before ``log/`` is listed)."""
        wm = witness.read(self.dir, self.campaign)
        recorded, rm = self._cache_record()
        return _WalkState(recorded, (wm, rm))

    def _finish_walk(self, state: _WalkState, n_files: int, *, check_head: bool = True) -> None:
        end = state.expect_seq - 1
        last = self.dir / state.last_file if state.last_file else None

        def witnessed() -> bool:
            if state.last_witnessed is not None or last is None:
                return bool(state.last_witnessed)
            return footer_value(self._bytes(last), WITNESS_KEY) is not None  # a record of an older version

        head = Head(end, state.prev_hash, str(last) if last else None, state.prev_file_sha, False)
        problems = self._judge(state.marks[0], state.marks[1], head, state.seen.get, witnessed)
        self.walked = Walked(end, state.prev_hash, frozenset(state.retracted), n_files, tuple(problems),
                             state.last_file, state.prev_file_sha)
        if problems and check_head:
            raise CorruptLogError(problems[0])
        if not problems and state.on_chain and state.last_file is not None:  # never record a head the records deny
            self._record_head(state.expect_seq - 1, state.prev_hash, state.recorded, file=state.last_file,
                              file_sha=state.prev_file_sha)

    def scan(self) -> list[str]:
        """Check every batch file (all hashes recomputed) and report every fault, not only the first.

        After a damaged file the scan resynchronises on the next file's own first seq and
        links, so one bad batch does not hide another. Used by ``verify``; readers stop at
        the first fault instead (``iter_tables``).
        """
        problems: list[str] = []
        expect_seq = 1
        prev_hash = GENESIS_HASH
        prev_file_sha = GENESIS_FILE_SHA
        synced = True
        try:
            files = self.files()
        except KingdomlogError as exc:
            return [str(exc)]
        for path in files:
            m = FILE_RE.match(path.name)
            assert m is not None
            first = int(m.group(1))
            if synced and first != expect_seq:
                what = (f"gap in the log: seq {expect_seq}..{first - 1} missing (a batch was deleted?)"
                        if first > expect_seq else f"duplicate or overlapping seq: expected {expect_seq} next")
                problems.append(str(CorruptLogError(what, file=str(path), seq=min(first, expect_seq))))
                synced = False
            try:
                table, meta, data = self._open(path)
            except CorruptLogError as exc:
                problems.append(str(exc))
                synced = False
                continue
            n = table.num_rows
            if not synced and n:
                # resynchronise on this file's own links; the gap or break before it is already reported
                expect_seq = first
                prev_hash = str(table.column("prev_hash")[0].as_py()) if "prev_hash" in table.column_names else ""
                prev_file_sha = meta.get(PREV_FILE_SHA_KEY, b"").decode(errors="replace")
            try:
                self._check_batch(path, table, meta, expect_seq, prev_hash)
                self._check_hashes(path, table)
                self._check_digest(path, data)
                if meta.get(PREV_FILE_SHA_KEY, b"").decode(errors="replace") != prev_file_sha:
                    raise CorruptLogError("file chain broken: prev_file_sha256 does not match the previous batch"
                                          " file", file=str(path), seq=first)
                synced = True
            except CorruptLogError as exc:
                problems.append(str(exc))
                synced = False
            expect_seq = first + n
            if n and "hash" in table.column_names:
                prev_hash = str(table.column("hash")[n - 1].as_py())
            prev_file_sha = meta.get(FILE_SHA_KEY, b"").decode(errors="replace")
        return problems

    def _check_batch(
        self, path: Path, table: pa.Table, meta: dict[bytes, bytes], expect_seq: int, prev_hash: str
    ) -> None:
        f = str(path)
        fmt = meta.get(FORMAT_KEY)
        if fmt is None:
            raise CorruptLogError("not a kingdomlog batch (no format version in metadata)", file=f)
        try:
            fmt_v = int(fmt)
        except ValueError:
            raise CorruptLogError(f"format version {fmt!r} is not a number", file=f) from None
        if fmt_v > FORMAT_VERSION:
            raise CorruptLogError(
                f"written by a newer kingdomlog (format {fmt_v}, this one reads {FORMAT_VERSION}); upgrade to read it",
                file=f,
            )
        if meta.get(CAMPAIGN_KEY, b"").decode(errors="replace") != self.campaign:
            raise CorruptLogError(f"batch metadata names another campaign (this is {self.campaign!r})", file=f)
        schema = table.schema
        present = set(schema.names)
        missing = [c for c in COLUMNS if c not in present]
        if missing:
            raise CorruptLogError(f"batch lacks column(s) {', '.join(missing)}", file=f)
        for c, want in codec.column_types():
            got = schema.field(c).type
            if got != want:
                raise CorruptLogError(f"column {c!r} has type {got}, expected {want}", file=f)
        n = table.num_rows
        m = FILE_RE.match(path.name)
        assert m is not None
        first = int(m.group(1))
        if n == 0:
            raise CorruptLogError("empty batch", file=f, seq=first)
        try:
            meta_first = int(meta[b"kingdomlog.first_seq"])
            meta_count = int(meta[b"kingdomlog.count"])
            meta_commit = meta[b"kingdomlog.commit_id"].decode()
            meta_last_hash = meta[b"kingdomlog.last_hash"].decode()
        except (KeyError, ValueError):
            raise CorruptLogError("batch metadata is missing or damaged", file=f, seq=first) from None
        if meta_first != first or meta_count != n:
            raise CorruptLogError(
                f"metadata says first seq {meta_first} and {meta_count} events; file has {n} and is named {first}",
                file=f, seq=first,
            )
        if first < expect_seq:
            raise CorruptLogError(f"duplicate or overlapping seq: expected {expect_seq} next", file=f, seq=first)
        if first > expect_seq:
            raise CorruptLogError(
                f"gap in the log: seq {expect_seq}..{first - 1} missing (a batch was deleted?)", file=f, seq=expect_seq
            )
        seqs = table.column("seq").to_pylist()
        for i, s in enumerate(seqs):
            if s != first + i:
                raise CorruptLogError(f"seq {s} out of order (expected {first + i})", file=f, seq=first + i)
        camps = set(table.column("campaign").to_pylist())
        if camps != {self.campaign}:
            raise CorruptLogError(f"events of another campaign {sorted(camps)} (this is {self.campaign!r})", file=f,
                                  seq=first)
        commits = set(table.column("commit_id").to_pylist())
        if commits != {meta_commit}:
            raise CorruptLogError("commit ids inside the batch disagree with its metadata", file=f, seq=first)
        prevs = table.column("prev_hash").to_pylist()
        hashes = table.column("hash").to_pylist()
        if prevs[0] != prev_hash:
            raise CorruptLogError("hash chain broken: prev_hash does not match the previous event", file=f, seq=first)
        for i in range(1, n):
            if prevs[i] != hashes[i - 1]:
                raise CorruptLogError("hash chain broken inside the batch", file=f, seq=first + i)
        if hashes[-1] != meta_last_hash:
            raise CorruptLogError("last hash disagrees with the batch metadata", file=f, seq=first + n - 1)

    def _check_hashes(self, path: Path, table: pa.Table) -> None:
        cols = {c: table.column(c).to_pylist() for c in COLUMNS}
        for i in range(table.num_rows):
            row = {c: cols[c][i] for c in COLUMNS}
            try:
                when = row["recorded_at"]
                text = codec.hash_text(row["actor"], row["campaign"], row["commit_id"], row["event_id"],
                                       row["payload"], row["phase"], row["prev_hash"], when.isoformat(), row["seq"],
                                       row["turn"], row["type"], row["version"], row["visibility"])
                ok = hashlib.sha256(text.encode("utf-8")).hexdigest() == row["hash"]
            except (TypeError, ValueError, AttributeError):
                try:  # an odd row: hashed by the canonical writer itself, whose errors say what is wrong
                    ok = event_hash(row) == row["hash"]
                except (TypeError, ValueError) as exc:
                    raise CorruptLogError(f"event cannot be hashed ({exc})", file=str(path),
                                          seq=row.get("seq")) from None
            if not ok:
                raise CorruptLogError("event altered: its hash does not match its content", file=str(path),
                                      seq=row["seq"])

    # ---- the verified record and the compacted segment -------------------------------------

    def _verified_path(self) -> Path | None:
        return self.cache_dir / "verified.json" if self.cache_dir else None

    def _segments_dir(self) -> Path | None:
        return self.cache_dir / "segments" if self.cache_dir else None

    def retracted_hint(self) -> frozenset[str]:
        """The commit ids the verified record says the log's ``core.turn_retracted`` events name (a hint: a read
        of the whole log finds the true set, ``walked.retracted``)."""
        out: set[str] = set()
        for ent in self._load_verified().values():
            if isinstance(ent, dict):
                out.update(ent.get("retracts") or ())
        return frozenset(out)

    def cached_config(self) -> list[Any] | None:
        """``[type, version, payload text]`` of seq 1 as recorded when the first file was last fully checked."""
        ent = self._load_verified().get(batch_name(1))
        first = ent.get("config") if isinstance(ent, dict) else None
        return first if isinstance(first, list) else None

    def _verified_doc(self) -> dict[str, Any]:
        p = self._verified_path()
        doc = _read_record(p) if p is not None else None
        if not isinstance(doc, dict) or doc.get("format") != VERIFIED_FORMAT or doc.get("campaign") != self.campaign \
                or not isinstance(doc.get("files"), dict):
            return {}
        return doc

    def _load_verified(self) -> dict[str, Any]:
        """The signed record of fully checked files (by name); empty when absent, not ours or of another campaign."""
        files = self._verified_doc().get("files")
        return dict(files) if isinstance(files, dict) else {}

    def _save_verified(self, data: dict[str, Any], segment: dict[str, Any] | None = None) -> None:
        p = self._verified_path()
        if p is not None:  # the cache is an optimisation only: a failed write costs speed
            keys.write_signed(p, {"format": VERIFIED_FORMAT, "campaign": self.campaign, "files": data,
                                  "segment": segment})

    # ---- the recorded head ---------------------------------------------------------------

    def recorded_head(self) -> HeadRecord | None:
        """The head this folder's cache recorded (signed by this machine), or None.

        Of the two slots of ``head.rec`` the valid one further along; a folder whose cache has no
        ``head.rec`` yet is read from the ``head.json`` an older version wrote.
        """
        return self._cache_record()[0]

    def _cache_record(self) -> tuple[HeadRecord | None, Mark]:
        """The recorded head, and what the record says as a ``witness.Mark`` (one read of ``head.rec``).

        A slot signed under another key (the folder was copied from another machine) counts as
        empty, not damaged: that record is simply not this machine's.
        """
        where = f".cache/{HEAD_NAME}"
        if self.cache_dir is None:
            return None, Mark(where)
        best: HeadRecord | None = None
        chunks = keys.read_slots(self.cache_dir / HEAD_NAME, HEAD_SLOT)
        damaged = False
        for i, chunk in enumerate(chunks or ()):
            if not chunk:
                continue
            rec = self._head_from(keys.loads_signed(chunk), i)
            if rec is None:
                damaged = damaged or not keys.signed_elsewhere(chunk)
            elif best is None or rec.seq > best.seq:
                best = rec
        if best is None and not damaged and chunks is None:
            best = self._head_from(keys.read_signed(self.cache_dir / LEGACY_HEAD_NAME), None)
        if best is None:
            return None, Mark(where, damaged, None, damaged=damaged)
        if best.slot is None:
            where = f".cache/{LEGACY_HEAD_NAME}"
        return best, Mark(where, True, best.seq, best.hash, best.at, damaged, best.slot)

    def keeps_witness(self) -> bool:
        """Whether ``log/.heads`` exists (a log written before it was kept has none until its next append)."""
        return os.path.lexists(self.dir / witness.WITNESS_NAME)

    def _head_from(self, doc: Any, slot: int | None) -> HeadRecord | None:
        if not isinstance(doc, dict) or doc.get("campaign") != self.campaign:
            return None
        try:
            dm = doc.get("dir_mtime")
            return HeadRecord(int(doc["seq"]), str(doc["hash"]), str(doc.get("at", "")),
                              doc.get("file") if isinstance(doc.get("file"), str) else None,
                              doc.get("file_sha") if isinstance(doc.get("file_sha"), str) else None,
                              dm if isinstance(dm, int) else None, slot)
        except (KeyError, TypeError, ValueError):
            return None

    def _record_head(self, seq: int, hash_: str, recorded: HeadRecord | None, *, file: str | None = None,
                     file_sha: str | None = None, dir_mtime: int | None = None,
                     at: str | None = None) -> tuple[HeadRecord, Ident] | None:
        """Move the recorded head forward to ``seq`` (only forward: the caller checked it continues the record).

        Written into the slot ``recorded`` was not read from, so the record before it stays whole
        until the next one: a crash mid-write leaves the previous head, never none. Returns the record
        written and the file's identity right after the write (None when nothing was written).
        """
        if self.cache_dir is None or seq <= 0 or (recorded is not None and recorded.seq >= seq):
            return None
        slot = 0 if recorded is None or recorded.slot is None else 1 - recorded.slot
        at = at or datetime.now(UTC).isoformat(timespec="seconds")
        after: list[os.stat_result] = []
        wrote = keys.write_signed_slot(self.cache_dir / HEAD_NAME, slot, {
            "campaign": self.campaign, "seq": seq, "hash": hash_, "at": at, "file": file, "file_sha": file_sha,
            "dir_mtime": dir_mtime}, HEAD_SLOT, after)
        if recorded is not None and recorded.slot is None:  # the older version's record is superseded
            with contextlib.suppress(OSError):
                (self.cache_dir / LEGACY_HEAD_NAME).unlink()
        if not wrote or not after:
            return None
        return HeadRecord(seq, hash_, at, file, file_sha, dir_mtime, slot), ident(after[0])

    def _judge(self, wm: Mark, rm: Mark, head: Head, hash_at: Callable[[int], str | None] | None = None,
               witnessed: Callable[[], bool] | None = None) -> list[str]:
        """What ``log/.heads`` (``wm``) and ``.cache/head.rec`` (``rm``) say against a log ending at ``head``.

        ``hash_at`` (default: ``head``'s hash at its seq only) gives the log's hash at a seq, None where it
        is not known. The log's own record is judged strictly (``witness.judge``); this machine's record
        too when the log has none (a log written before it had one). A log without ``log/.heads`` whose
        newest batch says it kept one (``witnessed``, default ``head.witnessed``) lost it, and with it
        perhaps the batches after: that is a fault too, unless this machine's record names exactly the
        log's head (then the next append starts ``log/.heads`` again).
        """
        def at_head(s: int) -> str | None:
            return head.hash if s == head.seq else None

        look = hash_at or at_head
        out = [p for p in (witness.judge(wm, head.seq, look), witness.judge(rm, head.seq, look, strict=not wm.present))
               if p]
        if not out and not wm.present and head.seq > 0 and (witnessed or (lambda: head.witnessed))():
            vouched = rm.present and rm.seq == head.seq and rm.hash == look(head.seq)
            if not vouched:
                name = Path(head.file).name if head.file else "?"
                out.append(f"{witness.WHERE} is missing, but the newest batch ({name}) was appended while the log"
                           f" kept it: it was removed, and whether batches after seq {head.seq} were removed"
                           " with it cannot be told; restore the missing files from a copy; only if the log is as"
                           " it should be, record its present head with `kingdomlog verify DIR --accept-head`")
        return out

    def accept_head(self) -> Walked:
        """Record the log's present head as its head, in ``log/.heads`` and this machine's ``.cache/head.rec``.

        The GM's explicit word (``kingdomlog verify --accept-head``) after the records said the log once
        reached further (or cannot be read): from now on the log is taken to end where it ends, and
        its next append reuses the seqs it lost. Reads and checks the whole log first (every hash
        recomputed); returns that walk, whose ``head_problems`` are what the records said before.
        Raises ``CorruptLogError`` when the log itself is damaged and ``StoreError`` when a record
        cannot be written.
        """
        self._left = None
        for _ in self.iter_tables(full_verify=True, check_head=False):
            pass
        walked = self.walked
        assert walked is not None
        if walked.seq == 0:
            return walked
        doc = {"campaign": self.campaign, "seq": walked.seq, "hash": walked.hash, "file": walked.last_file,
               "file_sha": walked.last_file_sha, "at": datetime.now(UTC).isoformat(timespec="seconds")}
        if not witness.accept(self.dir, doc):
            raise StoreError(f"{self.dir}: cannot write {witness.WITNESS_NAME}; nothing recorded")
        if self.cache_dir is not None:
            for name in (HEAD_NAME, LEGACY_HEAD_NAME):
                with contextlib.suppress(OSError):
                    (self.cache_dir / name).unlink()
            self._record_head(walked.seq, walked.hash, None, file=walked.last_file, file_sha=walked.last_file_sha)
        return walked

    def read(self, *, full_verify: bool = False, check_head: bool = True) -> list[RecordedEvent]:
        """Every event, decoded and upcast (see ``decode_rows``); ``check_head`` as ``iter_tables``."""
        out: list[RecordedEvent] = []
        for table in self.iter_tables(full_verify=full_verify, check_head=check_head):
            out += decode_table(table)
        return out

    # ---- writing -------------------------------------------------------------------------

    def append(
        self,
        drafts: Sequence[Draft],
        *,
        expect_seq: int | None = None,
        commit_id: str | None = None,
        recorded_at: datetime | None = None,
        stamps: Sequence[Stamp] | None = None,
    ) -> AppendResult:
        """Append ``drafts`` (each with its turn) as one batch, atomically; all or nothing.

        ``expect_seq``: the last seq the writer saw; a different head raises
        ``ConflictError`` (expected vs actual) unless the head holds this very
        ``commit_id`` already (an idempotent retry, reported as success).
        Without ``expect_seq`` the retry check looks only at the newest batch (like an
        "any version" append in other event stores, idempotency is then best effort);
        every writer in kingdomlog itself passes ``expect_seq``. ``stamps`` (one per
        draft) keep copied events' ids and times.

        The head comes from the recorded head when its file is still the newest and unchanged
        (no listing of ``log/``); ``log/`` is listed only when the record does not hold, the
        caller expects another head, or the folder changed since the last append (to remove
        temp files a dead writer of an older version left there).
        """
        if not drafts:
            raise StoreError("nothing to append (empty batch)")
        if stamps is not None and len(stamps) != len(drafts):
            raise StoreError("append: one stamp per event is needed")
        for d in drafts:
            if d.turn is None or d.turn < 0:
                raise StoreError(f"append: event {d.type!r} has no turn")
        if not self.dir.is_dir():
            raise StoreError(f"{self.dir}: the campaign has no log folder")
        commit_id = commit_id or codec.new_ids(1)[0]
        when = (recorded_at or datetime.now(UTC)).astimezone(UTC)
        return self._append(drafts, expect_seq, commit_id, when, stamps, fast=True)

    def _append(self, drafts: Sequence[Draft], expect_seq: int | None, commit_id: str, when: datetime,
                stamps: Sequence[Stamp] | None, *, fast: bool) -> AppendResult:
        left, self._left = self._left, None
        still = self._still(left) if fast and left is not None else None
        wsize: int | None
        recorded: HeadRecord | None
        if left is not None and still is not None and (expect_seq is None or left.head.seq == expect_seq):
            # this log's own last append left every record as it is now (``_still``): they are its own
            wm, wsize, recorded, rm, head = left.wm, left.heads[2], left.recorded, left.rm, left.head
            kept = 0 if still else self._clean_temps(in_log=False)[1]
        else:
            # the records of the head are read before the head: a concurrent append only moves the log further
            wm, wsize = witness.read_sized(self.dir, self.campaign)
            recorded, rm = self._cache_record()
            tip = self._recorded_tip(recorded) if fast else None
            if tip is not None and expect_seq is not None and tip.seq != expect_seq:
                tip = None  # the writer saw another head: decide on the log itself
            if tip is None:
                kept = self._clean_temps()[1]
                head = self._scan_head()
            else:
                head = tip
                try:
                    moved = recorded is None or recorded.dir_mtime != os.stat(self.dir).st_mtime_ns
                except OSError:
                    moved = True
                kept = self._clean_temps(in_log=moved)[1]
        problems = self._judge(wm, rm, head)
        if problems:  # never append over a hole: the next seq would reuse one the log once had
            raise StoreError(f"{self.dir}: nothing appended: {problems[0]}")
        if expect_seq is not None and head.seq != expect_seq:
            done = self._find_commit_at(expect_seq + 1, commit_id)
            if done is not None:
                return done
            raise ConflictError(expect_seq, head.seq)
        if expect_seq is None:
            done = self._find_commit_at_file(head.file, commit_id)
            if done is not None:
                return done
        first = head.seq + 1
        cols = codec.encode(drafts, campaign=self.campaign, first_seq=first, prev_hash=head.hash,
                            commit_id=commit_id, recorded_at=when,
                            stamps=None if stamps is None else [(s.event_id, s.recorded_at.astimezone(UTC))
                                                                for s in stamps])
        prev = cols["hash"][-1]
        meta = {
            FORMAT_KEY: str(FORMAT_VERSION).encode(),
            b"kingdomlog.first_seq": str(first).encode(),
            b"kingdomlog.count": str(len(drafts)).encode(),
            b"kingdomlog.commit_id": commit_id.encode(),
            b"kingdomlog.last_hash": prev.encode(),
            CAMPAIGN_KEY: self.campaign.encode(),
        }
        meta[FILE_SHA_KEY] = _SHA_PLACEHOLDER
        meta[PREV_FILE_SHA_KEY] = head.file_sha.encode()
        if wm.present:  # the log keeps log/.heads: from now on its absence means it was removed
            meta[WITNESS_KEY] = witness.WITNESS_NAME.encode()
        data, digest = seal(_parquet_bytes(codec.batch_table(cols, meta)))
        # paths as text: the append builds a handful per batch, and a Path costs a few microseconds each
        dir_s = self._dir_s
        name = batch_name(first)
        final = f"{dir_s}/{name}"
        tmp_dir = left.inflight_dir if left is not None and still else str(self._temp_dir())
        tmp = f"{tmp_dir}/{TEMP_PREFIX}{os.getpid()}-{os.urandom(16).hex()}{TEMP_SUFFIX}"
        hook = FAULT_HOOK
        try:
            if hook is not None:
                hook("start")
            _write_new(tmp, data, hook)
            if hook is not None:
                hook("temp_synced")
            try:
                try:
                    os.link(tmp, final)
                except OSError as exc:
                    if isinstance(exc, FileExistsError) or exc.errno != errno.EXDEV or tmp_dir == dir_s:
                        raise
                    # the cache folder is on another file system: write the temp file in log/ itself
                    moved_tmp = f"{dir_s}/{os.path.basename(tmp)}"
                    _write_new(moved_tmp, data, None)
                    with contextlib.suppress(OSError):
                        os.unlink(tmp)
                    tmp, tmp_dir = moved_tmp, dir_s
                    os.link(tmp, final)
            except FileExistsError:
                done = self._find_commit_at_file(final, commit_id)
                if done is not None:
                    return done
                if expect_seq is None and fast:
                    with contextlib.suppress(OSError):
                        os.unlink(tmp)
                    return self._append(drafts, expect_seq, commit_id, when, stamps, fast=False)
                raise ConflictError(head.seq if expect_seq is None else expect_seq, self.head().seq,
                                    "another writer took the same position") from None
            if hook is not None:
                hook("linked")
            if SYNC:
                _fsync_dir(dir_s)
            if hook is not None:
                hook("dir_synced")
        except OSError as exc:
            raise write_error(self.dir, exc, linked=os.path.exists(final) and self._holds_commit(Path(final),
                                                                                              commit_id)) from None
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        last = first + len(drafts) - 1
        when_text = datetime.now(UTC).isoformat(timespec="seconds")
        line = {"campaign": self.campaign, "seq": last, "hash": prev, "file": name, "file_sha": digest,
                "at": when_text}
        own = wm.present and not wm.ragged and not rm.damaged and recorded is not None and recorded.slot is not None \
            and recorded.seq == head.seq and recorded.hash == head.hash
        batch_ident: Ident | None = None
        inflight_ident: Ident | None = None
        if own:  # what this append leaves, for the next (``_Left``): taken before the records are written
            try:
                batch_ident = ident(os.lstat(final))
                if kept == 0 and tmp_dir != dir_s:
                    inflight_ident = ident(os.lstat(tmp_dir))
            except OSError:
                batch_ident = None
        _, heads_ident = witness.write_own(self.dir, wm, line, wsize if own else None)
        wrote = None
        if recorded is None or (recorded.seq == head.seq and recorded.hash == head.hash):
            try:
                dir_mtime: int | None = os.stat(dir_s).st_mtime_ns
            except OSError:
                dir_mtime = None
            wrote = self._record_head(last, prev, recorded, file=name, file_sha=digest, dir_mtime=dir_mtime,
                                      at=when_text)
        if own and heads_ident is not None and wrote is not None and batch_ident is not None \
                and wrote[0].dir_mtime is not None and self.cache_dir is not None:
            rec, rec_ident = wrote
            self._left = _Left(
                witness.after_own(wm, line), heads_ident, rec,
                Mark(f".cache/{HEAD_NAME}", True, rec.seq, rec.hash, rec.at, False, rec.slot), rec_ident,
                Head(last, prev, final, digest, wm.present), batch_ident, inflight_ident,
                f"{dir_s}/{witness.WITNESS_NAME}", f"{self.cache_dir}/{HEAD_NAME}", f"{dir_s}/{batch_name(last + 1)}",
                tmp_dir)
        return AppendResult(commit_id, first, first + len(drafts) - 1, str(final))

    def _still(self, left: _Left) -> bool | None:
        """Whether every file ``left`` names is exactly as this log's last append left it: None when one is not
        (or is gone, or a batch follows its own, or ``log/`` gained or lost an entry), else whether the cache's
        ``inflight/`` folder is too (then no temp file is in it to clean).

        Every write to a file sets its ctime to the time of the write and no process can set it back; the records
        only ever grow (``log/.heads``) or are rewritten in place by writers that record a head the log reached
        (``head.rec``), and every such writer appended a batch first: named ``batch_name(seq + 1)``, in ``log/``.
        """
        lstat = os.lstat
        try:
            if ident(lstat(left.heads_path)) != left.heads or ident(lstat(left.rec_path)) != left.rec \
                    or ident(lstat(left.head.file or "")) != left.batch \
                    or lstat(self._dir_s).st_mtime_ns != left.recorded.dir_mtime or os.path.lexists(left.next_path):
                return None
            return left.inflight is not None and ident(lstat(left.inflight_dir)) == left.inflight
        except OSError:
            return None

    def _temp_dir(self) -> Path:
        """Where an append writes its temp file: the cache's ``inflight/`` folder, else ``log/`` itself."""
        d = self._inflight()
        if d is None:
            return self.dir
        if not d.is_dir():
            try:
                d.mkdir(parents=True, exist_ok=True)
            except OSError:  # no usable cache folder
                return self.dir
        return d

    def _holds_commit(self, path: Path, commit_id: str) -> bool:
        try:
            return self._find_commit_at_file(str(path), commit_id) is not None
        except KingdomlogError:
            return False

    def _find_commit_at(self, first_seq: int, commit_id: str) -> AppendResult | None:
        path = self.dir / batch_name(first_seq)
        return self._find_commit_at_file(str(path), commit_id) if path.exists() else None

    def _find_commit_at_file(self, file: str | None, commit_id: str) -> AppendResult | None:
        if file is None:
            return None
        meta = self._meta(Path(file))
        if meta.get(b"kingdomlog.commit_id", b"").decode() != commit_id:
            return None
        first = int(meta[b"kingdomlog.first_seq"])
        count = int(meta[b"kingdomlog.count"])
        return AppendResult(commit_id, first, first + count - 1, file, idempotent=True)


_NOT_A_BATCH_END = "not a batch end"
"""What a walk saw at a recorded head's seq that no batch ends at (a record only names batch ends)."""


class _WalkState:
    """Where a walk over the files is: the next seq, the links to continue, what it recorded and saw.

    ``marks`` are the records of the head (``log/.heads``, then ``.cache/head.rec``) the walk is judged
    against; ``seen`` holds the log's hash at each seq they name, as the walk passes it.
    """

    def __init__(self, recorded: HeadRecord | None, marks: tuple[Mark, Mark]) -> None:
        self.expect_seq = 1
        self.prev_hash = GENESIS_HASH
        self.prev_file_sha = GENESIS_FILE_SHA
        self.recorded = recorded
        self.marks = marks
        self.watch = sorted({m.seq for m in marks if m.seq})
        self.seen: dict[int, str] = {}
        self.last_witnessed: bool | None = None
        self.on_chain = recorded is None or recorded.seq == 0
        self.newly: dict[str, Any] = {}
        self.retracted: set[str] = set()
        self.last_file: str | None = None
        self.files = 0
        self.digests: list[str] = []

    def advance(self, name: str, ent: dict[str, Any]) -> None:
        start = self.expect_seq
        self.expect_seq += int(ent["count"])
        self.prev_hash = str(ent["last_hash"])
        for s in self.watch:
            if start <= s < self.expect_seq:
                self.seen[s] = self.prev_hash if s == self.expect_seq - 1 else _NOT_A_BATCH_END
        flag = ent.get("witness")
        self.last_witnessed = flag if isinstance(flag, bool) else None
        self.prev_file_sha = str(ent["digest"])
        self.retracted.update(ent.get("retracts") or ())
        self.last_file = name
        self.files += 1
        self.digests.append(self.prev_file_sha)
        rec = self.recorded
        self.on_chain = self.on_chain or (rec is not None and rec.seq == self.expect_seq - 1
                                          and rec.hash == self.prev_hash)


def _segment_tables(data: bytes) -> Iterator[pa.Table]:
    """The row groups of a compacted segment (its bytes already checked against the record's sha256)."""
    import pyarrow.parquet as pq

    pf = pq.ParquetFile(codec.pa().BufferReader(data))
    for i in range(pf.num_row_groups):
        group = pf.read_row_group(i, use_threads=False).select(list(COLUMNS))
        for at in range(0, group.num_rows, BULK_YIELD_ROWS):  # decoded a few thousand events at a time
            yield group.slice(at, BULK_YIELD_ROWS)


class _SegmentBuilder:
    """Writes the tables a read yields into a new compacted segment; recorded only if the read completes.

    The segment is Parquet of one row group per piece, written as it comes (the memory of one piece). A run the
    bulk check decoded in one Parquet call (``store.bulk.Group``) goes in as the very pages it decoded, not
    encoded again: they are the batch files' own pages (whose digests were checked), read under the same schema
    and ``created_by`` as every other group of the segment (a run of files another writer wrote is encoded
    instead). Any other table (a file checked on its own, a file confirmed by the verified record, the rows of
    the segment before) is encoded, a few together up to ``SEGMENT_ROWS``. The footer is written at the end
    (``store.bulk.footer_of``) and the digest taken over the bytes as they are written.
    """

    def __init__(self, log: EventLog) -> None:
        self.log = log
        seg_dir = log._segments_dir()
        assert seg_dir is not None
        self.dir = seg_dir
        self.tmp = seg_dir / f".tmp-{os.getpid()}-{uuid.uuid4().hex}.parquet"
        self.out: Any = None
        self.sha = hashlib.sha256()
        self.at = 0
        self.groups: list[tuple[int, list[Column]]] = []
        self.pending: list[pa.Table] = []
        self.rows = 0
        self.failed = False

    def add(self, table: pa.Table, group: Group | None = None) -> None:
        if self.failed:
            return
        if group is not None and group[3:] == _segment_form():
            self._flush()
            self._write(group)
            return
        self.pending.append(table)
        self.rows += table.num_rows
        if self.rows >= SEGMENT_ROWS:
            self._flush()

    def _write(self, group: Group | None) -> None:
        if self.failed or group is None or group[3:] != _segment_form():
            self.failed = True
            return
        data, columns, rows, _prefix, _by = group
        try:
            if self.out is None:
                self.dir.mkdir(parents=True, exist_ok=True)
                self.out = open(self.tmp, "xb")  # noqa: SIM115  (closed by finish or abandon)
                self._put(b"PAR1")
            self.groups.append((rows, [(ph, nm, cd, sz, off + self.at) for ph, nm, cd, sz, off in columns]))
            self._put(data)
        except OSError:  # the cache is an optimisation: no segment this time
            self.failed = True

    def _put(self, data: bytes | memoryview) -> None:
        self.out.write(data)
        self.sha.update(data)
        self.at += len(data)

    def _flush(self) -> None:
        if not self.pending:
            return
        from kingdomlog.store.bulk import group_of

        table = codec.pa().concat_tables(self.pending)
        self.pending = []
        self.rows = 0
        self._write(group_of(_segment_bytes(table)))

    def finish(self, names: list[str], digests: list[str], last_seq: int, last_hash: str) -> dict[str, Any] | None:
        """Close the segment and move it into place; its record (for the verified record), or None."""
        from kingdomlog.store.bulk import footer_of

        self._flush()
        if self.failed or self.out is None:
            return None
        try:
            prefix, created_by = _segment_form()
            self._put(footer_of(prefix, self.groups, created_by))
            self.out.close()
            self.out = None
            digest = self.sha.hexdigest()
            name = f"{digest[:24]}.parquet"
            os.replace(self.tmp, self.dir / name)
        except OSError:
            return None
        now = time.time()
        for old in self.dir.glob("*.parquet"):
            with contextlib.suppress(OSError):
                if old.name != name and now - old.stat().st_mtime > 60:
                    old.unlink()
        return {"file": name, "sha256": digest, "names": names, "digests": digests, "last_seq": last_seq,
                "last_hash": last_hash}

    def abandon(self) -> None:
        with contextlib.suppress(Exception):
            if self.out is not None:
                self.out.close()
        with contextlib.suppress(OSError):
            self.tmp.unlink()


def _segment_bytes(table: pa.Table) -> bytes:
    """``table`` as a Parquet file of one row group, as a segment's rows are encoded (``SEGMENT_WRITE_OPTIONS``)."""
    import pyarrow.parquet as pq

    sink = codec.pa().BufferOutputStream()
    pq.write_table(table.replace_schema_metadata(None), sink, row_group_size=max(1, table.num_rows),
                   store_schema=False, **SEGMENT_WRITE_OPTIONS)
    return bytes(sink.getvalue().to_pybytes())


@functools.cache
def _segment_form() -> tuple[bytes, str]:
    """The schema (``store.bulk._schema_prefix``) and ``created_by`` of every row group of a segment: those this
    process's writer writes the log's columns with; a bulk-checked run read under the same goes in as it is."""
    from kingdomlog.store.bulk import group_of

    group = group_of(_segment_bytes(codec.schema().empty_table()))
    assert group is not None
    return group[3], group[4]


@dataclass(frozen=True)
class TailRead:
    """What ``EventLog.read_after(seq)`` found: the rows after ``seq`` and facts about the rest."""

    table: pa.Table | None  # None when no event follows seq
    head_seq: int
    retracted: frozenset[str]  # commit ids named by any core.turn_retracted in the log
    commits_upto: frozenset[str]  # commit ids of batches starting at or before seq
    hash_at: str | None  # the hash of event ``seq`` (None if the log is shorter)
    config: list[Any] | None  # [type, version, payload text] of seq 1
    head_hash: str = GENESIS_HASH


def _entry(table: pa.Table, meta: dict[bytes, bytes]) -> dict[str, Any]:
    """The verified-cache record of a fully checked batch file."""
    types = table.column("type").to_pylist()
    retracts: list[str] = []
    payloads = None
    for i, t in enumerate(types):
        if t == "core.turn_retracted":
            payloads = payloads or table.column("payload").to_pylist()
            try:
                retracts += list(json.loads(payloads[i]).get("commit_ids", []))
            except (ValueError, AttributeError, TypeError):
                raise CorruptLogError("unreadable core.turn_retracted payload", seq=table.column("seq")[i].as_py()) \
                    from None
    first = int(table.column("seq")[0].as_py())
    entry: dict[str, Any] = {
        "digest": meta[FILE_SHA_KEY].decode(), "first": first, "count": table.num_rows,
        "last_hash": table.column("hash")[table.num_rows - 1].as_py(),
        "prev_hash": table.column("prev_hash")[0].as_py(),
        "prev_file": meta.get(PREV_FILE_SHA_KEY, b"").decode(errors="replace"),
        "commit": meta[b"kingdomlog.commit_id"].decode(), "retracts": retracts, "witness": WITNESS_KEY in meta,
    }
    if first == 1:
        entry["config"] = [types[0], int(table.column("version")[0].as_py()), table.column("payload")[0].as_py()]
    return entry


__all__ = ["COLUMNS", "AppendResult", "EventLog", "Head", "HeadRecord", "Stamp", "TailRead", "batch_name",
           "decode_rows", "decode_table", "describe_os_error", "file_digest", "footer_value", "read_batch", "seal",
           "write_error"]
