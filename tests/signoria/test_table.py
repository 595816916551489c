"""The table between two commits, under attack (issue 28, items 3 to 6) on a copy of the Felmonte demo
(month 8 next): what ``status`` tells a player and the public, submissions that race the GM's commit and
each other, and orders at the deadline.

- ``status --as public`` / ``--as <faction>`` show only what that viewer may see: markers planted in a
  question to one faction, in another faction's steps and in the resolution's refusal never reach them.
- A submission names the turn its player read and is refused once the campaign moved on, also when the
  GM's commit lands between the reading and the write.
- A stake's roll is sealed once: a concurrent submission of the same faction sees it.
- The orders close *at* the deadline, wherever they are written (one microsecond before: accepted).
- A property test plays random interleavings of submit, ready, deadline, resolve and commit.

Races are run twice: a deterministic interleaving (a hook between the reading and the write) that fails
without the fix every time, and real processes a bounded number of times.
"""

from __future__ import annotations

import contextlib
import io
import json
import multiprocessing as mp
import re
import shutil
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kingdomlog.app import Campaign, pbp
from kingdomlog.app import submissions as subs
from kingdomlog.cli import main as cli
from kingdomlog.core.core_events import PlanSubmitted, QuestionPosed
from kingdomlog.core.errors import KingdomlogError, RuleError
from kingdomlog.core.events import Draft, RecordedEvent
from kingdomlog.core.fold import next_turn
from kingdomlog.core.turn import Plan
from kingdomlog.core.viewers import GM_VIEWER, PUBLIC_VIEWER, Viewer

from . import table_workers as tw
from .make_demo import DEMO

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
FABIAN, MARBURG = Viewer("player", "fabian"), Viewer("player", "marburg")
PLAYERS = {"fabian": FABIAN, "marburg": MARBURG}
STAKES = ({"stake": "low"}, {"stake": "high"}, {"stake": "low", "pay": []})

Q_MARK = "MARBURG-QUESTION-4410"
PROMPT_MARK = "MARBURG-PROMPT-2291"
NOTE_MARK = "MARBURG-NOTE-8876"
REFUSAL_MARK = "GM-REFUSAL-6603"
SECRET_OPENING = {"steps": {"turn_open": {"choices": {
    "dilemmas": [{"faction": "marburg", "id": Q_MARK, "text": f"The doge asks {PROMPT_MARK}",
                  "options": [{"id": "give", "text": "pay", "effects": [
                      {"kind": "resource", "faction": "marburg", "resource": "piety", "delta": 1}]}]}],
    "candidates": [{"faction": "fabian", "name": "Giulia"}]}}}}
MARBURG_STEPS = {"command_marburg": {"choices": {"stake": "low"}},
                 "orders_marburg": {"choices": {"actor": "marburg", "orders": []}}}


def copy(tmp: Path, name: str = "felmonte") -> Campaign:
    folder = tmp / name
    shutil.copytree(DEMO, folder, ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    return Campaign.open(folder)


@pytest.fixture
def camp(tmp_path: Path) -> Campaign:
    return copy(tmp_path)


def run(*args: str, code: int = 0) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        got = cli(list(args))
    assert got == code, (args, got, out.getvalue(), err.getvalue())
    return out.getvalue(), err.getvalue()


def submissions_of(camp: Campaign) -> list[RecordedEvent]:
    return [e for e in camp.events() if isinstance(e.payload, PlanSubmitted)]


def one_roll_per_stake(camp: Campaign) -> None:
    """Every step's dice, once rolled for a player and a turn, are the same faces with the same choices in every
    later submission of that player for that turn."""
    sealed: dict[tuple[int, str, str], tuple[dict[str, Any], dict[str, list[int]]]] = {}
    for ev in submissions_of(camp):
        assert isinstance(ev.payload, PlanSubmitted)
        for sid, sub in ev.payload.steps.items():
            if not sub.rolls:
                continue
            key = (ev.payload.turn, ev.actor, sid)
            first = sealed.setdefault(key, (sub.choices, sub.rolls))
            assert first == (sub.choices, sub.rolls), (key, first, sub)


# ---- item 3: status for a viewer ------------------------------------------------------------------------------


def test_status_shows_a_player_and_the_public_only_their_own(camp: Campaign, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28 item 3: a question to Marburg, Marburg's steps and ready flag, and the resolution's refusal are
    in the GM's status; none reaches `status --as public` or `--as fabian`, text or JSON, while the orders are
    open and after they close."""
    d = str(camp.folder)
    pbp.set_deadline(camp, orders_due=datetime.now(UTC) + timedelta(days=2))
    pbp.publish(camp, Plan.parse(SECRET_OPENING))
    subs.submit(camp, MARBURG, MARBURG_STEPS, note=NOTE_MARK)
    pbp.mark_ready(camp, MARBURG)
    gm_text, _ = run("status", d)
    # the markers are planted: Marburg's row names its steps (in words, by its name, issue 29) and its ready flag
    assert Q_MARK in gm_text and re.search(r"Doge of Marburg +command, orders", gm_text) and "yes" in gm_text

    def seen(who: str) -> str:
        text, _ = run("status", d, "--as", who)
        doc = run("status", d, "--as", who, "--json")[0]
        return text + doc

    public, fabian = seen("public"), seen("fabian")
    for mark in (Q_MARK, PROMPT_MARK, NOTE_MARK, "command_marburg", "orders_marburg", "candidate:"):
        assert mark not in public, mark
    for mark in (Q_MARK, PROMPT_MARK, NOTE_MARK, "command_marburg", "orders_marburg", "marburg"):
        assert mark not in fabian, mark
    assert "ready" not in public and "waiting" not in public and "players" not in public
    doc = json.loads(run("status", d, "--as", "fabian", "--json")[0])
    assert (doc["steps"], doc["submitted"], doc["ready"]) == (["command_fabian", "orders_fabian"], [], False)
    assert [q["id"] for q in doc["questions"]] == ["candidate:t8.c1"]  # its own question, nobody else's
    assert set(json.loads(run("status", d, "--as", "public", "--json")[0])) == {
        "turn", "viewer", "stage", "orders_due", "seconds_left", "time_left", "closed", "missing_orders"}

    # the orders close (Fabian gave none: that is public); the resolution refuses with words of the GM's
    pbp.close_orders(camp)
    real = Campaign.preview

    def refused(self: Campaign, plan: Plan, **kw: Any) -> Any:
        tp = real(self, plan, **kw)
        return replace(tp, steps=[replace(tp.steps[0], error=f"marburg's treasure {REFUSAL_MARK}"),
                                  *tp.steps[1:]])

    monkeypatch.setattr(Campaign, "preview", refused)
    gm_text, _ = run("status", d)
    assert REFUSAL_MARK in gm_text and "refused" in gm_text
    for who in ("public", "fabian"):
        text = seen(who)
        assert REFUSAL_MARK not in text and "refused" not in text and Q_MARK not in text, who
        assert "gave no orders: fabian" in text or '"fabian"' in text  # the missing are named, publicly
    assert json.loads(run("status", d, "--as", "public", "--json")[0])["stage"] == "resolving"


def test_status_for_goes_by_each_events_visibility(camp: Campaign) -> None:
    """A player's status is read from the events it may see: a question addressed to Fabian that the log keeps
    for the GM's eyes only (a GM's own write) is not Fabian's to see, and its status does not show it; the
    GM's does. The GM has no ``status_for``; the public has no part of its own."""
    hidden = QuestionPosed(turn=8, question=Q_MARK, to="fabian", kind="dilemma", prompt=PROMPT_MARK,
                           step="orders_fabian", path=("dilemmas", "x"))
    camp.append([Draft(hidden, actor="gm", visibility="gm", turn=8)], expect_seq=camp.head_seq)
    assert [q.id for q in pbp.status(camp, now=NOW).questions] == [Q_MARK]
    mine = pbp.status_for(camp, FABIAN, now=NOW)
    assert mine.questions == () and mine.me is not None and mine.me.questions_open == []
    assert Q_MARK not in json.dumps(mine.as_dict()) and Q_MARK not in run("status", str(camp.folder), "--as",
                                                                            "fabian")[0]
    with pytest.raises(KingdomlogError, match="GM"):
        pbp.status_for(camp, GM_VIEWER)
    assert pbp.status_for(camp, PUBLIC_VIEWER, now=NOW).me is None


def test_a_players_deadline_is_printed_to_the_minute(camp: Campaign) -> None:
    """Issue 28 item 6: `status --as fabian` printed the deadline with microseconds; a deadline `--in` a
    duration is a whole minute, and every status prints it to the minute, in UTC."""
    d = str(camp.folder)
    run("deadline", d, "--in", "2d")
    due = pbp.deadline_of(camp.events(), 8)
    assert due is not None and due.orders_due is not None
    assert (due.orders_due.second, due.orders_due.microsecond) == (0, 0)
    pbp.set_deadline(camp, orders_due=datetime(2031, 12, 8, 8, 6, 41, 630978, tzinfo=UTC))
    for who in ("fabian", "public", "gm"):
        text, _ = run("status", d, "--as", who)
        assert "2031-12-08 08:06 UTC" in text and "41" not in text.split("UTC")[0][-12:], (who, text)
        assert "630978" not in re.sub(r"\b[0-9a-f]{16,64}\b", "", text)  # not in the log's head hash either


# ---- item 4: a submission names the turn its player read ------------------------------------------------------


def gm_commits(folder: Path) -> None:
    """The GM plays the next month from another process's point of view (its own Campaign)."""
    Campaign.open(folder).play(Plan())


def test_a_cli_submit_that_loses_the_race_to_the_commit_is_refused(camp: Campaign, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28 item 4: `submit` read month 8; the GM commits month 8 before the submission is written (a hook
    between the CLI's reading and the write): the submission is refused as written for month 8, nothing is
    filed under month 9 and no die of month 9 is sealed."""
    plan = tmp_path / "orders.json"
    plan.write_text(json.dumps({"steps": {"command_fabian": {"choices": {"stake": "high"}}}}))
    real = Campaign.submit

    def late(self: Campaign, *a: Any, **kw: Any) -> Any:
        gm_commits(self.folder)
        return real(self, *a, **kw)

    monkeypatch.setattr(Campaign, "submit", late)
    _out, err = run("submit", str(camp.folder), "--as", "fabian", "--plan", str(plan), code=1)
    assert "written for month 8" in err and "month 9" in err and "internal" not in err, err
    after = Campaign.open(camp.folder)
    assert after.next_turn() == 9 and submissions_of(after) == []


@pytest.mark.parametrize("turn", [8, None])
def test_a_submit_that_loses_the_race_inside_the_write_is_refused(camp: Campaign, turn: int | None) -> None:
    """The GM's commit lands between the submission's own reading of the log and its append (the first
    ``append`` of the submission commits month 8 first): the write conflicts, the submission is checked again
    and refused for month 8; without a ``turn`` too (the turn of its own first reading)."""
    real = camp.append
    calls: list[int] = []

    def racing(*a: Any, **kw: Any) -> Any:
        if not calls:
            calls.append(1)
            gm_commits(camp.folder)
        return real(*a, **kw)

    camp.append = racing  # type: ignore[method-assign]
    with pytest.raises(RuleError, match="written for month 8"):
        subs.submit(camp, FABIAN, {"command_fabian": {"choices": {"stake": "low"}}}, turn=turn, now=NOW)
    assert calls and submissions_of(Campaign.open(camp.folder)) == []


def test_an_answer_names_the_turn_it_was_read_for(camp: Campaign, tmp_path: Path) -> None:
    """An answer carries the turn of the question its player read (``kingdomlog answer`` passes it): once the
    campaign has moved on it is refused, even for a question of the same id in the new month."""
    pbp.set_deadline(camp, orders_due=DUE)
    pbp.publish(camp, Plan.parse(SECRET_OPENING))
    with pytest.raises(RuleError, match="written for month 7"):
        pbp.answer(camp, FABIAN, "candidate:t8.c1", "hire", now=NOW, turn=7)
    assert not [e for e in camp.events() if e.type == "core.question_answered"]
    pbp.answer(camp, FABIAN, "candidate:t8.c1", "hire", now=NOW, turn=8)


def test_submit_races_with_the_gms_commit_in_real_processes(tmp_path: Path) -> None:
    """Six rounds of two processes started together: one reads month 8 and submits (the CLI; it waits at the
    write for the other), one commits month 8. A submission is filed only for the month its process read and
    before that month's commit; otherwise it is refused in words (never an internal error)."""
    rounds = 6
    folders = [copy(tmp_path, f"r{i}").folder for i in range(rounds)]
    plan = tmp_path / "orders.json"
    plan.write_text(json.dumps({"steps": {"command_fabian": {"choices": {"stake": "high"}}}}))
    jobs = [[("cli_submit", str(f), "fabian", str(plan)), ("gm_play", str(f))] for f in folders]
    results = tw.run_rounds(jobs, mp.get_context("spawn"))
    filed = refused = 0
    for f, res in zip(folders, results, strict=True):
        code, _out, err = res[0]
        c = Campaign.open(f)
        subs_ = submissions_of(c)
        commit = next(e.seq for e in c.events() if e.turn == 8 and e.type.startswith("signoria."))
        assert c.next_turn() == 9 and res[1] == "ok"
        if code == 0:
            filed += 1
            assert [(e.payload.turn, e.seq < commit) for e in subs_] == [(8, True)], subs_  # type: ignore[attr-defined]
        else:
            refused += 1
            assert subs_ == [] and "written for month 8" in err and "internal" not in err, err
    assert filed + refused == rounds


# ---- item 5: a stake's roll is sealed once ---------------------------------------------------------------------


def test_a_concurrent_submit_of_the_same_faction_sees_the_roll_sealed_first(camp: Campaign,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28 item 5: Fabian submits a high stake; while its dice are being rolled (after its reading of the
    log), a second submission of Fabian's with a low stake lands and seals its roll. The first is checked
    again on the new log: its stake is refused as sealed; only one roll is ever sealed."""
    from kingdomlog.dice import roller

    real = roller.new_seed
    seeds = iter(["race-seed-a", "race-seed-b", "race-seed-c", "race-seed-d"])
    injected: list[str] = []

    def seed() -> str:
        if not injected:
            injected.append("b")
            subs.submit(Campaign.open(camp.folder), FABIAN, {"command_fabian": {"choices": STAKES[0]}}, now=NOW)
        return next(seeds, real())

    monkeypatch.setattr(roller, "new_seed", seed)
    with pytest.raises(RuleError, match="sealed"):
        subs.submit(camp, FABIAN, {"command_fabian": {"choices": STAKES[1]}}, now=NOW)
    after = Campaign.open(camp.folder)
    assert len(submissions_of(after)) == 1
    one_roll_per_stake(after)
    # the same choices again keep the faces sealed first (idempotent), whoever sends them
    sealed = after.submissions()["fabian"].payload.steps["command_fabian"]  # type: ignore[attr-defined]
    subs.submit(camp, FABIAN, {"command_fabian": {"choices": STAKES[0]}}, now=NOW)
    again = Campaign.open(camp.folder).submissions()["fabian"].payload.steps["command_fabian"]  # type: ignore[attr-defined]
    assert again == sealed


def test_three_concurrent_submits_seal_one_roll_in_real_processes(tmp_path: Path) -> None:
    """Six rounds of three processes submitting Fabian's command roll at once with three different stakes:
    one roll is sealed per round; the others are refused as sealed (or, the same stake, keep its faces)."""
    rounds = 6
    folders = [copy(tmp_path, f"r{i}").folder for i in range(rounds)]
    jobs = [[("submit", str(f), "fabian", json.dumps(s)) for s in STAKES] for f in folders]
    results = tw.run_rounds(jobs, mp.get_context("spawn"))
    for f, res in zip(folders, results, strict=True):
        c = Campaign.open(f)
        one_roll_per_stake(c)
        ok = [r for r in res if r == "ok"]
        assert len(ok) >= 1 and all(r == "ok" or "sealed" in r for r in res), res
        rolls = {json.dumps(e.payload.steps["command_fabian"].rolls) for e in submissions_of(c)}  # type: ignore[attr-defined]
        assert len(rolls) == 1


# ---- item 6: the orders close at the deadline -----------------------------------------------------------------


DUE = NOW + timedelta(days=2, microseconds=123_456)
JUST_BEFORE = DUE - timedelta(microseconds=1)


def test_orders_close_at_the_deadline_not_after_it(camp: Campaign) -> None:
    """Issue 28 item 6 and item 12: nothing has closed the orders in the log yet, but from the deadline's very
    instant a submission, a ready flag and an answer into the orders are refused; one microsecond before, each
    is accepted."""
    pbp.set_deadline(camp, orders_due=DUE)
    pbp.publish(camp, Plan.parse(SECRET_OPENING))
    steps = {"command_fabian": {"choices": {"stake": "low"}}}
    for at in (DUE, DUE + timedelta(hours=3)):
        with pytest.raises(RuleError, match="were due"):
            subs.submit(camp, FABIAN, steps, now=at)
        with pytest.raises(RuleError, match="were due"):
            pbp.mark_ready(camp, FABIAN, now=at)
        with pytest.raises(RuleError, match="deadline"):
            pbp.answer(camp, FABIAN, "candidate:t8.c1", "hire", now=at)
        with pytest.raises(RuleError, match="were due"):
            subs.check_submission(camp, FABIAN, steps, now=at)
    assert submissions_of(camp) == []
    subs.submit(camp, FABIAN, steps, now=JUST_BEFORE)
    pbp.mark_ready(camp, FABIAN, now=JUST_BEFORE)
    pbp.answer(camp, FABIAN, "candidate:t8.c1", "hire", now=JUST_BEFORE)
    assert len(submissions_of(camp)) == 1
    # the orders then close at the deadline, not a tick later
    assert pbp.advance(camp, now=JUST_BEFORE).done == []
    assert pbp.advance(camp, now=DUE).done[0].startswith("closed the orders of month 8: the deadline passed")


def test_an_answer_into_the_orders_follows_the_deadline_in_force(camp: Campaign) -> None:
    """A question into the orders is open until the orders deadline in force, not the one when it was posted:
    the GM extends the deadline, the answer is taken after the old one; the GM brings it forward, it is refused
    from the new one."""
    pbp.set_deadline(camp, orders_due=DUE)
    pbp.publish(camp, Plan.parse(SECRET_OPENING))
    pbp.set_deadline(camp, orders_due=DUE + timedelta(days=1))
    pbp.answer(camp, FABIAN, "candidate:t8.c1", "hire", now=DUE + timedelta(hours=1))
    pbp.set_deadline(camp, orders_due=NOW + timedelta(hours=1))
    with pytest.raises(RuleError, match="deadline"):
        pbp.answer(camp, FABIAN, "candidate:t8.c1", "pass", now=NOW + timedelta(hours=1))


def test_the_cli_refuses_orders_after_the_deadline(camp: Campaign, tmp_path: Path) -> None:
    """`kingdomlog submit` and `ready` after the deadline, with nothing run to close the orders since: refused
    (they were accepted for ever)."""
    d = str(camp.folder)
    pbp.set_deadline(camp, orders_due=datetime.now(UTC) - timedelta(minutes=1))
    plan = tmp_path / "orders.json"
    plan.write_text(json.dumps({"steps": {"command_fabian": {"choices": {"stake": "low"}}}}))
    _out, err = run("submit", d, "--as", "fabian", "--plan", str(plan), code=1)
    assert "were due" in err
    _out, err = run("ready", d, "--as", "fabian", code=1)
    assert "were due" in err
    assert submissions_of(Campaign.open(d)) == []


# ---- item 5 of the brief: a property test over the table ---------------------------------------------------


PLAYER = st.sampled_from(sorted(PLAYERS))
INNER = st.one_of(st.just(("commit",)), st.tuples(st.just("submit"), PLAYER, st.integers(0, 2)),
                  st.tuples(st.just("deadline_now"),))
SUBMIT = st.tuples(st.just("submit"), PLAYER, st.integers(0, 2))
RACE = st.tuples(st.just("race"), PLAYER, st.integers(0, 2), INNER, st.sampled_from(["roll", "append"]))
OPS = st.one_of(
    st.tuples(st.just("look"), PLAYER),
    SUBMIT, SUBMIT, SUBMIT,  # the writes under test, more often than the rest
    RACE, RACE,
    st.tuples(st.just("ready"), PLAYER, st.booleans()),
    st.tuples(st.just("deadline"), st.integers(-2, 30), st.sampled_from([0, 1, 999_999])),
    st.tuples(st.just("tick"), st.sampled_from(["1us", "1min", "10min", "due-1us", "due"])),
    st.tuples(st.just("resolve"),), st.tuples(st.just("resolve"),),
    st.tuples(st.just("commit"),),
)


class Table:
    """The demo at month 8, a fake clock, and what each player last read (its ``turn``)."""

    def __init__(self, folder: Path) -> None:
        self.camp = Campaign.open(folder)
        self.now = NOW
        self.seen = {p: self.camp.next_turn() for p in PLAYERS}

    def open_for(self, who: str, choices: dict[str, Any], events: list[RecordedEvent]) -> bool:
        """Whether ``who``'s command roll with ``choices`` must be accepted now (the model)."""
        t = next_turn(events)
        if not self.open(who, events):
            return False
        mine = [e.payload for e in subs.turn_events(events, t, PlanSubmitted) if e.actor == who]
        sealed = mine[-1].steps.get(f"command_{who}") if mine else None  # type: ignore[attr-defined]
        return sealed is None or not sealed.rolls or sealed.choices == choices

    def open(self, who: str, events: list[RecordedEvent]) -> bool:
        """Whether ``who`` may still give its orders for the turn it read (the model of a refusal)."""
        t = next_turn(events)
        due = subs.orders_due(events, t)
        return (self.seen[who] == t and subs.orders_closed(events, t) is None and (due is None or self.now < due)
                and f"command_{who}" in self.camp.player_steps(PLAYERS[who], turn=t))

    def play(self, camp: Campaign) -> None:
        """The GM plays the next month (a month with nothing to do, the game over, commits nothing)."""
        with contextlib.suppress(RuleError):
            camp.play(Plan())

    def inner(self, op: tuple[Any, ...]) -> None:
        other = Campaign.open(self.camp.folder)
        if op[0] == "commit":
            self.play(other)
        elif op[0] == "submit":
            with contextlib.suppress(KingdomlogError):
                subs.submit(other, PLAYERS[op[1]], {f"command_{op[1]}": {"choices": STAKES[op[2]]}}, now=self.now)
        else:
            pbp.set_deadline(other, orders_due=self.now)

    def submit(self, who: str, stake: int, inner: tuple[Any, ...] | None = None, where: str = "append") -> None:
        """``who`` submits its command roll at ``STAKES[stake]``; with ``inner``, that happens first between the
        submission's reading of the log and its write: when it rolls its dice (``where="roll"``) or when it
        appends (``"append"``)."""
        from kingdomlog.dice import roller

        choices = STAKES[stake]
        ran: list[bool] = []
        real_seed, real_append = roller.new_seed, self.camp.append

        def seed() -> str:
            if not ran:
                ran.append(True)
                self.inner(inner or ())
            return real_seed()

        def racing(*a: Any, **kw: Any) -> Any:
            if not ran:
                ran.append(True)
                self.inner(inner or ())
            return real_append(*a, **kw)

        if inner is not None and where == "roll":
            roller.new_seed = seed  # type: ignore[assignment]
        elif inner is not None:
            self.camp.append = racing  # type: ignore[method-assign]
        before = list(self.camp.events())
        try:
            res = subs.submit(self.camp, PLAYERS[who], {f"command_{who}": {"choices": choices}}, turn=self.seen[who],
                              now=self.now)
        except RuleError as exc:
            res = None
            event("submit refused: " + next((w for w in ("written for", "were due", "closed", "sealed", "kept")
                                             if w in str(exc)), str(exc)))
        finally:
            self.camp.__dict__.pop("append", None)
            roller.new_seed = real_seed  # type: ignore[assignment]
        if res is not None:
            event("submit accepted" + (" after a race" if ran else ""))
        # the submission must be decided on the log as it was when it was written: after the inner write, if any
        after = Campaign.open(self.camp.folder).events()
        decided_on = before if not ran else (after[:-1] if res is not None else after)
        expected = self.open_for(who, choices, decided_on)
        assert (res is not None) == expected, (who, choices, self.seen, self.now, res)
        if res is not None:
            ev = after[-1]
            assert ev.seq == res.first_seq and isinstance(ev.payload, PlanSubmitted)
            assert ev.payload.turn == self.seen[who]  # never under a turn its player did not see
            assert ev.payload.steps[f"command_{who}"].choices == choices

    def step(self, op: tuple[Any, ...]) -> None:
        kind = op[0]
        events = self.camp.events()
        t = next_turn(events)
        due = subs.orders_due(events, t)
        if kind == "look":
            self.seen[op[1]] = t
        elif kind == "submit":
            self.submit(op[1], op[2])
        elif kind == "race":
            self.submit(op[1], op[2], op[3], op[4])
        elif kind == "ready":
            ok = self.open(op[1], events)
            try:
                pbp.mark_ready(self.camp, PLAYERS[op[1]], op[2], turn=self.seen[op[1]], now=self.now)
                assert ok, ("ready accepted", op, self.now, due)
            except RuleError:
                assert not ok, ("ready refused", op, self.now, due)
        elif kind == "deadline":
            pbp.set_deadline(self.camp, orders_due=self.now + timedelta(minutes=op[1], microseconds=op[2]))
        elif kind == "tick":
            step = {"1us": timedelta(microseconds=1), "1min": timedelta(minutes=1), "10min": timedelta(minutes=10)}
            if op[1] in step:
                self.now += step[op[1]]
            elif due is not None and due > self.now:
                self.now = due - timedelta(microseconds=1) if op[1] == "due-1us" else due
        elif kind == "resolve":
            with contextlib.suppress(KingdomlogError):
                pbp.advance(self.camp, now=self.now, commit=True)
        else:
            self.play(self.camp)

    def check_log(self) -> None:
        """Whatever happened: every submission was filed while its turn was the next, and no stake of a player's
        turn was sealed with two rolls."""
        events = self.camp.events()
        one_roll_per_stake(self.camp)
        for i, ev in enumerate(events):
            if isinstance(ev.payload, PlanSubmitted):
                assert ev.payload.turn == next_turn(events[:i])


@pytest.fixture(scope="module")
def demo_copy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[], Path]]:
    root = tmp_path_factory.mktemp("table")
    n = iter(range(10_000))

    def make() -> Path:
        return copy(root, f"t{next(n)}").folder

    yield make


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                HealthCheck.function_scoped_fixture])
@given(ops=st.lists(OPS, min_size=3, max_size=16))
def test_random_interleavings_at_the_table(demo_copy: Callable[[], Path], ops: list[tuple[Any, ...]]) -> None:
    """Random interleavings of look (a player reads the turn), submit, a submit raced by a commit, another
    submission or a deadline between its reading and its write (as it rolls its dice, or as it appends),
    ready, deadline, clock ticks (to the deadline's instant and a microsecond before), resolve and commit, for
    both factions, with a fake clock: a submission is accepted exactly when its player read the next turn, the
    orders are open and before their deadline, and its stake is not sealed otherwise; it is filed under the
    turn its player read; no stake is ever sealed with two rolls."""
    table = Table(demo_copy())
    for op in ops:
        table.step(op)
        table.check_log()
