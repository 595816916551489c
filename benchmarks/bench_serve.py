"""`kingdomlog serve` under simultaneous opens: N browser contexts (Debian's chromium, Playwright) on loopback.

A turn announced in a thread: every player opens their page at the same moment. Measured on a COPY of
`campaigns/stolen-lands` (5 seated players), the server started as `python -m kingdomlog serve` in its own
process, each context holding its own credential's cookie:

- **report**: the players' reports and the public view (`/p/<id>/report/`, `/public/`), the read-only pages;
  each round a public note is committed first, so every open of the round is the first after a new head
  (nothing kept from before: the worst case of a turn announced), then the same opens again (kept);
- **table**: the players' table pages (`/p/<id>/`), marimo apps;
- **gm**: the GM sheet (`/gm/`), one open, marimo (the bench_notebook figure, served by `serve`);
- **bare**: the yardstick of the table pages: the bare marimo app of bench_notebook (one dropdown, one cell),
  served by `marimo run` in its own process, opened the same way (one alone, then N at once, fresh contexts);
- **blank**: the yardstick of the reports: a 1 KB HTML page served by a thread of this process, the same way
  (what N chromium contexts opening at once cost on this machine, with next to nothing to draw).

Each figure: one page alone (the page opened, all its sections drawn), then N at once (until all N are drawn),
interleaved by round; and the server process's CPU (user + system, from `/proc/PID/stat`) over the opens,
per page open. "Drawn": a report's heading and its log-head line (its last section); a table page's "The table"
heading; the GM sheet's filled page (`.kl-page[data-plan]`); the bare app's cell (`.kl-bare`); the blank page's
paragraph.

    .venv/bin/python -m benchmarks.bench_serve [--opens 8] [--rounds 3] [--code /path/to/other/checkout]

`--code` serves another checkout's kingdomlog (PYTHONPATH), for a before/after on the same harness.
Servers are stopped by their PIDs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.bench_notebook import CHROMIUM_ARGS, DRAWN, Served, free_port, serve_bare

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"
CAMPAIGN = REPO / "campaigns" / "stolen-lands"
CHROMIUM = "/usr/bin/chromium"
WAIT_S = 180.0  # a page not drawn by then counts as not drawn (the row says how many)
AGAIN = "opened before in the same browsers"
"""The same contexts open the page a second time: their caches hold marimo's frontend files (as a player's browser
does from the last turn on); the server starts a new session all the same."""
TABLE_WAIT = 8.0
"""Before a table row: the server makes each table page ahead 2 s after the head settled and the page was last
opened (``serve_warm.SETTLE``), one page at a time; the code before this waits the same, for nothing."""
AHEAD_WAIT = 5.0  # the server renders the read-only pages ahead 2 s after the head settles (server.WARM_SETTLE)


def cpu_seconds(pid: int) -> float:
    """User + system CPU of process ``pid`` and its waited-for children, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def browser_cpu() -> float:
    """User + system CPU of the chromium processes under this one (the contexts' renderers, the GPU and network
    processes, the browser), in seconds: what drawing the pages cost on the same cores as the server."""
    parent: dict[int, int] = {}
    cpu: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            raw = (d / "stat").read_text()
        except OSError:
            continue
        name, rest = raw.split(" (", 1)[1].rsplit(")", 1)
        fields = rest.split()
        parent[int(d.name)] = int(fields[1])
        if "chrom" in name.lower():
            cpu[int(d.name)] = sum(int(x) for x in fields[11:13]) / tick  # utime stime (live processes)
    me = os.getpid()

    def mine(pid: int) -> bool:
        seen = 0
        while pid > 1 and seen < 64:
            pid, seen = parent.get(pid, 0), seen + 1
            if pid == me:
                return True
        return False

    return sum(c for pid, c in cpu.items() if mine(pid))


async def drawn(page: Any, kind: str) -> None:
    """Until ``page`` (of ``kind``) is drawn: every section of a report, a table page's seats and table."""
    wait = WAIT_S * 1000
    if kind == "report":
        await page.locator(".kl-h1").first.wait_for(timeout=wait)
        await page.locator(".kl-head").first.wait_for(timeout=wait)
    elif kind == "table":  # as tests/notebooks/test_table_browser.py waits for it
        await page.get_by_role("heading", name="Your seats").wait_for(timeout=wait)
        await page.get_by_role("heading", name="The table").wait_for(timeout=wait)
    elif kind == "bare":
        await page.locator(".kl-bare").first.wait_for(timeout=wait)
    elif kind == "blank":
        await page.locator(".kl-blank").first.wait_for(timeout=wait)
    else:
        await page.locator(DRAWN).first.wait_for(timeout=wait)


async def contexts_for(browser: Any, base: str, who: list[tuple[str, str, str]]) -> list[Any]:
    """A new browser context (an empty cache: a first visit) per (owner, key, path), holding its owner's cookie."""
    from kingdomlog.server import COOKIE

    contexts = []
    for _owner, key, _path in who:
        ctx = await browser.new_context(viewport={"width": 1200, "height": 900})
        await ctx.add_cookies([{"name": COOKIE, "value": key, "url": base}])
        contexts.append(ctx)
    return contexts


async def open_all(browser: Any, base: str, who: list[tuple[str, str, str]], kind: str,
                   pid: int, contexts: list[Any] | None = None) -> dict[str, float]:
    """Open every (owner, key, path) in its own context at the same moment; seconds until all are drawn.

    ``contexts``: the browsers to open them in (one per page; a page opened in them before has its files in
    their cache), kept open; else new ones (empty caches), closed after."""
    given = contexts is not None
    contexts = contexts if contexts is not None else await contexts_for(browser, base, who)
    pages = [await c.new_page() for c in contexts]

    trouble: list[str] = []

    async def one(page: Any, path: str) -> float | None:
        seen: list[str] = []  # what went wrong on the way: failed requests, error answers, console errors
        page.on("requestfailed", lambda r: seen.append(f"failed {r.url.removeprefix(base)} {r.failure}"))
        page.on("response", lambda r: seen.append(f"{r.status} {r.url.removeprefix(base)}") if r.status >= 400
                else None)
        page.on("console", lambda m: seen.append(f"console {m.type}: {m.text[:200]}") if m.type == "error" else None)
        try:
            await page.goto(base + path, timeout=WAIT_S * 1000)
            await drawn(page, kind)
        except Exception as exc:  # a page not drawn in time is a row of its own, not the end of the run
            try:
                shown = " ".join((await page.evaluate("() => document.body.innerText")).split())[:300]
            except Exception as why:
                shown = f"(no text: {type(why).__name__})"
            said = f"not drawn in {WAIT_S:.0f} s: {path} ({type(exc).__name__}); shown: {shown!r}; {seen[-12:]}"
            print(said, file=sys.stderr, flush=True)
            trouble.append(said)
            return None
        return time.perf_counter() - t0

    cpu0, browser0 = cpu_seconds(pid), browser_cpu()
    t0 = time.perf_counter()
    got = await asyncio.gather(*(one(p, path) for p, (_o, _k, path) in zip(pages, who, strict=True)))
    wall = time.perf_counter() - t0
    cpu, browser = cpu_seconds(pid) - cpu0, browser_cpu() - browser0
    for c, pg in zip(contexts, pages, strict=True):
        await (pg.close() if given else c.close())
    each = [x for x in got if x is not None] or [wall]
    return {"wall_s": wall, "slowest_s": max(each), "first_s": min(each), "cpu_s": cpu,
            "cpu_per_open_s": cpu / len(who), "browser_cpu_per_open_s": browser / len(who),
            "load": os.getloadavg()[0], "not_drawn": sum(x is None for x in got), "trouble": trouble}


def wait_port(port: int, timeout: float = 120) -> None:
    """Until the server accepts connections ("Serving on" is printed before it binds)."""
    import socket

    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def kept_html(base: str, key: str, path: str) -> bool:
    """Whether the served report is the kept HTML page (whole in one GET) rather than a marimo app."""
    import urllib.request

    from kingdomlog.server import COOKIE

    req = urllib.request.Request(base + path, headers={"cookie": f"{COOKIE}={key}"})
    with urllib.request.urlopen(req, timeout=300) as resp:
        return b"kl-head" in resp.read()


async def fetch_all(base: str, who: list[tuple[str, str, str]], pid: int) -> dict[str, float]:
    """The same opens as plain HTTP GETs (no browser): what the server alone takes to answer them all."""
    import urllib.request

    from kingdomlog.server import COOKIE

    def get(key: str, path: str) -> float:
        req = urllib.request.Request(base + path, headers={"cookie": f"{COOKIE}={key}"})
        with urllib.request.urlopen(req, timeout=300) as resp:
            body = resp.read()
        assert resp.status == 200 and b"kl-head" in body, (path, resp.status)
        return time.perf_counter() - t0

    cpu0 = cpu_seconds(pid)
    t0 = time.perf_counter()
    each = await asyncio.gather(*(asyncio.to_thread(get, key, path) for _o, key, path in who))
    wall = time.perf_counter() - t0
    cpu = cpu_seconds(pid) - cpu0
    return {"wall_s": wall, "slowest_s": max(each), "first_s": min(each), "cpu_s": cpu,
            "cpu_per_open_s": cpu / len(who)}


def commit_note(folder: Path, python: str, env: dict[str, str], i: int) -> None:
    """A public note in its own process (the served code's), so the head moves and nothing kept is current."""
    import subprocess

    root = env["PYTHONPATH"].split(os.pathsep)[0]
    code = (f"import sys; sys.path.insert(0, {root!r}); from kingdomlog.app import Campaign; "
            "Campaign.open(sys.argv[1]).note(sys.argv[2], visibility='public')")
    subprocess.run([python, "-c", code, str(folder), f"Bench note {i}: the rider from Tatzlford is here."],
                   env=env, check=True, capture_output=True)


BLANK = (b"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>blank</title></head><body>"
         b"<h1>A blank page</h1><p class='kl-blank'>" + b"Nothing to draw here. " * 40 + b"</p></body></html>")


def serve_blank() -> tuple[Any, str]:
    """The blank page, served by a thread of this process on loopback: (server, its URL)."""
    import http.server
    import threading

    class Blank(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(BLANK)))
            self.end_headers()
            self.wfile.write(BLANK)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Blank)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def med(rows: list[dict[str, float]], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def demo_copy(prefix: str) -> tuple[Path, Path, list[str], dict[str, str]]:
    """A copy of the demo (``CAMPAIGN``, without its cache, plans and notebooks) in a new temporary folder named
    ``prefix...``: (that folder, the campaign's folder, its seated players, a credential for the GM, each player
    and the public)."""
    from kingdomlog.app import Campaign
    from kingdomlog.server import Credentials

    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    folder = tmp / "stolen-lands"
    shutil.copytree(CAMPAIGN, folder, ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    players = list(Campaign.open(folder).players())
    return tmp, folder, players, Credentials.load(folder).issue(["gm", *players, "public"])


def kingdomlog_cli(root: Path) -> list[str]:
    """``kingdomlog`` as a command that runs ``root``'s checkout (first on the path, whatever is installed)."""
    return [sys.executable, "-c", f"import runpy, sys; sys.path.insert(0, {str(root)!r}); sys.argv[0] = 'kingdomlog';"
            " runpy.run_module('kingdomlog', run_name='__main__')"]


async def run(opens: int, rounds: int, code: Path | None, kinds: list[str]) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    tmp, folder, players, keys = demo_copy("kl-serve-bench-")
    env = dict(os.environ)
    root = code or REPO
    rest = [x for x in os.environ.get("PYTHONPATH", "").split(os.pathsep) if x and Path(x).resolve() != REPO]
    env["PYTHONPATH"] = os.pathsep.join([str(root), *rest])  # the served checkout first
    cli = kingdomlog_cli(root)
    srv = Served([*cli, "serve", str(folder), "--port", str(free_port())], r"Serving on (http://\S+?)/?\s", env=env)
    base = srv.url.rstrip("/")
    pid = srv.proc.pid
    viewers = [*players, "public"]
    report = [(v, keys[v], "/public/" if v == "public" else f"/p/{v}/report/") for v in viewers]
    table = [(v, keys[v], f"/p/{v}/") for v in players]


    def spread(pages: list[tuple[str, str, str]], n: int) -> list[tuple[str, str, str]]:
        return [pages[i % len(pages)] for i in range(n)]

    out: dict[str, Any] = {"campaign": "stolen-lands", "players": len(players), "opens": opens, "rounds": rounds,
                           "code": str(code or REPO), "load_start": round(os.getloadavg()[0], 2), "rows": {}}
    rows: dict[str, list[dict[str, float]]] = {}
    bare = serve_bare(tmp) if "bare" in kinds else None
    blank = serve_blank() if "blank" in kinds else None
    try:
        wait_port(int(base.rsplit(":", 1)[1]))
        static = kept_html(base, keys[players[0]], f"/p/{players[0]}/report/")
        out["report_is_kept_html"] = static
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            await open_all(browser, base, report[:1], "report", pid)  # warm: the server's imports, chromium
            for r in range(rounds):
                order = kinds if r % 2 == 0 else kinds[::-1]
                for kind in order:
                    if kind == "report":
                        commit_note(folder, sys.executable, env, 2 * r)
                        rows.setdefault("report one, new head", []).append(
                            await open_all(browser, base, report[r % len(report):][:1], "report", pid))
                        rows.setdefault("report one, kept", []).append(
                            await open_all(browser, base, report[r % len(report):][:1], "report", pid))
                        commit_note(folder, sys.executable, env, 2 * r + 1)
                        rows.setdefault(f"report {opens} at once, new head", []).append(
                            await open_all(browser, base, spread(report, opens), "report", pid))
                        rows.setdefault(f"report {opens} at once, kept", []).append(
                            await open_all(browser, base, spread(report, opens), "report", pid))
                        commit_note(folder, sys.executable, env, 2 * r + 500)
                        await asyncio.sleep(AHEAD_WAIT)  # a turn announced a few seconds after its commit
                        rows.setdefault(f"report {opens} at once, {AHEAD_WAIT:.0f} s after a commit", []).append(
                            await open_all(browser, base, spread(report, opens), "report", pid))
                        if static:  # the kept HTML pages: answered whole by one GET
                            commit_note(folder, sys.executable, env, 2 * r + 1000)
                            rows.setdefault("report one, new head, HTTP", []).append(
                                await fetch_all(base, report[r % len(report):][:1], pid))
                            commit_note(folder, sys.executable, env, 2 * r + 1001)
                            rows.setdefault(f"report {opens} at once, new head, HTTP", []).append(
                                await fetch_all(base, spread(report, opens), pid))
                            rows.setdefault(f"report {opens} at once, kept, HTTP", []).append(
                                await fetch_all(base, spread(report, opens), pid))
                            rows.setdefault("report one, kept, HTTP", []).append(
                                await fetch_all(base, report[r % len(report):][:1], pid))
                    elif kind == "table":  # first visits (empty caches), then the same browsers again
                        await asyncio.sleep(TABLE_WAIT)  # pages are made ahead once the head settled
                        alone = await contexts_for(browser, base, table[r % len(table):][:1])
                        rows.setdefault("table one", []).append(
                            await open_all(browser, base, table[r % len(table):][:1], "table", pid, alone))
                        rows.setdefault(f"table one, {AGAIN}", []).append(
                            await open_all(browser, base, table[r % len(table):][:1], "table", pid, alone))
                        many = await contexts_for(browser, base, spread(table, opens))
                        await asyncio.sleep(TABLE_WAIT)  # a turn announced a few seconds after the last open
                        rows.setdefault(f"table {opens} at once", []).append(
                            await open_all(browser, base, spread(table, opens), "table", pid, many))
                        rows.setdefault(f"table {opens} at once, {AGAIN}", []).append(
                            await open_all(browser, base, spread(table, opens), "table", pid, many))
                        for c in alone + many:
                            await c.close()
                    elif kind == "gm":
                        rows.setdefault("gm sheet one", []).append(
                            await open_all(browser, base, [("gm", keys["gm"], "/gm/")], "gm", pid))
                    elif kind == "bare" and bare is not None:  # the URL carries its token (a cookie after it)
                        bare_base, bare_path = bare.url.split("/?", 1)
                        who_bare = [("bare", "", "/?" + bare_path)]
                        if r == 0:
                            await open_all(browser, bare_base, who_bare, "bare", bare.proc.pid)  # warm
                        alone = await contexts_for(browser, bare_base, who_bare)
                        rows.setdefault("bare one", []).append(
                            await open_all(browser, bare_base, who_bare, "bare", bare.proc.pid, alone))
                        rows.setdefault(f"bare one, {AGAIN}", []).append(
                            await open_all(browser, bare_base, who_bare, "bare", bare.proc.pid, alone))
                        many = await contexts_for(browser, bare_base, who_bare * opens)
                        rows.setdefault(f"bare {opens} at once", []).append(
                            await open_all(browser, bare_base, who_bare * opens, "bare", bare.proc.pid, many))
                        rows.setdefault(f"bare {opens} at once, {AGAIN}", []).append(
                            await open_all(browser, bare_base, who_bare * opens, "bare", bare.proc.pid, many))
                        for c in alone + many:
                            await c.close()
                    elif kind == "blank" and blank is not None:
                        who_blank = [("blank", "", "/")]
                        me = os.getpid()
                        rows.setdefault("blank one", []).append(
                            await open_all(browser, blank[1], who_blank, "blank", me))
                        rows.setdefault(f"blank {opens} at once", []).append(
                            await open_all(browser, blank[1], who_blank * opens, "blank", me))
                print(f"[{time.strftime('%H:%M:%S')}] round {r + 1}/{rounds} done", file=sys.stderr, flush=True)
            await browser.close()
    finally:
        srv.stop()
        if bare is not None:
            bare.stop()
        if blank is not None:
            blank[0].shutdown()
        shutil.rmtree(tmp, ignore_errors=True)
    out["load_end"] = round(os.getloadavg()[0], 2)
    for name, rs in rows.items():
        out["rows"][name] = {"wall_s": med(rs, "wall_s"), "cpu_per_open_s": med(rs, "cpu_per_open_s"), "runs": rs,
                             "not_drawn": sum(int(r.get("not_drawn", 0)) for r in rs)}
        if all("browser_cpu_per_open_s" in r for r in rs):
            out["rows"][name]["browser_cpu_per_open_s"] = med(rs, "browser_cpu_per_open_s")
    return out


def _pairs(n: int) -> list[tuple[str, str, str, int, bool, str]]:
    """Each "N at once vs one alone" verdict: (figure, row of one alone, row of N at once, decimals, judged against
    the 2x target, what its detail rows are: ``detail``'s kind and tag)."""
    out: list[tuple[str, str, str, int, bool, str]] = []
    for head in ("new head", "kept", f"{AHEAD_WAIT:.0f} s after a commit"):
        alone = "kept" if "after" in head else head  # one page alone, rendered ahead, is the kept one
        out.append((f"{n} report pages at once ({head}) vs one alone", f"report one, {alone}",
                    f"report {n} at once, {head}", 2, True, f"report|{head}"))
    for head in ("new head", "kept"):
        out.append((f"  the same as plain HTTP GETs ({head}): the server alone", f"report one, {head}, HTTP",
                    f"report {n} at once, {head}, HTTP", 3, True, ""))
    for again in ("", f", {AGAIN}"):
        out.append((f"{n} table pages (marimo) at once vs one alone{again or ', first visits'}", f"table one{again}",
                    f"table {n} at once{again}", 2, True, f"table|{again}"))
    for kind, what in (("bare", "the bare marimo app (yardstick of the table pages)"),
                       ("blank", "a blank 1 KB page (yardstick of the reports: chromium alone)")):
        for again in ("", f", {AGAIN}") if kind == "bare" else ("",):
            out.append((f"  {n} of {what} at once vs one alone{again}", f"{kind} one{again}",
                        f"{kind} {n} at once{again}", 2, False, f"{kind}|{again}"))
    return out


def _details(detail: str, n: int, one: dict[str, Any], many: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """The rows under a verdict of ``_pairs``: the server's (and chromium's) CPU per open."""
    kind, _, tag = detail.partition("|")
    if kind == "report":
        return [(f"  server CPU per report open ({tag}, {n} at once)", f"{many['cpu_per_open_s']:.3f} s",
                 "<= 0.3 s", "yes" if many["cpu_per_open_s"] <= 0.3 else "NO")]
    if kind == "table":
        out = [(f"  server CPU per table page open ({n} at once / alone{tag})",
                f"{many['cpu_per_open_s']:.3f} / {one['cpu_per_open_s']:.3f} s", "<= 0.3 s",
                "yes" if many["cpu_per_open_s"] <= 0.3 else "NO")]
        if "browser_cpu_per_open_s" in many:
            out.append((f"  chromium CPU per table page open ({n} at once / alone{tag})",
                        f"{many['browser_cpu_per_open_s']:.2f} / {one['browser_cpu_per_open_s']:.2f} s", "", ""))
        return out
    if kind == "bare":
        return [(f"  server / chromium CPU per bare app open ({n} at once{tag})",
                 f"{many['cpu_per_open_s']:.3f} / {many.get('browser_cpu_per_open_s', 0):.2f} s", "", "")]
    return []


def verdicts(res: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(figure, measured, target, met) for the targets of issue 31; pages not drawn in time are said as a miss."""
    rows = res["rows"]
    missing = {name: r["not_drawn"] for name, r in rows.items() if r.get("not_drawn")}
    n = res["opens"]
    out = []
    for figure, one_row, many_row, digits, judged, detail in _pairs(n):
        one, many = rows.get(one_row), rows.get(many_row)
        if not (one and many):
            continue
        ratio = many["wall_s"] / one["wall_s"]
        out.append((figure, f"{many['wall_s']:.{digits}f} vs {one['wall_s']:.{digits}f} s: {ratio:.2f}x",
                    "<= 2x" if judged else "", ("yes" if ratio <= 2 else "NO") if judged else ""))
        out += _details(detail, n, one, many)
    for name, n_missing in missing.items():
        out.append((f"  {name}: pages not drawn in {WAIT_S:.0f} s", str(n_missing), "0", "NO"))
    gm = rows.get("gm sheet one")
    if gm:
        out.append(("GM sheet open through serve", f"{gm['wall_s']:.2f} s; CPU {gm['cpu_per_open_s']:.3f} s", "", ""))
    return out


def bench_serve(opens: int = 8, rounds: int = 3, code: Path | None = None,
                kinds: list[str] | None = None) -> dict[str, Any]:
    """The entry for `python -m benchmarks` (skipped without chromium)."""
    if not Path(CHROMIUM).exists():
        return {"skipped": f"no {CHROMIUM}"}
    return asyncio.run(run(opens, rounds, code, kinds or ["report", "table", "gm"]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--opens", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--code", type=Path, default=None, help="serve this checkout's kingdomlog (before/after)")
    ap.add_argument("--kind", action="append", choices=["report", "table", "gm", "bare", "blank"])
    ap.add_argument("--out", type=Path, default=RESULTS / "serve.json")
    args = ap.parse_args()
    res = bench_serve(args.opens, args.rounds, args.code, args.kind)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(res, indent=1))
    if "skipped" in res:
        print(res["skipped"])
        return 0
    print(f"serve, {res['opens']} opens at once, {res['rounds']} rounds, load {res['load_start']}-{res['load_end']}"
          f" ({res['code']})")
    for name, r in res["rows"].items():
        browser = f"{r['browser_cpu_per_open_s']:.2f} s" if "browser_cpu_per_open_s" in r else "-"
        print(f"| {name:<32} | {r['wall_s']:7.2f} s | CPU per open {r['cpu_per_open_s']:.3f} s |"
              f" chromium CPU per open {browser} | not drawn {r.get('not_drawn', 0)} |")
    for what, got, target, ok in verdicts(res):
        print(f"| {what:<52} | {got:<28} | {target:<8} | {ok:<3} |")
    print(f"JSON: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
