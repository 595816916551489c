"""The table benchmark's pure helpers (benchmarks/bench_table.py): the campaign it serves and how a roll's
latencies are read. No browser, no timing."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo root: benchmarks/ is not installed

from benchmarks.bench_table import latencies, summary, table_toml
from benchmarks.run import targets

REPO = Path(__file__).resolve().parents[1]


def test_the_demo_gets_a_sixth_player_and_rolls_seen_at_once() -> None:
    text = (REPO / "campaigns" / "stolen-lands" / "campaign.toml").read_text(encoding="utf-8")
    got = tomllib.loads(table_toml(text))
    assert [v["id"] for v in got["viewers"]] == ["ysolde", "maelis", "kesh", "dorran", "tavi", "wren"]
    assert got["table"] == {"rolls": "at_once"}
    assert got["options"] == tomllib.loads(text)["options"]  # nothing else moved
    with pytest.raises(ValueError, match="no \\[table\\] section"):
        table_toml(table_toml(text))


def test_a_roll_is_read_from_the_click_and_each_page_and_a_page_that_never_saw_it_is_named() -> None:
    assert latencies(5_000.0, {"gm": 5_210.0, "maelis": 5_300.0, "wren": 5_090.0}) == (210.0, 300.0)
    with pytest.raises(ValueError, match="never seen by: kesh"):
        latencies(5_000.0, {"gm": 5_210.0, "kesh": None})
    assert summary([300.0, 100.0, 200.0]) == {"p50": 200.0, "p95": 300.0, "max": 300.0}


def test_the_suites_table_shows_the_tables_rows_the_misses_and_a_failed_part() -> None:
    ms = {"p50": 400.0, "p95": 1100.0, "max": 1100.0}
    roll = {"samples": 2, "gm_ms": ms, "slowest_player_ms": {"p50": 300.0, "p95": 450.0, "max": 450.0},
            "bare_ms": {"p50": 40.0, "p95": 100.0, "max": 100.0}, "rolls": [{"load": 3.5}, {"load": 4.0}]}
    out = targets({"table": {"roll": roll, "month": {"error": "TimeoutError: no Commit"}}})
    gm, player = (next(ln for ln in out.splitlines() if what in ln) for what in ("GM's Table panel", "slowest other"))
    assert "400.0 / 1100.0 ms" in gm and "11.0x" in gm and "| NO " in gm and "3.5-4.0" in gm
    assert "300.0 / 450.0 ms" in player and "| yes " in player
    assert "table month: FAILED" in out and "TimeoutError: no Commit" in out
