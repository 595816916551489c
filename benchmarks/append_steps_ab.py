"""The append's sixth pass, before and after in one process: its two changed steps, swapped call by call.

    python -m benchmarks.append_steps_ab steps [--pause MS] [--n 1500]
    python -m benchmarks.append_steps_ab whole [--pause MS] [--n 400] [--files 100]

The code before the pass (``main`` at ``73a4161``: the Parquet bytes through ``pq.ParquetWriter``, the temp file
through ``open(path, "xb")``) is copied below; the code after is this checkout's ``store.log``. In one process the
two are called in turn, so the load of this shared machine, which moved every figure of a run by half during the
pass, falls on both alike. ``steps``: each step alone, old and new alternated (the temp file written without fsync
and removed); ``whole``: durable 50-event appends to one ledger folder, the old steps and the new swapped in append
by append (A B B A), the first 20 not counted. ``--pause``: a sleep before each timed call (untimed). Prints one JSON
line: median, least (and for ``whole`` mean) CPU time of each side (``time.process_time``, kernel time included).
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks import ledger


def _old_parquet_bytes(table: Any) -> bytes:
    """``store.log._parquet_bytes`` before the sixth pass."""
    import pyarrow.parquet as pq

    from kingdomlog.store import codec
    from kingdomlog.store import log as logmod

    sink = codec.pa().BufferOutputStream()
    writer = pq.ParquetWriter(sink, table.schema, store_schema=False, **logmod.WRITE_OPTIONS)
    try:
        writer.write_table(table)
        writer.add_key_value_metadata(table.schema.metadata or {})
    finally:
        writer.close()
    return bytes(sink.getvalue().to_pybytes())


def _old_write_new(path: str | Path, data: bytes, hook: Callable[[str], None] | None) -> None:
    """``store.log._write_new`` before the sixth pass."""
    from kingdomlog.store import log as logmod

    with open(path, "xb", buffering=0) as fh:
        view = memoryview(data)
        while view:
            n = fh.write(view)
            if not n:
                raise OSError(errno.EIO, os.strerror(errno.EIO))
            view = view[n:]
        if hook is not None:
            hook("temp_written")
        if logmod.SYNC:
            os.fsync(fh.fileno())


def _summary(xs: list[float], *, mean: bool = False) -> dict[str, float]:
    out = {"median_us": round(statistics.median(xs) * 1e6, 1), "least_us": round(min(xs) * 1e6, 1)}
    if mean:
        out["mean_us"] = round(statistics.mean(xs) * 1e6, 1)
    return out


def steps(n: int, pause: float) -> dict[str, Any]:
    from kingdomlog.core.events import Draft
    from kingdomlog.store import codec
    from kingdomlog.store import log as logmod

    drafts = [Draft(ledger.Changed(**ledger.payload(j)), turn=10) for j in range(50)]
    cols = codec.encode(drafts, campaign="ledger", first_seq=101, prev_hash="0" * 64, commit_id=codec.new_ids(1)[0],
                        recorded_at=datetime.now(UTC))
    table = codec.batch_table(cols, {codec.FORMAT_KEY: b"3", codec.FILE_SHA_KEY: b"0" * 64})
    data = _old_parquet_bytes(table)
    if data != logmod._parquet_bytes(table):  # the same bytes, or the comparison means nothing
        raise SystemExit("the two writers' bytes differ")
    folder = tempfile.mkdtemp(prefix="append-steps-")
    res: dict[str, list[float]] = {"parquet_old": [], "parquet_new": [], "write_old": [], "write_new": []}
    sync, logmod.SYNC = logmod.SYNC, False
    clock = time.process_time
    try:
        for i in range(n):
            pq_sides = [("old", _old_parquet_bytes), ("new", logmod._parquet_bytes)]
            wr_sides = [("old", _old_write_new), ("new", logmod._write_new)]
            if i % 2:
                pq_sides.reverse()
                wr_sides.reverse()
            for name, pq_f in pq_sides:
                if pause:
                    time.sleep(pause / 1e3)
                c = clock()
                pq_f(table)
                res["parquet_" + name].append(clock() - c)
            for name, wr_f in wr_sides:
                path = f"{folder}/t{i}-{name}"
                if pause:
                    time.sleep(pause / 1e3)
                c = clock()
                wr_f(path, data, None)
                res["write_" + name].append(clock() - c)
                os.unlink(path)
    finally:
        logmod.SYNC = sync
        shutil.rmtree(folder, ignore_errors=True)
    return {k: _summary(v) for k, v in res.items()}


def whole(n: int, pause: float, files: int) -> dict[str, Any]:
    from benchmarks.run import build_ledger
    from kingdomlog.core.events import Draft
    from kingdomlog.store import keys
    from kingdomlog.store import log as logmod

    base = Path(tempfile.mkdtemp(prefix="append-whole-"))
    camp = build_ledger(base / "ledger", files, 1)
    keys.local_key()
    new = (logmod._parquet_bytes, logmod._write_new)
    old = (_old_parquet_bytes, _old_write_new)
    head = camp.head_seq
    res: dict[str, list[float]] = {"old": [], "new": []}
    try:
        for i in range(20 + 2 * n):
            side = ("old", "new", "new", "old")[i % 4]
            logmod._parquet_bytes, logmod._write_new = old if side == "old" else new  # type: ignore[assignment]
            pend = [Draft(ledger.Changed(**ledger.payload(j)), turn=10 + i % 1000) for j in range(50)]
            if pause:
                time.sleep(pause / 1e3)
            c = time.process_time()
            head = camp.log.append(pend, expect_seq=head).last_seq
            cc = time.process_time() - c
            if i >= 20:
                res[side].append(cc)
    finally:
        logmod._parquet_bytes, logmod._write_new = new  # type: ignore[assignment]
        shutil.rmtree(base, ignore_errors=True)
    return {"files": files, **{k: _summary(v, mean=True) for k, v in res.items()}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.append_steps_ab", description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=["steps", "whole"])
    ap.add_argument("--pause", type=float, default=0.0, help="milliseconds slept before each timed call")
    ap.add_argument("--n", type=int, default=None, help="calls (steps: 1500) or appends (whole: 400) per side")
    ap.add_argument("--files", type=int, default=100, help="whole: batch files in the ledger")
    args = ap.parse_args(argv)
    n = args.n or (1500 if args.what == "steps" else 400)
    got = steps(n, args.pause) if args.what == "steps" else whole(n, args.pause, args.files)
    print(json.dumps({"what": args.what, "pause_ms": args.pause, "n": n, "load": os.getloadavg()[0], **got}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
