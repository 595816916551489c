"""The benchmark's table of targets shows every row, the misses too, each with its load (issue 31).

The figures are made up: this checks the harness's report, not a timing.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo root: benchmarks/ is not installed

from benchmarks.run import curves, targets


def _run(seconds: float) -> dict[str, Any]:
    return {"seconds": seconds, "mem_mb": 10.0}


def results() -> dict[str, Any]:
    runs = {k: _run(v) for k, v in {"ours_first": 1.1, "ours_cold": 0.4, "eventsourcing": 2.0, "floor_files": 0.35,
                                     "floor_segment": 0.1, "ours_warm": 0.01, "floor_warm": 0.005}.items()}
    replay = {"sizes": {"100000": {"events": 100_000, "files": 2_001, "load": 1.5, "runs": runs,
                                   "cold_vs_es": 5.0, "first_vs_es": 1.8}}}
    append = {"files": {"1": {"ours_ms": 4.0, "ours_p95_ms": 5.0, "ours_cpu_ms": 1.2, "floor_ms": 2.0,
                              "eventsourcing_ms": 3.0, "ratio_to_es": 4 / 3, "ratio_to_floor": 2.0, "load": 2.5}},
              "flat": 1.0, "flat_ok": True}
    sizes = {}
    for n, ratio in (("10", 1.2), ("1000", 40.0)):
        sizes[n] = {"open": _run(0.5), "floor": _run(1.0), "open_vs_floor": 0.5, "first_open": _run(3.0),
                    "after_one_turn": {"seconds": 0.4, "folded": ["k1"], "changed": "k1"},
                    "query_ours_ms": 0.05, "query_peer_ms": 0.06, "query_ratio": ratio, "query_run_ms": 1.1,
                    "query_run_ratio": 0.5, "load": 3.25}
    return {"replay": replay, "append": append, "historian": {"sizes": sizes}}


def test_every_target_row_is_shown_with_its_verdict_and_load() -> None:
    table = targets(results())
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
            for line in table.splitlines()[2:]}
    first = rows["first read with no .cache/, 100,000 events in 2,001 files"]
    assert first[2:] == ["1.80x", ">= 3x", "NO", "1.5"]
    assert rows["cold replay with .cache/, 100,000 events in 2,001 files"][2:] == ["5.00x", ">= 5x", "yes", "1.5"]
    assert rows["append CPU per 50-event batch, 1 files"][3:] == ["<= 0.8 ms", "NO", "2.5"]
    assert rows["durable 50-event append, 1 files"][2:] == ["1.33x", "<= 1.5x", "yes", "2.5"]
    assert rows["query mean unrest by turn, 10 campaigns (result kept per catalog head)"][2:] == \
        ["1.2x", ">= 1x", "yes", "3.25"]
    assert rows["query mean unrest by turn, 1,000 campaigns (result kept per catalog head)"][3:5] == [">= 30x", "yes"]
    assert "the same, every query run by DuckDB, 10 campaigns" in rows
    assert rows["catalog open, 1,000 campaigns, nothing changed"][3:] == ["<= 1 s", "yes", "3.25"]
    assert "first read (no .cache/)" in curves(results())


def test_a_benchmark_that_failed_is_a_row_too() -> None:
    table = targets({"append": {"error": "OSError: disk full", "trace": ""}})
    assert "append: FAILED" in table and "NO" in table


def test_the_serve_rows_are_shown_with_their_verdicts_and_load() -> None:
    row = {"wall_s": 0.5, "cpu_per_open_s": 0.05, "runs": []}
    serve = {"opens": 8, "load_start": 2.5, "load_end": 3.0,
             "rows": {"report one, new head": {**row, "wall_s": 0.2}, "report 8 at once, new head": row,
                      "table one": {**row, "wall_s": 3.0, "cpu_per_open_s": 1.1},
                      "table 8 at once": {**row, "wall_s": 20.0, "cpu_per_open_s": 1.0}}}
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
            for line in targets({"serve": serve}).splitlines()[2:]}
    assert rows["serve: 8 report pages at once (new head) vs one alone"][3:] == ["<= 2x", "NO", "2.5-3.0"]
    assert rows["serve: server CPU per report open (new head, 8 at once)"][3:5] == ["<= 0.3 s", "yes"]
    assert rows["serve: 8 table pages (marimo) at once vs one alone, first visits"][3:5] == ["<= 2x", "NO"]
