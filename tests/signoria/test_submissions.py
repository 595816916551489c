"""Player submissions (core.plan_submitted) on a copy of the Felmonte demo: a faction submits its own
command roll and sealed orders (§1.3, §4.3); rivals never see them; the GM's turn resolves them with the
dice rolled at submission; another faction's steps and illegal orders are refused with nothing appended."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import pytest

from kingdomlog.app import Campaign
from kingdomlog.cli import main as cli
from kingdomlog.core.core_events import PlanSubmitted
from kingdomlog.core.errors import InputError, RuleError
from kingdomlog.core.turn import Plan, StepPlan
from kingdomlog.core.viewers import GM_VIEWER, Viewer
from kingdomlog.dice.roller import KeyedRoller

from .make_demo import DEMO

MARK = "SEALED-NOTE-4417"
FABIAN = Viewer("player", "fabian")
SEED = "t-seed-1"  # fabian's cmd.1 in turn 8 of the demo under this seed: (3, 4) = 7, a low-stake success
COMMAND = {"choices": {"stake": "low", "pay": []}}
ORDERS = {"choices": {"orders": [{"id": "Q7", "action": "hire_troops", "slots": ["ordinary"],
                                  "params": {"units": 1}}]}}


@pytest.fixture
def camp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Campaign:
    folder = tmp_path / "felmonte"
    shutil.copytree(DEMO, folder, ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    monkeypatch.setattr("kingdomlog.dice.roller.new_seed", lambda: SEED)
    return Campaign.open(folder)


def run(*args: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli(list(args)) == 0
    return out.getvalue()


def submit_fabian(camp: Campaign) -> None:
    camp.submit(FABIAN, {"command_fabian": COMMAND, "orders_fabian": ORDERS}, note=MARK)


def test_player_steps_are_the_factions_own() -> None:
    """§1.3: a player faction submits its own command roll and orders; the GM and the public nothing."""
    c = Campaign.open(DEMO)
    turn = c.next_turn()
    assert c.player_steps(c.viewer("fabian")) == ["command_fabian", "orders_fabian"]
    assert c.player_steps(c.viewer("faction:marburg")) == ["command_marburg", "orders_marburg"]
    assert c.player_steps(c.viewer("gm")) == [] and c.player_steps(c.viewer("public")) == []
    with pytest.raises(InputError, match="unknown viewer 'felmonte'"):  # a neutral is the GM's, not a viewer
        c.player_steps(c.viewer("felmonte"))
    assert c.ruleset.player_steps(c.state(), turn, Viewer("player", "gusso")) == []


def test_submission_is_one_faction_only_event_that_changes_no_state(camp: Campaign) -> None:
    """The submission is one core.plan_submitted batch, actor and visibility the faction; the fold skips it."""
    head, turn = camp.head_seq, camp.next_turn()
    before = camp.state().model_dump(mode="json")
    submit_fabian(camp)
    new = [e for e in camp.events() if e.seq > head]
    assert len(new) == 1
    ev = new[0]
    assert (ev.type, ev.actor, ev.visibility, ev.turn) == ("core.plan_submitted", "fabian", "faction:fabian", turn)
    assert isinstance(ev.payload, PlanSubmitted) and ev.payload.note == MARK
    expected = KeyedRoller(SEED, campaign=camp.id, turn=turn).for_step("command_fabian").roll("cmd.1", "2d6")
    assert ev.payload.steps["command_fabian"].rolls == {"cmd.1": list(expected.faces)} == {"cmd.1": [3, 4]}
    assert ev.payload.steps["orders_fabian"].choices == ORDERS["choices"]
    assert camp.next_turn() == turn
    assert camp.state().model_dump(mode="json") == before
    assert list(camp.submissions()) == ["fabian"] and camp.submissions(turn + 1) == {}
    assert camp.verify().ok


def test_rivals_cannot_see_a_submission(camp: Campaign, tmp_path: Path) -> None:
    """§11.3: sealed orders reach only their faction and the GM: log --as, state --as, export --as."""
    submit_fabian(camp)
    d = str(camp.folder)
    for viewer in ("marburg", "public"):
        log = run("log", d, "--as", viewer, "--json")
        assert MARK not in log and "core.plan_submitted" not in log and '"Q7"' not in log
        assert MARK not in run("log", d, "--as", viewer)
        state = run("state", d, "--as", viewer, "--json")
        assert MARK not in state and '"Q7"' not in state
        out = tmp_path / f"{viewer}.jsonl"
        run("export", d, "-o", str(out), "--as", viewer)
        assert MARK not in out.read_text(encoding="utf-8")
    own = run("log", d, "--as", "fabian", "--json")
    assert MARK in own and "core.plan_submitted" in own
    assert MARK in run("log", d, "--json")  # the GM sees everything
    view = camp.state(viewer=Viewer("player", "marburg"))
    assert "fabian" not in view.orders  # type: ignore[attr-defined]


def test_the_gms_turn_resolves_the_submission_with_its_dice(camp: Campaign) -> None:
    """The GM's plan leaves the faction's steps out: the submission fills them, its faces as typed dice."""
    submit_fabian(camp)
    turn = camp.next_turn()
    tp = camp.preview(Plan(turn=turn, seed="gm-seed"))
    assert tp.ok, tp.error
    steps = {s.phase.id: s for s in tp.steps}
    cmd = steps["command_fabian"]
    assert [(r.key, list(r.faces), r.manual) for r in cmd.rolls] == [("cmd.1", [3, 4], True)]
    assert steps["orders_fabian"].choices == ORDERS["choices"]
    camp.commit(tp)
    sealed = [e for e in camp.events() if e.type == "signoria.orders_submitted" and e.turn == turn
              and e.payload.faction == "fabian"]  # type: ignore[attr-defined]
    assert len(sealed) == 1 and [o["id"] for o in sealed[0].payload.orders] == ["Q7"]  # type: ignore[attr-defined]
    rolls = [e for e in camp.events() if e.type == "signoria.command_roll" and e.turn == turn
             and e.payload.faction == "fabian"]  # type: ignore[attr-defined]
    assert [tuple(e.payload.dice) for e in rolls] == [(3, 4)]  # type: ignore[attr-defined]
    assert camp.next_turn() == turn + 1 and camp.submissions() == {}


def test_a_gm_plan_naming_the_step_wins(camp: Campaign) -> None:
    """The GM's ruling: a step the GM's plan names is played as the GM wrote it, not as submitted."""
    submit_fabian(camp)
    turn = camp.next_turn()
    gm_orders = StepPlan(choices={"orders": []})
    tp = camp.preview(Plan(turn=turn, seed="gm-seed", steps={"orders_fabian": gm_orders}))
    assert tp.ok, tp.error
    steps = {s.phase.id: s for s in tp.steps}
    assert steps["orders_fabian"].choices == {"orders": []}
    assert [list(r.faces) for r in steps["command_fabian"].rolls] == [[3, 4]]  # not named: the submission's


def test_another_factions_steps_are_refused(camp: Campaign) -> None:
    """§1.3: a faction orders only itself; nothing is appended but the dice of a command roll that was
    rolled before the rest was refused (they stay sealed: no fishing)."""
    head = camp.head_seq
    with pytest.raises(RuleError, match=r"orders_marburg.*not fabian's to submit"):
        camp.submit(FABIAN, {"orders_marburg": {"choices": {"orders": []}}})
    with pytest.raises(RuleError, match="not fabian's"):
        camp.submit(FABIAN, {"p3_war": {"choices": {}}})
    with pytest.raises(InputError):
        camp.submit(GM_VIEWER, {"orders_fabian": ORDERS})
    assert camp.head_seq == head
    with pytest.raises(RuleError, match="a faction orders only itself"):
        camp.submit(FABIAN, {"command_fabian": COMMAND,
                               "orders_fabian": {"choices": {"actor": "marburg", "orders": []}}})
    kept = [e for e in camp.events() if e.seq > head]
    assert [(e.type, list(e.payload.steps)) for e in kept] == [  # type: ignore[attr-defined]
        ("core.plan_submitted", ["command_fabian"])]


def test_a_bad_order_is_refused_with_the_rules_message(camp: Campaign) -> None:
    """§3.1: more special slots than the command roll gave is refused, naming the rule; nothing appended."""
    head = camp.head_seq
    with pytest.raises(RuleError, match="rolled by the server"):
        camp.submit(FABIAN, {"command_fabian": {"choices": {"stake": "high"}, "rolls": {"cmd.1": [6, 6]}}})
    assert camp.head_seq == head
    bad = {"choices": {"orders": [{"id": "Q1", "action": "hire_troops", "slots": ["special"] * 5,
                                   "params": {"units": 1}}]}}
    with pytest.raises(RuleError, match=r"\[orders_fabian\].*special slots.*§3\.1") as err:
        camp.submit(FABIAN, {"command_fabian": COMMAND, "orders_fabian": bad})
    assert "3, 4" not in str(err.value) and "[3" not in str(err.value)  # no refusal states a die
    assert camp.head_seq == head + 1  # only the command roll's sealed dice


def test_a_rolled_step_is_sealed_and_later_submissions_carry_it(camp: Campaign) -> None:
    """No fishing for dice: once the command roll is submitted its choices and faces stay for the turn;
    orders may still change, and the latest submission holds both steps."""
    camp.submit(FABIAN, {"command_fabian": COMMAND})
    head = camp.head_seq
    with pytest.raises(RuleError, match="sealed"):
        camp.submit(FABIAN, {"command_fabian": {"choices": {"stake": "high", "pay": []}}})
    assert camp.head_seq == head
    camp.submit(FABIAN, {"orders_fabian": ORDERS})
    camp.submit(FABIAN, {"command_fabian": COMMAND, "orders_fabian": ORDERS})  # same choices: same faces
    latest = camp.submissions()["fabian"].payload
    assert isinstance(latest, PlanSubmitted)
    assert latest.steps["command_fabian"].rolls == {"cmd.1": [3, 4]}
    assert latest.steps["orders_fabian"].choices == ORDERS["choices"]


def test_headless_submit_command(camp: Campaign, tmp_path: Path) -> None:
    """`kingdomlog submit DIR --as F --plan FILE --json` appends the submission and prints its sealed dice."""
    plan = tmp_path / "mine.json"
    plan.write_text(json.dumps({"steps": {"command_fabian": COMMAND, "orders_fabian": ORDERS}, "note": MARK}))
    out = json.loads(run("submit", str(camp.folder), "--as", "fabian", "--plan", str(plan), "--json"))
    assert out["viewer"] == "fabian" and out["steps"]["command_fabian"]["rolls"] == {"cmd.1": [3, 4]}


def test_headless_submit_refusals(camp: Campaign, tmp_path: Path) -> None:
    """`kingdomlog submit`: the same checks as the sheet; a refusal exits 1 with nothing appended."""
    plan = tmp_path / "mine.json"
    plan.write_text(json.dumps({"steps": {"command_fabian": COMMAND, "orders_fabian": ORDERS}, "note": MARK}))
    head = Campaign.open(camp.folder).head_seq
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"steps": {"orders_marburg": {"choices": {}}}}))
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert cli(["submit", str(camp.folder), "--as", "fabian", "--plan", str(other)]) == 1
    assert "not fabian's to submit" in err.getvalue()
    typo = tmp_path / "typo.json"
    typo.write_text(json.dumps({"steps": {"orders_fabian": {"choices": {"orderz": []}}}}))
    with contextlib.redirect_stderr(err):
        assert cli(["submit", str(camp.folder), "--as", "fabian", "--plan", str(typo)]) == 1
    assert "orders_fabian" in err.getvalue() and "'orderz'" in err.getvalue()
    with contextlib.redirect_stderr(err):
        assert cli(["submit", str(camp.folder), "--as", "gm", "--plan", str(plan)]) == 1
    assert Campaign.open(camp.folder).head_seq == head


def test_the_gm_turn_sheet_opens_with_the_submission_filled_in(camp: Campaign) -> None:
    """The GM's sheet pre-fills a faction's submitted steps (choices and the dice rolled at submission)."""
    from kingdomlog.views.sheet.draft import load_start

    before = load_start(camp.folder)
    assert before.plan is None or "orders_fabian" not in before.plan.steps
    submit_fabian(camp)
    start = load_start(camp.folder)
    assert start.plan is not None
    sub = camp.submissions(camp.next_turn())["fabian"].payload
    assert isinstance(sub, PlanSubmitted)
    assert start.plan.steps["orders_fabian"].choices == ORDERS["choices"]
    sealed = {k: list(v) for k, v in sub.steps["command_fabian"].rolls.items()}
    assert start.plan.steps["command_fabian"].rolls == sealed


def test_one_merge_of_the_submissions_feeds_the_preview_and_the_gm_sheet(camp: Campaign) -> None:
    """``submissions.submitted_steps`` is the one reading of the submitted steps: the GM's preview merges exactly
    those (a step the GM names wins), and the GM sheet shows the same steps and whose they are."""
    from kingdomlog.app.submissions import submitted_steps
    from kingdomlog.views.sheet.draft import load_start

    submit_fabian(camp)
    turn = camp.next_turn()
    got = submitted_steps(camp, turn, camp.state())
    assert set(got) == {"command_fabian", "orders_fabian"} and {who for who, _ in got.values()} == {"fabian"}
    assert got["command_fabian"][1].rolls == {"cmd.1": [3, 4]} and got["orders_fabian"][1].choices == ORDERS["choices"]
    merged = camp.with_submissions(Plan(turn=turn))
    assert {sid: sp for sid, sp in merged.steps.items() if sid in got} == {sid: sp for sid, (_, sp) in got.items()}
    ruled = camp.with_submissions(Plan(turn=turn, steps={"orders_fabian": StepPlan(choices={"orders": []})}))
    assert ruled.steps["orders_fabian"].choices == {"orders": []} and ruled.steps["command_fabian"] == got[
        "command_fabian"][1]
    start = load_start(camp.folder)
    assert start.submitted == {sid: who for sid, (who, _) in got.items()}
    assert start.submitted_steps == {sid: sp for sid, (_, sp) in got.items()}
