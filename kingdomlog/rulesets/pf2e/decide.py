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
from kingdomlog.core.effects import holds
from kingdomlog.core.errors import InputError
from kingdomlog.core.modifiers import Modifier as StackMod
from kingdomlog.core.ruleset import Breakdown, Step, Term
from kingdomlog.dice.checks import CheckSpec
from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e import rules as R
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.activities import perform
from kingdomlog.rulesets.pf2e.choices import (
    ActivityRow,
    AgreementsChoices,
    ArmyActivities,
    BattleChoices,
    CivicActivities,
    ConsumptionChoices,
    EventResolveChoices,
    EventRow,
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
from kingdomlog.rulesets.pf2e.effects import Run
from kingdomlog.rulesets.pf2e.engine import (
    Asked,
    CheckAt,
    Ctx,
    Picks,
    add_ruin,
    avert_anarchy,
    catalog,
    dc_breakdown,
    flat,
    gain_commodity,
    gm_effects,
    hex_of,
    pick_ruins,
    resolve_check,
    roll,
    ruins_named,
    unrest,
    with_terms,
)
from kingdomlog.rulesets.pf2e.state import (
    KingdomState,
    anarchy_threshold,
    capital,
    consumption,
    hex_at,
    in_anarchy,
    resource_dice,
    settlement_facts,
    size_of,
    state_facts,
)
from kingdomlog.rulesets.pf2e.structures import stacking_of
from kingdomlog.rulesets.pf2e.warfare import battle, level_up, new_army

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
    return Asked(avert_ruin_penalty=c.avert_ruin_penalty_with_fame, ruins=ruins_named(c.ruins, c.ruin),
                 crush_dissent=c.crush_dissent, liquidate_resources=c.liquidate_resources)


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
    feats = [government.feat] if government.feat else []
    feat_choices: dict[str, list[str]] = {}
    thresholds = {r: ctx.state.ruin[r].threshold for r in T.RUINS}
    if c.feat_choice:
        if not feats:
            raise ctx.fail(f"the {government.name} government grants no feat to choose for", "§5.5")
        fd = catalog(ctx).feats[feats[0]]
        feat_choices[fd.name] = feat_choice(ctx, fd, [str(x) for x in c.feat_choice])
        for r, inc in threshold_increases(ctx.state, fd, feat_choices[fd.name]).items():
            thresholds[r] += inc
    facts = [E.FoundingStructure(name=n, residential=st.residential, storage=dict(st.storage), seat=st.seat,
                                 consumption_reduction=st.consumption_reduction, item_bonuses=dict(st.item_bonuses),
                                 stacking=stacking_of(st))
             for n in structures for st in [catalog(ctx).structures[n]]]
    ctx.emit(E.KingdomFounded(
        name=c.name, charter=charter.name, heartland=heartland.name, government=government.name,
        fame_type=c.fame_type, boosts=record, scores=scores, skills=skills,
        feats=feats, leaders=leaders, hexes=hexes,
        settlement_id=cap.id, settlement_name=cap.name, settlement_hex=cap.hex, commodities=comm,
        starting_rp=c.starting_rp, party_level=c.party_level, structures=structures,
        resume_turn=resume.turn if resume else 0, xp=resume.xp if resume else 0,
        unrest=resume.unrest if resume else 0, ruin_points=dict(resume.ruin_points) if resume else {},
        event_dc=resume.event_dc if resume else 16, structure_facts=facts, feat_choices=feat_choices,
        thresholds=thresholds,
    ))
    if imported:
        assert resume is not None
        # An imported kingdom already earned the milestones its state shows (recorded with 0 XP).
        done = resume.milestones
        for name, ms in T.milestones().items():
            if (name in done) if done is not None else _milestone_hit(ctx.state, ms.trigger):
                ctx.emit(E.MilestoneAchieved(milestone=name, xp=0))


def feat_choice(ctx: Ctx, fd: T.Feat, choice: list[str]) -> list[str]:
    """Validate what a feat chooses (§5.5): Civil Service one role; Muddle Through its Ruins (three, or two
    with option muddle_through_reading = two_ruins), the first raised most."""
    if fd.chooses == "role":
        if len(choice) != 1 or choice[0] not in T.ROLES:
            raise ctx.fail(f"{fd.title or fd.name} chooses one leadership role", "§5.5 kingdom feats")
    elif fd.chooses == "ruins":
        n = 2 if ctx.state.options.get("muddle_through_reading", "three_ruins") == "two_ruins" else 3
        if len(choice) != n or len(set(choice)) != n or any(r not in T.RUINS for r in choice):
            raise ctx.fail(f"{fd.title or fd.name} chooses {n} different Ruins (the first is raised most)",
                           "§5.5 kingdom feats")
    elif choice:
        raise ctx.fail(f"{fd.title or fd.name} has nothing to choose", "§5.5 kingdom feats")
    return list(choice)


def default_feat_choice(state: KingdomState, fd: T.Feat) -> list[str]:
    """A default for a level-up feat's choice: Civil Service the first vacant role (else the Magister), Muddle
    Through the Ruins furthest from their thresholds first."""
    if fd.chooses == "role":
        return [next((r for r in T.ROLES if state.leaders[r].holder is None), "magister")]
    if fd.chooses == "ruins":
        n = 2 if state.options.get("muddle_through_reading", "three_ruins") == "two_ruins" else 3
        return sorted(T.RUINS, key=lambda r: (state.ruin[r].threshold - state.ruin[r].points, r))[:n]
    return []


def threshold_increases(state: KingdomState, fd: T.Feat, choice: list[str]) -> dict[str, int]:
    """Ruin threshold increases of a feat's ``ruin_threshold`` effect: the first chosen Ruin by its value, the
    others by 1 (Muddle Through)."""
    out: dict[str, int] = {}
    for eff in fd.effects:
        if eff.kind == "ruin_threshold" and choice:
            out[choice[0]] = out.get(choice[0], 0) + eff.value
            for r in choice[1:]:
                out[r] = out.get(r, 0) + 1
    return out


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
    for enemy in c.declare_war:
        if enemy not in ctx.state.enemies:
            ctx.emit(E.WarDeclared(enemy=enemy))
    for enemy in c.end_war:
        if enemy not in ctx.state.enemies:
            raise ctx.fail(f"the kingdom is not at war with {enemy!r}", "§2.9 war")
        ctx.emit(E.WarEnded(enemy=enemy))
    for entry in c.enemy_armies:
        defn = T.army_defs().get(entry.army)
        if defn is None:
            raise InputError(f"enemy_armies: unknown army {entry.army!r} (armies: {', '.join(T.army_defs())})")
        if any(a.id == entry.id for a in ctx.state.army_units):
            raise ctx.fail(f"army id {entry.id!r} is taken", "Appendix 3 armies")
        ctx.emit(E.ArmyRecruited(army=new_army(defn, entry.level or defn.level, entry.id, entry.name, side="enemy",
                                               hex_id=entry.hex, revealed=entry.revealed, options=s.options),
                                 cause="the GM"))
    for aid in c.reveal_armies:
        a = next((x for x in ctx.state.army_units if x.id == aid), None)
        if a is None:
            raise ctx.fail(f"no army {aid!r} to reveal", "Appendix 3 armies")
        ctx.emit(E.ArmyUpdated(army=aid, set={"revealed": True}, cause="revealed to the players"))
    war = c.at_war if c.at_war is not None else ctx.state.at_war
    if war != ctx.state.at_war:
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
        deg = resolve_check(ctx, key=f"nl{i + 1}", at=CheckAt("new-leadership", "upkeep"), skill=skill,
                            dc=dc_breakdown(ctx.state, "control"), extra=mods, fame_reroll=nl.fame_reroll)
        holder, kind = nl.holder, nl.kind
        if deg.label == "critical_failure":
            ctx.emit(E.LeaderChanged(role=role, holder=None, kind=kind, cause="new_leadership critical failure"))
            unrest(ctx, 1, "new leadership critical failure")
            if role == "ruler":
                # §4.2: assigning a Ruler costs +1 Unrest "unless the result is a critical success" - a critical
                # failure too, besides its own +1
                unrest(ctx, 1, "new Ruler")
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
    """The GM places hexes on the map (choice ``map``): each at axial (q, r), no two hexes on one place (§2.7)."""
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
    asked = Asked(avert_ruin_penalty=c.avert_ruin_penalty_with_fame, crush_dissent=c.crush_dissent,
                  liquidate_resources=c.liquidate_resources)
    if s.turn == 1:
        if s.unrest:
            unrest(ctx, -s.unrest, "first Kingdom turn")
        return
    for st in s.settlements:
        if st.overcrowded:
            unrest(ctx, 1, f"{st.name} overcrowded")
    if s.at_war:
        unrest(ctx, 1, "at war")
    if c.warfare_last_turn:
        if s.options.get("warfare_mode", "battles") != "abstract":
            raise ctx.fail("warfare_last_turn is for option warfare_mode = abstract", "Appendix 3 Warfare")
        # Appendix 3: battles left in the narrative background cost 1d6 Unrest and a Ruin of the party's choice
        val, faces = roll(ctx, "warfare", "1d6")
        unrest(ctx, val, "warfare (abstract)", faces)
        add_ruin(ctx, asked, pick_ruins(ctx, ruins_named(None, c.ruin_split if isinstance(c.ruin_split, str)
                                                          else None), 1)[0], 1, "warfare (abstract)")
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
        avert_anarchy(ctx)


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


def in_row(exc: InputError, field: str, i: int) -> InputError:
    """``exc`` naming the choice of entry ``i`` of ``field`` it is about (``choice hex: ...`` of the second row
    is ``choice activities[1].hex: ...``), so the sheet shows it at that entry's field."""
    msg = str(exc)
    if msg.startswith("choice "):
        return InputError(f"choice {field}[{i}].{msg[len('choice '):]}")
    return exc


def activity_rows(ctx: Ctx, category: str, rows: list[Any], avert: bool, crush: bool = False,
                  liquidate: bool = False) -> None:
    """An Activity-phase step: each row in order (roll keys a1, a2, ...); Favored Land pairs (§5.9)."""
    favored = [a for a in rows if a.favored_land]
    if favored:
        hexes = {json.dumps(a.hex if a.hex is None or isinstance(a.hex, str) else a.hex.model_dump(exclude_unset=True),
                            sort_keys=True) for a in favored}
        if category != "region" or len(favored) > 2 or len(hexes) > 1 or ctx.state.favored_land_uses:
            raise ctx.fail("Favored Land pairs at most two Region activities in one hex, once per turn",
                           "§5.9 Favored Land")
    asked = Asked(avert_ruin_penalty=avert, crush_dissent=crush, liquidate_resources=liquidate)
    for i, row in enumerate(rows):
        with ctx.acting(f"a{i + 1}"):  # a row a player proposed is that player's act (StepPlan.actors)
            try:
                perform(ctx, asked, row, key=f"a{i + 1}", category=category)
            except InputError as exc:
                raise in_row(exc, "activities", i) from None


@turn_step
def activity_leadership(ctx: Ctx, c: LeadershipActivities) -> None:
    """A1 Leadership activities (§3.3 A1)."""
    activity_rows(ctx, "leadership", list(c.activities), c.avert_ruin_penalty_with_fame, c.crush_dissent,
                  c.liquidate_resources)


@turn_step
def activity_region(ctx: Ctx, c: RegionActivities) -> None:
    """A2 Region activities (§3.3 A2)."""
    activity_rows(ctx, "region", list(c.activities), c.avert_ruin_penalty_with_fame, c.crush_dissent,
                  c.liquidate_resources)


@turn_step
def activity_civic(ctx: Ctx, c: CivicActivities) -> None:
    """A3 Civic activities (§3.3 A3)."""
    activity_rows(ctx, "civic", list(c.activities), c.avert_ruin_penalty_with_fame, c.crush_dissent,
                  c.liquidate_resources)


@turn_step
def activity_army(ctx: Ctx, c: ArmyActivities) -> None:
    """A4 Army activities (Appendix 3: Warfare): each army one activity, in the order the players give."""
    activity_rows(ctx, "army", list(c.activities), c.avert_ruin_penalty_with_fame, c.crush_dissent,
                  c.liquidate_resources)
    # an army that takes no Army activity (and fights no battle) loses 1 weary and 1 shaken at the turn's end


@turn_step
def activity_battle(ctx: Ctx, c: BattleChoices) -> None:
    """A5 War encounters (AoN 1869), each played from its orders with every roll recorded."""
    if c.battles and ctx.state.options.get("warfare_mode", "battles") == "abstract":
        raise ctx.fail("option warfare_mode = abstract: battles stay in the narrative (warfare_last_turn)",
                       "Appendix 3 Warfare")
    for i, b in enumerate(c.battles):
        battle(ctx, b, f"b{i + 1}")


# ------------------------------------------------------------------ event phase


@turn_step
def event_check(ctx: Ctx, c: NoChoices) -> None:
    """E1 (§3.4 E1): events due by a rule (Crop Failure watches, scheduled events, a failed Irrigation's
    Plague), the Cult of the Bloom check (option cult_events), then the random event flat check."""
    s = ctx.state
    for hid, left in sorted(s.crop_failure_watch.items()):
        if not flat(ctx, f"crop.{hid}", 6, f"crop_failure:{hid}"):
            ctx.emit(E.KingdomEventOccurred(name="crop-failure", target=hid, selection="scheduled", hex=hid))
        ctx.emit(E.CropFailureWatch(hex_id=hid, turns=left - 1))
    for w in s.event_watch:
        if w.turn and w.turn > s.turn:
            continue
        due = w.dc <= 0 or not flat(ctx, f"watch.{w.id}", w.dc, f"scheduled:{w.event}")
        if not w.turn or w.turn <= s.turn:
            ctx.emit(E.EventWatchCleared(id=w.id))
        if due:
            ctx.emit(E.KingdomEventOccurred(name=w.event, selection="scheduled", settlement=w.settlement, hex=w.hex,
                                            target=w.cause))
    failed = [h for h in s.hexes if h.claimed and h.failed_irrigation]
    if failed:
        # Irrigation critical failure: a DC 4 flat check, +1 for each further such hex (our reading of "increases
        # by 1 for each hex"); a failure brings a Plague
        dc = 3 + len(failed)
        if not flat(ctx, "irrigation.plague", dc, "failed_irrigation:plague"):
            ctx.emit(E.KingdomEventOccurred(name="plague", selection="scheduled", target="failed irrigation"))
    if s.options.get("cult_events", False):
        cdc = s.cult_event_dc or int(s.options.get("cult_event_dc_start", 20))
        die, _ = roll(ctx, "cult", "1d20", check=CheckSpec("flat", dc=cdc, label="Cult of the Bloom event"))
        ok = R.flat_succeeds(die, cdc)
        new = int(s.options.get("cult_event_dc_start", 20)) if ok else max(
            1, cdc - int(s.options.get("cult_event_dc_step", 2)))
        ctx.emit(E.RandomEventChecked(dc=cdc, die=die, occurred=ok, new_dc=new, table="cult"))
    dc = s.event_dc
    ctx.explain(Breakdown("Event DC", dc, (Term("event DC (16, lower after each turn without an event)", dc),)))
    die, _ = roll(ctx, "event", "1d20", check=CheckSpec("flat", dc=dc, label="random kingdom event"))
    ok = R.flat_succeeds(die, dc)
    forced = "prognostication: critical failure" if "prognostication-critical-failure" in s.flags and not ok else ""
    step_ = int(s.options.get("event_dc_step", 5))
    ctx.emit(E.RandomEventChecked(dc=dc, die=die, occurred=ok or bool(forced),
                                  new_dc=R.next_event_dc(dc, ok or bool(forced), step_), forced=forced))


def table_event(ctx: Ctx, key: str, pick: int) -> tuple[str, list[int]]:
    """The random kingdom event table (AoN 1843, data/events.toml ``table``): d100; with Prognostication (a
    critical success or failure) two rolls, of which ``pick`` occurs (the players' or the GM's choice)."""
    events = catalog(ctx).events
    twice = any(f in ctx.state.flags for f in ("prognostication-critical", "prognostication-critical-failure"))
    rolls = [roll(ctx, f"{key}.table", "1d100")[0]]
    if twice:
        rolls.append(roll(ctx, f"{key}.table2", "1d100")[0])
    n = rolls[pick if twice else 0]
    name = next((e.name for e in events.values() if e.table and e.table[0] <= n <= e.table[1]), "")
    if not name:
        raise ctx.fail(f"the random event table has no event for {n}", "§3.4 E2 random kingdom event table")
    return name, rolls


def event_place(ctx: Ctx, ev: T.KingdomEventDef, settlement: str | None, hx: str | None,
                key: str) -> tuple[str, str] | None:
    """Where the event strikes (its Location, AoN 1840): (settlement id, hex id); None when the rule says the
    event has no effect there (no Farmland for a Crop Failure, fewer than two settlements for a Feud)."""
    s = ctx.state
    sts = list(s.settlements)
    loc = ev.location
    if settlement:
        if not any(x.id == settlement for x in sts):
            raise ctx.fail(f"{ev.name}: no settlement {settlement!r}", "AoN 1840 event location")
        return settlement, hx or ""
    if loc in ("settlement", "random_settlement") and sts:
        if len(sts) == 1:
            return sts[0].id, ""
        i, _ = roll(ctx, f"{key}.where", f"1d{len(sts)}")
        return sts[i - 1].id, ""
    if loc == "largest" and sts:
        return max(sts, key=lambda x: (x.blocks_used, x.capital)).id, ""
    if loc == "smallest" and sts:
        return min(sts, key=lambda x: (x.blocks_used, not x.capital)).id, ""
    if loc == "newest" and sts:
        return sts[-1].id, ""
    if loc == "capital":
        cap = capital(s)
        return (cap.id if cap else ""), ""
    if loc == "most_cemeteries" and sts:
        return max(sts, key=lambda x: (sum(1 for b in x.structures if b.name == "cemetery"), x.blocks_used)).id, ""
    if loc == "two_settlements":
        return None if len(sts) < 2 else (sts[0].id, "")
    if loc == "farmland":
        farms = [h.id for h in s.hexes if h.claimed and "farmland" in h.features]
        if hx:
            return "", hx
        return ("", farms[0]) if farms else None
    return "", hx or ""


def resolve_event(ctx: Ctx, asked: Asked, name: str, row: Any, *, key: str, selection: str,
                  table_rolls: list[int] | None = None, announce: bool = True) -> None:
    """Resolve one kingdom event (§3.4 E2, §5.12, AoN 1840): its requirement, location, DC (Control DC + its
    modifier and adjustments), the check, the outcome of the degree (of its stage), whether it continues."""
    s = ctx.state
    ev = catalog(ctx).events.get(name)
    if ev is None:
        raise ctx.fail(f"unknown kingdom event {name!r}", "§3.4 E2")
    old = next((o for o in s.ongoing_events if o.name == name), None)
    if ev.requires and not holds(ev.requires, state_facts(s)):
        ctx.emit(E.KingdomEventOccurred(name=name, modifier=ev.modifier, selection=selection,
                                        table_rolls=table_rolls or []))
        ctx.emit(E.GMRuling(source=name, note=f"the event does not occur: it needs {ev.requires}"))
        ctx.emit(E.KingdomEventResolved(name=name, continues=False))
        return
    where = event_place(ctx, ev, getattr(row, "settlement", None) or (old.settlement if old else None),
                        getattr(row, "hex", None) or (old.hex if old else None), key)
    sid, hid = where if where is not None else ("", "")
    if announce:
        ctx.emit(E.KingdomEventOccurred(name=name, modifier=ev.modifier, selection=selection,
                                        target=sid or hid or "kingdom", table_rolls=table_rolls or [],
                                        settlement=sid, hex=hid))
    if where is None:
        ctx.emit(E.GMRuling(source=name, note=f"no effect: its location ({ev.location}) does not exist"))
        ctx.emit(E.KingdomEventResolved(name=name, continues=False))
        return
    picks = Picks.of(row)
    prep: dict[str, Any] = {"event": name, "settlement": sid, "lots_hit": list(getattr(row, "lots", None) or []),
                            "symbols": {"gifts": int(getattr(row, "gifts", 0) or 0)},
                            "gift_commodities": list(getattr(row, "gift_commodities", None) or []),
                            "group": getattr(row, "group", None) or ""}
    if hid:
        h = hex_of(s, hid)
        if h is not None:
            prep["hex"] = E.HexIn(id=h.id, terrain=h.terrain)
    run = Run(ctx, asked, picks, name, prep)
    facts = run.facts()
    facts.update(settlement_facts(s, next(x for x in s.settlements if x.id == sid)) if sid else {})
    facts["water_borders"] = int(getattr(row, "water_borders", 0) or 0)
    stage = old.stage if old else 0
    degree = None
    skill = getattr(row, "skill", None)
    stage_skills = ev.stage_skills[stage] if ev.stage_skills and stage < len(ev.stage_skills) else ev.skills
    skill = skill if skill is not None else (stage_skills[0] if stage_skills else "")
    if skill:
        if stage_skills and skill not in stage_skills:
            raise ctx.fail(f"{name} (stage {stage}) is resolved with {', '.join(stage_skills)}", "§3.4 E2")
        facts["skill"] = skill
        adjust = [(a.label or f"{name} DC", a.value) for a in ev.dc_adjust if holds(a.when, facts)]
        base = dc_breakdown(s, ev.dc if ev.dc != "control" else "control",
                            extra=ev.modifier if ev.dc == "control" else 0, label=f"event modifier ({name})")
        dc = with_terms(base, adjust)
        mods = [StackMod(m.note or name, m.value, m.type) for m in ev.modifiers if holds(m.when, facts)]
        worsen = -sum(a.value for a in ev.degree_adjust if holds(a.when, facts))
        degree = resolve_check(ctx, key=key, at=CheckAt(name, "event", settlement=sid, hex=hid,
                                                        traits=tuple(ev.traits), event=name),
                               skill=skill, dc=dc, extra=mods, worsen=worsen,
                               fame_reroll=bool(getattr(row, "fame_reroll", False)),
                               boon=getattr(row, "boon", None) or "", assurance=bool(getattr(row, "assurance", False)))
        outcomes = ev.stage_outcomes[stage - 1] if stage and stage - 1 < len(ev.stage_outcomes) else ev.outcomes
        run.degree = degree.label
        run.apply(outcomes.for_degree(degree.label), key)
    if ev.gm_note:
        ctx.emit(E.GMRuling(source=name, note=ev.gm_note))
    extra = gm_effects(getattr(row, "gm_effects", []) or [])
    if extra:
        Run(ctx, asked, picks, f"{name} (GM ruling)", prep).apply(extra, f"{key}.gm")
    # what happens to a continuous event (resolved_on ends it; a stage may advance; failures in a row)
    if not any(o.name == name for o in ctx.state.ongoing_events) and old is not None:
        return  # an outcome ended it (end_event)
    continues = getattr(row, "continues", None)
    nstage, fails = stage, (old.failures if old else 0)
    if degree is not None:
        fails = fails + 1 if degree.label in ("failure", "critical_failure") else 0
        if ev.stage_outcomes and stage < len(ev.stage_outcomes) and degree.label in ev.advance_on:
            nstage = stage + 1
    if continues is None:
        last = not ev.stage_outcomes or stage >= len(ev.stage_outcomes)
        ended = degree is not None and last and degree.label in ev.resolved_on
        ended = ended or bool(ev.ends_after_failures and fails >= ev.ends_after_failures)
        continues = ev.continuous and not ended and (degree is not None or old is not None)
    if not continues:
        # the event's own lasting bonuses (a cult found, a base located) end with it
        for m in ctx.state.modifiers:
            if m.expires == "permanent" and m.source == name and m.selector == f"event == {name}":
                ctx.emit(E.ModifierRemoved(id=m.id, cause=f"{name} ended"))
    ctx.emit(E.KingdomEventResolved(name=name, degree=degree.label if degree else None, continues=continues,
                                    unrest_per_turn=int(getattr(row, "unrest_per_turn", 0) or 0),
                                    consumption_delta=int(getattr(row, "consumption_delta", 0) or 0),
                                    stage=nstage, failures=fails, settlement=sid, hex=hid))


@turn_step
def event_resolve(ctx: Ctx, c: EventResolveChoices) -> None:
    """E2 (§3.4 E2, §5.12): the random event (named by the GM, else rolled on the table), the checks of the
    continuing events, and the events due by a rule this turn."""
    s = ctx.state
    asked = _asked(c)
    for name in c.end_events:
        if name not in {e.name for e in s.ongoing_events}:
            raise ctx.fail(f"{name} is not an ongoing event", "§3.4 E2.3")
        ctx.emit(E.KingdomEventResolved(name=name, continues=False))
    rows = {r.event: r for r in c.events}
    done: set[str] = set()
    name = c.event
    selection = "gm"
    table: list[int] = []
    if not name and s.random_event_this_turn:
        if s.options.get("kingdom_event_selection", "table") == "table":
            name, table = table_event(ctx, "check", c.table_pick)
            selection = "table"
        else:
            ctx.emit(E.KingdomEventOccurred(name="unspecified", selection="gm"))
    if name:
        if name in rows:
            raise ctx.fail(f"{name} is both the event and a row of 'events'", "§3.4 E2")
        resolve_event(ctx, asked, name, c, key="check", selection=selection, table_rolls=table)
        done.add(name)
    else:
        extra = gm_effects(c.gm_effects)
        if extra:
            Run(ctx, asked, Picks.of(c), "GM ruling").apply(extra, "gm")
    if "cult-event" in s.flags:
        cult = [r for r in c.events if (catalog(ctx).events.get(r.event) or T.KingdomEventDef(name="x")).cult]
        if not cult:
            raise ctx.fail("a Cult of the Bloom event occurred: name it in 'events' (a cult event of the data)",
                           "Kingmaker Cult events (option cult_events)")
        for i, r in enumerate(cult):
            resolve_event(ctx, asked, r.event, r, key=f"cult{i + 1}", selection="gm")
            if f"cult-event:{r.event}" not in ctx.state.milestones:
                # the first time each Cult event occurs: 80 Kingdom XP, however it went
                ctx.emit(E.MilestoneAchieved(milestone=f"cult-event:{r.event}", xp=80))
            done.add(r.event)
    for i, due in enumerate(s.events_due):
        row = rows.get(due.name) or EventRow(event=due.name, gm_effects=[], settlement=due.settlement or None,
                                             hex=due.hex or None)
        resolve_event(ctx, asked, due.name, row, key=f"due{i + 1}", selection="scheduled", announce=False)
        done.add(due.name)
    for i, ongoing in enumerate(list(ctx.state.ongoing_events)):
        if ongoing.name in done or ongoing.name in c.end_events:
            continue
        if ongoing.since_turn == s.turn:
            continue
        ev = catalog(ctx).events.get(ongoing.name)
        if ev is None or not ev.continuous:
            continue
        row = rows.get(ongoing.name) or EventRow(event=ongoing.name, gm_effects=[])
        if row.skip:
            continue
        resolve_event(ctx, asked, ongoing.name, row, key=f"ongoing{i + 1}", selection="scheduled", announce=False)
        done.add(ongoing.name)
    unknown = sorted(set(rows) - done)
    if unknown:
        raise ctx.fail(f"'events' names {', '.join(unknown)}, which is neither continuing nor due this turn",
                       "§3.4 E2")


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
    # RP that may not become XP (Request Foreign Aid) are discarded with the rest
    blocked = min(rp, ctx.state.rp_no_xp)
    rate = R.rp_to_xp_rate(ctx.state.level, str(s.options.get("rp_to_xp_mode", "published")))
    xp_gained, discarded = R.rp_to_xp_at(rp - blocked, cap, rate)
    ctx.emit(E.RPConverted(rp=rp, xp=xp_gained, discarded=discarded + blocked))
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
            rank = T.RANKS[T.RANKS.index(s.skills.get(skill, "untrained")) + 1]
            least = T.core().rank_min_level.get(rank, 1)
            if to < least:
                raise ctx.fail(f"a skill increase raises {skill} to {rank} only from kingdom level {least} (this is"
                               f" level {to})", "§5.5 skill increase: master from level 7, legendary from 15")
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
        choice: list[str] = []
        thresholds = {r: s.ruin[r].threshold for r in T.RUINS}
        if rr:
            thresholds[rr] += T.core().ruin_resistance_increase
        if feat:
            fd = catalog(ctx).feats[feat]
            given = [str(x) for x in c.feat_choice] or default_feat_choice(ctx.state, fd)
            choice = [feat_skill] if fd.chooses == "skill" and feat_skill else feat_choice(ctx, fd, given)
            for r, inc in threshold_increases(s, fd, choice).items():
                thresholds[r] += inc
        if feat_skill:
            skills_now[feat_skill] = "trained" if skills_now.get(feat_skill, "untrained") == "untrained" else \
                skills_now[feat_skill]
        for a in s.army_units:
            if a.side == "kingdom":
                # armies gain a level whenever the kingdom does (spec §2.9, §3.4 E4)
                ctx.emit(E.ArmyUpdated(army=a.id, set=level_up(a, to, s.options), cause=f"kingdom level {to}"))
        ctx.emit(E.LeveledUp(level_from=s.level, level_to=to, features=list(feats.features), ruin_resistance=rr,
                             skill_increase=skill, feat=feat, feat_skill=feat_skill, boosts=boosts,
                             feat_choice=choice, scores_after=scores_now,
                             skills_after={k: skills_now.get(k, "untrained") for k in T.core().skills},
                             thresholds_after=thresholds))
    for role, skill in c.leader_checks.items():
        ld = ctx.state.leaders[role]
        if ld.leadership_modifier >= 0 or ld.leadership_modifier_until:
            raise ctx.fail(f"the {role} has no lasting New Leadership penalty to shake off", "§4.2 failure")
        if T.core().skills.get(skill) != "loyalty":
            raise ctx.fail(f"{skill} is not a Loyalty-based skill", "§4.2 failure")
        deg = resolve_check(ctx, key=f"leader.{role}", at=CheckAt("new-leadership-recheck", "upkeep", role=role),
                            skill=skill, dc=dc_breakdown(ctx.state, "control"))
        if deg.succeeded:
            ctx.emit(E.LeaderChanged(role=role, holder=ld.holder, kind=ld.kind, invested=ld.invested,
                                     cause="new leadership penalty removed"))
        elif deg.label == "critical_failure":
            ctx.emit(E.LeaderChanged(role=role, holder=None, kind=ld.kind, cause="new_leadership critical failure"))
            unrest(ctx, 1, "new leadership critical failure")
    end_of_turn(ctx)
    expired = [m.id for m in ctx.state.modifiers if m.expires in ("end_of_this_turn", "once")]
    ctx.emit(E.TurnEnded(turn=ctx.state.turn, fame_lost=ctx.state.fame, modifiers_expired=expired))


def end_of_turn(ctx: Ctx) -> None:
    """What the end of a turn settles before TurnEnded (§3.4 T-end): boons held for this turn lapse (a Creative
    or Supernatural Solution unused gives its 10 XP); an activity's DC streak falls when it was not used this
    turn (Clandestine Business: -1, never below the base)."""
    s = ctx.state
    for b in s.boons:
        if b.expires in ("end_of_this_turn", "once"):
            ctx.emit(E.BoonLapsed(id=b.id, xp=b.xp))
    acted = {u.target for u in s.used_this_turn if u.category == "army"}
    for a in s.army_units:
        if a.side != "kingdom" or a.id in acted or a.acted_turn == s.turn:
            continue
        calm = {k: a.conditions[k] - 1 for k in ("weary", "shaken") if a.conditions.get(k)}
        if calm:
            ctx.emit(E.ArmyUpdated(army=a.id, conditions=calm, cause="a Kingdom turn without Army activity"))
    used = {u.name for u in s.used_this_turn}
    for name, act in sorted(catalog(ctx).activities.items()):
        n = s.counters.get(f"streak:{name}", 0)
        if act.streak is not None and n and name not in used:
            ctx.emit(E.CounterSet(name=f"streak:{name}", value=max(0, n - act.streak.down),
                                  cause=f"{name} not used this turn"))


# ------------------------------------------------------------------ the steps, declared once
# A step's title is what the GM reads on the sheet: the book's phase and step in words ("Upkeep: Adjust Unrest",
# as the Kingdom Turn chapter heads them), never the spec's shorthand (U2, E2): a GM with the book open looks up the
# phase and the step's name, which the title is; a plan's author has the step's id.

FOUNDING = Step("founding", "Founding", "Charter, heartland, government, abilities, skills, leaders, capital",
                choices=FoundingChoices, decide=founding)

PHASES: tuple[Step, ...] = (
    Step("upkeep.leadership", "Upkeep: Start of Turn, Assign Leadership", "Fame +1; New Leadership; downtime",
         ("nl1",), LeadershipUpkeepChoices, upkeep_leadership),
    Step("upkeep.unrest", "Upkeep: Adjust Unrest", "Overcrowding, war, events, vacant Ruler; Ruin at 10+; anarchy",
         ("ruler_vacancy", "ruin", "hex_loss"), UnrestChoices, upkeep_unrest),
    Step("upkeep.resources", "Upkeep: Resource Collection", "Roll Resource Dice; work sites", ("resource",),
         decide=upkeep_resources),
    Step("upkeep.consumption", "Upkeep: Pay Consumption", "Food, then RP (5 each) or 1d4 Unrest", ("unrest",),
         ConsumptionChoices, upkeep_consumption),
    Step("commerce.taxes", "Commerce: Collect Taxes", "Collect Taxes, or a DC 11 flat check", ("check",),
         TaxesChoices, commerce_taxes),
    Step("commerce.expenses", "Commerce: Approve Expenses", "Improve Lifestyle or Tap Treasury", ("check",),
         ExpensesChoices, commerce_expenses),
    Step("commerce.trade", "Commerce: Tap Commodities", "Trade Commodities", ("check",), TradeChoices, commerce_trade),
    Step("commerce.agreements", "Commerce: Manage Trade Agreements", "Manage Trade Agreements", ("check",),
         AgreementsChoices, commerce_agreements),
    Step("activity.leadership", "Activity: Leadership Activities", "Per PC leader: 2, or 3 with a seat", ("a1",),
         LeadershipActivities, activity_leadership),
    Step("activity.region", "Activity: Region Activities", "Three Region activities", ("a1",), RegionActivities,
         activity_region),
    Step("activity.civic", "Activity: Civic Activities", "One per settlement", ("a1",), CivicActivities,
         activity_civic),
    Step("activity.army", "Activity: Army Activities", "One per army (Appendix 3)", ("a1",), ArmyActivities,
         activity_army),
    Step("activity.battle", "Activity: War Encounters", "Battles round by round (AoN 1869)", ("b1",), BattleChoices,
         activity_battle),
    Step("event.check", "Event: Random Event Check", "Flat check against the event DC", ("event",),
         decide=event_check),
    Step("event.resolve", "Event: Event Resolution", "Resolve the event", ("check",), EventResolveChoices,
         event_resolve),
    Step("event.xp", "Event: Kingdom XP", "Claims, event, milestones, unspent RP (max 120)", (), EventXPChoices,
         event_xp),
    Step("event.level", "Event: Level Up, End of Turn", "Level up at 1000 XP; Fame lost; modifiers expire", (),
         LevelChoices, event_level),
)

STEP_IDS = tuple(p.id for p in PHASES)
ALL_STEPS: tuple[Step, ...] = (FOUNDING, *PHASES)
