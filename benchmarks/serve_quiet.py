"""What a new log head costs `kingdomlog serve` when nobody looks: per-thread CPU of the server around commits.

The server runs as `python -m kingdomlog serve` on a COPY of `campaigns/stolen-lands` (5 seated players), with
`benchmarks/threadnames/` on its path so that each thread's name reaches `/proc/PID/task/TID/comm`. Two scenes:

- **no browser**: the server alone (its 5 table pages made ahead at its start); K public notes committed 12 s apart;
  after each: the server's CPU in the 1.5 s after the commit (before the pages are made again at the new head,
  2 s after it settled) and in the 12 s after it, and how many table-page watcher threads are alive;
- **pages left**: N table pages opened at once in chromium contexts (until drawn) and their contexts closed
  (marimo keeps each session 120 s for a reconnect); 12 s later a note is committed; the server's CPU per thread
  group over the 6 s after it (watchers ``kingdomlog-tabl``, marimo kernels ``Thread-# (launch``, the loop's
  ``asyncio_#`` workers that render the reports ahead, the main thread ``python``).

    .venv/bin/python -m benchmarks.serve_quiet [--code /path/to/checkout] [--commits 4] [--pages 8]

`--code` serves another checkout (a before/after on the same harness). The server is stopped by its PID.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.bench_notebook import CHROMIUM_ARGS, Served, free_port
from benchmarks.bench_serve import (
    CHROMIUM,
    commit_note,
    contexts_for,
    cpu_seconds,
    demo_copy,
    drawn,
    kingdomlog_cli,
    wait_port,
)

REPO = Path(__file__).resolve().parents[1]
NAMES = REPO / "benchmarks" / "threadnames"
WATCHER = "kingdomlog-tab"  # the first 15 bytes of "kingdomlog-table-live"


def threads(pid: int) -> dict[int, tuple[str, float]]:
    """Each thread of ``pid``: (its name, its CPU seconds, user + system)."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for t in Path(f"/proc/{pid}/task").iterdir():
        try:
            name = (t / "comm").read_text().strip()
            f = (t / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[int(t.name)] = (name, (int(f[11]) + int(f[12])) / tick)
    return out


def by_group(before: dict[int, tuple[str, float]], after: dict[int, tuple[str, float]]) -> dict[str, dict[str, float]]:
    """CPU seconds between two ``threads`` readings per group of names (digits as ``#``), and the group's threads
    alive at the second (a thread that ended in between is not counted)."""
    out: dict[str, dict[str, float]] = collections.defaultdict(lambda: {"cpu_s": 0.0, "threads": 0})
    for tid, (name, cpu) in after.items():
        g = out[re.sub(r"\d+", "#", name)]
        g["cpu_s"] += cpu - before.get(tid, (name, 0.0))[1]
        g["threads"] += 1
    return {k: {"cpu_s": round(v["cpu_s"], 3), "threads": int(v["threads"])} for k, v in out.items()}


def start(code: Path) -> tuple[Served, Path, dict[str, str], dict[str, str], list[str], Path]:
    tmp, folder, players, keys = demo_copy("kl-serve-quiet-")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(code), str(NAMES)])
    srv = Served([*kingdomlog_cli(code), "serve", str(folder), "--port", str(free_port())],
                 r"Serving on (http://\S+?)/?\s", env=env)
    wait_port(int(srv.url.rstrip("/").rsplit(":", 1)[1]))
    return srv, folder, env, keys, players, tmp


def no_browser(code: Path, commits: int) -> list[dict[str, Any]]:
    srv, folder, env, _keys, _players, tmp = start(code)
    pid = srv.proc.pid
    rows: list[dict[str, Any]] = []
    try:
        time.sleep(15)  # the table pages made ahead at the start
        rows.append({"commit": 0, "watchers": sum(n.startswith(WATCHER) for n, _ in threads(pid).values())})
        for k in range(commits):
            c0 = cpu_seconds(pid)
            commit_note(folder, sys.executable, env, k)
            time.sleep(1.5)
            c1 = cpu_seconds(pid)
            time.sleep(10.5)
            rows.append({"commit": k + 1, "cpu_1_5s": round(c1 - c0, 3), "cpu_12s": round(cpu_seconds(pid) - c0, 3),
                         "watchers": sum(n.startswith(WATCHER) for n, _ in threads(pid).values()),
                         "load": round(os.getloadavg()[0], 2)})
    finally:
        srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return rows


async def pages_left(code: Path, n: int, window: float = 6.0) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    srv, folder, env, keys, players, tmp = start(code)
    pid = srv.proc.pid
    base = srv.url.rstrip("/")
    try:
        await asyncio.sleep(15)
        who = [(p, keys[p], f"/p/{p}/") for p in players]
        who = [who[i % len(who)] for i in range(n)]
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            ctxs = await contexts_for(browser, base, who)
            pages = [await c.new_page() for c in ctxs]
            await asyncio.gather(*(pg.goto(base + path, timeout=180_000) for pg, (_o, _k, path) in zip(pages, who,
                                                                                                      strict=True)))
            await asyncio.gather(*(drawn(pg, "table") for pg in pages))
            for c in ctxs:
                await c.close()
            await browser.close()
        await asyncio.sleep(12)  # the browsers gone, the pages taken made again
        a, c0, t0 = threads(pid), cpu_seconds(pid), time.perf_counter()
        commit_note(folder, sys.executable, env, 1)
        await asyncio.sleep(max(0.0, window - (time.perf_counter() - t0)))
        b, c1 = threads(pid), cpu_seconds(pid)
        return {"pages": n, "window_s": window, "cpu_s": round(c1 - c0, 3), "groups": by_group(a, b),
                "load": round(os.getloadavg()[0], 2)}
    finally:
        srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--code", type=Path, default=REPO)
    ap.add_argument("--commits", type=int, default=4)
    ap.add_argument("--pages", type=int, default=8)
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "serve-quiet.json")
    args = ap.parse_args()
    code = args.code.resolve()
    res: dict[str, Any] = {"code": str(code), "load_start": round(os.getloadavg()[0], 2)}
    res["no_browser"] = no_browser(code, args.commits)
    if Path(CHROMIUM).exists():
        res["pages_left"] = asyncio.run(pages_left(code, args.pages))
    res["load_end"] = round(os.getloadavg()[0], 2)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(res, indent=1))
    print(f"{code}: load {res['load_start']}-{res['load_end']}")
    for r in res["no_browser"]:
        print("  no browser, after commit", r)
    if "pages_left" in res:
        r = res["pages_left"]
        print(f"  {r['pages']} table pages opened and closed, {r['window_s']} s after a commit: server CPU "
              f"{r['cpu_s']} s, load {r['load']}")
        for g, v in sorted(r["groups"].items(), key=lambda kv: -kv[1]["cpu_s"]):
            if v["cpu_s"] > 0.005:
                print(f"    {g:<20} {v['threads']:>3} threads {v['cpu_s']:6.2f} s")
    print(f"JSON: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
