"""Events: payload models, the type registry, upcasters and the envelope.

A payload is a frozen pydantic model with a namespaced ``type`` and a ``version``
(class variables). Every payload class is registered once; the registry maps a
stored ``(type, version)`` to the current model, applying upcasters
(``upcast_v1_v2``-style functions) for old versions on read. Files are never
rewritten.

>>> from kingdomlog.core.events import canonical_json
>>> canonical_json({"b": 1, "a": [1, 2]})
'{"a":[1,2],"b":1}'
"""

from __future__ import annotations

import hashlib
import json
import json.encoder as _json_encoder
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from kingdomlog.core.errors import EventTypeError, InputError

GENESIS_HASH = "0" * 64
MAX_TURN = 2**31 - 1
"""The highest turn number the log stores (its ``turn`` column is a 32-bit integer)."""
MAX_PAYLOAD_INT = 2**53 - 1
"""The largest integer (either sign) a new event's payload may carry: every JSON reader (DuckDB's, a browser's,
a 64-bit column) reads it exactly. A log is never refused for what it holds; only new events are checked."""

VISIBILITY_PUBLIC = "public"
VISIBILITY_GM = "gm"


class EventModel(BaseModel):
    """Base class of every event payload: frozen, no unknown fields.

    ``defer_build``: a payload class's validator is built when its first event is decoded or
    drafted, not at import (a warm ``kingdomlog state`` decodes no event).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    type: ClassVar[str]
    version: ClassVar[int] = 1


E = TypeVar("E", bound=type[EventModel])

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]

_TYPES: dict[str, type[EventModel]] = {}
_UPCASTERS: dict[tuple[str, int], Upcaster] = {}
_TYPE_LOADERS: list[Callable[[str], None]] = []


def add_type_loader(load: Callable[[str], None]) -> None:
    """Call ``load(type_name)`` for a type not registered yet, to register it (by its namespace) before giving up."""
    if load not in _TYPE_LOADERS:
        _TYPE_LOADERS.append(load)


def is_registered(type_name: str) -> bool:
    """Whether a payload class is registered under ``type_name`` (no loading)."""
    return type_name in _TYPES


def register_event(cls: E) -> E:
    """Class decorator: register a payload model under its ``type`` string.

    Raises ``ValueError`` if the type is not namespaced (``ns.name``) or is taken
    by another class.
    """
    type_name = getattr(cls, "type", None)
    if not isinstance(type_name, str) or "." not in type_name:
        raise ValueError(f"{cls.__name__}: event type must be a namespaced string, got {type_name!r}")
    existing = _TYPES.get(type_name)
    if existing is not None and existing is not cls and (
        existing.__qualname__ != cls.__qualname__ or existing.__module__ != cls.__module__
    ):
        raise ValueError(f"event type {type_name!r} is registered twice ({existing!r}, {cls!r})")
    _TYPES[type_name] = cls
    return cls


def register_upcaster(type_name: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
    """Decorator: register a function turning a v``from_version`` payload dict into v+1."""

    def deco(fn: Upcaster) -> Upcaster:
        _UPCASTERS[(type_name, from_version)] = fn
        return fn

    return deco


def event_types() -> Mapping[str, type[EventModel]]:
    """Every registered payload type, by type string."""
    return dict(_TYPES)


def event_class(type_name: str, *, seq: int | None = None) -> type[EventModel]:
    """The payload class for ``type_name``; raises ``EventTypeError`` naming the seq."""
    if type_name not in _TYPES:
        # Payload types register when their ruleset imports them (at its import, or when its
        # ``event_types`` is first asked: pf2e's): let the registry of rulesets (``core.ruleset``,
        # which installs itself here) load the package of the type's namespace before declaring
        # the type unknown.
        for load in _TYPE_LOADERS:
            load(type_name)
            if type_name in _TYPES:
                break
    try:
        return _TYPES[type_name]
    except KeyError:
        where = f"seq {seq}: " if seq is not None else ""
        raise EventTypeError(
            f"{where}unknown event type {type_name!r} (is its ruleset installed?)"
        ) from None


def decode_payload(
    type_name: str, version: int, payload: str | Mapping[str, Any], *, seq: int | None = None
) -> EventModel:
    """Validate a stored payload into its current model, upcasting old versions.

    Raises ``EventTypeError`` for an unknown type, a version newer than the code
    knows, or a missing upcaster; ``InputError`` when the payload does not validate.
    """
    cls = event_class(type_name, seq=seq)
    where = f"seq {seq}: " if seq is not None else ""
    if version > cls.version:
        raise EventTypeError(
            f"{where}event {type_name!r} has version {version}, newer than this code knows"
            f" (v{cls.version}); upgrade kingdomlog to read this log"
        )
    if version < 1:
        raise EventTypeError(f"{where}event {type_name!r} has invalid version {version}")
    if isinstance(payload, str):
        try:
            data = json.loads(payload)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}payload of {type_name!r} is not JSON: {exc}") from None
    else:
        data = dict(payload)
    if not isinstance(data, dict):
        raise InputError(f"{where}payload of {type_name!r} must be a JSON object")
    v = version
    while v < cls.version:
        up = _UPCASTERS.get((type_name, v))
        if up is None:
            raise EventTypeError(f"{where}no upcaster for {type_name!r} from v{v} to v{v + 1}")
        data = up(data)
        v += 1
    try:
        return cls.model_validate(data)
    except ValidationError as exc:
        raise InputError(f"{where}payload of {type_name!r} is invalid: {_short(exc)}") from None


def _short(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(x) for x in err["loc"]) or "(payload)"
        parts.append(f"{loc}: {err['msg']}")
    more = exc.error_count() - 5
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts)


def canonical_json(value: Any) -> str:
    """Canonical JSON (docs/log-format.md): keys sorted by code point, no spaces, UTF-8 kept, finite numbers only.

    Used for payloads and hashes. Raises ``InputError`` for a NaN or an infinity (JSON has
    no spelling for them; ``json.dumps`` would write ``NaN``, which no other reader accepts)
    naming where it sits, and for text that is not valid Unicode (a lone surrogate, as a
    file or an argument that is not UTF-8 decodes to).

    >>> canonical_json({"b": 1.5, "a": ["é", None, True, 10**20]})
    '{"a":["é",null,true,100000000000000000000],"b":1.5}'
    >>> canonical_json({"x": [1, float("nan")]})
    Traceback (most recent call last):
    ...
    kingdomlog.core.errors.InputError: x[1] is nan; events carry only finite numbers (JSON has no NaN or Infinity)
    """
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except ValueError:
        where = _non_finite(value, "")
        if where is None:
            raise
        raise InputError(f"{where[0] or '(value)'} is {where[1]}; events carry only finite numbers"
                         " (JSON has no NaN or Infinity)") from None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(f"text holds {text[exc.start:exc.end]!r}, which is not a Unicode character (the input was"
                         " not UTF-8)") from None
    return text


_LONG_NUMBER = re.compile(r"\d{16}")
"""A run of 16 digits: the only way a number past ``MAX_PAYLOAD_INT`` can be written (cheap to look for)."""


def _first(value: Any, path: str, bad: Callable[[Any], bool]) -> tuple[str, Any] | None:
    """Where the first leaf of ``value`` that is ``bad`` sits (``a.b[2]``, keys in sorted order) and what it is."""
    if isinstance(value, Mapping):
        for k in sorted(value, key=str):
            found = _first(value[k], f"{path}.{k}" if path else str(k), bad)
            if found is not None:
                return found
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            found = _first(v, f"{path}[{i}]", bad)
            if found is not None:
                return found
    elif bad(value):
        return path, value
    return None


def _too_large(value: Any, path: str) -> tuple[str, int] | None:
    """Where the first integer of ``value`` past ``MAX_PAYLOAD_INT`` sits (``a.b[2]``) and what it is, or None."""
    return _first(value, path, lambda v: isinstance(v, int) and not isinstance(v, bool) and abs(v) > MAX_PAYLOAD_INT)


def _non_finite(value: Any, path: str) -> tuple[str, float] | None:
    """Where the first non-finite float of ``value`` sits (``a.b[2]``) and what it is, or None."""
    return _first(value, path, lambda v: isinstance(v, float) and not math.isfinite(v))


_PLAIN_SCHEMA_TYPES = frozenset({
    "model", "model-fields", "model-field", "str", "int", "bool", "float", "none", "nullable", "default",
    "list", "tuple", "dict", "literal", "union", "tagged-union", "definitions", "definition-ref",
})
"""Core-schema types whose Python-mode dump is JSON's own values (``dict`` only with ``str`` keys)."""

_PLAIN_CLASSES: dict[type, bool] = {}


def _plain_schema(node: Any) -> bool:
    """Whether a pydantic core schema is built only of ``_PLAIN_SCHEMA_TYPES`` with no custom serializer."""
    if isinstance(node, list):
        return all(_plain_schema(x) for x in node)
    if not isinstance(node, dict):
        return True
    if "serialization" in node or node.get("computed_fields"):
        return False
    t = node.get("type")
    if isinstance(t, str):
        if t not in _PLAIN_SCHEMA_TYPES:
            return False
        if t == "dict" and (node.get("keys_schema") or {}).get("type") != "str":
            return False
        if t == "model" and (node.get("config") or {}).get("extra_fields_behavior") == "allow":
            return False
        if t == "model-fields" and node.get("extras_schema") is not None:
            return False
    for k, v in node.items():
        if k in ("fields", "choices") and isinstance(v, dict):  # name (or tag) -> sub-schema
            if not all(_plain_schema(x) for x in v.values()):
                return False
            continue
        if k in ("type", "cls", "ref", "metadata", "config", "expected", "custom_error_type", "default",
                 "default_factory", "discriminator", "model_name", "title"):
            continue  # not sub-schemas (``literal``'s values are checked by the encoder: not JSON, not fast)
        if isinstance(v, (dict, list)) and not _plain_schema(v):
            return False
    return True


def _plain_class(cls: type[EventModel]) -> bool:
    """Whether ``cls``'s Python-mode dump is already what its JSON-mode dump is (cached per class).

    True only for payloads of strings, integers, floats, booleans, nulls, lists, tuples, ``str``-keyed
    dicts and nested such models, with no custom serializer, computed field or extra fields: their
    JSON-mode dump differs from the Python-mode one only in tuples becoming lists, which JSON writes
    alike. Anything else (datetimes, enums, sets, ``Any``, validators that may store other values...)
    is not, and takes the JSON-mode dump.
    """
    hit = _PLAIN_CLASSES.get(cls)
    if hit is None:
        try:
            hit = _plain_schema(cls.__pydantic_core_schema__)
        except Exception:  # a schema not built, or not of the shape expected: the general path
            hit = False
        _PLAIN_CLASSES[cls] = hit
    return hit


_c_make_encoder: Any = getattr(_json_encoder, "c_make_encoder", None)  # None only without the C accelerator
_encode_str = _json_encoder.encode_basestring  # json.dumps(ensure_ascii=False)'s string escaper


def _no_default(o: Any) -> Any:
    raise TypeError(f"not JSON: {type(o).__name__}")


def _plain_json(value: Any) -> str:
    """``value`` as canonical JSON by the C encoder (sorted keys, UTF-8 kept, NaN refused: ``ValueError``),
    ``TypeError`` for anything that is not JSON's own; what ``canonical_json`` writes for the same value."""
    if _c_make_encoder is None:  # pragma: no cover
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    enc = _c_make_encoder({}, _no_default, _encode_str, None, ":", ",", True, False, False)
    return "".join(enc(value, 0))


def payload_json(payload: EventModel) -> str:
    """The canonical JSON text of a payload (what the log stores); ``InputError`` naming the event type.

    Non-finite numbers are refused wherever they sit: pydantic's JSON mode would write a
    NaN inside an ``Any`` field as ``null`` (silently altered), and one in a ``float`` field
    as ``NaN`` (not JSON).

    A payload of a plain class (``_plain_class``) is written from its Python-mode dump in one
    pass of the C encoder, which refuses a non-finite number itself; any refusal (or a value the
    encoder does not take) goes the general way below, which names where it sits. The text is
    the same either way (``tests/core/test_payload_json.py``).

    An integer past ``MAX_PAYLOAD_INT`` is refused too (issue 28: a GM's 10**30 was written, and
    every later SQL query over the log broke); only a text with 16 digits in a row is searched.
    """
    dump = payload.model_dump()
    text = None
    if _plain_class(type(payload)):
        try:
            text = _plain_json(dump)
            text.encode("utf-8")
        except (ValueError, TypeError, UnicodeEncodeError):
            text = None
    if text is None:
        where = _non_finite(dump, "")
        if where is not None:
            raise InputError(f"event {payload.type!r}: payload: {where[0]} is {where[1]}; events carry only finite"
                             " numbers (JSON has no NaN or Infinity)")
        try:
            text = canonical_json(payload.model_dump(mode="json"))
        except InputError as exc:
            raise InputError(f"event {payload.type!r}: payload: {exc}") from None
    if _LONG_NUMBER.search(text):
        big = _too_large(dump, "")
        if big is not None:
            raise InputError(f"event {payload.type!r}: payload: {big[0] or '(value)'} is {big[1]}, past the largest"
                             f" integer an event carries ({MAX_PAYLOAD_INT}, either sign)")
    return text


def payload_texts(payloads: Sequence[EventModel]) -> list[str]:
    """``payload_json`` of each payload (the same texts, the same refusals), for a batch at once.

    What ``store.codec.encode`` writes: a payload of a plain class is dumped by its class's serializer (what
    ``model_dump`` calls, without its per-call wrapper) and written by one C encoder made once per batch; the
    batch's texts are then checked together (valid UTF-8, no run of 16 digits) in one pass each. Anything else,
    and any batch a check does not pass, goes through ``payload_json`` payload by payload, whose refusals name
    the event type and where the value sits (``tests/core/test_payload_json.py`` holds the texts equal).

    >>> from kingdomlog.core.core_events import NoteAdded
    >>> payload_texts([NoteAdded(text="Lost \\"hex\\" B4", title="")])
    ['{"text":"Lost \\\\"hex\\\\" B4","title":""}']
    """
    if _c_make_encoder is None:  # pragma: no cover
        return [payload_json(p) for p in payloads]
    enc = _c_make_encoder({}, _no_default, _encode_str, None, ":", ",", True, False, False)
    out: list[str] = []
    for p in payloads:
        cls = type(p)
        text = None
        if _plain_class(cls):
            try:
                text = "".join(enc(cls.__pydantic_serializer__.to_python(p), 0))
            except (ValueError, TypeError):
                text = None
        out.append(payload_json(p) if text is None else text)
    joined = "\n".join(out)  # a separator that is no digit: a run of 16 digits cannot span two texts
    try:
        joined.encode("utf-8")
    except UnicodeEncodeError:
        return [payload_json(p) for p in payloads]
    if _LONG_NUMBER.search(joined):
        return [payload_json(p) for p in payloads]
    return out


@dataclass(frozen=True)
class Draft:
    """An event a ruleset decided on, before the store gives it a place in the log.

    ``turn`` is the turn it belongs to (set by the step that emits it, or by whoever
    appends it); the store refuses a draft without one.
    """

    payload: EventModel
    phase: str | None = None
    actor: str = "gm"
    visibility: str = VISIBILITY_PUBLIC
    turn: int | None = None

    @property
    def type(self) -> str:
        return self.payload.type

    def at_turn(self, turn: int) -> Draft:
        """This draft placed in ``turn``."""
        return replace(self, turn=turn)


@dataclass(frozen=True)
class RecordedEvent:
    """One event of the log: the envelope of design §3 with its decoded payload.

    ``payload_text`` is the payload exactly as stored (hashes are over it), and
    ``payload`` the model after upcasting.
    """

    campaign: str
    seq: int
    turn: int
    phase: str | None
    type: str
    version: int
    actor: str
    visibility: str
    payload: EventModel
    payload_text: str
    recorded_at: datetime
    event_id: str
    commit_id: str
    prev_hash: str = GENESIS_HASH
    hash: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    def envelope(self) -> dict[str, Any]:
        """The stored columns as a dict (payload as its stored text)."""
        return {
            "campaign": self.campaign,
            "seq": self.seq,
            "turn": self.turn,
            "phase": self.phase,
            "type": self.type,
            "version": self.version,
            "actor": self.actor,
            "visibility": self.visibility,
            "payload": self.payload_text,
            "recorded_at": self.recorded_at,
            "event_id": self.event_id,
            "commit_id": self.commit_id,
            "prev_hash": self.prev_hash,
            "hash": self.hash,
        }

    def with_hash(self, prev_hash: str) -> RecordedEvent:
        """A copy chained after ``prev_hash``."""
        linked = replace(self, prev_hash=prev_hash)
        return replace(linked, hash=event_hash(linked.envelope()))


def renumber(events: Sequence[RecordedEvent]) -> list[RecordedEvent]:
    """``events`` (what one viewer may see, in log order) numbered 1, 2, 3, … and chained among themselves.

    The copy a viewer other than the GM receives (docs/log-format.md, "a viewer's own
    numbering"): each event gets the viewer's ``seq``, ``prev_hash`` = the viewer's previous
    event's hash (genesis for the first) and ``hash`` = the event hash with those values, so
    nothing of a hidden event (its seq, its hash, how many there are) shows. For the whole
    log this is the log itself.
    """
    out: list[RecordedEvent] = []
    prev = GENESIS_HASH
    for i, ev in enumerate(events, start=1):
        if ev.seq == i and ev.prev_hash == prev and ev.hash:
            out.append(ev)  # already in this numbering (the GM's, or a prefix with nothing hidden)
        else:
            out.append(replace(ev, seq=i, prev_hash=prev).with_hash(prev))
        prev = out[-1].hash
    return out


PREVIEW_TIME = datetime(1970, 1, 1, tzinfo=UTC)
"""``recorded_at`` of events that exist only in a preview."""


def record(
    draft: Draft,
    *,
    campaign: str,
    seq: int,
    recorded_at: datetime,
    event_id: str,
    commit_id: str,
    prev_hash: str = GENESIS_HASH,
    turn: int | None = None,
) -> RecordedEvent:
    """The one place an event's envelope is built from a draft (the store and previews both call it).

    ``turn`` overrides the draft's; one of them must be set. With ``prev_hash`` the
    event is chained (its ``hash`` computed); previews leave it at genesis.
    """
    t = draft.turn if turn is None else turn
    if t is None:
        raise InputError(f"event {draft.type!r} has no turn")
    if not 0 <= t <= MAX_TURN:
        raise InputError(f"event {draft.type!r}: turn {t} is out of range (0 to {MAX_TURN})")
    text = payload_json(draft.payload)
    ev = RecordedEvent(
        campaign=campaign, seq=seq, turn=t, phase=draft.phase, type=draft.payload.type,
        version=draft.payload.version, actor=draft.actor, visibility=draft.visibility, payload=draft.payload,
        payload_text=text, recorded_at=recorded_at, event_id=event_id, commit_id=commit_id, prev_hash=prev_hash,
    )
    return replace(ev, hash=event_hash(ev.envelope()))


def provisional(campaign: str, seq: int, draft: Draft, *, turn: int | None = None) -> RecordedEvent:
    """A recorded-event stand-in for a draft, so the fold can run before anything is stored."""
    return record(draft, campaign=campaign, seq=seq, recorded_at=PREVIEW_TIME, event_id=f"draft-{seq}",
                  commit_id="draft", turn=turn)


HASHED_FIELDS = (
    "campaign",
    "seq",
    "turn",
    "phase",
    "type",
    "version",
    "actor",
    "visibility",
    "payload",
    "recorded_at",
    "event_id",
    "commit_id",
    "prev_hash",
)


def event_hash(envelope: Mapping[str, Any]) -> str:
    """sha256 over the canonical JSON of the hashed envelope fields (prev_hash included)."""
    doc = {}
    for key in HASHED_FIELDS:
        value = envelope[key]
        if isinstance(value, datetime):
            value = value.isoformat()
        doc[key] = value
    return hashlib.sha256(canonical_json(doc).encode("utf-8")).hexdigest()
