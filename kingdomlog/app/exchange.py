"""Export and import: a campaign as JSONL (a header with its config, then one line per event).

A GM export reproduces the log exactly on import (batches keep their commit ids, event
ids and times, so the hash chain comes out the same); a viewer's export holds only the
events that viewer may see.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from kingdomlog.core.core_events import CampaignConfigured
from kingdomlog.core.errors import InputError, StoreError
from kingdomlog.core.events import Draft, decode_payload
from kingdomlog.core.viewers import GM_VIEWER, Viewer
from kingdomlog.store.config import CampaignConfig, write_config
from kingdomlog.store.log import EventLog, Stamp

if TYPE_CHECKING:
    from kingdomlog.app.campaign import Campaign

EXPORT_FORMAT = 1


@dataclass(frozen=True)
class Imported:
    """One exported event read back: the draft, its own id and time, and its batch's commit id."""

    draft: Draft
    stamp: Stamp
    commit_id: str


def export_lines(camp: Campaign, viewer: str | Viewer = GM_VIEWER) -> list[str]:
    """JSONL: a header line with the config, then one line per event visible to ``viewer``."""
    v = viewer if isinstance(viewer, Viewer) else camp.viewer(viewer)
    header = {"kingdomlog_export": EXPORT_FORMAT, "campaign": camp.config.model_dump(mode="json"), "viewer": v.id}
    out = [json.dumps(header, sort_keys=True)]
    for ev in camp.visible_events(v):
        env = ev.envelope()
        env["recorded_at"] = ev.recorded_at.isoformat()
        env["payload"] = json.loads(ev.payload_text)
        out.append(json.dumps(env, sort_keys=True, ensure_ascii=False))
    return out

def read_export(lines: Sequence[str], *, source: str = "import") -> tuple[CampaignConfig, list[Imported]]:
    """The config and the events of an export (each with its batch's commit id and its own id and time).

    Raises ``InputError`` naming the line of anything that is not an exported event.
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
    rows: list[Imported] = []
    for n, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            model = decode_payload(obj["type"], int(obj["version"]), obj["payload"], seq=obj.get("seq"))
            rows.append(Imported(
                Draft(model, phase=obj.get("phase"), actor=obj["actor"], visibility=obj["visibility"],
                      turn=int(obj["turn"])),
                Stamp(obj["event_id"], datetime.fromisoformat(obj["recorded_at"])), obj["commit_id"]))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise InputError(f"{source} line {n}: not an exported event ({exc})") from None
    if not rows or not isinstance(rows[0].draft.payload, CampaignConfigured):
        raise InputError(f"{source}: the export does not start with core.campaign_configured")
    return cfg, rows


def prepare_folder(folder: str | Path, cfg: CampaignConfig) -> Path:
    """An empty ``folder`` made into a campaign folder with ``cfg`` (no events yet)."""
    path = Path(folder)
    if path.exists() and any(path.iterdir()):
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
