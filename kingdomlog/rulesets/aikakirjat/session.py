"""The growth session (spec §4.0): 5d10 years played in a row, one plan per year with defaults.

``session_plans`` builds the plans year by year: for every step it spells out the
defaults the rules give in the state the step starts from (``decide.default_choices``),
lays the GM's overrides for that year over them, and plays the plan so far through
``core.turn.preview_turn`` (exactly as ``kingdomlog turn`` will) so the next step's
defaults see the new state. The GM confirms or changes each year's plan; a plan of
defaults is always playable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kingdomlog.core.errors import RuleError
from kingdomlog.core.turn import Plan, StepPlan, preview_turn
from kingdomlog.rulesets.aikakirjat.decide import default_choices
from kingdomlog.rulesets.aikakirjat.ruleset import RULESET
from kingdomlog.rulesets.aikakirjat.state import KingdomState


@dataclass(frozen=True)
class SessionYear:
    """One year of a growth session: its plan (every choice explicit) and the state it leads to."""

    turn: int
    plan: Plan
    state_after: KingdomState


def year_plan(state: KingdomState, *, campaign: str, turn: int, seed: str,
              overrides: Mapping[str, Any] | None = None) -> tuple[Plan, KingdomState]:
    """One year's plan with every choice filled in (defaults under ``overrides``), and the state after it.

    ``overrides`` maps a step id to ``{"choices": {...}, "rolls": {...}, "rerolls": {...}}``.
    Raises ``RuleError`` if an override is refused.
    """
    over = dict(overrides or {})
    steps: dict[str, StepPlan] = {}
    s = state
    for i, phase in enumerate(RULESET.phases_for(state, turn)):
        o = StepPlan.model_validate(over.get(phase.id, {}))
        steps[phase.id] = StepPlan(choices={**default_choices(s, phase.id), **o.choices}, rolls=dict(o.rolls),
                                   rerolls=dict(o.rerolls))
        preview = preview_turn(RULESET, state, Plan(turn=turn, seed=seed, steps=dict(steps)), campaign=campaign,
                               turn=turn, start_seq=0)
        played = preview.steps[i]
        if played.error is not None or played.state_after is None:
            raise RuleError(f"year {turn}: {played.error}")
        s = played.state_after  # type: ignore[assignment]
    return Plan(turn=turn, seed=seed, steps=steps), s


def session_plans(state: KingdomState, *, campaign: str, first_turn: int, seed: str,
                  overrides: Mapping[int, Mapping[str, Any]] | None = None,
                  max_years: int = 50) -> list[SessionYear]:
    """Plan a whole growth session from ``state``: the first year rolls 5d10, the rest follow until it ends.

    ``overrides`` maps a turn (year) to that year's step overrides. The seed of
    year ``t`` is ``f"{seed}-{t}"``.
    """
    out: list[SessionYear] = []
    s = state
    turn = first_turn
    start_no = s.session.session_no
    first = {"start": {"choices": {"new_session": True}}}
    while len(out) < max_years:
        over = dict((overrides or {}).get(turn, {}))
        if not out:
            merged = dict(first["start"])
            given = dict(over.get("start", {}))
            merged["choices"] = {**first["start"]["choices"], **given.get("choices", {})}
            over["start"] = {**given, **merged}
        plan, s = year_plan(s, campaign=campaign, turn=turn, seed=f"{seed}-{turn}", overrides=over)
        out.append(SessionYear(turn, plan, s))
        turn += 1
        if s.session.session_no > start_no and s.session.years_played >= s.session.years_total:
            break
        if s.fallen:
            break
    if out and out[-1].state_after.session.years_played < out[-1].state_after.session.years_total and not s.fallen:
        raise RuleError(f"the session has more than {max_years} years", rule="§4.0")
    return out
