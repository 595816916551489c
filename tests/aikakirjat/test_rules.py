"""Hand-computed cases of the aikakirjat rules, each citing its spec section."""

from __future__ import annotations

import pytest
from aik_helpers import Game, founding, quiet_year

from kingdomlog.rulesets.aikakirjat import rules as R
from kingdomlog.rulesets.aikakirjat.options import DEFAULTS
from kingdomlog.rulesets.aikakirjat.state import KingdomState, TerritoryArea, Track

# --- §3.1 level table, every row ---------------------------------------------------------------

LEVELS = [  # level, fame, population, proficiency, title (copied by hand from §3.1)
    (1, 0, 3, 2, "Knight"), (2, 20, 6, 2, "Thane"), (3, 50, 9, 2, "Freiherr"), (4, 90, 12, 2, "Baron"),
    (5, 140, 15, 3, "Earl"), (6, 200, 18, 3, "Viscount"), (7, 270, 21, 3, "Count"), (8, 350, 24, 3, "Marquess"),
    (9, 440, 27, 4, "Prince"), (10, 540, 30, 4, "Duke"), (11, 650, 33, 4, "Grand Duke"),
    (12, 770, 36, 4, "Palatine"), (13, 900, 39, 5, "King"), (14, 1040, 42, 5, "King"), (15, 1190, 45, 5, "King"),
    (16, 1350, 48, 5, "King"), (17, 1520, 51, 6, "Emperor"), (18, 1700, 54, 6, "Emperor"),
    (19, 1890, 57, 6, "Emperor"), (20, 2090, 60, 6, "Emperor"),
]
ACTIONS = {1: 1, 4: 1, 5: 2, 10: 2, 11: 3, 18: 3, 19: 4, 20: 4}


@pytest.mark.parametrize(("level", "fame", "pop", "pb", "title"), LEVELS)
def test_level_table_row(level: int, fame: int, pop: int, pb: int, title: str) -> None:
    """§3.1: each row's fame, population, proficiency bonus and title; §2.9 actions per year."""
    s = KingdomState(options=dict(DEFAULTS), level=level)
    assert (R.fame_required(level), R.population_required(level), R.proficiency_bonus(s), R.title(s)) == (
        fame, pop, pb, title)
    if level in ACTIONS:
        assert R.actions_per_year(s) == ACTIONS[level]


def _to_level_two(g: Game, fame: int = 19, pop_delta: int = 3) -> None:
    adj = [{"event": "gm_adjustment", "field": "fame", "delta": fame, "reason": "test"},
           {"event": "gm_adjustment", "field": "population", "delta": pop_delta, "reason": "test"}]
    g.play(quiet_year(start={"choices": {"new_session": False, "gm_events": adj}}))


def test_level_up_grants_the_feat_benefit_once() -> None:
    """§3.1 / A15: fame 20 and population 6 give level 2 at year end with a pending feat; a regained level
    grants nothing new."""
    g = Game()
    g.play(founding())
    _to_level_two(g)
    s = g.state
    assert (s.fame, s.population, s.level, s.highest_level_reached) == (20, 6, 2, 2)
    assert [(b.level, b.benefit) for b in s.pending_benefits] == [(2, "feat")]
    g.play(quiet_year(end={"choices": {"benefits": [{"level": 2, "benefit": "feat", "feat": "law_and_order"}]}}))
    assert [f.feat for f in g.state.feats] == ["law_and_order"] and g.state.pending_benefits == ()


def test_several_levels_at_once() -> None:
    """A15: fame 90 and population 12 take a level-1 kingdom to level 4 in one year (feat, ASI, feat pending)."""
    g = Game()
    g.play(founding())
    _to_level_two(g, fame=89, pop_delta=9)
    assert g.state.level == 4
    assert [(b.level, b.benefit) for b in g.state.pending_benefits] == [(2, "feat"), (3, "asi"), (4, "feat")]


def test_holding_the_level_fails_and_drops() -> None:
    """§3.1 / A14: level 2 with population 4: DC 5 × 2 = 10 Stability check; a d20 of 1 (+1) fails → level 1."""
    g = Game()
    g.play(founding())
    _to_level_two(g)
    adj = [{"event": "gm_adjustment", "field": "population", "value": 4, "reason": "famine"}]
    p = g.play(quiet_year(start={"choices": {"new_session": False, "gm_events": adj}},
                          end={"rolls": {"hold.hold": [1]}}))
    hold = next(d.payload for d in p.drafts if d.type == "aikakirjat.level_hold_checked")
    assert hold.audit["dc"] == 10 and hold.audit["check"]["total"] == 2 and hold.audit["success"] is False
    assert g.state.level == 1 and g.state.highest_level_reached == 2


def test_holding_the_level_succeeds() -> None:
    """§3.1: same as above with a d20 of 9: 9 + 1 = 10 ≥ 10 keeps level 2."""
    g = Game()
    g.play(founding())
    _to_level_two(g)
    adj = [{"event": "gm_adjustment", "field": "population", "value": 4, "reason": "famine"}]
    g.play(quiet_year(start={"choices": {"new_session": False, "gm_events": adj}}, end={"rolls": {"hold.hold": [9]}}))
    assert g.state.level == 2


# --- §2.2 corruption ----------------------------------------------------------------------------


def test_corruption_at_the_score_does_not_wrap_one_more_does() -> None:
    """§2.2 / A5: with score 13, 13 points stay (13, 0); 14 points wrap to (1, −1)."""
    assert R.add_points(Track(), 13, 13) == Track(points=13, modifier=0)
    assert R.add_points(Track(), 14, 13) == Track(points=1, modifier=-1)


def test_corruption_wraps_several_times_and_reset_option() -> None:
    """A5: 30 points on score 13 wrap twice to (4, −2); option reset drops the carried points to 0."""
    assert R.add_points(Track(points=2), 28, 13) == Track(points=4, modifier=-2)
    assert R.add_points(Track(points=2), 28, 13, "reset") == Track(points=0, modifier=-1)


def test_removing_points_wraps_up_and_clamps() -> None:
    """§2.2 / A6 / A7: Law and Order from 0 at −1 gives (S − 1, 0); at modifier 0 points clamp at 0."""
    assert R.remove_points(Track(points=0, modifier=-1), 1, 14) == Track(points=13, modifier=0)
    assert R.remove_points(Track(points=3, modifier=-2), 20, 10) == Track(points=3, modifier=0)
    assert R.remove_points(Track(points=2, modifier=0), 5, 13) == Track(points=0, modifier=0)


def _wrap_by_loop(track: Track, n: int, score: int, overflow: str = "carry") -> Track:
    """§2.2 A5 / A6 as written: "while the points exceed the score, wrap" (and back up while under zero)."""
    p, m, s = track.points + n, track.modifier, max(1, score)
    if n >= 0:
        while p > s:
            p, m = (p - s if overflow == "carry" else 0), m - 1
        return Track(points=p, modifier=m)
    while p < 0 and m < 0:
        p, m = p + s, m + 1
    return Track(points=max(0, p), modifier=m)


def test_corruption_wraps_are_counted_as_the_loop_would_count_them() -> None:
    """Issue 28: the wrap is arithmetic, not a loop per score, so a GM's 10,000 steps are as quick as one; on every
    small case it gives what the loop of A5/A6 gives."""
    for pts in range(0, 9):
        for mod in range(-4, 1):
            for n in range(-20, 30):
                for score in range(0, 9):
                    t = Track(points=pts, modifier=mod)
                    got = R.add_points(t, n, score) if n >= 0 else R.remove_points(t, -n, score)
                    assert got == _wrap_by_loop(t, n, score), (pts, mod, n, score)
                    if n >= 0:
                        assert R.add_points(t, n, score, "reset") == _wrap_by_loop(t, n, score, "reset")
    # 10**6 points on score 7: 142,857 wraps down to 1 point
    assert R.add_points(Track(), 10**6, 7) == Track(points=1, modifier=-142857)
    assert R.remove_points(Track(points=0, modifier=-142857), 10**6 - 1, 7) == Track(points=0, modifier=0)


def test_corruption_modifier_applies_to_checks_of_its_ability() -> None:
    """§2.16 / A9: a Decay modifier of −1 lowers Construction (Stability) checks, not Religion (Culture)."""
    g = Game()
    g.play(founding())
    s = g.state.model_copy(update={"tracks": {**g.state.tracks, "decay": Track(points=3, modifier=-1)}})
    _, mods = R.check_modifiers(s, R.CheckSpec(kind="skill", skill="construction"))
    assert sum(m.value for m in mods) == 1 + 2 - 1
    _, mods = R.check_modifiers(s, R.CheckSpec(kind="skill", skill="religion"))
    assert sum(m.value for m in mods) == 2


def test_disaster_pushes_decay_over_the_score_through_events() -> None:
    """§4.2 result 2 / §2.2: Decay 0 + 4d6 (6,6,6,1 = 19) on Stability 13 → 6 points, modifier −1."""
    g = Game()
    g.play(founding())
    g.play(quiet_year(events={"rolls": {"event": [1, 1], "disaster.decay": [6, 6, 6, 1], "disaster.unrest": [2]}}))
    assert g.state.tracks["decay"] == Track(points=6, modifier=-1) and g.state.unrest == 2


def test_asi_corruption_option_steps_and_resets() -> None:
    """§3.2 / A76: four steps; a track at −1 given two steps ends at 0 with points reset (the extra step is lost)."""
    from kingdomlog.rulesets.aikakirjat.events import BenefitChosen
    from kingdomlog.rulesets.aikakirjat.outcomes import benefit_chosen
    from kingdomlog.rulesets.aikakirjat.state import PendingBenefit

    s = KingdomState(options=dict(DEFAULTS), founded=True,
                     tracks={"decadence": Track(points=5, modifier=-2), "crime": Track(points=4, modifier=-1),
                             "corruption": Track(points=1), "decay": Track(points=7, modifier=-1)},
                     pending_benefits=(PendingBenefit(level=3, benefit="asi"),))
    s2 = benefit_chosen(s, BenefitChosen(level=3, benefit="asi", corruption_steps={"decadence": 2, "crime": 2}))
    assert s2.tracks["decadence"] == Track(points=0, modifier=0)
    assert s2.tracks["crime"] == Track(points=0, modifier=0)
    assert s2.tracks["decay"] == Track(points=7, modifier=-1)


# --- §2.8 unrest and §4.7 revolution --------------------------------------------------------------


@pytest.mark.parametrize(("unrest", "mod"), [(0, 0), (4, 0), (5, -1), (9, -1), (10, -2), (19, -3), (20, -4)])
def test_unrest_penalty(unrest: int, mod: int) -> None:
    """§2.8: each full 5 points of Unrest give a cumulative −1."""
    assert R.unrest_modifier(unrest) == mod


def test_unrest_penalty_enters_the_growth_roll() -> None:
    """§2.16 / A12: with Unrest 10 the growth roll (d20 9 + Stability 1 + Agriculture 2) has −2: total 10."""
    g = Game()
    g.play(founding())
    adj = [{"event": "gm_adjustment", "field": "unrest", "delta": 10, "reason": "test"}]
    p = g.play(quiet_year(start={"choices": {"new_session": False, "gm_events": adj}},
                          growth={"rolls": {"growth": [9]}}))
    growth = next(d.payload for d in p.drafts if d.type == "aikakirjat.growth_rolled")
    assert growth.audit["check"]["terms"]["unrest modifier"] == -2 and growth.audit["check"]["total"] == 10


def _unrest_17(g: Game) -> None:
    g.play(founding())


REVOLT = {"event": [1, 1], "disaster.decay": [1, 1, 1, 1], "disaster.unrest": [4],
          "rev.roll": [4, 4], "rev.unrest": [3], "rev.corruption.decadence": [1], "rev.corruption.crime": [2],
          "rev.corruption.corruption": [3], "rev.corruption.decay": [4]}


def test_revolution_when_unrest_reaches_twenty() -> None:
    """§4.7 / A11 / A21 / A22: Unrest 17 + 4 = 21 ≥ 20 → 2d6 = 8 Republic; Unrest 21 − 3 = 18; +d8 per track."""
    g = Game()
    g.play(founding())
    adj = [{"event": "gm_adjustment", "field": "unrest", "delta": 17, "reason": "test"}]
    p = g.play(quiet_year(start={"choices": {"new_session": False, "gm_events": adj}}, events={"rolls": REVOLT}))
    rev = next(d.payload for d in p.drafts if d.type == "aikakirjat.revolution_rolled")
    assert rev.audit["result_key"] == "republic" and rev.cause == "unrest"
    s = g.state
    assert s.government == "republic" and s.unrest == 18
    assert {t: s.tracks[t].points for t in s.tracks} == {"decadence": 1, "crime": 2, "corruption": 3, "decay": 8}
    assert R.score(s, "culture") == 12 and R.score(s, "loyalty") == 16 and R.proficiencies(s) == {
        "diplomacy", "construction"}


def test_no_revolution_below_threshold_or_with_gt20_at_exactly_twenty() -> None:
    """A11: Unrest 16 + 4 = 20 triggers under gte20 (default) but not under the gt20 option."""
    for opt, expect in (("gte20", True), ("gt20", False)):
        g = Game({"revolution_threshold": opt})
        g.play(founding())
        adj = [{"event": "gm_adjustment", "field": "unrest", "delta": 16, "reason": "test"}]
        # typed dice must be rolled: the revolution's only where one is due
        rolls = REVOLT if expect else {k: v for k, v in REVOLT.items() if not k.startswith("rev.")}
        p = g.play(quiet_year(start={"choices": {"new_session": False, "gm_events": adj}}, events={"rolls": rolls}))
        assert ("aikakirjat.revolution_rolled" in [d.type for d in p.drafts]) is expect, opt


def test_revolution_seven_costs_next_years_actions() -> None:
    """§3.5 result 7 / A25: the kingdom is torn apart; next year's action step is only the re-roll (2d6 = 12)."""
    g = Game()
    g.play(founding())
    adj = [{"event": "gm_adjustment", "field": "unrest", "delta": 17, "reason": "test"}]
    rolls = {**{k: v for k, v in REVOLT.items() if not k.startswith("rev.")}, "rev.roll": [3, 4]}  # 7 rolls no more
    g.play(quiet_year(start={"choices": {"new_session": False, "gm_events": adj}}, events={"rolls": rolls},
                      actions={}))
    assert g.state.pending_revolution is True
    refused = g.preview(quiet_year())
    assert not refused.ok and "§4.4.2" in (refused.error or "")
    p = g.play(quiet_year(actions={"choices": {"actions": []}, "rolls": {"rev.roll": [6, 6], "rev.unrest": [5]}}))
    rev = [d.payload for d in p.drafts if d.type == "aikakirjat.revolution_rolled"]
    assert rev[0].cause == "pending" and rev[0].audit["result_key"] == "fizzled"
    assert g.state.pending_revolution is False and g.state.unrest == 21 - 5


# --- §3.9 living space, every unit ---------------------------------------------------------------


def _dc(pop: int, *areas: tuple[float, str, float]) -> int | None:
    terr = tuple(TerritoryArea(area_id=f"a{i}", amount=a, unit=u, quality=q) for i, (a, u, q) in enumerate(areas))  # type: ignore[arg-type]
    return R.growth_dc(KingdomState(options=dict(DEFAULTS), population=pop, territory=terr))


def test_living_space_hexes() -> None:
    """§3.9 population 14 (2 / 3 / 5 / 22 hex): 1 → none, 2 (= minimum) → none (A42), 2.5 → 20, 5 → 10, 22 → 5."""
    assert _dc(14, (1, "hex", 1)) is None
    assert _dc(14, (2, "hex", 1)) is None
    assert _dc(14, (5, "hex", 0.5)) == 20
    assert _dc(14, (5, "hex", 1)) == 10
    assert _dc(14, (22, "hex", 1)) == 5
    assert _dc(4, (2, "hex", 1)) == 10 and _dc(4, (3, "hex", 1)) == 5  # §7.5 row 4: 1/1/1/3


def test_living_space_provinces() -> None:
    """§3.9 population 29 (31 hex / 62 hex / 2 prov / 7 prov); a province is 100 hexes (configurable)."""
    assert _dc(29, (1, "province", 1)) == 20
    assert _dc(29, (2, "province", 1)) == 10
    assert _dc(29, (7, "province", 1)) == 5
    assert _dc(29, (4, "province", 0.25)) == 20
    assert _dc(29, (120, "hex", 1)) == 20  # 120 hexes < 2 provinces of 100
    s = KingdomState(options={**DEFAULTS, "province_hexes": 50}, population=29,
                     territory=(TerritoryArea(area_id="a", unit="hex", amount=120),))
    assert R.growth_dc(s) == 10  # 120 hexes ≥ 2 provinces of 50


def test_living_space_planetary_hexes() -> None:
    """§3.9 population 46 (4 / 7 / 14 / 69 p-hex): 4 (= minimum) → none, 7 → 20, 14 → 10, 69 → 5."""
    assert _dc(46, (4, "phex", 1)) is None
    assert _dc(46, (7, "phex", 1)) == 20
    assert _dc(46, (14, "phex", 1)) == 10
    assert _dc(46, (69, "phex", 1)) == 5


def test_living_space_triangles() -> None:
    """§3.9 population 60 (78 p-hex / 156 p-hex / 1 tri / 6 tri); a triangle is 300 p-hex (A44)."""
    assert _dc(60, (1, "triangle", 1)) == 10
    assert _dc(60, (6, "triangle", 1)) == 5
    assert _dc(60, (200, "phex", 1)) == 20
    assert _dc(60, (78, "phex", 1)) is None


def test_living_space_planets_and_beyond_84() -> None:
    """§3.9 population 84 (4 / 7 / 14 / 66 planet); 85 extrapolates ×1.25 (A44): 14 planets is then only DC 20."""
    assert _dc(84, (7, "planet", 1)) == 20
    assert _dc(84, (14, "planet", 1)) == 10
    assert _dc(84, (66, "planet", 1)) == 5
    assert _dc(85, (14, "planet", 1)) == 20
    assert _dc(79, (1, "triangle", 1)) is None
