"""The snapshot cache: folded states saved under ``.cache/``, an optimisation only.

A snapshot is bound to three things, and used only while all three still hold:

- **the log prefix it derives from**: the seq and hash of the last event it folded, the
  retracted commits it honoured and the highest turn it contains, checked against the log;
- **its own content**: the file carries an HMAC of its bytes under this machine's key
  (``store.keys``), so an edited snapshot (or one written elsewhere) is not ours;
- **the code and data that produced it**: a fingerprint of core's fold code, the ruleset's
  package source and data files, the campaign's options and homebrew data (``fingerprint``;
  the file digests are computed once per process).

A snapshot that fails any of these is deleted and rebuilt by the next fold; ``sweep``
(run by ``verify``) checks them all. Deleting the folder changes nothing but speed.

A snapshot is taken at the last event folded (the head, when the whole log was folded), so a
log that ends in notes or other core events is not decoded again on the next warm read; it
also records the highest live turn it folded (``max_turn``), which is what ``until`` needs and
what ``kingdomlog state`` shows as the current turn without reading the log.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kingdomlog.core.core_events import CampaignConfigured, TurnRetracted
from kingdomlog.core.errors import KingdomlogError
from kingdomlog.core.events import RecordedEvent, canonical_json, decode_payload
from kingdomlog.core.fold import Start, fold, is_live, retracted_commits
from kingdomlog.core.ruleset import CampaignContext, Ruleset, State
from kingdomlog.store import keys
from kingdomlog.store.codec import decode_table

if TYPE_CHECKING:
    from kingdomlog.store.log import EventLog

SNAPSHOT_FORMAT = 3
KEEP = 8
MIN_EVENTS_TO_SAVE = 1
DATA_SUFFIXES = (".toml", ".json", ".sql", ".csv", ".yaml", ".yml", ".txt")
CORE_DIR = Path(__file__).resolve().parent.parent / "core"


def _tree_digest(files: Iterable[Path], root: Path) -> str:
    h = hashlib.sha256()
    for f in sorted(set(files)):
        try:
            data = f.read_bytes()
        except OSError:
            data = b"<unreadable>"
        h.update(str(f.relative_to(root)).encode() + b"\0" + len(data).to_bytes(8, "big") + data)
    return h.hexdigest()


def _package_files(folder: Path) -> list[Path]:
    """A package's code (``*.py`` at any depth), its ``data/`` files and the data files beside its modules."""
    out = [p for p in folder.rglob("*.py") if "__pycache__" not in p.parts]
    out += [p for p in folder.iterdir() if p.is_file() and p.suffix in DATA_SUFFIXES]
    data = folder / "data"
    if data.is_dir():
        out += [p for p in data.rglob("*") if p.is_file()]
    return out


@cache
def core_digest() -> str:
    """The digest of core's fold code (``kingdomlog/core/*.py``), once per process."""
    return _tree_digest(CORE_DIR.glob("*.py"), CORE_DIR)


@cache
def code_digest(module_name: str) -> str:
    """The digest of the code and data of the ruleset defined in ``module_name``, once per process.

    A ruleset in a package (``kingdomlog.rulesets.pf2e.ruleset``) is its whole package folder
    (``_package_files``); a ruleset in a top-level module is that file.
    """
    module = sys.modules.get(module_name)
    if module is None:
        return "unknown-module:" + module_name
    pkg_name = getattr(module, "__package__", None) or ""
    pkg = sys.modules.get(pkg_name) if pkg_name else None
    paths = [Path(p) for p in getattr(pkg, "__path__", [])] if pkg is not None else []
    if paths:
        return hashlib.sha256("".join(_tree_digest(_package_files(p), p) for p in paths).encode()).hexdigest()
    file = getattr(module, "__file__", None)
    if file is None:
        return "no-file:" + module_name
    path = Path(file)
    return _tree_digest([path], path.parent)


def fingerprint(rs: Ruleset, ctx: CampaignContext, state_cls: type[State]) -> str:
    """What a snapshot's state depends on besides the log: a change in any of these invalidates it.

    Core's fold code, the ruleset's package source and data files (``code_digest``), its id
    and declared version, the state class, the campaign's options and homebrew data.
    """
    doc = {
        "format": SNAPSHOT_FORMAT,
        "core": core_digest(),
        "ruleset": rs.id,
        "version": rs.version,
        "code": code_digest(type(rs).__module__),
        "state": f"{state_cls.__module__}.{state_cls.__qualname__}",
        "state_code": code_digest(state_cls.__module__),
        "options": ctx.options,
        "data": ctx.data,
    }
    return hashlib.sha256(canonical_json(doc).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Latest:
    """The latest state from the warm path, with where the log ends and its highest live turn (None: none)."""

    state: State
    seq: int
    hash: str
    last_turn: int | None


def _max_turn(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else max(a, b)


class SnapshotCache:
    """Snapshots of one campaign in ``dir``."""

    def __init__(self, dir: Path) -> None:
        self.dir = dir
        self.hits = 0
        self.misses = 0
        self.discarded = 0
        """Snapshot files deleted because they did not match (edited, of other code, of another log)."""

    def _load(self, path: Path, fp: str, seq: int) -> dict[str, Any] | None:
        """A snapshot's document if this machine signed it for ``fp`` at ``seq``; else the file is deleted."""
        doc = keys.read_signed(path)
        if isinstance(doc, dict) and doc.get("format") == SNAPSHOT_FORMAT and doc.get("fingerprint") == fp \
                and doc.get("seq") == seq and isinstance(doc.get("hash"), str) and isinstance(doc.get("state"), dict):
            return doc
        self.discard(path)
        return None

    def discard(self, path: Path) -> None:
        try:
            path.unlink()
            self.discarded += 1
        except OSError:
            pass

    def sweep(self, log_hash_at: Callable[[int], str | None]) -> int:
        """Check every snapshot file (signature, format, name, the log's hash at its seq); delete the bad ones.

        ``log_hash_at(seq)`` is the log's hash at ``seq`` (None past its end). Snapshots of
        another fingerprint are left alone (they may be of other options or code still in use)
        unless they are not ours or no longer match the log. Returns how many were deleted.
        """
        if not self.dir.is_dir():
            return 0
        before = self.discarded
        for path in sorted(self.dir.glob("*.json")):
            fp, _, tail = path.stem.partition("-")
            try:
                seq = int(tail)
            except ValueError:
                self.discard(path)
                continue
            doc = self._load(path, fp, seq)
            if doc is not None and doc["hash"] != log_hash_at(seq):
                self.discard(path)
        return self.discarded - before

    def replay(self, rs: Ruleset, ctx: CampaignContext, events: Sequence[RecordedEvent], until: int | None) -> State:
        """Fold ``events`` (the whole log; up to turn ``until``) starting from the best valid snapshot."""
        initial = rs.initial_state(ctx)
        state_cls = type(initial)
        fp = fingerprint(rs, ctx, state_cls)
        gone = retracted_commits(events)
        snap = self._best(fp, events, gone, until)
        start = Start(initial)
        if snap is not None:
            try:
                start = Start(state_cls.model_validate(snap["state"]), int(snap["seq"]))
                self.hits += 1
            except Exception:  # a snapshot whose state no longer validates is not used, and goes
                self.discard(self.dir / f"{fp}-{snap['seq']}.json")
                self.misses += 1
        else:
            self.misses += 1
        last: RecordedEvent | None = None
        count = 0
        top: int | None = None
        for ev in events:
            if is_live(ev, gone, until):
                last = ev
                count += ev.seq > start.after_seq
                top = _max_turn(top, ev.turn)
        state = fold(rs, start, events, until=until, retracted=gone)
        if until is None and events:
            last = events[-1]  # the whole log was folded: the snapshot stands at its head
        if last is not None and count >= MIN_EVENTS_TO_SAVE:
            before = frozenset(e.commit_id for e in events if e.seq <= last.seq)
            self.save(fp, last, gone & before, state, max_turn=top)
        return state

    def save_head(self, rs: Ruleset, ctx: CampaignContext, last: RecordedEvent, gone: frozenset[str], state: State,
                  max_turn: int | None) -> None:
        """Save ``state``, the fold of the whole log ending at ``last``, as the snapshot at the head (not when
        no live event was folded: the initial state needs no snapshot)."""
        if max_turn is not None:
            self.save(fingerprint(rs, ctx, type(state)), last, gone, state, max_turn=max_turn)

    def warm(self, rs: Ruleset, ctx_for: Callable[[CampaignConfigured], CampaignContext],
             log: EventLog) -> State | None:
        """The latest state from the newest snapshot (``latest``), or None."""
        got = self.latest(rs, ctx_for, log)
        return None if got is None else got.state

    def latest(self, rs: Ruleset, ctx_for: Callable[[CampaignConfigured], CampaignContext],
               log: EventLog) -> Latest | None:
        """The latest state from the newest snapshot, decoding only the events after it.

        The whole log is still checked (``EventLog.read_after``: files before the snapshot by
        their identity on disk or their sha256 against the verified record, the rest in full).
        ``ctx_for`` turns the log's first event into the campaign context. Returns None, so the
        caller takes the ordinary path, whenever anything is not as the snapshot assumed.
        """
        if not self.dir.is_dir():
            return None
        first = log.cached_config()
        if not first:
            return None
        try:
            conf = decode_payload(first[0], int(first[1]), first[2], seq=1)
        except KingdomlogError:
            return None
        if not isinstance(conf, CampaignConfigured):
            return None
        ctx = ctx_for(conf)
        state_cls = rs.state_class(ctx)  # not the initial state: pf1's builds its catalogue, which the snapshot holds
        fp = fingerprint(rs, ctx, state_cls)
        # every snapshot of this fingerprint is checked (an edited or junk one is deleted here), then the
        # newest one the log still agrees with is used: after a retraction that is an older one
        loaded = [(seq, path, self._load(path, fp, seq)) for seq, path in self.candidates(fp)]
        for seq, path, snap in loaded:
            if snap is None:
                continue
            got = self._from(rs, log, first, state_cls, fp, seq, path, snap)
            if got is not None:
                return got
        return None

    def _from(self, rs: Ruleset, log: EventLog, first: list[Any], state_cls: type[State], fp: str, seq: int,
              path: Path, snap: dict[str, Any]) -> Latest | None:
        """The latest state folded on from the snapshot ``snap`` (at ``seq``), or None if the log disagrees."""
        tail = log.read_after(seq)
        if tail.hash_at is None or snap.get("hash") != tail.hash_at:
            self.discard(path)  # of another log (or a rewritten one): never right again
            return None
        if tail.config != first:
            return None
        if sorted(tail.retracted & tail.commits_upto) != sorted(snap.get("retracted", [])):
            return None
        events = decode_table(tail.table) if tail.table is not None else []
        gone = set(tail.retracted)
        for ev in events:
            if isinstance(ev.payload, TurnRetracted):
                gone.update(ev.payload.commit_ids)
        if gone & tail.commits_upto != tail.retracted & tail.commits_upto:
            return None
        try:
            snap_state: State = state_cls.model_validate(snap["state"])
        except Exception:  # a bad snapshot is not used, and goes
            self.discard(path)
            return None
        retracted = frozenset(gone)
        state = fold(rs, Start(snap_state, seq), events, retracted=retracted)
        self.hits += 1
        raw_top = snap.get("max_turn")
        top: int | None = raw_top if isinstance(raw_top, int) and not isinstance(raw_top, bool) else None
        for ev in events:
            if is_live(ev, retracted):
                top = _max_turn(top, ev.turn)
        if events:
            before = frozenset(tail.commits_upto | {e.commit_id for e in events})
            self.save(fp, events[-1], retracted & before, state, max_turn=top)
        return Latest(state, tail.head_seq, tail.head_hash, top)

    def candidates(self, fp: str) -> list[tuple[int, Path]]:
        if not self.dir.is_dir():
            return []
        out = []
        for p in self.dir.glob(f"{fp}-*.json"):
            try:
                out.append((int(p.stem.split("-")[1]), p))
            except (IndexError, ValueError):
                continue
        out.sort(reverse=True)
        return out

    def _best(self, fp: str, events: Sequence[RecordedEvent], gone: frozenset[str],
              until: int | None) -> dict[str, Any] | None:
        by_seq = {ev.seq: ev for ev in events}
        for seq, path in self.candidates(fp):
            ev = by_seq.get(seq)
            if ev is None:
                continue
            snap = self._load(path, fp, seq)
            if snap is None:
                continue
            if snap.get("hash") != ev.hash:
                self.discard(path)
                continue
            top = snap.get("max_turn")
            if until is not None and top is not None and (not isinstance(top, int) or top > until):
                continue
            before = {e.commit_id for e in events if e.seq <= seq}
            if sorted(gone & before) != sorted(snap.get("retracted", [])):
                continue
            return dict(snap)
        return None

    def save(self, fp: str, last: RecordedEvent, gone: frozenset[str], state: State, *,
             max_turn: int | None) -> None:
        """Write the snapshot of ``state`` after ``last`` (signed; a failed write only costs speed).

        ``max_turn`` is the highest turn of the live events folded into it (None: none).
        """
        path = self.dir / f"{fp}-{last.seq}.json"
        if path.exists() and self._load(path, fp, last.seq) is not None:
            return
        doc = {"format": SNAPSHOT_FORMAT, "fingerprint": fp, "seq": last.seq, "hash": last.hash,
               "max_turn": max_turn, "retracted": sorted(gone), "state": state.model_dump(mode="json")}
        if keys.write_signed(path, doc):
            for _seq, old in self.candidates(fp)[KEEP:]:
                old.unlink(missing_ok=True)
