"""The recorded head as two signed slots rewritten in turn (``.cache/head.rec``).

An append used to write the head record to a temp file and rename it over the old one; on ext4
that rename flushes the new file first (about half a millisecond of a 2-4 ms append). The record
is now rewritten in place, in the slot the last record was not read from. What these tests hold
it to: a torn or forged slot costs only that slot (the one before it still answers), a planted
symlink or FIFO is never written through or waited on, a folder whose cache an older version
wrote (``head.json``) keeps its witness, and a deleted newest batch is still caught.
"""

from __future__ import annotations

import itertools
import os
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kingdomlog.app import Campaign
from kingdomlog.core.core_events import NoteAdded
from kingdomlog.core.errors import StoreError
from kingdomlog.core.events import Draft
from kingdomlog.core.turn import Plan
from kingdomlog.store import keys
from kingdomlog.store.log import HEAD_NAME, HEAD_SLOT, LEGACY_HEAD_NAME


def slots(camp: Campaign) -> list[object]:
    return keys.read_signed_slots(camp.folder / ".cache" / HEAD_NAME, HEAD_SLOT)


def test_appends_alternate_between_the_two_slots(toy_campaign: Campaign) -> None:
    log = toy_campaign.log
    seqs = []
    for i in range(4):
        toy_campaign.note(f"n{i}")
        docs = slots(toy_campaign)
        assert all(isinstance(d, dict) for d in docs), docs
        seqs.append(sorted(d["seq"] for d in docs))  # type: ignore[index]
        rec = log.recorded_head()
        assert rec is not None and rec.seq == log.head().seq == max(seqs[-1])
    # each append replaced the older of the two: the pair always holds the last two heads
    for a, b in itertools.pairwise(seqs):
        assert b[0] == a[1] and b[1] > a[1]
    assert (toy_campaign.folder / ".cache" / HEAD_NAME).stat().st_size == 2 * HEAD_SLOT


def test_a_torn_newest_slot_falls_back_to_the_record_before_it(toy_campaign: Campaign) -> None:
    toy_campaign.note("one")
    before = toy_campaign.log.recorded_head()
    toy_campaign.note("two")
    newest = toy_campaign.log.recorded_head()
    assert before is not None and newest is not None and newest.seq > before.seq
    path = toy_campaign.folder / ".cache" / HEAD_NAME
    data = bytearray(path.read_bytes())
    at = (newest.slot or 0) * HEAD_SLOT + 100  # inside the body: a crash that tore the write
    data[at] ^= 0x01
    path.write_bytes(bytes(data))
    rec = Campaign.open(toy_campaign.folder).log.recorded_head()
    assert rec is not None and (rec.seq, rec.hash) == (before.seq, before.hash)
    # the log itself is whole: it verifies, and the next append goes on (into the torn slot)
    camp = Campaign.open(toy_campaign.folder)
    assert camp.verify().problems == []
    camp.note("three")
    after = camp.log.recorded_head()
    assert after is not None and after.seq == camp.log.head().seq


def test_a_deleted_newest_batch_is_still_refused(toy_campaign: Campaign) -> None:
    toy_campaign.note("one")
    toy_campaign.note("two")
    toy_campaign.log.files()[-1].unlink()
    with pytest.raises(StoreError, match=r"the log ends at seq \d+, but log/.heads recorded seq"):
        Campaign.open(toy_campaign.folder).note("on top of the hole")
    log = Campaign.open(toy_campaign.folder).log
    with pytest.raises(StoreError, match="nothing appended: the log ends at seq"):
        log.append([Draft(NoteAdded(text="on top of the hole"), turn=0)], expect_seq=log.head(check=False).seq)
    problems = Campaign.open(toy_campaign.folder).verify().problems
    assert any(".cache/head.rec recorded seq" in p for p in problems), problems


def test_a_planted_symlink_is_replaced_not_written_through(toy_campaign: Campaign, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    path = toy_campaign.folder / ".cache" / HEAD_NAME
    path.unlink()
    path.symlink_to(victim)
    toy_campaign.note("after the plant")
    assert victim.read_text() == "precious\n"
    assert not path.is_symlink() and path.is_file()
    rec = toy_campaign.log.recorded_head()
    assert rec is not None and rec.seq == toy_campaign.log.head().seq


def test_a_planted_hard_link_is_not_written_through(toy_campaign: Campaign, tmp_path: Path) -> None:
    other = tmp_path / "other.bin"
    path = toy_campaign.folder / ".cache" / HEAD_NAME
    os.link(path, other)
    before = other.read_bytes()
    toy_campaign.note("after the link")
    assert other.read_bytes() == before
    assert path.stat().st_nlink == 1
    assert toy_campaign.log.recorded_head().seq == toy_campaign.log.head().seq  # type: ignore[union-attr]


def test_a_planted_fifo_does_not_hang_an_append(toy_campaign: Campaign) -> None:
    path = toy_campaign.folder / ".cache" / HEAD_NAME
    path.unlink()
    os.mkfifo(path)
    done = threading.Event()

    def go() -> None:
        toy_campaign.note("past the fifo")
        done.set()

    t = threading.Thread(target=go, daemon=True)
    t.start()
    t.join(10)
    assert done.is_set(), "the append waited on a FIFO"
    assert path.is_file() and toy_campaign.log.recorded_head().seq == toy_campaign.log.head().seq  # type: ignore[union-attr]


def test_an_older_version_s_head_json_is_read_then_superseded(toy_campaign: Campaign) -> None:
    camp = toy_campaign
    cache = camp.folder / ".cache"
    rec = camp.log.recorded_head()
    assert rec is not None
    (cache / HEAD_NAME).unlink()
    assert keys.write_signed(cache / LEGACY_HEAD_NAME, {  # what the older version wrote
        "campaign": camp.id, "seq": rec.seq, "hash": rec.hash, "at": rec.at, "file": rec.file,
        "file_sha": rec.file_sha, "dir_mtime": rec.dir_mtime})
    legacy = Campaign.open(camp.folder).log.recorded_head()
    assert legacy is not None and (legacy.seq, legacy.hash, legacy.slot) == (rec.seq, rec.hash, None)
    # its witness still holds: the newest batch deleted is refused (log/.heads removed too: head.json alone tells)
    (camp.folder / "log" / ".heads").unlink()
    newest = camp.log.files()[-1]
    data = newest.read_bytes()
    newest.unlink()
    with pytest.raises(StoreError, match=r"head.json recorded seq \d+ as its head"):
        Campaign.open(camp.folder).note("on top of the hole")
    newest.write_bytes(data)
    # the next append writes head.rec and removes head.json
    again = Campaign.open(camp.folder)
    again.note("after the upgrade")
    assert not (cache / LEGACY_HEAD_NAME).exists()
    now = again.log.recorded_head()
    assert now is not None and now.slot is not None and now.seq == again.log.head().seq


def test_the_longest_campaign_id_fits_a_slot(tmp_path: Path) -> None:
    cid = "k" + "x" * 63
    camp = Campaign.create(tmp_path / "long", "toy-farm", name="Long", campaign_id=cid)
    camp.play(Plan.parse({"seed": "s0", "steps": {"found": {"choices": {"name": "Dale", "gold": 5}}}}))
    rec = camp.log.recorded_head()
    assert rec is not None and rec.seq == camp.log.head().seq and rec.slot is not None
    doc = next(d for d in slots(camp) if isinstance(d, dict))
    assert len(keys.dumps_signed(doc)) <= HEAD_SLOT


OPS = st.lists(st.sampled_from(["append", "append", "append", "tear0", "tear1", "drop", "legacy", "rollback",
                                "read"]), min_size=1, max_size=14)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS)
def test_whatever_befalls_the_record_it_only_ever_names_a_true_head(tmp_path_factory: pytest.TempPathFactory,
                                                                   ops: list[str]) -> None:
    """Appends, torn slots, a deleted record, an older version's record, an older copy of the record put back,
    full reads, in any order: the record never names a head the log does not have, no append is refused, and
    the log verifies."""
    folder = tmp_path_factory.mktemp("slots") / "farm"
    camp = Campaign.create(folder, "toy-farm", name="Farm")
    camp.play(Plan.parse({"seed": "s0", "steps": {"found": {"choices": {"name": "Dale", "gold": 5}}}}))
    cache = folder / ".cache"
    path = cache / HEAD_NAME
    saved: list[bytes] = []
    for i, op in enumerate(ops):
        if op == "append":
            Campaign.open(folder).note(f"n{i}")
            if path.exists():
                saved.append(path.read_bytes())
        elif op in ("tear0", "tear1") and path.exists():
            data = bytearray(path.read_bytes())
            base = 0 if op == "tear0" else HEAD_SLOT
            at = data.find(b'"hash":"', base, base + HEAD_SLOT)  # a torn write that still parses: a wrong hash
            if at >= 0:
                at += len(b'"hash":"')
                data[at] = ord("0") if data[at] != ord("0") else ord("1")
                path.write_bytes(bytes(data))
        elif op == "drop":
            path.unlink(missing_ok=True)
        elif op == "legacy":
            events = Campaign.open(folder).events()
            path.unlink(missing_ok=True)
            keys.write_signed(cache / LEGACY_HEAD_NAME, {"campaign": camp.id, "seq": events[-1].seq,
                                                         "hash": events[-1].hash, "at": ""})
        elif op == "rollback" and saved:
            path.write_bytes(saved[0])  # an older copy of the record: older, but of the same chain
        elif op == "read":
            Campaign.open(folder).state(use_cache=False)
        now = Campaign.open(folder)
        events = now.events()
        rec = now.log.recorded_head()
        if rec is not None:
            assert 1 <= rec.seq <= events[-1].seq, (op, rec, events[-1].seq)
            assert events[rec.seq - 1].hash == rec.hash, (op, rec)
        assert now.verify().problems == [], op
