"""Hand-computed cases across the spec's tables, each citing the section it checks."""

from __future__ import annotations

import pytest

from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e.state import (
    Hex,
    KingdomState,
    Leader,
    consumption,
    control_dc,
    resource_dice,
    size_band,
    storage_cap,
)

from .helpers import Game, events_of, step_state


def _hexes(n: int) -> tuple[Hex, ...]:
    return tuple(Hex(id=f"H{i}") for i in range(n))


def _filled() -> dict[str, Leader]:
    return {r: Leader(holder=r.title()) for r in ("ruler", "counselor", "emissary", "general", "magister",
                                                      "treasurer", "viceroy", "warden")}


@pytest.mark.parametrize(("level", "size", "ruler", "expected"), [
    (1, 1, True, 14), (1, 10, True, 15), (5, 30, True, 22), (9, 60, True, 29), (20, 150, True, 44),
    (1, 1, False, 16), (4, 24, False, 21),
])
def test_control_dc_by_level_and_size(level: int, size: int, ruler: bool, expected: int) -> None:
    """§2.11.1, §5.1, §5.2: base by level + size modifier + 2 with the Ruler vacant (e.g. L5 + size 30 = 20 + 2)."""
    leaders = _filled()
    if not ruler:
        leaders["ruler"] = Leader()
    s = KingdomState(level=level, hexes=_hexes(size), leaders=leaders)
    assert control_dc(s).total == expected


@pytest.mark.parametrize(("size", "die", "storage", "nation"), [
    (0, 4, 4, "Territory"), (9, 4, 4, "Territory"), (10, 6, 8, "Province"), (24, 6, 8, "Province"),
    (25, 8, 12, "State"), (49, 8, 12, "State"), (50, 10, 16, "Country"), (99, 10, 16, "Country"),
    (100, 12, 20, "Dominion"),
])
def test_size_bands(size: int, die: int, storage: int, nation: str) -> None:
    """§5.2: Resource Die and commodity storage change at sizes 10, 25, 50 and 100."""
    band = size_band(size)
    assert (band.die, band.storage, band.nation) == (die, storage, nation)
    s = KingdomState(hexes=_hexes(size))
    assert s.resource_die == f"d{die}" and s.storage["ore"] == storage


def test_resource_dice_count() -> None:
    """§2.11.3: level + 4 + bonus - penalty, floored at 0 (level 3 with 2 bonus and 1 penalty = 8)."""
    s = KingdomState(level=3, hexes=_hexes(1))
    s = s.model_copy(update={"pending": s.pending.model_copy(update={"bonus_dice": 2, "penalty_dice": 1})})
    assert resource_dice(s).total == 8
    s = s.model_copy(update={"pending": s.pending.model_copy(update={"bonus_dice": 0, "penalty_dice": 20})})
    assert resource_dice(s).total == 0


def test_storage_cap_with_granary_and_loss_over_cap() -> None:
    """§2.6, §2.11.4, §5.15: Granary +1 Food storage (4 -> 5); gains above the cap are lost."""
    g = Game().found()
    g.play({"activity.civic": {"choices": {"activities": [{"activity": "build-structure", "structure": "granary",
                                                             "lots": [1]}]}, "rolls": {"a1": [15]}},
            "upkeep.resources": {"rolls": {"resource": [4, 4, 4, 4, 4]}}})
    s = g.state
    assert storage_cap(s, "food").total == 5 and s.storage["lumber"] == 4
    pv = g.play({"activity.region": {"choices": {"activities": [{"activity": "harvest-crops"}]},
                                     "rolls": {"a1": [20], "a1.e1": [4]}},
                 "upkeep.resources": {"rolls": {"resource": [1, 1, 1, 1, 1]}}})
    gain = next(e for e in events_of(pv, "activity.region") if isinstance(e, E.CommodityChanged))
    before = step_state(pv, "upkeep.consumption").commodities["food"]
    assert gain.delta == 4 and gain.lost_to_cap == max(0, before + 4 - 5)
    assert step_state(pv, "activity.region").commodities["food"] == min(5, before + 4)


def test_ruin_overflow_more_than_once_in_one_step() -> None:
    """§3.0.5, §5.3: Crime 1 + 25 = 26 > 10 -> 16 (penalty 1) -> 6 (penalty 2), in one GM-ruled effect."""
    g = Game().found()
    start = g.state.ruin["crime"].points
    pv = g.play({"event.resolve": {"choices": {"gm_effects": [{"kind": "ruin", "target": "crime",
                                                                 "amount": 25}]}}})
    r = step_state(pv, "event.resolve").ruin["crime"]
    assert start == 2
    assert (r.points, r.threshold, r.penalty) == (7, 10, 2)  # 27 -> 17 -> 7
    # the penalty is an item penalty on Economy checks (§2.4)
    s = pv.state_after
    taxes = __import__("kingdomlog.rulesets.pf2e.state", fromlist=["check_modifier"]).check_modifier(s, "trade")
    assert ("crime penalty", -2, "item") in [(t.label, t.value, t.kind) for t in taxes.terms]


def _overflow_by_loop(points: int, threshold: int, penalty: int, delta: int, mode: str, cap: int, averted: bool,
                      at: str) -> tuple[int, int]:
    """§3.0.5 as written: "while value > threshold: subtract the threshold, penalty + 1" (Fame averts the first)."""
    points += delta
    if delta < 0:
        return max(0, points), penalty
    first = True
    while threshold > 0 and (points >= threshold if at == "reaches" else points > threshold):
        points = 0 if mode == "reset_to_zero" else points - threshold
        penalty += 0 if first and averted else 1
        first = False
    return points, min(cap, penalty) if cap else penalty


def test_ruin_overflows_are_counted_as_the_loop_would_count_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28: a GM's Ruin of 10**9 took 21 s (one iteration per threshold) and 2**63 never ended. The overflows
    are counted: one comparison for any amount, and on every small case what the loop of §3.0.5 gives."""
    from kingdomlog.rulesets.pf2e import rules as R

    for points in range(0, 13):
        for threshold in range(0, 7):
            for delta in range(-3, 40):
                for mode in ("subtract_threshold", "reset_to_zero"):
                    for cap, averted, at in ((0, False, "exceeds"), (3, True, "reaches"), (0, True, "exceeds")):
                        got = R.ruin_after(points, threshold, 1, delta, mode=mode, penalty_cap=cap, averted=averted,
                                           at=at)
                        assert got == _overflow_by_loop(points, threshold, 1, delta, mode, cap, averted, at)
    calls = []
    real = R.ruin_overflows
    monkeypatch.setattr(R, "ruin_overflows", lambda *a, **k: calls.append(a) or real(*a, **k))
    assert R.ruin_after(8, 10, 0, 10_000, mode="subtract_threshold", penalty_cap=0, averted=False) == (8, 1000)
    assert len(calls) <= 1  # a loop would compare 1,001 times
    # 8 + 2**63 = 922,337,203,685,477,581 × 10 + 6: that many overflows, 6 points left (a loop would never end)
    assert R.ruin_after(8, 10, 0, 2**63, mode="subtract_threshold", penalty_cap=0, averted=False) == (
        6, 922337203685477581)


def test_ruin_overflow_reset_option() -> None:
    """§5.3 option ruin_overflow_mode = reset_to_zero: 2 + 25 -> 0 with one penalty."""
    g = Game(options={"ruin_overflow_mode": "reset_to_zero"}).found()
    pv = g.play({"event.resolve": {"choices": {"gm_effects": [{"kind": "ruin", "target": "crime",
                                                                 "amount": 25}]}}})
    r = step_state(pv, "event.resolve").ruin["crime"]
    assert (r.points, r.penalty) == (0, 1)


@pytest.mark.parametrize(("unrest", "penalty"), [(0, 0), (1, -1), (4, -1), (5, -2), (9, -2), (10, -3), (14, -3),
                                                  (15, -4), (25, -4)])
def test_unrest_bands(unrest: int, penalty: int) -> None:
    """§2.5: status penalty -1/-2/-3/-4 at Unrest 1/5/10/15."""
    assert KingdomState(unrest=unrest).unrest_penalty == penalty


def test_unrest_ten_rolls_ruin_and_may_lose_a_hex() -> None:
    """§3.1 U2.4: Unrest >= 10 -> 1d10 Ruin points split by the players, then a DC 11 flat check; failure
    loses a hex of their choice (size 2 -> 1)."""
    g = Game().found(resume={"turn": 1, "unrest": 12})
    g.state = g.state.model_copy(update={"hexes": (*g.state.hexes, Hex(id="H9", terrain="hills"))})
    pv = g.play({"upkeep.unrest": {"choices": {"ruin_split": {"decay": 4, "strife": 3}, "lost_hex": "H9"},
                                   "rolls": {"ruin": [7], "hex_loss": [10]}}})
    s = step_state(pv, "upkeep.unrest")
    assert (s.ruin["decay"].points, s.ruin["strife"].points, s.size) == (4, 3, 1)
    lost = [e for e in events_of(pv, "upkeep.unrest") if isinstance(e, E.HexLost)]
    assert [e.hex_id for e in lost] == ["H9"]


def test_ruin_split_must_match_the_roll() -> None:
    """§3.1 U2.4: the split must share exactly the rolled points."""
    g = Game().found(resume={"turn": 1, "unrest": 12})
    pv = g.play({"upkeep.unrest": {"choices": {"ruin_split": {"decay": 1}}, "rolls": {"ruin": [7], "hex_loss": [15]}}},
                check=False)
    assert not pv.ok and "§3.1 U2.4" in (pv.error or "")


def test_anarchy_allows_only_quell_unrest_and_worsens_checks() -> None:
    """§2.11.12, §3.0.1.5, §3.1 U2.5: Unrest 20 -> anarchy; any other activity is refused; Quell Unrest's
    success (20 vs 14) is worsened to a failure."""
    g = Game().found(resume={"turn": 1, "unrest": 20})
    assert g.state.anarchy
    bad = g.play({"commerce.taxes": {"choices": {"mode": "none"}},
                  "activity.leadership": {"choices": {"activities": [
                      {"activity": "create-a-masterpiece", "role": "counselor"}]}}}, check=False)
    assert not bad.ok and "anarchy" in (bad.error or "") and "§3.1 U2.5" in (bad.error or "")
    pv = g.play({"activity.leadership": {"choices": {"activities": [
        {"activity": "quell-unrest", "role": "ruler", "skill": "politics"}]}, "rolls": {"a1": [19]}}})
    chk = next(e for e in events_of(pv, "activity.leadership") if isinstance(e, E.CheckResolved))
    # +2 Loyalty +3 trained +1 invested -4 unrest(status: worst penalty -4 and best bonus +1 both count) = +2
    assert (chk.modifier, chk.total, chk.base_degree, chk.anarchy, chk.degree) == (2, 21, "success", True, "failure")


def test_fame_averts_anarchy() -> None:
    """§3.0.7: at Unrest >= 20 the players may spend all Fame to prevent anarchy."""
    g = Game().found(resume={"turn": 1, "unrest": 21})
    pv = g.play({"upkeep.unrest": {"choices": {"avert_anarchy_with_fame": True}},
                 "activity.leadership": {"choices": {"activities": [
                     {"activity": "create-a-masterpiece", "role": "counselor"}]}}})
    s = step_state(pv, "upkeep.unrest")
    assert s.unrest == 21 and not s.anarchy and s.fame == 0


def test_consumption_with_farmland_and_armies() -> None:
    """§2.11.8, §4.8: village 1 + army 2 - 1 Farmland in influence = 2; Farmland in the capital's own hex
    (influence 0) counts (§5.17 default)."""
    g = Game().found()
    g.play({"activity.region": {"choices": {"activities": [{"activity": "establish-farmland", "hex": "H0"}]},
                                "rolls": {"a1": [15]}},
            "upkeep.resources": {"rolls": {"resource": [4, 4, 4, 4, 4]}}})
    s = g.state.model_copy(update={"armies": {"militia": 2}})
    b = consumption(s)
    assert b.total == 2
    assert [(t.label, t.value) for t in b.terms] == [("Oakhold (village)", 1), ("army militia", 2),
                                                     ("farmland in influence", -1)]
    s0 = g.state
    assert consumption(s0).total == 0


def test_consumption_remainder_in_rp_or_unrest() -> None:
    """§3.1 U4: Food first; the remainder costs 5 RP each, or 1d4 Unrest."""
    g = Game().found(commodities={"food": 0, "lumber": 2})
    pv = g.play({"upkeep.resources": {"rolls": {"resource": [4, 4, 4, 4, 4]}},
                 "upkeep.consumption": {"choices": {"remainder": "rp"}}})
    assert step_state(pv, "upkeep.consumption").rp == 15
    g2 = Game().found(commodities={"food": 0, "lumber": 2})
    pv2 = g2.play({"upkeep.consumption": {"choices": {"remainder": "unrest"}, "rolls": {"unrest": [3]}}})
    assert step_state(pv2, "upkeep.consumption").unrest == 5


def test_level_up_at_1000_xp() -> None:
    """§3.4 E4, §4.13, §5.5: 990 XP + 19 RP -> 1009 -> level 2 with 9 XP left, a kingdom feat; Control DC
    14 -> 15. A party at level 1 holds the kingdom at level 1."""
    g = Game().found(resume={"turn": 1, "xp": 990}, party_level=2)
    pv = g.play({"upkeep.resources": {"rolls": {"resource": [4, 4, 3, 4, 4]}}, "commerce.taxes": {"choices":
                                                                                                 {"mode": "none"}},
                 "event.check": {"rolls": {"event": [1]}}, "event.level": {"choices": {"feat": "civil-service"}}})
    s = pv.state_after
    assert (s.level, s.xp, s.control_dc, s.feats[-1]) == (2, 9, 15, "civil-service")
    up = next(e for e in events_of(pv, "event.level") if isinstance(e, E.LeveledUp))
    assert (up.level_from, up.level_to, up.feat) == (1, 2, "civil-service")
    assert step_state(pv, "event.xp").xp == 1009
    g1 = Game().found(resume={"turn": 1, "xp": 1500})
    pv1 = g1.play({})
    assert pv1.state_after.level == 1 and pv1.state_after.xp >= 1500


def test_xp_from_rp_is_capped_at_120() -> None:
    """§3.4 E3.4: unspent RP give 1 XP each, at most 120; RP then reset to 0."""
    g = Game().found(resume={"turn": 1})
    g.state = g.state.model_copy(update={"pending": g.state.pending.model_copy(update={"rp": 200})})
    pv = g.play({"event.check": {"rolls": {"event": [1]}}, "commerce.taxes": {"choices": {"mode": "none"}}})
    conv = next(e for e in events_of(pv, "event.xp") if isinstance(e, E.RPConverted))
    assert conv.xp == 120 and conv.discarded == conv.rp - 120 and pv.state_after.rp == 0


def test_fame_reroll_and_cap_and_loss() -> None:
    """§3.0.8, §4.12: spend 1 Fame to re-roll (the new d20 stands); Fame never above 3; lost at turn end."""
    g = Game().found()
    pv = g.play({"commerce.taxes": {"choices": {"fame_reroll": True}, "rolls": {"check": [2], "check.reroll": [15]}}})
    chk = next(e for e in events_of(pv, "commerce.taxes") if isinstance(e, E.CheckResolved))
    assert (chk.fame_reroll_of, chk.die, chk.degree) == (2, 15, "success")
    assert step_state(pv, "commerce.taxes").fame == 0  # 0 + 1 at U0, - 1 for the re-roll
    assert pv.state_after.fame == 0
    g2 = Game().found()
    g2.state = g2.state.model_copy(update={"fame": 3})
    pv2 = g2.play({})
    assert step_state(pv2, "upkeep.leadership").fame == 3


def test_fame_averts_a_ruin_penalty() -> None:
    """§3.0.5: all Fame spent before a Ruin penalty increase prevents it (points still overflow)."""
    g = Game().found()
    pv = g.play({"event.resolve": {"choices": {"avert_ruin_penalty_with_fame": True,
                                               "gm_effects": [{"kind": "ruin", "target": "crime", "amount": 9}]}}})
    r = step_state(pv, "event.resolve").ruin["crime"]
    assert (r.points, r.penalty) == (1, 0)


def test_ruin_reduction_at_zero_uses_a_flat_check() -> None:
    """§3.0.6: reducing a Ruin that is at 0 rolls a DC 16 flat check; success lowers its penalty by 1."""
    g = Game().found()
    g.state = g.state.model_copy(update={"ruin": {**g.state.ruin, "corruption":
                                                  g.state.ruin["corruption"].model_copy(update={"penalty": 2})}})
    pv = g.play({"activity.leadership": {"choices": {"activities": [
        {"activity": "repair-reputation", "role": "counselor", "ruin": "corruption"}]},
        "rolls": {"a1": [17], "a1.e1.0.flat": [16]}}})
    s = step_state(pv, "activity.leadership")
    assert (s.ruin["corruption"].points, s.ruin["corruption"].penalty) == (0, 1)


def test_repair_reputation_failure_blocks_that_ruin_next_turn() -> None:
    """§4.1, §2.10: failure -> cannot Repair Reputation on that Ruin for 1 Kingdom turn."""
    g = Game().found()
    g.play({"activity.leadership": {"choices": {"activities": [
        {"activity": "repair-reputation", "role": "treasurer", "ruin": "crime"}]}, "rolls": {"a1": [5]}}})
    pv = g.play({"activity.leadership": {"choices": {"activities": [
        {"activity": "repair-reputation", "role": "treasurer", "ruin": "crime"}]}}}, check=False)
    assert not pv.ok and "§2.10" in (pv.error or "") and "repair-reputation:crime" in (pv.error or "")


def test_envy_of_the_world_ignores_the_first_gain() -> None:
    """§5.5 level 20: the first Unrest or Ruin gain of each turn is ignored; Fame max 4."""
    g = Game().found(party_level=20)
    g.state = g.state.model_copy(update={"level": 20})
    assert g.state.fame_max == 4
    pv = g.play({"event.resolve": {"choices": {"gm_effects": [
        {"kind": "unrest", "amount": 3}, {"kind": "ruin", "target": "crime", "amount": 2}]}}})
    s = step_state(pv, "event.resolve")
    before = step_state(pv, "activity.civic")
    assert s.unrest == before.unrest and s.ruin["crime"].points == before.ruin["crime"].points + 2
    assert any(isinstance(e, E.GainIgnored) for e in events_of(pv, "event.resolve"))
