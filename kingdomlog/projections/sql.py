"""The historians' DuckDB catalog over a campaigns root, and the safe read-only console (design §9).

Tables (materialised in an in-memory database):

- ``events``: the envelope of every campaign (``payload`` as JSON text);
- ``campaigns``: one row per campaign folder (id, name, ruleset, options JSON, counts);
- ``turns`` (view, ``sql/turns.sql``): one row per committed batch, with retraction flags;
- ``states``: one row per campaign and live turn, the ruleset's ``summary()`` figures as
  columns plus the full state as JSON (``state_json``);
- each ruleset's own views (``Ruleset.sql_views``).

Each campaign's part is kept in its cache (``projections.cache``) and checked like a snapshot,
so opening the catalog folds only the campaigns whose log (or code, or data) changed, and of
those only the events appended since, when that is all that changed (``Catalog.folded``).

The console (``SafeConsole``) then gives queries no directory at all: DuckDB's temporary
directory (by default ``.tmp`` under the working directory, which stays readable and
writable even with external access disabled) is switched off, external access is
disabled, extensions cannot be installed or loaded, and the configuration is locked with
the console's own memory limit and thread count. It decides by the parsed type of every
statement (``extract_statements``): only SELECT (DESCRIBE, SUMMARIZE, SHOW, FROM, VALUES, WITH
count as SELECT) and EXPLAIN of a single SELECT; EXPLAIN ANALYZE in any spelling is refused,
since it runs the statement it explains. DuckDB parses a WITH clause holding a DELETE, UPDATE,
INSERT, TRUNCATE or COPY TO as a SELECT, so each SELECT is then read whole in DuckDB's own parse
tree (``json_serialize_sql``) and refused unless every query node in it reads (``READ_NODES``).
And whatever passes runs inside a read-only transaction that is rolled back after it: a write
no check foresaw is refused by DuckDB itself, and nothing a statement makes (a temp table)
outlives it. A time limit covers running the query, fetching and formatting its result.
"""

from __future__ import annotations

import bisect
import csv
import hashlib
import io
import json
import os
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from kingdomlog.app import Campaign
from kingdomlog.core.core_events import TurnRetracted
from kingdomlog.core.errors import InputError, InternalError, KingdomlogError, SqlRefusedError
from kingdomlog.core.events import GENESIS_HASH, RecordedEvent, renumber
from kingdomlog.core.fold import default_context, filter_visible, fold
from kingdomlog.core.ruleset import Ruleset, State, find_ruleset, registered_rulesets
from kingdomlog.core.viewers import GM_VIEWER, Viewer, visible_to
from kingdomlog.projections import cache as pcache
from kingdomlog.projections.cache import HEAD_REL
from kingdomlog.store import codec
from kingdomlog.store.config import CONFIG_FILE
from kingdomlog.store.log import EventLog, TailRead

ALLOWED = {"SELECT"}
"""Statement types the console runs (besides EXPLAIN of one SELECT, checked apart)."""
READ_NODES = frozenset({"SELECT_NODE", "SET_OPERATION_NODE", "RECURSIVE_CTE_NODE", "CTE_NODE"})
"""The query nodes (DuckDB's parse, ``json_serialize_sql``) a checked SELECT may hold anywhere in its tree. DuckDB 2.0
parses a SELECT whose WITH clause holds a DELETE, UPDATE, INSERT, TRUNCATE or COPY TO (``DELETE_QUERY_NODE``,
``COPY_QUERY_NODE``, ...) as a SELECT statement; any node not named here, today's or a later DuckDB's, is refused."""
MEMORY_LIMIT = "1GB"
"""The console's own memory limit (DuckDB's default is 80% of the machine)."""
THREADS = 2
ROW_GROUP = 122_880
"""DuckDB's row group: a scan is split across threads by row groups, so a table smaller than one is read by
one thread whatever ``threads`` says, and more threads only add scheduling (0.15-0.2 ms a small grouped query,
measured here)."""
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
ANALYZE_WORDS = frozenset({"ANALYZE", "ANALYSE"})
FORMAT_CHECK_EVERY = 1000
CHECKED_STATEMENTS = 128
"""How many distinct query texts a console keeps parsed and checked (as Python's sqlite3 keeps 128 compiled
statements per connection): a query run again, as a notebook cell re-running does, is neither parsed nor
checked again. The check depends on the text alone, and the catalog never changes under a console."""
WATCHDOG_IDLE = 5.0
"""Seconds the time-limit thread of a console waits with no query running before it ends (the next query
starts it again)."""


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


def state_rows(camp: Campaign, viewer: Viewer = GM_VIEWER) -> list[dict[str, Any]]:
    """One row per live turn of ``camp``: summary figures plus ``state_json`` (redacted for ``viewer``)."""
    rs = camp.ruleset
    return _rows(camp.id, rs, viewer, rs.initial_state(camp.context), camp.events(), None, 0)[0]


def _rows(campaign: str, rs: Ruleset, v: Viewer, start: State, events: Sequence[RecordedEvent],
          retracted: frozenset[str] | None, seen_before: int) -> tuple[list[dict[str, Any]], State]:
    """The ``states`` rows of folding ``events`` into ``start`` (one per turn end), and the GM state after them.

    ``seen_before``: how many events ``v`` saw before ``events`` (its own numbering continues from there).
    """
    rows: list[dict[str, Any]] = []
    # a viewer's last_seq counts in its own numbering (docs/log-format.md): how many events it saw by then
    seen = None if v.is_gm else [e.seq for e in events if visible_to(e.visibility, v)]

    def emit(turn: int, last_seq: int, state: State) -> None:
        shown = state if v.is_gm else rs.redact(state, v)
        at = last_seq if seen is None else seen_before + bisect.bisect_right(seen, last_seq)
        row: dict[str, Any] = {"campaign": campaign, "ruleset": rs.id, "turn": turn, "last_seq": at}
        row.update(rs.summary(shown))
        row["state_json"] = json.dumps(shown.model_dump(mode="json"), sort_keys=True)
        rows.append(row)

    final = fold(rs, start, events, retracted=retracted, on_turn=emit)
    return rows, final


def _renumber_from(events: Sequence[RecordedEvent], seq: int, prev: str) -> list[RecordedEvent]:
    """``core.events.renumber`` continued: the numbering after a viewer's first ``seq`` events (ending at ``prev``)."""
    if seq == 0 and prev == GENESIS_HASH:
        return renumber(events)
    out: list[RecordedEvent] = []
    for i, ev in enumerate(events, start=seq + 1):
        out.append(ev if ev.seq == i and ev.prev_hash == prev and ev.hash else
                   replace(ev, seq=i, prev_hash=prev).with_hash(prev))
        prev = out[-1].hash
    return out


def _table(rows: list[dict[str, Any]]) -> pa.Table | None:
    """The ``states`` rows as an Arrow table, whatever values a log holds.

    A figure no Arrow column holds whole, an integer outside BIGINT (an absurd amount an old log
    may carry), is NULL in its column (``state_json`` keeps it); a column whose values are of
    mixed kinds holds them as text. The other figures and rows stay as they are.

    >>> _table([{"turn": 1, "gold": 10**30}, {"turn": 2, "gold": 7}]).to_pylist()
    [{'turn': 1, 'gold': None}, {'turn': 2, 'gold': 7}]
    """
    if not rows:
        return None
    try:
        return pa.Table.from_pylist(rows)
    except (OverflowError, pa.ArrowInvalid, pa.ArrowTypeError):
        pass
    columns: dict[str, pa.Array] = {}
    for name in dict.fromkeys(k for r in rows for k in r):
        values = [_fit(r.get(name)) for r in rows]
        try:
            columns[name] = pa.array(values)
        except (OverflowError, pa.ArrowInvalid, pa.ArrowTypeError):
            columns[name] = pa.array([None if v is None else str(v) for v in values], pa.string())
    return pa.table(columns)


def _fit(value: Any) -> Any:
    """``value`` with every integer outside BIGINT's range (inside lists and mappings too) made None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value if INT64_MIN <= value <= INT64_MAX else None
    if isinstance(value, (list, tuple)):
        return [_fit(v) for v in value]
    if isinstance(value, dict):
        return {k: _fit(v) for k, v in value.items()}
    return value


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
    """An in-memory DuckDB database holding the catalog of every campaign under ``root``.

    ``folded`` lists the campaigns this open folded (in full, or, those also in ``extended``, only
    the events appended since their kept projection); every other campaign came from its cache
    after its log was checked.
    """

    def __init__(self, root: Path, *, viewer: str = "gm", campaigns: Sequence[Path] | None = None,
                 progress: Progress | None = None) -> None:
        self.root = Path(root)
        self.viewer = viewer
        self.con = duckdb.connect(":memory:")
        self.warnings: list[str] = []
        self.progress = progress
        self.folded: list[str] = []
        self.extended: list[str] = []
        self.from_root: int = 0
        """How many campaigns this open took from the root record (checked by their files' identities only)."""
        explicit = [Path(c) for c in campaigns] if campaigns is not None else None
        self._record_path = pcache.root_path(self.root, viewer, explicit)
        self._load(explicit if explicit is not None else find_campaigns(self.root))
        self.threads = self._useful_threads()
        """How many threads a query can use here: one while every table fits in one row group (``ROW_GROUP``)."""
        self.con.execute(f"SET threads = {self.threads}")

    def _useful_threads(self) -> int:
        biggest = max((int(n) for (n,) in self.con.execute(
            "SELECT estimated_size FROM duckdb_tables()").fetchall()), default=0)
        return 1 if biggest < ROW_GROUP else max(1, os.cpu_count() or 1)

    def _load(self, folders: list[Path]) -> None:
        """Fill the tables: each campaign from the root record when its files are exactly as recorded, else
        through its own projection (``_project``: its whole log checked); then keep a new root record if
        anything was not taken from it."""
        con = self.con
        event_tables: list[pa.Table] = []
        camp_rows: list[dict[str, Any]] = []
        states_by_rs: dict[str, list[pa.Table]] = {}
        seen: dict[str, Path] = {}
        record = pcache.load_root(self._record_path, self.viewer)
        kept: dict[str, pcache.RootEntry] = {}
        presorted = False
        for i, folder in enumerate(folders, start=1):
            if self.progress is not None:
                self.progress(i, len(folders), folder.name)
            key = str(folder)
            entry = record.entries.get(key) if record is not None else None
            if entry is not None and entry.campaign not in seen \
                    and pcache.folder_identity(folder) == entry.identity:
                self.from_root += 1
            else:
                entry = None
                before = pcache.folder_identity(folder)
                try:
                    proj = self._project(folder, seen)
                except KingdomlogError as exc:
                    self.warnings.append(f"{folder}: skipped: {exc}")
                    continue
                if proj is None:
                    continue
                after = pcache.folder_identity(folder)
                if before is not None and after is not None and _same_log(before, after):
                    entry = pcache.RootEntry(proj.campaign, proj.ruleset, after, proj.row, proj.events, proj.states)
                else:  # changed while it was checked, or too recently to trust its identity: not kept
                    entry = pcache.RootEntry(proj.campaign, proj.ruleset, [], proj.row, proj.events, proj.states)
            kept[key] = entry
            seen[entry.campaign] = folder
            event_tables.append(entry.events)
            if entry.states is not None and entry.states.num_rows:
                states_by_rs.setdefault(entry.ruleset, []).append(entry.states)
            camp_rows.append(entry.row)
        if record is not None and self.from_root == len(kept) and kept.keys() == record.entries.keys():
            # all of it, as recorded: the record's own tables, not a thousand slices of them
            event_tables = [record.events] if record.events is not None else []
            states_by_rs = {rid: [t] for rid, t in record.states.items() if t is not None and t.num_rows}
            presorted = True
        elif kept:
            pcache.save_root(self._record_path, self.viewer,
                             {k: e for k, e in kept.items() if e.identity})
        events = pa.concat_tables(event_tables) if event_tables else codec.schema().empty_table()
        con.register("_events", events)
        con.execute("CREATE TABLE events AS SELECT * FROM _events"
                    + ("" if presorted else " ORDER BY campaign, seq"))  # the record's table is in this order
        con.unregister("_events")
        if camp_rows:
            con.register("_c", pa.Table.from_pylist(camp_rows))
            con.execute("CREATE TABLE campaigns AS SELECT * FROM _c")
            con.unregister("_c")
        else:
            con.execute("CREATE TABLE campaigns (campaign VARCHAR, name VARCHAR, ruleset VARCHAR, folder VARCHAR,"
                        " options VARCHAR, events BIGINT, head_seq BIGINT, last_turn INTEGER)")
        known = list(self._rulesets())
        self._load_states(states_by_rs, known)
        con.execute(resources.files("kingdomlog.projections").joinpath("sql/turns.sql").read_text())
        for rid, views, _proto in known:
            for name, sql in views.items():
                try:
                    body = sql.strip().rstrip(";")
                    if body.upper().startswith("CREATE"):
                        con.execute(body)
                    else:
                        con.execute(f"CREATE VIEW {name} AS {body}")
                except duckdb.Error as exc:
                    self.warnings.append(f"view {name} ({rid}) not created: {exc}")

    # ---- one campaign --------------------------------------------------------------------

    def _project(self, folder: Path, seen: dict[str, Path]) -> pcache.Projection | None:
        """The campaign's projection: the kept one if it still holds (extended by the events appended since),
        else folded afresh (and kept)."""
        try:
            toml = (folder / CONFIG_FILE).read_bytes()
        except OSError:
            toml = None
        got = pcache.load(folder, self.viewer) if toml is not None else None
        if got is not None and toml is not None:
            proj, toml_sha = got
            if proj.campaign in seen:
                self._duplicate(folder, proj.campaign, seen)
                return None
            fp = pcache.fingerprint(folder, toml, proj.ruleset, self.viewer, proj.config) \
                if toml_sha == hashlib.sha256(toml).hexdigest() else None
            if fp is not None and fp == proj.fingerprint:
                log = EventLog(folder / "log", proj.campaign, cache_dir=folder / ".cache")
                tail = log.read_after(proj.head_seq)  # checks the whole log; a fault raises here
                if tail.hash_at == proj.head_hash and tail.config == proj.config:
                    if tail.table is None:
                        return proj
                    more = self._extend(folder, proj, tail)
                    if more is not None:
                        pcache.save(folder, self.viewer, more, toml_sha)
                        self.folded.append(proj.campaign)
                        self.extended.append(proj.campaign)
                        return more
        camp = Campaign.open(folder)
        if camp.id in seen:
            self._duplicate(folder, camp.id, seen)
            return None
        proj = self._build(camp, toml or b"")
        if toml is not None and proj.fingerprint:
            pcache.save(folder, self.viewer, proj, hashlib.sha256(toml).hexdigest())
        self.folded.append(camp.id)
        return proj

    def _duplicate(self, folder: Path, cid: str, seen: dict[str, Path]) -> None:
        self.warnings.append(f"{folder}: skipped: campaign id {cid!r} is already loaded from {seen[cid]} (a copy?)")

    def _build(self, camp: Campaign, toml: bytes) -> pcache.Projection:
        """Fold the whole campaign."""
        rs = camp.ruleset
        v = camp.viewer(self.viewer)
        table = camp.log.read_table()
        events = codec.decode_table(table)
        start = rs.initial_state(camp.context)
        rows, final = _rows(camp.id, rs, v, start, events, None, 0)
        mine = events if v.is_gm else renumber(filter_visible(events, v))
        if not v.is_gm:  # the viewer's own numbering: nothing shows where hidden events sit
            table = codec.table_of(mine)
        head = events[-1] if events else None
        vhead = mine[-1] if mine else None
        config = [events[0].type, events[0].version, events[0].payload_text] if events else None
        retracted = sorted({c for ev in events if isinstance(ev.payload, TurnRetracted) for c in ev.payload.commit_ids})
        proj = pcache.Projection(
            camp.id, rs.id, table, _table(rows),
            self._row(camp.id, camp.config.name, rs.id, camp.folder, camp.config.options, table.num_rows,
                      vhead.seq if vhead else 0, rows[-1]["turn"] if rows else None),
            head.seq if head else 0, head.hash if head else GENESIS_HASH, vhead.seq if vhead else 0,
            vhead.hash if vhead else GENESIS_HASH, _dump(final), retracted, config)
        proj.fingerprint = pcache.fingerprint(camp.folder, toml, rs.id, self.viewer, config) or ""
        return proj

    def _extend(self, folder: Path, proj: pcache.Projection, tail: TailRead) -> pcache.Projection | None:
        """``proj`` with the events appended after it folded in; None when that cannot stand for a full fold.

        Only appends qualify: a retraction among the new events (it changes earlier turns), a
        retraction of an earlier commit found anywhere, or a kept state that no longer validates
        make the campaign fold again in full.
        """
        if tail.table is None or proj.state is None or sorted(tail.retracted) != sorted(proj.retracted):
            return None
        events = codec.decode_table(tail.table)
        if any(isinstance(ev.payload, TurnRetracted) for ev in events):
            return None
        rs = find_ruleset(proj.ruleset)
        camp = Campaign.open(folder)
        if camp.id != proj.campaign or camp.ruleset is not rs:
            return None
        try:
            start: State = type(rs.initial_state(camp.context)).model_validate(proj.state)
            v = camp.viewer(self.viewer)
        except (KingdomlogError, ValueError):
            return None
        rows, final = _rows(proj.campaign, rs, v, start, events, frozenset(proj.retracted), proj.viewer_seq)
        old = proj.states.to_pylist() if proj.states is not None else []
        live = [ev for ev in events if not ev.type.startswith("core.") and ev.commit_id not in tail.retracted]
        if live and old and old[-1]["turn"] == live[0].turn:
            old.pop()  # that turn goes on in the new events: its row is emitted again, at its new end
        all_rows = old + rows
        if v.is_gm:
            new_table = tail.table
            vseq, vhash = tail.head_seq, tail.head_hash
        else:
            mine = _renumber_from(filter_visible(events, v), proj.viewer_seq, proj.viewer_hash)
            new_table = codec.table_of(mine)
            vseq, vhash = (mine[-1].seq, mine[-1].hash) if mine else (proj.viewer_seq, proj.viewer_hash)
        table = pa.concat_tables([proj.events, new_table]) if new_table.num_rows else proj.events
        row = dict(proj.row, events=table.num_rows, head_seq=vseq,
                   last_turn=all_rows[-1]["turn"] if all_rows else None)
        return pcache.Projection(proj.campaign, proj.ruleset, table, _table(all_rows), row, tail.head_seq,
                                 tail.head_hash, vseq, vhash, _dump(final), proj.retracted, proj.config,
                                 proj.fingerprint)

    @staticmethod
    def _row(cid: str, name: str, rid: str, folder: Path, options: dict[str, Any], events: int, head_seq: int,
             last_turn: int | None) -> dict[str, Any]:
        return {"campaign": cid, "name": name, "ruleset": rid, "folder": str(folder),
                "options": json.dumps(options, sort_keys=True), "events": events, "head_seq": head_seq,
                "last_turn": last_turn}

    # ---- the rulesets ----------------------------------------------------------------------

    def _rulesets(self) -> Iterator[tuple[str, dict[str, str], dict[str, Any]]]:
        """(id, views, prototype ``states`` row) of every ruleset, by id, importing none that is not needed.

        Registered rulesets answer themselves; a bundled one not imported yet answers from its
        descriptor (``projections.cache.descriptor``, kept per package digest); entry points, if
        any are installed, are loaded.
        """
        from importlib.metadata import entry_points

        from kingdomlog.rulesets import BUNDLED

        if list(entry_points(group="kingdomlog.rulesets")):
            from kingdomlog.core.ruleset import all_rulesets

            all_rulesets()
        have = {rs.id: rs for rs in registered_rulesets()}
        ids = sorted(set(have) | {b.id for b in BUNDLED})
        for rid in ids:
            rs = have.get(rid)
            if rs is not None:
                yield rid, dict(rs.sql_views()), _summary_columns(rs)
                continue

            def build(rid: str = rid) -> dict[str, Any]:
                r = find_ruleset(rid)
                return {"views": dict(r.sql_views()), "proto": _summary_columns(r)}

            try:
                doc = pcache.descriptor(rid, build)
            except KingdomlogError as exc:
                self.warnings.append(f"ruleset {rid}: {exc}")
                continue
            yield rid, dict(doc["views"]), dict(doc["proto"])

    def _load_states(self, by_rs: dict[str, list[pa.Table]],
                     known: list[tuple[str, dict[str, str], dict[str, Any]]]) -> None:
        con = self.con
        parts = []
        base = {"campaign": "x", "ruleset": "x", "turn": 0, "last_seq": 0, "state_json": "{}"}
        for i, (rid, _views, proto_cols) in enumerate(known):
            tables = by_rs.get(rid, [])
            if not tables:
                proto = dict(base, ruleset=rid)
                proto.update(proto_cols)
                t = pa.Table.from_pylist([proto]).slice(0, 0)
            else:
                try:
                    t = pa.concat_tables(tables, promote_options="default")
                except (pa.ArrowInvalid, pa.ArrowTypeError):
                    rows = [r for tb in tables for r in tb.to_pylist()]
                    try:
                        t = pa.Table.from_pylist(rows)
                    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
                        self.warnings.append(f"states of {rid}: mixed column types ({exc}); stored as text")
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


def _same_log(before: list[Any], after: list[Any]) -> bool:
    """Whether two ``folder_identity`` readings agree on everything but the recorded head (which a check may
    move forward)."""
    def strip(x: list[Any]) -> list[Any]:
        return [e for e in x if e[0] != HEAD_REL]

    return strip(before) == strip(after)


def _dump(state: State) -> dict[str, Any] | None:
    try:
        out: dict[str, Any] = state.model_dump(mode="json")
        return out
    except Exception:  # a state that cannot be kept as JSON: the next change folds in full
        return None


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
            con.execute(f"SET threads = {max(1, min(int(threads), self.catalog.threads))}")
        except duckdb.Error as exc:
            raise InputError(f"SQL console settings: {_first_line(exc)}") from None
        con.execute("SET autoinstall_known_extensions = false")
        con.execute("SET autoload_known_extensions = false")
        con.execute("SET allow_community_extensions = false")
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
        self._checked: OrderedDict[str, list[Any]] = OrderedDict()
        # parsed once: the pair costs ~0.07 ms a query (0.12 ms from their text)
        self._begin, self._rollback = con.extract_statements("BEGIN TRANSACTION READ ONLY; ROLLBACK")
        self._watchdog = _Watchdog(con)

    @property
    def warnings(self) -> list[str]:
        return self.catalog.warnings

    def check(self, sql: str) -> list[Any]:
        """Refuse every statement but SELECT and EXPLAIN of one SELECT, by each statement's parsed type;
        the parsed statements when admitted (kept for the next run of the same text).

        DESCRIBE, SUMMARIZE, SHOW, FROM-first, VALUES and WITH queries parse as SELECT; a SELECT
        is then read whole as DuckDB parsed it (``_check_tree``), so a write in its WITH clause is
        refused too. EXPLAIN ANALYZE (``ANALYSE``, ``(ANALYZE)``, ``(FORMAT json, ANALYZE)``, with comments
        between the words) is refused: it runs the statement.
        """
        if not isinstance(sql, str) or not sql.strip():
            raise SqlRefusedError("empty query")
        done = self._checked.get(sql)
        if done is not None:
            self._checked.move_to_end(sql)
            return done
        stmts = self._statements(sql)
        for st in stmts:
            kind = self._kind(st)
            if kind == "EXPLAIN":
                self._check_explain(st.query)
            elif kind not in ALLOWED:
                raise SqlRefusedError(f"the SQL console is read-only: {kind} statements are refused (only SELECT,"
                                      " EXPLAIN of a SELECT, DESCRIBE, SUMMARIZE)")
            else:
                self._check_tree(st.query)
        self._checked[sql] = stmts
        if len(self._checked) > CHECKED_STATEMENTS:
            self._checked.popitem(last=False)
        return stmts

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
        self._check_tree(inner[0].query)

    def _check_tree(self, text: str) -> None:
        """Refuse a SELECT statement that holds anything but reading anywhere in its parse tree (a DELETE, UPDATE,
        INSERT, TRUNCATE or COPY in a WITH clause, however deep): every query node must be one of ``READ_NODES``.

        The tree is DuckDB's own parse of ``text`` (``json_serialize_sql``); a statement DuckDB cannot serialize
        cannot be checked and is refused.
        """
        try:
            row = self.con.execute("SELECT json_serialize_sql(?)", [text]).fetchone()
            tree = json.loads(row[0]) if row is not None else None
        except (duckdb.Error, ValueError) as exc:
            raise SqlRefusedError(f"cannot check the query: {_first_line(exc)}") from None
        if not isinstance(tree, dict) or tree.get("error") is not False:
            why = tree.get("error_message") if isinstance(tree, dict) else None
            raise SqlRefusedError(f"the SQL console cannot check this statement, so it is refused"
                                  f" ({why or 'no parse'})")
        found = _query_nodes(tree)
        bad = sorted(found - READ_NODES)
        if bad:
            what = " and ".join(n.removesuffix("_NODE").removesuffix("_QUERY").replace("_", " ") for n in bad)
            raise SqlRefusedError(f"the SQL console is read-only: {what} inside a query is refused (a WITH clause may"
                                  " hold only SELECTs)")

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
        what = self._runnable(sql)

        def run() -> QueryResult:
            cur = self.con.execute(what)
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
        what = self._runnable(sql)

        def run() -> pa.Table:
            rel = self.con.sql(what)  # a relation straight to Arrow (a DB-API result would copy the rows once more)
            return rel.to_arrow_table() if rel is not None else pa.table({})

        table: pa.Table = self._guard(run)
        return table

    def _runnable(self, sql: str) -> Any:
        """What to run for ``sql`` once checked: its one statement as parsed, or the text (several statements run
        as DuckDB runs them)."""
        stmts = self.check(sql)
        return stmts[0] if len(stmts) == 1 else sql

    def _guard(self, fn: Any) -> Any:
        """Run ``fn`` under the time limit, inside a read-only transaction that is then rolled back (so a write no
        check foresaw is refused by DuckDB itself, and nothing a statement did outlives it); DuckDB's errors as
        one-line ``SqlRefusedError`` / ``InputError``."""
        self._watchdog.arm(self.timeout)
        try:
            self.con.execute(self._begin)
            try:
                return fn()
            finally:
                try:
                    self.con.execute(self._rollback)
                except duckdb.TransactionException as exc:  # only a COMMIT or ROLLBACK could end it: refused above
                    raise InternalError(f"the SQL console's read-only transaction ended under a query: {exc}") \
                        from None
        except duckdb.InterruptException:
            raise SqlRefusedError(f"query interrupted after {self.timeout:g} s (time limit)") from None
        except duckdb.OutOfMemoryException:
            raise SqlRefusedError(f"the query needs more memory than the console's limit ({self.memory_limit});"
                                  " narrow it (WHERE, LIMIT, fewer columns) or raise --memory-limit") from None
        except duckdb.PermissionException as exc:
            raise SqlRefusedError(f"refused: the console cannot read or write files: {_first_line(exc)}") from None
        except duckdb.TransactionException as exc:
            if "read-only" not in str(exc):
                raise InputError(f"SQL error: {_first_line(exc)}") from None
            raise SqlRefusedError("the SQL console is read-only: DuckDB refused the query's write"
                                  f" ({_first_line(exc).removeprefix('TransactionContext Error: ')})") from None
        except duckdb.Error as exc:
            raise InputError(f"SQL error: {_first_line(exc)}") from None
        finally:
            self._watchdog.disarm()


class _Watchdog:
    """Interrupts the connection's query once it runs past its deadline: one thread per console.

    A ``threading.Timer`` per query started a thread each time (~0.2 ms, a third of DuckDB's whole
    answer on a small catalog). This thread sleeps until the armed deadline (a later deadline armed
    meanwhile only moves it on), ends after ``WATCHDOG_IDLE`` seconds with nothing armed, and holds
    the connection weakly, so a console that is dropped is not kept alive by it.
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


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
