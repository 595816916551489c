"""The store's fast paths (issue 18) give what the slow ones give: correctness, not timings.

- an append starts from the recorded head and never lists ``log/`` (so it does not grow with the log),
  and still finds the real head when the record is behind;
- a file whose identity on disk is the recorded one is not read again; one rewritten in place is;
- the cold state is folded as the log is read, and equals the fold of the whole event list, also
  when the verified record (where the retractions come from) is missing or out of date.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import time
from pathlib import Path

import pytest
import toyrules

from kingdomlog.app import Campaign
from kingdomlog.core.errors import ConflictError, CorruptLogError, RuleError, StoreError
from kingdomlog.core.events import Draft
from kingdomlog.core.fold import fold, retracted_commits
from kingdomlog.core.turn import Plan
from kingdomlog.store import log as logmod
from kingdomlog.store.log import EventLog


def sold(n: int = 1, turn: int = 1) -> Draft:
    return Draft(toyrules.Sold(food=0, gold=n), turn=turn)


def test_an_append_never_lists_the_log_folder(toy_campaign: Campaign, monkeypatch: pytest.MonkeyPatch) -> None:
    log = toy_campaign.log
    head = log.append([sold()], expect_seq=5).last_seq  # leaves a record written by an append

    def no_listing(*_a: object, **_k: object) -> object:
        raise AssertionError("log/ was listed")

    monkeypatch.setattr(EventLog, "files", no_listing)
    monkeypatch.setattr(EventLog, "_last_file", no_listing)
    for i in range(5):
        res = log.append([sold(i + 1)], expect_seq=head)
        assert res.first_seq == head + 1
        head = res.last_seq
        assert log.head().seq == head
    with pytest.raises(AssertionError, match="was listed"):  # a stale expect_seq is decided on the log itself
        log.append([sold()], expect_seq=2)
    monkeypatch.undo()
    with pytest.raises(ConflictError, match=f"expected the log to end at seq 2, but it ends at seq {head}"):
        log.append([sold()], expect_seq=2)
    assert Campaign.open(toy_campaign.folder).verify().ok


def test_a_record_behind_the_log_is_caught_by_the_next_name(toy_campaign: Campaign) -> None:
    folder = toy_campaign.folder
    toy_campaign.log.append([sold()], expect_seq=5)
    other = EventLog(folder / "log", toy_campaign.id)  # a writer without the cache: the record stays at 6
    other.append([sold(2)], expect_seq=6)
    other.append([sold(3)], expect_seq=7)
    assert toy_campaign.log.recorded_head() is not None and toy_campaign.log.recorded_head().seq == 6
    assert toy_campaign.log.head().seq == 8  # batch 7 exists: the record is not trusted
    with pytest.raises(ConflictError, match="expected the log to end at seq 6, but it ends at seq 8"):
        toy_campaign.log.append([sold()], expect_seq=6)
    res = toy_campaign.log.append([sold(4)])  # no expect_seq: appended after the real head
    assert (res.first_seq, res.last_seq) == (9, 9)
    res = toy_campaign.log.append([sold(5)], expect_seq=9)
    assert res.first_seq == 10
    assert Campaign.open(folder).verify().ok
    assert Campaign.open(folder).state().gold == Campaign.open(folder).state(use_cache=False).gold


def test_a_deleted_newest_batch_is_still_refused_by_the_next_append(toy_campaign: Campaign) -> None:
    res = toy_campaign.log.append([sold()], expect_seq=5)
    Path(res.file).unlink()
    with pytest.raises(StoreError, match=r"nothing appended: the log ends at seq 5, but log/\.heads recorded seq 6"):
        toy_campaign.log.append([sold()], expect_seq=5)


def test_files_whose_identity_holds_are_not_read_again(toy_campaign: Campaign, monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    monkeypatch.setattr(logmod, "RACY_SECONDS", 0.0)  # record identities at once (the files were just written)
    folder = toy_campaign.folder
    expected = Campaign.open(folder).state(use_cache=False)
    reads: list[str] = []
    real = logmod.read_pinned

    def counting(path: Path) -> tuple[bytes, object]:
        reads.append(path.name)
        return real(path)

    monkeypatch.setattr(logmod, "read_pinned", counting)
    Campaign.open(folder).events()  # records every file's identity
    reads.clear()
    assert Campaign.open(folder).state() == expected  # warm: nothing before the snapshot is read
    assert reads == []
    target = Campaign.open(folder).log.files()[1]
    st = target.stat()
    time.sleep(0.05)  # past the file system clock's tick
    target.write_bytes(target.read_bytes())  # same bytes, rewritten: its ctime moves
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    reads.clear()
    assert Campaign.open(folder).state() == expected
    assert reads == [target.name]  # read and hashed once; its digest is still the recorded one
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 1
    time.sleep(0.05)
    target.write_bytes(bytes(data))
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    with pytest.raises(CorruptLogError, match=target.name):
        Campaign.open(folder).state()


def _play(camp: Campaign, rng: random.Random, n: int) -> None:
    for i in range(n):
        op = rng.random()
        if op < 0.6:
            camp.play(Plan.parse({"seed": f"s{i}", "steps": {
                "harvest": {"choices": {"crop": rng.choice(["wheat", "barley"]), "stash": rng.randrange(3)}},
                "market": {"choices": {"sell": rng.randrange(2)}}}}))
        elif op < 0.8:
            camp.note(f"note {i}", visibility=rng.choice(["public", "gm"]))
        elif camp.next_turn() > 1:
            with contextlib.suppress(RuleError):
                camp.retract(camp.next_turn() - 1, reason="test")


def test_the_streamed_cold_state_is_the_fold_of_the_event_list(tmp_path: Path) -> None:
    camp = Campaign.create(tmp_path / "farm", "toy-farm")
    camp.play(Plan.parse({"seed": "s", "steps": {"found": {"choices": {"name": "Dale", "gold": 5}}}}))
    rng = random.Random(18)
    for _round in range(6):
        _play(Campaign.open(camp.folder), rng, 6)
        c = Campaign.open(camp.folder)
        events = c.events()
        rs = c.ruleset
        want = fold(rs, rs.initial_state(c.context), events)
        for until in (None, 1, 3):
            want_u = fold(rs, rs.initial_state(c.context), events, until=until)
            assert Campaign.open(camp.folder).stream_state(until) == want_u
            assert Campaign.open(camp.folder).state(until, use_cache=False) == want_u
        assert Campaign.open(camp.folder).state() == want
        # no record of the retractions (deleted cache), or a record that misses the newest ones
        shutil.rmtree(camp.folder / ".cache")
        assert Campaign.open(camp.folder).state(use_cache=False) == want
    assert Campaign.open(camp.folder).latest().state == want
    # a retraction the verified record does not know yet (written by a writer without the cache): the
    # first pass folds with the recorded retractions, finds another, and folds again with the true set
    Campaign.open(camp.folder).events()
    w = Campaign.open(camp.folder)
    w.log = EventLog(w.log.dir, w.id)
    w.play(Plan.parse({"seed": "late", "steps": {"harvest": {"choices": {"crop": "wheat", "stash": 1}},
                                                 "market": {"choices": {"sell": 1}}}}))
    w.retract(w.next_turn() - 1, reason="late")
    c = Campaign.open(camp.folder)
    hint = c.log.retracted_hint()
    c.log = EventLog(c.log.dir, c.id)  # read without touching the record
    assert hint != retracted_commits(c.events())
    want = fold(c.ruleset, c.ruleset.initial_state(c.context), c.events())
    passes = []
    cold = Campaign.open(camp.folder)
    real = cold.log.iter_tables
    cold.log.iter_tables = lambda **kw: passes.append(1) or real(**kw)  # type: ignore[method-assign]
    assert cold.state(use_cache=False) == want and len(passes) == 2
