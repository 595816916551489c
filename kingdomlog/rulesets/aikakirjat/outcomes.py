"""What today's rules make of an event: its outcome, and the checks of events applied directly.

``outcome(state, payload, tape)`` runs the rules of one ``Recorded`` event (the
resolvers of ``resolve`` and ``war`` for the dice-carrying ones, the functions below
for the others) and returns the state after it, with the step-order bookkeeping
(§8.1.5), and the ``audit`` of the numbers it computed. ``decide`` runs it with a
recording tape and stores the difference as the event's ``outcome``; ``audit`` runs it
with a replay tape and compares; the legacy fold of v1 events (no recorded outcome)
runs it too. ``check(state, payload)`` holds the rules' checks of the events ``evolve``
applies directly (the founding, year start and end, fame): ``decide`` refuses with them,
``audit`` warns with them, ``evolve`` never runs them. Rule violations raise ``RuleError``
naming the spec section.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from kingdomlog.core.dispatch import Handlers
from kingdomlog.core.errors import RuleError
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
    KingdomContacted,
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
    Recorded,
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
from kingdomlog.rulesets.aikakirjat.state import (
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
from kingdomlog.rulesets.aikakirjat.tape import Tape

Audit = dict[str, Any]
Rule = Callable[[KingdomState, Any, Tape], tuple[KingdomState, Audit]]
"""The rules of one event type: ``(state, payload, tape) -> (state after, audit)``."""

RULES: Handlers[Rule] = Handlers()


def normalise(audit: Audit) -> Audit:
    """The audit as stored JSON would give it back."""
    out: Audit = json.loads(canonical_json(audit))
    return out


# --- §8.1.5 step order: 0 → 1 → 2 → 3 → 4 → 5 within a year ----------------------------------------

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


def _need_year(s: KingdomState, what: str) -> None:
    if not s.founded:
        raise RuleError(f"{what}: the kingdom is not founded yet", rule="§8.1.5")
    if s.phase in ("between_years", "unfounded"):
        raise RuleError(f"{what} happens inside a year (after year_started)", rule="§8.1.5")


def check_order(s: KingdomState, p: EventModel) -> None:
    """The event may happen now: the kingdom is founded, and a year's steps come in order (§8.1.5)."""
    if isinstance(p, KingdomFounded):
        if s.founded:
            raise RuleError("the kingdom is already founded", rule="§8.3")
        return
    if not s.founded:
        raise RuleError(f"{p.type}: found the kingdom first", rule="§8.3")
    if isinstance(p, Resolved) and not isinstance(p, SessionStarted | GovernmentChanged):
        _need_year(s, p.type)
    allowed = PHASE_BEFORE.get(type(p))
    if allowed is not None and s.phase not in allowed:
        raise RuleError(f"{p.type} cannot follow step {s.phase!r} (it needs {' or '.join(allowed)})",
                        rule="§4 step order (§8.1.5)")


def outcome(s: KingdomState, p: Recorded, tape: Tape) -> tuple[KingdomState, Audit]:
    """The state after ``p`` by today's rules (dice from ``tape``), and the audit of its numbers."""
    rule = RULES.get(p)
    if rule is None:
        raise RuleError(f"aikakirjat has no rules for {p.type}")  # pragma: no cover - every type registered
    check_order(s, p)
    new, audit = rule(s, p, tape)
    after = PHASE_AFTER.get(type(p))
    if after and not new.fallen:
        new = new.model_copy(update={"phase": after})
    return new, normalise(audit)


# --- the rules of the events without dice ---------------------------------------------------------------


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
        check_profile(n, "§3.6")
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




def check_profile(n: Neighbour, rule: str) -> None:
    """A neighbour's feats are feats of §3.6."""
    unknown = [f for f in n.profile.feats if f not in tables.feats()]
    if unknown:
        raise RuleError(f"neighbour {n.id!r}: unknown feat(s) {unknown}; feats: {', '.join(tables.feats())}",
                        rule=rule)


def global_empire(s: KingdomState) -> bool:
    """Level 20's benefit, Global Empire (§3.2): granted the first time the kingdom reaches level 20 (A15)."""
    return s.highest_level_reached >= 20


def kingdom_contacted(s: KingdomState, e: KingdomContacted) -> KingdomState:
    """Global Empire (§3.2): contact with every kingdom of the world; any kingdom may be made a neighbour.

    Before level 20 has been reached a kingdom's neighbours are the GM's to set (a ``gm_adjustment``); with
    Global Empire the players may bring any known kingdom into reach, which makes it an Embassy target (§3.10.1).
    """
    if not global_empire(s):
        raise RuleError(f"contact with any kingdom of the world is Global Empire, level 20's benefit (highest level"
                        f" reached: {s.highest_level_reached})", rule="§3.2 Global Empire")
    k = e.kingdom
    if k.id in s.neighbours or k.id == V.PLAYERS:
        raise RuleError(f"{k.id!r} is already a neighbour", rule="§3.2 Global Empire")
    if k.status != "independent" or not -10 <= k.diplomacy <= 10:
        raise RuleError("a kingdom contacted is independent, with diplomacy −10..10", rule="§2.10 (A41)")
    check_profile(k, "§3.6")
    return V.set_neighbour(s, k)


def evil_manifested(s: KingdomState, e: EvilManifested) -> KingdomState:
    """Result 1 (A30): an evil presence on an ability, or (option) one corruption point."""
    if e.ability not in ABILITIES:
        raise RuleError(f"unknown ability {e.ability!r}", rule="§2.1")
    if R.opt(s, "evil_presence_mode") == "point":
        return R.change_track(s, tables.ABILITY_TRACK[e.ability], 1)
    return s.model_copy(update={"evil_presence": {**s.evil_presence, e.ability: -1}})


def war_begun(s: KingdomState, e: WarBegun) -> KingdomState:
    """A war begins (§4.5.1, A36); an automatic one only when the rule of A40 holds."""
    if e.cause == "automatic" and e.attacker not in V.auto_war_due(s):
        raise RuleError(f"{e.attacker} does not meet the automatic war rule", rule="§3.8 (A40)")
    return V.start_war(s, e.war_id, e.attacker, e.defender)


def law_and_order_used(s: KingdomState, e: LawAndOrderUsed) -> KingdomState:
    """Law and Order (§3.6): one point off one track, once a year (A73)."""
    if not R.has_feat(s, "law_and_order"):
        raise RuleError("Law and Order is a feat the kingdom lacks", rule="§3.6")
    if "law_and_order_used" in s.year_flags:
        raise RuleError("Law and Order was already used this year", rule="§3.6 (A73)")
    if e.track not in TRACKS:
        raise RuleError(f"unknown track {e.track!r}", rule="§2.2")
    s = R.change_track(s, e.track, -1)
    return s.model_copy(update={"year_flags": (*s.year_flags, "law_and_order_used")})


def institution_founded(s: KingdomState, e: InstitutionFounded) -> KingdomState:
    """An institution founded between adventures (§2.12); +2 fame (§3.3); the Court's costs ×1.1."""
    if any(i.id == e.institution_id for i in s.institutions):
        raise RuleError(f"institution {e.institution_id!r} exists", rule="§2.12")
    if e.founder == "court" and s.highest_level_reached < 10:
        raise RuleError("no Court notable before level 10", rule="§3.2 Court")
    if abs(e.cost_multiplier - (1.1 if e.founder == "court" else 1.0)) > 1e-9:
        raise RuleError("an institution the Court founds costs 10% more (×1.1), others ×1.0", rule="§3.2 Court")
    if e.pc_id is not None and e.founder != "pc":
        raise RuleError(f"an institution the {e.founder} founds names no PC (pc_id {e.pc_id!r})", rule="§2.12")
    if e.pc_id is not None and e.pc_id not in s.pcs:
        raise RuleError(f"unknown PC {e.pc_id!r} as the institution's founder", rule="§2.15")
    inst = Institution(id=e.institution_id, type=e.kind, founded_year=s.year, founder=e.founder, pc_id=e.pc_id)
    return s.model_copy(update={"institutions": (*s.institutions, inst), "fame": s.fame + 2})


def pc_level_reached(s: KingdomState, e: PcLevelReached) -> KingdomState:
    """A resident PC reaching level 10, 15 or 20 brings 1, 5 or 10 fame (§3.3)."""
    pc = s.pcs.get(e.pc_id)
    if pc is None:
        raise RuleError(f"unknown PC {e.pc_id!r}", rule="§2.15")
    fame = {10: 1, 15: 5, 20: 10}.get(e.level, 0) if pc.resident else 0
    pcs = {**s.pcs, e.pc_id: pc.model_copy(update={"level": e.level})}
    return s.model_copy(update={"pcs": pcs, "fame": s.fame + fame})


def _plain(fn: Callable[[KingdomState, Any], KingdomState]) -> Rule:
    """A rule without dice or audit as a ``Rule``."""

    def rule(s: KingdomState, e: Any, tape: Tape) -> tuple[KingdomState, Audit]:
        return fn(s, e), {}

    rule.__doc__ = fn.__doc__
    return rule


for _cls, _rule in (
    (SessionStarted, V.session_started), (LevyDieGained, V.levy_die_gained),
    (RandomEventRolled, V.random_event_rolled), (NaturalDisasterResolved, V.natural_disaster),
    (PlagueResolved, V.plague), (NewGodAppeared, V.new_god), (NeighbourEventRolled, V.neighbour_event),
    (GrowthRolled, V.growth_rolled), (ActionTaken, V.action_taken), (RevolutionRolled, V.revolution_rolled),
    (GovernmentChanged, V.government_changed), (LevelHoldChecked, V.level_hold),
    (WarYearStarted, war.war_year_started), (WarTurnResolved, war.war_turn), (WarEnded, war.war_ended),
    (WarUpkeepApplied, war.war_upkeep),
    (EvilManifested, _plain(evil_manifested)), (WarBegun, _plain(war_begun)),
    (LawAndOrderUsed, _plain(law_and_order_used)), (LevelChanged, _plain(level_changed)),
    (BenefitChosen, _plain(benefit_chosen)), (InstitutionFounded, _plain(institution_founded)),
    (PcLevelReached, _plain(pc_level_reached)), (GmAdjustment, _plain(gm_adjustment)),
    (KingdomContacted, _plain(kingdom_contacted)),
):
    RULES.on(_cls)(_rule)


# --- the checks of the events applied directly -------------------------------------------------------


def check(s: KingdomState, p: EventModel) -> None:
    """The rules' checks of a directly applied event (and the step order); ``RuleError`` when they refuse it."""
    check_order(s, p)
    if isinstance(p, KingdomFounded):
        _check_founding(p)
    elif isinstance(p, YearStarted):
        if s.phase != "between_years":
            raise RuleError(f"year {s.year} has not ended", rule="§4 step order")
        if p.year != s.year + 1:
            raise RuleError(f"year {p.year} does not follow {s.year}", rule="§4.1")
        if s.fallen:
            raise RuleError("the kingdom has fallen (population 0)", rule="A81")
    elif isinstance(p, YearEnded):
        _need_year(s, p.type)
        if s.phase in ("start", "random_events"):
            raise RuleError("the year's growth step has not been played", rule="§4 step order (§8.1.5)")
        if p.year != s.year:
            raise RuleError(f"year {p.year} is not the current year {s.year}", rule="§4.6")
    elif isinstance(p, FameGained):
        if p.amount < 0:
            raise RuleError("fame is never spent", rule="§2.3")
    elif isinstance(p, EvilVanquished | SessionEnded):
        return


def _check_founding(e: KingdomFounded) -> None:
    """Turn 0 (§2, §7.1): a known government, four base scores ≥ 1, a new extra skill."""
    if e.government not in tables.GOVERNMENTS:
        raise RuleError(f"unknown government {e.government!r}", rule="§3.4")
    if set(e.base_scores) != set(ABILITIES) or any(v < 1 for v in e.base_scores.values()):
        raise RuleError(f"base scores must give each of {', '.join(ABILITIES)} a value ≥ 1", rule="§2.1")
    if e.extra_proficiency not in tables.skills():
        raise RuleError(f"unknown skill {e.extra_proficiency!r}", rule="§5")
    if e.extra_proficiency in tables.governments()[e.government].skills:
        raise RuleError(f"{e.extra_proficiency} is already proficient through {e.government}", rule="§2.5")
    for n in e.neighbours:
        check_profile(n, "§3.6")
