"""The aikakirjat kingdom state (spec §2): frozen models (``core.model.Frozen``), one per record.

Only stored fields live here; derived numbers (scores, modifiers, proficiency
bonus, actions per year, growth DC ...) are computed, with their breakdowns, in
``rules`` (and listed by ``Aikakirjat.explain``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from kingdomlog.core.model import Frozen
from kingdomlog.rulesets.aikakirjat.tables import ABILITIES, TRACKS, Unit


class Track(Frozen):
    """One corruption track (§2.2): raw points and the (≤ 0) modifier."""

    points: int = 0
    modifier: int = 0


class TerritoryArea(Frozen):
    """Land the kingdom owns, for living space (§2.3, §3.9). ``quality`` is 1, 0.5 or 0.25."""

    area_id: str
    unit: Unit = "hex"
    amount: float = 1
    quality: float = 1.0


class NeighbourProfile(Frozen):
    """Optional GM-maintained numbers of a neighbour (A39), used by events and war."""

    government: str | None = None
    stability_score: int = 10
    trade_bonus: int = 0
    crime_modifier: int = 0
    unrest: int = 0
    technology_level: int = 1
    militia: int = 0
    mobility: int = 0
    fire_capable: bool = False
    warfare_bonus: int = 0
    defence: int = 10
    bureaucracy_bonus: int = 0
    seafaring_bonus: int = 0
    damage_die: int = 6
    levy_die: int = 6
    naval_dice: int = 0
    armies_max: int = 1
    feats: tuple[str, ...] = ()
    """Feats of the neighbour that change war (§3.6): ``advanced_logistics`` (six war turns when it attacks,
    §4.5.1), ``fortified_land`` (−2 damage when it is the war's defender, A67), ``naval_traditions`` (advantage on
    its naval supremacy roll, §4.5.4), ``general_staff`` (one extra attack a war turn, A66). Its dice and bonuses
    (damage die, levy die, warfare bonus, defence, armies) are entered as numbers above, feats included."""


class Neighbour(Frozen):
    """A GM-controlled neighbouring kingdom (§2.10)."""

    id: str
    name: str
    diplomacy: int = 0
    population: int = 3
    status: Literal["independent", "at_war_with_players", "annexed", "split"] = "independent"
    profile: NeighbourProfile = Field(default_factory=NeighbourProfile)


class Institution(Frozen):
    """An opaque institution record (§2.12, A48)."""

    id: str
    type: str
    founded_year: int
    disabled_until_year: int | None = None
    founder: str = "pc"
    pc_id: str | None = Field(None, exclude_if=lambda v: v is None)
    """The PC who founded it (``InstitutionFounded.pc_id``); left out of the state document while None, so the
    states of logs that never named one are unchanged."""


class BuildingProject(Frozen):
    """A building project (§3.10.9)."""

    id: str
    name: str
    points_required: int
    points: int = 0
    completed: bool = False
    kind: Literal["road", "highway", "other"] = "other"
    province_id: str | None = None


class Province(Frozen):
    """A province for war movement (§2.13)."""

    id: str
    owner: str
    controller: str
    terrain: str = "temperate"
    has_road: bool = False
    has_highway: bool = False
    adjacent: tuple[str, ...] = ()
    sea_links: tuple[str, ...] = ()


class Army(Frozen):
    """An army in the field (§2.13): its owner (``players`` or a neighbour id), militia, place and war.

    Each war is fought by its own armies (A55 for several wars at once): an army engages, captures and
    suffers attrition only in the war it was assigned to (``war_id``).
    """

    army_id: str
    owner: str
    militia: int
    province_id: str
    war_id: str | None = None


class WarTechnology(Frozen):
    """The GM's ruling on the players' technology bonuses in one war year (§4.5.3, §4.5.4; A48: technology is
    not in the seed): added to their hit rolls, their defence value and their naval supremacy rolls."""

    hit: int = 0
    defence: int = 0
    naval: int = 0


class War(Frozen):
    """A war the players' kingdom is party to (§2.13)."""

    war_id: str
    attacker: str
    defender: str
    started_year: int
    war_turns_this_year: int = 0
    war_turn: int = 0
    initiative_order: tuple[str, ...] = ()
    supremacy: dict[str, str] = Field(default_factory=dict)
    armies_assigned_year: int | None = None
    technology: WarTechnology = Field(default_factory=WarTechnology)
    peace_agreed: bool = False
    provinces_demanded: tuple[str, ...] = ()


class SpecialUnit(Frozen):
    """A special unit (§2.13, A65): a damage die usable once per year."""

    id: str
    name: str
    damage_die: int = 10
    used_this_year: bool = False


class PC(Frozen):
    """A player character, as far as the kingdom needs one (§2.15)."""

    name: str
    level: int = 1
    resident: bool = True


class FeatTaken(Frozen):
    """A feat the kingdom holds, with its sub-choices (Skills feat)."""

    feat: str
    choices: dict[str, Any] = Field(default_factory=dict)


class PendingBenefit(Frozen):
    """A level benefit granted but not yet chosen (§3.2)."""

    level: int
    benefit: str


class Session(Frozen):
    """The current growth session (§4.0)."""

    session_no: int = 0
    years_total: int = 0
    years_played: int = 0


Phase = Literal["unfounded", "between_years", "start", "random_events", "growth", "actions", "war", "end"]


class KingdomState(Frozen):
    """The whole state of one aikakirjat campaign (spec §2)."""

    options: dict[str, Any] = Field(default_factory=dict)
    name: str = ""
    founded: bool = False
    fallen: bool = False
    year: int = 0
    phase: Phase = "unfounded"
    government: str = "feudalism"
    base_scores: dict[str, int] = Field(default_factory=lambda: dict.fromkeys(ABILITIES, 10))
    improvements: dict[str, int] = Field(default_factory=lambda: dict.fromkeys(ABILITIES, 0))
    tracks: dict[str, Track] = Field(default_factory=lambda: {t: Track() for t in TRACKS})
    evil_presence: dict[str, int] = Field(default_factory=dict)
    level: int = 1
    highest_level_reached: int = 1
    fame: int = 0
    population: int = 3
    population_at_year_start: int = 3
    population_rose_last_year: bool = False
    territory: tuple[TerritoryArea, ...] = ()
    militia: int = 0
    levy_dice: int = 0
    chosen_proficiencies: tuple[str, ...] = ()
    expertise: tuple[str, ...] = ()
    feats: tuple[FeatTaken, ...] = ()
    pending_benefits: tuple[PendingBenefit, ...] = ()
    god_created: bool = False
    unrest: int = 0
    neighbours: dict[str, Neighbour] = Field(default_factory=dict)
    stored_advantages: int = 0
    year_advantages: int = 0
    omen_modifier: int = 0
    year_flags: tuple[str, ...] = ()
    pending_revolution: bool = False
    revolution_rolled_this_year: bool = False
    revolution_due: str | None = None
    institutions: tuple[Institution, ...] = ()
    research_points: int = 0
    technology_level: int = 1
    mobility: int = 0
    fire_capable: bool = False
    building_projects: tuple[BuildingProject, ...] = ()
    wars: tuple[War, ...] = ()
    armies: tuple[Army, ...] = ()
    provinces: dict[str, Province] = Field(default_factory=dict)
    naval_dice: int = 0
    special_units: tuple[SpecialUnit, ...] = ()
    session: Session = Field(default_factory=Session)
    pcs: dict[str, PC] = Field(default_factory=dict)
    pc_assignments_this_year: tuple[str, ...] = ()
    actions_used: int = 0
    actions_forfeited: bool = False
    war_declared_this_year: bool = False
