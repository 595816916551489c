"""Golden tests of the optional modules (pf1-ultimate-campaign-optional.md §5 worked examples and rules)."""

from __future__ import annotations

from typing import Any

import pytest
from pf1.kit import kingdom, month, play, step

from kingdomlog.core.errors import RuleError
from kingdomlog.core.events import Draft, provisional
from kingdomlog.rulesets.pf1 import RULESET
from kingdomlog.rulesets.pf1 import derive as dv
from kingdomlog.rulesets.pf1 import events as ev
from kingdomlog.rulesets.pf1.rules import diplomatic_dc, trade_length, treaty_bonus
from kingdomlog.rulesets.pf1.state import Terms

GD = ev.LeaderAssigned(role="GRAND_DIPLOMAT", name="Envoy", ability="CHA", modifier=1)


def fix_attr(s: Any, attr: str, value: int) -> ev.EventEffectApplied:
    """A permanent GM modifier that brings ``attr`` to ``value``."""
    return ev.EventEffectApplied(event="fixture", kind="ATTRIBUTE", attribute=attr,
                                 value=value - int(dv.attribute(s, attr).total), first_turn=0)


def aldmere(**kw: Any) -> Any:
    """§5 (a): Aldmere, Size 23, LG, Fame 3, Infamy 1, Treasury 40, Grand Diplomat in office."""
    extra = [
        GD,
        ev.ForeignKingdomRegistered(kingdom="varn", name="Varn", alignment="NG", size=42),
        ev.ForeignKingdomRegistered(kingdom="kestrel", name="Kestrel March", alignment="N", size=10),
        ev.ForeignKingdomRegistered(kingdom="dunmoor", name="Dunmoor", alignment="CE", size=12),
        ev.ThirdPartyRelationDeclared(a="varn", b="kestrel", level="treaty"),
        ev.ThirdPartyRelationDeclared(a="varn", b="dunmoor", enemy=True),
        ev.DiplomaticEdictResolved(target="kestrel", purpose="embassy", cost_roll=1, dc_terms={}, outcome="gm setup",
                                   attitude_after="indifferent", level_after="treaty"),
        ev.DiplomaticEdictResolved(target="dunmoor", purpose="embassy", cost_roll=1, dc_terms={},
                                   outcome="gm setup", attitude_after="indifferent", level_after="embassy"),
        ev.RenownChanged(fame_delta=2, infamy_delta=1, source="history"),
        ev.TurnStarted(turn=2),
    ]
    s = kingdom(23, alignment="LG", options={"modules": ["diplomatic_edicts", "fame_infamy"]}, extra=extra,
                treasury=42, **kw)
    # founded with Fame 1, +2 above (the Size 11 milestone among them)
    return s.model_copy(update={"fame_ledger": 3, "milestones": (11,)})


def test_diplomatic_dc_kernel_matches_example_a() -> None:
    """opt §5 (a) DC table: 10 + 1 + 8 + 4 + 5 + 0 + 10 − 3 − 2 = 33; threat DC drops Fame and Infamy."""
    t = diplomatic_dc(infamy=1, size_target=42, size_you=23, align_you="LG", align_target="NG", rel=0,
                      attitude="indifferent", fame=3, bribe=2)
    assert t == {"base": 10, "infamy": 1, "ssm_target": 8, "ssm_you": 4, "adm": 5, "rel": 0, "att": 10,
                 "fame": -3, "bribe": -2, "dc": 33}
    assert diplomatic_dc(infamy=1, size_target=42, size_you=23, align_you="LG", align_target="NG", rel=0,
                         attitude="indifferent", fame=3, bribe=2, threat=True)["dc"] == 35


def test_embassy_example_a_event_by_event() -> None:
    """opt §5 (a): cost 3, check 19 + 19 = 38 vs 33 (+5): embassy, Friendly, Fame 3 → 4; Mansion bought."""
    s = aldmere()
    assert (dv.size(s), dv.fame_value(s), dv.infamy_value(s), s.treasury) == (23, 3, 1, 40)
    spec = {"kind": "diplomatic", "purpose": "embassy", "target": "varn", "envoy_modifier": 19, "bribe_bp": 2,
            "embassy_building": {"settlement": "Varn capital", "type": "Mansion"}}
    econ0, stab0, cons0 = (int(dv.attribute(s, "ECONOMY").total), int(dv.attribute(s, "STABILITY").total),
                           int(dv.consumption(s).total))
    after, p = step(s, "improvement", {"special_edict": spec}, rolls={"dip_cost": [3], "dip_check_1": [19]})
    d = next(x for x in p if isinstance(x, ev.DiplomaticEdictResolved))
    assert d.dc_terms["dc"] == 33 and d.dc_terms["rel"] == 0  # Kestrel −2, Dunmoor +2
    assert (d.cost_roll, d.checks[0].total, d.checks[0].margin) == (3, 38, 5)
    assert (d.outcome, d.level_after, d.attitude_after, d.fame_delta) == ("embassy", "embassy", "friendly", 1)
    assert dv.fame_value(after) == 4
    assert after.treasury == 25  # 40 − 3 − 2 − 10 (Mansion)
    assert int(dv.attribute(after, "STABILITY").total) == stab0 + 1       # Mansion Stability +1
    assert int(dv.attribute(after, "ECONOMY").total) == econ0 + 2         # embassy Economy +2
    assert int(dv.consumption(after).total) == cons0 + 1                  # embassy Consumption +1
    assert after.kingdom_adjustments == {"law": 1, "society": 3}          # Society +2, Mansion Law +1 Society +1


def test_embassy_example_a_alternative_roll() -> None:
    """opt §5 (a) alternative: natural 6 → 25, margin −8: no embassy, lockout t+12, Fame 2, Unfriendly."""
    s = aldmere()
    spec = {"kind": "diplomatic", "purpose": "embassy", "target": "varn", "envoy_modifier": 19, "bribe_bp": 2}
    after, p = step(s, "improvement", {"special_edict": spec}, rolls={"dip_cost": [3], "dip_check_1": [6]})
    d = p[-1]
    assert (d.checks[0].margin, d.level_after, d.attitude_after, d.lockout) == (-8, "none", "unfriendly",
                                                                               {"embassy": 14})
    assert dv.fame_value(after) == 2 and after.treasury == 35
    later = after.model_copy(update={"special_edict_turn": None})
    with pytest.raises(RuleError, match="locked out until turn 14"):
        step(later, "improvement", {"special_edict": spec})


def test_treaty_example_c_event_by_event() -> None:
    """opt §5 (c): DC 29, checks 25 / 35 (extreme → Helpful, DC 24) / 27, 3 of 5 opposed won, unbalanced +9."""
    s = aldmere()
    s, _ = step(s, "improvement", {"special_edict": {"kind": "diplomatic", "purpose": "embassy", "target": "varn",
                                                      "envoy_modifier": 19, "bribe_bp": 2}},
                rolls={"dip_cost": [3], "dip_check_1": [19]})
    s = month(s, 5)  # three turns later
    assert dv.fame_value(s) == 4 and s.relations["varn"].attitude == "friendly"
    opposed = [
        {"skill": "Bluff", "our_modifier": 10, "their_modifier": 12},
        {"skill": "Diplomacy", "our_modifier": 19, "their_skill": "Intimidate", "their_modifier": 15},
        {"skill": "Knowledge (local)", "our_modifier": 8, "their_modifier": 9},
        {"skill": "Knowledge (nobility)", "our_modifier": 11, "their_modifier": 10},
        {"skill": "Sense Motive", "our_modifier": 12, "their_modifier": 11},
    ]
    rolls = {"dip_cost": [2], "dip_check_1": [6], "dip_check_2": [16], "dip_check_3": [8],
             "opp_1_ours_1": [12], "opp_1_theirs_1": [9], "opp_2_ours_1": [5], "opp_2_theirs_1": [14],
             "opp_3_ours_1": [11], "opp_3_theirs_1": [10], "opp_3_ours_2": [15], "opp_3_theirs_2": [7],
             "opp_4_ours_1": [3], "opp_4_theirs_1": [13], "opp_5_ours_1": [17], "opp_5_theirs_1": [16]}
    spec = {"kind": "diplomatic", "purpose": "treaty", "target": "varn", "envoy_modifier": 19,
            "opposed": opposed, "choose": "unbalanced", "x_partner": 60}
    econ0 = int(dv.attribute(s, "ECONOMY").total)
    after, p = step(s, "improvement", {"special_edict": spec}, rolls=rolls)
    d = p[-1]
    assert d.dc_terms["dc"] == 29
    assert [(c.d20, c.total, c.dc, c.margin) for c in d.checks] == [(6, 25, 29, -4), (16, 35, 29, 6),
                                                                    (8, 27, 24, 3)]
    assert [o.winner for o in d.opposed] == ["you", "partner", "you", "partner", "you"]
    assert d.opposed[2].ours == (11, 15) and d.opposed[2].theirs == (10, 7)  # tie rerolled
    assert d.terms is not None and (d.terms.balanced, d.terms.advantaged, d.terms.bonus_you) == (False, "you", 9)
    assert (d.level_after, d.attitude_after, d.infamy_delta) == ("treaty", "helpful", 1)
    assert dv.infamy_value(after) == 2
    assert int(dv.attribute(after, "ECONOMY").total) == econ0 + 9


def test_treaty_bonus_kernel_example_c() -> None:
    """opt §5 (c): balanced +6/+4; unbalanced +9/+2; second treaty +8 (flat); NPC estimate 51 → +7."""
    assert treaty_bonus(60, balanced=True, we_advantaged=True) == 6
    assert treaty_bonus(40, balanced=True, we_advantaged=False) == 4
    assert treaty_bonus(60, balanced=False, we_advantaged=True) == 9
    assert treaty_bonus(40, balanced=False, we_advantaged=False) == 2
    assert treaty_bonus(4 + 5 + 42, balanced=False, we_advantaged=True) == 7


TRADE_DATA = {"buildings": {"building": [
    # test-only homebrew entries: the spec gives these buildings' settlement lines (§5 b), not their costs
    {"name": "Guildhall", "cost": 34, "lots": 2, "settlement": {"productivity": 2}, "tag": "test homebrew"},
    {"name": "Shop", "cost": 8, "lots": 1, "settlement": {"productivity": 1}, "tag": "test homebrew"},
    {"name": "Trade Shop", "cost": 10, "lots": 1, "settlement": {"productivity": 1}, "tag": "test homebrew"},
    {"name": "Tannery", "cost": 6, "lots": 1, "tag": "test homebrew"},
    {"name": "Tavern", "cost": 12, "lots": 1, "adjacent_houses": 1, "economy": 1, "loyalty": 1, "base_value": 500,
     "settlement": {"corruption": 1}, "tag": "test homebrew"},
]}}

PATH = [{"road": True}, {}, {"terrain": "forest", "highway": True}, {"terrain": "hills", "road": True},
        {"terrain": "forest", "river": "downstream"}, {"terrain": "marsh", "river": "downstream"},
        {"terrain": "coastline", "coastline": True}, {"terrain": "desert"}, {"highway": True},
        {"terrain": "hills", "highway": True}]


def heathmoor() -> Any:
    """§5 (b): Heathmoor, Size 8, Oakford with 1 district, Pier and Guildhall; E 14, L 12, S 13, Unrest 1."""
    types = (["Piers", "Guildhall", "Tavern", "House"] + ["Smithy"] * 3 + ["Shop"] * 2 + ["Trade Shop"] * 4
             + ["Tannery"])
    city: list[Any] = [ev.CityFounded(city="C1", name="Oakford", hex="H0", capital=True),
                       ev.DistrictPreparationStarted(city="C1", district="D1", hex="H0", terrain="GRASSLAND",
                                                     cost_bp=0, months=0, ready_on_turn=1),
                       ev.DistrictReady(district="D1")]
    lot = 0
    for i, t in enumerate(types, 1):
        n = 2 if t == "Guildhall" else 1
        city.append(ev.BuildingConstructed(building=f"B{i}", city="C1", district="D1", building_type=t,
                                           lots=tuple(range(lot, lot + n)), base_cost_bp=0, cost_bp=0,
                                           unrest_delta=0, free=True))
        lot += n
    city += [GD, ev.GmAdjustment(field="unrest", delta=1)]
    opts = {"modules": ["trade_edicts", "fame_infamy"], "control_dc_includes_districts": True}
    s = kingdom(8, options=opts, data=TRADE_DATA, extra=city, treasury=30)
    fixes = [fix_attr(s, a, v) for a, v in (("ECONOMY", 14), ("LOYALTY", 12), ("STABILITY", 13))]
    s = kingdom(8, options=opts, data=TRADE_DATA, extra=[*city, *fixes, ev.TurnStarted(turn=3)], treasury=30)
    return s


def test_trade_length_kernel_example_b() -> None:
    """opt §5 (b): weights sum 10.5 → TRL 10; travel 8 days (English), 11 (seed reading)."""
    path = [ev.PathStep.model_validate(p) for p in PATH]
    assert trade_length(path, pier=True, waterfront=False) == (10.5, 8.0)
    with pytest.raises(ValueError, match="#5"):
        trade_length(path, pier=False, waterfront=False)


def test_trade_route_example_b_event_by_event() -> None:
    """opt §5 (b): TRL 10, RM 1, LM 2, DC 29 + 1 + 1 + 2 − 8 = 25; checks 22 ✗ / 25 ✓ / 29 ✓ → established;
    Treasury 30 − 10 + (1 + 7 + 3) = 31; Economy +1 tier +1 goods for turns t … t+11."""
    s = heathmoor()
    assert (int(dv.control_dc(s).total), s.unrest, s.treasury) == (29, 1, 30)
    econ0 = int(dv.attribute(s, "ECONOMY").total)
    spec = {"kind": "trade", "type": "goods", "partner": "ravel-kingdom", "origin": "Oakford",
            "destination": "Ravel", "path": PATH, "invested_bp": 10}
    rolls = {"trade_T1_economy": [9], "trade_T1_loyalty": [14], "trade_T1_stability": [17],
             "trade_T1_block_1": [3, 4], "trade_T1_block_2": [2, 1]}
    after, p = step(s, "improvement", {"special_edict": spec}, rolls=rolls)
    issued = next(x for x in p if isinstance(x, ev.TradeEdictIssued))
    assert (issued.trl_raw, issued.trl, issued.rm, issued.lm, issued.dc, issued.travel_days,
            issued.arrival_turn) == (10.5, 10, 1, 2, 25, 8.0, 3)
    assert issued.dc_terms == {"control_dc": 29, "corruption": 1, "rm": 1, "lm": 2, "productivity": -8}
    arr = next(x for x in p if isinstance(x, ev.TradeExpeditionArrived))
    assert [c.total for c in arr.checks] == [22, 25, 29] and arr.successes == 2
    assert (arr.status, arr.treasury_delta, arr.tier_economy, arr.type_bonus) == ("established", 11, 1, 1)
    assert after.treasury == 31
    assert int(dv.attribute(after, "ECONOMY").total) == econ0 + 2
    # still active in t + 11, gone at the start of t + 12
    s11 = month(after, 14)
    assert int(dv.attribute(s11, "ECONOMY").total) == econ0 + 2
    s12, p12 = step(month(after, 14), "gm")
    assert any(isinstance(x, ev.TradeRouteExpired) for x in p12)
    assert int(dv.attribute(s12, "ECONOMY").total) == econ0
    # the printed-English LM and the per-block reading (§1.5 D1, §3 reading B)
    alt = s.model_copy(update={"options": {**s.options, "trade_lm_formula": "size_minus_trl",
                                           "trade_treasury_reading": "rm_per_block"}})
    _, p = step(alt, "improvement", {"special_edict": spec}, rolls=rolls)
    assert next(x for x in p if isinstance(x, ev.TradeEdictIssued)).dc == 23
    assert next(x for x in p if isinstance(x, ev.TradeExpeditionArrived)).treasury_delta == 12


def test_trade_one_and_zero_successes() -> None:
    """opt §2.7.5: one success → 1d4 per block, no route; none → Fame −1, Unrest +1."""
    s = heathmoor()
    spec = {"kind": "trade", "type": "goods", "partner": "p", "origin": "Oakford", "path": PATH, "invested_bp": 10}
    one = {"trade_T1_economy": [9], "trade_T1_loyalty": [2], "trade_T1_stability": [17],
           "trade_T1_block_1": [3], "trade_T1_block_2": [2]}
    after, p = step(s, "improvement", {"special_edict": spec}, rolls=one)
    assert (p[-1].status, p[-1].treasury_delta, after.treasury) == ("diverted", 5, 25)
    zero = {"trade_T1_economy": [1], "trade_T1_loyalty": [1], "trade_T1_stability": [1]}
    after, p = step(s, "improvement", {"special_edict": spec}, rolls=zero)
    assert (p[-1].status, after.unrest, dv.fame_value(after)) == ("failed", 2, 0)


def test_special_edict_refused_when_module_off() -> None:
    """opt §1.1: a module that is off has no edicts; the refusal names the module."""
    s = kingdom(3, extra=[GD])
    with pytest.raises(RuleError, match="trade_edicts module, which is off"):
        step(s, "improvement", {"special_edict": {"kind": "trade", "path": PATH}})


def test_one_special_edict_per_turn_and_grand_diplomat() -> None:
    """opt §1.4: one special edict a turn; no diplomatic edict without a Grand Diplomat."""
    s = aldmere()
    used = s.model_copy(update={"special_edict_turn": s.turn})
    with pytest.raises(RuleError, match="one special edict per turn"):
        step(used, "improvement", {"special_edict": {"kind": "diplomatic", "target": "varn"}})
    nogd = s.model_copy(update={"leaders": {k: v for k, v in s.leaders.items() if k != "GRAND_DIPLOMAT"}})
    with pytest.raises(RuleError, match="Grand Diplomat"):
        step(nogd, "improvement", {"special_edict": {"kind": "diplomatic", "target": "varn"}})


def test_settlement_pipeline_example_d() -> None:
    """opt §5 (d): LN Theocracy, sizes and expanded modifiers on: S1 5/5/8/12/8/9, S2 −3/−1/0/−1/0/−2,
    kingdom Law 1, Lore 2; S2 uses max(own, kingdom); Fame 4, Infamy 1."""
    data = {"buildings": {"building": [
        {"name": "Guild Quarter", "cost": 1, "lots": 1,
         "settlement": {"corruption": 4, "crime": 3, "law": 3, "lore": 9, "productivity": 6, "society": 8}},
        {"name": "Market Row", "cost": 1, "lots": 1, "settlement": {"crime": 1, "law": 1, "productivity": 2,
                                                                   "society": 1}},
        {"name": "Plain Lot", "cost": 1, "lots": 1},
    ]}}
    ps: list[Any] = [
        ev.CityFounded(city="C1", name="S1", hex="H0", capital=True),
        ev.DistrictPreparationStarted(city="C1", district="D1", hex="H0", terrain="GRASSLAND", cost_bp=0, months=0,
                                      ready_on_turn=1),
        ev.DistrictReady(district="D1"),
        ev.DistrictPreparationStarted(city="C1", district="D2", hex="H0", terrain="GRASSLAND", cost_bp=0, months=0,
                                      ready_on_turn=1),
        ev.DistrictReady(district="D2"),
        ev.CityFounded(city="C2", name="S2", hex="H1", capital=False),
        ev.DistrictPreparationStarted(city="C2", district="D3", hex="H1", terrain="GRASSLAND", cost_bp=0, months=0,
                                      ready_on_turn=1),
        ev.DistrictReady(district="D3"),
    ]
    lots = [("C1", "D1", "Cathedral", (0, 1, 6, 7)), ("C1", "D1", "Guild Quarter", (2,))]
    lots += [("C1", "D1" if i < 31 else "D2", "Plain Lot", (8 + i if i < 28 else 100 + i,)) for i in range(40)]
    lots += [("C2", "D3", "Market Row", (0,))] + [("C2", "D3", "Plain Lot", (i,)) for i in range(1, 6)]
    for i, (c, d, t, ls) in enumerate(lots, 1):
        ps.append(ev.BuildingConstructed(building=f"B{i}", city=c, district=d, building_type=t, lots=ls,
                                         base_cost_bp=0, cost_bp=0, unrest_delta=0, free=True))
    ps += [ev.SizeMilestoneRenownChosen(threshold=11, choice="fame"),
           ev.SizeMilestoneRenownChosen(threshold=26, choice="infamy"),
           ev.GovernmentFormChanged(form="theocracy")]
    mods = ["settlement_sizes", "expanded_settlement_modifiers", "government_forms", "fame_infamy"]
    s = kingdom(30, alignment="LN", options={"modules": mods}, data=data, extra=ps)
    s = s.model_copy(update={"fame_ledger": s.fame_ledger + 1})  # founded with Fame 1
    assert (s.fame_ledger, s.infamy_ledger) == (2, 1)
    c1, c2 = s.cities["C1"], s.cities["C2"]
    assert dv.city_lots(s, c1) == 45 and dv.settlement_size(s, c1) == ("Large city", 2, 10)
    assert dv.settlement_size(s, c2) == ("Small town", -2, -5)
    order = ("corruption", "crime", "law", "lore", "productivity", "society")
    assert tuple(dv.settlement_modifiers(s, c1)[m] for m in order) == (5, 5, 8, 12, 8, 9)
    assert tuple(dv.settlement_modifiers(s, c2)[m] for m in order) == (-3, -1, 0, -1, 0, -2)
    k = dv.kingdom_modifiers(s)
    assert tuple(int(k[m].total) for m in order) == (0, 0, 1, 2, 0, 0)
    e2 = dv.effective_settlement(s, c2)
    assert (e2["corruption"], e2["law"], e2["lore"]) == (0, 1, 2)
    assert (int(dv.fame(s).total), int(dv.infamy(s).total)) == (4, 1)


def test_holy_sites_example_e() -> None:
    """opt §5 (e): LN Temple → Economy +2, Stability +2; true-Neutral Cathedral → Stability +8;
    CG Shrine → Loyalty +1."""
    city = [ev.CityFounded(city="C1", name="A", hex="H0", capital=True),
            ev.DistrictPreparationStarted(city="C1", district="D1", hex="H0", terrain="GRASSLAND", cost_bp=0,
                                          months=0, ready_on_turn=1),
            ev.DistrictReady(district="D1"), ev.TurnStarted(turn=2)]
    s = kingdom(1, options={"modules": ["holy_sites"]}, extra=city)
    base = {a: int(dv.attribute(s, a).total) for a in ("ECONOMY", "LOYALTY", "STABILITY")}
    after, p = step(s, "improvement", {"buildings": [{"type": "Temple", "deity_alignment": "LN",
                                                      "deity": "Abadar"}]})
    assert isinstance(p[-1], ev.ReligiousBuildingDedicated)
    got = {a: int(dv.attribute(after, a).total) - base[a] for a in base}
    assert got == {"ECONOMY": 2, "LOYALTY": 0, "STABILITY": 2}
    assert after.unrest == 0  # the Temple's Unrest −2 on completion is kept (Unrest was 0)
    cat = ev.BuildingConstructed(building="B9", city="C1", district="D1", building_type="Cathedral",
                                 lots=(10, 11, 16, 17), base_cost_bp=58, cost_bp=0, unrest_delta=0)
    s2 = kingdom(1, options={"modules": ["holy_sites"]},
                                                               extra=[*city, cat])
    after, _ = step(s2, "improvement", {"dedications": [{"building": "B9", "deity": "Pharasma",
                                                         "deity_alignment": "N"}]})
    assert int(dv.attribute(after, "STABILITY").total) - int(dv.attribute(s2, "STABILITY").total) == 8
    shrine = ev.BuildingConstructed(building="B8", city="C1", district="D1", building_type="Shrine",
                                    lots=(20,), base_cost_bp=8, cost_bp=0, unrest_delta=0)
    s3 = kingdom(1, options={"modules": ["holy_sites"]}, extra=[*city, shrine])
    after, _ = step(s3, "improvement", {"dedications": [{"building": "B8", "deity_alignment": "CG"}]})
    d = {a: int(dv.attribute(after, a).total) - int(dv.attribute(s3, a).total) for a in base}
    assert d == {"ECONOMY": 0, "LOYALTY": 0, "STABILITY": 0}  # replaces the standard Loyalty +1 with Loyalty +1
    with pytest.raises(RuleError, match="at most 1"):
        step(s3, "improvement", {"dedications": [{"building": "B8", "bonus_mode": "portfolio",
                                                  "portfolio": {"ECONOMY": 2}}]})


def test_independence_and_union_example_e() -> None:
    """opt §5 (e): non-structural Unrest 7 split 3 ways → 2 each (0 → 1); union of 5 and 2 → 3.
    Each log records the other campaign ids."""
    s = kingdom(3, options={"modules": ["independence_unification"]}, unrest=8, treasury=30)
    daughters = [{"campaign": "north", "hexes": ["H0"], "treasury_bp": 10},
                 {"campaign": "south", "hexes": ["H1"], "treasury_bp": 10},
                 {"campaign": "east", "hexes": ["H2"], "treasury_bp": 10}]
    after, p = step(s, "event", {"event": "none", "independence": {"daughters": daughters,
                                                                   "non_structural_unrest": 7}},
                    rolls={"chance": [50]})
    ind = next(x for x in p if isinstance(x, ev.IndependenceDeclared))
    assert ind.share == 2 and after.closed
    assert after.lineage[-1].kind == "split_into" and after.lineage[-1].campaigns == ("north", "south", "east")
    with pytest.raises(RuleError, match="log is closed: it became north, south, east"):
        step(month(after, 2), "improvement", {"roads": ["H0"]})
    _, p = step(s, "event", {"independence": {"daughters": daughters, "non_structural_unrest": 0}},
                rolls={"chance": [90]})
    assert next(x for x in p if isinstance(x, ev.IndependenceDeclared)).share == 1
    with pytest.raises(RuleError, match="split the kingdom's hexes"):
        step(s, "event", {"independence": {"daughters": daughters[:2], "non_structural_unrest": 0}},
             rolls={"chance": [90]})
    _, p = step(s, "event", {"union": {"members": ["test", "westmarch"], "new_campaign": "united",
                                       "non_structural_unrest": [{"campaign": "test", "unrest": 5},
                                                                 {"campaign": "westmarch", "unrest": 2}]}},
                rolls={"chance": [90]})
    assert next(x for x in p if isinstance(x, ev.UnionFormed)).union_unrest == 3
    # a daughter campaign records where it came from at its founding
    plans = RULESET.sample_plans()[:1]
    plans[0]["steps"]["founding"]["choices"]["lineage"] = {"kind": "split_from", "campaigns": ["greenbelt"],
                                                           "unrest_added": 2}
    d, evs, _ = play(plans, campaign="north", options={"modules": ["independence_unification"]})
    lin = next(e.payload for e in evs if isinstance(e.payload, ev.LineageRecorded))
    assert lin.campaigns == ("greenbelt",) and d.unrest == 2 and d.lineage[0].kind == "split_from"


def test_fame_size_milestones() -> None:
    """opt §2.9: Fame or Infamy +1 the first time Size reaches 11 (and 26, 51, 101, 201), once each."""
    s = kingdom(10, options={"modules": ["fame_infamy"]}, extra=[ev.TurnStarted(turn=2)])
    after, p = step(s, "improvement", {"claim": ["H10"], "milestone_choice": "infamy"})
    ms = [x for x in p if isinstance(x, ev.SizeMilestoneRenownChosen)]
    assert [(m.threshold, m.choice) for m in ms] == [(11, "infamy")]
    assert dv.infamy_value(after) == 1
    _, p = step(after.model_copy(update={"counters": after.counters.model_copy(update={"claims": 0})}),
                    "improvement", {"claim": ["H11"]})
    assert not [x for x in p if isinstance(x, ev.SizeMilestoneRenownChosen)]


def test_leadership_skills() -> None:
    """opt §2.12: +1 per 5 full ranks in the role's skill (Treasurer 12 ranks → +2 Economy)."""
    s = kingdom(1, options={"modules": ["leadership_skills"]})
    e0 = int(dv.attribute(s, "ECONOMY").total)
    after, _ = step(s, "improvement", {"skill_ranks": [{"role": "TREASURER", "name": "T", "ranks": 12}]})
    assert int(dv.attribute(after, "ECONOMY").total) == e0 + 2
    with pytest.raises(RuleError, match="leadership_skills"):
        step(kingdom(1), "improvement", {"skill_ranks": [{"role": "TREASURER", "name": "T", "ranks": 12}]})


def test_abandoned_buildings_shutdown_and_reactivation() -> None:
    """opt §2.1: demolish the supporting House → shutdown 1d3 turns later (Unrest +1, benefits lost);
    a replacement House → Economy check from the next Upkeep."""
    city = [ev.CityFounded(city="C1", name="A", hex="H0", capital=True),
            ev.DistrictPreparationStarted(city="C1", district="D1", hex="H0", terrain="GRASSLAND", cost_bp=0,
                                          months=0, ready_on_turn=1),
            ev.DistrictReady(district="D1"),
            ev.BuildingConstructed(building="B1", city="C1", district="D1", building_type="House", lots=(0,),
                                   base_cost_bp=3, cost_bp=0, unrest_delta=0),
            ev.BuildingConstructed(building="B2", city="C1", district="D1", building_type="Tavern", lots=(1,),
                                   base_cost_bp=12, cost_bp=0, unrest_delta=0, supported_by=("B1",)),
            ev.TurnStarted(turn=2)]
    s = kingdom(1, options={"modules": ["abandoned_buildings"]}, extra=city)
    e0 = int(dv.attribute(s, "ECONOMY").total)
    after, p = step(s, "improvement", {"demolish": ["B1"]}, rolls={"shutdown_B2": [2]})
    lost = next(x for x in p if isinstance(x, ev.BuildingSupportLost))
    assert (lost.building, lost.d3, lost.shutdown_due_turn) == ("B2", 2, 4)
    t4 = month(after, 4)
    t4, p = step(t4, "upkeep", rolls={"stability": [20]})
    assert any(isinstance(x, ev.BuildingAbandoned) for x in p)
    assert int(dv.attribute(t4, "ECONOMY").total) == e0 - 1  # the Tavern's Economy +1 is gone
    t4 = t4.model_copy(update={"counters": t4.counters.model_copy(update={"buildings": 0})})
    t4, p = step(t4, "improvement", {"buildings": [{"type": "House", "lots": [7], "supports": "B2"}]})
    assert t4.buildings["B2"].reactivation_from_turn == 5
    t5, p = step(month(t4, 5), "upkeep", rolls={"stability": [20], "reactivate_B2": [20]})
    assert next(x for x in p if isinstance(x, ev.BuildingReactivationAttempted)).check.success
    assert t5.buildings["B2"].occupancy == "active"


def test_vassalage_subjugation_checks() -> None:
    """opt §2.8: grant 1..floor(T/4); subjugation Loyalty check DC Control DC + floor(size/5) at issue and each
    later Upkeep, failure Unrest +1d4; three successes in a row end the checks."""
    s = kingdom(3, options={"modules": ["vassalage_edicts"]}, treasury=40)
    spec = {"kind": "vassalage", "vassal": "bogmarch", "mode": "subjugation", "size": 12, "grant_bp": 10,
            "viceroy": {"name": "Lia", "ability": "INT", "modifier": 4}}
    with pytest.raises(RuleError, match="floor"):
        step(s, "improvement", {"special_edict": {**spec, "grant_bp": 11}})
    after, p = step(s, "improvement", {"special_edict": spec},
                    rolls={"vassal_cost": [2], "subjugation_bogmarch": [1], "subjugation_bogmarch_unrest": [3]})
    chk = next(x for x in p if isinstance(x, ev.SubjugationCheckRolled))
    assert (chk.check.dc, chk.check.success, chk.unrest_delta) == (23 + 2, False, 3)
    assert after.treasury == 40 - 2 - 10 and after.unrest == 3
    assert int(dv.attribute(after, "ECONOMY").total) - int(dv.attribute(s, "ECONOMY").total) == 2  # Viceroy half
    st = after
    for t in (3, 4, 5):
        st = month(st, t)
        st, p = step(st, "upkeep", rolls={"stability": [20], "subjugation_bogmarch": [20]})
    assert st.vassals[0].resolved and st.vassals[0].streak == 3
    st, p = step(month(st, 6), "upkeep", rolls={"stability": [20]})
    assert not any(isinstance(x, ev.SubjugationCheckRolled) for x in p)


def test_exploration_expedition_lost() -> None:
    """opt §2.6: 1d4 BP per month in advance; an encounter: Stealth DC 10 + 2×CR, then Stability DC
    Control DC + 2×CR; failure → explorers lost, Unrest +1."""
    s = kingdom(2, options={"modules": ["exploration_edicts"]}, extra=[GD])
    after, p = step(s, "improvement", {"special_edict": {"kind": "exploration", "months": 2, "route": ["H5"]}},
                    rolls={"explore_cost_1": [2], "explore_cost_2": [4]})
    assert after.treasury == 50 - 6 and after.expeditions[0].id == "X1"
    report = {"expedition": "X1", "cr": 3, "stealth_modifier": 2}
    done, p = step(after, "event", {"event": "none", "expeditions": [report]},
                   rolls={"chance": [99], "exp_X1_stealth": [5], "exp_X1_stability": [2]})
    prog = next(x for x in p if isinstance(x, ev.ExpeditionProgressed))
    assert (prog.stealth.dc, prog.stealth.success, prog.stability.dc, prog.outcome) == (16, False, 28, "lost")
    assert done.unrest == 1 and done.expeditions[0].status == "lost"


def test_fame_skill_bonus_threshold() -> None:
    """opt §2.9/§2.5.5: +1 on the envoy's Diplomacy per full 10 Fame (9 → +0, 10 → +1); the DC drops by Fame."""
    spec = {"kind": "diplomatic", "purpose": "embassy", "target": "varn", "envoy_modifier": 10}
    for ledger, fsb in ((9, 0), (10, 1), (19, 1), (20, 2)):
        s = aldmere().model_copy(update={"fame_ledger": ledger})
        _, p = step(s, "improvement", {"special_edict": spec}, rolls={"dip_cost": [1], "dip_check_1": [10]})
        d = p[-1]
        assert (d.checks[0].modifier, d.dc_terms["fame"]) == (10 + fsb, -ledger)


def _with_treaty() -> Any:
    s = aldmere()
    terms = ev.DiplomaticEdictResolved(
        target="varn", purpose="treaty", cost_roll=1, dc_terms={}, outcome="t", attitude_after="friendly",
        level_after="treaty", terms=Terms(kind="treaty", balanced=True, advantaged="you", established_turn=2,
                                             x_you=10, x_partner=60, bonus_you=6))
    return month(RULESET.apply(s, provisional("test", 1, Draft(terms, turn=2))), 3)


def test_withdrawing_from_a_treaty_and_attacking_a_partner() -> None:
    """opt §2.5.6: withdrawal Loyalty check (success Unrest +1, failure +2), back to an embassy;
    attacking a treaty partner: success Infamy +1d2, Unrest +1d2; failure 1d4 and 1d4."""
    s = _with_treaty()
    e0 = int(dv.attribute(s, "ECONOMY").total)
    after, p = step(s, "gm", {"relation_actions": [{"action": "withdraw_treaty", "target": "varn"}]},
                    rolls={"withdraw_treaty_varn": [1]})
    r = p[-1]
    assert (r.check.success, r.unrest_delta, r.level_after) == (False, 2, "embassy")
    assert after.relations["varn"].treaty is None and int(dv.attribute(after, "ECONOMY").total) == e0 - 6
    after, p = step(s, "gm", {"relation_actions": [{"action": "attack", "target": "varn"}]},
                    rolls={"attack_varn": [20], "attack_varn_infamy": [2], "attack_varn_unrest": [1]})
    r = p[-1]
    assert (r.check.success, r.infamy_delta, r.unrest_delta, r.at_war) == (True, 2, 1, True)
    assert dv.infamy_value(after) == dv.infamy_value(s) + 2 and after.relations["varn"].at_war


def test_closing_an_embassy_ends_its_building_bonuses() -> None:
    """opt §2.5.6: closing an embassy takes a Loyalty check; success ends the embassy building's bonuses."""
    s = aldmere()
    spec = {"kind": "diplomatic", "purpose": "embassy", "target": "varn", "envoy_modifier": 19, "bribe_bp": 2,
            "embassy_building": {"settlement": "Varn capital", "type": "Mansion"}}
    s, _ = step(s, "improvement", {"special_edict": spec}, rolls={"dip_cost": [3], "dip_check_1": [19]})
    s = month(s, 3)
    after, p = step(s, "gm", {"relation_actions": [{"action": "close_embassy", "target": "varn"}]},
                    rolls={"close_embassy_varn": [20]})
    assert p[-1].level_after == "none" and after.relations["varn"].embassy_building is None
    assert after.kingdom_adjustments == {} and dv.consumption(after).total == dv.consumption(s).total - 1


def test_rebuilding_a_destroyed_lot_costs_half() -> None:
    """base §2.8: a destroyed lot gives Unrest +1; the same building type rebuilt there costs half."""
    city = [ev.CityFounded(city="C1", name="A", hex="H0", capital=True),
            ev.DistrictPreparationStarted(city="C1", district="D1", hex="H0", terrain="GRASSLAND", cost_bp=0,
                                          months=0, ready_on_turn=1),
            ev.DistrictReady(district="D1"),
            ev.BuildingConstructed(building="B1", city="C1", district="D1", building_type="Granary", lots=(0,),
                                   base_cost_bp=12, cost_bp=12, unrest_delta=0),
            ev.TurnStarted(turn=2)]
    s = kingdom(1, extra=city)
    s, p = step(s, "gm", {"destroy_lots": [{"district": "D1", "lots": [0]}]})
    assert s.unrest == 1 and "B1" not in s.buildings
    after, p = step(s, "improvement", {"buildings": [{"type": "Granary", "district": "D1"}]})
    g = p[-1]
    assert (g.cost_bp, g.discounts[0].kind) == (6, "REBUILD") and after.rubble == ()


def test_renegotiating_a_treaty() -> None:
    """opt §2.5.6: Loyalty check; failure → unchanged, Unrest +1; success → five opposed checks, new terms."""
    s = _with_treaty()
    opposed = [{"skill": k, "our_modifier": 10, "their_modifier": 10} for k in
               ("Bluff", "Diplomacy", "Knowledge (local)", "Knowledge (nobility)", "Sense Motive")]
    spec = {"kind": "diplomatic", "purpose": "renegotiate", "target": "varn", "opposed": opposed,
            "choose": "unbalanced"}
    after, p = step(s, "improvement", {"special_edict": spec}, rolls={"dip_cost": [1], "renegotiate_loyalty": [1]})
    assert (p[-1].outcome, p[-1].unrest_delta, after.unrest) == ("unchanged", 1, s.unrest + 1)
    assert after.relations["varn"].treaty == s.relations["varn"].treaty
    wins = {f"opp_{i}_ours_1": [15] for i in range(1, 6)} | {f"opp_{i}_theirs_1": [5] for i in range(1, 6)}
    after, p = step(s, "improvement", {"special_edict": spec},
                    rolls={"dip_cost": [1], "renegotiate_loyalty": [20], **wins})
    t = after.relations["varn"].treaty
    assert t is not None and (t.balanced, t.advantaged, t.bonus_you) == (False, "you", 9)  # 60 × 15 %


def test_renown_the_gm_gives_without_words_is_recorded_as_the_gms() -> None:
    """The form's "Where it came from" box is empty (it held "gm", a key that read as code on the GM sheet); left
    empty, the change is recorded as the GM's ("gm", as it was), filled, in the GM's words."""
    from kingdomlog.rulesets.pf1.choices import RenownChoices

    assert RenownChoices.model_fields["source"].default == ""
    assert RenownChoices.model_fields["source"].title == "Where it came from"
    s = kingdom(10, options={"modules": ["fame_infamy"]}, extra=[ev.TurnStarted(turn=2)])
    for given, recorded in (({"fame": 1}, "gm"), ({"fame": 1, "source": "Visiting Celebrity"}, "Visiting Celebrity")):
        _, p = step(s.model_copy(update={"phase": "TURN_ENDED"}), "gm", {"renown": given})
        assert [(x.fame_delta, x.source) for x in p if isinstance(x, ev.RenownChanged)] == [(1, recorded)]
