"""Sample events (one of every type) and sample plans (founding + turns) for the conformance suite."""

from __future__ import annotations

from typing import Any

from kingdomlog.core.events import Draft
from kingdomlog.core.foreign import UnmappedField
from kingdomlog.rulesets.pf2e import events as E


def sample_events() -> list[Draft]:
    """At least one valid payload of every pf2e event type."""
    hx = E.HexIn(id="H1", terrain="forest", features=["resource"], resource="lumber", q=1, r=0)
    t = E.TermOut(label="economy modifier", value=1, kind="ability")
    payloads = [
        E.KingdomFounded(name="Sample", charter="open", heartland="forest-or-swamp", government="yeomanry",
                         boosts=["heartland:culture"], scores={"culture": 14, "economy": 12, "loyalty": 14,
                                                               "stability": 14},
                         skills={"agriculture": "trained"}, feats=["muddle-through"],
                         leaders={"ruler": E.LeaderIn(holder="Aldra", invested=True)},
                         hexes=[E.HexIn(id="H0", q=0, r=0)], settlement_id="oakhold", settlement_name="Oakhold",
                         settlement_hex="H0", structures=["houses"]),
        E.TurnStarted(turn=1, party_level=1, fame_before=0, fame_gained=1, fame_after=1),
        E.ConsumptionPaid(consumption=1, terms=[t], food=1),
        E.LeaderChanged(role="magister", holder="Ezra", kind="pc"),
        E.LeaderDowntime(role="warden", spent_week=False, choice="vacancy_penalty"),
        E.CheckResolved(check_id="1:x:check", activity="collect-taxes", category="commerce", skill="trade",
                        ability="economy", dc=14, dc_terms=[E.TermOut(label="level 1", value=14, kind="base")], die=12,
                        modifier=4, terms=[t, E.TermOut(label="trade trained", value=3, kind="proficiency")], total=16,
                        base_degree="success", degree="success"),
        E.FlatCheckResolved(purpose="unrest_reduction", dc=11, die=12, success=True),
        E.ResourceDiceRolled(dice=5, die=4, faces=[4, 4, 3, 4, 4], total=19, rp_after=19),
        E.RPChanged(delta=-1, cause="claim-hex"),
        E.CommodityChanged(commodity="food", delta=1, cause="harvest-crops"),
        E.UnrestChanged(delta=1, cause="overcrowded"),
        E.RuinChanged(ruin="crime", delta=1, cause="collect-taxes"),
        E.RuinPenaltyChanged(ruin="crime", delta=-1, cause="repair-reputation"),
        E.FameChanged(delta=1, reason="critical_success"),
        E.FameSpent(kind="reroll", points=1),
        E.ModifierAdded(id="m1", source="collect-taxes", value=1, selector="ability:economy"),
        E.PendingAdded(kind="bonus_dice", amount=2, cause="trade-commodities"),
        E.CooldownSet(key="repair-reputation:crime", blocked_through_turn=3),
        E.HexClaimed(hex=hx),
        E.HexLost(hex_id="H1"),
        E.HexPlaced(hex_id="H1", q=1, r=0),
        E.WorkSiteEstablished(hex_id="H1", commodity="lumber"),
        E.FarmlandEstablished(hex_ids=["H0"], settlement="oakhold"),
        E.RoadsBuilt(hex_ids=["H0"]),
        E.SettlementFounded(id="s2", name="Tatzlford", hex_id="H2"),
        E.StructureBuilt(settlement="oakhold", structure="granary", block=0, lots=[1], storage={"food": 1}),
        E.StructureNotBuilt(settlement="oakhold", structure="granary", block=0, lots=[1], rubble=True),
        E.LotsCleared(settlement="oakhold", block=0, lots=[1]),
        E.RandomEventChecked(dc=16, die=17, occurred=True, new_dc=16),
        E.KingdomEventOccurred(name="good-weather", modifier=1),
        E.KingdomEventResolved(name="good-weather", degree="success"),
        E.XPAwarded(amount=30, source="random_event"),
        E.XPApplied(amount=10),
        E.MilestoneAchieved(milestone="first-village", xp=40),
        E.RPConverted(rp=1, xp=1, discarded=0),
        E.LeveledUp(level_from=1, level_to=2, features=["Kingdom Feat"], feat="civil-service"),
        E.RelationsChanged(group="brevoy", kind="diplomatic_relations"),
        E.WarStatusChanged(at_war=False),
        E.ArmyChanged(army="militia", consumption=1),
        E.TreasuryDebtChanged(outstanding=False),
        E.CropFailureWatch(hex_id="H0", turns=2),
        E.ExtraActivityGranted(cause="claim-hex"),
        E.FeatureUsed(hex_id="H0", feature="ruins"),
        E.GainIgnored(kind="unrest", amount=1, cause="collect-taxes"),
        E.ActivityWithoutCheck(activity="disband", category="army"),
        E.InfrastructureBuilt(settlement="oakhold", structure="wall-wooden", placement="border", border="north"),
        E.ActivityUnlocked(activity="cleanse-item"),
        E.ModifierRemoved(id="t1.x", cause="event ended"),
        E.StructureDamaged(settlement="oakhold", structure="houses", block=0),
        E.StructureRepaired(settlement="oakhold", structure="houses", block=0),
        E.LotsRubbled(settlement="oakhold", block=0, lots=[1], cause="local-disaster"),
        E.RuinThresholdChanged(ruin="decay", delta=2, threshold_after=12, cause="muddle-through"),
        E.KingdomImported(source="pf2e-kingmaker-tools", source_title="pf2e-kingmaker-tools kingdom sheet",
                          file="kingdom.json", kingdom={"name": "Imported", "level": 3, "xp": 120, "founded": True},
                          unmapped=[UnmappedField(field="kingdom-sheet.notes.gm", value="secret", why="sample")]),
        E.DegreeChanged(activity="claim-hex", degree_from="critical_failure", degree_to="failure",
                        cause="feat Pull Together"),
        E.FlagSet(flag="pull-together", cause="feat Pull Together"),
        E.CounterSet(name="pull-together", value=16),
        E.GMRuling(source="celebrate-holiday", note="the GM rules the festival's riders"),
        E.FeatChoiceMade(feat="civil-service", choice=["warden"]),
        E.Named(what="leader", id="ruler", name="Kesten Garess"),
        E.BoonGained(boon=E.BoonIn(id="t1.b", source="creative-solution", kind="reroll", value=2, xp=10)),
        E.BoonLapsed(id="t1.b", xp=10),
        E.HexChanged(hex_id="H0", fortified=True, cause="fortify-hex"),
        E.CapitalMoved(settlement="oakhold"),
        E.EventScheduled(id="t1.w", event="squatters", dc=0, turn=2, cause="abandon-hex"),
        E.EventWatchCleared(id="t1.w"),
        E.ArmyRecruited(army=E.ArmyIn(id="militia", name="Militia", hp=4, hp_max=4, rout_threshold=2, ac=16,
                                      maneuver=4, morale=4, scouting=4, attack=6, consumption=1)),
        E.ArmyUpdated(army="militia", set={"hp": 3}, conditions={"weary": 1}, cause="battle"),
        E.WarDeclared(enemy="pitax"),
        E.BattleStarted(id="b1", hex="H0", kingdom=["militia"], enemy=["raiders"]),
        E.WarActionTaken(battle="b1", round=1, army="militia", action="battle", target="raiders", die=12,
                         modifier=6, dc=16, total=18, degree="success"),
        E.BattleEnded(id="b1", winner="kingdom", rounds=1),
        E.WarEnded(enemy="pitax"),
        E.ArmyRemoved(army="militia", cause="disbanded"),
        E.TurnEnded(turn=1),
    ]
    return [Draft(payload=p, phase="sample") for p in payloads]


FOUNDING_PLAN: dict[str, Any] = {
    "turn": 0,
    "seed": "stolen-lands-0",
    "steps": {
        "founding": {
            "choices": {
                "name": "Sample March",
                "charter": "open", "heartland": "forest-or-swamp", "government": "yeomanry",
                "charter_free_boost": "stability", "government_free_boost": "stability",
                "free_boosts": ["loyalty", "economy"],
                "trained_skills": ["arts", "intrigue", "politics", "trade"],
                "leaders": {
                    "ruler": {"holder": "Aldra", "kind": "pc", "invested": True},
                    "counselor": {"holder": "Borin", "kind": "pc", "invested": True},
                    "treasurer": {"holder": "Cirra", "kind": "pc", "invested": True},
                    "general": {"holder": "Dace", "kind": "pc", "invested": True},
                    "emissary": {"holder": "Elsa", "kind": "npc"},
                    "viceroy": {"holder": "Fenn", "kind": "npc"},
                    "warden": {"holder": "Gale", "kind": "npc"},
                },
                "capital": {"id": "oakhold", "name": "Oakhold", "hex": "H0", "terrain": "plains"},
                "hexes": [{"id": "H0", "terrain": "plains", "q": 0, "r": 0}],
                "structures": ["houses"],
                "commodities": {"food": 4, "lumber": 2},
            }
        }
    },
}


def sample_plans() -> list[dict[str, Any]]:
    """Founding, then two turns: the first with defaults, the second with activities."""
    turn1: dict[str, Any] = {"turn": 1, "seed": "sample-1", "steps": {}}
    turn2: dict[str, Any] = {
        "turn": 2,
        "seed": "sample-2",
        "steps": {
            "activity.leadership": {"choices": {"activities": [
                {"activity": "quell-unrest", "role": "ruler", "skill": "politics"},
                {"activity": "craft-luxuries", "role": "general"},
            ]}},
            "activity.region": {"choices": {"activities": [
                {"activity": "claim-hex", "skill": "wilderness",
                 "hex": {"id": "H1", "terrain": "forest", "features": ["resource"], "resource": "lumber", "q": 1,
                         "r": 0}},
                {"activity": "harvest-crops"},
            ]}},
            "event.resolve": {"choices": {"event": "good-weather"}},
        },
    }
    return [FOUNDING_PLAN, turn1, turn2]
