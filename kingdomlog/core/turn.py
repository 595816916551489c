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
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError

from kingdomlog.core.choices import LIMIT, Choices
from kingdomlog.core.errors import InputError, InternalError, RuleError
from kingdomlog.core.events import MAX_TURN, Draft, RecordedEvent
from kingdomlog.core.ruleset import Breakdown, Question, Ruleset, State, Step, run_step
from kingdomlog.core.viewers import parse_visibility
from kingdomlog.dice.notation import MAX_SIDES
from kingdomlog.dice.roller import KeyedRoller, Roll

if TYPE_CHECKING:
    from kingdomlog.dice.checks import CheckSpec


Face = Annotated[StrictInt, Field(ge=1, le=MAX_SIDES)]
"""A face of a physical die typed in (the notation checks it against its die)."""


class StepPlan(BaseModel):
    """The GM's input for one step: a key other than these three (``"choice"``) is refused, naming it."""

    model_config = ConfigDict(extra="forbid")

    choices: dict[str, Any] = Field(default_factory=dict)
    rolls: dict[str, list[Face]] = Field(default_factory=dict)
    rerolls: dict[str, Annotated[StrictInt, Field(ge=0, le=LIMIT)]] = Field(default_factory=dict)


def _plan_error(err: Any) -> str:
    """One error of a plan in words: where (``steps.upkeep``), what, and the value given."""
    loc = [str(x) for x in err["loc"]]
    if err["type"] == "extra_forbidden":
        owner = StepPlan if len(loc) == 3 and loc[0] == "steps" else Plan if len(loc) == 1 else None
        takes = f"; {'a step' if owner is StepPlan else 'a plan'} takes: {', '.join(owner.model_fields)}" if owner \
            else ""
        return f"{'.'.join(loc[:-1]) or '(top)'}: unknown key {loc[-1]!r}{takes}"
    got = repr(err.get("input"))
    return f"{'.'.join(loc) or '(top)'}: {err['msg'][:1].lower()}{err['msg'][1:]} (got {got[:40]})"


PLAN_NOTE_TITLE = "Turn note"
"""The title of the ``core.note_added`` a plan's ``note`` is recorded as (in the turn's batch)."""


def is_plan_note(ev: RecordedEvent) -> bool:
    """Whether ``ev`` is the record of a plan's note (logs written before plan notes were recorded lack them)."""
    return ev.type == "core.note_added" and getattr(ev.payload, "title", None) == PLAN_NOTE_TITLE


class Plan(BaseModel):
    """A whole turn's input: choices and dice per step, and the seed of the keyed roller."""

    model_config = ConfigDict(extra="forbid")

    turn: Annotated[StrictInt, Field(ge=0, le=MAX_TURN)] | None = None
    """Strict: ``"8"`` is refused, not read as 8 (a plan says what it means)."""
    seed: str | None = None
    steps: dict[str, StepPlan] = Field(default_factory=dict)
    note: str = ""
    """Recorded with the turn as a ``core.note_added`` in the same batch (nothing is silently dropped)."""
    note_visibility: str = "gm"
    """Who may read the plan's note: ``gm`` (the default), ``public`` or ``faction:<id>[,…]``."""

    @classmethod
    def parse(cls, data: str | bytes | Mapping[str, Any], *, source: str = "plan") -> Plan:
        """Parse plan JSON (text or dict); raises ``InputError`` naming ``source`` and the field.

        >>> for bad in ({"steps": {"upkeep": {"choice": {"food": 2}}}}, {"turn": "8"}):
        ...     try:
        ...         Plan.parse(bad)
        ...     except InputError as exc:
        ...         print(exc)
        plan: invalid plan: steps.upkeep: unknown key 'choice'; a step takes: choices, rolls, rerolls
        plan: invalid plan: turn: input should be a valid integer (got '8')
        """
        try:
            if isinstance(data, (str, bytes)):
                return cls.model_validate_json(data)
            return cls.model_validate(dict(data))
        except ValidationError as exc:
            raise InputError(f"{source}: invalid plan: {'; '.join(_plan_error(e) for e in exc.errors()[:5])}") from None

    def to_json(self) -> str:
        """Pretty JSON, the format ``kingdomlog turn --plan`` reads (``note_visibility`` only when not ``gm``)."""
        doc = self.model_dump(mode="json", exclude_defaults=False)
        if doc.get("note_visibility") == "gm":
            del doc["note_visibility"]
        return json.dumps(doc, indent=2, sort_keys=False)


@dataclass
class StepPreview:
    """One step of a draft turn: what was chosen, rolled, decided, and the state after it.

    ``breakdown`` holds the step's own breakdowns (the numbers it used), ``checks`` the
    checks it rolled by roll key. A refused step has ``error`` set and no state after it.
    """

    phase: Step
    choices: dict[str, Any]
    drafts: list[Draft]
    rolls: list[Roll]
    state_after: State | None
    breakdown: list[Breakdown] = field(default_factory=list)
    error: str | None = None
    checks: dict[str, CheckSpec] = field(default_factory=dict)
    typed: Choices | None = None
    questions: list[Question] = field(default_factory=list)
    """What the step asked and went on without (``StepContext.ask``)."""
    internal: bool = False
    """True when ``error`` is an internal error (a bug in the ruleset or kingdomlog), not a refusal."""

    @property
    def step(self) -> Step:
        return self.phase


@dataclass
class TurnPreview:
    """A whole draft turn. ``ok`` is False if a step was refused (later steps not computed)."""

    turn: int
    seed: str
    start_seq: int
    steps: list[StepPreview]
    state_before: State
    state_after: State
    notes: list[Draft] = field(default_factory=list)
    """The plan's note as a ``core.note_added`` draft (none when the plan has no note)."""

    @property
    def ok(self) -> bool:
        return all(s.error is None for s in self.steps)

    @property
    def drafts(self) -> list[Draft]:
        """Every event the turn appends: each step's, then the plan's note."""
        return [d for s in self.steps for d in s.drafts] + list(self.notes)

    @property
    def step_drafts(self) -> list[Draft]:
        """The events the steps decided (without the plan's note)."""
        return [d for s in self.steps for d in s.drafts]

    @property
    def error(self) -> str | None:
        for s in self.steps:
            if s.error:
                return s.error
        return None

    @property
    def questions(self) -> list[Question]:
        """Every question the steps asked and went on without (their defaults), in order."""
        return [q for s in self.steps for q in s.questions]

    @property
    def refused_step(self) -> str | None:
        """The id of the step that was refused, if any."""
        for s in self.steps:
            if s.error:
                return s.phase.id
        return None


def _unused_dice(step: str, plan: StepPlan, rolls: Sequence[Roll]) -> str | None:
    """An error when the plan types faces or re-rolls for keys this step never rolled."""
    used = {r.key for r in rolls}
    bad_rolls = sorted(set(plan.rolls) - used)
    bad_rerolls = sorted(set(plan.rerolls) - used)
    if not bad_rolls and not bad_rerolls:
        return None
    rolled = ", ".join(r.key for r in rolls) or "no dice"
    parts = []
    if bad_rolls:
        parts.append(f"typed faces under roll key(s) {', '.join(repr(k) for k in bad_rolls)}")
    if bad_rerolls:
        parts.append(f"re-rolls of key(s) {', '.join(repr(k) for k in bad_rerolls)}")
    return f"step {step!r}: {' and '.join(parts)} that this step does not roll (it rolled: {rolled})"


def preview_turn(
    ruleset: Ruleset,
    state: State,
    plan: Plan,
    *,
    campaign: str,
    turn: int,
    start_seq: int,
    seed: str | None = None,
    players: Sequence[str] | None = None,
) -> TurnPreview:
    """Play ``plan`` on ``state`` step by step, purely, and return the preview.

    ``start_seq`` is the log's last seq (the ``expect_seq`` of the commit). The seed
    comes from the plan, else ``seed``; one of them is required so that the same plan
    always gives the same dice. Each step's choices are validated by its schema; typed
    faces or re-rolls under a key the step does not roll are refused; with ``players``
    (the campaign's declared players) every draft's visibility must name only them. A
    refusal is recorded on its step and stops the preview there.
    """
    if plan.turn is not None and plan.turn != turn:
        raise InputError(f"plan is for turn {plan.turn} but the campaign's next turn is {turn}")
    use_seed = plan.seed or seed
    if not use_seed:
        raise InputError("plan has no seed for its dice; add \"seed\" or pass one")
    phases = ruleset.phases_for(state, turn)
    known = [p.id for p in phases]
    unknown = sorted(set(plan.steps) - set(known))
    if unknown:
        raise InputError(
            f"plan names step(s) {', '.join(unknown)} that turn {turn} does not have; steps: {', '.join(known)}"
        )
    roller = KeyedRoller(use_seed, campaign=campaign, turn=turn)
    steps: list[StepPreview] = []
    current = state
    seq = start_seq
    declared = None if players is None else tuple(players)
    for phase in phases:
        sp = plan.steps.get(phase.id, StepPlan())
        dice = roller.for_step(phase.id, manual=sp.rolls, nonces=sp.rerolls)
        try:
            res = run_step(ruleset, current, phase, sp.choices, dice, campaign=campaign, turn=turn, start_seq=seq)
            problem = _unused_dice(phase.id, sp, dice.rolls)
            if problem:
                raise InputError(problem)
            if declared is not None:
                for d in res.drafts:
                    try:
                        parse_visibility(d.visibility, declared)
                    except InputError as exc:
                        raise InputError(f"step {phase.id!r}: event {d.type}: {exc}") from None
        except (RuleError, InputError, InternalError) as exc:
            steps.append(StepPreview(phase, dict(sp.choices), [], list(dice.rolls), None, error=str(exc),
                                     internal=isinstance(exc, InternalError)))
            break
        seq += len(res.drafts)
        steps.append(StepPreview(phase, dict(sp.choices), list(res.drafts), list(dice.rolls), res.state,
                                 list(res.breakdowns), checks=dict(res.checks), typed=res.choices,
                                 questions=list(res.questions)))
        current = res.state
    return TurnPreview(turn, use_seed, start_seq, steps, state, current, note_drafts(plan, turn, declared))


def note_drafts(plan: Plan, turn: int, declared: Sequence[str] | None) -> list[Draft]:
    """The plan's note as a ``core.note_added`` of the turn (``InputError`` for a bad text or visibility)."""
    if not plan.note.strip():
        return []
    from kingdomlog.core.core_events import NoteAdded

    try:
        note = NoteAdded(text=plan.note, title=PLAN_NOTE_TITLE)
    except ValidationError as exc:
        raise InputError(f"plan note: {exc.errors()[0]['msg']}") from None
    try:
        vis = parse_visibility(plan.note_visibility, declared).text
    except InputError as exc:
        raise InputError(f"plan note_visibility: {exc}") from None
    return [Draft(note, actor="gm", visibility=vis, turn=turn)]


def require_ok(preview: TurnPreview) -> TurnPreview:
    """Raise the first step's rule error, if any (for headless play)."""
    for s in preview.steps:
        if s.error:
            raise InternalError(s.error, step=s.phase.id, formatted=True) if s.internal else RuleError(s.error)
    return preview


def plan_schema(ruleset: Ruleset, extra_steps: Sequence[Step] = ()) -> dict[str, Any]:
    """The JSON Schema of a plan for ``ruleset``: every step's choices, rolls and re-rolls.

    Ids that must come from a campaign's state (leaders, hexes, ...) are typed as
    strings and marked ``x-kingdomlog-source``; ``kingdomlog turn`` checks them against
    the state. ``extra_steps``: steps a campaign's state adds (e.g. one per faction).
    """
    defs: dict[str, Any] = {}
    steps: dict[str, Any] = {}
    declared = list(ruleset.all_steps)
    declared += [s for s in extra_steps if s.id not in {d.id for d in declared}]
    for step in declared:
        schema = step.choices.model_json_schema(ref_template="#/$defs/{model}")
        for name, sub in schema.pop("$defs", {}).items():
            defs[name] = sub
        title = f"{step.choices.__name__}"
        defs[title] = schema
        steps[step.id] = {
            "type": "object", "title": step.title, "description": step.help, "additionalProperties": False,
            "properties": {
                "choices": {"$ref": f"#/$defs/{title}"},
                "rolls": {"type": "object", "description": "faces of physical dice typed in, by roll key"
                          + (f" ({', '.join(step.dice)})" if step.dice else ""),
                          "additionalProperties": {"type": "array", "items": {"type": "integer", "minimum": 1}}},
                "rerolls": {"type": "object", "description": "re-roll nonces by roll key",
                            "additionalProperties": {"type": "integer", "minimum": 0}},
            },
        }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"kingdomlog plan for {ruleset.name} ({ruleset.id})",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "turn": {"type": ["integer", "null"], "minimum": 0},
            "seed": {"type": ["string", "null"]},
            "note": {"type": "string", "maxLength": 20000,
                     "description": "recorded with the turn as a core.note_added in the same batch"},
            "note_visibility": {"type": "string", "default": "gm",
                                "description": "who may read the note: gm, public or faction:<id>[,...]"},
            "steps": {"type": "object", "additionalProperties": False, "properties": steps},
        },
        "$defs": defs,
    }
