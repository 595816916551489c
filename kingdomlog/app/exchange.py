"""Export and import: a campaign as JSONL (a header with its config and head, then one line per event).

A GM export reproduces the log exactly on import (batches keep their commit ids, event ids
and times, so the hash chain comes out the same for payloads at their current version); a
viewer's export holds only the events that viewer may see, numbered as that viewer's own log
(``core.events.renumber``), so importing it gives a campaign whose head is the one the viewer
was shown.

An import is built in a hidden temporary folder beside the target and moved into place only
once every event is in and the result verifies: a refused or interrupted import leaves the
target as it was (at most a ``.<name>.import-*`` folder, which is never read as a campaign).
Every field of every line is checked first (errors name the line and the field).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from kingdomlog.core.core_events import CampaignConfigured
from kingdomlog.core.errors import InputError, KingdomlogError, StoreError
from kingdomlog.core.events import MAX_TURN, Draft, EventModel, decode_payload
from kingdomlog.core.ruleset import find_ruleset
from kingdomlog.core.viewers import GM_VIEWER, ID_PATTERN, RESERVED, Viewer, parse_visibility
from kingdomlog.store.config import CampaignConfig, write_config
from kingdomlog.store.log import EventLog, Stamp, describe_os_error

if TYPE_CHECKING:
    from kingdomlog.app.campaign import Campaign

EXPORT_FORMAT = 1
EVENT_FIELDS = ("campaign", "seq", "turn", "phase", "type", "version", "actor", "visibility", "payload",
                "recorded_at", "event_id", "commit_id", "prev_hash", "hash")
MAX_ID = 200
_ID_RE = re.compile(ID_PATTERN)
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class Imported:
    """One exported event read back: the draft, its own id and time, its batch's commit id and exported hash."""

    draft: Draft
    stamp: Stamp
    commit_id: str
    hash: str | None = None


def export_lines(camp: Campaign, viewer: Viewer = GM_VIEWER) -> list[str]:
    """JSONL: a header line (config, viewer, head), then one line per event visible to ``viewer``.

    A viewer other than the GM gets its own numbering (seq, prev_hash and hash of its own log).
    """
    events = camp.visible_events(viewer)
    config = camp.config.model_dump(mode="json")
    config["id"] = camp.id
    head = camp.head_for(viewer)
    header = {"kingdomlog_export": EXPORT_FORMAT, "campaign": config, "viewer": viewer.id,
              "numbering": "log" if viewer.is_gm else "viewer", "head": head.as_dict()}
    out = [json.dumps(header, sort_keys=True)]
    for ev in events:
        env = ev.envelope()
        env["recorded_at"] = ev.recorded_at.isoformat()
        env["payload"] = json.loads(ev.payload_text)
        out.append(json.dumps(env, sort_keys=True, ensure_ascii=False))
    return out


def _text(obj: dict[str, Any], key: str, where: str, *, max_len: int = MAX_ID) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value:
        raise InputError(f"{where}: {key!r} must be a non-empty string")
    if len(value) > max_len or _CONTROL.search(value):
        raise InputError(f"{where}: {key!r} must be at most {max_len} printable characters")
    return value


def _integer(obj: dict[str, Any], key: str, where: str, low: int, high: int) -> int:
    value = obj.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise InputError(f"{where}: {key!r} must be an integer from {low} to {high}, got {value!r}")
    return value


def json_objects(lines: Iterable[str], *, source: str, what: str = "a JSON object",
                 start: int = 1) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each non-blank line of ``lines`` as ``(where, object)``, ``where`` naming ``source`` and the line number
    (counted from ``start``); an ``InputError`` naming the line for one that is not JSON or not an object."""
    for n, line in enumerate(lines, start=start):
        if not line.strip():
            continue
        where = f"{source} line {n}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(obj, dict):
            raise InputError(f"{where}: {'expected' if what == 'a JSON object' else 'not'} {what}")
        yield where, obj


def read_export(lines: Sequence[str], *, source: str = "import") -> tuple[CampaignConfig, list[Imported]]:
    """The config and the events of an export, every field of every line checked.

    Checked per line: exactly the exported fields; ``campaign`` the header's id; ``seq``
    1, 2, 3, … in order; ``turn`` in range; ``version`` a known one; ``type`` an event of
    the header's ruleset (or ``core.``), ``core.campaign_configured`` first and only there,
    naming the same ruleset; ``actor`` ``gm``, ``system`` or a player id; ``visibility``
    well formed; ``payload`` valid for its type; ``recorded_at`` an ISO time with a zone;
    ``event_id`` unique; a batch's ``commit_id`` on consecutive lines only; ``prev_hash``
    and ``hash`` 64 hex digits. Raises ``InputError`` naming the line and the field.
    """
    if not lines:
        raise InputError(f"{source}: empty file")
    try:
        header = json.loads(lines[0])
    except json.JSONDecodeError as exc:
        raise InputError(f"{source} line 1: not valid JSON ({exc.msg})") from None
    if not isinstance(header, dict) or header.get("kingdomlog_export") != EXPORT_FORMAT:
        raise InputError(f"{source} line 1: not a kingdomlog export header")
    try:
        cfg = CampaignConfig.model_validate(header["campaign"])
    except (KeyError, ValidationError) as exc:
        raise InputError(f"{source} line 1: bad campaign config: {exc}") from None
    rs = find_ruleset(cfg.ruleset)
    namespaces = set(rs.namespaces) | {"core"}
    numbered = "numbering" in header
    last_seq = 0
    rows: list[Imported] = []
    seen_ids: set[str] = set()
    done_commits: set[str] = set()
    for where, obj in json_objects(lines[1:], source=source, what="an exported event (a JSON object)", start=2):
        missing = [k for k in EVENT_FIELDS if k not in obj]
        extra = sorted(set(obj) - set(EVENT_FIELDS))
        if missing or extra:
            raise InputError(f"{where}: not an exported event ({'missing ' + ', '.join(missing) if missing else ''}"
                             f"{'; ' if missing and extra else ''}{'unknown ' + ', '.join(extra) if extra else ''})")
        if obj["campaign"] != cfg.id:
            raise InputError(f"{where}: event of campaign {obj['campaign']!r}, but the header is campaign {cfg.id!r}")
        seq = _integer(obj, "seq", where, 1, 2**62)
        if numbered and seq != len(rows) + 1:
            raise InputError(f"{where}: seq {seq} out of order (expected {len(rows) + 1}: seqs run 1, 2, 3, …)")
        if not numbered and seq <= last_seq:  # an export written before viewer numbering: gaps, but in order
            raise InputError(f"{where}: seq {seq} out of order (after seq {last_seq})")
        last_seq = seq
        turn = _integer(obj, "turn", where, 0, MAX_TURN)
        version = _integer(obj, "version", where, 1, 2**15 - 1)
        typ = _text(obj, "type", where)
        if typ.split(".", 1)[0] not in namespaces:
            raise InputError(f"{where}: event type {typ!r} does not belong to ruleset {rs.id!r}")
        if (typ == CampaignConfigured.type) != (not rows):
            raise InputError(f"{where}: core.campaign_configured must be the first event, and only the first")
        phase = obj["phase"]
        if phase is not None and (not isinstance(phase, str) or len(phase) > MAX_ID):
            raise InputError(f"{where}: 'phase' must be null or a string")
        actor = _text(obj, "actor", where)
        if actor not in ("gm", "system") and (not _ID_RE.match(actor) or actor in RESERVED):
            raise InputError(f"{where}: actor {actor!r} is not gm, system or a player id")
        visibility = _text(obj, "visibility", where, max_len=10_000)
        try:
            parse_visibility(visibility)
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None
        payload = obj["payload"]
        if not isinstance(payload, dict):
            raise InputError(f"{where}: 'payload' must be a JSON object")
        try:
            model: EventModel = decode_payload(typ, version, payload, seq=seq)
        except KingdomlogError as exc:
            raise InputError(f"{where}: {exc}") from None
        if isinstance(model, CampaignConfigured) and find_ruleset(model.ruleset).id != rs.id:
            raise InputError(f"{where}: the log was configured for ruleset {model.ruleset!r}, but the header says"
                             f" {cfg.ruleset!r}")
        raw_time = obj["recorded_at"]
        try:
            when = datetime.fromisoformat(raw_time) if isinstance(raw_time, str) else None
        except ValueError:
            when = None
        if when is None or when.tzinfo is None:
            raise InputError(f"{where}: 'recorded_at' must be an ISO 8601 time with its zone"
                             f" (2026-11-01T09:30:00+00:00), got {raw_time!r}")
        event_id = _text(obj, "event_id", where)
        if event_id in seen_ids:
            raise InputError(f"{where}: event_id {event_id!r} appears twice")
        seen_ids.add(event_id)
        commit_id = _text(obj, "commit_id", where)
        if rows and rows[-1].commit_id != commit_id:
            done_commits.add(rows[-1].commit_id)
        if commit_id in done_commits:
            raise InputError(f"{where}: batch {commit_id!r} is split (its events must be on consecutive lines)")
        for key in ("prev_hash", "hash"):
            if not isinstance(obj[key], str) or not _HEX64.match(obj[key]):
                raise InputError(f"{where}: {key!r} must be 64 lowercase hex digits")
        rows.append(Imported(Draft(model, phase=phase, actor=actor, visibility=visibility, turn=turn),
                             Stamp(event_id, when.astimezone(UTC)), commit_id, obj["hash"]))
    if not rows:
        raise InputError(f"{source}: the export does not start with core.campaign_configured")
    return cfg, rows


def prepare_folder(folder: str | Path, cfg: CampaignConfig) -> Path:
    """An empty ``folder`` made into a campaign folder with ``cfg`` (no events yet)."""
    path = Path(folder)
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise StoreError(f"{path}: folder is not empty; import into a new folder")
    (path / "log").mkdir(parents=True, exist_ok=True)
    write_config(path, cfg)
    return path


def append_batches(log: EventLog, rows: Sequence[Imported]) -> None:
    """Append ``rows`` batch by batch, keeping commit ids, event ids and times."""
    i = 0
    while i < len(rows):
        j = i
        while j < len(rows) and rows[j].commit_id == rows[i].commit_id:
            j += 1
        batch = rows[i:j]
        log.append([r.draft for r in batch], expect_seq=log.head().seq, commit_id=rows[i].commit_id,
                   stamps=[r.stamp for r in batch])
        i = j


def import_campaign(cls: type[Campaign], lines: Sequence[str], folder: str | Path, *,
                    source: str = "import") -> tuple[Campaign, list[str]]:
    """Build the campaign in a hidden folder beside ``folder``, verify it, then move it into place.

    Returns the campaign and warnings (e.g. exported hashes that the imported chain does not
    reproduce: payloads upcast to a newer version, or an edited export). Raises
    ``InputError`` for a bad export and ``StoreError`` when the target is not empty, the
    result does not verify, or the file system refuses; the target is untouched then.
    """
    cfg, rows = read_export(lines, source=source)
    target = Path(folder)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise StoreError(f"{target}: folder is not empty; import into a new folder")
    tmp = target.parent / f".{target.name}.import-{uuid.uuid4().hex[:12]}"
    try:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            prepare_folder(tmp, cfg)
        except OSError as exc:
            raise StoreError(f"{target}: cannot import here: {describe_os_error(exc)}") from None
        camp = cls(tmp, cfg)
        append_batches(camp.log, rows)
        rep = camp.verify()
        if not rep.ok:
            raise StoreError(f"{source}: the imported log does not verify ({rep.problems[0]}); nothing was imported")
        declared = camp.players()
        for n, ev in enumerate(camp.events(), start=1):
            try:
                parse_visibility(ev.visibility, declared)
            except InputError as exc:
                raise InputError(f"{source}: event {n}: {exc}; nothing was imported") from None
            if ev.actor not in ("gm", "system", *declared):
                raise InputError(f"{source}: event {n}: actor {ev.actor!r} is not gm, system or a player or faction"
                                 f" of this campaign (declared: {', '.join(declared) or 'none'}); nothing was imported")
        warnings: list[str] = []
        differ = [r for r, ev in zip(rows, camp.events(), strict=True) if r.hash != ev.hash]
        if differ:
            warnings.append(f"{len(differ)} of {len(rows)} event hashes differ from the export's (first at seq"
                            f" {rows.index(differ[0]) + 1}): payloads upcast to their current version, or the export"
                            " was edited after it was written")
        move_into_place(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return cls.open(target), warnings


def move_into_place(tmp: Path, target: Path) -> None:
    """Move a campaign built in the hidden folder ``tmp`` to ``target`` (an empty target folder is replaced;
    atomic on one file system); ``StoreError`` naming ``target`` when it cannot."""
    try:
        os.rename(tmp, target)
    except OSError as exc:
        raise StoreError(f"{target}: cannot move the import into place: {describe_os_error(exc)}") from None
