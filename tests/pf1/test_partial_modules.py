"""The optional modules completed (issue 16): exploration feature searches, holy-site upgrades, other kingdoms'
embassies in our settlements, an ally refusing aid, and the anarchy modes; numbers by hand."""

from __future__ import annotations

from typing import Any

import pytest
from pf1.kit import kingdom, step

from kingdomlog.core.errors import RuleError
from kingdomlog.rulesets.pf1 import derive as dv
from kingdomlog.rulesets.pf1 import events as ev


def explorers() -> Any:
    extra = [ev.LeaderAssigned(role="GRAND_DIPLOMAT", name="G", ability="CHA", modifier=1),
             ev.ExplorationEdictIssued(expedition="X1", months=2, route=("H3", "H4"), cost_rolls=(2, 3))]
    return kingdom(3, options={"modules": ["exploration_edicts"]}, extra=extra)


def test_a_feature_search_finds_a_landmark_that_joins_the_map() -> None:
    """Survival +5 vs DC 20, d20 15 → 20: found; the LANDMARK joins H3's features (Loyalty +1 once claimed)."""
    s = explorers()
    rep = {"expedition": "X1", "searches": [{"hex": "H3", "day": 2, "skill": "Survival", "modifier": 5, "dc": 20,
                                             "feature": "LANDMARK"}]}
    s2, ps = step(s, "event", {"expeditions": [rep]}, rolls={"chance": [99], "exp_X1_search_1": [15]})
    f = next(p for p in ps if isinstance(p, ev.ExpeditionFeatureSearched))
    assert f.check.total == 20 and f.found and f.mapped and "LANDMARK" in s2.hexes["H3"].features
    assert "LANDMARK in H3" in s2.expeditions[0].discoveries
    miss, ps = step(s, "event", {"expeditions": [rep]}, rolls={"chance": [99], "exp_X1_search_1": [14]})
    assert "LANDMARK" not in miss.hexes["H3"].features


def test_searches_keep_to_the_route_and_one_check_per_skill_a_day() -> None:
    s = explorers()
    off = {"expedition": "X1", "searches": [{"hex": "H1", "dc": 15}]}
    with pytest.raises(RuleError, match="not on expedition X1's route"):
        step(s, "event", {"expeditions": [off]}, rolls={"chance": [99]})
    twice = {"expedition": "X1", "searches": [{"hex": "H3", "day": 2}, {"hex": "H3", "day": 2}]}
    with pytest.raises(RuleError, match="one Survival check per day"):
        step(s, "event", {"expeditions": [twice]}, rolls={"chance": [99]})


def test_a_dedicated_shrine_upgrades_to_a_temple_and_keeps_its_deity() -> None:
    """holy_sites: an LN Shrine (Economy +1) upgraded to a Temple (32 − 8 = 24 BP): LN Temple Economy +2,
    Stability +2 (opt §2.2 alignment mode, dedication carried over)."""
    s = kingdom(2, options={"modules": ["holy_sites"]}, treasury=200, alignment="LN")
    s, _ = step(s, "improvement", {"districts": [{"hex": "H0", "city": "Burg"}],
                                   "buildings": [{"type": "Shrine", "deity": "Abadar", "deity_alignment": "LN",
                                                  "shrine_attribute": "ECONOMY"}]})
    e0, s0 = int(dv.attribute(s, "ECONOMY").total), int(dv.attribute(s, "STABILITY").total)
    s = s.model_copy(update={"counters": s.counters.model_copy(update={"buildings": 0})})
    s2, ps = step(s, "improvement", {"buildings": [{"type": "Temple", "upgrade": "B1"}]})
    assert ps[0].cost_bp == 24 and s2.buildings["B1"].deity == "Abadar"
    assert int(dv.attribute(s2, "ECONOMY").total) == e0 - 1 + 2
    assert int(dv.attribute(s2, "STABILITY").total) == s0 + 2


def diplomat(level: str) -> Any:
    extra = [ev.LeaderAssigned(role="GRAND_DIPLOMAT", name="G", ability="CHA", modifier=1),
             ev.ForeignKingdomRegistered(kingdom="varn", name="Varn", alignment="NG", size=20),
             ev.DiplomaticEdictResolved(target="varn", purpose="embassy", cost_roll=1, dc_terms={}, outcome="setup",
                                        attitude_after="friendly", level_after=level)]
    s = kingdom(2, options={"modules": ["diplomatic_edicts"]}, extra=extra)
    s, _ = step(s, "improvement", {"districts": [{"hex": "H0", "city": "Burg"}]})
    return s


def test_another_kingdom_builds_its_embassy_in_our_city() -> None:
    """Varn (embassy) builds a Mansion in Burg: a lot is theirs; our Stability does not take the Mansion's +1."""
    s = diplomat("embassy")
    st0 = int(dv.attribute(s, "STABILITY").total)
    s2, ps = step(s.model_copy(update={"phase": "TURN_ENDED"}), "gm",
                  {"relation_actions": [{"action": "foreign_embassy", "target": "varn", "city": "Burg"}]})
    b = next(p for p in ps if isinstance(p, ev.ForeignEmbassyBuilt))
    assert s2.buildings[b.building].owner == "varn" and s2.relations["varn"].their_embassy_here == b.building
    assert int(dv.attribute(s2, "STABILITY").total) == st0 and b.lots[0] in dv.occupied(s2, b.district)
    with pytest.raises(RuleError, match="already has its embassy"):
        step(s2, "gm", {"relation_actions": [{"action": "foreign_embassy", "target": "varn"}]})


def test_an_ally_refusing_aid_takes_infamy_1d4_when_the_gm_applies_it() -> None:
    s = diplomat("alliance").model_copy(update={"phase": "TURN_ENDED"})
    s2, _ps = step(s, "gm", {"relation_actions": [{"action": "aid_refused", "target": "varn"}]},
                  rolls={"aid_refused_varn": [3]})
    assert s2.foreign["varn"].infamy == 3
    s3, _ = step(s, "gm", {"relation_actions": [{"action": "aid_refused", "target": "varn", "gm_applies": False}]})
    assert s3.foreign["varn"].infamy == 0
    with pytest.raises(RuleError, match="not an ally"):
        step(diplomat("embassy").model_copy(update={"phase": "TURN_ENDED"}), "gm",
             {"relation_actions": [{"action": "aid_refused", "target": "varn"}]})


@pytest.mark.parametrize(("mode", "total"), [("SEED_ZERO_ATTRIBUTES", 10 - 20), ("UC_RESULTS_ZERO", 0)])
def test_anarchy_modes_run_upkeep_and_events_but_take_no_action(mode: str, total: int) -> None:
    """In anarchy (Unrest 20): SEED_ZERO_ATTRIBUTES: the Stability check is d20 10 + 0 − 20; UC_RESULTS_ZERO: the
    result is 0; both: Improvement and Income are skipped, the Event phase runs."""
    s = kingdom(3, unrest=20, options={"anarchy_mode": mode}).model_copy(update={"phase": "GM"})
    assert s.anarchy
    s2, ps = step(s, "upkeep", rolls={"stability": [10]})
    chk = next(p for p in ps if isinstance(p, ev.StabilityCheckRolled)).check
    assert chk.total == total and not chk.success
    _, p2 = step(s2, "improvement")
    assert isinstance(p2[0], ev.PhaseSkipped)
    _, p3 = step(s2, "event", rolls={"chance": [99]})
    assert isinstance(p3[0], ev.EventChanceRolled)
    frozen = kingdom(3, unrest=20).model_copy(update={"phase": "GM"})
    _, p4 = step(frozen, "upkeep")
    assert isinstance(p4[0], ev.PhaseSkipped) and p4[0].reason == "ANARCHY"


def test_an_embassy_buildings_recorded_lines_come_off_when_it_closes() -> None:
    """v2 pf1.embassy_building_acquired records the kingdom-level lines it adds; closing the embassy takes off
    exactly those (not today's catalogue), so a catalogue change never unbalances an old log."""
    extra = [ev.ForeignKingdomRegistered(kingdom="varn", name="Varn", alignment="NG", size=20),
             ev.DiplomaticEdictResolved(target="varn", purpose="embassy", cost_roll=1, dc_terms={}, outcome="setup",
                                        attitude_after="friendly", level_after="embassy"),
             ev.EmbassyBuildingAcquired(target="varn", settlement="Varn", building_type="Mansion", cost_bp=0,
                                        settlement_delta={"society": 5, "law": 1}),
             ev.RelationActionResolved(action="close_embassy", target="varn", level_before="embassy",
                                       level_after="none")]
    s = kingdom(2, options={"modules": ["diplomatic_edicts"]}, extra=extra[:3])
    assert s.kingdom_adjustments == {"society": 5, "law": 1}
    closed = kingdom(2, options={"modules": ["diplomatic_edicts"]}, extra=extra)
    assert closed.kingdom_adjustments == {} and closed.relations["varn"].embassy_building is None
