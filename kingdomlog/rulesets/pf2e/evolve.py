"""The fold: ``evolve(state, event) -> state`` for every pf2e event type. Pure; never rolls.

Each handler returns a new state (``model_copy(update=...)``, through ``_up``); the input is never
mutated, except in a fold of many events, where ``_up`` (``core.working.update``) sets the fields of
the fold's private working copy in place: so a handler goes on with the state ``_up`` returned, never
with the one it passed in (``tests/test_working_fold.py`` folds every stream both ways).
Handlers apply what the event recorded (degrees, totals, amounts lost to storage, RP paid):
they never re-run a check or re-derive a recorded number, and never refuse an event because
today's rules would compute it differently; ``audit.py`` compares instead. What stays a fault
of the log (``CorruptLogError`` naming the seq): an event type of this namespace with no
handler, dice faces that do not fit their own notation, and an event naming a hex or a
settlement the kingdom never had.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kingdomlog.core.dispatch import Handlers
from kingdomlog.core.errors import CorruptLogError
from kingdomlog.core.events import RecordedEvent
from kingdomlog.core.working import update
from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e import rules as R
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.state import (
    Army,
    Boon,
    BuiltStructure,
    DueEvent,
    EventWatch,
    Hex,
    KingdomModifier,
    KingdomState,
    Leader,
    OngoingEvent,
    Settlement,
    UsedActivity,
    WorkSite,
    fame_max,
)

Handler = Callable[[KingdomState, Any, int], KingdomState]
HANDLERS: Handlers[Handler] = Handlers()
on = HANDLERS.on


class _Missing(LookupError):
    """An event names a hex or settlement the state does not hold (a fault of the log)."""


def evolve(state: KingdomState, event: RecordedEvent) -> KingdomState:
    """Apply one recorded event; ``CorruptLogError`` naming the seq for a fault of the log."""
    fn = HANDLERS.get(event.payload)
    if fn is None:
        raise CorruptLogError(f"pf2e-kingmaker has no rule to apply event type {event.type!r}", seq=event.seq)
    bad = faces_fault(event.payload)
    if bad:
        raise CorruptLogError(f"{event.type}: {bad}", seq=event.seq)
    try:
        return fn(state, event.payload, event.turn)
    except (_Missing, KeyError) as exc:
        raise CorruptLogError(f"{event.type} names {exc} which the kingdom does not hold", seq=event.seq) from None


def faces_fault(p: Any) -> str:
    """Why a recorded roll's faces do not fit its own notation ("" when they do)."""
    if isinstance(p, E.ResourceDiceRolled):
        if len(p.faces) != p.dice or any(not 1 <= f <= p.die for f in p.faces):
            return f"faces {p.faces} are not {p.dice}d{p.die}"
    elif isinstance(p, E.ConsumptionPaid):
        want = 1 if p.method == "unrest" else 0
        if len(p.unrest_faces) != want or any(not 1 <= f <= 4 for f in p.unrest_faces):
            return f"unrest faces {p.unrest_faces} are not {'1d4' if want else 'empty'} (method {p.method})"
    elif isinstance(p, E.CheckResolved) and p.fame_reroll_of is not None and not 1 <= p.fame_reroll_of <= 20:
        return f"the re-rolled d20 {p.fame_reroll_of} is not a d20 face"
    return ""


def _up(state: KingdomState, **kw: Any) -> KingdomState:
    return update(state, **kw)


def _hex_map(state: KingdomState) -> dict[str, Hex]:
    return {h.id: h for h in state.hexes}


def _replace_hex(state: KingdomState, hx: Hex) -> KingdomState:
    hexes = [hx if h.id == hx.id else h for h in state.hexes]
    if hx.id not in {h.id for h in state.hexes}:
        hexes.append(hx)
    return _up(state, hexes=tuple(hexes))


def _replace_settlement(state: KingdomState, st: Settlement) -> KingdomState:
    return _up(state, settlements=tuple(st if s.id == st.id else s for s in state.settlements))


def _settlement(state: KingdomState, sid: str) -> Settlement:
    for s in state.settlements:
        if s.id == sid:
            return s
    raise _Missing(f"settlement {sid!r}")


def _hex(state: KingdomState, hid: str) -> Hex:
    for h in state.hexes:
        if h.id == hid:
            return h
    raise _Missing(f"hex {hid!r}")


def founding_structure(state: KingdomState, name: str) -> T.Structure | None:
    """The data of a structure standing at founding (None when today's data no longer has it)."""
    return T.base_structures().get(name) or T.catalog(state.homebrew).structures.get(name)


@on(E.KingdomFounded)
def _founded(s: KingdomState, p: E.KingdomFounded, turn: int) -> KingdomState:
    hexes = tuple(Hex(id=h.id, terrain=h.terrain, river=h.river, lake=h.lake, q=h.q, r=h.r,
                      features=tuple(sorted(set(h.features) | ({"settlement"} if h.id == p.settlement_hex else set()))),
                      resource=h.resource) for h in p.hexes)
    leaders = {r: Leader(holder=p.leaders[r].holder, kind=p.leaders[r].kind, invested=p.leaders[r].invested)
               if r in p.leaders else Leader() for r in T.ROLES}
    commodities = {c: int(p.commodities.get(c, 0)) for c in T.COMMODITIES}
    st = Settlement(id=p.settlement_id, name=p.settlement_name, hex=p.settlement_hex, capital=True)
    skills = {k: v for k, v in p.skills.items() if v != "untrained"}
    blocks: list[str] = ["", "", "", ""]
    built = []
    for i, name in enumerate(p.structures):
        blocks[i] = name
    st = st.model_copy(update={"blocks": ((blocks[0], blocks[1], blocks[2], blocks[3]),)})
    recorded = {i: f for i, f in enumerate(p.structure_facts or [])}
    for i, name in enumerate(p.structures):
        rec = recorded.get(i)
        if rec is not None and rec.name == name:
            # v3: the numbers the founding recorded
            st_facts = rec.stacking or E.StackingFacts()
            built.append(BuiltStructure(name=name, block=0, lots=(i,), residential=rec.residential,
                                        storage=dict(rec.storage), seat=rec.seat,
                                        consumption_reduction=rec.consumption_reduction,
                                        item_bonuses=dict(rec.item_bonuses), edifice=st_facts.edifice,
                                        reduction_stacks=st_facts.reduction_stacks if rec.stacking else None,
                                        item_bonus_stacks=st_facts.item_bonus_stacks if rec.stacking else None,
                                        reduction_when=st_facts.reduction_when))
            continue
        # v1/v2: the founding event names its structures; their numbers come from the data (audit warns when
        # the data no longer has one or has other numbers: it then stands with what today's data says)
        info = founding_structure(s, name)
        if info is None:
            built.append(BuiltStructure(name=name, block=0, lots=(i,)))
            continue
        built.append(BuiltStructure(name=name, block=0, lots=(i,), residential=info.residential,
                                    storage=dict(info.storage), seat=info.seat,
                                    consumption_reduction=info.consumption_reduction,
                                    item_bonuses=dict(info.item_bonuses)))
    st = st.model_copy(update={"structures": tuple(built)})
    ruins = {r: s.ruin[r].model_copy(update={"points": int(p.ruin_points.get(r, 0))}) for r in T.RUINS}
    if p.thresholds:
        ruins = {r: ru.model_copy(update={"threshold": int(p.thresholds.get(r, ru.threshold))})
                 for r, ru in ruins.items()}
    return _up(s, turn=p.resume_turn, xp=p.xp, unrest=p.unrest, ruin=ruins, event_dc=p.event_dc,
               founded=True, name=p.name, charter=p.charter, heartland=p.heartland, government=p.government,
               fame_type=p.fame_type, scores=dict(p.scores), skills=skills, feats=tuple(p.feats), leaders=leaders,
               hexes=hexes, settlements=(st,), commodities=commodities,
               pending=s.pending.model_copy(update={"rp": s.pending.rp + p.starting_rp}),
               max_level=p.party_level, step="founding",
               feat_choices={k: tuple(v) for k, v in p.feat_choices.items()})


@on(E.KingdomImported)
def _imported(s: KingdomState, p: E.KingdomImported, turn: int) -> KingdomState:
    """The imported kingdom as recorded: its stored fields replace the state's, the campaign's own stay."""
    k = KingdomState.model_validate(p.kingdom)
    kept = {name: getattr(k, name) for name in KingdomState.model_fields if name not in E.KINGDOM_NOT_IMPORTED}
    return _up(s, **{**kept, "founded": True})


@on(E.ConsumptionPaid)
def _consumption(s: KingdomState, p: E.ConsumptionPaid, turn: int) -> KingdomState:
    food = max(0, s.commodities["food"] - p.food)
    pend = s.pending.model_copy(update={"consumption": 0})
    unrest = s.unrest + sum(p.unrest_faces)
    return _up(s, commodities={**s.commodities, "food": food}, pending=pend, rp=max(0, s.rp - p.rp),
               rp_spent_this_turn=s.rp_spent_this_turn + p.rp, unrest=unrest)


@on(E.TurnStarted)
def _turn_started(s: KingdomState, p: E.TurnStarted, turn: int) -> KingdomState:
    leaders = {}
    for r, ld in s.leaders.items():
        upd: dict[str, Any] = {"vacancy_penalty": False, "forfeit": 0}
        if ld.leadership_modifier and ld.leadership_modifier_until and ld.leadership_modifier_until < p.turn:
            upd.update(leadership_modifier=0, leadership_modifier_until=0)
        leaders[r] = ld.model_copy(update=upd)
    mods = tuple(m for m in s.modifiers if m.expires != "start_of_next_turn")
    return _up(s, turn=p.turn, max_level=p.party_level, fame=p.fame_after,
               pending=s.pending.model_copy(update={"fame": 0}), rp_spent_this_turn=0,
               random_event_this_turn=False, event_this_turn="", used_this_turn=(), xp_pending=0, extra_region=0,
               favored_land_uses=0, envy_used=False,
               structures_built_this_turn=(), leaders=leaders, modifiers=mods, anarchy_averted=False,
               leveled_this_turn=False, step="upkeep", flags=(), rp_no_xp=0, events_due=())


@on(E.LeaderChanged)
def _leader_changed(s: KingdomState, p: E.LeaderChanged, turn: int) -> KingdomState:
    leaders = dict(s.leaders)
    same = next((ld.foundry_id for ld in s.leaders.values() if ld.holder == p.holder and ld.foundry_id), "")
    leaders[p.role] = Leader(holder=p.holder, kind=p.kind, invested=p.invested and p.holder is not None,
                             leadership_modifier=p.leadership_modifier,
                             leadership_modifier_until=p.leadership_modifier_until,
                             foundry_id=same if p.holder is not None else "")
    return _up(s, leaders=leaders)


@on(E.Named)
def _named(s: KingdomState, p: E.Named, turn: int) -> KingdomState:
    if p.what == "settlement":
        _settlement(s, p.id)  # recorded against the settlement: one the state lacks is a broken log
        return _up(s, settlements=tuple(st.model_copy(update={"name": p.name}) if st.id == p.id else st
                                        for st in s.settlements))
    ld = s.leaders.get(p.id)
    if ld is None or ld.holder is None:
        raise _Missing(f"leader {p.id!r}")
    actor = ld.foundry_id or (ld.holder if ld.holder.startswith(("Actor.", "Compendium.")) else "")
    # a leader imported before names were read was recorded by their actor id: it stays theirs, for export
    return _up(s, leaders={**s.leaders, p.id: ld.model_copy(update={"holder": p.name, "foundry_id": actor})})


@on(E.LeaderDowntime)
def _downtime(s: KingdomState, p: E.LeaderDowntime, turn: int) -> KingdomState:
    leaders = dict(s.leaders)
    ld = leaders[p.role]
    if p.choice == "forfeit_activity":
        ld = ld.model_copy(update={"forfeit": ld.forfeit + 1})
    elif p.choice == "vacancy_penalty":
        ld = ld.model_copy(update={"vacancy_penalty": True})
    leaders[p.role] = ld
    return _up(s, leaders=leaders)


@on(E.CheckResolved)
def _check(s: KingdomState, p: E.CheckResolved, turn: int) -> KingdomState:
    if p.consumed:
        s = _up(s, modifiers=tuple(m for m in s.modifiers if m.id not in p.consumed))
    if p.boon:
        s = _up(s, boons=tuple(b for b in s.boons if b.id != p.boon))
    if p.category in ("event", "upkeep", "gm", "reroll"):
        return s
    used = (*s.used_this_turn, UsedActivity(name=p.activity, category=p.category, role=p.role,
                                             settlement=p.settlement, skill=p.skill,
                                             target=p.target if p.category == "army" else ""))
    return _up(s, used_this_turn=used)


@on(E.ActivityWithoutCheck)
def _no_check(s: KingdomState, p: E.ActivityWithoutCheck, turn: int) -> KingdomState:
    used = (*s.used_this_turn, UsedActivity(name=p.activity, category=p.category, role=p.role,
                                             settlement=p.settlement, skill="",
                                             target=p.target if p.category == "army" else ""))
    return _up(s, used_this_turn=used)


@on(E.ActivityUnlocked)
def _unlocked(s: KingdomState, p: E.ActivityUnlocked, turn: int) -> KingdomState:
    if p.activity in s.unlocked_activities:
        return s
    return _up(s, unlocked_activities=(*s.unlocked_activities, p.activity))


@on(E.FlatCheckResolved)
def _flat(s: KingdomState, p: E.FlatCheckResolved, turn: int) -> KingdomState:
    return s


@on(E.ResourceDiceRolled)
def _resource(s: KingdomState, p: E.ResourceDiceRolled, turn: int) -> KingdomState:
    pend = s.pending.model_copy(update={"bonus_dice": 0, "penalty_dice": 0, "rp": 0, "halve_dice": 0})
    return _up(s, rp=p.total + p.pending_rp, pending=pend)


@on(E.RPChanged)
def _rp(s: KingdomState, p: E.RPChanged, turn: int) -> KingdomState:
    new = s.rp + p.delta
    spent = s.rp_spent_this_turn
    if p.delta < 0:
        spent += min(-p.delta, s.rp)
    no_xp = s.rp_no_xp + p.delta if p.no_xp else s.rp_no_xp
    return _up(s, rp=max(0, new), rp_spent_this_turn=spent, rp_no_xp=max(0, min(no_xp, max(0, new))))


@on(E.CommodityChanged)
def _commodity(s: KingdomState, p: E.CommodityChanged, turn: int) -> KingdomState:
    # a gain keeps what the event says was not lost to the storage cap (recorded when it was decided)
    cur = s.commodities[p.commodity]
    new = max(0, cur + p.delta - (p.lost_to_cap if p.delta > 0 else 0))
    return _up(s, commodities={**s.commodities, p.commodity: new})


@on(E.UnrestChanged)
def _unrest(s: KingdomState, p: E.UnrestChanged, turn: int) -> KingdomState:
    if p.unrest_after is not None:  # v2: recorded
        return _up(s, unrest=p.unrest_after)
    new = max(0, s.unrest + p.delta)
    cap = int(s.options.get("unrest_cap", 0))
    if cap:
        new = min(cap, new)
    return _up(s, unrest=new)


@on(E.RuinChanged)
def _ruin(s: KingdomState, p: E.RuinChanged, turn: int) -> KingdomState:
    r = s.ruin[p.ruin]
    if p.points_after is not None and p.penalty_after is not None:  # v2: recorded
        return _up(s, ruin={**s.ruin, p.ruin: r.model_copy(update={"points": p.points_after,
                                                                     "penalty": p.penalty_after})})
    points, penalty = R.ruin_after(r.points, r.threshold, r.penalty, p.delta,
                                   mode=str(s.options.get("ruin_overflow_mode", "subtract_threshold")),
                                   penalty_cap=int(s.options.get("ruin_penalty_cap", 0)), averted=p.penalty_averted)
    return _up(s, ruin={**s.ruin, p.ruin: r.model_copy(update={"points": points, "penalty": penalty})})


@on(E.RuinPenaltyChanged)
def _ruin_penalty(s: KingdomState, p: E.RuinPenaltyChanged, turn: int) -> KingdomState:
    r = s.ruin[p.ruin]
    return _up(s, ruin={**s.ruin, p.ruin: r.model_copy(update={"penalty": max(0, r.penalty + p.delta)})})


@on(E.FameChanged)
def _fame(s: KingdomState, p: E.FameChanged, turn: int) -> KingdomState:
    if p.fame_after is not None:  # v2: recorded
        return _up(s, fame=p.fame_after)
    return _up(s, fame=max(0, min(fame_max(s), s.fame + p.delta)))


@on(E.FameSpent)
def _fame_spent(s: KingdomState, p: E.FameSpent, turn: int) -> KingdomState:
    upd: dict[str, Any] = {"fame": max(0, s.fame - p.points)}
    if p.kind == "anarchy":
        upd["anarchy_averted"] = True
    return _up(s, **upd)


@on(E.ModifierAdded)
def _modifier(s: KingdomState, p: E.ModifierAdded, turn: int) -> KingdomState:
    m = KingdomModifier(id=p.id, source=p.source, type=p.kind, value=p.value, selector=p.selector, expires=p.expires)
    return _up(s, modifiers=(*s.modifiers, m))


@on(E.PendingAdded)
def _pending(s: KingdomState, p: E.PendingAdded, turn: int) -> KingdomState:
    pend = s.pending
    if p.kind == "commodity":
        comm = dict(pend.commodities)
        comm[p.commodity] = comm.get(p.commodity, 0) + p.amount
        return _up(s, pending=pend.model_copy(update={"commodities": comm}))
    return _up(s, pending=pend.model_copy(update={p.kind: getattr(pend, p.kind) + p.amount}))


@on(E.CooldownSet)
def _cooldown(s: KingdomState, p: E.CooldownSet, turn: int) -> KingdomState:
    return _up(s, cooldowns={**s.cooldowns, p.key: max(p.blocked_through_turn, s.cooldowns.get(p.key, 0))})


@on(E.HexClaimed)
def _claimed(s: KingdomState, p: E.HexClaimed, turn: int) -> KingdomState:
    old = _hex_map(s).get(p.hex.id)
    q, r = (p.hex.q, p.hex.r) if p.hex.q is not None and p.hex.r is not None else (
        (old.q, old.r) if old is not None else (None, None))
    hx = Hex(id=p.hex.id, terrain=p.hex.terrain, river=p.hex.river, lake=p.hex.lake, q=q, r=r,
             features=tuple(sorted(set(p.hex.features) | (set(old.features) if old else set()))),
             resource=p.hex.resource or (old.resource if old else ""),
             work_site=old.work_site if old else None, roads=old.roads if old else False, claimed=True,
             ever_claimed=True)
    s = _replace_hex(s, hx)
    return _up(s, xp_pending=s.xp_pending + p.xp)


@on(E.HexPlaced)
def _placed(s: KingdomState, p: E.HexPlaced, turn: int) -> KingdomState:
    old = _hex_map(s).get(p.hex_id)
    base = old if old is not None else Hex(id=p.hex_id, claimed=False, ever_claimed=False)
    upd: dict[str, Any] = {"q": p.q, "r": p.r}
    for name in ("terrain", "river", "lake", "resource"):
        if getattr(p, name) is not None:
            upd[name] = getattr(p, name)
    if p.features is not None:
        keep = {f for f in base.features if f in ("settlement", "work_site", "farmland")}
        upd["features"] = tuple(sorted(set(p.features) | keep))
    return _replace_hex(s, base.model_copy(update=upd))


@on(E.HexLost)
def _lost(s: KingdomState, p: E.HexLost, turn: int) -> KingdomState:
    hx = _hex(s, p.hex_id)
    features = set(hx.features)
    settlements = s.settlements
    if any(st.hex == p.hex_id for st in s.settlements) and s.options.get("lost_hex_settlement", "freehold") == \
            "freehold":
        settlements = tuple(st for st in s.settlements if st.hex != p.hex_id)
        features.discard("settlement")
        features.add("freehold")
    s = _replace_hex(s, hx.model_copy(update={"claimed": False, "features": tuple(sorted(features))}))
    return _up(s, settlements=settlements)


@on(E.WorkSiteEstablished)
def _work_site(s: KingdomState, p: E.WorkSiteEstablished, turn: int) -> KingdomState:
    hx = _hex(s, p.hex_id)
    features = tuple(sorted(set(hx.features) | {"work_site"}))
    return _replace_hex(s, hx.model_copy(update={
        "work_site": WorkSite(commodity=p.commodity, double_until_turn=p.double_until_turn), "features": features}))


@on(E.FarmlandEstablished)
def _farmland(s: KingdomState, p: E.FarmlandEstablished, turn: int) -> KingdomState:
    for hid in p.hex_ids:
        hx = _hex(s, hid)
        s = _replace_hex(s, hx.model_copy(update={"features": tuple(sorted(set(hx.features) | {"farmland"})),
                                                 "farmland_of": p.settlement, "farmland_distance": p.distance}))
    return s


@on(E.RoadsBuilt)
def _roads(s: KingdomState, p: E.RoadsBuilt, turn: int) -> KingdomState:
    for hid in p.hex_ids:
        hx = _hex(s, hid)
        feats = set(hx.features) | ({"bridge"} if p.bridge_added and hx.river else set())
        s = _replace_hex(s, hx.model_copy(update={"roads": True, "features": tuple(sorted(feats))}))
    return s


@on(E.SettlementFounded)
def _settlement_founded(s: KingdomState, p: E.SettlementFounded, turn: int) -> KingdomState:
    hx = _hex(s, p.hex_id)
    s = _replace_hex(s, hx.model_copy(update={"features": tuple(sorted(set(hx.features) | {"settlement"}))}))
    st = Settlement(id=p.id, name=p.name, hex=p.hex_id, capital=p.capital)
    return _up(s, settlements=(*s.settlements, st))


def _set_lots(st: Settlement, block: int, lots: list[int], value: str) -> Settlement:
    blocks = [list(b) for b in st.blocks]
    while len(blocks) <= block:
        blocks.append(["", "", "", ""])
    for i in lots:
        blocks[block][i] = value
    return st.model_copy(update={"blocks": tuple((b[0], b[1], b[2], b[3]) for b in blocks)})


def _stacking(f: E.StackingFacts | None) -> dict[str, Any]:
    """A built structure's recorded stacking facts (v1: none recorded, its numbers add up as they did)."""
    if f is None:
        return {}
    return {"edifice": f.edifice, "reduction_stacks": f.reduction_stacks, "item_bonus_stacks": f.item_bonus_stacks,
            "reduction_when": f.reduction_when}


@on(E.StructureBuilt)
def _built(s: KingdomState, p: E.StructureBuilt, turn: int) -> KingdomState:
    st = _settlement(s, p.settlement)
    structures = list(st.structures)
    if p.replaces:
        old = next((b for b in structures if b.name == p.replaces), None)
        if old is not None:
            structures.remove(old)
            st = _set_lots(st, old.block, list(old.lots), "")
    st = _set_lots(st, p.block, p.lots, p.structure)
    structures.append(BuiltStructure(name=p.structure, block=p.block, lots=tuple(p.lots), residential=p.residential,
                                     storage=dict(p.storage), seat=p.seat,
                                     consumption_reduction=p.consumption_reduction,
                                     item_bonuses=dict(p.item_bonuses), **_stacking(p.stacking)))
    unbuilt = list(st.paid_unbuilt)
    if p.structure in unbuilt:
        unbuilt.remove(p.structure)
    st = st.model_copy(update={"structures": tuple(structures), "paid_unbuilt": tuple(unbuilt)})
    s = _replace_settlement(s, st)
    return _up(s, structures_built_this_turn=(*s.structures_built_this_turn, p.structure))


@on(E.InfrastructureBuilt)
def _infra_built(s: KingdomState, p: E.InfrastructureBuilt, turn: int) -> KingdomState:
    st = _settlement(s, p.settlement)
    structures = list(st.structures)
    if p.replaces:
        old = next((b for b in structures if b.name == p.replaces and b.block == p.block and b.border == p.border
                    and not b.lots), None)
        if old is not None:
            structures.remove(old)
    structures.append(BuiltStructure(name=p.structure, block=p.block, lots=(), storage=dict(p.storage),
                                     consumption_reduction=p.consumption_reduction,
                                     item_bonuses=dict(p.item_bonuses), border=p.border, **_stacking(p.stacking)))
    unbuilt = list(st.paid_unbuilt)
    if p.structure in unbuilt:
        unbuilt.remove(p.structure)
    st = st.model_copy(update={"structures": tuple(structures), "paid_unbuilt": tuple(unbuilt)})
    s = _replace_settlement(s, st)
    return _up(s, structures_built_this_turn=(*s.structures_built_this_turn, p.structure))


@on(E.StructureNotBuilt)
def _not_built(s: KingdomState, p: E.StructureNotBuilt, turn: int) -> KingdomState:
    st = _settlement(s, p.settlement)
    if p.rubble:
        st = _set_lots(st, p.block, p.lots, "rubble")
    else:
        st = st.model_copy(update={"paid_unbuilt": (*st.paid_unbuilt, p.structure)})
    return _replace_settlement(s, st)


@on(E.LotsCleared)
def _cleared(s: KingdomState, p: E.LotsCleared, turn: int) -> KingdomState:
    st = _settlement(s, p.settlement)
    names = {st.blocks[p.block][i] for i in p.lots if p.block < len(st.blocks)}
    structures = tuple(b for b in st.structures if not (b.block == p.block and set(b.lots) & set(p.lots)))
    st = _set_lots(st, p.block, p.lots, "").model_copy(update={"structures": structures})
    del names
    return _replace_settlement(s, st)


@on(E.RandomEventChecked)
def _random_event(s: KingdomState, p: E.RandomEventChecked, turn: int) -> KingdomState:
    if p.table == "cult":
        flags = (*s.flags, "cult-event") if p.occurred and "cult-event" not in s.flags else s.flags
        return _up(s, cult_event_dc=p.new_dc, flags=flags, step="event")
    return _up(s, event_dc=p.new_dc, random_event_this_turn=p.occurred, step="event")


@on(E.KingdomEventOccurred)
def _event_occurred(s: KingdomState, p: E.KingdomEventOccurred, turn: int) -> KingdomState:
    if p.selection == "scheduled":
        return _up(s, events_due=(*s.events_due, DueEvent(name=p.name, settlement=p.settlement, hex=p.hex)))
    return _up(s, event_this_turn=p.name)


@on(E.KingdomEventResolved)
def _event_resolved(s: KingdomState, p: E.KingdomEventResolved, turn: int) -> KingdomState:
    due = list(s.events_due)
    hit = next((d for d in due if d.name == p.name), None)
    if hit is not None:
        due.remove(hit)
        s = _up(s, events_due=tuple(due))
    ongoing = tuple(e for e in s.ongoing_events if e.name != p.name)
    if p.continues:
        old = next((e for e in s.ongoing_events if e.name == p.name), None)
        ongoing = (*ongoing, OngoingEvent(name=p.name, unrest_per_turn=p.unrest_per_turn,
                                          consumption_delta=p.consumption_delta,
                                          since_turn=old.since_turn if old is not None else turn, stage=p.stage,
                                          failures=p.failures, settlement=p.settlement, hex=p.hex))
    return _up(s, ongoing_events=ongoing)


@on(E.XPAwarded)
def _xp(s: KingdomState, p: E.XPAwarded, turn: int) -> KingdomState:
    if p.to_pending:
        return _up(s, xp_pending=s.xp_pending + p.amount)
    return _up(s, xp=s.xp + p.amount)


@on(E.XPApplied)
def _xp_applied(s: KingdomState, p: E.XPApplied, turn: int) -> KingdomState:
    return _up(s, xp=s.xp + p.amount, xp_pending=0)


@on(E.MilestoneAchieved)
def _milestone(s: KingdomState, p: E.MilestoneAchieved, turn: int) -> KingdomState:
    return _up(s, xp=s.xp + p.xp, milestones=(*s.milestones, p.milestone))


@on(E.RPConverted)
def _rp_converted(s: KingdomState, p: E.RPConverted, turn: int) -> KingdomState:
    return _up(s, xp=s.xp + p.xp, rp=0)


@on(E.LeveledUp)
def _leveled(s: KingdomState, p: E.LeveledUp, turn: int) -> KingdomState:
    upd: dict[str, Any] = {"level": p.level_to, "xp": s.xp - R.XP_PER_LEVEL, "leveled_this_turn": True}
    if p.ruin_resistance:
        r = s.ruin[p.ruin_resistance]
        inc = T.core().ruin_resistance_increase
        upd["ruin"] = {**s.ruin, p.ruin_resistance: r.model_copy(update={"threshold": r.threshold + inc,
                                                                           "penalty": 0})}
        upd["ruin_resistance_used"] = s.ruin_resistance_used + 1
    skills = dict(s.skills)
    if p.skill_increase:
        cur = skills.get(p.skill_increase, "untrained")
        skills[p.skill_increase] = T.RANKS[min(4, T.RANKS.index(cur) + 1)]
    if p.feat_skill:
        skills[p.feat_skill] = "trained" if skills.get(p.feat_skill, "untrained") == "untrained" else skills[
            p.feat_skill]
    upd["skills"] = skills
    if p.feat:
        upd["feats"] = (*s.feats, p.feat)
    if p.boosts:
        scores = dict(s.scores)
        for a in p.boosts:
            scores[a] = R.boosted(scores[a])
        upd["scores"] = scores
    # v2: what the level set, as recorded
    if p.scores_after is not None:
        upd["scores"] = dict(p.scores_after)
    if p.skills_after is not None:
        upd["skills"] = {k: v for k, v in p.skills_after.items() if v != "untrained"}
    if p.thresholds_after is not None:
        ruins = upd.get("ruin", s.ruin)
        upd["ruin"] = {r: ru.model_copy(update={"threshold": int(p.thresholds_after.get(r, ru.threshold))})
                       for r, ru in ruins.items()}
    if p.feat and p.feat_choice:
        # a repeatable feat (Kingdom Assurance) adds its choice to the earlier ones
        prior = s.feat_choices.get(p.feat, ()) if p.feat in s.feats else ()
        upd["feat_choices"] = {**s.feat_choices, p.feat: tuple(dict.fromkeys((*prior, *p.feat_choice)))}
    return _up(s, **upd)


@on(E.RelationsChanged)
def _relations(s: KingdomState, p: E.RelationsChanged, turn: int) -> KingdomState:
    field = "trade_agreements" if p.kind == "trade_agreement" else "diplomatic_relations"
    cur = [g for g in getattr(s, field) if g != p.group]
    if p.added:
        cur.append(p.group)
    return _up(s, **{field: tuple(cur)})


@on(E.WarStatusChanged)
def _war(s: KingdomState, p: E.WarStatusChanged, turn: int) -> KingdomState:
    return _up(s, at_war=p.at_war)


@on(E.ArmyChanged)
def _army(s: KingdomState, p: E.ArmyChanged, turn: int) -> KingdomState:
    armies = dict(s.armies)
    if p.consumption is None:
        armies.pop(p.army, None)
    else:
        armies[p.army] = p.consumption
    return _up(s, armies=armies)


@on(E.TreasuryDebtChanged)
def _debt(s: KingdomState, p: E.TreasuryDebtChanged, turn: int) -> KingdomState:
    return _up(s, treasury_debt=p.outstanding)


@on(E.CropFailureWatch)
def _crop(s: KingdomState, p: E.CropFailureWatch, turn: int) -> KingdomState:
    watch = dict(s.crop_failure_watch)
    if p.turns <= 0:
        watch.pop(p.hex_id, None)
    else:
        watch[p.hex_id] = p.turns
    return _up(s, crop_failure_watch=watch)


@on(E.ExtraActivityGranted)
def _extra(s: KingdomState, p: E.ExtraActivityGranted, turn: int) -> KingdomState:
    fav = s.favored_land_uses + (1 if p.cause == "favored-land" else 0)
    return _up(s, extra_region=s.extra_region + 1, favored_land_uses=fav)


@on(E.FeatureUsed)
def _feature_used(s: KingdomState, p: E.FeatureUsed, turn: int) -> KingdomState:
    hx = _hex(s, p.hex_id)
    return _replace_hex(s, hx.model_copy(update={"features": tuple(f for f in hx.features if f != p.feature)}))


@on(E.GainIgnored)
def _ignored(s: KingdomState, p: E.GainIgnored, turn: int) -> KingdomState:
    return _up(s, envy_used=True)


@on(E.TurnEnded)
def _turn_ended(s: KingdomState, p: E.TurnEnded, turn: int) -> KingdomState:
    mods = []
    for m in s.modifiers:
        if m.expires in ("end_of_this_turn", "once"):
            continue
        if m.expires == "end_of_next_turn":
            m = m.model_copy(update={"expires": "end_of_this_turn"})
        mods.append(m)
    boons = tuple(b.model_copy(update={"expires": "end_of_this_turn"}) if b.expires == "end_of_next_turn" else b
                  for b in s.boons if b.expires not in ("end_of_this_turn", "once"))
    return _up(s, fame=0, modifiers=tuple(mods), used_last_turn=s.used_this_turn, used_this_turn=(),
               step="ended", boons=boons)


@on(E.ModifierRemoved)
def _modifier_removed(s: KingdomState, p: E.ModifierRemoved, turn: int) -> KingdomState:
    return _up(s, modifiers=tuple(m for m in s.modifiers if m.id != p.id))


def _structure_at(st: Settlement, name: str, block: int, border: str) -> BuiltStructure:
    for b in st.structures:
        if b.name == name and (b.block == block or (block < 0 and not b.lots)) and b.border == border:
            return b
    for b in st.structures:
        if b.name == name:
            return b
    raise _Missing(f"structure {name!r} in settlement {st.id!r}")


def _set_structure(s: KingdomState, st: Settlement, old: BuiltStructure, new: BuiltStructure) -> KingdomState:
    structures = tuple(new if b is old else b for b in st.structures)
    return _replace_settlement(s, st.model_copy(update={"structures": structures}))


@on(E.StructureDamaged)
def _damaged(s: KingdomState, p: E.StructureDamaged, turn: int) -> KingdomState:
    st = _settlement(s, p.settlement)
    b = _structure_at(st, p.structure, p.block, p.border)
    return _set_structure(s, st, b, b.model_copy(update={"damaged": True}))


@on(E.StructureRepaired)
def _repaired(s: KingdomState, p: E.StructureRepaired, turn: int) -> KingdomState:
    st = _settlement(s, p.settlement)
    b = _structure_at(st, p.structure, p.block, p.border)
    return _set_structure(s, st, b, b.model_copy(update={"damaged": False}))


@on(E.LotsRubbled)
def _rubbled(s: KingdomState, p: E.LotsRubbled, turn: int) -> KingdomState:
    st = _settlement(s, p.settlement)
    hit = [b for b in st.structures if b.lots and b.block == p.block and set(b.lots) & set(p.lots)]
    for b in hit:  # a structure standing on a rubbled lot is destroyed; its other lots are free again
        st = _set_lots(st, b.block, [i for i in b.lots if i not in p.lots], "")
    structures = tuple(b for b in st.structures if b not in hit)
    st = _set_lots(st, p.block, p.lots, "rubble").model_copy(update={"structures": structures})
    return _replace_settlement(s, st)


@on(E.RuinThresholdChanged)
def _threshold(s: KingdomState, p: E.RuinThresholdChanged, turn: int) -> KingdomState:
    r = s.ruin[p.ruin]
    return _up(s, ruin={**s.ruin, p.ruin: r.model_copy(update={"threshold": p.threshold_after})})


@on(E.DegreeChanged)
def _degree_changed(s: KingdomState, p: E.DegreeChanged, turn: int) -> KingdomState:
    return s


@on(E.GMRuling)
def _gm_ruling(s: KingdomState, p: E.GMRuling, turn: int) -> KingdomState:
    return s


@on(E.FlagSet)
def _flag(s: KingdomState, p: E.FlagSet, turn: int) -> KingdomState:
    return s if p.flag in s.flags else _up(s, flags=(*s.flags, p.flag))


@on(E.CounterSet)
def _counter(s: KingdomState, p: E.CounterSet, turn: int) -> KingdomState:
    counters = dict(s.counters)
    if p.value:
        counters[p.name] = p.value
    else:
        counters.pop(p.name, None)
    return _up(s, counters=counters)


@on(E.FeatChoiceMade)
def _feat_choice(s: KingdomState, p: E.FeatChoiceMade, turn: int) -> KingdomState:
    return _up(s, feat_choices={**s.feat_choices, p.feat: tuple(p.choice)})


@on(E.BoonGained)
def _boon(s: KingdomState, p: E.BoonGained, turn: int) -> KingdomState:
    b = p.boon
    return _up(s, boons=(*s.boons, Boon(id=b.id, source=b.source, kind=b.kind, value=b.value, type=b.type,
                                        selector=b.selector, skill=b.skill, xp=b.xp, expires=b.expires)))


@on(E.BoonLapsed)
def _boon_lapsed(s: KingdomState, p: E.BoonLapsed, turn: int) -> KingdomState:
    s = _up(s, boons=tuple(b for b in s.boons if b.id != p.id))
    return _up(s, xp=s.xp + p.xp) if p.xp else s


@on(E.HexChanged)
def _hex_changed(s: KingdomState, p: E.HexChanged, turn: int) -> KingdomState:
    hx = _hex(s, p.hex_id)
    features = (set(hx.features) | set(p.add_features)) - set(p.remove_features)
    upd: dict[str, Any] = {}
    if p.remove_work_site:
        upd["work_site"] = None
        features.discard("work_site")
    if p.remove_roads:
        upd["roads"] = False
    if "farmland" in p.remove_features:
        upd.update(farmland_of="", farmland_distance=0)
    for name in ("river", "lake", "fortified", "failed_irrigation"):
        if getattr(p, name) is not None:
            upd[name] = getattr(p, name)
    upd["features"] = tuple(sorted(features))
    return _replace_hex(s, hx.model_copy(update=upd))


@on(E.CapitalMoved)
def _capital_moved(s: KingdomState, p: E.CapitalMoved, turn: int) -> KingdomState:
    _settlement(s, p.settlement)
    return _up(s, settlements=tuple(st.model_copy(update={"capital": st.id == p.settlement})
                                    for st in s.settlements))


@on(E.EventScheduled)
def _scheduled(s: KingdomState, p: E.EventScheduled, turn: int) -> KingdomState:
    w = EventWatch(id=p.id, event=p.event, dc=p.dc, turn=p.turn, cause=p.cause, hex=p.hex, settlement=p.settlement)
    return _up(s, event_watch=(*s.event_watch, w))


@on(E.EventWatchCleared)
def _watch_cleared(s: KingdomState, p: E.EventWatchCleared, turn: int) -> KingdomState:
    return _up(s, event_watch=tuple(w for w in s.event_watch if w.id != p.id))


@on(E.ArmyRecruited)
def _army_recruited(s: KingdomState, p: E.ArmyRecruited, turn: int) -> KingdomState:
    a = p.army
    unit = Army(**{**a.model_dump(), "tactics": tuple(a.tactics)})
    return _up(s, army_units=(*tuple(x for x in s.army_units if x.id != a.id), unit))


def _army_of(s: KingdomState, aid: str) -> Army:
    for a in s.army_units:
        if a.id == aid:
            return a
    raise _Missing(f"army {aid!r}")


@on(E.ArmyUpdated)
def _army_updated(s: KingdomState, p: E.ArmyUpdated, turn: int) -> KingdomState:
    a = _army_of(s, p.army)
    upd: dict[str, Any] = {k: (tuple(v) if k == "tactics" and isinstance(v, list) else v) for k, v in p.set.items()}
    conditions = dict(a.conditions)
    for name, v in p.conditions.items():
        if v:
            conditions[name] = v
        else:
            conditions.pop(name, None)
    upd["conditions"] = conditions
    new = a.model_copy(update=upd)
    return _up(s, army_units=tuple(new if x.id == a.id else x for x in s.army_units))


@on(E.ArmyRemoved)
def _army_removed(s: KingdomState, p: E.ArmyRemoved, turn: int) -> KingdomState:
    _army_of(s, p.army)
    return _up(s, army_units=tuple(x for x in s.army_units if x.id != p.army))


@on(E.WarDeclared)
def _war_declared(s: KingdomState, p: E.WarDeclared, turn: int) -> KingdomState:
    enemies = s.enemies if p.enemy in s.enemies else (*s.enemies, p.enemy)
    return _up(s, enemies=enemies, at_war=True)


@on(E.WarEnded)
def _war_ended(s: KingdomState, p: E.WarEnded, turn: int) -> KingdomState:
    enemies = tuple(e for e in s.enemies if e != p.enemy)
    return _up(s, enemies=enemies, at_war=bool(enemies))


@on(E.BattleStarted)
def _battle_started(s: KingdomState, p: E.BattleStarted, turn: int) -> KingdomState:
    return s


@on(E.WarActionTaken)
def _war_action(s: KingdomState, p: E.WarActionTaken, turn: int) -> KingdomState:
    return s


@on(E.BattleEnded)
def _battle_ended(s: KingdomState, p: E.BattleEnded, turn: int) -> KingdomState:
    return s
