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

The console (``SafeConsole``) hands the catalog to a process of its own (``projections.sqlworker``),
where every query is checked (by statement type and by DuckDB's own parse tree: a WITH clause
holding a DELETE, UPDATE, INSERT, TRUNCATE or COPY is refused) and run in a read-only transaction
rolled back after it, with no directory, no file access, no extensions and a locked
configuration. The limits hold there whatever DuckDB does: the process's address space is capped
at the loaded catalog plus the memory limit (and ``sqlworker.HEADROOM``), and a query still
running ``GRACE`` seconds past its time limit ends with its process. See ``sqlworker`` for the
checks and why each is needed.
"""

from __future__ import annotations

import bisect
import contextlib
import csv
import hashlib
import io
import itertools
import json
import os
import pickle
import re
import socket
import subprocess
import sys
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from importlib import resources
from multiprocessing.connection import Connection
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

MEMORY_LIMIT = "1GB"
"""The console's own memory limit (DuckDB's default is 80% of the machine)."""
THREADS = 2
ROW_GROUP = 122_880
"""DuckDB's row group: a scan is split across threads by row groups, so a table smaller than one is read by
one thread whatever ``threads`` says, and more threads only add scheduling (0.15-0.2 ms a small grouped query,
measured here)."""
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
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
        # one thread while the tables are built (a copy of Arrow tables in order: a second thread only adds its
        # scheduling, twice the CPU measured); ``threads`` below is set once the tables' sizes are known
        self.con = duckdb.connect(":memory:", config={"threads": 1})
        self.warnings: list[str] = []
        self.progress = progress
        self.folded: list[str] = []
        self.extended: list[str] = []
        self.from_root: int = 0
        """How many campaigns this open took from the root record (checked by their files' identities only)."""
        self._biggest = 0  # the rows of the largest table made
        self.ddl: list[str] = []
        """The statements that made the views (and whatever else) over the tables, in order: the console makes the
        same catalog again in its query process from the tables and these."""
        explicit = [Path(c) for c in campaigns] if campaigns is not None else None
        self._record_path = pcache.root_path(self.root, viewer, explicit)
        self._load(explicit if explicit is not None else find_campaigns(self.root))
        self.threads = 1 if self._biggest < ROW_GROUP else max(1, os.cpu_count() or 1)
        """How many threads a query can use here: one while every table fits in one row group (``ROW_GROUP``)."""
        if self.threads != 1:
            self.con.execute(f"SET threads = {self.threads}")

    def _load(self, folders: list[Path]) -> None:
        """Fill the tables: each campaign from the root record when its files are exactly as recorded, else
        through its own projection (``_project``: its whole log checked); then, if anything was not taken from
        it, keep the root as it is now: a delta over the record while that is small, else the record whole
        (``projections.cache.update_root``), so one more turn in one of many campaigns writes that campaign's
        rows (and the record's folders gone), not every campaign's rows again."""
        con = self.con
        camp_rows: list[dict[str, Any]] = []
        seen: dict[str, Path] = {}
        # the record is read and its HMAC checked (both without the GIL: ~70 ms of 55 MB at 1,000 campaigns) in a
        # thread while this one takes the identity of every folder (stat calls): the two overlap instead of adding up
        got: list[pcache.RootRecord | None] = []
        reader = threading.Thread(target=lambda: got.append(pcache.load_root(self._record_path, self.viewer)),
                                  name="kingdomlog-catalog-root", daemon=True)
        reader.start()
        try:
            identities = [pcache.folder_identity(folder) for folder in folders]
        finally:
            reader.join()
        record = got[0] if got else None
        kept: dict[str, pcache.RootEntry] = {}
        for i, folder in enumerate(folders, start=1):
            if self.progress is not None:
                self.progress(i, len(folders), folder.name)
            key = str(folder)
            entry = record.entries.get(key) if record is not None else None
            before = identities[i - 1]  # taken before anything of this folder was read
            if entry is not None and entry.campaign not in seen and pcache.identity_key(before) == entry.identity:
                self.from_root += 1
            else:
                entry = None
                try:
                    proj = self._project(folder, seen)
                except KingdomlogError as exc:
                    self.warnings.append(f"{folder}: skipped: {exc}")
                    continue
                if proj is None:
                    continue
                after = pcache.folder_identity(folder)
                # changed while it was checked, or too recently to trust its identity: not kept ("")
                same = before is not None and after is not None and _same_log(before, after)
                entry = pcache.RootEntry(proj.campaign, proj.ruleset, pcache.identity_key(after) if same else "",
                                         proj.row, _by_seq(proj.events), proj.states)
            kept[key] = entry
            seen[entry.campaign] = folder
            camp_rows.append(entry.row)
        if kept and not (record is not None and self.from_root == len(kept)
                         and kept.keys() == record.entries.keys()):
            pcache.update_root(self._record_path, self.viewer, {k: e for k, e in kept.items() if e.identity},
                               record)
        # the tables in catalog order, each campaign's events by seq: runs of campaigns that sit side by side in
        # the record are one slice of its table (an unchanged root: the record's own tables, not a thousand slices)
        order = sorted(kept.items(), key=lambda kv: (kv[1].campaign, kv[0]))
        tables = record.tables if record is not None else {}
        event_tables = _runs([(None, tables[e.origin[0]][0], e.origin[1], e.n_events) if e.origin else
                              (e.events, None, 0, e.n_events) for _f, e in order])
        states_by_rs: dict[str, list[tuple[pa.Table | None, pa.Table | None, int, int]]] = {}
        for _f, e in order:
            n = e.n_states
            if n:
                parent = tables[e.origin[0]][1].get(e.ruleset) if e.origin else None
                states_by_rs.setdefault(e.ruleset, []).append(
                    (None, parent, e.origin[2], n) if e.origin and parent is not None else (e.states, None, 0, n))
        events = pa.concat_tables(event_tables) if event_tables else codec.schema().empty_table()
        con.register("_events", events)
        con.execute("CREATE TABLE events AS SELECT * FROM _events")  # in (campaign, seq) order already
        con.unregister("_events")
        self._biggest = max(events.num_rows, len(camp_rows))
        if camp_rows:
            con.register("_c", pa.Table.from_pylist(camp_rows))
            con.execute("CREATE TABLE campaigns AS SELECT * FROM _c")
            con.unregister("_c")
        else:
            con.execute("CREATE TABLE campaigns (campaign VARCHAR, name VARCHAR, ruleset VARCHAR, folder VARCHAR,"
                        " options VARCHAR, events BIGINT, head_seq BIGINT, last_turn INTEGER)")
        known = list(self._rulesets())
        self._load_states({rid: _runs(parts) for rid, parts in states_by_rs.items()}, known)
        turns = resources.files("kingdomlog.projections").joinpath("sql/turns.sql").read_text()
        con.execute(turns)
        self.ddl.append(turns)
        for rid, views, _proto in known:
            for name, sql in views.items():
                body = sql.strip().rstrip(";")
                statement = body if body.upper().startswith("CREATE") else f"CREATE VIEW {name} AS {body}"
                try:
                    con.execute(statement)
                except duckdb.Error as exc:
                    self.warnings.append(f"view {name} ({rid}) not created: {exc}")
                else:
                    self.ddl.append(statement)

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
        filled: list[pa.Table] = []
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
                if t.num_rows:
                    filled.append(t)
            name = f"_s{i}"
            con.register(name, t)
            parts.append(f"SELECT * FROM {name}")
        if parts:
            # rows already in (campaign, turn) order, as one ruleset's are when taken from the root record, need no
            # sort (a sort of every state's JSON text)
            order = "" if len(filled) <= 1 and all(_in_order(t) for t in filled) else " ORDER BY campaign, turn"
            con.execute("CREATE TABLE states AS " + " UNION ALL BY NAME ".join(parts) + order)
            self._biggest = max(self._biggest, sum(t.num_rows for t in filled))
        else:
            con.execute("CREATE TABLE states (campaign VARCHAR, ruleset VARCHAR, turn INTEGER, last_seq BIGINT,"
                        " state_json VARCHAR)")
        for i in range(len(parts)):
            con.unregister(f"_s{i}")


def _in_order(table: pa.Table) -> bool:
    """Whether the ``states`` rows of ``table`` are in (campaign, turn) order, each pair once.

    In Python, not ``pyarrow.compute``: importing that costs an unchanged open more (~50 ms) than the check.
    """
    if table.num_rows < 2:
        return True
    pairs = zip(table.column("campaign").to_pylist(), table.column("turn").to_pylist(), strict=True)
    try:
        return all(a < b for a, b in itertools.pairwise(pairs))
    except TypeError:  # a NULL, or values of mixed kinds: sorted as before
        return False


def _by_seq(table: pa.Table) -> pa.Table:
    """``table`` in ``seq`` order (as it is, when it already is)."""
    import pyarrow.compute as pc

    seq = table.column("seq")
    if len(seq) < 2 or pc.all(pc.greater(seq.slice(1), seq.slice(0, len(seq) - 1))).as_py():
        return table
    return table.sort_by("seq")


def _runs(parts: list[tuple[pa.Table | None, pa.Table | None, int, int]]) -> list[pa.Table]:
    """``parts`` (a table of its own, or the table it is a slice of and where in it it starts; its rows), with each
    run of slices that sit side by side in the same table made one slice of it."""
    out: list[pa.Table] = []
    run: list[Any] | None = None  # [parent, start, length]
    for table, parent, start, rows in parts:
        if parent is not None and run is not None and run[0] is parent and run[1] + run[2] == start:
            run[2] += rows
            continue
        if run is not None:
            out.append(run[0] if run[1] == 0 and run[2] == run[0].num_rows else run[0].slice(run[1], run[2]))
            run = None
        if parent is None:
            assert table is not None
            out.append(table)
        else:
            run = [parent, start, rows]
    if run is not None:
        out.append(run[0] if run[1] == 0 and run[2] == run[0].num_rows else run[0].slice(run[1], run[2]))
    return out


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

    The catalog is built here (``Catalog``) and handed to a process of its own
    (``projections.sqlworker``), which checks every query and runs it in a read-only transaction
    under the console's limits: ``memory_limit`` is DuckDB's, and that process's address space
    may grow past the loaded catalog by no more than it plus ``sqlworker.HEADROOM``; ``threads``
    is DuckDB's thread count (DuckDB would take 80% of the machine and every core); ``timeout``
    bounds each query, its fetch and its formatting: DuckDB is interrupted at the limit, and a
    query still running ``GRACE`` seconds past it ends with its process (the next query starts a
    new one over the catalog as it is then). ``keep``: ``query`` serves the result of a text it ran before
    on the same catalog again when that is the same answer (``KEPT_RESULTS``). Errors: ``SqlRefusedError`` for a
    refused or stopped query, ``InputError`` for a SQL error, each one line. ``close()`` ends the process (so
    does dropping the console, and the interpreter's exit).
    """

    def __init__(self, root: Path, *, viewer: str = "gm", timeout: float = 30.0,
                 campaigns: Sequence[Path] | None = None, progress: Progress | None = None,
                 memory_limit: str = MEMORY_LIMIT, threads: int = THREADS, keep: bool = True) -> None:
        self.timeout = timeout
        self.keep = keep
        """Whether results are kept and served again (``KEPT_RESULTS``); False runs every query."""
        self.memory_limit = memory_limit
        self._limit_bytes = memory_bytes(memory_limit)
        self._threads = int(threads)
        self._open = (Path(root), viewer, list(campaigns) if campaigns is not None else None)
        self._lock = threading.Lock()
        self._local: duckdb.DuckDBPyConnection | None = None
        self._worker: _Worker | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self.warnings: list[str] = []
        self.threads = 1
        """The threads a query uses: the caller's, at most one while every table fits in one row group."""
        self._kept: OrderedDict[str, bytes] = OrderedDict()
        self.kept_served = 0
        """How many ``query`` calls were answered from a kept result (``KEPT_RESULTS``)."""
        self._start(progress)

    def _start(self, progress: Progress | None) -> None:
        """Build the catalog and start a query process over it (the catalog's own connection is closed after)."""
        worker = _Worker.spawn()  # it starts Python while the catalog is built
        try:
            root, viewer, campaigns = self._open
            catalog = Catalog(root, viewer=viewer, campaigns=campaigns, progress=progress)
            try:
                self.warnings[:] = catalog.warnings
                self.threads = max(1, min(self._threads, catalog.threads))
                worker.load(catalog, {"memory_limit": self.memory_limit, "threads": self.threads,
                                      "limit_bytes": self._limit_bytes})
            finally:
                catalog.con.close()
        except BaseException:
            worker.stop()
            raise
        self._worker = worker
        self._finalizer = weakref.finalize(self, worker.stop)  # dropped, or the interpreter exits: it ends

    def close(self) -> None:
        """End the query process (a later query starts a new one)."""
        with self._lock:
            self._drop()

    def _drop(self) -> str:
        """End the query process, if one runs, and the results kept of its catalog; how it ended."""
        self._kept.clear()
        worker, self._worker = self._worker, None
        if worker is None:
            return "not running"
        if self._finalizer is not None:
            self._finalizer.detach()
        return worker.stop()

    def __enter__(self) -> SafeConsole:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        """The query process's id (None when none runs: the next query starts one)."""
        w = self._worker
        return w.proc.pid if w is not None and w.proc.poll() is None else None

    def check(self, sql: str) -> None:
        """Refuse ``sql`` (``SqlRefusedError``) unless every statement in it is a SELECT, or an EXPLAIN of one, with
        nothing but reading anywhere in its parse tree (``sqlworker.Engine.check``); runs nothing."""
        self._ask("check", sql)

    def query(self, sql: str) -> QueryResult:
        """Run a read-only query with a time limit; ``SqlRefusedError`` when refused or interrupted.

        The result of a text already run on this catalog is served again when it may be kept (``KEPT_RESULTS``).
        """
        with self._lock:
            kept = self._kept.get(sql)
            if kept is not None and self._worker is not None and self._worker.proc.poll() is None:
                self._kept.move_to_end(sql)
                self.kept_served += 1
                cols, rows = pickle.loads(kept)[1]  # new objects each time: a caller's change reaches no other
                return QueryResult(cols, rows)
        cols, rows = self._ask("rows", sql)
        return QueryResult(cols, rows)

    def run(self, sql: str, fmt: str = "table") -> str:
        """The query's result as text (``table``, ``csv``, ``json``), query and formatting within one time limit."""
        deadline = time.monotonic() + self.timeout
        result = self.query(sql)
        if time.monotonic() > deadline:
            raise SqlRefusedError(f"query took longer than the time limit ({self.timeout:g} s)")
        return result.format(fmt, deadline=deadline)

    def arrow(self, sql: str) -> pa.Table:
        """A read-only query's result as an Arrow table."""
        table: pa.Table = self._ask("arrow", sql)
        return table

    def relation(self, sql: str) -> duckdb.DuckDBPyRelation:
        """The query's result as a DuckDB relation (checked first); for notebooks.

        The query runs in the console's process, under its limits, and the relation is over its
        materialised result, in a connection of its own here (locked like the console's, and
        holding nothing else): a lazy relation would run later, outside every limit.
        """
        table = self.arrow(sql)
        if self._local is None:
            local = duckdb.connect(":memory:")
            for setting in ("temp_directory = ''", "enable_external_access = false", "lock_configuration = true"):
                local.execute(f"SET {setting}")
            self._local = local
        return self._local.from_arrow(table)

    def _ask(self, op: str, sql: str) -> Any:
        """One request to the query process, answered within the time limit (plus ``GRACE``); the process is
        ended when it is not, or when it failed, and started again for the next request."""
        with self._lock:
            if self._worker is None or self._worker.proc.poll() is not None:
                self._drop()
                self._start(None)
            worker = self._worker
            assert worker is not None
            try:
                reply, raw = worker.ask(op, sql, self.timeout, self.timeout + GRACE)
            except TimeoutError:
                self._drop()
                raise SqlRefusedError(f"query interrupted after {self.timeout:g} s (time limit)") from None
            except (EOFError, OSError, pickle.UnpicklingError):
                how = self._drop()
                raise SqlRefusedError(f"the query ended the console's query process ({how}); it may need more memory"
                                      f" than the console's limit ({self.memory_limit})") from None
            if op == "rows" and self.keep and reply[0] == "ok" and reply[2] and len(raw) <= KEPT_BYTES:
                self._kept[sql] = raw
                if len(self._kept) > KEPT_RESULTS:
                    self._kept.popitem(last=False)
        kind, value = reply[:2]
        if kind == "ok":
            return value
        if kind == "refused":
            raise SqlRefusedError(value)
        if kind == "failed":
            raise InputError(value)
        raise InternalError(f"the SQL console's query process failed: {value}; this is a bug")


KEPT_RESULTS = 128
"""How many query results a console keeps, each served again for the same text while its catalog is open.

The catalog is made once, when the console starts its query process, and never changes under it (a log appended
to since is read by the next console, or by this one once its process is started again, which drops every kept
result): so while a query calls only functions that give the same result for the same arguments
(``sqlworker.Engine.keeps``: no clock, random draw or query id), running its text again would give the same rows.
A notebook re-running the same cell then costs an unpickling instead of DuckDB's fixed ~1 ms per statement. Only
``query`` keeps results (``arrow`` and ``relation`` run every time)."""
KEPT_BYTES = 256 * 1024
"""A result larger than this (pickled) is not kept."""
GRACE = 0.5
"""Seconds a query may run past its time limit (DuckDB interrupted at the limit) before the console ends its process:
an interrupt does not reach inside one function call (``list(range(100000000))``, ``list_sort`` of a huge list)."""
LOAD_TIMEOUT = 600.0
"""Seconds the console waits for its query process to load the catalog before it gives up."""


class _Worker:
    """A query process (``sqlworker.main``) and the console's end of the socket it answers on."""

    def __init__(self, proc: subprocess.Popen[bytes], conn: Connection) -> None:
        self.proc = proc
        self.conn = conn

    @classmethod
    def spawn(cls) -> _Worker:
        """Start a query process: the same interpreter and import path as this one, in ``/`` (it opens nothing in
        the working directory), isolated from ``PYTHON*`` variables."""
        ours, theirs = socket.socketpair()
        here = str(Path(__file__).resolve().parents[2])  # the folder holding this kingdomlog package
        paths = [here, *(p for p in sys.path if p and os.path.isabs(p))]
        code = (f"import sys; sys.path[:0] = {paths!r}; from kingdomlog.projections.sqlworker import main;"
                f" main({theirs.fileno()})")
        env = dict(os.environ, MALLOC_ARENA_MAX="2")  # glibc's arenas, reserved per thread, count in the address space
        try:
            proc = subprocess.Popen([sys.executable, "-I", "-c", code], pass_fds=(theirs.fileno(),), cwd="/",
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=env)
        except OSError as exc:
            ours.close()
            raise InputError(f"SQL console: cannot start its query process: {exc}") from None
        finally:
            theirs.close()
        return cls(proc, Connection(ours.detach()))

    def load(self, catalog: Catalog, settings: dict[str, Any]) -> None:
        """Send the catalog's tables (as Arrow) and view statements; wait until the process has them and is locked."""
        con = catalog.con
        names = [str(r[0]) for r in con.execute("SELECT table_name FROM duckdb_tables() WHERE NOT internal"
                                                 " ORDER BY table_name").fetchall()]
        try:
            self.conn.send(("load", settings, names, catalog.ddl))
            for name in names:
                table = con.sql(f'SELECT * FROM "{name}"').to_arrow_table()
                sink = pa.BufferOutputStream()
                with pa.ipc.new_stream(sink, table.schema) as writer:
                    writer.write_table(table)
                del table
                self.conn.send_bytes(sink.getvalue())
                del sink
            if not self.conn.poll(LOAD_TIMEOUT):
                raise TimeoutError
            kind, value = self.conn.recv()
        except (EOFError, OSError) as exc:  # TimeoutError too
            raise InputError(f"SQL console: its query process did not load the catalog ({self.stop()})") from exc
        if kind == "failed":
            raise InputError(value)
        if kind != "ready":
            raise InternalError(f"the SQL console's query process failed loading the catalog: {value}")

    def ask(self, op: str, sql: str, timeout: float, wait: float) -> tuple[tuple[Any, ...], bytes]:
        """Send one request; its reply within ``wait`` seconds (``TimeoutError`` if none), and its bytes."""
        self.conn.send((op, sql, timeout))
        if not self.conn.poll(wait):
            raise TimeoutError
        raw = self.conn.recv_bytes()
        reply: tuple[Any, ...] = pickle.loads(raw)
        return reply, raw

    def stop(self) -> str:
        """End the process (it holds nothing to keep: killed, not asked) and reap it; how it ended."""
        with contextlib.suppress(OSError):
            self.conn.close()
        if self.proc.poll() is None:
            with contextlib.suppress(OSError):
                self.proc.kill()
        code = self.proc.wait()
        return f"killed by signal {-code}" if code < 0 else f"exit status {code}"


def memory_bytes(text: str) -> int:
    """The bytes a memory limit such as ``512MB``, ``4 GB``, ``1GiB`` or ``25%`` (of this machine's memory) means,
    read as DuckDB reads it (KB, MB, GB, TB are powers of 1000; KiB, MiB, GiB, TiB of 1024); ``InputError`` if none.

    >>> memory_bytes("256MB"), memory_bytes("1 GiB"), memory_bytes("1.5gb")
    (256000000, 1073741824, 1500000000)
    >>> memory_bytes("lots")
    Traceback (most recent call last):
    ...
    kingdomlog.core.errors.InputError: memory limit 'lots': not a size (give one such as 512MB, 4GB or 25%)
    """
    m = re.fullmatch(r"\s*(\d+(?:\.\d*)?)\s*([A-Za-z%]*)\s*", str(text))
    unit = m.group(2).lower() if m else ""
    scale = _UNITS.get(unit.removesuffix("s") if unit.endswith("bytes") else unit)
    if m is None or (scale is None and unit != "%"):
        raise InputError(f"memory limit {text!r}: not a size (give one such as 512MB, 4GB or 25%)")
    number = float(m.group(1))
    if unit == "%":
        try:
            total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):
            raise InputError(f"memory limit {text!r}: this system does not say how much memory it has") from None
        return int(total * number / 100)
    assert scale is not None
    return int(number * scale)


_UNITS = {"b": 1, "byte": 1, "k": 10**3, "kb": 10**3, "kib": 2**10, "m": 10**6, "mb": 10**6, "mib": 2**20,
          "g": 10**9, "gb": 10**9, "gib": 2**30, "t": 10**12, "tb": 10**12, "tib": 2**40}
