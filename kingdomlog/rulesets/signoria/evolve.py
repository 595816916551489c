"""Applying Signoria events to the state (pure; never rolls, never mutates its input).

The state's fields are set through ``core.working.update``: a new state, or in a fold of many
events the fold's private working copy set in place; so a handler goes on with the state ``update``
returned, never with the one it passed in (``tests/test_working_fold.py`` folds every stream both ways).

``evolve`` applies what an event recorded (faces, totals, outcomes, who gained what) through a
``core.dispatch.Handlers`` registry, one handler per payload class. It never re-runs the rules
to re-derive or re-check a recorded number: comparing a log with today's rules is ``audit``.
Two things stay faults of the log (``CorruptLogError`` naming the seq): a recorded d6 face
outside 1..6, and a ``signoria.*`` event this ruleset has no handler for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from kingdomlog.core.dispatch import Handlers
from kingdomlog.core.errors import CorruptLogError
from kingdomlog.core.events import EventModel, RecordedEvent
from kingdomlog.core.working import update
from kingdomlog.rulesets.signoria import events as ev
from kingdomlog.rulesets.signoria.state import (
    BattleSummary,
    Campaign,
    Candidate,
    Character,
    CommandRoll,
    Dilemma,
    DilemmaOption,
    Faction,
    IntelRecord,
    Notice,
    Order,
    Orders,
    Province,
    SignoriaState,
    Treaty,
)
from kingdomlog.rulesets.signoria.tables import season_of

Handler = Callable[[SignoriaState, Any, str], SignoriaState]
"""``handler(state, payload, phase)``: ``phase`` is the event's step (or the state's current phase)."""

HANDLERS: Handlers[Handler] = Handlers()
on = HANDLERS.on


def _fac(s: SignoriaState, fid: str, **upd: Any) -> SignoriaState:
    return update(s, {"factions": {**s.factions, fid: s.factions[fid].model_copy(update=upd)}})


def _char(s: SignoriaState, cid: str, **upd: Any) -> SignoriaState:
    return update(s, {"characters": {**s.characters, cid: s.characters[cid].model_copy(update=upd)}})


def _prov(s: SignoriaState, pid: str, **upd: Any) -> SignoriaState:
    return update(s, {"provinces": {**s.provinces, pid: s.provinces[pid].model_copy(update=upd)}})


def _adjust(s: SignoriaState, fid: str, resource: str, delta: int) -> SignoriaState:
    cur = getattr(s.factions[fid], resource) or 0
    return _fac(s, fid, **{resource: max(0, cur + delta)})


def _intel(s: SignoriaState, observer: str, subject: str, fields: dict[str, Any], turn: int, phase: str,
           source: Any, believed: bool = False) -> SignoriaState:
    mine = dict(s.intel.get(observer, {}))
    about = dict(mine.get(subject, {}))
    for k, v in fields.items():
        about[k] = IntelRecord(value=v, turn=turn, phase=phase, source=source, believed=believed)
    mine[subject] = about
    return update(s, {"intel": {**s.intel, observer: mine}})


def _notice(s: SignoriaState, fid: str, kind: str, text: str, data: dict[str, Any]) -> SignoriaState:
    cur = s.notices.get(fid, ())
    return update(s, {"notices": {**s.notices, fid: (*cur, Notice(turn=s.turn, kind=kind, text=text,
                                                                               data=data))}})


def _remove_statesman(s: SignoriaState, cid: str) -> SignoriaState:
    c = s.characters[cid]
    f = s.factions.get(c.employer)
    if f is not None and cid in f.statesmen:
        s = _fac(s, c.employer, statesmen=tuple(x for x in f.statesmen if x != cid))
    return s


def _add_statesman(s: SignoriaState, fid: str, cid: str) -> SignoriaState:
    f = s.factions[fid]
    if cid not in f.statesmen:
        s = _fac(s, fid, statesmen=(*f.statesmen, cid))
    return _char(s, cid, employer=fid, role="statesman")


def apply_effect(s: SignoriaState, eff: dict[str, Any], phase: str) -> SignoriaState:
    """Apply one typed effect of a GM ruling, dilemma option or event (§11.2 ``Effect``)."""
    kind = eff.get("kind")
    if kind == "resource":
        return _adjust(s, eff["faction"], eff["resource"], int(eff["delta"]))
    if kind == "set_resource":
        return _fac(s, eff["faction"], **{eff["resource"]: max(0, int(eff["value"]))})
    if kind == "treaty":
        tid = eff.get("id") or f"t{len(s.treaties) + 1}"
        t = Treaty(id=tid, type=eff["type"], parties=tuple(eff["parties"]), neutral=eff.get("neutral"),
                   stake=eff.get("stake", "low"), concluded_turn=int(eff.get("turn", s.turn)),
                   aid_units=int(eff.get("aid_units", 0)))
        return update(s, {"treaties": {**s.treaties, tid: t}})
    if kind == "intel":
        return _intel(s, eff["observer"], eff["subject"], dict(eff["fields"]), int(eff.get("turn", s.turn)),
                      str(eff.get("phase", phase)), eff.get("source", "ruling"), bool(eff.get("believed", False)))
    if kind == "standing":
        f = s.factions[eff["faction"]]
        st = dict(f.standing)
        st[eff["neutral"]] = st.get(eff["neutral"], 0) + int(eff["delta"])
        return _fac(s, eff["faction"], standing=st)
    if kind == "slots":
        cr = s.command.get(eff["faction"])
        if cr is None:
            cr = CommandRoll(stake="low")
        field = "special" if eff.get("slot") == "special" else "ordinary"
        cr = cr.model_copy(update={field: max(0, getattr(cr, field) + int(eff["delta"]))})
        return update(s, {"command": {**s.command, eff["faction"]: cr}})
    if kind == "character":
        return _char(s, eff["character"], condition=eff["condition"])
    if kind == "loyalty":
        return _char(s, eff["character"], loyalty=int(eff["value"]))
    if kind == "flag":
        return update(s, {"flags": (*s.flags, str(eff.get("text", "")))})
    return s  # "text": flavour only


def _faces(values: Iterable[Any], what: str, seq: int) -> None:
    for f in values:
        if isinstance(f, bool) or not isinstance(f, int) or not 1 <= f <= 6:
            raise CorruptLogError(f"recorded {what} has a face {f!r}, not a d6 face (1..6)", seq=seq)


def check_faces(e: EventModel, seq: int) -> None:
    """Every d6 face an event recorded must fit a d6 (a fault of the log otherwise)."""
    if isinstance(e, ev.CommandRollMade):
        _faces(e.dice, "command roll", seq)
    elif isinstance(e, ev.ActionResolved):
        for pair in e.rolls:
            _faces(pair, f"2d6 of {e.faction}.{e.order}", seq)
    elif isinstance(e, ev.CharacterCreated | ev.LeaderSucceeded | ev.CandidateOffered):
        _faces(e.trait_dice, "trait die", seq)
    elif isinstance(e, ev.BattleRound):
        for side, rec in e.sides.items():
            for g in rec.get("groups", ()) if isinstance(rec, dict) else ():
                where = f"{e.battle} round {e.round} {side} {g.get('group', '?')}"
                _faces(g.get("dice", ()), where, seq)
                _faces(g.get("explosions", ()), f"{where} explosion", seq)
                _faces((r[1] for r in g.get("rerolls", ()) if isinstance(r, list | tuple) and len(r) == 2),
                       f"{where} reroll", seq)


def evolve(s: SignoriaState, event: RecordedEvent) -> SignoriaState:
    """Fold one recorded event into the state (the event's step becomes the state's phase)."""
    e = event.payload
    handler = HANDLERS.get(e)
    if handler is None:
        raise CorruptLogError(f"signoria has no rule to apply {event.type!r} (version {event.version})",
                              seq=event.seq)
    check_faces(e, event.seq)
    phase = event.phase
    ph = phase or s.phase
    if phase:
        s = update(s, {"phase": phase})
    return handler(s, e, ph)


def _same(s: SignoriaState, e: Any, ph: str) -> SignoriaState:
    """Events that record what happened without changing the state (the record is the log)."""
    return s


for _cls in (ev.OrdersLocked, ev.PhaseStarted, ev.NeutralReaction, ev.BattleOpened, ev.BattleRound,
             ev.TurnClosed, ev.OrdersRevealed):
    on(_cls)(_same)


@on(ev.GameCreated)
def _game_created(s: SignoriaState, e: ev.GameCreated, ph: str) -> SignoriaState:
    return update(s, {"config": dict(e.config), "initiative": e.initiative, "turn": e.resume_turn,
                                "season": season_of(e.resume_turn).name if e.resume_turn else "setup"})


@on(ev.ProvinceDefined)
def _province_defined(s: SignoriaState, e: ev.ProvinceDefined, ph: str) -> SignoriaState:
    p = Province(id=e.province, name=e.name, owner=e.owner, income=e.income)
    return update(s, {"provinces": {**s.provinces, e.province: p}})


@on(ev.FactionCreated)
def _faction_created(s: SignoriaState, e: ev.FactionCreated, ph: str) -> SignoriaState:
    f = Faction(id=e.faction, name=e.name, kind=e.kind, traits=e.traits, keys=e.keys, leader_name=e.leader_name,
                may_name_heir=e.may_name_heir)
    return update(s, {"factions": {**s.factions, e.faction: f}})


@on(ev.ResourcesInitialized)
def _resources_initialized(s: SignoriaState, e: ev.ResourcesInitialized, ph: str) -> SignoriaState:
    return _fac(s, e.faction, power=e.power, piety=e.piety, wealth=e.wealth, army=e.army)


@on(ev.CharacterCreated)
def _character_created(s: SignoriaState, e: ev.CharacterCreated, ph: str) -> SignoriaState:
    c = Character(id=e.character, name=e.name, employer=e.faction, role=e.role, traits=e.traits,
                  trait_source=e.trait_source, is_heir=e.is_heir, hired_turn=s.turn,
                  loyalty=e.loyalty if e.loyalty is not None else int(s.config.get("statesman_loyalty_default", 2)))
    s = update(s, {"characters": {**s.characters, e.character: c}})
    if e.role == "leader":
        return _fac(s, e.faction, leader=e.character, leader_name=e.name)
    return _add_statesman(s, e.faction, e.character)


@on(ev.IntelRecorded)
def _intel_recorded(s: SignoriaState, e: ev.IntelRecorded, ph: str) -> SignoriaState:
    return _intel(s, e.observer, e.subject, dict(e.fields), e.turn, e.phase, e.source, e.believed)


@on(ev.TurnOpened)
def _turn_opened(s: SignoriaState, e: ev.TurnOpened, ph: str) -> SignoriaState:
    chars = {k: (c.model_copy(update={"activity": None}) if c.activity else c) for k, c in s.characters.items()}
    return update(s, {
        "turn": e.turn, "season": e.season, "command": {}, "orders": {}, "dilemmas": {}, "candidates": {},
        "felmonte_offers": {}, "characters": chars, "global_event": None})


@on(ev.IncomeCredited)
def _income_credited(s: SignoriaState, e: ev.IncomeCredited, ph: str) -> SignoriaState:
    return _adjust(s, e.faction, "wealth", e.total)  # the recorded total (audit checks it against the lines)


@on(ev.GlobalEventAnnounced)
def _global_event(s: SignoriaState, e: ev.GlobalEventAnnounced, ph: str) -> SignoriaState:
    s = update(s, {"global_event": e.title})
    for eff in e.effects:
        s = apply_effect(s, dict(eff), ph)
    return s


@on(ev.DilemmaPresented)
def _dilemma_presented(s: SignoriaState, e: ev.DilemmaPresented, ph: str) -> SignoriaState:
    d = Dilemma(id=e.dilemma, text=e.text, options=tuple(DilemmaOption.model_validate(o) for o in e.options))
    return update(s, {"dilemmas": {**s.dilemmas, e.faction: (*s.dilemmas.get(e.faction, ()), d)}})


@on(ev.CandidateOffered)
def _candidate_offered(s: SignoriaState, e: ev.CandidateOffered, ph: str) -> SignoriaState:
    c2 = Candidate(id=e.candidate, name=e.name, trait=e.trait, cost=e.cost)
    return update(s, {"candidates": {**s.candidates, e.faction: (*s.candidates.get(e.faction, ()), c2)}})


@on(ev.CommandRollMade)
def _command_roll(s: SignoriaState, e: ev.CommandRollMade, ph: str) -> SignoriaState:
    if e.paid_with:
        s = _adjust(s, e.faction, e.paid_with, -1)
    ok, sp, od = ev.command_roll_outcome(e)  # the recorded slots (v1 events: their format's table)
    prev = s.command.get(e.faction)
    cr = CommandRoll(stake=e.stake, attempts=(*(prev.attempts if prev else ()), e.dice),
                     paid=(*(prev.paid if prev else ()), *([e.paid_with] if e.paid_with else [])),
                     success=ok, special=sp, ordinary=od)
    return update(s, {"command": {**s.command, e.faction: cr}})


@on(ev.OrdersSubmitted)
def _orders_submitted(s: SignoriaState, e: ev.OrdersSubmitted, ph: str) -> SignoriaState:
    o = Orders(orders=tuple(Order.model_validate(x) for x in e.orders), dilemmas=dict(e.dilemmas),
               standing=dict(e.standing))
    s = update(s, {"orders": {**s.orders, e.faction: o}})
    for od2 in o.orders:
        if od2.leader and od2.leader in s.characters:
            s = _char(s, od2.leader, activity=od2.id)
        for cid in (od2.params.get("characters") or []) if od2.action == "war" else []:
            if cid in s.characters:
                s = _char(s, cid, activity=od2.id)
    return s


@on(ev.OrderVoided)
def _order_voided(s: SignoriaState, e: ev.OrderVoided, ph: str) -> SignoriaState:
    """The void order goes out of the turn's orders and into the faction's notices (its report)."""
    if e.faction in s.orders:
        od = s.orders[e.faction]
        s = update(s, {"orders": {**s.orders, e.faction: od.model_copy(
            update={"orders": tuple(o for o in od.orders if o.id != e.order)})}})
    text = f"order {e.order} ({e.action}) is void: {e.reason}" + (f" ({e.rule})" if e.rule else "")
    return _notice(s, e.faction, "order_void", text, {"order": e.order, "action": e.action, "rule": e.rule})


@on(ev.ActionResolved)
def _action_resolved(s: SignoriaState, e: ev.ActionResolved, ph: str) -> SignoriaState:
    if e.action == "dilemma":
        ds = tuple(d.model_copy(update={"choice": e.detail.get("option")}) if d.id == e.target else d
                   for d in s.dilemmas.get(e.faction, ()))
        s = update(s, {"dilemmas": {**s.dilemmas, e.faction: ds}})
    if e.action == "felmonte_offer":
        s = update(s, {"felmonte_offers": {**s.felmonte_offers, e.faction: int(e.detail.get("amount", 0))}})
    return s


@on(ev.ResourceAdjusted)
def _resource_adjusted(s: SignoriaState, e: ev.ResourceAdjusted, ph: str) -> SignoriaState:
    s = _adjust(s, e.faction, e.resource, e.delta)
    if e.shortfall:
        s = update(s, {"shortfalls": (*s.shortfalls, f"t{s.turn} {e.faction} {e.resource} "
                                                                  f"short by {e.shortfall}")})
    return s


@on(ev.FactionNotified)
def _faction_notified(s: SignoriaState, e: ev.FactionNotified, ph: str) -> SignoriaState:
    s = _notice(s, e.faction, e.kind, e.text, dict(e.data))
    if e.kind == "bribe_result" and e.data.get("outcome") == "success" and e.data.get("mode") == "spy":
        mine = dict(s.believed_spies.get(e.faction, {}))
        mine[str(e.data["character"])] = str(e.data["host"])
        s = update(s, {"believed_spies": {**s.believed_spies, e.faction: mine}})
    return s


@on(ev.GMRulingRecorded)
def _gm_ruling(s: SignoriaState, e: ev.GMRulingRecorded, ph: str) -> SignoriaState:
    s = update(s, {"rulings": (*s.rulings, f"{e.gap}: {e.text}")})
    for eff in e.effects:
        s = apply_effect(s, dict(eff), ph)
    return s


@on(ev.CharacterStatusChanged)
def _character_status(s: SignoriaState, e: ev.CharacterStatusChanged, ph: str) -> SignoriaState:
    s = _char(s, e.character, condition=e.condition)
    c = s.characters[e.character]
    if e.condition in ("dead", "departed"):
        s = _remove_statesman(s, e.character)
        emp = s.factions.get(c.employer)
        if emp is not None and emp.leader == e.character:
            s = _fac(s, c.employer, leader=None)
        spies = {k: v for k, v in s.spies.items() if k != e.character}
        s = update(s, {"spies": spies})
    return s


@on(ev.LeaderSucceeded)
def _leader_succeeded(s: SignoriaState, e: ev.LeaderSucceeded, ph: str) -> SignoriaState:
    if e.character in s.characters:
        s = _remove_statesman(s, e.character)
        s = _char(s, e.character, role="leader", traits=e.traits, is_heir=False,
                  trait_source="inherited" if e.from_statesman else "random")
    else:
        c = Character(id=e.character, name=e.name, employer=e.faction, role="leader", traits=e.traits,
                      trait_source="random", hired_turn=s.turn)
        s = update(s, {"characters": {**s.characters, e.character: c}})
    return _fac(s, e.faction, leader=e.character, leader_name=e.name)


@on(ev.CandidateAlias)
def _candidate_alias(s: SignoriaState, e: ev.CandidateAlias, ph: str) -> SignoriaState:
    return update(s, {"aliases": {**s.aliases, e.candidate: e.agent}})


@on(ev.StatesmanHired)
def _statesman_hired(s: SignoriaState, e: ev.StatesmanHired, ph: str) -> SignoriaState:
    agent = s.aliases.get(e.candidate)
    if agent is not None and agent in s.characters:
        s = _add_statesman(s, e.faction, agent)
        s = _char(s, agent, condition="active", hired_turn=s.turn)
    else:
        c = Character(id=e.candidate, name=e.name, employer=e.faction, role="statesman", traits=(e.trait,),
                      loyalty=int(s.config.get("statesman_loyalty_default", 2)), hired_turn=s.turn)
        s = update(s, {"characters": {**s.characters, e.candidate: c}})
        s = _add_statesman(s, e.faction, e.candidate)
    return _adjust(s, e.faction, "wealth", -e.cost)


@on(ev.StatesmanDismissed)
def _statesman_dismissed(s: SignoriaState, e: ev.StatesmanDismissed, ph: str) -> SignoriaState:
    s = _remove_statesman(s, e.character)
    return _char(s, e.character, condition="departed", is_heir=False)


@on(ev.StatesmanDefected)
def _statesman_defected(s: SignoriaState, e: ev.StatesmanDefected, ph: str) -> SignoriaState:
    s = _remove_statesman(s, e.character)
    s = _add_statesman(s, e.to_faction, e.character)
    return _char(s, e.character, is_heir=False, hired_turn=s.turn)


@on(ev.SpyPlanted)
def _spy_planted(s: SignoriaState, e: ev.SpyPlanted, ph: str) -> SignoriaState:
    s = _remove_statesman(s, e.agent)
    s = update(s, {"plants": {**s.plants, e.agent: (e.host, s.turn)}})
    return _char(s, e.agent, true_master=e.master, agent_kind="spy", condition="departed", is_heir=False)


@on(ev.SpyPlaced)
def _spy_placed(s: SignoriaState, e: ev.SpyPlaced, ph: str) -> SignoriaState:
    s = _char(s, e.agent, true_master=e.master, agent_kind="double_agent" if e.double else "spy")
    if not e.double:
        s = update(s, {"spies": {**s.spies, e.agent: e.host}})
    return s


@on(ev.SpyExposed)
def _spy_exposed(s: SignoriaState, e: ev.SpyExposed, ph: str) -> SignoriaState:
    s = update(s, {"spies": {k: v for k, v in s.spies.items() if k != e.agent}})
    return _char(s, e.agent, true_master=None, agent_kind="none")


@on(ev.DoubleAgentChosen)
def _double_agent(s: SignoriaState, e: ev.DoubleAgentChosen, ph: str) -> SignoriaState:
    if e.mode == "believed_spy":
        return _char(s, e.character, true_master=e.owner, agent_kind="double_agent")
    s = _remove_statesman(s, e.character)
    s = _add_statesman(s, e.briber, e.character)
    s = _char(s, e.character, true_master=e.owner, agent_kind="spy", is_heir=False)
    return update(s, {"spies": {**s.spies, e.character: e.briber}})


@on(ev.TreatyConcluded)
def _treaty_concluded(s: SignoriaState, e: ev.TreatyConcluded, ph: str) -> SignoriaState:
    t = Treaty(id=e.treaty, type=e.kind, parties=e.parties, neutral=e.neutral, stake=e.stake,
               concluded_turn=s.turn, aid_units=e.aid_units, expires_turn=e.expires_turn)
    return update(s, {"treaties": {**s.treaties, e.treaty: t}})


@on(ev.TreatyEnded)
def _treaty_ended(s: SignoriaState, e: ev.TreatyEnded, ph: str) -> SignoriaState:
    t2 = s.treaties[e.treaty].model_copy(update={"active": False, "ended_turn": s.turn, "end_reason": e.reason})
    return update(s, {"treaties": {**s.treaties, e.treaty: t2}})


@on(ev.StandingChanged)
def _standing_changed(s: SignoriaState, e: ev.StandingChanged, ph: str) -> SignoriaState:
    return apply_effect(s, {"kind": "standing", "neutral": e.neutral, "faction": e.faction, "delta": e.delta}, ph)


@on(ev.LegitimacyLetterSent)
def _letter(s: SignoriaState, e: ev.LegitimacyLetterSent, ph: str) -> SignoriaState:
    s = _fac(s, e.neutral, legitimacy_letter_to=e.faction)
    return _fac(s, e.faction, letters=(*s.factions[e.faction].letters, e.neutral))


@on(ev.FelmonteSold)
def _felmonte_sold(s: SignoriaState, e: ev.FelmonteSold, ph: str) -> SignoriaState:
    s = _adjust(s, e.winner, "wealth", -e.amount)
    return _capture(s, "felmonte", e.winner)


@on(ev.CampaignLaunched)
def _campaign_launched(s: SignoriaState, e: ev.CampaignLaunched, ph: str) -> SignoriaState:
    cp = Campaign(id=e.campaign, faction=e.faction, target=e.target, units=e.units, characters=e.characters,
                  commander=e.commander, route=e.route, tactic=e.tactic, conditional=e.conditional,
                  status="in_transit", reserve=e.reserve)
    return update(s, {"campaigns": {**s.campaigns, e.campaign: cp}})


@on(ev.CampaignArrived)
def _campaign_arrived(s: SignoriaState, e: ev.CampaignArrived, ph: str) -> SignoriaState:
    cp = s.campaigns[e.campaign].model_copy(update={"status": "arrived"})
    return update(s, {"campaigns": {**s.campaigns, e.campaign: cp}})


@on(ev.DefenderResponded)
def _defender_responded(s: SignoriaState, e: ev.DefenderResponded, ph: str) -> SignoriaState:
    if e.response == "defence":
        s = _fac(s, e.defender, besieged=True)
    return s


@on(ev.BattleEnded)
def _battle_ended(s: SignoriaState, e: ev.BattleEnded, ph: str) -> SignoriaState:
    for fid, k in e.killed.items():
        if fid in s.factions and k:
            s = _adjust(s, fid, "army", -k)
    for cq in list(s.campaigns.values()):
        if cq.status in ("arrived", "occupying", "besieging") and cq.faction in e.killed and cq.target == e.province:
            s = update(s, {"campaigns": {**s.campaigns, cq.id: cq.model_copy(
                update={"units": max(0, (cq.units or 0) - e.killed[cq.faction])})}})
    b = BattleSummary(id=e.battle, turn=s.turn, province=e.province, attacker=e.attacker, defender=e.defender,
                      winner=e.winner, killed=dict(e.killed))
    return update(s, {"battles": (*s.battles, b)})


@on(ev.BattleReported)
def _battle_reported(s: SignoriaState, e: ev.BattleReported, ph: str) -> SignoriaState:
    if any(b.id == e.battle for b in s.battles):
        return s
    b = BattleSummary(id=e.battle, turn=s.turn, province=e.province, attacker=e.attacker, defender=e.defender,
                      winner=e.winner)
    return update(s, {"battles": (*s.battles, b)})


@on(ev.ProvinceStatusChanged)
def _province_status(s: SignoriaState, e: ev.ProvinceStatusChanged, ph: str) -> SignoriaState:
    if e.change == "occupied":
        s = _prov(s, e.province, occupier=e.by)
        if e.campaign and e.campaign in s.campaigns:
            cp = s.campaigns[e.campaign].model_copy(update={"status": "occupying"})
            s = update(s, {"campaigns": {**s.campaigns, cp.id: cp}})
        return s
    if e.change == "siege_started":
        s = _prov(s, e.province, occupier=e.by, siege_since=s.turn)
        owner = s.provinces[e.province].owner
        s = _fac(s, owner, besieged=True)
        if e.campaign and e.campaign in s.campaigns:
            cp = s.campaigns[e.campaign].model_copy(update={"status": "besieging"})
            s = update(s, {"campaigns": {**s.campaigns, cp.id: cp}})
        return s
    if e.change in ("siege_ended", "freed"):
        owner = s.provinces[e.province].owner
        s = update(s, {"starving": tuple(x for x in s.starving if x != e.province)})
        s = _prov(s, e.province, occupier=None, siege_since=None)
        return _fac(s, owner, besieged=False)
    if e.change == "captured":
        return _capture(s, e.province, e.by or "")
    return s


@on(ev.CampaignReturned)
def _campaign_returned(s: SignoriaState, e: ev.CampaignReturned, ph: str) -> SignoriaState:
    return update(s, {"campaigns": {k: v for k, v in s.campaigns.items() if k != e.campaign}})


@on(ev.TroopsHired)
def _troops_hired(s: SignoriaState, e: ev.TroopsHired, ph: str) -> SignoriaState:
    s = _adjust(s, e.faction, "wealth", -e.cost)
    return _adjust(s, e.faction, "army", e.units)


@on(ev.HeirDesignated)
def _heir_designated(s: SignoriaState, e: ev.HeirDesignated, ph: str) -> SignoriaState:
    chars = dict(s.characters)
    for cid in s.factions[e.faction].statesmen:
        if cid in chars:
            chars[cid] = chars[cid].model_copy(update={"is_heir": cid == e.character})
    return update(s, {"characters": chars})


@on(ev.UpkeepFlagged)
def _upkeep_flagged(s: SignoriaState, e: ev.UpkeepFlagged, ph: str) -> SignoriaState:
    if e.kind == "starving":
        s = update(s, {"starving": (*s.starving, e.detail)})
    return update(s, {"flags": (*s.flags, f"t{s.turn} {e.faction} {e.kind}: {e.detail}")})


@on(ev.FactionEliminated)
def _faction_eliminated(s: SignoriaState, e: ev.FactionEliminated, ph: str) -> SignoriaState:
    # §5.13: its characters leave play; its agents abroad become ordinary statesmen of their hosts
    chars = {}
    for cid, c in s.characters.items():
        if c.employer == e.faction and c.true_master in (None, e.faction):
            c = c.model_copy(update={"condition": "departed"})
        if c.true_master == e.faction:
            c = c.model_copy(update={"true_master": None, "agent_kind": "none"})
        chars[cid] = c
    s = update(s, {
        "characters": chars,
        "spies": {a: h for a, h in s.spies.items() if chars[a].true_master is not None},
        "believed_spies": {k: v for k, v in s.believed_spies.items() if k != e.faction},
    })
    s = _fac(s, e.faction, status="eliminated", statesmen=(), leader=None)
    treaties = {k: (t.model_copy(update={"active": False, "ended_turn": s.turn, "end_reason": "elimination"})
                    if e.faction in t.parties and t.active else t) for k, t in s.treaties.items()}
    return update(s, {"treaties": treaties})


@on(ev.FinalTallyRecorded)
def _final_tally(s: SignoriaState, e: ev.FinalTallyRecorded, ph: str) -> SignoriaState:
    return update(s, {"scores": {k: int(v.get("total", 0)) for k, v in e.scores.items()},
                                "winner": e.winner})


@on(ev.GameEnded)
def _game_ended(s: SignoriaState, e: ev.GameEnded, ph: str) -> SignoriaState:
    return update(s, {"finished": True, "winner": e.winner})


def _capture(s: SignoriaState, province: str, by: str) -> SignoriaState:
    """Capture (§5.13, §7.6): owner changes, siege ends, a neutral's treaties end."""
    p = s.provinces[province]
    old = p.owner
    income = p.income
    if s.factions[old].kind == "neutral":
        income = int(s.config.get("neutral_province_income", 1))
        s = _fac(s, old, captured_by=by)
        treaties = {k: (t.model_copy(update={"active": False, "ended_turn": s.turn, "end_reason": "capture"})
                        if t.neutral == old and t.active else t) for k, t in s.treaties.items()}
        s = update(s, {"treaties": treaties})
    s = _prov(s, province, owner=by, occupier=None, siege_since=None, income=income)
    if s.factions[old].kind == "player" and not any(p.owner == old for p in s.provinces.values()):
        s = _fac(s, old, army=0)  # no province to retreat to: the survivors disband (§5.13)
    s = update(s, {"starving": tuple(x for x in s.starving if x != province)})
    s = _fac(s, old, besieged=False)
    camps = {k: v for k, v in s.campaigns.items() if not (v.target == province and v.faction == by)}
    # the captor's campaign garrisons the province: its units simply come home (they remain in Army)
    return update(s, {"campaigns": camps})

