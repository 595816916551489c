"""Hand-computed cases of the base rules (pf1-kingmaker.md), each citing its section."""

from __future__ import annotations

from typing import Any

import pytest
from pf1.kit import kingdom, play, step

from kingdomlog.core.errors import RuleError
from kingdomlog.core.turn import Plan, preview_turn
from kingdomlog.rulesets.pf1 import RULESET
from kingdomlog.rulesets.pf1 import derive as dv
from kingdomlog.rulesets.pf1 import events as ev

# ------------------------------------------------------------------ control DC, size, consumption


def test_control_dc_seed_and_uc() -> None:
    """§2.2: Control DC = 20 + Size; UC option adds READY districts (20 + 5 + 1 = 26)."""
    base = kingdom(5)
    assert dv.control_dc(base).total == 25
    city = [ev.CityFounded(city="C1", name="A", hex="H0", capital=True),
            ev.DistrictPreparationStarted(city="C1", district="D1", hex="H0", terrain="GRASSLAND", cost_bp=1,
                                          months=0, ready_on_turn=1),
            ev.DistrictReady(district="D1")]
    assert dv.control_dc(kingdom(5, extra=city)).total == 25
    assert dv.control_dc(kingdom(5, extra=city, options={"control_dc_includes_districts": True})).total == 26


def test_consumption_with_farms_and_floor() -> None:
    """§2.2: Consumption = max(0, Size + districts + edicts − 2 × farms).

    Size 5, 1 district, Standard promotion (+2), 6 festivals (+2), 2 farms (−4): 5 + 1 + 4 − 4 = 6.
    With a Cathedral promotion is halved (2 → 1): 5. Ten farms: 5 + 1 + 4 − 20 < 0 → 0.
    """
    city = [ev.CityFounded(city="C1", name="A", hex="H0", capital=True),
            ev.DistrictPreparationStarted(city="C1", district="D1", hex="H0", terrain="GRASSLAND", cost_bp=1,
                                          months=0, ready_on_turn=1),
            ev.DistrictReady(district="D1"),
            ev.EdictsSet(promotion="STANDARD", taxation="NONE", festivals="6"),
            ev.HexImprovementBuilt(hex="H1", kind="FARM", cost_bp=2),
            ev.HexImprovementBuilt(hex="H2", kind="FARM", cost_bp=2)]
    s = kingdom(5, extra=city)
    assert dv.consumption(s).total == 6
    cat = ev.BuildingConstructed(building="B1", city="C1", district="D1", building_type="Cathedral",
                                 lots=(0, 1, 6, 7), base_cost_bp=58, cost_bp=58, unrest_delta=-4)
    assert dv.consumption(kingdom(5, extra=[*city, cat])).total == 5
    farms = [ev.HexImprovementBuilt(hex=f"H{i}", kind="FARM", cost_bp=2) for i in range(3, 10)]
    many = kingdom(10, extra=[*city, *farms])
    assert dv.raw_consumption(many) == 10 + 1 + 4 - 18
    assert dv.consumption(many).total == 0


def test_population_and_ruler_thresholds() -> None:
    """§2.2: population 250 × Size + 250 per built lot; Ruler attributes 2 from Size 20 (seed), 21 (RRR)."""
    assert dv.population(kingdom(3)).total == 750
    assert dv.ruler_attribute_count(kingdom(19)) == 1
    assert dv.ruler_attribute_count(kingdom(20)) == 2
    assert dv.ruler_attribute_count(kingdom(20, options={"ruler_thresholds": "rrr"})) == 1


# ------------------------------------------------------------------ stability check outcomes (§4.2 U1, §6.1)


@pytest.mark.parametrize(
    ("die", "unrest", "fix", "outcome", "du", "dt"),
    [
        (20, 0, 0, "BP_GAINED", 0, 1),      # natural 20 (total 16 < 21) succeeds; at Unrest 0: +1 BP
        (20, 3, 0, "UNREST_DOWN", -1, 0),   # success with Unrest 3: −1
        (19, 0, 6, "BP_GAINED", 0, 1),      # 19 + 2 = 21 ≥ 21
        (15, 0, 6, "NO_EFFECT", 0, 0),      # 17 vs 21: fail by 4 → nothing (RRR)
        (14, 0, 6, "UNREST_UP", 2, 0),      # 16 vs 21: fail by 5 → +2
        (1, 0, 40, "NO_EFFECT", 0, 0),      # natural 1 fails even at 37; margin 0 (§2.5 spec decision)
    ],
)
def test_stability_check_outcomes(die: int, unrest: int, fix: int, outcome: str, du: int, dt: int) -> None:
    """§4.2 U1 with §6.1 (RRR): success −1 Unrest or +1 BP; fail by 0–4 nothing; fail by 5+ Unrest +2.

    Stability = +4 (true Neutral) + 3 (Ruler) − 4 (General) − 2 (Grand Diplomat) − 2 (High Priest)
    − 2 (Warden) − 1 (promotion None) = −4, plus a GM modifier ``fix``; Control DC 21 (Size 1).
    """
    s = kingdom(1, unrest=unrest, extra=[ev.EventEffectApplied(event="fix", kind="ATTRIBUTE", attribute="STABILITY",
                                                               value=fix, first_turn=1)])
    assert dv.attribute(s, "STABILITY").total == -4 + fix
    _, payloads = step(s, "upkeep", rolls={"stability": [die]})
    chk = payloads[0]
    assert isinstance(chk, ev.StabilityCheckRolled)
    assert (chk.outcome, chk.unrest_delta, chk.treasury_delta) == (outcome, du, dt)


def test_stability_minor_and_major_failure_uc_options() -> None:
    """§6.1 UC: fail by 0–4 → +1 (option 1); fail by 5+ → +1d4 (option "1d4", the die in the event)."""
    s = kingdom(1, options={"stability_minor_failure_unrest": 1, "stability_major_failure_unrest": "1d4"},
                extra=[ev.EventEffectApplied(event="fix", kind="ATTRIBUTE", attribute="STABILITY", value=3,
                                             first_turn=1)])
    _, p = step(s, "upkeep", rolls={"stability": [19]})  # 19 − 1 = 18 vs 21: margin 3
    assert (p[0].outcome, p[0].unrest_delta) == ("UNREST_UP", 1)
    _, p = step(s, "upkeep", rolls={"stability": [5], "stability_unrest": [3]})  # 5 − 1 = 4: fail by 17
    assert (p[0].extra_dice, p[0].unrest_delta) == ((3,), 3)


def test_consumption_unpaid_gives_unrest() -> None:
    """§4.2 U2: treasury negative after paying Consumption → Unrest +2."""
    s = kingdom(3, treasury=1)
    _, p = step(s, "upkeep", rolls={"stability": [20]})
    cp = next(x for x in p if isinstance(x, ev.ConsumptionPaid))
    assert (cp.consumption, cp.treasury_before, cp.treasury_after, cp.unrest_delta) == (3, 2, -1, 2)


def test_hex_loss_at_unrest_11() -> None:
    """§4.2 U4(b), §4.6: Unrest ≥ 11 after vacancy Unrest → the leaders' chosen hex is lost (road and farm too)."""
    extra = [ev.RoadBuilt(hex="H2", cost_bp=1), ev.HexImprovementBuilt(hex="H2", kind="FARM", cost_bp=2)]
    s = kingdom(3, unrest=7, extra=extra)
    # stability natural 1 → +2 (9); vacancies: Councilor, High Priest, Spymaster +3 → 12 ≥ 11
    after, p = step(s, "upkeep", {"lose_hex": "H2"}, rolls={"stability": [1]})
    lost = [x for x in p if isinstance(x, ev.HexLostToUnrest)]
    assert [(x.hex, x.unrest) for x in lost] == [("H2", 12)]
    assert dv.size(after) == 2 and not after.hexes["H2"].claimed
    assert after.hexes["H2"].road is False and after.hexes["H2"].improvement is None
    # at 10 nothing is lost
    s10 = kingdom(3, unrest=5)
    _, p = step(s10, "upkeep", rolls={"stability": [1]})
    assert not [x for x in p if isinstance(x, ev.HexLostToUnrest)]


@pytest.mark.parametrize(("unrest", "after", "lost"), [(6, 11, ["H2"]), (5, 10, [])])
def test_hex_loss_starts_at_exactly_unrest_11(unrest: int, after: int, lost: list[str]) -> None:
    """§4.2 U4(b): a hex is lost at Unrest 11 or more, so exactly 11 loses one and 10 does not (issue 28: the test
    above plays 12 and 10, and "> 11" passed it). Stability natural 1: +2; Councilor, High Priest, Spymaster
    vacant: +3."""
    s = kingdom(3, unrest=unrest)
    state, p = step(s, "upkeep", {"lose_hex": "H2"}, rolls={"stability": [1]})
    assert state.unrest == after
    assert [x.hex for x in p if isinstance(x, ev.HexLostToUnrest)] == lost
    assert dv.size(state) == 3 - len(lost)


def test_anarchy_at_20_freezes_the_kingdom() -> None:
    """§4.7: Unrest ≥ 20 → anarchy: effective attributes 0, later phases skipped, actions refused."""
    s = kingdom(3, unrest=16, options={"modules": ["fame_infamy", "abandoned_buildings"]})
    after, p = step(s, "upkeep", rolls={"stability": [1]})  # +2, vacancies +3 → 21
    assert any(isinstance(x, ev.AnarchyBegan) for x in p)
    assert after.anarchy and dv.attributes(after) == {"ECONOMY": 0, "LOYALTY": 0, "STABILITY": 0}
    assert dv.attribute(after, "ECONOMY", raw=True).total != 0
    _, p2 = step(after, "income")
    assert [type(x).__name__ for x in p2] == ["PhaseSkipped"]
    with pytest.raises(RuleError, match="anarchy"):
        step(after, "improvement", {"roads": ["H0"]})
    for sid in ("improvement", "income", "event"):  # the sheet's defaults still play (every phase skipped)
        defaults = {c.name: c.default for c in RULESET.choices(after, after.turn, sid) if c.default is not None}
        _, p3 = step(after, sid, defaults)
        assert isinstance(p3[0], ev.PhaseSkipped) and p3[0].reason == "ANARCHY"
    ended, _ = step(after, "gm", {"end_anarchy": {"reason": "heroes", "unrest_after": 10}})
    assert not ended.anarchy and ended.unrest == 10


# ------------------------------------------------------------------ income (§4.4)


def test_income_rrr_and_uc() -> None:
    """§4.4 N4: success → floor(total / 5); failure → 0; UC: no DC, floor(total / 3).

    Economy = 2 (Treasurer) − 4 × 3 (Magister, Marshal, Spymaster vacant) = −10; DC 21.
    d20 = 20 → natural success, total 10 → 2 BP. d20 = 19 → 9 < 21 → 0. UC: 19 → 9 // 3 = 3.
    """
    s = kingdom(1)
    assert dv.attribute(s, "ECONOMY").total == -10
    _, p = step(s, "income", rolls={"income": [20]})
    assert (p[-1].check.total, p[-1].check.success, p[-1].bp_gained) == (10, True, 2)
    _, p = step(s, "income", rolls={"income": [19]})
    assert (p[-1].check.success, p[-1].bp_gained) == (False, 0)
    uc = kingdom(1, options={"income_mode": "uc"})
    _, p = step(uc, "income", rolls={"income": [19]})
    assert p[-1].bp_gained == 3


def test_income_needs_treasurer_and_withdrawals() -> None:
    """§4.4 N4 skipped without a Treasurer; N2 RRR: +1 Unrest, Loyalty DC = Control DC + w, failure +w."""
    s = kingdom(1, leaders=False)
    _, p = step(s, "income", {"withdrawals": [3]}, rolls={"withdrawal_1": [20]})
    assert isinstance(p[-1], ev.IncomeSkipped)
    w, chk = p[0], p[1]
    assert (w.bp, w.gp_paid, w.unrest_delta) == (3, 6000, 1)
    assert (chk.check.dc, chk.check.success, chk.unrest_delta) == (24, True, 0)
    _, p = step(s, "income", {"withdrawals": [3]}, rolls={"withdrawal_1": [2]})
    assert (p[1].check.success, p[1].unrest_delta) == (False, 3)
    uc = kingdom(1, leaders=False, options={"withdrawal_mode": "UC"})
    after, p = step(uc, "income", {"withdrawals": [3]})
    assert after.unrest == 3 and not any(isinstance(x, ev.WithdrawalLoyaltyCheckRolled) for x in p)


def test_event_chance() -> None:
    """§4.5 E1: 75 after a quiet month (and for the first, by default), else 25."""
    s = kingdom(1)
    _, p = step(s, "event", {"event": "Plague"}, rolls={"chance": [75]})
    assert (p[0].chance, p[0].occurred, p[1].event, p[1].chosen_by) == (75, True, "Plague", "gm")
    busy = s.model_copy(update={"event_last_turn": True})
    _, p = step(busy, "event", rolls={"chance": [26]})
    assert (p[0].chance, p[0].occurred) == (25, False)


# ------------------------------------------------------------------ illegal plans


def _plans_until_turn1(extra: dict[str, Any]) -> list[dict[str, Any]]:
    plans = RULESET.sample_plans()
    plans[1]["steps"]["improvement"]["choices"].update(extra)
    return plans[:2]


def test_annexing_a_non_adjacent_hex_is_refused() -> None:
    """§4.3 I2: a claimed hex must touch the kingdom (first hex excepted)."""
    plans = RULESET.sample_plans()
    plans[0]["steps"]["founding"]["choices"]["hexes"].append({"id": "H9", "q": 5, "r": 5, "terrain": "HILLS"})
    plans[2]["steps"]["improvement"]["choices"]["claim"] = ["H9"]
    with pytest.raises(RuleError, match=r"not adjacent.*base §4.3 I2"):
        play(plans)


def test_refusal_leaves_nothing_to_append() -> None:
    """A refused step yields a preview that is not ok and has no events for that step onward."""
    s, evs, _ = play(RULESET.sample_plans()[:2])
    plan = Plan.parse({"turn": 2, "seed": "x", "steps": {"improvement": {"choices": {"claim": ["H7"]}}}})
    pv = preview_turn(RULESET, s, plan, campaign="test", turn=2, start_seq=len(evs))
    assert not pv.ok and "not on the map" in (pv.error or "")
    assert [st.phase.id for st in pv.steps] == ["gm", "upkeep", "improvement"]
    assert pv.steps[-1].drafts == []


def test_building_on_a_full_district_is_refused() -> None:
    """§2.8: 36 lots per district; a full district takes no building."""
    city = [ev.CityFounded(city="C1", name="A", hex="H0", capital=True),
            ev.DistrictPreparationStarted(city="C1", district="D1", hex="H0", terrain="GRASSLAND", cost_bp=1,
                                          months=0, ready_on_turn=1),
            ev.DistrictReady(district="D1")]
    city += [ev.BuildingConstructed(building=f"B{i}", city="C1", district="D1", building_type="House", lots=(i,),
                                    base_cost_bp=3, cost_bp=0, unrest_delta=0, free=True) for i in range(36)]
    s = kingdom(1, extra=city)
    with pytest.raises(RuleError, match=r"full.*36 lots"):
        step(s, "improvement", {"buildings": [{"type": "Park", "district": "D1"}]})
    with pytest.raises(RuleError, match="already built on"):
        step(kingdom(1, extra=city[:4]), "improvement", {"buildings": [{"type": "Park", "lots": [0]}]})


def test_ruler_vacancy_blocks_claims_roads_and_farms() -> None:
    """§2.4: without an effective Ruler no claims, farms, roads or districts."""
    s = kingdom(1, leaders=False)
    for ch in ({"claim": ["H1"]}, {"roads": ["H0"]}, {"districts": [{"hex": "H0"}]}):
        with pytest.raises(RuleError, match="Ruler"):
            step(s, "improvement", ch)


def test_monthly_limits() -> None:
    """§6.5: Size 1–10 allows 1 claim, 1 building, 2 terrain improvements (roads + hex improvements)."""
    s = kingdom(2)
    with pytest.raises(RuleError, match="limit of 1 hex claims"):
        step(s, "improvement", {"claim": ["H2", "H3"]})
    with pytest.raises(RuleError, match="limit of 2 terrain"):
        step(s, "improvement", {"roads": ["H0", "H1"], "improvements": [{"hex": "H1", "kind": "FARM"}]})


def test_promotion_needs_grand_diplomat() -> None:
    """§2.9: no promotion edict without an effective Grand Diplomat."""
    with pytest.raises(RuleError, match="Grand Diplomat"):
        step(kingdom(1), "improvement", {"promotion": "TOKEN"})


def test_district_preparation_time_by_terrain() -> None:
    """§3.2: forest district 4 BP, 2 months; ready at the Improvement phase of turn n + 2."""
    s = kingdom(1, terrain="FOREST")
    after, p = step(s, "improvement", {"districts": [{"hex": "H0", "city": "Woodhold"}]})
    prep = next(x for x in p if isinstance(x, ev.DistrictPreparationStarted))
    assert (prep.cost_bp, prep.months, prep.ready_on_turn) == (4, 2, 3)
    assert after.districts[prep.district].status == "PREPARING"
    mnt = kingdom(1, terrain="MOUNTAINS", options={"district_prep_mountains_bp": 12})
    _, p = step(mnt, "improvement", {"districts": [{"hex": "H0"}]})
    assert next(x for x in p if isinstance(x, ev.DistrictPreparationStarted)).cost_bp == 12


def test_temple_alignment_and_halving() -> None:
    """§2.6 Temple: no opposed component; §6.10 a Theater halves a Tavern (12 → 6)."""
    city = [ev.CityFounded(city="C1", name="A", hex="H0", capital=True),
            ev.DistrictPreparationStarted(city="C1", district="D1", hex="H0", terrain="GRASSLAND", cost_bp=1,
                                          months=0, ready_on_turn=1),
            ev.DistrictReady(district="D1"),
            ev.AlignmentChanged(before="N", after="LG")]
    s = kingdom(1, extra=city)
    with pytest.raises(RuleError, match="Temple"):
        step(s, "improvement", {"buildings": [{"type": "Temple", "deity_alignment": "CE"}]})
    step(s, "improvement", {"buildings": [{"type": "Temple", "deity_alignment": "NG"}]})
    th = [*city, ev.BuildingConstructed(building="B1", city="C1", district="D1", building_type="Theater", lots=(0,),
                                        base_cost_bp=24, cost_bp=24, unrest_delta=0),
          ev.BuildingConstructed(building="B2", city="C1", district="D1", building_type="House", lots=(2,),
                                 base_cost_bp=3, cost_bp=3, unrest_delta=-1), ev.TurnStarted(turn=2)]
    _, p = step(kingdom(1, extra=th), "improvement", {"buildings": [{"type": "Tavern"}]})
    tav = p[-1]
    assert (tav.cost_bp, tav.discounts[0].source, tav.supported_by) == (6, "Theater", ("B2",))


def test_tavern_needs_an_adjacent_house() -> None:
    """§6.10 "adj. 1 house" (adjacency §2.8): no house, no Tavern."""
    city = [ev.CityFounded(city="C1", name="A", hex="H0", capital=True),
            ev.DistrictPreparationStarted(city="C1", district="D1", hex="H0", terrain="GRASSLAND", cost_bp=1,
                                          months=0, ready_on_turn=1),
            ev.DistrictReady(district="D1")]
    with pytest.raises(RuleError, match="house"):
        step(kingdom(1, extra=city), "improvement", {"buildings": [{"type": "Tavern"}]})


def test_uc_vacancy_table_option() -> None:
    """base §6.3 UC differences: General vacancy Loyalty −4 (not Stability −4); Warden Loyalty −2, Stability −2."""
    rrr, uc = kingdom(1), kingdom(1, options={"vacancy_table": "uc"})
    d = {a: int(dv.attribute(uc, a).total) - int(dv.attribute(rrr, a).total) for a in ("LOYALTY", "STABILITY")}
    # RRR: General S −4, Warden L −4 S −2; UC: General L −4, Warden L −2 S −2
    assert d == {"LOYALTY": (-4 - 2) - (-4), "STABILITY": (-2) - (-4 - 2)}


def test_uc_item_sale_option() -> None:
    """base §6.4 UC: no check, floor(price / 2 / 4000) BP, the item within the settlement's base value."""
    city = [ev.CityFounded(city="C1", name="A", hex="H0", capital=True),
            ev.DistrictPreparationStarted(city="C1", district="D1", hex="H0", terrain="GRASSLAND", cost_bp=0,
                                          months=0, ready_on_turn=1),
            ev.DistrictReady(district="D1"),
            *(ev.BuildingConstructed(building=f"B{i}", city="C1", district="D1", building_type="Black Market",
                                     lots=(i,), base_cost_bp=50, cost_bp=0, unrest_delta=0) for i in range(4))]
    s = kingdom(1, options={"item_sale_mode": "uc"}, extra=city)  # base value 200 + 4 × 2,000 = 8,200
    after, p = step(s, "income", {"sales": [{"item": "ring", "value_gp": 8200, "category": "minor"}]},
                    rolls={"income": [10]})
    assert (p[0].check, p[0].bp_gained) == (None, 1)  # floor(8,200 / 2 / 4,000) = 1
    assert after.treasury == s.treasury + 1 + p[-1].bp_gained
    with pytest.raises(RuleError, match="base value is 8200"):
        step(s, "income", {"sales": [{"item": "belt", "value_gp": 9000, "category": "medium"}]})


def test_leader_presence_by_days() -> None:
    """base §2.4: a leader serving fewer than leader_min_days_present days (default 7) counts as vacant."""
    s = kingdom(1)
    after, p = step(s, "improvement", {"presence": [{"role": "TREASURER", "name": "T", "days": 6}]})
    assert (p[0].present, p[0].days_present) == (False, 6) and not dv.role_effective(after, "TREASURER")
    ten = kingdom(1, options={"leader_min_days_present": 10})
    _, p = step(ten, "improvement", {"presence": [{"role": "TREASURER", "name": "T", "days": 8}]})
    assert p[0].present is False
    _, p = step(s, "improvement", {"presence": [{"role": "TREASURER", "name": "T", "days": 8}]})
    assert p[0].present is True
