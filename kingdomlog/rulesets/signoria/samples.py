"""Sample payloads of every Signoria event type and sample plans (setup + 2 turns) for conformance."""

from __future__ import annotations

from typing import Any

from kingdomlog.core.events import Draft
from kingdomlog.rulesets.signoria import events as ev


def sample_events() -> list[Draft]:
    """One valid payload of every event type, with a plausible visibility."""
    F = "faction:fabian"
    M = "faction:marburg"
    B = f"{F},{M}"
    side = {"groups": [{"group": "main", "units": 3, "threshold": 4, "dice": [6, 4, 1], "rerolls": [],
                        "explosions": [], "successes": 2, "kills": 1, "routs": 1}], "kills": 1, "routs": 1}
    out = [
        Draft(ev.GameCreated(config={"players": ["fabian", "marburg"]}, initiative=("fabian", "marburg")),
              "setup"),
        Draft(ev.ProvinceDefined(province="fabia", name="Fabia", income=1, owner="fabian"), "setup"),
        Draft(ev.FactionCreated(faction="fabian", name="Duke Fabian", kind="player", traits=("absolute_power",),
                                leader_name="Duke Fabian"), "setup"),
        Draft(ev.ResourcesInitialized(faction="fabian", power=5, piety=4, wealth=1, army=8), "setup",
              visibility=F),
        Draft(ev.CharacterCreated(character="cesare", faction="fabian", name="Cesare", role="statesman",
                                  traits=("steward",), trait_source="random", trait_dice=(1,), is_heir=True),
              "setup", visibility=F),
        Draft(ev.IntelRecorded(observer="fabian", subject="gusso", fields={"army": 5}, turn=0, phase="setup",
                               source="public"), "setup", visibility=F),
        Draft(ev.TurnOpened(turn=1, season="summer", year_label="Summer 216"), "turn_open"),
        Draft(ev.IncomeCredited(faction="fabian", lines=({"source": "province:fabia", "amount": 1},), total=1),
              "turn_open", visibility=F),
        Draft(ev.GlobalEventAnnounced(key="fever", title="An autumn fever in the ports"), "turn_open"),
        Draft(ev.DilemmaPresented(faction="marburg", dilemma="festival", text="The guilds petition for a festival",
                                  options=({"id": "fund", "text": "fund it", "effects": []},)), "turn_open",
              visibility=M),
        Draft(ev.CandidateOffered(faction="fabian", candidate="t1.c1", name="Piero", trait="general",
                                  trait_dice=(3,)), "turn_open", visibility=F),
        Draft(ev.CandidateAlias(candidate="t2.c1", agent="orsino", host="marburg"), "turn_open", visibility=F),
        Draft(ev.CommandRollMade(faction="fabian", attempt=1, stake="high", dice=(3, 4), success=False,
                                 special=0, ordinary=2), "command_fabian",
              actor="fabian", visibility=F),
        Draft(ev.OrdersSubmitted(faction="fabian", orders=({"id": "O1", "action": "intrigue_self",
                                                            "slots": ["ordinary"], "stake": "low"},)),
              "orders_fabian", actor="fabian", visibility=F),
        Draft(ev.OrderVoided(faction="fabian", order="O2", action="hire_troops", reason="costs 2 wealth but fabian "
                             "has 1 left after its earlier orders (1 in all)", rule="§4.8 voluntary costs"),
              "orders_fabian", visibility=F),
        Draft(ev.OrdersLocked(turn=1), "p1_internal"),
        Draft(ev.OrdersRevealed(turn=1, faction="fabian", orders=({"id": "O1", "action": "intrigue_self"},)),
              "upkeep"),
        Draft(ev.PhaseStarted(turn=1, phase="p1_internal"), "p1_internal"),
        Draft(ev.ActionResolved(faction="fabian", order="O1", action="intrigue_self", stake="low", threshold=5,
                                rolls=((3, 3),), outcome="success"), "p1_internal", actor="fabian", visibility=F),
        Draft(ev.ResourceAdjusted(faction="fabian", resource="power", delta=1, reason="intrigue"), "p1_internal",
              visibility=F),
        Draft(ev.FactionNotified(faction="fabian", kind="assassination_attempt", text="an attempt on Orsino"),
              "p2_espionage", visibility=F),
        Draft(ev.GMRulingRecorded(gap="G-29", text="festival funded",
                                  effects=({"kind": "resource", "faction": "marburg", "resource": "piety",
                                            "delta": 1},)), "p1_internal", visibility=M),
        Draft(ev.CharacterStatusChanged(character="orsino", condition="wounded", cause="assassination"),
              "p2_espionage", visibility=F),
        Draft(ev.LeaderSucceeded(faction="fabian", character="cesare", name="Cesare",
                                 traits=("steward", "general"), trait_dice=(3,), from_statesman=True),
              "p2_espionage"),
        Draft(ev.StatesmanHired(faction="fabian", candidate="t1.c1", name="Piero", trait="general", cost=1),
              "p5_hiring", actor="fabian", visibility=F),
        Draft(ev.StatesmanDismissed(faction="fabian", character="t1.c1", reason="cap"), "upkeep", visibility=F),
        Draft(ev.StatesmanDefected(character="lorenzo", from_faction="marburg", to_faction="fabian",
                                   kind="bribe"), "p2_espionage", visibility=B),
        Draft(ev.SpyPlanted(agent="orsino", master="fabian", host="marburg"), "p2_espionage", visibility=F),
        Draft(ev.SpyPlaced(agent="orsino", master="fabian", host="marburg"), "p5_hiring", visibility=F),
        Draft(ev.SpyExposed(agent="orsino", master="fabian", host="marburg"), "p3_war", visibility=B),
        Draft(ev.DoubleAgentChosen(character="lorenzo", owner="marburg", briber="fabian", mode="believed_spy"),
              "p2_espionage", visibility=M),
        Draft(ev.TreatyConcluded(treaty="felmonte.trade.fabian.5", kind="trade", parties=("fabian",),
                                 neutral="felmonte", stake="high"), "p4_diplomacy", visibility=F),
        Draft(ev.TreatyEnded(treaty="felmonte.trade.fabian.5", reason="outbid"), "p4_diplomacy", visibility=F),
        Draft(ev.StandingChanged(neutral="gusso", faction="fabian", delta=1, cause="improve_relations"),
              "p4_diplomacy", visibility=F),
        Draft(ev.LegitimacyLetterSent(neutral="gusso", faction="fabian"), "p4_diplomacy", visibility=F),
        Draft(ev.NeutralReaction(neutral="felmonte", key="call_for_help", reaction="alliance",
                                 beneficiary="marburg"), "p3_war", visibility=M),
        Draft(ev.FelmonteSold(winner="marburg", amount=4), "p2_espionage", visibility=M),
        Draft(ev.CampaignLaunched(campaign="5.fabian.S1", faction="fabian", order="S1", target="marburg", units=8,
                                  characters=("orsino",), route="passage", tactic="breakthrough"), "p3_war",
              actor="fabian", visibility=F),
        Draft(ev.CampaignArrived(campaign="5.fabian.S1", faction="fabian", province="marburg"), "p3_war"),
        Draft(ev.DefenderResponded(campaign="5.fabian.S1", defender="marburg", response="battle", tactic="hold"),
              "p3_war", actor="marburg", visibility=B),
        Draft(ev.BattleOpened(battle="b5.1", kind="field", province="marburg", attacker="fabian", defender="marburg",
                              forces={"fabian": {"units": 8}, "marburg": {"units": 6}}, season="autumn"), "p3_war",
              visibility=B),
        Draft(ev.BattleRound(battle="b5.1", round=1, sides={"attacker": side, "defender": side}), "p3_war",
              visibility=B),
        Draft(ev.BattleEnded(battle="b5.1", province="marburg", attacker="fabian", defender="marburg",
                             winner="fabian", reason="broken", killed={"fabian": 2, "marburg": 2}), "p3_war",
              visibility=B),
        Draft(ev.BattleReported(battle="b5.1", province="marburg", attacker="fabian", defender="marburg",
                                winner="fabian"), "p3_war"),
        Draft(ev.ProvinceStatusChanged(province="marburg", change="occupied", by="fabian", owner="marburg"),
              "p3_war"),
        Draft(ev.CampaignReturned(campaign="5.fabian.S1", faction="fabian"), "p3_war"),
        Draft(ev.TroopsHired(faction="marburg", units=3, cost=3), "p5_hiring", actor="marburg", visibility=M),
        Draft(ev.HeirDesignated(faction="fabian", character="cesare"), "p5_hiring", actor="fabian",
              visibility=F),
        Draft(ev.UpkeepFlagged(faction="marburg", kind="low_resource", detail="power 1"), "upkeep", visibility="gm"),
        Draft(ev.FactionEliminated(faction="marburg", reason="no provinces"), "upkeep"),
        Draft(ev.TurnClosed(turn=1), "upkeep"),
        Draft(ev.FinalTallyRecorded(scores={"fabian": {"total": 30}}, winner="fabian"), "final_tally"),
        Draft(ev.GameEnded(winner="fabian", reason="final tally"), "final_tally"),
    ]
    return [Draft(d.payload, phase=d.phase, actor=d.actor, visibility=d.visibility) for d in out]


def _setup_plan() -> dict[str, Any]:
    return {"turn": 0, "seed": "signoria-sample", "steps": {"setup": {
        "choices": {"leader_traits": {"fabian": ["general", "intriguer"], "marburg": ["steward", "intriguer"]},
                    "statesmen": {"fabian": [{"name": "Cesare", "heir": True}, {"name": "Orsino"}],
                                  "marburg": [{"name": "Lorenzo"}, {"name": "Bianca"}]}},
        "rolls": {"trait.cesare.1": [1], "trait.orsino.1": [3], "trait.lorenzo.1": [2],
                  "trait.bianca.1": [1]}}}}


def sample_plans() -> list[dict[str, Any]]:
    """Setup and two turns from the default options (fabian, marburg, both neutrals)."""
    t1 = {"turn": 1, "seed": "signoria-sample-1", "steps": {
        "turn_open": {"choices": {
            "global_event": {"key": "calm", "title": "A calm summer"},
            "dilemmas": [{"faction": "marburg", "id": "festival", "text": "The guilds ask for a festival",
                          "options": [{"id": "fund", "text": "fund it",
                                       "effects": [{"kind": "resource", "faction": "marburg", "resource": "wealth",
                                                    "delta": -1},
                                                   {"kind": "resource", "faction": "marburg", "resource": "piety",
                                                    "delta": 1}]}]}],
            "candidates": [{"faction": "marburg", "name": "Giacomo"}]}},
        "command_fabian": {"choices": {"stake": "high", "pay": ["wealth"]}, "rolls": {"cmd.1": [3, 4],
                                                                                   "cmd.2": [6, 4]}},
        "command_marburg": {"choices": {"stake": "low"}, "rolls": {"cmd.1": [5, 3]}},
        "orders_fabian": {"choices": {"actor": "fabian", "orders": [
            {"id": "S1", "action": "scouts", "slots": ["special"], "stake": "high", "target": "marburg",
             "leader": "fabian.leader"},
            {"id": "S2", "action": "passage", "slots": ["special"], "stake": "low", "target": "gusso",
             "leader": "orsino"},
            {"id": "O1", "action": "intrigue_self", "slots": ["ordinary"], "stake": "low"},
            {"id": "O2", "action": "hire_troops", "slots": ["ordinary"], "params": {"units": 1}}]}},
        "orders_marburg": {"choices": {"actor": "marburg", "orders": [
            {"id": "S1", "action": "trade", "slots": ["special"], "stake": "low", "target": "felmonte",
             "leader": "bianca"},
            {"id": "O1", "action": "dilemma", "slots": ["ordinary"], "target": "festival",
             "params": {"option": "fund"}},
            {"id": "O2", "action": "hire_statesman", "slots": ["ordinary"], "target": "t1.c1"}],
            "dilemmas": {"festival": "fund"}}},
        "p1_internal": {"rolls": {"fabian.O1.1": [3, 3]}},
        "p2_espionage": {"rolls": {"fabian.S1.1": [4, 3], "fabian.S1.2": [6, 2]}},
        "p4_diplomacy": {"rolls": {"marburg.S1.1": [4, 2], "fabian.S2.1": [5, 1]}},
    }}
    t2 = {"turn": 2, "seed": "signoria-sample-2", "steps": {
        "turn_open": {"choices": {"global_event": {"key": "rain", "title": "Summer rains"}}},
        "command_fabian": {"choices": {"stake": "low"}, "rolls": {"cmd.1": [4, 4]}},
        "command_marburg": {"choices": {"stake": "low"}, "rolls": {"cmd.1": [2, 1]}},
        "orders_fabian": {"choices": {"actor": "fabian", "orders": [
            {"id": "S1", "action": "war", "slots": ["special"], "target": "marburg",
             "params": {"units": 9, "characters": ["orsino"], "commander": "orsino", "tactic": "breakthrough",
                        "if_defence": "siege"}},
            {"id": "O1", "action": "improve_relations", "slots": ["ordinary"], "stake": "low", "target": "gusso"}]}},
        "orders_marburg": {"choices": {"actor": "marburg", "orders": [
            {"id": "O1", "action": "hire_troops", "slots": ["ordinary"], "params": {"units": 2}}],
            "standing": {"response": {"response": "battle", "tactic": "hold", "characters": "all"}}}},
        "p4_diplomacy": {"rolls": {"fabian.O1.1": [2, 2]}},
    }}
    return [_setup_plan(), t1, t2]
