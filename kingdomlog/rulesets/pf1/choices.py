"""The typed choices of every pf1 step: one ``Choices`` model per step, nested models for entries.

Values that must come from the campaign's state are ``Pick(source)`` fields; the ruleset's
``vocabulary`` (module :mod:`~kingdomlog.rulesets.pf1.vocabulary`) lists their options with
what a GM weighs (cost, modifier, status). A Pick only refuses ids the state does not
have; whether an existing id may be used now (a hex not adjacent, a district not ready) is
the step's rule check, refused with its rule. Every field has a default, so an empty plan
plays a legal month; optional modules' fields are refused by the step when the module is off.

Picks are checked against the state at the start of the step: an entry can name what an
earlier field of the same step creates only where the vocabulary sees that field
(hexes mapped in ``map`` may be explored and cleared at once; hexes in ``claim`` may be
abandoned). A city founded this step is the capital when it is the first, and a leader
assigned this step takes ``present`` and ``skill_ranks`` on the assignment itself.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from kingdomlog.core.choices import LIMIT, Amount, Choices, Count, Pick

GP_LIMIT = 4_000 * LIMIT
"""The most gold pieces a choice takes: the worth of ``LIMIT`` BP (a deposit buys 1 BP per 4,000 gp, base §4.4)."""

Alignment = Literal["LG", "NG", "CG", "LN", "N", "CN", "LE", "NE", "CE"]
TerrainName = Literal["GRASSLAND", "HILLS", "FOREST", "MARSH", "MOUNTAINS"]
AttributeName = Literal["ECONOMY", "LOYALTY", "STABILITY"]
Attitude = Literal["hostile", "unfriendly", "indifferent", "friendly", "helpful"]
Level = Literal["none", "embassy", "treaty", "alliance"]
Side = Literal["N", "E", "S", "W"]
BorderKind = Literal["LAND", "WATER"]
Renown = Literal["fame", "infamy"]
EffectKind = Literal["ATTRIBUTE", "UNREST", "TREASURY", "FAME", "INFAMY"]
SettlementModifier = Literal["corruption", "crime", "law", "lore", "productivity", "society"]
SlotCategory = Literal["minor", "medium", "major"]

HexId = Annotated[str, Pick("hexes", what="a hex on the map (or mapped in this step)")]
ClaimHex = Annotated[str, Pick("claim_hexes", what="on the map (map it first)")]
ClaimedHex = Annotated[str, Pick("claimed_hexes", what="a hex of the kingdom")]
AbandonHex = Annotated[str, Pick("abandon_hexes", what="a hex of the kingdom (or claimed in this step)")]
DistrictHex = Annotated[str, Pick("district_hexes", what="a hex on the map")]
RoadHex = Annotated[str, Pick("road_hexes", what="a hex on the map")]
ImprovementHex = Annotated[str, Pick("improvement_hexes", what="a hex on the map")]
CityRef = Annotated[str, Pick("cities", what="a city of the kingdom (name or id)")]
DistrictId = Annotated[str, Pick("districts", what="a district of the kingdom")]
BuildingId = Annotated[str, Pick("buildings", what="a building of the kingdom")]
SlotBuilding = Annotated[str, Pick("slot_buildings", what="a building with magic item slots")]
BuildingType = Annotated[str, Pick("building_types", what="a building of the catalogue")]
ImprovementType = Annotated[str, Pick("improvement_types", what="a hex improvement of the catalogue")]
RoleId = Annotated[str, Pick("roles", what="a leadership role of this campaign")]
LeaderName = Annotated[str, Pick("leader_names", what="a leader holding that role", depends=("role",))]
Ability = Annotated[str, Pick("abilities", what="an ability score (STR, DEX, CON, INT, WIS, CHA)",
                              depends=("role",))]
ForeignId = Annotated[str, Pick("foreign_kingdoms", what="a registered foreign kingdom")]
GovernmentId = Annotated[str, Pick("governments", what="a form of government")]
ArmyId = Annotated[str, Pick("armies", what="an army on the map")]
OurArmy = Annotated[str, Pick("our_armies", what="an army of the kingdom")]
TacticName = Annotated[str, Pick("tactics", what="an army tactic")]
StrategyName = Literal["Defensive", "Cautious", "Standard", "Aggressive", "Reckless"]
ResourceName = Annotated[str, Pick("army_resources", what="an army resource")]
SpecialName = Annotated[str, Pick("army_specials", what="an army special ability", open=True)]
"""Open: an ability may carry the army's number or choice (``Bravery +1``, ``Favored Enemy (orc)``), checked when the
army is raised (specials.check)."""
OurUse = Annotated[str, Field(min_length=1, max_length=80),
                   Pick("our_uses", what="an order our lead army can be given (one of its special abilities, with an"
                                         " allied army where one is named)", depends=("ours",))]
"""An activated special ability ordered for our lead army: ``Rage``, ``Judgment (damage)``, ``Wild Shape (Flight)``,
``Inspire Courage (A3)``; one of those the army has (vocabulary ``our_uses``)."""
EnemyUse = Annotated[str, Field(min_length=1, max_length=80),
                     Pick("enemy_uses", what="an order the enemy's lead army can be given (one of its special"
                                              " abilities, with an allied army where one is named)",
                          depends=("enemy",))]
"""The same for the enemy's lead army (vocabulary ``enemy_uses``)."""
BoonName = Annotated[str, Pick("boons", what="a commander's boon")]
ConditionName = Annotated[str, Pick("battle_conditions", what="a battlefield condition")]
ArmySizeName = Literal["Fine", "Diminutive", "Tiny", "Small", "Medium", "Large", "Huge", "Gargantuan", "Colossal"]
CrName = Literal["1/8", "1/6", "1/4", "1/3", "1/2", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12",
                 "13", "14", "15", "16", "17", "18", "19", "20", "21", "22", "23", "24", "25"]
ExpeditionId = Annotated[str, Pick("expeditions", what="an expedition under way")]


# ------------------------------------------------------------------ shared entries


class HexEntry(Choices):
    """A hex put on the map (base §2.7)."""

    id: str = Field(title="Hex id", description="the hex's id (new; an id already on the map is re-mapped: "
                    "terrain, river and features change)")
    q: Amount = Field(title="Column", description="its column on the map, as the hexes table says it (a neighbour is"
                      " one column or one row away, or one column on and one row back, or the reverse)")
    r: Amount = Field(title="Row", description="its row on the map, as the hexes table says it")
    terrain: TerrainName = "GRASSLAND"
    river: bool = False
    features: list[str] = Field(default_factory=list, description="free-form map notes the rules read: BRIDGE, "
                                "CAVE, LAIR, LANDMARK, RESOURCE, ROAD, BUILDING:<type>, RUINS:<type>, "
                                "TOWN:<name> (the GM's map; any other tag is kept and ignored)")
    explored: bool = Field(default=True, description="mapped as explored")
    cleared: bool = Field(default=True, description="mapped as cleared of monsters")


class ForeignKingdomEntry(Choices):
    """A foreign kingdom registered for diplomacy, trade or vassalage (opt §2.5.1)."""

    id: str = Field(title="Kingdom id", description="a new id for the kingdom (e.g. mivon)")
    name: str | None = Field(default=None, description="its name (default: the id)")
    alignment: Alignment = "N"
    size: int = Field(default=1, ge=1, le=LIMIT)
    economy: Amount | None = Field(default=None, description="the GM's figure (hidden from players)")
    stability: Amount | None = Field(default=None, description="the GM's figure (hidden from players)")
    is_npc: bool = True
    is_sponsor: bool = Field(default=False, description="the sponsor kingdom starts with an embassy")
    attitude: Attitude = "indifferent"


THIRD_PARTY = "Relations among foreign kingdoms"
"""The field ``third_party`` (the Diplomatic edicts rule, opt §2.5.4) as the forms ask it and the panel heads it
(``names.FIELD_TITLES``); it read "Third party"."""
THIRD_PARTY_HELP = "how two foreign kingdoms stand with each other: an embassy, a treaty, an alliance, or enemies"


class ThirdPartyEntry(Choices):
    """The GM's relation between two foreign kingdoms (opt §2.5.4)."""

    a: str = Field(title="One kingdom", description="a foreign kingdom, by its id (registered before or in this step)")
    b: str = Field(title="The other kingdom", description="another foreign kingdom, by its id (registered before or in"
                   " this step)")
    level: Level = Field(default="none", title="Their relation", description="embassy, treaty or alliance between"
                         " them (none: they have no ties)")
    enemy: bool = Field(default=False, title="Enemies", description="the two kingdoms are enemies")


# ------------------------------------------------------------------ mass combat entries (UC Mass Combat)


class CommanderEntry(Choices):
    """An army's commander: Charisma modifier, Profession (soldier) ranks, character level (Leadership = level +
    Cha, +3 with the Leadership feat), boons; ``role`` names a kingdom leader commanding in person."""

    name: str = Field(min_length=1)
    cha: Amount = 0
    ranks: int = Field(default=0, ge=0, le=LIMIT, title="Profession (soldier) ranks")
    level: int = Field(default=1, ge=0, le=LIMIT, description="character level (a monster: its HD)")
    leadership_feat: bool = False
    role: RoleId | None = Field(default=None, description="a kingdom leader commanding (knows a boon of the role)")
    boons: list[BoonName] = Field(default_factory=list)
    bonus_tactics: list[TacticName] = Field(default_factory=list, description="tactics of the Bonus Tactic boon")


class ArmyEntry(Choices):
    """An army raised or placed by the GM (UC Army Statistics): the unit's CR and Hit Die give ACR, hp, OM, DV."""

    name: str = Field(min_length=1)
    size: ArmySizeName = "Medium"
    unit: str = Field(default="", description="the units (e.g. humans (warrior 1))")
    unit_cr: CrName = Field(default="1", title="CR of one unit (cavalry: the higher of rider and mount)")
    hd: Literal[6, 8, 10, 12] = Field(default=10, title="Hit Die of the units")
    speed: int = Field(default=1, ge=0, le=LIMIT, description="12-mile hexes a day (from the units' speed)")
    ranged: bool = Field(default=False, description="the units make ranged attacks")
    specials: list[SpecialName] = Field(default_factory=list, description="special abilities, with the army's "
                                        "number or choice where one is needed: Bravery +1, Spellcasting 2, "
                                        "Favored Enemy (orc)")
    tactics: list[TacticName] = Field(default_factory=list, description="tactics known (half the ACR at most)")
    om_bonus: Amount = Field(default=0, description="the GM's custom OM (feats, a unit's strength the abilities "
                             "do not model)")
    dv_bonus: Amount = Field(default=0, description="the GM's custom DV (what the abilities do not model)")
    hex: str | None = Field(default=None, description="where it stands (a hex id)")
    commander: CommanderEntry | None = None
    side: str = Field(default="enemy", description="gm step: whose army (a foreign kingdom's id, or enemy)")


class ArmyActionEntry(Choices):
    """Edict step 6: equip an army, bring it to full strength (each in place of a new settlement), or reserve,
    activate, move, disband, change its commander, or the GM's Morale and hit-point rulings."""

    army: OurArmy
    action: Literal["equip", "full_strength", "reserve", "activate", "move", "disband", "commander", "morale",
                    "reform", "split", "combine"]
    resource: ResourceName | None = Field(default=None, description="equip: the resource (its BP for a Medium army,"
                                          " scaled by size; one of the buildings it needs stands in the kingdom)")
    count: int = Field(default=1, ge=1, le=LIMIT, description="equip: siege engines bought")
    mount_acr: int = Field(default=1, ge=1, le=LIMIT, description="equip Mounts: the mount's ACR (its BP)")
    hex: str | None = Field(default=None, description="move: the hex")
    commander: CommanderEntry | None = None
    morale: Amount = Field(default=0, description="morale: the GM's change (a week without a commander: -1)")
    other: OurArmy | None = Field(default=None, description="combine: the second army (same units, same size)")
    name: str | None = Field(default=None, description="split: the new army's name")
    reason: str = ""


class RoundEntry(Choices):
    """One Melee phase's orders: the strategy (more than one step needs a DC 20 Morale check), a change of tactic
    (DC 15 Morale check, withdraw needs none), healing potions. Titled in words for a form (``ours_tactic``: "Our
    change of tactic"; an entry: "Melee phase")."""

    model_config = ConfigDict(title="Melee phase")

    ours_strategy: StrategyName | None = Field(default=None, title="Our strategy",
                                               description="default: the previous phase's")
    enemy_strategy: StrategyName | None = Field(default=None, title="Enemy's strategy")
    ours_tactic: TacticName | None = Field(default=None, title="Our change of tactic")
    enemy_tactic: TacticName | None = Field(default=None, title="Enemy's change of tactic")
    ours_potions: bool = Field(default=False, title="Our healing potions")
    enemy_potions: bool = Field(default=False, title="Enemy's healing potions")
    ours_use: list[OurUse] = Field(default_factory=list, title="Our special abilities",
                                   description="those the lead army is ordered to use this phase")
    enemy_use: list[EnemyUse] = Field(default_factory=list, title="Enemy's special abilities")


class ConditionEntry(Choices):
    name: ConditionName
    side: Literal["ours", "enemy", "both"] = "both"


class BattleEntry(Choices):
    """A battle between one of our armies and another (UC Battle Phases), fought phase by phase."""

    ours: OurArmy
    enemy: ArmyId
    allies: list[OurArmy] = Field(default_factory=list, description="more of our armies in the battle (standard "
                                  "tactic; each attacks the first enemy still fighting)")
    enemies: list[ArmyId] = Field(default_factory=list, description="more armies against us")
    hex: str | None = None
    conditions: list[ConditionEntry] = Field(default_factory=list)
    fortification: int | None = Field(default=None, ge=0, le=LIMIT, description="the Defense of a fortification held by"
                                      " the side named in conditions' Fortifications (default: its settlement's"
                                      " Defense, 8 outside one)")
    ours_tactic: TacticName = Field(default="Standard", title="Our tactic")
    enemy_tactic: TacticName = Field(default="Standard", title="Enemy's tactic")
    ambush: Literal["none", "ours", "enemy"] = "none"
    rounds: list[RoundEntry] = Field(default_factory=list, title="Melee phases",
                                     description="orders per Melee phase (the last repeats)")
    max_rounds: int = Field(default=10, ge=1, le=50, description="Melee phases fought at most (then it breaks off)")
    learn_tactic: TacticName | None = Field(default=None, description="a victory's Loyalty check teaches this")
    learn_boon: BoonName | None = Field(default=None, description="a victory's second Loyalty check teaches this")
    ours_use: list[OurUse] = Field(default_factory=list, title="Our special abilities from the start",
                                   description="those the lead army is ordered to use from its first phase")
    enemy_use: list[EnemyUse] = Field(default_factory=list, title="Enemy's special abilities from the start")
    terrain: str | None = Field(default=None, description="the battlefield's terrain (default: the hex's), for "
                                "Mobility")
    evil: list[ArmyId] = Field(default_factory=list, description="armies the GM rules evil (Smite Evil)")
    evil_outsiders: list[ArmyId] = Field(default_factory=list, description="armies of evil outsiders (Smite Evil +4)")
    animals: list[ArmyId] = Field(default_factory=list, description="armies of animals (Unnatural Aura; an army "
                                  "with Mounts counts anyway)")
    overcome: list[ArmyId] = Field(default_factory=list, description="armies able to overcome a Significant Defense, "
                                   "Damage Reduction or Resistance (the GM's ruling)")


# ------------------------------------------------------------------ founding (turn 0)


class LineageChoices(Choices):
    """Where a daughter or union kingdom came from (opt §2.11)."""

    kind: Literal["split_from", "merged_from"] = "split_from"
    campaigns: list[str] = Field(default_factory=list, description="the other campaigns' ids (the parent, or the "
                                 "union's members): campaigns outside this one, named by the GM")
    unrest_added: int = Field(default=0, ge=0, le=LIMIT, title="Unrest brought along")


class FoundingChoices(Choices):
    name: str = Field(default="New Kingdom", title="Kingdom name")
    alignment: Alignment = "N"
    hexes: list[HexEntry] = Field(default_factory=list, title="Map hexes")
    government: GovernmentId | None = Field(default=None, description="the form of government, with the Government "
                                                                      "forms rule "
                                            "(default feudal monarchy)")
    starting_renown: Renown | None = Field(default=None, description="with the Fame and Infamy rule, the Ruler "
                                                                     "starts with Fame 1 "
                                           "or Infamy 1 (default Fame)")
    foreign_kingdoms: list[ForeignKingdomEntry] = Field(default_factory=list, description="diplomatic, trade or "
                                                        "vassalage edicts: the known foreign kingdoms")
    third_party: list[ThirdPartyEntry] = Field(default_factory=list, title=THIRD_PARTY, description=THIRD_PARTY_HELP)
    lineage: LineageChoices | None = Field(default=None, description="Independence unification rule: born of a split "
                                           "or a union")


# ------------------------------------------------------------------ GM step (start of each month)


class AdjustmentEntry(Choices):
    field: Literal["treasury", "unrest"]
    delta: Amount = 0
    reason: str = ""


class EndAnarchyChoices(Choices):
    reason: str = "order restored"
    unrest_after: int = Field(default=19, ge=0, le=LIMIT, title="Unrest after anarchy")


class AttitudeEntry(Choices):
    kingdom: ForeignId
    attitude: Attitude


class RenownChoices(Choices):
    fame: Amount = 0
    infamy: Amount = 0
    source: str = Field("", title="Where it came from", description="in your words, kept in the log (e.g. Visiting"
                                                                    " Celebrity); left empty, the GM's ruling")
    """Empty by default, recorded as ``gm`` (``decide``): the form's box held "gm", a key that read as code."""


class KingdomModifierEntry(Choices):
    modifier: SettlementModifier
    delta: Amount


class BaseDangerEntry(Choices):
    city: CityRef
    base_danger: Amount


class DestroyLotsEntry(Choices):
    district: DistrictId
    lots: list[Annotated[int, Field(ge=0, le=35)]] = Field(default_factory=list, description="lots 0..35 "
                                                              "(row × 6 + column)")


class RelationActionEntry(Choices):
    action: Literal["close_embassy", "withdraw_treaty", "attack", "ally_stationed", "aid_refused", "foreign_embassy"]
    target: ForeignId
    aid_requested: bool = Field(default=False, description="Ally stationed rule: the ally's army was asked for (no "
                                "Loyalty check)")
    gm_applies: bool = Field(default=True, description="Aid refused rule: the GM applies the ally's Infamy +1d4")
    city: CityRef | None = Field(default=None, description="Foreign embassy rule: the settlement of ours they build in "
                                 "(default: the capital)")
    building: Literal["Mansion", "Noble Villa"] = Field(default="Mansion", description="Foreign embassy rule: their "
                                                        "embassy building")


class GmChoices(Choices):
    map: list[HexEntry] = Field(default_factory=list, title="Map new hexes")
    explore: list[HexId] = Field(default_factory=list, title="Hexes explored")
    clear: list[HexId] = Field(default_factory=list, title="Hexes cleared")
    adjustments: list[AdjustmentEntry] = Field(default_factory=list, title="GM adjustments")
    end_anarchy: EndAnarchyChoices | None = Field(default=None, description="end the anarchy (base §4.7)")
    alignment: Alignment | None = Field(default=None, description="a change of the kingdom's alignment")
    foreign_kingdoms: list[ForeignKingdomEntry] = Field(default_factory=list, title="Register foreign kingdoms")
    third_party: list[ThirdPartyEntry] = Field(default_factory=list, title=THIRD_PARTY, description=THIRD_PARTY_HELP)
    attitudes: list[AttitudeEntry] = Field(default_factory=list, title="Attitude changes")
    government: GovernmentId | None = Field(default=None, description="a new form of government, the GM's ruling "
                                                                      "(the Government forms rule)")
    renown: RenownChoices | None = Field(default=None, description="a change of Fame or Infamy (the Fame and "
                                                                   "Infamy rule)")
    kingdom_modifier_adjustments: list[KingdomModifierEntry] = Field(
        default_factory=list, description="the Expanded settlement modifiers rule")
    base_danger: list[BaseDangerEntry] = Field(default_factory=list, description="a settlement's base danger (the "
                                                                                 "Settlement sizes rule)")
    destroy_lots: list[DestroyLotsEntry] = Field(default_factory=list, title="Lots destroyed")
    relation_actions: list[RelationActionEntry] = Field(default_factory=list, description="diplomatic actions (the "
                                                                                          "Diplomatic edicts rule)")
    enemy_armies: list[ArmyEntry] = Field(default_factory=list, description="the GM's armies (a foreign kingdom's, "
                                          "monsters, bandits) put on the map")
    union_stability_roll: bool = Field(default=False, description="Independence unification rule: the GM's 1d4 − 2 "
                                       "Stability in the 6 months after a union")


# ------------------------------------------------------------------ upkeep


class SlotItemEntry(Choices):
    """An item rolled for an empty magic item slot (base §4.2 U3); a building's entries fill its slots in order."""

    building: SlotBuilding
    item: str | None = Field(default=None, description="the item (default: an unnamed item of the slot's size)")
    price_gp: int | None = Field(default=None, ge=0, le=GP_LIMIT)


class UpkeepChoices(Choices):
    slot_items: list[SlotItemEntry] = Field(default_factory=list, title="Items for empty magic slots")
    lose_hex: ClaimedHex | None = Field(default=None, description="the hex lost if Unrest reaches 11 (default: "
                                        "the last claimed hex without a city)")
    enforcer_reduces: bool = Field(default=False, description="UC Royal Enforcer: lower Unrest by 1 (then a "
                                   "Loyalty check; failure: Loyalty −1)")
    live_off_the_land: list[OurArmy] = Field(default_factory=list, description="armies whose commander's Live off "
                                             "the Land boon halves their Consumption (and speed) this month")


# ------------------------------------------------------------------ improvement


class LeaderEntry(Choices):
    role: RoleId
    name: str = ""
    ability: Ability | None = Field(default=None, description="the ability used (default: the role's first)")
    modifier: Amount = 0
    attributes: list[AttributeName] = Field(default_factory=list, description="Ruler: one per 20/80 Size; "
                                            "Spymaster: one; other roles: their own")
    present: bool = True
    co_ruler: bool = Field(default=False, description="a second (married) Ruler")
    skill_ranks: int = Field(default=0, ge=0, le=LIMIT, description="the Leadership skills rule")
    leadership_feat: bool = Field(default=False, description="the Leadership skills rule")


class UnassignEntry(Choices):
    role: RoleId
    name: LeaderName
    reason: str = ""


class PresenceEntry(Choices):
    role: RoleId
    name: LeaderName
    present: bool = True
    days: int | None = Field(default=None, ge=0, le=31, description="days of duty this month (present from "
                             "leader_min_days_present); overrides present")


class SkillRanksEntry(Choices):
    role: RoleId
    name: LeaderName
    ranks: Count = 0
    leadership_feat: bool = False


class Borders(Choices):
    N: BorderKind = "LAND"
    E: BorderKind = "LAND"
    S: BorderKind = "LAND"
    W: BorderKind = "LAND"


class DistrictEntry(Choices):
    hex: DistrictHex
    city: str | None = Field(default=None, description="the name of a new city (a district in a hex with a city "
                             "adds to it)")
    borders: Borders | None = Field(default=None, description="water borders (for Piers, Waterfronts)")


class Portfolio(Choices):
    """holy_sites portfolio bonuses (at most 1/4/8 in all for a Shrine/Temple/Cathedral)."""

    ECONOMY: Amount | None = None
    LOYALTY: Amount | None = None
    STABILITY: Amount | None = None


BonusMode = Literal["standard", "alignment", "portfolio"]


class BuildingEntry(Choices):
    type: BuildingType
    city: CityRef | None = Field(default=None, description="default: the capital")
    district: DistrictId | None = Field(default=None, description="default: the first READY district with room")
    lots: list[Annotated[int, Field(ge=0, le=35)]] | None = Field(default=None, description="default: the first "
                                                                  "free lots that fit")
    border: Side | None = Field(default=None, description="for a wall: the district border (default N)")
    deity: str | None = None
    deity_alignment: Alignment | None = Field(default=None, description="Temple, Cathedral; with holy_sites "
                                              "it dedicates the building at once")
    magical_assistance: bool = Field(default=False, description="2 BP off")
    supports: BuildingId | None = Field(default=None, description="Abandoned buildings rule: the dependent a new house "
                                        "supports")
    bonus_mode: BonusMode = Field(default="alignment", description="holy_sites dedication")
    shrine_attribute: AttributeName | None = None
    portfolio: Portfolio | None = None
    upgrade: BuildingId | None = Field(default=None, description="upgrade this building to ``type`` (UC Upgrade "
                                       "To/From: pay the difference; a dedication carries over)")


class DedicationEntry(Choices):
    building: BuildingId
    deity: str = "unnamed deity"
    deity_alignment: Alignment = "N"
    bonus_mode: BonusMode = "alignment"
    shrine_attribute: AttributeName | None = None
    portfolio: Portfolio | None = None


class ImprovementEntry(Choices):
    hex: ImprovementHex
    kind: ImprovementType


# ---- special edicts (opt §1.4): one per month, after the standard edicts


class EmbassyBuilding(Choices):
    settlement: str = Field(default="capital", description="the foreign settlement (outside this kingdom)")
    type: BuildingType = "Mansion"


class OpposedEntry(Choices):
    skill: str = "Diplomacy"
    our_modifier: Amount
    their_skill: str | None = None
    their_modifier: Amount


class DiplomaticEdict(Choices):
    kind: Literal["diplomatic"]
    purpose: Literal["embassy", "threat", "treaty", "alliance", "rebalance", "renegotiate", "independence"] = "embassy"
    target: ForeignId
    envoy_modifier: Amount = 0
    bribe_bp: Amount = 0
    embassy_building: EmbassyBuilding | None = None
    opposed: list[OpposedEntry] = Field(default_factory=list, description="the opposed checks (5 for a treaty, "
                                        "3 for an alliance); ties are rerolled")
    choose: Literal["balanced", "unbalanced"] = Field(default="balanced", description="our choice if we win")
    partner_choice: Literal["balanced", "unbalanced"] = "unbalanced"
    x_partner: Amount | None = Field(default=None, description="the partner's Economy/Stability if known to the GM")
    armies: int = Field(default=0, ge=0, le=LIMIT, description="threat: armies shown")
    skill: str = "Diplomacy"


class PathHex(Choices):
    """One hex of a trade path (opt §2.7.1)."""

    terrain: Literal["plains", "desert", "forest", "hills", "marsh", "mountains", "jungle", "cavern", "water",
                     "coastline"] = "plains"
    road: bool = False
    highway: bool = False
    river: Literal["upstream", "downstream"] | None = None
    coastline: bool = False
    water: bool = False


class TradeEdict(Choices):
    kind: Literal["trade"]
    type: Literal["food", "goods", "luxuries", "raw_materials"] = "goods"
    partner: str = Field(default="", description="the partner kingdom or campaign id")
    origin: CityRef | None = Field(default=None, description="default: the capital")
    destination: str = Field(default="", description="the partner's settlement")
    path: list[PathHex] = Field(default_factory=list, description="the hexes from the origin to the destination")
    invested_bp: Amount = 5


class ExplorationEdict(Choices):
    kind: Literal["exploration"]
    months: int = Field(default=1, ge=1, le=LIMIT)
    route: list[str] = Field(default_factory=list, description="hex ids of the route (on or beyond the map)")


class Viceroy(Choices):
    name: str = Field(min_length=1)
    ability: str = "INT"
    modifier: Amount = 0


class VassalageEdict(Choices):
    kind: Literal["vassalage"]
    vassal: str = Field(default="", description="the vassal's campaign or kingdom id")
    mode: Literal["new_colony", "subjugation"] = "new_colony"
    viceroy: Viceroy | None = None
    grant_bp: Amount | None = Field(default=None, description="1..floor(treasury / 4) BP (vassal_grant_rule)")
    ceded_hexes: list[ClaimedHex] = Field(default_factory=list)
    initial_level: Literal["embassy", "treaty", "alliance"] | None = None
    balanced: bool = True
    x_partner: Amount | None = Field(default=None, description="new colony treaty: the colony's Economy")
    x_partner_stability: Amount | None = Field(default=None, description="new colony alliance: the colony's Stability")
    size: int = Field(default=0, ge=0, le=LIMIT, description="subjugation: the vassal's Size")


SpecialEdict = Annotated[DiplomaticEdict | TradeEdict | ExplorationEdict | VassalageEdict,
                         Field(discriminator="kind")]


class ImprovementChoices(Choices):
    leaders: list[LeaderEntry] = Field(default_factory=list, title="Assign leaders")
    unassign: list[UnassignEntry] = Field(default_factory=list, title="Remove leaders")
    presence: list[PresenceEntry] = Field(default_factory=list, title="Presence this month")
    skill_ranks: list[SkillRanksEntry] = Field(default_factory=list, description="the Leadership skills rule")
    acting_ruler: Literal["CONSORT", "HEIR", "none"] | None = Field(
        default=None, description="UC: the Consort or Heir acts as the Ruler while the Ruler is unavailable (none: "
        "no longer)")
    claim: list[ClaimHex] = Field(default_factory=list, title="Claim hexes")
    abandon: list[AbandonHex] = Field(default_factory=list, title="Abandon hexes")
    districts: list[DistrictEntry] = Field(default_factory=list, title="Prepare districts")
    buildings: list[BuildingEntry] = Field(default_factory=list, title="Construct")
    demolish: list[BuildingId] = Field(default_factory=list)
    dedications: list[DedicationEntry] = Field(default_factory=list, description="the Holy sites rule")
    roads: list[RoadHex] = Field(default_factory=list)
    improvements: list[ImprovementEntry] = Field(default_factory=list, title="Hex improvements")
    promotion: Annotated[str, Pick("promotion_levels", what="a promotion edict")] | None = Field(
        default=None, title="Promotion edict", description="default: unchanged")
    taxation: Annotated[str, Pick("taxation_levels", what="a taxation edict")] | None = Field(
        default=None, title="Taxation edict", description="default: unchanged")
    festivals: Annotated[str, Pick("festival_levels", what="a festival edict")] | None = Field(
        default=None, title="Festivals per year", description="default: unchanged")
    armies: list[ArmyEntry] = Field(default_factory=list, title="Raise armies", description="Edict step 6: each "
                                    "in place of a new settlement (UC Improvement Edicts note 1)")
    army_actions: list[ArmyActionEntry] = Field(default_factory=list, title="Army orders")
    special_edict: SpecialEdict | None = Field(default=None, description="diplomatic, exploration, trade or "
                                               "vassalage edicts: one special edict, by its kind")
    milestone_choice: Renown | None = Field(default=None, description="Fame infamy rule: Size milestone (default Fame)")
    abandon_dependents: bool = Field(default=True, description="Abandoned buildings rule: dependents of a demolished "
                                     "house shut down (GM)")


# ------------------------------------------------------------------ income


class SaleEntry(Choices):
    item: str = "item"
    value_gp: int = Field(default=0, ge=0, le=GP_LIMIT)
    category: Literal["minor", "medium", "major"] = "minor"
    building: SlotBuilding | None = Field(default=None, description="sold from this building's slot (else a PC's)")
    slot: int | None = Field(default=None, ge=0, le=LIMIT)
    city: CityRef | None = Field(default=None, description="item_sale_mode uc: where it is sold")


class PurchaseEntry(Choices):
    building: SlotBuilding
    slot: Count = 0


class IncomeChoices(Choices):
    deposit_gp: int = Field(default=0, ge=0, le=GP_LIMIT, title="Deposit (gp)")
    withdrawals: list[Count] = Field(default_factory=list, title="Withdrawals (BP each)")
    sales: list[SaleEntry] = Field(default_factory=list, title="Item sales")
    purchases: list[PurchaseEntry] = Field(default_factory=list, title="PCs buy slot items")


# ------------------------------------------------------------------ event


class EffectEntry(Choices):
    kind: EffectKind
    attribute: AttributeName | None = None
    value: Amount = 0
    turns: int | None = Field(default=None, ge=1, le=LIMIT,
                              description="months an ATTRIBUTE effect lasts (default: for good)")


class SearchEntry(Choices):
    """A day's search of a hex for hidden features (opt §2.6 rule 3): Knowledge (geography) or Survival."""

    hex: str = Field(description="a hex of the expedition's route")
    day: int = Field(default=1, ge=1, le=LIMIT, description="the day in the hex (obvious features are noted on day 1)")
    skill: Literal["Knowledge (geography)", "Survival"] = "Survival"
    modifier: Amount = Field(default=0, description="the explorers' skill modifier")
    dc: int = Field(default=15, ge=15, le=30, description="the GM's DC for the hidden feature: 15 (easy, known in "
                    "local lore) to 30 (well hidden)")
    feature: str = Field(default="LANDMARK", description="what is there if found: LAIR, LANDMARK, RESOURCE (added "
                         "to the hex's map features) or the GM's words")


class ExpeditionReport(Choices):
    expedition: ExpeditionId
    cr: float | None = Field(default=None, ge=0, le=LIMIT, description="an encounter's CR")
    stealth_modifier: Amount | None = None
    discoveries: list[str] = Field(default_factory=list, description="what the explorers found (the GM's words)")
    searches: list[SearchEntry] = Field(default_factory=list, description="skill checks for hidden features")


class DaughterEntry(Choices):
    campaign: str = Field(description="the daughter's campaign id")
    hexes: list[ClaimedHex] = Field(default_factory=list)
    treasury_bp: Amount


class IndependenceChoices(Choices):
    daughters: list[DaughterEntry] = Field(default_factory=list)
    non_structural_unrest: Amount = 0
    kept_by: str | None = Field(default=None, description="the daughter campaign that keeps this log")


class MemberUnrest(Choices):
    campaign: str
    unrest: Amount


class UnionChoices(Choices):
    members: list[str] = Field(default_factory=list, description="every member's campaign id, this one among them")
    new_campaign: str = ""
    non_structural_unrest: list[MemberUnrest] = Field(default_factory=list, description="one per member")


class WarChoices(Choices):
    battles: list[BattleEntry] = Field(default_factory=list, title="Battles")


class EventChoices(Choices):
    event: Annotated[str, Pick("event_choices", what="roll, none or a kingdom event", depends=("event_table",))] = \
        Field(default="roll", description="roll, none, or the GM's choice of event (it happens if the month's "
                                          "chance comes up)")
    event_table: Annotated[Literal["rrr", "uc"] | None, Pick("event_tables", what="a table of kingdom events")] = \
        Field(default=None, description="the table of kingdom events this month; empty: the campaign's own (its "
                                        "option Event table)")
    event_city: CityRef | None = Field(default=None, description="Ultimate Campaign events: where a settlement "
                                       "event happens (UC: a settlement chosen at random; empty: the capital)")
    party_resolves: list[str] = Field(default_factory=list, description="Ultimate Campaign events: the events the "
                                      "party deals with in person (a monster slain, a demand met): they succeed "
                                      "without a check")
    declined: list[str] = Field(default_factory=list, description="Ultimate Campaign events: the events the leaders "
                                "let be (an invitation declined, a demand neither met nor suppressed)")
    hire_adventurers: Annotated[Literal[0, 2, 5, 10], Pick("adventurers_hired", what="a bonus bought")] = Field(
        default=0, description="Ultimate Campaign events: a bonus on one event check, bought (UC Hiring "
                               "Adventurers)")
    effects: list[EffectEntry] = Field(default_factory=list)
    expeditions: list[ExpeditionReport] = Field(default_factory=list, description="the Exploration edicts rule")
    independence: IndependenceChoices | None = Field(default=None, description="the Independence unification rule")
    union: UnionChoices | None = Field(default=None, description="the Independence unification rule")


_FOREIGN = ("diplomatic_edicts", "trade_edicts", "vassalage_edicts")
MODULE_FIELDS: dict[str, dict[str, tuple[str, ...]]] = {
    "founding": {"government": ("government_forms",), "starting_renown": ("fame_infamy",),
                 "foreign_kingdoms": _FOREIGN, "third_party": _FOREIGN, "lineage": ("independence_unification",)},
    "gm": {"foreign_kingdoms": _FOREIGN, "third_party": _FOREIGN, "attitudes": ("diplomatic_edicts",),
           "government": ("government_forms",), "renown": ("fame_infamy",),
           "kingdom_modifier_adjustments": ("expanded_settlement_modifiers",), "base_danger": ("settlement_sizes",),
           "relation_actions": ("diplomatic_edicts",), "union_stability_roll": ("independence_unification",)},
    "improvement": {"skill_ranks": ("leadership_skills",), "special_edict": (*_FOREIGN, "exploration_edicts"),
                    "dedications": ("holy_sites",), "milestone_choice": ("fame_infamy",),
                    "abandon_dependents": ("abandoned_buildings",)},
    "event": {"expeditions": ("exploration_edicts",), "independence": ("independence_unification",),
              "union": ("independence_unification",)},
}
"""The choices of each step that only an optional module uses (any of the modules listed): forms leave them
out while those modules are off; the step refuses them then (with the rule)."""
