"""Armies and war (Kingmaker Adventure Path, Appendix 3: Warfare; the spec's extension point §2.9).

An army's record is built from its data (``data/armies.toml``: the basic and specialized armies and the
statistics by level) when it is recruited and again when it levels with the kingdom, and recorded in full
(``pf2e.army_recruited``, ``pf2e.army_updated``), so the fold never looks a number up.

War encounters (AoN 1869) run round by round from the plan's orders: initiative (a Scouting check for every
army), three actions' worth of war actions per army in initiative order (the basic Advance, Battle, Guard,
Rally, Retreat, Disengage; the tactical and unique ones its tactics grant; reactions when their trigger comes),
then rout checks (HP at or below the Rout Threshold: a Morale check against the highest Morale DC among the
enemies; critical success: no more rout checks; failure: shaken +1; critical failure: routed). Damage asks
a DC 11 flat check against shaken +1; shaken 4 routs; a defeated army (0 HP) that takes damage is destroyed
on a failed DC 16 flat check; a side whose armies are all defeated is destroyed. Every roll is a
``pf2e.war_action`` event; what it changes follows as ``pf2e.army_updated``.

Every check and AC stacks its typed modifiers (``core.modifiers.stack``: of one type the best bonus and the
worst penalty), drawn from the data: conditions, tactics, gear (``_mods``, ``_ac``, ``_dc``). Effects with a
duration are ``Timed`` and end at the moment the rules name; the army's lasting conditions leave the battle
with it. The ruleset's README lists what the data holds and what a battle does not apply.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kingdomlog.core.modifiers import Modifier, stack
from kingdomlog.core.ruleset import Breakdown
from kingdomlog.dice.checks import CheckSpec
from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e import rules as R
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.engine import Ctx, explain_once, roll
from kingdomlog.rulesets.pf2e.state import Army


def _static(defn: T.ArmyDef, tactics: Sequence[str], level: int, options: Mapping[str, Any] | None
            ) -> dict[str, list[Modifier]]:
    """The static modifiers (stat-block numbers) of the tactics an army has beyond those of its own stat block,
    by statistic (a tactic trained twice counts twice)."""
    extra = Counter(tactics) - Counter(defn.tactics)
    tdefs = T.tactic_defs()
    out: dict[str, list[Modifier]] = {}
    for name, times in extra.items():
        td = tdefs.get(name)
        if td is None:
            continue
        for m in td.modifiers:
            if m.static and option_holds(m.option, options):
                for _ in range(times):
                    out.setdefault(m.on, []).append(Modifier(td.title or td.name, m.at(level), m.kind))
    return out


def option_holds(cond: str, options: Mapping[str, Any] | None) -> bool:
    """Whether a modifier's ``option=value`` condition holds (no condition: always; an unset option: the first
    reading named in the data is the rules text, the default ``text``).

    >>> option_holds("", {}), option_holds("sharpshooter_reading=text", {})
    (True, True)
    >>> option_holds("sharpshooter_reading=tool", {})
    False
    """
    if not cond:
        return True
    key, _, want = cond.partition("=")
    return str((options or {}).get(key, "text")) == want


def army_numbers(defn: T.ArmyDef, level: int, tactics: Sequence[str] = (), gear: dict[str, int] | None = None,
                 options: Mapping[str, Any] | None = None) -> dict[str, int]:
    """An army's statistics at ``level`` (its type's adjustments applied): AC, Maneuver, Morale, Scouting,
    attack (its melee Strike, or its ranged one when it has no melee), melee and ranged attack, HP, rout
    threshold, Recruitment DC, ammunition.

    Its stat block's own tactics are in its adjustments (Narlmarch Hunters' Sharpshooter, the Town Guard's
    Toughened Soldiers); a tactic trained later adds its static numbers (Sharpshooter: +1 status to ranged,
    -2 status to melee, -1 from 9th level and none from 15th).

    >>> n = army_numbers(T.army_defs()["infantry"], 1)
    >>> (n["ac"], n["morale"], n["maneuver"], n["scouting"], n["attack"], n["hp"], n["recruitment_dc"])
    (16, 10, 4, 7, 9, 4, 15)
    >>> army_numbers(T.army_defs()["skirmishers"], 5)["ac"], army_numbers(T.army_defs()["skirmishers"], 5)["morale"]
    (20, 11)
    >>> h = army_numbers(T.army_defs()["narlmarch-hunters"], 6, ["increased-ammunition", "sharpshooter"])
    >>> h["melee_attack"], h["ranged_attack"], h["ammunition"]
    (15, 18, 7)
    """
    st = T.army_statistics()[max(1, min(20, level))]
    a = defn.adjust
    high, low = st.high_save, st.low_save
    maneuver = (high if defn.high_save == "maneuver" else low) + a.get("maneuver", 0)
    morale = (high if defn.high_save == "morale" else low) + a.get("morale", 0)
    extra = _static(defn, tactics, level, options)

    def plus(stat: str) -> int:
        return int(stack(stat, extra.get(stat, [])).total)

    hp = defn.hp + plus("hp")
    rt = -(-hp // 4) if "hold-the-line" in tactics else defn.rout_threshold
    melee = st.attack + a.get("melee", 0) + plus("melee")
    ranged = st.attack + a.get("ranged", 0) + plus("ranged")
    return {"ac": st.ac + a.get("ac", 0), "maneuver": maneuver, "morale": morale,
            "scouting": st.scouting + a.get("scouting", 0), "attack": melee if defn.melee else ranged,
            "melee_attack": melee, "ranged_attack": ranged, "hp": hp, "rout_threshold": rt,
            "recruitment_dc": st.standard_dc + a.get("recruitment_dc", 0),
            "ammunition": defn.ammunition + plus("ammunition")}


def new_army(defn: T.ArmyDef, level: int, army_id: str, name: str = "", *, side: str = "kingdom", hex_id: str = "",
             revealed: bool = True, options: Mapping[str, Any] | None = None) -> E.ArmyIn:
    """The record of a newly raised army (Recruit Army, or an enemy army the GM brings on the map): each
    Strike with its own modifier."""
    tactics = list(defn.tactics)
    n = army_numbers(defn, level, tactics, options=options)
    return E.ArmyIn(id=army_id, name=name or defn.title or defn.name, type=defn.type, side=side,
                    level=level, hp=n["hp"], hp_max=n["hp"], rout_threshold=n["rout_threshold"], ac=n["ac"],
                    maneuver=n["maneuver"], morale=n["morale"], scouting=n["scouting"], attack=n["attack"],
                    ranged_attack=n["ranged_attack"] if defn.ranged else None,
                    melee=defn.melee, ranged=defn.ranged, consumption=defn.consumption,
                    recruitment_dc=n["recruitment_dc"], tactics=tactics, hex=hex_id, ammunition=n["ammunition"],
                    basic=defn.basic, revealed=revealed or side == "kingdom")


def army_def(army: Army) -> T.ArmyDef:
    """The data an army was raised from (by its type when the name is not a catalogue entry)."""
    defs = T.army_defs()
    key = army.name.lower().replace(" ", "-").replace("'", "")
    if key in defs:
        return defs[key]
    return next(d for d in defs.values() if d.basic and d.type == army.type)


def level_up(army: Army, level: int, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What an army's record becomes at ``level`` (it levels with the kingdom, §2.9, spec §3.4 E4)."""
    n = army_numbers(army_def(army), level, army.tactics, options=options)
    hp_gain = n["hp"] - army.hp_max
    out: dict[str, Any] = {"level": level, "ac": n["ac"], "maneuver": n["maneuver"], "morale": n["morale"],
                           "scouting": n["scouting"], "attack": n["attack"], "recruitment_dc": n["recruitment_dc"],
                           "hp_max": n["hp"], "hp": army.hp + max(0, hp_gain), "rout_threshold": n["rout_threshold"]}
    if army.ranged:
        out["ranged_attack"] = n["ranged_attack"]
    return out


def strike_modifiers(army: Army, options: Mapping[str, Any] | None = None) -> tuple[int | None, int | None]:
    """An army's melee and ranged Strike modifiers (None: it has no such Strike). A record made before each
    Strike was recorded (``ranged_attack`` None) takes its ranged modifier from its data at its level; an
    Additional Weapon gives the missing Strike at the basic attack of its level (Appendix 3 gear)."""
    basic = T.army_statistics()[max(1, min(20, army.level))].attack
    extra = "additional-weapon" in army.gear
    melee = army.attack if army.melee else (basic if extra else None)
    if army.ranged:
        ranged = army.ranged_attack
        if ranged is None:
            ranged = army.attack if not army.melee else army_numbers(army_def(army), army.level, army.tactics,
                                                                     options=options)["ranged_attack"]
    else:
        ranged = basic if extra else None
    return melee, ranged


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
class Timed:
    """A battle effect that lasts until a moment (Appendix 3: "until the start of your next turn"):
    ``ends`` is ``start:<army>`` / ``end:<army>`` (that army's next turn), ``end2:<army>`` (the end of its turn
    after this one), ``strike:<army>`` (that army's next melee Strike) or ``battle``; ``by``: the army it
    concerns (a Guard against one army, outflanked by one army)."""

    name: str
    value: int
    ends: str
    by: str = ""


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
    timed: list[Timed] = field(default_factory=list)
    attacks: list[str] = field(default_factory=list)
    """The armies it attacked this round, in order (the multiple attack penalty)."""
    shots: int = 0
    no_rout_checks: bool = False
    fled: bool = False
    reckless: bool = False
    used: set[str] = field(default_factory=set)
    """Once-a-battle things it has used (Swift Recovery, Furious Charge, Battlefield Medicine on an army)."""
    regenerated: bool = False
    netted: int = 0
    """Mired value from Hurl Nets (what a Battle against the netters' Maneuver DC may shake off)."""
    wet: bool = False
    """The battlefield has swamp or water terrain (Amphibious, Swamp Dwellers, Water Retreat, Water Stride)."""
    foes: dict[str, Side] = field(default_factory=dict, repr=False)
    """The enemy armies of the battle by id (Chorus of Croaks reads who is engaged with it)."""

    @property
    def out(self) -> bool:
        """Out of the fight for its side (a side all out has lost): fled, routed, destroyed or at 0 HP."""
        return self.fled or "routed" in self.conditions or "destroyed" in self.conditions or self.hp <= 0

    @property
    def gone(self) -> bool:
        """Takes no more turns: fled, destroyed or at 0 HP (a routed army still takes its turn, to Retreat)."""
        return self.fled or "destroyed" in self.conditions or self.hp <= 0

    def cond(self, name: str) -> int:
        """A condition's value now: the lasting one or a timed one, whichever is higher (a condition gained again
        takes the higher value)."""
        if (name == "distant" and self.distant) or (name == "outflanked" and "pinned" in self.conditions):
            return 1
        return max([self.conditions.get(name, 0), *(t.value for t in self.timed if t.name == name)])

    def has(self, tactic: str) -> bool:
        return tactic in self.army.tactics

    def grants(self, action: str) -> bool:
        tdefs = T.tactic_defs()
        return any(action in tdefs[t].grants for t in self.army.tactics if t in tdefs)


_ATTACKS = {"melee", "ranged"}


@dataclass
class Fort:
    """A fortification in a battle (a siege engine's target): its AC, its HP left, the armies inside."""

    id: str
    title: str
    side: str
    ac: int
    hp: int
    armies: list[str]


def _mods(s: Side, stat: str, *, action: str = "", target: Side | None = None,
          options: Mapping[str, Any] | None = None) -> list[Modifier]:
    """The typed modifiers on one of ``s``'s checks (Appendix 3): its conditions, its tactics' (not static)
    modifiers for this statistic and war action, its gear, and what the target's conditions and tactics impose
    on armies attacking it."""
    out: list[Modifier] = []
    cdefs, tdefs = T.condition_defs(), T.tactic_defs()

    def fits(on: str) -> bool:
        return on == stat or (on == "attack" and stat in _ATTACKS)

    names = {*s.conditions, *(t.name for t in s.timed)}
    for name in sorted(names):
        cd, v = cdefs.get(name), s.cond(name)
        if cd is None or not v:
            continue
        for m in cd.modifiers:
            if fits(m.on) and (not m.action or m.action == action):
                out.append(Modifier(f"{cd.title or name}{f' {v}' if cd.valued else ''}",
                                    m.value * v if m.per_value else m.value, m.kind))
    for name in dict.fromkeys(s.army.tactics):
        td = tdefs.get(name)
        if td is None:
            continue
        for m in td.modifiers:
            if m.static or not fits(m.on) or not option_holds(m.option, options):
                continue
            if (m.action == "wet" and not s.wet) or (m.action == "disengage-wet"
                                                     and not (s.wet and action == "disengage")):
                continue
            if m.action not in ("", "wet", "disengage-wet") and m.action != action:
                continue
            if m.target_types and (target is None or target.army.type not in m.target_types):
                continue
            out.append(Modifier(td.title or name, m.at(s.army.level), m.kind))
    if stat in _ATTACKS and gear_bonus(s.army, stat):
        out.append(Modifier(f"magic weapons ({stat})", gear_bonus(s.army, stat), "item"))
    if stat in _ATTACKS and target is not None:
        for name in sorted({*target.conditions, *(t.name for t in target.timed), *(["distant"] * target.distant)}):
            cd, v = cdefs.get(name), target.cond(name)
            if cd is None or not v:
                continue
            for m in cd.modifiers:
                if m.on in ("attack_against", f"{stat}_against"):
                    out.append(Modifier(f"{target.army.name} {cd.title or name}", m.value, m.kind))
        for name in dict.fromkeys(target.army.tactics):
            td = tdefs.get(name)
            if td is None:
                continue
            for m in td.modifiers:
                if m.on in ("attack_against", f"{stat}_against"):
                    out.append(Modifier(f"{target.army.name} {td.title or name}", m.value, m.kind))
    for t in s.timed:
        if t.name == "sensory-assault" and stat in (*_ATTACKS, "maneuver"):
            out.append(Modifier("Primal Magic: sensory assault", -2, "circumstance"))
        if t.name == "next-attack" and stat in _ATTACKS and target is not None and t.by != target.army.id:
            out.append(Modifier("All-Out Assault: fury", t.value, "circumstance"))
        if t.name == "swamp-charge" and stat == "melee" and target is not None and t.by == target.army.id:
            out.append(Modifier("Swamp Charge", 1, "circumstance"))
        if t.name == "ambush" and stat in _ATTACKS and target is not None and t.by == target.army.id:
            out.append(Modifier("Ambush", 2, "status"))
        if t.name == "adaptability" and stat == "maneuver" and action in ("advance", "disengage"):
            out.append(Modifier("Battlefield Adaptability", 2, "circumstance"))
    if s.reckless and stat in _ATTACKS:
        out.append(Modifier("Reckless Flankers", 1, "circumstance"))
    if stat == "morale" and any(x in s.engaged and e.has("chorus-of-croaks") for x, e in s.foes.items()):
        out.append(Modifier("Chorus of Croaks", -2, "status"))
    return out


def _ac(t: Side, attacker: Side | None, melee: bool = True) -> Breakdown:
    """The AC a Strike rolls against: the target's AC with its conditions (the worst circumstance penalty of
    outflanked and weary), its armor and Guard (item bonuses: the best counts), Reckless Flankers."""
    mods = _mods(t, "ac")
    if gear_bonus(t.army, "armor"):
        mods.append(Modifier("magic armor", gear_bonus(t.army, "armor"), "item"))
    for x in t.timed:
        if x.name == "guard" and (not x.by or (attacker is not None and x.by == attacker.army.id)):
            mods.append(Modifier("Guard", 2, "item"))
        if x.name == "feint" and melee and attacker is not None and x.by == attacker.army.id:
            mods.append(Modifier("Feint: outflanked", -2, "circumstance"))
    if t.reckless:
        mods.append(Modifier("Reckless Flankers", -2, "circumstance"))
    return stack("AC", mods, base=t.army.ac)


def _dc(t: Side, stat: str, action: str) -> Breakdown:
    """A Maneuver or Morale DC another army rolls against (10 + the statistic), with the target's tactics that
    raise it against this war action (Merciless against Disengage)."""
    tdefs = T.tactic_defs()
    mods = [Modifier(tdefs[n].title or n, m.value, m.kind) for n in dict.fromkeys(t.army.tactics) if n in tdefs
            for m in tdefs[n].modifiers if m.on == f"{stat}_dc" and m.action == action]
    return stack(f"{stat} DC", mods, base=10 + getattr(t.army, stat))


def _check(ctx: Ctx, key: str, battle: str, rnd: int, s: Side, action: str, mod: Breakdown, dc: int,
           target: str = "", note: str = "") -> str:
    modifier = int(mod.total)
    die, _ = roll(ctx, key, "1d20", check=CheckSpec("pf2e", modifier=modifier, dc=dc,
                                                    label=f"{s.army.name} {action.replace('-', ' ')}"))
    res, degree = R.kingdom_check(die, modifier, dc, anarchy=False, worsened=0)
    # the typed terms that counted are explained beside the step (the event records the modifier, as it always has)
    explain_once(ctx, Breakdown(f"{battle} round {rnd}: {s.army.name} {action}", modifier, mod.terms,
                                f"against {dc}"))
    ctx.emit(E.WarActionTaken(battle=battle, round=rnd, army=s.army.id, action=action, target=target, die=die,
                              modifier=modifier, dc=dc, total=res.total, degree=degree.label, note=note))
    return degree.label


_FLAT_WORDS = {"defeated army damaged: DC 16 or destroyed": "damaged while defeated, destroyed on a failure",
               "damaged: DC 11 or shaken +1": "damaged, shaken +1 on a failure"}
"""A flat check's note (recorded with its action) as its check's label, without the DC the sheet adds."""


def _flat(ctx: Ctx, key: str, battle: str, rnd: int, s: Side, dc: int, what: str) -> bool:
    said = _FLAT_WORDS.get(what, what)  # the sheet says the DC after the label
    die, _ = roll(ctx, key, "1d20", check=CheckSpec("flat", dc=dc, label=f"{s.army.name}: {said}"))
    ok = R.flat_succeeds(die, dc)
    ctx.emit(E.WarActionTaken(battle=battle, round=rnd, army=s.army.id, action="flat", die=die, dc=dc, total=die,
                              degree="success" if ok else "failure", note=what))
    return ok


def _shake(s: Side, n: int = 1) -> None:
    """Shaken +n (shaken 4 routs); Accustomed to Panic: while not routed, weary -1 instead."""
    if s.has("accustomed-to-panic") and "routed" not in s.conditions:
        if s.conditions.get("weary"):
            s.conditions["weary"] -= 1
            if not s.conditions["weary"]:
                del s.conditions["weary"]
        return
    s.conditions["shaken"] = s.conditions.get("shaken", 0) + n
    if s.conditions["shaken"] >= 4:
        s.conditions["routed"] = 1


def _mire(s: Side, n: int) -> None:
    """Mired +n; mired 4 pins the army (Appendix 3 mired)."""
    s.conditions["mired"] = s.conditions.get("mired", 0) + n
    if s.conditions["mired"] >= 4:
        s.conditions["pinned"] = 1


def _become(s: Side, name: str, value: int) -> None:
    """A lasting condition gained again keeps the higher value (mired 1 on an army mired 2 stays 2)."""
    s.conditions[name] = max(s.conditions.get(name, 0), value)


def _damage(ctx: Ctx, key: str, battle: str, rnd: int, t: Side, n: int) -> None:
    for i in range(n):
        if t.hp <= 0:
            if t.has("regeneration"):
                continue  # Regeneration: not destroyed as other armies are
            if not _flat(ctx, f"{key}.d{i}", battle, rnd, t, 16, "defeated army damaged: DC 16 or destroyed"):
                t.conditions["destroyed"] = 1
            continue
        t.hp -= 1
        if t.hp == 0:
            t.conditions["defeated"] = 1
            if t.has("explosive-defeat"):
                _explodes(ctx, f"{key}.boom{i}", battle, rnd, t)
            continue
        if not _flat(ctx, f"{key}.s{i}", battle, rnd, t, 11, "damaged: DC 11 or shaken +1"):
            _shake(t)


def _explodes(ctx: Ctx, key: str, battle: str, rnd: int, t: Side) -> None:
    """Explosive Defeat (Greengripe Bombardiers): defeated, their engine explodes: every army engaged with them
    rolls Maneuver against their Maneuver DC or takes 1 damage (2 on a critical failure)."""
    for fid in sorted(t.engaged):
        f = t.foes.get(fid)
        if f is None or f.gone:
            continue
        deg = _check(ctx, f"{key}.{fid}", battle, rnd, f, "explosive-defeat",
                     stack("Maneuver", _mods(f, "maneuver"), base=f.army.maneuver), 10 + t.army.maneuver, t.army.id)
        hurt = {"failure": 1, "critical_failure": 2}.get(deg, 0)
        if hurt:
            _damage(ctx, f"{key}.{fid}", battle, rnd, f, hurt)


def _heal(s: Side, n: int) -> None:
    s.hp = min(s.army.hp_max, s.hp + n)
    if s.hp > 0:
        s.conditions.pop("defeated", None)


def _map(s: Side, t: Side) -> Modifier | None:
    """The multiple attack penalty: -5 / -10 on the second / third attack of a round; Keep Up The Pressure: -4 /
    -8 when every earlier attack of the round was on this target."""
    n = min(2, len(s.attacks))
    if not n:
        return None
    per = 4 if s.has("keep-up-the-pressure") and all(x == t.army.id for x in s.attacks) else 5
    return Modifier("multiple attack penalty", -per * n, "untyped")


def _strike(ctx: Ctx, key: str, battle: str, rnd: int, s: Side, t: Side, action: str, *, melee: bool | None = None,
            counts: bool = True, shots: int = 1, options: Mapping[str, Any] | None = None) -> str:
    """A Strike (Battle and the attack war actions): melee only when engaged, else ranged against its own
    modifier (Appendix 3 Battle: each Strike uses its own; shots limited); the multiple attack penalty."""
    melee_mod, ranged_mod = strike_modifiers(s.army, options)
    if melee is None:
        melee = t.army.id in s.engaged and melee_mod is not None
    if melee and (t.army.id not in s.engaged or melee_mod is None):
        raise ctx.fail(f"{s.army.name}: a melee Strike needs a melee weapon and {t.army.name} engaged",
                       "Appendix 3 Battle")
    if not melee:
        if ranged_mod is None:
            raise ctx.fail(f"{s.army.name} is not engaged with {t.army.name} and has no ranged Strike",
                           "AoN 1869 Battle")
        if s.shots + shots > s.army.ammunition:
            raise ctx.fail(f"{s.army.name} has used its {s.army.ammunition} ranged Strikes", "AoN 1869 Battle")
        s.shots += shots
    base = melee_mod if melee else ranged_mod
    assert base is not None
    mods = _mods(s, "melee" if melee else "ranged", action=action, target=t, options=options)
    pen = _map(s, t) if counts else None
    if pen is not None:
        mods.append(pen)
    if counts:
        s.attacks.append(t.army.id)
    for x in [x for x in s.timed if x.name in ("next-attack", "ambush") and (x.name != "ambush" or x.by == t.army.id)]:
        s.timed.remove(x)  # spent on this attack
    bd = stack("melee Strike" if melee else "ranged Strike", mods, base=base)
    deg = _check(ctx, key, battle, rnd, s, action, bd, int(_ac(t, s, melee).total), t.army.id,
                 "melee" if melee else "ranged")
    if melee:  # Feint (success): outflanked against this army's next melee Strike only
        t.timed = [x for x in t.timed if not (x.name == "feint" and x.by == s.army.id)]
    return deg


def _after_hit(ctx: Ctx, key: str, battle: str, rnd: int, s: Side, t: Side, deg: str, melee: bool,
               armies: dict[str, Side]) -> None:
    """What a hit brings beyond its damage: Wyvern Venom, Supernatural Attacks, Revel in Battle, Flaming Shot,
    Explosive Shot and Burning Weaponry (the armies' tactics)."""
    hit = deg in ("success", "critical_success")
    if hit and melee and s.has("wyvern-venom"):  # past weary 4: 1 damage instead
        if t.conditions.get("weary", 0) >= 4:
            _damage(ctx, f"{key}.venom", battle, rnd, t, 1)
        else:
            t.conditions["weary"] = t.conditions.get("weary", 0) + 1
    if deg == "critical_success" and s.has("supernatural-attacks"):
        t.conditions["weary"] = t.conditions.get("weary", 0) + 1
    if deg == "critical_success" and melee and s.has("revel-in-battle"):
        _heal(s, 1)
    if hit and not melee and s.has("flaming-shot"):
        dc = 10 + int(strike_modifiers(s.army)[1] or 0)
        if _check(ctx, f"{key}.flame", battle, rnd, t, "flaming-shot", stack("Maneuver", _mods(t, "maneuver"),
                                                                              base=t.army.maneuver), dc,
                  s.army.id) in ("failure", "critical_failure"):
            _damage(ctx, f"{key}.flamed", battle, rnd, t, 1)
    if deg == "critical_success" and melee is False and s.has("explosive-shot") and not t.distant:
        others = [x for x in armies.values() if x.side == t.side and x is not t and not x.out and not x.distant]
        if others:
            _damage(ctx, f"{key}.blast", battle, rnd, others[0], 1)
    if deg == "critical_success" and s.has("burning-weaponry") and _check(
            ctx, f"{key}.burn", battle, rnd, t, "burning-weaponry",
            stack("Maneuver", _mods(t, "maneuver"), base=t.army.maneuver), 10 + s.army.maneuver,
            s.army.id) in ("failure", "critical_failure"):
        _damage(ctx, f"{key}.burned", battle, rnd, t, 1)


_MANEUVERS = {"advance", "guard", "disengage", "outflank", "defensive-stance", "trampling-charge", "furious-charge"}


def _reactions(ctx: Ctx, key: str, battle: str, rnd: int, mover: Side, action: str, armies: dict[str, Side],
               pending: dict[str, Any], options: Mapping[str, Any] | None) -> None:
    """Counterattack (a reaction): an enemy engaged with ``mover`` that ordered it strikes as ``mover`` attempts
    a maneuver war action (not Trampling Charge); Covering Fire's hit bars it."""
    if action not in _MANEUVERS or action == "trampling-charge":
        return
    for rid, o in list(pending.items()):
        r = armies[rid]
        if o.action != "counterattack" or o.target != mover.army.id or r.out or mover.army.id not in r.engaged:
            continue
        if any(x.name == "no-reactions" for x in r.timed):
            continue
        del pending[rid]
        deg = _strike(ctx, f"{key}.react.{rid}", battle, rnd, r, mover, "counterattack", melee=True, counts=False,
                      options=options)
        if deg in ("success", "critical_success"):
            _damage(ctx, f"{key}.react.{rid}", battle, rnd, mover, 1)
            if deg == "critical_success":
                _shake(mover)


def _false_retreat(ctx: Ctx, key: str, battle: str, rnd: int, s: Side, deg: str, armies: dict[str, Side],
                   pending: dict[str, Any]) -> None:
    """False Retreat (a reaction to the army's own successful Morale check)."""
    o = pending.get(s.army.id)
    if o is None or o.action != "false-retreat" or deg not in ("success", "critical_success") or s.out:
        return
    del pending[s.army.id]
    t = armies.get(o.target)
    if t is None or t.side == s.side:
        raise ctx.fail(f"{s.army.name}: False Retreat needs an enemy army as 'target'", "Appendix 3 False Retreat")
    d = _check(ctx, f"{key}.false-retreat", battle, rnd, s, "false-retreat",
               stack("Morale", _mods(s, "morale", action="false-retreat"), base=s.army.morale),
               int(_dc(t, "morale", "false-retreat").total), t.army.id)
    if d == "critical_success":
        t.timed += [Timed("outflanked", 1, f"start:{s.army.id}", s.army.id),
                    Timed("no-reactions", 1, f"start:{s.army.id}")]
    elif d == "success":
        t.timed.append(Timed("outflanked", 1, f"start:{t.army.id}", s.army.id))
    elif d == "critical_failure":
        s.timed.append(Timed("outflanked", 1, f"start:{s.army.id}", t.army.id))


def _needs_enemy(ctx: Ctx, s: Side, action: str, t: Side | None) -> Side:
    if t is None or t.side == s.side:
        raise ctx.fail(f"{s.army.name}: {action} needs an enemy army as 'target'", "AoN 1869 war actions")
    return t


def _bombard(ctx: Ctx, key: str, battle: str, rnd: int, s: Side, order: Any, fort: Fort, armies: dict[str, Side],
             options: Mapping[str, Any] | None) -> None:
    """A siege engine's ranged Strike at a fortification (Battle: 1 damage, 2 on a critical hit; Overwhelming
    Bombardment, two shots: critical success 2 to it and 1 to up to two armies inside, success 1 to it and 1
    more to it or an army inside, failure 1 to it, critical failure outflanked until its next turn)."""
    action = order.action
    if s.army.type != "siege" and not s.has("engines-of-war"):
        raise ctx.fail(f"{s.army.name}: only siege engines damage fortifications", "Appendix 3 Engines of War")
    if fort.side == s.side:
        raise ctx.fail(f"{fort.title} is its own side's", "Appendix 3 fortifications")
    _, ranged = strike_modifiers(s.army, options)
    shots = 2 if action == "overwhelming-bombardment" else 1
    if ranged is None or s.shots + shots > s.army.ammunition:
        raise ctx.fail(f"{s.army.name} has no ranged Strike left", "AoN 1869 Battle")
    s.shots += shots
    mods = _mods(s, "ranged", action=action, options=options)
    n = min(2, len(s.attacks))
    if n:
        mods.append(Modifier("multiple attack penalty", -5 * n, "untyped"))
    s.attacks.append(fort.id)
    deg = _check(ctx, key, battle, rnd, s, action, stack("ranged Strike", mods, base=ranged), fort.ac, fort.id,
                 "ranged")
    inside = [armies[a] for a in order.within if a in armies and a in fort.armies][:2]
    if action == "battle":
        to_fort, to_armies = {"critical_success": 2, "success": 1}.get(deg, 0), []
    elif deg == "critical_success":
        to_fort, to_armies = 2, inside
    elif deg == "success":
        to_fort, to_armies = (1, inside[:1]) if inside else (2, [])
    elif deg == "failure":
        to_fort, to_armies = 1, []
    else:
        to_fort, to_armies = 0, []
        s.timed.append(Timed("outflanked", 1, f"start:{s.army.id}"))
    fort.hp = max(0, fort.hp - to_fort)
    ctx.emit(E.WarActionTaken(battle=battle, round=rnd, army=s.army.id, action="fortification", target=fort.id,
                              total=fort.hp, note=f"{fort.title}: {to_fort} damage, {fort.hp} HP left"
                                                  + (" (destroyed)" if not fort.hp else "")))
    for i, a in enumerate(to_armies):
        _damage(ctx, f"{key}.in{i}", battle, rnd, a, 1)


def _act(ctx: Ctx, key: str, battle: str, rnd: int, s: Side, order: Any, armies: dict[str, Side],
         pending: dict[str, Any], options: Mapping[str, Any] | None, forts: Mapping[str, Fort] | None = None) -> None:
    action = order.action
    fort = (forts or {}).get(order.target)
    if fort is not None and action in ("battle", "overwhelming-bombardment"):
        _bombard(ctx, key, battle, rnd, s, order, fort, armies, options)
        return
    if action == "overwhelming-bombardment":
        raise ctx.fail(f"{s.army.name}: Overwhelming Bombardment targets a fortification (the battle's"
                       " 'fortifications')", "Appendix 3 Overwhelming Bombardment")
    t = armies.get(order.target) if order.target else None
    if action in _MANEUVERS and "pinned" in s.conditions:
        raise ctx.fail(f"{s.army.name} is pinned: no maneuver war actions", "Appendix 3 pinned")
    if action in _MANEUVERS:
        _reactions(ctx, key, battle, rnd, s, action, armies, pending, options)
        if s.out:
            return
        if getattr(order, "potion", False):
            doses = sum(1 for u in s.used if u.startswith("potion"))
            if s.army.gear.get("healing-potions", 0) <= doses:
                raise ctx.fail(f"{s.army.name} has no healing potion dose left", "Appendix 3 Healing Potion")
            s.used.add(f"potion{doses + 1}")
            _heal(s, 1)

    def maneuver(stat_action: str, target: Side, k: str = key) -> str:
        return _check(ctx, k, battle, rnd, s, stat_action,
                      stack("Maneuver", _mods(s, "maneuver", action=stat_action, options=options),
                            base=s.army.maneuver), int(_dc(target, "maneuver", stat_action).total), target.army.id)

    morale_degrees: list[str] = []

    def morale(stat_action: str, target: Side, extra: list[Modifier] | None = None) -> str:
        deg = _check(ctx, key, battle, rnd, s, stat_action,
                     stack("Morale", [*_mods(s, "morale", action=stat_action, options=options), *(extra or [])],
                           base=s.army.morale), int(_dc(target, "morale", stat_action).total), target.army.id)
        morale_degrees.append(deg)
        return deg

    if action in ("advance", "furious-charge"):
        t = _needs_enemy(ctx, s, action, t)
        if action == "furious-charge":
            if "furious-charge" in s.used:
                raise ctx.fail(f"{s.army.name} has used Furious Charge this battle", "Appendix 3 Furious Charge")
            s.used.add("furious-charge")
        was_engaged = t.army.id in s.engaged
        deg = maneuver("advance", t)
        if deg in ("success", "critical_success"):
            if t.distant and deg == "success":
                t.distant = False
            else:
                t.distant = False
                s.engaged.add(t.army.id)
                t.engaged.add(s.army.id)
                if not was_engaged and getattr(order, "reckless", False) and s.has("reckless-flankers"):
                    s.reckless = True
                if action == "furious-charge":
                    d2 = _strike(ctx, f"{key}.charge", battle, rnd, s, t, "furious-charge", melee=True, counts=False,
                                 options=options)
                    _damage(ctx, f"{key}.charge", battle, rnd, t, {"critical_success": 2, "success": 1}.get(d2, 0))
        elif deg == "critical_failure":
            # mired 1 until the start of its next turn (Advance, critical failure)
            s.timed.append(Timed("mired", 1, f"start:{s.army.id}"))
    elif action == "battle" and getattr(order, "choice", "") == "nets":
        # Hurl Nets: a netted army's Battle against the netters' Maneuver DC lowers the nets' mire by 1 (2 on a
        # critical success); a critical failure raises it by 1
        t = _needs_enemy(ctx, s, action, t)
        if not s.netted or not t.has("hurl-nets"):
            raise ctx.fail(f"{s.army.name} is not held by {t.army.name}'s nets", "Appendix 3 Hurl Nets")
        melee_mod, ranged_mod = strike_modifiers(s.army, options)
        base = melee_mod if melee_mod is not None else ranged_mod
        deg = _check(ctx, key, battle, rnd, s, "battle", stack("Strike", _mods(s, "melee", action="nets"),
                                                                base=int(base or 0)),
                     int(_dc(t, "maneuver", "nets").total), t.army.id, "nets")
        change = {"critical_success": -2, "success": -1, "critical_failure": 1}.get(deg, 0)
        change = max(change, -s.netted)
        s.netted += change
        mired = s.conditions.get("mired", 0) + change
        s.conditions.pop("mired", None)
        if mired > 0:
            s.conditions["mired"] = mired
    elif action in ("battle", "all-out-assault", "covering-fire", "dirty-fighting", "trample"):
        t = _needs_enemy(ctx, s, action, t)
        melee: bool | None = None
        if action in ("all-out-assault", "trample"):
            melee = True
        elif action == "covering-fire":
            melee = False
        elif action == "dirty-fighting" and (not t.cond("outflanked") or t.distant):
            raise ctx.fail(f"{t.army.name} must be outflanked and not distant", "Appendix 3 Dirty Fighting")
        if s.army.type == "siege" and s.has("engines-of-war") and t.engaged and action == "battle":
            raise ctx.fail(f"{s.army.name} cannot attack an engaged army", "Appendix 3 Engines of War")
        if action == "trample":
            if t.army.id not in s.engaged:
                raise ctx.fail(f"{s.army.name} tramples an army it is engaged with", "Appendix 3 Trample")
            deg = _check(ctx, key, battle, rnd, s, "trample", stack("melee Strike", [], base=20),
                         int(_ac(t, s).total), t.army.id, "melee")
        else:
            deg = _strike(ctx, key, battle, rnd, s, t, action, melee=melee, options=options)
        was_melee = t.army.id in s.engaged if melee is None else melee
        dmg = {"battle": {"critical_success": 2, "success": 1},
               "trample": {"critical_success": 2, "success": 1},
               "all-out-assault": {"critical_success": 3, "success": 2, "failure": 1},
               "covering-fire": {"critical_success": 2, "success": 1, "failure": 1},
               "dirty-fighting": {"critical_success": 2, "success": 1}}[action].get(deg, 0)
        hurled = s.has("hurl-nets") and not was_melee and action == "battle"
        if hurled:  # a net deals no damage: mired +1 (+2 on a critical hit)
            if dmg:
                _mire(t, dmg)
                t.netted += dmg
            dmg = 0
        hp_before = t.hp
        if dmg:
            _damage(ctx, key, battle, rnd, t, dmg)
        _after_hit(ctx, key, battle, rnd, s, t, deg, bool(was_melee), armies)
        if action == "all-out-assault":
            if deg == "critical_success":
                s.timed.append(Timed("next-attack", 1, f"end:{s.army.id}", t.army.id))
            elif deg == "critical_failure":
                s.timed.append(Timed("outflanked", 1, f"start:{s.army.id}", t.army.id))
            if s.has("brutal-assault") and t.hp < hp_before and not t.out:
                d = _check(ctx, f"{key}.brutal", battle, rnd, t, "brutal-assault",
                           stack("Morale", _mods(t, "morale"), base=t.army.morale), 24, s.army.id)
                if d in ("failure", "critical_failure"):
                    _become(t, "shaken", 2 if d == "critical_failure" else 1)
                    if t.conditions["shaken"] >= 4:
                        t.conditions["routed"] = 1
        elif action == "covering-fire" and deg in ("success", "critical_success"):
            t.timed.append(Timed("no-reactions", 1, f"start:{s.army.id}"))
        elif action == "dirty-fighting":
            if deg in ("success", "critical_success"):
                t.timed.append(Timed("weary", 2 if deg == "critical_success" else 1, f"start:{s.army.id}"))
            elif deg == "critical_failure" and t.conditions.get("weary"):
                t.conditions["weary"] -= 1
                if not t.conditions["weary"]:
                    del t.conditions["weary"]
        elif action == "trample" and deg in ("success", "critical_success"):
            s.engaged.discard(t.army.id)
            t.engaged.discard(s.army.id)
    elif action == "feint":
        t = _needs_enemy(ctx, s, action, t)
        melee_mod, ranged_mod = strike_modifiers(s.army, options)
        use_melee = t.army.id in s.engaged and melee_mod is not None
        base = melee_mod if use_melee else ranged_mod
        if base is None:
            raise ctx.fail(f"{s.army.name} has no Strike to Feint with against {t.army.name}", "Appendix 3 Feint")
        mods = _mods(s, "melee" if use_melee else "ranged", action="feint", target=t, options=options)
        pen = _map(s, t)
        s.attacks.append(t.army.id)
        deg = _check(ctx, key, battle, rnd, s, "feint", stack("Strike", [*mods, *([pen] if pen else [])], base=base),
                     int(_ac(t, s).total), t.army.id)
        if deg == "critical_success":
            t.timed.append(Timed("outflanked", 1, f"end:{s.army.id}", s.army.id))
        elif deg == "success":
            t.timed.append(Timed("feint", 1, f"strike:{s.army.id}", s.army.id))
        elif deg == "critical_failure":
            s.timed.append(Timed("outflanked", 1, f"end2:{s.army.id}", t.army.id))
    elif action == "guard":
        t = _needs_enemy(ctx, s, action, t)
        deg = maneuver("guard", t)
        if deg == "critical_success":
            s.timed.append(Timed("guard", 2, f"start:{s.army.id}"))
        elif deg == "success":
            s.timed.append(Timed("guard", 2, f"start:{s.army.id}", t.army.id))
        elif deg == "critical_failure":
            _become(s, "mired", 1)
    elif action in ("rally", "reactive-rally"):
        t = _needs_enemy(ctx, s, action, t)
        deg = morale("rally", t)
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
    elif action == "taunt":
        t = _needs_enemy(ctx, s, action, t)
        extra = [Modifier("Frightening Foe (regenerated this turn)", 2, "status")] if (
            s.has("frightening-foe") and s.regenerated) else []
        deg = morale("taunt", t, extra)
        if deg == "critical_failure" and s.has("chorus-of-croaks") and s.has("focused-devotion"):
            deg = "failure"
        if deg in ("success", "critical_success"):
            t.timed.append(Timed("shaken", 2 if deg == "critical_success" else 1, f"start:{s.army.id}"))
        elif deg == "critical_failure" and t.conditions.get("shaken"):
            t.conditions["shaken"] -= 1
            if not t.conditions["shaken"]:
                del t.conditions["shaken"]
    elif action == "disengage":
        # a Maneuver check against each army it is engaged with (the named one first): a critical success frees
        # it from the rest unrolled, a critical failure keeps it engaged with the rest this turn
        t = _needs_enemy(ctx, s, action, t)
        if t.army.id not in s.engaged:
            raise ctx.fail(f"{s.army.name} is not engaged with {t.army.name}", "Appendix 3 Disengage")
        foes = [t, *(armies[x] for x in sorted(s.engaged) if x != t.army.id)]
        for i, f in enumerate(foes):
            deg = maneuver("disengage", f, key if i == 0 else f"{key}.{f.army.id}")
            if s.has("accustomed-to-panic") or (s.has("flight") and not f.has("flight")):
                deg = {"critical_failure": "failure", "failure": "success"}.get(deg, "critical_success")
            if deg in ("success", "critical_success"):
                s.engaged.discard(f.army.id)
                f.engaged.discard(s.army.id)
            if deg in ("critical_success", "critical_failure"):
                if deg == "critical_success":
                    for x in list(s.engaged):
                        armies[x].engaged.discard(s.army.id)
                    s.engaged.clear()
                break
        s.reckless = s.reckless and bool(s.engaged)
    elif action == "outflank":
        t = _needs_enemy(ctx, s, action, t)
        if s.engaged:
            raise ctx.fail(f"{s.army.name} is engaged and cannot Outflank", "Appendix 3 Outflank")
        deg = maneuver("outflank", t)
        if deg in ("success", "critical_success"):
            t.timed.append(Timed("outflanked", 1, f"start:{s.army.id}", s.army.id))
            if deg == "success" or getattr(order, "engage", True):
                s.engaged.add(t.army.id)
                t.engaged.add(s.army.id)
        elif deg == "critical_failure":
            s.timed.append(Timed("outflanked", 1, f"start:{s.army.id}", t.army.id))
    elif action == "defensive-stance":
        t = _needs_enemy(ctx, s, action, t)
        ally = armies.get(getattr(order, "ally", "") or "")
        if ally is None or ally.side != s.side or not ally.cond("outflanked"):
            raise ctx.fail(f"{s.army.name}: Defensive Stance protects an outflanked allied army ('ally')",
                           "Appendix 3 Defensive Stance")
        deg = maneuver("defensive-stance", t)
        if deg == "critical_success":
            ally.conditions.pop("outflanked", None)
            ally.timed = [x for x in ally.timed if x.name != "outflanked"]
        elif deg == "success":
            ally.timed = [x for x in ally.timed if not (x.name == "outflanked" and x.by == t.army.id)]
        elif deg == "critical_failure":
            s.timed.append(Timed("outflanked", 1, "battle", t.army.id))
    elif action == "battlefield-medicine":
        ally = armies.get(getattr(order, "ally", "") or order.target or "")
        if ally is None or ally.side != s.side:
            raise ctx.fail(f"{s.army.name}: Battlefield Medicine treats an allied army ('ally')",
                           "Appendix 3 Battlefield Medicine")
        if f"medicine:{ally.army.id}" in s.used:
            raise ctx.fail(f"{ally.army.name} has had Battlefield Medicine this battle",
                           "Appendix 3 Battlefield Medicine")
        s.used.add(f"medicine:{ally.army.id}")
        deg = _check(ctx, key, battle, rnd, s, action, stack("Scouting", _mods(s, "scouting", action=action),
                                                              base=s.army.scouting), 25, ally.army.id)
        if deg in ("success", "critical_success"):
            _heal(ally, 2 if deg == "critical_success" else 1)
        elif deg == "critical_failure":
            ally.conditions["weary"] = ally.conditions.get("weary", 0) + 1
    elif action == "trampling-charge":
        t = _needs_enemy(ctx, s, action, t)
        if t.engaged:
            raise ctx.fail(f"{t.army.name} is engaged: Trampling Charge needs a non-engaged army",
                           "Appendix 3 Trampling Charge")
        deg = maneuver("trampling-charge", t)
        if deg in ("critical_success", "success", "failure"):
            _damage(ctx, key, battle, rnd, t, 2 if deg == "critical_success" else 1)
            if deg == "critical_success":
                _shake(t)
        if deg in ("failure", "critical_failure"):
            s.engaged.add(t.army.id)
            t.engaged.add(s.army.id)
        if deg == "critical_failure":
            s.timed.append(Timed("outflanked", 1, f"start:{s.army.id}", t.army.id))  # off-guard
    elif action == "swift-recovery":
        if "swift-recovery" in s.used:
            raise ctx.fail(f"{s.army.name} has used Swift Recovery this battle", "Appendix 3 Swift Recovery")
        s.used.add("swift-recovery")
        choice = getattr(order, "choice", "") or "hp"
        if choice == "weary":
            w = max(0, s.conditions.get("weary", 0) - 2)
            s.conditions.pop("weary", None)
            if w:
                s.conditions["weary"] = w
        else:
            _heal(s, 2)
        ctx.emit(E.WarActionTaken(battle=battle, round=rnd, army=s.army.id, action=action, note=choice))
    elif action == "battlefield-adaptability":
        choice = getattr(order, "choice", "") or "mobility"
        if choice == "unmire":
            s.timed.append(Timed("unmired", 1, f"start:{s.army.id}"))
            s.conditions.pop("mired", None)
            s.timed = [x for x in s.timed if x.name != "mired"]
        elif choice == "conceal":
            s.timed.append(Timed("concealed", 1, f"start:{s.army.id}"))
        else:
            s.timed.append(Timed("adaptability", 1, f"start:{s.army.id}"))
        ctx.emit(E.WarActionTaken(battle=battle, round=rnd, army=s.army.id, action=action, note=choice))
    elif action == "primal-magic":
        t = _needs_enemy(ctx, s, action, t)
        if s.engaged:
            raise ctx.fail(f"{s.army.name} is engaged: no Primal Magic", "Appendix 3 Primal Magic")
        d10, _ = roll(ctx, f"{key}.d10", "1d10")
        effects = [d10]
        worse: list[Modifier] = []
        if d10 >= 9:  # overwhelming magic: two results (of 1-8), -4 circumstance to the check
            a, _ = roll(ctx, f"{key}.d10a", "1d8")
            b, _ = roll(ctx, f"{key}.d10b", "1d8")
            effects = [a, b]
            worse = [Modifier("Primal Magic: overwhelming", -4, "circumstance")]
        deg = morale("primal-magic", t, worse)
        if deg in ("success", "critical_success"):
            n = 2 if deg == "critical_success" else 1
            for e in effects:
                if e <= 2:
                    _mire(t, n)
                elif e <= 4:
                    _shake(t, n)
                elif e <= 6:
                    _damage(ctx, f"{key}.storm", battle, rnd, t, n)
                else:
                    t.timed.append(Timed("sensory-assault", 1, f"end2:{t.army.id}"))
    elif action == "retreat":
        if s.engaged:
            raise ctx.fail(f"{s.army.name} is engaged and cannot Retreat", "AoN 1869 Retreat")
        ctx.emit(E.WarActionTaken(battle=battle, round=rnd, army=s.army.id, action="retreat",
                                  note="flees" if s.distant else "becomes distant"))
        if s.distant:
            s.fled = True
            s.conditions["routed"] = 1
        s.distant = True
    else:
        raise ctx.fail(f"{s.army.name}: {action} is not a war action this battle plays", "Appendix 3 war actions")
    for deg in morale_degrees:  # once the war action's own effect is applied
        _false_retreat(ctx, key, battle, rnd, s, deg, armies, pending)


def _turn_starts(ctx: Ctx, battle: str, rnd: int, s: Side, armies: dict[str, Side]) -> None:
    """The start of an army's turn: effects "until the start of its next turn" end (its own and those it put
    on others), Regeneration restores 1 HP, the round's attack count resets."""
    mark = f"start:{s.army.id}"
    for x in armies.values():
        x.timed = [t for t in x.timed if t.ends != mark]
    s.attacks = []
    s.regenerated = False
    if s.has("regeneration") and s.hp < s.army.hp_max and "destroyed" not in s.conditions and not s.fled:
        _heal(s, 1)
        s.regenerated = True
        ctx.emit(E.WarActionTaken(battle=battle, round=rnd, army=s.army.id, action="regeneration", note="+1 HP"))


def _turn_ends(s: Side, armies: dict[str, Side]) -> None:
    mark, later = f"end:{s.army.id}", f"end2:{s.army.id}"
    for x in armies.values():
        x.timed = [t for t in x.timed if t.ends not in (mark, f"strike:{s.army.id}")]
        for t in x.timed:
            if t.ends == later:
                t.ends = mark


def _openings(ctx: Ctx, bid: str, row: Any, armies: dict[str, Side], order: list[Side]) -> None:
    """Before the first round: Ambush and Swamp Charge (start engaged with a slower enemy army), Opening Salvo
    (start distant from every enemy), by the plan's ``openings``."""
    for o in getattr(row, "openings", []) or []:
        s = armies.get(o.army)
        if s is None or not s.has(o.tactic):
            raise ctx.fail(f"{o.army} has no {o.tactic} tactic in this battle", "Appendix 3 tactics")
        foes = [x for x in armies.values() if x.side != s.side]
        if o.tactic in ("ambush", "opening-salvo") and any(x.initiative >= s.initiative for x in foes):
            raise ctx.fail(f"{s.army.name} does not act before every enemy army: no {o.tactic}",
                           f"Appendix 3 {o.tactic}")
        if o.tactic == "opening-salvo":
            s.distant = True
        else:
            t = armies.get(o.target)
            if t is None or t.side == s.side:
                raise ctx.fail(f"{o.tactic} names an enemy army as 'target'", f"Appendix 3 {o.tactic}")
            if o.tactic == "swamp-charge" and not row.water:
                raise ctx.fail("Swamp Charge needs a battlefield with swamp or water ('water')",
                               "Appendix 3 Swamp Charge")
            if o.tactic == "ambush" and t.initiative >= s.initiative:
                raise ctx.fail(f"{t.army.name} is not slower than {s.army.name}", "Appendix 3 Ambush")
            s.engaged.add(t.army.id)
            t.engaged.add(s.army.id)
            s.timed.append(Timed(o.tactic, 1, f"end:{s.army.id}", t.army.id))
        ctx.emit(E.WarActionTaken(battle=bid, round=0, army=s.army.id, action=o.tactic, target=o.target or ""))


def battle(ctx: Ctx, row: Any, key: str) -> None:
    """One war encounter (AoN 1869), played from the plan's orders: every roll recorded."""
    options = ctx.state.options
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
    for s in armies.values():
        s.foes = {x.army.id: x for x in armies.values() if x.side != s.side}
    _check_orders(ctx, row, armies)
    _battle(ctx, row, key, bid, armies, options)


def _check_orders(ctx: Ctx, row: Any, armies: dict[str, Side]) -> None:
    """Every round's orders checked before a die is drawn (AoN 1869): each army is one of the battle's, each tactical
    action one its tactics grant, at most three actions' worth and one reaction per army a round. What the dice
    decide (a routed army must Retreat) is checked as the round is played."""
    adefs = T.war_action_defs()
    for r, orders in enumerate(row.rounds, start=1):
        cost: Counter[str] = Counter()
        reactions: set[str] = set()
        for o in orders:
            ad = adefs[o.action]
            if o.army not in armies:
                raise ctx.fail(f"round {r}: {o.army!r} is not an army of this battle", "AoN 1869")
            if ad.kind != "basic" and not armies[o.army].grants(o.action):
                raise ctx.fail(f"{armies[o.army].army.name} has no tactic that grants {ad.title or o.action}",
                               "Appendix 3 tactical war actions")
            if ad.actions == "r":
                if o.army in reactions:
                    raise ctx.fail(f"{o.army} takes one reaction a round", "Appendix 3 reactions")
                reactions.add(o.army)
            else:
                cost[o.army] += ad.cost
        for aid, n in cost.items():
            if n > 3:
                mine = ", ".join(o.action for o in orders if o.army == aid and adefs[o.action].actions != "r")
                raise ctx.fail(f"{armies[aid].army.name} takes three war actions a round, not {n} ({mine})",
                               "AoN 1869")


def _battle(ctx: Ctx, row: Any, key: str, bid: str, armies: dict[str, Side], options: Mapping[str, Any]) -> None:
    ctx.emit(E.BattleStarted(id=bid, hex=row.hex or "", kingdom=list(row.kingdom), enemy=list(row.enemy)))
    # 1 initiative: Scouting checks (+2 circumstance after a successful Offensive Gambit; Keen Eyed +2 status)
    gambit = any(f in ctx.state.flags for f in ("offensive-gambit", "offensive-gambit-critical"))
    wet = bool(getattr(row, "water", False))
    for aid, s in armies.items():
        s.wet = wet
        mods = [*_mods(s, "initiative", options=options), *_mods(s, "scouting", options=options)]
        if gambit and s.side == "kingdom":
            mods.append(Modifier("Offensive Gambit", 2, "circumstance"))
        bd = stack("initiative", mods, base=s.army.scouting)
        # no DC: the totals are compared (the higher acts first), so the check is a ``total`` with no odds
        die, _ = roll(ctx, f"{key}.init.{aid}", "1d20", check=CheckSpec("total", modifier=int(bd.total),
                                                                         label=f"{s.army.name} initiative"))
        s.initiative = die + int(bd.total)
        explain_once(ctx, Breakdown(f"{bid}: {s.army.name} initiative", bd.total, bd.terms))
        ctx.emit(E.WarActionTaken(battle=bid, round=0, army=aid, action="initiative", die=die,
                                  modifier=int(bd.total), total=s.initiative))
    order = sorted(armies.values(), key=lambda x: (-x.initiative, x.side != "kingdom", x.army.id))
    _openings(ctx, bid, row, armies, order)
    fdefs = T.fortification_defs()
    forts: dict[str, Fort] = {}
    for f in getattr(row, "fortifications", []) or []:
        fd = fdefs[f.kind]
        if f.id in armies or f.id in forts:
            raise ctx.fail(f"fortification id {f.id!r} is taken", "Appendix 3 fortifications")
        if len(f.armies) > fd.max_armies or any(a not in armies or armies[a].side != f.side for a in f.armies):
            raise ctx.fail(f"{fd.title} holds at most {fd.max_armies} armies of its side", "Appendix 3 fortifications")
        forts[f.id] = Fort(f.id, fd.title, f.side, fd.ac, fd.hp, list(f.armies))
    adefs = T.war_action_defs()
    winner = "none"
    rounds = 0
    for r, orders in enumerate(row.rounds, start=1):
        rounds = r
        # the reactions readied this round (each army's one; every order was checked by ``_check_orders``)
        pending: dict[str, Any] = {o.army: o for o in orders if adefs[o.action].actions == "r"}
        for s in order:
            _turn_starts(ctx, bid, r, s, armies)
            if s.gone or "defeated" in s.conditions:
                _turn_ends(s, armies)
                continue
            mine = [o for o in orders if o.army == s.army.id and adefs[o.action].actions != "r"]
            cost = sum(adefs[o.action].cost for o in mine)
            if cost > 3:
                raise ctx.fail(f"{s.army.name} takes three war actions a round, not {cost}"
                               f" ({', '.join(o.action for o in mine)})", "AoN 1869")
            if "routed" in s.conditions and any(o.action not in ("retreat", "reactive-rally") for o in mine):
                raise ctx.fail(f"{s.army.name} is routed: it must Retreat", "AoN 1869 routed")
            with ctx.acting(key) if s.side == "kingdom" else contextlib.nullcontext():  # the General's orders
                for j, o in enumerate(mine):
                    if s.gone or ("routed" in s.conditions and o.action not in ("retreat", "reactive-rally")):
                        break  # routed during its turn: only a Retreat is left to it
                    _act(ctx, f"{key}.r{r}.{s.army.id}.{j + 1}", bid, r, s, o, armies, pending, options, forts)
            _turn_ends(s, armies)
        # 3 rout checks
        for s in order:
            if s.out or s.no_rout_checks or s.hp > s.army.rout_threshold or "defeated" in s.conditions \
                    or s.has("brave"):
                continue
            foes = [x for x in armies.values() if x.side != s.side and not x.out]
            if not foes:
                continue
            dc = max(10 + x.army.morale for x in foes)
            deg = _check(ctx, f"{key}.r{r}.rout.{s.army.id}", bid, r, s, "rout",
                         stack("Morale", _mods(s, "morale", action="rout", options=options), base=s.army.morale), dc)
            _false_retreat(ctx, f"{key}.r{r}.rout.{s.army.id}", bid, r, s, deg, armies, pending)
            if deg == "critical_success":
                s.no_rout_checks = True
            elif deg == "failure":
                _shake(s)
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
        if "defeated" in s.conditions and side_down and not s.has("regeneration"):
            s.conditions["destroyed"] = 1
        if "routed" in s.conditions and "destroyed" not in s.conditions:
            # routed ends when the encounter does, with shaken +1
            del s.conditions["routed"]
            s.conditions["shaken"] = s.conditions.get("shaken", 0) + 1
            routed.append(aid)
        if "defeated" in s.conditions:
            defeated.append(aid)
        # what lasts past the battle: the conditions it holds (timed effects end with the encounter)
        changes = {k: v for k, v in s.conditions.items() if s.army.conditions.get(k) != v}
        gone = {k: 0 for k in s.army.conditions if k not in s.conditions}
        upd: dict[str, Any] = {"acted_turn": ctx.state.turn}
        if s.hp != s.army.hp:
            upd["hp"] = max(0, s.hp)
        doses = sum(1 for u in s.used if u.startswith("potion"))
        if doses:  # healing potion doses are not replenished after a battle
            gear = {k: v for k, v in s.army.gear.items() if k != "healing-potions"}
            left = s.army.gear.get("healing-potions", 0) - doses
            upd["gear"] = {**gear, **({"healing-potions": left} if left > 0 else {})}
        ctx.emit(E.ArmyUpdated(army=aid, set=upd, conditions={**changes, **gone}, cause=f"battle {bid}"))
        if "destroyed" in s.conditions:
            ctx.emit(E.ArmyRemoved(army=aid, cause="destroyed"))
    ctx.emit(E.BattleEnded(id=bid, winner=winner, rounds=rounds, routed=routed, defeated=defeated))
