"""Recorded facts: a log replays as it was recorded; the audit lists where today's rules differ.

The fixture is built in the test: the demo's founding and first turn played through the store, then a
second turn appended as raw events whose numbers today's rules would not give (a check's degree, the
Resource Dice, what storage lost, an RP spend, the Fame of the turn). It replays (``verify`` ok, the
state is what the events say) and ``kingdomlog.app.audit`` / ``kingdomlog audit DIR`` name every
difference. Faults of the log itself stay ``CorruptLogError`` naming the seq.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kingdomlog.app import Campaign
from kingdomlog.app.audit import audit
from kingdomlog.cli import main
from kingdomlog.core.errors import CorruptLogError
from kingdomlog.core.events import Draft, EventModel, provisional, register_event
from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e.state import KingdomState, resource_dice

from .helpers import RS
from .make_demo import history


def _two_turns(folder: Path) -> Campaign:
    """The demo's founding and first month, as committed."""
    return history(folder, turns=2)


def _turn_two(s: KingdomState) -> list[Draft]:
    """Turn 2 as an older rules version might have recorded it (each number noted beside it)."""
    dice = int(resource_dice(s).total) + 2  # two Resource Dice more than today's rules give
    events: list[tuple[str, EventModel]] = [
        ("upkeep.leadership", E.TurnStarted(turn=2, party_level=s.max_level, fame_before=s.fame, fame_gained=1,
                                            fame_after=s.fame + 2)),  # Fame +2 where +1 is due
        ("upkeep.resources", E.ResourceDiceRolled(dice=dice, die=4, faces=[4] * dice, total=4 * dice,
                                                  pending_rp=s.pending.rp, rp_after=4 * dice + s.pending.rp)),
        # a gain of 2 Stone with room for both (2 of 4 in store), recorded as losing 1 of them to the cap
        ("upkeep.resources", E.CommodityChanged(commodity="stone", delta=2, cause="a quarry", lost_to_cap=1)),
        # d20 5 + 7 = 12 vs DC 16 is a failure; the log says success
        ("commerce.taxes", E.CheckResolved(check_id="2:commerce.taxes:check", activity="collect-taxes",
                                           category="commerce", skill="trade", ability="economy", dc=16, die=5,
                                           modifier=7, total=12, base_degree="success", degree="success")),
        # a voluntary spend of more RP than the kingdom has
        ("activity.civic", E.RPChanged(delta=-(4 * dice + s.pending.rp + 5), cause="build granary")),
        ("event.level", E.TurnEnded(turn=2, fame_lost=0)),
    ]
    return [Draft(p, phase=step, turn=2) for step, p in events]


@pytest.fixture
def fixture_log(tmp_path: Path) -> tuple[Campaign, KingdomState]:
    camp = _two_turns(tmp_path / "facts")
    before: KingdomState = camp.state()
    camp.append_raw(_turn_two(before))
    return Campaign.open(camp.folder), before


def test_the_fixture_log_replays_as_recorded(fixture_log: tuple[Campaign, KingdomState]) -> None:
    camp, before = fixture_log
    assert camp.verify().ok
    s: KingdomState = camp.state(use_cache=False)
    assert s.turn == 2 and s.step == "ended"
    assert before.commodities["stone"] == 2 and before.storage["stone"] == 4
    assert s.commodities["stone"] == 3  # the recorded loss to storage stands
    assert s.rp == 0  # the overspend is applied (floored at 0), not refused
    assert any(u.name == "collect-taxes" for u in s.used_last_turn)  # the check counts as recorded
    assert camp.state().model_dump() == s.model_dump()


def test_the_audit_lists_every_difference_turn_by_turn(fixture_log: tuple[Campaign, KingdomState]) -> None:
    camp, before = fixture_log
    rep = audit(camp)
    assert not rep.clean
    by_type: dict[str, list[str]] = {}
    for f in rep.findings:
        assert f.turn == 2
        by_type.setdefault(f.type, []).append(f.message)
    assert set(by_type) == {"pf2e.turn_started", "pf2e.resource_dice_rolled", "pf2e.commodity_changed",
                            "pf2e.check_resolved", "pf2e.rp_changed"}
    dice = int(resource_dice(before).total)
    assert by_type["pf2e.turn_started"] == [
        f"turn 2: Fame {before.fame + 2} after the start of the turn; today's rules give {before.fame + 1} (§3.1 U0)"]
    assert by_type["pf2e.resource_dice_rolled"] == [
        f"Resource Dice: {dice + 2}d4 rolled, today's rules give {dice}d4 (§2.11.3)"]
    assert by_type["pf2e.commodity_changed"] == [
        "a quarry: 1 stone recorded as lost to storage; with 2 in store and storage 4 today's rules lose 0 (§2.6)"]
    assert by_type["pf2e.check_resolved"] == [
        "check 2:commerce.taxes:check (collect-taxes): recorded degree success (base success); d20 5 + 7 vs DC 16"
        " gives failure (base failure) by today's rules (§3.0.1)"]
    assert "only a forced cost may" in by_type["pf2e.rp_changed"][0]


def test_kingdomlog_audit_prints_the_differences(fixture_log: tuple[Campaign, KingdomState],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    camp, _ = fixture_log
    assert main(["audit", str(camp.folder)]) == 0
    out = capsys.readouterr().out
    assert "5 differences between the log and today's rules" in out
    assert "month 2:" in out
    for f in audit(camp).findings:
        assert f"seq {f.seq} [{f.step}] {f.type}: {f.message}" in out


def test_a_campaign_played_by_todays_rules_audits_clean(tmp_path: Path) -> None:
    camp = _two_turns(tmp_path / "clean")
    rep = audit(camp)
    assert rep.clean and rep.events == len(camp.events()) - 1  # every ruleset event compared


# ------------------------------------------------------------------ faults of the log


def _state_and_seq(tmp_path: Path) -> tuple[KingdomState, int]:
    camp = _two_turns(tmp_path / "faults")
    return camp.state(), camp.head_seq


def test_faces_that_do_not_fit_their_notation_are_a_corrupt_log(tmp_path: Path) -> None:
    s, seq = _state_and_seq(tmp_path)
    bad = E.ResourceDiceRolled(dice=2, die=4, faces=[3, 6], total=9, rp_after=9)
    with pytest.raises(CorruptLogError, match=rf"seq {seq + 1}: .*faces \[3, 6\] are not 2d4"):
        RS.apply(s, provisional("faults", seq + 1, Draft(bad, turn=2)))
    short = E.ConsumptionPaid(consumption=3, food=0, remainder=3, method="unrest", unrest_faces=[])
    with pytest.raises(CorruptLogError, match=rf"seq {seq + 2}: .*not 1d4"):
        RS.apply(s, provisional("faults", seq + 2, Draft(short, turn=2)))


@register_event
class _NoRule(EventModel):
    """A pf2e-namespaced event type this ruleset has no rule for (as a newer version might write)."""

    type = "pf2e.test_event_without_rule"
    n: int = 0


def test_an_unknown_event_of_the_pf2e_namespace_is_a_corrupt_log_naming_the_seq(tmp_path: Path) -> None:
    s, seq = _state_and_seq(tmp_path)
    with pytest.raises(CorruptLogError, match=rf"seq {seq + 1}: .*no rule to apply event type"
                                              r" 'pf2e.test_event_without_rule'"):
        RS.apply(s, provisional("faults", seq + 1, Draft(_NoRule(), turn=2)))


@pytest.mark.parametrize("payload", [
    E.StructureBuilt(settlement="atlantis", structure="houses", block=0, lots=[1]),
    E.WorkSiteEstablished(hex_id="Z99", commodity="lumber"),
])
def test_an_event_naming_what_the_kingdom_never_had_is_a_corrupt_log(tmp_path: Path, payload: Any) -> None:
    s, seq = _state_and_seq(tmp_path)
    with pytest.raises(CorruptLogError, match=rf"seq {seq + 1}: .*does not hold"):
        RS.apply(s, provisional("faults", seq + 1, Draft(payload, turn=2)))
