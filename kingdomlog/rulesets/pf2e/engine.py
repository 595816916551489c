"""Shared machinery of ``decide``: a running context, kingdom checks, costs and outcome effects.

A ``Ctx`` holds the state as it evolves inside one step: every payload emitted is
folded at once, so later choices in the same step are validated against the
updated kingdom (RP already spent, activities already used). ``decide`` returns
the drafts only if the whole step validated; a ``RuleError`` leaves nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kingdomlog.core.errors import InputError, RuleError
from kingdomlog.core.events import Draft, EventModel
from kingdomlog.core.modifiers import Modifier as StackMod
from kingdomlog.core.ruleset import Breakdown, Dice, Term
from kingdomlog.dice.checks import Degree, flat_check, pf2e_check
from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.amounts import parse_amount
from kingdomlog.rulesets.pf2e.evolve import apply
from kingdomlog.rulesets.pf2e.state import (
    Hex,
    KingdomState,
    check_modifier,
    control_dc,
    feat_critical_dice,
    in_anarchy,
    size_band,
    size_of,
)


@dataclass
class Ctx:
    """A step being decided: running state, drafts so far, the dice and the step's choices."""

    state: KingdomState
    step: str
    dice: Dice
    choices: Mapping[str, Any]
    drafts: list[Draft] = field(default_factory=list)
    breakdowns: list[Breakdown] = field(default_factory=list)

    @property
    def cat(self) -> T.Catalog:
        return T.catalog(self.state.homebrew)

    def emit(self, payload: EventModel, actor: str = "gm") -> None:
        self.state = apply(self.state, payload, self.state.turn)
        self.drafts.append(Draft(payload=payload, phase=self.step, actor=actor))

    def fail(self, message: str, rule: str) -> RuleError:
        return RuleError(message, rule=rule, step=self.step)

    def roll(self, key: str, notation: str) -> tuple[int, list[int]]:
        r = self.dice.roll(key, notation)
        return r.total, list(r.kept or r.faces)


# ------------------------------------------------------------------ choices helpers


def opt(choices: Mapping[str, Any], name: str, default: Any, kind: type | tuple[type, ...] | None = None,
        where: str = "") -> Any:
    """A choice value or its default; ``InputError`` when malformed."""
    if name not in choices or choices[name] is None:
        return default
    value = choices[name]
    if kind is not None and not isinstance(value, kind):
        raise InputError(f"{where or 'choice'} {name!r} has the wrong type: {value!r}")
    return value


def default_ruins(state: KingdomState, n: int = 1, exclude: Sequence[str] = ()) -> list[str]:
    """The Ruins furthest from overflowing first (a sensible default for "a Ruin of your choice")."""
    order = sorted((r for r in T.RUINS if r not in exclude),
                   key=lambda r: (state.ruin[r].points - state.ruin[r].threshold, state.ruin[r].penalty, r))
    return (order * n)[:n]


def pick_ruins(ctx: Ctx, choices: Mapping[str, Any], n: int) -> list[str]:
    given = choices.get("ruins") or ([choices["ruin"]] if choices.get("ruin") else [])
    if isinstance(given, str):
        given = [given]
    out = [g for g in given if g]
    for r in out:
        if r not in T.RUINS:
            raise InputError(f"unknown Ruin {r!r}; expected one of {', '.join(T.RUINS)}")
    if len(out) < n:
        out += default_ruins(ctx.state, n - len(out), exclude=out)
    return out[:n]


# ------------------------------------------------------------------ checks


def dc_breakdown(ctx: Ctx, rule: str, *, extra: int = 0, label: str = "") -> Breakdown:
    """The DC of a check: Control DC (+ extra), or a fixed DC when ``rule`` is a number."""
    if rule.isdigit():
        return Breakdown("DC", int(rule), (Term(label or "fixed DC", int(rule)),))
    base = control_dc(ctx.state)
    terms = list(base.terms)
    if extra:
        terms.append(Term(label or "activity", extra))
    return Breakdown("DC", int(base.total) + extra, tuple(terms))


def resolve_check(ctx: Ctx, *, key: str, activity: str, category: str, skill: str, dc: Breakdown,
                  role: str = "", settlement: str = "", target: str = "", warfare: bool = False,
                  extra: list[StackMod] | None = None, fame_reroll: bool = False,
                  worsen: int = 0, selector_target: str = "") -> Degree:
    """Roll and record one kingdom skill check (§3.0.1); +1 Fame on a critical success (§3.0.1.7)."""
    if skill not in T.core().skills:
        raise InputError(f"unknown kingdom skill {skill!r}")
    mod = check_modifier(ctx.state, skill, activity=activity, category=category, warfare=warfare, role=role,
                         extra=extra, target=selector_target)
    ctx.breakdowns.append(mod)
    die, _ = ctx.roll(key, "1d20")
    first: int | None = None
    if fame_reroll:
        if ctx.state.fame < 1:
            raise ctx.fail("a Fame re-roll needs 1 Fame point", "§3.0.8")
        ctx.emit(E.FameSpent(kind="reroll", points=1))
        first = die
        die, _ = ctx.roll(f"{key}.reroll", "1d20")
    res = pf2e_check(die, int(mod.total), int(dc.total))
    anarchy = in_anarchy(ctx.state)
    degree = res.degree.shift(-1 if anarchy else 0)
    if worsen:
        degree = degree.shift(-worsen)
    ctx.emit(E.CheckResolved(
        check_id=f"{ctx.state.turn}:{ctx.step}:{key}", activity=activity, category=category, role=role,
        settlement=settlement, target=target, skill=skill, ability=T.core().skills[skill], dc=int(dc.total),
        dc_terms=[E.TermOut(label=t.label, value=int(t.value), kind=t.kind) for t in dc.terms], die=die,
        modifier=int(mod.total), terms=[E.TermOut(label=t.label, value=int(t.value), kind=t.kind) for t in mod.terms],
        total=res.total, base_degree=res.base_degree.label, anarchy=anarchy, worsened=worsen,
        degree=degree.label,
        fame_reroll_of=first,
    ))
    if degree == Degree.CRITICAL_SUCCESS:
        ctx.emit(E.FameChanged(delta=1, reason="critical_success"))
        for title, n in feat_critical_dice(ctx.state, category):
            ctx.emit(E.PendingAdded(kind="bonus_dice", amount=n, cause=f"feat {title}"))
    return degree


def flat(ctx: Ctx, key: str, dc: int, purpose: str) -> bool:
    """A flat check (§3.0.2), recorded."""
    die, _ = ctx.roll(key, "1d20")
    ok = flat_check(die, dc)
    ctx.emit(E.FlatCheckResolved(purpose=purpose, dc=dc, die=die, success=ok))
    return ok


# ------------------------------------------------------------------ resources


def spend_rp(ctx: Ctx, amount: int, cause: str, *, forced: bool = False, faces: list[int] | None = None) -> None:
    """Spend RP: voluntary costs must be affordable (§3.0.3); a forced cost spends all and adds 1 Ruin."""
    if amount <= 0:
        return
    have = ctx.state.rp
    if amount > have:
        if not forced:
            raise ctx.fail(f"{cause} costs {amount} RP but the kingdom has {have}", "§3.0.3 RP spending")
        ctx.emit(E.RPChanged(delta=-have, cause=cause, forced=True, faces=faces or []))
        ruin = pick_ruins(ctx, ctx.choices, 1)[0]
        add_ruin(ctx, ruin, 1, f"{cause}: forced RP overspend")
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
    """Gain up to the storage cap; the excess is lost (§2.6)."""
    from kingdomlog.rulesets.pf2e.state import storage_cap

    if amount == 0:
        return
    lost = 0
    if amount > 0:
        cap = int(storage_cap(ctx.state, commodity).total)
        lost = max(0, ctx.state.commodities[commodity] + amount - cap)
    ctx.emit(E.CommodityChanged(commodity=commodity, delta=amount, cause=cause, lost_to_cap=lost,
                                faces=faces or []))


def add_ruin(ctx: Ctx, ruin: str, amount: int, cause: str, key: str = "", faces: list[int] | None = None) -> None:
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
    if r.points + amount > r.threshold and ctx.choices.get("avert_ruin_penalty_with_fame") and ctx.state.fame >= 1:
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


def resource_die(state: KingdomState) -> int:
    return size_band(size_of(state)).die


def amount(ctx: Ctx, expr: int | str, key: str, *, q: int = 0, m: int = 0) -> tuple[int, list[int]]:
    """Evaluate an effect amount: int, dice, k*rd (Resource Dice), k*q, k*m."""
    if isinstance(expr, int):
        return expr, []
    sign, dice, sym = parse_amount(expr)
    if dice:
        total, faces = ctx.roll(key, dice)
        return sign * total, faces
    k = int(sym.rstrip("rdqm") or 1) if sym[-1] in "dqm" else 1
    if sym.endswith("rd"):
        total, faces = ctx.roll(key, f"{k}d{resource_die(ctx.state)}")
        return sign * total, faces
    if sym.endswith("q"):
        return sign * k * q, []
    if sym.endswith("m"):
        return sign * k * m, []
    raise InputError(f"amount {expr!r} cannot be evaluated here")


def hex_of(state: KingdomState, hid: str) -> Hex | None:
    for h in state.hexes:
        if h.id == hid:
            return h
    return None


def gm_effects(choices: Mapping[str, Any], where: str) -> list[T.Effect]:
    raw = choices.get("gm_effects") or []
    if not isinstance(raw, list):
        raise InputError(f"{where}: gm_effects must be a list of effects")
    try:
        return [T.Effect.model_validate(e) for e in raw]
    except Exception as exc:
        raise InputError(f"{where}: bad gm_effects: {exc}") from None
