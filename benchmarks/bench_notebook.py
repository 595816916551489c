"""Recompute latency of the GM turn sheet in a real browser (p50/p95 over 20 changes).

Serves a COPY of a campaign with ``kingdomlog gm`` on a free localhost port, opens
it in Debian's chromium (Playwright), then changes a choice of the first phase 20
times (toggling between two values) and times each change until a LATER phase's
result on the page shows the new preview. Also times the same recompute in
process (plan + preview + rendering, no browser) to separate server work from
transport and drawing.

    .venv/bin/python benchmarks/bench_notebook.py            # the demo if present, else the toy campaign
    .venv/bin/python benchmarks/bench_notebook.py --campaign toy --changes 20

Prints one JSON object. The server is stopped by its PID at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "campaigns" / "stolen-lands"
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                 "--disable-dev-shm-usage"]


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    s = sorted(values)
    k = max(0, min(len(s) - 1, round(q / 100 * len(s) + 0.5) - 1))
    return s[k]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def make_campaign(kind: str, tmp: Path) -> tuple[Path, dict[str, str]]:
    """A campaign copy and the environment for the server (the toy ruleset lives in tests/)."""
    env = dict(os.environ)
    if kind == "demo":
        folder = tmp / "stolen-lands"
        shutil.copytree(DEMO, folder, ignore=shutil.ignore_patterns(".cache"))
        return folder, env
    site = tmp / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("import toyrules  # noqa: F401\n")
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(REPO / "tests")])
    sys.path.insert(0, str(REPO / "tests"))
    import toyrules

    from kingdomlog.app import Campaign
    from kingdomlog.core.turn import Plan

    folder = tmp / "farm"
    camp = Campaign.create(folder, "toy-farm", name="Farm")
    for plan in toyrules.TOY.sample_plans()[:2]:
        camp.play(Plan.parse(plan))
    return folder, env


SCENARIOS: dict[str, dict[str, Any]] = {
    # first-phase control, two values to toggle, the later step whose result must change
    "toy": {"later": "market", "kind": "select", "values": ["barley", "wheat"]},
    "demo": {"later": "commerce.taxes", "kind": "textarea", "label": "did NOT spend a downtime week",
             "values": ['{"ruler": "vacancy_penalty"}', "{}"]},
}


def in_process(folder: Path, kind: str, n: int) -> list[float]:
    """Seconds per recompute without the browser: plan from values, preview, every step's HTML."""
    from kingdomlog.views import sheet

    start = sheet.load_start(folder, seed="bench")
    values = sheet.phase_forms(start).value
    first = start.phases[0].id
    sc = SCENARIOS[kind]
    name = "crop" if kind == "toy" else "downtime"
    out = []
    for i in range(n):
        v = {k: dict(x) for k, x in values.items()}
        v[first][name] = sc["values"][i % 2]
        t = time.perf_counter()
        draft = sheet.draft_turn(start, v, {})
        before = start.state
        for sp in draft.preview.steps if draft.preview else []:
            sheet.step_result_html(start, sp, before)
            before = sp.state_after or before
        out.append(time.perf_counter() - t)
    return out


def run(kind: str, n: int) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="kl-bench-") as tmpdir:
        folder, env = make_campaign(kind, Path(tmpdir))
        port = free_port()
        proc = subprocess.Popen([sys.executable, "-m", "kingdomlog", "gm", str(folder), "--headless",
                                 "--port", str(port)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True)
        url: list[str] = []
        ready = threading.Event()

        def pump() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                if "GM turn sheet for" in line and "http://" in line:
                    url.append(line.strip().rsplit(" ", 1)[-1])
                    ready.set()

        threading.Thread(target=pump, daemon=True).start()
        try:
            if not ready.wait(120):
                raise SystemExit("the GM sheet server did not start")
            sc = SCENARIOS[kind]
            sel = f'[data-step="{sc["later"]}"]'
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1400, "height": 1200})
                t0 = time.perf_counter()
                page.goto(url[0])
                page.locator(sel).wait_for(timeout=120_000)
                first_render = time.perf_counter() - t0
                control = (page.locator("select").first if sc["kind"] == "select"
                           else page.get_by_label(re.compile(sc["label"])))
                times = []
                for i in range(n):
                    before = page.locator(sel).inner_text()
                    value = sc["values"][i % 2]
                    t = time.perf_counter()
                    if sc["kind"] == "select":
                        control.select_option(value)
                    else:
                        control.fill(value)
                        control.press("Tab")
                    page.wait_for_function(
                        "([s, b]) => { const e = document.querySelector(s); return e && e.innerText !== b; }",
                        arg=[sel, before], polling="raf", timeout=30_000,
                    )
                    times.append(time.perf_counter() - t)
                browser.close()
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
        local = in_process(folder, kind, n)
    return {
        "campaign": kind,
        "changes": n,
        "first_render_s": round(first_render, 2),
        "browser_ms": {"p50": round(statistics.median(times) * 1000, 1),
                       "p95": round(percentile(times, 95) * 1000, 1),
                       "max": round(max(times) * 1000, 1)},
        "browser_each_ms": [round(t * 1000) for t in times],
        "load_average_1m": round(os.getloadavg()[0], 2),
        "in_process_ms": {"p50": round(statistics.median(local) * 1000, 2),
                          "p95": round(percentile(local, 95) * 1000, 2)},
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--campaign", choices=["demo", "toy"],
                    default="demo" if (DEMO / "campaign.toml").is_file() else "toy")
    ap.add_argument("--changes", type=int, default=20)
    args = ap.parse_args()
    result = run(args.campaign, args.changes)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
