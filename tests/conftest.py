"""Shared fixtures: the toy ruleset is registered for every test."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import toyrules

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def toy_campaign(tmp_path: Path):
    """A fresh toy campaign with its founding and one turn played."""
    from kingdomlog.app import Campaign
    from kingdomlog.core.turn import Plan

    camp = Campaign.create(tmp_path / "farm", "toy-farm", name="Farm", viewers=["alice"])
    for plan in toyrules.TOY.sample_plans()[:2]:
        camp.play(Plan.parse(plan))
    return camp
