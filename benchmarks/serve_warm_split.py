"""The server's CPU of one table page open, split: opened from a page made ahead, opened cold, and the making.

``kingdomlog serve``'s app (``server.build``, its keeper off) runs in this process (uvicorn in a thread); one
chromium context at a time opens one player's table page (``/p/<id>/``) until its "The table" heading is drawn.
Measured with ``time.process_time()`` of this process (the server's threads and this script's small Playwright
client; chromium is other processes), alternated round by round: **warm** (the page's session made ahead, then
opened), **cold** (no session made ahead: marimo's own new session, as before), and **making** (one page made
ahead, until its notebook has run, nobody opening).

    .venv/bin/python -m benchmarks.serve_warm_split [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from benchmarks.bench_notebook import CHROMIUM_ARGS, free_port

REPO = Path(__file__).resolve().parents[1]
CAMPAIGN = REPO / "campaigns" / "stolen-lands"


def main() -> int:
    import uvicorn
    from playwright.sync_api import sync_playwright

    from kingdomlog.app import Campaign
    from kingdomlog.serve_warm import WarmSessions, ran
    from kingdomlog.server import COOKIE, Credentials, build

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "serve-warm-split.json")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="kl-warm-split-"))
    folder = tmp / "stolen-lands"
    shutil.copytree(CAMPAIGN, folder, ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    players = list(Campaign.open(folder).players())
    keys = Credentials.load(folder).issue(["gm", *players, "public"])
    app, _ = build(folder, tick=None, gm_sheet=False, warm=False)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                           ws="websockets-sansio", lifespan="on", timeout_graceful_shutdown=5))
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=lambda: loop.run_until_complete(server.serve()), daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    base = f"http://127.0.0.1:{port}"
    pools: dict[str, WarmSessions] = {}
    for route in app.app.routes:  # type: ignore[attr-defined]
        manager = getattr(getattr(getattr(route.app.app, "app", None), "state", None), "session_manager", None)
        if manager is not None and manager.warm is not None:
            pools[route.app.owner] = manager.warm

    def make(who: str) -> None:
        warm = asyncio.run_coroutine_threadsafe(pools[who].make(), loop).result(120)
        while not ran(warm.session):
            time.sleep(0.02)

    rows: dict[str, list[dict[str, float]]] = {"warm": [], "cold": [], "making": []}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)

        def open_page(who: str) -> float:
            ctx = browser.new_context(viewport={"width": 1200, "height": 900})
            ctx.add_cookies([{"name": COOKIE, "value": keys[who], "url": base}])
            page = ctx.new_page()
            t0 = time.perf_counter()
            page.goto(f"{base}/p/{who}/")
            page.get_by_role("heading", name="The table").wait_for(timeout=180_000)
            wall = time.perf_counter() - t0
            ctx.close()
            return wall

        open_page(players[0])  # the first open of the process (chromium, the frontend files read once)
        for r in range(args.rounds):
            who = players[r % len(players)]
            order = ["making", "warm", "cold"] if r % 2 == 0 else ["cold", "making", "warm"]
            for kind in order:
                if kind == "warm" and not pools[who].kept:
                    make(who)
                cpu0, t0, load = time.process_time(), time.perf_counter(), os.getloadavg()[0]
                if kind == "making":
                    make(who)
                    wall = time.perf_counter() - t0
                else:
                    handed = pools[who].handed
                    if kind == "cold":
                        assert not pools[who].kept
                    wall = open_page(who)
                    assert pools[who].handed == handed + (kind == "warm"), kind
                rows[kind].append({"cpu_s": time.process_time() - cpu0, "wall_s": wall, "load": load})
            print(f"[{time.strftime('%H:%M:%S')}] round {r + 1}/{args.rounds}: "
                  + ", ".join(f"{k} {v[-1]['cpu_s']:.3f} s" for k, v in rows.items()), flush=True)
        browser.close()
    server.should_exit = True
    thread.join(30)
    shutil.rmtree(tmp, ignore_errors=True)
    out: dict[str, Any] = {"rounds": args.rounds, "rows": rows,
                           "median_cpu_s": {k: statistics.median(r["cpu_s"] for r in v) for k, v in rows.items()},
                           "median_wall_s": {k: statistics.median(r["wall_s"] for r in v) for k, v in rows.items()}}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1))
    print(json.dumps({k: out[k] for k in ("median_cpu_s", "median_wall_s")}, indent=1))
    print(f"JSON: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
