"""Golden test: the base spec's worked example (pf1-kingmaker.md §7, event stream §8.3), event by event.

The plans are ``RULESET.sample_plans()`` with the spec's dice typed in as manual faces.
After each event the folded state must show the figures of the spec's step tables.
"""

from __future__ import annotations

from typing import Any

import pytest
from pf1.kit import context, play

from kingdomlog.core.events import RecordedEvent
from kingdomlog.core.fold import replay
from kingdomlog.rulesets.pf1 import RULESET
from kingdomlog.rulesets.pf1 import derive as dv


def figures(s: Any) -> tuple[int, ...]:
    """(T, U, Sz, DC, Con, E, L, S, Pop) as in the spec's tables."""
    x = RULESET.summary(s)
    return (x["treasury_bp"], x["unrest"], x["size"], x["control_dc"], x["consumption"], x["economy"],
            x["loyalty"], x["stability"], x["population"])


@pytest.fixture(scope="module")
def played() -> tuple[Any, list[RecordedEvent]]:
    s, evs, _ = play(RULESET.sample_plans(), campaign="greenbelt")
    return s, evs


def trail(evs: list[RecordedEvent]) -> list[tuple[RecordedEvent, tuple[int, ...]]]:
    s = RULESET.initial_state(context("greenbelt"))
    out = []
    for e in evs:
        s = RULESET.evolve(s, e)
        out.append((e, figures(s)))
    return out


def after(tr: list[tuple[RecordedEvent, tuple[int, ...]]], turn: int, type_: str, **match: Any) -> tuple[int, ...]:
    for e, f in tr:
        if e.turn == turn and e.type == type_ and all(getattr(e.payload, k) == v for k, v in match.items()):
            return f
    raise AssertionError(f"no {type_} {match} in turn {turn}")


def test_setup_vector(played: tuple[Any, list[RecordedEvent]]) -> None:
    """§7.1: right after founding, no leaders, edicts None: E −14, L −6, S −11, T 50, DC 20."""
    _, evs = played
    tr = trail(evs)
    f = [f for e, f in tr if e.turn == 0][-1]
    assert f == (50, 0, 0, 20, 0, -14, -6, -11, 0)


def test_turn_one_step_by_step(played: tuple[Any, list[RecordedEvent]]) -> None:
    """§7.2: the founding month, row by row."""
    _, evs = played
    tr = trail(evs)
    assert after(tr, 1, "pf1.phase_skipped", phase="upkeep") == (50, 0, 0, 20, 0, -14, -6, -11, 0)
    assert after(tr, 1, "pf1.leader_assigned", role="WARDEN") == (50, 0, 0, 20, 0, 3, 7, 6, 0)      # I1
    assert after(tr, 1, "pf1.hex_claimed", hex="H1") == (49, 0, 1, 21, 1, 3, 7, 6, 250)            # I2
    assert after(tr, 1, "pf1.district_ready") == (48, 0, 1, 21, 2, 3, 7, 6, 250)                  # I5
    assert after(tr, 1, "pf1.building_constructed") == (42, 0, 1, 21, 2, 3, 8, 7, 500)             # I6
    assert after(tr, 1, "pf1.road_built") == (41, 0, 1, 21, 2, 3, 8, 7, 500)                      # I7
    assert after(tr, 1, "pf1.edicts_set") == (41, 0, 1, 21, 4, 4, 8, 9, 500)                      # I9
    assert after(tr, 1, "pf1.income_check_rolled") == (45, 0, 1, 21, 4, 4, 8, 9, 500)             # N4
    assert after(tr, 1, "pf1.turn_ended") == (45, 0, 1, 21, 4, 4, 8, 9, 500)


def test_turn_two_step_by_step(played: tuple[Any, list[RecordedEvent]]) -> None:
    """§7.3: one complete month, row by row."""
    _, evs = played
    tr = trail(evs)
    assert after(tr, 2, "pf1.stability_check_rolled") == (45, 2, 1, 21, 4, 4, 8, 9, 500)           # U1
    assert after(tr, 2, "pf1.consumption_paid") == (41, 2, 1, 21, 4, 4, 8, 9, 500)                 # U2
    assert after(tr, 2, "pf1.vacancy_unrest_applied") == (41, 3, 1, 21, 4, 4, 8, 9, 500)           # U4
    assert after(tr, 2, "pf1.royal_assassin_acted") == (41, 2, 1, 21, 4, 4, 8, 9, 500)             # U5
    assert after(tr, 2, "pf1.hex_claimed", hex="H2") == (40, 2, 2, 22, 5, 4, 8, 9, 750)            # I2
    assert after(tr, 2, "pf1.building_constructed") == (36, 1, 2, 22, 5, 4, 9, 9, 1000)            # I6
    assert after(tr, 2, "pf1.road_built") == (35, 1, 2, 22, 5, 4, 9, 9, 1000)                      # I7
    assert after(tr, 2, "pf1.hex_improvement_built") == (33, 1, 2, 22, 3, 4, 9, 9, 1000)           # I8
    assert after(tr, 2, "pf1.deposit_made") == (35, 1, 2, 22, 3, 4, 9, 9, 1000)                    # N1
    assert after(tr, 2, "pf1.withdrawal_made") == (34, 2, 2, 22, 3, 4, 9, 9, 1000)                 # N2
    assert after(tr, 2, "pf1.withdrawal_loyalty_check_rolled") == (34, 3, 2, 22, 3, 4, 9, 9, 1000)
    assert after(tr, 2, "pf1.income_check_rolled") == (38, 3, 2, 22, 3, 4, 9, 9, 1000)             # N4


def test_event_stream_matches_spec_8_3(played: tuple[Any, list[RecordedEvent]]) -> None:
    """§8.3: the domain events of the example, with their key fields (our envelope adds turn_started etc.)."""
    _, evs = played
    t1 = [e.type.removeprefix("pf1.") for e in evs if e.turn == 1 and e.type != "pf1.leader_assigned"]
    assert t1 == ["turn_started", "phase_skipped", "hex_claimed", "city_founded", "district_preparation_started",
                  "district_ready", "building_constructed", "road_built", "edicts_set", "income_check_rolled",
                  "event_chance_rolled", "event_phase_closed", "turn_ended"]
    assert sum(1 for e in evs if e.type == "pf1.leader_assigned") == 10
    t2 = [e.type.removeprefix("pf1.") for e in evs if e.turn == 2]
    assert t2 == ["turn_started", "stability_check_rolled", "consumption_paid", "vacancy_unrest_applied",
                  "royal_assassin_acted", "hex_claimed", "building_constructed", "road_built",
                  "hex_improvement_built", "deposit_made", "withdrawal_made", "withdrawal_loyalty_check_rolled",
                  "income_check_rolled", "event_chance_rolled", "kingdom_event_drawn", "event_phase_closed",
                  "turn_ended"]
    by = {(e.turn, e.type): e.payload for e in evs}
    inc1 = by[(1, "pf1.income_check_rolled")]
    assert (inc1.check.d20, inc1.check.attribute_value, inc1.check.total, inc1.check.dc, inc1.check.success,
            inc1.bp_gained) == (17, 4, 21, 21, True, 4)
    st = by[(2, "pf1.stability_check_rolled")]
    assert (st.check.d20, st.check.attribute_value, st.check.total, st.check.dc, -st.check.margin, st.outcome,
            st.unrest_delta) == (6, 9, 15, 21, 6, "UNREST_UP", 2)
    cp = by[(2, "pf1.consumption_paid")]
    assert (cp.consumption, cp.treasury_before, cp.treasury_after, cp.unrest_delta) == (4, 45, 41, 0)
    assert by[(2, "pf1.vacancy_unrest_applied")].items == {"SPYMASTER": 1}
    dep = by[(2, "pf1.deposit_made")]
    assert (dep.gp_offered, dep.bp_gained, dep.gp_returned) == (9000, 2, 1000)
    wl = by[(2, "pf1.withdrawal_loyalty_check_rolled")]
    assert (wl.check.d20, wl.check.attribute_value, wl.check.unrest, wl.check.total, wl.check.dc,
            wl.check.success, wl.unrest_delta) == (13, 9, 2, 20, 23, False, 1)
    inc2 = by[(2, "pf1.income_check_rolled")]
    assert (inc2.check.d20, inc2.check.total, inc2.check.dc, inc2.check.success, inc2.bp_gained) == (20, 21, 22,
                                                                                                     True, 4)
    assert by[(1, "pf1.event_chance_rolled")].model_dump() == {"d100": 88, "chance": 75, "occurred": False}
    assert by[(2, "pf1.event_chance_rolled")].model_dump() == {"d100": 42, "chance": 75, "occurred": True}
    assert by[(2, "pf1.kingdom_event_drawn")].event == "Good Weather"
    park = next(e.payload for e in evs if e.type == "pf1.building_constructed" and e.turn == 2)
    assert (park.building_type, park.cost_bp, park.unrest_delta, park.lots) == ("Park", 4, -1, (1,))


def test_final_fold(played: tuple[Any, list[RecordedEvent]]) -> None:
    """§8.3 last line: folding all events gives T 38, U 3, Sz 2, DC 22, Con 3, E 4, L 9, S 9, Pop 1000."""
    s, evs = played
    again = replay(RULESET, evs, context=context("greenbelt"))
    assert figures(again) == figures(s) == (38, 3, 2, 22, 3, 4, 9, 9, 1000)
    assert again.event_last_turn is True
    assert dv.ruler_title(again) == "Baron"
    assert RULESET.render(again) == "Greenbelt Barony T2 BP38 U3 Sz2 DC22 Con3 E4 L9 S9 Pop1000"
