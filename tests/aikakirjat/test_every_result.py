"""Every random-event result (§3.7), neighbour result (§3.8), revolution result (§3.5) and action band (§3.10)
plays from typed dice without error and replays to the same state."""

from __future__ import annotations

from typing import Any

import pytest
from aik_helpers import RS, Game, quiet_year

from kingdomlog.core.fold import replay
from kingdomlog.rulesets.aikakirjat import tables
from kingdomlog.rulesets.aikakirjat.samples import sample_founding


def game(**over: Any) -> Game:
    f = sample_founding()
    f.update(over)
    g = Game()
    g.play({"steps": {"founding": {"choices": f}}})
    return g


def replays(g: Game) -> None:
    assert replay(RS, g.events).model_dump() == g.state.model_dump()


@pytest.mark.parametrize("total", range(1, 14))
def test_every_random_event(total: int) -> None:
    """§3.7: totals 1 and 13 through an omen set the year before (A31)."""
    g = game()
    if total in (1, 13):
        g.play(quiet_year(events={"rolls": {"event": [2, 3] if total == 1 else [4, 5]}}))
    faces = {1: [1, 1], 13: [6, 6]}.get(total, [1, total - 1] if total <= 7 else [6, total - 6])
    p = g.play(quiet_year(events={"rolls": {"event": faces}, "choices": {"neighbour_id": "kalevala"}}, growth={},
                          actions={}))
    ev = next(d.payload for d in p.drafts if d.type == "aikakirjat.random_event_rolled")
    assert ev.audit["total"] == total and ev.audit["result_key"] == tables.random_events()[total]
    replays(g)


@pytest.mark.parametrize("d6", range(1, 7))
@pytest.mark.parametrize("choices", [{}, {"war_target": "players", "participate": True}, {"support": True}])
def test_every_neighbour_result(d6: int, choices: dict[str, Any]) -> None:
    """§3.8: each d6 result against Kalevala, with and without taking part."""
    g = game()
    p = g.play(quiet_year(events={"rolls": {"event": [4, 6], "neighbour": [d6]},
                                  "choices": {"neighbour_id": "kalevala", **choices}}))
    ne = next(d.payload for d in p.drafts if d.type == "aikakirjat.neighbour_event_rolled")
    assert ne.audit["result_key"] == tables.neighbour_events()[d6]
    if d6 == 2 and choices.get("war_target") == "players":
        assert any(d.type == "aikakirjat.war_year_started" for d in p.drafts)
    replays(g)


@pytest.mark.parametrize("roll", range(2, 13))
def test_every_revolution_result(roll: int) -> None:
    """§3.5 / §4.7: Unrest 17 + 4 = 21 forces a revolution roll; each result applies."""
    g = game()
    adj = [{"event": "gm_adjustment", "field": "unrest", "delta": 17, "reason": "t"}]
    faces = [1, roll - 1] if roll <= 7 else [6, roll - 6]
    g.play(quiet_year(start={"choices": {"new_session": True, "gm_events": adj}},
                      events={"rolls": {"event": [1, 1], "disaster.unrest": [4], "rev.roll": faces}},
                      actions={}))
    key = tables.revolution_results()[roll]
    s = g.state
    if key in tables.GOVERNMENTS:
        assert s.government == key and s.unrest <= 19
    if key == "tribe":
        assert s.government == "tribe"
    assert s.pending_revolution is (key == "torn_apart")
    replays(g)


ACTIONS = [
    {"action": "embassy", "neighbour_id": "kalevala"},
    {"action": "attract_population", "neighbour_id": "kalevala"},
    {"action": "attract_population", "neighbour_id": "kalevala", "use_positive": "decadence"},
    {"action": "reduce_corruption", "target_track": "crime"},
    {"action": "reduce_corruption", "target_track": "decay"},
    {"action": "tax_collection", "take_advantage": True},
    {"action": "declare_war", "neighbour_id": "tuonela"},
    {"action": "reduce_unrest", "performer": "pc", "pc_id": "aino", "pc_bonus": 5, "skill": "intimidation"},
    {"action": "reduce_unrest", "performer": "pc", "pc_id": "aino", "pc_bonus": 5},
    {"action": "equip", "naval": 0},
    {"action": "building_project", "new_project": {"id": "hall", "name": "Great hall", "points_required": 5}},
]


@pytest.mark.parametrize("d20", [1, 8, 12, 17, 20])
@pytest.mark.parametrize("bonus", [0, 12])
@pytest.mark.parametrize("action", ACTIONS, ids=lambda a: "-".join(str(v) for v in a.values())[:40])
def test_every_action_band(action: dict[str, Any], d20: int, bonus: int) -> None:
    """§3.10: each action at low to very high totals (a situational bonus of +12 reaches the 30+ bands)."""
    g = game(population=12, militia=6, territory=[{"area_id": "land", "unit": "province", "amount": 1}])
    act = dict(action)
    if bonus:
        if act.get("performer") == "pc":
            act["pc_bonus"] = act["pc_bonus"] + bonus
        else:
            act["situational"] = [["test bonus", bonus]]
    p = g.play(quiet_year(actions={"choices": {"actions": [act]}, "rolls": {"a1.check": [d20]}},
                          war={"choices": {"orders": {str(t): [] for t in range(1, 5)},
                                           "enemy_orders": {str(t): [] for t in range(1, 5)}}}))
    a = next(d.payload for d in p.drafts if d.type == "aikakirjat.action_taken")
    assert a.audit["check"]["d20"] == d20 and "band" in a.audit
    replays(g)
