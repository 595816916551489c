"""Child-process bodies for the crash and concurrency fault tests (imported by a forkserver).

Kept out of the test modules so that the forkserver can import them by plain name
(``tests/faults`` is put on ``sys.path``), with the heavy imports preloaded once.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/: the toy ruleset

import pyarrow.parquet  # noqa: E402, F401  (preloaded: the store imports it only when it first writes)
import toyrules  # noqa: E402

from kingdomlog.app import Campaign  # noqa: E402
from kingdomlog.core.errors import ConflictError  # noqa: E402
from kingdomlog.core.events import Draft  # noqa: E402
from kingdomlog.store import log as logmod  # noqa: E402

STAGES = ("start", "temp_written", "temp_synced", "linked", "dir_synced")
STAGE_CODE = {name: i + 1 for i, name in enumerate(STAGES)}  # 0 = between appends


def _ack(fd: int, doc: dict[str, Any]) -> None:
    # one write() per line on an O_APPEND file: a kill leaves either the whole line or nothing useful
    os.write(fd, (json.dumps(doc) + "\n").encode())


def crash_child(folder: str, ack_path: str, stage_box: Any, seed: int, kill_stage: str | None,
                kill_on: int) -> None:
    """Append batches until killed. Acks go to ``ack_path`` only after ``append`` returned.

    With ``kill_stage`` the child SIGKILLs itself when its ``kill_on``-th append reaches that
    step; otherwise the parent kills it at a random moment. ``stage_box`` holds -1 until the
    child is ready, then the step the current append last reached (0 between appends, 6 after
    ``append`` returned but before the ack was written), so the parent knows where it hit.
    """
    import random

    rng = random.Random(seed)
    count = {"n": 0}

    def hook(stage: str) -> None:
        stage_box.value = STAGE_CODE[stage]
        if kill_stage == stage and count["n"] == kill_on:
            os.kill(os.getpid(), signal.SIGKILL)

    logmod.FAULT_HOOK = hook
    fd = os.open(ack_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        camp = Campaign.open(folder)
        stage_box.value = 0  # ready: the parent starts its random delay now
        while True:
            k = rng.choice((1, 2, 3, 5, 8, 13, 50))
            cid = f"{os.getpid()}-{count['n']}-{k}"
            head = camp.log.head()
            batch = [Draft(toyrules.Sold(food=0, gold=1), turn=1) for _ in range(k)]
            res = camp.log.append(batch, expect_seq=head.seq, commit_id=cid)
            stage_box.value = 6  # appended, ack not yet written
            _ack(fd, {"commit_id": cid, "first_seq": res.first_seq, "last_seq": res.last_seq, "count": k})
            stage_box.value = 0
            count["n"] += 1
    except BaseException as exc:
        _ack(fd, {"error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc()})
        raise


def crash_zygote(folder: str, work: str, plan: list[tuple[str | None, int]], seed: int, out: str) -> None:
    """Run the crash rounds: fork a ``crash_child`` per round and kill it (randomly or at a step).

    This process only forks, waits and kills (it never touches pyarrow), so ``os.fork`` is
    safe and cheap here. Writes ``{"rounds": [[stage, where, exit], ...]}`` to ``out``.
    """
    import ctypes
    import mmap
    import random

    rng = random.Random(seed)
    shared = mmap.mmap(-1, 8)
    box = ctypes.c_int.from_buffer(shared)
    rounds = []
    for i, (stage, kill_on) in enumerate(plan):
        box.value = -1
        ack_path = os.path.join(work, f"acks-{i}.jsonl")
        pid = os.fork()
        if pid == 0:  # child
            try:
                crash_child(folder, ack_path, box, i, stage, kill_on)
            finally:
                os._exit(3)
        if stage is None:
            deadline = time.monotonic() + 30
            while box.value == -1 and time.monotonic() < deadline:
                time.sleep(0.0005)
            time.sleep(rng.uniform(0.0, 0.03))
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        rounds.append([stage, box.value, os.waitstatus_to_exitcode(status)])
    del box
    Path(out).write_text(json.dumps({"rounds": rounds}))


def race_writer(folder: str, name: str, n: int, out: str) -> None:
    """Make ``n`` successful appends racing others; record acks, conflicts and idempotent retries."""
    camp = Campaign.open(folder)
    acks: list[dict[str, Any]] = []
    conflicts = 0
    retries_ok = 0
    while len(acks) < n:
        cid = f"{name}-{len(acks)}"
        head = camp.log.head().seq
        try:
            res = camp.log.append([Draft(toyrules.Sold(food=0, gold=1), turn=1)] * 2, expect_seq=head,
                                  commit_id=cid)
        except ConflictError as exc:
            assert exc.expected == head and exc.actual > head, (exc.expected, exc.actual, head)
            conflicts += 1
            continue  # retry the same commit id from the new head
        assert not res.idempotent
        # a retry of the same commit (e.g. after a lost reply) is reported as done, not appended twice
        again = camp.log.append([Draft(toyrules.Sold(food=0, gold=1), turn=1)] * 2, expect_seq=head,
                                commit_id=cid)
        assert again.idempotent and (again.first_seq, again.last_seq) == (res.first_seq, res.last_seq)
        retries_ok += 1
        acks.append({"commit_id": cid, "first_seq": res.first_seq, "last_seq": res.last_seq})
    Path(out).write_text(json.dumps({"acks": acks, "conflicts": conflicts, "retries_ok": retries_ok}))


def race_reader(folder: str, stop_path: str, out: str) -> None:
    """Fold the campaign in a loop until ``stop_path`` exists; every fold must be gapless and consistent."""
    folds = 0
    last_gold = -1
    last_seq = 0
    while not os.path.exists(stop_path):
        camp = Campaign.open(folder)
        events = camp.events()
        seqs = [e.seq for e in events]
        assert seqs == list(range(1, len(seqs) + 1)), "gap or duplicate seen by a reader"
        state = camp.cache.replay(camp.ruleset, camp.context, events, None)  # fold exactly what was read
        sold = sum(1 for e in events if e.type == "toy.sold")
        assert state.gold == sold, (state.gold, sold)
        assert state.gold >= last_gold and seqs[-1] >= last_seq
        last_gold, last_seq = state.gold, seqs[-1]
        folds += 1
        time.sleep(0.25)  # fold often, but leave the two cores mostly to the writers
    Path(out).write_text(json.dumps({"folds": folds, "last_seq": last_seq}))
