"""One measurement per process (``python -m benchmarks.worker CMD ...``): prints one JSON object.

Each command imports what it needs first, then measures only its work: ``seconds`` (wall),
``cpu_s`` (this process's user + system time for the work) and ``mem_mb``, the memory the work
itself needed: the process's peak resident set during the work minus its resident set just
before it. The peak is reset right before the work (``/proc/self/clear_refs``), so neither the
imports nor anything inherited from the parent that started this process count (``ru_maxrss``
of a child started by fork and exec includes the parent's resident set at the fork).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _status(key: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])  # kB
    return 0


class Meter:
    """Measures one piece of work: wall time, CPU time and the memory it added."""

    def __enter__(self) -> Meter:
        try:
            Path("/proc/self/clear_refs").write_text("5")  # reset the peak resident set (VmHWM) to now
            self.reset = True
        except OSError:
            self.reset = False
        self.rss0 = _status("VmRSS")
        self.cpu0 = time.process_time()
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self.t0
        self.cpu_s = time.process_time() - self.cpu0
        self.mem_mb = (_status("VmHWM") - self.rss0) / 1024 if self.reset else float("nan")
        self.rss_mb = self.rss0 / 1024

    def doc(self) -> dict[str, Any]:
        return {"seconds": self.seconds, "cpu_s": self.cpu_s, "mem_mb": self.mem_mb, "rss_before_mb": self.rss_mb,
                "peak_reset": self.reset}


def replay_ours(folder: str, mode: str) -> dict[str, Any]:
    import benchmarks.ledger  # noqa: F401  (registers the ruleset)
    from kingdomlog.app import Campaign
    from kingdomlog.store import codec

    codec.schema()  # pyarrow imported now, not inside the timing (a warm read does not need it at all)
    import pyarrow.parquet  # noqa: F401

    if mode == "first":  # a fresh clone: no .cache/ at all (every file checked, every hash recomputed)
        import shutil

        shutil.rmtree(Path(folder) / ".cache", ignore_errors=True)
    with Meter() as m:
        camp = Campaign.open(folder)
        if mode == "stream":
            state = camp.stream_state()
        elif mode == "warm":
            state = camp.state()
        else:
            state = camp.state(use_cache=False)
    return dict(m.doc(), events=state.events, figures=[state.food, state.gold, state.unrest])


def replay_es(db: str, agg_id: str) -> dict[str, Any]:
    from uuid import UUID

    import eventsourcing.application
    import eventsourcing.sqlite  # noqa: F401

    from benchmarks.es_ledger import application

    with Meter() as m:
        app = application(db)
        k = app.repository.get(UUID(agg_id))
    return dict(m.doc(), events=k.events, figures=[k.food, k.gold, k.unrest])


def floor_files(folder: str) -> dict[str, Any]:
    """The floor of the layout itself: read, sha256 and decode every batch file to Arrow, nothing else."""
    import hashlib

    import pyarrow as pa
    import pyarrow.parquet as pq

    with Meter() as m:
        rows = 0
        for p in sorted((Path(folder) / "log").glob("*.parquet")):
            data = p.read_bytes()
            hashlib.sha256(data).hexdigest()
            rows += pq.ParquetFile(pa.BufferReader(data)).read(use_threads=False).num_rows
    return dict(m.doc(), rows=rows)


def floor_segment(folder: str) -> dict[str, Any]:
    """The floor with a compacted segment: stat every batch file, read, sha256 and decode the segment to Arrow."""
    import hashlib

    import pyarrow as pa
    import pyarrow.parquet as pq

    segs = sorted((Path(folder) / ".cache" / "segments").glob("[0-9a-f]*.parquet"))
    with Meter() as m:
        for e in os.scandir(Path(folder) / "log"):
            e.stat()
        rows = 0
        for seg in segs[-1:]:
            data = seg.read_bytes()
            hashlib.sha256(data).hexdigest()
            pf = pq.ParquetFile(pa.BufferReader(data))
            for i in range(pf.num_row_groups):
                rows += pf.read_row_group(i, use_threads=False).num_rows
    return dict(m.doc(), rows=rows, segments=len(segs))


def floor_warm(folder: str) -> dict[str, Any]:
    """The floor of a warm read: stat every batch file and read and parse the newest snapshot's JSON."""
    snaps = sorted((Path(folder) / ".cache" / "snapshots").glob("*.json"), key=lambda p: p.stat().st_mtime)
    with Meter() as m:
        for e in os.scandir(Path(folder) / "log"):
            e.stat()
        doc = json.loads(snaps[-1].read_bytes().partition(b"\n")[2]) if snaps else {}
    return dict(m.doc(), snapshot=bool(doc))


def catalog_open(root: str, limit: str = "0") -> dict[str, Any]:
    """Open the catalog over the first ``limit`` campaigns under ``root`` (0: all)."""
    import duckdb  # noqa: F401
    import pyarrow  # noqa: F401

    from kingdomlog.projections import sql

    folders = sql.find_campaigns(Path(root))
    folders = folders[:int(limit)] if int(limit) else folders
    with Meter() as m:
        cat = sql.Catalog(Path(root), campaigns=folders)
    n = cat.con.execute("SELECT count(*) FROM campaigns").fetchone()
    rows = cat.con.execute("SELECT count(*) FROM states").fetchone()
    return dict(m.doc(), campaigns=n[0] if n else 0, state_rows=rows[0] if rows else 0, folded=cat.folded,
                from_root=cat.from_root, warnings=len(cat.warnings))


def catalog_floor(root: str, limit: str = "0") -> dict[str, Any]:
    """DuckDB reading every batch file of the first ``limit`` campaigns (0: all) into a table, nothing else."""
    import duckdb

    from kingdomlog.projections import sql

    folders = sql.find_campaigns(Path(root))
    folders = folders[:int(limit)] if int(limit) else folders
    globs = [f"{f}/log/*.parquet" for f in folders]
    with Meter() as m:
        con = duckdb.connect(":memory:")
        con.execute("CREATE TABLE events AS SELECT * FROM read_parquet(?)", [globs])
    n = con.execute("SELECT count(*) FROM events").fetchone()
    return dict(m.doc(), events=n[0] if n else 0)


def sqlite_peer(root: str, limit: str, db: str) -> dict[str, Any]:
    """Fill the SQLite-JSON peer of the historian query: one row per campaign and turn, the state as a JSON document,
    from the catalog of the first ``limit`` campaigns (in its own process, so that the timed side's process never
    holds the documents)."""
    import sqlite3

    from kingdomlog.projections import sql

    folders = sql.find_campaigns(Path(root))
    folders = folders[:int(limit)] if int(limit) else folders
    cat = sql.Catalog(Path(root), campaigns=folders)
    rows = cat.con.execute("SELECT campaign, turn, state_json FROM states").fetchall()
    Path(db).unlink(missing_ok=True)
    sq = sqlite3.connect(db)
    sq.execute("CREATE TABLE kingdoms (campaign TEXT, turn INTEGER, doc TEXT, PRIMARY KEY (campaign, turn))")
    sq.executemany("INSERT INTO kingdoms VALUES (?, ?, ?)", rows)
    sq.commit()
    sq.close()
    return {"state_rows": len(rows), "doc_bytes_mean": sum(len(r[2]) for r in rows) / max(1, len(rows))}


COMMANDS: dict[str, Callable[..., dict[str, Any]]] = {
    "ours": replay_ours, "es": replay_es, "floor_files": floor_files, "floor_segment": floor_segment,
    "floor_warm": floor_warm, "catalog": catalog_open, "catalog_floor": catalog_floor,
    "sqlite_peer": sqlite_peer,
}


def main() -> None:
    cmd, *args = sys.argv[1:]
    fn = COMMANDS.get(cmd)
    if fn is None:
        raise SystemExit(f"unknown command {cmd}")
    print(json.dumps(fn(*args)))


if __name__ == "__main__":
    main()
