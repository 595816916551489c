"""The war step's war years as boards (``core.board``; issue 30; §4.5): for each war the armies of each side (their
militia and province: this year's allocations once the step has run, else those given, else the war's armies in the
state before the step), a line per roll by war turn (the roll keys the step makes: ``w.`` for the first war,
``w2.`` … for the others; ``<prefix>t<turn>.…`` a war turn's engagements and naval contests), each war turn's
orders, militia left and provinces captured in words, and how the war year ended (``aikakirjat.war_turn_resolved``,
``aikakirjat.war_ended``).
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
from kingdomlog.rulesets.aikakirjat.events import WarEnded, WarTurnResolved, WarYearStarted
from kingdomlog.rulesets.aikakirjat.resolve import PLAYERS
from kingdomlog.rulesets.aikakirjat.state import KingdomState, War
from kingdomlog.rulesets.aikakirjat.war import enemy_of, war_defaults


def _turn(key: str, prefix: str) -> int | None:
    """The war turn of a roll key of one war (0: the year's set-up, initiative), None: another war's.

    >>> _turn("w.t3.p1.eng.melee.players.hit", "w."), _turn("w.initiative", "w."), _turn("w2.t1.x", "w.")
    (3, 0, None)
    """
    if not key.startswith(prefix):
        return None
    m = re.match(r"t(\d+)\.", key[len(prefix):])
    return int(m.group(1)) if m else 0


def _who(key: str, names: Mapping[str, str]) -> str:
    """The side a roll is made for, from its key (``….players.hit``, ``….tuonela.damage``)."""
    parts = key.split(".")
    for p in reversed(parts[:-1]):
        if p == PLAYERS:
            return "Our kingdom"
        if p in names:
            return names[p]
    return ""


def _roll_text(roll: Roll, spec: CheckSpec | None, names: Mapping[str, str], enemy: str) -> str:
    who = _who(roll.key, names)
    what = roll.key.split(".")[-1].replace("_", " ")
    if "initiative" in roll.key.split("."):  # the year's initiative: ours, then ``initiative.enemy``
        who, what = (names.get(enemy, enemy) if what == "enemy" else "Our kingdom"), "initiative"
    if spec is None:
        return f"{who + ' ' if who else ''}{what}: {roll.notation} = {', '.join(map(str, roll.faces))}" \
               f" ({roll.total})"
    got = resolve(spec, roll)
    face = roll.kept[0] if roll.kept else roll.total
    what = spec.label if spec.bands or re.search(r"\bvs\b", spec.label) else f"{spec.label} vs DC {spec.dc}"
    head = f"{who}: {what}" if who and not what.startswith(who) else what  # "Tuonela's attack": its own who
    return (f"{head}: d20 {face} {spec.modifier:+d} = {face + spec.modifier},"
            f" {got.label if got is not None else 'rolled'}")


def _armies_of(ops: Any) -> list[Mapping[str, Any]] | None:
    """The armies an event's outcome sets (its ``armies`` op), or None."""
    for op in getattr(ops, "ops", ()) or ():
        if tuple(op.path) == ("armies",) and isinstance(op.value, list):
            return [a for a in op.value if isinstance(a, Mapping)]
    return None


def _order_text(o: Any, names: Mapping[str, str]) -> str:
    if o.kind == "attack":
        return f"{o.army_id} attacks {o.target or 'the nearest enemy army'}"
    if o.kind == "move":
        return f"{o.army_id} marches to {' → '.join(o.path)}"
    return f"{o.army_id} holds"


def _given(before: KingdomState, w: War, choices: Mapping[str, Any], first: bool) -> list[Mapping[str, Any]]:
    """The armies a war's year is set up with before the step has run: those the choices allocate (the war's entry
    in ``fronts``, else the top-level fields for the first war), else the rules' defaults (``war.war_defaults``)."""
    entry = next((f for f in choices.get("fronts") or [] if isinstance(f, Mapping) and f.get("war_id") == w.war_id),
                 choices if first else {})
    if w.armies_assigned_year == before.year:  # set up already: its armies are the state's
        return []
    ours, theirs = war_defaults(before, w)
    out: list[Mapping[str, Any]] = []
    for key, owner, default in (("allocations", PLAYERS, ours), ("enemy_allocations", enemy_of(w), theirs)):
        given = entry.get(key)
        rows = [a for a in given if isinstance(a, Mapping)] if isinstance(given, list) else \
            [a.model_dump() for a in default]
        out += [{"army_id": a.get("army_id") or "(unnamed)", "militia": a.get("militia", 0),
                 "province_id": a.get("province_id") or "?", "owner": owner, "war_id": w.war_id} for a in rows]
    return out


def boards(before: KingdomState, choices: Mapping[str, Any], rolls: Sequence[Roll], checks: Mapping[str, CheckSpec],
           drafts: Sequence[Draft]) -> list[Board]:
    """Each war of the war step as a board (see the module)."""
    names = {n.id: n.name for n in before.neighbours.values()}
    events = [d.payload for d in drafts]
    out = []
    for wi, w in enumerate(before.wars):
        prefix = "w." if wi == 0 else f"w{wi + 1}."
        enemy = w.defender if w.attacker == PLAYERS else w.attacker
        started = next((e for e in events if isinstance(e, WarYearStarted) and e.war_id == w.war_id), None)
        found = _armies_of(started.outcome) if started is not None else None
        armies: list[Mapping[str, Any]] = found if found is not None else (
            [a.model_dump() for a in before.armies if a.war_id == w.war_id] or _given(before, w, choices, wi == 0))
        armies = [a for a in armies if a.get("war_id") in (w.war_id, None)]
        sides = tuple(Side(label, tuple(Unit(str(a["army_id"]), str(a["army_id"]),
                                             (f"militia {a['militia']}", f"in {a['province_id']}"))
                                        for a in armies if (a["owner"] == PLAYERS) == mine))
                      for label, mine in (("Our kingdom", True), (names.get(enemy, enemy), False)))
        lines: list[Line] = []
        for r in rolls:
            t = _turn(r.key, prefix)
            if t is None:
                continue
            lines.append(Line(t, "roll", _roll_text(r, checks.get(r.key), names, enemy),
                              r.key if r.key in checks else ""))
        for e in events:
            if isinstance(e, WarTurnResolved) and e.war_id == w.war_id:
                orders = [_order_text(o, names) for o in (*e.orders, *e.enemy_orders)]
                orders += [f"{_order_text(o, names)} (General Staff's extra attack)"
                           for o in (e.extra_attack, e.enemy_extra_attack) if o is not None]
                left = e.audit.get("militia") if isinstance(e.audit, Mapping) else None
                bits = [f"orders: {'; '.join(orders)}"] if orders else []
                if isinstance(left, Mapping):
                    bits.append("militia left: " + ", ".join(f"{'our kingdom' if k == PLAYERS else names.get(k, k)}"
                                                            f" {v}" for k, v in left.items()))
                captured = e.audit.get("captured") if isinstance(e.audit, Mapping) else None
                if captured:
                    bits.append(f"captured: {', '.join(map(str, captured))}")
                if e.peace is not None:
                    asked = e.audit.get("peace") if isinstance(e.audit, Mapping) else None
                    made = isinstance(asked, Mapping) and asked.get("success")
                    bits.append("peace offered" + (f" demanding {', '.join(e.peace.provinces_demanded)}"
                                                   if e.peace.provinces_demanded else "")
                                + (": made" if made else ": refused" if isinstance(asked, Mapping) else ""))
                lines.append(Line(e.war_turn, "", f"After war turn {e.war_turn}: {'; '.join(bits) or 'no change'}."))
        lines.sort(key=lambda x: x.round)
        outcome = []
        for e in events:
            if isinstance(e, WarEnded) and e.war_id == w.war_id:
                winner = "our kingdom" if e.winner == PLAYERS else names.get(e.winner or "", e.winner or "nobody")
                outcome.append(f"The war ends ({e.reason.replace('_', ' ')}): {winner} wins"
                               + (f", demanding {', '.join(e.provinces_demanded)}" if e.provinces_demanded else ""))
        if any(isinstance(e, WarTurnResolved) and e.war_id == w.war_id for e in events) and not outcome:
            outcome.append("The war goes on next year.")
        titles = tuple((t, "The year's set-up (initiative)" if t == 0 else f"War turn {t}")
                       for t in {x.round for x in lines})
        out.append(Board(w.war_id, f"War against {names.get(enemy, enemy)}", sides, tuple(lines), tuple(outcome),
                         tuple(sorted(titles))))
    return out
