"""The GM's policy for the years a growth session plans (§4.0): which actions, when to spend advantages, and why.

A ``Policy`` is data the GM sets once for a session (widgets on the session page, ``--policy`` on the command
line). ``year_choices`` turns it into one step's choices in a given state, with the reasons for each, read off
the rules' own numbers (``rules.check_numbers``: the modifier and d20 mode of the check the step will roll,
then the exact chance of each band of the action's table, §2.16 and §3.10). Nothing here rolls a die or writes.

Two policies:

- ``steward`` (the planner's default) plays for a stable, growing kingdom. Each action slot goes to the first
  of the GM's ``actions`` whose reason holds: Reduce Unrest by a PC or the Court once Unrest reaches the alarm
  (§3.10.7, the only action that lowers Unrest); Reduce Corruption of the worst track once its modifier drops
  (§3.10.4; every check of that ability pays it); an Embassy to a neighbour near an automatic war (§3.8);
  Attract Population from the friendliest neighbour (§3.10.2); a building project under way (§3.10.9); Tax
  Collection to bank advantages (§3.10.5). No action is taken whose bad band could raise Unrest to the
  revolution threshold (§4.7), nor Tax Collection while its chance of tyranny is above ``tax_max_risk``. A stored
  (or this year's) advantage is spent on a check in ``spend_on`` whose chance of the result that matters is
  below ``spend_below`` and rises by at least 10 points with advantage, keeping ``keep_stored`` in reserve;
  Competent Administration takes 10 on the growth roll when 10 makes it. Level benefits are chosen from the
  GM's preferences (feats, an ability or the corruption steps, skills). Wars and the events step keep the rules'
  defaults (a GM who wants another war plan overrides the year).
- ``simple`` is the rules' defaults of each step (``decide.default_choices``), the planner's policy before the
  steward: fix the worst corruption track, else attract population, else build, else tax; never spend.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from kingdomlog.core.errors import InputError
from kingdomlog.rulesets.aikakirjat import rules as R
from kingdomlog.rulesets.aikakirjat import tables
from kingdomlog.rulesets.aikakirjat.decide import default_choices
from kingdomlog.rulesets.aikakirjat.state import KingdomState
from kingdomlog.rulesets.aikakirjat.tables import TRACK_ABILITY, TRACKS

PolicyAction = Literal["reduce_unrest", "reduce_corruption", "embassy", "attract_population", "building_project",
                       "tax_collection", "research"]
SpendOn = Literal["growth", "actions", "hold", "war"]
Ability = Literal["culture", "economy", "loyalty", "stability"]

STEWARD_ACTIONS: tuple[PolicyAction, ...] = ("reduce_unrest", "reduce_corruption", "attract_population",
                                             "building_project", "research", "embassy", "tax_collection")
FEAT_ORDER = ("competent_administration", "social_welfare", "law_and_order", "census", "military_traditions",
              "fortified_land", "advanced_logistics", "naval_traditions", "general_staff", "skills")
SKILL_ORDER = ("religion", "bureaucracy", "trade", "diplomacy", "construction", "agriculture", "defense", "warfare",
               "crafting", "science", "magic", "seafaring")


class Policy(BaseModel):
    """The GM's policy for the years the planner fills in (every field has the steward's default)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Literal["steward", "simple"] = Field("steward", title="Policy",
                                               description="steward: plays the rules for a stable, growing kingdom;"
                                                           " simple: the rules' defaults of every step")
    actions: tuple[PolicyAction, ...] = Field(STEWARD_ACTIONS, title="Actions the policy may take",
                                              description="in priority order; each is taken when its reason holds")
    unrest_alarm: int = Field(8, ge=0, le=20, title="Unrest alarm",
                              description="from this Unrest on, an action goes to lowering it (§3.10.7)")
    unrest_performer: str | None = Field(None, title="Who reduces Unrest",
                                         description="a PC id or 'court'; empty: the Court notable once the kingdom"
                                                     " has one (level 10), else the highest-level resident PC")
    unrest_bonus: int = Field(0, title="That PC's Persuasion / Intimidation bonus",
                              description="the rules do not know PC sheets: enter the PC's own bonus (§2.16)")
    unrest_skill: Literal["auto", "persuasion", "intimidation"] = Field(
        "auto", title="Reduce Unrest with", description="auto: the skill that lowers Unrest more on average, never"
                                                        " Intimidation when its +1d6 could start a revolution")
    corruption_alarm: int = Field(-1, le=0, title="Repair a corruption track at modifier",
                                  description="Reduce Corruption once a track's modifier is at or below this")
    embassy_below: int = Field(-4, ge=-10, le=10, title="Embassy to neighbours at diplomacy",
                               description="at or below this (automatic war comes at −8 and −10, §3.8)")
    attract_min_diplomacy: int = Field(-10, ge=-10, le=10, title="Attract population from diplomacy",
                                       description="only from neighbours at or above this; never from one an"
                                                   " incident (−1d6 diplomacy) could push into an automatic war")
    tax_target: int = Field(2, ge=0, title="Stored advantages to bank",
                            description="collect taxes while fewer are stored")
    tax_max_risk: float = Field(0.15, ge=0, le=1, title="Largest chance of tyranny for Tax Collection",
                                description="a total below 5 costs 1d4 Unrest and 1d6 Crime and Corruption")
    spend_on: tuple[SpendOn, ...] = Field(("hold", "growth", "actions", "war"), title="Spend advantages on",
                                          description="the checks a stored advantage may go to")
    spend_below: float = Field(0.75, ge=0, le=1, title="Spend when the chance is below",
                               description="spend only on a check whose chance of the result that matters is lower")
    keep_stored: int = Field(0, ge=0, title="Advantages kept in reserve")
    feats: tuple[str, ...] = Field(FEAT_ORDER, title="Feats, in order of preference (§3.6)")
    asi_ability: Ability = Field("stability", title="Ability Score Improvement goes to",
                                 description="+2 here, unless two or more corruption steps can be used (A76)")
    skills: tuple[str, ...] = Field(SKILL_ORDER, title="Skills, in order of preference",
                                    description="for new proficiencies and expertise (§3.2, Skills feat)")
    create_god: bool = Field(False, title="Rising Power: create a god")


SIMPLE = Policy(name="simple")
STEWARD = Policy()

_PRESETS = {"steward": STEWARD, "simple": SIMPLE}


def parse_policy(items: Sequence[str], base: Policy | None = None) -> Policy:
    """A policy from ``NAME`` and ``KEY=VALUE`` items (values as JSON when they parse, lists comma-separated).

    >>> parse_policy(["simple"]).name
    'simple'
    >>> parse_policy(["unrest_alarm=6", "spend_on=growth,hold"]).spend_on
    ('growth', 'hold')
    """
    import json

    from pydantic import ValidationError

    data: dict[str, Any] = (base or STEWARD).model_dump()
    for item in items:
        if "=" not in item:
            if item not in _PRESETS:
                raise InputError(f"--policy {item!r}: a policy is {' or '.join(_PRESETS)}, or KEY=VALUE")
            data = {**data, **_PRESETS[item].model_dump(), "name": item}
            continue
        key, _, raw = item.partition("=")
        key = key.strip()
        if key not in Policy.model_fields:
            raise InputError(f"--policy {item!r}: unknown setting {key!r}; settings: {', '.join(Policy.model_fields)}")
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        if isinstance(Policy.model_fields[key].default, tuple) and isinstance(value, str):
            value = [v.strip() for v in value.split(",") if v.strip()]
        data[key] = value
    try:
        return Policy.model_validate(data)
    except ValidationError as exc:
        errs = "; ".join(f"{'.'.join(str(x) for x in e['loc'])}: {e['msg']}" for e in exc.errors()[:3])
        raise InputError(f"policy: {errs}") from None


# --- the odds of a check (§2.16), exact ---------------------------------------------------------------------


def d20_weights(mode: str) -> list[tuple[int, Fraction]]:
    """The d20 a check keeps, with its probability: 1/20 each; advantage (2k−1)/400; disadvantage (41−2k)/400.

    >>> sum(p for _, p in d20_weights("advantage")), d20_weights("take_10")
    (Fraction(1, 1), [(10, Fraction(1, 1))])
    """
    if mode == "take_10":
        return [(10, Fraction(1))]
    if mode == "advantage":
        return [(k, Fraction(2 * k - 1, 400)) for k in range(1, 21)]
    if mode == "disadvantage":
        return [(k, Fraction(41 - 2 * k, 400)) for k in range(1, 21)]
    return [(k, Fraction(1, 20)) for k in range(1, 21)]


def chance_at_least(modifier: int, dc: int, mode: str = "normal") -> float:
    """P(d20 + modifier ≥ DC) (meet or beat, A79; no natural 1/20, A80).

    >>> chance_at_least(2, 15), chance_at_least(2, 15, "advantage"), chance_at_least(3, 13, "take_10")
    (0.4, 0.64, 1.0)
    """
    return float(sum(p for k, p in d20_weights(mode) if k + modifier >= dc))


def band_chances(action: str, modifier: int, mode: str = "normal") -> dict[str, float]:
    """The chance of each band of ``action``'s table (§3.10).

    >>> band_chances("tax_collection", 1)["tyranny"]
    0.15
    """
    out: dict[str, Fraction] = {b.key: Fraction(0) for b in tables.bands()[action]}
    for k, p in d20_weights(mode):
        out[tables.band_for(action, k + modifier)] += p
    return {key: float(v) for key, v in out.items()}


def _pct(p: float) -> str:
    return f"{round(100 * p)}%"


# --- the steward's choices ------------------------------------------------------------------------------------


@dataclass
class Choice:
    """One step's choices and why the policy made them."""

    choices: dict[str, Any]
    reasons: list[str] = field(default_factory=list)


def _action_spec(s: KingdomState, body: dict[str, Any]) -> R.CheckSpec:
    """The check an action dict will roll (as ``resolve.action_taken`` builds it)."""
    a = body["action"]
    if body.get("performer", "kingdom") != "kingdom":
        bonus = body.get("pc_bonus", 0) if body.get("performer") == "pc" else 3 + R.proficiency_bonus(s)
        return R.CheckSpec(kind="pc", bonus=bonus)
    skill = {"embassy": "diplomacy", "attract_population": "trade", "tax_collection": "bureaucracy",
             "building_project": "construction", "research": body.get("skill") or "science",
             "reduce_corruption": "construction" if body.get("target_track") == "decay" else "religion"}[a]
    adv = ["Census (§3.6)"] if a == "tax_collection" and R.has_feat(s, "census") else []
    return R.CheckSpec(kind="skill", skill=skill, advantage=adv, spend_stored=bool(body.get("spend_stored")),
                       spend_year=bool(body.get("spend_year")))


def _numbers(s: KingdomState, body: dict[str, Any]) -> tuple[int, str]:
    return R.check_numbers(s, _action_spec(s, body))


RISKY_BANDS: dict[str, tuple[str, int]] = {
    "reduce_corruption": ("tyranny", 4), "tax_collection": ("tyranny", 4), "building_project": ("vanity", 1),
}
"""The band of an action's table that raises Unrest, and by how much at most (§3.10.4, §3.10.5, §3.10.9)."""


def _revolt_risk(s: KingdomState, body: dict[str, Any], unrest: int) -> float:
    """The chance that ``body``'s bad band raises Unrest to the revolution threshold (§4.7), 0 if it cannot."""
    risky = RISKY_BANDS.get(body["action"])
    if risky is None:
        return 0.0
    band, most = risky
    if not R.revolution_reached(s, unrest + most):
        return 0.0
    mod, mode = _numbers(s, body)
    return band_chances(body["action"], mod, mode)[band]


def incident_war(s: KingdomState, nid: str) -> bool:
    """Whether a diplomatic incident (−1d6, §3.10.2) could make ``nid`` declare war automatically (§3.8, A40):
    at −8 or less when it is larger than us, at −10 when we are at most ``slightly_larger`` larger."""
    n = s.neighbours[nid]
    worst = max(-10, n.diplomacy - 6)
    margin = int(R.opt(s, "slightly_larger"))
    return (worst <= -8 and s.population < n.population) or (worst <= -10 and s.population <= n.population + margin)


def _performer(s: KingdomState, policy: Policy, used: set[str]) -> tuple[dict[str, Any], str] | None:
    """Who reduces Unrest (§3.10.7, A52): the policy's PC or Court; by default the Court notable once the kingdom
    has one (level 10 reached, §3.2), else the highest-level resident PC; None when nobody is free."""
    who = policy.unrest_performer
    court = s.highest_level_reached >= 10 and "court" not in used
    if who == "court":
        return ({"performer": "court"}, f"the Court notable ({3 + R.proficiency_bonus(s):+d})") if court else None
    if who is not None:
        if who not in s.pcs or who in used:
            return None
        return ({"performer": "pc", "pc_id": who, "pc_bonus": policy.unrest_bonus},
                f"{s.pcs[who].name} ({policy.unrest_bonus:+d})")
    if court:
        return {"performer": "court"}, f"the Court notable ({3 + R.proficiency_bonus(s):+d})"
    pcs = sorted((p for p in s.pcs.items() if p[1].resident and p[0] not in used), key=lambda p: (-p[1].level, p[0]))
    if not pcs:
        return None
    pid, pc = pcs[0]
    return {"performer": "pc", "pc_id": pid, "pc_bonus": policy.unrest_bonus}, f"{pc.name} ({policy.unrest_bonus:+d})"


def _unrest_skill(s: KingdomState, policy: Policy, bonus: int, unrest: int) -> tuple[str, dict[str, float]]:
    """Persuasion or Intimidation (§3.10.7): the lower expected Unrest, never a +1d6 that could revolt."""
    mod = bonus + R.unrest_modifier(unrest)
    odds = band_chances("reduce_unrest", mod)
    if policy.unrest_skill != "auto":
        return policy.unrest_skill, odds
    persuade = -(odds["15-24"] * 2.5 + odds["25+"] * 3.5)
    intimidate = odds["below_5"] * 3.5 - odds["15-24"] * 3.5 - odds["25+"] * 4.5
    if odds["below_5"] > 0 and R.revolution_reached(s, unrest + 6):
        return "persuasion", odds
    return ("intimidation" if intimidate < persuade else "persuasion"), odds


def _spend(s: KingdomState, policy: Policy, on: SpendOn, left: int, chance: float, with_adv: float,
           what: str) -> tuple[bool, str | None]:
    """Whether to spend a stored advantage on a check (and the reason): in ``spend_on``, one in hand above the
    reserve, the chance below ``spend_below`` and at least 10 points better with it."""
    if on not in policy.spend_on or left <= policy.keep_stored:
        return False, None
    if chance >= policy.spend_below or with_adv - chance < 0.1:
        return False, None
    return True, f"spend a stored advantage on {what}: {_pct(chance)} → {_pct(with_adv)}"


def steward_actions(s: KingdomState, policy: Policy) -> Choice:
    """The year's actions (§4.4) and why; stored advantages spent on them where they matter."""
    n = R.actions_per_year(s) if not s.pending_revolution else 0
    out: list[dict[str, Any]] = []
    reasons: list[str] = []
    used_pcs: set[str] = set(s.pc_assignments_this_year)
    stored = s.stored_advantages
    unrest = s.unrest
    if s.pending_revolution:
        return Choice({"actions": []}, ["actions: the revolution re-roll takes the year's actions (§3.5 result 7)"])
    for slot in range(1, n + 1):
        picked: dict[str, Any] | None = None
        why = ""
        skipped: list[str] = []
        for kind in policy.actions:
            cand = _candidate(s, policy, kind, out, used_pcs, unrest, stored)
            if cand is None:
                continue
            body, because = cand
            risk = _revolt_risk(s, body, unrest)
            if risk > 0:
                skipped.append(f"{kind.replace('_', ' ')} ({_pct(risk)} chance its bad result starts a revolution)")
                continue
            picked, why = body, because
            break
        if picked is None:
            reasons.append(f"action {slot}: none — nothing is worth its risk this year"
                           + (f" (not taken: {'; '.join(skipped)})" if skipped else ""))
            continue
        if skipped:
            why += f" (not taken: {'; '.join(skipped)})"
        spend_note = _spend_on_action(s, policy, picked, stored)
        if spend_note:
            stored -= 1
            why += f"; {spend_note}"
        out.append(picked)
        if picked.get("performer") == "pc":
            used_pcs.add(str(picked["pc_id"]))
        elif picked.get("performer") == "court":
            used_pcs.add("court")
        reasons.append(f"action {slot}: {picked['action'].replace('_', ' ')} — {why}")
    return Choice({"actions": out}, reasons)


def _spend_on_action(s: KingdomState, policy: Policy, body: dict[str, Any], stored: int) -> str | None:
    """Spend a stored advantage on an action's check where the good band is unlikely (not on a PC's check, A50)."""
    a = body["action"]
    if body.get("performer", "kingdom") != "kingdom" or a == "tax_collection":
        return None
    good = {"reduce_corruption": ("10-19", "20-29", "30+"), "attract_population": ("one", "two"),
            "building_project": ("one", "two", "three", "three_jobs"), "research": ("one", "two")}
    mod, mode = _numbers(s, body)
    if mode in ("advantage", "take_10"):
        return None
    if a == "embassy":
        n = s.neighbours[body["neighbour_id"]]
        dc = 5 + 2 * abs(n.diplomacy)
        before, after = chance_at_least(mod, dc, mode), chance_at_least(mod, dc, "advantage" if mode == "normal"
                                                                          else "normal")
    else:
        keys = good.get(a, ())
        odds = band_chances(a, mod, mode)
        after_odds = band_chances(a, mod, "advantage" if mode == "normal" else "normal")
        before, after = sum(odds[k] for k in keys), sum(after_odds[k] for k in keys)
    ok, note = _spend(s, policy, "actions", stored, before, after, f"its check ({a.replace('_', ' ')})")
    if ok:
        body["spend_stored"] = True
    return note


def _candidate(s: KingdomState, policy: Policy, kind: PolicyAction, out: list[dict[str, Any]], used_pcs: set[str],
               unrest: int, stored: int) -> tuple[dict[str, Any], str] | None:
    """``kind``'s action for the next slot and the reason it is due, or None when its reason does not hold."""
    chosen = [a["action"] for a in out]
    if kind == "reduce_unrest":
        if unrest < policy.unrest_alarm or "reduce_unrest" in chosen:
            return None
        who = _performer(s, policy, used_pcs)
        if who is None:
            return None
        perf, name = who
        bonus = perf.get("pc_bonus", 3 + R.proficiency_bonus(s))
        skill, odds = _unrest_skill(s, policy, int(bonus), unrest)
        lower = odds["15-24"] + odds["25+"]
        body = {"action": "reduce_unrest", **perf, "skill": skill}
        gap = 20 - unrest
        hint = (" — the policy's bonus is +0: enter the PC's own bonus" if perf.get("performer") == "pc"
                and policy.unrest_bonus == 0 else "")
        return body, (f"Unrest {unrest} has reached the alarm {policy.unrest_alarm} ({gap} more starts a revolution,"
                      f" §4.7); {name} uses {skill.capitalize()}, which lowers it {_pct(lower)} of the time"
                      + (f" (and raises it {_pct(odds['below_5'])})" if skill == "intimidation" else "") + hint)
    if kind == "reduce_corruption":
        targeted = {a.get("target_track") for a in out if a["action"] == "reduce_corruption"}
        bad = [t for t in TRACKS if s.tracks[t].modifier <= policy.corruption_alarm and t not in targeted]
        if not bad:
            return None
        t = min(bad, key=lambda x: (s.tracks[x].modifier, -s.tracks[x].points))
        body = {"action": "reduce_corruption", "target_track": t}
        mod, mode = _numbers(s, body)
        odds = band_chances("reduce_corruption", mod, mode)
        fix = odds["10-19"] + odds["20-29"] + odds["30+"]
        ability = TRACK_ABILITY[t]
        return body, (f"{t} is at modifier {s.tracks[t].modifier:+d}, paid on every {ability} check; the"
                      f" {'Construction' if t == 'decay' else 'Religion'} check ({mod:+d}) lowers it {_pct(fix)} of"
                      f" the time, tyranny {_pct(odds['tyranny'])}")
    if kind == "embassy":
        targeted = {a.get("neighbour_id") for a in out if a["action"] == "embassy"}
        near = sorted((n for n in s.neighbours.values() if n.status == "independent" and n.id not in targeted
                       and n.diplomacy <= policy.embassy_below), key=lambda n: (n.diplomacy, n.id))
        for n in near:
            body = {"action": "embassy", "neighbour_id": n.id}
            mod, mode = _numbers(s, body)
            dc = 5 + 2 * abs(n.diplomacy)
            up, down = chance_at_least(mod, dc, mode), 1 - chance_at_least(mod, dc - 5, mode)
            if up <= down:
                continue
            larger = "larger than us" if n.population > s.population else "not larger than us"
            return body, (f"{n.name}'s diplomacy {n.diplomacy:+d} is near an automatic war (−8 when it is larger"
                          f" than us, −10 otherwise, §3.8; it is {larger}); envoys (DC {dc}) raise it"
                          f" {_pct(up)}, lower it {_pct(down)}")
        return None
    if kind == "attract_population":
        friendly = sorted((n for n in s.neighbours.values() if n.status == "independent" and n.population > 0
                           and n.diplomacy >= policy.attract_min_diplomacy and not incident_war(s, n.id)),
                          key=lambda n: (-n.diplomacy, -n.population, n.id))
        if not friendly or "attract_population" in chosen:
            return None
        n = friendly[0]
        body = {"action": "attract_population", "neighbour_id": n.id}
        mod, mode = _numbers(s, body)
        odds = band_chances("attract_population", mod, mode)
        gain = odds["not_their_best"] + odds["one"] + odds["two"]
        return body, (f"{n.name} (diplomacy {n.diplomacy:+d}, population {n.population}) is the friendliest"
                      f" neighbour an incident could not turn to war; Trade ({mod:+d}) brings people {_pct(gain)} of"
                      f" the time (an incident {_pct(odds['incident'])})")
    if kind == "building_project":
        open_ = [p for p in s.building_projects if not p.completed]
        if not open_ or "building_project" in chosen:
            return None
        p = open_[0]
        return {"action": "building_project", "project_id": p.id}, (
            f"{p.name} is under way ({p.points}/{p.points_required} points)")
    if kind == "research":
        working = [i for i in s.institutions if i.type in ("academy", "university")
                   and (i.disabled_until_year is None or s.year > i.disabled_until_year)]
        if not working or "research" in chosen:
            return None
        body = {"action": "research", "institution_id": working[0].id}
        mod, mode = _numbers(s, body)
        odds = band_chances("research", mod, mode)
        return body, (f"{working[0].id} works; Science ({mod:+d}) gains research {_pct(odds['one'] + odds['two'])}"
                      f" of the time, a catastrophe {_pct(odds['catastrophe'])}")
    if kind == "tax_collection":
        if stored >= policy.tax_target or "tax_collection" in chosen:
            return None
        body = {"action": "tax_collection", "take_advantage": False}
        mod, mode = _numbers(s, body)
        odds = band_chances("tax_collection", mod, mode)
        if odds["tyranny"] > policy.tax_max_risk:
            return None
        return body, (f"{stored} advantage(s) stored, {policy.tax_target} wanted; Bureaucracy ({mod:+d}) stores one"
                      f" {_pct(odds['store_one'] + odds['store_two'])} of the time, tyranny {_pct(odds['tyranny'])}")
    return None  # pragma: no cover - every kind is handled


def steward_growth(s: KingdomState, policy: Policy) -> Choice:
    """The growth roll (§4.3): take 10 when it makes the DC, else spend an advantage where the chance is low."""
    dc = R.growth_dc(s)
    if dc is None or s.fallen:
        return Choice({"spend_stored": False, "spend_year": False, "take_10": False},
                      ["growth: no roll (living space, §3.9)"] if dc is None else [])
    adv = ["good harvest"] if "growth_advantage" in s.year_flags else []
    dis = ["poor harvest"] if "growth_disadvantage" in s.year_flags else []
    skill = R.opt(s, "growth_check") != "stability"
    spec = R.CheckSpec(kind="skill" if skill else "ability", skill="agriculture" if skill else None,
                       ability=None if skill else "stability", advantage=adv, disadvantage=dis)
    mod, mode = R.check_numbers(s, spec)
    chance = chance_at_least(mod, dc, mode)
    out = {"spend_stored": False, "spend_year": False, "take_10": False}
    if (skill and R.has_feat(s, "competent_administration") and "competent_administration_used" not in s.year_flags
            and 10 + mod >= dc and chance < 1):
        out["take_10"] = True
        return Choice(out, [f"growth: take 10 (Competent Administration): 10 {mod:+d} makes DC {dc} for sure"
                            f" (rolling: {_pct(chance)})"])
    if mode == "advantage":
        return Choice(out, [])
    better = chance_at_least(mod, dc, "advantage" if mode == "normal" else "normal")
    if s.year_advantages and better - chance >= 0.1 and chance < policy.spend_below and "growth" in policy.spend_on:
        out["spend_year"] = True
        return Choice(out, [f"growth: spend this year's tax advantage: DC {dc}, {_pct(chance)} → {_pct(better)}"])
    ok, note = _spend(s, policy, "growth", s.stored_advantages, chance, better, f"the growth roll (DC {dc})")
    out["spend_stored"] = ok
    return Choice(out, [f"growth: {note}"] if note else [])


def steward_end(s: KingdomState, policy: Policy) -> Choice:
    """End of year (§4.6): the rules' Law and Order default; a stored advantage on a level-hold check."""
    c = default_choices(s, "end")
    reasons: list[str] = []
    need = R.population_required(s.level) - s.population
    if need > 0 and not s.fallen:
        dc = 5 * need
        ability = str(R.opt(s, "hold_level_ability"))
        mod, mode = R.check_numbers(s, R.CheckSpec(kind="ability", ability=ability))
        chance = chance_at_least(mod, dc, mode)
        ok, note = _spend(s, policy, "hold", s.stored_advantages, chance,
                          chance_at_least(mod, dc, "advantage" if mode == "normal" else mode),
                          f"holding level {s.level} (DC {dc})")
        c["spend_stored"] = ok
        if note:
            reasons.append(f"end: {note}")
    return Choice(c, reasons)


def steward_war(s: KingdomState, policy: Policy) -> Choice:
    """The war step: the rules' defaults (armies, orders), and a stored advantage on the first war's initiative
    roll when we are unlikely to win it (§4.5.1: the winner acts first every war turn)."""
    c = default_choices(s, "war")
    if not s.wars or "war" not in policy.spend_on or s.stored_advantages <= policy.keep_stored:
        return Choice(c, [])
    w = s.wars[0]
    if w.armies_assigned_year == s.year:
        return Choice(c, [])
    enemy = w.attacker if w.defender == "players" else w.defender
    theirs = s.neighbours[enemy].profile.bureaucracy_bonus
    mod, mode = R.check_numbers(s, R.CheckSpec(kind="skill", skill="bureaucracy"))

    def win(m: str) -> float:
        total = Fraction(0)
        for k, p in d20_weights(m):
            total += p * Fraction(sum(1 for e in range(1, 21) if k + mod > e + theirs), 20)
        return float(total)

    before, after = win(mode), win("advantage" if mode == "normal" else mode)
    ok, note = _spend(s, policy, "war", s.stored_advantages, before, after, "the initiative roll")
    c["spend_stored"] = ok
    return Choice(c, [f"war: {note}"] if note else [])


# --- level benefits (§3.2) ---------------------------------------------------------------------------------------


def choose_benefits(s: KingdomState, policy: Policy) -> list[dict[str, Any]]:
    """A choice for every pending benefit (§3.2), from the policy's preferences; prerequisites are the rules'."""
    out: list[dict[str, Any]] = []
    held = {f.feat for f in s.feats}
    prof = set(R.proficiencies(s))
    expert = set(s.expertise)
    for b in s.pending_benefits:
        entry: dict[str, Any] = {"level": b.level, "benefit": b.benefit}
        if b.benefit == "feat":
            feat = _feat(s, policy, held, prof)
            if feat is None:
                continue
            entry["feat"] = feat
            held.add(feat)
            if feat == "skills":
                new = [sk for sk in policy.skills if sk not in prof][:1]
                ex = [sk for sk in policy.skills if sk in prof and sk not in expert][:1]
                if len(new) < 1 or len(ex) < 1:
                    continue
                entry.update(skills=new, expertise=ex)
                prof.update(new)
                expert.update(ex)
        elif b.benefit == "asi":
            steps = _corruption_steps(s)
            if steps:
                entry["corruption_steps"] = steps
            else:
                entry["abilities"] = {policy.asi_ability: 2}
        elif b.benefit == "three_skills":
            new = [sk for sk in policy.skills if sk not in prof][:3]
            if len(new) < 3:
                continue
            entry["skills"] = new
            prof.update(new)
        elif b.benefit == "two_expertise":
            ex = [sk for sk in policy.skills if sk in prof and sk not in expert][:2]
            if len(ex) < 2:
                continue
            entry["expertise"] = ex
            expert.update(ex)
        elif b.benefit == "rising_power":
            entry["god_created"] = policy.create_god
        out.append(entry)
    return out


def _feat(s: KingdomState, policy: Policy, held: set[str], prof: set[str]) -> str | None:
    for name in policy.feats:
        row = tables.feats().get(name)
        if row is None or (name in held and not row.repeatable):
            continue
        if row.requires_skill and row.requires_skill not in prof:
            continue
        if row.requires_level and s.level < row.requires_level:
            continue
        return name
    return None


def _corruption_steps(s: KingdomState) -> dict[str, int]:
    """A76: four +1 steps to the worst tracks, when at least two can be used (else the ability is better)."""
    steps: dict[str, int] = {}
    left = 4
    for t in sorted(TRACKS, key=lambda x: (s.tracks[x].modifier, -s.tracks[x].points)):
        use = min(left, -s.tracks[t].modifier)
        if use > 0:
            steps[t] = use
            left -= use
    if 4 - left < 2:
        return {}
    if left:
        first = next(iter(steps))
        steps[first] += left  # A76: steps beyond 0 are lost; the sum must be 4
    return steps


def benefit_reasons(entries: list[dict[str, Any]]) -> list[str]:
    out = []
    for e in entries:
        what = e.get("feat") or ", ".join(f"+{v} {k}" for k, v in e.get("abilities", {}).items()) or ", ".join(
            f"{k} +{v}" for k, v in e.get("corruption_steps", {}).items()) or ", ".join(
            [*e.get("skills", []), *e.get("expertise", [])]) or ("a god" if e.get("god_created") else "no god")
        out.append(f"benefit of level {e['level']} ({e['benefit'].replace('_', ' ')}): {what}")
    return out


# --- a step's choices --------------------------------------------------------------------------------------------


def simple_reasons(s: KingdomState, actions: list[dict[str, Any]]) -> list[str]:
    """Why the rules' defaults chose each action (``decide.default_actions``)."""
    out = []
    for i, a in enumerate(actions, start=1):
        kind = a["action"]
        if kind == "reduce_corruption":
            t = a["target_track"]
            why = f"{t} is the worst track (modifier {s.tracks[t].modifier:+d})"
        elif kind == "attract_population":
            n = s.neighbours[a["neighbour_id"]]
            why = f"no track below 0; {n.name} is the friendliest neighbour with people"
        elif kind == "building_project":
            why = "a project is under way"
        else:
            why = "nothing else to do"
        out.append(f"action {i}: {kind.replace('_', ' ')} — {why} (the rules' defaults)")
    return out


def step_choices(s: KingdomState, step: str, policy: Policy, *, first_year: bool = False) -> Choice:
    """The policy's choices for ``step`` in ``s`` (the state the step starts from), with the reasons."""
    if policy.name == "simple":
        c = default_choices(s, step)
        if step == "actions":
            return Choice(c, simple_reasons(s, c["actions"]))
        return Choice(c, [])
    if step == "actions":
        return steward_actions(s, policy)
    if step == "growth":
        return steward_growth(s, policy)
    if step == "end":
        return steward_end(s, policy)
    if step == "war":
        return steward_war(s, policy)
    if step == "start":
        c = default_choices(s, "start")
        pending = choose_benefits(s, policy)
        if pending:
            c["gm_events"] = [{"event": "benefit_chosen", **e} for e in pending]
        return Choice(c, benefit_reasons(pending))
    return Choice(default_choices(s, step), [])


__all__ = ["SIMPLE", "STEWARD", "Choice", "Policy", "band_chances", "chance_at_least", "choose_benefits",
           "parse_policy", "step_choices"]
