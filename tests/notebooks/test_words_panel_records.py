"""The GM's kingdom panel says what a record's field holds in words the state alone can give (issue 29, the ninth
pass): signoria's character's activity by the order that took them, pf1's treaty terms, the numbers pf1's ids were
given up to, and the campaign by its name; the stored values are unchanged."""

from __future__ import annotations

import html
import re
from functools import cache
from pathlib import Path

from nb_support import panel_records

from kingdomlog.app import Campaign
from kingdomlog.views.sheet import panel as sheet_panel

DEMOS = Path(__file__).resolve().parents[2] / "campaigns"


@cache
def _page(demo: str) -> tuple[str, Campaign]:
    """The panel's HTML as the GM sheet draws it (``views.sheet.live.page``: with the campaign's name known)."""
    camp = Campaign.open(DEMOS / demo)
    return str(sheet_panel.panel_html(camp.ruleset, camp.turn_start().state,
                                      known=sheet_panel.campaign_names(camp))), camp


def _panel(demo: str) -> tuple[str, Campaign]:
    """The panel's text, its cells parted by "|"."""
    out, camp = _page(demo)
    return html.unescape(re.sub(r"\s*\|\s*(\|\s*)+", " | ", re.sub(r"<[^>]+>", " | ", out))), camp


def _fields(record: dict[str, str], *names: str) -> tuple[str, ...]:
    return tuple(record[n] for n in names)


def test_a_characters_activity_is_the_order_that_took_them() -> None:
    text, camp = _panel("felmonte")
    state = camp.turn_start().state
    assert state.characters["marburg.leader"].activity == "S2"  # the state keeps the order's id
    assert "| Doge Andrea | leader | Doge of Marburg |" in text
    assert "| intrigue against Duke Fabian (special order 2) |" in text  # Doge Andrea's, Marburg's S2
    assert "| march on Fabia (special order 1) |" in text  # Bianca's, Marburg's S1 (war)
    assert "| S2 |" not in text and "| S1 |" not in text
    # the campaign's id is a faction's too: the faction keeps its own name, not the campaign's
    assert "| Signoria of Felmonte |" in text and "The Signoria of Felmonte" not in text


def test_pf1s_treaty_terms_numbers_and_campaign_in_words() -> None:
    text, camp = _panel("river-kingdom")
    relation = camp.turn_start().state.relations["mivon"]
    assert relation.treaty is not None and relation.treaty.x_you == 22  # kept as stored
    assert "| balanced treaty since month 11 on our terms: our Economy 22 against theirs 30; +3 to us |" in text
    assert "x you" not in text and "x partner" not in text and "order index" not in text
    assert "| Numbered so far | cities 2, districts 2, buildings 16, trade routes 2, armies 2, battles 1 |" in text
    assert "Serials" not in text and "C 2" not in text
    assert "| Campaign | River Kingdom (PF1 demo) |" in text  # campaign.toml's name; its id read "river kingdom"
    assert "| Campaign | river kingdom |" not in text and "river-kingdom" not in text


def test_a_players_page_says_an_orders_rerolls_by_the_order_in_words(tmp_path: Path) -> None:
    """Marburg's page explains its rerolls by its orders in words (it read "Doge of Marburg S2 (intrigue_foreign)
    rerolls", the order's id)."""
    import shutil

    from kingdomlog.views.player.page import render_static

    folder = shutil.copytree(DEMOS / "felmonte", tmp_path / "felmonte", ignore=shutil.ignore_patterns(".cache"))
    text = html.unescape(re.sub(r"<[^>]+>", " ", render_static(folder, "marburg")))
    assert "Rerolls for Doge of Marburg's special order 2 (intrigue abroad)" in text
    assert not re.search(r"\b[SO]\d\b", text)


def test_pf1s_districts_buildings_routes_and_features_by_name() -> None:
    """A record pf1 keeps by an id alone is said as its explanations say it (it read "D1", "B4", "T2", "C1", and a
    hex's feature "TOWN: Oleg's Trading Post")."""
    text, camp = _panel("river-kingdom")
    state = camp.turn_start().state
    assert state.trade_routes[1].origin == "C1" and "D1" in state.districts  # the stored ids
    page = _page("river-kingdom")[0]
    # the fields a record's name is made of (its city, its type, a route's ends) are said by the name alone: the line
    # below read "Type: House · City: Tatzlford" under "House (Tatzlford)"
    districts = {r["District"]: r for r in panel_records(page, "Districts")}
    assert districts["district 1 of Tatzlford"]["Hex"] == "hex 0", districts  # a hex as the map labels it (it read
    # "h0")
    buildings = {r["Building"]: r for r in panel_records(page, "Buildings")}
    assert buildings["Shrine (Tatzlford)"]["District"] == "1 of Tatzlford", buildings  # "District 1 of Tatzlford":
    # the field's name said once (it read "District: district 1 of Tatzlford")
    words = html.unescape(re.sub(r"<[^>]+>", "", page))
    assert "District 1 of Tatzlford ·" in words and "District: district" not in words
    routes = {r["Trade route"]: r for r in panel_records(page, "Trade routes")}
    assert routes["goods route from Tatzlford to Mivon"]["Status"] == "established", routes
    for record in [*districts.values(), *buildings.values(), *routes.values()]:
        assert not {"City", "Type", "Partner", "Origin", "Destination"} & set(record), record
    assert "| town (Oleg's Trading Post) |" in text and "TOWN" not in text
    assert not re.search(r"\| [BCDT]\d+ \|", text)


def test_a_field_at_its_models_default_words_is_not_said_below_a_record() -> None:
    """A record's field that holds the words its model gives it unless set (``views.sheet.panel.word_defaults``)
    is left off the line below it, as a false or zero one is: pf1's buildings each read "Bonus mode: standard", its
    own army "Side: kingdom", signoria's characters "Condition: active · Agent kind: none"; what differs from the
    default is still said, a column keeps its words, and a field that says what a record is (pf2e's army unit's
    type) is said at its default too."""
    page = _page("river-kingdom")[0]
    buildings = {r["Building"]: r for r in panel_records(page, "Buildings")}
    assert buildings["Shrine (Tatzlford)"]["Bonus mode"] == "alignment", buildings  # not the default: said
    assert [r for r in buildings.values() if "Bonus mode" in r] == [buildings["Shrine (Tatzlford)"]], buildings
    assert {r["Occupancy"] for r in buildings.values()} == {"active"}, buildings  # a column keeps the default
    armies = {r["Name"]: r for r in panel_records(page, "Armies")}
    assert armies["Stag Lord's bandits"]["Side"] == "enemy" and "Side" not in armies["Tatzlford Guard"], armies
    characters = panel_records(_page("felmonte")[0], "Characters")
    assert not [r for r in characters if r.get("Condition") == "active" or r.get("Agent kind") == "none"], characters
    assert [r["Condition"] for r in characters if "Condition" in r] == ["departed"], characters
    assert [r["Agent kind"] for r in characters if "Agent kind" in r] == ["double agent"], characters
    factions = panel_records(_page("felmonte")[0], "Factions")
    assert not [r for r in factions if "Status" in r], factions  # every faction is active
    treaties = panel_records(_page("felmonte")[0], "Treaties")
    assert treaties and all(r.get("Stake") in ("low", "high", "elementary") for r in treaties), treaties  # one of
    # three a treaty is made at, said at its default too (said_at_default)
    units = panel_records(_page("stolen-lands")[0], "Army units")
    assert units[0]["Type"] == "infantry", units  # what the unit is, at its default or not


def test_pf1s_district_borders_go_round_the_compass_in_words() -> None:
    """A district's borders read "north land, east land, south water, west land" (it read "e Land; n Land; s Water;
    w Land": the state's keys, one letter each, in the order they are kept)."""
    districts = {r["District"]: r for r in panel_records(_page("river-kingdom")[0], "Districts")}
    assert districts["district 1 of Tatzlford"]["Borders"] == "north land, east land, south water, west land"


def test_a_record_on_the_line_below_is_said_whole() -> None:
    """The line below a record wraps, so a record said there is not cut at a cell's 80 characters: aikakirjat's
    neighbour's profile read "…; crime modifier 0; unr…", pf1's army's commander "Amiri (…; bonus tactics …"."""
    neighbours = {r["Name"]: r for r in panel_records(_page("aikakirjat-demo")[0], "Neighbours")}
    assert neighbours["Kalevala"]["Profile"].endswith("; damage die 6; levy die 6; armies max 1"), neighbours
    armies = {r["Name"]: r for r in panel_records(_page("river-kingdom")[0], "Armies")}
    assert armies["Tatzlford Guard"]["Commander"].endswith("; boons Merciless; role General)"), armies
    assert not [r for r in [*neighbours.values(), *armies.values()] if any("…" in v for v in r.values())]


def test_a_record_named_by_a_lone_word_has_its_capital() -> None:
    """pf2e's Ruin and Abilities are kept by their names' keys ("corruption", "culture"); their tables name each as
    a name reads, "Corruption", "Culture" (as the tiles and the dropdowns do)."""
    page = _page("stolen-lands")[0]
    assert [r["Ruin"] for r in panel_records(page, "Ruin")] == ["Corruption", "Crime", "Decay", "Strife"]
    assert [r["Ability"] for r in panel_records(page, "Abilities")] == ["Culture", "Economy", "Loyalty", "Stability"]


def test_a_name_several_records_hold_is_said_once_with_how_many() -> None:
    """pf2e's settlement's structures: each name once, with how many stand, in the order they first come (it read
    "Structures: houses, houses, granary, houses, houses, houses")."""
    brightwater = panel_records(_page("stolen-lands")[0], "Settlements")[0]
    assert brightwater["Structures"] == "houses ×5, granary", brightwater


def test_a_records_record_leaves_out_a_field_at_its_zero_default() -> None:
    """pf2e's hex's work site at its default "double until turn 0" (not doubled) says nothing and is left out (it
    read "Work site: commodity lumber; double until turn 0"), as pf1's commander's Charisma at 0 and his bonus tactics
    none; a zero of a record no model holds is a fact and stays (signoria's intel of a battle, "units in battle 0")."""
    hexes = {r["Hex"]: r for r in panel_records(_page("stolen-lands")[0], "Hexes")}
    assert hexes["A2"]["Work site"] == "commodity lumber", hexes["A2"]
    assert hexes["A3"]["Work site"] == "commodity stone", hexes["A3"]
    army = next(r for r in panel_records(_page("river-kingdom")[0], "Armies") if "Commander" in r)
    assert army["Commander"] == "Amiri (ranks 4; level 6; leadership 6; boons Merciless; role General)", army
    text, _ = _panel("felmonte")
    assert "units in battle 0" in text


def test_pf1s_commanders_charisma_is_said_in_words() -> None:
    """pf1's army's commander's ``cha`` (UC Mass Combat: his Charisma modifier, added to Morale checks) reads
    "Charisma modifier 2" (it read "cha 2"); at 0 it is left out, as a record's record leaves a zero default out."""
    camp = Campaign.open(DEMOS / "river-kingdom")
    state = camp.turn_start().state
    army = next(a for a in state.armies.values() if a.commander is not None)
    bold = state.model_copy(update={"armies": {**state.armies, army.id: army.model_copy(
        update={"commander": army.commander.model_copy(update={"cha": 2})})}})
    page = str(sheet_panel.panel_html(camp.ruleset, bold, known=sheet_panel.campaign_names(camp)))
    said = next(r for r in panel_records(page, "Armies") if "Commander" in r)["Commander"]
    assert said.startswith("Amiri (Charisma modifier 2; ranks 4;"), said
