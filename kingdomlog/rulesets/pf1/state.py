"""The PF1 kingdom state: frozen pydantic models, changed only by ``evolve``.

Stored facts only; every derived number (Size, Control DC, Consumption,
attributes, population, settlement modifiers, Fame) is computed in
:mod:`kingdomlog.rulesets.pf1.derive` so it can be explained term by term.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field

from kingdomlog.core.foreign import UNNAMED
from kingdomlog.core.model import Frozen
from kingdomlog.rulesets.pf1.tables import Catalog

Alignment = Literal["LG", "NG", "CG", "LN", "N", "CN", "LE", "NE", "CE"]
ALIGNMENTS: tuple[str, ...] = ("LG", "NG", "CG", "LN", "N", "CN", "LE", "NE", "CE")
MODULES: tuple[str, ...] = (
    "abandoned_buildings",
    "holy_sites",
    "expanded_settlement_modifiers",
    "settlement_sizes",
    "diplomatic_edicts",
    "exploration_edicts",
    "trade_edicts",
    "vassalage_edicts",
    "fame_infamy",
    "government_forms",
    "independence_unification",
    "leadership_skills",
)
MODULE_WORDS: dict[str, str] = {"fame_infamy": "fame and infamy"}
"""A module whose id does not read as words once its underscores are spaces ("fame infamy")."""
ATTITUDES: tuple[str, ...] = ("hostile", "unfriendly", "indifferent", "friendly", "helpful")
LEVELS: tuple[str, ...] = ("none", "embassy", "treaty", "alliance")


def hex_words(hid: str) -> str:
    """A hex as a person reads it, and as the map labels it: pf1's hexes have no names, and the ids a plan gives them
    (``h3``) are said by their number ("hex 3"); an id the GM wrote as a name (``B4``, ``oleg``) is said as written,
    after "hex".

    >>> hex_words("h3"), hex_words("h12"), hex_words("B4")
    ('hex 3', 'hex 12', 'hex B4')
    """
    m = re.fullmatch(r"[hH](\d+)", hid)
    return f"hex {m.group(1)}" if m else f"hex {hid}"


class Hex(Frozen):
    """A map hex (spec §2.7). ``q``/``r`` are axial coordinates (adjacency = 6 neighbours)."""

    id: str
    q: int
    r: int
    terrain: str
    river: bool = False
    features: tuple[str, ...] = ()
    """BRIDGE, CAVE, LAIR, LANDMARK, RESOURCE, ROAD, BUILDING:<type>, RUINS:<type>, TOWN:<name>."""
    explored: bool = False
    cleared: bool = False
    claimed: bool = False
    road: bool = False
    improvement: str | None = None
    city: str | None = None
    extras: tuple[str, ...] = ()
    """Improvements that share the hex (UC asterisk improvements: highway, canal, fishery, watchtower, …)."""


class Occupant(Frozen):
    """Who fills a leadership role (spec §2.4)."""

    name: str
    ability: str
    modifier: int
    attributes: tuple[str, ...] = ()
    present: bool = True
    skill_ranks: int = 0
    leadership_feat: bool = False
    foundry_id: str = ""
    """The Foundry actor a leader imported from the PF1 kingdom sheet is; ``name`` is their name in words (a
    placeholder ending in ``UNNAMED`` until the GM names them)."""


class District(Frozen):
    id: str
    city: str
    hex: str
    status: Literal["PREPARING", "READY"]
    ready_on_turn: int
    borders: dict[str, str] = Field(default_factory=dict)
    walls: tuple[str, ...] = ()


class City(Frozen):
    id: str
    name: str
    hex: str
    capital: bool = False
    detached: bool = False
    districts: tuple[str, ...] = ()
    base_danger: int = 0
    discounts_used: tuple[str, ...] = ()


class MagicSlot(Frozen):
    category: Literal["minor", "medium", "major"]
    item: str | None = None
    price_gp: int | None = None


class Building(Frozen):
    id: str
    type: str
    city: str
    district: str
    lots: tuple[int, ...] = ()
    border: str | None = None
    built_turn: int = 0
    deity: str | None = None
    slots: tuple[MagicSlot, ...] = ()
    supports: str | None = None
    """For a House: the dependent building it supports (one dependent each)."""
    supported_by: tuple[str, ...] = ()
    # abandoned_buildings
    occupancy: Literal["active", "pending_shutdown", "abandoned"] = "active"
    shutdown_due_turn: int | None = None
    reactivation_from_turn: int | None = None
    # holy_sites
    deity_alignment: str | None = None
    bonus_mode: Literal["standard", "alignment", "portfolio"] = "standard"
    shrine_attribute: str | None = None
    portfolio: dict[str, int] = Field(default_factory=dict)
    owner: str | None = None
    """A foreign kingdom's embassy in our settlement (opt §2.5.6): its lots are taken, its bonuses are theirs."""


class Edicts(Frozen):
    promotion: str = "NONE"
    taxation: str = "NONE"
    festivals: str = "0"


class Counters(Frozen):
    claims: int = 0
    districts: int = 0
    buildings: int = 0
    terrain: int = 0
    free_house: int = 0
    """The month's uncounted House/Mansion/Noble Villa/Tenement (UC, option first_house_free)."""


class TimedModifier(Frozen):
    """A modifier from an event, module or GM (spec §2.1 persistent_modifiers; optional §2.11)."""

    attribute: str
    """ECONOMY/LOYALTY/STABILITY; ``CHECK:<attribute>`` a bonus on that attribute's checks; ``SET:<modifier>`` a
    settlement modifier (of ``city``, or kingdom-wide); ``CONSUMPTION`` / ``CONSUMPTION_PCT`` the Consumption."""
    value: int
    source: str
    first_turn: int = 0
    last_turn: int | None = None
    city: str | None = None


class OngoingEvent(Frozen):
    """A continuous Ultimate Campaign event, resolved again each Event phase until it ends."""

    name: str
    city: str | None = None
    since_turn: int
    streak: int = 0


class ForeignKingdom(Frozen):
    id: str
    name: str
    alignment: str
    size: int = Field(ge=1)
    economy: int | None = None
    stability: int | None = None
    is_npc: bool = True
    infamy: int = 0
    """Infamy this kingdom earned toward us (an ally refusing aid, opt §2.5.6)."""


class Terms(Frozen):
    kind: Literal["treaty", "alliance"]
    balanced: bool
    advantaged: Literal["you", "partner"]
    established_turn: int
    x_you: int
    x_partner: int
    bonus_you: int
    order_index: int = 0


class Relation(Frozen):
    level: str = "none"
    attitude: str = "indifferent"
    is_sponsor: bool = False
    at_war: bool = False
    embassy_building: str | None = None
    embassy_delta: dict[str, int] | None = None
    """The kingdom-level settlement modifiers the embassy building added, as recorded (v2 events)."""
    their_embassy_here: str | None = None
    """The building id of their embassy in our settlement."""
    treaty: Terms | None = None
    alliance: Terms | None = None
    lockout_until: dict[str, int] = Field(default_factory=dict)


class TradeRoute(Frozen):
    id: str
    type: Literal["food", "goods", "luxuries", "raw_materials"]
    partner: str
    origin: str
    destination: str
    invested_bp: int
    trl: int
    rm: int
    lm: int
    dc: int
    travel_days: float
    issued_turn: int
    arrival_turn: int
    status: Literal["in_transit", "failed", "diverted", "established", "expired"] = "in_transit"
    successes: int = 0
    tier_economy: int = 0
    established_turn: int | None = None
    type_bonus_snapshot: int = 0
    food_active: bool = True


class Expedition(Frozen):
    id: str
    issued_turn: int
    months: int
    route: tuple[str, ...]
    cost_bp: int
    months_elapsed: int = 0
    status: Literal["active", "scattered_this_month", "lost", "returned"] = "active"
    discoveries: tuple[str, ...] = ()


class Vassal(Frozen):
    kingdom: str
    mode: Literal["new_colony", "subjugation"]
    viceroy: str
    issued_turn: int
    grant_bp: int
    subjugated_size: int = 0
    streak: int = 0
    resolved: bool = False


class Commander(Frozen):
    """An army's commander (UC Mass Combat, Commanders): Charisma and Profession (soldier) ranks add to Morale
    checks; Leadership (level + Cha, +3 with the feat) gates boons. ``role``: a kingdom leader commanding."""

    name: str
    cha: int = 0
    ranks: int = Field(0, ge=0)
    level: int = Field(1, ge=0)
    leadership: int = 0
    boons: tuple[str, ...] = ()
    bonus_tactics: tuple[str, ...] = ()
    role: str | None = None


class Army(Frozen):
    """An army (UC Mass Combat, Army Statistics) as recorded: its numbers are those its events recorded."""

    id: str
    name: str
    side: str = "kingdom"
    """``kingdom`` for ours; a foreign kingdom's id or ``enemy`` for the GM's armies."""
    size: str
    unit: str = ""
    unit_cr: str
    hd: int
    acr: str
    """Army Challenge Rating, a CR-ladder value (1/8 … 1/2, 1, 2, …)."""
    hp: int
    max_hp: int
    om: int
    dv: int
    consumption: int
    speed: int = 1
    morale: int = 0
    ranged: bool = False
    tactics: tuple[str, ...] = ()
    resources: dict[str, int] = Field(default_factory=dict)
    specials: tuple[str, ...] = ()
    commander: Commander | None = None
    status: Literal["active", "routed", "defeated", "disbanded"] = "active"
    reserve: bool = False
    unpaid: bool = False
    hex: str | None = None
    wins: int = 0
    last_battle: int | None = None
    """The turn of its last battle (UC Recovery: a month at rest heals it fully)."""


class Lineage(Frozen):
    """Where this campaign came from or went (independence and unification, optional §2.11)."""

    kind: Literal["split_from", "split_into", "merged_from", "merged_into"]
    campaigns: tuple[str, ...]
    turn: int


class Pf1State(Frozen):
    """The whole kingdom after some events."""

    campaign: str
    options: dict[str, Any]
    catalog: Catalog
    modules: tuple[str, ...] = ()
    founded: bool = False
    name: str = ""
    alignment: str = "N"
    turn: int = 0
    phase: str = "SETUP"
    treasury: int = 0
    unrest: int = 0
    anarchy: bool = False
    event_last_turn: bool | None = None
    edicts: Edicts = Edicts()
    modifiers: tuple[TimedModifier, ...] = ()
    counters: Counters = Counters()
    leaders: dict[str, tuple[Occupant, ...]] = Field(default_factory=dict)
    hexes: dict[str, Hex] = Field(default_factory=dict)
    cities: dict[str, City] = Field(default_factory=dict)
    districts: dict[str, District] = Field(default_factory=dict)
    buildings: dict[str, Building] = Field(default_factory=dict)
    withdrawals: int = 0
    rubble: tuple[str, ...] = ()
    """``district|building type`` of destroyed buildings: rebuilding there costs half (base §2.8)."""
    last_events: tuple[str, ...] = ()
    serials: dict[str, int] = Field(default_factory=dict)
    """Highest number used per id prefix (C, D, B, T, X)."""
    # optional modules
    special_edict_turn: int | None = None
    government: str = "feudal_monarchy"
    fame_ledger: int = 0
    infamy_ledger: int = 0
    milestones: tuple[int, ...] = ()
    kingdom_adjustments: dict[str, int] = Field(default_factory=dict)
    foreign: dict[str, ForeignKingdom] = Field(default_factory=dict)
    relations: dict[str, Relation] = Field(default_factory=dict)
    enemies: tuple[tuple[str, str], ...] = ()
    third_party: dict[str, str] = Field(default_factory=dict)
    """``"a|b"`` -> level between two foreign kingdoms (GM-declared)."""
    trade_routes: tuple[TradeRoute, ...] = ()
    expeditions: tuple[Expedition, ...] = ()
    vassals: tuple[Vassal, ...] = ()
    lineage: tuple[Lineage, ...] = ()
    closed: bool = False
    ongoing_events: tuple[OngoingEvent, ...] = ()
    acting_ruler: str | None = None
    armies: dict[str, Army] = Field(default_factory=dict)
    battles: int = 0
    """CONSORT or HEIR named to act as the Ruler while the Ruler is unavailable (UC)."""

    def opt(self, name: str) -> Any:
        return self.options[name]

    def module_on(self, module: str) -> bool:
        return module in self.modules


def unnamed(state: Pf1State) -> list[tuple[str, str]]:
    """The cities and leaders still without a name, as (the id to name them by, their placeholder): a city by
    its id, a leader by their Foundry actor's id."""
    out = [(c.id, c.name) for c in state.cities.values() if c.name.endswith(UNNAMED)]
    out += [(o.foundry_id, o.name) for occ in state.leaders.values() for o in occ
            if o.foundry_id and o.name.endswith(UNNAMED)]
    return out
