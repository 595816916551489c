"""One vocabulary layer (issue 29): every id a person sees is named in words by its ruleset's ``name_of``, and the
sheet's roll lines and check titles say what is rolled, not the roll's key."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from nb_support import demo_session

from kingdomlog.core.choices import describe
from kingdomlog.core.ruleset import Ruleset, find_ruleset
from kingdomlog.dice.checks import CheckSpec
from kingdomlog.dice.roller import Roll
from kingdomlog.views.sheet import cards
from kingdomlog.views.words import roll_name

REPO = Path(__file__).resolve().parents[2]


def test_each_ruleset_names_its_ids_in_words() -> None:
    pf2e, sig = find_ruleset("pf2e-kingmaker"), find_ruleset("signoria")
    assert pf2e.name_of("natures-blessing", "event") == "Nature's Blessing"
    assert pf2e.name_of("quell-unrest", "activity") == "Quell Unrest"
    assert pf2e.name_of("pull-together:claim-hex", "check") == "Pull Together for Claim Hex"
    assert pf2e.name_of("upkeep.leadership", "step") == "Upkeep: Start of Turn, Assign Leadership"
    assert sig.name_of("cmd.1", "roll") == "the command roll" and sig.name_of("cmd.2", "roll") == "reroll 1"
    assert sig.name_of("hire_troops", "action") == "hire troops" and sig.name_of("b7.1") == "battle 1 of month 7"
    assert sig.name_of("command_fabian", "step") == "Command roll: Duke Fabian (§3.1)"
    assert find_ruleset("aikakirjat").name_of("between_years", "phase") == "between years"
    assert Ruleset().name_of("felmonte_offer") == "felmonte offer"


def test_signorias_actions_are_offered_by_their_names() -> None:
    from kingdomlog.rulesets.signoria.choices import orders_choices
    from kingdomlog.rulesets.signoria.state import SignoriaState

    sig = find_ruleset("signoria")
    order = next(f for f in describe(orders_choices("fabian"), state=SignoriaState(), vocabulary=sig.vocabulary)
                 if f.name == "orders").fields
    action = next(f for f in order if f.name == "action")
    texts = {o.value: o.text for o in action.options or ()}
    assert texts["hire_troops"] == "hire troops" and texts["intrigue_self"] == "intrigue at home"
    assert texts["felmonte_offer"] == "make Felmonte an offer"


def test_a_roll_line_says_what_is_rolled_not_its_key() -> None:
    checks = {"a1": CheckSpec("pf2e", modifier=9, dc=16, label="Quell Unrest, Ruler")}
    line = cards.roll_result_html(Roll("a1.e1.o0.e1", "1d4", (2,), (2,), 2), None,
                                  roll_name("a1.e1.o0.e1", checks))
    assert "Quell Unrest, Ruler: outcome dice, 1d4" in line and "A1 e1" not in line
    assert cards.check_title("a1", checks["a1"]) == "Quell Unrest, Ruler: d20 +9 vs DC 16"
    sig = find_ruleset("signoria")
    assert roll_name("cmd.1", {}, sig.name_of) == "The command roll"


def test_a_pf2e_check_is_titled_with_its_activity_and_leader() -> None:
    from kingdomlog.rulesets.pf2e.engine import CheckAt, _purpose_words

    assert CheckAt("quell-unrest", "leadership", role="ruler").label == "Quell Unrest, Ruler"
    assert CheckAt("claim-hex", "region", role="warden", hex="A5").label == "Claim Hex, Warden, on A5"
    assert CheckAt("claim-hex", "region", hex="B3").label == "Claim Hex on B3"
    spec = CheckSpec("flat", dc=11, label=_purpose_words("pull-together:claim-hex"))
    assert cards.check_title("a1.pull", spec) == "Pull Together for Claim Hex: DC 11 flat check"


def _signoria_war() -> tuple[Any, Any, Any]:
    """§10.7's worked battle (tests/signoria/test_worked_turn.py): the ruleset, the war step and the state before."""
    from signoria.play import Game as SGame
    from signoria.test_worked_turn import SETUP, START, TURN5

    from kingdomlog.core.turn import Plan, preview_turn

    sig = find_ruleset("signoria")
    g = SGame(initial_resources=START)
    g.play(SETUP)
    plan = Plan.parse(dict(TURN5))
    pv = preview_turn(sig, g.state, plan, campaign="test", turn=plan.turn or g.state.turn + 1,
                      start_seq=len(g.events), seed="test-seed")
    i = [s.phase.id for s in pv.steps].index("p3_war")
    return sig, pv.steps[i], pv.steps[i - 1].state_after


def test_a_battles_dice_pools_say_what_is_rolled() -> None:
    """Issue 29: a battle's pool on the war card is titled by its battle's place, round, side and dice ("Battle of
    Marburg, round 1: the attacker's main army, 8 dice at 5+"), not its roll key ("B8 1 r1 attacker main", which
    the pages' raw-id pattern refuses); a pool logged with its key as its label reads the key in words."""
    from test_words_browser import RAW_ID

    from kingdomlog.dice.checks import PoolSpec
    from kingdomlog.views.sheet.board import board_html

    assert RAW_ID.search("B8 1 r1 attacker main: 7 dice") and RAW_ID.search("A1 e1 o0")
    sig, st, before = _signoria_war()
    pools = {k: s for k, s in st.checks.items() if s.pool is not None}
    titles = [cards.check_title(k, s, sig) for k, s in pools.items()]
    where = before.provinces[next(e.payload.province for e in st.drafts if e.type == "signoria.battle_opened")].name
    assert titles[0] == f"Battle of {where}, round 1: the attacker's main army, 8 dice at 5+"
    assert any("exploding sixes (wave 1)" in t for t in titles)
    assert [t for t in titles if RAW_ID.search(t)] == []
    assert [cards.check_title(k, s) for k, s in pools.items() if RAW_ID.search(cards.check_title(k, s))] == []
    (board,) = sig.boards(before, "p3_war", st.choices, st.rolls, st.checks, st.drafts)
    assert board.title == f"Battle of {where} (a field battle)"
    shown = re.sub(r"<[^>]*>", " ", str(board_html(board, st.checks, st.rolls)))  # its text, not its attributes
    assert "Battle of" in shown and not RAW_ID.search(shown)
    logged = CheckSpec("pool", pool=PoolSpec(7, 4), label="b8.1.r1.attacker.main")
    assert cards.check_title("b8.1.r1.attacker.main", logged, sig) == \
        "Battle 1 of month 8, round 1: the attacker's main army, 7 dice at 4+"
    pf2e = find_ruleset("pf2e-kingmaker")  # another ruleset's titles are the shared ones
    flat = CheckSpec("flat", dc=11, label="Pull Together for Claim Hex")
    assert cards.check_title("a1.pull", flat, pf2e) == cards.check_title("a1.pull", flat)


def _branches(effects: Any) -> list[Any]:
    """Every branch of every either/or among ``effects`` (nested ones too)."""
    out = []
    todo = list(effects or ())
    while todo:
        e = todo.pop(0)
        for branch in e.options:
            if e.kind == "choose":
                out.append(branch)
            todo += list(branch)
    return out


def test_every_pf2e_branch_the_gm_picks_is_said_in_words() -> None:
    """Each branch of an activity's or an event's either/or outcome, as the GM sheet offers it, reads as words: no
    'RP +Resource Dice', 'Ruin crime', 'Choice +5', 'Gm', 'Modifier', 'Relations: -1' or a snake_case key."""
    from test_words_browser import RAW_ID

    from kingdomlog.rulesets.pf2e import tables as T
    from kingdomlog.rulesets.pf2e.choices import DEGREES, _branch_words

    cat = T.catalog()
    said = []
    for item in [*cat.activities.values(), *cat.events.values()]:
        outcomes = getattr(item, "outcomes", None)
        for d in DEGREES:
            said += [_branch_words(b) for b in _branches(getattr(outcomes, d, None))]
    assert len(said) > 60
    bad = [t for t in said if RAW_ID.search(t) or re.search(
        r"\+Resource|Resource Dice of RP spent|RP spent|Ruin crime|\bChoice\b|^Gm\b|\bModifier$|Relations:|"
        r"\blast\b|\(\d+ Ruins\)|Boon bonus", t)]
    assert bad == []
    assert "RP +1 Resource Die; Crime (Ruin) + the same amount" in said  # Capital Investment, critical failure
    assert "Spend 2 Resource Dice of RP; a trade agreement" in said
    assert "Relations 1 step worse; a -2 circumstance modifier to Send Diplomatic Envoy (permanent)" in said
    assert "A Commodity of your choice +5" in said and "Unrest -1d6; every Ruin -1" in said


def test_an_events_branch_is_picked_by_its_words() -> None:
    """E2's either/or (an event's outcome: Diplomatic Overture) is a dropdown of its branches in words, each saying
    the degrees it is for, not a number to type (0, 1, ...)."""
    from pathlib import Path

    from kingdomlog.app import Campaign

    camp = Campaign.open(Path(__file__).resolve().parents[2] / "campaigns" / "stolen-lands")
    state = camp.turn_start().state
    step = next(s for s in camp.ruleset.all_steps if s.id == "event.resolve")
    option = next(f for f in describe(step.choices, state=state, vocabulary=camp.ruleset.vocabulary,
                                      values={"event": "diplomatic-overture"}) if f.name == "option")
    assert option.kind == "select" and option.label == "If the outcome asks: which"
    assert [(o.value, o.label) for o in option.options or ()] == [
        (0, "A Commodity of your choice +5"), (1, "Next turn: bonus Resource Dice +2"), (2, "A trade agreement")]
    assert (option.options or ())[1].detail == "on a critical success or success; on a critical failure: Spend 10 RP"
def test_a_pool_logged_with_any_other_label_reads_the_words_its_key_computes() -> None:
    """Issue 29: a battle pool logged before ``Ruleset.check_title`` (with its key, or a label in an older form) is
    titled on the GM sheet by the words its key computes, whatever label it carries; a label that is those words
    with the battle's place (which the key cannot name) is kept. The logged check is not changed."""
    from kingdomlog.dice.checks import PoolSpec

    sig = find_ruleset("signoria")
    key = "b8.1.r2.defender.reserve.x1"
    words = "Battle 1 of month 8, round 2: the defender's reserve, exploding sixes (wave 1), 3 dice at 5+"
    for label in ("B8 1 r2 defender reserve x1", "b8.1 r2 defender reserve", "pool", "", key,
                  "Battle of Fabia, round 1: the attacker's main army"):  # another pool's words: not this key's
        logged = CheckSpec("pool", pool=PoolSpec(3, 5), label=label)
        assert cards.check_title(key, logged, sig) == words, label
        assert logged.label == label
    placed = CheckSpec("pool", pool=PoolSpec(3, 5), label="Battle of Fabia, round 2: the defender's reserve, "
                                                          "exploding sixes (wave 1)")
    assert cards.check_title(key, placed, sig) == ("Battle of Fabia, round 2: the defender's reserve, exploding sixes"
                                                   " (wave 1), 3 dice at 5+")


@pytest.mark.parametrize("demo", ["stolen-lands", "river-kingdom", "aikakirjat-demo", "felmonte"])
def test_typed_dice_boxes_say_what_they_roll(demo: str, tmp_path: Path) -> None:
    """The older typed-dice path (a plan whose dice are all drawn: the boxes where a GM types faces, not the card's
    Roll button) labels each box by what it rolls, in words ("Collect Taxes: d20", "Resource Dice: 7d4"), as the
    Roll card names it; it read the roll's key ("roll a1", "roll check.table")."""

    from test_words_browser import RAW_ID

    from kingdomlog.views import forms as sf

    session = demo_session(demo, tmp_path)
    labels = {}
    for card in session.draft.cards:
        form = card.form
        if form is not None and form.dice:
            boxes = sf.dice_widgets(form.dice)
            labels.update({f"{card.id} {d.key}": str(boxes[d.key]["faces"]._args.label) for d in form.dice})
    assert labels, "no typed-dice box drawn"
    shown = labels
    assert [t for t in shown.values() if t.startswith("roll ") or RAW_ID.search(t) or not t[:1].isupper()] == []
    keys = {k.split()[-1] for k in shown if re.search(r"[.\d]", k.split()[-1])}  # a key, no word ("check.table")
    assert [t for t in shown.values() for k in keys if re.search(rf"(?i)(?<![\w.]){re.escape(k)}(?![\w.])", t)] == []
    expected = {"stolen-lands": {"upkeep.resources resource": "Resource Dice: 7d4",
                                 "commerce.taxes check": "Collect Taxes: d20",
                                 "event.resolve check.table": "The random kingdom event table: 1d100"},
                "felmonte": {"command_fabian cmd.1": "Duke Fabian's command roll (low stake): 2d6",
                             "command_marburg cmd.1": "Doge of Marburg's command roll (low stake): 2d6"},
                "aikakirjat-demo": {"actions a1.unrest": "Bureaucracy on the tax collection table: unrest, 1d4"},
                "river-kingdom": {}}[demo]
    assert {k: shown[k] for k in expected} == expected
    assert demo != "river-kingdom" or (shown["upkeep stability"].startswith("Stability check")
                                       and shown["upkeep stability"].endswith(": d20"))


def test_an_events_several_either_ors_are_a_dropdown_each() -> None:
    """pf2e's ``options`` (the branch of each either/or of an outcome with several: Diplomatic Overture's critical
    success picks two of three benefits) is a dropdown per either/or, labelled by what it decides and offering its
    branches in words, through the one form codec; it read back the same list of numbers it was built from (it was
    a text box of numbers: "numbers, e.g. 1 2"). A continuing event's row asks it the same way; an event with one
    either/or folds it away; a value of another shape keeps the box, and any value validates as before."""
    from kingdomlog.app import Campaign
    from kingdomlog.views import forms as sf

    camp = Campaign.open(REPO / "campaigns" / "stolen-lands")
    state = camp.turn_start().state
    step = next(s for s in camp.ruleset.all_steps if s.id == "event.resolve")

    def specs(values: dict[str, Any]) -> Any:
        return describe(step.choices, state=state, vocabulary=camp.ruleset.vocabulary, values=values)

    given = {"event": "diplomatic-overture", "options": [0, 2]}
    form = specs(given)
    options = next(f for f in form if f.name == "options")
    assert (options.kind, options.label, options.unused) == ("list", "If the outcome asks several: which", False)
    assert [p.label for p in options.fields] == ["Critical success: the first pick",
                                                 "Critical success: the second pick"]
    assert [(o.value, o.label) for o in options.fields[1].options or ()] == [
        (0, "A Commodity of your choice +5"), (1, "Next turn: bonus Resource Dice +2"), (2, "A trade agreement")]
    assert (options.fields[0].options or ())[1].detail == "on a critical success or success; on a critical failure:" \
                                                          " Spend 10 RP"
    boxes = sf.choice_widgets(form, given)["options"]["rows"]
    assert [b._args.label for b in boxes] == [p.label for p in options.fields]  # a dropdown per either/or
    assert [b.value for b in boxes] == [0, 2]

    def read(rows: list[Any]) -> tuple[Any, list[Any]]:
        out = sf.Read()
        got = sf.read_fields(form, {"options": {"rows": rows}}, given, (), out)
        return got.get("options"), out.errors

    assert read([0, 2]) == ([0, 2], [])  # the same plan value
    assert read([1, 1])[0] == [1, 1]
    assert read([None, None])[0] is None  # both cleared: the outcome's option decides
    got, errors = read([None, 1])  # the places are taken in order: an empty one before a pick is said at the field
    assert got == [0, 2] and [e.path for e in errors] == [("options",)]
    assert errors[0].message.startswith("Critical success: the first pick is empty: pick its branch too")
    row = next(f for f in specs({"events": [given]}) if f.name == "events").entries[0]
    assert [p.label for p in next(f for f in row if f.name == "options").fields] == [p.label for p in options.fields]
    assert next(f for f in specs({"event": "drug-den"}) if f.name == "options").unused
    other = next(f for f in specs({"event": "diplomatic-overture", "options": [1]}) if f.name == "options")
    assert (other.kind, other.item_kind) == ("list", "int")  # a value of another shape keeps its box, as given
    assert step.choices.model_validate({"event": "diplomatic-overture", "options": [1, 0, 2]}).options == [1, 0, 2]


def test_the_either_ors_of_an_event_the_table_drew_are_asked_once_its_d100_is_rolled(tmp_path: Path) -> None:
    """pf2e: a plan that leaves the random event to the d100 table cannot know the event before its roll, so its
    ``options`` stay the field as declared (no place is named, nothing of the table is read). Once the GM sheet has
    rolled the d100 (21: Diplomatic Overture), the card's form asks the drawn event's either/ors as for a chosen
    event: a dropdown per either/or, labelled by what it decides; the event's skills come first. Never before the
    face is on the card."""


    session = demo_session("stolen-lands", tmp_path, dice="on_roll")

    def card() -> Any:
        return next(c for c in session.draft.cards if c.id == "event.resolve")

    def field(name: str) -> Any:
        form = card().form
        assert form is not None
        return next(f for f in form.specs if f.name == name)

    for _ in range(40):  # every roll the month reaches before the table's d100, drawn as Roll draws it
        waiting = session.draft.waiting
        assert waiting is not None and waiting.pending is not None
        if (waiting.id, waiting.pending.key) == ("event.resolve", "check.table"):
            break
        if (waiting.id, waiting.pending.key) == ("event.check", "event"):
            session.type_faces("event.check", "event", "20")  # a random event occurs
            continue
        session.roll(waiting.id, waiting.pending.key)
    else:
        raise AssertionError("the month never reached the event table")
    session.refresh_forms()
    before = field("options")
    assert before.fields == () and "pick" not in before.label  # the event is not known: no either/or is named
    session.type_faces("event.resolve", "check.table", "21")  # the table draws Diplomatic Overture
    session.refresh_forms()
    assert ("check.table", (21,)) in [(r.key, r.faces) for r in card().rolls]
    options = field("options")
    assert (options.kind, options.label, options.unused) == ("list", "If the outcome asks several: which", False)
    assert [p.label for p in options.fields] == ["Critical success: the first pick",
                                                 "Critical success: the second pick"]
    assert [o.label for o in options.fields[0].options or ()] == [
        "A Commodity of your choice +5", "Next turn: bonus Resource Dice +2", "A trade agreement"]
    assert [o.label for o in field("skill").options or ()][1] == "Statecraft"  # the drawn event's skill first
