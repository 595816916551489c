"""The kingdom state (spec §2) as frozen pydantic models, and the derived numbers (§2.11).

Stored fields are the folded facts; everything the spec calls *derived* (size,
Control DC, Resource Dice, storage, unrest penalty, anarchy, consumption,
settlement type, overcrowding, ability modifiers) is computed from them by the
functions here, each of which can explain itself as a ``Breakdown``. The derived
figures also appear as computed fields, so ``model_dump()`` (``kingdomlog state
--json``) shows them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import Field, computed_field, model_serializer, model_validator

from kingdomlog.core.effects import combine, holds
from kingdomlog.core.foreign import UNNAMED
from kingdomlog.core.hexes import Axial, distance, touches
from kingdomlog.core.model import Frozen
from kingdomlog.core.modifiers import Modifier as StackMod
from kingdomlog.core.modifiers import stack
from kingdomlog.core.ruleset import Breakdown, Term
from kingdomlog.rulesets.pf2e import rules as R
from kingdomlog.rulesets.pf2e import tables as T


class _WithDerived(Frozen):
    """A frozen model whose JSON form also shows derived figures (computed fields).

    Reading that JSON back (snapshots, ``state --json`` round trips) drops the derived keys, which are
    recomputed from the stored fields; any other unknown key is still refused.
    """

    @model_validator(mode="before")
    @classmethod
    def _drop_derived(cls, data: Any) -> Any:
        if isinstance(data, dict):
            derived = cls.model_computed_fields
            return {k: v for k, v in data.items() if k not in derived}
        return data


class Ruin(Frozen):
    """One Ruin (§2.4): accumulated points, threshold and penalty."""

    points: int = 0
    threshold: int = 10
    penalty: int = 0


class Leader(Frozen):
    """One leadership role (§2.3). ``holder`` None means vacant."""

    holder: str | None = None
    kind: Literal["pc", "npc"] = "pc"
    invested: bool = False
    vacancy_penalty: bool = False
    """The role takes its vacancy penalty this turn (vacant, or chosen at U1)."""
    forfeit: int = 0
    """Leadership activities this PC gives up this turn (U1 choice)."""
    leadership_modifier: int = 0
    """Circumstance modifier to this leader's checks (New Leadership result)."""
    leadership_modifier_until: int = 0
    """Turn through which ``leadership_modifier`` applies (0 = while set and not cleared)."""
    foundry_id: str = ""
    """The Foundry actor (``Actor.…``) a leader imported from Foundry is, written back by ``export-kingdom``;
    ``holder`` is their name in words (a placeholder ending in ``UNNAMED`` until the GM names them)."""


class BuiltStructure(Frozen):
    """A structure standing in a settlement; the numbers the derivations need are copied at build time."""

    name: str
    block: int
    lots: tuple[int, ...]
    residential: bool = False
    storage: dict[str, int] = Field(default_factory=dict)
    seat: bool = False
    consumption_reduction: int = 0
    item_bonuses: dict[str, int] = Field(default_factory=dict)
    border: str = ""
    """Infrastructure on a border of the urban grid (north/east/south/west); block = -1 and no lots for
    infrastructure built for the whole settlement or on a border."""
    edifice: bool = False
    """Edifice trait: its benefits count once per settlement (AoN 1837)."""
    reduction_stacks: bool | None = None
    """Whether identical structures' consumption reductions add up (None: recorded before the rule, they add up)."""
    item_bonus_stacks: bool | None = None
    """Whether identical structures' item bonuses add up to the settlement's maximum (None: recorded before the
    rule; today's published rule, yes, is used for new checks)."""
    reduction_when: str = ""
    """The surroundings the consumption reduction needs (a condition over the settlement's facts, e.g. water)."""
    damaged: bool = False
    """Damaged (not rubble): it gives no benefit until repaired (§4.9: half the cost, +2 item bonus)."""


class Settlement(_WithDerived):
    """A settlement on its urban grid (§2.8): blocks of four lots."""

    id: str
    name: str
    hex: str
    capital: bool = False
    blocks: tuple[tuple[str, str, str, str], ...] = (("", "", "", ""),)
    """Per block, per lot: "" empty, "rubble", or the structure name."""
    structures: tuple[BuiltStructure, ...] = ()
    paid_unbuilt: tuple[str, ...] = ()

    @computed_field  # type: ignore[prop-decorator]
    @property
    def blocks_used(self) -> int:
        """Blocks holding at least one structure (or rubble)."""
        return sum(1 for b in self.blocks if any(lot for lot in b))

    @computed_field  # type: ignore[prop-decorator]
    @property
    def type(self) -> str:
        """Village (1 block), town (2-4), city (5-9), metropolis (10+) (§5.10)."""
        return settlement_type_for(max(1, self.blocks_used)).name

    @computed_field  # type: ignore[prop-decorator]
    @property
    def level(self) -> int:
        """Settlement level = blocks in use (village 1, town 2-4, city 5-9, metropolis 10+; §5.10 reading)."""
        return max(1, self.blocks_used)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def residential_lots(self) -> int:
        return sum(len(s.lots) for s in self.structures if s.residential)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def overcrowded(self) -> bool:
        """Residential lots < blocks containing any structure (§2.8, §5.10)."""
        with_structures = sum(1 for i, _ in enumerate(self.blocks) if any(s.block == i for s in self.structures))
        return self.residential_lots < with_structures

    @computed_field  # type: ignore[prop-decorator]
    @property
    def consumption(self) -> int:
        """Settlement type consumption minus structure reductions, floored at 0 (§2.8), identical structures'
        reductions counted by the stacking rule; reductions that need surroundings (a Mill's water) are counted
        in the kingdom's Consumption (``settlement_consumption``), which knows the map."""
        base = settlement_type_for(max(1, self.blocks_used)).consumption
        seen: set[str] = set()
        total = 0
        for b in self.structures:
            if not b.consumption_reduction or b.damaged or b.reduction_when:
                continue
            stacks = True if b.reduction_stacks is None else b.reduction_stacks and not b.edifice
            if not stacks and b.name in seen:
                continue
            seen.add(b.name)
            total += b.consumption_reduction
        return max(0, base - total)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def influence(self) -> int:
        return settlement_type_for(max(1, self.blocks_used)).influence

    @property
    def has_seat(self) -> bool:
        return any(s.seat for s in self.structures)

    def free_lots(self) -> int:
        return sum(1 for b in self.blocks for lot in b if lot == "")


class WorkSite(Frozen):
    commodity: Literal["lumber", "ore", "stone"]
    double_until_turn: int = 0


class Hex(Frozen):
    """A hex of the map (§2.7) at axial ``q``, ``r`` (None: unplaced, a log from before hex coordinates).

    ``farmland_of`` / ``farmland_distance``: the settlement whose influence Farmland was established in and
    the distance recorded then; they count for Consumption only while the hex or that settlement is unplaced
    (placed Farmland counts when it lies inside any settlement's influence, §2.11.8).
    """

    id: str
    q: int | None = None
    r: int | None = None
    terrain: T.Terrain = "plains"
    claimed: bool = True
    river: bool = False
    lake: bool = False
    features: tuple[str, ...] = ()
    resource: Literal["", "lumber", "ore", "stone"] = ""
    work_site: WorkSite | None = None
    roads: bool = False
    farmland_of: str = ""
    farmland_distance: int = 0
    ever_claimed: bool = True
    fortified: bool = False
    """Fortify Hex built a fortification here (a warfare bonus; a safe rest for travelling PCs)."""
    failed_irrigation: bool = False
    """A critically failed Irrigation sits here (a Plague flat check each Event phase until undone)."""
    structure: str = ""
    """A structure standing in the hex (the Structure terrain feature): a settlement founded here gets it free."""

    @property
    def at(self) -> Axial | None:
        """The axial coordinates, or None while unplaced."""
        return None if self.q is None or self.r is None else (self.q, self.r)


class KingdomModifier(Frozen):
    """A temporary modifier (§2.10); ``once`` modifiers are used up by the next check they apply to."""

    id: str
    source: str
    type: Literal["circumstance", "status", "item", "untyped"] = "circumstance"
    value: int
    selector: str
    expires: T.Expiry = "end_of_this_turn"


class Boon(Frozen):
    """A benefit held for a later check of the turn, used by a row's choice ``use_boon`` (Creative Solution,
    Supernatural Solution, Request Foreign Aid, Focused Attention, Good Weather's roll twice ...).

    kind: ``reroll`` (roll again with ``value`` added, keep the new result), ``second_roll`` (roll ``skill`` too,
    keep the better), ``bonus`` (``value`` of ``type`` after the die is rolled), ``roll_twice`` (roll twice, keep
    the better). ``selector``: the checks it may be used on. ``xp``: XP gained at the end of the turn if unused.
    """

    id: str
    source: str
    kind: Literal["reroll", "second_roll", "bonus", "roll_twice"]
    value: int = 0
    type: Literal["circumstance", "status", "item", "untyped"] = "circumstance"
    selector: str = ""
    skill: str = ""
    xp: int = 0
    expires: T.Expiry = "end_of_this_turn"


class EventWatch(Frozen):
    """A kingdom event due in a later Event phase (an Abandon Hex failure's Squatters, a Food Shortage that
    recurs, a failed Irrigation's Plague): ``dc`` 0 = it occurs; else a flat check against ``dc`` — on a
    failure it occurs. ``turn``: the turn whose Event phase it is for (0 = every turn while the watch stands)."""

    id: str
    event: str
    dc: int = 0
    turn: int = 0
    cause: str = ""
    hex: str = ""
    settlement: str = ""


ArmyType = Literal["infantry", "cavalry", "skirmisher", "siege"]


class Army(Frozen):
    """An army (AoN 1849 Army stat block): its numbers are recorded when it is recruited and when it levels.

    ``side``: ``kingdom`` (the players') or ``enemy`` (the GM's; players see what the GM reveals, option
    ``army_visibility``). ``conditions``: name -> value (efficient, fortified, weary, shaken, mired, routed,
    defeated, lost, outflanked, pinned, concealed, engaged ...). ``gear``: melee/ranged/armor potency, potions.
    """

    id: str
    name: str
    type: ArmyType = "infantry"
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
    """Its melee Strike's modifier (its ranged one when it has no melee Strike)."""
    ranged_attack: int | None = None
    """Its ranged Strike's modifier, each Strike with its own (None: recorded before it was; see
    ``warfare.strike_modifiers``)."""
    melee: bool = True
    ranged: bool = False
    consumption: int = 1
    recruitment_dc: int = 15
    tactics: tuple[str, ...] = ()
    gear: dict[str, int] = Field(default_factory=dict)
    conditions: dict[str, int] = Field(default_factory=dict)
    hex: str = ""
    ammunition: int = 5
    basic: bool = True
    revealed: bool = True
    """An enemy army the players have seen (their view shows it); kingdom armies are always revealed."""
    garrison_consumption: int = 0
    """A Garrison critical success: Consumption lower by this much (to at least 1) until the army deploys."""
    acted_turn: int = 0
    """The last kingdom turn the army took an Army activity or fought (idle turns lower weary and shaken)."""

    @property
    def upkeep(self) -> int:
        """Consumption paid for the army (§2.11.8), after a garrison's reduction (never below 1 then)."""
        if self.garrison_consumption:
            return max(1, self.consumption - self.garrison_consumption)
        return self.consumption


class Pending(Frozen):
    """Effects queued for the next turn (§2.10)."""

    bonus_dice: int = 0
    penalty_dice: int = 0
    rp: int = 0
    fame: int = 0
    consumption: int = 0
    commodities: dict[str, int] = Field(default_factory=dict)
    halve_dice: int = 0
    """Next turn's Resource Dice are halved (rounded down) if that is fewer than the 4 fewer already pending
    (Bandit Activity's critical failure, KMT data/events/Bandit Activity.json: "your Resource Dice are halved or
    lose 4 Resource Dice next turn, whichever results in a lower total"). Left out of the state document while
    0, so documents of logs without it are unchanged."""

    @model_serializer(mode="wrap")
    def _omit_unused(self, handler: Any) -> Any:
        out = handler(self)
        if isinstance(out, dict) and not self.halve_dice:
            out.pop("halve_dice", None)
        return out


class UsedActivity(Frozen):
    name: str
    category: str
    role: str = ""
    settlement: str = ""
    skill: str = ""
    target: str = ""
    """An Army activity's army; otherwise what the check targeted."""


class OngoingEvent(Frozen):
    name: str
    unrest_per_turn: int = 0
    consumption_delta: int = 0
    since_turn: int = 0
    stage: int = 0
    """The stage a staged event is in (Cult Activity)."""
    failures: int = 0
    """Consecutive failed checks (an event ending after two failures in a row)."""
    settlement: str = ""
    hex: str = ""


class DueEvent(Frozen):
    """A kingdom event that occurred this turn and waits for E2 (a scheduled one, Crop Failure, a Plague ...)."""

    name: str
    settlement: str = ""
    hex: str = ""


class KingdomState(_WithDerived):
    """Everything the log says about one kingdom (spec §2), at a point of the fold."""

    campaign: str = ""
    options: dict[str, Any] = Field(default_factory=dict)
    homebrew: dict[str, Any] = Field(default_factory=dict)
    founded: bool = False
    name: str = ""
    charter: str = ""
    heartland: str = ""
    government: str = ""
    fame_type: Literal["fame", "infamy"] = "fame"

    turn: int = 0
    """The turn number last started (0 = founding)."""
    step: str = ""
    level: int = 1
    max_level: int = 1
    xp: int = 0
    xp_pending: int = 0
    rp: int = 0
    rp_spent_this_turn: int = 0
    unrest: int = 0
    fame: int = 0
    event_dc: int = 16
    at_war: bool = False
    anarchy_averted: bool = False
    scores: dict[str, int] = Field(default_factory=lambda: dict.fromkeys(T.ABILITIES, 10))
    skills: dict[str, str] = Field(default_factory=dict)
    feats: tuple[str, ...] = ()
    leaders: dict[str, Leader] = Field(default_factory=lambda: {r: Leader() for r in T.ROLES})
    ruin: dict[str, Ruin] = Field(default_factory=lambda: {r: Ruin() for r in T.RUINS})
    commodities: dict[str, int] = Field(default_factory=lambda: dict.fromkeys(T.COMMODITIES, 0))
    hexes: tuple[Hex, ...] = ()
    settlements: tuple[Settlement, ...] = ()
    modifiers: tuple[KingdomModifier, ...] = ()
    pending: Pending = Field(default_factory=Pending)
    cooldowns: dict[str, int] = Field(default_factory=dict)
    used_this_turn: tuple[UsedActivity, ...] = ()
    used_last_turn: tuple[UsedActivity, ...] = ()
    extra_region: int = 0
    favored_land_uses: int = 0
    envy_used: bool = False
    structures_built_this_turn: tuple[str, ...] = ()
    milestones: tuple[str, ...] = ()
    random_event_this_turn: bool = False
    event_this_turn: str = ""
    ongoing_events: tuple[OngoingEvent, ...] = ()
    trade_agreements: tuple[str, ...] = ()
    diplomatic_relations: tuple[str, ...] = ()
    armies: dict[str, int] = Field(default_factory=dict)
    """Army id -> its consumption (input per army, §2.9)."""
    treasury_debt: bool = False
    crop_failure_watch: dict[str, int] = Field(default_factory=dict)
    ruin_resistance_used: int = 0
    leveled_this_turn: bool = False
    unlocked_activities: tuple[str, ...] = ()
    """Activities the GM unlocked by story (unlocked_by = "gm", or any other, recorded as events)."""
    feat_choices: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    """What the kingdom chose for a feat: Civil Service's role, Muddle Through's Ruins, Kingdom Assurance's skills."""
    counters: dict[str, int] = Field(default_factory=dict)
    """Named counters the rules keep (an activity's DC streak, Pull Together's DC, successes toward ending an
    event, how often an event has occurred ...), recorded as pf2e.counter_set events."""
    flags: tuple[str, ...] = ()
    """Once-per-turn uses this turn (pull-together, crush-dissent, liquidate-resources, luxury-bonus,
    assurance:<skill>, claimed-hex ...), cleared when a turn starts."""
    boons: tuple[Boon, ...] = ()
    event_watch: tuple[EventWatch, ...] = ()
    army_units: tuple[Army, ...] = ()
    enemies: tuple[str, ...] = ()
    """Groups the kingdom is at war with (war_declared / war_ended events)."""
    events_due: tuple[DueEvent, ...] = ()
    """Events that occurred this turn by a rule (not the random event) and are resolved in E2."""
    rp_no_xp: int = 0
    """RP gained this turn that do not become XP if unspent (Request Foreign Aid)."""
    cult_event_dc: int = 0
    """The flat-check DC of the next Cult of the Bloom event check (option cult_events; 0 = not yet started)."""

    # ---- derived figures (computed fields appear in model_dump / state --json) ----
    @computed_field  # type: ignore[prop-decorator]
    @property
    def size(self) -> int:
        return size_of(self)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def control_dc(self) -> int:
        return int(control_dc(self).total)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def resource_die(self) -> str:
        return f"d{size_band(size_of(self)).die}"

    @computed_field  # type: ignore[prop-decorator]
    @property
    def resource_dice(self) -> int:
        return int(resource_dice(self).total)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def unrest_penalty(self) -> int:
        return unrest_penalty(self.unrest)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def anarchy(self) -> bool:
        return in_anarchy(self)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def storage(self) -> dict[str, int]:
        return {c: int(storage_cap(self, c).total) for c in T.COMMODITIES}

    @computed_field  # type: ignore[prop-decorator]
    @property
    def abilities(self) -> dict[str, dict[str, int]]:
        return {a: {"score": self.scores[a], "modifier": ability_mod(self.scores[a])} for a in T.ABILITIES}

    @computed_field  # type: ignore[prop-decorator]
    @property
    def consumption(self) -> int:
        return int(consumption(self).total)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def fame_max(self) -> int:
        return fame_max(self)


# ---------------------------------------------------------------- derivations


def size_of(state: KingdomState) -> int:
    """Size = number of claimed hexes (§2.1)."""
    return sum(1 for h in state.hexes if h.claimed)


def size_band(size: int) -> T.SizeBand:
    """The §5.2 row for ``size`` (0 counts as the first row).

    >>> [size_band(s).die for s in (0, 9, 10, 24, 25, 50, 100)]
    [4, 4, 6, 6, 8, 10, 12]
    """
    rows = T.core().size_band
    out = rows[0]
    for row in rows:
        if size >= row.min_size:
            out = row
    return out


def settlement_type_for(blocks: int) -> T.SettlementType:
    """Settlement type by blocks used (§5.10): 1 village, 2-4 town, 5-9 city, 10+ metropolis."""
    for row in T.core().settlement_type:
        if blocks <= row.max_blocks:
            return row
    return T.core().settlement_type[-1]


def unrest_penalty(unrest: int) -> int:
    """Status penalty for ``unrest`` (§2.5).

    >>> [unrest_penalty(u) for u in (0, 1, 4, 5, 9, 10, 14, 15, 40)]
    [0, -1, -1, -2, -2, -3, -3, -4, -4]
    """
    return R.unrest_penalty(unrest, [(b.min_unrest, b.penalty) for b in T.core().unrest_band])


ability_mod = R.ability_mod


def anarchy_threshold(state: KingdomState) -> int:
    """Unrest at which anarchy starts: the option (20, §5.4) plus feats that raise it (Endure Anarchy +4)."""
    extra = sum(eff.value for _, eff in _feat_effects(state) if eff.kind == "anarchy_threshold")
    return int(state.options.get("anarchy_threshold", 20)) + extra


def in_anarchy(state: KingdomState) -> bool:
    """Unrest >= the anarchy threshold (§2.11.12), unless Fame was spent to avert it this turn (§3.0.7)."""
    return state.unrest >= anarchy_threshold(state) and not state.anarchy_averted


def fame_max(state: KingdomState) -> int:
    """3, or 4 from level 20 (Envy of the World, §2.1)."""
    return R.fame_cap(state.level)


def vacant(state: KingdomState, role: str) -> bool:
    return state.leaders[role].holder is None


def penalized_roles(state: KingdomState) -> list[str]:
    """Roles taking their vacancy penalty now: vacant, or chosen at U1 (§3.1 U1); a role the kingdom chose for
    Civil Service takes none (§5.5 feats)."""
    spared = set(state.feat_choices.get("civil-service", ())) if any(
        eff.kind == "vacancy_ignored" for _, eff in _feat_effects(state)) else set()
    return [r for r in T.ROLES if (vacant(state, r) or state.leaders[r].vacancy_penalty) and r not in spared]


def control_dc(state: KingdomState) -> Breakdown:
    """Control DC = level base + size modifier + 2 if the Ruler is vacant (§2.11.1, §5.1, §5.2)."""
    level = max(1, min(20, state.level))
    base = T.core().control_dc_by_level[level - 1]
    band = size_band(size_of(state))
    terms = [Term(f"level {level}", base, "base"), Term(f"size {size_of(state)} ({band.nation})", band.control_dc_mod)]
    if "ruler" in penalized_roles(state):
        terms.append(Term("Ruler vacant", T.roles()["ruler"].vacancy_control_dc, "untyped", "vacancy"))
    return Breakdown("Control DC", sum(int(t.value) for t in terms), tuple(terms))


def resource_dice(state: KingdomState) -> Breakdown:
    """Resource Dice = max(0, level + 4 + bonus - penalty) (§2.11.3), with the settlements' extra dice when the
    campaign gives them (options resource_dice_per_village/town/city/metropolis, a common house rule)."""
    terms = [Term("level", state.level), Term("base", 4)]
    for title, eff in _feat_effects(state):
        if eff.kind == "resource_dice" and eff.value:
            terms.append(Term(f"feat {title}", eff.value, "feat"))
    for st in state.settlements:
        extra = int(state.options.get(f"resource_dice_per_{st.type}", 0))
        if extra:
            terms.append(Term(f"{st.name} ({st.type})", extra, "settlement"))
    if state.pending.bonus_dice:
        terms.append(Term("bonus dice (pending)", state.pending.bonus_dice))
    if state.pending.penalty_dice:
        terms.append(Term("penalty dice (pending)", -state.pending.penalty_dice))
    if state.pending.halve_dice and state.pending.penalty_dice >= 4:
        fewer = max(0, sum(int(t.value) for t in terms))
        halved = (fewer + 4) // 2  # the dice without the 4 fewer, halved (rounded down, CRB)
        if halved < fewer:
            terms.append(Term("halved instead of 4 fewer (pending)", halved - fewer))
    total = max(0, sum(int(t.value) for t in terms))
    return Breakdown(f"Resource Dice (d{size_band(size_of(state)).die})", total, tuple(terms))


def storage_cap(state: KingdomState, commodity: str) -> Breakdown:
    """Storage = size-band storage + structure increases for that commodity (§2.11.4)."""
    band = size_band(size_of(state))
    terms = [Term(f"size band {band.nation}", band.storage)]
    for st in state.settlements:
        for b in st.structures:
            if b.storage.get(commodity):
                terms.append(Term(f"{b.name} ({st.name})", b.storage[commodity], "structure"))
    return Breakdown(f"{commodity} storage", sum(int(t.value) for t in terms), tuple(terms))


def hex_distance(state: KingdomState, a: str, b: str) -> int | None:
    """Steps between hexes ``a`` and ``b`` (0 for the same hex); None while either is unplaced or unknown."""
    if a == b:
        return 0
    ha, hb = hex_by_id(state, a), hex_by_id(state, b)
    if ha is None or hb is None or ha.at is None or hb.at is None:
        return None
    return distance(ha.at, hb.at)


def influencing_settlements(state: KingdomState, hid: str) -> list[tuple[Settlement, int]]:
    """(settlement, distance) for each settlement whose influence covers hex ``hid`` (§2.8: village 0, town 1,
    city 2, metropolis 3 hexes), nearest first. Only settlements whose distance to the hex is known count."""
    out = []
    for st in state.settlements:
        d = hex_distance(state, hid, st.hex)
        if d is not None and d <= st.influence:
            out.append((st, d))
    return sorted(out, key=lambda x: (x[1], not x[0].capital, x[0].id))


def farmland_in_influence(state: KingdomState, h: Hex) -> bool:
    """Whether claimed Farmland hex ``h`` lies inside at least one settlement's influence (§2.11.8).

    Computed from the map; a hex (or the settlement it was established for) without coordinates uses the
    distance recorded when the Farmland was established (logs from before hex coordinates).
    """
    if influencing_settlements(state, h.id):
        return True
    by_id = {s.id: s for s in state.settlements}
    st = by_id.get(h.farmland_of)
    if st is None or hex_distance(state, h.id, st.hex) is not None:
        return False
    return h.farmland_distance <= st.influence


def farmland_count(state: KingdomState) -> int:
    """Claimed Farmland hexes inside at least one settlement's influence (§2.11.8)."""
    return sum(1 for h in state.hexes if h.claimed and "farmland" in h.features and farmland_in_influence(state, h))


def hex_at(state: KingdomState, at: Axial) -> Hex | None:
    """The hex of the map at axial ``at``, or None."""
    return next((h for h in state.hexes if h.at == at), None)


def kingdom_coords(state: KingdomState) -> list[Axial]:
    """Coordinates of the kingdom's claimed, placed hexes."""
    return [h.at for h in state.hexes if h.claimed and h.at is not None]


def unplaced_claimed(state: KingdomState) -> list[str]:
    """Claimed hexes without coordinates (a log from before hex coordinates, until the GM places them)."""
    return [h.id for h in state.hexes if h.claimed and h.at is None]


def adjacent_to_kingdom(state: KingdomState, at: Axial) -> bool:
    """Whether ``at`` shares a side with a claimed hex of the kingdom (§4.8 Claim Hex)."""
    return touches(at, kingdom_coords(state))


def settlement_facts(state: KingdomState, st: Settlement) -> dict[str, Any]:
    """What a structure's surroundings condition reads about its settlement: ``water`` (a river or lake in its
    hex: a water border), ``farmland`` (Farmland in its influence), ``structures`` (names standing), ``type``."""
    home = hex_by_id(state, st.hex)
    farms = sum(1 for h in state.hexes if h.claimed and "farmland" in h.features
                and any(x.id == st.id for x, _ in influencing_settlements(state, h.id)))
    return {"water": bool(home and (home.river or home.lake or "irrigation" in home.features)),
            "farmland": farms > 0, "farmland_hexes": farms,
            "structures": [b.name for b in st.structures if not b.damaged], "type": st.type, "capital": st.capital,
            "bridge": bool(home and "bridge" in home.features)}


def settlement_consumption(state: KingdomState, st: Settlement) -> int:
    """A settlement's Consumption (§2.8, §5.10): its type's, minus structure reductions, at least 0.

    A reduction counts only while its surroundings condition holds (a Mill needs water); identical structures'
    reductions count once unless they stack (§5.15 stacking flag; structures recorded before the flag add up);
    an edifice's, once; a damaged structure's, not at all.
    """
    base = settlement_type_for(max(1, st.blocks_used)).consumption
    facts = settlement_facts(state, st)
    # option structure_reduction_conditions: the rules text's surroundings (a Mill's water; default) or the
    # published tool's reading, which counts every reduction wherever the structure stands
    surroundings = state.options.get("structure_reduction_conditions", "apply") == "apply"
    seen: set[str] = set()
    total = 0
    for b in st.structures:
        if not b.consumption_reduction or b.damaged or (surroundings and not holds(b.reduction_when, facts)):
            continue
        stacks = True if b.reduction_stacks is None else b.reduction_stacks and not b.edifice
        if not stacks and b.name in seen:
            continue
        seen.add(b.name)
        total += b.consumption_reduction
    return max(0, base - total)


def consumption(state: KingdomState) -> Breakdown:
    """Consumption = max(0, settlements + armies - farmland + events + pending) (§2.11.8)."""
    terms = [Term(f"{s.name} ({s.type})", settlement_consumption(state, s), "settlement") for s in state.settlements]
    for army, value in sorted(state.armies.items()):
        terms.append(Term(f"army {army}", value, "army"))
    for unit in state.army_units:
        if unit.side == "kingdom" and "destroyed" not in unit.conditions:
            terms.append(Term(f"army {unit.name}", army_upkeep(state, unit), "army"))
    farms = farmland_count(state)
    if farms:
        terms.append(Term("farmland in influence", -farms, "farmland"))
    for ev in state.ongoing_events:
        if ev.consumption_delta:
            terms.append(Term(f"event {ev.name}", ev.consumption_delta, "event"))
    if state.pending.consumption:
        terms.append(Term("pending", state.pending.consumption, "event"))
    total = max(0, sum(int(t.value) for t in terms))
    return Breakdown("Consumption", total, tuple(terms))


def army_upkeep(state: KingdomState, unit: Army) -> int:
    """What an army costs at Upkeep (Appendix 3): its Consumption after a garrison's reduction; Live Off The
    Land: 1 less (not below 0) in a hex without a settlement while not garrisoned; Self-Sufficient (Nomen
    Scouts, Consumption -1): nothing while defeated."""
    if unit.consumption < 0 and "defeated" in unit.conditions:
        return 0
    cost = unit.upkeep
    if "live-off-the-land" in unit.tactics and not unit.garrison_consumption and "fortified" not in unit.conditions:
        home = hex_by_id(state, unit.hex)
        if home is not None and "settlement" not in home.features and cost > 0:
            cost -= 1
    return cost


def hex_by_id(state: KingdomState, hid: str) -> Hex | None:
    """The hex ``hid`` of the map (claimed or not), or None."""
    for h in state.hexes:
        if h.id == hid:
            return h
    return None


def capital(state: KingdomState) -> Settlement | None:
    for s in state.settlements:
        if s.capital:
            return s
    return None


def leadership_slots(state: KingdomState, role: str) -> int:
    """Leadership activities of a PC leader: 3 with a seat in the capital, else the option (2) (§2.11.9)."""
    ld = state.leaders[role]
    if ld.holder is None or ld.kind != "pc":
        return 0
    cap = capital(state)
    base = 3 if cap is not None and cap.has_seat else int(state.options.get("leadership_activities_without_seat", 2))
    return max(0, base - ld.forfeit)


def claim_limit(level: int) -> int:
    """Claim Hex uses per turn: 1 / 2 / 3 at levels 1 / 4 / 9 (§5.9)."""
    out = 1
    for lv, n in T.core().claim_hex_limits:
        if level >= lv:
            out = n
    return out


def region_slots(state: KingdomState) -> int:
    """3 Region activities, plus extras from Claim Hex critical successes (§5.9)."""
    return 3 + state.extra_region


def civic_slots(state: KingdomState, settlement_id: str) -> int:
    """Civic activities left usable in a settlement: 1 each; from level 12 (Civic Planning) one
    settlement of choice gets a second, so a settlement may take 2 while no other has (§2.11.11)."""
    used: dict[str, int] = {}
    for u in state.used_this_turn:
        if u.category == "civic":
            used[u.settlement] = used.get(u.settlement, 0) + 1
    planning_taken = any(n >= 2 for sid, n in used.items() if sid != settlement_id)
    return 2 if state.level >= 12 and not planning_taken else 1


def invested_bonus(level: int) -> int:
    """+1 / +2 / +3 status at levels 1 / 8 / 16 (§5.7, Experienced Leadership)."""
    out = 0
    for lv, n in T.core().invested_bonus:
        if level >= lv:
            out = n
    return out


def proficiency_bonus(rank: str, level: int, untrained: str = "none") -> int:
    """0 untrained; level + 2/4/6/8 (§5.7). ``untrained``: the homebrew untrained improvisation (option
    ``untrained_proficiency``: "half_level" adds half the level rounded down, "level" the level).

    >>> proficiency_bonus("trained", 1), proficiency_bonus("untrained", 5), proficiency_bonus("master", 3)
    (3, 0, 9)
    >>> proficiency_bonus("untrained", 5, "half_level"), proficiency_bonus("untrained", 5, "level")
    (2, 5)
    """
    if rank == "untrained":
        return {"half_level": level // 2, "level": level}.get(untrained, 0)
    add = T.core().proficiency[rank]  # type: ignore[index]
    return R.proficiency_bonus(add, level)


def rank_at_least(rank: str, needed: str) -> bool:
    return T.RANKS.index(rank) >= T.RANKS.index(needed)


def skill_rank_needed(state: KingdomState, act: T.Activity, skill: str) -> str:
    """The proficiency ``skill`` needs for ``act`` (§4): the activity's own, trained where its campaign option
    says so, and the skill's own minimum where the data gives one."""
    needed = act.proficiency
    if act.proficiency_option and state.options.get(act.proficiency_option, False):
        needed = "trained"
    per_skill = act.skill_proficiency.get(skill)
    if per_skill and T.RANKS.index(per_skill) > T.RANKS.index(needed):
        needed = per_skill
    return needed


def activity_skill_refusal(state: KingdomState, act: T.Activity, skill: str, *,
                           membership: bool = True) -> tuple[str, str] | None:
    """Why ``act`` cannot be made with ``skill`` now, as ``(message, rule)``, or None (§4): a skill outside the
    activity's skills (unless ``membership`` is False: the target decides the skill), or below the rank it needs.
    The step refuses with these words and the sheet's skill picker marks them."""
    if not act.skills:
        return None
    if membership and skill not in act.skills:
        return f"{act.name} uses {', '.join(act.skills)}, not {skill!r}", "§4 activity skills"
    needed = skill_rank_needed(state, act, skill)
    if not rank_at_least(state.skills.get(skill, "untrained"), needed):
        return f"{act.name} needs {needed} proficiency in {skill}", "§4 proficiency requirement"
    return None


def structure_skill_refusal(state: KingdomState, struct: T.Structure, skill: str) -> tuple[str, str] | None:
    """Why ``struct`` cannot be built with ``skill`` now, as ``(message, rule)``, or None (§4.9.4, §5.15)."""
    if skill not in struct.skills:
        return f"{struct.name} is built with {', '.join(struct.skills)}, not {skill}", "§4.9.4"
    if not rank_at_least(state.skills.get(skill, "untrained"), struct.proficiency):
        return f"{struct.name} needs {struct.proficiency} {skill}", "§5.15 structure check"
    return None


def _norm(name: str) -> str:
    return "-".join(name.lower().replace("_", " ").split())


def activity_lock(state: KingdomState, act: T.Activity) -> str:
    """What an activity still needs to be taken ("" = available).

    unlocked_by "structure:<name>": that structure stands in a settlement (or any standing structure lists the
    activity in its ``unlocks``); "companion:<name>": that companion holds a leadership role; "gm": a story
    unlock the GM records (upkeep.leadership choice ``unlock_activities``). Campaign option
    ``unlock_all_activities`` lifts every lock.
    """
    if not act.unlocked_by or state.options.get("unlock_all_activities", False):
        return ""
    if act.name in state.unlocked_activities:
        return ""
    kind, _, name = act.unlocked_by.partition(":")
    structs = T.catalog(state.homebrew).structures
    standing = {b.name for st in state.settlements for b in st.structures}
    if any(act.name in structs[n].unlocks for n in standing if n in structs):
        return ""
    if kind == "structure":
        built = structs.get(name)  # by its title, lower case as a common noun ("a printing house"; it read its id)
        said = (built.title if built is not None and built.title else name).lower()
        return "" if name in standing else f"a {said} built in a settlement"
    if kind == "companion":
        holders = {_norm(ld.holder) for ld in state.leaders.values() if ld.holder}
        # the companion by name ("Nok-Nok"; it read "the companion nok-nok", the data's key)
        return "" if _norm(name) in holders else f"the companion {name.title()} in a leadership role"
    return "the GM's story unlock (Unlock activities, at the start of the month)"


_LEGACY = {"warfare_activities": "warfare", "region_activities": "category == region", "all": "true"}


def predicate_text(selector: str) -> str:
    """A selector as a ``core.effects.Predicate`` text: the data's compact forms are translated.

    "all"; "ability:<a>", "skill:<s>", "activity:<name>", "category:<c>", joined by "+" (and); "activity:<name>:
    <target>" (only that target: the Ruin repaired, the work site's commodity, the structure built);
    "warfare_activities", "region_activities"; or any predicate expression.

    >>> predicate_text("activity:build-structure:castle")
    'activity == build-structure and target == castle'
    >>> predicate_text("skill:magic+activity:quell-unrest"), predicate_text("warfare_activities")
    ('skill == magic and activity == quell-unrest', 'warfare')
    """
    text = selector.strip()
    if not text:
        return "true"
    if text in _LEGACY:
        return _LEGACY[text]
    if " " not in text and ":" in text:
        parts = []
        for term in text.split("+"):
            if term in _LEGACY:
                parts.append(_LEGACY[term])
                continue
            key, _, rest = term.partition(":")
            val, _, target = rest.partition(":")
            parts.append(f"{key} == {val}" + (f" and target == {target}" if target else ""))
        return " and ".join(parts)
    return text


def selector_matches(selector: str, facts: Mapping[str, Any]) -> bool:
    """Whether a modifier's selector picks a check with these facts (see ``predicate_text``)."""
    return holds(predicate_text(selector), facts)


def check_facts(state: KingdomState, skill: str, *, activity: str = "", category: str = "", warfare: bool = False,
                target: str = "", role: str = "", settlement: str = "", hex: str = "",
                traits: Sequence[str] = (), event: str = "") -> dict[str, Any]:
    """The facts of one check that selectors and conditions read (with the kingdom's, see ``state_facts``)."""
    return {**state_facts(state), "skill": skill, "ability": T.core().skills.get(skill, ""), "activity": activity,
            "category": category, "warfare": warfare, "target": target, "role": role, "settlement": settlement,
            "hex": hex, "traits": list(traits), "event": event or (activity if category == "event" else "")}


def state_facts(state: KingdomState) -> dict[str, Any]:
    """The kingdom's facts for conditions: unrest, level, fame, at_war, anarchy, size, turn, the structures
    standing anywhere, the ongoing events, the flags of this turn."""
    return {"unrest": state.unrest, "level": state.level, "fame": state.fame, "fame_zero": state.fame == 0,
            "fame_positive": state.fame > 0, "at_war": state.at_war, "anarchy": in_anarchy(state),
            "size": size_of(state), "turn": state.turn, "rp": state.rp,
            "structures": sorted({b.name for st in state.settlements for b in st.structures if not b.damaged}),
            "ongoing": [e.name for e in state.ongoing_events], "flags": list(state.flags),
            "relations": list(state.diplomatic_relations), "trade_agreements": list(state.trade_agreements),
            "feats": list(state.feats), "enemies": list(state.enemies),
            "cooldowns": [k for k, t in state.cooldowns.items() if t >= state.turn],
            "armies": len([a for a in state.army_units if a.side == "kingdom"])}


def _feat_effects(state: KingdomState) -> list[tuple[str, T.FeatEffect]]:
    """(feat title, effect) for every feat the kingdom has, from the campaign's catalogue (feats.toml)."""
    cat = T.catalog_feats(state.homebrew)  # only feats.toml: no activities or events parsed to render a state
    out: list[tuple[str, T.FeatEffect]] = []
    for name in dict.fromkeys(state.feats):  # a repeatable feat's effects count once
        fd = cat.get(name)
        if fd is not None:
            out.extend((fd.title or fd.name, eff) for eff in fd.effects)
    return out


def feat_effects(state: KingdomState, kind: str) -> list[tuple[str, T.FeatEffect]]:
    """The kingdom's feat effects of ``kind`` (title, effect)."""
    return [(t, e) for t, e in _feat_effects(state) if e.kind == kind]


def feat_modifiers(state: KingdomState, facts: Mapping[str, Any]) -> list[StackMod]:
    """The feats' bonuses that apply to a check with these facts (§5.5 kingdom feats, data/feats.toml)."""
    out: list[StackMod] = []
    for title, eff in feat_effects(state, "modifier"):
        if holds(predicate_text(eff.selector), facts) and holds(eff.when, facts):
            out.append(StackMod(f"feat {title}", eff.value, eff.type, f"feat:{eff.selector}"))
    return out


def feat_critical_dice(state: KingdomState, facts: Mapping[str, Any]) -> list[tuple[str, int]]:
    """(feat title, bonus Resource Dice next turn) owed by feats after a critical success on this check."""
    return [(title, eff.value) for title, eff in feat_effects(state, "critical_success_dice")
            if eff.value and holds(predicate_text(eff.selector), facts) and holds(eff.when, facts)]


def feat_unrest_reduction(state: KingdomState) -> list[tuple[str, int]]:
    """(feat title, extra Unrest reduction) for Activity-phase outcomes at the current Unrest."""
    facts = state_facts(state)
    return [(title, eff.value) for title, eff in feat_effects(state, "unrest_reduction")
            if eff.value and holds(eff.when, facts)]


Location = tuple[str, str]
"""Where a check happens: (settlement id, hex id); either may be empty."""


def bonus_settlements(state: KingdomState, settlement: str = "", hex: str = "") -> list[Settlement]:
    """The settlements whose structures' item bonuses reach a check made at this place (§5.10 influence).

    A check in a settlement: that settlement's structures; in a hex: those of every settlement whose influence
    covers the hex (the best single settlement counts when identical structures overlap, AoN 1829); nowhere
    named: the capital's. Campaign option ``structure_bonus_scope = "kingdom"`` restores older versions' reading
    (every settlement's structures, kingdom-wide); ``capital_structures_everywhere`` adds the capital's
    structures to every check (a common house rule).
    """
    if state.options.get("structure_bonus_scope", "location") == "kingdom":
        return list(state.settlements)
    out: list[Settlement] = []
    if settlement:
        out = [st for st in state.settlements if st.id == settlement]
    elif hex:
        out = [st for st, _ in influencing_settlements(state, hex)]
    else:
        cap = capital(state)
        out = [cap] if cap is not None else []
    if state.options.get("capital_structures_everywhere", False):
        cap = capital(state)
        if cap is not None and cap not in out:
            out.append(cap)
    return out


def structure_bonuses(state: KingdomState, facts: Mapping[str, Any], settlement: str = "",
                      hex: str = "") -> list[StackMod]:
    """Item bonuses of structures reaching the check (one term per settlement and structure type).

    Identical structures in one settlement add up to the settlement type's maximum item bonus when they stack
    (§5.10 Max Item Bonus; an edifice counts once); different structures do not stack (item bonuses keep the
    best, §5.7); a damaged structure gives nothing until repaired.
    """
    out: list[StackMod] = []
    for st in bonus_settlements(state, settlement, hex):
        cap = settlement_type_for(max(1, st.blocks_used)).max_item_bonus
        by_name: dict[str, list[int]] = {}
        stack_flag: dict[str, bool] = {}
        for b in st.structures:
            if b.damaged:
                continue
            best = max((v for sel, v in b.item_bonuses.items() if selector_matches(sel, facts)), default=0)
            if best > 0:
                by_name.setdefault(b.name, []).append(best)
                stack_flag[b.name] = (b.item_bonus_stacks is not False) and not b.edifice
        for name, vals in sorted(by_name.items()):
            value = combine(vals, stacks=stack_flag[name], cap=cap)
            if value > 0:
                n = f" x{len(vals)}" if len(vals) > 1 and stack_flag[name] else ""
                out.append(StackMod(f"{name}{n} ({st.name})", value, "item", f"structure:{st.id}:{name}"))
    return out


def ongoing_event_modifiers(state: KingdomState, facts: Mapping[str, Any], settlement: str) -> list[StackMod]:
    """The modifiers ongoing events give a check (an event's ``while_ongoing``; Plague, KMT data/events/Plague.json:
    "a -2 status penalty to all Civic activities made in a settlement suffering from a plague unless the
    settlement has a sewer system"), for as long as the event goes on."""
    if not state.ongoing_events:
        return []  # (no data file is read for a kingdom without ongoing events: `kingdomlog state` renders 16 checks)
    events = T.catalog_events(state.homebrew)
    here = next((x for x in state.settlements if x.id == settlement), None) if settlement else None
    built = [b.name for b in here.structures if not b.damaged] if here is not None else []
    out: list[StackMod] = []
    for ev in state.ongoing_events:
        ed = events.get(ev.name)
        if ed is None or not ed.while_ongoing:
            continue
        seen = {**facts, "struck": bool(settlement) and ev.settlement == settlement, "settlement_structures": built}
        for m in ed.while_ongoing:
            if m.kind == "modifier" and selector_matches(m.selector, seen):
                out.append(StackMod(m.note or f"event {ed.title or ed.name}", m.value, m.type,
                                    f"event:{ev.name}:{ev.settlement}"))
    return out


def check_modifier(state: KingdomState, skill: str, *, activity: str = "", category: str = "",
                   warfare: bool = False, role: str = "", extra: list[StackMod] | None = None,
                   target: str = "", settlement: str = "", hex: str = "", traits: Sequence[str] = (),
                   event: str = "") -> Breakdown:
    """A kingdom check's modifier, term by term (§2.11.7, §5.7).

    Ability modifier + proficiency + invested status bonus + unrest status penalty + Ruin item penalty +
    vacancy penalties + temporary modifiers + feat bonuses + the item bonuses of structures that reach the
    check's place (``settlement`` / ``hex``, §5.10), stacked by type (best bonus and worst penalty per type;
    untyped add).
    """
    ability = T.core().skills[skill]
    facts = check_facts(state, skill, activity=activity, category=category, warfare=warfare, target=target,
                        role=role, settlement=settlement, hex=hex, traits=traits, event=event)
    rank = state.skills.get(skill, "untrained")
    untrained = str(state.options.get("untrained_proficiency", "none"))
    mods: list[StackMod] = [
        StackMod(f"{ability} modifier", ability_mod(state.scores[ability]), "ability"),
        StackMod(f"{skill} {rank}", proficiency_bonus(rank, state.level, untrained), "proficiency"),
    ]
    invested = [r for r in T.ROLES if state.leaders[r].invested and state.leaders[r].holder
                and T.roles()[r].key_ability == ability]
    if invested:
        mods.append(StackMod(f"invested {invested[0]}", invested_bonus(state.level), "status", "invested"))
    up = unrest_penalty(state.unrest)
    if up:
        mods.append(StackMod(f"unrest {state.unrest}", up, "status", "unrest"))
    for rname, info in T.core().ruins.items():
        if info.ability == ability and state.ruin[rname].penalty:
            mods.append(StackMod(f"{rname} penalty", -state.ruin[rname].penalty, "item", "ruin"))
    vac_type = str(state.options.get("vacancy_penalty_type", "untyped"))
    for r in penalized_roles(state):
        rinfo = T.roles()[r]
        if selector_matches(rinfo.vacancy_selector, facts):
            mods.append(StackMod(f"{r} vacancy", rinfo.vacancy_value, vac_type, "vacancy"))
    for m in state.modifiers:
        if selector_matches(m.selector, facts):
            mods.append(StackMod(m.source, m.value, m.type, m.id))
    mods.extend(feat_modifiers(state, facts))
    mods.extend(ongoing_event_modifiers(state, facts, settlement))
    if role and state.leaders.get(role) and state.leaders[role].leadership_modifier:
        ld = state.leaders[role]
        if (ld.leadership_modifier < 0 and category in ("leadership", "region", "civic", "army")) or (
                ld.leadership_modifier > 0):
            mods.append(StackMod(f"{role} new leadership", ld.leadership_modifier, "circumstance", "leader"))
    mods.extend(structure_bonuses(state, facts, settlement, hex))
    mods.extend(extra or [])
    return stack(f"{skill} ({ability})", mods, always_stack=frozenset({"untyped", "ability", "proficiency"}))


def explain_all(state: KingdomState) -> list[Breakdown]:
    """Every derived number of the state, term by term."""
    out = [control_dc(state), resource_dice(state), consumption(state)]
    out.extend(storage_cap(state, c) for c in T.COMMODITIES)
    out.append(Breakdown("Unrest penalty", unrest_penalty(state.unrest), (Term(f"unrest {state.unrest}",
                                                                                  unrest_penalty(state.unrest),
                                                                                  "status"),)))
    for r in T.RUINS:
        ru = state.ruin[r]
        out.append(Breakdown(f"{r} penalty", -ru.penalty, (Term(f"{r} {ru.points}/{ru.threshold}", -ru.penalty,
                                                                   "item"),)))
    for skill in T.core().skills:
        out.append(check_modifier(state, skill))
    return out


def unnamed(state: KingdomState) -> list[tuple[str, str]]:
    """The settlements and leaders still without a name, as (the id to name them by, their placeholder): a
    settlement by its id (its Foundry scene's), a leader by their Foundry actor's id (or role, when the export
    named no actor)."""
    out = [(st.id, st.name) for st in state.settlements if st.name.endswith(UNNAMED)]
    out += [(ld.foundry_id or role, ld.holder) for role, ld in state.leaders.items()
            if ld.holder is not None and ld.holder.endswith(UNNAMED)]
    return out
