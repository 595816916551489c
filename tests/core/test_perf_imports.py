"""What the command line imports (issue 18): nothing heavy for ``--help``; for a warm ``state`` one ruleset, no pyarrow.

Each check runs ``kingdomlog.cli.main`` in a fresh interpreter and lists the modules it loaded.
Timings are the benchmarks' business (``python -m benchmarks --only cli``); these tests pin the causes.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "campaigns" / "stolen-lands"  # a pf2e-kingmaker campaign
HEAVY = ("pyarrow", "duckdb", "polars", "marimo", "altair", "numpy")


def modules_after(*argv: str) -> tuple[int, str, set[str]]:
    script = ("import io, json, sys, contextlib\nfrom kingdomlog import cli\nout = io.StringIO()\n"
              "with contextlib.redirect_stdout(out):\n    rc = cli.main(sys.argv[1:])\n"
              "print(json.dumps([rc, out.getvalue(), sorted(sys.modules)]))")
    res = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, text=True, cwd=REPO,
                         check=True)
    rc, out, mods = json.loads(res.stdout.strip().splitlines()[-1])
    return rc, out, set(mods)


def test_help_imports_nothing_but_the_parser() -> None:
    rc, out, mods = modules_after("--help")
    assert rc == 0 and "usage: kingdomlog" in out
    assert not {m for m in mods if m.split(".")[0] in (*HEAVY, "pydantic")}, sorted(mods)
    assert not {m for m in mods if m.startswith(("kingdomlog.core", "kingdomlog.store", "kingdomlog.app",
                                                 "kingdomlog.rulesets"))}


def test_warm_state_imports_only_its_ruleset_and_no_pyarrow(tmp_path: Path) -> None:
    camp = tmp_path / "stolen-lands"
    shutil.copytree(DEMO, camp, ignore=shutil.ignore_patterns(".cache"))
    rc, cold_out, cold_mods = modules_after("state", str(camp))  # reads the log, leaves a snapshot at its head
    assert rc == 0 and "pyarrow" in cold_mods
    rc, warm_out, mods = modules_after("state", str(camp))
    assert rc == 0 and warm_out == cold_out
    assert not {m for m in mods if m.split(".")[0] in HEAVY}, sorted(m for m in mods if m.split(".")[0] in HEAVY)
    assert {m.split(".")[2] for m in mods if m.startswith("kingdomlog.rulesets.")} == {"pf2e"}
    # and the same text as a replay that ignores the snapshots
    rc, replay_out, _ = modules_after("state", str(camp), "--no-cache")
    assert rc == 0 and replay_out == warm_out
