"""Illegal plans are refused with the rule named, and nothing is appended to the log (§3.6, §2.9, §3.10.3)."""

from __future__ import annotations

from pathlib import Path

import pytest
from aik_helpers import founding, quiet_year

from kingdomlog.app import Campaign
from kingdomlog.core.errors import RuleError
from kingdomlog.core.turn import Plan


@pytest.fixture
def camp(tmp_path: Path) -> Campaign:
    c = Campaign.create(tmp_path / "realm", "aikakirjat")
    c.play(Plan.parse({"seed": "s0", **founding()}))
    return c


def refused(camp: Campaign, plan: dict, rule: str) -> str:
    head = camp.head_seq
    with pytest.raises(RuleError) as info:
        camp.play(Plan.parse({"seed": "s1", **plan}))
    assert rule in str(info.value), str(info.value)
    assert camp.head_seq == head  # nothing appended
    return str(info.value)


def test_more_actions_than_the_kingdom_has(camp: Campaign) -> None:
    """§2.9: a level-1 kingdom has one action a year; two are refused."""
    plan = quiet_year(actions={"choices": {"actions": [{"action": "tax_collection"}, {"action": "tax_collection"}]}})
    msg = refused(camp, plan, "§2.9")
    assert "1 per year" in msg


def test_research_without_an_academy(camp: Campaign) -> None:
    """§3.10.3: research needs a working academy or university."""
    refused(camp, quiet_year(actions={"choices": {"actions": [{"action": "research"}]}}), "§3.10.3")


def test_research_with_a_disabled_academy_only(camp: Campaign) -> None:
    """§3.10.3: an academy founded between years allows research (a catastrophe disables it for 1d6 years)."""
    gm = [{"event": "institution_founded", "institution_id": "academy-1", "kind": "academy"}]
    p = camp.play(Plan.parse({"seed": "s1", **quiet_year(
        start={"choices": {"new_session": True, "gm_events": gm}},
        actions={"choices": {"actions": [{"action": "research"}]}, "rolls": {"a1.check": [1], "a1.disabled": [3],
                                                                             "a1.decay": [2]}})}))
    assert p.first_seq > 0
    s = camp.state()
    assert s.institutions[0].disabled_until_year == 1 + 3 and s.fame == 2 + 1
    refused(camp, quiet_year(actions={"choices": {"actions": [{"action": "research"}]}}), "§3.10.3")


def test_feat_without_its_prerequisite(camp: Campaign) -> None:
    """§3.6: Census needs proficiency in Bureaucracy (Feudalism + Construction lacks it); Law and Order is fine."""
    gm = [{"event": "gm_adjustment", "field": "fame", "delta": 19, "reason": "t"},
          {"event": "gm_adjustment", "field": "population", "delta": 3, "reason": "t"}]
    camp.play(Plan.parse({"seed": "s1", **quiet_year(start={"choices": {"new_session": True, "gm_events": gm}})}))
    assert camp.state().level == 2
    bad = quiet_year(end={"choices": {"benefits": [{"level": 2, "benefit": "feat", "feat": "census"}]}})
    msg = refused(camp, bad, "§3.6 prerequisites")
    assert "bureaucracy" in msg
    bad = quiet_year(end={"choices": {"benefits": [{"level": 2, "benefit": "feat", "feat": "general_staff"}]}})
    refused(camp, bad, "§3.6 prerequisites")
    ok = quiet_year(end={"choices": {"benefits": [{"level": 2, "benefit": "feat", "feat": "law_and_order"}]}})
    camp.play(Plan.parse({"seed": "s2", **ok}))
    assert [f.feat for f in camp.state().feats] == ["law_and_order"]


def test_reduce_unrest_needs_a_pc(camp: Campaign) -> None:
    """§3.10.7: the kingdom cannot reduce Unrest with its own skills."""
    refused(camp, quiet_year(actions={"choices": {"actions": [{"action": "reduce_unrest"}]}}), "§3.10.7")


def test_a_pc_acts_once_a_year(camp: Campaign) -> None:
    """A75: one PC, one action a year (the kingdom needs two actions to try; level 5 via GM adjustments)."""
    gm = [{"event": "gm_adjustment", "field": "pc", "target": "aino", "value": {"name": "Aino"}, "reason": "t"},
          {"event": "gm_adjustment", "field": "fame", "delta": 139, "reason": "t"},
          {"event": "gm_adjustment", "field": "population", "delta": 12, "reason": "t"},
          {"event": "gm_adjustment", "field": "territory", "reason": "t",
           "value": [{"area_id": "big", "unit": "province", "amount": 2}]}]
    camp.play(Plan.parse({"seed": "s1", **quiet_year(start={"choices": {"new_session": True, "gm_events": gm}})}))
    assert camp.state().level == 5
    two = [{"action": "reduce_unrest", "performer": "pc", "pc_id": "aino", "pc_bonus": 4},
           {"action": "reduce_unrest", "performer": "pc", "pc_id": "aino", "pc_bonus": 4}]
    refused(camp, quiet_year(actions={"choices": {"actions": two}, "rolls": {"a1.check": [10]}}), "A75")


def test_pc_cannot_spend_kingdom_advantages(camp: Campaign) -> None:
    """A50: stored advantages apply to kingdom checks only; a PC's Embassy may not spend one."""
    gm = [{"event": "gm_adjustment", "field": "stored_advantages", "delta": 1, "reason": "t"},
          {"event": "gm_adjustment", "field": "pc", "target": "aino", "value": {"name": "Aino"}, "reason": "t"},
          {"event": "gm_adjustment", "field": "neighbour", "reason": "t",
           "value": {"id": "kalevala", "name": "Kalevala"}}]
    act = [{"action": "embassy", "performer": "pc", "pc_id": "aino", "pc_bonus": 5, "neighbour_id": "kalevala",
            "spend_stored": True}]
    refused(camp, quiet_year(start={"choices": {"new_session": True, "gm_events": gm}},
                             actions={"choices": {"actions": act}}), "A50")
