"""What every step does through the shared ``StepContext``: kingdom checks, costs, gains, Ruin and Unrest.

Plain functions taking the step's ``ctx`` (``StepContext[KingdomState]``): each ``ctx.emit`` folds its
event at once, so later choices of the same step are validated against the updated kingdom (RP already
spent, activities already used). A ``RuleError`` (``raise ctx.fail(...)``) leaves nothing of the step.
Each check passes its ``CheckSpec`` to ``ctx.roll`` and its modifier and DC to ``ctx.explain``.

Numbers the fold would otherwise derive are recorded in the events: a Ruin change records the
points and penalty after it, an Unrest or Fame change the value after it (caps applied), so a later rules
fix changes what ``audit`` says, never what an old log replays to.

``Asked`` carries the step-level choices that matter deep inside an outcome: whether Fame averts a Ruin
penalty, the Ruins "of your choice" a forced RP overspend adds to, and the feats a step opts into (Crush
Dissent against the step's first Unrest gain, Liquidate Resources for its first forced overspend).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kingdomlog.core.errors import InputError
from kingdomlog.core.modifiers import Modifier as StackMod
from kingdomlog.core.ruleset import Breakdown, StepContext, Term
from kingdomlog.dice.checks import CheckSpec, Degree
from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e import rules as R
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.choices import EffectEntry
from kingdomlog.rulesets.pf2e.state import (
    Boon,
    KingdomState,
    anarchy_threshold,
    check_facts,
    check_modifier,
    control_dc,
    fame_max,
    feat_critical_dice,
    feat_effects,
    hex_by_id,
    in_anarchy,
    predicate_text,
    proficiency_bonus,
    selector_matches,
    size_band,
    size_of,
    storage_cap,
)

Ctx = StepContext[KingdomState]


@dataclass(frozen=True)
class Asked:
    """Step-level choices read by effects: Fame averting a Ruin penalty, the Ruins chosen for a forced cost,
    and the feats the step opts into."""

    avert_ruin_penalty: bool = False
    ruins: tuple[str, ...] = ()
    crush_dissent: bool = False
    liquidate_resources: bool = False


@dataclass(frozen=True)
class Picks:
    """What the outcome effects of one check may ask, read from its step's or row's choices.

    ``option``: the branch of an either/or outcome (``options``: one per "choose" effect, in order, when an
    outcome has several); ``commodity``: the one an outcome lets you choose; ``ruins``: the Ruins "of your
    choice"; ``refuge_ruin``: the Ruin a claimed Refuge lowers; ``recover``: the commodity a Demolish critical
    success recovers.
    """

    option: int = 0
    commodity: str = "food"
    ruins: tuple[str, ...] = ()
    refuge_ruin: tuple[str, ...] = ()
    recover: str | None = None
    options: tuple[int, ...] = ()

    @classmethod
    def of(cls, c: Any) -> Picks:
        """The picks of a choices model (a field it does not have takes its default)."""
        return cls(option=getattr(c, "option", None) or 0, commodity=getattr(c, "commodity", None) or "food",
                   ruins=ruins_named(getattr(c, "ruins", None), getattr(c, "ruin", None)),
                   refuge_ruin=ruins_named(None, getattr(c, "refuge_ruin", None)),
                   recover=getattr(c, "recover", None), options=tuple(getattr(c, "options", None) or ()))


def catalog(ctx: Ctx) -> T.Catalog:
    """The campaign's activities, structures, feats and events (bundled data and homebrew)."""
    return T.catalog(ctx.state.homebrew)


def roll(ctx: Ctx, key: str, notation: str, *, check: CheckSpec | None = None) -> tuple[int, list[int]]:
    """Roll ``notation`` under ``key``: the total and the kept faces."""
    r = ctx.roll(key, notation, check=check)
    return r.total, list(r.kept or r.faces)


def explain_once(ctx: Ctx, *breakdowns: Breakdown) -> None:
    """Add breakdowns the step used, each once."""
    ctx.explain(*(b for b in breakdowns if b not in ctx.breakdowns))


def flag_set(ctx: Ctx, flag: str) -> bool:
    return flag in ctx.state.flags


# ------------------------------------------------------------------ Ruins of your choice


def default_ruins(state: KingdomState, n: int = 1, exclude: Sequence[str] = ()) -> list[str]:
    """The Ruins furthest from overflowing first (a sensible default for "a Ruin of your choice")."""
    order = sorted((r for r in T.RUINS if r not in exclude),
                   key=lambda r: (state.ruin[r].points - state.ruin[r].threshold, state.ruin[r].penalty, r))
    return (order * n)[:n]


def ruins_named(ruins: Sequence[str] | None, ruin: str | None) -> tuple[str, ...]:
    """The Ruins a choice names: ``ruins``, else ``ruin``."""
    return tuple(ruins or ([ruin] if ruin else []))


def pick_ruins(ctx: Ctx, given: Sequence[str], n: int) -> list[str]:
    """``n`` Ruins: those given first, then the defaults."""
    out = [g for g in given if g]
    if len(out) < n:
        out += default_ruins(ctx.state, n - len(out), exclude=out)
    return out[:n]


# ------------------------------------------------------------------ checks


def dc_breakdown(state: KingdomState, rule: str, *, extra: int = 0, label: str = "") -> Breakdown:
    """The DC of a check: Control DC (+ extra), or a fixed DC when ``rule`` is a number."""
    if rule.isdigit():
        terms = [Term(label or "fixed DC", int(rule))]
        if extra:
            terms.append(Term("adjustment", extra))
        return Breakdown("DC", int(rule) + extra, tuple(terms))
    base = control_dc(state)
    terms = list(base.terms)
    if extra:
        terms.append(Term(label or "activity", extra))
    return Breakdown("DC", int(base.total) + extra, tuple(terms))


def with_terms(dc: Breakdown, extra: Sequence[tuple[str, int]]) -> Breakdown:
    """``dc`` with more terms (DC adjustments of a rule)."""
    terms = list(dc.terms) + [Term(label, value) for label, value in extra if value]
    return Breakdown(dc.name, int(dc.total) + sum(v for _, v in extra), tuple(terms))


def _terms(b: Breakdown) -> list[E.TermOut]:
    return [E.TermOut(label=t.label, value=int(t.value), kind=t.kind) for t in b.terms]


@dataclass(frozen=True)
class CheckAt:
    """Where a check happens and what it is about: what its selectors and structure bonuses read."""

    activity: str
    category: str
    role: str = ""
    settlement: str = ""
    hex: str = ""
    target: str = ""
    selector_target: str = ""
    warfare: bool = False
    traits: tuple[str, ...] = ()
    event: str = ""

    @property
    def label(self) -> str:
        """What the check is called where it is shown, in words: the activity, who tries it and the hex it targets
        (``Claim Hex, Warden, on A5``)."""
        from kingdomlog.rulesets.pf2e.names import name_of

        said = name_of(self.activity) or self.activity
        if self.role:
            said += f", {name_of(self.role) or self.role}" + ("," if self.hex else "")
        return said + (f" on {self.hex}" if self.hex else "")


def _boon(ctx: Ctx, boon_id: str, facts: Mapping[str, Any]) -> Boon:
    b = next((x for x in ctx.state.boons if x.id == boon_id), None)
    if b is None:
        held = ", ".join(x.id for x in ctx.state.boons) or "none"
        raise ctx.fail(f"no boon {boon_id!r} is held this turn (held: {held})", "§4 stored solutions")
    if b.selector and not selector_matches(b.selector, facts):
        raise ctx.fail(f"{b.source}'s boon {b.id} cannot be used on this check ({predicate_text(b.selector)})",
                       "§4 stored solutions")
    return b


def resolve_check(ctx: Ctx, *, key: str, at: CheckAt, skill: str, dc: Breakdown,
                  extra: list[StackMod] | None = None, fame_reroll: bool = False, worsen: int = 0,
                  boon: str = "", assurance: bool = False, pull_together: bool = True,
                  reroll_for_rp: bool = False) -> Degree:
    """Roll and record one kingdom skill check (§3.0.1); +1 Fame on a critical success (§3.0.1.7).

    ``worsen``: degrees lost by a rule (negative: gained). ``boon``: a held boon used on this check (a
    re-roll, a second roll, a bonus, roll twice). ``assurance``: Kingdom Assurance takes 10 + proficiency
    instead of rolling. ``pull_together``: Pull Together may turn a critical failure into a failure (once per
    turn). ``reroll_for_rp``: Free and Fair's 2-RP re-roll of a failed New Leadership or Pledge of Fealty.
    """
    if skill not in T.core().skills:
        raise InputError(f"unknown kingdom skill {skill!r}")
    s = ctx.state
    facts = check_facts(s, skill, activity=at.activity, category=at.category, warfare=at.warfare,
                        target=at.selector_target, role=at.role, settlement=at.settlement, hex=at.hex,
                        traits=at.traits, event=at.event)
    held = _boon(ctx, boon, facts) if boon else None
    mods = list(extra or [])
    if held is not None and held.kind == "bonus":
        mods.append(StackMod(held.source, held.value, held.type, held.id))
    kw: dict[str, Any] = {"activity": at.activity, "category": at.category, "warfare": at.warfare, "role": at.role,
                          "target": at.selector_target, "settlement": at.settlement, "hex": at.hex,
                          "traits": at.traits, "event": at.event}
    mod = check_modifier(s, skill, extra=mods, **kw)
    consumed = [m.id for m in s.modifiers if m.expires == "once" and selector_matches(m.selector, facts)
                and any(t.source == m.id for t in mod.terms)]
    anarchy = in_anarchy(s)
    first: int | None = None
    if assurance:
        if not feat_effects(s, "assurance") or skill not in s.feat_choices.get("kingdom-assurance", ()):
            raise ctx.fail(f"Kingdom Assurance is not taken for {skill}", "§5.5 Kingdom Assurance")
        if flag_set(ctx, f"assurance:{skill}"):
            raise ctx.fail(f"Kingdom Assurance for {skill} was already used this turn", "§5.5 Kingdom Assurance")
        prof = proficiency_bonus(s.skills.get(skill, "untrained"), s.level)
        mod = Breakdown(f"{skill} (Kingdom Assurance)", prof, (Term(f"{skill} proficiency", prof, "proficiency"),))
        consumed = []
        die = 10
        ctx.explain(mod, dc)
        ctx.roll(key, "1d20", check=CheckSpec("pf2e", modifier=prof, dc=int(dc.total),
                                              shift=-(1 if anarchy else 0) - worsen, label=at.label))
    else:
        ctx.explain(mod, dc)
        spec = CheckSpec("pf2e", modifier=int(mod.total), dc=int(dc.total), shift=-(1 if anarchy else 0) - worsen,
                         label=at.label)
        spent = ctx.rerolled(key).count("fame")  # re-rolled on the sheet for Fame: paid before the die is drawn
        if spent > ctx.state.fame:
            raise ctx.fail(f"a Fame re-roll needs {spent} Fame point(s); the kingdom has {ctx.state.fame}", "§3.0.8")
        die, _ = roll(ctx, key, "1d20", check=spec)
        if spent:
            ctx.emit(E.FameSpent(kind="reroll", points=spent))
        if held is not None and held.kind == "roll_twice":
            other, _ = roll(ctx, f"{key}.boon", "1d20", check=spec)
            first, die = die, max(die, other)
        elif held is not None and held.kind == "reroll":
            mod = check_modifier(s, skill, extra=[*mods, StackMod(held.source, held.value, held.type, held.id)],
                                 **kw)
            ctx.explain(mod)
            first = die
            die, _ = roll(ctx, f"{key}.boon", "1d20", check=CheckSpec(
                "pf2e", modifier=int(mod.total), dc=int(dc.total), shift=spec.shift, label=f"{at.label}, re-rolled"))
        if fame_reroll:
            if ctx.state.fame < 1:
                raise ctx.fail("a Fame re-roll needs 1 Fame point", "§3.0.8")
            if held is not None and held.kind in ("reroll", "roll_twice"):
                raise ctx.fail("at most one fortune effect applies to a check", "§3.0.8 fortune")
            ctx.emit(E.FameSpent(kind="reroll", points=1))
            first = die
            die, _ = roll(ctx, f"{key}.reroll", "1d20", check=spec)
    anarchy = in_anarchy(ctx.state)
    res, degree = R.kingdom_check(die, int(mod.total), int(dc.total), anarchy=anarchy, worsened=worsen)
    if held is not None and held.kind == "second_roll":
        # Supernatural Solution: a Magic check against the same DC too; the better result counts
        mskill = held.skill or "magic"
        mmod = check_modifier(s, mskill, **kw)
        ctx.explain(mmod)
        second = f"{at.label}, a second check with {mskill.replace('_', ' ').title()}"
        mdie, _ = roll(ctx, f"{key}.boon", "1d20", check=CheckSpec("pf2e", modifier=int(mmod.total),
                                                                    dc=int(dc.total), label=second))
        mres, mdeg = R.kingdom_check(mdie, int(mmod.total), int(dc.total), anarchy=anarchy, worsened=worsen)
        if mdeg > degree:
            first, die, mod, res, degree, skill = die, mdie, mmod, mres, mdeg, mskill
    ctx.emit(E.CheckResolved(
        check_id=f"{ctx.state.turn}:{ctx.step}:{key}", activity=at.activity, category=at.category, role=at.role,
        settlement=at.settlement, hex=at.hex, target=at.target, skill=skill, ability=T.core().skills[skill],
        dc=int(dc.total), dc_terms=_terms(dc), die=die, modifier=int(mod.total), terms=_terms(mod),
        total=res.total, base_degree=res.base_degree.label, anarchy=anarchy, worsened=worsen,
        degree=degree.label, fame_reroll_of=first if fame_reroll or (held and held.kind != "bonus") else None,
        consumed=consumed, boon=held.id if held is not None else "", assurance=assurance,
    ))
    if degree.label in ("failure", "critical_failure") and reroll_for_rp:
        degree = _reroll_for_rp(ctx, key, at, skill, dc, mods, kw, anarchy, worsen, degree)
    if degree.label == "critical_failure" and pull_together:
        degree = _pull_together(ctx, key, at, degree)
    if degree == Degree.CRITICAL_SUCCESS:
        ctx.emit(E.FameChanged(delta=1, reason="critical_success", fame_after=min(fame_max(ctx.state),
                                                                                  ctx.state.fame + 1)))
        for title, n in feat_critical_dice(ctx.state, facts):
            ctx.emit(E.PendingAdded(kind="bonus_dice", amount=n, cause=f"feat {title}"))
    return degree


def _reroll_for_rp(ctx: Ctx, key: str, at: CheckAt, skill: str, dc: Breakdown, mods: list[StackMod],
                   kw: dict[str, Any], anarchy: bool, worsen: int, degree: Degree) -> Degree:
    """Free and Fair (§5.5): after a failure, spend 2 RP to re-roll without the feat's +2 (fortune)."""
    rows = feat_effects(ctx.state, "reroll_for_rp")
    facts = check_facts(ctx.state, skill, activity=at.activity, category=at.category)
    feat = next(((t, e) for t, e in rows if selector_matches(e.selector, facts)), None)
    if feat is None:
        raise ctx.fail("no feat lets this check be re-rolled for RP", "§5.5 Free and Fair")
    title, eff = feat
    spend_rp(ctx, Asked(), eff.value, f"feat {title} re-roll")
    mod = check_modifier(ctx.state, skill, extra=mods, **kw)
    mod = Breakdown(mod.name, int(mod.total) - sum(int(t.value) for t in mod.terms if t.label == f"feat {title}"),
                    tuple(t for t in mod.terms if t.label != f"feat {title}"))
    ctx.explain(mod)
    die, _ = roll(ctx, f"{key}.rp_reroll", "1d20", check=CheckSpec("pf2e", modifier=int(mod.total), dc=int(dc.total),
                                                                    label=f"{at.label}, re-rolled"))
    res, new = R.kingdom_check(die, int(mod.total), int(dc.total), anarchy=anarchy, worsened=worsen)
    ctx.emit(E.CheckResolved(
        check_id=f"{ctx.state.turn}:{ctx.step}:{key}.rp_reroll", activity=at.activity, category="reroll",
        role=at.role, settlement=at.settlement, hex=at.hex, target=at.target, skill=skill,
        ability=T.core().skills[skill], dc=int(dc.total), dc_terms=_terms(dc), die=die, modifier=int(mod.total),
        terms=_terms(mod), total=res.total, base_degree=res.base_degree.label, anarchy=anarchy, worsened=worsen,
        degree=new.label))
    if new != degree:
        ctx.emit(E.DegreeChanged(activity=at.activity, degree_from=degree.label, degree_to=new.label,
                                 cause=f"feat {title}: re-rolled for {eff.value} RP"))
    return new


def _pull_together(ctx: Ctx, key: str, at: CheckAt, degree: Degree) -> Degree:
    """Pull Together (§5.5): once per turn, a critical failure becomes a failure on a flat check (DC 11, +5
    each later use, -1 per unused turn, recorded in the counter ``pull-together``)."""
    rows = feat_effects(ctx.state, "pull_together")
    if not rows or flag_set(ctx, "pull-together"):
        return degree
    title, eff = rows[0]
    dc = ctx.state.counters.get("pull-together", eff.value)
    ok = flat(ctx, f"{key}.pull", dc, f"pull-together:{at.activity}")
    ctx.emit(E.FlagSet(flag="pull-together", cause=f"feat {title}"))
    ctx.emit(E.CounterSet(name="pull-together", value=dc + int(eff.amount), cause=f"feat {title} used"))
    if not ok:
        return degree
    ctx.emit(E.DegreeChanged(activity=at.activity, degree_from=degree.label, degree_to="failure",
                             cause=f"feat {title}: DC {dc} flat check succeeded"))
    return Degree.FAILURE


def _purpose_words(purpose: str) -> str:
    from kingdomlog.rulesets.pf2e.names import name_of

    return name_of(purpose, "check") or purpose.replace("_", " ")


def flat(ctx: Ctx, key: str, dc: int, purpose: str) -> bool:
    """A flat check (§3.0.2), recorded."""
    die, _ = roll(ctx, key, "1d20", check=CheckSpec("flat", dc=dc, label=_purpose_words(purpose)))
    ok = R.flat_succeeds(die, dc)
    ctx.emit(E.FlatCheckResolved(purpose=purpose, dc=dc, die=die, success=ok))
    return ok


# ------------------------------------------------------------------ resources


def spend_rp(ctx: Ctx, asked: Asked, amount: int, cause: str, *, forced: bool = False,
             faces: list[int] | None = None) -> None:
    """Spend RP: voluntary costs must be affordable (§3.0.3); a forced cost spends all and adds 1 Ruin.

    Liquidate Resources (§5.5), when the step opts in: the turn's first forced spend that would empty the
    treasury leaves 1 RP, is paid in full, and next turn rolls 4 fewer Resource Dice.
    """
    if amount <= 0:
        return
    have = ctx.state.rp
    if forced and amount >= have and asked.liquidate_resources and not flag_set(ctx, "liquidate-resources"):
        rows = feat_effects(ctx.state, "liquidate_resources")
        if rows and have > 1:
            title, eff = rows[0]
            ctx.emit(E.RPChanged(delta=-(have - 1), cause=f"{cause} (feat {title})", faces=faces or []))
            ctx.emit(E.FlagSet(flag="liquidate-resources", cause=f"feat {title}"))
            ctx.emit(E.PendingAdded(kind="penalty_dice", amount=eff.value, cause=f"feat {title}"))
            return
    if amount > have:
        if not forced:
            raise ctx.fail(f"{cause} costs {amount} RP but the kingdom has {have}", "§3.0.3 RP spending")
        ctx.emit(E.RPChanged(delta=-have, cause=cause, forced=True, faces=faces or []))
        ruin = pick_ruins(ctx, asked.ruins, 1)[0]
        add_ruin(ctx, asked, ruin, 1, f"{cause}: forced RP overspend")
        return
    ctx.emit(E.RPChanged(delta=-amount, cause=cause, faces=faces or []))


def pay_commodities(ctx: Ctx, cost: Mapping[Any, int], cause: str) -> None:
    for c, n in cost.items():
        if n and ctx.state.commodities[c] < n:
            raise ctx.fail(f"{cause} needs {n} {c} but the kingdom has {ctx.state.commodities[c]}",
                           "§4.9.3 pay the cost")
    for c, n in cost.items():
        if n:
            ctx.emit(E.CommodityChanged(commodity=c, delta=-n, cause=cause))


def gain_commodity(ctx: Ctx, commodity: str, amount: int, cause: str, faces: list[int] | None = None) -> None:
    """Gain up to the storage cap; the excess is lost (§2.6) and recorded as lost. Quality of Life (§5.5):
    the turn's first Luxuries gain is 1 more."""
    if amount == 0:
        return
    lost = 0
    if amount > 0 and commodity == "luxuries" and not flag_set(ctx, "luxury-bonus"):
        rows = feat_effects(ctx.state, "luxury_bonus")
        if rows:
            title, eff = rows[0]
            amount += eff.value
            ctx.emit(E.FlagSet(flag="luxury-bonus", cause=f"feat {title}: +{eff.value} Luxuries"))
    if amount > 0:
        cap = storage_cap(ctx.state, commodity)
        explain_once(ctx, cap)
        lost = R.commodity_gain(ctx.state.commodities[commodity], amount, int(cap.total))
    ctx.emit(E.CommodityChanged(commodity=commodity, delta=amount, cause=cause,
                                lost_to_cap=lost, faces=faces or []))


def ruin_options(state: KingdomState) -> dict[str, Any]:
    """The campaign options a Ruin increase follows (§3.0.5, §5.3, §5.17; Ruin variants the rules leave to the GM)."""
    return {"mode": str(state.options.get("ruin_overflow_mode", "subtract_threshold")),
            "penalty_cap": int(state.options.get("ruin_penalty_cap", 0)),
            "at": str(state.options.get("ruin_overflow_at", "exceeds"))}


def add_ruin(ctx: Ctx, asked: Asked, ruin: str, amount: int, cause: str, key: str = "",
             faces: list[int] | None = None) -> None:
    """+k / -k Ruin points (§3.0.5, §3.0.6): overflow with the Fame option; the flat check at 0.

    The event records the points and penalty after the change (v2). Fame spent to avert a penalty leaves
    what option ``fame_averts_ruin`` says: ``overflow_without_penalty`` (the points overflow, the penalty does
    not rise), ``no_gain`` (the Ruin gain that would raise the penalty is not added at all) or
    ``stop_at_threshold`` (the Ruin rises to its threshold and stops there, the penalty unchanged).
    """
    r = ctx.state.ruin[ruin]
    opts = ruin_options(ctx.state)
    if amount < 0:
        at_zero = r.points == 0 if ctx.state.options.get("ruin_reduction_trigger", "currently_zero") == \
            "currently_zero" else r.points + amount < 0
        if at_zero:
            if flat(ctx, key or f"ruinflat.{ruin}.{len(ctx.drafts)}", 16, f"ruin_penalty_reduction:{ruin}") \
                    and r.penalty > 0:
                ctx.emit(E.RuinPenaltyChanged(ruin=ruin, delta=-1, cause=cause))
            if r.points == 0:
                return
        r = ctx.state.ruin[ruin]
        pts, pen = R.ruin_after(r.points, r.threshold, r.penalty, amount, averted=False, **opts)
        ctx.emit(E.RuinChanged(ruin=ruin, delta=amount, cause=cause, faces=faces or [], points_after=pts,
                               penalty_after=pen))
        return
    if envy_ignores(ctx, "ruin", amount, cause):
        return
    averted = False
    if R.ruin_overflows(r.points + amount, r.threshold, at=opts["at"]) and asked.avert_ruin_penalty \
            and ctx.state.fame >= 1:
        ctx.emit(E.FameSpent(kind="ruin_penalty", points=ctx.state.fame))
        averted = True
        reading = ctx.state.options.get("fame_averts_ruin", "overflow_without_penalty")
        if reading == "no_gain":
            ctx.emit(E.RuinChanged(ruin=ruin, delta=0, cause=f"{cause} (averted with Fame: no gain)",
                                   penalty_averted=True, faces=faces or [], points_after=r.points,
                                   penalty_after=r.penalty))
            return
        if reading == "stop_at_threshold":
            top = max(r.points, r.threshold)
            ctx.emit(E.RuinChanged(ruin=ruin, delta=top - r.points, cause=f"{cause} (averted with Fame: stops at"
                                   f" the threshold {r.threshold})", penalty_averted=True, faces=faces or [],
                                   points_after=top, penalty_after=r.penalty))
            return
    pts, pen = R.ruin_after(r.points, r.threshold, r.penalty, amount, averted=averted, **opts)
    ctx.emit(E.RuinChanged(ruin=ruin, delta=amount, cause=cause, penalty_averted=averted, faces=faces or [],
                           points_after=pts, penalty_after=pen))


def envy_ignores(ctx: Ctx, kind: str, amount: int, cause: str) -> bool:
    """Envy of the World (level 20): the first Unrest or Ruin gain of each turn is ignored (§5.5)."""
    if amount > 0 and ctx.state.level >= 20 and not ctx.state.envy_used and ctx.state.step != "ended":
        ctx.emit(E.GainIgnored(kind=kind, amount=amount, cause=cause))
        return True
    return False


def unrest_after(state: KingdomState, delta: int) -> int:
    """Unrest after ``delta``: never below 0, never above the option ``unrest_cap`` when set (§3.0.7, §5.17)."""
    new = max(0, state.unrest + delta)
    cap = int(state.options.get("unrest_cap", 0))
    return min(cap, new) if cap else new


def unrest(ctx: Ctx, delta: int, cause: str, faces: list[int] | None = None, asked: Asked | None = None) -> None:
    """Change Unrest (§3.0.7), recording the value after (v2). Crush Dissent (§5.5), when the step opts in:
    the turn's first Unrest gain is checked with Warfare against the Control DC (success: cancelled; critical
    failure: doubled)."""
    if delta > 0 and envy_ignores(ctx, "unrest", delta, cause):
        return
    if delta > 0 and asked is not None and asked.crush_dissent and not flag_set(ctx, "crush-dissent"):
        rows = feat_effects(ctx.state, "crush_dissent")
        if rows:
            title, eff = rows[0]
            ctx.emit(E.FlagSet(flag="crush-dissent", cause=f"feat {title}"))
            deg = resolve_check(ctx, key="crush", at=CheckAt("crush-dissent", "gm"),
                                skill=eff.target or "warfare", dc=dc_breakdown(ctx.state, "control"),
                                pull_together=False)
            if deg.succeeded:
                return
            if deg == Degree.CRITICAL_FAILURE:
                delta *= 2
    if delta:
        ctx.emit(E.UnrestChanged(delta=delta, cause=cause, faces=faces or [],
                                 unrest_after=unrest_after(ctx.state, delta)))


def avert_anarchy(ctx: Ctx, cause: str = "Fame spent to avert anarchy") -> None:
    """Spend all Fame to avert anarchy (§3.0.7); what it leaves follows option ``fame_averts_anarchy``:
    ``this_turn`` (Unrest stays, no anarchy this turn) or ``unrest_below`` (Unrest falls to one below the
    anarchy threshold)."""
    if ctx.state.fame < 1:
        raise ctx.fail("averting anarchy needs at least 1 Fame point", "§3.0.7")
    ctx.emit(E.FameSpent(kind="anarchy", points=ctx.state.fame))
    if ctx.state.options.get("fame_averts_anarchy", "this_turn") == "unrest_below":
        target = anarchy_threshold(ctx.state) - 1
        if ctx.state.unrest > target:
            ctx.emit(E.UnrestChanged(delta=target - ctx.state.unrest, cause=cause, unrest_after=target))


hex_of = hex_by_id


def resource_die(state: KingdomState) -> int:
    return size_band(size_of(state)).die


def amount(ctx: Ctx, expr: int | str, key: str, *, q: int = 0, m: int = 0, extra: Mapping[str, int] | None = None
           ) -> tuple[int, list[int]]:
    """Evaluate an effect amount: int, dice (1d4, 1d4+1), k*rd (Resource Dice), k*q, k*m, and the symbols an
    outcome supplies (``extra``: half, settlements, gifts, hexes ...)."""
    if isinstance(expr, int):
        return expr, []
    sign, dice, sym = R.parse_amount(expr)
    if dice:
        total, faces = roll(ctx, key, dice)
        return sign * total, faces
    name = sym.lstrip("0123456789")
    k = int(sym[: len(sym) - len(name)] or 1)
    if name == "rd":
        total, faces = roll(ctx, key, f"{k}d{resource_die(ctx.state)}")
        return sign * total, faces
    if name == "q":
        return sign * k * q, []
    if name == "m":
        return sign * k * m, []
    if extra is not None and name in extra:
        return sign * k * int(extra[name]), []
    raise InputError(f"amount {expr!r} cannot be evaluated here")


def gm_effects(entries: Sequence[EffectEntry]) -> list[T.Effect]:
    """The GM's ruling as data effects (validated as the data's are)."""
    return [T.Effect.model_validate(e.model_dump()) for e in entries]
