"""The Ultimate Campaign building catalogue (buildings_uc.toml) and its rules: every discount and upgrade names a
building, the published numbers, adjacency, water borders, limits, upgrades, the first free house, the
Stockyard, the Foundry and the Waterfront."""

from __future__ import annotations

from typing import Any

import pytest
from pf1.kit import kingdom, step

from kingdomlog.core.errors import RuleError
from kingdomlog.rulesets.pf1 import derive as dv
from kingdomlog.rulesets.pf1 import events as ev
from kingdomlog.rulesets.pf1.tables import base_catalog, load_buildings, load_buildings_uc


def city(options: dict[str, Any] | None = None, treasury: int = 400, water: str | None = None,
         extra: Any = ()) -> Any:
    """A Size-2 kingdom with the city C1 (district D1 on H0) and plenty of BP; ``water`` names a WATER border."""
    s = kingdom(2, options=options, treasury=treasury, extra=extra)
    borders = {water: "WATER"} if water else {}
    s, _ = step(s, "improvement", {"districts": [{"hex": "H0", "city": "Burg", "borders": borders}]})
    return s.model_copy(update={"counters": s.counters.model_copy(update={"buildings": 0, "districts": 0})})


def build(s: Any, *entries: dict[str, Any]) -> tuple[Any, list[Any]]:
    """Build ``entries`` one per month (the limit is 1 at Size 2)."""
    out: list[Any] = []
    for e in entries:
        s, p = step(s, "improvement", {"buildings": [e]})
        out += p
        s = s.model_copy(update={"counters": s.counters.model_copy(update={"buildings": 0, "free_house": 0})})
    return s, out


@pytest.mark.parametrize("edition", ["rrr", "uc"])
def test_every_discount_upgrade_and_requirement_names_a_building(edition: str) -> None:
    """No "halves the cost of X" or "upgrade to X" points at nothing (issue 16)."""
    cat = base_catalog(edition)
    for b in cat.buildings.values():
        for name in (*b.halves, *b.upgrade_from, *b.upgrade_to, *b.requires_any, *b.adjacent_kinds,
                     *b.not_adjacent):
            assert cat.building(name), (b.name, name)


def test_the_uc_list_is_complete_and_rrr_keeps_its_numbers() -> None:
    """UC lists 70 buildings (Brothel is the RRR name of the Dance Hall); rrr adds those base §6.10 lacks and
    leaves every base entry as it was (committed logs replay the same)."""
    uc = load_buildings_uc()
    assert len(uc) == 70
    rrr = base_catalog("rrr")
    for b in load_buildings():
        assert rrr.buildings[b.name] == b
    added = set(rrr.buildings) - {b.name for b in load_buildings()}
    assert {"Library", "Magic Shop", "Market", "Guildhall", "Monument", "Graveyard", "Tenement", "Stockyard",
            "Foundry", "Shop", "Trade Shop", "Tannery", "Herbalist", "University", "Palace"} <= added
    assert "Pier" not in added and "Exotic Artisan" not in added and "Dance Hall" not in added
    assert len(rrr.buildings) == len(load_buildings()) + len(added) and len(added) == 70 - 33 + 1


def test_published_numbers() -> None:
    """UC Building Descriptions: Guildhall 34 BP, 2 lots, Economy +2, Loyalty +2, Law +1, Productivity +2, base value
    +1,000 gp, halves Pier/Stable/Trade Shop; Magic Shop 68 BP, 4 minor/2 medium/1 major; uc Temple 2 lots."""
    cat = base_catalog("uc")
    g = cat.building("Guildhall")
    assert (g.cost, g.lots, g.economy, g.loyalty, g.base_value) == (34, 2, 2, 2, 1000)
    assert (g.settlement.law, g.settlement.productivity, g.halves) == (1, 2, ("Pier", "Stable", "Trade Shop"))
    m = cat.building("Magic Shop")
    assert (m.cost, m.slots.minor, m.slots.medium, m.slots.major, m.adjacent_houses) == (68, 4, 2, 1, 2)
    assert cat.building("Temple").lots == 2 and base_catalog("rrr").building("Temple").lots == 1
    assert cat.building("Piers").name == "Pier" and cat.building("Brothel").name == "Dance Hall"
    assert cat.building("City Wall").cost == 2 and base_catalog("rrr").building("City Wall").cost == 8


def test_halving_reads_aliases_and_upgrade_pays_the_difference() -> None:
    """uc: a Theater halves a Dance Hall (named Brothel in its list): 4 → 2 BP. A Shrine (8) upgrades to a Temple
    (32) for 24 BP, counts as a building, keeps its id and its Erastil dedication, takes 2 lots."""
    s = city({"building_edition": "uc", "modules": ["holy_sites"]})
    s, ps = build(s, {"type": "House"}, {"type": "Theater"}, {"type": "Dance Hall"})
    dance = ps[-1]
    assert dance.cost_bp == 2 and dance.discounts[0].source == "Theater"
    s, ps = build(s, {"type": "Shrine", "deity": "Erastil", "deity_alignment": "LG"})
    shrine = next(p for p in ps if isinstance(p, ev.BuildingConstructed)).building
    t0 = s.treasury
    s, ps = build(s, {"type": "Temple", "upgrade": shrine})
    up = ps[0]
    assert isinstance(up, ev.BuildingUpgraded) and up.cost_bp == 24 and len(up.lots) == 2
    b = s.buildings[shrine]
    assert b.type == "Temple" and b.deity_alignment == "LG" and t0 - s.treasury == 24
    assert up.unrest_delta == -2 and up.slots == ("minor", "minor")
    with pytest.raises(RuleError, match="upgrades to Temple, not to a Castle"):
        step(s.model_copy(update={"buildings": {**s.buildings, shrine: b.model_copy(update={"type": "Shrine"})}}),
             "improvement", {"buildings": [{"type": "Castle", "upgrade": shrine}]})


def test_limits_refused_naming_the_rule() -> None:
    """A Mill needs a water border; a Tannery may not touch a House; Magical Streetlamps need a Temple (or …);
    Paved Streets once per district."""
    s = city({"building_edition": "uc"})
    with pytest.raises(RuleError, match=r"water border.*Limit"):
        step(s, "improvement", {"buildings": [{"type": "Mill"}]})
    s2, _ = build(s, {"type": "House", "lots": [0]})
    with pytest.raises(RuleError, match="may not be next to House"):
        step(s2, "improvement", {"buildings": [{"type": "Tannery", "lots": [1]}]})
    with pytest.raises(RuleError, match="needs one of Cathedral, Magic Shop, Magical Academy, Temple"):
        step(s2, "improvement", {"buildings": [{"type": "Magical Streetlamps"}]})
    s3, _ = build(s2, {"type": "Paved Streets"})
    with pytest.raises(RuleError, match="already has 1 Paved Streets"):
        step(s3, "improvement", {"buildings": [{"type": "Paved Streets"}]})
    w = city({"building_edition": "uc"}, water="S")
    w, ps = build(w, {"type": "Mill"})
    assert max(ps[0].lots) >= 30  # on the south row (lots 30..35)


def test_first_house_free_only_with_its_option() -> None:
    """UC: the first House of a month does not count: with the option, a House and a Park in one month at Size 2
    (limit 1); without it the Park is refused."""
    s = city({"first_house_free": True})
    s2, ps = step(s, "improvement", {"buildings": [{"type": "House"}, {"type": "Park"}]})
    assert ps[0].uncounted and not ps[1].uncounted and s2.counters.buildings == 1
    with pytest.raises(RuleError, match="limit of 1 buildings"):
        step(city(), "improvement", {"buildings": [{"type": "House"}, {"type": "Park"}]})


def test_stockyard_farms_foundry_and_waterfront() -> None:
    """A farm in the Stockyard's hex or next to it: Consumption −3 instead of −2. A Foundry works one roaded Mine:
    Economy +1. A Waterfront halves the Taxation Loyalty penalty (Heavy −4 → −2)."""
    extra = [ev.RoadBuilt(hex="H1", cost_bp=0), ev.HexImprovementBuilt(hex="H1", kind="FARM", cost_bp=0)]
    s = city({"building_edition": "uc"}, extra=extra, water="S")
    c0 = int(dv.consumption(s).total)
    s, _ = build(s, {"type": "Stockyard"})
    assert int(dv.consumption(s).total) == c0 - 1
    e0 = int(dv.attribute(s, "ECONOMY").total)
    s, _ = build(s, {"type": "Foundry"})
    assert int(dv.attribute(s, "ECONOMY").total) == e0 + 1  # no Mine yet: only its own Economy +1
    s = s.model_copy(update={"hexes": {**s.hexes, "H1": s.hexes["H1"].model_copy(update={"improvement": "MINE"})}})
    econ = dv.attribute(s, "ECONOMY")  # + the Mine's own Economy +1 (base §6.8) + the Foundry working it
    assert int(econ.total) == e0 + 3 and any(t.label == "Foundry working 1 mine(s)" for t in econ.terms)
    s = s.model_copy(update={"edicts": s.edicts.model_copy(update={"taxation": "HEAVY"})})
    l0 = int(dv.attribute(s, "LOYALTY").total)
    s, _ = build(s, {"type": "Pier"})
    s, _ = build(s, {"type": "Waterfront", "upgrade": next(b.id for b in s.buildings.values() if b.type == "Pier")})
    assert int(dv.attribute(s, "LOYALTY").total) == l0 + 2
