"""Why the harness's append CPU reads above ``append_ab``'s: our append with different neighbours, on one folder.

    python -m benchmarks.append_neighbours --files 100 --blocks 4 [--data DIR] [--modes alone,sleep,es,floor,all3]
    python -m benchmarks.append_neighbours --log FOLDER ...   # on a ledger built by `append_ab --build` (kept)

One process, one log of ``--files`` batch files (built as the harness builds it), then blocks of 41 durable 50-event
appends per mode, the modes alternated block by block (forwards, then backwards), so that every mode appends to the
same folder at the same moment of the run: **alone** (back to back, as ``append_ab``), **sleep** (a 3 ms sleep
between two appends, nothing else), **es** (eventsourcing/SQLite saving 50 events between two of ours), **floor**
(the harness's floor between two of ours), **all3** (the harness's own rotation of ours, the floor and es). Prints one
JSON line: per mode the median CPU (``time.process_time``, kernel time included) of our append and the number of
garbage collections that started during our appends. The first 20 appends are not counted. ``--log``: append to
that ledger folder (``benchmarks.append_ab --build``) instead of building one, so that ``append_ab`` and this script
can take turns on one folder.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks import ledger

BLOCK = 41
"""Appends per mode and block: the harness's number per size."""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.append_neighbours", description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--blocks", type=int, default=4)
    ap.add_argument("--modes", default="alone,sleep,es,floor,all3")
    ap.add_argument("--log", type=Path, default=None, help="an existing ledger folder to append to (kept)")
    args = ap.parse_args(argv)
    from benchmarks.es_ledger import Kingdom, application
    from benchmarks.run import _floor_append, build_ledger
    from kingdomlog.core.events import Draft
    from kingdomlog.store import keys
    from kingdomlog.store import log as logmod

    base = args.data or Path(tempfile.mkdtemp(prefix="append-neighbours-"))
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(parents=True)
    if args.log is None:
        camp = build_ledger(base / f"append-{args.files}", args.files, 1)
    else:
        from kingdomlog.app import Campaign

        camp = Campaign.open(args.log)
    floor_dir = base / "floor"
    floor_dir.mkdir()
    tmp_dir = camp.folder / ".cache" / logmod.INFLIGHT
    tmp_dir.mkdir(parents=True, exist_ok=True)
    app = application(str(base / "es.sqlite"))
    kingdom = Kingdom("a")
    app.save(kingdom)
    keys.local_key()
    collections = [0]
    gc.callbacks.append(lambda phase, _info: collections.__setitem__(0, collections[0] + (phase == "start")))
    at: dict[str, Any] = {"head": camp.head_seq, "last": b""}
    Acc = dict[str, list[float]]

    def ours(r: int, acc: Acc) -> None:
        pend = [Draft(ledger.Changed(**ledger.payload(j)), turn=10 + r % 1000) for j in range(50)]
        g = collections[0]
        c = time.process_time()
        res = camp.log.append(pend, expect_seq=at["head"])
        acc["cpu"].append(time.process_time() - c)
        acc["gc"].append(collections[0] - g)
        at["head"] = res.last_seq
        at["last"] = Path(res.file).read_bytes()

    def floor(_r: int, _acc: Acc) -> None:
        _floor_append(at["last"], tmp_dir, floor_dir)

    def es(_r: int, _acc: Acc) -> None:
        for j in range(50):
            kingdom.change(**ledger.payload(j))
        app.save(kingdom)

    def sleep(_r: int, _acc: Acc) -> None:
        time.sleep(0.003)

    every: dict[str, list[Callable[[int, Acc], None]]] = {
        "alone": [ours], "sleep": [ours, sleep], "es": [ours, es], "floor": [ours, floor], "all3": [ours, floor, es]}
    modes = {m: every[m] for m in args.modes.split(",")}
    for _ in range(20):
        ours(0, {"cpu": [], "gc": []})
    got: dict[str, Acc] = {m: {"cpu": [], "gc": []} for m in modes}
    for b in range(args.blocks):
        for m, sides in (list(modes.items()) if b % 2 == 0 else list(modes.items())[::-1]):
            for r in range(BLOCK):  # the harness's rotation: every order, forwards then backwards
                order = sides[r % len(sides):] + sides[:r % len(sides)]
                for side in order if (r // len(sides)) % 2 == 0 else order[::-1]:
                    side(r, got[m])
    out: dict[str, Any] = {"files": args.files if args.log is None else str(args.log), "blocks": args.blocks,
                           "load": os.getloadavg()[0]}
    for m, acc in got.items():
        out[m] = {"cpu_ms": round(statistics.median(acc["cpu"]) * 1e3, 3), "gc_runs": int(sum(acc["gc"])),
                  "n": len(acc["cpu"])}
    print(json.dumps(out))
    shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
