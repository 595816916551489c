"""PF1 event payloads (namespace ``pf1.``), after base spec §8.2 and optional spec §6.2.

Every die face and every derived number that decided an outcome is in the
payload, so the log is auditable without re-deriving the rules; ``evolve``
applies the recorded deltas.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from kingdomlog.core.events import EventModel, register_event, register_upcaster
from kingdomlog.core.model import Frozen
from kingdomlog.rulesets.pf1.state import Terms


class KCheck(Frozen):
    """A kingdom check (base §2.5): d20 + attribute − Unrest + situational vs DC."""

    attribute: str
    d20: int = Field(ge=1, le=20)
    attribute_value: int
    unrest: int = Field(ge=0)
    situational: int = 0
    total: int
    dc: int
    success: bool
    margin: int
    """total − DC (negative on failure)."""


class SkillCheck(Frozen):
    """A person's skill check (optional §1.3): no automatic natural results."""

    skill: str
    d20: int = Field(ge=1, le=20)
    modifier: int
    total: int
    dc: int
    success: bool
    margin: int


class Opposed(Frozen):
    skill: str
    ours: tuple[int, ...]
    theirs: tuple[int, ...]
    our_modifier: int
    their_modifier: int
    their_skill: str
    winner: Literal["you", "partner"]


# ------------------------------------------------------------------ setup and map


@register_event
class KingdomFounded(EventModel):
    type = "pf1.kingdom_founded"
    name: str = Field(min_length=1)
    alignment: Literal["LG", "NG", "CG", "LN", "N", "CN", "LE", "NE", "CE"]
    starting_treasury_bp: int
    government: str = "feudal_monarchy"
    starting_renown: Literal["fame", "infamy"] | None = None


@register_event
class HexMapped(EventModel):
    type = "pf1.hex_mapped"
    hex: str
    q: int
    r: int
    terrain: Literal["GRASSLAND", "HILLS", "FOREST", "MARSH", "MOUNTAINS"]
    river: bool = False
    features: tuple[str, ...] = ()


@register_event
class HexExplored(EventModel):
    type = "pf1.hex_explored"
    hex: str


@register_event
class HexCleared(EventModel):
    type = "pf1.hex_cleared"
    hex: str


@register_event
class AlignmentChanged(EventModel):
    type = "pf1.alignment_changed"
    before: str
    after: str


@register_event
class TurnStarted(EventModel):
    type = "pf1.turn_started"
    turn: int = Field(ge=1)


@register_event
class PhaseSkipped(EventModel):
    type = "pf1.phase_skipped"
    phase: str
    reason: Literal["SIZE_ZERO", "ANARCHY", "TREASURER_NOT_EFFECTIVE", "CLOSED"]


@register_event
class TurnEnded(EventModel):
    type = "pf1.turn_ended"
    turn: int


# ------------------------------------------------------------------ leaders


@register_event
class LeaderAssigned(EventModel):
    type = "pf1.leader_assigned"
    role: str
    name: str
    ability: str
    modifier: int
    attributes: tuple[str, ...] = ()
    present: bool = True
    co_ruler: bool = False
    skill_ranks: int = Field(0, ge=0)
    leadership_feat: bool = False


@register_event
class LeaderUnassigned(EventModel):
    type = "pf1.leader_unassigned"
    role: str
    name: str
    reason: str = ""


@register_event
class LeaderPresenceRecorded(EventModel):
    type = "pf1.leader_presence_recorded"
    role: str
    name: str
    present: bool
    days_present: int | None = Field(None, ge=0, le=31)


@register_event
class LeaderSkillRanksRecorded(EventModel):
    type = "pf1.leader_skill_ranks_recorded"
    role: str
    name: str
    ranks: int = Field(ge=0)
    leadership_feat: bool = False


# ------------------------------------------------------------------ upkeep


@register_event
class StabilityCheckRolled(EventModel):
    type = "pf1.stability_check_rolled"
    check: KCheck
    outcome: Literal["UNREST_DOWN", "BP_GAINED", "NO_EFFECT", "UNREST_UP"]
    extra_dice: tuple[int, ...] = ()
    unrest_delta: int
    treasury_delta: int


@register_event
class ConsumptionPaid(EventModel):
    type = "pf1.consumption_paid"
    consumption: int
    treasury_before: int
    treasury_after: int
    unrest_delta: int


@register_event
class MagicItemSlotFilled(EventModel):
    type = "pf1.magic_item_slot_filled"
    building: str
    slot: int
    category: Literal["minor", "medium", "major"]
    item: str
    price_gp: int | None = None
    d100: int | None = None


@register_event
class VacancyUnrestApplied(EventModel):
    type = "pf1.vacancy_unrest_applied"
    items: dict[str, int]
    unrest_delta: int


@register_event
class NegativeAttributeUnrestApplied(EventModel):
    type = "pf1.negative_attribute_unrest_applied"
    attributes: tuple[str, ...]
    unrest_delta: int


@register_event
class HexLostToUnrest(EventModel):
    type = "pf1.hex_lost_to_unrest"
    hex: str
    unrest: int


@register_event
class AnarchyBegan(EventModel):
    type = "pf1.anarchy_began"
    unrest: int


@register_event
class AnarchyEnded(EventModel):
    type = "pf1.anarchy_ended"
    reason: str
    unrest_after: int = Field(ge=0)


@register_event
class RoyalAssassinActed(EventModel):
    type = "pf1.royal_assassin_acted"
    unrest_delta: int


# ------------------------------------------------------------------ improvement


@register_event
class DistrictReady(EventModel):
    type = "pf1.district_ready"
    district: str
    borders: dict[str, Literal["LAND", "WATER"]] = Field(default_factory=dict)


@register_event
class HexClaimed(EventModel):
    type = "pf1.hex_claimed"
    hex: str
    cost_bp: int


@register_event
class TownAnnexationCheckRolled(EventModel):
    type = "pf1.town_annexation_check_rolled"
    hex: str
    town: str
    check: KCheck
    unrest_dice: tuple[int, ...] = ()
    unrest_delta: int


@register_event
class HexAbandoned(EventModel):
    type = "pf1.hex_abandoned"
    hex: str
    had_city: bool
    unrest_delta: int


@register_event
class CityFounded(EventModel):
    type = "pf1.city_founded"
    city: str
    name: str
    hex: str
    capital: bool


@register_event
class DistrictPreparationStarted(EventModel):
    type = "pf1.district_preparation_started"
    city: str
    district: str
    hex: str
    terrain: str
    cost_bp: int
    months: int
    ready_on_turn: int


class Discount(Frozen):
    kind: Literal["HALVED_BY", "RUINS", "MAGICAL_ASSISTANCE", "REBUILD"]
    source: str
    amount_bp: int


@register_event
class BuildingConstructed(EventModel):
    type = "pf1.building_constructed"
    building: str
    city: str
    district: str
    building_type: str
    lots: tuple[int, ...] = ()
    border: str | None = None
    base_cost_bp: int
    discounts: tuple[Discount, ...] = ()
    cost_bp: int
    unrest_delta: int
    deity: str | None = None
    supported_by: tuple[str, ...] = ()
    supports: str | None = None
    """A House built to support an existing dependent (a replacement, optional §2.1)."""
    free: bool = False
    """Incorporated for free (a BUILDING feature of the hex, base §3.1 F5)."""


@register_event
class BuildingDemolished(EventModel):
    type = "pf1.building_demolished"
    building: str


@register_event
class LotsDestroyed(EventModel):
    type = "pf1.lots_destroyed"
    district: str
    lots: tuple[int, ...]
    buildings: tuple[str, ...]
    unrest_delta: int


@register_event
class RoadBuilt(EventModel):
    type = "pf1.road_built"
    hex: str
    cost_bp: int
    river_doubled: bool = False


@register_event
class HexImprovementBuilt(EventModel):
    type = "pf1.hex_improvement_built"
    hex: str
    kind: str
    cost_bp: int
    unrest_delta: int = 0


@register_event
class EdictsSet(EventModel):
    type = "pf1.edicts_set"
    promotion: str
    taxation: str
    festivals: str
    forced: bool = False


# ------------------------------------------------------------------ income


@register_event
class DepositMade(EventModel):
    type = "pf1.deposit_made"
    gp_offered: int = Field(ge=0)
    bp_gained: int = Field(ge=0)
    gp_returned: int = Field(ge=0)


@register_event
class WithdrawalMade(EventModel):
    type = "pf1.withdrawal_made"
    index: int
    bp: int = Field(ge=1)
    gp_paid: int
    unrest_delta: int


@register_event
class WithdrawalLoyaltyCheckRolled(EventModel):
    type = "pf1.withdrawal_loyalty_check_rolled"
    index: int
    check: KCheck
    unrest_delta: int


@register_event
class ItemSaleAttempted(EventModel):
    type = "pf1.item_sale_attempted"
    item: str
    value_gp: int
    category: Literal["minor", "medium", "major"]
    source: Literal["PC", "SLOT"]
    building: str | None = None
    slot: int | None = None
    check: KCheck | None = None
    bp_gained: int


@register_event
class IncomeCheckRolled(EventModel):
    type = "pf1.income_check_rolled"
    check: KCheck
    bp_gained: int


@register_event
class IncomeSkipped(EventModel):
    type = "pf1.income_skipped"
    reason: Literal["TREASURER_NOT_EFFECTIVE", "ANARCHY"]


@register_event
class MagicItemPurchased(EventModel):
    type = "pf1.magic_item_purchased"
    building: str
    slot: int
    price_gp: int | None = None


# ------------------------------------------------------------------ events and GM


@register_event
class EventChanceRolled(EventModel):
    type = "pf1.event_chance_rolled"
    d100: int = Field(ge=1, le=100)
    chance: int
    occurred: bool


@register_event
class KingdomEventDrawn(EventModel):
    type = "pf1.kingdom_event_drawn"
    event: str
    kind: str
    d100: int | None = None
    chosen_by: Literal["roll", "gm"] = "roll"


@register_event
class EventEffectApplied(EventModel):
    type = "pf1.event_effect_applied"
    event: str
    kind: Literal["ATTRIBUTE", "UNREST", "TREASURY", "FAME", "INFAMY"]
    attribute: str | None = None
    value: int
    first_turn: int | None = None
    last_turn: int | None = None


@register_event
class EventPhaseClosed(EventModel):
    type = "pf1.event_phase_closed"
    occurred: bool


@register_event
class GmAdjustment(EventModel):
    type = "pf1.gm_adjustment"
    field: Literal["treasury", "unrest"]
    delta: int
    reason: str = ""


# ------------------------------------------------------------------ optional modules


@register_event
class BuildingSupportLost(EventModel):
    type = "pf1.building_support_lost"
    building: str
    supporter: str
    gm_applies: bool
    d3: int | None = Field(None, ge=1, le=3)
    shutdown_due_turn: int | None = None


@register_event
class BuildingShutdownCancelled(EventModel):
    type = "pf1.building_shutdown_cancelled"
    building: str
    reason: str


@register_event
class BuildingAbandoned(EventModel):
    type = "pf1.building_abandoned"
    building: str
    unrest_delta: int = 1


@register_event
class BuildingReactivationAttempted(EventModel):
    type = "pf1.building_reactivation_attempted"
    building: str
    check: KCheck


@register_event
class ReligiousBuildingDedicated(EventModel):
    type = "pf1.religious_building_dedicated"
    building: str
    deity: str
    deity_alignment: str
    bonus_mode: Literal["standard", "alignment", "portfolio"]
    shrine_attribute: str | None = None
    portfolio: dict[str, int] = Field(default_factory=dict)


@register_event
class KingdomSettlementModifierAdjusted(EventModel):
    type = "pf1.kingdom_settlement_modifier_adjusted"
    modifier: Literal["corruption", "crime", "law", "lore", "productivity", "society"]
    delta: int
    source: str = ""


@register_event
class SettlementBaseDangerSet(EventModel):
    type = "pf1.settlement_base_danger_set"
    city: str
    base_danger: int


@register_event
class ForeignKingdomRegistered(EventModel):
    type = "pf1.foreign_kingdom_registered"
    kingdom: str
    name: str
    alignment: str
    size: int = Field(ge=1)
    economy: int | None = None
    stability: int | None = None
    is_npc: bool = True
    is_sponsor: bool = False
    attitude: str = "indifferent"


@register_event
class ThirdPartyRelationDeclared(EventModel):
    type = "pf1.third_party_relation_declared"
    a: str
    b: str
    level: Literal["none", "embassy", "treaty", "alliance"] = "none"
    enemy: bool = False


@register_event
class AttitudeChanged(EventModel):
    type = "pf1.attitude_changed"
    kingdom: str
    before: str
    after: str
    reason: str = "gm"


@register_event
class DiplomaticEdictResolved(EventModel):
    """One Diplomatic edict (optional §2.5), every check in it and its result."""

    type = "pf1.diplomatic_edict_resolved"
    version = 2
    target: str
    purpose: Literal["embassy", "threat", "treaty", "alliance", "rebalance", "renegotiate", "independence"]
    cost_roll: int = Field(ge=1, le=4)
    bribe_bp: int = Field(0, ge=0)
    dc_terms: dict[str, int]
    checks: tuple[SkillCheck, ...] = ()
    opposed: tuple[Opposed, ...] = ()
    successes: int = 0
    outcome: str
    attitude_after: str
    level_after: str
    fame_delta: int = 0
    infamy_delta: int = 0
    lockout: dict[str, int] = Field(default_factory=dict)
    war: bool = False
    terms: Terms | None = None
    estimate_roll: tuple[int, ...] = ()
    loyalty_check: KCheck | None = None
    """Renegotiation's Loyalty check (opt §2.5.6)."""
    unrest_delta: int = 0


@register_event
class RelationActionResolved(EventModel):
    """Closing an embassy, withdrawing from a treaty, attacking a partner, an ally's army stationed here
    (opt §2.5.6): the Loyalty check and the rolled Infamy/Unrest."""

    type = "pf1.relation_action_resolved"
    action: Literal["close_embassy", "withdraw_treaty", "attack", "ally_stationed"]
    target: str
    level_before: str
    check: KCheck | None = None
    infamy_dice: tuple[int, ...] = ()
    unrest_dice: tuple[int, ...] = ()
    infamy_delta: int = 0
    unrest_delta: int = 0
    level_after: str
    at_war: bool = False


@register_upcaster("pf1.diplomatic_edict_resolved", 1)
def upcast_diplomatic_edict_resolved_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
    """v2 added treaty renegotiation: its Loyalty check and Unrest (none in v1 payloads)."""
    return {**data, "loyalty_check": None, "unrest_delta": 0}


@register_event
class EmbassyBuildingAcquired(EventModel):
    type = "pf1.embassy_building_acquired"
    target: str
    settlement: str
    building_type: str
    cost_bp: int


@register_event
class ExplorationEdictIssued(EventModel):
    type = "pf1.exploration_edict_issued"
    expedition: str
    months: int = Field(ge=1)
    route: tuple[str, ...]
    cost_rolls: tuple[int, ...]


@register_event
class ExpeditionProgressed(EventModel):
    type = "pf1.expedition_progressed"
    expedition: str
    cr: float | None = None
    stealth: SkillCheck | None = None
    stability: KCheck | None = None
    outcome: Literal["progressed", "scattered", "lost", "returned"]
    discoveries: tuple[str, ...] = ()
    unrest_delta: int = 0


class PathStep(Frozen):
    """One hex of a trade path (optional §2.7.1 HexStep)."""

    terrain: Literal["plains", "desert", "forest", "hills", "marsh", "mountains", "jungle", "cavern", "water",
                     "coastline"] = "plains"
    road: bool = False
    highway: bool = False
    river: Literal["upstream", "downstream"] | None = None
    coastline: bool = False
    water: bool = False


@register_event
class TradeEdictIssued(EventModel):
    type = "pf1.trade_edict_issued"
    route: str
    route_type: Literal["food", "goods", "luxuries", "raw_materials"]
    partner: str
    origin: str
    destination: str
    path: tuple[PathStep, ...]
    invested_bp: int = Field(ge=5)
    trl_raw: float
    trl: int
    rm: int
    lm: int
    dc: int
    dc_terms: dict[str, int]
    travel_days: float
    arrival_turn: int


@register_event
class TradeExpeditionArrived(EventModel):
    type = "pf1.trade_expedition_arrived"
    route: str
    checks: tuple[KCheck, ...]
    successes: int = Field(ge=0, le=3)
    payout_rolls: tuple[tuple[int, ...], ...] = ()
    treasury_delta: int = 0
    fame_delta: int = 0
    unrest_delta: int = 0
    status: Literal["failed", "diverted", "established"]
    tier_economy: int = 0
    type_bonus: int = 0


@register_event
class TradeRouteExpired(EventModel):
    type = "pf1.trade_route_expired"
    route: str


@register_event
class FoodRouteConditionEvaluated(EventModel):
    type = "pf1.food_route_condition_evaluated"
    route: str
    raw_consumption: int
    active: bool


@register_event
class VassalageEdictIssued(EventModel):
    type = "pf1.vassalage_edict_issued"
    vassal: str
    mode: Literal["new_colony", "subjugation"]
    viceroy: str
    cost_roll: int = Field(ge=1, le=4)
    grant_bp: int = Field(ge=0)
    ceded_hexes: tuple[str, ...] = ()
    subjugated_size: int = 0
    initial_level: Literal["embassy", "treaty", "alliance"] = "embassy"
    terms: tuple[Terms, ...] = ()
    """Treaty and/or alliance terms of a new colony's relationship (automatic, opt §2.8)."""


@register_event
class SubjugationCheckRolled(EventModel):
    type = "pf1.subjugation_check_rolled"
    vassal: str
    check: KCheck
    unrest_roll: int | None = None
    unrest_delta: int = 0
    streak_after: int


@register_event
class RenownChanged(EventModel):
    type = "pf1.renown_changed"
    fame_delta: int = 0
    infamy_delta: int = 0
    source: str = ""


@register_event
class SizeMilestoneRenownChosen(EventModel):
    type = "pf1.size_milestone_renown_chosen"
    threshold: int
    choice: Literal["fame", "infamy"]


@register_event
class GovernmentFormChanged(EventModel):
    type = "pf1.government_form_changed"
    form: str
    reason: str = ""


class Daughter(Frozen):
    campaign: str
    hexes: tuple[str, ...]
    treasury_bp: int


@register_event
class IndependenceDeclared(EventModel):
    """This kingdom splits (optional §2.11); each daughter is another campaign id."""

    type = "pf1.independence_declared"
    daughters: tuple[Daughter, ...] = Field(min_length=2)
    non_structural_unrest: int = Field(ge=0)
    share: int
    kept_by: str | None = None
    """The daughter campaign id that keeps this log (None: this stream is closed)."""


@register_event
class UnionFormed(EventModel):
    """This kingdom joins a union (optional §2.11): members and the new campaign id."""

    type = "pf1.union_formed"
    members: tuple[str, ...] = Field(min_length=2)
    new_campaign: str
    non_structural_unrest: dict[str, int]
    union_unrest: int


@register_event
class LineageRecorded(EventModel):
    """Where this campaign came from (a daughter or a union founding, optional §2.11)."""

    type = "pf1.lineage_recorded"
    kind: Literal["split_from", "merged_from"]
    campaigns: tuple[str, ...] = Field(min_length=1)
    unrest_added: int = Field(ge=0)
    loyalty_bonus_turns: int = 0


@register_event
class TemporaryModifierApplied(EventModel):
    type = "pf1.temporary_modifier_applied"
    attribute: Literal["ECONOMY", "LOYALTY", "STABILITY"]
    value: int
    first_turn: int
    last_turn: int
    source: str
    roll: tuple[int, ...] = ()


@register_event
class SpecialEdictUsed(EventModel):
    """Marks the turn's one special edict (optional §1.4) when the edict itself is recorded elsewhere."""

    type = "pf1.special_edict_used"
    kind: Literal["diplomatic", "exploration", "trade", "vassalage"]


EVENT_TYPES: tuple[type[EventModel], ...] = tuple(
    cls for cls in list(globals().values())
    if isinstance(cls, type) and issubclass(cls, EventModel) and cls is not EventModel
)
