"""Batches to and from Arrow: the log's columns, the envelope hash, and decoding payloads in bulk.

pyarrow is imported on first use (``pa()``, ``schema()``), not with this module, so a path that
decodes nothing (the warm ``kingdomlog state``) never loads it.

Writing (``encode``) builds the columns of a batch and chains its hashes without making a
``RecordedEvent`` per event: the hashed text of an envelope (docs/log-format.md) is put together
from its members, the batch's common ones encoded once. It is exactly ``core.events.event_hash``
of the same envelope (``tests/core/test_perf_codec.py`` checks it against ``record``), and
payload texts are ``core.events.payload_json``'s, the one canonical writer's: written by orjson
(``fast_json``) where its text is byte for byte that one, by the canonical writer everywhere else.

Reading (``decode_table``) hands every payload stored at its type's current version straight to
its class's pydantic validator (looked up once per type and batch; one payload per call, never
a JSON array of several, whose parse could join two malformed texts into valid ones) and builds
each ``RecordedEvent`` by filling its fields directly. Anything else (older versions, unknown
types, invalid payloads) goes through ``decode_payload``, whose errors name the seq.
"""

from __future__ import annotations

import gc
import hashlib
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from functools import cache
from json.encoder import encode_basestring as _json_str  # the C escaper json.dumps(ensure_ascii=False) uses
from operator import call as _call
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from kingdomlog.core.errors import InputError, KingdomlogError
from kingdomlog.core.events import (
    MAX_TURN,
    Draft,
    EventModel,
    RecordedEvent,
    _plain_class,
    decode_payload,
    event_class,
    event_hash,
    payload_json,
    payload_texts,
)

if TYPE_CHECKING:
    import pyarrow

COLUMNS = ("campaign", "seq", "turn", "phase", "type", "version", "actor", "visibility", "payload", "recorded_at",
           "event_id", "commit_id", "prev_hash", "hash")


def pa() -> Any:
    """The ``pyarrow`` module (imported on first use)."""
    import pyarrow

    return pyarrow


@cache
def schema() -> pyarrow.Schema:
    """The Arrow schema of a batch file (docs/log-format.md)."""
    p = pa()
    return p.schema(
        [
            p.field("campaign", p.string(), nullable=False),
            p.field("seq", p.int64(), nullable=False),
            p.field("turn", p.int32(), nullable=False),
            p.field("phase", p.string(), nullable=True),
            p.field("type", p.string(), nullable=False),
            p.field("version", p.int16(), nullable=False),
            p.field("actor", p.string(), nullable=False),
            p.field("visibility", p.string(), nullable=False),
            p.field("payload", p.string(), nullable=False),
            p.field("recorded_at", p.timestamp("us", tz="UTC"), nullable=False),
            p.field("event_id", p.string(), nullable=False),
            p.field("commit_id", p.string(), nullable=False),
            p.field("prev_hash", p.string(), nullable=False),
            p.field("hash", p.string(), nullable=False),
        ]
    )


@cache
def column_types() -> tuple[tuple[str, Any], ...]:
    """Each column's name and Arrow type, in the schema's order (made once)."""
    return tuple((f.name, f.type) for f in schema())


# ---- the footer of a batch file ---------------------------------------------------------

FORMAT_KEY = b"kingdomlog.format"
FILE_SHA_KEY = b"kingdomlog.file_sha256"
PREV_FILE_SHA_KEY = b"kingdomlog.prev_file_sha256"
CAMPAIGN_KEY = b"kingdomlog.campaign"
_SHA_PLACEHOLDER = b"0" * 64
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# Thrift compact encoding of a KeyValue's ``value`` field header (field 2, binary) and its length (64).
_SHA_LEAD = b"\x18\x40"


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


# ---- writing ----------------------------------------------------------------------------


_VERSION = bytes((b & 0x0F) | 0x40 for b in range(256))
"""Byte 6 of a version 4 UUID for a random byte: its high four bits ``0100``, its low four kept."""
_VARIANT = bytes((b & 0x3F) | 0x80 for b in range(256))
"""Byte 8 of a version 4 UUID (the RFC 4122 variant) for a random byte: its high two bits ``10``, the rest kept."""


def new_ids(n: int) -> list[str]:
    """``n`` random (version 4) UUIDs as text, from one read of the system's randomness.

    The version and variant bits are set in the bytes of all of them at once (two ``translate`` calls over a slice
    each), then the hex text is cut into the five groups: what ``str(uuid.uuid4())`` gives, 122 random bits each.
    """
    raw = bytearray(os.urandom(16 * n))
    raw[6::16] = raw[6::16].translate(_VERSION)
    raw[8::16] = raw[8::16].translate(_VARIANT)
    h = raw.hex()
    return [f"{h[i:i + 8]}-{h[i + 8:i + 12]}-{h[i + 12:i + 16]}-{h[i + 16:i + 20]}-{h[i + 20:i + 32]}"
            for i in range(0, 32 * n, 32)]


def hash_text(actor: str, campaign: str, commit_id: str, event_id: str, payload: str, phase: str | None,
              prev_hash: str, recorded_at: str, seq: int, turn: int, type_: str, version: int,
              visibility: str) -> str:
    """The canonical JSON text an event's hash is taken over (members in their sorted order)."""
    return (f'{{"actor":{_json_str(actor)},"campaign":{_json_str(campaign)},"commit_id":{_json_str(commit_id)},'
            f'"event_id":{_json_str(event_id)},"payload":{_json_str(payload)},'
            f'"phase":{"null" if phase is None else _json_str(phase)},"prev_hash":{_json_str(prev_hash)},'
            f'"recorded_at":{_json_str(recorded_at)},"seq":{int(seq)},"turn":{int(turn)},"type":{_json_str(type_)},'
            f'"version":{int(version)},"visibility":{_json_str(visibility)}}}')


_DOUBTS = (b"null", b"e-", b"0.0000")
"""What in an orjson text may differ from the canonical writer's: ``null`` (orjson writes a NaN or an infinity as
``null``; the canonical writer refuses them), a float below 1e-4 (``1e-05`` there, ``0.00001`` or ``1e-5`` here);
and a run of 16 digits (``_LONG_RUN`` in the text with every digit made ``0``: a number the canonical writer may
refuse as too large). Also found in texts holding such letters inside a string: those only take the canonical
writer's slower way."""
_DIGITS = bytes.maketrans(b"123456789", b"000000000")
_LONG_RUN = b"0" * 16


def _doubt(text: bytes) -> bool:
    return any(d in text for d in _DOUBTS) or _LONG_RUN in text.translate(_DIGITS)


_ORJSON: list[Any] = []


def _orjson() -> Any:
    """``(orjson.dumps, options)``, or None without orjson (imported on first use: the warm reads never load it)."""
    if not _ORJSON:
        try:
            import orjson
        except ImportError:  # pragma: no cover - a dependency; the canonical writer alone then
            _ORJSON.append(None)
        else:
            # sorted keys; a subclass of str, int, dict or list, a dataclass or a datetime is refused (they take
            # the canonical writer's way), never written in orjson's own manner
            _ORJSON.append((orjson.dumps, orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_SUBCLASS
                            | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME))
    return _ORJSON[0]


def fast_json(values: Sequence[Any]) -> list[str | None] | None:
    """Each of ``values`` as ``core.events.canonical_json`` writes it, by orjson; None where a text could differ.

    Only for values of str, int, float, bool, None, list, tuple and str-keyed dict (a plain payload's dump; an
    enum, which orjson writes as its value where the canonical writer may refuse it, is never one). None for a
    value orjson refuses (another type, a key not text, an int past 64 bits, a lone surrogate) and for a text
    holding one of ``_DOUBTS`` or a run of 16 digits; None for the whole when orjson is not installed. The
    caller writes those with the canonical writer: every text returned is byte for byte its text
    (``tests/core/test_fast_json.py``: a property over nested values, and every committed log's payloads
    written again). The texts are first checked together, in their joined bytes.
    """
    oj = _orjson()
    if oj is None:
        return None
    dumps, opt = oj
    raw: list[bytes | None] = []
    for v in values:
        try:
            raw.append(dumps(v, option=opt))
        except (TypeError, ValueError):  # orjson.JSONEncodeError is a TypeError
            raw.append(None)
    if _doubt(b"\n".join(b or b"" for b in raw)):  # "\n": no doubt spans two texts
        return [None if b is None or _doubt(b) else b.decode("utf-8") for b in raw]
    return [None if b is None else b.decode("utf-8") for b in raw]


def _payload_texts(payloads: Sequence[EventModel]) -> list[str]:
    """``core.events.payload_texts`` (the same texts, the same refusals), by orjson where it writes the same.

    When every payload is of a plain class (``core.events._plain_class``), each is dumped by its class's
    serializer and written by ``fast_json``; a payload it declines is written by ``payload_texts``, those
    together in the batch's order (the refusals left there, a NaN, an infinity, a number too large, text not
    Unicode, are among them, so the first in the batch's order is the one named). Any payload not plain: the
    whole batch by ``payload_texts``.
    """
    dumps = []
    for p in payloads:
        cls = type(p)
        if not _plain_class(cls):
            return payload_texts(payloads)
        try:
            dumps.append(cls.__pydantic_serializer__.to_python(p))
        except (ValueError, TypeError):  # as payload_texts: that payload_json names it
            return payload_texts(payloads)
    out = fast_json(dumps)
    if out is None:
        return payload_texts(payloads)
    doubtful = [i for i, text in enumerate(out) if text is None]
    if doubtful:
        for i, text in zip(doubtful, payload_texts([payloads[i] for i in doubtful]), strict=True):
            out[i] = text
    return out  # type: ignore[return-value]  # every None replaced above


def _check_turn(d: Draft) -> int:
    """The draft's turn; ``InputError`` when it has none or one out of range (as ``core.events.record``)."""
    t = d.turn
    if t is None:
        raise InputError(f"event {d.type!r} has no turn")
    if not 0 <= t <= MAX_TURN:
        raise InputError(f"event {d.type!r}: turn {t} is out of range (0 to {MAX_TURN})")
    return t


def encode(drafts: Sequence[Draft], *, campaign: str, first_seq: int, prev_hash: str, commit_id: str,
           recorded_at: datetime, stamps: Sequence[tuple[str, datetime]] | None = None) -> dict[str, list[Any]]:
    """The columns of one batch: ``drafts`` at seqs ``first_seq``… chained after ``prev_hash``.

    ``stamps`` (event id, time) per draft keep copied events' own ones; otherwise each event gets
    a new id and ``recorded_at``. Raises ``InputError`` as ``core.events.record`` does (a draft
    without a turn or out of range, a payload that cannot be written).
    """
    n = len(drafts)
    ids = new_ids(n) if stamps is None else [s[0] for s in stamps]
    when_text = recorded_at.isoformat()
    turns: list[int] = []
    phases: list[str | None] = []
    types: list[str] = []
    versions: list[int] = []
    actors: list[str] = []
    vis: list[str] = []
    payloads: list[str] = []
    hashes: list[str] = []
    seqs = list(range(first_seq, first_seq + n))
    whens = [recorded_at] * n if stamps is None else [s[1] for s in stamps]
    sha256 = hashlib.sha256
    # the canonical text of each envelope (hash_text) in one f-string per event, from pieces made once per batch and
    # distinct value: what comes before the event id (the actor, and the members the batch shares), around the phase,
    # the time and after the turn (type, version, visibility); the ids made here and the hashes taken here need no
    # escaping (hex and dashes), their quotes are in the pieces
    q = '"' if stamps is None else ""
    shared = f',"campaign":{_json_str(campaign)},"commit_id":{_json_str(commit_id)},"event_id":{q}'
    after_id = q + ',"payload":'
    firsts: dict[str, str] = {}
    mids: dict[str | None, str] = {}
    lasts: dict[tuple[str, int, str], str] = {}
    at_text = ',"recorded_at":' + _json_str(when_text) + ',"seq":'
    prev_text = _json_str(prev_hash)
    prev = prev_hash
    texts: list[str] | None
    try:  # every payload's text in one pass (core.events.payload_texts, by orjson where it writes the same)
        texts = _payload_texts([d.payload for d in drafts])
    except InputError:  # a refusal: draft by draft below, so the first fault in the batch's order is the one named
        texts = None
    for i, d in enumerate(drafts):
        t = _check_turn(d)
        p = d.payload
        text = texts[i] if texts is not None else payload_json(p)
        type_, version, phase, actor, visibility = p.type, p.version, d.phase, d.actor, d.visibility
        eid = ids[i]
        first = firsts.get(actor)
        if first is None:
            first = firsts[actor] = '{"actor":' + _json_str(actor) + shared
        mid = mids.get(phase)
        if mid is None:
            mid = mids[phase] = ',"phase":' + ("null" if phase is None else _json_str(phase)) + ',"prev_hash":'
        last = lasts.get((type_, version, visibility))
        if last is None:
            last = lasts[(type_, version, visibility)] = \
                f',"type":{_json_str(type_)},"version":{int(version)},"visibility":{_json_str(visibility)}}}'
        if stamps is not None:
            eid = _json_str(eid)
            at_text = ',"recorded_at":' + _json_str(whens[i].isoformat()) + ',"seq":'
        doc = f'{first}{eid}{after_id}{_json_str(text)}{mid}{prev_text}{at_text}{seqs[i]},"turn":{int(t)}{last}'
        try:
            h = sha256(doc.encode("utf-8")).hexdigest()
        except UnicodeEncodeError:  # text that is not Unicode (a lone surrogate): the canonical writer's own error
            event_hash({"campaign": campaign, "seq": seqs[i], "turn": t, "phase": phase, "type": type_,
                        "version": version, "actor": d.actor, "visibility": d.visibility, "payload": text,
                        "recorded_at": whens[i], "event_id": ids[i], "commit_id": commit_id, "prev_hash": prev})
            raise
        turns.append(t)
        phases.append(phase)
        types.append(type_)
        versions.append(version)
        actors.append(actor)
        vis.append(visibility)
        payloads.append(text)
        hashes.append(h)
        prev = h
        prev_text = '"' + h + '"'
    return {"campaign": [campaign] * n, "seq": seqs, "turn": turns, "phase": phases, "type": types,
            "version": versions, "actor": actors, "visibility": vis, "payload": payloads, "recorded_at": whens,
            "event_id": ids, "commit_id": [commit_id] * n, "prev_hash": [prev_hash, *hashes[:-1]], "hash": hashes}


def batch_table(cols: dict[str, list[Any]], metadata: dict[bytes, bytes]) -> pyarrow.Table:
    """The Arrow table of a batch's columns (``encode``) with its footer's key-value ``metadata``.

    Each column is made from its list at its type (no type inference, no schema check of a dict of columns);
    the times as their microseconds since the epoch, each distinct time converted once.
    """
    p = pa()
    micros: dict[datetime, int] = {}
    one = timedelta(microseconds=1)
    arrays = []
    for name, type_ in column_types():
        values = cols[name]
        if name == "recorded_at":
            values = [micros.get(w) or micros.setdefault(w, (w - _EPOCH) // one) for w in values]
        arrays.append(p.array(values, type_))
    return p.Table.from_arrays(arrays, schema=schema().with_metadata(metadata))


# ---- reading ----------------------------------------------------------------------------

_new = object.__new__
_first, _second = itemgetter(0), itemgetter(1)


def _payloads(types: list[str], versions: list[int], texts: list[str], seqs: list[int]) -> list[EventModel]:
    """Every payload decoded and upcast.

    A payload at its type's current version goes straight to its class's pydantic validator
    (what ``model_validate_json`` calls, without its per-call wrapper), the class looked up once per
    type and batch; anything else (an old version, an unknown type, an invalid payload) goes
    through ``decode_payload``, whose errors name the seq. When every row is at its type's current
    version, the validators are called by one ``map`` (no Python loop per row: ~0.1 us an event,
    issue 31); a payload that does not validate sends the whole table through the loop row by row.
    """
    known: dict[str, tuple[int, Any]] = {}  # type -> (its current version, its class's validate_json)
    validators: dict[str, tuple[int, Any] | None] = {}
    for t in set(types):
        try:
            cls = event_class(t, seq=seqs[types.index(t)])
            validators[t] = known[t] = (cls.version, cls.__pydantic_validator__.validate_json)
        except KingdomlogError:
            validators[t] = None
    if len(known) == len(validators):
        try:
            if len(known) == 1:  # one type
                ((version, check),) = known.values()
                if versions.count(version) == len(versions):
                    return list(map(check, texts))
            else:
                kinds = list(map(known.__getitem__, types))
                if list(map(_first, kinds)) == versions:
                    return list(map(_call, map(_second, kinds), texts))
        except ValidationError:
            pass
    out: list[EventModel] = []
    for i, t in enumerate(types):
        v = validators[t]
        payload: EventModel | None = None
        if v is not None and versions[i] == v[0]:
            try:
                payload = v[1](texts[i])
            except ValidationError:
                payload = None
        out.append(payload if payload is not None else decode_payload(t, versions[i], texts[i], seq=seqs[i]))
    return out


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector held off for the block (as it was, after it).

    Decoding a table makes a few objects per row (lists of column values, the payload, the event)
    that hold no reference cycle, so reference counting frees them all; but their number starts a
    collection every few hundred rows, each going over every object alive (the 100,000 events of the
    benchmark's compacted segment, 16,384-row tables: decoded in 0.58 s with the collector when each
    table's events are dropped, 0.75 s when all are kept, 0.28 s kept without the collector). A reader
    that decodes, folds and drops table after table (``Campaign.stream_state``) holds it off for the
    whole read, so the events of a table are freed before the collector could look at them at all.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def decode_table(table: pyarrow.Table) -> list[RecordedEvent]:
    """Decode an events table into ``RecordedEvent`` (payloads validated and upcast).

    Column-wise (one ``to_pylist`` per column); a batch shares one timestamp, converted once.
    The cyclic garbage collector is held off meanwhile (``collector_paused``).
    """
    return decode_columns(table)[0]


def decode_columns(table: pyarrow.Table) -> tuple[list[RecordedEvent], dict[str, list[Any]]]:
    """``decode_table``, with the columns it made Python lists of (every column but ``recorded_at``; the
    ``payload`` list holds the stored texts): what a caller reads of every event (its commit, type, turn) is then
    read off these lists, not off each event's attributes."""
    if table.num_rows == 0:
        return [], {}
    with collector_paused():
        col = {c: table.column(c).to_pylist() for c in COLUMNS if c != "recorded_at"}
        return _decode(table, col), col


def _decode(table: pyarrow.Table, col: dict[str, list[Any]]) -> list[RecordedEvent]:
    seqs = col["seq"]
    i64 = pa().int64()
    # a zero-copy view of the timestamps as their int64 microseconds (a cast would import pyarrow.compute)
    micros = [m for chunk in table.column("recorded_at").chunks for m in chunk.view(i64).to_pylist()]
    seen: dict[int, datetime] = {}
    stamps = [seen.get(m) or seen.setdefault(m, _EPOCH + timedelta(microseconds=m)) for m in micros]
    versions = col["version"]  # Python ints already (int16 values)
    payloads = _payloads(col["type"], versions, col["payload"], seqs)
    out: list[RecordedEvent] = []
    add = out.append
    # one row at a time as a tuple of its columns' values (zip, unpacked: no index into 15 lists per row)
    for (campaign, seq, turn, phase, type_, version, actor, vis, payload, text, stamp, eid, cid, prev,
         hash_) in zip(col["campaign"], seqs, col["turn"], col["phase"], col["type"], versions, col["actor"],
                       col["visibility"], payloads, col["payload"], stamps, col["event_id"], col["commit_id"],
                       col["prev_hash"], col["hash"], strict=True):
        ev = _new(RecordedEvent)
        # RecordedEvent is a frozen dataclass: its fields are set directly (what its __init__ does, without
        # one object.__setattr__ call per field); tests/core/test_perf_codec.py checks both build equal events
        ev.__dict__.update(campaign=campaign, seq=seq, turn=turn, phase=phase, type=type_, version=version,
                           actor=actor, visibility=vis, payload=payload, payload_text=text, recorded_at=stamp,
                           event_id=eid, commit_id=cid, prev_hash=prev, hash=hash_, extra={})
        add(ev)
    return out


def decode_rows(rows: Sequence[dict[str, Any]]) -> list[RecordedEvent]:
    """Decode stored rows into ``RecordedEvent`` (payloads validated and upcast)."""
    if not rows:
        return []
    return decode_table(pa().Table.from_pylist(list(rows), schema=schema()))


def table_of(events: Sequence[RecordedEvent]) -> pyarrow.Table:
    """The events as a table of the log's columns."""
    return pa().Table.from_pylist([ev.envelope() for ev in events], schema=schema())


__all__ = ["CAMPAIGN_KEY", "COLUMNS", "FILE_SHA_KEY", "FORMAT_KEY", "PREV_FILE_SHA_KEY", "batch_table",
           "collector_paused", "decode_columns", "decode_rows", "decode_table", "encode", "file_digest", "hash_text",
           "new_ids", "pa", "schema", "table_of"]
