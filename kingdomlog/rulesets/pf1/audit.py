"""``audit``: what today's rules compute differently from what a recorded pf1 event says (base §8.1 principle 3).

Replay applies the recorded facts whatever this finds; the findings are warnings for
``kingdomlog audit DIR``. Every recorded kingdom check is compared with its own arithmetic
(d20 + attribute − Unrest + situational, the margin), its natural-1/20 outcome, the Unrest
the kingdom had before it, and, for the checks whose attribute the state fully determines
(Upkeep Stability, withdrawal Loyalty, tax Economy), the attribute value the fold gives.
The Upkeep's Control DC and Consumption are compared with today's formulas too.
"""

from __future__ import annotations

from kingdomlog.core.events import EventModel, RecordedEvent
from kingdomlog.rulesets.pf1 import derive as dv
from kingdomlog.rulesets.pf1 import events as ev
from kingdomlog.rulesets.pf1.rules import kingdom_check
from kingdomlog.rulesets.pf1.state import Pf1State


def recorded_checks(p: EventModel) -> list[ev.KCheck]:
    """The kingdom checks a payload recorded."""
    out: list[ev.KCheck] = []
    for name in ("check", "stability", "checks", "loyalty_check"):
        v = getattr(p, name, None)
        if isinstance(v, ev.KCheck):
            out.append(v)
        elif isinstance(v, tuple):
            out += [c for c in v if isinstance(c, ev.KCheck)]
    return out


ATTRIBUTE_FROM_STATE = (ev.StabilityCheckRolled, ev.WithdrawalLoyaltyCheckRolled, ev.IncomeCheckRolled)
"""Checks rolled with nothing between the state before the event and the roll (so the attribute must match)."""


def check_findings(s: Pf1State, p: EventModel, c: ev.KCheck) -> list[str]:
    """What is inconsistent in one recorded kingdom check, given the state before its event."""
    total, ok, margin = kingdom_check(c.d20, c.attribute_value, c.unrest, c.situational, c.dc)
    if s.anarchy and s.opt("anarchy_mode") == "UC_RESULTS_ZERO":
        total, ok, margin = 0, c.dc <= 0, -c.dc  # UC anarchy: every kingdom check result is 0
    if isinstance(p, ev.IncomeCheckRolled) and c.dc == 0:
        ok = c.success  # the UC tax roll has no DC (income_mode uc): any total "succeeds"
    out = []
    if total != c.total or (c.margin != margin and c.dc):
        out.append(f"{c.attribute} check total {c.total} (margin {c.margin}) != d20 {c.d20} + {c.attribute_value}"
                   f" - Unrest {c.unrest} + {c.situational} = {total} (margin {margin} vs DC {c.dc})")
    if ok != c.success:
        out.append(f"{c.attribute} check success {c.success} does not follow from d20 {c.d20}, total {total},"
                   f" DC {c.dc} (natural 20 succeeds, natural 1 fails, base §2.5)")
    if c.unrest != s.unrest:
        out.append(f"{c.attribute} check used Unrest {c.unrest} but the kingdom had {s.unrest}")
    if isinstance(p, ATTRIBUTE_FROM_STATE):
        have = int(dv.attribute(s, c.attribute).total)
        if have != c.attribute_value:
            out.append(f"{c.attribute} check used {c.attribute} {c.attribute_value} but the fold gives {have}")
    return out


def audit(s: Pf1State, e: RecordedEvent) -> list[str]:
    """Warnings for ``e`` against today's rules, given the state ``s`` before it (empty: it agrees)."""
    p = e.payload
    out: list[str] = []
    for c in recorded_checks(p):
        out += check_findings(s, p, c)
    if isinstance(p, ev.StabilityCheckRolled):
        dc = int(dv.control_dc(s).total)
        if p.check.dc != dc:
            out.append(f"Upkeep Stability check DC {p.check.dc} but today's Control DC is {dc} (base §2.2)")
    if isinstance(p, ev.BattlePhaseResolved):
        for side in p.sides:
            o = side.offense
            if o is not None and o.total != o.d20 + o.om:
                out.append(f"{p.battle} phase {p.index}: {side.army}'s Offense total {o.total} != d20 {o.d20} + OM "
                           f"{o.om} (UC Attacking and Taking Damage)")
            a = s.armies.get(side.army)
            if p.index == 0 and a is not None and side.hp_before != a.hp:
                out.append(f"{p.battle}: {side.army} began with {side.hp_before} hp but the army had {a.hp}")
    if isinstance(p, ev.ConsumptionPaid):
        cons = int(dv.consumption(s).total)
        if p.consumption != cons:
            out.append(f"Consumption {p.consumption} BP paid but today's rules give {cons} (base §2.2)")
        if p.treasury_before != s.treasury:
            out.append(f"Consumption paid from a treasury of {p.treasury_before} BP but the kingdom had {s.treasury}")
    return out
