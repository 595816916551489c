"""Kingdom event outcomes as data (§3.4 E2, §5.12; numbers from KMT data/events/*.json, see data/events.toml).

Each case resolves one event at one degree in the event step of a played turn (section 6 kingdom, unrest
raised to 8 so reductions are not floored) with the dice typed in, and compares the state just before and
just after the event step. The d20 is chosen from the hand-computed DC (Control DC + event modifier) and
check modifier so that the recorded degree is the one under test.
"""

from __future__ import annotations

from typing import Any

import pytest

from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.state import KingdomState, check_modifier

from .helpers import Game, events_of, step_state


def _before(pv: Any) -> KingdomState:
    ids = [s.phase.id for s in pv.steps]
    prev = pv.steps[ids.index("event.resolve") - 1]
    assert prev.state_after is not None
    return prev.state_after  # type: ignore[no-any-return]


def _die_for(s: KingdomState, name: str, skill: str, degree: str) -> int:
    """A d20 face giving ``degree`` (§3.0.1: +10 over the DC crit success, 10 under crit failure)."""
    ev = T.base_events()[name]
    dc = s.control_dc + ev.modifier
    mod = check_modifier(s, skill, activity=name, category="event").total
    want = {"critical_success": dc + 10 - mod, "success": dc - mod, "failure": dc - 1 - mod,
            "critical_failure": dc - 10 - mod}[degree]
    if degree == "critical_failure" and want < 2:
        assert 1 + mod < dc  # a natural 1 turns this failure into a critical failure (§3.0.1)
        return 1
    if degree == "critical_success" and want > 19:
        assert 20 + mod >= dc  # a natural 20 turns this success into a critical success (§3.0.1)
        return 20
    assert 2 <= want <= 19, (name, degree, want)
    return want


def _fresh() -> Game:
    g = Game().found()
    g.state = g.state.model_copy(update={"unrest": 8})
    return g


def _play(name: str, degree: str, *, rolls: dict[str, list[int]] | None = None,
          choices: dict[str, Any] | None = None) -> tuple[KingdomState, KingdomState, E.CheckResolved]:
    ev = T.base_events()[name]
    skill = ev.skills[0]
    steps = {"event.resolve": {"choices": {"event": name, "skill": skill, **(choices or {})},
                               "rolls": {"check": [10], **(rolls or {})}}}
    # a first pass finds the state before the event step (the earlier steps are the same with the same seed)
    before = _before(_fresh().play(steps, check=False))
    steps["event.resolve"]["rolls"]["check"] = [_die_for(before, name, skill, degree)]
    pv = _fresh().play(steps)
    chk = next(d.payload for d in pv.drafts
               if isinstance(d.payload, E.CheckResolved) and d.payload.activity == name)
    assert chk.degree == degree, (chk.die, chk.modifier, chk.dc)
    return _before(pv), step_state(pv, "event.resolve"), chk


def _ruin(a: KingdomState, b: KingdomState) -> dict[str, int]:
    return {r: b.ruin[r].points - a.ruin[r].points for r in T.RUINS if b.ruin[r].points != a.ruin[r].points}


def _goods(a: KingdomState, b: KingdomState) -> dict[str, int]:
    return {c: b.commodities[c] - a.commodities[c] for c in T.COMMODITIES if b.commodities[c] != a.commodities[c]}


def _new_mods(a: KingdomState, b: KingdomState) -> list[tuple[str, str, int, str]]:
    old = {m.id for m in a.modifiers}
    return sorted((m.selector, m.type, m.value, m.expires) for m in b.modifiers if m.id not in old)


# (event, degree, rolls, choices, unrest delta, ruin deltas, commodity deltas, pending, new modifiers)
CASES: list[tuple[str, str, dict[str, list[int]], dict[str, Any], int, dict[str, int], dict[str, int],
                  dict[str, int], list[tuple[str, str, int, str]]]] = [
    # KMT Political Calm: cs lose 1d6 Unrest OR a Ruin -1, +2 status to event checks next turn; s -1d4; f -1;
    # cf a Ruin of choice +1
    ("political-calm", "critical_success", {"check.e1.o0.e1": [4]}, {"option": 0}, -4, {}, {}, {},
     [("category == event", "status", 2, "end_of_next_turn")]),
    ("political-calm", "success", {"check.e1": [3]}, {}, -3, {}, {}, {}, []),
    ("political-calm", "failure", {}, {}, -1, {}, {}, {}, []),
    ("political-calm", "critical_failure", {}, {"ruin": "strife"}, 0, {"strife": 1}, {}, {}, []),
    # KMT Public Scandal: cs nothing; s +1 Unrest; f +1d4 Unrest +1 Corruption; cf +1d6 Unrest, a Ruin +1
    ("public-scandal", "critical_success", {}, {}, 0, {}, {}, {}, []),
    ("public-scandal", "success", {}, {}, 1, {}, {}, {}, []),
    ("public-scandal", "failure", {"check.e1": [2]}, {}, 2, {"corruption": 1}, {}, {}, []),
    ("public-scandal", "critical_failure", {"check.e1": [5]}, {"ruin": "decay"}, 5, {"decay": 1}, {}, {}, []),
    # KMT Remarkable Treasure: cs 1d6 Luxuries, -1d4 Unrest, +1 Fame next turn; s 1d4 Lux, -1d4; f -1; cf +1
    ("remarkable-treasure", "success", {"check.e1": [1], "check.e2": [2]}, {}, -2, {}, {"luxuries": 1}, {}, []),
    ("remarkable-treasure", "failure", {}, {}, -1, {}, {}, {}, []),
    ("remarkable-treasure", "critical_failure", {}, {}, 1, {}, {}, {}, []),
    # KMT Sensational Crime: s +1 Unrest; f +1d4 Unrest, +1 Crime; cf +1d6 Unrest, +2 Crime, a Ruin +2
    ("sensational-crime", "success", {}, {}, 1, {}, {}, {}, []),
    ("sensational-crime", "failure", {"check.e1": [3]}, {}, 3, {"crime": 1}, {}, {}, []),
    ("sensational-crime", "critical_failure", {"check.e1": [2]}, {"ruin": "strife"}, 2,
     {"crime": 2, "strife": 2}, {}, {}, []),
    # KMT Assassination Attempt: s nothing; f +1d4 Unrest; cf +2d4 Unrest, +1d4 Decay
    ("assassination-attempt", "success", {}, {}, 0, {}, {}, {}, []),
    ("assassination-attempt", "failure", {"check.e1": [4]}, {}, 4, {}, {}, {}, []),
    ("assassination-attempt", "critical_failure", {"check.e1": [1, 2], "check.e2.0": [3]}, {}, 3,
     {"decay": 3}, {}, {}, []),
    # KMT Archeological Find: cs -1d4 Unrest, +2 circumstance Culture and Economy to the end of next turn;
    # s -2 Unrest; f nothing; cf +1d4 Unrest, +1 Decay
    ("archaeological-find", "critical_success", {"check.e1": [2]}, {}, -2, {}, {}, {},
     [("ability in [culture, economy]", "circumstance", 2, "end_of_next_turn")]),
    ("archaeological-find", "success", {}, {}, -2, {}, {}, {}, []),
    ("archaeological-find", "failure", {}, {}, 0, {}, {}, {}, []),
    ("archaeological-find", "critical_failure", {"check.e1": [2]}, {}, 2, {"decay": 1}, {}, {}, []),
    # KMT Visiting Celebrity: s one of 4 RD next turn / 1d6 Luxuries / -1d6 Unrest; f -1; cf +1d4
    ("visiting-celebrity", "success", {}, {"option": 0}, 0, {}, {}, {"bonus_dice": 4}, []),
    ("visiting-celebrity", "success", {"check.e1.o2.e1": [5]}, {"option": 2}, -5, {}, {}, {}, []),
    ("visiting-celebrity", "failure", {}, {}, -1, {}, {}, {}, []),
    ("visiting-celebrity", "critical_failure", {"check.e1": [3]}, {}, 3, {}, {}, {}, []),
    # KMT Nature's Blessing: cs -1d6 Unrest; s +1 status Culture and Stability next turn; f nothing; cf +1
    ("natures-blessing", "critical_success", {"check.e1": [6]}, {}, -6, {}, {}, {}, []),
    ("natures-blessing", "success", {}, {}, 0, {}, {}, {},
     [("ability in [culture, stability]", "status", 1, "end_of_next_turn")]),
    ("natures-blessing", "critical_failure", {}, {}, 1, {}, {}, {}, []),
    # KMT Food Surplus: s Consumption -2 next turn, +1d6 Food; f Consumption -1; cf +1 Unrest, a Ruin +1
    ("food-surplus", "success", {"check.e2": [1]}, {}, 0, {}, {"food": 1}, {"consumption": -2}, []),
    ("food-surplus", "failure", {}, {}, 0, {}, {}, {"consumption": -1}, []),
    ("food-surplus", "critical_failure", {}, {"ruin": "crime"}, 1, {"crime": 1}, {}, {}, []),
    # KMT Justice Prevails: cs -1d6 Unrest, every Ruin -1; s -1d4 Unrest OR two Ruins -1; cf +1d4 Unrest,
    # +2 Crime, another Ruin +1
    ("justice-prevails", "critical_success", {"check.e1.o0.e1": [1]}, {"option": 0}, -1,
     {"crime": -1, "strife": -1}, {}, {}, []),
    ("justice-prevails", "success", {}, {"option": 1, "ruins": ["crime", "strife"]}, 0,
     {"crime": -1, "strife": -1}, {}, {}, []),
    ("justice-prevails", "critical_failure", {"check.e1": [2]}, {"ruin": "strife"}, 2,
     {"crime": 2, "strife": 1}, {}, {}, []),
    # KMT Boomtown: cs 4 Resource Dice next turn; s 2; f 1; cf 2 fewer
    ("boomtown", "critical_success", {}, {}, 0, {}, {}, {"bonus_dice": 4}, []),
    ("boomtown", "success", {}, {}, 0, {}, {}, {"bonus_dice": 2}, []),
    ("boomtown", "failure", {}, {}, 0, {}, {}, {"bonus_dice": 1}, []),
    ("boomtown", "critical_failure", {}, {}, 0, {}, {}, {"penalty_dice": 2}, []),
    # KMT Vandals: s 2 fewer Resource Dice next turn; f 4 fewer; cf +1d4 Unrest and 4 fewer
    ("vandals", "success", {}, {}, 0, {}, {}, {"penalty_dice": 2}, []),
    ("vandals", "failure", {}, {}, 0, {}, {}, {"penalty_dice": 4}, []),
    ("vandals", "critical_failure", {"check.e2": [2]}, {}, 2, {}, {}, {"penalty_dice": 4}, []),
    # KMT Drug Den: s +1 Unrest; f +1 Unrest, +1 Crime, +1 Decay
    ("drug-den", "success", {}, {}, 1, {}, {}, {}, []),
    ("drug-den", "failure", {}, {}, 1, {"crime": 1, "decay": 1}, {}, {}, []),
    # KMT Inquisition: cs defeat = a Ruin +1; s +1 Unrest; f +1d4 Unrest and two Ruins +1
    ("inquisition", "critical_success", {}, {"option": 1, "ruin": "strife"}, 0, {"strife": 1}, {}, {}, []),
    ("inquisition", "success", {}, {}, 1, {}, {}, {}, []),
    ("inquisition", "failure", {"check.e1": [3]}, {"ruins": ["decay", "strife"]}, 3,
     {"decay": 1, "strife": 1}, {}, {}, []),
    # KMT Public Outburst: s nothing; f +1 Unrest; cf +1d4 Unrest
    ("public-outburst", "success", {}, {}, 0, {}, {}, {}, []),
    ("public-outburst", "failure", {}, {}, 1, {}, {}, {}, []),
    ("public-outburst", "critical_failure", {"check.e1": [4]}, {}, 4, {}, {}, {}, []),
    # KMT Local Disaster: s 2 fewer Resource Dice next turn; f +1 Decay, 4 fewer; cf +1d6 Decay, 6 fewer
    ("local-disaster", "success", {}, {}, 0, {}, {}, {"penalty_dice": 2}, []),
    ("local-disaster", "failure", {}, {}, 0, {"decay": 1}, {}, {"penalty_dice": 4}, []),
    ("local-disaster", "critical_failure", {"check.e1.0": [4]}, {}, 0, {"decay": 4}, {}, {"penalty_dice": 6}, []),
    # KMT Squatters: s +1 Unrest; f +1d4
    ("squatters", "success", {}, {}, 1, {}, {}, {}, []),
    ("squatters", "failure", {"check.e1": [2]}, {}, 2, {}, {}, {}, []),
    # KMT Sacrifices: s +1 Unrest; f +1d4 Unrest, a Ruin +1; cf +1d6 Unrest, two Ruins +2
    ("sacrifices", "success", {}, {}, 1, {}, {}, {}, [("event == sacrifices", "untyped", 4, "permanent")]),
    ("sacrifices", "failure", {"check.e1": [1]}, {"ruin": "corruption"}, 1, {"corruption": 1}, {}, {}, []),
    ("sacrifices", "critical_failure", {"check.e1": [3]}, {"ruins": ["corruption", "decay"]}, 3,
     {"corruption": 2, "decay": 2}, {}, {}, []),
    # KMT Undead Uprising: s +1 Unrest; f +1d4, a Ruin +1; cf +2d4 Unrest and every Ruin +1
    ("undead-uprising", "success", {}, {}, 1, {}, {}, {}, []),
    ("undead-uprising", "failure", {"check.e1": [2]}, {"ruin": "decay"}, 2, {"decay": 1}, {}, {}, []),
    ("undead-uprising", "critical_failure", {"check.e1": [1, 3]}, {}, 4,
     {"corruption": 1, "crime": 1, "decay": 1, "strife": 1}, {}, {}, []),
    # KMT Monster Activity: s +1 Unrest; f +1d4 Unrest, +1 Decay
    ("monster-activity", "success", {}, {}, 1, {}, {}, {}, []),
    ("monster-activity", "failure", {"check.e1": [3]}, {}, 3, {"decay": 1}, {}, {}, []),
    # KMT Natural Disaster: s 4 fewer Resource Dice next turn; f +1 Decay, +1d6 Unrest, 6 fewer
    ("natural-disaster", "success", {}, {}, 0, {}, {}, {"penalty_dice": 4}, []),
    ("natural-disaster", "failure", {"check.e3": [5]}, {}, 5, {"decay": 1}, {}, {"penalty_dice": 6}, []),
]


@pytest.mark.parametrize(("name", "degree", "rolls", "choices", "unrest", "ruin", "goods", "pending", "mods"),
                         CASES, ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(CASES)])
def test_event_outcome_applied(name: str, degree: str, rolls: dict[str, list[int]], choices: dict[str, Any],
                               unrest: int, ruin: dict[str, int], goods: dict[str, int], pending: dict[str, int],
                               mods: list[tuple[str, str, int, str]]) -> None:
    """§3.4 E2: the event's data outcome for the degree changes the kingdom by exactly the KMT numbers."""
    a, b, _ = _play(name, degree, rolls=rolls, choices=choices)
    assert b.unrest - a.unrest == unrest
    assert _ruin(a, b) == ruin
    assert _goods(a, b) == goods
    keys = ("bonus_dice", "penalty_dice", "fame", "consumption")
    got_pending = {k: getattr(b.pending, k) - getattr(a.pending, k) for k in keys
                   if getattr(b.pending, k) != getattr(a.pending, k)}
    assert got_pending == pending
    assert _new_mods(a, b) == mods


def test_event_modifier_reaches_next_turn_checks() -> None:
    """KMT Nature's Blessing success: +1 status to Culture checks; status bonuses do not stack (§2.10), so with
    the invested Counselor's +1 status it adds nothing, and without it the term shows in the breakdown."""
    a, b, _ = _play("natures-blessing", "success")
    assert check_modifier(b, "arts").total == check_modifier(a, "arts").total
    leaders = dict(b.leaders)
    leaders["counselor"] = leaders["counselor"].model_copy(update={"invested": False})
    b2, a2 = b.model_copy(update={"leaders": leaders}), a.model_copy(update={"leaders": leaders})
    terms = [(t.label, int(t.value), t.kind) for t in check_modifier(b2, "arts").terms]
    assert ("natures-blessing", 1, "status") in terms
    assert check_modifier(b2, "arts").total == check_modifier(a2, "arts").total + 1
    assert "natures-blessing" not in [t.label for t in check_modifier(b2, "trade").terms]


def test_every_event_has_its_outcomes_as_data() -> None:
    """Issue 15: all 56 events carry their four degrees as data (a degree may be empty: nothing happens); what
    the rules leave to the GM is a "gm" effect with its note or the event's gm_note."""
    ev = T.base_events()
    assert len(ev) == 56
    for e in ev.values():
        o = e.outcomes
        assert None not in (o.critical_success, o.success, o.failure, o.critical_failure), e.name
        assert not e.gm_ruling, e.name
    assert all(e.gm_note for e in ev.values() if e.name in ("public-scandal", "food-surplus", "plague"))


def _two_settlements() -> Game:
    from kingdomlog.rulesets.pf2e.state import Settlement

    g = _fresh()
    far = Settlement(id="far", name="Far", hex="H0")
    g.state = g.state.model_copy(update={"settlements": (*g.state.settlements, far)})
    return g


@pytest.mark.parametrize(("degree", "die", "unrest", "bonus"), [("critical_success", 20, 0, 2),
                                                              ("success", 15, 0, 0), ("failure", 9, 1, 0)])
def test_feud_between_two_settlements(degree: str, die: int, unrest: int, bonus: int) -> None:
    """KMT Feud (two settlements): cs +2 Resource Dice next turn (it ends); s nothing (it continues); f +1
    Unrest. Politics +5 (loyalty +2, trained +3, invested +1, unrest 8 -2 ... see the breakdown) vs DC 14."""
    g = _two_settlements()
    pv = g.play({"event.resolve": {"choices": {"event": "feud"}, "rolls": {"check": [die]}}})
    chk = next(d.payload for d in pv.drafts if isinstance(d.payload, E.CheckResolved) and d.payload.activity == "feud")
    assert chk.degree == degree, (chk.die, chk.modifier, chk.dc)
    a, b = _before(pv), step_state(pv, "event.resolve")
    assert b.unrest - a.unrest == unrest and b.pending.bonus_dice - a.pending.bonus_dice == bonus
    assert ("feud" in [o.name for o in b.ongoing_events]) == (degree != "critical_success")


def test_feud_without_two_settlements_has_no_effect() -> None:
    """Its location is two settlements: a one-settlement kingdom sees no effect and no check."""
    pv = _fresh().play({"event.resolve": {"choices": {"event": "feud"}}})
    ev = events_of(pv, "event.resolve")
    assert not any(isinstance(e, E.CheckResolved) for e in ev)
    assert any(isinstance(e, E.GMRuling) and "no effect" in e.note for e in ev)
