"""Event payloads of the pf2e-kingmaker ruleset (namespace ``pf2e.``), after spec §7.2.

Granular state-change events, each with a ``cause``; checks record the natural
d20, the DC and every modifier term, so a replay shows exactly why state changed.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from kingdomlog.core.events import EventModel, register_event, register_upcaster
from kingdomlog.core.foreign import GivenName, ImportedKingdom
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


class StackingFacts(Frozen):
    """How a structure's numbers combine with identical ones, recorded when it is built (§5.10, §5.15)."""

    edifice: bool = False
    reduction_stacks: bool = False
    item_bonus_stacks: bool = True
    reduction_when: str = ""


class FoundingStructure(Frozen):
    """A structure standing at founding, with the numbers the data gave it then."""

    name: str
    residential: bool = False
    storage: dict[str, int] = Field(default_factory=dict)
    seat: bool = False
    consumption_reduction: int = 0
    item_bonuses: dict[str, int] = Field(default_factory=dict)
    stacking: StackingFacts | None = None


@register_event
class KingdomFounded(EventModel):
    """v2: founding hexes may carry axial coordinates (v1 hexes are unplaced). v3: the founding structures'
    numbers, the government feat's choices and the Ruin thresholds are recorded."""

    type = "pf2e.kingdom_founded"
    version = 3
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
    structure_facts: list[FoundingStructure] | None = None
    """v3: the numbers of each founding structure as the data gave them (a v1/v2 founding looked them up)."""
    feat_choices: dict[str, list[str]] = Field(default_factory=dict)
    """v3: what the kingdom chose for its government's feat (Muddle Through's Ruins ...)."""
    thresholds: dict[str, int] | None = None
    """v3: the Ruin thresholds the founding sets (Muddle Through), recorded."""


KINGDOM_NOT_IMPORTED = frozenset({"campaign", "options", "homebrew"})
"""State fields an import never carries: the campaign's own (its id, its options, its data files)."""


@register_event
class KingdomImported(ImportedKingdom):
    """A kingdom kept by another tool (pf2e-kingmaker-tools, the PF2e system), as it stood when imported (issue 32).

    ``kingdom``: a ``KingdomState``'s stored fields without its campaign, options and homebrew (the campaign's).
    """

    type = "pf2e.kingdom_imported"
    not_imported = KINGDOM_NOT_IMPORTED

    @classmethod
    def check_state(cls, kingdom: dict[str, Any]) -> None:
        from kingdomlog.rulesets.pf2e.state import KingdomState

        KingdomState.model_validate(kingdom)


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
    """v2: where the check happened (``settlement``, ``hex``: the structures whose bonuses reached it), the
    once-modifiers it used up, the boon it used and whether Kingdom Assurance replaced the roll."""

    type = "pf2e.check_resolved"
    version = 2
    check_id: str
    activity: str
    category: str
    role: str = ""
    settlement: str = ""
    hex: str = ""
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
    """The first d20 if a Fame point (or a boon: a re-roll, roll twice, a second roll) re-rolled this check."""
    consumed: list[str] = Field(default_factory=list)
    """Modifiers lasting for one check (``once``) this check used up."""
    boon: str = ""
    assurance: bool = False
    """Kingdom Assurance (§5.5): no roll; the recorded die is 10 and the modifier the proficiency bonus."""


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
    no_xp: bool = False
    """RP that do not become XP at the end of the turn if unspent (Request Foreign Aid)."""


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
    """v2: ``unrest_after`` records the Unrest after the change (floor 0 and the option unrest_cap applied);
    a v1 event leaves the fold to derive it as it did."""

    type = "pf2e.unrest_changed"
    version = 2
    delta: int
    cause: str
    faces: list[int] = Field(default_factory=list)
    unrest_after: int | None = None


@register_event
class RuinChanged(EventModel):
    """v2: ``points_after`` / ``penalty_after`` record the Ruin after the change (overflow, its penalty, the
    penalty cap and the options applied); a v1 event leaves the fold to derive them as it did."""

    type = "pf2e.ruin_changed"
    version = 2
    ruin: Literal["corruption", "crime", "decay", "strife"]
    delta: int
    cause: str
    penalty_averted: bool = False
    faces: list[int] = Field(default_factory=list)
    points_after: int | None = None
    penalty_after: int | None = None


@register_event
class RuinPenaltyChanged(EventModel):
    type = "pf2e.ruin_penalty_changed"
    ruin: Literal["corruption", "crime", "decay", "strife"]
    delta: int
    cause: str


@register_event
class FameChanged(EventModel):
    """v2: ``fame_after`` records Fame after the change (the cap applied)."""

    type = "pf2e.fame_changed"
    version = 2
    delta: int
    reason: str
    fame_after: int | None = None


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
    expires: Literal["end_of_this_turn", "end_of_next_turn", "start_of_next_turn", "once",
                     "permanent"] = "end_of_this_turn"


@register_event
class ModifierRemoved(EventModel):
    """A lasting modifier ends (an event bonus whose condition no longer holds, a GM's ruling)."""

    type = "pf2e.modifier_removed"
    id: str
    cause: str = ""


@register_event
class PendingAdded(EventModel):
    type = "pf2e.pending_added"
    kind: Literal["bonus_dice", "penalty_dice", "rp", "fame", "consumption", "commodity", "halve_dice"]
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
    """The GM puts a hex on the map at axial ``(q, r)`` (choice ``map``): a hex the kingdom already knows gets its
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
    """v2: ``stacking`` records the edifice trait, the stacking flags and the surroundings a consumption
    reduction needs; ``cause`` says why it stands (built, a free structure of a Bridge or Structure hex, an
    event's gift). A v1 structure combines as before (its reductions add up)."""

    type = "pf2e.structure_built"
    version = 2
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
    stacking: StackingFacts | None = None
    cause: str = "built"


@register_event
class InfrastructureBuilt(EventModel):
    """Infrastructure (lots = 0) built on the settlement as a whole, on one block, or on one border.

    v2: ``stacking`` and ``cause`` as for StructureBuilt."""

    type = "pf2e.infrastructure_built"
    version = 2
    settlement: str
    structure: str
    placement: Literal["settlement", "block", "border"]
    block: int = -1
    border: Literal["", "north", "east", "south", "west"] = ""
    storage: dict[str, int] = Field(default_factory=dict)
    consumption_reduction: int = 0
    item_bonuses: dict[str, int] = Field(default_factory=dict)
    replaces: str = ""
    stacking: StackingFacts | None = None
    cause: str = "built"


@register_event
class StructureDamaged(EventModel):
    """A structure is damaged (not rubble): it gives nothing until repaired (§4.9)."""

    type = "pf2e.structure_damaged"
    settlement: str
    structure: str
    block: int = -1
    border: str = ""
    cause: str = ""


@register_event
class StructureRepaired(EventModel):
    """A damaged structure is repaired (Build Structure on it: half the cost, +2 item bonus, §4.9)."""

    type = "pf2e.structure_repaired"
    settlement: str
    structure: str
    block: int = -1
    border: str = ""


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
class LotsRubbled(EventModel):
    """Lots reduced to rubble by an event's damage (AoN 1836): a structure standing there is destroyed; a lot
    of rubble must be cleared (Demolish) before anything is built on it."""

    type = "pf2e.lots_rubbled"
    settlement: str
    block: int
    lots: list[int]
    cause: str = ""


@register_event
class RuinThresholdChanged(EventModel):
    """A Ruin's threshold changes by a rule (Muddle Through, a feat or an event), with the threshold after."""

    type = "pf2e.ruin_threshold_changed"
    ruin: Literal["corruption", "crime", "decay", "strife"]
    delta: int
    threshold_after: int
    cause: str = ""


@register_event
class RandomEventChecked(EventModel):
    type = "pf2e.random_event_checked"
    dc: int
    die: int = Field(ge=1, le=20)
    occurred: bool
    new_dc: int
    table: Literal["kingdom", "cult"] = "kingdom"
    """Which check: the random kingdom event (§3.4 E1) or a Cult of the Bloom event (option cult_events)."""
    forced: str = ""
    """A rule that makes the event occur whatever the die (Prognostication's critical failure)."""


@register_event
class KingdomEventOccurred(EventModel):
    type = "pf2e.kingdom_event_occurred"
    name: str
    modifier: int = 0
    selection: Literal["gm", "table", "scheduled", "players"] = "gm"
    target: str = "kingdom"
    table_rolls: list[int] = Field(default_factory=list)
    """The d100 rolls on the random kingdom event table (two when Prognostication lets a side choose)."""
    settlement: str = ""
    hex: str = ""
    """Where the event strikes (a settlement or hex event): its checks take item bonuses only from there."""


@register_event
class KingdomEventResolved(EventModel):
    type = "pf2e.kingdom_event_resolved"
    name: str
    degree: Degree | None = None
    continues: bool = False
    unrest_per_turn: int = 0
    consumption_delta: int = 0
    stage: int = 0
    """The stage the continuing event is in next (Cult Activity: found, then to defeat)."""
    failures: int = 0
    """Consecutive failures so far (Economic Surge ends after two)."""
    settlement: str = ""
    hex: str = ""


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
    """v2: what the new level set is recorded (``scores_after``, ``skills_after``, ``thresholds_after``,
    ``feat_choice``), so the fold does not derive it from today's tables."""

    type = "pf2e.leveled_up"
    version = 2
    level_from: int
    level_to: int
    features: list[str] = Field(default_factory=list)
    ruin_resistance: str = ""
    skill_increase: str = ""
    feat: str = ""
    feat_skill: str = ""
    boosts: list[str] = Field(default_factory=list)
    feat_choice: list[str] = Field(default_factory=list)
    scores_after: dict[str, int] | None = None
    skills_after: dict[str, str] | None = None
    thresholds_after: dict[str, int] | None = None


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
class DegreeChanged(EventModel):
    """A rule changes a check's degree after the roll (Pull Together, an unpayable cost treated as a critical
    failure, a re-roll for RP): the outcome of ``degree_to`` applies."""

    type = "pf2e.degree_changed"
    activity: str
    degree_from: Degree
    degree_to: Degree
    cause: str = ""


@register_event
class FlagSet(EventModel):
    """A once-per-turn use this turn (pull-together, crush-dissent, assurance:<skill> ...)."""

    type = "pf2e.flag_set"
    flag: str = Field(min_length=1)
    cause: str = ""


@register_event
class CounterSet(EventModel):
    """A counter the rules keep (an activity's DC streak, Pull Together's DC, an event's occurrences ...)."""

    type = "pf2e.counter_set"
    name: str = Field(min_length=1)
    value: int
    cause: str = ""


@register_event
class GMRuling(EventModel):
    """Where the rules leave a part of an outcome to the GM: the note of what to rule (the GM's effects, if
    any, follow as their own events)."""

    type = "pf2e.gm_ruling"
    source: str
    note: str


@register_event
class Named(GivenName):
    """The GM named a settlement or a leader that came without a name (a kingdom imported from Foundry keeps
    only the scene's and the actor's ids): ``id`` is the settlement's id, or the leader's role."""

    type = "pf2e.named"
    what: Literal["settlement", "leader"]


@register_event
class FeatChoiceMade(EventModel):
    """What the kingdom chose for a feat (Civil Service's role, changed with New Leadership; ...)."""

    type = "pf2e.feat_choice_made"
    feat: str
    choice: list[str]


class BoonIn(Frozen):
    id: str
    source: str
    kind: Literal["reroll", "second_roll", "bonus", "roll_twice"]
    value: int = 0
    type: Literal["circumstance", "status", "item", "untyped"] = "circumstance"
    selector: str = ""
    skill: str = ""
    xp: int = 0
    expires: Literal["end_of_this_turn", "end_of_next_turn", "start_of_next_turn", "once",
                     "permanent"] = "end_of_this_turn"


@register_event
class BoonGained(EventModel):
    """A benefit held for a later check (Creative Solution, Supernatural Solution, Request Foreign Aid,
    Focused Attention, Good Weather's roll twice ...)."""

    type = "pf2e.boon_gained"
    boon: BoonIn


@register_event
class BoonLapsed(EventModel):
    """A held boon ends unused (at the end of its turn), with the XP its rule gives then (Creative Solution)."""

    type = "pf2e.boon_lapsed"
    id: str
    xp: int = 0


@register_event
class HexChanged(EventModel):
    """A hex's facts change by a rule: a feature added or removed (Farmland or a Work Site destroyed), a
    river or lake gained (Irrigation), a fortification (Fortify Hex), a failed Irrigation marked or undone."""

    type = "pf2e.hex_changed"
    hex_id: str
    add_features: list[str] = Field(default_factory=list)
    remove_features: list[str] = Field(default_factory=list)
    river: bool | None = None
    lake: bool | None = None
    fortified: bool | None = None
    failed_irrigation: bool | None = None
    remove_work_site: bool = False
    remove_roads: bool = False
    cause: str = ""


@register_event
class CapitalMoved(EventModel):
    """Relocate Capital (§4.16): the seat of government moves to another settlement."""

    type = "pf2e.capital_moved"
    settlement: str


@register_event
class EventScheduled(EventModel):
    """A kingdom event due in a later Event phase (occurs, or on a failed flat check against ``dc``)."""

    type = "pf2e.event_scheduled"
    id: str
    event: str
    dc: int = 0
    turn: int = 0
    cause: str = ""
    hex: str = ""
    settlement: str = ""


@register_event
class EventWatchCleared(EventModel):
    type = "pf2e.event_watch_cleared"
    id: str


class ArmyIn(Frozen):
    """An army's record (see state.Army)."""

    id: str = Field(min_length=1)
    name: str
    type: Literal["infantry", "cavalry", "skirmisher", "siege"] = "infantry"
    side: Literal["kingdom", "enemy"] = "kingdom"
    level: int = Field(default=1, ge=1, le=20)
    hp: int
    hp_max: int
    rout_threshold: int
    ac: int
    maneuver: int
    morale: int
    scouting: int
    attack: int
    ranged_attack: int | None = None
    """Its ranged Strike's modifier when it has melee and ranged Strikes (None: recorded before each Strike was
    recorded, or the same as ``attack``)."""
    melee: bool = True
    ranged: bool = False
    consumption: int = 1
    recruitment_dc: int = 15
    tactics: list[str] = Field(default_factory=list)
    gear: dict[str, int] = Field(default_factory=dict)
    conditions: dict[str, int] = Field(default_factory=dict)
    hex: str = ""
    ammunition: int = 5
    basic: bool = True
    revealed: bool = True


@register_event
class ArmyRecruited(EventModel):
    """An army joins the kingdom (Recruit Army) or the GM's enemy armies enter the map, with its statistics."""

    type = "pf2e.army_recruited"
    army: ArmyIn
    cause: str = "recruit-army"


@register_event
class ArmyUpdated(EventModel):
    """An army's record changes: ``set`` field -> new value (hp, level, stats, hex, tactics, gear, revealed,
    garrison_consumption, acted_turn ...) and ``conditions`` name -> new value (0 removes)."""

    type = "pf2e.army_updated"
    army: str
    set: dict[str, int | str | bool | list[str] | dict[str, int]] = Field(default_factory=dict)
    conditions: dict[str, int] = Field(default_factory=dict)
    cause: str = ""


@register_event
class ArmyRemoved(EventModel):
    """An army is disbanded or destroyed: it no longer costs Consumption."""

    type = "pf2e.army_removed"
    army: str
    cause: Literal["disbanded", "destroyed"] = "disbanded"


@register_event
class WarDeclared(EventModel):
    type = "pf2e.war_declared"
    enemy: str = Field(min_length=1)


@register_event
class WarEnded(EventModel):
    type = "pf2e.war_ended"
    enemy: str = Field(min_length=1)


@register_event
class BattleStarted(EventModel):
    """A war encounter begins (AoN 1869): the armies of each side, in its hex."""

    type = "pf2e.battle_started"
    id: str
    hex: str = ""
    kingdom: list[str]
    enemy: list[str]


@register_event
class WarActionTaken(EventModel):
    """One war action or war check of a battle, every roll recorded: initiative (Scouting), Advance, Battle,
    Guard, Rally, Retreat, Disengage, a rout check; the changes it makes follow as ArmyUpdated events."""

    type = "pf2e.war_action"
    battle: str
    round: int = Field(ge=0)
    army: str
    action: str
    target: str = ""
    die: int | None = Field(default=None, ge=1, le=20)
    modifier: int = 0
    terms: list[TermOut] = Field(default_factory=list)
    dc: int = 0
    total: int = 0
    degree: Degree | None = None
    note: str = ""


@register_event
class BattleEnded(EventModel):
    type = "pf2e.battle_ended"
    id: str
    winner: Literal["kingdom", "enemy", "none"]
    rounds: int
    routed: list[str] = Field(default_factory=list)
    defeated: list[str] = Field(default_factory=list)


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
    ActivityWithoutCheck, InfrastructureBuilt, ActivityUnlocked, TurnEnded, ModifierRemoved, StructureDamaged,
    StructureRepaired, DegreeChanged, FlagSet, CounterSet, GMRuling, FeatChoiceMade, BoonGained, BoonLapsed,
    HexChanged, CapitalMoved, EventScheduled, EventWatchCleared, ArmyRecruited, ArmyUpdated, ArmyRemoved,
    WarDeclared, WarEnded, BattleStarted, WarActionTaken, BattleEnded, LotsRubbled, RuinThresholdChanged,
    KingdomImported, Named,
)


def _same(data: dict[str, object]) -> dict[str, object]:
    """v1 -> v2 of an event whose v2 only adds optional coordinates: the v1 payload reads as it is."""
    return data


for _cls in (KingdomFounded, HexClaimed, CheckResolved, UnrestChanged, RuinChanged, FameChanged, StructureBuilt,
             InfrastructureBuilt, LeveledUp):
    register_upcaster(_cls.type, 1)(_same)
register_upcaster(KingdomFounded.type, 2)(_same)
