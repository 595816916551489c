"""The snapshot cache: folded states saved under ``.cache/``, an optimisation only.

A snapshot records the seq and hash of the last event it folded, the retracted
commits it honoured, the highest turn it contains and a fingerprint of the
ruleset and options. It is used only when all of these still match the log;
otherwise it is ignored. Deleting the folder changes nothing but speed.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kingdomlog.core.core_events import CampaignConfigured, TurnRetracted
from kingdomlog.core.errors import KingdomlogError
from kingdomlog.core.events import RecordedEvent, canonical_json, decode_payload
from kingdomlog.core.fold import Start, fold, is_live, retracted_commits
from kingdomlog.core.ruleset import CampaignContext, Ruleset, State

if TYPE_CHECKING:
    from kingdomlog.store.log import EventLog

SNAPSHOT_FORMAT = 1
KEEP = 8
MIN_EVENTS_TO_SAVE = 1


def fingerprint(rs: Ruleset, ctx: CampaignContext, state_cls: type[State]) -> str:
    """Ruleset id, its state schema and the options: a change in any invalidates snapshots."""
    doc = {
        "ruleset": rs.id,
        "version": rs.version,
        "schema": state_cls.model_json_schema(),
        "options": ctx.options,
        "data": ctx.data,
        "format": SNAPSHOT_FORMAT,
    }
    return hashlib.sha256(canonical_json(doc).encode()).hexdigest()[:16]


class SnapshotCache:
    """Snapshots of one campaign in ``dir``."""

    def __init__(self, dir: Path) -> None:
        self.dir = dir
        self.hits = 0
        self.misses = 0

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
            except Exception:
                self.misses += 1
        else:
            self.misses += 1
        last: RecordedEvent | None = None
        count = 0
        for ev in events:
            if is_live(ev, gone, until):
                last = ev
                count += ev.seq > start.after_seq
        state = fold(rs, start, events, until=until, retracted=gone)
        if last is not None and count >= MIN_EVENTS_TO_SAVE:
            before = frozenset(e.commit_id for e in events if e.seq <= last.seq)
            self.save(fp, last, gone & before, state)
        return state

    def warm(self, rs: Ruleset, ctx_for: Callable[[CampaignConfigured], CampaignContext],
             log: EventLog) -> State | None:
        """The latest state from the newest snapshot, decoding only the events after it.

        The whole log is still checked (``EventLog.read_after``: files before the snapshot by
        their sha256 against the verified record, the rest in full). ``ctx_for`` turns the
        log's first event into the campaign context. Returns None, so the caller takes the
        ordinary path, whenever anything is not as the snapshot assumed.
        """
        from kingdomlog.store.log import decode_table

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
        initial = rs.initial_state(ctx)
        fp = fingerprint(rs, ctx, type(initial))
        candidates = self.candidates(fp)
        if not candidates:
            return None
        seq, path = candidates[0]
        try:
            snap = json.loads(path.read_text())
        except (OSError, ValueError):
            return None
        tail = log.read_after(seq)
        if tail.hash_at is None or snap.get("hash") != tail.hash_at or tail.config != first:
            return None
        if sorted(tail.retracted & tail.commits_upto) != sorted(snap.get("retracted", [])):
            return None
        events = decode_table(tail.table)
        gone = set(tail.retracted)
        for ev in events:
            if isinstance(ev.payload, TurnRetracted):
                gone.update(ev.payload.commit_ids)
        if gone & tail.commits_upto != tail.retracted & tail.commits_upto:
            return None
        try:
            snap_state: State = type(initial).model_validate(snap["state"])
        except Exception:  # a bad snapshot is simply not used
            return None
        retracted = frozenset(gone)
        state = fold(rs, Start(snap_state, seq), events, retracted=retracted)
        self.hits += 1
        live = [ev for ev in events if is_live(ev, retracted)]
        if live:
            before = frozenset(tail.commits_upto | {e.commit_id for e in events if e.seq <= live[-1].seq})
            self.save(fp, live[-1], retracted & before, state)
        return state

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
            try:
                snap = json.loads(path.read_text())
            except (OSError, ValueError):
                continue
            if snap.get("hash") != ev.hash:
                continue
            if until is not None and int(snap.get("max_turn", 1 << 30)) > until:
                continue
            before = {e.commit_id for e in events if e.seq <= seq}
            if sorted(gone & before) != sorted(snap.get("retracted", [])):
                continue
            return dict(snap)
        return None

    def save(self, fp: str, last: RecordedEvent, gone: frozenset[str], state: State) -> None:
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            path = self.dir / f"{fp}-{last.seq}.json"
            if path.exists():
                return
            doc = {"seq": last.seq, "hash": last.hash, "max_turn": last.turn, "retracted": sorted(gone),
                   "state": state.model_dump(mode="json")}
            tmp = self.dir / f".{uuid.uuid4().hex}.tmp"
            tmp.write_text(json.dumps(doc))
            os.replace(tmp, path)
            for _seq, old in self.candidates(fp)[KEEP:]:
                old.unlink(missing_ok=True)
        except OSError:
            pass
