"""Kingdoms kept by other tools (issue 32): the seam a ruleset implements to import one and to export it back.

A ruleset lists the documents it reads in ``Ruleset.foreign_formats()``: each ``ForeignFormat`` says how to
recognise one (``detect``), how to turn it into the first batch of a new campaign (``read`` ->
``ForeignKingdom``: options, the events that record the kingdom as a fact, homebrew data files, and every field
that could not be mapped), and, when the format can be written, how to write a state back (``write``).

``Doc`` is how a reader walks a foreign document: every value is read through it with its type and bounds, so a
malformed document is refused with one line naming the field (``kingdom-sheet.leaders.ruler.invested must be
true or false, got 'yes'``), and every key the reader never touched is listed as unmapped by ``Doc.leftovers``:
nothing the source holds is dropped silently.

>>> d = Doc({"level": 3, "notes": "x", "empty": []}, "k")
>>> d.integer("level", 1, 20)
3
>>> [(u.field, u.value) for u in d.leftovers("not read")]
[('k.notes', 'x')]
>>> Doc({"level": "3"}, "k").integer("level", 1, 20)
Traceback (most recent call last):
...
kingdomlog.core.errors.InputError: field k.level must be a whole number from 1 to 20, got '3'
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import Field, field_validator

from kingdomlog.core.errors import InputError
from kingdomlog.core.events import Draft, EventModel
from kingdomlog.core.model import Frozen

MISSING: Any = object()


class UnmappedField(Frozen):
    """A field of an imported kingdom that kingdomlog does not hold: where it was, its value, and why."""

    field: str = Field(min_length=1, max_length=500)
    value: Any = None
    why: str = Field(min_length=1, max_length=500)


class ImportedKingdom(EventModel):
    """The fields of a ruleset's ``kingdom_imported`` event: a kingdom kept by another tool, as it stood.

    A ruleset subclasses it with its ``type``, the state fields an import never carries (``not_imported``: the
    campaign's own) and ``check_state`` (the ``kingdom`` must make a state of that ruleset). ``kingdom``: the
    state's stored fields, taken by the fold as they are; ``source`` the format it came from, ``source_version``
    the schema it was written in, ``file`` the file's name; ``unmapped`` what the source held that kingdomlog does
    not (the import's report), kept with the fact so it is never lost.
    """

    not_imported: ClassVar[frozenset[str]] = frozenset()
    source: str = Field(min_length=1, max_length=100)
    source_title: str = Field(default="", max_length=200)
    source_version: str = Field(default="", max_length=200)
    file: str = Field(default="", max_length=500)
    kingdom: dict[str, Any]
    unmapped: list[UnmappedField] = Field(default_factory=list)

    @classmethod
    def check_state(cls, kingdom: dict[str, Any]) -> None:
        """Raise if ``kingdom`` does not make a state of the ruleset (the subclass says how)."""
        raise NotImplementedError

    def came_from(self) -> str:
        """Where the kingdom came from, for a chronicle: the source's title (else its id) and the file's name.

        >>> ImportedKingdom.model_construct(source="kmt", source_title="A sheet", file="k.json").came_from()
        'A sheet (k.json)'
        """
        return (self.source_title or self.source) + (f" ({self.file})" if self.file else "")

    def left_behind(self) -> str:
        """``; N fields of the source stayed behind (the import's report)``, for a chronicle; "" when none did."""
        n = len(self.unmapped)
        return f"; {n} field{'' if n == 1 else 's'} of the source stayed behind (the import's report)" if n else ""

    @field_validator("kingdom")
    @classmethod
    def _a_kingdom(cls, v: dict[str, Any]) -> dict[str, Any]:
        bad = sorted(cls.not_imported & set(v))
        if bad:
            raise ValueError(f"kingdom may not carry {', '.join(bad)} (the campaign's own)")
        cls.check_state(v)
        return v


NAME_MAX = 100
"""The longest name a GM may give what a Foundry import left without one (``GivenName.name``)."""

UNNAMED = " (unnamed in Foundry)"
"""How a name a Foundry export did not hold ends: "Settlement 1 (unnamed in Foundry)", "Ruler (unnamed in Foundry)"."""


class GivenName(EventModel):
    """The fields of a ruleset's ``named`` event: the GM named a settlement or a leader that came without a name
    (a Foundry export keeps only a scene's and an actor's ids).

    A ruleset subclasses it with its ``type`` and narrows ``what`` to what it names (``Literal[...]``); ``id``
    says which one (a settlement's id, a leader's actor id or role: the ruleset's); ``name`` is stripped and may
    not be empty.
    """

    what: str
    id: str = Field(min_length=1, max_length=200)
    name: str = Field(min_length=1, max_length=NAME_MAX)

    @field_validator("name")
    @classmethod
    def _words(cls, v: str) -> str:
        v = v.strip()
        if not v:
            raise ValueError("name must not be empty")
        return v


@dataclass(frozen=True)
class Unmapped:
    """A field of the source kingdomlog does not hold: where it was, its value (JSON), and why."""

    field: str
    value: Any
    why: str

    def line(self) -> str:
        """``field = value: why`` with the value as compact JSON (long values cut at 120 characters)."""
        text = json.dumps(self.value, ensure_ascii=False, sort_keys=True)
        if len(text) > 120:
            text = text[:117] + "..."
        return f"{self.field} = {text}: {self.why}"

    def as_dict(self) -> dict[str, Any]:
        return {"field": self.field, "value": self.value, "why": self.why}


@dataclass(frozen=True)
class ForeignKingdom:
    """A foreign kingdom read for a new campaign: everything the campaign is created with.

    ``events`` are the first batch (turn 0) after the campaign's configuration; ``homebrew`` maps a data file's
    stem to its document (written to the campaign's ``data/`` as TOML before the batch is appended);
    ``unmapped`` is the report of what the source holds that kingdomlog does not.
    """

    format: str
    version: str
    name: str
    options: dict[str, Any]
    events: list[Draft]
    homebrew: dict[str, Any] = field(default_factory=dict)
    unmapped: tuple[Unmapped, ...] = ()


@dataclass(frozen=True)
class Carried:
    """What the campaign's import found and its state does not hold, for a writer to give back to the source
    tool (so going back to it loses nothing the import listed): ``imported`` the import event (its ``unmapped``
    report and the ``kingdom`` as it stood; None for a campaign founded here) and ``notes`` the source's notes
    the import kept as journal entries, by visibility (``public``, ``gm``)."""

    imported: ImportedKingdom | None = None
    notes: Mapping[str, str] = field(default_factory=dict)
    secret: tuple[Unmapped, ...] = ()
    """What the import listed in the GM's journal only (``SECRET_TITLE``), not in its event."""


@dataclass(frozen=True)
class ForeignFormat:
    """A kind of document another kingdom tool exports.

    ``marker`` names the field that tells this format apart (shown when a document is not recognised);
    ``detect(doc)`` says whether a parsed JSON document is one; ``read(doc)`` maps it (raising ``InputError``
    naming the field for a malformed one); ``write(state, carried)`` gives the document back for a state, with
    what the campaign's import ``carried`` and the state does not hold (None: this format is read only).
    """

    id: str
    title: str
    marker: str
    detect: Callable[[Any], bool]
    read: Callable[[Any], ForeignKingdom]
    write: Callable[[Any, Carried], Any] | None = None
    name: Callable[[ForeignKingdom, Mapping[str, str]], ForeignKingdom] | None = None
    """The kingdom read with the names the GM gives (``{id: name}``) for what the export holds only ids of
    (Foundry scenes and actors); ``InputError`` for an id the kingdom does not hold or a name too long or empty."""
    unnamed: Callable[[Any], list[tuple[str, str]]] | None = None
    """What of a state is still without a name: (the id to name it by, its placeholder in words)."""
    naming: Callable[[Any, Mapping[str, str]], list[Draft]] | None = None
    """The events recording the GM's names (``{id: name}``) for the state's unnamed settlements and leaders."""


def placeholder(label: str) -> str:
    """What a page shows for a settlement or a leader a Foundry export holds only the id of, until the GM names it.

    >>> placeholder("Settlement 2")
    'Settlement 2 (unnamed in Foundry)'
    """
    return f"{label}{UNNAMED}"


def given_name(name: Any, given_as: str) -> str:
    """The GM's ``name`` for what an import left unnamed, stripped; ``InputError`` naming ``given_as`` for one that
    is not words or is longer than ``NAME_MAX``.

    >>> given_name("  Tusk Hollow ", "name S1")
    'Tusk Hollow'
    >>> given_name(" ", "--name S1")
    Traceback (most recent call last):
    ...
    kingdomlog.core.errors.InputError: --name S1: the name must be words, got ' '
    """
    text = name.strip() if isinstance(name, str) else name
    if not isinstance(text, str) or not text:
        raise InputError(f"{given_as}: the name must be words, got {name!r}")
    if len(text) > NAME_MAX:
        raise InputError(f"{given_as}: the name is {len(text)} characters; at most {NAME_MAX}")
    return text


def find_named(ident: str, candidates: Iterable[tuple[str, str, Collection[str], str | None]]
               ) -> tuple[str, str] | None:
    """What ``ident`` names among ``candidates``, each (what it is, the id its ``GivenName`` event names it by, the
    ids it answers to, the name a page shows or None): by one of its ids first, else by the name a page shows,
    case aside ("settlement 2 (unnamed in foundry)"); None when it names none.

    >>> kingdom = [("settlement", "S1", {"S1"}, placeholder("Settlement 1")),
    ...            ("leader", "ruler", {"ruler", "A.7"}, "Amiri")]
    >>> find_named("A.7", kingdom), find_named(" SETTLEMENT 1 (unnamed in Foundry)", kingdom), find_named("S9", kingdom)
    (('leader', 'ruler'), ('settlement', 'S1'), None)
    """
    pool = list(candidates)
    hit = next(((what, key) for what, key, ids, _ in pool if ident in ids), None)
    if hit is not None:
        return hit
    shown = ident.strip().casefold()
    return next(((what, key) for what, key, _, name in pool if name is not None and name.casefold() == shown), None)


def named_target(ident: str, candidates: Iterable[tuple[str, str, Collection[str], str | None]], given_as: str,
                 *, kinds: str, ids: str, unnamed: Iterable[str]) -> tuple[str, str]:
    """``find_named``, or the one refusal both Foundry readers give for an ident the kingdom lacks: ``InputError``
    naming ``given_as``, what may be named (``kinds``: "city or leader"), the ids it answers to (``ids``, in the
    ruleset's own words) and those still unnamed.

    >>> named_target("S9", [("settlement", "S1", {"S1"}, None)], "--name S9", kinds="settlement",
    ...              ids="a settlement's id", unnamed=["S1"])
    Traceback (most recent call last):
    ...
    kingdomlog.core.errors.InputError: --name S9: the kingdom has no settlement by that id (a settlement's id; still \
unnamed: S1)
    """
    target = find_named(ident, candidates)
    if target is None:
        left = ", ".join(unnamed) or "none is unnamed"
        raise InputError(f"{given_as}: the kingdom has no {kinds} by that id ({ids}; still unnamed: {left})")
    return target


S = TypeVar("S")
N = TypeVar("N", bound=GivenName)


@dataclass(frozen=True)
class Naming(Generic[S, N]):
    """How a ruleset records the GM's names (``{id: name}``) for what its Foundry import left unnamed, at the import
    (``kingdom``: ``--name ID=NAME``) or afterwards (``drafts``: ``kingdomlog name``, the GM sheet's Give the name).

    ``event(state, id, name, given_as)`` is the ruleset's ``named`` event for one (``InputError`` naming
    ``given_as`` for an id the state does not hold or a name refused); ``apply`` gives the state with it;
    ``imported`` is the ruleset's import event, ``state_of`` makes a state of its ``kingdom`` and ``stored`` gives
    a state's fields back for it. Each name is taken in the state the ones before it made (two leaders may not
    take one name).
    """

    imported: type[ImportedKingdom]
    state_of: Callable[[dict[str, Any]], S]
    stored: Callable[[S], dict[str, Any]]
    event: Callable[[S, str, Any, str], N]
    apply: Callable[[S, N], S]

    def drafts(self, state: S, names: Mapping[str, str]) -> list[Draft]:
        """The ``named`` events recording ``names`` in ``state``, by the GM (each refusal names ``name ID``)."""
        out = []
        for ident, name in names.items():
            e = self.event(state, ident, name, f"name {ident}")
            state = self.apply(state, e)
            out.append(Draft(e, actor="gm"))
        return out

    def kingdom(self, fk: ForeignKingdom, names: Mapping[str, str]) -> ForeignKingdom:
        """The imported kingdom ``fk`` with ``names`` given in its import event's ``kingdom`` (each refusal names
        ``--name ID``); no event of its own: the import records the kingdom as it stands."""
        if not names:
            return fk
        drafts = list(fk.events)
        at = next(i for i, d in enumerate(drafts) if isinstance(d.payload, self.imported))
        imp = drafts[at].payload
        assert isinstance(imp, ImportedKingdom)
        state = self.state_of(imp.kingdom)
        for ident, name in names.items():
            state = self.apply(state, self.event(state, ident, name, f"--name {ident}"))
        drafts[at] = replace(drafts[at], payload=imp.model_copy(update={"kingdom": self.stored(state)}))
        return replace(fk, events=drafts)


def note_drafts(text: str, title: str, *, visibility: str, turn: int) -> list[Draft]:
    """Journal entries (``core.note_added``) holding ``text`` whole: one entry per 20,000 characters.

    >>> [d.payload.title for d in note_drafts("x" * 20_001, "Notes", visibility="gm", turn=0)]
    ['Notes', 'Notes (part 2)']
    """
    from kingdomlog.core.core_events import NoteAdded

    size = 20_000
    parts = [text[i:i + size] for i in range(0, len(text), size)] if text.strip() else []
    return [Draft(NoteAdded(text=part, title=title if i == 0 else f"{title} (part {i + 1})"), turn=turn,
                  visibility=visibility) for i, part in enumerate(parts)]


SECRET_TITLE = "Kept from the players: what the Foundry sheet keeps secret"
"""The GM's journal entry an import writes for what the source keeps from its players (an event's secret place,
a companion's plot hook): never in the import event, which every viewer of the kingdom sees."""


def secret_drafts(secret: Sequence[Unmapped], *, turn: int) -> list[Draft]:
    """The GM-only journal entry holding ``secret``, one ``field = JSON: why`` a line (read back by
    ``read_secret``)."""
    from kingdomlog.core.core_events import NoteAdded

    if not secret:
        return []
    text = "\n".join(f"{u.field} = {json.dumps(u.value, ensure_ascii=False, sort_keys=True)}: {u.why}"
                     for u in secret)
    return [Draft(NoteAdded(text=text[:20_000], title=SECRET_TITLE), turn=turn, visibility="gm")]


def read_secret(text: str) -> list[Unmapped]:
    """The entries of a ``secret_drafts`` note (a line that does not read is skipped).

    >>> [(u.field, u.value) for u in read_secret('a.b = {"x": "y: z"}: why: because')]
    [('a.b', {'x': 'y: z'})]
    """
    out = []
    for line in text.splitlines():
        field, sep, rest = line.partition(" = ")
        try:
            value, end = json.JSONDecoder().raw_decode(rest)
        except ValueError:
            continue
        if sep and rest[end:].startswith(": "):
            out.append(Unmapped(field, value, rest[end + 2:]))
    return out


def holds_nothing(value: Any) -> bool:
    """A value that carries no information: null, false, zero, empty text, or a list or table of only those.

    >>> holds_nothing({"a": [], "b": {"c": 0, "d": False}}), holds_nothing({"a": [0, 1]})
    (True, False)
    """
    if isinstance(value, Mapping):
        return all(holds_nothing(v) for v in value.values())
    if isinstance(value, list):
        return all(holds_nothing(v) for v in value)
    return value is None or value is False or value == 0 or value == ""


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class Doc:
    """One JSON object of a foreign document, read field by field with its path (see the module's doctest).

    Every typed read marks its key as read; ``unmapped`` records a key read but not held; ``leftovers``
    walks this object and every child read through ``obj``/``objs`` and lists each key nobody read.
    """

    def __init__(self, data: Any, path: str) -> None:
        if not isinstance(data, Mapping):
            raise InputError(f"field {path} must be an object, got {_show(data)}")
        self.data: Mapping[str, Any] = data
        self.path = path
        self.read: set[str] = set()
        self.children: list[Doc] = []
        self.notes: list[Unmapped] = []

    def at(self, key: str) -> str:
        """The dotted path of ``key`` below this object ("" is the object itself)."""
        if not key:
            return self.path
        return f"{self.path}.{key}" if self.path else key

    def has(self, key: str) -> bool:
        return key in self.data

    def raw(self, key: str, default: Any = MISSING) -> Any:
        """The value at ``key`` as it is (marked read); ``default`` when absent, else the field is required."""
        self.read.add(key)
        if key not in self.data or (self.data[key] is None and default is not MISSING):
            if default is MISSING:
                raise InputError(f"field {self.at(key)} is missing")
            return default
        return self.data[key]

    def integer(self, key: str, lo: int, hi: int, default: Any = MISSING) -> int:
        v = self.raw(key, default)
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise InputError(f"field {self.at(key)} must be a whole number from {lo} to {hi}, got {_show(v)}")
        return v

    def flag(self, key: str, default: Any = MISSING) -> bool:
        v = self.raw(key, default)
        if not isinstance(v, bool):
            raise InputError(f"field {self.at(key)} must be true or false, got {_show(v)}")
        return v

    def text(self, key: str, default: Any = MISSING, *, choices: Sequence[str] = (), max_len: int = 20_000) -> str:
        v = self.raw(key, default)
        if not isinstance(v, str) or len(v) > max_len:
            raise InputError(f"field {self.at(key)} must be text (at most {max_len} characters), got {_show(v)}")
        if choices and v not in choices:
            raise InputError(f"field {self.at(key)} must be one of {', '.join(choices)}; got {v!r}")
        return v

    def opt_str(self, key: str) -> str | None:
        """Text or null (absent = null)."""
        v = self.raw(key, None)
        return None if v is None else self.text(key)

    def obj(self, key: str, default: Any = MISSING) -> Doc:
        v = self.raw(key, {} if default is not MISSING else MISSING)
        child = Doc(v, self.at(key))
        self.children.append(child)
        return child

    def items(self, key: str, default: Any = MISSING, *, max_len: int = 10_000) -> list[Any]:
        v = self.raw(key, [] if default is not MISSING else MISSING)
        if not isinstance(v, list) or len(v) > max_len:
            raise InputError(f"field {self.at(key)} must be a list (at most {max_len} entries), got {_show(v)}")
        return v

    def objs(self, key: str, default: Any = MISSING) -> Iterator[Doc]:
        """The objects of the list at ``key``, each a child ``Doc`` (``key[0]``, ``key[1]`` ...)."""
        for i, item in enumerate(self.items(key, default)):
            child = Doc(item, f"{self.at(key)}[{i}]")
            self.children.append(child)
            yield child

    def strs(self, key: str, default: Any = MISSING) -> list[str]:
        out = self.items(key, default)
        for i, v in enumerate(out):
            if not isinstance(v, str):
                raise InputError(f"field {self.at(key)}[{i}] must be text, got {_show(v)}")
        return out

    def unmapped(self, key: str, why: str, value: Any = MISSING) -> None:
        """Record ``key`` (read, or its given ``value``) as a field kingdomlog does not hold, unless it holds
        nothing."""
        v = self.raw(key, None) if value is MISSING else value
        if not holds_nothing(v):
            self.notes.append(Unmapped(self.at(key), v, why))

    def note(self, where: str, value: Any, why: str) -> None:
        """Record a value found under this object (``where`` relative to it) that was not mapped."""
        if not holds_nothing(value):
            self.notes.append(Unmapped(self.at(where), value, why))

    def skip(self, *keys: str) -> None:
        """Mark keys read that carry nothing to map by their nature (derived figures the fold recomputes)."""
        self.read.update(keys)

    def leftovers(self, why: str) -> list[Unmapped]:
        """What was recorded as unmapped here and below, then every key nobody read (``why``), in order."""
        out: list[Unmapped] = list(self.notes)
        for child in self.children:
            out.extend(child.leftovers(why))
        for key in self.data:
            if key not in self.read and not holds_nothing(self.data[key]):
                out.append(Unmapped(self.at(key), self.data[key], why))
        return out
