"""The historians' DuckDB catalog over a campaigns root, and the safe read-only console (design §9).

Tables (materialised in an in-memory database):

- ``events``: the envelope of every campaign (``payload`` as JSON text);
- ``campaigns``: one row per campaign folder (id, name, ruleset, options JSON, counts);
- ``turns`` (view, ``sql/turns.sql``): one row per committed batch, with retraction flags;
- ``states``: one row per campaign and live turn, the ruleset's ``summary()`` figures as
  columns plus the full state as JSON (``state_json``);
- each ruleset's own views (``Ruleset.sql_views``).

The console (``SafeConsole``) then gives queries no directory at all: DuckDB's temporary
directory (by default ``.tmp`` under the working directory, which stays readable and
writable even with external access disabled) is switched off, external access is
disabled, extensions cannot be installed or loaded, and the configuration is locked with
the console's own memory limit and thread count. It decides by the parsed type of every
statement (``extract_statements``): only SELECT (DESCRIBE, SUMMARIZE, SHOW, FROM, VALUES, WITH
count as SELECT) and EXPLAIN of a single SELECT; EXPLAIN ANALYZE in any spelling is refused,
since it runs the statement it explains. A time limit covers running the query, fetching
and formatting its result.
"""

from __future__ import annotations

import bisect
import csv
import io
import json
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from kingdomlog.app import Campaign
from kingdomlog.core.errors import InputError, KingdomlogError, SqlRefusedError
from kingdomlog.core.fold import default_context, fold
from kingdomlog.core.ruleset import Ruleset, State, all_rulesets
from kingdomlog.core.viewers import Viewer, visible_to
from kingdomlog.store.config import CONFIG_FILE
from kingdomlog.store.log import SCHEMA

ALLOWED = {"SELECT"}
"""Statement types the console runs (besides EXPLAIN of one SELECT, checked apart)."""
MEMORY_LIMIT = "1GB"
"""The console's own memory limit (DuckDB's default is 80% of the machine)."""
THREADS = 2
ANALYZE_WORDS = frozenset({"ANALYZE", "ANALYSE"})
FORMAT_CHECK_EVERY = 1000


def find_campaigns(root: Path, max_depth: int = 3) -> list[Path]:
    """Campaign folders under ``root`` (``root`` itself if it is one), sorted."""
    if not root.is_dir():
        raise InputError(f"{root}: no such folder")
    if (root / CONFIG_FILE).is_file():
        return [root]
    found: list[Path] = []

    def walk(d: Path, depth: int) -> None:
        if depth > max_depth:
            return
        for child in sorted(d.iterdir()):
            if not child.is_dir() or child.name.startswith("."):
                continue
            if (child / CONFIG_FILE).is_file():
                found.append(child)
            else:
                walk(child, depth + 1)

    walk(root, 1)
    return found


def state_rows(camp: Campaign, viewer: str | Viewer = "gm") -> list[dict[str, Any]]:
    """One row per live turn of ``camp``: summary figures plus ``state_json`` (redacted for ``viewer``)."""
    rs = camp.ruleset
    v = camp.viewer(viewer) if isinstance(viewer, str) else viewer
    rows: list[dict[str, Any]] = []
    events = camp.events()
    # a viewer's last_seq counts in its own numbering (docs/log-format.md): how many events it saw by then
    seen = None if v.is_gm else [e.seq for e in events if visible_to(e.visibility, v)]

    def emit(turn: int, last_seq: int, state: State) -> None:
        shown = state if v.is_gm else rs.redact(state, v)
        at = last_seq if seen is None else bisect.bisect_right(seen, last_seq)
        row: dict[str, Any] = {"campaign": camp.id, "ruleset": rs.id, "turn": turn, "last_seq": at}
        row.update(rs.summary(shown))
        row["state_json"] = json.dumps(shown.model_dump(mode="json"), sort_keys=True)
        rows.append(row)

    fold(rs, rs.initial_state(camp.context), events, on_turn=emit)
    return rows


def _summary_columns(rs: Ruleset) -> dict[str, Any]:
    try:
        return rs.summary(rs.initial_state(default_context(rs, "x")))
    except Exception:
        return {}


@dataclass
class QueryResult:
    """Column names and rows of a console query."""

    columns: list[str]
    rows: list[tuple[Any, ...]]

    def format(self, fmt: str = "table", *, deadline: float | None = None) -> str:
        """The rows as ``table``, ``csv`` or ``json`` text.

        ``deadline`` (a ``time.monotonic()`` value) bounds the work: past it,
        ``SqlRefusedError`` (a huge result is refused, never formatted for minutes).
        """

        def tick(i: int) -> None:
            if deadline is not None and i % FORMAT_CHECK_EVERY == 0 and time.monotonic() > deadline:
                raise SqlRefusedError(f"formatting {len(self.rows)} rows went past the time limit; add a LIMIT"
                                      " or aggregate")

        if fmt == "json":
            parts = []
            for i, r in enumerate(self.rows):
                tick(i)
                parts.append(json.dumps(dict(zip(self.columns, r, strict=True)), default=str, indent=2))
            return "[" + ",\n".join(parts) + "]\n" if parts else "[]\n"
        if fmt == "csv":
            buf = io.StringIO()
            w = csv.writer(buf)
            w.writerow(self.columns)
            for i, r in enumerate(self.rows):
                tick(i)
                w.writerow(r)
            return buf.getvalue()
        cells: list[list[str]] = []
        for i, row in enumerate(self.rows):
            tick(i)
            cells.append([_cell(v) for v in row])
        widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(self.columns)]
        line = "  ".join(c.ljust(widths[i]) for i, c in enumerate(self.columns))
        sep = "  ".join("-" * w for w in widths)
        body = []
        for n, texts in enumerate(cells):
            tick(n)
            body.append("  ".join(texts[i].ljust(widths[i]) for i in range(len(texts))))
        return "\n".join([line, sep, *body, f"({len(self.rows)} row{'s' if len(self.rows) != 1 else ''})"]) + "\n"


def _cell(v: Any) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, float):
        return f"{v:g}"
    s = str(v)
    return s if len(s) <= 60 else s[:57] + "..."


Progress = Callable[[int, int, str], None]
"""Called as ``progress(done, total, campaign_folder_name)`` while the catalog loads."""


class Catalog:
    """An in-memory DuckDB database holding the catalog of every campaign under ``root``."""

    def __init__(self, root: Path, *, viewer: str = "gm", campaigns: Sequence[Path] | None = None,
                 progress: Progress | None = None) -> None:
        self.root = Path(root)
        self.viewer = viewer
        self.con = duckdb.connect(":memory:")
        self.warnings: list[str] = []
        self.progress = progress
        self._load(list(campaigns) if campaigns is not None else find_campaigns(self.root))

    def _load(self, folders: list[Path]) -> None:
        con = self.con
        event_tables: list[pa.Table] = []
        camp_rows: list[dict[str, Any]] = []
        states_by_rs: dict[str, list[dict[str, Any]]] = {}
        seen: dict[str, Path] = {}
        for i, folder in enumerate(folders, start=1):
            if self.progress is not None:
                self.progress(i, len(folders), folder.name)
            try:
                camp = Campaign.open(folder)
                if camp.id in seen:
                    self.warnings.append(f"{folder}: skipped: campaign id {camp.id!r} is already loaded from"
                                         f" {seen[camp.id]} (a copy?)")
                    continue
                seen[camp.id] = folder
                table = camp.log.read_table()
                if self.viewer != "gm":  # the viewer's own numbering: nothing shows where hidden events sit
                    table = pa.Table.from_pylist([ev.envelope() for ev in camp.visible_events(self.viewer)],
                                                 schema=SCHEMA)
                event_tables.append(table)
                srows = state_rows(camp, self.viewer)
                states_by_rs.setdefault(camp.config.ruleset, []).extend(srows)
                camp_rows.append({
                    "campaign": camp.id, "name": camp.config.name, "ruleset": camp.config.ruleset,
                    "folder": str(folder), "options": json.dumps(camp.config.options, sort_keys=True),
                    "events": table.num_rows, "head_seq": camp.head_for(self.viewer).seq,
                    "last_turn": srows[-1]["turn"] if srows else None,
                })
            except KingdomlogError as exc:
                self.warnings.append(f"{folder}: skipped: {exc}")
        events = pa.concat_tables(event_tables) if event_tables else SCHEMA.empty_table()
        con.register("_events", events)
        con.execute("CREATE TABLE events AS SELECT * FROM _events ORDER BY campaign, seq")
        con.unregister("_events")
        if camp_rows:
            con.register("_c", pa.Table.from_pylist(camp_rows))
            con.execute("CREATE TABLE campaigns AS SELECT * FROM _c")
            con.unregister("_c")
        else:
            con.execute("CREATE TABLE campaigns (campaign VARCHAR, name VARCHAR, ruleset VARCHAR, folder VARCHAR,"
                        " options VARCHAR, events BIGINT, head_seq BIGINT, last_turn INTEGER)")
        self._load_states(states_by_rs)
        con.execute(resources.files("kingdomlog.projections").joinpath("sql/turns.sql").read_text())
        for rs in all_rulesets():
            for name, sql in rs.sql_views().items():
                try:
                    body = sql.strip().rstrip(";")
                    if body.upper().startswith("CREATE"):
                        con.execute(body)
                    else:
                        con.execute(f"CREATE VIEW {name} AS {body}")
                except duckdb.Error as exc:
                    self.warnings.append(f"view {name} ({rs.id}) not created: {exc}")

    def _load_states(self, by_rs: dict[str, list[dict[str, Any]]]) -> None:
        con = self.con
        parts = []
        base = {"campaign": "x", "ruleset": "x", "turn": 0, "last_seq": 0, "state_json": "{}"}
        for i, rs in enumerate(all_rulesets()):
            rows = by_rs.get(rs.id, [])
            if not rows:
                proto = dict(base, ruleset=rs.id)
                proto.update(_summary_columns(rs))
                t = pa.Table.from_pylist([proto]).slice(0, 0)
            else:
                try:
                    t = pa.Table.from_pylist(rows)
                except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
                    self.warnings.append(f"states of {rs.id}: mixed column types ({exc}); stored as text")
                    t = pa.Table.from_pylist([{k: (None if v is None else str(v)) for k, v in r.items()}
                                              for r in rows])
            name = f"_s{i}"
            con.register(name, t)
            parts.append(f"SELECT * FROM {name}")
        if parts:
            con.execute("CREATE TABLE states AS " + " UNION ALL BY NAME ".join(parts) + " ORDER BY campaign, turn")
        else:
            con.execute("CREATE TABLE states (campaign VARCHAR, ruleset VARCHAR, turn INTEGER, last_seq BIGINT,"
                        " state_json VARCHAR)")
        for i in range(len(parts)):
            con.unregister(f"_s{i}")


class SafeConsole:
    """Read-only SQL over a campaigns root: cannot write, read any file, attach, install, load or set.

    ``memory_limit`` and ``threads`` are the console's own (DuckDB would take 80% of the
    machine and every core); ``timeout`` bounds each query, its fetch and its formatting.
    """

    def __init__(self, root: Path, *, viewer: str = "gm", timeout: float = 30.0,
                 campaigns: Sequence[Path] | None = None, progress: Progress | None = None,
                 memory_limit: str = MEMORY_LIMIT, threads: int = THREADS) -> None:
        self.catalog = Catalog(root, viewer=viewer, campaigns=campaigns, progress=progress)
        self.timeout = timeout
        self.memory_limit = memory_limit
        self.con = self.catalog.con
        con = self.con
        try:
            # no directory at all: DuckDB's temp directory ('.tmp' under the cwd) would stay readable and
            # writable (COPY TO, read_text, glob) even with external access disabled
            con.execute("SET temp_directory = ''")
            con.execute("SET max_temp_directory_size = '0B'")
            con.execute("SET memory_limit = ?", [memory_limit])
            con.execute(f"SET threads = {max(1, min(int(threads), os.cpu_count() or 1))}")
        except duckdb.Error as exc:
            raise InputError(f"SQL console settings: {_first_line(exc)}") from None
        con.execute("SET autoinstall_known_extensions = false")
        con.execute("SET autoload_known_extensions = false")
        con.execute("SET allow_community_extensions = false")
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")

    @property
    def warnings(self) -> list[str]:
        return self.catalog.warnings

    def check(self, sql: str) -> None:
        """Refuse every statement but SELECT and EXPLAIN of one SELECT, by each statement's parsed type.

        DESCRIBE, SUMMARIZE, SHOW, FROM-first, VALUES and WITH queries parse as SELECT.
        EXPLAIN ANALYZE (``ANALYSE``, ``(ANALYZE)``, ``(FORMAT json, ANALYZE)``, with comments
        between the words) is refused: it runs the statement.
        """
        if not isinstance(sql, str) or not sql.strip():
            raise SqlRefusedError("empty query")
        for st in self._statements(sql):
            kind = self._kind(st)
            if kind == "EXPLAIN":
                self._check_explain(st.query)
            elif kind not in ALLOWED:
                raise SqlRefusedError(f"the SQL console is read-only: {kind} statements are refused (only SELECT,"
                                      " EXPLAIN of a SELECT, DESCRIBE, SUMMARIZE)")

    def _statements(self, sql: str) -> list[Any]:
        try:
            stmts = self.con.extract_statements(sql)
        except duckdb.Error as exc:
            raise SqlRefusedError(f"cannot parse the query: {_first_line(exc)}") from None
        except ValueError as exc:  # a statement type this DuckDB's Python enum does not name
            raise SqlRefusedError(f"the SQL console is read-only: a statement of unknown type is refused ({exc})") \
                from None
        if not stmts:
            raise SqlRefusedError("empty query")
        return list(stmts)

    @staticmethod
    def _kind(st: Any) -> str:
        try:
            return str(st.type).rsplit(".", 1)[-1]
        except ValueError:  # a statement type this DuckDB's Python enum does not name (UPDATE EXTENSIONS)
            return "UNKNOWN"

    def _check_explain(self, text: str) -> None:
        """An EXPLAIN: no ANALYZE anywhere among its keywords, and what it explains is one SELECT."""
        try:
            tokens = [(pos, str(kind).rsplit(".", 1)[-1]) for pos, kind in duckdb.tokenize(text)]
        except duckdb.Error as exc:
            raise SqlRefusedError(f"cannot parse the query: {_first_line(exc)}") from None
        words = []
        for i, (pos, kind) in enumerate(tokens):
            end = tokens[i + 1][0] if i + 1 < len(tokens) else len(text)
            words.append((pos, kind, text[pos:end].strip()))
        if any(kind == "keyword" and word.upper() in ANALYZE_WORDS for _, kind, word in words):
            raise SqlRefusedError("EXPLAIN ANALYZE runs the statement it explains: refused (plain EXPLAIN of a"
                                  " SELECT shows the plan)")
        code = [(pos, kind, word) for pos, kind, word in words if kind != "comment"]
        if not code or code[0][2].upper() != "EXPLAIN":
            raise SqlRefusedError("cannot read this EXPLAIN statement")
        at = 1
        if at < len(code) and code[at][2] == "(":  # EXPLAIN (option, ...) statement
            depth = 0
            while at < len(code):
                depth += code[at][2].count("(") - code[at][2].count(")")
                at += 1
                if depth <= 0:
                    break
        if at >= len(code):
            raise SqlRefusedError("EXPLAIN of nothing")
        inner = self._statements(text[code[at][0]:])
        if len(inner) != 1 or self._kind(inner[0]) not in ALLOWED:
            kinds = ", ".join(self._kind(st) for st in inner)
            raise SqlRefusedError(f"the SQL console is read-only: EXPLAIN of a {kinds} statement is refused (only"
                                  " EXPLAIN of a SELECT)")

    def relation(self, sql: str) -> duckdb.DuckDBPyRelation:
        """The query's result as a DuckDB relation (checked first); for notebooks.

        The query runs here, under the time limit and error mapping, and the relation is
        over its materialised result: a lazy ``con.sql`` relation would run later, outside
        the guard (no time limit, raw DuckDB errors).
        """
        table = self.arrow(sql)
        rel: duckdb.DuckDBPyRelation = self._guard(lambda: self.con.from_arrow(table))
        return rel

    def query(self, sql: str) -> QueryResult:
        """Run a read-only query with a time limit; ``SqlRefusedError`` when refused or interrupted."""
        self.check(sql)

        def run() -> QueryResult:
            cur = self.con.execute(sql)
            cols = [d[0] for d in (cur.description or [])]
            return QueryResult(cols, [tuple(r) for r in cur.fetchall()])

        result: QueryResult = self._guard(run)
        return result

    def run(self, sql: str, fmt: str = "table") -> str:
        """The query's result as text (``table``, ``csv``, ``json``), query and formatting within one time limit."""
        deadline = time.monotonic() + self.timeout
        result = self.query(sql)
        if time.monotonic() > deadline:
            raise SqlRefusedError(f"query took longer than the time limit ({self.timeout:g} s)")
        return result.format(fmt, deadline=deadline)

    def arrow(self, sql: str) -> pa.Table:
        """A read-only query's result as an Arrow table."""
        self.check(sql)
        table: pa.Table = self._guard(lambda: self.con.execute(sql).to_arrow_table())
        return table

    def _guard(self, fn: Any) -> Any:
        timer = threading.Timer(self.timeout, self.con.interrupt)
        timer.start()
        try:
            return fn()
        except duckdb.InterruptException:
            raise SqlRefusedError(f"query interrupted after {self.timeout:g} s (time limit)") from None
        except duckdb.OutOfMemoryException:
            raise SqlRefusedError(f"the query needs more memory than the console's limit ({self.memory_limit});"
                                  " narrow it (WHERE, LIMIT, fewer columns) or raise --memory-limit") from None
        except duckdb.PermissionException as exc:
            raise SqlRefusedError(f"refused: the console cannot read or write files: {_first_line(exc)}") from None
        except duckdb.Error as exc:
            raise InputError(f"SQL error: {_first_line(exc)}") from None
        finally:
            timer.cancel()


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
