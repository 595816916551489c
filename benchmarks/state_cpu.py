"""``kingdomlog state`` by CPU, this checkout against another, on each demo: ``python -m benchmarks.state_cpu``.

The harness's CLI row (``--only cli``) times whole processes by wall clock, which a shared 2-core machine moves by
tens of percent. This takes the user + system CPU of each child (``os.wait4``) instead, for ``kingdomlog state DIR``
warm (a snapshot at the head, made by the runs before the clock) on a copy of each demo under this checkout's code
and under ``--code DIR``'s (another checkout, e.g. ``git archive main | tar -x -C /tmp/main``), and for the bare
``python -c "import duckdb, pyarrow, pydantic"``; the three sides alternate, the order reversed every other round,
and each side keeps its bytecode under its own ``PYTHONPYCACHEPREFIX``. Wall time is recorded beside it.

    python -m benchmarks.state_cpu --code /tmp/main --rounds 11 --out benchmarks/results/state-cpu.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEMOS = ("stolen-lands", "river-kingdom", "aikakirjat-demo", "felmonte")


def child(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one child process, which must exit 0."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=REPO)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    err = p.stderr.read().decode(errors="replace") if p.stderr else ""
    if p.stderr:
        p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{cmd} failed: {err[-1500:]}")
    return usage.ru_utime + usage.ru_stime, wall


def measure(demo: str, code: Path, data: Path, rounds: int) -> dict[str, Any]:
    """One demo: the medians and every run of the three sides."""
    exe = Path(sys.executable).with_name("kingdomlog")
    kl = [str(exe)] if exe.exists() else [sys.executable, "-m", "kingdomlog"]
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
    sides: dict[str, tuple[list[str], dict[str, str]]] = {}
    for name, root in (("this", REPO), ("other", code)):
        folder = data / name / demo
        if folder.exists():
            shutil.rmtree(folder)
        shutil.copytree(REPO / "campaigns" / demo, folder, ignore=shutil.ignore_patterns(".cache"))
        sides[name] = ([*kl, "state", str(folder)],
                       {**base, "PYTHONPATH": str(root), "PYTHONPYCACHEPREFIX": str(data / f"pycache-{name}")})
    sides["bare"] = ([sys.executable, "-c", "import duckdb, pyarrow, pydantic"],
                     {**base, "PYTHONPYCACHEPREFIX": str(data / "pycache-bare")})
    for cmd, env in sides.values():  # bytecode, and the snapshot at the head
        child(cmd, env)
        child(cmd, env)
    runs: dict[str, dict[str, list[float]]] = {k: {"cpu": [], "wall": []} for k in sides}
    names = list(sides)
    for r in range(rounds):
        for k in names if r % 2 == 0 else names[::-1]:
            cpu, wall = child(*sides[k])
            runs[k]["cpu"].append(round(cpu, 4))
            runs[k]["wall"].append(round(wall, 4))
    med = {k: {m: statistics.median(v) for m, v in r.items()} for k, r in runs.items()}
    return {"medians": med, "runs": runs, "load": os.getloadavg()[0],
            "ratio_cpu": {k: med[k]["cpu"] / med["bare"]["cpu"] for k in ("this", "other")},
            "ratio_wall": {k: med[k]["wall"] / med["bare"]["wall"] for k in ("this", "other")}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.state_cpu", description=__doc__.splitlines()[0])
    ap.add_argument("--code", type=Path, required=True, help="the other checkout (its kingdomlog/ is imported)")
    ap.add_argument("--demo", action="append", choices=DEMOS, help="these demos only (default: all four)")
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--data", type=Path, default=Path("/tmp/kingdomlog-state-cpu"))
    ap.add_argument("--out", type=Path, default=None, help="write every run and median here (JSON)")
    args = ap.parse_args(argv)
    if not (args.code / "kingdomlog" / "cli.py").is_file():
        ap.error(f"--code {args.code}: no kingdomlog/cli.py there")
    doc: dict[str, Any] = {"this": str(REPO), "other": str(args.code.resolve()), "rounds": args.rounds, "demos": {}}
    for demo in args.demo or DEMOS:
        got = measure(demo, args.code.resolve(), args.data, args.rounds)
        doc["demos"][demo] = got
        m = got["medians"]
        print(f"{demo}: state CPU this {1000 * m['this']['cpu']:.1f} ms ({got['ratio_cpu']['this']:.2f}x),"
              f" other {1000 * m['other']['cpu']:.1f} ms ({got['ratio_cpu']['other']:.2f}x),"
              f" bare imports {1000 * m['bare']['cpu']:.1f} ms; wall this {got['ratio_wall']['this']:.2f}x,"
              f" other {got['ratio_wall']['other']:.2f}x; load {got['load']:.2f}", flush=True)
    if args.out is not None:
        args.out.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
