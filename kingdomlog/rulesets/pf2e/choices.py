"""The typed choices of every pf2e step, and ``vocabulary``: the values each ``Pick`` allows in a state.

Every field has a default, so a plan with ``"steps": {}`` plays a legal, short turn (taxes collected,
Consumption paid in Food first, no optional activities). A default of ``None`` means "what the rules
choose" (computed by the step from the state: the party level already set, the Food in store, the
activity's first skill, ...). Values that name something of the campaign (a role, a settlement, a hex,
an activity, a structure, a feat, an ongoing event) are ``Pick`` fields: ``vocabulary`` lists the
allowed ones with what a GM weighs (modifier, cost, stock). Rules that depend on more than the name
(a structure above the kingdom's level, a locked activity, an NPC acting) stay the step's ``RuleError``
naming the rule, so a vocabulary lists every known name and says why one would be refused in its detail.

Validation sees the state at the start of a step. In the Region step a row may name a hex or a
settlement created by an earlier row of the same step (claim a hex, then put a work site on it), so
those fields are open there (``region_hexes``, ``region_second_hexes``, ``region_settlements``); the activity
checks them. A hex the row's activity would refuse whatever the earlier rows do (Claim Hex on a hex the kingdom
already holds, when no Abandon Hex row of the step names it) is listed as disabled, so the sheet's map fades it.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, Strict, field_validator

from kingdomlog.core.choices import KEY, LIMIT, PARENT, ROLLED, Amount, Choices, Count, Option, Pick
from kingdomlog.core.effects import check_predicate
from kingdomlog.core.errors import InputError
from kingdomlog.core.memo import ByIdentity
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.names import selector_words
from kingdomlog.rulesets.pf2e.rules import check_amount
from kingdomlog.rulesets.pf2e.state import (
    KingdomState,
    activity_lock,
    activity_skill_refusal,
    adjacent_to_kingdom,
    check_modifier,
    skill_rank_needed,
    structure_skill_refusal,
)

Ability = T.Ability
Commodity = T.Commodity
RuinName = T.RuinName
RoleName = T.RoleName
Downtime = Literal["forfeit_activity", "vacancy_penalty"]


def _skill(source: str = "skills", **kw: Any) -> Any:
    return Pick(source, what="a kingdom skill", **kw)


# ------------------------------------------------------------------ shared entries


class HexEntry(Choices):
    """A hex described in full (a hex new to the map, or facts added to a known one).

    ``q``/``r`` are its axial coordinates (neighbours differ by one step in q, in r, or in q and -r
    together): a hex new to the map needs them; a known hex keeps the place it has on the map.
    """

    id: str = Field(min_length=1, title="Hex id")
    terrain: T.Terrain = "plains"
    river: bool = False
    lake: bool = False
    features: list[T.Feature] = Field(default_factory=list)
    resource: Literal["", "lumber", "ore", "stone"] = ""
    q: Amount | None = Field(default=None, title="Column", description="where it is on the map, as the hexes table"
                             " says it (a hex new to the map needs its column and row)")
    r: Amount | None = Field(default=None, title="Row", description="its row on the map, as the hexes table says it")


class MapEntry(Choices):
    """A hex the GM puts on the map (or moves on it): axial coordinates, and any facts to set."""

    id: str = Field(min_length=1, title="Hex id", description="a hex of the kingdom, or a new hex of the map")
    q: Amount = Field(title="Column", description="its column on the map, as the hexes table says it (a neighbour is"
                      " one column or one row away, or one column on and one row back, or the reverse)")
    r: Amount = Field(title="Row", description="its row on the map, as the hexes table says it")
    terrain: T.Terrain | None = Field(default=None, description="default: as it is (a new hex: plains)")
    river: bool | None = None
    lake: bool | None = None
    features: list[T.Feature] | None = Field(default=None, description="default: as they are")
    resource: Literal["", "lumber", "ore", "stone"] | None = None


class EffectEntry(Choices):
    """One effect of the GM's ruling, shaped like the outcome effects of the data (data/activities.toml)."""

    model_config = ConfigDict(title="Effect")

    kind: T.EffectKind
    amount: Amount | str = Field(default=0, description="an integer, dice (\"1d4\", \"-1d6\") or Resource Dice"
                                                     " (\"rd\", \"2rd\")")
    target: str = ""
    count: int = Field(default=1, ge=0, le=100)
    selector: str = ""
    value: Amount = 0
    type: T.BonusType = "circumstance"
    expires: T.Expiry = "end_of_this_turn"
    turns: Count = 0
    when: str = Field(default="", description="a condition on the check, e.g. \"ability == culture\" or"
                                              " \"category == leadership\": the effect applies only then")
    options: list[list[EffectEntry]] = Field(default_factory=list)
    note: str = ""

    @field_validator("amount")
    @classmethod
    def _amount(cls, v: int | str) -> int | str:
        if isinstance(v, str):
            try:
                check_amount(v)
            except InputError as exc:
                raise ValueError(str(exc)) from None
            big = next((int(n) for n in re.findall(r"\d+", v) if int(n) > LIMIT), None)
            if big is not None:
                raise ValueError(f"amount {v!r}: {big} is above the largest allowed, {LIMIT}")
        return v

    @field_validator("when", "selector")
    @classmethod
    def _predicate(cls, v: str) -> str:
        try:
            return check_predicate(v)
        except InputError as exc:
            raise ValueError(str(exc)) from None


Lot = Annotated[int, Field(ge=0, le=3, description="a lot of a block (0-3, §4.9.2)")]
LotPair = Annotated[tuple[Count, Lot], Strict(False), Pick("lots", what="a lot of the settlement's grid",
                                                           depends=("settlement",), open=True)]
"""A (block, lot) pair: offered from the grid of the entry's settlement (the capital when none is named); any pair
goes (the event's rule checks it). Not strict: a plan read back from JSON gives the pair as a list."""

# What the outcome effects of a check may ask (a branch, the Ruins "of your choice", the GM's ruling),
# declared once and used by every step and row that resolves a check.
BranchOption = Annotated[int | None, Field(ge=0, le=LIMIT,
                                           description="which branch of an either/or outcome (0, 1, ...)")]
EventBranch = Annotated[BranchOption, Pick("event_branches", what="a branch of the event's outcome", depends=("event",),
                                          open=True), Field(title="If the outcome asks: which")]
"""An event's branch, offered in words (``event_branches``); any number goes (the outcome checks it)."""
RuinChoice = Annotated[RuinName | None, Field(description="the Ruin targeted, or \"a Ruin of your choice\"")]
RuinsChoice = Annotated[list[RuinName] | None, Field(description="the Ruins \"of your choice\" when several")]
GMEffects = Annotated[list[EffectEntry], Field(
    default_factory=list, title="GM-ruled effects",
    description="effects the GM rules beside (or instead of) the data's outcome (the rules leave them to the GM;"
                " each is shaped like an outcome effect of the data)")]
FameReroll = Annotated[bool, Field(description="spend 1 Fame to re-roll the check (§3.0.8)")]
AvertRuin = Annotated[bool, Field(description="spend all Fame to avert a Ruin penalty (§3.0.7)")]
CrushDissent = Annotated[bool, Field(description="Crush Dissent (feat): a Warfare check against the step's first"
                                                 " Unrest gain (success: none; critical failure: doubled)")]
Liquidate = Annotated[bool, Field(description="Liquidate Resources (feat): the turn's first forced RP spend that"
                                              " would empty the treasury leaves 1 RP (4 fewer Resource Dice next"
                                              " turn)")]


# ------------------------------------------------------------------ founding


class LeaderEntry(Choices):
    holder: str | None = Field(default=None, description="who holds the role (empty: vacant)")
    kind: Literal["pc", "npc"] = "pc"
    invested: bool = False


class CapitalEntry(Choices):
    id: str = Field(default="capital", min_length=1)
    name: str = "Capital"
    hex: str = Field(default="H0", min_length=1)
    terrain: T.Terrain = "plains"


class ResumeEntry(Choices):
    """A running kingdom imported mid-campaign."""

    turn: Count = Field(default=0, description="kingdom turns already played")
    xp: Count = 0
    unrest: Count = 0
    ruin_points: dict[RuinName, Count] = Field(default_factory=dict)
    event_dc: int = Field(default=16, ge=1, le=LIMIT)
    milestones: list[Annotated[str, Pick("milestones", what="a milestone")]] | None = Field(
        default=None, description="milestones already earned (default: those the imported state shows)")


def _final_boosts() -> list[Ability]:
    return ["loyalty", "economy"]


def _default_leaders() -> dict[RoleName, LeaderEntry]:
    return {
        "ruler": LeaderEntry(holder="Ruler", kind="pc", invested=True),
        "counselor": LeaderEntry(holder="Counselor", kind="pc", invested=True),
        "treasurer": LeaderEntry(holder="Treasurer", kind="pc", invested=True),
        "general": LeaderEntry(holder="General", kind="pc", invested=True),
        "emissary": LeaderEntry(holder="Emissary", kind="npc"),
        "viceroy": LeaderEntry(holder="Viceroy", kind="npc"),
        "warden": LeaderEntry(holder="Warden", kind="npc"),
    }


class FoundingChoices(Choices):
    """Turn 0 (§2): charter, heartland, government, ability boosts, skills, leaders, the capital."""

    name: str = Field(default="Kingdom", title="Kingdom name")
    charter: Annotated[str, Pick("charters", what="a charter")] = "open"
    heartland: Annotated[str, Pick("heartlands", what="a heartland")] = "forest-or-swamp"
    government: Annotated[str, Pick("governments", what="a government")] = "yeomanry"
    charter_free_boost: Ability | list[Ability] = Field(
        default="stability", description="the charter's free boost(s) (a list if more than one)")
    government_free_boost: Ability | list[Ability] = Field(
        default="stability", description="the government's free boost, not one of its fixed boosts")
    free_boosts: Ability | list[Ability] = Field(
        default_factory=_final_boosts, title="Final free boosts",
        description="as many as the option founding_free_boosts (2), to different abilities")
    trained_skills: list[Annotated[str, _skill()]] = Field(
        default_factory=lambda: ["arts", "intrigue", "politics", "trade"],
        description="up to 4 skills trained besides the government's (§5.7)")
    leaders: dict[RoleName, LeaderEntry] = Field(
        default_factory=_default_leaders, description="leaders by role; exactly four invested (§2.3)")
    capital: CapitalEntry = Field(default_factory=CapitalEntry, description="the first settlement (a village)")
    hexes: list[HexEntry] | None = Field(default=None, description="the founding hexes (default: the capital's)")
    fame_type: Literal["fame", "infamy"] = "fame"
    commodities: dict[Commodity, Count] = Field(default_factory=dict, description="starting commodities (0-4 each)")
    starting_rp: Count = Field(default=0, description="RP added at the first Resource Collection")
    party_level: int = Field(default=1, ge=1, le=20)
    structures: list[Annotated[str, Pick("structures", what="a structure")]] = Field(
        default_factory=list, description="1-lot level-1 structures already standing in the capital (setup)")
    resume: ResumeEntry | None = Field(default=None, description="import a running kingdom")
    feat_choice: list[T.RuinName | T.RoleName] = Field(
        default_factory=list, description="what the government's feat chooses (Muddle Through: the Ruins, the first"
                                          " raised most)")


# ------------------------------------------------------------------ upkeep


class NewLeaderEntry(Choices):
    """A New Leadership attempt (§4.2)."""

    role: Annotated[RoleName, Pick("roles", what="a leadership role")]
    holder: str | None = Field(default=None, description="the new leader")
    kind: Literal["pc", "npc"] = "pc"
    skill: Annotated[str | None, _skill()] = Field(
        default=None, description="Intrigue, Politics, Statecraft or Warfare (default: the role's)")
    invested: bool | None = Field(default=None, description="invest the role (default: as it was)")
    invested_roles: dict[RoleName, bool] = Field(default_factory=dict, description="roles re-invested or not")
    fame_reroll: bool = False


class RelationEntry(Choices):
    group: str = Field(min_length=1, description="the group (named by the GM)")
    kind: Literal["trade_agreement", "diplomatic_relations"]
    added: bool = True


class EnemyArmyEntry(Choices):
    """An enemy army the GM puts on the map (data/armies.toml), at a level, hidden from players until revealed."""

    id: str
    army: str = Field(description="the kind of army, as the rules' army list names it")
    name: str = ""
    level: int | None = Field(default=None, ge=1, le=20, description="default: its data's level")
    hex: str = ""
    revealed: bool = False


class LeadershipUpkeepChoices(Choices):
    """U0-U1 (§3.1): the party level, story unlocks, war and armies, relations, New Leadership, downtime."""

    party_level: int | None = Field(default=None, ge=1, le=20, description="the kingdom's maximum level"
                                                                         " (default: unchanged)")
    new_leadership: list[NewLeaderEntry] = Field(default_factory=list)
    downtime: dict[RoleName, Downtime] = Field(
        default_factory=dict, description="leaders who did NOT spend a downtime week")
    at_war: bool | None = Field(default=None, description="the kingdom is at war (default: unchanged)")
    declare_war: list[str] = Field(default_factory=list, title="Declare war on",
                                   description="groups the kingdom goes to war with, by the names the GM gives them")
    end_war: list[Annotated[str, Pick("war_enemies", what="a group the kingdom is at war with")]] = Field(
        default_factory=list, title="Make peace with", description="groups the kingdom makes peace with")
    enemy_armies: list[EnemyArmyEntry] = Field(default_factory=list, description="the GM's enemy armies entering"
                                                                              " the map")
    reveal_armies: list[Annotated[str, Pick("hidden_armies", what="an enemy army the players do not see yet")]] = Field(
        default_factory=list, title="Reveal armies", description="enemy armies the players now see")
    armies: dict[Annotated[str, Field(title="Army", description="named by the GM")],
                 Annotated[Count | None, Field(title="Consumption", description="left empty: the army is removed")]
                 ] = Field(
        default_factory=dict, title="Armies' Consumption",
        description="each army the kingdom keeps and its Consumption; an army left without one is removed")
    relations: list[RelationEntry] = Field(default_factory=list)
    unlock_activities: list[Annotated[str, Pick("all_activities", what="an activity")]] = Field(
        default_factory=list, description="activities the GM unlocks by story")
    map: list[MapEntry] = Field(
        default_factory=list, title="Hexes placed on the map",
        description="hexes the GM places (or moves) at axial coordinates: the kingdom's own hexes of a log from"
                    " before coordinates, or new hexes of the map around it")


class UnrestChoices(Choices):
    """U2 Adjust Unrest (§3.1 U2)."""

    warfare_last_turn: bool = Field(default=False, description="with abstract warfare (the campaign's warfare mode):"
                                                               " warfare took place last turn (1d6 Unrest and a Ruin"
                                                               " +1)")

    ruin_split: RuinName | dict[RuinName, Count] = Field(
        default_factory=dict, description="the 1d10 Ruin points at Unrest 10+, shared among the Ruins or all to one"
                                          " (default: spread to the Ruins furthest from overflowing)")
    lost_hex: Annotated[str | None, Pick("claimed_hexes", what="a claimed hex")] = Field(
        default=None, description="the hex lost on a failed DC 11 flat check (default, or empty: the last"
                                  " claimed hex without a settlement)")
    avert_anarchy_with_fame: bool = Field(default=False, description="spend all Fame to avert anarchy (§3.0.7)")
    avert_ruin_penalty_with_fame: AvertRuin = False
    crush_dissent: CrushDissent = False
    liquidate_resources: Liquidate = False


class ConsumptionChoices(Choices):
    """U4 Pay Consumption (§3.1 U4)."""

    food: Count | None = Field(default=None, description="Food paid (default: as much as possible)")
    remainder: Literal["rp", "unrest"] | None = Field(
        default=None, description="the rest: 5 RP each, or 1d4 Unrest (default: RP when affordable)")


# ------------------------------------------------------------------ commerce


class TaxesChoices(Choices):
    """C1 (§3.2): Collect Taxes, a DC 11 flat check, or nothing."""

    mode: Literal["collect-taxes", "flat-check", "none"] | None = Field(
        default=None, description="default: Collect Taxes, none in anarchy")
    skill: Annotated[str | None, _skill()] = None
    fame_reroll: FameReroll = False
    ruin: RuinChoice = None
    ruins: RuinsChoice = None
    gm_effects: GMEffects
    avert_ruin_penalty_with_fame: AvertRuin = False
    crush_dissent: CrushDissent = False
    liquidate_resources: Liquidate = False


class ExpensesChoices(Choices):
    """C2 (§3.2): Improve Lifestyle or Tap Treasury."""

    activity: Literal["none", "improve-lifestyle", "tap-treasury"] = "none"
    skill: Annotated[str | None, _skill()] = None
    fame_reroll: FameReroll = False
    ruin: RuinChoice = None
    ruins: RuinsChoice = None
    gm_effects: GMEffects
    avert_ruin_penalty_with_fame: AvertRuin = False
    crush_dissent: CrushDissent = False
    liquidate_resources: Liquidate = False


class TradeChoices(Choices):
    """C3 (§3.2): Trade Commodities at most once."""

    activity: Literal["none", "trade-commodities"] | None = Field(
        default=None, description="default: Trade Commodities when a commodity is named")
    commodity: Commodity | Literal[""] | None = Field(default=None, description="the commodity traded"
                                                                               " (empty: no trade)")
    quantity: Count | None = Field(default=None, description="1-4, at most the stock (default 1)")
    group: str | None = Field(default=None, description="the trading partner, as the GM names it (diplomatic"
                                                        " relations with it give +1)")
    skill: Annotated[str | None, _skill()] = None
    fame_reroll: FameReroll = False
    ruin: RuinChoice = None
    ruins: RuinsChoice = None
    gm_effects: GMEffects
    avert_ruin_penalty_with_fame: AvertRuin = False
    crush_dissent: CrushDissent = False
    liquidate_resources: Liquidate = False


class AgreementsChoices(Choices):
    """C4 (§3.2): Manage Trade Agreements."""

    activity: Literal["none", "manage-trade-agreements"] = "none"
    agreements: Count | None = Field(default=None, description="agreements managed (default: all)")
    option: Annotated[BranchOption, Pick("activity_branches", what="a branch of the outcome", depends=("activity",),
                                         open=True)] = Field(default=None, title="If the outcome asks: which")
    goods: dict[Commodity, Count] | None = Field(
        default=None, description="commodities chosen as the reward (at most m, at most half Luxuries)")
    skill: Annotated[str | None, _skill()] = None
    fame_reroll: FameReroll = False
    ruin: RuinChoice = None
    ruins: RuinsChoice = None
    gm_effects: GMEffects
    avert_ruin_penalty_with_fame: AvertRuin = False
    crush_dissent: CrushDissent = False
    liquidate_resources: Liquidate = False


# ------------------------------------------------------------------ activity phase


class ActivityRow(Choices):
    """One activity of an Activity-phase step and what it needs (docs/pf2e-plans.md, Activities)."""

    activity: str
    role: Annotated[RoleName | None, Pick("roles", what="a leadership role")] = Field(
        default=None, description="who acts (Leadership: a PC holding the role)")
    skill: Annotated[str | None, _skill("activity_skills", depends=("activity", "structure"))] = Field(
        default=None, description="one of the activity's skills (default: its first)")
    hex: Annotated[str | HexEntry | None, Pick("hexes", what="a hex of the map", depends=("activity",))] = Field(
        default=None, description="a known hex by id, or a new hex described in full")
    second_hex: Annotated[str | None, Pick("hexes", what="a hex of the map")] = Field(
        default=None, description="the second hex of a critical success (roads, farmland)")
    settlement: Annotated[str | None, Pick("settlements", what="a settlement of the kingdom")] = Field(
        default=None, description="default: the capital")
    commodity: Commodity | None = Field(default=None, description="a work site's or a trade's commodity, or the"
                                                                  " commodity an outcome lets you choose")
    ruin: RuinChoice = None
    ruins: RuinsChoice = None
    structure: Annotated[str | None, Pick("structures", what="a structure")] = None
    block: Count | None = Field(default=None, description="Build Structure / Demolish: the block")
    lots: list[Lot] | None = Field(default=None, description="Build Structure: the lots (contiguous, empty)")
    border: T.Border | None = Field(default=None, description="infrastructure on a border of the urban grid")
    use_ruins: bool = Field(default=False, description="build on the Ruins of the settlement's hex (half cost)")
    lot: Lot | None = Field(default=None, description="Demolish: the lot")
    recover: Literal["lumber", "stone", "ore"] | None = Field(
        default=None, description="Demolish critical success: the commodity recovered (1d6)")
    id: str | None = Field(default=None, description="Establish Settlement: the new settlement's id")
    name: str | None = Field(default=None, description="Establish Settlement: its name")
    quantity: Count | None = Field(default=None, description="Trade Commodities: how many")
    group: str | None = Field(default=None, description="the group dealt with, as the GM names it")
    agreements: Count | None = Field(default=None, description="Manage Trade Agreements: how many")
    goods: dict[Commodity, Count] | None = Field(
        default=None, description="Manage Trade Agreements: the commodities chosen")
    dc: Count | None = Field(default=None, description="a group's Negotiation DC, or the DC the GM rules")
    event: Annotated[str | None, Pick("ongoing_events", what="an ongoing event")] = Field(
        default=None, description="the ongoing event an event-DC activity targets")
    refuge_ruin: RuinChoice = Field(default=None, description="the Ruin a claimed Refuge lowers")
    favored_land: bool = Field(default=False, description="pair two Region activities in one heartland hex (§5.9)")
    reconnoitered: bool = Field(default=True, description="Claim Hex: the hex was Reconnoitered and cleared")
    option: Annotated[BranchOption, Pick("activity_branches", what="a branch of the outcome", depends=("activity",),
                                         open=True)] = Field(
        default=None, title="If the outcome asks: which", description="the branch taken when the outcome gives a"
                                                                       " choice (which degree: see the odds)")
    options: list[Annotated[int, Field(ge=0, le=LIMIT)]] | None = Field(
        default=None, description="the branch of each either/or outcome in order, when an outcome has several")
    boon: str | None = Field(default=None, description="a held boon used on this check (its id)")
    army_type: str | None = Field(default=None, description="Recruit Army: the army to recruit")
    army_id: str | None = Field(default=None, description="Recruit Army: the new army's id")
    army_name: str | None = Field(default=None, description="Recruit Army: its name")
    assurance: bool = Field(default=False, description="Kingdom Assurance: take 10 + proficiency instead of rolling")
    reroll_for_rp: bool = Field(default=False, description="Free and Fair: re-roll a failure for 2 RP")
    gm_effects: GMEffects
    fame_reroll: FameReroll = False

    @classmethod
    def shaped(cls, name: str, values: Mapping[str, Any], state: Any) -> Any:
        """``options``: a dropdown per either/or of the activity's outcome, in words (``options_shaped``)."""
        return options_shaped(name, values, state, "activity")

    @classmethod
    def unused(cls, values: Mapping[str, Any], state: Any) -> frozenset[str]:
        """The fields the row's activity does not read (``ONLY_FOR``): a Quell Unrest row takes no hex, no structure,
        no group. Before an activity is chosen, all but the activity (and the role): they follow from it."""
        if values.get("activity") in (None, ""):
            return frozenset(cls.model_fields) - {"activity", "role"}
        act = T.catalog(getattr(state, "homebrew", None)).activities.get(str(values.get("activity")))
        if act is None:
            return frozenset()
        out = {f for f, takes in ONLY_FOR.items() if f in cls.model_fields and not takes(act)}
        if not getattr(state, "boons", True):
            out.add("boon")  # no boon held: nothing to use
        if "kingdom-assurance" not in getattr(state, "feats", ("kingdom-assurance",)):
            out.add("assurance")  # Kingdom Assurance is a feat the kingdom does not have
        return frozenset(out)


def _target(*kinds: str) -> typing.Callable[[T.Activity], bool]:
    return lambda a: a.target in kinds


def _named(*names: str) -> typing.Callable[[T.Activity], bool]:
    return lambda a: a.name in names


DEGREES: tuple[str, ...] = ("critical_success", "success", "failure", "critical_failure")

ONLY_FOR: dict[str, typing.Callable[[T.Activity], bool]] = {
    "hex": _target("hex"), "second_hex": _target("hex"), "reconnoitered": _target("hex"),
    "refuge_ruin": _target("hex"),
    "structure": _target("structure"), "lots": _target("structure"), "border": _target("structure"),
    "use_ruins": _target("structure"), "block": _target("structure", "lot"), "lot": _target("lot"),
    "recover": _target("lot"),
    "group": _target("group"), "event": lambda a: a.target == "event" or a.dc == "event",
    "id": _named("establish-settlement"), "name": _named("establish-settlement"),
    "quantity": _named("trade-commodities"), "agreements": _named("manage-trade-agreements"),
    "goods": _named("manage-trade-agreements"),
    "army_type": _named("recruit-army"), "army_id": _named("recruit-army"), "army_name": _named("recruit-army"),
    "tactic": _named("train"), "gear": _named("outfit"), "spoils": _named("outfit"), "condition": _named("recover"),
    "favored_land": lambda a: a.category == "region",
    "option": lambda a: any(e.kind == "choose" for e in _effects(a)),
    "options": lambda a: any(sum(e.kind == "choose" for e in _effects(a, d)) > 1 for d in DEGREES),
    "ruin": lambda a: a.target == "ruin" or any(_picks_ruin(e) and (e.count or 1) <= 1 for e in _effects(a)),
    "ruins": lambda a: a.target == "ruin" or any(_picks_ruin(e) and (e.count or 1) > 1 for e in _effects(a)),
    "commodity": lambda a: a.target == "commodity" or bool({"work_site", "trade_quantity"} & set(a.requires))
    or any(_picks_commodity(e) for e in _effects(a)),
}
"""The fields of an activity row only some activities read (activities.py: its target, its requirements), and which:
a form leaves each out of a row whose activity does not (``ActivityRow.unused``): the outcome's picks (a branch, a
Ruin of your choice, one or several, a commodity) only where an outcome asks for them. A boon only while the kingdom
holds one, Assurance only with its feat (``ActivityRow.unused``); the others (the role, the skill, the settlement
where the check happens) any row may use."""


def _effects(act: T.Activity, degree: str = "") -> list[T.Effect]:
    """Every effect of ``act``'s outcomes (of one ``degree``), the branches of a ``choose`` included."""
    out: list[T.Effect] = []
    todo = [e for d in ((degree,) if degree else DEGREES) for e in getattr(act.outcomes, d) or ()]
    while todo:
        e = todo.pop()
        out.append(e)
        todo += [x for branch in e.options for x in branch]
    return out


def _picks_ruin(e: T.Effect) -> bool:
    return e.kind.startswith("ruin") and str(e.target or "").startswith("choice")


def _picks_commodity(e: T.Effect) -> bool:
    target = str(e.target or "")
    return (e.kind in ("commodity", "commodity_per_die") and target in ("", "choice")) or e.kind == "trade_goods" \
        or (e.kind == "pending" and target in ("commodity", "commodity:", "commodity:choice"))


class LeadershipRow(ActivityRow):
    activity: Annotated[str, Pick("leadership_activities", what="a Leadership activity")]


class RegionRow(ActivityRow):
    activity: Annotated[str, Pick("region_activities", what="a Region activity")]
    hex: Annotated[str | HexEntry | None, Pick("region_hexes", what="a hex", depends=("activity",),
                                              open=True)] = Field(
        default=None, description="a hex of the map by id (it may be claimed by an earlier row of this step), or"
                                  " a new hex described in full with its coordinates")
    second_hex: Annotated[str | None, Pick("region_second_hexes", what="a hex", open=True)] = Field(
        default=None, description="the second hex of a critical success (roads, farmland), next to the first"
                                  " (default: the first that fits)")
    settlement: Annotated[str | None, Pick("region_settlements", what="a settlement")] = Field(
        default=None, description="default: the capital (it may be founded by an earlier row of this step)")


class CivicRow(ActivityRow):
    activity: Annotated[str, Pick("civic_activities", what="a Civic activity")]
    structure: Annotated[str | None, Pick("buildable_structures", what="a structure",
                                          depends=("activity", "settlement", "use_ruins"))] = Field(
        default=None, description="Build Structure: the structure (those the rules refuse now are marked why)")


class ArmyRow(ActivityRow):
    """One Army activity (Appendix 3: Warfare): the army that acts and what the activity needs."""

    activity: Annotated[str, Pick("army_activities", what="an Army activity")]
    army: str = Field(description="the army that acts (its id)")
    tactic: str | None = Field(default=None, description="Train Army: the tactic")
    gear: str | None = Field(default=None, description="Outfit Army: the gear")
    spoils: bool = Field(default=False, description="Outfit Army: gear from battle spoils (Warfare, no RP)")
    condition: str | None = Field(default=None, description="Recover Army: the condition (or 'hp')")
    enemy: str | None = Field(default=None, description="Offensive Gambit: the enemy army")
    force_march: bool = Field(default=False, description="Deploy Army: force march (+4, weary +1, +2 on a failure)")
    by_road: bool = Field(default=False, description="Deploy Army: start and end joined by a road (+1 degree)")


class ArmyActivities(Choices):
    """A4 (Appendix 3): each army of the kingdom takes one Army activity (an efficient army a second at -5)."""

    activities: list[ArmyRow] = Field(default_factory=list)
    avert_ruin_penalty_with_fame: AvertRuin = False
    crush_dissent: CrushDissent = False
    liquidate_resources: Liquidate = False


WarActionName = Literal[
    "advance", "battle", "guard", "rally", "retreat", "disengage",
    "all-out-assault", "battlefield-medicine", "counterattack", "covering-fire", "defensive-stance",
    "dirty-fighting", "false-retreat", "feint", "outflank", "taunt",
    "overwhelming-bombardment", "trampling-charge", "trample", "swift-recovery", "furious-charge", "reactive-rally",
    "battlefield-adaptability", "primal-magic"]
"""The war actions a battle plays (data/armies.toml [[action]]; Accustomed to Panic and Revel in Battle apply by
themselves)."""


class WarOrder(Choices):
    """One war action of an army in a round (AoN 1869, Appendix 3 war actions): a basic one, or a tactical or
    unique one its tactics grant; a reaction (Counterattack, False Retreat) waits for what triggers it.

    The armies, actions and targets are offered from the battle (its ``kingdom`` and ``enemy`` armies, the army's
    tactics); the battle itself checks them when the round begins, so its refusals name the rule."""

    army: Annotated[str, Pick("battle_armies", what="an army of this battle", open=True)]
    action: Annotated[WarActionName, Pick("war_actions", what="a war action", depends=("army",), open=True)]
    target: Annotated[str, Pick("battle_targets", what="an enemy army", depends=("army",), open=True)] = Field(
        default="", description="the enemy army (or fortification) it acts against")
    ally: Annotated[str, Pick("battle_allies", what="an allied army", open=True)] = Field(
        default="", description="Defensive Stance, Battlefield Medicine: the allied army")
    engage: bool = Field(default=True, description="Outflank, critical success: become engaged with the target")
    reckless: bool = Field(default=False, description="Advance with Reckless Flankers: -2 AC, +1 to attacks"
                                                      " while engaged")
    choice: Annotated[str, Pick("war_action_choices", what="a choice of this war action", open=True)] = Field(
        default="", description="Swift Recovery: hp or weary; Battlefield Adaptability: mobility, unmire or"
                                " conceal; Battle: nets (shake off Hurl Nets)")
    potion: bool = Field(default=False, description="a maneuver war action with a dose of healing potion (+1 HP)")
    within: list[Annotated[str, Pick("battle_armies", what="an army of this battle", open=True)]] = Field(
        default_factory=list, description="Overwhelming Bombardment: the armies inside the fortification it also"
                                          " damages")


class FortificationIn(Choices):
    """A fortification on the battlefield (a siege engine's target) and the armies inside it."""

    id: str
    kind: Literal["castle", "keep", "tower", "trench", "wall-stone", "wall-wooden"]
    side: Literal["kingdom", "enemy"] = "enemy"
    armies: list[Annotated[str, Pick("battle_armies", what="an army of this battle", open=True)]] = Field(
        default_factory=list, description="the armies of its side inside it")


class Opening(Choices):
    """A tactic used before the first round (Ambush, Opening Salvo, Swamp Charge)."""

    army: Annotated[str, Pick("battle_armies", what="an army of this battle", open=True)]
    tactic: Literal["ambush", "opening-salvo", "swamp-charge"]
    target: Annotated[str, Pick("battle_targets", what="an enemy army", depends=("army",), open=True)] = ""


class BattleRow(Choices):
    """A war encounter: the armies of each side in a hex and each round's orders (three per army)."""

    id: str = ""
    hex: Annotated[str | None, Pick("hexes", what="a hex of the map", open=True)] = None
    kingdom: list[Annotated[str, Pick("kingdom_armies", what="an army of the kingdom", open=True)]]
    enemy: list[Annotated[str, Pick("enemy_armies", what="an enemy army", open=True)]]
    rounds: list[list[WarOrder]] = Field(default_factory=list, description="each round's war actions, per army")
    openings: list[Opening] = Field(default_factory=list)
    fortifications: list[FortificationIn] = Field(default_factory=list)
    water: bool = Field(default=False, description="the battlefield has swamp or water terrain")
    unfinished: bool = Field(default=False, description="the GM stops the encounter after these rounds")


class BattleChoices(Choices):
    """A5: the turn's war encounters (after the Army activities; the GM's enemy armies and orders)."""

    battles: list[BattleRow] = Field(default_factory=list)


class LeadershipActivities(Choices):
    """A1 (§3.3): per PC leader 2 Leadership activities, 3 with a seat of government in the capital."""

    activities: list[LeadershipRow] = Field(default_factory=list)
    avert_ruin_penalty_with_fame: AvertRuin = False
    crush_dissent: CrushDissent = False
    liquidate_resources: Liquidate = False


class RegionActivities(Choices):
    """A2 (§3.3): three Region activities (more after Claim Hex critical successes, Favored Land)."""

    activities: list[RegionRow] = Field(default_factory=list)
    avert_ruin_penalty_with_fame: AvertRuin = False
    crush_dissent: CrushDissent = False
    liquidate_resources: Liquidate = False


class CivicActivities(Choices):
    """A3 (§3.3): one Civic activity per settlement."""

    activities: list[CivicRow] = Field(default_factory=list)
    avert_ruin_penalty_with_fame: AvertRuin = False
    crush_dissent: CrushDissent = False
    liquidate_resources: Liquidate = False


# ------------------------------------------------------------------ event phase


class EventOptions:
    """How an entry resolving a kingdom event (``EventRow``, ``EventResolveChoices``) asks for ``options``: a
    dropdown per either/or of the event's outcome, in words, and only for an event whose outcome has several
    (``option`` picks the one branch)."""

    @classmethod
    def shaped(cls, name: str, values: Mapping[str, Any], state: Any) -> Any:
        """``options``: a dropdown per either/or of the event's outcome, in words (``options_shaped``)."""
        return options_shaped(name, values, state, "event")

    @classmethod
    def unused(cls, values: Mapping[str, Any], state: Any) -> frozenset[str]:
        """``options`` when the entry's event has no outcome with several either/ors and none is given."""
        if values.get("options") or either_or_places(state, values, "event"):
            return frozenset()
        return frozenset({"options"})


class EventRow(EventOptions, Choices):
    """One more kingdom event resolved in E2: a continuing event's check this turn, or an event a rule
    scheduled (Squatters after an abandoned hex, a Plague from a failed Irrigation ...)."""

    event: Annotated[str, Pick("events", what="a kingdom event")]
    skill: Annotated[str | None, _skill("event_skills", depends=("event",))] = None
    settlement: Annotated[str | None, Pick("settlements", what="a settlement")] = Field(
        default=None, description="where the event strikes, when its rule leaves the place to the GM")
    hex: Annotated[str | None, Pick("hexes", what="a hex of the map")] = Field(
        default=None, description="the hex it strikes, when its rule leaves the place to the GM")
    fame_reroll: FameReroll = False
    option: EventBranch = None
    options: list[Annotated[int, Field(ge=0, le=LIMIT)]] | None = None
    commodity: Commodity | None = None
    ruin: RuinChoice = None
    ruins: RuinsChoice = None
    boon: str | None = None
    assurance: bool = False
    lots: list[LotPair] | None = Field(default=None, description="the lots an outcome's rubble falls on, as the"
                                                               " players choose")
    gifts: int = Field(default=0, ge=0, le=4, description="Festive Invitation: Resource Dice brought as gifts")
    gift_commodities: list[Commodity] = Field(default_factory=list, max_length=4, description="Festive"
                                              " Invitation, critical success: the Commodity chosen for each gift"
                                              " die in order (default: 'commodity' for each)")
    water_borders: int = Field(default=0, ge=0, le=4, description="The Rampage of the Owlbear: how many of the"
                               " struck settlement's four borders are Water (a fact of the map; all four raise the"
                               " result one degree)")
    group: str | None = Field(default=None, description="the group an outcome deals with, as the GM names it")
    gm_effects: GMEffects
    skip: bool = Field(default=False, description="a continuing event's check is not attempted this turn (the"
                                                  " GM's ruling: the PCs deal with it in play)")


class EventResolveChoices(EventOptions, Choices):
    """E2 (§3.4): the kingdom event, its check and what the GM rules."""

    event: Annotated[str, Pick("events", what="a kingdom event")] = Field(
        default="", description="the event, if one occurred (empty: none)")
    skill: Annotated[str | None, _skill("event_skills", depends=("event",))] = Field(
        default=None, description="the skill of the event check (default: the event's first; empty: no check)")
    target: str = Field(default="kingdom", description="what the event strikes (a settlement, a hex: as the GM"
                                                      " names it)")
    fame_reroll: FameReroll = False
    option: EventBranch = None
    commodity: Commodity | None = Field(default=None, description="the commodity an outcome lets you choose")
    ruin: RuinChoice = None
    ruins: RuinsChoice = None
    gm_effects: GMEffects
    continues: bool | None = Field(default=None, description="the event continues next turn (default: a"
                                                            " continuous event not overcome)")
    unrest_per_turn: Amount = Field(default=0, description="Unrest each turn while it continues")
    consumption_delta: Amount = Field(default=0, description="Consumption change while it continues")
    end_events: list[Annotated[str, Pick("ongoing_events", what="an ongoing event")]] = Field(
        default_factory=list, description="ongoing events that end now")
    avert_ruin_penalty_with_fame: AvertRuin = False
    crush_dissent: CrushDissent = False
    liquidate_resources: Liquidate = False
    settlement: Annotated[str | None, Pick("settlements", what="a settlement")] = Field(
        default=None, description="where the event strikes, when its rule leaves the place to the GM")
    hex: Annotated[str | None, Pick("hexes", what="a hex of the map")] = Field(
        default=None, description="the hex it strikes, when its rule leaves the place to the GM")
    options: list[Annotated[int, Field(ge=0, le=LIMIT)]] | None = None
    boon: str | None = None
    assurance: bool = False
    lots: list[LotPair] | None = Field(default=None, description="the lots an outcome's rubble falls on, as the"
                                                               " players choose")
    gifts: int = Field(default=0, ge=0, le=4, description="Festive Invitation: Resource Dice brought as gifts")
    gift_commodities: list[Commodity] = Field(default_factory=list, max_length=4, description="Festive"
                                              " Invitation, critical success: the Commodity chosen for each gift"
                                              " die in order (default: 'commodity' for each)")
    water_borders: int = Field(default=0, ge=0, le=4, description="The Rampage of the Owlbear: how many of the"
                               " struck settlement's four borders are Water (a fact of the map; all four raise the"
                               " result one degree)")
    group: str | None = Field(default=None, description="the group an outcome deals with, as the GM names it")
    table_pick: Literal[0, 1] = Field(default=0, description="which of two table rolls occurs (Prognostication)")
    events: list[EventRow] = Field(default_factory=list, description="continuing and scheduled events resolved"
                                                                     " this turn (default: each with its first"
                                                                     " skill)")


class EventXPChoices(Choices):
    """E3 (§3.4): the GM's awards."""

    gm_xp: Count = Field(default=0, title="GM XP award")
    gm_fame_next_turn: Count = Field(default=0, title="GM Fame award (next turn)")


class LevelChoices(Choices):
    """E4 (§3.4, §5.5): what a new level brings, and leaders shaking off a failed New Leadership."""

    ruin_resistance: RuinName | None = Field(default=None, description="levels 5, 8, 11, 14, 17, 20")
    skill_increase: Annotated[str | None, _skill()] = None
    feat: Annotated[str | None, Pick("feats", what="a kingdom feat")] = Field(
        default=None, description="its prerequisites must hold, counting this level's increase and boosts"
                                  " (empty: none)")
    feat_skill: Annotated[str | None, _skill()] = Field(
        default=None, description="the skill Skill Training trains, or the one Kingdom Assurance is taken for")
    feat_choice: list[T.RuinName | T.RoleName] = Field(
        default_factory=list, description="what the feat chooses (Civil Service: a role, default the first vacant;"
                                          " Muddle Through: Ruins)")
    boosts: list[Ability] | None = None
    leader_checks: dict[RoleName, str] = Field(
        default_factory=dict, description="role -> the Loyalty-based skill of its check (§4.2 failure)")


# ------------------------------------------------------------------ vocabulary


# A skill option's detail per state: the vocabularies of one open list the same state's 16 skills about a dozen
# times (each activity and event row), and the state is frozen. Held by the state's identity (a few states at once).
_MOD_TEXTS: ByIdentity[KingdomState, dict[str, str]] = ByIdentity(limit=8)


def _mod(state: KingdomState, skill: str) -> str:
    texts = _MOD_TEXTS.get(state, lambda _state: {})
    text = texts.get(skill)
    if text is None:
        texts[skill] = text = _mod_text(state, skill)
    return text


def _mod_text(state: KingdomState, skill: str) -> str:
    if not state.founded:
        return T.core().skills[skill]
    rank = state.skills.get(skill, "untrained")
    total = int(check_modifier(state, skill).total)
    return f"{T.core().skills[skill]}, {rank}, {total:+d}"


def _skills(state: KingdomState, first: Sequence[str] = (), note: str = "") -> list[Option]:
    names = [*first, *(s for s in sorted(T.core().skills) if s not in first)]
    out = []
    for s in names:
        detail = _mod(state, s)
        if first and s not in first and note:
            detail = f"{detail}; {note}"
        out.append(Option(s, s.capitalize(), detail))
    return out


def activity_skill_options(state: KingdomState, act: T.Activity, struct: T.Structure | None = None) -> list[Option]:
    """The skills of an activity row: the activity's (or, for Build Structure, the chosen structure's) first, and
    each skill the rules refuse for it marked with the reason, as the step would refuse it (§4, §4.9.4, §5.15).

    Only refusals that no earlier row of the step can lift are marked: a skill outside the activity's skills, a
    rank below what the activity (or structure) needs, the skill used last turn where a new one is needed. A
    target that decides the skill itself (Repair Reputation's Ruin, Recover Army's condition) leaves every skill
    open: the step picks or checks it.
    """
    if act.target == "structure":
        if struct is None:
            return _skills(state)
        first: Sequence[str] = struct.skills

        def why(skill: str) -> tuple[str, str]:  # the step's refusal (activities._target_structure), and in brief
            refusal = structure_skill_refusal(state, struct, skill)
            if refusal is None:
                return "", ""
            return (f"not the structure's ({refusal[1]})" if skill not in struct.skills
                    else f"needs {struct.proficiency} ({refusal[1]})"), f"{refusal[0]} ({refusal[1]})"
    elif act.skills and not act.skill_by_target and not act.skills_by_target:
        first = act.skills
        last = next((u.skill for u in state.used_last_turn if u.name == act.name), "") \
            if act.new_skill_each_turn else ""

        def why(skill: str) -> tuple[str, str]:  # the step's refusal (activities._skill), and in brief
            if skill == last:
                return "used last turn (§4.4)", f"{act.title or act.name} cannot use {skill} two turns in a row (§4.4)"
            refusal = activity_skill_refusal(state, act, skill)
            if refusal is None:
                return "", ""
            return (f"not the activity's ({refusal[1]})" if skill not in act.skills
                    else f"needs {skill_rank_needed(state, act, skill)} ({refusal[1]})"), f"{refusal[0]} ({refusal[1]})"
    else:
        return _skills(state, act.skills, "not the activity's")
    # the dropdown says the reason in brief (``disabled``), a plan naming the skill is refused with it whole
    # (``refusal``: the step's own words, its ids said by their names where a page shows it)
    out = []
    for o in _skills(state, first):
        brief, whole = why(str(o.value))
        out.append(Option(o.value, o.label, o.detail, brief, refusal=whole))
    return out


def _activity_detail(state: KingdomState, act: T.Activity) -> str:
    """What an activity's option says beside its name: its cost in RP, the proficiency it needs, and what it still
    needs when locked ("1 RP", "trained", "needs a bank", "needs Kalikke leading", "locked": the GM's story unlock).

    Short enough for the closed dropdown on a phone (329 px on a player's page): it read every skill and the DC
    ("Deliberate Planning — agriculture, arts, boating, …, wilderness; DC by event; locked: needs the companion
    Kalikke in a leadership role", 1361 px; tests/notebooks/test_selects_fit_browser.py). The skills are the Skill
    field's options once the activity is picked, the DC is in its odds, the lock's whole reason in the refusal."""
    parts = []
    if act.cost_rp:
        parts.append(f"{act.cost_rp} RP")
    if act.proficiency != "untrained":
        parts.append(act.proficiency)
    if activity_lock(state, act):
        kind, _, name = act.unlocked_by.partition(":")
        built = T.catalog(state.homebrew).structures.get(name) if kind == "structure" else None
        parts.append(f"needs a {(built.title if built is not None and built.title else name).lower()}"
                     if kind == "structure" and name else
                     f"needs {name.title()} leading" if kind == "companion" and name else "locked")
    return "; ".join(parts)


def structure_detail(st: T.Structure) -> str:
    cost = " + ".join([f"{st.cost_rp} RP", *(f"{n} {c}" for c, n in sorted(st.cost.items()))])
    where = f"{st.lots} lot{'s' if st.lots != 1 else ''}" if st.lots else f"infrastructure ({st.scope})"
    return f"level {st.level}, {where}, {cost}, DC {st.dc} ({', '.join(st.skills)})"


def _abandoned_in_step(within: Mapping[str, Any]) -> set[str]:
    """The hexes an Abandon Hex row of the same step names (a later row may claim them again)."""
    from kingdomlog.core.choices import PARENT

    parent = within.get(PARENT)
    rows = parent.get("activities") if isinstance(parent, Mapping) else None
    out: set[str] = set()
    for row in rows if isinstance(rows, list) else ():
        if isinstance(row, Mapping) and row.get("activity") == "abandon-hex" and isinstance(row.get("hex"), str):
            out.add(row["hex"])
    return out


def _region_hex_detail(state: KingdomState, h: Any) -> str:
    """A hex as the Region step sees it: whether the kingdom can claim it now, then what it holds.

    It began with the hex's axial coordinates and said "claimed" twice ("(0, 0); claimed; plains, claimed, river,
    farmland, settlement", 378 px in an entry's 346 on a phone; "(-1, 2); next to the kingdom: claimable;
    mountains, not claimed, resource", 456): the hex picker's map shows where a hex is."""
    if h.claimed:
        status = "claimed"
    elif h.at is None:
        status = "not on the map: place it first"
    elif adjacent_to_kingdom(state, h.at):
        status = "claimable"
    else:
        status = "not next to the kingdom"
    return f"{status}; {_hex_detail(h, claimed=True)}"


WORK_SITE_WORDS = {"lumber": "lumber camp", "ore": "mine", "stone": "quarry"}
"""A work site by what it gathers, as the rules name it (§2.7)."""


def _hex_detail(h: Any, *, claimed: bool = False) -> str:
    """A hex's terrain and what it holds ("forest, resource, lumber camp"), with whether it is claimed unless every
    hex of the list is (``claimed``). It read "forest, claimed, resource, work site, lumber work site", cut in the
    dropdown (tests/notebooks/test_selects_fit_browser.py)."""
    parts = [h.terrain] if claimed else [h.terrain, "claimed" if h.claimed else "not claimed"]
    if h.river:
        parts.append("river")
    if h.lake:
        parts.append("lake")
    site = h.work_site is not None  # said by its name below: not a second time as a feature ("work site")
    parts.extend(f.replace("_", " ") for f in h.features if not (site and f.replace("_", " ") == "work site"))
    if h.work_site is not None:
        parts.append(WORK_SITE_WORDS.get(h.work_site.commodity, f"{h.work_site.commodity} work site"))
    return ", ".join(parts)


def _lots(state: KingdomState, settlement: Any) -> list[Option]:
    """Every lot of the grid of ``settlement`` (the capital when none is named), each with what stands on it."""
    sts = state.settlements
    st = next((x for x in sts if settlement in (x.id, x.name)), None) if settlement else None
    st = st or next((x for x in sts if x.capital), sts[0] if sts else None)
    if st is None:
        return []
    return [Option((b, i), f"{st.name}: block {b}, lot {i}", lot or "empty")
            for b, lots in enumerate(st.blocks) for i, lot in enumerate(lots)]


_KIND_WORDS = {"rp": "RP", "rp_no_xp": "RP (no XP for it)", "trade_goods": "trade goods", "commodity": "",
               "fame": "Fame", "xp": "XP", "food_loss": "Food lost"}
_AMOUNT_WORDS = {"m": "1 per agreement managed", "q": "1 per unit traded", "last": "the same amount"}
"""The prepared quantities an amount may name (``effects.Run.prep``), in words."""
_PENDING_WORDS = {"bonus_dice": "bonus Resource Dice", "penalty_dice": "fewer Resource Dice", "rp": "RP",
                  "fame": "Fame", "consumption": "Consumption"}
_BOON_WORDS = {"bonus": "bonus to a check", "reroll": "reroll of a check", "second_roll": "second roll of a check",
               "roll_twice": "check rolled twice, the better kept"}


def _amount_words(amount: int | str, *, signed: bool = True) -> str:
    """An effect's amount in words: a number or dice with its sign, Resource Dice counted (``rd`` is one Resource
    Die), a prepared quantity said ("1 per agreement managed"); nothing for none.

    >>> _amount_words("rd"), _amount_words("-2rd"), _amount_words("1d4"), _amount_words("last"), _amount_words(0)
    ('+1 Resource Die', '-2 Resource Dice', '+1d4', '+ the same amount', '')
    >>> _amount_words("2rd", signed=False)
    '2 Resource Dice'
    """
    if amount in (None, "", 0):
        return ""
    bare, minus = str(amount).lstrip("+-"), str(amount).startswith("-")
    sign = ("-" if minus else "+") if signed else ("minus " if minus else "")
    if bare in _AMOUNT_WORDS:  # a quantity the activity prepared: "1 per agreement managed"
        return f"{'minus ' if minus else ''}{_AMOUNT_WORDS[bare]}" if bare != "last" else f"{sign} the same amount"
    m = re.fullmatch(r"(\d*)rd", bare)
    if m:
        n = int(m.group(1) or 1)
        bare = f"{n} Resource {'Die' if n == 1 else 'Dice'}"
    return f"{sign}{bare}"


def _effect_words(e: T.Effect) -> str:
    """One effect of an outcome in words (what a GM reads picking a branch)."""
    target = str(e.target or "")
    amount = _amount_words(e.amount)
    if e.kind.startswith("ruin"):
        if target.startswith("choice"):
            return (f"{e.count} Ruins of your choice {amount} each" if e.count > 1
                    else f"a Ruin of your choice {amount}").strip()
        if target == "all":
            return f"every Ruin {amount}".strip()
        if target == "target":
            return f"the Ruin this activity targets {amount}".strip()
        return f"{target[:1].upper()}{target[1:]} (Ruin) {amount}".strip()
    if e.kind == "commodity" and target.startswith("choice"):
        return f"a Commodity of your choice {amount}".strip()
    if e.kind == "spend_rp":
        return f"spend {_amount_words(e.amount, signed=False) or 'no'} RP".replace("Dice RP", "Dice of RP").replace(
            "Die RP", "Die of RP")
    if e.kind == "pending":
        return f"next turn: {_PENDING_WORDS.get(target, target.replace('_', ' '))}{_joined(amount)}"
    if e.kind == "relations":
        if target == "trade_agreement":
            return "a trade agreement"
        steps = int(e.amount) if isinstance(e.amount, int) else 0
        return "relations unchanged" if not steps else \
            f"relations {abs(steps)} step{'s' if abs(steps) != 1 else ''} {'better' if steps > 0 else 'worse'}"
    if e.kind in ("modifier", "boon"):
        what = _BOON_WORDS.get(target, "bonus") if e.kind == "boon" else "modifier"
        to = "" if e.kind == "boon" else f" to {selector_words(e.selector) or 'the checks its rule picks'}"
        until = "" if e.expires in ("", "end_of_this_turn") else f" ({e.expires.replace('_', ' ')})"
        return f"a {e.value:+d} {e.type} {what}{to}{until}" if e.value else f"a {what}{to}"
    if e.kind == "gm":
        note = re.sub(r"\s*\([a-z]+(?:_[a-z]+)+\)$", "", e.note)  # the rule's key the note ends with: not said
        return f"as the GM rules: {note}" if note else "as the GM rules"
    if e.kind == "claim_hex":
        return "claim a hex"
    if e.kind == "event_watch":
        ev = T.catalog().events.get(target)
        name = ev.title if ev is not None and ev.title else target.replace("-", " ")
        return f"{name} may follow ({e.turns} turn{'s' if e.turns != 1 else ''})"
    kind = _KIND_WORDS.get(e.kind, e.kind.replace("_", " "))
    aim = target.replace("_", " ")
    what = " ".join(x for x in (kind, aim) if x)
    return f"{what[:1].upper()}{what[1:]}{_joined(amount)}"


def _joined(amount: str) -> str:
    """An amount after what it counts: ``+2`` after a space, a prepared quantity after a comma ("Trade goods, 1 per
    agreement managed")."""
    if not amount:
        return ""
    return f" {amount}" if amount[:1] in "+-" else f", {amount}"


def _branch_words(branch: Sequence[T.Effect]) -> str:
    """One branch of an either/or outcome in words.

    >>> _branch_words([T.Effect(kind="unrest", amount="1d4")])
    'Unrest +1d4'
    >>> _branch_words([T.Effect(kind="ruin", target="choice", amount=1, count=2)])
    '2 Ruins of your choice +1 each'
    >>> _branch_words([T.Effect(kind="spend_rp", amount="2rd")])
    'Spend 2 Resource Dice of RP'
    >>> _branch_words([T.Effect(kind="rp", amount="rd"), T.Effect(kind="ruin", target="crime", amount="last")])
    'RP +1 Resource Die; Crime (Ruin) + the same amount'
    >>> _branch_words([T.Effect(kind="pending", target="bonus_dice", amount="m")])
    'Next turn: bonus Resource Dice, 1 per agreement managed'
    >>> _branch_words([T.Effect(kind="commodity", target="choice", amount=5)])
    'A Commodity of your choice +5'
    """
    said = "; ".join(_effect_words(e) for e in branch)
    return f"{said[:1].upper()}{said[1:]}" if said else "Nothing"


def activity_branches(state: KingdomState, activity: str) -> list[Option] | None:
    """The branches of ``activity``'s first either/or outcome, in words (None when it has none: any number goes)."""
    act = T.catalog(state.homebrew).activities.get(activity)
    choose = next((e for e in _effects(act) if e.kind == "choose"), None) if act is not None else None
    if act is None or choose is None:
        return None
    # every branch is of the same degree: the field's help and the odds say which (each option said "— on a critical
    # failure" as well: 438 px in an entry's 346 on a phone; tests/notebooks/test_selects_fit_browser.py)
    return [Option(i, _branch_words(b)) for i, b in enumerate(choose.options)]


def event_branches(state: KingdomState, event: str) -> list[Option] | None:
    """The branches of ``event``'s either/or outcomes, in words, by their number (None when it has none: any number
    goes): each named as its first degree says it, the degrees whose branch of that number differs in its detail."""
    ev = T.catalog(state.homebrew).events.get(event)
    outcomes = getattr(ev, "outcomes", None)
    chooses = [(d, e) for d in DEGREES for e in (getattr(outcomes, d, None) or ()) if e.kind == "choose"]
    return _branch_options(chooses)


def _branch_options(chooses: Sequence[tuple[str, T.Effect]]) -> list[Option] | None:
    """The branches of the either/ors ``chooses`` (each with its degree) by their number, in words (None for none)."""
    if not chooses:
        return None
    out = []
    for i in range(max(len(c.options) for _, c in chooses)):
        said: dict[str, list[str]] = {}
        for d, c in chooses:
            if i < len(c.options):
                degrees = said.setdefault(_branch_words(c.options[i]), [])
                if d.replace("_", " ") not in degrees:
                    degrees.append(d.replace("_", " "))
        (first, on), *rest = said.items()
        detail = "on a " + " or ".join(on) + "".join(f"; on a {' or '.join(ds)}: {w}" for w, ds in rest)
        out.append(Option(i, first, detail))
    return out


def _either_ors(effects: Sequence[T.Effect]) -> list[T.Effect]:
    """The either/ors among ``effects`` in the order an outcome meets them (one inside a branch after the either/or
    it is in): the order ``options`` gives their branches in (``effects.Run._choose``)."""
    out: list[T.Effect] = []
    for e in effects:
        if e.kind == "choose":
            out.append(e)
        for branch in e.options:
            out += _either_ors(branch)
    return out


TABLE_ROLLS = ("check.table", "check.table2")
"""The d100 rolls of the random kingdom event table in the event step (``decide.table_event`` under key ``check``):
the one that occurs, and Prognostication's second (``table_pick`` 1 picks it)."""


def drawn_event(state: Any, within: Mapping[str, Any]) -> str:
    """The entry's event: the one it names, else the one the random kingdom event table drew when the step's d100
    shows its face (``within[ROLLED]``, the faces a form shows, core.choices.ROLLED); "" before that roll (AoN
    1843: a face is read only once it is rolled).

    >>> drawn_event(None, {"event": "", ROLLED: {"check.table": [3]}}), drawn_event(None, {"event": ""})
    ('archaeological-find', '')
    """
    if within.get("event"):
        return str(within["event"])
    rolled = within.get(ROLLED)
    if not isinstance(rolled, Mapping):
        return ""
    faces = rolled.get(TABLE_ROLLS[1] if within.get("table_pick") == 1 and rolled.get(TABLE_ROLLS[1])
                       else TABLE_ROLLS[0])
    if not faces or not isinstance(faces[0], int):
        return ""
    n = faces[0]
    events = T.catalog(getattr(state, "homebrew", None)).events.values()
    return next((e.name for e in events if e.table and e.table[0] <= n <= e.table[1]), "")


def _outcomes_of(state: Any, within: Mapping[str, Any], of: str) -> Any:
    """The outcomes of the entry's ``of`` (``event``, as named or drawn: ``drawn_event``; or ``activity``;
    ``within``: its values), or None."""
    cat = T.catalog(getattr(state, "homebrew", None))
    if of == "event":
        return getattr(cat.events.get(drawn_event(state, within)), "outcomes", None)
    return getattr(cat.activities.get(str(within.get(of) or "")), "outcomes", None)


def either_or_places(state: Any, within: Mapping[str, Any], of: str = "event") -> list[tuple[str, str]]:
    """What each place of ``options`` decides, in words, with its help, when an outcome of the entry's event or
    activity has several either/ors (none otherwise: ``option`` picks the one branch): "Critical success: the first
    pick", the degrees whose either/or of that number it also decides in its help.

    >>> either_or_places(None, {"event": "diplomatic-overture"})[1]
    ('Critical success: the second pick', 'the branch of the second either/or of a critical success')
    """
    outcomes = _outcomes_of(state, within, of)
    per = {d: _either_ors(getattr(outcomes, d, None) or ()) for d in DEGREES}
    n = max((len(c) for c in per.values()), default=0)
    if n < 2:
        return []
    out = []
    for i in range(n):
        several = [d.replace("_", " ") for d, c in per.items() if len(c) > 1 and i < len(c)]
        also = [d.replace("_", " ") for d, c in per.items() if len(c) == 1 and i == 0]
        nth = _ORDINALS[i] if i < len(_ORDINALS) else f"#{i + 1}"
        head = " or ".join(several)
        help = f"the branch of the {nth} either/or of a {head}" + (
            f"; it also decides the one either/or of a {' or '.join(also)}" if also else "")
        out.append((f"{head[:1].upper()}{head[1:]}: the {nth} pick", help))
    return out


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth")


def place_branches(state: Any, within: Mapping[str, Any], of: str) -> list[Option] | None:
    """The branches of place ``within[KEY]`` of ``options``: of the either/or of that number of each degree, in
    words, each with the degrees it is for (None when the outcome has none there: any number goes)."""
    i = within.get(KEY)
    outcomes = _outcomes_of(state, within, of)
    if not isinstance(i, int) or outcomes is None:
        return None
    return _branch_options([(d, c[i]) for d in DEGREES for c in [_either_ors(getattr(outcomes, d, None) or ())]
                            if i < len(c)])


_PLACES: dict[tuple[str, tuple[tuple[str, str], ...]], Any] = {}


def options_shaped(name: str, values: Mapping[str, Any], state: Any, of: str) -> Any:
    """``options`` (an entry's branch of each either/or, in order) as a form asks it: a dropdown per either/or when
    an outcome of the entry's event or activity has several, each labelled by what it decides and offering its
    branches in words (``place_branches``); None otherwise (the field as declared). The plan value is the same
    list of numbers."""
    if name != "options":
        return None
    places = tuple(either_or_places(state, values, of))
    if not places:
        return None
    tp = _PLACES.get((of, places))
    if tp is None:  # one type per set of places: the form codec keeps its validator
        slots = tuple(Annotated[int | None, Pick(f"{of}_either_or_branches", what="a branch of the outcome",
                                                 depends=(of,), open=True),
                                Field(title=label, description=help)] for label, help in places)
        tp = Annotated[tuple.__class_getitem__(slots) | None, Field(
            None, title="If the outcome asks several: which",
            description="the branch of each either/or of the outcome, in order (the first also decides an outcome"
                        " with one)")]
        _PLACES[(of, places)] = tp
    return tp


def vocabulary(state: KingdomState, source: str, within: Mapping[str, Any]) -> Sequence[Option] | None:
    """The allowed values of ``Pick(source)`` in ``state``; ``within``: the sibling values of the entry."""
    cat = T.catalog(state.homebrew)
    if source in ("event_either_or_branches", "activity_either_or_branches"):
        return place_branches(state, within, source.split("_", 1)[0])
    if source == "activity_branches":
        return activity_branches(state, str(within.get("activity") or ""))
    if source == "event_branches":
        return event_branches(state, drawn_event(state, within))
    if source == "charters":
        return [Option(c.name, c.name, f"boost {c.boost or '-'}, flaw {c.flaw or '-'}, {c.free_boosts} free")
                for c in T.charters().values()]
    if source == "heartlands":
        return [Option(h.name, h.name, f"boost {h.boost}; {', '.join(h.terrain)}") for h in T.heartlands().values()]
    if source == "governments":
        return [Option(g.name, g.name, f"boosts {', '.join(g.boosts)} + {g.free_boosts} free; skills"
                                       f" {', '.join(g.skills)}; feat {g.feat or '-'}")
                for g in T.governments().values()]
    if source == "milestones":
        return [Option(m.name, m.name, f"{m.xp} XP") for m in T.milestones().values()]
    if source == "skills":
        return _skills(state)
    if source == "lots":
        return _lots(state, within.get("settlement"))
    if source == "activity_skills":
        act = cat.activities.get(str(within.get("activity") or ""))
        if act is None:
            return _skills(state)
        return activity_skill_options(state, act, cat.structures.get(str(within.get("structure") or "")))
    if source == "event_skills":
        ev = cat.events.get(drawn_event(state, within))
        first = list(ev.skills) if ev is not None else []
        return [Option("", "no check", "the GM rules the outcome"),
                *_skills(state, first, "not the event's" if ev is not None else "")]
    if source == "roles":
        out = []
        for r in T.ROLES:
            ld = state.leaders.get(r)
            if ld is None or ld.holder is None:
                detail = "vacant"
            else:
                detail = f"{ld.holder} ({ld.kind.upper()}{', invested' if ld.invested else ''})"
            out.append(Option(r, r.capitalize(), detail))
        return out
    if source == "settlements":
        return [Option(s.id, s.name, f"{s.type}, {_counted(s.blocks_used, 'block')}, "
                                     f"{_counted(s.free_lots(), 'free lot')}{', capital' if s.capital else ''}")
                for s in state.settlements]
    if source == "claimed_hexes":
        return [Option("", "the default", "the last claimed hex with no settlement"),
                *(Option(h.id, h.id, _hex_detail(h, claimed=True)) for h in state.hexes if h.claimed)]
    if source == "hexes":
        if isinstance(within.get("hex"), HexEntry):
            return None  # a hex described in full may be new to the map
        return [Option(h.id, h.id, _hex_detail(h)) for h in state.hexes]
    if source == "region_second_hexes":  # the second hex of a critical success (open: the step checks)
        return [Option(h.id, h.id, _region_hex_detail(state, h)) for h in state.hexes]
    if source == "region_hexes":  # open: the step checks; only what it would surely refuse is marked
        act = cat.activities.get(str(within.get("activity") or ""))
        unclaimed_only = act is not None and act.hex_state == "unclaimed"
        freed = _abandoned_in_step(within) if unclaimed_only else set()
        return [Option(h.id, h.id, _region_hex_detail(state, h),
                       f"already claimed ({act.section} {act.title or act.name})"
                       if act is not None and unclaimed_only and h.claimed and h.id not in freed else "")
                for h in state.hexes]
    if source == "region_settlements":
        return None  # an earlier row of the Region step may found it; the activity checks it
    if source in ("leadership_activities", "region_activities", "civic_activities", "army_activities"):
        category = source.split("_", 1)[0]
        return [Option(a.name, a.title or a.name, _activity_detail(state, a))
                for a in sorted(cat.activities.values(), key=lambda a: a.name) if a.category == category]
    if source == "all_activities":
        return [Option(a.name, a.title or a.name, f"{a.category}; {activity_lock(state, a) or 'unlocked'}")
                for a in sorted(cat.activities.values(), key=lambda a: a.name)]
    if source == "structures":
        return [Option(s.name, s.title or s.name, structure_detail(s))
                for s in sorted(cat.structures.values(), key=lambda s: (s.level, s.name))]
    if source == "events":
        return [Option("", "no event", ""),
                *(Option(e.name, e.title or e.name, f"modifier {e.modifier:+d}{'; continuous' if e.continuous else ''}")
                  for e in sorted(cat.events.values(), key=lambda e: e.name))]
    if source == "ongoing_events":
        return [Option(e.name, e.name, f"since turn {e.since_turn}; {e.unrest_per_turn:+d} Unrest per turn")
                for e in state.ongoing_events]
    if source == "feats":
        return [Option("", "no feat", ""),
                *(Option(f.name, f.title or f.name, f"level {f.level}{'; repeatable' if f.repeatable else ''}"
                                                    f"{'; taken' if f.name in state.feats else ''}")
                  for f in sorted(cat.feats.values(), key=lambda f: (f.level, f.name)))]
    if source == "war_enemies":
        return [Option(g) for g in state.enemies]  # named by the GM: said in words ("stag lord")
    if source == "hidden_armies":
        return [Option(a.id, a.name or a.id, army_detail(a), "the players already see it" if a.revealed else "")
                for a in state.army_units if a.side == "enemy"]
    if source in _BATTLE_SOURCES:
        return battle_options(state, source, within)
    raise InputError(f"pf2e-kingmaker has no list of {source!r} to choose from")


# ---- a battle's armies and war actions (the battle board's picks) ----------------------------------------------

_BATTLE_SOURCES = frozenset({"kingdom_armies", "enemy_armies", "battle_armies", "battle_targets", "battle_allies",
                             "war_actions", "war_action_choices"})

_WAR_ACTIONS = frozenset(typing.get_args(WarActionName))

_ACTION_CHOICES = {"swift-recovery": ("hp", "weary"), "battlefield-adaptability": ("mobility", "unmire", "conceal"),
                   "battle": ("nets",)}


def army_detail(a: Any) -> str:
    """An army in a few words: HP, AC, its Strikes, Maneuver, Morale and conditions.

    >>> from kingdomlog.rulesets.pf2e.warfare import new_army
    >>> army_detail(new_army(T.army_defs()["infantry"], 1, "m"))
    'HP 4/4, AC 16, melee +9, Maneuver +4, Morale +10'
    """
    melee, ranged = a.attack if a.melee else None, a.ranged_attack if a.ranged else None
    parts = [f"HP {a.hp}/{a.hp_max}", f"AC {a.ac}"]
    if melee is not None:
        parts.append(f"melee {melee:+d}")
    if ranged is not None:
        parts.append(f"ranged {ranged:+d}")
    parts += [f"Maneuver {a.maneuver:+d}", f"Morale {a.morale:+d}"]
    conds = [f"{k} {v}" if v > 1 else k for k, v in sorted(getattr(a, "conditions", {}).items()) if v]
    if conds:
        parts.append(", ".join(conds))
    return ", ".join(parts)


def _sides(within: Mapping[str, Any]) -> tuple[list[str], list[str]] | None:
    """The kingdom's and the enemy's armies of the battle an order belongs to (None outside a battle)."""
    row = within.get(PARENT)
    if not isinstance(row, Mapping):
        return None
    return [str(x) for x in row.get("kingdom") or []], [str(x) for x in row.get("enemy") or []]


def battle_options(state: KingdomState, source: str, within: Mapping[str, Any]) -> Sequence[Option] | None:
    """The options of a battle's picks: the armies of each side, an order's army, targets, allies and war actions.

    An order's army is one of the battle's (``within[PARENT]``: the battle's values); its targets are the armies of
    the other side and the battle's fortifications, its allies those of its own side; its war actions the basic
    ones and those its tactics grant (the others listed, marked why not).
    """
    armies = {a.id: a for a in state.army_units}

    def opt(aid: str) -> Option:
        a = armies.get(aid)
        if a is None:
            return Option(aid, aid, "", "not an army of the kingdom's map now")
        gone = "defeated" if "defeated" in a.conditions else "destroyed" if "destroyed" in a.conditions else ""
        return Option(aid, a.name, army_detail(a), f"{a.name} is {gone}" if gone else "")

    if source in ("kingdom_armies", "enemy_armies"):
        side = source.split("_")[0]
        return [opt(a.id) for a in state.army_units if a.side == side]
    sides = _sides(within)
    if source == "battle_armies":
        ids = [*sides[0], *sides[1]] if sides is not None else list(armies)
        return [opt(a) for a in ids]
    if source == "war_action_choices":
        return [Option(""), *(Option(c) for c in _ACTION_CHOICES.get(str(within.get("action") or ""), ()))]
    me = str(within.get("army") or "")
    mine = armies.get(me)
    if source == "war_actions":
        tdefs = T.tactic_defs()
        granted = {g: tdefs[t].title or t for t in (mine.tactics if mine is not None else ()) if t in tdefs
                   for g in tdefs[t].grants}
        out = []
        for ad in T.war_action_defs().values():
            if ad.name not in _WAR_ACTIONS:
                continue  # applies by itself (Accustomed to Panic, Revel in Battle)
            cost = "a reaction" if ad.actions == "r" else f"{ad.actions} action{'s' if ad.actions != '1' else ''}"
            how = "basic" if ad.kind == "basic" else f"{ad.kind}, from {granted[ad.name]}" if ad.name in granted \
                else ad.kind
            why = "" if ad.kind == "basic" or ad.name in granted or mine is None else \
                f"no tactic of {mine.name} grants it"
            out.append(Option(ad.name, ad.title or ad.name, f"{cost}; {how}; {ad.check}" if ad.check != "none"
                              else f"{cost}; {how}", why))
        return sorted(out, key=lambda o: (bool(o.disabled), o.value != "battle", str(o.value)))
    if sides is None or me not in (*sides[0], *sides[1]):
        return [Option(""), *(opt(a) for a in armies)]
    ours, theirs = (sides[0], sides[1]) if me in sides[0] else (sides[1], sides[0])
    if source == "battle_allies":
        return [Option("", "none"), *(opt(a) for a in ours if a != me)]
    row = within.get(PARENT) or {}
    forts = [Option(str(f.get("id")), f"{f.get('kind')} {f.get('id')}", "a fortification")
             for f in row.get("fortifications") or [] if isinstance(f, Mapping) and f.get("id")]
    return [Option("", "none"), *(opt(a) for a in theirs), *forts]


# ------------------------------------------------------------------ counts in words
# (names of ids in words: kingdomlog.rulesets.pf2e.names)

def _counted(n: int, noun: str) -> str:
    """``n`` of ``noun`` as a person counts them (a dropdown's detail: "1 block", "3 free lots"; never "lot(s)").

    >>> _counted(1, "block"), _counted(3, "free lot"), _counted(0, "free lot")
    ('1 block', '3 free lots', '0 free lots')
    """
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
