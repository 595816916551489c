"""``decide`` and ``choices`` for aikakirjat: the steps of a year (§4) with defaults for every input.

Each step runs its resolvers with a recording tape, evolves a working state
after every draft (so the next event sees it), and returns the drafts only when
the whole step is legal: a refused choice leaves nothing behind.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from kingdomlog.core.errors import InputError, RuleError
from kingdomlog.core.events import Draft, EventModel
from kingdomlog.core.ruleset import Choice, Dice, Phase
from kingdomlog.rulesets.aikakirjat import rules as R
from kingdomlog.rulesets.aikakirjat import tables, war
from kingdomlog.rulesets.aikakirjat.events import (
    ACTION_TYPES,
    ActionTaken,
    Allocation,
    BenefitChosen,
    CheckOptions,
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
    Order,
    PcLevelReached,
    PeaceTerms,
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
from kingdomlog.rulesets.aikakirjat.fold import RESOLVERS, evolve_state, normalise
from kingdomlog.rulesets.aikakirjat.model import KingdomState
from kingdomlog.rulesets.aikakirjat.resolve import PLAYERS, auto_war_due
from kingdomlog.rulesets.aikakirjat.tables import ABILITIES, TRACKS
from kingdomlog.rulesets.aikakirjat.tape import RecordingTape

PHASES: tuple[Phase, ...] = (
    Phase("start", "Start of year", "Between-year events, a new growth session (5d10 years), the levy die (§4.0, §4.1)",
          ("years", "levy")),
    Phase("events", "Random events", "2d6 + omens; the neighbour sub-table (§4.2)", ("event",)),
    Phase("growth", "Population growth", "Living space sets the DC of the growth roll (§4.3)", ("growth",)),
    Phase("actions", "Actions", "As many actions as the kingdom has (§4.4)", ("a1.check",)),
    Phase("war", "War turns", "War year set-up, war turns, end of war (§4.5)", ("w.initiative",)),
    Phase("end", "End of year", "War upkeep, Law and Order, fame, level, clean-up (§4.6)", ()),
)
FOUNDING = Phase("founding", "Founding", "The kingdom's founding values (§2, A3)", ())

GM_EVENTS: dict[str, type[EventModel]] = {
    "institution_founded": InstitutionFounded, "pc_level_reached": PcLevelReached, "gm_adjustment": GmAdjustment,
    "evil_vanquished": EvilVanquished, "benefit_chosen": BenefitChosen, "government_changed": GovernmentChanged,
    "fame_gained": FameGained, "war_begun": WarBegun, "level_changed": LevelChanged,
}


class Stepper:
    """Accumulates a step's drafts while keeping the working state current."""

    def __init__(self, state: KingdomState, step: str, dice: Dice) -> None:
        self.state = state
        self.step = step
        self.dice = dice
        self.drafts: list[Draft] = []

    def add(self, payload: EventModel, *, visibility: str = "public", actor: str = "gm") -> None:
        try:
            self.state = evolve_state(self.state, payload, f"{self.step}: {payload.type}")
        except RuleError as exc:
            raise RuleError(str(exc), rule=exc.rule, step=None) from None
        self.drafts.append(Draft(payload, phase=self.step, actor=actor, visibility=visibility))

    def resolve(self, payload: Resolved, prefix: str) -> Resolved:
        """Run the payload's resolver with live dice; record dice and audit; apply."""
        tape = RecordingTape(self.dice, prefix)
        new, audit = RESOLVERS[type(payload)](self.state, payload, tape)
        done = payload.model_copy(update={"dice": tuple(tape.records), "audit": normalise(audit)})
        self.state = new
        self.drafts.append(Draft(done, phase=self.step, actor="gm"))
        return done

    def after_change(self, tag: str, *, wars: bool = True) -> None:
        """Automatic wars (A40) and a due revolution (A11) right after a change."""
        for nid in auto_war_due(self.state) if wars else []:
            self.add(WarBegun(war_id=f"war-{self.state.year}-{nid}", attacker=nid, defender=PLAYERS, cause="automatic"))
        if self.state.revolution_due:
            self.resolve(RevolutionRolled(cause="unrest"), f"rev{tag}.")


def _model(cls: type[BaseModel], data: Any, what: str) -> Any:
    try:
        return cls.model_validate(data)
    except ValidationError as exc:
        errs = "; ".join(f"{'.'.join(str(x) for x in e['loc'])}: {e['msg']}" for e in exc.errors()[:3])
        raise InputError(f"{what}: {errs}") from None


def _bool(ch: Mapping[str, Any], name: str, default: bool) -> bool:
    v = ch.get(name, default)
    if not isinstance(v, bool):
        raise InputError(f"choice {name!r} must be true or false")
    return v


def _opts(ch: Mapping[str, Any], prefix: str = "") -> CheckOptions:
    return CheckOptions(spend_stored=_bool(ch, f"{prefix}spend_stored", False),
                        spend_year=_bool(ch, f"{prefix}spend_year", False),
                        take_10=_bool(ch, f"{prefix}take_10", False))


# --- defaults ---------------------------------------------------------------------------------------


def default_founding() -> dict[str, Any]:
    """The §7.1 kingdom (Feudalism, Construction) with two hexes, as a playable default."""
    return {
        "name": "New Kingdom", "government": "feudalism",
        "base_scores": {"culture": 12, "economy": 13, "loyalty": 14, "stability": 11},
        "extra_proficiency": "construction", "population": 3,
        "territory": [{"area_id": "home", "unit": "hex", "amount": 2, "quality": 1.0}],
        "neighbours": [], "provinces": [], "pcs": {},
    }


def default_actions(s: KingdomState) -> list[dict[str, Any]]:
    """A year's actions when the GM gives none: fix the worst corruption, else grow, else build or tax."""
    out: list[dict[str, Any]] = []
    n = R.actions_per_year(s) if not s.pending_revolution else 0
    friendly = sorted((x for x in s.neighbours.values() if x.status == "independent" and x.population > 0),
                      key=lambda x: (-x.diplomacy, x.id))
    open_projects = [p for p in s.building_projects if not p.completed]
    worst = min(TRACKS, key=lambda t: (s.tracks[t].modifier, -s.tracks[t].points))
    for _ in range(n):
        if s.tracks[worst].modifier < 0 and not any(a.get("target_track") == worst for a in out):
            out.append({"action": "reduce_corruption", "target_track": worst})
        elif friendly and not any(a["action"] == "attract_population" for a in out):
            out.append({"action": "attract_population", "neighbour_id": friendly[0].id})
        elif open_projects and not any(a["action"] == "building_project" for a in out):
            out.append({"action": "building_project", "project_id": open_projects[0].id})
        else:
            out.append({"action": "tax_collection"})
    return out


def default_law_and_order(s: KingdomState) -> str | None:
    if not R.has_feat(s, "law_and_order") or "law_and_order_used" in s.year_flags:
        return None
    return min(TRACKS, key=lambda t: (s.tracks[t].modifier, -s.tracks[t].points))


def new_session_due(s: KingdomState) -> bool:
    return s.session.session_no == 0 or s.session.years_played >= s.session.years_total


# --- choices ----------------------------------------------------------------------------------------


def choices(s: KingdomState, step: str) -> list[Choice]:
    """Every input of ``step`` with its default (the notebook's turn sheet is built from these)."""
    adv = [Choice("spend_stored", "Spend a stored advantage", "bool", default=False),
           Choice("spend_year", "Spend this year's tax advantage", "bool", default=False),
           Choice("take_10", "Take 10 (Competent Administration)", "bool", default=False)]
    neigh = tuple(sorted(s.neighbours))
    if step == "founding":
        d = default_founding()
        return [
            Choice("name", "Kingdom name", "text", default=d["name"]),
            Choice("government", "Form of government", "select", tables.GOVERNMENTS, d["government"], "§3.4"),
            Choice("base_scores", "Base ability scores", "json", default=d["base_scores"], help="§2.1, A3"),
            Choice("extra_proficiency", "Level-1 extra skill", "select", tuple(tables.skills()),
                   d["extra_proficiency"]),
            Choice("population", "Population", "int", default=3, minimum=0),
            Choice("territory", "Territory", "json", default=d["territory"], help="[{area_id, unit, amount, quality}]"),
            Choice("neighbours", "Neighbours", "json", default=[], help="[{id, name, diplomacy, population, profile}]"),
            Choice("provinces", "Provinces (for war)", "json", default=[]),
            Choice("pcs", "Player characters", "json", default={}),
            Choice("special_units", "Special units", "json", default=[]),
            Choice("militia", "Militia", "int", default=0, minimum=0),
            Choice("levy_dice", "Levy dice", "int", default=0, minimum=0),
            Choice("technology_level", "Technology level", "int", default=1, minimum=0),
            Choice("mobility", "Mobility", "int", default=0),
            Choice("fire_capable", "Fire-capable (magic/technology)", "bool", default=False),
        ]
    if step == "start":
        return [
            Choice("new_session", "Start a growth session (roll 5d10 years)", "bool", default=new_session_due(s)),
            Choice("gm_events", "Between-year events", "json", default=[],
                   help=f"[{{event: {'|'.join(GM_EVENTS)}, ...fields}}]"),
        ]
    if step == "events":
        return [
            Choice("neighbour_id", "Neighbour for result 10", "select", ("random", *neigh), default="random",
                   help="'random' rolls 1dN among independent neighbours (key 'pick')"),
            Choice("evil_ability", "Ability the evil afflicts (result 1)", "select", ABILITIES, default="stability"),
            Choice("god", "New god (result 13)", "select", ("embrace", "resist"), default="embrace"),
            Choice("war_target", "Neighbour war target (d6 = 2)", "select", ("other", PLAYERS), default="other"),
            Choice("support", "Support a side in a neighbour's war", "bool", default=False),
            Choice("participate", "Take part in a succession crisis", "bool", default=False),
            Choice("succession_skill", "Succession crisis skill", "select", ("diplomacy", "warfare", "magic"),
                   default="diplomacy"),
            Choice("plague_religion", "Try the Religion check against plague", "bool", default=True),
        ]
    if step == "growth":
        return adv
    if step == "actions":
        return [Choice("actions", f"Actions ({R.actions_per_year(s)} this year)", "json", default=default_actions(s),
                       help=f"[{{action: {'|'.join(ACTION_TYPES)}, performer, pc_id, pc_bonus, skill, target_track, "
                            "neighbour_id, use_positive, project_id, new_project, naval, casus_belli, "
                            "spend_stored, spend_year, take_10}]")]
    if step == "war":
        ours: list[dict[str, Any]] | None = None
        theirs: list[dict[str, Any]] | None = None
        if s.wars:
            enemy = war.enemy_of(s.wars[0])
            prof = s.neighbours[enemy].profile
            ours = [a.model_dump() for a in war.default_allocations(s, PLAYERS, s.militia, R.armies_max(s))]
            theirs = [a.model_dump() for a in war.default_allocations(s, enemy, prof.militia, prof.armies_max)]
        return [
            Choice("allocations", "Our armies (first war; empty = all militia in one army)", "json", default=ours,
                   help="[{army_id, province_id, militia}]"),
            Choice("enemy_allocations", "Enemy armies (first war)", "json", default=theirs),
            Choice("orders", "Our orders per war turn ({turn: [order]}; default: march and attack)", "json",
                   default={}),
            Choice("enemy_orders", "Enemy orders per war turn", "json", default={}),
            Choice("peace", "Peace attempts ({turn: {performer, pc_bonus, provinces_demanded}})", "json", default={}),
            Choice("extra_attacks", "General Staff's extra attack ({turn: order})", "json", default={}),
            *adv,
        ]
    if step == "end":
        return [
            Choice("law_and_order", "Law and Order track", "select", ("none", *TRACKS),
                   default=default_law_and_order(s) or "none"),
            Choice("tribe_revolution", "Tribe: revolt to reach level 5", "bool", default=False),
            Choice("benefits", "Level benefits chosen", "json", default=[],
                   help="[{level, benefit, feat, abilities, corruption_steps, skills, expertise}]"),
            Choice("technology_reduction", "Attrition reduction from technology", "int", default=0, minimum=0),
            *adv,
        ]
    raise InputError(f"unknown step {step!r}")


# --- decide -----------------------------------------------------------------------------------------


def decide(s: KingdomState, step: str, ch: Mapping[str, Any], dice: Dice) -> list[Draft]:
    known = {c.name for c in choices(s, step)}
    unknown = sorted(set(ch) - known)
    if unknown:
        raise InputError(f"step {step}: unknown choice(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    st = Stepper(s, step, dice)
    try:
        if step == "founding":
            _founding(st, ch)
        elif not s.founded:
            raise RuleError("found the kingdom first (turn 0)", rule="§8.3")
        elif s.fallen:
            if step == "start":
                _gm_events(st, ch)  # A81: only GM events after the fall
        elif step == "start":
            _start(st, ch)
        elif step == "events":
            _events(st, ch)
        elif step == "growth":
            st.resolve(GrowthRolled(check=_opts(ch)), "")
            st.after_change("")
        elif step == "actions":
            _actions(st, ch)
        elif step == "war":
            _war(st, ch)
        elif step == "end":
            _end(st, ch)
    except RuleError as exc:
        raise RuleError(str(exc).split(" (rule:")[0], rule=exc.rule, step=step) from None
    return st.drafts


def _founding(st: Stepper, ch: Mapping[str, Any]) -> None:
    d = {**default_founding(), **{k: v for k, v in ch.items()}}
    d["options"] = dict(st.state.options)
    st.add(_model(KingdomFounded, d, "founding"))


def _gm_events(st: Stepper, ch: Mapping[str, Any]) -> None:
    for i, raw in enumerate(ch.get("gm_events", []) or []):
        if not isinstance(raw, Mapping) or raw.get("event") not in GM_EVENTS:
            raise InputError(f"gm_events[{i}] needs event: one of {', '.join(GM_EVENTS)}")
        cls = GM_EVENTS[str(raw["event"])]
        body = {k: v for k, v in raw.items() if k != "event"}
        p = _model(cls, body, f"gm_events[{i}]")
        if isinstance(p, GovernmentChanged):
            st.resolve(p, f"gm{i}.")
        else:
            st.add(p)


def _start(st: Stepper, ch: Mapping[str, Any]) -> None:
    _gm_events(st, ch)
    s = st.state
    if _bool(ch, "new_session", new_session_due(s)):
        if s.session.session_no > 0 and s.session.years_played < s.session.years_total:
            raise RuleError(f"session {s.session.session_no} still has "
                            f"{s.session.years_total - s.session.years_played} year(s) to play", rule="§4.0")
        st.resolve(SessionStarted(session_no=s.session.session_no + 1), "")
    st.add(YearStarted(year=st.state.year + 1))
    s = st.state
    if s.population_rose_last_year and s.levy_dice < s.level:
        st.resolve(LevyDieGained(), "")


def _events(st: Stepper, ch: Mapping[str, Any]) -> None:
    ev = st.resolve(RandomEventRolled(), "")
    key = ev.audit["result_key"]
    if key == "evil_manifested":
        st.add(EvilManifested(ability=str(ch.get("evil_ability", "stability"))))
    elif key == "natural_disaster":
        st.resolve(NaturalDisasterResolved(), "")
    elif key == "plague":
        st.resolve(PlagueResolved(try_religion=_bool(ch, "plague_religion", True)), "")
    elif key == "new_god":
        st.resolve(NewGodAppeared(choice=ch.get("god", "embrace")), "")
    elif key == "neighbour_event":
        nid = ch.get("neighbour_id") or "random"
        nid = "" if nid == "random" else nid
        candidates = sorted(n.id for n in st.state.neighbours.values() if n.status == "independent")
        if not nid and candidates:
            nid = candidates[st.dice.roll("pick", f"1d{len(candidates)}").total - 1]
        if nid:
            st.resolve(NeighbourEventRolled(
                neighbour_id=nid, war_target=str(ch.get("war_target", "other")),
                support=_bool(ch, "support", False), participate=_bool(ch, "participate", False),
                skill=ch.get("succession_skill", "diplomacy")), "")
    st.after_change("")


def _actions(st: Stepper, ch: Mapping[str, Any]) -> None:
    s = st.state
    if s.pending_revolution:
        if ch.get("actions"):
            raise RuleError("a revolution tears the kingdom apart: the only action this year is the re-roll",
                            rule="§4.4.2 (§3.5 result 7)")
        st.resolve(RevolutionRolled(cause="pending"), "rev.")
        st.after_change("x")
        return
    acts = ch.get("actions", None)
    if acts is None:
        acts = default_actions(s)
    if not isinstance(acts, list):
        raise InputError("choice 'actions' must be a list")
    apy = R.actions_per_year(s)
    if len(acts) > apy:
        raise RuleError(f"{len(acts)} actions planned but the kingdom has {apy} per year at level {s.level}",
                        rule="§2.9 actions per year")
    for i, raw in enumerate(acts, start=1):
        if not isinstance(raw, Mapping):
            raise InputError(f"actions[{i}] must be an object")
        body = dict(raw)
        check = {k: body.pop(k) for k in ("spend_stored", "spend_year", "take_10") if k in body}
        p = _model(ActionTaken, {**body, "index": i, "check": check}, f"actions[{i}]")
        if st.state.actions_forfeited:
            raise RuleError(f"action {i}: no actions remain this year (war declared or revolution)",
                            rule="§4.4.3 (A51, A25)")
        st.resolve(p, f"a{i}.")
        st.after_change(str(i))


def _war(st: Stepper, ch: Mapping[str, Any]) -> None:
    s = st.state
    if s.pending_revolution and s.actions_forfeited:
        return  # A25: result 7 costs this year's war turns too
    for wi, w in enumerate(list(s.wars)):
        first = wi == 0
        enemy = war.enemy_of(w)
        pfx = "w." if first else f"w{wi + 1}."
        s = st.state
        if not any(x.war_id == w.war_id for x in s.wars):
            continue
        if w.armies_assigned_year != s.year:
            alloc = ch.get("allocations") if first else None
            if alloc is None:
                alloc = [a.model_dump() for a in war.default_allocations(s, PLAYERS, s.militia, R.armies_max(s))]
            nb = s.neighbours[enemy]
            ealloc = ch.get("enemy_allocations") if first else None
            if ealloc is None:
                ealloc = [a.model_dump() for a in war.default_allocations(s, enemy, nb.profile.militia,
                                                                          nb.profile.armies_max)]
            p = WarYearStarted(war_id=w.war_id,
                               allocations=tuple(_model(Allocation, a, "allocations") for a in alloc or []),
                               enemy_allocations=tuple(_model(Allocation, a, "enemy_allocations")
                                                       for a in ealloc or []),
                               check=_opts(ch) if first else CheckOptions())
            st.resolve(p, pfx)
        if _end_war(st, w.war_id, pfx + "end."):
            continue
        cur = war.get_war(st.state, w.war_id)
        for t in range(cur.war_turn + 1, cur.war_turns_this_year + 1):
            s = st.state
            cur = war.get_war(s, w.war_id)
            orders = (ch.get("orders") or {}).get(str(t)) if first else None
            eorders = (ch.get("enemy_orders") or {}).get(str(t)) if first else None
            peace = (ch.get("peace") or {}).get(str(t)) if first else None
            extra = (ch.get("extra_attacks") or {}).get(str(t)) if first else None
            p2 = WarTurnResolved(
                war_id=w.war_id, war_turn=t,
                orders=tuple(_model(Order, o, "orders") for o in orders) if orders is not None
                else war.default_orders(s, cur, PLAYERS),
                enemy_orders=tuple(_model(Order, o, "enemy_orders") for o in eorders) if eorders is not None
                else war.default_orders(s, cur, enemy),
                peace=_model(PeaceTerms, peace, "peace") if peace else None,
                extra_attack=_model(Order, extra, "extra_attacks") if extra else None)
            st.resolve(p2, f"{pfx}t{t}.")
            if _end_war(st, w.war_id, f"{pfx}t{t}.end."):
                break


def _end_war(st: Stepper, war_id: str, prefix: str) -> bool:
    s = st.state
    w = next((x for x in s.wars if x.war_id == war_id), None)
    if w is None:
        return True
    due = war.end_reason(s, w)
    if due is None:
        return False
    reason, winner = due
    st.resolve(WarEnded(war_id=war_id, reason=reason, winner=winner,
                        provinces_demanded=w.provinces_demanded), prefix)
    st.after_change(prefix, wars=False)
    return True


def _end(st: Stepper, ch: Mapping[str, Any]) -> None:
    s = st.state
    for wi, w in enumerate(list(s.wars)):
        pfx = "up." if wi == 0 else f"up{wi + 1}."
        st.resolve(WarUpkeepApplied(war_id=w.war_id, technology_reduction=int(ch.get("technology_reduction", 0))), pfx)
        _end_war(st, w.war_id, pfx + "end.")
        st.after_change(pfx)
    lao = ch.get("law_and_order", default_law_and_order(st.state) or "none")
    if lao and lao != "none":
        st.add(LawAndOrderUsed(track=str(lao)))
    st.add(FameGained(amount=1, source="survived_year"))
    s = st.state
    target = s.level
    while (target < 20 and s.fame >= R.fame_required(target + 1) and s.population >= R.population_required(target + 1)
           and target + 1 <= R.max_level(s)):
        target += 1
    if target > s.level:
        st.add(LevelChanged(from_level=s.level, to_level=target, cause="fame"))
        s = st.state
    if (s.government == "tribe" and s.level == 4 and s.fame >= R.fame_required(5)
          and s.population >= R.population_required(5) and _bool(ch, "tribe_revolution", False)):
        if s.revolution_rolled_this_year:
            raise RuleError("a revolution was already rolled this year", rule="§4.7 (A11)")
        st.resolve(RevolutionRolled(cause="tribe_level5"), "rev.tribe.")
        s = st.state
        if s.government != "tribe" and s.fame >= R.fame_required(5) and s.population >= R.population_required(5):
            st.add(LevelChanged(from_level=4, to_level=5, cause="fame"))
    elif _bool(ch, "tribe_revolution", False):
        raise RuleError("only a level-4 Tribe meeting level 5's requirements may revolt to rise", rule="§3.1 (A26)")
    s = st.state
    if s.population < R.population_required(s.level):
        st.resolve(LevelHoldChecked(check=_opts(ch)), "hold.")
        s = st.state
    for i, raw in enumerate(ch.get("benefits", []) or []):
        st.add(_model(BenefitChosen, raw, f"benefits[{i}]"))
    st.add(YearEnded(year=st.state.year))
    s = st.state
    if s.session.session_no and s.session.years_played == s.session.years_total:
        st.add(SessionEnded(session_no=s.session.session_no))


def gm_event_names() -> tuple[str, ...]:
    return tuple(GM_EVENTS)

