"""The turn sheet's kingdom panel and urban-grid pickers, as pure functions (no server, no campaign replay).

- the block and lot pickers: an entry's integer ``block`` and list of ``lots`` become a select of the
  settlement's blocks and a multiselect of the chosen block's lots, read back as the same numbers;
- the panel: figures in words, against their capacity, what the draft moves; the urban grid numbered
  as the pickers number it;
- the years-ahead panel is offered for aikakirjat only.
"""

from __future__ import annotations

from kingdomlog.core.choices import FieldSpec
from kingdomlog.views import forms as sf
from kingdomlog.views.forms import Read
from kingdomlog.views.sheet import cards as sheet_cards
from kingdomlog.views.sheet import grid as sheet_grid
from kingdomlog.views.sheet import panel as sheet_panel

BLOCKS = [["houses", "houses", "granary", "houses"], ["houses", "", "", "mill"]]
DUMP = {"settlements": [{"id": "s1", "name": "Brightwater", "blocks": BLOCKS},
                        {"id": "s2", "name": "Tatzlford", "blocks": [["", "", "", ""]]}]}
FIELDS = (FieldSpec("activity", "Activity", "select", required=True),
          FieldSpec("settlement", "Settlement", "select"),
          FieldSpec("block", "Block", "int", help="Build Structure / Demolish: the block"),
          FieldSpec("lots", "Lots", "list", item_kind="int", help="Build Structure: the lots"))
ROWS = FieldSpec("activities", "Activities", "rows", fields=FIELDS, entries=(FIELDS, FIELDS))


def _by_name(fields: tuple[FieldSpec, ...]) -> dict[str, FieldSpec]:
    return {f.name: f for f in fields}


def test_the_block_picker_lists_the_settlements_blocks_with_their_empty_lots_and_a_new_block() -> None:
    got = _by_name(sheet_grid.grid_fields(FIELDS, {"activity": "build_structure"}, sheet_grid.grids(DUMP)))
    block = got["block"]
    assert block.kind == "select" and block.options is not None
    # block 0 is full (4 built lots): shown, not pickable; block 1 has lots 1 and 2 empty; block 2 is new
    assert [(o.value, o.label, bool(o.disabled)) for o in block.options] == [
        (0, "block 0", True), (1, "block 1", False), (2, "block 2", False)]
    assert block.options[1].detail == "2 empty lots; houses, mill"
    assert block.help.startswith("Build Structure / Demolish: the block;") and "Brightwater" in block.help
    assert got["lots"].kind == "list"  # no block chosen yet: the lots wait for it


def test_the_lot_picker_offers_the_chosen_blocks_empty_lots_and_says_what_stands_on_the_others() -> None:
    given = {"activity": "build_structure", "block": 1, "lots": [3]}
    lots = _by_name(sheet_grid.grid_fields(FIELDS, given, sheet_grid.grids(DUMP)))["lots"]
    assert lots.kind == "multiselect" and lots.options is not None and "block" in lots.depends
    assert [(o.value, o.detail, o.disabled) for o in lots.options] == [
        (0, "houses", "houses stands here"), (1, "empty", ""), (2, "empty", ""),
        (3, "mill", "")]  # lot 3 is the entry's own pick: kept pickable, the rules judge it
    # a new block: every lot empty
    new = _by_name(sheet_grid.grid_fields(FIELDS, {"block": 2}, sheet_grid.grids(DUMP)))["lots"]
    assert new.options is not None and [o.detail for o in new.options] == ["empty"] * 4


def test_the_entrys_settlement_chooses_the_grid() -> None:
    got = _by_name(sheet_grid.grid_fields(FIELDS, {"settlement": "s2"}, sheet_grid.grids(DUMP)))
    assert got["block"].options is not None and len(got["block"].options) == 2  # Tatzlford's one block + a new one
    assert "Tatzlford" in got["block"].help


def test_pickers_are_made_per_entry_of_a_rows_field_and_nothing_changes_without_a_grid() -> None:
    values = {"activities": [{"activity": "claim_hex"}, {"activity": "build_structure", "block": 1}]}
    (rows,) = sheet_grid.with_grid_pickers((ROWS,), values, DUMP)
    first, second = (_by_name(e) for e in rows.entries)
    assert first["block"].kind == "select" and first["lots"].kind == "list"
    assert second["lots"].kind == "multiselect"
    assert sheet_grid.with_grid_pickers((ROWS,), values, {"settlements": [{"id": "x"}]}) == (ROWS,)
    assert sheet_grid.with_grid_pickers((ROWS,), values, None) == (ROWS,)
    plain = (FieldSpec("block", "Block", "int"), FieldSpec("lots", "Lots", "list", item_kind="text"))
    assert sheet_grid.grid_fields(plain, {}, sheet_grid.grids(DUMP)) == plain


def test_the_pickers_values_are_the_numbers_the_fields_take() -> None:
    given = {"block": 1}
    got = _by_name(sheet_grid.grid_fields(FIELDS, given, sheet_grid.grids(DUMP)))
    out = Read()
    assert sf.read_value(got["block"], 1, ("block",), out) == (True, 1)
    assert sf.read_value(got["lots"], [1, 2], ("lots",), out) == (True, [1, 2])
    # none picked: not given (the rules then take the first lots that fit), unlike a plain multiselect
    assert sf.read_value(got["lots"], [], ("lots",), out) == (False, None)
    assert sf.read_value(FieldSpec("ruins", "Ruins", "multiselect", options=()), [], ("ruins",), out) == (True, [])
    assert not out.errors


def test_the_panels_grid_is_numbered_as_the_pickers_number_it() -> None:
    html = sheet_panel.grid_html(DUMP["settlements"][0])
    assert "block 0" in html and "block 1" in html and "block 2" not in html
    assert 'title="block 1, lot 2: empty"' in html and ">lot 2<" in html
    assert "Brightwater: 6 of 8 lots built" in html


def test_figures_in_words_against_their_capacity_and_what_the_draft_moves() -> None:
    html = sheet_panel.stat_tiles({"phase": "between_years", "feats": "law_and_order,trade", "food": 4,
                                   "food_storage": 8, "unrest": 5, "unrest_penalty": -2},
                                  {"unrest": 3, "phase": "between_years"})
    assert ">Between years<" in html and "law and order, trade" in html  # a figure's word headed: "Between years"
    assert '4 <span class="kl-cap">/ 8</span>' in html
    assert 'data-figure="unrest"' in html and "→ 3" in html and "Penalty -2" in html
    assert html.count("→") == 1  # the phase did not move


def test_check_titles_and_labels_read_as_words() -> None:
    from kingdomlog.dice.checks import CheckSpec

    spec = CheckSpec(kind="d20", modifier=-1, dc=10, label="bureaucracy on the tax_collection table")
    assert sheet_cards.check_title("action", spec) == "Bureaucracy on the tax collection table: d20 -1 vs DC 10"
    assert sf.singular(sf.lower_label("Map new hexes")) == "map new hex"
    assert sf.singular(sf.lower_label("GM adjustments")) == "GM adjustment"


def test_the_years_ahead_panel_is_aikakirjats() -> None:
    from kingdomlog.views.extras import extras_for

    assert [p.title.split(":")[0] for p in extras_for("aikakirjat").panels] == ["The years ahead"]
    for other in ("pf2e-kingmaker", "pf1-kingmaker", "signoria", "toy-farm"):
        assert extras_for(other).panels == ()


def test_an_empty_pick_folds_away_like_an_unset_field() -> None:
    from kingdomlog.core.choices import Option

    many = tuple(FieldSpec(f"extra{i}", f"Extra {i}", "text") for i in range(sf.FOLD_AFTER + 1))
    ruins = FieldSpec("ruins", "Ruins", "multiselect", options=(Option("crime"), Option("decay")))
    fields = (FieldSpec("activity", "Activity", "select", required=True), ruins, *many)
    spec = FieldSpec("activities", "Activities", "rows", fields=fields)
    assert "ruins" not in sf.primary(spec, fields, {"activity": "build_structure", "ruins": []})
    assert "ruins" in sf.primary(spec, fields, {"activity": "build_structure", "ruins": ["crime"]})


def test_record_cells_read_as_words() -> None:
    html = sheet_panel.records_table([{"id": "fabian", "traits": ["absolute_power", "bloody_dukes"], "allies": []}])
    assert "absolute power, bloody dukes" in html and "[" not in html and "kl-empty" in html and "kl-vacant" not in html


def test_only_a_seat_nobody_holds_is_a_red_dash() -> None:
    """An empty value is a grey dash (a province's occupier, a kingdom's unknown economy: every one was red, read
    as an alarm); a leader's seat nobody holds stays red, something to fix."""
    seats = sheet_panel.records_table([{"id": "magister", "holder": None, "invested": False},
                                       {"id": "ruler", "holder": "Kesten", "invested": True}])
    assert seats.count("kl-vacant") == 1 and "kl-empty" not in seats
    provinces = sheet_panel.records_table([{"id": "fabia", "occupier": None, "siege_since": None}],
                                          keys=("occupier", "siege_since"))
    assert provinces.count("kl-empty") == 2 and "kl-vacant" not in provinces
    assert ".kl-empty { color: #999; }" in sheet_panel.CSS
    wide = sheet_panel.stat_tiles({"modules": "holy_sites,settlement_sizes,diplomatic_edicts,trade_edicts"}, {})
    assert "kl-stat-wide" in wide and "holy sites, settlement sizes" in wide


def test_the_pickers_show_only_in_the_entries_that_build() -> None:
    """The block picker is a short list, but it stays folded in an entry whose kind does not name it."""
    from kingdomlog.core.choices import Option

    many = tuple(FieldSpec(f"extra{i}", f"Extra {i}", "text") for i in range(sf.FOLD_AFTER + 1))
    kinds = (Option("quell_unrest", "Quell Unrest"), Option("build_structure", "Build Structure"))
    fields = (FieldSpec("activity", "Activity", "select", required=True, options=kinds), *FIELDS[1:], *many)
    spec = FieldSpec("activities", "Activities", "rows", fields=fields)
    records = sheet_grid.grids(DUMP)
    quell = sheet_grid.grid_fields(fields, {"activity": "quell_unrest"}, records)
    build = sheet_grid.grid_fields(fields, {"activity": "build_structure", "block": 1}, records)
    assert "block" not in sf.primary(spec, quell, {"activity": "quell_unrest"})
    assert {"block", "lots"} <= sf.primary(spec, build, {"activity": "build_structure", "block": 1})


def _tile_trends(html: str) -> dict[str, str]:
    """Per figure the draft moves, how its "→ ..." is drawn: better, worse or plain."""
    import re

    out = {}
    for fig, tile in re.findall(r'data-figure="([^"]+)"(.*?)(?=data-figure=|$)', html):
        then = re.search(r'<span class="(kl-then[^"]*)"', tile)
        if then:
            out[fig] = {"kl-then": "plain", "kl-then kl-then-better": "better",
                        "kl-then kl-then-worse": "worse"}[then.group(1)]
    return out


def test_what_the_draft_ends_with_is_coloured_by_whether_it_is_good_for_the_kingdom() -> None:
    """Issue 29 item 4: Unrest rising 3 → 5 was drawn green like everything else. Which way is good is the
    ruleset's (``Ruleset.better``); a figure it does not name (a name, the event DC, Infamy) stays plain."""
    from kingdomlog.core.ruleset import CampaignContext, find_ruleset

    cases = {  # state fields before, after; how each summary figure's change is drawn
        "pf2e": ({"unrest": 3, "rp": 2, "name": "Aldori", "event_dc": 16},
                 {"unrest": 5, "rp": 6, "name": "Brevoy", "event_dc": 11},
                 {"unrest": "worse", "rp": "better", "kingdom": "plain", "event_dc": "plain"}),
        "pf1": ({"unrest": 3, "treasury": 50, "name": "Aldori", "government": "feudal_monarchy"},
                {"unrest": 5, "treasury": 60, "name": "Brevoy", "government": "republic"},
                {"unrest": "worse", "treasury_bp": "better", "name": "plain", "government": "plain"}),
    }
    for name, (before, after, want) in cases.items():
        rs = find_ruleset(name)
        start = rs.initial_state(CampaignContext(campaign="x", options={})).model_copy(update=before)
        got = _tile_trends(sheet_panel.panel_tiles_html(rs, start, after=start.model_copy(update=after)))
        assert got == want, name
        assert [rs.better(k) for k in ("unrest", "consumption", "no_such_figure")] == ["down", "down", ""]
    # the seam: declared once per ruleset, neutral by default
    assert [find_ruleset("aikakirjat").better(k) for k in ("unrest", "fame", "corruption_points", "name")] == [
        "down", "up", "down", ""]
    signoria = find_ruleset("signoria")
    assert [signoria.better(k) for k in ("fabian_power", "fabian_provinces", "turn", "battles")] == [
        "up", "up", "", ""]
    # a figure without a ruleset's word is plain
    assert _tile_trends(sheet_panel.stat_tiles({"unrest": 3}, {"unrest": 5})) == {"unrest": "plain"}


def _panel_text(demo: str) -> str:
    import html as html_
    import re
    from pathlib import Path

    from kingdomlog.app import Campaign

    camp = Campaign.open(Path(__file__).resolve().parents[2] / "campaigns" / demo)
    out = str(sheet_panel.panel_html(camp.ruleset, camp.turn_start().state))
    return html_.unescape(re.sub(r"\s*\|\s*(\|\s*)+", " | ", re.sub(r"<[^>]+>", " | ", out)))


def test_the_panels_records_name_their_ids_in_words() -> None:
    """The panel's tables show what a person reads, not the state's ids (issue 29 item 2): a leader's role by its
    name, a modifier by its source, a faction, a statesman or a settlement by its name; no JSON in a cell."""
    pf2e = _panel_text("stolen-lands")
    assert "| Leader | Holder |" in pf2e and "| Ruler | Ysolde |" in pf2e and "| ruler |" not in pf2e
    assert "| Nature's Blessing |" in pf2e and "t18.event" not in pf2e and "natures-blessing" not in pf2e
    assert "| Provide Care |" in pf2e and "provide-care" not in pf2e and '{"' not in pf2e
    sig = _panel_text("felmonte")
    assert "| Cesare, Orsino, Lorenzo |" in sig and "Signoria of Felmonte 1, Signor Gusso 1" in sig
    assert "fabian.leader" not in sig and "| fabian |" not in sig and '{"' not in sig and "[[" not in sig


def test_a_breakdowns_labels_name_their_ids_in_words() -> None:
    from pathlib import Path

    from kingdomlog.app import Campaign
    from kingdomlog.core.ruleset import Breakdown, Term
    from kingdomlog.views.words import namer

    camp = Campaign.open(Path(__file__).resolve().parents[2] / "campaigns" / "felmonte")
    say = namer(camp.ruleset, camp.turn_start().state).text
    html = sheet_cards.breakdown_html([Breakdown("fabian wealth spent by orders", 2,
                                                 (Term("o1 (hire_troops)", 2), Term("b7.1 losses", 0)))], say)
    assert "Duke Fabian wealth spent by orders" in html and "o1 (hire troops)" in html
    assert "battle 1 of month 7 losses" in html and "hire_troops" not in html and "b7.1" not in html


def test_a_records_table_says_an_enum_kept_in_capitals_as_a_word() -> None:
    """Issue 29: pf1's modifiers and hexes tables showed 'STABILITY', 'GRASSLAND', 'RESOURCE' (enum values kept in
    capitals); a cell says them as words, an abbreviation of three letters or fewer stays ('NG')."""
    from kingdomlog.views.sheet.panel import records_table

    html = str(records_table([{"attribute": "STABILITY", "terrain": "GRASSLAND", "features": ["HOLY_SITE", "BRIDGE"],
                               "alignment": "NG"}]))
    for word in ("Stability", "Grassland", "Holy site, Bridge", ">NG<"):
        assert word in html, (word, html)
    assert "STABILITY" not in html and "GRASSLAND" not in html


def test_a_hexs_place_is_headed_as_its_column_and_row() -> None:
    """The panel's hexes table headed a hex's axial coordinates "Q" and "R"; the forms that place a hex asked them
    as "q" and "r". Both say "Column" and "Row" (the hex itself named as the map names it: A1, B4)."""
    from pathlib import Path

    from kingdomlog.app import Campaign

    for demo in ("stolen-lands", "river-kingdom"):
        text = _panel_text(demo)
        assert "| Terrain | Column | Row |" in text and "| Q |" not in text and "| R |" not in text, demo
        camp = Campaign.open(Path(__file__).resolve().parents[2] / "campaigns" / demo)
        start = camp.turn_start()
        step = "upkeep.leadership" if demo == "stolen-lands" else "gm"
        place = next(f for f in camp.ruleset.choices(start.state, start.turn, step) if f.name == "map")
        labels = {f.name: f.label for f in place.fields}
        assert (labels["q"], labels["r"]) == ("Column", "Row"), labels
        assert not [f.help for f in place.fields if f.name in ("q", "r") and ("axial" in f.help or " q" in f.help)]


def test_a_tables_key_fields_stay_columns_and_the_rest_are_said_below_when_set() -> None:
    """A table given its key fields (``Ruleset.panel_columns``) keeps its record's name and them as columns, in the
    order given, and says the fields that are set on the line below ("Morale 2"; a false, empty or zero one left
    out, a true one by its name): pf1's Armies were 1198 px wide in the 313 px panel, 25 columns."""
    import re

    rows = [{"name": "Guard", "side": "kingdom", "hp": 16, "acr": 3, "morale": 2, "wins": 0, "unpaid": False,
             "reserve": True, "specials": [], "hex": "hex 4", "commander": None}]
    page = str(sheet_panel.records_table(rows, keys=("acr", "hp", "nothing_such")))
    assert re.findall(r"<th>([^<]*)</th>", page) == ["Name", "Acr", "HP"], page
    assert re.findall(r"<td>([^<]*)</td>", page) == ["Guard", "3", "16"], page
    below = re.sub(r"<[^>]+>", "", page.split('<tr class="kl-below">')[1])
    assert below == "Side: kingdom · Morale 2 · Reserve · Hex 4", below  # no "Wins 0", no "Unpaid"
    items = re.findall(r'<span class="kl-below-item">(.*?)</span>(?= <span class="kl-below-item">|</td>)', page)
    assert [re.sub(r"<[^>]+>", "", x) for x in items] == ["Side: kingdom ·", "Morale 2 ·", "Reserve ·", "Hex 4"], items
    # each item keeps the dot after it: one filling the line (pf1's commander) left a "·" alone on the next
    alone = str(sheet_panel.records_table([{"name": "Guard", "hp": 16}], keys=("hp",)))
    assert "kl-below" not in alone  # nothing left to say below


def test_every_key_field_a_ruleset_names_is_a_field_of_its_demos_records() -> None:
    """``panel_columns`` names collections and fields the state holds (a misspelt one would be left out quietly,
    and its table too wide again)."""
    from pathlib import Path

    from kingdomlog.app import Campaign

    for demo in ("river-kingdom", "stolen-lands", "felmonte", "aikakirjat-demo"):
        camp = Campaign.open(Path(__file__).resolve().parents[2] / "campaigns" / demo)
        dump = camp.turn_start().state.model_dump(mode="json")
        assert camp.ruleset.panel_columns, demo
        for collection, keys in camp.ruleset.panel_columns.items():
            rows = sheet_panel._records(dump.get(collection))
            assert rows, (demo, collection)
            fields = {k for r in rows for k in r}
            assert set(keys) <= fields, (demo, collection, set(keys) - fields)
