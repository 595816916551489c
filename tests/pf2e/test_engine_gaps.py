"""Data fields the engine now applies: DC rules event/gm/none, infrastructure, conditional item bonuses,
structure Fame/Infamy and every-time effects, feat prerequisites and skill ranks, activity unlocks."""

from __future__ import annotations

from typing import Any

from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e.state import OngoingEvent

from .helpers import Game, events_of, step_state

RICH = {"upkeep.resources": {"rolls": {"resource": [4, 4, 4, 4, 4]}}}


def _refused(g: Game, steps: dict[str, Any], *needles: str) -> str:
    pv = g.play(steps, check=False)
    assert not pv.ok
    err = pv.error or ""
    for n in needles:
        assert n in err, err
    return err


def _checks(pv: Any, step: str) -> list[E.CheckResolved]:
    return [e for e in events_of(pv, step) if isinstance(e, E.CheckResolved)]


def _lead(act: dict[str, Any], rolls: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"activity.leadership": {"choices": {"activities": [act]}, "rolls": rolls or {"a1": [10]}}}


# ------------------------------------------------------------------ 1. DC rules event / gm / none


def test_event_dc_uses_the_targeted_events_modifier() -> None:
    """§5.12: Hire Adventurers (dc = event) against Bandit Activity (+1): Control DC 14 + 1 = 15."""
    g = Game().found()
    g.state = g.state.model_copy(update={"ongoing_events": (OngoingEvent(name="bandit-activity"),)})
    pv = g.play(_lead({"activity": "hire-adventurers", "role": "ruler"}))
    chk = _checks(pv, "activity.leadership")[0]
    assert chk.activity == "hire-adventurers" and chk.dc == 15
    assert ("event modifier (bandit-activity)", 1) in [(t.label, t.value) for t in chk.dc_terms]


def test_event_dc_without_an_ongoing_event_is_refused() -> None:
    """§5.12: no ongoing event to target: refused naming the activity, never a silent Control DC."""
    _refused(Game().found(), _lead({"activity": "hire-adventurers", "role": "ruler"}),
             "hire-adventurers", "§5.12")


def test_event_dc_needs_a_name_when_several_events_are_ongoing() -> None:
    """§5.12: two ongoing events: the plan must say which one; a named one that is not ongoing is refused."""
    g = Game().found()
    g.state = g.state.model_copy(update={"ongoing_events": (OngoingEvent(name="bandit-activity"),
                                                            OngoingEvent(name="a-devil-comes-calling"))})
    _refused(g, _lead({"activity": "hire-adventurers", "role": "ruler"}), "name it as 'event'")
    _refused(g, _lead({"activity": "hire-adventurers", "role": "ruler", "event": "good-weather"}),
             "not an ongoing event")
    pv = g.play(_lead({"activity": "hire-adventurers", "role": "ruler", "event": "a-devil-comes-calling"}))
    assert _checks(pv, "activity.leadership")[0].dc == 14 + 3


def test_gm_dc_is_required_and_recorded_as_the_gms_ruling() -> None:
    """§4 (GM-ruled DC): Recruit Army without 'dc' is refused naming it; with dc 22 the check uses 22."""
    g = Game().found()
    _refused(g, _lead({"activity": "recruit-army", "role": "ruler", "skill": "statecraft"}),
             "recruit-army", "'dc'")
    pv = g.play(_lead({"activity": "recruit-army", "role": "ruler", "skill": "statecraft", "dc": 22}))
    chk = _checks(pv, "activity.leadership")[0]
    assert chk.dc == 22
    assert [(t.label, t.value) for t in chk.dc_terms] == [("GM's ruling: recruit-army DC", 22)]


NO_CHECK = {"activity": [{
    "name": "royal-decree", "title": "Royal Decree", "category": "leadership", "skills": ["politics"],
    "dc": "none", "outcomes": {"success": [{"kind": "unrest", "amount": -1}]},
}]}


def test_dc_none_applies_the_outcome_without_a_check() -> None:
    """dc = none: no d20 is rolled, the activity counts as used and its outcome applies (Unrest 2 -> 1)."""
    g = Game(data={"decree": NO_CHECK}).found()
    pv = g.play(_lead({"activity": "royal-decree", "role": "ruler"}, rolls={}))
    evs = events_of(pv, "activity.leadership")
    assert not [e for e in evs if isinstance(e, E.CheckResolved)]
    assert [e.activity for e in evs if isinstance(e, E.ActivityWithoutCheck)] == ["royal-decree"]
    after = step_state(pv, "activity.leadership")
    assert after.unrest == step_state(pv, "commerce.agreements").unrest - 1
    assert any(u.name == "royal-decree" for u in after.used_this_turn)
