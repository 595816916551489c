"""Write the River Kingdom demo's plans (PF1 Kingmaker with six optional modules): founding + 17 months.

Dice are keyed by each plan's seed (no typed faces), so the story below is what those seeds rolled;
the GM's entries for events (effects) follow the rolled events. Play them with:

    .venv/bin/python campaigns/river-kingdom/build_plans.py
    for p in campaigns/river-kingdom/plans/turn-*.json; do
        .venv/bin/kingdomlog turn campaigns/river-kingdom --plan "$p"; done

Modules on: diplomatic_edicts (an embassy with Mivon in month 3, a balanced treaty in month 11),
trade_edicts (a raw-materials route to Mivon in month 5), fame_infamy, government_forms (a republic),
settlement_sizes, holy_sites (a Shrine to Erastil). data/buildings.toml carries the Barracks errata cost.
Months 15-17 (appended; months 0-14 are unchanged): Ultimate Campaign buildings (Library, Monument, Stockyard,
Guildhall, Granary), UC terrain improvements (a Quarry, a Canal), mass combat (the Tatzlford Guard against the
Stag Lord's bandits) and the UC event tables (each month's event_table choice).
"""
import json
from pathlib import Path

OUT = Path(__file__).resolve().parent / "plans"
OUT.mkdir(parents=True, exist_ok=True)



def H(i: str, q: int, r: int, t: str, **kw: object) -> dict[str, object]:
    return {"id": i, "q": q, "r": r, "terrain": t, **kw}


hexes = [
    H("h0", 0, 0, "GRASSLAND", river=True, features=["BRIDGE"]),
    H("h1", 1, 0, "GRASSLAND"),
    H("h2", 0, 1, "FOREST", features=["RESOURCE"]),
    H("h3", 1, -1, "HILLS"),
    H("h4", -1, 1, "GRASSLAND", river=True),
    H("h5", 2, -1, "HILLS", features=["CAVE"]),
    H("h6", -1, 0, "MARSH", features=["LANDMARK"]),
    H("h7", 2, 0, "FOREST"),
    H("h8", 0, -1, "MOUNTAINS"),
    H("h9", 1, 1, "GRASSLAND", river=True),
    H("h10", -2, 1, "GRASSLAND", features=["TOWN:Oleg's Trading Post"]),
    H("h11", 3, -1, "HILLS"),
]
leaders = [
    {"role": "RULER", "name": "Kesten Garess", "ability": "CHA", "modifier": 4, "attributes": ["LOYALTY"]},
    {"role": "COUNCILOR", "name": "Jhod Kavken", "ability": "WIS", "modifier": 3},
    {"role": "GENERAL", "name": "Amiri", "ability": "STR", "modifier": 4},
    {"role": "GRAND_DIPLOMAT", "name": "Linzi", "ability": "CHA", "modifier": 3},
    {"role": "HIGH_PRIEST", "name": "Harrim", "ability": "WIS", "modifier": 3},
    {"role": "MAGISTER", "name": "Octavia", "ability": "INT", "modifier": 4},
    {"role": "MARSHAL", "name": "Ekundayo", "ability": "WIS", "modifier": 2},
    {"role": "ROYAL_ASSASSIN", "name": "Jaethal", "ability": "DEX", "modifier": 3},
    {"role": "SPYMASTER", "name": "Nok-Nok", "ability": "DEX", "modifier": 2, "attributes": ["ECONOMY"]},
    {"role": "TREASURER", "name": "Jubilost", "ability": "INT", "modifier": 3},
    {"role": "WARDEN", "name": "Valerie", "ability": "CON", "modifier": 2},
]
trade_path = [{"terrain": "plains", "road": True}] * 3 + [{"terrain": "plains"}] * 2 \
    + [{"terrain": "forest", "road": True}] * 2 + [{"terrain": "hills", "highway": True}] * 2

plans = {
    0: {"founding": {"choices": {
        "name": "River Kingdom", "alignment": "NG", "government": "republic", "starting_renown": "fame",
        "hexes": hexes,
        "foreign_kingdoms": [
            {"id": "brevoy", "name": "Brevoy", "alignment": "CN", "size": 150, "is_sponsor": True},
            {"id": "mivon", "name": "Mivon", "alignment": "CG", "size": 40, "economy": 30, "attitude": "friendly"},
            {"id": "pitax", "name": "Pitax", "alignment": "CE", "size": 35}],
        "third_party": [{"a": "brevoy", "b": "mivon", "level": "treaty"},
                        {"a": "mivon", "b": "pitax", "enemy": True}]}}},
    1: {"improvement": {"choices": {
        "leaders": leaders, "claim": ["h0"], "districts": [{"hex": "h0", "city": "Tatzlford",
                                                             "borders": {"S": "WATER"}}],
        "buildings": [{"type": "House"}], "roads": ["h0"],
        "promotion": "TOKEN", "taxation": "LIGHT", "festivals": "1"}}},
    2: {"improvement": {"choices": {"claim": ["h1"], "buildings": [{"type": "Brewery"}], "roads": ["h1"],
                                    "improvements": [{"hex": "h1", "kind": "FARM"}]}},
        "income": {"choices": {"deposit_gp": 20000}}},
    3: {"improvement": {"choices": {"claim": ["h2"], "buildings": [{"type": "Park"}], "roads": ["h2"],
                                    "special_edict": {"kind": "diplomatic", "purpose": "embassy", "target": "mivon",
                                                      "envoy_modifier": 20, "bribe_bp": 2}}},
        "income": {"choices": {"deposit_gp": 12500}},
        "event": {"choices": {"effects": [{"kind": "TREASURY", "value": -1}]}}},
    4: {"improvement": {"choices": {"claim": ["h3"],
                                    "buildings": [{"type": "Shrine", "deity": "Erastil", "deity_alignment": "LG",
                                                   "bonus_mode": "alignment", "shrine_attribute": "ECONOMY"}],
                                    "improvements": [{"hex": "h2", "kind": "SAWMILL"}]}},
        "income": {"choices": {"deposit_gp": 16000}}},
    5: {"income": {"choices": {"deposit_gp": 16000}},
        "improvement": {"choices": {"claim": ["h4"], "buildings": [{"type": "House"}], "roads": ["h4"],
                                    "improvements": [{"hex": "h4", "kind": "FARM"}],
                                    "special_edict": {"kind": "trade", "type": "raw_materials", "partner": "mivon",
                                                      "origin": "Tatzlford", "destination": "Mivon",
                                                      "path": trade_path, "invested_bp": 5}}}},
    6: {"improvement": {"choices": {"claim": ["h5"], "buildings": [{"type": "Mill"}], "roads": ["h3"]}},
        "income": {"choices": {"deposit_gp": 16000}}},
    7: {"improvement": {"choices": {"claim": ["h6"], "buildings": [{"type": "Smithy"}]}},
        "income": {"choices": {"deposit_gp": 16000}},
        "event": {"choices": {"effects": [{"kind": "FAME", "value": 1}]}}},
    8: {"improvement": {"choices": {"claim": ["h7"]}},
        "income": {"choices": {"deposit_gp": 16000, "sales": [{"item": "+2 cloak of resistance", "value_gp": 4000,
                                                                "category": "minor"}]}}},
    9: {"improvement": {"choices": {"claim": ["h10"], "buildings": [{"type": "Barracks"}]}},
        "income": {"choices": {"deposit_gp": 16000}}},
    10: {"improvement": {"choices": {"taxation": "NORMAL", "promotion": "NONE", "festivals": "0"}},
         "income": {"choices": {"deposit_gp": 40000}}},
    11: {"income": {"choices": {"deposit_gp": 12000}},
         "improvement": {"choices": {"claim": ["h9"], "buildings": [{"type": "Dump"}], "roads": ["h9"],
                                     "improvements": [{"hex": "h9", "kind": "FARM"}],
                                     "special_edict": {"kind": "diplomatic", "purpose": "treaty", "target": "mivon",
                                                       "envoy_modifier": 20, "choose": "balanced",
                                                       "opposed": [
                                                           {"skill": "Bluff", "our_modifier": 8, "their_modifier": 9},
                                                           {"skill": "Diplomacy", "our_modifier": 14,
                                                            "their_modifier": 12},
                                                           {"skill": "Knowledge (local)", "our_modifier": 6,
                                                            "their_modifier": 7},
                                                           {"skill": "Knowledge (nobility)", "our_modifier": 9,
                                                            "their_modifier": 8},
                                                           {"skill": "Sense Motive", "our_modifier": 10,
                                                            "their_modifier": 9}]}}},
         "event": {"choices": {"effects": [{"kind": "INFAMY", "value": 1}]}}},
    12: {"income": {"choices": {"deposit_gp": 40000}}},
    13: {"improvement": {"choices": {"buildings": [{"type": "House", "city": "Oleg's Trading Post"}]}},
         "income": {"choices": {"deposit_gp": 40000, "withdrawals": [1]}}},
    14: {"improvement": {"choices": {"claim": ["h8"], "buildings": [{"type": "Brewery"}], "roads": ["h5"]}}},
    # Months 15-17: the Ultimate Campaign catalogue, a UC terrain improvement, mass combat and the UC
    # event tables. Brevoy sends a war chest; the Stag Lord's bandits gather in the hills of h11.
    15: {"gm": {"choices": {
            "adjustments": [{"field": "treasury", "delta": 80, "reason": "Brevoy's war chest against the bandits"}],
            "enemy_armies": [{"name": "Stag Lord's bandits", "size": "Large", "unit": "humans (warrior 2)",
                              "unit_cr": "1/2", "hd": 10, "speed": 2, "hex": "h11", "side": "enemy",
                              "tactics": ["Expert Flankers"]}]}},
         "improvement": {"choices": {
             "buildings": [{"type": "Library"}, {"type": "Monument"}],
             "improvements": [{"hex": "h3", "kind": "QUARRY"}],
             "armies": [{"name": "Tatzlford Guard", "size": "Large", "unit": "humans (fighter 2)", "unit_cr": "1",
                         "hd": 10, "speed": 1, "hex": "h0",
                         "commander": {"name": "Amiri", "cha": 0, "ranks": 4, "level": 6, "role": "GENERAL",
                                       "boons": ["Merciless"]}}]}},
         "income": {"choices": {"deposit_gp": 80000}}},
    16: {"improvement": {"choices": {"buildings": [{"type": "Stockyard"}, {"type": "Guildhall"}],
                                     "army_actions": [{"army": "A2", "action": "equip",
                                                       "resource": "Improved Weapons"}]}},
         "war": {"choices": {"battles": [{
             "ours": "A2", "enemy": "A1", "hex": "h11", "ours_tactic": "Standard", "enemy_tactic": "Expert Flankers",
             "conditions": [{"name": "Advantageous Terrain", "side": "enemy"}],
             "rounds": [{"ours_strategy": "Aggressive", "enemy_strategy": "Aggressive"}],
             "learn_tactic": "Defensive Wall", "learn_boon": "Loyalty"}]}},
         "income": {"choices": {"deposit_gp": 80000}},
         "event": {"choices": {"event_table": "uc"}}},
    17: {"improvement": {"choices": {"buildings": [{"type": "Granary"}],
                                     "improvements": [{"hex": "h1", "kind": "CANAL"}],
                                     "special_edict": {"kind": "trade", "type": "goods", "partner": "mivon",
                                                       "origin": "Tatzlford", "destination": "Mivon",
                                                       "path": trade_path, "invested_bp": 5}}},
         "income": {"choices": {"deposit_gp": 40000}},
         "event": {"choices": {"event_table": "uc"}}},
}
for t, steps in plans.items():
    (OUT / f"turn-{t:02d}.json").write_text(json.dumps({"turn": t, "seed": f"river-{t:02d}", "steps": steps},
                                                      indent=2) + "\n")
