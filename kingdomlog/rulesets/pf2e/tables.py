"""Typed rules data of the pf2e-kingmaker ruleset, loaded from ``data/`` (names and numbers only).

Every table is validated once at load; errors name the file and the entry. A
campaign may add homebrew activities, structures, feats and events: files in the
campaign context's ``data`` mapping, merged by :func:`catalog`.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal, get_args

from pydantic import AfterValidator, Field, field_validator, model_validator

from kingdomlog.core.data import package_document, rows
from kingdomlog.core.effects import Effect as CoreEffect
from kingdomlog.core.effects import Outcomes as CoreOutcomes
from kingdomlog.core.effects import check_predicate
from kingdomlog.core.errors import InputError
from kingdomlog.core.model import Frozen
from kingdomlog.rulesets.pf2e.rules import check_amount

PKG = "kingdomlog.rulesets.pf2e.data"

ABILITIES = ("culture", "economy", "loyalty", "stability")
COMMODITIES = ("food", "lumber", "luxuries", "ore", "stone")
RUINS = ("corruption", "crime", "decay", "strife")
RANKS = ("untrained", "trained", "expert", "master", "legendary")
TERRAINS = ("plains", "hills", "forest", "swamp", "mountains")
DEGREES = ("critical_failure", "failure", "success", "critical_success")
BETTER: dict[str, Literal["up", "down"]] = {
    "level": "up", "xp": "up", "size": "up", "rp": "up", "resource_dice": "up", "fame": "up", "settlements": "up",
    "unrest": "down", "control_dc": "down", "consumption": "down",
    **dict.fromkeys(ABILITIES, "up"), **dict.fromkeys(COMMODITIES, "up"), **dict.fromkeys(RUINS, "down"),
}
"""Which way each ``summary`` figure is good for the kingdom (``Ruleset.better_figures``): more Resource Points,
Fame and commodities, less Unrest, Ruin and Consumption. The panel colours a change by it, the portrait its trend."""

Ability = Literal["culture", "economy", "loyalty", "stability"]
Commodity = Literal["food", "lumber", "luxuries", "ore", "stone"]
RuinName = Literal["corruption", "crime", "decay", "strife"]
Rank = Literal["untrained", "trained", "expert", "master", "legendary"]
Terrain = Literal["plains", "hills", "forest", "swamp", "mountains"]
RoleName = Literal["ruler", "counselor", "emissary", "general", "magister", "treasurer", "viceroy", "warden"]
Feature = Literal["bridge", "farmland", "freehold", "landmark", "refuge", "resource", "ruins", "settlement",
                  "structure", "work_site"]
Border = Literal["north", "east", "south", "west"]
ROLES: tuple[str, ...] = get_args(RoleName)
FEATURES: tuple[str, ...] = get_args(Feature)

EffectKind = Literal[
    # resources and figures
    "rp", "spend_rp", "refund_rp", "rp_no_xp", "unrest", "fame", "xp", "ruin", "ruin_penalty", "ruin_threshold",
    "commodity", "commodity_per_die", "food_loss", "pending", "trade_goods",
    # modifiers and bookkeeping
    "modifier", "cooldown", "treasury_debt", "boon", "extra_region", "flat_check", "gm", "choose",
    # the map
    "claim_hex", "work_site", "farmland", "roads", "fortify", "irrigate", "abandon_hex", "destroy_feature",
    "settlement", "crop_failure_watch",
    # settlements
    "build", "demolish", "rubble", "damage", "relocate_capital", "gift_structure",
    # relations and events
    "relations", "end_event", "event_watch", "flag", "unlock",
    # armies
    "army_recruit", "army_condition", "army_hp", "army_move", "army_tactic", "army_gear", "army_disband",
    "army_consumption",
]
EFFECT_KINDS: tuple[str, ...] = get_args(EffectKind)
BonusType = Literal["circumstance", "status", "item", "untyped"]
Expiry = Literal["end_of_this_turn", "end_of_next_turn", "start_of_next_turn", "once", "permanent"]
"""How long a temporary modifier lasts (§2.10): the rest of this turn, through the next turn, until the next turn
starts, the next matching check only (``once``), or until removed (``permanent``: e.g. a continuing event bonus)."""


class Effect(CoreEffect):
    """One outcome effect of pf2e data: the shared vocabulary (``core.effects.Effect``) with this ruleset's kinds.

    Amounts: an integer, dice ("1d4", "-2d6"), Resource Dice ("rd", "2rd"), the traded quantity ("q", "2q"),
    the agreements managed ("m"), half the RP this activity spent ("half"). Conditions (``when``) and selectors
    are ``core.effects.Predicate`` expressions over the facts of the kingdom and of the check (see
    data/activities.toml header).
    """

    kind: EffectKind
    type: BonusType = "circumstance"
    expires: Expiry = "end_of_this_turn"
    options: list[list[Effect]] = Field(default_factory=list)  # type: ignore[assignment]

    @field_validator("amount")
    @classmethod
    def _amount(cls, v: int | str) -> int | str:
        if isinstance(v, str):
            check_amount(v)
        return v


class Outcomes(CoreOutcomes):
    """The effects of each degree of a check (§3.0.1.6: a missing critical entry falls back)."""

    critical_success: list[Effect] | None = None  # type: ignore[assignment]
    success: list[Effect] | None = None  # type: ignore[assignment]
    failure: list[Effect] | None = None  # type: ignore[assignment]
    critical_failure: list[Effect] | None = None  # type: ignore[assignment]

    def for_degree(self, degree: str) -> list[Effect]:  # type: ignore[override]
        return [e for e in super().for_degree(degree) if isinstance(e, Effect)]


def _predicate(v: str) -> str:
    try:
        return check_predicate(v)
    except InputError as exc:
        raise ValueError(str(exc)) from None


Predicate = Annotated[str, AfterValidator(_predicate)]
"""A condition over a check's or a settlement's facts (``core.effects`` predicates), checked when the data loads."""

_DC_RULE = re.compile(r"^(control(\+\d+)?|structure|negotiation(\+\d+)?|negotiation_or_control|terrain_farmland"
                      r"|event|gm|none|army_recruitment|tactic|enemy_scouting|\d+)$")


class DcAdjust(Frozen):
    """A change to an activity's DC (or, for ``degree_adjust``, to its degree) when a condition holds."""

    value: int
    when: Predicate = ""
    label: str = ""


class CostRow(Frozen):
    """An RP cost paid before the check: ``rp`` an integer or an amount expression ("rd", "terrain", "roads",
    "farmland", "2m", "purchase"); the first row whose ``when`` holds applies. ``forced``: a cost that must be
    paid even beyond the treasury (§3.0.3: all RP, and a Ruin +1)."""

    rp: int | str = 0
    when: Predicate = ""
    forced: bool = False
    label: str = ""


class Streak(Frozen):
    """A DC that grows each consecutive turn the activity is used and falls back when it is not
    (Clandestine Business: +2 per turn in a row, -1 per turn without, never below the base DC)."""

    up: int = Field(ge=0)
    down: int = Field(ge=0)


ActivityTarget = Literal["", "ruin", "hex", "hexes", "structure", "lot", "commodity", "group", "event", "settlement",
                         "army", "leader"]


class Activity(Frozen):
    """A kingdom activity as data (§4, §4.16): who may take it, what it needs, its check and its outcomes.

    ``requires``: named requirements (``REQUIREMENTS`` in activities.py: "water_hex", "relations",
    "bank_in_influence", "seat_elsewhere", "irrigable", "enemy_army_in_hex" ...), each refused naming its rule.
    ``target``: what a row must name (a Ruin, a hex, a structure, a lot, a commodity, a group, an ongoing event, a
    settlement, an army, a leader). ``costs``: RP paid before the check (the first row whose condition holds).
    ``dc`` and ``dc_adjust``: the DC rule and its changes; ``degree_adjust``: degrees lost (negative) or gained by
    a rule. ``modifiers``: bonuses the activity itself carries (Expansion Expert). ``location``: where the check
    happens (a settlement, a hex, or the capital), for the structures whose item bonuses reach it (§5.10).
    ``gm_note``: the part the rules leave to the GM, in words (recorded as a pf2e.gm_ruling event).
    """

    name: str
    title: str = ""
    category: Literal["upkeep", "commerce", "leadership", "region", "civic", "army"]
    skills: list[str]
    proficiency: Rank = "untrained"
    dc: str = "control"
    dc_adjust: list[DcAdjust] = Field(default_factory=list)
    degree_adjust: list[DcAdjust] = Field(default_factory=list)
    once_per_turn: bool | None = None
    anarchy_allowed: bool = False
    cost_rp: int | str = 0
    """The simple form of ``costs`` (one unconditional cost); folded into ``costs`` at load."""
    costs: list[CostRow] = Field(default_factory=list)
    target: ActivityTarget = ""
    target_optional: bool = False
    """The target may be left out (Pledge of Fealty: the group's hex, only when it has one)."""
    hex_state: Literal["claimed", "unclaimed", "any"] = "claimed"
    requires: list[str] = Field(default_factory=list)
    warfare: bool = False
    proficiency_option: str = ""
    """A campaign option (boolean) that raises ``proficiency`` to trained (Collect Taxes:
    collect_taxes_requires_trained)."""
    skill_proficiency: dict[str, Rank] = Field(default_factory=dict)
    """Per-skill minimum rank where a skill needs more than ``proficiency`` (checked like ``proficiency``)."""
    skill_by_target: dict[str, str] = Field(default_factory=dict)
    """The skill the target decides (Repair Reputation: the Ruin's repair skill)."""
    skills_by_target: dict[str, dict[str, Rank]] = Field(default_factory=dict)
    """The skills a target allows, each with its minimum rank (Recover Army: each condition has its own two
    skills, AoN 1847); a target listed here replaces ``skills`` and ``skill_proficiency`` for that check."""
    new_skill_each_turn: bool = False
    """Not the same skill as the last time this activity was used (Quell Unrest, §4.4)."""
    limit_per_turn: int | Literal["claim_hex"] | None = None
    """Uses per Kingdom turn (``claim_hex``: 1 / 2 / 3 at levels 1 / 4 / 9, §5.9)."""
    modifiers: list[Effect] = Field(default_factory=list)
    army_penalties: dict[str, int] = Field(default_factory=lambda: {"weary": 1})
    """Army activities: the acting army's conditions as circumstance penalties (weary; Deploy: weary twice and
    mired)."""
    location: Literal["", "settlement", "hex", "capital"] = ""
    streak: Streak | None = None
    unlocked_by: str = ""
    """Empty = always available; "structure:<name>" or "companion:<name>" = only with that structure
    built or that companion in a leadership role; "gm" = a story unlock the GM records (state.activity_lock;
    campaign option unlock_all_activities lifts every lock)."""
    fortune: bool = False
    rules_in_spec: bool = True
    gm_note: str = ""
    rule: str = ""
    """The spec section of its rules, named in refusals (default by category: §4.3 commerce, §4.8 region, §4.9
    civic, §4 otherwise)."""
    outcomes: Outcomes = Field(default_factory=Outcomes)
    source: str = "spec"

    @property
    def section(self) -> str:
        return self.rule or {"commerce": "§4.3", "region": "§4.8", "civic": "§4.9"}.get(self.category, "§4")

    @field_validator("dc")
    @classmethod
    def _dc_rule(cls, v: str) -> str:
        if not _DC_RULE.match(v):
            raise ValueError(f"dc rule {v!r} is not control, control+N, structure, negotiation[+N], "
                             "negotiation_or_control, terrain_farmland, event, gm, none, army_recruitment, tactic, "
                             "enemy_scouting or a number")
        return v

    @field_validator("requires", mode="before")
    @classmethod
    def _requires(cls, v: Any) -> Any:
        if isinstance(v, str):
            return [v] if v else []
        return v

    @model_validator(mode="after")
    def _fold_cost(self) -> Activity:
        if self.dc == "event" and self.target != "event":
            raise ValueError('dc = "event" needs target = "event" (the ongoing event whose modifier sets the DC)')
        if self.cost_rp and not self.costs:
            object.__setattr__(self, "costs", [CostRow(rp=self.cost_rp, forced=self.cost_rp == "rd")])
        for c in self.costs:
            if isinstance(c.rp, str):
                check_amount(c.rp)
        return self

    @property
    def once(self) -> bool:
        """Leadership activities are once per turn kingdom-wide unless they say otherwise (§3.3 A1.3)."""
        if self.once_per_turn is not None:
            return self.once_per_turn
        return self.category == "leadership"

    @property
    def place(self) -> str:
        """Where the check happens: the data's ``location``, else by category (region: its hex; civic: its
        settlement; the others: a settlement the row names, by default the capital)."""
        if self.location:
            return self.location
        return {"region": "hex", "civic": "settlement"}.get(self.category, "settlement")


STRUCTURE_TRAITS = ("building", "edifice", "yard", "famous", "infamous", "residential", "infrastructure")
ITEM_GROUPS = ("alchemical", "arcane", "divine", "occult", "primal", "magical", "luxury", "any")
_SELECTOR = re.compile(r"^(activity:[a-z-]+(:[a-z]+)?|skill:[a-z]+(\+activity:[a-z-]+)?)$")


class Structure(Frozen):
    name: str
    title: str = ""
    level: int = Field(ge=0, le=20)
    lots: int = Field(ge=0, le=4)
    """Lots occupied; 0 only for infrastructure (walls, bridges, streets...), which occupies none."""
    cost_rp: int = Field(ge=0)
    cost: dict[Commodity, int] = Field(default_factory=dict)
    skills: list[str]
    proficiency: Rank = "untrained"
    dc: int
    traits: list[Literal["building", "edifice", "yard", "famous", "infamous", "residential",
                         "infrastructure"]] = Field(default_factory=list)
    residential: bool = False
    storage: dict[Commodity, int] = Field(default_factory=dict)
    seat: bool = False
    fame: bool = False
    """Grants 1 Fame or Infamy whichever the kingdom follows (a famous AND infamous structure); a structure with
    only the famous (infamous) trait grants 1 only to a kingdom following Fame (Infamy)."""
    consumption_reduction: int = 0
    item_bonuses: dict[str, int] = Field(default_factory=dict)
    """selector ("activity:<name>", "skill:<skill>", "activity:<name>:<target>" = only that target (Ruin,
    work-site commodity), "skill:<skill>+activity:<name>" = only that skill for that activity) -> item bonus."""
    item_level_bonuses: dict[Literal["alchemical", "arcane", "divine", "occult", "primal", "magical", "luxury",
                                     "any"], int] = Field(default_factory=dict)
    prevents_item_level_penalty: bool = False
    unlocks: list[str] = Field(default_factory=list)
    upgrade_from: str = ""
    placement: Literal["", "lot", "settlement", "block", "border"] = ""
    """Where it is built: lots (lots > 0), or for infrastructure (lots = 0) one per settlement, one per
    block, or one per border of the urban grid (north/east/south/west). Empty = lot, or settlement for lots = 0."""
    border: Literal["", "land", "water"] = ""
    """For border placement: a water border needs a river or lake in the settlement's hex."""
    first_built_each_turn: list[Effect] = Field(default_factory=list)
    built_effects: list[Effect] = Field(default_factory=list)
    """Effects every time one is built (after first_built_each_turn)."""
    built_effects_limit: int = Field(default=0, ge=0)
    """0 = always; N = built_effects apply only while the settlement held fewer than N of this structure's
    family (itself, the structure it upgrades from, those upgrading from it) before this one was built."""
    limits: list[str] = Field(default_factory=list)
    reduction_stacks: bool = False
    """§5.15 stacking: whether the consumption reductions of identical structures in one settlement add up
    (published default: no, an identical structure's reduction counts once per settlement)."""
    item_bonus_stacks: bool = True
    """§5.10 Max Item Bonus: identical structures' item bonuses in one settlement add up to the settlement's
    maximum item bonus (published default: yes; an edifice never stacks)."""
    reduction_when: Predicate = ""
    """The surroundings a structure's consumption reduction needs, as a condition over the settlement's facts
    (``water``: its hex has a river or lake; ``farmland``: Farmland in its influence)."""
    requires_surroundings: Predicate = ""
    """A condition over the settlement's facts the structure needs to be built at all (``water`` ...)."""
    source: str = "spec"

    @property
    def edifice(self) -> bool:
        return "edifice" in self.traits

    @field_validator("item_bonuses")
    @classmethod
    def _selectors(cls, v: dict[str, int]) -> dict[str, int]:
        for sel in v:
            if not _SELECTOR.match(sel):
                raise ValueError(f"item bonus selector {sel!r} is not activity:<name>[:<target>] or "
                                 "skill:<skill>[+activity:<name>]")
        return v

    @property
    def scope(self) -> str:
        """Where one is placed: "lot", "settlement", "block" or "border"."""
        if self.lots:
            return "lot"
        return self.placement or "settlement"

    @model_validator(mode="after")
    def _lots_and_traits(self) -> Structure:
        if self.lots and self.placement not in ("", "lot"):
            raise ValueError("placement settlement/block/border is for infrastructure (lots = 0) only")
        if self.lots == 0 and self.placement == "lot":
            raise ValueError("lots = 0 cannot be placed on a lot")
        if self.border and self.scope != "border":
            raise ValueError("border = land/water needs placement = border")
        if self.traits:
            if (self.lots == 0) != ("infrastructure" in self.traits):
                raise ValueError("lots = 0 exactly for infrastructure structures")
            if self.residential != ("residential" in self.traits):
                raise ValueError("residential must match the residential trait")
        elif self.lots == 0:
            raise ValueError("lots = 0 needs the infrastructure trait")
        return self


FeatEffectKind = Literal[
    "modifier", "resource_dice", "critical_success_dice", "unrest_reduction", "vacancy_ignored", "anarchy_threshold",
    "assurance", "pull_together", "crush_dissent", "liquidate_resources", "luxury_bonus", "skill_substitute",
    "activity_cost", "ruin_threshold", "focused_attention", "reroll_for_rp",
]


class FeatEffect(CoreEffect):
    """One feat effect as data: the shared vocabulary (``core.effects.Effect``) with the kinds feats use.

    modifier: a bonus of ``type``/``value`` to checks the ``selector`` picks while ``when`` holds (§2.10).
    resource_dice: ``value`` Resource Dice every turn (§2.11.3). critical_success_dice: ``value`` bonus Resource
    Dice next turn after a critical success on a check the selector picks. unrest_reduction: an Activity-phase
    Unrest reduction removes ``value`` more while ``when`` holds. vacancy_ignored: the role chosen for the feat
    takes no vacancy penalty. anarchy_threshold: anarchy starts ``value`` later. assurance: once per turn per
    chosen skill, take 10 + proficiency instead of rolling. pull_together: once per turn a critical failure may
    become a failure on a flat check (DC ``value``, +``amount`` each later use, -1 per turn unused). crush_dissent:
    once per turn a check (``target`` skill) against an Unrest gain. liquidate_resources: the first forced RP
    spend of a turn that would empty the treasury leaves 1 RP, and next turn rolls ``value`` fewer Resource Dice.
    luxury_bonus: the first Luxuries gain of a turn is ``value`` more. skill_substitute: ``target`` (a skill)
    may replace ``selector`` skills. activity_cost: ``target`` activity's RP cost becomes ``value``.
    ruin_threshold: Ruin thresholds rise as chosen for the feat (campaign option ``muddle_through_reading``).
    focused_attention: Focused Attention grants ``value``; from ``amount`` (level) it improves aided results.
    reroll_for_rp: after a failed check the selector picks, spend ``value`` RP to re-roll without the feat's bonus.
    """

    kind: FeatEffectKind
    type: BonusType = "circumstance"


class Feat(Frozen):
    name: str
    title: str = ""
    level: int = Field(ge=1, le=20)
    repeatable: bool = False
    grants: Literal["", "skill_training"] = ""
    requires_trained: list[str] = Field(default_factory=list)
    """Kingdom skills the kingdom must be trained in; "chosen" = the skill the feat is taken for."""
    requires_ability: dict[Ability, int] = Field(default_factory=dict)
    """Minimum ability scores."""
    granted_by: list[str] = Field(default_factory=list)
    """Governments whose founding grants this feat (founding.toml)."""
    source: str = "published, unverified"
    effects: list[FeatEffect] = Field(default_factory=list)
    """Effects applied by the engine (data, not code)."""
    chooses: Literal["", "role", "ruins", "skill"] = ""
    """What the kingdom chooses when it takes the feat (Civil Service: a role; Muddle Through: Ruins; Kingdom
    Assurance: a trained skill), recorded with the feat."""
    gm_ruling: bool = False
    """Part of the feat's effect is not modelled: the GM applies it (for example through a GM-ruling effect)."""
    gm_note: str = ""
    """What the GM applies by hand (own words)."""


EVENT_TRAITS = ("beneficial", "dangerous", "continuous", "settlement", "hex", "fortune", "downtime", "leadership")


class KingdomEventDef(Frozen):
    name: str
    title: str = ""
    modifier: int = Field(default=0, ge=-4, le=4)
    """Event modifier: the check's DC is the Control DC + modifier (§5.12)."""
    skills: list[str] = Field(default_factory=list)
    stage_skills: list[list[str]] = Field(default_factory=list)
    """For events resolved in stages: the skills of each stage in order (``skills`` is their union)."""
    traits: list[Literal["beneficial", "dangerous", "continuous", "settlement", "hex", "fortune", "downtime",
                         "leadership"]] = Field(default_factory=list)
    leader: str = ""
    """The leadership role that usually answers the event (a hint; any leader may act)."""
    resolved_on: list[Literal["critical_success", "success", "failure", "critical_failure"]] = Field(
        default_factory=list)
    """Degrees that end a continuous event."""
    continuous: bool = False
    gm_ruling: bool = False
    """True: the outcome effects are not plain numbers; the GM records them (choice "gm_effects")."""
    gm_note: str = ""
    """A rider the data leaves to the GM (recorded with "gm_effects") next to plain-number outcomes."""
    location: Literal["", "settlement", "random_settlement", "hex", "capital", "largest", "smallest", "newest",
                      "farmland", "unclaimed_adjacent", "two_settlements", "most_cemeteries"] = ""
    """Where the event strikes (its rule's Location entry): checks to resolve a settlement or hex event take item
    bonuses only from structures of that settlement or that reach that hex (AoN 1840)."""
    requires: Predicate = ""
    """A condition over the kingdom's facts without which the event does not occur (Pilgrimage: a shrine,
    temple or cathedral; Noblesse Oblige: a mansion or noble villa; Festive Invitation: diplomatic relations)."""
    dc_adjust: list[DcAdjust] = Field(default_factory=list)
    degree_adjust: list[DcAdjust] = Field(default_factory=list)
    modifiers: list[Effect] = Field(default_factory=list)
    """Bonuses or penalties the event's own rules give its checks (a Sewer System, a dump ...)."""
    while_ongoing: list[Effect] = Field(default_factory=list)
    """Modifiers (kind ``modifier``) the event gives other checks while it is ongoing (Plague: -2 status to Civic
    activities in its settlement). Their selectors read the check's facts and ``struck`` (the check is made in
    the settlement the event strikes) and ``settlement_structures`` (what stands, undamaged, in the check's
    settlement)."""
    stage_outcomes: list[Outcomes] = Field(default_factory=list)
    """For staged events (Cult Activity): the outcomes of each stage after the first (``outcomes``)."""
    advance_on: list[Literal["critical_success", "success", "failure", "critical_failure"]] = Field(
        default_factory=list)
    """For a staged event: the degrees that move it to its next stage (Cult Activity: the cult is found)."""
    dc: str = "control"
    """The DC rule: the Control DC + modifier (§5.12), or a fixed number (a story event's DC)."""
    ends_after_failures: int = 0
    """A continuous event that ends after this many consecutive failures (Economic Surge: 2)."""
    cult: bool = False
    """A Cult of the Bloom event (campaign option cult_events)."""
    table: tuple[int, int] | None = None
    """The d100 range of the random kingdom event table (AoN 1843), or None for a story event."""
    rules_in_spec: bool = True
    outcomes: Outcomes = Field(default_factory=Outcomes)
    source: str = "spec"

    @model_validator(mode="after")
    def _consistent(self) -> KingdomEventDef:
        if self.traits and self.continuous != ("continuous" in self.traits):
            raise ValueError("continuous must match the continuous trait")
        if self.stage_skills and sorted({s for st in self.stage_skills for s in st}) != sorted(set(self.skills)):
            raise ValueError("skills must be the union of stage_skills")
        return self


class Milestone(Frozen):
    name: str
    xp: int
    trigger: str


class LevelFeatures(Frozen):
    level: int
    features: list[str]
    feat: bool = False
    skill_increase: bool = False
    ability_boosts: int = 0
    ruin_resistance: bool = False


class Charter(Frozen):
    name: str
    boost: Ability | None = None
    flaw: Ability | None = None
    free_boosts: int = 0
    source: str = ""


class Heartland(Frozen):
    name: str
    boost: Ability
    terrain: list[str] = Field(default_factory=list)
    source: str = ""


class Government(Frozen):
    name: str
    boosts: list[Ability]
    free_boosts: int = 0
    skills: list[str]
    feat: str = ""
    source: str = ""


class Role(Frozen):
    name: str
    key_ability: Ability
    vacancy_selector: str
    vacancy_value: int
    vacancy_control_dc: int = 0
    vacancy_unrest_die: str = ""
    new_leadership_skill: str


class SizeBand(Frozen):
    min_size: int
    nation: str
    die: int
    control_dc_mod: int
    storage: int


class UnrestBand(Frozen):
    min_unrest: int
    penalty: int


class SettlementType(Frozen):
    name: Literal["village", "town", "city", "metropolis"]
    min_level: int
    max_blocks: int
    consumption: int
    max_item_bonus: int
    influence: int


class RuinInfo(Frozen):
    ability: Ability
    repair_skill: str


class CoreTables(Frozen):
    control_dc_by_level: list[int] = Field(min_length=20, max_length=20)
    size_band: list[SizeBand]
    unrest_band: list[UnrestBand]
    settlement_type: list[SettlementType]
    skills: dict[str, Ability]
    proficiency: dict[Rank, int]
    ruins: dict[RuinName, RuinInfo]
    terrain_rp: dict[Terrain, int]
    work_site_terrain: dict[Literal["lumber", "ore", "stone"], list[Terrain]]
    claim_hex_limits: list[tuple[int, int]]
    ruin_resistance_levels: list[int]
    ruin_resistance_increase: int
    invested_bonus: list[tuple[int, int]]
    event_xp_by_modifier: list[int] = Field(min_length=9, max_length=9)
    rank_min_level: dict[str, int] = Field(default_factory=lambda: {"master": 7, "legendary": 15})


@functools.cache
def core() -> CoreTables:
    """The core tables (§5.1, §5.2, §2.5, §5.6, §5.7, §5.10, §5.14)."""
    doc = package_document(PKG, "tables.toml")
    try:
        return CoreTables.model_validate(doc)
    except Exception as exc:  # pydantic ValidationError
        raise InputError(f"{PKG}/tables.toml: {exc}") from None


def _load(model: type[Any], file: str, key: str) -> list[Any]:
    doc = package_document(PKG, file)
    return rows(model, doc.get(key, []), source=f"{PKG}/{file}")


@functools.cache
def roles() -> dict[str, Role]:
    return {r.name: r for r in _load(Role, "roles.toml", "role")}


@functools.cache
def milestones() -> dict[str, Milestone]:
    return {m.name: m for m in _load(Milestone, "milestones.toml", "milestone")}


@functools.cache
def levels() -> dict[int, LevelFeatures]:
    return {lv.level: lv for lv in _load(LevelFeatures, "levels.toml", "level")}


@functools.cache
def charters() -> dict[str, Charter]:
    return {c.name: c for c in _load(Charter, "founding.toml", "charter")}


@functools.cache
def heartlands() -> dict[str, Heartland]:
    return {c.name: c for c in _load(Heartland, "founding.toml", "heartland")}


@functools.cache
def governments() -> dict[str, Government]:
    return {c.name: c for c in _load(Government, "founding.toml", "government")}


CATALOG_FILES: dict[str, tuple[str, str]] = {
    "activities": ("activities.toml", "activity"), "structures": ("structures.toml", "structure"),
    "feats": ("feats.toml", "feat"), "events": ("events.toml", "event")}
"""Each catalog table (a ``Catalog`` field): its bundled data file in ``PKG`` and the TOML array of its rows there
(a homebrew file's section of the same name, ``HOMEBREW_KEYS``). The one place these names are written: the
loaders below and ``names`` (which reads a file's text before parsing it) both read them here."""


def _base(table: str, model: type[Any]) -> list[Any]:
    return _load(model, *CATALOG_FILES[table])


@functools.cache
def base_activities() -> dict[str, Activity]:
    return {a.name: a for a in _base("activities", Activity)}


@functools.cache
def base_structures() -> dict[str, Structure]:
    return {s.name: s for s in _base("structures", Structure)}


@functools.cache
def base_feats() -> dict[str, Feat]:
    return {f.name: f for f in _base("feats", Feat)}


@functools.cache
def base_events() -> dict[str, KingdomEventDef]:
    return {e.name: e for e in _base("events", KingdomEventDef)}


def base_rows(table: str) -> Mapping[str, Any]:
    """The bundled rows of the catalog table ``table`` (a ``CATALOG_FILES`` key), by name: its loader's."""
    loaders: dict[str, Callable[[], Mapping[str, Any]]] = {
        "activities": base_activities, "structures": base_structures, "feats": base_feats, "events": base_events}
    return loaders[table]()


class ArmyStatistic(Frozen):
    """Army statistics by level (Kingmaker Appendix 3; KMT src/armies/data.ts)."""

    level: int = Field(ge=1, le=20)
    scouting: int
    standard_dc: int
    ac: int
    high_save: int
    low_save: int
    attack: int
    max_tactics: int


ArmyKind = Literal["infantry", "cavalry", "skirmisher", "siege"]
ARMY_KINDS: tuple[ArmyKind, ...] = ("cavalry", "infantry", "siege", "skirmisher")


WarStat = Literal["ac", "maneuver", "morale", "scouting", "initiative", "attack", "melee", "ranged", "hp",
                  "ammunition", "rout_threshold", "attack_against", "ranged_against", "melee_against",
                  "maneuver_dc", "consumption"]
"""What a battle modifier changes: an army's own statistic (attack: both Strikes; melee / ranged: one), a
number its stat block carries (hp, ammunition, rout_threshold, consumption), or what armies attacking it take
(``*_against``) or roll against it (``maneuver_dc``: its Maneuver DC when another army acts against it)."""


class WarModifier(Frozen):
    """One modifier of a condition, tactic or gear (Appendix 3): the statistic, its value and bonus type, and
    when it applies (a war action, target army types, a level bracket)."""

    on: WarStat
    value: int = 0
    per_value: bool = False
    """A valued condition: the value times ``value`` (mired 2: -2)."""
    kind: Literal["circumstance", "status", "item", "untyped"] = "untyped"
    action: str = ""
    """Only on this war action (guard, rally, disengage, taunt, rout: a rout check)."""
    target_types: list[Literal["infantry", "cavalry", "skirmisher", "siege"]] = Field(default_factory=list)
    at_level: dict[int, int] = Field(default_factory=dict)
    """Level -> value from that army level on (Defensive Tactics: +2 at 9th, +3 at 17th)."""
    static: bool = False
    """A number of the army's stat block (its HP, attack, ammunition): recorded when the army is raised or
    levels, not applied again in a battle. A catalogue army's own tactics are already in its numbers."""
    option: str = ""
    """``option=value``: only when the campaign option has that value (a reading of the rules)."""

    def at(self, level: int) -> int:
        """The value at an army level (the last bracket at or below it)."""
        v = self.value
        for lv in sorted(self.at_level):
            if level >= lv:
                v = self.at_level[lv]
        return v


class ArmyDef(Frozen):
    """An army a kingdom can raise: a basic army (Warfare to recruit) or a specialized one (Statecraft), or an
    army of the adventure the GM brings on the map. Its adjustments are its stat block's differences from the
    army statistics of its level (its own tactics' static numbers included)."""

    name: str
    title: str = ""
    type: ArmyKind
    level: int = Field(ge=1, le=20)
    basic: bool = False
    rarity: Literal["common", "uncommon", "rare", "unique"] = "common"
    high_save: Literal["maneuver", "morale"]
    hp: int = Field(ge=1)
    rout_threshold: int = Field(ge=0)
    consumption: int = Field(ge=-1)
    melee: bool = True
    ranged: bool = False
    ammunition: int = 5
    adjust: dict[Literal["ac", "maneuver", "morale", "scouting", "melee", "ranged", "recruitment_dc"], int] = Field(
        default_factory=dict)
    tactics: list[str] = Field(default_factory=list)
    source: str = ""


class TacticDef(Frozen):
    """A tactic (Appendix 3 Army Tactics): trainable ones by level and army type, an army type's innate one
    (Overrun, Engines of War), or an army's unique one (its stat block)."""

    name: str
    title: str = ""
    level: int = Field(default=1, ge=1, le=20)
    types: list[ArmyKind] = Field(default_factory=lambda: list(ARMY_KINDS))
    innate: bool = False
    """Part of an army type (Overrun, Engines of War), not trained."""
    unique: bool = False
    """An army's own tactic from its stat block: never trained, never counted against the army's maximum."""
    note: str = ""
    modifiers: list[WarModifier] = Field(default_factory=list)
    grants: list[str] = Field(default_factory=list)
    """War actions the tactic lets the army take (tactical or unique war actions)."""
    source: str = ""


class ConditionDef(Frozen):
    """An army condition (Appendix 3 Army Conditions) and the modifiers it brings."""

    name: str
    title: str = ""
    valued: bool = False
    note: str = ""
    modifiers: list[WarModifier] = Field(default_factory=list)
    source: str = ""


class WarActionDef(Frozen):
    """A war action (Appendix 3 War Actions): basic (every army), tactical (granted by a tactic) or unique (an
    army's own); its cost in actions (r: a reaction), the check it rolls, the army types that may learn it."""

    name: str
    title: str = ""
    kind: Literal["basic", "tactical", "unique"]
    actions: Literal["1", "2", "3", "r"]
    check: Literal["attack", "maneuver", "morale", "scouting", "none"] = "none"
    types: list[ArmyKind] = Field(default_factory=list)
    note: str = ""
    source: str = ""

    @property
    def cost(self) -> int:
        """War actions it takes of an army's three a round (a reaction: none)."""
        return 0 if self.actions == "r" else int(self.actions)


class FortificationDef(Frozen):
    """A fortification on a battlefield (Appendix 3; KMT data.ts): its AC and HP against siege engines, and how
    many armies it holds."""

    name: str
    title: str = ""
    ac: int
    hp: int = Field(ge=1)
    max_armies: int = Field(ge=1)
    source: str = "KMT data.ts"


class GearDef(Frozen):
    name: str
    title: str = ""
    level: int = Field(ge=1, le=20)
    price: int = Field(ge=0)
    kind: Literal["armor", "melee", "ranged", "potion", "weapon"]
    bonus: int = 0
    note: str = ""


@functools.cache
def army_statistics() -> dict[int, ArmyStatistic]:
    return {a.level: a for a in _load(ArmyStatistic, "armies.toml", "statistic")}


@functools.cache
def army_defs() -> dict[str, ArmyDef]:
    return {a.name: a for a in _load(ArmyDef, "armies.toml", "army")}


@functools.cache
def tactic_defs() -> dict[str, TacticDef]:
    return {a.name: a for a in _load(TacticDef, "armies.toml", "tactic")}


@functools.cache
def gear_defs() -> dict[str, GearDef]:
    return {a.name: a for a in _load(GearDef, "armies.toml", "gear")}


@functools.cache
def condition_defs() -> dict[str, ConditionDef]:
    return {a.name: a for a in _load(ConditionDef, "armies.toml", "condition")}


@functools.cache
def fortification_defs() -> dict[str, FortificationDef]:
    return {a.name: a for a in _load(FortificationDef, "armies.toml", "fortification")}


@functools.cache
def war_action_defs() -> dict[str, WarActionDef]:
    return {a.name: a for a in _load(WarActionDef, "armies.toml", "action")}


class Catalog(Frozen):
    """Activities, structures, feats and events: the bundled data plus a campaign's homebrew."""

    activities: dict[str, Activity]
    structures: dict[str, Structure]
    feats: dict[str, Feat]
    events: dict[str, KingdomEventDef]


HOMEBREW_KEYS: dict[str, tuple[str, type[Any]]] = {
    "activity": ("activities", Activity),
    "structure": ("structures", Structure),
    "feat": ("feats", Feat),
    "event": ("events", KingdomEventDef),
}


def validate_homebrew(data: Mapping[str, Any]) -> dict[str, Any]:
    """Validate homebrew documents (file name -> parsed document) and return them as plain JSON.

    Each document may hold lists under ``activity``, ``structure``, ``feat`` and ``event`` (the same
    shape as the bundled files). Errors name the file and the entry; a homebrew entry may not reuse a
    bundled name unless it sets ``replace = true``.
    """
    out: dict[str, Any] = {}
    skills = set(core().skills)
    for fname in sorted(data):
        doc = data[fname]
        if not isinstance(doc, Mapping):
            raise InputError(f"homebrew file {fname}: expected a table of entries")
        unknown = sorted(set(doc) - set(HOMEBREW_KEYS))
        if unknown:
            raise InputError(
                f"homebrew file {fname}: unknown section(s) {', '.join(unknown)}; allowed: {', '.join(HOMEBREW_KEYS)}"
            )
        clean: dict[str, Any] = {}
        for section, items in doc.items():
            _, model = HOMEBREW_KEYS[section]
            items = list(items) if isinstance(items, list) else items
            if not isinstance(items, list):
                raise InputError(f"homebrew file {fname}: [{section}] must be a list of entries")
            stripped = []
            for i, item in enumerate(items):
                if not isinstance(item, Mapping):
                    raise InputError(f"homebrew file {fname}: {section} #{i + 1} is not a table")
                stripped.append({k: v for k, v in item.items() if k != "replace"})
            parsed = rows(model, stripped, source=f"homebrew file {fname} [{section}]")
            bundled = base_rows(HOMEBREW_KEYS[section][0])
            for item, row in zip(items, parsed, strict=True):
                if row.name in bundled and not item.get("replace", False):
                    raise InputError(
                        f"homebrew file {fname}: {section} {row.name!r} already exists in the bundled data;"
                        " set replace = true to override it"
                    )
                for sk in getattr(row, "skills", []):
                    if sk not in skills:
                        raise InputError(f"homebrew file {fname}: {section} {row.name!r}: unknown skill {sk!r}")
            clean[section] = [p.model_dump(mode="json") for p in parsed]
        out[fname] = clean
    return out


@functools.lru_cache(maxsize=32)
def _catalog(homebrew_json: str) -> Catalog:
    acts = dict(base_activities())
    structs = dict(base_structures())
    feats = dict(base_feats())
    events = dict(base_events())
    targets: dict[str, dict[str, Any]] = {"activity": acts, "structure": structs, "feat": feats, "event": events}
    homebrew = json.loads(homebrew_json)
    for fname in sorted(homebrew):
        for section, items in homebrew[fname].items():
            model = HOMEBREW_KEYS[section][1]
            for item in items:
                row = model.model_validate(item)
                targets[section][row.name] = row
    return Catalog(activities=acts, structures=structs, feats=feats, events=events)


def catalog(homebrew: Mapping[str, Any] | None = None) -> Catalog:
    """The merged catalogue for a campaign's (already validated) homebrew.

    Without homebrew it is the bundled catalogue, found without writing the empty homebrew's key again: the
    sheet's forms ask for it thousands of times a page (the catalogue's rows behind every option).

    >>> catalog() is catalog({}) is catalog(None)
    True
    """
    if not homebrew:
        return _catalog("{}")
    return _catalog(json.dumps(homebrew, sort_keys=True))


@functools.lru_cache(maxsize=32)
def _section(section: str, homebrew_json: str) -> dict[str, Any]:
    out = dict(base_rows(HOMEBREW_KEYS[section][0]))
    homebrew = json.loads(homebrew_json)
    model = HOMEBREW_KEYS[section][1]
    for fname in sorted(homebrew):
        for item in homebrew[fname].get(section, []):
            row = model.model_validate(item)
            out[row.name] = row
    return out


def catalog_feats(homebrew: Mapping[str, Any] | None = None) -> dict[str, Feat]:
    """``catalog(homebrew).feats`` (merged the same way) without parsing the other tables' data files.

    Rendering a state needs the kingdom's feats (their effects on the Control DC and checks), not
    the activities, structures and events, whose files are most of the bundled data.
    """
    return _section("feat", json.dumps(homebrew or {}, sort_keys=True))


def catalog_events(homebrew: Mapping[str, Any] | None = None) -> dict[str, KingdomEventDef]:
    """``catalog(homebrew).events`` without parsing the activities, structures and feats files."""
    return _section("event", json.dumps(homebrew or {}, sort_keys=True))


def data_tables() -> dict[str, Any]:
    """Loader per table, for the conformance suite."""
    return {
        "core": core,
        "roles": roles,
        "milestones": milestones,
        "levels": levels,
        "charters": charters,
        "heartlands": heartlands,
        "governments": governments,
        "activities": base_activities,
        "structures": base_structures,
        "feats": base_feats,
        "events": base_events,
        "army_statistics": army_statistics,
        "armies": army_defs,
        "tactics": tactic_defs,
        "gear": gear_defs,
    }
