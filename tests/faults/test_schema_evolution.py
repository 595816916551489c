"""Schema evolution: old event versions replay through upcasters; newer ones are refused (issue 8, fault 6).

tests/fixtures/toy-v1/ is a committed campaign whose log holds ``toy.harvested`` v1
payloads (``amount``), written by tests/faults/make_fixture.py before the model
became v2 (``food`` and ``crop``, upcaster in tests/toyrules.py). The test copies
the folder (reading writes the derived ``.cache/``) and checks the folded state
against a hand computation.
"""

from __future__ import annotations

import io
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import ClassVar

import pytest
import toyrules

from kingdomlog import cli
from kingdomlog.app import Campaign
from kingdomlog.core.errors import CorruptLogError, EventTypeError
from kingdomlog.core.events import Draft, EventModel
from kingdomlog.store import log as logmod

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "toy-v1"


@pytest.fixture
def old(tmp_path: Path) -> Campaign:
    dest = tmp_path / "toy-v1"
    shutil.copytree(FIXTURE, dest)
    return Campaign.open(dest)


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_fixture_really_holds_v1_payloads(old: Campaign) -> None:
    rows = old.log.read_table().to_pylist()
    v1 = [r for r in rows if r["type"] == "toy.harvested" and r["version"] == 1]
    assert [r["payload"] for r in v1] == ['{"amount":4,"faces":[4]}', '{"amount":2,"faces":[2]}']
    assert any(r["type"] == "toy.harvested" and r["version"] == 2 for r in rows)


def test_old_versions_replay_through_the_upcaster(old: Campaign) -> None:
    """Founded with 7 gold; v1 harvest 4; sell 3 food for 6 gold; v1 harvest 2; v2 barley 5+6 = 11."""
    assert old.verify().ok
    state = old.state(use_cache=False)
    assert (state.name, state.gold, state.food, state.history) == ("Oldacre", 13, 14, (4, 2, 11))
    assert old.state() == state  # through the snapshot cache too
    harvested = [e.payload for e in old.events() if e.type == "toy.harvested"]
    assert [(h.crop, h.food) for h in harvested] == [("wheat", 4), ("wheat", 2), ("barley", 11)]
    # the stored bytes are untouched: the hashes still verify over the v1 text
    assert old.events()[2].payload_text == '{"amount":4,"faces":[4]}'
    code, out, _ = _cli("state", str(old.folder), "--json", "--no-cache")
    assert code == 0 and '"food": 14' in out


def test_a_batch_from_a_newer_format_is_refused(old: Campaign, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(logmod, "FORMAT_VERSION", 99)
    old.log.append([Draft(toyrules.Sold(food=1, gold=2), turn=3)], expect_seq=old.head_seq)
    monkeypatch.undo()
    fresh = Campaign.open(old.folder)
    with pytest.raises(CorruptLogError, match=r"newer kingdomlog \(format 99, this one reads 1\)"):
        fresh.state()
    report = fresh.verify()
    assert not report.ok and "000000000007.parquet" in report.problems[0] and "newer" in report.problems[0]
    code, _, err = _cli("state", str(old.folder))
    assert code == 1 and "newer kingdomlog" in err and "Traceback" not in err


class HarvestedV3(EventModel):
    """A toy.harvested from a future kingdomlog (not registered)."""

    type: ClassVar[str] = "toy.harvested"
    version: ClassVar[int] = 3
    food: int
    crop: str
    faces: tuple[int, ...]
    quality: str


def test_an_event_newer_than_the_code_is_refused(old: Campaign) -> None:
    old.log.append([Draft(HarvestedV3(food=1, crop="rye", faces=(1,), quality="fine"), turn=3)],
                   expect_seq=old.head_seq)
    fresh = Campaign.open(old.folder)
    with pytest.raises(EventTypeError, match=r"seq 7: event 'toy.harvested' has version 3, newer than this code"):
        fresh.state()
    report = fresh.verify()
    assert not report.ok and "version 3" in report.problems[0]
    code, _, err = _cli("log", str(old.folder))
    assert code == 1 and "upgrade kingdomlog" in err and "Traceback" not in err
    code, _, err = _cli("verify", str(old.folder))
    assert code == 1
