"""``evolve``: fold one recorded PF1 event into the state (pure, never mutates its input).

Handlers are registered per payload class in a ``core.dispatch.Handlers``; each applies the
recorded facts of its event. Comparing them with today's rules is ``audit`` (module
:mod:`~kingdomlog.rulesets.pf1.audit`), never a reason to refuse a log.

The state's fields are set through ``_u`` (``core.working.update``): a new state, or in a fold of
many events the fold's private working copy set in place; so a handler goes on with the state ``_u``
returned, never with the one it passed in (``tests/test_working_fold.py`` folds every stream both ways).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kingdomlog.core.dispatch import Handlers
from kingdomlog.core.errors import CorruptLogError
from kingdomlog.core.events import EventModel, RecordedEvent
from kingdomlog.core.working import update
from kingdomlog.rulesets.pf1 import events as ev
from kingdomlog.rulesets.pf1.state import (
    Building,
    City,
    Counters,
    District,
    Edicts,
    Expedition,
    ForeignKingdom,
    Hex,
    Lineage,
    MagicSlot,
    Occupant,
    OngoingEvent,
    Pf1State,
    Relation,
    TimedModifier,
    TradeRoute,
    Vassal,
)

Handler = Callable[[Pf1State, Any, RecordedEvent], Pf1State]
STEP_ORDER = {"founding": 0, "gm": 1, "upkeep": 2, "improvement": 3, "war": 4, "income": 5, "event": 6}
_HANDLERS: Handlers[Handler] = Handlers()
on = _HANDLERS.on


def evolve(state: Pf1State, event: RecordedEvent) -> Pf1State:
    """Apply what ``event`` recorded; an unknown ``pf1.`` type is a ``CorruptLogError`` naming the seq.

    The recorded outcomes (totals, successes, deltas, costs) are applied as they are: nothing
    here re-derives or re-checks them with today's rules (that is ``audit``). Two faults of the
    log itself are still refused: a recorded die face that does not fit its die (a d20 of 23),
    and an event recorded in an earlier step of the turn than one already applied (base §4.0,
    steps run in order).
    """
    fn = _HANDLERS.get(event.payload)
    if fn is None:
        raise CorruptLogError(f"pf1 cannot apply event type {event.type!r}", seq=event.seq)
    bad = bad_faces(event.payload)
    if bad:
        raise CorruptLogError(f"{event.type}: recorded {bad}", seq=event.seq)
    order = STEP_ORDER.get(event.phase or "")
    if order is not None and not isinstance(event.payload, (ev.TurnStarted, ev.KingdomFounded)):
        cur = STEP_ORDER.get(state.phase.lower())
        if cur is not None and order < cur:
            raise CorruptLogError(f"{event.type} is recorded in step {event.phase!r} after step "
                                  f"{state.phase.lower()!r} of turn {state.turn} (steps run in order, base §4.0)",
                                  seq=event.seq)
    out = fn(state, event.payload, event)
    if order is not None and out.phase != "TURN_ENDED":
        out = update(out, phase=event.phase.upper() if event.phase else out.phase)
    if out.unrest >= 20 and not out.anarchy:
        out = update(out, anarchy=True)  # base §4.0: anarchy at once
    return out


def _faces(label: str, faces: tuple[int, ...], sides: int) -> str | None:
    wrong = [f for f in faces if not 1 <= f <= sides]
    return f"{label} face(s) {wrong} outside 1..{sides}" if wrong else None


def bad_faces(p: EventModel) -> str | None:
    """What recorded die face does not fit its die, or None (the notation of each roll is fixed by its event)."""
    found: list[str | None] = []
    for name in ("check", "stability", "loyalty_check", "stealth"):
        c = getattr(p, name, None)
        if isinstance(c, (ev.KCheck, ev.SkillCheck)):
            found.append(_faces(f"{name} d20", (c.d20,), 20))
    for name in ("checks",):
        for c in getattr(p, name, ()) or ():
            if isinstance(c, (ev.KCheck, ev.SkillCheck)):
                found.append(_faces("check d20", (c.d20,), 20))
    for o in getattr(p, "opposed", ()) or ():
        found.append(_faces(f"opposed {o.skill} d20", (*o.ours, *o.theirs), 20))
    if isinstance(p, (ev.EventChanceRolled, ev.KingdomEventDrawn, ev.MagicItemSlotFilled)) and p.d100 is not None:
        found.append(_faces("d100", (p.d100,), 100))
    if isinstance(p, ev.StabilityCheckRolled):
        found.append(_faces("extra 1d4", p.extra_dice, 4))
    if isinstance(p, ev.TownAnnexationCheckRolled):
        found.append(_faces("2d4 Unrest", p.unrest_dice, 4))
    if isinstance(p, ev.RelationActionResolved):
        found.append(_faces("Infamy/Unrest dice", (*p.infamy_dice, *p.unrest_dice), 4))
    if isinstance(p, ev.TradeExpeditionArrived):
        found.append(_faces("payout dice", tuple(f for r in p.payout_rolls for f in r), 4))
    if isinstance(p, ev.SubjugationCheckRolled) and p.unrest_roll is not None:
        found.append(_faces("1d4 Unrest", (p.unrest_roll,), 4))
    if isinstance(p, ev.TemporaryModifierApplied):
        found.append(_faces("1d4", p.roll, 4))
    if isinstance(p, ev.DiplomaticEdictResolved):
        found.append(_faces("2d6 estimate", p.estimate_roll, 6))
    if isinstance(p, (ev.DiplomaticEdictResolved, ev.VassalageEdictIssued)):
        found.append(_faces("1d4 cost", (p.cost_roll,), 4))
    if isinstance(p, ev.BuildingSupportLost) and p.d3 is not None:
        found.append(_faces("1d3", (p.d3,), 3))
    msgs = [m for m in found if m]
    return "; ".join(msgs) or None


def _u(s: Pf1State, **kw: Any) -> Pf1State:
    return update(s, **kw)


def _serial(s: Pf1State, ident: str) -> dict[str, int]:
    """Remember the number of a new id (``B12`` -> B: 12) so ids are never reused."""
    prefix, num = ident[:1], ident[1:]
    out = dict(s.serials)
    if num.isdigit():
        out[prefix] = max(out.get(prefix, 0), int(num))
    return out


def _unrest(s: Pf1State, delta: int) -> int:
    return max(0, s.unrest + delta)


def _hex(s: Pf1State, hex_id: str, **kw: Any) -> Pf1State:
    h = s.hexes[hex_id]
    return _u(s, hexes={**s.hexes, hex_id: h.model_copy(update=kw)})


def _bld(s: Pf1State, bid: str, **kw: Any) -> Pf1State:
    b = s.buildings[bid]
    return _u(s, buildings={**s.buildings, bid: b.model_copy(update=kw)})


# ------------------------------------------------------------------ setup


@on(ev.KingdomImported)
def _imported(s: Pf1State, p: ev.KingdomImported, e: RecordedEvent) -> Pf1State:
    """The imported kingdom as recorded: its fields replace the state's, the campaign's own stay."""
    k = Pf1State.model_validate({**p.kingdom, "campaign": s.campaign, "options": s.options, "catalog": s.catalog,
                                 "modules": s.modules})
    kept = {name: getattr(k, name) for name in Pf1State.model_fields if name not in ev.KINGDOM_NOT_IMPORTED}
    return _u(s, **{**kept, "founded": True})


@on(ev.KingdomFounded)
def _founded(s: Pf1State, p: ev.KingdomFounded, e: RecordedEvent) -> Pf1State:
    return _u(s, founded=True, name=p.name, alignment=p.alignment, treasury=p.starting_treasury_bp,
              government=p.government,
              fame_ledger=1 if p.starting_renown == "fame" else 0,
              infamy_ledger=1 if p.starting_renown == "infamy" else 0)


@on(ev.HexMapped)
def _mapped(s: Pf1State, p: ev.HexMapped, e: RecordedEvent) -> Pf1State:
    old = s.hexes.get(p.hex)
    h = Hex(id=p.hex, q=p.q, r=p.r, terrain=p.terrain, river=p.river, features=p.features)
    if old is not None:
        h = old.model_copy(update={"terrain": p.terrain, "river": p.river, "features": p.features})
    return _u(s, hexes={**s.hexes, p.hex: h})


@on(ev.HexExplored)
def _explored(s: Pf1State, p: ev.HexExplored, e: RecordedEvent) -> Pf1State:
    return _hex(s, p.hex, explored=True)


@on(ev.HexCleared)
def _cleared(s: Pf1State, p: ev.HexCleared, e: RecordedEvent) -> Pf1State:
    return _hex(s, p.hex, cleared=True)


@on(ev.AlignmentChanged)
def _align(s: Pf1State, p: ev.AlignmentChanged, e: RecordedEvent) -> Pf1State:
    return _u(s, alignment=p.after)


@on(ev.TurnStarted)
def _turn(s: Pf1State, p: ev.TurnStarted, e: RecordedEvent) -> Pf1State:
    keep = tuple(m for m in s.modifiers if m.last_turn is None or m.last_turn >= p.turn)
    return _u(s, turn=p.turn, phase="GM", counters=Counters(), modifiers=keep, withdrawals=0)


@on(ev.PhaseSkipped)
def _skipped(s: Pf1State, p: ev.PhaseSkipped, e: RecordedEvent) -> Pf1State:
    return s


@on(ev.TurnEnded)
def _ended(s: Pf1State, p: ev.TurnEnded, e: RecordedEvent) -> Pf1State:
    return _u(s, phase="TURN_ENDED")


# ------------------------------------------------------------------ leaders


@on(ev.LeaderAssigned)
def _assign(s: Pf1State, p: ev.LeaderAssigned, e: RecordedEvent) -> Pf1State:
    same = next((o.foundry_id for os in s.leaders.values() for o in os if o.name == p.name and o.foundry_id), "")
    occ = Occupant(name=p.name, ability=p.ability, modifier=p.modifier, attributes=p.attributes,
                   present=p.present, skill_ranks=p.skill_ranks, leadership_feat=p.leadership_feat, foundry_id=same)
    # a character holds one role (co-rulers excepted): drop them from any other role
    leaders = {r: tuple(o for o in os if o.name != p.name) for r, os in s.leaders.items()}
    current = leaders.get(p.role, ())
    leaders[p.role] = (*current, occ) if p.co_ruler else (occ,)
    return _u(s, leaders={r: os for r, os in leaders.items() if os})


@on(ev.Named)
def _named(s: Pf1State, p: ev.Named, e: RecordedEvent) -> Pf1State:
    if p.what == "city":
        city = s.cities.get(p.id)
        if city is None:
            raise KeyError(f"city {p.id!r}")
        return _u(s, cities={**s.cities, p.id: city.model_copy(update={"name": p.name})})
    if not any(o.foundry_id == p.id for occ in s.leaders.values() for o in occ):
        raise KeyError(f"leader {p.id!r}")
    return _u(s, leaders={r: tuple(o.model_copy(update={"name": p.name}) if o.foundry_id == p.id else o for o in occ)
                          for r, occ in s.leaders.items()})


@on(ev.LeaderUnassigned)
def _unassign(s: Pf1State, p: ev.LeaderUnassigned, e: RecordedEvent) -> Pf1State:
    leaders = dict(s.leaders)
    rest = tuple(o for o in leaders.get(p.role, ()) if o.name != p.name)
    if rest:
        leaders[p.role] = rest
    else:
        leaders.pop(p.role, None)
    return _u(s, leaders=leaders)


@on(ev.LeaderPresenceRecorded)
def _presence(s: Pf1State, p: ev.LeaderPresenceRecorded, e: RecordedEvent) -> Pf1State:
    occ = tuple(o.model_copy(update={"present": p.present}) if o.name == p.name else o
                for o in s.leaders.get(p.role, ()))
    return _u(s, leaders={**s.leaders, p.role: occ})


@on(ev.LeaderSkillRanksRecorded)
def _ranks(s: Pf1State, p: ev.LeaderSkillRanksRecorded, e: RecordedEvent) -> Pf1State:
    occ = tuple(o.model_copy(update={"skill_ranks": p.ranks, "leadership_feat": p.leadership_feat})
                if o.name == p.name else o for o in s.leaders.get(p.role, ()))
    return _u(s, leaders={**s.leaders, p.role: occ})


# ------------------------------------------------------------------ upkeep


@on(ev.StabilityCheckRolled)
def _stab(s: Pf1State, p: ev.StabilityCheckRolled, e: RecordedEvent) -> Pf1State:
    return _u(s, unrest=_unrest(s, p.unrest_delta), treasury=s.treasury + p.treasury_delta)


@on(ev.ConsumptionPaid)
def _cons(s: Pf1State, p: ev.ConsumptionPaid, e: RecordedEvent) -> Pf1State:
    return _u(s, treasury=p.treasury_after, unrest=_unrest(s, p.unrest_delta))


@on(ev.MagicItemSlotFilled)
def _slot(s: Pf1State, p: ev.MagicItemSlotFilled, e: RecordedEvent) -> Pf1State:
    b = s.buildings[p.building]
    slots = list(b.slots)
    slots[p.slot] = MagicSlot(category=p.category, item=p.item, price_gp=p.price_gp)
    return _bld(s, p.building, slots=tuple(slots))


@on(ev.MagicItemPurchased)
def _bought(s: Pf1State, p: ev.MagicItemPurchased, e: RecordedEvent) -> Pf1State:
    b = s.buildings[p.building]
    slots = list(b.slots)
    slots[p.slot] = MagicSlot(category=slots[p.slot].category)
    return _bld(s, p.building, slots=tuple(slots))


@on(ev.VacancyUnrestApplied)
def _vac(s: Pf1State, p: ev.VacancyUnrestApplied, e: RecordedEvent) -> Pf1State:
    return _u(s, unrest=_unrest(s, p.unrest_delta))


@on(ev.NegativeAttributeUnrestApplied)
def _neg(s: Pf1State, p: ev.NegativeAttributeUnrestApplied, e: RecordedEvent) -> Pf1State:
    return _u(s, unrest=_unrest(s, p.unrest_delta))


def _lose_hex(s: Pf1State, hex_id: str) -> Pf1State:
    h = s.hexes[hex_id]
    cities = dict(s.cities)
    if h.city:
        cities[h.city] = cities[h.city].model_copy(update={"detached": True})
    s = _u(s, cities=cities)
    return _hex(s, hex_id, claimed=False, road=False, improvement=None, extras=())


@on(ev.HexLostToUnrest)
def _lost(s: Pf1State, p: ev.HexLostToUnrest, e: RecordedEvent) -> Pf1State:
    return _lose_hex(s, p.hex)


@on(ev.AnarchyBegan)
def _anarchy(s: Pf1State, p: ev.AnarchyBegan, e: RecordedEvent) -> Pf1State:
    return _u(s, anarchy=True)


@on(ev.AnarchyEnded)
def _anarchy_end(s: Pf1State, p: ev.AnarchyEnded, e: RecordedEvent) -> Pf1State:
    return _u(s, anarchy=False, unrest=p.unrest_after)


@on(ev.ActingRulerNamed)
def _acting(s: Pf1State, p: ev.ActingRulerNamed, e: RecordedEvent) -> Pf1State:
    return _u(s, acting_ruler=p.role)


@on(ev.ActingRulerCheckRolled)
def _acting_check(s: Pf1State, p: ev.ActingRulerCheckRolled, e: RecordedEvent) -> Pf1State:
    return _u(s, unrest=_unrest(s, p.unrest_delta))


@on(ev.RoyalEnforcerActed)
def _enforcer(s: Pf1State, p: ev.RoyalEnforcerActed, e: RecordedEvent) -> Pf1State:
    s = _u(s, unrest=_unrest(s, p.unrest_delta))
    if p.loyalty_delta:
        m = TimedModifier(attribute="LOYALTY", value=p.loyalty_delta, source="Royal Enforcer's failed Loyalty check",
                          first_turn=e.turn)
        s = _u(s, modifiers=(*s.modifiers, m))
    return s


@on(ev.RoyalAssassinActed)
def _ra(s: Pf1State, p: ev.RoyalAssassinActed, e: RecordedEvent) -> Pf1State:
    return _u(s, unrest=_unrest(s, p.unrest_delta))


# ------------------------------------------------------------------ improvement


@on(ev.DistrictReady)
def _ready(s: Pf1State, p: ev.DistrictReady, e: RecordedEvent) -> Pf1State:
    d = s.districts[p.district]
    borders = p.borders or {k: "LAND" for k in ("N", "E", "S", "W")}
    return _u(s, districts={**s.districts, p.district: d.model_copy(update={"status": "READY", "borders": borders})})


def _count(s: Pf1State, **kw: int) -> Counters:
    c = s.counters
    return c.model_copy(update={k: getattr(c, k) + v for k, v in kw.items()})


@on(ev.HexClaimed)
def _claim(s: Pf1State, p: ev.HexClaimed, e: RecordedEvent) -> Pf1State:
    s = _u(s, treasury=s.treasury - p.cost_bp, counters=_count(s, claims=1))
    h = s.hexes[p.hex]
    s = _hex(s, p.hex, claimed=True)
    if h.city and h.city in s.cities:  # a detached city comes back with its hex
        s = _u(s, cities={**s.cities, h.city: s.cities[h.city].model_copy(update={"detached": False})})
    return s


@on(ev.TownAnnexationCheckRolled)
def _town(s: Pf1State, p: ev.TownAnnexationCheckRolled, e: RecordedEvent) -> Pf1State:
    return _u(s, unrest=_unrest(s, p.unrest_delta))


@on(ev.HexAbandoned)
def _abandon(s: Pf1State, p: ev.HexAbandoned, e: RecordedEvent) -> Pf1State:
    s = _lose_hex(s, p.hex)
    return _u(s, unrest=_unrest(s, p.unrest_delta))


@on(ev.CityFounded)
def _city(s: Pf1State, p: ev.CityFounded, e: RecordedEvent) -> Pf1State:
    c = City(id=p.city, name=p.name, hex=p.hex, capital=p.capital,
             base_danger=int(s.opt("base_danger_default")))
    s = _u(s, cities={**s.cities, p.city: c}, serials=_serial(s, p.city))
    return _hex(s, p.hex, city=p.city)


@on(ev.DistrictPreparationStarted)
def _prep(s: Pf1State, p: ev.DistrictPreparationStarted, e: RecordedEvent) -> Pf1State:
    d = District(id=p.district, city=p.city, hex=p.hex, status="PREPARING", ready_on_turn=p.ready_on_turn)
    c = s.cities[p.city]
    return _u(s, treasury=s.treasury - p.cost_bp, counters=_count(s, districts=1), serials=_serial(s, p.district),
              districts={**s.districts, p.district: d},
              cities={**s.cities, p.city: c.model_copy(update={"districts": (*c.districts, p.district)})})


@on(ev.BuildingConstructed)
def _build(s: Pf1State, p: ev.BuildingConstructed, e: RecordedEvent) -> Pf1State:
    t = s.catalog.building(p.building_type)
    if p.slots is not None:
        slots = tuple(MagicSlot(category=cat) for cat in p.slots)
    else:  # a v1 event: the catalogue's slots
        slots = tuple(MagicSlot(category=cat) for cat in ("minor", "medium", "major")
                      for _ in range(getattr(t.slots, cat)))
    b = Building(id=p.building, type=t.name, city=p.city, district=p.district, lots=p.lots, border=p.border,
                 built_turn=e.turn, deity=p.deity, slots=slots, supported_by=p.supported_by)
    blds = {**s.buildings, p.building: b}
    for sup in p.supported_by:
        blds[sup] = blds[sup].model_copy(update={"supports": p.building})
    if p.supports and p.supports in blds:  # a replacement supporter (optional §2.1 step 5)
        dep = blds[p.supports]
        upd: dict[str, Any] = {"supported_by": (*dep.supported_by, p.building)}
        if dep.occupancy == "abandoned":
            upd["reactivation_from_turn"] = e.turn + 1
        blds[p.supports] = dep.model_copy(update=upd)
        blds[p.building] = blds[p.building].model_copy(update={"supports": p.supports})
    city = s.cities[p.city]
    used = city.discounts_used
    for d in p.discounts:
        if d.kind == "HALVED_BY":
            used = (*used, t.name)
    districts = dict(s.districts)
    if p.border:
        dist = districts[p.district]
        districts[p.district] = dist.model_copy(update={"walls": (*dist.walls, p.border)})
    counters = s.counters if p.free else _count(s, free_house=1) if p.uncounted else _count(s, buildings=1)
    rubble = list(s.rubble)
    if any(d.kind == "REBUILD" for d in p.discounts) and f"{p.district}|{t.name}" in rubble:
        rubble.remove(f"{p.district}|{t.name}")
    return _u(s, buildings=blds, treasury=s.treasury - p.cost_bp, unrest=_unrest(s, p.unrest_delta),
              rubble=tuple(rubble), counters=counters, districts=districts, serials=_serial(s, p.building),
              cities={**s.cities, p.city: city.model_copy(update={"discounts_used": used})})


@on(ev.BuildingUpgraded)
def _upgraded(s: Pf1State, p: ev.BuildingUpgraded, e: RecordedEvent) -> Pf1State:
    b = s.buildings[p.building]
    old = {i: sl for i, sl in enumerate(b.slots)}
    slots = tuple(old[i] if i in old and old[i].category == cat else MagicSlot(category=cat)
                  for i, cat in enumerate(p.slots))
    s = _bld(s, p.building, type=p.to_type, lots=p.lots, slots=slots)
    return _u(s, treasury=s.treasury - p.cost_bp, unrest=_unrest(s, p.unrest_delta), counters=_count(s, buildings=1))


@on(ev.BuildingDemolished)
def _demolish(s: Pf1State, p: ev.BuildingDemolished, e: RecordedEvent) -> Pf1State:
    blds = dict(s.buildings)
    gone = blds.pop(p.building)
    for k, b in list(blds.items()):
        upd: dict[str, Any] = {}
        if b.supports == p.building:
            upd["supports"] = None
        if p.building in b.supported_by:
            upd["supported_by"] = tuple(x for x in b.supported_by if x != p.building)
        if upd:
            blds[k] = b.model_copy(update=upd)
    districts = dict(s.districts)
    if gone.border:
        d = districts[gone.district]
        districts[gone.district] = d.model_copy(update={"walls": tuple(w for w in d.walls if w != gone.border)})
    return _u(s, buildings=blds, districts=districts, counters=_count(s, buildings=1))


@on(ev.LotsDestroyed)
def _destroyed(s: Pf1State, p: ev.LotsDestroyed, e: RecordedEvent) -> Pf1State:
    rubble = s.rubble + tuple(f"{p.district}|{s.buildings[b].type}" for b in p.buildings)
    s = _u(s, rubble=rubble)
    for bid in p.buildings:
        s = _demolish(s, ev.BuildingDemolished(building=bid), e)
        s = _u(s, counters=_count(s, buildings=-1))
    return _u(s, unrest=_unrest(s, p.unrest_delta))


@on(ev.RoadBuilt)
def _road(s: Pf1State, p: ev.RoadBuilt, e: RecordedEvent) -> Pf1State:
    s = _u(s, treasury=s.treasury - p.cost_bp, counters=_count(s, terrain=1))
    return _hex(s, p.hex, road=True)


@on(ev.HexImprovementBuilt)
def _improve(s: Pf1State, p: ev.HexImprovementBuilt, e: RecordedEvent) -> Pf1State:
    s = _u(s, treasury=s.treasury - p.cost_bp, counters=_count(s, terrain=1), unrest=_unrest(s, p.unrest_delta))
    h = s.hexes[p.hex]
    extras = tuple(x for x in h.extras if x != p.replaces)
    improvement = None if h.improvement == p.replaces else h.improvement
    if p.shared:
        return _hex(s, p.hex, extras=(*extras, p.kind), improvement=improvement)
    return _hex(s, p.hex, improvement=p.kind, extras=extras)


@on(ev.TerrainIncomeCollected)
def _terrain_income(s: Pf1State, p: ev.TerrainIncomeCollected, e: RecordedEvent) -> Pf1State:
    return _u(s, treasury=s.treasury + p.bp)


@on(ev.EdictsSet)
def _edicts(s: Pf1State, p: ev.EdictsSet, e: RecordedEvent) -> Pf1State:
    return _u(s, edicts=Edicts(promotion=p.promotion, taxation=p.taxation, festivals=p.festivals))


# ------------------------------------------------------------------ income


@on(ev.DepositMade)
def _deposit(s: Pf1State, p: ev.DepositMade, e: RecordedEvent) -> Pf1State:
    return _u(s, treasury=s.treasury + p.bp_gained)


@on(ev.WithdrawalMade)
def _withdraw(s: Pf1State, p: ev.WithdrawalMade, e: RecordedEvent) -> Pf1State:
    return _u(s, treasury=s.treasury - p.bp, unrest=_unrest(s, p.unrest_delta), withdrawals=s.withdrawals + 1)


@on(ev.WithdrawalLoyaltyCheckRolled)
def _wcheck(s: Pf1State, p: ev.WithdrawalLoyaltyCheckRolled, e: RecordedEvent) -> Pf1State:
    return _u(s, unrest=_unrest(s, p.unrest_delta))


@on(ev.ItemSaleAttempted)
def _sale(s: Pf1State, p: ev.ItemSaleAttempted, e: RecordedEvent) -> Pf1State:
    s = _u(s, treasury=s.treasury + p.bp_gained)
    if p.bp_gained and p.source == "SLOT" and p.building is not None and p.slot is not None:
        s = _bought(s, ev.MagicItemPurchased(building=p.building, slot=p.slot), e)
    return s


@on(ev.IncomeCheckRolled)
def _income(s: Pf1State, p: ev.IncomeCheckRolled, e: RecordedEvent) -> Pf1State:
    return _u(s, treasury=s.treasury + p.bp_gained)


@on(ev.IncomeSkipped)
def _income_skip(s: Pf1State, p: ev.IncomeSkipped, e: RecordedEvent) -> Pf1State:
    return s


# ------------------------------------------------------------------ events and GM


@on(ev.EventChanceRolled)
def _chance(s: Pf1State, p: ev.EventChanceRolled, e: RecordedEvent) -> Pf1State:
    return s


@on(ev.KingdomEventDrawn)
def _drawn(s: Pf1State, p: ev.KingdomEventDrawn, e: RecordedEvent) -> Pf1State:
    return _u(s, last_events=(*s.last_events, f"{e.turn}:{p.event}"))


@on(ev.EventEffectApplied)
def _effect(s: Pf1State, p: ev.EventEffectApplied, e: RecordedEvent) -> Pf1State:
    if p.kind == "ATTRIBUTE":
        m = TimedModifier(attribute=p.attribute or "STABILITY", value=p.value, source=f"event {p.event}",
                          first_turn=p.first_turn if p.first_turn is not None else e.turn, last_turn=p.last_turn)
        return _u(s, modifiers=(*s.modifiers, m))
    if p.kind == "UNREST":
        return _u(s, unrest=_unrest(s, p.value))
    if p.kind == "TREASURY":
        return _u(s, treasury=s.treasury + p.value)
    return _renown(s, p.value if p.kind == "FAME" else 0, p.value if p.kind == "INFAMY" else 0)


_TIMED = {"ATTRIBUTE": "", "CHECK": "CHECK:", "SETTLEMENT": "SET:", "CONSUMPTION_PCT": "", "FARMS_LOST": ""}


@on(ev.UcEventResolved)
def _uc_event(s: Pf1State, p: ev.UcEventResolved, e: RecordedEvent) -> Pf1State:
    """Apply the recorded effects of an Ultimate Campaign event (values as decided) and its continuation."""
    mods = list(s.modifiers)
    for f in p.effects:
        if f.kind in ("UNREST", "TREASURY", "FAME", "INFAMY"):
            if f.kind == "UNREST":
                s = _u(s, unrest=_unrest(s, f.value))
            elif f.kind == "TREASURY":
                s = _u(s, treasury=s.treasury + f.value)
            else:
                s = _renown(s, f.value if f.kind == "FAME" else 0, f.value if f.kind == "INFAMY" else 0)
        elif f.kind in _TIMED or f.kind == "ECONOMY_BUILDINGS":
            attr = {"FARMS_LOST": "CONSUMPTION", "CONSUMPTION_PCT": "CONSUMPTION_PCT",
                    "ECONOMY_BUILDINGS": "ECONOMY"}.get(f.kind, f"{_TIMED.get(f.kind, '')}{f.target}")
            mods.append(TimedModifier(attribute=attr, value=f.value, source=f"event {p.event}",
                                      first_turn=f.first_turn if f.first_turn is not None else e.turn,
                                      last_turn=f.last_turn, city=f.city))
    ongoing = tuple(o for o in s.ongoing_events if not (o.name == p.event and o.city == p.city))
    if p.ongoing:
        since = next((o.since_turn for o in s.ongoing_events if o.name == p.event and o.city == p.city), e.turn)
        ongoing = (*ongoing, OngoingEvent(name=p.event, city=p.city, since_turn=since, streak=p.streak))
    last = s.last_events if p.continuing else (*s.last_events, f"{e.turn}:{p.event}")
    return _u(s, modifiers=tuple(mods), ongoing_events=ongoing, last_events=last)


@on(ev.EventPhaseClosed)
def _closed(s: Pf1State, p: ev.EventPhaseClosed, e: RecordedEvent) -> Pf1State:
    return _u(s, event_last_turn=p.occurred)


@on(ev.GmAdjustment)
def _gm(s: Pf1State, p: ev.GmAdjustment, e: RecordedEvent) -> Pf1State:
    if p.field == "treasury":
        return _u(s, treasury=s.treasury + p.delta)
    return _u(s, unrest=_unrest(s, p.delta))


# ------------------------------------------------------------------ modules


@on(ev.BuildingSupportLost)
def _support_lost(s: Pf1State, p: ev.BuildingSupportLost, e: RecordedEvent) -> Pf1State:
    if not p.gm_applies:
        return s
    return _bld(s, p.building, occupancy="pending_shutdown", shutdown_due_turn=p.shutdown_due_turn)


@on(ev.BuildingShutdownCancelled)
def _cancel(s: Pf1State, p: ev.BuildingShutdownCancelled, e: RecordedEvent) -> Pf1State:
    return _bld(s, p.building, occupancy="active", shutdown_due_turn=None)


@on(ev.BuildingAbandoned)
def _abandoned(s: Pf1State, p: ev.BuildingAbandoned, e: RecordedEvent) -> Pf1State:
    s = _bld(s, p.building, occupancy="abandoned", shutdown_due_turn=None)
    return _u(s, unrest=_unrest(s, p.unrest_delta))


@on(ev.BuildingReactivationAttempted)
def _reactivate(s: Pf1State, p: ev.BuildingReactivationAttempted, e: RecordedEvent) -> Pf1State:
    if p.check.success:
        return _bld(s, p.building, occupancy="active", reactivation_from_turn=None)
    return s


@on(ev.ReligiousBuildingDedicated)
def _dedicate(s: Pf1State, p: ev.ReligiousBuildingDedicated, e: RecordedEvent) -> Pf1State:
    return _bld(s, p.building, deity=p.deity, deity_alignment=p.deity_alignment, bonus_mode=p.bonus_mode,
                shrine_attribute=p.shrine_attribute, portfolio=dict(p.portfolio))


@on(ev.KingdomSettlementModifierAdjusted)
def _kadj(s: Pf1State, p: ev.KingdomSettlementModifierAdjusted, e: RecordedEvent) -> Pf1State:
    adj = dict(s.kingdom_adjustments)
    adj[p.modifier] = adj.get(p.modifier, 0) + p.delta
    return _u(s, kingdom_adjustments=adj)


@on(ev.SettlementBaseDangerSet)
def _danger(s: Pf1State, p: ev.SettlementBaseDangerSet, e: RecordedEvent) -> Pf1State:
    c = s.cities[p.city]
    return _u(s, cities={**s.cities, p.city: c.model_copy(update={"base_danger": p.base_danger})})


@on(ev.ForeignKingdomRegistered)
def _foreign(s: Pf1State, p: ev.ForeignKingdomRegistered, e: RecordedEvent) -> Pf1State:
    fk = ForeignKingdom(id=p.kingdom, name=p.name, alignment=p.alignment, size=p.size, economy=p.economy,
                        stability=p.stability, is_npc=p.is_npc)
    rel = s.relations.get(p.kingdom) or Relation(attitude=p.attitude)
    if p.is_sponsor:
        rel = rel.model_copy(update={"is_sponsor": True, "level": "embassy" if rel.level == "none" else rel.level})
    return _u(s, foreign={**s.foreign, p.kingdom: fk}, relations={**s.relations, p.kingdom: rel})


@on(ev.ThirdPartyRelationDeclared)
def _third(s: Pf1State, p: ev.ThirdPartyRelationDeclared, e: RecordedEvent) -> Pf1State:
    a, b = sorted((p.a, p.b))
    enemies = tuple(x for x in s.enemies if x != (a, b))
    if p.enemy:
        enemies = (*enemies, (a, b))
    return _u(s, third_party={**s.third_party, f"{a}|{b}": p.level}, enemies=enemies)


@on(ev.AttitudeChanged)
def _attitude(s: Pf1State, p: ev.AttitudeChanged, e: RecordedEvent) -> Pf1State:
    rel = s.relations.get(p.kingdom, Relation())
    return _u(s, relations={**s.relations, p.kingdom: rel.model_copy(update={"attitude": p.after})})


def _renown(s: Pf1State, fame: int, infamy: int) -> Pf1State:
    return _u(s, fame_ledger=max(0, s.fame_ledger + fame), infamy_ledger=max(0, s.infamy_ledger + infamy))


@on(ev.DiplomaticEdictResolved)
def _dip(s: Pf1State, p: ev.DiplomaticEdictResolved, e: RecordedEvent) -> Pf1State:
    rel = s.relations.get(p.target, Relation())
    upd: dict[str, Any] = {"attitude": p.attitude_after, "level": p.level_after,
                           "lockout_until": {**rel.lockout_until, **p.lockout}}
    if p.war:
        upd["at_war"] = True
    if p.terms is not None:
        upd[p.terms.kind] = p.terms
    if p.purpose in ("rebalance", "renegotiate") and rel.treaty is not None and p.terms is not None:
        upd["treaty"] = p.terms
    if p.purpose == "independence" and p.outcome == "emancipated":
        upd.update(treaty=None, alliance=None, is_sponsor=False)
    s = _u(s, treasury=s.treasury - p.cost_roll - p.bribe_bp, special_edict_turn=e.turn,
           unrest=_unrest(s, p.unrest_delta),
           relations={**s.relations, p.target: rel.model_copy(update=upd)})
    return _renown(s, p.fame_delta, p.infamy_delta)


@on(ev.RelationActionResolved)
def _relation_action(s: Pf1State, p: ev.RelationActionResolved, e: RecordedEvent) -> Pf1State:
    rel = s.relations.get(p.target, Relation())
    upd: dict[str, Any] = {"level": p.level_after}
    if p.at_war:
        upd["at_war"] = True
    if p.level_after in ("none", "embassy"):
        upd.update(treaty=None, alliance=None)
    if p.level_after == "none":
        upd["embassy_building"] = None
        upd["embassy_delta"] = None
    s = _u(s, unrest=_unrest(s, p.unrest_delta), relations={**s.relations, p.target: rel.model_copy(update=upd)})
    if p.level_after == "none" and rel.embassy_building:  # the building's kingdom-level lines end with it
        adj = dict(s.kingdom_adjustments)
        if rel.embassy_delta is not None:  # as its (v2) acquisition recorded them
            for m, d in rel.embassy_delta.items():
                adj[m] = adj.get(m, 0) - d
        else:  # a v1 acquisition: the catalogue's lines, as before
            line = s.catalog.building(rel.embassy_building).settlement
            for m in ("corruption", "crime", "law", "lore", "productivity", "society"):
                d = line.get(m) + (2 if m == "society" else 0)
                if d:
                    adj[m] = adj.get(m, 0) - d
        s = _u(s, kingdom_adjustments={k: v for k, v in adj.items() if v})
    return _renown(s, 0, p.infamy_delta)


@on(ev.EmbassyBuildingAcquired)
def _embassy_b(s: Pf1State, p: ev.EmbassyBuildingAcquired, e: RecordedEvent) -> Pf1State:
    rel = s.relations[p.target]
    # Society +2 and the building's settlement lines go to kingdom-level adjustments (opt §2.5.6)
    adj = dict(s.kingdom_adjustments)
    if p.settlement_delta is not None:
        for m, d in p.settlement_delta.items():
            adj[m] = adj.get(m, 0) + d
    else:  # a v1 event: the catalogue's lines
        line = s.catalog.building(p.building_type).settlement
        for m in ("corruption", "crime", "law", "lore", "productivity", "society"):
            d = line.get(m) + (2 if m == "society" else 0)
            if d:
                adj[m] = adj.get(m, 0) + d
    return _u(s, treasury=s.treasury - p.cost_bp, kingdom_adjustments=adj,
              relations={**s.relations, p.target: rel.model_copy(update={"embassy_building": p.building_type,
                                                                         "embassy_delta": p.settlement_delta})})


@on(ev.ExplorationEdictIssued)
def _explore(s: Pf1State, p: ev.ExplorationEdictIssued, e: RecordedEvent) -> Pf1State:
    x = Expedition(id=p.expedition, issued_turn=e.turn, months=p.months, route=p.route, cost_bp=sum(p.cost_rolls))
    return _u(s, treasury=s.treasury - sum(p.cost_rolls), expeditions=(*s.expeditions, x),
              serials=_serial(s, p.expedition), special_edict_turn=e.turn)


@on(ev.ExpeditionProgressed)
def _progress(s: Pf1State, p: ev.ExpeditionProgressed, e: RecordedEvent) -> Pf1State:
    out = []
    for x in s.expeditions:
        if x.id == p.expedition:
            status = {"progressed": "active", "scattered": "scattered_this_month", "lost": "lost",
                      "returned": "returned"}[p.outcome]
            elapsed = x.months_elapsed + (0 if p.outcome in ("lost",) else 1)
            x = x.model_copy(update={"months_elapsed": min(x.months, elapsed), "status": status,
                                     "discoveries": (*x.discoveries, *p.discoveries)})
        out.append(x)
    return _u(s, expeditions=tuple(out), unrest=_unrest(s, p.unrest_delta))


@on(ev.ExpeditionFeatureSearched)
def _searched(s: Pf1State, p: ev.ExpeditionFeatureSearched, e: RecordedEvent) -> Pf1State:
    if not p.found:
        return s
    xs = tuple(x.model_copy(update={"discoveries": (*x.discoveries, f"{p.feature} in {p.hex}")})
               if x.id == p.expedition else x for x in s.expeditions)
    s = _u(s, expeditions=xs)
    if p.mapped and p.hex in s.hexes and p.feature not in s.hexes[p.hex].features:
        s = _hex(s, p.hex, features=(*s.hexes[p.hex].features, p.feature))
    return s


@on(ev.AidRefused)
def _aid_refused(s: Pf1State, p: ev.AidRefused, e: RecordedEvent) -> Pf1State:
    fk = s.foreign[p.ally]
    return _u(s, foreign={**s.foreign, p.ally: fk.model_copy(update={"infamy": fk.infamy + p.infamy_delta})})


@on(ev.ForeignEmbassyBuilt)
def _foreign_embassy(s: Pf1State, p: ev.ForeignEmbassyBuilt, e: RecordedEvent) -> Pf1State:
    b = Building(id=p.building, type=p.building_type, city=p.city, district=p.district, lots=p.lots,
                 built_turn=e.turn, owner=p.kingdom)
    rel = s.relations.get(p.kingdom, Relation())
    return _u(s, buildings={**s.buildings, p.building: b}, serials=_serial(s, p.building),
              relations={**s.relations, p.kingdom: rel.model_copy(update={"their_embassy_here": p.building})})


@on(ev.TradeEdictIssued)
def _trade(s: Pf1State, p: ev.TradeEdictIssued, e: RecordedEvent) -> Pf1State:
    r = TradeRoute(id=p.route, type=p.route_type, partner=p.partner, origin=p.origin, destination=p.destination,
                   invested_bp=p.invested_bp, trl=p.trl, rm=p.rm, lm=p.lm, dc=p.dc, travel_days=p.travel_days,
                   issued_turn=e.turn, arrival_turn=p.arrival_turn)
    return _u(s, treasury=s.treasury - p.invested_bp, trade_routes=(*s.trade_routes, r), serials=_serial(s, p.route),
              special_edict_turn=e.turn)


def _route(s: Pf1State, rid: str, **kw: Any) -> Pf1State:
    return _u(s, trade_routes=tuple(r.model_copy(update=kw) if r.id == rid else r for r in s.trade_routes))


@on(ev.TradeExpeditionArrived)
def _arrived(s: Pf1State, p: ev.TradeExpeditionArrived, e: RecordedEvent) -> Pf1State:
    s = _route(s, p.route, status=p.status, successes=p.successes, tier_economy=p.tier_economy,
               established_turn=e.turn if p.status == "established" else None, type_bonus_snapshot=p.type_bonus)
    s = _u(s, treasury=s.treasury + p.treasury_delta, unrest=_unrest(s, p.unrest_delta))
    return _renown(s, p.fame_delta, 0)


@on(ev.TradeRouteExpired)
def _expired(s: Pf1State, p: ev.TradeRouteExpired, e: RecordedEvent) -> Pf1State:
    return _route(s, p.route, status="expired")


@on(ev.FoodRouteConditionEvaluated)
def _food(s: Pf1State, p: ev.FoodRouteConditionEvaluated, e: RecordedEvent) -> Pf1State:
    return _route(s, p.route, food_active=p.active)


@on(ev.VassalageEdictIssued)
def _vassal(s: Pf1State, p: ev.VassalageEdictIssued, e: RecordedEvent) -> Pf1State:
    v = Vassal(kingdom=p.vassal, mode=p.mode, viceroy=p.viceroy, issued_turn=e.turn, grant_bp=p.grant_bp,
               subjugated_size=p.subjugated_size)
    for h in p.ceded_hexes:
        s = _lose_hex(s, h)
    rel = s.relations.get(p.vassal, Relation())
    rel = rel.model_copy(update={"level": p.initial_level, **{t.kind: t for t in p.terms}})
    return _u(s, treasury=s.treasury - p.cost_roll - p.grant_bp, vassals=(*s.vassals, v), special_edict_turn=e.turn,
              relations={**s.relations, p.vassal: rel})


@on(ev.SubjugationCheckRolled)
def _subj(s: Pf1State, p: ev.SubjugationCheckRolled, e: RecordedEvent) -> Pf1State:
    vs = tuple(v.model_copy(update={"streak": p.streak_after, "resolved": p.streak_after >= 3})
               if v.kingdom == p.vassal else v for v in s.vassals)
    return _u(s, vassals=vs, unrest=_unrest(s, p.unrest_delta))


@on(ev.RenownChanged)
def _renown_ev(s: Pf1State, p: ev.RenownChanged, e: RecordedEvent) -> Pf1State:
    return _renown(s, p.fame_delta, p.infamy_delta)


@on(ev.SizeMilestoneRenownChosen)
def _milestone(s: Pf1State, p: ev.SizeMilestoneRenownChosen, e: RecordedEvent) -> Pf1State:
    s = _u(s, milestones=(*s.milestones, p.threshold))
    return _renown(s, 1 if p.choice == "fame" else 0, 1 if p.choice == "infamy" else 0)


@on(ev.GovernmentFormChanged)
def _gov(s: Pf1State, p: ev.GovernmentFormChanged, e: RecordedEvent) -> Pf1State:
    return _u(s, government=p.form)


@on(ev.IndependenceDeclared)
def _independence(s: Pf1State, p: ev.IndependenceDeclared, e: RecordedEvent) -> Pf1State:
    others = tuple(d.campaign for d in p.daughters if d.campaign != p.kept_by)
    lin = Lineage(kind="split_into", campaigns=others, turn=e.turn)
    if p.kept_by is None:
        return _u(s, lineage=(*s.lineage, lin), closed=True)
    kept = next(d for d in p.daughters if d.campaign == p.kept_by)
    for h in list(s.hexes.values()):
        if h.claimed and h.id not in kept.hexes:
            s = _lose_hex(s, h.id)
    mod = TimedModifier(attribute="LOYALTY", value=1, source="independence", first_turn=e.turn + 1,
                        last_turn=e.turn + 6)
    return _u(s, lineage=(*s.lineage, lin), treasury=kept.treasury_bp, unrest=s.unrest + p.share,
              modifiers=(*s.modifiers, mod))


@on(ev.UnionFormed)
def _union(s: Pf1State, p: ev.UnionFormed, e: RecordedEvent) -> Pf1State:
    lin = Lineage(kind="merged_into", campaigns=(p.new_campaign,), turn=e.turn)
    return _u(s, lineage=(*s.lineage, lin), closed=True)


@on(ev.LineageRecorded)
def _lineage(s: Pf1State, p: ev.LineageRecorded, e: RecordedEvent) -> Pf1State:
    lin = Lineage(kind=p.kind, campaigns=p.campaigns, turn=e.turn)
    mods = s.modifiers
    if p.loyalty_bonus_turns:
        mods = (*mods, TimedModifier(attribute="LOYALTY", value=1, source=f"{p.kind} {', '.join(p.campaigns)}",
                                     first_turn=e.turn + 1, last_turn=e.turn + p.loyalty_bonus_turns))
    return _u(s, lineage=(*s.lineage, lin), unrest=s.unrest + p.unrest_added, modifiers=mods)


@on(ev.TemporaryModifierApplied)
def _temp(s: Pf1State, p: ev.TemporaryModifierApplied, e: RecordedEvent) -> Pf1State:
    m = TimedModifier(attribute=p.attribute, value=p.value, source=p.source, first_turn=p.first_turn,
                      last_turn=p.last_turn)
    return _u(s, modifiers=(*s.modifiers, m))


@on(ev.SpecialEdictUsed)
def _special(s: Pf1State, p: ev.SpecialEdictUsed, e: RecordedEvent) -> Pf1State:
    return _u(s, special_edict_turn=e.turn)


# ------------------------------------------------------------------ mass combat


def _army(s: Pf1State, aid: str, **kw: Any) -> Pf1State:
    return _u(s, armies={**s.armies, aid: s.armies[aid].model_copy(update=kw)})


@on(ev.ArmyRecruited)
def _recruited(s: Pf1State, p: ev.ArmyRecruited, e: RecordedEvent) -> Pf1State:
    counters = _count(s, districts=1) if p.counts_against_limit else s.counters
    return _u(s, armies={**s.armies, p.army.id: p.army}, serials=_serial(s, p.army.id), counters=counters,
              treasury=s.treasury - p.cost_bp)


@on(ev.ArmyEquipped)
def _equipped(s: Pf1State, p: ev.ArmyEquipped, e: RecordedEvent) -> Pf1State:
    a = s.armies[p.army]
    res = {**a.resources, p.resource: a.resources.get(p.resource, 0) + p.count}
    s = _army(s, p.army, om=a.om + p.om_delta, dv=a.dv + p.dv_delta, consumption=a.consumption + p.consumption_delta,
              ranged=a.ranged or p.ranged, resources=res)
    counters = _count(s, districts=1) if p.counts_against_limit else s.counters
    return _u(s, treasury=s.treasury - p.cost_bp, counters=counters)


@on(ev.ArmyCommanderAssigned)
def _commander(s: Pf1State, p: ev.ArmyCommanderAssigned, e: RecordedEvent) -> Pf1State:
    return _army(s, p.army, commander=p.commander)


def _morale(value: int, delta: int) -> int:
    return min(4, value + delta) if delta > 0 else value + delta


@on(ev.ArmyChanged)
def _army_changed(s: Pf1State, p: ev.ArmyChanged, e: RecordedEvent) -> Pf1State:
    a = s.armies[p.army]
    upd: dict[str, Any] = {"morale": _morale(a.morale, p.morale_delta)}
    for k in ("hp", "status", "reserve", "hex", "unpaid"):
        v = getattr(p, k)
        if v is not None:
            upd[k] = v
    if p.tactic_learned:
        upd["tactics"] = (*a.tactics, p.tactic_learned)
    s = _army(s, p.army, **upd)
    counters = _count(s, districts=1) if p.counts_against_limit else s.counters
    return _u(s, treasury=s.treasury - p.cost_bp, counters=counters)


@on(ev.ArmyReorganized)
def _reorganized(s: Pf1State, p: ev.ArmyReorganized, e: RecordedEvent) -> Pf1State:
    armies = {k: v for k, v in s.armies.items() if k not in p.removed}
    serials = s.serials
    for a in p.armies:
        armies[a.id] = a
        serials = _serial(s.model_copy(update={"serials": serials}), a.id)
    return _u(s, armies=armies, serials=serials)


@on(ev.ArmyUpkeepPaid)
def _army_upkeep(s: Pf1State, p: ev.ArmyUpkeepPaid, e: RecordedEvent) -> Pf1State:
    return _u(s, treasury=s.treasury - p.total) if p.paid else s


@on(ev.ArmyRallyCheckRolled)
def _rally(s: Pf1State, p: ev.ArmyRallyCheckRolled, e: RecordedEvent) -> Pf1State:
    return _army(s, p.army, status="active") if p.check.success else s


@on(ev.BattlePhaseResolved)
def _phase(s: Pf1State, p: ev.BattlePhaseResolved, e: RecordedEvent) -> Pf1State:
    for side in p.sides:
        if side.army in s.armies:
            s = _army(s, side.army, hp=side.hp_after)
    return s


@on(ev.BattleEnded)
def _battle_ended(s: Pf1State, p: ev.BattleEnded, e: RecordedEvent) -> Pf1State:
    for o in p.outcomes:
        a = s.armies[o.army]
        status = {"routed": "routed", "defeated": "defeated"}.get(o.result, a.status)
        upd: dict[str, Any] = {"hp": o.hp_after, "morale": _morale(a.morale, o.morale_delta), "status": status,
                               "last_battle": e.turn}
        if o.result == "victorious":
            upd["wins"] = a.wins + 1
        if o.tactic_learned:
            upd["tactics"] = (*a.tactics, o.tactic_learned)
        cmd = a.commander
        if cmd is not None and o.boon_learned:
            cmd = cmd.model_copy(update={"boons": (*cmd.boons, o.boon_learned)})
        if o.commander_fate in ("killed", "captured"):
            cmd = None
        upd["commander"] = cmd
        s = _army(s, o.army, **upd)
    mods = list(s.modifiers)
    for attr, v in p.kingdom_losses.items():
        if v:
            mods.append(TimedModifier(attribute=attr, value=v, source=f"army defeated ({p.battle})", first_turn=e.turn))
    return _u(s, modifiers=tuple(mods), battles=s.battles + 1, serials=_serial(s, p.battle))


@on(ev.ArmyRulingNeeded)
def _ruling_needed(s: Pf1State, p: ev.ArmyRulingNeeded, e: RecordedEvent) -> Pf1State:
    return s  # a note for the GM: the ruling itself is recorded by the GM's own step (army_actions, gm)


missing = [c.__name__ for c in ev.EVENT_TYPES if c not in _HANDLERS]
if missing:  # pragma: no cover - a programming error caught at import
    raise RuntimeError(f"pf1 evolve has no handler for {missing}")
