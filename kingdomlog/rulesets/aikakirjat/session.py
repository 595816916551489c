"""The growth session (spec §4.0): 5d10 years played in a row, one plan per year with defaults.

``session_plans`` builds the plans year by year: for every step it asks
``choices(state, step)`` for the defaults, lays the GM's overrides for that
year over them, and plays the step purely (exactly as ``preview_turn`` will)
so the next step's defaults see the new state. The GM confirms or changes each
year's plan; a plan of defaults is always playable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kingdomlog.core.errors import RuleError
from kingdomlog.core.turn import Plan, StepPlan
from kingdomlog.dice.roller import KeyedRoller
from kingdomlog.rulesets.aikakirjat import decide as D
from kingdomlog.rulesets.aikakirjat.fold import evolve_state
from kingdomlog.rulesets.aikakirjat.model import KingdomState


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
    Raises ``RuleError`` if an override is illegal.
    """
    over = dict(overrides or {})
    roller = KeyedRoller(seed, campaign=campaign, turn=turn)
    steps: dict[str, StepPlan] = {}
    s = state
    for phase in D.PHASES:
        o = StepPlan.model_validate(over.get(phase.id, {}))
        defaults = {c.name: c.default for c in D.choices(s, phase.id)}
        ch = {**defaults, **o.choices}
        dice = roller.for_step(phase.id, manual=o.rolls, nonces=o.rerolls)
        drafts = D.decide(s, phase.id, ch, dice)
        for d in drafts:
            s = evolve_state(s, d.payload, f"year {turn} {phase.id}")
        steps[phase.id] = StepPlan(choices=ch, rolls=dict(o.rolls), rerolls=dict(o.rerolls))
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
