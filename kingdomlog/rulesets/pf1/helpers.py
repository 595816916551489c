"""What every pf1 step procedure shares: functions of the shared ``StepContext`` (dice, checks, ids, refusals).

``ctx.state`` is the running state of the step (each ``ctx.emit`` folds its event at once),
so a helper always reads the kingdom as the step has left it so far.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any

from kingdomlog.core.errors import InputError
from kingdomlog.core.ruleset import Breakdown, StepContext, Term
from kingdomlog.dice.checks import CheckSpec
from kingdomlog.rulesets.pf1 import derive as dv
from kingdomlog.rulesets.pf1 import events as ev
from kingdomlog.rulesets.pf1.rules import kingdom_check, lot_shapes, lots_adjacent, valid_shape
from kingdomlog.rulesets.pf1.state import City, Hex, Pf1State
from kingdomlog.rulesets.pf1.tables import BuildingType

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


_PURPOSES: tuple[tuple[str, str], ...] = (
    (r"stability", ""), (r"income", "for income"), (r"acting_ruler", "of the acting ruler"),
    (r"royal_enforcer", "against the Royal Enforcer"), (r"reactivate_(.+)", "to reactivate {0:building}"),
    (r"town_(.+)", "to annex the town on {0:hex}"), (r"withdrawal_(\d+)", "on withdrawing, {0}"),
    (r"sale_(\d+)", "to sell item {0}"), (r"subjugation_(.+)", "to hold {0:} subjugated"),
    (r"rally_(.+)", "to rally {0:army}"), (r"w(\d+)_(?:.*_)?victory_(\d)", "after the victory of battle {0}, {1} of 2"),
    (r"renegotiate_loyalty", "to renegotiate"), (r"dip_check_(\d+)", "in the diplomatic talks, {0}"),
    (r"trade_(.+)_[a-z]+", "for trade route {0}"), (r"exp_(.+)_search_(\d+)", "searching on expedition {0}, {1}"),
    (r"exp_(.+)_stealth", "on expedition {0}"), (r"exp_(.+)_stability", "on expedition {0}"),
    (r"(.+)_check_(\d+)", "for the event {0}, {1}"),
    (r"(close_embassy|withdraw_treaty|attack|request_aid|aid)_(.+)", "to {0} {1:}"),
)
"""Each kingdom or skill check's roll key (the patterns ``kcheck``'s callers use) → what the check is for; a group
written ``{0:kind}`` is an id of the state, said by its name (``state_name``), else as ``kind id``."""


def state_name(s: Pf1State | None, rid: str, kind: str = "") -> str:
    """An id a check's key holds, by its name in the state: a foreign kingdom, an army, a settlement, a building
    ("the Granary in Tatzlford"); an id the state does not name: ``kind id`` ("building B2"), its words.

    >>> state_name(None, "B2", "building"), state_name(None, "east_march")
    ('building B2', 'east march')
    """
    if s is not None:
        named = (s.foreign.get(rid), s.armies.get(rid), s.cities.get(rid))
        for rec in named:
            if rec is not None and rec.name:
                return rec.name
        b = s.buildings.get(rid)
        if b is not None:
            city = s.cities.get(b.city)
            where = f" in {city.name}" if city is not None and city.name else ""
            kind_words = b.type if b.type[:1].isupper() else b.type.replace("_", " ").title()
            return f"the {kind_words}{where}"
    words = rid.replace("_", " ")
    return f"{kind} {words}" if kind else words


def check_label(what: str, key: str, *, check: bool = True, state: Pf1State | None = None) -> str:
    """A kingdom check's (or with ``check=False`` a skill check's) name in words: its attribute (or skill) and what it
    is for, said from its roll key and, given ``state``, the names of what the key holds; never the key itself. A pf1
    check logged with its key in brackets ("Stability check (stability)") is titled by these words on the sheet
    (``Pf1Kingmaker.check_title``).

    >>> check_label("STABILITY", "stability"), check_label("ECONOMY", "income")
    ('Stability check', 'Economy check for income')
    >>> check_label("LOYALTY", "w1_victory_2"), check_label("Diplomacy", "dip_check_1", check=False)
    ('Loyalty check after the victory of battle 1, 2 of 2', 'Diplomacy in the diplomatic talks, 1')
    >>> check_label("LOYALTY", "reactivate_B2")
    'Loyalty check to reactivate building B2'
    """
    name = f"{what.capitalize()} check" if check else what
    for pattern, words in _PURPOSES:
        m = re.fullmatch(pattern, key)
        if m:
            return f"{name} {_GROUP.sub(partial(_said, m.groups(), state), words)}".strip()
    return f"{name} ({key.replace('_', ' ')})"


_GROUP = re.compile(r"{(\d)(?::(\w*))?}")


def _said(groups: tuple[str, ...], state: Pf1State | None, g: re.Match[str]) -> str:
    value = groups[int(g[1])]
    return value.replace("_", " ") if g[2] is None else state_name(state, value, g[2])


def kcheck(ctx: Ctx, key: str, attr: str, dc: int, situational: int = 0, *, dc_note: Breakdown | None = None
           ) -> ev.KCheck:
    """Roll a kingdom check (base §2.5) under ``key``: d20 + attribute − Unrest + situational vs ``dc``.

    The modifier and DC are those of the running state before the roll; the step explains them.
    """
    s = ctx.state
    attribute = dv.attribute(s, attr)
    value = int(attribute.total)
    label = check_label(attr, key, state=s)
    terms = [Term(attr.capitalize(), value), Term("Unrest", -s.unrest)]
    if situational:
        terms.append(Term("situational", situational))
    for m in dv.active(s, f"CHECK:{attr}", any_city=True):  # an event's bonus on these checks (UC Events)
        terms.append(Term(m.source, m.value))
        situational += m.value
    mod = value - s.unrest + situational
    explain_once(ctx, attribute, *((dc_note,) if dc_note is not None else ()))
    ctx.explain(Breakdown(f"{label} modifier", mod, tuple(terms), note=f"vs DC {dc}"))
    if s.anarchy and s.opt("anarchy_mode") == "UC_RESULTS_ZERO":
        # UC anarchy: every Economy, Loyalty and Stability check result is 0 (whatever the die)
        ctx.explain(Breakdown(f"{label} in anarchy", 0, note="UC: the result of every kingdom check is 0"))
        die = ctx.roll(key, "1d20", check=CheckSpec("d20", modifier=-20, dc=dc, label=label,
                                                    nat20_succeeds=False)).faces[0]
        return ev.KCheck(attribute=attr, d20=die, attribute_value=value, unrest=s.unrest, situational=situational,
                         total=0, dc=dc, success=dc <= 0, margin=-dc)
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
    label = check_label(skill, key, check=False, state=ctx.state)
    spec = CheckSpec("d20", modifier=modifier, dc=dc, label=label, nat1_fails=False, nat20_succeeds=False)
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


# ------------------------------------------------------------------ lots (base §2.8, UC limits)


def free_houses(s: Pf1State, did: str, lots: tuple[int, ...], kinds: tuple[str, ...] = ()) -> list[str]:
    """Houses next to ``lots`` not already supporting a building; ``kinds`` names which buildings count
    (a UC "adjacent to 1 House or Mansion"), else any building marked ``house`` (base §2.8)."""
    want = {k.lower() for k in kinds}
    out = []
    for b in s.buildings.values():
        t = s.catalog.building(b.type)
        ok = bool(t.names() & want) if want else t.house
        if (b.district == did and ok and b.supports is None
                and any(lots_adjacent(x, y) for x in b.lots for y in lots)):
            out.append(b.id)
    return sorted(out)


def water_lot(s: Pf1State, did: str, lots: tuple[int, ...]) -> bool:
    """Whether ``lots`` touch a WATER border of district ``did`` or a Waterway lot (UC "adjacent to water")."""
    d = s.districts[did]
    for x in lots:
        row, col = divmod(x, 6)
        sides = {"N": row == 0, "S": row == 5, "W": col == 0, "E": col == 5}
        if any(on and d.borders.get(side) == "WATER" for side, on in sides.items()):
            return True
    return any(s.catalog.building(b.type).name == "Waterway" and any(lots_adjacent(x, y) for x in b.lots for y in lots)
               for b in s.buildings.values() if b.district == did)


def _site_ok(s: Pf1State, did: str, cand: tuple[int, ...], t: BuildingType | None) -> str | None:
    """Why ``cand`` cannot take a building of type ``t`` (its UC limits), or None."""
    if t is None:
        return None
    if t.water_border and not water_lot(s, did, cand):
        return f"a {t.name} goes next to a water border of the district (or a Waterway)"
    if t.not_adjacent:
        bad = {n.lower() for n in t.not_adjacent}
        near = sorted({s.catalog.building(b.type).name for b in s.buildings.values() if b.district == did
                       and s.catalog.building(b.type).names() & bad
                       and any(lots_adjacent(x, y) for x in b.lots for y in cand)})
        if near:
            return f"a {t.name} may not be next to {', '.join(near)}"
    return None


def place(ctx: Ctx, did: str, n: int, lots: list[int] | None, rule: str, houses: int = 0,
          t: BuildingType | None = None, keep: tuple[int, ...] = ()) -> tuple[int, ...]:
    """Lots for an ``n``-lot building in district ``did`` (given or the first that fits); ``keep`` are lots the
    building already holds (an upgrade) and that the new lots must include."""
    used = dv.occupied(ctx.state, did) - set(keep)
    kinds = t.adjacent_kinds if t is not None else ()
    if lots is not None:
        want = tuple(lots)
        if len(want) != n or not all(0 <= x < 36 for x in want) or not valid_shape(want):
            raise ctx.fail(f"a {n}-lot building needs {n} contiguous lots (0..35), got {list(want)}", "base §2.8")
        if set(want) & used:
            raise ctx.fail(f"lots {sorted(set(want) & used)} of {did} are already built on", "base §2.8")
        if not set(keep) <= set(want):
            raise ctx.fail(f"an upgrade keeps its lots {list(keep)}; {list(want)} does not hold them", "base §2.8")
        if houses and len(free_houses(ctx.state, did, want, kinds)) < houses:
            raise ctx.fail(f"lots {list(want)} are not adjacent to {houses} free house(s)", "base §2.8 adjacency")
        why = _site_ok(ctx.state, did, want, t)
        if why:
            raise ctx.fail(f"lots {list(want)}: {why}", "UC Building Descriptions (Limit)")
        return want
    if 36 - len(used) < n:
        raise ctx.fail(f"district {did} is full ({len(used)} of 36 lots used)", "base §2.8 (36 lots per district)")
    why = None
    for cand in lot_shapes(n):
        if set(cand) & used or not set(keep) <= set(cand):
            continue
        if houses and len(free_houses(ctx.state, did, cand, kinds)) < houses:
            continue
        why = _site_ok(ctx.state, did, cand, t)
        if why is None:
            return cand
    if why:
        raise ctx.fail(f"no lots in {did} fit: {why}", "UC Building Descriptions (Limit)")
    if houses:
        raise ctx.fail(f"no free lots in {did} next to {houses} house(s) not already supporting a building",
                       "base §2.8 adjacency")
    raise ctx.fail(f"district {did} has no room for a {n}-lot building", "base §2.8")
