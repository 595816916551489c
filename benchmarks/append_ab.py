"""One side of an A/B of the append: durable 50-event appends on an existing ledger folder, in this checkout's code.

    python -m benchmarks.append_ab --build DIR --files 100       # once: a ledger of 100 batch files
    cd CHECKOUT && PYTHONPATH=CHECKOUT python -m benchmarks.append_ab DIR --appends 200 --label NAME   # A B B A

Run each side from its own checkout's folder: ``python -m`` puts the current folder ahead of ``PYTHONPATH`` on
``sys.path``, so from another checkout's folder both sides would run that checkout's code (this happened once: two
runs of the same code, 1.19 and 1.08 ms, ``results/stop44-append-ab-step1-same-code.jsonl``).

Two checkouts (``main`` and a branch) append to the *same* folder in turn, each in a fresh process, so both pay the
same file system: a new file's inode costs ext4 from 16 us to 0.75 ms of kernel CPU depending on where the folder
landed (benchmarks/README.md, "Append, fifth pass"), more than the code changes being measured; the harness's rows
build new folders every run. Prints one JSON line: the median CPU (``time.process_time``, kernel time included) and
wall time of an append, the least CPU, the wall p95 and the load. The first 20 appends of a process are not counted.

``--pause MS`` sleeps that long between appends (outside the timing). Back to back (0, the default) every append finds
the caches as the one before left them; the harness (``python -m benchmarks --only append``) puts the floor's and
eventsourcing's work between two of ours, and any pause does the same to the CPU's caches on this shared 2-core machine
(benchmarks/README.md, "append's sixth pass": a 3 ms sleep alone costs as much as the interleaving).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from benchmarks import ledger


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.append_ab", description=__doc__.split("\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--build", action="store_true", help="build a ledger of --files batch files in FOLDER first")
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--appends", type=int, default=200)
    ap.add_argument("--label", default="")
    ap.add_argument("--pause", type=float, default=0.0, help="milliseconds slept between appends (not timed)")
    args = ap.parse_args(argv)
    if args.build:
        from benchmarks.run import build_ledger

        build_ledger(args.folder, args.files, 1)
        return 0
    from kingdomlog.app import Campaign
    from kingdomlog.core.events import Draft
    from kingdomlog.store import keys

    log = Campaign.open(args.folder).log
    keys.local_key()
    head = log.head().seq
    cpu: list[float] = []
    wall: list[float] = []
    for r in range(20 + args.appends):
        if args.pause:
            time.sleep(args.pause / 1e3)
        pend = [Draft(ledger.Changed(**ledger.payload(j)), turn=10 + r % 1000) for j in range(50)]
        c, t = time.process_time(), time.perf_counter()
        res = log.append(pend, expect_seq=head)
        w, cc = time.perf_counter() - t, time.process_time() - c
        head = res.last_seq
        if r >= 20:
            cpu.append(cc)
            wall.append(w)
    print(json.dumps({"label": args.label, "n": args.appends, "cpu_ms": statistics.median(cpu) * 1e3,
                      "wall_ms": statistics.median(wall) * 1e3, "cpu_least_ms": min(cpu) * 1e3,
                      "wall_p95_ms": sorted(wall)[int(0.95 * len(wall))] * 1e3, "pause_ms": args.pause,
                      "load": os.getloadavg()[0]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
