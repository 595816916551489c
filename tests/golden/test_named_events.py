"""A logged ``pf2e.named`` / ``pf1.named`` event (the GM's name for what a Foundry import left unnamed) reads as it
always has: both are ``core.foreign.GivenName`` now, each ruleset keeping its type string and its ``what``.
The demos hold none, so the goldens beside this file do not cover them."""

from __future__ import annotations

from typing import Any

import pytest

from kingdomlog.core.errors import InputError
from kingdomlog.core.events import decode_payload


@pytest.mark.parametrize(("type_name", "stored", "read"), [
    ("pf2e.named", '{"id":"SceneTusk0000001","name":" Tusk Hollow ","what":"settlement"}',
     {"what": "settlement", "id": "SceneTusk0000001", "name": "Tusk Hollow"}),
    ("pf2e.named", '{"id":"ruler","name":"Kesten Garess","what":"leader"}',
     {"what": "leader", "id": "ruler", "name": "Kesten Garess"}),
    ("pf1.named", '{"id":"C1","name":"Tatzlford","what":"city"}', {"what": "city", "id": "C1", "name": "Tatzlford"}),
    ("pf1.named", '{"id":"ActorRestovRuler","name":"x' + "y" * 99 + '","what":"leader"}',
     {"what": "leader", "id": "ActorRestovRuler", "name": "x" + "y" * 99}),
])
def test_a_logged_named_event_reads_as_it_did(type_name: str, stored: str, read: dict[str, Any]) -> None:
    e = decode_payload(type_name, 1, stored)
    assert e.type == type_name and type(e).__name__ == "Named"
    assert e.model_dump() == read


@pytest.mark.parametrize(("type_name", "stored", "said"), [
    ("pf2e.named", {"what": "city", "id": "C1", "name": "X"}, "what: Input should be 'settlement' or 'leader'"),
    ("pf1.named", {"what": "settlement", "id": "S1", "name": "X"}, "what: Input should be 'city' or 'leader'"),
    ("pf2e.named", {"what": "leader", "id": "ruler", "name": "   "}, "name: Value error, name must not be empty"),
    ("pf1.named", {"what": "city", "id": "C1", "name": "x" * 101}, "name: String should have at most 100 characters"),
    ("pf1.named", {"what": "city", "id": "", "name": "X"}, "id: String should have at least 1 character"),
    ("pf2e.named", {"what": "leader", "id": "ruler", "name": "X", "by": "gm"}, "by: Extra inputs are not permitted"),
])
def test_a_named_event_is_refused_as_it_was(type_name: str, stored: dict[str, Any], said: str) -> None:
    with pytest.raises(InputError, match=f"payload of '{type_name}' is invalid: {said}"):
        decode_payload(type_name, 1, stored)
