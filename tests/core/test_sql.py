"""The historians' catalog and the safe console (design §9)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from kingdomlog.app import Campaign
from kingdomlog.core.errors import SqlRefusedError
from kingdomlog.projections.sql import SafeConsole


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
        return int(con.con.execute("SELECT current_setting('threads')").fetchone()[0])  # type: ignore[index]

    small = SafeConsole(toy_campaign.folder.parent, threads=8)
    assert small.catalog.threads == 1 and threads(small) == 1  # 5 events: one row group, one thread
    monkeypatch.setattr(sql, "ROW_GROUP", 5)  # now the events table fills a row group
    big = SafeConsole(toy_campaign.folder.parent, threads=8)
    assert big.catalog.threads == (os.cpu_count() or 1)
    assert threads(big) == min(8, os.cpu_count() or 1)
    assert threads(SafeConsole(toy_campaign.folder.parent, threads=1)) == 1  # the caller's cap still holds
