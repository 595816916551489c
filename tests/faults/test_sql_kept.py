"""Query results the console keeps (issue 31): served again only for the same text on the same catalog.

A kept result stands for running the same text again on the catalog the console has open. These tests hold
that it is never served for another text, never after the catalog was made again from logs appended to since
(a new head), never for a query whose answer can change between two runs (a clock, a random draw), and that a
caller changing a served result changes no later one.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from kingdomlog.app import Campaign
from kingdomlog.core.turn import Plan
from kingdomlog.projections import sqlworker
from kingdomlog.projections.sql import SafeConsole

COUNT = "SELECT count(*) AS n, max(seq) AS top FROM events"


@pytest.fixture
def farm(tmp_path: Path) -> tuple[Path, Campaign]:
    root = tmp_path / "root"
    camp = Campaign.create(root / "farm", "toy-farm")
    camp.play(Plan.parse({"seed": "a", "steps": {"found": {"choices": {"name": "Dale", "gold": 5}}}}))
    return root, camp


def test_a_kept_result_is_served_for_the_same_text_only(farm: tuple[Path, Campaign]) -> None:
    root, _camp = farm
    with SafeConsole(root) as console:
        first = console.query(COUNT).rows
        assert console.kept_served == 0
        assert console.query(COUNT).rows == first
        assert console.kept_served == 1
        other = console.query(COUNT + " WHERE seq > 1")  # another text: run, not served from the first
        assert console.kept_served == 1
        assert other.rows == [(first[0][0] - 1, first[0][1])]
        spaced = console.query(COUNT.replace("FROM", "FROM "))
        assert console.kept_served == 1 and spaced.rows == first
        described = console.query("DESCRIBE events")
        assert described.columns != console.query(COUNT).columns


def test_a_kept_result_is_never_served_across_a_head_change(farm: tuple[Path, Campaign]) -> None:
    root, camp = farm
    with SafeConsole(root) as console:
        before = console.query(COUNT).rows
        notes = "SELECT count(*) FROM events WHERE type = 'core.note_added'"
        assert console.query(notes).rows == [(0,)]
        camp.note("a new fact after the catalog was made")
        # the open catalog does not change under the console (it never did): the kept result is its answer
        assert console.query(COUNT).rows == before
        served = console.kept_served
        assert served == 1
        assert console.query(notes).rows == [(0,)]
        served += 1
        console.close()  # the next query makes the catalog again, from the log as it is now
        after = console.query(COUNT).rows
        assert console.kept_served == served
        assert after == [(before[0][0] + 1, before[0][1] + 1)]
        assert console.query(COUNT).rows == after
        assert console.query(notes).rows == [(1,)]  # kept of the catalog before: dropped with it
    with SafeConsole(root) as fresh:  # and a new console never sees another's results
        assert fresh.query(COUNT).rows == after
        assert fresh.kept_served == 0


def test_a_query_process_started_again_drops_what_was_kept(farm: tuple[Path, Campaign]) -> None:
    root, camp = farm
    with SafeConsole(root) as console:
        before = console.query(COUNT).rows
        camp.note("appended while the console was open")
        pid = console.pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)  # the process died: the next query starts another over the log as it is now
        while console.pid is not None:
            time.sleep(0.01)
        assert console.query(COUNT).rows == [(before[0][0] + 1, before[0][1] + 1)]


@pytest.mark.parametrize("sql", ["SELECT random() AS r", "SELECT now() AS t, count(*) FROM events",
                                 "SELECT current_timestamp AS t", "SELECT uuid() AS u",
                                 "SELECT * FROM range(3)", "SELECT ago(INTERVAL 1 DAY) AS t",
                                 "EXPLAIN SELECT random()"])
def test_a_result_that_can_change_between_runs_is_never_kept(farm: tuple[Path, Campaign], sql: str) -> None:
    root, _camp = farm
    with SafeConsole(root) as console:
        console.query(sql)
        console.query(sql)
        assert console.kept_served == 0


def test_a_served_result_is_a_copy(farm: tuple[Path, Campaign]) -> None:
    root, _camp = farm
    with SafeConsole(root) as console:
        sql = "SELECT [1, 2] AS xs"
        first = console.query(sql)
        first.rows[0][0].append(3)
        first.rows.append((None,))
        again = console.query(sql)
        assert console.kept_served == 1
        assert again.rows == [([1, 2],)]


def test_which_functions_may_be_kept_comes_from_duckdb() -> None:
    import duckdb

    consistent, named = sqlworker._function_names(duckdb.connect())
    assert {"avg", "count_star", "json_extract", "+", "-"} <= consistent
    assert not {"random", "now", "uuid", "current_timestamp", "ago", "range"} & consistent
    assert {"random", "current_timestamp", "ago"} <= named
