"""Sample payloads of every event type and sample plans (base spec §7 worked example)."""

from __future__ import annotations

from typing import Any

from kingdomlog.core.events import Draft
from kingdomlog.rulesets.pf1 import events as ev
from kingdomlog.rulesets.pf1.state import Terms

_K = ev.KCheck(attribute="STABILITY", d20=6, attribute_value=9, unrest=0, total=15, dc=21, success=False, margin=-6)
_S = ev.SkillCheck(skill="Diplomacy", d20=19, modifier=19, total=38, dc=33, success=True, margin=5)


def sample_events() -> list[Draft]:
    """At least one valid payload of every pf1 event type."""
    p: list[Any] = [
        ev.KingdomFounded(name="Greenbelt Barony", alignment="LG", starting_treasury_bp=50),
        ev.HexMapped(hex="H1", q=0, r=0, terrain="GRASSLAND"),
        ev.HexExplored(hex="H1"),
        ev.HexCleared(hex="H1"),
        ev.AlignmentChanged(before="LG", after="LN"),
        ev.TurnStarted(turn=1),
        ev.PhaseSkipped(phase="upkeep", reason="SIZE_ZERO"),
        ev.TurnEnded(turn=1),
        ev.LeaderAssigned(role="RULER", name="Aldric", ability="CHA", modifier=3, attributes=("STABILITY",)),
        ev.LeaderUnassigned(role="RULER", name="Aldric"),
        ev.LeaderPresenceRecorded(role="RULER", name="Aldric", present=False),
        ev.LeaderSkillRanksRecorded(role="RULER", name="Aldric", ranks=10),
        ev.StabilityCheckRolled(check=_K, outcome="UNREST_UP", unrest_delta=2, treasury_delta=0),
        ev.ConsumptionPaid(consumption=4, treasury_before=45, treasury_after=41, unrest_delta=0),
        ev.MagicItemSlotFilled(building="B1", slot=0, category="minor", item="wand", price_gp=750),
        ev.VacancyUnrestApplied(items={"SPYMASTER": 1}, unrest_delta=1),
        ev.NegativeAttributeUnrestApplied(attributes=("ECONOMY",), unrest_delta=1),
        ev.HexLostToUnrest(hex="H2", unrest=12),
        ev.AnarchyBegan(unrest=20),
        ev.AnarchyEnded(reason="coup", unrest_after=10),
        ev.RoyalAssassinActed(unrest_delta=-1),
        ev.DistrictReady(district="D1", borders={"N": "LAND", "E": "LAND", "S": "WATER", "W": "LAND"}),
        ev.HexClaimed(hex="H1", cost_bp=1),
        ev.TownAnnexationCheckRolled(hex="H3", town="Tatzlford", check=_K, unrest_dice=(2, 3), unrest_delta=5),
        ev.HexAbandoned(hex="H2", had_city=False, unrest_delta=1),
        ev.CityFounded(city="C1", name="Oakhold", hex="H1", capital=True),
        ev.DistrictPreparationStarted(city="C1", district="D1", hex="H1", terrain="GRASSLAND", cost_bp=1, months=0,
                                      ready_on_turn=1),
        ev.BuildingConstructed(building="B1", city="C1", district="D1", building_type="Brewery", lots=(0,),
                               base_cost_bp=6, cost_bp=6, unrest_delta=0),
        ev.BuildingDemolished(building="B1"),
        ev.LotsDestroyed(district="D1", lots=(0,), buildings=("B1",), unrest_delta=1),
        ev.RoadBuilt(hex="H1", cost_bp=1),
        ev.HexImprovementBuilt(hex="H2", kind="FARM", cost_bp=2),
        ev.EdictsSet(promotion="TOKEN", taxation="LIGHT", festivals="1"),
        ev.DepositMade(gp_offered=9000, bp_gained=2, gp_returned=1000),
        ev.WithdrawalMade(index=1, bp=1, gp_paid=2000, unrest_delta=1),
        ev.WithdrawalLoyaltyCheckRolled(index=1, check=_K.model_copy(update={"attribute": "LOYALTY"}), unrest_delta=1),
        ev.ItemSaleAttempted(item="ring", value_gp=5000, category="minor", source="PC", check=_K, bp_gained=0),
        ev.IncomeCheckRolled(check=_K.model_copy(update={"attribute": "ECONOMY"}), bp_gained=0),
        ev.IncomeSkipped(reason="TREASURER_NOT_EFFECTIVE"),
        ev.MagicItemPurchased(building="B1", slot=0, price_gp=750),
        ev.EventChanceRolled(d100=42, chance=75, occurred=True),
        ev.KingdomEventDrawn(event="Good Weather", kind="beneficial", d100=42),
        ev.EventEffectApplied(event="Good Weather", kind="ATTRIBUTE", attribute="ECONOMY", value=1, first_turn=2,
                              last_turn=2),
        ev.EventPhaseClosed(occurred=True),
        ev.GmAdjustment(field="treasury", delta=5, reason="sponsor gift"),
        ev.BuildingSupportLost(building="B2", supporter="B1", gm_applies=True, d3=2, shutdown_due_turn=5),
        ev.BuildingShutdownCancelled(building="B2", reason="support restored"),
        ev.BuildingAbandoned(building="B2"),
        ev.BuildingReactivationAttempted(building="B2", check=_K),
        ev.ReligiousBuildingDedicated(building="B3", deity="Erastil", deity_alignment="LG", bonus_mode="alignment"),
        ev.KingdomSettlementModifierAdjusted(modifier="society", delta=2, source="embassy"),
        ev.SettlementBaseDangerSet(city="C1", base_danger=5),
        ev.ForeignKingdomRegistered(kingdom="varn", name="Varn", alignment="NG", size=42),
        ev.ThirdPartyRelationDeclared(a="varn", b="dunmoor", enemy=True),
        ev.AttitudeChanged(kingdom="varn", before="indifferent", after="friendly"),
        ev.DiplomaticEdictResolved(target="varn", purpose="embassy", cost_roll=3, bribe_bp=2,
                                   dc_terms={"dc": 33}, checks=(_S,), successes=1, outcome="embassy",
                                   attitude_after="friendly", level_after="embassy", fame_delta=1,
                                   terms=None),
        ev.DiplomaticEdictResolved(target="varn", purpose="treaty", cost_roll=2, dc_terms={"dc": 29}, outcome="x",
                                   attitude_after="helpful", level_after="treaty",
                                   terms=Terms(kind="treaty", balanced=False, advantaged="you", established_turn=4,
                                               x_you=40, x_partner=60, bonus_you=9)),
        ev.RelationActionResolved(action="withdraw_treaty", target="varn", level_before="treaty", check=_K,
                                  unrest_delta=2, level_after="embassy"),
        ev.EmbassyBuildingAcquired(target="varn", settlement="Varn capital", building_type="Mansion", cost_bp=10),
        ev.ExplorationEdictIssued(expedition="X1", months=2, route=("H5", "H6"), cost_rolls=(2, 3)),
        ev.ExpeditionProgressed(expedition="X1", outcome="progressed"),
        ev.TradeEdictIssued(route="T1", route_type="goods", partner="ravel", origin="C1", destination="Ravel",
                            path=(ev.PathStep(road=True),), invested_bp=10, trl_raw=1.0, trl=1, rm=0, lm=0, dc=20,
                            dc_terms={"control_dc": 20}, travel_days=1.0, arrival_turn=1),
        ev.TradeExpeditionArrived(route="T1", checks=(_K, _K, _K), successes=2, status="established", tier_economy=1),
        ev.TradeRouteExpired(route="T1"),
        ev.FoodRouteConditionEvaluated(route="T2", raw_consumption=-1, active=True),
        ev.VassalageEdictIssued(vassal="east-march", mode="new_colony", viceroy="Lia", cost_roll=2, grant_bp=5),
        ev.SubjugationCheckRolled(vassal="east-march", check=_K, unrest_roll=3, unrest_delta=3, streak_after=0),
        ev.RenownChanged(fame_delta=1, source="Visiting Celebrity"),
        ev.SizeMilestoneRenownChosen(threshold=11, choice="fame"),
        ev.GovernmentFormChanged(form="republic"),
        ev.IndependenceDeclared(daughters=(ev.Daughter(campaign="north", hexes=("H1",), treasury_bp=10),
                                           ev.Daughter(campaign="south", hexes=("H2",), treasury_bp=10)),
                                non_structural_unrest=7, share=3),
        ev.UnionFormed(members=("a", "b"), new_campaign="ab", non_structural_unrest={"a": 5, "b": 2}, union_unrest=3),
        ev.LineageRecorded(kind="split_from", campaigns=("parent",), unrest_added=2, loyalty_bonus_turns=6),
        ev.TemporaryModifierApplied(attribute="STABILITY", value=1, first_turn=3, last_turn=3, source="union",
                                    roll=(3,)),
        ev.SpecialEdictUsed(kind="trade"),
    ]
    return [Draft(x, phase="sample") for x in p]


LEADERS = [
    {"role": "RULER", "name": "Aldric", "ability": "CHA", "modifier": 3, "attributes": ["STABILITY"]},
    {"role": "COUNCILOR", "name": "Berra", "ability": "WIS", "modifier": 2},
    {"role": "GENERAL", "name": "Cedric", "ability": "STR", "modifier": 1},
    {"role": "GRAND_DIPLOMAT", "name": "Dalia", "ability": "CHA", "modifier": 1},
    {"role": "HIGH_PRIEST", "name": "Elowen", "ability": "WIS", "modifier": 2},
    {"role": "MAGISTER", "name": "Fenn", "ability": "INT", "modifier": 2},
    {"role": "MARSHAL", "name": "Gwen", "ability": "DEX", "modifier": 1},
    {"role": "ROYAL_ASSASSIN", "name": "Hale", "ability": "DEX", "modifier": 1},
    {"role": "TREASURER", "name": "Ilse", "ability": "INT", "modifier": 2},
    {"role": "WARDEN", "name": "Joss", "ability": "CON", "modifier": 2},
]


def sample_plans() -> list[dict[str, Any]]:
    """The base spec §7 worked example as plans: setup, the founding month, one full month (manual dice)."""
    return [
        {"turn": 0, "seed": "greenbelt-0", "steps": {"founding": {"choices": {
            "name": "Greenbelt Barony", "alignment": "LG",
            "hexes": [{"id": "H1", "q": 0, "r": 0, "terrain": "GRASSLAND"},
                      {"id": "H2", "q": 1, "r": 0, "terrain": "GRASSLAND"}]}}}},
        {"turn": 1, "seed": "greenbelt-1", "steps": {
            "improvement": {"choices": {
                "leaders": LEADERS, "claim": ["H1"], "districts": [{"hex": "H1", "city": "Oakhold"}],
                "buildings": [{"type": "Brewery"}], "roads": ["H1"],
                "promotion": "TOKEN", "taxation": "LIGHT", "festivals": "1"}},
            "income": {"rolls": {"income": [17]}},
            "event": {"rolls": {"chance": [88]}}}},
        {"turn": 2, "seed": "greenbelt-2", "steps": {
            "upkeep": {"rolls": {"stability": [6]}},
            "improvement": {"choices": {"claim": ["H2"], "buildings": [{"type": "Park"}], "roads": ["H2"],
                                        "improvements": [{"hex": "H2", "kind": "FARM"}]}},
            "income": {"choices": {"deposit_gp": 9000, "withdrawals": [1]},
                       "rolls": {"withdrawal_1": [13], "income": [20]}},
            "event": {"rolls": {"chance": [42], "table": [42]}}}},
    ]
