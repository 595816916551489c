"""``python -m benchmarks --quick`` runs end to end in CI (issue 31: "`--quick` still runs in CI").

The whole harness at its smallest sizes, in a process of its own, as a user runs it: every benchmark (the CLI,
replay with the first read, append, the historian, serve under simultaneous opens and the table's roll in
chromium, the turn sheet) must finish without an error and print its rows. No figure is asserted: the machine's
load decides them; what is held is that the harness works, so a change that breaks it fails here rather than in
the next person's measurement. ``benchmarks.run.failed`` (a run that lost a benchmark exits 1) is checked without
running anything.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo root: benchmarks/ is not installed

from benchmarks.run import failed

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")  # .ci/run installs it (Debian's chromium), as the browser tests need


def test_a_failed_benchmark_or_part_of_one_is_named() -> None:
    ok = {"machine": {"cores": 2}, "cli": {"runs": {}}, "quick": True, "serve": {"skipped": "no chromium"}}
    assert failed(ok) == []
    assert failed({**ok, "append": {"error": "OSError: disk full"}}) == ["append"]
    assert failed({**ok, "table": {"roll": {"samples": 1}, "month": {"error": "TimeoutError"}}}) == ["table month"]


@pytest.mark.slow
@pytest.mark.browser
def test_the_quick_run_finishes_every_benchmark_and_prints_every_table(tmp_path: Path) -> None:
    assert CHROMIUM.exists(), "the serve and table benchmarks need Debian's chromium (.ci/run installs it)"
    out = tmp_path / "quick.json"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    t0 = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--data", str(tmp_path / "data"),
                          "--out", str(out)], cwd=REPO, env=env, capture_output=True, text=True, timeout=600,
                         check=False)
    took = time.perf_counter() - t0
    assert run.returncode == 0, f"exit {run.returncode} after {took:.0f} s:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    res = json.loads(out.read_text())
    assert res["quick"] is True
    for key in ("cli", "replay", "append", "historian", "serve", "turn_sheet", "table", "sheet"):
        assert key in res, f"{key} did not run"
    assert failed(res) == []
    assert "skipped" not in res["serve"], res["serve"]
    assert "--quick" in res["sheet"]["skipped"]  # the GM sheet against the bare app: minutes, the full run's
    assert "roll" in res["table"] and "month" not in res["table"]  # --quick leaves the month to the full run
    for row in ("CLI `kingdomlog state DIR` (warm)", "first read with no .cache/", "cold replay with .cache/",
                "append CPU per 50-event batch", "durable 50-event append", "query mean unrest by turn",
                "a player's Roll to the GM's Table panel", "serve: 2 report pages at once", "turn sheet:",
                "sheet: skipped"):
        assert row in run.stdout, f"no row {row!r} in the printed table"
    for table in ("replay (medians", "append: one durable", "historian catalog and query"):
        assert table in run.stdout, f"no {table!r} table"


def test_quick_and_no_chromium_skip_the_gm_sheet_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """The sheet step (minutes of chromium) is skipped by ``--quick`` and without chromium, said in one row."""
    import benchmarks.bench_notebook as nb
    from benchmarks.run import main

    ran: list[Any] = []
    monkeypatch.setattr(nb, "run_demo", lambda *a: ran.append(a))  # what measuring would call first ...
    monkeypatch.setattr(nb, "demo_copy", lambda *a: ran.append(a))  # ... in either entry
    out = tmp_path / "quick.json"
    assert main(["--quick", "--only", "sheet", "--data", str(tmp_path / "data"), "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    assert ran == [] and res["sheet"] == {"skipped": res["sheet"]["skipped"]} and "--quick" in res["sheet"]["skipped"]
    assert "| sheet: skipped | --quick" in capsys.readouterr().out

    monkeypatch.setattr(nb, "CHROMIUM", str(tmp_path / "no-chromium"))
    assert main(["--only", "sheet", "--data", str(tmp_path / "data"), "--out", str(out)]) == 0
    assert ran == [] and json.loads(out.read_text())["sheet"] == {"skipped": f"no {tmp_path / 'no-chromium'}"}
    assert "| sheet: skipped | no " in capsys.readouterr().out
