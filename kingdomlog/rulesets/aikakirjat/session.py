"""The growth session planner (spec §4.0): the rest of a session, year by year, as explicit yearly plans.

A growth session plays the 5d10 years rolled at its start. ``plan_session`` plans from a state between years:

- with no session under way (none yet, or the last one played out) the first year starts one and rolls its
  5d10 years, and the plan runs to its end;
- with a session under way (resumed: its years rolled, some played) it plans exactly the years that remain and
  stops where the rolled length says, never starting the next session.

Each step's choices come from the GM's ``Policy`` (``policy.step_choices``) in the state the step starts from,
with the GM's overrides for that year laid over them (``{turn: {step: {"choices", "rolls", "rerolls"}}}``); the
step is then played with the rules' own ``run_step`` and the same keyed dice ``kingdomlog turn`` rolls (the seed
of year ``t`` is ``f"{seed}-{t}"``), so a year changed by the GM recomputes every later year and leaves the dice
of the others where they were. With ``verify`` every year's finished plan is played once more through
``core.turn.preview_turn`` and must give the same state: what the planner shows is what a commit appends.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from kingdomlog.core.errors import InputError, RuleError
from kingdomlog.core.events import Draft
from kingdomlog.core.ruleset import run_step
from kingdomlog.core.turn import Plan, StepPlan, note_drafts, preview_turn
from kingdomlog.dice.roller import KeyedRoller, Roll
from kingdomlog.rulesets.aikakirjat.policy import STEWARD, Policy, benefit_reasons, choose_benefits, step_choices
from kingdomlog.rulesets.aikakirjat.ruleset import RULESET
from kingdomlog.rulesets.aikakirjat.state import KingdomState

Overrides = Mapping[int, Mapping[str, Any]]
"""The GM's changes to planned years: ``{turn: {step: {"choices": {...}, "rolls": {...}, "rerolls": {...}}}}``."""


class YearRefused(RuleError):
    """A planned year the rules refuse (an override that breaks a rule, a typed die no step rolls)."""

    def __init__(self, message: str, *, turn: int, step: str, rule: str | None = None) -> None:
        super().__init__(message, rule=rule, step=step)
        self.turn = turn


@dataclass(frozen=True)
class SessionStatus:
    """Where the growth session stands in a state (§4.0, §2.14)."""

    session_no: int
    years_total: int
    years_played: int

    @property
    def under_way(self) -> bool:
        return self.session_no > 0 and self.years_played < self.years_total

    @property
    def remaining(self) -> int | None:
        """Years left to play, or None when the next year starts a session (its length not rolled yet)."""
        return self.years_total - self.years_played if self.under_way else None

    def describe(self) -> str:
        if self.under_way:
            return (f"session {self.session_no} under way: {self.years_played} of {self.years_total} years played,"
                    f" {self.remaining} to go")
        if self.session_no:
            return f"session {self.session_no} played out ({self.years_total} years); the next year starts a new one"
        return "no session yet; the next year starts one (5d10 years)"


def session_status(s: KingdomState) -> SessionStatus:
    return SessionStatus(s.session.session_no, s.session.years_total, s.session.years_played)


@dataclass(frozen=True)
class SessionYear:
    """One planned year: its plan (every choice explicit), what it rolled and recorded, the state after, why."""

    turn: int
    plan: Plan
    state_after: KingdomState
    state_before: KingdomState | None = None
    drafts: tuple[Draft, ...] = ()
    rolls: tuple[Roll, ...] = ()
    reasons: tuple[str, ...] = ()
    overridden: tuple[str, ...] = ()
    """The steps whose choices or dice the GM's overrides set."""


@dataclass(frozen=True)
class SessionPlan:
    """A planned (part of a) growth session."""

    status: SessionStatus
    years: tuple[SessionYear, ...]
    policy: Policy
    seed: str
    first_turn: int
    complete: bool
    """Whether the last planned year ends the session (False when ``years`` stopped the plan earlier)."""
    state_before: KingdomState = field(repr=False)

    @property
    def state_after(self) -> KingdomState:
        return self.years[-1].state_after if self.years else self.state_before

    @property
    def session_no(self) -> int:
        return self.state_after.session.session_no


def _merge(policy_choices: dict[str, Any], given: Mapping[str, Any]) -> dict[str, Any]:
    return {**policy_choices, **dict(given)}


def plan_year(state: KingdomState, *, campaign: str, turn: int, seed: str, policy: Policy = STEWARD,
              overrides: Mapping[str, Any] | None = None, new_session: bool | None = None,
              verify: bool = True, start_seq: int = 0) -> SessionYear:
    """Plan and play one year from ``state``: the policy's choices under the GM's ``overrides`` (by step).

    ``new_session`` forces the start step's choice (the session planner decides it). Raises ``YearRefused``
    naming the year and step if the rules refuse a step or a typed die is not rolled by its step.
    """
    over: dict[str, StepPlan] = {}
    for k, v in (overrides or {}).items():
        try:
            over[k] = StepPlan.model_validate(v)
        except ValidationError as exc:
            errs = "; ".join(f"{'.'.join(str(x) for x in e['loc']) or '(step)'}: {e['msg']}" for e in exc.errors()[:3])
            raise YearRefused(f"year {turn}: step {k!r}: {errs} (a step's plan has choices, rolls, rerolls)",
                              turn=turn, step=k) from None
    phases = RULESET.phases_for(state, turn)
    unknown = sorted(set(over) - {p.id for p in phases})
    if unknown:
        raise YearRefused(f"year {turn}: no step {', '.join(unknown)}; steps: {', '.join(p.id for p in phases)}",
                          turn=turn, step=unknown[0])
    roller = KeyedRoller(seed, campaign=campaign, turn=turn)
    steps: dict[str, StepPlan] = {}
    s = state
    drafts: list[Draft] = []
    rolls: list[Roll] = []
    reasons: list[str] = []
    for phase in phases:
        o = over.get(phase.id, StepPlan())
        pc = step_choices(s, phase.id, policy)
        choices = _merge(pc.choices, o.choices)
        if phase.id == "start" and new_session is not None:
            if "new_session" in o.choices and o.choices["new_session"] != new_session:
                what = "a session is under way" if not new_session else "no session is under way"
                raise YearRefused(f"year {turn}: {what}; the planner decides whether this year starts one",
                                  turn=turn, step="start", rule="§4.0")
            choices["new_session"] = new_session
        why = [r for r in pc.reasons if not _overridden(r, o.choices)]
        res, dice = _run(s, phase.id, choices, o, roller, campaign=campaign, turn=turn, seq=start_seq + len(drafts))
        if phase.id == "end" and "benefits" not in o.choices and policy.name != "simple":
            new = choose_benefits(res.state, policy)
            if new:
                choices["benefits"] = new
                why += benefit_reasons(new)
                res, dice = _run(s, phase.id, choices, o, roller, campaign=campaign, turn=turn,
                                 seq=start_seq + len(drafts))
        if o.choices:
            why.append(f"{phase.id}: {', '.join(sorted(o.choices))} set by the GM")
        if o.rolls:
            why.append(f"{phase.id}: dice typed by the GM ({', '.join(sorted(o.rolls))})")
        steps[phase.id] = StepPlan(choices=choices, rolls=dict(o.rolls), rerolls=dict(o.rerolls))
        drafts.extend(d.at_turn(turn) for d in res.drafts)
        rolls.extend(dice.rolls)
        reasons.extend(why)
        s = res.state
    plan = Plan(turn=turn, seed=seed, steps=steps, note="\n".join(reasons))
    drafts.extend(note_drafts(plan, turn, None))  # the policy's reasons, recorded with the year as a commit does
    if verify:
        p = preview_turn(RULESET, state, plan, campaign=campaign, turn=turn, start_seq=start_seq)
        if not p.ok or p.state_after != s:
            raise YearRefused(f"year {turn}: the plan does not replay as planned: {p.error or 'another state'}",
                              turn=turn, step=p.refused_step or "end")
    return SessionYear(turn, plan, s, state, tuple(drafts), tuple(rolls), tuple(reasons),
                       tuple(k for k, v in over.items() if v.choices or v.rolls or v.rerolls))


def _overridden(reason: str, given: Mapping[str, Any]) -> bool:
    """A policy reason about a choice the GM replaced (``action 1: ...`` when the GM set ``actions``)."""
    return ("actions" in given and reason.startswith("action")) or (
        any(k in given for k in ("spend_stored", "spend_year", "take_10")) and ": spend" in reason)


def _run(s: KingdomState, step: str, choices: Mapping[str, Any], o: StepPlan, roller: KeyedRoller, *, campaign: str,
         turn: int, seq: int) -> Any:
    dice = roller.for_step(step, manual=o.rolls, nonces=o.rerolls)
    try:
        res = run_step(RULESET, s, step, choices, dice, campaign=campaign, turn=turn, start_seq=seq)
    except (RuleError, InputError) as exc:
        detail = exc.detail if isinstance(exc, RuleError) else str(exc)
        raise YearRefused(f"year {turn}: {detail}", turn=turn, step=step,
                          rule=exc.rule if isinstance(exc, RuleError) else None) from None
    used = {r.key for r in dice.rolls}
    unused = sorted((set(o.rolls) | set(o.rerolls)) - used)
    if unused:
        raise YearRefused(f"year {turn}: step {step!r} does not roll {', '.join(unused)} (it rolled:"
                          f" {', '.join(sorted(used)) or 'no dice'})", turn=turn, step=step)
    return res, dice


def plan_session(state: KingdomState, *, campaign: str, first_turn: int, seed: str, policy: Policy = STEWARD,
                 overrides: Overrides | None = None, years: int | None = None, max_years: int = 50,
                 verify: bool = True) -> SessionPlan:
    """Plan the rest of the growth session from ``state`` (between years), year by year (see the module).

    ``years`` stops after that many years (the rest of the session is not planned). Raises ``YearRefused`` for a
    year the rules refuse and ``RuleError`` if the kingdom is not founded or a session runs past ``max_years``.
    """
    if not state.founded:
        raise RuleError("found the kingdom first (turn 0)", rule="§8.3")
    if state.phase != "between_years":
        raise RuleError("a session is planned between years", rule="§4.0")
    status = session_status(state)
    target = status.session_no if status.under_way else status.session_no + 1
    out: list[SessionYear] = []
    s = state
    turn = first_turn
    complete = False
    limit = max_years if years is None else min(years, max_years)
    over = overrides or {}
    while len(out) < limit and not s.fallen:
        starts = not status.under_way and not out
        y = plan_year(s, campaign=campaign, turn=turn, seed=f"{seed}-{turn}", policy=policy,
                      overrides=over.get(turn), new_session=starts, verify=verify)
        out.append(y)
        s = y.state_after
        turn += 1
        if s.session.session_no == target and s.session.years_played >= s.session.years_total:
            complete = True
            break
    if years is None and not complete and not s.fallen:
        raise RuleError(f"the session has more than {max_years} years", rule="§4.0")
    past = sorted(t for t in over if t < first_turn)
    beyond = sorted(t for t in over if out and t > out[-1].turn) if complete or s.fallen else []
    if past or beyond:
        span = f"{out[0].turn}–{out[-1].turn}" if out else "none"
        raise RuleError(f"changed year(s) {', '.join(map(str, past + beyond))} are not in the plan (years {span}):"
                        + (" already played" if past else "") + (" after the session's end" if beyond else ""),
                        rule="§4.0")
    return SessionPlan(status, tuple(out), policy, seed, first_turn, complete or s.fallen, state)


def session_plans(state: KingdomState, *, campaign: str, first_turn: int, seed: str,
                  overrides: Overrides | None = None, max_years: int = 50,
                  policy: Policy = STEWARD) -> list[SessionYear]:
    """The years of ``plan_session`` (the whole rest of the session), as a list."""
    return list(plan_session(state, campaign=campaign, first_turn=first_turn, seed=seed, policy=policy,
                             overrides=overrides, max_years=max_years).years)


__all__ = ["SessionPlan", "SessionStatus", "SessionYear", "YearRefused", "plan_session", "plan_year",
           "session_plans", "session_status"]
