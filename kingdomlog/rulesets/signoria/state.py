"""Signoria state (§2): factions, characters, provinces, treaties, intel, the turn's orders, and the
numbers derived from them (home force, reroll allowance, income), each with its breakdown.

Everything is a frozen model (``core.model.Frozen``); ``evolve`` returns copies. Resource fields
are ``int | None`` because a redacted view (§11.4) shows a rival's values as unknown.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from kingdomlog.core.model import Frozen
from kingdomlog.core.modifiers import Modifier, stack
from kingdomlog.core.ruleset import Breakdown
from kingdomlog.rulesets.signoria.rules import character_rerolls, slot_rerolls
from kingdomlog.rulesets.signoria.tables import season_of, traits

RESOURCES = ("power", "piety", "wealth", "army")
FACTION_BETTER: dict[str, Literal["up", "down"]] = {**{r: "up" for r in RESOURCES}, "provinces": "up"}
"""Which way each of a faction's figures is good for it (``summary`` column ``<faction>_<figure>``): more of every
resource and more provinces (``Ruleset.better``)."""


class Character(Frozen):
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


class Faction(Frozen):
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


class Province(Frozen):
    """A province (§2.2); occupier/siege are public (§1.4)."""

    id: str
    name: str
    owner: str
    income: int
    occupier: str | None = None
    siege_since: int | None = None


class Treaty(Frozen):
    """A treaty record (§2.6)."""

    id: str
    type: Literal["non_aggression", "right_of_passage", "trade", "military_aid", "military_alliance", "player_treaty"]
    parties: tuple[str, ...]
    neutral: str | None = None
    stake: Literal["elementary", "low", "high"] = Field("low", json_schema_extra={"said_at_default": True})
    """What breaking it costs: said on the GM's panel even at its default (``views.sheet.panel.word_defaults``)."""
    concluded_turn: int = 0
    active: bool = True
    ended_turn: int | None = None
    end_reason: str | None = None
    aid_units: int = 0
    expires_turn: int | None = None


class IntelRecord(Frozen):
    """A dated snapshot one faction holds about another (§2.6)."""

    value: Any
    turn: int
    phase: str
    source: Literal["scouts", "spy", "battle", "notice", "public", "ruling"]
    believed: bool = False


class Notice(Frozen):
    """A private notice to a faction (§11.3 FactionNotified); may be a deliberate lie."""

    turn: int
    kind: str
    text: str
    data: dict[str, Any] = Field(default_factory=dict)


class CommandRoll(Frozen):
    """This turn's command roll (§3.1) and the slots it gave."""

    stake: Literal["low", "high"]
    attempts: tuple[tuple[int, int], ...] = ()
    paid: tuple[str, ...] = ()
    success: bool = False
    special: int = 0
    ordinary: int = 0


class Order(Frozen):
    """One sealed order (§11.2 OrdersSubmitted.orders[])."""

    id: str
    action: str
    slots: tuple[str, ...] = ("ordinary",)
    stake: Literal["elementary", "low", "high"] = "low"
    leader: str | None = None
    target: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)


class Orders(Frozen):
    """A faction's sealed orders for the turn."""

    orders: tuple[Order, ...] = ()
    dilemmas: dict[str, str] = Field(default_factory=dict)
    standing: dict[str, Any] = Field(default_factory=dict)


class DilemmaOption(Frozen):
    id: str
    text: str
    effects: tuple[dict[str, Any], ...] = ()


class Dilemma(Frozen):
    id: str
    text: str
    options: tuple[DilemmaOption, ...]
    choice: str | None = None


class Candidate(Frozen):
    id: str
    name: str
    trait: str
    cost: int = 1


class Campaign(Frozen):
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


class BattleSummary(Frozen):
    """What the public may know of a battle (§1.4) plus its per-side casualties."""

    id: str
    turn: int
    province: str
    attacker: str
    defender: str
    winner: str
    kind: str = "field"
    killed: dict[str, int] = Field(default_factory=dict)


class SignoriaState(Frozen):
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


# ---------------------------------------------------------------------------------------------- derived numbers

def home_force(s: SignoriaState, fid: str) -> int:
    """Army at home (§2.7): Army minus the units away on campaign, never below 0."""
    out = sum(c.units or 0 for c in s.campaigns.values() if c.faction == fid)
    return max(0, (s.factions[fid].army or 0) - out)


def home_force_breakdown(s: SignoriaState, fid: str) -> Breakdown:
    """``home_force`` term by term (§2.7)."""
    away = sum(c.units or 0 for c in s.campaigns.values() if c.faction == fid)
    return stack(f"{fid} home force", [Modifier("Army", s.factions[fid].army or 0, source="§2.7"),
                                       Modifier("on campaign", -away, source="§2.7")])


def reroll_allowance(s: SignoriaState, fid: str, order: Order) -> tuple[int, list[tuple[str, int]]]:
    """R for ``order`` (§3.4): 2s + o - 1 for its slots (support slots included), +2/+1 for an on/off-profile
    leading character, +1 per wealth of support up to ``expense_support_max_rerolls``; with its terms."""
    sp = sum(1 for x in order.slots if x == "special")
    od = sum(1 for x in order.slots if x != "special")
    extra: list[tuple[str, int]] = []
    for o in s.orders[fid].orders if fid in s.orders else ():
        if o.action == "support" and o.params.get("order") == order.id:
            sp += sum(1 for x in o.slots if x == "special")
            od += sum(1 for x in o.slots if x != "special")
            w = min(int(o.params.get("wealth", 0)), int(s.config.get("expense_support_max_rerolls", 2)))
            extra.append((f"support {o.id} wealth", w))
    terms = [(f"slots ({sp} special, {od} ordinary)", slot_rerolls(special=sp, ordinary=od))]
    c = s.characters.get(order.leader or "")
    if c is not None and c.condition == "active":
        spy_lead = f"spy:{c.id}" in order.slots  # a spy may lead his own slot's action (§6.2)
        if (c.employer == fid or spy_lead) and (c.role == "statesman" or s.config.get("leader_leads_actions", True)):
            on = any(order.action in traits()[t].profile for t in c.traits if t in traits())
            terms.append((f"{c.name} ({'on' if on else 'off'}-profile)", character_rerolls(on)))
    terms.extend(extra)
    return sum(v for _, v in terms), terms


def income_lines(s: SignoriaState, fid: str, turn: int) -> list[dict[str, Any]]:
    """The income lines of ``fid`` at the opening of ``turn`` (§4.4): provinces, trade concluded before
    ``turn``, the season's bonus (times ``summer_wealth_bonus``)."""
    lines: list[dict[str, Any]] = []
    for p in s.provinces.values():
        if p.owner == fid:
            lines.append({"source": f"province:{p.id}", "amount": p.income})
    for t in s.active_treaties(fid):
        if t.type == "trade" and t.concluded_turn < turn:
            lines.append({"source": f"trade:{t.neutral}", "amount": 1})
    season = season_of(turn)
    bonus = season.wealth_bonus * int(s.config.get("summer_wealth_bonus", 1))
    if bonus:
        lines.append({"source": f"season:{season.name}", "amount": bonus})
    return lines


def income_breakdown(s: SignoriaState, fid: str, turn: int) -> Breakdown:
    """``income_lines`` as a breakdown (§4.4)."""
    return stack(f"{fid} income at turn {turn}", [Modifier(str(x["source"]), int(x["amount"]), source="§4.4")
                                                  for x in income_lines(s, fid, turn)])
