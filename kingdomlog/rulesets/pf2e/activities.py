"""Kingdom activities: one pipeline for every activity, driven by its data (``data/activities.toml``).

``perform`` runs the same steps for each activity, in order, and names the rule of any refusal:

1. gates: the activity exists and belongs to the step; unlocked; not blocked by anarchy; once per turn and
   ``limit_per_turn``; who acts and the activities left (§3.3, §5.8, §5.9); cooldowns (§2.10);
2. the target the data asks for (``target``: a Ruin, a hex, a structure, a lot, a commodity, a group, an
   ongoing event, a settlement) and the skill (``skill_by_target``, ``new_skill_each_turn``);
3. the named requirements (``requires``: ``REQUIREMENTS`` below, each with its rule), the proficiency;
4. the costs (``costs``, the first row whose condition holds; ``forced`` costs may overspend, §3.0.3);
5. the DC (``dc`` and ``dc_adjust``), degree adjustments (``degree_adjust``), the activity's own modifiers
   (``modifiers``), and where the check happens (``CheckAt``: the settlement or hex whose structures' item
   bonuses reach it, §5.10);
6. the check, then the outcome of its degree through the shared effect interpreter (``effects.Run``), a GM
   note where the rules leave the rest to the GM (``gm_note``), and the GM's own effects (``gm_effects``).

No step branches on an activity's name: what differs between activities is data.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kingdomlog.core.choices import Option
from kingdomlog.core.effects import holds
from kingdomlog.core.errors import InputError, RuleError
from kingdomlog.core.modifiers import Modifier as StackMod
from kingdomlog.dice.checks import Degree
from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e import rules as R
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.choices import ActivityRow, HexEntry, structure_detail
from kingdomlog.rulesets.pf2e.effects import Redirect, Run
from kingdomlog.rulesets.pf2e.engine import (
    Asked,
    CheckAt,
    Ctx,
    Picks,
    amount,
    catalog,
    dc_breakdown,
    gm_effects,
    hex_of,
    pay_commodities,
    resolve_check,
    spend_rp,
    with_terms,
)
from kingdomlog.rulesets.pf2e.hexmap import (
    claim_refusal,
    farmland_second_refusal,
    farmland_settlement,
    road_second_refusal,
    target_hex,
)
from kingdomlog.rulesets.pf2e.state import (
    KingdomState,
    activity_lock,
    activity_skill_refusal,
    civic_slots,
    claim_limit,
    in_anarchy,
    leadership_slots,
    rank_at_least,
    region_slots,
    structure_skill_refusal,
)
from kingdomlog.rulesets.pf2e.structures import cap_id, place, settlement_of, surroundings_refusal


def _used(ctx: Ctx, name: str) -> int:
    return sum(1 for u in ctx.state.used_this_turn if u.name == name)


def hex_id(raw: str | HexEntry | None) -> str:
    return "" if raw is None else raw if isinstance(raw, str) else raw.id


class Prep(dict[str, Any]):
    """What an activity prepared before its check (targets, quantities, the RP it paid); handed to the
    outcome's ``Run``. ``asked``: the step's choices costs read (the Ruins a forced overspend adds to)."""

    def __init__(self, asked: Asked, **items: Any) -> None:
        super().__init__(**items)
        self.asked = asked


# ------------------------------------------------------------------ requirements (data: requires = [...])


Requirement = Callable[[Ctx, T.Activity, ActivityRow, Prep], None]


def _title(act: T.Activity) -> str:
    return act.title or act.name


def _known(ctx: Ctx, prep: Prep) -> Any:
    hx = prep.get("hex")
    return hex_of(ctx.state, hx.id) if hx is not None else None


def req_water_hex(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    """A claimed hex with a river or lake (Go Fishing, §4.8)."""
    if not any(h.claimed and (h.river or h.lake or "irrigation" in h.features) for h in ctx.state.hexes):
        raise ctx.fail(f"{_title(act)} needs a claimed hex with a river or lake", f"§4.8 {_title(act)}")


def req_adjacent(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    """The hex exists on the map and borders the kingdom (§4.8 Claim Hex; adjacency by axial coordinates)."""
    why = claim_refusal(ctx.state, prep["hex"])
    if why:
        raise ctx.fail(why, f"§4.8 {_title(act)}: adjacent to the kingdom")


def req_bordering(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    """A group's hex joins only if it borders the kingdom (§4.7; a secondary territory is not modelled)."""
    if "hex" not in prep:
        return
    why = claim_refusal(ctx.state, prep["hex"])
    if why:
        raise ctx.fail(why + "; a group's hex not bordering the kingdom becomes a secondary territory, which is"
                       " not modelled: leave 'hex' out", f"§4.7 {_title(act)}: adjacent to the kingdom")


def req_reconnoitered(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    if not row.reconnoitered:
        raise ctx.fail(f"hex {prep['hex'].id} must be Reconnoitered and cleared first", f"§4.8 {_title(act)}")


def req_work_site(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    """The commodity's terrain (lumber: forest; ore, stone: hills or mountains), one work site per hex."""
    known = _known(ctx, prep)
    com = row.commodity or (known.resource or {"forest": "lumber"}.get(known.terrain, "ore"))
    allowed = T.core().work_site_terrain.get(com)  # type: ignore[arg-type]
    if allowed is None or known.terrain not in allowed:
        raise ctx.fail(f"a {com} work site needs {allowed or 'suitable'} terrain, hex {known.id} is {known.terrain}",
                       "§4.8 Establish Work Site")
    if known.work_site is not None:
        raise ctx.fail(f"hex {known.id} already has a work site", "§2.7 one feature of each kind")
    prep["commodity"] = com
    prep["target"] = com


def req_no_roads(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    known = _known(ctx, prep)
    if known.roads:
        raise ctx.fail(f"hex {known.id} already has roads", "§4.8 Build Roads")
    if row.second_hex:
        other = hex_of(ctx.state, row.second_hex)
        why = f"hex {row.second_hex!r} is not on the map" if other is None else \
            road_second_refusal(ctx.state, known, other)
        if why:
            raise ctx.fail(f"second road hex: {why}", "§4.8 Build Roads (critical success)")
    prep["second_hex"] = row.second_hex


def req_farmland_site(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    """Plains or hills, no Farmland yet, inside a settlement's influence (computed from the hexes' coordinates)."""
    s = ctx.state
    known = _known(ctx, prep)
    if known.terrain not in ("plains", "hills"):
        raise ctx.fail("Farmland needs a plains or hills hex", "§4.8 Establish Farmland")
    if "farmland" in known.features:
        raise ctx.fail(f"hex {known.id} already has Farmland", "§2.7")
    st, dist = farmland_settlement(ctx, known, row.settlement, "§4.8 Establish Farmland: in a settlement's influence")
    if "settlement" in known.features and not s.options.get("farmland_in_settlement_hex", True):
        raise ctx.fail("Farmland in a settlement's own hex is off (option)", "§4.11")
    if row.second_hex:
        other = hex_of(s, row.second_hex)
        why = f"hex {row.second_hex!r} is not on the map" if other is None else \
            farmland_second_refusal(s, known, other)
        if why:
            raise ctx.fail(f"second Farmland hex: {why}", "§4.8 Establish Farmland (critical success)")
    prep.update(settlement=st.id, distance=dist, second_hex=row.second_hex)


def req_settlement_site(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    known = _known(ctx, prep)
    if any(f in known.features for f in ("settlement", "freehold", "farmland")):
        raise ctx.fail(f"hex {known.id} already holds a settlement, freehold or farmland", "§4.8 Establish Settlement")
    prep["settlement_id"] = row.id or f"s{len(ctx.state.settlements) + 1}"
    prep["settlement_name"] = row.name or prep["settlement_id"]


def req_trade_quantity(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    """Trade Commodities (§4.3): 1..4 of one commodity the kingdom holds, set aside before the check."""
    s = ctx.state
    com = row.commodity or ""
    if com not in T.COMMODITIES:
        raise InputError(f"choice commodity: choose the commodity {_title(act)} trades")
    qty = row.quantity if row.quantity is not None else 1
    if not 1 <= qty <= min(4, s.commodities[com]):
        raise ctx.fail(f"trade 1..{min(4, s.commodities[com])} {com} (have {s.commodities[com]})", "§4.3")
    prep["q"] = qty
    ctx.emit(E.CommodityChanged(commodity=com, delta=-qty, cause="trade commodities"))


def req_agreements(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    """Manage Trade Agreements (§4.3): m of the kingdom's agreements; at most m commodities, half Luxuries."""
    s = ctx.state
    mm = row.agreements if row.agreements is not None else len(s.trade_agreements)
    if not 1 <= mm <= len(s.trade_agreements):
        raise ctx.fail(f"manage 1..{len(s.trade_agreements)} trade agreements", "§3.2 C4")
    prep["m"] = mm
    goods = dict(row.goods or {})
    if sum(goods.values()) > mm or goods.get("luxuries", 0) * 2 > mm:
        raise ctx.fail("at most m commodities, at most half of them Luxuries", "§4.3 Manage Trade Agreements")
    prep["goods"] = goods


def req_relations(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    """The group has diplomatic relations with the kingdom (Establish Trade Agreement, Request Foreign Aid)."""
    if prep.get("group") not in ctx.state.diplomatic_relations:
        raise ctx.fail(f"{_title(act)} needs diplomatic relations with {prep.get('group')!r} (relations: "
                       f"{', '.join(ctx.state.diplomatic_relations) or 'none'})", f"§4.16 {_title(act)}")


def req_no_relations(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    """Not yet in diplomatic relations with the group (Send Diplomatic Envoy)."""
    if prep.get("group") in ctx.state.diplomatic_relations:
        raise ctx.fail(f"the kingdom already has diplomatic relations with {prep.get('group')!r}",
                       f"§4.16 {_title(act)}")


def req_no_agreement(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    if prep.get("group") in ctx.state.trade_agreements:
        raise ctx.fail(f"the kingdom already has a trade agreement with {prep.get('group')!r}",
                       f"§4.16 {_title(act)}")


def req_bank(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    """A Bank in a settlement of the kingdom (Capital Investment)."""
    if not any(b.name == "bank" and not b.damaged for st in ctx.state.settlements for b in st.structures):
        raise ctx.fail(f"{_title(act)} needs a Bank in a settlement", f"§4.16 {_title(act)}")


def req_not_capital(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    st = settlement_of(ctx, prep.get("settlement"))
    if st.capital:
        raise ctx.fail(f"{st.name} is already the capital", f"§4.16 {_title(act)}")


def req_seat_there(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    """Relocate Capital: the new capital has a Castle, Palace or Town Hall (§4.16)."""
    st = settlement_of(ctx, prep.get("settlement"))
    if not any(b.name in ("castle", "palace", "town-hall") and not b.damaged for b in st.structures):
        raise ctx.fail(f"{st.name} has no Castle, Palace or Town Hall", f"§4.16 {_title(act)}")


def req_no_settlement(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    known = _known(ctx, prep)
    if "settlement" in known.features:
        raise ctx.fail(f"hex {known.id} holds a settlement", f"§4.16 {_title(act)}")


def req_irrigable(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    """Irrigation: a claimed hex without a river or lake, next to a hex that has one (or irrigation)."""
    from kingdomlog.rulesets.pf2e.hexmap import neighbour_hexes

    known = _known(ctx, prep)
    if known.river or known.lake or "irrigation" in known.features:
        raise ctx.fail(f"hex {known.id} already has water", "§4.16 Irrigation")
    if known.q is not None and not any(n.river or n.lake or "irrigation" in n.features
                                       for n in neighbour_hexes(ctx.state, known)):
        raise ctx.fail(f"hex {known.id} borders no hex with a river, lake or irrigation", "§4.16 Irrigation")


def req_not_fortified(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    known = _known(ctx, prep)
    if known.fortified:
        raise ctx.fail(f"hex {known.id} is already fortified", "§4.16 Fortify Hex")


def req_ongoing_event(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    if not ctx.state.ongoing_events:
        raise ctx.fail(f"{_title(act)} needs an ongoing event", f"§4.16 {_title(act)}")


def req_damaged_or_empty(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    """Not a requirement of its own: kept for data symmetry (Build Structure's repair path is chosen by the
    structure target)."""


def req_army_type(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    """Recruit Army (Appendix 3): a basic army (Warfare) or a specialized one (Statecraft), against its
    Recruitment DC; the kingdom's level at least the army's; the new army takes the kingdom's level."""
    from kingdomlog.rulesets.pf2e.warfare import new_army

    defs = T.army_defs()
    name = row.army_type or "infantry"
    defn = defs.get(name)
    if defn is None:
        raise InputError(f"{act.name}: unknown army {name!r} (armies: {', '.join(defs)})")
    s = ctx.state
    if s.level < defn.level:
        raise ctx.fail(f"{defn.title or defn.name} can be recruited from kingdom level {defn.level}",
                       "Appendix 3 Recruit Army")
    aid = row.army_id or f"army{len(s.army_units) + 1}"
    if any(a.id == aid for a in s.army_units):
        raise ctx.fail(f"army id {aid!r} is taken", "Appendix 3 Recruit Army")
    cap = cap_id(s)
    home = next((st.hex for st in s.settlements if st.id == (row.settlement or cap)), "")
    # raised in the settlement (the capital)
    army = new_army(defn, s.level, aid, row.army_name or "", hex_id=home, options=s.options)
    prep.update(army_new=army, army=aid, target=name, dc_rule=str(army.recruitment_dc),
                skill="warfare" if defn.basic else "statecraft")


def _army(ctx: Ctx, prep: Prep) -> Any:
    from kingdomlog.rulesets.pf2e.warfare import army_of

    return army_of(ctx, str(prep["army"]))


def req_army_moves(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    """Deploy Army: a pinned army cannot be deployed; a defeated one moves one hex at a time (the GM's)."""
    a = _army(ctx, prep)
    if "pinned" in a.conditions:
        raise ctx.fail(f"{a.name} is pinned and cannot be deployed", "Appendix 3 pinned")


def req_garrison_site(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    """Garrison Army: the army's hex has a Refuge (Defense), a settlement (Politics) or a Work Site
    (Engineering)."""
    a = _army(ctx, prep)
    h = hex_of(ctx.state, a.hex)
    site = "" if h is None else "settlement" if "settlement" in h.features else "refuge" if "refuge" in \
        h.features else "work_site" if h.work_site is not None else ""
    if not site:
        raise ctx.fail(f"{a.name}'s hex {a.hex or '(none)'} has no Refuge, settlement or Work Site",
                       "Appendix 3 Garrison Army")
    # the site picks the skill; the target is that army at this location: a critical failure bars garrisoning
    # "that army at this location again for 4 Kingdom turns" (published), not every army at every such site
    prep["site"] = site
    prep["target"] = f"{a.id}@{h.id}" if h is not None else a.id
    prep["hex"] = E.HexIn(id=h.id, terrain=h.terrain) if h is not None else None


def req_enemy_here(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    """Offensive Gambit: one of your armies in the same hex as the enemy army; DC its Scouting DC."""
    from kingdomlog.rulesets.pf2e.warfare import army_of

    a = _army(ctx, prep)
    if not getattr(row, "enemy", None):
        raise InputError(f"choice enemy: name the enemy army {_title(act)} acts against")
    e = army_of(ctx, str(row.enemy))  # type: ignore[attr-defined]
    if e.side != "enemy" or e.hex != a.hex:
        raise ctx.fail(f"{e.name} is not an enemy army in {a.name}'s hex", "Appendix 3 Offensive Gambit")
    prep.update(enemy=e.id, dc_rule=str(10 + e.scouting))


def req_gear(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    """Outfit Army: gear of a level at most the army's (and the kingdom's when bought); magic gear bought needs
    expert Magic; bought with Trade at its RP price, from battle spoils with Warfare at no cost."""
    a = _army(ctx, prep)
    gd = T.gear_defs().get(str(getattr(row, "gear", "") or ""))
    if gd is None:
        raise InputError(f"choice gear: choose the gear {_title(act)} gives ({', '.join(T.gear_defs())})")
    spoils = bool(getattr(row, "spoils", False))
    if gd.level > a.level or (not spoils and gd.level > ctx.state.level):
        raise ctx.fail(f"{gd.title} is level {gd.level}: above the army's or the kingdom's level",
                       "Appendix 3 Outfit Army")
    if a.type == "siege":
        raise ctx.fail("siege engines cannot be outfitted with gear", "Appendix 3 Engines of War")
    if not spoils and gd.kind in ("armor", "melee", "ranged") and not rank_at_least(
            ctx.state.skills.get("magic", "untrained"), "expert"):
        raise ctx.fail("buying magic gear needs expert Magic", "Appendix 3 Outfit Army")
    prep.update(gear=gd.name, target="spoils" if spoils else "purchase", symbols={"purchase": 0 if spoils
                                                                                  else gd.price})


def req_tactic(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    """Train Army: a tactic for the army's type and level (DC: the standard DC of the tactic's level)."""
    a = _army(ctx, prep)
    td = T.tactic_defs().get(str(getattr(row, "tactic", "") or ""))
    if td is None or td.innate:
        raise InputError(f"choice tactic: choose a tactic {_title(act)} can train")
    if a.type not in td.types or td.level > a.level:
        raise ctx.fail(f"{a.name} ({a.type}, level {a.level}) cannot learn {td.title}", "Appendix 3 Train Army")
    prep.update(tactic=td.name, dc_rule=str(T.army_statistics()[td.level].standard_dc))


def req_recover(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    a = _army(ctx, prep)
    cond = str(getattr(row, "condition", "") or "")
    if cond != "hp" and cond not in a.conditions:
        raise ctx.fail(f"{a.name} has no {cond or 'condition named'} to recover from (conditions:"
                       f" {', '.join(a.conditions) or 'none'})", "Appendix 3 Recover Army")
    prep["condition"] = cond
    prep["target"] = cond


REQUIREMENTS: dict[str, Requirement] = {
    "water_hex": req_water_hex,
    "adjacent": req_adjacent,
    "bordering": req_bordering,
    "reconnoitered": req_reconnoitered,
    "work_site": req_work_site,
    "no_roads": req_no_roads,
    "farmland_site": req_farmland_site,
    "settlement_site": req_settlement_site,
    "trade_quantity": req_trade_quantity,
    "agreements": req_agreements,
    "relations": req_relations,
    "no_relations": req_no_relations,
    "no_agreement": req_no_agreement,
    "bank": req_bank,
    "not_capital": req_not_capital,
    "seat_there": req_seat_there,
    "no_settlement": req_no_settlement,
    "irrigable": req_irrigable,
    "not_fortified": req_not_fortified,
    "ongoing_event": req_ongoing_event,
    "army_type": req_army_type,
    "army_moves": req_army_moves,
    "garrison_site": req_garrison_site,
    "enemy_here": req_enemy_here,
    "gear": req_gear,
    "tactic": req_tactic,
    "recover": req_recover,
}
"""The named requirements activity data may list (``requires``); each refusal names its rule."""


# ------------------------------------------------------------------ targets (data: target = ...)


def _target_ruin(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    s = ctx.state
    ruin: str = row.ruin or max(T.RUINS, key=lambda r: (s.ruin[r].penalty, s.ruin[r].points))
    prep["ruin"] = prep["target"] = ruin


def _target_hex(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    if row.hex is None:
        if act.target_optional:
            return
        raise InputError(f"choice hex: choose the hex for {_title(act)}")
    rule = f"{act.section} {_title(act)}"
    hx = target_hex(ctx, row.hex, rule)
    prep["hex"] = hx
    prep["target"] = hx.id
    known = hex_of(ctx.state, hx.id)
    claimed = known is not None and known.claimed
    if act.hex_state == "unclaimed" and claimed:
        raise ctx.fail(f"hex {hx.id} is already claimed", rule)
    if act.hex_state == "claimed" and not claimed:
        raise ctx.fail(f"hex {hx.id} is not claimed by the kingdom", rule)


def _target_structure(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    """Build Structure (§4.9): the structure decides the skill, proficiency and DC; placed (or repaired) in
    the settlement; its RP and commodities paid before the check (half on Ruins, §4.11)."""
    s = ctx.state
    cat = catalog(ctx)
    sname = row.structure or ""
    struct = cat.structures.get(sname)
    if struct is None:
        raise InputError(f"{act.name}: unknown structure {sname!r}")
    if struct.level > s.level:
        raise ctx.fail(f"{struct.name} is level {struct.level}, above the kingdom's level {s.level}",
                       "§4.9.1 structure level")
    st = settlement_of(ctx, row.settlement or cap_id(s))
    skill = row.skill or struct.skills[0]
    refused = structure_skill_refusal(s, struct, skill)
    if refused is not None:
        raise ctx.fail(*refused)
    prep.update(structure=struct, settlement=st.id, target=struct.name, skill=skill, dc_rule=str(struct.dc),
                paid_commodities={})
    damaged = next((b for b in st.structures if b.name == struct.name and b.damaged), None)
    up = s.options.get("half_commodities_rounding", "down") == "up"
    if damaged is not None:
        # Repair (§4.9, AoN 1836): half the cost, the structure's own check; nothing new is placed.
        prep.update(repair=damaged, block=damaged.block, lots=list(damaged.lots), replaces="", border=damaged.border)
        rp_cost, goods = R.half_cost(struct.cost_rp, round_up=up), {c: R.half_cost(n, round_up=up)
                                                                     for c, n in struct.cost.items()}
        spend_rp(ctx, prep.asked, rp_cost, f"repair {struct.name}")
        prep["rp_paid"] = rp_cost
        pay_commodities(ctx, goods, f"repair {struct.name}")
        return
    why = surroundings_refusal(ctx, st, struct)
    if why:
        raise ctx.fail(why, "§5.15 structure surroundings")
    block, lots, replaces, border = place(ctx, st, struct, row)
    prep.update(block=block, lots=lots, replaces=replaces, border=border)
    if sname in st.paid_unbuilt:
        return
    rp_cost, goods = struct.cost_rp, dict(struct.cost)
    if row.use_ruins:
        home = hex_of(s, st.hex)
        if home is None or "ruins" not in home.features:
            raise ctx.fail(f"{st.name}'s hex has no Ruins to build on", "§4.9 / §4.11 Ruins")
        rp_cost = R.half_cost(rp_cost, round_up=up)
        goods = {c: R.half_cost(n, round_up=up) for c, n in goods.items()}
        ctx.emit(E.FeatureUsed(hex_id=st.hex, feature="ruins", cause=f"build {struct.name}"))
    spend_rp(ctx, prep.asked, rp_cost, f"build {struct.name}")
    prep["rp_paid"] = rp_cost
    pay_commodities(ctx, goods, f"build {struct.name}")
    prep["paid_commodities"] = goods


def _target_lot(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    st = settlement_of(ctx, row.settlement or cap_id(ctx.state))
    block = row.block if row.block is not None else 0
    lot = row.lot if row.lot is not None else -1
    if not (0 <= block < len(st.blocks) and 0 <= lot < 4) or st.blocks[block][lot] == "":
        raise ctx.fail(f"demolish needs an occupied lot (block {block}, lot {lot}) in {st.name}", "§4.9")
    prep.update(settlement=st.id, block=block, lot=lot)


def _target_commodity(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    if row.commodity:
        prep["commodity"] = prep["target"] = row.commodity


def _target_group(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    if not row.group:
        raise InputError(f"choice group: name the group {_title(act)} deals with (as the GM names it)")
    prep["group"] = prep["target"] = row.group


def _target_event(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    s = ctx.state
    ongoing = [e.name for e in s.ongoing_events]
    name = row.event
    if name is None:
        if len(ongoing) != 1:
            raise ctx.fail(f"{act.name} targets an ongoing event: name it as 'event' (ongoing: "
                           f"{', '.join(ongoing) or 'none'})", "§5.12 event DC")
        name = ongoing[0]
    if name not in ongoing:
        raise ctx.fail(f"{act.name} targets {name!r}, which is not an ongoing event (ongoing: "
                       f"{', '.join(ongoing) or 'none'})", "§5.12 event DC")
    prep["event"] = prep["target"] = str(name)


def _target_settlement(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> None:
    st = settlement_of(ctx, row.settlement or cap_id(ctx.state))
    prep["settlement"] = prep["target"] = st.id


TARGETS: dict[str, Requirement] = {
    "ruin": _target_ruin, "hex": _target_hex, "structure": _target_structure, "lot": _target_lot,
    "commodity": _target_commodity, "group": _target_group, "event": _target_event,
    "settlement": _target_settlement,
}


# ------------------------------------------------------------------ one activity


def _who(ctx: Ctx, act: T.Activity, row: ActivityRow, category: str, role: str, mods: list[StackMod]) -> str:
    """Who acts, and whether the category has an activity left (§3.3, §5.8, §5.9)."""
    s = ctx.state
    if category == "leadership":
        role = row.role or role
        if role not in T.ROLES:
            raise InputError(f"choice role: choose the leader who does {_title(act)}")
        ld = s.leaders[role]
        if ld.holder is None:
            raise ctx.fail(f"the {role} role is vacant", "§3.3 A1.1")
        if ld.kind != "pc":
            raise ctx.fail(f"the {role} is an NPC; NPCs never perform kingdom activities", "§2.3")
        used = sum(1 for u in s.used_this_turn if u.category == "leadership" and u.role == role)
        if used >= leadership_slots(s, role):
            raise ctx.fail(f"the {role} has used all {leadership_slots(s, role)} Leadership activities",
                           "§2.11.9 / §5.8 leadership activities per leader")
    elif category == "region":
        used = sum(1 for u in s.used_this_turn if u.category == "region")
        if used >= region_slots(s):
            raise ctx.fail(f"all {region_slots(s)} Region activities are used", "§3.3 A2 / §5.9")
        role = row.role or role
        if row.favored_land:
            _favored_land(ctx, row, mods)
    elif category == "army":
        from kingdomlog.rulesets.pf2e.warfare import army_of

        aid = str(getattr(row, "army", "") or "")
        a = army_of(ctx, aid, "Appendix 3 Army activities")
        if a.side != "kingdom":
            raise ctx.fail(f"{a.name} is not the kingdom's army", "Appendix 3 Army activities")
        if "lost" in a.conditions and act.name != "recover":
            raise ctx.fail(f"{a.name} is lost: only Recover Army", "Appendix 3 lost")
        if "defeated" in a.conditions and act.name not in ("recover", "deploy", "disband"):
            raise ctx.fail(f"{a.name} is defeated: only Recover, Deploy (one hex) or Disband",
                           "Appendix 3 defeated")
        used = sum(1 for u in s.used_this_turn if u.category == "army" and u.target == aid)
        if used >= 1 and not (used == 1 and "efficient" in a.conditions):
            raise ctx.fail(f"{a.name} has taken its Army activity this turn", "Appendix 3 one Army activity")
        if used == 1:
            # efficient: a second Army activity at -5; the condition is spent
            mods.append(StackMod("efficient: second Army activity", -5, "untyped"))
            ctx.emit(E.ArmyUpdated(army=aid, conditions={"efficient": 0}, cause="second Army activity"))
        for cond, k in act.army_penalties.items():
            if a.conditions.get(cond):
                mods.append(StackMod(f"{a.name} {cond} {a.conditions[cond]}", -k * a.conditions[cond],
                                     "circumstance"))
    elif category == "civic":
        sid = row.settlement or cap_id(s)
        settlement_of(ctx, sid)
        used = sum(1 for u in s.used_this_turn if u.category == "civic" and u.settlement == sid)
        if used >= civic_slots(s, str(sid)):
            raise ctx.fail(f"settlement {sid} has used its Civic activity this turn", "§2.11.11 / §3.3 A3")
    return role


def limit_refusal(state: KingdomState, act: T.Activity, more: int = 0) -> tuple[str, str] | None:
    """Why ``act`` may not be taken again this Kingdom turn, with ``more`` takings of it that ``state`` does not
    hold yet (rows before it in its step, a player's proposals at the table): (words, rule), or None when its limit
    allows it. Once per turn (§3.3 A1.3: every Leadership activity unless it says otherwise), ``limit_per_turn``
    (Claim Hex: by level, §5.9).
    """
    used = sum(1 for u in state.used_this_turn if u.name == act.name) + more
    if act.once and used:
        return f"{act.name} was already used this Kingdom turn (once per turn)", "§3.3 A1.3 once per turn"
    if act.limit_per_turn is None:
        return None
    n = claim_limit(state.level) if act.limit_per_turn == "claim_hex" else int(act.limit_per_turn)
    if used >= n:
        return (f"{_title(act)} may be used {n} time(s) per turn at level {state.level}",
                "§5.9 Claim Hex limit" if act.limit_per_turn == "claim_hex" else f"§4 {_title(act)} limit")
    return None


def row_limit(state: KingdomState, rows: Sequence[Mapping[str, Any]], row: Mapping[str, Any]
              ) -> tuple[str, str] | None:
    """``Ruleset.row_limit`` for an activity row: its ``activity`` field and the words ``limit_refusal`` gives with
    the rows before it that take the same activity; None for a row of no activity known."""
    name = row.get("activity")
    act = T.catalog(state.homebrew).activities.get(name) if isinstance(name, str) else None
    if act is None:
        return None
    got = limit_refusal(state, act, sum(1 for r in rows if r.get("activity") == name))
    return ("activity", f"{got[0]} ({got[1]})") if got is not None else None


def _limit(ctx: Ctx, act: T.Activity) -> None:
    got = limit_refusal(ctx.state, act)
    if got is not None:
        raise ctx.fail(*got)


def _cooldowns(ctx: Ctx, act: T.Activity, prep: Prep) -> None:
    s = ctx.state
    for ck in (act.name, f"{act.name}:*", f"{act.name}:{prep.get('target', '')}"):
        if ck in s.cooldowns and s.cooldowns[ck] >= s.turn:
            raise ctx.fail(f"{act.name} is blocked through turn {s.cooldowns[ck]} ({ck})", "§2.10 cooldowns")


def _default_skill(s: Any, act: T.Activity, last: str, membership: bool) -> str:
    """The skill an activity is tried with when the row names none: its first skill the rules allow now (not last
    turn's where a new one is needed, §4.4; one of high enough rank, §4), else its first (refused, saying why). A
    default is never one the rules refuse while another would do."""
    for sk in act.skills:
        if sk != last and activity_skill_refusal(s, act, sk, membership=membership) is None:
            return sk
    return act.skills[0] if act.skills else ""


def _skill(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep) -> str:
    s = ctx.state
    last = next((u.skill for u in s.used_last_turn if u.name == act.name), "") if act.new_skill_each_turn else ""
    skill = str(prep.get("skill") or row.skill or _default_skill(s, act, last, "structure" not in prep))
    by_target = act.skill_by_target.get(str(prep.get("site", prep.get("target", ""))))
    if by_target:
        skill = by_target
    if act.new_skill_each_turn and skill == last:
        raise ctx.fail(f"{_title(act)} cannot use {skill} two turns in a row", "§4.4")
    allowed = act.skills_by_target.get(str(prep.get("target", "")))
    if allowed is not None:
        # the target's own skills (Recover Army: Shaken with Arts or, at expert, Warfare ...)
        if not (prep.get("skill") or row.skill):
            skill = next(iter(allowed))
        if skill not in allowed:
            raise ctx.fail(f"{act.name} on {prep.get('target')} uses {', '.join(allowed)}, not {skill!r}",
                           "Appendix 3 Recover Army")
        needed = max(act.proficiency, allowed[skill], key=T.RANKS.index)
        if not rank_at_least(s.skills.get(skill, "untrained"), needed):
            raise ctx.fail(f"{act.name} on {prep.get('target')} needs {needed} proficiency in {skill}",
                           "§4 proficiency requirement")
        return skill
    why = activity_skill_refusal(s, act, skill, membership="structure" not in prep)
    if why is not None:
        raise ctx.fail(*why)
    return skill


def _costs(ctx: Ctx, act: T.Activity, prep: Prep, facts: dict[str, Any], key: str) -> None:
    """The first cost row whose condition holds (§3.0.3; ``forced``: may overspend, adding 1 Ruin)."""
    row = next((c for c in act.costs if holds(c.when, facts)), None)
    if row is None:
        return
    known = _known(ctx, prep)
    symbols = {"terrain": T.core().terrain_rp[known.terrain] if known is not None else 0,
               **{k: int(v) for k, v in prep.get("symbols", {}).items()}}
    val, faces = amount(ctx, row.rp, f"{key}.cost", q=int(prep.get("q", 0)), m=int(prep.get("m", 0)),
                        extra=symbols)
    spend_rp(ctx, prep.asked, val, row.label or act.name.replace("-", " "), forced=row.forced, faces=faces)
    prep["rp_paid"] = int(prep.get("rp_paid", 0)) + val


def _dc(ctx: Ctx, act: T.Activity, row: ActivityRow, prep: Prep, facts: dict[str, Any]) -> Any:
    s = ctx.state
    rule = str(prep.get("dc_rule") or act.dc)
    adjust = [(a.label or f"{act.name} DC", a.value) for a in act.dc_adjust if holds(a.when, facts)]
    if act.streak is not None:
        adjust.append(("consecutive turns", s.counters.get(f"streak:{act.name}", 0)))
    if rule == "event":
        name = str(prep.get("event", ""))
        ev = catalog(ctx).events.get(name)
        if ev is None:
            raise ctx.fail(f"{act.name}: event {name!r} is not in the catalogue, so its modifier is unknown",
                           "§5.12 event DC")
        dc = dc_breakdown(s, "control", extra=ev.modifier, label=f"event modifier ({name})")
    elif rule == "gm":
        if row.dc is None:
            raise ctx.fail(f"{act.name}: its DC is the GM's ruling; give it as 'dc' in the plan",
                           "§4 activity DC (GM ruling)")
        dc = dc_breakdown(s, str(row.dc), label=f"GM's ruling: {act.name} DC")
    elif rule.startswith("negotiation"):
        if row.dc is None:
            if rule != "negotiation_or_control":
                raise InputError(f"choice dc: give the group's Negotiation DC for {_title(act)}")
            dc = dc_breakdown(s, "control")
        elif rule == "negotiation_or_control" and int(dc_breakdown(s, "control").total) >= row.dc:
            dc = dc_breakdown(s, "control")  # the higher of the group's Negotiation DC and the Control DC
        else:
            dc = dc_breakdown(s, str(row.dc), label="negotiation DC")
        if "+" in rule:
            adjust.insert(0, (act.name, int(rule.split("+")[1])))
    elif rule.startswith("control+"):
        adjust.insert(0, (act.name, int(rule.split("+")[1])))
        dc = dc_breakdown(s, "control")
    elif rule in ("control", "terrain_farmland"):
        dc = dc_breakdown(s, "control")
    else:
        dc = dc_breakdown(s, rule, label=f"{act.name} DC")
    # one combined term per DC (as older versions recorded it), so a recorded DC reads the same
    extra = sum(v for _, v in adjust)
    if not extra:
        return dc
    if rule.startswith("control") or rule in ("terrain_farmland",) or (rule.startswith("negotiation")
                                                                        and row.dc is None):
        label = act.name if rule.startswith("control+") and len(adjust) == 1 else f"{act.name} DC +{extra}"
        return dc_breakdown(s, "control", extra=extra, label=label)
    return with_terms(dc, adjust)


def _modifiers(act: T.Activity, facts: dict[str, Any]) -> list[StackMod]:
    """The activity's own bonuses whose condition holds (Expansion Expert, diplomatic relations ...)."""
    return [StackMod(m.note or act.name, m.value, m.type) for m in act.modifiers if holds(m.when, facts)]


def location(act: T.Activity, row: ActivityRow, prep: Prep, state: Any) -> tuple[str, str]:
    """Where the check happens (§5.10 structure bonus reach): (settlement id, hex id) by the activity's ``place``."""
    place_ = act.place
    hx = prep.get("hex")
    sid = str(prep.get("settlement") or row.settlement or "")
    if place_ == "hex" and hx is not None:
        return ("", hx.id) if "settlement" not in prep else (sid, hx.id)
    if place_ == "capital":
        return cap_id(state), ""
    return sid, hx.id if hx is not None else ""


def perform(ctx: Ctx, asked: Asked, choices: ActivityRow, *, key: str, category: str,
            role: str = "") -> Degree | None:
    """Validate and resolve one activity of ``category`` (§3.2, §3.3); raises ``RuleError`` naming the rule."""
    cat = catalog(ctx)
    act = cat.activities.get(choices.activity)
    if act is None:
        raise InputError(f"unknown activity {choices.activity!r}")
    if act.category != category:
        raise ctx.fail(f"{_title(act)} is a {act.category} activity, not a {category} activity",
                       "§3.3 activity phase steps")
    s = ctx.state
    lock = activity_lock(s, act)
    if lock:
        raise ctx.fail(f"{act.name} is not unlocked: it needs {lock} (or campaign option unlock_all_activities)",
                       "§5.15 activity unlocks")
    if in_anarchy(s) and not act.anarchy_allowed:
        raise ctx.fail(f"the kingdom is in anarchy: only Quell Unrest is allowed, not {act.name}",
                       "§3.1 U2.5 anarchy")
    _limit(ctx, act)
    mods: list[StackMod] = []
    role = _who(ctx, act, choices, category, role, mods)
    prep = Prep(asked, key=key)
    if category == "army":
        prep["army"] = str(getattr(choices, "army", ""))
    if category == "civic" or act.target == "settlement":
        prep["settlement"] = str(choices.settlement or cap_id(s))
    elif choices.settlement:
        prep["settlement"] = choices.settlement
    handler = TARGETS.get(act.target)
    if handler is not None:
        handler(ctx, act, choices, prep)
    _cooldowns(ctx, act, prep)
    for name in act.requires:
        REQUIREMENTS[name](ctx, act, choices, prep)
    _cooldowns(ctx, act, prep)  # a requirement may name the target (Garrison Army's site)
    skill = _skill(ctx, act, choices, prep)
    prep["skill"] = skill
    picks = Picks.of(choices)
    run = Run(ctx, asked, picks, act.name, prep)
    facts = run.facts()
    facts.update(group_related=prep.get("group", choices.group) in s.diplomatic_relations,
                 group_at_war=bool(prep.get("group")) and prep.get("group") in s.enemies,
                 treasury_debt=s.treasury_debt, repair="repair" in prep, skill=skill)
    _costs(ctx, act, prep, facts, key)
    sid, hid = location(act, choices, prep, s)
    if str(prep.get("dc_rule") or act.dc) == "none":
        # no check at all (the data's dc = "none"): the activity's outcome applies directly
        ctx.emit(E.ActivityWithoutCheck(activity=act.name, category=category, role=role,
                                        settlement=str(prep.get("settlement", choices.settlement or "")),
                                        target=str(prep.get("army") if category == "army" else
                                                   prep.get("target", ""))))
        _outcome(ctx, act, run, "success", key, choices)
        return None
    dc = _dc(ctx, act, choices, prep, facts)
    mods.extend(_modifiers(act, facts))
    worsen = -sum(a.value for a in act.degree_adjust if holds(a.when, facts))
    if not skill:
        raise InputError(f"choice skill: choose the skill {_title(act)} is tried with")
    target = str(prep.get("army") if category == "army" else
                 prep.get("ruin") or (prep["hex"].id if prep.get("hex") is not None else ""))
    selector_target = str(prep.get("ruin") or prep.get("commodity") or (
        prep["structure"].name if "structure" in prep else prep.get("target", "")))
    at = CheckAt(activity=act.name, category=category, role=role,
                 settlement=str(prep.get("settlement", choices.settlement or "")) if sid or not hid else sid,
                 hex=hid, target=target, selector_target=selector_target, warfare=act.warfare)
    degree = resolve_check(ctx, key=key, at=at, skill=skill, dc=dc, extra=mods, fame_reroll=choices.fame_reroll,
                           worsen=worsen, boon=choices.boon or "", assurance=choices.assurance,
                           reroll_for_rp=choices.reroll_for_rp)
    if act.streak is not None:
        n = s.counters.get(f"streak:{act.name}", 0)
        ctx.emit(E.CounterSet(name=f"streak:{act.name}", value=n + act.streak.up, cause=f"{act.name} used"))
    run.degree = degree.label
    _outcome(ctx, act, run, degree.label, key, choices)
    return degree


def _outcome(ctx: Ctx, act: T.Activity, run: Run, degree: str, key: str, choices: ActivityRow) -> None:
    run.degree = degree
    try:
        run.apply(act.outcomes.for_degree(degree), key)
    except Redirect as r:
        # an unpayable cost: the result is treated as another degree (its outcome applies instead)
        ctx.emit(E.DegreeChanged(activity=act.name, degree_from=degree, degree_to=r.degree,
                                 cause=f"{r.why}: treated as {r.degree.replace('_', ' ')}"))
        run.degree = r.degree
        run.apply(act.outcomes.for_degree(r.degree), f"{key}.r")
    if act.gm_note:
        ctx.emit(E.GMRuling(source=act.name, note=act.gm_note))
    extra = gm_effects(choices.gm_effects)
    if extra:
        Run(ctx, run.asked, run.picks, f"{act.name} (GM ruling)", run.prep, degree).apply(extra, f"{key}.gm")


def _favored_land(ctx: Ctx, choices: ActivityRow, extra_mods: list[StackMod]) -> None:
    """Favored Land (§5.9): once per turn two Region activities together in one heartland hex, each at -2.

    The first of the pair grants the extra Region activity the second one uses (the pair is
    checked by ``decide.activity_rows``: at most two flagged entries, in the same hex).
    """
    s = ctx.state
    known = hex_of(s, hex_id(choices.hex))
    if known is None or not known.claimed:
        raise ctx.fail("Favored Land needs a claimed hex", "§5.9 Favored Land")
    heart = T.heartlands()[s.heartland].terrain if s.heartland in T.heartlands() else []
    fits = known.terrain in heart or ("river" in heart and known.river) or ("lake" in heart and known.lake) or (
        "ruins" in heart and "ruins" in known.features)
    if not fits:
        raise ctx.fail(f"hex {known.id} ({known.terrain}) does not match the heartland {s.heartland}",
                       "§5.9 Favored Land")
    extra_mods.append(StackMod("Favored Land", -2, "untyped"))
    if s.favored_land_uses == 0:
        ctx.emit(E.ExtraActivityGranted(category="region", cause="favored-land"))


# ------------------------------------------------------------------ what the sheet offers


class _NoDice:
    """The dice of a dry run that must roll nothing (paying for and placing a structure)."""

    def roll(self, key: str, notation: str) -> Any:
        raise AssertionError(f"a dry run of Build Structure rolled {key} ({notation})")


def build_refusal(ruleset: Any, state: KingdomState, struct: T.Structure, within: Mapping[str, Any]) -> str:
    """Why Build Structure of ``struct`` with the row's other values (settlement, block, lots, border, Ruins) would
    be refused now, in the step's own words and rule ("" when it would not).

    A dry run of the step's own target rule (``_target_structure``: level, skill rank, repair, surroundings, the
    place on the urban grid, RP and commodities) on a throwaway context; nothing reaches a log. The skill is the
    first of the structure's skills the kingdom has at the rank it needs (the GM picks the skill after it).
    """
    from kingdomlog.core.ruleset import StepContext

    act = T.catalog(state.homebrew).activities.get("build-structure")
    if act is None:
        return ""
    skill = next((sk for sk in struct.skills if rank_at_least(state.skills.get(sk, "untrained"), struct.proficiency)),
                 None)
    try:
        row = ActivityRow.model_validate({
            "activity": act.name, "gm_effects": [], "structure": struct.name, "skill": skill,
            **{k: within[k] for k in ("settlement", "block", "lots", "border", "use_ruins")
               if within.get(k) is not None}})
    except ValueError:
        return ""  # a value the row's own widget reports
    ctx: Ctx = StepContext(ruleset, state, "activity.civic", _NoDice(), campaign=state.campaign, turn=state.turn)
    try:
        _target_structure(ctx, act, row, Prep(Asked()))
    except RuleError as exc:
        said = f"{exc.detail} ({exc.rule})" if exc.rule else exc.detail
    except InputError as exc:
        said = str(exc)
    else:
        return ""
    # the option's reason names the structure by its title, as the page shows it ("Printing House is level 10";
    # the step's words hold its id, "printing-house", which a page's refusal says by its name too)
    return re.sub(rf"(?<![\w-]){re.escape(struct.name)}(?![\w-])", struct.title or struct.name, said)


def buildable_options(ruleset: Any, state: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    """The structures of a Civic row: every structure of the catalogue; for Build Structure those the step would
    refuse now marked with its reason, so the sheet's structure browser shows what can be afforded and placed."""
    building = str(within.get("activity") or "") == "build-structure"
    return [Option(s.name, s.title or s.name, structure_detail(s), build_refusal(ruleset, state, s, within)
                   if building else "")
            for s in sorted(T.catalog(state.homebrew).structures.values(), key=lambda s: (s.level, s.name))]
