"""What every step does through the shared ``StepContext``: kingdom checks, costs, gains, Ruin and Unrest.

Plain functions taking the step's ``ctx`` (``StepContext[KingdomState]``): each ``ctx.emit`` folds its
event at once, so later choices of the same step are validated against the updated kingdom (RP already
spent, activities already used). A ``RuleError`` (``raise ctx.fail(...)``) leaves nothing of the step.
Each check passes its ``CheckSpec`` to ``ctx.roll`` and its modifier and DC to ``ctx.explain``.

``Asked`` carries the two step-level choices that matter deep inside an outcome: whether Fame averts a
Ruin penalty, and the Ruins "of your choice" a forced RP overspend adds to.
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
    KingdomState,
    check_modifier,
    control_dc,
    feat_critical_dice,
    hex_by_id,
    in_anarchy,
    size_band,
    size_of,
    storage_cap,
)

Ctx = StepContext[KingdomState]


@dataclass(frozen=True)
class Asked:
    """Step-level choices read by effects: Fame averting a Ruin penalty, the Ruins chosen for a forced cost."""

    avert_ruin_penalty: bool = False
    ruins: tuple[str, ...] = ()


@dataclass(frozen=True)
class Picks:
    """What the outcome effects of one check may ask, read from its step's or row's choices.

    ``option``: the branch of an either/or outcome; ``commodity``: the one an outcome lets you choose;
    ``ruins``: the Ruins "of your choice"; ``refuge_ruin``: the Ruin a claimed Refuge lowers; ``recover``:
    the commodity a Demolish critical success recovers.
    """

    option: int = 0
    commodity: str = "food"
    ruins: tuple[str, ...] = ()
    refuge_ruin: tuple[str, ...] = ()
    recover: str | None = None

    @classmethod
    def of(cls, c: Any) -> Picks:
        """The picks of a choices model (a field it does not have takes its default)."""
        return cls(option=getattr(c, "option", None) or 0, commodity=getattr(c, "commodity", None) or "food",
                   ruins=ruins_named(getattr(c, "ruins", None), getattr(c, "ruin", None)),
                   refuge_ruin=ruins_named(None, getattr(c, "refuge_ruin", None)),
                   recover=getattr(c, "recover", None))


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
        return Breakdown("DC", int(rule), (Term(label or "fixed DC", int(rule)),))
    base = control_dc(state)
    terms = list(base.terms)
    if extra:
        terms.append(Term(label or "activity", extra))
    return Breakdown("DC", int(base.total) + extra, tuple(terms))


def _terms(b: Breakdown) -> list[E.TermOut]:
    return [E.TermOut(label=t.label, value=int(t.value), kind=t.kind) for t in b.terms]


def resolve_check(ctx: Ctx, *, key: str, activity: str, category: str, skill: str, dc: Breakdown,
                  role: str = "", settlement: str = "", target: str = "", warfare: bool = False,
                  extra: list[StackMod] | None = None, fame_reroll: bool = False,
                  worsen: int = 0, selector_target: str = "") -> Degree:
    """Roll and record one kingdom skill check (§3.0.1); +1 Fame on a critical success (§3.0.1.7)."""
    if skill not in T.core().skills:
        raise InputError(f"unknown kingdom skill {skill!r}")
    mod = check_modifier(ctx.state, skill, activity=activity, category=category, warfare=warfare, role=role,
                         extra=extra, target=selector_target)
    ctx.explain(mod, dc)
    anarchy = in_anarchy(ctx.state)
    spec = CheckSpec("pf2e", modifier=int(mod.total), dc=int(dc.total), shift=-(1 if anarchy else 0) - worsen,
                     label=activity)
    die, _ = roll(ctx, key, "1d20", check=spec)
    first: int | None = None
    if fame_reroll:
        if ctx.state.fame < 1:
            raise ctx.fail("a Fame re-roll needs 1 Fame point", "§3.0.8")
        ctx.emit(E.FameSpent(kind="reroll", points=1))
        first = die
        die, _ = roll(ctx, f"{key}.reroll", "1d20", check=spec)
    anarchy = in_anarchy(ctx.state)
    res, degree = R.kingdom_check(die, int(mod.total), int(dc.total), anarchy=anarchy, worsened=worsen)
    ctx.emit(E.CheckResolved(
        check_id=f"{ctx.state.turn}:{ctx.step}:{key}", activity=activity, category=category, role=role,
        settlement=settlement, target=target, skill=skill, ability=T.core().skills[skill], dc=int(dc.total),
        dc_terms=_terms(dc), die=die, modifier=int(mod.total), terms=_terms(mod),
        total=res.total, base_degree=res.base_degree.label, anarchy=anarchy, worsened=worsen,
        degree=degree.label, fame_reroll_of=first,
    ))
    if degree == Degree.CRITICAL_SUCCESS:
        ctx.emit(E.FameChanged(delta=1, reason="critical_success"))
        for title, n in feat_critical_dice(ctx.state, category):
            ctx.emit(E.PendingAdded(kind="bonus_dice", amount=n, cause=f"feat {title}"))
    return degree


def flat(ctx: Ctx, key: str, dc: int, purpose: str) -> bool:
    """A flat check (§3.0.2), recorded."""
    die, _ = roll(ctx, key, "1d20", check=CheckSpec("flat", dc=dc, label=purpose))
    ok = R.flat_succeeds(die, dc)
    ctx.emit(E.FlatCheckResolved(purpose=purpose, dc=dc, die=die, success=ok))
    return ok


# ------------------------------------------------------------------ resources


def spend_rp(ctx: Ctx, asked: Asked, amount: int, cause: str, *, forced: bool = False,
             faces: list[int] | None = None) -> None:
    """Spend RP: voluntary costs must be affordable (§3.0.3); a forced cost spends all and adds 1 Ruin."""
    if amount <= 0:
        return
    have = ctx.state.rp
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
    """Gain up to the storage cap; the excess is lost (§2.6) and recorded as lost."""
    if amount == 0:
        return
    lost = 0
    if amount > 0:
        cap = storage_cap(ctx.state, commodity)
        explain_once(ctx, cap)
        lost = R.commodity_gain(ctx.state.commodities[commodity], amount, int(cap.total))
    ctx.emit(E.CommodityChanged(commodity=commodity, delta=amount, cause=cause,
                                lost_to_cap=lost, faces=faces or []))


def add_ruin(ctx: Ctx, asked: Asked, ruin: str, amount: int, cause: str, key: str = "",
             faces: list[int] | None = None) -> None:
    """+k / -k Ruin points (§3.0.5, §3.0.6): overflow with the Fame option; the flat check at 0."""
    r = ctx.state.ruin[ruin]
    if amount < 0:
        at_zero = r.points == 0 if ctx.state.options.get("ruin_reduction_trigger", "currently_zero") == \
            "currently_zero" else r.points + amount < 0
        if at_zero:
            if flat(ctx, key or f"ruinflat.{ruin}.{len(ctx.drafts)}", 16, f"ruin_penalty_reduction:{ruin}") \
                    and r.penalty > 0:
                ctx.emit(E.RuinPenaltyChanged(ruin=ruin, delta=-1, cause=cause))
            if r.points == 0:
                return
        ctx.emit(E.RuinChanged(ruin=ruin, delta=amount, cause=cause, faces=faces or []))
        return
    if envy_ignores(ctx, "ruin", amount, cause):
        return
    averted = False
    if r.points + amount > r.threshold and asked.avert_ruin_penalty and ctx.state.fame >= 1:
        ctx.emit(E.FameSpent(kind="ruin_penalty", points=ctx.state.fame))
        averted = True
    ctx.emit(E.RuinChanged(ruin=ruin, delta=amount, cause=cause, penalty_averted=averted,
                           faces=faces or []))


def envy_ignores(ctx: Ctx, kind: str, amount: int, cause: str) -> bool:
    """Envy of the World (level 20): the first Unrest or Ruin gain of each turn is ignored (§5.5)."""
    if amount > 0 and ctx.state.level >= 20 and not ctx.state.envy_used and ctx.state.step != "ended":
        ctx.emit(E.GainIgnored(kind=kind, amount=amount, cause=cause))
        return True
    return False


def unrest(ctx: Ctx, delta: int, cause: str, faces: list[int] | None = None) -> None:
    if delta > 0 and envy_ignores(ctx, "unrest", delta, cause):
        return
    if delta:
        ctx.emit(E.UnrestChanged(delta=delta, cause=cause, faces=faces or []))


hex_of = hex_by_id


def resource_die(state: KingdomState) -> int:
    return size_band(size_of(state)).die


def amount(ctx: Ctx, expr: int | str, key: str, *, q: int = 0, m: int = 0) -> tuple[int, list[int]]:
    """Evaluate an effect amount: int, dice, k*rd (Resource Dice), k*q, k*m."""
    if isinstance(expr, int):
        return expr, []
    sign, dice, sym = R.parse_amount(expr)
    if dice:
        total, faces = roll(ctx, key, dice)
        return sign * total, faces
    k = int(sym.rstrip("rdqm") or 1) if sym[-1] in "dqm" else 1
    if sym.endswith("rd"):
        total, faces = roll(ctx, key, f"{k}d{resource_die(ctx.state)}")
        return sign * total, faces
    if sym.endswith("q"):
        return sign * k * q, []
    if sym.endswith("m"):
        return sign * k * m, []
    raise InputError(f"amount {expr!r} cannot be evaluated here")


def gm_effects(entries: Sequence[EffectEntry]) -> list[T.Effect]:
    """The GM's ruling as data effects (validated as the data's are)."""
    return [T.Effect.model_validate(e.model_dump()) for e in entries]
