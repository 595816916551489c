"""The Ultimate Campaign optional modules' step procedures (spec ``pf1-ultimate-campaign-optional.md``).

Special edicts (opt §1.4), relations with other kingdoms (opt §2.5.6) and the event phase of
expeditions, independence and union (opt §2.6, §2.11), each a function of the shared
``StepContext`` and its typed choices. Their kernels (``diplomatic_dc``, ``treaty_bonus``,
``trade_length``) are in :mod:`~kingdomlog.rulesets.pf1.rules`.
"""

from __future__ import annotations

import math
from typing import Literal

from kingdomlog.core.errors import InputError
from kingdomlog.core.ruleset import Breakdown, Term
from kingdomlog.rulesets.pf1 import choices as ch
from kingdomlog.rulesets.pf1 import derive as dv
from kingdomlog.rulesets.pf1 import events as ev
from kingdomlog.rulesets.pf1.helpers import (
    Ctx,
    control_check,
    faces,
    find_city,
    given,
    kcheck,
    new_id,
    place,
    skill_check,
    subjugation_check,
)
from kingdomlog.rulesets.pf1.rules import diplomatic_dc, shift_attitude, trade_length, treaty_bonus
from kingdomlog.rulesets.pf1.state import Pf1State, Relation, Terms
from kingdomlog.rulesets.pf1.tables import SETTLEMENT_MODIFIERS

# ------------------------------------------------------------------ special edicts


def special_edict(ctx: Ctx, spec: ch.DiplomaticEdict | ch.TradeEdict | ch.ExplorationEdict | ch.VassalageEdict
                  ) -> None:
    """One special edict per turn, after the standard edicts (opt §1.4)."""
    s = ctx.state
    kind = spec.kind
    module = f"{kind}_edicts"
    if not s.module_on(module):
        raise ctx.fail(f"a {kind} edict needs the {module} module, which is off in this campaign", "opt §1.1")
    if s.special_edict_turn == s.turn:
        raise ctx.fail("only one special edict per turn", "opt §1.4")
    if kind in ("diplomatic", "exploration") and not dv.role_effective(s, "GRAND_DIPLOMAT"):
        raise ctx.fail(f"no {kind} edict while the Grand Diplomat is vacant", "opt §1.4")
    if isinstance(spec, ch.DiplomaticEdict):
        diplomatic(ctx, spec)
    elif isinstance(spec, ch.ExplorationEdict):
        exploration(ctx, spec)
    elif isinstance(spec, ch.TradeEdict):
        trade(ctx, spec)
    else:
        vassalage(ctx, spec)


def _opposed(ctx: Ctx, spec: ch.DiplomaticEdict, n: int) -> tuple[list[ev.Opposed], int]:
    rows = spec.opposed
    if len(rows) != n:
        raise InputError(f"[{ctx.step}] {n} opposed checks needed (opposed: [{{skill, our_modifier, their_skill, "
                         f"their_modifier}}]), got {len(rows)}")
    out = []
    for i, r in enumerate(rows, 1):
        ours: list[int] = []
        theirs: list[int] = []
        for k in range(1, 11):  # ties are rerolled
            ours.append(faces(ctx, f"opp_{i}_ours_{k}", "1d20")[0])
            theirs.append(faces(ctx, f"opp_{i}_theirs_{k}", "1d20")[0])
            if ours[-1] + r.our_modifier != theirs[-1] + r.their_modifier:
                break
        win = "you" if ours[-1] + r.our_modifier > theirs[-1] + r.their_modifier else "partner"
        out.append(ev.Opposed(skill=r.skill, ours=tuple(ours), theirs=tuple(theirs), our_modifier=r.our_modifier,
                              their_modifier=r.their_modifier,
                              their_skill=r.their_skill if r.their_skill is not None else r.skill, winner=win))
    return out, sum(1 for o in out if o.winner == "you")


def _dc_breakdown(terms: dict[str, int], what: str) -> Breakdown:
    parts = tuple(Term(k, v) for k, v in terms.items() if k != "dc")
    return Breakdown(f"{what} DC", terms["dc"], parts, note="opt §2.5.3")


def diplomatic(ctx: Ctx, spec: ch.DiplomaticEdict) -> None:
    s = ctx.state
    target = spec.target
    purpose = spec.purpose
    fk = s.foreign.get(target)
    if fk is None:
        raise InputError(f"[{ctx.step}] unknown foreign kingdom {target!r}; registered: {', '.join(s.foreign)}")
    rel = s.relations.get(target, Relation())
    lock = rel.lockout_until
    t = s.turn
    need = {"embassy": "none", "threat": "none", "treaty": "embassy", "alliance": "treaty",
            "rebalance": "treaty", "renegotiate": "treaty", "independence": None}
    if need[purpose] is not None and rel.level != need[purpose]:
        raise ctx.fail(f"a {purpose} needs relation level {need[purpose]!r} with {fk.name} (now {rel.level!r})",
                       "opt §2.5.1 levels rise one at a time")
    for p in ({"embassy": ["embassy"], "threat": ["embassy", "threat"]}.get(purpose, [purpose])):
        if lock.get(p, 0) > t:
            raise ctx.fail(f"{purpose} with {fk.name} is locked out until turn {lock[p]}", "opt §2.5.6 lockout")
    bribe = spec.bribe_bp
    cost = faces(ctx, "dip_cost", "1d4")[0]
    if bribe < 0 or bribe > s.treasury:
        raise ctx.fail(f"bribes must be between 0 and the treasury ({s.treasury} BP)", "opt §2.5.2")
    fame, infamy = dv.fame_value(s), dv.infamy_value(s)
    step = int(s.opt("diplomatic_attitude_dc_step"))
    rel_mod = dv.relationship_modifier(s, target)
    attitude = rel.attitude
    if purpose == "independence":
        if not rel.is_sponsor and rel.level == "none":
            raise ctx.fail("negotiated independence is with the sponsor or patron kingdom", "opt §2.11")
        attitude = shift_attitude(attitude, -2)

    def dc_for(att: str, threat: bool = False) -> dict[str, int]:
        return diplomatic_dc(infamy=infamy, size_target=fk.size, size_you=dv.size(s), align_you=s.alignment,
                             align_target=fk.alignment, rel=rel_mod, attitude=att, fame=fame, bribe=bribe,
                             step=step, threat=threat)

    fsb = fame // 10 if s.module_on("fame_infamy") and s.opt("diplomatic_fame_skill_bonus") else 0
    envoy = spec.envoy_modifier + fsb
    fame_d = infamy_d = 0
    lockout: dict[str, int] = {}
    war = False
    level = rel.level
    checks: list[ev.SkillCheck] = []
    opposed: list[ev.Opposed] = []
    terms_out: Terms | None = None
    est: tuple[int, ...] = ()
    first_terms = dc_for(attitude, threat=purpose == "threat")
    ctx.explain(_dc_breakdown(first_terms, f"Diplomatic edict ({purpose}) with {fk.name}"))
    emb_building = spec.embassy_building
    if purpose == "embassy":
        c = skill_check(ctx, "dip_check_1", "Diplomacy", envoy, first_terms["dc"])
        checks.append(c)
        if c.margin >= 5:
            level, attitude, fame_d, outcome = "embassy", shift_attitude(attitude, 1), 1, "embassy"
        elif c.margin >= 0:
            level, outcome = "embassy", "embassy"
        else:
            lockout["embassy"] = t + 12
            outcome = "rejected"
            if c.margin <= -5:
                fame_d, attitude = -1, shift_attitude(attitude, -1)
    elif purpose == "threat":
        isb = infamy // 10 if s.module_on("fame_infamy") and s.opt("diplomatic_fame_skill_bonus") else 0
        c = skill_check(ctx, "dip_check_1", "Intimidate", spec.envoy_modifier + infamy + spec.armies + isb,
                        first_terms["dc"])
        checks.append(c)
        infamy_d = 1
        if c.margin >= 0:
            level, outcome = "embassy", "embassy"
        else:
            lockout["threat"] = t + 12
            outcome = "rejected"
            if c.margin >= -4:
                attitude, infamy_d = shift_attitude(attitude, -1), 2
            else:
                attitude, infamy_d = shift_attitude(attitude, -2), 3
            if (c.margin <= -5 or s.opt("diplomatic_war_on_any_threat_failure")) and attitude == "hostile":
                war, outcome = True, "war"
    elif purpose == "renegotiate":
        # Loyalty check; success: the five opposed checks again, the winner sets the terms (opt §2.5.6, D13)
        tr = rel.treaty
        if tr is None:
            raise ctx.fail("there are no treaty terms to renegotiate", "opt §2.5.6")
        loyalty = control_check(ctx, "renegotiate_loyalty", "LOYALTY")
        if not loyalty.success:
            ctx.emit(ev.DiplomaticEdictResolved(target=target, purpose="renegotiate", cost_roll=cost, bribe_bp=bribe,
                                                dc_terms=first_terms, outcome="unchanged", attitude_after=attitude,
                                                level_after=level, loyalty_check=loyalty, unrest_delta=1))
            return
        opposed, won = _opposed(ctx, spec, 5)
        adv = "you" if won >= 3 else "partner"
        balanced = (spec.choose if adv == "you" else spec.partner_choice) == "balanced"
        terms_out = tr.model_copy(update={"balanced": balanced, "advantaged": adv, "bonus_you": treaty_bonus(
            tr.x_partner, balanced=balanced, we_advantaged=adv == "you")})
        ctx.emit(ev.DiplomaticEdictResolved(target=target, purpose="renegotiate", cost_roll=cost, bribe_bp=bribe,
                                            dc_terms=first_terms, opposed=tuple(opposed),
                                            outcome=f"{'balanced' if balanced else 'unbalanced'} treaty, {adv} "
                                                    "advantaged",
                                            attitude_after=attitude, level_after=level, terms=terms_out,
                                            loyalty_check=loyalty))
        return
    elif purpose == "rebalance":
        tr = rel.treaty
        if tr is None or tr.balanced or tr.advantaged != "partner":
            raise ctx.fail("only an unbalanced treaty in the partner's favour can be rebalanced", "opt §2.5.6")
        terms_out = tr.model_copy(update={"balanced": True, "advantaged": "you",
                                          "bonus_you": treaty_bonus(tr.x_partner, balanced=True, we_advantaged=True)})
        outcome = "rebalanced"
    else:
        n, need_ok, n_opp, opp_need = {"treaty": (3, 2, 5, 3), "alliance": (6, 4, 3, 2),
                                       "independence": (6, 4, 0, 0)}[purpose]
        extreme = int(s.opt("diplomatic_extreme_margin"))
        for i in range(1, n + 1):
            terms_i = dc_for(attitude)
            if i > 1 and terms_i != first_terms:
                ctx.explain(_dc_breakdown(terms_i, f"Diplomatic check {i} ({attitude})"))
            c = skill_check(ctx, f"dip_check_{i}", spec.skill, envoy, terms_i["dc"])
            checks.append(c)
            if s.opt("diplomatic_attitude_shift_multi"):
                if c.margin >= extreme:
                    attitude = shift_attitude(attitude, 1)
                elif c.margin <= -extreme:
                    attitude = shift_attitude(attitude, -1)
        ok = sum(1 for c in checks if c.success)
        if purpose == "independence":
            if ok >= need_ok:
                outcome, level = "emancipated", "embassy"
            else:
                attitude = shift_attitude(attitude, -1)
                outcome = "refused"
                war = attitude == "hostile"
        elif ok < need_ok:
            fame_d, outcome = -1, "rejected"
            lockout[purpose] = t + 12
        else:
            opposed, won = _opposed(ctx, spec, n_opp)
            adv = "you" if won >= opp_need else "partner"
            balanced = (spec.choose if adv == "you" else spec.partner_choice) == "balanced"
            attr = "ECONOMY" if purpose == "treaty" else "STABILITY"
            x_you = int(dv.attribute(s, attr, exclude_relations=True).total)
            known = fk.economy if attr == "ECONOMY" else fk.stability
            if spec.x_partner is not None:
                x_partner = spec.x_partner
            elif known is not None:
                x_partner = known
            else:
                est = faces(ctx, "npc_estimate", "2d6")
                x_partner = sum(est) + fk.size
            bonus = treaty_bonus(x_partner, balanced=balanced, we_advantaged=adv == "you")
            order = sum(1 for k, r in s.relations.items() if k != target and getattr(r, purpose) is not None)
            terms_out = Terms(kind="treaty" if purpose == "treaty" else "alliance", balanced=balanced, advantaged=adv,
                              established_turn=t, x_you=x_you, x_partner=x_partner, bonus_you=bonus,
                              order_index=order)
            level = purpose
            outcome = f"{'balanced' if balanced else 'unbalanced'} {purpose}"
            if adv == "you":
                if balanced:
                    fame_d = 1
                else:
                    infamy_d = 1
    if not s.module_on("fame_infamy"):
        fame_d = infamy_d = 0
    ctx.emit(ev.DiplomaticEdictResolved(target=target, purpose=purpose, cost_roll=cost, bribe_bp=bribe,
                                        dc_terms=first_terms, checks=tuple(checks), opposed=tuple(opposed),
                                        successes=sum(1 for c in checks if c.success), outcome=outcome,
                                        attitude_after=attitude, level_after=level, fame_delta=fame_d,
                                        infamy_delta=infamy_d, lockout=lockout, war=war, terms=terms_out,
                                        estimate_roll=est))
    if given(emb_building) and emb_building is not None and level != "none" and purpose in ("embassy", "threat"):
        bt = ctx.state.catalog.building(emb_building.type)
        if bt.name not in ("Mansion", "Noble Villa"):
            raise ctx.fail("an embassy building is a Mansion or a Noble Villa", "opt §2.5.6")
        if bt.cost > ctx.state.treasury:
            raise ctx.fail(f"the {bt.name} costs {bt.cost} BP; the treasury holds {ctx.state.treasury}", "opt §2.5.6")
        delta = {m: bt.settlement.get(m) + (2 if m == "society" else 0) for m in SETTLEMENT_MODIFIERS}
        ctx.emit(ev.EmbassyBuildingAcquired(target=target, settlement=emb_building.settlement,
                                            building_type=bt.name, cost_bp=bt.cost,
                                            settlement_delta={m: v for m, v in delta.items() if v}))


def exploration(ctx: Ctx, spec: ch.ExplorationEdict) -> None:
    """Exploration edict: 1d4 BP per month, paid in advance (opt §2.6)."""
    months = spec.months
    if ctx.state.opt("exploration_cost_roll_mode") == "per_month":
        rolls = tuple(faces(ctx, f"explore_cost_{i}", "1d4")[0] for i in range(1, months + 1))
    else:
        rolls = (faces(ctx, "explore_cost", "1d4")[0] * months,)
    if sum(rolls) > ctx.state.treasury and not ctx.state.opt("spending_below_zero_allowed"):
        raise ctx.fail(f"the expedition costs {sum(rolls)} BP; the treasury holds {ctx.state.treasury}", "opt §2.6")
    ctx.emit(ev.ExplorationEdictIssued(expedition=new_id(ctx, "X"), months=months, route=tuple(spec.route),
                                       cost_rolls=rolls))


def trade(ctx: Ctx, spec: ch.TradeEdict) -> None:
    """Trade edict: path, TRL/RM/LM, DC, investment, arrival turn (opt §2.7)."""
    s = ctx.state
    rule = "opt §2.7"
    rtype = spec.type
    if any(r.type == rtype and r.status in ("in_transit", "established") for r in s.trade_routes):
        raise ctx.fail(f"the kingdom already has a {rtype} route", "opt §2.7.1 one route per type")
    origin = find_city(ctx, spec.origin)
    invested = spec.invested_bp
    if invested < 5:
        raise ctx.fail("a trade edict invests at least 5 BP", "opt §2.7.5")
    if invested > s.treasury and not s.opt("spending_below_zero_allowed"):
        raise ctx.fail(f"investing {invested} BP but the treasury holds {s.treasury}", rule)
    need = {"food": ("Granary", "Stockyard"), "goods": ("Guildhall",), "luxuries": ("Luxury Store",),
            "raw_materials": ("Foundry",) if s.opt("trade_raw_materials_foundry") == "required_for_route" else ()}
    for b in need[rtype]:
        if not dv.count_in(s, origin.id, (b,)):
            raise ctx.fail(f"a {rtype} route needs a {b} in {origin.name}", "opt §2.7.6")
    if rtype == "food" and dv.raw_consumption(s) >= 0:
        raise ctx.fail("a food route needs Farms to bring Consumption below 0", "opt §2.7.6")
    path = tuple(ev.PathStep(**p.model_dump()) for p in spec.path)
    if not path:
        raise InputError(f"[{ctx.step}] a trade route needs a path (list of hexes from the origin to the destination)")
    pier = bool(dv.count_in(s, origin.id, ("Piers",)))
    waterfront = bool(dv.count_in(s, origin.id, ("Waterfront",)))
    try:
        raw, days = trade_length(path, pier=pier or (waterfront and s.opt("trade_waterfront_implies_pier")),
                                 waterfront=waterfront, coastline_weight=float(s.opt("trade_coastline_weight")),
                                 reading=s.opt("trade_travel_time_reading"),
                                 open_days=float(s.opt("trade_overland_days_per_hex")))
    except ValueError as exc:
        raise ctx.fail(str(exc), "opt §2.7.2") from None
    trl = math.floor(raw)
    rm = trl // 10
    size = dv.size(s)
    lm = max(0, trl - size) if s.opt("trade_lm_formula") == "trl_minus_size" else max(0, size - trl)
    mods = dv.effective_settlement(s, origin)
    terms = {"control_dc": int(dv.control_dc(s).total), "corruption": mods["corruption"], "rm": rm, "lm": lm,
             "productivity": -mods["productivity"]}
    dc = sum(terms.values())
    ctx.explain(Breakdown("Trade route DC", dc, tuple(Term(k, v) for k, v in terms.items()),
                          note=f"TRL {trl} (raw {raw:g}), travel {days:g} days (opt §2.7)"))
    arrival = s.turn + math.floor(days / int(s.opt("days_per_turn")))
    ctx.emit(ev.TradeEdictIssued(route=new_id(ctx, "T"), route_type=rtype, partner=spec.partner, origin=origin.id,
                                 destination=spec.destination, path=path, invested_bp=invested, trl_raw=raw, trl=trl,
                                 rm=rm, lm=lm, dc=dc, dc_terms=terms, travel_days=days, arrival_turn=arrival))


def trade_arrivals(ctx: Ctx) -> None:
    """Economy, Loyalty and Stability checks on arrival; payouts per 5 BP block (opt §2.7.5, §3)."""
    for r in ctx.state.trade_routes:
        if r.status != "in_transit" or r.arrival_turn > ctx.state.turn:
            continue
        checks = tuple(kcheck(ctx, f"trade_{r.id}_{attr.lower()}", attr, r.dc)
                       for attr in ("ECONOMY", "LOYALTY", "STABILITY"))
        n_ok = sum(1 for c in checks if c.success)
        blocks = r.invested_bp // 5
        rolls: tuple[tuple[int, ...], ...] = ()
        if n_ok == 0:
            ctx.emit(ev.TradeExpeditionArrived(route=r.id, checks=checks, successes=0, status="failed",
                                               fame_delta=-1 if ctx.state.module_on("fame_infamy") else 0,
                                               unrest_delta=1))
            continue
        if n_ok == 1:
            rolls = tuple(faces(ctx, f"trade_{r.id}_block_{k}", "1d4") for k in range(1, blocks + 1))
            ctx.emit(ev.TradeExpeditionArrived(route=r.id, checks=checks, successes=1, status="diverted",
                                               payout_rolls=rolls, treasury_delta=sum(sum(x) for x in rolls)))
            continue
        rolls = tuple(faces(ctx, f"trade_{r.id}_block_{k}", "2d4") for k in range(1, blocks + 1))
        rm_part = r.rm if ctx.state.opt("trade_treasury_reading") == "rm_once" else r.rm * blocks
        tier = 1 if n_ok == 2 else 2
        ctx.emit(ev.TradeExpeditionArrived(
            route=r.id, checks=checks, successes=n_ok, status="established", payout_rolls=rolls,
            treasury_delta=rm_part + sum(sum(x) for x in rolls),
            fame_delta=1 if n_ok == 3 and ctx.state.module_on("fame_infamy") else 0, tier_economy=tier,
            type_bonus=dv.trade_type_bonus(ctx.state, r)))


def vassalage(ctx: Ctx, spec: ch.VassalageEdict) -> None:
    """Vassalage edict: Viceroy, 1d4 BP, a grant up to a quarter of the treasury (opt §2.8, D7)."""
    s = ctx.state
    vassal = spec.vassal
    mode = spec.mode
    if not vassal:
        raise InputError(f"[{ctx.step}] vassalage needs vassal (a campaign/kingdom id) and mode new_colony|subjugation")
    if any(v.kingdom == vassal for v in s.vassals):
        raise ctx.fail(f"{vassal} is already a vassal", "opt §2.8")
    cost = faces(ctx, "vassal_cost", "1d4")[0]
    quarter = (s.treasury) // 4
    if spec.grant_bp is not None:
        grant = spec.grant_bp
    else:
        grant = quarter if s.opt("vassal_grant_rule") == "exactly_quarter" else 1
    if s.opt("vassal_grant_rule") == "exactly_quarter" and grant != quarter:
        raise ctx.fail(f"the grant must be exactly a quarter of the treasury ({quarter} BP)", "opt §2.8 D7")
    if not 1 <= grant <= max(1, quarter):
        raise ctx.fail(f"the grant must be between 1 and floor(treasury/4) = {quarter} BP", "opt §2.8 D7")
    ceded = tuple(spec.ceded_hexes)
    for h in ceded:
        if h not in s.hexes or not s.hexes[h].claimed:
            raise ctx.fail(f"ceded hex {h} is not part of the kingdom", "opt §2.8")
    level = spec.initial_level or ("embassy" if mode == "subjugation" else "treaty")
    if mode == "subjugation" and level != "embassy":
        raise ctx.fail("a subjugated kingdom starts with an embassy only", "opt §2.8")
    viceroy = spec.viceroy
    if viceroy is None:
        raise InputError(f"[{ctx.step}] vassalage needs viceroy {{name, ability INT|WIS, modifier}}")
    terms: list[Terms] = []
    if mode == "new_colony" and level in ("treaty", "alliance"):
        balanced = spec.balanced
        kinds: tuple[Literal["treaty", "alliance"], ...] = ("treaty", "alliance") if level == "alliance" else (
            "treaty",)
        for k in kinds:
            xp = spec.x_partner if k == "treaty" else spec.x_partner_stability
            if xp is None:
                x_key = "x_partner" if k == "treaty" else "x_partner_stability"
                raise InputError(f"[{ctx.step}] a {k} with the new colony needs {x_key} (the colony's "
                                 f"{'Economy' if k == 'treaty' else 'Stability'})")
            attr = "ECONOMY" if k == "treaty" else "STABILITY"
            order = sum(1 for r in s.relations.values() if getattr(r, k) is not None)
            terms.append(Terms(kind=k, balanced=balanced, advantaged="you", established_turn=s.turn,
                               x_you=int(dv.attribute(s, attr, exclude_relations=True).total), x_partner=xp,
                               bonus_you=treaty_bonus(xp, balanced=balanced, we_advantaged=True),
                               order_index=order))
    ctx.emit(ev.LeaderAssigned(role="VICEROY", name=viceroy.name, ability=viceroy.ability,
                               modifier=viceroy.modifier, attributes=("ECONOMY",)))
    ctx.emit(ev.VassalageEdictIssued(vassal=vassal, mode=mode, viceroy=viceroy.name, cost_roll=cost,
                                     grant_bp=grant, ceded_hexes=ceded, subjugated_size=spec.size,
                                     initial_level=level, terms=tuple(terms)))
    if mode == "subjugation":
        subjugation_check(ctx, vassal, spec.size, 0)


def relation_action(ctx: Ctx, act: ch.RelationActionEntry) -> None:
    """Embassy permanence, treaty withdrawal, attacks and stationed allies (opt §2.5.6)."""
    s = ctx.state
    if not s.module_on("diplomatic_edicts"):
        raise ctx.fail("relations with other kingdoms need the diplomatic_edicts module", "opt §2.5")
    action, target = act.action, act.target
    if target not in s.foreign:
        raise InputError(f"[{ctx.step}] unknown foreign kingdom {target!r}")
    rel = s.relations.get(target, Relation())
    level = rel.level
    key = f"{action}_{target}"
    fame_on = s.module_on("fame_infamy")
    if action == "close_embassy":
        if level == "none":
            raise ctx.fail(f"no embassy with {target} to close", "opt §2.5.6")
        c = control_check(ctx, key, "LOYALTY")
        ctx.emit(ev.RelationActionResolved(action=action, target=target, level_before=level, check=c,
                                           level_after="none" if c.success else level))
    elif action == "withdraw_treaty":
        if rel.treaty is None and level not in ("treaty", "alliance"):
            raise ctx.fail(f"no treaty with {target} to withdraw from", "opt §2.5.6")
        c = control_check(ctx, key, "LOYALTY")
        ctx.emit(ev.RelationActionResolved(action=action, target=target, level_before=level, check=c,
                                           unrest_delta=1 if c.success else 2, level_after="embassy"))
    elif action == "attack":
        if level == "none":
            ctx.emit(ev.RelationActionResolved(action=action, target=target, level_before=level, level_after="none",
                                               at_war=True))
            return
        c = control_check(ctx, key, "LOYALTY")
        dice = {("embassy", True): ("", ""), ("embassy", False): ("", ""),
                ("treaty", True): ("1d2", "1d2"), ("treaty", False): ("1d4", "1d4"),
                ("alliance", True): ("1d4", "1d4"), ("alliance", False): ("2d4", "2d4")}[(level, c.success)]
        if level == "embassy":
            inf_d: tuple[int, ...] = ()
            un_d: tuple[int, ...] = ()
            inf, un = 1, 0 if c.success else 1
        else:
            inf_d, un_d = faces(ctx, f"{key}_infamy", dice[0]), faces(ctx, f"{key}_unrest", dice[1])
            inf, un = sum(inf_d), sum(un_d)
        ctx.emit(ev.RelationActionResolved(action=action, target=target, level_before=level, check=c,
                                           infamy_dice=inf_d, unrest_dice=un_d, infamy_delta=inf if fame_on else 0,
                                           unrest_delta=un, level_after=level, at_war=True))
    elif action == "aid_refused":  # an ally failed to send aid: its Infamy +1d4 if the GM applies it
        if level != "alliance":
            raise ctx.fail(f"{target} is not an ally: only an ally is called for aid", "opt §2.5.6 alliance")
        d4 = faces(ctx, key, "1d4")[0] if act.gm_applies else None
        ctx.emit(ev.AidRefused(ally=target, gm_applies=act.gm_applies, d4=d4, infamy_delta=d4 or 0))
    elif action == "foreign_embassy":  # they build their embassy in one of our settlements
        if level == "none":
            raise ctx.fail(f"{target} has no embassy agreement with us", "opt §2.5.6 embassy building")
        if rel.their_embassy_here:
            raise ctx.fail(f"{target} already has its embassy in {rel.their_embassy_here}", "opt §2.5.6")
        city = find_city(ctx, act.city)
        t = s.catalog.building(act.building)
        did = next((d for d in city.districts if s.districts[d].status == "READY"
                    and 36 - len(dv.occupied(s, d)) >= t.lots), None)
        if did is None:
            raise ctx.fail(f"{city.name} has no free lots for a {t.name}", "base §2.8")
        lots = place(ctx, did, t.lots, None, "opt §2.5.6 embassy building")
        ctx.emit(ev.ForeignEmbassyBuilt(kingdom=target, building=new_id(ctx, "B"), city=city.id, district=did,
                                        building_type=t.name, lots=lots))
    else:
        if level != "alliance":
            raise ctx.fail(f"{target} is not an ally", "opt §2.5.6 alliance")
        if act.aid_requested:
            return
        c = control_check(ctx, key, "LOYALTY")
        un_d = () if c.success else faces(ctx, f"{key}_unrest", "1d2")
        ctx.emit(ev.RelationActionResolved(action=action, target=target, level_before=level, check=c,
                                           unrest_dice=un_d, unrest_delta=sum(un_d), level_after=level))


# ------------------------------------------------------------------ event phase


MAP_FEATURES = ("LAIR", "LANDMARK", "RESOURCE", "CAVE")


def searches(ctx: Ctx, expedition: str, route: tuple[str, ...], entries: list[ch.SearchEntry]) -> None:
    """Each further day in a hex, Knowledge (geography) and/or Survival checks find hidden features; DC 15-30 set
    by the GM; at most one check per skill per day (opt §2.6 rule 3). A found LAIR, LANDMARK, RESOURCE or CAVE
    joins the hex's map features."""
    seen: set[tuple[str, int, str]] = set()
    for i, q in enumerate(entries, 1):
        if q.hex not in route:
            raise ctx.fail(f"hex {q.hex!r} is not on expedition {expedition}'s route ({', '.join(route)})",
                           "opt §2.6 rule 1 (the route is planned in advance)")
        k = (q.hex, q.day, q.skill)
        if k in seen:
            raise ctx.fail(f"one {q.skill} check per day: day {q.day} in {q.hex} has one already", "opt §2.6 rule 3")
        seen.add(k)
        chk = skill_check(ctx, f"exp_{expedition}_search_{i}", q.skill, q.modifier, q.dc)
        mapped = chk.success and q.feature in MAP_FEATURES and q.hex in ctx.state.hexes
        ctx.emit(ev.ExpeditionFeatureSearched(expedition=expedition, hex=q.hex, day=q.day, check=chk,
                                              feature=q.feature, found=chk.success, mapped=mapped))


def event_phase_modules(ctx: Ctx, c: ch.EventChoices) -> None:
    """Expeditions' month, independence and union (opt §2.6, §2.11)."""
    s: Pf1State = ctx.state
    exp = {r.expedition: r for r in c.expeditions}
    if exp and not s.module_on("exploration_edicts"):
        raise ctx.fail("expedition reports need the exploration_edicts module", "opt §2.6")
    for x in s.expeditions:
        if x.status not in ("active", "scattered_this_month") or x.issued_turn > s.turn:
            continue
        rep = exp.pop(x.id, None)
        disc = tuple(rep.discoveries) if rep is not None else ()
        if rep is not None:
            searches(ctx, x.id, x.route, rep.searches)
        cr = rep.cr if rep is not None else None
        if rep is not None and cr is not None:
            crv = float(cr)
            stealth = None
            if rep.stealth_modifier is not None:
                stealth = skill_check(ctx, f"exp_{x.id}_stealth", "Stealth", rep.stealth_modifier,
                                      10 + math.floor(2 * crv))
            if stealth is None or not stealth.success:
                chk = control_check(ctx, f"exp_{x.id}_stability", "STABILITY", math.floor(2 * crv))
                ctx.emit(ev.ExpeditionProgressed(expedition=x.id, cr=crv, stealth=stealth, stability=chk,
                                                 outcome="scattered" if chk.success else "lost", discoveries=disc,
                                                 unrest_delta=0 if chk.success else 1))
                continue
            ctx.emit(ev.ExpeditionProgressed(expedition=x.id, cr=crv, stealth=stealth,
                                             outcome="returned" if x.months_elapsed + 1 >= x.months else "progressed",
                                             discoveries=disc))
            continue
        ctx.emit(ev.ExpeditionProgressed(expedition=x.id,
                                         outcome="returned" if x.months_elapsed + 1 >= x.months else "progressed",
                                         discoveries=disc))
    if exp:
        raise InputError(f"[{ctx.step}] reports for unknown or finished expeditions: {sorted(exp)}")
    ind = c.independence if given(c.independence) else None
    uni = c.union if given(c.union) else None
    if (ind or uni) and not s.module_on("independence_unification"):
        raise ctx.fail("independence and union need the independence_unification module", "opt §2.11")
    if ind is not None:
        daughters = tuple(ev.Daughter(campaign=d.campaign, hexes=tuple(d.hexes), treasury_bp=d.treasury_bp)
                          for d in ind.daughters)
        if len(daughters) < 2:
            raise ctx.fail("independence splits into at least two kingdoms", "opt §2.11 step 1")
        hexes = sorted(h for d in daughters for h in d.hexes)
        mine = sorted(h.id for h in dv.claimed_hexes(s))
        if hexes != mine:
            raise ctx.fail(f"the daughters' hexes must split the kingdom's hexes exactly ({len(mine)} hexes)",
                           "opt §2.11 step 2")
        if sum(d.treasury_bp for d in daughters) != s.treasury:
            raise ctx.fail(f"the daughters' treasuries must sum to {s.treasury} BP", "opt §2.11 step 2")
        uns = ind.non_structural_unrest
        if not 0 <= uns <= s.unrest:
            raise ctx.fail(f"non-structural Unrest must be between 0 and {s.unrest}", "opt §4.2 U9")
        kept = ind.kept_by
        if kept is not None and kept not in {d.campaign for d in daughters}:
            raise InputError(f"[{ctx.step}] kept_by must name one of the daughters")
        ctx.emit(ev.IndependenceDeclared(daughters=daughters, non_structural_unrest=uns,
                                         share=max(1, uns // len(daughters)), kept_by=kept))
    if uni is not None:
        members = tuple(uni.members)
        if s.campaign not in members or len(members) < 2:
            raise ctx.fail("a union has at least two members, this campaign among them", "opt §2.11")
        uns_map = {m.campaign: m.unrest for m in uni.non_structural_unrest}
        if set(uns_map) != set(members):
            raise InputError(f"[{ctx.step}] non_structural_unrest must name every member")
        mean = sum(uns_map.values()) / len(uns_map)
        ctx.emit(ev.UnionFormed(members=members, new_campaign=uni.new_campaign,
                                non_structural_unrest=uns_map, union_unrest=max(1, math.floor(mean))))
