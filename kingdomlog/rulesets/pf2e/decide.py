"""The founding step and every step of the kingdom turn (spec §3): their typed choices and ``decide``.

Step ids (in order): ``founding`` (turn 0), then per turn ``upkeep.leadership`` (U0+U1),
``upkeep.unrest`` (U2), ``upkeep.resources`` (U3), ``upkeep.consumption`` (U4),
``commerce.taxes`` (C1), ``commerce.expenses`` (C2), ``commerce.trade`` (C3),
``commerce.agreements`` (C4), ``activity.leadership`` (A1), ``activity.region`` (A2),
``activity.civic`` (A3), ``event.check`` (E1), ``event.resolve`` (E2), ``event.xp`` (E3),
``event.level`` (E4 and the end of the turn). Each ``decide(ctx, choices)`` receives the
validated choices (``choices.py``) and emits through the shared ``StepContext``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from kingdomlog.core.choices import NoChoices
from kingdomlog.core.errors import InputError
from kingdomlog.core.modifiers import Modifier as StackMod
from kingdomlog.core.ruleset import Breakdown, Step, Term
from kingdomlog.dice.checks import CheckSpec
from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e import rules as R
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.activities import perform, run_effects
from kingdomlog.rulesets.pf2e.choices import (
    ActivityRow,
    AgreementsChoices,
    CivicActivities,
    ConsumptionChoices,
    EventResolveChoices,
    EventXPChoices,
    ExpensesChoices,
    FoundingChoices,
    HexEntry,
    LeadershipActivities,
    LeadershipUpkeepChoices,
    LevelChoices,
    MapEntry,
    RegionActivities,
    TaxesChoices,
    TradeChoices,
    UnrestChoices,
)
from kingdomlog.rulesets.pf2e.engine import (
    Asked,
    Ctx,
    Picks,
    add_ruin,
    catalog,
    dc_breakdown,
    flat,
    gain_commodity,
    gm_effects,
    hex_of,
    resolve_check,
    roll,
    ruins_named,
    unrest,
)
from kingdomlog.rulesets.pf2e.state import (
    KingdomState,
    anarchy_threshold,
    consumption,
    feat_event_modifiers,
    hex_at,
    in_anarchy,
    resource_dice,
    size_of,
)

Decide = Callable[[Ctx, Any], None]


def _guard(ctx: Ctx) -> None:
    """Every step after founding needs a founded kingdom, and a turn in progress after U0."""
    if not ctx.state.founded:
        raise ctx.fail("the kingdom has not been founded yet (play turn 0 first)", "§2")
    if ctx.step != "upkeep.leadership" and ctx.state.step in ("ended", "founding"):
        raise ctx.fail(f"step {ctx.step} needs a turn in progress (start with upkeep.leadership)", "§3 turn order")


def turn_step(fn: Decide) -> Decide:
    """A step of a kingdom turn: ``_guard`` first."""

    def decide(ctx: Ctx, choices: Any) -> None:
        _guard(ctx)
        fn(ctx, choices)

    decide.__name__ = fn.__name__
    decide.__doc__ = fn.__doc__
    return decide


CommerceChoices = TaxesChoices | ExpensesChoices | TradeChoices | AgreementsChoices


def _row(activity: str, c: CommerceChoices, **more: Any) -> ActivityRow:
    """The inputs of a Commerce step's activity, as an activity row."""
    fields: dict[str, Any] = {"skill": c.skill, "fame_reroll": c.fame_reroll, "ruin": c.ruin, "ruins": c.ruins,
                              "gm_effects": c.gm_effects, **more}
    return ActivityRow(activity=activity, **fields)


def _asked(c: CommerceChoices | EventResolveChoices) -> Asked:
    return Asked(avert_ruin_penalty=c.avert_ruin_penalty_with_fame, ruins=ruins_named(c.ruins, c.ruin))


# ------------------------------------------------------------------ founding


def founding(ctx: Ctx, c: FoundingChoices) -> None:
    """Turn 0 (§2.1, §2.2, §5.5 level 1, §5.7 initial proficiencies)."""
    if ctx.state.founded:
        raise ctx.fail("the kingdom is already founded", "§2 founding")
    charter = T.charters()[c.charter]
    heartland = T.heartlands()[c.heartland]
    government = T.governments()[c.government]
    scores = dict.fromkeys(T.ABILITIES, 10)
    record: list[str] = []

    def boost(a: str, source: str) -> None:
        scores[a] = R.boosted(scores[a])
        record.append(f"{source}:{a}")

    def free(name: str, n: int, fixed: list[str], source: str) -> list[str]:
        given = getattr(c, name)
        got = [given] if isinstance(given, str) else list(given or [])
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
    extra = list(c.trained_skills)
    if len(extra) > 4:
        raise ctx.fail("at most 4 skills besides the government's are trained at founding",
                       "§5.7 initial proficiencies")
    for sk in extra:
        if skills[sk] == "trained":
            raise ctx.fail(f"{sk} is already trained by the government", "§5.7 initial proficiencies")
        skills[sk] = "trained"
    leaders = {role: E.LeaderIn(holder=ld.holder, kind=ld.kind, invested=ld.invested)
               for role, ld in c.leaders.items()}
    invested = [r for r, ld in leaders.items() if ld.invested]
    if any(leaders[r].holder is None for r in invested):
        raise ctx.fail("only filled roles can be invested", "§2.3 invested roles")
    if len(invested) != 4 and ctx.state.options.get("require_four_invested", True):
        raise ctx.fail(f"exactly four roles are invested, got {len(invested)} ({', '.join(invested)})",
                       "§2.3 invested roles")
    cap = c.capital
    hexes = [E.HexIn.model_validate(h.model_dump()) for h in (c.hexes or [HexEntry(id=cap.hex, terrain=cap.terrain)])]
    if cap.hex not in {h.id for h in hexes}:
        raise ctx.fail(f"the capital's hex {cap.hex} must be one of the founding hexes", "§2.8")
    seen: dict[tuple[int, int], str] = {}
    for h in hexes:
        if (h.q is None) != (h.r is None):
            raise ctx.fail(f"founding hex {h.id} needs both q and r (or neither)", "§2.7 hex coordinates")
        if h.q is not None and h.r is not None:
            if (h.q, h.r) in seen:
                raise ctx.fail(f"founding hexes {seen[(h.q, h.r)]} and {h.id} are both at ({h.q}, {h.r})",
                               "§2.7 hex coordinates")
            seen[(h.q, h.r)] = h.id
    if len({h.id for h in hexes}) != len(hexes):
        raise ctx.fail("founding hexes must have different ids", "§2.7")
    structures = list(c.structures)
    for name in structures:
        st = catalog(ctx).structures.get(name)
        if st is None or st.lots != 1 or st.level > 1:
            raise ctx.fail(f"founding structure {name!r} must be a known 1-lot level-1 structure", "§2.8")
    if len(structures) > 4:
        raise ctx.fail("a village has one block of 4 lots", "§5.10")
    comm = dict(c.commodities)
    for k, v in comm.items():
        if not 0 <= v <= 4:
            raise ctx.fail(f"starting {k} must be a commodity within storage 4", "§2.6")
    resume = c.resume
    imported = resume is not None and bool(resume.model_fields_set)
    ctx.emit(E.KingdomFounded(
        name=c.name, charter=charter.name, heartland=heartland.name, government=government.name,
        fame_type=c.fame_type, boosts=record, scores=scores, skills=skills,
        feats=[government.feat] if government.feat else [], leaders=leaders, hexes=hexes,
        settlement_id=cap.id, settlement_name=cap.name, settlement_hex=cap.hex, commodities=comm,
        starting_rp=c.starting_rp, party_level=c.party_level, structures=structures,
        resume_turn=resume.turn if resume else 0, xp=resume.xp if resume else 0,
        unrest=resume.unrest if resume else 0, ruin_points=dict(resume.ruin_points) if resume else {},
        event_dc=resume.event_dc if resume else 16,
    ))
    if imported:
        assert resume is not None
        # An imported kingdom already earned the milestones its state shows (recorded with 0 XP).
        done = resume.milestones
        for name, ms in T.milestones().items():
            if (name in done) if done is not None else _milestone_hit(ctx.state, ms.trigger):
                ctx.emit(E.MilestoneAchieved(milestone=name, xp=0))


# ------------------------------------------------------------------ upkeep


@turn_step
def upkeep_leadership(ctx: Ctx, c: LeadershipUpkeepChoices) -> None:
    """U0 start of turn (Fame +1) and U1 Assign Leadership Roles (§3.1)."""
    s = ctx.state
    if s.step not in ("ended", "founding"):
        raise ctx.fail("the previous turn has not ended", "§3 turn order")
    turn = s.turn + 1
    party = c.party_level if c.party_level is not None else s.max_level
    if not s.level <= party <= 20:
        raise ctx.fail(f"party level {party} is below the kingdom level {s.level}", "§2.1 max_level")
    gain = 1 + s.pending.fame
    after = R.fame_at_turn_start(s.fame, gain, s.level)
    ctx.emit(E.TurnStarted(turn=turn, party_level=party, fame_before=s.fame, fame_gained=gain, fame_after=after))
    for name in c.unlock_activities:
        if name not in s.unlocked_activities:
            ctx.emit(E.ActivityUnlocked(activity=name, cause="gm"))
    place_hexes(ctx, c.map)
    war = c.at_war if c.at_war is not None else s.at_war
    if war != s.at_war:
        ctx.emit(E.WarStatusChanged(at_war=war))
    for army, cons in c.armies.items():
        ctx.emit(E.ArmyChanged(army=army, consumption=cons))
    for rel in c.relations:
        ctx.emit(E.RelationsChanged(group=rel.group, kind=rel.kind, added=rel.added))
    for i, nl in enumerate(c.new_leadership):
        role = nl.role
        skill = nl.skill if nl.skill is not None else T.roles()[role].new_leadership_skill
        if skill not in ("intrigue", "politics", "statecraft", "warfare"):
            raise ctx.fail("New Leadership uses Intrigue, Politics, Statecraft or Warfare", "§4.2")
        mods = []
        if T.roles()[role].new_leadership_skill == skill:
            mods.append(StackMod("matching role", 2, "circumstance"))
        if role == "ruler":
            mods.append(StackMod("assigning a Ruler", -4, "circumstance"))
        deg = resolve_check(ctx, key=f"nl{i + 1}", activity="new-leadership", category="upkeep", skill=skill,
                            dc=dc_breakdown(ctx.state, "control"), extra=mods, fame_reroll=nl.fame_reroll)
        holder, kind = nl.holder, nl.kind
        if deg.label == "critical_failure":
            ctx.emit(E.LeaderChanged(role=role, holder=None, kind=kind, cause="new_leadership critical failure"))
            unrest(ctx, 1, "new leadership critical failure")
            continue
        lmod, until = (1, turn + 1) if deg.label == "critical_success" else (-1, 0) if deg.label == "failure" \
            else (0, 0)
        invested = nl.invested if nl.invested is not None else ctx.state.leaders[role].invested
        ctx.emit(E.LeaderChanged(role=role, holder=holder, kind=kind, invested=invested,
                                 leadership_modifier=lmod, leadership_modifier_until=until))
        if role == "ruler" and deg.label != "critical_success":
            unrest(ctx, 1, "new Ruler")
        for r, inv in nl.invested_roles.items():
            ld = ctx.state.leaders[r]
            ctx.emit(E.LeaderChanged(role=r, holder=ld.holder, kind=ld.kind, invested=inv,
                                     leadership_modifier=ld.leadership_modifier,
                                     leadership_modifier_until=ld.leadership_modifier_until, cause="reinvest"))
    for role, choice in c.downtime.items():
        ld = ctx.state.leaders[role]
        if ld.holder is None:
            continue
        if ld.kind == "npc":
            choice = "vacancy_penalty"
        ctx.emit(E.LeaderDowntime(role=role, spent_week=False, choice=choice))


def place_hexes(ctx: Ctx, entries: list[MapEntry]) -> None:
    """The GM places hexes on the map (issue 13): each at axial (q, r), no two hexes on one place (§2.7)."""
    ids = [e.id for e in entries]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ctx.fail(f"map: hex {dup[0]} is placed twice in one step", "§2.7 hex coordinates")
    for e in entries:
        other = hex_at(ctx.state, (e.q, e.r))
        if other is not None and other.id != e.id:
            raise ctx.fail(f"map: ({e.q}, {e.r}) already holds hex {other.id}; {e.id} cannot go there",
                           "§2.7 hex coordinates")
        ctx.emit(E.HexPlaced(hex_id=e.id, q=e.q, r=e.r, terrain=e.terrain, river=e.river, lake=e.lake,
                             features=list(e.features) if e.features is not None else None, resource=e.resource))


@turn_step
def upkeep_unrest(ctx: Ctx, c: UnrestChoices) -> None:
    """U2 Adjust Unrest (§3.1 U2, §5.4)."""
    s = ctx.state
    asked = Asked(avert_ruin_penalty=c.avert_ruin_penalty_with_fame)
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
        val, faces = roll(ctx, "ruler_vacancy", "1d4")
        unrest(ctx, val, "Ruler vacant", faces)
    if ctx.state.unrest >= 10:
        total, faces = roll(ctx, "ruin", "1d10")
        split: dict[str, int] = {c.ruin_split: total} if isinstance(c.ruin_split, str) else {
            str(r): n for r, n in c.ruin_split.items()}
        if not split:
            left = total
            i = 0
            while left:
                r = _default_ruin_cycle(ctx.state, i)
                split[r] = split.get(r, 0) + 1
                left -= 1
                i += 1
        if sum(split.values()) != total:
            raise ctx.fail(f"ruin_split must share the {total} Ruin points rolled among the four Ruins",
                           "§3.1 U2.4")
        for r in T.RUINS:
            if split.get(r):
                add_ruin(ctx, asked, r, int(split[r]), "unrest 10+", faces=faces)
        claimed = [h for h in ctx.state.hexes if h.claimed]
        if claimed and not flat(ctx, "hex_loss", 11, "hex_loss"):
            default = next((h.id for h in reversed(claimed) if "settlement" not in h.features),
                           claimed[-1].id if claimed else "")
            lost = c.lost_hex or default
            hx = hex_of(ctx.state, lost)
            if hx is None or not hx.claimed:
                raise ctx.fail(f"lost_hex {lost!r} is not a claimed hex", "§4.10")
            ctx.emit(E.HexLost(hex_id=lost))
    if ctx.state.unrest >= anarchy_threshold(ctx.state) and c.avert_anarchy_with_fame:
        if ctx.state.fame < 1:
            raise ctx.fail("averting anarchy needs at least 1 Fame point", "§3.0.7")
        ctx.emit(E.FameSpent(kind="anarchy", points=ctx.state.fame))


def _default_ruin_cycle(state: KingdomState, i: int) -> str:
    order = sorted(T.RUINS, key=lambda r: (state.ruin[r].points - state.ruin[r].threshold, r))
    return order[i % 4]


@turn_step
def upkeep_resources(ctx: Ctx, c: NoChoices) -> None:
    """U3 Resource Collection (§3.1 U3)."""
    s = ctx.state
    dice = resource_dice(s)
    ctx.explain(dice)
    n = int(dice.total)
    die = {4: 4, 6: 6, 8: 8, 10: 10, 12: 12}[int(s.resource_die[1:])]
    faces: list[int] = []
    total = 0
    if n:
        total, faces = roll(ctx, "resource", f"{n}d{die}")
    ctx.emit(E.ResourceDiceRolled(dice=n, die=die, faces=faces, total=total, pending_rp=s.pending.rp,
                                  rp_after=total + s.pending.rp))
    for hx in ctx.state.hexes:
        if hx.claimed and hx.work_site is not None:
            site = hx.work_site.commodity
            y = 2 if hx.resource == site or ("resource" in hx.features and hx.resource in ("", site)) else 1
            if hx.work_site.double_until_turn >= s.turn:
                y *= 2
            gain_commodity(ctx, site, y, f"work site {hx.id}")
    for com, v in sorted(ctx.state.pending.commodities.items()):
        if v:
            gain_commodity(ctx, com, v, "pending commodities")
            ctx.emit(E.PendingAdded(kind="commodity", amount=-v, commodity=com, cause="collected"))


@turn_step
def upkeep_consumption(ctx: Ctx, c: ConsumptionChoices) -> None:
    """U4 Pay Consumption (§3.1 U4)."""
    s = ctx.state
    if s.turn == 1:
        return
    b = consumption(s)
    ctx.explain(b)
    need = int(b.total)
    stock = s.commodities["food"]
    food = c.food if c.food is not None else min(need, stock)
    if not 0 <= food <= min(need, stock):
        raise ctx.fail(f"pay 0..{min(need, stock)} Food (stock {stock}, consumption {need})", "§3.1 U4.3")
    rem = need - food
    method = "none"
    rp = 0
    faces: list[int] = []
    if rem:
        method = c.remainder or ("rp" if s.rp >= R.consumption_rp(rem) else "unrest")
        if method == "rp":
            rp = R.consumption_rp(rem)
            if rp > s.rp:
                raise ctx.fail(f"paying {rem} Consumption with RP costs {rp} RP; the kingdom has {s.rp}",
                               "§3.0.3 / §3.1 U4.4")
        else:
            _, faces = roll(ctx, "unrest", "1d4")
    ctx.emit(E.ConsumptionPaid(consumption=need, terms=[E.TermOut(label=t.label, value=int(t.value), kind=t.kind)
                                                        for t in b.terms], food=food, remainder=rem,
                               method=method, rp=rp, unrest_faces=faces))


# ------------------------------------------------------------------ commerce


@turn_step
def commerce_taxes(ctx: Ctx, c: TaxesChoices) -> None:
    """C1: Collect Taxes, a DC 11 flat check (-1 Unrest), or nothing (§3.2 C1)."""
    mode = c.mode or ("none" if in_anarchy(ctx.state) else "collect-taxes")
    if mode == "collect-taxes":
        perform(ctx, _asked(c), _row("collect-taxes", c), key="check", category="commerce")
    elif mode == "flat-check" and flat(ctx, "check", 11, "unrest_reduction"):
        unrest(ctx, -1, "taxes flat check")


@turn_step
def commerce_expenses(ctx: Ctx, c: ExpensesChoices) -> None:
    """C2: Improve Lifestyle or Tap Treasury (§3.2 C2)."""
    if c.activity != "none":
        perform(ctx, _asked(c), _row(c.activity, c), key="check", category="commerce")


@turn_step
def commerce_trade(ctx: Ctx, c: TradeChoices) -> None:
    """C3: Trade Commodities at most once (§3.2 C3)."""
    act = c.activity or ("trade-commodities" if c.commodity else "none")
    if act != "none":
        row = _row(act, c, commodity=c.commodity or None, quantity=c.quantity, group=c.group)
        perform(ctx, _asked(c), row, key="check", category="commerce")


@turn_step
def commerce_agreements(ctx: Ctx, c: AgreementsChoices) -> None:
    """C4: Manage Trade Agreements, only with agreements (§3.2 C4)."""
    if c.activity == "none":
        return
    if not ctx.state.trade_agreements:
        raise ctx.fail("there are no trade agreements to manage", "§3.2 C4")
    row = _row(c.activity, c, agreements=c.agreements, option=c.option, goods=c.goods)
    perform(ctx, _asked(c), row, key="check", category="commerce")


# ------------------------------------------------------------------ activity phase


def activity_rows(ctx: Ctx, category: str, rows: list[Any], avert: bool) -> None:
    """An Activity-phase step: each row in order (roll keys a1, a2, ...); Favored Land pairs (§5.9)."""
    favored = [a for a in rows if a.favored_land]
    if favored:
        hexes = {json.dumps(a.hex if a.hex is None or isinstance(a.hex, str) else a.hex.model_dump(exclude_unset=True),
                            sort_keys=True) for a in favored}
        if category != "region" or len(favored) > 2 or len(hexes) > 1 or ctx.state.favored_land_uses:
            raise ctx.fail("Favored Land pairs at most two Region activities in one hex, once per turn",
                           "§5.9 Favored Land")
    asked = Asked(avert_ruin_penalty=avert)
    for i, row in enumerate(rows):
        perform(ctx, asked, row, key=f"a{i + 1}", category=category)


@turn_step
def activity_leadership(ctx: Ctx, c: LeadershipActivities) -> None:
    """A1 Leadership activities (§3.3 A1)."""
    activity_rows(ctx, "leadership", list(c.activities), c.avert_ruin_penalty_with_fame)


@turn_step
def activity_region(ctx: Ctx, c: RegionActivities) -> None:
    """A2 Region activities (§3.3 A2)."""
    activity_rows(ctx, "region", list(c.activities), c.avert_ruin_penalty_with_fame)


@turn_step
def activity_civic(ctx: Ctx, c: CivicActivities) -> None:
    """A3 Civic activities (§3.3 A3)."""
    activity_rows(ctx, "civic", list(c.activities), c.avert_ruin_penalty_with_fame)


# ------------------------------------------------------------------ event phase


@turn_step
def event_check(ctx: Ctx, c: NoChoices) -> None:
    """E1 random event flat check (§3.4 E1), and Crop Failure watches (§4.8 Establish Farmland)."""
    s = ctx.state
    for hid, left in sorted(s.crop_failure_watch.items()):
        if not flat(ctx, f"crop.{hid}", 6, f"crop_failure:{hid}"):
            ctx.emit(E.KingdomEventOccurred(name="crop-failure", target=hid))
        ctx.emit(E.CropFailureWatch(hex_id=hid, turns=left - 1))
    dc = s.event_dc
    ctx.explain(Breakdown("Event DC", dc, (Term("event DC (16, lower after each turn without an event)", dc),)))
    die, _ = roll(ctx, "event", "1d20", check=CheckSpec("flat", dc=dc, label="random kingdom event"))
    ok = R.flat_succeeds(die, dc)
    step_ = int(s.options.get("event_dc_step", 5))
    ctx.emit(E.RandomEventChecked(dc=dc, die=die, occurred=ok, new_dc=R.next_event_dc(dc, ok, step_)))


@turn_step
def event_resolve(ctx: Ctx, c: EventResolveChoices) -> None:
    """E2 resolve the event (§3.4 E2, §5.12): DC = Control DC + the event modifier."""
    s = ctx.state
    asked = _asked(c)
    for name in c.end_events:
        if name not in {e.name for e in s.ongoing_events}:
            raise ctx.fail(f"{name} is not an ongoing event", "§3.4 E2.3")
        ctx.emit(E.KingdomEventResolved(name=name, continues=False))
    name = c.event
    if not name:
        if s.random_event_this_turn:
            ctx.emit(E.KingdomEventOccurred(name="unspecified", selection="gm"))
        extra = gm_effects(c.gm_effects)
        if extra:
            run_effects(ctx, asked, extra, key="gm", name="GM ruling", picks=Picks.of(c), prep={})
        return
    ev = catalog(ctx).events[name]
    ctx.emit(E.KingdomEventOccurred(name=name, modifier=ev.modifier, target=c.target))
    degree = None
    skill = c.skill if c.skill is not None else (ev.skills[0] if ev.skills else "")
    if skill:
        if ev.skills and skill not in ev.skills:
            raise ctx.fail(f"{name} is resolved with {', '.join(ev.skills)}", "§3.4 E2")
        dc = dc_breakdown(ctx.state, "control", extra=ev.modifier, label=f"event modifier ({name})")
        degree = resolve_check(ctx, key="check", activity=name, category="event", skill=skill, dc=dc,
                               fame_reroll=c.fame_reroll, extra=feat_event_modifiers(s, list(ev.traits)))
        run_effects(ctx, asked, ev.outcomes.for_degree(degree.label), key="check", name=name, picks=Picks.of(c),
                    prep={})
    extra = gm_effects(c.gm_effects)
    if extra:
        run_effects(ctx, asked, extra, key="gm", name=f"{name} (GM ruling)", picks=Picks.of(c), prep={})
    continues = c.continues if c.continues is not None else ev.continuous and (degree is None or not degree.succeeded)
    ctx.emit(E.KingdomEventResolved(name=name, degree=degree.label if degree else None, continues=continues,
                                    unrest_per_turn=c.unrest_per_turn, consumption_delta=c.consumption_delta))


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


@turn_step
def event_xp(ctx: Ctx, c: EventXPChoices) -> None:
    """E3 Apply Kingdom XP (§3.4 E3, §5.13): claims, event, milestones, unspent RP up to 120."""
    s = ctx.state
    if s.xp_pending:
        ctx.emit(E.XPApplied(amount=s.xp_pending))
    if s.random_event_this_turn:
        if s.options.get("event_xp_mode", "flat_30") == "by_level":
            events = catalog(ctx).events
            mod = next((events[e].modifier for e in [s.event_this_turn] if e in events), 0)
            xp = T.core().event_xp_by_modifier[mod + 4]
        else:
            xp = 30
        ctx.emit(E.XPAwarded(amount=xp, source="random_event"))
    for name, ms in T.milestones().items():
        if name not in ctx.state.milestones and _milestone_hit(ctx.state, ms.trigger):
            ctx.emit(E.MilestoneAchieved(milestone=name, xp=ms.xp))
    if c.gm_xp:
        ctx.emit(E.XPAwarded(amount=c.gm_xp, source="gm"))
    cap = int(s.options.get("rp_to_xp_limit", 120))
    rp = ctx.state.rp
    xp_gained, discarded = R.rp_to_xp(rp, cap)
    ctx.emit(E.RPConverted(rp=rp, xp=xp_gained, discarded=discarded))
    if c.gm_fame_next_turn:
        ctx.emit(E.PendingAdded(kind="fame", amount=c.gm_fame_next_turn, cause="GM award"))


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


@turn_step
def event_level(ctx: Ctx, c: LevelChoices) -> None:
    """E4 Increase Kingdom Level (§3.4 E4, §4.13, §4.14, §5.5) and the end of the turn."""
    s = ctx.state
    if s.xp >= R.XP_PER_LEVEL and s.level < s.max_level and not s.leveled_this_turn:
        to = s.level + 1
        feats = T.levels()[to]
        rr = ""
        if feats.ruin_resistance:
            rr = c.ruin_resistance or max(T.RUINS, key=lambda r: (s.ruin[r].penalty, s.ruin[r].points))
        skill = ""
        if feats.skill_increase:
            default = next((k for k in sorted(T.core().skills) if s.skills.get(k, "untrained") == "untrained"), "")
            skill = c.skill_increase if c.skill_increase is not None else default
            if skill not in T.core().skills:
                raise InputError(f"skill_increase: unknown skill {skill!r}")
            if s.skills.get(skill, "untrained") == "legendary":
                raise ctx.fail(f"{skill} is already legendary", "§5.5 skill increase")
        boosts: list[str] = []
        if feats.ability_boosts:
            default_b = sorted(T.ABILITIES, key=lambda a: (s.scores[a], a))[: feats.ability_boosts]
            boosts = list(c.boosts) if c.boosts is not None else default_b
            if len(boosts) != feats.ability_boosts or len(set(boosts)) != len(boosts):
                raise ctx.fail(f"choose {feats.ability_boosts} different abilities to boost", "§5.5 ability boosts")
        # feat prerequisites are checked against the kingdom with this level's skill increase and boosts
        skills_now = dict(s.skills)
        if skill:
            skills_now[skill] = T.RANKS[min(4, T.RANKS.index(skills_now.get(skill, "untrained")) + 1)]
        scores_now = dict(s.scores)
        for b in boosts:
            scores_now[b] = R.boosted(scores_now[b])
        feat = ""
        feat_skill = ""
        if feats.feat:
            cat = catalog(ctx)
            eligible = [f.name for f in cat.feats.values() if f.level <= to and (f.repeatable or f.name not in s.feats)
                        and "chosen" not in f.requires_trained and not feat_unmet(f, skills_now, scores_now, "")]
            feat = c.feat if c.feat is not None else (eligible[0] if eligible else "")
            if feat:
                fd = cat.feats[feat]
                if fd.level > to:
                    raise ctx.fail(f"{feat} is a level {fd.level} feat", "§5.5 kingdom feats")
                if feat in s.feats and not fd.repeatable:
                    raise ctx.fail(f"{feat} is already taken", "§5.5 kingdom feats")
                if fd.grants == "skill_training":
                    feat_skill = c.feat_skill if c.feat_skill is not None else next(
                        (k for k in sorted(T.core().skills) if s.skills.get(k, "untrained") == "untrained"
                         and k != skill), "")
                elif "chosen" in fd.requires_trained:
                    if c.feat_skill is None:
                        raise InputError(f"{feat}: choose the skill it is taken for as 'feat_skill'")
                    feat_skill = c.feat_skill
                unmet = feat_unmet(fd, skills_now, scores_now, feat_skill)
                if unmet:
                    raise ctx.fail(f"{feat} requires {unmet}", "§5.5 kingdom feat prerequisites")
        ctx.emit(E.LeveledUp(level_from=s.level, level_to=to, features=list(feats.features), ruin_resistance=rr,
                             skill_increase=skill, feat=feat, feat_skill=feat_skill, boosts=boosts))
    for role, skill in c.leader_checks.items():
        ld = ctx.state.leaders[role]
        if ld.leadership_modifier >= 0 or ld.leadership_modifier_until:
            raise ctx.fail(f"the {role} has no lasting New Leadership penalty to shake off", "§4.2 failure")
        if T.core().skills.get(skill) != "loyalty":
            raise ctx.fail(f"{skill} is not a Loyalty-based skill", "§4.2 failure")
        deg = resolve_check(ctx, key=f"leader.{role}", activity="new-leadership-recheck", category="upkeep",
                            skill=skill, dc=dc_breakdown(ctx.state, "control"), role=role)
        if deg.succeeded:
            ctx.emit(E.LeaderChanged(role=role, holder=ld.holder, kind=ld.kind, invested=ld.invested,
                                     cause="new leadership penalty removed"))
        elif deg.label == "critical_failure":
            ctx.emit(E.LeaderChanged(role=role, holder=None, kind=ld.kind, cause="new_leadership critical failure"))
            unrest(ctx, 1, "new leadership critical failure")
    expired = [m.id for m in ctx.state.modifiers if m.expires == "end_of_this_turn"]
    ctx.emit(E.TurnEnded(turn=ctx.state.turn, fame_lost=ctx.state.fame, modifiers_expired=expired))


# ------------------------------------------------------------------ the steps, declared once

FOUNDING = Step("founding", "Founding", "Charter, heartland, government, abilities, skills, leaders, capital",
                choices=FoundingChoices, decide=founding)

PHASES: tuple[Step, ...] = (
    Step("upkeep.leadership", "U0-U1 Start of turn, assign leadership", "Fame +1; New Leadership; downtime",
         ("nl1",), LeadershipUpkeepChoices, upkeep_leadership),
    Step("upkeep.unrest", "U2 Adjust Unrest", "Overcrowding, war, events, vacant Ruler; Ruin at 10+; anarchy",
         ("ruler_vacancy", "ruin", "hex_loss"), UnrestChoices, upkeep_unrest),
    Step("upkeep.resources", "U3 Resource Collection", "Roll Resource Dice; work sites", ("resource",),
         decide=upkeep_resources),
    Step("upkeep.consumption", "U4 Pay Consumption", "Food, then RP (5 each) or 1d4 Unrest", ("unrest",),
         ConsumptionChoices, upkeep_consumption),
    Step("commerce.taxes", "C1 Collect Taxes", "Collect Taxes, or a DC 11 flat check", ("check",),
         TaxesChoices, commerce_taxes),
    Step("commerce.expenses", "C2 Approve Expenses", "Improve Lifestyle or Tap Treasury", ("check",),
         ExpensesChoices, commerce_expenses),
    Step("commerce.trade", "C3 Tap Commodities", "Trade Commodities", ("check",), TradeChoices, commerce_trade),
    Step("commerce.agreements", "C4 Manage Trade Agreements", "Manage Trade Agreements", ("check",),
         AgreementsChoices, commerce_agreements),
    Step("activity.leadership", "A1 Leadership activities", "Per PC leader: 2, or 3 with a seat", ("a1",),
         LeadershipActivities, activity_leadership),
    Step("activity.region", "A2 Region activities", "Three Region activities", ("a1",), RegionActivities,
         activity_region),
    Step("activity.civic", "A3 Civic activities", "One per settlement", ("a1",), CivicActivities, activity_civic),
    Step("event.check", "E1 Random event check", "Flat check against the event DC", ("event",),
         decide=event_check),
    Step("event.resolve", "E2 Event resolution", "Resolve the event", ("check",), EventResolveChoices,
         event_resolve),
    Step("event.xp", "E3 Kingdom XP", "Claims, event, milestones, unspent RP (max 120)", (), EventXPChoices,
         event_xp),
    Step("event.level", "E4 Level up and end of turn", "Level up at 1000 XP; Fame lost; modifiers expire", (),
         LevelChoices, event_level),
)

STEP_IDS = tuple(p.id for p in PHASES)
ALL_STEPS: tuple[Step, ...] = (FOUNDING, *PHASES)
