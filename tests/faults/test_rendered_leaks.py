"""Leak checks read the page as it renders, not its source (issue 19, item 10).

The Signoria HTML leak test looked for ``loyalty=\\d`` while the page shows loyalty in table
cells, so a leaked value passed it. Here the player's static page is parsed into what a reader
sees (every text node, and each table's header → cell pairs), and a GM-only value is looked for
there: as a cell beside its header and as the bare number anywhere in the text. A control with
redaction switched off shows both checks catch the leak they claim to.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
import toyrules

from kingdomlog.app import Campaign
from kingdomlog.core.turn import Plan
from kingdomlog.views.player.page import render_static

STASH = 7331  # a GM-only amount no other figure of the campaign can equal


class Rendered(HTMLParser):
    """The text a reader sees, and ``(header, cell)`` pairs of every two-column row (``<th>…</th><td>…</td>``)
    and of every figure card (its label and its value)."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []
        self.pairs: list[tuple[str, str]] = []
        self._row: list[tuple[str, str]] = []
        self._cell: list[str] | None = None
        self._skip = 0
        self.tables: list[list[dict[str, str]]] = []
        self._heads: list[str] = []
        self._in_head = False
        self._card: str | None = None  # "label" or "value" while inside a card's label or value
        self._card_text: list[str] = []
        self._card_label = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("style", "script"):
            self._skip += 1
        elif tag == "table":
            self.tables.append([])
            self._heads = []
        elif tag == "thead":
            self._in_head = True
        elif tag == "tr":
            self._row = []
        elif tag in ("th", "td"):
            self._cell = []
        elif tag == "div":
            cls = dict(attrs).get("class") or ""
            if "kl-card-label" in cls:
                self._card, self._card_text = "label", []
            elif "kl-card-value" in cls:
                self._card, self._card_text = "value", []
        elif tag == "span" and self._card == "value":
            self._card = "delta"  # the change beside the value is not the value

    def handle_endtag(self, tag: str) -> None:
        if tag == "div" and self._card in ("label", "value", "delta"):
            text = " ".join("".join(self._card_text).split())
            if self._card == "label":
                self._card_label = text
            else:
                self.pairs.append((self._card_label, text))
            self._card = None
        if tag in ("style", "script"):
            self._skip -= 1
        elif tag in ("th", "td") and self._cell is not None:
            self._row.append((tag, " ".join("".join(self._cell).split())))
            self._cell = None
        elif tag == "thead":
            self._in_head = False
        elif tag == "tr":
            if self._in_head:
                self._heads = [text for _, text in self._row]
            elif len(self._row) == 2 and self._row[0][0] == "th":
                self.pairs.append((self._row[0][1], self._row[1][1]))
            elif self.tables and self._heads and len(self._row) == len(self._heads):
                self.tables[-1].append(dict(zip(self._heads, (t for _, t in self._row), strict=True)))

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        self.texts.append(data)
        if self._cell is not None:
            self._cell.append(data)
        if self._card in ("label", "value"):
            self._card_text.append(data)


def rendered(page: str) -> Rendered:
    r = Rendered()
    r.feed(page)
    return r


def leaks(page: str) -> list[str]:
    """Where ``STASH`` shows in the rendered page: as a cell of a 'stash' header, or as a number in any text."""
    r = rendered(page)
    found = [f"{h.lower()}: {c}" for h, c in r.pairs if h.lower() == "stash" and c not in ("—", "")]
    found += [f"table row stash={row['stash']}" for t in r.tables for row in t if row.get("stash", "—") != "—"]
    text = " ".join(r.texts)
    grouped = rf"{STASH // 1000}[,\u202f\u00a0 ]?{STASH % 1000:03d}"  # 7331, 7,331, 7 331
    found += [m.group(0) for m in re.finditer(rf"(?<![\d.,]){grouped}(?![\d.])", text)]
    return found


@pytest.fixture
def farm(tmp_path: Path) -> Path:
    camp = Campaign.create(tmp_path / "farm", "toy-farm", name="Farm", viewers=["alice"])
    camp.play(Plan.parse({"seed": "a", "steps": {"found": {"choices": {"name": "Dale", "gold": 5}}}}))
    camp.play(Plan.parse({"seed": "b", "steps": {"harvest": {"choices": {"stash": STASH}}}}))
    return camp.folder


def test_a_gm_only_value_is_not_in_what_a_player_reads(farm: Path) -> None:
    for viewer in ("alice", "public"):
        assert leaks(render_static(farm, viewer)) == [], viewer
    # the GM's page does show it, in the cells the checks read: they are looking in the right place
    gm = leaks(render_static(farm, "gm"))
    assert "stash: 7,331" in gm and "7,331" in gm


def test_the_check_catches_a_leaked_value_rendered_in_cards(farm: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Redaction switched off: the player's page now shows the stash in a figure card and in its text (as 7,331);
    the check must say so."""
    monkeypatch.setattr(toyrules.ToyRuleset, "redact", lambda self, state, viewer: state)
    # and the page trusting redact alone (else it shows the state the visible events fold to, stash 0)
    monkeypatch.setattr(toyrules.ToyRuleset, "redacts_hidden_events", True)
    page = render_static(farm, "alice")
    assert "stash=" not in page  # the old pattern-on-source kind of check would see nothing
    found = leaks(page)
    assert "stash: 7,331" in found and found.count("7,331") >= 2, found


def test_a_broken_redact_still_leaks_nothing_where_the_value_came_from_a_hidden_event(
        farm: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The stash came in by a GM-only event: even with redaction switched off, the player's page shows the state
    the events the player may see fold to (the stash never reaches it)."""
    monkeypatch.setattr(toyrules.ToyRuleset, "redact", lambda self, state, viewer: state)
    assert leaks(render_static(farm, "alice")) == ["stash: 0"]  # the field's start value, not the hidden 7,331
