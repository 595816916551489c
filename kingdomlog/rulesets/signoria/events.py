"""Signoria event payloads (§11.2), namespaced ``signoria.*``.

Dice faces are always recorded; evolve applies what the events say and never rolls.
Each event's visibility is set by ``decide`` from §11.3.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from kingdomlog.core.events import EventModel, register_event

Stake = Literal["elementary", "low", "high"]
Resource = Literal["power", "piety", "wealth", "army"]


@register_event
class GameCreated(EventModel):
    """The game and its configuration (every §9 key), initiative order (public)."""

    type = "signoria.game_created"
    config: dict[str, Any]
    initiative: tuple[str, ...]
    resume_turn: int = 0


@register_event
class ProvinceDefined(EventModel):
    type = "signoria.province_defined"
    province: str
    name: str
    income: int
    owner: str


@register_event
class FactionCreated(EventModel):
    """Faction, its traits and its leader's name: public (§1.4)."""

    type = "signoria.faction_created"
    faction: str
    name: str
    kind: Literal["player", "neutral"]
    traits: tuple[str, ...] = ()
    keys: tuple[str, ...] = ()
    leader_name: str = ""
    may_name_heir: bool = True


@register_event
class ResourcesInitialized(EventModel):
    """Starting resources: owner only; a neutral's are published (§11.3)."""

    type = "signoria.resources_initialized"
    faction: str
    power: int
    piety: int
    wealth: int
    army: int


@register_event
class CharacterCreated(EventModel):
    """A leader or statesman; a random trait carries its d6 faces (§8.5)."""

    type = "signoria.character_created"
    character: str
    faction: str
    name: str
    role: Literal["leader", "statesman"]
    traits: tuple[str, ...]
    trait_source: Literal["chosen", "random", "inherited", "setting"]
    trait_dice: tuple[int, ...] = ()
    is_heir: bool = False
    loyalty: int | None = None
    """Secret (§2.4): left out of events the owner sees; None = ``statesman_loyalty_default``."""


@register_event
class IntelRecorded(EventModel):
    """What ``observer`` learned about ``subject``, as of a turn and phase (observer only)."""

    type = "signoria.intel_recorded"
    observer: str
    subject: str
    fields: dict[str, Any]
    turn: int
    phase: str
    source: Literal["scouts", "spy", "battle", "notice", "public", "ruling"]
    believed: bool = False


@register_event
class TurnOpened(EventModel):
    type = "signoria.turn_opened"
    turn: int
    season: str
    year_label: str


@register_event
class IncomeCredited(EventModel):
    """Income lines (§4.4): provinces, trade, season."""

    type = "signoria.income_credited"
    faction: str
    lines: tuple[dict[str, Any], ...]
    total: int


@register_event
class GlobalEventAnnounced(EventModel):
    type = "signoria.global_event"
    key: str
    title: str
    effects: tuple[dict[str, Any], ...] = ()


@register_event
class DilemmaPresented(EventModel):
    """A dilemma with its options; each option's effects are the GM's ruling (G-29)."""

    type = "signoria.dilemma_presented"
    faction: str
    dilemma: str
    text: str
    options: tuple[dict[str, Any], ...]


@register_event
class CandidateOffered(EventModel):
    """A statesman candidate (§4.6); the host never learns whether he is planted."""

    type = "signoria.candidate_offered"
    faction: str
    candidate: str
    name: str
    trait: str
    trait_dice: tuple[int, ...] = ()
    cost: int = 1


@register_event
class CandidateAlias(EventModel):
    """A planted agent is offered to his host under a candidate id (GM and master only, §6.2)."""

    type = "signoria.candidate_alias"
    candidate: str
    agent: str
    host: str


@register_event
class CommandRollMade(EventModel):
    """One attempt of the command roll (§3.1); ``paid_with`` for a bought reroll.

    What a recorded attempt gives is part of this event's format (``COMMAND_ROLL_V1``), not of
    today's rules: version 1 records the stake and the two faces, and an attempt of a stake
    succeeds at that stake's total and gives that row's slots. ``evolve`` reads it from there;
    ``audit`` compares it with the rules (``rules.command_slots``). A rules change that gives
    other slots records them in a new version of this event.
    """

    type = "signoria.command_roll"
    faction: str
    attempt: int
    stake: Literal["low", "high"]
    dice: tuple[int, int]
    paid_with: Literal["power", "wealth"] | None = None


COMMAND_ROLL_V1: dict[str, tuple[int, tuple[int, int], tuple[int, int]]] = {
    "low": (5, (1, 2), (0, 3)),
    "high": (8, (2, 2), (0, 2)),
}
"""What a version-1 ``CommandRollMade`` means: stake -> (total needed, (special, ordinary) slots on a
success, (special, ordinary) slots on a failure), as §3.1 stood when the event was defined."""


def command_roll_outcome(e: CommandRollMade) -> tuple[bool, int, int]:
    """(success, special, ordinary) of a recorded command roll attempt, as its format defines them.

    >>> command_roll_outcome(CommandRollMade(faction="f", attempt=1, stake="high", dice=(3, 4)))
    (False, 0, 2)
    """
    need, won, lost = COMMAND_ROLL_V1[e.stake]
    ok = sum(e.dice) >= need
    sp, od = won if ok else lost
    return ok, sp, od


@register_event
class OrdersSubmitted(EventModel):
    """Sealed orders (§4.3), visible to the faction and the GM only."""

    type = "signoria.orders_submitted"
    faction: str
    orders: tuple[dict[str, Any], ...]
    dilemmas: dict[str, str] = Field(default_factory=dict)
    standing: dict[str, Any] = Field(default_factory=dict)


@register_event
class OrdersRevealed(EventModel):
    """With ``reveal_orders_after_turn`` the GM publishes every faction's orders at turn close (§11.3)."""

    type = "signoria.orders_revealed"
    turn: int
    faction: str
    orders: tuple[dict[str, Any], ...]


@register_event
class OrdersLocked(EventModel):
    type = "signoria.orders_locked"
    turn: int
    missing: tuple[str, ...] = ()


@register_event
class PhaseStarted(EventModel):
    type = "signoria.phase_started"
    turn: int
    phase: str


@register_event
class ActionResolved(EventModel):
    """An action's whole roll record (§3.5): threshold, allowance, every 2d6, the outcome."""

    type = "signoria.action_resolved"
    faction: str
    order: str
    action: str
    stake: Stake
    threshold: int | None = None
    modifier: int = 0
    rerolls_allowed: int = 0
    rolls: tuple[tuple[int, int], ...] = ()
    outcome: str
    target: str | None = None
    detail: dict[str, Any] = Field(default_factory=dict)


@register_event
class ResourceAdjusted(EventModel):
    """A change to one resource of one faction (owner only; §11.3). ``shortfall`` per §4.8."""

    type = "signoria.resource_adjusted"
    faction: str
    resource: Resource
    delta: int
    reason: str
    shortfall: int = 0


@register_event
class FactionNotified(EventModel):
    """A private notice; may be a deliberate lie (double agent, §6.4)."""

    type = "signoria.faction_notified"
    faction: str
    kind: str
    text: str
    data: dict[str, Any] = Field(default_factory=dict)


@register_event
class GMRulingRecorded(EventModel):
    """A GM ruling with typed effects (§11.1); visibility set by the ruling."""

    type = "signoria.gm_ruling"
    gap: str
    text: str
    effects: tuple[dict[str, Any], ...] = ()


@register_event
class CharacterStatusChanged(EventModel):
    """Wounded, killed, departed or back to active."""

    type = "signoria.character_status"
    character: str
    condition: Literal["active", "wounded", "dead", "departed"]
    cause: str


@register_event
class LeaderSucceeded(EventModel):
    """Succession (§6.6); a new random trait carries its faces."""

    type = "signoria.leader_succeeded"
    faction: str
    character: str
    name: str
    traits: tuple[str, ...]
    trait_dice: tuple[int, ...] = ()
    from_statesman: bool = False


@register_event
class StatesmanHired(EventModel):
    type = "signoria.statesman_hired"
    faction: str
    candidate: str
    name: str
    trait: str
    cost: int


@register_event
class StatesmanDismissed(EventModel):
    type = "signoria.statesman_dismissed"
    faction: str
    character: str
    reason: str


@register_event
class StatesmanDefected(EventModel):
    type = "signoria.statesman_defected"
    character: str
    from_faction: str
    to_faction: str
    kind: str


@register_event
class SpyPlanted(EventModel):
    """An infiltration succeeded: the agent leaves his master and is offered to the host (§6.2)."""

    type = "signoria.spy_planted"
    agent: str
    master: str
    host: str


@register_event
class SpyPlaced(EventModel):
    """The host hired the planted agent: a spy is in place (GM and master only)."""

    type = "signoria.spy_placed"
    agent: str
    master: str
    host: str
    double: bool = False


@register_event
class SpyExposed(EventModel):
    type = "signoria.spy_exposed"
    agent: str
    master: str
    host: str


@register_event
class DoubleAgentChosen(EventModel):
    """The target's owner turns a failed bribe into a double agent (§6.4; owner only)."""

    type = "signoria.double_agent_chosen"
    character: str
    owner: str
    briber: str
    mode: Literal["believed_spy", "planted_defector"]


@register_event
class TreatyConcluded(EventModel):
    type = "signoria.treaty_concluded"
    treaty: str
    kind: Literal["non_aggression", "right_of_passage", "trade", "military_aid", "military_alliance", "player_treaty"]
    parties: tuple[str, ...]
    neutral: str | None = None
    stake: Stake = "low"
    aid_units: int = 0
    expires_turn: int | None = None


@register_event
class TreatyEnded(EventModel):
    type = "signoria.treaty_ended"
    treaty: str
    reason: str


@register_event
class StandingChanged(EventModel):
    type = "signoria.standing_changed"
    neutral: str
    faction: str
    delta: int
    cause: str


@register_event
class LegitimacyLetterSent(EventModel):
    type = "signoria.legitimacy_letter"
    neutral: str
    faction: str


@register_event
class NeutralReaction(EventModel):
    """A neutral's key fires (§7.6-7.7): call for help, aid, alliance, defence posture."""

    type = "signoria.neutral_reaction"
    neutral: str
    key: str
    reaction: str
    beneficiary: str | None = None


@register_event
class FelmonteSold(EventModel):
    type = "signoria.felmonte_sold"
    winner: str
    amount: int


@register_event
class CampaignLaunched(EventModel):
    """A war order sets off (owner only until the battle, §11.3)."""

    type = "signoria.campaign_launched"
    campaign: str
    faction: str
    order: str
    target: str
    units: int
    characters: tuple[str, ...] = ()
    commander: str | None = None
    route: Literal["direct", "passage", "transit"] = "direct"
    tactic: str = "hold"
    conditional: str | None = None
    reserve: int = 0


@register_event
class CampaignArrived(EventModel):
    """Public: whose army arrived where (§11.3)."""

    type = "signoria.campaign_arrived"
    campaign: str
    faction: str
    province: str
    route: str = "direct"


@register_event
class DefenderResponded(EventModel):
    type = "signoria.defender_responded"
    campaign: str
    defender: str
    response: Literal["battle", "defence"]
    tactic: str | None = None
    characters: tuple[str, ...] = ()
    commander: str | None = None
    reserve: int = 0


@register_event
class BattleOpened(EventModel):
    """Forces, tactics, thresholds of both sides (both sides only)."""

    type = "signoria.battle_opened"
    battle: str
    kind: Literal["field", "storm", "sally"]
    province: str
    attacker: str
    defender: str
    forces: dict[str, dict[str, Any]]
    season: str


@register_event
class BattleRound(EventModel):
    """One round (§5.8): declarations, returns, every die per group, conversions, removals."""

    type = "signoria.battle_round"
    battle: str
    round: int
    declarations: tuple[dict[str, Any], ...] = ()
    sides: dict[str, dict[str, Any]]


@register_event
class BattleEnded(EventModel):
    type = "signoria.battle_ended"
    battle: str
    province: str
    attacker: str
    defender: str
    winner: str
    reason: str
    killed: dict[str, int]
    contingent_killed: dict[str, int] = Field(default_factory=dict)
    routed_at_end: dict[str, int] = Field(default_factory=dict)


@register_event
class BattleReported(EventModel):
    """The public notice of a battle: where, between whom, who won (§1.4)."""

    type = "signoria.battle_reported"
    battle: str
    province: str
    attacker: str
    defender: str
    winner: str


@register_event
class ProvinceStatusChanged(EventModel):
    """Occupation, siege start/end, capture (public)."""

    type = "signoria.province_status"
    province: str
    change: Literal["occupied", "siege_started", "siege_ended", "captured", "freed"]
    by: str | None = None
    owner: str | None = None
    campaign: str | None = None


@register_event
class CampaignReturned(EventModel):
    type = "signoria.campaign_returned"
    campaign: str
    faction: str


@register_event
class TroopsHired(EventModel):
    type = "signoria.troops_hired"
    faction: str
    units: int
    cost: int


@register_event
class HeirDesignated(EventModel):
    type = "signoria.heir_designated"
    faction: str
    character: str


@register_event
class UpkeepFlagged(EventModel):
    """A flag for the GM at upkeep (§4.7-4.8, §8.2): low resource, trait trap, council."""

    type = "signoria.upkeep_flag"
    faction: str
    kind: str
    detail: str


@register_event
class FactionEliminated(EventModel):
    type = "signoria.faction_eliminated"
    faction: str
    reason: str


@register_event
class TurnClosed(EventModel):
    type = "signoria.turn_closed"
    turn: int


@register_event
class FinalTallyRecorded(EventModel):
    """The final count (G-40); the GM's verdict text may override the formula."""

    type = "signoria.final_tally"
    scores: dict[str, dict[str, int]]
    winner: str | None
    felmonte_verdict: str = ""
    text: str = ""


@register_event
class GameEnded(EventModel):
    type = "signoria.game_ended"
    winner: str | None
    reason: str


EVENT_TYPES: tuple[type[EventModel], ...] = tuple(
    v for v in list(globals().values())
    if isinstance(v, type) and issubclass(v, EventModel) and v is not EventModel
)
