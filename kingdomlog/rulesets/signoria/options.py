"""Signoria's campaign options (§9 configuration keys, with the G-n defaults)."""

from __future__ import annotations

from typing import Any

from kingdomlog.core.ruleset import OptionSpec

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("players", "list", ["fabian", "marburg"], "Player factions, 2 to 5 (§1.2; G-41)."),
    OptionSpec("neutrals", "list", ["felmonte", "gusso"], "Neutral factions run by the GM (§1.2).",
               choices=("felmonte", "gusso")),
    OptionSpec("extra_factions", "table", {}, "Player factions beyond the two great houses: id -> {label, province,"
               " leader, borders: [province ids]} (G-41, G-6; the GM defines them)."),
    OptionSpec("initial_resources", "table", {}, "Override starting Power/Piety/Wealth/Army per faction id; key "
               "'_other' for extra factions (default 4/5/3/4) (§2.9 initial_resources). Campaign options are "
               "public: for secret starting values use the setup step's 'resources' choice."),
    OptionSpec("statesmen_per_faction", "int", 2, "Starting statesmen per player faction (§2.9, G-41).", minimum=0,
               maximum=20),
    OptionSpec("statesman_loyalty_default", "int", 2, "Loyalty of a statesman, used against bribes (§2.4, G-24)."),
    OptionSpec("command_reroll_limit", "int", -1, "Bought command rerolls per turn; -1 = no limit (§3.1).",
               minimum=-1),
    OptionSpec("max_slots_per_turn", "int", 7, "Slot count above which a warning is flagged (§3.2, G-31)."),
    OptionSpec("threshold_clamp_low", "int", 2, "Lowest action threshold after modifiers (§3.3)."),
    OptionSpec("threshold_clamp_high", "int", 12, "Highest action threshold after modifiers (§3.3)."),
    OptionSpec("leader_leads_actions", "bool", True, "The leader may lead actions like a statesman (§3.4, G-28)."),
    OptionSpec("character_one_activity_per_turn", "bool", True, "A character leads or accompanies one thing a turn"
               " (§3.7)."),
    OptionSpec("intrigue_success_piety_cost", "int", 0, "Piety lost on a successful own intrigue (G-1)."),
    OptionSpec("reveal_intrigue_author", "bool", False, "Tell the target who intrigued against it (§4.1 A2)."),
    OptionSpec("donation_wealth_per_piety", "int", 2, "Wealth per Piety in a pious donation (A5b).", minimum=1),
    OptionSpec("expense_support_max_rerolls", "int", 2, "Rerolls bought by wealth invested in support (A5c)."),
    OptionSpec("statesman_hire_cost", "int", 1, "Wealth to hire a statesman (§4.6, G-22)."),
    OptionSpec("statesman_cap_equals_power", "bool", True, "No more statesmen than Power (§0, §4.7)."),
    OptionSpec("scouting_notifies_target", "bool", False, "Tell the scouted faction (§6.1, G-43)."),
    OptionSpec("assassination_reveal_sender", "bool", False, "Tell the target who sent assassins (§6.5)."),
    OptionSpec("pact_aid_penalty", "int", 1, "Threshold penalty per pact on military aid against its holder (§7.2)."),
    OptionSpec("reveal_new_trade_holder", "bool", True, "Tell the outbid trade holder who replaced it (§7.2)."),
    OptionSpec("neutral_alliance_exclusive", "bool", True, "A neutral has one military alliance at a time (§7.2)."),
    OptionSpec("legitimacy_points", "int", 5, "Final-tally points per legitimacy letter (G-40)."),
    OptionSpec("luigi_min_price", "int", 3, "Lowest offer for which Luigi sells Felmonte (§7.7)."),
    OptionSpec("neutral_province_income", "int", 1, "Income of a captured neutral province (§2.2, G-38)."),
    OptionSpec("summer_wealth_bonus", "int", 1, "Multiplier of the summer +1 wealth (0 switches it off) (§4.5)."),
    OptionSpec("winter_attacker_threshold_mod", "int", 1, "Winter: attacker's battle thresholds +N (§5.14, G-7)."),
    OptionSpec("threshold_cap", "int", 6, "Highest battle threshold (§5.8)."),
    OptionSpec("max_rounds", "int", 3, "Rounds a battle can reach with Fight to the last! (§5.6)."),
    OptionSpec("explosions_chain", "bool", True, "Breakthrough: extra dice showing 6 explode again (G-12)."),
    OptionSpec("both_broken", "choice", "defender", "Who wins when both sides break (G-10).",
               choices=("defender", "attacker")),
    OptionSpec("leader_always_general", "bool", False, "Every leader may use the general's specials (G-16)."),
    OptionSpec("spy_exposed_on_defection", "bool", True, "A spy who defects in battle leaves the host (§5.7)."),
    OptionSpec("default_defender_response", "choice", "battle", "Response of a defender who gave none (G-34).",
               choices=("battle", "defence")),
    OptionSpec("plunder_transfers", "bool", True, "Plundered wealth goes to the occupier (§5.12)."),
    OptionSpec("low_resource_threshold", "int", 1, "A resource at or below this is flagged at upkeep (§4.8)."),
    OptionSpec("disloyalty_threshold", "int", 1, "Trait-trap flag when the trait's resource is at or below (§4.7)."),
    OptionSpec("reveal_orders_after_turn", "bool", False, "Publish every faction's orders when the turn closes"
               " (§11.3)."),
    OptionSpec("game_turns", "int", 12, "Turns in the game; the last is the final tally (§4.5).", minimum=2),
)


def option_defaults() -> dict[str, Any]:
    """Every option at its default."""
    return {o.name: o.default for o in OPTIONS}
