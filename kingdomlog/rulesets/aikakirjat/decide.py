"""The steps of an aikakirjat year (§4): their typed choices and ``decide`` functions.

Every step works on the shared ``StepContext``: each event it emits is folded at once
(``ctx.emit``), so the next event sees the new state, and nothing of a refused step is
kept. ``record`` emits an event whose effect the rules compute: it runs the rules
(``outcomes.outcome``) with a ``RecordingTape`` over ``ctx.roll`` (so the step's rolls,
checks and breakdowns are known), then stores the difference of the state before and
after as the event's ``outcome`` (and the dice and audit of a dice-carrying event).
``direct`` emits an event ``evolve`` applies as it is, after the rules' checks.

Choices left empty take the defaults the rules give (``default_choices`` spells them
out for the session planner): a new session when none is running, the actions of
``default_actions``, all militia in one army, Law and Order on the worst track.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Mapping, Sequence
from functools import wraps
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import ConfigDict, Field, Strict, ValidationError

from kingdomlog.core.choices import LIMIT, Amount, Choices, Columns, Count, FreeJson, InOrder, Pick
from kingdomlog.core.errors import InputError, RuleError
from kingdomlog.core.events import EventModel
from kingdomlog.core.patch import diff
from kingdomlog.core.ruleset import Step, StepContext
from kingdomlog.dice.notation import MAX_DICE, MAX_SIDES
from kingdomlog.rulesets.aikakirjat import rules as R
from kingdomlog.rulesets.aikakirjat import war
from kingdomlog.rulesets.aikakirjat.events import (
    ActionTaken,
    Allocation,
    BenefitChosen,
    CheckOptions,
    EvilManifested,
    EvilVanquished,
    FameGained,
    GmAdjustment,
    GovernmentChanged,
    GrowthRolled,
    InstitutionFounded,
    KingdomContacted,
    KingdomFounded,
    LawAndOrderUsed,
    LevelChanged,
    LevelHoldChecked,
    LevyDieGained,
    NaturalDisasterResolved,
    NeighbourEventRolled,
    NewGodAppeared,
    Order,
    PcLevelReached,
    PeaceTerms,
    PlagueResolved,
    RandomEventRolled,
    Recorded,
    Resolved,
    RevolutionRolled,
    SessionEnded,
    SessionStarted,
    WarBegun,
    WarEnded,
    WarTurnResolved,
    WarUpkeepApplied,
    WarYearStarted,
    YearEnded,
    YearStarted,
)
from kingdomlog.rulesets.aikakirjat.outcomes import check, outcome
from kingdomlog.rulesets.aikakirjat.resolve import AIMED, PC_ACTIONS, PLAYERS, action_words, auto_war_due
from kingdomlog.rulesets.aikakirjat.state import (
    PC,
    KingdomState,
    Neighbour,
    Province,
    SpecialUnit,
    TerritoryArea,
    War,
    WarTechnology,
)
from kingdomlog.rulesets.aikakirjat.tables import TRACKS
from kingdomlog.rulesets.aikakirjat.tape import RecordingTape
from kingdomlog.rulesets.aikakirjat.vocabulary import PC_SKILLS, vocabulary

Ctx = StepContext[KingdomState]

Ability = Literal["culture", "economy", "loyalty", "stability"]
TrackName = Literal["decadence", "crime", "corruption", "decay"]
Government = Literal["feudalism", "oligarchy", "tribe", "republic", "theocracy", "thaumocracy", "autocracy"]
Benefit = Literal["feat", "asi", "three_skills", "two_expertise", "rising_power"]
WarTurn = Annotated[Literal["1", "2", "3", "4", "5", "6"], Pick("war_turns", what="a war turn of this war's year",
                                                              open=True)]
"""A war turn, as the key of the per-turn choices of the war step (six with Advanced Logistics); a form offers the
turns of the war's year, in words (``War turn 1``)."""
_TURNS = Literal["1", "2", "3", "4", "5", "6"]
OurExtraTurn = Annotated[_TURNS, Pick("our_extra_turns", what="a war turn of this war's year", open=True)]
EnemyExtraTurn = Annotated[_TURNS, Pick("enemy_extra_turns", what="a war turn of this war's year", open=True)]
"""A war turn as the key of a side's General Staff extra attack: offered only to a side with General Staff."""

ProvinceId = Annotated[str, Pick("provinces", what="a province of the map")]
Skill = Annotated[str, Pick("skills", what="a kingdom skill")]


# --- choices shared by several steps -----------------------------------------------------------------


# spend_stored / spend_year / take_10 are declared in each model that takes them, so that they come last in forms.


def _stored() -> Any:
    return Field(False, title="Spend a stored advantage", description="advantage on this step's kingdom check (§2.11)")


def _yearly() -> Any:
    return Field(False, title="Spend this year's tax advantage", description="from Tax Collection this year (A50)")


def _take_10() -> Any:
    return Field(False, title="Take 10 (Competent Administration)", description="once a year, a skill check (§3.6)")


class CheckChoices(Choices):
    """How the step's kingdom check is made (§2.16)."""

    spend_stored: bool = _stored()
    spend_year: bool = _yearly()
    take_10: bool = _take_10()


def _opts(c: Any) -> CheckOptions:
    return CheckOptions(spend_stored=c.spend_stored, spend_year=c.spend_year, take_10=c.take_10)


class BenefitChoice(Choices):
    """A level benefit's choice (§3.2): a feat, ability increases or corruption steps, skills, expertise."""

    level: int = Field(ge=1, le=20, title="Level", description="the level that granted the benefit")
    benefit: Benefit = Field(title="Benefit")
    feat: Annotated[str | None, Pick("feats", what="a feat (§3.6)")] = Field(None, title="Feat")
    abilities: dict[Ability, Amount] = Field(default_factory=dict, title="Ability increases",
                                          description="+2 to one ability or +1 to two (ASI)")
    corruption_steps: dict[TrackName, Amount] = Field(default_factory=dict, title="Corruption steps",
                                                   description="instead of abilities: 4 steps among the tracks (A76)")
    skills: list[Skill] = Field(default_factory=list, title="New skills")
    expertise: list[Skill] = Field(default_factory=list, title="Expertise")
    god_created: bool = Field(False, title="A god created (Rising Power)")


# --- founding ---------------------------------------------------------------------------------------------


class AbilityScores(Choices):
    """Base ability scores (§2.1, A3); the government's +2 comes on top."""

    culture: int = Field(ge=1, le=LIMIT)
    economy: int = Field(ge=1, le=LIMIT)
    loyalty: int = Field(ge=1, le=LIMIT)
    stability: int = Field(ge=1, le=LIMIT)


class TerritoryChoice(Choices):
    """Land the kingdom owns (§2.3, §3.9)."""

    model_config = ConfigDict(title="Area")  # a new line of the territory is added as "+ Area"

    area_id: str = Field(title="Area")
    unit: Literal["hex", "province", "phex", "triangle", "planet"] = "hex"
    amount: float = Field(1, ge=0, le=LIMIT)
    quality: float = Field(1.0, ge=0, le=1, description="1, 0.5 or 0.25 (§3.9)")


class ProfileChoice(Choices):
    """A neighbour's GM-maintained numbers (A39), used by events and war."""

    government: Annotated[str | None, Pick("governments", what="a form of government")] = None
    stability_score: Amount = 10
    trade_bonus: Amount = 0
    crime_modifier: Amount = 0
    unrest: Count = 0
    technology_level: Count = 1
    militia: Count = 0
    mobility: Amount = 0
    fire_capable: bool = False
    warfare_bonus: Amount = 0
    defence: Amount = 10
    bureaucracy_bonus: Amount = 0
    seafaring_bonus: Amount = 0
    damage_die: int = Field(6, ge=1, le=MAX_SIDES)
    levy_die: int = Field(6, ge=1, le=MAX_SIDES)
    naval_dice: int = Field(0, ge=0, le=MAX_DICE)
    armies_max: int = Field(1, ge=0, le=100, description="each army is a record of every war year it fights")
    feats: list[Annotated[str, Pick("feats", what="a feat (§3.6)")]] = Field(
        default_factory=list, description="the neighbour's feats that change war: advanced_logistics,"
                                          " fortified_land, naval_traditions, general_staff (§3.6)")


class NeighbourChoice(Choices):
    """A neighbouring kingdom (§2.10)."""

    id: str
    name: str
    diplomacy: int = Field(0, ge=-10, le=11, description="−10..10; 11 is annexed (A41)")
    population: Count = 3
    status: Literal["independent", "at_war_with_players", "annexed", "split"] = "independent"
    profile: ProfileChoice = Field(default_factory=ProfileChoice)


class ProvinceChoice(Choices):
    """A province of the war map (§2.13); owner and controller are ``players`` or a neighbour's id."""

    id: str
    owner: str
    controller: str
    terrain: str = Field("temperate", description="desert and tundra add attrition (§3.12)")
    has_road: bool = False
    has_highway: bool = False
    adjacent: list[str] = Field(default_factory=list, description="provinces reached by land")
    sea_links: list[str] = Field(default_factory=list, description="provinces reached across a sea (A59)")


class PCChoice(Choices):
    """A player character, as far as the kingdom needs one (§2.15)."""

    name: str
    level: int = Field(1, ge=1, le=20)
    resident: bool = True


class SpecialUnitChoice(Choices):
    """A special unit (§2.13, A65): a damage die usable once a year."""

    id: str
    name: str
    damage_die: int = Field(10, ge=1, le=MAX_SIDES)


def _home() -> list[TerritoryChoice]:
    return [TerritoryChoice(area_id="home", unit="hex", amount=2, quality=1.0)]


class FoundingChoices(Choices):
    """Turn 0: the kingdom as the group founds it (§2, A3); defaults are the §7.1 kingdom."""

    name: str = Field("New Kingdom", title="Kingdom name")
    government: Annotated[str, Pick("governments", what="a form of government")] = Field(
        "feudalism", title="Form of government", description="§3.4")
    base_scores: AbilityScores = Field(
        default_factory=lambda: AbilityScores(culture=12, economy=13, loyalty=14, stability=11),
        title="Base ability scores", description="§2.1, A3")
    extra_proficiency: Annotated[str, Pick("founding_skills", what="a skill the government does not already give",
                                           depends=("government",))] = Field("construction",
                                                                             title="Level-1 extra skill")
    population: Count = 3
    territory: list[TerritoryChoice] = Field(default_factory=_home)
    neighbours: list[NeighbourChoice] = Field(default_factory=list)
    provinces: list[ProvinceChoice] = Field(default_factory=list, title="Provinces (for war)")
    pcs: dict[Annotated[str, Field(title="Character", description="the PC's id, as players and the log name them")],
              PCChoice] = Field(default_factory=dict, title="Player characters")
    special_units: list[SpecialUnitChoice] = Field(default_factory=list)
    militia: Count = 0
    levy_dice: int = Field(0, ge=0, le=MAX_DICE)
    technology_level: Count = 1
    mobility: Amount = 0
    fire_capable: bool = Field(False, title="Fire-capable (magic/technology)")


# --- start: between-year (GM) events, the session, the levy ------------------------------------------------


class InstitutionFoundedEntry(Choices):
    event: Literal["institution_founded"]
    institution_id: str
    kind: str = Field(description="academy, university, temple, ... (an opaque record, A48)")
    founder: Annotated[Literal["pc", "court", "event"], Pick("founders", what="who founded it")] = Field(
        "pc", title="Founder")
    pc_id: Annotated[str | None, Pick("pcs", what="a PC of the kingdom")] = Field(
        None, title="Founded by", description="the PC who founded it, when a PC did (§8)")
    cost_multiplier: float = Field(1.0, ge=0, le=LIMIT, description="×1.1 when the Court founds it (§3.2)")


class PcLevelReachedEntry(Choices):
    event: Literal["pc_level_reached"]
    pc_id: str
    level: int = Field(ge=1, le=20)


GmField = Literal[
    "fame", "population", "militia", "unrest", "technology_level", "mobility", "fire_capable",
    "research_points", "naval_dice", "stored_advantages", "omen_modifier",
    "decadence", "crime", "corruption", "decay",
    "neighbour_diplomacy", "neighbour_population", "neighbour_status",
    "territory", "province", "neighbour", "special_unit", "pc",
]


GM_NUMBERS = ("fame", "population", "militia", "unrest", "technology_level", "mobility", "research_points",
              "naval_dice", "stored_advantages")
"""The kingdom's figures a GM adjustment changes by a delta or sets to a value (§8.3)."""
GM_NEIGHBOUR = ("neighbour_diplomacy", "neighbour_population", "neighbour_status")
"""The figures of one neighbour (``target``) a GM adjustment changes."""
GM_RECORDS = ("territory", "province", "neighbour", "special_unit", "pc")
"""What a GM adjustment sets as a whole record (the territory: all of it)."""


class ProvinceRecord(ProvinceChoice):
    """A province a GM adjustment adds or replaces: its sides and neighbouring provinces picked from the state (any
    other id is taken too: the rules check them as the adjustment is applied)."""

    owner: Annotated[str, Pick("sides", what="the players or a neighbour", open=True)]
    controller: Annotated[str, Pick("sides", what="the players or a neighbour", open=True)] = Field(
        title="Held by")
    adjacent: list[Annotated[str, Pick("provinces", what="a province of the map", open=True)]] = Field(
        default_factory=list, description="provinces reached by land")
    sea_links: list[Annotated[str, Pick("provinces", what="a province of the map", open=True)]] = Field(
        default_factory=list, description="provinces reached across a sea (A59)")


# What a form asks a GM adjustment's value as (``GmAdjustmentEntry.shaped``): constants, so each is checked against a
# value given with one validator.
_SetNumber: TypeAlias = Amount | None
_Omen: TypeAlias = Annotated[int, Pick("omens", what="an omen")] | None
_Status: TypeAlias = Literal["independent", "at_war_with_players", "annexed", "split"]
_Territory: TypeAlias = list[TerritoryChoice]
_Province: TypeAlias = ProvinceRecord | None
_Neighbour: TypeAlias = NeighbourChoice | None
_Unit: TypeAlias = SpecialUnitChoice | None
_Pc: TypeAlias = PCChoice | None


def _adjusted_now(s: KingdomState | None, field: str, target: Any) -> Any:
    """The value ``field`` of a GM adjustment has now (None when the state has none to show)."""
    if s is None:
        return None
    if field in GM_NEIGHBOUR:
        n = s.neighbours.get(str(target or ""))
        return None if n is None else getattr(n, field.removeprefix("neighbour_"))
    return getattr(s, field, None) if field in (*GM_NUMBERS, "fire_capable", "omen_modifier") else None


class GmAdjustmentEntry(Choices):
    """The GM's escape hatch (§8.3): a figure changed by a delta or set to a value, or a record set, with a reason.
    A form asks ``value`` as the figure needs (``shaped``); the step takes any value JSON holds, as it always did."""

    event: Literal["gm_adjustment"]
    field: Annotated[GmField, Pick("gm_fields", what="a figure the GM may adjust")] = Field(title="What changes")
    delta: Amount | None = Field(None, title="Change by", description="added to it (a corruption track: its points)")
    value: FreeJson = Field(None, title="Set to", description="free-form, as the field needs: a number, a status, a"
                                                                " list of territory areas, or a province, neighbour,"
                                                                " special unit or PC record (the GM's escape hatch,"
                                                                " §8.3, leaves the shape to the GM)")
    target: Annotated[str | None, Pick("gm_targets", what="the neighbour or PC adjusted", depends=("field",),
                                       open=True)] = Field(None, title="Whose", description="the neighbour or PC"
                                                                                            " adjusted")
    reason: str = ""

    @classmethod
    def unused(cls, values: Mapping[str, Any], state: Any) -> frozenset[str]:
        """A corruption track changes by a delta only; a flag, the omen and a record are set; only a neighbour's
        figures and a PC name whose (§8.3, ``outcomes.gm_adjustment``)."""
        f = values.get("field")
        if f in TRACKS:
            return frozenset({"value", "target"})
        if f in GM_NUMBERS:
            return frozenset({"target"})
        if f in ("fire_capable", "omen_modifier", "territory", "province", "neighbour", "special_unit"):
            return frozenset({"delta", "target"})
        if f in ("neighbour_status", "pc"):
            return frozenset({"delta"})
        return frozenset()

    @classmethod
    def shaped(cls, name: str, values: Mapping[str, Any], state: Any) -> Any:
        """``value`` as the figure adjusted needs it: a number to set (its value now said), the omen picked in words,
        a switch, a neighbour's status, the territory's areas (filled with the kingdom's), or a province's,
        neighbour's, special unit's or PC's fields (a PC's filled with its record)."""
        f = values.get("field")
        if name != "value" or not isinstance(f, str):
            return None
        s = state if isinstance(state, KingdomState) else None
        now = _adjusted_now(s, f, values.get("target"))
        said = f" (now {now})" if now is not None else ""
        if f in GM_NUMBERS or f in ("neighbour_diplomacy", "neighbour_population"):
            return Annotated[_SetNumber, Field(None, title="Set to", description="instead of a change, the new"
                                                                                  f" value{said}; empty: change it")]
        if f == "omen_modifier":
            return Annotated[_Omen, Field(None, title="The omen", description=f"for the next random event{said}")]
        if f == "fire_capable":
            return Annotated[bool, Field(bool(now), title="Fire-capable",
                                          description="the kingdom's armies fight with fire (magic or technology)")]
        if f == "neighbour_status":
            return Annotated[_Status, Pick("statuses", what="a neighbour's status"),
                             Field(now, title="Status", description="the neighbour's standing (§2.10)")]
        if f == "territory":
            land = [a.model_dump(mode="json") for a in s.territory] if s is not None else []
            return Annotated[_Territory, Field(land, title="Territory, all of it",
                                               description="the kingdom's land as it will be: each area, its unit,"
                                                           " amount and quality (§2.3, §3.9)")]
        if f == "pc":
            pc = s.pcs.get(str(values.get("target") or "")) if s is not None else None
            return Annotated[_Pc, Field(pc.model_dump(mode="json") if pc is not None else None,
                                                    title="The character", description="as the kingdom knows"
                                                                                       " them (§2.15)")]
        if f == "province":
            return Annotated[_Province, Field(None, title="The province",
                                              description="added, or replacing the one of its id (§2.13)")]
        if f == "neighbour":
            return Annotated[_Neighbour, Field(None, title="The neighbour",
                                               description="added, or replacing the one of its id (§2.10)")]
        if f == "special_unit":
            return Annotated[_Unit, Field(None, title="The special unit",
                                          description="added, or replacing the one of its id (§2.13, A65)")]
        return None


class EvilVanquishedEntry(Choices):
    event: Literal["evil_vanquished"]
    ability: Ability


class BenefitChosenEntry(BenefitChoice):
    event: Literal["benefit_chosen"]


class GovernmentChangedEntry(Choices):
    event: Literal["government_changed"]
    to: Government = Field(description="a PC-led revolution's government (A27); d6 Unrest and 4×d8 still roll")


class FameGainedEntry(Choices):
    event: Literal["fame_gained"]
    amount: Count
    source: Literal["survived_year", "war_begun", "war_won", "pc_level", "institution", "gm"] = "gm"


class WarBegunEntry(Choices):
    event: Literal["war_begun"]
    war_id: str
    attacker: str = Field(description="players or a neighbour's id")
    defender: str = Field(description="players or a neighbour's id")
    cause: Literal["neighbour_event", "automatic", "gm"] = "gm"


class KingdomContactedEntry(NeighbourChoice):
    """Global Empire (§3.2): any kingdom of the known world made a neighbour (level 20 reached)."""

    event: Literal["kingdom_contacted"]


class LevelChangedEntry(Choices):
    event: Literal["level_changed"]
    from_level: int = Field(ge=1, le=20)
    to_level: int = Field(ge=1, le=20)
    cause: Literal["fame", "hold_failed", "gm"] = "gm"


GmEvent = Annotated[
    InstitutionFoundedEntry | PcLevelReachedEntry | GmAdjustmentEntry | EvilVanquishedEntry | BenefitChosenEntry
    | GovernmentChangedEntry | FameGainedEntry | WarBegunEntry | LevelChangedEntry | KingdomContactedEntry,
    Field(discriminator="event"),
]
"""One between-year event, by its ``event`` kind. The ids it names are checked when it is applied, in order (an
earlier event may add the PC or neighbour a later one names)."""

GM_EVENTS: dict[str, type[EventModel]] = {
    "institution_founded": InstitutionFounded, "pc_level_reached": PcLevelReached, "gm_adjustment": GmAdjustment,
    "evil_vanquished": EvilVanquished, "benefit_chosen": BenefitChosen, "government_changed": GovernmentChanged,
    "fame_gained": FameGained, "war_begun": WarBegun, "level_changed": LevelChanged,
    "kingdom_contacted": KingdomContacted,
}


class StartChoices(Choices):
    """Start of year (§4.0, §4.1)."""

    new_session: bool | None = Field(None, title="Start a growth session (roll 5d10 years)",
                                     description="empty: yes when no session is running (§4.0)")
    gm_events: list[GmEvent] = Field(default_factory=list, title="Between-year events",
                                     description="applied in order before the year starts")


# --- events, growth -------------------------------------------------------------------------------------------


class EventsChoices(Choices):
    """What the GM decides if the year's random event needs it (§3.7, §3.8, §4.2)."""

    neighbour_id: Annotated[str, Pick("event_neighbours", what="'random' or a neighbour")] = Field(
        "random", title="Neighbour for result 10", description="Random: a die picks one of the independent"
                                                                " neighbours (with one, that one)")
    evil_ability: Annotated[Ability, Pick("abilities", what="an ability")] = Field(
        "stability", title="Ability the evil afflicts (result 1)")
    god: Annotated[Literal["embrace", "resist"], Pick("gods", what="embrace or resist")] = Field(
        "embrace", title="New god (result 13)")
    war_target: Annotated[Literal["other", "players"], Pick("event_war_targets", what="whom the war is on")] = Field(
        "other", title="Neighbour war target (d6 = 2)",
        description="another kingdom: the players may support a side; the players' kingdom: a war begins with that"
                    " neighbour as the attacker (§4.5)")
    support: bool = Field(False, title="Support a side in a neighbour's war")
    participate: bool = Field(False, title="Take part in a succession crisis")
    succession_skill: Annotated[Literal["diplomacy", "warfare", "magic"],
                                Pick("succession_skills", what="a skill")] = Field(
        "diplomacy", title="Succession crisis skill")
    plague_religion: bool = Field(True, title="Try the Religion check against plague")


class GrowthChoices(CheckChoices):
    """The growth roll (§4.3)."""


# --- actions ----------------------------------------------------------------------------------------------------


class NewProjectChoice(Choices):
    """A building project named when the action is taken (§3.10.9)."""

    id: str = Field(title="Its tag", description="a short word the log keeps the project by, e.g. north-road")
    name: str = Field(title="Name")
    points_required: int = Field(ge=1, le=LIMIT, title="Building points needed")
    kind: Literal["road", "highway", "other"] = Field("other", title="Kind")
    province_id: ProvinceId | None = Field(None, title="Province")


class ActionChoice(Choices):
    """One action (§3.10): what, who performs it and its target."""

    action: Annotated[str, Pick("actions", what="an action (§3.10) its performer may take",
                                depends=("performer",))]
    performer: Literal["kingdom", "pc", "court"] = Field("kingdom", title="Who performs it")
    pc_id: Annotated[str | None, Pick("pcs", what="a PC of the kingdom")] = Field(None, title="PC")
    pc_bonus: Amount = Field(0, title="The PC's bonus", description="the PC's own bonus in the skill the action uses")
    skill: Annotated[str | None, Pick("action_skills", what="a skill this action allows",
                                      depends=("action", "performer"))] = Field(None, title="Skill")
    target_track: Annotated[str | None, Pick("tracks", what="a corruption track")] = Field(
        None, title="Corruption track reduced")
    neighbour_id: Annotated[str | None, Pick("neighbours", what="a neighbour")] = Field(None, title="Neighbour")
    use_positive: Literal["crime", "decadence"] | None = Field(
        None, title="Crime or Decadence used as a bonus",
        description="Attract Population: the track's modifier added as a bonus; the track gains 1d6 points (A10)")
    institution_id: Annotated[str | None, Pick("institutions", what="an institution of the kingdom")] = Field(
        None, title="Institution")
    project_id: Annotated[str | None, Pick("open_projects", what="an open building project")] = Field(
        None, title="Project")
    new_project: NewProjectChoice | None = Field(None, title="A new building project")
    take_advantage: bool = Field(False, title="Take this year's advantage",
                                 description="Tax Collection 5–14: take this year's advantage (A50)")
    naval: int = Field(0, ge=0, le=MAX_DICE, title="Naval dice", description="Equip: dice taken as naval dice (A53)")
    casus_belli: bool = Field(False, title="A casus belli", description="Declare War: advantage")
    situational: Annotated[list[Annotated[tuple[str, Amount], Strict(False)]], Columns(("Modifier", "Value"))] = Field(
        default_factory=list, title="Situational modifiers", description="what the GM adds to the check, each with its"
                                                                        " value")
    spend_stored: bool = _stored()
    spend_year: bool = _yearly()
    take_10: bool = _take_10()

    @classmethod
    def unused(cls, values: Mapping[str, Any], state: Any) -> frozenset[str]:
        """The fields the action and its performer do not take (``ACTION_FIELDS``; a PC's check takes its bonus, not
        the kingdom's advantages, A50 and §3.6; the Court notable's bonus is the rules', A74); a skill only where the
        rules let the performer pick it (``vocabulary.PC_SKILLS``, a PC's A75: else the action names it). Before an
        action is chosen, all but the action and the performer."""
        action, performer = values.get("action"), values.get("performer") or "kingdom"
        if action in (None, ""):
            return frozenset(cls.model_fields) - {"action", "performer"}
        takes = set(ACTION_FIELDS.get(str(action), ()))
        if performer == "pc":
            takes |= {"pc_id", "pc_bonus"}
        elif performer == "kingdom":
            takes |= {"spend_stored", "spend_year", "take_10"}
        if str(action) in PC_SKILLS or (performer in ("pc", "court") and str(action) in PC_ACTIONS):
            takes.add("skill")  # a skill the rules let the performer pick (§3.10.3, §3.10.7, A75); else the action's
        return frozenset((ACTION_ONLY | {"skill"}) - takes)


ACTION_FIELDS: dict[str, tuple[str, ...]] = {
    "embassy": ("neighbour_id",), "attract_population": ("neighbour_id", "use_positive"),
    "research": ("institution_id",), "reduce_corruption": ("target_track",), "tax_collection": ("take_advantage",),
    "declare_war": ("neighbour_id", "casus_belli"), "reduce_unrest": (), "equip": ("naval",),
    "building_project": ("project_id", "new_project"),
}
"""The fields of an action row only some actions read (§3.10), by action."""

ACTION_ONLY = frozenset({*(f for fs in ACTION_FIELDS.values() for f in fs), "pc_id", "pc_bonus", "spend_stored",
                         "spend_year", "take_10"})
"""The fields an action row uses only for some actions or performers (``ActionChoice.unused``)."""


class ActionsChoices(Choices):
    """The year's actions (§4.4)."""

    actions: list[ActionChoice] | None = Field(
        None, title="Actions", description="empty: fix the worst corruption track, else attract population from the"
                                           " friendliest neighbour, else build, else tax")


# --- war ----------------------------------------------------------------------------------------------------------


class AllocationChoice(Choices):
    """One army at the start of a war year (A55)."""

    army_id: str = Field(title="Army", description="its name (an id: p-army1)")
    province_id: ProvinceId = Field(title="Starts in")
    militia: Count = Field(title="Militia")


class OrderChoice(Choices):
    """One army's order in a war turn (A58)."""

    model_config = ConfigDict(title="Order")

    army_id: Annotated[str, Pick("war_armies", what="an army of this war year", open=True)] = Field(
        title="Army", description="an army of this war year (as allocated)")
    kind: Annotated[Literal["move", "attack", "hold"], Pick("war_orders", what="an order", open=True)] = Field(
        "hold", title="Order")
    path: Annotated[list[ProvinceId], InOrder(most=2)] = Field(
        default_factory=list, title="March to", description="one province, or two through a road, in order")
    target: Annotated[str | None, Pick("war_targets", what="an army of this war year", depends=("army_id",),
                                       open=True)] = Field(
        None, title="Army attacked", description="the enemy army attacked")
    special_unit: Annotated[str | None, Pick("special_units", what="a special unit")] = Field(
        None, title="Special unit attacking", description="its damage die instead of the militia's, once a year")
    naval_dice: int = Field(0, ge=0, le=MAX_DICE, title="Naval dice committed",
                            description="to win the sea crossed (§4.5.4)")
    oppose_naval_dice: int = Field(0, ge=0, le=MAX_DICE, title="Naval dice against a crossing",
                                   description="committed against the enemy's crossing (§4.5.4)")
    spend_stored: bool = Field(False, title="Spend a stored advantage",
                               description="on this army's first check of the war turn: hit or naval roll (§4.5.3)")
    spend_year: bool = Field(False, title="Spend this year's tax advantage", description="likewise (A50)")
    take_10: bool = Field(False, title="Take 10 (Competent Administration)", description="likewise, once a year")


class PeaceChoice(Choices):
    """A peace attempt in a war turn (§3.11)."""

    attempt: bool | None = Field(None, title="Offer peace",
                                 description="this war turn (§4.5.5); any term given offers it too")
    provinces_demanded: list[ProvinceId] = Field(default_factory=list, title="Provinces demanded",
                                                 description="+5 to the DC each (§3.11)")
    performer: Literal["kingdom", "pc", "court"] = Field(
        "kingdom", title="Who persuades", description="the kingdom's Diplomacy check, or a PC's Persuasion (§4.5.5)")
    pc_bonus: Amount = Field(0, title="The PC's Persuasion bonus")
    spend_stored: bool = _stored()
    spend_year: bool = _yearly()
    take_10: bool = _take_10()


class TechnologyChoice(Choices):
    """The GM's ruling on the players' technology bonuses this war year (§4.5.3, §4.5.4; A48)."""

    hit: Amount = Field(0, title="Technology bonus to our hit rolls")
    defence: Amount = Field(0, title="Technology bonus to our defence value")
    naval: Amount = Field(0, title="Technology bonus to our naval supremacy rolls")


class FrontChoices(Choices):
    """One war's year: armies, the GM's technology ruling, orders per war turn, peace."""

    allocations: list[AllocationChoice] | None = Field(
        None, title="Our armies", description="empty: our share of the militia (split evenly among this year's wars)"
                                              " in one army")
    enemy_allocations: list[AllocationChoice] | None = Field(None, title="Enemy armies")
    orders: dict[WarTurn, list[OrderChoice]] = Field(
        default_factory=dict, title="Our orders per war turn", description="empty turn: attack an adjacent enemy"
                                                                         " army, else march")
    enemy_orders: dict[WarTurn, list[OrderChoice]] = Field(default_factory=dict, title="Enemy orders per war turn")
    peace: dict[WarTurn, PeaceChoice] = Field(default_factory=dict, title="Peace attempts per war turn")
    extra_attacks: dict[OurExtraTurn, OrderChoice] = Field(default_factory=dict,
                                                           title="General Staff's extra attack")
    enemy_extra_attacks: dict[EnemyExtraTurn, OrderChoice] = Field(default_factory=dict,
                                                                   title="The enemy's General Staff extra attack")
    technology: TechnologyChoice = Field(default_factory=TechnologyChoice, title="Technology (GM's ruling)")
    spend_stored: bool = _stored()
    spend_year: bool = _yearly()
    take_10: bool = _take_10()


class _FrontId(Choices):
    war_id: Annotated[str, Pick("wars", what="a war the kingdom is fighting")] = Field(title="War")


class FrontEntry(FrontChoices, _FrontId):
    """Another war's year, by its id (simultaneous wars: each its own armies, A55)."""


class WarChoices(FrontChoices):
    """The war year: the fields are the first war's; ``fronts`` holds every other war's (by id; a war left out
    plays the defaults). An entry for the first war replaces the fields here."""

    fronts: list[FrontEntry] = Field(default_factory=list, title="Other wars",
                                     description="one entry per war: its armies, orders and peace")


# --- end ------------------------------------------------------------------------------------------------------------


class EndChoices(Choices):
    """End of year (§4.6)."""

    law_and_order: Annotated[str | None, Pick("law_and_order", what="'none' or a corruption track")] = Field(
        None, title="Law and Order track", description="empty: the worst track if the kingdom holds the feat and has"
                                                       " not used it this year, else none")
    tribe_revolution: bool = Field(False, title="Tribe: revolt to reach level 5")
    benefits: list[BenefitChoice] = Field(default_factory=list, title="Level benefits",
                                          description="those chosen for the levels reached (§3.2)")
    technology_reduction: int = Field(0, ge=0, le=LIMIT, title="Attrition reduction from technology")
    spend_stored: bool = _stored()
    spend_year: bool = _yearly()
    take_10: bool = _take_10()


# --- emitting -----------------------------------------------------------------------------------------------------


def record(ctx: Ctx, payload: Recorded, prefix: str = "") -> Recorded:
    """Run the rules of ``payload`` (dice rolled under ``prefix``), record what they changed, emit it."""
    before = ctx.state
    tape = RecordingTape(ctx, prefix)
    after, audit = outcome(before, payload, tape)
    update: dict[str, Any] = {"outcome": diff(before, after)}
    if isinstance(payload, Resolved):
        update.update(dice=tuple(tape.records), audit=audit)
    done = payload.model_copy(update=update)
    ctx.emit(done)
    return done


def direct(ctx: Ctx, payload: EventModel) -> None:
    """Emit an event ``evolve`` applies as it is, after the rules' checks."""
    check(ctx.state, payload)
    ctx.emit(payload)


def _payload(cls: type[EventModel], data: Mapping[str, Any], what: str) -> Any:
    try:
        return cls.model_validate(dict(data))
    except ValidationError as exc:
        errs = "; ".join(f"{'.'.join(str(x) for x in e['loc'])}: {e['msg']}" for e in exc.errors()[:3])
        raise InputError(f"{what}: {errs}") from None


def after_change(ctx: Ctx, tag: str, *, wars: bool = True) -> None:
    """Automatic wars (A40) and a due revolution (A11) right after a change."""
    for nid in auto_war_due(ctx.state) if wars else []:
        record(ctx, WarBegun(war_id=f"war-{ctx.state.year}-{nid}", attacker=nid, defender=PLAYERS, cause="automatic"))
    if ctx.state.revolution_due:
        record(ctx, RevolutionRolled(cause="unrest"), f"rev{tag}.")


def _step(fn: Callable[[Ctx, Any], None]) -> Callable[[Ctx, Any], None]:
    """A step of a founded kingdom; a ``RuleError`` of the rules is reported as the step's."""

    @wraps(fn)
    def decide(ctx: Ctx, c: Any) -> None:
        if not ctx.state.founded:
            raise ctx.fail("found the kingdom first (turn 0)", "§8.3")
        try:
            fn(ctx, c)
        except RuleError as exc:
            if exc.step:
                raise
            raise RuleError(str(exc).split(" (rule:")[0], rule=exc.rule, step=ctx.step) from None

    return decide


# --- defaults -----------------------------------------------------------------------------------------------------


def default_actions(s: KingdomState) -> list[dict[str, Any]]:
    """A year's actions when the GM gives none: fix the worst corruption, else grow, else build or tax."""
    out: list[dict[str, Any]] = []
    n = R.actions_per_year(s) if not s.pending_revolution else 0
    friendly = sorted((x for x in s.neighbours.values() if x.status == "independent" and x.population > 0),
                      key=lambda x: (-x.diplomacy, x.id))
    open_projects = [p for p in s.building_projects if not p.completed]
    worst = min(TRACKS, key=lambda t: (s.tracks[t].modifier, -s.tracks[t].points))
    for _ in range(n):
        if s.tracks[worst].modifier < 0 and not any(a.get("target_track") == worst for a in out):
            out.append({"action": "reduce_corruption", "target_track": worst})
        elif friendly and not any(a["action"] == "attract_population" for a in out):
            out.append({"action": "attract_population", "neighbour_id": friendly[0].id})
        elif open_projects and not any(a["action"] == "building_project" for a in out):
            out.append({"action": "building_project", "project_id": open_projects[0].id})
        else:
            out.append({"action": "tax_collection"})
    return out


def default_law_and_order(s: KingdomState) -> str | None:
    """The worst track, if the kingdom holds Law and Order and has not used it this year."""
    if not R.has_feat(s, "law_and_order") or "law_and_order_used" in s.year_flags:
        return None
    return min(TRACKS, key=lambda t: (s.tracks[t].modifier, -s.tracks[t].points))


def new_session_due(s: KingdomState) -> bool:
    return s.session.session_no == 0 or s.session.years_played >= s.session.years_total


war_defaults = war.war_defaults


def default_allocations(s: KingdomState) -> tuple[list[dict[str, Any]] | None, list[dict[str, Any]] | None]:
    """The first war's default armies (see ``war_defaults``), ours and the enemy's; None when at peace."""
    if not s.wars:
        return None, None
    ours, theirs = war_defaults(s, s.wars[0])
    return [a.model_dump() for a in ours], [a.model_dump() for a in theirs]


def default_choices(s: KingdomState, step: str) -> dict[str, Any]:
    """Every choice of ``step`` spelled out as the rules would default it in ``s`` (for explicit plans)."""
    adv = {"spend_stored": False, "spend_year": False, "take_10": False}
    if step == "founding":
        return FoundingChoices().model_dump()
    if step == "start":
        return {"new_session": new_session_due(s), "gm_events": []}
    if step == "events":
        return EventsChoices().model_dump()
    if step == "growth":
        return dict(adv)
    if step == "actions":
        return {"actions": default_actions(s)}
    if step == "war":
        ours, theirs = default_allocations(s)
        return {"allocations": ours, "enemy_allocations": theirs, "orders": {}, "enemy_orders": {}, "peace": {},
                "extra_attacks": {}, "enemy_extra_attacks": {}, "technology": TechnologyChoice().model_dump(), **adv,
                "fronts": []}
    if step == "end":
        return {"law_and_order": default_law_and_order(s) or "none", "tribe_revolution": False, "benefits": [],
                "technology_reduction": 0, **adv}
    raise InputError(f"unknown step {step!r}")


# --- the steps ------------------------------------------------------------------------------------------------------


def decide_founding(ctx: Ctx, c: FoundingChoices) -> None:
    """Turn 0: one ``kingdom_founded`` with the campaign's options."""
    data = c.model_dump()
    data["options"] = dict(ctx.state.options)
    try:
        direct(ctx, _payload(KingdomFounded, data, "founding"))
    except RuleError as exc:
        raise RuleError(str(exc).split(" (rule:")[0], rule=exc.rule, step=ctx.step) from None


_SET_NEEDS = {"territory": "the territory's areas", "province": "the province's fields",
              "neighbour": "the neighbour's fields", "special_unit": "the special unit's fields",
              "pc": "the character's fields", "fire_capable": "whether the kingdom is fire-capable",
              "omen_modifier": "the omen", "neighbour_status": "the neighbour's status"}
_RECORD_OF: dict[str, Any] = {"territory": list[TerritoryArea], "province": Province, "neighbour": Neighbour,
                              "special_unit": SpecialUnit, "pc": PC}


def _check_adjustment(ctx: Ctx, e: GmAdjustmentEntry, i: int) -> None:
    """A GM adjustment holds what its figure needs (§8.3), refused at the value or the neighbour it lacks: a record
    or a flag set needs its value, a neighbour's figure its neighbour, a record a shape the state takes."""
    from pydantic import TypeAdapter

    where = f"step {ctx.step!r}: choice gm_events[{i}]"
    if e.field in _SET_NEEDS and e.value is None:
        raise InputError(f"{where}.value: give {_SET_NEEDS[e.field]}, or take the adjustment out")
    if e.field in GM_NEIGHBOUR and not e.target:
        raise InputError(f"{where}.target: pick the neighbour whose {e.field.removeprefix('neighbour_')} changes")
    if e.field == "neighbour_status" and e.value not in typing.get_args(_Status):
        raise InputError(f"{where}.value: a neighbour's status is independent, at war with players, annexed or split")
    if e.field in _RECORD_OF:
        try:
            TypeAdapter(_RECORD_OF[e.field]).validate_python(e.value)
        except ValidationError as exc:
            err = exc.errors()[0]
            at = ".".join(str(x) for x in err["loc"])
            raise InputError(f"{where}.value: {at + ': ' if at else ''}{err['msg'].lower()}") from None


def _gm_events(ctx: Ctx, entries: Sequence[Any]) -> None:
    for i, entry in enumerate(entries):
        if isinstance(entry, GmAdjustmentEntry):
            _check_adjustment(ctx, entry, i)
        if isinstance(entry, InstitutionFoundedEntry) and entry.pc_id is not None and entry.founder != "pc":
            raise InputError(f"step {ctx.step!r}: choice gm_events[{i}].pc_id: a PC founds it only when its founder"
                             f" is a PC (it is {'the Court' if entry.founder == 'court' else 'an event'})")
        data = entry.model_dump(exclude={"event"})
        if isinstance(entry, KingdomContactedEntry):
            data = {"kingdom": data}
        p = _payload(GM_EVENTS[entry.event], data, f"gm_events[{i}]")
        if isinstance(p, GovernmentChanged):
            record(ctx, p, f"gm{i}.")
        elif isinstance(p, Recorded):
            record(ctx, p)
        else:
            direct(ctx, p)


@_step
def decide_start(ctx: Ctx, c: StartChoices) -> None:
    """Between-year events, a new session (5d10 years), the year, a levy die (§4.0, §4.1)."""
    fallen = ctx.state.fallen
    _gm_events(ctx, c.gm_events)
    if fallen:
        return  # A81: only GM events after the fall
    s = ctx.state
    if c.new_session if c.new_session is not None else new_session_due(s):
        if s.session.session_no > 0 and s.session.years_played < s.session.years_total:
            raise ctx.fail(f"session {s.session.session_no} still has "
                           f"{s.session.years_total - s.session.years_played} year(s) to play", "§4.0")
        record(ctx, SessionStarted(session_no=s.session.session_no + 1))
    direct(ctx, YearStarted(year=ctx.state.year + 1))
    s = ctx.state
    if s.population_rose_last_year and s.levy_dice < s.level:
        record(ctx, LevyDieGained())


@_step
def decide_events(ctx: Ctx, c: EventsChoices) -> None:
    """2d6 + omen on the random events table, and what the result needs (§3.7, §4.2)."""
    if ctx.state.fallen:
        return
    ev = record(ctx, RandomEventRolled())
    key = ev.audit["result_key"] if isinstance(ev, Resolved) else ""
    if key == "evil_manifested":
        record(ctx, EvilManifested(ability=c.evil_ability))
    elif key == "natural_disaster":
        record(ctx, NaturalDisasterResolved())
    elif key == "plague":
        record(ctx, PlagueResolved(try_religion=c.plague_religion))
    elif key == "new_god":
        record(ctx, NewGodAppeared(choice=c.god))
    elif key == "neighbour_event":
        nid = "" if c.neighbour_id == "random" else c.neighbour_id
        candidates = sorted(n.id for n in ctx.state.neighbours.values() if n.status == "independent")
        if not nid and len(candidates) == 1:  # a random one of one: no die to roll (a 1d1 is no die)
            nid = candidates[0]
        elif not nid and candidates:
            nid = candidates[ctx.roll("pick", f"1d{len(candidates)}").total - 1]
        if nid:
            record(ctx, NeighbourEventRolled(neighbour_id=nid, war_target=c.war_target, support=c.support,
                                             participate=c.participate, skill=c.succession_skill))
    after_change(ctx, "")


@_step
def decide_growth(ctx: Ctx, c: GrowthChoices) -> None:
    """The growth roll against the living-space DC (§4.3)."""
    if ctx.state.fallen:
        return
    record(ctx, GrowthRolled(check=_opts(c)))
    after_change(ctx, "")


def _action(i: int, body: Mapping[str, Any]) -> ActionTaken:
    data = dict(body)
    opts = {k: data.pop(k) for k in ("spend_stored", "spend_year", "take_10") if k in data}
    p: ActionTaken = _payload(ActionTaken, {**data, "index": i, "check": opts}, f"actions[{i}]")
    return p


@_step
def decide_actions(ctx: Ctx, c: ActionsChoices) -> None:
    """As many actions as the kingdom has (§4.4), or the revolution re-roll (§3.5 result 7)."""
    s = ctx.state
    if s.fallen:
        return
    if s.pending_revolution:
        if c.actions:
            raise ctx.fail("a revolution tears the kingdom apart: the only action this year is the re-roll",
                           "§4.4.2 (§3.5 result 7)")
        record(ctx, RevolutionRolled(cause="pending"), "rev.")
        after_change(ctx, "x")
        return
    acts = [a.model_dump() for a in c.actions] if c.actions is not None else default_actions(s)
    apy = R.actions_per_year(s)
    if len(acts) > apy:
        raise ctx.fail(f"{len(acts)} actions planned but the kingdom has {apy} per year at level {s.level}",
                       "§2.9 actions per year")
    for i, body in enumerate(acts, start=1):
        p = _action(i, body)
        if p.action in AIMED and p.neighbour_id is None:  # said at the row's neighbour, in words
            raise InputError(f"choice actions[{i - 1}].neighbour_id: choose the neighbour {action_words(p.action)}"
                             f" is aimed at")
        if ctx.state.actions_forfeited:
            raise ctx.fail(f"action {i}: no actions remain this year (war declared or revolution)",
                           "§4.4.3 (A51, A25)")
        with ctx.acting(f"a{i}"):  # an action a player proposed is that player's act (StepPlan.actors)
            record(ctx, p, f"a{i}.")
            after_change(ctx, str(i))


def _ids(ctx: Ctx, where: str, values: Sequence[str | None], source: str, what: str) -> None:
    """Picks inside per-turn choices (which core does not walk): each id must be in the state's list."""
    allowed = vocabulary(ctx.state, source, {}) or ()
    ok = {o.value for o in allowed}
    for j, v in enumerate(values):
        if v is not None and v not in ok:
            names = ", ".join(str(o.value) for o in allowed) or "there is none"
            raise InputError(f"step {ctx.step!r}: choice {where}[{j}]: {v!r} is not {what}; allowed: {names}")


def _check_front_ids(ctx: Ctx, c: FrontChoices, where: str) -> None:
    for name in ("orders", "enemy_orders"):
        for t, orders in getattr(c, name).items():
            for i, o in enumerate(orders):
                _ids(ctx, f"{where}{name}.{t}[{i}].path", o.path, "provinces", "a province of the map")
                _ids(ctx, f"{where}{name}.{t}[{i}].special_unit", [o.special_unit], "special_units", "a special unit")
    for name in ("extra_attacks", "enemy_extra_attacks"):
        for t, o in getattr(c, name).items():
            _ids(ctx, f"{where}{name}.{t}.path", o.path, "provinces", "a province of the map")
            _ids(ctx, f"{where}{name}.{t}.special_unit", [o.special_unit], "special_units", "a special unit")
    for t, peace in c.peace.items():
        _ids(ctx, f"{where}peace.{t}.provinces_demanded", peace.provinces_demanded, "provinces",
             "a province of the map")


def _check_war_ids(ctx: Ctx, c: WarChoices) -> None:
    """Picks inside per-turn choices, and one entry per war in ``fronts``."""
    _check_front_ids(ctx, c, "")
    seen: set[str] = set()
    for i, f in enumerate(c.fronts):
        if f.war_id in seen:
            raise InputError(f"step {ctx.step!r}: choice fronts[{i}].war_id: {f.war_id!r} has two entries")
        seen.add(f.war_id)
        _check_front_ids(ctx, f, f"fronts[{i}].")


def _orders(entries: Sequence[OrderChoice] | None) -> tuple[Order, ...] | None:
    return None if entries is None else tuple(Order.model_validate(o.model_dump()) for o in entries)


def _peace(p: PeaceChoice | None) -> PeaceTerms | None:
    if p is None or not p.model_fields_set or p.attempt is False:
        return None
    data = p.model_dump(exclude={"attempt"})
    opts = {k: data.pop(k) for k in ("spend_stored", "spend_year", "take_10")}
    return PeaceTerms.model_validate({**data, "check": opts})


def _front(c: WarChoices, w: War, first: bool) -> FrontChoices | None:
    """The choices of war ``w``: its ``fronts`` entry, else the top-level fields for the first war."""
    entry = next((f for f in c.fronts if f.war_id == w.war_id), None)
    if entry is not None:
        return entry
    return c if first else None


@_step
def decide_war(ctx: Ctx, c: WarChoices) -> None:
    """War year set-up of every war (the militia shared out first), then each war's turns and end (§4.5)."""
    _check_war_ids(ctx, c)
    s = ctx.state
    if s.fallen or (s.pending_revolution and s.actions_forfeited):
        return  # A25: result 7 costs this year's war turns too
    wars = list(s.wars)
    prefixes = {w.war_id: ("w." if wi == 0 else f"w{wi + 1}.") for wi, w in enumerate(wars)}
    fronts = {w.war_id: _front(c, w, wi == 0) for wi, w in enumerate(wars)}
    for w in wars:
        s = ctx.state
        if w.armies_assigned_year == s.year or not any(x.war_id == w.war_id for x in s.wars):
            continue
        f = fronts[w.war_id]
        ours, theirs = war_defaults(s, w)
        alloc = ([Allocation.model_validate(a.model_dump()) for a in f.allocations]
                 if f is not None and f.allocations is not None else list(ours))
        ealloc = ([Allocation.model_validate(a.model_dump()) for a in f.enemy_allocations]
                  if f is not None and f.enemy_allocations is not None else list(theirs))
        tech = WarTechnology.model_validate(f.technology.model_dump()) if f is not None else WarTechnology()
        record(ctx, WarYearStarted(war_id=w.war_id, allocations=tuple(alloc), enemy_allocations=tuple(ealloc),
                                   check=_opts(f) if f is not None else CheckOptions(), technology=tech),
               prefixes[w.war_id])
    for w in wars:
        pfx = prefixes[w.war_id]
        f = fronts[w.war_id]
        if not any(x.war_id == w.war_id for x in ctx.state.wars):
            continue
        if _end_war(ctx, w.war_id, pfx + "end."):
            continue
        cur = war.get_war(ctx.state, w.war_id)
        for t in range(cur.war_turn + 1, cur.war_turns_this_year + 1):
            s = ctx.state
            cur = war.get_war(s, w.war_id)
            key: Any = str(t)
            orders = _orders(f.orders.get(key)) if f is not None else None
            eorders = _orders(f.enemy_orders.get(key)) if f is not None else None
            extra = f.extra_attacks.get(key) if f is not None else None
            eextra = f.enemy_extra_attacks.get(key) if f is not None else None
            record(ctx, WarTurnResolved(
                war_id=w.war_id, war_turn=t,
                orders=orders if orders is not None else war.default_orders(s, cur, PLAYERS),
                enemy_orders=eorders if eorders is not None else war.default_orders(s, cur, war.enemy_of(cur)),
                peace=_peace(f.peace.get(key)) if f is not None else None,
                extra_attack=Order.model_validate(extra.model_dump()) if extra else None,
                enemy_extra_attack=Order.model_validate(eextra.model_dump()) if eextra else None),
                f"{pfx}t{t}.")
            if _end_war(ctx, w.war_id, f"{pfx}t{t}.end."):
                break


def _end_war(ctx: Ctx, war_id: str, prefix: str) -> bool:
    s = ctx.state
    w = next((x for x in s.wars if x.war_id == war_id), None)
    if w is None:
        return True
    due = war.end_reason(s, w)
    if due is None:
        return False
    reason, winner = due
    record(ctx, WarEnded(war_id=war_id, reason=reason, winner=winner, provinces_demanded=w.provinces_demanded),
           prefix)
    after_change(ctx, prefix, wars=False)
    return True


@_step
def decide_end(ctx: Ctx, c: EndChoices) -> None:
    """War upkeep, Law and Order, fame, level, the level's benefits, the year's end (§4.6)."""
    s = ctx.state
    if s.fallen:
        return
    for wi, w in enumerate(list(s.wars)):
        pfx = "up." if wi == 0 else f"up{wi + 1}."
        record(ctx, WarUpkeepApplied(war_id=w.war_id, technology_reduction=c.technology_reduction), pfx)
        _end_war(ctx, w.war_id, pfx + "end.")
        after_change(ctx, pfx)
    lao = c.law_and_order if c.law_and_order is not None else (default_law_and_order(ctx.state) or "none")
    if lao != "none":
        record(ctx, LawAndOrderUsed(track=lao))
    direct(ctx, FameGained(amount=1, source="survived_year"))
    s = ctx.state
    target = s.level
    while (target < 20 and s.fame >= R.fame_required(target + 1) and s.population >= R.population_required(target + 1)
           and target + 1 <= R.max_level(s)):
        target += 1
    if target > s.level:
        record(ctx, LevelChanged(from_level=s.level, to_level=target, cause="fame"))
        s = ctx.state
    if (s.government == "tribe" and s.level == 4 and s.fame >= R.fame_required(5)
            and s.population >= R.population_required(5) and c.tribe_revolution):
        if s.revolution_rolled_this_year:
            raise ctx.fail("a revolution was already rolled this year", "§4.7 (A11)")
        record(ctx, RevolutionRolled(cause="tribe_level5"), "rev.tribe.")
        s = ctx.state
        if s.government != "tribe" and s.fame >= R.fame_required(5) and s.population >= R.population_required(5):
            record(ctx, LevelChanged(from_level=4, to_level=5, cause="fame"))
    elif c.tribe_revolution:
        raise ctx.fail("only a level-4 Tribe meeting level 5's requirements may revolt to rise", "§3.1 (A26)")
    s = ctx.state
    if s.population < R.population_required(s.level):
        record(ctx, LevelHoldChecked(check=_opts(c)), "hold.")
    for i, b in enumerate(c.benefits):
        record(ctx, _payload(BenefitChosen, b.model_dump(), f"benefits[{i}]"))
    direct(ctx, YearEnded(year=ctx.state.year))
    s = ctx.state
    if s.session.session_no and s.session.years_played == s.session.years_total:
        direct(ctx, SessionEnded(session_no=s.session.session_no))


# --- the declarations -------------------------------------------------------------------------------------------

FOUNDING = Step("founding", "Founding", "The kingdom's founding values (§2, A3)", (), FoundingChoices,
                decide_founding)
PHASES: tuple[Step, ...] = (
    Step("start", "Start of year", "Between-year events, a new growth session (5d10 years), the levy die"
         " (§4.0, §4.1)", ("years", "levy", "gm<i>.unrest", "gm<i>.corruption.<track>"), StartChoices, decide_start),
    Step("events", "Random events", "2d6 + omens; the neighbour sub-table (§4.2)",
         ("event", "pick", "disaster.*", "plague.*", "god", "neighbour*", "criminals.*", "succession.*", "rev.*"),
         EventsChoices, decide_events),
    Step("growth", "Population growth", "Living space sets the DC of the growth roll (§4.3)", ("growth", "rev.*"),
         GrowthChoices, decide_growth),
    Step("actions", "Actions", "As many actions as the kingdom has (§4.4)", ("a<i>.check", "a<i>.*", "rev<i>.*"),
         ActionsChoices, decide_actions),
    Step("war", "War turns", "War year set-up, war turns, end of war (§4.5)",
         ("w.initiative", "w.initiative.enemy", "w.t<n>.*"), WarChoices, decide_war),
    Step("end", "End of year", "War upkeep, Law and Order, fame, level, clean-up (§4.6)",
         ("up.attrition.<army>.<item>", "hold.hold", "rev.tribe.*"), EndChoices, decide_end),
)
