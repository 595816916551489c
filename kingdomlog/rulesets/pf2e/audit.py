"""What today's rules compute differently from what an event recorded (``kingdomlog audit DIR``).

``evolve`` folds the recorded facts (a check's degree, the dice rolled, what was lost to storage,
the RP paid) and never re-derives them, so a rules fix never makes an old campaign unreadable.
``audit(state, event)`` is the other half: given the state before the event, it re-runs the rule
kernels on the recorded numbers and says, in words, where today's rules disagree. Warnings only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kingdomlog.core.dispatch import Handlers
from kingdomlog.core.events import RecordedEvent
from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e import rules as R
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.evolve import founding_structure
from kingdomlog.rulesets.pf2e.state import (
    KingdomState,
    adjacent_to_kingdom,
    check_facts,
    consumption,
    hex_at,
    hex_by_id,
    hex_distance,
    in_anarchy,
    kingdom_coords,
    resource_dice,
    size_band,
    size_of,
    storage_cap,
    structure_bonuses,
)

Audit = Callable[[KingdomState, Any], list[str]]
AUDITS: Handlers[Audit] = Handlers()
on = AUDITS.on


def audit(state: KingdomState, event: RecordedEvent) -> list[str]:
    """The differences between ``event`` and today's rules, given ``state`` just before it."""
    fn = AUDITS.get(event.payload)
    return fn(state, event.payload) if fn is not None else []


@on(E.CheckResolved)
def _check(s: KingdomState, p: E.CheckResolved) -> list[str]:
    out = []
    what = f"check {p.check_id} ({p.activity})"
    if p.total != p.die + p.modifier:
        out.append(f"{what}: total {p.total} is not d20 {p.die} + modifier {p.modifier} = {p.die + p.modifier}")
    if p.terms and sum(t.value for t in p.terms) != p.modifier:
        out.append(f"{what}: modifier {p.modifier} is not the sum of its terms ({sum(t.value for t in p.terms)})")
    if p.dc_terms and sum(t.value for t in p.dc_terms) != p.dc:
        out.append(f"{what}: DC {p.dc} is not the sum of its terms ({sum(t.value for t in p.dc_terms)})")
    res, degree = R.kingdom_check(p.die, p.modifier, p.dc, anarchy=p.anarchy, worsened=p.worsened)
    if res.base_degree.label != p.base_degree or degree.label != p.degree:
        out.append(f"{what}: recorded degree {p.degree} (base {p.base_degree}); d20 {p.die} + {p.modifier} vs DC"
                   f" {p.dc} gives {degree.label} (base {res.base_degree.label}) by today's rules (§3.0.1)")
    if p.anarchy != in_anarchy(s):
        out.append(f"{what}: recorded {'in' if p.anarchy else 'not in'} anarchy; the kingdom is"
                   f" {'in' if in_anarchy(s) else 'not in'} anarchy by today's rules (§2.11.12)")
    if T.core().skills.get(p.skill, p.ability) != p.ability:
        out.append(f"{what}: {p.skill} is {T.core().skills[p.skill]}-based today, not {p.ability}-based")
    out.extend(_structure_items(s, p, what))
    return out


def _structure_items(s: KingdomState, p: E.CheckResolved, what: str) -> list[str]:
    """Structure item bonuses recorded on a check against what today's rules give where it happened (§5.10:
    its settlement, or the settlements whose influence covers its hex; identical structures stacking)."""
    if p.assurance or p.category in ("reroll",):
        return []
    names = {st.name for st in s.settlements}
    recorded = [t for t in p.terms if t.kind == "item" and t.value > 0 and t.label.endswith(")")
                and t.label.rsplit("(", 1)[-1].rstrip(")") in names]
    facts = check_facts(s, p.skill, activity=p.activity, category=p.category, target=p.target, role=p.role,
                        settlement=p.settlement, hex=p.hex)
    today = structure_bonuses(s, facts, p.settlement, p.hex)
    have = max((t.value for t in recorded), default=0)
    want = max((m.value for m in today), default=0)
    other = max((t.value for t in p.terms if t.kind == "item" and t.value > 0 and t not in recorded), default=0)
    if max(have, other) != max(want, other):
        where = f"settlement {p.settlement}" if p.settlement else f"hex {p.hex}" if p.hex else "the capital"
        got = ", ".join(f"{t.label} +{t.value}" for t in recorded) or "none"
        new = ", ".join(f"{m.label} +{m.value}" for m in today) or "none"
        return [f"{what}: structure item bonus recorded {got}; today's rules give {new} for a check at {where}"
                " (§5.10 structures reach their settlement and its influence; identical structures stack)"]
    return []


@on(E.FlatCheckResolved)
def _flat(s: KingdomState, p: E.FlatCheckResolved) -> list[str]:
    if p.dc > 0 and R.flat_succeeds(p.die, p.dc) != p.success:
        return [f"flat check {p.purpose}: d20 {p.die} vs DC {p.dc} {'succeeds' if not p.success else 'fails'}"
                f" by today's rules, recorded {'success' if p.success else 'failure'} (§3.0.2)"]
    return []


@on(E.RandomEventChecked)
def _random_event(s: KingdomState, p: E.RandomEventChecked) -> list[str]:
    if p.table == "cult":
        want_dc = s.cult_event_dc or int(s.options.get("cult_event_dc_start", 20))
        if p.dc != want_dc or R.flat_succeeds(p.die, p.dc) != p.occurred:
            return [f"cult event check: d20 {p.die} vs DC {p.dc} recorded {'occurred' if p.occurred else 'not'};"
                    f" today's rules: DC {want_dc}"]
        return []
    out = []
    if p.dc != s.event_dc:
        out.append(f"random event check: DC {p.dc} recorded, the event DC is {s.event_dc} (§3.4 E1)")
    if R.flat_succeeds(p.die, p.dc) != p.occurred and not p.forced:
        out.append(f"random event check: d20 {p.die} vs DC {p.dc} {'fails' if p.occurred else 'succeeds'} by"
                   " today's rules (§3.4 E1)")
    want = R.next_event_dc(p.dc, p.occurred, int(s.options.get("event_dc_step", 5)))
    if p.new_dc != want:
        out.append(f"random event check: next event DC {p.new_dc} recorded, today's rules give {want} (§3.4 E1)")
    return out


@on(E.ResourceDiceRolled)
def _resources(s: KingdomState, p: E.ResourceDiceRolled) -> list[str]:
    out = []
    dice = int(resource_dice(s).total)
    die = size_band(size_of(s)).die
    if (p.dice, p.die) != (dice, die):
        out.append(f"Resource Dice: {p.dice}d{p.die} rolled, today's rules give {dice}d{die} (§2.11.3)")
    if p.total != sum(p.faces):
        out.append(f"Resource Dice: total {p.total} is not the sum of the faces {p.faces} ({sum(p.faces)})")
    if p.pending_rp != s.pending.rp:
        out.append(f"Resource Dice: {p.pending_rp} pending RP recorded, the kingdom had {s.pending.rp}")
    if p.rp_after != p.total + p.pending_rp:
        out.append(f"Resource Dice: RP after {p.rp_after} is not {p.total} + {p.pending_rp}")
    return out


@on(E.ConsumptionPaid)
def _consumption(s: KingdomState, p: E.ConsumptionPaid) -> list[str]:
    out = []
    need = int(consumption(s).total)
    if p.consumption != need:
        out.append(f"Consumption {p.consumption} recorded, today's rules give {need} (§2.11.8)")
    if p.food > s.commodities["food"]:
        out.append(f"Consumption: {p.food} Food paid, the kingdom had {s.commodities['food']} (§3.1 U4)")
    if p.remainder != p.consumption - p.food:
        out.append(f"Consumption: remainder {p.remainder} is not {p.consumption} - {p.food} Food")
    if p.method == "rp":
        if p.rp != R.consumption_rp(p.remainder):
            out.append(f"Consumption: {p.rp} RP paid for {p.remainder}; today's rules ask"
                       f" {R.consumption_rp(p.remainder)} (§3.1 U4.4)")
        if p.rp > s.rp:
            out.append(f"Consumption: {p.rp} RP paid, the kingdom had {s.rp} (§3.0.3)")
    return out


@on(E.RPChanged)
def _rp(s: KingdomState, p: E.RPChanged) -> list[str]:
    if p.delta < 0 and not p.forced and -p.delta > s.rp:
        return [f"{p.cause}: spends {-p.delta} RP, the kingdom had {s.rp} (§3.0.3: only a forced cost may)"]
    return []


@on(E.CommodityChanged)
def _commodity(s: KingdomState, p: E.CommodityChanged) -> list[str]:
    stock = s.commodities[p.commodity]
    if p.delta > 0:
        cap = int(storage_cap(s, p.commodity).total)
        lost = R.commodity_gain(stock, p.delta, cap)
        if lost != p.lost_to_cap:
            return [f"{p.cause}: {p.lost_to_cap} {p.commodity} recorded as lost to storage; with {stock} in store"
                    f" and storage {cap} today's rules lose {lost} (§2.6)"]
    elif -p.delta > stock:
        return [f"{p.cause}: {-p.delta} {p.commodity} taken, the kingdom had {stock}"]
    return []


@on(E.TurnStarted)
def _turn_started(s: KingdomState, p: E.TurnStarted) -> list[str]:
    out = []
    if p.turn != s.turn + 1:
        out.append(f"turn {p.turn} starts after kingdom turn {s.turn}")
    if p.fame_before != s.fame:
        out.append(f"turn {p.turn}: Fame before {p.fame_before} recorded, the kingdom had {s.fame}")
    want = R.fame_at_turn_start(p.fame_before, p.fame_gained, s.level)
    if p.fame_after != want:
        out.append(f"turn {p.turn}: Fame {p.fame_after} after the start of the turn; today's rules give {want}"
                   " (§3.1 U0)")
    return out


@on(E.RPConverted)
def _converted(s: KingdomState, p: E.RPConverted) -> list[str]:
    out = []
    if p.rp != s.rp:
        out.append(f"RP to XP: {p.rp} RP converted, the kingdom had {s.rp}")
    blocked = min(p.rp, s.rp_no_xp)
    rate = R.rp_to_xp_rate(s.level, str(s.options.get("rp_to_xp_mode", "published")))
    xp, discarded = R.rp_to_xp_at(p.rp - blocked, int(s.options.get("rp_to_xp_limit", 120)), rate)
    discarded += blocked
    if (p.xp, p.discarded) != (xp, discarded):
        out.append(f"RP to XP: {p.rp} RP gave {p.xp} XP ({p.discarded} discarded); today's rules give {xp} XP"
                   f" ({discarded} discarded) (§3.4 E3)")
    return out


@on(E.XPApplied)
def _xp_applied(s: KingdomState, p: E.XPApplied) -> list[str]:
    if p.amount != s.xp_pending:
        return [f"XP applied: {p.amount} recorded, {s.xp_pending} were pending"]
    return []


@on(E.LeveledUp)
def _leveled(s: KingdomState, p: E.LeveledUp) -> list[str]:
    out = []
    if p.level_from != s.level or p.level_to != s.level + 1:
        out.append(f"level {p.level_from} -> {p.level_to} recorded; the kingdom is level {s.level}")
    if s.xp < R.XP_PER_LEVEL:
        out.append(f"level {p.level_to} with {s.xp} XP; a level costs {R.XP_PER_LEVEL} (§3.4 E4)")
    if p.level_to > s.max_level:
        out.append(f"level {p.level_to} is above the party level {s.max_level} (§2.1)")
    return out


@on(E.HexClaimed)
def _claimed(s: KingdomState, p: E.HexClaimed) -> list[str]:
    out = []
    old = hex_by_id(s, p.hex.id)
    want = 0 if old is not None and old.ever_claimed else R.xp_for_hex(s.options, size_of(s))
    if p.xp != want:
        out.append(f"hex {p.hex.id} claimed for {p.xp} XP; today's rules give {want} (§5.13)")
    at = (p.hex.q, p.hex.r) if p.hex.q is not None and p.hex.r is not None else (old.at if old else None)
    if at is not None and kingdom_coords(s) and not adjacent_to_kingdom(s, at):
        out.append(f"hex {p.hex.id} at {at} is claimed but is not adjacent to any hex of the kingdom"
                   " (§4.8 Claim Hex)")
    return out


@on(E.HexPlaced)
def _placed(s: KingdomState, p: E.HexPlaced) -> list[str]:
    other = hex_at(s, (p.q, p.r))
    if other is not None and other.id != p.hex_id:
        return [f"hex {p.hex_id} placed at ({p.q}, {p.r}), where hex {other.id} already is (§2.7)"]
    return []


@on(E.FarmlandEstablished)
def _farmland(s: KingdomState, p: E.FarmlandEstablished) -> list[str]:
    out = []
    for hid in p.hex_ids[:1]:
        st = next((x for x in s.settlements if x.id == p.settlement), None)
        d = hex_distance(s, hid, st.hex) if st is not None else None
        if d is not None and d != p.distance:
            out.append(f"Farmland {hid}: recorded {p.distance} hexes from {p.settlement}; the map says {d}")
        if st is not None and d is not None and d > st.influence:
            out.append(f"Farmland {hid} is {d} hexes from {st.name}, outside its influence ({st.influence})"
                       " (§4.8 Establish Farmland)")
    return out


def _structure_numbers(name: str, rec: Any, today: T.Structure) -> list[str]:
    """The numbers of a recorded structure that today's data gives differently."""
    out = []
    for field in ("storage", "consumption_reduction", "item_bonuses"):
        if getattr(rec, field) != getattr(today, field):
            out.append(f"{field} {getattr(rec, field)!r} recorded, today's data {getattr(today, field)!r}")
    return out


@on(E.KingdomFounded)
def _founded(s: KingdomState, p: E.KingdomFounded) -> list[str]:
    out = []
    recorded = {i: f for i, f in enumerate(p.structure_facts or [])}
    for i, name in enumerate(p.structures):
        today = founding_structure(s, name)
        if today is None:
            out.append(f"founding structure {name!r} is not in today's data: it stands with "
                       + ("the numbers recorded at founding" if i in recorded else
                          "no storage, bonus or reduction"))
            continue
        rec = recorded.get(i)
        if rec is None:
            # v1/v2: the numbers were looked up at replay; say where today's stacking facts would differ
            flags = stacking_from(today)
            if flags.reduction_when or (today.consumption_reduction and not flags.reduction_stacks):
                out.append(f"founding structure {name}: recorded by an older version, before structures recorded"
                           f" their stacking facts; it replays with today's numbers, its reduction adding up with"
                           f" identical ones; today's rules record"
                           f" {flags.model_dump()}")
            continue
        diff = _structure_numbers(name, rec, today)
        if diff:
            out.append(f"founding structure {name}: " + "; ".join(diff))
    return out


def stacking_from(struct: T.Structure) -> E.StackingFacts:
    return E.StackingFacts(edifice=struct.edifice, reduction_stacks=struct.reduction_stacks,
                           item_bonus_stacks=struct.item_bonus_stacks and not struct.edifice,
                           reduction_when=struct.reduction_when)


@on(E.StructureBuilt)
def _built(s: KingdomState, p: E.StructureBuilt) -> list[str]:
    return _built_common(s, p)


@on(E.InfrastructureBuilt)
def _infra(s: KingdomState, p: E.InfrastructureBuilt) -> list[str]:
    return _built_common(s, p)


def _built_common(s: KingdomState, p: Any) -> list[str]:
    out = []
    today = T.catalog(s.homebrew).structures.get(p.structure)
    if today is None:
        return [f"{p.structure} built in {p.settlement} is not in today's data"]
    want = stacking_from(today)
    if p.stacking is None:
        if want.reduction_when or (today.consumption_reduction and not want.reduction_stacks) or want.edifice:
            out.append(f"{p.structure} in {p.settlement}: recorded by an older version, before structures"
                       f" recorded their stacking facts; it replays as then (its reduction and item bonus add up"
                       f" with identical ones); today's rules record"
                       f" {want.model_dump()}")
    elif p.stacking != want:
        out.append(f"{p.structure} in {p.settlement}: stacking {p.stacking.model_dump()} recorded, today's data"
                   f" {want.model_dump()}")
    diff = _structure_numbers(p.structure, p, today)
    if diff:
        out.append(f"{p.structure} in {p.settlement}: " + "; ".join(diff))
    return out


@on(E.RuinChanged)
def _ruin(s: KingdomState, p: E.RuinChanged) -> list[str]:
    r = s.ruin[p.ruin]
    opts: dict[str, Any] = {"mode": str(s.options.get("ruin_overflow_mode", "subtract_threshold")),
            "penalty_cap": int(s.options.get("ruin_penalty_cap", 0)),
            "at": str(s.options.get("ruin_overflow_at", "exceeds"))}
    if p.penalty_averted and p.delta == 0:
        return []
    if p.penalty_averted and s.options.get("fame_averts_ruin") == "stop_at_threshold" and (
            p.points_after, p.penalty_after) == (max(r.points, r.threshold), r.penalty):
        return []
    pts, pen = R.ruin_after(r.points, r.threshold, r.penalty, p.delta, averted=p.penalty_averted, **opts)
    if p.points_after is None:
        legacy = R.ruin_after(r.points, r.threshold, r.penalty, p.delta, averted=p.penalty_averted,
                              mode=opts["mode"], penalty_cap=opts["penalty_cap"])
        if legacy != (pts, pen):
            return [f"{p.ruin} {p.delta:+d} ({p.cause}): replays to {legacy[0]} points, penalty {legacy[1]} (v1, the"
                    f" fold's rule); today's options give {pts}, penalty {pen} (§3.0.5)"]
        return []
    if (p.points_after, p.penalty_after) != (pts, pen):
        return [f"{p.ruin} {p.delta:+d} ({p.cause}): {p.points_after} points, penalty {p.penalty_after} recorded;"
                f" today's rules give {pts}, penalty {pen} (§3.0.5)"]
    return []


@on(E.UnrestChanged)
def _unrest(s: KingdomState, p: E.UnrestChanged) -> list[str]:
    cap = int(s.options.get("unrest_cap", 0))
    want = max(0, s.unrest + p.delta)
    want = min(cap, want) if cap else want
    if p.unrest_after is not None and p.unrest_after != want:
        return [f"Unrest {p.delta:+d} ({p.cause}): {p.unrest_after} recorded after, today's rules give {want}"
                " (§3.0.7)"]
    return []


@on(E.FameChanged)
def _fame(s: KingdomState, p: E.FameChanged) -> list[str]:
    from kingdomlog.rulesets.pf2e.state import fame_max

    want = max(0, min(fame_max(s), s.fame + p.delta))
    if p.fame_after is not None and p.fame_after != want:
        return [f"Fame {p.delta:+d} ({p.reason}): {p.fame_after} recorded after, today's rules give {want}"
                " (§2.1 Fame cap)"]
    return []
