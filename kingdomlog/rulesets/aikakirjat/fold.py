"""``evolve`` for aikakirjat: resolved events replay their resolver on recorded dice; the rest apply directly."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from kingdomlog.core.errors import InputError, RuleError
from kingdomlog.core.events import EventModel, canonical_json
from kingdomlog.rulesets.aikakirjat import resolve as V
from kingdomlog.rulesets.aikakirjat import rules as R
from kingdomlog.rulesets.aikakirjat import tables, war
from kingdomlog.rulesets.aikakirjat.events import (
    ActionTaken,
    BenefitChosen,
    EvilManifested,
    EvilVanquished,
    FameGained,
    GmAdjustment,
    GovernmentChanged,
    GrowthRolled,
    InstitutionFounded,
    KingdomFounded,
    LawAndOrderUsed,
    LevelChanged,
    LevelHoldChecked,
    LevyDieGained,
    NaturalDisasterResolved,
    NeighbourEventRolled,
    NewGodAppeared,
    PcLevelReached,
    PlagueResolved,
    RandomEventRolled,
    Resolved,
    RevolutionRolled,
    SessionEnded,
    SessionStarted,
    WarBegun,
    WarEnded,
    WarTurnResolved,
    WarUpkeepApplied,
    WarYearStarted,
    YearEnded,
    YearStarted,
)
from kingdomlog.rulesets.aikakirjat.model import (
    PC,
    FeatTaken,
    Institution,
    KingdomState,
    Neighbour,
    PendingBenefit,
    Province,
    SpecialUnit,
    TerritoryArea,
    Track,
)
from kingdomlog.rulesets.aikakirjat.tables import ABILITIES, TRACKS
from kingdomlog.rulesets.aikakirjat.tape import ReplayTape, Tape

Resolver = Callable[[KingdomState, Any, Tape], tuple[KingdomState, dict[str, Any]]]

RESOLVERS: dict[type[EventModel], Resolver] = {
    SessionStarted: V.session_started,
    LevyDieGained: V.levy_die_gained,
    RandomEventRolled: V.random_event_rolled,
    NaturalDisasterResolved: V.natural_disaster,
    PlagueResolved: V.plague,
    NewGodAppeared: V.new_god,
    NeighbourEventRolled: V.neighbour_event,
    GrowthRolled: V.growth_rolled,
    ActionTaken: V.action_taken,
    RevolutionRolled: V.revolution_rolled,
    GovernmentChanged: V.government_changed,
    LevelHoldChecked: V.level_hold,
    WarYearStarted: war.war_year_started,
    WarTurnResolved: war.war_turn,
    WarEnded: war.war_ended,
    WarUpkeepApplied: war.war_upkeep,
}


def normalise(audit: dict[str, Any]) -> dict[str, Any]:
    """The audit as stored JSON would give it back."""
    out: dict[str, Any] = json.loads(canonical_json(audit))
    return out


def replay_resolved(state: KingdomState, p: Resolved, where: str) -> KingdomState:
    """Re-run a resolved event's rules on its recorded dice; refuse a mismatching audit (§8.1)."""
    tape = ReplayTape(p.dice, where=where)
    new, audit = RESOLVERS[type(p)](state, p, tape)
    tape.check_all_used()
    if p.audit and normalise(audit) != normalise(p.audit):
        raise InputError(f"{where}: recorded audit {canonical_json(p.audit)} differs from the rules' "
                         f"{canonical_json(normalise(audit))}")
    return new


# §8.1.5 phase guards: the step order 0 → 1 → 2 → 3 → 4 → 5 within a year.
PHASE_BEFORE: dict[type[EventModel], tuple[str, ...]] = {
    LevyDieGained: ("start",),
    RandomEventRolled: ("start",),
    GrowthRolled: ("random_events",),
    ActionTaken: ("growth", "actions"),
    WarYearStarted: ("random_events", "growth", "actions", "war"),
    WarTurnResolved: ("war",),
    WarUpkeepApplied: ("growth", "actions", "war", "end"),
}
PHASE_AFTER: dict[type[EventModel], str] = {
    RandomEventRolled: "random_events", GrowthRolled: "growth", ActionTaken: "actions",
    WarYearStarted: "war", WarTurnResolved: "war", WarUpkeepApplied: "end", LevelHoldChecked: "end",
}


def _phase_guard(s: KingdomState, p: EventModel, where: str) -> None:
    allowed = PHASE_BEFORE.get(type(p))
    if allowed is not None and s.phase not in allowed:
        raise RuleError(f"{where} cannot follow step {s.phase!r} (it needs {' or '.join(allowed)})",
                        rule="§4 step order (§8.1.5)")


def _need_year(s: KingdomState, what: str) -> None:
    if not s.founded:
        raise RuleError(f"{what}: the kingdom is not founded yet", rule="§8.1.5")
    if s.phase in ("between_years", "unfounded"):
        raise RuleError(f"{what} happens inside a year (after year_started)", rule="§8.1.5")


def founded(s: KingdomState, e: KingdomFounded) -> KingdomState:
    """Turn 0 (§2, §7.1): the founding values."""
    if s.founded:
        raise RuleError("the kingdom is already founded", rule="§8.3")
    if e.government not in tables.GOVERNMENTS:
        raise RuleError(f"unknown government {e.government!r}", rule="§3.4")
    if set(e.base_scores) != set(ABILITIES) or any(v < 1 for v in e.base_scores.values()):
        raise RuleError(f"base scores must give each of {', '.join(ABILITIES)} a value ≥ 1", rule="§2.1")
    if e.extra_proficiency not in tables.skills():
        raise RuleError(f"unknown skill {e.extra_proficiency!r}", rule="§5")
    if e.extra_proficiency in tables.governments()[e.government].skills:
        raise RuleError(f"{e.extra_proficiency} is already proficient through {e.government}", rule="§2.5")
    options = {**s.options, **e.options}
    return s.model_copy(update={
        "options": options, "name": e.name, "founded": True, "phase": "between_years", "year": 0,
        "government": e.government, "base_scores": dict(e.base_scores),
        "improvements": dict.fromkeys(ABILITIES, 0), "tracks": {t: Track() for t in TRACKS},
        "population": e.population, "population_at_year_start": e.population,
        "territory": tuple(e.territory), "militia": e.militia, "levy_dice": e.levy_dice,
        "technology_level": e.technology_level, "mobility": e.mobility, "fire_capable": e.fire_capable,
        "chosen_proficiencies": (e.extra_proficiency,),
        "neighbours": {n.id: n for n in e.neighbours}, "provinces": {p.id: p for p in e.provinces},
        "pcs": dict(e.pcs), "special_units": tuple(e.special_units),
    })


def level_changed(s: KingdomState, e: LevelChanged) -> KingdomState:
    """§3.1 (A15): level-ups grant benefits the first time; a GM may set any level."""
    if e.from_level != s.level:
        raise RuleError(f"level is {s.level}, not {e.from_level}", rule="§3.1")
    if not 1 <= e.to_level <= 20:
        raise RuleError("levels run 1..20", rule="§3.1")
    if e.cause == "fame":
        if e.to_level <= e.from_level:
            raise RuleError("fame only raises the level", rule="§3.1")
        for lv in range(e.from_level + 1, e.to_level + 1):
            if s.fame < R.fame_required(lv) or s.population < R.population_required(lv):
                raise RuleError(f"level {lv} needs fame {R.fame_required(lv)} and population "
                                f"{R.population_required(lv)}", rule="§3.1")
            if lv > R.max_level(s):
                raise RuleError(f"{s.government} cannot rise above level {R.max_level(s)}", rule="§3.4 (A26)")
    pending = list(s.pending_benefits)
    highest = s.highest_level_reached
    for lv in range(highest + 1, e.to_level + 1):
        benefit = tables.levels()[lv - 1].benefit
        if benefit in ("feat", "asi", "three_skills", "two_expertise", "rising_power"):
            pending.append(PendingBenefit(level=lv, benefit=benefit))
    return s.model_copy(update={"level": e.to_level, "highest_level_reached": max(highest, e.to_level),
                                "levy_dice": min(s.levy_dice, e.to_level), "pending_benefits": tuple(pending)})


def _new_skills(s: KingdomState, skills: tuple[str, ...], n: int, rule: str) -> KingdomState:
    if len(skills) != n or len(set(skills)) != n:
        raise RuleError(f"choose exactly {n} different skill(s)", rule=rule)
    for sk in skills:
        if sk not in R.skill_map(s):
            raise RuleError(f"unknown skill {sk!r}", rule="§5")
        if sk in R.proficiencies(s):
            raise RuleError(f"the kingdom is already proficient in {sk}", rule="§2.5")
    return s.model_copy(update={"chosen_proficiencies": (*s.chosen_proficiencies, *skills)})


def _new_expertise(s: KingdomState, skills: tuple[str, ...], n: int, rule: str) -> KingdomState:
    if len(skills) != n or len(set(skills)) != n:
        raise RuleError(f"choose exactly {n} different skill(s) for expertise", rule=rule)
    for sk in skills:
        if sk not in R.proficiencies(s):
            raise RuleError(f"expertise needs proficiency in {sk}", rule=rule)
        if sk in s.expertise:
            raise RuleError(f"already expert in {sk}", rule=rule)
    return s.model_copy(update={"expertise": (*s.expertise, *skills)})


def benefit_chosen(s: KingdomState, e: BenefitChosen) -> KingdomState:
    """§3.2: apply a chosen level benefit (feat prerequisites §3.6; ASI options incl. A76)."""
    match = next((p for p in s.pending_benefits if p.level == e.level and p.benefit == e.benefit), None)
    if match is None:
        raise RuleError(f"no pending {e.benefit} benefit from level {e.level}", rule="§3.2")
    rest = tuple(p for p in s.pending_benefits if p is not match)
    if e.benefit == "feat":
        row = tables.feats().get(e.feat or "")
        if row is None:
            raise RuleError(f"unknown feat {e.feat!r}; feats: {', '.join(tables.feats())}", rule="§3.6")
        if row.requires_skill and row.requires_skill not in R.proficiencies(s):
            raise RuleError(f"feat {row.name} requires proficiency in {row.requires_skill}", rule="§3.6 prerequisites")
        if row.requires_level and s.level < row.requires_level:
            raise RuleError(f"feat {row.name} requires kingdom level {row.requires_level}", rule="§3.6 prerequisites")
        if not row.repeatable and R.has_feat(s, row.name):
            raise RuleError(f"feat {row.name} is already taken; only Skills repeats", rule="§2.7")
        choices: dict[str, Any] = {}
        if row.name == "skills":
            if len(e.skills) == 1:
                s = _new_skills(s, e.skills, 1, "§3.6 Skills")
                s = _new_expertise(s, e.expertise, 1, "§3.6 Skills")
            else:
                if e.expertise:
                    raise RuleError("Skills: one skill plus one expertise, or three skills", rule="§3.6 Skills")
                s = _new_skills(s, e.skills, 3, "§3.6 Skills")
            choices = {"skills": list(e.skills), "expertise": list(e.expertise)}
        s = s.model_copy(update={"feats": (*s.feats, FeatTaken(feat=row.name, choices=choices))})
    elif e.benefit == "asi":
        if e.corruption_steps:
            if sum(e.corruption_steps.values()) != 4 or any(v < 0 for v in e.corruption_steps.values()) \
                    or not set(e.corruption_steps) <= set(TRACKS):
                raise RuleError("the corruption option distributes exactly 4 steps among the tracks", rule="§3.2 (A76)")
            tracks = dict(s.tracks)
            for t, n in e.corruption_steps.items():
                if n:
                    tracks[t] = Track(points=0, modifier=min(0, tracks[t].modifier + n))
            s = s.model_copy(update={"tracks": tracks})
        else:
            vals = sorted(e.abilities.values())
            if not set(e.abilities) <= set(ABILITIES) or vals not in ([2], [1, 1]):
                raise RuleError("+2 to one ability or +1 to two", rule="§3.2 ASI")
            imp = dict(s.improvements)
            for a, v in e.abilities.items():
                imp[a] = imp.get(a, 0) + v
            s = R.renormalise(s.model_copy(update={"improvements": imp}))
    elif e.benefit == "three_skills":
        s = _new_skills(s, e.skills, 3, "§3.2")
    elif e.benefit == "two_expertise":
        s = _new_expertise(s, e.expertise, 2, "§3.2")
    elif e.benefit == "rising_power":
        s = s.model_copy(update={"god_created": e.god_created})
    return s.model_copy(update={"pending_benefits": rest})


def gm_adjustment(s: KingdomState, e: GmAdjustment) -> KingdomState:
    """The GM's escape hatch (§8.3)."""
    f = e.field
    if f in TRACKS:
        return R.change_track(s, f, e.delta or 0)
    if f in ("fame", "militia", "research_points", "naval_dice", "stored_advantages", "technology_level", "mobility"):
        cur = getattr(s, f)
        new = e.value if e.value is not None else cur + (e.delta or 0)
        return s.model_copy(update={f: max(0, int(new)) if f != "mobility" else int(new)})
    if f == "population":
        return R.set_population(s, int(e.value) if e.value is not None else s.population + (e.delta or 0))
    if f == "unrest":
        if e.value is not None:
            return R.add_unrest(s, int(e.value) - s.unrest)
        return R.add_unrest(s, e.delta or 0)
    if f == "fire_capable":
        return s.model_copy(update={"fire_capable": bool(e.value)})
    if f == "omen_modifier":
        return s.model_copy(update={"omen_modifier": max(-1, min(1, int(e.value or 0)))})
    if f == "territory":
        areas = tuple(TerritoryArea.model_validate(a) for a in (e.value or []))
        return s.model_copy(update={"territory": areas})
    if f == "province":
        p = Province.model_validate(e.value)
        return s.model_copy(update={"provinces": {**s.provinces, p.id: p}})
    if f == "neighbour":
        n = Neighbour.model_validate(e.value)
        return V.set_neighbour(s, n)
    if f == "special_unit":
        u = SpecialUnit.model_validate(e.value)
        return s.model_copy(update={"special_units": (*[x for x in s.special_units if x.id != u.id], u)})
    if f == "pc":
        pc = PC.model_validate(e.value)
        return s.model_copy(update={"pcs": {**s.pcs, e.target or pc.name: pc}})
    found = s.neighbours.get(e.target or "")
    if found is None:
        raise RuleError(f"no neighbour {e.target!r}", rule="§2.10")
    n = found
    if f == "neighbour_diplomacy":
        s2, _ = V.change_diplomacy(s, n.id, (int(e.value) - n.diplomacy) if e.value is not None else (e.delta or 0))
        return s2
    if f == "neighbour_population":
        v = int(e.value) if e.value is not None else n.population + (e.delta or 0)
        return V.set_neighbour(s, n.model_copy(update={"population": max(0, v)}))
    return V.set_neighbour(s, n.model_copy(update={"status": e.value}))


def evolve_state(s: KingdomState, p: EventModel, where: str) -> KingdomState:
    """Apply one aikakirjat event."""
    if isinstance(p, KingdomFounded):
        return founded(s, p)
    if not s.founded:
        raise RuleError(f"{where}: found the kingdom first", rule="§8.3")
    if isinstance(p, Resolved):
        if not isinstance(p, SessionStarted | GovernmentChanged):
            _need_year(s, where)
        _phase_guard(s, p, where)
        new = replay_resolved(s, p, where)
        after = PHASE_AFTER.get(type(p))
        return new.model_copy(update={"phase": after}) if after and not new.fallen else new
    if isinstance(p, YearStarted):
        if s.phase != "between_years":
            raise RuleError(f"{where}: year {s.year} has not ended", rule="§4 step order")
        if p.year != s.year + 1:
            raise RuleError(f"{where}: year {p.year} does not follow {s.year}", rule="§4.1")
        if s.fallen:
            raise RuleError(f"{where}: the kingdom has fallen (population 0)", rule="A81")
        return s.model_copy(update={"year": p.year, "population_at_year_start": s.population, "phase": "start",
                                    "actions_used": 0, "actions_forfeited": False, "war_declared_this_year": False})
    if isinstance(p, YearEnded):
        _need_year(s, where)
        if s.phase in ("start", "random_events"):
            raise RuleError(f"{where}: the year's growth step has not been played", rule="§4 step order (§8.1.5)")
        if p.year != s.year:
            raise RuleError(f"{where}: year {p.year} is not the current year {s.year}", rule="§4.6")
        sess = s.session.model_copy(update={"years_played": s.session.years_played + 1})
        return s.model_copy(update={
            "phase": "between_years", "population_rose_last_year": s.population > s.population_at_year_start,
            "year_flags": (), "year_advantages": 0, "revolution_rolled_this_year": False, "revolution_due": None,
            "pc_assignments_this_year": (), "session": sess,
            "special_units": tuple(u.model_copy(update={"used_this_year": False}) for u in s.special_units),
            "wars": tuple(w.model_copy(update={"supremacy": {}}) for w in s.wars),
        })
    if isinstance(p, SessionEnded):
        return s
    if isinstance(p, EvilManifested):
        if p.ability not in ABILITIES:
            raise RuleError(f"unknown ability {p.ability!r}", rule="§2.1")
        if R.opt(s, "evil_presence_mode") == "point":
            return R.change_track(s, tables.ABILITY_TRACK[p.ability], 1)
        return s.model_copy(update={"evil_presence": {**s.evil_presence, p.ability: -1}})
    if isinstance(p, EvilVanquished):
        return s.model_copy(update={"evil_presence": {k: v for k, v in s.evil_presence.items() if k != p.ability}})
    if isinstance(p, WarBegun):
        if p.cause == "automatic" and p.attacker not in V.auto_war_due(s):
            raise RuleError(f"{p.attacker} does not meet the automatic war rule", rule="§3.8 (A40)")
        return V.start_war(s, p.war_id, p.attacker, p.defender)
    if isinstance(p, LawAndOrderUsed):
        if not R.has_feat(s, "law_and_order"):
            raise RuleError("Law and Order is a feat the kingdom lacks", rule="§3.6")
        if "law_and_order_used" in s.year_flags:
            raise RuleError("Law and Order was already used this year", rule="§3.6 (A73)")
        if p.track not in TRACKS:
            raise RuleError(f"unknown track {p.track!r}", rule="§2.2")
        s = R.change_track(s, p.track, -1)
        return s.model_copy(update={"year_flags": (*s.year_flags, "law_and_order_used")})
    if isinstance(p, FameGained):
        if p.amount < 0:
            raise RuleError("fame is never spent", rule="§2.3")
        return s.model_copy(update={"fame": s.fame + p.amount})
    if isinstance(p, LevelChanged):
        return level_changed(s, p)
    if isinstance(p, BenefitChosen):
        return benefit_chosen(s, p)
    if isinstance(p, InstitutionFounded):
        if any(i.id == p.institution_id for i in s.institutions):
            raise RuleError(f"institution {p.institution_id!r} exists", rule="§2.12")
        if p.founder == "court" and s.highest_level_reached < 10:
            raise RuleError("no Court notable before level 10", rule="§3.2 Court")
        if abs(p.cost_multiplier - (1.1 if p.founder == "court" else 1.0)) > 1e-9:
            raise RuleError("an institution the Court founds costs 10% more (×1.1), others ×1.0", rule="§3.2 Court")
        inst = Institution(id=p.institution_id, type=p.kind, founded_year=s.year, founder=p.founder)
        return s.model_copy(update={"institutions": (*s.institutions, inst), "fame": s.fame + 2})
    if isinstance(p, PcLevelReached):
        pc = s.pcs.get(p.pc_id)
        if pc is None:
            raise RuleError(f"unknown PC {p.pc_id!r}", rule="§2.15")
        fame = {10: 1, 15: 5, 20: 10}.get(p.level, 0) if pc.resident else 0
        pcs = {**s.pcs, p.pc_id: pc.model_copy(update={"level": p.level})}
        return s.model_copy(update={"pcs": pcs, "fame": s.fame + fame})
    if isinstance(p, GmAdjustment):
        return gm_adjustment(s, p)
    raise InputError(f"{where}: aikakirjat cannot apply {p.type}")  # pragma: no cover
