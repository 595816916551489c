"""Small HTML builders shared by the turn sheet and the player views (escaped, no scripts, no URLs)."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kingdomlog.core.events import Draft, RecordedEvent
from kingdomlog.core.ruleset import Breakdown
from kingdomlog.dice.roller import Roll

_FORBIDDEN = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
"""Characters HTML does not allow in text (NUL and the other C0 controls but tab, newline, CR; DEL)."""


def clean(text: str) -> str:
    r"""``text`` with every character HTML forbids replaced by U+FFFD (so NUL never reaches a page).

    >>> clean("a\x00b\tc") == "a\ufffdb\tc"
    True
    """
    return _FORBIDDEN.sub("\ufffd", text)


def esc(value: Any) -> str:
    """HTML-escape ``str(value)`` (quotes too), with characters HTML forbids (NUL, …) as U+FFFD."""
    return html.escape(clean(str(value)), quote=True)


def scalar(value: Any) -> str:
    """A compact text for a value: JSON for containers, plain text otherwise."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, default=str, ensure_ascii=False, separators=(", ", ": "))
    return str(value)


def table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None, *, cls: str = "kl-table") -> str:
    """An HTML table of ``rows`` (dicts); columns default to the union of keys in order."""
    if not rows:
        return '<p class="kl-empty">(none)</p>'
    cols: list[str] = list(columns) if columns is not None else []
    if columns is None:
        for r in rows:
            for k in r:
                if k not in cols:
                    cols.append(k)
    head = "".join(f"<th>{esc(c)}</th>" for c in cols)
    body = "".join(
        "<tr>" + "".join(f"<td>{esc(scalar(r.get(c)))}</td>" for c in cols) + "</tr>" for r in rows
    )
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def key_values(values: Mapping[str, Any], *, before: Mapping[str, Any] | None = None) -> str:
    """A two-column table of figures; with ``before``, changed ones show ``old → new``."""
    rows = []
    for k, v in values.items():
        if before is not None and k in before and before[k] != v:
            cell = f'<span class="kl-old">{esc(scalar(before[k]))}</span> → <b class="kl-changed">{esc(scalar(v))}</b>'
        else:
            cell = esc(scalar(v))
        rows.append(f"<tr><th>{esc(k)}</th><td>{cell}</td></tr>")
    if not rows:
        return '<p class="kl-empty">(no figures)</p>'
    return '<table class="kl-kv">' + "".join(rows) + "</table>"


def roll_line(roll: Roll) -> str:
    """``harvest: 2d6 → [3, 5] = 8`` (typed dice and re-rolls marked)."""
    faces = ", ".join(str(f) for f in roll.faces)
    kept = "" if tuple(roll.kept) == tuple(roll.faces) else f" kept [{', '.join(str(k) for k in roll.kept)}]"
    marks = []
    if roll.manual:
        marks.append("typed")
    if roll.nonce:
        marks.append(f"re-roll #{roll.nonce}")
    mark = f' <span class="kl-mark">({", ".join(marks)})</span>' if marks else ""
    return (f'<span class="kl-roll"><b>{esc(roll.key)}</b>: {esc(roll.notation)} → '
            f'<span class="kl-faces">[{esc(faces)}]</span>{esc(kept)} = <b>{roll.total}</b>{mark}</span>')


CHECK_KEYS = ("die", "modifier", "total")


def check_line(payload: Mapping[str, Any]) -> str | None:
    """A check's arithmetic if the payload carries one (die + modifier = total vs DC → degree), else None.

    >>> check_line({"die": 17, "modifier": 9, "total": 26, "dc": 22, "degree": "success"})
    'die 17 +9 = <b>26</b> vs DC 22 → <b class="kl-degree">success</b>'


    Works on any ruleset whose check events name ``die``, ``modifier`` and ``total``
    (optionally ``dc``, ``degree`` and a list of ``terms`` with label/value).
    """
    if not all(k in payload for k in CHECK_KEYS):
        return None
    parts = [f"die {esc(payload['die'])} {int(payload['modifier']):+d} = <b>{esc(payload['total'])}</b>"]
    if "dc" in payload:
        parts.append(f" vs DC {esc(payload['dc'])}")
    if payload.get("degree"):
        parts.append(f' → <b class="kl-degree">{esc(str(payload["degree"]).replace("_", " "))}</b>')
    terms = payload.get("terms") or []
    if terms:
        inner = ", ".join(f"{esc(t.get('label', '?'))} {int(t.get('value', 0)):+d}" for t in terms
                          if isinstance(t, Mapping))
        parts.append(f' <span class="kl-terms">(modifier: {inner})</span>')
    return "".join(parts)


def event_item(type_name: str, payload: Mapping[str, Any], visibility: str, phase: str | None = None) -> str:
    """One event as a list item: type, visibility badge, check arithmetic, compact fields."""
    vis = "" if visibility == "public" else f' <span class="kl-vis">[{esc(visibility)}]</span>'
    check = check_line(payload)
    fields = ", ".join(f"{esc(k)}={esc(scalar(v))}" for k, v in payload.items() if k not in ("terms", "dc_terms"))
    head = f"<code>{esc(type_name)}</code>{vis}"
    body = f"<div>{check}</div>" if check else ""
    return f'<li class="kl-event">{head} <span class="kl-fields">{fields}</span>{body}</li>'


def draft_items(drafts: Iterable[Draft]) -> str:
    """The events a draft turn will append, as a list."""
    items = [event_item(d.type, d.payload.model_dump(mode="json"), d.visibility, d.phase) for d in drafts]
    return "<ul class=\"kl-events\">" + "".join(items) + "</ul>" if items else '<p class="kl-empty">(no events)</p>'


def recorded_items(events: Iterable[RecordedEvent]) -> str:
    """Recorded events as a list."""
    items = [event_item(e.type, e.payload.model_dump(mode="json"), e.visibility, e.phase) for e in events]
    return "<ul class=\"kl-events\">" + "".join(items) + "</ul>" if items else '<p class="kl-empty">(no events)</p>'


def breakdown_items(breakdowns: Iterable[Breakdown]) -> str:
    """Each derived number with its terms."""
    items = []
    for b in breakdowns:
        terms = ", ".join(f"{esc(t.label)} {t.value:+g}" + (f" <i>{esc(t.kind)}</i>" if t.kind != "untyped" else "")
                          for t in b.terms)
        note = f' <span class="kl-note">{esc(b.note)}</span>' if b.note else ""
        items.append(f"<li><b>{esc(b.name)}</b> = {b.total:g}" + (f" ({terms})" if terms else "") + f"{note}</li>")
    return '<ul class="kl-breakdowns">' + "".join(items) + "</ul>" if items else '<p class="kl-empty">(none)</p>'


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
