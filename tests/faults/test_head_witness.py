"""The head as a witness, and each viewer's own numbering (issue 19, items 1 and 7).

1. Deleting the newest batch used to leave a log that verifies ("hash chain intact"). Now the
   head (last seq and hash) is printed by ``kingdomlog head`` and on every view, report and
   export a player receives; ``verify --expect-head`` fails when a printed head is gone; and the
   head this folder's cache recorded catches the deletion even without a witness.
2. A player's log showed gaps where hidden events sit (and their real seqs and chained hashes,
   from which the seqs can be recomputed). Everything a player receives now numbers that
   player's events 1, 2, 3, … and chains them among themselves.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from clirun import run

from kingdomlog.app import Campaign
from kingdomlog.core.errors import StoreError
from kingdomlog.core.events import GENESIS_HASH, event_hash
from kingdomlog.core.turn import Plan
from kingdomlog.core.viewers import GM_VIEWER, Viewer
from kingdomlog.views.player.page import render_static

ALICE = Viewer("player", "alice")




def build(folder: Path) -> Campaign:
    """Founding, then turns whose batches mix public and GM-only events, and GM-only notes between them."""
    camp = Campaign.create(folder, "toy-farm", name="Farm", viewers=["alice"])
    camp.play(Plan.parse({"seed": "s0", "steps": {"found": {"choices": {"name": "Dale", "gold": 5}}}}))
    for t in range(1, 5):
        camp.play(Plan.parse({"seed": f"s{t}", "steps": {"harvest": {"choices": {"stash": t}},
                                                         "market": {"choices": {"sell": 1}}}}))
        camp.note(f"gm aside {t}", visibility="gm")
        if t % 2:
            camp.note(f"for alice {t}", visibility="faction:alice")
    return camp


def short(h: str) -> str:
    return h[:16]


# ---- item 1: the head as a witness ----------------------------------------------------------------


def test_head_command_prints_the_log_s_head(tmp_path: Path) -> None:
    camp = build(tmp_path / "farm")
    events = camp.events()
    rc, out, _ = run("head", str(camp.folder))
    assert rc == 0 and out.strip() == f"farm: seq {events[-1].seq}, head {events[-1].hash}"
    rc, out, _ = run("head", str(camp.folder), "--json")
    doc = json.loads(out)
    assert (doc["seq"], doc["hash"], doc["viewer"], doc["campaign"]) == (events[-1].seq, events[-1].hash, "gm", "farm")


def test_a_deleted_newest_batch_is_caught_by_the_recorded_head(tmp_path: Path) -> None:
    camp = build(tmp_path / "farm")
    Campaign.open(camp.folder).state()
    newest = camp.log.files()[-1]
    newest.unlink()
    rc, out, err = run("verify", str(camp.folder))
    assert rc == 1 and "ok:" not in out
    gone = int(newest.stem)
    assert f".cache/head.rec recorded seq {gone} as its head" in err and f"seq {gone} is missing" in err, err
    # and nothing is appended on top of the hole
    with pytest.raises(StoreError, match=f"the log ends at seq {gone - 1}, but log/.heads recorded seq {gone}"):
        Campaign.open(camp.folder).note("on top of the hole")
    rc, _, err = run("note", str(camp.folder), "on top of the hole")
    assert rc == 1 and f"seq {gone} is missing" in err and "internal error" not in err
    assert not newest.exists()


def test_a_deleted_newest_batch_is_caught_by_a_printed_head_when_both_records_are_rolled_back(tmp_path: Path
                                                                                              ) -> None:
    camp = build(tmp_path / "farm")
    older_record = (camp.folder / "log" / ".heads").read_bytes()  # log/.heads before the last append
    Campaign.open(camp.folder).note("the last batch")
    rc, out, _ = run("state", str(camp.folder))
    printed = re.search(r"head ([0-9a-f]{16})", out)
    assert rc == 0 and printed is not None
    assert run("verify", str(camp.folder), "--expect-head", printed.group(1))[0] == 0
    camp.log.files()[-1].unlink()
    shutil.rmtree(camp.folder / ".cache")
    assert run("verify", str(camp.folder))[0] == 1  # log/.heads still tells
    (camp.folder / "log" / ".heads").write_bytes(older_record)
    # what cannot be detected from inside the folder: the shorter log is itself sound, and so is its record
    rc, out, _ = run("verify", str(camp.folder))
    assert rc == 0 and out.startswith("ok:")
    rc, out, err = run("verify", str(camp.folder), "--expect-head", printed.group(1))
    assert rc == 1 and f"head {printed.group(1)} is not in this log" in err, err


def test_a_player_s_printed_head_catches_the_deletion_of_what_they_saw(tmp_path: Path) -> None:
    camp = build(tmp_path / "farm")
    page = render_static(camp.folder, "alice")
    witness = re.search(r"--expect-head ([0-9a-f]{16})", page)
    assert witness is not None
    rc, out, _ = run("verify", str(camp.folder), "--expect-head", witness.group(1))
    assert rc == 0 and "is the head of alice's log" in out, out
    # more turns later: the old witness is still there, with events after it
    Campaign.open(camp.folder).play(Plan.parse({"seed": "later", "steps": {"harvest": {"choices": {}}}}))
    rc, out, _ = run("verify", str(camp.folder), "--expect-head", witness.group(1))
    assert rc == 0 and re.search(r"is seq \d+ of alice's log; \d+ event\(s\) it may see were appended", out), out
    # remove the batch holding the last event alice had seen (the note for alice of turn 3)
    for_alice = [e for e in Campaign.open(camp.folder).events() if e.visibility == "faction:alice"][-1]
    victim = next(p for p in camp.log.files() if int(p.stem) == for_alice.seq)
    for p in camp.log.files():
        if int(p.stem) >= int(victim.stem):
            p.unlink()
    shutil.rmtree(camp.folder / ".cache")
    rc, out, err = run("verify", str(camp.folder), "--expect-head", witness.group(1))
    assert rc == 1 and "is not in this log" in err


def test_every_player_facing_output_carries_the_viewer_s_head(tmp_path: Path) -> None:
    camp = build(tmp_path / "farm")
    head = camp.head_for(ALICE)
    assert head.seq == len([e for e in camp.events() if e.visibility in ("public", "faction:alice")])
    rc, out, _ = run("state", str(camp.folder), "--as", "alice", "--json")
    assert json.loads(out)["kingdomlog"]["head"] == head.as_dict()
    assert json.loads(out)["kingdomlog"]["head_seq"] == head.seq
    for argv in (("state", "--as", "alice"), ("log", "--as", "alice")):
        rc, out, _ = run(argv[0], str(camp.folder), *argv[1:])
        assert rc == 0 and head.text in out, argv
    rc, out, _ = run("log", str(camp.folder), "--as", "alice", "--json")
    assert json.loads(out)["head"] == head.as_dict()
    rc, out, _err = run("export", str(camp.folder), "--as", "alice", "-o", "-")
    assert json.loads(out.splitlines()[0])["head"] == head.as_dict()
    assert head.short in render_static(camp.folder, "alice")
    gm = camp.head_for(GM_VIEWER)
    rc, out, _ = run("verify", str(camp.folder))
    assert rc == 0 and gm.text in out


def test_malformed_expected_heads_are_input_errors(tmp_path: Path) -> None:
    camp = build(tmp_path / "farm")
    for bad in ("abc", "zz" * 10, "12:", ""):
        rc, _, err = run("verify", str(camp.folder), "--expect-head", bad)
        assert rc == 1 and "--expect-head" in err and "internal error" not in err, (bad, err)
    h = camp.head_for(GM_VIEWER)
    assert run("verify", str(camp.folder), "--expect-head", f"{h.seq}:{h.short}")[0] == 0
    assert run("verify", str(camp.folder), "--expect-head", f"{h.seq + 1}:{h.short}")[0] == 1


# ---- item 7: a viewer's own numbering ------------------------------------------------------------------


def test_a_player_s_log_is_numbered_without_gaps_and_chained_on_its_own(tmp_path: Path) -> None:
    camp = build(tmp_path / "farm")
    events = camp.events()
    first_hidden = next(e.seq for e in events if e.visibility == "gm")
    _rc, out, _ = run("log", str(camp.folder), "--as", "alice", "--json")
    doc = json.loads(out)
    rows = doc["events"]
    assert doc["numbering"] == "viewer"
    assert [r["seq"] for r in rows] == list(range(1, len(rows) + 1))
    assert len(rows) < len(events)
    prev = GENESIS_HASH
    for r in rows:  # the player can check the chain of its own log
        env = dict(r, payload=json.dumps(r["payload"], sort_keys=True, separators=(",", ":"), ensure_ascii=False))
        env["recorded_at"] = __import__("datetime").datetime.fromisoformat(r["recorded_at"])
        assert r["prev_hash"] == prev and event_hash(env) == r["hash"]
        prev = r["hash"]
    for b in doc["batches"]:
        assert 1 <= b["first_seq"] <= b["last_seq"] <= len(rows)
    # nothing of the GM's numbering from the first hidden event on reaches the player
    real = {e.hash for e in events if e.seq >= first_hidden}
    outputs = [out, run("log", str(camp.folder), "--as", "alice")[1],
               run("export", str(camp.folder), "--as", "alice", "-o", "-")[1],
               run("state", str(camp.folder), "--as", "alice", "--json")[1],
               render_static(camp.folder, "alice")]
    for text in outputs:
        assert not [h for h in real if h in text or short(h) in text]
    # the public view too, and its numbers are its own
    pub = json.loads(run("log", str(camp.folder), "--as", "public", "--json")[1])["events"]
    assert [r["seq"] for r in pub] == list(range(1, len(pub) + 1)) and len(pub) < len(rows)


def test_the_static_page_numbers_batches_in_the_viewer_s_numbering(tmp_path: Path) -> None:
    camp = build(tmp_path / "farm")
    page = render_static(camp.folder, "alice")
    shown = sorted({int(n) for span in re.findall(r"seq (\d+(?:–\d+)?)", page) for n in span.split("–")})
    n = camp.head_for(ALICE).seq
    assert shown and max(shown) == n  # the highest number is the player's own count, not the log's
    assert n < camp.head_for(GM_VIEWER).seq


def test_an_imported_player_export_has_the_head_the_player_was_shown(tmp_path: Path) -> None:
    camp = build(tmp_path / "farm")
    exp = tmp_path / "alice.jsonl"
    assert run("export", str(camp.folder), "--as", "alice", "-o", str(exp))[0] == 0
    rc, _out, err = run("import", str(exp), str(tmp_path / "copy"))
    assert rc == 0, err
    assert Campaign.open(tmp_path / "copy").head_for(GM_VIEWER) == camp.head_for(ALICE).__class__(
        "gm", camp.head_for(ALICE).seq, camp.head_for(ALICE).hash)
    assert "warning" not in err
