"""A log that lost its newest batch is never served or appended to as if whole (issue 28, item 2).

The attack: delete the newest ``log/*.parquet``, then spoil both slots of ``.cache/head.rec``
(``printf x | dd of=.cache/head.rec conv=notrunc``, and again at ``seek=1024``), or delete
``.cache/`` altogether. ``verify`` used to say ok, the next ``note`` reused the deleted seq, and
``state``, ``log``, ``share -o`` and ``export`` served the shorter log with exit 0.

Now the log keeps its own record of its heads (``log/.heads``, a line per append beside the
batches, see ``store/witness.py``). For each way of losing the batch: ``verify`` exits 1 naming the missing
seq, ``note`` and a raw append refuse (the deleted seq is not reused), and every read path exits
1 saying so, writing nothing; ``verify --accept-head`` is the one explicit way on. And what a
record cannot tell is shown too: a torn slot from a crash (the batch is there) stops nothing.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from clirun import run

from kingdomlog.app import Campaign
from kingdomlog.core.core_events import NoteAdded
from kingdomlog.core.errors import CorruptLogError, StoreError
from kingdomlog.core.events import Draft
from kingdomlog.core.turn import Plan
from kingdomlog.store import log as logmod
from kingdomlog.store import witness
from kingdomlog.store.witness import WITNESS_NAME


def build(folder: Path) -> Campaign:
    camp = Campaign.create(folder, "toy-farm", name="Farm", viewers=["alice"])
    camp.play(Plan.parse({"seed": "s0", "steps": {"found": {"choices": {"name": "Dale", "gold": 5}}}}))
    camp.play(Plan.parse({"seed": "s1", "steps": {"harvest": {"choices": {"stash": 1}}}}))
    camp.note("the newest batch")
    Campaign.open(folder).state()  # a read too: snapshots and the verified record are there
    return camp


def dd_x(path: Path, seek: int, bs: int = 1) -> None:
    """``printf x | dd of=PATH conv=notrunc seek=SEEK bs=BS``, as the issue did."""
    subprocess.run(["dd", f"of={path}", "conv=notrunc", f"seek={seek}", f"bs={bs}", "status=none"], input=b"x",
                   check=True)


def tear_both_slots(folder: Path) -> None:
    rec = folder / ".cache" / "head.rec"
    dd_x(rec, 0)
    dd_x(rec, 1024)


def tear_as_written(folder: Path) -> None:
    """The issue's commands verbatim: ``dd seek=1024`` counts 512-byte blocks, so it writes past both slots and only
    the newest slot is spoilt; the older one then names exactly the shortened log's head."""
    rec = folder / ".cache" / "head.rec"
    dd_x(rec, 0, bs=512)
    dd_x(rec, 1024, bs=512)


def tear_newest_slot(folder: Path) -> None:
    """Only the slot of ``head.rec`` naming the deleted batch: the other slot names the shortened log's head."""
    rec = Campaign.open(folder).log.recorded_head()
    assert rec is not None and rec.slot is not None
    dd_x(folder / ".cache" / "head.rec", rec.slot * 1024)


def delete_cache(folder: Path) -> None:
    shutil.rmtree(folder / ".cache")


def delete_cache_and_record(folder: Path) -> None:
    """Everything that recorded the head goes: what is left is the newest remaining batch saying it was kept."""
    shutil.rmtree(folder / ".cache")
    (folder / "log" / WITNESS_NAME).unlink()


def line_starts(path: Path) -> list[int]:
    data = path.read_bytes()
    return [0] + [i + 1 for i, b in enumerate(data[:-1]) if b == ord("\n")]


def tear_record_newest_line(folder: Path) -> None:
    """The log's own record loses the line naming the deleted batch; the line before names the shortened log's head."""
    path = folder / "log" / WITNESS_NAME
    dd_x(path, line_starts(path)[-1])
    shutil.rmtree(folder / ".cache")


def tear_record_every_line(folder: Path) -> None:
    path = folder / "log" / WITNESS_NAME
    for at in line_starts(path):
        dd_x(path, at)
    tear_both_slots(folder)


SPOIL: dict[str, Callable[[Path], None]] = {
    "head.rec both slots torn": tear_both_slots,
    "head.rec torn as the issue typed it": tear_as_written,
    "head.rec newest slot torn": tear_newest_slot,
    ".cache deleted": delete_cache,
    ".cache and log/.heads deleted": delete_cache_and_record,
    "log/.heads newest line torn, .cache deleted": tear_record_newest_line,
    "every line of log/.heads and both slots of head.rec torn": tear_record_every_line,
}


@pytest.mark.parametrize("spoil", list(SPOIL))
def test_a_deleted_newest_batch_is_named_refused_and_not_served(tmp_path: Path, spoil: str) -> None:
    camp = build(tmp_path / "farm")
    folder = camp.folder
    newest = camp.log.files()[-1]
    gone = int(newest.stem)
    newest.unlink()
    SPOIL[spoil](folder)
    files_before = sorted(p.name for p in (folder / "log").glob("*.parquet"))

    # verify: exit 1, naming the missing seq (or that the record cannot tell)
    rc, out, err = run("verify", str(folder))
    assert rc == 1 and "ok:" not in out, (out, err)
    assert f"seq {gone}" in err or f"after seq {gone - 1}" in err, err
    report = Campaign.open(folder).verify()
    assert not report.ok

    # no append reuses the seq the log once had
    with pytest.raises(StoreError):
        Campaign.open(folder).note("on top of the hole")
    log = Campaign.open(folder).log
    with pytest.raises(StoreError, match="nothing appended"):
        log.append([Draft(NoteAdded(text="raw"), turn=0)], expect_seq=gone - 1)
    for argv in (("note", str(folder), "on top of the hole"), ("retract", str(folder), "--turn", "1")):
        rc, _, err = run(*argv)
        assert rc == 1 and "internal error" not in err and "Traceback" not in err, err
    assert sorted(p.name for p in (folder / "log").glob("*.parquet")) == files_before

    # every read path says so, exit 1, and writes nothing
    html, jsonl = tmp_path / "page.html", tmp_path / "out.jsonl"
    for argv in (("state", str(folder)), ("state", str(folder), "--json"), ("state", str(folder), "--as", "alice"),
                 ("state", str(folder), "--no-cache"), ("log", str(folder)), ("log", str(folder), "--as", "alice"),
                 ("head", str(folder)), ("export", str(folder), "-o", str(jsonl)),
                 ("export", str(folder), "-o", "-", "--as", "alice"),
                 ("share", str(folder), "--as", "alice", "-o", str(html))):
        rc, out, err = run(*argv)
        assert rc == 1, (argv, out[-300:], err)
        assert err.startswith("kingdomlog: error:") and err.count("\n") == 1, (argv, err)
        assert f"seq {gone}" in err or f"after seq {gone - 1}" in err, (argv, err)
        if "--json" in argv:  # the refusal as JSON, and nothing of a state
            assert json.loads(out) == {"ok": False, "error": err.removeprefix("kingdomlog: error: ").rstrip("\n"),
                                       "error_kind": "corrupt"}, (argv, out)
        else:
            assert "head" not in out or not out.strip(), (argv, out[-300:])
    assert not html.exists() and not jsonl.exists()
    with pytest.raises(CorruptLogError):
        Campaign.open(folder).state()


@pytest.mark.parametrize("spoil", ["head.rec both slots torn", ".cache deleted"])
def test_accept_head_is_the_explicit_way_on(tmp_path: Path, spoil: str) -> None:
    camp = build(tmp_path / "farm")
    folder = camp.folder
    newest = camp.log.files()[-1]
    gone = int(newest.stem)
    newest.unlink()
    SPOIL[spoil](folder)
    rc, out, err = run("verify", str(folder), "--accept-head")
    assert rc == 0 and out.startswith("ok:"), (out, err)
    assert f"seq {gone} is missing" in err and f"now seq {gone - 1}" in err, err
    assert run("state", str(folder))[0] == 0
    res = Campaign.open(folder).note("after the GM's word")
    assert res.first_seq == gone  # the lost seq is reused, because the GM said so
    assert Campaign.open(folder).verify().ok


def test_accept_head_refuses_a_log_damaged_otherwise(tmp_path: Path) -> None:
    camp = build(tmp_path / "farm")
    folder = camp.folder
    files = camp.log.files()
    files[-1].unlink()
    data = bytearray(files[1].read_bytes())
    data[len(data) // 2] ^= 0x01
    files[1].write_bytes(bytes(data))
    record = (folder / "log" / WITNESS_NAME).read_bytes()
    rc, _, err = run("verify", str(folder), "--accept-head")
    assert rc == 1 and "nothing recorded" in err and files[1].name in err, err
    assert (folder / "log" / WITNESS_NAME).read_bytes() == record


def test_a_line_torn_by_a_crash_stops_nothing(tmp_path: Path) -> None:
    """A crash tears the line being written, after its batch is durable: the log then ends past the line before."""
    camp = build(tmp_path / "farm")
    folder = camp.folder
    log = camp.log
    mark = witness.read(log.dir, log.campaign)
    assert mark.seq == log.head().seq and not mark.damaged
    path = folder / "log" / WITNESS_NAME
    path.write_bytes(path.read_bytes()[:-60])  # the newest line cut short, as a crash mid-write leaves it
    tear_both_slots(folder)  # and this machine's record torn too
    after = witness.read(log.dir, log.campaign)
    assert after.damaged and after.ragged and after.seq is not None and after.seq < mark.seq
    assert Campaign.open(folder).verify().ok
    assert run("state", str(folder))[0] == 0
    res = Campaign.open(folder).note("goes on")
    assert res.first_seq == mark.seq + 1
    healed = witness.read(log.dir, log.campaign)
    assert (healed.seq, healed.damaged, healed.ragged) == (res.last_seq, False, False)  # the torn line kept apart


def test_a_deleted_record_alone_is_started_again_when_this_machine_vouches_for_the_head(tmp_path: Path) -> None:
    camp = build(tmp_path / "farm")
    folder = camp.folder
    (folder / "log" / WITNESS_NAME).unlink()
    assert Campaign.open(folder).verify().ok  # head.rec names exactly the log's head
    assert run("state", str(folder))[0] == 0
    Campaign.open(folder).note("starts log/.heads again")
    assert (folder / "log" / WITNESS_NAME).is_file()


def older_version_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Campaign:
    """A log as a version before ``log/.heads`` wrote it: no record in log/, no batch saying one is kept."""
    with monkeypatch.context() as m:
        m.setattr(witness, "write", lambda *_a, **_k: False)
        m.setattr(witness, "write_own", lambda *_a, **_k: (False, None))  # what an append writes through
        camp = build(tmp_path / "old")
    assert not (camp.folder / "log" / WITNESS_NAME).exists()
    for f in camp.log.files():
        assert logmod.footer_value(f.read_bytes(), witness.WITNESS_KEY) is None
    return camp


@pytest.mark.parametrize("spoil", ["head.rec both slots torn", "head.rec torn as the issue typed it",
                                   "head.rec newest slot torn"])
def test_on_an_older_version_s_log_a_torn_head_rec_is_not_permission_to_forget(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spoil: str) -> None:
    camp = older_version_log(tmp_path, monkeypatch)
    folder = camp.folder
    newest = camp.log.files()[-1]
    gone = int(newest.stem)
    newest.unlink()
    SPOIL[spoil](folder)
    rc, _, err = run("verify", str(folder))
    assert rc == 1 and (f"after seq {gone - 1}" in err or f"seq {gone}" in err), err
    rc, _, err = run("note", str(folder), "on top of the hole")
    assert rc == 1 and not (folder / "log" / newest.name).exists(), err
    assert run("state", str(folder))[0] == 1


def test_what_only_a_head_kept_outside_catches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The documented limit: an older version's log, its newest batch and its cache deleted. Nothing in the folder
    remembers the batch; verify passes with a warning that says so, and a printed head catches it."""
    camp = older_version_log(tmp_path, monkeypatch)
    folder = camp.folder
    printed = camp.head_for().short
    camp.log.files()[-1].unlink()
    shutil.rmtree(folder / ".cache")
    rc, out, err = run("verify", str(folder))
    assert rc == 0 and out.startswith("ok:") and ".heads is missing" in err, (out, err)
    rc, _, err = run("verify", str(folder), "--expect-head", printed)
    assert rc == 1 and "is not in this log" in err


def test_the_record_is_read_before_the_listing_so_a_concurrent_append_is_no_false_alarm(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read lists log/ after reading the records: an append landing right after the listing (so the read does not
    see its batch, but would see its record if it read the records later) is no false alarm."""
    camp = build(tmp_path / "farm")
    before = camp.log.head().seq
    reader = Campaign.open(camp.folder)
    real = logmod.EventLog.files
    fired: list[int] = []

    def list_then_append(self: logmod.EventLog) -> list[Path]:
        listing = real(self)
        if not fired:
            fired.append(0)
            fired[0] = Campaign.open(camp.folder).note("landed during the read").last_seq
        return listing

    monkeypatch.setattr(logmod.EventLog, "files", list_then_append)
    for read in (lambda: reader.log.read(), lambda: reader.log.read_after(1)):
        fired.clear()
        read()
        walked = reader.log.walked
        assert walked is not None and walked.seq < fired[0] and walked.head_problems == ()
    assert before < fired[0]


def test_lines_of_racing_appends_may_land_out_of_order_and_an_accept_line_ends_what_counts(tmp_path: Path) -> None:
    log_dir = tmp_path / "log"
    log_dir.mkdir()

    def add(seq: int, **extra: object) -> None:
        doc = {"campaign": "farm", "seq": seq, "hash": f"{seq:064x}", "file": "x", "file_sha": "0" * 64, **extra}
        assert witness.write(log_dir, witness.read(log_dir, "farm"), doc)

    for seq in (1, 2, 4, 3):  # the append of 4 wrote its line before the append of 3 did
        add(seq)
    assert witness.read(log_dir, "farm").seq == 4
    add(2, accept=True)  # the GM's word: the log ends at 2; what came before no longer counts
    assert witness.read(log_dir, "farm").seq == 2
    add(3)
    mark = witness.read(log_dir, "farm")
    assert (mark.seq, mark.hash, mark.damaged) == (3, f"{3:064x}", False)


def test_verify_help_says_what_it_promises_and_what_only_expect_head_catches() -> None:
    rc, out, _ = run("verify", "--help")
    assert rc == 0
    promises = out[out.index("what verify promises:"):out.index("what only --expect-head catches:")]
    assert "log/.heads" in promises and ".cache/head.rec" in promises and "--accept-head" in promises
    limit = out[out.index("what only --expect-head catches:"):]
    assert "cut their lines from log/.heads" in limit and "replace the whole folder" in limit
