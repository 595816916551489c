"""Battles round by round, exactly as §5.8; dice come in through a callback and go out in the record.

``fight(setup, declarations, roll)`` is pure given ``roll(key, count, threshold) -> faces``: the
ruleset's ``decide`` passes the keyed roller (or the GM's typed faces) and describes each pool as a
check at ``threshold``+; the tests pass fixed faces.

Loss allocation (§5.8 step 8): main group first unless the owner declares ``reserve_first`` for a round.
Options (§5.5): ``join`` (+2d6/+3d6), ``hospital`` (1/2 kills -> routs), ``no_prisoners`` (1/2 routs ->
kills), ``back_cowards`` (2/3 routed return). General specials (§5.6): ``regroup``, ``fight_to_last``,
``epic_duel``. Tactics (§5.4): ``breakthrough``, ``encirclement``, ``ambush``, ``hold``, ``counterattack``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kingdomlog.core.errors import RuleError
from kingdomlog.dice.checks import pool_sixes, pool_successes

TACTICS = ("breakthrough", "encirclement", "ambush", "hold", "counterattack")
STANDARD_OPTIONS = ("join", "hospital", "no_prisoners", "back_cowards")
GENERAL_OPTIONS = ("regroup", "fight_to_last", "epic_duel")
OPTION_VALUE = {  # (statesman, leader), §5.5
    "join": (2, 3),
    "hospital": (1, 2),
    "no_prisoners": (1, 2),
    "back_cowards": (2, 3),
}

Roll = Callable[[str, int, int], list[int]]
"""``roll(key, count, threshold)``: ``count`` d6 faces for a pool that succeeds at ``threshold``+."""


@dataclass(frozen=True)
class Fighter:
    """A character present in a battle."""

    id: str
    leader: bool
    general: bool
    spy_of: str | None = None
    """The faction this character secretly serves (for defection, §5.7)."""
    believed_by: tuple[str, ...] = ()
    """Factions that wrongly believe he is their spy (a double agent, §6.4): their call to defect fails."""


@dataclass(frozen=True)
class SideSetup:
    """One side's forces at battle setup (§5.8)."""

    faction: str
    units: int
    tactic: str | None
    reserve: int = 0
    characters: tuple[Fighter, ...] = ()
    commander: str | None = None
    bloody_dukes: bool = False
    threshold_mod: int = 0
    contingent: int = 0
    """Neutral units included in ``units`` (they take losses last)."""


@dataclass(frozen=True)
class BattleSetup:
    """Both sides and the battle's rules (§5.8, §9 defaults)."""

    battle: str
    attacker: SideSetup
    defender: SideSetup
    max_rounds: int = 3
    threshold_cap: int = 6
    explosions_chain: bool = True
    both_broken: str = "defender"
    counterattack_window: str = "previous_round"


@dataclass
class _Side:
    setup: SideSetup
    main: int
    reserve_waiting: int
    reserve: int = 0
    routed: list[int] = field(default_factory=list)
    """Units routed, tagged by the round they fled in (one entry per unit)."""
    killed: int = 0
    used: dict[str, set[str]] = field(default_factory=dict)
    blocked: set[str] = field(default_factory=set)
    tactic_lost: bool = False
    defected: set[str] = field(default_factory=set)
    last_explosions: int = 0
    last_rerolls: int = 0
    total_extra: int = 0

    @property
    def tactic(self) -> str | None:
        return None if self.tactic_lost else self.setup.tactic

    def engaged(self) -> int:
        return self.main + self.reserve

    def broken(self) -> bool:
        return self.engaged() == 0 and self.reserve_waiting == 0


@dataclass(frozen=True)
class BattleResult:
    """The outcome and the whole record (one dict per round, for the events)."""

    winner: str
    reason: str
    rounds: tuple[dict[str, Any], ...]
    killed: dict[str, int]
    routed_at_end: dict[str, int]
    contingent_killed: dict[str, int]
    defected: tuple[str, ...]


def _threshold(me: _Side, opp: _Side, group: str, cap: int) -> int:
    """Base 4+; Hold position of the opponent 5+ (not for an ambush group); ambush 3+; winter (§5.8)."""
    if group == "reserve" and me.tactic == "ambush":
        base = 3
    elif opp.tactic == "hold":
        base = 5
    else:
        base = 4
    return max(2, min(cap, base + me.setup.threshold_mod))


def _fighter(side: _Side, cid: str) -> Fighter | None:
    for f in side.setup.characters:
        if f.id == cid:
            return f
    return None


def _validate(decl: Mapping[str, Any], sides: dict[str, _Side], r: int) -> None:
    who = decl.get("side")
    if who not in sides:
        raise RuleError(f"battle declaration names side {who!r}, not in this battle", rule="§5.8")
    opt = decl.get("option")
    if opt not in (*STANDARD_OPTIONS, *GENERAL_OPTIONS, "none", "reserve_first"):
        raise RuleError(f"unknown battle option {opt!r}", rule="§5.5")


def fight(setup: BattleSetup, declarations: Mapping[int, Sequence[Mapping[str, Any]]], roll: Roll) -> BattleResult:
    """Fight a battle (§5.8); ``declarations[r]`` lists ``{side, character, option, group?, target?, defect?}``.

    ``side`` is "attacker" or "defender": the side that *uses* the option (a defecting spy's
    option is used by his master's side, §5.7). Raises ``RuleError`` for an illegal declaration.
    """
    sides = {
        "attacker": _Side(setup.attacker, setup.attacker.units - setup.attacker.reserve, setup.attacker.reserve),
        "defender": _Side(setup.defender, setup.defender.units - setup.defender.reserve, setup.defender.reserve),
    }
    for name, s in sides.items():
        t = s.setup.tactic
        if t is not None and t not in TACTICS:
            raise RuleError(f"{name}: unknown tactic {t!r}", rule="§5.4")
        if s.setup.reserve and t not in ("ambush", "counterattack"):
            raise RuleError(f"{name}: only Ambush or Counterattack set a reserve", rule="§5.4")
        if s.setup.reserve > s.setup.units // 3 or s.setup.reserve < 0:
            raise RuleError(f"{name}: reserve {s.setup.reserve} exceeds a third of {s.setup.units} units", rule="§5.4")
    other = {"attacker": "defender", "defender": "attacker"}
    rounds_limit = 2
    records: list[dict[str, Any]] = []
    winner = setup.defender.faction
    reason = "rounds_exhausted"
    r = 0
    while r < rounds_limit:
        r += 1
        decls = list(declarations.get(r, ()))
        active: list[dict[str, Any]] = []
        failed: list[dict[str, Any]] = []
        reserve_first: set[str] = set()
        # 1-2. declarations, blocks (epic duel, defection)
        for d in decls:
            _validate(d, sides, r)
            if d.get("option") == "none":
                continue
            if d.get("option") == "reserve_first":  # the owner allocates this round's losses (§5.8 step 8)
                reserve_first.add(str(d["side"]))
                continue
            side_name = str(d["side"])
            me, opp = sides[side_name], sides[other[side_name]]
            cid = str(d.get("character"))
            defect = bool(d.get("defect"))
            if defect:
                f = _fighter(opp, cid)
                if f is not None and f.spy_of != me.setup.faction and me.setup.faction in f.believed_by:
                    failed.append({"side": side_name, "character": cid, "option": str(d.get("option")),
                                   "defect": True, "failed": True})
                    continue  # the double agent stays loyal to his owner (§6.4)
                if f is None or f.spy_of != me.setup.faction:
                    raise RuleError(f"{cid} is not {me.setup.faction}'s spy on the other side", rule="§5.7")
                if cid not in opp.defected:
                    opp.defected.add(cid)
                    if opp.setup.commander == cid:
                        opp.tactic_lost = True
                owner_side = opp
            else:
                f = _fighter(me, cid)
                if f is None:
                    raise RuleError(f"{cid} does not take part in this battle on the {side_name} side", rule="§5.5")
                if cid in me.defected:
                    raise RuleError(f"{cid} has defected and no longer acts for {side_name}", rule="§5.7")
                owner_side = me
            opt = str(d["option"])
            is_special = opt in GENERAL_OPTIONS
            if is_special and not f.general:
                raise RuleError(f"{cid} is not a general and cannot use {opt}", rule="§5.6")
            used = owner_side.used.setdefault(cid, set())
            kind = "special" if is_special else "standard"
            if f.id in owner_side.blocked:
                raise RuleError(f"{cid} is held in an epic duel", rule="§5.6")
            allowed_two = f.general and owner_side.setup.bloody_dukes
            if used and (not allowed_two or kind in used):
                raise RuleError(f"{cid} already used an option in this battle", rule="§5.5")
            used.add(kind)
            owner_name = other[side_name] if defect else side_name
            active.append({**d, "option": opt, "leader": f.leader, "owner": owner_name, "user": side_name})
        for d in active:
            if d["option"] == "epic_duel":
                target = str(d.get("target"))
                opp = sides[other[d["user"]]]
                tf = _fighter(opp, target)
                if tf is None or not tf.leader:
                    raise RuleError("an epic duel must target the enemy leader in this battle", rule="§5.6")
                opp.blocked.add(target)
        active = [d for d in active if d["option"] == "epic_duel" or d["character"] not in sides[d["owner"]].blocked]
        for d in active:
            if d["option"] == "fight_to_last":
                rounds_limit = min(setup.max_rounds, 3)
        # 3. returns and entries
        returns: dict[str, int] = {"attacker": 0, "defender": 0}
        for name, s in sides.items():
            for d in active:
                if d["user"] != name:
                    continue
                if d["option"] == "regroup" and r > 1:
                    back = [x for x in s.routed if x == r - 1]
                    for _ in back:
                        s.routed.remove(r - 1)
                    s.main += len(back)
                    returns[name] += len(back)
                elif d["option"] == "back_cowards":
                    n = min(OPTION_VALUE["back_cowards"][1 if d["leader"] else 0], len(s.routed))
                    for _ in range(n):
                        s.routed.pop()
                    s.main += n
                    returns[name] += n
            if r == 2 and s.reserve_waiting:
                s.reserve, s.reserve_waiting = s.reserve_waiting, 0
        # 4-5. pools and rolling; the Counterattack bonus counts the opponent's previous round (snapshot first)
        previous = {n: x.last_explosions + x.last_rerolls for n, x in sides.items()}
        outcome: dict[str, dict[str, Any]] = {}
        for name, s in sides.items():
            opp = sides[other[name]]
            join = {"main": 0, "reserve": 0}
            for d in active:
                if d["user"] == name and d["option"] == "join":
                    grp = str(d.get("group", "main"))
                    if grp not in join or (grp == "reserve" and s.reserve == 0):
                        raise RuleError("join-battle dice go to the main group or an attacking reserve", rule="§5.5")
                    join[grp] += OPTION_VALUE["join"][1 if d["leader"] else 0]
            bonus = 0
            if s.tactic == "counterattack" and s.reserve > 0 and r >= 2:
                bonus = previous[other[name]]
            groups: list[dict[str, Any]] = []
            explosions = rerolls = 0
            for grp, units in (("main", s.main), ("reserve", s.reserve)):
                n = units + join[grp] + (bonus if grp == "reserve" else 0)
                if units == 0 and grp == "reserve":
                    n = 0
                if units == 0 and grp == "main":
                    n = 0 if join["main"] == 0 else n
                if n == 0:
                    continue
                key = f"{setup.battle}.r{r}.{name}.{grp}"
                th = _threshold(s, opp, grp, setup.threshold_cap)
                faces = list(roll(key, n, th))
                g: dict[str, Any] = {"group": grp, "units": units, "join": join[grp],
                                     "bonus": bonus if grp == "reserve" else 0,
                                     "threshold": th,
                                     "dice": faces, "rerolls": [], "explosions": []}
                if s.tactic == "encirclement":
                    ones = [i for i, f in enumerate(faces) if f == 1]
                    if ones:
                        new = list(roll(f"{key}.reroll", len(ones), th))
                        g["rerolls"] = [[i, v] for i, v in zip(ones, new, strict=True)]
                        for i, v in zip(ones, new, strict=True):
                            faces[i] = v
                        rerolls += len(ones)
                final = list(faces)
                if s.tactic == "breakthrough":
                    wave = pool_sixes(faces)
                    k = 1
                    while wave:
                        extra = list(roll(f"{key}.x{k}", wave, th))
                        g["explosions"].extend(extra)
                        final.extend(extra)
                        explosions += wave
                        wave = pool_sixes(extra) if setup.explosions_chain else 0
                        k += 1
                succ = pool_successes(final, g["threshold"])
                kills = pool_sixes([f for f in final if f >= g["threshold"]])
                g["successes"] = succ
                g["kills"] = kills
                g["routs"] = succ - kills
                groups.append(g)
            s.last_explosions, s.last_rerolls = explosions, rerolls
            outcome[name] = {"groups": groups, "kills": sum(g["kills"] for g in groups),
                             "routs": sum(g["routs"] for g in groups), "explosions": explosions, "rerolls": rerolls,
                             "returned": returns[name]}
        # 7. conversions
        for name in sides:
            o = outcome[name]
            opp_name = other[name]
            hosp = sum(OPTION_VALUE["hospital"][1 if d["leader"] else 0] for d in active
                       if d["user"] == opp_name and d["option"] == "hospital")
            conv = min(hosp, o["kills"])
            o["kills"] -= conv
            o["routs"] += conv
            o["hospital"] = conv
        for name in sides:
            o = outcome[name]
            nop = sum(OPTION_VALUE["no_prisoners"][1 if d["leader"] else 0] for d in active
                      if d["user"] == name and d["option"] == "no_prisoners")
            conv = min(nop, o["routs"])
            o["routs"] -= conv
            o["kills"] += conv
            o["no_prisoners"] = conv
        # 8. removals, simultaneous
        for name, s in sides.items():
            hit = outcome[other[name]]
            engaged = s.engaged()
            k = min(hit["kills"], engaged)
            rt = min(hit["routs"], engaged - k)
            loss = k + rt
            if name in reserve_first:
                from_res = min(loss, s.reserve)
                s.reserve -= from_res
                s.main -= loss - from_res
            else:  # loss_allocation_fallback = main_first (G-11)
                from_main = min(loss, s.main)
                s.main -= from_main
                s.reserve -= loss - from_main
            s.killed += k
            s.routed.extend([r] * rt)
            outcome[name]["lost_killed"] = k
            outcome[name]["lost_routed"] = rt
            outcome[name]["engaged_after"] = s.engaged()
        records.append({"round": r, "declarations": [
            {k: v for k, v in d.items() if k in ("side", "character", "option", "group", "target", "defect")}
            for d in active] + failed, "sides": outcome})
        # 9. end check
        a_b, d_b = sides["attacker"].broken(), sides["defender"].broken()
        if a_b and d_b:
            winner = setup.defender.faction if setup.both_broken == "defender" else setup.attacker.faction
            reason = "both_broken"
            break
        if a_b or d_b:
            winner = setup.defender.faction if a_b else setup.attacker.faction
            reason = "broken"
            break
    killed = {sides[n].setup.faction: sides[n].killed for n in sides}
    routed = {sides[n].setup.faction: len(sides[n].routed) for n in sides}
    contingent_killed = {}
    for s in sides.values():
        own = s.setup.units - s.setup.contingent
        contingent_killed[s.setup.faction] = max(0, s.killed - own)
    defected = tuple(sorted(sides["attacker"].defected | sides["defender"].defected))
    return BattleResult(winner, reason, tuple(records), killed, routed, contingent_killed, defected)
