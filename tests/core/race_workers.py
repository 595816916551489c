"""Child-process bodies for test_race.py (a plain module on sys.path, so spawned children can import it
however pytest was started)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from kingdomlog.app import Campaign

HERE = Path(__file__).resolve().parent.parent


def writer(folder: str, name: str, n: int, out: str) -> None:
    sys.path.insert(0, str(HERE))
    import toyrules

    from kingdomlog.core.errors import ConflictError
    from kingdomlog.core.events import Draft

    camp = Campaign.open(folder)
    acks: list[dict[str, object]] = []
    conflicts = 0
    done = 0
    while done < n:
        head = camp.log.head().seq
        cid = f"{name}-{done}"
        try:
            res = camp.log.append([Draft(toyrules.Sold(food=0, gold=done), turn=1)] * 2,
                                  expect_seq=head, commit_id=cid)
        except ConflictError:
            conflicts += 1
            continue
        acks.append({"commit_id": cid, "first_seq": res.first_seq, "last_seq": res.last_seq})
        done += 1
    Path(out).write_text(json.dumps({"acks": acks, "conflicts": conflicts}))


def slow_writer(folder: str, started: str) -> None:
    sys.path.insert(0, str(HERE))
    import toyrules

    from kingdomlog.core.events import Draft

    camp = Campaign.open(folder)
    Path(started).write_text("go")
    while True:
        camp.log.append([Draft(toyrules.Sold(food=0, gold=i), turn=1) for i in range(200)])
