"""Crash: appends killed with SIGKILL at random moments and between each durability step (issue 8, fault 1).

A child appends batches of 1..50 events in a loop and acks each batch (one line in a
file) only after ``append`` returned. The parent kills it with SIGKILL either at a
random delay or, through ``kingdomlog.store.log.FAULT_HOOK``, exactly after the temp
write, after its fsync, after the link and after the directory fsync. Afterwards:
every acknowledged batch is in the log exactly once and whole, no partial batch is
ever read, ``verify`` passes, and the next append succeeds (and clears the dead
writer's temp file).
"""

from __future__ import annotations

import json
import random
import signal
from collections import Counter
from pathlib import Path

import fault_workers as fw

from kingdomlog.app import Campaign
from kingdomlog.core.events import Draft

RANDOM_KILLS = 200
STAGE_KILLS_EACH = 8  # x 5 steps


def _acks(path: Path) -> list[dict]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        try:
            doc = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut by the kill was never an acknowledgement
        assert "error" not in doc, doc.get("trace")
        out.append(doc)
    return out


def _check_log(folder: Path, acked: dict[str, dict]) -> int:
    camp = Campaign.open(folder)
    report = camp.verify()
    assert report.ok, report.problems
    events = camp.events()
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    per_commit = Counter(e.commit_id for e in events[1:])
    for cid, n in per_commit.items():
        assert n == int(cid.rsplit("-", 1)[1]), f"partial batch {cid}: {n} events"  # whole or absent
    for cid, ack in acked.items():
        assert per_commit[cid] == ack["count"], f"acknowledged batch {cid} missing"
        first = next(e.seq for e in events if e.commit_id == cid)
        assert first == ack["first_seq"]
    assert camp.state().gold == len(events) - 1
    return len(events)


def test_sigkill_during_appends_loses_nothing_acknowledged(tmp_path: Path, fork_ctx) -> None:
    camp = Campaign.create(tmp_path / "farm", "toy-farm")
    folder = camp.folder
    rng = random.Random(81)
    plan: list[tuple[str | None, int]] = [(None, 0)] * RANDOM_KILLS
    plan += [(stage, rng.randrange(3)) for stage in fw.STAGES for _ in range(STAGE_KILLS_EACH)]
    rng.shuffle(plan)
    out = tmp_path / "rounds.json"
    z = fork_ctx.Process(target=fw.crash_zygote, args=(str(folder), str(tmp_path), plan, 81, str(out)))
    z.start()
    z.join(600)
    assert z.exitcode == 0
    rounds = json.loads(out.read_text())["rounds"]
    assert len(rounds) == len(plan)
    acked: dict[str, dict] = {}
    hit: Counter[str] = Counter()
    for i, (stage, where, code) in enumerate(rounds):
        acks = _acks(tmp_path / f"acks-{i}.jsonl")
        assert code == -signal.SIGKILL, (i, stage, code, acks)
        if stage is None:
            hit["random: " + ("before first append" if where == -1 else "between appends" if where == 0
                              else "returned, not acked" if where == 6 else fw.STAGES[where - 1])] += 1
        else:
            # killed inside its (kill_on+1)-th append, at that very step: the kill_on appends before it acked
            assert where == fw.STAGE_CODE[stage], (i, stage, where)
            assert len(acks) == plan[i][1], (i, stage, plan[i], len(acks))
            hit["hooked: " + stage] += 1
        for a in acks:
            assert a["commit_id"] not in acked
            acked[a["commit_id"]] = a
    n = _check_log(folder, acked)
    # the next append succeeds and removes the dead writers' temp files
    reopened = Campaign.open(folder)
    res = reopened.log.append([Draft(fw.toyrules.Sold(food=0, gold=1), turn=1)],
                              expect_seq=reopened.head_seq, commit_id="after-1")
    assert res.first_seq == n + 1
    assert reopened.log.temp_files() == []
    assert Campaign.open(folder).verify().ok
    # every step of an append was killed at, STAGE_KILLS_EACH times (where the random kills land depends on the
    # machine's speed: they are counted in the printout below, never asserted on)
    assert {k: v for k, v in hit.items() if k.startswith("hooked: ")} == {
        f"hooked: {stage}": STAGE_KILLS_EACH for stage in fw.STAGES}
    assert len(acked) >= sum(kill_on for stage, kill_on in plan if stage is not None) > 0
    print(f"\ncrash: {len(plan)} kills, {len(acked)} acked batches, {n} events; where: {dict(hit)}")
