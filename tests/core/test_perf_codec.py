"""The fast batch codec (issue 18) gives exactly what the canonical writer and the plain decoder give.

``store.codec.encode`` builds a batch's columns and hash chain without a ``RecordedEvent`` per event;
``decode_table`` validates payloads with each class's validator and fills events' fields directly.
Both are checked here against ``core.events.record`` / ``event_hash`` / ``decode_payload``, which
stay the definition (docs/log-format.md).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyarrow as pa
import pytest
import toyrules
from hypothesis import given, settings
from hypothesis import strategies as st

from kingdomlog.app import Campaign
from kingdomlog.core.core_events import NoteAdded
from kingdomlog.core.errors import InputError
from kingdomlog.core.events import (
    GENESIS_HASH,
    Draft,
    RecordedEvent,
    canonical_json,
    decode_payload,
    event_hash,
    record,
)
from kingdomlog.core.fold import last_live_turn
from kingdomlog.store import codec
from kingdomlog.store.log import EventLog

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "toy-v1"

text = st.text(st.characters(blacklist_categories=["Cs"]), max_size=12)  # any character but a lone surrogate
when = st.datetimes(min_value=datetime(1970, 1, 2), max_value=datetime(2200, 1, 1), timezones=st.just(UTC))
drafts = st.lists(st.one_of(
    st.builds(lambda t, ti, ph, a, v: Draft(NoteAdded(text=t or "x", title=ti), phase=ph, actor=a, visibility=v,
                                            turn=3), text, text, st.none() | text, text, text),
    st.builds(lambda g, f, turn: Draft(toyrules.Sold(food=f, gold=g), turn=turn),
              st.integers(0, 10**6), st.integers(0, 10**6), st.integers(0, 2**31 - 1)),
), min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(drafts, text, when, st.booleans())
def test_encode_is_record_event_by_event(ds: list[Draft], campaign: str, at: datetime, stamped: bool) -> None:
    ids = [str(uuid.uuid4()) for _ in ds]
    stamps = [(ids[i], at + timedelta(microseconds=i)) for i in range(len(ds))] if stamped else None
    cols = codec.encode(ds, campaign=campaign, first_seq=7, prev_hash=GENESIS_HASH, commit_id="c-1",
                        recorded_at=at, stamps=stamps)
    prev = GENESIS_HASH
    for i, d in enumerate(ds):
        ev = record(d, campaign=campaign, seq=7 + i, recorded_at=stamps[i][1] if stamps else at,
                    event_id=cols["event_id"][i], commit_id="c-1", prev_hash=prev)
        env = ev.envelope()
        assert {c: cols[c][i] for c in codec.COLUMNS} == env
        prev = ev.hash


@settings(max_examples=200, deadline=None)
@given(text, text, text, text, text, st.none() | text, text, when, st.integers(0, 2**62), st.integers(0, 2**31),
       text, st.integers(1, 2**15), text)
def test_hash_text_is_the_canonical_json_of_the_envelope(actor: str, campaign: str, commit: str, eid: str,
                                                         payload: str, phase: str | None, prev: str, at: datetime,
                                                         seq: int, turn: int, type_: str, version: int,
                                                         vis: str) -> None:
    env = {"actor": actor, "campaign": campaign, "commit_id": commit, "event_id": eid, "payload": payload,
           "phase": phase, "prev_hash": prev, "recorded_at": at.isoformat(), "seq": seq, "turn": turn,
           "type": type_, "version": version, "visibility": vis}
    assert codec.hash_text(actor, campaign, commit, eid, payload, phase, prev, at.isoformat(), seq, turn, type_,
                           version, vis) == canonical_json(env)


def test_encode_refuses_what_record_refuses() -> None:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    sold = toyrules.Sold(food=0, gold=1)
    for bad in (Draft(sold), Draft(sold, turn=2**31), Draft(sold, actor="\udcff", turn=1),
                Draft(NoteAdded.model_construct(text="a\ud800b", title=""), turn=1)):
        with pytest.raises(InputError) as theirs:
            record(bad, campaign="c", seq=1, recorded_at=at, event_id="e", commit_id="c", turn=bad.turn)
        with pytest.raises(InputError) as ours:
            codec.encode([bad], campaign="c", first_seq=1, prev_hash=GENESIS_HASH, commit_id="c", recorded_at=at)
        assert str(ours.value) == str(theirs.value)


def test_new_ids_are_distinct_version_4_uuids() -> None:
    ids = codec.new_ids(2000)
    assert len(set(ids)) == 2000
    for s in ids[:200]:
        u = uuid.UUID(s)
        assert str(u) == s and u.version == 4 and u.variant == uuid.RFC_4122


def slow_decode(table: pa.Table) -> list[RecordedEvent]:
    """What decode_table did before: one model per row through decode_payload, the dataclass constructor."""
    out = []
    for r in table.to_pylist():
        out.append(RecordedEvent(
            campaign=r["campaign"], seq=r["seq"], turn=r["turn"], phase=r["phase"], type=r["type"],
            version=int(r["version"]), actor=r["actor"], visibility=r["visibility"],
            payload=decode_payload(r["type"], int(r["version"]), r["payload"], seq=r["seq"]),
            payload_text=r["payload"], recorded_at=r["recorded_at"], event_id=r["event_id"],
            commit_id=r["commit_id"], prev_hash=r["prev_hash"], hash=r["hash"]))
    return out


def test_decode_table_equals_the_plain_decoder_on_an_old_log_with_upcasts() -> None:
    table = EventLog(FIXTURE / "log", "toy-v1").read_table()
    fast, slow = codec.decode_table(table), slow_decode(table)
    assert fast == slow
    assert [e.version for e in fast].count(1) >= 3  # v1 payloads went through the upcaster
    assert all(event_hash(e.envelope()) == e.hash for e in fast)


def test_an_invalid_payload_is_named_by_its_seq() -> None:
    table = EventLog(FIXTURE / "log", "toy-v1").read_table()
    rows = table.to_pylist()
    bad = next(i for i, r in enumerate(rows) if r["type"] == "toy.sold")
    rows[bad]["payload"] = '{"food": -1, "gold": "many"}'
    with pytest.raises(InputError, match=rf"seq {rows[bad]['seq']}: payload of 'toy.sold' is invalid"):
        codec.decode_table(pa.Table.from_pylist(rows, schema=codec.schema()))
    rows[bad]["payload"] = '{"food":1,"gold":1},{"food":2'  # never read as part of anything else
    with pytest.raises(InputError, match=rf"seq {rows[bad]['seq']}: payload of 'toy.sold' is not JSON"):
        codec.decode_table(pa.Table.from_pylist(rows, schema=codec.schema()))


def test_decoding_does_not_import_pyarrow_compute(tmp_path: Path) -> None:
    """A cold read decodes without ``pyarrow.compute`` (its import alone costs ~35 ms on the CLI's paths)."""
    import subprocess
    import sys

    camp = Campaign.create(tmp_path / "farm", "toy-farm")
    camp.log.append([Draft(NoteAdded(text=f"n{i}"), turn=1) for i in range(3)], expect_seq=camp.head_seq)
    code = ("import sys; sys.path.insert(0, 'tests'); import toyrules; import pyarrow.parquet;"
            " from kingdomlog.app import Campaign;"
            f" evs = Campaign.open({str(camp.folder)!r}).events(); assert len(evs) == 4, evs;"
            " assert 'pyarrow.compute' not in sys.modules, 'pyarrow.compute imported'")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.returncode == 0, out.stderr[-2000:]


def test_decoding_holds_off_the_collector_and_gives_it_back_as_it_was() -> None:
    """``decode_table`` runs with the cyclic collector off, and leaves it as it found it, also on an error."""
    import gc

    table = EventLog(FIXTURE / "log", "toy-v1").read_table()
    seen: list[bool] = []
    real = codec._decode

    def spy(t: pa.Table, col: dict[str, list[object]]) -> list[RecordedEvent]:
        seen.append(gc.isenabled())
        return real(t, col)

    rows = table.to_pylist()
    bad = next(i for i, r in enumerate(rows) if r["type"] == "toy.sold")
    rows[bad]["payload"] = '{"food": -1, "gold": "many"}'
    broken = pa.Table.from_pylist(rows, schema=codec.schema())
    was = gc.isenabled()
    try:
        codec._decode = spy  # type: ignore[assignment]
        gc.enable()
        assert codec.decode_table(table) == slow_decode(table)
        assert gc.isenabled()
        with pytest.raises(InputError):
            codec.decode_table(broken)
        assert gc.isenabled()
        gc.disable()
        codec.decode_table(table)
        assert not gc.isenabled()  # a caller that had it off keeps it off
    finally:
        codec._decode = real  # type: ignore[assignment]
        if was:
            gc.enable()
    assert seen == [False, False, False]


def _table_of(ds: list[Draft], *, first_seq: int = 1) -> pa.Table:
    cols = codec.encode(ds, campaign="c", first_seq=first_seq, prev_hash=GENESIS_HASH, commit_id="c-1",
                        recorded_at=datetime(2026, 1, 1, tzinfo=UTC))
    return pa.Table.from_pydict({c: cols[c] for c in codec.COLUMNS}, schema=codec.schema())


@settings(max_examples=60, deadline=None)
@given(drafts, st.booleans())
def test_decode_table_at_current_versions_equals_the_plain_decoder(ds: list[Draft], one_type: bool) -> None:
    """Payloads at their types' current versions are validated by one ``map`` (one type, or several): the events
    are those the plain decoder builds."""
    if one_type:
        ds = [d for d in ds if type(d.payload) is type(ds[0].payload)]
    table = _table_of(ds)
    assert codec.decode_table(table) == slow_decode(table)


def test_decode_table_equals_the_plain_decoder_on_every_committed_campaign() -> None:
    """Every committed campaign (four rulesets, many event types a table) decodes as the plain decoder does."""
    root = Path(__file__).resolve().parents[2] / "campaigns"
    seen = 0
    for folder in sorted(p for p in root.iterdir() if (p / "campaign.toml").exists()):
        table = Campaign.open(folder).log.read_table()
        assert table.num_rows > 0
        assert len(set(table.column("type").to_pylist())) > 1
        assert codec.decode_table(table) == slow_decode(table), folder.name
        seen += 1
    assert seen >= 4


@pytest.mark.parametrize("kinds", ["one type", "two types"])
def test_an_invalid_payload_at_the_current_version_is_named_by_its_seq(kinds: str) -> None:
    """A payload that does not validate in the one-``map`` path sends the table row by row: the error names its
    seq, as before (not the first row's, not a bare pydantic error)."""
    ds = [Draft(toyrules.Sold(food=i, gold=i), turn=1) for i in range(6)]
    if kinds == "two types":
        ds[1::2] = [Draft(NoteAdded(text=f"n{i}"), turn=1) for i in range(3)]
    rows = _table_of(ds, first_seq=10).to_pylist()
    rows[4]["payload"] = '{"food": -1, "gold": "many"}'
    with pytest.raises(InputError, match=r"seq 14: payload of 'toy.sold' is invalid"):
        codec.decode_table(pa.Table.from_pylist(rows, schema=codec.schema()))
    rows[4]["payload"] = '{"food":1,"gold":1},{"food":2'
    with pytest.raises(InputError, match=r"seq 14: payload of 'toy.sold' is not JSON"):
        codec.decode_table(pa.Table.from_pylist(rows, schema=codec.schema()))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 4), st.integers(0, 6), st.booleans()), min_size=1, max_size=4),
       st.sets(st.integers(0, 3)), st.none() | st.integers(0, 6))
def test_the_top_live_turn_read_off_the_columns_is_the_one_of_every_event(
        batches: list[tuple[int, int, bool]], gone: set[int], until: int | None) -> None:
    """``Campaign._stream``'s highest live turn of a table, read off its columns when every event counts, is
    the highest turn of the events ``is_live`` keeps (core notes, retracted commits, a turn cut)."""
    from kingdomlog.app.campaign import _top_live_turn
    from kingdomlog.core.fold import is_live

    tables, seq = [], 1
    for k, (sold, turn, note) in enumerate(batches):
        ds = [Draft(toyrules.Sold(food=i, gold=k), turn=turn + i % 2) for i in range(sold)]
        if note:
            ds.append(Draft(NoteAdded(text="n"), turn=turn + 3))
        cols = codec.encode(ds, campaign="c", first_seq=seq, prev_hash=GENESIS_HASH, commit_id=f"c-{k}",
                            recorded_at=datetime(2026, 1, 1, tzinfo=UTC))
        tables.append(pa.Table.from_pydict({c: cols[c] for c in codec.COLUMNS}, schema=codec.schema()))
        seq += len(ds)
    events, cols = codec.decode_columns(pa.concat_tables(tables))
    retracted = frozenset(f"c-{k}" for k in gone)
    want = max((ev.turn for ev in events if is_live(ev, retracted, until)), default=None)
    assert _top_live_turn(events, cols, set(cols["commit_id"]), retracted, until) == want


def test_a_stream_read_does_not_count_a_later_note_as_a_live_turn(tmp_path: Path) -> None:
    camp = Campaign.create(tmp_path / "farm", "toy-farm")
    camp.log.append([Draft(toyrules.Sold(food=1, gold=1), turn=2)], expect_seq=camp.head_seq)
    camp.log.append([Draft(NoteAdded(text="later"), turn=5)], expect_seq=camp.head_seq)
    again = Campaign.open(camp.folder)
    assert again._stream(None, save=False).last_turn == 2 == last_live_turn(again.events())
