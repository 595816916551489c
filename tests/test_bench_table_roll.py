"""The table benchmark's pure helpers (benchmarks/bench_table.py): the campaign it serves and how a roll's
latencies are read. No browser, no timing."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo root: benchmarks/ is not installed

from benchmarks.bench_table import latencies, summary, table_toml

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
