"""Every Ultimate Campaign building, event and terrain improvement against the published numbers, typed here
independently of the data files (UC Kingdoms and War: Building Descriptions, Events, Terrain Improvements);
every event resolved through every outcome; battle invariants as a property."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pf1.kit import kingdom, step

from kingdomlog.rulesets.pf1 import events as ev
from kingdomlog.rulesets.pf1.tables import base_catalog, load_uc_events

# name: (BP, lots, Economy, Loyalty, Stability, Unrest, Fame, Defense, base value +gp)
UC_BUILDINGS = {
    "Academy": (52, 2, 2, 2, 0, 0, 0, 0, 0), "Alchemist": (18, 1, 1, 0, 0, 0, 0, 0, 1000),
    "Arena": (40, 4, 0, 0, 4, 0, 1, 0, 0), "Bank": (28, 1, 4, 0, 0, 0, 0, 0, 2000),
    "Bardic College": (40, 2, 1, 3, 1, 0, 1, 0, 0), "Barracks": (6, 1, 0, 0, 0, -1, 0, 2, 0),
    "Black Market": (50, 1, 2, 0, 1, 1, 0, 0, 2000), "Brewery": (6, 1, 0, 1, 1, 0, 0, 0, 0),
    "Bridge": (6, 1, 1, 0, 0, 0, 0, 0, 0), "Bureau": (10, 2, 1, -1, 1, 0, 0, 0, 0),
    "Caster's Tower": (30, 1, 1, 1, 0, 0, 0, 0, 0), "Castle": (54, 4, 2, 2, 2, -4, 1, 8, 0),
    "Cathedral": (58, 4, 0, 4, 4, -4, 1, 0, 0), "Cistern": (6, 1, 0, 0, 1, 0, 0, 0, 0),
    "City Wall": (2, 0, 0, 0, 0, -2, 0, 1, 0), "Dance Hall": (4, 1, 1, 2, 0, 1, 0, 0, 0),
    "Dump": (4, 1, 0, 0, 1, 0, 0, 0, 0), "Everflowing Spring": (5, 0, 0, 0, 0, 0, 0, 0, 0),
    "Exotic Artisan": (10, 1, 1, 0, 1, 0, 0, 0, 0), "Foreign Quarter": (30, 4, 3, 0, -1, 0, 0, 0, 0),
    "Foundry": (16, 2, 1, 0, 1, 1, 0, 0, 0), "Garrison": (28, 2, 0, 2, 2, -2, 0, 0, 0),
    "Granary": (12, 1, 0, 1, 1, 0, 0, 0, 0), "Graveyard": (4, 1, 0, 1, 0, 0, 0, 0, 0),
    "Guildhall": (34, 2, 2, 2, 0, 0, 0, 0, 1000), "Herbalist": (10, 1, 0, 1, 1, 0, 0, 0, 0),
    "Hospital": (30, 2, 0, 1, 2, 0, 0, 0, 0), "House": (3, 1, 0, 0, 0, -1, 0, 0, 0),
    "Inn": (10, 1, 1, 1, 0, 0, 0, 0, 500), "Jail": (14, 1, 0, 2, 2, -2, 0, 0, 0),
    "Library": (6, 1, 1, 1, 0, 0, 0, 0, 0), "Luxury Store": (28, 1, 1, 0, 0, 0, 0, 0, 2000),
    "Magic Shop": (68, 1, 1, 0, 0, 0, 0, 0, 2000), "Magical Academy": (58, 2, 2, 0, 0, 0, 1, 0, 0),
    "Magical Streetlamps": (5, 0, 0, 0, 0, 0, 0, 0, 0), "Mansion": (10, 1, 0, 0, 1, 0, 0, 0, 0),
    "Market": (48, 2, 2, 0, 2, 0, 0, 0, 2000), "Menagerie": (16, 4, 1, 0, 0, 0, 1, 0, 0),
    "Military Academy": (36, 2, 0, 2, 1, 0, 1, 0, 0), "Mill": (6, 1, 1, 0, 1, 0, 0, 0, 0),
    "Mint": (30, 1, 3, 3, 1, 0, 1, 0, 0), "Moat": (2, 0, 0, 0, 0, -1, 0, 1, 0),
    "Monastery": (16, 2, 0, 0, 1, 0, 0, 0, 0), "Monument": (6, 1, 0, 1, 0, -1, 0, 0, 0),
    "Museum": (30, 2, 1, 1, 0, 0, 1, 0, 0), "Noble Villa": (24, 2, 1, 1, 1, 0, 1, 0, 0),
    "Observatory": (12, 1, 0, 0, 1, 0, 0, 0, 0), "Orphanage": (6, 1, 0, 0, 1, -1, 0, 0, 0),
    "Palace": (108, 4, 2, 6, 2, 0, 1, 0, 1000), "Park": (4, 1, 0, 1, 0, -1, 0, 0, 0),
    "Paved Streets": (24, 0, 2, 0, 1, 0, 0, 0, 0), "Pier": (16, 1, 1, 0, 1, 0, 0, 0, 1000),
    "Sewer System": (24, 0, 0, 1, 2, 0, 0, 0, 0), "Shop": (8, 1, 1, 0, 0, 0, 0, 0, 500),
    "Shrine": (8, 1, 0, 1, 0, -1, 0, 0, 0), "Smithy": (6, 1, 1, 0, 1, 0, 0, 0, 0),
    "Stable": (10, 1, 1, 1, 0, 0, 0, 0, 500), "Stockyard": (20, 4, 1, 0, -1, 0, 0, 0, 0),
    "Tannery": (6, 1, 1, 0, 1, 0, 0, 0, 0), "Tavern": (12, 1, 1, 1, 0, 0, 0, 0, 500),
    "Temple": (32, 2, 0, 2, 2, -2, 0, 0, 0), "Tenement": (1, 1, 0, 0, 0, 2, 0, 0, 0),
    "Theater": (24, 2, 2, 0, 2, 0, 0, 0, 0), "Town Hall": (22, 2, 1, 1, 1, 0, 0, 0, 0),
    "Trade Shop": (10, 1, 1, 0, 1, 0, 0, 0, 500), "University": (78, 4, 3, 3, 0, 0, 1, 0, 0),
    "Watchtower": (12, 1, 0, 0, 1, -1, 0, 2, 0), "Watergate": (2, 0, 0, 0, 0, 0, 0, 0, 0),
    "Waterfront": (90, 4, 4, 0, 0, 0, 0, 0, 4000), "Waterway": (3, 1, 0, 0, 0, 0, 0, 0, 0),
}


@pytest.mark.parametrize("name", sorted(UC_BUILDINGS))
def test_each_uc_building_has_its_published_numbers(name: str) -> None:
    b = base_catalog("uc").building(name)
    got = (b.cost, b.lots, b.economy, b.loyalty, b.stability, b.unrest, b.fame, b.defense, b.base_value)
    assert got == UC_BUILDINGS[name]


# name: (d100 range, table)
UC_EVENT_ROWS = {
    ("kb", 21): "Economic Boom", ("kb", 54): "Good Weather", ("kb", 91): "Political Calm",
    ("kd", 1): "Assassination Attempt", ("kd", 42): "Improvement Demand", ("kd", 93): "Smugglers",
    ("sb", 14): "Boomtown", ("sb", 94): "Wealthy Immigrant", ("sd", 62): "Plague", ("sd", 81): "Squatters",
}


@pytest.mark.parametrize(("where", "name"), sorted(UC_EVENT_ROWS.items()))
def test_uc_sub_table_rows(where: tuple[str, int], name: str) -> None:
    assert load_uc_events().sub_event(*where).name == name


# events with their published single-number effects: (kind, target, value)
UC_EFFECTS = {
    "Archaeological Find": [("SETTLEMENT", "lore", 1)], "Food Surplus": [("CONSUMPTION_PCT", None, -50)],
    "Natural Blessing": [("CHECK", "STABILITY", 4)], "Public Scandal": [("INFAMY", None, 1)],
    "Squatters": [("FAME", None, -1), ("ATTRIBUTE", "STABILITY", -1), ("UNREST", None, 2)],
    "Good Weather": [("ATTRIBUTE", "ECONOMY", 2), ("ATTRIBUTE", "LOYALTY", 2), ("SETTLEMENT", "productivity", 2)],
}


@pytest.mark.parametrize("name", sorted(UC_EFFECTS))
def test_uc_event_effects_as_published(name: str) -> None:
    e = load_uc_events().events[name]
    assert [(f.kind, f.target, f.value) for f in e.always if f.kind != "NOTE"] == UC_EFFECTS[name]


def _town() -> object:
    s = kingdom(3, options={"event_table": "uc", "modules": ["fame_infamy"]}, treasury=200)
    s, _ = step(s, "improvement", {"districts": [{"hex": "H0", "city": "Burg"}]})
    return s


@pytest.mark.parametrize("name", sorted(load_uc_events().events))
@pytest.mark.parametrize("d20", [1, 20])
def test_every_uc_event_resolves_in_success_and_failure(name: str, d20: int) -> None:
    """Every event, with every check failing (natural 1) and then succeeding (natural 20), is recorded and folds."""
    s = _town()
    e = load_uc_events().events[name]
    rolls = {"chance": [1], **{f"ev1_check_{k}": [d20] for k in range(1, 9)}, "ev1_threat": [3]}
    s2, ps = step(s, "event", {"event": name, "event_city": "Burg"}, rolls=rolls)
    r = next(p for p in ps if isinstance(p, ev.UcEventResolved))
    assert r.event == name and len(r.checks) == (3 if e.threatened == "lot" else 1 if e.threatened else len(e.checks))
    if r.checks:
        assert r.outcome == ("success" if d20 == 20 else "failure")
    assert s2.turn == 1 and (name in [o.name for o in s2.ongoing_events]) == (r.ongoing and e.continuous)


@given(seed=st.integers(min_value=0, max_value=10_000), strategy=st.sampled_from(
    ["Defensive", "Cautious", "Standard", "Aggressive", "Reckless"]))
@settings(max_examples=25, deadline=None)
def test_battle_invariants(seed: int, strategy: str) -> None:
    """Whatever the dice: hit points never go below 0, each phase's hp_before is the last hp_after, and the
    outcomes agree (a victor only against a beaten army)."""
    s = kingdom(3, treasury=100)
    s, _ = step(s, "improvement", {"armies": [{"name": "Guard", "size": "Large", "unit_cr": "1"}]})
    s, _ = step(s.model_copy(update={"phase": "TURN_ENDED"}), "gm",
                {"enemy_armies": [{"name": "Orcs", "unit_cr": "2", "side": "enemy"}]})
    rng = random.Random(seed)
    rolls = {f"w1_r{r}_{side}{x}": [rng.randint(1, 20)] for r in range(1, 11) for side in ("ours", "enemy")
             for x in ("", "_rout", "_rout_reroll")}
    rolls |= {"w1_parting": [rng.randint(1, 20)], "w1_victory_1": [rng.randint(1, 20)],
              "w1_victory_2": [rng.randint(1, 20)], "w1_fate": [rng.randint(1, 100)]}
    _, ps = step(s, "war", {"battles": [{"ours": "A1", "enemy": "A2", "rounds": [{"ours_strategy": strategy}]}]},
                 rolls=rolls)
    last = {"A1": 16, "A2": 11}
    for p in ps:
        if isinstance(p, ev.BattlePhaseResolved):
            for side in p.sides:
                assert side.hp_after >= 0 and side.hp_before == last[side.army]
                last[side.army] = side.hp_after
    end = next(p for p in ps if isinstance(p, ev.BattleEnded))
    res = [o.result for o in end.outcomes]
    if "victorious" in res:
        assert sorted(res)[0] in ("defeated", "routed", "withdrew") and res.count("victorious") == 1


# UC Terrain Improvements: (cost BP or None = by the road/farm table, Economy, Loyalty, Stability, Defense,
# Consumption, BP per turn, shares a hex)
UC_IMPROVEMENTS = {
    "AQUEDUCT": (None, 0, 1, 1, 0, 0, 0, True), "CANAL": (None, 0, 0, 0, 0, 0, 0, True),
    "FARM": (None, 0, 0, 0, 0, -2, 0, True), "FISHERY": (4, 0, 0, 0, 0, -1, 0, True),
    "FORT": (24, 0, 0, 2, 4, 1, 0, True), "HIGHWAY": (None, 0, 0, 0, 0, 0, 0, True),
    "MINE": (6, 1, 0, 0, 0, 0, 1, False), "QUARRY": (6, 0, 0, 1, 0, 0, 1, False),
    "SAWMILL": (3, 0, 0, 1, 0, 0, 1, False), "WATCHTOWER": (12, 0, 0, 1, 2, 0, 0, True),
}


@pytest.mark.parametrize("name", sorted(UC_IMPROVEMENTS))
def test_each_uc_terrain_improvement_has_its_published_numbers(name: str) -> None:
    i = base_catalog("rrr", "uc").improvements[name]
    cost = None if (i.cost_as or name == "FARM") else i.cost
    got = (cost, i.economy, i.loyalty, i.stability, i.defense, i.consumption, i.bp_per_turn, i.shares_hex)
    assert got == UC_IMPROVEMENTS[name]
