"""Rule kernels of the pf2e-kingmaker ruleset: functions of plain numbers, each citing its spec section.

Nothing here reads a state, a table or the log. ``state.py`` (derived numbers), ``decide.py`` and
the activity code (what a step records) and ``audit.py`` (what today's rules say about a recorded
event) call these with numbers, so each rule is written once. Section numbers (§) are those of
``rulesets/pf2e-kingmaker.md``.

>>> check_amount("2q"), check_amount("-1d6"), check_amount("rd")
('2q', '-1d6', 'rd')
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from kingdomlog.core.errors import InputError
from kingdomlog.dice.checks import CheckResult, Degree, flat_check, pf2e_check

# ------------------------------------------------------------------ amounts in effect data

_AMOUNT = re.compile(r"^(?P<sign>-?)(?:(?P<dice>\d+d\d+(?:[+-]\d+)?)|(?P<k>\d*)(?P<sym>rd|q|m|terrain|roads|farmland"
                     r"|half|purchase|settlements|gifts|hexes|last))$")


def check_amount(text: str) -> str:
    """Validate an amount expression of effect data (``3``, ``"-1d4"``, ``"rd"``, ``"2q"``); ``InputError``."""
    if not _AMOUNT.match(text.strip()):
        raise InputError(f"amount {text!r} is not an integer, dice (1d4, 1d4+1), or k×symbol (rd, q, m, terrain,"
                         " roads, farmland, half, purchase, settlements, gifts, hexes, last)")
    return text


def parse_amount(text: str) -> tuple[int, str, str]:
    """``(sign, dice_or_empty, symbol_with_multiplier)``.

    >>> parse_amount("-2rd"), parse_amount("1d4"), parse_amount("q")
    ((-1, '', '2rd'), (1, '1d4', ''), (1, '', '1q'))
    """
    m = _AMOUNT.match(text.strip())
    if not m:
        raise InputError(f"bad amount {text!r}")
    sign = -1 if m["sign"] else 1
    if m["dice"]:
        return sign, m["dice"], ""
    return sign, "", (m["k"] or "1") + m["sym"]


# ------------------------------------------------------------------ abilities and checks


def ability_mod(score: int) -> int:
    """floor((score - 10) / 2) (§2.2).

    >>> ability_mod(14), ability_mod(12), ability_mod(9)
    (2, 1, -1)
    """
    return (score - 10) // 2


def boosted(score: int) -> int:
    """An ability boost: +2, or +1 from 18 (§2.2).

    >>> boosted(10), boosted(18)
    (12, 19)
    """
    return score + (1 if score >= 18 else 2)


def proficiency_bonus(trained_add: int | None, level: int) -> int:
    """0 untrained (``trained_add`` None); else level + 2/4/6/8 by rank (§5.7).

    >>> proficiency_bonus(2, 1), proficiency_bonus(None, 5), proficiency_bonus(6, 3)
    (3, 0, 9)
    """
    return 0 if trained_add is None else level + trained_add


def kingdom_check(die: int, modifier: int, dc: int, *, anarchy: bool, worsened: int = 0) -> tuple[CheckResult, Degree]:
    """A kingdom skill check (§3.0.1): the d20 result, then one degree worse in anarchy (§3.1 U2.5) and
    ``worsened`` more where a rule says so (Tap Treasury with a debt outstanding, §4.3).

    >>> res, deg = kingdom_check(12, 4, 14, anarchy=True)
    >>> res.base_degree.label, deg.label
    ('success', 'failure')
    """
    res = pf2e_check(die, modifier, dc)
    degree = res.degree.shift(-1 if anarchy else 0)
    if worsened:
        degree = degree.shift(-worsened)
    return res, degree


def flat_succeeds(die: int, dc: int) -> bool:
    """A flat check (§3.0.2): the d20 alone against the DC."""
    return flat_check(die, dc)


def unrest_penalty(unrest: int, bands: Sequence[tuple[int, int]]) -> int:
    """Status penalty for ``unrest`` (§2.5): the penalty of the last band (min Unrest, penalty) reached.

    >>> bands = [(1, -1), (5, -2), (10, -3), (15, -4)]
    >>> [unrest_penalty(u, bands) for u in (0, 1, 4, 5, 9, 10, 14, 15, 40)]
    [0, -1, -1, -2, -2, -3, -3, -4, -4]
    """
    out = 0
    for least, penalty in bands:
        if unrest >= least:
            out = penalty
    return out


def resource_dice_count(level: int, bonus: int, penalty: int) -> int:
    """Resource Dice = max(0, level + 4 + bonus - penalty) (§2.11.3)."""
    return max(0, level + 4 + bonus - penalty)


def ruin_overflows(points: int, threshold: int, *, at: str = "exceeds") -> bool:
    """Whether ``points`` overflow a Ruin's threshold (§3.0.5: "while value > threshold"; option
    ``ruin_overflow_at = "reaches"``: at the threshold already).

    >>> ruin_overflows(10, 10), ruin_overflows(11, 10), ruin_overflows(10, 10, at="reaches")
    (False, True, True)
    """
    return points >= threshold if at == "reaches" else points > threshold


def ruin_after(points: int, threshold: int, penalty: int, delta: int, *, mode: str, penalty_cap: int,
               averted: bool, at: str = "exceeds") -> tuple[int, int]:
    """Points and penalty of a Ruin after ``delta`` points (§3.0.5 overflow, §3.0.6 reduction, §5.17 options).

    An increase past the threshold subtracts the threshold (or resets to 0) and raises the penalty once per
    overflow; Fame spent averts the first raise; ``penalty_cap`` (0 = none) bounds the penalty. ``at``: the
    overflow happens when points exceed the threshold (``exceeds``, the default) or reach it (``reaches``).
    The flat check to lower a penalty is decided apart.

    >>> ruin_after(8, 10, 0, 25, mode="subtract_threshold", penalty_cap=0, averted=False)
    (3, 3)
    >>> ruin_after(8, 10, 0, 25, mode="reset_to_zero", penalty_cap=0, averted=False)
    (0, 1)
    >>> ruin_after(2, 10, 1, -5, mode="subtract_threshold", penalty_cap=0, averted=False)
    (0, 1)
    >>> ruin_after(9, 10, 0, 1, mode="subtract_threshold", penalty_cap=0, averted=False, at="reaches")
    (0, 1)

    The overflows are counted, not looped over: a Ruin of a million points is as quick as one of ten.

    >>> ruin_after(0, 10, 0, 10**6, mode="subtract_threshold", penalty_cap=0, averted=True)
    (10, 99998)
    """
    points += delta
    if delta < 0:
        return max(0, points), penalty
    overflows = 0
    if threshold > 0 and ruin_overflows(points, threshold, at=at):
        if mode == "reset_to_zero":
            overflows, points = 1, 0
        else:  # "while over: points -= threshold", as many times as it takes to come down to (or under) it
            over = points - threshold
            overflows = over // threshold + 1 if at == "reaches" else -(-over // threshold)
            points -= overflows * threshold
    penalty += overflows - (1 if averted and overflows else 0)
    if penalty_cap:
        penalty = min(penalty_cap, penalty)
    return points, penalty


# ------------------------------------------------------------------ turn figures


def fame_cap(level: int) -> int:
    """Most Fame points: 3, or 4 from level 20 (Envy of the World, §2.1)."""
    return 4 if level >= 20 else 3


def fame_at_turn_start(fame: int, gain: int, level: int) -> int:
    """U0: Fame + 1 (+ pending Fame), up to the cap (§3.1 U0)."""
    return min(fame_cap(level), fame + gain)


def next_event_dc(dc: int, occurred: bool, step: int) -> int:
    """E1: back to 16 after an event, else ``step`` lower, at least 1 (§3.4 E1)."""
    return 16 if occurred else max(1, dc - step)


def consumption_rp(remainder: int) -> int:
    """U4: each point of Consumption not paid in Food costs 5 RP (§3.1 U4.4)."""
    return 5 * remainder


def commodity_gain(stock: int, amount: int, cap: int) -> int:
    """How much of a gain of ``amount`` is lost to the storage cap (§2.6).

    >>> commodity_gain(3, 4, 5), commodity_gain(1, 2, 5), commodity_gain(6, 1, 5)
    (2, 0, 2)
    """
    return max(0, stock + amount - cap) if amount > 0 else 0


def rp_to_xp(rp: int, limit: int) -> tuple[int, int]:
    """E3: unspent RP become XP up to ``limit``; the rest is discarded (§3.4 E3)."""
    return min(rp, limit), max(0, rp - limit)


VK_XP_PER_HEX: tuple[tuple[int, int], ...] = ((10, 100), (25, 50), (50, 25), (100, 10))
"""Vance & Kerenshara homebrew: XP for a claimed hex by the kingdom's size before the claim (size < 10: 100,
< 25: 50, < 50: 25, < 100: 10, else 5)."""


def xp_for_hex(options: Mapping[str, Any], size: int) -> int:
    """XP for claiming a hex (§5.13): option ``xp_per_hex`` (10), or by size with ``xp_per_hex_mode = "vk"``.

    >>> xp_for_hex({}, 3), xp_for_hex({"xp_per_hex_mode": "vk"}, 9), xp_for_hex({"xp_per_hex_mode": "vk"}, 10)
    (10, 100, 50)
    >>> xp_for_hex({"xp_per_hex_mode": "vk"}, 99), xp_for_hex({"xp_per_hex_mode": "vk"}, 100)
    (10, 5)
    """
    if options.get("xp_per_hex_mode", "published") == "vk":
        return next((xp for below, xp in VK_XP_PER_HEX if size < below), 5)
    return int(options.get("xp_per_hex", 10))


VK_RP_TO_XP: tuple[tuple[int, int], ...] = ((5, 10), (9, 7), (13, 5), (17, 2))
"""Vance & Kerenshara homebrew: XP per unspent RP by kingdom level (below 5: 10, below 9: 7, below 13: 5,
below 17: 2, else 1)."""


def rp_to_xp_rate(level: int, mode: str = "published") -> int:
    """XP per unspent RP (§3.4 E3: 1; option ``rp_to_xp_mode = "vk"``: by level).

    >>> [rp_to_xp_rate(3)] + [rp_to_xp_rate(lv, "vk") for lv in (4, 5, 16, 17)]
    [1, 10, 7, 2, 1]
    """
    if mode != "vk":
        return 1
    return next((rate for below, rate in VK_RP_TO_XP if level < below), 1)


def rp_to_xp_at(rp: int, limit: int, rate: int) -> tuple[int, int]:
    """E3 at ``rate`` XP per RP: the XP gained (at most ``limit``, whole RP only) and the RP discarded.

    >>> rp_to_xp_at(17, 120, 1), rp_to_xp_at(17, 120, 10), rp_to_xp_at(5, 120, 7)
    ((17, 0), (120, 5), (35, 0))
    """
    used = min(rp, limit // rate) if rate else 0
    return used * rate, rp - used


def half_cost(n: int, *, round_up: bool) -> int:
    """Half a cost (building on Ruins, a critical success refund), rounded down or up (§4.9, §5.17).

    >>> half_cost(5, round_up=False), half_cost(5, round_up=True)
    (2, 3)
    """
    return (n + round_up) // 2


XP_PER_LEVEL = 1000
"""XP spent on a kingdom level (§3.4 E4)."""
