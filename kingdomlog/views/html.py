"""HTML for people, built so that text is escaped by construction (no scripts, no URLs).

Every piece of HTML the views make is an ``Html`` (markupsafe's ``Markup``, escaping with ``esc``):
``h(tag, *children, **attributes)`` makes one element, in which a child that is ``Html`` is kept as it
is and anything else (a name, a note, a number) is text, escaped; attribute values are always text.
So a call site never escapes by hand, and what reaches a page twice-escaped or unescaped is a type
error waiting to be seen, not a leak. ``join`` joins pieces, ``style`` inlines the library's own CSS,
``document`` makes a whole self-contained page. ``Html(...)`` of a string is a promise that the string
is already HTML: it is written only where the HTML comes from marimo's widgets or the library's CSS.

Why builders and not templates: most of this HTML is small fragments chosen by conditions in loops
(cards, tiles, check lines), which a template would split across two files without making shorter;
the turn sheet redraws them on every edit (builders are plain function calls, nothing to parse);
and the escaping stays the one ``esc`` of this module (quotes too, U+FFFD for the characters HTML
forbids), so pages are the same bytes as before and a leak test that looks for ``&quot;`` still means
what it says.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from markupsafe import Markup

from kingdomlog.core.events import Draft, RecordedEvent
from kingdomlog.core.ruleset import Breakdown
from kingdomlog.dice.roller import Roll
from kingdomlog.views.words import scalar as scalar  # said in words; kept here for the pages that build cells

_FORBIDDEN = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
"""Characters HTML does not allow in text (NUL and the other C0 controls but tab, newline, CR; DEL)."""


def clean(text: str) -> str:
    r"""``text`` with every character HTML forbids replaced by U+FFFD (so NUL never reaches a page).

    >>> clean("a\x00b\tc") == "a\ufffdb\tc"
    True
    """
    return _FORBIDDEN.sub("\ufffd", text)


_SPECIAL = re.compile(r"[&<>\"'\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
"""What ``esc`` changes: the characters HTML gives a meaning to, and those it forbids."""


def esc(value: Any) -> str:
    """HTML-escape ``str(value)`` (quotes too), with characters HTML forbids (NUL, …) as U+FFFD.

    The builders' own escaping: call sites pass text to ``h`` instead of calling this.
    """
    text = value if type(value) is str else str(value)
    if _SPECIAL.search(text) is None:  # most text: nothing to change (the turn sheet escapes thousands per edit)
        return text
    return html.escape(clean(text), quote=True)


class Html(Markup):
    """A piece of HTML safe to put in a page: text added to it (``+``, ``join``, ``format``) is escaped by ``esc``.

    A string on the left of ``+`` is not escaped: ``"<style>…</style>" + html`` is plain string concatenation,
    as it was before the views returned ``Html`` (notebooks still build pages so), and its result is a ``str``,
    not ``Html``: nothing says it is safe. HTML that holds text is built with ``h`` and ``join``.

    >>> Html("<b>") + "Tom & Jerry" + Html("</b>")
    Html('<b>Tom &amp; Jerry</b>')
    >>> "<p>" + Html("<i>x</i>")
    '<p><i>x</i>'
    """

    __slots__ = ()

    def __radd__(self, value: Any, /) -> str:  # type: ignore[override]  # a str, not an Html: see above
        return NotImplemented  # str + Html: str's own concatenation (see above)

    @classmethod
    def escape(cls, s: Any, /) -> Html:
        if hasattr(s, "__html__"):
            return cls(s.__html__())
        return cls(esc(s))

    def _marimo_serialize_(self) -> str:
        """The text itself, when marimo sends an output or a widget's value to the browser.

        marimo encodes messages with msgspec, which refuses subclasses of ``str``; its encoder asks an object
        for this method first (marimo 0.25, ``_messaging.msgspec_encoder.enc_hook``). Without it an ``Html``
        in ``mo.Html`` reached the browser as ``{}`` ("Expected string data for mime=text/html").
        """
        return str(self)


EMPTY = Html()

VOID = frozenset({"br", "hr", "img", "input", "meta", "link", "wbr", "col", "source"})
"""HTML elements without content or end tag (``<br>``)."""
SVG_EMPTY = frozenset({"circle", "ellipse", "line", "path", "polygon", "polyline", "rect"})
"""SVG shapes written as ``<line .../>`` when they have no children."""


def _text(child: Any) -> str:
    """A child as HTML: ``Html`` as it is, None as nothing, a list or generator each of its items, else escaped text."""
    kind = type(child)
    if kind is str:
        return esc(child)
    if kind is Html:
        return str(child)
    if hasattr(child, "__html__"):
        return str(child.__html__())
    if child is None:
        return ""
    if isinstance(child, (list, tuple)) or hasattr(child, "__next__"):
        return "".join([_text(c) for c in child])
    return esc(child)


def _new_html(text: str) -> Html:
    """``Html(text)`` for text this module has just built (markupsafe's constructor, without its checks)."""
    return str.__new__(Html, text)


_NAMES: dict[str, str] = {}
"""Attribute names by keyword (``class_`` → ``class``), made once each."""


def _attrs(attrs: Mapping[str, Any]) -> str:
    out = []
    for name, value in attrs.items():
        if value is None or value is False:
            continue
        key = _NAMES.get(name) or _NAMES.setdefault(name, name.rstrip("_").replace("_", "-"))
        out.append(f" {key}" if value is True else f' {key}="{esc(value)}"')
    return "".join(out)


def h(tag: str, *children: Any, **attrs: Any) -> Html:
    """``<tag attrs>children</tag>``, text escaped.

    A child is ``Html`` (kept), text or a number (escaped), None (left out) or a list or generator of
    children. An attribute's name is its keyword with a trailing ``_`` dropped and ``_`` as ``-``
    (``class_`` → ``class``, ``data_kl_slot`` → ``data-kl-slot``); pass other names as ``**{"name": v}``.
    Its value is text (escaped); None or False leaves it out, True writes it bare (``open``).

    >>> h("p", "a < b", h("b", 3), class_="kl-note", data_step='x"y', hidden=None)
    Html('<p class="kl-note" data-step="x&quot;y">a &lt; b<b>3</b></p>')
    >>> h("details", h("summary", "More"), open=True) + h("br") + h("line", x1=0, stroke="#bbb")
    Html('<details open><summary>More</summary></details><br><line x1="0" stroke="#bbb"/>')
    """
    start = tag + _attrs(attrs) if attrs else tag
    if tag in VOID:
        return _new_html(f"<{start}>")
    inner = "".join([_text(c) for c in children])
    if not inner and tag in SVG_EMPTY:
        return _new_html(f"<{start}/>")
    return _new_html(f"<{start}>{inner}</{tag}>")


def join(items: Iterable[Any], sep: Any = "") -> Html:
    """``items`` one after another (text escaped, None left out), ``sep`` (text, or ``Html`` such as ``h("br")``)
    between them.

    >>> join(["a&b", None, h("i", "c")], " · ")
    Html('a&amp;b · <i>c</i>')
    """
    return Html.escape(sep).join(x for x in items if x is not None)


def marimo_html(elem: Any) -> Html:
    """What marimo draws for a widget or an ``mo.Html`` (its ``.text``: marimo's own HTML); nothing without one."""
    return Html(getattr(elem, "text", ""))


def style(css: str) -> Html:
    """``<style>css</style>`` for the library's own CSS (a constant of a module, never data: CSS is not escaped)."""
    return Html(f"<style>{css}</style>")


def document(title: str, css: str, *body: Any) -> Html:
    """A whole page that needs nothing else: charset, viewport, ``title``, the CSS inline, ``body`` in ``<main>``.

    >>> page = document("A & B", "p > b {}", h("p", "hi"))
    >>> "<title>A &amp; B</title><style>p > b {}</style></head><body><main><p>hi</p></main>" in page
    True
    """
    head = h("head", h("meta", charset="utf-8"),
             h("meta", name="viewport", content="width=device-width, initial-scale=1"), h("title", title), style(css))
    return Html("<!DOCTYPE html>\n") + h("html", head, h("body", h("main", *body)), lang="en") + Html("\n")


def table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None, *, cls: str = "kl-table") -> Html:
    """An HTML table of ``rows`` (dicts); columns default to the union of keys in order."""
    if not rows:
        return h("p", "(none)", class_="kl-empty")
    cols: list[str] = list(columns) if columns is not None else []
    if columns is None:
        for r in rows:
            for k in r:
                if k not in cols:
                    cols.append(k)
    head = h("thead", h("tr", (h("th", c) for c in cols)))
    body = h("tbody", (h("tr", (h("td", scalar(r.get(c))) for c in cols)) for r in rows))
    return h("table", head, body, class_=cls)


def key_values(values: Mapping[str, Any], *, before: Mapping[str, Any] | None = None) -> Html:
    """A two-column table of figures; with ``before``, changed ones show ``old → new``."""
    rows = []
    for k, v in values.items():
        cell: str = scalar(v)
        if before is not None and k in before and before[k] != v:
            cell = join([h("span", scalar(before[k]), class_="kl-old"), h("b", cell, class_="kl-changed")], " → ")
        rows.append(h("tr", h("th", k), h("td", cell)))
    if not rows:
        return h("p", "(no figures)", class_="kl-empty")
    return h("table", rows, class_="kl-kv")


def roll_mark(roll: Roll, *, reroll: str = "re-roll #{}") -> list[Any] | None:
    """`` (typed, re-roll #1)`` after a roll whose faces were typed or re-rolled (``reroll``: how a nonce reads);
    None for a plain keyed roll."""
    marks = (["typed"] if roll.manual else []) + ([reroll.format(roll.nonce)] if roll.nonce else [])
    return [" ", h("span", f"({', '.join(marks)})", class_="kl-mark")] if marks else None


def roll_line(roll: Roll) -> Html:
    """``harvest: 2d6 → [3, 5] = 8`` (typed dice and re-rolls marked)."""
    faces = ", ".join(str(f) for f in roll.faces)
    kept = "" if tuple(roll.kept) == tuple(roll.faces) else f" kept [{', '.join(str(k) for k in roll.kept)}]"
    mark = roll_mark(roll)
    return h("span", h("b", roll.key), f": {roll.notation} → ", h("span", f"[{faces}]", class_="kl-faces"), kept,
             " = ", h("b", roll.total), mark, class_="kl-roll")


CHECK_KEYS = ("die", "modifier", "total")


def check_line(payload: Mapping[str, Any]) -> Html | None:
    """A check's arithmetic if the payload carries one (die + modifier = total vs DC → degree), else None.

    >>> print(check_line({"die": 17, "modifier": 9, "total": 26, "dc": 22, "degree": "success"}))
    die 17 +9 = <b>26</b> vs DC 22 → <b class="kl-degree">success</b>

    Works on any ruleset whose check events name ``die``, ``modifier`` and ``total``
    (optionally ``dc``, ``degree`` and a list of ``terms`` with label/value).
    """
    if not all(k in payload for k in CHECK_KEYS):
        return None
    parts: list[Any] = [f"die {payload['die']} {int(payload['modifier']):+d} = ", h("b", payload["total"])]
    if "dc" in payload:
        parts.append(f" vs DC {payload['dc']}")
    if payload.get("degree"):
        parts += [" → ", h("b", str(payload["degree"]).replace("_", " "), class_="kl-degree")]
    terms = payload.get("terms") or []
    if terms:
        inner = ", ".join(f"{t.get('label', '?')} {int(t.get('value', 0)):+d}" for t in terms if isinstance(t, Mapping))
        parts += [" ", h("span", f"(modifier: {inner})", class_="kl-terms")]
    return join(parts)


def event_item(type_name: str, payload: Mapping[str, Any], visibility: str, phase: str | None = None) -> Html:
    """One event as a list item: type, visibility badge, check arithmetic, compact fields."""
    vis = None if visibility == "public" else [" ", h("span", f"[{visibility}]", class_="kl-vis")]
    check = check_line(payload)
    fields = ", ".join(f"{k}={scalar(v)}" for k, v in payload.items() if k not in ("terms", "dc_terms"))
    return h("li", h("code", type_name), vis, " ", h("span", fields, class_="kl-fields"),
             h("div", check) if check else None, class_="kl-event")


def _event_list(items: list[Html]) -> Html:
    return h("ul", items, class_="kl-events") if items else h("p", "(no events)", class_="kl-empty")


def draft_items(drafts: Iterable[Draft]) -> Html:
    """The events a draft turn will append, as a list."""
    return _event_list([event_item(d.type, d.payload.model_dump(mode="json"), d.visibility, d.phase) for d in drafts])


def recorded_items(events: Iterable[RecordedEvent]) -> Html:
    """Recorded events as a list."""
    return _event_list([event_item(e.type, e.payload.model_dump(mode="json"), e.visibility, e.phase) for e in events])


def breakdown_items(breakdowns: Iterable[Breakdown]) -> Html:
    """Each derived number with its terms."""
    items = []
    for b in breakdowns:
        terms = join((join([f"{t.label} {t.value:+g}", *([" ", h("i", t.kind)] if t.kind != "untyped" else [])])
                      for t in b.terms), ", ")
        note = [" ", h("span", b.note, class_="kl-note")] if b.note else None
        items.append(h("li", h("b", b.name), f" = {b.total:g}", [" (", terms, ")"] if terms else None, note))
    return h("ul", items, class_="kl-breakdowns") if items else h("p", "(none)", class_="kl-empty")


STYLE = """
.kl-h1 { font-size: 1.9em; font-weight: 700; margin: .4em 0 .2em; }
.kl-h2 { font-size: 1.45em; font-weight: 600; margin: 1em 0 .3em; }
.kl-h3 { font-size: 1.15em; font-weight: 600; margin: .6em 0 .2em; }
.kl-table, .kl-kv { border-collapse: collapse; margin: .3em 0; font-size: .92em; }
.kl-table th, .kl-table td, .kl-kv th, .kl-kv td { border: 1px solid #ccc; padding: 2px 8px; text-align: left;
  vertical-align: top; }
.kl-kv th { background: #f4f4f4; font-weight: 600; }
.kl-old { color: #888; text-decoration: line-through; }
.kl-changed { color: #0a5; }
.kl-faces { font-family: monospace; }
.kl-mark, .kl-vis, .kl-note, .kl-terms { color: #666; font-size: .9em; }
.kl-events { margin: .2em 0; padding-left: 1.2em; }
.kl-event code { font-weight: 600; }
.kl-fields { color: #444; font-size: .9em; word-break: break-word; }
.kl-empty { color: #888; font-style: italic; }
.kl-retracted, .kl-retracted * { text-decoration: line-through; color: #999; }
.kl-timeline { list-style: none; padding-left: 0; }
.kl-timeline li { margin: .25em 0; }
.kl-error { color: #b00; font-weight: 600; }
"""
"""CSS for every fragment above (inlined into pages; no external stylesheet)."""
