"""The historians' catalog and the safe console (design §9)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from kingdomlog.app import Campaign
from kingdomlog.core.errors import SqlRefusedError
from kingdomlog.projections.sql import Catalog, SafeConsole
from kingdomlog.projections.sqlworker import Engine, Refused


@pytest.fixture
def console(toy_campaign: Campaign) -> SafeConsole:
    toy_campaign.note("GM only: the well is poisoned", visibility="gm")
    return SafeConsole(toy_campaign.folder.parent, timeout=2)


def test_tables_and_views(console: SafeConsole) -> None:
    names = {r[0] for r in console.query("select table_name from information_schema.tables").rows}
    assert {"events", "campaigns", "turns", "states", "toy_gold"} <= names
    assert console.query("select count(*) from events").rows == [(6,)]
    assert console.query("select campaign, ruleset, events, last_turn from campaigns").rows == [
        ("farm", "toy-farm", 6, 1)]
    assert console.query("select turn, events, retracted from turns order by first_seq").rows == [
        (0, 1, False), (0, 1, False), (1, 3, False), (1, 1, False)]
    assert console.query("select turn, gold, stash from states order by turn").rows == [(0, 5, 0), (1, 7, 3)]
    assert console.query("select turn, gold from toy_gold order by turn").rows == [(0, 5), (1, 7)]
    payload = console.query("select payload->>'$.crop' from events where type = 'toy.harvested'").rows
    assert payload == [("barley",)]


def test_player_catalog_hides_gm_rows(toy_campaign: Campaign) -> None:
    toy_campaign.note("GM only: the well is poisoned", visibility="gm")
    con = SafeConsole(toy_campaign.folder.parent, viewer="alice")
    text = str(con.query("select * from events").rows) + str(con.query("select * from states").rows)
    assert "poisoned" not in text and "toy.secret_stash" not in text
    assert con.query("select stash from states").rows == [(None,), (None,)]


HOSTILE = [
    "COPY (SELECT * FROM events) TO '/tmp/kl-evil.parquet'",
    "COPY events TO '/tmp/kl-evil.csv'",
    "ATTACH '/tmp/kl-evil.db' AS evil",
    "INSTALL httpfs",
    "LOAD httpfs",
    "CREATE TABLE x AS SELECT 1",
    "INSERT INTO events SELECT * FROM events",
    "SET enable_external_access = true",
    "PRAGMA enable_profiling",
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_text('/etc/hostname')",
    "SELECT * FROM glob('/*')",
    "SELECT * FROM read_parquet('{log}/*.parquet')",
    "DROP TABLE events",
    "SELECT 1; DELETE FROM events",
    "EXPORT DATABASE '/tmp/kl-evil-dir'",
]


@pytest.mark.parametrize("sql", HOSTILE)
def test_hostile_statements_are_refused(console: SafeConsole, toy_campaign: Campaign, sql: str) -> None:
    with pytest.raises(SqlRefusedError) as info:
        console.query(sql.format(log=toy_campaign.folder / "log"))
    assert "read-only" in str(info.value) or "cannot read or write files" in str(info.value)
    assert console.query("select count(*) from events").rows == [(6,)]
    assert not Path("/tmp/kl-evil.parquet").exists() and not Path("/tmp/kl-evil.csv").exists()


def test_long_query_is_interrupted(console: SafeConsole) -> None:
    console.timeout = 0.5
    with pytest.raises(SqlRefusedError, match=r"interrupted after 0\.5 s"):
        console.query("select count(*) from range(100000000000) a")


def test_plain_duckdb_reads_the_files_without_kingdomlog(toy_campaign: Campaign) -> None:
    """The README's example: any Parquet reader can read a campaigns root directly."""
    root = toy_campaign.folder.parent
    rows = duckdb.sql(
        f"select campaign, type, count(*) from read_parquet('{root}/*/log/*.parquet') group by all order by all"
    ).fetchall()
    assert ("farm", "toy.harvested", 1) in rows


def test_catalog_reports_progress_per_campaign(toy_campaign: Campaign, tmp_path: Path) -> None:
    Campaign.create(toy_campaign.folder.parent / "second", "toy")
    calls: list[tuple[int, int, str]] = []
    SafeConsole(toy_campaign.folder.parent, progress=lambda d, t, n: calls.append((d, t, n)))
    assert calls == [(1, 2, "farm"), (2, 2, "second")]


def test_a_catalog_smaller_than_a_row_group_queries_on_one_thread(toy_campaign: Campaign,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from kingdomlog.projections import sql

    def threads(con: SafeConsole) -> int:
        return int(con.query("SELECT current_setting('threads')").rows[0][0])

    small = SafeConsole(toy_campaign.folder.parent, threads=8)
    assert small.threads == 1 and threads(small) == 1  # 5 events: one row group, one thread
    monkeypatch.setattr(sql, "ROW_GROUP", 5)  # now the events table fills a row group
    big = SafeConsole(toy_campaign.folder.parent, threads=8)
    assert big.threads == threads(big) == min(8, os.cpu_count() or 1)
    assert threads(SafeConsole(toy_campaign.folder.parent, threads=1)) == 1  # the caller's cap still holds


def _engine(root: Path) -> Engine:
    """The console's engine over the catalog of ``root``, in this process (where a test can watch its threads)."""
    return Engine(Catalog(root).con, memory_limit="1GB", threads=1)


def _watch_threads() -> list[object]:
    import threading

    return [t for t in threading.enumerate() if t.name == "kingdomlog-sql-time-limit"]


def test_the_time_limit_holds_query_after_query_and_does_not_reach_the_next(toy_campaign: Campaign) -> None:
    """One thread keeps the limit for every query of an engine (not a timer thread per query)."""
    engine = _engine(toy_campaign.folder.parent)
    for _ in range(2):
        with pytest.raises(Refused, match=r"interrupted after 0\.4 s"):
            engine.rows("select count(*) from range(100000000000) a", 0.4)
        # a fast query right after an interrupted one answers: the interrupt was for that query only
        assert engine.rows("select count(*) from events", 0.4)[1] == [(5,)]
    for _ in range(200):  # many fast queries, then a slow one: still stopped on time
        engine.rows("select count(*) from events", 0.4)
    assert len([t for t in _watch_threads() if t.is_alive()]) >= 1  # type: ignore[attr-defined]
    with pytest.raises(Refused, match="interrupted"):
        engine.rows("select count(*) from range(100000000000) a", 0.4)


def test_the_console_keeps_its_time_limit_query_after_query(console: SafeConsole) -> None:
    console.timeout = 0.4
    pid = console.pid
    for _ in range(2):
        with pytest.raises(SqlRefusedError, match=r"interrupted after 0\.4 s"):
            console.query("select count(*) from range(100000000000) a")
        assert console.query("select count(*) from events").rows == [(6,)]
    assert console.pid == pid  # DuckDB stopped at its interrupt: the process goes on


def test_the_time_limit_thread_ends_when_idle_and_with_its_engine(toy_campaign: Campaign,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import gc
    import time
    import weakref

    from kingdomlog.projections import sqlworker

    monkeypatch.setattr(sqlworker, "WATCHDOG_IDLE", 0.2)
    before = set(map(id, _watch_threads()))
    engine = _engine(toy_campaign.folder.parent)
    engine.rows("select 1", 0.4)
    mine = [t for t in _watch_threads() if id(t) not in before]
    assert len(mine) == 1
    mine[0].join(3)  # type: ignore[attr-defined]
    assert not mine[0].is_alive()  # type: ignore[attr-defined]
    with pytest.raises(Refused, match="interrupted"):  # started again for the next query
        engine.rows("select count(*) from range(100000000000) a", 0.4)
    again = [t for t in _watch_threads() if id(t) not in before and t is not mine[0]]
    assert len(again) == 1
    con_ref = weakref.ref(engine.con)
    del engine
    gc.collect()
    deadline = time.monotonic() + 3
    while (again[0].is_alive() or con_ref() is not None) and time.monotonic() < deadline:  # type: ignore[attr-defined]
        gc.collect()
        time.sleep(0.05)
    assert not again[0].is_alive() and con_ref() is None  # type: ignore[attr-defined]


def test_the_query_process_ends_with_its_console(toy_campaign: Campaign) -> None:
    import gc
    import os
    import time

    def gone(pid: int) -> bool:
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
            time.sleep(0.02)
        return False

    with SafeConsole(toy_campaign.folder.parent) as console:
        pid = console.pid
        assert pid is not None and console.query("select 1").rows == [(1,)]
    assert console.pid is None and gone(pid)
    assert console.query("select 2").rows == [(2,)]  # a later query starts a new one
    pid = console.pid
    assert pid is not None
    del console
    gc.collect()
    assert gone(pid)


def test_a_query_process_that_does_not_answer_in_time_is_ended_and_the_next_query_starts_another(
        console: SafeConsole) -> None:
    """A query process that neither answers nor stops (here: stopped by SIGSTOP) is ended ``GRACE`` seconds past
    the time limit; one that ended under a query is said so; the next query starts a new one over the catalog."""
    import os
    import signal
    import threading
    import time

    from kingdomlog.projections.sql import GRACE

    console.timeout = 0.3
    pid = console.pid
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)
    start = time.monotonic()
    got: list[BaseException] = []

    def ask() -> None:
        try:
            console.query("select count(*) from events")
        except BaseException as exc:
            got.append(exc)

    waiting = threading.Thread(target=ask, daemon=True)  # were the process never ended, the test still ends
    waiting.start()
    waiting.join(0.3 + GRACE + 3)
    assert not waiting.is_alive(), "the console still waits for a process that does not answer"
    assert 0.3 + GRACE <= time.monotonic() - start < 0.3 + GRACE + 1
    assert isinstance(got[0], SqlRefusedError) and str(got[0]) == "query interrupted after 0.3 s (time limit)"
    assert console.pid is None
    assert console.query("select count(*) from events").rows == [(6,)]
    pid = console.pid
    assert pid is not None
    console.timeout = 5
    threading.Timer(0.3, os.kill, (pid, signal.SIGKILL)).start()  # as the kernel's OOM killer would
    with pytest.raises(SqlRefusedError, match=r"^the query ended the console's query process \(killed by signal 9\)"):
        console.query("select count(*) from range(100000000000) a")
    assert console.query("select count(*) from events").rows == [(6,)]
    assert console.pid not in (None, pid)


def test_a_query_text_is_parsed_and_checked_once(toy_campaign: Campaign, monkeypatch: pytest.MonkeyPatch) -> None:
    from kingdomlog.projections import sqlworker

    engine = _engine(toy_campaign.folder.parent)
    parsed: list[str] = []
    real = engine._statements
    monkeypatch.setattr(engine, "_statements", lambda text: parsed.append(text) or real(text))
    for _ in range(5):
        assert engine.rows("select count(*) from events", 2)[1] == [(5,)]
        assert engine.arrow("select count(*) AS n from events", 2).to_pylist() == [{"n": 5}]
    assert parsed == ["select count(*) from events", "select count(*) AS n from events"]
    for _ in range(2):  # a refused text is refused every time, never kept
        with pytest.raises(Refused, match="read-only"):
            engine.rows("DROP TABLE events", 2)
    assert parsed.count("DROP TABLE events") == 2
    monkeypatch.setattr(sqlworker, "CHECKED_STATEMENTS", 3)
    for i in range(10):
        engine.rows(f"select {i}", 2)
    assert len(engine._checked) == 3 and list(engine._checked) == ["select 7", "select 8", "select 9"]
    # several statements in one text still run as DuckDB runs them (the last one's result)
    assert engine.rows("select 1; select 2", 2)[1] == [(2,)]


def test_a_figure_outside_bigint_is_null_in_states_and_nothing_else_breaks(toy_campaign: Campaign,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28, item 8: a logged amount of 10**30 made every query over the root an internal error (OverflowError
    building ``states``). The figure is NULL in its column, ``state_json`` and the event keep it, the rest stands;
    both when the campaign is folded in full and when the catalog extends a kept projection."""
    import toyrules

    from kingdomlog.core.events import Draft

    root = toy_campaign.folder.parent
    before = Catalog(root).con.execute("select turn, gold, food, stash from states order by turn").fetchall()
    assert before == [(0, 5, 0, 0), (1, 7, 4, 3)]  # kept: the next open extends this projection with the new event
    with monkeypatch.context() as m:  # an older version wrote it: new events refuse integers past 2**53 - 1
        m.setattr("kingdomlog.core.events.MAX_PAYLOAD_INT", 10**40)
        toy_campaign.append_raw([Draft(toyrules.Sold(food=0, gold=10**30), turn=1)])
    for fresh in (False, True):
        if fresh:
            import shutil

            shutil.rmtree(toy_campaign.folder / ".cache", ignore_errors=True)
            shutil.rmtree(root / ".cache", ignore_errors=True)
        console = SafeConsole(root, timeout=2)
        assert console.query("select turn, gold, food, stash from states order by turn").rows == [
            (0, 5, 0, 0), (1, None, 4, 3)]
        assert console.query("select state_json->>'$.gold' from states where turn = 1").rows == [(str(10**30 + 7),)]
        assert console.query("select payload->>'$.gold' from events where type = 'toy.sold' order by seq desc"
                             " limit 1").rows == [(str(10**30),)]
        assert console.query("select count(*) from events").rows == [(6,)]
