"""Resolvers: one pure function per dice-carrying event, shared by ``decide`` and ``evolve``.

Each takes the state, the event's inputs and a dice ``Tape`` and returns the new
state and an audit of what the rules computed. ``decide`` runs it with a
recording tape (rolling), ``evolve`` with a replay tape (reading recorded faces).
Rule violations raise ``RuleError`` naming the spec section.
"""

from __future__ import annotations

import math
from typing import Any

from kingdomlog.core.errors import RuleError
from kingdomlog.core.ruleset import Breakdown, Term
from kingdomlog.rulesets.aikakirjat import rules as R
from kingdomlog.rulesets.aikakirjat import tables
from kingdomlog.rulesets.aikakirjat.events import (
    ActionTaken,
    CheckOptions,
    GovernmentChanged,
    GrowthRolled,
    LevelHoldChecked,
    LevyDieGained,
    NaturalDisasterResolved,
    NeighbourEventRolled,
    NewGodAppeared,
    PlagueResolved,
    RandomEventRolled,
    RevolutionRolled,
    SessionStarted,
)
from kingdomlog.rulesets.aikakirjat.state import (
    BuildingProject,
    Institution,
    KingdomState,
    Neighbour,
    War,
)
from kingdomlog.rulesets.aikakirjat.tables import TRACKS
from kingdomlog.rulesets.aikakirjat.tape import Tape

Audit = dict[str, Any]
PLAYERS = "players"


def _flag(s: KingdomState, flag: str) -> KingdomState:
    return s if flag in s.year_flags else s.model_copy(update={"year_flags": (*s.year_flags, flag)})


def _spec(kind: str, opts: CheckOptions, **kw: Any) -> R.CheckSpec:
    return R.CheckSpec(kind=kind, spend_stored=opts.spend_stored, spend_year=opts.spend_year,
                       take_10=opts.take_10, **kw)


def event_unrest(s: KingdomState, die: int) -> int:
    """Unrest from a random event, less one with Social Welfare (§3.6, A35)."""
    return max(0, die - (1 if R.has_feat(s, "social_welfare") else 0))


def set_neighbour(s: KingdomState, n: Neighbour) -> KingdomState:
    return s.model_copy(update={"neighbours": {**s.neighbours, n.id: n}})


def change_diplomacy(s: KingdomState, nid: str, delta: int, *, allow_11: bool = False) -> tuple[KingdomState, bool]:
    """Change a neighbour's diplomacy, clamped (A41); 11 means annexation. Returns (state, annexed)."""
    n = s.neighbours[nid]
    value = R.clamp_diplomacy(n.diplomacy + delta, allow_11)
    annexed = value >= 11
    n = n.model_copy(update={"diplomacy": min(value, 10) if not annexed else 11,
                             "status": "annexed" if annexed else n.status})
    return set_neighbour(s, n), annexed


def start_war(s: KingdomState, war_id: str, attacker: str, defender: str) -> KingdomState:
    """A war begins (§4.5.1): the enemy's status, +5 fame for the players (§3.3, A72)."""
    enemy = attacker if defender == PLAYERS else defender
    if enemy not in s.neighbours:
        raise RuleError(f"no neighbour {enemy!r} to be at war with", rule="§4.5")
    if any(w.war_id == war_id for w in s.wars):
        raise RuleError(f"war id {war_id!r} already exists", rule="§2.13")
    if any(enemy in (w.attacker, w.defender) for w in s.wars):
        raise RuleError(f"already at war with {enemy!r}", rule="§4.5")
    war = War(war_id=war_id, attacker=attacker, defender=defender, started_year=s.year)
    s = set_neighbour(s, s.neighbours[enemy].model_copy(update={"status": "at_war_with_players"}))
    return s.model_copy(update={"wars": (*s.wars, war), "fame": s.fame + 5})


def auto_war_due(s: KingdomState) -> list[str]:
    """Neighbours that declare war on the players automatically (§3.8, A40)."""
    out = []
    at_war = {w.attacker for w in s.wars} | {w.defender for w in s.wars}
    margin = int(R.opt(s, "slightly_larger"))
    for n in s.neighbours.values():
        if n.status != "independent" or n.id in at_war:
            continue
        if (n.diplomacy <= -8 and s.population < n.population) or (
            n.diplomacy <= -10 and s.population <= n.population + margin
        ):
            out.append(n.id)
    return out


# --- sessions and step 0 -------------------------------------------------------------------


def session_started(s: KingdomState, e: SessionStarted, tape: Tape) -> tuple[KingdomState, Audit]:
    """§4.0: the session plays 5d10 years."""
    if e.session_no != s.session.session_no + 1:
        raise RuleError(f"session {e.session_no} does not follow session {s.session.session_no}", rule="§4.0")
    r = tape.roll("years", "5d10")
    sess = s.session.model_copy(update={"session_no": e.session_no, "years_total": r.total, "years_played": 0})
    return s.model_copy(update={"session": sess}), {"years_total": r.total}


def levy_die_gained(s: KingdomState, e: LevyDieGained, tape: Tape) -> tuple[KingdomState, Audit]:
    """§2.4 / §4.1.3: a levy die when population rose and dice < level; gain = max(0, die + Loyalty)."""
    if not s.population_rose_last_year:
        raise RuleError("no levy die: population did not rise last year", rule="§2.4")
    if s.levy_dice >= s.level:
        raise RuleError(f"no levy die: already {s.levy_dice} levy dice at level {s.level}", rule="§2.4")
    r = tape.roll("levy", f"1d{R.levy_die(s)}")
    lm = R.ability_modifier(s, "loyalty")
    gain = r.total + lm
    if R.opt(s, "levy_gain_floor"):
        gain = max(0, gain)
    before = s.militia
    s = s.model_copy(update={"levy_dice": s.levy_dice + 1})
    s = R.add_militia(s, gain)
    tape.explain(Breakdown("levy gain", gain, (Term(f"d{R.levy_die(s)}", r.total), Term("loyalty modifier", lm)),
                           f"militia {before} → {s.militia} (§2.4, A18)"))
    return s, {"die": r.total, "loyalty_modifier": lm, "gain": gain, "militia_before": before,
               "militia_after": s.militia}


# --- step 1 ----------------------------------------------------------------------------------


def random_event_rolled(s: KingdomState, e: RandomEventRolled, tape: Tape) -> tuple[KingdomState, Audit]:
    """§3.7 / §4.2: 2d6 + omen; the omen resets; simple results apply here."""
    r = tape.roll("event", "2d6")
    omen = s.omen_modifier
    total = r.total + omen
    key = tables.random_events()[total]
    s = s.model_copy(update={"omen_modifier": 0, "phase": "random_events"})
    if key == "poor_harvest":
        s = _flag(s, "growth_disadvantage")
    elif key == "bad_omens":
        s = s.model_copy(update={"omen_modifier": -1})
    elif key == "good_omens":
        s = s.model_copy(update={"omen_modifier": 1})
    elif key == "good_harvest":
        s = _flag(s, "growth_advantage")
    elif key == "trade_boom":
        s = _flag(s, "economy_advantage")
    return s, {"omen": omen, "total": total, "result_key": key}


def natural_disaster(s: KingdomState, e: NaturalDisasterResolved, tape: Tape) -> tuple[KingdomState, Audit]:
    """Result 2 (§4.2): 4d6 Decay points, d6 Unrest (less Social Welfare)."""
    d = tape.roll("disaster.decay", "4d6")
    u = tape.roll("disaster.unrest", "1d6")
    s = R.change_track(s, "decay", d.total)
    unrest = event_unrest(s, u.total)
    s = R.add_unrest(s, unrest)
    return s, {"decay": d.total, "unrest": unrest}


def plague(s: KingdomState, e: PlagueResolved, tape: Tape) -> tuple[KingdomState, Audit]:
    """Result 3 (§4.2, A34, A35): 20% less 10 points per DC 15 success, rounded up once."""
    pct = 20
    c1, s = R.roll_check(s, _spec("ability", e.stability, ability="stability"), tape, "plague.stability", dc=15)
    audit: Audit = {"stability": c1.audit()}
    if c1.meets(15):
        pct -= 10
    if e.try_religion and "religion" in R.proficiencies(s):
        c2, s = R.roll_check(s, _spec("skill", e.religion, skill="religion"), tape, "plague.religion", dc=15)
        audit["religion"] = c2.audit()
        if c2.meets(15):
            pct -= 10
    loss = math.ceil(s.population * pct / 100)
    if loss > 0 and R.has_feat(s, "social_welfare"):
        loss = max(1, loss - 1)
    s = R.set_population(s, s.population - loss)
    u = tape.roll("plague.unrest", "1d6")
    unrest = event_unrest(s, u.total)
    s = R.add_unrest(s, unrest)
    return s, {**audit, "pct": pct, "loss": loss, "unrest": unrest}


def new_god(s: KingdomState, e: NewGodAppeared, tape: Tape) -> tuple[KingdomState, Audit]:
    """Result 13 (§3.7): embracing gives a Cult on 1, a Temple on 2+; resisting does nothing (A32)."""
    if e.choice == "resist":
        return s, {"institution": None}
    r = tape.roll("god", "1d6")
    kind = "cult" if r.total == 1 else "temple"
    inst = Institution(id=f"{kind}-{s.year}", type=kind, founded_year=s.year, founder="event")
    return s.model_copy(update={"institutions": (*s.institutions, inst)}), {"institution": kind}


def neighbour_event(s: KingdomState, e: NeighbourEventRolled, tape: Tape) -> tuple[KingdomState, Audit]:
    """Result 10 (§3.8, §4.2, A36-A38): d6 on the neighbour table and its follow-ups."""
    n = s.neighbours.get(e.neighbour_id)
    if n is None or n.status != "independent":
        raise RuleError(f"neighbour {e.neighbour_id!r} is not an independent neighbour", rule="§3.8")
    r = tape.roll("neighbour", "1d6")
    key = tables.neighbour_events()[r.total]
    audit: Audit = {"result_key": key}
    if key in ("relations_cool", "relations_warm"):
        d = tape.roll("neighbour.diplomacy", "1d6")
        s, _ = change_diplomacy(s, n.id, d.total if key == "relations_warm" else -d.total)
        audit["diplomacy"] = s.neighbours[n.id].diplomacy
    elif key == "war":
        audit["target"] = e.war_target
        if e.war_target == PLAYERS:
            s = start_war(s, f"war-{s.year}-{n.id}", n.id, PLAYERS)
        elif e.support:
            d = tape.roll("neighbour.support", "1d4")
            s, _ = change_diplomacy(s, n.id, d.total)
            audit["diplomacy"] = s.neighbours[n.id].diplomacy
    elif key == "criminals":
        bonus = n.profile.trade_bonus if e.npc_trade_bonus is None else e.npc_trade_bonus
        npc = tape.roll("criminals.trade", "1d20")
        dc = npc.total + bonus + abs(n.profile.crime_modifier)
        tape.explain(Breakdown("criminals DC", dc, (Term(f"{n.name} Trade d20", npc.total), Term("trade bonus", bonus),
                                                    Term("|crime modifier|", abs(n.profile.crime_modifier))), "A37"))
        c, s = R.roll_check(s, _spec("skill", e.defense, skill="defense"), tape, "criminals.defense", dc=dc)
        audit.update({"dc": dc, "defense": c.audit(), "success": c.meets(dc)})
        if not c.meets(dc):
            d = tape.roll("criminals.crime", "1d6")
            s = R.change_track(s, "crime", d.total)
            audit["crime"] = d.total
    elif key == "revolution":
        rv = tape.roll("neighbour.revolution", "2d6")
        rkey = tables.revolution_results()[rv.total]
        audit["revolution"] = rkey
        if rkey in tables.GOVERNMENTS:
            s = set_neighbour(s, n.model_copy(update={"profile": n.profile.model_copy(update={"government": rkey})}))
    elif key == "succession_crisis":
        audit["participated"] = e.participate
        if e.participate:
            dc = n.profile.stability_score
            tape.explain(Breakdown("succession DC", dc, (Term(f"{n.name} Stability score", dc),), "A38"))
            c, s = R.roll_check(s, _spec("skill", CheckOptions(), skill=e.skill), tape, "succession.check", dc=dc)
            d = tape.roll("succession.dice", "1d6")
            ok = c.meets(dc)
            s, annexed = change_diplomacy(s, n.id, d.total if ok else -d.total, allow_11=ok)
            audit.update({"dc": dc, "check": c.audit(), "success": ok, "annexed": annexed,
                          "diplomacy": s.neighbours[n.id].diplomacy})
    return s, audit


# --- step 2 ----------------------------------------------------------------------------------


def growth_rolled(s: KingdomState, e: GrowthRolled, tape: Tape) -> tuple[KingdomState, Audit]:
    """§4.3: living-space DC, then an Agriculture (Stability) check (A45); +1 on a success (A46)."""
    dc = R.growth_dc(s)
    area = R.effective_area(s)
    m, cr, n, sp = R.living_space_row(s, s.population)
    tape.explain(Breakdown("growth DC", dc if dc is not None else 0,
                           note=f"area {area:g} hexes vs min {m} / crowded {cr} / normal {n} / sparse {sp} (§3.9)"
                                + ("; no growth" if dc is None else "")))
    audit: Audit = {"dc": dc, "effective_area_hexes": area, "row": list(R.living_space_row(s, s.population))}
    s = s.model_copy(update={"phase": "growth"})
    if dc is None:
        return s, {**audit, "success": False}
    adv = ["good harvest (§3.7 result 11)"] if "growth_advantage" in s.year_flags else []
    dis = ["poor harvest (§3.7 result 4)"] if "growth_disadvantage" in s.year_flags else []
    if R.opt(s, "growth_check") == "stability":
        spec = _spec("ability", e.check, ability="stability", advantage=adv, disadvantage=dis)
    else:
        spec = _spec("skill", e.check, skill="agriculture", advantage=adv, disadvantage=dis)
    c, s = R.roll_check(s, spec, tape, "growth", dc=dc)
    ok = c.meets(dc)
    if ok:
        s = R.set_population(s, s.population + 1)
    return s, {**audit, "check": c.audit(), "success": ok}


# --- step 3: actions ---------------------------------------------------------------------------

PC_ACTIONS = {"embassy": ("persuasion",), "reduce_corruption": ("investigation",), "declare_war": ("persuasion",),
              "reduce_unrest": ("persuasion", "intimidation")}
"""The actions a PC (or the Court notable) may perform, and the PC's skills for each (A75)."""


def action_words(action: str) -> str:
    """An action's id as words.

    >>> action_words("attract_population")
    'Attract Population'
    """
    return action.replace("_", " ").title()


def _check_action_allowed(s: KingdomState, e: ActionTaken) -> None:
    apy = R.actions_per_year(s)
    if s.pending_revolution:
        raise RuleError("a revolution tears the kingdom apart: this year's actions are the revolution re-roll",
                        rule="§4.4.2 (§3.5 result 7)")
    if s.actions_forfeited:
        raise RuleError("no more actions this year (war declared or revolution result 7)", rule="§4.4.3 (A51, A25)")
    if s.actions_used >= apy:
        raise RuleError(f"the kingdom has {apy} action(s) per year at level {s.level} and has used them all",
                        rule="§2.9 actions per year")
    if e.index != s.actions_used + 1:
        raise RuleError(f"action index {e.index} out of order (next is {s.actions_used + 1})", rule="§4.4")
    if e.performer == "kingdom":
        if e.action == "reduce_unrest":
            raise RuleError("Reduce Unrest must be given to a PC (or the Court notable)", rule="§3.10.7")
        return
    if e.action not in PC_ACTIONS:
        raise RuleError(f"a PC cannot perform {action_words(e.action)}; a PC may take "
                        f"{', '.join(action_words(a) for a in PC_ACTIONS)}", rule="A75")
    who = e.pc_id if e.performer == "pc" else "court"
    if e.performer == "pc" and (e.pc_id is None or e.pc_id not in s.pcs):
        raise RuleError(f"unknown PC {e.pc_id!r}", rule="§2.15")
    if e.performer == "court" and s.highest_level_reached < 10:
        raise RuleError("the kingdom has no Court notable before level 10", rule="§3.2 Court")
    if who in s.pc_assignments_this_year:
        name = s.pcs[who].name if who in s.pcs else "the Court notable"
        raise RuleError(f"{name} already performed an action this year", rule="A75")


def _action_spec(s: KingdomState, e: ActionTaken, skill: str, **kw: Any) -> R.CheckSpec:
    if e.performer == "kingdom":
        return _spec("skill", e.check, skill=skill, situational=list(e.situational), **kw)
    if e.check.spend_stored or e.check.spend_year or e.check.take_10:
        raise RuleError("advantages and Competent Administration apply only to kingdom checks, not a PC's",
                        rule="A50, §3.6")
    pc_skill = e.skill or PC_ACTIONS[e.action][0]
    bonus = e.pc_bonus if e.performer == "pc" else 3 + R.proficiency_bonus(s)
    who = e.pc_id if e.performer == "pc" else "court notable"
    return R.CheckSpec(kind="pc", bonus=bonus, label=f"{who} {pc_skill}", situational=list(e.situational),
                       advantage=kw.get("advantage", []))


AIMED = ("embassy", "attract_population", "declare_war")
"""The actions aimed at a neighbour (``neighbour_id``: §3.10.1, §3.10.2, §3.10.6)."""


def _neighbour(s: KingdomState, nid: str | None, rule: str) -> Neighbour:
    if nid is None or nid not in s.neighbours:
        raise RuleError(f"choose the neighbour the action is aimed at: "
                        f"{', '.join(n.name for n in s.neighbours.values()) or '(none known)'}", rule=rule)
    n = s.neighbours[nid]
    if n.status != "independent":
        raise RuleError(f"{n.name} is {n.status}", rule=rule)
    return n


def _tracks_d(s: KingdomState, tape: Tape, prefix: str, tracks_: tuple[str, ...],
              notation: str) -> tuple[KingdomState, Audit]:
    out: Audit = {}
    for t in tracks_:
        v = int(notation) if notation.isdigit() else tape.roll(f"{prefix}.{t}", notation).total
        s = R.change_track(s, t, v)
        out[t] = v
    return s, out


def action_taken(s: KingdomState, e: ActionTaken, tape: Tape) -> tuple[KingdomState, Audit]:
    """One action of §3.10, resolved with its follow-up dice."""
    _check_action_allowed(s, e)
    a = e.action
    audit: Audit = {}
    key = "check"
    if a == "embassy":
        n = _neighbour(s, e.neighbour_id, "§3.10.1")
        if e.performer == "pc" and e.skill not in (None, "persuasion"):
            raise RuleError("a PC's Embassy uses Persuasion", rule="§3.10.1")
        dc = 5 + 2 * abs(n.diplomacy)
        tape.explain(Breakdown("embassy DC", dc, (Term("base", 5), Term(f"2 × |diplomacy {n.diplomacy}|",
                                                                         2 * abs(n.diplomacy))), "§3.10.1"))
        c, s = R.roll_check(s, _action_spec(s, e, "diplomacy"), tape, key, dc=dc)
        if c.meets(dc):
            s, annexed = change_diplomacy(s, n.id, 1, allow_11=True)
            outcome = "annexed" if annexed else "improved"
        elif c.total < dc - 5:
            s, _ = change_diplomacy(s, n.id, -1)
            outcome = "worsened"
        else:
            outcome = "no_effect"
        audit = {"dc": dc, "check": c.audit(), "band": outcome, "diplomacy": s.neighbours[n.id].diplomacy}
    elif a == "attract_population":
        n = _neighbour(s, e.neighbour_id, "§3.10.2")
        sit: list[tuple[str, int]] = []
        if e.use_positive:
            sit.append((f"{e.use_positive} used positively (A10)", abs(s.tracks[e.use_positive].modifier)))
        spec = _action_spec(s, e, "trade", replace_corruption=e.use_positive == "crime")
        spec.situational += sit
        c, s = R.roll_check(s, spec, tape, key, bands=a)
        band = tables.band_for(a, c.total)
        audit = {"check": c.audit(), "band": band}
        if e.use_positive:
            d = tape.roll("positive", "1d6")
            s = R.change_track(s, e.use_positive, d.total)
            audit["positive_points"] = d.total
        gained = 0
        if band == "incident":
            d = tape.roll("incident", "1d6")
            s, _ = change_diplomacy(s, n.id, -d.total)
            audit["diplomacy"] = s.neighbours[n.id].diplomacy
        elif band == "not_their_best":
            gained = 1
            w = tape.roll("which", "1d6").total
            track = "decadence" if w == 1 else "corruption" if w <= 3 else "crime"
            p = tape.roll("points", "1d6").total
            s = R.change_track(s, track, p)
            audit["not_their_best"] = {"track": track, "points": p}
        elif band in ("one", "two"):
            gained = 1 if band == "one" else 2
        if gained:
            s = R.set_population(s, s.population + gained)
            nn = s.neighbours[n.id]
            s = set_neighbour(s, nn.model_copy(update={"population": max(0, nn.population - gained)}))
        audit["population_gained"] = gained
    elif a == "research":
        working = [i for i in s.institutions if i.type in ("academy", "university")
                   and (i.disabled_until_year is None or s.year > i.disabled_until_year)]
        if not working:
            raise RuleError("research needs a working academy or university", rule="§3.10.3 (A48)")
        inst = working[0] if e.institution_id is None else next((i for i in working if i.id == e.institution_id), None)
        if inst is None:
            raise RuleError(f"institution {e.institution_id!r} is not a working academy or university", rule="§3.10.3")
        skill = e.skill or "science"
        if skill not in ("science", "magic"):
            raise RuleError("research uses Science, or Magic for occult projects", rule="§3.10.3")
        c, s = R.roll_check(s, _action_spec(s, e, skill), tape, key, bands=a)
        band = tables.band_for(a, c.total)
        audit = {"check": c.audit(), "band": band, "institution": inst.id}
        if band == "catastrophe":
            yrs = tape.roll("disabled", "1d6").total
            dec = tape.roll("decay", "1d6").total
            insts = tuple(i.model_copy(update={"disabled_until_year": s.year + yrs}) if i.id == inst.id else i
                          for i in s.institutions)
            s = R.change_track(s.model_copy(update={"institutions": insts}), "decay", dec)
            audit.update({"disabled_years": yrs, "decay": dec})
        elif band in ("one", "two"):
            s = s.model_copy(update={"research_points": s.research_points + (1 if band == "one" else 2)})
    elif a == "reduce_corruption":
        t = e.target_track
        if t not in TRACKS:
            raise RuleError(f"Reduce Corruption needs a target track ({', '.join(TRACKS)})", rule="§3.10.4")
        skill = "construction" if t == "decay" else "religion"
        c, s = R.roll_check(s, _action_spec(s, e, skill), tape, key, bands=a)
        band = tables.band_for(a, c.total)
        audit = {"check": c.audit(), "band": band}
        others = tuple(x for x in TRACKS if x != t)
        if band == "tyranny":
            u = tape.roll("unrest", "1d4").total
            s = R.add_unrest(s, u)
            audit["unrest"] = u
        elif band in ("10-19", "20-29", "30+"):
            red = tape.roll("target", "2d6" if band == "30+" else "1d6").total
            s = R.change_track(s, t, -red)
            audit["target_reduction"] = red
            if band == "20-29":
                for x in others:
                    s = R.change_track(s, x, -1)
                audit["others"] = dict.fromkeys(others, 1)
            elif band == "30+":
                other: Audit = {}
                for x in others:
                    v = tape.roll(f"other.{x}", "1d6").total
                    s = R.change_track(s, x, -v)
                    other[x] = v
                u = tape.roll("unrest", "1d6").total
                s = R.add_unrest(s, -u)
                audit.update({"others": other, "unrest_reduction": u})
    elif a == "tax_collection":
        adv = ["Census (§3.6)"] if R.has_feat(s, "census") else []
        c, s = R.roll_check(s, _action_spec(s, e, "bureaucracy", advantage=adv), tape, key, bands=a)
        band = tables.band_for(a, c.total)
        audit = {"check": c.audit(), "band": band}
        if band == "tyranny":
            u = tape.roll("unrest", "1d4").total
            s = R.add_unrest(s, u)
            s, tr = _tracks_d(s, tape, "tyranny", ("crime", "corruption"), "1d6")
            audit.update({"unrest": u, "tracks": tr})
        elif band == "year_advantage" and e.take_advantage:
            s = s.model_copy(update={"year_advantages": s.year_advantages + 1})
            s = R.add_unrest(s, 1)
            v = tape.roll("corruption", "1d6").total
            s = R.change_track(s, "corruption", v)
            audit.update({"advantage_taken": True, "corruption": v})
        elif band in ("store_one", "store_two"):
            s = s.model_copy(update={"stored_advantages": s.stored_advantages + (1 if band == "store_one" else 2)})
    elif a == "declare_war":
        n = _neighbour(s, e.neighbour_id, "§3.10.6")
        adv = (["Military Traditions (§3.6)"] if R.has_feat(s, "military_traditions") else []) + (
            ["casus belli"] if e.casus_belli else [])
        c, s = R.roll_check(s, _action_spec(s, e, "warfare", advantage=adv), tape, key, bands=a)
        band = tables.band_for(a, c.total)
        audit = {"check": c.audit(), "band": band}
        if band == "tyranny":
            u = tape.roll("unrest", "1d6").total
            s = R.add_unrest(s, u)
            s, tr = _tracks_d(s, tape, "tyranny", ("crime", "corruption", "decay"), "1d6")
            audit.update({"unrest": u, "tracks": tr})
        elif band == "unpopular":
            u = tape.roll("unrest", "1d4").total
            s = R.add_unrest(s, u)
            s, tr = _tracks_d(s, tape, "unpopular", ("crime", "corruption", "decay"), "1")
            audit.update({"unrest": u, "tracks": tr})
        elif band == "eager":
            g = tape.roll("eager", f"1d{R.militia_damage_die(s)}").total
            s = R.add_militia(s, g, capped=False)
            audit["militia_gained"] = g
        s = start_war(s, f"war-{s.year}-{n.id}", PLAYERS, n.id)
        s = s.model_copy(update={"actions_forfeited": True, "war_declared_this_year": True})
        audit["war_id"] = f"war-{s.year}-{n.id}"
    elif a == "reduce_unrest":
        skill = e.skill or "persuasion"
        if skill not in ("persuasion", "intimidation"):
            raise RuleError("Reduce Unrest uses Persuasion or Intimidation", rule="§3.10.7")
        c, s = R.roll_check(s, _action_spec(s, e, skill), tape, key, bands=a)
        band = tables.band_for(a, c.total)
        audit = {"check": c.audit(), "band": band, "skill": skill}
        table = {("persuasion", "15-24"): -4, ("persuasion", "25+"): -6, ("intimidation", "below_5"): 6,
                 ("intimidation", "15-24"): -6, ("intimidation", "25+"): -8}
        sides = table.get((skill, band))
        if sides is not None:
            v = tape.roll("unrest", f"1d{abs(sides)}").total
            s = R.add_unrest(s, v if sides > 0 else -v)
            audit["unrest_change"] = v if sides > 0 else -v
    elif a == "equip":
        c, s = R.roll_check(s, _action_spec(s, e, "crafting"), tape, key, bands=a)
        band = tables.band_for(a, c.total)
        audit = {"check": c.audit(), "band": band}
        count = {"one": 1, "two": 2, "three": 3, "three_jobs": 3}.get(band, 0)
        if band == "abyss":
            s, tr = _tracks_d(s, tape, "abyss", ("crime", "corruption"), "1d6")
            audit["tracks"] = tr
        if e.naval > count:
            raise RuleError(f"{e.naval} naval dice asked but only {count} gained", rule="§3.10.8 (A53)")
        if count:
            lm = R.ability_modifier(s, "loyalty")
            levy_gains = []
            for i in range(count - e.naval):
                g = max(0, tape.roll(f"levy{i + 1}", f"1d{R.levy_die(s)}").total + lm)
                s = R.add_militia(s, g)
                levy_gains.append(g)
            s = s.model_copy(update={"naval_dice": s.naval_dice + e.naval})
            audit.update({"dice": count, "naval": e.naval, "levy_gains": levy_gains, "militia": s.militia})
        if band == "three_jobs":
            u = tape.roll("unrest", "1d4").total
            s = R.add_unrest(s, -u)
            audit["unrest_reduction"] = u
    elif a == "building_project":
        projects = list(s.building_projects)
        if e.new_project is not None:
            if any(p.id == e.new_project.id for p in projects):
                raise RuleError(f"project {e.new_project.id!r} already exists", rule="§3.10.9")
            if e.new_project.points_required < 1:
                raise RuleError("a project needs at least 1 point", rule="§3.10.9")
            np_ = e.new_project
            projects.append(BuildingProject(id=np_.id, name=np_.name, points_required=np_.points_required,
                                            kind=np_.kind, province_id=np_.province_id))
            pid = np_.id
        else:
            pid = e.project_id or ""
        proj = next((p for p in projects if p.id == pid and not p.completed), None)
        if proj is None:
            raise RuleError(f"no open building project {pid!r}", rule="§3.10.9")
        c, s = R.roll_check(s, _action_spec(s, e, "construction"), tape, key, bands=a)
        band = tables.band_for(a, c.total)
        audit = {"check": c.audit(), "band": band, "project": pid}
        pts = {"slow": 1, "one": 1, "two": 2, "three": 3, "three_jobs": 3}.get(band, 0)
        if band == "vanity":
            s = R.add_unrest(s, 1)
        if band == "slow":
            v = tape.roll("decay", "1d4").total
            s = R.change_track(s, "decay", v)
            audit["decay"] = v
        if band == "three_jobs":
            u = tape.roll("unrest", "1d4").total
            s = R.add_unrest(s, -u)
            audit["unrest_reduction"] = u
        done = proj.points + pts >= proj.points_required
        proj = proj.model_copy(update={"points": proj.points + pts, "completed": done})
        projects = [proj if p.id == pid else p for p in projects]
        s = s.model_copy(update={"building_projects": tuple(projects)})
        if done and proj.province_id and proj.province_id in s.provinces and proj.kind in ("road", "highway"):
            prov = s.provinces[proj.province_id]
            prov = prov.model_copy(update={"has_road": True} if proj.kind == "road" else {"has_highway": True})
            s = s.model_copy(update={"provinces": {**s.provinces, prov.id: prov}})
        audit.update({"points": pts, "completed": done})
    who: tuple[str, ...] = ()
    if e.performer == "pc" and e.pc_id:
        who = (e.pc_id,)
    elif e.performer == "court":
        who = ("court",)
    s = s.model_copy(update={"actions_used": s.actions_used + 1, "phase": "actions",
                             "pc_assignments_this_year": (*s.pc_assignments_this_year, *who)})
    return s, audit


# --- revolution (§3.5, §4.7) -------------------------------------------------------------------


def apply_government(s: KingdomState, gov: str, tape: Tape, prefix: str) -> tuple[KingdomState, Audit]:
    """Power changes hands (§4.7): new government, renormalise, Unrest −d6 (max 19), +d8 per track."""
    if gov not in tables.GOVERNMENTS:
        raise RuleError(f"unknown government {gov!r}", rule="§3.4")
    old = s.government
    s = R.renormalise(s.model_copy(update={"government": gov}))
    u = tape.roll(f"{prefix}unrest", "1d6").total
    s = s.model_copy(update={"unrest": min(19, max(0, s.unrest - u)), "pending_revolution": False})
    tr: Audit = {}
    for t in TRACKS:
        v = tape.roll(f"{prefix}corruption.{t}", "1d8").total
        s = R.change_track(s, t, v)
        tr[t] = v
    if s.level > R.max_level(s):
        s = s.model_copy(update={"level": R.max_level(s)})
    return s, {"from": old, "government": gov, "unrest_reduction": u, "corruption": tr}


def _revolution_result(s: KingdomState, result: str, tape: Tape, prefix: str, e: RevolutionRolled,
                       depth: int) -> tuple[KingdomState, Audit]:
    audit: Audit = {"result_key": result}
    if result in tables.GOVERNMENTS or result == "tribe":
        gov = result
        if result == "tribe" and s.level > 4:
            gov = "feudalism"
        s, a = apply_government(s, gov, tape, prefix)
        audit.update(a)
    elif result == "torn_apart":
        s = s.model_copy(update={"pending_revolution": True, "actions_forfeited": True})
    elif result == "calmed":
        u = tape.roll(f"{prefix}unrest", "1d8").total
        s = _flag(s.model_copy(update={"unrest": max(0, s.unrest - u)}), "economy_disadvantage")
        s = s.model_copy(update={"pending_revolution": False})
        audit["unrest_reduction"] = u
    elif result == "fizzled":
        u = tape.roll(f"{prefix}unrest", "1d10").total
        s = s.model_copy(update={"unrest": max(0, s.unrest - u), "pending_revolution": False})
        audit["unrest_reduction"] = u
    elif result == "split":
        parts = tape.roll(f"{prefix}parts", "1d4").total + 1
        keep = e.keep_population if e.keep_population is not None else math.ceil(s.population / parts)
        if not 0 <= keep <= s.population:
            raise RuleError("the continuing part's population must be between 0 and the kingdom's", rule="A24")
        rest = s.population - keep
        neigh = dict(s.neighbours)
        for i in range(1, parts):
            share = rest // (parts - 1) + (1 if i <= rest % (parts - 1) else 0)
            nid = f"split-{s.year}-{i}"
            neigh[nid] = Neighbour(id=nid, name=f"{s.name} part {i + 1}", diplomacy=0, population=share)
        s = s.model_copy(update={"population": keep, "neighbours": neigh, "militia": min(s.militia, keep)})
        audit.update({"parts": parts, "population_kept": keep})
        if depth < 5:
            rr = tape.roll(f"{prefix}reroll{depth + 1}", "2d6").total
            s, sub = _revolution_result(s, tables.revolution_results()[rr], tape, f"{prefix}r{depth + 1}.", e,
                                        depth + 1)
            audit["reroll"] = sub
    return s, audit


def revolution_rolled(s: KingdomState, e: RevolutionRolled, tape: Tape) -> tuple[KingdomState, Audit]:
    """§4.7: roll 2d6 on the revolution table and apply the result."""
    if e.cause == "unrest" and s.revolution_due != "unrest":
        raise RuleError("no revolution is due: Unrest has not risen to the threshold this year", rule="§4.7 (A11)")
    if e.cause == "pending" and not s.pending_revolution:
        raise RuleError("no revolution is pending", rule="§4.7 (iii)")
    if e.cause == "tribe_level5" and not (s.government == "tribe" and s.level == 4):
        raise RuleError("only a level-4 Tribe can choose revolution to reach level 5", rule="§3.1 (A26)")
    r = tape.roll("roll", "2d6").total
    result = tables.revolution_results()[r]
    s = s.model_copy(update={"revolution_rolled_this_year": True, "revolution_due": None})
    if e.cause == "pending":
        s = s.model_copy(update={"actions_forfeited": True})
    s, audit = _revolution_result(s, result, tape, "", e, 0)
    return s, {"roll": r, **audit}


def government_changed(s: KingdomState, e: GovernmentChanged, tape: Tape) -> tuple[KingdomState, Audit]:
    """A PC-led revolution (A27): the story chooses the government; d6 and 4×d8 still apply."""
    return apply_government(s, e.to, tape, "")


def level_hold(s: KingdomState, e: LevelHoldChecked, tape: Tape) -> tuple[KingdomState, Audit]:
    """§3.1 holding the level (A14): DC 5 × missing population; failure drops to what population supports."""
    missing = R.population_required(s.level) - s.population
    if missing <= 0:
        raise RuleError("no hold check needed: population meets the level", rule="§3.1")
    dc = 5 * missing
    tape.explain(Breakdown("hold DC", dc, (Term(f"5 × missing population {missing}", dc),), "§3.1 (A14)"))
    ability = str(R.opt(s, "hold_level_ability"))
    c, s = R.roll_check(s, _spec("ability", e.check, ability=ability), tape, "hold", dc=dc)
    ok = c.meets(dc)
    audit: Audit = {"missing": missing, "dc": dc, "check": c.audit(), "success": ok}
    if not ok:
        new = max(1, s.population // 3)
        s = s.model_copy(update={"level": new, "levy_dice": min(s.levy_dice, new)})
        audit["level_after"] = new
    return s, audit
