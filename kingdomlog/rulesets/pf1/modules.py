"""The Ultimate Campaign optional modules' procedures (spec ``pf1-ultimate-campaign-optional.md``).

Pure kernels (``diplomatic_dc``, ``treaty_bonus``, ``trade_length``) take plain
numbers and carry doctests with the spec's worked examples; the ``special_edict``
and event-phase procedures run on a :class:`~kingdomlog.rulesets.pf1.decide.Acc`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from kingdomlog.core.errors import InputError
from kingdomlog.rulesets.pf1 import derive as dv
from kingdomlog.rulesets.pf1 import events as ev
from kingdomlog.rulesets.pf1.state import ATTITUDES, LEVELS, Pf1State, Relation, Terms, TradeRoute

# ------------------------------------------------------------------ kernels


def alignment_difference(a: str, b: str) -> int:
    """ADM: per axis +0 / +5 / +15 for 0 / 1 / 2 steps (opt §2.5.3).

    >>> alignment_difference("LG", "CE"), alignment_difference("LG", "NG"), alignment_difference("N", "CE")
    (30, 5, 10)
    """
    m = {0: 0, 1: 5, 2: 15}
    x, y = dv.axes(a), dv.axes(b)
    return m[abs(x[0] - y[0])] + m[abs(x[1] - y[1])]


def diplomatic_dc(*, infamy: int, size_target: int, size_you: int, align_you: str, align_target: str, rel: int,
                  attitude: str, fame: int, bribe: int, step: int = 5, threat: bool = False) -> dict[str, int]:
    """The Diplomatic edict DC term by term (opt §2.5.3); ``threat`` drops Fame and Infamy (§2.5.5).

    Worked example (a): Aldmere (Size 23, LG, Fame 3, Infamy 1) to Varn (Size 42, NG, Indifferent), 2 BP gifts.

    >>> t = diplomatic_dc(infamy=1, size_target=42, size_you=23, align_you="LG", align_target="NG", rel=0,
    ...                   attitude="indifferent", fame=3, bribe=2)
    >>> t["dc"], t["ssm_target"], t["ssm_you"], t["adm"], t["att"]
    (33, 8, 4, 5, 10)
    """
    terms = {
        "base": 10,
        "infamy": 0 if threat else infamy,
        "ssm_target": size_target // 5,
        "ssm_you": size_you // 5,
        "adm": alignment_difference(align_you, align_target),
        "rel": rel,
        "att": step * (4 - ATTITUDES.index(attitude)),
        "fame": 0 if threat else -fame,
        "bribe": -bribe,
    }
    terms["dc"] = sum(terms.values())
    return terms


def relationship_modifier(s: Pf1State, target: str) -> int:
    """REL: one row per third party, the most specific (opt §2.5.4)."""
    total = 0
    for x in s.foreign:
        if x == target:
            continue
        y = LEVELS.index(s.relations.get(x, Relation()).level)
        a, b = sorted((target, x))
        t = LEVELS.index(s.third_party.get(f"{a}|{b}", "none"))
        if (a, b) in s.enemies:
            total += {3: 10, 2: 5, 1: 2}.get(y, 0)
        elif y == 3 and t == 3:
            total -= 8
        elif y >= 2 and t == 3:
            total -= 4
        elif y >= 2 and t >= 2:
            total -= 2
    return total


def treaty_bonus(x_partner: int, *, balanced: bool, we_advantaged: bool) -> int:
    """Our bonus from a treaty/alliance (opt §2.5.7): 10 % balanced, 15 % / 5 % unbalanced, ≥ 0.

    Example (c): Varn's Economy 60, Aldmere advantaged. NPC estimate 51 gives 7.

    >>> treaty_bonus(60, balanced=True, we_advantaged=True), treaty_bonus(60, balanced=False, we_advantaged=True)
    (6, 9)
    >>> treaty_bonus(40, balanced=False, we_advantaged=False), treaty_bonus(51, balanced=False, we_advantaged=True)
    (2, 7)
    """
    pct = 10 if balanced else (15 if we_advantaged else 5)
    return max(0, x_partner * pct // 100)


WEIGHTS_EN = {"road": 1.0, "highway": 0.5, "water": 0.5, "river": 1.0, "coastline": 1.0, "open": 2.0}


def trade_length(path: Sequence[ev.PathStep], *, pier: bool, waterfront: bool, coastline_weight: float = 1.0,
                 reading: str = "en_hexes_per_day", open_days: float = 1.0) -> tuple[float, float]:
    """(TRL_raw, travel days) of a trade path (opt §2.7.2-§2.7.4); ``ValueError`` names an illegal hex.

    Each hex takes the lowest weight among its legal modes. Example (b): 10.5 weight, 8 days (English).

    >>> P = ev.PathStep
    >>> path = [P(road=True), P(), P(terrain="forest", highway=True), P(terrain="hills", road=True),
    ...         P(terrain="forest", river="downstream"), P(terrain="marsh", river="downstream"),
    ...         P(terrain="coastline", coastline=True), P(terrain="desert"), P(highway=True),
    ...         P(terrain="hills", highway=True)]
    >>> trade_length(path, pier=True, waterfront=False)
    (10.5, 8.0)
    >>> trade_length(path, pier=True, waterfront=False, reading="seed_days_per_hex")
    (10.5, 11.0)
    """
    pier = pier or waterfront
    raw = 0.0
    days = 0.0
    for i, st in enumerate(path, 1):
        seed = reading == "seed_days_per_hex"
        modes: list[tuple[float, float]] = []  # (weight, days)
        if st.highway:
            modes.append((0.5, 1.0))
        if st.road:
            modes.append((1.0, 1.0))
        if st.water and waterfront:
            modes.append((0.5, 4.0 if seed else 0.25))
        if st.river and pier:
            up = st.river == "upstream"
            modes.append((1.0, (4.0 if up else 1.0) if seed else (1.0 if up else 0.25)))
        if (st.coastline or st.terrain == "coastline") and pier:
            modes.append((coastline_weight, 2.0 if seed else 0.5))
        if st.terrain in ("plains", "desert") and not st.water:
            modes.append((2.0, open_days))
        if not modes:
            raise ValueError(f"trade path hex #{i} ({st.terrain}) has no legal way through: overland needs plains, "
                             "desert, a road or highway; rivers and coasts a Pier; water a Waterfront")
        w, d = min(modes)
        raw += w
        days += d
    return raw, days


# ------------------------------------------------------------------ special edicts


def special_edict(a: Any, spec: Any) -> None:
    """One special edict per turn, after the standard edicts (opt §1.4)."""
    s: Pf1State = a.state
    if not isinstance(spec, dict) or spec.get("kind") not in ("diplomatic", "exploration", "trade", "vassalage"):
        raise InputError(f"[{a.step}] special_edict is {{kind: diplomatic|exploration|trade|vassalage, ...}}; "
                         f"got {spec!r}")
    kind = spec["kind"]
    module = f"{kind}_edicts"
    if not s.module_on(module):
        raise a.refuse(f"a {kind} edict needs the {module} module, which is off in this campaign", "opt §1.1")
    if s.special_edict_turn == s.turn:
        raise a.refuse("only one special edict per turn", "opt §1.4")
    if kind in ("diplomatic", "exploration") and not dv.role_effective(s, "GRAND_DIPLOMAT"):
        raise a.refuse(f"no {kind} edict while the Grand Diplomat is vacant", "opt §1.4")
    {"diplomatic": diplomatic, "exploration": exploration, "trade": trade, "vassalage": vassalage}[kind](a, spec)


def _skill_check(a: Any, key: str, skill: str, modifier: int, dc: int) -> ev.SkillCheck:
    die = a.d20(key)
    total = die + modifier
    return ev.SkillCheck(skill=skill, d20=die, modifier=modifier, total=total, dc=dc, success=total >= dc,
                         margin=total - dc)


def _opposed(a: Any, spec: Mapping[str, Any], n: int) -> tuple[list[ev.Opposed], int]:
    rows = list(spec.get("opposed", []))
    if len(rows) != n:
        raise InputError(f"[{a.step}] {n} opposed checks needed (opposed: [{{skill, our_modifier, their_skill, "
                         f"their_modifier}}]), got {len(rows)}")
    out = []
    for i, r in enumerate(rows, 1):
        ours: list[int] = []
        theirs: list[int] = []
        for k in range(1, 11):  # ties are rerolled
            ours.append(a.d20(f"opp_{i}_ours_{k}"))
            theirs.append(a.d20(f"opp_{i}_theirs_{k}"))
            if ours[-1] + int(r["our_modifier"]) != theirs[-1] + int(r["their_modifier"]):
                break
        win = "you" if ours[-1] + int(r["our_modifier"]) > theirs[-1] + int(r["their_modifier"]) else "partner"
        out.append(ev.Opposed(skill=str(r.get("skill", "Diplomacy")), ours=tuple(ours), theirs=tuple(theirs),
                              our_modifier=int(r["our_modifier"]), their_modifier=int(r["their_modifier"]),
                              their_skill=str(r.get("their_skill", r.get("skill", "Diplomacy"))), winner=win))
    return out, sum(1 for o in out if o.winner == "you")


def diplomatic(a: Any, spec: Mapping[str, Any]) -> None:
    s: Pf1State = a.state
    rule = "opt §2.5"
    target = str(spec.get("target", ""))
    purpose = str(spec.get("purpose", "embassy"))
    fk = s.foreign.get(target)
    if fk is None:
        raise InputError(f"[{a.step}] unknown foreign kingdom {target!r}; registered: {', '.join(s.foreign)}")
    rel = s.relations.get(target, Relation())
    lock = rel.lockout_until
    t = s.turn
    need = {"embassy": "none", "threat": "none", "treaty": "embassy", "alliance": "treaty",
            "rebalance": "treaty", "renegotiate": "treaty", "independence": None}
    if purpose not in need:
        raise InputError(f"[{a.step}] purpose must be one of {', '.join(need)}")
    if need[purpose] is not None and rel.level != need[purpose]:
        raise a.refuse(f"a {purpose} needs relation level {need[purpose]!r} with {fk.name} (now {rel.level!r})",
                       "opt §2.5.1 levels rise one at a time")
    for p in ({"embassy": ["embassy"], "threat": ["embassy", "threat"]}.get(purpose, [purpose])):
        if lock.get(p, 0) > t:
            raise a.refuse(f"{purpose} with {fk.name} is locked out until turn {lock[p]}", "opt §2.5.6 lockout")
    bribe = int(spec.get("bribe_bp", 0))
    cost = a.roll("dip_cost", "1d4")[0]
    if bribe < 0 or bribe > s.treasury:
        raise a.refuse(f"bribes must be between 0 and the treasury ({s.treasury} BP)", "opt §2.5.2")
    fame, infamy = dv.fame_value(s), dv.infamy_value(s)
    step = int(s.opt("diplomatic_attitude_dc_step"))
    rel_mod = relationship_modifier(s, target)
    attitude = rel.attitude
    if purpose == "independence":
        if not rel.is_sponsor and rel.level == "none":
            raise a.refuse("negotiated independence is with the sponsor or patron kingdom", "opt §2.11")
        attitude = dv.shift_attitude(attitude, -2)

    def dc_for(att: str, threat: bool = False) -> dict[str, int]:
        return diplomatic_dc(infamy=infamy, size_target=fk.size, size_you=dv.size(s), align_you=s.alignment,
                             align_target=fk.alignment, rel=rel_mod, attitude=att, fame=fame, bribe=bribe,
                             step=step, threat=threat)

    fsb = fame // 10 if s.module_on("fame_infamy") and s.opt("diplomatic_fame_skill_bonus") else 0
    envoy = int(spec.get("envoy_modifier", 0)) + fsb
    fame_d = infamy_d = 0
    lockout: dict[str, int] = {}
    war = False
    level = rel.level
    checks: list[ev.SkillCheck] = []
    opposed: list[ev.Opposed] = []
    terms_out: Terms | None = None
    est: tuple[int, ...] = ()
    first_terms = dc_for(attitude, threat=purpose == "threat")
    emb_building = spec.get("embassy_building")
    if purpose == "embassy":
        c = _skill_check(a, "dip_check_1", "Diplomacy", envoy, first_terms["dc"])
        checks.append(c)
        if c.margin >= 5:
            level, attitude, fame_d, outcome = "embassy", dv.shift_attitude(attitude, 1), 1, "embassy"
        elif c.margin >= 0:
            level, outcome = "embassy", "embassy"
        else:
            lockout["embassy"] = t + 12
            outcome = "rejected"
            if c.margin <= -5:
                fame_d, attitude = -1, dv.shift_attitude(attitude, -1)
    elif purpose == "threat":
        armies = int(spec.get("armies", 0))
        isb = infamy // 10 if s.module_on("fame_infamy") and s.opt("diplomatic_fame_skill_bonus") else 0
        c = _skill_check(a, "dip_check_1", "Intimidate", int(spec.get("envoy_modifier", 0)) + infamy + armies + isb,
                         first_terms["dc"])
        checks.append(c)
        infamy_d = 1
        if c.margin >= 0:
            level, outcome = "embassy", "embassy"
        else:
            lockout["threat"] = t + 12
            outcome = "rejected"
            if c.margin >= -4:
                attitude, infamy_d = dv.shift_attitude(attitude, -1), 2
            else:
                attitude, infamy_d = dv.shift_attitude(attitude, -2), 3
            if (c.margin <= -5 or s.opt("diplomatic_war_on_any_threat_failure")) and attitude == "hostile":
                war, outcome = True, "war"
    elif purpose == "renegotiate":
        # Loyalty check; success: the five opposed checks again, the winner sets the terms (opt §2.5.6, D13)
        from kingdomlog.rulesets.pf1.decide import control_dc, kcheck

        tr = rel.treaty
        if tr is None:
            raise a.refuse("there are no treaty terms to renegotiate", "opt §2.5.6")
        loyalty = kcheck(s, "LOYALTY", a.d20("renegotiate_loyalty"), control_dc(s))
        if not loyalty.success:
            a.add(ev.DiplomaticEdictResolved(target=target, purpose="renegotiate", cost_roll=cost, bribe_bp=bribe,
                                             dc_terms=first_terms, outcome="unchanged", attitude_after=attitude,
                                             level_after=level, loyalty_check=loyalty, unrest_delta=1))
            return
        opposed, won = _opposed(a, spec, 5)
        adv = "you" if won >= 3 else "partner"
        balanced = (spec.get("choose", "balanced") if adv == "you"
                    else spec.get("partner_choice", "unbalanced")) == "balanced"
        terms_out = tr.model_copy(update={"balanced": balanced, "advantaged": adv, "bonus_you": treaty_bonus(
            tr.x_partner, balanced=balanced, we_advantaged=adv == "you")})
        a.add(ev.DiplomaticEdictResolved(target=target, purpose="renegotiate", cost_roll=cost, bribe_bp=bribe,
                                         dc_terms=first_terms, opposed=tuple(opposed),
                                         outcome=f"{'balanced' if balanced else 'unbalanced'} treaty, {adv} advantaged",
                                         attitude_after=attitude, level_after=level, terms=terms_out,
                                         loyalty_check=loyalty))
        return
    elif purpose == "rebalance":
        tr = rel.treaty
        if tr is None or tr.balanced or tr.advantaged != "partner":
            raise a.refuse("only an unbalanced treaty in the partner's favour can be rebalanced", "opt §2.5.6")
        terms_out = tr.model_copy(update={"balanced": True, "advantaged": "you",
                                          "bonus_you": treaty_bonus(tr.x_partner, balanced=True, we_advantaged=True)})
        outcome = "rebalanced"
    else:
        n, need_ok, n_opp, opp_need = {"treaty": (3, 2, 5, 3), "alliance": (6, 4, 3, 2),
                                       "independence": (6, 4, 0, 0)}[purpose]
        extreme = int(s.opt("diplomatic_extreme_margin"))
        for i in range(1, n + 1):
            terms_i = dc_for(attitude)
            c = _skill_check(a, f"dip_check_{i}", str(spec.get("skill", "Diplomacy")), envoy, terms_i["dc"])
            checks.append(c)
            if s.opt("diplomatic_attitude_shift_multi"):
                if c.margin >= extreme:
                    attitude = dv.shift_attitude(attitude, 1)
                elif c.margin <= -extreme:
                    attitude = dv.shift_attitude(attitude, -1)
        ok = sum(1 for c in checks if c.success)
        if purpose == "independence":
            if ok >= need_ok:
                outcome, level = "emancipated", "embassy"
            else:
                attitude = dv.shift_attitude(attitude, -1)
                outcome = "refused"
                war = attitude == "hostile"
        elif ok < need_ok:
            fame_d, outcome = -1, "rejected"
            lockout[purpose] = t + 12
        else:
            opposed, won = _opposed(a, spec, n_opp)
            adv = "you" if won >= opp_need else "partner"
            balanced = (spec.get("choose", "balanced") if adv == "you"
                        else spec.get("partner_choice", "unbalanced")) == "balanced"
            attr = "ECONOMY" if purpose == "treaty" else "STABILITY"
            x_you = int(dv.attribute(s, attr, exclude_relations=True).total)
            known = fk.economy if attr == "ECONOMY" else fk.stability
            if spec.get("x_partner") is not None:
                x_partner = int(spec["x_partner"])
            elif known is not None:
                x_partner = known
            else:
                est = a.roll("npc_estimate", "2d6")
                x_partner = sum(est) + fk.size
            bonus = treaty_bonus(x_partner, balanced=balanced, we_advantaged=adv == "you")
            order = sum(1 for k, r in s.relations.items() if k != target and getattr(r, purpose) is not None)
            terms_out = Terms(kind=purpose, balanced=balanced, advantaged=adv, established_turn=t,
                              x_you=x_you, x_partner=x_partner, bonus_you=bonus, order_index=order)
            level = purpose
            outcome = f"{'balanced' if balanced else 'unbalanced'} {purpose}"
            if adv == "you":
                if balanced:
                    fame_d = 1
                else:
                    infamy_d = 1
    if not s.module_on("fame_infamy"):
        fame_d = infamy_d = 0
    a.add(ev.DiplomaticEdictResolved(target=target, purpose=purpose, cost_roll=cost, bribe_bp=bribe,
                                     dc_terms=first_terms, checks=tuple(checks), opposed=tuple(opposed),
                                     successes=sum(1 for c in checks if c.success), outcome=outcome,
                                     attitude_after=attitude, level_after=level, fame_delta=fame_d,
                                     infamy_delta=infamy_d, lockout=lockout, war=war, terms=terms_out,
                                     estimate_roll=est))
    if emb_building and level != "none" and purpose in ("embassy", "threat"):
        bt = a.state.catalog.building(str(emb_building.get("type", "Mansion")))
        if bt.name not in ("Mansion", "Noble Villa"):
            raise a.refuse("an embassy building is a Mansion or a Noble Villa", "opt §2.5.6")
        if bt.cost > a.state.treasury:
            raise a.refuse(f"the {bt.name} costs {bt.cost} BP; the treasury holds {a.state.treasury}", "opt §2.5.6")
        a.add(ev.EmbassyBuildingAcquired(target=target, settlement=str(emb_building.get("settlement", "capital")),
                                         building_type=bt.name, cost_bp=bt.cost))
    del rule


def exploration(a: Any, spec: Mapping[str, Any]) -> None:
    """Exploration edict: 1d4 BP per month, paid in advance (opt §2.6)."""
    months = int(spec.get("months", 1))
    if months < 1:
        raise InputError(f"[{a.step}] an expedition lasts at least 1 month")
    if a.state.opt("exploration_cost_roll_mode") == "per_month":
        rolls = tuple(a.roll(f"explore_cost_{i}", "1d4")[0] for i in range(1, months + 1))
    else:
        rolls = (a.roll("explore_cost", "1d4")[0] * months,)
    if sum(rolls) > a.state.treasury and not a.state.opt("spending_below_zero_allowed"):
        raise a.refuse(f"the expedition costs {sum(rolls)} BP; the treasury holds {a.state.treasury}", "opt §2.6")
    a.add(ev.ExplorationEdictIssued(expedition=a.new_id("X"), months=months,
                                    route=tuple(str(h) for h in spec.get("route", ())), cost_rolls=rolls))


GOODS_EN = ("Guildhall", "Smithy", "Shop", "Trade Shop", "Tannery")
LUXURIES = ("Alchemist", "Caster's Tower", "Exotic Craftsman", "Herbalist", "Luxury Store", "Magic Shop")


def _count_in(s: Pf1State, city: str, names: Sequence[str]) -> int:
    want = {n.lower() for n in names}
    n = 0
    for b in dv.live_buildings(s):
        if b.city != city:
            continue
        t = s.catalog.building(b.type)
        if t.name.lower() in want or any(x.lower() in want for x in t.aliases):
            n += 1
    return n


def trade_type_bonus(s: Pf1State, r: TradeRoute) -> int:
    """Economy bonus of a route's type (opt §2.7.6)."""
    if r.type == "food":
        return dv.farms(s) // 10
    if r.type == "goods":
        names = GOODS_EN if s.opt("trade_goods_buildings") == "en" else tuple(x for x in GOODS_EN if x != "Shop")
        return _count_in(s, r.origin, names) // 10
    if r.type == "luxuries":
        return _count_in(s, r.origin, LUXURIES) // 10
    hexes = dv.claimed_hexes(s)
    mines = sum(1 for h in hexes if h.improvement == "MINE") if _count_in(s, r.origin, ("Foundry",)) else 0
    return (mines + sum(1 for h in hexes if h.improvement in ("QUARRY", "SAWMILL"))) // 10


def trade(a: Any, spec: Mapping[str, Any]) -> None:
    """Trade edict: path, TRL/RM/LM, DC, investment, arrival turn (opt §2.7)."""
    s: Pf1State = a.state
    rule = "opt §2.7"
    rtype = str(spec.get("type", "goods"))
    if rtype not in ("food", "goods", "luxuries", "raw_materials"):
        raise InputError(f"[{a.step}] trade route type is food, goods, luxuries or raw_materials")
    if any(r.type == rtype and r.status in ("in_transit", "established") for r in s.trade_routes):
        raise a.refuse(f"the kingdom already has a {rtype} route", "opt §2.7.1 one route per type")
    from kingdomlog.rulesets.pf1.decide import _city

    origin = _city(a, spec.get("origin"))
    invested = int(spec.get("invested_bp", 5))
    if invested < 5:
        raise a.refuse("a trade edict invests at least 5 BP", "opt §2.7.5")
    if invested > s.treasury and not s.opt("spending_below_zero_allowed"):
        raise a.refuse(f"investing {invested} BP but the treasury holds {s.treasury}", rule)
    need = {"food": ("Granary", "Stockyard"), "goods": ("Guildhall",), "luxuries": ("Luxury Store",),
            "raw_materials": ("Foundry",) if s.opt("trade_raw_materials_foundry") == "required_for_route" else ()}
    for b in need[rtype]:
        if not _count_in(s, origin.id, (b,)):
            raise a.refuse(f"a {rtype} route needs a {b} in {origin.name}", "opt §2.7.6")
    if rtype == "food" and dv.raw_consumption(s) >= 0:
        raise a.refuse("a food route needs Farms to bring Consumption below 0", "opt §2.7.6")
    try:
        path = tuple(ev.PathStep.model_validate(p) for p in spec.get("path", ()))
    except Exception as exc:
        raise InputError(f"[{a.step}] trade path: {exc}") from None
    if not path:
        raise InputError(f"[{a.step}] a trade route needs a path (list of hexes from the origin to the destination)")
    pier = bool(_count_in(s, origin.id, ("Piers",)))
    waterfront = bool(_count_in(s, origin.id, ("Waterfront",)))
    try:
        raw, days = trade_length(path, pier=pier or (waterfront and s.opt("trade_waterfront_implies_pier")),
                                 waterfront=waterfront, coastline_weight=float(s.opt("trade_coastline_weight")),
                                 reading=s.opt("trade_travel_time_reading"),
                                 open_days=float(s.opt("trade_overland_days_per_hex")))
    except ValueError as exc:
        raise a.refuse(str(exc), "opt §2.7.2") from None
    trl = math.floor(raw)
    rm = trl // 10
    size = dv.size(s)
    lm = max(0, trl - size) if s.opt("trade_lm_formula") == "trl_minus_size" else max(0, size - trl)
    mods = dv.effective_settlement(s, origin)
    terms = {"control_dc": int(dv.control_dc(s).total), "corruption": mods["corruption"], "rm": rm, "lm": lm,
             "productivity": -mods["productivity"]}
    dc = sum(terms.values())
    arrival = s.turn + math.floor(days / int(s.opt("days_per_turn")))
    a.add(ev.TradeEdictIssued(route=a.new_id("T"), route_type=rtype, partner=str(spec.get("partner", "")),
                              origin=origin.id, destination=str(spec.get("destination", "")), path=path,
                              invested_bp=invested, trl_raw=raw, trl=trl, rm=rm, lm=lm, dc=dc, dc_terms=terms,
                              travel_days=days, arrival_turn=arrival))


def trade_arrivals(a: Any) -> None:
    """Economy, Loyalty and Stability checks on arrival; payouts per 5 BP block (opt §2.7.5, §3)."""
    from kingdomlog.rulesets.pf1.decide import kcheck

    for r in a.state.trade_routes:
        if r.status != "in_transit" or r.arrival_turn > a.state.turn:
            continue
        checks = tuple(kcheck(a.state, attr, a.d20(f"trade_{r.id}_{attr.lower()}"), r.dc)
                       for attr in ("ECONOMY", "LOYALTY", "STABILITY"))
        n_ok = sum(1 for c in checks if c.success)
        blocks = r.invested_bp // 5
        rolls: tuple[tuple[int, ...], ...] = ()
        if n_ok == 0:
            a.add(ev.TradeExpeditionArrived(route=r.id, checks=checks, successes=0, status="failed",
                                            fame_delta=-1 if a.state.module_on("fame_infamy") else 0,
                                            unrest_delta=1))
            continue
        if n_ok == 1:
            rolls = tuple(a.roll(f"trade_{r.id}_block_{k}", "1d4") for k in range(1, blocks + 1))
            a.add(ev.TradeExpeditionArrived(route=r.id, checks=checks, successes=1, status="diverted",
                                            payout_rolls=rolls, treasury_delta=sum(sum(x) for x in rolls)))
            continue
        rolls = tuple(a.roll(f"trade_{r.id}_block_{k}", "2d4") for k in range(1, blocks + 1))
        rm_part = r.rm if a.state.opt("trade_treasury_reading") == "rm_once" else r.rm * blocks
        tier = 1 if n_ok == 2 else 2
        a.add(ev.TradeExpeditionArrived(
            route=r.id, checks=checks, successes=n_ok, status="established", payout_rolls=rolls,
            treasury_delta=rm_part + sum(sum(x) for x in rolls),
            fame_delta=1 if n_ok == 3 and a.state.module_on("fame_infamy") else 0, tier_economy=tier,
            type_bonus=trade_type_bonus(a.state, r)))


def vassalage(a: Any, spec: Mapping[str, Any]) -> None:
    """Vassalage edict: Viceroy, 1d4 BP, a grant up to a quarter of the treasury (opt §2.8, D7)."""
    s: Pf1State = a.state
    vassal = str(spec.get("vassal", ""))
    mode = str(spec.get("mode", "new_colony"))
    if not vassal or mode not in ("new_colony", "subjugation"):
        raise InputError(f"[{a.step}] vassalage needs vassal (a campaign/kingdom id) and mode new_colony|subjugation")
    if any(v.kingdom == vassal for v in s.vassals):
        raise a.refuse(f"{vassal} is already a vassal", "opt §2.8")
    cost = a.roll("vassal_cost", "1d4")[0]
    quarter = (s.treasury) // 4
    grant = int(spec.get("grant_bp", quarter if s.opt("vassal_grant_rule") == "exactly_quarter" else 1))
    if s.opt("vassal_grant_rule") == "exactly_quarter" and grant != quarter:
        raise a.refuse(f"the grant must be exactly a quarter of the treasury ({quarter} BP)", "opt §2.8 D7")
    if not 1 <= grant <= max(1, quarter):
        raise a.refuse(f"the grant must be between 1 and floor(treasury/4) = {quarter} BP", "opt §2.8 D7")
    ceded = tuple(str(h) for h in spec.get("ceded_hexes", ()))
    for h in ceded:
        if h not in s.hexes or not s.hexes[h].claimed:
            raise a.refuse(f"ceded hex {h} is not part of the kingdom", "opt §2.8")
    level = str(spec.get("initial_level", "embassy" if mode == "subjugation" else "treaty"))
    if mode == "subjugation" and level != "embassy":
        raise a.refuse("a subjugated kingdom starts with an embassy only", "opt §2.8")
    viceroy = spec.get("viceroy") or {}
    if not isinstance(viceroy, dict) or not viceroy.get("name"):
        raise InputError(f"[{a.step}] vassalage needs viceroy {{name, ability INT|WIS, modifier}}")
    terms: list[Terms] = []
    if mode == "new_colony" and level in ("treaty", "alliance"):
        balanced = bool(spec.get("balanced", True))
        kinds = ("treaty", "alliance") if level == "alliance" else ("treaty",)
        for k in kinds:
            x_key = "x_partner" if k == "treaty" else "x_partner_stability"
            if spec.get(x_key) is None:
                raise InputError(f"[{a.step}] a {k} with the new colony needs {x_key} (the colony's "
                                 f"{'Economy' if k == 'treaty' else 'Stability'})")
            xp = int(spec[x_key])
            attr = "ECONOMY" if k == "treaty" else "STABILITY"
            order = sum(1 for r in s.relations.values() if getattr(r, k) is not None)
            terms.append(Terms(kind=k, balanced=balanced, advantaged="you", established_turn=s.turn,
                               x_you=int(dv.attribute(s, attr, exclude_relations=True).total), x_partner=xp,
                               bonus_you=treaty_bonus(xp, balanced=balanced, we_advantaged=True),
                               order_index=order))
    a.add(ev.LeaderAssigned(role="VICEROY", name=str(viceroy["name"]), ability=str(viceroy.get("ability", "INT")),
                            modifier=int(viceroy.get("modifier", 0)), attributes=("ECONOMY",)))
    a.add(ev.VassalageEdictIssued(vassal=vassal, mode=mode, viceroy=str(viceroy["name"]), cost_roll=cost,
                                  grant_bp=grant, ceded_hexes=ceded, subjugated_size=int(spec.get("size", 0)),
                                  initial_level=level, terms=tuple(terms)))
    if mode == "subjugation":
        from kingdomlog.rulesets.pf1.decide import subjugation_check

        subjugation_check(a, vassal, int(spec.get("size", 0)), 0)


def relation_action(a: Any, act: Any) -> None:
    """Embassy permanence, treaty withdrawal, attacks and stationed allies (opt §2.5.6)."""
    from kingdomlog.rulesets.pf1.decide import control_dc, kcheck

    s: Pf1State = a.state
    if not s.module_on("diplomatic_edicts"):
        raise a.refuse("relations with other kingdoms need the diplomatic_edicts module", "opt §2.5")
    if not isinstance(act, dict) or act.get("action") not in ("close_embassy", "withdraw_treaty", "attack",
                                                                "ally_stationed"):
        raise InputError(f"[{a.step}] a relation action is {{action: close_embassy|withdraw_treaty|attack|"
                         f"ally_stationed, target}}; got {act!r}")
    action, target = act["action"], str(act.get("target", ""))
    if target not in s.foreign:
        raise InputError(f"[{a.step}] unknown foreign kingdom {target!r}")
    rel = s.relations.get(target, Relation())
    level = rel.level
    key = f"{action}_{target}"
    fame_on = s.module_on("fame_infamy")
    if action == "close_embassy":
        if level == "none":
            raise a.refuse(f"no embassy with {target} to close", "opt §2.5.6")
        c = kcheck(s, "LOYALTY", a.d20(key), control_dc(s))
        a.add(ev.RelationActionResolved(action=action, target=target, level_before=level, check=c,
                                        level_after="none" if c.success else level))
    elif action == "withdraw_treaty":
        if rel.treaty is None and level not in ("treaty", "alliance"):
            raise a.refuse(f"no treaty with {target} to withdraw from", "opt §2.5.6")
        c = kcheck(s, "LOYALTY", a.d20(key), control_dc(s))
        a.add(ev.RelationActionResolved(action=action, target=target, level_before=level, check=c,
                                        unrest_delta=1 if c.success else 2, level_after="embassy"))
    elif action == "attack":
        if level == "none":
            a.add(ev.RelationActionResolved(action=action, target=target, level_before=level, level_after="none",
                                            at_war=True))
            return
        c = kcheck(s, "LOYALTY", a.d20(key), control_dc(s))
        dice = {("embassy", True): ("", ""), ("embassy", False): ("", ""),
                ("treaty", True): ("1d2", "1d2"), ("treaty", False): ("1d4", "1d4"),
                ("alliance", True): ("1d4", "1d4"), ("alliance", False): ("2d4", "2d4")}[(level, c.success)]
        if level == "embassy":
            inf_d: tuple[int, ...] = ()
            un_d: tuple[int, ...] = ()
            inf, un = 1, 0 if c.success else 1
        else:
            inf_d, un_d = a.roll(f"{key}_infamy", dice[0]), a.roll(f"{key}_unrest", dice[1])
            inf, un = sum(inf_d), sum(un_d)
        a.add(ev.RelationActionResolved(action=action, target=target, level_before=level, check=c,
                                        infamy_dice=inf_d, unrest_dice=un_d, infamy_delta=inf if fame_on else 0,
                                        unrest_delta=un, level_after=level, at_war=True))
    else:
        if level != "alliance":
            raise a.refuse(f"{target} is not an ally", "opt §2.5.6 alliance")
        if act.get("aid_requested"):
            return
        c = kcheck(s, "LOYALTY", a.d20(key), control_dc(s))
        un_d = () if c.success else a.roll(f"{key}_unrest", "1d2")
        a.add(ev.RelationActionResolved(action=action, target=target, level_before=level, check=c,
                                        unrest_dice=un_d, unrest_delta=sum(un_d), level_after=level))


# ------------------------------------------------------------------ event phase


def event_phase_modules(a: Any, ch: Mapping[str, Any]) -> None:
    """Expeditions' month, independence and union (opt §2.6, §2.11)."""
    s: Pf1State = a.state
    exp = dict(ch.get("expeditions") or {})
    if exp and not s.module_on("exploration_edicts"):
        raise a.refuse("expedition reports need the exploration_edicts module", "opt §2.6")
    for x in s.expeditions:
        if x.status not in ("active", "scattered_this_month") or x.issued_turn > s.turn:
            continue
        rep = dict(exp.pop(x.id, {}) or {})
        disc = tuple(str(d) for d in rep.get("discoveries", ()))
        cr = rep.get("cr")
        if cr is not None:
            crv = float(cr)
            stealth = None
            if rep.get("stealth_modifier") is not None:
                stealth = _skill_check(a, f"exp_{x.id}_stealth", "Stealth", int(rep["stealth_modifier"]),
                                       10 + math.floor(2 * crv))
            if stealth is None or not stealth.success:
                from kingdomlog.rulesets.pf1.decide import control_dc, kcheck

                c = kcheck(a.state, "STABILITY", a.d20(f"exp_{x.id}_stability"),
                           control_dc(a.state) + math.floor(2 * crv))
                a.add(ev.ExpeditionProgressed(expedition=x.id, cr=crv, stealth=stealth, stability=c,
                                              outcome="scattered" if c.success else "lost", discoveries=disc,
                                              unrest_delta=0 if c.success else 1))
                continue
            a.add(ev.ExpeditionProgressed(expedition=x.id, cr=crv, stealth=stealth,
                                          outcome="returned" if x.months_elapsed + 1 >= x.months else "progressed",
                                          discoveries=disc))
            continue
        a.add(ev.ExpeditionProgressed(expedition=x.id,
                                      outcome="returned" if x.months_elapsed + 1 >= x.months else "progressed",
                                      discoveries=disc))
    if exp:
        raise InputError(f"[{a.step}] reports for unknown or finished expeditions: {sorted(exp)}")
    ind = ch.get("independence")
    uni = ch.get("union")
    if (ind or uni) and not s.module_on("independence_unification"):
        raise a.refuse("independence and union need the independence_unification module", "opt §2.11")
    if ind:
        daughters = tuple(ev.Daughter.model_validate(d) for d in ind.get("daughters", ()))
        if len(daughters) < 2:
            raise a.refuse("independence splits into at least two kingdoms", "opt §2.11 step 1")
        hexes = sorted(h for d in daughters for h in d.hexes)
        mine = sorted(h.id for h in dv.claimed_hexes(s))
        if hexes != mine:
            raise a.refuse(f"the daughters' hexes must split the kingdom's hexes exactly ({len(mine)} hexes)",
                           "opt §2.11 step 2")
        if sum(d.treasury_bp for d in daughters) != s.treasury:
            raise a.refuse(f"the daughters' treasuries must sum to {s.treasury} BP", "opt §2.11 step 2")
        uns = int(ind.get("non_structural_unrest", 0))
        if not 0 <= uns <= s.unrest:
            raise a.refuse(f"non-structural Unrest must be between 0 and {s.unrest}", "opt §4.2 U9")
        kept = ind.get("kept_by")
        if kept is not None and kept not in {d.campaign for d in daughters}:
            raise InputError(f"[{a.step}] kept_by must name one of the daughters")
        a.add(ev.IndependenceDeclared(daughters=daughters, non_structural_unrest=uns,
                                      share=max(1, uns // len(daughters)), kept_by=kept))
    if uni:
        members = tuple(str(m) for m in uni.get("members", ()))
        if s.campaign not in members or len(members) < 2:
            raise a.refuse("a union has at least two members, this campaign among them", "opt §2.11")
        uns_map = {str(k): int(v) for k, v in dict(uni.get("non_structural_unrest", {})).items()}
        if set(uns_map) != set(members):
            raise InputError(f"[{a.step}] non_structural_unrest must name every member")
        mean = sum(uns_map.values()) / len(uns_map)
        a.add(ev.UnionFormed(members=members, new_campaign=str(uni.get("new_campaign", "")),
                             non_structural_unrest=uns_map, union_unrest=max(1, math.floor(mean))))
