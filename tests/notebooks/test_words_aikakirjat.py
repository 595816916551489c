"""Issue 29 on the aikakirjat GM sheet, read from what the sheet renders (no browser): a breakdown is headed as the
panel and the report name the figure ("Growth DC", "Agriculture"; it read "growth DC", "bureaucracy"); a feat is
named as the report names it ("Law and Order", on the panel's tile, its table and the feat dropdown; it read "law
and order"); the fields folded under "More:" are said as a person says them ("the PC's bonus", "Crime or Decadence
used as a bonus"; it read "pc's bonus, use positive", the keys made into words)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from nb_support import panel_records

from kingdomlog.core.choices import FieldSpec
from kingdomlog.core.turn import Plan
from kingdomlog.views import forms as sf
from kingdomlog.views.sheet import cards
from kingdomlog.views.sheet import panel as sheet_panel
from kingdomlog.views.sheet.draft import SheetSession, load_start
from kingdomlog.views.words import words


@pytest.fixture(scope="module")
def session(aikakirjat_demo: Path) -> SheetSession:
    """The demo's next year drafted as the sheet drafts it, every die drawn."""
    start = load_start(aikakirjat_demo, check_forms=False)
    return SheetSession(start, Plan(turn=start.turn, seed="x", dice="auto"))


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_a_breakdown_is_headed_as_the_panel_names_the_figure(session: SheetSession) -> None:
    heads: list[str] = []
    for card in session.draft.cards:
        html = str(cards.breakdown_html(card.breakdowns, cards._namer(session, card)))
        heads += re.findall(r'<div class="kl-bd"><b>([^<]*)</b>', html)
    assert "Growth DC" in heads and "Agriculture" in heads, heads  # as the panel's tile reads it: "Growth DC"
    assert [x for x in heads if not x[:1].isupper()] == []


def test_a_feat_is_named_as_the_report_names_it(session: SheetSession) -> None:
    rs, state = session.start.ruleset, session.start.state
    shown = text(str(sheet_panel.panel_html(rs, state)))
    assert "Feats Law and Order" in shown  # the tile
    assert "Feat Choices Law and Order" in shown  # the Feats table
    assert "law and order" not in shown
    feats = next(f for f in rs.choices(state, session.start.turn, "end", values={"benefits": [{"level": 3,
                 "benefit": "feat"}]}) if f.name == "benefits")
    entry = {f.name: f for f in (feats.entries or ((),))[0]}
    assert entry["feat"].options and "Law and Order" in [o.label for o in entry["feat"].options]


def _folded(spec: FieldSpec, given: dict[str, Any]) -> list[FieldSpec]:
    fields = (spec.entries or ((),))[0]
    main = sf.primary(spec, fields, given)
    return [f for f in fields if f.name not in main]


def test_the_fields_folded_under_more_are_said_in_words(session: SheetSession) -> None:
    rs, state = session.start.ruleset, session.start.state
    given = {"action": "attract_population"}
    spec = next(f for f in rs.choices(state, session.start.turn, "actions", values={"actions": [given]})
                if f.name == "actions")
    folded = _folded(spec, given)
    title = cards.more_title([f.label for f in folded], 99)
    assert "the PC's bonus" in title and "who performs it" in title, title
    assert "pc's" not in title and "use positive" not in title, title
    shown = (spec.entries or ((),))[0]
    made_of_keys = [f.name for f in shown if "_" in f.name and f.label == words(f.name)
                    and f.name not in ("neighbour_id", "institution_id", "project_id")]  # "Neighbour": a word
    assert made_of_keys == [], made_of_keys
    by_name = {f.name: f.label for f in shown}
    assert by_name["use_positive"] == "Crime or Decadence used as a bonus"
    # Attract Population rolls Trade (§3.10.2): no skill to pick, so no empty "Skill" box asked first
    assert next(f for f in shown if f.name == "skill").unused and "skill" not in sf.primary(spec, shown, given)


def test_records_kept_by_id_alone_are_named_as_the_report_names_them(session: SheetSession) -> None:
    """The panel's institutions and provinces: "the Sampo Academy" (the report's words; it read "academy sampo", the
    id made into words) and each province by its name, its owner beside it where two share it ("Home (Tuonela)";
    it read "t home")."""
    rs, state = session.start.ruleset, session.start.state
    shown = text(str(sheet_panel.panel_html(rs, state)))
    assert "the Sampo Academy" in shown and "academy sampo" not in shown
    assert "Home (Pohjola)" in shown and "Home (Tuonela)" in shown and "March, Home (Tuonela)" in shown
    assert not re.search(r"\b[ptk] (home|march|border)\b", shown), shown


def test_a_players_numbers_are_headed_as_the_sheet_heads_them(session: SheetSession) -> None:
    """The player page's "How each number is made" heads each figure with its capital, as the GM sheet's breakdowns
    do ("Culture score 12", "Growth DC 20"; it read "culture score 12")."""
    from types import SimpleNamespace

    from kingdomlog.views.player.page import numbers_html

    view = SimpleNamespace(breakdowns=list(session.start.ruleset.explain(session.start.state)))
    heads = re.findall(r"<li><b>([^<]*)</b>", str(numbers_html(view)))  # type: ignore[arg-type]
    assert "Culture score" in heads and "Growth DC" in heads, heads
    assert [x for x in heads if not x[:1].isupper()] == []


def test_the_actions_are_named_as_the_report_names_them(session: SheetSession) -> None:
    """The action dropdown, on the GM sheet and the session page's action slots: "Attract Population", "Tax
    Collection", "Equip Army / Navy" as the report and the spec (§3.10) name them; it read "attract population"."""
    from kingdomlog.views.extras import aikakirjat as S

    rs, state = session.start.ruleset, session.start.state
    spec = next(f for f in rs.choices(state, session.start.turn, "actions", values={"actions": [{}]})
                if f.name == "actions")
    action = next(f for f in (spec.entries or ((),))[0] if f.name == "action")
    labels = [o.label for o in action.options or ()]
    assert {"Attract Population", "Tax Collection", "Reduce Unrest", "Equip Army / Navy"} <= set(labels), labels
    slots = [x for x in S.action_options(state) if not x.startswith("(")]
    assert "Tax Collection" in slots and "Equip Army / Navy" in slots, slots
    assert any(x.startswith("Attract Population: Kalevala") for x in slots), slots
    assert "Research at the Sampo Academy" in slots, slots  # it read "research at academy-sampo"
    assert [x for x in labels + slots if not x[:1].isupper()] == []
    # a GM sheet's entry on a phone holds it whole (it read "... Intimidation (§3.10.7)", 356 px in 346)
    reduce = next(o for o in action.options or () if o.label == "Reduce Unrest")
    assert sf.option_text(reduce) == "Reduce Unrest — a PC's Persuasion or Intimidation"


def test_the_panels_figures_and_fields_are_said_in_words(session: SheetSession) -> None:
    """The panel's figures headed in words, not as the states' SQL columns ("Session 1", "Armies (most allowed) 1";
    it read "Session no 1", "Armies max 1"), and the values a record's field gives meaning to said as the spec
    says them: an institution's founder "a PC" (it read "pc"), a province's owner "the players' kingdom" (it read
    "players"), a track, an area, a terrain with its capital ("Decadence", "Marsh", "Tundra"); the session, shown
    among the figures, is not repeated under "Everything else" as "session no 1, years total 16"."""
    rs, state = session.start.ruleset, session.start.state
    html = str(sheet_panel.panel_html(rs, state))
    tiles = dict(re.findall(r'<div class="kl-stat-name">([^<]*)</div><div class="kl-stat-value">([^<]*)<', html))
    assert tiles.get("Session") == "1" and tiles.get("Armies (most allowed)") == "1", tiles
    assert "Years played this session" in tiles and not [x for x in tiles if re.search(r"\b(no|max)$", x)], tiles
    shown = text(html).replace("&#x27;", "'")
    assert "the Sampo Academy Academy 0 — a PC" in shown, shown
    home = next(r for r in panel_records(html, "Provinces") if r["Province"] == "Home (Pohjola)")
    assert (home["Terrain"], home["Owner"], home["Controller"]) == ("Temperate", "the players' kingdom",
                                                                    "the players' kingdom"), home
    assert "Decadence 4 0" in shown and "Marsh hex" in shown and "Border Tundra Tuonela" in shown, shown
    assert not re.search(r"\b(pc|players(?!')|session no|decadence|marsh|tundra)\b", shown), shown


def test_the_dropdowns_say_their_options_as_names(session: SheetSession) -> None:
    """The random events' either/ors and the records picked by id on the GM sheet, as a person names them: an ability
    "Stability", a skill "Diplomacy", "Embrace the new god", the war's target "The players' kingdom" (they read
    "stability", "diplomacy", "embrace", "players": a Literal's values), an institution "the Sampo Academy" and a
    province "Home (Pohjola)" owned by "the players' kingdom" (they read "academy-sampo", "p-home", "owner
    players"), a track "Crime", a skill "Trade"."""
    rs, state, turn = session.start.ruleset, session.start.state, session.start.turn
    events = {f.name: [o.label for o in f.options or ()] for f in rs.choices(state, turn, "events")}
    assert events["evil_ability"] == ["Culture", "Economy", "Loyalty", "Stability"], events
    assert events["succession_skill"] == ["Diplomacy", "Warfare", "Magic"], events
    assert events["god"] == ["Embrace the new god", "Resist the new god"], events
    assert events["war_target"] == ["Another kingdom", "The players' kingdom"], events
    said = {src: rs.vocabulary(state, src, {}) or () for src in ("institutions", "provinces", "tracks", "skills")}
    assert [o.label for o in said["institutions"]] == ["the Sampo Academy"]
    home = next(o for o in said["provinces"] if o.value == "p-home")
    assert home.label == "Home (Pohjola)" and home.detail.startswith("owner the players' kingdom, held by the"), home
    assert "Crime" in [o.label for o in said["tracks"]] and "Trade" in [o.label for o in said["skills"]]
    labels = [o.label for opts in said.values() for o in opts] + [x for v in events.values() for x in v]
    assert [x for x in labels if re.fullmatch(r"[a-z][a-z0-9_-]*", x)] == [], labels


def test_a_government_is_named_with_its_capital(session: SheetSession) -> None:
    """The panel's Government tile and a neighbour's profile: "Republic", "Autocracy" (they read "republic")."""
    rs, state = session.start.ruleset, session.start.state
    html = str(sheet_panel.panel_html(rs, state))
    tiles = dict(re.findall(r'<div class="kl-stat-name">([^<]*)</div><div class="kl-stat-value">([^<]*)<', html))
    assert tiles["Government"] == "Republic", tiles
    assert "government Autocracy" in text(html) and "republic" not in text(html)


def test_the_random_events_either_ors_fit_their_closed_dropdown(session: SheetSession) -> None:
    """The closed dropdowns of the random events' step at 1280 px show some 38 characters (a card's left column,
    as on a phone): they read "Random — 1d2 among the 2 independent ne" (its roll key 'pick' named after it) and
    "Another kingdom — the players may support"; each says what it is in a few words, the field's help below it
    whole."""
    rs, state, turn = session.start.ruleset, session.start.state, session.start.turn
    fields = {f.name: f for f in rs.choices(state, turn, "events")}
    said = {f: [sf.option_text(o) for o in fields[f].options or ()] for f in ("neighbour_id", "war_target")}
    assert said["neighbour_id"][0] == "Random — 1d2, independent ones only", said
    assert said["war_target"] == ["Another kingdom — we may take a side", "The players' kingdom — attacked (§4.5)"]
    assert [x for v in said.values() for x in v if len(x) > 38 and not x.startswith(("Kalevala", "Tuonela"))] == []
    assert not [x for v in said.values() for x in v if "roll key" in x]
    assert "a war begins with that neighbour as the attacker (§4.5)" in fields["war_target"].help
