"""The store (issue: core): atomic batches, expect_seq, idempotent retries, the chain, faults named by file and seq."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import toyrules

from kingdomlog.app import Campaign
from kingdomlog.core.errors import ConflictError, CorruptLogError, InputError, RuleError, StoreError
from kingdomlog.core.events import Draft
from kingdomlog.core.turn import Plan
from kingdomlog.store import keys
from kingdomlog.store.log import SCHEMA, EventLog


def log_bytes(camp: Campaign) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((camp.folder / "log").iterdir())}


def kept(name: str, before: bytes, after: bytes) -> bool:
    """Nothing written is changed: a batch file stays byte for byte; the record of heads only grows (append-only)."""
    return after == before or (name == ".heads" and after.startswith(before) and after.endswith(b"\n"))


def sold(n: int = 1) -> Draft:
    return Draft(toyrules.Sold(food=0, gold=n), turn=1)


def test_create_writes_config_and_first_event(tmp_path: Path) -> None:
    camp = Campaign.create(tmp_path / "vale", "Toy Farm Rules", options={"price": 3})
    assert (tmp_path / "vale" / "campaign.toml").read_text().count('ruleset = "toy-farm"') == 1
    evs = camp.events()
    assert [e.type for e in evs] == ["core.campaign_configured"]
    assert evs[0].payload.options == {"price": 3, "harvest_die": "1d6"}
    assert camp.state().price == 3


def test_create_refuses_bad_options_and_existing_folders(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"'price' must be at most 10"):
        Campaign.create(tmp_path / "a", "toy", options={"price": 11})
    with pytest.raises(InputError, match=r"unknown option.*colour.*knows: harvest_die, price"):
        Campaign.create(tmp_path / "b", "toy", options={"colour": "red"})
    Campaign.create(tmp_path / "c", "toy")
    with pytest.raises(StoreError, match="already exists"):
        Campaign.create(tmp_path / "c", "toy")
    with pytest.raises(InputError, match="lower case"):
        Campaign.create(tmp_path / "Bad Name", "toy")


def test_files_are_named_by_first_seq_with_metadata(toy_campaign: Campaign) -> None:
    names = sorted(p.name for p in (toy_campaign.folder / "log").iterdir())
    assert names == [".heads", "000000000001.parquet", "000000000002.parquet", "000000000003.parquet"]
    assert (toy_campaign.folder / "log" / ".heads").read_bytes().count(b"\n") == 3  # a line per append
    meta = pq.read_schema(toy_campaign.folder / "log" / "000000000003.parquet").metadata
    assert meta[b"kingdomlog.format"] == b"1"
    assert meta[b"kingdomlog.first_seq"] == b"3"
    assert int(meta[b"kingdomlog.count"]) == 3  # harvest, secret stash, sale
    t = pq.read_table(toy_campaign.folder / "log" / "000000000003.parquet")
    assert t.schema.remove_metadata() == SCHEMA
    assert t.column("seq").to_pylist() == [3, 4, 5]


def test_stale_expect_seq_is_a_conflict_naming_both_seqs(toy_campaign: Campaign) -> None:
    before = log_bytes(toy_campaign)
    with pytest.raises(ConflictError, match="expected the log to end at seq 2, but it ends at seq 5"):
        toy_campaign.log.append([sold()], expect_seq=2)
    assert log_bytes(toy_campaign) == before


def test_retry_with_same_commit_id_is_idempotent(toy_campaign: Campaign) -> None:
    first = toy_campaign.log.append([sold(), sold(2)], expect_seq=5, commit_id="c-1")
    again = toy_campaign.log.append([sold(), sold(2)], expect_seq=5, commit_id="c-1")
    assert not first.idempotent and again.idempotent
    assert (again.first_seq, again.last_seq) == (6, 7)
    also = toy_campaign.log.append([sold(), sold(2)], commit_id="c-1")
    assert also.idempotent
    assert toy_campaign.head_seq == 7


def test_stray_temp_files_are_ignored_and_cleaned(toy_campaign: Campaign) -> None:
    logdir = toy_campaign.folder / "log"
    stray = logdir / ".tmp-999999999-deadbeef.inprogress"
    stray.write_bytes(b"half a batch")
    assert toy_campaign.state().gold == 7
    rep = toy_campaign.verify()
    assert rep.ok and rep.temp_files == [str(stray)]
    toy_campaign.log.append([sold()], expect_seq=5)
    assert not stray.exists()


def test_append_into_missing_or_foreign_folder(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no such campaign folder"):
        Campaign.open(tmp_path / "nothing")
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "notes.txt").write_text("hi")
    with pytest.raises(StoreError, match="not a kingdomlog campaign"):
        Campaign.open(tmp_path / "foreign")
    with pytest.raises(StoreError, match="no log folder"):
        EventLog(tmp_path / "foreign" / "log", "x").append([sold()])


def test_batch_of_another_campaign_is_refused(toy_campaign: Campaign, tmp_path: Path) -> None:
    other = Campaign.create(tmp_path / "other", "toy")
    other.log.append([sold()], expect_seq=1)
    # move other's second batch into this campaign's log at the next position
    src = other.folder / "log" / "000000000002.parquet"
    shutil.copy(src, toy_campaign.folder / "log" / "000000000006.parquet")
    pattern = r"000000000006\.parquet.*(hash chain|another campaign|metadata says first seq 2)"
    with pytest.raises(CorruptLogError, match=pattern):
        toy_campaign.log.read()


def flip(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    path.write_bytes(bytes(data))


def test_flipped_byte_is_named_by_verify(toy_campaign: Campaign) -> None:
    target = toy_campaign.folder / "log" / "000000000003.parquet"
    flip(target, len(target.read_bytes()) // 3)
    rep = Campaign.open(toy_campaign.folder).verify()
    assert not rep.ok
    assert "000000000003.parquet" in rep.problems[0]
    with pytest.raises(CorruptLogError, match=r"000000000003\.parquet"):
        Campaign.open(toy_campaign.folder).state()


def test_truncated_batch_is_named(toy_campaign: Campaign) -> None:
    target = toy_campaign.folder / "log" / "000000000002.parquet"
    target.write_bytes(target.read_bytes()[:-20])
    rep = Campaign.open(toy_campaign.folder).verify()
    assert not rep.ok and "000000000002.parquet" in rep.problems[0] and "unreadable" in rep.problems[0]


def test_deleted_middle_batch_is_a_gap_naming_the_seq(toy_campaign: Campaign) -> None:
    (toy_campaign.folder / "log" / "000000000002.parquet").unlink()
    rep = Campaign.open(toy_campaign.folder).verify()
    assert not rep.ok
    assert "000000000003.parquet" in rep.problems[0] and "seq 2" in rep.problems[0] and "gap" in rep.problems[0]


def rewrite(path: Path, **changes: object) -> None:
    """Rewrite a batch with changed column values (keeping its metadata), as a tamperer would."""
    t = pq.read_table(path)
    meta = t.schema.metadata
    for col, values in changes.items():
        i = t.column_names.index(col)
        t = t.set_column(i, col, pa.array(values, type=t.schema.field(col).type))
    t = t.replace_schema_metadata(meta)
    pq.write_table(t, path)


def test_altered_payload_breaks_the_chain(toy_campaign: Campaign) -> None:
    path = toy_campaign.folder / "log" / "000000000003.parquet"
    t = pq.read_table(path)
    payloads = t.column("payload").to_pylist()
    payloads[0] = payloads[0].replace('"food":', '"food":1')
    rewrite(path, payload=payloads)
    rep = Campaign.open(toy_campaign.folder).verify()
    assert not rep.ok and "seq 3" in rep.problems[0] and "altered" in rep.problems[0]
    (toy_campaign.folder / ".cache").exists() and shutil.rmtree(toy_campaign.folder / ".cache")
    with pytest.raises(CorruptLogError, match="seq 3"):
        Campaign.open(toy_campaign.folder).state()


def test_out_of_order_and_duplicate_seq_are_named(toy_campaign: Campaign) -> None:
    path = toy_campaign.folder / "log" / "000000000003.parquet"
    rewrite(path, seq=[3, 5, 4])
    rep = Campaign.open(toy_campaign.folder).verify()
    assert not rep.ok and "000000000003.parquet" in rep.problems[0] and "seq 4" in rep.problems[0]


def test_duplicate_batch_overlap_is_named(toy_campaign: Campaign) -> None:
    logdir = toy_campaign.folder / "log"
    shutil.copy(logdir / "000000000003.parquet", logdir / "000000000004.parquet")
    rep = Campaign.open(toy_campaign.folder).verify()
    assert not rep.ok and "000000000004.parquet" in rep.problems[0]


def test_newer_format_is_refused_not_misread(toy_campaign: Campaign) -> None:
    path = toy_campaign.folder / "log" / "000000000003.parquet"
    t = pq.read_table(path)
    meta = dict(t.schema.metadata)
    meta[b"kingdomlog.format"] = b"99"
    pq.write_table(t.replace_schema_metadata(meta), path)
    with pytest.raises(CorruptLogError, match="newer kingdomlog"):
        Campaign.open(toy_campaign.folder).events()


def test_snapshot_cache_is_only_an_optimisation(toy_campaign: Campaign) -> None:
    toy_campaign.play(Plan.parse(toyrules.TOY.sample_plans()[2]))
    warm = toy_campaign.state()
    assert list((toy_campaign.folder / ".cache" / "snapshots").glob("*.json"))
    shutil.rmtree(toy_campaign.folder / ".cache")
    assert Campaign.open(toy_campaign.folder).state() == warm
    # a damaged snapshot is ignored, never trusted
    fresh = Campaign.open(toy_campaign.folder)
    fresh.state()
    for snap in (toy_campaign.folder / ".cache" / "snapshots").glob("*.json"):
        doc = keys.loads_signed(snap.read_bytes())
        doc["state"]["gold"] = 10_000
        doc["hash"] = "0" * 64
        snap.write_text(json.dumps(doc))
    assert Campaign.open(toy_campaign.folder).state() == warm


def test_state_at_any_turn_and_retraction_by_appending(toy_campaign: Campaign) -> None:
    toy_campaign.play(Plan.parse(toyrules.TOY.sample_plans()[2]))
    t1 = toy_campaign.state(1)
    t2 = toy_campaign.state()
    assert (t1.food, t2.food) == (4, 8)
    before = log_bytes(toy_campaign)
    toy_campaign.retract(2, reason="wrong crop")
    after = log_bytes(toy_campaign)
    assert all(kept(k, v, after[k]) for k, v in before.items()), "retraction rewrote a batch"
    assert len(after) == len(before) + 1
    assert toy_campaign.state() == t1
    assert toy_campaign.next_turn() == 2
    with pytest.raises(RuleError, match="only the last live turn"):
        toy_campaign.retract(0)
    # replaying turn 2 again works and the timeline keeps both
    toy_campaign.play(Plan.parse({"seed": "again", "steps": {"market": {"choices": {"sell": 1}}}}))
    from kingdomlog.core.fold import timeline

    batches = timeline(toy_campaign.events())
    assert [b.retracted for b in batches] == [False, False, False, True, False, False]


def test_notes_are_shown_only_to_who_may_see_them(toy_campaign: Campaign) -> None:
    from kingdomlog.core.fold import notes

    toy_campaign.note("The harvest festival was a success.")
    toy_campaign.note("The steward is a spy.", visibility="gm")
    toy_campaign.note("Alice found the map.", visibility="faction:alice")
    assert [n["text"] for n in notes(toy_campaign.events(), "gm")] == [
        "The harvest festival was a success.", "The steward is a spy.", "Alice found the map."]
    assert [n["text"] for n in notes(toy_campaign.events(), "alice")] == [
        "The harvest festival was a success.", "Alice found the map."]
    assert [n["text"] for n in notes(toy_campaign.events(), "public")] == ["The harvest festival was a success."]
    with pytest.raises(InputError, match="visibility"):
        toy_campaign.note("x", visibility="everyone")


def test_rule_error_in_a_plan_appends_nothing(toy_campaign: Campaign) -> None:
    before = log_bytes(toy_campaign)
    with pytest.raises(RuleError, match=r"cannot sell 99 food.*toy §2"):
        toy_campaign.play(Plan.parse({"seed": "x", "steps": {"market": {"choices": {"sell": 99}}}}))
    assert log_bytes(toy_campaign) == before


def test_export_import_reproduces_state_and_chain(toy_campaign: Campaign, tmp_path: Path) -> None:
    toy_campaign.note("secret", visibility="gm")
    lines = toy_campaign.export_lines()
    copy = Campaign.import_lines(lines, tmp_path / "copy")
    assert copy.verify().ok
    assert copy.state() == toy_campaign.state()
    assert [e.hash for e in copy.events()] == [e.hash for e in toy_campaign.events()]
    # a player's export holds no GM-only event
    text = "\n".join(toy_campaign.export_lines(toy_campaign.viewer("alice")))
    assert "secret" not in text and "toy.secret_stash" not in text


def test_upcaster_reads_old_versions_without_rewriting(toy_campaign: Campaign) -> None:
    line = json.dumps({"turn": 2, "type": "toy.harvested", "version": 1, "payload": {"faces": [4], "amount": 4}})
    pend = toy_campaign.parse_jsonl([line])
    assert pend[0].payload == toyrules.Harvested(crop="wheat", faces=(4,), food=4)


def test_newer_event_version_is_a_clear_error(toy_campaign: Campaign) -> None:
    line = json.dumps({"turn": 2, "type": "toy.harvested", "version": 7, "payload": {}})
    with pytest.raises(InputError, match=r"line 1: .*version 7, newer than this code knows"):
        toy_campaign.parse_jsonl([line])


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"turn": 1, "type": "toy.sold", "payload": {"food": 1}', "line 2: not valid JSON"),
        ('{"turn": 1, "type": "toy.sold", "payload": {"food": "many", "gold": 1}}', "line 2: .*food"),
        ('{"turn": 1, "type": "toy.nope", "payload": {}}', "line 2: unknown event type 'toy.nope'"),
        ('{"turn": -1, "type": "toy.sold", "payload": {"food": 1, "gold": 1}}', "line 2: \"turn\""),
        ('[1, 2]', "line 2: expected a JSON object"),
        ('{"turn": 1, "type": "core.campaign_configured", "payload": {"ruleset": "x"}}', "does not belong"),
    ],
)
def test_bad_jsonl_lines_are_named_and_nothing_is_appended(toy_campaign: Campaign, line: str, message: str) -> None:
    good = json.dumps({"turn": 1, "type": "toy.sold", "payload": {"food": 0, "gold": 1}})
    before = log_bytes(toy_campaign)
    with pytest.raises(InputError, match=message):
        toy_campaign.append_raw(toy_campaign.parse_jsonl([good, line], source="ev.jsonl"))
    assert log_bytes(toy_campaign) == before


def test_raw_events_that_break_the_fold_are_refused(toy_campaign: Campaign) -> None:
    pend = toy_campaign.parse_jsonl([json.dumps({"turn": 1, "type": "toy.sold", "payload": {"food": 1, "gold": 1}})])
    res = toy_campaign.append_raw(pend, expect_seq=5)
    assert (res.first_seq, res.last_seq) == (6, 6)
    with pytest.raises(ConflictError):
        toy_campaign.append_raw(pend, expect_seq=5)


def test_log_is_never_rewritten_by_normal_use(toy_campaign: Campaign) -> None:
    before = {p.name: (p.stat().st_ino, p.read_bytes()) for p in (toy_campaign.folder / "log").iterdir()}
    toy_campaign.play(Plan.parse(toyrules.TOY.sample_plans()[2]))
    toy_campaign.retract(2)
    toy_campaign.note("n")
    toy_campaign.verify()
    for name, (ino, data) in before.items():
        p = toy_campaign.folder / "log" / name
        assert p.stat().st_ino == ino and kept(name, data, p.read_bytes())
    assert os.listdir(toy_campaign.folder / "log")


def test_edited_or_broken_toml_options_are_warnings_and_the_log_wins(toy_campaign: Campaign) -> None:
    cfg = toy_campaign.folder / "campaign.toml"
    cfg.write_text(cfg.read_text().replace("[options]", "[options]\nprice = 9", 1).replace("price = 2\n", "", 1))
    camp = Campaign.open(toy_campaign.folder)
    rep = camp.verify()
    assert rep.ok and len(rep.warnings) == 1 and "'price' is 9 but the log recorded 2" in rep.warnings[0]
    assert camp.state().price == 2
    cfg.write_text(cfg.read_text().replace("price = 9", "price = []"))
    rep = Campaign.open(toy_campaign.folder).verify()
    assert rep.ok and "must be an integer" in rep.warnings[0] and "ignored" in rep.warnings[0]


def test_verify_lists_every_damaged_file_not_only_the_first(toy_campaign: Campaign) -> None:
    toy_campaign.play(Plan.parse(toyrules.TOY.sample_plans()[2]))
    logdir = toy_campaign.folder / "log"
    (logdir / "000000000002.parquet").unlink()
    flip(logdir / "000000000003.parquet", 40)
    flip(logdir / "000000000006.parquet", 60)
    rep = Campaign.open(toy_campaign.folder).verify()
    assert not rep.ok
    assert len(rep.problems) == 3, rep.problems
    assert "000000000003.parquet" in rep.problems[0] and "gap" in rep.problems[0] and "seq 2" in rep.problems[0]
    assert "000000000003.parquet" in rep.problems[1]
    assert "000000000006.parquet" in rep.problems[2]
