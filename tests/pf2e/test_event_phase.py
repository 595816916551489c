"""The event phase as issue 15 runs it: the random kingdom event table (d100, AoN 1843), an event's location
and requirement, continuing events checked again each turn, staged and self-ending continuous events,
events scheduled by a rule, and Cult events (option cult_events)."""

from __future__ import annotations

from typing import Any

import pytest

from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.state import BuiltStructure, EventWatch, OngoingEvent, Settlement

from .helpers import Game, events_of, step_state


def _table_game(**opts: Any) -> Game:
    return Game(options={"kingdom_event_selection": "table", **opts}).found()


def test_the_table_covers_1_to_100_once() -> None:
    """AoN 1843: every d100 result names exactly one event."""
    ranges = sorted(e.table for e in T.base_events().values() if e.table)
    seen = [n for lo, hi in ranges for n in range(lo, hi + 1)]
    assert seen == list(range(1, 101))


@pytest.mark.parametrize(("d100", "event"), [(1, "archaeological-find"), (28, "economic-surge"),
                                             (44, "good-weather"), (90, "squatters"), (100, "wealthy-immigrant")])
def test_a_random_event_the_gm_does_not_name_is_rolled(d100: int, event: str) -> None:
    """E1 d20 20 vs DC 11: an event occurs; E2 rolls d100 (key check.table) and resolves that event."""
    g = _table_game()
    pv = g.play({"event.check": {"rolls": {"event": [20]}},
                 "event.resolve": {"rolls": {"check.table": [d100]}}}, check=False)
    assert pv.ok, pv.error
    occ = next(e for e in events_of(pv, "event.resolve") if isinstance(e, E.KingdomEventOccurred))
    assert (occ.name, occ.selection, occ.table_rolls) == (event, "table", [d100])


def test_option_kingdom_event_selection_gm_leaves_it_unspecified() -> None:
    g = Game(options={"kingdom_event_selection": "gm"}).found()
    pv = g.play({"event.check": {"rolls": {"event": [20]}}})
    occ = next(e for e in events_of(pv, "event.resolve") if isinstance(e, E.KingdomEventOccurred))
    assert (occ.name, occ.selection) == ("unspecified", "gm")


def test_prognostication_critical_success_rolls_twice_and_the_players_pick() -> None:
    """Prognostication CS (Magic, trained): if a random event occurs this turn, two d100 rolls and the players
    pick (table_pick 1: the second, 44 = Good Weather) and +2 circumstance to resolve it."""
    g = _table_game(unlock_all_activities=True)
    g.state = g.state.model_copy(update={"skills": {**g.state.skills, "magic": "trained"}})
    pv = g.play({"activity.leadership": {"choices": {"activities": [
                     {"activity": "prognostication", "role": "ruler", "skill": "magic"}]}, "rolls": {"a1": [20]}},
                 "event.check": {"rolls": {"event": [20]}},
                 "event.resolve": {"choices": {"table_pick": 1}, "rolls": {"check.table": [1],
                                                                           "check.table2": [44]}}}, check=False)
    assert pv.ok, pv.error
    occ = next(e for e in events_of(pv, "event.resolve") if isinstance(e, E.KingdomEventOccurred))
    assert (occ.name, occ.table_rolls) == ("good-weather", [1, 44])
    chk = next(e for e in events_of(pv, "event.resolve") if isinstance(e, E.CheckResolved))
    assert ("prognostication", 2, "circumstance") in [(t.label, t.value, t.kind) for t in chk.terms]


def test_prognostication_critical_failure_forces_an_event() -> None:
    """Prognostication CF: the random event occurs whatever the d20 (recorded as forced)."""
    g = _table_game()
    g.state = g.state.model_copy(update={"skills": {**g.state.skills, "magic": "trained"}})
    pv = g.play({"activity.leadership": {"choices": {"activities": [
                     {"activity": "prognostication", "role": "ruler", "skill": "magic"}]}, "rolls": {"a1": [1]}},
                 "event.check": {"rolls": {"event": [2]}},
                 "event.resolve": {"rolls": {"check.table": [43], "check.table2": [60]}}})
    chk = next(e for e in events_of(pv, "event.check") if isinstance(e, E.RandomEventChecked))
    assert (chk.die, chk.occurred, chk.forced) == (2, True, "prognostication: critical failure")


def test_an_event_that_requires_a_structure_does_not_occur_without_it() -> None:
    """Pilgrimage needs a shrine, temple or cathedral: without one it does not occur (no check)."""
    pv = Game().found().play({"event.resolve": {"choices": {"event": "pilgrimage"}}})
    ev = events_of(pv, "event.resolve")
    assert not any(isinstance(e, E.CheckResolved) for e in ev)
    assert any(isinstance(e, E.GMRuling) and "does not occur" in e.note for e in ev)
    g = Game().found()
    st = g.state.settlements[0]
    g.state = g.state.model_copy(update={"settlements": (st.model_copy(update={"structures": (
        *st.structures, BuiltStructure(name="shrine", block=0, lots=(1,)))}),)})
    pv2 = g.play({"event.resolve": {"choices": {"event": "pilgrimage"}, "rolls": {"check": [10]}}})
    assert any(isinstance(e, E.CheckResolved) for e in events_of(pv2, "event.resolve"))


def test_an_event_strikes_its_location_and_takes_its_bonuses_from_there() -> None:
    """Boomtown strikes the smallest settlement: the check records it; Undead Uprising the one with the most
    cemeteries."""
    g = Game().found()
    big = g.state.settlements[0].model_copy(update={"blocks": (("houses", "x", "x", "x"), ("x", "", "", ""))})
    small = Settlement(id="far", name="Far", hex="H0")
    g.state = g.state.model_copy(update={"settlements": (big, small)})
    pv = g.play({"event.resolve": {"choices": {"event": "boomtown"}, "rolls": {"check": [10]}}})
    chk = next(e for e in events_of(pv, "event.resolve") if isinstance(e, E.CheckResolved))
    assert chk.settlement == "far"


def test_a_continuing_event_is_checked_again_next_turn() -> None:
    """Bandit Activity (continuous, ends on a critical success): a success keeps it; next turn its check is
    rolled again in E2 (key ongoing1) and a critical success ends it."""
    g = Game().found()
    pv = g.play({"event.resolve": {"choices": {"event": "bandit-activity"}, "rolls": {"check": [12]}}})
    assert [o.name for o in step_state(pv, "event.resolve").ongoing_events] == ["bandit-activity"]
    pv2 = g.play({"event.resolve": {"rolls": {"ongoing1": [20]}}})
    chk = next(e for e in events_of(pv2, "event.resolve") if isinstance(e, E.CheckResolved))
    assert (chk.activity, chk.degree) == ("bandit-activity", "critical_success")
    assert step_state(pv2, "event.resolve").ongoing_events == ()


def test_economic_surge_ends_after_two_failures_in_a_row() -> None:
    g = Game().found()
    g.state = g.state.model_copy(update={"ongoing_events": (OngoingEvent(name="economic-surge", failures=1),)})
    pv = g.play({"event.resolve": {"rolls": {"ongoing1": [5]}}})
    res = next(e for e in events_of(pv, "event.resolve") if isinstance(e, E.KingdomEventResolved))
    assert (res.degree, res.failures, res.continues) == ("failure", 2, False)


def test_cult_activity_moves_to_its_second_stage() -> None:
    """Cult Activity: stage 0 Intrigue; a success finds the cult (+1 Unrest) and the next turn's check is the
    Folklore one of stage 1, whose success drives the cult out (it ends)."""
    g = Game().found()
    pv = g.play({"event.resolve": {"choices": {"event": "cult-activity"}, "rolls": {"check": [15]}}})
    res = next(e for e in events_of(pv, "event.resolve") if isinstance(e, E.KingdomEventResolved))
    assert (res.degree, res.stage, res.continues) == ("success", 1, True)
    pv2 = g.play({"event.resolve": {"choices": {"events": [{"event": "cult-activity", "option": 0}]},
                                    "rolls": {"ongoing1": [16], "ongoing1.e1.o0.e1": [2]}}})
    chk = next(e for e in events_of(pv2, "event.resolve") if isinstance(e, E.CheckResolved))
    assert chk.skill == "folklore"
    assert step_state(pv2, "event.resolve").ongoing_events == ()


def test_a_scheduled_event_occurs_in_its_event_phase() -> None:
    """Abandon Hex's failure schedules Squatters on a failed DC 6 flat check: E1 announces it, E2 resolves it."""
    g = Game().found()
    g.state = g.state.model_copy(update={"event_watch": (EventWatch(id="w1", event="squatters", turn=2),)})
    pv = g.play({"event.resolve": {"rolls": {"due1": [15]}}})
    occ = [e for e in events_of(pv, "event.check") if isinstance(e, E.KingdomEventOccurred)]
    assert [(o.name, o.selection) for o in occ] == [("squatters", "scheduled")]
    assert any(isinstance(e, E.CheckResolved) and e.activity == "squatters" for e in events_of(pv, "event.resolve"))
    assert step_state(pv, "event.resolve").event_watch == ()


def test_option_cult_events() -> None:
    """cult_events: E1 flat-checks the Cult DC (start 20: a 20 succeeds); E2 must name the Cult event, and its
    first occurrence gives 80 XP. Off (default): no cult check."""
    g = Game(options={"cult_events": True}).found()
    pv = g.play({"event.check": {"rolls": {"cult": [20]}},
                 "event.resolve": {"choices": {"events": [{"event": "too-close-to-home"}]},
                                   "rolls": {"cult1": [15]}}})
    checks = [e for e in events_of(pv, "event.check") if isinstance(e, E.RandomEventChecked)]
    assert [c.table for c in checks] == ["cult", "kingdom"]
    ms = [e for e in events_of(pv, "event.resolve") if isinstance(e, E.MilestoneAchieved)]
    assert [(m.milestone, m.xp) for m in ms] == [("cult-event:too-close-to-home", 80)]
    off = Game().found().play({})
    assert [c.table for c in events_of(off, "event.check") if isinstance(c, E.RandomEventChecked)] == ["kingdom"]


@pytest.mark.parametrize(("start", "die", "new_dc"), [(6, 5, 1), (3, 2, 1), (7, 6, 2)])
def test_the_event_dc_falls_by_its_step_down_to_1(start: int, die: int, new_dc: int) -> None:
    """§3.4 E1: no event (the d20 under the DC) lowers the DC by 5, to 1 at the lowest (issue 28: a floor of 2
    passed the suite). From 6 a 5 fails: 1; from 3 a 2 fails: 1 (not -2); from 7: 2."""
    g = Game().found(resume={"turn": 1, "event_dc": start})
    pv = g.play({"event.check": {"rolls": {"event": [die]}}})
    check = next(e for e in events_of(pv, "event.check") if isinstance(e, E.RandomEventChecked))
    assert (check.dc, check.die, check.occurred, check.new_dc) == (start, die, False, new_dc)
    assert step_state(pv, "event.check").event_dc == new_dc


def test_the_cult_event_dc_falls_by_its_step_down_to_1() -> None:
    """cult_events: a failed Cult check lowers its DC by cult_event_dc_step, to 1 at the lowest (from 2 by 2: 1)."""
    g = Game(options={"cult_events": True, "cult_event_dc_start": 2}).found()
    pv = g.play({"event.check": {"rolls": {"cult": [1]}}})
    cult = next(e for e in events_of(pv, "event.check") if isinstance(e, E.RandomEventChecked) and e.table == "cult")
    assert (cult.dc, cult.die, cult.occurred, cult.new_dc) == (2, 1, False, 1)
