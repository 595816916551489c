"""The append's orjson path (``store.codec.fast_json``) writes, byte for byte, the canonical writer's text, or declines.

Hashes of logged events never change: every text ``fast_json`` returns must be ``canonical_json``'s, for any
value a plain payload can hold (unicode, floats of every size, big integers, nesting), and a batch of payloads
written through it (``codec._payload_texts``) must be ``core.events.payload_texts`` exactly, refusals included.
The committed campaigns' logs are written again through it and re-hashed: every stored text and hash comes out.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import Field

from kingdomlog.app.campaign import Campaign
from kingdomlog.core.errors import InputError
from kingdomlog.core.events import MAX_PAYLOAD_INT, EventModel, _plain_class, payload_texts
from kingdomlog.store import codec
from kingdomlog.store.log import EventLog

pytest.importorskip("orjson")

ROOT = Path(__file__).resolve().parents[2]
LOGS = [ROOT / "campaigns" / n for n in ("aikakirjat-demo", "felmonte", "river-kingdom", "stolen-lands")] + [
    ROOT / "tests" / "aikakirjat" / "fixtures" / "demo-v1", ROOT / "tests" / "fixtures" / "toy-v1"]


def canonical(value: object) -> str:
    """``core.events.canonical_json``'s text, without its refusals' messages."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


_floats = st.floats() | st.sampled_from([1e-5, 1.5e-7, 1e16, 1e22, -0.0, 5e-324, 1e-4, 0.0001234, 1e15,
                                         123456789012345.6, 2.0**53, 1.7976931348623157e308])
_ints = st.integers() | st.integers(-(2**65), 2**65) | st.sampled_from([MAX_PAYLOAD_INT, MAX_PAYLOAD_INT + 1,
                                                                       2**63, -(2**63), 2**64])
_texts = st.text(st.characters(codec="utf-8") | st.characters(), max_size=10) | st.sampled_from(
    ["e-mail", "null", "0.00001", "1234567890123456", "\u2028\u2029\x7f\x00\x1f\"\\/", "\ud800", "\U0001f600"])
_leaves = st.none() | st.booleans() | _ints | _floats | _texts
_values = st.recursive(_leaves, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
                       | st.dictionaries(_texts, inner, max_size=4), max_leaves=20)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_values, min_size=1, max_size=6))
def test_a_text_fast_json_returns_is_the_canonical_text(values: list[object]) -> None:
    got = codec.fast_json(values)
    assert got is not None and len(got) == len(values)
    for value, text in zip(values, got, strict=True):
        if text is None:
            continue
        assert text == canonical(value)


class Sub(str):
    pass


@dataclass
class Point:
    x: int
    y: int


def test_it_declines_what_it_could_write_otherwise_and_writes_the_rest() -> None:
    declined = [math.nan, math.inf, [1, -math.inf], 1e-5, 1.5e-7, {"a": None}, 10**16, 2**60, 2**64, "\ud800",
                {1: 2}, {"x": "e-mail"}, b"bytes", {"s": Sub("x")}, [datetime(2026, 1, 1)],
                Point(1, 2)]
    assert codec.fast_json(declined) == [None] * len(declined)
    taken = [{"b": 1.5, "a": ["é", True, 10**14, "\u2028\x00"], "\U0001f600": 0.0001, "\uffff": -0.0},
             1e16, 1e22, (1, "x"), "", {}]
    assert codec.fast_json(taken) == [canonical(v) for v in taken]
    mixed = [*taken[:2], *declined[:2], *taken[2:]]  # a declined value beside others declines only itself
    assert codec.fast_json(mixed) == [canonical(taken[0]), canonical(taken[1]), None, None,
                                      *[canonical(v) for v in taken[2:]]]


class Inner(EventModel):
    type = "test.fast_inner"
    x: float
    tags: tuple[str, ...] = ()


class Plain(EventModel):
    type = "test.fast_plain"
    n: int
    f: float = 1.5
    s: str = "é\u2028\"\\"
    b: bool | None = True  # a null makes fast_json decline the text: the cases below hold none unless drawn
    xs: list[int] = Field(default_factory=list)
    m: dict[str, float] = Field(default_factory=dict)
    inner: Inner | None = Inner(x=0.5)
    many: list[Inner] = Field(default_factory=list)


class NotPlain(EventModel):
    type = "test.fast_not_plain"
    m: dict[int, int]


def _same_or_same_refusal(ps: list[EventModel]) -> None:
    try:
        want = payload_texts(ps)
    except InputError as exc:
        with pytest.raises(InputError) as got:
            codec._payload_texts(ps)
        assert str(got.value) == str(exc)
        return
    assert codec._payload_texts(ps) == want


_pf = st.floats()
_pt = st.text(st.characters(), max_size=8)
_pi = st.integers(-(2**66), 2**66) | st.integers(-MAX_PAYLOAD_INT, MAX_PAYLOAD_INT)
_plains = st.builds(Plain, n=_pi, f=_pf, s=_pt, b=st.none() | st.booleans(), xs=st.lists(_pi, max_size=3),
                    m=st.dictionaries(_pt, _pf, max_size=3),
                    inner=st.none() | st.builds(Inner, x=_pf),
                    many=st.lists(st.builds(Inner, x=_pf, tags=st.tuples(_pt) | st.just(())), max_size=2))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_plains, min_size=1, max_size=5))
def test_a_batch_has_the_texts_and_refusals_of_payload_texts(ps: list[EventModel]) -> None:
    assert _plain_class(Plain)
    _same_or_same_refusal(ps)


def test_a_batch_with_a_class_not_plain_or_a_refusal() -> None:
    ok = [Plain(n=1), Plain(n=2, f=1e-7, b=None)]
    assert codec.fast_json([Plain(n=1).model_dump()]) == [canonical(Plain(n=1).model_dump())]
    _same_or_same_refusal([*ok, NotPlain(m={2: 1, 1: 2})])
    for bad in (Plain(n=MAX_PAYLOAD_INT + 1), Plain(n=1, f=math.nan), Plain(n=1, s="a\ud800"), Plain(n=2**64)):
        _same_or_same_refusal([*ok, bad, Plain(n=1, f=math.inf)])
        with pytest.raises(InputError):
            codec._payload_texts([*ok, bad])


@pytest.mark.parametrize("folder", LOGS, ids=lambda p: p.name)
def test_every_committed_log_written_again_has_its_texts_and_hashes(folder: Path) -> None:
    """Every stored payload text, parsed and written again by ``fast_json``, is itself. The payloads stored at
    their class's current version (older ones are upcast on reading), written again through the orjson path,
    are ``payload_texts``'s; each that comes out as stored is hashed again in its envelope: the stored hash."""
    toml = folder / "campaign.toml"
    if toml.is_file():
        log = Campaign.open(folder).log
    else:  # a fixture folder without a campaign.toml: the log alone
        first = next((folder / "log").glob("*.parquet"))
        log = EventLog(folder / "log", str(codec.pa().parquet.read_table(first).column("campaign")[0]))
    table = codec.pa().concat_tables(list(log.iter_tables(full_verify=True)))
    rows = table.to_pylist()
    evs = codec.decode_table(table)
    stored = codec.fast_json([json.loads(r["payload"]) for r in rows])  # every stored text, parsed and written
    assert stored is not None and sum(t is not None for t in stored) > 0.3 * len(rows)
    for r, text in zip(rows, stored, strict=True):
        assert text is None or text == r["payload"], (folder.name, r["seq"])
    current = [i for i, ev in enumerate(evs) if rows[i]["version"] == type(ev.payload).version]
    payloads = [evs[i].payload for i in current]
    texts = codec._payload_texts(payloads)
    assert texts == payload_texts(payloads)
    fast = codec.fast_json([type(p).__pydantic_serializer__.to_python(p) for p in payloads])
    assert fast is not None and sum(t is not None for t in fast) > 0.3 * len(current)  # the orjson path was taken
    rehashed = 0
    for i, text in zip(current, texts, strict=True):
        r = rows[i]
        if text != r["payload"]:  # a field added since with its default: written again, it is another text
            continue
        h = codec.hash_text(r["actor"], r["campaign"], r["commit_id"], r["event_id"], text, r["phase"],
                            r["prev_hash"], r["recorded_at"].isoformat(), r["seq"], r["turn"], r["type"],
                            r["version"], r["visibility"])
        assert codec.hashlib.sha256(h.encode("utf-8")).hexdigest() == r["hash"], (folder.name, r["seq"])
        rehashed += 1
    assert rehashed > 0.3 * len(rows)
