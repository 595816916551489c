"""What every pf1 step procedure shares: functions of the shared ``StepContext`` (dice, checks, ids, refusals).

``ctx.state`` is the running state of the step (each ``ctx.emit`` folds its event at once),
so a helper always reads the kingdom as the step has left it so far.
"""

from __future__ import annotations

from typing import Any

from kingdomlog.core.errors import InputError
from kingdomlog.core.ruleset import Breakdown, StepContext, Term
from kingdomlog.dice.checks import CheckSpec
from kingdomlog.rulesets.pf1 import derive as dv
from kingdomlog.rulesets.pf1 import events as ev
from kingdomlog.rulesets.pf1.rules import kingdom_check
from kingdomlog.rulesets.pf1.state import City, Hex, Pf1State

Ctx = StepContext[Pf1State]


def new_id(ctx: Ctx, prefix: str) -> str:
    """The next id of ``prefix`` (C city, D district, B building, T trade route, X expedition).

    The event that carries the id records its number (``state.serials``), so the id is emitted
    right after it is made.
    """
    return f"{prefix}{ctx.state.serials.get(prefix, 0) + 1}"


def faces(ctx: Ctx, key: str, notation: str) -> tuple[int, ...]:
    """The faces of a roll that resolves no check (costs, Unrest dice, tables)."""
    return tuple(ctx.roll(key, notation).faces)


def explain_once(ctx: Ctx, *breakdowns: Breakdown) -> None:
    """``ctx.explain`` each breakdown not already explained with the same name and total."""
    have = {(b.name, b.total) for b in ctx.breakdowns}
    for b in breakdowns:
        if (b.name, b.total) not in have:
            ctx.explain(b)
            have.add((b.name, b.total))


def control_dc(s: Pf1State) -> int:
    return int(dv.control_dc(s).total)


def kcheck(ctx: Ctx, key: str, attr: str, dc: int, situational: int = 0, *, dc_note: Breakdown | None = None
           ) -> ev.KCheck:
    """Roll a kingdom check (base §2.5) under ``key``: d20 + attribute − Unrest + situational vs ``dc``.

    The modifier and DC are those of the running state before the roll; the step explains them.
    """
    s = ctx.state
    attribute = dv.attribute(s, attr)
    value = int(attribute.total)
    mod = value - s.unrest + situational
    label = f"{attr.capitalize()} check ({key})"
    terms = [Term(attr.capitalize(), value), Term("Unrest", -s.unrest)]
    if situational:
        terms.append(Term("situational", situational))
    explain_once(ctx, attribute, *((dc_note,) if dc_note is not None else ()))
    ctx.explain(Breakdown(f"{label} modifier", mod, tuple(terms), note=f"vs DC {dc}"))
    die = ctx.roll(key, "1d20", check=CheckSpec("d20", modifier=mod, dc=dc, label=label)).faces[0]
    total, ok, margin = kingdom_check(die, value, s.unrest, situational, dc)
    return ev.KCheck(attribute=attr, d20=die, attribute_value=value, unrest=s.unrest, situational=situational,
                     total=total, dc=dc, success=ok, margin=margin)


def control_check(ctx: Ctx, key: str, attr: str, extra: int = 0, situational: int = 0) -> ev.KCheck:
    """A kingdom check against Control DC + ``extra`` (the DC explained)."""
    dc = dv.control_dc(ctx.state)
    return kcheck(ctx, key, attr, int(dc.total) + extra, situational, dc_note=dc)


def skill_check(ctx: Ctx, key: str, skill: str, modifier: int, dc: int) -> ev.SkillCheck:
    """A person's skill check (opt §1.3): d20 + modifier vs DC, no automatic natural results."""
    spec = CheckSpec("d20", modifier=modifier, dc=dc, label=f"{skill} ({key})", nat1_fails=False,
                     nat20_succeeds=False)
    die = ctx.roll(key, "1d20", check=spec).faces[0]
    total = die + modifier
    return ev.SkillCheck(skill=skill, d20=die, modifier=modifier, total=total, dc=dc, success=total >= dc,
                         margin=total - dc)


def find_hex(ctx: Ctx, hex_id: Any, rule: str) -> Hex:
    h = ctx.state.hexes.get(str(hex_id))
    if h is None:
        raise ctx.fail(f"hex {hex_id!r} is not on the map (map it first)", rule)
    return h


def find_city(ctx: Ctx, ref: str | None) -> City:
    """The city named or numbered ``ref``; None: the capital (else the first live city)."""
    s = ctx.state
    if ref is None:
        caps = [c for c in dv.live_cities(s) if c.capital] or dv.live_cities(s)
        if not caps:
            raise ctx.fail("no city to build in: prepare a district first", "base §4.3 I6")
        return caps[0]
    for c in s.cities.values():
        if ref in (c.id, c.name):
            return c
    raise InputError(f"[{ctx.step}] unknown city {ref!r}; cities: {', '.join(c.name for c in s.cities.values())}")


def pay(ctx: Ctx, cost: int, what: str) -> None:
    """Refuse a cost the treasury cannot pay (base §4.0) unless spending below zero is allowed."""
    if cost > ctx.state.treasury and not ctx.state.opt("spending_below_zero_allowed"):
        raise ctx.fail(f"{what} costs {cost} BP but the treasury holds {ctx.state.treasury} BP", "base §4.0")


def subjugation_check(ctx: Ctx, vassal: str, size: int, streak: int) -> None:
    """Loyalty check DC Control DC + floor(size/5); failure Unrest +1d4 (opt §2.8)."""
    c = control_check(ctx, f"subjugation_{vassal}", "LOYALTY", size // 5)
    if c.success:
        ctx.emit(ev.SubjugationCheckRolled(vassal=vassal, check=c, streak_after=streak + 1))
    else:
        u = faces(ctx, f"subjugation_{vassal}_unrest", "1d4")[0]
        ctx.emit(ev.SubjugationCheckRolled(vassal=vassal, check=c, unrest_roll=u, unrest_delta=u, streak_after=0))


def given(model: Any) -> bool:
    """Whether an optional group of choices was given with at least one value (``{}`` counts as not given)."""
    return model is not None and bool(model.model_fields_set)
