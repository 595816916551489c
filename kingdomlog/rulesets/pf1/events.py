"""PF1 event payloads (namespace ``pf1.``), after base spec §8.2 and optional spec §6.2.

Every die face and every derived number that decided an outcome is in the
payload, so the log is auditable without re-deriving the rules; ``evolve``
applies the recorded deltas.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from kingdomlog.core.events import EventModel, register_event, register_upcaster
from kingdomlog.core.foreign import GivenName, ImportedKingdom
from kingdomlog.core.model import Frozen
from kingdomlog.rulesets.pf1.state import Army, Commander, Terms


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


KINGDOM_NOT_IMPORTED = frozenset({"campaign", "options", "catalog", "modules"})
"""State fields an import never carries: the campaign's own (id, options, rules catalogue, modules)."""


@register_event
class KingdomImported(ImportedKingdom):
    """A kingdom kept by another tool (the PF1 kingdom sheet), recorded as it stood when it was imported (issue 32).

    ``kingdom``: the state's fields but the campaign's own; the fold takes them as they are. ``unmapped``: what the
    source held that kingdomlog does not (the import's report), kept with the fact.
    """

    type = "pf1.kingdom_imported"
    not_imported = KINGDOM_NOT_IMPORTED

    @classmethod
    def check_state(cls, kingdom: dict[str, Any]) -> None:
        from kingdomlog.rulesets.pf1.state import Pf1State
        from kingdomlog.rulesets.pf1.tables import base_catalog

        Pf1State.model_validate({**kingdom, "campaign": "-", "options": {}, "catalog": base_catalog()})


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
class Named(GivenName):
    """The GM named a city or a leader that came without a name (the PF1 kingdom sheet keeps only its actors'
    ids): ``id`` is the city's id or the leader's Foundry actor id."""

    type = "pf1.named"
    what: Literal["city", "leader"]


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
class ActingRulerNamed(EventModel):
    """The Consort or the Heir acts as the Ruler while the Ruler is unavailable (UC); None: no stand-in."""

    type = "pf1.acting_ruler_named"
    role: Literal["CONSORT", "HEIR"] | None


@register_event
class ActingRulerCheckRolled(EventModel):
    """UC: a Consort or Heir acting as the Ruler negates the Ruler's vacancy Unrest +4, but a failed Loyalty check
    at Upkeep gives Unrest +1."""

    type = "pf1.acting_ruler_check_rolled"
    role: str
    check: KCheck
    unrest_delta: int


@register_event
class RoyalEnforcerActed(EventModel):
    """UC Royal Enforcer: Unrest −1 at Upkeep; a failed Loyalty check costs Loyalty −1 (lasting)."""

    type = "pf1.royal_enforcer_acted"
    unrest_delta: int
    check: KCheck
    loyalty_delta: int


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
    """A building built (base §4.3 I6). v2 records its magic item slots (``slots``, by category) and whether it
    counted against the month's limit (``uncounted``: the first House/Mansion/Noble Villa/Tenement of a month,
    option first_house_free); v1 payloads (slots None) take the slots of the catalogue as before."""

    type = "pf1.building_constructed"
    version = 2
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
    slots: tuple[Literal["minor", "medium", "major"], ...] | None = None
    uncounted: bool = False


@register_upcaster("pf1.building_constructed", 1)
def upcast_building_constructed_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
    """v2 added the recorded slots and ``uncounted``; a v1 event's slots are the catalogue's (None)."""
    return {**data, "slots": None, "uncounted": False}


@register_event
class BuildingUpgraded(EventModel):
    """A building upgraded to another (UC Upgrade To/From): pays the cost difference, keeps its id and dedication,
    takes the new type's lots, slots and (once) its Unrest; counts against the month's building limit."""

    type = "pf1.building_upgraded"
    building: str
    from_type: str
    to_type: str
    lots: tuple[int, ...]
    cost_bp: int = Field(ge=0)
    unrest_delta: int
    slots: tuple[Literal["minor", "medium", "major"], ...] = ()


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
    """v2: ``shared`` (the improvement shares the hex, UC) and ``replaces`` (the improvement it upgrades)."""

    type = "pf1.hex_improvement_built"
    version = 2
    hex: str
    kind: str
    cost_bp: int
    unrest_delta: int = 0
    shared: bool = False
    replaces: str | None = None


@register_upcaster("pf1.hex_improvement_built", 1)
def upcast_hex_improvement_built_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
    """v1 improvements were the hex's one improvement."""
    return {**data, "shared": False, "replaces": None}


@register_event
class TerrainIncomeCollected(EventModel):
    """BP earned with the taxes from terrain improvements (UC Mine, Quarry, Sawmill) and Foundries."""

    type = "pf1.terrain_income_collected"
    bp: int = Field(ge=0)
    sources: dict[str, int] = Field(default_factory=dict)


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


class AppliedEffect(Frozen):
    """One effect of an Ultimate Campaign event as decided: its final value, the dice behind it, its months."""

    kind: str
    target: str | None = None
    value: int = 0
    dice: tuple[int, ...] = ()
    first_turn: int | None = None
    last_turn: int | None = None
    city: str | None = None
    note: str = ""


@register_event
class UcEventResolved(EventModel):
    """An Ultimate Campaign event (table ``uc``) resolved: the table rolls, its checks, the outcome and every
    effect with its value; ``ongoing`` says whether a continuous event goes on to the next Event phase."""

    type = "pf1.uc_event_resolved"
    event: str
    kind: Literal["beneficial", "harmful"]
    rolls: tuple[tuple[str, int], ...] = ()
    """(table, d100) pairs that chose it: top, kb, kd, sb, sd (empty: the GM chose it, or it went on)."""
    localized: Literal["kingdom", "settlement", "hex"] = "kingdom"
    city: str | None = None
    continuing: bool = False
    resolution: Literal["checks", "party", "decline"] = "checks"
    checks: tuple[KCheck, ...] = ()
    outcome: Literal["none", "success", "partial", "failure"] = "none"
    effects: tuple[AppliedEffect, ...] = ()
    ongoing: bool = False
    streak: int = 0


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
    """v2 records the kingdom-level settlement modifiers the building adds (its lines + Society +2, opt §2.5.6);
    v1 payloads (None) take them from the catalogue as before."""

    type = "pf1.embassy_building_acquired"
    version = 2
    target: str
    settlement: str
    building_type: str
    cost_bp: int
    settlement_delta: dict[str, int] | None = None


@register_upcaster("pf1.embassy_building_acquired", 1)
def upcast_embassy_building_acquired_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
    return {**data, "settlement_delta": None}


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


@register_event
class ExpeditionFeatureSearched(EventModel):
    """A day's Knowledge (geography) or Survival check for a hidden feature of a hex (opt §2.6 rule 3)."""

    type = "pf1.expedition_feature_searched"
    expedition: str
    hex: str
    day: int = Field(ge=1)
    check: SkillCheck
    feature: str
    found: bool
    mapped: bool = False
    """The feature is added to the hex's map features (a mapped hex; LAIR, LANDMARK or RESOURCE)."""


@register_event
class AidRefused(EventModel):
    """An ally failed to send aid when called: the ally's Infamy +1d4 if the GM applies it (opt §2.5.6)."""

    type = "pf1.aid_refused"
    ally: str
    gm_applies: bool
    d4: int | None = Field(None, ge=1, le=4)
    infamy_delta: int = 0


@register_event
class ForeignEmbassyBuilt(EventModel):
    """Another kingdom builds its embassy (a Mansion or Noble Villa) in one of our settlements (opt §2.5.6): its
    lots are theirs; the bonuses are that kingdom's, not ours."""

    type = "pf1.foreign_embassy_built"
    kingdom: str
    building: str
    city: str
    district: str
    building_type: str
    lots: tuple[int, ...]


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


# ------------------------------------------------------------------ mass combat (UC Kingdoms and War, Mass Combat)


@register_event
class ArmyRecruited(EventModel):
    """An army raised (Edict step 6: in place of a new settlement, base §6.5 / UC Improvement Edicts note 1), or an
    enemy army the GM puts on the map (``counts_against_limit`` False). Its numbers are recorded as computed."""

    type = "pf1.army_recruited"
    army: Army
    counts_against_limit: bool = True
    cost_bp: int = Field(0, ge=0)


@register_event
class ArmyEquipped(EventModel):
    """A resource bought for an army (UC Army Resources): its BP (scaled by size) and what it adds, as recorded."""

    type = "pf1.army_equipped"
    army: str
    resource: str
    count: int = Field(1, ge=1)
    cost_bp: int = Field(ge=0)
    om_delta: int = 0
    dv_delta: int = 0
    consumption_delta: int = 0
    ranged: bool = False
    counts_against_limit: bool = True


@register_event
class ArmyCommanderAssigned(EventModel):
    type = "pf1.army_commander_assigned"
    army: str
    commander: Commander | None


@register_event
class ArmyChanged(EventModel):
    """An army's hit points, Morale, status, reserve or hex changed (healed to full strength, disbanded, put in
    reserve, moved, Morale lost or regained) with the rule that did it."""

    type = "pf1.army_changed"
    army: str
    reason: str
    hp: int | None = None
    morale_delta: int = 0
    status: Literal["active", "routed", "defeated", "disbanded"] | None = None
    reserve: bool | None = None
    hex: str | None = None
    unpaid: bool | None = None
    tactic_learned: str | None = None
    counts_against_limit: bool = False
    cost_bp: int = Field(0, ge=0)


@register_event
class ArmyReorganized(EventModel):
    """UC optional mass combat rules: an army reformed (one size smaller, full hp, Morale −1), split (two armies one
    size smaller, the same share of hp, Morale −1 each) or two combined (one size larger, hp share and Morale
    averaged); the armies as they are after, with every number recomputed for their size."""

    type = "pf1.army_reorganized"
    kind: Literal["reform", "split", "combine"]
    removed: tuple[str, ...]
    armies: tuple[Army, ...]


@register_event
class ArmyUpkeepPaid(EventModel):
    """Armies' Consumption for the month (per week × weeks, a reserve army once a month), paid or not."""

    type = "pf1.army_upkeep_paid"
    per_army: dict[str, int]
    weeks: int
    total: int
    paid: bool
    foraging: tuple[str, ...] = ()
    """Armies living off the land this month: Consumption halved (the Live off the Land boon)."""


@register_event
class ArmyRallyCheckRolled(EventModel):
    """A routed army fights again after a successful Loyalty check at Upkeep (once per turn)."""

    type = "pf1.army_rally_check_rolled"
    army: str
    check: KCheck


class MoraleCheck(Frozen):
    purpose: str
    d20: int = Field(ge=1, le=20)
    modifier: int
    dc: int
    success: bool


class Offense(Frozen):
    d20: int = Field(ge=1, le=20)
    om: int
    total: int
    target_dv: int
    damage: int
    extra_dice: tuple[int, ...] = ()


class PhaseSide(Frozen):
    """One army in one battle phase: what it used, what it rolled, what it suffered."""

    army: str
    tactic: str
    strategy: str | None = None
    om: int
    dv: int
    offense: Offense | None = None
    morale_checks: tuple[MoraleCheck, ...] = ()
    hp_before: int
    hp_after: int
    status: Literal["fighting", "routed", "defeated", "withdrew"] = "fighting"
    notes: tuple[str, ...] = ()
    target: str | None = None
    """The army it attacked, in a battle of more than two armies (UC More Than Two Armies)."""


@register_event
class BattlePhaseResolved(EventModel):
    """One phase of a battle (UC Battle Phases): tactics (an ambush), ranged, or a melee round, or the parting shot
    at a routed army; both armies' numbers, rolls and hit points as decided."""

    type = "pf1.battle_phase_resolved"
    battle: str
    index: int = Field(ge=0)
    kind: Literal["tactics", "ranged", "melee", "parting_shot"]
    sides: tuple[PhaseSide, ...]


class ArmyOutcome(Frozen):
    army: str
    result: Literal["victorious", "routed", "defeated", "withdrew", "undecided"]
    hp_after: int
    morale_delta: int = 0
    tactic_learned: str | None = None
    boon_learned: str | None = None
    loyalty_checks: tuple[KCheck, ...] = ()
    commander_fate: Literal["killed", "captured", "escaped"] | None = None
    fate_roll: int | None = Field(None, ge=1, le=100)


@register_event
class BattleEnded(EventModel):
    """A battle's aftermath (UC Victory, Rout, or Defeat): each army's result, the victor's Loyalty checks (a tactic,
    a boon), a defeated army of ours costing Economy, Loyalty and Stability by its size."""

    type = "pf1.battle_ended"
    battle: str
    hex: str | None = None
    outcomes: tuple[ArmyOutcome, ...]
    kingdom_losses: dict[str, int] = Field(default_factory=dict)


@register_event
class ArmyRulingNeeded(EventModel):
    """An army special ability whose effect the rules cannot decide by themselves (UC Mass Combat: Special
    Abilities; the data says why): the GM rules on it. Recorded when it matters, in a battle or when the army is
    raised; it changes nothing by itself."""

    type = "pf1.army_ruling_needed"
    army: str
    ability: str
    ruling: str
    battle: str | None = None


EVENT_TYPES: tuple[type[EventModel], ...] = tuple(
    cls for cls in list(globals().values())
    if isinstance(cls, type) and issubclass(cls, EventModel) and cls not in (EventModel, ImportedKingdom, GivenName)
)
