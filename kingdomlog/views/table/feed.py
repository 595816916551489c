"""The table's live feed in words: what happened this turn, only the lines the viewer may read (``app.table.feed``).

>>> from kingdomlog.app.table import Line
>>> ln = Line(n=1, at="2026-12-06T11:02:03.456+00:00", turn=19, kind="rolled", by="ysolde",
...           visibility="faction:ysolde", text="Quell Unrest (Ruler): d20 = 9, failure")
>>> "Ysolde" in feed_html([ln], {"ysolde": "Ysolde"}) and "11:02" in feed_html([ln], {})
True
>>> "Nothing yet" in feed_html([], {})
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kingdomlog.app.table import Line
from kingdomlog.views.html import Html, h

ICONS = {"declared": "✎", "rolled": "🎲", "rerolled": "🎲", "accepted": "✔", "returned": "↩", "withdrawn": "✕",
         "said": "💬", "committed": "📜"}
VERBS = {"declared": "declares", "rolled": "rolls", "rerolled": "rolls again", "accepted": "", "returned": "",
         "withdrawn": "withdraws", "said": "", "committed": ""}

STYLE = ("<style>.kl-feed{list-style:none;margin:0;padding:0;font-size:.95em}"
         ".kl-feed li{padding:.25em 0;border-bottom:1px solid #eee}.kl-feed time{color:#666;font-size:.85em;"
         "margin-right:.4em}.kl-feed .kl-who{font-weight:600;margin-right:.3em}"
         ".kl-feed li.accepted{color:#1b5e20}.kl-feed li.returned{color:#8a4b00}</style>")


def who_name(by: str, names: Mapping[str, str]) -> str:
    """``gm`` → ``GM``; a player's id → their name (else the id)."""
    return "GM" if by == "gm" else names.get(by, by)


def feed_html(lines: Sequence[Line], names: Mapping[str, str], *, newest_first: bool = True) -> Html:
    """The feed as a list, newest first: time, who, what (the lines' own words)."""
    if not lines:
        return Html(STYLE) + h("p", "Nothing yet this turn: proposals, rolls and the GM's decisions appear here as"
                                    " they happen.", class_="kl-feed-empty")
    items = []
    for ln in (reversed(lines) if newest_first else lines):
        who, verb, text = _parts(ln, names)
        items.append(h("li", h("time", ln.at[11:16], datetime=ln.at), ICONS.get(ln.kind, "·"), " ",
                       h("span", who, class_="kl-who") if who else None, f"{verb} " if verb else "", text,
                       class_=ln.kind, data_n=ln.n))
    return Html(STYLE) + h("ul", items, class_="kl-feed", aria_label="Table feed", aria_live="polite")


def _parts(ln: Line, names: Mapping[str, str]) -> tuple[str, str, str]:
    """A line's who (none for the GM's decisions, which say it in their text), verb and what, in words."""
    who = "" if ln.kind in ("accepted", "committed", "returned") else who_name(ln.by, names)
    text = ln.text if ln.kind not in ("said",) else ln.text.split(": ", 1)[-1]
    return who, VERBS.get(ln.kind, ""), text


def feed_text(ln: Line, names: Mapping[str, str]) -> str:
    """One line of the feed as plain text, as the page says it (``kingdomlog table`` prints these): who by their
    name, never their id.

    >>> from kingdomlog.app.table import Line
    >>> said = Line(n=2, at="2026-12-06T11:03:00+00:00", turn=19, kind="said", by="ysolde", visibility="public",
    ...             text="ysolde: the Ruler will speak")
    >>> feed_text(said, {"ysolde": "Ysolde"})
    'Ysolde: the Ruler will speak'
    >>> feed_text(said.model_copy(update={"kind": "rolled", "text": "Quell Unrest: d20 = 9"}), {"ysolde": "Ysolde"})
    'Ysolde rolls Quell Unrest: d20 = 9'
    """
    who, verb, text = _parts(ln, names)
    if ln.kind == "said":
        return f"{who}: {text}"
    return " ".join(part for part in (who, verb, text) if part)


__all__ = ["feed_html", "feed_text", "who_name"]
