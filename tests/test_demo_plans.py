"""Every demo campaign's plan files validate against ``kingdomlog plan-schema`` of its ruleset (issue 11)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import jsonschema
import pytest

from kingdomlog.core.ruleset import find_ruleset
from kingdomlog.core.turn import plan_schema

CAMPAIGNS = Path(__file__).resolve().parents[1] / "campaigns"
PLANS = sorted(CAMPAIGNS.glob("*/plans/turn-*.json"))


def test_there_are_demo_plans() -> None:
    assert {p.parts[-3] for p in PLANS} == {"stolen-lands", "river-kingdom", "aikakirjat-demo", "felmonte"}


@pytest.mark.parametrize("path", PLANS, ids=[f"{p.parts[-3]}/{p.name}" for p in PLANS])
def test_every_demo_plan_validates_against_the_plan_schema(path: Path) -> None:
    ruleset = tomllib.loads((path.parents[1] / "campaign.toml").read_text())["ruleset"]
    schema = plan_schema(find_ruleset(ruleset))
    jsonschema.validate(json.loads(path.read_text()), schema)
