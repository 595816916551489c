"""Armies and war (Kingmaker Adventure Path, Appendix 3: Warfare; the spec's extension point §2.9).

An army's record is built from its data (``data/armies.toml``: the basic and specialized armies and the
statistics by level) when it is recruited and again when it levels with the kingdom, and recorded in full
(``pf2e.army_recruited``, ``pf2e.army_updated``), so the fold never looks a number up.

War encounters (AoN 1869) run round by round from the plan's orders: initiative (a Scouting check for every
army), three war actions per army in initiative order (Advance, Battle, Guard, Rally, Retreat, Disengage),
then rout checks (HP at or below the Rout Threshold: a Morale check against the highest Morale DC among the
enemies; critical success: no more rout checks; failure: shaken +1; critical failure: routed). Damage asks
a DC 11 flat check against shaken +1; shaken 4 routs; a defeated army (0 HP) that takes damage is destroyed
on a failed DC 16 flat check; a side whose armies are all defeated is destroyed. Every roll is a
``pf2e.war_action`` event; what it changes follows as ``pf2e.army_updated``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kingdomlog.dice.checks import CheckSpec
from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e import rules as R
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.engine import Ctx, roll
from kingdomlog.rulesets.pf2e.state import Army


def army_numbers(defn: T.ArmyDef, level: int, tactics: Sequence[str] = (), gear: dict[str, int] | None = None
                 ) -> dict[str, int]:
    """An army's statistics at ``level`` (its type's adjustments applied): AC, Maneuver, Morale, Scouting,
    attack, HP, rout threshold, Recruitment DC, ammunition.

    >>> n = army_numbers(T.army_defs()["infantry"], 1)
    >>> (n["ac"], n["morale"], n["maneuver"], n["scouting"], n["attack"], n["hp"], n["recruitment_dc"])
    (16, 10, 4, 7, 9, 4, 15)
    >>> army_numbers(T.army_defs()["skirmishers"], 5)["ac"], army_numbers(T.army_defs()["skirmishers"], 5)["morale"]
    (20, 11)
    """
    st = T.army_statistics()[max(1, min(20, level))]
    a = defn.adjust
    high, low = st.high_save, st.low_save
    maneuver = (high if defn.high_save == "maneuver" else low) + a.get("maneuver", 0)
    morale = (high if defn.high_save == "morale" else low) + a.get("morale", 0)
    tdefs = T.tactic_defs()
    hp = defn.hp + sum(tdefs[t].hp for t in tactics if t in tdefs)
    rt = -(-hp // 4) if "hold-the-line" in tactics else defn.rout_threshold
    melee = st.attack + a.get("melee", 0)
    ranged = st.attack + a.get("ranged", 0)
    return {"ac": st.ac + a.get("ac", 0), "maneuver": maneuver, "morale": morale,
            "scouting": st.scouting + a.get("scouting", 0), "attack": melee if defn.melee else ranged,
            "ranged_attack": ranged, "hp": hp, "rout_threshold": rt,
            "recruitment_dc": st.standard_dc + a.get("recruitment_dc", 0),
            "ammunition": defn.ammunition + sum(tdefs[t].ammunition for t in tactics if t in tdefs)}


def new_army(defn: T.ArmyDef, level: int, army_id: str, name: str = "", *, side: str = "kingdom", hex_id: str = "",
             revealed: bool = True) -> E.ArmyIn:
    """The record of a newly raised army (Recruit Army, or an enemy army the GM brings on the map)."""
    tactics = list(defn.tactics)
    n = army_numbers(defn, level, tactics)
    return E.ArmyIn(id=army_id, name=name or defn.title or defn.name, type=defn.type, side=side,
                    level=level, hp=n["hp"], hp_max=n["hp"], rout_threshold=n["rout_threshold"], ac=n["ac"],
                    maneuver=n["maneuver"], morale=n["morale"], scouting=n["scouting"], attack=n["attack"],
                    melee=defn.melee, ranged=defn.ranged, consumption=defn.consumption,
                    recruitment_dc=n["recruitment_dc"], tactics=tactics, hex=hex_id, ammunition=n["ammunition"],
                    basic=defn.basic, revealed=revealed or side == "kingdom")


def army_def(army: Army) -> T.ArmyDef:
    """The data an army was raised from (by its type when the name is not a catalogue entry)."""
    defs = T.army_defs()
    key = army.name.lower().replace(" ", "-")
    if key in defs:
        return defs[key]
    return next(d for d in defs.values() if d.basic and d.type == army.type)


def level_up(army: Army, level: int) -> dict[str, Any]:
    """What an army's record becomes at ``level`` (it levels with the kingdom, §2.9, spec §3.4 E4)."""
    n = army_numbers(army_def(army), level, army.tactics)
    hp_gain = n["hp"] - army.hp_max
    return {"level": level, "ac": n["ac"], "maneuver": n["maneuver"], "morale": n["morale"],
            "scouting": n["scouting"], "attack": n["attack"], "recruitment_dc": n["recruitment_dc"],
            "hp_max": n["hp"], "hp": army.hp + max(0, hp_gain), "rout_threshold": n["rout_threshold"]}


def army_of(ctx: Ctx, army_id: str, rule: str = "AoN 1849 armies") -> Army:
    a = next((x for x in ctx.state.army_units if x.id == army_id), None)
    if a is None:
        raise ctx.fail(f"no army {army_id!r} (armies: {', '.join(x.id for x in ctx.state.army_units) or 'none'})",
                       rule)
    return a


def gear_bonus(army: Army, kind: str) -> int:
    gd = T.gear_defs()
    return max((gd[g].bonus for g in army.gear if g in gd and gd[g].kind == kind), default=0)


# ------------------------------------------------------------------ war encounters


@dataclass
class Side:
    """One army in a battle: its live numbers (hp, conditions) and the battle's relations."""

    army: Army
    hp: int
    conditions: dict[str, int]
    side: str
    initiative: int = 0
    engaged: set[str] = field(default_factory=set)
    distant: bool = False
    guard: int = 0
    strikes: int = 0
    shots: int = 0
    no_rout_checks: bool = False
    fled: bool = False

    @property
    def out(self) -> bool:
        return self.fled or "routed" in self.conditions or "destroyed" in self.conditions or self.hp <= 0


def _mod(s: Side, base: int, kind: str) -> int:
    c = s.conditions
    if kind == "maneuver":
        return base - c.get("weary", 0) - c.get("mired", 0)
    if kind == "morale":
        return base - c.get("shaken", 0) - (2 if "routed" in c else 0)
    return base


def _ac(s: Side) -> int:
    return s.army.ac + gear_bonus(s.army, "armor") + s.guard - (2 if "outflanked" in s.conditions else 0) \
        - s.conditions.get("weary", 0)


def _check(ctx: Ctx, key: str, battle: str, rnd: int, s: Side, action: str, modifier: int, dc: int,
           target: str = "", note: str = "") -> str:
    die, _ = roll(ctx, key, "1d20", check=CheckSpec("pf2e", modifier=modifier, dc=dc, label=f"{s.army.name} {action}"))
    res, degree = R.kingdom_check(die, modifier, dc, anarchy=False, worsened=0)
    ctx.emit(E.WarActionTaken(battle=battle, round=rnd, army=s.army.id, action=action, target=target, die=die,
                              modifier=modifier, dc=dc, total=res.total, degree=degree.label, note=note))
    return degree.label


def _flat(ctx: Ctx, key: str, battle: str, rnd: int, s: Side, dc: int, what: str) -> bool:
    die, _ = roll(ctx, key, "1d20", check=CheckSpec("flat", dc=dc, label=what))
    ok = R.flat_succeeds(die, dc)
    ctx.emit(E.WarActionTaken(battle=battle, round=rnd, army=s.army.id, action="flat", die=die, dc=dc, total=die,
                              degree="success" if ok else "failure", note=what))
    return ok


def _damage(ctx: Ctx, key: str, battle: str, rnd: int, t: Side, n: int) -> None:
    for i in range(n):
        if t.hp <= 0:
            if not _flat(ctx, f"{key}.d{i}", battle, rnd, t, 16, "defeated army damaged: DC 16 or destroyed"):
                t.conditions["destroyed"] = 1
            continue
        t.hp -= 1
        if t.hp == 0:
            t.conditions["defeated"] = 1
            continue
        if not _flat(ctx, f"{key}.s{i}", battle, rnd, t, 11, "damaged: DC 11 or shaken +1"):
            t.conditions["shaken"] = t.conditions.get("shaken", 0) + 1
            if t.conditions["shaken"] >= 4:
                t.conditions["routed"] = 1


def _act(ctx: Ctx, key: str, battle: str, rnd: int, s: Side, order: Any, armies: dict[str, Side]) -> None:
    action = order.action
    t = armies.get(order.target) if order.target else None
    if action in ("advance", "battle", "guard", "rally", "disengage") and (t is None or t.side == s.side):
        raise ctx.fail(f"{s.army.name}: {action} needs an enemy army as 'target'", "AoN 1869 war actions")
    assert t is not None or action in ("retreat", "wait")
    if action == "advance":
        assert t is not None
        deg = _check(ctx, key, battle, rnd, s, action, _mod(s, s.army.maneuver, "maneuver"), 10 + t.army.maneuver,
                     t.army.id)
        if deg in ("success", "critical_success"):
            if t.distant and deg == "success":
                t.distant = False
            else:
                t.distant = False
                s.engaged.add(t.army.id)
                t.engaged.add(s.army.id)
        elif deg == "critical_failure":
            s.conditions["mired"] = s.conditions.get("mired", 0) + 1
    elif action == "battle":
        assert t is not None
        melee = t.army.id in s.engaged and s.army.melee
        if not melee:
            if not s.army.ranged:
                raise ctx.fail(f"{s.army.name} is not engaged with {t.army.name} and has no ranged Strike",
                               "AoN 1869 Battle")
            if s.shots >= s.army.ammunition:
                raise ctx.fail(f"{s.army.name} has used its {s.army.ammunition} ranged Strikes", "AoN 1869 Battle")
            s.shots += 1
        base = s.army.attack + gear_bonus(s.army, "melee" if melee else "ranged") - 5 * min(2, s.strikes)
        base -= 5 if (not melee and t.distant) else 0
        if s.army.type == "cavalry" and t.army.type in ("infantry", "skirmisher"):
            base += 1  # Overrun
        s.strikes += 1
        deg = _check(ctx, key, battle, rnd, s, "battle", base, _ac(t), t.army.id, "melee" if melee else "ranged")
        dmg = {"critical_success": 2, "success": 1}.get(deg, 0)
        if dmg:
            _damage(ctx, key, battle, rnd, t, dmg)
    elif action == "guard":
        assert t is not None
        deg = _check(ctx, key, battle, rnd, s, action, _mod(s, s.army.maneuver, "maneuver"), 10 + t.army.maneuver,
                     t.army.id)
        if deg in ("success", "critical_success"):
            s.guard = 2
        elif deg == "critical_failure":
            s.conditions["mired"] = s.conditions.get("mired", 0) + 1
    elif action == "rally":
        assert t is not None
        bonus = max((T.tactic_defs()[x].rally for x in s.army.tactics if x in T.tactic_defs()), default=0)
        deg = _check(ctx, key, battle, rnd, s, action, _mod(s, s.army.morale, "morale") + bonus, 10 + t.army.morale,
                     t.army.id)
        sh = s.conditions.get("shaken", 0)
        if deg == "critical_success":
            s.conditions.pop("routed", None)
            sh -= 2
        elif deg == "success":
            sh -= 1
        elif deg == "critical_failure":
            sh += 1
        if sh > 0:
            s.conditions["shaken"] = sh
        else:
            s.conditions.pop("shaken", None)
    elif action == "disengage":
        assert t is not None
        deg = _check(ctx, key, battle, rnd, s, action, _mod(s, s.army.maneuver, "maneuver"), 10 + t.army.maneuver,
                     t.army.id)
        if deg in ("success", "critical_success"):
            s.engaged.discard(t.army.id)
            t.engaged.discard(s.army.id)
    elif action == "retreat":
        if s.engaged:
            raise ctx.fail(f"{s.army.name} is engaged and cannot Retreat", "AoN 1869 Retreat")
        ctx.emit(E.WarActionTaken(battle=battle, round=rnd, army=s.army.id, action="retreat",
                                  note="flees" if s.distant else "becomes distant"))
        if s.distant:
            s.fled = True
            s.conditions["routed"] = 1
        s.distant = True


def battle(ctx: Ctx, row: Any, key: str) -> None:
    """One war encounter (AoN 1869), played from the plan's orders: every roll recorded."""
    bid = row.id or f"t{ctx.state.turn}.{key}"
    armies: dict[str, Side] = {}
    for aid in [*row.kingdom, *row.enemy]:
        a = army_of(ctx, aid, "AoN 1869 war encounter")
        if "defeated" in a.conditions or "destroyed" in a.conditions:
            raise ctx.fail(f"{a.name} is {'defeated' if 'defeated' in a.conditions else 'destroyed'}",
                           "AoN 1869 war encounter")
        armies[aid] = Side(army=a, hp=a.hp, conditions=dict(a.conditions), side=a.side)
    if {armies[a].side for a in row.kingdom} != {"kingdom"} or {armies[a].side for a in row.enemy} != {"enemy"}:
        raise ctx.fail("'kingdom' lists the kingdom's armies and 'enemy' the enemy armies", "AoN 1869")
    ctx.emit(E.BattleStarted(id=bid, hex=row.hex or "", kingdom=list(row.kingdom), enemy=list(row.enemy)))
    # 1 initiative: Scouting checks (+2 circumstance after a successful Offensive Gambit; Keen Eyed +2 status)
    gambit = 2 if any(f in ctx.state.flags for f in ("offensive-gambit", "offensive-gambit-critical")) else 0
    for aid, s in armies.items():
        bonus = max((T.tactic_defs()[x].initiative for x in s.army.tactics if x in T.tactic_defs()), default=0)
        bonus += gambit if s.side == "kingdom" else 0
        die, _ = roll(ctx, f"{key}.init.{aid}", "1d20", check=CheckSpec("pf2e", modifier=s.army.scouting + bonus,
                                                                         dc=0, label=f"{s.army.name} initiative"))
        s.initiative = die + s.army.scouting + bonus
        ctx.emit(E.WarActionTaken(battle=bid, round=0, army=aid, action="initiative", die=die,
                                  modifier=s.army.scouting + bonus, total=s.initiative))
    order = sorted(armies.values(), key=lambda x: (-x.initiative, x.side != "kingdom", x.army.id))
    winner = "none"
    rounds = 0
    for r, orders in enumerate(row.rounds, start=1):
        rounds = r
        for s in order:
            s.strikes = 0
            s.guard = 0  # Guard lasts until the start of the army's next turn
            if s.out or "defeated" in s.conditions:
                continue
            mine = [o for o in orders if o.army == s.army.id]
            if len(mine) > 3:
                raise ctx.fail(f"{s.army.name} takes three war actions a round, not {len(mine)}", "AoN 1869")
            if "routed" in s.conditions and any(o.action != "retreat" for o in mine):
                raise ctx.fail(f"{s.army.name} is routed: it must Retreat", "AoN 1869 routed")
            for j, o in enumerate(mine):
                _act(ctx, f"{key}.r{r}.{s.army.id}.{j + 1}", bid, r, s, o, armies)
        # 3 rout checks
        for s in order:
            if s.out or s.no_rout_checks or s.hp > s.army.rout_threshold or "defeated" in s.conditions:
                continue
            foes = [x for x in armies.values() if x.side != s.side and not x.out]
            if not foes:
                continue
            dc = max(10 + x.army.morale for x in foes)
            deg = _check(ctx, f"{key}.r{r}.rout.{s.army.id}", bid, r, s, "rout", _mod(s, s.army.morale, "morale"),
                         dc)
            if deg == "critical_success":
                s.no_rout_checks = True
            elif deg == "failure":
                s.conditions["shaken"] = s.conditions.get("shaken", 0) + 1
                if s.conditions["shaken"] >= 4:
                    s.conditions["routed"] = 1
            elif deg == "critical_failure":
                s.conditions["routed"] = 1
        for side in ("kingdom", "enemy"):
            ours = [x for x in armies.values() if x.side == side]
            if all(x.out or "defeated" in x.conditions for x in ours):
                winner = "enemy" if side == "kingdom" else "kingdom"
        if winner != "none":
            break
    if winner == "none" and not row.unfinished:
        raise ctx.fail("the battle is not over after the rounds given: give more rounds (or mark it 'unfinished'"
                       " to stop it here by the GM's ruling)", "AoN 1869 end the encounter")
    routed, defeated = [], []
    for aid, s in armies.items():
        side_down = all(x.out or "defeated" in x.conditions for x in armies.values() if x.side == s.side)
        if "defeated" in s.conditions and side_down:
            s.conditions["destroyed"] = 1
        if "routed" in s.conditions and "destroyed" not in s.conditions:
            # routed ends when the encounter does, with shaken +1
            del s.conditions["routed"]
            s.conditions["shaken"] = s.conditions.get("shaken", 0) + 1
            routed.append(aid)
        if "defeated" in s.conditions:
            defeated.append(aid)
        changes = {k: v for k, v in s.conditions.items() if s.army.conditions.get(k) != v}
        gone = {k: 0 for k in s.army.conditions if k not in s.conditions}
        upd: dict[str, Any] = {"acted_turn": ctx.state.turn}
        if s.hp != s.army.hp:
            upd["hp"] = max(0, s.hp)
        ctx.emit(E.ArmyUpdated(army=aid, set=upd, conditions={**changes, **gone}, cause=f"battle {bid}"))
        if "destroyed" in s.conditions:
            ctx.emit(E.ArmyRemoved(army=aid, cause="destroyed"))
    ctx.emit(E.BattleEnded(id=bid, winner=winner, rounds=rounds, routed=routed, defeated=defeated))
