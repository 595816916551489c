"""Signoria state (§2): factions, characters, provinces, treaties, intel, the turn's orders.

Everything is a frozen pydantic model; ``evolve`` returns copies. Resource fields are
``int | None`` because a redacted view (§11.4) shows a rival's values as unknown.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

RESOURCES = ("power", "piety", "wealth", "army")


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Character(_M):
    """A leader or statesman (§2.4). ``loyalty``, ``true_master`` and ``agent_kind`` are secret."""

    id: str
    name: str
    employer: str
    role: Literal["leader", "statesman"]
    traits: tuple[str, ...]
    trait_source: Literal["chosen", "random", "inherited", "setting"] = "random"
    is_heir: bool = False
    loyalty: int | None = 2
    condition: Literal["active", "wounded", "dead", "departed"] = "active"
    true_master: str | None = None
    agent_kind: Literal["none", "spy", "double_agent"] | None = "none"
    activity: str | None = None
    hired_turn: int = 0


class Faction(_M):
    """A player or neutral faction (§2.3, §2.5)."""

    id: str
    name: str
    kind: Literal["player", "neutral"]
    traits: tuple[str, ...] = ()
    keys: tuple[str, ...] = ()
    power: int | None = None
    piety: int | None = None
    wealth: int | None = None
    army: int | None = None
    leader: str | None = None
    leader_name: str = ""
    statesmen: tuple[str, ...] = ()
    may_name_heir: bool = True
    standing: dict[str, int] = Field(default_factory=dict)
    status: Literal["active", "eliminated"] = "active"
    captured_by: str | None = None
    legitimacy_letter_to: str | None = None
    letters: tuple[str, ...] = ()
    besieged: bool = False
    known: bool = True
    """False in a redacted view: the resources shown are the viewer's last learned values (or None)."""
    as_of: dict[str, int] = Field(default_factory=dict)
    """In a redacted view: resource -> the turn the viewer learned the value shown."""


class Province(_M):
    """A province (§2.2); occupier/siege are public (§1.4)."""

    id: str
    name: str
    owner: str
    income: int
    occupier: str | None = None
    siege_since: int | None = None


class Treaty(_M):
    """A treaty record (§2.6)."""

    id: str
    type: Literal["non_aggression", "right_of_passage", "trade", "military_aid", "military_alliance", "player_treaty"]
    parties: tuple[str, ...]
    neutral: str | None = None
    stake: Literal["elementary", "low", "high"] = "low"
    concluded_turn: int = 0
    active: bool = True
    ended_turn: int | None = None
    end_reason: str | None = None
    aid_units: int = 0
    expires_turn: int | None = None


class IntelRecord(_M):
    """A dated snapshot one faction holds about another (§2.6)."""

    value: Any
    turn: int
    phase: str
    source: Literal["scouts", "spy", "battle", "notice", "public", "ruling"]
    believed: bool = False


class Notice(_M):
    """A private notice to a faction (§11.3 FactionNotified); may be a deliberate lie."""

    turn: int
    kind: str
    text: str
    data: dict[str, Any] = Field(default_factory=dict)


class CommandRoll(_M):
    """This turn's command roll (§3.1) and the slots it gave."""

    stake: Literal["low", "high"]
    attempts: tuple[tuple[int, int], ...] = ()
    paid: tuple[str, ...] = ()
    success: bool = False
    special: int = 0
    ordinary: int = 0


class Order(_M):
    """One sealed order (§11.2 OrdersSubmitted.orders[])."""

    id: str
    action: str
    slots: tuple[str, ...] = ("ordinary",)
    stake: Literal["elementary", "low", "high"] = "low"
    leader: str | None = None
    target: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)


class Orders(_M):
    """A faction's sealed orders for the turn."""

    orders: tuple[Order, ...] = ()
    dilemmas: dict[str, str] = Field(default_factory=dict)
    standing: dict[str, Any] = Field(default_factory=dict)


class DilemmaOption(_M):
    id: str
    text: str
    effects: tuple[dict[str, Any], ...] = ()


class Dilemma(_M):
    id: str
    text: str
    options: tuple[DilemmaOption, ...]
    choice: str | None = None


class Candidate(_M):
    id: str
    name: str
    trait: str
    cost: int = 1


class Campaign(_M):
    """An army on campaign (§2.7)."""

    id: str
    faction: str
    target: str
    units: int | None
    characters: tuple[str, ...] = ()
    commander: str | None = None
    route: Literal["direct", "passage", "transit"] = "direct"
    status: Literal["in_transit", "arrived", "occupying", "besieging", "returning", "home"] = "arrived"
    tactic: str | None = "hold"
    conditional: str | None = None
    reserve: int | None = 0


class BattleSummary(_M):
    """What the public may know of a battle (§1.4) plus its per-side casualties."""

    id: str
    turn: int
    province: str
    attacker: str
    defender: str
    winner: str
    kind: str = "field"
    killed: dict[str, int] = Field(default_factory=dict)


class SignoriaState(_M):
    """The whole game (§2.1). In a redacted view ``viewer`` names who it is for."""

    viewer: str = "gm"
    turn: int = 0
    phase: str = "setup"
    season: str = "setup"
    config: dict[str, Any] = Field(default_factory=dict)
    initiative: tuple[str, ...] = ()
    factions: dict[str, Faction] = Field(default_factory=dict)
    characters: dict[str, Character] = Field(default_factory=dict)
    provinces: dict[str, Province] = Field(default_factory=dict)
    treaties: dict[str, Treaty] = Field(default_factory=dict)
    intel: dict[str, dict[str, dict[str, IntelRecord]]] = Field(default_factory=dict)
    notices: dict[str, tuple[Notice, ...]] = Field(default_factory=dict)
    spies: dict[str, str] = Field(default_factory=dict)
    """agent id -> host faction, for spies in place (secret: GM and master)."""
    plants: dict[str, tuple[str, int]] = Field(default_factory=dict)
    """agent -> (host, turn planted): infiltrations waiting for the host to hire (secret)."""
    aliases: dict[str, str] = Field(default_factory=dict)
    """candidate id -> planted agent's character id (secret: GM and master)."""
    believed_spies: dict[str, dict[str, str]] = Field(default_factory=dict)
    """briber -> {agent id: host}: spies a faction believes it owns (may be double agents)."""
    command: dict[str, CommandRoll] = Field(default_factory=dict)
    orders: dict[str, Orders] = Field(default_factory=dict)
    dilemmas: dict[str, tuple[Dilemma, ...]] = Field(default_factory=dict)
    candidates: dict[str, tuple[Candidate, ...]] = Field(default_factory=dict)
    campaigns: dict[str, Campaign] = Field(default_factory=dict)
    battles: tuple[BattleSummary, ...] = ()
    felmonte_offers: dict[str, int] = Field(default_factory=dict)
    flags: tuple[str, ...] = ()
    starving: tuple[str, ...] = ()
    """Besieged provinces whose owner reached 0 wealth: sally or surrender in the next phase 3 (§5.11)."""
    global_event: str | None = None
    rulings: tuple[str, ...] = ()
    shortfalls: tuple[str, ...] = ()
    finished: bool = False
    winner: str | None = None
    scores: dict[str, int] = Field(default_factory=dict)

    def players(self) -> list[str]:
        """Active player factions in initiative order."""
        return [f for f in self.initiative if self.factions[f].kind == "player" and self.factions[f].status == "active"]

    def neutrals(self) -> list[str]:
        return [f for f in self.initiative if self.factions[f].kind == "neutral"]

    def statesmen_of(self, faction: str) -> list[Character]:
        return [self.characters[c] for c in self.factions[faction].statesmen if c in self.characters]

    def active_treaties(self, faction: str, neutral: str | None = None) -> list[Treaty]:
        return [
            t for t in self.treaties.values()
            if t.active and faction in t.parties and (neutral is None or t.neutral == neutral)
        ]
