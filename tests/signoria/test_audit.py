"""Recorded facts (issue 11): a log replays to what it recorded even where today's rules compute other
numbers; ``kingdomlog.app.audit`` and ``kingdomlog audit DIR`` list the differences as warnings."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from kingdomlog.app import Campaign
from kingdomlog.app.audit import audit
from kingdomlog.cli import main as cli
from kingdomlog.core.events import Draft
from kingdomlog.core.turn import Plan
from kingdomlog.rulesets.signoria import events as ev
from kingdomlog.rulesets.signoria import rules

from .make_demo import DEMO
from .play import setup_plan, turn_plan

F = "faction:fabian"


def fixture_log(folder: Path) -> Campaign:
    """Setup and turn 1 played by the rules, then a turn 2 whose recorded numbers differ from them."""
    camp = Campaign.create(folder, "signoria", viewers=["fabian", "marburg"])
    camp.play(Plan.parse(setup_plan()))
    camp.play(Plan.parse(turn_plan(1, orders={"fabian": [
        {"id": "O1", "action": "intrigue_self", "slots": ["ordinary"], "stake": "low"}]},
        steps={"p1_internal": {"rolls": {"fabian.O1.1": [3, 3]}}})))
    camp.append_raw([
        Draft(ev.TurnOpened(turn=2, season="summer", year_label="Summer"), "turn_open", turn=2),
        # the lines add up to 1 (and today's rules add the summer bonus); the total says 4
        Draft(ev.IncomeCredited(faction="fabian", lines=({"source": "province:fabia", "amount": 1},), total=4),
              "turn_open", visibility=F, turn=2),
        # a success whose only roll does not reach the threshold
        Draft(ev.ActionResolved(faction="fabian", order="O9", action="intrigue_self", stake="low", threshold=5,
                                rolls=((1, 1),), outcome="success"), "p1_internal", actor="fabian", visibility=F,
              turn=2),
        # 20 wealth taken from 9 leaves a shortfall of 11, recorded as none
        Draft(ev.ResourceAdjusted(faction="marburg", resource="wealth", delta=-20, reason="a ruling", shortfall=0),
              "p1_internal", visibility="faction:marburg", turn=2),
        Draft(ev.TroopsHired(faction="marburg", units=3, cost=1), "p5_hiring", actor="marburg",
              visibility="faction:marburg", turn=2),
    ])
    return camp


def test_the_log_replays_as_recorded_and_the_audit_lists_the_differences(tmp_path: Path) -> None:
    camp = fixture_log(tmp_path / "audited")
    assert camp.verify().ok
    before = Campaign.open(camp.folder).state(until_turn=1, use_cache=False)
    state = Campaign.open(camp.folder).state(use_cache=False)
    assert state.factions["fabian"].wealth == before.factions["fabian"].wealth + 4  # the recorded total
    assert state.factions["marburg"].wealth == 0 and state.shortfalls == ()  # the recorded shortfall: none
    assert state.factions["marburg"].army == before.factions["marburg"].army + 3
    rep = audit(camp)
    assert not rep.clean and set(rep.by_turn()) == {2}
    found: dict[str, str] = {}
    for f in rep.findings:
        found[f.type] = found.get(f.type, "") + f.message + "\n"
    assert "total 4 recorded but its lines add up to 1" in found["signoria.income_credited"]
    assert "recorded as success, but no roll of [[1, 1]] reaches 5" in found["signoria.action_resolved"]
    assert "marburg wealth 9 -20 (a ruling): shortfall 0 recorded, 11 by the §4.8 floor" in \
        found["signoria.resource_adjusted"]
    assert "3 units for 1 wealth" in found["signoria.troops_hired"]
    assert "'season:summer'" in found["signoria.income_credited"]  # today's rules would add the season's line
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli(["audit", str(camp.folder)]) == 0
    text = out.getvalue()
    n = len(rep.findings)
    assert f"{n} difference{'' if n == 1 else 's'} between" in text and "month 2:" in text
    assert "[p1_internal] signoria.action_resolved" in text and "no roll of [[1, 1]] reaches 5" in text


def test_a_rules_change_changes_the_audit_not_the_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo's command rolls give the slots their events recorded even when today's rules would not:
    with a low stake needing 7, the rolls of 6 become warnings and the state stays the same."""
    camp = Campaign.open(DEMO)
    assert audit(camp).clean
    before = camp.state(use_cache=False).model_dump(mode="json")
    monkeypatch.setitem(rules.STAKE_THRESHOLD, "low", 7)
    assert Campaign.open(DEMO).state(use_cache=False).model_dump(mode="json") == before
    rep = audit(Campaign.open(DEMO))
    rolls = [f for f in rep.findings if f.type == "signoria.command_roll"]
    assert [(f.turn, f.step) for f in rolls] == [(3, "command_marburg"), (4, "command_marburg"),
                                                 (7, "command_fabian")]
    assert "recorded success=True, 1 special + 2 ordinary; today's rules give success=False, 0 special + 3" \
        in rolls[0].message
    assert any(f.type == "signoria.action_resolved" and "threshold 5 recorded; today's rules give 7" in f.message
               for f in rep.findings)
