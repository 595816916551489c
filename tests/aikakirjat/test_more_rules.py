"""More hand-computed cases: naval supremacy, peace, fire phase, logistics, Tribe and PC-led revolutions,
the kingdom split, step-order guards."""

from __future__ import annotations

from typing import Any

import pytest
from aik_helpers import Game, founding, quiet_year

from kingdomlog.core.errors import RuleError
from kingdomlog.rulesets.aikakirjat import rules as R
from kingdomlog.rulesets.aikakirjat.events import GrowthRolled
from kingdomlog.rulesets.aikakirjat.outcomes import check_order
from kingdomlog.rulesets.aikakirjat.resolve import PLAYERS

PROVINCES = [
    {"id": "p-home", "owner": "players", "controller": "players", "adjacent": ["t-border"], "sea_links": ["t-isle"]},
    {"id": "t-border", "owner": "tuonela", "controller": "tuonela", "adjacent": ["p-home", "t-home"]},
    {"id": "t-home", "owner": "tuonela", "controller": "tuonela", "adjacent": ["t-border"]},
    {"id": "t-isle", "owner": "tuonela", "controller": "tuonela", "sea_links": ["p-home"]},
]


def tuonela(**profile: Any) -> dict[str, Any]:
    return {"id": "tuonela", "name": "Tuonela", "diplomacy": -5, "population": 10,
            "profile": {"militia": 6, "warfare_bonus": 2, "defence": 12, "bureaucracy_bonus": 0, "damage_die": 6,
                        **profile}}


def war_game(**found: Any) -> Game:
    g = Game()
    g.play(founding(population=10, militia=6, neighbours=[tuonela()], provinces=PROVINCES, **found))
    return g


def declare(g: Game, war: dict[str, Any], start: dict[str, Any] | None = None) -> Any:
    """Declare war on Tuonela (d20 15 + 2 = 17, accepted), then the given war step."""
    return g.play(quiet_year(
        start=start or {"choices": {"new_session": True}},
        actions={"choices": {"actions": [{"action": "declare_war", "neighbour_id": "tuonela"}]},
                 "rolls": {"a1.check": [15]}},
        war=war))


def orders(*per_turn: list[dict[str, Any]]) -> dict[str, Any]:
    return {str(i + 1): o for i, o in enumerate(per_turn)}


HOLD = [{"army_id": "p1", "kind": "hold"}]
EHOLD = [{"army_id": "t1", "kind": "hold"}]
ALLOC = {"allocations": [{"army_id": "p1", "province_id": "p-home", "militia": 6}],
         "enemy_allocations": [{"army_id": "t1", "province_id": "t-home", "militia": 6}]}


def test_naval_supremacy_crossing() -> None:
    """§4.5.4 / A59: Seafaring d20 10 + Loyalty 2 + one naval d6 3 = 15 beats Tuonela's 14: the army crosses to
    t-isle and, alone there at the end of the turn, captures it (A58)."""
    g = war_game()
    gm = [{"event": "gm_adjustment", "field": "naval_dice", "delta": 1, "reason": "fleet"}]
    move = [{"army_id": "p1", "kind": "move", "path": ["t-isle"], "naval_dice": 1}]
    p = declare(g, {"choices": {**ALLOC, "orders": orders(move, HOLD, HOLD, HOLD),
                                "enemy_orders": orders(EHOLD, EHOLD, EHOLD, EHOLD)},
                    "rolls": {"w.initiative": [12], "w.initiative.enemy": [5], "w.t1.p1.sea.players": [10],
                              "w.t1.p1.sea.players.naval": [3], "w.t1.p1.sea.tuonela": [14]}},
                start={"choices": {"new_session": True, "gm_events": gm}})
    t1 = next(d.payload for d in p.drafts if d.type == "aikakirjat.war_turn_resolved")
    naval = t1.audit["actions"][0]["naval"]
    assert naval["totals"] == {PLAYERS: 15, "tuonela": 14} and naval["winner"] == PLAYERS
    assert t1.audit["captured"] == [{"province": "t-isle", "from": "tuonela", "to": PLAYERS}]
    assert g.state.naval_dice == 0


def test_naval_tie_goes_to_the_defender() -> None:
    """A59: 10 + 2 + 2 = 14 against 14: the crossing fails and the army stays home."""
    g = war_game()
    gm = [{"event": "gm_adjustment", "field": "naval_dice", "delta": 1, "reason": "fleet"}]
    move = [{"army_id": "p1", "kind": "move", "path": ["t-isle"], "naval_dice": 1}]
    declare(g, {"choices": {**ALLOC, "orders": orders(move, HOLD, HOLD, HOLD),
                            "enemy_orders": orders(EHOLD, EHOLD, EHOLD, EHOLD)},
                "rolls": {"w.initiative": [12], "w.initiative.enemy": [5], "w.t1.p1.sea.players": [10],
                          "w.t1.p1.sea.players.naval": [2], "w.t1.p1.sea.tuonela": [14]}},
            start={"choices": {"new_session": True, "gm_events": gm}})
    assert [a.province_id for a in g.state.armies if a.owner == PLAYERS] == ["p-home"]


def test_peace_with_a_demanded_province() -> None:
    """§3.11 / §4.5.5: DC 15 + 5 (one demand) = 20; Diplomacy d20 18 + Loyalty 2 = 20: peace, t-border is ours,
    no war-won fame (only the +5 for the war beginning and +1 for the year)."""
    g = war_game()
    p = declare(g, {"choices": {**ALLOC, "peace": {"1": {"provinces_demanded": ["t-border"]}}},
                    "rolls": {"w.initiative": [12], "w.initiative.enemy": [5], "w.t1.peace": [18]}})
    ended = next(d.payload for d in p.drafts if d.type == "aikakirjat.war_ended")
    assert ended.reason == "peace" and ended.winner is None
    assert g.state.provinces["t-border"].owner == PLAYERS and not g.state.wars and g.state.fame == 6


@pytest.mark.parametrize("peace", [{"attempt": True}, {"attempt": True, "performer": "kingdom"}])
def test_peace_offered_on_plain_terms(peace: dict[str, Any]) -> None:
    """§3.11 / §4.5.5: peace offered with nothing demanded (the board's "Offer peace"): DC 15, no more armies, no
    capture, Tuonela's unrest modifier 0; Diplomacy d20 13 + Loyalty 2 = 15: peace, every province back to its
    owner, no war-won fame."""
    g = war_game()
    p = declare(g, {"choices": {**ALLOC, "peace": {"1": peace}},
                    "rolls": {"w.initiative": [12], "w.initiative.enemy": [5], "w.t1.peace": [13]}})
    turn = next(d.payload for d in p.drafts if d.type == "aikakirjat.war_turn_resolved")
    assert turn.peace is not None and turn.peace.performer == "kingdom" and turn.peace.provinces_demanded == ()
    assert (turn.audit["peace"]["dc"], turn.audit["peace"]["check"]["total"]) == (15, 15)
    ended = next(d.payload for d in p.drafts if d.type == "aikakirjat.war_ended")
    assert (ended.reason, ended.winner) == ("peace", None) and not g.state.wars


def test_peace_not_offered_when_the_box_is_off() -> None:
    """``attempt: false`` offers no peace even with terms written beside it: the war turn has no peace."""
    g = war_game()
    p = declare(g, {"choices": {**ALLOC, "peace": {"1": {"attempt": False, "provinces_demanded": ["t-border"]}}},
                    "rolls": {"w.initiative": [12], "w.initiative.enemy": [5]}})
    turn = next(d.payload for d in p.drafts if d.type == "aikakirjat.war_turn_resolved")
    assert turn.peace is None and "peace" not in turn.audit


def test_fire_phase_and_simultaneous_melee() -> None:
    """§4.5.3 / A60: we are fire-capable, equal mobility: fire phase only we roll (d20 15 + 2 = 17 ≥ 12, 1d4 = 3);
    melee is simultaneous: we hit (d20 10 + 2 = 12, 1d4 = 4) and so do they (d20 9 + 2 = 11 ≥ 11, 1d6 = 5)."""
    g = war_game(fire_capable=True)
    att = [{"army_id": "p1", "kind": "attack", "target": "t1"}]
    alloc = {"allocations": [{"army_id": "p1", "province_id": "p-home", "militia": 6}],
             "enemy_allocations": [{"army_id": "t1", "province_id": "t-border", "militia": 6}]}
    k = "w.t1.p1.eng"
    p = declare(g, {"choices": {**alloc, "orders": orders(att, HOLD, HOLD, HOLD),
                                "enemy_orders": orders(EHOLD, EHOLD, EHOLD, EHOLD)},
                    "rolls": {"w.initiative": [12], "w.initiative.enemy": [5],
                              f"{k}.fire.players.hit": [15], f"{k}.fire.players.damage": [3],
                              f"{k}.melee.players.hit": [10], f"{k}.melee.players.damage": [4],
                              f"{k}.melee.tuonela.hit": [9], f"{k}.melee.tuonela.damage": [5]}})
    eng = next(d.payload for d in p.drafts if d.type == "aikakirjat.war_turn_resolved").audit["actions"][0]
    phases = eng["engagement"]["phases"]
    assert [r["army"] for r in phases["fire"]["rolls"]] == ["p1"] and phases["melee"]["order"] == "simultaneous"
    assert eng["engagement"]["militia_after"] == {"p1": 1, "t1": 0}
    ended = next(d.payload for d in p.drafts if d.type == "aikakirjat.war_ended")
    assert ended.winner == PLAYERS


def _level_two_with_feat(g: Game, feat: str) -> None:
    gm = [{"event": "gm_adjustment", "field": "fame", "delta": 19, "reason": "t"}]
    g.play(quiet_year(start={"choices": {"new_session": True, "gm_events": gm}},
                      end={"choices": {"benefits": [{"level": 2, "benefit": "feat", "feat": feat}]}}))
    assert R.has_feat(g.state, feat)


def test_advanced_logistics_gives_six_war_turns_and_only_the_attacker_acts_late() -> None:
    """§3.6 / §4.5.1 / A56: the attacker with Advanced Logistics fights 6 war turns; in turns 5–6 only it acts."""
    g = war_game()
    _level_two_with_feat(g, "advanced_logistics")
    ehit = [{"army_id": "t1", "kind": "attack", "target": "p1"}]
    alloc = {"allocations": [{"army_id": "p1", "province_id": "p-home", "militia": 6}],
             "enemy_allocations": [{"army_id": "t1", "province_id": "t-border", "militia": 6}]}
    p = g.play(quiet_year(
        actions={"choices": {"actions": [{"action": "declare_war", "neighbour_id": "tuonela"}]},
                 "rolls": {"a1.check": [15]}},
        war={"choices": {**alloc, "orders": orders(*[HOLD] * 6), "enemy_orders": orders(*[EHOLD] * 4, ehit, ehit)},
             "rolls": {"w.initiative": [12], "w.initiative.enemy": [5]}}))
    turns = [d.payload for d in p.drafts if d.type == "aikakirjat.war_turn_resolved"]
    assert [t.war_turn for t in turns] == [1, 2, 3, 4, 5, 6]
    assert turns[4].audit["actions"] == [] and turns[5].audit["actions"] == []


def test_tribe_chooses_revolution_to_reach_level_five() -> None:
    """§3.1 / §3.4 / A26: a Tribe stops at 4; choosing revolution rolls 2d6 = 8 (Republic) and then rises to 5."""
    for choose in (False, True):
        g = Game()
        g.play(founding(government="tribe", extra_proficiency="construction"))
        gm = [{"event": "gm_adjustment", "field": "fame", "delta": 139, "reason": "t"},
              {"event": "gm_adjustment", "field": "population", "delta": 12, "reason": "t"}]
        rolls = {"rev.tribe.roll": [4, 4], "rev.tribe.unrest": [1], **{f"rev.tribe.corruption.{t}": [1] for t in (
            "decadence", "crime", "corruption", "decay")}}
        g.play(quiet_year(start={"choices": {"new_session": True, "gm_events": gm}},
                          growth={},  # population 15 on 2 hexes: no growth roll (§3.9), so no die to type in
                          end={"choices": {"tribe_revolution": choose}, "rolls": rolls if choose else {}}))
        assert (g.state.government, g.state.level) == (("republic", 5) if choose else ("tribe", 4))


def test_pc_led_revolution_between_years() -> None:
    """A27: the story picks Autocracy; Unrest −d6 (capped at 19) and +d8 on every track still apply."""
    g = Game()
    g.play(founding())
    gm = [{"event": "gm_adjustment", "field": "unrest", "delta": 8, "reason": "t"},
          {"event": "government_changed", "to": "autocracy"}]
    rolls = {"gm1.unrest": [3], **{f"gm1.corruption.{t}": [2] for t in ("decadence", "crime", "corruption", "decay")}}
    g.play(quiet_year(start={"choices": {"new_session": True, "gm_events": gm}, "rolls": rolls}))
    s = g.state
    assert s.government == "autocracy" and s.unrest == 5
    assert R.proficiencies(s) == {"bureaucracy", "warfare", "construction"}
    assert all(t.points == 2 for t in s.tracks.values())


def test_revolution_split() -> None:
    """§3.5 result 2 / A24: d4 2 + 1 = 3 parts; we keep ceil(9 / 3) = 3 population; 2 new neighbours of 3; the
    re-roll (2d6 = 12) fizzles."""
    g = Game()
    g.play(founding())
    gm = [{"event": "gm_adjustment", "field": "unrest", "delta": 17, "reason": "t"},
          {"event": "gm_adjustment", "field": "population", "value": 9, "reason": "t"}]
    rolls = {"event": [1, 1], "disaster.decay": [1, 1, 1, 1], "disaster.unrest": [4], "rev.roll": [1, 1],
             "rev.parts": [2], "rev.reroll1": [6, 6], "rev.r1.unrest": [2]}
    p = g.play(quiet_year(start={"choices": {"new_session": True, "gm_events": gm}}, events={"rolls": rolls}))
    rev = next(d.payload for d in p.drafts if d.type == "aikakirjat.revolution_rolled")
    assert rev.audit["result_key"] == "split" and rev.audit["parts"] == 3 and rev.audit["reroll"]["result_key"] == \
        "fizzled"
    s = g.state
    assert s.population == 3 and sorted(n.population for n in s.neighbours.values()) == [3, 3]
    assert s.unrest == 21 - 2


def test_step_order_is_guarded() -> None:
    """§8.1.5: a growth roll straight after the year starts (no random event) breaks the step order: the rules
    refuse it (decide would, and ``audit`` reports it; evolve folds what a log recorded)."""
    g = Game()
    g.play(founding())
    s = g.state.model_copy(update={"phase": "start", "year": 1})
    with pytest.raises(RuleError, match="step order"):
        check_order(s, GrowthRolled())


def test_fortified_land_and_special_unit() -> None:
    """§3.6 / A67: as the war's defender with Fortified Land, incoming 1d6 = 5 becomes 3; §2.13 / A65: the
    special unit strikes with its d10 (1 die: no technology gap) and is then used for the year."""
    g = war_game()
    _level_two_with_feat(g, "fortified_land")
    gm = [{"event": "war_begun", "war_id": "w1", "attacker": "tuonela", "defender": "players"},
          {"event": "gm_adjustment", "field": "special_unit", "reason": "t",
           "value": {"id": "sampo", "name": "Sampo guard", "damage_die": 10}}]
    alloc = {"allocations": [{"army_id": "p1", "province_id": "p-home", "militia": 6}],
             "enemy_allocations": [{"army_id": "t1", "province_id": "t-border", "militia": 6}]}
    att = [{"army_id": "p1", "kind": "attack", "target": "t1", "special_unit": "sampo"}]
    k = "w.t1.p1.eng.melee"
    p = g.play(quiet_year(
        start={"choices": {"new_session": False, "gm_events": gm}},
        war={"choices": {**alloc, "orders": orders(att, HOLD, HOLD, HOLD),
                         "enemy_orders": orders(EHOLD, EHOLD, EHOLD, EHOLD)},
             "rolls": {"w.initiative": [12], "w.initiative.enemy": [5], f"{k}.players.hit": [15],
                       f"{k}.players.damage": [4], f"{k}.tuonela.hit": [15], f"{k}.tuonela.damage": [5]}}))
    eng = next(d.payload for d in p.drafts if d.type == "aikakirjat.war_turn_resolved").audit["actions"][0]
    ours, theirs = eng["engagement"]["phases"]["melee"]["rolls"]
    assert (ours["damage_dice"], ours["damage"]) == ("1d10", 4)
    assert (theirs["damage"], theirs["fortified_land"]) == (3, -2)
    assert eng["engagement"]["militia_after"] == {"p1": 3, "t1": 2}
    assert g.state.special_units[0].used_this_year is False  # cleared at year end
