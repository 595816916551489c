"""Regenerate the demo campaign ``campaigns/stolen-lands`` from its plan files.

``python -m tests.pf2e.make_demo [DEST]`` founds the campaign and plays
``plans/turn-00.json``, ``turn-01.json`` ... through the store, exactly as
``kingdomlog turn DIR --plan PLAN`` does, then puts ``campaign.toml`` and ``log/``
next to the plans. The dice come from each plan's seed (and any faces typed in
its ``rolls``), so the same plans always give the same kingdom.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from kingdomlog.app import Campaign
from kingdomlog.core.turn import Plan

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "campaigns" / "stolen-lands"


def plan_files(folder: Path = DEMO) -> list[Path]:
    return sorted((folder / "plans").glob("turn-*.json"))


def build(dest: Path, plans: list[Path]) -> Campaign:
    """Create a campaign at ``dest`` (a new folder) and play every plan in order."""
    camp = Campaign.create(dest, "pf2e-kingmaker", name="The Stolen Lands")
    for p in plans:
        camp.play(Plan.parse(p.read_text(encoding="utf-8"), source=str(p)))
    return camp


def make_demo(folder: Path = DEMO) -> Campaign:
    """Rebuild ``folder``'s campaign.toml and log/ from ``folder/plans`` (other files are kept)."""
    plans = plan_files(folder)
    with tempfile.TemporaryDirectory() as tmp:
        built = Path(tmp) / folder.name
        build(built, plans)
        for name in ("campaign.toml",):
            shutil.copy2(built / name, folder / name)
        if (folder / "log").exists():
            shutil.rmtree(folder / "log")
        shutil.copytree(built / "log", folder / "log")
    if (folder / ".cache").exists():
        shutil.rmtree(folder / ".cache")
    return Campaign.open(folder)


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else DEMO
    camp = make_demo(target)
    print(f"{target}: {camp.head_seq} events, next turn {camp.next_turn()}")
