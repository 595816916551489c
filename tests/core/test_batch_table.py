"""``codec.batch_table`` makes its text columns as slices of one array: the batch file's bytes are those of columns
made one by one (issue 31), so nothing a reader sees changes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from kingdomlog.core.core_events import NoteAdded
from kingdomlog.core.events import Draft
from kingdomlog.store import codec
from kingdomlog.store import log as logmod

ROOT = Path(__file__).resolve().parents[2]


def one_by_one(cols: dict[str, list[Any]], metadata: dict[bytes, bytes]) -> pa.Table:
    """The table as ``batch_table`` made it before: one ``pa.array`` per column."""
    arrays = []
    for name, type_ in codec.column_types():
        values = cols[name]
        if name == "recorded_at":
            values = [(w - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1) for w in values]
        arrays.append(pa.array(values, type_))
    return pa.Table.from_arrays(arrays, schema=codec.schema().with_metadata(metadata))


META = {codec.FILE_SHA_KEY: b"0" * 64, b"kingdomlog.first_seq": b"7"}


@pytest.mark.parametrize("n", [1, 2, 50])
def test_a_new_batch_is_written_as_the_same_bytes(n: int) -> None:
    drafts = [Draft(NoteAdded(text=f"é\u2028\"\\ {i}" * (1 + i % 4), title="t" if i % 2 else ""), turn=i % 3,
                    phase=None if i % 3 else "start", actor="gm" if i % 2 else "pelle", visibility="gm")
              for i in range(n)]
    cols = codec.encode(drafts, campaign="c-é", first_seq=7, prev_hash="0" * 64, commit_id="x" * 36,
                        recorded_at=datetime(2026, 12, 7, tzinfo=UTC))
    table = codec.batch_table(cols, META)
    assert table.equals(one_by_one(cols, META))
    assert logmod._parquet_bytes(table) == logmod._parquet_bytes(one_by_one(cols, META))


def test_every_committed_batch_rebuilt_is_written_as_the_same_bytes() -> None:
    seen = 0
    for path in sorted((ROOT / "campaigns" / "stolen-lands" / "log").glob("*.parquet")):
        rows = pq.read_table(path).to_pylist()
        cols = {name: [r[name] for r in rows] for name, _ in codec.column_types()}
        table = codec.batch_table(cols, META)
        assert logmod._parquet_bytes(table) == logmod._parquet_bytes(one_by_one(cols, META)), path.name
        assert table.to_pylist() == rows
        seen += 1
    assert seen > 10
