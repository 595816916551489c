"""Illegal plans are refused with a RuleError naming the rule, before any event of the step exists."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from kingdomlog.core.errors import RuleError
from kingdomlog.core.events import provisional
from kingdomlog.core.ruleset import run_step
from kingdomlog.dice.roller import KeyedRoller
from kingdomlog.rulesets.pf2e import events as E

from .helpers import RS, Game


def _refused(g: Game, steps: dict, rule: str) -> str:
    pv = g.play(steps, check=False)
    assert not pv.ok
    err = pv.error or ""
    assert rule in err, err
    failed = next(s for s in pv.steps if s.error)
    assert failed.drafts == [] and failed.state_after is None
    return err


def test_structure_above_kingdom_level() -> None:
    """§4.9.1: a Castle (level 9) cannot be built by a level 1 kingdom."""
    err = _refused(Game().found(), {"activity.civic": {"choices": {"activities": [
        {"activity": "build-structure", "structure": "castle"}]}}}, "§4.9.1")
    assert "castle" in err and "level 9" in err


def test_spending_rp_not_had() -> None:
    """§3.0.3: a voluntary cost above the RP available is refused (Granary 12 RP with 5 RP)."""
    _refused(Game().found(), {"upkeep.resources": {"rolls": {"resource": [1, 1, 1, 1, 1]}},
                              "activity.civic": {"choices": {"activities": [
                                  {"activity": "build-structure", "structure": "granary"}]}}}, "§3.0.3")


def test_second_use_of_a_once_per_turn_activity() -> None:
    """§3.3 A1.3: Create a Masterpiece twice in one turn."""
    _refused(Game().found(), {"activity.leadership": {"choices": {"activities": [
        {"activity": "create-a-masterpiece", "role": "counselor"},
        {"activity": "create-a-masterpiece", "role": "ruler"}]}}}, "§3.3 A1.3")


def test_activity_not_allowed_in_anarchy() -> None:
    """§3.1 U2.5: in anarchy only Quell Unrest."""
    _refused(Game().found(resume={"turn": 1, "unrest": 25}), {"commerce.taxes": {"choices": {"mode": "none"}},
                                                               "activity.region": {"choices": {"activities": [
                                                                   {"activity": "harvest-crops"}]}}}, "§3.1 U2.5")


def test_npc_leaders_take_no_activities() -> None:
    """§2.3: NPCs never perform kingdom activities."""
    _refused(Game().found(), {"activity.leadership": {"choices": {"activities": [
        {"activity": "quell-unrest", "role": "warden", "skill": "politics"}]}}}, "§2.3")


def test_claim_hex_limit_at_level_1() -> None:
    """§5.9: one Claim Hex per turn at levels 1-3."""
    _refused(Game().found(), {"upkeep.resources": {"rolls": {"resource": [4, 4, 4, 4, 4]}},
                              "activity.region": {"choices": {"activities": [
                                  {"activity": "claim-hex", "hex": {"id": "H1", "q": 1, "r": 0}},
                                  {"activity": "claim-hex", "hex": {"id": "H2", "q": 0, "r": 1}}]},
                                  "rolls": {"a1": [3]}}}, "§5.9")


def test_leadership_activity_budget() -> None:
    """§2.11.9 / §5.8: without a seat of government a PC leader takes 2 Leadership activities."""
    _refused(Game().found(), {"activity.leadership": {"choices": {"activities": [
        {"activity": "quell-unrest", "role": "ruler", "skill": "politics"},
        {"activity": "create-a-masterpiece", "role": "ruler"},
        {"activity": "craft-luxuries", "role": "ruler"}]}}}, "§2.11.9")


def test_trained_requirement() -> None:
    """§4.1: Repair Reputation (Decay) uses Engineering and needs it trained."""
    _refused(Game().found(), {"activity.leadership": {"choices": {"activities": [
        {"activity": "repair-reputation", "role": "ruler", "ruin": "decay"}]}}}, "proficiency")


def _decide(g: Game, step: str, choices: dict, turn: int) -> None:
    """One step decided directly (``run_step``), as the preview does."""
    spec = next(s for s in RS.all_steps if s.id == step)
    run_step(RS, g.state, spec, choices, KeyedRoller("s", campaign="c", turn=turn).for_step(step), turn=turn)


def test_founding_rules() -> None:
    """§2.3, §2.2: exactly four invested roles; boosts of one source go to different abilities."""
    g = Game()
    with pytest.raises(RuleError, match=r"§2\.3"):
        _decide(g, "founding", {"leaders": {"ruler": {"holder": "A", "invested": True}}}, 0)
    with pytest.raises(RuleError, match=r"§2\.2"):
        _decide(g, "founding", {"government_free_boost": "loyalty"}, 0)


def test_turn_steps_need_a_founded_kingdom() -> None:
    g = Game()
    with pytest.raises(RuleError, match="founded"):
        _decide(g, "commerce.taxes", {}, 1)


def test_a_tampered_check_replays_as_recorded_and_the_audit_names_it() -> None:
    """§7.1.3: evolve applies a recorded check as it is (its degree counts); the audit recomputes it from its
    numbers and names what does not add up."""
    g = Game().found()
    pv = g.play({"commerce.taxes": {"rolls": {"check": [12]}}})
    chk = next(d for d in pv.drafts if isinstance(d.payload, E.CheckResolved))
    state = pv.steps[[s.phase.id for s in pv.steps].index("commerce.taxes") - 1].state_after
    forged = chk.payload.model_copy(update={"degree": "critical_success"})
    ev = provisional("test", 99, dataclasses.replace(chk, payload=forged), turn=1)
    after = RS.apply(state, ev)
    assert any(u.name == "collect-taxes" for u in after.used_this_turn)
    assert any("degree critical_success" in w and "gives success" in w for w in RS.audit(state, ev))
    wrong_total = chk.payload.model_copy(update={"total": chk.payload.total + 1})
    ev = provisional("test", 99, dataclasses.replace(chk, payload=wrong_total), turn=1)
    RS.apply(state, ev)
    assert any(f"total {chk.payload.total + 1} is not d20" in w for w in RS.audit(state, ev))
    assert RS.audit(state, provisional("test", 99, chk, turn=1)) == []


@pytest.mark.parametrize("kind", ["demolish", "build"])
def test_a_gm_effect_that_finishes_an_activitys_work_is_refused_not_a_crash(kind: str) -> None:
    """A GM effect of an event that only Build Structure or Demolish can carry out (it needs their settlement,
    block and lots) is refused naming what is missing — found by the archive generator as an internal error."""
    pv = Game().found().play({"event.resolve": {"choices": {"gm_effects": [{"kind": kind, "amount": 1}]}}},
                             check=False)
    assert not pv.ok
    assert f"a {kind!r} effect finishes Build Structure or Demolish" in (pv.error or ""), pv.error
    assert "internal error" not in (pv.error or "")


@pytest.mark.parametrize(("effect", "words"), [
    ({"kind": "ruin_threshold", "amount": 1}, "'ruin_threshold' names no Ruin"),
    ({"kind": "ruin", "target": "gloom", "amount": 1}, "'gloom' is not a Ruin (one of corruption, crime"),
    ({"kind": "ruin_penalty", "target": "", "amount": 1}, "'ruin_penalty' names no Ruin"),
    ({"kind": "ruin", "target": "target", "amount": 1}, "this effect needs a Ruin targeted, which this check does not"),
    ({"kind": "settlement", "amount": 1}, "this effect needs a settlement to found"),
    ({"kind": "flag", "amount": 1}, "a 'flag' effect needs its flag's name as its target"),
])
def test_a_gm_ruling_missing_what_its_effect_needs_is_refused_naming_it(effect: dict[str, Any], words: str) -> None:
    """A GM ruling's effect that names no Ruin, an unknown one, or needs what the event's check did not prepare
    (a settlement to found, a Ruin targeted, a flag's name) is the GM's input to change — found by random turns
    as a KeyError (seed 15) and a validation error (seed 33) inside the step, reported as internal errors."""
    pv = Game().found().play({"event.resolve": {"choices": {"gm_effects": [effect]}}}, check=False)
    assert not pv.ok
    assert words in (pv.error or ""), pv.error
    assert "internal error" not in (pv.error or "")
