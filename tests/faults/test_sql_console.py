"""SQL console: hostile statements are refused or interrupted (issue 8, fault 5).

Every statement below must raise (``SqlRefusedError`` for refused kinds, file access
and time limits; ``InputError`` for functions the locked console does not have),
return no rows, and leave the catalog tables, the log folder and the file system
around it unchanged.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import pytest

from kingdomlog.app import Campaign
from kingdomlog.core.errors import InputError, SqlRefusedError
from kingdomlog.core.turn import Plan
from kingdomlog.projections.sql import SafeConsole


def _tree_hash(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if ".cache" in p.parts:
            continue
        h.update(str(p.relative_to(root)).encode())
        if p.is_file():
            h.update(p.read_bytes())
    return h.hexdigest()


@pytest.fixture(scope="module")
def console(tmp_path_factory: pytest.TempPathFactory) -> tuple[SafeConsole, Path, Path]:
    root = tmp_path_factory.mktemp("root")
    camp = Campaign.create(root / "farm", "toy-farm")
    camp.play(Plan.parse({"seed": "a", "steps": {"found": {"choices": {"name": "Dale", "gold": 5}}}}))
    camp.play(Plan.parse({"seed": "b", "steps": {"harvest": {"choices": {}}, "market": {"choices": {"sell": 1}}}}))
    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret.csv").write_text("a,b\n1,2\n")
    return SafeConsole(root, timeout=0.5), root, outside


def hostile(root: Path, outside: Path) -> list[str]:
    log = root / "farm" / "log"
    first = sorted(log.glob("*.parquet"))[0]
    return [
        f"COPY events TO '{outside}/dump.csv'",
        f"COPY (SELECT 1 AS x) TO '{first}' (FORMAT parquet, USE_TMP_FILE false)",
        f"COPY events FROM '{outside}/secret.csv'",
        f"EXPORT DATABASE '{outside}/db'",
        f"ATTACH '{outside}/evil.duckdb' AS evil",
        "DETACH memory",
        "INSTALL httpfs",
        "LOAD httpfs",
        "FORCE INSTALL 'httpfs'",
        "SET enable_external_access = true",
        "SET allowed_directories = ['/']",
        "RESET lock_configuration",
        "PRAGMA enable_profiling",
        "PRAGMA threads=1",
        "CREATE TABLE loot AS SELECT * FROM events",
        "CREATE MACRO m(x) AS x",
        "INSERT INTO events SELECT * FROM events",
        "UPDATE events SET turn = 0",
        "DELETE FROM events",
        "DROP TABLE events",
        "ALTER TABLE events RENAME TO gone",
        "SELECT 1; DROP TABLE campaigns",
        "CALL pragma_version()",
        "SELECT * FROM read_csv('/etc/passwd')",
        f"SELECT * FROM read_csv_auto('{outside}/secret.csv')",
        "SELECT * FROM read_text('/etc/hostname')",
        "SELECT * FROM read_blob('/etc/passwd')",
        "SELECT * FROM read_json_auto('/etc/passwd')",
        "SELECT * FROM glob('/etc/*')",
        f"SELECT * FROM glob('{log}/*')",
        f"SELECT * FROM '{outside}/secret.csv'",
        f"SELECT * FROM read_parquet('{log}/*.parquet')",
        f"SELECT * FROM parquet_metadata('{first}')",
        f"SELECT * FROM parquet_kv_metadata('{first}')",
        "SELECT getenv('HOME')",
        "SELECT * FROM sniff_csv('/etc/passwd')",
    ]


def test_hostile_statements_are_refused(console: tuple[SafeConsole, Path, Path]) -> None:
    con, root, outside = console
    before_log = _tree_hash(root)
    before_outside = _tree_hash(outside)
    before_events = con.query("SELECT count(*), sum(seq), min(hash) FROM events").rows
    stmts = hostile(root, outside)
    assert len(stmts) >= 20
    for sql in stmts:
        with pytest.raises((SqlRefusedError, InputError)) as info:
            con.query(sql)
        msg = str(info.value)
        assert msg and "Traceback" not in msg, sql
        with pytest.raises((SqlRefusedError, InputError)):
            con.relation(sql).fetchall()
    assert con.query("SELECT count(*), sum(seq), min(hash) FROM events").rows == before_events
    assert con.query("SELECT count(*) FROM campaigns").rows == [(1,)]
    assert _tree_hash(root) == before_log
    assert _tree_hash(outside) == before_outside
    assert sorted(p.name for p in outside.iterdir()) == ["secret.csv"]


def test_file_readers_are_refused_as_file_access(console: tuple[SafeConsole, Path, Path]) -> None:
    con, _root, _outside = console
    for sql in ("SELECT * FROM read_csv('/etc/passwd')", "SELECT * FROM read_text('/etc/hostname')"):
        with pytest.raises(SqlRefusedError, match="cannot read or write files"):
            con.query(sql)
    with pytest.raises(SqlRefusedError, match="COPY statements are refused"):
        con.query("COPY events TO '/tmp/x.csv'")


def test_a_very_long_query_is_interrupted(console: tuple[SafeConsole, Path, Path]) -> None:
    con, _root, _outside = console
    t = time.monotonic()
    with pytest.raises(SqlRefusedError, match=r"interrupted after 0\.5 s"):
        con.query("SELECT count(*) FROM range(100000000000) a, range(1000) b WHERE a.range * b.range = -1")
    assert time.monotonic() - t < 10
    assert con.query("SELECT count(*) > 0 FROM events").rows == [(True,)]  # still usable afterwards
    assert con.relation("SELECT count(*) FROM events").fetchall()[0][0] > 0
