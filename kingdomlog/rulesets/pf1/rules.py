"""Rule kernels of PF1 kingdoms: pure functions of plain numbers, each citing its spec section.

Specs: ``pf1-kingmaker.md`` ("base §") and ``pf1-ultimate-campaign-optional.md`` ("opt §").
The worked examples of the specs are doctests here. The step procedures
(:mod:`~kingdomlog.rulesets.pf1.decide`, :mod:`~kingdomlog.rulesets.pf1.modules`) and the
audit call these; nothing here reads a state.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from kingdomlog.dice.checks import d20_check
from kingdomlog.rulesets.pf1.state import ATTITUDES

if TYPE_CHECKING:  # the payload classes are imported at the first event (ruleset.py): a warm `state` needs none
    from kingdomlog.rulesets.pf1.events import PathStep

# ------------------------------------------------------------------ kingdom checks


def kingdom_check(die: int, attribute_value: int, unrest: int, situational: int, dc: int) -> tuple[int, bool, int]:
    """(total, success, margin) of a kingdom check: d20 + attribute − Unrest + situational vs DC (base §2.5).

    A natural 20 succeeds and a natural 1 fails whatever the total.

    >>> kingdom_check(6, 9, 0, 0, 21), kingdom_check(20, 1, 3, 0, 22), kingdom_check(1, 40, 0, 0, 21)
    ((15, False, -6), (18, True, -4), (41, False, 20))
    """
    mod = attribute_value - unrest + situational
    return die + mod, d20_check(die, mod, dc), die + mod - dc


# ------------------------------------------------------------------ map and lots


def axial_neighbours(q: int, r: int) -> set[tuple[int, int]]:
    """The six axial neighbours of ``(q, r)`` (base §2.7: a hex touches six others).

    >>> sorted(axial_neighbours(0, 0))
    [(-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0)]
    """
    return {(q + 1, r), (q - 1, r), (q, r + 1), (q, r - 1), (q + 1, r - 1), (q - 1, r + 1)}


def lots_adjacent(i: int, j: int) -> bool:
    """Whether lots ``i`` and ``j`` of a 6×6 district share a side (base §2.8).

    >>> lots_adjacent(0, 1), lots_adjacent(0, 6), lots_adjacent(5, 6), lots_adjacent(0, 7)
    (True, True, False, False)
    """
    ri, ci, rj, cj = i // 6, i % 6, j // 6, j % 6
    return abs(ri - rj) + abs(ci - cj) == 1


def lot_shapes(n: int) -> list[tuple[int, ...]]:
    """Candidate lot sets in a 6×6 district for an ``n``-lot building (contiguous; 4 = a 2×2 block), base §2.8.

    >>> len(lot_shapes(1)), len(lot_shapes(2)), lot_shapes(4)[0]
    (36, 60, (0, 1, 6, 7))
    """
    out: list[tuple[int, ...]]
    if n == 1:
        return [(i,) for i in range(36)]
    if n == 2:
        out = [(i, i + 1) for i in range(36) if i % 6 < 5]
        out += [(i, i + 6) for i in range(30)]
        return out
    return [(i, i + 1, i + 6, i + 7) for i in range(30) if i % 6 < 5]


def valid_shape(lots: tuple[int, ...]) -> bool:
    """Whether ``lots`` is one of the shapes a building of that many lots may take (base §2.8)."""
    return tuple(sorted(lots)) in {tuple(sorted(x)) for x in lot_shapes(len(lots))}


# ------------------------------------------------------------------ alignment


def axes(al: str) -> tuple[int, int]:
    """(law-chaos, good-evil) indices of an alignment (opt §1.3).

    >>> axes("LG"), axes("N"), axes("CE")
    ((0, 0), (1, 1), (2, 2))
    """
    if al == "N":
        return (1, 1)
    return ({"L": 0, "N": 1, "C": 2}[al[0]], {"G": 0, "N": 1, "E": 2}[al[1]])


def alignment_components(al: str) -> list[str]:
    """Components, true Neutral counting Neutral twice (base §2.6).

    >>> alignment_components("LG"), alignment_components("N")
    (['Lawful', 'Good'], ['Neutral', 'Neutral'])
    """
    if al == "N":
        return ["Neutral", "Neutral"]
    law = {"L": "Lawful", "N": "Neutral", "C": "Chaotic"}[al[0]]
    moral = {"G": "Good", "N": "Neutral", "E": "Evil"}[al[1]]
    return [law, moral]


def shift_attitude(a: str, steps: int) -> str:
    """``a`` moved ``steps`` along hostile … helpful, clamped (opt §2.5.3).

    >>> shift_attitude("indifferent", 1), shift_attitude("hostile", -1), shift_attitude("friendly", 5)
    ('friendly', 'hostile', 'helpful')
    """
    return ATTITUDES[max(0, min(4, ATTITUDES.index(a) + steps))]


# ------------------------------------------------------------------ diplomacy (opt §2.5)


def alignment_difference(a: str, b: str) -> int:
    """ADM: per axis +0 / +5 / +15 for 0 / 1 / 2 steps (opt §2.5.3).

    >>> alignment_difference("LG", "CE"), alignment_difference("LG", "NG"), alignment_difference("N", "CE")
    (30, 5, 10)
    """
    m = {0: 0, 1: 5, 2: 15}
    x, y = axes(a), axes(b)
    return m[abs(x[0] - y[0])] + m[abs(x[1] - y[1])]


def diplomatic_dc(*, infamy: int, size_target: int, size_you: int, align_you: str, align_target: str, rel: int,
                  attitude: str, fame: int, bribe: int, step: int = 5, threat: bool = False) -> dict[str, int]:
    """The Diplomatic edict DC term by term (opt §2.5.3); ``threat`` drops Fame and Infamy (§2.5.5).

    Worked example (a): Aldmere (Size 23, LG, Fame 3, Infamy 1) to Varn (Size 42, NG, Indifferent), 2 BP gifts.

    >>> t = diplomatic_dc(infamy=1, size_target=42, size_you=23, align_you="LG", align_target="NG", rel=0,
    ...                   attitude="indifferent", fame=3, bribe=2)
    >>> t["dc"], t["ssm_target"], t["ssm_you"], t["adm"], t["att"]
    (33, 8, 4, 5, 10)
    """
    terms = {
        "base": 10,
        "infamy": 0 if threat else infamy,
        "ssm_target": size_target // 5,
        "ssm_you": size_you // 5,
        "adm": alignment_difference(align_you, align_target),
        "rel": rel,
        "att": step * (4 - ATTITUDES.index(attitude)),
        "fame": 0 if threat else -fame,
        "bribe": -bribe,
    }
    terms["dc"] = sum(terms.values())
    return terms


def treaty_bonus(x_partner: int, *, balanced: bool, we_advantaged: bool) -> int:
    """Our bonus from a treaty/alliance (opt §2.5.7): 10 % balanced, 15 % / 5 % unbalanced, ≥ 0.

    Example (c): Varn's Economy 60, Aldmere advantaged. NPC estimate 51 gives 7.

    >>> treaty_bonus(60, balanced=True, we_advantaged=True), treaty_bonus(60, balanced=False, we_advantaged=True)
    (6, 9)
    >>> treaty_bonus(40, balanced=False, we_advantaged=False), treaty_bonus(51, balanced=False, we_advantaged=True)
    (2, 7)
    """
    pct = 10 if balanced else (15 if we_advantaged else 5)
    return max(0, x_partner * pct // 100)


# ------------------------------------------------------------------ trade (opt §2.7)

WEIGHTS_EN = {"road": 1.0, "highway": 0.5, "water": 0.5, "river": 1.0, "coastline": 1.0, "open": 2.0}


def trade_length(path: Sequence[PathStep], *, pier: bool, waterfront: bool, coastline_weight: float = 1.0,
                 reading: str = "en_hexes_per_day", open_days: float = 1.0) -> tuple[float, float]:
    """(TRL_raw, travel days) of a trade path (opt §2.7.2-§2.7.4); ``ValueError`` names an illegal hex.

    Each hex takes the lowest weight among its legal modes. Example (b): 10.5 weight, 8 days (English).

    >>> from kingdomlog.rulesets.pf1.events import PathStep as P
    >>> path = [P(road=True), P(), P(terrain="forest", highway=True), P(terrain="hills", road=True),
    ...         P(terrain="forest", river="downstream"), P(terrain="marsh", river="downstream"),
    ...         P(terrain="coastline", coastline=True), P(terrain="desert"), P(highway=True),
    ...         P(terrain="hills", highway=True)]
    >>> trade_length(path, pier=True, waterfront=False)
    (10.5, 8.0)
    >>> trade_length(path, pier=True, waterfront=False, reading="seed_days_per_hex")
    (10.5, 11.0)
    """
    pier = pier or waterfront
    raw = 0.0
    days = 0.0
    for i, st in enumerate(path, 1):
        seed = reading == "seed_days_per_hex"
        modes: list[tuple[float, float]] = []  # (weight, days)
        if st.highway:
            modes.append((0.5, 1.0))
        if st.road:
            modes.append((1.0, 1.0))
        if st.water and waterfront:
            modes.append((0.5, 4.0 if seed else 0.25))
        if st.river and pier:
            up = st.river == "upstream"
            modes.append((1.0, (4.0 if up else 1.0) if seed else (1.0 if up else 0.25)))
        if (st.coastline or st.terrain == "coastline") and pier:
            modes.append((coastline_weight, 2.0 if seed else 0.5))
        if st.terrain in ("plains", "desert") and not st.water:
            modes.append((2.0, open_days))
        if not modes:
            raise ValueError(f"trade path hex #{i} ({st.terrain}) has no legal way through: overland needs plains, "
                             "desert, a road or highway; rivers and coasts a Pier; water a Waterfront")
        w, d = min(modes)
        raw += w
        days += d
    return raw, days


# ------------------------------------------------------------------ mass combat (UC Kingdoms and War, Mass Combat)

CR_LADDER: tuple[str, ...] = ("1/8", "1/6", "1/4", "1/3", "1/2", *(str(i) for i in range(1, 41)))
"""Challenge ratings in order: an army's size moves its ACR along this ladder (UC Army Sizes)."""


def cr_value(cr: str) -> Fraction:
    """The number of a CR label: ``"1/3"`` → 1/3.

    >>> cr_value("1/3"), cr_value("7")
    (Fraction(1, 3), Fraction(7, 1))
    """
    return Fraction(cr)


def army_acr(unit_cr: str, steps: int) -> str | None:
    """ACR = the unit's CR moved ``steps`` along the CR ladder (UC Army Sizes); None below 1/8 (not an army).

    100 orc warriors (CR 1/3) are ACR 1/3; 500 (Huge, +4) ACR 3; 2,000 fighters 2 (CR 1, Colossal +8) ACR 9.

    >>> army_acr("1/3", 0), army_acr("1/3", 4), army_acr("1", 8), army_acr("1/3", -2)
    ('1/3', '3', '9', '1/6')
    >>> army_acr("1/8", -2) is None
    True
    """
    i = CR_LADDER.index(unit_cr) + steps
    return CR_LADDER[i] if 0 <= i < len(CR_LADDER) else None


def army_hp(acr: str, hd: int) -> int:
    """hp = ACR × the average of one Hit Die (3.5 d6, 4.5 d8, 5.5 d10, 6.5 d12), rounded down.

    ACR 1 warriors (d10): 5; Colossal fighters ACR 9: 49; a goblin army ACR 1/2 (d10): 2.

    >>> army_hp("1", 10), army_hp("9", 10), army_hp("1/2", 10), army_hp("1/3", 8)
    (5, 49, 2, 1)
    """
    return math.floor(cr_value(acr) * Fraction(hd + 1, 2))


def army_base(acr: str) -> tuple[int, int, int]:
    """(OM, DV, Consumption) of an army: OM = ACR, DV = 10 + ACR, Consumption = ACR / 2 (minimum 1) per week;
    a fractional ACR counts as its whole part.

    >>> army_base("9"), army_base("1/2"), army_base("3")
    ((9, 19, 4), (0, 10, 1), (3, 13, 1))
    """
    a = math.floor(cr_value(acr))
    return a, 10 + a, max(1, a // 2)


def resource_cost(cost: int, mult: tuple[int, int], *, per_engine: bool = False, count: int = 1) -> int:
    """A resource's BP for an army of a size (UC Resource Scaling; never below 1 BP; siege engines unscaled).

    Improved armor (3 BP) for a Small army: 3 × 1/2 = 1; for a Huge army 12; two siege engines 30.

    >>> resource_cost(3, (1, 2)), resource_cost(3, (4, 1)), resource_cost(15, (20, 1), per_engine=True, count=2)
    (1, 12, 30)
    """
    if per_engine:
        return cost * count
    return max(1, cost * mult[0] // mult[1]) * count if cost else 0


def offense_damage(d20: int, total: int, dv: int) -> int:
    """Damage of an Offense check: the amount it exceeds the DV; a natural 20 below the DV still deals 1.

    >>> offense_damage(8, 11, 7), offense_damage(5, 7, 7), offense_damage(20, 15, 19)
    (4, 0, 1)
    """
    if total > dv:
        return total - dv
    return 1 if d20 == 20 else 0


def tactics_known_max(acr: str) -> int:
    """An army knows half its ACR in tactics (minimum 0), the default ones not counted.

    >>> tactics_known_max("1/2"), tactics_known_max("5")
    (0, 2)
    """
    return math.floor(cr_value(acr)) // 2


def commander_bonus(ranks: int, level: int, leader: bool) -> int:
    """A commander's Profession (soldier) bonus on Morale checks and extra boons: ranks / 5; a kingdom leader uses
    the better of ranks / 5 and level / 6, minimum 1.

    >>> commander_bonus(7, 5, False), commander_bonus(0, 12, True), commander_bonus(0, 3, True)
    (1, 2, 1)
    """
    if leader:
        return max(1, ranks // 5, level // 6)
    return ranks // 5


def max_boons(ranks: int, level: int, leader: bool) -> int:
    """Boons known: 1 + 1 per 5 ranks (a kingdom leader: its commander bonus).

    >>> max_boons(10, 5, False), max_boons(0, 12, True)
    (3, 2)
    """
    return commander_bonus(ranks, level, leader) if leader else 1 + ranks // 5
