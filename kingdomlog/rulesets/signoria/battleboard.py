"""Phase 3's battles as boards (``core.board``; issue 30; §5.8): each battle's sides (units, reserve, tactic, the
characters who fight, the commander: ``signoria.battle_opened``), a line per dice pool in round order (the roll keys
``<battle>.r<round>.<side>.<group>[.x<n>|.reroll]``) with its chances, each round's declarations, kills, routs and
units still engaged (``signoria.battle_round``), and the winner (``signoria.battle_ended``).

While the step waits for a roll it has no events yet: the lines are then the pools rolled so far, and the sides are
named by the battles the choices declare for.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from kingdomlog.core.board import Board, Line, Side, Unit
from kingdomlog.core.events import Draft
from kingdomlog.dice.checks import CheckSpec
from kingdomlog.dice.odds import resolve
from kingdomlog.dice.roller import Roll
from kingdomlog.rulesets.signoria import events as ev
from kingdomlog.rulesets.signoria.state import SignoriaState
from kingdomlog.rulesets.signoria.vocabulary import BATTLE_OPTIONS
from kingdomlog.rulesets.signoria.vocabulary import name_of as _name_of

OPTION_WORDS = {v: label for v, label, _ in BATTLE_OPTIONS}
TACTIC_WORDS = {"hold": "hold position", "breakthrough": "breakthrough in the centre", "encirclement": "encirclement",
                "ambush": "ambush", "counterattack": "counterattack against breakthroughs"}
"""The tactics in words (§5.4)."""
KIND_WORDS = {"field": "a field battle", "storm": "a city stormed", "sally": "a garrison's sally"}
"""The kinds of battle in words (§5.2, §5.11)."""


def _where(key: str) -> tuple[str, int, str, str] | None:
    """The battle, round, side and group of a pool's roll key.

    >>> _where("b5.1.r2.attacker.main.x1"), _where("fabian.O1.1")
    (('b5.1', 2, 'attacker', 'main'), None)
    """
    m = re.match(r"(.+)\.r(\d+)\.(attacker|defender)\.(main|reserve)", key)
    return (m.group(1), int(m.group(2)), m.group(3), m.group(4)) if m else None


def _pool_text(roll: Roll, spec: CheckSpec | None, who: str, group: str) -> str:
    more = " (exploding sixes)" if re.search(r"\.x\d+$", roll.key) else " (re-rolled ones)" \
        if roll.key.endswith(".reroll") else ""
    faces = " ".join(map(str, roll.faces))
    got = resolve(spec, roll) if spec is not None else None
    at = f" at {spec.pool.threshold}+" if spec is not None and spec.pool is not None else ""
    n = len(roll.faces)
    return (f"{who}, {group} group: {n} {'die' if n == 1 else 'dice'}{at}{more}: {faces}"
            + (f" → {got.label}" if got is not None else ""))


def _round_text(r: ev.BattleRound, names: Mapping[str, str], who: Mapping[str, str] | None = None) -> str:
    """What a round did, in words; ``who``: the names of the factions and characters by id."""
    who = who or {}
    said = []
    for d in r.declarations:
        actor = d.get("character") or names.get(str(d.get("side")), str(d.get("side")))
        option = OPTION_WORDS.get(str(d.get("option", "")), str(d.get("option", "")).replace("_", " "))
        said.append(f"{who.get(str(actor), str(actor))}: {option}")
    for side, got in r.sides.items():
        bits = [f"{k.replace('_', ' ')} {got[k]}" for k in ("kills", "routs", "hospital", "returned")
                if isinstance(got, Mapping) and got.get(k)]
        if isinstance(got, Mapping) and "engaged_after" in got:
            bits.append(f"{got['engaged_after']} units still engaged")
        fac = names.get(side, side)
        said.append(f"{who.get(fac, fac)}: {', '.join(bits) or 'no losses inflicted'}")
    return f"After round {r.round}: " + "; ".join(said) + "."


def boards(before: SignoriaState, choices: Mapping[str, Any], rolls: Sequence[Roll], checks: Mapping[str, CheckSpec],
           drafts: Sequence[Draft]) -> list[Board]:
    """The battles of phase 3 as boards (see the module)."""
    events = [d.payload for d in drafts]
    who = {**{c.id: c.name for c in before.characters.values()}, **{f.id: f.name for f in before.factions.values()}}
    where = {p.id: p.name for p in before.provinces.values()}
    opened = [e for e in events if isinstance(e, ev.BattleOpened)]
    pooled = [w for r in rolls if (w := _where(r.key)) is not None]
    order = list(dict.fromkeys([*(e.battle for e in opened), *(w[0] for w in pooled)]))
    out = []
    for bid in order:
        op = next((e for e in opened if e.battle == bid), None)
        names = {"attacker": op.attacker, "defender": op.defender} if op is not None else {}
        sides: list[Side] = []
        if op is not None:
            for role, fac in (("Attacker", op.attacker), ("Defender", op.defender)):
                f = op.forces.get(fac) or {}
                stats = (f"{f.get('units', 0)} units", f"reserve {f.get('reserve', 0)}",
                         f"tactic {TACTIC_WORDS.get(str(f.get('tactic')), f.get('tactic') or 'none')}")
                chars = [who.get(str(c), str(c)) for c in f.get("characters") or []]
                boss = f.get("commander")
                note = "; ".join(x for x in (f"characters: {', '.join(chars)}" if chars else "",
                                             f"commander: {who.get(str(boss), str(boss))}" if boss else "",
                                             "contingents: " + ", ".join(who.get(str(c), str(c)) for c in
                                                                         f.get("contingents") or [])
                                             if f.get("contingents") else "") if x)
                sides.append(Side(f"{role}: {who.get(fac, fac)}", (Unit(fac, who.get(fac, fac), stats, (), note),)))
        lines: list[Line] = []
        for r in rolls:
            w = _where(r.key)
            if w is None or w[0] != bid:
                continue
            fac = names.get(w[2], w[2])
            lines.append(Line(w[1], fac, _pool_text(r, checks.get(r.key), who.get(fac, fac), w[3]),
                              r.key if r.key in checks else ""))
        for e in events:
            if isinstance(e, ev.BattleRound) and e.battle == bid:
                lines.append(Line(e.round, "", _round_text(e, names, who)))
        lines.sort(key=lambda x: x.round)
        outcome = []
        end = next((e for e in events if isinstance(e, ev.BattleEnded) and e.battle == bid), None)
        if end is not None:
            outcome.append(f"{who.get(end.winner, end.winner)} wins ({end.reason.replace('_', ' ')}).")
            outcome += [f"{who.get(f, f)}: {n} units killed" + (f", {end.routed_at_end.get(f, 0)} routed at the end"
                                                               if end.routed_at_end.get(f) else "")
                        for f, n in end.killed.items()]
        title = (f"Battle of {where.get(op.province, op.province)} ({KIND_WORDS.get(op.kind, op.kind)})"
                 if op is not None else _name_of(bid) or bid)
        title = title[:1].upper() + title[1:]
        out.append(Board(bid, title, tuple(sides), tuple(lines), tuple(outcome)))
    return out
