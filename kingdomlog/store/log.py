"""The append-only Parquet event log of one campaign (design §2, §3).

One immutable Parquet file per committed batch in ``log/``, named by its first
seq (``000000000001.parquet``). Appends are atomic and exclusive: the batch is
written to a dot-named temp file, fsynced, hard-linked to its final name
(``os.link`` fails if the name exists, so two writers cannot both take a
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
page CRCs.
Each event's own hash is recomputed for every file whose bytes are not exactly those
recorded when it was last checked in full (``.cache/verified.json``, signed with this
machine's key, see ``store.keys``), and always by ``verify``.
Any fault raises ``CorruptLogError`` naming the file and seq.

The log's head (last seq and hash) is also recorded in ``.cache/head.json`` (signed)
after each append and each full read. The record only moves forward along the chain,
so a deleted newest batch shows as a log that ends before its recorded head: ``verify``
reports it and appends are refused (see docs/log-format.md for what can and cannot be
detected).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import ValidationError

from kingdomlog.core.errors import ConflictError, CorruptLogError, KingdomlogError, StoreError
from kingdomlog.core.events import (
    GENESIS_HASH,
    Draft,
    EventModel,
    RecordedEvent,
    decode_payload,
    event_hash,
    event_types,
    record,
)
from kingdomlog.store import keys

FORMAT_VERSION = 1
FORMAT_KEY = b"kingdomlog.format"
FILE_SHA_KEY = b"kingdomlog.file_sha256"
PREV_FILE_SHA_KEY = b"kingdomlog.prev_file_sha256"
_SHA_PLACEHOLDER = b"0" * 64
# Thrift compact encoding of a KeyValue's ``value`` field header (field 2, binary) and its length (64).
_SHA_LEAD = b"\x18\x40"
GENESIS_FILE_SHA = "0" * 64
FILE_RE = re.compile(r"^(\d{12})\.parquet$")
TEMP_PREFIX = ".tmp-"
TEMP_SUFFIX = ".inprogress"
STALE_TEMP_SECONDS = 600
VERIFIED_FORMAT = 2

SCHEMA = pa.schema(
    [
        pa.field("campaign", pa.string(), nullable=False),
        pa.field("seq", pa.int64(), nullable=False),
        pa.field("turn", pa.int32(), nullable=False),
        pa.field("phase", pa.string(), nullable=True),
        pa.field("type", pa.string(), nullable=False),
        pa.field("version", pa.int16(), nullable=False),
        pa.field("actor", pa.string(), nullable=False),
        pa.field("visibility", pa.string(), nullable=False),
        pa.field("payload", pa.string(), nullable=False),
        pa.field("recorded_at", pa.timestamp("us", tz="UTC"), nullable=False),
        pa.field("event_id", pa.string(), nullable=False),
        pa.field("commit_id", pa.string(), nullable=False),
        pa.field("prev_hash", pa.string(), nullable=False),
        pa.field("hash", pa.string(), nullable=False),
    ]
)
COLUMNS = tuple(SCHEMA.names)
_TYPES = tuple((f.name, f.type) for f in SCHEMA)


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


@dataclass(frozen=True)
class HeadRecord:
    """The head this folder's cache last saw (``.cache/head.json``): seq, hash, and when (ISO time, UTC)."""

    seq: int
    hash: str
    at: str


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


# Test hook for the fault-injection suite (tests/faults/): when set, ``append`` calls it with the
# name of each durability step it reaches ("start", "temp_written", "temp_synced", "linked",
# "dir_synced"), so a test can SIGKILL the process exactly between steps. ``None`` in production:
# the cost is one global lookup per step.
FAULT_HOOK: Callable[[str], None] | None = None

# fsync the batch file and the directory on every append (durable before acknowledged). Only
# throwaway bulk archives (benchmarks/generate.py --no-sync) turn this off; appends stay atomic and
# exclusive (temp file + link), but a power cut may then lose recent batches.
SYNC = True


def file_digest(data: bytes) -> tuple[str | None, str]:
    """(digest stored in the file, digest computed over it); stored is None when absent.

    The computed digest is sha256 of ``data`` with the stored digest's 64 bytes
    replaced by ``0`` characters.
    """
    i = data.rfind(FILE_SHA_KEY)
    if i < 0:
        return None, hashlib.sha256(data).hexdigest()
    at = i + len(FILE_SHA_KEY) + len(_SHA_LEAD)
    if data[at - len(_SHA_LEAD):at] != _SHA_LEAD or at + 64 > len(data):
        return None, hashlib.sha256(data).hexdigest()
    stored = data[at:at + 64]
    h = hashlib.sha256()
    h.update(memoryview(data)[:at])
    h.update(_SHA_PLACEHOLDER)
    h.update(memoryview(data)[at + 64:])
    try:
        return stored.decode("ascii"), h.hexdigest()
    except UnicodeDecodeError:
        return stored.hex(), h.hexdigest()


def seal(data: bytes) -> tuple[bytes, str]:
    """Patch the file's own digest into its footer placeholder; returns (bytes, digest)."""
    i = data.rfind(FILE_SHA_KEY)
    at = i + len(FILE_SHA_KEY) + len(_SHA_LEAD)
    if i < 0 or data[at - len(_SHA_LEAD):at] != _SHA_LEAD or data[at:at + 64] != _SHA_PLACEHOLDER:
        raise StoreError("internal: the Parquet footer does not hold the digest placeholder where expected")
    digest = hashlib.sha256(data).hexdigest()
    return data[:at] + digest.encode("ascii") + data[at + 64:], digest


def _bad(path: Path, message: str) -> CorruptLogError:
    """A ``CorruptLogError`` naming ``path`` and the first seq its name gives."""
    return CorruptLogError(message, file=str(path), seq=_first_seq(path))


def _first_seq(path: Path) -> int | None:
    """The first seq of a batch file, from its name (None for a name not of the log's form)."""
    m = FILE_RE.match(path.name)
    return int(m.group(1)) if m else None


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


_OS_HINTS = {
    errno.ENOSPC: ("the disk is full", "free some space and retry"),
    errno.EDQUOT: ("the disk quota is exceeded", "free some space and retry"),
    errno.EROFS: ("the file system is read-only", "use a writable copy of the campaign"),
    errno.EACCES: ("permission denied", "check who owns the folder and its permissions"),
    errno.EPERM: ("the operation is not permitted", "check who owns the folder and its permissions"),
    errno.EIO: ("an input/output error from the disk", "check the disk, then run `kingdomlog verify`"),
}


def describe_os_error(exc: OSError) -> str:
    """``what happened (strerror); what to do`` for an error from the file system.

    >>> import errno
    >>> describe_os_error(OSError(errno.ENOSPC, "No space left on device"))
    'the disk is full (No space left on device); free some space and retry'
    """
    what, todo = _OS_HINTS.get(exc.errno or 0, (exc.strerror or type(exc).__name__, ""))
    detail = f" ({exc.strerror})" if exc.strerror and exc.strerror.lower() != what.lower() else ""
    return f"{what}{detail}" + (f"; {todo}" if todo else "")


def write_error(where: Path, exc: OSError, *, linked: bool = False) -> StoreError:
    """The ``StoreError`` for an append that the file system refused (nothing appended, unless ``linked``)."""
    if linked:
        return StoreError(f"{where}: the batch is in the log, but making it durable failed: {describe_os_error(exc)}")
    return StoreError(f"{where}: nothing appended: {describe_os_error(exc)}")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class EventLog:
    """The ``log/`` folder of one campaign."""

    def __init__(self, log_dir: Path, campaign: str, cache_dir: Path | None = None) -> None:
        self.dir = Path(log_dir)
        self.campaign = campaign
        self.cache_dir = cache_dir

    # ---- listing -------------------------------------------------------------------------

    def files(self) -> list[Path]:
        """Committed batch files in seq order. A non-dot ``*.parquet`` not named by a seq is an error."""
        if not self.dir.is_dir():
            raise StoreError(f"{self.dir}: the campaign has no log folder")
        out: list[tuple[int, Path]] = []
        for entry in os.scandir(self.dir):
            name = entry.name
            if name.startswith("."):
                continue
            m = FILE_RE.match(name)
            if m:
                out.append((int(m.group(1)), Path(entry.path)))
            elif name.endswith(".parquet"):
                raise CorruptLogError("unexpected file in the log (not named by a seq)", file=str(entry.path))
        out.sort()
        return [p for _, p in out]

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

    def temp_files(self) -> list[Path]:
        """Temp files of appends in flight or interrupted."""
        if not self.dir.is_dir():
            return []
        return [Path(e.path) for e in os.scandir(self.dir) if e.name.startswith(TEMP_PREFIX)]

    def clean_temps(self) -> list[Path]:
        """Remove temp files left by dead writers (or older than 10 minutes). Returns what was removed."""
        removed = []
        now = datetime.now(UTC).timestamp()
        for p in self.temp_files():
            m = re.match(r"^\.tmp-(\d+)-", p.name)
            dead = m is not None and not _pid_alive(int(m.group(1)))
            try:
                old = now - p.stat().st_mtime > STALE_TEMP_SECONDS
            except FileNotFoundError:
                continue
            if dead or old or m is None:
                try:
                    p.unlink()
                    removed.append(p)
                except FileNotFoundError:
                    pass
        return removed

    # ---- reading -------------------------------------------------------------------------

    def _open(self, path: Path, data: bytes | None = None) -> tuple[pa.Table, dict[bytes, bytes], bytes]:
        """Read one batch file whole and decode it (page CRCs checked); returns its bytes too.

        The file's own digest is checked by the caller after the content checks (so that a
        tampered file is reported by what changed when that can be told; see ``_check_digest``).
        """
        if data is None:
            data = self._bytes(path)
        try:
            pf = pq.ParquetFile(pa.BufferReader(data), page_checksum_verification=True)
            meta = dict(pf.metadata.metadata or {})
            table = pf.read(use_threads=False)
        except Exception as exc:  # a damaged file fails in pyarrow in many ways (OSError, Arrow, ValueError)
            raise _bad(path, f"unreadable batch file ({type(exc).__name__}: {exc})") from None
        return table, meta, data

    @staticmethod
    def _bytes(path: Path) -> bytes:
        try:
            return path.read_bytes()
        except FileNotFoundError:
            raise _bad(path, "batch file vanished while reading") from None
        except OSError as exc:
            raise _bad(path, f"unreadable batch file ({exc.strerror})") from None

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
        try:
            meta = dict(pq.ParquetFile(pa.BufferReader(data)).metadata.metadata or {})
        except Exception as exc:  # a damaged file fails in pyarrow in many ways (OSError, Arrow, ValueError)
            raise _bad(path, f"unreadable batch file ({type(exc).__name__}: {exc})") from None
        self._check_digest(path, data)
        return meta

    def head(self) -> Head:
        """The last seq and hash, from the newest batch's metadata (cheap: one footer)."""
        last = self._last_file()
        if last is None:
            return Head(0, GENESIS_HASH, None)
        meta = self._meta(last)
        if meta.get(b"kingdomlog.campaign", b"").decode(errors="replace") != self.campaign:
            raise CorruptLogError(f"batch metadata names another campaign (this is {self.campaign!r})", file=str(last))
        try:
            first = int(meta[b"kingdomlog.first_seq"])
            count = int(meta[b"kingdomlog.count"])
            last_hash = meta[b"kingdomlog.last_hash"].decode()
            file_sha = meta[FILE_SHA_KEY].decode()
        except (KeyError, ValueError):
            raise CorruptLogError("batch metadata is missing or damaged", file=str(last)) from None
        return Head(first + count - 1, last_hash, str(last), file_sha)

    def owner(self) -> str | None:
        """The campaign id the log's first batch was written for (one footer read), or None for an empty log."""
        files = self.files()
        if not files:
            return None
        raw = self._meta(files[0]).get(b"kingdomlog.campaign")
        if raw is None:
            raise CorruptLogError("batch metadata names no campaign", file=str(files[0]))
        return raw.decode(errors="replace")

    def read_table(self, *, full_verify: bool = False) -> pa.Table:
        """All events as one Arrow table in seq order, after checking the whole log.

        ``full_verify`` recomputes every event's hash even for files verified before.
        """
        tables = list(self.iter_tables(full_verify=full_verify))
        if not tables:
            return SCHEMA.empty_table()
        return pa.concat_tables(tables)

    def iter_tables(self, *, full_verify: bool = False) -> Iterator[pa.Table]:
        """Each batch as an Arrow table, in seq order, each checked before it is yielded.

        Memory stays at one batch: this is the streaming form of ``read_table`` (a fault
        in a later file is raised when the iteration reaches it).
        """
        verified = {} if full_verify else self._load_verified()
        newly: dict[str, Any] = {}
        expect_seq = 1
        prev_hash = GENESIS_HASH
        prev_file_sha = GENESIS_FILE_SHA
        recorded = self.recorded_head()
        on_chain = recorded is None or recorded.seq == 0
        for path in self.files():
            ent = verified.get(path.name)
            data = None
            if isinstance(ent, dict) and ent.get("first") == expect_seq and ent.get("prev_hash") == prev_hash \
                    and ent.get("prev_file") == prev_file_sha:
                # checked in full before: if every byte is still the same (its sha256), only decode it
                data = self._bytes(path)
                stored, actual = file_digest(data)
                if stored is not None and stored == actual == ent.get("digest"):
                    table = self._open(path, data)[0]
                    if table.num_rows == ent["count"]:
                        expect_seq += ent["count"]
                        prev_hash = ent["last_hash"]
                        prev_file_sha = ent["digest"]
                        on_chain = on_chain or (recorded is not None and recorded.seq == expect_seq - 1
                                                and recorded.hash == prev_hash)
                        yield table.select(list(COLUMNS))
                        continue
            table, meta, data = self._open(path, data)
            self._check_batch(path, table, meta, expect_seq, prev_hash)
            self._check_hashes(path, table)
            self._check_digest(path, data)
            if meta.get(PREV_FILE_SHA_KEY, b"").decode(errors="replace") != prev_file_sha:
                raise CorruptLogError("file chain broken: prev_file_sha256 does not match the previous batch file",
                                      file=str(path))
            newly[path.name] = _entry(table, meta)
            prev_file_sha = meta[FILE_SHA_KEY].decode()
            n = table.num_rows
            expect_seq += n
            prev_hash = table.column("hash")[n - 1].as_py()
            on_chain = on_chain or (recorded is not None and recorded.seq == expect_seq - 1
                                    and recorded.hash == prev_hash)
            yield table.select(list(COLUMNS))
        if newly and not full_verify:
            verified.update(newly)
            self._save_verified(verified)
        if on_chain:
            self._record_head(expect_seq - 1, prev_hash, recorded)

    def read_after(self, seq: int) -> TailRead:
        """Check the whole log, decoding only the events after ``seq``; for the warm snapshot path.

        A file entirely at or before ``seq`` whose bytes still have the sha256 recorded when it
        was last fully checked (``.cache/verified.json``; the digest pins every byte) and whose
        recorded chain links continue the previous file is not decoded again. Every other file
        gets every check of ``iter_tables``. Faults raise ``CorruptLogError`` as there.
        """
        verified = self._load_verified()
        newly: dict[str, Any] = {}
        tables: list[pa.Table] = []
        expect_seq = 1
        prev_hash = GENESIS_HASH
        prev_file_sha = GENESIS_FILE_SHA
        gone: set[str] = set()
        commits_upto: set[str] = set()
        hash_at: str | None = GENESIS_HASH if seq == 0 else None
        config: list[Any] | None = None
        recorded = self.recorded_head()
        on_chain = recorded is None or recorded.seq == 0
        for path in self.files():
            ent = verified.get(path.name)
            if isinstance(ent, dict) and ent.get("first") == expect_seq and \
                    ent["first"] + ent["count"] - 1 <= seq and ent.get("prev_file") == prev_file_sha \
                    and ent.get("prev_hash") == prev_hash:
                data = self._bytes(path)
                stored, actual = file_digest(data)
                if stored is not None and stored == actual == ent.get("digest"):
                    expect_seq += ent["count"]
                    prev_hash = ent["last_hash"]
                    prev_file_sha = ent["digest"]
                    gone.update(ent["retracts"])
                    commits_upto.add(ent["commit"])
                    if config is None:
                        config = ent.get("config")
                    if expect_seq - 1 == seq:
                        hash_at = prev_hash
                    on_chain = on_chain or (recorded is not None and recorded.seq == expect_seq - 1
                                            and recorded.hash == prev_hash)
                    continue
            table, meta, data = self._open(path)
            self._check_batch(path, table, meta, expect_seq, prev_hash)
            self._check_hashes(path, table)
            self._check_digest(path, data)
            if meta.get(PREV_FILE_SHA_KEY, b"").decode(errors="replace") != prev_file_sha:
                raise CorruptLogError("file chain broken: prev_file_sha256 does not match the previous batch file",
                                      file=str(path))
            e = _entry(table, meta)
            newly[path.name] = e
            gone.update(e["retracts"])
            if config is None:
                config = e.get("config")
            n = table.num_rows
            first = expect_seq
            if first <= seq:
                commits_upto.add(e["commit"])
            if first <= seq <= first + n - 1:
                hash_at = table.column("hash")[seq - first].as_py()
            if first + n - 1 > seq:
                start = max(0, seq + 1 - first)
                tables.append(table.select(list(COLUMNS)).slice(start))
            prev_file_sha = e["digest"]
            expect_seq += n
            prev_hash = e["last_hash"]
            on_chain = on_chain or (recorded is not None and recorded.seq == expect_seq - 1
                                    and recorded.hash == prev_hash)
        if newly:
            verified.update(newly)
            self._save_verified(verified)
        if on_chain:
            self._record_head(expect_seq - 1, prev_hash, recorded)
        tail = pa.concat_tables(tables) if tables else SCHEMA.empty_table()
        return TailRead(tail, expect_seq - 1, frozenset(gone), frozenset(commits_upto), hash_at, config)

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
        if meta.get(b"kingdomlog.campaign", b"").decode(errors="replace") != self.campaign:
            raise CorruptLogError(f"batch metadata names another campaign (this is {self.campaign!r})", file=f)
        schema = table.schema
        present = set(schema.names)
        missing = [c for c in COLUMNS if c not in present]
        if missing:
            raise CorruptLogError(f"batch lacks column(s) {', '.join(missing)}", file=f)
        for c, want in _TYPES:
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
        rows = table.select(list(COLUMNS)).to_pylist()
        for row in rows:
            try:
                ok = event_hash(row) == row["hash"]
            except (TypeError, ValueError) as exc:
                raise CorruptLogError(f"event cannot be hashed ({exc})", file=str(path), seq=row.get("seq")) from None
            if not ok:
                raise CorruptLogError("event altered: its hash does not match its content", file=str(path),
                                      seq=row["seq"])

    def _verified_path(self) -> Path | None:
        return self.cache_dir / "verified.json" if self.cache_dir else None

    def cached_config(self) -> list[Any] | None:
        """``[type, version, payload text]`` of seq 1 as recorded when the first file was last fully checked."""
        files = self.files()
        if not files:
            return None
        ent = self._load_verified().get(files[0].name)
        first = ent.get("config") if isinstance(ent, dict) else None
        return first if isinstance(first, list) else None

    def _load_verified(self) -> dict[str, Any]:
        """The signed record of fully checked files (by name); empty when absent, not ours or of another campaign."""
        p = self._verified_path()
        if p is None:
            return {}
        doc = keys.read_signed(p)
        if not isinstance(doc, dict) or doc.get("format") != VERIFIED_FORMAT or doc.get("campaign") != self.campaign:
            return {}
        files = doc.get("files")
        return files if isinstance(files, dict) else {}

    def _save_verified(self, data: dict[str, Any]) -> None:
        p = self._verified_path()
        if p is not None:  # the cache is an optimisation only: a failed write costs speed
            keys.write_signed(p, {"format": VERIFIED_FORMAT, "campaign": self.campaign, "files": data})

    # ---- the recorded head ---------------------------------------------------------------

    def _head_path(self) -> Path | None:
        return self.cache_dir / "head.json" if self.cache_dir else None

    def recorded_head(self) -> HeadRecord | None:
        """The head this folder's cache recorded (signed by this machine), or None."""
        p = self._head_path()
        doc = keys.read_signed(p) if p is not None else None
        if not isinstance(doc, dict) or doc.get("campaign") != self.campaign:
            return None
        try:
            return HeadRecord(int(doc["seq"]), str(doc["hash"]), str(doc.get("at", "")))
        except (KeyError, TypeError, ValueError):
            return None

    def _record_head(self, seq: int, hash_: str, recorded: HeadRecord | None) -> None:
        """Move the recorded head forward to ``seq`` (only forward: the caller checked it continues the record)."""
        p = self._head_path()
        if p is None or seq <= 0 or (recorded is not None and recorded.seq >= seq):
            return
        keys.write_signed(p, {"campaign": self.campaign, "seq": seq, "hash": hash_,
                              "at": datetime.now(UTC).isoformat(timespec="seconds")})

    def head_problem(self, hash_at: Callable[[int], str | None]) -> str | None:
        """What the recorded head says about the log, given ``hash_at(seq)`` (None past the end), or None if fine."""
        rec = self.recorded_head()
        if rec is None:
            return None
        have = hash_at(rec.seq)
        when = f" on {rec.at}" if rec.at else ""
        if have is None:
            return (f"the log ends before seq {rec.seq}, which this folder's cache recorded as its head{when}"
                    f" (hash {rec.hash[:16]}): events were removed (a deleted batch?). Restore the missing batch"
                    " files; if you restored an older copy of this campaign on purpose, delete .cache/head.json")
        if have != rec.hash:
            return (f"seq {rec.seq} is not the event this folder's cache recorded as its head{when} (hash"
                    f" {rec.hash[:16]}, now {have[:16]}): the log was replaced or rewritten from there on")
        return None

    def read(self, *, full_verify: bool = False) -> list[RecordedEvent]:
        """Every event, decoded and upcast (see ``decode_rows``)."""
        return decode_table(self.read_table(full_verify=full_verify))

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
        commit_id = commit_id or str(uuid.uuid4())
        when = (recorded_at or datetime.now(UTC)).astimezone(UTC)
        self.clean_temps()
        recorded = self.recorded_head()  # read before the head: a concurrent append only moves both forward
        head = self.head()
        if recorded is not None and (recorded.seq > head.seq or (recorded.seq == head.seq
                                                                 and recorded.hash != head.hash)):
            problem = self.head_problem(lambda s: head.hash if s == head.seq else None)
            raise StoreError(f"{self.dir}: nothing appended: {problem}")
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
        prev = head.hash
        rows: dict[str, list[Any]] = {c: [] for c in COLUMNS}
        for i, d in enumerate(drafts):
            stamp = stamps[i] if stamps is not None else None
            ev = record(d, campaign=self.campaign, seq=first + i, commit_id=commit_id, prev_hash=prev,
                        recorded_at=stamp.recorded_at.astimezone(UTC) if stamp else when,
                        event_id=stamp.event_id if stamp else str(uuid.uuid4()))
            prev = ev.hash
            env = ev.envelope()
            env["hash"] = ev.hash
            for c in COLUMNS:
                rows[c].append(env[c])
        meta = {
            FORMAT_KEY: str(FORMAT_VERSION).encode(),
            b"kingdomlog.first_seq": str(first).encode(),
            b"kingdomlog.count": str(len(drafts)).encode(),
            b"kingdomlog.commit_id": commit_id.encode(),
            b"kingdomlog.last_hash": prev.encode(),
            b"kingdomlog.campaign": self.campaign.encode(),
        }
        meta[FILE_SHA_KEY] = _SHA_PLACEHOLDER
        meta[PREV_FILE_SHA_KEY] = head.file_sha.encode()
        table = pa.Table.from_pydict(rows, schema=SCHEMA.with_metadata(meta))
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink, compression="zstd", write_statistics=False, write_page_checksum=True)
        data, _digest = seal(sink.getvalue().to_pybytes())
        final = self.dir / batch_name(first)
        tmp = self.dir / f"{TEMP_PREFIX}{os.getpid()}-{uuid.uuid4().hex}{TEMP_SUFFIX}"
        hook = FAULT_HOOK
        try:
            if hook is not None:
                hook("start")
            with open(tmp, "wb") as fh:
                fh.write(data)
                fh.flush()
                if hook is not None:
                    hook("temp_written")
                if SYNC:
                    os.fsync(fh.fileno())
            if hook is not None:
                hook("temp_synced")
            try:
                os.link(tmp, final)
            except FileExistsError:
                done = self._find_commit_at_file(str(final), commit_id)
                if done is not None:
                    return done
                raise ConflictError(head.seq if expect_seq is None else expect_seq, self.head().seq,
                                    "another writer took the same position") from None
            if hook is not None:
                hook("linked")
            if SYNC:
                _fsync_dir(self.dir)
            if hook is not None:
                hook("dir_synced")
        except OSError as exc:
            raise write_error(self.dir, exc, linked=final.exists() and self._holds_commit(final, commit_id)) \
                from None
        finally:
            with contextlib.suppress(OSError):
                tmp.unlink()
        if recorded is None or (recorded.seq == head.seq and recorded.hash == head.hash):
            self._record_head(first + len(drafts) - 1, prev, recorded)
        return AppendResult(commit_id, first, first + len(drafts) - 1, str(final))

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


@dataclass(frozen=True)
class TailRead:
    """What ``EventLog.read_after(seq)`` found: the rows after ``seq`` and facts about the rest."""

    table: pa.Table
    head_seq: int
    retracted: frozenset[str]  # commit ids named by any core.turn_retracted in the log
    commits_upto: frozenset[str]  # commit ids of batches starting at or before seq
    hash_at: str | None  # the hash of event ``seq`` (None if the log is shorter)
    config: list[Any] | None  # [type, version, payload text] of seq 1


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
        "commit": meta[b"kingdomlog.commit_id"].decode(), "retracts": retracts,
    }
    if first == 1:
        entry["config"] = [types[0], int(table.column("version")[0].as_py()), table.column("payload")[0].as_py()]
    return entry


def decode_rows(rows: Sequence[dict[str, Any]]) -> list[RecordedEvent]:
    """Decode stored rows into ``RecordedEvent`` (payloads validated and upcast)."""
    if not rows:
        return []
    return decode_table(pa.Table.from_pylist(list(rows), schema=SCHEMA))


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def decode_table(table: pa.Table) -> list[RecordedEvent]:
    """Decode an events table into ``RecordedEvent`` (payloads validated and upcast).

    Column-wise (one ``to_pylist`` per column, not a dict per row), and a payload stored at
    its type's current version is validated straight from its JSON text by pydantic; older
    versions, unknown types and invalid payloads go through ``decode_payload`` (upcasters,
    and the errors naming the seq).
    """
    n = table.num_rows
    if n == 0:
        return []
    col = {c: table.column(c).to_pylist() for c in COLUMNS if c != "recorded_at"}
    types, versions, payloads, seqs = col["type"], col["version"], col["payload"], col["seq"]
    # a batch shares one timestamp: convert each distinct microsecond count once
    micros = table.column("recorded_at").cast(pa.int64()).to_pylist()
    seen: dict[int, datetime] = {}
    stamps = [seen.get(m) or seen.setdefault(m, _EPOCH + timedelta(microseconds=m)) for m in micros]
    registry = event_types()
    out = []
    for i in range(n):
        t, v, text = types[i], int(versions[i]), payloads[i]
        cls = registry.get(t)
        payload: EventModel | None = None
        if cls is not None and v == cls.version:
            try:
                payload = cls.model_validate_json(text)
            except ValidationError:
                payload = None
        if payload is None:
            payload = decode_payload(t, v, text, seq=seqs[i])
        ts = stamps[i]
        out.append(
            RecordedEvent(
                campaign=col["campaign"][i], seq=seqs[i], turn=col["turn"][i], phase=col["phase"][i], type=t,
                version=v, actor=col["actor"][i], visibility=col["visibility"][i], payload=payload,
                payload_text=text, recorded_at=ts, event_id=col["event_id"][i], commit_id=col["commit_id"][i],
                prev_hash=col["prev_hash"][i], hash=col["hash"][i],
            )
        )
    return out
