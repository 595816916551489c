"""Corruption: 1,000 random single-byte flips and truncations across batch files (issue 8, fault 3).

Every damaged file must be named by ``verify``; no read path (``Campaign.events``,
``Campaign.state`` with and without the snapshot cache, the historians' ``Catalog``)
may fold a state from the damaged log: each raises ``CorruptLogError`` (the Catalog
skips the campaign with a warning naming the file).

Flips are spread uniformly over every byte of every file (magic, pages, page
headers, footer, key-value metadata, footer length), so bytes that no Parquet
reader decodes are hit too; the per-file ``kingdomlog.file_sha256`` is what catches
those (see kingdomlog/store/log.py).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from kingdomlog.app import Campaign
from kingdomlog.core.errors import CorruptLogError
from kingdomlog.core.turn import Plan
from kingdomlog.projections.sql import Catalog

CASES = 1000
CATALOG_EVERY = 20  # the Catalog and the other read paths share EventLog.read_table; sampled to stay fast
DEEP_EVERY = 5


def _build(folder: Path) -> Campaign:
    camp = Campaign.create(folder, "toy-farm", name="Farm")
    camp.play(Plan.parse({"seed": "f0", "steps": {"found": {"choices": {"name": "Dale", "gold": 5}}}}))
    for t in range(1, 7):
        camp.play(Plan.parse({"seed": f"f{t}", "steps": {
            "harvest": {"choices": {"crop": "barley" if t % 2 else "wheat", "stash": t % 3}},
            "market": {"choices": {"sell": 1}}}}))
        if t == 3:
            camp.note("a long note " * 40, visibility="gm")
    return camp


def test_every_flip_and_truncation_is_detected(tmp_path: Path) -> None:
    camp = _build(tmp_path / "farm")
    folder = camp.folder
    assert camp.verify().ok
    files = camp.log.files()
    pristine = {p: p.read_bytes() for p in files}
    stats = {p: os.stat(p) for p in files}
    good_state = Campaign.open(folder).state(use_cache=False)
    rng = random.Random(8)
    total_bytes = sum(len(b) for b in pristine.values())
    weights = [len(pristine[p]) for p in files]
    kinds = {"flip": 0, "truncate": 0}
    for case in range(CASES):
        path = rng.choices(files, weights=weights)[0]
        data = pristine[path]
        if rng.random() < 0.8:
            off = rng.randrange(len(data))
            bad = bytearray(data)
            bad[off] ^= rng.randrange(1, 256)
            damaged = bytes(bad)
            kinds["flip"] += 1
            what = f"flip at byte {off}/{len(data)}"
        else:
            cut = rng.randrange(len(data))
            damaged = data[:cut]
            kinds["truncate"] += 1
            what = f"truncate to {cut}/{len(data)}"
        path.write_bytes(damaged)
        if case % 2:
            # keep size-independent metadata as it was: the verified-files cache must not hide the damage
            os.utime(path, ns=(stats[path].st_atime_ns, stats[path].st_mtime_ns))
        try:
            report = Campaign.open(folder).verify()
            assert not report.ok, f"case {case}: {what} in {path.name} not detected by verify"
            assert any(path.name in p for p in report.problems), (case, what, report.problems)
            reads = [lambda c: c.state()]
            if case % DEEP_EVERY == 0:
                reads += [lambda c: c.events(), lambda c: c.state(use_cache=False), lambda c: c.state(until_turn=2)]
            for read in reads:
                with pytest.raises(CorruptLogError) as info:
                    read(Campaign.open(folder))
                assert path.name in str(info.value), (case, what)
            if case % CATALOG_EVERY == 0:
                cat = Catalog(tmp_path, campaigns=[folder])
                assert cat.con.execute("select count(*) from states").fetchone() == (0,), (case, what)
                assert cat.con.execute("select count(*) from events").fetchone() == (0,), (case, what)
                assert any(path.name in w for w in cat.warnings), (case, what, cat.warnings)
        finally:
            path.write_bytes(data)
            os.utime(path, ns=(stats[path].st_atime_ns, stats[path].st_mtime_ns))
    assert kinds["flip"] > 700 and kinds["truncate"] > 150, kinds
    assert total_bytes > 10_000
    # restored: the log is whole again and folds the same state
    assert Campaign.open(folder).verify().ok
    assert Campaign.open(folder).state() == good_state


def test_deleted_or_swapped_batches_are_detected(tmp_path: Path) -> None:
    camp = _build(tmp_path / "farm")
    files = camp.log.files()
    middle = files[3]
    data = middle.read_bytes()
    middle.unlink()
    report = Campaign.open(camp.folder).verify()
    assert not report.ok and any("gap" in p for p in report.problems), report.problems
    middle.write_bytes(data)
    assert Campaign.open(camp.folder).verify().ok
    # a batch from another campaign with the same name and seq is refused
    other = _build(tmp_path / "other")
    foreign = other.log.files()[3]
    middle.write_bytes(foreign.read_bytes())
    report = Campaign.open(camp.folder).verify()
    assert not report.ok and any(middle.name in p for p in report.problems), report.problems
    middle.write_bytes(data)
    assert Campaign.open(camp.folder).verify().ok
