"""The pf1 GM sheet in words, read from what the sheet renders (no browser): a breakdown's edict term is said as
a person says it ("Promotion edict: none"; it read "promotion NONE", the catalog's key)."""

from __future__ import annotations

import re
from pathlib import Path

from nb_support import demo_session

from kingdomlog.views.sheet import cards

REPO = Path(__file__).resolve().parents[2]


def test_an_edicts_term_is_said_in_words(tmp_path: Path) -> None:
    session = demo_session("river-kingdom", tmp_path)
    terms: list[str] = []
    for card in session.draft.cards:
        html = str(cards.breakdown_html(card.breakdowns, cards._namer(session, card)))
        terms += [re.sub(r"<[^>]+>", "", x) for x in re.findall(r"<li>(.*?)</li>", html)]
    edicts = [t for t in terms if "edict" in t.lower() or "promotion" in t.lower()]
    assert any(t.startswith("Promotion edict: none") for t in edicts), edicts
    assert not [t for t in terms if re.search(r"\b(promotion|taxation|festivals) [A-Z]{3,}\b|/year", t)], terms
