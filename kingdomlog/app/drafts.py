"""The GM's draft turn, saved beside the log on every change (never part of it).

A campaign folder keeps its drafts in ``drafts/``::

    drafts/turn-0014.json                 # the draft of turn 14: choices, seed, re-rolls, typed faces
    drafts/committed/<commit_id>.json     # the plan each commit of the sheet played (for Undo)
    drafts/set-aside/turn-0014-<n>.json   # a draft that no longer fits the log (kept, not loaded)

The log never reads this folder and ``verify`` never checks it; deleting it loses
only unsaved work, never a fact. Files are written whole (a temp file, fsync, then
``os.replace``), so a crash leaves the previous draft or the new one, never half of
one. A draft records the log seq it started from; it stays valid for its turn while
the log only grows by notes or submissions, and is set aside (kept under
``set-aside/``) when its turn has been played by someone else.
"""

from __future__ import annotations

import json
import os
import tempfile
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from kingdomlog.core.errors import InputError, StoreError
from kingdomlog.core.turn import Plan
from kingdomlog.store.errors import describe_os_error

DRAFTS_DIR = "drafts"
FORMAT = 1
_COMMIT_IDS = uuid.UUID("6f1c2b0e-5a55-4c4e-9a7e-6b0c1d2e3f40")

Origin = Literal["sheet", "retracted", "cli"]


@dataclass(frozen=True)
class SavedDraft:
    """A draft read from disk: its turn, the log seq it started from, the plan and where it came from.

    ``origin`` is ``sheet`` (edited on the turn sheet), ``retracted`` (the plan of a
    turn that was undone, reopened with its dice) or ``cli``; ``commit_ids`` are the
    retracted commits a reopened plan had played.
    """

    turn: int
    start_seq: int
    plan: Plan
    origin: Origin = "sheet"
    commit_ids: tuple[str, ...] = ()

    def to_json(self) -> str:
        doc: dict[str, Any] = {"format": FORMAT, "turn": self.turn, "start_seq": self.start_seq,
                               "origin": self.origin, "commit_ids": list(self.commit_ids),
                               "plan": self.plan.model_dump(mode="json")}
        return json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def commit_id(campaign: str, start_seq: int, plan: Plan) -> str:
    """The commit id of playing ``plan`` (with its seed) on ``campaign`` from ``start_seq``.

    The same draft always commits under the same id, so a second click, tab or retry of it
    finds its own batch in the log and writes nothing (``Campaign.append``); any change of a
    choice, a die or the seq it starts from is another commit.

    >>> a = commit_id("farm", 7, Plan(turn=2, seed="s"))
    >>> a == commit_id("farm", 7, Plan(turn=2, seed="s")), a == commit_id("farm", 8, Plan(turn=2, seed="s"))
    (True, False)
    """
    key = json.dumps({"campaign": campaign, "start_seq": start_seq, "plan": plan.model_dump(mode="json")},
                     sort_keys=True, ensure_ascii=False)
    return str(uuid.uuid5(_COMMIT_IDS, key))


def _write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole: temp file in the same folder, fsync, ``os.replace``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".draft", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class Drafts:
    """The drafts folder of one campaign (``<campaign>/drafts``)."""

    def __init__(self, folder: str | Path) -> None:
        self.campaign_folder = Path(folder)
        self.dir = self.campaign_folder / DRAFTS_DIR

    # ---- paths ---------------------------------------------------------------------------

    def path(self, turn: int) -> Path:
        """Where the draft of ``turn`` lives."""
        return self.dir / f"turn-{turn:04d}.json"

    def committed_path(self, commit_id: str) -> Path:
        if not commit_id or any(c in commit_id for c in "/\\.") or len(commit_id) > 80:
            raise InputError(f"not a commit id: {commit_id!r}")
        return self.dir / "committed" / f"{commit_id}.json"

    # ---- the draft of a turn ---------------------------------------------------------------

    def load(self, turn: int) -> SavedDraft | None:
        """The saved draft of ``turn``, or None. A file that does not read is set aside and ``InputError`` raised.

        The error names the file and where it was moved, so nothing typed is lost.
        """
        p = self.path(turn)
        try:
            text = p.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StoreError(f"{p}: cannot read the saved draft: {exc.strerror}") from None
        try:
            return self._parse(text, source=str(p))
        except InputError as exc:
            moved = self.set_aside(turn)
            raise InputError(f"{exc}; the file was kept as {moved}") from None

    @staticmethod
    def _parse(text: str, *, source: str) -> SavedDraft:
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"{source}: not a saved draft ({exc.msg} at line {exc.lineno})") from None
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise InputError(f"{source}: not a saved draft of format {FORMAT}")
        turn, seq = doc.get("turn"), doc.get("start_seq")
        if not isinstance(turn, int) or not isinstance(seq, int) or turn < 0 or seq < 0:
            raise InputError(f"{source}: a saved draft needs a turn and a start_seq (integers >= 0)")
        origin = doc.get("origin", "sheet")
        if origin not in ("sheet", "retracted", "cli"):
            raise InputError(f"{source}: unknown origin {origin!r}")
        ids = doc.get("commit_ids", [])
        if not isinstance(ids, list) or not all(isinstance(x, str) for x in ids):
            raise InputError(f"{source}: commit_ids must be a list of strings")
        plan = Plan.parse(doc.get("plan") or {}, source=source)
        if plan.turn is not None and plan.turn != turn:
            raise InputError(f"{source}: the plan is for turn {plan.turn}, the draft for turn {turn}")
        return SavedDraft(turn, seq, plan, origin, tuple(ids))

    def save(self, draft: SavedDraft) -> bool:
        """Write ``draft`` as its turn's draft; False (nothing written) when the file already says the same."""
        text = draft.to_json()
        p = self.path(draft.turn)
        try:
            if p.read_text(encoding="utf-8") == text:
                return False
        except OSError:
            pass
        try:
            _write(p, text)
        except OSError as exc:
            raise StoreError(f"{p}: cannot save the draft: {exc.strerror}") from None
        return True

    def discard(self, turn: int) -> None:
        """Remove the draft of ``turn`` (after it was committed)."""
        self.path(turn).unlink(missing_ok=True)

    def set_aside(self, turn: int) -> Path | None:
        """Move the draft of ``turn`` to ``set-aside/`` (kept, no longer loaded); returns its new path."""
        p = self.path(turn)
        if not p.exists():
            return None
        target_dir = self.dir / "set-aside"
        target_dir.mkdir(parents=True, exist_ok=True)
        n = 1
        while (target_dir / f"turn-{turn:04d}-{n}.json").exists():
            n += 1
        target = target_dir / f"turn-{turn:04d}-{n}.json"
        os.replace(p, target)
        return target

    def turns(self) -> list[int]:
        """The turns that have a saved draft, in order."""
        out = []
        for p in self.dir.glob("turn-*.json") if self.dir.is_dir() else ():
            stem = p.stem.removeprefix("turn-")
            if stem.isdigit():
                out.append(int(stem))
        return sorted(out)

    # ---- committed plans (for Undo) ----------------------------------------------------------

    def record_commit(self, commit_id: str, turn: int, plan: Plan) -> Path:
        """Keep the plan a commit played (with its seed and dice) so an Undo can reopen it."""
        p = self.committed_path(commit_id)
        doc = SavedDraft(turn, 0, plan.model_copy(update={"turn": turn}), "sheet").to_json()
        try:
            _write(p, doc)
        except OSError as exc:
            raise StoreError(f"{p}: cannot keep the committed plan: {describe_os_error(exc)}") from None
        return p

    def committed_plan(self, commit_ids: Iterable[str]) -> Plan | None:
        """The plan recorded for the first of ``commit_ids`` that has one, else None."""
        for cid in commit_ids:
            try:
                p = self.committed_path(cid)
                return self._parse(p.read_text(encoding="utf-8"), source=str(p)).plan
            except (OSError, InputError):
                continue
        return None

    def reopen(self, turn: int, commit_ids: Iterable[str], start_seq: int) -> SavedDraft | None:
        """After ``turn`` was retracted: its committed plan (choices, seed, re-rolls, typed faces) as its draft.

        A draft of a later turn (now unreachable) is set aside. Returns the reopened
        draft, or None when no plan was recorded for those commits (a turn played
        outside the sheet and ``kingdomlog turn``).
        """
        ids = tuple(commit_ids)
        for later in self.turns():
            if later > turn:
                self.set_aside(later)
        plan = self.committed_plan(ids)
        if plan is None:
            return None
        if self.path(turn).exists():
            self.set_aside(turn)
        draft = SavedDraft(turn, start_seq, plan.model_copy(update={"turn": turn}), "retracted", ids)
        self.save(draft)
        return draft


__all__ = ["DRAFTS_DIR", "Drafts", "SavedDraft", "commit_id"]
