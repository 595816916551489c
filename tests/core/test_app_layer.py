"""The application layer's edges (issue 26): viewers parsed from the config alone, one public append,
a commit that records its draft, one merge of the players' submissions."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import toyrules

from kingdomlog.app import Campaign
from kingdomlog.core.errors import InputError
from kingdomlog.core.turn import Plan
from kingdomlog.core.viewers import GM_VIEWER, PUBLIC_VIEWER, Viewer
from kingdomlog.store.log import EventLog

REPO = Path(__file__).resolve().parents[2]
FELMONTE = REPO / "campaigns" / "felmonte"


@pytest.fixture
def farm(tmp_path: Path) -> Campaign:
    camp = Campaign.create(tmp_path / "farm", "toy-farm", viewers=["alice", "bob"])
    for plan in toyrules.TOY.sample_plans()[:2]:
        camp.play(Plan.parse(plan))
    return camp


def no_reading_of_the_log(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any read of the log's events (and so any fold or replay) fails the test."""

    def refuse(*_a: object, **_k: object) -> None:
        raise AssertionError("the log was read to parse a viewer")

    for name in ("read", "read_table", "iter_tables", "read_after"):
        monkeypatch.setattr(EventLog, name, refuse)
    monkeypatch.setattr(Campaign, "state", refuse)
    monkeypatch.setattr(Campaign, "events", refuse)


# ---- viewers: parsed from the config, nothing folded -----------------------------------------------------------


def test_a_viewer_is_parsed_from_the_config_without_reading_the_log(farm: Campaign,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    camp = Campaign.open(farm.folder)
    no_reading_of_the_log(monkeypatch)
    assert camp.viewer("alice") == Viewer("player", "alice") == camp.viewer("faction:alice")
    assert camp.viewer("gm") == camp.viewer(None) == GM_VIEWER and camp.viewer("public") == PUBLIC_VIEWER
    with pytest.raises(InputError, match="unknown viewer 'nobody'; this campaign's viewers: gm, public, alice, bob"):
        camp.viewer("nobody")
    assert camp.players() == ("alice", "bob")


def test_a_rulesets_own_players_come_from_its_options_not_a_fold(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Signoria's factions are its ``players`` option: a campaign.toml that declares none still knows them."""
    folder = tmp_path / "felmonte"
    shutil.copytree(FELMONTE, folder, ignore=shutil.ignore_patterns(".cache", "plans", "*.py", "drafts"))
    cfg = folder / "campaign.toml"
    text = cfg.read_text()
    start, end = text.index("viewers = ["), text.index("]\n", text.index("viewers = [")) + 2
    cfg.write_text(text[:start] + text[end:])
    camp = Campaign.open(folder)
    assert camp.config.player_ids == ()
    no_reading_of_the_log(monkeypatch)
    assert camp.players() == ("fabian", "marburg")
    assert camp.viewer("marburg") == Viewer("player", "marburg")
    with pytest.raises(InputError, match="unknown viewer 'felmonte'"):  # a neutral is the GM's
        camp.viewer("felmonte")
