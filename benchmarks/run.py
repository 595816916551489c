"""The benchmark suite of issue 8: ``python -m benchmarks [--large] [--quick]``.

Every figure is measured in the same run as its peer and reported as a ratio.
Results: a table on stdout and ``benchmarks/results/latest.json`` (machine included).
Replays run in fresh processes (``benchmarks.worker``) so each reports its own peak
memory. Data sets are built under ``--data`` (default /tmp/kingdomlog-bench) and the
historian archive is reused when it already exists.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import benchmarks.ledger as ledger
from kingdomlog.app import Campaign
from kingdomlog.core.events import Draft
from kingdomlog.store import log as logmod

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


def say(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def machine() -> dict[str, Any]:
    import duckdb
    import pyarrow
    import pydantic

    mem = None
    try:
        import psutil

        mem = round(psutil.virtual_memory().total / 2**30, 1)
    except ImportError:
        pass
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        from importlib.metadata import version

        import eventsourcing  # noqa: F401

        es = version("eventsourcing")
    except ImportError:
        es = None
    return {"cores": os.cpu_count(), "memory_gb": mem, "cpu": cpu, "platform": platform.platform(),
            "python": platform.python_version(), "pyarrow": pyarrow.__version__, "duckdb": duckdb.__version__,
            "pydantic": pydantic.__version__, "eventsourcing": es, "load_avg_at_start": os.getloadavg()}


# ---- data sets ---------------------------------------------------------------------------


def build_ledger(folder: Path, n_events: int, batch: int) -> Campaign:
    """A bench-ledger campaign of ``n_events`` events (seq 1 is the configuration) in batches."""
    if folder.exists():
        shutil.rmtree(folder)
    camp = Campaign.create(folder, "bench-ledger", campaign_id="ledger")
    logmod.SYNC = False
    try:
        i = 0
        head = camp.head_seq
        turn = 0
        while i < n_events - 1:
            k = min(batch, n_events - 1 - i)
            pend = [Draft(ledger.Changed(**ledger.payload(i + j)), turn=turn) for j in range(k)]
            head = camp.log.append(pend, expect_seq=head).last_seq
            i += k
            turn += 1
    finally:
        logmod.SYNC = True
    return camp


def build_es(db: Path, n_events: int, batch: int) -> str:
    from benchmarks.es_ledger import Kingdom, application

    for p in db.parent.glob(db.name + "*"):
        p.unlink()
    app = application(str(db))
    k = Kingdom("ledger")
    for i in range(n_events - 1):
        k.change(**ledger.payload(i))
        if (i + 1) % batch == 0:
            app.save(k)
    app.save(k)
    return str(k.id)


def worker(*args: str) -> dict[str, Any]:
    out = subprocess.run([sys.executable, "-m", "benchmarks.worker", *args], capture_output=True, text=True,
                         cwd=HERE.parent, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"worker {args} failed: {out.stderr[-2000:]}")
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def best(runs: list[dict[str, Any]]) -> dict[str, Any]:
    r = dict(min(runs, key=lambda x: x["seconds"]))
    r["runs_s"] = [round(x["seconds"], 4) for x in runs]
    return r


# ---- benchmarks --------------------------------------------------------------------------


def bench_replay(data: Path, n: int, repeats: int) -> dict[str, Any]:
    say(f"replay: building a {n:,}-event ledger campaign (batches of 50) and the same in eventsourcing/SQLite")
    camp = build_ledger(data / "ledger", n, 50)
    es_id = build_es(data / "es.sqlite", n, 50)
    folder = str(camp.folder)
    shutil.rmtree(camp.folder / ".cache", ignore_errors=True)
    say("replay: ours, first read (every event hash recomputed)")
    first = worker("ours", folder, "cold")
    say("replay: ours, cold replay (log verified before; no snapshot)")
    ours = best([worker("ours", folder, "cold") for _ in range(repeats)])
    say("replay: eventsourcing, repository.get from the SQLite recorder")
    es = best([worker("es", str(data / "es.sqlite"), es_id) for _ in range(repeats)])
    assert ours["figures"] == es["figures"] == first["figures"], (ours, es, first)
    assert ours["events"] == es["events"] == n - 1
    eps = n / ours["seconds"]
    es_eps = n / es["seconds"]
    return {"events": n, "ours": ours, "ours_first_read": first, "eventsourcing": es, "ours_events_per_s": eps,
            "ours_first_read_events_per_s": n / first["seconds"], "eventsourcing_events_per_s": es_eps,
            "ratio": eps / es_eps, "target": ">= 3x", "ok": eps / es_eps >= 3}


def bench_warm(data: Path, repeats: int) -> dict[str, Any]:
    folder = data / "ledger"
    say("latest state: priming the snapshot cache")
    worker("ours", str(folder), "warm")
    warm = best([worker("ours", str(folder), "warm") for _ in range(repeats)])
    cold = best([worker("ours", str(folder), "cold") for _ in range(repeats)])
    assert warm["figures"] == cold["figures"]
    camp = Campaign.open(folder)
    head = camp.head_seq
    camp.log.append([Draft(ledger.Changed(**ledger.payload(j)), turn=10**6) for j in range(50)], expect_seq=head)
    say("latest state: one new turn (50 events) on the warm cache")
    inc = worker("ours", str(folder), "warm")
    snaps = sorted((folder / ".cache" / "snapshots").glob("*.json"))
    after = worker("ours", str(folder), "warm")
    return {"warm": warm, "cold": cold, "ratio": cold["seconds"] / warm["seconds"], "target": ">= 20x",
            "ok": cold["seconds"] / warm["seconds"] >= 20,
            "one_new_turn_s": inc["seconds"], "after_new_turn_warm_s": after["seconds"],
            "snapshot_files": len(snaps), "incremental": inc["events"] == warm["events"] + 50}


def bench_large(data: Path, n: int) -> dict[str, Any]:
    say(f"large: building a {n:,}-event ledger campaign (batches of 1,000)")
    camp = build_ledger(data / "large", n, 1000)
    worker("ours", str(camp.folder), "stream")  # first read verifies every event hash
    say("large: streaming cold replay")
    r = worker("ours", str(camp.folder), "stream")
    return {"events": n, "result": r, "events_per_s": n / r["seconds"], "peak_mb": r["peak_mb"],
            "target": "<= 500 MB", "ok": r["peak_mb"] <= 500}


def bench_append(data: Path, reps: int) -> dict[str, Any]:
    from benchmarks.es_ledger import Kingdom, application

    say(f"append: {reps} durable 50-event batches, ours vs eventsourcing SQLite")
    camp = build_ledger(data / "append", 1, 50)
    assert logmod.SYNC
    ours: list[float] = []
    head = camp.head_seq
    for r in range(reps):
        pend = [Draft(ledger.Changed(**ledger.payload(j)), turn=r) for j in range(50)]
        t = time.perf_counter()
        head = camp.log.append(pend, expect_seq=head).last_seq
        ours.append(time.perf_counter() - t)
    db = data / "append-es.sqlite"
    for p in db.parent.glob(db.name + "*"):
        p.unlink()
    app = application(str(db))
    k = Kingdom("a")
    app.save(k)
    with app.recorder.datastore.transaction(commit=False) as c:  # type: ignore[attr-defined]
        c.execute("PRAGMA synchronous")
        sync = c.fetchone()[0]
        c.execute("PRAGMA journal_mode")
        jmode = c.fetchone()[0]
    es: list[float] = []
    for _r in range(reps):
        for j in range(50):
            k.change(**ledger.payload(j))
        t = time.perf_counter()
        app.save(k)
        es.append(time.perf_counter() - t)
    om, em = statistics.median(ours), statistics.median(es)
    return {"batches": reps, "ours_median_ms": om * 1e3, "ours_p95_ms": pct(ours, 95) * 1e3,
            "eventsourcing_median_ms": em * 1e3, "eventsourcing_p95_ms": pct(es, 95) * 1e3,
            "eventsourcing_sqlite": {"synchronous": sync, "journal_mode": jmode},
            "ratio": em / om, "target": ">= 1x (no slower)", "ok": em / om >= 1}


def pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))]


def build_archive(data: Path, campaigns: int, turns: int) -> Path:
    from benchmarks.generate import generate

    root = data / f"archive-{campaigns}x{turns}"
    done = root / ".complete"
    if done.exists():
        say(f"historian: reusing {root}")
        return root
    if root.exists():
        shutil.rmtree(root)
    say(f"historian: generating {campaigns} pf2e-kingmaker campaigns x {turns} turns (once; reused later)")
    res = generate(root, campaigns, turns, ["pf2e-kingmaker"], seed=8, jobs=max(1, os.cpu_count() or 1),
                   sync=False)
    done.write_text(json.dumps({"events": sum(r["events"] for r in res)}))
    return root


def bench_historian(data: Path, campaigns: int, turns: int, repeats: int) -> dict[str, Any]:
    import duckdb

    from kingdomlog.projections.sql import Catalog

    root = build_archive(data, campaigns, turns)
    say("historian: loading the catalog (fold every campaign; one-off per console)")
    t = time.perf_counter()
    cat = Catalog(root)
    load_s = time.perf_counter() - t
    n_states = cat.con.execute("SELECT count(*) FROM states").fetchone()[0]
    n_events = cat.con.execute("SELECT count(*) FROM events").fetchone()[0]
    q_ours = ("SELECT turn, avg(unrest) AS mean_unrest, count(*) AS n FROM states"
              " WHERE ruleset = 'pf2e-kingmaker' GROUP BY turn ORDER BY turn")
    say("historian: the peer: SQLite with one JSON document per kingdom and turn")
    db = data / "historian.sqlite"
    if db.exists():
        db.unlink()
    sq = sqlite3.connect(db)
    sq.execute("CREATE TABLE kingdoms (campaign TEXT, turn INTEGER, doc TEXT, PRIMARY KEY (campaign, turn))")
    rows = cat.con.execute("SELECT campaign, turn, state_json FROM states").fetchall()
    sq.executemany("INSERT INTO kingdoms VALUES (?, ?, ?)", rows)
    sq.commit()
    q_peer = ("SELECT turn, avg(json_extract(doc, '$.unrest')) AS mean_unrest, count(*) AS n FROM kingdoms"
              " GROUP BY turn ORDER BY turn")
    ours_t, peer_t = [], []
    ours_rows: Any = None
    peer_rows: Any = None
    for _ in range(repeats):
        t = time.perf_counter()
        ours_rows = cat.con.execute(q_ours).fetchall()
        ours_t.append(time.perf_counter() - t)
        t = time.perf_counter()
        peer_rows = sq.execute(q_peer).fetchall()
        peer_t.append(time.perf_counter() - t)
    assert [(a, round(b, 9), c) for a, b, c in ours_rows] == [(a, round(b, 9), c) for a, b, c in peer_rows]
    glob = f"{root}/*/log/*.parquet"
    t = time.perf_counter()
    direct = duckdb.sql(f"SELECT turn, count(*) FROM read_parquet('{glob}') GROUP BY turn ORDER BY turn").fetchall()
    direct_s = time.perf_counter() - t
    om, pm = statistics.median(ours_t), statistics.median(peer_t)
    return {"campaigns": campaigns, "turns": turns, "events": n_events, "state_rows": n_states,
            "doc_bytes_mean": sum(len(r[2]) for r in rows) / max(1, len(rows)),
            "catalog_load_s": load_s, "ours_query_median_s": om, "peer_query_median_s": pm,
            "ratio": pm / om, "target": ">= 10x", "ok": pm / om >= 10, "answer": ours_rows,
            "duckdb_direct_on_parquet_s": direct_s, "direct_rows": len(direct)}


def bench_turn_sheet(data: Path, campaigns: int, turns: int, samples: int) -> dict[str, Any]:
    from benchmarks.generate import TurnStats, plan_turn, random_choices
    from kingdomlog.core.turn import Plan, preview_turn

    root = data / f"archive-{campaigns}x{turns}"
    folder = sorted(p for p in root.iterdir() if p.is_dir())[0]
    camp = Campaign.open(folder)
    rs = camp.ruleset
    state = camp.state()
    turn = camp.next_turn()
    rng = random.Random(3)
    plan, _drafts, _after = plan_turn(rs, state, campaign=camp.id, turn=turn, seed="sheet", rng=rng,
                                      stats=TurnStats(), start_seq=camp.head_seq)
    steps = plan.model_dump(mode="json")["steps"]
    first = next(iter(steps))
    times: list[float] = []
    phases = 0
    for _ in range(samples):
        changed = dict(steps)
        changed[first] = {"choices": random_choices(rs, state, first, rng)}
        p = Plan.parse({"turn": turn, "seed": "sheet", "steps": changed})
        t = time.perf_counter()
        pv = preview_turn(rs, state, p, campaign=camp.id, turn=turn, start_seq=camp.head_seq)
        times.append(time.perf_counter() - t)
        phases = max(phases, len(pv.steps))
    return {"ruleset": rs.id, "campaign": camp.id, "turn": turn, "phases": phases, "samples": samples,
            "p50_ms": pct(times, 50) * 1e3, "p95_ms": pct(times, 95) * 1e3, "max_ms": max(times) * 1e3}


# ---- report ------------------------------------------------------------------------------


def table(res: dict[str, Any]) -> str:
    rows = [("benchmark", "ours", "peer", "ratio", "target", "ok")]
    for key, r in res.items():
        if isinstance(r, dict) and "error" in r:
            rows.append((f"{key}: FAILED", r["error"][:60], "", "", "", "NO"))
    res = {k: v for k, v in res.items() if not (isinstance(v, dict) and "error" in v)}
    if "replay" in res:
        r = res["replay"]
        rows.append((f"replay {r['events']:,} events (events/s; peak RSS)",
                     f"{r['ours_events_per_s']:,.0f}/s; {r['ours']['peak_mb']:.0f} MB",
                     f"{r['eventsourcing_events_per_s']:,.0f}/s; {r['eventsourcing']['peak_mb']:.0f} MB",
                     f"{r['ratio']:.1f}x", r["target"], "yes" if r["ok"] else "NO"))
        rows.append(("  ours, first read (all hashes recomputed)", f"{r['ours_first_read_events_per_s']:,.0f}/s",
                     "", "", "", ""))
    if "large" in res:
        r = res["large"]
        rows.append((f"replay {r['events']:,} events, streaming (peak RSS)",
                     f"{r['events_per_s']:,.0f}/s; {r['peak_mb']:.0f} MB", "", "", r["target"],
                     "yes" if r["ok"] else "NO"))
    if "append" in res:
        r = res["append"]
        rows.append(("append 50-event durable batch (median / p95)",
                     f"{r['ours_median_ms']:.1f} / {r['ours_p95_ms']:.1f} ms",
                     f"{r['eventsourcing_median_ms']:.1f} / {r['eventsourcing_p95_ms']:.1f} ms",
                     f"{r['ratio']:.1f}x", r["target"], "yes" if r["ok"] else "NO"))
    if "warm" in res:
        r = res["warm"]
        rows.append(("latest state: warm cache vs cold replay", f"{r['warm']['seconds'] * 1e3:.0f} ms",
                     f"{r['cold']['seconds'] * 1e3:.0f} ms (cold)", f"{r['ratio']:.1f}x", r["target"],
                     "yes" if r["ok"] else "NO"))
        rows.append(("  one new turn (50 events) on the warm cache", f"{r['one_new_turn_s'] * 1e3:.0f} ms",
                     "", "", "incremental", "yes" if r["incremental"] else "NO"))
    if "historian" in res:
        r = res["historian"]
        rows.append((f"historian mean unrest by turn, {r['campaigns']:,} campaigns",
                     f"{r['ours_query_median_s'] * 1e3:.2f} ms", f"{r['peer_query_median_s'] * 1e3:.2f} ms",
                     f"{r['ratio']:.0f}x", r["target"], "yes" if r["ok"] else "NO"))
        rows.append(("  catalog load (fold all campaigns, once)", f"{r['catalog_load_s']:.1f} s", "", "", "", ""))
    if "turn_sheet" in res:
        r = res["turn_sheet"]
        rows.append((f"turn sheet: changed first choice, {r['phases']} phases (p50 / p95)",
                     f"{r['p50_ms']:.1f} / {r['p95_ms']:.1f} ms", "", "", "", ""))
    widths = [max(len(str(row[i])) for row in rows) for i in range(len(rows[0]))]
    lines = ["| " + " | ".join(str(c).ljust(widths[i]) for i, c in enumerate(row)) + " |" for row in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description="kingdomlog benchmarks (issue 8)")
    ap.add_argument("--data", type=Path, default=Path("/tmp/kingdomlog-bench"))
    ap.add_argument("--large", action="store_true", help="also replay 1,000,000 events (streaming, <= 500 MB)")
    ap.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    ap.add_argument("--only", action="append", help="run only these (replay, warm, append, historian, turn_sheet,"
                                                     " large)")
    ap.add_argument("--out", type=Path, default=RESULTS / "latest.json")
    args = ap.parse_args(argv)
    args.data.mkdir(parents=True, exist_ok=True)
    n = 5_000 if args.quick else 100_000
    camps, turns = (30, 3) if args.quick else (1000, 5)
    reps = 2
    want = set(args.only or ["replay", "warm", "append", "historian", "turn_sheet"] + (["large"] if args.large else []))
    res: dict[str, Any] = {"machine": machine(), "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    t0 = time.perf_counter()
    args.out.parent.mkdir(parents=True, exist_ok=True)

    def step(key: str, fn: Any, *a: Any) -> None:
        try:
            res[key] = fn(*a)
        except Exception as exc:  # one failing benchmark must not lose the others' figures
            import traceback

            res[key] = {"error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc()[-3000:]}
            say(f"{key}: FAILED: {exc}")
        args.out.write_text(json.dumps(res, indent=2, default=str))

    if "replay" in want or "warm" in want:
        step("replay", bench_replay, args.data, n, reps)
    if "warm" in want and "error" not in res.get("replay", {}):
        step("warm", bench_warm, args.data, reps)
    if "append" in want:
        step("append", bench_append, args.data, 15 if args.quick else 40)
    if "historian" in want or "turn_sheet" in want:
        step("historian", bench_historian, args.data, camps, turns, 5)
    if "turn_sheet" in want and "error" not in res.get("historian", {}):
        step("turn_sheet", bench_turn_sheet, args.data, camps, turns, 20 if args.quick else 60)
    if "large" in want:
        step("large", bench_large, args.data, 50_000 if args.quick else 1_000_000)
    res["total_s"] = time.perf_counter() - t0
    print(table(res))
    m = res["machine"]
    print(f"\nmachine: {m['cores']} cores, {m['memory_gb']} GB, {m['cpu']}, load {m['load_avg_at_start']}")
    args.out.write_text(json.dumps(res, indent=2, default=str))
    print(f"saved {args.out}")
    return 0
