"""The verifying first read in bulk (``store.bulk``, issue 31): it accepts only what the file-by-file read accepts.

A log read with no record of its files (no ``.cache/``) checks runs of ``BULK_MIN_FILES`` or more files at once.
These tests hold that it records exactly what the file-by-file read records, that every forgery inside a run is
refused with the file-by-file read's own message, and that a text it could not build exactly as the canonical
writer does (a character ``json.dumps`` escapes as ``\\n`` or ``\\u0001``) is never taken on its word.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_forgery import alter_gold, relink, reseal

from kingdomlog.app import Campaign
from kingdomlog.core.errors import CorruptLogError
from kingdomlog.core.events import GENESIS_HASH, event_hash
from kingdomlog.core.turn import Plan
from kingdomlog.store import bulk, codec, keys
from kingdomlog.store import log as logmod
from kingdomlog.store.log import _SHA_PLACEHOLDER, FILE_SHA_KEY, WRITE_OPTIONS, seal

NOTE = 'a "quoted" word, a back\\slash, a tab\tand a new\nline, é and 𝄞'


def build(folder: Path, turns: int = 10) -> Campaign:
    """A toy-farm log of ``turns`` + 1 played batches and as many notes between them (2 * turns + 1 files)."""
    camp = Campaign.create(folder, "toy-farm", name="Farm")
    camp.play(Plan.parse({"seed": "f0", "steps": {"found": {"choices": {"name": "Dale", "gold": 5}}}}))
    for t in range(1, turns + 1):
        camp.note(f"{NOTE} {t}", turn=t)
        camp.play(Plan.parse({"seed": f"f{t}", "steps": {"harvest": {"choices": {"crop": "barley"}},
                                                         "market": {"choices": {"sell": 1}}}}))
    return camp


def first_read(folder: Path) -> tuple[Any, dict[str, Any]]:
    """The state of a read with no ``.cache/``, and the verified record it left."""
    shutil.rmtree(folder / ".cache", ignore_errors=True)
    state = Campaign.open(folder).state(use_cache=False)
    doc = keys.read_signed(folder / ".cache" / "verified.json")
    assert isinstance(doc, dict)
    return state, doc


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many files each run the bulk check accepted held."""
    taken: list[int] = []
    check = bulk.check_run

    def counted(*a: Any, **k: Any) -> Any:
        got = check(*a, **k)
        if got is not None:
            taken.append(len(got[1]))
        return got

    monkeypatch.setattr(bulk, "check_run", counted)
    return taken


def test_a_bulk_first_read_records_what_the_file_by_file_read_records(tmp_path: Path, runs: list[int],
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    camp = build(tmp_path / "farm")
    n = len(camp.log.files())
    assert n >= 2 * logmod.BULK_MIN_FILES
    state, doc = first_read(camp.folder)
    assert sum(runs) == n, runs  # every file was checked in bulk, the note texts' quotes and backslashes too
    monkeypatch.setattr(logmod, "BULK_MIN_FILES", 10**9)
    runs.clear()
    state_one_by_one, doc_one_by_one = first_read(camp.folder)
    assert runs == []
    assert state == state_one_by_one
    strip = {name: {k: v for k, v in ent.items() if k != "stat"} for name, ent in doc["files"].items()}
    assert strip == {name: {k: v for k, v in ent.items() if k != "stat"}
                     for name, ent in doc_one_by_one["files"].items()}
    assert [e.hash for e in Campaign.open(camp.folder).events()] == [e.hash for e in camp.log.read(full_verify=True)]


@pytest.mark.parametrize("where", ["middle", "newest"])
@pytest.mark.parametrize(("change", "message"), [(alter_gold, "event altered"),
                                                   (relink, "prev_hash does not match the previous event")])
def test_a_forgery_inside_a_bulk_run_is_refused_with_the_file_by_file_message(
        tmp_path: Path, runs: list[int], change: Any, message: str, where: str) -> None:
    """In the middle of a run the next file's link to it breaks too; the newest file has no next file (and
    ``alter_gold`` keeps its hashes, so the records of the head still agree): only the bulk check's own
    comparison of hashes and links can refuse it there."""
    camp = build(tmp_path / "farm")
    files = camp.log.files()
    sold = [f for f in files if "toy.sold" in pq.read_table(f, columns=["type"]).column("type").to_pylist()]
    victim = sold[-1] if where == "newest" else sold[len(sold) // 2]
    assert victim != files[0]
    reseal(victim, change)
    shutil.rmtree(camp.folder / ".cache", ignore_errors=True)
    with pytest.raises(CorruptLogError, match=message) as err:
        Campaign.open(camp.folder).state(use_cache=False)
    assert victim.name in str(err.value)
    # the files before the forged one were still checked in bulk: the run that held it was refused whole
    assert sum(runs) < files.index(victim) + 1


def test_a_missing_file_inside_a_bulk_run_is_named_as_a_gap(tmp_path: Path) -> None:
    camp = build(tmp_path / "farm")
    files = camp.log.files()
    files[len(files) // 2].unlink()
    shutil.rmtree(camp.folder / ".cache", ignore_errors=True)
    with pytest.raises(CorruptLogError, match="gap in the log"):
        Campaign.open(camp.folder).state(use_cache=False)


def _control_char_actor(rows: list[dict[str, Any]], *, canonical: bool) -> None:
    """Give the batch's events an actor holding a control character, every hash recomputed over either the
    canonical text (where the character is escaped as \\u0001) or the text with the character left raw."""
    prev = rows[0]["prev_hash"]
    for r in rows:
        r["actor"] = "g\x01m"
        r["prev_hash"] = prev
        text = codec.hash_text(r["actor"], r["campaign"], r["commit_id"], r["event_id"], r["payload"], r["phase"],
                               prev, r["recorded_at"].isoformat(), r["seq"], r["turn"], r["type"], r["version"],
                               r["visibility"])
        assert "\\u0001" in text
        r["hash"] = event_hash(r) if canonical else hashlib.sha256(text.replace("\\u0001", "\x01").encode()).hexdigest()
        prev = r["hash"]


@pytest.mark.parametrize("canonical", [True, False])
def test_a_text_json_escapes_otherwise_is_never_taken_on_the_bulk_check_s_word(tmp_path: Path,
                                                                              canonical: bool) -> None:
    """The bulk check escapes only ``"`` and ``\\``: a run with a character ``json.dumps`` escapes otherwise is
    never accepted in bulk, neither when its hash is over the canonical text (the file-by-file check accepts it)
    nor when it is over the text with the character raw (which a bulk check escaping too little would accept)."""
    camp = build(tmp_path / "farm")
    files = camp.log.files()[:logmod.BULK_MIN_FILES]
    victim = files[-1]

    def items() -> list[tuple[Path, bytes, None]]:
        return [(f, f.read_bytes(), None) for f in files]

    assert bulk.check_run(camp.id, items(), 1, GENESIS_HASH, logmod.GENESIS_FILE_SHA, format_version=1) is not None
    reseal(victim, lambda rows: _control_char_actor(rows, canonical=canonical))
    assert bulk.check_run(camp.id, items(), 1, GENESIS_HASH, logmod.GENESIS_FILE_SHA, format_version=1) is None
    log = camp.log
    walk = logmod._WalkState(None, (logmod.witness.ABSENT, logmod.witness.ABSENT))
    for f in files[:-1]:
        _table, ent = log._full(f, None, walk.expect_seq, walk.prev_hash, walk.prev_file_sha)
        walk.advance(f.name, ent)
    if canonical:
        table, _ent = log._full(victim, None, walk.expect_seq, walk.prev_hash, walk.prev_file_sha)
        assert set(table.column("actor").to_pylist()) == {"g\x01m"}
    else:
        with pytest.raises(CorruptLogError, match="event altered"):
            log._full(victim, None, walk.expect_seq, walk.prev_hash, walk.prev_file_sha)


def test_a_batch_rewritten_with_the_same_events_breaks_the_file_chain_in_bulk_too(tmp_path: Path) -> None:
    """The same events in other bytes (another codec), sealed with a valid digest: only the next file's
    ``prev_file_sha256`` tells (the file chain)."""
    camp = build(tmp_path / "farm")
    files = camp.log.files()
    victim = files[len(files) // 2]
    pf = pq.ParquetFile(victim)
    meta = dict(pf.schema_arrow.metadata or {})
    meta[FILE_SHA_KEY] = _SHA_PLACEHOLDER
    table = pf.read().replace_schema_metadata(meta)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, **dict(WRITE_OPTIONS, compression="zstd"))
    data, _ = seal(sink.getvalue().to_pybytes())
    assert data != victim.read_bytes()
    victim.write_bytes(data)
    shutil.rmtree(camp.folder / ".cache", ignore_errors=True)
    with pytest.raises(CorruptLogError, match="file chain broken") as err:
        Campaign.open(camp.folder).state(use_cache=False)
    assert files[files.index(victim) + 1].name in str(err.value)


def test_a_fault_before_an_unreadable_file_is_named_first(tmp_path: Path) -> None:
    """A forged file, then a FIFO named like a batch further on in the same run: the forged file is named, as
    the file-by-file read names it (the run ends before the file it cannot read)."""
    camp = build(tmp_path / "farm")
    files = camp.log.files()
    sold = [f for f in files if "toy.sold" in pq.read_table(f, columns=["type"]).column("type").to_pylist()]
    victim = sold[1]
    reseal(victim, alter_gold)
    fifo = files[files.index(victim) + 3]
    fifo.unlink()
    os.mkfifo(fifo)
    shutil.rmtree(camp.folder / ".cache", ignore_errors=True)
    with pytest.raises(CorruptLogError, match="event altered") as err:
        Campaign.open(camp.folder).state(use_cache=False)
    assert victim.name in str(err.value)


@pytest.mark.parametrize("texts", [
    ['{"a":1}', 'plain', '"'],  # quotes only: one kernel
    ['back\\slash', 'plain', '\\'],  # backslashes only
    ['"\\"', '\\"q\\"', 'plain'],  # both: the backslashes first, or an escaping backslash would be doubled
    ['plain', 'é and 𝄞'],  # neither: the column as it is
])
def test_a_column_is_escaped_as_the_canonical_writer_escapes_it(texts: list[str]) -> None:
    """Each escaping kernel runs only over a column holding its character; the result is json.dumps's."""
    got = bulk._escaped(pa.array(texts, pa.string()))
    assert got is not None
    assert got.to_pylist() == [json.dumps(t, ensure_ascii=False)[1:-1] for t in texts]


@pytest.mark.parametrize("kv_writer", [True, False])
def test_a_batch_file_carries_the_footer_keys_without_or_with_the_arrow_schema(tmp_path: Path, kv_writer: bool,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch is written without ``ARROW:schema`` (a pyarrow whose writer cannot add footer keys writes it as
    before); either way its footer holds the log's keys, it reads at the log's schema and a first read accepts it."""
    if not kv_writer:
        monkeypatch.delattr(pq.ParquetWriter, "add_key_value_metadata")
    camp = build(tmp_path / "farm", turns=2)
    for path in camp.log.files():
        meta = pq.read_metadata(path).metadata
        assert (b"ARROW:schema" in meta) is not kv_writer
        assert {FILE_SHA_KEY, b"kingdomlog.first_seq", b"kingdomlog.campaign"} <= set(meta)
        assert pq.read_table(path).schema.equals(codec.schema(), check_metadata=False)
    shutil.rmtree(camp.folder / ".cache", ignore_errors=True)
    assert Campaign.open(camp.folder).verify().ok


# ---- a run decoded by Parquet in one call (``bulk._decode_merged``) ------------------------------------------


def _items(files: list[Path]) -> list[tuple[Path, bytes, None]]:
    return [(f, f.read_bytes(), None) for f in files]


def test_a_run_decoded_in_one_call_is_what_each_file_decodes_to(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The pages of a run's files merged into one row group decode to exactly the files' own tables (the notes'
    phase is null, the campaign's configuration is seq 1), and a first read takes every run that way."""
    camp = build(tmp_path / "farm")
    items = _items(camp.log.files())
    merged = bulk._decode_merged(items)
    each = bulk._decode_each(items)
    assert merged is not None and each is not None
    assert merged[0].equals(each[0]) and merged[1:] == each[1:]
    assert merged[0].column("phase").null_count > 0
    taken: list[int] = []
    decode = bulk._decode_merged

    def counted(its: Any, *rest: Any) -> Any:
        got = decode(its, *rest)
        taken.append(0 if got is None else len(its))
        return got

    monkeypatch.setattr(bulk, "_decode_merged", counted)
    first_read(camp.folder)
    assert sum(taken) == len(items) and 0 not in taken


def test_a_pyarrow_without_its_reader_class_decodes_the_run_in_one_call_all_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The footers are opened with pyarrow's ``ParquetReader``, which pyarrow does not publish: without it they are
    read by ``pq.read_metadata``, and the run decodes to the same table."""
    import pyarrow._parquet as _pq

    camp = build(tmp_path / "farm")
    items = _items(camp.log.files())
    with_reader = bulk._decode_merged(items)
    monkeypatch.delattr(_pq, "ParquetReader")
    without = bulk._decode_merged(items)
    assert with_reader is not None and without is not None
    assert without[0].equals(with_reader[0]) and without[1:] == with_reader[1:]


def _rewrite(path: Path, **options: Any) -> None:
    """The batch ``path`` written again with the same rows and footer keys, with pyarrow's ``options``."""
    pf = pq.ParquetFile(path)
    meta = dict(pf.schema_arrow.metadata or {})
    meta[FILE_SHA_KEY] = _SHA_PLACEHOLDER
    table = pf.read().replace_schema_metadata(meta)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, **dict(WRITE_OPTIONS, **options))
    path.write_bytes(seal(sink.getvalue().to_pybytes())[0])


@pytest.mark.parametrize("options", [
    {"data_page_size": 1, "write_batch_size": 7},  # several pages in each column chunk
    {"use_dictionary": True},  # a dictionary page first
    {"compression": "zstd"},  # another codec than the run's other files
    {"store_schema": True},  # the Arrow schema in its footer (as files written before issue 31)
    {"write_statistics": True},  # statistics in the page headers
])
def test_a_newest_file_laid_out_otherwise_is_decoded_file_by_file(tmp_path: Path, options: dict[str, Any]) -> None:
    """A file pyarrow wrote with other options is still plain Parquet of the same events: its run is decoded file
    by file and read as before (the newest file: no file after it names its digest)."""
    camp = build(tmp_path / "farm")
    want = Campaign.open(camp.folder).state(use_cache=False)
    files = camp.log.files()
    _rewrite(files[-1], **options)
    assert bulk._decode_merged(_items(files)) is None
    assert bulk._decode_each(_items(files)) is not None
    state, _doc = first_read(camp.folder)
    assert state == want
    assert Campaign.open(camp.folder).verify().ok


def _parquet(template: bytes, chunks: list[list[bytes]], rows: int, meta: dict[bytes, bytes]) -> bytes:
    """A Parquet file of one row group: the schema of ``template`` (a batch file), the column chunks ``chunks``
    (each a list of whole pages, as bytes), ``rows`` values declared per column, the footer keys ``meta``, sealed."""
    md = pq.read_metadata(pa.BufferReader(template))
    rg = md.row_group(0)
    prefix = bulk._schema_prefix(bulk._footer(template) or b"")
    assert prefix is not None
    body = [b"PAR1"]
    columns = []
    at = 4
    for k, pages in enumerate(chunks):
        c = rg.column(k)
        size = sum(map(len, pages))
        columns.append((bulk._PHYSICAL[c.physical_type], c.path_in_schema, bulk._CODECS[c.compression], size, at))
        body += pages
        at += size
    by = md.created_by.encode()
    foot = bulk._merged_footer(prefix, [(rows, columns)], md.created_by)
    tail = b"\x28" + bulk._uleb(len(by)) + by + b"\x00"
    assert foot.endswith(tail)
    kv = b"".join(b"\x18" + bulk._uleb(len(k)) + k + b"\x18" + bulk._uleb(len(v)) + v + b"\x00"
                  for k, v in meta.items())
    # the key-value list is field 5, so created_by (field 6) follows it with a short header of delta 1
    foot = foot[:-len(tail)] + b"\x19" + bulk._list_head(len(meta), 0x0C) + kv + b"\x18" + tail[1:]
    body += [foot, len(foot).to_bytes(4, "little"), b"PAR1"]
    return seal(b"".join(body))[0]


def _pages(data: bytes) -> list[bytes]:
    """Each column chunk's bytes of the batch file ``data``."""
    rg = pq.read_metadata(pa.BufferReader(data)).row_group(0)
    return [data[rg.column(k).data_page_offset:rg.column(k).data_page_offset + rg.column(k).total_compressed_size]
            for k in range(rg.num_columns)]


def test_a_page_moved_into_the_file_before_is_not_merged_into_the_next_file_s_rows(tmp_path: Path) -> None:
    """The payload page of the newest file moved to the end of the payload chunk of the file before (whose footer
    still declares its own 50 values), its own payload chunk left empty, both sealed and chained. Merged one after
    another, the pages would put every payload where it was and the run would verify; but the newest file decodes
    to nothing on its own, so the run is not accepted in bulk, and the read refuses the log as file by file."""
    camp = build(tmp_path / "farm")
    files = camp.log.files()
    a_path, b_path = files[-2], files[-1]
    a, b = a_path.read_bytes(), b_path.read_bytes()
    pay = list(codec.COLUMNS).index("payload")
    a_chunks, b_chunks = [[x] for x in _pages(a)], [[x] for x in _pages(b)]
    a_chunks[pay].append(b_chunks[pay].pop())
    a_meta = dict(pq.read_metadata(pa.BufferReader(a)).metadata or {})
    b_meta = dict(pq.read_metadata(pa.BufferReader(b)).metadata or {})
    for meta in (a_meta, b_meta):
        meta[FILE_SHA_KEY] = _SHA_PLACEHOLDER
    a2 = _parquet(a, a_chunks, pq.read_metadata(pa.BufferReader(a)).num_rows, a_meta)
    b_meta[b"kingdomlog.prev_file_sha256"] = logmod.file_digest(a2)[1].encode()
    b2 = _parquet(b, b_chunks, pq.read_metadata(pa.BufferReader(b)).num_rows, b_meta)
    a_path.write_bytes(a2)
    b_path.write_bytes(b2)
    items = _items(files)
    assert bulk._decode_each(items) is None  # the newest file alone is not a readable batch
    assert bulk.check_run(camp.id, items, 1, GENESIS_HASH, logmod.GENESIS_FILE_SHA, format_version=1) is None
    shutil.rmtree(camp.folder / ".cache", ignore_errors=True)
    with pytest.raises(CorruptLogError) as err:
        Campaign.open(camp.folder).state(use_cache=False)
    assert a_path.name in str(err.value) or b_path.name in str(err.value)


def test_a_log_past_seq_255_is_checked_in_bulk(tmp_path: Path, runs: list[int]) -> None:
    """The bulk check compares the seqs as the bytes of their int64 values: a log of 361 events (seqs whose bytes
    go past 127) is still taken in bulk whole, and reads as file by file."""
    import toyrules

    from kingdomlog.core.events import Draft

    camp = Campaign.create(tmp_path / "farm", "toy-farm", name="Farm")
    camp.play(Plan.parse({"seed": "f0", "steps": {"found": {"choices": {"name": "Dale", "gold": 5}}}}))
    head = camp.head_seq
    for i in range(12):
        head = camp.log.append([Draft(toyrules.Sold(food=0, gold=1 + i % 3), turn=1) for _ in range(30)],
                               expect_seq=head).last_seq
    assert head > 300
    state, _doc = first_read(camp.folder)
    assert sum(runs) == len(camp.log.files())
    assert state == Campaign.open(camp.folder).state(use_cache=False)
    assert [e.hash for e in Campaign.open(camp.folder).events()] == [e.hash for e in camp.log.read(full_verify=True)]


def _as_pyarrow_reads(data: bytes) -> tuple[Any, ...] | None:
    """What the run's merged decode takes from a batch file's footer, as pyarrow reads it: rows, key-value pairs,
    each column's (number of values, size, data page offset), and what must be the run's first file's
    (created_by, each column's type, path and codec); None when pyarrow refuses it or it has a dictionary page or
    more than one row group (the merged decode refuses those)."""
    try:
        md = pq.read_metadata(pa.BufferReader(data))
        if md.num_row_groups != 1:
            return None
        rg = md.row_group(0)
        cols = [rg.column(k) for k in range(md.num_columns)]
        if any(c.has_dictionary_page for c in cols):
            return None
        return (md.num_rows if md.num_rows == rg.num_rows else None, dict(md.metadata or {}),
                [(c.num_values, c.total_compressed_size, c.data_page_offset) for c in cols],
                md.created_by, [(c.physical_type, c.path_in_schema, c.compression) for c in cols])
    except Exception:
        return None


def _as_ints(got: tuple[int, dict[bytes, bytes], list[tuple[bytes, int, int]]],
             first: tuple[Any, ...]) -> tuple[Any, ...]:
    """What the form read (each column's number of values as the zigzag varint written) with the integers, and the
    first file's writer and column types, paths and codecs: what ``_as_pyarrow_reads`` gives when they agree."""
    rows, meta, cols = got
    return rows, meta, [(bulk._unzz(n), size, at) for n, size, at in cols], *first[3:]


def _with_footer(data: bytes, footer: bytes) -> bytes:
    n = int.from_bytes(data[-8:-4], "little")
    return data[:-8 - n] + footer + len(footer).to_bytes(4, "little") + b"PAR1"


def _first_form(datas: list[bytes]) -> tuple[bulk._FooterForm, tuple[Any, ...]]:
    """The form of a run's first footer (``bulk._FooterForm``) and what pyarrow reads of that first file."""
    first = bulk._footer(datas[0])
    prefix = bulk._schema_prefix(first or b"")
    assert first is not None and prefix is not None
    form = bulk._FooterForm.of(first, len(prefix))
    assert form is not None
    want_rest = _as_pyarrow_reads(datas[0])
    assert want_rest is not None
    return form, want_rest


def test_each_footer_read_by_the_run_s_form_is_what_pyarrow_reads(tmp_path: Path) -> None:
    """The footers of a run's files, read by the form of its first file's footer (``bulk._FooterForm``, not
    pyarrow), give what pyarrow's metadata gives; every file of a log, the configuration's and the notes' too."""
    camp = build(tmp_path / "farm")
    datas = [f.read_bytes() for f in camp.log.files()]
    form, want_rest = _first_form(datas)
    for data in datas:
        got = form.read(bulk._footer(data))
        want = _as_pyarrow_reads(data)
        assert got is not None and want is not None
        assert _as_ints(got, want_rest) == want


def test_a_footer_changed_anywhere_is_read_by_the_form_as_pyarrow_reads_it_or_not_at_all(tmp_path: Path) -> None:
    """Every byte of a footer changed in turn (and the footer cut short at every length): the form either does not
    read it (pyarrow reads it then, as before) or reads what pyarrow reads, with the first file's column types,
    paths, codecs and writer; it never raises."""
    camp = build(tmp_path / "farm", turns=1)
    datas = [f.read_bytes() for f in camp.log.files()]
    form, want_rest = _first_form(datas)
    data = datas[-1]
    footer = bulk._footer(data)
    assert footer is not None
    read = 0
    for i in range(len(footer)):
        for flip in (0x01, 0x80):
            changed = footer[:i] + bytes([footer[i] ^ flip]) + footer[i + 1:]
            got = form.read(changed)
            if got is not None:
                read += 1
                assert _as_ints(got, want_rest) == _as_pyarrow_reads(_with_footer(data, changed)), (i, flip)
    assert read > 0  # some changes (an integer, a key's value) are still of the form
    for k in range(len(footer)):
        assert form.read(footer[:k]) is None
    assert form.read(footer + b"\x00") is None


def test_a_first_read_reads_every_footer_but_each_run_s_first_by_the_form(tmp_path: Path, runs: list[int],
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A first read takes each run's files after its first through the form of the first's footer (pyarrow's
    metadata only for the first), and reads as the file-by-file read does."""
    camp = build(tmp_path / "farm")
    want = Campaign.open(camp.folder).state(use_cache=False)
    read = bulk._FooterForm.read
    hits: list[bool] = []

    def counted(self: Any, footer: Any) -> Any:
        got = read(self, footer)
        hits.append(got is not None)
        return got

    monkeypatch.setattr(bulk._FooterForm, "read", counted)
    state, _doc = first_read(camp.folder)
    assert state == want
    assert runs and sum(runs) == len(camp.log.files())
    assert hits.count(True) == len(hits) == sum(runs) - len(runs)


@pytest.mark.parametrize("folder", sorted(p.parent for p in (Path(__file__).parents[2] / "campaigns").glob("*/log")),
                         ids=lambda p: p.name)
def test_every_committed_campaign_s_footers_are_read_by_the_form_as_pyarrow_reads_them(folder: Path) -> None:
    """The committed campaigns' batch files (written with dictionary pages and the Arrow schema, as before issue
    31): the form of a log's first footer reads no footer pyarrow reads otherwise (today it makes no form of them:
    a column with a dictionary page makes none, and such runs are decoded file by file as before)."""
    datas = [f.read_bytes() for f in sorted((folder / "log").glob("*.parquet"))]
    assert datas
    first = bulk._footer(datas[0])
    prefix = bulk._schema_prefix(first or b"")
    assert first is not None and prefix is not None
    form = bulk._FooterForm.of(first, len(prefix))
    want_rest = _as_pyarrow_reads(datas[0])
    assert form is None or want_rest is not None
    for data in datas:
        got = form.read(bulk._footer(data)) if form is not None else None
        if got is not None and want_rest is not None:
            assert _as_ints(got, want_rest) == _as_pyarrow_reads(data)
