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
from kingdomlog.rulesets.pf1 import specials as sx
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
from kingdomlog.rulesets.pf1.tables import ArmySpecial, MassCombat

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
    """The engine's kinds of an army's special abilities (bleed, fear, undead, …: specials.KINDS)."""
    return {sp.kind for sp, _ in sx.of(s, a).values() if sp.kind}


def ranged(s: Pf1State, a: Army) -> bool:
    return a.ranged or any(sp.ranged for sp, _ in sx.of(s, a).values())


def spell_level(s: Pf1State, a: Army) -> int:
    """UC Spellcasting: the OM and DV the army's spells add (the highest spell level its units cast)."""
    return sx.number(s, a, "Spellcasting") or 0


def build_bonus(s: Pf1State, specials: tuple[str, ...]) -> tuple[int, int, int]:
    """What an army's special abilities add to OM and DV when it is raised, and the tactics known beyond half its
    ACR: constant numbers, Spellcasting's level, Hunter's Bond (animal) as an animal companion, Tactician."""
    om = dv_ = extra = 0
    for sp, v in sx.held(mc(s), specials).values():
        om, dv_ = om + sp.om, dv_ + sp.dv
        if sp.kind == "spellcasting":
            lvl = int(v) if v is not None else sp.default or 0
            om, dv_ = om + lvl, dv_ + lvl
        if sp.kind == "hunters_bond" and v == "animal":
            om += mc(s).specials["Animal Companion"].om
        if sp.kind == "tactician":
            extra += 1
    return om, dv_, extra


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
    specials = tuple(sx.check(mc(s), n, ctx.step) for n in e.specials)
    if len({sx.split(n)[0] for n in specials}) < len(specials):
        raise InputError(f"[{ctx.step}] an army special ability is named twice: {', '.join(specials)}")
    rng = e.ranged or any(sp.ranged for sp, _ in sx.held(mc(s), specials).values())
    som, sdv, tactician = build_bonus(s, specials)
    om, dv_ = om + som + e.om_bonus, dv_ + sdv + e.dv_bonus
    hp = army_hp(acr, e.hd)
    army = Army(id=aid, name=e.name, side=side, size=e.size, unit=e.unit, unit_cr=e.unit_cr, hd=e.hd, acr=acr,
                hp=hp, max_hp=hp, om=om, dv=dv_, consumption=cons, speed=e.speed, ranged=rng,
                tactics=tuple(e.tactics), specials=specials, hex=e.hex)
    extra = (1 if side == "kingdom" and dv.has_building(s, "Military Academy") else 0) + tactician
    known = [t for t in e.tactics if not mc(s).tactics[t].default]
    if len(known) > tactics_known_max(acr) + extra:
        raise ctx.fail(f"an ACR {acr} army knows {tactics_known_max(acr) + extra} tactic(s) (half its ACR"
                       f"{', + Military Academy or Tactician' if extra else ''}), not {len(known)}", R_TACTICS)
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
    army = build_army(ctx, e, aid, "kingdom")
    ctx.emit(ev.ArmyRecruited(army=army))
    raise_rulings(ctx, army)


def raise_rulings(ctx: Ctx, a: Army) -> None:
    """Abilities whose only effect is for the GM to set when the army is raised (Armor Training: its speed)."""
    for sp, _ in sx.of(ctx.state, a).values():
        if sp.kind == "armor_training":
            ctx.emit(ev.ArmyRulingNeeded(army=a.id, ability=sp.name, ruling=sp.ruling))


def place_enemy(ctx: Ctx, e: ch.ArmyEntry) -> None:
    """The GM puts an army of another power on the map (no limit, no cost for us)."""
    aid = new_id(ctx, "A")
    army = build_army(ctx, e, aid, e.side or "enemy")
    ctx.emit(ev.ArmyRecruited(army=army, counts_against_limit=False))
    raise_rulings(ctx, army)


def brewers(s: Pf1State) -> list[str]:
    """Our armies that brew healing potions for themselves or another army (UC Brew Potion, Hex (cauldron))."""
    return [a.name for a in s.armies.values() if a.side == "kingdom" and a.status in ("active", "routed")
            and ("brew_potion" in kinds(s, a) or sx.choice(s, a, "Hex") == "cauldron")]


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
        if r.requires_any and not any(dv.has_building(s, b) for b in r.requires_any) and not (
                r.name == "Healing Potions" and brewers(s)):
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


R_SPECIAL = "UC Mass Combat: Special Abilities"
RAGE_BARS = ("Cautious Combat", "Defensive Wall", "Expert Flankers", "Sniper Support", "Withdraw", "Defensive",
             "Cautious")
"""Tactics and strategies a raging army cannot use (UC Rage)."""
LIGHT = ("Darkness", "Dim Light")
WEATHER = ("Rain", "Snow", "Wind", "Fog", "Sandstorm")
TERRAIN_BONUS = ("Advantageous Terrain", "Battlefield Advantage")
ARMOR = ("Improved Armor", "Magic Armor")
HOLDS = ("Alchemy", "Burrow", "Earth Glide", "Flight")
"""Abilities used instead of attacking in that phase."""


def tactic_usable(ctx: Ctx, a: Army, tactic: str, *, learned: bool = False, raging: bool = False) -> None:
    """Refuse ``tactic`` for army ``a`` unless it may use it (``tactic_refusal``); ``InputError`` for a tactic the
    rules do not have."""
    if tactic not in mc(ctx.state).tactics:
        raise InputError(f"[{ctx.step}] unknown tactic {tactic!r}")
    refused = tactic_refusal(ctx.state, a, tactic, learned=learned, raging=raging)
    if refused is not None:
        raise ctx.fail(*refused)


def tactic_refusal(s: Pf1State, a: Army, tactic: str, *, learned: bool = False,
                   raging: bool = False) -> tuple[str, str] | None:
    """Why army ``a`` may not use ``tactic`` (UC Mass Combat: Army Tactics), as ``(words, rule)``, or None: a tactic
    is used only when the army knows it (every army knows the default ones; its own; its commander's Bonus Tactic;
    ``learned``: taught by a victory), a mindless army uses standard tactics only, a raging one none of the
    Rage's bars, and a tactic needing ranged attacks or a resource needs them."""
    t = mc(s).tactics.get(tactic)
    if t is None:
        return f"{tactic} is not a tactic of mass combat", R_TACTICS
    cmd = a.commander
    if not (learned or t.default or tactic in a.tactics or (cmd is not None and tactic in cmd.bonus_tactics)):
        return f"{a.name} does not know {tactic} (known: {', '.join(a.tactics) or 'the default ones'})", R_TACTICS
    if "mindless" in kinds(s, a) and tactic != "Standard":
        return f"{a.name} is mindless: standard tactics only", "UC Special Abilities: Mindless"
    if raging and tactic in RAGE_BARS:
        return f"{a.name} is raging: no {tactic}", "UC Special Abilities: Rage"
    if t.requires == "ranged" and not ranged(s, a):
        return f"{tactic} needs ranged attacks", R_TACTICS
    if t.requires and t.requires != "ranged" and t.requires not in a.resources and "Mount" not in a.specials:
        return f"{tactic} needs the {t.requires} resource", R_TACTICS
    return None


def known_tactics(s: Pf1State, a: Army) -> tuple[str, ...]:
    """The tactics army ``a`` may use in a battle (``tactic_refusal`` refuses none of them), in the rules' order."""
    return tuple(t for t in mc(s).tactics if tactic_refusal(s, a, t) is None)


@dataclass
class Facts:
    """What the GM states about a battle for the special abilities: its terrain, who is evil (Smite Evil), an
    evil outsider, an animal (Unnatural Aura), who overcomes a Significant Defense; the half-damage conditions."""

    terrain: str = ""
    evil: frozenset[str] = frozenset()
    outsiders: frozenset[str] = frozenset()
    animals: frozenset[str] = frozenset()
    overcome: frozenset[str] = frozenset()
    half: set[str] = field(default_factory=set)


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
    bleed: set[str] = field(default_factory=set)
    """The abilities (Bleed, Poison, …) whose 1d6 it takes at the start of the next phase."""
    paralysed: int = 0
    drained: int = 0
    potions: int = 0
    taunt_immune: int = 0
    taunted: bool = False
    fort: int = 0
    walls: int | None = 0
    """What City Walls add to ``fort`` (None: a fortification given as a number, its walls unknown)."""
    conds: list[str] = field(default_factory=list)
    facts: Facts = field(default_factory=Facts)
    used: set[str] = field(default_factory=set)
    """Once-a-battle abilities used."""
    lasting: dict[str, str] = field(default_factory=dict)
    """Abilities in effect for the rest of the battle (Rage, Challenge, Wild Shape: its form, …)."""
    now: dict[str, str] = field(default_factory=dict)
    """Abilities in effect this phase only (Smite Evil, Judgment, a heal, ``hold``: no attack)."""
    pending: list[str] = field(default_factory=list)
    challenged: str = ""
    dug_in: bool = False
    ambushing: bool = False
    ambushed: bool = False
    stand: str = ""
    """Ferocity: the status it takes after its one more Melee phase."""
    stand_phase: int = 0
    """Ferocity: 1 = granted, fights the next Melee phase; 2 = fighting it now."""
    ferocity_used: bool = False
    regen_hold: bool = False
    diseased: bool = False
    rulings: list[tuple[str, str]] = field(default_factory=list)
    ruled: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)
    label: str = ""
    """The key its dice are rolled under: ``ours`` / ``enemy`` for the lead armies, the army id for others."""


def _specs(s: Pf1State, f: Fighter) -> dict[str, tuple[ArmySpecial, str | None]]:
    """The fighter's abilities now: its own, with a Wild Shape form gained and Spellcasting lost."""
    h = dict(sx.of(s, f.army))
    form = f.lasting.get("Wild Shape")
    if form:
        h.pop("Spellcasting", None)
        h.setdefault(form, (mc(s).specials[form], None))
    return h


def fkinds(s: Pf1State, f: Fighter) -> set[str]:
    return {sp.kind for sp, _ in _specs(s, f).values() if sp.kind}


def _kind(s: Pf1State, f: Fighter, kind: str) -> tuple[ArmySpecial, str | None] | None:
    return next((h for h in _specs(s, f).values() if h[0].kind == kind), None)


def _living(s: Pf1State, f: Fighter) -> bool:
    return not fkinds(s, f) & sx.NOT_LIVING


def _works(s: Pf1State, f: Fighter, kind: str, target: Fighter) -> list[ArmySpecial]:
    """``f``'s abilities of ``kind`` that work on ``target``: not against its immunities (UC Immunity), and only
    against animals or armies in the water where the ability says so."""
    out = []
    for sp, _ in _specs(s, f).values():
        if sp.kind != kind or sx.immune(s, target.army, sp.name):
            continue
        if sp.vs == "water" and "Water" not in target.conds:
            continue
        if sp.vs == "animal" and not ("Mounts" in target.army.resources or "Mount" in target.army.specials
                                      or target.army.id in target.facts.animals):
            continue
        out.append(sp)
    return out


def _rule(f: Fighter, sp: ArmySpecial, extra: str = "") -> None:
    """Queue a GM ruling for ``f``'s ability (once a battle)."""
    if sp.name not in f.ruled:
        f.ruled.add(sp.name)
        f.rulings.append((sp.name, sp.ruling + extra))


def _flush(ctx: Ctx, bid: str, fighters: list[Fighter]) -> None:
    for f in fighters:
        for name, text in f.rulings:
            ctx.emit(ev.ArmyRulingNeeded(army=f.army.id, ability=name, ruling=text, battle=bid))
        f.rulings.clear()


def _heal(f: Fighter, n: int, why: str) -> None:
    gain = max(0, min(f.army.max_hp - f.hp, n))
    f.hp += gain
    f.notes.append(f"{why} +{gain} hp")


def _magic(s: Pf1State, f: Fighter) -> bool:
    """Its attacks count as magic: Magic Weapons, Ki Pool, Spellcasting (not while wild-shaped), Judgment (magic)."""
    return ("Magic Weapons" in f.army.resources or any(sp.magic for sp, _ in _specs(s, f).values())
            or f.now.get("Judgment") == "magic")


def _pen(kinds_: set[str], v: int) -> int:
    """A penalty from darkness, invisibility or weather as the army's senses leave it (UC Blindsense, Blindsight,
    Scent, Tremorsense: halved, rounded down, or none)."""
    if v >= 0:
        return v
    if "senses_none" in kinds_:
        return 0
    return -((-v) // 2) if "senses_half" in kinds_ else v


def _boon(f: Fighter, name: str) -> bool:
    return f.army.commander is not None and name in f.army.commander.boons


def _boon_value(s: Pf1State, f: Fighter, name: str, field_: str) -> int:
    if not _boon(f, name):
        return 0
    b = mc(s).boons[name]
    v = int(getattr(b, field_))
    lead = f.army.commander.leadership if f.army.commander else 0
    return v * 2 if b.improves_at is not None and lead >= b.improves_at else v


def _courage(s: Pf1State, f: Fighter) -> int:
    """The bonus on Morale checks against fear and routs: Bravery, Inspire Courage, Rage while raging."""
    out = 0
    for sp, v in _specs(s, f).values():
        if sp.kind == "courage" and sp.name not in f.lasting:  # not given to an ally
            out += int(v) if v is not None else sp.default if sp.default is not None else sp.morale
        if sp.kind == "rage" and sp.name in f.lasting:
            out += sp.morale
    if "inspired" in f.lasting:
        out += mc(s).specials["Inspire Courage"].morale
    return out


def _grabbed(s: Pf1State, f: Fighter, fighters: list[Fighter]) -> int:
    """UC Grab: the army a grabbing army attacks takes its penalty on Morale checks against routs and to withdraw."""
    return min((sp.amount for o in _opponents(f, fighters) if o.status == "fighting" and _target(o, fighters) is f
                 for sp in _works(s, o, "grab", f)), default=0)


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


def _conditions(s: Pf1State, f: Fighter, other: Fighter) -> tuple[int, int, int]:
    """The battlefield conditions' OM, DV and ranged OM for ``f`` facing ``other``: darkvision and low-light vision
    see in the dark, senses halve or ignore darkness and weather, the enemy's Favored Terrain halves terrain
    bonuses, Light Blindness and Light Sensitivity suffer in bright light."""
    fk, ok = fkinds(s, f), fkinds(s, other)
    om = d = rom = 0
    for name in f.conds:
        cd = mc(s).conditions[name]
        if (name == "Darkness" and "darkvision" in fk) or (name == "Dim Light" and fk & {"darkvision", "lowlight"}):
            continue
        c = [cd.om, cd.dv, cd.ranged_om]
        if name in LIGHT + WEATHER:
            c = [_pen(fk, x) for x in c]
        if name in TERRAIN_BONUS and "favored_terrain" in ok:
            c = [x // 2 if x > 0 else x for x in c]
        om, d, rom = om + c[0], d + c[1], rom + c[2]
    if "Bright Light" in f.conds:
        worst = min((sp.amount for sp, _ in _specs(s, f).values() if sp.kind == "bright_light"), default=0)
        om, d = om + worst, d + worst
    return om, d, rom


def _fort(s: Pf1State, f: Fighter, other: Fighter) -> int:
    """The fortification's Defense for ``f`` against ``other``: none against teleporters or an army that burrowed
    under it; City Walls' part none against fliers; a quarter less (rounded down) against climbers."""
    if not f.fort:
        return 0
    ok = _specs(s, other)
    kinds_ = {sp.kind for sp, _ in ok.values()}
    if "teleportation" in kinds_ or other.dug_in:
        return 0
    v = f.fort
    for sp, _ in ok.values():
        if sp.kind == "flight":
            if f.walls is None:
                _rule(other, sp)
            else:
                v -= f.walls
        elif sp.kind in ("amphibious", "earth_glide"):
            _rule(other, sp, f" (against {f.army.name}'s fortification)")
    if "climb" in kinds_:
        v -= v // 4
    return max(0, v)


def _mobile(s: Pf1State, f: Fighter) -> bool:
    """A mobility advantage on this battlefield: Incorporeal anywhere, Mobility in its terrain (UC Mobility)."""
    h = _kind(s, f, "mobility")
    if "incorporeal" in fkinds(s, f):
        return True
    if h is None:
        return False
    terrain = f.facts.terrain.lower()
    if not terrain:
        _rule(f, h[0])
        return False
    want = (h[1] or "").lower().rstrip("s")
    return bool(want) and (want in terrain or terrain.rstrip("s") in want)


def _abilities(s: Pf1State, f: Fighter, phase: str, other: Fighter) -> tuple[int, int]:
    """What ``f``'s and ``other``'s special abilities change in ``f``'s OM and DV this phase (UC Special
    Abilities; constant numbers are already in the army's OM and DV)."""
    specs = _specs(s, f)
    fk, ok = fkinds(s, f), fkinds(s, other)
    acr = acr_int(f.army)
    om = d = 0
    if (h := _kind(s, f, "aquatic")) is not None:
        if "Water" in other.conds:
            om, d = om + h[0].om_if, d + h[0].dv_if
        elif "amphibious" not in fk:
            om += h[0].amount
    if (h := _kind(s, f, "favored_enemy")) is not None:
        unit = other.army.unit.lower()
        want = (h[1] or "").lower().rstrip("s")
        if not unit:
            _rule(f, h[0], f" ({other.army.name})")
        elif want and want in unit:
            om += h[0].om_if
    if _mobile(s, f) and not _mobile(s, other):
        om += mc(s).specials["Mobility"].om_if
    if "Challenge" in f.lasting:
        ch_ = mc(s).specials["Challenge"]
        if other.label == f.challenged:
            om += ch_.om_if
            d += sum(sp.dv_if for sp, _ in specs.values() if sp.kind == "order")
        else:
            d += ch_.dv_if
    if "invisibility" in ok:
        p = _pen(fk, mc(s).specials["Invisibility"].amount)
        om, d = om + p, d + p
    if "spell_resistance" in fk and "spellcasting" in ok:
        d += sum(sp.dv_if for sp, _ in specs.values() if sp.kind == "spell_resistance")
    if (h := _kind(s, f, "significant_defense")) is not None and other.army.id not in f.facts.overcome:
        d += h[0].amount
        _rule(f, h[0], f" ({h[0].name}: DV +{h[0].amount} against {other.army.name})")
    if "rock_catching" in fk and phase == "ranged":
        d += mc(s).specials["Rock Catching"].dv_if + (1 if "rock_throwing" in ok
                                                      or "Siege Engines" in other.army.resources else 0)
    if "evasion" in ok and "spellcasting" in fk:
        lvl = spell_level(s, f.army)
        om -= lvl - lvl // 2
    if ok & {"incorporeal", "swarm"}:
        d -= sum(mc(s).resources[r].dv for r in f.army.resources if r in ARMOR and r in mc(s).resources)
    if "Rage" in f.lasting:
        rage = mc(s).specials["Rage"]
        om, d = om + rage.om_if, d + rage.dv_if
    style = f.lasting.get("Combat Style")
    if style and style == ("ranged" if phase == "ranged" else "melee"):
        om += mc(s).specials["Combat Style"].amount
    if "Weapon Specialization" in f.now:
        om += mc(s).specials["Weapon Specialization"].amount
    if "Hunter's Bond" in f.lasting and f.lasting["Hunter's Bond"] in ("", f.army.id):
        om += mc(s).specials["Hunter's Bond"].amount
    if "bonded" in f.lasting:
        om += mc(s).specials["Hunter's Bond"].amount
    if "Inspire Courage" in f.lasting:  # given to an ally: its OM +1 goes with it
        om -= mc(s).specials["Inspire Courage"].om
    if "inspired" in f.lasting:
        om += mc(s).specials["Inspire Courage"].om
    if "Smite Evil" in f.now:
        sm = mc(s).specials["Smite Evil"]
        if "undead" in ok or other.army.id in f.facts.outsiders:
            om += sm.amount
        elif other.army.id in f.facts.evil:
            om += sm.om_if
        else:
            _rule(f, sm, f" ({other.army.name} is not listed as evil: no bonus)")
    if f.now.get("Judgment") == "defense":
        d += 1
    if "heal" in f.now:
        om -= acr // 2
    if f.stand_phase == 2:
        fe = mc(s).specials["Ferocity"].amount
        om, d = om + fe, d + fe
    if "sneak_attack" in fk and ((f.ambushing and phase == "tactics") or f.tactic == "Expert Flankers"
                                 or f.false_retreat == 2):
        om += mc(s).specials["Sneak Attack"].om_if
    if "track" in fk and f.ambushed and phase == "tactics":
        d += acr
    if "trip" in ok and phase == "melee" and _works(s, other, "trip", f):
        d -= 1
    if "Wild Shape" in f.lasting:
        lvl = spell_level(s, f.army)
        om, d = om - lvl, d - lvl
    return om - f.drained, d - f.drained


def om_dv(s: Pf1State, f: Fighter, phase: str, melee_round: int, other: Fighter) -> tuple[int, int]:
    """The OM and DV of ``f`` this phase facing ``other``: recorded army numbers + tactic + strategy + conditions +
    fortification + boons + special abilities."""
    t = mc(s).tactics[f.tactic]
    st = mc(s).strategies[f.strategy] if phase == "melee" else None
    om, d = f.army.om, f.army.dv
    once_off = t.once and not (t.special == "first_melee" and phase == "melee" and melee_round == 1)
    if not once_off and t.special not in ("false_retreat", "taunt", "vs_spellcasting", "vs_unmounted"):
        om, d = om + t.om, d + t.dv
    if t.special == "vs_spellcasting" and "spellcasting" in fkinds(s, other):
        d += t.dv
    if t.special == "vs_unmounted" and "Mounts" not in other.army.resources and "Mount" not in other.army.specials:
        om += t.om
    if f.false_retreat == 2:
        om, d = om + 6, d + 6
    if st is not None:
        om, d = om + st.om, d + st.dv
    com, cdv, crom = _conditions(s, f, other)
    om += com + (crom if phase == "ranged" else 0)
    d += cdv + _fort(s, f, other) - f.paralysed
    d += _boon_value(s, f, "Defensive Tactics", "dv")
    if f.hp * 2 <= f.army.max_hp:
        om += _boon_value(s, f, "Bloodied but Unbroken", "om")
    if f.taunted:
        om, d = om - 2, d - 2
    if "flurry" in fkinds(s, f) and phase == "melee":
        om += 1 if melee_round == 1 else 2
    aom, adv = _abilities(s, f, phase, other)
    return om + aom, d + adv


def strike(ctx: Ctx, key: str, f: Fighter, target: Fighter, om: int, dv_: int, phase: str,
           half: frozenset[str]) -> ev.Offense:
    """One Offense check: d20 + OM vs DV; damage = the excess (+ strategy, tactic and ability damage), then what
    the target's nature lets through (incorporeal, swarm)."""
    s = ctx.state
    # an Offense check "succeeds" when it deals damage: above the DV, or a natural 20 (UC Attacking)
    spec = CheckSpec("d20", modifier=om, dc=dv_ + 1, label=f"{f.army.name} Offense vs {target.army.name}",
                     nat1_fails=False, nat20_succeeds=True)
    d = ctx.roll(key, "1d20", check=spec).faces[0]
    total = d + om
    dmg = offense_damage(d, total, dv_)
    extra: tuple[int, ...] = ()
    if dmg > 0:
        k, tk = fkinds(s, f), fkinds(s, target)
        if phase == "melee":
            dmg += mc(s).strategies[f.strategy].damage + mc(s).tactics[f.tactic].damage
            dmg += sum(sp.damage for sp, _ in _specs(s, f).values())
            if "heal" not in f.now and ((_works(s, f, "channel_negative", target) and _living(s, target))
                                        or (_works(s, f, "channel_positive", target) and "undead" in tk)):
                extra += tuple(faces(ctx, f"{key}_channel", "1d4"))
                dmg += extra[-1]
        if f.now.get("Judgment") == "damage" and phase in ("ranged", "melee"):
            dmg += 1
        if "breath" in k:
            b = tuple(faces(ctx, f"{key}_breath", "1d4"))
            extra = b + extra
            dmg += sum(b) // 2 if "evasion" in tk else sum(b)
        if "rock_throwing" in k and phase == "ranged":
            dmg += 4
        dmg = max(1 if total > dv_ or d == 20 else 0, dmg)
        if half:
            dmg = max(1, dmg - dmg // 4) if half == {"Fog"} and "track" in k else max(1, dmg // 2)
        magic = _magic(s, f)
        if "swarm" in k and tk & {"incorporeal", "significant_defense"}:
            dmg = 0
            f.notes.append(f"a swarm cannot harm {target.army.name}")
        elif "incorporeal" in tk:
            dmg = max(1, dmg // 2) if magic else 0
            f.notes.append(f"{target.army.name} is incorporeal: {'half' if magic else 'no'} damage")
        elif "swarm" in tk:
            dmg = dmg * 3 // 2 if magic else max(1, dmg // 2)
            f.notes.append(f"{target.army.name} is a swarm: {'×1.5' if magic else 'half'} damage")
    if d == 1:
        f.no_attack = True
    return ev.Offense(d20=d, om=om, total=total, target_dv=dv_, damage=dmg, extra_dice=extra)


def _rout(ctx: Ctx, key: str, f: Fighter, checks: dict[str, list[ev.MoraleCheck]], fighters: list[Fighter]) -> None:
    """hp at or below the ACR: a DC 15 Morale check or the army routs (Hold the Line rerolls once)."""
    s = ctx.state
    if f.status != "fighting" or f.hp <= 0 or f.hp > max(0, acr_int(f.army)) or f.stand_phase:
        return
    if "no_rout" in fkinds(s, f):
        f.notes.append("aura of courage: no rout")
        return
    extra = _courage(s, f) + _grabbed(s, f, fighters)
    c = morale(ctx, key, f, 15, "rout", extra)
    checks[f.label].append(c)
    if not c.success and _boon(f, "Hold the Line") and "Rage" not in f.lasting:  # UC Rage: no hold the line
        c = morale(ctx, f"{key}_reroll", f, 15, "rout (Hold the Line reroll)", extra)
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


def _spawn(s: Pf1State, f: Fighter, other: Fighter) -> None:
    """UC Create Spawn: ``f`` destroyed a living army its size or larger: the GM's ruling (heal or spawn)."""
    if other.hp <= 0 and SIZES.index(other.army.size) >= SIZES.index(f.army.size) and _living(s, other):
        for sp in _works(s, f, "create_spawn", other):
            _rule(f, sp, f" ({other.army.name} destroyed)")


def _ally(ctx: Ctx, f: Fighter, aid: str, fighters: list[Fighter], what: str) -> Fighter:
    ally = next((x for x in fighters if x.army.id == aid and x.side == f.side and x is not f), None)
    if ally is None:
        raise InputError(f"[{ctx.step}] {what} ({aid}): {aid!r} is not an allied army in this battle")
    return ally


def _use(ctx: Ctx, f: Fighter, text: str, phase: str, target: Fighter | None, fighters: list[Fighter]) -> bool:
    """An activated special ability ordered for ``f`` (UC Special Abilities): applied now, or False when it waits
    for a phase of its kind (Smite Evil and Flight: Melee; Weapon Specialization: its melee or ranged phase)."""
    s = ctx.state
    name, v = sx.split(text)
    specs = _specs(s, f)
    h = specs.get(name) or specs.get(text.strip())
    if h is None or not h[0].use:
        usable = [n for n, (sp, _) in specs.items() if sp.use]
        raise InputError(f"[{ctx.step}] {f.army.name} has no special ability {text!r} to use (usable: "
                         f"{', '.join(usable) or 'none'})")
    sp, own = h
    if h is specs.get(text.strip()):
        v = None
    if sp.once and sp.name in f.used:
        raise ctx.fail(f"{f.army.name} has used {sp.name} already (once a battle)", R_SPECIAL)
    acr = acr_int(f.army)
    kind = sp.kind
    attack = "ranged" if phase == "ranged" else "melee"
    if kind in ("combat_style", "weapon_specialization", "judgment", "wild_shape") and v not in (
            *sp.choices, *(("end",) if kind == "wild_shape" else ())):
        raise InputError(f"[{ctx.step}] {sp.name}: say which, e.g. '{sp.name} ({sp.choices[0]})' (one of "
                         f"{', '.join(sp.choices)})")
    if kind in ("channel_negative", "channel_positive"):
        if v != "heal":
            raise InputError(f"[{ctx.step}] {sp.name} is ordered only to heal: '{sp.name} (heal)' (its extra "
                             "damage needs no order)")
        if kind == "channel_negative" and "undead" not in fkinds(s, f):
            raise ctx.fail(f"{f.army.name} is not undead: negative energy does not heal it", R_SPECIAL)
        f.now["heal"] = sp.name
        _heal(f, acr, f"{sp.name}: OM −{acr // 2} this phase,")
    elif kind == "judgment":
        if f.afraid:
            f.notes.append("afraid: judgment suspended")
            return True
        f.now["Judgment"] = str(v)
        if v == "healing":
            _heal(f, acr // 2, "judgment (healing)")
    elif kind == "weapon_specialization":
        if v != attack:
            return False
        f.now[sp.name] = str(v)
    elif kind == "combat_style":
        f.lasting[sp.name] = str(v)
    elif kind == "wild_shape":
        if v == "end":
            if sp.name not in f.lasting:
                raise ctx.fail(f"{f.army.name} is not wild-shaped", R_SPECIAL)
            del f.lasting[sp.name]
            f.notes.append("wild shape ends")
            return True
        f.lasting[sp.name] = str(v)
    elif kind in ("smite", "flight"):
        if phase != "melee":
            return False
        f.now["hold" if kind == "flight" else sp.name] = sp.name
    elif kind in ("burrow", "earth_glide", "alchemy"):
        f.now["hold"] = sp.name
        if kind == "alchemy":
            _heal(f, 2 * acr, "alchemy")
    elif kind in ("hex", "hunters_bond"):
        want = "healing" if kind == "hex" else "companions"
        if own != want:
            raise ctx.fail(f"{f.army.name}'s {sp.name} is {own or 'unchosen'}: only {sp.name} ({want}) is used in "
                           "battle", R_SPECIAL)
        if kind == "hex":
            _heal(f, acr // 2, "hex (healing)")
        else:
            ally = _ally(ctx, f, v, fighters, sp.name) if v not in (None, own) else f
            f.lasting[sp.name] = ally.army.id
            if ally is not f:
                ally.lasting["bonded"] = f.army.id
    elif kind == "courage":
        if sp.name != "Inspire Courage" or v is None:
            raise InputError(f"[{ctx.step}] only Inspire Courage is ordered, to give its bonuses to an allied army: "
                             "'Inspire Courage (A3)'")
        ally = _ally(ctx, f, v, fighters, sp.name)
        f.lasting[sp.name] = ally.army.id
        ally.lasting["inspired"] = f.army.id
    elif kind == "rage":
        f.lasting[sp.name] = ""
        if f.tactic in RAGE_BARS:
            f.tactic = "Standard"
        if f.strategy in RAGE_BARS:
            f.strategy = "Standard"
    elif kind == "challenge":
        if target is None:
            return False
        f.lasting[sp.name] = target.label
        f.challenged = target.label
    elif kind == "create_sandstorm":
        for x in fighters:
            if "Sandstorm" not in x.conds:
                x.conds.append("Sandstorm")
        f.facts.half.add("Sandstorm")
    else:  # pragma: no cover - every use = true kind is handled above (tests/pf1/test_army_specials.py)
        raise InputError(f"[{ctx.step}] {sp.name} cannot be ordered")
    if sp.once:
        f.used.add(sp.name)
    f.notes.append(f"uses {text.strip()}")
    return True


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
    h = s.hexes.get(b.hex or "")
    facts = Facts(terrain=b.terrain or (h.terrain if h is not None else ""), evil=frozenset(b.evil),
                  outsiders=frozenset(b.evil_outsiders), animals=frozenset(b.animals), overcome=frozenset(b.overcome))
    us = Fighter(mine[0], "ours", mine[0].hp, b.ours_tactic, label="ours", facts=facts, pending=list(b.ours_use))
    them = Fighter(theirs[0], "enemy", theirs[0].hp, b.enemy_tactic, label="enemy", facts=facts,
                   pending=list(b.enemy_use))
    fighters = [us, them, *(Fighter(a, "ours", a.hp, "Standard", label=a.id, facts=facts) for a in mine[1:]),
                *(Fighter(a, "enemy", a.hp, "Standard", label=a.id, facts=facts) for a in theirs[1:])]
    for cond in b.conditions:
        cd = mc(s).conditions.get(cond.name)
        if cd is None:
            raise InputError(f"[{ctx.step}] unknown battlefield condition {cond.name!r}")
        for f in fighters:
            if not (cd.all or cond.side in ("both", f.side)):
                continue
            f.conds.append(cd.name)
            if cd.fortification:
                f.fort = b.fortification if b.fortification is not None else fortification(s, b.hex, f)
                f.walls = None if b.fortification is not None else city_walls(s, b.hex)
        if cd.half_damage:
            facts.half.add(cd.name)
    ctx.explain(Breakdown(f"Battle {bid}: {' + '.join(a.name for a in mine)} vs {' + '.join(a.name for a in theirs)}",
                          us.hp, note="; ".join(f"{f.army.name} hp {f.hp}, OM {f.army.om:+d}, DV {f.army.dv}"
                                                for f in fighters) + f"; tactics {b.ours_tactic} / {b.enemy_tactic}"))
    index = 0
    key = f"w{n}"
    # 1 Tactics phase: an ambush (the lead army ambushes the other side's lead)
    if b.ambush != "none":
        amb, tgt = (us, them) if b.ambush == "ours" else (them, us)
        amb.ambushing = tgt.ambushed = True
        aom, adv = om_dv(s, amb, "tactics", 0, tgt)
        tom, tdv = om_dv(s, tgt, "tactics", 0, amb)
        amb.ambushing = tgt.ambushed = False
        off = strike(ctx, f"{key}_ambush", amb, tgt, aom, tdv, "tactics", frozenset()).model_copy(
            update={"damage": 0})
        amb.no_attack = False
        if off.total >= tdv:
            tgt.tactic = "Standard"
            tgt.notes.append("ambushed: no tactic this battle")
        _emit(ctx, bid, index, "tactics", [(amb, aom, adv, off, [], amb.hp), (tgt, tom, tdv, None, [], tgt.hp)])
        _flush(ctx, bid, fighters)
        index += 1
    # 2 Ranged phase
    if any(ranged(s, f.army) for f in fighters):
        index = _round(ctx, bid, index, key, "ranged", 0, fighters, None, {})
    else:
        for f in fighters:
            if any(sx.split(u)[1] == "ranged" for u in f.pending):
                raise ctx.fail(f"{f.army.name}: no army in this battle has ranged attacks, so there is no Ranged "
                               f"phase for {', '.join(f.pending)}", R_SPECIAL)
    # 3 Melee phases
    last: ch.RoundEntry | None = None
    for r in range(1, b.max_rounds + 1):
        if not (_side_fighting("ours", fighters) and _side_fighting("enemy", fighters)):
            break
        orders = b.rounds[min(r - 1, len(b.rounds) - 1)] if b.rounds else None
        fresh = b.rounds[r - 1] if r <= len(b.rounds) else None
        uses = {"ours": list(fresh.ours_use), "enemy": list(fresh.enemy_use)} if fresh is not None else {}
        index = _round(ctx, bid, index, key, "melee", r, fighters, orders or last, uses)
        last = orders or last
    half = frozenset(facts.half)
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
            _spawn(s, sh, f)
            rows.append((sh, oom, odv, off, [], sh.hp))
        _emit(ctx, bid, index, "parting_shot", [*rows, (f, fom, fdv, None, [], hp0)])
        _flush(ctx, bid, fighters)
        index += 1
    aftermath(ctx, b, bid, n, fighters)


def fortification(s: Pf1State, hex_id: str | None, f: Fighter) -> int:
    """A fortification's Defense: the settlement's Defense in the battle's hex, else 8 (UC Fortifications)."""
    h = s.hexes.get(hex_id or "")
    if h is not None and h.city and h.city in s.cities:
        return dv.defense(s, s.cities[h.city])
    return 8


def city_walls(s: Pf1State, hex_id: str | None) -> int:
    """What the settlement's City Walls add to its Defense (a flying army ignores it: UC Flight)."""
    h = s.hexes.get(hex_id or "")
    if h is None or not h.city:
        return 0
    return sum(dv.btype(s, b).defense for b in dv.live_buildings(s)
               if b.city == h.city and dv.btype(s, b).name == "City Wall")


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
           orders: ch.RoundEntry | None, uses: dict[str, list[str]]) -> int:
    """One Ranged or Melee phase, every army at once; returns the next phase index. ``uses`` are the abilities
    ordered this phase (empty when the phase repeats the last round's orders)."""
    s = ctx.state
    k = f"{key}_{'ranged' if phase == 'ranged' else f'r{r}'}"
    many = len(fighters) > 2
    checks: dict[str, list[ev.MoraleCheck]] = {f.label: [] for f in fighters}
    before = {f.label: f.hp for f in fighters}
    active = [f for f in fighters if f.status == "fighting"]
    for f in active:  # healing each phase (fast healing, regeneration), then bleed from the last phase
        f.now.clear()
        if f.stand_phase == 1 and phase == "melee":
            f.stand_phase = 2
        h = _kind(s, f, "regeneration") or _kind(s, f, "fast_healing")
        if h is not None:
            val = int(h[1]) if h[1] is not None else h[0].default
            if val is None:
                _rule(f, h[0])
            elif val // 2 and f.hp < f.army.max_hp:
                _heal(f, val // 2, h[0].name.lower())
        if f.bleed:
            bd = faces(ctx, f"{k}_{f.label}_bleed", "1d6")[0]
            pr = _kind(s, f, "poison_resistance")
            res = (int(pr[1]) if pr[1] is not None else pr[0].default or 0) if pr is not None else 0
            cut = res // 2 if all(n == "Poison" or mc(s).specials[n].like == "Poison" for n in f.bleed) else 0
            f.hp -= max(0, bd - cut)
            f.notes.append(f"bleed {bd}" + (f" − {cut} (poison resistance)" if cut else ""))
            f.bleed = set()
    targets = {f.label: _target(f, fighters) for f in active}
    potions: dict[str, bool] = {}
    for f in active:  # orders: tactic (DC 15), strategy (more than one step: DC 20), taunt, potions, abilities
        who = "ours" if f.side == "ours" else "enemy"
        todo = [*f.pending, *uses.get(f.label, [])]
        f.pending = [u for u in todo if not _use(ctx, f, u, phase, targets[f.label], fighters)]
        raging = "Rage" in f.lasting
        want_t = getattr(orders, f"{who}_tactic", None) if orders else None
        want_s = getattr(orders, f"{who}_strategy", None) if orders else None
        potions[f.label] = bool(getattr(orders, f"{who}_potions", False)) if orders else False
        if want_t and want_t != f.tactic:
            tactic_usable(ctx, f.army, want_t, raging=raging)
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
            if raging and want_s in RAGE_BARS:
                raise ctx.fail(f"{f.army.name} is raging: no {want_s} strategy", "UC Special Abilities: Rage")
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
    half = frozenset(fighters[0].facts.half)  # after the orders: Create Sandstorm covers this phase
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
            fk, ok_ = fkinds(s, f), fkinds(s, other)
            free = bool(fk & {"teleportation", "incorporeal", "swarm"}) or (
                "invisibility" in fk and not ok_ & {"senses_half", "senses_none"})
            c1 = morale(ctx, f"{k}_{f.label}_withdraw", f, 0, "withdraw (opposed)",
                        _boon_value(s, f, "Hit and Run", "withdraw") + _grabbed(s, f, fighters))
            c2 = morale(ctx, f"{k}_{f.label}_withdraw_vs", other, 0, "hold the withdrawing army (opposed)",
                        _boon_value(s, other, "Merciless", "withdraw") + (acr_int(other.army) if "track" in ok_
                                                                            else 0))
            ok = free or c1.d20 + c1.modifier > c2.d20 + c2.modifier
            checks[f.label].append(c1.model_copy(update={"dc": c2.d20 + c2.modifier + 1, "success": ok}))
            checks[other.label].append(c2.model_copy(update={"dc": c1.d20 + c1.modifier, "success": not ok}))
            if free:
                f.notes.append("withdraws at will (teleportation, incorporeal, swarm or unseen)")
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
        if "hold" in f.now:
            f.notes.append(f"{f.now['hold'].lower()}: no attack this phase")
            can = False
        reach = other.now.get("hold")
        if can and reach in ("Burrow", "Earth Glide") and not fkinds(s, f) & {"burrow", "earth_glide"}:
            f.notes.append(f"{other.army.name} is underground: out of reach")
            can = False
        if can and reach == "Flight" and phase == "melee" and "flight" not in fkinds(s, f):
            f.notes.append(f"{other.army.name} is aloft: out of reach in melee")
            can = False
        om, _ = nums[f.label]
        tdv = om_dv(s, other, phase, r, f)[1]
        offs[f.label] = strike(ctx, f"{k}_{f.label}", f, other, om, tdv, phase, half) if can else None
    for f in active:  # damage at once
        off = offs.get(f.label)
        other = targets[f.label]
        if off is not None and off.damage and other is not None:
            other.hp -= off.damage
            if phase == "melee":
                other.bleed |= {sp.name for sp in _works(s, f, "bleed", other)}
            if _works(s, f, "paralysis", other):
                other.paralysed += 1
            if _works(s, f, "energy_drain", other):
                other.drained += 1
            for sp in _works(s, f, "disease", other):
                other.diseased = True
                _rule(f, sp, f" ({other.army.name})")
            _spawn(s, f, other)
            if mc(s).tactics[f.tactic].special == "siegebreaker" and "Siege Engines" in other.army.resources:
                om2 = nums[f.label][0] + (acr_int(f.army) // 2 if "trap_sense" in fkinds(s, f) else 0)
                d2 = ctx.roll(f"{k}_{f.label}_siegebreaker", "1d20", check=CheckSpec(
                    "d20", modifier=om2, dc=nums[other.label][1] + 1, nat1_fails=False,
                    label=f"{f.army.name}'s Siegebreaker against {other.army.name}'s siege engines",
                    nat20_succeeds=False)).faces[0]
                if d2 + om2 > nums[other.label][1]:
                    other.notes.append("a siege engine destroyed (GM removes it)")
            if _works(s, f, "fear", other) and other.status == "fighting":
                c = morale(ctx, f"{k}_{other.label}_fear", other, 10 + acr_int(f.army), "fear", _courage(s, other))
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
        if f.now.get("hold") in ("Burrow", "Earth Glide"):
            f.dug_in = True
    for f in withdrew:
        f.status = "withdrew"
    shown = [f for f in fighters if f in active or f.label in ("ours", "enemy")]
    for f in shown:
        if f.stand_phase == 2:  # ferocity: its one more phase is over
            f.status = "defeated" if f.hp <= 0 else f.stand
            f.stand_phase = 0
            f.notes.append(f"ferocity spent: {f.status}")
            continue
        if f.hp <= 0 and f.status == "fighting" and _kind(s, f, "regeneration") is not None and not any(
                o.status == "fighting" and o.hp > 0 for o in _opponents(f, fighters)):
            f.regen_hold = True
            f.notes.append("regeneration: no enemy left standing to finish it")
        elif f.hp <= 0:
            f.status = "defeated"
        else:
            f.regen_hold = False
        _rout(ctx, f"{k}_{f.label}_rout", f, checks, fighters)
        if (phase == "melee" and f.status in ("defeated", "routed") and not f.ferocity_used
                and "ferocity" in fkinds(s, f) and before[f.label] > 0 and f in active):
            f.ferocity_used = True
            f.stand, f.status, f.stand_phase = f.status, "fighting", 1
            f.notes.append(f"ferocity: fights one more Melee phase at OM and DV {mc(s).specials['Ferocity'].amount}")
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
    _flush(ctx, bid, fighters)
    return index + 1


def aftermath(ctx: Ctx, b: ch.BattleEntry, bid: str, n: int, fighters: list[Fighter]) -> None:
    """UC Victory, Rout, or Defeat: a victor's Loyalty checks (a tactic and Morale +1; a boon), a routed army's
    Morale −1, hp raised to the ACR; a defeated army of ours costs Economy, Loyalty, Stability by its size and its
    NPC commander is killed (01-20), captured (21-70) or escapes (71-00). An army is victorious when all its
    enemies fled or were defeated. A regenerating army left with no enemy standing is not defeated; a ferocious
    army cut short takes the status it was fighting on from."""
    s = ctx.state
    outs: list[ev.ArmyOutcome] = []
    losses: dict[str, int] = {}
    for f in fighters:
        a = f.army
        acr = acr_int(a)
        lead = f.label in ("ours", "enemy")
        tag = "" if lead else f"{a.id}_"
        if f.stand_phase and f.status == "fighting":
            f.status = "defeated" if f.hp <= 0 else f.stand
        if (f.hp <= 0 and not (f.regen_hold and f.status == "fighting")) or f.status == "defeated":
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
        if result == "victorious":
            if (h := _kind(s, f, "cannibalize")) is not None:
                _rule(f, h[0])
            if (h := _kind(s, f, "mercy")) is not None and any(x.diseased for x in fighters if x.side == f.side):
                _rule(f, h[0], " (" + ", ".join(x.army.name for x in fighters
                                                if x.side == f.side and x.diseased) + ")")
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
    _flush(ctx, bid, fighters)
    desertion(ctx)


def war(ctx: Ctx, c: ch.WarChoices) -> None:
    """The month's battles, each fought in full (UC Battle Phases)."""
    if c.battles and ctx.state.anarchy:
        raise ctx.fail("the kingdom is in anarchy and can take no action", "base §4.7")
    for n, b in enumerate(c.battles, 1):
        battle(ctx, b, n)
