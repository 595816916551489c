"""What Signoria's rules write for a person to read names factions, characters and places by their names, never an
id or a key (issue 29): the questions it asks (a double agent, a double agent's order, a defender's response, a
battle's declarations) and the notices it sends; a question posted before, with ids, is told again in words from
what it recorded wherever it is shown (the orders sheet, ``kingdomlog answer``, the GM sheet), the log unchanged."""

from __future__ import annotations

import contextlib
import io
import re
import shutil
from pathlib import Path
from typing import Any

from kingdomlog.app import Campaign, pbp
from kingdomlog.cli import main as cli
from kingdomlog.core.core_events import QuestionOption, QuestionPosed
from kingdomlog.core.events import Draft
from kingdomlog.core.turn import Plan, preview_turn
from kingdomlog.core.viewers import GM_VIEWER, Viewer
from kingdomlog.rulesets.signoria import RULESET
from kingdomlog.rulesets.signoria.battle import Fighter, SideSetup
from kingdomlog.rulesets.signoria.decide import _declaration_question, _response_question
from kingdomlog.rulesets.signoria.mapview import notice_words, question_words

from .make_demo import DEMO
from .play import Game, setup_plan, turn_plan

IDS = ("fabian", "marburg", "lorenzo", "cesare", "orsino", "bianca", "felmonte", "gusso")
RAW = re.compile(rf"\b(?:{'|'.join(IDS)})\b|\b[a-z]\w*\.\w+|\b[a-z]+_[a-z_]+\b|\bO1\b")
"""A raw id or key in a text: a faction's or character's id (names are capitalised), a dotted key
(``fabian.O1``, ``b3.1``), a snake_case id, an order's id."""


def raw(*texts: str) -> list[str]:
    return [m.group(0) for t in texts for m in RAW.finditer(t)]


def game() -> Game:
    g = Game()
    g.play(setup_plan())
    return g


def asked(g: Game, plan: dict[str, Any]) -> list[Any]:
    pv = preview_turn(RULESET, g.state, Plan.parse(plan), campaign="test", turn=plan["turn"],
                      start_seq=len(g.events), seed="test-seed")
    assert pv.ok, pv.error
    return pv.questions


def test_a_bribe_tried_is_asked_and_told_by_names() -> None:
    """§6.3-6.4: Fabian's bribe of Lorenzo fails lightly; Marburg is asked whether to turn him and told who
    tried, by name; the GM's ruling names both (it read "marburg tried to bribe Lorenzo (fabian.O1) ...")."""
    g = game()
    plan = turn_plan(1, command={"fabian": ("high", [6, 6])}, orders={"fabian": [
        {"id": "O1", "action": "bribery", "slots": ["ordinary"], "stake": "high", "target": "lorenzo",
         "params": {"wealth": 2, "on_success": "spy"}}]}, steps={"p2_espionage": {"rolls": {"fabian.O1.1": [3, 3]}}})
    q = next(q for q in asked(g, plan) if q.kind == "double_agent")
    assert q.prompt == ("Duke Fabian tried to bribe Lorenzo. Make him a double agent? Duke Fabian will then "
                        "believe the bribe worked (§6.4).")
    new = g.play(plan)
    note = next(n for n in g.state.notices["marburg"] if n.kind == "bribe_attempt")
    ruling = next(e.payload for e in new if e.type == "signoria.gm_ruling" and e.payload.gap == "§6.3")
    assert (note.text, ruling.text) == ("Duke Fabian tried to bribe Lorenzo", "the bribe of Lorenzo by Duke Fabian: "
                                                                            "light failure")
    assert raw(q.prompt, *(a.label for a in q.options), note.text, ruling.text) == []


def test_a_double_agent_s_order_is_asked_and_told_by_names() -> None:
    """§6.4: Lorenzo, turned, is Fabian's believed spy; Fabian orders him to intrigue against Marburg. Marburg is
    asked in words (it read "fabian believes Lorenzo is its spy and orders him: intrigue_foreign (low, target
    marburg)"); not carried out, both notices say the order in words, and Marburg's report names Lorenzo."""
    g = game()
    g.play(turn_plan(1, command={"fabian": ("high", [6, 6])}, orders={"fabian": [
        {"id": "O1", "action": "bribery", "slots": ["ordinary"], "stake": "high", "target": "lorenzo",
         "params": {"wealth": 2, "on_success": "spy"}}]},
        steps={"p2_espionage": {"rolls": {"fabian.O1.1": [3, 3]}, "choices": {"double_agents": {"fabian.O1": True}}}}))
    plan = turn_plan(2, orders={"fabian": [
        {"id": "X", "action": "intrigue_foreign", "slots": ["spy:lorenzo"], "stake": "low", "target": "marburg"}]})
    q = next(q for q in asked(g, plan) if q.kind == "double_agent_order")
    assert q.prompt == ("Duke Fabian believes Lorenzo is its spy and orders him to intrigue against Doge of Marburg "
                        "(low stake). Carry it out? (§6.4)")
    g.play(plan)
    told = next(n for n in g.state.notices["marburg"] if n.kind == "double_agent_order")
    report = g.state.notices["fabian"][-1]
    assert told.text == "Duke Fabian ordered Lorenzo to intrigue against Doge of Marburg (not carried out)"
    assert report.text == "Lorenzo reports that your order to intrigue against Doge of Marburg failed"
    assert notice_words(g.state, told.kind, told.text, dict(told.data), "marburg", "marburg") == (
        "Duke Fabian ordered Lorenzo to intrigue against Doge of Marburg; it was not carried out")
    assert raw(q.prompt, told.text, report.text) == []


def test_an_army_s_arrival_and_a_battle_s_declarations_are_asked_by_names() -> None:
    """§5.2, §5.5-5.7: the defender is asked how it meets "Doge of Marburg's army" (it read "marburg's army ...
    (direct)"); a side's declarations name the battle by its place, the enemy by name and each character by his
    name (they read "Battle b1.1 at fabia ... marburg's 5", "fabian.leader (leader): ...", "epic duel with
    marburg.leader")."""
    s = game().state
    q = _response_question(s, "1.marburg.W", "fabian", "marburg", "Fabia", "direct", {"response": "battle"})
    assert q.prompt.startswith("Doge of Marburg's army has arrived at Fabia across its border. Fight a battle now")
    me = SideSetup("fabian", 4, "hold", characters=(Fighter("fabian.leader", True, True), Fighter("cesare", False,
                                                                                                  False)))
    opp = SideSetup("marburg", 5, "encirclement", characters=(Fighter("marburg.leader", True, True),))
    d = _declaration_question(s, "1.marburg.W", "fabia", 1, "defender", me, opp, (), set())
    labels = [a.label for a in d.options]
    assert d.prompt.startswith("The battle at Fabia: your 4 units (hold) against Doge of Marburg's 5 (encirclement).")
    assert "Duke Fabian (leader): epic duel with Doge of Marburg" in labels
    assert "Cesare (statesman): field hospital" in labels
    assert raw(q.prompt, d.prompt, *labels, *(a.label for a in q.options)) == []


OLD = {  # the prompts and labels decide.py posted before issue 29, as a log holds them
    "double_agent": ("marburg tried to bribe Cesare (marburg.S2). Make him a double agent? marburg will then believe "
                     "the bribe worked (§6.4).", []),
    "double_agent_order": ("marburg believes Cesare is its spy and orders him: scouts (high, target fabian). Carry it "
                           "out? (§6.4)", []),
    "defender_response": ("marburg's army has arrived at Fabia (direct). Fight a battle now or shut the gates? Your "
                          "home force is 2 units (§5.2).", ["battle: hold position"]),
    "battle_declaration": ("Battle b8.1 at fabia: your 2 units (hold) against marburg's 4 (hold). Round 1: which of "
                           "your characters use an option (§5.5-5.7)? Unanswered: none.",
                           ["no option this round", "fabian.leader (leader): field hospital",
                            "fabian.leader (leader): epic duel with marburg.leader"]),
}
NEW = {
    "double_agent": "Doge of Marburg tried to bribe Cesare. Make him a double agent? Doge of Marburg will then believe "
                    "the bribe worked (§6.4).",
    "double_agent_order": "Doge of Marburg believes Cesare is its spy and orders him to send scouts to Duke Fabian "
                          "(high stake). Carry it out? (§6.4)",
    "defender_response": "Doge of Marburg's army has arrived at Fabia across its border. Fight a battle now or shut "
                         "the gates? Your home force is 2 units (§5.2).",
    "battle_declaration": "The battle at Fabia: your 2 units (hold) against Doge of Marburg's 4 (hold). Round 1: "
                          "which of your characters use an option (§5.5-5.7)? Unanswered: none.",
}


def test_a_question_posted_with_ids_is_told_in_words() -> None:
    """Each prompt (and label) decide.py wrote with ids is said again by names from what it recorded; a prompt of
    another kind, or one it cannot read, is as recorded."""
    s = game().state
    for kind, (prompt, labels) in OLD.items():
        said, named = question_words(s, kind, prompt, labels)
        assert said == NEW[kind], kind
        assert raw(said, *named) == [], (kind, said, named)
    assert question_words(s, "battle_declaration", *OLD["battle_declaration"])[1] == [
        "no option this round", "Duke Fabian (leader): field hospital",
        "Duke Fabian (leader): epic duel with Doge of Marburg"]
    assert question_words(s, "dilemma", "marburg asks", ["x_y"]) == ("marburg asks", ["x_y"])
    assert question_words(s, "double_agent", "something else", []) == ("something else", [])


def test_every_place_a_question_is_shown_words_an_old_one(tmp_path: Path) -> None:
    """A double-agent question posted to Fabian with ids (as the log of a campaign played before issue 29 holds
    it): Fabian's questions (the orders sheet's), ``kingdomlog answer``'s listing and the GM's questions say it
    by names; the log keeps the text it recorded."""
    folder = tmp_path / "felmonte"
    shutil.copytree(DEMO, folder, ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    camp = Campaign.open(folder)
    prompt = OLD["double_agent"][0]
    posed = QuestionPosed(turn=8, question="double_agent:marburg.S2", to="fabian", kind="double_agent", prompt=prompt,
                          step="p2_espionage", path=("double_agents", "marburg.S2"), default=False,
                          options=(QuestionOption(value=True, label="yes"), QuestionOption(value=False, label="no")))
    camp.append_raw([Draft(posed, visibility="faction:fabian", turn=8)])
    for v in (Viewer("player", "fabian"), GM_VIEWER):
        assert [q.prompt for q in pbp.questions(camp, v)] == [NEW["double_agent"]], v
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli(["answer", str(folder), "--as", "fabian"]) == 0
    assert NEW["double_agent"] in out.getvalue() and "marburg.S2)" not in out.getvalue()
    assert [e.payload.prompt for e in Campaign.open(folder).events() if e.type == "core.question_posed"] == [prompt]


def test_the_gm_sheet_names_who_answered_and_who_is_awaited(tmp_path: Path) -> None:
    """The GM sheet says whose answer fills a step, whose orders came in and whom the month waits for by the
    player's name ("Answered by Duke Fabian: dilemma: open the granaries", "waiting for Doge of Marburg"), not its
    id ("fabian"); the publish button names whom the opening asked."""
    from kingdomlog.views.extras.signoria import publish_opening
    from kingdomlog.views.sheet.draft import load_start
    from kingdomlog.views.sheet.panel import table_status_html

    from .test_pbp import FABIAN, NOW, OPENING, copy

    camp = copy(tmp_path)
    done = publish_opening(camp.folder, Plan.parse(OPENING), {"orders_due": ""}, now=NOW)
    assert "questions 1 to Duke Fabian, 1 to Doge of Marburg" in done.text, done
    pbp.answer(camp, FABIAN, "dilemma:winter_relief", "give", now=NOW)
    start = load_start(camp.folder, check_forms=False)
    assert start.answered["orders_fabian"] == (("Duke Fabian", "dilemma: open the granaries"),)
    html = str(table_status_html(camp))
    assert "waiting for Doge of Marburg: Candidate" in html and "<th>Duke Fabian</th>" in html, html


def test_a_dilemma_answered_is_ruled_in_words() -> None:
    """G-29: the ruling a dilemma's answer records (the faction reads it) says the dilemma and its answer in the
    GM's words, not their ids ("dilemma flood: dam")."""
    g = game()
    opening = {"dilemmas": [{"faction": "fabian", "id": "flood", "text": "The river rises",
                             "options": [{"id": "dam", "text": "build a dam", "effects": []}]}]}
    new = g.play(turn_plan(1, opening=opening, orders={"fabian": {"orders": [], "dilemmas": {"flood": "dam"}}}))
    ruling = next(e for e in new if e.type == "signoria.gm_ruling" and e.payload.gap == "G-29")
    assert (ruling.payload.text, ruling.visibility) == (
        "to the dilemma “The river rises” the answer was: build a dam", "faction:fabian")


def test_kingdomlog_answer_says_an_answer_as_the_orders_page_does(tmp_path: Path) -> None:
    """``kingdomlog answer`` says a candidate's options and the answer given as the orders page and the GM sheet
    say them ("Hire (1 wealth, one slot)", "answered: Hire", "candidate: Hire"), not the value the answer stores
    ("hire"); the words listed are an answer it takes; the log keeps "hire"."""
    from kingdomlog.views.sheet.draft import load_start

    from .test_pbp import MARBURG, NOW, OPENING, copy

    camp = copy(tmp_path)
    pbp.publish(camp, Plan.parse(OPENING), now=NOW)
    folder = str(camp.folder)

    def said(*args: str) -> str:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert cli(["answer", folder, *args, "--as", "marburg"]) == 0
        return out.getvalue()

    listed = said()
    assert "1. Hire (1 wealth, one slot)" in listed and "2. Pass" in listed, listed
    assert said("candidate:t8.c1", "Hire").splitlines()[0].endswith(": Hire")
    assert "[answered: Hire]" in said(), said()
    assert [q.answer for q in pbp.questions(Campaign.open(folder), MARBURG)] == ["hire"]
    start = load_start(camp.folder, check_forms=False)
    assert start.answered["orders_marburg"] == (("Doge of Marburg", "candidate: Hire"),)


def test_kingdomlog_status_says_a_question_s_kind_in_words(tmp_path: Path) -> None:
    """The GM's ``kingdomlog status`` says what kind of question it waits for in words ("defender response"), not
    the kind's key ("defender_response")."""
    from kingdomlog.app import submissions as subs

    from .test_pbp import FABIAN, MARBURG, NOW, WAR, copy

    camp = copy(tmp_path)
    subs.submit(camp, MARBURG, {"command_marburg": {"choices": {"stake": "low"}}, "orders_marburg": WAR}, now=NOW)
    for v in (FABIAN, MARBURG):
        pbp.mark_ready(camp, v, now=NOW)
    pbp.advance(camp, now=NOW)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli(["status", str(camp.folder)]) == 0
    waiting = [ln for ln in out.getvalue().splitlines() if ln.strip().startswith("waiting for Duke Fabian")]
    assert len(waiting) == 1 and "(defender response;" in waiting[0], out.getvalue()
