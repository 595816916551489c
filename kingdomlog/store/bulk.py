"""Every check of a run of batch files at once: the verifying first read in bulk.

``EventLog.iter_tables`` checks a file it has no record of one file at a time (``EventLog._full``): decode it,
check its envelope, recompute each event's hash in Python, check its digest. On a log read for the first time
(a fresh clone, a new machine, no ``.cache/``) that is thousands of files, and the per-file and per-event Python
work is most of the read. ``check_run`` makes the same checks over many files together: each file's own digest
and footer as before, then the envelope of all their events as a few column-wise comparisons, and the canonical
text of every event (docs/log-format.md) built column-wise by Arrow, so that the only per-event Python left is
one sha256. The files of a run laid out as the log's writer lays a batch out (each column chunk one data page
of the file's rows) are decoded by Parquet in one call, their pages put one after another into one row group
(``_decode_merged``); the files of any other run are decoded file by file (``_decode_each``).

It decides only *accept*: when every check holds it returns the run's events as one table and the verified-record
entry of each file; when anything is off (a damaged file, a broken link, a text it would not build exactly as
``core.events.canonical_json`` does) it returns None, and the caller checks the same files one by one, which
finds and names the fault exactly as before. So the bulk path can never accept what the file-by-file path would
refuse: a run it accepts passed the same checks, on the very bytes whose digest it checked.
"""

from __future__ import annotations

import array
import bisect
import hashlib
import itertools
import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
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
_CONTROL_SINGLES = tuple(bytes((b,)) for b in _CONTROL_BYTES)
_RETRACTED = "core.turn_retracted"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_ARROW_SCHEMA = b"ARROW:schema"
_Decoded = tuple["pa.Table", list[dict[bytes, bytes]], list[int]]
"""A run's events as one table, each file's footer key-value metadata and each file's number of rows."""
Column = tuple[int, str, int, int, int]
"""A column chunk of a row group: its physical type, path, codec, size and offset (``_merged_footer``)."""
Group = tuple["bytes | memoryview", list[Column], int, bytes, str]
"""A row group as Parquet bytes: its column chunks end to end, each column's chunk (offset from the start of these
bytes), its rows, and the schema (``_schema_prefix``) and ``created_by`` of the footer its pages are read under."""


def check_run(campaign: str, items: Sequence[tuple[Path, bytes, Any]], expect_seq: int, prev_hash: str,
              prev_file_sha: str, *, format_version: int) -> tuple[pa.Table, list[dict[str, Any]], Group | None] | None:
    """The run's events as one table, each file's verified-record entry and, when the run was decoded in one
    Parquet call, its pages as one row group (``Group``: what the compacted segment is written from, without
    encoding the table again); None unless every check holds.

    ``items`` are (path, bytes, identity to record or None) of consecutive batch files; ``expect_seq``,
    ``prev_hash`` and ``prev_file_sha`` are where the walk is before the first. The checks are those of
    ``EventLog._full`` for each file: its own sha256, Parquet page CRCs, format version, campaign, the columns and
    their types, name = first seq = the footer's, the footer's count, commit id and last hash, gapless seqs,
    one campaign and one commit id per batch, the hash chain across events and files, each event's hash
    recomputed, and the file chain (``prev_file_sha256``). The digests are checked before anything is decoded.
    """
    p = codec.pa()
    if not items:
        return None
    stored_digests: list[str] = []
    for _path, data, _pinned in items:  # every file's own digest first: the bytes decoded are the bytes checked
        stored, actual = file_digest(data)
        if stored is None or stored != actual:
            return None
        stored_digests.append(stored)
    groups: list[Group] = []
    decoded = _decode_merged(items, groups) or _decode_each(items)
    if decoded is None:
        return None
    table, metas, counts = decoded
    files: list[dict[str, Any]] = []
    seq = expect_seq
    file_sha = prev_file_sha
    for (path, _data, pinned), meta, count, stored in zip(items, metas, counts, stored_digests, strict=True):
        try:
            fmt = int(meta[FORMAT_KEY])
            first = int(meta[b"kingdomlog.first_seq"])
            footer_count = int(meta[b"kingdomlog.count"])
            commit = meta[b"kingdomlog.commit_id"].decode()
            last_hash = meta[b"kingdomlog.last_hash"].decode()
            digest = meta[FILE_SHA_KEY].decode()
        except Exception:  # a damaged footer: the file-by-file check names what is wrong
            return None
        if fmt > format_version or meta.get(CAMPAIGN_KEY, b"").decode(errors="replace") != campaign \
                or first != seq or path.name != f"{first:012d}.parquet" or footer_count != count or count < 1 \
                or digest != stored or meta.get(PREV_FILE_SHA_KEY, b"").decode(errors="replace") != file_sha:
            return None
        entry: dict[str, Any] = {"digest": digest, "first": first, "count": count, "last_hash": last_hash,
                                 "prev_file": file_sha, "commit": commit, "retracts": [],
                                 "witness": WITNESS_KEY in meta}
        if pinned is not None:
            entry["stat"] = pinned
        files.append(entry)
        seq += count
        file_sha = digest
    if not table.schema.equals(codec.schema(), check_metadata=False):
        return None
    if any(table.column(c).num_chunks != 1 for c in COLUMNS):
        table = table.combine_chunks()
    try:
        if not _rows_hold(table, campaign, expect_seq, prev_hash, files):
            return None
    except (p.ArrowException, ValueError, TypeError, UnicodeDecodeError):
        return None
    return table, files, groups[0] if groups else None


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
    # the seqs as their int64 values end to end (no nulls: checked above), against the run's range: ~15 us a
    # 4,096-event run where an Arrow array of the range and a comparison took ~280
    if _values(col["seq"], 8) != array.array("q", range(expect_seq, expect_seq + n)).tobytes():
        return False
    if not every(pc.equal(col["campaign"], campaign)):
        return False
    if col["commit_id"].to_pylist() != [c for f in files for c in [f["commit"]] * f["count"]]:
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
    # each distinct time as datetime.isoformat writes it, from its microseconds (as codec.decode_table makes the
    # datetime: ~4 us a time where pyarrow's conversion of a zoned timestamp took ~40)
    stamp_text = p.array([(_EPOCH + timedelta(microseconds=m)).isoformat()
                          for m in stamps.view(p.int64()).to_pylist()], p.string())
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
    offsets = memoryview(offsets_buf).cast("i")[text.offset:text.offset + n + 1].tolist()
    texts = bytes(memoryview(data_buf)[:offsets[-1]])  # one copy of the run's texts: a slice of bytes is cheaper
    sha256 = hashlib.sha256  # to make than one of a memoryview (~1.7 against ~1.9 ms a 4,096-event run)
    got = [sha256(texts[a:b]).hexdigest() for a, b in itertools.pairwise(offsets)]
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


def _values(values: Any, width: int) -> memoryview:
    """The bytes of a fixed-width array's values (``width`` bytes each), from its data buffer, without a copy (as
    unsigned bytes: compared with ``bytes``, each byte is then the same number)."""
    _valid, data = values.buffers()
    return memoryview(data).cast("B")[values.offset * width:(values.offset + len(values)) * width]


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

    Which characters a column holds is read off its bytes (UTF-8 writes a character below U+0080 as that byte,
    and no byte of another character's encoding is below 0x80), each of the 34 looked for by ``bytes.__contains__``
    (memchr): 0.33 against 0.50 ms a 4,100-event run for ``bytes.translate``, which copies the column once or
    twice (issue 31).
    """
    raw = _text_bytes(values)
    for byte in _CONTROL_SINGLES:
        if byte in raw:
            return None
    backslash, quote = b"\\" in raw, b'"' in raw
    if not (backslash or quote):
        return values
    # each kernel only over a column holding its character: a payload (JSON) always holds quotes and rarely a
    # backslash, and a kernel costs ~0.8 ms per 4,096-event run whether it replaces anything or not (issue 31)
    pc = _Compute()
    if backslash:  # the backslashes first, so that the ones escaping quotes are not doubled
        values = pc.replace_substring(values, "\\", "\\\\")
    if quote:
        values = pc.replace_substring(values, '"', '\\"')
    return values



def _decode_each(items: Sequence[tuple[Path, bytes, Any]]) -> _Decoded | None:
    """The run's events decoded file by file (each with its own footer, as ``EventLog._full`` decodes one), each
    file's footer key-value metadata and number of rows; None when a file cannot be decoded or its columns are
    not the log's (the file-by-file check then names what is wrong)."""
    import pyarrow.parquet as pq

    p = codec.pa()
    want = codec.schema()
    tables: list[pa.Table] = []
    metas: list[dict[bytes, bytes]] = []
    for _path, data, _pinned in items:
        try:
            pf = pq.ParquetFile(p.BufferReader(data), page_checksum_verification=True)
            metas.append(dict(pf.metadata.metadata or {}))
            table = pf.read(use_threads=False)
        except Exception:  # a damaged file: the file-by-file check names what is wrong
            return None
        if not table.schema.equals(want, check_metadata=False):
            return None
        tables.append(table.replace_schema_metadata(None))
    return p.concat_tables(tables).combine_chunks(), metas, [t.num_rows for t in tables]


# ---- one Parquet decode for the whole run ------------------------------------------------------

_PHYSICAL = {"BOOLEAN": 0, "INT32": 1, "INT64": 2, "INT96": 3, "FLOAT": 4, "DOUBLE": 5, "BYTE_ARRAY": 6,
             "FIXED_LEN_BYTE_ARRAY": 7}
_CODECS = {"UNCOMPRESSED": 0, "SNAPPY": 1, "GZIP": 2, "LZO": 3, "BROTLI": 4, "LZ4": 5, "ZSTD": 6, "LZ4_RAW": 7}
_VARINT = rb"[\x80-\xff]{0,4}[\x00-\x7f]"
_DATA_PAGE = re.compile(
    rb"\x15\x00\x15" + _VARINT + rb"\x15(" + _VARINT + rb")\x15" + _VARINT + rb"\x1c\x15(" + _VARINT
    + rb")\x15\x00\x15\x06\x15\x06(?:\x1c\x00)?\x00\x00", re.DOTALL)
"""The one page header a batch file's column chunk holds, as pyarrow writes it (``log.WRITE_OPTIONS``): Thrift's
compact encoding of a ``PageHeader`` of type DATA_PAGE (v1) with its uncompressed size, compressed size (group 1),
CRC and a ``DataPageHeader``: its number of values (group 2), PLAIN values, RLE levels and empty statistics."""


_ZIGZAG: dict[int, bytes] = {}


def _zz(n: int) -> bytes:
    """``_zigzag(n)``, kept per value (a run's files share most of their sizes)."""
    got = _ZIGZAG.get(n)
    if got is None:
        got = _ZIGZAG[n] = _zigzag(n) if n >= 0 else b""
    return got


def _zigzag(n: int) -> bytes:
    """A non-negative ``n`` as Thrift's compact protocol writes an integer: zigzag, then a varint."""
    return _uleb(n << 1)


def _footer(data: bytes | memoryview) -> bytes | None:
    n = int.from_bytes(data[-8:-4], "little")
    if data[-4:] != b"PAR1" or n + 12 > len(data):
        return None
    return bytes(data[-8 - n:-8])


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    """The unsigned varint starting at ``buf[i]`` and where it ends (IndexError past the end)."""
    n = shift = 0
    while True:
        x = buf[i]
        i += 1
        n |= (x & 0x7F) << shift
        shift += 7
        if not x & 0x80:
            return n, i


def _skip(buf: bytes, i: int, kind: int) -> int:
    """Where the compact-Thrift value of type ``kind`` starting at ``buf[i]`` ends (IndexError past the end)."""
    if kind in (1, 2):
        return i
    if kind == 3:
        return i + 1
    if kind in (4, 5, 6):
        while buf[i] & 0x80:
            i += 1
        return i + 1
    if kind == 7:
        return i + 8
    if kind == 8:
        n, i = _varint(buf, i)
        return i + n
    if kind in (9, 10):
        head = buf[i]
        i += 1
        size, elem = head >> 4, head & 0x0F
        if size == 15:
            size, i = _varint(buf, i)
        for _ in range(size):
            i = _skip(buf, i, elem)
        return i
    if kind == 12:
        while True:
            head = buf[i]
            i += 1
            if head == 0:
                return i
            if head >> 4 == 0:  # a long field header: the field id follows as a zigzag varint
                i = _skip(buf, i, 4)
            i = _skip(buf, i, head & 0x0F)
    raise ValueError(f"compact thrift type {kind} not expected in a batch file's footer")


def _schema_prefix(footer: bytes) -> bytes | None:
    """The footer's fields 1 and 2 (``FileMetaData.version`` and ``schema``), as they are written, if it opens with
    them (with short field headers)."""
    try:
        if footer[0] != 0x15:
            return None
        i = _skip(footer, 1, 5)
        if footer[i] != 0x19:
            return None
        return footer[:_skip(footer, i + 1, 9)]
    except (IndexError, ValueError, RecursionError):
        return None


def _list_head(n: int, kind: int) -> bytes:
    """The header of a compact-Thrift list of ``n`` elements of type ``kind``."""
    return bytes([(n << 4) | kind]) if n < 15 else bytes([0xF0 | kind]) + _uleb(n)


def _merged_footer(prefix: bytes, groups: list[tuple[int, list[tuple[int, str, int, int, int]]]],
                   created_by: str) -> bytes:
    """A ``FileMetaData``: the schema ``prefix`` (fields 1 and 2, copied from a batch file), then each row group's
    rows and its columns' (physical type, path, codec, size, offset) of their chunks (no statistics, no
    key-value metadata)."""
    out = [prefix, b"\x16", _zigzag(sum(rows for rows, _ in groups)), b"\x19", _list_head(len(groups), 0x0C)]
    for rows, columns in groups:
        out += [b"\x19", _list_head(len(columns), 0x0C)]
        total = 0
        for physical, path, codec_id, size, offset in columns:
            name = path.encode()
            out += [b"\x26", _zigzag(offset), b"\x1c\x15", _zigzag(physical), b"\x19\x25\x00\x06\x19\x18",
                    _uleb(len(name)), name, b"\x15", _zigzag(codec_id), b"\x16", _zigzag(rows), b"\x16",
                    _zigzag(size), b"\x16", _zigzag(size), b"\x26", _zigzag(offset), b"\x00\x00"]
            total += size
        out += [b"\x16", _zigzag(total), b"\x16", _zigzag(rows), b"\x00"]
    by = created_by.encode()
    out += [b"\x28", _uleb(len(by)), by, b"\x00"]
    return b"".join(out)


def _uleb(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_I64 = rb"([\x80-\xff]{0,9}[\x00-\x7f])"
_COLUMN_FIELDS = frozenset({1, 2, 3, 4, 5, 6, 7, 9, 13, 16})
"""The ``ColumnMetaData`` fields a batch file's footer may hold for ``_FooterForm``: type, encodings, path, codec,
number of values, sizes, data page offset, encoding and size statistics (no dictionary or index page, no
statistics, no key-value metadata)."""


class _FooterForm:
    """The footer of a run's first batch file as a form the other files' footers are read by, without pyarrow.

    pyarrow's footer parse and its metadata objects cost ~60 us a file (issue 31: ~0.12 s of a first read of
    2,001 files). The files of a run come from one writer: their footers are the same bytes but for their
    64-bit integers (rows, sizes, offsets, statistics) and their key-value pairs. The form is the first footer's
    fields 3 and 4 (rows and row groups) as a regular expression with every other byte as it is and each 64-bit
    integer (a zigzag varint, self-delimiting) a group; then the key-value pairs, read one by one; then the rest
    (``created_by``, column orders) as the first file's bytes. A footer that differs anywhere else (a codec, a
    type, a path, a dictionary page, one more field) does not match and is read by pyarrow as before; the first
    file itself always is, so its column types and codecs are checked as before (``_decode_merged``).
    """

    def __init__(self, prefix: bytes, rx: re.Pattern[bytes], picks: list[int], rows: tuple[int, int],
                 tail: bytes) -> None:
        self.prefix, self.rx, self.picks, self.rows, self.tail = prefix, rx, picks, rows, tail

    @classmethod
    def of(cls, footer: bytes | None, start: int) -> _FooterForm | None:
        """The form of ``footer`` from ``start`` (the end of its schema prefix); None when it is not one."""
        if footer is None:
            return None
        out: list[bytes] = []
        labels: list[tuple[int, ...]] = []

        def value(i: int, kind: int, path: tuple[int, ...]) -> int:
            if kind == 6:  # a 64-bit integer: a group
                j = _skip(footer, i, 6)
                out.append(_I64)
                labels.append(path)
                return j
            if kind in (9, 10):
                head = footer[i]
                size, elem = head >> 4, head & 0x0F
                j = i + 1
                if size == 15:
                    size, j = _varint(footer, j)
                out.append(re.escape(footer[i:j]))
                for x in range(size):
                    j = value(j, elem, (*path, x))
                return j
            if kind == 12:
                fid = 0
                while True:
                    head = footer[i]
                    out.append(re.escape(footer[i:i + 1]))
                    if head == 0:
                        return i + 1
                    if head >> 4 == 0:
                        raise ValueError("a long field header")
                    fid += head >> 4
                    # a column's metadata (row groups > 0 > columns > x > 3) holds only the fields known here
                    if len(path) == 5 and path[4] == 3 and fid not in _COLUMN_FIELDS:
                        raise ValueError(f"column field {fid}")
                    i = value(i + 1, head & 0x0F, (*path, fid))
            j = _skip(footer, i, kind)
            out.append(re.escape(footer[i:j]))
            return j

        try:
            i, fid = start, 2
            while fid < 4:  # fields 3 (rows) and 4 (row groups), short headers
                head = footer[i]
                if head >> 4 == 0:
                    return None
                fid += head >> 4
                if fid > 4:
                    return None
                out.append(re.escape(footer[i:i + 1]))
                i = value(i + 1, head & 0x0F, (fid,))
            if fid != 4 or footer[i:i + 1] != b"\x19":  # the key-value pairs follow
                return None
            kv_end = _skip(footer, i + 1, 9)
        except (IndexError, ValueError, RecursionError):
            return None
        groups = {label: k for k, label in enumerate(labels, 1)}
        try:
            rows = (groups[(3,)], groups[(4, 0, 3)])
            picks = [groups[(4, 0, 1, x, 3, f)] for x in range(len(COLUMNS)) for f in (5, 7, 9)]
        except KeyError:
            return None
        if (4, 1) in {label[:2] for label in labels}:  # one row group only
            return None
        src = b"".join(out)
        rx = _FORMS.get(src)
        if rx is None:
            if len(_FORMS) >= 32:  # the forms of a few writers are kept (compiling one costs ~1 ms)
                _FORMS.clear()
            rx = _FORMS[src] = re.compile(src, re.DOTALL)
        return cls(footer[:start], rx, picks, rows, footer[kv_end:])

    def read(self, footer: bytes | None) -> tuple[int, dict[bytes, bytes], list[tuple[bytes, int, int]]] | None:
        """A footer of this form: its rows, key-value pairs and each column's (number of values as written, size,
        data page offset); None when it is not of this form."""
        if footer is None or not footer.startswith(self.prefix):
            return None
        try:
            return self._read(footer)
        except IndexError:  # a footer that ends early
            return None

    def _read(self, footer: bytes) -> tuple[int, dict[bytes, bytes], list[tuple[bytes, int, int]]] | None:
        m = self.rx.match(footer, len(self.prefix))
        if m is None:
            return None
        n_file, n_group = m.group(*self.rows)
        if n_file != n_group:
            return None
        got = m.group(*self.picks)
        i = m.end()
        if footer[i] != 0x19:
            return None
        head = footer[i + 1]
        size = head >> 4
        if head & 0x0F != 0x0C or size == 15:
            return None
        i += 2
        meta: dict[bytes, bytes] = {}
        for _ in range(size):  # each pair: two short strings (lengths below 128)
            if footer[i] != 0x18 or footer[i + 1] > 0x7F:
                return None
            j = i + 2 + footer[i + 1]
            key = footer[i + 2:j]
            if footer[j] != 0x18 or footer[j + 1] > 0x7F or key in meta:
                return None
            i = j + 2 + footer[j + 1]
            meta[key] = footer[j + 2:i]
            if footer[i:i + 1] != b"\x00":
                return None
            i += 1
        if footer[i:] != self.tail:
            return None
        cols = [(got[k], _unzz(got[k + 1]), _unzz(got[k + 2])) for k in range(0, len(got), 3)]
        return _unzz(n_group), meta, cols


_FORMS: dict[bytes, re.Pattern[bytes]] = {}
_UNZZ: dict[bytes, int] = {}


def _unzz(raw: bytes) -> int:
    """The integer a zigzag varint's bytes hold (``_zigzag``'s inverse), kept per bytes."""
    got = _UNZZ.get(raw)
    if got is None:
        if len(_UNZZ) >= 1 << 16:  # sizes and offsets recur from file to file; kept for a few runs' worth
            _UNZZ.clear()
        n, _end = _varint(raw, 0)
        got = _UNZZ[raw] = (n >> 1) ^ -(n & 1)
    return got


def _one_page(data: bytes, view: memoryview, at: int, size: int, want_n: bytes) -> memoryview | None:
    """The column chunk of ``size`` bytes at ``at`` of a file (``view`` of ``data``), when it is exactly one data page
    (``_DATA_PAGE``) whose header counts the file's rows (``want_n``, as the header writes it) and whose stored size
    is the rest of the chunk; else None."""
    m = _DATA_PAGE.match(data, at)
    if m is None or at < 4 or at + size > len(data):
        return None
    stored_size, values = m.groups()
    if values != want_n or stored_size != _zz(size - m.end() + at):
        return None
    return view[at:at + size]


def _decode_merged(items: Sequence[tuple[Path, bytes, Any]], keep: list[Group] | None = None) -> _Decoded | None:
    """The run's events decoded by Parquet in one call, and each file's footer key-value metadata; None unless
    every file is laid out as the log's writer lays a batch out (then the caller decodes file by file). The row
    group decoded is added to ``keep`` (when given).

    Each column chunk of a batch file is one data page (``_DATA_PAGE``) whose values are the file's rows. The
    pages of each column, taken from every file at the place its own footer names, are put one after another
    into one column chunk of a new Parquet buffer with one row group: Parquet decodes each page as it would in
    its own file (the same bytes, schema, codec and page CRC), ~25 instead of ~125 us a 50-event file, and a
    chunk that is not exactly one such page of the file's rows (as its footer and page header say) is never
    merged. The bytes are those whose digest the caller checked. The footers of the files after the first are read
    by the first's form (``_FooterForm``) where they are of it, by pyarrow otherwise (~12 against ~60 us a file).
    """
    import pyarrow._parquet as _pq  # pyarrow.parquet imports it: there whenever pyarrow reads Parquet
    import pyarrow.parquet as pq

    p = codec.pa()
    first = _footer(items[0][1])
    prefix = _schema_prefix(first) if first is not None else None
    if prefix is None:
        return None
    metas: list[dict[bytes, bytes]] = []
    counts: list[int] = []
    chunks: list[list[memoryview]] = []
    shape: list[tuple[int, str, int]] = []
    created_by = ""
    rows = 0
    # pyarrow's own reader class, as pq.read_metadata uses it, without the wrapper's path handling (~30 instead of
    # ~39 us a file); it is not public: a pyarrow without it is read through pq.read_metadata
    reader = getattr(_pq, "ParquetReader", None)
    form: _FooterForm | None = None
    for _path, data, _pinned in items:
        if form is not None:  # the footer read as the first one's form (``_FooterForm``), else by pyarrow below
            fast = form.read(_footer(data))
            if fast is not None:
                n, meta, cols = fast
                if _ARROW_SCHEMA in meta:
                    return None
                view = memoryview(data)
                want_n = _zz(n)
                for k, (values_at, size, at) in enumerate(cols):
                    page = _one_page(data, view, at, size, want_n)
                    if page is None or values_at != want_n:
                        return None
                    chunks[k].append(page)
                metas.append(meta)
                counts.append(n)
                rows += n
                continue
        try:
            if reader is not None:
                r = reader()
                r.open(p.BufferReader(data))
                md = r.metadata
            else:
                md = pq.read_metadata(p.BufferReader(data))
        except Exception:  # a damaged file: the file-by-file check names what is wrong
            return None
        if md.num_row_groups != 1:
            return None
        meta = dict(md.metadata or {})
        if _ARROW_SCHEMA in meta:
            return None  # the Arrow schema it holds decides its columns' types: decoded with it, file by file
        rg = md.row_group(0)
        n = rg.num_rows
        # the schema compared as the footer's bytes (``md.schema`` would make a reference cycle per file, and a
        # first read holds the cyclic collector off: ~55 MB more resident at 100,000 events)
        footer = _footer(data)
        if footer is None or not footer.startswith(prefix):
            return None
        if not shape:
            created_by = md.created_by
            if md.num_columns != len(COLUMNS) or not isinstance(created_by, str):
                return None
            for k in range(md.num_columns):
                c = rg.column(k)
                code, phys = _CODECS.get(c.compression), _PHYSICAL.get(c.physical_type)
                if code is None or phys is None:
                    return None
                shape.append((phys, c.path_in_schema, code))
                chunks.append([])
            form = _FooterForm.of(footer, len(prefix))
        elif md.created_by != created_by:
            return None
        view = memoryview(data)
        want_n = _zz(n)
        for k, (_phys, _name, code) in enumerate(shape):
            c = rg.column(k)
            if c.num_values != n or c.has_dictionary_page or _CODECS.get(c.compression) != code:
                return None
            page = _one_page(data, view, c.data_page_offset, c.total_compressed_size, want_n)
            if page is None:
                return None
            chunks[k].append(page)
        metas.append(meta)
        counts.append(n)
        rows += n
    columns = []
    parts: list[bytes | memoryview] = [b"PAR1"]
    at = 4
    for (phys, name, code), pages in zip(shape, chunks, strict=True):
        size = sum(map(len, pages))
        columns.append((phys, name, code, size, at))
        parts += pages
        at += size
    foot = _merged_footer(prefix, [(rows, columns)], created_by)
    parts += [foot, len(foot).to_bytes(4, "little"), b"PAR1"]
    merged = b"".join(parts)
    try:
        table = pq.ParquetFile(p.BufferReader(merged), page_checksum_verification=True).read(use_threads=False)
    except Exception:
        return None
    if table.num_rows != rows:
        return None
    if keep is not None:
        keep.append((memoryview(merged)[4:at], [(ph, nm, cd, sz, off - 4) for ph, nm, cd, sz, off in columns], rows,
                     prefix, created_by))
    return table, metas, counts


def group_of(data: bytes) -> Group | None:
    """The one row group of the Parquet file ``data`` (as pyarrow writes one: no dictionary pages) as a ``Group``;
    None for any other file."""
    import pyarrow.parquet as pq

    md = pq.read_metadata(codec.pa().BufferReader(data))
    foot = _footer(data)
    prefix = _schema_prefix(foot) if foot is not None else None
    if md.num_row_groups != 1 or prefix is None or not isinstance(md.created_by, str):
        return None
    rg = md.row_group(0)
    columns: list[Column] = []
    start = end = None
    for k in range(md.num_columns):
        c = rg.column(k)
        code, phys = _CODECS.get(c.compression), _PHYSICAL.get(c.physical_type)
        at, size = c.data_page_offset, c.total_compressed_size
        if code is None or phys is None or c.has_dictionary_page or (end is not None and at != end):
            return None
        start = at if start is None else start
        columns.append((phys, c.path_in_schema, code, size, at - start))
        end = at + size
    if start is None or end is None:
        return None
    return memoryview(data)[start:end], columns, rg.num_rows, prefix, md.created_by


def footer_of(prefix: bytes, groups: list[tuple[int, list[Column]]], created_by: str) -> bytes:
    """The footer of a Parquet file of ``groups`` (rows, columns at their offsets in the file), each column read
    under ``prefix`` (``_schema_prefix``), and its closing length and magic: what follows the groups' bytes."""
    foot = _merged_footer(prefix, groups, created_by)
    return foot + len(foot).to_bytes(4, "little") + b"PAR1"


__all__ = ["Group", "check_run", "footer_of", "group_of"]
