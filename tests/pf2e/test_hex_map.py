"""Hexes on axial coordinates (issue 13 item 1): Claim Hex adjacency, the map the GM places, roads and
Farmland next to each other, Farmland inside a settlement's influence computed from the map, and logs from
before coordinates replaying with unplaced hexes."""

from __future__ import annotations

from typing import Any

import pytest

from kingdomlog.app import Campaign
from kingdomlog.core.events import RecordedEvent, decode_payload
from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e.audit import audit
from kingdomlog.rulesets.pf2e.choices import vocabulary
from kingdomlog.rulesets.pf2e.state import Hex, KingdomState, consumption, farmland_count

from .helpers import Game, events_of, step_state
from .make_demo import DEMO

PLACED_TURN = 14
"""The demo month in which the GM places the map (the history before it has no coordinates)."""

# The §6 kingdom's capital Oakhold stands on H0 at (0, 0); a village's influence is its own hex.
RICH = {"upkeep.resources": {"rolls": {"resource": [4, 4, 4, 4, 4]}}}  # 20 RP


def _region(g: Game, rows: list[dict[str, Any]], rolls: dict[str, list[int]] | None = None, *,
            check: bool = True, extra: dict[str, Any] | None = None) -> Any:
    steps: dict[str, Any] = {**RICH, "activity.region": {"choices": {"activities": rows}, "rolls": rolls or {}}}
    steps.update(extra or {})
    return g.play(steps, check=check)


def _with_hexes(g: Game, *hexes: Hex) -> Game:
    g.state = g.state.model_copy(update={"hexes": (*g.state.hexes, *hexes)})
    return g


def _town(g: Game) -> Game:
    """Oakhold as a town (two blocks in use: influence 1 hex, §2.8)."""
    st = g.state.settlements[0]
    blocks = (("houses", "houses", "", ""), ("houses", "", "", ""))
    g.state = g.state.model_copy(update={"settlements": (st.model_copy(update={"blocks": blocks}),)})
    assert g.state.settlements[0].type == "town" and g.state.settlements[0].influence == 1
    return g


def test_claim_hex_of_a_hex_that_exists_nowhere_is_refused_naming_the_rule() -> None:
    g = Game().found()
    pv = _region(g, [{"activity": "claim-hex", "hex": "Z99"}], {"a1": [15]}, check=False)
    assert not pv.ok and pv.refused_step == "activity.region"
    assert "hex 'Z99' is not on the kingdom's map" in (pv.error or "") and "§4.8 Claim Hex" in (pv.error or "")
    # a hex new to the map described without its place is refused too
    pv = _region(Game().found(), [{"activity": "claim-hex", "hex": {"id": "Z99", "terrain": "hills"}}],
                 {"a1": [15]}, check=False)
    assert "hex Z99 is new to the map: give its coordinates q and r" in (pv.error or "")


def test_claim_hex_not_adjacent_is_refused_naming_the_rule_and_gives_no_xp() -> None:
    g = Game().found()
    xp = g.state.xp
    pv = _region(g, [{"activity": "claim-hex", "hex": {"id": "Z99", "q": 2, "r": 0}}], {"a1": [15]}, check=False)
    assert not pv.ok
    assert "hex Z99 at (2, 0) is not adjacent to any hex of the kingdom" in (pv.error or "")
    assert "(rule: §4.8 Claim Hex: adjacent to the kingdom)" in (pv.error or "")
    assert g.state.xp == xp and g.turn == 1  # nothing of the turn was kept


def test_claim_hex_adjacent_claims_the_hex_at_its_place_for_10_xp() -> None:
    g = Game().found()
    # (1, -1) is one of the six neighbours of (0, 0); d20 15 + Exploration +1 (Economy) vs Control DC 14: success
    pv = _region(g, [{"activity": "claim-hex", "hex": {"id": "N1", "terrain": "forest", "q": 1, "r": -1}}],
                 {"a1": [15]})
    s = step_state(pv, "activity.region")
    n1 = next(h for h in s.hexes if h.id == "N1")
    assert (n1.claimed, n1.at, s.size, s.xp_pending) == (True, (1, -1), 2, 10)
    claimed = next(e for e in events_of(pv, "activity.region") if isinstance(e, E.HexClaimed))
    assert (claimed.hex.q, claimed.hex.r) == (1, -1)


def test_a_coordinate_holds_one_hex() -> None:
    g = Game().found()
    pv = _region(g, [{"activity": "claim-hex", "hex": {"id": "N1", "q": 0, "r": 0}}], {"a1": [15]}, check=False)
    assert "(0, 0) already holds hex H0, not N1" in (pv.error or "")
    pv = Game().found().play({"upkeep.leadership": {"choices": {"map": [{"id": "N1", "q": 0, "r": 0}]}}},
                             check=False)
    assert "map: (0, 0) already holds hex H0; N1 cannot go there" in (pv.error or "")


def test_the_gm_places_hexes_on_the_map_and_claim_hex_follows_them() -> None:
    """upkeep.leadership choice map: a new hex enters the map unclaimed; Claim Hex may then name it by id."""
    g = Game().found()
    pv = _region(g, [{"activity": "claim-hex", "hex": "W1"}], {"a1": [15]}, extra={
        "upkeep.leadership": {"choices": {"map": [{"id": "W1", "q": -1, "r": 0, "terrain": "hills", "river": True},
                                                  {"id": "W2", "q": -3, "r": 0}]}}})
    s = step_state(pv, "upkeep.leadership")
    w1, w2 = (next(h for h in s.hexes if h.id == x) for x in ("W1", "W2"))
    assert (w1.claimed, w1.at, w1.terrain, w1.river, w2.terrain) == (False, (-1, 0), "hills", True, "plains")
    after = step_state(pv, "activity.region")
    assert next(h for h in after.hexes if h.id == "W1").claimed
    # W2 is three hexes away: named by id, it exists but is not adjacent
    pv = _region(g, [{"activity": "claim-hex", "hex": "W2"}], {"a1": [15]}, check=False)
    assert "hex W2 at (-3, 0) is not adjacent" in (pv.error or "")


def test_a_kingdom_without_coordinates_claims_again_once_the_gm_places_its_hexes() -> None:
    """A log from before coordinates: its hexes are unplaced, so no hex is known to be next to the kingdom."""
    g = Game().found(hexes=[{"id": "H0", "terrain": "plains"}])
    assert g.state.hexes[0].at is None
    pv = _region(g, [{"activity": "claim-hex", "hex": {"id": "N1", "q": 1, "r": 0}}], {"a1": [15]}, check=False)
    assert "the kingdom's hexes (H0) are not placed on the map yet" in (pv.error or "")
    pv = _region(g, [{"activity": "claim-hex", "hex": {"id": "N1", "q": 1, "r": 0}}], {"a1": [15]}, extra={
        "upkeep.leadership": {"choices": {"map": [{"id": "H0", "q": 0, "r": 0}]}}})
    s = step_state(pv, "activity.region")
    assert [(h.id, h.at, h.claimed) for h in s.hexes] == [("H0", (0, 0), True), ("N1", (1, 0), True)]
    assert s.settlements[0].hex == "H0" and "settlement" in s.hexes[0].features  # placing kept the facts


def test_farmland_inside_a_towns_influence_is_computed_from_the_map() -> None:
    """§4.8 Establish Farmland: the hex must be in a settlement's influence (town: 1 hex, §2.8)."""
    g = _town(_with_hexes(Game().found(), Hex(id="P1", terrain="plains", q=1, r=0),
                          Hex(id="P2", terrain="plains", q=2, r=0)))
    pv = _region(g, [{"activity": "establish-farmland", "hex": "P1"}], {"a1": [15]})
    ev = next(e for e in events_of(pv, "activity.region") if isinstance(e, E.FarmlandEstablished))
    assert (ev.hex_ids, ev.settlement, ev.distance) == (["P1"], "oakhold", 1)
    s = step_state(pv, "activity.region")
    assert farmland_count(s) == 1
    # a town 2 + 0 armies - 1 Farmland in influence = 1
    assert [(t.label, t.value) for t in consumption(s).terms] == [("Oakhold (town)", 2), ("farmland in influence", -1)]
    # P2 is 2 hexes away, outside the town's influence of 1
    pv = _region(g, [{"activity": "establish-farmland", "hex": "P2"}], {"a1": [15]}, check=False)
    assert "hex P2 is 2 hexes from Oakhold, outside its influence (1, a town)" in (pv.error or "")
    assert "§4.8 Establish Farmland: in a settlement's influence" in (pv.error or "")


def test_a_village_covers_only_its_own_hex() -> None:
    g = _with_hexes(Game().found(), Hex(id="P1", terrain="plains", q=1, r=0))
    pv = _region(g, [{"activity": "establish-farmland", "hex": "P1"}], {"a1": [15]}, check=False)
    assert "hex P1 is 1 hexes from Oakhold, outside its influence (0, a village)" in (pv.error or "")
    pv = _region(Game().found(), [{"activity": "establish-farmland", "hex": "H0"}], {"a1": [15]})
    assert farmland_count(step_state(pv, "activity.region")) == 1


def test_placed_farmland_counts_by_the_map_not_by_the_distance_typed_long_ago() -> None:
    """Farmland recorded (before coordinates) as 1 hex from a town counts while unplaced; once the map puts
    it 3 hexes away, outside every influence, it no longer lowers Consumption (§2.11.8)."""
    old = Hex(id="F9", terrain="plains", features=("farmland",), farmland_of="oakhold", farmland_distance=1)
    g = _town(_with_hexes(Game().found(hexes=[{"id": "H0", "terrain": "plains"}]), old))
    assert farmland_count(g.state) == 1
    placed = [h.model_copy(update={"q": 0, "r": 0}) if h.id == "H0" else h.model_copy(update={"q": 3, "r": 0})
              for h in g.state.hexes]
    assert farmland_count(g.state.model_copy(update={"hexes": tuple(placed)})) == 0


def test_build_roads_critical_success_takes_an_adjacent_road_less_claimed_hex_as_hospitable() -> None:
    """§4.8 Build Roads critical success: one adjacent claimed hex without roads, terrain at least as hospitable."""
    def game() -> Game:
        return _with_hexes(Game().found(), Hex(id="F1", terrain="forest", q=1, r=0),
                           Hex(id="P1", terrain="plains", q=0, r=1), Hex(id="P9", terrain="plains", q=5, r=0))

    # d20 20 is a natural 20: at least a critical success. H0 is plains: F1 (forest) is less hospitable
    pv = _region(game(), [{"activity": "build-roads", "hex": "H0"}], {"a1": [20]})
    ev = next(e for e in events_of(pv, "activity.region") if isinstance(e, E.RoadsBuilt))
    assert ev.hex_ids == ["H0", "P1"]
    pv = _region(game(), [{"activity": "build-roads", "hex": "H0", "second_hex": "P9"}], {"a1": [20]}, check=False)
    assert "second road hex: hex P9 is not adjacent to H0" in (pv.error or "")
    pv = _region(game(), [{"activity": "build-roads", "hex": "H0", "second_hex": "F1"}], {"a1": [20]}, check=False)
    assert "hex F1 (forest) is less hospitable than H0 (plains)" in (pv.error or "")


def test_establish_farmland_critical_success_plants_an_adjacent_plains_hex() -> None:
    def game() -> Game:
        return _town(_with_hexes(Game().found(), Hex(id="P1", terrain="plains", q=1, r=0),
                                 Hex(id="P2", terrain="plains", q=2, r=0), Hex(id="F2", terrain="forest", q=1, r=-1)))

    pv = _region(game(), [{"activity": "establish-farmland", "hex": "P1"}], {"a1": [20]})
    ev = next(e for e in events_of(pv, "activity.region") if isinstance(e, E.FarmlandEstablished))
    assert ev.hex_ids == ["P1", "H0"]  # H0 (plains, next to P1) is the first that fits; F2 is forest
    pv = _region(game(), [{"activity": "establish-farmland", "hex": "P1", "second_hex": "F2"}], {"a1": [20]},
                 check=False)
    assert "hex F2 is forest; the second Farmland hex must be plains" in (pv.error or "")


def test_pledge_of_fealty_of_a_hex_not_bordering_the_kingdom_is_refused() -> None:
    g = _with_hexes(Game().found(), Hex(id="FH", terrain="plains", q=4, r=0, claimed=False, features=("freehold",)))
    pv = g.play({"activity.leadership": {"choices": {"activities": [
        {"activity": "pledge-of-fealty", "role": "ruler", "skill": "intrigue", "dc": 15, "hex": "FH"}]},
        "rolls": {"a1": [15]}}}, check=False)
    assert "secondary territory" in (pv.error or "") and "§4.7 Pledge of Fealty: adjacent" in (pv.error or "")


def test_the_region_step_offers_the_map_with_what_can_be_claimed() -> None:
    g = _with_hexes(Game().found(), Hex(id="N1", q=1, r=0, claimed=False), Hex(id="N5", q=5, r=0, claimed=False),
                    Hex(id="U1", claimed=False))
    opts = {o.value: o.detail for o in vocabulary(g.state, "region_hexes", {}) or []}
    assert opts["N1"].startswith("claimable; ")
    assert opts["N5"].startswith("not next to the kingdom; ")
    assert opts["U1"].startswith("not on the map: place it first; ")
    assert opts["H0"].startswith("claimed; ") and opts["H0"].count("claimed") == 1, opts["H0"]


def _recorded(payload: E.EventModel, seq: int = 99) -> RecordedEvent:
    from kingdomlog.core.events import Draft, provisional

    return provisional("test", seq, Draft(payload, phase="activity.region", turn=1))


def test_the_audit_names_a_recorded_claim_that_is_not_adjacent() -> None:
    s = Game().found().state
    far = E.HexClaimed(hex=E.HexIn(id="Z9", q=4, r=0))
    assert audit(s, _recorded(far)) == [
        "hex Z9 at (4, 0) is claimed but is not adjacent to any hex of the kingdom (§4.8 Claim Hex)"]
    assert audit(s, _recorded(E.HexClaimed(hex=E.HexIn(id="N1", q=1, r=0)))) == []
    assert audit(s, _recorded(E.HexPlaced(hex_id="X", q=0, r=0))) == [
        "hex X placed at (0, 0), where hex H0 already is (§2.7)"]


def test_v1_events_without_coordinates_still_read() -> None:
    """A v1 hex_claimed (written before coordinates) reads as a v2 event with an unplaced hex."""
    p = decode_payload("pf2e.hex_claimed", 1, {"hex": {"id": "A2", "terrain": "forest"}, "via": "claim-hex", "xp": 10})
    assert isinstance(p, E.HexClaimed) and (p.hex.q, p.hex.r) == (None, None)


@pytest.mark.skipif(not (DEMO / "log").exists(), reason="demo log not generated")
def test_the_demo_history_replays_unplaced_then_the_gm_places_it() -> None:
    camp = Campaign.open(DEMO)
    before: KingdomState = camp.state(until_turn=PLACED_TURN - 1)
    assert [h.at for h in before.hexes] == [None] * len(before.hexes)
    after: KingdomState = camp.state(until_turn=PLACED_TURN)
    placed = {h.id: h.at for h in after.hexes}
    assert placed["A1"] == (0, 0) and all(v is not None for v in placed.values())
    assert len(set(placed.values())) == len(placed)
    # every claimed hex of the map touches another claimed one (the kingdom is one piece)
    claimed = [h.at for h in after.hexes if h.claimed]
    from kingdomlog.core.hexes import touches

    assert all(touches(h, [x for x in claimed if x != h]) for h in claimed if h is not None)
