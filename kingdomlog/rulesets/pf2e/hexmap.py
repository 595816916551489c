"""Where things go on the kingdom's hex map: Claim Hex adjacency, roads and farmland next to each other,
farmland inside a settlement's influence (spec §4.8, §2.8, §2.11.8).

Hexes sit at axial coordinates (``core.hexes``). A hex of a log written before coordinates is *unplaced*:
it replays as recorded, and the GM places it with ``upkeep.leadership`` choice ``map`` (a ``HexPlaced``
event) before a rule that needs its place (Claim Hex next to it, a road or Farmland beside it) can use it.
Every refusal names its rule.
"""

from __future__ import annotations

from kingdomlog.core.hexes import Axial, distance, neighbours
from kingdomlog.core.ruleset import StepContext
from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.choices import HexEntry
from kingdomlog.rulesets.pf2e.state import (
    Hex,
    KingdomState,
    Settlement,
    adjacent_to_kingdom,
    hex_at,
    hex_by_id,
    influencing_settlements,
    kingdom_coords,
    unplaced_claimed,
)

Ctx = StepContext[KingdomState]

PLACE_RULE = "hexes on axial coordinates (the GM places them with upkeep.leadership choice map)"


def hex_in(h: Hex) -> E.HexIn:
    """A hex of the state as an event's hex record."""
    return E.HexIn(id=h.id, terrain=h.terrain, river=h.river, lake=h.lake, features=list(h.features),
                   resource=h.resource, q=h.q, r=h.r)


def target_hex(ctx: Ctx, raw: str | HexEntry, rule: str) -> E.HexIn:
    """The hex an activity targets: a hex of the map by id, or a hex described in full.

    A bare id must name a hex of the map (the GM's map, §2.7): "Z99" that exists nowhere is refused. A hex
    described in full that is new to the map needs its coordinates, on a free place; described facts are
    merged with what the map knows, and its place on the map may not be contradicted.
    """
    s = ctx.state
    if isinstance(raw, str):
        known = hex_by_id(s, raw)
        if known is None:
            raise ctx.fail(f"hex {raw!r} is not on the kingdom's map (place it with upkeep.leadership choice map,"
                           " or describe it in full with its q and r)", rule)
        return hex_in(known)
    hx = E.HexIn.model_validate(raw.model_dump())
    known = hex_by_id(s, hx.id)
    if (hx.q is None) != (hx.r is None):
        raise ctx.fail(f"hex {hx.id}: give both q and r", PLACE_RULE)
    if known is not None:
        if hx.q is not None and known.at is not None and (hx.q, hx.r) != known.at:
            raise ctx.fail(f"hex {hx.id} is at {known.at} on the map, not ({hx.q}, {hx.r}); move it with"
                           " upkeep.leadership choice map", PLACE_RULE)
        feats = sorted(set(hx.features) | set(known.features))
        q, r = (known.q, known.r) if known.at is not None else (hx.q, hx.r)
        hx = hx.model_copy(update={"features": feats, "resource": hx.resource or known.resource, "q": q, "r": r})
    elif hx.q is None:
        raise ctx.fail(f"hex {hx.id} is new to the map: give its coordinates q and r", rule)
    if hx.q is not None and hx.r is not None:
        other = hex_at(s, (hx.q, hx.r))
        if other is not None and other.id != hx.id:
            raise ctx.fail(f"({hx.q}, {hx.r}) already holds hex {other.id}, not {hx.id}", PLACE_RULE)
    return hx


def claim_refusal(state: KingdomState, hx: E.HexIn) -> str:
    """Why hex ``hx`` cannot be claimed by adjacency now ("" when it can): §4.8 Claim Hex — it must be
    adjacent to at least one hex already part of the kingdom. A kingdom with no claimed hex left may
    claim anywhere."""
    claimed = [h for h in state.hexes if h.claimed]
    if not claimed:
        return ""
    if hx.q is None or hx.r is None:
        return f"hex {hx.id} is not placed on the map, so its neighbours are unknown (place it first)"
    if adjacent_to_kingdom(state, (hx.q, hx.r)):
        return ""
    unplaced = unplaced_claimed(state)
    if unplaced and not kingdom_coords(state):
        return (f"the kingdom's hexes ({', '.join(unplaced)}) are not placed on the map yet, so no hex is known"
                f" to be next to it (place them with upkeep.leadership choice map)")
    return f"hex {hx.id} at ({hx.q}, {hx.r}) is not adjacent to any hex of the kingdom"


def neighbour_hexes(state: KingdomState, h: Hex) -> list[Hex]:
    """The hexes of the map sharing a side with ``h`` (none while ``h`` is unplaced), by id."""
    if h.at is None:
        return []
    out = [hex_at(state, n) for n in neighbours(h.at)]
    return sorted((x for x in out if x is not None), key=lambda x: x.id)


def _hospitality(terrain: str) -> int:
    return T.core().terrain_rp[terrain]  # type: ignore[index]


def road_second_refusal(state: KingdomState, first: Hex, second: Hex) -> str:
    """Why ``second`` cannot take the critical success's second road ("" when it can): §4.8 Build Roads —
    an adjacent claimed hex without roads whose terrain is at least as hospitable as the target's."""
    if first.at is None or second.at is None:
        return f"hexes {first.id} and {second.id} must be placed on the map to know they touch"
    if second not in neighbour_hexes(state, first):
        return f"hex {second.id} is not adjacent to {first.id}"
    if not second.claimed:
        return f"hex {second.id} is not claimed"
    if second.roads:
        return f"hex {second.id} already has roads"
    if _hospitality(second.terrain) > _hospitality(first.terrain):
        return f"hex {second.id} ({second.terrain}) is less hospitable than {first.id} ({first.terrain})"
    return ""


def farmland_second_refusal(state: KingdomState, first: Hex, second: Hex) -> str:
    """Why ``second`` cannot be the critical success's second Farmland ("" when it can): §4.8 Establish
    Farmland — adjacent, claimed, plains (or hills when the target is hills), not yet Farmland."""
    if first.at is None or second.at is None:
        return f"hexes {first.id} and {second.id} must be placed on the map to know they touch"
    if second not in neighbour_hexes(state, first):
        return f"hex {second.id} is not adjacent to {first.id}"
    if not second.claimed:
        return f"hex {second.id} is not claimed"
    if "farmland" in second.features:
        return f"hex {second.id} already has Farmland"
    allowed = ("plains", "hills") if first.terrain == "hills" else ("plains",)
    if second.terrain not in allowed:
        return f"hex {second.id} is {second.terrain}; the second Farmland hex must be {' or '.join(allowed)}"
    if "settlement" in second.features and not state.options.get("farmland_in_settlement_hex", True):
        return f"hex {second.id} holds a settlement (option farmland_in_settlement_hex is off)"
    return ""


def auto_second(state: KingdomState, first: Hex, kind: str) -> str:
    """The first hex (by id) that fits a critical success's second road or Farmland ("" when none fits)."""
    refuse = road_second_refusal if kind == "roads" else farmland_second_refusal
    return next((h.id for h in neighbour_hexes(state, first) if not refuse(state, first, h)), "")


def farmland_settlement(ctx: Ctx, hx: Hex, named: str | None, rule: str) -> tuple[Settlement, int]:
    """The settlement whose influence holds Farmland hex ``hx`` and the distance, computed from the map
    (§4.8 Establish Farmland, §2.8 influence); ``named`` must be one of those that cover it."""
    covering = influencing_settlements(ctx.state, hx.id)
    if named:
        hit = next(((st, d) for st, d in covering if st.id == named), None)
        if hit is not None:
            return hit
        st = next((x for x in ctx.state.settlements if x.id == named), None)
        if st is None:
            raise ctx.fail(f"no settlement {named!r} in the kingdom", rule)
        raise ctx.fail(_outside(ctx.state, hx, st), rule)
    if covering:
        return covering[0]
    if not ctx.state.settlements:
        raise ctx.fail("the kingdom has no settlement whose influence could hold Farmland", rule)
    raise ctx.fail("; ".join(_outside(ctx.state, hx, st) for st in ctx.state.settlements), rule)


def _outside(state: KingdomState, hx: Hex, st: Settlement) -> str:
    home = hex_by_id(state, st.hex)
    if hx.at is None or home is None or home.at is None:
        return (f"hex {hx.id} or {st.name}'s hex {st.hex} is not placed on the map, so the distance is unknown"
                " (place them with upkeep.leadership choice map)")
    return (f"hex {hx.id} is {distance(hx.at, home.at)} hexes from {st.name}, outside its influence"
            f" ({st.influence}, a {st.type})")


def place_of(state: KingdomState, hid: str) -> Axial | None:
    """The coordinates of hex ``hid`` (None: unplaced or unknown)."""
    h = hex_by_id(state, hid)
    return None if h is None else h.at
