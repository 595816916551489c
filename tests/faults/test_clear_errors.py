"""Clear messages where the CLI said "internal error" (issue 19, item 6), and internal errors said as such (item 10).

- a plan (or events file, export, homebrew data file) that is not UTF-8;
- a full disk (ENOSPC) and a read-only file system (EROFS), on real tmpfs mounts when this
  process may mount them (root in CI), and by injecting the error into the store otherwise;
  a permission refusal (EACCES) by injection (root ignores file modes);
- an out-of-range turn number (``--turn 99999999999``, and in raw events).

In every case: exit 1 (2 for argument errors), one ``kingdomlog: error:`` line naming the file
and what to do, no traceback, no "internal error", the log unchanged and still verifying, and
the next command working once the cause is gone.

And the other way round: an unexpected exception inside a ruleset's ``evolve`` or ``decide``
is reported as an internal error naming the step or seq ("this is a bug"), never as a
malformed input of the user's.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from clirun import run
from pydantic import BaseModel, ConfigDict

from kingdomlog import cli
from kingdomlog.app import Campaign
from kingdomlog.core.choices import Choices
from kingdomlog.core.core_events import NoteAdded
from kingdomlog.core.errors import InputError, InternalError
from kingdomlog.core.events import Draft, EventModel, RecordedEvent, register_event
from kingdomlog.core.ruleset import CampaignContext, Ruleset, Step, StepContext, register_ruleset, unregister_ruleset
from kingdomlog.core.turn import Plan
from kingdomlog.store import log as logmod


def clear(code: int, err: str, *needles: str, rc: int = 1) -> None:
    assert code == rc, err
    assert err.startswith("kingdomlog: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and "internal error" not in err, err
    for n in needles:
        assert n in err, (n, err)


def log_hash(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted((folder / "log").iterdir()):
        h.update(p.name.encode() + p.read_bytes())
    return h.hexdigest()


def build(folder: Path) -> Path:
    camp = Campaign.create(folder, "toy-farm", name="Farm", viewers=["alice"])
    camp.play(Plan.parse({"seed": "a", "steps": {"found": {"choices": {"name": "Dale", "gold": 5}}}}))
    return camp.folder


PLAN = {"seed": "b", "steps": {"harvest": {"choices": {"crop": "wheat"}}}}


# ---- not UTF-8 ---------------------------------------------------------------------------------------


def test_files_that_are_not_utf8_are_named(tmp_path: Path) -> None:
    farm = build(tmp_path / "farm")
    before = log_hash(farm)
    bad = json.dumps(PLAN).encode().replace(b"wheat", b"wh\xe9at")  # Latin-1, not UTF-8
    (tmp_path / "plan.json").write_bytes(bad)
    clear(*run("turn", str(farm), "--plan", str(tmp_path / "plan.json"))[::2], "plan.json: plan is not UTF-8 text",
          "byte 0xe9 on line 1")
    clear(*run("turn", str(farm), "--plan", "-", stdin=bad)[::2], "standard input: plan is not UTF-8 text")
    clear(*run("submit", str(farm), "--as", "alice", "--plan", str(tmp_path / "plan.json"))[::2], "not UTF-8")
    (tmp_path / "e.jsonl").write_bytes(b'{"turn": 1, "type": "core.note_added", "payload": {"text": "\xff"}}\n')
    clear(*run("append", str(farm), str(tmp_path / "e.jsonl"))[::2], "e.jsonl: the events file is not UTF-8 text")
    (tmp_path / "x.jsonl").write_bytes(b"\xfe\xff{}\n")
    clear(*run("import", str(tmp_path / "x.jsonl"), str(tmp_path / "copy"))[::2], "the export is not UTF-8 text")
    (farm / "data").mkdir()
    (farm / "data" / "house.toml").write_bytes(b'name = "caf\xe9"\n')
    clear(*run("state", str(farm))[::2], "house.toml: not UTF-8 text (byte 0xe9")
    (farm / "data" / "house.toml").unlink()
    assert log_hash(farm) == before
    # text from a command line that is not UTF-8 (decoded with surrogates by Python) is refused too
    clear(*run("note", str(farm), "caf\udce9")[::2], "unicode string")
    assert log_hash(farm) == before
    assert run("turn", str(farm), "--plan", "-", stdin=json.dumps(PLAN))[0] == 0


# ---- full and read-only disks ---------------------------------------------------------------------


def _can_mount() -> bool:
    if os.geteuid() != 0 or not shutil.which("mount"):
        return False
    probe = Path("/tmp") / f"kl-mount-probe-{os.getpid()}"
    probe.mkdir(exist_ok=True)
    ok = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(probe)],
                        capture_output=True).returncode == 0
    if ok:
        subprocess.run(["umount", str(probe)], check=True)
    probe.rmdir()
    return ok


CAN_MOUNT = _can_mount()


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MiB tmpfs mounted for this test (root only)."""
    if not CAN_MOUNT:
        pytest.skip("cannot mount a tmpfs here (needs root); the injected-error tests cover the same paths")
    mnt = tmp_path / "disk"
    mnt.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mnt)], check=True)
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=True)


def fill(disk: Path) -> Path:
    filler = disk / "filler"
    with open(filler, "wb") as fh:
        try:
            while True:
                fh.write(b"\0" * 65536)
                fh.flush()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    return filler


def writes(farm: Path, tmp: Path) -> list[tuple[str, ...]]:
    (tmp / "plan.json").write_text(json.dumps(PLAN))
    (tmp / "e.jsonl").write_text(json.dumps({"turn": 1, "type": "core.note_added", "payload": {"text": "x"}}) + "\n")
    return [("note", str(farm), "a note"), ("turn", str(farm), "--plan", str(tmp / "plan.json")),
            ("append", str(farm), str(tmp / "e.jsonl")), ("retract", str(farm), "--turn", "0")]


def test_a_full_disk_is_a_clear_error_and_the_log_stays_whole(small_disk: Path, tmp_path: Path) -> None:
    farm = build(small_disk / "farm")
    Campaign.open(farm).state()
    before = log_hash(farm)
    filler = fill(small_disk)
    for argv in writes(farm, tmp_path):
        code, _, err = run(*argv)
        if argv[0] == "retract":  # refused by the rules before anything is written
            assert code == 1 and "internal error" not in err
            continue
        clear(code, err, "the disk is full", "free some space and retry")
        assert log_hash(farm) == before, argv
    clear(*run("new", str(small_disk / "other"), "--ruleset", "toy-farm")[::2], "the disk is full")
    clear(*run("export", str(farm), "-o", str(small_disk / "out.jsonl"))[::2], "the disk is full")
    exp = tmp_path / "farm.jsonl"
    assert run("export", str(farm), "-o", str(exp))[0] == 0
    clear(*run("import", str(exp), str(small_disk / "copy"))[::2], "the disk is full")
    assert not (small_disk / "copy").exists()
    assert [p.name for p in small_disk.iterdir() if p.name.startswith(".")] == []  # no half import left
    assert run("state", str(farm))[0] == 0  # reading needs no space (the cache is skipped)
    filler.unlink()
    assert Campaign.open(farm).verify().ok and log_hash(farm) == before
    assert run("note", str(farm), "a note")[0] == 0


def test_a_read_only_file_system_is_a_clear_error(small_disk: Path, tmp_path: Path) -> None:
    farm = build(small_disk / "farm")
    before = log_hash(farm)
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    try:
        for argv in writes(farm, tmp_path):
            code, _, err = run(*argv)
            if argv[0] == "retract":
                assert code == 1 and "internal error" not in err
                continue
            clear(code, err, "the file system is read-only")
        clear(*run("new", str(small_disk / "other"), "--ruleset", "toy-farm")[::2], "read-only")
        for argv in (("state", str(farm)), ("verify", str(farm)), ("log", str(farm), "--as", "alice")):
            assert run(*argv)[0] == 0, argv  # reads work without their cache
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(small_disk)], check=True)
    assert log_hash(farm) == before and Campaign.open(farm).verify().ok


@pytest.mark.parametrize(("err", "what"), [(errno.ENOSPC, "the disk is full"), (errno.EROFS, "read-only"),
                                           (errno.EACCES, "permission denied"), (errno.EDQUOT, "quota"),
                                           (errno.EIO, "input/output error")])
@pytest.mark.parametrize("step", ["open", "fsync", "link"])
def test_injected_file_system_errors_on_append(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, err: int,
                                               what: str, step: str) -> None:
    farm = build(tmp_path / "farm")
    before = log_hash(farm)

    def refuse(*_a: Any, **_k: Any) -> Any:
        raise OSError(err, os.strerror(err))

    if step == "open":
        monkeypatch.setattr(logmod, "_open_new", refuse)  # the temp file's open
    else:
        monkeypatch.setattr(logmod.os, step, refuse)
    for argv in writes(farm, tmp_path)[:3]:
        clear(*run(*argv)[::2], what, "nothing appended")
        assert log_hash(farm) == before
    monkeypatch.undo()
    assert [p.name for p in (farm / "log").iterdir() if p.name.startswith(".tmp-")] == []  # no temp file left
    assert Campaign.open(farm).verify().ok
    assert run("note", str(farm), "a note")[0] == 0


# ---- turn numbers ---------------------------------------------------------------------------------


@pytest.mark.parametrize("argv", [("state", "--turn"), ("log", "--turn"), ("note", "x", "--turn"),
                                  ("retract", "--turn")])
@pytest.mark.parametrize("turn", ["99999999999", "-1", "2147483648"])
def test_out_of_range_turn_arguments_are_usage_errors(tmp_path: Path, argv: Sequence[str], turn: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    farm = build(tmp_path / "farm")
    before = log_hash(farm)
    code = cli.main([argv[0], str(farm), *argv[1:], turn])
    err = capsys.readouterr().err
    assert code == 2 and "argument --turn" in err and ("out of range (0 to 2147483647)" in err or "-1" in err)
    assert "Traceback" not in err and "internal error" not in err
    assert log_hash(farm) == before


def test_out_of_range_turns_in_events_and_plans(tmp_path: Path) -> None:
    farm = build(tmp_path / "farm")
    before = log_hash(farm)
    line = json.dumps({"turn": 99999999999, "type": "core.note_added", "payload": {"text": "x"}})
    (tmp_path / "e.jsonl").write_text(line + "\n")
    clear(*run("append", str(farm), str(tmp_path / "e.jsonl"))[::2], "event 1 (core.note_added): turn 99999999999 has "
          "not begun: the log's next turn is 1")
    with pytest.raises(InputError, match="turn 99999999999 is out of range"):  # the store's own bound, below the app
        Campaign.open(farm).log.append([Draft(NoteAdded(text="x"), turn=99999999999)])
    (tmp_path / "plan.json").write_text(json.dumps(dict(PLAN, turn=99999999999)))
    clear(*run("turn", str(farm), "--plan", str(tmp_path / "plan.json"))[::2],
          "invalid plan: turn: input should be less than or equal to 2147483647 (got 99999999999)")
    assert log_hash(farm) == before


def test_a_raw_event_of_a_turn_not_begun_is_refused_and_a_batch_may_begin_the_next_turns(tmp_path: Path) -> None:
    """``append``: an event's turn is one played so far or the next one; a ruleset event of the next turn begins it,
    so a file may hold the next turn and the one after; a note never begins a turn."""
    farm = build(tmp_path / "farm")  # turn 0 played: the next is 1
    before = log_hash(farm)
    sold = {"type": "toy.sold", "payload": {"food": 0, "gold": 1}}
    note = {"type": "core.note_added", "payload": {"text": "x"}}
    for lines, said in (([dict(sold, turn=3)], "event 1 (toy.sold): turn 3 has not begun: the log's next turn is 1"),
                        ([dict(sold, turn=1), dict(sold, turn=3)], "event 2 (toy.sold): turn 3 has not begun: the "
                         "log's next turn is 2 (an event belongs to a turn played so far or the next one, 0..2)"),
                        ([dict(note, turn=1), dict(note, turn=2)], "event 2 (core.note_added): turn 2 has not begun")):
        (tmp_path / "e.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
        clear(*run("append", str(farm), str(tmp_path / "e.jsonl"))[::2], said)
        assert log_hash(farm) == before  # all or nothing
    (tmp_path / "e.jsonl").write_text("".join(json.dumps(x) + "\n" for x in
                                              (dict(sold, turn=0), dict(sold, turn=1), dict(sold, turn=2))))
    code, out, err = run("append", str(farm), str(tmp_path / "e.jsonl"))
    assert code == 0 and out.startswith("appended 3 events"), err
    assert Campaign.open(farm).next_turn() == 3


# ---- internal errors are internal ------------------------------------------------------------------


@register_event
class Defected(EventModel):
    type: ClassVar[str] = "buggy.defected"
    version: ClassVar[int] = 1
    to_faction: str


class BuggyState(BaseModel):
    model_config = ConfigDict(frozen=True)
    factions: dict[str, int] = {"red": 0}


class DefectChoices(Choices):
    to: str = ""


def defect(ctx: StepContext[BuggyState], c: DefectChoices) -> None:
    ctx.emit(Defected(to_faction=c.to))  # the bug: nothing checks that the faction exists


def crash(ctx: StepContext[BuggyState], c: DefectChoices) -> None:
    raise ZeroDivisionError("division by zero in the rules")


class BuggyRules(Ruleset):
    """A ruleset with the bug issue 19 found in Signoria: evolve indexes by an id the step never checked."""

    id = "buggy-farm"
    name = "Buggy Farm"

    @property
    def event_types(self) -> Sequence[type[EventModel]]:
        return (Defected,)

    @property
    def phases(self) -> Sequence[Step]:
        return (Step("defect", "Defect", choices=DefectChoices, decide=defect),
                Step("crash", "Crash", choices=DefectChoices, decide=crash))

    def phases_for(self, state: Any, turn: int) -> Sequence[Step]:
        return self.phases[:1] if turn == 0 else self.phases

    def initial_state(self, context: CampaignContext) -> BuggyState:
        return BuggyState()

    def evolve(self, state: Any, event: RecordedEvent) -> BuggyState:
        p = event.payload
        assert isinstance(p, Defected)
        return BuggyState(factions={**state.factions, p.to_faction: state.factions[p.to_faction] + 1})


@pytest.fixture(autouse=True)
def buggy_farm() -> Iterator[None]:
    """The buggy ruleset is registered only while a test of this module runs (the shared suites, which run over
    every registered ruleset, must not meet it)."""
    register_ruleset(BuggyRules())
    yield
    unregister_ruleset(BuggyRules.id)


def test_an_exception_in_evolve_during_a_step_is_an_internal_error_naming_step_and_seq(tmp_path: Path) -> None:
    camp = Campaign.create(tmp_path / "b", "buggy-farm")
    before = log_hash(camp.folder)
    preview = camp.preview(Plan.parse({"seed": "x", "steps": {"defect": {"choices": {"to": ""}}}}))
    step = preview.steps[0]
    assert step.internal and step.error is not None
    assert "[defect] internal error: ruleset 'buggy-farm' failed applying seq 2 (buggy.defected): KeyError" \
        in step.error and "this is a bug" in step.error
    (tmp_path / "plan.json").write_text(json.dumps({"seed": "x", "steps": {"defect": {"choices": {"to": ""}}}}))
    code, _, err = run("turn", str(camp.folder), "--plan", str(tmp_path / "plan.json"))
    assert code == 1 and "internal error" in err and "this is a bug" in err and "refused" not in err
    assert "malformed" not in err and "kingdomlog: error:" not in err
    with pytest.raises(InternalError, match=r"\[defect\] internal error"):
        camp.play(Plan.parse({"seed": "x", "steps": {"defect": {"choices": {"to": ""}}}}))
    assert log_hash(camp.folder) == before


def test_an_exception_in_decide_is_an_internal_error_naming_the_step(tmp_path: Path) -> None:
    camp = Campaign.create(tmp_path / "b", "buggy-farm")
    camp.play(Plan.parse({"seed": "x", "steps": {"defect": {"choices": {"to": "red"}}}}))
    preview = camp.preview(Plan.parse({"seed": "y", "steps": {"defect": {"choices": {"to": "red"}}}}))
    crashed = preview.steps[-1]
    assert crashed.internal and "failed in step 'crash': ZeroDivisionError" in (crashed.error or "")


def test_an_exception_in_evolve_on_a_raw_append_or_a_replay_is_internal(tmp_path: Path) -> None:
    camp = Campaign.create(tmp_path / "b", "buggy-farm")
    (tmp_path / "e.jsonl").write_text(json.dumps({"turn": 0, "type": "buggy.defected",
                                                  "payload": {"to_faction": "blue"}}) + "\n")
    code, _, err = run("append", str(camp.folder), str(tmp_path / "e.jsonl"))
    assert code == 1 and "internal error: ruleset 'buggy-farm' failed applying seq 2" in err
    assert "cannot be applied" not in err
    # an event already in a log (written by an older version of the ruleset, say) that evolve trips on
    camp.log.append([Draft(Defected(to_faction="blue"), turn=1)], expect_seq=1)
    report = Campaign.open(camp.folder).verify()
    assert not report.ok and any("internal error" in p and "seq 2" in p for p in report.problems)
    code, _, err = run("state", str(camp.folder), "--no-cache")
    assert code == 1 and err.startswith("kingdomlog: internal error:") and "KINGDOMLOG_DEBUG=1" in err
