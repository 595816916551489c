"""``choices(state, step)``: every step's inputs for the turn sheet, with defaults that play a short turn.

Leaving every choice at its default plays a legal, minimal turn: taxes collected,
no optional activities, Consumption paid in Food first.
"""

from __future__ import annotations

import json

from kingdomlog.core.ruleset import Choice
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.state import KingdomState, activity_lock, consumption, in_anarchy

_ACT_HELP = ("list of {activity, role (leadership), skill, ... target fields}; see docs/pf2e-plans.md."
             " Add fame_reroll: true to spend 1 Fame on a re-roll (§3.0.8).")


def _acts(state: KingdomState, category: str) -> tuple[str, ...]:
    cat = T.catalog(state.homebrew)
    return tuple(sorted(a.name for a in cat.activities.values() if a.category == category
                        and not activity_lock(state, a)))


def choices_for(state: KingdomState, step: str) -> list[Choice]:
    """The inputs of ``step`` in ``state`` (kinds: select, multiselect, int, text, bool, json)."""
    skills = tuple(sorted(T.core().skills))
    ruins = T.RUINS
    if step == "founding":
        from kingdomlog.rulesets.pf2e.steps import default_founding

        d = default_founding()
        return [
            Choice("name", "Kingdom name", "text", default=d["name"]),
            Choice("charter", "Charter", "select", tuple(sorted(T.charters())), d["charter"]),
            Choice("heartland", "Heartland", "select", tuple(sorted(T.heartlands())), d["heartland"]),
            Choice("government", "Government", "select", tuple(sorted(T.governments())), d["government"]),
            Choice("charter_free_boost", "Charter free boost", "select", T.ABILITIES, d["charter_free_boost"]),
            Choice("government_free_boost", "Government free boost", "select", T.ABILITIES,
                   d["government_free_boost"]),
            Choice("free_boosts", "Final free boosts", "multiselect", T.ABILITIES, d["free_boosts"]),
            Choice("trained_skills", "Skills trained by leaders (up to 4)", "multiselect", skills,
                   d["trained_skills"]),
            Choice("leaders", "Leaders by role ({holder, kind pc|npc, invested})", "json", default=d["leaders"]),
            Choice("capital", "First settlement ({id, name, hex, terrain})", "json", default=d["capital"]),
            Choice("hexes", "Founding hexes ([{id, terrain, river, lake, features, resource}])", "json",
                   default=None),
            Choice("fame_type", "Fame or Infamy", "select", ("fame", "infamy"), "fame"),
            Choice("commodities", "Starting commodities", "json", default={}),
            Choice("starting_rp", "Starting RP (added at the first Resource Collection)", "int", default=0,
                   minimum=0),
            Choice("party_level", "Party level", "int", default=1, minimum=1, maximum=20),
            Choice("structures", "Structures standing in the capital (setup)", "multiselect",
                   tuple(sorted(T.catalog(state.homebrew).structures)), []),
            Choice("resume", "Import a running kingdom ({turn, xp, unrest, ruin_points, event_dc})", "json",
                   default={}),
        ]
    if step == "upkeep.leadership":
        return [
            Choice("party_level", "Party level (max kingdom level)", "int", default=state.max_level,
                   minimum=state.level, maximum=20),
            Choice("new_leadership", "New Leadership attempts ([{role, holder, kind, skill, invested}])", "json",
                   default=[]),
            Choice("downtime", "Leaders who did NOT spend a downtime week: {role: forfeit_activity|"
                   "vacancy_penalty}", "json", default={}),
            Choice("at_war", "The kingdom is at war (+1 Unrest at U2)", "bool", default=state.at_war),
            Choice("armies", "Armies and their Consumption ({army: n}, null removes)", "json", default={}),
            Choice("relations", "Trade agreements / diplomatic relations gained or lost ([{group, kind,"
                   " added}])", "json", default=[]),
            Choice("unlock_activities", "Activities the GM unlocks by story ([name, ...])", "json", default=[]),
        ]
    if step == "upkeep.unrest":
        return [
            Choice("ruin_split", "Split of the 1d10 Ruin points at Unrest 10+ ({ruin: n}, or one Ruin's name"
                   " for all)", "json", default={}),
            Choice("lost_hex", "Hex lost on a failed DC 11 flat check", "text", default=""),
            Choice("avert_anarchy_with_fame", "Spend all Fame to avert anarchy", "bool", default=False),
            Choice("avert_ruin_penalty_with_fame", "Spend all Fame to avert a Ruin penalty", "bool",
                   default=False),
        ]
    if step == "upkeep.resources":
        return []
    if step == "upkeep.consumption":
        need = int(consumption(state).total)
        return [
            Choice("food", f"Food to pay (Consumption {need})", "int",
                   default=min(need, state.commodities["food"]), minimum=0, maximum=need),
            Choice("remainder", "Pay the rest with RP (5 each) or 1d4 Unrest", "select", ("rp", "unrest"),
                   "rp"),
        ]
    if step == "commerce.taxes":
        return [
            Choice("mode", "Collect Taxes, a DC 11 flat check, or nothing", "select",
                   ("collect-taxes", "flat-check", "none"), "none" if in_anarchy(state) else "collect-taxes"),
            Choice("skill", "Skill", "select", ("trade",), "trade"),
            Choice("fame_reroll", "Re-roll with 1 Fame", "bool", default=False),
        ]
    if step == "commerce.expenses":
        return [Choice("activity", "Approve Expenses", "select", ("none", "improve-lifestyle", "tap-treasury"),
                       "none"),
                Choice("ruin", "Ruin if a critical failure adds one", "select", ruins, None)]
    if step == "commerce.trade":
        return [Choice("commodity", "Commodity to trade (empty: skip)", "select", ("", *T.COMMODITIES), ""),
                Choice("quantity", "Quantity (1-4)", "int", default=1, minimum=1, maximum=4),
                Choice("group", "Trading partner (diplomatic relations give +1)", "text", default="")]
    if step == "commerce.agreements":
        return [Choice("activity", "Manage Trade Agreements", "select", ("none", "manage-trade-agreements"), "none"),
                Choice("agreements", "Agreements managed", "int", default=len(state.trade_agreements), minimum=0),
                Choice("option", "Success reward: 0 dice, 1 commodities", "int", default=0, minimum=0, maximum=1),
                Choice("goods", "Commodities chosen ({commodity: n})", "json", default={})]
    if step.startswith("activity."):
        category = step.split(".")[1]
        return [Choice("activities", f"{category.title()} activities ({', '.join(_acts(state, category))})",
                       "json", default=[], help=_ACT_HELP),
                Choice("avert_ruin_penalty_with_fame", "Spend all Fame to avert a Ruin penalty", "bool",
                       default=False)]
    if step == "event.check":
        return []
    if step == "event.resolve":
        names = tuple(sorted(T.catalog(state.homebrew).events))
        return [
            Choice("event", "Kingdom event (if one occurred)", "select", ("", *names), ""),
            Choice("skill", "Skill for the event check", "select", ("", *skills), ""),
            Choice("gm_effects", "GM-ruled effects ([{kind, amount, target}])", "json", default=[]),
            Choice("continues", "The event continues next turn", "bool", default=False),
            Choice("unrest_per_turn", "Unrest per turn while it continues", "int", default=0),
            Choice("consumption_delta", "Consumption change while it continues", "int", default=0),
            Choice("end_events", "Ongoing events that end now", "multiselect",
                   tuple(e.name for e in state.ongoing_events), []),
        ]
    if step == "event.xp":
        return [Choice("gm_xp", "GM XP award", "int", default=0, minimum=0),
                Choice("gm_fame_next_turn", "GM Fame award (next turn)", "int", default=0, minimum=0)]
    if step == "event.level":
        return [
            Choice("ruin_resistance", "Ruin Resistance (levels 5, 8, 11, 14, 17, 20)", "select", ruins, None),
            Choice("skill_increase", "Skill increase", "select", skills, None),
            Choice("feat", "Kingdom feat", "select", tuple(sorted(T.catalog(state.homebrew).feats)), None),
            Choice("feat_skill", "Skill trained by Skill Training", "select", skills, None),
            Choice("boosts", "Ability boosts", "multiselect", T.ABILITIES, None),
            Choice("leader_checks", "Leaders shaking off a failed New Leadership ({role: loyalty skill})", "json",
                   default={}),
        ]
    return []


def describe(state: KingdomState) -> str:
    """Every step's choices as JSON (for docs and debugging)."""
    from kingdomlog.rulesets.pf2e.steps import STEP_IDS

    return json.dumps({s: [c.name for c in choices_for(state, s)] for s in ("founding", *STEP_IDS)}, indent=1)
