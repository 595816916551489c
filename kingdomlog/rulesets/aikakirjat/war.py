"""War (spec §4.5, §3.11, §3.12): set-up, war turns, engagements, peace, end of war, upkeep.

The players' side is ``"players"``; an enemy side is a neighbour id whose numbers come
from its GM-maintained profile (A39). All functions are pure resolvers (see ``resolve``).
"""

from __future__ import annotations

from collections import deque
from typing import Any

from kingdomlog.core.errors import RuleError
from kingdomlog.core.ruleset import Breakdown, Term
from kingdomlog.dice.checks import CheckSpec as OddsSpec
from kingdomlog.dice.checks import d20_adv, d20_notation
from kingdomlog.rulesets.aikakirjat import rules as R
from kingdomlog.rulesets.aikakirjat.events import (
    Allocation,
    CheckOptions,
    Order,
    WarEnded,
    WarTurnResolved,
    WarUpkeepApplied,
    WarYearStarted,
)
from kingdomlog.rulesets.aikakirjat.resolve import PLAYERS, _spec, set_neighbour
from kingdomlog.rulesets.aikakirjat.state import Army, KingdomState, Neighbour, War, WarTechnology
from kingdomlog.rulesets.aikakirjat.tape import Tape

Audit = dict[str, Any]


def get_war(s: KingdomState, war_id: str) -> War:
    for w in s.wars:
        if w.war_id == war_id:
            return w
    raise RuleError(f"no war {war_id!r} is being fought", rule="§4.5")


def enemy_of(w: War) -> str:
    return w.attacker if w.defender == PLAYERS else w.defender


def _put_war(s: KingdomState, w: War) -> KingdomState:
    return s.model_copy(update={"wars": tuple(w if x.war_id == w.war_id else x for x in s.wars)})


def _enemy(s: KingdomState, w: War) -> Neighbour:
    return s.neighbours[enemy_of(w)]


def side_has_feat(s: KingdomState, side: str, feat: str) -> bool:
    """Whether ``side`` (the players or a neighbour, from its profile, A39) holds ``feat`` (§3.6)."""
    if side == PLAYERS:
        return R.has_feat(s, feat)
    n = s.neighbours.get(side)
    return n is not None and feat in n.profile.feats


def war_turns(s: KingdomState, w: War) -> int:
    """4 war turns, 6 when the war's attacker (either side) has Advanced Logistics (§4.5.1, §3.6, A56)."""
    return 6 if side_has_feat(s, w.attacker, "advanced_logistics") else 4


def controlled_by(s: KingdomState, side: str) -> list[str]:
    return [p.id for p in s.provinces.values() if p.controller == side]


def side_armies(s: KingdomState, side: str, war_id: str | None = None) -> list[Army]:
    """``side``'s armies, of one war when ``war_id`` is given (each war is fought by its own armies)."""
    return [a for a in s.armies if a.owner == side and (war_id is None or a.war_id == war_id)]


def war_armies(s: KingdomState, w: War) -> list[Army]:
    """The armies fighting ``w``: the players' armies assigned to it and the enemy's."""
    return [a for a in s.armies if a.war_id == w.war_id]


def _lose(s: KingdomState, army: Army, damage: int) -> KingdomState:
    """``army`` loses ``damage`` militia (not below 0; destroyed at 0, A55), and so does its owner's militia.

    The kingdom's militia during war is what its armies hold (A55): a loss in one war's army is a loss of
    the kingdom's militia, whatever its other wars.
    """
    cur = next((a for a in s.armies if a.army_id == army.army_id), army)
    loss = min(max(0, damage), cur.militia)
    s = _set_army(s, cur.model_copy(update={"militia": cur.militia - loss}))
    if not loss:
        return s
    if cur.owner == PLAYERS:
        return s.model_copy(update={"militia": max(0, s.militia - loss)})
    nb = s.neighbours[cur.owner]
    prof = nb.profile.model_copy(update={"militia": max(0, nb.profile.militia - loss)})
    return set_neighbour(s, nb.model_copy(update={"profile": prof}))


def side_words(s: KingdomState, side: str, *, own: bool = False) -> str:
    """A side of a war in words: the players' kingdom by its name (else "the kingdom"), a neighbour by its name;
    ``own``: as an owner ("Kalevala's").

    >>> side_words(KingdomState(name="Pohjola"), PLAYERS), side_words(KingdomState(), PLAYERS, own=True)
    ('Pohjola', "the kingdom's")
    """
    name = (s.name or "the kingdom") if side == PLAYERS else s.neighbours[side].name if side in s.neighbours else side
    return f"{name}'s" if own else name


def war_words(s: KingdomState, w: War) -> str:
    """A war in words: "the war with Kalevala"."""
    return f"the war with {side_words(s, enemy_of(w))}"


def _check_allocations(s: KingdomState, side: str, allocs: tuple[Allocation, ...], total: int, population: int,
                       cap: int, *, exact: bool = True) -> None:
    if len(allocs) > cap:
        raise RuleError(f"{side_words(s, side)} may field at most {cap} armies" + ("" if side != PLAYERS else
                        " (armies of its other wars count)"), rule="§2.9 armies")
    given = sum(a.militia for a in allocs)
    if exact and given != total:
        raise RuleError(f"{side_words(s, side, own=True)} armies must share exactly its militia {total}" + (
            " not assigned to its other wars" if side == PLAYERS else ""), rule="§4.5.1 (A55)")
    if not exact and given > total:
        raise RuleError(f"{side_words(s, side, own=True)} armies may share at most the {total} militia not assigned"
                        " to its other wars",
                        rule="§4.5.1 (A55)")
    ids = [a.army_id for a in allocs]
    if len(set(ids)) != len(ids) or any(a.army_id in ids for a in s.armies):
        raise RuleError("army ids must be unique (among the armies of every war)", rule="§2.13")
    per_army_cap = population if total <= max(1, cap) * population else total
    places = set(controlled_by(s, side))
    for a in allocs:
        if a.militia < 0 or a.militia > per_army_cap:
            raise RuleError(f"army {a.army_id}: militia {a.militia} must be 0..population {population}", rule="§4.5.1")
        if a.province_id not in places:
            raise RuleError(f"army {a.army_id} must start in a province {side_words(s, side)} controls",
                            rule="§4.5.1")


def setting_up(s: KingdomState, w: War) -> tuple[KingdomState, int, int, int]:
    """What the players have for ``w``'s set-up this year: (state, free militia, free armies, wars set up after).

    At the first set-up of a year every army of the players returns to the kingdom's militia (A55: the militia
    is assigned anew each war year); each war then takes its share, and the last war set up takes the rest.
    """
    if not any(x.armies_assigned_year == s.year for x in s.wars):
        s = s.model_copy(update={"armies": tuple(a for a in s.armies if a.owner != PLAYERS)})
    committed = side_armies(s, PLAYERS)
    free = s.militia - sum(a.militia for a in committed)
    others = [x for x in s.wars if x.war_id != w.war_id and x.armies_assigned_year != s.year]
    return s, max(0, free), max(0, R.armies_max(s) - len(committed)), len(others)


def default_allocations(s: KingdomState, side: str, total: int, cap: int, war_id: str | None = None,
                        *, wars_left: int = 1) -> tuple[Allocation, ...]:
    """A side's default armies: its share of ``total`` militia (split evenly among the ``wars_left`` wars still
    to set up) in one army in its first controlled province, more armies if over population."""
    places = controlled_by(s, side)
    if not places or cap < 1:
        return ()
    share = total if wars_left <= 1 else total // wars_left
    pop = s.population if side == PLAYERS else s.neighbours[side].population
    n = 1 if share <= pop else min(cap, -(-share // max(1, pop)))
    shares = [share // n + (1 if i < share % n else 0) for i in range(n)]
    prefix = "p" if side == PLAYERS else side
    used = {a.army_id for a in s.armies}
    out: list[Allocation] = []
    k = 1
    for i, m in enumerate(shares):
        while f"{prefix}-army{k}" in used:
            k += 1
        out.append(Allocation(army_id=f"{prefix}-army{k}", province_id=places[i % len(places)], militia=m))
        used.add(f"{prefix}-army{k}")
    return tuple(out)


def war_year_started(s: KingdomState, e: WarYearStarted, tape: Tape) -> tuple[KingdomState, Audit]:
    """§4.5.1: armies assigned (A55; each war its own), number of war turns (A56), initiative (A57)."""
    w = get_war(s, e.war_id)
    if w.armies_assigned_year == s.year:
        raise RuleError("this war year is already set up", rule="§4.5.1")
    enemy = _enemy(s, w)
    s, free, free_armies, after = setting_up(s, w)
    s = s.model_copy(update={"armies": tuple(a for a in s.armies if a.owner != enemy.id)})
    # The last war set up this year takes the rest of the militia (A55), unless no army is left to hold it.
    _check_allocations(s, PLAYERS, e.allocations, free, s.population, free_armies, exact=not after and free_armies > 0)
    _check_allocations(s, enemy.id, e.enemy_allocations, enemy.profile.militia, enemy.population,
                       enemy.profile.armies_max)
    if {a.army_id for a in e.allocations} & {a.army_id for a in e.enemy_allocations}:
        raise RuleError("army ids must be unique (among the armies of every war)", rule="§2.13")
    new = [Army(army_id=a.army_id, owner=PLAYERS, militia=a.militia, province_id=a.province_id, war_id=w.war_id)
           for a in e.allocations]
    new += [Army(army_id=a.army_id, owner=enemy.id, militia=a.militia, province_id=a.province_id, war_id=w.war_id)
            for a in e.enemy_allocations]
    s = s.model_copy(update={"armies": (*s.armies, *new), "phase": "war"})
    own_bonus = R.skill_bonus(s, "bureaucracy")
    order: tuple[str, ...] = ()
    rolls: list[Audit] = []
    for attempt in range(1, 6):
        sfx = "" if attempt == 1 else str(attempt)
        c, s = R.roll_check(s, _spec("skill", e.check if attempt == 1 else type(e.check)(), skill="bureaucracy"),
                            tape, f"initiative{sfx}", against=f"{enemy.name} d20 + {enemy.profile.bureaucracy_bonus}")
        npc = tape.roll(f"initiative{sfx}.enemy", "1d20").total + enemy.profile.bureaucracy_bonus
        rolls.append({"players": c.total, "enemy": npc})
        if c.total != npc:
            order = (PLAYERS, enemy.id) if c.total > npc else (enemy.id, PLAYERS)
            break
        if own_bonus != enemy.profile.bureaucracy_bonus:
            order = (PLAYERS, enemy.id) if own_bonus > enemy.profile.bureaucracy_bonus else (enemy.id, PLAYERS)
            break
    if not order:
        order = (PLAYERS, enemy.id)
    turns = war_turns(s, w)
    w = w.model_copy(update={"armies_assigned_year": s.year, "war_turns_this_year": turns, "war_turn": 0,
                             "initiative_order": order, "supremacy": {}, "technology": e.technology})
    audit: Audit = {"war_turns": turns, "initiative": rolls, "order": list(order)}
    if e.technology != WarTechnology():
        audit["technology"] = e.technology.model_dump()
    return _put_war(s, w), audit


# --- war turns -----------------------------------------------------------------------------------


Pending = dict[str, CheckOptions]
"""The check options of the players' armies' orders this war turn, by army, until their first check uses them."""


def _army(s: KingdomState, army_id: str) -> Army | None:
    return next((a for a in s.armies if a.army_id == army_id), None)


def _set_army(s: KingdomState, army: Army) -> KingdomState:
    if army.militia <= 0:
        return s.model_copy(update={"armies": tuple(a for a in s.armies if a.army_id != army.army_id)})
    return s.model_copy(update={"armies": tuple(army if a.army_id == army.army_id else a for a in s.armies)})


def defence_value(s: KingdomState, side: str, w: War | None = None) -> tuple[int, Audit]:
    """8 + Defense proficiency term + Stability modifier + Decay modifier and evil presence (§4.5.3, A61),
    + the players' technology modifiers of the war year (the GM's ruling); a neighbour's from its profile."""
    if side != PLAYERS:
        return s.neighbours[side].profile.defence, {"npc_defence": s.neighbours[side].profile.defence}
    base = int(R.opt(s, "defence_base"))
    terms = {"base": base, "defense": R.proficiency_term(s, "defense"),
             "stability": R.ability_modifier(s, "stability"), "decay": R.corruption_modifier(s, "stability")}
    if w is not None and w.technology.defence:
        terms["technology"] = w.technology.defence
    return sum(terms.values()), terms


def _tech(s: KingdomState, side: str) -> int:
    return s.technology_level if side == PLAYERS else s.neighbours[side].profile.technology_level


def _mobility(s: KingdomState, side: str) -> int:
    return s.mobility if side == PLAYERS else s.neighbours[side].profile.mobility


def _fire(s: KingdomState, side: str) -> bool:
    return s.fire_capable if side == PLAYERS else s.neighbours[side].profile.fire_capable


def damage_dice(s: KingdomState, attacker: str, defender: str) -> int:
    """1 + technology difference (A63), or the difference with a minimum of 1 (option)."""
    diff = max(0, _tech(s, attacker) - _tech(s, defender))
    return max(1, diff) if R.opt(s, "tech_extra_dice") == "difference" else 1 + diff


def _players_check(w: War, pending: Pending, army_id: str, skill: str, bonus: int, label: str) -> R.CheckSpec:
    """A players' army's Warfare or Seafaring check: the war year's technology bonus, and its order's options
    (stored or yearly advantage, take 10) if this is the army's first check of the war turn (§4.5.3, §2.16)."""
    opts = pending.pop(army_id, CheckOptions())
    sit = [(label, bonus)] if bonus else []
    return _spec("skill", opts, skill=skill, situational=sit)


def _attack_roll(s: KingdomState, w: War, att: Army, tgt: Army, tape: Tape, key: str,
                 special: str | None, pending: Pending) -> tuple[KingdomState, Audit, int]:
    """One side's hit roll and damage in a phase (§4.5.3); returns (state, audit, damage)."""
    defence, dterms = defence_value(s, tgt.owner, w)
    tape.explain(Breakdown(f"defence of {tgt.army_id}", defence, tuple(Term(k, v) for k, v in dterms.items()),
                           "§4.5.3 (A61)"))
    if att.owner == PLAYERS:
        spec = _players_check(w, pending, att.army_id, "warfare", w.technology.hit, "technology (GM's ruling)")
        c, s = R.roll_check(s, spec, tape, f"{key}.hit", dc=defence)
        total, check = c.total, c.audit()
    else:
        bonus = s.neighbours[att.owner].profile.warfare_bonus
        odds = OddsSpec("5e", modifier=bonus, dc=defence, label=f"{s.neighbours[att.owner].name}'s attack")
        d = tape.roll(f"{key}.hit", "1d20", odds).total
        total = d + bonus
        check = {"d20": d, "total": total}
    hit = total >= defence
    audit: Audit = {"army": att.army_id, "target": tgt.army_id, "check": check, "defence": defence,
                    "defence_terms": dterms, "hit": hit}
    if not hit:
        return s, audit, 0
    if att.owner == PLAYERS and special:
        unit = next((u for u in s.special_units if u.id == special and not u.used_this_year), None)
        if unit is None:
            raise RuleError(f"special unit {special!r} is unknown or already used this year", rule="§2.13 (A65)")
        die = unit.damage_die
        s = s.model_copy(update={"special_units": tuple(u.model_copy(update={"used_this_year": True})
                                                        if u.id == special else u for u in s.special_units)})
    else:
        die = R.militia_damage_die(s) if att.owner == PLAYERS else s.neighbours[att.owner].profile.damage_die
    n = damage_dice(s, att.owner, tgt.owner)
    r = tape.roll(f"{key}.damage", f"{n}d{die}")
    dmg = r.total
    if tgt.owner == w.defender and side_has_feat(s, tgt.owner, "fortified_land"):
        dmg = max(0, dmg - 2)  # the war's defender (A67), either side
        audit["fortified_land"] = -2
    audit.update({"damage_dice": f"{n}d{die}", "damage": dmg})
    return s, audit, dmg


def engagement(s: KingdomState, w: War, att_id: str, tgt_id: str, tape: Tape, key: str,
               special: str | None = None, pending: Pending | None = None) -> tuple[KingdomState, Audit]:
    """Fire phase (if either side is fire-capable) then melee (§4.5.3, A60)."""
    pend: Pending = {} if pending is None else pending
    phases: Audit = {}
    for phase in ("fire", "melee"):
        a, t = _army(s, att_id), _army(s, tgt_id)
        if a is None or t is None:
            break
        sides = [x for x in (a, t) if phase == "melee" or _fire(s, x.owner)]
        if not sides:
            continue
        ma, mt = _mobility(s, a.owner), _mobility(s, t.owner)
        rolls: list[Audit] = []
        if ma == mt:
            pending_damage: list[tuple[str, int]] = []
            for x in sides:
                opp = t if x is a else a
                s, au, dmg = _attack_roll(s, w, x, opp, tape, f"{key}.{phase}.{x.owner}", special if x is a else None,
                                          pend)
                rolls.append(au)
                pending_damage.append((opp.army_id, dmg))
            for army_id, dmg in pending_damage:
                cur = _army(s, army_id)
                if cur is not None:
                    s = _lose(s, cur, dmg)
            mode = "simultaneous"
        else:
            ordered = sorted(sides, key=lambda x: -_mobility(s, x.owner))
            for x in ordered:
                me: Army | None = _army(s, x.army_id)
                other_id = t.army_id if x is a else a.army_id
                other: Army | None = _army(s, other_id)
                if me is None or other is None:
                    continue
                s, au, dmg = _attack_roll(s, w, me, other, tape, f"{key}.{phase}.{x.owner}",
                                          special if x is a else None, pend)
                rolls.append(au)
                s = _lose(s, other, dmg)
            mode = "sequential"
        phases[phase] = {"order": mode, "rolls": rolls}
    after = {x: (_army(s, x).militia if _army(s, x) else 0) for x in (att_id, tgt_id)}  # type: ignore[union-attr]
    return s, {"attacker": att_id, "target": tgt_id, "phases": phases, "militia_after": after}


def _sea_key(a: str, b: str) -> str:
    return "|".join(sorted((a, b)))


def _naval_contest(s: KingdomState, w: War, army: Army, link: str, order: Order, tape: Tape,
                   key: str, pending: Pending) -> tuple[KingdomState, Audit, bool]:
    """Naval supremacy (§4.5.4, A59): Seafaring + committed naval dice; ties go to the defender.

    Naval Traditions gives either side advantage (§3.6); the players' roll adds the war year's technology
    bonus and may use the army's order options (§2.16).
    """
    side = army.owner
    other = enemy_of(w) if side == PLAYERS else PLAYERS
    if order.naval_dice < 1:
        raise RuleError("crossing a sea needs at least one committed naval die", rule="§4.5.4 (A59)")

    def commit(who: str, n: int, k: str) -> tuple[KingdomState, int]:
        if n == 0:
            return s_, 0
        have = s_.naval_dice if who == PLAYERS else s_.neighbours[who].profile.naval_dice
        if n > have:
            raise RuleError(f"{side_words(s_, who)} has only {have} naval dice", rule="§4.5.4")
        size = R.levy_die(s_) if who == PLAYERS else s_.neighbours[who].profile.levy_die
        total = tape.roll(k, f"{n}d{size}").total
        if who == PLAYERS:
            return s_.model_copy(update={"naval_dice": have - n}), total
        nb = s_.neighbours[who]
        prof = nb.profile.model_copy(update={"naval_dice": have - n})
        return set_neighbour(s_, nb.model_copy(update={"profile": prof})), total

    s_ = s
    totals: dict[str, int] = {}
    for who, n in ((side, order.naval_dice), (other, order.oppose_naval_dice)):
        if who == PLAYERS:
            our = army.army_id if side == PLAYERS else ""
            spec = _players_check(w, pending, our, "seafaring", w.technology.naval, "technology (GM's ruling)")
            if R.has_feat(s_, "naval_traditions"):
                spec.advantage.append("Naval Traditions (§3.6)")
            c, s_ = R.roll_check(s_, spec, tape, f"{key}.{who}", against=f"{other} Seafaring")
            base = c.total
        else:
            mode = "advantage" if side_has_feat(s_, who, "naval_traditions") else "normal"
            r = tape.roll(f"{key}.{who}", d20_notation(mode))
            base = d20_adv(r.faces, mode) + s_.neighbours[who].profile.seafaring_bonus
        s_, extra = commit(who, n, f"{key}.{who}.naval")
        totals[who] = base + extra
    won = totals[side] > totals[other]
    winner = side if won else other
    w2 = get_war(s_, w.war_id)
    s_ = _put_war(s_, w2.model_copy(update={"supremacy": {**w2.supremacy, link: winner}}))
    return s_, {"link": link, "totals": totals, "winner": winner}, won


def _move(s: KingdomState, w: War, army: Army, order: Order, tape: Tape, key: str,
          pending: Pending) -> tuple[KingdomState, Audit]:
    """Movement (§4.5.2, A58): one province, one more through a road; entering an enemy army forces an attack."""
    if not 1 <= len(order.path) <= 2:
        raise RuleError("a move goes one province, or two through a road", rule="§4.5.2 (A58)")
    audit: Audit = {"army": army.army_id, "path": [], "kind": "move"}
    here = army.province_id
    for i, step in enumerate(order.path):
        cur = s.provinces.get(here)
        nxt = s.provinces.get(step)
        if cur is None or nxt is None:
            raise RuleError(f"unknown province on path {list(order.path)}", rule="§4.5.2")
        if i == 1:
            prev = s.provinces[order.path[0]]
            if not (prev.has_road or prev.has_highway):
                raise RuleError(f"a second move needs a road in {prev.id}", rule="§4.5.2 (A58)")
        if step in cur.sea_links:
            link = _sea_key(here, step)
            wcur = get_war(s, w.war_id)
            if wcur.supremacy.get(link) != army.owner:
                s, na, won = _naval_contest(s, wcur, army, link, order, tape, f"{key}.sea", pending)
                audit["naval"] = na
                if not won:
                    audit["blocked"] = "naval supremacy lost"
                    break
        elif step not in cur.adjacent:
            raise RuleError(f"{step} is not adjacent to {here}", rule="§4.5.2")
        occupants = [a for a in s.armies if a.province_id == step and a.army_id != army.army_id]
        if any(a.owner == army.owner for a in occupants):
            audit["blocked"] = f"{step} holds a friendly army"  # moved there earlier this turn
            break
        if any(a.war_id != w.war_id for a in occupants):
            audit["blocked"] = f"{step} holds an army of another war"
            break
        army = army.model_copy(update={"province_id": step})
        s = _set_army(s, army)
        here = step
        audit["path"].append(step)
        enemies = [a for a in occupants if a.owner != army.owner]
        if enemies:
            s, eng = engagement(s, w, army.army_id, enemies[0].army_id, tape, f"{key}.eng",
                                order.special_unit, pending)
            audit["engagement"] = eng
            break
    return s, audit


def _attack(s: KingdomState, w: War, army: Army, order: Order, tape: Tape, key: str,
            pending: Pending) -> tuple[KingdomState, Audit]:
    tgt = _army(s, order.target or "")
    why = _attack_problem(s, w, army, tgt)
    if why or tgt is None:  # legal when ordered (checked at the turn's start), overtaken by events since
        return s, {"army": army.army_id, "kind": "attack", "skipped": why or "target gone"}
    if tgt.province_id != army.province_id:
        s = _set_army(s, army.model_copy(update={"province_id": tgt.province_id}))
    s, eng = engagement(s, w, army.army_id, tgt.army_id, tape, f"{key}.eng", order.special_unit, pending)
    return s, {"army": army.army_id, "kind": "attack", "engagement": eng}


def peace_dc(s: KingdomState, w: War, demanded: tuple[str, ...]) -> tuple[int, Audit]:
    """§3.11 (A69): 15, −5 if we field more armies, −3 per captured province, +5 per demand, + unrest modifier."""
    enemy = _enemy(s, w)
    ours, theirs = len(side_armies(s, PLAYERS, w.war_id)), len(side_armies(s, enemy.id))
    captured = [p.id for p in s.provinces.values() if p.owner == enemy.id and p.controller == PLAYERS]
    terms = {"start": 15, "more_armies": -5 if ours > theirs else 0, "captured": -3 * len(captured),
             "demanded": 5 * len(demanded), "unrest": R.unrest_modifier(enemy.profile.unrest)}
    return sum(terms.values()), terms


def _attack_problem(s: KingdomState, w: War, army: Army, tgt: Army | None) -> str | None:
    """Why ``army`` cannot attack ``tgt`` now (§4.5.2, A58), or None. Armies fight only their own war."""
    if tgt is None or tgt.owner == army.owner:
        return "no such enemy army"
    if tgt.war_id != w.war_id or army.war_id != w.war_id:
        return f"{tgt.army_id} is not an army of {w.war_id}"
    if tgt.province_id == army.province_id:
        return None
    if tgt.province_id not in s.provinces[army.province_id].adjacent:
        return f"{tgt.army_id} is not in or next to {army.province_id}"
    if any(a.owner == army.owner for a in s.armies if a.province_id == tgt.province_id):
        return f"{tgt.province_id} holds a friendly army"
    return None


def _orders_for(s: KingdomState, w: War, side: str, orders: tuple[Order, ...]) -> tuple[Order, ...]:
    """Orders are checked against the state at the start of the war turn."""
    for o in orders:
        a = _army(s, o.army_id)
        if a is None or a.owner != side or a.war_id != w.war_id:
            raise RuleError(f"{side_words(s, side)} has no army {o.army_id!r} in {war_words(s, w)}", rule="§4.5.2")
        if o.kind == "attack":
            why = _attack_problem(s, w, a, _army(s, o.target or ""))
            if why:
                raise RuleError(f"army {a.army_id} cannot attack {o.target!r}: {why}", rule="§4.5.2 (A58)")
        if o.kind == "move" and o.path:
            first = o.path[0]
            if any(x.owner == side and x.province_id == first for x in s.armies):
                raise RuleError(f"{first} already holds a friendly army", rule="§4.5.2")
        if side != PLAYERS and (o.spend_stored or o.spend_year or o.take_10):
            raise RuleError("stored advantages and taking 10 are the players' (an NPC's bonus is its profile's)",
                            rule="§2.16, A39")
    if len({o.army_id for o in orders}) != len(orders):
        raise RuleError("each army takes one order per war turn", rule="§4.5.2 (A58)")
    return orders


def _extra(s: KingdomState, side: str, order: Order | None) -> tuple[Order, ...]:
    """General Staff's one extra attack a war turn (§3.6, A66), for either side."""
    if order is None:
        return ()
    if not side_has_feat(s, side, "general_staff"):
        raise RuleError(f"an extra attack needs General Staff ({side_words(s, side)} lacks it)", rule="§3.6 (A66)")
    if order.kind != "attack":
        raise RuleError("General Staff's extra is an attack", rule="A66")
    return (order,)


def _options(o: Order) -> CheckOptions | None:
    opts = CheckOptions(spend_stored=o.spend_stored, spend_year=o.spend_year, take_10=o.take_10)
    return opts if opts != CheckOptions() else None


def war_turn(s: KingdomState, e: WarTurnResolved, tape: Tape) -> tuple[KingdomState, Audit]:
    """One war turn of one war in initiative order; captures at its end (§4.5.2)."""
    w = get_war(s, e.war_id)
    if w.armies_assigned_year != s.year:
        raise RuleError("the war year is not set up (armies, initiative)", rule="§4.5.1")
    if any(x.armies_assigned_year != s.year for x in s.wars):
        raise RuleError("every war's armies are assigned before the war turns (the militia is shared out first)",
                        rule="§4.5.1 (A55)")
    if s.actions_forfeited and s.pending_revolution:
        raise RuleError("revolution result 7: the kingdom loses its war turns this year", rule="A25")
    if e.war_turn != w.war_turn + 1 or e.war_turn > w.war_turns_this_year:
        raise RuleError(f"war turn {e.war_turn} is not next (turn {w.war_turn} of {w.war_turns_this_year} done)",
                        rule="§4.5.1")
    enemy = enemy_of(w)
    audit: Audit = {"actions": []}
    if e.peace is not None:
        dc, terms = peace_dc(s, w, e.peace.provinces_demanded)
        tape.explain(Breakdown("peace DC", dc, tuple(Term(k, v) for k, v in terms.items()), "§3.11 (A69)"))
        for pid in e.peace.provinces_demanded:
            if pid not in s.provinces or s.provinces[pid].owner != enemy:
                raise RuleError(f"{pid} is not a province of {enemy}", rule="§3.11")
        if e.peace.performer == "kingdom":
            c, s = R.roll_check(s, _spec("skill", e.peace.check, skill="diplomacy"), tape, "peace", dc=dc)
        else:
            if e.peace.check != CheckOptions():
                raise RuleError("advantages and taking 10 are the kingdom's checks, not a PC's", rule="A50, §3.6")
            bonus = e.peace.pc_bonus if e.peace.performer == "pc" else 3 + R.proficiency_bonus(s)
            c, s = R.roll_check(s, R.CheckSpec(kind="pc", bonus=bonus, label="persuasion"), tape, "peace",
                                dc=dc)
        ok = c.meets(dc)
        audit["peace"] = {"dc": dc, "terms": terms, "check": c.audit(), "success": ok}
        if ok:
            w = get_war(s, w.war_id).model_copy(update={"peace_agreed": True,
                                                          "provinces_demanded": e.peace.provinces_demanded,
                                                          "war_turn": e.war_turn})
            return _put_war(s, w), audit
    by_side = {PLAYERS: (*_orders_for(s, w, PLAYERS, e.orders), *_extra(s, PLAYERS, e.extra_attack)),
               enemy: (*_orders_for(s, w, enemy, e.enemy_orders), *_extra(s, enemy, e.enemy_extra_attack))}
    pending: Pending = {o.army_id: opts for o in e.orders if (opts := _options(o)) is not None}
    for side in w.initiative_order:
        if e.war_turn > 4 and side != w.attacker:
            continue
        for i, o in enumerate(by_side.get(side, ())):
            army = _army(s, o.army_id)
            if army is None or o.kind == "hold":
                continue
            if side == PLAYERS and i >= len(e.orders) and (opts := _options(o)) is not None:
                pending[o.army_id] = opts  # the extra attack's own options
            key = f"{'p' if side == PLAYERS else 'e'}{i + 1}"
            if o.kind == "move":
                s, au = _move(s, w, army, o, tape, key, pending)
            else:
                s, au = _attack(s, w, army, o, tape, key, pending)
            audit["actions"].append(au)
    captured = []
    provinces = dict(s.provinces)
    for p in list(s.provinces.values()):
        present = {a.owner for a in war_armies(s, w) if a.province_id == p.id}
        others = any(a.war_id != w.war_id and a.province_id == p.id for a in s.armies)
        if len(present) == 1 and not others:
            (who,) = present
            if p.controller != who and p.controller in (PLAYERS, enemy) and who in (PLAYERS, enemy):
                provinces[p.id] = p.model_copy(update={"controller": who})
                captured.append({"province": p.id, "from": p.controller, "to": who})
    s = s.model_copy(update={"provinces": provinces})
    s = _put_war(s, get_war(s, w.war_id).model_copy(update={"war_turn": e.war_turn}))
    audit.update({"captured": captured, "militia": {PLAYERS: s.militia, enemy: s.neighbours[enemy].profile.militia}})
    return s, audit


def end_reason(s: KingdomState, w: War) -> tuple[str, str | None] | None:
    """Whether the war ends now (§4.5.6): (reason, winner) or None.

    The players' militia is the kingdom's whole militia, in every war's armies (A55: "the total").
    """
    enemy = _enemy(s, w)
    if w.peace_agreed:
        return "peace", None
    if w.armies_assigned_year is not None:
        if s.militia <= 0:
            return "militia_zero", enemy.id
        if enemy.profile.militia <= 0:
            return "militia_zero", PLAYERS
    if R.revolution_reached(s, s.unrest):
        return "unrest_20", enemy.id
    if R.revolution_reached(s, enemy.profile.unrest):
        return "unrest_20", PLAYERS
    return None


def war_ended(s: KingdomState, e: WarEnded, tape: Tape) -> tuple[KingdomState, Audit]:
    """§4.5.6 (A68): the loser at 0 militia loses a levy die of population; the winner's fame; armies dissolve."""
    w = get_war(s, e.war_id)
    due = end_reason(s, w)
    if due is None or due != (e.reason, e.winner):
        raise RuleError(f"the war does not end this way now (due: {due})", rule="§4.5.6")
    enemy = _enemy(s, w)
    audit: Audit = {}
    if e.reason == "militia_zero":
        if e.winner == PLAYERS:
            loss = tape.roll("loss", f"1d{enemy.profile.levy_die}").total
            s = set_neighbour(s, enemy.model_copy(update={"population": max(0, enemy.population - loss)}))
        else:
            loss = tape.roll("loss", f"1d{R.levy_die(s)}").total
            s = R.set_population(s, s.population - loss)
        audit["population_loss"] = loss
    if e.reason == "unrest_20" and e.winner != PLAYERS and not s.revolution_rolled_this_year:
        s = s.model_copy(update={"revolution_due": "unrest"})
    fame = 0
    if e.winner == PLAYERS:
        fame = 5 if s.neighbours[enemy.id].population <= s.population else 10
        s = s.model_copy(update={"fame": s.fame + fame})
    audit["fame"] = fame
    provinces = dict(s.provinces)
    for p in list(s.provinces.values()):
        if e.reason == "peace" and p.id in w.provinces_demanded:
            provinces[p.id] = p.model_copy(update={"owner": PLAYERS, "controller": PLAYERS})
        elif p.controller != p.owner and {p.owner, p.controller} <= {PLAYERS, enemy.id}:
            provinces[p.id] = p.model_copy(update={"controller": p.owner})
    s = s.model_copy(update={"provinces": provinces})
    nb = s.neighbours[enemy.id]
    s = set_neighbour(s, nb.model_copy(update={"status": "independent"}))
    # The war's armies dissolve back into the militia (which already counts them, A55).
    s = s.model_copy(update={"armies": tuple(a for a in s.armies if a.war_id != w.war_id and a.owner != enemy.id),
                             "wars": tuple(x for x in s.wars if x.war_id != w.war_id)})
    return s, audit


def war_upkeep(s: KingdomState, e: WarUpkeepApplied, tape: Tape) -> tuple[KingdomState, Audit]:
    """§4.5.7, §3.12 (A70, A71): +1 Unrest (+1 more with enemies on your land); d6 attrition per item.

    Per war: its parties' unrest, and the attrition of its own armies.
    """
    w = get_war(s, e.war_id)
    enemy = enemy_of(w)
    fighting = war_armies(s, w)
    unrest: Audit = {}
    for side in (PLAYERS, enemy):
        invaded = any(a.owner != side and s.provinces[a.province_id].owner == side for a in fighting
                      if a.province_id in s.provinces)
        delta = 1 + int(invaded)
        unrest[side] = delta
        if side == PLAYERS:
            s = R.add_unrest(s, delta)
        else:
            nb = s.neighbours[side]
            s = set_neighbour(s, nb.model_copy(update={"profile": nb.profile.model_copy(
                update={"unrest": nb.profile.unrest + delta})}))
    religion = max(0, R.skill_bonus(s, "religion"))
    attrition: list[Audit] = []
    for a in fighting:
        prov = s.provinces.get(a.province_id)
        items = ["in_field"]
        if prov is not None and prov.controller not in (a.owner,):
            items.append("hostile")
        if any(o.owner != a.owner and o.province_id == a.province_id for o in fighting):
            items.append("enemy_present")
        if prov is not None and prov.terrain in ("desert", "tundra"):
            items.append("desert_tundra")
        dice = [tape.roll(f"attrition.{a.army_id}.{it}", "1d6").total for it in items]
        red = (religion + e.technology_reduction) if a.owner == PLAYERS else 0
        dmg = max(0, sum(dice) - red)
        s = _lose(s, a, dmg)
        attrition.append({"army": a.army_id, "items": items, "dice": dice, "reduction": red, "damage": dmg})
    return s, {"unrest": unrest, "attrition": attrition}


# --- default orders (a playable year without choices) --------------------------------------------


def default_orders(s: KingdomState, w: War, side: str) -> tuple[Order, ...]:
    """Attack an enemy army of this war in or next to the province, else march along a shortest land path."""
    enemy = enemy_of(w) if side == PLAYERS else PLAYERS
    out = []
    mine = side_armies(s, side, w.war_id) if side == PLAYERS else side_armies(s, side)
    for a in mine:
        prov = s.provinces.get(a.province_id)
        if prov is None:
            continue
        near = [x for x in war_armies(s, w)
                if x.owner == enemy and (x.province_id == a.province_id or x.province_id in prov.adjacent)]
        near = [x for x in near if x.province_id == a.province_id or
                not any(f.owner == side for f in s.armies if f.province_id == x.province_id)]
        if near:
            out.append(Order(army_id=a.army_id, kind="attack", target=min(near, key=lambda x: x.militia).army_id))
            continue
        path = _path_to_enemy(s, w, a, side, enemy)
        if path:
            first = path[0]
            steps = [first]
            p1 = s.provinces[first]
            if len(path) > 1 and (p1.has_road or p1.has_highway) and not any(x.province_id == first for x in s.armies):
                steps.append(path[1])
            out.append(Order(army_id=a.army_id, kind="move", path=tuple(steps)))
        else:
            out.append(Order(army_id=a.army_id, kind="hold"))
    return tuple(out)


def _path_to_enemy(s: KingdomState, w: War, army: Army, side: str, enemy: str) -> list[str]:
    targets = {p.id for p in s.provinces.values() if p.controller == enemy} | {
        x.province_id for x in war_armies(s, w) if x.owner == enemy}
    blocked = {x.province_id for x in s.armies
               if x.army_id != army.army_id and (x.owner == side or x.war_id != w.war_id)}
    prev: dict[str, str | None] = {army.province_id: None}
    q = deque([army.province_id])
    while q:
        cur = q.popleft()
        if cur in targets and cur != army.province_id:
            path = [cur]
            while prev[path[-1]] != army.province_id:
                p = prev[path[-1]]
                assert p is not None
                path.append(p)
            return path[::-1]
        for nxt in s.provinces[cur].adjacent:
            if nxt in s.provinces and nxt not in prev and nxt not in blocked:
                prev[nxt] = cur
                q.append(nxt)
    return []


def war_defaults(s: KingdomState, w: War) -> tuple[tuple[Allocation, ...], tuple[Allocation, ...]]:
    """``w``'s default armies, ours and the enemy's, when ``w`` is the next war set up this year.

    Ours: the militia not yet assigned to another war this year, split evenly among the wars still to set up
    (one army each while armies last), in one army in our first controlled province; the enemy's: all its
    militia (A55).
    """
    enemy = enemy_of(w)
    s2, free, free_armies, after = setting_up(s, w)
    s2 = s2.model_copy(update={"armies": tuple(a for a in s2.armies if a.owner != enemy)})
    fieldable = min(after + 1, free_armies)
    ours = (default_allocations(s2, PLAYERS, free, free_armies - fieldable + 1, wars_left=fieldable)
            if fieldable else ())
    prof = s2.neighbours[enemy].profile
    theirs = default_allocations(s2, enemy, prof.militia, prof.armies_max)
    return ours, theirs
