"""Every check of a run of batch files at once: the verifying first read in bulk.

``EventLog.iter_tables`` checks a file it has no record of one file at a time (``EventLog._full``): decode it,
check its envelope, recompute each event's hash in Python, check its digest. On a log read for the first time
(a fresh clone, a new machine, no ``.cache/``) that is thousands of files, and the per-file and per-event Python
work is most of the read. ``check_run`` makes the same checks over many files together: each file's own digest
and footer as before, then the envelope of all their events as a few column-wise comparisons, and the canonical
text of every event (docs/log-format.md) built column-wise by Arrow, so that the only per-event Python left is
one sha256.

It decides only *accept*: when every check holds it returns the run's events as one table and the verified-record
entry of each file; when anything is off (a damaged file, a broken link, a text it would not build exactly as
``core.events.canonical_json`` does) it returns None, and the caller checks the same files one by one, which
finds and names the fault exactly as before. So the bulk path can never accept what the file-by-file path would
refuse: a run it accepts passed the same checks, on the very bytes whose digest it checked.
"""

from __future__ import annotations

import bisect
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kingdomlog.store import codec
from kingdomlog.store.codec import CAMPAIGN_KEY, COLUMNS, FILE_SHA_KEY, FORMAT_KEY, PREV_FILE_SHA_KEY, file_digest
from kingdomlog.store.witness import WITNESS_KEY

if TYPE_CHECKING:
    import pyarrow as pa

_STRINGS = ("actor", "campaign", "commit_id", "event_id", "payload", "phase", "prev_hash", "type", "visibility")
_CONTROL_BYTES = bytes(range(0x20))
"""What ``json.dumps`` escapes other than ``"`` and ``\\`` (as ``\\n``, ``\\u0001``, ...): a run holding any of
these in a hashed text is left to the file-by-file check, which escapes them with the canonical writer itself."""
_SPECIAL_BYTES = _CONTROL_BYTES + b'"\\'
_RETRACTED = "core.turn_retracted"


def check_run(campaign: str, items: Sequence[tuple[Path, bytes, Any]], expect_seq: int, prev_hash: str,
              prev_file_sha: str, *, format_version: int) -> tuple[pa.Table, list[dict[str, Any]]] | None:
    """The run's events as one table and each file's verified-record entry, when every check holds; else None.

    ``items`` are (path, bytes, identity to record or None) of consecutive batch files; ``expect_seq``,
    ``prev_hash`` and ``prev_file_sha`` are where the walk is before the first. The checks are those of
    ``EventLog._full`` for each file: its own sha256, Parquet page CRCs, format version, campaign, the columns and
    their types, name = first seq = the footer's, the footer's count, commit id and last hash, gapless seqs,
    one campaign and one commit id per batch, the hash chain across events and files, each event's hash
    recomputed, and the file chain (``prev_file_sha256``).
    """
    p = codec.pa()
    import pyarrow.parquet as pq

    want = codec.schema()
    tables: list[pa.Table] = []
    files: list[dict[str, Any]] = []
    seq = expect_seq
    file_sha = prev_file_sha
    for path, data, pinned in items:
        stored, actual = file_digest(data)
        if stored is None or stored != actual:
            return None
        try:
            pf = pq.ParquetFile(p.BufferReader(data), page_checksum_verification=True)
            meta = dict(pf.metadata.metadata or {})
            table = pf.read(use_threads=False)
            fmt = int(meta[FORMAT_KEY])
            first = int(meta[b"kingdomlog.first_seq"])
            count = int(meta[b"kingdomlog.count"])
            commit = meta[b"kingdomlog.commit_id"].decode()
            last_hash = meta[b"kingdomlog.last_hash"].decode()
            digest = meta[FILE_SHA_KEY].decode()
        except Exception:  # a damaged file: the file-by-file check names what is wrong
            return None
        if fmt > format_version or meta.get(CAMPAIGN_KEY, b"").decode(errors="replace") != campaign \
                or first != seq or path.name != f"{first:012d}.parquet" or count != table.num_rows or count < 1 \
                or digest != stored or meta.get(PREV_FILE_SHA_KEY, b"").decode(errors="replace") != file_sha \
                or not table.schema.equals(want, check_metadata=False):
            return None
        entry: dict[str, Any] = {"digest": digest, "first": first, "count": count, "last_hash": last_hash,
                                 "prev_file": file_sha, "commit": commit, "retracts": [],
                                 "witness": WITNESS_KEY in meta}
        if pinned is not None:
            entry["stat"] = pinned
        files.append(entry)
        tables.append(table.replace_schema_metadata(None))
        seq += count
        file_sha = digest
    if not tables:
        return None
    table = p.concat_tables(tables).combine_chunks()
    try:
        if not _rows_hold(table, campaign, expect_seq, prev_hash, files):
            return None
    except (p.ArrowException, ValueError, TypeError, UnicodeDecodeError):
        return None
    return table, files


def _rows_hold(table: pa.Table, campaign: str, expect_seq: int, prev_hash: str, files: list[dict[str, Any]]) -> bool:
    """Whether the events of the run (``table``, its files' entries ``files``) pass every check of their rows."""
    p = codec.pa()
    pc = _Compute()
    n = table.num_rows
    col = {c: table.column(c).chunk(0) if table.column(c).num_chunks == 1 else table.column(c).combine_chunks()
           for c in COLUMNS}

    def every(mask: Any) -> bool:
        return bool(pc.all(mask, skip_nulls=False).as_py())

    for c in COLUMNS:
        if c != "phase" and col[c].null_count:
            return False
    for c in _STRINGS:  # valid UTF-8, as the writer encoded it
        col[c].validate(full=True)
    counts = [f["count"] for f in files]
    starts = [0]
    for k in counts[:-1]:
        starts.append(starts[-1] + k)
    ends = [s + k - 1 for s, k in zip(starts, counts, strict=True)]
    per_row = p.array([i for i, k in enumerate(counts) for _ in range(k)], p.int32())
    if not every(pc.equal(col["seq"], p.array(range(expect_seq, expect_seq + n), p.int64()))):
        return False
    if not every(pc.equal(col["campaign"], campaign)):
        return False
    if not every(pc.equal(col["commit_id"], pc.take(p.array([f["commit"] for f in files], p.string()), per_row))):
        return False
    prevs, hashes = col["prev_hash"], col["hash"]
    if prevs[0].as_py() != prev_hash or (n > 1 and not every(pc.equal(prevs.slice(1), hashes.slice(0, n - 1)))):
        return False
    if pc.take(hashes, p.array(ends, p.int64())).to_pylist() != [f["last_hash"] for f in files]:
        return False
    # each event's hash, over the canonical text of its envelope (codec.hash_text), built column-wise
    esc = {c: _escaped(col[c]) for c in _STRINGS}
    if any(v is None for v in esc.values()):
        return False
    when = col["recorded_at"]
    stamps = pc.unique(when)
    stamp_text = p.array([t.isoformat() for t in stamps.to_pylist()], p.string())
    parts = [
        '{"actor":"', esc["actor"], '","campaign":"', esc["campaign"], '","commit_id":"', esc["commit_id"],
        '","event_id":"', esc["event_id"], '","payload":"', esc["payload"], '","phase":',
        pc.fill_null(pc.binary_join_element_wise('"', esc["phase"], '"', ""), "null"), ',"prev_hash":"',
        esc["prev_hash"], '","recorded_at":"', pc.take(stamp_text, pc.index_in(when, stamps)), '","seq":',
        pc.cast(col["seq"], p.string()), ',"turn":', pc.cast(col["turn"], p.string()), ',"type":"', esc["type"],
        '","version":', pc.cast(col["version"], p.string()), ',"visibility":"', esc["visibility"], '"}',
    ]
    text = pc.binary_join_element_wise(*parts, "")
    if text.null_count or text.type != p.string():
        return False
    _valid, offsets_buf, data_buf = text.buffers()
    offsets = memoryview(offsets_buf).cast("i")[text.offset:text.offset + n + 1]
    data = memoryview(data_buf)
    sha256 = hashlib.sha256
    got = [sha256(data[offsets[i]:offsets[i + 1]]).hexdigest() for i in range(n)]
    if got != hashes.to_pylist():
        return False
    # what the verified record keeps of each file: the commits its retractions name, the campaign's configuration
    for i in pc.indices_nonzero(pc.equal(col["type"], _RETRACTED)).to_pylist():
        try:
            named = json.loads(col["payload"][i].as_py()).get("commit_ids", [])
        except (ValueError, AttributeError):
            return False
        if not isinstance(named, list):
            return False
        files[bisect.bisect_right(starts, i) - 1]["retracts"] += named
    for f, s in zip(files, starts, strict=True):
        f["prev_hash"] = prevs[s].as_py()
        if f["first"] == 1:
            f["config"] = [col["type"][s].as_py(), int(col["version"][s].as_py()), col["payload"][s].as_py()]
    return True


class _Compute:
    """The few Arrow compute functions the check uses, called through ``pyarrow._compute`` (what
    ``pyarrow.compute`` wraps): importing ``pyarrow.compute`` itself costs 35-100 ms (it writes the docstrings
    of its 280 wrappers), more than a first read of a few hundred files saves."""

    def __init__(self) -> None:
        import pyarrow._compute as c

        self.c = c
        self.p = codec.pa()

    def _call(self, name: str, args: Sequence[Any], options: Any = None) -> Any:
        p = self.p
        return self.c.call_function(name, [p.scalar(a, p.string()) if isinstance(a, str) else a for a in args],
                                    options)

    def all(self, mask: Any, skip_nulls: bool = True) -> Any:
        return self._call("all", [mask], self.c.ScalarAggregateOptions(skip_nulls=skip_nulls))

    def any(self, mask: Any) -> Any:
        return self._call("any", [mask])

    def equal(self, a: Any, b: Any) -> Any:
        return self._call("equal", [a, b])

    def take(self, values: Any, indices: Any) -> Any:
        return self._call("take", [values, indices])

    def unique(self, values: Any) -> Any:
        return self._call("unique", [values])

    def index_in(self, values: Any, value_set: Any) -> Any:
        return self._call("index_in", [values], self.c.SetLookupOptions(value_set))

    def cast(self, values: Any, to: Any) -> Any:
        return self._call("cast", [values], self.c.CastOptions.safe(to))

    def fill_null(self, values: Any, fill: str) -> Any:
        return self._call("coalesce", [values, fill])

    def binary_join_element_wise(self, *args: Any) -> Any:
        return self._call("binary_join_element_wise", args)

    def indices_nonzero(self, values: Any) -> Any:
        return self._call("indices_nonzero", [values])

    def replace_substring(self, values: Any, pattern: str, replacement: str) -> Any:
        return self._call("replace_substring", [values], self.c.ReplaceSubstringOptions(pattern, replacement))


def _text_bytes(values: Any) -> bytes:
    """The UTF-8 bytes of every text of a string array, end to end (from its data buffer, without a copy per text)."""
    if len(values) == 0:
        return b""
    _valid, offsets, data = values.buffers()
    if data is None:
        return b""
    at = memoryview(offsets).cast("i")
    return bytes(memoryview(data)[at[values.offset]:at[values.offset + len(values)]])


def _escaped(values: Any) -> Any:
    """Each text as the inside of a JSON string (``"`` and ``\\`` escaped), or None when one holds a character
    ``json.dumps`` escapes otherwise (``\\n``, ``\\u0001``, ...; such a run is left to the file-by-file check).

    Which characters a column holds is read off its bytes in one pass each (``bytes.translate``: UTF-8 writes a
    character below U+0080 as that byte, and no byte of another character's encoding is below 0x80).
    """
    raw = _text_bytes(values)
    if len(raw.translate(None, _SPECIAL_BYTES)) == len(raw):
        return values
    if len(raw.translate(None, _CONTROL_BYTES)) != len(raw):
        return None
    # each kernel only over a column holding its character: a payload (JSON) always holds quotes and rarely a
    # backslash, and a kernel costs ~0.8 ms per 4,096-event run whether it replaces anything or not (issue 31)
    pc = _Compute()
    if b"\\" in raw:  # the backslashes first, so that the ones escaping quotes are not doubled
        values = pc.replace_substring(values, "\\", "\\\\")
    if b'"' in raw:
        values = pc.replace_substring(values, '"', '\\"')
    return values


__all__ = ["check_run"]
