"""Golden test: the spec's §7 worked year, reproduced event by event from plans with typed dice."""

from __future__ import annotations

from aik_helpers import Game, founding

from kingdomlog.rulesets.aikakirjat import rules as R


def year_one() -> dict:
    """Year 1 as §7.2 describes it: growth 3 → 4, +1 fame, some corruption and unrest (GM-recorded)."""
    adj = [{"event": "gm_adjustment", "field": f, "delta": d, "reason": "accumulated in year 1 (§7.2)"}
           for f, d in (("crime", 2), ("corruption", 1), ("decay", 2), ("unrest", 3))]
    return {"steps": {
        "start": {"choices": {"gm_events": adj, "new_session": True}, "rolls": {"years": [1, 1, 1, 1, 1]}},
        "events": {"rolls": {"event": [3, 4]}},
        "growth": {"rolls": {"growth": [9]}},
        "actions": {"choices": {"actions": [{"action": "tax_collection", "take_advantage": False}]},
                    "rolls": {"a1.check": [8]}},
    }}


YEAR_TWO = {"steps": {
    "start": {"rolls": {"levy": [5]}},
    "events": {"rolls": {"event": [1, 1], "disaster.decay": [3, 5, 4, 2], "disaster.unrest": [4]}},
    "growth": {"rolls": {"growth": [9]}},
    "actions": {"choices": {"actions": [{"action": "reduce_corruption", "target_track": "decay"}]},
                "rolls": {"a1.check": [14], "a1.target": [5]}},
}}


def played() -> tuple[Game, object]:
    g = Game()
    g.play(founding())
    g.play(year_one())
    return g, g.play(YEAR_TWO)


def test_founding_matches_7_1() -> None:
    """§7.1: scores 14/13/14/13, modifiers +2/+1/+2/+1, PB +2, Knight, 1 action, 1 army, area 2 hexes."""
    g = Game()
    g.play(founding())
    s = g.state
    assert [R.score(s, a) for a in ("culture", "economy", "loyalty", "stability")] == [14, 13, 14, 13]
    assert [R.ability_modifier(s, a) for a in ("culture", "economy", "loyalty", "stability")] == [2, 1, 2, 1]
    assert (R.proficiency_bonus(s), R.title(s), R.actions_per_year(s), R.armies_max(s)) == (2, "Knight", 1, 1)
    assert R.proficiencies(s) == {"agriculture", "defense", "construction"}
    assert (R.effective_area(s), s.population, s.militia, s.levy_dice, R.levy_die(s)) == (2, 3, 0, 0, 6)
    assert R.militia_damage_die(s) == 4


def test_state_before_year_two_matches_7_2() -> None:
    """§7.2: level 1 / fame 1, population 4 (rose), militia 0, unrest 3, Crime 2, Corruption 1, Decay 2."""
    g = Game()
    g.play(founding())
    g.play(year_one())
    s = g.state
    assert (s.year, s.level, s.fame, s.population, s.population_rose_last_year) == (1, 1, 1, 4, True)
    assert (s.militia, s.levy_dice, s.unrest, R.unrest_modifier(s.unrest)) == (0, 0, 3, 0)
    assert {t: (v.points, v.modifier) for t, v in s.tracks.items()} == {
        "decadence": (0, 0), "crime": (2, 0), "corruption": (1, 0), "decay": (2, 0)}


def test_event_stream_matches_8_5() -> None:
    """§8.5: the eight events of year 2, in order, with the key fields of the table."""
    _, p = played()
    types = [d.type.split(".")[1] for d in p.drafts]  # type: ignore[attr-defined]
    assert types == ["year_started", "levy_die_gained", "random_event_rolled", "natural_disaster_resolved",
                     "growth_rolled", "action_taken", "fame_gained", "year_ended"]
    ev = [d.payload for d in p.drafts]  # type: ignore[attr-defined]
    assert ev[0].year == 2
    assert [r.faces for r in ev[1].dice] == [(5,)] and ev[1].audit["militia_after"] == 4
    assert ev[2].dice[0].faces == (1, 1) and ev[2].audit["result_key"] == "natural_disaster"
    assert [r.faces for r in ev[3].dice] == [(3, 5, 4, 2), (4,)]
    assert ev[4].audit["dc"] == 10 and ev[4].audit["check"]["total"] == 10 and ev[4].audit["success"] is True
    assert ev[5].action == "reduce_corruption" and ev[5].target_track == "decay" and ev[5].performer == "kingdom"
    assert ev[5].audit["check"]["total"] == 15 and ev[5].audit["band"] == "10-19"
    assert ev[5].audit["target_reduction"] == 5
    assert (ev[6].amount, ev[6].source) == (1, "survived_year")
    assert ev[7].year == 2


def test_step_by_step_state_matches_7_9() -> None:
    """§7.9: the state after steps 0, 1, 2, 3 and 5 of year 2."""
    _, p = played()
    steps = {sp.phase.id: sp.state_after for sp in p.steps}  # type: ignore[attr-defined]

    def row(s):  # (year, fame, population, militia, levy, unrest, unrest mod, decay points/mod)
        return (s.year, s.fame, s.population, s.militia, s.levy_dice, s.unrest, R.unrest_modifier(s.unrest),
                s.tracks["decay"].points, s.tracks["decay"].modifier)

    assert row(steps["start"]) == (2, 1, 4, 4, 1, 3, 0, 2, 0)
    assert row(steps["events"]) == (2, 1, 4, 4, 1, 7, -1, 3, -1)
    assert row(steps["growth"]) == (2, 1, 5, 4, 1, 7, -1, 3, -1)
    assert row(steps["actions"]) == (2, 1, 5, 4, 1, 7, -1, 11, 0)
    assert row(steps["end"]) == (2, 2, 5, 4, 1, 7, -1, 11, 0)
    end = steps["end"]
    assert end.population_rose_last_year is True and end.omen_modifier == 0
    assert {t: (v.points, v.modifier) for t, v in end.tracks.items() if t != "decay"} == {
        "decadence": (0, 0), "crime": (2, 0), "corruption": (1, 0)}


def test_growth_and_action_breakdowns_match_7_5_and_7_6() -> None:
    """§7.5 / §7.6: d20 9 +1 +2 −1 −1 = 10 and d20 14 +1 +2 −1 −1 = 15, term by term."""
    _, p = played()
    growth = p.drafts[4].payload.audit["check"]  # type: ignore[attr-defined]
    assert growth["terms"] == {"d20": 9, "stability modifier": 1, "proficiency (agriculture)": 2,
                               "decay modifier": -1, "unrest modifier": -1}
    act = p.drafts[5].payload.audit["check"]  # type: ignore[attr-defined]
    assert act["terms"] == {"d20": 14, "stability modifier": 1, "proficiency (construction)": 2,
                            "decay modifier": -1, "unrest modifier": -1}


def test_replay_of_the_log_gives_the_same_state() -> None:
    """§8.1: the fold of the recorded events reproduces the state without rolling."""
    from aik_helpers import RS

    from kingdomlog.core.fold import replay

    g, _ = played()
    assert replay(RS, g.events).model_dump() == g.state.model_dump()


def test_no_levy_die_next_year_at_the_cap() -> None:
    """§7.8 step 4: population rose again, but levy dice (1) equal the level-1 cap, so none is gained."""
    g, _ = played()
    p = g.play({"steps": {"events": {"rolls": {"event": [3, 4]}}}})
    assert "aikakirjat.levy_die_gained" not in [d.type for d in p.drafts]


def test_explain_and_summary_after_the_worked_year() -> None:
    """Every number explainable: §7's end state summarised and broken down (scores, growth DC of row 5, skills)."""
    from aik_helpers import RS

    g, _ = played()
    summ = RS.summary(g.state)
    assert (summ["year"], summ["fame"], summ["population"], summ["militia"], summ["unrest"]) == (2, 2, 5, 4, 7)
    assert (summ["decay_points"], summ["decay_modifier"], summ["title"]) == (11, 0, "Knight")
    assert summ["actions_per_year"] == 1
    assert summ["growth_dc"] == 10  # population 5 row: 1/1/1/3 hexes, area 2
    bd = {b.name: b for b in RS.explain(g.state)}
    assert bd["culture score"].total == 14 and [t.label for t in bd["culture score"].terms] == [
        "base", "government (feudalism)"]
    assert bd["construction bonus"].total == 1 + 2 - 1  # Stability +1, proficiency +2, unrest −1
    assert bd["growth DC"].total == 10 and "sparse 3" in bd["growth DC"].note
    assert RS.render(g.state).startswith("Esimerkki Y2 L1 Knight feudalism fame 2 pop 5 mil 4")
