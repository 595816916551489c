"""The turn sheet's widgets, built from a step's typed choices (``FieldSpec``), and their values read back.

Every choice kind gets a widget: ``select`` a dropdown of the options the state allows
(labels and details; native selects, so typing a name jumps to it; a browser table of every option with the
reason an option cannot be chosen now), ``multiselect`` a multiselect, ``int``/``float``
a number, ``bool`` a checkbox, ``text`` a text field, ``group`` its fields, ``rows`` one
line of fields per entry with a remove button and an "add" picker (a mapping with keys of the GM's own, an army
by its name, and a list of pairs are shown as rows too: ``as_entries`` and ``from_entries``), ``scalar`` a box
for a number or words (an amount or dice, a GM's free-form value), ``kept`` no widget (the value is kept as
given), and ``json`` (a value no widget fits; no bundled choice is one) a JSON text area. A step can also be
edited as JSON (the advanced toggle): the step's plan as text, read back into the same plan the widgets make.

The widgets are rebuilt only when the *form* changes (options, entries, dice keys):
``form_key`` is what decides that. A build may keep widgets of the build before that show exactly what its own
would (``keep_same``: the GM sheet after a commit). Reading widget values never raises: a value that
cannot be read becomes a ``FieldError`` at its path, shown beside its widget.

A player's page (the orders sheet) uses the same codec with an ``Offer``: some fields hidden,
suggestions for open picks, blank entries to fill instead of add and remove buttons, and values
read as the player gave them (``choice_widgets`` and ``read_fields`` with ``offer=``).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Hashable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from html import escape as html_escape
from itertools import pairwise
from typing import Any

import marimo as mo

from kingdomlog.core.choices import KEYED, FieldSpec, Option
from kingdomlog.core.errors import InputError
from kingdomlog.core.turn import StepPlan
from kingdomlog.views.html import EMPTY, Html, h
from kingdomlog.views.words import help_words, is_hex_field, option_text, words

Path_ = tuple[str | int, ...]
"""Where a value sits in a step's choices: ``("activities", 1, "leader")``."""

LIST_DISABLED = 12
"""Selects with at most this many options also list the ones not allowed now (marked, with the reason)."""
REMOVE = "_remove"
ADD = "_add"
VARIANT = "_kind"
ALONE = "_alone"
"""A mapping's dropdown of the plain values that stand for the whole field (all the Ruin points to one Ruin)."""
BROWSE_OVER = 20
"""Selects with more options than this (with details) get a browser table of every option."""
FOLD_AFTER = 6
"""Entries with more fields than this show their main fields and fold the rest."""


@dataclass(frozen=True)
class FieldError:
    """A problem with one value, shown beside its widget: where (``path``) and what."""

    path: Path_
    message: str


@dataclass(frozen=True)
class DiceSlot:
    """One roll of a step as its dice widgets show it: key, notation, re-roll count, typed faces, and what it rolls
    in words (``views.words.dice_label``: "Quell Unrest, Ruler: d20"), its box's label."""

    key: str
    notation: str
    nonce: int = 0
    faces: str = ""
    label: str = ""


@dataclass(frozen=True)
class StepForm:
    """What the widgets of one step were built from (kept to read their values back)."""

    step: str
    specs: tuple[FieldSpec, ...]
    values: Mapping[str, Any]
    dice: tuple[DiceSlot, ...] = ()
    json_mode: bool = False
    json_text: str = ""
    extra_dice: Mapping[str, Any] = field(default_factory=dict)
    """Typed faces/re-rolls of keys the step did not roll last time (kept in the plan, flagged)."""
    hex_map: Any = field(default=None, compare=False)
    """The GM's map of the state before the step (``core.mapdata.MapData``) when a field picks hexes, else None."""
    map_key: str = ""
    """What that map looks like (a digest of its drawing): a new map means new hex pickers."""


@dataclass(frozen=True)
class Offer:
    """How a player's page offers a form where it differs from the GM sheet (no ``Offer``: the GM sheet).

    - ``hidden``: names of fields neither shown nor read, at any depth (asked elsewhere, or fixed).
    - ``hints``: suggestions for an open pick (a ``select`` whose options the state does not list), by
      field name: it becomes a dropdown of them beside a box for any other value (``OPEN_PICK``).
    - ``spare_rows``, ``min_rows``: a ``rows`` field shows its entries, then ``spare_rows`` blank ones
      (at least ``min_rows`` in all), instead of remove and add buttons.
    - ``exact_rows``: names of ``rows`` fields that show exactly the entries given, no blank one (the GM's row
      sets how many: a battle's Melee phases on the General's page).
    - ``other_example``: the placeholder of an open pick's box ("e.g. a rival's character id").

    Values are read as the person gave them: a value left at its default stays in (the GM sees what
    was asked for); an empty input (no pick, no text, an empty list, a box left unticked) stays out;
    an entry or group holding nothing but defaults is not read; one holding a value but missing a
    required one is a ``FieldError`` (never silently dropped).
    """

    hidden: frozenset[str] = frozenset()
    hints: Mapping[str, tuple[Option, ...]] = field(default_factory=dict)
    spare_rows: int = 2
    min_rows: int = 4
    exact_rows: frozenset[str] = frozenset()
    other_example: str = ""

    def shows(self, spec: FieldSpec) -> bool:
        """Whether the page offers ``spec``: not hidden, and used by its entry as chosen (``FieldSpec.unused``: a
        player's page leaves out what the chosen activity does not take; the GM sheet folds it away instead).

        >>> Offer(hidden=frozenset({"role"})).shows(FieldSpec("role", "Role", "select"))
        False
        >>> Offer().shows(FieldSpec("hex", "Hex", "select", unused=True))
        False
        """
        return spec.name not in self.hidden and not spec.unused


OPEN_PICK = ("pick", "other")
"""The two widgets of an open pick with hints: a dropdown of the suggestions and a box for any other value."""


# ---- the key that decides a rebuild ----------------------------------------------------------


def _option_key(o: Option) -> Hashable:
    # Labels and details (a skill's modifier, a structure's cost) follow the state of every upstream step;
    # they alone do not rebuild the widgets (the step's card shows the numbers that apply).
    return (o.value, bool(o.disabled))


def spec_key(spec: FieldSpec) -> Hashable:
    """Everything about ``spec`` a widget shows except its value."""
    return (spec.name, spec.kind, spec.label, spec.help, spec.required, spec.minimum, spec.maximum,
            None if spec.options is None else tuple(_option_key(o) for o in spec.options),
            tuple(spec_key(f) for f in spec.fields),
            tuple(tuple(spec_key(f) for f in e) for e in spec.entries), tuple(_option_key(o) for o in spec.alone),
            spec.unused, spec.needed)


def form_key(form: StepForm) -> Hashable:
    """Two forms with the same key need no new widgets (their values may differ)."""
    return (form.step, tuple(spec_key(s) for s in form.specs), tuple((d.key, d.label) for d in form.dice),
            tuple(sorted(form.extra_dice)), form.json_mode, _rows_shape(form.specs, form.values), form.map_key)


def contains_hex_field(specs: Sequence[FieldSpec]) -> bool:
    """Whether a field of ``specs`` (or of their entries, groups and variants) picks hexes."""
    for s in specs:
        if is_hex_field(s) or contains_hex_field(s.fields):
            return True
        if any(contains_hex_field(e) for e in s.entries) or any(contains_hex_field(v.fields) for v in s.variants):
            return True
    return False


def _rows_shape(specs: Sequence[FieldSpec], values: Mapping[str, Any]) -> Hashable:
    out: list[tuple[str, Hashable]] = []
    for s in specs:
        v = values.get(s.name)
        if s.kind == "rows" or (s.kind == "list" and s.item_kind == "select" and not s.fields):
            out.append((s.name, len(v) if isinstance(v, (list, Mapping)) else 0))
        elif s.kind in ("group", "mapping") and isinstance(v, Mapping):
            out.append((s.name, _rows_shape(s.fields, v)))
    return tuple(out)


# ---- option labels ---------------------------------------------------------------------------


def _choices_map(options: Sequence[Option], current: Any, *, show_disabled: bool) -> tuple[dict[str, Any], str | None]:
    """Dropdown options ``{text: value}`` and the text of ``current`` (added, flagged, when not allowed now).

    An alias (``Option.alias``) is listed only where it is ``current``, in the place of the option it reads as
    (pf1's city "Tatzlford" holding the plan's ``C1``)."""
    out: dict[str, Any] = {}
    chosen: str | None = None
    for o in options:
        if ((o.disabled and not show_disabled) or o.alias) and o.value != current:
            continue
        text = option_text(o)
        while text in out and not o.alias:
            text += f" [{o.value}]"
        out[text] = o.value
        if o.value == current:
            chosen = text
    if current is not None and chosen is None and not isinstance(current, (list, dict)):
        text = f"⚠ {current} — not allowed now"
        out[text] = current
        chosen = text
    return out, chosen


# ---- building widgets ------------------------------------------------------------------------


class PlainNumber(mo.ui.number):
    """marimo's number box with its label given as plain words to the page.

    marimo fills a number box's label attribute with the label's markdown rendered to HTML, and its front end
    names the box and its two buttons by that attribute: a screen reader (and any aria-label) read
    ``<span class="markdown prose …"><span class="paragraph">Food</span></span>``. Here the attribute holds the
    label's words (escaped), which the front end shows the same. On a marimo whose page differs the box is left as
    marimo makes it.
    """

    def _initialize(self, initialization_args: Any) -> None:
        super()._initialize(initialization_args)
        label = getattr(initialization_args, "label", None)
        if not label:
            return
        try:
            from marimo._plugins.core import web_component
            from marimo._plugins.core.web_component import _build_attr
        except ImportError:  # another marimo: its own label
            return
        # the label as marimo rendered it (kept per text: ``keep_labels``)
        kept = vars(web_component)["_md"]
        rendered, plain = _build_attr("label", kept(label).text), _build_attr("label", html_escape(label))
        if rendered in self._inner_text:
            self._inner_text = self._inner_text.replace(rendered, plain)
            self._text = self._text.replace(rendered, plain)


def _number(spec: FieldSpec, value: Any) -> Any:
    """A number box. Its bounds are not the widget's: marimo's box would clamp a typed -5 to 0 in the browser,
    silently; the value reaches the step as typed and the step's schema refuses it, naming the field and the
    bound, where the GM typed it."""
    step = 1 if spec.kind == "int" else 0.1
    v = value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    if v is None:
        v = spec.default if isinstance(spec.default, (int, float)) else spec.minimum if spec.minimum is not None else 0
    return PlainNumber(step=step, value=v, label=spec.label)


def widget(spec: FieldSpec, value: Any, *, entries: Sequence[tuple[FieldSpec, ...]] | None = None,
           hexmap: Any = None, in_entry: bool = False, offer: Offer | None = None) -> Any:
    """The ``mo.ui`` element for ``spec`` holding ``value`` (a plan value; None = the default).

    ``rows``, ``group`` and ``variant`` give a tree (dicts, lists) of their fields' widgets;
    ``entries`` are the per-entry specs of a ``rows`` field (``FieldSpec.entries``), one per value.
    With ``hexmap`` (the map of the state before the step), a field that picks hexes is a hex picker
    (``views.hexpicker``: the map to click and the select in one widget), its map open in an entry.
    With ``offer`` (a player's page), fields are offered as ``Offer`` says.
    """
    v = spec.default if value is None else value
    if spec.kind == "scalar":
        return mo.ui.text(value=scalar_text(v), label=spec.label, full_width=True,
                          placeholder="a number or words")
    if offer is not None and spec.kind == "select" and spec.options is None and offer.hints.get(spec.name):
        return open_pick(spec, v, offer.hints[spec.name], example=offer.other_example)
    if hexmap is not None and is_hex_field(spec):
        from kingdomlog.views import hexpicker

        if hexpicker.can_pick(spec, v, hexmap):
            return hexpicker.hex_picker(spec, v, hexmap, expanded=in_entry or v not in (None, "", [], ()))
    if spec.kind == "select" and spec.options is not None:
        opts, chosen = _choices_map(spec.options, v, show_disabled=len(spec.options) <= LIST_DISABLED)
        return mo.ui.dropdown(options=opts, value=chosen, allow_select_none=True, label=spec.label,
                              full_width=True)
    if spec.kind == "multiselect" and spec.options is not None:
        current = list(v) if isinstance(v, (list, tuple)) else [] if v is None else [v]
        current = [tuple(x) if isinstance(x, list) else x for x in current]  # a pair read back from JSON
        multi: dict[str, Any] = {}
        chosen_texts = []
        for o in (*spec.alone, *spec.options):
            if (o.disabled or o.alias) and o.value not in current:
                continue
            text = option_text(o)
            multi[text] = o.value
            if o.value in current:
                chosen_texts.append(text)
        for x in current:
            if x not in multi.values():
                text = f"⚠ {x} — not allowed now"
                multi[text] = x
                chosen_texts.append(text)
        return mo.ui.multiselect(options=multi, value=chosen_texts, label=spec.label, full_width=True)
    if spec.kind in ("int", "float"):
        if spec.default is None and not spec.required:
            return mo.ui.text(value="" if v is None else str(v), label=spec.label,
                              placeholder="a number, or none")  # it read "(none)", as code writes an absence
        return _number(spec, v)
    if spec.kind == "bool":
        return mo.ui.checkbox(value=bool(v), label=spec.label)
    if spec.kind == "list" and spec.item_kind in ("int", "float", "text"):
        items = list(v) if isinstance(v, (list, tuple)) else []
        hint = "numbers, e.g. 1 2" if spec.item_kind != "text" else "names, with commas"
        sep = ", " if spec.item_kind == "text" else " "
        return mo.ui.text(value=sep.join(str(x) for x in items), label=spec.label, placeholder=hint)
    if spec.kind == "group" and spec.fields:
        given = v if isinstance(v, Mapping) else {}
        return {f.name: widget(f, given.get(f.name), entries=f.entries or None, hexmap=hexmap, in_entry=True,
                               offer=offer)
                for f in spec.fields if shown(f, offer)}
    if spec.kind == "mapping":
        return mapping_widgets(spec, v, hexmap=hexmap, offer=offer)
    if spec.kind == "list" and spec.item_kind == "select" and (spec.options is not None or spec.fields):
        return in_order_widgets(spec, v)
    if spec.kind == "variant" and spec.variants:
        given = v if isinstance(v, Mapping) else {}
        return {VARIANT: variant_picker(spec, given),
                **entry_widgets(spec, spec.fields, given, hexmap=hexmap, offer=offer)}
    if spec.kind == "rounds" and spec.fields:
        return rounds_widget(spec, v, entries=entries, hexmap=hexmap, offer=offer)
    if spec.kind == "rows" and (spec.fields or spec.variants):
        rows = as_entries(spec, v)
        per = list(entries or spec.entries or ())
        if offer is not None and spec.name not in offer.exact_rows:  # a player's page: then blank ones to fill
            rows += [{}] * (max(len(rows) + offer.spare_rows, offer.min_rows) - len(rows))
        items = []
        for i, row in enumerate(rows):
            fields = per[i] if i < len(per) else spec.fields
            given = row if isinstance(row, Mapping) else {}
            elems = entry_widgets(spec, fields, given, hexmap=hexmap, offer=offer)
            if offer is None:
                elems[REMOVE] = mo.ui.button(value=0, on_click=lambda n: n + 1, label="✕ remove", kind="neutral")
            items.append(elems)
        return {"rows": items} if offer is not None else {"rows": items, ADD: add_widget(spec)}
    if spec.kind in ("text", "select"):  # a select with no list of options takes any value
        return mo.ui.text(value="" if v is None else str(v), label=spec.label, full_width=True)
    text = "" if v is None else json.dumps(v, indent=1, ensure_ascii=False, default=list)
    return mo.ui.text_area(value=text, label=f"{spec.label} (JSON)", rows=3, full_width=True)


def shown(spec: FieldSpec, offer: Offer | None = None) -> bool:
    """Whether ``spec`` gets a widget: not a ``kept`` value (kept as given), nor one ``offer`` hides."""
    return spec.kind != "kept" and (offer is None or offer.shows(spec))


def scalar_text(value: Any) -> str:
    """A ``scalar`` value as its box shows it: a number or words as they are, a list or record (a GM's free-form
    value that is one) as JSON.

    >>> scalar_text(2), scalar_text("1d4"), scalar_text(None), scalar_text(["a", "b"])
    ('2', '1d4', '', '["a", "b"]')
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict, tuple)):
        return json.dumps(value, ensure_ascii=False, default=list)
    return str(value)


def read_scalar(text: str) -> tuple[bool, Any, str]:
    """A ``scalar`` box's text as a value: ``(given, value, problem)``. A whole number or a decimal is a number,
    ``true``/``false`` a switch, text in brackets or braces a list or record (as JSON), anything else words.

    >>> read_scalar(" 2 "), read_scalar("1d4"), read_scalar(""), read_scalar("-1.5")
    ((True, 2, ''), (True, '1d4', ''), (False, None, ''), (True, -1.5, ''))
    >>> read_scalar('["a", "b"]'), read_scalar("[a")[0]
    ((True, ['a', 'b'], ''), False)
    """
    import re

    t = text.strip()
    if not t:
        return False, None, ""
    if re.fullmatch(r"[+-]?\d+", t):
        return True, int(t), ""
    if re.fullmatch(r"[+-]?\d*\.\d+", t):
        return True, float(t), ""
    if t in ("true", "false"):
        return True, t == "true", ""
    if t[0] in "[{":
        try:
            return True, json.loads(t), ""
        except json.JSONDecodeError:
            return False, None, f"{t!r}: a list is written [\"a\", \"b\"]; or write plain words without brackets"
    return True, t, ""


def as_entries(spec: FieldSpec, value: Any) -> list[Any]:
    """A ``rows`` field's value as its entries: a mapping with keys of the GM's own (``item_kind`` ``keyed``) as
    ``{KEYED: key, **value}`` entries, a list of pairs (``tuple``) as ``{"0": .., "1": ..}``, else the list itself.

    >>> keyed = FieldSpec("armies", "Armies", "rows", item_kind="keyed",
    ...                   fields=(FieldSpec(KEYED, "Army", "text"), FieldSpec("value", "Consumption", "int")))
    >>> as_entries(keyed, {"Black Hand": 2})
    [{'key': 'Black Hand', 'value': 2}]
    >>> from_entries(keyed, [{'key': 'Black Hand', 'value': 2}, {'key': 'Reeds'}])
    {'Black Hand': 2, 'Reeds': None}
    >>> pairs = FieldSpec("situational", "Situational", "rows", item_kind="tuple",
    ...                   fields=(FieldSpec("0", "What", "text"), FieldSpec("1", "Modifier", "int")))
    >>> as_entries(pairs, [["rain", -1]]), from_entries(pairs, [{"0": "rain", "1": -1}])
    ([{'0': 'rain', '1': -1}], [['rain', -1]])
    """
    if spec.item_kind == "keyed" and isinstance(value, Mapping):
        return [{KEYED: k, **({"value": v} if spec.model is None else dict(v) if isinstance(v, Mapping) else {})}
                for k, v in value.items()]
    if spec.item_kind == "tuple" and isinstance(value, (list, tuple)):
        return [{str(i): x for i, x in enumerate(p)} if isinstance(p, (list, tuple)) else p for p in value]
    return list(value) if isinstance(value, list) else []


def from_entries(spec: FieldSpec, entries: list[Any]) -> Any:
    """The inverse of ``as_entries``: the entries read from a ``rows`` field's widgets as the field's value."""
    if spec.item_kind == "keyed":
        out: dict[str, Any] = {}
        for e in entries:
            if isinstance(e, Mapping):
                rest = {k: x for k, x in e.items() if k != KEYED}
                out[str(e.get(KEYED) or "")] = rest if spec.model is not None else rest.get("value")
        return out
    if spec.item_kind == "tuple":
        places = [f.name for f in spec.fields]
        return [[e.get(p) for p in places] if isinstance(e, Mapping) else e for e in entries]
    return entries


def round_spec(spec: FieldSpec, i: int, entries: Sequence[tuple[FieldSpec, ...]] | None = None) -> FieldSpec:
    """The ``rows`` field of list ``i`` of a ``rounds`` field (its orders), from its ``entries`` when given."""
    per = list(entries or spec.entries or ())
    if i < len(per) and per[i]:
        return per[i][0]
    return FieldSpec(str(i), f"{singular(spec.label)} {i + 1}", "rows", fields=spec.fields, model=spec.model)


def rounds_widget(spec: FieldSpec, value: Any, *, entries: Sequence[tuple[FieldSpec, ...]] | None = None,
                  hexmap: Any = None, offer: Offer | None = None) -> dict[str, Any]:
    """A ``rounds`` field (a battle's rounds, each a list of orders): ``{"rounds": [the rows widget of each round,
    with a remove button], "_add": a "+ Round" button}``; each round's own "+ Order" picker adds an order."""
    lists = list(value) if isinstance(value, list) else []
    items = []
    for i, one in enumerate(lists):
        rs = round_spec(spec, i, entries)
        w = widget(rs, one if isinstance(one, list) else [], entries=rs.entries or None, hexmap=hexmap,
                   in_entry=True, offer=offer)
        if offer is None:
            title = spec.model.model_config.get("title") if spec.model is not None else None
            w[ADD] = add_widget(FieldSpec(rs.name, f"{title}s" if isinstance(title, str) and title else "orders",
                                          "rows", fields=rs.fields))
            w[REMOVE] = mo.ui.button(value=0, on_click=lambda n: n + 1, label=f"✕ remove {lower_label(rs.label)}",
                                     kind="neutral")
        items.append(w)
    if offer is not None:
        return {"rounds": items}
    noun = singular(spec.label) or "Round"
    return {"rounds": items, ADD: mo.ui.button(value=0, on_click=lambda n: n + 1, label=f"\\+ {noun}",
                                               kind="neutral")}


def mapping_widgets(spec: FieldSpec, value: Any, *, hexmap: Any = None, offer: Offer | None = None) -> dict[str, Any]:
    """A ``mapping`` (a value per key: a role's downtime, a Ruin's points, a faction's answer): one widget per key,
    labelled with the key's name, and, when the field also takes a plain value standing for all of it (all the
    Ruin points to one Ruin), a dropdown of those under ``ALONE`` (picking one there sets the whole field)."""
    given = value if isinstance(value, Mapping) else {}
    out: dict[str, Any] = {f.name: widget(f, _key_value(given, f.name), entries=f.entries or None, hexmap=hexmap,
                                          in_entry=True, offer=offer)
                           for f in spec.fields if shown(f)}
    if spec.alone:
        opts = {option_text(o) if o.label else f"all to {option_text(_key_option(spec, o.value))}": o.value
                for o in spec.alone}
        chosen = next((t for t, x in opts.items() if x == value), None)
        out[ALONE] = mo.ui.dropdown(options=opts, value=chosen, allow_select_none=True, label="or all at once",
                                    full_width=True)
    return out


def _key_value(given: Mapping[Any, Any], name: str) -> Any:
    """The value of a mapping's key ``name`` (a key is a field's name as text; the mapping's keys may be numbers)."""
    if name in given:
        return given[name]
    return next((v for k, v in given.items() if str(k) == name), None)


def _key_option(spec: FieldSpec, value: Any) -> Option:
    return next((o for o in spec.options or () if o.value == value), Option(value))


def in_order_widgets(spec: FieldSpec, value: Any) -> dict[str, Any]:
    """A list picked in order, an item may repeat (the rerolls paid, one resource each): a dropdown per item
    given, then one more left empty to add the next. A list picked place by place (``spec.fields``: the branch of
    each either/or of an outcome) has a dropdown per place, each with its own label and options."""
    items = list(value) if isinstance(value, (list, tuple)) else []
    if spec.fields:
        places = []
        for i, place in enumerate(spec.fields):
            given = items[i] if i < len(items) else None
            opts, chosen = _choices_map(place.options or (), given, show_disabled=True)
            places.append(mo.ui.dropdown(options=opts, value=chosen, allow_select_none=True, full_width=True,
                                         label=place.label))
        return {"rows": places}
    limit = int(spec.maximum) if spec.maximum is not None else len(items) + 1
    opts = {option_text(o): o.value for o in spec.options or () if not o.disabled and not o.alias}
    rows = []
    for i, x in enumerate([*items, None][:max(limit, len(items))]):
        chosen = next((t for t, y in opts.items() if y == x), None)
        rows.append(mo.ui.dropdown(options=opts, value=chosen, allow_select_none=True, full_width=True,
                                   label=f"{spec.label} {i + 1}" if i else spec.label))
    return {"rows": rows}


def choice_widgets(specs: Sequence[FieldSpec], values: Mapping[str, Any], *, hexmap: Any = None,
                   offer: Offer | None = None) -> dict[str, Any]:
    """The widgets of a step's choices ``specs`` holding ``values`` (its plan's choices): ``{name: widget tree}``.

    Read them back with ``read_fields`` (given the same ``offer``); fields ``offer`` hides get none.
    """
    return {s.name: widget(s, values.get(s.name), entries=s.entries or None, hexmap=hexmap, offer=offer)
            for s in specs if shown(s, offer)}


def open_pick(spec: FieldSpec, value: Any, hints: Sequence[Option], *, example: str = "") -> dict[str, Any]:
    """An open pick with suggestions: ``{"pick": dropdown of hints, "other": box for any other value}``.

    A ``value`` among the hints is picked; any other value stands in the box. ``read_fields`` reads the
    box when it holds text, else the pick.
    """
    opts: dict[str, Any] = {}
    for o in hints:  # by name ("Fabia"); the id beside it only where two names are the same
        text = o.text
        while text in opts:
            text += f" [{o.value}]"
        opts[text] = o.value
    chosen = next((k for k, x in opts.items() if x == value), None)
    return {
        "pick": mo.ui.dropdown(options=opts, value=chosen, allow_select_none=True, label=spec.label),
        "other": mo.ui.text(value="" if value is None or chosen else str(value), label="or another",
                            placeholder=example),
    }


def entry_widgets(spec: FieldSpec, fields: Sequence[FieldSpec], given: Mapping[str, Any], *,
                  hexmap: Any = None, offer: Offer | None = None) -> dict[str, Any]:
    """The widgets of one entry (its discriminator left out: the entry's kind shows in its heading)."""
    return {f.name: widget(f, given.get(f.name), entries=f.entries or None, hexmap=hexmap, in_entry=True, offer=offer)
            for f in fields if f.name != spec.discriminator and shown(f, offer)}


def variant_picker(spec: FieldSpec, given: Mapping[str, Any]) -> Any:
    """A dropdown of the kinds of entry a ``variant`` field takes."""
    tag = given.get(spec.discriminator) if spec.discriminator else None
    opts = {v.label: v.tag for v in spec.variants}
    chosen = next((v.label for v in spec.variants if v.tag == tag), None)
    return mo.ui.dropdown(options=opts, value=chosen, allow_select_none=True, label=f"{spec.label}: kind")


def holds_value(f: FieldSpec, given: Mapping[str, Any]) -> bool:
    """Whether a field holds a value of its own: not absent, empty (``None``, ``""``, an empty pick) or its default.

    The one rule for what opens a fold, shows a field at once and keeps an unused field on the card.

    >>> spec = FieldSpec("note", "Note", "text", default="")
    >>> [holds_value(spec, g) for g in ({}, {"note": ""}, {"note": None}, {"note": "x"})]
    [False, False, False, True]
    """
    v = given.get(f.name)
    return v not in (None, "", [], {}) and v != f.default


def top_fields(specs: Sequence[FieldSpec], given: Mapping[str, Any]) -> set[str]:
    """A step's choices shown at once; JSON-only values and, on a long form, the plain switches, texts and values
    per key (a role's downtime) fold under "more" (opened by default when one already holds a value); entries per
    key (a war's orders per war turn) are a board's and stay."""
    out = set()
    long = len(specs) > FOLD_AFTER
    for s in specs:
        set_ = holds_value(s, given)
        orders = s.kind == "mapping" and any(f.kind == "rows" for f in s.fields)  # orders per war turn: the board
        plain = s.kind == "json" or (long and s.kind in ("bool", "text", "mapping") and not s.required and not orders)
        if set_ or not plain:
            out.add(s.name)
    return out


def _stem(word: str) -> str:
    w = word.lower()
    for end, repl in (("ies", "y"), ("es", ""), ("s", "")):
        if w.endswith(end) and len(w) > len(end) + 2:
            return w[: -len(end)] + repl
    return w


def _mentions(text: str, name: str, label: str) -> bool:
    """Whether ``text`` names the field (its name or label, singular or plural)."""
    import re

    words = {_stem(w) for w in re.findall(r"[A-Za-z]+", text)}
    wanted = [_stem(w) for w in re.findall(r"[A-Za-z]+", name.replace("_", " ") + " " + label)]
    return bool(wanted) and all(w in words for w in wanted[:1])


def primary(spec: FieldSpec, fields: Sequence[FieldSpec], given: Mapping[str, Any], offer: Offer | None = None
            ) -> set[str]:
    """The fields of an entry shown at once; the others fold under "more" (shown once one holds a value).

    Shown: the entry's first field (its kind: an activity, an action), required fields and those the chosen kind
    cannot do without (``FieldSpec.needed``), a battle's rounds,
    those whose options depend on a sibling, any field already set, a field whose
    description names the chosen kind ("Build Structure: the lots") or that the kind's
    name names (Build *Structure*, Claim *Hex*), and short lists picked from the state
    (2 to 8 leaders, roles). Empty or single-option lists and the rest fold; fields the chosen kind does not use
    (``FieldSpec.unused``) are not shown at once, and the GM sheet leaves them out of the fold too unless they hold
    a value (``views.sheet.cards.folded_fields``); an entry with few fields in use (those ``offer`` shows, on a
    player's page) shows them all.
    """
    if spec.kind == "mapping":  # a value per key: every key at once (a role's downtime, a Ruin's points)
        return {f.name for f in fields}
    out: set[str] = set()
    kind_text = ""
    in_use = [f for f in fields if not f.unused and (offer is None or offer.shows(f))]
    if fields:
        first = fields[0]
        chosen = given.get(first.name)
        opt = next((o for o in first.options or () if o.value == chosen), None)
        kind_text = opt.text if opt is not None else str(chosen or "")
    for i, f in enumerate(fields):
        if f.name == spec.discriminator or (f.unused and i > 0):  # a field the chosen kind does not use
            continue
        set_ = holds_value(f, given)
        enabled = [o for o in f.options or () if not o.disabled]
        short_pick = bool(f.source) and f.kind == "select" and 2 <= len(enabled) <= 8
        named = bool(kind_text) and i > 0 and (
            (bool(f.help) and _mentions(f.help.split(":")[0] if ":" in f.help else "", kind_text, "")
             and kind_text.lower() in f.help.lower())
            or _mentions(kind_text, f.name, ""))
        rounds = f.kind == "rounds" or (f.kind == "rows" and f.name == "rounds")  # a battle's orders: its board
        if i == 0 or f.required or f.needed or f.depends or short_pick or set_ or named or len(in_use) <= FOLD_AFTER \
                or rounds:
            out.add(f.name)
    return out


def add_widget(spec: FieldSpec) -> Any:
    """How a new entry of a ``rows`` field is added: a picker of its first field's options, else a button; named
    by the entry's model when it has a title (the orders of a war turn: "+ Order"), else by the field."""
    first = spec.fields[0] if spec.fields else None
    titled = spec.model.model_config.get("title") if spec.model is not None else None
    noun = (lower_label(titled) if isinstance(titled, str) and titled  # the entry names itself: "+ Order"
            else singular(lower_label(spec.label)) if spec.label else "entry")
    if spec.item_kind == "keyed" and first is not None:  # a mapping with the GM's own keys: "+ Army"
        noun, first = lower_label(first.label), None
    # "+ Activity", "+ Assign leader": labels are markdown, so the plus is escaped ("+ x" is a list item)
    add_label = f"\\+ {noun[:1].upper()}{noun[1:]}"
    if spec.variants:
        return mo.ui.dropdown(options={v.label: v.tag for v in spec.variants}, value=None, allow_select_none=True,
                              label=add_label, full_width=True)
    if first is not None and first.kind == "select" and first.options:
        opts: dict[str, Any] = {}
        for o in first.options:  # names only: the entry's own dropdown shows the details once added
            if not o.disabled and not o.alias:
                text = option_text(Option(o.value, o.label))
                while text in opts:
                    text += f" [{o.value}]"
                opts[text] = o.value
        return mo.ui.dropdown(options=opts, value=None, allow_select_none=True, label=add_label, full_width=True)
    return mo.ui.button(value=0, on_click=lambda n: n + 1, label=add_label, kind="neutral")


def lower_label(label: str) -> str:
    """A label inside a sentence: its first word in lower case, unless it is an acronym (``GM adjustments``, ``PC's
    bonus``) or begins a name in capitals (``Law and Order track``, ``General Staff's``); the words after it as they are
    (``the Religion check``, ``Take 10 (Competent Administration)``: a skill, a feat).

    >>> lower_label("GM adjustments"), lower_label("Map new hexes"), lower_label("RP spent")
    ('GM adjustments', 'map new hexes', 'RP spent')
    >>> lower_label("GM-ruled effects"), lower_label("The PC's bonus"), lower_label("PC's bonus")
    ('GM-ruled effects', "the PC's bonus", "PC's bonus")
    >>> lower_label("Try the Religion check against plague"), lower_label("Law and Order track")
    ('try the Religion check against plague', 'Law and Order track')
    >>> lower_label("General Staff's extra attack"), lower_label("Crime or Decadence used as a bonus")
    ("General Staff's extra attack", 'Crime or Decadence used as a bonus')
    >>> lower_label("PCs buy slot items")  # an acronym's plural: it read "+ Pcs buy slot item"
    'PCs buy slot items'
    """
    first, space, rest = label.partition(" ")
    head = first.partition("-")[0].removesuffix("'s").removesuffix("s")
    if len(head) > 1 and head.isupper():  # "GM-ruled", "PC's", "PCs"
        return label
    joined, _, after = rest.partition(" ")
    if first.lower() in ("a", "an", "the"):  # "The PC's bonus"
        return first.lower() + space + rest
    if rest[:1].isupper() or (joined in ("and", "of", "or") and after[:1].isupper()):  # a name: "General Staff's"
        return label
    return first.lower() + space + rest


PREPOSITIONS = frozenset({"among", "for", "of", "with", "in", "on", "to", "from", "by", "between", "against", "at"})
"""The words a noun's own words end before (``singular``: "Relations among foreign kingdoms")."""


def singular(noun: str) -> str:
    """``activities`` → ``activity``, ``GM adjustments`` → ``GM adjustment`` (the noun's last word only: the word
    before a preposition where one follows it, "Relation among foreign kingdoms"; the add button read "+ Relations
    among foreign kingdom", "+ Items for empty magic slot").

    >>> singular("activities"), singular("hexes explored"), singular("gm-ruled effects"), singular("new hexes")
    ('activity', 'hexes explored', 'gm-ruled effect', 'new hex')
    >>> singular("relations among foreign kingdoms"), singular("Items for empty magic slots"), singular("by turns")
    ('relation among foreign kingdoms', 'Item for empty magic slots', 'by turn')
    """
    parts = noun.split(" ")
    at = next((i for i, w in enumerate(parts) if i and w in PREPOSITIONS), len(parts)) - 1
    last = parts[at]
    if last.endswith(("xes", "ches", "shes", "sses")):
        last = last[:-2]
    elif last.endswith("ies"):
        last = last[:-3] + "y"
    elif last.endswith("s") and not last.endswith("ss"):
        last = last[:-1]
    return " ".join([*parts[:at], last, *parts[at + 1:]])


def dice_widgets(slots: Sequence[DiceSlot]) -> Any:
    """Per roll key: typed faces (a text field labelled with what it rolls, in words) and a re-roll button (a click
    counter)."""
    return {
        d.key: {
            "faces": mo.ui.text(value=d.faces, placeholder="type faces, e.g. 4 2",
                                label=d.label or f"{words(d.key)}: {d.notation}"),
            "reroll": mo.ui.button(value=0, on_click=lambda n: n + 1, label="⚄ re-roll", kind="neutral"),
        } for d in slots}


def step_widgets(form: StepForm) -> dict[str, Any]:
    """One step's widgets as a tree: ``{"c": choices, "d": dice, "j": JSON toggle[, "t": JSON text]}``."""
    parts: dict[str, Any] = {"j": mo.ui.switch(value=form.json_mode, label="edit as JSON")}
    if form.json_mode:
        parts["t"] = mo.ui.text_area(value=form.json_text, rows=8, full_width=True,
                                     label="This step's plan (choices, rolls, rerolls)")
    else:
        parts["c"] = choice_widgets(form.specs, form.values, hexmap=form.hex_map)
        if form.dice:
            parts["d"] = dice_widgets(form.dice)
    return parts


# ---- ids of rebuilt widgets ------------------------------------------------------------------------


@contextmanager
def fresh_ui_ids() -> Iterator[None]:
    """Give the widgets made inside ids no earlier build of this session used.

    marimo numbers a cell's widgets ``<cell>-0``, ``<cell>-1`` … on every run, and its page keeps one value per
    id. When the sheet rebuilds its widgets after a row was added, the same id then names another widget
    (``-294`` a checkbox before, the '+ Activity' dropdown after); while the old card and the new one are both
    on the page, the new dropdown took the checkbox's ``false`` as its value and failed to draw (``i.includes
    is not a function`` in the browser) — the picker missing in about 1 run of 3. Under a prefix of its own per
    build no id is ever reused. Outside a marimo kernel (app.run, scripts, tests) widgets get random ids anyway.
    """
    try:
        from marimo._runtime.context import get_context

        provide = get_context().provide_ui_ids  # a kernel's context (marimo 0.25)
    except Exception:  # no kernel, or a marimo without it: the ids are marimo's own
        yield
        return
    with provide(f"kl-{uuid.uuid4().hex[:12]}"):
        yield


# ---- one flat dictionary of widgets ---------------------------------------------------------------
#
# ``mo.ui.dictionary`` deep-copies every element it wraps, at every level of nesting; the sheet wraps
# its whole tree of widgets once, flat, keyed by path ("upkeep/c/activities/rows/#0/skill").

SEP = "/"


def dictionary(elements: Mapping[str, Any], *, on_change: Any = None) -> Any:
    """``mo.ui.dictionary(elements, on_change=on_change)`` for widgets made for it alone: they are its own, not copies.

    ``mo.ui.dictionary`` clones every element it is given (a deep copy, and the element made again), so that
    an element shown elsewhere stays apart from the dictionary's; and it draws a tree of every element's
    HTML as its own output. The sheet makes its widgets only to put them in one dictionary, and lays them
    out one by one (never the dictionary itself): the clones made every widget twice (half of a build's time in
    a profile of the pf2e sheet's 136 widgets), and the tree was never shown. So the elements go in as they
    are (each a view of the dictionary, as a clone would be), the dictionary's own output empty. Its value, its
    ``on_change``, and how the page's changes reach it are ``mo.ui.dictionary``'s. Anything that is not a
    widget is refused as marimo refuses it; a marimo without the batch base it builds on gets the
    dictionary that clones.
    """
    try:
        from marimo._plugins.ui._core.ui_element import UIElement
        from marimo._plugins.ui._impl.batch import _batch_base
    except ImportError:  # another marimo: its own dictionary
        return mo.ui.dictionary(elements, on_change=on_change)
    bad = [k for k, e in elements.items() if not isinstance(e, UIElement)]
    if bad:
        raise ValueError(f"a dictionary of widgets takes widgets only; not: {', '.join(map(repr, bad))}")
    return _OwnDictionary(dict(elements), on_change, _batch_base)


def same_widget(old: Any, new: Any) -> bool:
    """Whether ``old`` (a widget of the build before) shows exactly what ``new``, made for the same place, would show.

    Both made the same way (kind, options and labels, the markup slotted in, no callback of their own beyond a
    button's count), both start from the same value, and ``old`` holds that value still (the person has not
    changed it, or changed it back): then the page's ``old`` is ``new`` to the person, ids aside. An anywidget
    (the hex picker: marimo closes it with the build it belongs to) is never kept.
    """
    if type(old) is not type(new) or isinstance(new, mo.ui.anywidget):
        return False
    try:
        a, b = old._args, new._args
        return (a.component_name == b.component_name and a.args == b.args and a.label == b.label
                and a.slotted_html == b.slotted_html and not a.functions and not b.functions
                and a.on_change is None and b.on_change is None
                and old._initial_value_frontend == new._initial_value_frontend
                and old._value_frontend == new._initial_value_frontend)
    except AttributeError:  # another marimo: nothing is kept
        return False


def keep_same(flat: Mapping[str, Any], before: Mapping[str, Any] | None) -> tuple[dict[str, Any], int]:
    """``flat`` (a build's widgets by path) with each widget ``same_widget`` as the one at its path in ``before``
    (the build on the page) replaced by that one; and how many were kept.

    The GM sheet after a commit: the next month's widgets are mostly the month before's, made again with the same
    options and values. A widget kept is the very one the page shows, with its id, so the page's script finds the
    card's widgets' HTML unchanged and leaves them as they are (``views.sheet.live``): a commit re-created every
    widget of the page in the browser. Its value is the new build's by ``same_widget``; it becomes a view of the
    new dictionary when that is made (``dictionary``), so a change on it reaches the new build only.
    """
    if not before:
        return dict(flat), 0
    out: dict[str, Any] = {}
    kept = 0
    for key, elem in flat.items():
        old = before.get(key)
        if old is not None and old is not elem and same_widget(old, elem):
            out[key] = old
            kept += 1
        else:
            out[key] = elem
    return out, kept


class _OwnDictionary(mo.ui.dictionary):
    """A ``mo.ui.dictionary`` holding the very elements it was given (``dictionary``)."""

    def __init__(self, elements: dict[str, Any], on_change: Any, base: Any) -> None:
        self._label = ""
        base.__init__(self, html=mo.Html(""), elements=elements, label="", on_change=on_change)


# A widget's label is markdown: marimo renders it (python-markdown, its extensions, a lock) each time a widget is
# made, and again for each clone. A sheet's build makes ~140 widgets with ~300 labels, the same ones every
# month: the rendering was most of the build (1.0 of 1.6 s in a profile of 5 builds of the pf2e sheet; with the
# clones gone too, a build's CPU went from 58-69 to 7-10 ms). marimo's rendering of a text
# is the same every time (its parser is reset before each), so it is kept per text: what a widget holds is
# still marimo's own HTML for its label.
_LABELS: dict[str, Any] = {}
_LABELS_MAX = 4096


def _kept_label(render: Any) -> Any:
    def label_md(text: str, **kwargs: Any) -> Any:
        if kwargs or not isinstance(text, str):
            return render(text, **kwargs)
        got = _LABELS.get(text)
        if got is None:
            if len(_LABELS) >= _LABELS_MAX:
                _LABELS.clear()
            got = _LABELS[text] = render(text)
        return got

    label_md.kept = True  # type: ignore[attr-defined]
    return label_md


def keep_labels() -> bool:
    """Keep marimo's markdown of each widget label once made (``_kept_label``); True when it is kept now.

    marimo 0.25 renders a label in ``web_component.build_ui_plugin`` through its module's ``_md``; another marimo
    that does not is left as it is (False).
    """
    try:
        from marimo._output.md import _md
        from marimo._plugins.core import web_component
    except ImportError:
        return False
    now = getattr(web_component, "_md", None)
    if getattr(now, "kept", False):
        return True
    if now is not _md:
        return False
    vars(web_component)["_md"] = _kept_label(_md)
    return True


keep_labels()


def _part(p: str | int) -> str:
    return f"#{p}" if isinstance(p, int) else str(p).replace("%", "%25").replace(SEP, "%2F")


def _unpart(p: str) -> str | int:
    if p.startswith("#") and p[1:].isdigit():
        return int(p[1:])
    return p.replace("%2F", SEP).replace("%25", "%")


def flatten(tree: Any, prefix: tuple[str | int, ...] = ()) -> dict[str, Any]:
    """``{path key: element}`` of a tree of dicts and lists whose leaves are widgets."""
    out: dict[str, Any] = {}
    if isinstance(tree, dict):
        for k, v in tree.items():
            out.update(flatten(v, (*prefix, k)))
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            out.update(flatten(v, (*prefix, i)))
    else:
        out[SEP.join(_part(p) for p in prefix)] = tree
    return out


def unflatten(values: Mapping[str, Any]) -> dict[str, Any]:
    """The nested values (dicts; lists for ``#i`` parts) of a flat ``{path key: value}``."""
    root: dict[str, Any] = {}
    for key, v in values.items():
        parts = [_unpart(p) for p in key.split(SEP)]
        cur: Any = root
        for here, nxt in pairwise(parts):
            if isinstance(cur, dict):
                cur = cur.setdefault(here, [] if isinstance(nxt, int) else {})
            else:
                assert isinstance(here, int)
                while len(cur) <= here:
                    cur.append(None)
                if cur[here] is None:
                    cur[here] = [] if isinstance(nxt, int) else {}
                cur = cur[here]
        last = parts[-1]
        if isinstance(cur, dict):
            cur[last] = v
        else:
            assert isinstance(last, int)
            while len(cur) <= last:
                cur.append(None)
            cur[last] = v
    return root


_PREFIXES: dict[frozenset[str], frozenset[str]] = {}


def _prefixes(keys: frozenset[str]) -> frozenset[str]:
    got = _PREFIXES.get(keys)
    if got is None:
        got = frozenset(SEP.join(k.split(SEP)[:i]) for k in keys for i in range(1, k.count(SEP) + 1))
        _PREFIXES.clear()
        _PREFIXES[keys] = got
    return got


class View:
    """A path into the flat dictionary of widgets, read like the tree it was made from.

    ``view["upkeep"]["c"]["crop"]`` is the dropdown element; ``view[...]["rows"].items()``
    the views of its entries; ``name in view`` whether a key exists below.
    """

    def __init__(self, forms: Any, prefix: tuple[str | int, ...] = (), keys: frozenset[str] | None = None) -> None:
        self.forms = forms
        self.prefix = prefix
        if keys is None:
            keys = frozenset(forms.elements) if hasattr(forms, "elements") else frozenset(forms)
        self.keys = keys
        self._prefixes = _prefixes(keys)

    def _key(self, *more: str | int) -> str:
        return SEP.join(_part(p) for p in (*self.prefix, *more))

    def __getitem__(self, k: str | int) -> Any:
        key = self._key(k)
        if key in self.keys:
            return self.forms[key]
        return View(self.forms, (*self.prefix, k), self.keys)

    def __contains__(self, k: str | int) -> bool:
        key = self._key(k)
        return key in self.keys or key in self._prefixes

    def get(self, k: str | int, default: Any = None) -> Any:
        if k in self:
            return self[k]
        return default

    def items(self) -> list[View]:
        """The entries of a list node (``#0``, ``#1``, ...)."""
        out = []
        i = 0
        while i in self:
            out.append(self[i])
            i += 1
        return out


# ---- reading values back -----------------------------------------------------------------------


@dataclass
class Read:
    """Values read from one step's widgets: choices, whether the form must be rebuilt, problems by path."""

    choices: dict[str, Any] = field(default_factory=dict)
    restructure: bool = False
    errors: list[FieldError] = field(default_factory=list)


def read_value(spec: FieldSpec, raw: Any, path: Path_, out: Read) -> tuple[bool, Any]:
    """One scalar widget's value as a plan value: ``(given, value)``; a problem goes to ``out.errors``."""
    return _scalar(spec, raw, path, out)


def _scalar(spec: FieldSpec, raw: Any, path: Path_, out: Read) -> tuple[bool, Any]:
    if raw is None:
        return False, None
    if spec.kind in ("int", "float"):
        if isinstance(raw, str):
            text = raw.strip()
            if not text:
                return False, None
            try:
                num = float(text)
            except ValueError:
                out.errors.append(FieldError(path, f"{text!r} is not a number"))
                return False, None
            raw = num
        if isinstance(raw, bool):
            return True, int(raw)
        if spec.kind == "int":
            if float(raw) != int(raw):
                out.errors.append(FieldError(path, f"{raw:g} is not a whole number"))
                return False, None
            return True, int(raw)
        return True, float(raw)
    if spec.kind == "bool":
        return True, bool(raw)
    if spec.kind == "scalar":
        ok, value, problem = read_scalar(str(raw))
        if problem:
            out.errors.append(FieldError(path, problem))
        return ok, value
    if spec.kind == "select" and spec.options is not None:
        return True, raw
    if spec.kind == "multiselect":
        if not raw and spec.item_kind is not None:  # a list field offered as a picker: none picked is not given
            return False, None
        picked = list(raw)
        alone = [x for x in picked if any(o.value == x for o in spec.alone)]
        if alone:  # "all" picked: it stands for the whole field, whatever else is picked beside it
            return True, alone[0]
        return True, picked
    if spec.kind == "list" and spec.item_kind in ("int", "float", "text"):
        return _list(spec, str(raw), path, out)
    if spec.kind in ("text", "select"):
        return (raw != ""), raw if raw != "" else None
    text = str(raw).strip()
    if not text:
        return False, None
    try:
        return True, json.loads(text)
    except json.JSONDecodeError as exc:
        out.errors.append(FieldError(path, f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"))
        return False, None


def _list(spec: FieldSpec, text: str, path: Path_, out: Read) -> tuple[bool, Any]:
    import re

    if spec.item_kind == "text":
        items: list[Any] = [t.strip() for t in text.split(",") if t.strip()]
        return (bool(items) or spec.default == []), items
    parts = [t for t in re.split(r"[\s,;]+", text.strip()) if t]
    try:
        nums = [int(t) if spec.item_kind == "int" else float(t) for t in parts]
    except ValueError:
        out.errors.append(FieldError(path, f"{text!r}: write numbers separated by spaces, e.g. 1 2"))
        return False, None
    if not nums and spec.default is None:
        return False, None
    return True, nums


def read_fields(specs: Sequence[FieldSpec], raw: Mapping[str, Any], given: Mapping[str, Any], path: Path_,
                out: Read, *, entries_of: Mapping[str, Sequence[tuple[FieldSpec, ...]]] | None = None,
                offer: Offer | None = None) -> dict[str, Any]:
    """The plan values of ``specs`` from their widget values ``raw`` (``given``: the values they were built with).

    With ``offer`` (a player's page) values are read as ``Offer`` says: as given, defaults included.
    """
    chosen: dict[str, Any] = {}
    for s in specs:
        if s.name not in raw:
            if s.name in given:
                chosen[s.name] = given[s.name]
            continue
        r = raw[s.name]
        here = (*path, s.name)
        if s.kind == "group" and s.fields and isinstance(r, Mapping):
            sub = given.get(s.name) if isinstance(given.get(s.name), Mapping) else {}
            got = read_fields(s.fields, r, sub or {}, here, out, offer=offer)
            if offer is not None:
                if _filled(s.fields, got, here, out, offer):
                    chosen[s.name] = got
                continue
            named = [f for f in s.fields if f.required and f.kind in ("text", "select")]
            empty = not got or (named and not any(got.get(f.name) not in (None, "") for f in named))
            if not empty or s.name in given or s.default is not None:
                chosen[s.name] = got  # an optional group left empty stays out (None: "not given")
            continue
        if s.kind == "mapping" and isinstance(r, Mapping):
            ok, got = _read_mapping(s, r, given.get(s.name), here, out, offer)
            if ok:
                chosen[s.name] = got
            continue
        if s.kind == "list" and s.item_kind == "select" and s.fields and isinstance(r, Mapping):
            picks = list(r.get("rows") or [])
            last = max((i for i, x in enumerate(picks) if x is not None), default=-1)
            gaps = [i for i in range(last) if picks[i] is None]
            for i in gaps:  # the places are taken in order: one left empty before a picked one shifts the rest
                out.errors.append(FieldError(here, f"{s.fields[i].label} is empty: pick its branch too, or clear the"
                                                   " picks after it (each is taken in order)"))
            if last >= 0 and not gaps:
                chosen[s.name] = picks[:last + 1]
            elif last < 0 and s.name in given and not given[s.name]:
                chosen[s.name] = given[s.name]  # an empty list given stays as it was
            elif gaps and s.name in given:
                chosen[s.name] = given[s.name]
            continue
        if s.kind == "list" and s.item_kind == "select" and isinstance(r, Mapping):
            items = [x for x in r.get("rows") or [] if x is not None]
            old_items = given.get(s.name) if isinstance(given.get(s.name), list) else []
            if len(items) != len(old_items or []):
                out.restructure = True  # one more empty dropdown, or one fewer
            if items or s.name in given:
                chosen[s.name] = items
            continue
        if s.kind == "rows" and (s.fields or s.variants) and isinstance(r, Mapping):
            rows = _read_rows(s, r, as_entries(s, given.get(s.name)), here, out, offer)
            if s.item_kind in ("keyed", "tuple") and not rows and s.name not in given:
                continue  # nothing given, as before: the step's default
            chosen[s.name] = from_entries(s, rows)
            continue
        if s.kind == "rounds" and s.fields and isinstance(r, Mapping):
            old = given.get(s.name) if isinstance(given.get(s.name), list) else []
            lists = _read_rounds(s, r, old or [], here, out, offer)
            if lists or s.name in given:  # no list given, none added: the default (an effect's either/or)
                chosen[s.name] = lists
            continue
        if s.kind == "variant" and s.variants and isinstance(r, Mapping):
            sub = given.get(s.name) if isinstance(given.get(s.name), Mapping) else {}
            tag = r.get(VARIANT)
            old_tag = (sub or {}).get(s.discriminator) if s.discriminator else None
            if tag is None:
                continue
            if tag != old_tag or not s.fields:
                chosen[s.name] = {s.discriminator: tag} if s.discriminator else {}
                out.restructure = True
                continue
            entry = read_fields(s.fields, {k: x for k, x in r.items() if k != VARIANT}, sub or {}, here, out,
                                offer=offer)
            if s.discriminator:
                entry[s.discriminator] = tag
            chosen[s.name] = entry
            continue
        if offer is not None and isinstance(r, Mapping) and set(r) == set(OPEN_PICK):
            other = str(r["other"] or "").strip()
            ok, v = (True, other) if other else (r["pick"] is not None, r["pick"])
        elif is_hex_field(s) and isinstance(r, Mapping):  # a hex picker: {} until the page sent {"value": ...}
            from kingdomlog.views.hexpicker import read_picker

            ok, v, problem = read_picker(s, r, given)
            if problem:
                out.errors.append(FieldError(here, problem))
        else:
            ok, v = _scalar(s, r, here, out)
            if ok and s.kind == "multiselect" and isinstance(v, list) and isinstance(given.get(s.name), list) \
                    and sorted(map(str, v)) == sorted(str(tuple(x) if isinstance(x, list) else x)
                                                      for x in given[s.name]):
                v = list(given[s.name])  # the same picks: in the order they were given
            elif ok and s.kind == "multiselect" and v == [given.get(s.name)]:
                v = given[s.name]  # one value given alone (a union's plain value), picked alone again
            if ok and s.default is None and s.name not in given and (
                    (s.kind == "bool" and v is False) or (s.kind == "multiselect" and v == [])):
                ok = False  # an optional switch left off, nothing picked: the rules' default, as before
        if offer is not None:
            if ok and not _empty(s, v):
                chosen[s.name] = v  # as given, a default too; an empty input stays out
        elif ok and (v != s.default or s.name in given or s.required):
            chosen[s.name] = v  # a value left at its default stays out of the plan (the step's default applies)
    return chosen


def _read_mapping(spec: FieldSpec, raw: Mapping[str, Any], given: Any, path: Path_, out: Read,
                  offer: Offer | None) -> tuple[bool, Any]:
    """A mapping's value from its widgets: the keys given a value (a plain value picked under ``ALONE`` instead
    stands for all of it); ``(False, None)`` when nothing is given and nothing was."""
    alone = raw.get(ALONE)
    if alone is not None:
        return True, alone
    old = given if isinstance(given, Mapping) else {}
    was = {str(k): v for k, v in old.items()}
    got = read_fields(spec.fields, {k: v for k, v in raw.items() if k != ALONE}, was, path, out, offer=offer)
    if offer is not None:
        got = {k: v for k, v in got.items() if not _empty(next(f for f in spec.fields if f.name == k), v)}
    keys = {str(o.value): o.value for o in spec.options or ()}
    # a key left empty (no entries, nothing in its group) is not given, unless it was
    value = {keys.get(k, k): v for k, v in got.items() if k in was or v not in ([], {}, None)}
    if value or isinstance(given, Mapping):
        return True, value
    return (given is not None and not isinstance(given, Mapping)), value


def _empty(spec: FieldSpec, value: Any) -> bool:
    """Whether a player's input holds nothing: no pick, no text, an empty list, a box left unticked."""
    return value is None or value == "" or value == [] or value == {} or (value is False and not spec.default)


def _filled(fields: Sequence[FieldSpec], got: Mapping[str, Any], path: Path_, out: Read, offer: Offer) -> bool:
    """Whether a player's entry or group holds a value of its own (not only defaults); one that does but lacks a
    required value gets a ``FieldError`` at that value."""
    by_name = {f.name: f for f in fields}
    if all(k in by_name and v == by_name[k].default for k, v in got.items()):
        return False
    for f in fields:
        if f.required and f.name not in got and offer.shows(f):
            out.errors.append(FieldError((*path, f.name), "needed: choose one, or clear the whole entry"))
    return True


def _read_rows(spec: FieldSpec, raw: Mapping[str, Any], old: list[Any], path: Path_, out: Read,
               offer: Offer | None = None) -> list[Any]:
    rows = list(raw.get("rows") or [])
    per = list(spec.entries)
    result: list[Any] = []
    for i, r in enumerate(rows):
        if not isinstance(r, Mapping):
            continue
        if r.get(REMOVE):
            out.restructure = True
            continue
        fields = per[i] if i < len(per) else spec.fields
        given = old[i] if i < len(old) and isinstance(old[i], Mapping) else {}
        values = {k: v for k, v in r.items() if k != REMOVE}
        entry = read_fields([f for f in fields if f.name != spec.discriminator], values, given, (*path, i), out,
                            offer=offer)
        if offer is not None and not _filled(fields, entry, (*path, i), out, offer):
            continue  # a blank entry (nothing but its defaults) is not an entry
        if spec.discriminator and spec.discriminator in given:
            entry = {spec.discriminator: given[spec.discriminator], **entry}
        result.append(entry)
    add = raw.get(ADD)
    if add not in (None, 0, False):
        if spec.variants:
            result.append({spec.discriminator: add} if spec.discriminator else {})
        else:
            first = spec.fields[0]
            result.append({first.name: add} if first.kind == "select" else {})
        out.restructure = True
    return result


def _read_rounds(spec: FieldSpec, raw: Mapping[str, Any], old: list[Any], path: Path_, out: Read,
                 offer: Offer | None = None) -> list[Any]:
    """A ``rounds`` field's lists of entries from its widgets (a round removed, a round added: rebuilt)."""
    result: list[Any] = []
    for i, one in enumerate(raw.get("rounds") or []):
        if not isinstance(one, Mapping):
            continue
        if one.get(REMOVE):
            out.restructure = True
            continue
        prev = old[i] if i < len(old) and isinstance(old[i], list) else []
        result.append(_read_rows(round_spec(spec, i), {k: x for k, x in one.items() if k != REMOVE}, prev,
                                 (*path, i), out, offer))
    if raw.get(ADD) not in (None, 0, False):
        result.append([])
        out.restructure = True
    return result


def settle(specs: Sequence[FieldSpec], values: Mapping[str, Any], before: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` with dependent choices settled against ``specs`` (computed from ``values``).

    Where a sibling changed since ``before``, a select value the new options no longer
    allow is cleared (activity changed: the old skill goes), and a required select with a
    single possible option takes it (the only leader who can do it). A required value left out whose field the form
    fills from the state (``Choices.shaped``: the territory as it is) takes what the form shows, so the plan holds
    what the GM sees. Values nobody's change touched are kept as they are, allowed or not, so an error shows at them.
    """
    out = dict(values)
    changed = {k for k in set(values) | set(before) if values.get(k) != before.get(k)}
    for s in specs:
        v = out.get(s.name)
        if s.kind == "rows" and isinstance(v, list):
            got = before.get(s.name)
            old: list[Any] = got if isinstance(got, list) else []
            per = list(s.entries)
            rows = []
            for i, entry in enumerate(v):
                fields = per[i] if i < len(per) else s.fields
                prev = old[i] if i < len(old) and isinstance(old[i], Mapping) else {}
                rows.append(settle(fields, entry, prev) if isinstance(entry, Mapping) else entry)
            out[s.name] = rows
            continue
        if s.kind in ("group", "mapping") and isinstance(v, Mapping):
            prev = before.get(s.name) if isinstance(before.get(s.name), Mapping) else {}
            out[s.name] = settle(s.fields, v, prev or {})
            continue
        if s.name not in out and s.required and s.default is not None and not s.unused:
            out[s.name] = s.default  # a value the form fills from the state (the territory as it is): in the plan
            continue
        if s.kind != "select" or s.options is None or (s.name in changed and s.name in values):
            continue
        allowed = [o.value for o in s.options if not o.disabled]
        touched = bool(changed - {s.name}) and (not s.depends or bool(set(s.depends) & changed))
        if v is not None and v not in allowed and touched:
            del out[s.name]
            v = None
        if v is None and s.required and len(allowed) == 1 and (touched or s.name not in before):
            out[s.name] = allowed[0]
    return out


def read_step(form: StepForm, raw: Mapping[str, Any], base: StepPlan) -> tuple[StepPlan, Read]:
    """The step's plan from its widgets' values (``raw``, the value of ``step_widgets(form)``)."""
    out = Read()
    json_on = bool(raw.get("j"))
    if json_on != form.json_mode:
        out.restructure = True
    if form.json_mode:
        text = str(raw.get("t", form.json_text))
        if text.strip() == form.json_text.strip():
            return base, out
        try:
            sp = StepPlan.model_validate_json(text or "{}")
        except ValueError as exc:
            msg = str(exc).splitlines()
            out.errors.append(FieldError(("json",), "not this step's plan: "
                                         + (msg[1].strip() + ": " + msg[2].strip() if len(msg) > 2 else msg[0])))
            return base, out
        out.choices = dict(sp.choices)
        return sp, out
    chosen = read_fields(form.specs, raw.get("c") or {}, form.values, (), out)
    out.choices = chosen
    rolls: dict[str, list[int]] = {}
    rerolls: dict[str, int] = {}
    dice_raw = raw.get("d") or {}
    for d in form.dice:
        v = dice_raw.get(d.key) or {}
        text = str(v.get("faces", d.faces) or "")
        try:
            faces = parse_faces(text)
        except InputError as exc:
            out.errors.append(FieldError(("dice", d.key), str(exc)))
            faces = parse_faces(d.faces) if d.faces else []
        if faces:
            rolls[d.key] = faces
        n = d.nonce + int(v.get("reroll") or 0)
        if int(v.get("reroll") or 0):
            out.restructure = True  # the re-roll buttons start again from 0 with the new nonce
        if n:
            rerolls[d.key] = n
    for k, v in form.extra_dice.items():
        if isinstance(v, dict):
            if v.get("faces"):
                rolls.setdefault(k, list(v["faces"]))
            if v.get("nonce"):
                rerolls.setdefault(k, int(v["nonce"]))
    return StepPlan(choices=chosen, rolls=rolls, rerolls=rerolls), out


def parse_faces(text: str) -> list[int]:
    """Faces typed as ``4 2`` or ``4, 2`` (empty: use the keyed dice).

    >>> parse_faces("4, 2 6")
    [4, 2, 6]
    >>> parse_faces("  ")
    []
    """
    import re

    parts = [t for t in re.split(r"[\s,;]+", text.strip()) if t]
    if not all(t.isdigit() for t in parts):
        raise InputError(f"typed dice {text!r}: write the faces as numbers, e.g. 4 2")
    return [int(t) for t in parts]


def step_json(sp: StepPlan) -> str:
    """A step's plan as the JSON the advanced toggle shows (choices, rolls, rerolls)."""
    return json.dumps(sp.model_dump(mode="json"), indent=1, ensure_ascii=False)


# ---- where an error belongs --------------------------------------------------------------------


def error_path(message: str) -> Path_ | None:
    """The choice path an error message names (``choice activities[1].leader: ...``), or None.

    >>> error_path("step 'a': choice activities[1].leader: 'x' is not a leader")
    ('activities', 1, 'leader')
    >>> error_path("step 'a': unknown choice 'foo'; this step takes: bar") is None
    True
    >>> error_path("step 's', roll 'k2': needs more faces")
    ('dice', 'k2')
    """
    import re

    m = re.search(r"choice ([A-Za-z_][\w]*(?:\[\d+\]|\.[A-Za-z_]\w*)*)", message)
    if m and not message[m.start() - 8:m.start()].endswith("unknown "):
        path: list[str | int] = []
        for part in re.findall(r"[A-Za-z_]\w*|\[\d+\]", m.group(1)):
            path.append(int(part[1:-1]) if part.startswith("[") else part)
        return tuple(path)
    m = re.search(r"roll(?: key\(s\))? '([^']+)'", message)
    if m:
        return ("dice", m.group(1))
    return None


def placed_path(specs: Sequence[FieldSpec], values: Mapping[str, Any], message: str) -> Path_ | None:
    """The path of the widget an error message belongs to (``error_path``), through the entries a mapping with the
    GM's own keys and a list of pairs are shown as: ``choice armies.Black Hand: ...`` is at the Consumption of
    the army's line (``("armies", 0, "value")``), ``choice situational[1][1]`` at the second pair's value.

    >>> armies = FieldSpec("armies", "Armies", "rows", item_kind="keyed",
    ...                    fields=(FieldSpec(KEYED, "Army", "text"), FieldSpec("value", "Consumption", "int")))
    >>> placed_path([armies], {"armies": {"Reeds": 1, "Black Hand": -1}}, "choice armies.Black Hand: -1 is below")
    ('armies', 1, 'value')
    """
    path = error_path(message)
    if path is None or not path or path[0] == "dice":
        return path
    return _through(specs, values, list(path), message, ())


def _through(specs: Sequence[FieldSpec], values: Any, rest: list[str | int], message: str, done: Path_) -> Path_:
    if not rest:
        return done
    head, tail = rest[0], rest[1:]
    spec = next((s for s in specs if s.name == head), None) if isinstance(head, str) else None
    if spec is None:
        return (*done, *rest)
    here = (*done, head)
    v = values.get(head) if isinstance(values, Mapping) else None
    if spec.kind == "rows" and spec.item_kind == "keyed" and isinstance(v, Mapping):
        key = next((k for k in sorted(map(str, v), key=len, reverse=True) if f"{head}.{k}" in message), None)
        if key is None:
            return (*here, *tail)
        i = [str(k) for k in v].index(key)
        if tail and isinstance(tail[0], str) and key.startswith(tail[0]):
            tail = tail[1:]  # the key (its first word: a key with a space is not one name to the message's reader)
        if spec.model is None:
            return (*here, i, "value")
        entry = next(x for k, x in v.items() if str(k) == key)
        return _through(spec.fields, entry if isinstance(entry, Mapping) else {}, tail, message, (*here, i))
    if spec.kind == "rows" and tail and isinstance(tail[0], int):
        i = tail[0]
        if spec.item_kind == "tuple":
            return (*here, i, *(str(x) for x in tail[1:2]))
        rows = v if isinstance(v, list) else []
        entry = rows[i] if i < len(rows) and isinstance(rows[i], Mapping) else {}
        fields = spec.entries[i] if i < len(spec.entries) else spec.fields
        after = tail[1:]
        if spec.variants and after and after[0] in {v.tag for v in spec.variants}:
            after = after[1:]  # the entry's kind, as the error of a union of kinds names it: no field
        return _through(fields, entry, after, message, (*here, i))
    if spec.kind in ("group", "mapping", "variant"):
        return _through(spec.fields, v if isinstance(v, Mapping) else {}, tail, message, here)
    return (*here, *tail)


def path_label(specs: Sequence[FieldSpec], path: Path_) -> str:
    """Where ``path`` points among ``specs``, in the fields' labels (an entry by its number, from 1).

    >>> row = FieldSpec("orders", "Orders", "rows", fields=(FieldSpec("units", "Units", "int"),))
    >>> path_label([row], ("orders", 1, "units"))
    'Order 2 › Units'
    >>> path_label([row], ("notes",))
    'notes'
    """
    words: list[str] = []
    fields: Sequence[FieldSpec] = specs
    here: FieldSpec | None = None
    for p in path:
        if isinstance(p, int):
            if here is not None and words and here.item_kind == "keyed" and here.fields:
                words[-1] = f"{here.fields[0].label} {p + 1}"  # an army's line: "Army 2"
            elif here is not None and words:
                words[-1] = f"{singular(words[-1])} {p + 1}"
            continue
        here = next((f for f in fields if f.name == p), None)
        words.append(here.label or here.name if here is not None else str(p))
        fields = here.fields if here is not None else ()
    return " › ".join(words)


def help_html(spec: FieldSpec) -> Html:
    """The help line under a widget (empty when the choice has none)."""
    return h("div", help_words(spec.help), class_="kl-help") if spec.help else EMPTY


def browser_html(spec: FieldSpec) -> Html:
    """Every option of a long select as a table (name, detail, why not now), allowed ones first; its columns headed
    as the panel's tables are, with their capitals (they read "name", "what", "now?").

    >>> import re
    >>> page = str(browser_html(FieldSpec("a", "Activity", "select", options=tuple(
    ...     Option(f"x{i}", f"X {i}", "civic") for i in range(BROWSE_OVER + 1)))))
    >>> re.findall("<th>([^<]+)</th>", page)
    ['Name', 'What', 'Now?']
    """
    if spec.options is None or len(spec.options) <= BROWSE_OVER or not any(o.detail for o in spec.options):
        return EMPTY
    allowed = [o for o in spec.options if not o.disabled]
    blocked = [o for o in spec.options if o.disabled]
    rows = [h("tr", h("td", o.text), h("td", o.detail), h("td", "now", class_="kl-ok")) for o in allowed]
    rows += [h("tr", h("td", o.text), h("td", o.detail), h("td", o.disabled), class_="kl-blocked") for o in blocked]
    now = "all possible now" if not blocked else f"{len(allowed)} possible now"
    head = h("thead", h("tr", h("th", "Name"), h("th", "What"), h("th", "Now?")))
    return h("details", h("summary", f"Browse all {len(spec.options)} options ({now})"),
             h("table", head, h("tbody", rows), class_="kl-table"), class_="kl-browser")
