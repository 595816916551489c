"""Four edges of the store (issue 28, item 10).

- A FIFO named like a batch file (``log/000000000099.parquet``) hung ``verify``, ``state`` and ``note``
  (a plain ``open`` waits for a writer). Batch files are now opened without blocking and anything but a
  regular file is a fault naming it.
- A ``new`` that failed on a full disk left ``campaign.toml`` and ``log/`` behind, and the retry was
  refused ("a campaign already exists here"). It now removes what it made.
- Two ``note``s at once: the loser failed "conflict". A note depends on no state, so it is placed
  again after the new head (a bounded number of times, one commit id: never twice).
- ``note --turn 2147483647`` was accepted on a log whose next turn is 2. A note's turn is now at most
  the next turn.
"""

from __future__ import annotations

import errno
import os
import threading
from collections import Counter
from pathlib import Path

import pytest
from clirun import run

from kingdomlog.app import Campaign
from kingdomlog.app import campaign as campmod
from kingdomlog.core.errors import ConflictError, InputError
from kingdomlog.core.turn import Plan
from kingdomlog.store import log as logmod


def build(folder: Path) -> Campaign:
    camp = Campaign.create(folder, "toy-farm", name="Farm", viewers=["alice"])
    camp.play(Plan.parse({"seed": "s0", "steps": {"found": {"choices": {"name": "Dale", "gold": 5}}}}))
    camp.play(Plan.parse({"seed": "s1", "steps": {"harvest": {"choices": {"stash": 1}}}}))
    return camp


# ---- a FIFO named like a batch --------------------------------------------------------------------


def run_bounded(argv: tuple[str, ...], fifo: Path, seconds: float = 20.0) -> tuple[int, str, str]:
    """``run(*argv)`` in a thread; if it is still waiting after ``seconds``, release it (open the FIFO for writing)
    and fail."""
    got: list[tuple[int, str, str]] = []
    t = threading.Thread(target=lambda: got.append(run(*argv)), daemon=True)
    t.start()
    t.join(seconds)
    if t.is_alive():
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # a reader waits on the FIFO: let it go
        os.close(fd)
        t.join(10)
        pytest.fail(f"{argv[0]} waited on a FIFO named like a batch file")
    return got[0]


@pytest.mark.parametrize("name", ["000000000099.parquet", "next"])
def test_a_fifo_named_like_a_batch_is_a_fault_not_a_hang(tmp_path: Path, name: str) -> None:
    camp = build(tmp_path / "farm")
    head = camp.log.head().seq
    fifo = camp.folder / "log" / (logmod.batch_name(head + 1) if name == "next" else name)
    os.mkfifo(fifo)
    for argv in (("verify", str(camp.folder)), ("state", str(camp.folder)), ("state", str(camp.folder), "--no-cache"),
                 ("note", str(camp.folder), "past the fifo"), ("log", str(camp.folder))):
        rc, _, err = run_bounded(argv, fifo)
        assert rc == 1 and fifo.name in err and "FIFO" in err and "Traceback" not in err, (argv, err)
    fifo.unlink()
    assert Campaign.open(camp.folder).verify().ok and Campaign.open(camp.folder).head_for().seq == head


# ---- new on a full disk -----------------------------------------------------------------------------


@pytest.mark.parametrize("stage", ["config", "start", "temp_written", "linked"])
@pytest.mark.parametrize("existed", [False, True])
def test_a_new_that_fails_on_a_full_disk_leaves_nothing_and_the_retry_succeeds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stage: str, existed: bool) -> None:
    folder = tmp_path / "realm"
    if existed:
        folder.mkdir()  # an empty folder the GM made for it: it stays, empty
    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    if stage == "config":
        def no_space(*_a: object, **_k: object) -> None:
            raise full

        monkeypatch.setattr(campmod, "write_config", no_space)
    else:
        def hook(at: str) -> None:
            if at == stage:
                raise full

        monkeypatch.setattr(logmod, "FAULT_HOOK", hook)
    rc, out, err = run("new", str(folder), "--ruleset", "toy-farm")
    assert rc == 1 and "the disk is full" in err and err.count("\n") == 1, (out, err)
    assert (sorted(os.listdir(folder)) == []) if existed else not folder.exists()
    monkeypatch.undo()
    rc, out, err = run("new", str(folder), "--ruleset", "toy-farm")
    assert rc == 0, err
    assert Campaign.open(folder).verify().ok and Campaign.open(folder).head_for().seq == 1


def test_a_failed_new_never_removes_a_campaign_that_is_there(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    """Two ``new``s racing into one folder: the loser's clean-up leaves the winner's campaign whole."""
    folder = tmp_path / "realm"
    real = logmod.EventLog.append

    def winner_first(self: logmod.EventLog, *a: object, **k: object) -> object:
        monkeypatch.setattr(logmod.EventLog, "append", real)
        other = logmod.EventLog(self.dir, self.campaign, cache_dir=self.cache_dir)
        real(other, *a, **dict(k, commit_id=None))  # type: ignore[arg-type]  # another creation, another commit
        return real(self, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(logmod.EventLog, "append", winner_first)
    with pytest.raises(ConflictError):
        Campaign.create(folder, "toy-farm", name="Farm")
    assert Campaign.open(folder).verify().ok and Campaign.open(folder).head_for().seq == 1


# ---- concurrent notes -------------------------------------------------------------------------------


def test_concurrent_notes_all_land_once(tmp_path: Path) -> None:
    camp = build(tmp_path / "farm")
    start = camp.log.head().seq
    writers, notes = 3, 12
    errors: list[BaseException] = []
    barrier = threading.Barrier(writers)

    def write(w: int) -> None:
        try:
            mine = Campaign.open(camp.folder)
            barrier.wait()
            for i in range(notes):
                mine.note(f"w{w}-{i}")
        except BaseException as exc:  # collected: a thread's failure must fail the test
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    events = Campaign.open(camp.folder).events()
    texts = Counter(e.payload.text for e in events if e.type == "core.note_added")  # type: ignore[attr-defined]
    assert texts == Counter(f"w{w}-{i}" for w in range(writers) for i in range(notes))
    assert [e.seq for e in events] == list(range(1, start + writers * notes + 1))
    assert Campaign.open(camp.folder).verify().ok


def test_a_note_gives_up_after_its_attempts(toy_campaign: Campaign, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def always_moved(self: Campaign, *_a: object, **k: object) -> object:
        calls.append(1)
        raise ConflictError(int(k["expect_seq"]), int(k["expect_seq"]) + 1)  # type: ignore[call-overload]

    pauses: list[float] = []
    monkeypatch.setattr(Campaign, "append", always_moved)
    monkeypatch.setattr(campmod.time, "sleep", pauses.append)
    with pytest.raises(ConflictError):
        toy_campaign.note("never placed")
    assert len(calls) == campmod.NOTE_ATTEMPTS
    # it waits between tries, longer as it keeps losing, never more than 50 ms (x1.5 spread) at once,
    # and it keeps trying for over a second in all: a loaded machine's writers get their turn
    assert len(pauses) == campmod.NOTE_ATTEMPTS - 1 and pauses == sorted(pauses)
    assert max(pauses) <= 0.075 and sum(pauses) > 0.8


# ---- a note's turn ---------------------------------------------------------------------------------


def test_a_note_s_turn_is_at_most_the_next_turn(toy_campaign: Campaign) -> None:
    folder = toy_campaign.folder
    nxt = Campaign.open(folder).next_turn()
    head = toy_campaign.log.head().seq
    for turn in (nxt + 1, 2147483647):
        rc, _, err = run("note", str(folder), "from the future", "--turn", str(turn))
        assert rc == 1 and f"turn {turn} has not begun" in err and f"next turn is {nxt}" in err, err
        with pytest.raises(InputError, match=f"turn {turn} has not begun"):
            Campaign.open(folder).note("from the future", turn=turn)
    assert toy_campaign.log.head().seq == head
    for turn in (0, nxt):
        assert run("note", str(folder), "in time", "--turn", str(turn))[0] == 0
