"""Regenerate the Signoria demo campaign ``campaigns/felmonte`` from its plan files.

``python -m tests.signoria.make_demo [DEST]`` founds the campaign and plays ``plans/turn-00.json``,
``turn-01.json`` ... through the store, as ``kingdomlog turn DIR --plan PLAN`` does, then puts
``campaign.toml`` and ``log/`` next to the plans.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from kingdomlog.app import Campaign
from kingdomlog.core.turn import Plan

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "campaigns" / "felmonte"


def plan_files(folder: Path = DEMO) -> list[Path]:
    return sorted((folder / "plans").glob("turn-*.json"))


def build(dest: Path, plans: list[Path]) -> Campaign:
    """Create a campaign at ``dest`` and play every plan in order."""
    camp = Campaign.create(dest, "signoria", name="The Signoria of Felmonte", viewers=["fabian", "marburg"])
    for p in plans:
        camp.play(Plan.parse(p.read_text(encoding="utf-8"), source=str(p)))
    return camp


def make_demo(folder: Path = DEMO) -> Campaign:
    """Rebuild ``folder``'s campaign.toml and log/ from ``folder/plans`` (other files are kept)."""
    plans = plan_files(folder)
    with tempfile.TemporaryDirectory() as tmp:
        built = Path(tmp) / folder.name
        build(built, plans)
        shutil.copy2(built / "campaign.toml", folder / "campaign.toml")
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
