"""``payload_json``'s one-pass path for plain payload classes writes what the general (JSON-mode) path writes."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import Field, field_serializer, model_serializer

from kingdomlog.app.campaign import Campaign
from kingdomlog.core import events
from kingdomlog.core.errors import InputError
from kingdomlog.core.events import (
    MAX_PAYLOAD_INT,
    EventModel,
    _plain_class,
    canonical_json,
    payload_json,
    payload_texts,
)

CAMPAIGNS = Path(__file__).resolve().parents[2] / "campaigns"


def general(p: EventModel) -> str:
    """The general path (what every payload took before the one-pass path)."""
    return canonical_json(p.model_dump(mode="json"))


class Inner(EventModel):
    type = "test.inner"
    x: float
    tags: tuple[str, ...] = ()


class Plain(EventModel):
    type = "test.plain"
    n: int
    f: float = 1.5
    s: str = "é\u2028\"\\"
    b: bool | None = None
    xs: list[int] = Field(default_factory=list)
    t: tuple[int, str] = (1, "a")
    m: dict[str, float] = Field(default_factory=dict)
    inner: Inner | None = None
    many: list[Inner] = Field(default_factory=list)


class IntKeys(EventModel):
    type = "test.int_keys"
    m: dict[int, int]


class Anything(EventModel):
    type = "test.anything"
    v: Any


class Colour(StrEnum):
    RED = "red"


class WithEnum(EventModel):
    type = "test.enum"
    c: Colour
    at: datetime


class Custom(EventModel):
    type = "test.custom"
    n: int

    @field_serializer("n", when_used="json")
    def _n(self, n: int) -> str:
        return f"n{n}"


class Whole(EventModel):
    type = "test.whole"
    n: int

    @model_serializer(mode="plain")
    def _all(self) -> dict[str, Any]:
        return {"N": self.n}


def test_which_classes_take_the_one_pass_path() -> None:
    assert _plain_class(Plain) and _plain_class(Inner)
    for cls in (IntKeys, Anything, WithEnum, Custom, Whole):
        assert not _plain_class(cls), cls


@pytest.mark.parametrize("p", [
    Plain(n=1),
    Plain(n=-MAX_PAYLOAD_INT, f=0.1, s="", b=True, xs=[3, 1, 2], t=(9, "z"),
          m={"b": 2.0, "a": -0.0, "10": 1e300, "9": 5e-324},
          inner=Inner(x=2.5, tags=("q", "p")), many=[Inner(x=1), Inner(x=-3.25)]),
    IntKeys(m={10: 1, 9: 2}),
    Anything(v={"k": [1, (2, 3), {"z": None, "a": "b"}]}),
    WithEnum(c=Colour.RED, at=datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=UTC)),
    Custom(n=3),
    Whole(n=4),
])
def test_the_same_text_either_way(p: EventModel) -> None:
    assert payload_json(p) == general(p)


@pytest.mark.parametrize("p", [
    Plain(n=1, f=math.nan), Plain(n=1, m={"a": math.inf}), Plain(n=1, inner=Inner(x=-math.inf)),
    Plain(n=1, many=[Inner(x=0), Inner(x=math.nan)]), Anything(v=[1.0, math.nan]),
])
def test_non_finite_numbers_are_refused_naming_where(p: EventModel) -> None:
    with pytest.raises(InputError, match=r"payload: .* is (nan|inf|-inf); events carry only finite numbers"):
        payload_json(p)


@pytest.mark.parametrize("p", [
    Plain(n=MAX_PAYLOAD_INT + 1), Plain(n=-(10**30)), Plain(n=1, xs=[1, 2**63]), Plain(n=1, t=(10**20, "x")),
    Anything(v={"k": [1, {"z": 10**30}]}), IntKeys(m={1: 2**64}),
])
def test_an_integer_no_json_reader_reads_exactly_is_refused_naming_where(p: EventModel) -> None:
    """Issue 28: a GM effect of 10**30 was committed and verified; then every SQL query over the root broke."""
    with pytest.raises(InputError, match=r"payload: .+ is -?\d+, past the largest integer an event carries"):
        payload_json(p)
    assert payload_json(Plain(n=MAX_PAYLOAD_INT, s="1234567890123456789")) == general(
        Plain(n=MAX_PAYLOAD_INT, s="1234567890123456789"))  # 16 digits in a text are only text


SAME = [
    Plain(n=1),
    Plain(n=-MAX_PAYLOAD_INT, f=0.1, s="", b=True, xs=[3, 1, 2], t=(9, "z"), m={"b": 2.0, "a": -0.0},
          inner=Inner(x=2.5, tags=("q", "p")), many=[Inner(x=1), Inner(x=-3.25)]),
    IntKeys(m={10: 1, 9: 2}), Anything(v={"k": [1, (2, 3)]}), Custom(n=3), Whole(n=4),
    Plain(n=MAX_PAYLOAD_INT, s="1234567890123456789"),
]


def test_a_batch_at_once_writes_each_payload_as_payload_json() -> None:
    """``payload_texts`` (what the store's encode writes) is ``payload_json`` of each, mixed classes included."""
    assert payload_texts(SAME) == [payload_json(p) for p in SAME] == [general(p) for p in SAME]


@pytest.mark.parametrize("bad", [Plain(n=MAX_PAYLOAD_INT + 1), Plain(n=1, f=math.nan), Plain(n=1, s="a\ud800"),
                                 Plain(n=1, xs=[1, 2**63]), Anything(v=[1.0, math.inf])])
def test_a_batch_at_once_refuses_as_payload_json_does(bad: EventModel) -> None:
    with pytest.raises(InputError) as one:
        payload_json(bad)
    with pytest.raises(InputError) as batch:
        payload_texts([*SAME[:2], bad, *SAME[2:]])
    assert str(batch.value) == str(one.value)


def test_text_that_is_not_unicode_is_refused() -> None:
    with pytest.raises(InputError, match="not a Unicode character"):
        payload_json(Plain(n=1, s="a\ud800"))


def test_every_stored_event_of_the_sample_campaigns() -> None:
    seen = 0
    for folder in sorted(p for p in CAMPAIGNS.iterdir() if (p / "campaign.toml").is_file()):
        evs = Campaign.open(folder).log.read()
        for ev in evs:
            assert payload_json(ev.payload) == general(ev.payload), (folder.name, ev.seq)
            seen += 1
        assert payload_texts([ev.payload for ev in evs]) == [payload_json(ev.payload) for ev in evs], folder.name
    assert seen > 1000
    assert events._PLAIN_CLASSES  # the one-pass path was looked at


_finite = st.floats(allow_nan=False, allow_infinity=False)
_text = st.text(max_size=12)  # any code point but lone surrogates (refused either way, tested above)
_int = st.integers(-MAX_PAYLOAD_INT, MAX_PAYLOAD_INT)  # past it: refused either way, tested above


@settings(max_examples=300, deadline=None)
@given(n=_int, f=_finite, s=_text, b=st.none() | st.booleans(),
       xs=st.lists(_int, max_size=5), t=st.tuples(_int, _text),
       m=st.dictionaries(_text, _finite, max_size=5),
       many=st.lists(st.builds(Inner, x=_finite, tags=st.tuples(_text) | st.just(())), max_size=3))
def test_any_plain_payload_has_the_same_text_either_way(n: int, f: float, s: str, b: bool | None, xs: list[int],
                                                        t: tuple[int, str], m: dict[str, float],
                                                        many: list[Inner]) -> None:
    p = Plain(n=n, f=f, s=s, b=b, xs=xs, t=t, m=m, inner=many[0] if many else None, many=many)
    assert payload_json(p) == general(p)
