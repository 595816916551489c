"""Concurrency: 4 processes x 250 appends racing on one campaign while a reader folds (issue 8, fault 2).

Writers read the head, append with ``expect_seq`` and a commit id, and on
``ConflictError`` retry the same commit id from the new head. After each success
they retry once more with the stale head: that must be reported as already done
(idempotent), never appended twice. A reader folds the campaign in a loop the
whole time; every fold it sees must be gapless and consistent.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import fault_workers as fw

from kingdomlog.app import Campaign

WRITERS = 4
APPENDS = 250


def test_four_writers_and_a_reader(tmp_path: Path, fork_ctx) -> None:
    camp = Campaign.create(tmp_path / "race", "toy-farm")
    folder = str(camp.folder)
    outs = [tmp_path / f"w{i}.json" for i in range(WRITERS)]
    stop = tmp_path / "stop"
    reader_out = tmp_path / "reader.json"
    reader = fork_ctx.Process(target=fw.race_reader, args=(folder, str(stop), str(reader_out)))
    reader.start()
    writers = [fork_ctx.Process(target=fw.race_writer, args=(folder, f"w{i}", APPENDS, str(o)))
               for i, o in enumerate(outs)]
    for p in writers:
        p.start()
    for p in writers:
        p.join(600)
        assert p.exitcode == 0
    stop.touch()
    reader.join(120)
    assert reader.exitcode == 0
    results = [json.loads(o.read_text()) for o in outs]
    seen = json.loads(reader_out.read_text())

    events = Campaign.open(folder).events(full_verify=True)
    assert [e.seq for e in events] == list(range(1, 1 + 1 + WRITERS * APPENDS * 2))  # gapless
    per_commit = Counter(e.commit_id for e in events[1:])
    acks = [a for r in results for a in r["acks"]]
    assert len(acks) == WRITERS * APPENDS
    assert set(per_commit) == {a["commit_id"] for a in acks}  # nothing unacknowledged slipped in
    for a in acks:
        assert per_commit[a["commit_id"]] == 2  # present exactly once, whole
        got = [e.seq for e in events if e.commit_id == a["commit_id"]]
        assert got == [a["first_seq"], a["last_seq"]]
    assert sum(r["retries_ok"] for r in results) == WRITERS * APPENDS
    conflicts = sum(r["conflicts"] for r in results)
    assert conflicts > 0  # there was a race, and every loser was told
    assert seen["folds"] >= 3
    assert Campaign.open(folder).verify().ok
    assert Campaign.open(folder).state().gold == WRITERS * APPENDS * 2
    print(f"\nrace: {WRITERS}x{APPENDS} appends, {conflicts} conflicts, {seen['folds']} reader folds")
