"""The growth session planner (§4.0) and its policies: resumed sessions end where their rolled length says,
a changed year recomputes the rest, and the steward's choices and reasons follow the rules' own numbers.

All pure: states are played in memory (``aik_helpers.Game``), nothing touches a store.
"""

from __future__ import annotations

from typing import Any

import pytest
from aik_helpers import RS, Game
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kingdomlog.core.errors import InputError, RuleError
from kingdomlog.core.turn import Plan, preview_turn
from kingdomlog.rulesets.aikakirjat import policy as P
from kingdomlog.rulesets.aikakirjat.samples import sample_founding
from kingdomlog.rulesets.aikakirjat.session import YearRefused, plan_session, session_status
from kingdomlog.rulesets.aikakirjat.state import KingdomState, PendingBenefit, Track


def founded() -> Game:
    g = Game()
    g.play({"steps": {"founding": {"choices": sample_founding()}}})
    return g


def play_years(g: Game, years: list[Any]) -> None:
    for y in years:
        g.play(y.plan.model_dump())


def types(year: Any) -> list[str]:
    """The aikakirjat events of a planned year (its reasons, recorded as a GM note, left out)."""
    return [d.type.split(".", 1)[1] for d in year.drafts if d.type.startswith("aikakirjat.")]


# --- resuming a session -----------------------------------------------------------------------------------------


def test_a_resumed_session_plays_exactly_the_years_that_remain() -> None:
    """§4.0: 5d10 typed 6+6+6+6+6 = 30 years; 3 are played, so the resumed plan holds the 27 that remain (the old
    planner played 46: it ran on into a new session). The last year ends session 1; no year starts a session."""
    g = founded()
    first = plan_session(g.state, campaign="test", first_turn=1, seed="s", years=3,
                         overrides={1: {"start": {"rolls": {"years": [6, 6, 6, 6, 6]}}}})
    assert not first.complete and [y.turn for y in first.years] == [1, 2, 3]
    play_years(g, list(first.years))
    status = session_status(g.state)
    assert (status.under_way, status.years_played, status.years_total, status.remaining) == (True, 3, 30, 27)
    rest = plan_session(g.state, campaign="test", first_turn=g.turn, seed="s")
    assert len(rest.years) == 27 and rest.complete
    assert [y.turn for y in rest.years] == list(range(4, 31))
    assert all(y.plan.steps["start"].choices["new_session"] is False for y in rest.years)
    assert not any("session_started" in types(y) for y in rest.years)
    assert types(rest.years[-1])[-1] == "session_ended"
    last = rest.state_after.session
    assert (last.session_no, last.years_played, last.years_total) == (1, 30, 30)


def test_a_played_out_session_plans_a_new_one() -> None:
    """§4.0: after a session's last year the next plan starts session 2 with its own 5d10 (2+2+2+2+2 = 10)."""
    g = founded()
    short = plan_session(g.state, campaign="test", first_turn=1, seed="s",
                         overrides={1: {"start": {"rolls": {"years": [1, 1, 1, 1, 1]}}}})
    assert len(short.years) == 5
    play_years(g, list(short.years))
    nxt = plan_session(g.state, campaign="test", first_turn=6, seed="t",
                       overrides={6: {"start": {"rolls": {"years": [2, 2, 2, 2, 2]}}}})
    assert len(nxt.years) == 10 and nxt.session_no == 2
    assert "session_started" in types(nxt.years[0]) and nxt.years[0].plan.steps["start"].choices["new_session"]


def test_the_planner_decides_when_a_session_starts() -> None:
    """§4.0: an override that starts a session while one is under way (or keeps none in the first year of a new
    one) is refused, naming the year and the step."""
    g = founded()
    part = plan_session(g.state, campaign="test", first_turn=1, seed="s", years=1)
    play_years(g, list(part.years))
    with pytest.raises(YearRefused, match="a session is under way") as exc:
        plan_session(g.state, campaign="test", first_turn=2, seed="s",
                     overrides={3: {"start": {"choices": {"new_session": True}}}})
    assert (exc.value.turn, exc.value.step) == (3, "start")
    with pytest.raises(YearRefused, match="no session is under way"):
        plan_session(founded().state, campaign="test", first_turn=1, seed="s",
                     overrides={1: {"start": {"choices": {"new_session": False}}}})


# --- changing a year ---------------------------------------------------------------------------------------------


def test_changing_one_year_recomputes_the_rest_and_keeps_the_earlier_years() -> None:
    """A GM override of year 4's action: years 1–3 are unchanged, year 4 takes the GM's action, and the later
    years are planned again from the new state (their dice keys are the same, so each year's random event
    roll is unchanged)."""
    g = founded()
    base = plan_session(g.state, campaign="test", first_turn=1, seed="s", years=8)
    tax = {4: {"actions": {"choices": {"actions": [{"action": "tax_collection"}]}}}}
    changed = plan_session(g.state, campaign="test", first_turn=1, seed="s", years=8, overrides=tax)
    for a, b in zip(base.years[:3], changed.years[:3], strict=True):
        assert a.plan == b.plan and a.state_after == b.state_after
    assert changed.years[3].plan.steps["actions"].choices["actions"] == [{"action": "tax_collection"}]
    assert "actions: actions set by the GM" in changed.years[3].reasons
    assert changed.years[3].overridden == ("actions",)

    def event_roll(y: Any) -> tuple[int, ...]:
        return next(r.faces for r in y.rolls if r.key == "event")

    assert [event_roll(y) for y in base.years] == [event_roll(y) for y in changed.years]


def test_a_refused_override_names_its_year_and_step() -> None:
    """§2.9: two actions at level 1 are refused in year 2's actions step, not silently dropped."""
    two = {2: {"actions": {"choices": {"actions": [{"action": "tax_collection"}, {"action": "tax_collection"}]}}}}
    with pytest.raises(YearRefused, match=r"§2\.9") as exc:
        plan_session(founded().state, campaign="test", first_turn=1, seed="s", overrides=two)
    assert (exc.value.turn, exc.value.step) == (2, "actions")
    typo = {2: {"growth": {"rolls": {"grwth": [5]}}}}
    with pytest.raises(YearRefused, match="does not roll grwth"):
        plan_session(founded().state, campaign="test", first_turn=1, seed="s", overrides=typo)


def test_every_planned_year_replays_through_preview_turn() -> None:
    """What the planner shows is what ``kingdomlog turn`` plays: each plan, previewed alone, gives its state."""
    g = founded()
    sp = plan_session(g.state, campaign="test", first_turn=1, seed="s", years=6, verify=False)
    s = g.state
    for y in sp.years:
        p = preview_turn(RS, s, Plan.parse(y.plan.model_dump()), campaign="test", turn=y.turn, start_seq=0)
        assert p.ok, p.error
        assert p.state_after == y.state_after
        assert [d.type for d in p.drafts] == [d.type for d in y.drafts]
        s = p.state_after


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.text(min_size=1, max_size=6), played=st.integers(min_value=0, max_value=6))
@example(seed='&f"\x8eU/', played=0)  # the kingdom falls in year 15 of a 33-year session
def test_any_session_ends_at_its_rolled_length(seed: str, played: int) -> None:
    """Property (§4.0): whatever the dice and however many years were already played, the planned years and the
    played ones add up to the rolled 5d10, and only the last planned year ends the session; unless the kingdom
    falls in a war, which ends the session in the year it falls."""
    g = founded()
    head = plan_session(g.state, campaign="test", first_turn=1, seed=seed, years=played, verify=False) if played \
        else None
    if head is not None:
        play_years(g, list(head.years))
    if head is not None and head.complete:
        return
    rest = plan_session(g.state, campaign="test", first_turn=g.turn, seed=seed, verify=False)
    total = rest.state_after.session.years_total
    if rest.state_after.fallen:  # the kingdom fell in a war (§4.8): the session ends with it, short of its length
        assert rest.complete and 5 <= total <= 50 and played + len(rest.years) < total
        assert "war_ended" in types(rest.years[-1]) and not any(y.state_after.fallen for y in rest.years[:-1])
        return
    assert 5 <= total <= 50 and played + len(rest.years) == total
    ends = [i for i, y in enumerate(rest.years) if "session_ended" in types(y)]
    assert ends == [len(rest.years) - 1]


# --- the odds the steward reads ------------------------------------------------------------------------------------


def test_chances_computed_by_hand() -> None:
    """§2.16: d20 + 2 ≥ 15 needs 13+: 8 in 20 = 40%; with advantage 1 − (12/20)² = 64%; disadvantage (8/20)² = 16%.
    Tax Collection at Bureaucracy +1 (§3.10.5): below 5 is d20 1–3 (15%), 15–24 is 14–20 (35%)."""
    assert P.chance_at_least(2, 15) == 0.4
    assert P.chance_at_least(2, 15, "advantage") == pytest.approx(0.64)
    assert P.chance_at_least(2, 15, "disadvantage") == pytest.approx(0.16)
    odds = P.band_chances("tax_collection", 1)
    assert odds == pytest.approx({"tyranny": 0.15, "year_advantage": 0.5, "store_one": 0.35, "store_two": 0.0})


# --- the steward's choices -------------------------------------------------------------------------------------------


def state(**over: Any) -> KingdomState:
    """The sample kingdom, founded and between years, with ``over`` changed."""
    return founded().state.model_copy(update=over)


def test_unrest_at_the_alarm_goes_to_a_pc_first() -> None:
    """§3.10.7: Unrest 9 ≥ alarm 8: the first action is Reduce Unrest by the highest-level resident PC (Ilmari,
    level 6). With bonus +0 and Unrest −1, Persuasion lowers it on 15+ (d20 16+, 25%); Intimidation would also
    raise it on d20 1–5 (25%), so auto picks Persuasion."""
    c = P.steward_actions(state(unrest=9), P.STEWARD)
    first = c.choices["actions"][0]
    assert first == {"action": "reduce_unrest", "performer": "pc", "pc_id": "ilmari", "pc_bonus": 0,
                     "skill": "persuasion"}
    assert "Unrest 9 has reached the alarm 8" in c.reasons[0] and "25%" in c.reasons[0]


def test_intimidation_when_it_cannot_backfire() -> None:
    """A PC with Intimidation +10 cannot roll below 5 (1 + 10 − 1 = 10): auto takes the bigger reduction."""
    pol = P.STEWARD.model_copy(update={"unrest_bonus": 10})
    c = P.steward_actions(state(unrest=9), pol)
    assert c.choices["actions"][0]["skill"] == "intimidation"


def test_no_risky_action_near_the_revolution_threshold() -> None:
    """§4.7: at Unrest 17 a tyranny result (+1d4) of Reduce Corruption could reach 20. With no PC free the
    steward skips it and attracts population instead (no Unrest risk), saying why."""
    s = state(unrest=17, pcs={}, tracks={**founded().state.tracks, "decay": Track(points=3, modifier=-1)})
    c = P.steward_actions(s, P.STEWARD)
    assert c.choices["actions"][0]["action"] == "attract_population"
    assert "reduce corruption" in c.reasons[0] and "starts a revolution" in c.reasons[0]


def test_a_broken_track_is_repaired() -> None:
    """§3.10.4: Decay at −1 and Unrest low: Reduce Corruption of Decay with Construction (Stability +1 + 2 −1)."""
    s = state(tracks={**founded().state.tracks, "decay": Track(points=3, modifier=-1)})
    c = P.steward_actions(s, P.STEWARD)
    assert c.choices["actions"][0] == {"action": "reduce_corruption", "target_track": "decay"}
    assert "decay is at modifier -1" in c.reasons[0] and "Construction check (+2)" in c.reasons[0]


def test_no_people_from_a_neighbour_an_incident_would_turn_to_war() -> None:
    """§3.8 / A40: Tuonela at −5 and larger than us (5 > 3): an incident (−1d6) could bring it to −8 and war; the
    steward attracts from Kalevala (+2) and, once Kalevala is empty, not from Tuonela."""
    s = state()
    assert P.incident_war(s, "tuonela") and not P.incident_war(s, "kalevala")
    nb = {**s.neighbours, "kalevala": s.neighbours["kalevala"].model_copy(update={"population": 0})}
    c = P.steward_actions(s.model_copy(update={"neighbours": nb}), P.STEWARD)
    assert all(a.get("neighbour_id") != "tuonela" or a["action"] == "embassy" for a in c.choices["actions"])


def test_a_stored_advantage_goes_to_a_hard_growth_roll() -> None:
    """§2.11 / §4.3: population 13 on 3 hexes: DC 20; Agriculture +1 + 2 = +3 needs d20 17+ (20%), with advantage
    1 − (16/20)² = 36%: spend (below 75%, +16 points)."""
    s = state(population=13, stored_advantages=1)
    c = P.steward_growth(s, P.STEWARD)
    assert c.choices["spend_stored"] is True and "20% → 36%" in c.reasons[0]
    assert P.steward_growth(s, P.STEWARD.model_copy(update={"spend_on": ("hold",)})).choices["spend_stored"] is False
    assert P.steward_growth(s, P.STEWARD.model_copy(update={"keep_stored": 1})).choices["spend_stored"] is False


def test_take_10_on_a_growth_roll_it_makes() -> None:
    """§3.6 Competent Administration: DC 10 (population 6) and Agriculture +3: 10 + 3 makes it for sure."""
    from kingdomlog.rulesets.aikakirjat.state import FeatTaken

    s = state(population=6, feats=(FeatTaken(feat="competent_administration"),))
    c = P.steward_growth(s, P.STEWARD)
    assert c.choices["take_10"] is True and "for sure" in c.reasons[0]


def test_benefits_follow_the_preferences_and_the_prerequisites() -> None:
    """§3.6: Census needs Bureaucracy (skipped), Competent Administration is taken; the ASI takes the corruption
    steps when two or more can be used (A76), else +2 to the policy's ability."""
    pol = P.STEWARD.model_copy(update={"feats": ("census", "competent_administration")})
    s = state(pending_benefits=(PendingBenefit(level=2, benefit="feat"), PendingBenefit(level=3, benefit="asi")))
    chosen = P.choose_benefits(s, pol)
    assert chosen[0] == {"level": 2, "benefit": "feat", "feat": "competent_administration"}
    assert chosen[1] == {"level": 3, "benefit": "asi", "abilities": {"stability": 2}}
    bad = {**s.tracks, "crime": Track(points=1, modifier=-2), "decay": Track(points=1, modifier=-1)}
    steps = P.choose_benefits(s.model_copy(update={"tracks": bad}), pol)[1]
    assert sum(steps["corruption_steps"].values()) == 4 and set(steps["corruption_steps"]) == {"crime", "decay"}


def test_the_simple_policy_is_the_rules_defaults() -> None:
    """``simple`` gives exactly ``decide.default_choices`` for every step."""
    from kingdomlog.rulesets.aikakirjat.decide import default_choices

    s = state()
    for step in ("start", "events", "growth", "actions", "end"):
        assert P.step_choices(s, step, P.SIMPLE).choices == default_choices(s, step)


def test_policy_settings_from_the_command_line() -> None:
    pol = P.parse_policy(["unrest_alarm=5", "spend_on=growth", "unrest_performer=aino"])
    assert (pol.unrest_alarm, pol.spend_on, pol.unrest_performer) == (5, ("growth",), "aino")
    with pytest.raises(InputError, match="unknown setting 'alarm'"):
        P.parse_policy(["alarm=5"])
    with pytest.raises(InputError, match="unrest_alarm"):
        P.parse_policy(["unrest_alarm=50"])
    with pytest.raises(InputError, match="steward or simple"):
        P.parse_policy(["greedy"])


def test_the_policy_benchmark_counts_what_it_says() -> None:
    """benchmarks/bench_policy.py on two seeds: its counts agree with the sessions' own events and states."""
    from benchmarks import bench_policy as B

    rows = [B.one_session(("steward", i)) for i in range(2)]
    sp = plan_session(B.start_state(), campaign=B.CAMPAIGN, first_turn=1, seed="bench-1", policy=P.STEWARD,
                      verify=False)
    assert rows[1]["years"] == len(sp.years) and rows[1]["population"] == sp.state_after.population
    assert rows[1]["revolutions"] == sum(1 for y in sp.years for d in y.drafts if d.type.endswith("revolution_rolled"))
    gained = sum(rows[1]["unrest_gained"].values())
    assert gained >= sp.state_after.unrest - B.start_state().unrest
    summary = B.summarise(rows)
    assert summary["sessions"] == 2 and sum(summary["level_reached"].values()) == 2
    assert B.source_words("action_taken:tax_collection") == "tax collection"


def test_changes_to_years_outside_the_plan_are_refused() -> None:
    """A change to a year already played, or after the session's last year, would be silently lost: refused."""
    g = founded()
    part = plan_session(g.state, campaign="test", first_turn=1, seed="s", years=2)
    play_years(g, list(part.years))
    with pytest.raises(RuleError, match=r"changed year\(s\) 2 are not in the plan .* already played"):
        plan_session(g.state, campaign="test", first_turn=3, seed="s", overrides={2: {"actions": {}}})
    full = plan_session(g.state, campaign="test", first_turn=3, seed="s")
    late = full.years[-1].turn + 1
    with pytest.raises(RuleError, match="after the session's end"):
        plan_session(g.state, campaign="test", first_turn=3, seed="s", overrides={late: {"actions": {}}})
    assert plan_session(g.state, campaign="test", first_turn=3, seed="s", years=2, overrides={late: {}}).years
    with pytest.raises(YearRefused, match="step 'actions'"):
        plan_session(g.state, campaign="test", first_turn=3, seed="s", overrides={4: {"actions": {"choice": {}}}})
