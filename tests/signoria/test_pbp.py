"""Play by post on a copy of the Felmonte demo (month 8 next): dice that cannot be fished, checks on what a
faction knows, questions and answers, deadlines and readiness, messages (issue 14).

The clock is fixed (``now=``); the seeds of new dice are fixed where a test needs known faces.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kingdomlog.app import Campaign, pbp
from kingdomlog.app import submissions as subs
from kingdomlog.cli import main as cli
from kingdomlog.core.core_events import (
    CORE_EVENT_TYPES,
    PlanSubmitted,
    QuestionAnswered,
)
from kingdomlog.core.errors import InputError, KingdomlogError, RuleError
from kingdomlog.core.events import Draft, provisional
from kingdomlog.core.fold import fold, is_live, live_events
from kingdomlog.core.turn import Plan
from kingdomlog.core.viewers import GM_VIEWER, PUBLIC_VIEWER, Viewer
from kingdomlog.rulesets.signoria import RULESET
from kingdomlog.rulesets.signoria.state import SignoriaState

from .make_demo import DEMO

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
FABIAN, MARBURG = Viewer("player", "fabian"), Viewer("player", "marburg")
OPENING = {"steps": {"turn_open": {"choices": {
    "dilemmas": [{"faction": "fabian", "id": "winter_relief", "text": "The poor ask for bread",
                  "options": [{"id": "give", "text": "open the granaries", "effects": [
                      {"kind": "resource", "faction": "fabian", "resource": "piety", "delta": 1}]}]}],
    "candidates": [{"faction": "marburg", "name": "Giulia"}]}}}}
WAR = {"choices": {"actor": "marburg", "orders": [{"id": "W", "action": "war", "slots": ["ordinary"], "target": "fabia",
                                                   "params": {"units": 4, "tactic": "hold"}}]}}

ASKED = ("Doge of Marburg's army has arrived at Fabia across its border. Fight a battle now or shut the "
         "gates?")
"""What Fabian is asked when Marburg's army reaches Fabia, as the GM is told it (its id: response:8.marburg.W)."""


def copy(tmp: Path) -> Campaign:
    folder = tmp / "felmonte"
    shutil.copytree(DEMO, folder, ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    return Campaign.open(folder)


@pytest.fixture
def camp(tmp_path: Path) -> Campaign:
    return copy(tmp_path)


def opened(camp: Campaign, *, auto: bool = True) -> Campaign:
    pbp.set_deadline(camp, orders_due=NOW + timedelta(days=2), answer_hours=12, auto_resolve=auto)
    pbp.publish(camp, Plan.parse(OPENING), now=NOW)
    return camp


def run(*args: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli(list(args)) == 0, args
    return out.getvalue()


# ---- dice that cannot be fished -----------------------------------------------------------------------------


def test_twenty_refused_submissions_keep_the_same_dice(camp: Campaign) -> None:
    """Issue 14: the command roll with orders that need a success, refused twenty times in a row (5 special
    slots are never there): the first refusal already sealed the roll; all twenty see the same faces; no
    refusal states a die; a changed stake is refused as sealed, not re-rolled."""
    greedy = {"choices": {"actor": "fabian", "orders": [
        {"id": f"S{i}", "action": "intrigue_self", "slots": ["special"], "stake": "low"} for i in range(5)]}}
    faces: list[list[int]] = []
    for _ in range(20):
        with pytest.raises(RuleError) as err:
            subs.submit(camp, FABIAN, {"command_fabian": {"choices": {"stake": "high"}}, "orders_fabian": greedy})
        assert "special slots used" in str(err.value)
        sub = camp.submissions()["fabian"].payload
        assert isinstance(sub, PlanSubmitted) and list(sub.steps) == ["command_fabian"]
        faces.append(sub.steps["command_fabian"].rolls["cmd.1"])
        for f in set(faces[-1]):
            assert f"[{f}," not in str(err.value) and f"{faces[-1]}" not in str(err.value)
    assert len({tuple(f) for f in faces}) == 1
    sealing = [e for e in camp.events() if isinstance(e.payload, PlanSubmitted)]
    assert len(sealing) == 1  # the dice were sealed once; the other nineteen refusals wrote nothing
    with pytest.raises(RuleError, match="sealed"):
        subs.submit(camp, FABIAN, {"command_fabian": {"choices": {"stake": "low"}}})
    subs.submit(camp, FABIAN, {"orders_fabian": {"choices": {"actor": "fabian", "orders": []}}})
    final = camp.submissions()["fabian"].payload
    assert isinstance(final, PlanSubmitted) and final.steps["command_fabian"].rolls["cmd.1"] == faces[0]


def test_a_check_never_rolls_real_dice_nor_checks_orders_against_them(camp: Campaign) -> None:
    """The sheet's live check of a command roll not yet made rolls trial dice it never stores or shows, and
    leaves the orders after it unchecked: a check cannot be fished either."""
    greedy = {"choices": {"actor": "fabian", "orders": [
        {"id": f"S{i}", "action": "intrigue_self", "slots": ["special"], "stake": "low"} for i in range(5)]}}
    head = camp.head_seq
    for _ in range(5):
        chk = subs.check_submission(camp, FABIAN, {"command_fabian": {"choices": {"stake": "high"}},
                                                     "orders_fabian": greedy})
        assert chk.fresh == ("command_fabian",) and chk.unchecked == ("orders_fabian",)
    assert camp.head_seq == head


# ---- checked against what the faction knows ----------------------------------------------------------------


def _facts(draw: st.DrawFn, base: SignoriaState) -> SignoriaState:
    """The truth with random GM-only facts changed: Marburg's resources, loyalty, a statesman killed or added
    in secret, a GM ruling's hidden flag; nothing of what Fabian may see."""
    s = base
    m = s.factions["marburg"].model_copy(update={
        "power": draw(st.integers(0, 9)), "piety": draw(st.integers(0, 9)), "wealth": draw(st.integers(0, 20)),
        "army": draw(st.integers(0, 12))})
    chars = dict(s.characters)
    for cid, c in s.characters.items():
        if c.employer == "marburg":
            chars[cid] = c.model_copy(update={"loyalty": draw(st.integers(-2, 6)),
                                              "condition": draw(st.sampled_from(["active", "wounded", "dead"]))})
    if draw(st.booleans()):
        from kingdomlog.rulesets.signoria.state import Character

        chars["secret-agent"] = Character(id="secret-agent", name="Ombra", employer="marburg", role="statesman",
                                          traits=("intriguer",))
    return s.model_copy(update={"factions": {**s.factions, "marburg": m}, "characters": chars,
                                "flags": (*s.flags, f"secret {draw(st.integers(0, 99))}")})


ACTIONS = st.sampled_from(["bribery", "assassination", "scouts", "intrigue_foreign", "war", "hire_troops",
                           "donation", "felmonte_offer", "liberties", "trade"])


@st.composite
def orders(draw: st.DrawFn) -> list[dict[str, Any]]:
    out = []
    for i in range(draw(st.integers(0, 4))):
        a = draw(ACTIONS)
        o: dict[str, Any] = {"id": f"O{i}", "action": a, "slots": [draw(st.sampled_from(["special", "ordinary"]))],
                             "stake": draw(st.sampled_from(["elementary", "low", "high"]))}
        if a in ("bribery", "assassination"):
            o["target"] = draw(st.sampled_from(["bianca", "marburg.leader", "secret-agent", "nobody", "cesare"]))
            o["params"] = {"wealth": draw(st.integers(1, 5))} if a == "bribery" else {}
        elif a in ("scouts", "intrigue_foreign"):
            o["target"] = draw(st.sampled_from(["marburg", "gusso", "fabian"]))
        elif a == "war":
            o["target"] = draw(st.sampled_from(["marburg", "felmonte", "fabia"]))
            o["params"] = {"units": draw(st.integers(1, 4))}
        elif a == "trade":
            o["target"] = draw(st.sampled_from(["felmonte", "gusso"]))
        elif a in ("hire_troops",):
            o["params"] = {"units": draw(st.integers(1, 5))}
        elif a == "donation":
            o["params"] = {"piety": draw(st.integers(1, 3))}
        elif a == "felmonte_offer":
            o["params"] = {"wealth": draw(st.integers(1, 5))}
        out.append(o)
    return out


class _Fixed:
    """A campaign stand-in whose truth is a given state (the submission check's only input of the GM's)."""

    def __init__(self, camp: Campaign, truth: SignoriaState) -> None:
        self._camp, self._truth = camp, truth

    def state(self, *args: Any, **kwargs: Any) -> SignoriaState:
        return self._truth

    def __getattr__(self, name: str) -> Any:
        return getattr(self._camp, name)


@pytest.fixture(scope="module")
def sealed_demo(tmp_path_factory: pytest.TempPathFactory) -> Campaign:
    camp = copy(tmp_path_factory.mktemp("prop"))
    subs.submit(camp, FABIAN, {"command_fabian": {"choices": {"stake": "low"}}})
    return camp


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_submission_check_depends_only_on_the_factions_view(sealed_demo: Campaign, data: st.DataObject) -> None:
    """Issue 14: for random orders and two truths that differ only in GM-only facts (Marburg's resources,
    loyalties, who of its court is alive, a secret statesman, the GM's flags), Fabian's submission check gives
    the same answer, word for word; and the truths indeed redact to the same view for Fabian."""
    camp = sealed_demo
    base = camp.state()
    one, two = _facts(data.draw, base), _facts(data.draw, base)
    v = Viewer("player", "fabian")
    assert RULESET.redact(one, v) == RULESET.redact(two, v)
    given_orders = {"orders_fabian": {"choices": {"actor": "fabian", "orders": data.draw(orders())}}}

    def answer(truth: SignoriaState) -> str:
        try:
            chk = subs.check_submission(_Fixed(camp, truth), FABIAN, given_orders)  # type: ignore[arg-type]
        except KingdomlogError as exc:
            return f"refused: {exc}"
        return "accepted: " + json.dumps({k: [d.payload.model_dump(mode="json") for d in v]
                                          for k, v in chk.events.items()}, sort_keys=True)

    assert answer(one) == answer(two)


def test_a_refusal_names_only_what_the_faction_knows(camp: Campaign) -> None:
    """Issue 14: a GM-only ruling killed Bianca. Fabian's bribe of her passes its check (its view holds no
    rival court, so the check cannot tell, and says nothing of her); the resolution voids it and tells
    Fabian only that she could not be found."""
    ruling = {"turn": 7, "type": "signoria.gm_ruling", "visibility": "gm",
              "payload": {"gap": "test", "text": "Bianca dies of fever", "effects": [
                  {"kind": "character", "character": "bianca", "condition": "dead"}]}}
    camp.append_raw(camp.parse_jsonl([json.dumps(ruling)]))
    subs.submit(camp, FABIAN, {"command_fabian": {"choices": {"stake": "low"}}})
    bribe = {"choices": {"actor": "fabian", "orders": [{"id": "B", "action": "bribery", "slots": ["ordinary"],
                                                        "stake": "low", "target": "bianca", "params": {"wealth": 1}}]}}
    chk = subs.check_submission(camp, FABIAN, {"orders_fabian": bribe})
    assert "dead" not in json.dumps([d.payload.model_dump(mode="json") for d in chk.events["orders_fabian"]])
    subs.submit(camp, FABIAN, {"orders_fabian": bribe})
    camp.play(Plan(turn=8, seed="gm"))
    void = [e for e in camp.events() if e.type == "signoria.order_voided"]
    assert [(e.visibility, e.payload.order, e.payload.reason) for e in void] == [  # type: ignore[attr-defined]
        ("faction:fabian", "B", "its target 'bianca' could not be found in a rival's service")]


# ---- questions, deadlines, readiness -----------------------------------------------------------------------


def test_the_core_events_of_the_table_change_no_state(camp: Campaign) -> None:
    """Deadlines, ready flags, messages, questions and answers are core.* events: is_live and the fold skip
    them, so a month's table talk changes nothing until the month commits."""
    before = camp.state().model_dump(mode="json")
    opened(camp)
    pbp.mark_ready(camp, FABIAN, now=NOW)
    pbp.send_message(camp, MARBURG, ["fabian"], "a word")
    pbp.answer(camp, FABIAN, "dilemma:winter_relief", "give", now=NOW)
    evs = camp.events()
    table = [e for e in evs if e.seq > 261]
    assert {e.type for e in table} == {"core.deadline_set", "core.steps_published", "core.question_posed",
                                       "core.ready_marked", "core.message_sent", "core.question_answered"}
    assert not any(is_live(e, frozenset()) for e in table)
    assert not {e.seq for e in live_events(evs)} & {e.seq for e in table}
    assert Campaign.open(camp.folder).state(use_cache=False).model_dump(mode="json") == before
    assert camp.next_turn() == 8
    every = [provisional(camp.id, 900 + i, Draft(_sample(t), turn=8)) for i, t in enumerate(CORE_EVENT_TYPES[4:])]
    assert fold(RULESET, camp.state(), every) == camp.state()


def _sample(cls: type[Any]) -> Any:
    from kingdomlog.core import core_events as ce

    samples = {ce.StepsPublished: ce.StepsPublished(turn=8), ce.DeadlineSet: ce.DeadlineSet(turn=8),
               ce.ReadyMarked: ce.ReadyMarked(turn=8), ce.MessageSent: ce.MessageSent(turn=8, sender="gm", text="x"),
               ce.OrdersClosed: ce.OrdersClosed(turn=8), ce.DiceSealed: ce.DiceSealed(turn=8, seed="s"),
               ce.QuestionPosed: ce.QuestionPosed(turn=8, question="q", to="fabian", kind="k", prompt="p",
                                                  step="p3_war", path=("responses", "c")),
               ce.QuestionAnswered: ce.QuestionAnswered(turn=8, question="q"),
               ce.DiceRerolled: ce.DiceRerolled(step="p3_war", key="k", nonce=1, reason="gm", note="n",
                                                faces_before=(1,), faces_after=(6,))}
    return samples[cls]


def test_a_month_runs_itself(camp: Campaign) -> None:
    """The GM publishes the opening and a deadline that resolves the month; Fabian answers its dilemma,
    Marburg hires the candidate and marches on Fabia; both are ready: the orders close (the seed is sealed),
    Fabian is asked how to meet the army, then each side its declarations, a round at a time; the answers
    (or the defaults) settle it and the month commits by itself."""
    opened(camp)
    st0 = pbp.status(camp, now=NOW)
    assert (st0.stage, st0.time_left(), [p.missing for p in st0.players]) == (
        "orders", "2 d 0 h", [["command_fabian", "orders_fabian"], ["command_marburg", "orders_marburg"]])
    pbp.answer(camp, FABIAN, "dilemma:winter_relief", "give", now=NOW)
    pbp.answer(camp, MARBURG, "candidate:t8.c1", "hire", now=NOW)
    subs.submit(camp, MARBURG, {"command_marburg": {"choices": {"stake": "low"}}, "orders_marburg": WAR}, now=NOW)
    pbp.mark_ready(camp, FABIAN, now=NOW)
    assert pbp.advance(camp, now=NOW).done == []  # Marburg is not ready yet
    pbp.mark_ready(camp, MARBURG, now=NOW)
    res = pbp.advance(camp, now=NOW)
    assert res.done[0] == "closed the orders of month 8: every player is ready"
    assert res.done[1] == "asked Duke Fabian: " + ASKED  # not its key 'response:8.marburg.W'
    sealed = subs.sealed_seed(camp.events(), 8)
    assert sealed and "dice_sealed" not in json.dumps(run("log", str(camp.folder), "--as", "fabian", "--json"))
    with pytest.raises(RuleError, match="closed"):
        subs.submit(camp, FABIAN, {"command_fabian": {"choices": {"stake": "low"}}})
    q = pbp.questions(camp, FABIAN)[-1]
    assert q.kind == "defender_response" and "Doge of Marburg's army has arrived at Fabia across its border" in q.prompt
    assert "4 units" not in q.prompt  # the defender does not know the attacker's forces yet
    with pytest.raises(InputError, match="is not one of its answers"):
        pbp.answer(camp, FABIAN, q.id, {"response": "battle", "tactic": "banana"}, now=NOW)
    with pytest.raises(InputError, match="no question"):
        pbp.answer(camp, MARBURG, q.id, q.options[0].value, now=NOW)
    pbp.answer(camp, FABIAN, q.id, q.options[-1].value, now=NOW)  # defence: shut the gates
    with pytest.raises(RuleError, match="final"):
        pbp.answer(camp, FABIAN, q.id, q.options[0].value, now=NOW)
    res = pbp.advance(camp, now=NOW)
    assert any(line.startswith("committed month 8") for line in res.done), res.done
    month = [e for e in camp.events() if e.turn == 8]
    resp = next(e.payload for e in month if e.type == "signoria.defender_responded")
    assert resp.response == "defence"  # type: ignore[attr-defined]
    assert any(e.type == "signoria.statesman_hired" for e in month)
    assert camp.state().dilemmas["fabian"][0].choice == "give"
    locked = next(e.payload for e in month if e.type == "signoria.orders_locked")
    assert locked.missing == ()  # type: ignore[attr-defined]  # Fabian's answer is its orders (the dilemma)
    assert camp.next_turn() == 9 and camp.verify().ok


def test_the_default_stands_when_the_deadline_passes(camp: Campaign) -> None:
    """No ready flags, no answers: at the orders deadline the orders close (Fabian's dilemma takes its default,
    abstain); Fabian's answer window (12 h) passes: its default response (a battle holding position) stands,
    then each round's declarations take theirs (none), and the month commits by itself."""
    opened(camp)
    subs.submit(camp, MARBURG, {"command_marburg": {"choices": {"stake": "low"}}, "orders_marburg": WAR}, now=NOW)
    assert pbp.advance(camp, now=NOW + timedelta(days=1)).done == []
    later = NOW + timedelta(days=2, minutes=1)
    res = pbp.advance(camp, now=later)
    assert res.done[0].startswith("closed the orders of month 8: the deadline passed")
    dilemma = next(q for q in pbp.questions(camp, FABIAN) if q.kind == "dilemma")
    assert dilemma.by_default and dilemma.answer == "abstain"
    with pytest.raises(RuleError, match="deadline"):
        pbp.answer(camp, FABIAN, "response:8.marburg.W", {"response": "defence"}, now=later + timedelta(hours=13))
    for _ in range(6):
        later += timedelta(hours=13)
        res = pbp.advance(camp, now=later)
        if res.committed:
            break
    assert res.committed is not None, res.status.as_dict()
    defaults = [e for e in camp.events() if isinstance(e.payload, QuestionAnswered) and e.payload.by_default]
    assert {e.actor for e in defaults} == {"system"} and len(defaults) >= 2
    resp = next(e.payload for e in camp.events() if e.type == "signoria.defender_responded" and e.turn == 8)
    assert (resp.response, resp.tactic) == ("battle", "hold")  # type: ignore[attr-defined]
    locked = next(e.payload for e in camp.events() if e.type == "signoria.orders_locked" and e.turn == 8)
    assert locked.missing == ("fabian",)  # type: ignore[attr-defined]


def test_the_gm_commits_when_the_month_does_not_resolve_itself(camp: Campaign) -> None:
    opened(camp, auto=False)
    pbp.mark_ready(camp, FABIAN, now=NOW)
    pbp.mark_ready(camp, MARBURG, now=NOW)
    res = pbp.advance(camp, now=NOW)
    assert res.committed is None and res.status.stage == "to resolve"
    out = run("resolve", str(camp.folder), "--commit")
    assert "committed month 8" in out and camp.next_turn() == 9


def test_ready_and_answers_are_for_the_month_open(camp: Campaign) -> None:
    opened(camp)
    with pytest.raises(InputError):
        pbp.mark_ready(camp, GM_VIEWER)
    with pytest.raises(RuleError, match="written for month 7"):
        pbp.mark_ready(camp, FABIAN, turn=7, now=NOW)
    pbp.mark_ready(camp, FABIAN, now=NOW)
    pbp.mark_ready(camp, FABIAN, False, now=NOW)
    st_ = pbp.status(camp, now=NOW)
    assert [p.ready for p in st_.players] == [False, False]


def test_messages_are_seen_by_their_sender_recipients_and_the_gm(camp: Campaign) -> None:
    """Private messages carry their sender and recipients as visibility; an open letter is public; the GM
    reads all; bad recipients and empty texts are refused."""
    pbp.send_message(camp, MARBURG, ["fabian"], "SECRET-TRUCE-1", subject="truce")
    pbp.send_message(camp, FABIAN, [], "OPEN-LETTER-2")
    pbp.send_message(camp, GM_VIEWER, ["marburg"], "GM-WORD-3")
    assert [m.text for m in pbp.messages(camp, FABIAN)] == ["SECRET-TRUCE-1", "OPEN-LETTER-2"]
    assert [m.text for m in pbp.messages(camp, MARBURG)] == ["SECRET-TRUCE-1", "OPEN-LETTER-2", "GM-WORD-3"]
    assert [m.text for m in pbp.messages(camp, PUBLIC_VIEWER)] == ["OPEN-LETTER-2"]
    assert len(pbp.messages(camp, GM_VIEWER)) == 3
    vis = [e.visibility for e in camp.events() if e.type == "core.message_sent"]
    assert vis == ["faction:marburg,faction:fabian", "public", "faction:marburg"]
    for to, text, err in ((["venezia"], "x", "no player"), (["fabian"], "  ", "empty"), (["marburg"], "x", "else")):
        with pytest.raises(InputError, match=err):
            pbp.send_message(camp, MARBURG, to, text)
    assert "GM-WORD-3" not in run("log", str(camp.folder), "--as", "fabian")


def test_the_commands_of_the_table(camp: Campaign, tmp_path: Path) -> None:
    """`kingdomlog deadline / publish / status / answer / message / ready` run a month from the command line."""
    d = str(camp.folder)
    plan = tmp_path / "opening.json"
    plan.write_text(json.dumps(OPENING))
    assert "orders due" in run("deadline", d, "--in", "2d", "--answers", "12h", "--auto-resolve")
    published = run("publish", d, "--plan", str(plan))
    assert "2 questions to the players: dilemma:winter_relief (“The poor ask for bread”), candidate:t8.c1 (“Giulia" \
        in published, published  # counted as a person counts them (it read "2 question(s)")
    status = json.loads(run("status", d, "--json"))
    assert status["stage"] == "orders" and status["waiting_on"] == ["fabian", "marburg"]
    mine = json.loads(run("status", d, "--as", "fabian", "--json"))
    assert "players" not in mine and mine["questions"][0]["id"] == "dilemma:winter_relief"
    listed = run("answer", d, "--as", "fabian")
    assert "1. open the granaries" in listed and "2. Abstain" in listed  # a lone word as the orders page says it
    # each question's id (what `answer` takes) beside what it asks, wherever it is printed
    assert listed.startswith("dilemma:winter_relief (“The poor ask for bread”) [OPEN")
    assert "question dilemma:winter_relief (“The poor ask for bread”): OPEN" in run("status", d, "--as", "fabian")
    gm = run("status", d)
    assert "waiting for Duke Fabian: dilemma:winter_relief (“The poor ask for bread”) (dilemma;" in gm
    assert re.search(r"waiting for Doge of Marburg: candidate:t8\.c1 \(“Giulia \(\w+\) offers to serve you", gm), gm
    assert "answered dilemma:winter_relief (“The poor ask for bread”): open the granaries" in run(
        "answer", d, "dilemma:winter_relief", "1", "--as", "fabian")
    assert "sent" in run("message", d, "the", "snow", "comes", "--as", "marburg", "--to", "fabian")
    assert "the snow comes" in run("message", d, "--as", "fabian", "--list")
    run("ready", d, "--as", "fabian")
    out = run("ready", d, "--as", "marburg")
    assert "the orders of month 8 are closed: every player is ready" in out and "month 8 is resolved" in out
    assert "seq" not in out and "committed" not in out  # a player is not told the log's own numbers
    assert Campaign.open(camp.folder).next_turn() == 9


def test_a_player_is_shown_its_own_numbering(camp: Campaign) -> None:
    """Issue 19 item 7 on the table's pages: the seq a player is shown (its messages, its questions, the
    message it just sent, its submission) is its own numbering (``Campaign.visible_events``), never the
    log's, so nothing shows where the GM's hidden events sit; an advance tells a player only its own part."""
    opened(camp)  # the GM's published opening is a GM-only event
    camp.note("the GM's secret", visibility="gm", title="gm only")
    pbp.send_message(camp, MARBURG, ["fabian"], "a word")
    subs.submit(camp, MARBURG, {"command_marburg": {"choices": {"stake": "low"}}, "orders_marburg": WAR}, now=NOW)
    mine = camp.visible_events(FABIAN)
    gm = camp.events()
    assert len(mine) < len(gm)  # there are hidden events before the letter
    letter = pbp.messages(camp, FABIAN)[-1]
    assert letter.seq == next(e.seq for e in mine if e.type == "core.message_sent")
    assert letter.seq != next(e.seq for e in gm if e.type == "core.message_sent")
    assert pbp.messages(camp, GM_VIEWER)[-1].seq == next(e.seq for e in gm if e.type == "core.message_sent")
    q = pbp.questions(camp, FABIAN)[0]
    assert q.posted_seq == next(e.seq for e in mine if e.type == "core.question_posed")
    sub = camp.submissions()["marburg"]
    assert pbp.own_seq(camp, FABIAN, sub.seq) is None  # marburg's orders: not fabian's to number
    assert pbp.own_seq(camp, MARBURG, sub.seq) == len(camp.visible_events(MARBURG))
    assert pbp.own_seq(camp, GM_VIEWER, sub.seq) == sub.seq
    out = run("message", str(camp.folder), "hello", "--as", "fabian", "--to", "marburg")
    assert f"sent (seq {len(camp.visible_events(FABIAN))})" in out
    pbp.mark_ready(camp, FABIAN, now=NOW)
    pbp.mark_ready(camp, MARBURG, now=NOW)
    res = pbp.advance(camp, now=NOW)
    gm_words = " ".join(res.for_viewer(camp.viewer("gm")))
    assert "asked Duke Fabian: " + ASKED in gm_words  # who, by name (issue 29), and what, in words
    assert "response:" not in gm_words and "marburg.W" not in gm_words
    told = res.for_viewer(camp.viewer("fabian"))  # the question in words, not its key 'response:8.marburg.W'
    assert told[0] == "the orders of month 8 are closed: every player is ready" and len(told) == 2
    assert told[1].startswith("a question for you: Doge of Marburg's army has arrived at Fabia across its border.")
    assert res.for_viewer(camp.viewer("marburg")) == ["the orders of month 8 are closed: every player is ready"]
    assert res.for_viewer(camp.viewer("public")) == ["the orders of month 8 are closed: every player is ready"]


def test_the_command_roll_is_told_in_words(camp: Campaign) -> None:
    """The sheet and the report tell a command roll as recorded (faces, success, the slots it gave), to its
    own faction; the rival's chronicle has no such line. Demo month 7: Fabian rolled [3, 3] at low stake (a
    success, §3.1: 1 special + 2 ordinary)."""
    from kingdomlog.views.player import page as player

    mine = player.player_view(camp.folder, "fabian").history
    theirs = player.player_view(camp.folder, "marburg").history
    assert mine is not None and theirs is not None
    line = ("Our command roll at low stake: 3 and 3, it succeeded; this month we have 1 special and 2 ordinary"
            " actions.")
    assert line in mine.stories[-1].lines
    assert not any("Duke Fabian's command roll" in x or "Fabian's command roll" in x
                   for s in theirs.stories for x in s.lines)


def test_letters_are_told_in_the_reports_of_those_who_may_read_them(camp: Campaign) -> None:
    """A private letter shows under 'Letters' in its sender's and recipient's reports only; an open letter in
    every faction's."""
    from kingdomlog.views.player import page as player

    turn = camp.next_turn()
    pbp.send_message(camp, MARBURG, ["fabian"], "SECRET-PACT-3391 at the ford", subject="a pact")
    pbp.send_message(camp, FABIAN, [], "OPEN-WORD-1180 to all the valley")

    def letters(viewer: str) -> list[str]:
        v = player.player_view(camp.folder, viewer)
        assert v.history is not None
        st = v.history.story(turn)
        return st.sections.get(player.LETTERS, []) if st else []

    assert letters("fabian") == ["From Doge of Marburg, to us. “a pact”: SECRET-PACT-3391 at the ford.",
                                 "From us, an open letter. OPEN-WORD-1180 to all the valley."]
    assert letters("marburg") == ["From us, to Duke Fabian. “a pact”: SECRET-PACT-3391 at the ford.",
                                  "From Duke Fabian, an open letter. OPEN-WORD-1180 to all the valley."]
    public = player.render_static(camp.folder, "public")
    assert "OPEN-WORD-1180" in public and "SECRET-PACT-3391" not in public


def test_the_gm_sheet_shows_who_submitted_is_ready_and_is_awaited(camp: Campaign) -> None:
    """The GM sheet's panel (views.sheet.panel.table_status_html): fabian ready, marburg not; the deadline with the
    time left; no such section for a campaign without player steps."""
    from kingdomlog.views.sheet.panel import table_status_html

    opened(camp)
    pbp.mark_ready(camp, FABIAN, now=NOW)
    html = table_status_html(camp)
    assert "The players this turn" in html and "orders due 2026-12-03 12:00 UTC" in html
    assert "<td>command, orders</td>" in html  # what each has still to send, without its own name repeated
    rows = dict(re.findall(r"<tr><th>([^<]+)</th><td>[^<]*</td><td>[^<]*</td><td>(yes|no)</td>", html))
    assert rows == {"Duke Fabian": "yes", "Doge of Marburg": "no"}, html  # by name, not id (issue 29)
    assert "waiting on: Doge of Marburg" in html and "waiting for Duke Fabian: Dilemma" in html
    toy = Campaign.create(camp.folder.parent / "farm", "toy-farm", name="Farm")
    assert table_status_html(toy) == ""


def test_a_players_status_says_the_deadline_to_the_minute(camp: Campaign) -> None:
    """Issue 29: `status --as fabian` printed the deadline with its seconds and microseconds."""
    d = str(camp.folder)
    run("deadline", d, "--at", "2027-12-08T10:00:30.123456Z")
    for who in ("fabian", "marburg"):
        out = run("status", d, "--as", who)
        assert "orders due 2027-12-08 10:00 UTC" in out and ".123456" not in out and ":30" not in out, out


def test_status_names_the_steps_in_words(camp: Campaign) -> None:
    """Issue 29: the CLI's status listed `command_fabian, orders_fabian`; the line names the player, the steps are
    said in words."""
    d = str(camp.folder)
    out = run("status", d)
    assert "command, orders" in out and "command_fabian" not in out and "orders_marburg" not in out, out
    assert "publish it from the GM sheet" in out
