"""A step's card lists the events it records ("N events this step records", ``views.sheet.cards.event_words``) in
words: a list or a record inside an event is said as the kingdom panel says one, never as JSON, and a record's id
by its name in the state. Signoria's opening read ``faction fabian, lines [{"source": "province:fabia", "amount":
1}]``, pf1's army upkeep ``per army {"A2": 12}``, aikakirjat's ``outcome {"ops": [{"path": …``."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from nb_support import demo_session

from kingdomlog.views.sheet import cards

REPO = Path(__file__).resolve().parents[2]


def _lines(demo: str, tmp: Path) -> dict[str, list[str]]:
    """Each card's event lines of ``demo``'s next turn, drafted as the GM sheet drafts it (every die drawn)."""
    session = demo_session(demo, tmp)
    out: dict[str, list[str]] = {}
    for card in session.draft.cards:
        page = str(cards.result_html(session, card, session.draft))
        for ul in re.findall(r'<ul class="kl-evlist">(.*?)</ul>', page, re.S):
            out[card.id] = [html.unescape(re.sub(r"<[^>]+>", "", x)) for x in re.findall(r"<li>(.*?)</li>", ul, re.S)]
    return out


@pytest.mark.parametrize("demo", ["felmonte", "river-kingdom", "stolen-lands", "aikakirjat-demo"])
def test_no_event_line_reads_as_json(demo: str, tmp_path: Path) -> None:
    lines = [x for xs in _lines(demo, tmp_path).values() for x in xs]
    assert lines, demo
    assert [x for x in lines if re.search(r'[{}\[\]]|"', x)] == [], lines


def test_signorias_opening_names_the_faction_and_counts_its_income_lines(tmp_path: Path) -> None:
    lines = _lines("felmonte", tmp_path)
    assert "Income credited (seen by Duke Fabian): faction Duke Fabian, 1 line, total 1" in lines["turn_open"], lines
    assert "Orders locked: turn 8; missing Duke Fabian, Doge of Marburg" in lines["p1_internal"], lines
    assert "Turn opened: turn 8, season winter, year label Winter 216-217" in lines["turn_open"], lines  # words kept
    # as the event holds them: it read "Winter 216 217", a value said as an id


def test_pf1s_army_upkeep_names_the_army(tmp_path: Path) -> None:
    lines = _lines("river-kingdom", tmp_path)
    assert [x for x in lines["upkeep"] if x.startswith("Army upkeep paid: per army (Tatzlford Guard: 12),")], lines
    assert [x for x in lines["upkeep"] if ", outcome Unrest up, " in x], lines  # it read "outcome UNREST UP"


def test_a_steps_figures_are_named_as_the_panels_tiles_name_them(tmp_path: Path) -> None:
    """A card's line of the figures its step moves heads each as the panel's tile does (``figure_label``):
    signoria's read "Fabian wealth 3 → 4", aikakirjat's "Session no 1 → 2" (the tiles: "Duke Fabian's wealth",
    "Session")."""
    said = {}
    for demo in ("felmonte", "aikakirjat-demo"):
        session = demo_session(demo, tmp_path)
        for card in session.draft.cards:
            said[f"{demo} {card.id}"] = html.unescape(re.sub(r"<[^>]+>", "",
                                                             str(cards.outcome_html(session, card, session.draft))))
    assert "Duke Fabian's wealth 3 → 4 (+1) · Doge of Marburg's wealth 2 → 5 (+3)" in said["felmonte turn_open"], said
    assert "· Session 1 → 2 (+1) · Years this session 16 → 31" in said["aikakirjat-demo start"], said
