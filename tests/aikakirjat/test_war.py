"""War (§4.5, §3.11, §3.12): a full war turn and its upkeep, computed by hand."""

from __future__ import annotations

from aik_helpers import Game, founding, quiet_year

from kingdomlog.rulesets.aikakirjat import war
from kingdomlog.rulesets.aikakirjat.resolve import PLAYERS

PROVINCES = [
    {"id": "p-home", "owner": "players", "controller": "players", "adjacent": ["p-march"], "has_road": True},
    {"id": "p-march", "owner": "players", "controller": "players", "adjacent": ["p-home", "t-border"]},
    {"id": "t-border", "owner": "tuonela", "controller": "tuonela", "adjacent": ["p-march", "t-home"],
     "terrain": "tundra"},
    {"id": "t-home", "owner": "tuonela", "controller": "tuonela", "adjacent": ["t-border"]},
]
TUONELA = {"id": "tuonela", "name": "Tuonela", "diplomacy": -5, "population": 25,
           "profile": {"militia": 20, "warfare_bonus": 3, "defence": 11, "bureaucracy_bonus": 1, "damage_die": 6,
                       "technology_level": 1, "mobility": 0}}


def at_war() -> tuple[Game, object]:
    """Year 1: Warfare speech d20 15 + Loyalty 2 = 17 (15–24, accepted); then the war year."""
    g = Game()
    g.play(founding(population=10, militia=8, technology_level=3, mobility=1, neighbours=[TUONELA],
                    provinces=PROVINCES))
    hold = [{"army_id": "p-army1", "kind": "hold"}]
    ehold = [{"army_id": "t-army1", "kind": "hold"}]
    plan = quiet_year(
        actions={"choices": {"actions": [{"action": "declare_war", "neighbour_id": "tuonela"}]},
                 "rolls": {"a1.check": [15]}},
        war={"choices": {
            "allocations": [{"army_id": "p-army1", "province_id": "p-march", "militia": 8}],
            "enemy_allocations": [{"army_id": "t-army1", "province_id": "t-border", "militia": 20}],
            "orders": {"1": [{"army_id": "p-army1", "kind": "attack", "target": "t-army1"}],
                       "2": hold, "3": hold, "4": hold},
            "enemy_orders": {"1": ehold, "2": ehold, "3": ehold, "4": ehold}},
            "rolls": {"w.initiative": [12], "w.initiative.enemy": [5],
                      "w.t1.p1.eng.melee.players.hit": [10], "w.t1.p1.eng.melee.players.damage": [4, 3, 2],
                      "w.t1.p1.eng.melee.tuonela.hit": [8], "w.t1.p1.eng.melee.tuonela.damage": [4]}},
        end={"rolls": {"up.attrition.p-army1.in_field": [1], "up.attrition.p-army1.hostile": [1],
                       "up.attrition.p-army1.enemy_present": [1], "up.attrition.p-army1.desert_tundra": [1],
                       "up.attrition.t-army1.in_field": [2], "up.attrition.t-army1.enemy_present": [2],
                       "up.attrition.t-army1.desert_tundra": [2]}})
    return g, g.play(plan)


def test_declaring_war_starts_it_and_ends_the_action_step() -> None:
    """§3.10.6 / §4.5.1 / A51: total 17 (accepted), war begun with +5 fame; 4 war turns (no logistics)."""
    _, p = at_war()
    act = next(d.payload for d in p.drafts if d.type == "aikakirjat.action_taken")
    assert act.audit["check"]["total"] == 17 and act.audit["band"] == "accepted"
    setup = next(d.payload for d in p.drafts if d.type == "aikakirjat.war_year_started")
    assert setup.audit["war_turns"] == 4 and setup.audit["order"] == [PLAYERS, "tuonela"]
    assert setup.audit["initiative"] == [{"players": 13, "enemy": 6}]  # Bureaucracy: 12 + Economy 1; 5 + 1


def test_a_full_war_turn() -> None:
    """§4.5.2-§4.5.3: our army attacks from p-march into t-border; melee only (no fire), we are more mobile, so
    we strike first: d20 10 + Loyalty 2 = 12 ≥ defence 11, damage 3d4 (1 + tech 3 − 1) = 4+3+2 = 9 → 20 − 9 = 11;
    then Tuonela: d20 8 + 3 = 11 ≥ our defence 8 + Defense 2 + Stability 1 = 11, 1d6 = 4 → 8 − 4 = 4."""
    _, p = at_war()
    turn1 = next(d.payload for d in p.drafts if d.type == "aikakirjat.war_turn_resolved" and d.payload.war_turn == 1)
    eng = turn1.audit["actions"][0]["engagement"]
    assert list(eng["phases"]) == ["melee"] and eng["phases"]["melee"]["order"] == "sequential"
    ours, theirs = eng["phases"]["melee"]["rolls"]
    assert (ours["check"]["total"], ours["defence"], ours["hit"], ours["damage_dice"], ours["damage"]) == (
        12, 11, True, "3d4", 9)
    assert theirs["defence_terms"] == {"base": 8, "defense": 2, "stability": 1, "decay": 0}
    assert (theirs["check"]["total"], theirs["defence"], theirs["damage_dice"], theirs["damage"]) == (11, 11, "1d6", 4)
    assert eng["militia_after"] == {"p-army1": 4, "t-army1": 11}
    assert turn1.audit["captured"] == []  # both armies in t-border
    turns = [d.payload.war_turn for d in p.drafts if d.type == "aikakirjat.war_turn_resolved"]
    assert turns == [1, 2, 3, 4]


def test_war_upkeep_and_attrition() -> None:
    """§4.5.7 / §3.12 / A71: +1 Unrest (Tuonela +2, our army on its land); attrition: ours 4 items × 1 − Religion 2
    = 2 → 4 − 2 = 2; theirs in field + enemy present + tundra = 6 → 11 − 6 = 5."""
    g, p = at_war()
    up = next(d.payload for d in p.drafts if d.type == "aikakirjat.war_upkeep_applied")
    assert up.audit["unrest"] == {PLAYERS: 1, "tuonela": 2}
    ours, theirs = up.audit["attrition"]
    assert (ours["items"], ours["reduction"], ours["damage"]) == (
        ["in_field", "hostile", "enemy_present", "desert_tundra"], 2, 2)
    assert (theirs["items"], theirs["damage"]) == (["in_field", "enemy_present", "desert_tundra"], 6)
    s = g.state
    assert s.militia == 2 and s.neighbours["tuonela"].profile.militia == 5 and s.unrest == 1
    assert s.fame == 5 + 1 and s.wars and s.neighbours["tuonela"].status == "at_war_with_players"


def test_war_ends_when_militia_reaches_zero_and_the_winner_gains_fame() -> None:
    """§4.5.6 / A68 / §3.3: our next attack kills Tuonela's 5 militia; it loses 1d6 = 2 population; it is larger
    than us (23 > 10), so the win is worth 10 fame."""
    g, _ = at_war()
    fame = g.state.fame
    hold = [{"army_id": "p-army1", "kind": "hold"}]
    plan = quiet_year(war={"choices": {
        "allocations": [{"army_id": "p-army1", "province_id": "p-march", "militia": 2}],
        "enemy_allocations": [{"army_id": "t-army1", "province_id": "t-border", "militia": 5}],
        "orders": {"1": [{"army_id": "p-army1", "kind": "attack", "target": "t-army1"}], "2": hold}},
        "rolls": {"w.initiative": [12], "w.initiative.enemy": [5], "w.t1.p1.eng.melee.players.hit": [15],
                  "w.t1.p1.eng.melee.players.damage": [4, 1, 1], "w.t1.end.loss": [2]}})
    p = g.play(plan)
    ended = next(d.payload for d in p.drafts if d.type == "aikakirjat.war_ended")
    assert (ended.reason, ended.winner, ended.audit["population_loss"], ended.audit["fame"]) == (
        "militia_zero", PLAYERS, 2, 10)
    s = g.state
    assert not s.wars and not s.armies and s.neighbours["tuonela"].population == 23
    assert s.fame == fame + 10 + 1 and s.provinces["t-border"].controller == "tuonela"


def test_peace_dc() -> None:
    """§3.11 / A69: 15, −5 if we field more armies, −3 per captured province, +5 per demand, + unrest modifier."""
    g, _ = at_war()
    s = g.state
    w = s.wars[0]
    dc, terms = war.peace_dc(s, w, ("t-home",))
    assert terms == {"start": 15, "more_armies": 0, "captured": 0, "demanded": 5, "unrest": 0} and dc == 20


def test_movement_rules() -> None:
    """§4.5.2 / A58: a second step needs a road in the first province entered; unknown adjacency is refused."""
    g, _ = at_war()
    hold = [{"army_id": "t-army1", "kind": "hold"}]
    bad = quiet_year(war={"choices": {
        "allocations": [{"army_id": "p-army1", "province_id": "p-march", "militia": 2}],
        "enemy_allocations": [{"army_id": "t-army1", "province_id": "t-home", "militia": 5}],
        "orders": {"1": [{"army_id": "p-army1", "kind": "move", "path": ["t-border", "t-home"]}]},
        "enemy_orders": {"1": hold}}, "rolls": {"w.initiative": [12], "w.initiative.enemy": [5]}})
    p = g.preview(bad)
    assert not p.ok and "road" in (p.error or "")
