"""Event payloads of the pf2e-kingmaker ruleset (namespace ``pf2e.``), after spec §7.2.

Granular state-change events, each with a ``cause``; checks record the natural
d20, the DC and every modifier term, so a replay shows exactly why state changed.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from kingdomlog.core.events import EventModel, register_event, register_upcaster
from kingdomlog.core.model import Frozen

Degree = Literal["critical_failure", "failure", "success", "critical_success"]


class TermOut(Frozen):
    """One term of a recorded modifier or DC."""

    label: str
    value: int
    kind: str = "untyped"


class HexIn(Frozen):
    """A hex as recorded when it enters the kingdom; ``q``/``r``: its axial coordinates (None: unplaced).

    Logs written before hex coordinates carry none: their hexes stay unplaced until a ``HexPlaced``
    event puts them on the map.
    """

    id: str = Field(min_length=1)
    terrain: Literal["plains", "hills", "forest", "swamp", "mountains"] = "plains"
    river: bool = False
    lake: bool = False
    features: list[str] = Field(default_factory=list)
    resource: Literal["", "lumber", "ore", "stone"] = ""
    q: int | None = None
    r: int | None = None


class LeaderIn(Frozen):
    """A leader as recorded at founding."""

    holder: str | None = None
    kind: Literal["pc", "npc"] = "pc"
    invested: bool = False


@register_event
class KingdomFounded(EventModel):
    """v2: founding hexes may carry axial coordinates (v1 hexes are unplaced)."""

    type = "pf2e.kingdom_founded"
    version = 2
    name: str
    charter: str
    heartland: str
    government: str
    fame_type: Literal["fame", "infamy"] = "fame"
    boosts: list[str] = Field(default_factory=list)
    """Where each boost/flaw came from, e.g. "charter:loyalty", "flaw:culture"."""
    scores: dict[str, int]
    skills: dict[str, str]
    feats: list[str] = Field(default_factory=list)
    leaders: dict[str, LeaderIn]
    hexes: list[HexIn]
    settlement_id: str
    settlement_name: str
    settlement_hex: str
    commodities: dict[str, int] = Field(default_factory=dict)
    starting_rp: int = 0
    party_level: int = 1
    structures: list[str] = Field(default_factory=list)
    """Structures standing in the first settlement at founding (GM setup), lot by lot from lot 0."""
    resume_turn: int = 0
    """For a kingdom imported mid-campaign: the kingdom turn already played (0 = new kingdom)."""
    xp: int = 0
    unrest: int = 0
    ruin_points: dict[str, int] = Field(default_factory=dict)
    event_dc: int = 16
    rules_version: str = "pf2e-kingmaker spec 2026-11"


@register_event
class TurnStarted(EventModel):
    type = "pf2e.turn_started"
    turn: int = Field(ge=1)
    party_level: int = Field(ge=1, le=20)
    fame_before: int
    fame_gained: int
    fame_after: int


@register_event
class LeaderChanged(EventModel):
    type = "pf2e.leader_changed"
    role: str
    holder: str | None
    kind: Literal["pc", "npc"] = "pc"
    invested: bool = False
    leadership_modifier: int = 0
    leadership_modifier_until: int = 0
    cause: str = "new_leadership"


@register_event
class LeaderDowntime(EventModel):
    type = "pf2e.leader_downtime"
    role: str
    spent_week: bool
    choice: Literal["none", "forfeit_activity", "vacancy_penalty"] = "none"


@register_event
class ConsumptionPaid(EventModel):
    """U4: Consumption paid in Food, then the remainder in RP (5 each) or 1d4 Unrest (§3.1 U4)."""

    type = "pf2e.consumption_paid"
    consumption: int
    terms: list[TermOut] = Field(default_factory=list)
    food: int = 0
    remainder: int = 0
    method: Literal["none", "rp", "unrest"] = "none"
    rp: int = 0
    unrest_faces: list[int] = Field(default_factory=list)


@register_event
class CheckResolved(EventModel):
    type = "pf2e.check_resolved"
    check_id: str
    activity: str
    category: str
    role: str = ""
    settlement: str = ""
    target: str = ""
    skill: str
    ability: str
    dc: int
    dc_terms: list[TermOut] = Field(default_factory=list)
    die: int = Field(ge=1, le=20)
    modifier: int
    terms: list[TermOut] = Field(default_factory=list)
    total: int
    base_degree: Degree
    anarchy: bool = False
    worsened: int = 0
    """Further degrees lost by a rule (Tap Treasury with a debt outstanding: 2)."""
    degree: Degree
    fame_reroll_of: int | None = None
    """The first d20 if a Fame point re-rolled this check (§3.0.8)."""


@register_event
class FlatCheckResolved(EventModel):
    type = "pf2e.flat_check"
    purpose: str
    dc: int
    die: int = Field(ge=1, le=20)
    success: bool


@register_event
class ResourceDiceRolled(EventModel):
    type = "pf2e.resource_dice_rolled"
    dice: int = Field(ge=0)
    die: int
    faces: list[int]
    total: int
    pending_rp: int = 0
    rp_after: int


@register_event
class RPChanged(EventModel):
    type = "pf2e.rp_changed"
    delta: int
    cause: str
    forced: bool = False
    faces: list[int] = Field(default_factory=list)


@register_event
class CommodityChanged(EventModel):
    type = "pf2e.commodity_changed"
    commodity: Literal["food", "lumber", "luxuries", "ore", "stone"]
    delta: int
    cause: str
    lost_to_cap: int = 0
    faces: list[int] = Field(default_factory=list)


@register_event
class UnrestChanged(EventModel):
    type = "pf2e.unrest_changed"
    delta: int
    cause: str
    faces: list[int] = Field(default_factory=list)


@register_event
class RuinChanged(EventModel):
    type = "pf2e.ruin_changed"
    ruin: Literal["corruption", "crime", "decay", "strife"]
    delta: int
    cause: str
    penalty_averted: bool = False
    faces: list[int] = Field(default_factory=list)


@register_event
class RuinPenaltyChanged(EventModel):
    type = "pf2e.ruin_penalty_changed"
    ruin: Literal["corruption", "crime", "decay", "strife"]
    delta: int
    cause: str


@register_event
class FameChanged(EventModel):
    type = "pf2e.fame_changed"
    delta: int
    reason: str


@register_event
class FameSpent(EventModel):
    type = "pf2e.fame_spent"
    kind: Literal["anarchy", "ruin_penalty", "reroll"]
    points: int = Field(ge=1)


@register_event
class ModifierAdded(EventModel):
    type = "pf2e.modifier_added"
    id: str
    source: str
    kind: Literal["circumstance", "status", "item", "untyped"] = "circumstance"
    value: int
    selector: str
    expires: Literal["end_of_this_turn", "end_of_next_turn", "start_of_next_turn"] = "end_of_this_turn"


@register_event
class PendingAdded(EventModel):
    type = "pf2e.pending_added"
    kind: Literal["bonus_dice", "penalty_dice", "rp", "fame", "consumption", "commodity"]
    amount: int
    commodity: str = ""
    cause: str = ""


@register_event
class CooldownSet(EventModel):
    type = "pf2e.cooldown_set"
    key: str
    blocked_through_turn: int


@register_event
class HexClaimed(EventModel):
    """v2: the hex may carry axial coordinates (a v1 claim leaves the hex as it was on the map, or unplaced)."""

    type = "pf2e.hex_claimed"
    version = 2
    hex: HexIn
    via: str = "claim_hex"
    xp: int = 10


@register_event
class HexPlaced(EventModel):
    """The GM puts a hex on the map at axial ``(q, r)`` (issue 13): a hex the kingdom already knows gets its
    coordinates (and any facts given here), a new one enters the map unclaimed. Facts left ``None`` keep
    what the hex had (a new hex: plains, no river, lake, features or resource)."""

    type = "pf2e.hex_placed"
    hex_id: str = Field(min_length=1)
    q: int
    r: int
    terrain: Literal["plains", "hills", "forest", "swamp", "mountains"] | None = None
    river: bool | None = None
    lake: bool | None = None
    features: list[str] | None = None
    resource: Literal["", "lumber", "ore", "stone"] | None = None


@register_event
class HexLost(EventModel):
    type = "pf2e.hex_lost"
    hex_id: str
    cause: str = "unrest"


@register_event
class WorkSiteEstablished(EventModel):
    type = "pf2e.work_site_established"
    hex_id: str
    commodity: Literal["lumber", "ore", "stone"]
    double_until_turn: int = 0


@register_event
class FarmlandEstablished(EventModel):
    type = "pf2e.farmland_established"
    hex_ids: list[str]
    settlement: str
    distance: int = 0


@register_event
class RoadsBuilt(EventModel):
    type = "pf2e.roads_built"
    hex_ids: list[str]
    bridge_added: bool = False


@register_event
class SettlementFounded(EventModel):
    type = "pf2e.settlement_founded"
    id: str
    name: str
    hex_id: str
    capital: bool = False


@register_event
class StructureBuilt(EventModel):
    type = "pf2e.structure_built"
    settlement: str
    structure: str
    block: int
    lots: list[int]
    residential: bool = False
    storage: dict[str, int] = Field(default_factory=dict)
    seat: bool = False
    consumption_reduction: int = 0
    item_bonuses: dict[str, int] = Field(default_factory=dict)
    replaces: str = ""


@register_event
class InfrastructureBuilt(EventModel):
    """Infrastructure (lots = 0) built on the settlement as a whole, on one block, or on one border."""

    type = "pf2e.infrastructure_built"
    settlement: str
    structure: str
    placement: Literal["settlement", "block", "border"]
    block: int = -1
    border: Literal["", "north", "east", "south", "west"] = ""
    storage: dict[str, int] = Field(default_factory=dict)
    consumption_reduction: int = 0
    item_bonuses: dict[str, int] = Field(default_factory=dict)
    replaces: str = ""


@register_event
class StructureNotBuilt(EventModel):
    type = "pf2e.structure_not_built"
    settlement: str
    structure: str
    block: int
    lots: list[int]
    rubble: bool


@register_event
class LotsCleared(EventModel):
    type = "pf2e.lots_cleared"
    settlement: str
    block: int
    lots: list[int]


@register_event
class RandomEventChecked(EventModel):
    type = "pf2e.random_event_checked"
    dc: int
    die: int = Field(ge=1, le=20)
    occurred: bool
    new_dc: int


@register_event
class KingdomEventOccurred(EventModel):
    type = "pf2e.kingdom_event_occurred"
    name: str
    modifier: int = 0
    selection: Literal["gm", "table"] = "gm"
    target: str = "kingdom"


@register_event
class KingdomEventResolved(EventModel):
    type = "pf2e.kingdom_event_resolved"
    name: str
    degree: Degree | None = None
    continues: bool = False
    unrest_per_turn: int = 0
    consumption_delta: int = 0


@register_event
class XPAwarded(EventModel):
    type = "pf2e.xp_awarded"
    amount: int
    source: str
    to_pending: bool = False


@register_event
class XPApplied(EventModel):
    """E3: the XP pending this turn (hex claims) moves to the total."""

    type = "pf2e.xp_applied"
    amount: int


@register_event
class MilestoneAchieved(EventModel):
    type = "pf2e.milestone_achieved"
    milestone: str
    xp: int


@register_event
class RPConverted(EventModel):
    type = "pf2e.rp_converted"
    rp: int
    xp: int
    discarded: int


@register_event
class LeveledUp(EventModel):
    type = "pf2e.leveled_up"
    level_from: int
    level_to: int
    features: list[str] = Field(default_factory=list)
    ruin_resistance: str = ""
    skill_increase: str = ""
    feat: str = ""
    feat_skill: str = ""
    boosts: list[str] = Field(default_factory=list)


@register_event
class RelationsChanged(EventModel):
    type = "pf2e.relations_changed"
    group: str
    kind: Literal["trade_agreement", "diplomatic_relations"]
    added: bool = True


@register_event
class WarStatusChanged(EventModel):
    type = "pf2e.war_status_changed"
    at_war: bool


@register_event
class ArmyChanged(EventModel):
    type = "pf2e.army_changed"
    army: str
    consumption: int | None = None
    """None removes the army."""


@register_event
class TreasuryDebtChanged(EventModel):
    type = "pf2e.treasury_debt_changed"
    outstanding: bool


@register_event
class CropFailureWatch(EventModel):
    type = "pf2e.crop_failure_watch"
    hex_id: str
    turns: int


@register_event
class ExtraActivityGranted(EventModel):
    """One more activity of ``category`` this turn (Claim Hex critical success, §5.9)."""

    type = "pf2e.extra_activity_granted"
    category: Literal["region"] = "region"
    cause: str = ""


@register_event
class FeatureUsed(EventModel):
    """A one-time terrain feature is used up (the Ruins under a structure built at half cost, §4.9)."""

    type = "pf2e.feature_used"
    hex_id: str
    feature: Literal["ruins"] = "ruins"
    cause: str = ""


@register_event
class GainIgnored(EventModel):
    """Envy of the World (level 20, §5.5): the turn's first Unrest or Ruin gain is ignored."""

    type = "pf2e.gain_ignored"
    kind: Literal["unrest", "ruin"]
    amount: int
    cause: str = ""


@register_event
class ActivityWithoutCheck(EventModel):
    """An activity whose data says no check is made (dc = "none"): its outcome applies directly."""

    type = "pf2e.activity_without_check"
    activity: str
    category: str
    role: str = ""
    settlement: str = ""
    target: str = ""


@register_event
class ActivityUnlocked(EventModel):
    """The GM unlocks an activity by story (its data says unlocked_by = "gm", or any other lock)."""

    type = "pf2e.activity_unlocked"
    activity: str
    cause: str = "gm"


@register_event
class TurnEnded(EventModel):
    type = "pf2e.turn_ended"
    turn: int
    fame_lost: int = 0
    modifiers_expired: list[str] = Field(default_factory=list)


EVENT_TYPES: tuple[type[EventModel], ...] = (
    KingdomFounded, TurnStarted, ConsumptionPaid, LeaderChanged, LeaderDowntime, CheckResolved, FlatCheckResolved,
    ResourceDiceRolled, RPChanged, CommodityChanged, UnrestChanged, RuinChanged, RuinPenaltyChanged,
    FameChanged, FameSpent, ModifierAdded, PendingAdded, CooldownSet, HexClaimed, HexLost, HexPlaced,
    WorkSiteEstablished, FarmlandEstablished, RoadsBuilt, SettlementFounded, StructureBuilt,
    StructureNotBuilt, LotsCleared, RandomEventChecked, KingdomEventOccurred, KingdomEventResolved,
    XPAwarded, XPApplied, MilestoneAchieved, RPConverted, LeveledUp, RelationsChanged, WarStatusChanged,
    ArmyChanged, TreasuryDebtChanged, CropFailureWatch, ExtraActivityGranted, FeatureUsed, GainIgnored,
    ActivityWithoutCheck, InfrastructureBuilt, ActivityUnlocked, TurnEnded,
)


def _same(data: dict[str, object]) -> dict[str, object]:
    """v1 -> v2 of an event whose v2 only adds optional coordinates: the v1 payload reads as it is."""
    return data


register_upcaster(KingdomFounded.type, 1)(_same)
register_upcaster(HexClaimed.type, 1)(_same)
