"""The Signoria gaps found in play (issue 14 item 8, issue 19 item 10), each with its numbers by hand.

- an agent planted by a faction that is then eliminated leaves play with his master's court (§5.13):
  he is neither sent home to a master who no longer exists nor offered to his host (the bug behind
  the flaky leak property test: ``StatesmanDefected(to_faction='')`` and a ``KeyError`` in evolve);
- an unexpected exception while deciding a step is an internal error naming the step, never "malformed
  choice";
- the GM's slot grants survive the command roll (§3.2), recorded in version 2 of the command roll event;
  a version-1 event still means what its format said (the roll replaced the slots);
- plunder gains only what the loser actually paid (§5.12, §4.8);
- a faction left without a province hires nothing (§5.13);
- a player chooses the order in which its side's units and neutral contingents fall (§7.2, §5.8 step 8);
- a battle's losses stay hidden from a player faction that was not in it (§5.9, §11.3).
"""

from __future__ import annotations

from typing import Any

import pytest

from kingdomlog.core.errors import KingdomlogError
from kingdomlog.core.events import Draft, decode_payload, provisional
from kingdomlog.rulesets.signoria import RULESET
from kingdomlog.rulesets.signoria import events as ev

from .play import Game, setup_plan, turn_plan, types

MARBURG_PASSAGE = {"gap": "t", "text": "passage", "visibility": "faction:marburg", "effects": [
    {"kind": "treaty", "type": "right_of_passage", "parties": ["marburg"], "neutral": "gusso"}]}


def test_an_agent_whose_master_is_eliminated_leaves_play() -> None:
    """The pinned example of the flaky leak test (issue 19 item 10). Turn 1: Fabian plants Orsino in Marburg
    (low stake 5+, [6, 6]). Turn 2: Marburg does not hire him; its 10 units (passage through Gusso's land)
    meet Fabian's 1 at Fabia: Hold makes Marburg need 5+, ten 6s kill 10, the 1 defender falls, Fabia is
    captured at once (no home force left, §5.13); at upkeep Fabian is eliminated. Orsino was planted last
    turn and not hired, but his master is gone: he stays out of play (no StatesmanDefected to '')."""
    g = Game()
    g.play(setup_plan(resources={"fabian": {"army": 1}, "marburg": {"army": 10}}, rulings=[MARBURG_PASSAGE]))
    g.play(turn_plan(1, orders={"fabian": [{"id": "O1", "action": "spy", "slots": ["ordinary"], "stake": "low",
                                            "target": "marburg", "params": {"agent": "orsino"}}]},
                     steps={"p2_espionage": {"rolls": {"fabian.O1.1": [6, 6]}}}))
    assert g.state.characters["orsino"].condition == "departed" and "orsino" in g.state.plants
    new = g.play(turn_plan(2, orders={"marburg": [{"id": "O1", "action": "war", "slots": ["ordinary"],
                                                   "target": "fabia", "params": {"units": 10, "tactic": "hold"}}]},
                           steps={"p3_war": {"rolls": {"b2.1.r1.attacker.main": [6] * 10,
                                                       "b2.1.r1.defender.main": [1]}}}))
    kinds = types(new)
    assert "faction_eliminated" in kinds and "statesman_defected" not in kinds
    s = g.state
    assert s.factions["fabian"].status == "eliminated" and s.finished and s.winner == "marburg"
    orsino = s.characters["orsino"]
    assert (orsino.condition, orsino.true_master, orsino.employer) == ("departed", None, "fabian")
    assert g.replayed() == s


def test_an_unexpected_exception_is_an_internal_error_naming_the_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug in the rules (here: a KeyError planted in the income lines) is not the user's mistake: it is an
    internal error naming the step, and no 'malformed choice'."""
    g = Game()
    g.play(setup_plan())

    def broken(*args: Any) -> list[dict[str, Any]]:
        raise KeyError("no-such-province")

    monkeypatch.setattr("kingdomlog.rulesets.signoria.decide.income_lines", broken)
    with pytest.raises(RuntimeError) as err:
        g.try_play(turn_plan(1))
    assert not isinstance(err.value, KingdomlogError)
    text = str(err.value)
    assert "internal error in the rules of step 'turn_open'" in text and "KeyError" in text
    assert "malformed" not in text


GRANT = {"gap": "§3.2", "text": "the guilds lend their clerks", "visibility": "faction:fabian", "effects": [
    {"kind": "slots", "faction": "fabian", "slot": "special", "delta": 1},
    {"kind": "slots", "faction": "fabian", "slot": "ordinary", "delta": 1}]}


def test_the_gms_slot_grants_survive_the_command_roll() -> None:
    """§3.2: a grant of +1 special +1 ordinary at the opening, then a low-stake success [3, 3] (1 special +
    2 ordinary, §3.1): 2 special + 3 ordinary. A failed high stake [1, 2] then a bought reroll [6, 5]: the
    failure row (0 + 2) + grant = 1 + 3, the success row (2 + 2) + grant = 3 + 3."""
    g = Game()
    g.play(setup_plan())
    new = g.play(turn_plan(1, opening={"rulings": [GRANT]}))
    roll = next(e for e in new if e.type == "signoria.command_roll" and e.payload.faction == "fabian")
    assert roll.version == 2
    assert (roll.payload.success, roll.payload.special, roll.payload.ordinary) == (True, 2, 3)
    cr = g.state.command["fabian"]
    assert (cr.special, cr.ordinary) == (2, 3)
    plan = turn_plan(2, opening={"rulings": [GRANT]})
    plan["steps"]["command_fabian"] = {"choices": {"stake": "high", "pay": ["wealth"]},
                                       "rolls": {"cmd.1": [1, 2], "cmd.2": [6, 5]}}
    new = g.play(plan)
    rolls = [e.payload for e in new if e.type == "signoria.command_roll" and e.payload.faction == "fabian"]
    assert [(r.success, r.special, r.ordinary) for r in rolls] == [(False, 1, 3), (True, 3, 3)]
    assert (g.state.command["fabian"].special, g.state.command["fabian"].ordinary) == (3, 3)
    five = [{"id": f"O{i}", "action": "intrigue_self", "slots": ["ordinary"], "stake": "low"} for i in range(3)]
    five += [{"id": f"S{i}", "action": "liberties", "slots": ["special"], "stake": "elementary"} for i in range(2)]
    g.play(turn_plan(3, opening={"rulings": [GRANT]}, orders={"fabian": five}))  # all 2 special + 3 ordinary
    assert not any(e.type == "signoria.order_voided" for e in g.events)
    assert g.replayed() == g.state


def test_a_version_1_command_roll_still_means_what_it_said() -> None:
    """A stored v1 event has no slots: the upcaster writes its format's table out (a high-stake 7 failed:
    0 special + 2 ordinary), and a grant made before it is replaced, as the v1 log always replayed."""
    data = decode_payload("signoria.command_roll", 1, {"faction": "fabian", "attempt": 1, "stake": "high",
                                                       "dice": [3, 4], "paid_with": None})
    assert isinstance(data, ev.CommandRollMade)
    assert (data.success, data.special, data.ordinary) == (False, 0, 2)
    ok = decode_payload("signoria.command_roll", 1, {"faction": "fabian", "attempt": 1, "stake": "low",
                                                     "dice": [3, 3]})
    assert (ok.success, ok.special, ok.ordinary) == (True, 1, 2)  # type: ignore[attr-defined]
    g = Game()
    g.play(setup_plan())
    granted = RULESET.apply(g.state, provisional("test", 50, Draft(ev.GMRulingRecorded(
        gap="§3.2", text="grant", effects=({"kind": "slots", "faction": "fabian", "slot": "special", "delta": 1},)),
        "turn_open"), turn=1))
    after = RULESET.apply(granted, provisional("test", 51, Draft(ok, "command_fabian"), turn=1))
    assert (after.command["fabian"].special, after.command["fabian"].ordinary) == (1, 2)
    from kingdomlog.rulesets.signoria.audit import audit

    found = audit(granted, provisional("test", 51, Draft(ok, "command_fabian"), turn=1))
    assert len(found) == 1 and "today's rules give success=True, 2 special + 2 ordinary" in found[0]
