"""Typed step choices (design §6): one schema per step that validates plans, feeds forms and exports JSON Schema.

A step declares its inputs as a ``Choices`` model (pydantic, strict, unknown keys
refused). Values that must come from the campaign's state (a leader, a settlement, a
hex, an activity available now) are marked with ``Pick(source)``: the ruleset's
``vocabulary(state, source, within)`` lists the allowed ``Option`` values, computed
from the state, and ``within`` carries the sibling values of the same entry, so a
skill can depend on the activity chosen beside it.

The same declaration serves three readers:

- ``validate_choices``: a plan's ``choices`` for the step become a typed model, or an
  ``InputError`` that names the step, the key (``activities[1].leader``) and what is
  allowed;
- ``describe``: ``FieldSpec`` rows a form builds its widgets from (label, help, kind,
  allowed options with labels and details, bounds, nested entries);
- ``model_json_schema()`` of the model: each ``Pick`` adds ``x-kingdomlog-source``.

>>> class Harvest(Choices):
...     crop: typing.Annotated[str, Pick("crops", what="a crop")] = "wheat"
...     hands: int = Field(default=1, ge=0, le=9, title="Farm hands")
>>> vocab = lambda state, source, within: [Option("wheat"), Option("barley")]
>>> validate_choices(Harvest, {"crop": "barley"}, state=None, vocabulary=vocab, step="harvest").crop
'barley'
>>> validate_choices(Harvest, {"crop": "rye"}, state=None, vocabulary=vocab, step="harvest")
Traceback (most recent call last):
...
kingdomlog.core.errors.InputError: step 'harvest': choice crop: 'rye' is not a crop; allowed: wheat, barley
>>> validate_choices(Harvest, {"hand": 2}, state=None, vocabulary=vocab, step="harvest")
Traceback (most recent call last):
...
kingdomlog.core.errors.InputError: step 'harvest': unknown choice 'hand'; this step takes: crop, hands
>>> [(f.name, f.kind, f.label) for f in describe(Harvest, state=None, vocabulary=vocab)]
[('crop', 'select', 'Crop'), ('hands', 'int', 'Farm hands')]

Every number a person types is bounded where it enters (issue 28): ``Amount`` (a signed number: a delta, a
modifier, a GM's ruling) and ``Count`` (a number that cannot be negative) stop at ``LIMIT`` unless a field
declares its own ``Field(ge=..., le=...)``, and a free-form value (``FreeJson``) holds only JSON's own values
with numbers in the same bounds. The bounds are in the ``FieldSpec`` (``minimum``, ``maximum``) and the JSON
Schema; a value past them is refused naming the field:

>>> class Ruling(Choices):
...     amount: Amount = 0
>>> validate_choices(Ruling, {"amount": 10**9}, state=None, vocabulary=vocab, step="gm.adjust")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
kingdomlog.core.errors.InputError: step 'gm.adjust': choice amount: 1000000000 is above the largest allowed, 10000; ...
>>> [(f.minimum, f.maximum) for f in describe(Ruling, state=None, vocabulary=vocab)]
[(-10000.0, 10000.0)]
"""

from __future__ import annotations

import contextvars
import dataclasses
import math
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union

import annotated_types
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from kingdomlog.core.errors import InputError
from kingdomlog.core.memo import ByIdentity

__all__ = [
    "KEY",
    "KEYS",
    "LIMIT",
    "PARENT",
    "ROLLED",
    "Amount",
    "Choices",
    "Columns",
    "Count",
    "Field",
    "FieldSpec",
    "FreeJson",
    "InOrder",
    "NoChoices",
    "Option",
    "Pick",
    "Variant",
    "Vocabulary",
    "bounded_json",
    "describe",
    "field_options",
    "validate_choices",
]


LIMIT = 10_000
"""The largest number a person types into a choice unless its field declares its own bounds (issue 28).

No rule of the bundled rulesets comes near it, and under it nothing a choice feeds (a loop per threshold, a sum
folded over a campaign, a column a historian's query reads) can hang or overflow.
"""

Amount = Annotated[int, Field(ge=-LIMIT, le=LIMIT)]
"""A signed number typed in: a delta, a modifier, an amount of a GM's ruling (``-LIMIT`` to ``LIMIT``)."""

Count = Annotated[int, Field(ge=0, le=LIMIT)]
"""A number typed in that cannot be negative: a count, a quantity, a price, a score (0 to ``LIMIT``)."""

_JSON_DEPTH = 20
_JSON_ITEMS = 10_000


def bounded_json(value: Any) -> Any:
    """``value`` if it is JSON's own (objects with text keys, lists, text, booleans, null, finite numbers) with
    every number within ``±LIMIT``, at most 20 levels deep and 10,000 items; a ``ValueError`` naming where not.

    The check of a free-form choice (``FreeJson``: a GM's escape hatch), so it carries no number a later read
    cannot take.

    >>> bounded_json({"a": [1, -2.5, "x", None, True]})
    {'a': [1, -2.5, 'x', None, True]}
    >>> bounded_json({"a": [1, 10**30]})
    Traceback (most recent call last):
    ...
    ValueError: a[1]: 1000000000000000000000000000000 is outside -10000 to 10000
    """
    seen = 0

    def walk(v: Any, where: str, depth: int) -> None:
        nonlocal seen
        seen += 1
        if seen > _JSON_ITEMS or depth > _JSON_DEPTH:
            raise ValueError(f"{where or 'the value'}: more than {_JSON_ITEMS} items or {_JSON_DEPTH} levels")
        if v is None or isinstance(v, (bool, str)):
            return
        if isinstance(v, (int, float)):
            if not (isinstance(v, int) or math.isfinite(v)) or not -LIMIT <= v <= LIMIT:
                raise ValueError(f"{where or 'the value'}: {v!r} is outside {-LIMIT} to {LIMIT}")
            return
        if isinstance(v, Mapping):
            for k, x in v.items():
                if not isinstance(k, str):
                    raise ValueError(f"{where or 'the value'}: key {k!r} is not text")
                walk(x, f"{where}.{k}" if where else k, depth + 1)
            return
        if isinstance(v, (list, tuple)):
            for i, x in enumerate(v):
                walk(x, f"{where}[{i}]", depth + 1)
            return
        raise ValueError(f"{where or 'the value'}: a {type(v).__name__} is not a JSON value")

    walk(value, "", 0)
    return value


FreeJson = Annotated[Any, AfterValidator(bounded_json)]
"""A free-form value typed in (a GM's escape hatch): JSON's own values, numbers within ``±LIMIT``."""


class Choices(BaseModel):
    """Base of a step's choices: strict types, unknown keys refused, frozen.

    Use ``list[...]`` (not tuples) and ``Literal`` (not enums) so JSON plans validate
    in strict mode; give every field a default unless the step cannot play without it.

    ``defer_build``: a class's validator is built on its first use, not at import, so a command
    that plays no step (``kingdomlog state``) does not build those of every step of its ruleset.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, defer_build=True)

    @classmethod
    def unused(cls, values: Mapping[str, Any], state: Any) -> frozenset[str]:
        """The fields an entry holding ``values`` does not use (a Quell Unrest row takes no hex), for forms to
        leave out; validation is not changed by it. None by default: every field may matter.

        >>> NoChoices.unused({}, None)
        frozenset()
        """
        return frozenset()

    @classmethod
    def needed(cls, values: Mapping[str, Any], state: Any) -> frozenset[str]:
        """The optional fields an entry holding ``values`` cannot do without (its validator refuses it without them:
        a treaty effect's kind and parties), for forms to show at once; validation is not changed by it. None by
        default.

        >>> NoChoices.needed({}, None)
        frozenset()
        """
        return frozenset()

    @classmethod
    def shaped(cls, name: str, values: Mapping[str, Any], state: Any) -> Any:
        """How field ``name`` is asked on a form for an entry holding ``values``, when its declared type alone does
        not say: a type (a number, a pick of ids, a record's fields; a fixed tuple of picks, a dropdown per place:
        the branch of each either/or of an outcome), its label, help and default in an ``Annotated``
        ``Field(...)``; None (the default): as its type says (a free-form ``FreeJson`` value: one box for a number
        or words). Validation is not changed by it: the field still takes what its declared type takes, so a value
        logged in any shape reads as before, and one the shape does not fit keeps the field's own widget
        (``describe``).

        >>> NoChoices.shaped("value", {}, None) is None
        True
        """
        return None


class NoChoices(Choices):
    """The choices of a step that takes none (any key given is refused)."""


@dataclass(frozen=True)
class Option:
    """One allowed value of a ``Pick``: the value stored in the plan, a label and a detail for forms.

    ``detail`` says what a GM weighs when choosing ("+9, trained", "12 RP, 1 lot");
    ``disabled`` is a reason the value cannot be chosen now (kept visible, refused), short enough for a dropdown
    on a phone; ``refusal``: the whole reason a plan naming it is refused with, where ``disabled`` says less
    (signoria's "not in this battle" is refused as "Bianca is not in Doge of Marburg's army in this battle");
    ``alias``: another value a plan may hold for an option listed before it, read the same (pf1's city by its id
    ``C1``, beside its name "Tatzlford"): allowed, and a form lists it only where a plan holds it.
    """

    value: str | int | tuple[int, ...]
    """The value stored in the plan: a name, a number, or a pair of numbers (a block and a lot of a grid)."""
    label: str = ""
    detail: str = ""
    disabled: str = ""
    alias: bool = False
    refusal: str = ""

    @property
    def text(self) -> str:
        return self.label or str(self.value)


Vocabulary = Callable[[Any, str, Mapping[str, Any]], "Sequence[Option] | None"]
"""``vocabulary(state, source, within)``: the options of ``source`` now, or None when any value goes."""


@dataclass(frozen=True)
class Pick:
    """Field metadata: the value (or each value of a list) must be one of ``source``'s options.

    ``what`` names the kind of thing for error messages ("a leader of the kingdom");
    ``depends`` names sibling fields whose values narrow the options (for forms: the
    widget is rebuilt when they change).
    """

    source: str
    what: str = ""
    depends: tuple[str, ...] = ()
    open: bool = False
    """Offer the options but accept any value (the step's rules check it: e.g. a hex an earlier entry
    of the same step creates)."""

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: Any) -> dict[str, Any]:
        js = dict(handler(core_schema))
        js["x-kingdomlog-source"] = self.source
        if self.depends:
            js["x-kingdomlog-depends"] = list(self.depends)
        return js


@dataclass(frozen=True)
class InOrder:
    """Field metadata of a list picked in order whose items may repeat (the rerolls paid, one resource each): a
    form offers a dropdown per item, not a multiselect. ``most``: how many items at most."""

    most: int = 10


@dataclass(frozen=True)
class Columns:
    """Field metadata of a list of fixed pairs (``list[tuple[str, Amount]]``: a label and a value): what each
    place of a pair is called on a form, a line of boxes per pair."""

    names: tuple[str, ...]


KEYED = "key"
"""The name of the field that holds an entry's key when a mapping with keys of the GM's own (``dict[str, ...]``: an
army by its name, a PC by its id) is shown as rows (``FieldSpec.item_kind == "keyed"``)."""

FieldKind = Literal["select", "multiselect", "int", "float", "bool", "text", "list", "rows", "group", "variant",
                    "rounds", "mapping", "scalar", "kept", "json"]


@dataclass(frozen=True)
class FieldSpec:
    """What a form needs to show one choice: kind, label, help, allowed values, bounds, nested entries."""

    name: str
    label: str
    kind: FieldKind
    help: str = ""
    required: bool = False
    default: Any = None
    options: tuple[Option, ...] | None = None
    """Allowed values (select/multiselect); None when open (any value)."""
    source: str | None = None
    depends: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    fields: tuple[FieldSpec, ...] = ()
    """For ``rows`` and ``group``: the fields of one entry (options computed with no sibling values)."""
    entries: tuple[tuple[FieldSpec, ...], ...] = ()
    """For ``rows``: the fields of each given entry, options computed from that entry's values.
    For ``rounds`` (a list of lists of entries: a battle's rounds of orders): one ``rows`` field per given list
    (named by its index, ``Round 1``...), its entries computed from their values.
    For ``list`` picked place by place (a fixed tuple of picks: the branch of each either/or of an outcome):
    ``fields`` holds one ``select`` per place, named by its index, its options for that place.
    For ``mapping`` (a ``dict`` keyed by a ``Literal`` or a ``Pick``): ``fields`` holds one field per key that
    can be chosen now (its ``name`` the key as text, its label the key's name in words), ``options`` the keys.
    A ``rows`` field may stand for a mapping whose keys are the GM's own (``item_kind`` ``keyed``: each entry its
    key in the field ``KEYED``, then the value's fields, or one field ``value``) or for a list of fixed pairs
    (``item_kind`` ``tuple``: fields named ``0``, ``1``, ...); ``views.forms`` turns them into entries and back.
    ``scalar``: a number or words in one box (``int | str``, a GM's free-form value); ``kept``: a value no form
    shows (an either/or nested in an either/or), kept as given."""
    model: type[Choices] | None = None
    """For ``rows`` and ``group``: the entry's model."""
    variants: tuple[Variant, ...] = ()
    """For ``variant`` (and ``rows`` of variants): each kind of entry, told apart by ``discriminator``."""
    discriminator: str | None = None
    item_kind: str | None = None
    """For ``list``: the kind of one item (``int``, ``float``, ``text``, ``bool``); for ``rows``: ``keyed`` (a
    mapping shown as entries) or ``tuple`` (a list of fixed pairs)."""
    alone: tuple[Option, ...] = ()
    """For a ``multiselect`` or ``mapping`` typed as a union with plain values: each plain value, which stands
    for the whole field (``all`` the characters; all the Ruin points to one Ruin)."""
    unused: bool = False
    """The entry as its values make it does not use this field (``Choices.unused``: an activity that takes no hex):
    the GM sheet and a player's page leave it out (unless it holds a value)."""
    needed: bool = False
    """The entry as its values make it cannot do without this field though the model leaves it optional
    (``Choices.needed``: a treaty effect's parties): a form shows it at once, never folded."""


@dataclass(frozen=True)
class Variant:
    """One kind of entry of a ``variant`` field: its tag (the discriminator's value), label, model and fields."""

    tag: str
    label: str
    model: type[Choices]
    fields: tuple[FieldSpec, ...]


# ---- reading a field's declared type ------------------------------------------------------------


@dataclass(frozen=True)
class _Shape:
    base: Any  # the type with Optional/Annotated removed (list[...] kept)
    optional: bool
    meta: tuple[Any, ...]
    item: _Shape | None = None  # for list[...]: the shape of one item
    members: tuple[Any, ...] = ()  # for a union of several Choices models: the models
    value: _Shape | None = None  # for dict[str, ...]: the shape of one value
    key: _Shape | None = None  # for dict[...]: the shape of one key
    alone: tuple[Any, ...] = ()  # for a union of a list or a mapping with plain values: those values


def _unwrap(tp: Any, meta: tuple[Any, ...] = ()) -> _Shape:
    optional = False
    extra: list[Any] = list(meta)
    while True:
        origin = typing.get_origin(tp)
        if origin is typing.Annotated:
            ann = typing.get_args(tp)
            tp, extra = ann[0], [*extra, *ann[1:]]
            continue
        if origin in (Union, types.UnionType):
            members = [a for a in typing.get_args(tp) if a is not type(None)]
            if len(members) < len(typing.get_args(tp)):
                optional = True
            if len(members) == 1:
                tp = members[0]
                continue
            plain = _plain_union(members)
            if plain is not None:
                tp, alone = plain
                if alone:
                    shown = _unwrap(tp, tuple(extra))
                    return _Shape(shown.base, optional or shown.optional, shown.meta, shown.item, shown.members,
                                  shown.value, shown.key, alone)
                continue
        break
    item = None
    value = None
    key = None
    union: tuple[Any, ...] = ()
    origin = typing.get_origin(tp)
    if origin in (list, tuple, set, frozenset):
        inner = [a for a in typing.get_args(tp) if a is not Ellipsis]
        item = _unwrap(inner[0]) if inner else _unwrap(Any)
    elif origin is dict:
        args = typing.get_args(tp)
        if len(args) == 2:
            key, value = _unwrap(args[0]), _unwrap(args[1])
    elif origin in (Union, types.UnionType):
        models = tuple(a for a in typing.get_args(tp) if a is not type(None))
        if models and all(_is_choices(m) for m in models):
            union = models
    return _Shape(tp, optional, tuple(extra), item, union, value, key)


def _plain_union(members: Sequence[Any]) -> tuple[Any, tuple[Any, ...]] | None:
    """A union a form can show as one field: ``(the type it is shown as, the plain values beside it)``, or None.

    Literals only (``Commodity | Literal[""]``): one ``Literal`` of their values (the empty text left out: the field
    left empty says it). Literals beside one list or one mapping (``RuinName | dict[RuinName, Count]``, ``list[...]
    | Literal["all"]``): the list or mapping, with the literals' values as ``alone`` (a value that stands for the
    whole field: "all", or "all to one Ruin").
    """
    literals: list[Any] = []
    rest: list[Any] = []
    for m in members:
        inner = m
        while typing.get_origin(inner) is typing.Annotated:
            inner = typing.get_args(inner)[0]
        vals = _literal_values(inner)
        if vals is not None:
            literals += [v for v in vals if v != "" and v not in literals]
        else:
            rest.append(m)
    if not literals:
        return None
    if not rest:
        return Literal.__getitem__(tuple(literals)), ()
    if len(rest) == 1 and typing.get_origin(_unwrap(rest[0]).base) in (list, dict):
        return rest[0], tuple(literals)
    return None


# A field's shape and kind depend only on its declared type, which never changes: a form of the turn sheet is
# described again for every state and every edit (each listing asked ~20,000 `typing.get_origin`s of the same
# annotations). Kept by the identity of the field (and of the shape, a frozen value), a few thousand at most.
_SHAPES: ByIdentity[FieldInfo, _Shape] = ByIdentity(limit=4096)
_KINDS: ByIdentity[_Shape, FieldKind] = ByIdentity(limit=4096)
_PLACES: ByIdentity[_Shape, tuple[Any, ...] | None] = ByIdentity(limit=4096)
_PAIRS: ByIdentity[_Shape, tuple[Any, ...] | None] = ByIdentity(limit=4096)


_TYPE_SHAPES: ByIdentity[Any, _Shape] = ByIdentity(limit=4096)


def _shape_of(info: FieldInfo) -> _Shape:
    return _SHAPES.get(info, lambda i: _unwrap(i.annotation, tuple(i.metadata)))


def _shape_of_type(tp: Any) -> _Shape:
    """The shape of ``tp``, a place of a declared tuple or pair (the same type object every time)."""
    return _TYPE_SHAPES.get(tp, _unwrap)


def _pick(shape: _Shape) -> Pick | None:
    for m in shape.meta:
        if isinstance(m, Pick):
            return m
    if shape.item is not None:
        for m in shape.item.meta:
            if isinstance(m, Pick):
                return m
    return None


def _is_choices(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, Choices)


def _literal_values(tp: Any) -> tuple[Any, ...] | None:
    if typing.get_origin(tp) is Literal:
        return typing.get_args(tp)
    return None


def _bounds(meta: Sequence[Any]) -> tuple[float | None, float | None]:
    lo: float | None = None
    hi: float | None = None
    flat: list[Any] = []
    for m in meta:
        flat.extend(m.metadata if isinstance(m, FieldInfo) else [m])  # Annotated[int, Field(ge=..)] in a list
    for m in flat:
        if isinstance(m, annotated_types.Ge):
            lo = float(m.ge)  # type: ignore[arg-type]
        elif isinstance(m, annotated_types.Gt):
            lo = float(m.gt) + 1  # type: ignore[arg-type]
        elif isinstance(m, annotated_types.Le):
            hi = float(m.le)  # type: ignore[arg-type]
        elif isinstance(m, annotated_types.Lt):
            hi = float(m.lt) - 1  # type: ignore[arg-type]
        elif isinstance(m, annotated_types.Interval):
            if m.ge is not None:
                lo = float(m.ge)  # type: ignore[arg-type]
            if m.le is not None:
                hi = float(m.le)  # type: ignore[arg-type]
    return lo, hi


_SCALAR_KIND = {int: "int", float: "float", str: "text", bool: "bool"}


def _scalar_union(tp: Any) -> bool:
    """Whether ``tp`` is a union of plain scalars (``int | str``: an amount or dice), one box's worth."""
    if typing.get_origin(tp) not in (Union, types.UnionType):
        return False
    return all(_unwrap(a).base in (int, float, str) for a in typing.get_args(tp) if a is not type(None))


def _free(shape: _Shape) -> bool:
    """Whether ``shape`` is a free-form value (``FreeJson``)."""
    return shape.base is Any and any(getattr(m, "func", None) is bounded_json for m in shape.meta)


def _pairs(shape: _Shape) -> tuple[Any, ...] | None:
    """The types of a fixed pair's places when ``shape`` is a list of them (``list[tuple[str, int]]``), else None."""
    return _PAIRS.get(shape, _pairs_of)


def _pairs_of(shape: _Shape) -> tuple[Any, ...] | None:
    if shape.item is None or typing.get_origin(shape.item.base) is not tuple:
        return None
    args = typing.get_args(shape.item.base)
    if not args or Ellipsis in args or not all(_unwrap(a).base in _SCALAR_KIND for a in args):
        return None
    return args


def _places(shape: _Shape) -> tuple[Any, ...] | None:
    """The types of the places of a fixed tuple of picks (``tuple[Annotated[int, Pick(...)], ...]``: the branch of
    each either/or of an outcome, in order), each its own dropdown; else None."""
    return _PLACES.get(shape, _places_of)


def _places_of(shape: _Shape) -> tuple[Any, ...] | None:
    if typing.get_origin(shape.base) is not tuple:
        return None
    args = typing.get_args(shape.base)
    if not args or Ellipsis in args or not all(_pick(_unwrap(a)) is not None for a in args):
        return None
    return args


def _open_keys(shape: _Shape) -> bool:
    """Whether ``shape`` is a mapping whose keys are the GM's own words (no ``Pick``, no ``Literal``) and whose
    values a form can show (an entry, a number, words)."""
    if shape.key is None or shape.value is None or shape.key.base is not str or _pick(shape.key) is not None:
        return False
    return _is_choices(shape.value.base) or _kind(shape.value) in ("int", "float", "text", "bool", "scalar")


def _kind(shape: _Shape) -> FieldKind:
    return _KINDS.get(shape, _kind_of)


def _kind_of(shape: _Shape) -> FieldKind:
    base = shape.base
    if _is_choices(base):
        return "group"
    if shape.members:
        return "variant"
    if _scalar_union(base) or _free(shape):
        return "scalar"
    if _pairs(shape) is not None or _open_keys(shape):
        return "rows"
    if _places(shape) is not None:
        return "list"
    if shape.item is not None:
        if _is_choices(shape.item.base) or shape.item.members:
            return "rows"
        if shape.item.item is not None and _is_choices(shape.item.item.base):
            return "rounds"
        if any(isinstance(m, InOrder) for m in shape.meta):
            return "list"
        if _pick(shape) is not None or _literal_values(shape.item.base) is not None:
            return "multiselect"
        if shape.item.base in _SCALAR_KIND:
            return "list"
        return "json"
    if shape.value is not None and shape.key is not None:
        keyed = _pick(shape.key) is not None or _literal_values(shape.key.base) is not None
        return "mapping" if keyed and _kind(shape.value) != "json" else "json"
    if _pick(shape) is not None or _literal_values(base) is not None:
        return "select"
    if base is bool:
        return "bool"
    if base is int:
        return "int"
    if base is float:
        return "float"
    if base is str:
        return "text"
    return "json"


def _tag_field(models: Sequence[type[Choices]], meta: Sequence[Any]) -> str | None:
    for m in meta:
        disc = getattr(m, "discriminator", None)
        if isinstance(disc, str):
            return disc
    for name in models[0].model_fields:
        if all(name in m.model_fields and _single_literal(m, name) is not None for m in models):
            return name
    return None


def _single_literal(model: type[Choices], name: str) -> str | None:
    vals = _literal_values(_shape_of(model.model_fields[name]).base)
    return str(vals[0]) if vals is not None and len(vals) == 1 else None


def _variant_of(models: Sequence[type[Choices]], disc: str | None, tag: Any) -> type[Choices] | None:
    if disc is None:
        return None
    for m in models:
        if _single_literal(m, disc) == str(tag):
            return m
    return None


def _model_label(model: type[Choices], tag: str) -> str:
    """A kind of entry in words: its model's title, else its tag with acronyms said as such (``gm_adjustment`` →
    ``GM adjustment``, ``pc_level_reached`` → ``PC level reached``).

    >>> _model_label(NoChoices, "gm_adjustment"), _model_label(NoChoices, "pc_level_reached")
    ('GM adjustment', 'PC level reached')
    """
    title = model.model_config.get("title")
    if isinstance(title, str) and title:
        return title
    return _words(tag.strip()) if tag.strip() else tag


def _label(name: str, info: FieldInfo) -> str:
    return info.title or _words(name)


_LABEL_ACRONYMS = {"pc": "PC", "pcs": "PCs", "gm": "GM", "rp": "RP", "dc": "DC", "xp": "XP", "bp": "BP", "hp": "HP"}


def _words(name: str) -> str:
    """A field's name as its label: ``neighbour_id`` → ``Neighbour`` (what is picked, not that it is an id),
    ``pc_id`` → ``PC``, ``gm_xp`` → ``GM XP``.

    >>> _words("neighbour_id"), _words("pc_id"), _words("gm_xp"), _words("id"), _words("target_track")
    ('Neighbour', 'PC', 'GM XP', 'Id', 'Target track')
    """
    parts = name.replace("-", "_").strip("_").split("_")
    if len(parts) > 1 and parts[-1] == "id":
        parts = parts[:-1]
    words = " ".join(_LABEL_ACRONYMS.get(p, p) for p in parts if p)
    return words[:1].upper() + words[1:]


def _default(info: FieldInfo) -> Any:
    if info.is_required():
        return None
    if info.default_factory is not None:
        return info.default_factory()  # type: ignore[call-arg]
    return info.default


# ---- validation ---------------------------------------------------------------------------------


def _loc(parts: Sequence[Any]) -> str:
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif p == "[key]":
            out += " key"
        else:
            out += f".{p}" if out else str(p)
    return out or "(choices)"


def _allowed_text(options: Sequence[Option], limit: int = 15) -> str:
    names = [str(o.value) for o in options if not o.disabled]
    if not names:
        return "there is none now"
    shown = ", ".join(names[:limit])
    return f"allowed: {shown}" + (f", … ({len(names)} in all)" if len(names) > limit else "")


_UNION_TAGS = frozenset({"int", "constrained-int", "float", "constrained-float", "str", "constrained-str", "bool",
                         "list[int]", "list[str]", "dict[str,any]", "none"})
"""The tags pydantic puts in an error's location for a member of a union of scalars (``int | str``)."""

_BOUNDS = {"less_than_equal": ("above the largest allowed", "le"), "less_than": ("not below", "lt"),
           "greater_than_equal": ("below the smallest allowed", "ge"), "greater_than": ("not above", "gt")}


def _errors(exc: ValidationError) -> list[Any]:
    """The errors of ``exc``, those of a union of scalars (``int | str``) kept only for the member the input is:
    a number past its bounds is one error, not one per member."""
    errs = list(exc.errors())
    out = []
    for err in errs:
        loc = tuple(err["loc"])
        if loc and loc[-1] in _UNION_TAGS:
            others = [e for e in errs if e is not err and tuple(e["loc"])[:-1] == loc[:-1]]
            if err["type"].endswith("_type") and any(not e["type"].endswith("_type") for e in others):
                continue  # a member the input is not (a string member's "not a string" beside an int's bound)
            err = {**err, "loc": loc[:-1]}
        out.append(err)
    return out


def _shown(got: Any) -> str:
    text = repr(got)
    return text if len(text) <= 60 else text[:57] + "..."


def _pydantic_message(exc: ValidationError, model: type[Choices], step: str) -> str:
    parts = []
    errs = _errors(exc)
    for err in errs[:3]:
        loc = tuple(err["loc"])
        if err["type"] == "extra_forbidden":
            owner = _owner(model, loc[:-1])
            where = f" in {_loc(loc[:-1])}" if len(loc) > 1 else ""
            if owner is None:
                parts.append(f"unknown choice {loc[-1]!r}{where}")
            elif not owner.model_fields:
                parts.append(f"unknown choice {loc[-1]!r}{where}; this step takes no choices")
            else:
                what = "this step takes" if len(loc) == 1 else "this entry takes"
                parts.append(f"unknown choice {loc[-1]!r}{where}; {what}: {', '.join(owner.model_fields)}")
        elif err["type"] == "missing":
            parts.append(f"choice {_loc(loc)} is required")
        elif err["type"] in _BOUNDS:
            words, key = _BOUNDS[err["type"]]
            bound = err["ctx"][key]
            change = {"ge": f"give {bound} or more", "le": f"give {bound} or less", "gt": f"give more than {bound}",
                      "lt": f"give less than {bound}"}[key]
            parts.append(f"choice {_loc(loc)}: {_shown(err.get('input'))} is {words}, {bound}; {change}")
        elif err["type"] == "value_error":
            parts.append(f"choice {_loc(loc)}: {err['ctx']['error']}")
        else:
            parts.append(f"choice {_loc(loc)}: {err['msg'].lower()} (got {_shown(err.get('input'))})")
    more = len(errs) - 3
    if more > 0:
        parts.append(f"and {more} more")
    return f"step {step!r}: " + "; ".join(parts)


def _owner(model: type[Choices], loc: Sequence[Any]) -> type[Choices] | None:
    """The Choices model that holds the field at ``loc`` (walking groups, rows, mappings and tagged unions)."""
    cur: type[Choices] = model
    parts = list(loc)
    i = 0
    while i < len(parts):
        part = parts[i]
        i += 1
        if isinstance(part, int):
            continue
        info = cur.model_fields.get(str(part))
        if info is None:
            return None
        shape = _shape_of(info)
        if shape.value is not None:
            i += 1  # the mapping's key
            shape = shape.value
        while shape.item is not None:  # a list (of lists: a battle's rounds) of entries
            if i < len(parts) and isinstance(parts[i], int):
                i += 1
            shape = shape.item
        if shape.members:
            tag = parts[i] if i < len(parts) else None
            disc = _tag_field(shape.members, shape.meta)
            found = _variant_of(shape.members, disc, tag) or next(
                (m for m in shape.members if m.__name__ == tag), None)
            if found is None:
                return None
            i += 1
            cur = found
            continue
        if not _is_choices(shape.base):
            return None
        cur = shape.base
    return cur


def validate_choices(
    model: type[Choices],
    raw: Mapping[str, Any] | Choices | None,
    *,
    state: Any,
    vocabulary: Vocabulary,
    step: str,
) -> Choices:
    """``raw`` as a typed ``model`` whose every ``Pick`` value is allowed in ``state``.

    Raises ``InputError`` naming the step, the key and what is allowed.
    """
    if isinstance(raw, model):
        inst = raw
    else:
        data = raw.model_dump() if isinstance(raw, Choices) else raw
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise InputError(f"step {step!r}: choices must be an object of named values, got {data!r}")
        try:
            inst = model.model_validate(dict(data))
        except ValidationError as exc:
            raise InputError(_pydantic_message(exc, model, step)) from None
    _check_picks(inst, (), state=state, vocabulary=vocabulary, step=step)
    return inst


PARENT = "__parent__"
"""Key of ``within`` holding the values of the enclosing entry (for a Pick that depends on them)."""
ROLLED = "__rolled__"
"""Key of a step's values (as ``Ruleset.choices`` takes them, so ``Choices.shaped``, ``unused`` and a Pick's
``within`` see it) holding the faces the step's rolls already show, ``{roll key: faces}``: a form that shows them
(the GM sheet) gives them, and a choice a shown face decides is asked for what it drew (pf2e: the either/ors of the
random event the d100 drew). Only faces already shown: never one still to be drawn for the choice it decides.
Validation never sees it."""


def _check_picks(inst: Choices, path: tuple[Any, ...], *, state: Any, vocabulary: Vocabulary, step: str,
                 parent: Mapping[str, Any] | None = None) -> None:
    cls = type(inst)
    within: dict[str, Any] = {name: getattr(inst, name) for name in cls.model_fields}
    if parent is not None:
        within[PARENT] = parent
    walk = _Walk(state, vocabulary, step, within)
    for name, info in cls.model_fields.items():
        if within[name] is not None:
            walk.value(within[name], _shape_of(info), (*path, name))


class _Walk:
    """Checks every ``Pick`` inside one entry's values: scalars, lists, mapping keys and values, nested entries."""

    def __init__(self, state: Any, vocabulary: Vocabulary, step: str, within: Mapping[str, Any]) -> None:
        self.state, self.vocabulary, self.step, self.within = state, vocabulary, step, within

    def one(self, x: Any, pick: Pick, path: tuple[Any, ...]) -> None:
        if pick.open:
            return
        allowed = self.vocabulary(self.state, pick.source, self.within)
        if allowed is None or x in {o.value for o in allowed if not o.disabled}:
            return
        blocked = {o.value: o.refusal or o.disabled for o in allowed if o.disabled}
        where = _loc(path)
        if x in blocked:
            raise InputError(f"step {self.step!r}: choice {where}: {x!r} cannot be chosen now: {blocked[x]}")
        what = pick.what or f"one of the {pick.source.replace('_', ' ')}"
        raise InputError(f"step {self.step!r}: choice {where}: {x!r} is not {what}; {_allowed_text(allowed)}")

    def value(self, value: Any, shape: _Shape, path: tuple[Any, ...], inherited: Pick | None = None) -> None:
        if value is None:
            return
        if isinstance(value, Choices):
            _check_picks(value, path, state=self.state, vocabulary=self.vocabulary, step=self.step,
                         parent=self.within)
            return
        own = next((m for m in shape.meta if isinstance(m, Pick)), None)
        if shape.item is not None and isinstance(value, (list, tuple)):
            for i, x in enumerate(value):
                self.value(x, shape.item, (*path, i), own or inherited)
        elif shape.value is not None and isinstance(value, Mapping):
            key_pick = next((m for m in shape.key.meta if isinstance(m, Pick)), None) if shape.key else None
            for k, v in value.items():
                if key_pick is not None:
                    self.one(k, key_pick, (*path, k))
                _Walk(self.state, self.vocabulary, self.step, _keyed(self.within, k)).value(
                    v, shape.value, (*path, k))
        elif own or inherited:
            self.one(value, own or inherited, path)  # type: ignore[arg-type]


# ---- describing for forms ------------------------------------------------------------------------


KEY = "__key__"
"""Key of ``within`` holding the key of a mapping's entry (``dict[Pick(...), ...]``) whose value a Pick lists the
options of: the options of a dilemma, for the dilemma named by the key."""
KEYS = "__keys__"
"""Key of ``within`` holding the keys of the mappings around a value, the outermost first (a battle's declarations
``dict[battle, dict[round, ...]]``: ``(battle, round)``; ``KEY`` is the innermost)."""


def _keyed(within: Mapping[str, Any], key: Any) -> dict[str, Any]:
    """``within`` for the value of a mapping's entry ``key``: ``KEY`` it, ``KEYS`` the keys around it and it."""
    return {**within, KEY: key, KEYS: (*within.get(KEYS, ()), key)}


def _options(shape: _Shape, *, state: Any, vocabulary: Vocabulary, within: Mapping[str, Any] | None
             ) -> tuple[Option, ...] | None:
    pick = _pick(shape)
    if pick is not None:
        got = vocabulary(state, pick.source, dict(within or {}))
        return None if got is None else tuple(got)
    lit = _literal_values(shape.item.base if shape.item is not None else shape.base)
    if lit is not None:
        return tuple(Option(v) for v in lit)
    return None


def field_options(model: type[Choices], name: str, *, state: Any, vocabulary: Vocabulary,
                  within: Mapping[str, Any] | None = None) -> tuple[Option, ...] | None:
    """The allowed options of field ``name`` of ``model`` given sibling values ``within`` (None: open)."""
    return _options(_shape_of(model.model_fields[name]), state=state, vocabulary=vocabulary, within=within)


def describe(
    model: type[Choices],
    *,
    state: Any,
    vocabulary: Vocabulary,
    values: Mapping[str, Any] | None = None,
    parent: Mapping[str, Any] | None = None,
) -> tuple[FieldSpec, ...]:
    """One ``FieldSpec`` per field of ``model``, options computed from ``state`` and the given ``values``.

    ``parent`` holds the values of the enclosing entry (passed to dependent Picks as ``within[PARENT]``).
    """
    vals = dict(values or {})
    within = dict(vals)
    if parent is not None:
        within[PARENT] = parent
    unused = model.unused(vals, state) if vals else frozenset()
    needed = model.needed(vals, state) if vals else frozenset()
    out = []
    for name, info in model.model_fields.items():
        shape, label, help, default = _shape_of(info), _label(name, info), info.description or "", _default(info)
        required = info.is_required()
        if model.shaped is not Choices.shaped or _free(shape):
            shown = _shaped(model, name, vals, state)
            if shown is not None:
                # a value filled from the state (the territory as it is) is no default of the step's: read as shown
                shape, label, help, default = shown
                required = required or default is not None
        out.append(_spec(name, label, help, shape, required=required, default=default,
                         given=vals.get(name), within=within, state=state, vocabulary=vocabulary, owner=model,
                         unused=name in unused, needed=name in needed))
    return tuple(out)


def _shaped(model: type[Choices], name: str, values: Mapping[str, Any], state: Any
            ) -> tuple[_Shape, str, str, Any] | None:
    """A free-form field as ``model.shaped`` asks it for an entry holding ``values``: ``(shape, label, help,
    default)``; None when it gives no shape, or when the value given does not fit it (a value logged in another
    shape keeps its box, so nothing typed is lost)."""
    tp = model.shaped(name, values, state)
    if tp is None:
        return None
    given = values.get(name)
    if given is not None:
        inner = typing.get_args(tp)[0] if typing.get_origin(tp) is typing.Annotated else tp
        try:
            _adapter(inner).validate_python(given)
        except ValidationError:
            return None
    shape = _unwrap(tp)
    info = next((m for m in shape.meta if isinstance(m, FieldInfo)), None)
    label = info.title if info is not None and info.title else _words(name)
    help = info.description or "" if info is not None else ""
    default = None if info is None or info.default is PydanticUndefined else info.default
    return shape, label, help, default


_ADAPTERS: dict[int, tuple[Any, TypeAdapter[Any]]] = {}


def _adapter(tp: Any) -> TypeAdapter[Any]:
    """A validator of ``tp`` (kept for the types inside what a ruleset's ``shaped`` returns: its constants; the
    label and default around them may be made anew each time)."""
    got = _ADAPTERS.get(id(tp))
    if got is None or got[0] is not tp:
        if len(_ADAPTERS) > 256:
            _ADAPTERS.clear()
        got = (tp, TypeAdapter(tp))
        _ADAPTERS[id(tp)] = got
    return got[1]


def _spec(name: str, label: str, help: str, shape: _Shape, *, required: bool, default: Any, given: Any,
          within: Mapping[str, Any], state: Any, vocabulary: Vocabulary, owner: Any = None,
          unused: bool = False, needed: bool = False) -> FieldSpec:
    """The ``FieldSpec`` of one value of ``shape`` (a model's field, or the value of one key of a mapping);
    ``owner``: the model whose field it is."""
    kind = _kind(shape)
    if kind == "rounds" and shape.item is not None and shape.item.item is not None \
            and shape.item.item.base is owner:
        # lists of lists of the entry itself (an either/or among effects): a form one level deep; an either/or
        # inside one of its options is kept as given (the step's JSON toggle edits it)
        if owner in _NESTING.get():
            kind = "kept"
        else:
            token = _NESTING.set((*_NESTING.get(), owner))
            try:
                return _spec(name, label, help, shape, required=required, default=default, given=given,
                             within=within, state=state, vocabulary=vocabulary, owner=None, unused=unused,
                             needed=needed)
            finally:
                _NESTING.reset(token)
    if kind == "rows" and (_pairs(shape) is not None or _open_keys(shape)):
        keyed = _entries_spec(name, label, help, shape, default=default, within=within, state=state,
                              vocabulary=vocabulary)
        return dataclasses.replace(keyed, unused=unused, needed=needed) if unused or needed else keyed
    pick = _pick(shape)
    lo, hi = _bounds([*shape.meta, *(shape.item.meta if shape.item is not None else ())])
    nested: tuple[FieldSpec, ...] = ()
    entries: tuple[tuple[FieldSpec, ...], ...] = ()
    variants: tuple[Variant, ...] = ()
    disc: str | None = None
    sub: type[Choices] | None = None
    target = shape.item if kind == "rows" and shape.item is not None else shape
    if target.members:
        disc = _tag_field(target.members, target.meta)
        variants = tuple(
            Variant(tag, _model_label(m, tag), m, describe(m, state=state, vocabulary=vocabulary, parent=within))
            for m in target.members for tag in [_single_literal(m, disc) if disc else m.__name__] if tag)
    options = None
    if kind == "group":
        sub = shape.base
        nested = describe(sub, state=state, vocabulary=vocabulary,
                          values=given if isinstance(given, Mapping) else None, parent=within)
    elif kind == "variant" and isinstance(given, Mapping):
        found = _variant_of(target.members, disc, given.get(disc)) if disc else None
        if found is not None:
            sub = found
            nested = describe(found, state=state, vocabulary=vocabulary, values=given, parent=within)
    elif kind == "rows":
        assert shape.item is not None
        if not shape.item.members:
            sub = shape.item.base
            nested = describe(sub, state=state, vocabulary=vocabulary, parent=within)
        if isinstance(given, list):
            rows = []
            for e in given:
                m = sub
                if shape.item.members and isinstance(e, Mapping):
                    m = _variant_of(shape.item.members, disc, e.get(disc)) if disc else None
                rows.append(describe(m, state=state, vocabulary=vocabulary,
                                     values=e if isinstance(e, Mapping) else None, parent=within)
                            if m is not None else ())
            entries = tuple(rows)
    elif kind == "rounds":
        assert shape.item is not None and shape.item.item is not None
        sub = shape.item.item.base
        nested = describe(sub, state=state, vocabulary=vocabulary, parent=within)
        lists = given if isinstance(given, list) else []
        entries = tuple((FieldSpec(
            name=str(i), label=f"{label.rstrip('s')} {i + 1}", kind="rows", fields=nested, model=sub,
            entries=tuple(describe(sub, state=state, vocabulary=vocabulary,
                                   values=e if isinstance(e, Mapping) else None, parent=within)
                          for e in (one if isinstance(one, list) else []))),)
            for i, one in enumerate(lists))
    elif kind == "mapping":
        assert shape.key is not None and shape.value is not None
        options = _options(shape.key, state=state, vocabulary=vocabulary, within=within) or ()
        nested = _mapping_fields(shape, options, given if isinstance(given, Mapping) else {}, within=within,
                                 state=state, vocabulary=vocabulary)
    item_kind = _SCALAR_KIND.get(shape.item.base) if kind == "list" and shape.item else None
    places = _places(shape)
    if places is not None:  # a dropdown per place, each its own label and options (``within[KEY]``: the place)
        item_kind = "select"
        had = list(given) if isinstance(given, (list, tuple)) else []
        nested = tuple(_spec(str(i), _place_label(tp, i), _place_help(tp), _shape_of_type(tp), required=False,
                             default=None, given=had[i] if i < len(had) else None, within=_keyed(within, i),
                             state=state, vocabulary=vocabulary)
                       for i, tp in enumerate(places))
    in_order = next((m for m in shape.meta if isinstance(m, InOrder)), None)
    if kind in ("select", "multiselect") or in_order is not None:
        options = _options(shape, state=state, vocabulary=vocabulary, within=within)
    if in_order is not None and options is not None:
        item_kind, hi = "select", in_order.most
    alone: tuple[Option, ...] = ()
    if shape.alone and kind in ("multiselect", "mapping"):
        listed = {o.value for o in options or ()} if kind == "multiselect" else set()
        alone = tuple(Option(v, _ALONE_WORDS.get(str(v), "")) for v in shape.alone if v not in listed)
    return FieldSpec(
        name=name, label=label, kind=kind, help=help,
        required=required and not shape.optional, default=default, options=options,
        source=pick.source if pick else None, depends=pick.depends if pick else (),
        minimum=lo, maximum=hi, fields=nested, entries=entries, model=sub, variants=variants,
        discriminator=disc, item_kind=item_kind, alone=alone, unused=unused, needed=needed,
    )


_ALONE_WORDS = {"all": "all of them"}


def _place_info(tp: Any) -> FieldInfo | None:
    return next((m for m in _shape_of_type(tp).meta if isinstance(m, FieldInfo)), None)


def _place_label(tp: Any, i: int) -> str:
    """A place of a fixed tuple in words: its ``Field(title=...)``, else its number ("Pick 2")."""
    info = _place_info(tp)
    return info.title if info is not None and info.title else f"Pick {i + 1}"


def _place_help(tp: Any) -> str:
    info = _place_info(tp)
    return info.description or "" if info is not None else ""

_NESTING: contextvars.ContextVar[tuple[Any, ...]] = contextvars.ContextVar("kl_choices_nesting", default=())
"""The entries whose either/or is being described (an either/or of an either/or is ``kept``)."""


def _entries_spec(name: str, label: str, help: str, shape: _Shape, *, default: Any, within: Mapping[str, Any],
                  state: Any, vocabulary: Vocabulary) -> FieldSpec:
    """A mapping with keys of the GM's own, or a list of fixed pairs, as a ``rows`` field: each entry a line of
    fields (the key, then the value's; or the pair's places, named by their ``Columns``)."""
    pairs = _pairs(shape)
    if pairs is not None:
        cols = next((m.names for m in shape.meta if isinstance(m, Columns)), ())
        fields = tuple(_spec(str(i), cols[i] if i < len(cols) else f"Item {i + 1}", "", _shape_of_type(tp),
                             required=True, default=None, given=None, within=within, state=state, vocabulary=vocabulary)
                       for i, tp in enumerate(pairs))
        return FieldSpec(name=name, label=label, kind="rows", help=help, default=default, fields=fields,
                         item_kind="tuple")
    assert shape.key is not None and shape.value is not None
    key_info = next((m for m in shape.key.meta if isinstance(m, FieldInfo)), None)
    key = FieldSpec(KEYED, key_info.title if key_info is not None and key_info.title else "Name", "text",
                    help=key_info.description or "" if key_info is not None else "", required=True)
    if _is_choices(shape.value.base):
        model = shape.value.base
        value_fields = describe(model, state=state, vocabulary=vocabulary, parent=within)
    else:
        model = None
        info = next((m for m in shape.value.meta if isinstance(m, FieldInfo)), None)
        value_fields = (_spec("value", info.title if info is not None and info.title else "Value",
                              info.description or "" if info is not None else "", shape.value, required=False,
                              default=None, given=None, within=within, state=state, vocabulary=vocabulary),)
    return FieldSpec(name=name, label=label, kind="rows", help=help, default=default, fields=(key, *value_fields),
                     model=model, item_kind="keyed")


def _mapping_fields(shape: _Shape, keys: Sequence[Option], given: Mapping[Any, Any], *, within: Mapping[str, Any],
                    state: Any, vocabulary: Vocabulary) -> tuple[FieldSpec, ...]:
    """One field per key of a mapping: the keys that can be chosen now, and any key ``given`` holds."""
    assert shape.value is not None
    out = []
    listed = set()
    for o in keys:
        listed.add(o.value)
        if o.disabled and o.value not in given:
            continue
        out.append(_key_spec(shape.value, o, given.get(o.value), within, state, vocabulary))
    for k, v in given.items():
        if k not in listed:
            out.append(_key_spec(shape.value, Option(k, disabled="not one of these now"), v, within, state,
                                 vocabulary))
    return tuple(out)


def _key_spec(shape: _Shape, key: Option, given: Any, within: Mapping[str, Any], state: Any,
              vocabulary: Vocabulary) -> FieldSpec:
    kind = _kind(shape)
    # a number of a key left out is 0, a switch off, a pick none: the value of a key not given
    default = 0 if kind in ("int", "float") else False if kind == "bool" else None
    label = key.label or (_words(key.value) if isinstance(key.value, str) else str(key.value))
    return _spec(str(key.value), label, key.detail, shape, required=False, default=default, given=given,
                 within=_keyed(within, key.value), state=state, vocabulary=vocabulary)
