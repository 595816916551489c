"""The warm snapshot path (``Campaign.state`` decoding only events after the snapshot) equals a cold replay.

Random plays, notes and retractions; after each, a fresh ``Campaign.open(...).state()``
(which takes the warm path once a snapshot exists) must equal ``state(use_cache=False)``,
and a byte flip in a file before the snapshot must still be refused on the warm path.
"""

from __future__ import annotations

import contextlib
import random
from pathlib import Path

import pytest

from kingdomlog.app import Campaign
from kingdomlog.core.errors import CorruptLogError, RuleError
from kingdomlog.core.turn import Plan
from kingdomlog.core.viewers import Viewer

ALICE = Viewer("player", "alice")


def test_warm_path_equals_cold_replay(tmp_path: Path) -> None:
    camp = Campaign.create(tmp_path / "farm", "toy-farm", viewers=["alice"])
    camp.play(Plan.parse({"seed": "s", "steps": {"found": {"choices": {"name": "Dale", "gold": 5}}}}))
    rng = random.Random(5)
    warm_hits = 0
    for i in range(60):
        c = Campaign.open(camp.folder)
        op = rng.random()
        if op < 0.6:
            c.play(Plan.parse({"seed": f"s{i}", "steps": {
                "harvest": {"choices": {"crop": rng.choice(["wheat", "barley"]), "stash": rng.randrange(3)}},
                "market": {"choices": {"sell": rng.randrange(2)}}}}))
        elif op < 0.8:
            c.note(f"note {i}", visibility=rng.choice(["public", "gm"]))
        elif c.next_turn() > 1:  # keep the founding turn
            turn = c.next_turn() - 1
            with contextlib.suppress(RuleError):
                c.retract(turn, reason="test")
        warm = Campaign.open(camp.folder)
        got = warm.state()
        warm_hits += warm.cache.hits
        assert got == Campaign.open(camp.folder).state(use_cache=False), i
        assert Campaign.open(camp.folder).state(viewer=ALICE) == Campaign.open(camp.folder).state(
            use_cache=False, viewer=ALICE)
    assert warm_hits >= 30  # the warm path was really taken


def test_warm_path_still_checks_every_file(tmp_path: Path) -> None:
    camp = Campaign.create(tmp_path / "farm", "toy-farm")
    camp.play(Plan.parse({"seed": "s", "steps": {"found": {"choices": {"name": "Dale", "gold": 5}}}}))
    for i in range(5):
        camp.play(Plan.parse({"seed": f"s{i}", "steps": {"harvest": {"choices": {}}}}))
    Campaign.open(camp.folder).state()
    warm = Campaign.open(camp.folder)
    warm.state()
    assert warm.cache.hits == 1
    target = camp.log.files()[2]
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0x01
    target.write_bytes(bytes(data))
    with pytest.raises(CorruptLogError, match=target.name):
        Campaign.open(camp.folder).state()
