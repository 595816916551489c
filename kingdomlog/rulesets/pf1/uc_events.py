"""The Ultimate Campaign event tables (option ``event_table = "uc"``, or a month's ``event_table`` choice).

UC Kingdoms and War, Events (base spec §6.11 "UC event tables", §6.13): Table 4-7 chooses the type and
danger (some rows roll again), a sub-table the event; each event's checks and effects are data
(``data/events_uc.toml``). A continuous event is resolved again in each later Event phase until its
ending outcome. Everything decided here is recorded in ``pf1.uc_event_resolved`` (rolls, checks,
outcome, every effect with its value and months), which ``evolve`` applies as recorded.
"""

from __future__ import annotations

from typing import Literal

from kingdomlog.core.ruleset import Breakdown
from kingdomlog.rulesets.pf1 import choices as ch
from kingdomlog.rulesets.pf1 import derive as dv
from kingdomlog.rulesets.pf1 import events as ev
from kingdomlog.rulesets.pf1.helpers import Ctx, control_check, faces, find_city, new_id, place
from kingdomlog.rulesets.pf1.rules import axial_neighbours
from kingdomlog.rulesets.pf1.state import City, Pf1State
from kingdomlog.rulesets.pf1.tables import UcEffect, UcEvent

HIRE_COST = {0: 0, 2: 4, 5: 8, 10: 16}
"""UC Hiring Adventurers: +2 for 4 BP (levels 1-2), +5 for 8 BP (3-5), +10 for 16 BP (6+), once per Event phase."""

Outcome = Literal["none", "success", "partial", "failure"]
_LASTING = ("UNREST", "TREASURY", "FAME", "INFAMY", "NOTE", "FREE_BUILDING")


def months(s: Pf1State, turns: int | str | None) -> tuple[int, int | None]:
    """(first, last) turn of an effect: "next_event" = this month and the next (until the next Event phase);
    a number of months; none = lasting, or until the next Event phase with option uc_event_effect_duration."""
    t = s.turn
    if turns == "next_event" or (turns is None and s.opt("uc_event_effect_duration") == "until_next_event"):
        return t, t + 1
    if isinstance(turns, int):
        return t, t + turns - 1
    return t, None


def count_buildings(s: Pf1State, names: tuple[str, ...], city: City | None) -> int:
    """Live buildings called one of ``names`` (in ``city``, or the kingdom); "trade routes" counts routes."""
    want = {n.lower() for n in names if n != "trade routes"}
    n = sum(1 for b in dv.live_buildings(s) if (city is None or b.city == city.id)
            and dv.btype(s, b).names() & want)
    if "trade routes" in names:
        n += sum(1 for r in s.trade_routes if r.status == "established")
    return n


def situational(s: Pf1State, e: UcEvent, city: City | None) -> tuple[int, str]:
    """The check modifier an event's data names (buildings counted, Law − Crime) and its explanation."""
    pen = count_buildings(s, e.check_penalty, city) if e.check_penalty else 0
    bon = count_buildings(s, e.check_bonus, city) if e.check_bonus else 0
    lc = 0
    if e.check_law_crime and city is not None:
        m = dv.effective_settlement(s, city)
        lc = m["law"] - m["crime"]
    parts = [f"−{pen} ({', '.join(e.check_penalty)})" if pen else "",
             f"+{bon} ({', '.join(e.check_bonus)})" if bon else "",
             f"Law − Crime {lc:+d}" if e.check_law_crime else ""]
    return bon - pen + lc, "; ".join(p for p in parts if p)


def apply_effects(ctx: Ctx, key: str, effs: tuple[UcEffect, ...], city: City | None,
                  out: list[ev.AppliedEffect], free: list[str]) -> None:
    """Decide each effect's value (dice rolled under ``key``) and months into ``out``; free buildings into ``free``."""
    s = ctx.state
    for f in effs:
        rolled: tuple[int, ...] = ()
        value = f.value
        if f.dice:
            roll = ctx.roll(f"{key}_{len(out) + 1}", f.dice)
            rolled = tuple(roll.faces)
            value = f.sign * int(roll.total)
        first, last = months(s, f.turns)
        if f.kind == "FREE_BUILDING":
            name = next(b for lo, hi, b in f.buildings if lo <= rolled[0] <= hi)
            free.append(name)
            out.append(ev.AppliedEffect(kind=f.kind, target=name, dice=rolled, city=city.id if city else None,
                                        note=f"a {name} built at no cost to the kingdom"))
            continue
        if f.kind == "ECONOMY_BUILDINGS":
            value = sum(1 for b in dv.live_buildings(s) if city is not None and b.city == city.id
                        and dv.building_attr(s, b, dv.btype(s, b), "ECONOMY") > 0)
            out.append(ev.AppliedEffect(kind=f.kind, target="ECONOMY", value=value, first_turn=first,
                                        last_turn=last, note="Economy + the settlement's buildings with Economy"))
            continue
        if f.kind in ("CONSUMPTION_PCT", "FARMS_LOST"):
            first = last = s.turn + 1  # the next Upkeep phase
            if f.kind == "FARMS_LOST":
                near: set[tuple[int, int]] = set()
                if city is not None:
                    h = s.hexes[city.hex]
                    near = {(h.q, h.r), *axial_neighbours(h.q, h.r)}
                value = f.value * sum(1 for h in dv.claimed_hexes(s) if h.improvement == "FARM" and (h.q, h.r) in near)
        where: list[City | None] = [city]
        if f.kind == "SETTLEMENT" and f.scope == "each_settlement":
            where = list(dv.live_cities(s))
        for c in where:
            cid = c.id if (f.kind == "SETTLEMENT" and f.scope != "kingdom" and c is not None) else None
            lasting = f.kind in _LASTING
            out.append(ev.AppliedEffect(kind=f.kind, target=f.target, value=value, dice=rolled,
                                        first_turn=None if lasting else first, last_turn=None if lasting else last,
                                        city=cid, note=f.note))


def ends(e: UcEvent, outcome: str, streak: int) -> bool:
    """Whether a continuous event ends with ``outcome`` (Inquisition: two successes in a row)."""
    if e.end_after_successes > 1:
        return outcome == "success" and streak + 1 >= e.end_after_successes
    return outcome in e.ends_on


def resolve(ctx: Ctx, e: UcEvent, n: int, *, rolls: tuple[tuple[str, int], ...], localized: str,
            city: City | None, continuing: bool, resolution: str, streak: int, hire: int) -> int:
    """Resolve one event (checks, outcome, effects) and emit ``pf1.uc_event_resolved``; ``hire`` is the hired
    adventurers' bonus still unused (returned: what is left after this event)."""
    s = ctx.state
    key = f"ev{n}"
    applied: list[ev.AppliedEffect] = []
    free: list[str] = []
    checks: list[ev.KCheck] = []
    outcome: Outcome = "none"
    attrs: list[str] = list(e.checks)
    if e.threatened and resolution == "checks":  # lots/hexes threatened: 1d6 lots (1 hex); a 6 adds 1d6 more
        t1 = faces(ctx, f"{key}_threat", "1d6")[0]
        more = faces(ctx, f"{key}_threat_more", "1d6")[0] if t1 == 6 else 0
        count = (t1 if e.threatened == "lot" else 1) + more
        attrs = ["STABILITY"] * count
        applied.append(ev.AppliedEffect(kind="NOTE", value=count, dice=(t1, *((more,) if more else ())),
                                        note=f"{count} {e.threatened}(s) threatened"))
    if resolution == "party":
        outcome = "success"
    elif resolution == "checks" and attrs:
        sit, why = situational(s, e, city)
        if why:
            ctx.explain(Breakdown(f"{e.name} check modifier", sit, note=why + " (UC Events)"))
        if hire:
            applied.append(ev.AppliedEffect(kind="TREASURY", value=-HIRE_COST[hire],
                                            note=f"adventurers hired: +{hire} on one check (UC Hiring Adventurers)"))
        for k, attr in enumerate(attrs, 1):
            checks.append(control_check(ctx, f"{key}_check_{k}", attr, situational=sit + (hire if k == 1 else 0)))
        hire = 0
        failed = sum(1 for c in checks if not c.success)
        outcome = "success" if failed == 0 else "failure" if failed == len(checks) else "partial"
    stop = e.continuous and ends(e, outcome, streak)
    if not continuing and resolution != "decline":
        apply_effects(ctx, key, e.always, city, applied, free)
    if continuing and outcome != "success":
        apply_effects(ctx, key, e.continued, city, applied, free)
    if not (stop and e.end_after_successes > 1):  # the check that ends an Inquisition brings no penalties
        group = {"success": e.success, "partial": e.partial, "failure": e.failure}.get(outcome, ())
        apply_effects(ctx, key, group, city, applied, free)
        for _ in range(sum(1 for c in checks if not c.success) if e.per_failure else 0):
            apply_effects(ctx, key, e.per_failure, city, applied, free)
    if e.calm and not continuing and ctx.state.unrest == 0 and not ctx.state.ongoing_events:
        apply_effects(ctx, key, e.calm, city, applied, free)
    going = e.continuous and not stop
    ctx.emit(ev.UcEventResolved(event=e.name, kind=e.kind, rolls=rolls, localized=localized,
                                city=city.id if city else None, continuing=continuing,
                                resolution=resolution, checks=tuple(checks), outcome=outcome,
                                effects=tuple(applied), ongoing=going,
                                streak=(streak + 1 if outcome == "success" else 0) if going else 0))
    for name in free:
        free_building(ctx, name, city)
    return hire


def free_building(ctx: Ctx, name: str, city: City | None) -> None:
    """A building an event gives (Noblesse Oblige, Wealthy Immigrant): free lots of the settlement, no BP, no limit."""
    s = ctx.state
    c = city or find_city(ctx, None)
    t = s.catalog.building(name)
    did = next((d for d in c.districts if s.districts[d].status == "READY"
                and 36 - len(dv.occupied(s, d)) >= t.lots), None)
    if did is None:
        ctx.explain(Breakdown(f"{name} (event)", 0, note=f"{c.name} has no free lots: the offer lapses"))
        return
    lots = place(ctx, did, t.lots, None, "UC Events (a building at no cost)")
    cats: tuple[ch.SlotCategory, ...] = tuple(x for x in ("minor", "medium", "major")
                                              for _ in range(getattr(t.slots, x)))
    ctx.emit(ev.BuildingConstructed(building=new_id(ctx, "B"), city=c.id, district=did, building_type=t.name,
                                    lots=lots, base_cost_bp=t.cost, cost_bp=0, unrest_delta=t.unrest, free=True,
                                    slots=cats))


def valid(s: Pf1State, e: UcEvent) -> bool:
    """An event the kingdom cannot have (a Pilgrimage without a Shrine, Temple or Cathedral) is rolled again."""
    if not e.requires_any:
        return True
    want = {n.lower() for n in e.requires_any}
    return any(dv.btype(s, b).names() & want for b in dv.live_buildings(s))


def draw(ctx: Ctx) -> list[tuple[UcEvent, tuple[tuple[str, int], ...], str]]:
    """Roll Table 4-7 (and a sub-table); a "roll again" row adds a roll, a duplicate event is ignored."""
    tabs = ctx.state.catalog.uc_events
    out: list[tuple[UcEvent, tuple[tuple[str, int], ...], str]] = []
    again, n = True, 0
    while again and n < 4:
        n += 1
        d = faces(ctx, "table" if n == 1 else f"table_{n}", "1d100")[0]
        row = tabs.top_row(d)
        again = row.roll_again
        rolls: list[tuple[str, int]] = [("top", d)]
        where = "kingdom"
        if row.event:
            e = tabs.named(row.event)
        else:
            assert row.table is not None
            for k in range(1, 6):
                sd = faces(ctx, f"table_{n}_{row.table}" + (f"_{k}" if k > 1 else ""), "1d100")[0]
                rolls.append((row.table, sd))
                e = tabs.sub_event(row.table, sd)
                if valid(ctx.state, e):
                    break
            where = "settlement" if row.table in ("sb", "sd") else "kingdom"
        if e.scope == "hex":
            where = "hex"
        if any(x[0].name == e.name for x in out):
            continue  # the same event again is ignored (Table 4-7 notes)
        out.append((e, tuple(rolls), where))
    return out


def event_phase(ctx: Ctx, c: ch.EventChoices, occurred: bool, choice: str) -> None:
    """UC Event phase: continuous events go on first, then this month's event(s) if one occurred."""
    s = ctx.state
    hire = int(c.hire_adventurers)
    n = 0
    for o in s.ongoing_events:
        n += 1
        e = s.catalog.uc_events.named(o.name)
        res = "party" if e.name in c.party_resolves else "decline" if e.name in c.declined else "checks"
        hire = resolve(ctx, e, n, rolls=(), localized="settlement" if o.city else "kingdom",
                       city=s.cities.get(o.city) if o.city else None, continuing=True, resolution=res,
                       streak=o.streak, hire=hire)
    if not occurred:
        return
    if choice == "roll":
        drawn = draw(ctx)
    else:
        e = s.catalog.uc_events.named(choice)
        drawn = [(e, (), "settlement" if e.scope == "settlement" else e.scope)]
    for e, rolls, where in drawn:
        n += 1
        city = find_city(ctx, c.event_city) if where == "settlement" else None
        res = "decline" if e.name in c.declined else "party" if e.name in c.party_resolves else "checks"
        hire = resolve(ctx, e, n, rolls=rolls, localized=where, city=city, continuing=False, resolution=res,
                       streak=0, hire=hire)
