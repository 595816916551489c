"""War with every bonus the spec gives either side (§4.5, §3.6), and simultaneous wars each with its own armies
(A55), computed by hand.

The map and kingdoms are test_war's: our §7.1 kingdom (Loyalty +2, Stability +1, Defense proficient +2, tech 3,
mobility 1) against Tuonela (warfare +3, defence 11, d6 damage, tech 1, mobility 0).
"""

from __future__ import annotations

from typing import Any

from aik_helpers import Game, founding, quiet_year
from test_war import PROVINCES, TUONELA

from kingdomlog.rulesets.aikakirjat.resolve import PLAYERS

HOLD = [{"army_id": "p-army1", "kind": "hold"}]
EHOLD = [{"army_id": "t-army1", "kind": "hold"}]
KALEVALA = {"id": "kalevala", "name": "Kalevala", "diplomacy": 0, "population": 30,
            "profile": {"militia": 6, "warfare_bonus": 2, "defence": 10, "bureaucracy_bonus": 0, "damage_die": 4}}
K_PROVINCES = [
    {"id": "k-gate", "owner": "kalevala", "controller": "kalevala", "adjacent": ["p-home", "k-home"]},
    {"id": "k-home", "owner": "kalevala", "controller": "kalevala", "adjacent": ["k-gate"]},
]


def gm(*events: dict[str, Any]) -> dict[str, Any]:
    return {"choices": {"new_session": False, "gm_events": list(events)}}


def kingdom(tuonela: dict[str, Any] | None = None, *, militia: int = 8, **over: Any) -> Game:
    g = Game()
    prov = [dict(p) for p in PROVINCES]
    prov[0]["adjacent"] = ["p-march", "k-gate"]
    g.play(founding(population=10, militia=militia, technology_level=3, mobility=1,
                    neighbours=[tuonela or TUONELA, KALEVALA], provinces=prov + K_PROVINCES, **over))
    return g


def declared(**war: Any) -> dict[str, Any]:
    """Year 1: we declare war on Tuonela (Warfare d20 15 + 2 = 17: accepted) and fight its first war year."""
    choices = {"allocations": [{"army_id": "p-army1", "province_id": "p-march", "militia": 8}],
               "enemy_allocations": [{"army_id": "t-army1", "province_id": "t-border", "militia": 20}],
               "orders": {"1": [{"army_id": "p-army1", "kind": "attack", "target": "t-army1"}],
                          "2": HOLD, "3": HOLD, "4": HOLD},
               "enemy_orders": {"1": EHOLD, "2": EHOLD, "3": EHOLD, "4": EHOLD}}
    rolls = {"w.initiative": [12], "w.initiative.enemy": [5]}
    choices.update(war.pop("choices", {}))
    rolls.update(war.pop("rolls", {}))
    return quiet_year(
        actions={"choices": {"actions": [{"action": "declare_war", "neighbour_id": "tuonela"}]},
                 "rolls": {"a1.check": [15]}},
        war={"choices": choices, "rolls": rolls}, end={"choices": {}}, **war)


def drafts(p: Any, kind: str) -> list[Any]:
    return [d.payload for d in p.drafts if d.type == f"aikakirjat.{kind}"]


def first_engagement(p: Any) -> dict[str, Any]:
    turn1 = next(x for x in drafts(p, "war_turn_resolved") if x.war_turn == 1)
    eng: dict[str, Any] = turn1.audit["actions"][0]["engagement"]
    return eng


# --- the players' hit roll: stored advantages, this year's advantage, take 10, technology (§4.5.3) -----------


def test_a_stored_advantage_on_the_hit_roll() -> None:
    """§4.5.3 / §2.11: the order spends a stored advantage on the army's hit roll: 2d20 keep the higher, 3 and 9
    → 9 + Loyalty 2 = 11 ≥ defence 11, a hit (the lower die alone would miss). The advantage is spent."""
    g = kingdom()
    attack = {"1": [{"army_id": "p-army1", "kind": "attack", "target": "t-army1", "spend_stored": True}]}
    p = g.play(declared(
        start=gm({"event": "gm_adjustment", "field": "stored_advantages", "delta": 1, "reason": "taxes"}),
        choices={"orders": {**attack, "2": HOLD, "3": HOLD, "4": HOLD}},
        rolls={"w.t1.p1.eng.melee.players.hit": [3, 9], "w.t1.p1.eng.melee.players.damage": [1, 1, 1],
               "w.t1.p1.eng.melee.tuonela.hit": [1]}))
    ours = first_engagement(p)["phases"]["melee"]["rolls"][0]
    assert (ours["check"]["mode"], ours["check"]["faces"], ours["check"]["total"], ours["hit"]) == (
        "advantage", [3, 9], 11, True)
    rolls = {r.key: r for s in p.steps for r in s.rolls}
    assert rolls["w.t1.p1.eng.melee.players.hit"].notation == "2d20kh1"
    assert g.state.stored_advantages == 0


def test_the_advantage_goes_to_the_first_check_of_the_turn_even_when_attacked() -> None:
    """The option rides on the army's order and applies to its first check that war turn: Tuonela attacks first
    (it won initiative) and our army's return blow in melee has advantage (2d20kh1); our hold order carries it."""
    g = kingdom()
    hold_adv = [{"army_id": "p-army1", "kind": "hold", "spend_stored": True}]
    p = g.play(declared(
        start=gm({"event": "gm_adjustment", "field": "stored_advantages", "delta": 1, "reason": "taxes"}),
        choices={"allocations": [{"army_id": "p-army1", "province_id": "p-march", "militia": 8}],
                 "orders": {"1": hold_adv, "2": HOLD, "3": HOLD, "4": HOLD},
                 "enemy_orders": {"1": [{"army_id": "t-army1", "kind": "attack", "target": "p-army1"}],
                                  "2": EHOLD, "3": EHOLD, "4": EHOLD}},
        rolls={"w.initiative": [1], "w.initiative.enemy": [20],
               "w.t1.e1.eng.melee.players.hit": [2, 14], "w.t1.e1.eng.melee.players.damage": [2, 2, 2],
               "w.t1.e1.eng.melee.tuonela.hit": [1]}))
    eng = first_engagement(p)
    mine = next(r for r in eng["phases"]["melee"]["rolls"] if r["army"] == "p-army1")
    assert mine["check"]["mode"] == "advantage" and mine["check"]["total"] == 16
    assert g.state.stored_advantages == 0


def test_take_10_with_competent_administration() -> None:
    """§3.6 Competent Administration / §4.5.3: the hit roll takes 10 instead of rolling: 10 + 2 = 12 ≥ 11; no die
    is rolled for it, and the feat is used for the year."""
    g = kingdom()
    g.play(quiet_year(start=gm({"event": "level_changed", "from_level": 1, "to_level": 2, "cause": "gm"},
                               {"event": "benefit_chosen", "level": 2, "benefit": "feat",
                                "feat": "competent_administration"})))
    attack = {"1": [{"army_id": "p-army1", "kind": "attack", "target": "t-army1", "take_10": True}]}
    p = g.play(declared(choices={"orders": {**attack, "2": HOLD, "3": HOLD, "4": HOLD}},
                        rolls={"w.t1.p1.eng.melee.players.damage": [1, 1, 1],
                               "w.t1.p1.eng.melee.tuonela.hit": [1]}))
    ours = first_engagement(p)["phases"]["melee"]["rolls"][0]
    assert (ours["check"]["mode"], ours["check"]["d20"], ours["check"]["total"], ours["hit"]) == (
        "take_10", 10, 12, True)
    assert "w.t1.p1.eng.melee.players.hit" not in {r.key for s in p.steps for r in s.rolls}


def test_taking_10_twice_in_a_year_is_refused() -> None:
    """A73: once per kingdom year; a second army's order that also takes 10 is refused naming the rule."""
    g = kingdom()
    g.play(quiet_year(start=gm({"event": "level_changed", "from_level": 1, "to_level": 2, "cause": "gm"},
                               {"event": "benefit_chosen", "level": 2, "benefit": "feat",
                                "feat": "competent_administration"})))
    attack = {"1": [{"army_id": "p-army1", "kind": "attack", "target": "t-army1", "take_10": True}],
              "2": [{"army_id": "p-army1", "kind": "hold", "take_10": True}]}
    p = g.preview(declared(choices={"orders": {**attack, "3": HOLD, "4": HOLD},
                                    "enemy_orders": {"1": EHOLD, "2": [{"army_id": "t-army1", "kind": "attack",
                                                                        "target": "p-army1"}],
                                                     "3": EHOLD, "4": EHOLD}},
                           rolls={"w.t1.p1.eng.melee.players.damage": [1, 1, 1],
                                  "w.t1.p1.eng.melee.tuonela.hit": [1], "w.t2.e1.eng.melee.tuonela.hit": [1]}))
    assert not p.ok and "already used this year" in (p.error or "")


def test_technology_bonuses_to_hit_and_defence() -> None:
    """§4.5.3: the GM rules our technology worth +3 to hit and +2 to defence this year. Our hit: d20 6 + 2 + 3
    = 11 ≥ 11 (8 without it: a miss). Tuonela's: d20 9 + 3 = 12 against our defence 8 + 2 + 1 + 0 + 2 = 13:
    a miss (it would hit 11 without)."""
    g = kingdom()
    p = g.play(declared(choices={"technology": {"hit": 3, "defence": 2}},
                        rolls={"w.t1.p1.eng.melee.players.hit": [6], "w.t1.p1.eng.melee.players.damage": [1, 1, 1],
                               "w.t1.p1.eng.melee.tuonela.hit": [9]}))
    ours, theirs = first_engagement(p)["phases"]["melee"]["rolls"]
    assert ours["check"]["terms"]["technology (GM's ruling)"] == 3
    assert (ours["check"]["total"], ours["hit"]) == (11, True)
    assert theirs["defence_terms"] == {"base": 8, "defense": 2, "stability": 1, "decay": 0, "technology": 2}
    assert (theirs["check"]["total"], theirs["defence"], theirs["hit"]) == (12, 13, False)
    setup = drafts(p, "war_year_started")[0]
    assert setup.technology.hit == 3 and setup.audit["technology"] == {"hit": 3, "defence": 2, "naval": 0}


def test_the_enemy_hit_roll_carries_its_odds() -> None:
    """The NPC's hit roll is a check with known numbers (its warfare bonus +3 against our defence 11): its
    CheckSpec goes with the roll, so the sheet can show the odds (d20 ≥ 8: 13 in 20)."""
    g = kingdom()
    p = g.preview(declared(rolls={"w.t1.p1.eng.melee.players.hit": [1], "w.t1.p1.eng.melee.tuonela.hit": [1]}))
    war = next(s for s in p.steps if s.phase.id == "war")
    spec = war.checks["w.t1.p1.eng.melee.tuonela.hit"]
    assert (spec.kind, spec.modifier, spec.dc, spec.mode) == ("5e", 3, 11, "normal")
    ours = war.checks["w.t1.p1.eng.melee.players.hit"]
    assert (ours.modifier, ours.dc) == (2, 11)


# --- the enemy's feats (§3.6) ---------------------------------------------------------------------------------


def enemy_attacks(feats: list[str], **war: Any) -> Any:
    """Tuonela (with ``feats``) declares war on us between years; its first war year is played."""
    g = kingdom({**TUONELA, "profile": {**TUONELA["profile"], "feats": feats}})
    choices = {"allocations": [{"army_id": "p-army1", "province_id": "p-march", "militia": 8}],
               "enemy_allocations": [{"army_id": "t-army1", "province_id": "t-home", "militia": 20}],
               "orders": {str(t): HOLD for t in range(1, 7)}, "enemy_orders": {str(t): EHOLD for t in range(1, 7)}}
    choices.update(war.pop("choices", {}))
    rolls = {"w.initiative": [12], "w.initiative.enemy": [5], **war.pop("rolls", {})}
    plan = quiet_year(start=gm({"event": "war_begun", "war_id": "war-t", "attacker": "tuonela",
                                "defender": PLAYERS}),
                      war={"choices": choices, "rolls": rolls}, end={"choices": {}})
    return g, g.preview(plan)


def test_an_attacking_enemy_with_advanced_logistics_fights_six_war_turns() -> None:
    """§3.6 / §4.5.1 / A56: 6 war turns when the attacker has Advanced Logistics, whichever side attacks."""
    _, p = enemy_attacks(["advanced_logistics"])
    assert p.ok, p.error
    assert drafts(p, "war_year_started")[0].audit["war_turns"] == 6
    assert [t.war_turn for t in drafts(p, "war_turn_resolved")] == [1, 2, 3, 4, 5, 6]
    _, plain = enemy_attacks([])
    assert drafts(plain, "war_year_started")[0].audit["war_turns"] == 4


def test_in_turns_five_and_six_only_the_attacker_moves() -> None:
    """A56: in turns 5–6 only the attacker acts; our attack order of turn 5 is not carried out."""
    _, p = enemy_attacks(["advanced_logistics"], choices={"orders": {
        **{str(t): HOLD for t in range(1, 5)}, "5": [{"army_id": "p-army1", "kind": "move", "path": ["t-border"]}],
        "6": HOLD}})
    assert p.ok, p.error
    turn5 = next(t for t in drafts(p, "war_turn_resolved") if t.war_turn == 5)
    assert turn5.audit["actions"] == []


def test_our_advanced_logistics_does_not_lengthen_a_war_we_did_not_start() -> None:
    """A56: the feat is offensive: defending, we fight 4 war turns."""
    g = kingdom()
    g.play(quiet_year(start=gm({"event": "level_changed", "from_level": 1, "to_level": 2, "cause": "gm"},
                               {"event": "benefit_chosen", "level": 2, "benefit": "feat",
                                "feat": "advanced_logistics"})))
    plan = quiet_year(start=gm({"event": "war_begun", "war_id": "war-t", "attacker": "tuonela", "defender": PLAYERS}),
                      end={"choices": {}})
    p = g.preview(plan)
    assert p.ok, p.error
    assert drafts(p, "war_year_started")[0].audit["war_turns"] == 4


def test_the_defending_enemys_fortified_land() -> None:
    """§3.6 Fortified Land / A67: we declared war, so Tuonela is the war's defender: our 3d4 = 4+3+2 = 9 damage
    is reduced by 2 to 7 (20 → 13)."""
    t = {**TUONELA, "profile": {**TUONELA["profile"], "feats": ["fortified_land"]}}
    g = kingdom(t)
    p = g.play(declared(rolls={"w.t1.p1.eng.melee.players.hit": [10], "w.t1.p1.eng.melee.players.damage": [4, 3, 2],
                               "w.t1.p1.eng.melee.tuonela.hit": [1]}))
    ours = first_engagement(p)["phases"]["melee"]["rolls"][0]
    assert (ours["damage"], ours["fortified_land"]) == (7, -2)
    assert first_engagement(p)["militia_after"]["t-army1"] == 13


def test_the_enemys_general_staff_extra_attack() -> None:
    """§3.6 General Staff / A66: the enemy's one extra attack a war turn; refused without the feat."""
    extra = {"1": {"army_id": "t-army1", "kind": "attack", "target": "p-army1"}}
    near = {"allocations": [{"army_id": "p-army1", "province_id": "p-march", "militia": 8}],
            "enemy_allocations": [{"army_id": "t-army1", "province_id": "t-border", "militia": 20}],
            "enemy_extra_attacks": extra}
    rolls = {"w.t1.e2.eng.melee.tuonela.hit": [15], "w.t1.e2.eng.melee.tuonela.damage": [3],
             "w.t1.e2.eng.melee.players.hit": [1]}
    _, p = enemy_attacks(["general_staff"], choices=near, rolls=rolls)
    assert p.ok, p.error
    turn1 = next(t for t in drafts(p, "war_turn_resolved") if t.war_turn == 1)
    eng = turn1.audit["actions"][0]["engagement"]
    assert eng["attacker"] == "t-army1" and eng["militia_after"]["p-army1"] == 5  # 8 − 3
    _, refused = enemy_attacks([], choices=near, rolls=rolls)
    assert not refused.ok and "General Staff" in (refused.error or "")


def test_the_enemys_naval_traditions() -> None:
    """§4.5.4 / §3.6: crossing a sea against an enemy with Naval Traditions, its Seafaring roll has advantage:
    2d20 keep the higher (4, 17) + 0 = 17 beats our d20 10 + Loyalty 2 + 1d6 naval die 3 = 15."""
    prov = [{"id": "p-home", "owner": "players", "controller": "players", "adjacent": ["p-march"],
             "sea_links": ["t-isle"]},
            {"id": "p-march", "owner": "players", "controller": "players", "adjacent": ["p-home"]},
            {"id": "t-isle", "owner": "tuonela", "controller": "tuonela", "sea_links": ["p-home"]}]
    t = {**TUONELA, "profile": {**TUONELA["profile"], "feats": ["naval_traditions"]}}
    g = Game()
    g.play(founding(population=10, militia=8, neighbours=[t], provinces=prov))
    g.play(quiet_year(start=gm({"event": "gm_adjustment", "field": "naval_dice", "delta": 1, "reason": "fleet"})))
    cross = [{"army_id": "p-army1", "kind": "move", "path": ["t-isle"], "naval_dice": 1}]
    plan = quiet_year(
        actions={"choices": {"actions": [{"action": "declare_war", "neighbour_id": "tuonela"}]},
                 "rolls": {"a1.check": [15]}},
        war={"choices": {"allocations": [{"army_id": "p-army1", "province_id": "p-home", "militia": 8}],
                         "enemy_allocations": [{"army_id": "t-army1", "province_id": "t-isle", "militia": 20}],
                         "orders": {"1": cross, "2": HOLD, "3": HOLD, "4": HOLD},
                         "enemy_orders": {"1": EHOLD, "2": EHOLD, "3": EHOLD, "4": EHOLD}},
             "rolls": {"w.initiative": [12], "w.initiative.enemy": [5], "w.t1.p1.sea.players": [10],
                       "w.t1.p1.sea.players.naval": [3], "w.t1.p1.sea.tuonela": [4, 17]}},
        end={"choices": {}})
    p = g.preview(plan)
    assert p.ok, p.error
    turn1 = next(x for x in drafts(p, "war_turn_resolved") if x.war_turn == 1)
    naval = turn1.audit["actions"][0]["naval"]
    assert naval["totals"] == {"players": 15, "tuonela": 17} and naval["winner"] == "tuonela"
    rolls = {r.key: r for s in p.steps for r in s.rolls}
    assert rolls["w.t1.p1.sea.tuonela"].notation == "2d20kh1"


def test_an_npc_order_cannot_spend_the_players_advantages() -> None:
    """§2.16 / A39: an NPC's bonuses are its profile's; stored advantages are the players'."""
    g = kingdom()
    p = g.preview(declared(choices={"enemy_orders": {"1": [{"army_id": "t-army1", "kind": "hold",
                                                            "spend_stored": True}],
                                                     "2": EHOLD, "3": EHOLD, "4": EHOLD}},
                           rolls={"w.t1.p1.eng.melee.players.hit": [1], "w.t1.p1.eng.melee.tuonela.hit": [1]}))
    assert not p.ok and "players'" in (p.error or "")


# --- simultaneous wars, each with its own armies (A55) ----------------------------------------------------------


def holding(war_id: str, ours: str, theirs: str, **over: Any) -> dict[str, Any]:
    """A front whose armies hold all year."""
    return {"war_id": war_id, "orders": {str(t): [{"army_id": ours, "kind": "hold"}] for t in range(1, 5)},
            "enemy_orders": {str(t): [{"army_id": theirs, "kind": "hold"}] for t in range(1, 5)}, **over}


QUIET = {"fronts": [holding("war-k", "p-army1", "kalevala-army1"),
                    holding("war-2-tuonela", "p-army2", "tuonela-army1")]}


def two_wars(level: int = 5, **war: Any) -> tuple[Game, Any]:
    """A level-5 kingdom (2 armies) at war with Tuonela (we declare in year 2) and Kalevala (it attacks between
    years)."""
    g = kingdom(militia=8)
    g.play(quiet_year(start=gm({"event": "gm_adjustment", "field": "population", "value": 15, "reason": "test"},
                               {"event": "level_changed", "from_level": 1, "to_level": level, "cause": "gm"}),
                      growth={}))
    assert g.state.level == level
    plan = quiet_year(
        start=gm({"event": "war_begun", "war_id": "war-k", "attacker": "kalevala", "defender": PLAYERS}),
        growth={},
        actions={"choices": {"actions": [{"action": "declare_war", "neighbour_id": "tuonela"}]},
                 "rolls": {"a1.check": [15]}},
        war=war.pop("war", {"rolls": {}}), end=war.pop("end", {"choices": {}}))
    return g, g.preview(plan)


def test_each_war_gets_its_own_share_and_its_own_armies() -> None:
    """A55: the first war set up takes half the free militia (8 // 2 = 4) by default, the last the rest (4); each
    army belongs to its war and the kingdom's militia is their sum (the armies hold all year)."""
    _, p = two_wars(war={"choices": QUIET})
    assert p.ok, p.error
    setups = drafts(p, "war_year_started")
    assert [(x.war_id, [(a.army_id, a.militia) for a in x.allocations]) for x in setups] == [
        ("war-k", [("p-army1", 4)]), ("war-2-tuonela", [("p-army2", 4)])]
    after = next(s for s in p.steps if s.phase.id == "war").state_after
    assert sorted((a.army_id, a.war_id) for a in after.armies if a.owner == PLAYERS) == [
        ("p-army1", "war-k"), ("p-army2", "war-2-tuonela")]
    assert after.militia == sum(a.militia for a in after.armies if a.owner == PLAYERS)


def test_armies_fight_only_their_own_war() -> None:
    """A55: Kalevala's war army is ordered to attack Tuonela's army: refused (not an army of its war)."""
    wrong = {"fronts": [{"war_id": "war-k",
                         "allocations": [{"army_id": "p-k", "province_id": "p-home", "militia": 3}],
                         "orders": {"1": [{"army_id": "p-k", "kind": "attack", "target": "t-army1"}]}},
                        {"war_id": "war-2-tuonela",
                         "allocations": [{"army_id": "p-t", "province_id": "p-march", "militia": 5}],
                         "enemy_allocations": [{"army_id": "t-army1", "province_id": "t-border", "militia": 20}]}]}
    _, p = two_wars(war={"choices": wrong})
    assert not p.ok and "not an army of war-k" in (p.error or "")


def test_fronts_give_each_war_its_armies_and_orders() -> None:
    """Each war's entry sets its armies; the shares must add up to the militia (3 + 5 = 8). An army does not enter
    a province another war's army holds: Tuonela's-war army marching into k-gate, where Kalevala's army stands,
    is stopped; into a province with a friendly army it may not even be ordered."""
    k_front = {"war_id": "war-k", "allocations": [{"army_id": "p-k", "province_id": "p-march", "militia": 3}],
               "enemy_allocations": [{"army_id": "k-army1", "province_id": "k-gate", "militia": 6}],
               "orders": {str(t): [{"army_id": "p-k", "kind": "hold"}] for t in range(1, 5)},
               "enemy_orders": {str(t): [{"army_id": "k-army1", "kind": "hold"}] for t in range(1, 5)}}
    t_front = {"war_id": "war-2-tuonela", "allocations": [{"army_id": "p-t", "province_id": "p-home", "militia": 5}],
               "orders": {"1": [{"army_id": "p-t", "kind": "move", "path": ["k-gate"]}]}}
    _, p = two_wars(war={"choices": {"fronts": [k_front, t_front]}})
    assert p.ok, p.error
    setups = {x.war_id: x for x in drafts(p, "war_year_started")}
    assert [a.militia for a in setups["war-k"].allocations] == [3]
    assert [a.militia for a in setups["war-2-tuonela"].allocations] == [5]
    turn1 = next(t for t in drafts(p, "war_turn_resolved") if t.war_id == "war-2-tuonela" and t.war_turn == 1)
    assert turn1.audit["actions"][0]["blocked"] == "k-gate holds an army of another war"
    into_friend = {**t_front, "orders": {"1": [{"army_id": "p-t", "kind": "move", "path": ["p-march"]}]}}
    _, refused = two_wars(war={"choices": {"fronts": [k_front, into_friend]}})
    assert not refused.ok and "p-march already holds a friendly army" in (refused.error or "")
    short = {**t_front, "allocations": [{"army_id": "p-t", "province_id": "p-home", "militia": 4}]}
    _, refused = two_wars(war={"choices": {"fronts": [k_front, short]}})
    assert not refused.ok and "exactly its militia 5" in (refused.error or "") and "A55" in (refused.error or "")


def test_upkeep_and_attrition_per_war() -> None:
    """§4.5.7: +1 Unrest for each war the kingdom is party to (no invasions: 2 in all); attrition takes each
    army once, in its own war (p-army1 in war-k, p-army2 in war-2-tuonela), never twice."""
    _, p = two_wars(war={"choices": QUIET})
    assert p.ok, p.error
    ups = {u.war_id: u for u in drafts(p, "war_upkeep_applied")}
    assert {w: u.audit["unrest"][PLAYERS] for w, u in ups.items()} == {"war-k": 1, "war-2-tuonela": 1}
    armies = {w: [a["army"] for a in u.audit["attrition"]] for w, u in ups.items()}
    assert armies == {"war-k": ["p-army1", "kalevala-army1"], "war-2-tuonela": ["p-army2", "tuonela-army1"]}


def test_a_war_that_ends_leaves_the_others_armies_and_the_militia() -> None:
    """§4.5.6: peace with Tuonela dissolves its armies into the militia; Kalevala's war keeps its army and the
    kingdom's militia still counts both shares."""
    peace = {"1": {"performer": "pc", "pc_bonus": 30}}
    fronts = {"fronts": [QUIET["fronts"][0], {**QUIET["fronts"][1], "peace": peace}]}
    _, p = two_wars(war={"choices": fronts, "rolls": {"w2.t1.peace": [20]}})
    assert p.ok, p.error
    ended = drafts(p, "war_ended")
    assert [(e.war_id, e.reason) for e in ended] == [("war-2-tuonela", "peace")]
    war_step = next(s for s in p.steps if s.phase.id == "war").state_after
    assert [w.war_id for w in war_step.wars] == ["war-k"]
    assert [(a.army_id, a.war_id) for a in war_step.armies if a.owner == PLAYERS] == [("p-army1", "war-k")]
    assert war_step.militia == 8  # both shares (4 + 4): the ended war's army went back to the militia


def test_one_army_cannot_hold_two_fronts() -> None:
    """§2.9: a level-1 kingdom fields one army; with two wars the first takes it (all 8 militia) and the second
    has none (its enemy marches unopposed)."""
    _, p = two_wars(level=1)
    assert p.ok, p.error
    setups = drafts(p, "war_year_started")
    assert [[(a.army_id, a.militia) for a in x.allocations] for x in setups] == [[("p-army1", 8)], []]
