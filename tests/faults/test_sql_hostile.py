"""A hostile-SQL corpus against the read-only console: 0 writes, 0 reads outside (issue 19, item 3).

``EXPLAIN ANALYZE`` ran the statement it explained (a ``COPY … TO '.tmp/x.csv'`` wrote a file;
DELETE, CREATE OR REPLACE VIEW and DROP TABLE ran), because the console decided by the first
word's statement type; and DuckDB's temp directory (``.tmp`` under the working directory) stayed
readable and writable with external access disabled. The corpus below (well over 100 statements:
the EXPLAIN family in many spellings, every DuckDB statement type, file-reading table functions,
replacement scans, multi-statement strings, comment and whitespace tricks) is run through every
entry point of the console, from a working directory holding a planted ``.tmp/`` and files, with
the campaigns root and a folder of planted secrets outside it watched by inotify: no statement
may return rows, no file may be created or changed anywhere watched, no watched file may even be
opened, and the planted secrets never appear in any message.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import os
import struct
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from kingdomlog.app import Campaign
from kingdomlog.core.errors import InputError, SqlRefusedError
from kingdomlog.core.turn import Plan
from kingdomlog.projections.sql import SafeConsole

SECRET = "PLANTED-SECRET-4417"

IN_ACCESS, IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE, IN_OPEN = 0x1, 0x2, 0x4, 0x8, 0x20
IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x80, 0x100, 0x200
WATCH = IN_ACCESS | IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_OPEN | IN_MOVED_TO | IN_CREATE | IN_DELETE


class Watcher:
    """inotify on a set of folders (Linux): every open, read, write, create or delete under them."""

    def __init__(self, folders: list[Path]) -> None:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        self.fd = libc.inotify_init1(os.O_NONBLOCK)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        self.names: dict[int, Path] = {}
        for f in folders:
            wd = libc.inotify_add_watch(self.fd, str(f).encode(), WATCH)
            if wd < 0:
                raise OSError(ctypes.get_errno(), f"inotify_add_watch {f}")
            self.names[wd] = f

    def events(self) -> list[str]:
        out = []
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return out
            i = 0
            while i < len(data):
                wd, mask, _cookie, length = struct.unpack_from("iIII", data, i)
                name = data[i + 16:i + 16 + length].rstrip(b"\0").decode(errors="replace")
                out.append(f"{self.names.get(wd)}/{name} mask={mask:#x}")
                i += 16 + length

    def close(self) -> None:
        os.close(self.fd)


def tree(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        h.update(str(p.relative_to(root)).encode())
        if p.is_file():
            h.update(p.read_bytes())
    return h.hexdigest()


@dataclass
class World:
    console: SafeConsole
    root: Path
    log: Path
    outside: Path
    cwd: Path


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    root = tmp_path_factory.mktemp("root")
    camp = Campaign.create(root / "farm", "toy-farm", viewers=["alice"])
    camp.play(Plan.parse({"seed": "a", "steps": {"found": {"choices": {"name": "Dale", "gold": 5}}}}))
    camp.play(Plan.parse({"seed": "b", "steps": {"harvest": {"choices": {}}, "market": {"choices": {"sell": 1}}}}))
    outside = tmp_path_factory.mktemp("outside")
    for name in ("secret.csv", "secret.txt", "secret.json"):
        (outside / name).write_text(f"a,b\n{SECRET},2\n")
    cwd = tmp_path_factory.mktemp("cwd")
    (cwd / ".tmp").mkdir()
    (cwd / ".tmp" / "secret.txt").write_text(SECRET)
    (cwd / "x.csv").write_text(f"a\n{SECRET}\n")
    old = Path.cwd()
    os.chdir(cwd)
    try:
        console = SafeConsole(root, timeout=2.0)
        yield World(console, root, camp.folder / "log", outside, cwd)
    finally:
        os.chdir(old)


EXPLAIN_SPELLINGS = [
    "EXPLAIN ANALYZE {q}", "EXPLAIN ANALYSE {q}", "explain analyze {q}", "Explain Analyze {q}",
    "EXPLAIN (ANALYZE) {q}", "EXPLAIN (ANALYZE true) {q}", "EXPLAIN (ANALYZE, FORMAT json) {q}",
    "EXPLAIN (FORMAT json, ANALYZE) {q}", "EXPLAIN/**/ANALYZE {q}", "EXPLAIN\n\tANALYZE\n{q}",
    "EXPLAIN -- note\nANALYZE {q}", "  EXPLAIN   ANALYZE   {q}  ;", "EXPLAIN (ANALYZE)\n{q}",
]


def corpus(w: World) -> list[str]:
    first = sorted(w.log.glob("*.parquet"))[0]
    o = w.outside
    writes = [
        "DELETE FROM events", "DROP TABLE events", "CREATE OR REPLACE VIEW turns AS SELECT 1 AS x",
        "COPY (SELECT 1) TO '.tmp/x.csv'", f"COPY events TO '{o}/dump.csv'", "INSERT INTO events SELECT * FROM events",
        "UPDATE events SET turn = 0", f"COPY (SELECT 1 AS x) TO '{first}' (FORMAT parquet, USE_TMP_FILE false)",
        "CREATE TABLE loot AS SELECT * FROM events",
    ]
    reads = [f"SELECT * FROM read_text('{o}/secret.txt')", "SELECT * FROM read_text('.tmp/secret.txt')"]
    stmts: list[str] = []
    # the EXPLAIN family: every spelling of ANALYZE around writes and reads, plain EXPLAIN of non-SELECTs
    for spelling in EXPLAIN_SPELLINGS:
        for q in (writes[0], writes[3], reads[1]):
            stmts.append(spelling.format(q=q))
    for q in writes + reads:
        stmts.append(f"EXPLAIN ANALYZE {q}")
    stmts += [f"EXPLAIN {q}" for q in writes] + ["EXPLAIN SELECT 1; DELETE FROM events", "EXPLAIN (FORMAT json)"
                                                 f" COPY events TO '{o}/x.json'", "EXPLAIN EXPLAIN ANALYZE SELECT 1",
                                                 "EXPLAIN PRAGMA enable_profiling"]
    # every statement type DuckDB has
    stmts += [
        *writes,
        "INSERT INTO campaigns VALUES ('x', 'x', 'x', 'x', 'x', 0, 0, 0)", "UPDATE states SET turn = 1",
        "CREATE TABLE t (a INT)", "CREATE TEMP TABLE t AS SELECT 1", "CREATE VIEW v AS SELECT 1",
        "CREATE MACRO m(x) AS x",
        "CREATE FUNCTION f(x) AS x + 1", "CREATE SEQUENCE s", "CREATE TYPE mood AS ENUM ('a')", "CREATE SCHEMA evil",
        "CREATE INDEX i ON events (seq)", "CREATE SECRET (TYPE s3, KEY_ID 'k', SECRET 's')",
        "TRUNCATE events", "DELETE FROM states WHERE true", "PREPARE p AS SELECT 1", "EXECUTE p", "DEALLOCATE p",
        "ALTER TABLE events RENAME TO gone", "ALTER TABLE events ADD COLUMN x INT", "COMMENT ON TABLE events IS 'x'",
        "BEGIN", "BEGIN TRANSACTION", "COMMIT", "ROLLBACK", "ABORT",
        f"COPY events FROM '{o}/secret.csv'", f"COPY events TO '{o}/x.parquet' (FORMAT parquet)",
        "COPY events TO '.tmp/y.csv'", "COPY (FROM events) TO 'z.csv'", f"COPY FROM DATABASE memory TO '{o}/db'",
        "ANALYZE", "ANALYZE events", "VACUUM", "VACUUM ANALYZE events", "CHECKPOINT", "FORCE CHECKPOINT",
        "SET VARIABLE v = 1", "SET enable_external_access = true", "SET temp_directory = '.tmp'",
        "SET allowed_directories = ['/']", "SET memory_limit = '100GB'", "SET threads = 64", "RESET threads",
        "RESET lock_configuration", "USE memory", "PRAGMA enable_profiling", "PRAGMA threads=1",
        "PRAGMA memory_limit='100GB'", "CALL pragma_version()", "CALL range(3)",
        f"EXPORT DATABASE '{o}/db'", f"IMPORT DATABASE '{o}'", f"ATTACH '{o}/evil.duckdb' AS evil",
        f"ATTACH '{first}' AS evil", "DETACH memory", "INSTALL httpfs", "FORCE INSTALL 'httpfs'", "LOAD httpfs",
        "LOAD 'httpfs'", "UPDATE EXTENSIONS", "DROP VIEW turns", "DROP MACRO m", "DROP SCHEMA main CASCADE",
        "MERGE INTO events USING events AS e ON events.seq = e.seq WHEN MATCHED THEN DELETE",
        "PIVOT events ON type USING count(*)",
    ]
    # file-reading table functions, on the planted files, the cwd's .tmp and the log itself
    for fn in ("read_csv", "read_csv_auto", "read_json", "read_json_auto", "read_json_objects", "read_ndjson",
               "read_ndjson_objects", "read_text", "read_blob", "sniff_csv", "glob"):
        stmts.append(f"SELECT * FROM {fn}('{o}/secret.csv')")
    stmts += [
        "SELECT * FROM read_text('.tmp/secret.txt')", f"SELECT * FROM read_text('{w.cwd}/.tmp/secret.txt')",
        "SELECT * FROM glob('.tmp/*')", "SELECT * FROM glob('*')", "SELECT * FROM read_blob('x.csv')",
        f"SELECT * FROM read_parquet('{w.log}/*.parquet')", f"SELECT * FROM parquet_scan('{first}')",
        f"SELECT * FROM parquet_metadata('{first}')", f"SELECT * FROM parquet_schema('{first}')",
        f"SELECT * FROM parquet_kv_metadata('{first}')", f"SELECT * FROM parquet_file_metadata('{first}')",
        "SELECT * FROM read_csv('/etc/passwd')", "SELECT * FROM glob('/etc/*')", "SELECT getenv('HOME')",
        f"SELECT count(*) FROM (SELECT * FROM read_text('{o}/secret.txt'))",
        f"WITH t AS (SELECT * FROM read_csv('{o}/secret.csv')) SELECT * FROM t",
        f"SELECT * FROM events WHERE payload IN (SELECT content FROM read_text('{o}/secret.txt'))",
        f"SELECT * FROM query_table('{o}/secret.csv')", "SELECT * FROM query('DELETE FROM events')",
    ]
    # replacement scans
    stmts += [
        "FROM 'x.csv'", "SELECT * FROM 'x.csv'", "FROM '.tmp/secret.txt'", f"FROM '{o}/secret.csv'",
        f"SELECT * FROM '{o}/secret.json'", f"SELECT * FROM '{w.log}/*.parquet'", f"FROM '{first}'",
        f'SELECT * FROM "{o}/secret.csv"', f"SELECT a FROM '{o}/secret.csv' LIMIT 1",
        f"SELECT * FROM events e JOIN '{o}/secret.csv' s ON true",
    ]
    # multi-statement strings, comments and whitespace
    stmts += [
        "SELECT 1; DROP TABLE campaigns", "SELECT 1;COPY (SELECT 1) TO '.tmp/m.csv'",
        "SELECT 1; EXPLAIN ANALYZE DELETE FROM events", ";;DELETE FROM events", "SELECT 1 /* ; */; DELETE FROM events",
        "SELECT ';'; DELETE FROM events", "/* hello */ DELETE FROM events", "-- comment\nDELETE FROM events",
        "\n\t  DROP TABLE events", "SeLeCt 1; dElEtE FROM events", "SELECT 1\n;\nATTACH ':memory:' AS m",
        "EXPLAIN SELECT 1; EXPLAIN ANALYZE SELECT 1",
    ]
    return list(dict.fromkeys(stmts))  # each statement once


def test_the_hostile_corpus_writes_nothing_and_reads_nothing_outside(world: World) -> None:
    con = world.console
    stmts = corpus(world)
    assert len(stmts) >= 100 and len(set(stmts)) == len(stmts), len(stmts)
    before = {d: tree(d) for d in (world.root, world.outside, world.cwd)}
    catalog = con.query("SELECT count(*), sum(seq), min(hash) FROM events").rows + \
        con.query("SELECT count(*) FROM states").rows + con.query("SELECT count(*) FROM turns").rows
    watched = [world.outside, world.cwd, world.cwd / ".tmp", world.root, world.root / "farm", world.log]
    watcher = Watcher(watched)
    refused: dict[str, int] = {}
    try:
        for sql in stmts:
            for entry in (con.query, con.arrow, lambda q: con.relation(q).fetchall(), con.run):
                with pytest.raises((SqlRefusedError, InputError)) as info:
                    entry(sql)
                msg = str(info.value)
                assert msg and "Traceback" not in msg and SECRET not in msg, (sql, msg)
            refused[type(info.value).__name__] = refused.get(type(info.value).__name__, 0) + 1
        time.sleep(0.05)
        seen = watcher.events()
    finally:
        watcher.close()
    assert seen == [], seen[:10]  # nothing under the watched folders was opened, read, written or created
    assert {d: tree(d) for d in before} == before
    assert con.query("SELECT count(*), sum(seq), min(hash) FROM events").rows + \
        con.query("SELECT count(*) FROM states").rows + con.query("SELECT count(*) FROM turns").rows == catalog
    assert sorted(p.name for p in world.outside.iterdir()) == ["secret.csv", "secret.json", "secret.txt"]
    assert sorted(p.name for p in (world.cwd / ".tmp").iterdir()) == ["secret.txt"]
    assert refused.get("SqlRefusedError", 0) > 100, refused


def test_the_watcher_does_see_reads_and_writes(world: World, tmp_path: Path) -> None:
    """The 0 above is not the watcher's blindness: a plain DuckDB connection is seen reading and writing."""
    import duckdb

    watcher = Watcher([world.outside])
    try:
        plain = duckdb.connect(":memory:")
        plain.execute(f"SELECT * FROM read_text('{world.outside}/secret.txt')").fetchall()
        plain.execute(f"COPY (SELECT 1) TO '{world.outside}/written.csv'")
        time.sleep(0.05)
        seen = watcher.events()
    finally:
        watcher.close()
        (world.outside / "written.csv").unlink(missing_ok=True)
    assert any("secret.txt" in e for e in seen) and any("written.csv" in e for e in seen), seen


def test_explain_of_a_select_and_ordinary_queries_still_work(world: World) -> None:
    con = world.console
    for sql in ("EXPLAIN SELECT count(*) FROM events", "EXPLAIN (FORMAT json) SELECT * FROM states",
                "DESCRIBE events", "SUMMARIZE states", "SHOW TABLES", "FROM events LIMIT 1", "VALUES (1), (2)",
                "WITH t AS (SELECT 1 AS x) SELECT * FROM t", "SELECT 'analyze' AS word",
                "SELECT * FROM events WHERE type = 'explain analyze'", "SELECT 1; SELECT 2"):
        assert con.query(sql).columns, sql


def test_the_console_has_its_own_memory_limit_threads_and_no_directory(world: World) -> None:
    con = world.console
    settings = dict(con.query("SELECT name, value FROM duckdb_settings() WHERE name IN ('memory_limit', 'threads',"
                              " 'temp_directory', 'enable_external_access', 'lock_configuration')").rows)
    assert settings["temp_directory"] == "" and settings["enable_external_access"] == "false"
    assert settings["lock_configuration"] == "true" and int(settings["threads"]) <= 2
    assert settings["memory_limit"] in ("953.6 MiB", "1.0 GiB", "1000.0 MB"), settings
    with pytest.raises(SqlRefusedError, match=r"more memory than the console's limit|interrupted"):
        con.query("SELECT list(repeat('x', 1000)) FROM range(5000000)")
    assert not [p for p in world.cwd.rglob("*") if p.name not in ("secret.txt", ".tmp", "x.csv")]


def test_formatting_a_huge_result_stays_inside_the_time_limit(world: World, tmp_path: Path) -> None:
    fast = SafeConsole(world.root, timeout=0.5)
    for fmt in ("table", "csv", "json"):
        t = time.monotonic()
        with pytest.raises(SqlRefusedError, match=r"time limit|interrupted"):
            fast.run("SELECT range AS n, repeat('x', 40) AS pad FROM range(3000000)", fmt)
        assert time.monotonic() - t < 8, fmt
    assert fast.run("SELECT 1 AS one", "csv") == "one\r\n1\r\n"


def test_the_history_notebook_s_sql_goes_through_the_console(world: World) -> None:
    import importlib.util
    import re
    from types import SimpleNamespace

    path = Path(__file__).resolve().parents[2] / "notebooks" / "history.py"
    source = path.read_text(encoding="utf-8")
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("#"))
    assert not re.search(r"mo\.sql\(|\.con\b|engine=", code)  # no cell reaches the connection itself
    spec = importlib.util.spec_from_file_location("kl_history_nb", path)
    assert spec is not None and spec.loader is not None
    nb = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(nb)
    before = tree(world.cwd), tree(world.outside)
    for sql in ("EXPLAIN ANALYZE DELETE FROM events", "EXPLAIN (ANALYZE) COPY (SELECT 1) TO '.tmp/nb.csv'",
                "SELECT * FROM read_text('.tmp/secret.txt')", f"FROM '{world.outside}/secret.csv'",
                "SELECT 1; DROP TABLE events"):
        outputs, defs = nb.app.run(defs={"root": world.root, "free_sql": SimpleNamespace(value=sql)})
        shown = "".join(str(getattr(o, "text", "")) for o in outputs if o is not None)
        assert "Refused or failed" in shown and SECRET not in shown, sql
        assert defs["console"].query("SELECT count(*) FROM events").rows[0][0] > 0
    assert (tree(world.cwd), tree(world.outside)) == before
