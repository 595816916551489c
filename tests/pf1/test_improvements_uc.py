"""Ultimate Campaign terrain improvements (UC Kingdoms and War, Terrain Improvements; base §6.8 UC alternatives):
costs by the road table, terrains, sharing a hex, Size and road requirements, BP per turn, upgrades; by hand."""

from __future__ import annotations

from typing import Any

import pytest
from pf1.kit import kingdom, step

from kingdomlog.core.errors import RuleError
from kingdomlog.rulesets.pf1 import derive as dv
from kingdomlog.rulesets.pf1 import events as ev

UC = {"improvement_edition": "uc"}


def roads(n: int, *, options: dict[str, Any] | None = None, terrain: str = "GRASSLAND", extra: Any = ()) -> Any:
    """``n`` claimed hexes, each with a road (and a Treasurer for taxes)."""
    s = kingdom(n, options=options, terrain=terrain, treasury=300,
                extra=[*(ev.RoadBuilt(hex=f"H{i}", cost_bp=0) for i in range(n)), *extra])
    return s.model_copy(update={"counters": s.counters.model_copy(update={"terrain": 0})})


def imp(s: Any, hex_id: str, kind: str) -> tuple[Any, list[Any]]:
    s, ps = step(s, "improvement", {"improvements": [{"hex": hex_id, "kind": kind}]})
    return s.model_copy(update={"counters": s.counters.model_copy(update={"terrain": 0})}), ps


def test_highway_needs_size_26_a_road_and_costs_twice_the_road() -> None:
    """Highway: Size ≥ 26; on a road; grassland road 1 BP → 2 BP; four highway hexes: Economy +1."""
    with pytest.raises(RuleError, match="Size 26 or more"):
        imp(roads(3), "H0", "HIGHWAY")
    s = roads(26)
    e0 = int(dv.attribute(s, "ECONOMY").total)
    for i in range(4):
        s, ps = imp(s, f"H{i}", "HIGHWAY")
        assert ps[0].cost_bp == 2 and ps[0].shared
    assert int(dv.attribute(s, "ECONOMY").total) == e0 + 1
    with pytest.raises(RuleError, match="needs a road"):
        imp(kingdom(26, treasury=300), "H0", "HIGHWAY")


def test_canal_costs_two_roads_and_counts_as_a_river_in_uc() -> None:
    """Canal on grassland: 2 × 1 BP; with improvement_edition uc, 4 river-or-canal hexes give Economy +1."""
    s = roads(4, options=UC)
    e0 = int(dv.attribute(s, "ECONOMY").total)
    for i in range(4):
        s, ps = imp(s, f"H{i}", "CANAL")
        assert ps[0].cost_bp == 2
    assert int(dv.attribute(s, "ECONOMY").total) == e0 + 1
    s2 = roads(4)  # seed edition: canals have no river bonus
    for i in range(4):
        s2, _ = imp(s2, f"H{i}", "CANAL")
    assert int(dv.attribute(s2, "ECONOMY").total) == int(dv.attribute(roads(4), "ECONOMY").total)


def test_aqueduct_costs_a_road_without_the_river_doubling_and_counts_in_a_city_hex() -> None:
    """Aqueduct in a river hex: the road cost 1 BP, not doubled; Loyalty +1 and Stability +1 only where it reaches
    a settlement."""
    s = roads(2, extra=[ev.HexMapped(hex="H1", q=1, r=0, terrain="GRASSLAND", river=True)])
    s, ps = imp(s, "H1", "AQUEDUCT")
    assert ps[0].cost_bp == 1
    l0 = int(dv.attribute(s, "LOYALTY").total)
    s, _ = step(s, "improvement", {"districts": [{"hex": "H0", "city": "Spring"}]})
    s, _ = imp(s, "H0", "AQUEDUCT")
    assert int(dv.attribute(s, "LOYALTY").total) == l0 + 1


def test_fishery_needs_water_and_shares_a_farm_hex_in_uc() -> None:
    """Fishery 4 BP: a river or marsh; Consumption −1; in uc it shares the hex with a Farm (−2): −3 together."""
    with pytest.raises(RuleError, match="needs a river"):
        imp(roads(2, options=UC), "H1", "FISHERY")
    s = roads(2, options=UC, extra=[ev.HexMapped(hex="H1", q=1, r=0, terrain="GRASSLAND", river=True)])
    c0 = int(dv.consumption(s).total)
    s, _ps = imp(s, "H1", "FARM")
    s, ps2 = imp(s, "H1", "FISHERY")
    assert ps2[0].cost_bp == 4 and s.hexes["H1"].extras == ("FARM", "FISHERY")
    assert int(dv.consumption(s).total) == max(0, c0 - 3)


def test_quarry_mine_and_sawmill_earn_bp_with_the_taxes_resource_adds_one() -> None:
    """UC Quarry 6 BP: Stability +1, +1 BP with taxes; in a Resource hex Stability +2 and +2 BP."""
    s = roads(2, terrain="HILLS", options=UC,
              extra=[ev.HexMapped(hex="H1", q=1, r=0, terrain="HILLS", features=("RESOURCE",))])
    st0 = int(dv.attribute(s, "STABILITY").total)
    s, ps = imp(s, "H1", "QUARRY")
    assert ps[0].cost_bp == 6 and int(dv.attribute(s, "STABILITY").total) == st0 + 2
    s, ps = step(s, "income", rolls={"income": [20]})
    t = next(p for p in ps if isinstance(p, ev.TerrainIncomeCollected))
    assert t.bp == 2 and t.sources == {"quarry H1": 2}


def test_watchtower_upgrades_to_a_fort_for_the_difference_and_they_never_share() -> None:
    """Watchtower 12 BP (Stability +1, Defense +2, Unrest −1); the UC Fort (24 BP) replaces it for 12 BP:
    Stability +2, Consumption +1; a second watchtower in the hex is refused."""
    s = roads(2, options=UC, extra=[ev.GmAdjustment(field="unrest", delta=3)])
    s, ps = imp(s, "H1", "WATCHTOWER")
    assert ps[0].cost_bp == 12 and s.unrest == 2
    with pytest.raises(RuleError, match="already has a watchtower"):
        imp(s, "H1", "WATCHTOWER")
    c0 = int(dv.consumption(s).total)
    s, ps = imp(s, "H1", "FORT")
    assert ps[0].cost_bp == 12 and ps[0].replaces == "WATCHTOWER" and s.hexes["H1"].extras == ("FORT",)
    assert int(dv.consumption(s).total) == c0 + 1 and s.unrest == 1


def test_seed_edition_keeps_the_base_improvements() -> None:
    """Without improvement_edition uc the base §6.8 Fort (12 BP, third-party) and the proposed Mine stay."""
    s = roads(2, terrain="HILLS")
    assert s.catalog.improvements["FORT"].cost == 12 and s.catalog.improvements["MINE"].bp_per_turn == 0
    assert roads(2, options=UC).catalog.improvements["FORT"].cost == 24
