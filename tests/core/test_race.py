"""Two processes racing appends on one campaign, and a writer killed mid-append (issue: core, must show)."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import signal
import sys
import time
from pathlib import Path

from kingdomlog.app import Campaign
from kingdomlog.store.log import EventLog

sys.path.insert(0, str(Path(__file__).resolve().parent))

import race_workers


def test_two_processes_racing_200_appends_each(tmp_path: Path) -> None:
    camp = Campaign.create(tmp_path / "race", "toy")
    ctx = mp.get_context("spawn")
    outs = [tmp_path / "a.json", tmp_path / "b.json"]
    procs = [ctx.Process(target=race_workers.writer, args=(str(camp.folder), nm, 200, str(o)))
             for nm, o in zip(("a", "b"), outs, strict=True)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(240)
        assert p.exitcode == 0
    results = [json.loads(o.read_text()) for o in outs]
    events = Campaign.open(camp.folder).events(full_verify=True)
    assert [e.seq for e in events] == list(range(1, 802))  # gapless: 1 config + 400 batches x 2
    by_commit: dict[str, list[int]] = {}
    for e in events[1:]:
        by_commit.setdefault(e.commit_id, []).append(e.seq)
    acked = [a for r in results for a in r["acks"]]
    assert len(acked) == 400 and len(by_commit) == 400
    for a in acked:  # every acknowledged batch present exactly once, where it was acknowledged
        assert by_commit[a["commit_id"]] == [a["first_seq"], a["last_seq"]]
    assert Campaign.open(camp.folder).verify().ok
    print(f"conflicts seen by the losers: {[r['conflicts'] for r in results]}")


def test_writer_killed_mid_append_loses_nothing_acknowledged(tmp_path: Path) -> None:
    camp = Campaign.create(tmp_path / "kill", "toy")
    ctx = mp.get_context("spawn")
    for round_ in range(5):
        before = [e.hash for e in Campaign.open(camp.folder).events()]
        flag = tmp_path / f"started-{round_}"
        p = ctx.Process(target=race_workers.slow_writer, args=(str(camp.folder), str(flag)))
        p.start()
        deadline = time.time() + 60
        while not flag.exists() and time.time() < deadline:
            time.sleep(0.01)
        time.sleep(0.05 + 0.03 * round_)
        assert p.pid is not None
        os.kill(p.pid, signal.SIGKILL)
        p.join(10)
        reopened = Campaign.open(camp.folder)
        after = [e.hash for e in reopened.events()]
        assert after[: len(before)] == before  # nothing committed lost or altered
        assert reopened.verify().ok
        log = EventLog(camp.folder / "log", camp.id)
        log.clean_temps()
        assert not log.temp_files()
        res = reopened.log.append(reopened.parse_jsonl(
            ['{"turn": 1, "type": "toy.sold", "payload": {"food": 0, "gold": 1}}']), expect_seq=reopened.head_seq)
        assert res.first_seq == len(after) + 1
