"""The kingdom feats the port left to the GM, now as data (published feat texts; data/feats.toml): Kingdom
Assurance, Pull Together, Crush Dissent, Liquidate Resources, Quality of Life, Civil Service, Cooperative
Leadership, Free and Fair's re-roll, Endure Anarchy's threshold. Numbers worked by hand in each test."""

from __future__ import annotations

from typing import Any

from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.state import KingdomState, anarchy_threshold, check_modifier, penalized_roles

from .helpers import Game, events_of, step_state


def _with(g: Game, *feats: str, **upd: Any) -> Game:
    g.state = g.state.model_copy(update={"feats": (*g.state.feats, *feats), **upd})
    return g


def _quell(g: Game, die: int | None, **row: Any) -> Any:
    rolls: dict[str, Any] = {} if die is None else {"rolls": {"a1": [die]}}
    return g.play({"activity.leadership": {"choices": {"activities": [
        {"activity": "quell-unrest", "role": "ruler", "skill": "politics", **row}]}, **rolls}}, check=False)


def test_every_feat_is_data() -> None:
    """All 17 feats carry effects (Skill Training grants a skill); a GM note only for what lies outside the
    kingdom state (Quality of Life's magic items) or which events the text leaves open."""
    feats = T.base_feats()
    assert len(feats) == 17
    for f in feats.values():
        assert f.effects or f.grants, f.name


def test_kingdom_assurance_takes_10_plus_proficiency() -> None:
    """Kingdom Assurance (Politics): no roll; the result is 10 + proficiency (trained, level 1: 3) = 13 against DC
    14: a failure whatever else the kingdom has; once per turn per skill."""
    g = _with(Game().found(), "kingdom-assurance", feat_choices={"kingdom-assurance": ("politics",)})
    pv = _quell(g, None, assurance=True)
    assert pv.ok, pv.error
    chk = next(e for e in events_of(pv, "activity.leadership") if isinstance(e, E.CheckResolved))
    assert (chk.die, chk.modifier, chk.total, chk.assurance, chk.degree) == (10, 3, 13, True, "failure")
    g2 = _with(Game().found(), "kingdom-assurance", feat_choices={"kingdom-assurance": ("arts",)})
    bad = _quell(g2, None, assurance=True)
    assert not bad.ok and "Kingdom Assurance is not taken for politics" in str(bad.error)


def test_pull_together_turns_a_critical_failure_into_a_failure() -> None:
    """Pull Together: a critical failure (natural 1 on Quell Unrest) becomes a failure on a DC 11 flat check (12
    succeeds); the next use's DC is 16 (counter)."""
    g = _with(Game().found(), "pull-together")
    pv = g.play({"activity.leadership": {"choices": {"activities": [
        {"activity": "quell-unrest", "role": "ruler", "skill": "politics"}]},
        "rolls": {"a1": [1], "a1.pull": [12]}}})
    ev = events_of(pv, "activity.leadership")
    changed = [e for e in ev if isinstance(e, E.DegreeChanged)]
    assert [(c.degree_from, c.degree_to) for c in changed] == [("critical_failure", "failure")]
    assert step_state(pv, "activity.leadership").counters["pull-together"] == 16
    assert not any(isinstance(e, E.UnrestChanged) for e in ev)  # a failure of Quell Unrest does nothing


def test_crush_dissent_cancels_the_first_unrest_gain() -> None:
    """Crush Dissent (opted into by the step): the first Unrest gain (Quell Unrest's critical failure, 1d4 = 3)
    is met by a Warfare check vs the Control DC 14; a success cancels it."""
    g = _with(Game().found(), "crush-dissent")
    g.state = g.state.model_copy(update={"skills": {**g.state.skills, "warfare": "trained"}})
    pv = g.play({"activity.leadership": {"choices": {"activities": [
        {"activity": "quell-unrest", "role": "ruler", "skill": "politics", "option": 0}], "crush_dissent": True},
        "rolls": {"a1": [1], "a1.e1.o0.e1": [3], "crush": [15]}}}, check=False)
    assert pv.ok, pv.error
    ev = events_of(pv, "activity.leadership")
    crush = [e for e in ev if isinstance(e, E.CheckResolved) and e.activity == "crush-dissent"]
    assert crush and crush[0].degree in ("success", "critical_success")
    assert not any(isinstance(e, E.UnrestChanged) and e.delta > 0 for e in ev)


def test_liquidate_resources_leaves_one_rp() -> None:
    """Liquidate Resources: 3 RP (5 dice - 2 pending penalty = 3d4 all 1); Craft Luxuries' forced 1 RD cost (d4 4)
    would empty the treasury and add a Ruin; the feat leaves 1 RP, no Ruin, and 4 fewer Resource Dice next turn."""
    g = _with(Game().found(), "liquidate-resources")
    g.state = g.state.model_copy(update={"pending": g.state.pending.model_copy(update={"penalty_dice": 2})})
    pv = g.play({"upkeep.resources": {"rolls": {"resource": [1, 1, 1]}},
                 "commerce.taxes": {"choices": {"mode": "none"}},
                 "activity.leadership": {"choices": {"activities": [
                     {"activity": "craft-luxuries", "role": "counselor"}], "liquidate_resources": True},
                     "rolls": {"a1": [10], "a1.cost": [4]}}}, check=False)
    assert pv.ok, pv.error
    s = step_state(pv, "activity.leadership")
    assert s.rp == 1 and s.pending.penalty_dice == 4
    assert not any(isinstance(e, E.RuinChanged) for e in events_of(pv, "activity.leadership"))


def test_quality_of_life_adds_a_luxury_to_the_first_gain() -> None:
    """Quality of Life: Craft Luxuries' success (+1 Luxuries) gives 2 the first time in a turn."""
    g = _with(Game().found(), "quality-of-life")
    pv = g.play({"activity.leadership": {"choices": {"activities": [
        {"activity": "craft-luxuries", "role": "ruler"}]}, "rolls": {"a1": [15]}}})
    gain = [e for e in events_of(pv, "activity.leadership") if isinstance(e, E.CommodityChanged)
            and e.commodity == "luxuries"]
    assert [g.delta for g in gain] == [2]


def test_civil_service_spares_the_chosen_role_its_vacancy_penalty() -> None:
    """Civil Service (role: magister): the vacant Magister's penalty does not apply; +2 status to New Leadership."""
    base = Game().found().state
    assert "magister" in penalized_roles(base)
    s: KingdomState = base.model_copy(update={"feats": (*base.feats, "civil-service"),
                                              "feat_choices": {"civil-service": ("magister",)}})
    assert "magister" not in penalized_roles(s)
    lead = [t for t in check_modifier(s, "politics", activity="new-leadership").terms
            if t.label == "feat Civil Service"]
    assert [(t.value, t.kind) for t in lead] == [(2, "status")]


def test_cooperative_leadership_makes_focused_attention_plus_3() -> None:
    g = _with(Game(options={"unlock_all_activities": True}).found(), "cooperative-leadership")
    pv = g.play({"activity.leadership": {"choices": {"activities": [
        {"activity": "focused-attention", "role": "ruler", "skill": "politics"}]}, "rolls": {"a1": [19]}}})
    mods = [m for m in step_state(pv, "activity.leadership").modifiers if m.selector == "skill == politics"]
    assert [(m.value, m.expires) for m in mods] == [(3, "once")]


def test_a_once_modifier_is_used_up_by_the_next_check() -> None:
    """Focused Attention's +2 (once) applies to the next Politics check and is consumed (recorded)."""
    g = Game(options={"unlock_all_activities": True}).found()
    pv = g.play({"activity.leadership": {"choices": {"activities": [
        {"activity": "focused-attention", "role": "ruler", "skill": "politics"},
        {"activity": "quell-unrest", "role": "counselor", "skill": "politics"}]},
        "rolls": {"a1": [19], "a2": [10]}}})
    quell = [e for e in events_of(pv, "activity.leadership") if isinstance(e, E.CheckResolved)][1]
    assert len(quell.consumed) == 1
    assert all(m.expires != "once" for m in step_state(pv, "activity.leadership").modifiers)


def test_endure_anarchy_raises_the_anarchy_threshold_by_4() -> None:
    base = Game().found().state
    assert anarchy_threshold(base) == 20
    assert anarchy_threshold(base.model_copy(update={"feats": (*base.feats, "endure-anarchy")})) == 24


def test_a_feats_opt_in_is_offered_only_to_a_kingdom_with_the_feat() -> None:
    """Crush Dissent and Liquidate Resources are step choices the rules ignore without the feat: the form leaves
    them out (fewer widgets on the sheet), shows them once the kingdom has the feat, and keeps one a plan sets."""
    from .helpers import RS

    g = Game().found()

    def names(state: KingdomState, step: str, values: dict[str, Any] | None = None) -> set[str]:
        return {s.name for s in RS.choices(state, g.turn, step, values)}

    for step in ("upkeep.unrest", "commerce.taxes", "activity.leadership", "event.resolve"):
        plain = names(g.state, step)
        assert "crush_dissent" not in plain and "liquidate_resources" not in plain, step
        assert "avert_ruin_penalty_with_fame" in plain, step  # not a feat's: always offered
        assert {"crush_dissent"} <= names(g.state, step, {"crush_dissent": True}), step
    with_feats = _with(Game().found(), "crush-dissent", "liquidate-resources").state
    assert {"crush_dissent", "liquidate_resources"} <= names(with_feats, "commerce.taxes")
