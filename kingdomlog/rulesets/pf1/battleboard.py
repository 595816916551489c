"""The war step's battles as boards (``core.board``; issue 30; UC Mass Combat, Battle Phases): each battle's armies
from the state before the step, a line per roll in phase order (the roll keys ``battle.battle`` makes:
``w<n>_ambush`` the Tactics phase, ``w<n>_ranged…`` the Ranged phase, ``w<n>_r<round>…`` a Melee phase,
``w<n>_parting…`` the parting shots), and once the step has run, each phase's hit points and routs and the
battle's aftermath from its events (``pf1.battle_phase_resolved``, ``pf1.battle_ended``).

While the step waits for a roll it has no events yet: the lines are then the checks rolled so far.
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
from kingdomlog.rulesets.pf1 import events as ev
from kingdomlog.rulesets.pf1.state import Army, Pf1State

TACTICS, RANGED, PARTING, AFTER = 0, 1, 999, 1000
"""The board's numbers of the phases before and after the Melee phases (Melee phase r is r + 1)."""


def unit(a: Army) -> Unit:
    """An army on the board: hit points, OM, DV, Morale, ACR, size and units; its state; its tactics, special
    abilities, resources and commander."""
    stats = (f"HP {a.hp} of {a.max_hp}", f"OM {a.om:+d}", f"DV {a.dv}", f"Morale {a.morale:+d}", f"ACR {a.acr}",
             f"{a.size}{f' {a.unit}' if a.unit else ''}")
    conds = tuple(x for x in (a.status if a.status != "active" else "", "reserve" if a.reserve else "",
                              "unpaid" if a.unpaid else "", "ranged attacks" if a.ranged else "") if x)
    parts = []
    if a.tactics:
        parts.append("Tactics: " + ", ".join(a.tactics))
    if a.specials:
        parts.append("Special abilities: " + ", ".join(a.specials))
    if a.resources:
        parts.append("Resources: " + ", ".join(f"{k} {v}" if v > 1 else k for k, v in sorted(a.resources.items())))
    if a.commander is not None:
        parts.append(f"Commander: {a.commander.name}")
    return Unit(a.id, a.name, stats, conds, "; ".join(parts))


def _phase(key: str) -> tuple[int, int] | None:
    """The battle (1, 2, ...) and board phase of a roll key of the war step.

    >>> _phase("w1_ambush"), _phase("w2_ranged_enemy"), _phase("w1_r3_ours"), _phase("w1_parting"), _phase("x")
    ((1, 0), (2, 1), (1, 4), (1, 999), None)
    >>> _phase("w1_victory_2"), _phase("w1_fate")
    ((1, 1000), (1, 1000))
    """
    m = re.match(r"w(\d+)_(ambush|ranged|parting|victory|fate|r(\d+))", key)
    if m is None:
        return None
    n, what = int(m.group(1)), m.group(2)
    if what == "ambush":
        return n, TACTICS
    if what == "ranged":
        return n, RANGED
    if what == "parting":
        return n, PARTING
    if what in ("victory", "fate"):
        return n, AFTER
    return n, int(m.group(3)) + 1


def check_name(key: str, label: str) -> str:
    """A check's name on the board, in words: a kingdom check labelled with its roll key (the victor's Loyalty
    checks, "Loyalty check (w1_victory_1)") says which it is instead.

    >>> check_name("w1_victory_2", "Loyalty check (w1_victory_2)"), check_name("w1_r1_ours", "Guard Offense")
    ('Loyalty check after the victory, 2 of 2', 'Guard Offense')
    """
    if not label.endswith(f" ({key})"):
        return label
    name = label.removesuffix(f" ({key})")
    m = re.search(r"victory_(\d)$", key)
    return f"{name} after the victory, {m.group(1)} of 2" if m else name


def _check_text(roll: Roll, spec: CheckSpec) -> str:
    got = resolve(spec, roll)
    face = roll.faces[0] if roll.faces else roll.total
    return f"{check_name(roll.key, spec.label)}: d20 {face} {spec.modifier:+d} = {face + spec.modifier}" \
           f"{f', {got.label}' if got is not None else ''}"


def _phase_text(p: ev.BattlePhaseResolved, names: Mapping[str, str]) -> str:
    """What a phase did to each army: damage dealt, hit points, routs, what its abilities did."""
    said = []
    for side in p.sides:
        bits = []
        if side.offense is not None:
            bits.append(f"deals {side.offense.damage} damage" if side.offense.damage else "deals no damage")
        if side.hp_after != side.hp_before:
            bits.append(f"HP {side.hp_before} → {side.hp_after}")
        if side.status != "fighting":
            bits.append(side.status)
        bits += [f"Morale ({m.purpose}) {'passed' if m.success else 'failed'}" for m in side.morale_checks]
        bits += list(side.notes)
        if bits:
            said.append(f"{names.get(side.army, side.army)}: {', '.join(bits)}")
    return "; ".join(said) + "." if said else "nothing changes."


def boards(before: Pf1State, choices: Mapping[str, Any], rolls: Sequence[Roll], checks: Mapping[str, CheckSpec],
           drafts: Sequence[Draft]) -> list[Board]:
    """The battles of the war step as boards (see the module)."""
    rows = [r for r in choices.get("battles") or [] if isinstance(r, Mapping)]
    names = {a.id: a.name for a in before.armies.values()}
    events = [d.payload for d in drafts]
    phases = [e for e in events if isinstance(e, ev.BattlePhaseResolved)]
    ended = [e for e in events if isinstance(e, ev.BattleEnded)]
    out = []
    for n, row in enumerate(rows, start=1):
        bid = f"W{before.battles + n}"

        def ids(*keys: str, row: Mapping[str, Any] = row) -> list[str]:
            got: list[str] = []
            for k in keys:
                v = row.get(k)
                got += [v] if isinstance(v, str) else [x for x in v if isinstance(x, str)] if isinstance(v, list) \
                    else []
            return got

        sides = tuple(Side(label, tuple(unit(before.armies[a]) if a in before.armies else Unit(a, a, note="not an army"
                                                                                              " on the map now")
                                        for a in armies))
                      for label, armies in (("The kingdom", ids("ours", "allies")), ("The enemy", ids("enemy",
                                                                                                       "enemies"))))
        lines: list[Line] = []
        for r in rolls:
            where = _phase(r.key)
            if where is None or where[0] != n or r.key not in checks:
                continue
            lines.append(Line(where[1], "", _check_text(r, checks[r.key]), r.key))
        melee = RANGED
        titles = {TACTICS: "Tactics phase (ambush)", RANGED: "Ranged phase", PARTING: "Parting shots",
                  AFTER: "Aftermath (the victor's Loyalty checks, a commander's fate)"}
        for p in (x for x in phases if x.battle == bid):
            at = {"tactics": TACTICS, "ranged": RANGED, "parting_shot": PARTING}.get(p.kind)
            if at is None:
                melee += 1
                at = melee
            lines.append(Line(at, "", f"After the {titles.get(at, f'melee phase {at - 1}').lower()}: "
                                      f"{_phase_text(p, names)}"))
        for at in range(2, max((x.round for x in lines if x.round < PARTING), default=1) + 1):
            titles.setdefault(at, f"Melee phase {at - 1}")
        lines.sort(key=lambda x: x.round)
        outcome: list[str] = []
        end = next((e for e in ended if e.battle == bid), None)
        if end is not None:
            for o in end.outcomes:
                outcome.append(f"{names.get(o.army, o.army)}: {o.result}, HP {o.hp_after}"
                               + (f", Morale {o.morale_delta:+d}" if o.morale_delta else "")
                               + (f", learns {o.tactic_learned}" if o.tactic_learned else "")
                               + (f", learns the boon {o.boon_learned}" if o.boon_learned else "")
                               + (f"; its commander is {o.commander_fate}" if o.commander_fate else ""))
            if end.kingdom_losses:
                outcome.append("The kingdom loses " + ", ".join(f"{k} {v}" for k, v in end.kingdom_losses.items()))
        title = f"Battle {before.battles + n}" + (f" in {row.get('hex')}" if row.get("hex") else "")
        out.append(Board(bid, title, sides, tuple(lines), tuple(outcome), tuple(sorted(titles.items()))))
    return out
