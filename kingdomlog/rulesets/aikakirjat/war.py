"""War (spec §4.5, §3.11, §3.12): set-up, war turns, engagements, peace, end of war, upkeep.

The players' side is ``"players"``; an enemy side is a neighbour id whose numbers come
from its GM-maintained profile (A39). All functions are pure resolvers (see ``resolve``).
"""

from __future__ import annotations

from collections import deque
from typing import Any

from kingdomlog.core.errors import RuleError
from kingdomlog.core.ruleset import Breakdown, Term
from kingdomlog.rulesets.aikakirjat import rules as R
from kingdomlog.rulesets.aikakirjat.events import (
    Allocation,
    Order,
    WarEnded,
    WarTurnResolved,
    WarUpkeepApplied,
    WarYearStarted,
)
from kingdomlog.rulesets.aikakirjat.resolve import PLAYERS, _spec, set_neighbour
from kingdomlog.rulesets.aikakirjat.state import Army, KingdomState, Neighbour, War
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


def war_turns(s: KingdomState, w: War) -> int:
    """4 war turns, 6 when the attacker has Advanced Logistics (§4.5.1, A56)."""
    return 6 if w.attacker == PLAYERS and R.has_feat(s, "advanced_logistics") else 4


def controlled_by(s: KingdomState, side: str) -> list[str]:
    return [p.id for p in s.provinces.values() if p.controller == side]


def side_armies(s: KingdomState, side: str) -> list[Army]:
    return [a for a in s.armies if a.owner == side]


def _sync_militia(s: KingdomState, w: War) -> KingdomState:
    """The kingdom's militia during war is the sum of its armies (A55)."""
    enemy = _enemy(s, w)
    em = sum(a.militia for a in side_armies(s, enemy.id))
    s = set_neighbour(s, enemy.model_copy(update={"profile": enemy.profile.model_copy(update={"militia": em})}))
    return s.model_copy(update={"militia": sum(a.militia for a in side_armies(s, PLAYERS))})


def _check_allocations(s: KingdomState, side: str, allocs: tuple[Allocation, ...], total: int, population: int,
                       cap: int) -> None:
    if len(allocs) > cap:
        raise RuleError(f"{side} may field at most {cap} armies", rule="§2.9 armies")
    if sum(a.militia for a in allocs) != total:
        raise RuleError(f"{side}'s armies must share exactly its militia {total}", rule="§4.5.1 (A55)")
    ids = [a.army_id for a in allocs]
    if len(set(ids)) != len(ids):
        raise RuleError("army ids must be unique", rule="§2.13")
    per_army_cap = population if total <= cap * population else total
    places = set(controlled_by(s, side))
    for a in allocs:
        if a.militia < 0 or a.militia > per_army_cap:
            raise RuleError(f"army {a.army_id}: militia {a.militia} must be 0..population {population}", rule="§4.5.1")
        if a.province_id not in places:
            raise RuleError(f"army {a.army_id} must start in a province {side} controls", rule="§4.5.1")


def default_allocations(s: KingdomState, side: str, total: int, cap: int) -> tuple[Allocation, ...]:
    """All militia in one army in the side's first controlled province (more armies if over population)."""
    places = controlled_by(s, side)
    if not places:
        return ()
    pop = s.population if side == PLAYERS else s.neighbours[side].population
    n = 1 if total <= pop else min(cap, -(-total // max(1, pop)))
    shares = [total // n + (1 if i < total % n else 0) for i in range(n)]
    prefix = "p" if side == PLAYERS else side
    return tuple(Allocation(army_id=f"{prefix}-army{i + 1}", province_id=places[i % len(places)], militia=m)
                 for i, m in enumerate(shares))


def war_year_started(s: KingdomState, e: WarYearStarted, tape: Tape) -> tuple[KingdomState, Audit]:
    """§4.5.1: armies assigned (A55), number of war turns (A56), initiative (A57)."""
    w = get_war(s, e.war_id)
    if w.armies_assigned_year == s.year:
        raise RuleError("this war year is already set up", rule="§4.5.1")
    enemy = _enemy(s, w)
    _check_allocations(s, PLAYERS, e.allocations, s.militia, s.population, R.armies_max(s))
    _check_allocations(s, enemy.id, e.enemy_allocations, enemy.profile.militia, enemy.population,
                       enemy.profile.armies_max)
    keep = [a for a in s.armies if a.owner not in (PLAYERS, enemy.id)]
    new = [Army(army_id=a.army_id, owner=PLAYERS, militia=a.militia, province_id=a.province_id) for a in e.allocations]
    new += [Army(army_id=a.army_id, owner=enemy.id, militia=a.militia, province_id=a.province_id)
            for a in e.enemy_allocations]
    s = s.model_copy(update={"armies": (*keep, *new), "phase": "war"})
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
                             "initiative_order": order, "supremacy": {}})
    return _put_war(s, w), {"war_turns": turns, "initiative": rolls, "order": list(order)}


# --- war turns -----------------------------------------------------------------------------------


def _army(s: KingdomState, army_id: str) -> Army | None:
    return next((a for a in s.armies if a.army_id == army_id), None)


def _set_army(s: KingdomState, army: Army) -> KingdomState:
    if army.militia <= 0:
        return s.model_copy(update={"armies": tuple(a for a in s.armies if a.army_id != army.army_id)})
    return s.model_copy(update={"armies": tuple(army if a.army_id == army.army_id else a for a in s.armies)})


def defence_value(s: KingdomState, side: str) -> tuple[int, Audit]:
    """8 + Defense proficiency term + Stability modifier + Decay modifier and evil presence (§4.5.3, A61)."""
    if side != PLAYERS:
        return s.neighbours[side].profile.defence, {"npc_defence": s.neighbours[side].profile.defence}
    base = int(R.opt(s, "defence_base"))
    terms = {"base": base, "defense": R.proficiency_term(s, "defense"),
             "stability": R.ability_modifier(s, "stability"), "decay": R.corruption_modifier(s, "stability")}
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


def _attack_roll(s: KingdomState, w: War, att: Army, tgt: Army, tape: Tape, key: str,
                 special: str | None) -> tuple[KingdomState, Audit, int]:
    """One side's hit roll and damage in a phase (§4.5.3); returns (state, audit, damage)."""
    defence, dterms = defence_value(s, tgt.owner)
    tape.explain(Breakdown(f"defence of {tgt.army_id}", defence, tuple(Term(k, v) for k, v in dterms.items()),
                           "§4.5.3 (A61)"))
    if att.owner == PLAYERS:
        c, s = R.roll_check(s, R.CheckSpec(kind="skill", skill="warfare"), tape, f"{key}.hit", dc=defence)
        total, check = c.total, c.audit()
    else:
        d = tape.roll(f"{key}.hit", "1d20").total
        total = d + s.neighbours[att.owner].profile.warfare_bonus
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
    if tgt.owner == PLAYERS and w.defender == PLAYERS and R.has_feat(s, "fortified_land"):
        dmg = max(0, dmg - 2)
        audit["fortified_land"] = -2
    audit.update({"damage_dice": f"{n}d{die}", "damage": dmg})
    return s, audit, dmg


def engagement(s: KingdomState, w: War, att_id: str, tgt_id: str, tape: Tape, key: str,
               special: str | None = None) -> tuple[KingdomState, Audit]:
    """Fire phase (if either side is fire-capable) then melee (§4.5.3, A60)."""
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
            pending: list[tuple[str, int]] = []
            for x in sides:
                opp = t if x is a else a
                s, au, dmg = _attack_roll(s, w, x, opp, tape, f"{key}.{phase}.{x.owner}", special if x is a else None)
                rolls.append(au)
                pending.append((opp.army_id, dmg))
            for army_id, dmg in pending:
                cur = _army(s, army_id)
                if cur is not None:
                    s = _set_army(s, cur.model_copy(update={"militia": max(0, cur.militia - dmg)}))
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
                                          special if x is a else None)
                rolls.append(au)
                s = _set_army(s, other.model_copy(update={"militia": max(0, other.militia - dmg)}))
            mode = "sequential"
        phases[phase] = {"order": mode, "rolls": rolls}
    after = {x: (_army(s, x).militia if _army(s, x) else 0) for x in (att_id, tgt_id)}  # type: ignore[union-attr]
    return s, {"attacker": att_id, "target": tgt_id, "phases": phases, "militia_after": after}


def _sea_key(a: str, b: str) -> str:
    return "|".join(sorted((a, b)))


def _naval_contest(s: KingdomState, w: War, side: str, link: str, order: Order, tape: Tape,
                   key: str) -> tuple[KingdomState, Audit, bool]:
    """Naval supremacy (§4.5.4, A59): Seafaring + committed naval dice; ties go to the defender."""
    other = enemy_of(w) if side == PLAYERS else PLAYERS
    if order.naval_dice < 1:
        raise RuleError("crossing a sea needs at least one committed naval die", rule="§4.5.4 (A59)")

    def commit(who: str, n: int, k: str) -> tuple[KingdomState, int]:
        if n == 0:
            return s_, 0
        have = s_.naval_dice if who == PLAYERS else s_.neighbours[who].profile.naval_dice
        if n > have:
            raise RuleError(f"{who} has only {have} naval dice", rule="§4.5.4")
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
            adv = ["Naval Traditions (§3.6)"] if R.has_feat(s_, "naval_traditions") else []
            c, s_ = R.roll_check(s_, R.CheckSpec(kind="skill", skill="seafaring", advantage=adv), tape,
                                 f"{key}.{who}", against=f"{other} Seafaring")
            base = c.total
        else:
            base = tape.roll(f"{key}.{who}", "1d20").total + s_.neighbours[who].profile.seafaring_bonus
        s_, extra = commit(who, n, f"{key}.{who}.naval")
        totals[who] = base + extra
    won = totals[side] > totals[other]
    winner = side if won else other
    w2 = get_war(s_, w.war_id)
    s_ = _put_war(s_, w2.model_copy(update={"supremacy": {**w2.supremacy, link: winner}}))
    return s_, {"link": link, "totals": totals, "winner": winner}, won


def _move(s: KingdomState, w: War, army: Army, order: Order, tape: Tape, key: str) -> tuple[KingdomState, Audit]:
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
                s, na, won = _naval_contest(s, wcur, army.owner, link, order, tape, f"{key}.sea")
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
        army = army.model_copy(update={"province_id": step})
        s = _set_army(s, army)
        here = step
        audit["path"].append(step)
        enemies = [a for a in occupants if a.owner != army.owner]
        if enemies:
            s, eng = engagement(s, w, army.army_id, enemies[0].army_id, tape, f"{key}.eng",
                                order.special_unit)
            audit["engagement"] = eng
            break
    return s, audit


def _attack(s: KingdomState, w: War, army: Army, order: Order, tape: Tape, key: str) -> tuple[KingdomState, Audit]:
    tgt = _army(s, order.target or "")
    why = _attack_problem(s, army, tgt)
    if why or tgt is None:  # legal when ordered (checked at the turn's start), overtaken by events since
        return s, {"army": army.army_id, "kind": "attack", "skipped": why or "target gone"}
    if tgt.province_id != army.province_id:
        s = _set_army(s, army.model_copy(update={"province_id": tgt.province_id}))
    s, eng = engagement(s, w, army.army_id, tgt.army_id, tape, f"{key}.eng", order.special_unit)
    return s, {"army": army.army_id, "kind": "attack", "engagement": eng}


def peace_dc(s: KingdomState, w: War, demanded: tuple[str, ...]) -> tuple[int, Audit]:
    """§3.11 (A69): 15, −5 if we field more armies, −3 per captured province, +5 per demand, + unrest modifier."""
    enemy = _enemy(s, w)
    ours, theirs = len(side_armies(s, PLAYERS)), len(side_armies(s, enemy.id))
    captured = [p.id for p in s.provinces.values() if p.owner == enemy.id and p.controller == PLAYERS]
    terms = {"start": 15, "more_armies": -5 if ours > theirs else 0, "captured": -3 * len(captured),
             "demanded": 5 * len(demanded), "unrest": R.unrest_modifier(enemy.profile.unrest)}
    return sum(terms.values()), terms


def _attack_problem(s: KingdomState, army: Army, tgt: Army | None) -> str | None:
    """Why ``army`` cannot attack ``tgt`` now (§4.5.2, A58), or None."""
    if tgt is None or tgt.owner == army.owner:
        return "no such enemy army"
    if tgt.province_id == army.province_id:
        return None
    if tgt.province_id not in s.provinces[army.province_id].adjacent:
        return f"{tgt.army_id} is not in or next to {army.province_id}"
    if any(a.owner == army.owner for a in s.armies if a.province_id == tgt.province_id):
        return f"{tgt.province_id} holds a friendly army"
    return None


def _orders_for(s: KingdomState, side: str, orders: tuple[Order, ...]) -> tuple[Order, ...]:
    """Orders are checked against the state at the start of the war turn."""
    for o in orders:
        a = _army(s, o.army_id)
        if a is None or a.owner != side:
            raise RuleError(f"{side} has no army {o.army_id!r}", rule="§4.5.2")
        if o.kind == "attack":
            why = _attack_problem(s, a, _army(s, o.target or ""))
            if why:
                raise RuleError(f"army {a.army_id} cannot attack {o.target!r}: {why}", rule="§4.5.2 (A58)")
        if o.kind == "move" and o.path:
            first = o.path[0]
            if any(x.owner == side and x.province_id == first for x in s.armies):
                raise RuleError(f"{first} already holds a friendly army", rule="§4.5.2")
    if len({o.army_id for o in orders}) != len(orders):
        raise RuleError("each army takes one order per war turn", rule="§4.5.2 (A58)")
    return orders


def war_turn(s: KingdomState, e: WarTurnResolved, tape: Tape) -> tuple[KingdomState, Audit]:
    """One war turn in initiative order; captures at its end (§4.5.2)."""
    w = get_war(s, e.war_id)
    if w.armies_assigned_year != s.year:
        raise RuleError("the war year is not set up (armies, initiative)", rule="§4.5.1")
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
            c, s = R.roll_check(s, R.CheckSpec(kind="skill", skill="diplomacy"), tape, "peace", dc=dc)
        else:
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
    by_side = {PLAYERS: _orders_for(s, PLAYERS, e.orders), enemy: _orders_for(s, enemy, e.enemy_orders)}
    if e.extra_attack is not None:
        if not R.has_feat(s, "general_staff"):
            raise RuleError("an extra attack needs General Staff", rule="§3.6 (A66)")
        if e.extra_attack.kind != "attack":
            raise RuleError("General Staff's extra is an attack", rule="A66")
        by_side[PLAYERS] = (*by_side[PLAYERS], e.extra_attack)
    for side in w.initiative_order:
        if e.war_turn > 4 and side != w.attacker:
            continue
        for i, o in enumerate(by_side.get(side, ())):
            army = _army(s, o.army_id)
            if army is None or o.kind == "hold":
                continue
            key = f"{'p' if side == PLAYERS else 'e'}{i + 1}"
            if o.kind == "move":
                s, au = _move(s, w, army, o, tape, key)
            else:
                s, au = _attack(s, w, army, o, tape, key)
            audit["actions"].append(au)
    captured = []
    provinces = dict(s.provinces)
    for p in list(s.provinces.values()):
        present = {a.owner for a in s.armies if a.province_id == p.id}
        if len(present) == 1:
            (who,) = present
            if p.controller != who and p.controller in (PLAYERS, enemy) and who in (PLAYERS, enemy):
                provinces[p.id] = p.model_copy(update={"controller": who})
                captured.append({"province": p.id, "from": p.controller, "to": who})
    s = s.model_copy(update={"provinces": provinces})
    s = _sync_militia(s, w)
    s = _put_war(s, get_war(s, w.war_id).model_copy(update={"war_turn": e.war_turn}))
    audit.update({"captured": captured, "militia": {PLAYERS: s.militia, enemy: s.neighbours[enemy].profile.militia}})
    return s, audit


def end_reason(s: KingdomState, w: War) -> tuple[str, str | None] | None:
    """Whether the war ends now (§4.5.6): (reason, winner) or None."""
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
    s = _sync_militia(s, w)
    nb = s.neighbours[enemy.id]
    s = set_neighbour(s, nb.model_copy(update={"status": "independent"}))
    s = s.model_copy(update={"armies": tuple(a for a in s.armies if a.owner not in (PLAYERS, enemy.id)),
                             "wars": tuple(x for x in s.wars if x.war_id != w.war_id)})
    return s, audit


def war_upkeep(s: KingdomState, e: WarUpkeepApplied, tape: Tape) -> tuple[KingdomState, Audit]:
    """§4.5.7, §3.12 (A70, A71): +1 Unrest (+1 more with enemies on your land); d6 attrition per item."""
    w = get_war(s, e.war_id)
    enemy = enemy_of(w)
    unrest: Audit = {}
    for side in (PLAYERS, enemy):
        invaded = any(a.owner != side and s.provinces[a.province_id].owner == side for a in s.armies
                      if a.owner in (PLAYERS, enemy) and a.province_id in s.provinces)
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
    for a in [x for x in s.armies if x.owner in (PLAYERS, enemy)]:
        prov = s.provinces.get(a.province_id)
        items = ["in_field"]
        if prov is not None and prov.controller not in (a.owner,):
            items.append("hostile")
        if any(o.owner != a.owner and o.province_id == a.province_id for o in s.armies):
            items.append("enemy_present")
        if prov is not None and prov.terrain in ("desert", "tundra"):
            items.append("desert_tundra")
        dice = [tape.roll(f"attrition.{a.army_id}.{it}", "1d6").total for it in items]
        red = (religion + e.technology_reduction) if a.owner == PLAYERS else 0
        dmg = max(0, sum(dice) - red)
        s = _set_army(s, a.model_copy(update={"militia": max(0, a.militia - dmg)}))
        attrition.append({"army": a.army_id, "items": items, "dice": dice, "reduction": red, "damage": dmg})
    s = _sync_militia(s, w)
    return s, {"unrest": unrest, "attrition": attrition}


# --- default orders (a playable year without choices) --------------------------------------------


def default_orders(s: KingdomState, w: War, side: str) -> tuple[Order, ...]:
    """Attack an enemy army in or next to the province, else march along a shortest land path."""
    enemy = enemy_of(w) if side == PLAYERS else PLAYERS
    out = []
    for a in side_armies(s, side):
        prov = s.provinces.get(a.province_id)
        if prov is None:
            continue
        near = [x for x in s.armies
                if x.owner == enemy and (x.province_id == a.province_id or x.province_id in prov.adjacent)]
        near = [x for x in near if x.province_id == a.province_id or
                not any(f.owner == side for f in s.armies if f.province_id == x.province_id)]
        if near:
            out.append(Order(army_id=a.army_id, kind="attack", target=min(near, key=lambda x: x.militia).army_id))
            continue
        path = _path_to_enemy(s, a, side, enemy)
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


def _path_to_enemy(s: KingdomState, army: Army, side: str, enemy: str) -> list[str]:
    targets = {p.id for p in s.provinces.values() if p.controller == enemy} | {
        x.province_id for x in s.armies if x.owner == enemy}
    blocked = {x.province_id for x in s.armies if x.owner == side and x.army_id != army.army_id}
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
