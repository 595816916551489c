"""The aikakirjat war year's widgets (issue 30, §4.5): the orders, peace and extra attacks per war turn and the
other wars' entries (``fronts``) are widgets filled from the war (its turns, its armies, the other side's armies to
attack, the orders in words), read back into the plan they were built from; no JSON text field."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import marimo as mo

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "aikakirjat"))

from test_war import at_war

from kingdomlog.core.ruleset import find_ruleset
from kingdomlog.rulesets.aikakirjat.state import KingdomState
from kingdomlog.views import forms as sf

RS = find_ruleset("aikakirjat")
ATTACK = {"army_id": "p-army1", "kind": "attack", "target": "t-army1"}
CHOICES: dict[str, Any] = {
    "allocations": [{"army_id": "p-army1", "province_id": "p-march", "militia": 8}],
    "enemy_allocations": [{"army_id": "t-army1", "province_id": "t-border", "militia": 20}],
    "orders": {"1": [ATTACK], "2": [{"army_id": "p-army1", "kind": "move", "path": ["p-march", "p-home"]}]},
    "enemy_orders": {"1": [{"army_id": "t-army1"}]},
    "peace": {"2": {"attempt": True}, "3": {"provinces_demanded": ["t-border"]}},
}


def before_the_war() -> KingdomState:
    """§4.5's worked war (tests/aikakirjat/test_war.py): the state the war step starts from."""
    _, p = at_war()
    i = [s.phase.id for s in p.steps].index("war")  # type: ignore[attr-defined]
    state: KingdomState = p.steps[i - 1].state_after  # type: ignore[attr-defined]
    return state


def with_feats(s: KingdomState, who: str, *feats: str) -> KingdomState:
    n = s.neighbours[who]
    prof = n.profile.model_copy(update={"feats": feats})
    return s.model_copy(update={"neighbours": {**s.neighbours, who: n.model_copy(update={"profile": prof})}})


def fields(specs: Any) -> dict[str, Any]:
    return {f.name: f for f in specs}


def test_the_war_turns_are_the_wars_own_in_words() -> None:
    """§4.5.1: 4 war turns, 6 when the attacker has Advanced Logistics (here Tuonela defends: still 4); each key
    is 'War turn n'; an extra attack needs General Staff (§3.6, A66): offered to no side without it."""
    s = before_the_war()
    f = fields(RS.choices(s, 1, "war", CHOICES))
    assert [x.label for x in f["orders"].fields] == ["War turn 1", "War turn 2", "War turn 3", "War turn 4"]
    assert [x.name for x in f["peace"].fields] == ["1", "2", "3", "4"]
    assert f["extra_attacks"].fields == () and f["enemy_extra_attacks"].fields == ()
    assert {o.disabled for o in f["extra_attacks"].options or ()} == {"needs General Staff (§3.6)"}
    f = fields(RS.choices(with_feats(s, "tuonela", "general_staff"), 1, "war", CHOICES))
    assert [x.name for x in f["enemy_extra_attacks"].fields] == ["1", "2", "3", "4"]
    assert f["extra_attacks"].fields == ()


def test_an_orders_picks_come_from_the_war_year() -> None:
    """An order's army is one of the year's (as allocated); the army it attacks is the other side's; the orders
    are said in words; the march is picked in order, two provinces at most (a road, §4.5.2); '+ Order' adds one."""
    s = before_the_war()
    f = fields(RS.choices(s, 1, "war", CHOICES))
    turn1 = f["orders"].fields[0]
    order = fields(turn1.entries[0])
    assert [o.value for o in order["army_id"].options or ()] == ["p-army1", "t-army1"]
    assert [o.value for o in order["target"].options or ()] == ["t-army1"]
    assert [(o.value, o.label) for o in order["kind"].options or ()] == [
        ("attack", "attack"), ("move", "march"), ("hold", "hold")]
    assert (order["path"].kind, order["path"].item_kind, order["path"].maximum) == ("list", "select", 2)
    add = sf.add_widget(turn1).text  # named by the entry ("+ Order"), not by the war turn ("+ War turn 1")
    assert "+ Order" in add and "War turn" not in add
    enemy = fields(f["enemy_orders"].fields[0].entries[0])
    assert [o.value for o in enemy["target"].options or ()] == ["p-army1"]


def test_left_empty_the_armies_are_the_rules_defaults() -> None:
    """No allocation given: the order's armies are those the rules field (all our militia in one army in our first
    province, all Tuonela's in one of its own; A55)."""
    s = before_the_war()
    f = fields(RS.choices(s, 1, "war", {"orders": {"1": [{"army_id": ""}]}}))
    order = fields(f["orders"].fields[0].entries[0])
    assert [(o.value, o.detail) for o in order["army_id"].options or ()] == [
        ("p-army1", "ours, militia 8 in p-home"), ("tuonela-army1", "Tuonela, militia 20 in t-border")]


def test_the_war_year_read_back_from_its_widgets() -> None:
    """Built from a plan's choices and read back untouched, the widgets give that plan; none is a JSON text field."""
    s = before_the_war()
    specs = RS.choices(s, 1, "war", CHOICES)
    tree = sf.choice_widgets(specs, CHOICES)
    assert not any(isinstance(w, mo.ui.text_area) for w in sf.flatten(tree).values())
    flat = dict(mo.ui.dictionary(sf.flatten(tree)).value)
    out = sf.Read()
    got = sf.read_fields(specs, sf.unflatten(flat), CHOICES, (), out)
    assert out.errors == []
    for k in ("allocations", "enemy_allocations", "orders", "peace"):
        assert got[k] == CHOICES[k], k
    assert got["enemy_orders"] == {"1": [{"army_id": "t-army1"}]}


def test_another_wars_entry_has_that_wars_turns() -> None:
    """Two wars (A55): the second's entry in ``fronts`` offers its own war turns: six, its attacker (Tuonela) having
    Advanced Logistics (§4.5.1, A56: turns 5-6 only the attacker moves)."""
    s = before_the_war()
    first = s.wars[0]
    second = first.model_copy(update={"war_id": "w-2", "attacker": "tuonela", "defender": "players"})
    s = with_feats(s.model_copy(update={"wars": (first, second)}), "tuonela", "advanced_logistics")
    f = fields(RS.choices(s, 1, "war", {"fronts": [{"war_id": "w-2"}]}))
    entry = fields(f["fronts"].entries[0])
    turns = entry["orders"].fields
    assert [x.label for x in turns] == [f"War turn {n}" for n in range(1, 7)]
    assert "only the attacker" in (entry["orders"].options or ())[4].detail
    assert [x.name for x in f["orders"].fields] == ["1", "2", "3", "4"]  # the first war: we attack, no logistics


# ---- signoria: the battle's declarations and the defender's answer, on the GM's side ------------------------------


def test_a_signoria_battles_declarations_in_words_and_the_defenders_answer_on_the_card(tmp_path: Path) -> None:
    """Month 8 of Felmonte, Marburg marching on Fabia (§5.1): the GM's card names the campaign ('Doge of Marburg's
    march on Fabia'), its rounds ('Round 1': the clash) and each option in words (§5.5-5.6); '+ Declaration' adds
    one; once Fabian answers from its own page, the card says what it answered (its answer fills the plan)."""
    import shutil

    from nb_support import REPO
    from test_war_board_browser import CAMPAIGN, prepare_signoria_war

    from kingdomlog.app import Campaign, pbp
    from kingdomlog.app import submissions as subs
    from kingdomlog.core.turn import Plan
    from kingdomlog.core.viewers import Viewer
    from kingdomlog.views.sheet import draft as sheet

    folder = tmp_path / "felmonte"
    shutil.copytree(REPO / "campaigns" / "felmonte", folder, ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    prepare_signoria_war(folder)
    camp = Campaign.open(folder)
    fabian = Viewer("player", "fabian")
    q = next(x for x in pbp.questions(camp, fabian) if x.kind == "defender_response")
    pbp.answer(camp, fabian, q.id, next(o.value for o in q.options if o.label.startswith("battle: encirclement")))
    assert sheet.load_start(folder, check_forms=False).answered["p3_war"] == (
        ("Duke Fabian", "defender response: battle: encirclement"),)
    camp = Campaign.open(folder)
    pv = camp.preview(subs.with_submissions(camp, Plan(turn=8)))
    i = [s.phase.id for s in pv.steps].index("p3_war")
    before = pv.steps[i - 1].state_after
    sig = camp.ruleset
    f = fields(sig.choices(before, 8, "p3_war", {}))
    rounds = f["declarations"].fields[0]
    assert (rounds.name, rounds.label) == (CAMPAIGN, "Doge of Marburg's march on Fabia")
    assert [(x.label, x.help) for x in rounds.fields][:2] == [
        ("Round 1", "the clash"), ("Round 2", "after casualties and routs (§5.3)")]
    entry = fields(rounds.fields[0].fields)
    options = {o.value: o.label for o in entry["option"].options or ()}
    assert options["join"] == "joins the battle" and options["fight_to_last"] == "fight to the last!"
    assert "+ Declaration" in sf.add_widget(rounds.fields[0]).text


def _signoria_war(declarations: dict[str, Any] | None = None) -> tuple[Any, Any, Any, Any]:
    """§10.7's worked battle (tests/signoria/test_worked_turn.py: Fabian's march on Marburg sends Orsino; Marburg
    answers with its Doge and Lorenzo), with ``declarations`` in place of its own: the ruleset, the plan, the war
    step and the state before it."""
    import copy

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from signoria.play import Game as SGame
    from signoria.test_worked_turn import SETUP, START, TURN5

    from kingdomlog.core.turn import Plan, preview_turn

    sig = find_ruleset("signoria")
    g = SGame(initial_resources=START)
    g.play(SETUP)
    raw = copy.deepcopy(dict(TURN5))
    if declarations is not None:
        raw["steps"]["p3_war"]["choices"]["declarations"] = declarations
    plan = Plan.parse(raw)
    pv = preview_turn(sig, g.state, plan, campaign="test", turn=plan.turn or g.state.turn + 1,
                      start_seq=len(g.events), seed="test-seed")
    i = [s.phase.id for s in pv.steps].index("p3_war")
    return sig, plan, pv.steps[i], pv.steps[i - 1].state_after


def test_a_signoria_declaration_offers_that_sides_fighters_only() -> None:
    """§5.5, §5.7: a battle declaration names a character fighting on its side in that battle: the attacker's those
    its war order sent (Orsino), the defender's those its answer names (Doge Andrea, Lorenzo); the side's others are
    shown not choosable, in words; no other faction's character is offered."""
    from signoria.test_worked_turn import CAMPAIGN

    sig, _, st, before = _signoria_war()
    specs = fields(sig.choices(before, before.turn, "p3_war", st.choices))
    battle = next(b for b in specs["declarations"].fields if b.name == CAMPAIGN)
    seen = {}
    for rnd in battle.fields:
        for entry, given in zip(rnd.entries, st.choices["declarations"][CAMPAIGN].get(rnd.name, []), strict=True):
            offered = fields(entry)["character"].options or ()
            side = given["side"]
            seen[side] = ([o.label for o in offered if not o.disabled], {o.label: o.disabled for o in offered
                                                                          if o.disabled})
    assert seen["defender"] == (["Doge Andrea", "Lorenzo"], {"Bianca": "not in this battle"})  # the refusal: whole
    assert seen["attacker"][0] == ["Orsino"] and set(seen["attacker"][1]) == {"Duke Fabian", "Cesare"}


def test_a_signoria_declaration_naming_another_character_is_refused_in_words() -> None:
    """Cesare stayed at home: declaring him for Fabian's army is refused where it enters, naming him; keyed by the
    battle's own id (which the form cannot place) the rules refuse it naming him, the battle and who fights there."""
    from signoria.test_worked_turn import CAMPAIGN

    cesare = [{"side": "attacker", "character": "cesare", "option": "hospital"}]
    *_, st, _ = _signoria_war({CAMPAIGN: {"1": cesare}})
    assert st.error is not None and "Cesare is not in Duke Fabian's army in this battle" in st.error
    *_, st, _ = _signoria_war({"b5.1": {"1": cesare}})
    assert st.error is not None and ("the battle of Marburg, round 1: Cesare does not fight for Duke Fabian (the "
                                     "attacker) there; its characters in this battle: Orsino") in st.error


def test_an_epic_duel_offers_the_enemy_leader_in_that_battle_only() -> None:
    """§5.6 (G-16, ``epic_duel_target`` = ``enemy_leader_only``): an epic duel declared for Fabian's army (Orsino)
    may target the Doge of Marburg's leader fighting in that battle (Doge Andrea); Lorenzo, in the battle but no
    leader, and Bianca, at home, are shown not choosable, in words; no other faction's character (Fabian's own) is
    offered. A plan naming another is refused where it enters, naming him."""
    from signoria.test_worked_turn import CAMPAIGN

    duel = [{"side": "attacker", "character": "orsino", "option": "epic_duel", "target": "andrea"}]
    sig, _, st, before = _signoria_war({CAMPAIGN: {"1": duel}})
    specs = fields(sig.choices(before, before.turn, "p3_war", st.choices))
    battle = next(b for b in specs["declarations"].fields if b.name == CAMPAIGN)
    target = fields(battle.fields[0].entries[0])["target"]
    offered = {o.label: o.disabled for o in target.options or ()}
    # short in the dropdown (it read "✗ Lorenzo — Lorenzo is not the leader of Doge of Marburg's army: an epic duel
    # targets the enemy leader (§5.6)", 608 px in an entry's 346 on a phone), whole in the refusal below
    assert offered == {"Doge Andrea": "", "Lorenzo": "not the enemy leader (§5.6)", "Bianca": "not in this battle"}
    assert {o.label: o.detail for o in target.options or ()}["Doge Andrea"] == "the enemy leader"
    *_, st, _ = _signoria_war({CAMPAIGN: {"1": [{**duel[0], "target": "bianca"}]}})
    assert st.error is not None and "Bianca is not in Doge of Marburg's army in this battle" in st.error, st.error
    *_, st, _ = _signoria_war({CAMPAIGN: {"1": [{**duel[0], "target": "cesare"}]}})  # Fabian's own, at home
    assert st.error is not None and "'cesare' is not the enemy leader in this battle" in st.error, st.error
    *_, st, _ = _signoria_war({CAMPAIGN: {"1": [{**duel[0], "target": "lorenzo"}]}})
    assert st.error is not None and "Lorenzo is not the leader of Doge of Marburg's army" in st.error, st.error
