"""The A5 War encounters step as battle boards (``core.board``; issue 30): each battle's armies from the state
before the step, a line per roll in round order (the roll keys ``warfare.battle`` makes: ``b<n>.init.<army>``,
``b<n>.r<round>.<army>.<n>[...]``, ``b<n>.r<round>.rout.<army>``), and once the step has run, what the battle
did (each army's HP and conditions after it, routs, who won) from its events.

While the step waits for a roll it has no events yet: the lines are then read from the checks rolled so far
(their labels and the outcome the kernel reads from the faces).
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
from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.state import Army, KingdomState
from kingdomlog.rulesets.pf2e.warfare import strike_modifiers

_ROUT = {"critical_success": "stands firm: no more rout checks this battle", "success": "holds",
         "failure": "shaken +1", "critical_failure": "routed"}


def _degree(label: str | None) -> str:
    return (label or "").replace("_", " ")


def unit(a: Army) -> Unit:
    """An army on the board: HP, AC, its Strikes, Maneuver, Morale, Scouting, its Rout Threshold; conditions;
    its tactics and the war actions they grant.

    >>> from kingdomlog.rulesets.pf2e.warfare import new_army
    >>> u = unit(Army(**new_army(T.army_defs()["infantry"], 1, "m").model_dump()))
    >>> u.stats
    ('HP 4 of 4', 'AC 16', 'melee +9', 'Maneuver +4', 'Morale +10', 'Scouting +7', 'routs at 2 HP')
    """
    melee, ranged = strike_modifiers(a)
    stats = [f"HP {a.hp} of {a.hp_max}", f"AC {a.ac}"]
    if melee is not None:
        stats.append(f"melee {melee:+d}")
    if ranged is not None:
        stats.append(f"ranged {ranged:+d} ({a.ammunition} shots)")
    stats += [f"Maneuver {a.maneuver:+d}", f"Morale {a.morale:+d}", f"Scouting {a.scouting:+d}",
              f"routs at {a.rout_threshold} HP"]
    cdefs, tdefs, adefs = T.condition_defs(), T.tactic_defs(), T.war_action_defs()
    conds = tuple(f"{cdefs[k].title or k if k in cdefs else k}{f' {v}' if k in cdefs and cdefs[k].valued else ''}"
                  for k, v in sorted(a.conditions.items()) if v)
    tactics = []
    for t in dict.fromkeys(a.tactics):
        td = tdefs.get(t)
        if td is None:
            continue
        grants = [adefs[g].title or g for g in td.grants if g in adefs]
        tactics.append(f"{td.title or t}" + (f" ({', '.join(grants)})" if grants else ""))
    gear = [f"{g} {n}" if n > 1 else g for g, n in sorted(a.gear.items()) if n]
    note = "; ".join(x for x in ("Tactics: " + ", ".join(tactics) if tactics else "",
                                 "Gear: " + ", ".join(gear) if gear else "") if x)
    return Unit(a.id, a.name, tuple(stats), conds, note)


def _where(key: str) -> tuple[int, int] | None:
    """The battle (1, 2, ...) and round (0: before the first) a roll key of the step belongs to.

    >>> _where("b1.init.m"), _where("b2.r3.m.1.s0"), _where("b1.r2.rout.x"), _where("warfare")
    ((1, 0), (2, 3), (1, 2), None)
    """
    m = re.match(r"b(\d+)\.(?:r(\d+)|init|[^.]*)", key)
    if m is None:
        return None
    return int(m.group(1)), int(m.group(2) or 0)


def _event_text(ev: E.WarActionTaken, names: Mapping[str, str]) -> str:
    who = names.get(ev.army, ev.army)
    adefs = T.war_action_defs()
    what = adefs[ev.action].title if ev.action in adefs and adefs[ev.action].title else ev.action.replace("-", " ")
    if ev.action == "initiative":
        return f"{who}: initiative {ev.total} (Scouting d20 {ev.die} {ev.modifier:+d})"
    if ev.action == "flat":
        passed = ev.degree == "success"
        return f"{who}: {ev.note} → {'passed' if passed else 'failed'} (d20 {ev.die})"
    if ev.action == "rout":
        return (f"{who}: rout check, Morale d20 {ev.die} {ev.modifier:+d} = {ev.total} vs DC {ev.dc}:"
                f" {_degree(ev.degree)}, {_ROUT.get(ev.degree or '', '')}")
    target = f" → {names.get(ev.target, ev.target)}" if ev.target else ""
    how = f" ({ev.note})" if ev.note and ev.note not in ("melee", "ranged") else f" ({ev.note} Strike)" \
        if ev.note else ""
    if ev.die is None:
        return f"{who}: {what}{target}{how}"
    return f"{who}: {what}{target}{how}: d20 {ev.die} {ev.modifier:+d} = {ev.total} vs {ev.dc}, {_degree(ev.degree)}"


def _check_text(roll: Roll, spec: CheckSpec) -> str:
    got = resolve(spec, roll)
    if spec.kind == "flat":
        return f"{spec.label}: d20 {roll.total}, {got.label if got is not None else 'rolled'}"
    if spec.kind == "total":  # an initiative: a total, no DC nor degree
        return f"{spec.label}: d20 {roll.total} {spec.modifier:+d} = {roll.total + spec.modifier}"
    return (f"{spec.label}: d20 {roll.total} {spec.modifier:+d} = {roll.total + spec.modifier} vs {spec.dc},"
            f" {got.label if got is not None else 'rolled'}")


def _after_rounds(evs: Sequence[E.WarActionTaken], names: Mapping[str, str], armies: Mapping[str, Army],
                  hp_after: Mapping[str, int]) -> dict[int, str]:
    """What each round did to each army, in words: damage taken, shaken, the rout check, defeated.

    A damage asks a DC 11 flat check (failed: shaken +1), so each is in the events; the blow that drops an army to
    0 HP asks none: the HP the battle recorded at its end that the flat checks do not account for were lost to
    the last hit on that army.
    """
    rounds = sorted({e.round for e in evs if e.round > 0})
    harm: dict[int, dict[str, dict[str, Any]]] = {r: {} for r in rounds}
    last_hit: dict[str, int] = {}
    for ev in evs:
        if ev.round <= 0:
            continue
        if ev.target in armies and ev.degree in ("success", "critical_success") and ev.action != "flat":
            last_hit[ev.target] = ev.round
        got = harm[ev.round].setdefault(ev.army, {"damage": 0, "shaken": 0, "rout": "", "destroyed": False})
        if ev.action == "flat" and ev.note.startswith("damaged"):
            got["damage"] += 1
            got["shaken"] += ev.degree != "success"
        elif ev.action == "flat" and ev.note.startswith("defeated"):
            got["destroyed"] = got["destroyed"] or ev.degree != "success"
        elif ev.action == "rout":
            got["rout"] = _ROUT.get(ev.degree or "", "")
    for aid, hp in hp_after.items():
        a = armies.get(aid)
        counted = sum(harm[r].get(aid, {}).get("damage", 0) for r in rounds)
        if a is not None and a.hp - hp > counted and aid in last_hit:
            got = harm[last_hit[aid]].setdefault(aid, {"damage": 0, "shaken": 0, "rout": "", "destroyed": False})
            got["damage"] += a.hp - hp - counted
            got["down"] = hp <= 0
    out = {}
    for r in rounds:
        said = []
        for aid, got in harm[r].items():
            bits = [f"{got['damage']} damage"] if got["damage"] else []
            bits += [f"shaken +{got['shaken']}"] if got["shaken"] else []
            bits += ["down to 0 HP: defeated"] if got.get("down") else []
            bits += [f"rout check: {got['rout']}"] if got["rout"] else []
            bits += ["destroyed"] if got["destroyed"] else []
            if bits:
                said.append(f"{names.get(aid, aid)}: {', '.join(bits)}")
        out[r] = f"After round {r}: " + ("; ".join(said) + "." if said else "no damage taken, no rout check.")
    return out


def boards(before: KingdomState, choices: Mapping[str, Any], rolls: Sequence[Roll], checks: Mapping[str, CheckSpec],
           drafts: Sequence[Draft]) -> list[Board]:
    """The battles of the A5 War encounters step as boards (see the module)."""
    rows = [r for r in choices.get("battles") or [] if isinstance(r, Mapping)]
    armies = {a.id: a for a in before.army_units}
    names = {a.id: a.name for a in before.army_units}
    events = [d.payload for d in drafts]
    checked = [r for r in rolls if r.key in checks]
    out = []
    for n, row in enumerate(rows, start=1):
        bid = str(row.get("id") or f"t{before.turn}.b{n}")
        sides = []
        for label, given in (("The kingdom", row.get("kingdom")), ("The enemy", row.get("enemy"))):
            ids = [x for x in given if isinstance(x, str)] if isinstance(given, list) else []
            sides.append(Side(label, tuple(unit(armies[a]) if a in armies else Unit(str(a), str(a),
                                                                                   note="not on the map now")
                                           for a in ids)))
        lines: list[Line] = []
        mine = [r for r in checked if (_where(r.key) or (0, 0))[0] == n]
        if events:
            evs = [e for e in events if isinstance(e, E.WarActionTaken) and e.battle == bid]
            queue = list(mine)
            for ev in evs:
                key = ""
                if ev.die is not None and queue and queue[0].total == ev.die:
                    key = queue.pop(0).key
                    if ev.action == "initiative":
                        key = ""  # a Scouting total, no degree: its chances say nothing
                lines.append(Line(ev.round, ev.army, _event_text(ev, names), key))
            hp_after = {e.army: hp for e in events if isinstance(e, E.ArmyUpdated) and e.cause == f"battle {bid}"
                        and isinstance(hp := e.set.get("hp"), int)}
            for rnd, text in _after_rounds(evs, names, armies, hp_after).items():
                lines.append(Line(rnd, "", text))
            lines.sort(key=lambda x: x.round)  # stable: each round's lines in order, its summary last
        else:
            for r in mine:
                where = _where(r.key)
                lines.append(Line(where[1] if where else 0, "", _check_text(r, checks[r.key]), r.key))
        outcome = _outcome(bid, events, names, armies)
        title = f"Battle {bid}" + (f" in {row.get('hex')}" if row.get("hex") else "")
        out.append(Board(bid, title, tuple(sides), tuple(lines), tuple(outcome)))
    return out


def _outcome(bid: str, events: Sequence[Any], names: Mapping[str, str], armies: Mapping[str, Army]) -> list[str]:
    """What the battle did once it has run: each army's HP and conditions after it, destroyed armies, the winner."""
    ended = next((e for e in events if isinstance(e, E.BattleEnded) and e.id == bid), None)
    if ended is None:
        return []
    out = []
    for ev in events:
        if isinstance(ev, E.ArmyUpdated) and ev.cause == f"battle {bid}":
            a = armies.get(ev.army)
            bits = []
            hp = ev.set.get("hp")
            if a is not None and isinstance(hp, int) and hp != a.hp:
                bits.append(f"HP {a.hp} → {hp}")
            for k, v in sorted(ev.conditions.items()):
                was = a.conditions.get(k, 0) if a is not None else 0
                bits.append(f"{k} {was} → {v}" if v else f"no longer {k}")
            out.append(f"{names.get(ev.army, ev.army)}: {', '.join(bits) if bits else 'unhurt'}")
        elif isinstance(ev, E.ArmyRemoved) and ev.cause == "destroyed" and ev.army in names:
            out.append(f"{names[ev.army]} is destroyed")
    who = {"kingdom": "The kingdom wins", "enemy": "The enemy wins",
           "none": "The GM stops the battle"}[ended.winner]
    out.append(f"{who} after {ended.rounds} round{'s' if ended.rounds != 1 else ''}."
               + (f" Routed: {', '.join(names.get(a, a) for a in ended.routed)}." if ended.routed else "")
               + (f" Defeated: {', '.join(names.get(a, a) for a in ended.defeated)}." if ended.defeated else ""))
    return out
