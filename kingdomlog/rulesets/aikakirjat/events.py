"""Event payloads of aikakirjat (spec §8.3, mapped onto the core envelope) and their upcasters.

Events whose effect the rules compute derive from ``Recorded``: since version 2 they
carry that effect as ``outcome``, a ``core.patch.StatePatch`` (every path of the state
that changed, with its new value), computed in ``decide`` by ``diff(before, after)``
around the rules. ``evolve`` applies the outcome and runs no rule code; ``audit``
re-runs the rules and reports where they differ from what was recorded.

Events that consume dice derive from ``Resolved`` (a ``Recorded``): they also carry
the chooser's inputs, the recorded dice (``dice``: key, notation, faces, total) and an
``audit`` of the numbers the rules computed (totals, DCs, bands) for historians.

Version 1 of these events (logs written before outcomes were recorded) has no
``outcome``; the upcasters leave it ``None`` (a payload alone cannot say what changed
in a state it does not see), and ``evolve`` folds such an event by today's rules
(the documented legacy path; ``audit`` says so).

The other events (the founding, year start/end, session end, fame gained, evil
vanquished) record everything their effect needs; ``evolve`` applies them directly.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from kingdomlog.core.events import EventModel, register_event, register_upcaster
from kingdomlog.core.model import Frozen
from kingdomlog.core.patch import StatePatch
from kingdomlog.rulesets.aikakirjat.state import (
    PC,
    Neighbour,
    Province,
    SpecialUnit,
    TerritoryArea,
    WarTechnology,
)

NS = "aikakirjat"

ActionType = Literal[
    "embassy", "attract_population", "research", "reduce_corruption", "tax_collection",
    "declare_war", "reduce_unrest", "equip", "building_project",
]
ACTION_TYPES: tuple[str, ...] = ActionType.__args__  # type: ignore[attr-defined]


class DieRecord(Frozen):
    """One recorded roll: key (within the event), notation, every face read and the total."""

    key: str
    notation: str
    faces: tuple[int, ...]
    total: int


class Recorded(EventModel):
    """An event whose effect the rules compute; ``outcome`` records that effect (v2; None in v1 logs)."""

    version = 2
    outcome: StatePatch | None = None


class Resolved(Recorded):
    """An event resolved by the rules from its inputs and recorded dice."""

    dice: tuple[DieRecord, ...] = ()
    audit: dict[str, Any] = Field(default_factory=dict)


class CheckOptions(Frozen):
    """How the kingdom makes a check: spend a stored or this year's advantage, take 10 (§2.16)."""

    spend_stored: bool = False
    spend_year: bool = False
    take_10: bool = False


@register_event
class KingdomFounded(EventModel):
    """Turn 0: the kingdom as the group founded it (§2, A3)."""

    type = f"{NS}.kingdom_founded"
    name: str
    government: str
    base_scores: dict[str, int]
    extra_proficiency: str
    population: int = 3
    territory: tuple[TerritoryArea, ...] = ()
    militia: int = 0
    levy_dice: int = 0
    technology_level: int = 1
    mobility: int = 0
    fire_capable: bool = False
    neighbours: tuple[Neighbour, ...] = ()
    provinces: tuple[Province, ...] = ()
    pcs: dict[str, PC] = Field(default_factory=dict)
    special_units: tuple[SpecialUnit, ...] = ()
    options: dict[str, Any] = Field(default_factory=dict)


@register_event
class SessionStarted(Resolved):
    """A growth session begins: 5d10 years (§4.0)."""

    type = f"{NS}.session_started"
    session_no: int


@register_event
class SessionEnded(EventModel):
    type = f"{NS}.session_ended"
    session_no: int


@register_event
class YearStarted(EventModel):
    """Step 0 (§4.1): the year counter and the population snapshot."""

    type = f"{NS}.year_started"
    year: int


@register_event
class LevyDieGained(Resolved):
    """Step 0 (§2.4): one levy die gained, rolled into militia."""

    type = f"{NS}.levy_die_gained"


@register_event
class RandomEventRolled(Resolved):
    """Step 1 (§3.7): 2d6 + omen selects the year's event."""

    type = f"{NS}.random_event_rolled"


@register_event
class NaturalDisasterResolved(Resolved):
    """Result 2 (§4.2): 4d6 Decay and d6 Unrest."""

    type = f"{NS}.natural_disaster_resolved"


@register_event
class PlagueResolved(Resolved):
    """Result 3 (§4.2, A34, A35)."""

    type = f"{NS}.plague_resolved"
    try_religion: bool = True
    stability: CheckOptions = Field(default_factory=CheckOptions)
    religion: CheckOptions = Field(default_factory=CheckOptions)


@register_event
class EvilManifested(Recorded):
    """Result 1 (A30): an evil presence on a GM-chosen ability."""

    type = f"{NS}.evil_manifested"
    ability: str


@register_event
class EvilVanquished(EventModel):
    """The GM records the evil put right (A30)."""

    type = f"{NS}.evil_vanquished"
    ability: str


@register_event
class NewGodAppeared(Resolved):
    """Result 13 (§3.7): embrace (d6: Cult or Temple) or resist."""

    type = f"{NS}.new_god_appeared"
    choice: Literal["embrace", "resist"] = "embrace"


@register_event
class NeighbourEventRolled(Resolved):
    """Result 10 (§3.8, §4.2): the neighbour sub-table, resolved with its follow-ups."""

    type = f"{NS}.neighbour_event_rolled"
    neighbour_id: str
    war_target: str = "other"
    support: bool = False
    participate: bool = False
    skill: Literal["warfare", "diplomacy", "magic"] = "diplomacy"
    npc_trade_bonus: int | None = None
    defense: CheckOptions = Field(default_factory=CheckOptions)


@register_event
class GrowthRolled(Resolved):
    """Step 2 (§4.3): the growth roll against the living-space DC."""

    type = f"{NS}.growth_rolled"
    check: CheckOptions = Field(default_factory=CheckOptions)


class NewProject(Frozen):
    """A building project named when the action is taken (§3.10.9)."""

    id: str
    name: str
    points_required: int
    kind: Literal["road", "highway", "other"] = "other"
    province_id: str | None = None


@register_event
class ActionTaken(Resolved):
    """One action of step 3 (§3.10), resolved completely with its follow-up dice."""

    type = f"{NS}.action_taken"
    index: int
    action: ActionType
    performer: Literal["kingdom", "pc", "court"] = "kingdom"
    pc_id: str | None = None
    pc_bonus: int = 0
    skill: str | None = None
    target_track: str | None = None
    neighbour_id: str | None = None
    use_positive: Literal["crime", "decadence"] | None = None
    institution_id: str | None = None
    project_id: str | None = None
    new_project: NewProject | None = None
    take_advantage: bool = False
    naval: int = 0
    casus_belli: bool = False
    check: CheckOptions = Field(default_factory=CheckOptions)
    situational: tuple[tuple[str, int], ...] = ()


@register_event
class RevolutionRolled(Resolved):
    """A revolution roll (§3.5, §4.7); its follow-up dice included."""

    type = f"{NS}.revolution_rolled"
    cause: Literal["unrest", "tribe_level5", "pending", "war_unrest"] = "unrest"
    keep_population: int | None = None


@register_event
class GovernmentChanged(Resolved):
    """A PC-led revolution succeeded (A27): chosen government, d6 unrest, 4×d8 corruption."""

    type = f"{NS}.government_changed"
    to: str


@register_event
class WarBegun(Recorded):
    """A war in which the players' kingdom is a belligerent begins (§4.5.1, A36, A40)."""

    type = f"{NS}.war_begun"
    war_id: str
    attacker: str
    defender: str
    cause: Literal["neighbour_event", "automatic", "gm"] = "gm"


class Allocation(Frozen):
    """One army's militia and province at the start of a war year (A55)."""

    army_id: str
    province_id: str
    militia: int


@register_event
class WarYearStarted(Resolved):
    """The war year's set-up (§4.5.1): armies assigned and initiative rolled.

    v3: the armies are this war's own (``Army.war_id``), and ``technology`` records the GM's ruling on the
    players' technology bonuses for the year (absent in v2: none).
    """

    type = f"{NS}.war_year_started"
    version = 3
    war_id: str
    allocations: tuple[Allocation, ...]
    enemy_allocations: tuple[Allocation, ...]
    check: CheckOptions = Field(default_factory=CheckOptions)
    technology: WarTechnology = Field(default_factory=WarTechnology)


class Order(Frozen):
    """One army's order in a war turn (A58): move along ``path``, attack ``target``, or hold.

    ``spend_stored``, ``spend_year`` and ``take_10`` (the players' armies only) apply to the first kingdom check
    this army makes in the war turn, attacking or attacked: its naval supremacy roll or its hit roll (§4.5.3: the
    Warfare check "may use stored advantages or Competent Administration").
    """

    army_id: str
    kind: Literal["move", "attack", "hold"] = "hold"
    path: tuple[str, ...] = ()
    target: str | None = None
    special_unit: str | None = None
    naval_dice: int = 0
    oppose_naval_dice: int = 0
    spend_stored: bool = False
    spend_year: bool = False
    take_10: bool = False


class PeaceTerms(Frozen):
    """A peace attempt in a war turn (§3.11, §4.5.5); ``check`` is how the kingdom's Diplomacy check is made."""

    performer: Literal["kingdom", "pc", "court"] = "kingdom"
    pc_bonus: int = 0
    provinces_demanded: tuple[str, ...] = ()
    check: CheckOptions = Field(default_factory=CheckOptions)


@register_event
class WarTurnResolved(Resolved):
    """One war turn (§4.5.2-§4.5.4): moves, naval contests, engagements, captures, a peace attempt.

    v3: only this war's armies act, and the enemy's General Staff may make ``enemy_extra_attack`` (A66).
    """

    type = f"{NS}.war_turn_resolved"
    version = 3
    war_id: str
    war_turn: int
    orders: tuple[Order, ...] = ()
    enemy_orders: tuple[Order, ...] = ()
    extra_attack: Order | None = None
    enemy_extra_attack: Order | None = None
    peace: PeaceTerms | None = None


@register_event
class WarEnded(Resolved):
    """End of war (§4.5.6): militia zero, unrest 20 or peace."""

    type = f"{NS}.war_ended"
    war_id: str
    reason: Literal["militia_zero", "unrest_20", "peace"]
    winner: str | None = None
    provinces_demanded: tuple[str, ...] = ()


@register_event
class WarUpkeepApplied(Resolved):
    """Yearly war upkeep (§4.5.7, §3.12): unrest and attrition (v3: of this war's armies only)."""

    type = f"{NS}.war_upkeep_applied"
    version = 3
    war_id: str
    technology_reduction: int = 0


@register_event
class LawAndOrderUsed(Recorded):
    """Law and Order (§3.6): one point off one track, once a year."""

    type = f"{NS}.law_and_order_used"
    track: str


@register_event
class FameGained(EventModel):
    """Fame (§3.3)."""

    type = f"{NS}.fame_gained"
    amount: int
    source: Literal["survived_year", "war_begun", "war_won", "pc_level", "institution", "gm"]


@register_event
class LevelChanged(Recorded):
    """Level change (§3.1, A14, A15)."""

    type = f"{NS}.level_changed"
    from_level: int
    to_level: int
    cause: Literal["fame", "hold_failed", "gm"]


@register_event
class LevelHoldChecked(Resolved):
    """Holding a level with too little population (§3.1, A14)."""

    type = f"{NS}.level_hold_checked"
    check: CheckOptions = Field(default_factory=CheckOptions)


@register_event
class BenefitChosen(Recorded):
    """A level benefit's choice (§3.2): feat, ability increases, corruption steps, skills, expertise."""

    type = f"{NS}.benefit_chosen"
    level: int
    benefit: str
    feat: str | None = None
    abilities: dict[str, int] = Field(default_factory=dict)
    corruption_steps: dict[str, int] = Field(default_factory=dict)
    skills: tuple[str, ...] = ()
    expertise: tuple[str, ...] = ()
    god_created: bool = False


@register_event
class InstitutionFounded(Recorded):
    """An institution founded between adventures (§2.12, §3.3: +2 fame)."""

    type = f"{NS}.institution_founded"
    institution_id: str
    kind: str
    founder: Literal["pc", "court", "event"] = "pc"
    cost_multiplier: float = 1.0
    pc_id: str | None = Field(None, exclude_if=lambda v: v is None)
    """The PC who founded it (spec §8: ``pc_id``), when a PC did and the GM named them; left out of the payload
    while None, so an event logged before it existed is written and folds as it always did."""


@register_event
class PcLevelReached(Recorded):
    """A resident PC reaches level 10, 15 or 20 (§3.3)."""

    type = f"{NS}.pc_level_reached"
    pc_id: str
    level: int


@register_event
class GmAdjustment(Recorded):
    """The GM's escape hatch (§8.3): a named field changed by a delta or set, with a reason."""

    type = f"{NS}.gm_adjustment"
    field: Literal[
        "fame", "population", "militia", "unrest", "technology_level", "mobility", "fire_capable",
        "research_points", "naval_dice", "stored_advantages", "omen_modifier",
        "decadence", "crime", "corruption", "decay",
        "neighbour_diplomacy", "neighbour_population", "neighbour_status",
        "territory", "province", "neighbour", "special_unit", "pc",
    ]
    delta: int | None = None
    value: Any = None
    target: str | None = None
    reason: str = ""


@register_event
class KingdomContacted(Recorded):
    """Global Empire (§3.2, level 20): a kingdom anywhere in the known world becomes a neighbour, so the kingdom
    may try to influence it (an Embassy target)."""

    type = f"{NS}.kingdom_contacted"
    kingdom: Neighbour


@register_event
class YearEnded(EventModel):
    """Step 5 done (§4.6): year-scoped state cleared."""

    type = f"{NS}.year_ended"
    year: int


EVENT_TYPES: tuple[type[EventModel], ...] = (
    KingdomFounded, SessionStarted, SessionEnded, YearStarted, LevyDieGained, RandomEventRolled,
    NaturalDisasterResolved, PlagueResolved, EvilManifested, EvilVanquished, NewGodAppeared,
    NeighbourEventRolled, GrowthRolled, ActionTaken, RevolutionRolled, GovernmentChanged, WarBegun,
    WarYearStarted, WarTurnResolved, WarEnded, WarUpkeepApplied, LawAndOrderUsed, FameGained,
    LevelChanged, LevelHoldChecked, BenefitChosen, InstitutionFounded, PcLevelReached, GmAdjustment,
    KingdomContacted, YearEnded,
)


def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """v1 → v2: the payload is unchanged; v1 recorded no outcome (``outcome`` stays None)."""
    return dict(data)


RECORDED_TYPES: tuple[type[Recorded], ...] = tuple(t for t in EVENT_TYPES if issubclass(t, Recorded))
"""The event types that record their outcome (version 2; version 1 upcasts with no outcome)."""

for _t in RECORDED_TYPES:
    register_upcaster(_t.type, 1)(_v1_to_v2)


def _v2_to_v3(data: dict[str, Any]) -> dict[str, Any]:
    """v2 → v3 of the war events that set armies: each recorded army belonged to the event's war.

    v2 rules kept one pool of armies, so every army a v2 war event recorded fought its one war; v3 names that war
    on each army (``war_id``). The recorded outcome is otherwise unchanged.
    """
    out = dict(data)
    outcome = out.get("outcome")
    if not isinstance(outcome, dict):
        return out
    ops = []
    for op in outcome.get("ops", ()):
        if isinstance(op, dict) and list(op.get("path", ())) == ["armies"] and isinstance(op.get("value"), list):
            armies = [{**a, "war_id": a.get("war_id") or out.get("war_id")} if isinstance(a, dict) else a
                      for a in op["value"]]
            op = {**op, "value": armies}
        ops.append(op)
    out["outcome"] = {**outcome, "ops": ops}
    return out


for _t in (WarYearStarted, WarTurnResolved, WarUpkeepApplied):
    register_upcaster(_t.type, 2)(_v2_to_v3)
