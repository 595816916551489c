"""Kingdom activities: validation of a chosen activity, its costs, its check and its outcome effects.

Outcomes come from the data (``data/activities.toml``) as effect lists; this module
interprets the few effect kinds. Activity-specific preconditions (hex targets,
structures, traded quantities) are checked here before anything is emitted. An
activity's inputs are an ``ActivityRow`` (the Commerce steps build one from their
choices); outcome effects read what they may ask (a branch, the Ruins of your choice) as ``Picks``.
"""

from __future__ import annotations

from typing import Any, get_args

from kingdomlog.core.errors import InputError
from kingdomlog.core.modifiers import Modifier as StackMod
from kingdomlog.dice.checks import Degree
from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e import rules as R
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.choices import ActivityRow, HexEntry
from kingdomlog.rulesets.pf2e.engine import (
    Asked,
    Ctx,
    Picks,
    add_ruin,
    amount,
    catalog,
    dc_breakdown,
    gain_commodity,
    gm_effects,
    hex_of,
    pay_commodities,
    pick_ruins,
    resolve_check,
    roll,
    spend_rp,
    unrest,
)
from kingdomlog.rulesets.pf2e.hexmap import (
    auto_second,
    claim_refusal,
    farmland_second_refusal,
    farmland_settlement,
    road_second_refusal,
    target_hex,
)
from kingdomlog.rulesets.pf2e.state import (
    activity_lock,
    capital,
    civic_slots,
    claim_limit,
    feat_unrest_reduction,
    in_anarchy,
    leadership_slots,
    rank_at_least,
    region_slots,
    settlement_type_for,
)


def _used(ctx: Ctx, name: str) -> int:
    return sum(1 for u in ctx.state.used_this_turn if u.name == name)


def _used_last(ctx: Ctx, name: str) -> bool:
    return any(u.name == name for u in ctx.state.used_last_turn)


def _when_ok(ctx: Ctx, when: str, name: str) -> bool:
    if when == "used_last_turn":
        return _used_last(ctx, name)
    if when == "not_used_last_turn":
        return not _used_last(ctx, name)
    if when == "fame_zero":
        return ctx.state.fame == 0
    if when == "fame_positive":
        return ctx.state.fame > 0
    return True


def hex_id(raw: str | HexEntry | None) -> str:
    return "" if raw is None else raw if isinstance(raw, str) else raw.id


def run_effects(ctx: Ctx, asked: Asked, effects: list[T.Effect], *, key: str, name: str, picks: Picks,
                prep: dict[str, Any]) -> None:
    """Apply outcome effects in order (effects as data, see data/activities.toml)."""
    q, m = int(prep.get("q", 0)), int(prep.get("m", 0))
    for j, eff in enumerate(effects):
        ek = f"{key}.e{j + 1}"
        if not _when_ok(ctx, eff.when, name):
            continue
        k = eff.kind
        if k == "choose":
            idx = picks.option
            if not 0 <= idx < len(eff.options):
                raise InputError(f"{name}: option must be 0..{len(eff.options) - 1}")
            run_effects(ctx, asked, eff.options[idx], key=f"{ek}.o{idx}", name=name, picks=picks, prep=prep)
        elif k == "rp":
            val, faces = amount(ctx, eff.amount, ek, q=q, m=m)
            if val >= 0:
                ctx.emit(E.RPChanged(delta=val, cause=name, faces=faces))
            else:
                spend_rp(ctx, asked, -val, name, forced=True, faces=faces)
        elif k == "unrest":
            val, faces = amount(ctx, eff.amount, ek, q=q, m=m)
            # feats reducing Unrest further (Endure Anarchy) look at the Unrest before this reduction
            more = feat_unrest_reduction(ctx.state) if val < 0 and ctx.step.startswith("activity.") else []
            unrest(ctx, val, name, faces)
            for title, n in more:
                if ctx.state.unrest > 0:
                    unrest(ctx, -min(n, ctx.state.unrest), f"feat {title}")
        elif k == "fame":
            val, _ = amount(ctx, eff.amount, ek)
            ctx.emit(E.FameChanged(delta=val, reason=name))
        elif k == "xp":
            val, _ = amount(ctx, eff.amount, ek)
            ctx.emit(E.XPAwarded(amount=val, source=name, to_pending=True))
        elif k == "food_loss":
            if ctx.state.commodities["food"] == 0:
                unrest(ctx, 1, f"{name}: no Food to lose")
            else:
                val, faces = amount(ctx, eff.amount, ek)
                gain_commodity(ctx, "food", -min(val, ctx.state.commodities["food"]), name, faces)
        elif k in ("ruin", "ruin_penalty"):
            if eff.target == "target":
                targets = [prep["ruin"]] * eff.count
            elif eff.target == "choice":
                targets = pick_ruins(ctx, picks.ruins, eff.count)
            else:
                targets = [eff.target] * eff.count
            for i, r in enumerate(targets):
                val, faces = amount(ctx, eff.amount, f"{ek}.{i}")
                if k == "ruin":
                    add_ruin(ctx, asked, r, val, name, key=f"{ek}.{i}.flat", faces=faces)
                elif val:
                    ctx.emit(E.RuinPenaltyChanged(ruin=r, delta=val, cause=name))
        elif k == "commodity":
            c = eff.target if eff.target != "choice" else picks.commodity
            val, faces = amount(ctx, eff.amount, ek, q=q, m=m)
            gain_commodity(ctx, c, val, name, faces)
        elif k == "modifier":
            mid = f"t{ctx.state.turn}.{ctx.step}.{key}.{j}"
            ctx.emit(E.ModifierAdded(id=mid, source=name, kind=eff.type, value=eff.value, selector=eff.selector,
                                     expires=eff.expires))
        elif k == "pending":
            val, _ = amount(ctx, eff.amount, ek, q=q, m=m)
            if val:
                ctx.emit(E.PendingAdded(kind=eff.target, amount=val, cause=name))
        elif k == "cooldown":
            ck = eff.target.replace("{target}", str(prep.get("ruin", "")))
            ctx.emit(E.CooldownSet(key=ck, blocked_through_turn=ctx.state.turn + eff.turns))
        elif k == "treasury_debt":
            ctx.emit(E.TreasuryDebtChanged(outstanding=True))
        elif k == "trade_goods":
            goods = prep.get("goods") or {}
            for c, n in goods.items():
                ctx.emit(E.PendingAdded(kind="commodity", amount=int(n), commodity=c, cause=name))
        elif k == "extra_region":
            ctx.emit(E.ExtraActivityGranted(category="region", cause=name))
        elif k == "claim_hex":
            if "hex" in prep:  # Pledge of Fealty claims the group's hex only when one is named
                _claim(ctx, asked, prep["hex"], name, key=ek, picks=picks)
        elif k == "work_site":
            hx = prep["hex"]
            ctx.emit(E.WorkSiteEstablished(hex_id=hx.id, commodity=prep["commodity"],
                                           double_until_turn=ctx.state.turn + 1 if int(eff.amount) == 2 else 0))
        elif k in ("farmland", "roads"):
            ids = [prep["hex"].id]
            if int(eff.amount) == 2:
                # a critical success's second hex: the one named, else the first that fits (§4.8; none: success)
                first = hex_of(ctx.state, prep["hex"].id)
                second = prep.get("second_hex") or (auto_second(ctx.state, first, k) if first else "")
                if second:
                    ids.append(second)
            if k == "farmland":
                ctx.emit(E.FarmlandEstablished(hex_ids=ids, settlement=prep["settlement"],
                                               distance=prep["distance"]))
            else:
                ctx.emit(E.RoadsBuilt(hex_ids=ids, bridge_added=bool(prep["hex"].river)))
        elif k == "crop_failure_watch":
            ctx.emit(E.CropFailureWatch(hex_id=prep["hex"].id, turns=2))
        elif k == "settlement":
            val, faces = amount(ctx, eff.amount, ek)
            if val > ctx.state.rp:
                # §4.8 Establish Settlement: an unpayable result is treated as a critical failure.
                ctx.emit(E.FlatCheckResolved(purpose="establish_settlement_unpayable", dc=0, die=1, success=False))
                continue
            spend_rp(ctx, asked, val, name, faces=faces)
            ctx.emit(E.SettlementFounded(id=prep["settlement_id"], name=prep["settlement_name"], hex_id=prep["hex"].id))
        elif k == "build":
            _build_outcome(ctx, asked, prep, int(eff.amount), name, picks)
        elif k == "demolish":
            _demolish_outcome(ctx, prep, int(eff.amount), ek, picks)
        else:  # pragma: no cover - validated by the Effect model
            raise InputError(f"unknown effect kind {k!r}")


def _claim(ctx: Ctx, asked: Asked, hx: E.HexIn, cause: str, *, key: str, picks: Picks) -> None:
    old = hex_of(ctx.state, hx.id)
    xp = 0 if old is not None and old.ever_claimed else int(ctx.state.options.get("xp_per_hex", 10))
    ctx.emit(E.HexClaimed(hex=hx, via=cause, xp=xp))
    if "landmark" in hx.features:
        val, faces = roll(ctx, f"{key}.landmark", "1d4")
        unrest(ctx, -val, "landmark claimed", faces)
        for ab in ("culture", "economy"):
            ctx.emit(E.ModifierAdded(id=f"t{ctx.state.turn}.landmark.{hx.id}.{ab}", source=f"landmark {hx.id}",
                                     value=2, selector=f"ability:{ab}", expires="end_of_next_turn"))
    if "refuge" in hx.features:
        r = pick_ruins(ctx, picks.refuge_ruin, 1)[0]
        add_ruin(ctx, asked, r, -1, "refuge claimed", key=f"{key}.refuge")
        for ab in ("loyalty", "stability"):
            ctx.emit(E.ModifierAdded(id=f"t{ctx.state.turn}.refuge.{hx.id}.{ab}", source=f"refuge {hx.id}",
                                     value=2, selector=f"ability:{ab}", expires="end_of_next_turn"))


# ------------------------------------------------------------------ structures


def _cap_id(s: Any) -> str:
    cap = capital(s)
    return cap.id if cap is not None else ""


def _settlement(ctx: Ctx, sid: Any) -> Any:
    for s in ctx.state.settlements:
        if s.id == sid:
            return s
    raise ctx.fail(f"no settlement {sid!r} in the kingdom", "§3.3 A3")


def _place(ctx: Ctx, st: Any, struct: T.Structure, choices: ActivityRow) -> tuple[int, list[int], str, str]:
    """Block, lots and border for a new structure (§4.9.2), and the structure it replaces (upgrades)."""
    replaces = ""
    if struct.lots == 0:
        block, border, replaces = _place_infrastructure(ctx, st, struct, choices)
        return block, [], replaces, border
    if struct.upgrade_from:
        old = next((b for b in st.structures if b.name == struct.upgrade_from), None)
        if old is not None:
            replaces = old.name
            free = [i for i in range(4) if st.blocks[old.block][i] == "" or i in old.lots]
            if len(free) < struct.lots:
                raise ctx.fail(f"{struct.name} needs {struct.lots} lots in block {old.block}", "§4.9.2")
            return old.block, sorted(set(old.lots) | set(free[: struct.lots]))[: struct.lots], replaces, ""
    if choices.block is not None:
        block = choices.block
    else:
        block = next((i for i, b in enumerate(st.blocks) if sum(1 for x in b if x == "") >= struct.lots),
                     len(st.blocks))
    if block > len(st.blocks) or block < 0:
        raise ctx.fail(f"block {block} is not next to the settlement's blocks", "§4.9.2")
    if block == len(st.blocks):
        grown = settlement_type_for(st.blocks_used + 1)
        if ctx.state.level < grown.min_level:
            raise ctx.fail(f"{st.name} cannot grow to {st.blocks_used + 1} blocks ({grown.name}) before kingdom"
                           f" level {grown.min_level}", "§5.10 settlement types")
        if any(x == "" for b in st.blocks for x in b):
            raise ctx.fail(f"{st.name} must fill every lot before building in a new block", "§5.10")
        if st.overcrowded:
            raise ctx.fail(f"{st.name} is Overcrowded and cannot grow", "§5.10")
        lots_row = ["", "", "", ""]
    else:
        lots_row = list(st.blocks[block])
    if choices.lots is not None:
        lots = list(choices.lots)
    else:
        lots = []
        for i in range(4):
            if lots_row[i] == "":
                lots = [*lots, i] if not lots or lots[-1] == i - 1 else [i]
                if len(lots) == struct.lots:
                    break
    if len(lots) != struct.lots or any(not 0 <= i < 4 or lots_row[i] != "" for i in lots):
        raise ctx.fail(f"{struct.name} needs {struct.lots} empty lot(s) in block {block} of {st.name}",
                       "§4.9.2 contiguous empty lots")
    return block, lots, replaces, ""


BORDERS: tuple[str, ...] = get_args(T.Border)


def _place_infrastructure(ctx: Ctx, st: Any, struct: T.Structure, choices: ActivityRow) -> tuple[int, str, str]:
    """Block (-1 = none), border and replaced structure of infrastructure (lots = 0, §5.15 data ``placement``).

    settlement: one per settlement; block: one per block in use; border: one per border of the urban grid
    (a water border needs a river or lake in the settlement's hex). An upgrade replaces its predecessor
    standing at the same place.
    """
    infra = [b for b in st.structures if not b.lots]
    scope = struct.scope
    rule = "§5.15 infrastructure"
    if scope == "settlement":
        if any(b.name == struct.name for b in infra):
            raise ctx.fail(f"{st.name} already has a {struct.name} (one per settlement)", rule)
        old = next((b for b in infra if struct.upgrade_from and b.name == struct.upgrade_from), None)
        return -1, "", old.name if old else ""
    if scope == "block":
        used = [i for i, b in enumerate(st.blocks) if any(x for x in b)]
        if choices.block is not None:
            block = choices.block
        else:
            block = next((i for i in used if not any(b.name == struct.name and b.block == i for b in infra)), -1)
        if block not in used:
            raise ctx.fail(f"{struct.name} is built on a block of {st.name} in use (blocks in use: {used})", rule)
        if any(b.name == struct.name and b.block == block for b in infra):
            raise ctx.fail(f"block {block} of {st.name} already has {struct.name} (one per block)", rule)
        old = next((b for b in infra if struct.upgrade_from and b.name == struct.upgrade_from and b.block == block),
                   None)
        return block, "", old.name if old else ""
    # border
    if struct.border == "water":
        home = hex_of(ctx.state, st.hex)
        if home is None or not (home.river or home.lake):
            raise ctx.fail(f"{struct.name} needs a water border: {st.name}'s hex has no river or lake", rule)
    taken = {b.border: b for b in infra if b.border}
    border: str
    if choices.border is not None:
        border = choices.border
    else:
        upgradable = [d for d in BORDERS if d in taken and taken[d].name == struct.upgrade_from]
        free = [d for d in BORDERS if d not in taken]
        if not (upgradable or free):
            raise ctx.fail(f"every border of {st.name} already holds infrastructure", rule)
        border = (upgradable or free)[0]
    old = taken.get(border)
    if old is not None and not (struct.upgrade_from and old.name == struct.upgrade_from):
        raise ctx.fail(f"the {border} border of {st.name} already has {old.name} (one per border)", rule)
    return -1, border, old.name if old else ""


def _family(cat: T.Catalog, struct: T.Structure) -> set[str]:
    """A structure, the one it upgrades from, and those upgrading from it (walls: wooden and stone)."""
    fam = {struct.name}
    if struct.upgrade_from:
        fam.add(struct.upgrade_from)
    fam |= {s.name for s in cat.structures.values() if s.upgrade_from == struct.name}
    return fam


def _fame_of(struct: T.Structure, fame_type: str) -> int:
    """1 Fame/Infamy for a famous and infamous structure; a single-trait one only for the matching kingdom."""
    if struct.fame:
        return 1
    return 1 if ("famous" in struct.traits and fame_type == "fame") or (
        "infamous" in struct.traits and fame_type == "infamy") else 0


def _build_outcome(ctx: Ctx, asked: Asked, prep: dict[str, Any], level: int, name: str,
                   picks: Picks) -> None:
    struct: T.Structure = prep["structure"]
    st = _settlement(ctx, prep["settlement"])
    family = _family(catalog(ctx), struct)
    held_before = sum(1 for b in st.structures if b.name in family)
    if level >= 1 and struct.lots == 0:
        ctx.emit(E.InfrastructureBuilt(settlement=st.id, structure=struct.name,
                                       placement=struct.scope,
                                       block=prep["block"], border=prep["border"],
                                       storage=dict(struct.storage),
                                       consumption_reduction=struct.consumption_reduction,
                                       item_bonuses=dict(struct.item_bonuses), replaces=prep["replaces"]))
    elif level >= 1:
        ctx.emit(E.StructureBuilt(settlement=st.id, structure=struct.name, block=prep["block"], lots=prep["lots"],
                                  residential=struct.residential, storage=dict(struct.storage), seat=struct.seat,
                                  consumption_reduction=struct.consumption_reduction,
                                  item_bonuses=dict(struct.item_bonuses), replaces=prep["replaces"]))
    if level >= 1:
        if level == 2 and prep["paid_commodities"]:
            up = ctx.state.options.get("half_commodities_rounding", "down") != "down"
            for c, n in prep["paid_commodities"].items():
                back = R.half_cost(n, round_up=up)
                if back:
                    gain_commodity(ctx, c, back, f"{struct.name}: critical success refund")
        if struct.first_built_each_turn and ctx.state.structures_built_this_turn.count(struct.name) == 1:
            run_effects(ctx, asked, struct.first_built_each_turn, key=f"{prep['key']}.first", name=struct.name,
                        picks=Picks(), prep={})
        if struct.built_effects and (not struct.built_effects_limit or held_before < struct.built_effects_limit):
            run_effects(ctx, asked, struct.built_effects, key=f"{prep['key']}.built", name=struct.name,
                        picks=picks, prep={})
        gain = _fame_of(struct, ctx.state.fame_type)
        if gain:
            ctx.emit(E.FameChanged(delta=gain, reason=f"{struct.name} ({ctx.state.fame_type})"))
    else:
        ctx.emit(E.StructureNotBuilt(settlement=st.id, structure=struct.name, block=prep["block"], lots=prep["lots"],
                                     rubble=level < 0))


def _demolish_outcome(ctx: Ctx, prep: dict[str, Any], level: int, key: str, picks: Picks) -> None:
    st = _settlement(ctx, prep["settlement"])
    block, lot = prep["block"], prep["lot"]
    lots = [lot]
    if level == 2:
        recover = picks.recover
        if recover:
            val, faces = roll(ctx, f"{key}.recover", "1d6")
            gain_commodity(ctx, recover, val, "demolish", faces)
        else:
            occupant = next((b for b in st.structures if b.block == block and lot in b.lots), None)
            if occupant is not None:
                lots = list(occupant.lots)
    ctx.emit(E.LotsCleared(settlement=st.id, block=block, lots=lots))


# ------------------------------------------------------------------ one activity


def perform(ctx: Ctx, asked: Asked, choices: ActivityRow, *, key: str, category: str,
            role: str = "") -> Degree | None:
    """Validate and resolve one activity of ``category`` (§3.2, §3.3); raises ``RuleError`` naming the rule."""
    cat = catalog(ctx)
    act_name = choices.activity
    act = cat.activities.get(act_name)
    if act is None:
        raise InputError(f"unknown activity {act_name!r}")
    if act.category != category:
        raise ctx.fail(f"{act.title or act.name} is a {act.category} activity, not a {category} activity",
                       "§3.3 activity phase steps")
    s = ctx.state
    extra_mods: list[StackMod] = []
    lock = activity_lock(s, act)
    if lock:
        raise ctx.fail(f"{act.name} is not unlocked: it needs {lock} (or campaign option unlock_all_activities)",
                       "§5.15 activity unlocks")
    if in_anarchy_block(ctx, act):
        raise ctx.fail(f"the kingdom is in anarchy: only Quell Unrest is allowed, not {act.name}",
                       "§3.1 U2.5 anarchy")
    if act.once and _used(ctx, act.name):
        raise ctx.fail(f"{act.name} was already used this Kingdom turn (once per turn)", "§3.3 A1.3 once per turn")
    # who acts, and how many of this category are left
    if category == "leadership":
        role = choices.role or role
        if role not in T.ROLES:
            raise InputError(f"{act.name}: role must be one of {', '.join(T.ROLES)}")
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
        role = choices.role or role
        if choices.favored_land:
            _favored_land(ctx, act, choices, extra_mods)
    elif category == "civic":
        sid = choices.settlement or _cap_id(s)
        _settlement(ctx, sid)
        used = sum(1 for u in s.used_this_turn if u.category == "civic" and u.settlement == sid)
        if used >= civic_slots(s, str(sid)):
            raise ctx.fail(f"settlement {sid} has used its Civic activity this turn", "§2.11.11 / §3.3 A3")
    # cooldowns
    for ck in (act.name, f"{act.name}:*", f"{act.name}:{choices.ruin or ''}"):
        if s.cooldowns.get(ck, 0) >= s.turn and ck in s.cooldowns:
            raise ctx.fail(f"{act.name} is blocked through turn {s.cooldowns[ck]} ({ck})", "§2.10 cooldowns")
    prep: dict[str, Any] = {"key": key}
    picks = Picks.of(choices)
    skill = choices.skill or (act.skills[0] if act.skills else "")
    extra_dc = 0
    dc_rule = act.dc
    worsen = 0
    if act.name == "repair-reputation":
        ruin: str = choices.ruin or max(T.RUINS, key=lambda r: (s.ruin[r].penalty, s.ruin[r].points))
        prep["ruin"] = ruin
        for ck in (f"repair-reputation:{ruin}", "repair-reputation:*"):
            if s.cooldowns.get(ck, -1) >= s.turn:
                raise ctx.fail(f"Repair Reputation is blocked through turn {s.cooldowns[ck]} ({ck})", "§4.1")
        skill = T.core().ruins[ruin].repair_skill  # type: ignore[index]
    if act.name == "quell-unrest":
        last = next((u.skill for u in s.used_last_turn if u.name == "quell-unrest"), "")
        if skill == last:
            raise ctx.fail(f"Quell Unrest cannot use {skill} two turns in a row", "§4.4")
    if act.skills and skill not in act.skills:
        raise ctx.fail(f"{act.name} uses {', '.join(act.skills)}, not {skill!r}", "§4 activity skills")
    # the structure decides the skill and DC of Build Structure
    if act.name == "build-structure":
        sname = choices.structure or ""
        struct = cat.structures.get(sname)
        if struct is None:
            raise InputError(f"build-structure: unknown structure {sname!r}")
        if struct.level > s.level:
            raise ctx.fail(f"{struct.name} is level {struct.level}, above the kingdom's level {s.level}",
                           "§4.9.1 structure level")
        st = _settlement(ctx, choices.settlement or _cap_id(s))
        skill = choices.skill or struct.skills[0]
        if skill not in struct.skills:
            raise ctx.fail(f"{struct.name} is built with {', '.join(struct.skills)}, not {skill}", "§4.9.4")
        if not rank_at_least(s.skills.get(skill, "untrained"), struct.proficiency):
            raise ctx.fail(f"{struct.name} needs {struct.proficiency} {skill}", "§5.15 structure check")
        block, lots, replaces, border = _place(ctx, st, struct, choices)
        prep.update(structure=struct, settlement=st.id, block=block, lots=lots, replaces=replaces, border=border,
                    paid_commodities={})
        dc_rule = str(struct.dc)
        if sname not in st.paid_unbuilt:
            rp_cost, goods = struct.cost_rp, dict(struct.cost)
            if choices.use_ruins:
                home = hex_of(s, st.hex)
                if home is None or "ruins" not in home.features:
                    raise ctx.fail(f"{st.name}'s hex has no Ruins to build on", "§4.9 / §4.11 Ruins")
                up = s.options.get("half_commodities_rounding", "down") == "up"
                rp_cost = R.half_cost(rp_cost, round_up=up)
                goods = {c: R.half_cost(n, round_up=up) for c, n in goods.items()}
                ctx.emit(E.FeatureUsed(hex_id=st.hex, feature="ruins", cause=f"build {struct.name}"))
            spend_rp(ctx, asked, rp_cost, f"build {struct.name}")
            pay_commodities(ctx, goods, f"build {struct.name}")
            prep["paid_commodities"] = goods
    elif act.name == "demolish":
        st = _settlement(ctx, choices.settlement or _cap_id(s))
        block = choices.block if choices.block is not None else 0
        lot = choices.lot if choices.lot is not None else -1
        if not (0 <= block < len(st.blocks) and 0 <= lot < 4) or st.blocks[block][lot] == "":
            raise ctx.fail(f"demolish needs an occupied lot (block {block}, lot {lot}) in {st.name}", "§4.9")
        prep.update(settlement=st.id, block=block, lot=lot)
    needed = act.proficiency
    if act.name == "collect-taxes" and s.options.get("collect_taxes_requires_trained", False):
        needed = "trained"
    per_skill = act.skill_proficiency.get(skill)
    if per_skill and T.RANKS.index(per_skill) > T.RANKS.index(needed):
        needed = per_skill
    if not rank_at_least(s.skills.get(skill, "untrained"), needed) and act.skills:
        raise ctx.fail(f"{act.name} needs {needed} proficiency in {skill}", "§4 proficiency requirement")
    if act.requires == "water_hex" and not any(h.claimed and (h.river or h.lake) for h in s.hexes):
        raise ctx.fail("Go Fishing needs a claimed hex with a river or lake", "§4.8 Go Fishing")
    # hex targets
    if act.target == "hex" or (act.name == "pledge-of-fealty" and choices.hex is not None):
        if choices.hex is None:
            raise InputError(f"{act.name}: choose a 'hex'")
        rule = "§4.7 Pledge of Fealty" if act.name == "pledge-of-fealty" else f"§4.8 {act.title or act.name}"
        hx = target_hex(ctx, choices.hex, rule)
        prep["hex"] = hx
        known = hex_of(s, hx.id)
        claimed = known is not None and known.claimed
        if act.name in ("claim-hex", "pledge-of-fealty"):
            if claimed:
                raise ctx.fail(f"hex {hx.id} is already claimed", rule)
            why = claim_refusal(s, hx)
            if why:
                if act.name == "pledge-of-fealty":
                    why += ("; a group's hex not bordering the kingdom becomes a secondary territory, which is"
                            " not modelled: leave 'hex' out")
                raise ctx.fail(why, f"{rule}: adjacent to the kingdom")
            if act.name == "claim-hex":
                if _used(ctx, "claim-hex") >= claim_limit(s.level):
                    raise ctx.fail(f"Claim Hex may be used {claim_limit(s.level)} time(s) per turn at level {s.level}",
                                   "§5.9 Claim Hex limit")
                if not choices.reconnoitered:
                    raise ctx.fail(f"hex {hx.id} must be Reconnoitered and cleared first", "§4.8 Claim Hex")
                if s.level >= 4:
                    extra_mods.append(StackMod("Expansion Expert", 2, "circumstance"))
        else:
            if not claimed:
                raise ctx.fail(f"hex {hx.id} is not claimed by the kingdom", f"§4.8 {act.title}")
            assert known is not None
            if act.name == "establish-work-site":
                com = choices.commodity or (known.resource or {"forest": "lumber"}.get(known.terrain, "ore"))
                allowed = T.core().work_site_terrain.get(com)  # type: ignore[call-overload]
                if allowed is None or known.terrain not in allowed:
                    raise ctx.fail(f"a {com} work site needs {allowed or 'suitable'} terrain, hex {hx.id} is"
                                   f" {known.terrain}", "§4.8 Establish Work Site")
                if known.work_site is not None:
                    raise ctx.fail(f"hex {hx.id} already has a work site", "§2.7 one feature of each kind")
                prep["commodity"] = com
                spend_rp(ctx, asked, T.core().terrain_rp[known.terrain], "establish work site")
            elif act.name == "build-roads":
                if known.roads:
                    raise ctx.fail(f"hex {hx.id} already has roads", "§4.8 Build Roads")
                cost = T.core().terrain_rp[known.terrain] * (2 if known.river and "bridge" not in known.features
                                                             else 1)
                if choices.second_hex:
                    other = hex_of(s, choices.second_hex)
                    why = f"hex {choices.second_hex!r} is not on the map" if other is None else \
                        road_second_refusal(s, known, other)
                    if why:
                        raise ctx.fail(f"second road hex: {why}", "§4.8 Build Roads (critical success)")
                spend_rp(ctx, asked, cost, "build roads")
                prep["second_hex"] = choices.second_hex
            elif act.name == "establish-farmland":
                if known.terrain not in ("plains", "hills"):
                    raise ctx.fail("Farmland needs a plains or hills hex", "§4.8 Establish Farmland")
                if "farmland" in known.features:
                    raise ctx.fail(f"hex {hx.id} already has Farmland", "§2.7")
                st, dist = farmland_settlement(ctx, known, choices.settlement, "§4.8 Establish Farmland: in a"
                                               " settlement's influence")
                if "settlement" in known.features and not s.options.get("farmland_in_settlement_hex", True):
                    raise ctx.fail("Farmland in a settlement's own hex is off (option)", "§4.11")
                if choices.second_hex:
                    other = hex_of(s, choices.second_hex)
                    why = f"hex {choices.second_hex!r} is not on the map" if other is None else \
                        farmland_second_refusal(s, known, other)
                    if why:
                        raise ctx.fail(f"second Farmland hex: {why}", "§4.8 Establish Farmland (critical success)")
                prep.update(settlement=st.id, distance=dist, second_hex=choices.second_hex)
                if known.terrain == "hills":
                    extra_dc, dc_rule = 5, "control"
                spend_rp(ctx, asked, 1 if known.terrain == "plains" else 2, "establish farmland")
            elif act.name == "establish-settlement":
                if any(f in known.features for f in ("settlement", "freehold", "farmland")):
                    raise ctx.fail(f"hex {hx.id} already holds a settlement, freehold or farmland",
                                   "§4.8 Establish Settlement")
                prep["settlement_id"] = choices.id or f"s{len(s.settlements) + 1}"
                prep["settlement_name"] = choices.name or prep["settlement_id"]
    # commerce specifics
    if act.name == "trade-commodities":
        com = choices.commodity or ""
        if com not in T.COMMODITIES:
            raise InputError("trade-commodities: choose a 'commodity'")
        qty = choices.quantity if choices.quantity is not None else 1
        if not 1 <= qty <= min(4, s.commodities[com]):
            raise ctx.fail(f"trade 1..{min(4, s.commodities[com])} {com} (have {s.commodities[com]})", "§4.3")
        prep["q"] = qty
        ctx.emit(E.CommodityChanged(commodity=com, delta=-qty, cause="trade commodities"))
        if choices.group and choices.group in s.diplomatic_relations:
            extra_mods.append(StackMod("diplomatic relations", 1, "circumstance"))
    if act.name == "manage-trade-agreements":
        mm = choices.agreements if choices.agreements is not None else len(s.trade_agreements)
        if not 1 <= mm <= len(s.trade_agreements):
            raise ctx.fail(f"manage 1..{len(s.trade_agreements)} trade agreements", "§3.2 C4")
        prep["m"] = mm
        goods = dict(choices.goods or {})
        if sum(goods.values()) > mm or goods.get("luxuries", 0) * 2 > mm:
            raise ctx.fail("at most m commodities, at most half of them Luxuries", "§4.3 Manage Trade Agreements")
        prep["goods"] = goods
        spend_rp(ctx, asked, 2 * mm, "manage trade agreements")
        if _used_last(ctx, act.name):
            extra_dc = 5
    if act.name == "tap-treasury" and s.treasury_debt:
        worsen = 2
    if act.name == "craft-luxuries":
        val, faces = amount(ctx, "rd", f"{key}.cost")
        spend_rp(ctx, asked, val, "craft luxuries", forced=True, faces=faces)
    elif isinstance(act.cost_rp, int):
        spend_rp(ctx, asked, act.cost_rp, act.name)
    # the DC
    if dc_rule == "none":
        # no check at all (the data's dc = "none"): the activity's outcome applies directly
        ctx.emit(E.ActivityWithoutCheck(activity=act.name, category=category, role=role,
                                        settlement=str(prep.get("settlement", choices.settlement or "")),
                                        target=str(prep.get("ruin") or (prep["hex"].id if "hex" in prep else ""))))
        run_effects(ctx, asked, act.outcomes.for_degree("success"), key=key, name=act.name, picks=picks, prep=prep)
        extra = gm_effects(choices.gm_effects)
        if extra:
            run_effects(ctx, asked, extra, key=f"{key}.gm", name=f"{act.name} (GM ruling)", picks=picks, prep=prep)
        return None
    if dc_rule == "event":
        dc = _event_dc(ctx, act, choices)
    elif dc_rule == "gm":
        if choices.dc is None:
            raise ctx.fail(f"{act.name}: its DC is the GM's ruling; give it as 'dc' in the plan",
                           "§4 activity DC (GM ruling)")
        dc = dc_breakdown(s, str(choices.dc), label=f"GM's ruling: {act.name} DC")
    elif dc_rule == "negotiation":
        if choices.dc is None:
            raise InputError(f"{act.name}: give the group's Negotiation DC as 'dc'")
        dc = dc_breakdown(s, str(choices.dc), label="negotiation DC")
    elif dc_rule.startswith("control+"):
        dc = dc_breakdown(s, "control", extra=int(dc_rule.split("+")[1]) + extra_dc, label=act.name)
    elif dc_rule in ("control", "terrain_farmland"):
        dc = dc_breakdown(s, "control", extra=extra_dc, label=f"{act.name} DC +{extra_dc}")
    else:
        dc = dc_breakdown(s, dc_rule, label=f"{act.name} DC")
    if not skill:
        raise InputError(f"{act.name}: choose a 'skill'")
    degree = resolve_check(ctx, key=key, activity=act.name, category=category, skill=skill, dc=dc, role=role,
                           settlement=str(prep.get("settlement", choices.settlement or "")),
                           target=str(prep.get("ruin") or (prep["hex"].id if "hex" in prep else "")),
                           warfare=act.warfare, extra=extra_mods, fame_reroll=choices.fame_reroll,
                           worsen=worsen, selector_target=str(prep.get("ruin") or prep.get("commodity") or (
                               prep["structure"].name if "structure" in prep else "")))
    run_effects(ctx, asked, act.outcomes.for_degree(degree.label), key=key, name=act.name, picks=picks, prep=prep)
    extra = gm_effects(choices.gm_effects)
    if extra:
        run_effects(ctx, asked, extra, key=f"{key}.gm", name=f"{act.name} (GM ruling)", picks=picks, prep=prep)
    return degree


def _event_dc(ctx: Ctx, act: T.Activity, choices: ActivityRow) -> Any:
    """dc = "event": the Control DC adjusted by the targeted (ongoing) event's modifier (§5.12).

    The plan names the event as 'event'; with exactly one ongoing event that one is the target.
    """
    s = ctx.state
    ongoing = [e.name for e in s.ongoing_events]
    name = choices.event
    if name is None:
        if len(ongoing) != 1:
            raise ctx.fail(f"{act.name} targets an ongoing event: name it as 'event' (ongoing: "
                           f"{', '.join(ongoing) or 'none'})", "§5.12 event DC")
        name = ongoing[0]
    name = str(name)
    if name not in ongoing:
        raise ctx.fail(f"{act.name} targets {name!r}, which is not an ongoing event (ongoing: "
                       f"{', '.join(ongoing) or 'none'})", "§5.12 event DC")
    ev = catalog(ctx).events.get(name)
    if ev is None:
        raise ctx.fail(f"{act.name}: event {name!r} is not in the catalogue, so its modifier is unknown",
                       "§5.12 event DC")
    return dc_breakdown(s, "control", extra=ev.modifier, label=f"event modifier ({name})")


def _favored_land(ctx: Ctx, act: T.Activity, choices: ActivityRow, extra_mods: list[StackMod]) -> None:
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


def in_anarchy_block(ctx: Ctx, act: T.Activity) -> bool:
    return in_anarchy(ctx.state) and not act.anarchy_allowed


