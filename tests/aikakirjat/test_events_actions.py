"""Random events, the neighbour sub-table and the actions, computed by hand (§3.7, §3.8, §3.10, §4.2)."""

from __future__ import annotations

from typing import Any

from aik_helpers import Game, quiet_year

from kingdomlog.core.fold import default_context
from kingdomlog.rulesets.aikakirjat.samples import sample_founding


def game() -> Game:
    """Pohjola (samples): §7 scores, Feudalism + Construction; Kalevala (diplomacy 2), Tuonela (−5, pop 5)."""
    g = Game()
    g.play({"steps": {"founding": {"choices": sample_founding()}}})
    return g


def drafts(p: Any, kind: str) -> list[Any]:
    return [d.payload for d in p.drafts if d.type == f"aikakirjat.{kind}"]


def test_omens_carry_to_the_next_roll_and_reach_result_1() -> None:
    """§3.7 / A31: 2d6 = 5 (bad omens) sets −1; next year 1+1−1 = 1: evil on the GM's ability (A30)."""
    g = game()
    g.play(quiet_year(events={"rolls": {"event": [2, 3]}}))
    assert g.state.omen_modifier == -1
    p = g.play(quiet_year(events={"rolls": {"event": [1, 1]}, "choices": {"evil_ability": "loyalty"}}))
    ev = drafts(p, "random_event_rolled")[0]
    assert ev.audit == {"omen": -1, "total": 1, "result_key": "evil_manifested"}
    assert g.state.evil_presence == {"loyalty": -1} and g.state.omen_modifier == 0


def test_plague_arithmetic() -> None:
    """§4.2 result 3 / A34: Stability d20 14 + 1 = 15 ≥ 15 → 10%; no Religion proficiency; ceil(3 × 10%) = 1."""
    g = game()
    p = g.play(quiet_year(events={"rolls": {"event": [1, 2], "plague.stability": [14], "plague.unrest": [3]}},
                          growth={"rolls": {"growth": [1]}}))
    pl = drafts(p, "plague_resolved")[0]
    assert (pl.audit["pct"], pl.audit["loss"], pl.audit["unrest"]) == (10, 1, 3)
    assert "religion" not in pl.audit and g.state.population == 2 and g.state.unrest == 3


def test_new_god_embraced_gives_a_cult_on_a_one() -> None:
    """§3.7 result 13: only with a +1 omen; embrace, d6 = 1 → Cult."""
    g = game()
    g.play(quiet_year(events={"rolls": {"event": [4, 5]}}))  # 9: good omens
    p = g.play(quiet_year(events={"rolls": {"event": [6, 6], "god": [1]}}))
    assert drafts(p, "new_god_appeared")[0].audit == {"institution": "cult"}
    assert [i.type for i in g.state.institutions] == ["cult"]


def _neighbour_year(g: Game, rolls: dict[str, list[int]], **choices: Any) -> Any:
    ch = {"neighbour_id": "kalevala", **choices}
    return g.play(quiet_year(events={"rolls": {"event": [4, 6], **rolls}, "choices": ch}))


def test_neighbour_relations_cool_and_warm() -> None:
    """§3.8 d6 1 / 6: Kalevala 2 − 4 = −2, then −2 + 6 = 4."""
    g = game()
    _neighbour_year(g, {"neighbour": [1], "neighbour.diplomacy": [4]})
    assert g.state.neighbours["kalevala"].diplomacy == -2
    _neighbour_year(g, {"neighbour": [6], "neighbour.diplomacy": [6]})
    assert g.state.neighbours["kalevala"].diplomacy == 4


def test_criminals_arrive_opposed_roll() -> None:
    """§3.8 d6 3 / A37: Kalevala's Trade d20 10 + 3 = DC 13; our Defense d20 9 + 1 + 2 = 12 fails: +5 Crime."""
    g = game()
    p = _neighbour_year(g, {"neighbour": [3], "criminals.trade": [10], "criminals.defense": [9],
                            "criminals.crime": [5]})
    ne = drafts(p, "neighbour_event_rolled")[0]
    assert (ne.audit["dc"], ne.audit["defense"]["total"], ne.audit["success"]) == (13, 12, False)
    assert g.state.tracks["crime"].points == 5


def test_succession_crisis_success() -> None:
    """§3.8 d6 5 / A38: DC = Kalevala's Stability score 13; Diplomacy d20 18 + Loyalty 2 = 20; +d6 6 → 8."""
    g = game()
    p = _neighbour_year(g, {"neighbour": [5], "succession.check": [18], "succession.dice": [6]}, participate=True)
    assert drafts(p, "neighbour_event_rolled")[0].audit["success"] is True
    assert g.state.neighbours["kalevala"].diplomacy == 8


def test_hostile_larger_neighbour_declares_war_automatically() -> None:
    """§3.8 / A40: Tuonela −5 − 4 = −9 ≤ −8 and larger (5 > our 3): it declares war; +5 fame for us (§3.3)."""
    g = game()
    p = g.play(quiet_year(events={"rolls": {"event": [4, 6], "neighbour": [1], "neighbour.diplomacy": [4]},
                                  "choices": {"neighbour_id": "tuonela"}},
                          war={"choices": {"orders": {str(t): [] for t in range(1, 5)},
                                           "enemy_orders": {str(t): [] for t in range(1, 5)}}}))
    begun = drafts(p, "war_begun")[0]
    assert (begun.attacker, begun.defender, begun.cause) == ("tuonela", "players", "automatic")
    assert g.state.fame == 5 + 1


def test_embassy_bands() -> None:
    """§3.10.1: Tuonela −5 → DC 15; Aino (Persuasion +5) rolls 10: 15 ≥ 15 → −4; then 1: 6 < 13 − 5 → −5."""
    g = game()
    act = [{"action": "embassy", "performer": "pc", "pc_id": "aino", "pc_bonus": 5, "neighbour_id": "tuonela"}]
    p = g.play(quiet_year(actions={"choices": {"actions": act}, "rolls": {"a1.check": [10]}}))
    a = drafts(p, "action_taken")[0]
    assert (a.audit["dc"], a.audit["check"]["total"], a.audit["band"]) == (15, 15, "improved")
    assert g.state.neighbours["tuonela"].diplomacy == -4 and g.state.pc_assignments_this_year == ()
    p = g.play(quiet_year(actions={"choices": {"actions": act}, "rolls": {"a1.check": [1]}}))
    a = drafts(p, "action_taken")[0]
    assert (a.audit["dc"], a.audit["band"]) == (13, "worsened") and g.state.neighbours["tuonela"].diplomacy == -5


def test_attract_population_with_crime_used_positively() -> None:
    """§3.10.2 / A10: Crime −1 counts +1 instead of −1: d20 13 + Economy 1 + 1 = 15 (one); Crime then +1d6."""
    g = game()
    g.play(quiet_year(start={"choices": {"new_session": True, "gm_events": [
        {"event": "gm_adjustment", "field": "crime", "delta": 14, "reason": "t"}]}}))
    assert g.state.tracks["crime"].modifier == -1
    act = [{"action": "attract_population", "neighbour_id": "kalevala", "use_positive": "crime"}]
    p = g.play(quiet_year(actions={"choices": {"actions": act}, "rolls": {"a1.check": [13], "a1.positive": [2]}}))
    a = drafts(p, "action_taken")[0]
    assert a.audit["check"]["total"] == 15 and a.audit["band"] == "one" and a.audit["positive_points"] == 2
    assert g.state.population == 4 and g.state.neighbours["kalevala"].population == 5
    assert g.state.tracks["crime"].points == 1 + 2


def test_tax_collection_stores_an_advantage_spent_later() -> None:
    """§3.10.5 / §2.11: d20 15 + Economy 1 = 16 stores one advantage; spent on next year's growth roll."""
    g = game()
    g.play(quiet_year(actions={"choices": {"actions": [{"action": "tax_collection"}]}, "rolls": {"a1.check": [15]}}))
    assert g.state.stored_advantages == 1
    p = g.play(quiet_year(growth={"choices": {"spend_stored": True}, "rolls": {"growth": [2, 17]}}))
    gr = drafts(p, "growth_rolled")[0]
    assert gr.audit["check"]["mode"] == "advantage" and gr.audit["check"]["d20"] == 17
    assert g.state.stored_advantages == 0


def test_equip_army_and_navy() -> None:
    """§3.10.8 / A53: Crafting d20 19 + 1 = 20 → two dice: one naval, one levy d6 4 + Loyalty 2 = 6, capped at
    population 3."""
    g = game()
    act = [{"action": "equip", "naval": 1}]
    p = g.play(quiet_year(actions={"choices": {"actions": act}, "rolls": {"a1.check": [19], "a1.levy1": [4]}}))
    a = drafts(p, "action_taken")[0]
    assert a.audit["band"] == "two" and a.audit["levy_gains"] == [6]
    assert g.state.naval_dice == 1 and g.state.militia == 3


def test_building_a_road() -> None:
    """§3.10.9 / A54: a 1-point road through p-march: d20 14 + Stability 1 + Construction 2 = 17 (one) → done."""
    g = game()
    act = [{"action": "building_project",
            "new_project": {"id": "road-1", "name": "Sampo road", "points_required": 1, "kind": "road",
                            "province_id": "p-march"}}]
    p = g.play(quiet_year(actions={"choices": {"actions": act}, "rolls": {"a1.check": [14]}}))
    a = drafts(p, "action_taken")[0]
    assert (a.audit["check"]["total"], a.audit["band"], a.audit["completed"]) == (17, "one", True)
    assert g.state.provinces["p-march"].has_road is True


def test_a_changed_die_replays_as_recorded_and_the_audit_reports_it() -> None:
    """§8.1: replay applies the recorded outcome (the growth as it was), never re-deriving it from the dice; the
    audit re-runs the rules on the changed die (1 + Stability 1 + Agriculture 2 = 4 < DC 5) and names what they
    give differently."""
    import dataclasses

    from aik_helpers import RS

    from kingdomlog.core.fold import fold, replay

    g = game()
    g.play(quiet_year(growth={"rolls": {"growth": [9]}}))
    i = next(k for k, e in enumerate(g.events) if e.type == "aikakirjat.growth_rolled")
    ev = g.events[i]
    assert ev.payload.audit["success"] is True  # type: ignore[attr-defined]
    dice = (ev.payload.dice[0].model_copy(update={"faces": (1,), "total": 1}),)  # type: ignore[attr-defined]
    bad = dataclasses.replace(ev, payload=ev.payload.model_copy(update={"dice": dice}))
    events = [*g.events[:i], bad, *g.events[i + 1:]]
    assert replay(RS, events).model_dump() == g.state.model_dump()
    before = fold(RS, RS.initial_state(default_context(RS, "test")), g.events[:i])
    warnings = RS.audit(before, bad)
    assert any("population: recorded 4, today 3" in w for w in warnings), warnings
    assert any("check.total: recorded 12, today 4" in w and "success: recorded true, today false" in w
               for w in warnings), warnings
    assert RS.audit(before, ev) == []


def test_a_die_that_does_not_fit_its_notation_is_a_fault_of_the_log() -> None:
    """A recorded d20 face of 25 (or a total its faces do not give) cannot be folded: CorruptLogError naming the seq."""
    import dataclasses

    import pytest
    from aik_helpers import RS

    from kingdomlog.core.errors import CorruptLogError
    from kingdomlog.core.fold import replay

    g = game()
    g.play(quiet_year(growth={"rolls": {"growth": [9]}}))
    i = next(k for k, e in enumerate(g.events) if e.type == "aikakirjat.growth_rolled")
    ev = g.events[i]
    for faces, total in (((25,), 25), ((9,), 10)):
        die = ev.payload.dice[0].model_copy(update={"faces": faces, "total": total})  # type: ignore[attr-defined]
        bad = dataclasses.replace(ev, payload=ev.payload.model_copy(update={"dice": (die,)}))
        with pytest.raises(CorruptLogError, match=f"seq {ev.seq}: .*die 'growth'"):
            replay(RS, [*g.events[:i], bad, *g.events[i + 1:]])


def test_tax_collection_year_advantage_expires() -> None:
    """§3.10.5 / A50: 5–14 taken: Unrest +1, Corruption +1d6 (4); the advantage must be used this year."""
    g = game()
    act = [{"action": "tax_collection", "take_advantage": True}]
    steps = quiet_year(actions={"choices": {"actions": act}, "rolls": {"a1.check": [9], "a1.corruption": [4]}})
    p = g.preview({"seed": "x", **steps})
    actions = next(sp for sp in p.steps if sp.phase.id == "actions").state_after
    assert (actions.year_advantages, actions.unrest, actions.tracks["corruption"].points) == (1, 1, 4)
    g.play(steps)
    assert g.state.year_advantages == 0


def test_a_random_neighbour_among_one_is_that_one_without_a_die() -> None:
    """§3.7 result 10 with the neighbour left 'random': "the GM picks a random neighbour"; with one independent
    neighbour there is nothing to roll (a 1d1 was refused, and the year with it). d6 6: Kalevala 0 + 3 = 3."""
    from aik_helpers import founding

    g = Game()
    g.play(founding(neighbours=[{"id": "kalevala", "name": "Kalevala", "diplomacy": 0, "population": 4}]))
    p = g.play(quiet_year(events={"rolls": {"event": [4, 6], "neighbour": [6], "neighbour.diplomacy": [3]}}))
    assert drafts(p, "neighbour_event_rolled")[0].neighbour_id == "kalevala"
    assert "pick" not in {r.key for s in p.steps for r in s.rolls}
    assert g.state.neighbours["kalevala"].diplomacy == 3
