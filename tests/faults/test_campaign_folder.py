"""campaign.toml and the log disagree, or the log is empty (issue 19, items 4 and 8).

- Changing ``id`` in campaign.toml let the next write put a batch of the new id into the log, so
  it no longer verified under either id. The log's id wins: reads use it, every write is refused
  with a message naming both ids, before anything is written; ``verify`` reports it.
- A folder with campaign.toml and an empty ``log/`` (a creation or import that did not finish)
  opened as a campaign with no events. It is refused by every reader.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from clirun import run

from kingdomlog.app import Campaign
from kingdomlog.core.errors import CampaignNotFoundError
from kingdomlog.core.turn import Plan
from kingdomlog.projections.sql import Catalog
from kingdomlog.store.config import CONFIG_FILE


def log_hash(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted((folder / "log").iterdir()):
        h.update(p.name.encode() + p.read_bytes())
    return h.hexdigest()


@pytest.fixture
def farm(tmp_path: Path) -> Path:
    camp = Campaign.create(tmp_path / "farm", "toy-farm", name="Farm", viewers=["alice"])
    camp.play(Plan.parse({"seed": "a", "steps": {"found": {"choices": {"name": "Dale", "gold": 5}}}}))
    camp.play(Plan.parse({"seed": "b", "steps": {"harvest": {"choices": {}}, "market": {"choices": {"sell": 1}}}}))
    Campaign.open(camp.folder).state()  # a warm cache: reads skip decoding verified files
    return camp.folder


def set_id(folder: Path, new: str) -> None:
    cfg = folder / CONFIG_FILE
    cfg.write_text(re.sub(r'(?m)^id = ".*"$', f'id = "{new}"', cfg.read_text()))


def test_an_edited_id_is_refused_before_any_write(farm: Path, tmp_path: Path) -> None:
    good_state = Campaign.open(farm).state()
    set_id(farm, "other")
    before = log_hash(farm)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"seed": "c", "steps": {"harvest": {"choices": {}}}}))
    events = tmp_path / "e.jsonl"
    events.write_text(json.dumps({"turn": 1, "type": "core.note_added", "payload": {"text": "x"}}) + "\n")
    writes = [("note", str(farm), "a note"), ("turn", str(farm), "--plan", str(plan)),
              ("append", str(farm), str(events)), ("retract", str(farm), "--turn", "1")]
    for argv in writes:
        rc, _, err = run(*argv)
        assert rc == 1, argv
        assert "id is 'other', but this log belongs to campaign 'farm'" in err and "nothing was written" in err, err
        assert "internal error" not in err
        assert log_hash(farm) == before, argv
    # reads go on under the log's id; verify says what is wrong
    camp = Campaign.open(farm)
    assert camp.id == "farm" and camp.state() == good_state
    rc, _, err = run("verify", str(farm))
    assert rc == 1 and "set id = \"farm\" again" in err
    # put it back: everything works and nothing was damaged
    set_id(farm, "farm")
    assert run("verify", str(farm))[0] == 0
    assert run("note", str(farm), "a note")[0] == 0
    assert Campaign.open(farm).verify().ok


def test_the_catalog_loads_an_edited_campaign_under_its_log_id(farm: Path) -> None:
    set_id(farm, "other")
    cat = Catalog(farm.parent, campaigns=[farm])
    assert cat.con.execute("SELECT DISTINCT campaign FROM events").fetchall() == [("farm",)]
    assert cat.con.execute("SELECT campaign FROM campaigns").fetchall() == [("farm",)]


def test_an_empty_log_folder_is_not_a_campaign(tmp_path: Path) -> None:
    folder = tmp_path / "half"
    Campaign.create(folder, "toy-farm")
    for p in (folder / "log").iterdir():
        p.unlink()
    for argv in (("state", str(folder)), ("verify", str(folder)), ("log", str(folder)), ("note", str(folder), "x"),
                 ("head", str(folder))):
        rc, _, err = run(*argv)
        assert rc == 1 and "not a campaign yet: its log/ holds no events" in err, (argv, err)
    with pytest.raises(CampaignNotFoundError):
        Campaign.open(folder)
    cat = Catalog(tmp_path)
    assert cat.con.execute("SELECT count(*) FROM campaigns").fetchone() == (0,)
    assert any("not a campaign yet" in w for w in cat.warnings)
    assert list((folder / "log").iterdir()) == []  # nothing was written by any of them
