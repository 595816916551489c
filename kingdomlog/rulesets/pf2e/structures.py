"""Structures in settlements: placing one on the urban grid, building, repairing, demolishing, rubble, and the
free structure of a settlement founded on a Bridge or Structure hex (spec §4.9, §4.11, §5.15; AoN 1791).

A structure's numbers are copied into the event that builds it (storage, reductions, item bonuses, and in the
newer event versions the edifice trait, its stacking flags and the surroundings its reduction needs), so later
data never changes what an old log replays to.
"""

from __future__ import annotations

from typing import Any, get_args

from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e import rules as R
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.choices import ActivityRow
from kingdomlog.rulesets.pf2e.engine import Ctx, catalog, gain_commodity, hex_of, roll
from kingdomlog.rulesets.pf2e.state import Settlement, capital, settlement_facts, settlement_type_for

BORDERS: tuple[str, ...] = get_args(T.Border)


def cap_id(state: Any) -> str:
    cap = capital(state)
    return cap.id if cap is not None else ""


def settlement_of(ctx: Ctx, sid: Any, rule: str = "§3.3 A3") -> Settlement:
    for s in ctx.state.settlements:
        if s.id == sid:
            return s
    raise ctx.fail(f"no settlement {sid!r} in the kingdom", rule)


def stacking_of(struct: T.Structure) -> E.StackingFacts:
    """The stacking facts a built structure records (§5.10, §5.15)."""
    return E.StackingFacts(edifice=struct.edifice, reduction_stacks=struct.reduction_stacks,
                           item_bonus_stacks=struct.item_bonus_stacks and not struct.edifice,
                           reduction_when=struct.reduction_when)


def place(ctx: Ctx, st: Settlement, struct: T.Structure, choices: ActivityRow) -> tuple[int, list[int], str, str]:
    """Block, lots and border for a new structure (§4.9.2), and the structure it replaces (upgrades)."""
    replaces = ""
    if struct.lots == 0:
        block, border, replaces = place_infrastructure(ctx, st, struct, choices)
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


def place_infrastructure(ctx: Ctx, st: Settlement, struct: T.Structure, choices: Any) -> tuple[int, str, str]:
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
        block = choices.block if getattr(choices, "block", None) is not None else next(
            (i for i in used if not any(b.name == struct.name and b.block == i for b in infra)), -1)
        if block not in used:
            raise ctx.fail(f"{struct.name} is built on a block of {st.name} in use (blocks in use: {used})", rule)
        if any(b.name == struct.name and b.block == block for b in infra):
            raise ctx.fail(f"block {block} of {st.name} already has {struct.name} (one per block)", rule)
        old = next((b for b in infra if struct.upgrade_from and b.name == struct.upgrade_from and b.block == block),
                   None)
        return block, "", old.name if old else ""
    if struct.border == "water":
        home = hex_of(ctx.state, st.hex)
        if home is None or not (home.river or home.lake):
            raise ctx.fail(f"{struct.name} needs a water border: {st.name}'s hex has no river or lake", rule)
    taken = {b.border: b for b in infra if b.border}
    border: str
    if getattr(choices, "border", None) is not None:
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


def surroundings_refusal(ctx: Ctx, st: Settlement, struct: T.Structure) -> str:
    """Why ``struct`` cannot stand in ``st``'s surroundings ("" when it can; §5.15 data requires_surroundings)."""
    from kingdomlog.core.effects import holds

    if struct.requires_surroundings and not holds(struct.requires_surroundings, settlement_facts(ctx.state, st)):
        return f"{struct.name} needs {struct.requires_surroundings} around {st.name}"
    return ""


def family(cat: T.Catalog, struct: T.Structure) -> set[str]:
    """A structure, the one it upgrades from, and those upgrading from it (walls: wooden and stone)."""
    fam = {struct.name}
    if struct.upgrade_from:
        fam.add(struct.upgrade_from)
    fam |= {s.name for s in cat.structures.values() if s.upgrade_from == struct.name}
    return fam


def fame_of(struct: T.Structure, fame_type: str) -> int:
    """1 Fame/Infamy for a famous and infamous structure; a single-trait one only for the matching kingdom."""
    if struct.fame:
        return 1
    return 1 if ("famous" in struct.traits and fame_type == "fame") or (
        "infamous" in struct.traits and fame_type == "infamy") else 0


def emit_built(ctx: Ctx, st: Settlement, struct: T.Structure, *, block: int, lots: list[int], border: str = "",
               replaces: str = "", cause: str = "built") -> None:
    """Record a structure standing in ``st`` with every number it brings (§4.9 success)."""
    if struct.lots == 0:
        ctx.emit(E.InfrastructureBuilt(settlement=st.id, structure=struct.name, placement=struct.scope,
                                       block=block, border=border, storage=dict(struct.storage),
                                       consumption_reduction=struct.consumption_reduction,
                                       item_bonuses=dict(struct.item_bonuses), replaces=replaces,
                                       stacking=stacking_of(struct), cause=cause))
    else:
        ctx.emit(E.StructureBuilt(settlement=st.id, structure=struct.name, block=block, lots=lots,
                                  residential=struct.residential, storage=dict(struct.storage), seat=struct.seat,
                                  consumption_reduction=struct.consumption_reduction,
                                  item_bonuses=dict(struct.item_bonuses), replaces=replaces,
                                  stacking=stacking_of(struct), cause=cause))


def build_outcome(ctx: Ctx, run: Any, prep: dict[str, Any], level: int, name: str) -> None:
    """Build Structure's outcome (§4.9): built (critical success: half the commodities back), not built, or
    rubble. A repair (of a damaged structure) on any success makes it whole."""
    struct: T.Structure = prep["structure"]
    st = settlement_of(ctx, prep["settlement"])
    if prep.get("repair"):
        if level >= 1:
            old = prep["repair"]
            ctx.emit(E.StructureRepaired(settlement=st.id, structure=old.name, block=old.block, border=old.border))
        return
    held_before = sum(1 for b in st.structures if b.name in family(catalog(ctx), struct))
    if level >= 1:
        emit_built(ctx, st, struct, block=prep["block"], lots=prep["lots"], border=prep["border"],
                   replaces=prep["replaces"])
        if level == 2 and prep["paid_commodities"]:
            up = ctx.state.options.get("half_commodities_rounding", "down") != "down"
            for c, n in prep["paid_commodities"].items():
                back = R.half_cost(n, round_up=up)
                if back:
                    gain_commodity(ctx, c, back, f"{struct.name}: critical success refund")
        after_built(ctx, run, st, struct, held_before, key=prep["key"])
    else:
        ctx.emit(E.StructureNotBuilt(settlement=st.id, structure=struct.name, block=prep["block"], lots=prep["lots"],
                                     rubble=level < 0))


def after_built(ctx: Ctx, run: Any, st: Settlement, struct: T.Structure, held_before: int, *, key: str) -> None:
    """What a newly standing structure does at once: its first-built-each-turn and every-time effects (applied
    through ``run.again``, the interpreter of the activity's outcome), Fame."""
    if struct.first_built_each_turn and ctx.state.structures_built_this_turn.count(struct.name) == 1:
        run.again(struct.first_built_each_turn, f"{key}.first", struct.name, fresh_picks=True)
    if struct.built_effects and (not struct.built_effects_limit or held_before < struct.built_effects_limit):
        run.again(struct.built_effects, f"{key}.built", struct.name)
    gain = fame_of(struct, ctx.state.fame_type)
    if gain:
        from kingdomlog.rulesets.pf2e.state import fame_max

        ctx.emit(E.FameChanged(delta=gain, reason=f"{struct.name} ({ctx.state.fame_type})",
                               fame_after=min(fame_max(ctx.state), ctx.state.fame + gain)))


def demolish_outcome(ctx: Ctx, prep: dict[str, Any], level: int, key: str, recover: str | None) -> None:
    """Demolish (§4.9): the lot is cleared; a critical success clears a whole structure or recovers 1d6."""
    st = settlement_of(ctx, prep["settlement"])
    block, lot = prep["block"], prep["lot"]
    lots = [lot]
    if level == 2:
        if recover:
            val, faces = roll(ctx, f"{key}.recover", "1d6")
            gain_commodity(ctx, recover, val, "demolish", faces)
        else:
            occupant = next((b for b in st.structures if b.block == block and lot in b.lots), None)
            if occupant is not None:
                lots = list(occupant.lots)
    ctx.emit(E.LotsCleared(settlement=st.id, block=block, lots=lots))


def free_structures(ctx: Ctx, settlement_id: str, hex_id: str) -> None:
    """A settlement founded on a Bridge hex starts with a Bridge on a water border; on a Structure hex, with the
    structure standing there (AoN 1791 terrain features; §4.11)."""
    st = settlement_of(ctx, settlement_id)
    hx = hex_of(ctx.state, hex_id)
    if hx is None:
        return
    cat = catalog(ctx)
    if "bridge" in hx.features and "bridge" in cat.structures:
        bridge = cat.structures["bridge"]
        if hx.river or hx.lake:
            block, border, replaces = place_infrastructure(ctx, st, bridge, object())
            emit_built(ctx, st, bridge, block=block, lots=[], border=border, replaces=replaces,
                       cause="free: founded on a Bridge hex")
    if "structure" in hx.features and hx.structure:
        struct = cat.structures.get(hx.structure)
        if struct is None:
            raise ctx.fail(f"hex {hx.id}'s structure {hx.structure!r} is not in the catalogue", "§4.11 Structure")
        st = settlement_of(ctx, settlement_id)
        block, lots, replaces, border = place(ctx, st, struct, ActivityRow(activity="build-structure", gm_effects=[]))
        emit_built(ctx, st, struct, block=block, lots=lots, border=border, replaces=replaces,
                   cause=f"free: founded on hex {hx.id}'s {struct.name}")


def gift_structure(ctx: Ctx, name: str, first: str, picks: list[tuple[int, int]], cause: str) -> None:
    """A structure someone else builds for the kingdom, free and without Build Structure (Wealthy Immigrant, KMT
    data/events/Wealthy Immigrant.json: "in an available spot in the capital. If there isn't enough room in the
    capital, the immigrant builds in the largest settlement that has enough room"). ``first`` is the settlement
    tried first; the spot is the players' ``lots`` ((block, lot) pairs in it) or the first that fits. No kingdom
    level, cost or check applies, and, as for a settlement's free structure, nothing of "the first time you build"
    (the kingdom did not Build it); where no settlement has room, nothing is built and the note says so."""
    from kingdomlog.core.errors import RuleError

    struct = catalog(ctx).structures[name]
    spot = struct.model_copy(update={"upgrade_from": ""})  # an available spot: it replaces nothing standing
    order = [x for x in ctx.state.settlements if x.id == first]
    order += sorted((x for x in ctx.state.settlements if x.id != first), key=lambda x: -x.blocks_used)
    for st in order:
        row = ActivityRow(activity="build-structure", gm_effects=[])
        if picks and st.id == first:
            row = ActivityRow(activity="build-structure", gm_effects=[], block=picks[0][0],
                              lots=[lot for b, lot in picks if b == picks[0][0]])
        try:
            block, lots, replaces, border = place(ctx, st, spot, row)
        except RuleError:
            if picks and st.id == first:
                raise
            continue
        emit_built(ctx, st, struct, block=block, lots=lots, border=border, replaces=replaces, cause=cause)
        return
    ctx.emit(E.GMRuling(source=cause, note=f"no settlement has room for a {struct.title or struct.name}: nothing"
                                           " is built"))


def rubble_lots(ctx: Ctx, settlement_id: str, picks: list[tuple[int, int]], count: int, cause: str, *,
                structures_first: bool = False, residential: bool = False) -> None:
    """Reduce ``count`` lots of a settlement to rubble (an event's damage): the lots the players chose, else
    the empty lots first, then the first occupied ones (a structure's lot first when the rule names a structure:
    Vandals, Undead Uprising; a Residential structure's lot when the rule names one: Drug Den's "the Residential
    lot that the drug den was located in"; §4.9 Reduced to Rubble)."""
    st = settlement_of(ctx, settlement_id, "AoN 1836 reduced to rubble")
    chosen = [p for p in picks if 0 <= p[0] < len(st.blocks) and 0 <= p[1] < 4][:count]
    if residential and len(chosen) < count:
        homes = [(b.block, lot) for b in st.structures if b.residential for lot in b.lots]
        chosen += [p for p in homes if p not in chosen and 0 <= p[0] < len(st.blocks)][: count - len(chosen)]
    if len(chosen) < count:
        free = [(b, i) for b, row in enumerate(st.blocks) for i, x in enumerate(row)
                if x == "" and (b, i) not in chosen]
        full = [(b, i) for b, row in enumerate(st.blocks) for i, x in enumerate(row) if x not in ("", "rubble")
                and (b, i) not in chosen]
        chosen += ((full + free) if structures_first else (free + full))[: count - len(chosen)]
    for block, lot in chosen:
        ctx.emit(E.LotsRubbled(settlement=st.id, block=block, lots=[lot], cause=cause))
