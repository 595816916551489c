"""The SQL console changes nothing, wherever a write sits (issue 28, item 1).

DuckDB 2.0 parses ``WITH x AS (DELETE FROM events RETURNING 1) SELECT 1`` as a SELECT statement, so the
console's check by statement type let it run: ``kingdomlog sql "WITH x AS (DELETE ...) SELECT 1; SELECT count(*)
FROM events"`` printed 0, UPDATE and INSERT did the same, and the change stayed for the rest of a history-notebook
session. Two layers now: the check reads each SELECT's whole parse tree (``_check_tree``), and every query runs in
a read-only transaction that is rolled back, so a write no check foresaw is refused by DuckDB itself. Each form is
tried through every entry point, the CLI and the history notebook's ``run``; after each one, refused or accepted,
the catalog's events, states, turns and campaigns are what they were (count and checksum).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kingdomlog.app import Campaign
from kingdomlog.cli import main
from kingdomlog.core.errors import InputError, SqlRefusedError
from kingdomlog.projections.sql import SafeConsole
from kingdomlog.views import history

WRITES_IN_A_SELECT = [
    "WITH x AS (DELETE FROM events RETURNING 1) SELECT 1; SELECT count(*) FROM events",  # the issue's own
    "WITH x AS (DELETE FROM events RETURNING 1) SELECT 1",
    "WITH x AS (UPDATE events SET seq = 0 RETURNING 1) SELECT count(*) FROM x",
    "WITH x AS (INSERT INTO events SELECT * FROM events RETURNING 1) SELECT 1",
    "WITH x AS (INSERT INTO states SELECT * FROM states RETURNING 1) SELECT 1",
    "WITH x AS (DELETE FROM campaigns RETURNING 1) SELECT 1",
    "WITH x AS (TRUNCATE events) SELECT 1",
    "WITH x AS (COPY events TO 'x.csv') SELECT 1",
    "WITH x AS MATERIALIZED (DELETE FROM states RETURNING 1) SELECT 1",
    "WITH a AS (SELECT 1), x AS (DELETE FROM events WHERE seq > 1 RETURNING seq) SELECT * FROM a",
    "WITH x AS (WITH y AS (DELETE FROM events RETURNING 1) SELECT 1) SELECT * FROM x",
    "with X as (\n  delete /* a comment */ from EVENTS returning *\n) select 1",
    "SELECT 1; WITH x AS (DELETE FROM events RETURNING 1) SELECT 1",
    "EXPLAIN WITH x AS (DELETE FROM events RETURNING 1) SELECT 1",
    "EXPLAIN (FORMAT json) WITH x AS (UPDATE states SET turn = 0 RETURNING 1) SELECT 1",
]
"""Writes DuckDB parses as (or inside) a SELECT: refused by the parse-tree check."""

OTHER_WRITES = [
    "DELETE FROM events", "UPDATE states SET turn = 0", "INSERT INTO events SELECT * FROM events",
    "CREATE TEMP TABLE t AS SELECT 1", "CREATE MACRO m() AS 1", "CREATE MACRO events_m() AS TABLE SELECT 1",
    "PREPARE p AS DELETE FROM events", "EXECUTE p", "PREPARE p AS SELECT 1", "MERGE INTO events USING events AS e"
    " ON events.seq = e.seq WHEN MATCHED THEN DELETE", "COMMIT; DELETE FROM events", "BEGIN; DELETE FROM events",
    "SELECT 1; TRUNCATE events", "SELECT * FROM query('DELETE FROM events RETURNING 1')",
    "PIVOT events ON type USING count(*)",
]
"""Other statements that write, or would let a later one write: refused by type (or not runnable at all)."""

READS = [
    "SELECT count(*) FROM events", "WITH t AS (SELECT * FROM events) SELECT count(*) FROM t",
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) SELECT * FROM t",
    "WITH t AS MATERIALIZED (SELECT seq FROM events) SELECT max(seq) FROM t", "DESCRIBE events", "SUMMARIZE states",
    "SHOW TABLES", "FROM events LIMIT 1", "VALUES (1), (2)", "SELECT 1 UNION ALL SELECT 2 EXCEPT SELECT 2",
    "SELECT * FROM (PIVOT events ON type IN ('toy.sold') USING count(*))", "EXPLAIN SELECT * FROM turns",
    "SELECT 'WITH x AS (DELETE FROM events RETURNING 1) SELECT 1' AS text", "SELECT 1; SELECT 2",
]
"""Reads, some that look like writes: they still run."""

FINGERPRINT = (
    "SELECT (SELECT count(*) FROM events), (SELECT md5(string_agg(campaign || ':' || seq || ':' || hash || ':'"
    " || payload, ',' ORDER BY campaign, seq)) FROM events), (SELECT count(*) FROM states),"
    " (SELECT md5(string_agg(campaign || ':' || turn || ':' || state_json, ',' ORDER BY campaign, turn)) FROM"
    " states), (SELECT count(*) FROM turns), (SELECT md5(string_agg(campaign || name || options, ',' ORDER BY"
    " campaign)) FROM campaigns)"
)


@pytest.fixture
def root(toy_campaign: Campaign) -> Path:
    return toy_campaign.folder.parent


def fingerprint(console: SafeConsole) -> tuple[Any, ...]:
    rows = console.query(FINGERPRINT).rows
    assert rows[0][0] == 5 and rows[0][2] == 2  # the toy campaign: 5 events, 2 turns of states
    return rows[0]


def entries(console: SafeConsole) -> list[Callable[[str], Any]]:
    return [console.query, console.arrow, lambda q: console.relation(q).fetchall(), console.run,
            lambda q: console.run(q, "json"), console.check]


def one_line_refusal(exc: BaseException) -> str:
    msg = str(exc)
    assert msg and "\n" not in msg and "Traceback" not in msg, msg
    return msg


@pytest.mark.parametrize("sql", WRITES_IN_A_SELECT)
def test_a_write_inside_a_select_is_refused_by_every_entry_and_changes_nothing(root: Path, sql: str) -> None:
    console = SafeConsole(root, timeout=2)
    before = fingerprint(console)
    for entry in entries(console):
        with pytest.raises(SqlRefusedError) as info:
            entry(sql)
        assert "read-only" in one_line_refusal(info.value) and "inside a query is refused" in str(info.value), sql
        assert fingerprint(console) == before, sql


def test_other_writes_are_refused_and_reads_run_and_nothing_changes(root: Path) -> None:
    console = SafeConsole(root, timeout=2)
    before = fingerprint(console)
    for sql in OTHER_WRITES:
        for entry in entries(console)[:-1]:  # check() alone passes query('...'): DuckDB refuses it when it binds
            with pytest.raises((SqlRefusedError, InputError)) as info:
                entry(sql)
            one_line_refusal(info.value)
            assert fingerprint(console) == before, sql
    for sql in READS:
        assert console.query(sql).columns, sql
        assert fingerprint(console) == before, sql


def test_a_write_no_check_foresaw_is_refused_by_the_read_only_transaction(root: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The second layer alone, on the engine the console's process runs (here, in this process, to switch the first
    layer off): with the parse-tree check off and DELETE, UPDATE, INSERT and CREATE let through the type check, every
    write fails inside the read-only transaction and nothing changes (a temp table, which DuckDB lets a read-only
    transaction make, goes with its rollback)."""
    from kingdomlog.projections import sqlworker
    from kingdomlog.projections.sql import Catalog

    monkeypatch.setattr(sqlworker.Engine, "_check_tree", lambda self, text: None)
    monkeypatch.setattr(sqlworker, "ALLOWED", {"SELECT", "DELETE", "UPDATE", "INSERT", "CREATE"})
    engine = sqlworker.Engine(Catalog(root).con, memory_limit="1GB", threads=1)

    def mark() -> Any:
        return engine.rows(FINGERPRINT, 2)[1]

    before = mark()
    assert before[0][0] == 5
    for sql in [*WRITES_IN_A_SELECT[:-2], "DELETE FROM events", "UPDATE states SET turn = 0",
                "INSERT INTO events SELECT * FROM events", "CREATE TEMP TABLE t AS SELECT 1", "CREATE MACRO m() AS 1",
                "CREATE TABLE t2 AS SELECT 1"]:
        for entry in (engine.rows, engine.arrow):
            try:
                entry(sql, 2)
            except (sqlworker.Refused, sqlworker.Failed) as exc:
                msg = one_line_refusal(exc)
                # the nested WITH is refused by DuckDB's binder before it could write, the COPY by the closed file
                # access; every other one by the read-only transaction
                assert "read-only" in msg or "must be at the top level" in msg or "cannot read or write files" in msg, \
                    (sql, msg)
            else:  # a temp table may be made inside the transaction: it goes with the rollback
                assert sql.startswith("CREATE TEMP"), sql
            assert mark() == before, sql
    assert engine.rows("SELECT count(*) FROM duckdb_tables() WHERE table_name IN ('t', 't2')", 2)[1] == [(0,)]
    assert engine.rows("SELECT count(*) FROM duckdb_functions() WHERE function_name = 'm'", 2)[1] == [(0,)]


def test_the_cli_refuses_a_write_in_a_with_clause_in_one_line(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for sql in [*WRITES_IN_A_SELECT[:4], "WITH x AS (COPY events TO 'x.csv') SELECT 1"]:
        assert main(["sql", sql, "--root", str(root)]) == 1
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and "read-only" in err and "inside a query is refused" in err, err
    assert main(["sql", "SELECT count(*) AS n FROM events", "--root", str(root), "--format", "csv"]) == 0
    assert capsys.readouterr().out == "n\r\n5\r\n"
    assert not Path("x.csv").exists()


def test_a_history_notebook_session_keeps_its_data(root: Path) -> None:
    """The history notebook runs every cell's SQL through ``history.run`` on one console for the whole session."""
    console = SafeConsole(root, timeout=2)
    before = fingerprint(console)
    shown = history.run(console, "SELECT campaign, turn FROM states ORDER BY 1, 2")
    for sql in WRITES_IN_A_SELECT + OTHER_WRITES:
        table, problem = history.run(console, sql)
        assert table is None and problem and "\n" not in problem, sql
        assert fingerprint(console) == before, sql
        assert history.run(console, "SELECT campaign, turn FROM states ORDER BY 1, 2")[0] == shown[0]
    for ex in history.examples(console):
        table, problem = history.run(console, ex.sql)
        assert problem is None, (ex.key, problem)
    assert fingerprint(console) == before
