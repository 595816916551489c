"""Regenerate the months of the demo campaign ``campaigns/stolen-lands`` that are played from plans.

The demo's log has two parts:

- **the history**: the founding and months 1-14 (``plans/turn-00.json`` ... ``turn-14.json``). Months 0-13
  were recorded before pf2e hexes had coordinates (today's rules would refuse their Claim Hex of hexes given
  without coordinates); month 14, where the GM places the map's hexes, was recorded before issue 15's event
  versions (today it would record Ruin, Unrest and Fame with the values after). Those events are kept exactly
  as committed (the golden copies check every turn), copied from the committed log, never re-played;
- **the months played from plans today**: ``plans/turn-15.json`` onward, played onto the history through the
  store exactly as ``kingdomlog turn DIR --plan PLAN`` does.

``python -m tests.pf2e.make_demo [DEST]`` rebuilds ``DEST`` (default: the demo) so: the history copied from
the committed log, then every later plan played. The dice come from each plan's seed (and any faces typed
in its ``rolls``), so the same plans always give the same kingdom.
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
HISTORY_TURNS = 15
"""Turns 0-14: recorded before issue 15's event versions (0-13 before hex coordinates too); copied from the
committed log, not re-played."""


def plan_files(folder: Path = DEMO) -> list[Path]:
    return sorted((folder / "plans").glob("turn-*.json"))


def plan_turn(path: Path) -> int:
    return int(path.stem.split("-")[1])


def played_plans(folder: Path = DEMO) -> list[Path]:
    """The plans played with today's rules (months after the history)."""
    return [p for p in plan_files(folder) if plan_turn(p) >= HISTORY_TURNS]


def history(dest: Path, turns: int = HISTORY_TURNS, source: Path = DEMO) -> Campaign:
    """A new campaign at ``dest`` holding the committed demo log's turns ``0 .. turns - 1`` byte for byte:
    ``campaign.toml`` and the log's batch files of those turns (one file per committed batch, named by its
    first seq), so every event keeps its payload text, version and hash."""
    events = Campaign.open(source).events()
    last = max(e.seq for e in events if e.turn < turns)
    if any(e.seq <= last and e.turn >= turns for e in events):
        raise ValueError(f"{source}: turns are not in log order; cannot cut the log after turn {turns - 1}")
    (dest / "log").mkdir(parents=True)
    shutil.copy2(source / "campaign.toml", dest / "campaign.toml")
    for f in sorted((source / "log").glob("*.parquet")):
        if int(f.stem) <= last:
            shutil.copy2(f, dest / "log" / f.name)
    camp = Campaign.open(dest)
    if camp.head_seq != last:
        raise ValueError(f"{source}: the log's batch files do not end at seq {last} after turn {turns - 1}")
    return camp


def build(dest: Path, plans: list[Path] | None = None, *, source: Path = DEMO) -> Campaign:
    """The demo at ``dest`` (a new folder): the committed history, then ``plans`` (default: every plan after
    the history) played in order."""
    camp = history(dest, source=source)
    for p in played_plans(source) if plans is None else plans:
        camp.play(Plan.parse(p.read_text(encoding="utf-8"), source=str(p)))
    return camp


def make_demo(folder: Path = DEMO) -> Campaign:
    """Rebuild ``folder``'s log: its history kept, the later months played again from ``folder/plans``."""
    with tempfile.TemporaryDirectory() as tmp:
        built = Path(tmp) / folder.name
        build(built, source=folder)
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
