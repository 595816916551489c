"""The pf1 turn's steps: founding (turn 0), then gm, upkeep, improvement, income and event each month.

Each ``Step`` carries its typed choices (:mod:`~kingdomlog.rulesets.pf1.choices`) and a
``decide(ctx, choices)`` on the shared ``StepContext``: every ``ctx.emit`` folds its event at
once, so later sub-steps see earlier ones (base §4: steps in order). Every refusal is a
``RuleError`` naming the spec section; nothing reaches the log unless the whole step decides.
The optional modules' procedures are in :mod:`~kingdomlog.rulesets.pf1.modules`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kingdomlog.core.errors import InputError
from kingdomlog.core.ruleset import Breakdown, Step
from kingdomlog.rulesets.pf1 import battle as war
from kingdomlog.rulesets.pf1 import choices as ch
from kingdomlog.rulesets.pf1 import derive as dv
from kingdomlog.rulesets.pf1 import events as ev
from kingdomlog.rulesets.pf1 import uc_events
from kingdomlog.rulesets.pf1.helpers import (
    Ctx,
    control_check,
    explain_once,
    faces,
    find_city,
    find_hex,
    free_houses,
    given,
    kcheck,
    new_id,
    pay,
    place,
    subjugation_check,
)
from kingdomlog.rulesets.pf1.modules import event_phase_modules, relation_action, special_edict, trade_arrivals
from kingdomlog.rulesets.pf1.rules import alignment_components, axes, lots_adjacent
from kingdomlog.rulesets.pf1.state import Building, Pf1State, hex_words
from kingdomlog.rulesets.pf1.tables import ATTRIBUTES, BuildingType

SIDES = ("N", "E", "S", "W")
COMPONENT_ATTR = dv.COMPONENT_ATTR


def skip_reason(s: Pf1State, phase: str = "") -> str | None:
    """Why a phase is skipped: a closed log, or anarchy (base §4.7: option anarchy_mode FROZEN skips every phase;
    SEED_ZERO_ATTRIBUTES and UC_RESULTS_ZERO still run Upkeep and the Event phase, with effective attributes 0
    or every kingdom check result 0, but the kingdom takes no action: Improvement and Income are skipped)."""
    if s.closed:
        return "CLOSED"
    if s.anarchy and (s.opt("anarchy_mode") == "FROZEN" or phase in ("improvement", "income")):
        return "ANARCHY"
    return None


def _acts(values: Mapping[str, Any]) -> bool:
    """Whether any of ``values`` asks for an action (a non-empty, non-default value)."""
    return any(v not in (None, [], {}, 0, False, "") for v in values.values())


def _not_anarchy(ctx: Ctx, values: Mapping[str, Any]) -> None:
    """A closed log or a kingdom in anarchy takes no action (base §4.7, opt §2.11)."""
    if not _acts(values):
        return
    if ctx.state.closed:
        gone = ", ".join(c for x in ctx.state.lineage if x.kind in ("split_into", "merged_into") for c in x.campaigns)
        raise ctx.fail(f"this kingdom's log is closed: it became {gone}; play those campaigns", "opt §2.11")
    if ctx.state.anarchy:
        raise ctx.fail("the kingdom is in anarchy and can take no action until the GM ends it", "base §4.7")


# ------------------------------------------------------------------ founding (turn 0)


def decide_founding(ctx: Ctx, c: ch.FoundingChoices) -> None:
    s = ctx.state
    if s.founded:
        raise ctx.fail("the kingdom is already founded", "base §3.1 F1")
    name = c.name or "New Kingdom"
    gov = c.government or "feudal_monarchy"
    if gov != "feudal_monarchy" and not s.module_on("government_forms"):
        raise ctx.fail("a form of government needs the government_forms module", "opt §2.10")
    renown = c.starting_renown
    if s.module_on("fame_infamy"):
        renown = renown or "fame"
    elif renown:
        raise ctx.fail("starting Fame/Infamy needs the fame_infamy module", "opt §2.9")
    ctx.emit(ev.KingdomFounded(name=name, alignment=c.alignment,
                               starting_treasury_bp=int(s.opt("starting_treasury_bp")), government=gov,
                               starting_renown=renown))
    map_hexes(ctx, c.hexes)
    foreign(ctx, c.foreign_kingdoms, c.third_party)
    lin = c.lineage
    if given(lin) and lin is not None:
        if not s.module_on("independence_unification"):
            raise ctx.fail("lineage (independence or union) needs the independence_unification module", "opt §2.11")
        ctx.emit(ev.LineageRecorded(kind=lin.kind, campaigns=tuple(lin.campaigns), unrest_added=lin.unrest_added,
                                    loyalty_bonus_turns=6 if lin.kind == "split_from" else 0))


def map_hexes(ctx: Ctx, hexes: list[ch.HexEntry]) -> None:
    for h in hexes:
        ctx.emit(ev.HexMapped(hex=h.id, q=h.q, r=h.r, terrain=h.terrain, river=h.river, features=tuple(h.features)))
        if h.explored:
            ctx.emit(ev.HexExplored(hex=h.id))
        if h.cleared:
            ctx.emit(ev.HexCleared(hex=h.id))


def foreign(ctx: Ctx, kingdoms: list[ch.ForeignKingdomEntry], third: list[ch.ThirdPartyEntry]) -> None:
    s = ctx.state
    if (kingdoms or third) and not (s.module_on("diplomatic_edicts") or s.module_on("trade_edicts")
                                    or s.module_on("vassalage_edicts")):
        raise ctx.fail("foreign kingdoms need the diplomatic, trade or vassalage edicts module", "opt §2.5.1")
    for k in kingdoms:
        ctx.emit(ev.ForeignKingdomRegistered(
            kingdom=k.id, name=k.name if k.name is not None else k.id, alignment=k.alignment, size=k.size,
            economy=k.economy, stability=k.stability, is_npc=k.is_npc, is_sponsor=k.is_sponsor, attitude=k.attitude))
    for t in third:
        ctx.emit(ev.ThirdPartyRelationDeclared(a=t.a, b=t.b, level=t.level, enemy=t.enemy))


# ------------------------------------------------------------------ GM step (start of each month)


def decide_gm(ctx: Ctx, c: ch.GmChoices) -> None:
    s = ctx.state
    if not s.founded:
        raise ctx.fail("found the kingdom first (turn 0)", "base §3.1")
    ctx.emit(ev.TurnStarted(turn=s.turn + 1))
    # scheduled expiries (optional §2.7.6, §6.1 principle 4)
    for r in ctx.state.trade_routes:
        if (r.status == "established" and r.established_turn is not None
                and ctx.state.turn >= r.established_turn + int(s.opt("trade_duration_turns"))):
            ctx.emit(ev.TradeRouteExpired(route=r.id))
    map_hexes(ctx, c.map)
    for h in c.explore:
        find_hex(ctx, h, "base §2.7")
        ctx.emit(ev.HexExplored(hex=h))
    for h in c.clear:
        find_hex(ctx, h, "base §2.7")
        ctx.emit(ev.HexCleared(hex=h))
    if c.alignment and c.alignment != ctx.state.alignment:
        ctx.emit(ev.AlignmentChanged(before=ctx.state.alignment, after=c.alignment))
    for adj in c.adjustments:
        ctx.emit(ev.GmAdjustment(field=adj.field, delta=adj.delta, reason=adj.reason))
    end = c.end_anarchy
    if given(end) and end is not None:
        if not ctx.state.anarchy:
            raise ctx.fail("the kingdom is not in anarchy", "base §4.7")
        ctx.emit(ev.AnarchyEnded(reason=end.reason, unrest_after=end.unrest_after))
    foreign(ctx, c.foreign_kingdoms, c.third_party)
    for a in c.attitudes:
        if a.kingdom not in ctx.state.relations:
            raise InputError(f"[{ctx.step}] attitudes: unknown kingdom {a.kingdom!r}")
        ctx.emit(ev.AttitudeChanged(kingdom=a.kingdom, before=ctx.state.relations[a.kingdom].attitude,
                                    after=a.attitude, reason="gm"))
    gov = c.government
    if gov and gov != ctx.state.government:
        if not s.module_on("government_forms"):
            raise ctx.fail("changing the government needs the government_forms module", "opt §2.10")
        ctx.emit(ev.GovernmentFormChanged(form=gov, reason="GM ruling (opt §4.2 U10)"))
    ren = c.renown
    if given(ren) and ren is not None:
        if not s.module_on("fame_infamy"):
            raise ctx.fail("Fame/Infamy changes need the fame_infamy module", "opt §2.9")
        ctx.emit(ev.RenownChanged(fame_delta=ren.fame, infamy_delta=ren.infamy, source=ren.source or "gm"))
    for m in c.kingdom_modifier_adjustments:
        if not s.module_on("expanded_settlement_modifiers"):
            raise ctx.fail("kingdom-wide settlement modifiers need expanded_settlement_modifiers", "opt §2.3")
        ctx.emit(ev.KingdomSettlementModifierAdjusted(modifier=m.modifier, delta=m.delta, source="gm"))
    for bd in c.base_danger:
        if not s.module_on("settlement_sizes"):
            raise ctx.fail("settlement Danger needs the settlement_sizes module", "opt §2.4")
        ctx.emit(ev.SettlementBaseDangerSet(city=find_city(ctx, bd.city).id, base_danger=bd.base_danger))
    for d in c.destroy_lots:
        destroy_lots(ctx, d)
    for act in c.relation_actions:
        relation_action(ctx, act)
    for army in c.enemy_armies:
        war.place_enemy(ctx, army)
    if c.union_stability_roll:
        # GM option: 1d4 − 2 Stability, rolled each turn for 6 months after a union (opt §2.11)
        union = [x for x in ctx.state.lineage if x.kind == "merged_from"]
        if not union or not 0 < ctx.state.turn - union[-1].turn <= 6:
            raise ctx.fail("the union Stability roll applies in the 6 months after a union", "opt §2.11")
        roll = faces(ctx, "union_stability", "1d4")
        ctx.emit(ev.TemporaryModifierApplied(attribute="STABILITY", value=roll[0] - 2, first_turn=ctx.state.turn,
                                             last_turn=ctx.state.turn, source="union (1d4 − 2)", roll=roll))


def destroy_lots(ctx: Ctx, d: ch.DestroyLotsEntry) -> None:
    """Lots destroyed by an event or attack: Unrest +1 per lot (base §2.8)."""
    dist = ctx.state.districts.get(d.district)
    if dist is None:
        raise InputError(f"[{ctx.step}] destroy_lots needs {{district, lots}}; got {d.district!r}")
    lots = tuple(d.lots)
    hit = tuple(b.id for b in ctx.state.buildings.values() if b.district == dist.id and set(b.lots) & set(lots))
    ctx.emit(ev.LotsDestroyed(district=dist.id, lots=lots, buildings=hit, unrest_delta=len(lots)))
    support_lost(ctx, hit)


# ------------------------------------------------------------------ upkeep


def decide_upkeep(ctx: Ctx, c: ch.UpkeepChoices) -> None:
    s = ctx.state
    why = skip_reason(s, "upkeep") or ("SIZE_ZERO" if dv.size(s) == 0 else None)
    if why:
        ctx.emit(ev.PhaseSkipped(phase="upkeep", reason=why))
        return
    # U1 stability (base §4.2, §6.1)
    dc_b = dv.control_dc(s)
    dc = int(dc_b.total)
    with ctx.acting("stability"):  # rolled at the table by a leader (Pf1.seats): that leader's act
        chk = kcheck(ctx, "stability", "STABILITY", dc, dc_note=dc_b)
        extra: tuple[int, ...] = ()
        if chk.success:
            outcome, du, dt = ("UNREST_DOWN", -1, 0) if s.unrest >= 1 else ("BP_GAINED", 0, 1)
        else:
            margin = max(0, dc - chk.total)
            if margin < 5:
                du = int(s.opt("stability_minor_failure_unrest"))
            elif s.opt("stability_major_failure_unrest") == "1d4":
                extra = faces(ctx, "stability_unrest", "1d4")
                du = extra[0]
            else:
                du = 2
            outcome, dt = ("UNREST_UP" if du else "NO_EFFECT"), 0
        ctx.emit(ev.StabilityCheckRolled(check=chk, outcome=outcome, extra_dice=extra, unrest_delta=du,
                                         treasury_delta=dt))
    # U2 consumption
    cons_b = dv.consumption(ctx.state)
    ctx.explain(cons_b)
    cons = int(cons_b.total)
    before = ctx.state.treasury
    after = before - cons
    ctx.emit(ev.ConsumptionPaid(consumption=cons, treasury_before=before, treasury_after=after,
                                unrest_delta=2 if after < 0 else 0))
    war.upkeep(ctx, c.live_off_the_land)  # armies' Consumption and rallying routed armies (UC Mass Combat)
    # U3 magic item slots
    items: dict[str, list[ch.SlotItemEntry]] = {}
    for it in c.slot_items:
        items.setdefault(it.building, []).append(it)
    fill_slots(ctx, items)
    # U3b optional-module upkeep checks (opt §1.2)
    module_upkeep(ctx)
    # U4 unrest
    st = ctx.state
    vacant = {}
    stand_in = dv.ruler_stand_in(st)
    for role in st.catalog.roles.values():
        if role.module or role.vacancy_unrest == 0 or not dv.role_available(st, role.name):
            continue
        if role.name == "RULER" and stand_in:
            continue  # UC: a Consort or Heir acting as the Ruler negates the vacancy (a Loyalty check below)
        if not dv.role_effective(st, role.name):
            vacant[role.name] = role.vacancy_unrest
    if vacant:
        ctx.emit(ev.VacancyUnrestApplied(items=vacant, unrest_delta=sum(vacant.values())))
    if stand_in:
        chk = control_check(ctx, "acting_ruler", "LOYALTY")
        ctx.emit(ev.ActingRulerCheckRolled(role=stand_in, check=chk, unrest_delta=0 if chk.success else 1))
    if s.opt("negative_attribute_unrest"):
        neg = tuple(x for x in ATTRIBUTES if dv.attribute(ctx.state, x).total < 0)
        if neg:
            ctx.emit(ev.NegativeAttributeUnrestApplied(attributes=neg, unrest_delta=len(neg)))
    if ctx.state.unrest >= 11 and dv.size(ctx.state) > 0:
        choice = c.lose_hex or default_lost_hex(ctx.state)
        h = ctx.state.hexes.get(choice)
        if h is None or not h.claimed:
            raise ctx.fail(f"lose_hex {choice!r} is not a claimed hex", "base §4.6")
        ctx.emit(ev.HexLostToUnrest(hex=h.id, unrest=ctx.state.unrest))
    if ctx.state.unrest >= 20 and not s.anarchy:  # (evolve marks anarchy at once; this records it)
        ctx.emit(ev.AnarchyBegan(unrest=ctx.state.unrest))
    if ctx.state.anarchy:
        return  # no Royal Assassin or Enforcer in anarchy
    # U5 royal assassin (base §4.2 U5); UC Royal Enforcer: may lower Unrest by 1, then a Loyalty check
    if dv.role_available(ctx.state, "ROYAL_ASSASSIN") and dv.role_effective(ctx.state, "ROYAL_ASSASSIN"):
        ctx.emit(ev.RoyalAssassinActed(unrest_delta=-1 if ctx.state.unrest > 0 else 0))
    if c.enforcer_reduces:
        if not (dv.role_available(ctx.state, "ROYAL_ENFORCER") and dv.role_effective(ctx.state, "ROYAL_ENFORCER")):
            raise ctx.fail("enforcer_reduces needs a Royal Enforcer in office (option leadership_roles uc)",
                           "UC Leadership Roles: Royal Enforcer")
        du = -1 if ctx.state.unrest > 0 else 0
        chk = control_check(ctx, "royal_enforcer", "LOYALTY")
        ctx.emit(ev.RoyalEnforcerActed(unrest_delta=du, check=chk, loyalty_delta=0 if chk.success else -1))


def default_lost_hex(s: Pf1State) -> str:
    """The leaders' default choice: the last claimed hex (by id) without a city, else any."""
    hexes = sorted(dv.claimed_hexes(s), key=lambda h: (h.city is not None, h.id), reverse=True)
    no_city = [h for h in hexes if h.city is None]
    return (no_city or hexes)[0].id


def _slot_item(it: ch.SlotItemEntry | None, category: str) -> tuple[str, int | None]:
    if it is None:
        return f"unnamed {category} item", None
    return (it.item if it.item is not None else f"unnamed {category} item"), it.price_gp


def fill_slots(ctx: Ctx, items: dict[str, list[ch.SlotItemEntry]]) -> None:
    s = ctx.state
    mode = s.opt("magic_slot_fill_mode")
    if mode == "ALL_VACANT":
        for b in dv.live_buildings(s):
            given_items = list(items.get(b.id, ()))
            for i, slot in enumerate(b.slots):
                if slot.item is None:
                    item, price = _slot_item(given_items.pop(0) if given_items else None, slot.category)
                    ctx.emit(ev.MagicItemSlotFilled(building=b.id, slot=i, category=slot.category, item=item,
                                                    price_gp=price))
        return
    # UC: per district with an empty slot, d100 51-100 fills one slot (base §4.2 U3)
    for dist in sorted({b.district for b in dv.live_buildings(s)}):
        empties = [(b, i) for b in dv.live_buildings(ctx.state) if b.district == dist
                   for i, sl in enumerate(b.slots) if sl.item is None]
        if not empties:
            continue
        d100 = faces(ctx, f"slots_{dist}", "1d100")[0]
        if d100 >= 51:
            b, i = empties[0]
            given_items = list(items.get(b.id, ()))
            item, price = _slot_item(given_items[0] if given_items else None, b.slots[i].category)
            ctx.emit(ev.MagicItemSlotFilled(building=b.id, slot=i, category=b.slots[i].category, item=item,
                                            price_gp=price, d100=d100))


def module_upkeep(ctx: Ctx) -> None:
    s = ctx.state
    t = s.turn
    if s.module_on("abandoned_buildings"):
        for b in list(ctx.state.buildings.values()):
            if b.occupancy == "pending_shutdown" and b.shutdown_due_turn is not None and b.shutdown_due_turn <= t:
                if s.opt("abandoned_cancel_if_replaced") and supported(ctx.state, b):
                    ctx.emit(ev.BuildingShutdownCancelled(building=b.id, reason="support restored"))
                else:
                    ctx.emit(ev.BuildingAbandoned(building=b.id, unrest_delta=1))
        for b in list(ctx.state.buildings.values()):
            if (b.occupancy == "abandoned" and b.reactivation_from_turn is not None
                    and b.reactivation_from_turn <= t and supported(ctx.state, b)):
                chk = control_check(ctx, f"reactivate_{b.id}", "ECONOMY")
                ctx.emit(ev.BuildingReactivationAttempted(building=b.id, check=chk))
    if s.module_on("vassalage_edicts"):
        for v in ctx.state.vassals:
            if v.mode == "subjugation" and not v.resolved and v.issued_turn < t:
                subjugation_check(ctx, v.kingdom, v.subjugated_size, v.streak)
    if s.module_on("trade_edicts"):
        for r in ctx.state.trade_routes:
            if r.type == "food" and r.status == "established":
                raw = dv.raw_consumption(ctx.state)
                ctx.emit(ev.FoodRouteConditionEvaluated(route=r.id, raw_consumption=raw, active=raw < 0))


def supported(s: Pf1State, b: Building) -> bool:
    need = s.catalog.building(b.type).adjacent_houses
    return len([x for x in b.supported_by if x in s.buildings]) >= need


def support_lost(ctx: Ctx, removed: tuple[str, ...], apply: bool = True) -> None:
    """Dependents whose required house went away (opt §2.1 trigger)."""
    if not ctx.state.module_on("abandoned_buildings"):
        return
    for b in list(ctx.state.buildings.values()):
        if b.occupancy != "active" or supported(ctx.state, b):
            continue
        lost = next((x for x in removed), "")
        if apply:
            k = faces(ctx, f"shutdown_{b.id}", "1d3")[0]
            ctx.emit(ev.BuildingSupportLost(building=b.id, supporter=lost, gm_applies=True, d3=k,
                                            shutdown_due_turn=ctx.state.turn + k))
        else:
            ctx.emit(ev.BuildingSupportLost(building=b.id, supporter=lost, gm_applies=False))


# ------------------------------------------------------------------ improvement

_NOT_ACTIONS = ("milestone_choice", "abandon_dependents")


def decide_improvement(ctx: Ctx, c: ch.ImprovementChoices) -> None:
    s = ctx.state
    why = skip_reason(s, "improvement")
    if why:
        asked = {k: getattr(c, k) for k in type(c).model_fields if k not in _NOT_ACTIONS}
        for k in ("promotion", "taxation", "festivals"):
            if asked[k] == getattr(s.edicts, k):
                asked[k] = None  # choosing the edict already in force is no action
        _not_anarchy(ctx, asked)
        ctx.emit(ev.PhaseSkipped(phase="improvement", reason=why))
        return
    limits = dv.limits_row(s)  # by Size at the start of the phase (base §4.3)
    ctx.explain(Breakdown("Limits this month", limits.buildings,
                          note=f"Size row {limits.name}: claims {limits.claims}, districts {limits.districts}, "
                               f"buildings {limits.buildings}, terrain {limits.terrain} (base §6.5)"))
    # I0 districts that finish preparing
    for d in sorted(s.districts.values(), key=lambda d: d.id):
        if d.status == "PREPARING" and d.ready_on_turn <= s.turn:
            district_ready(ctx, d.id, None)
    # I1 leaders
    leaders(ctx, c)
    # I2 claims
    for hid in c.claim:
        claim(ctx, hid, limits.claims)
    milestones(ctx, c.milestone_choice or "fame")
    # I3 abandon
    for hid in c.abandon:
        h = find_hex(ctx, hid, "base §4.3 I3")
        if not h.claimed:
            raise ctx.fail(f"{hex_words(h.id)} is not part of the kingdom", "base §4.3 I3")
        ctx.emit(ev.HexAbandoned(hex=h.id, had_city=h.city is not None, unrest_delta=4 if h.city else 1))
    # I5 districts
    for entry in c.districts:
        prepare_district(ctx, entry, limits.districts)
    # I6 buildings (demolitions first; both count against the limit)
    for bid in c.demolish:
        if bid not in ctx.state.buildings:
            raise InputError(f"[{ctx.step}] no building {bid!r} to demolish")
        _limit(ctx, ctx.state.counters.buildings, limits.buildings, "buildings (demolitions count)", "base §4.3 I6")
        ctx.emit(ev.BuildingDemolished(building=bid))
        support_lost(ctx, (bid,), apply=c.abandon_dependents)
    for b in c.buildings:
        construct(ctx, b, limits.buildings)
    for dd in c.dedications:
        dedicate(ctx, dd.building, deity=dd.deity, deity_alignment=dd.deity_alignment, bonus_mode=dd.bonus_mode,
                 shrine_attribute=dd.shrine_attribute, portfolio=dd.portfolio)
    # I7 roads
    for hid in c.roads:
        road(ctx, hid, limits.terrain)
    # I8 hex improvements
    for imp in c.improvements:
        improve(ctx, imp.hex, imp.kind, limits.terrain)
    # Edict step 6: create army units, in place of new settlements (UC Improvement Edicts note 1)
    for a in c.armies:
        war.recruit(ctx, a, limits.districts)
    for x in c.army_actions:
        war.army_action(ctx, x, limits.districts)
    # I9 edicts
    edicts(ctx, c)
    # special edict slot right after I9 (opt §1.4), then trade arrivals (opt §2.7.5)
    if c.special_edict is not None:
        special_edict(ctx, c.special_edict)
    if ctx.state.module_on("trade_edicts"):
        trade_arrivals(ctx)


def _limit(ctx: Ctx, used: int, limit: int, what: str, rule: str) -> None:
    if limit >= 0 and used >= limit:
        raise ctx.fail(f"the per-month limit of {limit} {what} for Size {dv.size(ctx.state)} is used up", rule)


def _need_ruler(ctx: Ctx, what: str) -> None:
    if not dv.role_effective(ctx.state, "RULER") and not dv.ruler_stand_in(ctx.state):
        raise ctx.fail(f"{what} needs an effective Ruler (the Ruler is vacant or absent)", "base §2.4 Ruler vacancy")


def _holds(ctx: Ctx, role: str, name: str) -> None:
    if not any(o.name == name for o in ctx.state.leaders.get(role, ())):
        raise InputError(f"[{ctx.step}] {name!r} does not hold {role}")


def leaders(ctx: Ctx, c: ch.ImprovementChoices) -> None:
    s = ctx.state
    for u in c.unassign:
        _holds(ctx, u.role, u.name)
        ctx.emit(ev.LeaderUnassigned(role=u.role, name=u.name, reason=u.reason))
    for x in c.leaders:
        role_id = x.role
        rl = s.catalog.roles.get(role_id)
        if rl is None or not dv.role_available(s, role_id):
            known = [r.name for r in s.catalog.roles.values() if dv.role_available(s, r.name)]
            raise InputError(f"[{ctx.step}] unknown leadership role {role_id!r}; roles: {', '.join(known)}")
        ability = x.ability or rl.abilities[0]
        if ability not in rl.abilities:
            raise ctx.fail(f"{role_id} uses {' or '.join(rl.abilities)}, not {ability}", "base §2.4")
        attrs = tuple(x.attributes)
        if role_id == "RULER":
            n = dv.ruler_attribute_count(ctx.state)
            if len(attrs) != n or len(set(attrs)) != n or not set(attrs) <= set(ATTRIBUTES):
                raise ctx.fail(f"the Ruler chooses exactly {n} distinct attribute(s) at Size {dv.size(ctx.state)},"
                               f" got {list(attrs)}", "base §2.4")
        elif role_id == "SPYMASTER":
            if len(attrs) != 1 or attrs[0] not in ATTRIBUTES:
                raise ctx.fail(f"the Spymaster chooses one attribute, got {list(attrs)}", "base §2.4")
        elif attrs and attrs != rl.attributes:
            raise ctx.fail(f"{role_id} always affects {', '.join(rl.attributes)}", "base §2.4")
        if x.co_ruler and (role_id != "RULER" or len(ctx.state.leaders.get("RULER", ())) >= 2):
            raise ctx.fail("only the Ruler role takes a second (married) occupant", "base §2.4 co-rulers")
        if (x.skill_ranks or x.leadership_feat) and not s.module_on("leadership_skills"):
            raise ctx.fail("skill ranks for leaders need the leadership_skills module", "opt §2.12")
        ctx.emit(ev.LeaderAssigned(role=role_id, name=x.name, ability=ability, modifier=x.modifier, attributes=attrs,
                                   present=x.present, co_ruler=x.co_ruler, skill_ranks=x.skill_ranks,
                                   leadership_feat=x.leadership_feat))
    for p in c.presence:
        _holds(ctx, p.role, p.name)
        # base §2.4: at least leader_min_days_present days of duty (a week by default)
        present = p.days >= int(s.opt("leader_min_days_present")) if p.days is not None else p.present
        ctx.emit(ev.LeaderPresenceRecorded(role=p.role, name=p.name, present=present, days_present=p.days))
    if c.acting_ruler is not None:
        role = None if c.acting_ruler == "none" else c.acting_ruler
        if role is not None and not dv.role_available(s, role):
            raise ctx.fail(f"{role} is an Ultimate Campaign role (option leadership_roles uc)", "UC Leadership Roles")
        if role is not None and not dv.role_effective(ctx.state, role):
            raise ctx.fail(f"no {role} in office to act as the Ruler", "UC Leadership Roles: Consort, Heir")
        if role != ctx.state.acting_ruler:
            ctx.emit(ev.ActingRulerNamed(role=role))
    for r in c.skill_ranks:
        if not s.module_on("leadership_skills"):
            raise ctx.fail("skill ranks for leaders need the leadership_skills module", "opt §2.12")
        _holds(ctx, r.role, r.name)
        ctx.emit(ev.LeaderSkillRanksRecorded(role=r.role, name=r.name, ranks=r.ranks,
                                             leadership_feat=r.leadership_feat))


def claim(ctx: Ctx, hid: str, limit: int) -> None:
    rule = "base §4.3 I2"
    h = find_hex(ctx, hid, rule)
    if h.claimed:
        raise ctx.fail(f"{hex_words(hid)} is already part of the kingdom", rule)
    if not (h.explored and h.cleared):
        raise ctx.fail(f"{hex_words(hid)} must be explored and cleared before it is claimed", rule)
    if dv.size(ctx.state) > 0 and not dv.adjacent_to_kingdom(ctx.state, h):
        raise ctx.fail(f"{hex_words(hid)} is not adjacent to the kingdom (annexing a non-adjacent hex)", rule)
    _need_ruler(ctx, "claiming a hex")
    _limit(ctx, ctx.state.counters.claims, limit, "hex claims", "base §6.5")
    pay(ctx, 1, f"claiming {hex_words(hid)}")
    town = next((f.split(":", 1)[1] for f in h.features if f.startswith("TOWN:")), None)
    if h.city and ctx.state.cities[h.city].detached:  # a lost city must be annexed again (base §4.6)
        town = ctx.state.cities[h.city].name
    # the Control DC is the one before the claim (base §4.3 I2)
    check = control_check(ctx, f"town_{hid}", "STABILITY") if town else None
    ctx.emit(ev.HexClaimed(hex=hid, cost_bp=1))
    if town and check is not None:
        dice: tuple[int, ...] = () if check.success else faces(ctx, f"town_{hid}_unrest", "2d4")
        ctx.emit(ev.TownAnnexationCheckRolled(hex=hid, town=town, check=check, unrest_dice=dice,
                                              unrest_delta=sum(dice)))
        if h.city is None:
            cid = new_id(ctx, "C")
            ctx.emit(ev.CityFounded(city=cid, name=town, hex=hid, capital=not ctx.state.cities))
            did = new_id(ctx, "D")
            ctx.emit(ev.DistrictPreparationStarted(city=cid, district=did, hex=hid, terrain=h.terrain, cost_bp=0,
                                                   months=0, ready_on_turn=ctx.state.turn))
            district_ready(ctx, did, None)


def milestones(ctx: Ctx, choice: str) -> None:
    """Fame or Infamy +1 when Size first reaches 11, 26, 51, 101, 201 (opt §2.9)."""
    if not ctx.state.module_on("fame_infamy"):
        return
    for th in (11, 26, 51, 101, 201):
        if dv.size(ctx.state) >= th and th not in ctx.state.milestones:
            ctx.emit(ev.SizeMilestoneRenownChosen(threshold=th, choice="infamy" if choice == "infamy" else "fame"))


def district_ready(ctx: Ctx, did: str, borders: ch.Borders | None) -> None:
    b = {k: (getattr(borders, k) if borders is not None else "LAND") for k in SIDES}
    ctx.emit(ev.DistrictReady(district=did, borders=b))
    dist = ctx.state.districts[did]
    city = ctx.state.cities[dist.city]
    if len(city.districts) == 1:  # a BUILDING feature of the hex comes in free (base §3.1 F5)
        h = ctx.state.hexes[city.hex]
        for f in h.features:
            if f.startswith("BUILDING:"):
                t = ctx.state.catalog.building(f.split(":", 1)[1])
                lots = place(ctx, dist.id, t.lots, None, "base §3.1 F5")
                ctx.emit(ev.BuildingConstructed(building=new_id(ctx, "B"), city=city.id, district=did,
                                                building_type=t.name, lots=lots, base_cost_bp=t.cost, cost_bp=0,
                                                unrest_delta=0, free=True, slots=_slot_cats(t)))


def prepare_district(ctx: Ctx, d: ch.DistrictEntry, limit: int) -> None:
    rule = "base §4.3 I5"
    h = find_hex(ctx, d.hex, rule)
    _need_ruler(ctx, "preparing a district")
    if not h.claimed:
        raise ctx.fail(f"{hex_words(h.id)} is not part of the kingdom", rule)
    if h.improvement:
        raise ctx.fail(f"{hex_words(h.id)} holds a {h.improvement.lower()}; a city cannot share it", rule)
    _limit(ctx, ctx.state.counters.districts, limit, "new cities/districts", "base §6.5")
    cost, months = dv.district_cost(ctx.state, h.terrain)
    pay(ctx, cost, f"preparing a district on {h.terrain.lower()}")
    if h.city is None:
        cid = new_id(ctx, "C")
        ctx.emit(ev.CityFounded(city=cid, name=d.city or f"City {cid}", hex=h.id, capital=not ctx.state.cities))
    else:
        cid = h.city
        city = ctx.state.cities[cid]
        for did in city.districts:
            used = dv.occupied(ctx.state, did)
            if len(used) < 36:
                raise ctx.fail(f"{city.name} may add a district only when its districts are full "
                               f"({did} uses {len(used)} of 36 lots)", rule)
    did = new_id(ctx, "D")
    ctx.emit(ev.DistrictPreparationStarted(city=cid, district=did, hex=h.id, terrain=h.terrain, cost_bp=cost,
                                           months=months, ready_on_turn=ctx.state.turn + months))
    if months == 0:
        district_ready(ctx, did, d.borders)


def _slot_cats(t: BuildingType) -> tuple[ch.SlotCategory, ...]:
    return tuple(c for c in ("minor", "medium", "major") for _ in range(getattr(t.slots, c)))


def _uncounted(s: Pf1State, t: BuildingType) -> bool:
    """UC: the first House, Mansion, Noble Villa or Tenement of a month does not count (option first_house_free)."""
    housing = t.free_first or bool(t.names() & {"house", "mansion", "noble villa", "tenement"})
    return bool(s.opt("first_house_free")) and housing and s.counters.free_house == 0


def upgrade(ctx: Ctx, b: ch.BuildingEntry, limit: int) -> None:
    """Upgrade a building (UC Upgrade To/From): pay the cost difference; it counts against the limit. With
    holy_sites a Shrine → Temple → Cathedral upgrade is open in every edition and keeps its dedication (opt §2.2)."""
    rule = "UC Building Descriptions (Upgrade To/From)"
    s = ctx.state
    old = s.buildings.get(str(b.upgrade))
    if old is None:
        raise InputError(f"[{ctx.step}] upgrade: no building {b.upgrade!r}")
    t = s.catalog.building(b.type)
    ot = s.catalog.building(old.type)
    holy = s.module_on("holy_sites") and (ot.religion, t.religion) in (("shrine", "temple"), ("temple", "cathedral"))
    if not (holy or {n.lower() for n in ot.upgrade_to} & t.names() or {n.lower() for n in t.upgrade_from} & ot.names()):
        ups = ", ".join(ot.upgrade_to) or "nothing"
        raise ctx.fail(f"a {ot.name} upgrades to {ups}, not to a {t.name}", rule)
    _limit(ctx, s.counters.buildings, limit, "buildings (upgrades count)", "base §6.5")
    if t.limit_per_city and sum(1 for x in s.buildings.values() if x.city == old.city
                                and s.catalog.building(x.type).name == t.name) >= t.limit_per_city:
        raise ctx.fail(f"{s.cities[old.city].name} already has {t.limit_per_city} {t.name}", rule)
    lots = old.lots if t.lots == len(old.lots) else place(ctx, old.district, t.lots, b.lots, rule, 0, t, old.lots)
    cost = max(0, t.cost - ot.cost)
    explain_once(ctx, Breakdown(f"{ot.name} → {t.name} upgrade", cost, note=f"{t.cost} − {ot.cost} BP"))
    pay(ctx, cost, f"upgrading {old.id} to a {t.name}")
    if t.religion in ("temple", "cathedral"):
        religion_ok(ctx, t, old.deity_alignment or b.deity_alignment)
    ctx.emit(ev.BuildingUpgraded(building=old.id, from_type=ot.name, to_type=t.name, lots=lots, cost_bp=cost,
                                 unrest_delta=t.unrest, slots=_slot_cats(t)))


def construct(ctx: Ctx, b: ch.BuildingEntry, limit: int) -> None:
    rule = "base §4.3 I6"
    s = ctx.state
    if b.upgrade is not None:
        upgrade(ctx, b, limit)
        return
    t = s.catalog.building(b.type)
    city = find_city(ctx, b.city)
    uncounted = _uncounted(s, t)
    if not uncounted:
        _limit(ctx, s.counters.buildings, limit, "buildings", "base §6.5")
    same = [x for x in s.buildings.values() if x.city == city.id and s.catalog.building(x.type).name == t.name]
    if t.limit_per_city and len(same) >= t.limit_per_city:
        raise ctx.fail(f"{city.name} already has {t.limit_per_city} {t.name}", rule)
    if t.requires_any and not any(s.catalog.building(x.type).names() & {n.lower() for n in t.requires_any}
                                  for x in dv.live_buildings(s) if x.city == city.id):
        raise ctx.fail(f"a {t.name} needs one of {', '.join(t.requires_any)} in {city.name}",
                       "UC Building Descriptions (Limit)")
    ready = [d for d in city.districts if s.districts[d].status == "READY"]
    if not ready:
        raise ctx.fail(f"{city.name} has no READY district to build in", rule)
    did = b.district
    border = None
    if did is not None and did not in ready:
        raise ctx.fail(f"district {did!r} of {city.name} is not READY (READY: {', '.join(ready)})", rule)
    lots: tuple[int, ...] = ()
    supported_by: tuple[str, ...] = ()
    if t.border:
        did = did or ready[0]
        border = b.border or "N"
        dist = s.districts[did]
        if dist.borders.get(border) != "LAND" or border in dist.walls:
            raise ctx.fail(f"a {t.name} goes on a free LAND border; {did} {border} is "
                           f"{dist.borders.get(border)}{' and walled' if border in dist.walls else ''}", "base §2.8")
    else:
        if did is None:
            did = next((d for d in ready if 36 - len(dv.occupied(s, d)) >= t.lots), None)
            if did is None:
                raise ctx.fail(f"every district of {city.name} is full", "base §2.8 (36 lots per district)")
        if t.limit_per_district and sum(1 for x in s.buildings.values() if x.district == did
                                        and s.catalog.building(x.type).name == t.name) >= t.limit_per_district:
            raise ctx.fail(f"district {did} already has {t.limit_per_district} {t.name}",
                           "UC Building Descriptions (Limit)")
        lots = () if t.lots == 0 else place(ctx, did, t.lots, b.lots, rule, t.adjacent_houses, t)
        if t.adjacent_houses:
            supported_by = tuple(free_houses(s, did, lots, t.adjacent_kinds)[: t.adjacent_houses])
    religion_ok(ctx, t, b.deity_alignment)
    discounts: list[ev.Discount] = []
    cost = t.cost
    halver = next((s.catalog.building(x.type).name for x in dv.live_buildings(s) if x.city == city.id
                   and t.names() & {h.lower() for h in s.catalog.building(x.type).halves}), None)
    if halver and not (s.opt("discount_first_only") and t.name in city.discounts_used):
        discounts.append(ev.Discount(kind="HALVED_BY", source=halver, amount_bp=cost - cost // 2))
    elif f"RUINS:{t.name}" in s.hexes[city.hex].features:
        discounts.append(ev.Discount(kind="RUINS", source=city.hex, amount_bp=cost - cost // 2))
    elif f"{did}|{t.name}" in s.rubble:
        discounts.append(ev.Discount(kind="REBUILD", source=str(did), amount_bp=cost - cost // 2))
    cost -= sum(d.amount_bp for d in discounts)
    if b.magical_assistance:
        amt = min(2, cost)
        discounts.append(ev.Discount(kind="MAGICAL_ASSISTANCE", source="magic", amount_bp=amt))
        cost -= amt
    explain_once(ctx, Breakdown(f"{t.name} cost", cost, note=f"{t.cost} BP" + "".join(
        f", {d.kind.lower().replace('_', ' ')} −{d.amount_bp}" for d in discounts)))
    pay(ctx, cost, f"building a {t.name}")
    supports = b.supports
    if supports is not None:
        dep = s.buildings.get(supports)
        if dep is None or not t.house or not any(lots_adjacent(x, y) for x in lots for y in dep.lots):
            raise ctx.fail(f"supports {supports!r}: a house must be built next to the building it supports",
                           "opt §2.1 step 5")
    unrest = 0 if t.unrest_once_per_settlement and same else t.unrest  # walls and moats: once per settlement
    ctx.emit(ev.BuildingConstructed(building=new_id(ctx, "B"), city=city.id, district=did, building_type=t.name,
                                    lots=lots, border=border, base_cost_bp=t.cost, discounts=tuple(discounts),
                                    cost_bp=cost, unrest_delta=unrest, deity=b.deity, supported_by=supported_by,
                                    supports=supports, slots=_slot_cats(t), uncounted=uncounted))
    if b.deity_alignment and s.module_on("holy_sites") and t.religion:
        dedicate(ctx, f"B{ctx.state.serials['B']}", deity=b.deity or "unnamed deity",
                 deity_alignment=b.deity_alignment, bonus_mode=b.bonus_mode, shrine_attribute=b.shrine_attribute,
                 portfolio=b.portfolio)


def religion_ok(ctx: Ctx, t: BuildingType, al: str | None) -> None:
    """Temple: no opposed component; Cathedral: within one step (base §2.6)."""
    if t.religion not in ("temple", "cathedral"):
        return
    if al is None:
        raise InputError(f"[{ctx.step}] a {t.name} needs its deity's alignment (deity_alignment)")
    k = axes(ctx.state.alignment)
    d = axes(al)
    if t.religion == "temple":
        if (k[0] != 1 and d[0] != 1 and k[0] != d[0]) or (k[1] != 1 and d[1] != 1 and k[1] != d[1]):
            raise ctx.fail(f"a Temple's deity ({al}) may not oppose the kingdom's alignment ({ctx.state.alignment})",
                           "base §2.6")
    elif abs(k[0] - d[0]) + abs(k[1] - d[1]) > 1:
        raise ctx.fail(f"a Cathedral's deity ({al}) must be within one step of {ctx.state.alignment}", "base §2.6")


def dedicate(ctx: Ctx, building: str, *, deity: str, deity_alignment: str, bonus_mode: ch.BonusMode,
             shrine_attribute: str | None, portfolio: ch.Portfolio | None) -> None:
    """Holy-site dedication of a Shrine, Temple or Cathedral (opt §2.2)."""
    if not ctx.state.module_on("holy_sites"):
        raise ctx.fail("dedications need the holy_sites module", "opt §2.2")
    b = ctx.state.buildings.get(building)
    if b is None:
        raise InputError(f"[{ctx.step}] a dedication names a built building: {building!r}")
    t = ctx.state.catalog.building(b.type)
    if not t.religion:
        raise ctx.fail(f"{t.name} is not a Shrine, Temple or Cathedral", "opt §2.2")
    al = deity_alignment
    mode = bonus_mode
    shrine_attr = shrine_attribute
    bonuses = {k: v for k, v in (portfolio.model_dump() if portfolio is not None else {}).items() if v is not None}
    cap = {"shrine": 1, "temple": 4, "cathedral": 8}[t.religion]
    if mode == "alignment" and t.religion == "shrine":
        allowed = {COMPONENT_ATTR[c] for c in alignment_components(al)}
        shrine_attr = shrine_attr or sorted(allowed)[0]
        if shrine_attr not in allowed:
            raise ctx.fail(f"a {al} Shrine may raise {' or '.join(sorted(allowed))}, not {shrine_attr}", "opt §2.2")
    if mode == "portfolio" and (any(v < 0 for v in bonuses.values()) or sum(bonuses.values()) > cap
                                or not set(bonuses) <= set(ATTRIBUTES)):
        raise ctx.fail(f"portfolio bonuses must be ≥ 0 and sum to at most {cap} for a {t.name}", "opt §2.2")
    ctx.emit(ev.ReligiousBuildingDedicated(building=b.id, deity=deity, deity_alignment=al, bonus_mode=mode,
                                           shrine_attribute=shrine_attr, portfolio=bonuses))


def road(ctx: Ctx, hid: str, limit: int) -> None:
    rule = "base §4.3 I7"
    h = find_hex(ctx, hid, rule)
    _need_ruler(ctx, "building a road")
    if not h.claimed or h.road:
        raise ctx.fail(f"{hex_words(hid)} is {'not claimed' if not h.claimed else 'already roaded'}", rule)
    _limit(ctx, ctx.state.counters.terrain, limit, "terrain improvements (roads + hex improvements)", "base §6.5")
    cost, doubled = dv.road_cost(ctx.state, h)
    pay(ctx, cost, f"a road in {hex_words(hid)}")
    ctx.emit(ev.RoadBuilt(hex=hid, cost_bp=cost, river_doubled=doubled))


def improve(ctx: Ctx, hid: str, kind: str, limit: int) -> None:
    rule = "base §4.3 I8"
    h = find_hex(ctx, hid, rule)
    imp = ctx.state.catalog.improvements.get(kind)
    if imp is None:
        raise InputError(f"[{ctx.step}] unknown improvement {kind!r}; known: "
                         f"{', '.join(ctx.state.catalog.improvements)}")
    uc_rule = "UC Terrain Improvements"
    have = dv.improvements_of(h)
    replaces = next((x for x in imp.upgrade_from if x in have), None)
    if not h.claimed:
        raise ctx.fail(f"{hex_words(hid)} must be claimed", rule)
    if imp.shares_hex:  # UC: improvements marked * may share a hex (and a settlement's hex)
        if kind in have and replaces is None:
            raise ctx.fail(f"{hex_words(hid)} already has a {kind.lower()}", uc_rule)
        clash = sorted(set(imp.not_with) & set(have) - {replaces})
        if clash:
            raise ctx.fail(f"a {kind.lower()} cannot share {hex_words(hid)} with a {', '.join(clash).lower()}", uc_rule)
    elif h.city or h.improvement:
        raise ctx.fail(f"{hex_words(hid)} must be claimed, without a city and without another improvement", rule)
    need_road = ctx.state.opt("improvements_require_road") and not imp.cost_as
    if (need_road or imp.needs_road) and not (h.road or "ROAD" in h.features):
        raise ctx.fail(f"{hex_words(hid)} needs a road before a {kind.lower()}", uc_rule if imp.needs_road else rule)
    if h.terrain not in imp.terrains:
        raise ctx.fail(f"a {kind.lower()} goes on {', '.join(imp.terrains).lower()}, not {h.terrain.lower()}", rule)
    if imp.needs_river and not (h.river or h.terrain == "MARSH"):
        raise ctx.fail(f"a {kind.lower()} needs a river (or a marsh) in the hex", uc_rule)
    if imp.min_size and dv.size(ctx.state) < imp.min_size:
        raise ctx.fail(f"a {kind.lower()} needs a kingdom of Size {imp.min_size} or more (Size "
                       f"{dv.size(ctx.state)})", uc_rule)
    if imp.needs_ruler:
        _need_ruler(ctx, f"creating a {kind.lower()}")
    _limit(ctx, ctx.state.counters.terrain, limit, "terrain improvements (roads + hex improvements)", "base §6.5")
    cost = dv.improvement_cost(ctx.state, imp, h)
    if replaces is not None:  # an upgrade pays the difference (UC: a Watchtower upgraded to a Fort)
        cost = max(0, cost - dv.improvement_cost(ctx.state, ctx.state.catalog.improvements[replaces], h))
    explain_once(ctx, Breakdown(f"{kind.lower()} in {hex_words(hid)} cost", cost,
                                note=f"{imp.cost_as.replace('_', ' ')} cost" if imp.cost_as else
                                (f"upgrade from {replaces.lower()}" if replaces else "")))
    pay(ctx, cost, f"a {kind.lower()} in {hex_words(hid)}")
    ctx.emit(ev.HexImprovementBuilt(hex=hid, kind=kind, cost_bp=cost, unrest_delta=imp.unrest,
                                    shared=imp.shares_hex, replaces=replaces))


def edicts(ctx: Ctx, c: ch.ImprovementChoices) -> None:
    s = ctx.state
    cur = s.edicts
    promo = c.promotion if c.promotion is not None else cur.promotion
    tax = c.taxation if c.taxation is not None else cur.taxation
    fest = c.festivals if c.festivals is not None else cur.festivals
    forced = False
    if promo != "NONE" and not dv.role_effective(s, "GRAND_DIPLOMAT"):
        if c.promotion is not None and c.promotion != cur.promotion:
            raise ctx.fail("no promotion edict while the Grand Diplomat is vacant", "base §2.9")
        promo, forced = "NONE", True
    if (promo, tax, fest) != (cur.promotion, cur.taxation, cur.festivals):
        ctx.emit(ev.EdictsSet(promotion=promo, taxation=tax, festivals=fest, forced=forced))


# ------------------------------------------------------------------ income


def decide_income(ctx: Ctx, c: ch.IncomeChoices) -> None:
    s = ctx.state
    why = skip_reason(s, "income")
    if why:
        _not_anarchy(ctx, {k: getattr(c, k) for k in type(c).model_fields})
        ctx.emit(ev.PhaseSkipped(phase="income", reason=why))
        return
    gp = c.deposit_gp
    if gp:
        ctx.emit(ev.DepositMade(gp_offered=gp, bp_gained=gp // 4000, gp_returned=gp % 4000))
    ws = c.withdrawals
    if ws and s.opt("withdrawal_mode") == "UC" and len(ws) > 1:
        raise ctx.fail("UC withdrawals: once per turn", "base §4.4 N2 (withdrawal_mode UC)")
    for i, bp in enumerate(ws, 1):
        if bp < 1 or bp > ctx.state.treasury:
            raise ctx.fail(f"withdraw between 1 and {ctx.state.treasury} BP, got {bp}", "base §4.4 N2")
        if s.opt("withdrawal_mode") == "UC":
            ctx.emit(ev.WithdrawalMade(index=i, bp=bp, gp_paid=2000 * bp, unrest_delta=bp))
            continue
        ctx.emit(ev.WithdrawalMade(index=i, bp=bp, gp_paid=2000 * bp, unrest_delta=1))
        chk = control_check(ctx, f"withdrawal_{i}", "LOYALTY", bp)
        ctx.emit(ev.WithdrawalLoyaltyCheckRolled(index=i, check=chk, unrest_delta=0 if chk.success else bp))
    sales = c.sales
    if len(sales) > dv.ready_districts(ctx.state):
        raise ctx.fail(f"one item sale per READY district: {len(sales)} > {dv.ready_districts(ctx.state)}",
                       "base §4.4 N3")
    bp_table = dict(zip(("minor", "medium", "major"),
                        (int(x) for x in str(s.opt("item_sale_bp")).split("/")), strict=True))
    for i, it in enumerate(sales, 1):
        cat, val = it.category, it.value_gp
        if s.opt("item_sale_mode") == "rrr" and val < int(s.opt("item_sale_min_value_gp")):
            raise ctx.fail(f"only items worth ≥ {s.opt('item_sale_min_value_gp')} gp are sold, not {val} gp",
                           "base §4.4 N3")
        src = "SLOT" if it.building else "PC"
        if it.building:
            bl = ctx.state.buildings.get(it.building)
            slot = it.slot if it.slot is not None else 0
            if bl is None or slot >= len(bl.slots) or bl.slots[slot].item is None:
                raise ctx.fail(f"no item in slot {slot} of {it.building!r}", "base §4.4 N3")
        if s.opt("item_sale_mode") == "uc":
            # UC: no check; half the price in BP; the item must be within the settlement's base value
            city = find_city(ctx, it.city or (ctx.state.buildings[it.building].city if it.building else None))
            if val > dv.base_value(ctx.state, city):
                raise ctx.fail(f"{city.name}'s base value is {dv.base_value(ctx.state, city)} gp; a {val} gp item "
                               "cannot be sold there", "base §6.4 (item_sale_mode uc)")
            ctx.emit(ev.ItemSaleAttempted(item=it.item, value_gp=val, category=cat, source=src, building=it.building,
                                          slot=it.slot if src == "SLOT" else None, check=None,
                                          bp_gained=val // 2 // 4000))
            continue
        dc = {"minor": 20, "medium": 35, "major": 50}[cat]
        chk = kcheck(ctx, f"sale_{i}", "ECONOMY", dc)
        ctx.emit(ev.ItemSaleAttempted(item=it.item, value_gp=val, category=cat, source=src, building=it.building,
                                      slot=it.slot if src == "SLOT" else None, check=chk,
                                      bp_gained=bp_table[cat] if chk.success else 0))
    for p in c.purchases:
        bl = ctx.state.buildings.get(p.building)
        if bl is None or p.slot >= len(bl.slots) or bl.slots[p.slot].item is None:
            raise InputError(f"[{ctx.step}] nothing to buy in slot {p.slot} of {p.building!r}")
        ctx.emit(ev.MagicItemPurchased(building=bl.id, slot=p.slot, price_gp=bl.slots[p.slot].price_gp))
    # N4 taxes
    if not dv.role_effective(ctx.state, "TREASURER"):
        ctx.emit(ev.IncomeSkipped(reason="TREASURER_NOT_EFFECTIVE"))
        return
    with ctx.acting("income"):  # rolled at the table by a leader (Pf1.seats): that leader's act
        if s.opt("income_mode") == "uc":
            chk = kcheck(ctx, "income", "ECONOMY", 0)
            chk = chk.model_copy(update={"success": True, "margin": chk.total})
            ctx.emit(ev.IncomeCheckRolled(check=chk, bp_gained=max(0, chk.total) // 3))
        else:
            chk = control_check(ctx, "income", "ECONOMY")
            ctx.emit(ev.IncomeCheckRolled(check=chk, bp_gained=max(0, chk.total) // 5 if chk.success else 0))
    terrain_income(ctx)


def terrain_income(ctx: Ctx) -> None:
    """UC: Mines, Quarries and Sawmills earn +1 BP each when taxes are collected (Foundries: +1 per mine)."""
    src = dv.terrain_income(ctx.state)
    if src:
        ctx.explain(Breakdown("BP from terrain improvements", sum(src.values()),
                              note=", ".join(f"{k} +{v}" for k, v in src.items()) + " (UC Terrain Improvements)"))
        ctx.emit(ev.TerrainIncomeCollected(bp=sum(src.values()), sources=src))


# ------------------------------------------------------------------ events


def decide_event(ctx: Ctx, c: ch.EventChoices) -> None:
    s = ctx.state
    why = skip_reason(s, "event")
    if why:
        ctx.emit(ev.PhaseSkipped(phase="event", reason=why))
        ctx.emit(ev.TurnEnded(turn=s.turn))
        return
    choice = c.event or "roll"
    last = s.event_last_turn
    quiet = last is False or (last is None and s.opt("first_turn_counts_as_quiet"))
    chance = int(s.opt("event_chance_after_quiet_turn")) if quiet else int(s.opt("event_chance_base"))
    ctx.explain(Breakdown("Event chance (%)", chance,
                          note=f"after {'a quiet month' if quiet else 'a month with an event'} (base §4.5 E1)"))
    d100 = faces(ctx, "chance", "1d100")[0]
    occurred = d100 <= chance
    if choice == "none":
        occurred = False
    ctx.emit(ev.EventChanceRolled(d100=d100, chance=chance, occurred=occurred))
    table = c.event_table or s.opt("event_table")
    if table == "uc" or s.ongoing_events:
        if table != "uc" and occurred and choice != "none":
            raise ctx.fail("Ultimate Campaign events are still going on: this month's event table is uc",
                           "UC Events (continuous events)")
        uc_events.event_phase(ctx, c, occurred, choice)
        for e in c.effects:
            apply_effect(ctx, "GM", e.kind, e.attribute, e.value, e.turns)
        event_phase_modules(ctx, c)
        ctx.emit(ev.EventPhaseClosed(occurred=occurred))
        ctx.emit(ev.TurnEnded(turn=s.turn))
        return
    if c.event_city or c.party_resolves or c.declined or c.hire_adventurers:
        raise ctx.fail("event_city, party_resolves, declined and hire_adventurers belong to the uc event table",
                       "UC Events")
    if occurred:
        if choice == "roll":
            roll = faces(ctx, "table", "1d100")[0]
            t = s.catalog.event_for(roll)
            ctx.emit(ev.KingdomEventDrawn(event=t.name, kind=t.kind, d100=roll, chosen_by="roll"))
        else:
            t = s.catalog.event_named(choice)
            ctx.emit(ev.KingdomEventDrawn(event=t.name, kind=t.kind, chosen_by="gm"))
        for eff in t.effects:
            apply_effect(ctx, t.name, eff.kind, eff.attribute, eff.value, eff.turns)
        for e in c.effects:
            apply_effect(ctx, t.name, e.kind, e.attribute, e.value, e.turns)
    elif c.effects:
        raise ctx.fail("event effects given but no event occurred this month", "base §4.5 E2")
    event_phase_modules(ctx, c)
    ctx.emit(ev.EventPhaseClosed(occurred=occurred))
    ctx.emit(ev.TurnEnded(turn=s.turn))


def apply_effect(ctx: Ctx, name: str, kind: ch.EffectKind, attribute: str | None, value: int,
                 turns: int | None) -> None:
    if kind in ("FAME", "INFAMY") and not ctx.state.module_on("fame_infamy"):
        return  # Fame/Infamy are 0 while the module is off (opt §1.1)
    first = ctx.state.turn
    ctx.emit(ev.EventEffectApplied(event=name, kind=kind, attribute=attribute, value=value,
                                   first_turn=first if kind == "ATTRIBUTE" else None,
                                   last_turn=first + turns - 1 if turns else None))


# ------------------------------------------------------------------ the steps

FOUNDING = Step("founding", "Founding", "name, alignment, map, and module set-up (base §3.1)",
                choices=ch.FoundingChoices, decide=decide_founding)
GM = Step("gm", "Month start & GM rulings", "turn start, map and exploration, GM adjustments, relations",
          dice=("close_embassy_<k>", "withdraw_treaty_<k>", "attack_<k>", "attack_<k>_infamy", "attack_<k>_unrest",
                "ally_stationed_<k>", "ally_stationed_<k>_unrest", "aid_refused_<k>", "union_stability",
                "shutdown_<building>"),
          choices=ch.GmChoices, decide=decide_gm)
UPKEEP = Step("upkeep", "Upkeep", "stability, consumption, slots, unrest (base §4.2)",
              dice=("stability", "stability_unrest", "acting_ruler", "royal_enforcer", "rally_<army>",
                    "slots_<district>", "reactivate_<building>", "subjugation_<vassal>", "subjugation_<vassal>_unrest"),
              choices=ch.UpkeepChoices, decide=decide_upkeep)
IMPROVEMENT = Step("improvement", "Improvement", "leaders, hexes, districts, buildings, roads, edicts (base §4.3)",
                   dice=("town_<hex>", "town_<hex>_unrest", "shutdown_<building>", "dip_cost", "dip_check_<n>",
                         "opp_<n>_ours_<k>", "opp_<n>_theirs_<k>", "npc_estimate", "renegotiate_loyalty",
                         "explore_cost_<n>", "explore_cost", "vassal_cost", "subjugation_<vassal>",
                         "trade_<route>_economy", "trade_<route>_loyalty", "trade_<route>_stability",
                         "trade_<route>_block_<n>"),
                   choices=ch.ImprovementChoices, decide=decide_improvement)
def decide_war(ctx: Ctx, c: ch.WarChoices) -> None:
    if ctx.state.closed and c.battles:
        raise ctx.fail("this kingdom's log is closed", "opt §2.11")
    war.war(ctx, c)


WAR = Step("war", "Battles", "mass combat: battles fought phase by phase (UC Mass Combat)",
           dice=("w<n>_ambush", "w<n>_ranged_<side>", "w<n>_r<k>_<side>", "w<n>_r<k>_<side>_tactic",
                 "w<n>_r<k>_<side>_strategy", "w<n>_r<k>_<side>_rout", "w<n>_r<k>_<side>_rout_reroll",
                 "w<n>_r<k>_<side>_withdraw", "w<n>_r<k>_<side>_withdraw_vs", "w<n>_r<k>_<side>_fear",
                 "w<n>_r<k>_<side>_bleed", "w<n>_r<k>_<side>_breath", "w<n>_r<k>_<side>_taunt",
                 "w<n>_r<k>_<side>_siegebreaker", "w<n>_parting", "w<n>_victory_1", "w<n>_victory_2", "w<n>_fate"),
           choices=ch.WarChoices, decide=decide_war)
INCOME = Step("income", "Income", "deposits, withdrawals, item sales, taxes (base §4.4)",
              dice=("withdrawal_<n>", "sale_<n>", "income"), choices=ch.IncomeChoices, decide=decide_income)
EVENT = Step("event", "Event", "kingdom event and its effects; module events (base §4.5)",
             dice=("chance", "table", "table_<n>", "table_<n>_<sub>", "table_<n>_<sub>_<k>", "ev<n>_check_<k>",
                   "ev<n>_<k>", "ev<n>_threat", "ev<n>_threat_more", "exp_<id>_stealth", "exp_<id>_stability",
                   "exp_<id>_search_<n>"),
             choices=ch.EventChoices, decide=decide_event)
PHASES: tuple[Step, ...] = (GM, UPKEEP, IMPROVEMENT, WAR, INCOME, EVENT)
ALL_STEPS: tuple[Step, ...] = (FOUNDING, *PHASES)
