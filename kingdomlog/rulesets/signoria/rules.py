"""Signoria rule kernels: plain numbers in, numbers out (§3, §6.3, §7.3).

>>> command_slots("high", True), command_slots("low", False)
((2, 2), (0, 3))
>>> slot_rerolls(special=1, ordinary=0), slot_rerolls(special=2, ordinary=0), slot_rerolls(special=1, ordinary=1)
(1, 3, 2)
>>> bribery_band(total=6, threshold=8), bribery_band(total=4, threshold=8), bribery_band(total=9, threshold=8)
('light_failure', 'full_failure', 'success')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, get_args

from kingdomlog.dice.checks import two_d6_band

STAKE_THRESHOLD = {"low": 5, "high": 8}
LEADER_KILL_THRESHOLD = 10

Action = Literal[
    "dilemma", "liberties", "intrigue_self", "donation",
    "scouts", "spy", "bribery", "felmonte_offer", "assassination", "intrigue_foreign",
    "war", "storm", "sally",
    "pact", "improve_relations", "turn_against", "passage", "trade", "military_aid", "military_alliance",
    "legitimacy", "player_treaty",
    "hire_troops", "hire_statesman", "designate_heir", "dismiss",
    "support",
]
"""The actions an order may take (§4.1)."""

PHASE_OF_ACTION: dict[str, str] = {
    "dilemma": "p1_internal", "liberties": "p1_internal", "intrigue_self": "p1_internal", "donation": "p1_internal",
    "scouts": "p2_espionage", "spy": "p2_espionage", "bribery": "p2_espionage", "felmonte_offer": "p2_espionage",
    "assassination": "p2_espionage", "intrigue_foreign": "p2_espionage",
    "war": "p3_war", "storm": "p3_war", "sally": "p3_war",
    "pact": "p4_diplomacy", "improve_relations": "p4_diplomacy", "turn_against": "p4_diplomacy",
    "passage": "p4_diplomacy", "trade": "p4_diplomacy", "military_aid": "p4_diplomacy",
    "military_alliance": "p4_diplomacy", "legitimacy": "p4_diplomacy", "player_treaty": "p4_diplomacy",
    "hire_troops": "p5_hiring", "hire_statesman": "p5_hiring", "designate_heir": "p5_hiring", "dismiss": "p5_hiring",
    "support": "",
}
"""The resolution phase of each action (§4.3); ``support`` is resolved with the order it supports."""
ACTIONS: tuple[str, ...] = get_args(Action)
assert tuple(PHASE_OF_ACTION) == ACTIONS
FREE_ACTIONS = ("designate_heir", "dismiss")
SPY_ACTIONS = ("intrigue_foreign", "bribery", "assassination", "scouts")
NEUTRAL_GOALS = ("pact", "improve_relations", "turn_against", "passage", "trade", "military_aid", "military_alliance",
                 "legitimacy")
MIN_STAKE = {"pact": "low", "passage": "low", "trade": "low", "military_aid": "high", "military_alliance": "high",
             "legitimacy": "high"}
TREATY_KIND = {"pact": "non_aggression", "passage": "right_of_passage", "trade": "trade",
               "military_aid": "military_aid", "military_alliance": "military_alliance"}
COUNTED_TREATIES = ("non_aggression", "right_of_passage", "trade", "military_aid")
ELEMENTARY_ONLY = ("hire_troops", "hire_statesman", "donation", "felmonte_offer", "player_treaty", "dilemma", "support",
                   "designate_heir", "dismiss")
STAKE_RANK = {"elementary": 0, "low": 1, "high": 2}
TACTICS = ("breakthrough", "encirclement", "ambush", "hold", "counterattack")


def command_slots(stake: str, success: bool) -> tuple[int, int]:
    """(special, ordinary) slots from the command roll (§3.1)."""
    if stake == "low":
        return (1, 2) if success else (0, 3)
    return (2, 2) if success else (0, 2)


def slot_rerolls(*, special: int, ordinary: int) -> int:
    """Rerolls from slots committed to one action: 2s + o - 1 (§3.4)."""
    if special + ordinary < 1:
        return 0
    return 2 * special + ordinary - 1


def character_rerolls(on_profile: bool) -> int:
    """A leading statesman or leader: +2 on-profile, +1 off-profile (§3.4)."""
    return 2 if on_profile else 1


def clamp(value: int, lo: int, hi: int) -> int:
    """Clamp ``value`` into ``lo..hi`` (``threshold_clamp``, §3.3)."""
    return max(lo, min(hi, value))


def roll_until(threshold: int, allowance: int, rolls: Sequence[tuple[int, int]], modifier: int = 0) -> tuple[bool, int]:
    """Whether the last of ``rolls`` succeeds and how many rerolls were used (§3.5).

    ``rolls`` must be exactly the rolls the automatic procedure makes: stop at the first
    success or when the allowance is spent.

    >>> roll_until(8, 3, [(4, 3), (6, 2)])
    (True, 1)
    """
    if not rolls:
        raise ValueError("no roll")
    for i, (a, b) in enumerate(rolls):
        if a + b + modifier >= threshold:
            if i != len(rolls) - 1:
                raise ValueError("rolls continue after a success")
            return True, i
    if len(rolls) != allowance + 1:
        raise ValueError("failed rolls must use every reroll")
    return False, allowance


def bribery_band(total: int, threshold: int) -> str:
    """Success at T+, light failure from T-3 to T-1, full failure below (§6.3)."""
    return two_d6_band(total, [(None, threshold - 4, "full_failure"), (threshold - 3, threshold - 1, "light_failure"),
                               (threshold, None, "success")])


def neutral_threshold(stake: str, standing: int, penalties: int = 0, lo: int = 2, hi: int = 12) -> int:
    """Diplomacy threshold with a neutral: stake threshold - standing + penalties, clamped (§7.3).

    >>> neutral_threshold("high", 1), neutral_threshold("low", -10)
    (7, 12)
    """
    return clamp(STAKE_THRESHOLD[stake] - standing + penalties, lo, hi)


def aid_size(neutral_army: int) -> int:
    """Military aid size: ceil(Army / 2) (§7.2 ``aid_size``).

    >>> aid_size(5), aid_size(4)
    (3, 2)
    """
    return -(-neutral_army // 2)


def final_score(power: int, piety: int, wealth: int, army: int, provinces: int, letters: int,
                legitimacy_points: int = 5) -> int:
    """G-40: P + Pi + W + A + 3 x provinces + legitimacy_points x letters.

    >>> final_score(7, 3, 3, 6, 2, 1)
    30
    """
    return power + piety + wealth + army + 3 * provinces + legitimacy_points * letters
