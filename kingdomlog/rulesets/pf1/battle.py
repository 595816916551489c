"""Mass combat (Ultimate Campaign, Kingdoms and War → Mass Combat): armies, commanders, resources, upkeep, battles.

Armies are raised in the Edict (Improvement) phase, each in place of a new settlement (UC Improvement
Edicts note 1); they cost Consumption every week (a reserve army once a month); a routed army fights again
after a successful Loyalty check at Upkeep. A battle is fought phase by phase (Tactics, Ranged, then Melee
rounds until an army is defeated, routs or withdraws): every die is rolled under its own key and each
phase is recorded as ``pf1.battle_phase_resolved`` with both armies' numbers, rolls and hit points; the
aftermath is ``pf1.battle_ended``. ``evolve`` applies what was recorded. Refusals name the rule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from kingdomlog.core.errors import InputError
from kingdomlog.core.ruleset import Breakdown
from kingdomlog.dice.checks import CheckSpec
from kingdomlog.rulesets.pf1 import choices as ch
from kingdomlog.rulesets.pf1 import derive as dv
from kingdomlog.rulesets.pf1 import events as ev
from kingdomlog.rulesets.pf1.helpers import Ctx, control_check, faces, new_id
from kingdomlog.rulesets.pf1.rules import (
    army_acr,
    army_base,
    army_hp,
    commander_bonus,
    cr_value,
    max_boons,
    offense_damage,
    resource_cost,
    tactics_known_max,
)
from kingdomlog.rulesets.pf1.state import Army, Commander, Pf1State
from kingdomlog.rulesets.pf1.tables import MassCombat

R_ARMY = "UC Mass Combat: Army Statistics"
R_TACTICS = "UC Mass Combat: Army Tactics"
R_COMMANDER = "UC Mass Combat: Commanders"
R_RESOURCES = "UC Mass Combat: Army Resources"
R_BATTLE = "UC Mass Combat: Battle Phases"
R_LIMIT = "UC Improvement Edicts note 1 (an army in place of a new settlement)"
STRATEGIES = ("Defensive", "Cautious", "Standard", "Aggressive", "Reckless")
RESERVE = {"Watchtower": "Small", "Barracks": "Medium", "Castle": "Large", "Garrison": "Huge"}
"""UC Reserve Army: the largest army each building holds."""
SIZES = ("Fine", "Diminutive", "Tiny", "Small", "Medium", "Large", "Huge", "Gargantuan", "Colossal")


def mc(s: Pf1State) -> MassCombat:
    return s.catalog.mass_combat


def acr_int(a: Army) -> int:
    return math.floor(cr_value(a.acr))


def kinds(s: Pf1State, a: Army) -> set[str]:
    """The engine's kinds of an army's special abilities (bleed, fear, undead, …)."""
    out = set()
    for name in a.specials:
        sp = mc(s).specials.get(name)
        if sp is not None and sp.kind:
            out.add(sp.kind)
    return out


def ranged(s: Pf1State, a: Army) -> bool:
    return a.ranged or any((sp := mc(s).specials.get(n)) is not None and sp.ranged for n in a.specials)


# ------------------------------------------------------------------ commanders


def commander(ctx: Ctx, c: ch.CommanderEntry, army: Army | None = None) -> Commander:
    """A commander checked against UC Commanders: boons within Leadership and the number known; a kingdom leader
    commanding in person knows one boon of the role's list (Kingdom Leader Commanders)."""
    s = ctx.state
    lead = c.level + c.cha + (3 if c.leadership_feat else 0)
    leader = c.role is not None
    if leader and not any(o.name == c.name for o in s.leaders.get(str(c.role), ())):
        raise ctx.fail(f"{c.name} does not hold the {c.role} role", R_COMMANDER)
    boons = list(c.boons)
    role_boons = mc(s).role_boons.get(str(c.role), ()) if leader else ()
    if leader and role_boons and not set(boons) & set(role_boons):
        boons.insert(0, role_boons[0])  # a kingdom leader automatically knows a boon of the role
    cap = max_boons(c.ranks, c.level, leader)
    if len(boons) > cap:
        raise ctx.fail(f"{c.name} may know {cap} boon(s) (1 + 1 per 5 ranks of Profession (soldier)), not "
                       f"{len(boons)}", R_COMMANDER)
    for b in boons:
        bd = mc(s).boons.get(b)
        if bd is None:
            raise InputError(f"[{ctx.step}] unknown boon {b!r}")
        if lead < bd.min_leadership and b not in role_boons:
            raise ctx.fail(f"{b} needs Leadership {bd.min_leadership}; {c.name} has {lead}", R_COMMANDER)
    if c.bonus_tactics and len(c.bonus_tactics) > boons.count("Bonus Tactic"):
        raise ctx.fail("each bonus tactic needs a Bonus Tactic boon", R_COMMANDER)
    return Commander(name=c.name, cha=c.cha, ranks=c.ranks, level=c.level, leadership=lead, boons=tuple(boons),
                     bonus_tactics=tuple(c.bonus_tactics), role=c.role)


# ------------------------------------------------------------------ raising and ordering armies


def build_army(ctx: Ctx, e: ch.ArmyEntry, aid: str, side: str) -> Army:
    """An army's statistics from its units (UC Army Statistics): ACR by size, hp, OM, DV, Consumption."""
    s = ctx.state
    size = mc(s).sizes[e.size]
    acr = army_acr(e.unit_cr, size.steps)
    if acr is None:
        raise ctx.fail(f"{e.size} army of CR {e.unit_cr} units is below ACR 1/8: not an army (add troops)", R_ARMY)
    om, dv_, cons = army_base(acr)
    rng = e.ranged
    for n in e.specials:
        sp = mc(s).specials.get(n)
        if sp is None:
            raise InputError(f"[{ctx.step}] unknown army special ability {n!r}")
        om, dv_, rng = om + sp.om, dv_ + sp.dv, rng or sp.ranged
    om, dv_ = om + e.om_bonus, dv_ + e.dv_bonus
    hp = army_hp(acr, e.hd)
    army = Army(id=aid, name=e.name, side=side, size=e.size, unit=e.unit, unit_cr=e.unit_cr, hd=e.hd, acr=acr,
                hp=hp, max_hp=hp, om=om, dv=dv_, consumption=cons, speed=e.speed, ranged=rng,
                tactics=tuple(e.tactics), specials=tuple(e.specials), hex=e.hex)
    extra = 1 if side == "kingdom" and dv.has_building(s, "Military Academy") else 0
    known = [t for t in e.tactics if not mc(s).tactics[t].default]
    if len(known) > tactics_known_max(acr) + extra:
        raise ctx.fail(f"an ACR {acr} army knows {tactics_known_max(acr) + extra} tactic(s) (half its ACR"
                       f"{', +1 for a Military Academy' if extra else ''}), not {len(known)}", R_TACTICS)
    for t in e.tactics:
        tactic_usable(ctx, army, t, learned=True)
    if e.commander is not None:
        army = army.model_copy(update={"commander": commander(ctx, e.commander, army)})
    ctx.explain(Breakdown(f"{e.name} (ACR {acr})", hp, note=f"{e.size} ({size.units} units) of CR {e.unit_cr}: hp "
                          f"{hp} (ACR × d{e.hd} average), OM {om:+d}, DV {dv_}, Consumption {cons}/week"))
    return army


def recruit(ctx: Ctx, e: ch.ArmyEntry, limit: int) -> None:
    """Edict step 6: raise an army in place of a new settlement this month (UC Improvement Edicts note 1)."""
    s = ctx.state
    if limit >= 0 and s.counters.districts >= limit:
        raise ctx.fail(f"the month's {limit} new settlement(s)/army action(s) for Size {dv.size(s)} are used up",
                       R_LIMIT)
    aid = new_id(ctx, "A")
    ctx.emit(ev.ArmyRecruited(army=build_army(ctx, e, aid, "kingdom")))


def place_enemy(ctx: Ctx, e: ch.ArmyEntry) -> None:
    """The GM puts an army of another power on the map (no limit, no cost for us)."""
    aid = new_id(ctx, "A")
    ctx.emit(ev.ArmyRecruited(army=build_army(ctx, e, aid, e.side or "enemy"), counts_against_limit=False))


def our_army(ctx: Ctx, aid: str) -> Army:
    a = ctx.state.armies.get(aid)
    if a is None or a.side != "kingdom":
        raise InputError(f"[{ctx.step}] {aid!r} is not an army of the kingdom")
    if a.status in ("defeated", "disbanded"):
        raise ctx.fail(f"{a.name} is {a.status}", R_ARMY)
    return a


def army_action(ctx: Ctx, x: ch.ArmyActionEntry, limit: int) -> None:
    s = ctx.state
    a = our_army(ctx, x.army)
    size = mc(s).sizes[a.size]

    def use_limit() -> None:
        if limit >= 0 and ctx.state.counters.districts >= limit:
            raise ctx.fail(f"the month's {limit} new settlement(s)/army action(s) are used up", R_LIMIT)

    if x.action == "equip":
        r = mc(s).resources.get(x.resource or "")
        if r is None:
            raise InputError(f"[{ctx.step}] equip needs a resource; known: {', '.join(mc(s).resources)}")
        if r.requires_any and not any(dv.has_building(s, b) for b in r.requires_any):
            raise ctx.fail(f"{r.name} needs a settlement with one of {', '.join(r.requires_any)}", R_RESOURCES)
        pairs = {"Improved Armor": "Magic Armor", "Magic Armor": "Improved Armor",
                 "Improved Weapons": "Magic Weapons", "Magic Weapons": "Improved Weapons"}
        if (r.name in a.resources and not r.per_engine) or pairs.get(r.name) in a.resources:
            raise ctx.fail(f"{a.name} already has {r.name if r.name in a.resources else pairs[r.name]}", R_RESOURCES)
        if "mindless" in kinds(s, a) and r.name == "Siege Engines":
            raise ctx.fail("mindless creatures cannot use siege engines", R_RESOURCES)
        use_limit()
        n = x.count if r.per_engine else 1
        base = x.mount_acr if r.cost_is_mount_acr else r.cost
        cost = resource_cost(base, size.mult, per_engine=r.per_engine, count=n)
        cons = r.consumption * n if r.per_engine else resource_cost(r.consumption, size.mult)
        om = r.om if not (r.per_engine and r.name in a.resources) else 0
        if cost > s.treasury and not s.opt("spending_below_zero_allowed"):
            raise ctx.fail(f"{r.name} costs {cost} BP; the treasury holds {s.treasury}", "base §4.0")
        ctx.explain(Breakdown(f"{r.name} for {a.name}", cost, note=f"{base} BP × {size.mult[0]}/{size.mult[1]} "
                              f"({a.size}); Consumption +{cons}/week"))
        ctx.emit(ev.ArmyEquipped(army=a.id, resource=r.name, count=n, cost_bp=cost, om_delta=om, dv_delta=r.dv,
                                 consumption_delta=cons, ranged=r.ranged))
    elif x.action == "full_strength":
        use_limit()
        ctx.emit(ev.ArmyChanged(army=a.id, reason="brought back to full strength (UC Improvement Edicts note 1)",
                                hp=a.max_hp, counts_against_limit=True))
    elif x.action == "reserve":
        h = s.hexes.get(a.hex or "")
        city = s.cities.get(h.city) if h is not None and h.city else None
        if city is None:
            raise ctx.fail(f"{a.name} must be in one of our settlements to be put in reserve", "UC Reserve Army")
        holds = [SIZES.index(RESERVE[t]) for t in RESERVE if any(dv.btype(s, b).name == t for b in dv.live_buildings(s)
                                                                  if b.city == city.id)]
        if not holds or max(holds) < SIZES.index(a.size):
            raise ctx.fail(f"{city.name} has no building to hold a {a.size} reserve army (Watchtower: Small, "
                           "Barracks: Medium, Castle: Large, Garrison: Huge)", "UC Reserve Army")
        ctx.emit(ev.ArmyChanged(army=a.id, reason="put in reserve", reserve=True))
    elif x.action == "activate":
        ctx.emit(ev.ArmyChanged(army=a.id, reason="deployed", reserve=False))
    elif x.action == "move":
        if x.hex is None:
            raise InputError(f"[{ctx.step}] move needs a hex")
        ctx.emit(ev.ArmyChanged(army=a.id, reason="moved", hex=x.hex, reserve=False))
    elif x.action == "disband":
        ctx.emit(ev.ArmyChanged(army=a.id, reason=x.reason or "disbanded", status="disbanded"))
    elif x.action == "commander":
        ctx.emit(ev.ArmyCommanderAssigned(army=a.id, commander=commander(ctx, x.commander, a) if x.commander
                                          else None))
    elif x.action in ("reform", "split", "combine"):
        reorganize(ctx, a, x)
    else:
        ctx.emit(ev.ArmyChanged(army=a.id, reason=x.reason or "GM ruling", morale_delta=x.morale))
    desertion(ctx)


def resized(s: Pf1State, a: Army, size: str, hp_share: Fraction, morale_delta: int, aid: str, name: str) -> Army:
    """``a`` at another size: ACR, hp, OM, DV, Consumption recomputed; what its resources, abilities and the GM
    added to OM and DV stays, its resources' Consumption scales with the size (UC Sample Armies note)."""
    acr = army_acr(a.unit_cr, mc(s).sizes[size].steps)
    if acr is None:
        raise InputError(f"a {size} army of CR {a.unit_cr} units is below ACR 1/8")
    om0, dv0, c0 = army_base(a.acr)
    om1, dv1, c1 = army_base(acr)
    m0, m1 = mc(s).sizes[a.size].mult, mc(s).sizes[size].mult
    extra = a.consumption - c0
    scaled = 0 if extra <= 0 else max(1, extra * m1[0] * m0[1] // (m1[1] * m0[0]))
    hp = army_hp(acr, a.hd)
    return a.model_copy(update={"id": aid, "name": name, "size": size, "acr": acr, "max_hp": hp,
                                "hp": max(1, math.floor(hp * hp_share)), "om": om1 + a.om - om0,
                                "dv": dv1 + a.dv - dv0, "consumption": c1 + scaled,
                                "morale": a.morale + morale_delta})


def reorganize(ctx: Ctx, a: Army, x: ch.ArmyActionEntry) -> None:
    """UC optional rules: Reforming (half hp or fewer → one size smaller at full hp, Morale −1), Splitting (two
    armies one size smaller, the same share of hp, Morale −1 each; the new one has an unexceptional commander),
    Combining (two armies of the same units and size → one size larger, the hp shares and Morales averaged)."""
    s = ctx.state
    rule = "UC Optional Mass Combat Rules"
    i = SIZES.index(a.size)
    if x.action in ("reform", "split"):
        if i == 0:
            raise ctx.fail(f"{a.name} is Fine: it cannot get smaller", rule)
        smaller = SIZES[i - 1]
        if x.action == "reform":
            if a.hp * 2 > a.max_hp:
                raise ctx.fail(f"only an army at half its hit points or fewer reforms ({a.hp}/{a.max_hp})", rule)
            new = resized(s, a, smaller, Fraction(1), -1, a.id, a.name)
            ctx.emit(ev.ArmyReorganized(kind="reform", removed=(a.id,), armies=(new,)))
            return
        share = Fraction(a.hp, a.max_hp)
        one = resized(s, a, smaller, share, -1, a.id, a.name)
        bid = new_id(ctx, "A")
        two = resized(s, a, smaller, share, -1, bid, x.name or f"{a.name} (2)").model_copy(update={
            "commander": Commander(name=f"{x.name or a.name} captain", level=1)})
        ctx.emit(ev.ArmyReorganized(kind="split", removed=(a.id,), armies=(one, two)))
        return
    b = our_army(ctx, str(x.other or ""))
    if b.id == a.id or (b.unit, b.unit_cr, b.hd, b.size) != (a.unit, a.unit_cr, a.hd, a.size):
        raise ctx.fail("only two armies of the same units and the same size combine", rule)
    if i == len(SIZES) - 1:
        raise ctx.fail(f"{a.name} is Colossal: it cannot get larger", rule)
    if (a.resources, a.om, a.dv, a.consumption) != (b.resources, b.om, b.dv, b.consumption):
        raise ctx.fail("these armies are equipped differently: what only one has would be lost, and this log "
                       "records only their totals; move or sell resources first", rule)
    share = (Fraction(a.hp, a.max_hp) + Fraction(b.hp, b.max_hp)) / 2
    new = resized(s, a, SIZES[i + 1], share, 0, a.id, a.name)
    keep = {k: n for k, n in a.resources.items() if k in b.resources}
    new = new.model_copy(update={"morale": (a.morale + b.morale) // 2, "resources": keep,
                                 "tactics": tuple(t for t in a.tactics if t in b.tactics),
                                 "specials": tuple(t for t in a.specials if t in b.specials)})
    ctx.emit(ev.ArmyReorganized(kind="combine", removed=(a.id, b.id), armies=(new,)))


def desertion(ctx: Ctx) -> None:
    """An army whose Morale falls to −5 or lower disbands (UC Army Statistics: Morale)."""
    for a in list(ctx.state.armies.values()):
        if a.side == "kingdom" and a.status not in ("defeated", "disbanded") and a.morale <= -5:
            ctx.emit(ev.ArmyChanged(army=a.id, reason="Morale −5 or lower: the army disbands", status="disbanded"))


# ------------------------------------------------------------------ upkeep


def upkeep(ctx: Ctx, forage: list[str] | None = None) -> None:
    """Armies' Consumption (per week × option army_weeks_per_turn; a reserve army once a month): unpaid, Morale −2
    until paid again. Then each routed army may rally with a Loyalty check (once a turn), and an army that has
    not fought since last month is back to full hit points (UC Recovery: a month at rest heals it fully)."""
    s = ctx.state
    mine = [a for a in s.armies.values() if a.side == "kingdom" and a.status in ("active", "routed")]
    if not mine:
        return
    weeks = int(s.opt("army_weeks_per_turn"))
    foraging = tuple(forage or ())
    for aid in foraging:
        a = our_army(ctx, aid)
        if a.commander is None or "Live off the Land" not in a.commander.boons:
            raise ctx.fail(f"{a.name}'s commander does not know Live off the Land", "UC Boons: Live off the Land")
    per = {a.id: a.consumption * (1 if a.reserve else weeks) // (2 if a.id in foraging else 1) for a in mine}
    total = sum(per.values())
    paid = total <= s.treasury or bool(s.opt("spending_below_zero_allowed"))
    ctx.explain(Breakdown("Army Consumption", total, note=", ".join(f"{s.armies[k].name} {v}" for k, v in per.items())
                          + f" ({weeks} weeks a month; reserve armies once)"))
    ctx.emit(ev.ArmyUpkeepPaid(per_army=per, weeks=weeks, total=total, paid=paid, foraging=foraging))
    for a in mine:
        if not paid and not a.unpaid:
            ctx.emit(ev.ArmyChanged(army=a.id, reason="Consumption unpaid: Morale −2", morale_delta=-2, unpaid=True))
        elif paid and a.unpaid:
            ctx.emit(ev.ArmyChanged(army=a.id, reason="pay caught up: the −2 ends", morale_delta=2, unpaid=False))
    for a in mine:
        if a.status == "routed":
            ctx.emit(ev.ArmyRallyCheckRolled(army=a.id, check=control_check(ctx, f"rally_{a.id}", "LOYALTY")))
    for a in mine:  # UC Recovery: an army a month at rest heals back to its full hit points
        if a.hp < a.max_hp and (a.last_battle is None or a.last_battle < s.turn):
            ctx.emit(ev.ArmyChanged(army=a.id, reason="a month at rest: full hit points (UC Recovery)",
                                    hp=a.max_hp))
    desertion(ctx)


# ------------------------------------------------------------------ battles


def tactic_usable(ctx: Ctx, a: Army, tactic: str, *, learned: bool = False) -> None:
    s = ctx.state
    t = mc(s).tactics.get(tactic)
    if t is None:
        raise InputError(f"[{ctx.step}] unknown tactic {tactic!r}")
    cmd = a.commander
    if not (learned or t.default or tactic in a.tactics or (cmd is not None and tactic in cmd.bonus_tactics)):
        raise ctx.fail(f"{a.name} does not know {tactic} (known: {', '.join(a.tactics) or 'the default ones'})",
                       R_TACTICS)
    if "mindless" in kinds(s, a) and tactic != "Standard":
        raise ctx.fail(f"{a.name} is mindless: standard tactics only", "UC Special Abilities: Mindless")
    if t.requires == "ranged" and not ranged(s, a):
        raise ctx.fail(f"{tactic} needs ranged attacks", R_TACTICS)
    if t.requires and t.requires != "ranged" and t.requires not in a.resources and "Mount" not in a.specials:
        raise ctx.fail(f"{tactic} needs the {t.requires} resource", R_TACTICS)


@dataclass
class Fighter:
    """One army's running numbers during a battle (the decide-time scratch state; facts go to the events)."""

    army: Army
    side: str
    hp: int
    tactic: str
    strategy: str = "Standard"
    status: str = "fighting"
    no_attack: bool = False
    afraid: bool = False
    false_retreat: int = 0
    bleed: bool = False
    paralysed: int = 0
    potions: int = 0
    taunt_immune: int = 0
    taunted: bool = False
    fort: int = 0
    cond_om: int = 0
    cond_dv: int = 0
    ranged_om: int = 0
    notes: list[str] = field(default_factory=list)
    label: str = ""
    """The key its dice are rolled under: ``ours`` / ``enemy`` for the lead armies, the army id for others."""


def _boon(f: Fighter, name: str) -> bool:
    return f.army.commander is not None and name in f.army.commander.boons


def _boon_value(s: Pf1State, f: Fighter, name: str, field_: str) -> int:
    if not _boon(f, name):
        return 0
    b = mc(s).boons[name]
    v = int(getattr(b, field_))
    lead = f.army.commander.leadership if f.army.commander else 0
    return v * 2 if b.improves_at is not None and lead >= b.improves_at else v


def morale_mod(s: Pf1State, f: Fighter) -> int:
    """d20 + the army's Morale + its commander's Charisma and Profession (soldier) bonus (+ the Loyalty boon, the
    cautious combat tactic)."""
    cmd = f.army.commander
    mod = f.army.morale + (cmd.cha + commander_bonus(cmd.ranks, cmd.level, cmd.role is not None) if cmd else 0)
    return mod + _boon_value(s, f, "Loyalty", "morale") + mc(s).tactics[f.tactic].morale


def morale(ctx: Ctx, key: str, f: Fighter, dc: int, purpose: str, extra: int = 0) -> ev.MoraleCheck:
    s = ctx.state
    mod = morale_mod(s, f) + extra
    spec = CheckSpec("d20", modifier=mod, dc=dc, label=f"{f.army.name} Morale ({purpose})", nat1_fails=False,
                     nat20_succeeds=False)
    d = ctx.roll(key, "1d20", check=spec).faces[0]
    ok = d + mod >= dc or "mindless" in kinds(s, f.army)
    return ev.MoraleCheck(purpose=purpose, d20=d, modifier=mod, dc=dc, success=ok)


def om_dv(s: Pf1State, f: Fighter, phase: str, melee_round: int, other: Fighter) -> tuple[int, int]:
    """The OM and DV of ``f`` this phase: recorded army numbers + tactic + strategy + conditions + boons."""
    t = mc(s).tactics[f.tactic]
    st = mc(s).strategies[f.strategy] if phase == "melee" else None
    om, d = f.army.om, f.army.dv
    once_off = t.once and not (t.special == "first_melee" and phase == "melee" and melee_round == 1)
    if not once_off and t.special not in ("false_retreat", "taunt", "vs_spellcasting", "vs_unmounted"):
        om, d = om + t.om, d + t.dv
    if t.special == "vs_spellcasting" and "spellcasting" in kinds(s, other.army):
        d += t.dv
    if t.special == "vs_unmounted" and "Mounts" not in other.army.resources and "Mount" not in other.army.specials:
        om += t.om
    if f.false_retreat == 2:
        om, d = om + 6, d + 6
    if st is not None:
        om, d = om + st.om, d + st.dv
    om += f.cond_om + (f.ranged_om if phase == "ranged" else 0)
    d += f.cond_dv + f.fort - f.paralysed
    d += _boon_value(s, f, "Defensive Tactics", "dv")
    if f.hp * 2 <= f.army.max_hp:
        om += _boon_value(s, f, "Bloodied but Unbroken", "om")
    if f.taunted:
        om, d = om - 2, d - 2
    if "flurry" in kinds(s, f.army) and phase == "melee":
        om += 1 if melee_round == 1 else 2
    return om, d


def strike(ctx: Ctx, key: str, f: Fighter, target: Fighter, om: int, dv_: int, phase: str,
           half: bool) -> ev.Offense:
    """One Offense check: d20 + OM vs DV; damage = the excess (+ strategy, tactic and ability damage)."""
    s = ctx.state
    # an Offense check "succeeds" when it deals damage: above the DV, or a natural 20 (UC Attacking)
    spec = CheckSpec("d20", modifier=om, dc=dv_ + 1, label=f"{f.army.name} Offense vs {target.army.name}",
                     nat1_fails=False, nat20_succeeds=True)
    d = ctx.roll(key, "1d20", check=spec).faces[0]
    total = d + om
    dmg = offense_damage(d, total, dv_)
    extra: tuple[int, ...] = ()
    if dmg > 0:
        if phase == "melee":
            dmg += mc(s).strategies[f.strategy].damage + mc(s).tactics[f.tactic].damage
            dmg += sum(mc(s).specials[n].damage for n in f.army.specials if n in mc(s).specials)
        k = kinds(s, f.army)
        if "breath" in k:
            extra = tuple(faces(ctx, f"{key}_breath", "1d4"))
            dmg += sum(extra)
        if "rock_throwing" in k and phase == "ranged":
            dmg += 4
        dmg = max(1 if total > dv_ or d == 20 else 0, dmg)
        if half:
            dmg = max(1, dmg // 2)
    if d == 1:
        f.no_attack = True
    return ev.Offense(d20=d, om=om, total=total, target_dv=dv_, damage=dmg, extra_dice=extra)


def _rout(ctx: Ctx, key: str, f: Fighter, checks: dict[str, list[ev.MoraleCheck]]) -> None:
    """hp at or below the ACR: a DC 15 Morale check or the army routs (Hold the Line rerolls once)."""
    s = ctx.state
    if f.status != "fighting" or f.hp <= 0 or f.hp > max(0, acr_int(f.army)):
        return
    if "no_rout" in kinds(s, f.army):
        f.notes.append("aura of courage: no rout")
        return
    c = morale(ctx, key, f, 15, "rout")
    checks[f.label].append(c)
    if not c.success and _boon(f, "Hold the Line"):
        c = morale(ctx, f"{key}_reroll", f, 15, "rout (Hold the Line reroll)")
        checks[f.label].append(c)
    if not c.success:
        f.status = "routed"


def _opponents(f: Fighter, fighters: list[Fighter]) -> list[Fighter]:
    return [x for x in fighters if x.side != f.side]


def _target(f: Fighter, fighters: list[Fighter]) -> Fighter | None:
    """The army ``f`` attacks: the first enemy still fighting, in the order the battle lists them (UC More Than Two
    Armies: you choose each phase; here the lead army first, then the others)."""
    return next((x for x in _opponents(f, fighters) if x.status == "fighting"), None)


def _side_fighting(side: str, fighters: list[Fighter]) -> bool:
    return any(f.side == side and f.status == "fighting" for f in fighters)


def battle(ctx: Ctx, b: ch.BattleEntry, n: int) -> None:
    """Fight one battle phase by phase and record each phase and the aftermath (UC Battle Phases; with allies or
    more enemies, UC More Than Two Armies)."""
    s = ctx.state
    ours_ids = [b.ours, *b.allies]
    foe_ids = [b.enemy, *b.enemies]
    if len(set(ours_ids + foe_ids)) != len(ours_ids) + len(foe_ids):
        raise InputError(f"[{ctx.step}] an army fights once in a battle")
    mine: list[Army] = []
    for aid in ours_ids:
        a = our_army(ctx, aid)
        if a.status == "routed":
            raise ctx.fail(f"{a.name} is routed and refuses to fight until a Loyalty check at Upkeep rallies it",
                           "UC Victory, Rout, or Defeat: Routed")
        mine.append(a)
    theirs: list[Army] = []
    for aid in foe_ids:
        foe = s.armies.get(aid)
        if foe is None or foe.side == "kingdom":
            raise InputError(f"[{ctx.step}] battle enemy {aid!r} is not an army of another power")
        if foe.status in ("defeated", "disbanded"):
            raise ctx.fail(f"{foe.name} is {foe.status}", R_BATTLE)
        theirs.append(foe)
    tactic_usable(ctx, mine[0], b.ours_tactic)
    tactic_usable(ctx, theirs[0], b.enemy_tactic)
    bid = f"W{s.battles + 1}"
    us = Fighter(mine[0], "ours", mine[0].hp, b.ours_tactic, label="ours")
    them = Fighter(theirs[0], "enemy", theirs[0].hp, b.enemy_tactic, label="enemy")
    fighters = [us, them, *(Fighter(a, "ours", a.hp, "Standard", label=a.id) for a in mine[1:]),
                *(Fighter(a, "enemy", a.hp, "Standard", label=a.id) for a in theirs[1:])]
    half = False
    for cond in b.conditions:
        cd = mc(s).conditions.get(cond.name)
        if cd is None:
            raise InputError(f"[{ctx.step}] unknown battlefield condition {cond.name!r}")
        for f in fighters:
            if not (cd.all or cond.side in ("both", f.side)):
                continue
            k = kinds(s, f.army)
            if (cd.name == "Darkness" and "darkvision" in k) or (cd.name == "Dim Light"
                                                                  and k & {"darkvision", "lowlight"}):
                continue
            f.cond_om += cd.om
            f.cond_dv += cd.dv
            f.ranged_om += cd.ranged_om
            if cd.fortification:
                f.fort = b.fortification if b.fortification is not None else fortification(s, b.hex, f)
        half = half or cd.half_damage
    ctx.explain(Breakdown(f"Battle {bid}: {' + '.join(a.name for a in mine)} vs {' + '.join(a.name for a in theirs)}",
                          us.hp, note="; ".join(f"{f.army.name} hp {f.hp}, OM {f.army.om:+d}, DV {f.army.dv}"
                                                for f in fighters) + f"; tactics {b.ours_tactic} / {b.enemy_tactic}"))
    index = 0
    key = f"w{n}"
    # 1 Tactics phase: an ambush (the lead army ambushes the other side's lead)
    if b.ambush != "none":
        amb, tgt = (us, them) if b.ambush == "ours" else (them, us)
        aom, adv = om_dv(s, amb, "tactics", 0, tgt)
        tom, tdv = om_dv(s, tgt, "tactics", 0, amb)
        off = strike(ctx, f"{key}_ambush", amb, tgt, aom, tdv, "tactics", False).model_copy(update={"damage": 0})
        amb.no_attack = False
        if off.total >= tdv:
            tgt.tactic = "Standard"
            tgt.notes.append("ambushed: no tactic this battle")
        _emit(ctx, bid, index, "tactics", [(amb, aom, adv, off, [], amb.hp), (tgt, tom, tdv, None, [], tgt.hp)])
        index += 1
    # 2 Ranged phase
    if any(ranged(s, f.army) for f in fighters):
        index = _round(ctx, bid, index, key, "ranged", 0, fighters, None, half)
    # 3 Melee phases
    last: ch.RoundEntry | None = None
    for r in range(1, b.max_rounds + 1):
        if not (_side_fighting("ours", fighters) and _side_fighting("enemy", fighters)):
            break
        orders = b.rounds[min(r - 1, len(b.rounds) - 1)] if b.rounds else None
        index = _round(ctx, bid, index, key, "melee", r, fighters, orders or last, half)
        last = orders or last
    # parting shots at a routed army (UC Rout: every army in the battle may take one)
    for f in fighters:
        shooters = [x for x in _opponents(f, fighters) if x.status == "fighting"]
        if f.status != "routed" or not shooters:
            continue
        hp0 = f.hp
        rows: list[tuple[Fighter, int, int, ev.Offense | None, list[ev.MoraleCheck], int]] = []
        fom, fdv = om_dv(s, f, "melee", 99, shooters[0])
        for i, sh in enumerate(shooters):
            oom, odv = om_dv(s, sh, "melee", 99, f)
            oom += _boon_value(s, sh, "Merciless", "withdraw")
            off = strike(ctx, f"{key}_parting" + (f"_{sh.label}" if i else ""), sh, f, oom, fdv, "parting", half)
            f.hp = max(0, f.hp - off.damage)
            rows.append((sh, oom, odv, off, [], sh.hp))
        _emit(ctx, bid, index, "parting_shot", [*rows, (f, fom, fdv, None, [], hp0)])
        index += 1
    aftermath(ctx, b, bid, n, fighters)


def fortification(s: Pf1State, hex_id: str | None, f: Fighter) -> int:
    """A fortification's Defense: the settlement's Defense in the battle's hex, else 8 (UC Fortifications)."""
    h = s.hexes.get(hex_id or "")
    if h is not None and h.city and h.city in s.cities:
        return dv.defense(s, s.cities[h.city])
    return 8


def _emit(ctx: Ctx, bid: str, index: int, kind: str,
          rows: list[tuple[Fighter, int, int, ev.Offense | None, list[ev.MoraleCheck], int]]) -> None:
    sides = tuple(ev.PhaseSide(army=f.army.id, tactic=f.tactic, strategy=None, om=om, dv=d, offense=off,
                               morale_checks=tuple(mcs), hp_before=hp0, hp_after=max(0, f.hp),
                               status=f.status if f.hp > 0 else "defeated",
                               notes=tuple(f.notes))
                  for f, om, d, off, mcs, hp0 in rows)
    for f, *_ in rows:
        f.notes.clear()
    ctx.emit(ev.BattlePhaseResolved(battle=bid, index=index, kind=kind, sides=sides))


def _round(ctx: Ctx, bid: str, index: int, key: str, phase: str, r: int, fighters: list[Fighter],
           orders: ch.RoundEntry | None, half: bool) -> int:
    """One Ranged or Melee phase, every army at once; returns the next phase index."""
    s = ctx.state
    k = f"{key}_{'ranged' if phase == 'ranged' else f'r{r}'}"
    many = len(fighters) > 2
    checks: dict[str, list[ev.MoraleCheck]] = {f.label: [] for f in fighters}
    before = {f.label: f.hp for f in fighters}
    active = [f for f in fighters if f.status == "fighting"]
    for f in active:  # bleed from the last phase
        if f.bleed:
            bd = faces(ctx, f"{k}_{f.label}_bleed", "1d6")[0]
            f.hp -= bd
            f.notes.append(f"bleed {bd}")
            f.bleed = False
    targets = {f.label: _target(f, fighters) for f in active}
    potions: dict[str, bool] = {}
    for f in active:  # orders: tactic (DC 15), strategy (more than one step: DC 20), taunt, potions
        who = "ours" if f.side == "ours" else "enemy"
        want_t = getattr(orders, f"{who}_tactic", None) if orders else None
        want_s = getattr(orders, f"{who}_strategy", None) if orders else None
        potions[f.label] = bool(getattr(orders, f"{who}_potions", False)) if orders else False
        if want_t and want_t != f.tactic:
            tactic_usable(ctx, f.army, want_t)
            if want_t == "Withdraw":
                f.tactic = want_t
            else:
                c = morale(ctx, f"{k}_{f.label}_tactic", f, 15, f"change tactic to {want_t}",
                           _boon_value(s, f, "Flexible Tactics", "change_tactics"))
                checks[f.label].append(c)
                if c.success:
                    f.tactic = want_t
        if phase == "melee" and want_s and want_s != f.strategy:
            if "mindless" in kinds(s, f.army) and want_s != "Standard":
                raise ctx.fail(f"{f.army.name} is mindless: standard strategy only", "UC Special Abilities: Mindless")
            steps = abs(STRATEGIES.index(want_s) - STRATEGIES.index(f.strategy))
            if r == 1 or steps == 1:
                f.strategy = want_s
            else:
                c = morale(ctx, f"{k}_{f.label}_strategy", f, 20, f"strategy {f.strategy} → {want_s}")
                checks[f.label].append(c)
                if c.success:
                    f.strategy = want_s
        other = targets[f.label]
        if other is not None and mc(s).tactics[f.tactic].special == "taunt" and other.taunt_immune < 2:
            c = morale(ctx, f"{k}_{f.label}_taunt", other, 10 + acr_int(f.army), "resist taunt")
            checks[other.label].append(c)
            other.taunted = not c.success
            other.taunt_immune += 1 if c.success else 0
    offs: dict[str, ev.Offense | None] = {}
    nums: dict[str, tuple[int, int]] = {}
    for f in fighters:
        t_ = targets.get(f.label) or _target(f, fighters) or f
        nums[f.label] = om_dv(s, f, phase, r, t_)
    withdrew: list[Fighter] = []
    for f in active:
        other = targets[f.label]
        t = mc(s).tactics[f.tactic]
        if other is None:
            offs[f.label] = None
            continue
        if t.special == "withdraw" and phase == "melee":
            c1 = morale(ctx, f"{k}_{f.label}_withdraw", f, 0, "withdraw (opposed)",
                        _boon_value(s, f, "Hit and Run", "withdraw"))
            c2 = morale(ctx, f"{k}_{f.label}_withdraw_vs", other, 0, "hold the withdrawing army (opposed)",
                        _boon_value(s, other, "Merciless", "withdraw"))
            ok = c1.d20 + c1.modifier > c2.d20 + c2.modifier
            checks[f.label].append(c1.model_copy(update={"dc": c2.d20 + c2.modifier + 1, "success": ok}))
            checks[other.label].append(c2.model_copy(update={"dc": c1.d20 + c1.modifier, "success": not ok}))
            if ok:
                withdrew.append(f)
        can = phase == "melee" or ranged(s, f.army)
        if potions[f.label]:
            if f.potions >= 2 or "Healing Potions" not in f.army.resources:
                raise ctx.fail(f"{f.army.name} has no healing potions left (twice a battle)", R_RESOURCES)
            f.potions += 1
            heal = 2 * acr_int(f.army)
            f.hp = min(f.army.max_hp, f.hp + heal)
            f.notes.append(f"healing potions +{heal} hp (Consumption +3 this week)")
            can = False
        if t.special == "false_retreat" and f.false_retreat == 0 and phase == "melee":
            f.false_retreat = 1
            f.notes.append("false retreat: no attack this phase, +6 OM and DV the next")
            can = False
        if f.no_attack or f.afraid:
            f.notes.append("natural 1 last phase: no attack" if f.no_attack else "afraid: no attack")
            f.no_attack = False
            f.afraid = False
            can = False
        om, _ = nums[f.label]
        tdv = nums[other.label][1]
        offs[f.label] = strike(ctx, f"{k}_{f.label}", f, other, om, tdv, phase, half) if can else None
    for f in active:  # damage at once
        off = offs.get(f.label)
        other = targets[f.label]
        if off is not None and off.damage and other is not None:
            other.hp -= off.damage
            ks = kinds(s, f.army)
            if "bleed" in ks and phase == "melee":
                other.bleed = True
            if ks & {"paralysis"}:
                other.paralysed += 1
            if mc(s).tactics[f.tactic].special == "siegebreaker" and "Siege Engines" in other.army.resources:
                om2, _ = nums[f.label]
                d2 = ctx.roll(f"{k}_{f.label}_siegebreaker", "1d20", check=CheckSpec(
                    "d20", modifier=om2, dc=nums[other.label][1] + 1, label="siegebreaker", nat1_fails=False,
                    nat20_succeeds=False)).faces[0]
                if d2 + om2 > nums[other.label][1]:
                    other.notes.append("a siege engine destroyed (GM removes it)")
            if "fear" in ks and other.status == "fighting" and "undead" not in kinds(s, other.army):
                c = morale(ctx, f"{k}_{other.label}_fear", other, 10 + acr_int(f.army), "fear")
                checks[other.label].append(c)
                if not c.success:
                    if other.afraid:
                        other.status = "routed"
                    other.afraid = True
    for f in fighters:
        if f.false_retreat == 1 and offs.get(f.label) is None:
            f.false_retreat = 2
        elif f.false_retreat == 2:
            f.false_retreat = 3
        f.taunted = False
    for f in withdrew:
        f.status = "withdrew"
    shown = [f for f in fighters if f in active or f.label in ("ours", "enemy")]
    for f in shown:
        if f.hp <= 0:
            f.status = "defeated"
        _rout(ctx, f"{k}_{f.label}_rout", f, checks)
    sides = tuple(ev.PhaseSide(army=f.army.id, tactic=f.tactic, strategy=f.strategy if phase == "melee" else None,
                               om=nums[f.label][0], dv=nums[f.label][1], offense=offs.get(f.label),
                               morale_checks=tuple(checks[f.label]), hp_before=before[f.label],
                               hp_after=max(0, f.hp), status=f.status, notes=tuple(f.notes),
                               target=(tg.army.id if (tg := targets.get(f.label)) is not None else None) if many
                               else None)
                  for f in shown)
    for f in fighters:
        f.notes.clear()
    ctx.emit(ev.BattlePhaseResolved(battle=bid, index=index, kind=phase, sides=sides))
    return index + 1


def aftermath(ctx: Ctx, b: ch.BattleEntry, bid: str, n: int, fighters: list[Fighter]) -> None:
    """UC Victory, Rout, or Defeat: a victor's Loyalty checks (a tactic and Morale +1; a boon), a routed army's
    Morale −1, hp raised to the ACR; a defeated army of ours costs Economy, Loyalty, Stability by its size and its
    NPC commander is killed (01-20), captured (21-70) or escapes (71-00). An army is victorious when all its
    enemies fled or were defeated."""
    s = ctx.state
    outs: list[ev.ArmyOutcome] = []
    losses: dict[str, int] = {}
    for f in fighters:
        a = f.army
        acr = acr_int(a)
        lead = f.label in ("ours", "enemy")
        tag = "" if lead else f"{a.id}_"
        if f.hp <= 0 or f.status == "defeated":
            result = "defeated"
        elif f.status in ("routed", "withdrew"):
            result = f.status
        elif not _side_fighting("enemy" if f.side == "ours" else "ours", fighters):
            result = "victorious"
        else:
            result = "undecided"
        hp = max(0, f.hp)
        md = 0
        tactic = boon = None
        checks: tuple[ev.KCheck, ...] = ()
        fate = fate_roll = None
        if result in ("victorious", "routed") and hp < acr:
            hp = acr
        if result == "routed":
            md = -1
        if result == "victorious" and f.side == "ours":
            c1 = control_check(ctx, f"w{n}_{tag}victory_1", "LOYALTY")
            c2 = control_check(ctx, f"w{n}_{tag}victory_2", "LOYALTY")
            checks = (c1, c2)
            if c1.success:
                md = 1 if a.morale < 4 else 0
                if b.learn_tactic and lead:
                    tactic_usable(ctx, a, b.learn_tactic, learned=True)
                    if b.learn_tactic not in a.tactics and not mc(s).tactics[b.learn_tactic].default:
                        tactic = b.learn_tactic
            if c2.success and b.learn_boon and lead and a.commander is not None:
                bd = mc(s).boons[b.learn_boon]
                cmd = a.commander
                if bd.min_leadership > cmd.leadership:
                    raise ctx.fail(f"{b.learn_boon} needs Leadership {bd.min_leadership}", R_COMMANDER)
                if len(cmd.boons) < max_boons(cmd.ranks, cmd.level, cmd.role is not None):
                    boon = b.learn_boon
        if result == "defeated" and f.side == "ours":
            e_, l_, s_ = mc(s).sizes[a.size].defeat
            for attr, v in (("ECONOMY", e_), ("LOYALTY", l_), ("STABILITY", s_)):
                if v:
                    losses[attr] = losses.get(attr, 0) + v
            if a.commander is not None and a.commander.role is None:
                fate_roll = faces(ctx, f"w{n}_{tag}fate", "1d100")[0]
                fate = "killed" if fate_roll <= 20 else "captured" if fate_roll <= 70 else "escaped"
        outs.append(ev.ArmyOutcome(army=a.id, result=result, hp_after=hp, morale_delta=md,
                                   tactic_learned=tactic, boon_learned=boon, loyalty_checks=checks,
                                   commander_fate=fate, fate_roll=fate_roll))
    ctx.emit(ev.BattleEnded(battle=bid, hex=b.hex, outcomes=tuple(outs), kingdom_losses=losses))
    desertion(ctx)


def war(ctx: Ctx, c: ch.WarChoices) -> None:
    """The month's battles, each fought in full (UC Battle Phases)."""
    if c.battles and ctx.state.anarchy:
        raise ctx.fail("the kingdom is in anarchy and can take no action", "base §4.7")
    for n, b in enumerate(c.battles, 1):
        battle(ctx, b, n)
