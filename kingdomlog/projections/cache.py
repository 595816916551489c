"""The incremental catalog: each campaign's projection kept in its cache, checked like a snapshot.

A projection is what the catalog takes from one campaign for one viewer: its ``events`` rows (as
that viewer sees them), its ``states`` rows, its ``campaigns`` row, and the GM state at the log's
head (to fold on from). It is stored in ``<campaign>/.cache/catalog/<viewer>.arrow`` and used
only while three things hold, as for snapshots (``store.cache``):

- **the log it derives from**: the head it was built at is still in the log, with every file
  checked (``EventLog.read_after``: unchanged files by their identity or digest, others in full);
- **its own content**: the file carries an HMAC under this machine's key (``store.keys``);
- **the code and data behind it** (``fingerprint``): the catalog's code (core, store, app,
  projections), the ruleset's package files, ``campaign.toml``, the campaign's homebrew data
  and the options recorded at seq 1, and the viewer. None of it needs the ruleset imported, so
  a catalog over unchanged campaigns imports no ruleset at all.

When events were only appended since, the projection folds just those, from the state it
kept (the rows of turns before the first new one stay; ``tests/faults/test_catalog_cache.py``
checks the result equals a full fold); anything else (a retraction, a rewritten log, other
code) folds the campaign again. Deleting the cache changes nothing but speed.

For rulesets without a campaign under the root the catalog still creates their views and the
columns of their ``states`` rows; ``descriptor`` keeps those (per ruleset package digest, signed,
beside this machine's key) so they too need no import once known.

File layout: the HMAC line, one JSON header line, then the two Arrow IPC streams (events,
states) whose lengths the header gives.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kingdomlog.store import keys
from kingdomlog.store.cache import _package_files, _tree_digest, code_digest
from kingdomlog.store.log import HEAD_NAME

if TYPE_CHECKING:
    import pyarrow as pa

PROJECTION_FORMAT = 1
DESCRIPTOR_FORMAT = 1
PACKAGE = Path(__file__).resolve().parent.parent
CODE_PARTS = ("core", "store", "app", "projections")


@cache
def catalog_code_digest() -> str:
    """The digest of the code a projection is computed by (``kingdomlog/{core,store,app,projections}``), once."""
    files: list[Path] = []
    for part in CODE_PARTS:
        files += [p for p in (PACKAGE / part).rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    files.append(PACKAGE / "rulesets" / "__init__.py")
    return _tree_digest(files, PACKAGE)


@cache
def ruleset_digest(ruleset: str) -> str | None:
    """The digest of a ruleset's code and data without importing it (bundled: its package folder), or None.

    A ruleset that is not bundled is found among those registered (it was imported by whoever
    registered it); None when neither knows it (the catalog then opens the campaign normally).
    """
    from kingdomlog.core.ruleset import _bundled_package, _norm, registered

    pkg = _bundled_package(_norm(ruleset))
    if pkg is not None:
        folder = PACKAGE / "rulesets" / pkg
        return hashlib.sha256(_tree_digest(_package_files(folder), folder).encode()).hexdigest()
    rs = registered(ruleset)
    if rs is None:
        return None
    return code_digest(type(rs).__module__)


def _homebrew_digest(folder: Path) -> str:
    d = folder / "data"
    if not d.is_dir():
        return ""
    return _tree_digest([p for p in d.iterdir() if p.is_file()], d)


def viewer_slug(viewer: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in viewer) or "_"


def fingerprint(folder: Path, toml: bytes, ruleset: str, viewer: str, config: Any) -> str | None:
    """What a projection depends on besides the log; None when the ruleset's code cannot be found."""
    rd = ruleset_digest(ruleset)
    if rd is None:
        return None
    doc = json.dumps([PROJECTION_FORMAT, catalog_code_digest(), rd, hashlib.sha256(toml).hexdigest(),
                      _homebrew_digest(folder), viewer, config], sort_keys=True, default=str)
    return hashlib.sha256(doc.encode()).hexdigest()


@dataclass
class Projection:
    """One campaign's part of the catalog, for one viewer."""

    campaign: str
    ruleset: str
    events: pa.Table
    states: pa.Table | None
    row: dict[str, Any]
    head_seq: int
    head_hash: str
    viewer_seq: int
    viewer_hash: str
    state: dict[str, Any] | None
    """The GM state at the head (JSON), to fold on from; None when it could not be kept."""
    retracted: list[str]
    config: Any
    fingerprint: str = ""


def path_for(folder: Path, viewer: str) -> Path:
    return folder / ".cache" / "catalog" / f"{viewer_slug(viewer)}.arrow"


def _ipc(table: pa.Table | None) -> bytes:
    import pyarrow as pa

    if table is None:
        return b""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    return bytes(sink.getvalue().to_pybytes())


def _from_ipc(data: bytes) -> pa.Table | None:
    import pyarrow as pa

    if not data:
        return None
    return pa.ipc.open_stream(pa.BufferReader(data)).read_all()


def save(folder: Path, viewer: str, proj: Projection, toml_sha: str) -> bool:
    """Write ``proj`` (signed); False if it could not be written (the cache only costs speed)."""
    ev, st = _ipc(proj.events), _ipc(proj.states)
    head = {"format": PROJECTION_FORMAT, "campaign": proj.campaign, "ruleset": proj.ruleset, "viewer": viewer,
            "fingerprint": proj.fingerprint, "toml_sha": toml_sha, "row": proj.row, "head_seq": proj.head_seq,
            "head_hash": proj.head_hash, "viewer_seq": proj.viewer_seq, "viewer_hash": proj.viewer_hash,
            "state": proj.state, "retracted": proj.retracted, "config": proj.config, "events_len": len(ev),
            "states_len": len(st)}
    return _write_signed(path_for(folder, viewer), head, ev + st)


def _write_signed(path: Path, head: dict[str, Any], payload: bytes) -> bool:
    """Write ``head`` (one JSON line) and ``payload`` to ``path``, signed, whole or not at all; False if it cannot."""
    try:
        body = json.dumps(head, separators=(",", ":"), allow_nan=False, default=str).encode() + b"\n" + payload
    except ValueError:
        return False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(keys.sign(body).encode("ascii") + b"\n" + body)
        os.replace(tmp, path)
        return True
    except OSError:
        return False


def load(folder: Path, viewer: str) -> tuple[Projection, str] | None:
    """The stored projection of ``folder`` for ``viewer`` and the campaign.toml digest it was built with, if ours."""
    path = path_for(folder, viewer)
    try:
        data = path.read_bytes()
    except OSError:
        return None
    mac, sep, body = data.partition(b"\n")
    if not sep or len(mac) != 64 or not keys.verify(body, mac):
        return None
    line, sep, rest = body.partition(b"\n")
    try:
        head = json.loads(line)
        if not isinstance(head, dict) or head.get("format") != PROJECTION_FORMAT or head.get("viewer") != viewer:
            return None
        n_ev, n_st = int(head["events_len"]), int(head["states_len"])
        if n_ev + n_st != len(rest):
            return None
        events = _from_ipc(rest[:n_ev])
        states = _from_ipc(rest[n_ev:])
        if events is None:
            return None
        proj = Projection(str(head["campaign"]), str(head["ruleset"]), events, states, dict(head["row"]),
                          int(head["head_seq"]), str(head["head_hash"]), int(head["viewer_seq"]),
                          str(head["viewer_hash"]), head.get("state"), list(head.get("retracted") or []),
                          head.get("config"), str(head["fingerprint"]))
        return proj, str(head["toml_sha"])
    except Exception:  # not a projection of this format: rebuilt (it is only a cache)
        return None


# ---- descriptors of rulesets no campaign under the root plays --------------------------------------------


def _descriptor_path(ruleset: str, digest: str) -> Path:
    return keys.key_path().parent / "rulesets" / f"{viewer_slug(ruleset)}-{digest[:24]}.json"


def descriptor(ruleset: str, build: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """``{"views": {name: sql}, "proto": summary row}`` of a bundled ruleset, kept per package digest.

    ``build()`` computes it (importing the ruleset) when no signed copy of this digest exists.
    """
    digest = ruleset_digest(ruleset)
    path = _descriptor_path(ruleset, digest) if digest else None
    if path is not None:
        doc = keys.read_signed(path)
        if isinstance(doc, dict) and doc.get("format") == DESCRIPTOR_FORMAT and doc.get("digest") == digest \
                and isinstance(doc.get("views"), dict) and isinstance(doc.get("proto"), dict):
            return doc
    doc = dict(build(), format=DESCRIPTOR_FORMAT, digest=digest)
    if path is not None:
        keys.write_signed(path, doc)
    return doc




# ---- the root record: one signed file per campaigns root and viewer --------------------------------------

ROOT_FORMAT = 3
ROOT_DIR = "catalog-root"
CONFIG_NAME = "campaign.toml"
HEAD_REL = f".cache/{HEAD_NAME}"


def root_path(root: Path, viewer: str, folders: list[Path] | None) -> Path:
    """Where the root record of ``root`` for ``viewer`` lives (``<root>/.cache/catalog-root/``).

    A catalog over an explicit list of folders keeps its own record (named by the list's digest),
    so opening a subset does not replace the record of the whole root.
    """
    name = viewer_slug(viewer)
    if folders is not None:
        name += "-" + hashlib.sha256("\0".join(map(str, folders)).encode()).hexdigest()[:16]
    return root / ".cache" / ROOT_DIR / f"{name}.arrow"


def folder_identity(folder: Path) -> list[Any] | None:
    """The identity on disk of everything a campaign's projection derives from, or None.

    ``campaign.toml``, the recorded head (``.cache/head.rec``), every entry of ``log/`` and of the
    homebrew ``data/`` folder, each as (name, device, inode, size, mtime, ctime) — the identity the
    store already uses to trust an unchanged batch file (``store.log.ident``). Any write to one
    of them sets its ctime, and adding, removing or renaming an entry changes the listing, so an
    equal identity means nothing was written since. None when something cannot be read or changed
    less than ``RACY_SECONDS`` ago (its identity is then not yet trusted).
    """
    from kingdomlog.store.log import ident, settled

    out: list[Any] = []
    base = os.fspath(folder)
    try:
        for rel in (CONFIG_NAME, HEAD_REL):
            try:
                st = os.stat(os.path.join(base, rel))
            except FileNotFoundError:
                out.append([rel, None])
                continue
            if not settled(st):
                return None
            out.append([rel, *ident(st)])
        for sub in ("log", "data"):
            try:  # plain strings and no is_dir() first: this runs for every campaign of every open
                with os.scandir(os.path.join(base, sub)) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except (FileNotFoundError, NotADirectoryError):
                out.append([sub, None])
                continue
            out.append([sub, len(entries)])
            for e in entries:
                st = e.stat(follow_symlinks=False)
                if not settled(st):
                    return None
                out.append([f"{sub}/{e.name}", *ident(st)])
    except OSError:
        return None
    return out


def identity_key(identity: list[Any] | None) -> str:
    """The digest a root record keeps of a ``folder_identity`` ("" for none: never equal to a recorded one)."""
    if identity is None:
        return ""
    return hashlib.sha256(json.dumps(identity, separators=(",", ":"), default=str).encode()).hexdigest()


class RootEntry:
    """One campaign's part of a root record: its rows, and where they sit in the record's tables.

    An entry loaded from a record (``load_root``) makes its ``events`` and ``states`` slices only when asked: an
    unchanged open uses the record's tables whole and needs none of the thousand slices.
    """

    __slots__ = ("_at", "_events", "_states", "campaign", "identity", "origin", "row", "ruleset")

    def __init__(self, campaign: str, ruleset: str, identity: str, row: dict[str, Any], events: pa.Table | None,
                 states: pa.Table | None, origin: tuple[str, int, int] | None = None,
                 at: tuple[pa.Table, int, int, pa.Table | None, int, int] | None = None) -> None:
        self.campaign = campaign
        self.ruleset = ruleset
        self.identity = identity
        """``identity_key`` of the folder's files when its rows were made ("": not kept in a record)."""
        self.row = row
        self.origin = origin
        """(part, first event row, first states row) in the loaded record's tables (``RootRecord.tables``), or
        None."""
        self._events = events
        self._states = states
        self._at = at  # (events table, first row, rows, states table, first row, rows): the slices not yet made

    @property
    def events(self) -> pa.Table:
        if self._events is None:
            assert self._at is not None
            ev, e0, en = self._at[:3]
            self._events = ev.slice(e0, en)
        return self._events

    @property
    def states(self) -> pa.Table | None:
        if self._at is not None and self._states is None:
            st, s0, sn = self._at[3:]
            self._states = st.slice(s0, sn) if st is not None and sn else None
        return self._states

    @property
    def n_events(self) -> int:
        return self._at[2] if self._events is None and self._at is not None else self.events.num_rows

    @property
    def n_states(self) -> int:
        if self._states is None and self._at is not None:
            return self._at[5] if self._at[3] is not None else 0
        return self._states.num_rows if self._states is not None else 0


DELTA_SHARE = 0.125
"""A changed root writes only a delta beside its record (the campaigns not in the record, and the record's folders gone)
while that delta holds at most this share of the record's event rows; past it the whole record is written again
and the delta removed. Each turn played then costs writing the campaigns changed since the record was last
written whole, at most this share of it, and one whole write each time that share fills up."""


def delta_path(path: Path) -> Path:
    return path.with_name(path.stem + ".delta")


def _sorted_entries(entries: dict[str, RootEntry]) -> list[tuple[str, RootEntry]]:
    return sorted(entries.items(), key=lambda kv: (kv[1].campaign, kv[0]))  # catalog order


def _tables(entries: list[tuple[str, RootEntry]], rulesets: list[str]) -> tuple[bytes, dict[str, bytes],
                                                                                dict[str, tuple[int, int]]]:
    """The events and per-ruleset states of ``entries`` as IPC bytes (one record batch each), and each folder's
    first rows in them."""
    import pyarrow as pa

    ev_parts: list[pa.Table] = []
    st_parts: dict[str, list[pa.Table]] = {rid: [] for rid in rulesets}
    ev_off = 0
    st_off = dict.fromkeys(rulesets, 0)
    at: dict[str, tuple[int, int]] = {}
    for folder, e in entries:
        at[folder] = (ev_off, st_off[e.ruleset])
        ev_parts.append(e.events)
        ev_off += e.events.num_rows
        if e.states is not None and e.states.num_rows:
            st_parts[e.ruleset].append(e.states)
            st_off[e.ruleset] += e.states.num_rows
    # one record batch per table (not one per batch file), so reading it back is a zero-copy view
    ev = _ipc(pa.concat_tables(ev_parts).combine_chunks()) if ev_parts else b""
    sts = {rid: _ipc(pa.concat_tables(t, promote_options="default").combine_chunks()) if t else b""
           for rid, t in st_parts.items()}
    return ev, sts, at


def _folder_doc(folder: str, e: RootEntry, src: str, ev: int, st: int) -> dict[str, Any]:
    n_st = e.states.num_rows if e.states is not None else 0
    return {"folder": folder, "campaign": e.campaign, "ruleset": e.ruleset, "identity": e.identity, "row": e.row,
            "src": src, "ev": [ev, e.events.num_rows], "st": [st, n_st]}


def save_root(path: Path, viewer: str, entries: dict[str, RootEntry]) -> bool:
    """Write the whole root record (signed) of ``entries`` (by folder), then remove its delta; False if it could
    not be written.

    The delta names the record it applies to by its HMAC: a crash between the two writes leaves a delta that
    applies to no record, and is not used.
    """
    import pyarrow as pa

    rulesets = sorted({e.ruleset for e in entries.values()})
    digests = {rid: ruleset_digest(rid) for rid in rulesets}
    if any(d is None for d in digests.values()):
        return False
    order = _sorted_entries(entries)
    try:
        ev, sts, at = _tables(order, rulesets)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return False  # states of one ruleset with mixed column types: the per-campaign projections serve
    folders = [_folder_doc(f, e, "b", *at[f]) for f, e in order]
    head = {"format": ROOT_FORMAT, "kind": "record", "viewer": viewer, "code": catalog_code_digest(),
            "rulesets": digests, "folders": folders, "events_len": len(ev),
            "states_len": [[rid, len(sts[rid])] for rid in rulesets]}
    if not _write_signed(path, head, ev + b"".join(sts[rid] for rid in rulesets)):
        return False
    with contextlib.suppress(OSError):
        delta_path(path).unlink()
    return True


def save_delta(path: Path, viewer: str, entries: dict[str, RootEntry], record: RootRecord) -> bool:
    """Write the delta of ``entries`` over ``record`` (loaded from ``path``): the folders whose rows are not the
    record's (with those rows) and the record's folders no longer kept, signed and naming the record; every other
    folder is the record's own entry, named by nothing, so the delta's size follows what changed, not the root's.
    False if it could not be written (the record stays as it was, and the changed campaigns are checked again next
    time)."""
    import pyarrow as pa

    rulesets = sorted({e.ruleset for e in entries.values()})
    digests = {rid: ruleset_digest(rid) for rid in rulesets}
    if any(d is None for d in digests.values()) or any(record.rulesets.get(r, d) != d for r, d in digests.items()):
        return False
    order = _sorted_entries(entries)
    fresh = [(f, e) for f, e in order if e.origin is None or e.origin[0] != "b"]
    try:
        ev, sts, at = _tables(fresh, rulesets)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return False
    # only what differs from the record: the folders whose rows are in the delta, and the record's folders that are
    # no longer kept; every other folder is where the record says (its own entry, taken as it is)
    folders = [_folder_doc(f, e, "d", *at[f]) for f, e in fresh]
    gone = sorted(f for f in record.folders if f not in entries)
    for f, e in order:
        if f not in at and (e.origin is None or record.folders.get(f) != e.origin[1:]):
            return False  # not the record's own entry: cannot be named by reference (written whole instead)
    head = {"format": ROOT_FORMAT, "kind": "delta", "viewer": viewer, "code": catalog_code_digest(),
            "base": record.mac, "rulesets": digests, "folders": folders, "gone": gone, "events_len": len(ev),
            "states_len": [[rid, len(sts[rid])] for rid in rulesets]}
    return _write_signed(delta_path(path), head, ev + b"".join(sts[rid] for rid in rulesets))


def update_root(path: Path, viewer: str, entries: dict[str, RootEntry], record: RootRecord | None) -> bool:
    """Keep ``entries`` as the root record at ``path``: as a delta over ``record`` while that is small enough
    (``DELTA_SHARE``), else whole."""
    if record is not None and record.mac:
        fresh = sum(e.n_events for e in entries.values() if e.origin is None or e.origin[0] != "b")
        if fresh <= DELTA_SHARE * record.base_rows and save_delta(path, viewer, entries, record):
            return True
    return save_root(path, viewer, entries)


@dataclass
class RootRecord:
    """A loaded root record (with its delta, if one applies): its entries by folder, and the tables of each part
    (``"b"`` the record, ``"d"`` the delta; ``events`` in (campaign, seq) order) their ``origin`` points into."""

    entries: dict[str, RootEntry]
    tables: dict[str, tuple[pa.Table | None, dict[str, pa.Table | None]]]
    mac: str
    """The record's HMAC, which a delta over it names."""
    base_rows: int
    rulesets: dict[str, str]
    folders: dict[str, tuple[int, int]]
    """Each folder of the record itself (not of its delta) and where its rows start in the record's tables: a delta
    names these by reference, not again."""


def _read_part(path: Path, viewer: str, kind: str) -> tuple[str, dict[str, Any], pa.Table | None,
                                                             dict[str, pa.Table | None]] | None:
    """(HMAC, header, events, states by ruleset) of a signed record or delta at ``path``, if ours."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    # offsets, not bytes.partition: the record is tens of MB and each partition would copy it
    i = data.find(b"\n")
    j = data.find(b"\n", i + 1)
    if i != 64 or j < 0 or not keys.verify(memoryview(data)[i + 1:], data[:i]):
        return None
    head = json.loads(data[i + 1:j])
    if not isinstance(head, dict) or head.get("format") != ROOT_FORMAT or head.get("kind") != kind \
            or head.get("viewer") != viewer or head.get("code") != catalog_code_digest():
        return None
    digests = head["rulesets"]
    if any(ruleset_digest(rid) != d for rid, d in digests.items()):
        return None
    n_ev = int(head["events_len"])
    sizes = [(str(rid), int(n)) for rid, n in head["states_len"]]
    if n_ev + sum(n for _r, n in sizes) != len(data) - j - 1:
        return None
    import pyarrow as pa

    buf = pa.py_buffer(data).slice(j + 1)  # the tables are views of the bytes read, not copies
    events = pa.ipc.open_stream(buf.slice(0, n_ev)).read_all() if n_ev else None
    states: dict[str, pa.Table | None] = {}
    off = n_ev
    for rid, n in sizes:
        states[rid] = pa.ipc.open_stream(buf.slice(off, n)).read_all() if n else None
        off += n
    return data[:i].decode("ascii"), head, events, states


def load_root(path: Path, viewer: str) -> RootRecord | None:
    """The entries (by folder) of the root record at ``path`` and of its delta, if this machine signed them for
    this code and viewer and the delta names this record (else the record alone).

    A record of other catalog code, or holding a ruleset whose package changed since, is not used.
    """
    try:
        base = _read_part(path, viewer, "record")
        if base is None:
            return None
        mac, head, events, states = base
        tables = {"b": (events, states)}
        try:
            delta = _read_part(delta_path(path), viewer, "delta")
        except Exception:  # a delta not of this format: the record alone
            delta = None
        docs: dict[str, dict[str, Any]] = {str(f["folder"]): f for f in head["folders"]}
        in_record = {k: (int(f["ev"][0]), int(f["st"][0])) for k, f in docs.items()}
        if delta is not None and delta[1].get("base") == mac:
            tables["d"] = (delta[2], delta[3])
            for k in delta[1]["gone"]:
                docs.pop(str(k), None)
            for f in delta[1]["folders"]:
                docs[str(f["folder"])] = f
        out: dict[str, RootEntry] = {}
        for key, f in docs.items():
            src = str(f.get("src", "b"))
            e0, en = (int(x) for x in f["ev"])
            s0, sn = (int(x) for x in f["st"])
            rid = str(f["ruleset"])
            ev_t, st_by = tables[src]
            st = st_by.get(rid)
            if ev_t is None or e0 + en > ev_t.num_rows or (sn and (st is None or s0 + sn > st.num_rows)):
                return None
            out[key] = RootEntry(str(f["campaign"]), rid, str(f["identity"]), dict(f["row"]), None, None,
                                 (src, e0, s0), (ev_t, e0, en, st, s0, sn))
        return RootRecord(out, tables, mac, events.num_rows if events is not None else 0,
                          {str(k): str(v) for k, v in head["rulesets"].items()}, in_record)
    except Exception:  # not a record of this format: rebuilt (it is only a cache)
        return None


__all__ = ["Projection", "RootEntry", "RootRecord", "catalog_code_digest", "delta_path", "descriptor", "fingerprint",
           "folder_identity", "identity_key", "load", "load_root", "path_for", "root_path", "ruleset_digest", "save",
           "save_delta", "save_root", "update_root"]
