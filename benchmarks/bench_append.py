"""The append path piece by piece: CPU time (``time.process_time``) of each step of a durable 50-event append.

    python -m benchmarks.bench_append [--data DIR] [--files 100] [--reps 300] [--no-sync] [--profile] [--pause MS]

Builds a ledger log of ``--files`` batch files (as ``python -m benchmarks --only append`` does), then appends
``--reps`` batches of 50 events, each step of ``EventLog._append`` wrapped to record its own CPU time. Prints, for
every step, the least and the median per append (microseconds), and the whole append's CPU and wall (least,
median); ``--json`` writes them. ``--profile`` runs the same appends under cProfile instead and prints the top of
it. The wrappers cost about a microsecond each (two ``process_time`` calls); the whole append is also timed with
no wrapper at all, in rounds of its own, interleaved. ``--pause MS`` sleeps that long before each append (untimed):
which steps cost more when an append does not follow another at once (as in the harness, and at a table).
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import json
import os
import pstats
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks import ledger
from kingdomlog.core.events import Draft
from kingdomlog.store import codec, keys, witness
from kingdomlog.store import log as logmod

PIECES: list[tuple[Any, str, str]] = [
    (logmod.EventLog, "_still", "own records unchanged (lstat)"),
    (witness, "read_sized", "log/.heads read"),
    (logmod.EventLog, "_cache_record", "head.rec read"),
    (logmod.EventLog, "_recorded_tip", "newest file confirmed"),
    (logmod.EventLog, "_clean_temps", "clean_temps"),
    (logmod.EventLog, "_judge", "judge"),
    (codec, "encode", "encode (payload JSON + hashes)"),
    (codec, "batch_table", "Arrow table"),
    (logmod, "_parquet_bytes", "Parquet writer"),
    (logmod, "seal", "seal (sha256 of the file)"),
    (logmod, "_write_new", "temp file written (+ fsync)"),
    (os, "link", "link"),
    (logmod, "_fsync_dir", "folder fsync"),
    (witness, "write_own", "log/.heads line"),
    (logmod.EventLog, "_record_head", "head.rec written"),
]


def _wrap(owner: Any, name: str, label: str, acc: dict[str, float]) -> Callable[[], None]:
    orig = getattr(owner, name)
    is_static = isinstance(owner, type) and isinstance(owner.__dict__.get(name), staticmethod)
    clock = time.process_time

    @functools.wraps(orig)
    def timed(*a: Any, **kw: Any) -> Any:
        c = clock()
        try:
            return orig(*a, **kw)
        finally:
            acc[label] = acc.get(label, 0.0) + clock() - c

    setattr(owner, name, staticmethod(timed) if is_static else timed)

    def undo() -> None:
        setattr(owner, name, staticmethod(orig) if is_static else orig)

    return undo


def build(folder: Path, files: int) -> Any:
    from benchmarks.run import build_ledger

    return build_ledger(folder, files, 1)


def drafts(r: int) -> list[Draft]:
    return [Draft(ledger.Changed(**ledger.payload(j)), turn=10 + r % 1000) for j in range(50)]


def run(camp: Any, reps: int, *, pieces: bool, pause: float = 0.0) -> dict[str, list[float]]:
    acc: dict[str, float] = {}
    undo = [_wrap(o, n, lab, acc) for o, n, lab in PIECES] if pieces else []
    out: dict[str, list[float]] = {"append cpu": [], "append wall": []}
    try:
        head = camp.head_seq
        for r in range(reps):
            if pause:
                time.sleep(pause / 1e3)
            pend = drafts(r)
            acc.clear()
            c, t = time.process_time(), time.perf_counter()
            res = camp.log.append(pend, expect_seq=head)
            out["append wall"].append(time.perf_counter() - t)
            out["append cpu"].append(time.process_time() - c)
            head = res.last_seq
            for k, v in acc.items():
                out.setdefault(k, []).append(v)
    finally:
        for u in undo:
            u()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_append", description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-sync", action="store_true")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--pause", type=float, default=0.0, help="milliseconds slept before each append (untimed)")
    args = ap.parse_args(argv)
    base = args.data or Path(tempfile.mkdtemp(prefix="bench-append-"))
    folder = base / f"append-{args.files}"
    shutil.rmtree(folder, ignore_errors=True)
    camp = build(folder, args.files)
    logmod.SYNC = not args.no_sync
    keys.local_key()  # the key read once per process, before the first timed append
    run(camp, 20, pieces=False)  # warm up
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        run(camp, args.reps, pieces=False)
        prof.disable()
        pstats.Stats(prof).sort_stats(os.environ.get("SORT", "tottime")).print_stats(int(os.environ.get("TOP", "35")))
        shutil.rmtree(base, ignore_errors=True)
        return 0
    whole: dict[str, list[float]] = {}
    parts: dict[str, list[float]] = {}
    for _ in range(args.rounds):
        for k, v in run(camp, args.reps, pieces=False, pause=args.pause).items():
            whole.setdefault(k, []).extend(v)
        for k, v in run(camp, args.reps, pieces=True, pause=args.pause).items():
            parts.setdefault(k, []).extend(v)
    load = os.getloadavg()[0]
    res: dict[str, Any] = {"files": args.files, "reps": args.reps, "rounds": args.rounds, "sync": not args.no_sync,
                           "pause_ms": args.pause, "load": load, "whole_us": {}, "pieces_us": {}}
    print(f"{args.files} files, {args.rounds} x {args.reps} appends, sync={not args.no_sync}, pause {args.pause} ms,"
          f" load {load:.2f}")
    print(f"{'step':<34}{'least':>9}{'median':>9}  (us)")
    for k, v in whole.items():
        res["whole_us"][k] = {"least": min(v) * 1e6, "median": statistics.median(v) * 1e6}
        print(f"{'(unwrapped) ' + k:<34}{min(v) * 1e6:9.1f}{statistics.median(v) * 1e6:9.1f}")
    named = [lab for _, _, lab in PIECES]
    summed = 0.0
    for k in ["append cpu", *named]:
        v = parts.get(k)
        if not v:
            continue
        res["pieces_us"][k] = {"least": min(v) * 1e6, "median": statistics.median(v) * 1e6}
        if k != "append cpu":
            summed += statistics.median(v)
        print(f"{k:<34}{min(v) * 1e6:9.1f}{statistics.median(v) * 1e6:9.1f}")
    rest = statistics.median(parts["append cpu"]) - summed
    res["pieces_us"]["rest (median of the whole less the pieces' medians)"] = rest * 1e6
    print(f"{'rest (whole less the pieces)':<34}{'':>9}{rest * 1e6:9.1f}")
    if args.json:
        args.json.write_text(json.dumps(res, indent=1) + "\n")
    shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
