"""The battle board's library code (issue 30): a battle's rounds of orders drawn by the form codec (the ``rounds``
kind of ``core.choices``: a list of lists of entries) and read back into the same plan; the orders' picks filled
from the battle (armies of this battle, targets on the other side, the war actions the army's tactics grant); the
pf2e battle as a board (``Ruleset.boards``: sides, a line per roll in round order with its odds, what each round
and the battle did) and its HTML.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import marimo as mo

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pf2e.helpers import RS, Game

from kingdomlog.core.choices import validate_choices
from kingdomlog.core.turn import Plan, preview_turn
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.choices import BattleChoices
from kingdomlog.rulesets.pf2e.state import Army
from kingdomlog.rulesets.pf2e.warfare import new_army
from kingdomlog.views import forms as sf
from kingdomlog.views.sheet.board import board_html, odds_words

STEP = "activity.battle"


def army(defn: str, aid: str, name: str, side: str = "kingdom", *tactics: str) -> Army:
    a = new_army(T.army_defs()[defn], 5, aid, name, side=side, hex_id="H0")
    return Army(**{**a.model_dump(), "tactics": (*a.tactics, *tactics)})


def game() -> Game:
    g = Game().found()
    g.state = g.state.model_copy(update={"army_units": (
        army("infantry", "militia", "Oakhold Militia", "kingdom", "merciless"),
        army("infantry", "raiders", "Stag Raiders", "enemy"))})
    return g


ROUNDS = [
    [{"army": "militia", "action": "advance", "target": "raiders"},
     {"army": "militia", "action": "all-out-assault", "target": "raiders"},
     {"army": "raiders", "action": "advance", "target": "militia"}],
    [{"army": "militia", "action": "battle", "target": "raiders"},
     {"army": "raiders", "action": "battle", "target": "militia"}],
    [{"army": "militia", "action": "battle", "target": "raiders"},
     {"army": "raiders", "action": "guard", "target": "militia"}],
]
CHOICES = {"battles": [{"id": "ford", "hex": "H0", "kingdom": ["militia"], "enemy": ["raiders"], "rounds": ROUNDS,
                        "unfinished": True}]}


def values(tree: Any) -> dict[str, Any]:
    return dict(mo.ui.dictionary(sf.flatten(tree)).value)


def test_rounds_of_orders_are_widgets_read_back_into_the_same_plan() -> None:
    """The battle's rounds are a ``rounds`` field: one ``rows`` field per round (Round 1..3), one entry per order
    with a dropdown per pick; read back untouched, the widgets give the plan they were built from."""
    g = game()
    specs = RS.choices(g.state, g.turn, STEP, CHOICES)
    battle = specs[0].entries[0]
    rounds = next(f for f in battle if f.name == "rounds")
    assert rounds.kind == "rounds"
    assert [e[0].label for e in rounds.entries] == ["Round 1", "Round 2", "Round 3"]
    assert [len(e[0].entries) for e in rounds.entries] == [3, 2, 2]
    tree = sf.choice_widgets(specs, CHOICES)
    flat = values(tree)
    assert not any(isinstance(w, mo.ui.text_area) for w in sf.flatten(tree).values())  # no JSON text field
    out = sf.Read()
    got = sf.read_fields(specs, sf.unflatten(flat), CHOICES, (), out)
    assert out.errors == []
    assert got["battles"][0]["rounds"] == ROUNDS


def test_a_round_and_an_order_are_added_and_a_round_removed() -> None:
    g = game()
    specs = RS.choices(g.state, g.turn, STEP, CHOICES)
    flat = values(sf.choice_widgets(specs, CHOICES))
    base = "battles/rows/#0/rounds"
    flat[f"{base}/rounds/#1/_add"] = "raiders"  # "+ Order" of round 2: the raiders' order
    flat[f"{base}/_add"] = 1  # "+ Round"
    flat[f"{base}/rounds/#0/_remove"] = 1  # round 1 removed
    out = sf.Read()
    got = sf.read_fields(specs, sf.unflatten(flat), CHOICES, (), out)["battles"][0]["rounds"]
    assert out.restructure
    assert got == [[*ROUNDS[1], {"army": "raiders"}], ROUNDS[2], []]


def test_the_orders_picks_come_from_the_battle() -> None:
    """An order's army is one of the battle's; its targets are the other side's; its war actions are the basic
    ones and those its tactics grant (Merciless: All-Out Assault), the others marked why not."""
    g = game()
    specs = RS.choices(g.state, g.turn, STEP, CHOICES)
    rounds = next(f for f in specs[0].entries[0] if f.name == "rounds")
    order = {f.name: f for f in rounds.entries[0][0].entries[1]}  # the militia's All-Out Assault
    assert [o.value for o in order["army"].options or ()] == ["militia", "raiders"]
    assert [o.value for o in order["target"].options or ()] == ["", "raiders"]
    acts = {o.value: o for o in order["action"].options or ()}
    assert acts["all-out-assault"].disabled == "" and "Merciless" in acts["all-out-assault"].detail
    assert acts["taunt"].disabled == "no tactic of Oakhold Militia grants it"
    raiders = {f.name: f for f in rounds.entries[0][0].entries[2]}
    assert {o.value: o.disabled for o in raiders["action"].options or ()}["all-out-assault"]
    assert [o.value for o in raiders["target"].options or ()] == ["", "militia"]
    # the picks are open: the battle's own rules refuse an army not in it, naming the rule
    validate_choices(BattleChoices, CHOICES, state=g.state, vocabulary=RS.vocabulary, step=STEP)


def _played(g: Game, choices: dict[str, Any], **rolls: list[int]) -> Any:
    plan = Plan.parse({"turn": g.turn, "seed": "board", "steps": {STEP: {"choices": choices, "rolls": rolls}}})
    pv = preview_turn(RS, g.state, plan, campaign="test", turn=g.turn, start_seq=0)
    return next(s for s in pv.steps if s.phase.id == STEP)


def test_the_battle_as_a_board() -> None:
    """Initiative, three rounds and the outcome in words, each check with its odds by the kernels. Infantry level 5
    (Maneuver +9, attack +15, AC 22, Maneuver DC 19): the militia acts first (d20 20), Advances (15 + 9 = 24 vs 19:
    success), All-Out Assault (d20 5 + 15 = 20 vs AC 22: failure, still 1 damage; the raiders' DC 11 flat check
    d20 3 fails: shaken +1)."""
    g = game()
    st = _played(g, CHOICES, **{"b1.init.militia": [20], "b1.init.raiders": [1], "b1.r1.militia.1": [15],
                                "b1.r1.militia.2": [5], "b1.r1.militia.2.s0": [3]})
    assert st.error is None, st.error
    (board,) = RS.boards(g.state, STEP, st.choices, st.rolls, st.checks, st.drafts)
    assert [s.label for s in board.sides] == ["The kingdom", "The enemy"]
    assert [u.name for s in board.sides for u in s.units] == ["Oakhold Militia", "Stag Raiders"]
    militia = board.sides[0].units[0]
    assert militia.stats[:3] == ("HP 4 of 4", "AC 22", "melee +15") and "Merciless (All-Out Assault)" in militia.note
    assert board.rounds == (0, 1, 2, 3)
    r1 = [x.text for x in board.lines if x.round == 1]
    assert r1[0] == "Oakhold Militia: Advance → Stag Raiders: d20 15 +9 = 24 vs 19, success"
    assert r1[1] == ("Oakhold Militia: All-Out Assault → Stag Raiders (melee Strike): d20 5 +15 = 20 vs 22,"
                     " failure")
    assert r1[2] == "Stag Raiders: damaged: DC 11 or shaken +1 → failed (d20 3)"
    assert r1[-1] == "After round 1: Stag Raiders: 1 damage, shaken +1."
    keyed = [x.key for x in board.lines if x.key]  # every check rolled has its line (initiative: no degree)
    assert keyed == [r.key for r in st.rolls if r.key in st.checks and ".init." not in r.key]
    ended = next(d.payload for d in st.drafts if d.type == "pf2e.battle_ended")
    who = {"kingdom": "The kingdom wins", "enemy": "The enemy wins", "none": "The GM stops the battle"}[ended.winner]
    assert board.outcome[-1].startswith(f"{who} after {ended.rounds} round")
    assert any(t.startswith("Stag Raiders: HP 4 → ") for t in board.outcome)
    html = str(board_html(board, st.checks, st.rolls))
    assert "Round 3" in html and "Before the first round" in html
    assert odds_words(st.checks["b1.r1.militia.1"]) in html  # the kernels' chances, beside the Advance
    # d20 +9 vs 19: success on 10-19 (50%), a critical success needs 29 (a natural 20 only: 5%), failure on 2-9
    # (40%), a natural 1 is a critical failure (5%)
    assert odds_words(st.checks["b1.r1.militia.1"]) == ("critical failure 5.0% · failure 40.0% · success 50.0% ·"
                                                        " critical success 5.0%")


def test_a_board_while_the_battle_waits_for_a_roll() -> None:
    """On the sheet a check is rolled when Roll is pressed: the battle stops at the first check not rolled, with no
    events yet. Its board then has the armies, the checks rolled so far (from their checks and faces: the Advance
    d20 15 + 9 = 24 vs 19, a success), no outcome, and says which check comes next with its chances."""
    g = game()
    faces = {"b1.init.militia": [20], "b1.init.raiders": [1], "b1.r1.militia.1": [15]}
    steps = {STEP: {"choices": CHOICES, "rolls": faces}}
    auto = preview_turn(RS, g.state, Plan.parse({"turn": g.turn, "seed": "board", "steps": steps}),
                        campaign="test", turn=g.turn, start_seq=0)
    earlier = {s.phase.id: [r.key for r in s.rolls] for s in auto.steps if s.phase.id != STEP}  # rolled on the sheet
    plan = Plan.parse({"turn": g.turn, "seed": "board", "dice": "on_roll", "steps": steps})
    pv = preview_turn(RS, g.state, plan, campaign="test", turn=g.turn, start_seq=0, release=earlier)
    res = pv.steps[-1]
    assert res.phase.id == STEP and res.pending is not None and res.pending.key == "b1.r1.militia.2"
    assert res.drafts == []
    (board,) = RS.boards(g.state, STEP, CHOICES, res.rolls, res.checks, res.drafts)
    assert board.outcome == () and [u.name for s in board.sides for u in s.units] == ["Oakhold Militia",
                                                                                      "Stag Raiders"]
    assert [x.text for x in board.lines if x.round == 1] == ["Oakhold Militia advance: d20 15 +9 = 24 vs 19, success"]
    html = str(board_html(board, res.checks, res.rolls, res.pending))
    assert "Next to roll" in html and "Oakhold Militia all out assault" in html  # its action in words, not its id
    assert odds_words(res.checks["b1.r1.militia.2"]) in html


def test_a_pf1_mass_combat_as_a_board() -> None:
    """UC Mass Combat, the battle worked by hand in tests/pf1/test_mass_combat.py: Melee phase 1, the Guard
    Aggressive (OM 3 + 2 = 5) d20 14 = 19 vs DV 12: 10 damage, the orcs 11 → 1 and routed (Morale d20 9 vs 15);
    their parting shot d20 10: defeated. The board: both armies, the Melee phase and the parting shots in words,
    each Offense and Morale check with its chances by the kernels, the aftermath."""
    from pf1.kit import RULESET
    from pf1.test_mass_combat import armed

    from kingdomlog.core.ruleset import run_step
    from kingdomlog.dice.roller import KeyedRoller

    s = armed()
    battle = {"ours": "A1", "enemy": "A2", "rounds": [{"ours_strategy": "Aggressive"}],
              "learn_tactic": "Defensive Wall", "learn_boon": "Loyalty"}
    rolls = {"w1_r1_ours": [14], "w1_r1_enemy": [12], "w1_r1_enemy_rout": [9], "w1_parting": [10],
             "w1_victory_1": [20], "w1_victory_2": [1]}
    dice = KeyedRoller("t", campaign="test", turn=s.turn).for_step("war", manual=rolls)
    spec = next(x for x in RULESET.all_steps if x.id == "war")
    res = run_step(RULESET, s, spec, {"battles": [battle]}, dice, campaign=s.campaign, turn=s.turn)
    (board,) = RULESET.boards(s, "war", {"battles": [battle]}, dice.rolls, res.checks, res.drafts)
    assert board.title == f"Battle {s.battles + 1}"  # its number, not the battle's id ("Battle W1"): issue 29
    assert [u.stats[:3] for side in board.sides for u in side.units] == [("HP 16 of 16", "OM +3", "DV 13"),
                                                                         ("HP 11 of 11", "OM +2", "DV 12")]
    melee = [x.text for x in board.lines if board.round_title(x.round) == "Melee phase 1"]
    assert melee == ["Guard Offense vs Orcs: d20 14 +5 = 19, success", "Orcs Offense vs Guard: d20 12 +2 = 14, success",
                     "Orcs Morale (rout): d20 9 +0 = 9, failure",
                     "After the melee phase 1: Guard: deals 10 damage, HP 16 → 13; Orcs: deals 3 damage, HP 11 → 1,"
                     " routed, Morale (rout) failed."]
    after = "Aftermath (the victor's Loyalty checks, a commander's fate)"
    assert [board.round_title(n) for n in board.rounds] == ["Melee phase 1", "Parting shots", after]
    assert board.outcome[0] == "Guard: victorious, HP 13, Morale +1, learns Defensive Wall"
    html = str(board_html(board, res.checks, dice.rolls))
    # d20 +5 against DV 12 deals damage above 12 or on a natural 20: 8-20, 65%
    assert odds_words(res.checks["w1_r1_ours"]) == "failure 35.0% · success 65.0%"
    assert odds_words(res.checks["w1_r1_ours"]) in html


def test_an_aikakirjat_war_year_as_a_board() -> None:
    """§4.5, the war turn worked by hand in tests/aikakirjat/test_war.py: our 8 militia in p-march attack
    Tuonela's 20 in t-border; we hit (d20 10 + Loyalty 2 = 12 vs defence 11) for 3d4 = 9, they hit back
    (8 + 3 = 11 vs 11) for 1d6 = 4: militia left 4 and 11. The board: both sides' armies, the initiative, each
    war turn's rolls (the hit rolls with their chances) and what it left, the war going on."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "aikakirjat"))
    from test_war import at_war

    from kingdomlog.core.ruleset import find_ruleset

    rs = find_ruleset("aikakirjat")
    _, p = at_war()
    i = [s.phase.id for s in p.steps].index("war")
    st, before = p.steps[i], p.steps[i - 1].state_after
    (board,) = rs.boards(before, "war", st.choices, st.rolls, st.checks, st.drafts)
    assert board.title == "War against Tuonela"
    assert [(s.label, [u.stats for u in s.units]) for s in board.sides] == [
        ("Our kingdom", [("militia 8", "in p-march")]), ("Tuonela", [("militia 20", "in t-border")])]
    first = [x.text for x in board.lines if x.round == 1]
    assert first == ["Our kingdom: Warfare vs DC 11: d20 10 +2 = 12, success",
                     "Our kingdom damage: 3d4 = 4, 3, 2 (9)",
                     "Tuonela's attack vs DC 11: d20 8 +3 = 11, success",
                     "Tuonela damage: 1d6 = 4 (4)",
                     "After war turn 1: orders: p-army1 attacks t-army1; t-army1 holds; militia left: our kingdom 4,"
                     " Tuonela 11."]
    assert [board.round_title(n) for n in board.rounds] == ["The year's set-up (initiative)", "War turn 1",
                                                            "War turn 2", "War turn 3", "War turn 4"]
    assert board.outcome == ("The war goes on next year.",)
    html = str(board_html(board, st.checks, st.rolls))
    assert odds_words(st.checks["w.t1.p1.eng.melee.players.hit"]) in html


def test_a_signoria_battle_as_a_board() -> None:
    """§10.7, the battle worked by hand in tests/signoria/test_worked_turn.py, told with names (factions, characters,
    tactics and options in words): Fabian (8 units, Breakthrough)
    storms Marburg's field army (6 units, Hold); round 1 Fabian's main group 8 dice at 5+ (6 5 2 3 6 1 4 5: four
    successes, the sixes explode), Marburg 6 dice at 4+ (4 6 2 5 1 3: three); Fabian 1 kill 4 routs, Marburg 1 kill
    2 routs; round 2 Marburg broken: Fabian wins."""
    from signoria.play import Game as SGame
    from signoria.test_worked_turn import SETUP, START, TURN5

    from kingdomlog.rulesets.signoria import RULESET as SIG

    g = SGame(initial_resources=START)
    g.play(SETUP)
    plan = Plan.parse(dict(TURN5))
    pv = preview_turn(SIG, g.state, plan, campaign="test", turn=plan.turn or g.state.turn + 1,
                      start_seq=len(g.events), seed="test-seed")
    i = [s.phase.id for s in pv.steps].index("p3_war")
    st, before = pv.steps[i], pv.steps[i - 1].state_after
    (board,) = SIG.boards(before, "p3_war", st.choices, st.rolls, st.checks, st.drafts)
    assert [s.label for s in board.sides] == ["Attacker: Duke Fabian", "Defender: Doge of Marburg"]
    assert board.sides[0].units[0].stats == ("8 units", "reserve 0", "tactic breakthrough in the centre")
    r1 = [x.text for x in board.lines if x.round == 1]
    assert r1[0] == "Duke Fabian, main group: 8 dice at 5+: 6 5 2 3 6 1 4 5 → 4 successes"
    assert r1[3] == "Doge of Marburg, main group: 6 dice at 4+: 4 6 2 5 1 3 → 3 successes"
    assert r1[-1] == ("After round 1: Doge Andrea: field hospital; Duke Fabian: kills 1, routs 4, hospital 2, 5 units"
                      " still engaged; Doge of Marburg: kills 1, routs 2, 1 units still engaged.")
    assert board.outcome[0] == "Duke Fabian wins (broken)."
    html = str(board_html(board, st.checks, st.rolls))
    chances = odds_words(st.checks["b5.1.r1.attacker.main"])  # 8 dice at 5+: 3 successes 27.3%, ...
    assert "3 successes 27.3%" in chances and chances.replace("<", "&lt;") in html
