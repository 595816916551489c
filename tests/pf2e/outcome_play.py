"""Drivers for the every-degree outcome tables (test_every_event_degree.py, test_every_activity_degree.py): play
one activity or one kingdom event at one degree through the real step (pure preview_turn, no store) and report
everything the step changed in the kingdom, so a table row states the whole outcome and "nothing else".

The d20 is chosen from the check's recorded modifier and DC (a first pass with a d20 of 10 tells them), so the
degree is the one under test (§3.0.1: total >= DC + 10 critical success, >= DC success, <= DC - 10 critical
failure; a natural 20 or 1 moves the degree one step).
"""

from __future__ import annotations

import functools
from typing import Any

from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.state import BuiltStructure, Hex, KingdomState, OngoingEvent, Settlement

from .helpers import Game, events_of, step_state

DEGREES = ("critical_success", "success", "failure", "critical_failure")

# what a step changes as a matter of course (bookkeeping, not an outcome)
_NOISE = {"step", "used_this_turn", "rp_spent_this_turn", "event_this_turn", "random_event_this_turn",
          "structures_built_this_turn", "counters", "modifiers", "pending", "boons", "cooldowns", "flags", "unrest",
          "rp", "ruin", "commodities", "fame", "diplomatic_relations", "trade_agreements", "ongoing_events",
          "event_watch", "xp_pending", "hexes", "extra_region", "events_due", "army_units", "leaders", "turn",
          "unlocked_activities"}


@functools.lru_cache(maxsize=8)
def _founded(options: tuple[tuple[str, Any], ...]) -> tuple[KingdomState, int, int]:
    """The section 6 founding, played once per set of options (states are immutable, so sharing is safe)."""
    g = Game(options=dict(options)).found()
    return g.state, g.seq, g.turn


def kingdom(setup: Any = None, **options: Any) -> Game:
    """The section 6 kingdom at turn 2 with room for every outcome: Unrest 8 (reductions are not floored),
    every activity unlocked, more skills trained, a Bank in the capital, a second settlement Far (a Town Hall) in
    H2, hills H1 and a forest H3 with a river on the map, diplomatic relations with Mivon."""
    opts = {"unlock_all_activities": True, **options}
    g = Game(options=opts)
    g.state, g.seq, g.turn = _founded(tuple(sorted(opts.items())))
    skills = {**g.state.skills, **dict.fromkeys(("magic", "statecraft", "scholarship", "defense", "folklore",
                                                 "exploration", "engineering", "industry", "warfare", "agriculture",
                                                 "wilderness", "boating"), "trained")}
    st = g.state.settlements[0]
    st = st.model_copy(update={"structures": (*st.structures, BuiltStructure(name="bank", block=0, lots=(1,)))})
    far = Settlement(id="far", name="Far", hex="H2", structures=(BuiltStructure(name="town-hall", block=0,
                                                                               lots=(0,)),),
                     blocks=(("town-hall", "", "", ""),))
    hexes = (*g.state.hexes, Hex(id="H1", terrain="hills", q=1, r=0),
             Hex(id="H2", terrain="plains", q=0, r=1, features=("settlement",)),
             Hex(id="H3", terrain="forest", q=-1, r=1, river=True))
    g.state = g.state.model_copy(update={"unrest": 8, "skills": skills, "settlements": (st, far), "hexes": hexes,
                                         "diplomatic_relations": ("mivon",)})
    if setup is not None:
        g.state = setup(g.state)
    return g


def degree_die(mod: int, dc: int, degree: str) -> int:
    want = {"critical_success": dc + 10 - mod, "success": dc - mod, "failure": dc - 1 - mod,
            "critical_failure": dc - 10 - mod}[degree]
    if degree == "critical_failure" and want < 2:
        assert 1 + mod < dc + 10, (mod, dc)  # a natural 1 lowers at least a success to a failure
        return 1
    if degree == "critical_success" and want > 19:
        assert 20 + mod >= dc - 9, (mod, dc)
        return 20
    assert 2 <= want <= 19, (degree, want)
    return want


def changes(a: KingdomState, b: KingdomState, drafts: list[Any], source: str) -> dict[str, Any]:
    """What changed from ``a`` to ``b``, in the words of a table row. Keys appear only when something changed:
    unrest, rp, ruin, goods, pending (dice, rp, fame, consumption, commodities), fame, mods (selector, type,
    value, expires), boons (kind, value, xp), relations, agreements, cooldowns, flags, ongoing (names after),
    watch (events due later), claimed (hex ids newly claimed), features (hex: features gained or lost),
    xp_pending, extra_region, unlocked (activities newly unlocked), gm (the outcome's GM-ruling notes),
    other (any other state field that changed)."""
    out: dict[str, Any] = {}
    if b.unrest != a.unrest:
        out["unrest"] = b.unrest - a.unrest
    if b.rp != a.rp:
        out["rp"] = b.rp - a.rp
    ruin = {r: b.ruin[r].points - a.ruin[r].points for r in T.RUINS if b.ruin[r].points != a.ruin[r].points}
    if ruin:
        out["ruin"] = ruin
    goods = {c: b.commodities[c] - a.commodities[c] for c in T.COMMODITIES if b.commodities[c] != a.commodities[c]}
    if goods:
        out["goods"] = goods
    pend: dict[str, Any] = {k: getattr(b.pending, k) - getattr(a.pending, k)
                            for k in ("bonus_dice", "penalty_dice", "rp", "fame", "consumption", "halve_dice")
                            if getattr(b.pending, k) != getattr(a.pending, k)}
    pc = {c: b.pending.commodities.get(c, 0) - a.pending.commodities.get(c, 0)
          for c in set(b.pending.commodities) | set(a.pending.commodities)
          if b.pending.commodities.get(c, 0) != a.pending.commodities.get(c, 0)}
    if pc:
        pend["commodities"] = pc
    if pend:
        out["pending"] = pend
    if b.fame != a.fame:
        out["fame"] = b.fame - a.fame
    old = {m.id for m in a.modifiers}
    mods = sorted((m.selector, m.type, m.value, m.expires) for m in b.modifiers if m.id not in old)
    if mods:
        out["mods"] = mods
    boons = sorted((x.kind, x.value, x.xp) for x in b.boons if x.id not in {y.id for y in a.boons})
    if boons:
        out["boons"] = boons
    if b.diplomatic_relations != a.diplomatic_relations:
        out["relations"] = sorted(b.diplomatic_relations)
    if b.trade_agreements != a.trade_agreements:
        out["agreements"] = sorted(b.trade_agreements)
    cool = {k: v for k, v in b.cooldowns.items() if a.cooldowns.get(k) != v}
    if cool:
        out["cooldowns"] = cool
    flags = [f for f in b.flags if f not in a.flags and f != "claimed-hex"]
    if flags:
        out["flags"] = flags
    if [o.name for o in b.ongoing_events] != [o.name for o in a.ongoing_events]:
        out["ongoing"] = [o.name for o in b.ongoing_events]
    olds = {w.id for w in a.event_watch}
    watch = sorted((w.event, w.turn, w.dc) for w in b.event_watch if w.id not in olds)
    if watch:
        out["watch"] = watch
    ah = {h.id: h for h in a.hexes}
    claimed = sorted(h.id for h in b.hexes if h.claimed and not (h.id in ah and ah[h.id].claimed))
    if claimed:
        out["claimed"] = claimed
    unclaimed = sorted(h.id for h in b.hexes if not h.claimed and h.id in ah and ah[h.id].claimed)
    if unclaimed:
        out["unclaimed"] = unclaimed
    feats: dict[str, list[str]] = {}
    for h in b.hexes:
        before = set(ah[h.id].features) if h.id in ah else set()
        gained = sorted(set(h.features) - before)
        lost = sorted(before - set(h.features))
        extra = []
        if h.id in ah:
            o = ah[h.id]
            for flag, now, was in (("river", h.river, o.river), ("lake", h.lake, o.lake), ("roads", h.roads, o.roads),
                                   ("fortified", h.fortified, o.fortified),
                                   ("failed_irrigation", h.failed_irrigation, o.failed_irrigation)):
                extra += [f"+{flag}"] if now and not was else [f"-{flag}"] if was and not now else []
            if h.work_site != o.work_site:
                ws = h.work_site
                extra.append(f"work_site:{ws.commodity if ws else None}"
                             + (f" doubled through turn {ws.double_until_turn}" if ws and ws.double_until_turn else ""))
        if gained or lost or extra:
            feats[h.id] = [f"+{f}" for f in gained] + [f"-{f}" for f in lost] + extra
    if feats:
        out["features"] = feats
    roles = {r: {k: v for k, v in b.leaders[r].model_dump().items() if a.leaders[r].model_dump().get(k) != v}
             for r in b.leaders if r in a.leaders and b.leaders[r] != a.leaders[r]}
    if roles:
        out["leaders"] = roles
    olds_ = {x.id: x for x in a.settlements}
    built: dict[str, list[str]] = {}
    lots: dict[str, list[str]] = {}
    for x in b.settlements:
        o = olds_.get(x.id)
        if o is None:
            continue
        now, was = sorted(y.name for y in x.structures), sorted(y.name for y in o.structures)
        diff_ = [f"+{n}" for n in now if now.count(n) > was.count(n)] + \
                [f"-{n}" for n in was if was.count(n) > now.count(n)]
        if diff_:
            built[x.id] = sorted(set(diff_))
        cells = [f"{bi}.{li}: {o.blocks[bi][li] if bi < len(o.blocks) else ''!r} -> {v!r}"
                 for bi, blk in enumerate(x.blocks) for li, v in enumerate(blk)
                 if v != (o.blocks[bi][li] if bi < len(o.blocks) else "")]
        if cells:
            lots[x.id] = cells
        if x.paid_unbuilt != o.paid_unbuilt:
            lots.setdefault(x.id, []).append(f"paid_unbuilt: {x.paid_unbuilt}")
    if built:
        out["structures"] = built
    if lots:
        out["lots"] = lots
    if a.army_units != b.army_units:
        olda = {x.id: x for x in a.army_units}
        armies: dict[str, Any] = {}
        for x in b.army_units:
            o = olda.pop(x.id, None)
            fields = {"hex": x.hex, "hp": x.hp, "conditions": dict(x.conditions), "tactics": list(x.tactics),
                      "gear": dict(x.gear), "consumption": x.consumption,
                      "garrison_consumption": x.garrison_consumption}
            if o is None:
                armies[x.id] = {"new": x.type, **fields}
            else:
                was = {"hex": o.hex, "hp": o.hp, "conditions": dict(o.conditions), "tactics": list(o.tactics),
                       "gear": dict(o.gear), "consumption": o.consumption,
                       "garrison_consumption": o.garrison_consumption}
                delta = {k: v for k, v in fields.items() if was[k] != v}
                if delta:
                    armies[x.id] = delta
        for gone in olda:
            armies[gone] = "gone"
        out["armies"] = armies
    unlocked = [x for x in b.unlocked_activities if x not in a.unlocked_activities]
    if unlocked:
        out["unlocked"] = unlocked
    for k in ("xp_pending", "extra_region"):
        if getattr(b, k) != getattr(a, k):
            out[k] = getattr(b, k) - getattr(a, k)
    gm = [d.note for d in drafts if isinstance(d, E.GMRuling)]
    if gm:
        out["gm"] = gm
    other = sorted(k for k in type(b).model_fields if k not in _NOISE and getattr(a, k) != getattr(b, k))
    if other:
        out["other"] = other
    return out


def _before(pv: Any, step: str) -> KingdomState:
    ids = [s.phase.id for s in pv.steps]
    if ids.index(step) == 0:
        return pv.state_before  # type: ignore[no-any-return]
    prev = pv.steps[ids.index(step) - 1]
    assert prev.state_after is not None
    return prev.state_after  # type: ignore[no-any-return]


def _check(pv: Any, name: str) -> E.CheckResolved:
    return next(d.payload for d in pv.drafts if isinstance(d.payload, E.CheckResolved) and d.payload.activity == name)


def play_event(name: str, degree: str, *, rolls: dict[str, list[int]] | None = None,
               choices: dict[str, Any] | None = None, setup: Any = None,
               stage: int | None = None) -> tuple[dict[str, Any], Any]:
    """Resolve kingdom event ``name`` in E2 at ``degree``; returns its changes and the recorded check. With
    ``stage`` the event is already ongoing at that stage and is checked again (E2 ``events`` row, key
    ``ongoing1``); roll keys in ``rolls`` are written from ``check`` and moved there."""
    key = "check"
    if stage is None:
        steps = {"event.resolve": {"choices": {"event": name, **(choices or {})}, "rolls": {"check": [10]}}}
    else:
        key = "ongoing1"
        base = setup

        def setup(s: KingdomState) -> KingdomState:
            s = base(s) if base is not None else s
            return s.model_copy(update={"ongoing_events": (OngoingEvent(name=name, stage=stage, since_turn=1),)})
        steps = {"event.resolve": {"choices": {"events": [{"event": name, **(choices or {})}]},
                                   "rolls": {key: [10]}}}
    chk = _check(kingdom(setup).play(steps), name)
    more = {key + k[len("check"):]: v for k, v in (rolls or {}).items()}
    steps["event.resolve"]["rolls"] = {key: [degree_die(chk.modifier, chk.dc, degree)], **more}
    pv = kingdom(setup).play(steps)
    got = _check(pv, name)
    assert got.degree == degree, (got.die, got.modifier, got.dc, got.degree)
    a, b = _before(pv, "event.resolve"), step_state(pv, "event.resolve")
    ev = T.base_events()[name]
    drafts = [d for d in events_of(pv, "event.resolve") if not (isinstance(d, E.GMRuling) and d.note == ev.gm_note)]
    return changes(a, b, drafts, name), got


STEP = {"leadership": "activity.leadership", "region": "activity.region", "civic": "activity.civic",
        "commerce": "", "army": "activity.army"}


def play_activity(name: str, degree: str, *, row: dict[str, Any] | None = None,
                  rolls: dict[str, list[int]] | None = None, setup: Any = None,
                  extra: dict[str, Any] | None = None) -> tuple[dict[str, Any], Any]:
    """Play activity ``name`` at ``degree`` in its own step; returns its changes and the recorded check."""
    act = T.base_activities()[name]
    step = STEP[act.category]
    entry = {"activity": name, **({"role": "ruler"} if act.category == "leadership" else {}), **(row or {})}

    def steps(die: int, more: dict[str, list[int]] | None) -> dict[str, Any]:
        out = {"upkeep.resources": {"rolls": {"resource": [4, 4, 4, 4, 4]}},
               step: {"choices": {"activities": [entry]}, "rolls": {"a1": [die], **(more or {})}}}
        out.update(extra or {})
        return out

    chk = _check(kingdom(setup).play(steps(10, None)), name)
    pv = kingdom(setup).play(steps(degree_die(chk.modifier, chk.dc, degree), rolls))
    got = _check(pv, name)
    assert got.degree == degree or any(isinstance(e, E.DegreeChanged) for e in events_of(pv, step)), got
    a, b = _before(pv, step), step_state(pv, step)
    drafts = [d for d in events_of(pv, step) if not (isinstance(d, E.GMRuling) and d.note == act.gm_note)]
    return changes(a, b, drafts, name), got


def play_step(step: str, name: str, degree: str, *, choices: dict[str, Any] | None = None,
              rolls: dict[str, list[int]] | None = None, setup: Any = None,
              extra: dict[str, Any] | None = None, key: str = "check") -> tuple[dict[str, Any], Any]:
    """Play the check ``name`` of step ``step`` (a Commerce step, New Leadership ...) at ``degree``."""
    def steps(die: int, more: dict[str, list[int]] | None) -> dict[str, Any]:
        out = {"upkeep.resources": {"rolls": {"resource": [4, 4, 4, 4, 4]}},
               step: {"choices": dict(choices or {}), "rolls": {key: [die], **(more or {})}}}
        out.update(extra or {})
        return out

    chk = _check(kingdom(setup).play(steps(10, None)), name)
    pv = kingdom(setup).play(steps(degree_die(chk.modifier, chk.dc, degree), rolls))
    got = _check(pv, name)
    assert got.degree == degree, got
    a, b = _before(pv, step), step_state(pv, step)
    return changes(a, b, list(events_of(pv, step)), name), got
