"""The founding step and every step of the kingdom turn (spec §3), as ``decide`` functions.

Step ids (in order): ``founding`` (turn 0), then per turn ``upkeep.leadership`` (U0+U1),
``upkeep.unrest`` (U2), ``upkeep.resources`` (U3), ``upkeep.consumption`` (U4),
``commerce.taxes`` (C1), ``commerce.expenses`` (C2), ``commerce.trade`` (C3),
``commerce.agreements`` (C4), ``activity.leadership`` (A1), ``activity.region`` (A2),
``activity.civic`` (A3), ``event.check`` (E1), ``event.resolve`` (E2), ``event.xp`` (E3),
``event.level`` (E4 and the end of the turn).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from kingdomlog.core.errors import InputError
from kingdomlog.core.ruleset import Phase
from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.activities import perform, run_effects
from kingdomlog.rulesets.pf2e.engine import (
    Ctx,
    add_ruin,
    dc_breakdown,
    flat,
    gain_commodity,
    gm_effects,
    hex_of,
    opt,
    resolve_check,
    unrest,
)
from kingdomlog.rulesets.pf2e.state import (
    KingdomState,
    anarchy_threshold,
    consumption,
    feat_event_modifiers,
    in_anarchy,
    resource_dice,
    size_of,
)

FOUNDING = Phase("founding", "Founding", "Charter, heartland, government, abilities, skills, leaders, capital")

PHASES: tuple[Phase, ...] = (
    Phase("upkeep.leadership", "U0-U1 Start of turn, assign leadership", "Fame +1; New Leadership; downtime",
          ("nl1",)),
    Phase("upkeep.unrest", "U2 Adjust Unrest", "Overcrowding, war, events, vacant Ruler; Ruin at 10+; anarchy",
          ("ruler_vacancy", "ruin", "hex_loss")),
    Phase("upkeep.resources", "U3 Resource Collection", "Roll Resource Dice; work sites", ("resource",)),
    Phase("upkeep.consumption", "U4 Pay Consumption", "Food, then RP (5 each) or 1d4 Unrest", ("unrest",)),
    Phase("commerce.taxes", "C1 Collect Taxes", "Collect Taxes, or a DC 11 flat check", ("check",)),
    Phase("commerce.expenses", "C2 Approve Expenses", "Improve Lifestyle or Tap Treasury", ("check",)),
    Phase("commerce.trade", "C3 Tap Commodities", "Trade Commodities", ("check",)),
    Phase("commerce.agreements", "C4 Manage Trade Agreements", "Manage Trade Agreements", ("check",)),
    Phase("activity.leadership", "A1 Leadership activities", "Per PC leader: 2, or 3 with a seat", ("a1",)),
    Phase("activity.region", "A2 Region activities", "Three Region activities", ("a1",)),
    Phase("activity.civic", "A3 Civic activities", "One per settlement", ("a1",)),
    Phase("event.check", "E1 Random event check", "Flat check against the event DC", ("event",)),
    Phase("event.resolve", "E2 Event resolution", "Resolve the event", ("check",)),
    Phase("event.xp", "E3 Kingdom XP", "Claims, event, milestones, unspent RP (max 120)", ()),
    Phase("event.level", "E4 Level up and end of turn", "Level up at 1000 XP; Fame lost; modifiers expire", ()),
)

STEP_IDS = tuple(p.id for p in PHASES)

Decider = Callable[[Ctx], None]
DECIDERS: dict[str, Decider] = {}


def step(name: str) -> Callable[[Decider], Decider]:
    def deco(fn: Decider) -> Decider:
        DECIDERS[name] = fn
        return fn

    return deco


def _need_founded(ctx: Ctx) -> None:
    if not ctx.state.founded:
        raise ctx.fail("the kingdom has not been founded yet (play turn 0 first)", "§2 founding")


# ------------------------------------------------------------------ founding


def default_founding() -> dict[str, Any]:
    """A legal founding with every default (the §6 kingdom's choices)."""
    return {
        "name": "Kingdom",
        "charter": "open",
        "heartland": "forest-or-swamp",
        "government": "yeomanry",
        "charter_free_boost": "stability",
        "government_free_boost": "stability",
        "free_boosts": ["loyalty", "economy"],
        "trained_skills": ["arts", "intrigue", "politics", "trade"],
        "leaders": {
            "ruler": {"holder": "Ruler", "kind": "pc", "invested": True},
            "counselor": {"holder": "Counselor", "kind": "pc", "invested": True},
            "treasurer": {"holder": "Treasurer", "kind": "pc", "invested": True},
            "general": {"holder": "General", "kind": "pc", "invested": True},
            "emissary": {"holder": "Emissary", "kind": "npc"},
            "viceroy": {"holder": "Viceroy", "kind": "npc"},
            "warden": {"holder": "Warden", "kind": "npc"},
        },
        "capital": {"id": "capital", "name": "Capital", "hex": "H0", "terrain": "plains"},
    }


@step("founding")
def founding(ctx: Ctx) -> None:
    """Turn 0 (§2.1, §2.2, §5.5 level 1, §5.7 initial proficiencies)."""
    c = {**default_founding(), **dict(ctx.choices)}
    if ctx.state.founded:
        raise ctx.fail("the kingdom is already founded", "§2 founding")
    charter = T.charters().get(c["charter"])
    heartland = T.heartlands().get(c["heartland"])
    government = T.governments().get(c["government"])
    if charter is None or heartland is None or government is None:
        raise InputError(f"founding: charter must be one of {sorted(T.charters())}, heartland one of"
                         f" {sorted(T.heartlands())}, government one of {sorted(T.governments())}")
    scores = dict.fromkeys(T.ABILITIES, 10)
    record: list[str] = []

    def boost(a: str, source: str) -> None:
        if a not in T.ABILITIES:
            raise InputError(f"founding: {source} boost {a!r} is not an ability ({', '.join(T.ABILITIES)})")
        scores[a] += 1 if scores[a] >= 18 else 2
        record.append(f"{source}:{a}")

    def free(name: str, n: int, fixed: list[str], source: str) -> list[str]:
        got = c.get(name)
        got = [got] if isinstance(got, str) else list(got or [])
        if len(got) != n:
            raise ctx.fail(f"{source} grants {n} free boost(s); '{name}' gives {len(got)}", "§2.2 ability boosts")
        if len(set(got) | set(fixed)) != len(got) + len(fixed):
            raise ctx.fail(f"{source}: boosts from one source must go to different abilities", "§2.2 ability boosts")
        return got

    if charter.boost:
        boost(charter.boost, "charter")
    for a in free("charter_free_boost", charter.free_boosts, [charter.boost] if charter.boost else [], "charter"):
        boost(a, "charter")
    if charter.flaw:
        scores[charter.flaw] -= 2
        record.append(f"flaw:{charter.flaw}")
    boost(heartland.boost, "heartland")
    for a in government.boosts:
        boost(a, "government")
    for a in free("government_free_boost", government.free_boosts, list(government.boosts), "government"):
        boost(a, "government")
    n_free = int(ctx.state.options.get("founding_free_boosts", 2))
    for a in free("free_boosts", n_free, [], "final free boosts"):
        boost(a, "free")
    skills = dict.fromkeys(T.core().skills, "untrained")
    for sk in government.skills:
        skills[sk] = "trained"
    extra = list(c.get("trained_skills") or [])
    if len(extra) > 4:
        raise ctx.fail("at most 4 skills besides the government's are trained at founding",
                       "§5.7 initial proficiencies")
    for sk in extra:
        if sk not in skills:
            raise InputError(f"founding: unknown skill {sk!r}")
        if skills[sk] == "trained":
            raise ctx.fail(f"{sk} is already trained by the government", "§5.7 initial proficiencies")
        skills[sk] = "trained"
    leaders: dict[str, E.LeaderIn] = {}
    for role, raw in dict(c.get("leaders") or {}).items():
        if role not in T.ROLES:
            raise InputError(f"founding: unknown leadership role {role!r}; roles: {', '.join(T.ROLES)}")
        leaders[role] = E.LeaderIn.model_validate(raw if isinstance(raw, Mapping) else {"holder": raw})
    invested = [r for r, ld in leaders.items() if ld.invested]
    if any(leaders[r].holder is None for r in invested):
        raise ctx.fail("only filled roles can be invested", "§2.3 invested roles")
    if len(invested) != 4 and ctx.state.options.get("require_four_invested", True):
        raise ctx.fail(f"exactly four roles are invested, got {len(invested)} ({', '.join(invested)})",
                       "§2.3 invested roles")
    cap = dict(c.get("capital") or {})
    cap_hex = str(cap.get("hex", "H0"))
    hexes_raw = list(c.get("hexes") or [{"id": cap_hex, "terrain": cap.get("terrain", "plains")}])
    hexes = [E.HexIn.model_validate(h) for h in hexes_raw]
    if cap_hex not in {h.id for h in hexes}:
        raise ctx.fail(f"the capital's hex {cap_hex} must be one of the founding hexes", "§2.8")
    structures = list(c.get("structures") or [])
    for name in structures:
        st = ctx.cat.structures.get(name)
        if st is None or st.lots != 1 or st.level > 1:
            raise ctx.fail(f"founding structure {name!r} must be a known 1-lot level-1 structure", "§2.8")
    if len(structures) > 4:
        raise ctx.fail("a village has one block of 4 lots", "§5.10")
    comm = {k: int(v) for k, v in dict(c.get("commodities") or {}).items()}
    for k, v in comm.items():
        if k not in T.COMMODITIES or not 0 <= v <= 4:
            raise ctx.fail(f"starting {k} must be a commodity within storage 4", "§2.6")
    resume = dict(c.get("resume") or {})
    ctx.emit(E.KingdomFounded(
        name=str(c["name"]), charter=charter.name, heartland=heartland.name, government=government.name,
        fame_type=c.get("fame_type", "fame"), boosts=record, scores=scores, skills=skills,
        feats=[government.feat] if government.feat else [], leaders=leaders, hexes=hexes,
        settlement_id=str(cap.get("id", "capital")), settlement_name=str(cap.get("name", "Capital")),
        settlement_hex=cap_hex, commodities=comm, starting_rp=int(c.get("starting_rp", 0)),
        party_level=int(c.get("party_level", 1)), structures=structures,
        resume_turn=int(resume.get("turn", 0)), xp=int(resume.get("xp", 0)), unrest=int(resume.get("unrest", 0)),
        ruin_points={k: int(v) for k, v in dict(resume.get("ruin_points") or {}).items()},
        event_dc=int(resume.get("event_dc", 16)),
    ))
    if resume:
        # An imported kingdom already earned the milestones its state shows (recorded with 0 XP).
        done = resume.get("milestones")
        for name, ms in T.milestones().items():
            if (name in done) if done is not None else _milestone_hit(ctx.state, ms.trigger):
                ctx.emit(E.MilestoneAchieved(milestone=name, xp=0))


# ------------------------------------------------------------------ upkeep


@step("upkeep.leadership")
def upkeep_leadership(ctx: Ctx) -> None:
    """U0 start of turn (Fame +1) and U1 Assign Leadership Roles (§3.1)."""
    _need_founded(ctx)
    s = ctx.state
    if s.step not in ("ended", "founding"):
        raise ctx.fail("the previous turn has not ended", "§3 turn order")
    turn = s.turn + 1
    party = int(opt(ctx.choices, "party_level", s.max_level, int))
    if not s.level <= party <= 20:
        raise ctx.fail(f"party level {party} is below the kingdom level {s.level}", "§2.1 max_level")
    gain = 1 + s.pending.fame
    after = min(3 if s.level < 20 else 4, s.fame + gain)
    ctx.emit(E.TurnStarted(turn=turn, party_level=party, fame_before=s.fame, fame_gained=gain, fame_after=after))
    for name in list(opt(ctx.choices, "unlock_activities", [], list)):
        if str(name) not in ctx.cat.activities:
            raise InputError(f"unlock_activities: unknown activity {name!r}")
        if str(name) not in s.unlocked_activities:
            ctx.emit(E.ActivityUnlocked(activity=str(name), cause="gm"))
    war = opt(ctx.choices, "at_war", s.at_war, bool)
    if war != s.at_war:
        ctx.emit(E.WarStatusChanged(at_war=war))
    for army, cons in dict(opt(ctx.choices, "armies", {}, dict)).items():
        if cons is not None and (not isinstance(cons, int) or cons < 0):
            raise InputError(f"armies[{army}]: consumption must be a whole number >= 0, or null to remove it")
        ctx.emit(E.ArmyChanged(army=str(army), consumption=cons))
    for rel in list(opt(ctx.choices, "relations", [], list)):
        try:
            ctx.emit(E.RelationsChanged.model_validate(rel))
        except Exception as exc:
            raise InputError(f"relations: {rel!r}: {exc}") from None
    for i, nl in enumerate(list(opt(ctx.choices, "new_leadership", [], list))):
        role = nl.get("role")
        if role not in T.ROLES:
            raise InputError(f"new_leadership #{i + 1}: role must be one of {', '.join(T.ROLES)}")
        skill = nl.get("skill", T.roles()[role].new_leadership_skill)
        if skill not in ("intrigue", "politics", "statecraft", "warfare"):
            raise ctx.fail("New Leadership uses Intrigue, Politics, Statecraft or Warfare", "§4.2")
        from kingdomlog.core.modifiers import Modifier as StackMod

        mods = []
        if T.roles()[role].new_leadership_skill == skill:
            mods.append(StackMod("matching role", 2, "circumstance"))
        if role == "ruler":
            mods.append(StackMod("assigning a Ruler", -4, "circumstance"))
        deg = resolve_check(ctx, key=f"nl{i + 1}", activity="new-leadership", category="upkeep", skill=skill,
                            dc=dc_breakdown(ctx, "control"), extra=mods, fame_reroll=bool(nl.get("fame_reroll")))
        holder, kind = nl.get("holder"), nl.get("kind", "pc")
        if deg.label == "critical_failure":
            ctx.emit(E.LeaderChanged(role=role, holder=None, kind=kind, cause="new_leadership critical failure"))
            unrest(ctx, 1, "new leadership critical failure")
            continue
        lmod, until = (1, turn + 1) if deg.label == "critical_success" else (-1, 0) if deg.label == "failure" \
            else (0, 0)
        ctx.emit(E.LeaderChanged(role=role, holder=holder, kind=kind,
                                 invested=bool(nl.get("invested", ctx.state.leaders[role].invested)),
                                 leadership_modifier=lmod, leadership_modifier_until=until))
        if role == "ruler" and deg.label != "critical_success":
            unrest(ctx, 1, "new Ruler")
        for r, inv in dict(nl.get("invested_roles") or {}).items():
            ld = ctx.state.leaders[r]
            ctx.emit(E.LeaderChanged(role=r, holder=ld.holder, kind=ld.kind, invested=bool(inv),
                                     leadership_modifier=ld.leadership_modifier,
                                     leadership_modifier_until=ld.leadership_modifier_until, cause="reinvest"))
    for role, choice in dict(opt(ctx.choices, "downtime", {}, dict)).items():
        if role not in T.ROLES:
            raise InputError(f"downtime: unknown role {role!r}")
        ld = ctx.state.leaders[role]
        if ld.holder is None:
            continue
        if choice not in ("forfeit_activity", "vacancy_penalty"):
            raise InputError(f"downtime[{role}] must be forfeit_activity or vacancy_penalty")
        if ld.kind == "npc":
            choice = "vacancy_penalty"
        ctx.emit(E.LeaderDowntime(role=role, spent_week=False, choice=choice))


@step("upkeep.unrest")
def upkeep_unrest(ctx: Ctx) -> None:
    """U2 Adjust Unrest (§3.1 U2, §5.4)."""
    s = ctx.state
    if s.turn == 1:
        if s.unrest:
            unrest(ctx, -s.unrest, "first Kingdom turn")
        return
    for st in s.settlements:
        if st.overcrowded:
            unrest(ctx, 1, f"{st.name} overcrowded")
    if s.at_war:
        unrest(ctx, 1, "at war")
    for ev in s.ongoing_events:
        unrest(ctx, ev.unrest_per_turn, f"event {ev.name}")
    if s.leaders["ruler"].holder is None:
        val, faces = ctx.roll("ruler_vacancy", "1d4")
        unrest(ctx, val, "Ruler vacant", faces)
    if ctx.state.unrest >= 10:
        total, faces = ctx.roll("ruin", "1d10")
        raw_split = opt(ctx.choices, "ruin_split", {}, (dict, str))
        split = {raw_split: total} if isinstance(raw_split, str) else dict(raw_split)
        if not split:
            left = total
            i = 0
            while left:
                r = _default_ruin_cycle(ctx.state, i)
                split[r] = split.get(r, 0) + 1
                left -= 1
                i += 1
        if sum(split.values()) != total or any(r not in T.RUINS or v < 0 for r, v in split.items()):
            raise ctx.fail(f"ruin_split must share the {total} Ruin points rolled among the four Ruins",
                           "§3.1 U2.4")
        for r in T.RUINS:
            if split.get(r):
                add_ruin(ctx, r, int(split[r]), "unrest 10+", faces=faces)
        claimed = [h for h in ctx.state.hexes if h.claimed]
        if claimed and not flat(ctx, "hex_loss", 11, "hex_loss"):
            default = next((h.id for h in reversed(claimed) if "settlement" not in h.features),
                           claimed[-1].id if claimed else "")
            lost = str(opt(ctx.choices, "lost_hex", default, str))
            hx = hex_of(ctx.state, lost)
            if hx is None or not hx.claimed:
                raise ctx.fail(f"lost_hex {lost!r} is not a claimed hex", "§4.10")
            ctx.emit(E.HexLost(hex_id=lost))
    if ctx.state.unrest >= anarchy_threshold(ctx.state) and opt(ctx.choices, "avert_anarchy_with_fame", False, bool):
        if ctx.state.fame < 1:
            raise ctx.fail("averting anarchy needs at least 1 Fame point", "§3.0.7")
        ctx.emit(E.FameSpent(kind="anarchy", points=ctx.state.fame))


def _default_ruin_cycle(state: KingdomState, i: int) -> str:
    order = sorted(T.RUINS, key=lambda r: (state.ruin[r].points - state.ruin[r].threshold, r))
    return order[i % 4]


@step("upkeep.resources")
def upkeep_resources(ctx: Ctx) -> None:
    """U3 Resource Collection (§3.1 U3)."""
    s = ctx.state
    n = int(resource_dice(s).total)
    die = {4: 4, 6: 6, 8: 8, 10: 10, 12: 12}[int(s.resource_die[1:])]
    faces: list[int] = []
    total = 0
    if n:
        total, faces = ctx.roll("resource", f"{n}d{die}")
    ctx.emit(E.ResourceDiceRolled(dice=n, die=die, faces=faces, total=total, pending_rp=s.pending.rp,
                                  rp_after=total + s.pending.rp))
    for hx in ctx.state.hexes:
        if hx.claimed and hx.work_site is not None:
            c = hx.work_site.commodity
            y = 2 if hx.resource == c or ("resource" in hx.features and hx.resource in ("", c)) else 1
            if hx.work_site.double_until_turn >= s.turn:
                y *= 2
            gain_commodity(ctx, c, y, f"work site {hx.id}")
    for com, v in sorted(ctx.state.pending.commodities.items()):
        if v:
            gain_commodity(ctx, com, v, "pending commodities")
            ctx.emit(E.PendingAdded(kind="commodity", amount=-v, commodity=com, cause="collected"))


@step("upkeep.consumption")
def upkeep_consumption(ctx: Ctx) -> None:
    """U4 Pay Consumption (§3.1 U4)."""
    s = ctx.state
    if s.turn == 1:
        return
    b = consumption(s)
    need = int(b.total)
    food = int(opt(ctx.choices, "food", min(need, s.commodities["food"]), int))
    if not 0 <= food <= min(need, s.commodities["food"]):
        raise ctx.fail(f"pay 0..{min(need, s.commodities['food'])} Food (stock {s.commodities['food']},"
                       f" consumption {need})", "§3.1 U4.3")
    rem = need - food
    method = "none"
    rp = 0
    faces: list[int] = []
    if rem:
        method = str(opt(ctx.choices, "remainder", "rp" if s.rp >= 5 * rem else "unrest", str))
        if method == "rp":
            rp = 5 * rem
            if rp > s.rp:
                raise ctx.fail(f"paying {rem} Consumption with RP costs {rp} RP; the kingdom has {s.rp}",
                               "§3.0.3 / §3.1 U4.4")
        elif method == "unrest":
            _, faces = ctx.roll("unrest", "1d4")
        else:
            raise InputError("remainder must be 'rp' or 'unrest'")
    ctx.emit(E.ConsumptionPaid(consumption=need, terms=[E.TermOut(label=t.label, value=int(t.value), kind=t.kind)
                                                        for t in b.terms], food=food, remainder=rem,
                               method=method, rp=rp, unrest_faces=faces))


# ------------------------------------------------------------------ commerce


@step("commerce.taxes")
def commerce_taxes(ctx: Ctx) -> None:
    """C1: Collect Taxes, a DC 11 flat check (-1 Unrest), or nothing (§3.2 C1)."""
    mode = str(opt(ctx.choices, "mode", "none" if in_anarchy(ctx.state) else "collect-taxes", str))
    if mode == "collect-taxes":
        perform(ctx, "collect-taxes", ctx.choices, key="check", category="commerce")
    elif mode == "flat-check":
        if flat(ctx, "check", 11, "unrest_reduction"):
            unrest(ctx, -1, "taxes flat check")
    elif mode != "none":
        raise InputError("commerce.taxes mode must be collect-taxes, flat-check or none")


def _one_of(ctx: Ctx, allowed: tuple[str, ...], rule: str) -> None:
    act = str(opt(ctx.choices, "activity", "none", str))
    if act == "none":
        return
    if act not in allowed:
        raise ctx.fail(f"this step allows {', '.join(allowed)}; not {act}", rule)
    perform(ctx, act, ctx.choices, key="check", category="commerce")


@step("commerce.expenses")
def commerce_expenses(ctx: Ctx) -> None:
    """C2: Improve Lifestyle or Tap Treasury (§3.2 C2)."""
    _one_of(ctx, ("improve-lifestyle", "tap-treasury"), "§3.2 C2")


@step("commerce.trade")
def commerce_trade(ctx: Ctx) -> None:
    """C3: Trade Commodities at most once (§3.2 C3)."""
    if ctx.choices.get("commodity") and "activity" not in ctx.choices:
        ctx.choices = {**ctx.choices, "activity": "trade-commodities"}
    _one_of(ctx, ("trade-commodities",), "§3.2 C3")


@step("commerce.agreements")
def commerce_agreements(ctx: Ctx) -> None:
    """C4: Manage Trade Agreements, only with agreements (§3.2 C4)."""
    if opt(ctx.choices, "activity", "none", str) != "none" and not ctx.state.trade_agreements:
        raise ctx.fail("there are no trade agreements to manage", "§3.2 C4")
    _one_of(ctx, ("manage-trade-agreements",), "§3.2 C4")


# ------------------------------------------------------------------ activity phase


def _activity_list(ctx: Ctx, category: str) -> None:
    acts = opt(ctx.choices, "activities", [], list)
    favored = [a for a in acts if isinstance(a, Mapping) and a.get("favored_land")]
    if favored:
        hexes = {json.dumps(a.get("hex"), sort_keys=True) for a in favored}
        if category != "region" or len(favored) > 2 or len(hexes) > 1 or ctx.state.favored_land_uses:
            raise ctx.fail("Favored Land pairs at most two Region activities in one hex, once per turn",
                           "§5.9 Favored Land")
    for i, raw in enumerate(acts):
        if not isinstance(raw, Mapping) or "activity" not in raw:
            raise InputError(f"{ctx.step}: activities[{i}] must be a table with 'activity'")
        merged = {"avert_ruin_penalty_with_fame": ctx.choices.get("avert_ruin_penalty_with_fame", False), **raw}
        perform(ctx, str(raw["activity"]), merged, key=f"a{i + 1}", category=category)


@step("activity.leadership")
def activity_leadership(ctx: Ctx) -> None:
    """A1 Leadership activities (§3.3 A1)."""
    _activity_list(ctx, "leadership")


@step("activity.region")
def activity_region(ctx: Ctx) -> None:
    """A2 Region activities (§3.3 A2)."""
    _activity_list(ctx, "region")


@step("activity.civic")
def activity_civic(ctx: Ctx) -> None:
    """A3 Civic activities (§3.3 A3)."""
    _activity_list(ctx, "civic")


# ------------------------------------------------------------------ event phase


@step("event.check")
def event_check(ctx: Ctx) -> None:
    """E1 random event flat check (§3.4 E1), and Crop Failure watches (§4.8 Establish Farmland)."""
    s = ctx.state
    for hid, left in sorted(s.crop_failure_watch.items()):
        if not flat(ctx, f"crop.{hid}", 6, f"crop_failure:{hid}"):
            ctx.emit(E.KingdomEventOccurred(name="crop-failure", target=hid))
        ctx.emit(E.CropFailureWatch(hex_id=hid, turns=left - 1))
    dc = s.event_dc
    die, _ = ctx.roll("event", "1d20")
    from kingdomlog.dice.checks import flat_check

    ok = flat_check(die, dc)
    step_ = int(s.options.get("event_dc_step", 5))
    ctx.emit(E.RandomEventChecked(dc=dc, die=die, occurred=ok, new_dc=16 if ok else max(1, dc - step_)))


@step("event.resolve")
def event_resolve(ctx: Ctx) -> None:
    """E2 resolve the event (§3.4 E2, §5.12): DC = Control DC + the event modifier."""
    s = ctx.state
    for name in list(opt(ctx.choices, "end_events", [], list)):
        if name not in {e.name for e in s.ongoing_events}:
            raise ctx.fail(f"{name} is not an ongoing event", "§3.4 E2.3")
        ctx.emit(E.KingdomEventResolved(name=name, continues=False))
    name = str(opt(ctx.choices, "event", "", str))
    if not name:
        if s.random_event_this_turn:
            ctx.emit(E.KingdomEventOccurred(name="unspecified", selection="gm"))
        extra = gm_effects(ctx.choices, "GM ruling")
        if extra:
            run_effects(ctx, extra, key="gm", name="GM ruling", choices=ctx.choices, prep={})
        return
    ev = ctx.cat.events.get(name)
    if ev is None:
        raise InputError(f"unknown kingdom event {name!r}")
    ctx.emit(E.KingdomEventOccurred(name=name, modifier=ev.modifier,
                                    target=str(opt(ctx.choices, "target", "kingdom", str))))
    degree = None
    skill = str(opt(ctx.choices, "skill", ev.skills[0] if ev.skills else "", str))
    if skill:
        if ev.skills and skill not in ev.skills:
            raise ctx.fail(f"{name} is resolved with {', '.join(ev.skills)}", "§3.4 E2")
        dc = dc_breakdown(ctx, "control", extra=ev.modifier, label=f"event modifier ({name})")
        degree = resolve_check(ctx, key="check", activity=name, category="event", skill=skill, dc=dc,
                               fame_reroll=bool(ctx.choices.get("fame_reroll")),
                               extra=feat_event_modifiers(s, list(ev.traits)))
        run_effects(ctx, ev.outcomes.for_degree(degree.label), key="check", name=name, choices=ctx.choices,
                    prep={})
    extra = gm_effects(ctx.choices, name)
    if extra:
        run_effects(ctx, extra, key="gm", name=f"{name} (GM ruling)", choices=ctx.choices, prep={})
    continues = bool(opt(ctx.choices, "continues", ev.continuous and (degree is None or not degree.succeeded), bool))
    ctx.emit(E.KingdomEventResolved(name=name, degree=degree.label if degree else None,
                                    continues=continues,
                                    unrest_per_turn=int(opt(ctx.choices, "unrest_per_turn", 0, int)),
                                    consumption_delta=int(opt(ctx.choices, "consumption_delta", 0, int))))


def _milestone_hit(state: KingdomState, trigger: str) -> bool:
    kind, _, val = trigger.partition(":")
    if kind == "feature":
        return any(h.claimed and val in h.features for h in state.hexes)
    if kind == "settlement":
        order = ("village", "town", "city", "metropolis")
        return any(order.index(s.type) >= order.index(val) for s in state.settlements)
    if kind == "size":
        return size_of(state) >= int(val)
    if kind == "rp_spent":
        return state.rp_spent_this_turn >= int(val)
    if kind == "all_roles":
        return all(ld.holder for ld in state.leaders.values())
    if kind == "trade_agreement":
        return bool(state.trade_agreements)
    if kind == "diplomatic_relations":
        return bool(state.diplomatic_relations)
    return False


@step("event.xp")
def event_xp(ctx: Ctx) -> None:
    """E3 Apply Kingdom XP (§3.4 E3, §5.13): claims, event, milestones, unspent RP up to 120."""
    s = ctx.state
    if s.xp_pending:
        ctx.emit(E.XPApplied(amount=s.xp_pending))
    if s.random_event_this_turn:
        if s.options.get("event_xp_mode", "flat_30") == "by_level":
            mod = next((T.catalog(s.homebrew).events[e].modifier for e in [s.event_this_turn]
                        if e in T.catalog(s.homebrew).events), 0)
            xp = T.core().event_xp_by_modifier[mod + 4]
        else:
            xp = 30
        ctx.emit(E.XPAwarded(amount=xp, source="random_event"))
    for name, ms in T.milestones().items():
        if name not in ctx.state.milestones and _milestone_hit(ctx.state, ms.trigger):
            ctx.emit(E.MilestoneAchieved(milestone=name, xp=ms.xp))
    gm = int(opt(ctx.choices, "gm_xp", 0, int))
    if gm:
        ctx.emit(E.XPAwarded(amount=gm, source="gm"))
    cap = int(s.options.get("rp_to_xp_limit", 120))
    rp = ctx.state.rp
    ctx.emit(E.RPConverted(rp=rp, xp=min(rp, cap), discarded=max(0, rp - cap)))
    fame_next = int(opt(ctx.choices, "gm_fame_next_turn", 0, int))
    if fame_next:
        ctx.emit(E.PendingAdded(kind="fame", amount=fame_next, cause="GM award"))


def feat_unmet(fd: T.Feat, skills: Mapping[str, str], scores: Mapping[str, int], chosen: str) -> str:
    """The first unmet prerequisite of a kingdom feat ("" if none): trained skills, minimum ability scores."""
    for sk in fd.requires_trained:
        name = chosen if sk == "chosen" else sk
        if not name:
            continue
        if skills.get(name, "untrained") == "untrained":
            return f"trained {name}"
    for ab, least in sorted(fd.requires_ability.items()):
        if scores.get(ab, 10) < least:
            return f"{ab} {least} (the kingdom has {scores.get(ab, 10)})"
    return ""


@step("event.level")
def event_level(ctx: Ctx) -> None:
    """E4 Increase Kingdom Level (§3.4 E4, §4.13, §4.14, §5.5) and the end of the turn."""
    s = ctx.state
    if s.xp >= 1000 and s.level < s.max_level and not s.leveled_this_turn:
        to = s.level + 1
        feats = T.levels()[to]
        c = ctx.choices
        rr = ""
        if feats.ruin_resistance:
            rr = str(opt(c, "ruin_resistance", max(T.RUINS, key=lambda r: (s.ruin[r].penalty, s.ruin[r].points)),
                         str))
            if rr not in T.RUINS:
                raise InputError(f"ruin_resistance must be one of {', '.join(T.RUINS)}")
        skill = ""
        if feats.skill_increase:
            default = next((k for k in sorted(T.core().skills) if s.skills.get(k, "untrained") == "untrained"), "")
            skill = str(opt(c, "skill_increase", default, str))
            if skill not in T.core().skills:
                raise InputError(f"skill_increase: unknown skill {skill!r}")
            if s.skills.get(skill, "untrained") == "legendary":
                raise ctx.fail(f"{skill} is already legendary", "§5.5 skill increase")
        boosts: list[str] = []
        if feats.ability_boosts:
            default_b = sorted(T.ABILITIES, key=lambda a: (s.scores[a], a))[: feats.ability_boosts]
            boosts = list(opt(c, "boosts", default_b, list))
            if len(boosts) != feats.ability_boosts or len(set(boosts)) != len(boosts) or any(
                    b not in T.ABILITIES for b in boosts):
                raise ctx.fail(f"choose {feats.ability_boosts} different abilities to boost", "§5.5 ability boosts")
        # feat prerequisites are checked against the kingdom with this level's skill increase and boosts
        skills_now = dict(s.skills)
        if skill:
            skills_now[skill] = T.RANKS[min(4, T.RANKS.index(skills_now.get(skill, "untrained")) + 1)]
        scores_now = dict(s.scores)
        for b in boosts:
            scores_now[b] += 1 if scores_now[b] >= 18 else 2
        feat = ""
        feat_skill = ""
        if feats.feat:
            cat = ctx.cat
            eligible = [f.name for f in cat.feats.values() if f.level <= to and (f.repeatable or f.name not in s.feats)
                        and "chosen" not in f.requires_trained and not feat_unmet(f, skills_now, scores_now, "")]
            feat = str(opt(c, "feat", eligible[0] if eligible else "", str))
            if feat:
                fd = cat.feats.get(feat)
                if fd is None:
                    raise InputError(f"unknown kingdom feat {feat!r}")
                if fd.level > to:
                    raise ctx.fail(f"{feat} is a level {fd.level} feat", "§5.5 kingdom feats")
                if feat in s.feats and not fd.repeatable:
                    raise ctx.fail(f"{feat} is already taken", "§5.5 kingdom feats")
                if fd.grants == "skill_training":
                    feat_skill = str(opt(c, "feat_skill", next((k for k in sorted(T.core().skills)
                                                               if s.skills.get(k, "untrained") == "untrained"
                                                               and k != skill), ""), str))
                elif "chosen" in fd.requires_trained:
                    feat_skill = str(opt(c, "feat_skill", "", str))
                    if feat_skill not in T.core().skills:
                        raise InputError(f"{feat}: choose the skill it is taken for as 'feat_skill'")
                unmet = feat_unmet(fd, skills_now, scores_now, feat_skill)
                if unmet:
                    raise ctx.fail(f"{feat} requires {unmet}", "§5.5 kingdom feat prerequisites")
        ctx.emit(E.LeveledUp(level_from=s.level, level_to=to, features=list(feats.features), ruin_resistance=rr,
                             skill_increase=skill, feat=feat, feat_skill=feat_skill, boosts=boosts))
    for role, skill in dict(opt(ctx.choices, "leader_checks", {}, dict)).items():
        ld = ctx.state.leaders.get(role)
        if ld is None or ld.leadership_modifier >= 0 or ld.leadership_modifier_until:
            raise ctx.fail(f"the {role} has no lasting New Leadership penalty to shake off", "§4.2 failure")
        if T.core().skills.get(skill) != "loyalty":
            raise ctx.fail(f"{skill} is not a Loyalty-based skill", "§4.2 failure")
        deg = resolve_check(ctx, key=f"leader.{role}", activity="new-leadership-recheck", category="upkeep",
                            skill=skill, dc=dc_breakdown(ctx, "control"), role=role)
        if deg.succeeded:
            ctx.emit(E.LeaderChanged(role=role, holder=ld.holder, kind=ld.kind, invested=ld.invested,
                                     cause="new leadership penalty removed"))
        elif deg.label == "critical_failure":
            ctx.emit(E.LeaderChanged(role=role, holder=None, kind=ld.kind, cause="new_leadership critical failure"))
            unrest(ctx, 1, "new leadership critical failure")
    expired = [m.id for m in ctx.state.modifiers if m.expires == "end_of_this_turn"]
    ctx.emit(E.TurnEnded(turn=ctx.state.turn, fame_lost=ctx.state.fame, modifiers_expired=expired))


def decide_step(state: KingdomState, step_id: str, choices: Mapping[str, Any], dice: Any) -> Ctx:
    """Run one step on ``state``; the context holds the drafts (nothing if it raised)."""
    fn = DECIDERS.get(step_id)
    if fn is None:
        raise InputError(f"unknown step {step_id!r}; steps: founding, {', '.join(STEP_IDS)}")
    if step_id != "founding":
        _guard(state, step_id)
    ctx = Ctx(state=state, step=step_id, dice=dice, choices=dict(choices))
    fn(ctx)
    return ctx


def _guard(state: KingdomState, step_id: str) -> None:
    from kingdomlog.core.errors import RuleError

    if not state.founded:
        raise RuleError("the kingdom has not been founded yet (play turn 0 first)", rule="§2", step=step_id)
    if step_id == "upkeep.leadership":
        return
    if state.step in ("ended", "founding"):
        raise RuleError(f"step {step_id} needs a turn in progress (start with upkeep.leadership)",
                        rule="§3 turn order", step=step_id)
