"""The SQL console's engine and the process it runs in (design §9; ``projections.sql.SafeConsole`` drives it).

``Engine`` is the console's DuckDB connection once locked: no directory at all (DuckDB's temporary
directory, ``.tmp`` under the working directory, would stay readable and writable with external
access disabled), external access disabled, no extension installed or loaded, the configuration
locked with the console's memory limit and thread count. It checks every text before it runs:

- by the parsed type of every statement (``extract_statements``): only SELECT (DESCRIBE, SUMMARIZE,
  SHOW, FROM, VALUES, WITH count as SELECT) and EXPLAIN of a single SELECT; EXPLAIN ANALYZE in any
  spelling is refused, since it runs the statement it explains;
- by DuckDB's own parse tree of each SELECT (``json_serialize_sql``): DuckDB 2.0 parses a WITH
  clause holding a DELETE, UPDATE, INSERT, TRUNCATE or COPY TO as a SELECT, so every query node in
  the tree must be one that reads (``READ_NODES``).

Whatever passes runs inside a read-only transaction that is rolled back after it: a write no check
foresaw is refused by DuckDB itself, and nothing a statement makes (a temp table) outlives it.

The engine runs in a process of its own (``main``), which the console starts with the catalog's
tables and view definitions and then sends one query at a time. There the limits hold whatever
DuckDB does: the process's address space is capped (``RLIMIT_AS``) at what it holds once loaded
plus the memory limit and ``HEADROOM``, so an allocation past it fails (DuckDB's own
``memory_limit`` bounds only its buffer-managed memory: ``SELECT list(range(100000000))`` built a
7 GB value under a 256 MB limit), and the console ends the process when a query runs on past its
time limit (``con.interrupt()`` does not reach inside one function call: that query ran 39 s under
a 2 s limit). This module imports no more than DuckDB and Arrow, so the process starts in ~0.15 s.
"""

from __future__ import annotations

import json
import os
import pickle
import sys
import threading
import time
import weakref
from collections import OrderedDict
from typing import Any

import duckdb
import pyarrow as pa

ALLOWED = {"SELECT"}
"""Statement types the console runs (besides EXPLAIN of one SELECT, checked apart)."""
READ_NODES = frozenset({"SELECT_NODE", "SET_OPERATION_NODE", "RECURSIVE_CTE_NODE", "CTE_NODE"})
"""The query nodes (DuckDB's parse, ``json_serialize_sql``) a checked SELECT may hold anywhere in its tree. DuckDB 2.0
parses a SELECT whose WITH clause holds a DELETE, UPDATE, INSERT, TRUNCATE or COPY TO (``DELETE_QUERY_NODE``,
``COPY_QUERY_NODE``, ...) as a SELECT statement; any node not named here, today's or a later DuckDB's, is refused."""
ANALYZE_WORDS = frozenset({"ANALYZE", "ANALYSE"})
CHECKED_STATEMENTS = 128
"""How many distinct query texts an engine keeps parsed and checked (as Python's sqlite3 keeps 128 compiled
statements per connection): a query run again, as a notebook cell re-running does, is neither parsed nor
checked again. The check depends on the text alone, and the catalog never changes under an engine."""
WATCHDOG_IDLE = 5.0
"""Seconds the time-limit thread of an engine waits with no query running before it ends (the next query
starts it again)."""
KEEP_ALSO = frozenset({"+", "-"})
"""Functions a kept result may use besides those DuckDB calls consistent: ``+`` and ``-`` are consistent but for a
timestamp with time zone and an interval, which depend only on the time zone setting, locked in the console."""
BARE_CALLS = frozenset({"current_timestamp", "current_date", "current_time", "localtime", "localtimestamp",
                        "current_user", "session_user", "user", "current_role", "current_catalog", "current_schema"})
"""The SQL words DuckDB parses as a column and binds to a function call (``current_timestamp``): a kept result
may hold none of them."""
HEADROOM = 128 * 2**20
"""Bytes the query process may grow by beyond its memory limit (its address space, once the catalog is loaded):
what DuckDB's threads, the allocator and Python's result rows take around a query that keeps to the limit."""


class Refused(Exception):
    """A statement the console will not run, or a query stopped by a limit (``SqlRefusedError`` in the console)."""


class Failed(Exception):
    """A query DuckDB cannot run: a SQL error (``InputError`` in the console)."""


class Engine:
    """The console's DuckDB connection, locked; checks each text and runs it read-only under a time limit.

    ``con`` holds the catalog already (the engine locks it: nothing can be added after);
    ``memory_limit`` is DuckDB's (a size DuckDB reads: ``512MB``, ``4GB``); ``threads`` its
    thread count. Errors: ``Refused`` and ``Failed``, each a one-line message.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection, *, memory_limit: str, threads: int) -> None:
        self.con = con
        self.memory_limit = memory_limit
        try:
            con.execute("SET temp_directory = ''")
            con.execute("SET max_temp_directory_size = '0B'")
            con.execute("SET memory_limit = ?", [memory_limit])
            con.execute(f"SET threads = {max(1, int(threads))}")
        except duckdb.Error as exc:
            raise Failed(f"SQL console settings: {_first_line(exc)}") from None
        con.execute("SET autoinstall_known_extensions = false")
        con.execute("SET autoload_known_extensions = false")
        con.execute("SET allow_community_extensions = false")
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
        self._checked: OrderedDict[str, tuple[list[Any], bool]] = OrderedDict()
        self._consistent, self._named = _function_names(con)
        # parsed once: the pair costs ~0.07 ms a query (0.12 ms from their text)
        self._begin, self._rollback = con.extract_statements("BEGIN TRANSACTION READ ONLY; ROLLBACK")
        self._watchdog = _Watchdog(con)

    # ---- the check ---------------------------------------------------------------------------

    def check(self, sql: str) -> list[Any]:
        """Refuse every statement but SELECT and EXPLAIN of one SELECT, by each statement's parsed type;
        the parsed statements when admitted (kept for the next run of the same text).

        DESCRIBE, SUMMARIZE, SHOW, FROM-first, VALUES and WITH queries parse as SELECT; a SELECT
        is then read whole as DuckDB parsed it (``_check_tree``), so a write in its WITH clause is
        refused too. EXPLAIN ANALYZE (``ANALYSE``, ``(ANALYZE)``, ``(FORMAT json, ANALYZE)``, with comments
        between the words) is refused: it runs the statement.
        """
        return self._checked_text(sql)[0]

    def keeps(self, sql: str) -> bool:
        """Whether the result of the checked ``sql`` may be kept and served again while the catalog is the same:
        each function it calls is one DuckDB calls consistent (the same arguments give the same result: no clock,
        no random draw, no query id; ``KEEP_ALSO``), it reads no table function, and no bare name in it is a
        function's (``current_timestamp`` parses as a column)."""
        return self._checked_text(sql)[1]

    def _checked_text(self, sql: str) -> tuple[list[Any], bool]:
        if not isinstance(sql, str) or not sql.strip():
            raise Refused("empty query")
        done = self._checked.get(sql)
        if done is not None:
            self._checked.move_to_end(sql)
            return done
        stmts = self._statements(sql)
        keep = True
        for st in stmts:
            kind = self._kind(st)
            if kind == "EXPLAIN":
                keep = self._check_explain(st.query) and keep
            elif kind not in ALLOWED:
                raise Refused(f"the SQL console is read-only: {kind} statements are refused (only SELECT,"
                              " EXPLAIN of a SELECT, DESCRIBE, SUMMARIZE)")
            else:
                keep = self._check_tree(st.query) and keep
        self._checked[sql] = (stmts, keep)
        if len(self._checked) > CHECKED_STATEMENTS:
            self._checked.popitem(last=False)
        return stmts, keep

    def _statements(self, sql: str) -> list[Any]:
        try:
            stmts = self.con.extract_statements(sql)
        except duckdb.Error as exc:
            raise Refused(f"cannot parse the query: {_first_line(exc)}") from None
        except ValueError as exc:  # a statement type this DuckDB's Python enum does not name
            raise Refused(f"the SQL console is read-only: a statement of unknown type is refused ({exc})") from None
        if not stmts:
            raise Refused("empty query")
        return list(stmts)

    @staticmethod
    def _kind(st: Any) -> str:
        try:
            return str(st.type).rsplit(".", 1)[-1]
        except ValueError:  # a statement type this DuckDB's Python enum does not name (UPDATE EXTENSIONS)
            return "UNKNOWN"

    def _check_explain(self, text: str) -> bool:
        """An EXPLAIN: no ANALYZE anywhere among its keywords, and what it explains is one SELECT (whose result may
        be kept: ``keeps``)."""
        try:
            tokens = [(pos, str(kind).rsplit(".", 1)[-1]) for pos, kind in duckdb.tokenize(text)]
        except duckdb.Error as exc:
            raise Refused(f"cannot parse the query: {_first_line(exc)}") from None
        words = []
        for i, (pos, kind) in enumerate(tokens):
            end = tokens[i + 1][0] if i + 1 < len(tokens) else len(text)
            words.append((pos, kind, text[pos:end].strip()))
        if any(kind == "keyword" and word.upper() in ANALYZE_WORDS for _, kind, word in words):
            raise Refused("EXPLAIN ANALYZE runs the statement it explains: refused (plain EXPLAIN of a SELECT shows"
                          " the plan)")
        code = [(pos, kind, word) for pos, kind, word in words if kind != "comment"]
        if not code or code[0][2].upper() != "EXPLAIN":
            raise Refused("cannot read this EXPLAIN statement")
        at = 1
        if at < len(code) and code[at][2] == "(":  # EXPLAIN (option, ...) statement
            depth = 0
            while at < len(code):
                depth += code[at][2].count("(") - code[at][2].count(")")
                at += 1
                if depth <= 0:
                    break
        if at >= len(code):
            raise Refused("EXPLAIN of nothing")
        inner = self._statements(text[code[at][0]:])
        if len(inner) != 1 or self._kind(inner[0]) not in ALLOWED:
            kinds = ", ".join(self._kind(st) for st in inner)
            raise Refused(f"the SQL console is read-only: EXPLAIN of a {kinds} statement is refused (only EXPLAIN"
                          " of a SELECT)")
        return self._check_tree(inner[0].query)

    def _check_tree(self, text: str) -> bool:
        """Refuse a SELECT statement that holds anything but reading anywhere in its parse tree (a DELETE, UPDATE,
        INSERT, TRUNCATE or COPY in a WITH clause, however deep): every query node must be one of ``READ_NODES``.
        Returns whether its result may be kept (``keeps``).

        The tree is DuckDB's own parse of ``text`` (``json_serialize_sql``); a statement DuckDB cannot serialize
        cannot be checked and is refused.
        """
        try:
            row = self.con.execute("SELECT json_serialize_sql(?)", [text]).fetchone()
            tree = json.loads(row[0]) if row is not None else None
        except (duckdb.Error, ValueError) as exc:
            raise Refused(f"cannot check the query: {_first_line(exc)}") from None
        if not isinstance(tree, dict) or tree.get("error") is not False:
            why = tree.get("error_message") if isinstance(tree, dict) else None
            raise Refused(f"the SQL console cannot check this statement, so it is refused ({why or 'no parse'})")
        bad = sorted(_query_nodes(tree) - READ_NODES)
        if bad:
            what = " and ".join(n.removesuffix("_NODE").removesuffix("_QUERY").replace("_", " ") for n in bad)
            raise Refused(f"the SQL console is read-only: {what} inside a query is refused (a WITH clause may hold"
                          " only SELECTs)")
        return _consistent_tree(tree, self._consistent, self._named)

    # ---- running -----------------------------------------------------------------------------

    def rows(self, sql: str, timeout: float) -> tuple[list[str], list[tuple[Any, ...]]]:
        """A checked query's column names and rows, run read-only within ``timeout`` seconds."""
        what = self._runnable(sql)

        def run() -> tuple[list[str], list[tuple[Any, ...]]]:
            cur = self.con.execute(what)
            cols = [d[0] for d in (cur.description or [])]
            return cols, [tuple(r) for r in cur.fetchall()]

        result: tuple[list[str], list[tuple[Any, ...]]] = self._guard(run, timeout)
        return result

    def arrow(self, sql: str, timeout: float) -> pa.Table:
        """A checked query's result as an Arrow table, run read-only within ``timeout`` seconds."""
        what = self._runnable(sql)

        def run() -> pa.Table:
            rel = self.con.sql(what)  # a relation straight to Arrow (a DB-API result would copy the rows once more)
            return rel.to_arrow_table() if rel is not None else pa.table({})

        table: pa.Table = self._guard(run, timeout)
        return table

    def _runnable(self, sql: str) -> Any:
        """What to run for ``sql`` once checked: its one statement as parsed, or the text (several statements run
        as DuckDB runs them)."""
        stmts = self.check(sql)
        return stmts[0] if len(stmts) == 1 else sql

    def _guard(self, fn: Any, timeout: float) -> Any:
        """Run ``fn`` under the time limit, inside a read-only transaction that is then rolled back (so a write no
        check foresaw is refused by DuckDB itself, and nothing a statement did outlives it); DuckDB's errors as
        one-line ``Refused`` / ``Failed``."""
        self._watchdog.arm(timeout)
        try:
            self.con.execute(self._begin)
            try:
                return fn()
            finally:
                try:
                    self.con.execute(self._rollback)
                except duckdb.TransactionException as exc:  # only a COMMIT or ROLLBACK could end it: refused above
                    raise RuntimeError(f"the SQL console's read-only transaction ended under a query: {exc}") \
                        from None
        except duckdb.InterruptException:
            raise Refused(f"query interrupted after {timeout:g} s (time limit)") from None
        except (duckdb.OutOfMemoryException, MemoryError):
            raise Refused(self.out_of_memory()) from None
        except duckdb.PermissionException as exc:
            raise Refused(f"refused: the console cannot read or write files: {_first_line(exc)}") from None
        except duckdb.TransactionException as exc:
            if "read-only" not in str(exc):
                raise Failed(f"SQL error: {_first_line(exc)}") from None
            raise Refused("the SQL console is read-only: DuckDB refused the query's write"
                          f" ({_first_line(exc).removeprefix('TransactionContext Error: ')})") from None
        except duckdb.Error as exc:
            raise Failed(f"SQL error: {_first_line(exc)}") from None
        finally:
            self._watchdog.disarm()

    def out_of_memory(self) -> str:
        return (f"the query needs more memory than the console's limit ({self.memory_limit}); narrow it (WHERE,"
                " LIMIT, fewer columns) or raise --memory-limit")


class _Watchdog:
    """Interrupts the connection's query once it runs past its deadline: one thread per engine.

    A ``threading.Timer`` per query started a thread each time (~0.2 ms, a third of DuckDB's whole
    answer on a small catalog). This thread sleeps until the armed deadline (a later deadline armed
    meanwhile only moves it on), ends after ``WATCHDOG_IDLE`` seconds with nothing armed, and holds
    the connection weakly, so an engine that is dropped is not kept alive by it. An interrupt stops
    DuckDB between chunks of work; a query that does not stop is the console's to end.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._con = weakref.ref(con)
        self._cond = threading.Condition()
        self._deadline: float | None = None
        self._running = False
        self._sleeping_until: float | None = None  # what the thread waits for (None: nothing armed)
        self._idle_since: float | None = None

    def arm(self, seconds: float) -> None:
        with self._cond:
            self._deadline = time.monotonic() + seconds
            if not self._running:
                self._running = True
                threading.Thread(target=_watch, args=(weakref.ref(self), self._cond), daemon=True,
                                 name="kingdomlog-sql-time-limit").start()
            elif self._sleeping_until is None or self._deadline < self._sleeping_until:
                self._cond.notify()

    def disarm(self) -> None:
        with self._cond:
            self._deadline = None

    def _step(self) -> float | None:
        """Called by the thread with the lock held: interrupt if due; how long to sleep (None: end)."""
        now = time.monotonic()
        if self._deadline is None:
            if self._idle_since is not None and now - self._idle_since >= WATCHDOG_IDLE:
                self._running = False
                return None
            if self._idle_since is None:
                self._idle_since = now
            self._sleeping_until = None
            return WATCHDOG_IDLE
        self._idle_since = None
        if now >= self._deadline:
            self._deadline = None
            con = self._con()
            if con is not None:
                con.interrupt()
            self._sleeping_until = None
            return WATCHDOG_IDLE
        self._sleeping_until = self._deadline
        return self._deadline - now


def _watch(ref: weakref.ref[_Watchdog], cond: threading.Condition) -> None:
    with cond:
        while True:
            dog = ref()
            if dog is None:
                return
            wait = dog._step()
            del dog
            if wait is None:
                return
            cond.wait(wait)


def _function_names(con: duckdb.DuckDBPyConnection) -> tuple[frozenset[str], frozenset[str]]:
    """(the functions whose every form DuckDB calls consistent, with ``KEEP_ALSO``; every function's name)."""
    rows = con.execute("SELECT lower(function_name), bool_and(function_type IN ('scalar', 'aggregate', 'window')"
                       " AND stability = 'CONSISTENT') FROM duckdb_functions() GROUP BY 1").fetchall()
    return frozenset({n for n, ok in rows if ok} - BARE_CALLS | KEEP_ALSO), frozenset({n for n, _ in rows} | BARE_CALLS)


def _consistent_tree(tree: Any, consistent: frozenset[str], named: frozenset[str]) -> bool:
    """Whether a ``json_serialize_sql`` tree calls only ``consistent`` functions, reads no table function and has no
    column reference named like a function that is not consistent (``current_timestamp``)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            name = node.get("function_name")
            if isinstance(name, str) and name.lower() not in consistent:
                return False
            if node.get("type") == "TABLE_FUNCTION":
                return False
            if node.get("class") == "COLUMN_REF":
                parts = node.get("column_names")
                if not isinstance(parts, list) or any(
                        not isinstance(p, str) or (p.lower() in named and p.lower() not in consistent) for p in parts):
                    return False
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return True


def _query_nodes(tree: Any) -> set[str]:
    """Every query node type (``..._NODE``) anywhere in a ``json_serialize_sql`` tree.

    >>> sorted(_query_nodes({"node": {"type": "SELECT_NODE", "cte_map": {"map": [
    ...     {"value": {"query_node": {"type": "DELETE_QUERY_NODE"}}}]}}}))
    ['DELETE_QUERY_NODE', 'SELECT_NODE']
    """
    found: set[str] = set()
    stack = [tree]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            t = x.get("type")
            if isinstance(t, str) and t.endswith("_NODE"):
                found.add(t)
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return found


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


# ---- the process ---------------------------------------------------------------------------------


def address_space() -> int | None:
    """This process's virtual memory size in bytes (``VmSize``; Linux), or None where it cannot be read."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def cap_memory(extra: int) -> int | None:
    """Cap this process's address space at its size now plus ``extra`` bytes; the cap, or None where the OS
    has none to set."""
    try:
        import resource
    except ImportError:  # not a POSIX system
        return None
    now = address_space()
    if now is None:
        return None
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = now + extra
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    return cap


def main(fd: int) -> None:
    """Serve one console over the connected socket ``fd``: load the catalog it sends, then answer its queries.

    Messages in (pickled): ``("load", settings, table names, view statements)`` followed by one Arrow IPC
    stream per table; then ``(op, sql, timeout)`` with ``op`` one of ``check``, ``rows``, ``arrow``.
    Messages out: ``("ready", info)``, then per query ``("ok", result, keep)`` (``keep``: a ``rows`` result the
    console may serve again while this catalog is open, ``Engine.keeps``), ``("refused", message)``,
    ``("failed", message)`` or ``("internal", message)``. The process ends when the console closes its end.
    """
    from multiprocessing.connection import Connection

    conn = Connection(fd)
    try:
        _serve(conn)
    except (EOFError, BrokenPipeError, ConnectionResetError, KeyboardInterrupt):
        pass
    finally:
        conn.close()


def _serve(conn: Any) -> None:
    op, settings, names, views = conn.recv()
    if op != "load":
        raise SystemExit(f"kingdomlog SQL worker: expected the catalog, got {op!r}")
    con = duckdb.connect(":memory:")
    for name in names:
        table = pa.ipc.open_stream(conn.recv_bytes()).read_all()
        con.register("_t", table)
        con.execute(f'CREATE TABLE "{name}" AS SELECT * FROM _t')
        con.unregister("_t")
        del table
    for statement in views:
        con.execute(statement)
    try:
        engine = Engine(con, memory_limit=settings["memory_limit"], threads=settings["threads"])
    except Failed as exc:
        conn.send(("failed", str(exc)))
        return
    engine.rows("SELECT count(*) FROM duckdb_tables()", 5.0)  # DuckDB's threads and the time-limit thread start
    limit = int(settings["limit_bytes"])
    cap = cap_memory(limit + HEADROOM)
    conn.send(("ready", {"cap": cap, "pid": os.getpid()}))
    while True:
        op, sql, timeout = conn.recv()
        keep = False
        try:
            if op == "check":
                engine.check(sql)
                result: Any = None
            elif op == "rows":
                result = engine.rows(sql, timeout)
                keep = engine.keeps(sql)
            elif op == "arrow":
                result = engine.arrow(sql, timeout)
            else:
                raise Failed(f"unknown request {op!r}")
            data = pickle.dumps(("ok", result, keep), protocol=pickle.HIGHEST_PROTOCOL)
            del result
            if len(data) > limit:
                raise Refused(f"the result is larger than the console's memory limit ({settings['memory_limit']});"
                              " add a LIMIT or aggregate")
        except Refused as exc:
            data = pickle.dumps(("refused", str(exc)))
        except Failed as exc:
            data = pickle.dumps(("failed", str(exc)))
        except MemoryError:
            data = pickle.dumps(("refused", engine.out_of_memory()))
        except Exception as exc:  # a bug: said as one, the process goes on
            data = pickle.dumps(("internal", f"{type(exc).__name__}: {_first_line(exc)}"))
        conn.send_bytes(data)
        del data


if __name__ == "__main__":  # pragma: no cover - started by SafeConsole
    main(int(sys.argv[1]))
