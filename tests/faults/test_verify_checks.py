"""Three checks of ``verify`` that no test held (issue 28, item 11): each test fails when its check is removed.

(a) The recorded head's hash (``store.witness.judge``, ``have != mark.hash``): a log swapped wholesale for another
    valid log of the same campaign id and the same length passes every per-file and per-event check; only the
    records of the head (this machine's ``.cache/head.rec``, the log's own ``log/.heads``) know it is another log.
(b) The ``prev_hash`` link inside a batch (``EventLog._check_batch``, "hash chain broken inside the batch"): a batch
    with an event dropped or two events swapped, each event's hash recomputed for its new seq and the file resealed
    with a valid digest, so only the link from each event to the one before it inside the batch is wrong.
(c) The batch's ``kingdomlog.last_hash`` footer metadata against its last row (``_check_batch``): the metadata edited
    and the file resealed. Nothing else reads it back, but an append starts its chain from it.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from kingdomlog.app import Campaign
from kingdomlog.core.core_events import NoteAdded
from kingdomlog.core.errors import CorruptLogError
from kingdomlog.core.events import Draft, event_hash
from kingdomlog.core.turn import Plan
from kingdomlog.store.log import _SHA_PLACEHOLDER, FILE_SHA_KEY, WRITE_OPTIONS, file_digest, seal


def build(folder: Path, *, flavour: str = "a") -> Campaign:
    """Founding, two turns and a last batch of four notes; ``flavour`` changes the content, never the shape."""
    camp = Campaign.create(folder, "toy-farm", name="Farm", campaign_id="farm")
    camp.play(Plan.parse({"seed": f"{flavour}0", "steps": {"found": {"choices": {"name": "Dale", "gold": 5}}}}))
    camp.play(Plan.parse({"seed": f"{flavour}1", "steps": {"harvest": {"choices": {"crop": "barley"}},
                                                             "market": {"choices": {"sell": 1}}}}))
    head = camp.log.head().seq
    camp.append([Draft(NoteAdded(text=f"{flavour} note {i}"), turn=1) for i in range(4)], expect_seq=head)
    Campaign.open(folder).state()
    return camp


def reseal(path: Path, change: Callable[[list[dict[str, Any]], dict[bytes, bytes]], None]) -> None:
    """Rewrite the batch ``path`` with ``change`` applied to its rows and footer metadata, with a valid file digest."""
    pf = pq.ParquetFile(path)
    meta = dict(pf.schema_arrow.metadata or {})
    table = pf.read()
    rows = table.to_pylist()
    change(rows, meta)
    meta[b"kingdomlog.count"] = str(len(rows)).encode()
    meta[FILE_SHA_KEY] = _SHA_PLACEHOLDER
    meta.pop(b"ARROW:schema", None)
    forged = pa.Table.from_pylist(rows, schema=table.schema.remove_metadata().with_metadata(meta))
    sink = pa.BufferOutputStream()
    pq.write_table(forged, sink, **WRITE_OPTIONS)
    data, _ = seal(sink.getvalue().to_pybytes())
    stored, actual = file_digest(data)
    assert stored == actual
    path.write_bytes(data)


def problems(folder: Path) -> list[str]:
    report = Campaign.open(folder).verify()
    assert not report.ok or report.problems == []
    return report.problems


# ---- (a) the recorded head's hash ---------------------------------------------------------------------


@pytest.mark.parametrize("swap", ["log folder", "batch files only"])
def test_a_log_swapped_for_another_valid_one_of_the_same_length_fails_naming_the_head(tmp_path: Path,
                                                                                      swap: str) -> None:
    ours = build(tmp_path / "ours", flavour="a")
    theirs = build(tmp_path / "theirs", flavour="b")
    n = ours.log.head().seq
    assert theirs.log.head().seq == n and ours.log.head().hash != theirs.log.head().hash
    assert [p.name for p in ours.log.files()] == [p.name for p in theirs.log.files()]
    assert Campaign.open(theirs.folder).verify().ok  # theirs is a valid log of campaign "farm"
    if swap == "log folder":  # with its own log/.heads: only this machine's record of our head can tell
        shutil.rmtree(ours.folder / "log")
        shutil.copytree(theirs.folder / "log", ours.folder / "log")
        who = ".cache/head.rec"
    else:  # our log/.heads stays
        for p in theirs.log.files():
            shutil.copyfile(p, ours.folder / "log" / p.name)
        who = "log/.heads"
    found = problems(ours.folder)
    assert any(f"seq {n} is not the event {who} recorded as its head" in p for p in found), found
    with pytest.raises(CorruptLogError, match=f"seq {n} is not the event"):
        Campaign.open(ours.folder).state()


# ---- (b) the prev_hash link inside a batch -----------------------------------------------------------------


def renumber(first: int) -> Callable[[list[dict[str, Any]]], None]:
    """Give the rows the seqs first, first + 1, ... and recompute each one's hash; their prev_hash is left as it was."""
    def go(rows: list[dict[str, Any]]) -> None:
        for i, r in enumerate(rows):
            r["seq"] = first + i
            r["hash"] = event_hash(r)
    return go


def drop_second(rows: list[dict[str, Any]], meta: dict[bytes, bytes]) -> None:
    first = rows[0]["seq"]
    del rows[1]
    renumber(first)(rows)
    meta[b"kingdomlog.last_hash"] = rows[-1]["hash"].encode()


def swap_second_and_third(rows: list[dict[str, Any]], meta: dict[bytes, bytes]) -> None:
    first = rows[0]["seq"]
    rows[1], rows[2] = rows[2], rows[1]
    renumber(first)(rows)
    meta[b"kingdomlog.last_hash"] = rows[-1]["hash"].encode()


@pytest.mark.parametrize("forge", [drop_second, swap_second_and_third], ids=["dropped", "reordered"])
def test_an_event_dropped_or_reordered_inside_a_batch_is_named_by_its_seq(
        tmp_path: Path, forge: Callable[[list[dict[str, Any]], dict[bytes, bytes]], None]) -> None:
    camp = build(tmp_path / "farm")
    last = camp.log.files()[-1]
    first = int(last.stem)
    reseal(last, forge)
    rows = pq.read_table(last).to_pylist()
    assert all(event_hash(r) == r["hash"] for r in rows)  # every event's own hash holds
    assert [r["seq"] for r in rows] == list(range(first, first + len(rows)))  # and the seqs are in order
    found = problems(camp.folder)
    assert any(f"seq {first + 1}: hash chain broken inside the batch" in p and last.name in p for p in found), found
    with pytest.raises(CorruptLogError, match="inside the batch"):
        Campaign.open(camp.folder).state(use_cache=False)


# ---- (c) the last_hash metadata --------------------------------------------------------------------------


def test_a_batch_whose_last_hash_metadata_was_edited_fails(tmp_path: Path) -> None:
    camp = build(tmp_path / "farm")
    last = camp.log.files()[-1]
    events = camp.events()

    def edit(rows: list[dict[str, Any]], meta: dict[bytes, bytes]) -> None:
        meta[b"kingdomlog.last_hash"] = rows[0]["hash"].encode()  # a real hash, of another row

    reseal(last, edit)
    assert [r["hash"] for r in pq.read_table(last).to_pylist()] == [e.hash for e in events[-4:]]  # rows as they were
    found = problems(camp.folder)
    n = events[-1].seq
    assert any(f"seq {n}: last hash disagrees with the batch metadata" in p for p in found), found
