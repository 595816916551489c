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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kingdomlog.core.events import RecordedEvent, canonical_json
from kingdomlog.core.fold import live_events, retracted_commits
from kingdomlog.core.ruleset import CampaignContext, Ruleset, State

SNAPSHOT_FORMAT = 1
KEEP = 8
MIN_EVENTS_TO_SAVE = 1


def fingerprint(rs: Ruleset, ctx: CampaignContext, state_cls: type[State]) -> str:
    """Ruleset id, its state schema and the options: a change in any invalidates snapshots."""
    doc = {
        "ruleset": rs.id,
        "version": getattr(rs, "version", "0"),
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
        """Fold ``events`` (up to turn ``until``) starting from the best valid snapshot."""
        initial = rs.initial_state(ctx)
        state_cls = type(initial)
        fp = fingerprint(rs, ctx, state_cls)
        gone = retracted_commits(events)
        live = live_events(events, until)
        snap = self._best(fp, events, gone, until)
        state: State = initial
        start_seq = 0
        if snap is not None:
            try:
                state = state_cls.model_validate(snap["state"])
                start_seq = int(snap["seq"])
                self.hits += 1
            except Exception:
                state, start_seq = initial, 0
                self.misses += 1
        else:
            self.misses += 1
        todo = [ev for ev in live if ev.seq > start_seq]
        for ev in todo:
            state = rs.evolve(state, ev)
        if events and len(todo) >= MIN_EVENTS_TO_SAVE:
            last = live[-1] if live else None
            if last is not None:
                before = frozenset(e.commit_id for e in events if e.seq <= last.seq)
                self._save(fp, last, gone & before, state)
        return state

    def _candidates(self, fp: str) -> list[tuple[int, Path]]:
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
        for seq, path in self._candidates(fp):
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

    def _save(self, fp: str, last: RecordedEvent, gone: frozenset[str], state: State) -> None:
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
            for _seq, old in self._candidates(fp)[KEEP:]:
                old.unlink(missing_ok=True)
        except OSError:
            pass
