"""Golden test: the spec's §6 worked turn, reproduced step by step from a plan with typed dice."""

from __future__ import annotations

from kingdomlog.rulesets.pf2e import events as E

from .helpers import Game, events_of, step_state

SECTION6_PLAN = {
    "upkeep.resources": {"rolls": {"resource": [4, 4, 3, 4, 4]}},
    "commerce.taxes": {"rolls": {"check": [12]}},
    "commerce.expenses": {"choices": {"activity": "improve-lifestyle"}, "rolls": {"check": [7]}},
    "commerce.trade": {"choices": {"commodity": "food", "quantity": 1}, "rolls": {"check": [20]}},
    "activity.leadership": {
        "choices": {"activities": [
            {"activity": "quell-unrest", "role": "ruler", "skill": "politics"},
            {"activity": "create-a-masterpiece", "role": "counselor"},
            {"activity": "repair-reputation", "role": "treasurer", "ruin": "crime"},
            {"activity": "craft-luxuries", "role": "general"},
        ]},
        "rolls": {"a1": [9], "a2": [4], "a3": [14], "a4.cost": [1], "a4": [18], "a4.e1": [3]},
    },
    "activity.region": {
        "choices": {"activities": [
            {"activity": "claim-hex", "skill": "wilderness",
             "hex": {"id": "H1", "terrain": "forest", "features": ["resource"], "resource": "lumber",
                     "q": 1, "r": 0}},
            {"activity": "establish-work-site", "hex": "H1", "commodity": "lumber"},
            {"activity": "harvest-crops"},
        ]},
        "rolls": {"a1": [10], "a2": [15], "a3": [2]},
    },
    "activity.civic": {
        "choices": {"activities": [
            {"activity": "build-structure", "structure": "granary", "settlement": "oakhold", "lots": [1]},
        ]},
        "rolls": {"a1": [13]},
    },
    "event.check": {"rolls": {"event": [14]}},
    "event.resolve": {"choices": {"event": "good-weather"}, "rolls": {"check": [11], "check.e1": [3]}},
}


def _play() -> tuple[Game, object]:
    g = Game().found()
    return g, g.play(SECTION6_PLAN)


def test_starting_state_matches_6_1() -> None:
    """§6.1: level 1, size 1, Control DC 14, d4, abilities 14/12/14/14, trained +3, unrest 2 (-1)."""
    s = Game().found().state
    assert (s.level, s.xp, s.size, s.control_dc, s.resource_die, s.turn) == (1, 52, 1, 14, "d4", 1)
    assert s.scores == {"culture": 14, "economy": 12, "loyalty": 14, "stability": 14}
    assert s.commodities["food"] == 3 and s.commodities["lumber"] == 2 and s.storage["food"] == 4
    assert (s.ruin["crime"].points, s.ruin["strife"].points) == (2, 1)
    assert (s.unrest, s.unrest_penalty, s.event_dc) == (2, -1, 11)
    assert s.leaders["magister"].holder is None


def test_upkeep_rows() -> None:
    """§6.2 U0-U4: Fame 0->1; Unrest stays 2; 5d4 = 19 RP; Consumption 1 Food (3->2)."""
    _, pv = _play()
    assert step_state(pv, "upkeep.leadership").fame == 1  # type: ignore[arg-type]
    assert step_state(pv, "upkeep.unrest").unrest == 2  # type: ignore[arg-type]
    u3 = step_state(pv, "upkeep.resources")  # type: ignore[arg-type]
    assert u3.rp == 19
    rolled = next(e for e in events_of(pv, "upkeep.resources") if isinstance(e, E.ResourceDiceRolled))  # type: ignore[arg-type]
    assert (rolled.dice, rolled.die, rolled.faces, rolled.total) == (5, 4, [4, 4, 3, 4, 4], 19)
    u4 = step_state(pv, "upkeep.consumption")  # type: ignore[arg-type]
    assert u4.commodities["food"] == 2


def test_commerce_rows() -> None:
    """§6.2 C1-C3: taxes +4 vs 14 success; lifestyle +5 failure; trade +1, natural 20 crit: 2 dice, Fame 2."""
    _, pv = _play()
    c1 = next(e for e in events_of(pv, "commerce.taxes") if isinstance(e, E.CheckResolved))  # type: ignore[arg-type]
    assert (c1.modifier, c1.total, c1.dc, c1.degree) == (4, 16, 14, "success")
    c2 = next(e for e in events_of(pv, "commerce.expenses") if isinstance(e, E.CheckResolved))  # type: ignore[arg-type]
    assert (c2.modifier, c2.total, c2.degree) == (5, 12, "failure")
    c3 = next(e for e in events_of(pv, "commerce.trade") if isinstance(e, E.CheckResolved))  # type: ignore[arg-type]
    assert (c3.modifier, c3.total, c3.base_degree, c3.degree) == (1, 21, "success", "critical_success")
    s = step_state(pv, "commerce.trade")  # type: ignore[arg-type]
    assert (s.commodities["food"], s.pending.bonus_dice, s.fame, s.unrest) == (1, 2, 2, 2)


def test_leadership_rows() -> None:
    """§6.2 A1: quell 14 vs 14 (Unrest 1); masterpiece +6 fails; repair crime DC 16 +4 (Crime 1);
    craft luxuries: cost 1 RP, +6, 24 crit, +3 Luxuries, Fame 3."""
    _, pv = _play()
    checks = [e for e in events_of(pv, "activity.leadership") if isinstance(e, E.CheckResolved)]  # type: ignore[arg-type]
    got = [(c.activity, c.modifier, c.dc, c.total, c.degree) for c in checks]
    assert got == [
        ("quell-unrest", 5, 14, 14, "success"),
        ("create-a-masterpiece", 6, 14, 10, "failure"),
        ("repair-reputation", 4, 16, 18, "success"),
        ("craft-luxuries", 6, 14, 24, "critical_success"),
    ]
    s = step_state(pv, "activity.leadership")  # type: ignore[arg-type]
    assert (s.unrest, s.ruin["crime"].points, s.rp, s.commodities["luxuries"], s.fame) == (1, 1, 18, 3, 3)


def test_region_and_civic_rows() -> None:
    """§6.2 A2-A3: claim H1 (+5, RP 17, size 2, 10 XP pending); lumber camp (-4 RP, +2); harvest fails;
    Granary DC 15 +5 succeeds: RP 1, Lumber 0, Food cap 5."""
    _, pv = _play()
    checks = [e for e in events_of(pv, "activity.region") if isinstance(e, E.CheckResolved)]  # type: ignore[arg-type]
    assert [(c.activity, c.modifier, c.total, c.degree) for c in checks] == [
        ("claim-hex", 5, 15, "success"), ("establish-work-site", 2, 17, "success"), ("harvest-crops", 5, 7, "failure")]
    s = step_state(pv, "activity.region")  # type: ignore[arg-type]
    assert (s.rp, s.size, s.xp_pending, s.control_dc, s.resource_die) == (13, 2, 10, 14, "d4")
    h1 = next(h for h in s.hexes if h.id == "H1")
    assert h1.work_site is not None and h1.work_site.commodity == "lumber"
    civic = next(e for e in events_of(pv, "activity.civic") if isinstance(e, E.CheckResolved))  # type: ignore[arg-type]
    assert (civic.dc, civic.modifier, civic.total, civic.degree) == (15, 5, 18, "success")
    s = step_state(pv, "activity.civic")  # type: ignore[arg-type]
    assert (s.rp, s.commodities["lumber"], s.storage["food"]) == (1, 0, 5)
    assert not s.settlements[0].overcrowded


def test_event_rows_and_final_state_6_3() -> None:
    """§6.2 E1-T-end and §6.3: event DC 11 -> 16; Good Weather DC 15, +5, success, Unrest 1-3 -> 0;
    XP 52 + 10 + 30 + 1 = 93; RP 0; Fame lost; next turn rolls 7d4 (pending 2 dice)."""
    _, pv = _play()
    ev = next(e for e in events_of(pv, "event.resolve") if isinstance(e, E.CheckResolved))  # type: ignore[arg-type]
    assert (ev.dc, ev.modifier, ev.total, ev.degree) == (15, 5, 16, "success")
    s = pv.state_after  # type: ignore[attr-defined]
    assert (s.level, s.xp, s.size, s.control_dc, s.rp, s.resource_dice) == (1, 93, 2, 14, 0, 7)
    assert {c: s.commodities[c] for c in ("food", "lumber", "luxuries", "ore", "stone")} == \
        {"food": 1, "lumber": 0, "luxuries": 3, "ore": 0, "stone": 0}
    assert s.storage == {"food": 5, "lumber": 4, "luxuries": 4, "ore": 4, "stone": 4}
    assert [(r, s.ruin[r].points, s.ruin[r].threshold, s.ruin[r].penalty) for r in s.ruin] == [
        ("corruption", 0, 10, 0), ("crime", 1, 10, 0), ("decay", 0, 10, 0), ("strife", 1, 10, 0)]
    assert (s.unrest, s.fame, s.event_dc) == (0, 0, 16)
    assert s.modifiers == ()  # the rest-of-turn modifiers expired
    assert [b.name for b in s.settlements[0].structures] == ["houses", "granary"]
    assert s.cooldowns == {}
    xp = [e for e in events_of(pv, "event.xp")]  # type: ignore[arg-type]
    assert [type(e).__name__ for e in xp] == ["XPApplied", "XPAwarded", "RPConverted"]
    assert (xp[0].amount, xp[1].amount, xp[2].xp) == (10, 30, 1)


def test_turn_3_collects_the_lumber_camp() -> None:
    """§6.3 preview: turn 3 rolls 7d4 and the H1 camp yields 2 Lumber (Resource hex)."""
    g, _ = _play()
    pv = g.play({})
    s = step_state(pv, "upkeep.resources")
    rolled = next(e for e in events_of(pv, "upkeep.resources") if isinstance(e, E.ResourceDiceRolled))
    assert (rolled.dice, rolled.die) == (7, 4)
    assert s.commodities["lumber"] == 2
