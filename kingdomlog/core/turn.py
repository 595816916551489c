"""Draft turns (design §6): a plan in, a preview out; nothing is written here.

A plan is JSON the GM's turn sheet produces and ``kingdomlog turn --plan`` reads::

    {"turn": 3, "seed": "9f2c...",
     "steps": {"upkeep": {"choices": {...}, "rolls": {"resource": [4, 2]}, "rerolls": {"resource": 1}}}}

``choices`` are the step's inputs (see ``Ruleset.choices``); ``rolls`` are faces of
physical dice typed in by the GM, by roll key; ``rerolls`` bump a key's nonce so
only that roll changes. Steps left out use their defaults.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kingdomlog.core.errors import InputError, RuleError
from kingdomlog.core.events import Draft, RecordedEvent, payload_json
from kingdomlog.core.ruleset import Breakdown, Phase, Ruleset, State
from kingdomlog.dice.roller import KeyedRoller, Roll

PREVIEW_TIME = datetime(1970, 1, 1, tzinfo=UTC)


class StepPlan(BaseModel):
    """The GM's input for one step."""

    model_config = ConfigDict(extra="forbid")

    choices: dict[str, Any] = Field(default_factory=dict)
    rolls: dict[str, list[int]] = Field(default_factory=dict)
    rerolls: dict[str, int] = Field(default_factory=dict)


class Plan(BaseModel):
    """A whole turn's input: choices and dice per step, and the seed of the keyed roller."""

    model_config = ConfigDict(extra="forbid")

    turn: int | None = None
    seed: str | None = None
    steps: dict[str, StepPlan] = Field(default_factory=dict)
    note: str = ""

    @classmethod
    def parse(cls, data: str | bytes | Mapping[str, Any], *, source: str = "plan") -> Plan:
        """Parse plan JSON (text or dict); raises ``InputError`` naming ``source`` and the field."""
        try:
            if isinstance(data, (str, bytes)):
                return cls.model_validate_json(data)
            return cls.model_validate(dict(data))
        except ValidationError as exc:
            errs = "; ".join(
                f"{'.'.join(str(x) for x in e['loc']) or '(top)'}: {e['msg']}" for e in exc.errors()[:5]
            )
            raise InputError(f"{source}: invalid plan: {errs}") from None

    def to_json(self) -> str:
        """Pretty JSON, the format ``kingdomlog turn --plan`` reads."""
        return json.dumps(self.model_dump(mode="json", exclude_defaults=False), indent=2, sort_keys=False)


@dataclass
class StepPreview:
    """One step of a draft turn: what was chosen, rolled, decided, and the state after it."""

    phase: Phase
    choices: dict[str, Any]
    drafts: list[Draft]
    rolls: list[Roll]
    state_after: State | None
    breakdown: list[Breakdown] = field(default_factory=list)
    error: str | None = None


@dataclass
class TurnPreview:
    """A whole draft turn. ``ok`` is False if a step was refused (later steps not computed)."""

    turn: int
    seed: str
    start_seq: int
    steps: list[StepPreview]
    state_before: State
    state_after: State

    @property
    def ok(self) -> bool:
        return all(s.error is None for s in self.steps)

    @property
    def drafts(self) -> list[Draft]:
        return [d for s in self.steps for d in s.drafts]

    @property
    def error(self) -> str | None:
        for s in self.steps:
            if s.error:
                return s.error
        return None


def provisional(campaign: str, turn: int, seq: int, draft: Draft) -> RecordedEvent:
    """A recorded-event stand-in for a draft, so the fold can run before anything is stored."""
    return RecordedEvent(
        campaign=campaign,
        seq=seq,
        turn=turn,
        phase=draft.phase,
        type=draft.payload.type,
        version=draft.payload.version,
        actor=draft.actor,
        visibility=draft.visibility,
        payload=draft.payload,
        payload_text=payload_json(draft.payload),
        recorded_at=PREVIEW_TIME,
        event_id=f"draft-{seq}",
        commit_id="draft",
    )


def preview_turn(
    ruleset: Ruleset,
    state: State,
    plan: Plan,
    *,
    campaign: str,
    turn: int,
    start_seq: int,
    seed: str | None = None,
) -> TurnPreview:
    """Play ``plan`` on ``state`` step by step, purely, and return the preview.

    ``start_seq`` is the log's last seq (the ``expect_seq`` of the commit). The
    seed comes from the plan, else ``seed``; one of them is required so that
    the same plan always gives the same dice. A ``RuleError`` or ``InputError``
    in a step is recorded on that step and stops the preview there.
    """
    if plan.turn is not None and plan.turn != turn:
        raise InputError(f"plan is for turn {plan.turn} but the campaign's next turn is {turn}")
    use_seed = plan.seed or seed
    if not use_seed:
        raise InputError("plan has no seed for its dice; add \"seed\" or pass one")
    known = [p.id for p in ruleset.phases_for(state, turn)]
    unknown = sorted(set(plan.steps) - set(known))
    if unknown:
        raise InputError(
            f"plan names step(s) {', '.join(unknown)} that turn {turn} does not have; steps: {', '.join(known)}"
        )
    roller = KeyedRoller(use_seed, campaign=campaign, turn=turn)
    steps: list[StepPreview] = []
    current = state
    seq = start_seq
    for phase in ruleset.phases_for(state, turn):
        sp = plan.steps.get(phase.id, StepPlan())
        dice = roller.for_step(phase.id, manual=sp.rolls, nonces=sp.rerolls)
        try:
            drafts = ruleset.decide(current, phase.id, sp.choices, dice)
            after = current
            for d in drafts:
                seq += 1
                after = ruleset.evolve(after, provisional(campaign, turn, seq, d))
        except (RuleError, InputError) as exc:
            steps.append(StepPreview(phase, dict(sp.choices), [], list(dice.rolls), None, error=str(exc)))
            break
        steps.append(
            StepPreview(phase, dict(sp.choices), drafts, list(dice.rolls), after, ruleset.explain(after))
        )
        current = after
    return TurnPreview(turn, use_seed, start_seq, steps, state, current)


def require_ok(preview: TurnPreview) -> TurnPreview:
    """Raise the first step's rule error, if any (for headless play)."""
    for s in preview.steps:
        if s.error:
            raise RuleError(s.error)
    return preview


def phases_ids(phases: Sequence[Phase]) -> list[str]:
    """The ids of ``phases`` in order."""
    return [p.id for p in phases]
