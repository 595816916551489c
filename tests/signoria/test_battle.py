"""Hand-computed battles (§5.3-§5.8): every tactic, every leader/statesman option, the general's specials."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from kingdomlog.core.errors import RuleError
from kingdomlog.rulesets.signoria.battle import BattleSetup, Fighter, SideSetup, fight


def roller(faces: Mapping[str, Sequence[int]]) -> Any:
    used: list[str] = []

    def roll(key: str, n: int, threshold: int) -> list[int]:
        assert key in faces, f"unexpected roll {key} ({n} dice)"
        assert len(faces[key]) == n, f"{key}: wanted {n} dice, plan has {len(faces[key])}"
        used.append(key)
        return list(faces[key])

    roll.used = used  # type: ignore[attr-defined]
    return roll


def side(faction: str, units: int, tactic: str | None, **kw: Any) -> SideSetup:
    return SideSetup(faction, units, tactic, **kw)


def test_plain_round_kills_and_routs() -> None:
    """§5.3: d6 per unit at 4+; a 6 kills, 4-5 rout; removals simultaneous; round 2 survivors -> defender wins."""
    r = fight(BattleSetup("b", side("a", 3, "breakthrough"), side("d", 3, "encirclement")), {},
              roller({"b.r1.attacker.main": [4, 2, 3], "b.r1.defender.main": [2, 2, 2],
                      "b.r2.attacker.main": [2, 2, 3], "b.r2.defender.main": [3, 3]}))
    one = r.rounds[0]["sides"]
    assert (one["attacker"]["kills"], one["attacker"]["routs"]) == (0, 1)
    assert one["defender"]["engaged_after"] == 2
    assert r.winner == "d" and r.reason == "rounds_exhausted"
    assert r.killed == {"a": 0, "d": 0} and r.routed_at_end == {"a": 0, "d": 1}


def test_hold_position_raises_opponent_to_5() -> None:
    """§5.4 Hold position: the opponent needs 5+ (sixes still kill); own dice stay at 4+."""
    r = fight(BattleSetup("b", side("a", 4, "breakthrough"), side("d", 2, "hold")), {},
              roller({"b.r1.attacker.main": [4, 4, 5, 2], "b.r1.defender.main": [4, 3],
                      "b.r2.attacker.main": [1, 1, 1], "b.r2.defender.main": [5]}))
    a = r.rounds[0]["sides"]["attacker"]
    assert a["groups"][0]["threshold"] == 5 and a["groups"][0]["successes"] == 1 and (a["kills"], a["routs"]) == (0, 1)
    assert r.rounds[0]["sides"]["defender"]["groups"][0]["threshold"] == 4


def test_breakthrough_explodes_in_chains() -> None:
    """§5.4 Breakthrough: each 6 adds a die, chained; extra dice kill and rout like any other."""
    r = fight(BattleSetup("b", side("a", 2, "breakthrough"), side("d", 5, "breakthrough")), {1: []},
              roller({"b.r1.attacker.main": [6, 1], "b.r1.attacker.main.x1": [6], "b.r1.attacker.main.x2": [4],
                      "b.r1.defender.main": [1, 1, 1, 1, 1],
                      "b.r2.attacker.main": [1, 1], "b.r2.defender.main": [1, 1]}))
    a = r.rounds[0]["sides"]["attacker"]
    assert a["groups"][0]["explosions"] == [6, 4] and a["explosions"] == 2
    assert (a["kills"], a["routs"]) == (2, 1)
    assert r.rounds[0]["sides"]["defender"]["engaged_after"] == 2


def test_encirclement_rerolls_each_one_once() -> None:
    """§5.4 Encirclement: every 1 is rerolled once and the new face stands (a new 1 stays)."""
    r = fight(BattleSetup("b", side("a", 3, "encirclement"), side("d", 3, "breakthrough")), {},
              roller({"b.r1.attacker.main": [1, 1, 5], "b.r1.attacker.main.reroll": [6, 1],
                      "b.r1.defender.main": [2, 2, 2],
                      "b.r2.attacker.main": [2, 2, 2], "b.r2.defender.main": [2]}))
    a = r.rounds[0]["sides"]["attacker"]
    assert a["groups"][0]["rerolls"] == [[0, 6], [1, 1]] and a["rerolls"] == 2
    assert (a["kills"], a["routs"]) == (1, 1)


def test_ambush_reserve_enters_round_2_at_3_plus_ignoring_hold() -> None:
    """§5.4 Ambush: reserve <= 1/3, safe in round 1, enters round 2 and hits on 3+ even against Hold position."""
    r = fight(BattleSetup("b", side("a", 6, "ambush", reserve=2), side("d", 6, "hold")), {},
              roller({"b.r1.attacker.main": [5, 2, 2, 2], "b.r1.defender.main": [6, 6, 6, 6, 4, 4],
                      "b.r2.attacker.reserve": [3, 3], "b.r2.defender.main": [1, 1, 1, 1, 1]}))
    one = r.rounds[0]["sides"]
    assert one["attacker"]["engaged_after"] == 0  # 4 main units all removed, reserve untouched
    two = r.rounds[1]["sides"]["attacker"]["groups"]
    assert [(g["group"], g["threshold"], g["successes"]) for g in two] == [("reserve", 3, 2)]
    assert r.winner == "d" and r.reason == "rounds_exhausted"
    with pytest.raises(RuleError, match="third"):
        fight(BattleSetup("b", side("a", 5, "ambush", reserve=2), side("d", 3, "hold")), {}, roller({}))


def test_counterattack_bonus_from_opponent_explosions_and_rerolls() -> None:
    """§5.4 Counterattack: reserve at the normal threshold, +1d6 per opponent explosion/reroll of the previous round."""
    r = fight(BattleSetup("b", side("a", 3, "counterattack", reserve=1), side("d", 4, "breakthrough")), {},
              roller({"b.r1.attacker.main": [2, 2], "b.r1.defender.main": [6, 6, 2, 2],
                      "b.r1.defender.main.x1": [1, 2],
                      "b.r2.attacker.reserve": [4, 4, 6], "b.r2.defender.main": [2, 2, 2, 2]}))
    g = r.rounds[1]["sides"]["attacker"]["groups"][0]
    assert (g["group"], g["units"], g["bonus"], g["threshold"], len(g["dice"])) == ("reserve", 1, 2, 4, 3)
    assert (r.rounds[1]["sides"]["attacker"]["kills"], r.rounds[1]["sides"]["attacker"]["routs"]) == (1, 2)


def test_join_battle_dice_statesman_2_leader_3_and_reserve_group() -> None:
    """§5.5 Join battle: +2d6 statesman, +3d6 leader; may go to an attacking reserve (its 3+ threshold)."""
    chars = (Fighter("s", False, False), Fighter("L", True, False))
    r = fight(BattleSetup("b", side("a", 3, "ambush", reserve=1, characters=chars), side("d", 9, "hold")),
              {1: [{"side": "attacker", "character": "s", "option": "join"}],
               2: [{"side": "attacker", "character": "L", "option": "join", "group": "reserve"}]},
              roller({"b.r1.attacker.main": [1, 1, 1, 1], "b.r1.defender.main": [1] * 9,
                      "b.r2.attacker.main": [1, 1], "b.r2.attacker.reserve": [3, 3, 3, 3],
                      "b.r2.defender.main": [1] * 9}))
    assert r.rounds[0]["sides"]["attacker"]["groups"][0]["join"] == 2
    res = r.rounds[1]["sides"]["attacker"]["groups"][1]
    assert (res["join"], res["threshold"], res["successes"]) == (3, 3, 4)


def test_field_hospital_and_take_no_prisoners() -> None:
    """§5.5: the enemy's hospital turns kills into routs (1/2); take no prisoners turns own routs into kills (1/2)."""
    chars_a = (Fighter("sa", False, False),)
    chars_d = (Fighter("Ld", True, False),)
    r = fight(BattleSetup("b", side("a", 4, "breakthrough", characters=chars_a),
                          side("d", 6, "encirclement", characters=chars_d)),
              {1: [{"side": "attacker", "character": "sa", "option": "no_prisoners"},
                   {"side": "defender", "character": "Ld", "option": "hospital"}]},
              roller({"b.r1.attacker.main": [6, 6, 6, 4], "b.r1.attacker.main.x1": [2, 2, 2],
                      "b.r1.defender.main": [2, 2, 2, 2, 2, 2],
                      "b.r2.attacker.main": [2, 2, 2, 2], "b.r2.defender.main": [2, 2]}))
    a = r.rounds[0]["sides"]["attacker"]
    # 3 kills + 1 rout; hospital (leader) 2 kills -> routs: 1 kill 3 routs; no prisoners (statesman) 1 rout -> kill
    assert (a["hospital"], a["no_prisoners"], a["kills"], a["routs"]) == (2, 1, 2, 2)
    assert r.killed["d"] == 2


def test_back_cowards_statesman_2_leader_3() -> None:
    """§5.5 Back, cowards!: up to 2 (3 for the leader) routed units return to the main group at round start."""
    chars = (Fighter("L", True, False),)
    r = fight(BattleSetup("b", side("a", 5, "breakthrough"), side("d", 5, "encirclement", characters=chars)),
              {2: [{"side": "defender", "character": "L", "option": "back_cowards"}]},
              roller({"b.r1.attacker.main": [4, 4, 4, 5, 2], "b.r1.defender.main": [2, 2, 2, 2, 2],
                      "b.r2.attacker.main": [2, 2, 2, 2, 2], "b.r2.defender.main": [2, 2, 2, 2]}))
    d = r.rounds[1]["sides"]["defender"]
    assert d["returned"] == 3 and d["groups"][0]["units"] == 4
    assert r.routed_at_end["d"] == 1


def test_regroup_returns_last_round_routs_general_only() -> None:
    """§5.6 Regroup: every unit routed in the previous round returns; a non-general may not use it."""
    chars = (Fighter("g", False, True), Fighter("x", False, False))
    faces = {"b.r1.attacker.main": [2, 2, 2, 2], "b.r1.defender.main": [5, 5, 4, 2],
             "b.r2.attacker.main": [2, 2, 2, 2], "b.r2.defender.main": [2, 2, 2, 2]}
    r = fight(BattleSetup("b", side("a", 4, "hold", characters=chars), side("d", 4, "breakthrough")),
              {2: [{"side": "attacker", "character": "g", "option": "regroup"}]}, roller(faces))
    assert r.rounds[1]["sides"]["attacker"]["returned"] == 2
    with pytest.raises(RuleError, match="not a general"):
        fight(BattleSetup("b", side("a", 4, "hold", characters=chars), side("d", 4, "breakthrough")),
              {2: [{"side": "attacker", "character": "x", "option": "regroup"}]}, roller(faces))


def test_fight_to_the_last_adds_a_third_round() -> None:
    """§5.6 Fight to the last!: the battle has 3 rounds."""
    chars = (Fighter("g", True, True),)
    faces = {f"b.r{i}.{s}.main": [2, 2] for i in (1, 2, 3) for s in ("attacker", "defender")}
    r = fight(BattleSetup("b", side("a", 2, "hold", characters=chars), side("d", 2, "hold")),
              {1: [{"side": "attacker", "character": "g", "option": "fight_to_last"}]}, roller(faces))
    assert len(r.rounds) == 3 and r.winner == "d"


def test_epic_duel_blocks_the_enemy_leader() -> None:
    """§5.6 Epic duel: the enemy leader's option this round is cancelled and he is blocked for the battle."""
    a_chars = (Fighter("g", False, True),)
    d_chars = (Fighter("L", True, False),)
    faces = {"b.r1.attacker.main": [6, 2], "b.r1.defender.main": [2, 2],
             "b.r2.attacker.main": [2, 2], "b.r2.defender.main": [2]}
    r = fight(BattleSetup("b", side("a", 2, "hold", characters=a_chars), side("d", 2, "hold", characters=d_chars)),
              {1: [{"side": "attacker", "character": "g", "option": "epic_duel", "target": "L"},
                   {"side": "defender", "character": "L", "option": "hospital"}]}, roller(faces))
    assert r.rounds[0]["sides"]["attacker"]["hospital"] == 0
    assert r.rounds[0]["sides"]["attacker"]["kills"] == 1
    with pytest.raises(RuleError, match="epic duel"):
        fight(BattleSetup("b", side("a", 2, "hold", characters=a_chars), side("d", 2, "hold", characters=d_chars)),
              {1: [{"side": "attacker", "character": "g", "option": "epic_duel", "target": "L"}],
               2: [{"side": "defender", "character": "L", "option": "join"}]}, roller(faces))


def test_options_once_per_battle_and_bloody_dukes_two() -> None:
    """§5.5 one option per character per battle; §8.1 Bloody Dukes: a general may add one standard option."""
    g = (Fighter("g", False, True),)
    faces = {f"b.r{i}.{s}.main": [2, 2] for i in (1, 2) for s in ("attacker", "defender")}
    faces["b.r2.attacker.main"] = [2, 2, 2, 2]
    two = [{"side": "attacker", "character": "g", "option": "regroup"},
           {"side": "attacker", "character": "g", "option": "join"}]
    r = fight(BattleSetup("b", side("a", 2, "hold", characters=g, bloody_dukes=True), side("d", 2, "hold")),
              {2: two}, roller(faces))
    assert r.rounds[1]["sides"]["attacker"]["groups"][0]["join"] == 2
    with pytest.raises(RuleError, match="already used"):
        fight(BattleSetup("b", side("a", 2, "hold", characters=g), side("d", 2, "hold")), {2: two}, roller(faces))


def test_spy_defects_and_commander_spy_strips_tactic() -> None:
    """§5.7: the master uses his spy's option; if the spy commands, the host side loses its tactic."""
    d_chars = (Fighter("spy", False, False, spy_of="A"),)
    faces = {"b.r1.attacker.main": [2, 2, 2, 2], "b.r1.defender.main": [2, 2, 2, 2],
             "b.r2.attacker.main": [4, 2, 2, 2], "b.r2.defender.main": [2, 2, 2, 2]}
    r = fight(BattleSetup("b", side("A", 4, "hold", characters=()),
                          side("D", 4, "hold", characters=d_chars, commander="spy")),
              {1: [{"side": "attacker", "character": "spy", "option": "join", "defect": True}]},
              roller({**faces, "b.r1.attacker.main": [2, 2, 2, 2, 2, 2]}))
    assert r.defected == ("spy",)
    assert r.rounds[0]["sides"]["attacker"]["groups"][0]["join"] == 2
    # the host lost Hold position: the attacker's dice need 4+ from round 1 on
    assert r.rounds[1]["sides"]["attacker"]["groups"][0]["threshold"] == 4
    with pytest.raises(RuleError, match="spy"):
        fight(BattleSetup("b", side("X", 4, "hold"), side("D", 4, "hold", characters=d_chars)),
              {1: [{"side": "attacker", "character": "spy", "option": "join", "defect": True}]}, roller(faces))


def test_winter_and_storm_thresholds() -> None:
    """§5.14 winter: attacker thresholds +1 (cap 6); §5.11 storm: the attacker rolls with no tactic."""
    r = fight(BattleSetup("b", side("a", 2, None, threshold_mod=1), side("d", 2, "hold")), {},
              roller({"b.r1.attacker.main": [6, 5], "b.r1.defender.main": [2, 2],
                      "b.r2.attacker.main": [2, 2], "b.r2.defender.main": [2]}))
    g = r.rounds[0]["sides"]["attacker"]["groups"][0]
    assert g["threshold"] == 6 and g["successes"] == 1


def test_both_broken_defender_wins() -> None:
    """G-10: both sides broken in the same round -> the defender wins."""
    r = fight(BattleSetup("b", side("a", 1, "hold"), side("d", 1, "breakthrough")), {},
              roller({"b.r1.attacker.main": [4], "b.r1.defender.main": [5]}))
    assert (r.winner, r.reason) == ("d", "both_broken")


def test_owner_may_take_losses_in_the_reserve_first() -> None:
    """§5.8 step 8 / G-11: losses fall on the main group first unless the owner allocates them to the reserve."""
    g = (Fighter("g", False, True),)
    ftl = {"side": "attacker", "character": "g", "option": "fight_to_last"}
    base = {"b.r1.attacker.main": [2, 2, 2, 2], "b.r1.defender.main": [1, 1, 1],
            "b.r2.attacker.main": [2, 2, 2, 2], "b.r2.attacker.reserve": [2, 2], "b.r2.defender.main": [5, 1, 1],
            "b.r3.defender.main": [1, 1, 1]}
    setup = BattleSetup("b", side("a", 6, "ambush", reserve=2, characters=g), side("d", 3, "breakthrough"))
    main_first = fight(setup, {1: [ftl]}, roller({**base, "b.r3.attacker.main": [2] * 3,
                                                  "b.r3.attacker.reserve": [2, 2]}))
    assert [(x["group"], x["units"]) for x in main_first.rounds[2]["sides"]["attacker"]["groups"]] == [
        ("main", 3), ("reserve", 2)]
    chosen = fight(setup, {1: [ftl], 2: [{"side": "attacker", "option": "reserve_first"}]},
                   roller({**base, "b.r3.attacker.main": [2] * 4, "b.r3.attacker.reserve": [2]}))
    assert [(x["group"], x["units"]) for x in chosen.rounds[2]["sides"]["attacker"]["groups"]] == [
        ("main", 4), ("reserve", 1)]


def test_a_double_agent_called_to_defect_stays_loyal() -> None:
    """§6.4 with §5.7: the briber's call on its believed spy fails; his owner keeps his option and tactic."""
    d_chars = (Fighter("da", False, False, spy_of=None, believed_by=("A",)),)
    faces = {"b.r1.attacker.main": [2, 2], "b.r1.defender.main": [2, 2, 2, 2],
             "b.r2.attacker.main": [2, 2], "b.r2.defender.main": [2, 2, 2, 2, 2, 2]}
    r = fight(BattleSetup("b", side("A", 2, "hold"), side("D", 4, "hold", characters=d_chars, commander="da")),
              {1: [{"side": "attacker", "character": "da", "option": "join", "defect": True}],
               2: [{"side": "defender", "character": "da", "option": "join"}]}, roller(faces))
    assert r.defected == () and r.rounds[0]["declarations"][0]["failed"] is True
    assert r.rounds[1]["sides"]["defender"]["groups"][0]["join"] == 2
    assert r.rounds[0]["sides"]["attacker"]["groups"][0]["threshold"] == 5  # D kept Hold position


def test_defender_counterattack_counts_the_attackers_previous_round_only() -> None:
    """§5.4 / G-13 previous_round: the defender's reserve gets +1d6 per attacker explosion of round 1,
    not of round 2 (both sides roll at once)."""
    faces = {"b.r1.attacker.main": [6, 2, 2], "b.r1.attacker.main.x1": [2],
             "b.r1.defender.main": [2, 2, 2],
             "b.r2.attacker.main": [6, 6, 2], "b.r2.attacker.main.x1": [2, 2],
             "b.r2.defender.main": [2, 2], "b.r2.defender.reserve": [2, 2]}
    r = fight(BattleSetup("b", side("a", 3, "breakthrough"), side("d", 4, "counterattack", reserve=1)), {},
              roller(faces))
    g = r.rounds[1]["sides"]["defender"]["groups"]
    assert [(x["group"], x["units"], x["bonus"], len(x["dice"])) for x in g] == [("main", 2, 0, 2),
                                                                              ("reserve", 1, 1, 2)]
