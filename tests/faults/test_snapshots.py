"""Snapshots are bound to the log prefix, to their own content and to the code and data that made them (issue 19, 2).

Editing ``.cache/snapshots/*.json`` used to change what ``state`` and the shared views show while
``verify`` said ok, and a code change kept serving states folded by the old code (the
fingerprint read a ruleset ``version`` no ruleset sets). Now a snapshot that does not match is
deleted and rebuilt, ``verify`` sweeps them, and an edit never changes what is shown.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from kingdomlog.app import Campaign
from kingdomlog.core.turn import Plan
from kingdomlog.core.viewers import Viewer
from kingdomlog.projections.sql import state_rows
from kingdomlog.store import cache, keys
from kingdomlog.views.player.page import player_view, render_static

ALICE = Viewer("player", "alice")

REPO = Path(__file__).resolve().parents[2]


def build(folder: Path) -> Campaign:
    camp = Campaign.create(folder, "toy-farm", name="Farm", viewers=["alice"])
    camp.play(Plan.parse({"seed": "s0", "steps": {"found": {"choices": {"name": "Dale", "gold": 5}}}}))
    for t in range(1, 4):
        camp.play(Plan.parse({"seed": f"s{t}", "steps": {"harvest": {"choices": {"stash": 1}},
                                                         "market": {"choices": {"sell": 1}}}}))
    return camp


def snapshots(folder: Path) -> list[Path]:
    return sorted((folder / ".cache" / "snapshots").glob("*.json"))


def edit(path: Path, **state: object) -> None:
    """What an editor (or a player with write access to a shared folder) does: change the state, keep the rest."""
    raw = path.read_bytes()
    doc = keys.loads_signed(raw)
    if doc is None:  # a snapshot of the code this branch started from: plain JSON
        doc = json.loads(raw)
    doc["state"].update(state)
    path.write_text(json.dumps(doc))


def test_an_edited_snapshot_never_changes_what_is_shown(tmp_path: Path) -> None:
    camp = build(tmp_path / "farm")
    truth = Campaign.open(camp.folder).state(use_cache=False)
    alice_page = render_static(camp.folder, "alice", generated_at=None).split("<footer>")[0]
    Campaign.open(camp.folder).state()
    Campaign.open(camp.folder).state()  # the warm path wrote its snapshot too
    assert snapshots(camp.folder)
    for snap in snapshots(camp.folder):
        edit(snap, gold=10_000, food=999)
    for read in (lambda: Campaign.open(camp.folder).state(), lambda: Campaign.open(camp.folder).state(until_turn=3)):
        assert read() == truth
    assert player_view(camp.folder, "alice").summary["gold"] == truth.gold
    assert render_static(camp.folder, "alice").split("<footer>")[0] == alice_page
    assert all(r["gold"] < 10_000 for r in state_rows(Campaign.open(camp.folder), ALICE))
    # the edited files were deleted and rebuilt; verify finds none left to sweep
    for snap in snapshots(camp.folder):
        assert keys.read_signed(snap) is not None
    for snap in snapshots(camp.folder):
        edit(snap, gold=10_000)
    report = Campaign.open(camp.folder).verify()
    assert report.ok and any("deleted" in w and "snapshot" in w for w in report.warnings), report.warnings
    assert snapshots(camp.folder) == []
    assert Campaign.open(camp.folder).state() == truth and snapshots(camp.folder)


def test_a_snapshot_of_another_log_is_not_used(tmp_path: Path) -> None:
    """Same ruleset, options and code (same fingerprint), another log: bound to its prefix, it is discarded."""
    camp = build(tmp_path / "farm")
    other = Campaign.create(tmp_path / "other" / "farm", "toy-farm", name="Farm", viewers=["alice"])
    other.play(Plan.parse({"seed": "x0", "steps": {"found": {"choices": {"name": "Rich", "gold": 900}}}}))
    for t in range(1, 4):
        other.play(Plan.parse({"seed": f"x{t}", "steps": {"harvest": {"choices": {}}}}))
    Campaign.open(other.folder).state()
    truth = Campaign.open(camp.folder).state(use_cache=False)
    shutil.rmtree(camp.folder / ".cache", ignore_errors=True)
    shutil.copytree(other.folder / ".cache" / "snapshots", camp.folder / ".cache" / "snapshots")
    assert Campaign.open(camp.folder).state() == truth
    assert Campaign.open(camp.folder).state(until_turn=2) == Campaign.open(camp.folder).state(2, use_cache=False)


def test_the_fingerprint_is_computed_once_per_process_and_cheaply(tmp_path: Path) -> None:
    camp = build(tmp_path / "farm")
    cache.code_digest.cache_clear()
    cache.core_digest.cache_clear()
    t = time.perf_counter()
    first = cache.fingerprint(camp.ruleset, camp.context, type(camp.state()))
    cold = time.perf_counter() - t
    for _ in range(50):
        Campaign.open(camp.folder).state()
        assert cache.fingerprint(camp.ruleset, camp.context, type(camp.state())) == first
    assert cache.core_digest.cache_info().misses == 1
    assert cache.code_digest.cache_info().misses == 1  # toyrules: the ruleset's and the state's module
    assert cold < 1.0, cold


RULESET_SRC = '''
"""A ruleset whose evolve the test edits between processes."""
import tomllib
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from kingdomlog.core.events import EventModel, register_event
from kingdomlog.core.ruleset import CampaignContext, Ruleset, register_ruleset

MULT = {mult}
BONUS = tomllib.loads((Path(__file__).parent / "data" / "bonus.toml").read_text())["bonus"]


@register_event
class Gained(EventModel):
    type = "stale.gained"
    version = 1
    n: int


class StaleState(BaseModel):
    model_config = ConfigDict(frozen=True)
    gold: int = 0


class StaleRules(Ruleset):
    id = "stale-farm"
    name = "Stale Farm"

    @property
    def event_types(self):
        return (Gained,)

    def initial_state(self, context: CampaignContext) -> StaleState:
        return StaleState()

    def evolve(self, state, event):
        return StaleState(gold=state.gold + event.payload.n * MULT + BONUS)


RULESET = register_ruleset(StaleRules())
'''

SCRIPT = '''
import sys
sys.path.insert(0, {pkgs!r})
import stalefarm.ruleset as rules
from kingdomlog.app import Campaign
from kingdomlog.core.events import Draft
from pathlib import Path
folder = Path({folder!r})
if not folder.exists():
    camp = Campaign.create(folder, "stale-farm")
    for n in (1, 2, 3):
        camp.log.append([Draft(rules.Gained(n=n), turn=n)], expect_seq=camp.head_seq)
for _ in range(2):  # the second read takes the warm path from the first one's snapshot
    camp = Campaign.open(folder)
    warm = camp.state().gold
print(warm, Campaign.open(folder).state(use_cache=False).gold)
'''


def test_a_change_of_ruleset_code_or_data_is_not_served_from_old_snapshots(tmp_path: Path) -> None:
    pkgs = tmp_path / "pkgs"
    pkg = pkgs / "stalefarm"
    (pkg / "data").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "data" / "bonus.toml").write_text("bonus = 0\n")
    folder = tmp_path / "camp"

    def run() -> tuple[int, int]:
        code = SCRIPT.format(pkgs=str(pkgs), folder=str(folder))
        res = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                             timeout=120, cwd=REPO)
        assert res.returncode == 0, res.stderr
        warm, cold = res.stdout.split()
        return int(warm), int(cold)

    (pkg / "ruleset.py").write_text(RULESET_SRC.format(mult=1))
    assert run() == (6, 6)
    assert snapshots(folder)
    (pkg / "ruleset.py").write_text(RULESET_SRC.format(mult=10))  # a rules fix in the code
    assert run() == (60, 60)
    (pkg / "data" / "bonus.toml").write_text("bonus = 100\n")  # a fix in the rules data
    assert run() == (360, 360)


@pytest.mark.parametrize("junk", [b"", b"not json", b"0" * 64 + b"\n{}", b'{"seq": 1}'])
def test_junk_snapshot_files_are_deleted_and_rebuilt(tmp_path: Path, junk: bytes) -> None:
    camp = build(tmp_path / "farm")
    truth = Campaign.open(camp.folder).state()
    for snap in snapshots(camp.folder):
        snap.write_bytes(junk)
    assert Campaign.open(camp.folder).state() == truth
    assert all(keys.read_signed(s) is not None for s in snapshots(camp.folder))
