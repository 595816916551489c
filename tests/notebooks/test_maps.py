"""The map drawing (views.player.maps) and the rulesets' map data: geometry by hand, what each map shows, the files."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from nb_support import REPO

from kingdomlog.app import Campaign
from kingdomlog.core.mapdata import GridStructure, MapData, MapHex, MapLink, MapParty, MapRegion, SettlementGrid
from kingdomlog.core.viewers import PUBLIC_VIEWER, parse_viewer
from kingdomlog.rulesets.pf1.mapview import district_grid, pf1_lot
from kingdomlog.views.player import maps
from kingdomlog.views.player import page as player

PUBLIC = parse_viewer("public", ())
GM = parse_viewer("gm", ())


def test_hex_centres_follow_the_axial_pointy_top_grid() -> None:
    # size 30: a step in q moves x by 30·√3 ≈ 51.96; a step in r moves x by half that and y by 45
    x, y = maps.hex_centre(2, -1)
    assert (round(x, 2), round(y, 2)) == (77.94, -45.0)
    # edge k of a hex is shared with the neighbour EDGE_NEIGHBOUR[k]: its two corners are corners of both
    for k, (dq, dr) in maps.EDGE_NEIGHBOUR.items():
        a = maps.hex_corners(*maps.hex_centre(0, 0))
        b = maps.hex_corners(*maps.hex_centre(dq, dr))
        edge = {(round(px, 6), round(py, 6)) for px, py in (a[k], a[(k + 1) % 6])}
        assert edge <= {(round(px, 6), round(py, 6)) for px, py in b}


def test_a_hex_map_draws_each_hex_once_with_its_tooltip_and_no_reference() -> None:
    m = MapData("Test", hexes=(
        MapHex("a", 0, 0, "plains", claimed=True, settlement="Ford", capital=True, road=True, river=True),
        MapHex("b", 1, 0, "forest", claimed=True, work_site="lumber camp", road=True),
        MapHex("c", 0, 1, "hills", features=("landmark",)),
        MapHex("d", 5, 5, "unknown", explored=False),
        MapHex("e", None, None, "swamp"),
    ), parties=(MapParty("k", "Kingdom", own=True),))
    svg = maps.hex_map_svg(m)
    assert re.findall(r'data-hex="(\w)"', svg) == ["a", "b", "c", "d"]  # e is unplaced: listed under the map
    assert "<title>a · plains · claimed · capital Ford · river · road</title>" in svg
    assert "<title>d · unexplored</title>" in svg
    assert not re.search(r"url\(|href|<script|http", svg)
    # one road segment a–b (neighbours), no river segment (only a has one: a stub curve)
    assert svg.count(f'stroke="{maps.ROAD_COLOUR}" stroke-width="2.4"') == 1
    # the border: a and b are claimed neighbours, so 12 edges minus the 2 they share = 10
    assert svg.count('stroke-width="3.4"') == 10
    html = maps.map_html(m)
    assert "Not yet placed on the map:</b> e · swamp" in html
    legend = [w for _, w in maps.hex_legend(m)]
    assert legend[:4] == ["plains", "forest", "hills", "unexplored"]
    assert "lumber camp or sawmill" in legend and "landmark" in legend and "ruins" not in legend


def test_a_region_map_lays_out_by_borders_from_the_viewers_own() -> None:
    m = MapData("R", regions=(MapRegion("x", "X", "them"), MapRegion("home", "Home", "me"), MapRegion("far", "Far")),
                links=(MapLink("home", "x"), MapLink("x", "far", "sea")),
                parties=(MapParty("me", "Us", own=True), MapParty("them", "Them")))
    pos = maps.region_layout(m)
    assert pos["home"][1] < pos["x"][1] < pos["far"][1]  # one row per step away from our own province
    svg = maps.region_map_svg(m)
    assert svg.count("data-region=") == 3 and 'stroke-dasharray="6 4"' in svg  # the sea link is dashed
    assert "unclaimed" in svg  # Far has no holder


def test_pf1_lots_map_to_blocks_of_four() -> None:
    # a PF1 district is 6×6 lots, row-major (base §2.8); the 2×2 block at the top left is lots 0, 1, 6, 7
    assert [pf1_lot(i) for i in (0, 1, 6, 7)] == [0, 1, 2, 3]
    assert pf1_lot(2) == 4 and pf1_lot(12) == 12 and pf1_lot(35) == 35
    assert sorted(pf1_lot(i) for i in range(36)) == list(range(36))


def test_a_pf1_district_grid_holds_its_buildings_in_their_lots_and_its_water_border() -> None:
    s = Campaign.open(REPO / "campaigns" / "river-kingdom").state()
    g = district_grid(s, "Tatzlford", "D1")  # type: ignore[arg-type]
    assert g.blocks == 9 and g.lots == 36
    assert g.borders == {"E": "LAND", "N": "LAND", "S": "WATER", "W": "LAND"}
    by_name: dict[str, list[tuple[int, ...]]] = {}
    for st in g.structures:
        by_name.setdefault(st.name, []).append(st.lots)
    # B2 (Brewery) stands on lot 1 and B3 (Park) on lot 2 of the 6×6 district: lots 1 and 4 of the blocks
    assert by_name["Brewery"][0] == (1,) and by_name["Park"] == [(4,)]
    svg = maps.settlement_svg(g)
    assert "<title>S: water</title>" in svg and svg.count('class="kl-structure"') == len(g.structures)


def test_a_settlement_grid_draws_a_two_lot_structure_as_one_box() -> None:
    g = SettlementGrid("s", "Town", blocks=1, columns=1,
                       structures=(GridStructure("Mill", (0, 1)), GridStructure("Inn", (2,))),
                       rubble=(3,), borders={"W": "wall"})
    svg = maps.settlement_svg(g)
    mill = re.search(r"<title>Mill · lots 1, 2</title>(.*?)</g>", svg, re.S)
    assert mill and mill.group(1).count("<rect") == 1 and 'width="88"' in mill.group(1)  # 2 lots of 46, less 4
    assert "<title>rubble</title>" in svg and "<title>W: city wall</title>" in svg
    html = maps.settlement_html(g)
    assert "3 of 4 lots built" in html and "1 lot of rubble" in html  # rubble is not a building


def test_the_turn_picker_works_without_script() -> None:
    html = maps.turn_picker_html([(1, "Month 1", "<p>one</p>"), (2, "Month 2", "<p>two</p>")], name="map")
    assert "<script" not in html and html.count('type="radio"') == 2
    assert re.search(r'id="kl-map-t2" checked', html)  # the last turn is shown first
    assert "#kl-map-t1:checked~.kl-frames .kl-map-f1{display:block}" in html


def test_standalone_svg_and_png_files() -> None:
    s = Campaign.open(REPO / "campaigns" / "river-kingdom").state()
    from kingdomlog.rulesets.pf1.mapview import kingdom_map

    svg = maps.standalone_svg(kingdom_map(s, PUBLIC))  # type: ignore[arg-type]
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"') and "border of River Kingdom" in svg
    png = maps.svg_to_png(svg)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5_000


def test_pf1_players_see_unexplored_hexes_as_fog(tmp_path: Path) -> None:
    import json
    import shutil

    folder = tmp_path / "rk"
    shutil.copytree(REPO / "campaigns" / "river-kingdom", folder, ignore=shutil.ignore_patterns(".cache"))
    camp = Campaign.open(folder)
    mapped = {"turn": camp.next_turn() - 1, "type": "pf1.hex_mapped",
              "payload": {"hex": "h20", "q": 3, "r": -2, "terrain": "HILLS", "features": ["LAIR"]}}
    camp.append_raw(camp.parse_jsonl([json.dumps(mapped)]))
    from kingdomlog.rulesets.pf1.mapview import kingdom_map

    mine = {h.id: h for h in kingdom_map(camp.state(viewer=PUBLIC_VIEWER), PUBLIC).hexes}  # type: ignore[arg-type]
    gms = {h.id: h for h in kingdom_map(camp.state(), GM).hexes}  # type: ignore[arg-type]
    assert mine["h20"].terrain == "unknown" and mine["h20"].features == () and not mine["h20"].explored
    assert gms["h20"].terrain == "hills" and gms["h20"].features == ("lair",)


def test_a_picker_map_outlines_the_target_and_fades_what_may_not_be_picked() -> None:
    m = MapData("P", hexes=(MapHex("a", 0, 0, "plains"), MapHex("b", 1, 0, "hills"), MapHex("c", 2, 0, "forest")))
    svg = maps.hex_map_svg(m, selected="b", allowed={"b", "c"})
    assert re.findall(r'data-hex="(\w)" data-allowed="(\w+)"', svg) == [("a", "false"), ("b", "true"), ("c", "true")]
    assert svg.count('opacity="0.35"') == 1 and 'kl-hex kl-hex-selected" data-hex="b"' in svg
    assert 'stroke="#e8590c"' in svg  # the selected hex's outline


def test_a_pf1_city_wall_is_drawn_on_its_land_border() -> None:
    s = Campaign.open(REPO / "campaigns" / "river-kingdom").state()
    d1 = s.districts["D1"].model_copy(update={"walls": ("N",)})  # type: ignore[attr-defined]
    walled = s.model_copy(update={"districts": {**s.districts, "D1": d1}})  # type: ignore[attr-defined]
    g = district_grid(walled, "Tatzlford", "D1")  # type: ignore[arg-type]
    assert g.borders["N"] == "WALL" and g.borders["S"] == "WATER"
    svg = maps.settlement_svg(g)
    assert "<title>N: city wall</title>" in svg and "<title>S: water</title>" in svg
    assert "borders: N wall, S water" in maps.settlement_html(g)


def test_armies_stand_on_the_map_where_the_log_put_them_and_a_gm_only_army_stays_on_the_gms_map(
        tmp_path: Path) -> None:
    """River Kingdom month 15 (pf1 demo): the Tatzlford Guard was raised in the capital's hex h0 and the
    Stag Lord's bandits (recorded publicly) stand in h11. A second enemy army the GM records for the GM alone
    shows on the GM's map only, flag and tooltip included."""
    folder = tmp_path / "river-kingdom"
    shutil.copytree(REPO / "campaigns" / "river-kingdom", folder, ignore=shutil.ignore_patterns(".cache", "drafts"))
    camp = Campaign.open(folder)
    gm, public = camp.viewer("gm"), camp.viewer("public")
    at15 = camp.ruleset.map(camp.state(15, viewer=public), public)
    assert {h.id: h.armies for h in at15.hexes if h.armies} == {
        "h0": ("Tatzlford Guard",), "h11": ("Stag Lord's bandits (enemy)",)}
    svg = maps.hex_map_svg(at15)
    assert svg.count('class="kl-army"') == 2 and "army: Tatzlford Guard" in svg
    assert "army" in [w for _, w in maps.hex_legend(at15)]
    turn = camp.next_turn() - 1
    secret = {"acr": "3", "commander": None, "consumption": 2, "dv": 13, "hd": 20, "hex": "h3", "hp": 22,
              "id": "A9", "last_battle": None, "max_hp": 22, "morale": 0, "name": "MARAUDERS-7731", "om": 3,
              "ranged": False, "reserve": False, "resources": {}, "side": "enemy", "size": "Large",
              "specials": [], "speed": 2, "status": "active", "tactics": [], "unit": "humans (warrior 3)",
              "unit_cr": "1", "unpaid": False, "wins": 0}
    camp.append_raw(camp.parse_jsonl([json.dumps({
        "turn": turn, "type": "pf1.army_recruited", "visibility": "gm",
        "payload": {"army": secret, "cost_bp": 0, "counts_against_limit": False}})]))
    gm_map = camp.ruleset.map(camp.state(viewer=gm), gm)
    assert ("MARAUDERS-7731 (enemy)",) in [h.armies for h in gm_map.hexes]
    page = player.render_static(folder, "public")
    assert "MARAUDERS-7731" not in page
    view = player.player_view(folder, "public")
    assert view.map is not None and all("MARAUDERS" not in " ".join(h.armies) for h in view.map.hexes)
    assert "MARAUDERS-7731" in player.render_static(folder, "gm")


def test_an_enemy_army_the_gm_has_not_revealed_stays_off_a_pf2e_players_map() -> None:
    """Stolen Lands month 16 (pf2e demo): the Brightwater Militia at A1 and the Stag Lord's Raiders at B5. With
    the Raiders unrevealed, a player's map (army_visibility "revealed") holds only the militia."""
    camp = Campaign.open(REPO / "campaigns" / "stolen-lands")
    gm, public = camp.viewer("gm"), camp.viewer("public")
    st = camp.state(16)
    raiders = next(a for a in st.army_units if a.side == "enemy")  # type: ignore[attr-defined]
    hidden = st.model_copy(update={"army_units": tuple(
        a.model_copy(update={"revealed": False}) if a.id == raiders.id else a
        for a in st.army_units)})  # type: ignore[attr-defined]
    gm_map = camp.ruleset.map(hidden, gm)
    players = camp.ruleset.map(camp.ruleset.redact(hidden, public), public)
    assert {h.id: h.armies for h in gm_map.hexes if h.armies} == {
        "A1": ("Brightwater Militia",), "B5": ("Stag Lord's Raiders (enemy)",)}
    assert {h.id: h.armies for h in players.hexes if h.armies} == {"A1": ("Brightwater Militia",)}
    assert "Raiders" not in maps.hex_map_svg(players)
