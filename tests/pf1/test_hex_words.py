"""pf1's hexes have no names: a person reads them as the map labels them, "hex 3" (issue: they read "h3", the id a
plan gives them): in the GM sheet's options and hex picker, the panel's tables, the explanations, the map and a
player's page. Stored ids and logged events are unchanged."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from kingdomlog.app import Campaign
from kingdomlog.core.viewers import parse_viewer
from kingdomlog.rulesets.pf1 import RULESET

DEMO = Path(__file__).resolve().parents[2] / "campaigns" / "river-kingdom"
HEX_ID = re.compile(r"\bh\d+\b")


@pytest.fixture(scope="module")
def start():  # type: ignore[no-untyped-def]
    return Campaign.open(DEMO).turn_start()


def _text(markup: str) -> str:
    """What a page says: its text, without its styles and scripts."""
    markup = re.sub(r"<(style|script)\b.*?</\1>", " ", markup, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", markup))


def test_the_sheets_hex_options_say_hex_and_its_number(start) -> None:  # type: ignore[no-untyped-def]
    specs = {f.name: f for f in RULESET.choices(start.state, start.turn, "gm")}
    labels = [o.label for o in specs["explore"].options or ()]
    assert labels[:2] == ["hex 0 (grassland, river)", "hex 1 (grassland)"], labels
    shown = [f"{o.label} {o.detail}" for f in RULESET.choices(start.state, start.turn, "improvement")
             for spec in (f, *f.fields) for o in spec.options or ()]
    assert not [x for x in shown if HEX_ID.search(x)], [x for x in shown if HEX_ID.search(x)][:5]
    detail = next(o.detail for o in specs["explore"].options or () if o.value == "h0")
    assert "Tatzlford" in detail and "bridge" in detail and "C1" not in detail and "BRIDGE" not in detail, detail


def test_the_panel_and_the_map_name_a_hex_as_each_other_does(start) -> None:  # type: ignore[no-untyped-def]
    from kingdomlog.views.player.maps import hex_map_svg
    from kingdomlog.views.sheet.panel import panel_html

    panel = _text(str(panel_html(RULESET, start.state)))
    assert "hex 0" in panel and not HEX_ID.search(panel), HEX_ID.findall(panel)[:5]
    drawn = RULESET.map(start.state, parse_viewer("gm", ()))
    assert drawn is not None
    svg = str(hex_map_svg(drawn))
    assert ">0<" in svg and "<title>hex 0 · grassland" in svg  # the hex labelled by its number, "hex 0" in words
    assert not HEX_ID.search(_text(svg)), HEX_ID.findall(_text(svg))[:5]
    assert 'data-hex="h0"' in svg  # the picker still sends the hex's id


def test_a_players_page_names_no_hex_by_its_id() -> None:
    from kingdomlog.views.player import page

    text = _text(page.render_static(DEMO, "public"))
    assert "hex " in text and not HEX_ID.search(text), sorted(set(HEX_ID.findall(text)))[:5]


def test_a_steps_event_line_says_the_hex_it_names() -> None:
    """The card's line of an event that names a hex: "Hex claimed: hex 11, cost bp 1" (it read "hex h11"); the
    event keeps the id."""
    from kingdomlog.core.events import Draft
    from kingdomlog.rulesets.pf1 import events as ev
    from kingdomlog.views.sheet.cards import event_words

    d = Draft(ev.HexClaimed(hex="h11", cost_bp=1), turn=18)
    line = _text(str(event_words(d, RULESET.name_of)))
    assert line.strip() == "Hex claimed : hex 11, cost bp 1", line
    assert d.payload.model_dump()["hex"] == "h11"


def test_a_checks_title_says_the_hex_its_logged_label_names_by_id() -> None:
    """A town annexed with its hex claimed: the check's label is logged "…the town on hex h1" (kept); the card's
    title says "hex 1"."""
    from kingdomlog.dice.checks import CheckSpec
    from kingdomlog.views.words import check_title

    spec = CheckSpec("d20", modifier=5, dc=20, label="Stability check to annex the town on hex h1")
    assert check_title("town_h1", spec, RULESET) == "Stability check to annex the town on hex 1: d20 +5 vs DC 20"
    old = CheckSpec("d20", modifier=5, dc=20, label="Stability check (town_h1)")  # a label of before issue 29
    assert not HEX_ID.search(check_title("town_h1", old, RULESET))
