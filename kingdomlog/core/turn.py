"""Draft turns (design §6): a plan in, a preview out; nothing is written here.

A plan is JSON the GM's turn sheet produces and ``kingdomlog turn --plan`` reads::

    {"turn": 3, "seed": "9f2c...",
     "steps": {"upkeep": {"choices": {...}, "rolls": {"resource": [4, 2]}, "rerolls": {"resource": 1}}}}

``choices`` are the step's inputs (see ``Ruleset.choices``); ``rolls`` are faces of
physical dice typed in by the GM, by roll key; ``rerolls`` bump a key's nonce so
only that roll changes. Steps left out use their defaults.

**When the dice are drawn** (design §5, a roll has its moment). A plan's ``dice`` is ``auto``
(the default: every roll is drawn as the step reaches it; a plan file played headless declares
everything, so ``kingdomlog turn --plan`` rolls all its dice when it is played) or ``on_roll``
(the turn sheet): a roll is drawn only once it is *released*, when someone presses Roll
(``preview_turn(..., release=...)``) or types its faces. A step that reaches a roll not
released stops there, before any die is drawn (``StepPreview.pending``: the check and its
odds, no events), and the preview stops with it. A released roll is kept in the step's
``rolled`` with the check it was rolled as (``RollLock``); a later preview that computes
another check under that key (the GM changed the skill) is refused at the choice that changed
it, never silently re-rolled or kept. Changing it is an explicit re-roll: a new nonce with
its reason in ``reroll_reasons`` (a re-roll the rules give, ``Ruleset.reroll_reasons``, or a
GM ruling with a note), recorded in the turn's batch as a ``core.dice_rerolled``::

    {"turn": 3, "seed": "9f2c...", "dice": "on_roll",
     "steps": {"activity.leadership": {"choices": {...}, "rerolls": {"a1": 1},
       "rolled": {"a1": {"check": {"notation": "1d20", "kind": "pf2e", "modifier": 6, "dc": 16, ...},
                         "choices": {...}}},
       "reroll_reasons": {"a1": [{"reason": "gm", "note": "the wrong skill was picked", "before": [3]}]}}}}
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    StrictInt,
    ValidationError,
    field_validator,
    model_serializer,
)

from kingdomlog.core.choices import LIMIT, Choices, validate_choices
from kingdomlog.core.errors import InputError, InternalError, KingdomlogError, RuleError
from kingdomlog.core.events import MAX_TURN, Draft, RecordedEvent
from kingdomlog.core.ruleset import (
    Breakdown,
    Dice,
    PendingRoll,
    Question,
    RerollReason,
    RollPending,
    Ruleset,
    State,
    Step,
    run_step,
)
from kingdomlog.core.viewers import GM, PUBLIC, parse_visibility
from kingdomlog.dice.checks import CheckSpec, PoolSpec
from kingdomlog.dice.notation import MAX_SIDES
from kingdomlog.dice.roller import KeyedRoller, Roll, StepRoller

DiceMode = Literal["auto", "on_roll"]
"""When a plan's dice are drawn: ``auto`` as each step reaches them; ``on_roll`` once released (Roll pressed)."""

Release = Mapping[str, Collection[str]] | Literal["all"] | None
"""What a preview rolls now: roll keys by step (Roll pressed on them), ``"all"`` (Roll all) or nothing."""

GM_RULING = RerollReason("gm", "GM ruling", "the GM rules that the check is rolled again (the note says why)")
"""The re-roll every rolled check may have, beside those its ruleset gives (``Ruleset.reroll_reasons``)."""


class RollLock(BaseModel):
    """A roll released in an ``on_roll`` plan: the check it was rolled as, and the step's choices then.

    ``check`` is the check's fingerprint (``check_print``: notation, kind, modifier, DC, label, ...).
    A later preview that computes another check under the key is refused until the roll is
    re-rolled; ``choices`` (the step's choices when it was rolled) say which choice changed it.
    """

    model_config = ConfigDict(extra="forbid")

    check: dict[str, Any]
    choices: dict[str, Any] = Field(default_factory=dict)
    typed: list[int] | None = None

    @field_validator("check")
    @classmethod
    def _today(cls, check: dict[str, Any]) -> dict[str, Any]:
        return upcast_print(check)
    """The faces typed when it was rolled (None: the keyed roller's): other faces need a re-roll too."""
    by: str = Field(default="", max_length=200)
    """Set for a roll made outside this plan and held in it as rolled (a player's row at the table: ``Maelis's
    Provide Care (Counselor)``): a preview that computes it as a check its faces give another outcome under, or no
    longer makes it, is refused in words naming it (``held_words``), never folded with another outcome than was
    rolled; a check whose numbers moved and whose faces give the same outcome (``same_outcome``) stands."""
    way: str = Field(default="", max_length=300)
    """With ``by``: what the GM may do then, in words (re-roll it by a ruling, send it back)."""

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> Any:
        return _drop_empty(handler(self), ("by", "way"))


class Reroll(BaseModel):
    """One explicit re-roll of a rolled check: its reason (a ``RerollReason`` id or ``gm``), a note, the faces replaced.

    ``before`` is what the roll showed when it was re-rolled (typed faces included); left empty in a
    hand-written plan, it is the keyed roller's faces at the nonce before.
    """

    model_config = ConfigDict(extra="forbid")

    reason: str = Field(min_length=1, max_length=64)
    note: str = Field(default="", max_length=2000)
    before: list[int] = Field(default_factory=list)


def _drop_empty(data: Any, keys: Sequence[str], defaults: Mapping[str, Any] | None = None) -> Any:
    """A dump without ``keys`` left empty (or at ``defaults``): plans written before they existed dump unchanged."""
    if isinstance(data, dict):
        for k in keys:
            if k in data and (not data[k] or (defaults is not None and data[k] == defaults.get(k))):
                del data[k]
    return data


Face = Annotated[StrictInt, Field(ge=1, le=MAX_SIDES)]
"""A face of a physical die typed in (the notation checks it against its die)."""


class StepPlan(BaseModel):
    """The GM's input for one step: choices, typed faces, re-roll nonces; in an ``on_roll`` plan, rolls released.
    A key other than these (``"choice"``) is refused, naming it."""

    model_config = ConfigDict(extra="forbid")

    choices: dict[str, Any] = Field(default_factory=dict)
    rolls: dict[str, list[Face]] = Field(default_factory=dict)
    rerolls: dict[str, Annotated[StrictInt, Field(ge=0, le=LIMIT)]] = Field(default_factory=dict)
    rolled: dict[str, RollLock] = Field(default_factory=dict)
    """Rolls released (Roll pressed, or faces typed) by key, with the check each was rolled as."""
    reroll_reasons: dict[str, list[Reroll]] = Field(default_factory=dict)
    """Why each re-roll of a key was made, one per nonce (``rerolls``), oldest first."""
    actors: dict[str, Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]{0,63}$")]] = Field(default_factory=dict)
    """Who acted in a part of the step, by the part's roll key (``a3``: the third activity): the player whose
    proposal it was (``app.table``). The events of that part are recorded with that actor; the rest, the GM's."""

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> Any:
        # a plan without rolls released, reasons or actors dumps as before they existed (commit ids stay the same)
        return _drop_empty(handler(self), ("rolled", "reroll_reasons", "actors"))


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
    dice: DiceMode = "auto"
    """``auto``: every roll is drawn when its step reaches it; ``on_roll``: only rolls released (module text)."""

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> Any:
        return _drop_empty(handler(self), ("dice",), {"dice": "auto"})

    @classmethod
    def parse(cls, data: str | bytes | Mapping[str, Any], *, source: str = "plan") -> Plan:
        r"""Parse plan JSON (text or dict); raises ``InputError`` naming ``source`` and the field.

        >>> for bad in ({"steps": {"upkeep": {"choice": {"food": 2}}}}, {"turn": "8"}):
        ...     try:
        ...         Plan.parse(bad)
        ...     except InputError as exc:
        ...         print(str(exc).replace("; a step", ";\n  a step"))
        plan: invalid plan: steps.upkeep: unknown key 'choice';
          a step takes: choices, rolls, rerolls, rolled, reroll_reasons, actors
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
    pending: PendingRoll | None = None
    """The roll this step waits for (``on_roll``): no face drawn, no events, no state after; the turn stops here."""
    released: dict[str, RollLock] = field(default_factory=dict)
    """Rolls this preview released (Roll pressed, faces typed): to keep in the step's ``rolled``."""
    held: str = ""
    """The ``RollLock.by`` of a held roll this step was refused for (it moved in the month as it stands)."""

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
        """No step refused and none waiting for a roll: the turn can be committed."""
        return all(s.error is None and s.pending is None for s in self.steps)

    @property
    def pending(self) -> StepPreview | None:
        """The step waiting for a roll not released yet (the preview stopped there), if any."""
        return next((s for s in self.steps if s.pending is not None), None)

    @property
    def released(self) -> dict[str, dict[str, RollLock]]:
        """The rolls this preview released, by step and key (to keep in the plan's ``rolled``)."""
        return {s.phase.id: dict(s.released) for s in self.steps if s.released}

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
    """An error when the plan types faces or re-rolls for keys this step never rolled.

    A re-roll with its reasons recorded is not an error (an explicit re-roll of a roll the step
    no longer makes: it was taken back, and is rolled afresh if the step makes it again).
    """
    used = {r.key for r in rolls}
    bad_rolls = sorted(set(plan.rolls) - used)
    bad_rerolls = sorted(k for k in set(plan.rerolls) - used if k not in plan.reroll_reasons)
    if not bad_rolls and not bad_rerolls:
        return None
    rolled = ", ".join(r.key for r in rolls) or "no dice"
    parts = []
    if bad_rolls:
        parts.append(f"typed faces under roll key(s) {', '.join(repr(k) for k in bad_rolls)}")
    if bad_rerolls:
        parts.append(f"re-rolls of key(s) {', '.join(repr(k) for k in bad_rerolls)}")
    return f"step {step!r}: {' and '.join(parts)} that this step does not roll (it rolled: {rolled})"


# ---- when a roll is drawn (design §5: a roll has its moment) -------------------------------------


def check_print(check: CheckSpec | None, notation: str) -> dict[str, Any]:
    """The fingerprint of a check about to be rolled: its notation and every number of its ``CheckSpec``.

    Two previews compute the same check under a key exactly when their prints are equal (as JSON).

    >>> check_print(CheckSpec("pf2e", modifier=6, dc=16, label="quell-unrest"), "1d20")["modifier"]
    6
    >>> check_print(None, "2d4")
    {'notation': '2d4'}
    """
    out: dict[str, Any] = {"notation": notation}
    if check is not None:
        out.update(json.loads(json.dumps(dataclasses.asdict(check))))
    return out


def upcast_print(print_: Mapping[str, Any]) -> dict[str, Any]:
    """A check's print (``check_print``) as today's kinds write it, for one kept from before (a draft's ``RollLock``).

    Before the ``total`` kind, a d20 total set against another's (a pf2e army's initiative) was printed as a ``pf2e``
    check against DC 0, which no check is (every face succeeds): it is read as the ``total`` it was.

    >>> upcast_print({"notation": "1d20", "kind": "pf2e", "modifier": 11, "dc": 0, "shift": 0})["kind"]
    'total'
    >>> upcast_print({"notation": "1d20", "kind": "pf2e", "modifier": 11, "dc": 16})["kind"]
    'pf2e'
    """
    out = dict(print_)
    if out.get("kind") == "pf2e" and out.get("dc") == 0 and not out.get("shift"):
        out["kind"] = "total"
    return out


def check_of(print_: Mapping[str, Any]) -> CheckSpec | None:
    """The ``CheckSpec`` a ``check_print`` was taken from (None for a roll without a check)."""
    if "kind" not in print_:
        return None
    fields = {k: v for k, v in print_.items() if k in {f.name for f in dataclasses.fields(CheckSpec)}}
    if fields.get("pool") is not None:
        fields["pool"] = PoolSpec(**fields["pool"])
    fields["bands"] = tuple(tuple(b) for b in fields.get("bands") or ())
    return CheckSpec(**fields)


class LockBroken(RuleError):
    """A rolled check computed differently than when it was rolled (``preview_turn`` words it with the choice).

    Nothing is drawn for the check computed now: it is not the one released.
    """

    def __init__(self, step: str, key: str, lock: RollLock, now: dict[str, Any]) -> None:
        super().__init__(f"roll {key!r} was rolled as another check", step=step)
        self.key, self.lock, self.now = key, lock, now


class HeldNew(RuleError):
    """A roll a held row (``RollLock.by``: a player's row at the table) makes in the month as it stands and did not
    make where it was rolled (Pull Together's flat check, once the row that took it was sent back): nothing is drawn
    for it, the step is refused in words (``words``)."""

    def __init__(self, step: str, key: str, lock: RollLock, now: dict[str, Any]) -> None:
        label = _spoken(str(now.get("label") or "")) or "another roll"
        self.words = (f"{lock.by} was rolled without {label}; in the month as it stands it also rolls it"
                      f" ({check_words(now)}), not rolled where it was rolled" + (f": {lock.way}" if lock.way else ""))
        super().__init__(self.words, step=step)
        self.key, self.lock, self.now = key, lock, now


class FacesChanged(RuleError):
    """A rolled check's faces typed, changed or cleared after it was rolled (only a re-roll changes them)."""

    def __init__(self, step: str, key: str, lock: RollLock) -> None:
        super().__init__(f"roll {key!r}: its faces were changed after it was rolled", step=step)
        self.key, self.lock = key, lock


class StepGate:
    """The ``RollGate`` of one step: a roll is drawn only once released, and a re-roll only for a reason allowed.

    Released: every roll in an ``auto`` plan (``release=True``); in an ``on_roll`` plan, a roll in the
    step's ``rolled`` (then its check must be the one it was rolled as, else ``LockBroken``), with
    typed faces, or named in ``release`` (``True``: every roll reached). A roll released now is kept
    in ``made`` with its check and the step's choices (``keep``). ``probe``: stop at that key even if
    released (to read the check a changed choice computes there, nothing drawn). Before a re-rolled
    roll is drawn, its reasons must be ones the rules give for that check or a GM ruling with a note.
    """

    def __init__(self, ruleset: Ruleset, state: State, step: str, sp: StepPlan, release: Collection[str] | bool = (),
                 *, keep: bool = True, probe: str | None = None) -> None:
        self.ruleset, self.state, self.step, self.plan = ruleset, state, step, sp
        self.release = release
        self.keep = keep
        self.probe = probe
        self.made: dict[str, RollLock] = {}

    def admit(self, key: str, notation: str, check: CheckSpec | None, dice: Dice) -> None:
        if key == self.probe:
            raise RollPending(PendingRoll(key, notation, check))
        lock = self.plan.rolled.get(key)
        typed = self.plan.rolls.get(key)
        if lock is not None:
            now = check_print(check, notation)
            if lock.check != now and not (lock.by and same_outcome(lock.check, now, lock.typed or [])):
                raise LockBroken(self.step, key, lock, now)
            if lock.typed != (list(typed) if typed is not None else None):
                raise FacesChanged(self.step, key, lock)
        elif typed is None and (held := self._held(key)) is not None:  # a held row's roll it did not make: not drawn
            raise HeldNew(self.step, key, held, check_print(check, notation))
        elif typed is not None or self.release is True or (
                not isinstance(self.release, bool) and key in self.release):
            if self.keep:
                self.made[key] = RollLock(check=check_print(check, notation), choices=copy.deepcopy(self.plan.choices),
                                          typed=list(typed) if typed is not None else None)
        else:
            raise RollPending(PendingRoll(key, notation, check))
        if key in self.plan.reroll_reasons:
            self._check_reasons(key, check)

    def _held(self, key: str) -> RollLock | None:
        """The held lock (``RollLock.by``) of the row ``key`` belongs to (its part: ``a2`` of ``a2.pull``), if any."""
        part = key.split(".")[0]
        return next((lk for k, lk in self.plan.rolled.items() if lk.by and k.split(".")[0] == part), None)

    def _check_reasons(self, key: str, check: CheckSpec | None) -> None:
        allowed = {GM_RULING.id: GM_RULING,
                   **{r.id: r for r in self.ruleset.reroll_reasons(self.state, self.step, key, check)}}
        for r in self.plan.reroll_reasons[key]:
            if r.reason not in allowed:
                raise InputError(f"step {self.step!r}, roll {key!r}: re-roll reason {r.reason!r} is not one this roll"
                                 f" may have ({', '.join(sorted(allowed))})")
            if r.reason == GM_RULING.id and not r.note.strip():
                raise InputError(f"step {self.step!r}, roll {key!r}: a re-roll by GM ruling needs a note saying why")


_MISSING = object()


def _diff(a: Any, b: Any, path: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """The paths where two choice documents differ (a list of another length differs as a whole)."""
    if a == b:
        return []
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[tuple[str | int, ...]] = []
        for k in [*a, *(k for k in b if k not in a)]:
            out += _diff(a.get(k, _MISSING), b.get(k, _MISSING), (*path, k))
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [p for i, (x, y) in enumerate(zip(a, b, strict=True)) for p in _diff(x, y, (*path, i))]
    return [path]


def _at(doc: Any, path: Sequence[str | int]) -> Any:
    """The value at ``path`` in a choices document (``_MISSING`` where there is none)."""
    for p in path:
        if isinstance(doc, dict):
            if p not in doc:
                return _MISSING
            doc = doc[p]
        elif isinstance(doc, list) and isinstance(p, int) and p < len(doc):
            doc = doc[p]
        else:
            return _MISSING
    return doc


def _with(doc: dict[str, Any], path: Sequence[str | int], value: Any) -> dict[str, Any]:
    """A copy of ``doc`` with ``value`` at ``path`` (``_MISSING``: the key removed)."""
    out = copy.deepcopy(doc)
    cur: Any = out
    for p in path[:-1]:
        cur = cur[p]
    if value is _MISSING:
        cur.pop(path[-1], None)
    else:
        cur[path[-1]] = copy.deepcopy(value)
    return out


def _path_text(path: Sequence[str | int]) -> str:
    """``activities[0].skill`` (the form ``views.forms.error_path`` reads back)."""
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else p)
    return out


def _spoken(label: str) -> str:
    """A check's label in words: ``quell-unrest`` → ``Quell unrest``."""
    text = label.replace("_", " ").replace("-", " ").strip()
    return text[:1].upper() + text[1:]


def check_words(print_: Mapping[str, Any]) -> str:
    """``d20 +6 vs DC 16`` (what a check is, before its dice), from its ``check_print``.

    >>> check_words({"notation": "1d20", "kind": "pf2e", "modifier": 6, "dc": 16})
    'd20 +6 vs DC 16'
    >>> check_words({"notation": "2d4"})
    '2d4'
    >>> check_words({"notation": "1d20", "kind": "total", "modifier": 11, "dc": 0})
    "d20 +11 against the other side's total"
    """
    kind, notation = print_.get("kind"), str(print_.get("notation", ""))
    die = notation[1:] if notation.startswith("1d") else notation
    if kind in ("pf2e", "d20", "5e"):
        mode = f" with {print_['mode']}" if print_.get("mode", "normal") != "normal" else ""
        return f"{die} {int(print_.get('modifier', 0)):+d} vs DC {print_.get('dc')}{mode}"
    if kind == "flat":
        return f"DC {print_.get('dc')} flat check"
    if kind == "total":  # an initiative: no DC, its total meets the other side's
        return f"{die} {int(print_.get('modifier', 0)):+d} against the other side's total"
    if kind == "2d6" and print_.get("modifier"):
        return f"{die} {int(print_['modifier']):+d}"
    return die


def roll_words(print_: Mapping[str, Any], roll: Roll) -> str:
    """``d20 = 3: failure``: a rolled check's faces and what they gave under it."""
    from kingdomlog.dice.odds import resolve

    notation = str(print_.get("notation", roll.notation))
    die = notation[1:] if notation.startswith("1d") else notation
    text = f"{die} = {', '.join(str(f) for f in roll.faces)}"
    spec = check_of(print_)
    got = resolve(spec, roll) if spec is not None else None
    return f"{text}: {got.label}" if got is not None else text


def reroll_offer(ruleset: Ruleset, state: State, step: str, key: str, check: CheckSpec | None) -> str:
    """How a rolled check may be rolled again, in words: the re-rolls the rules give, then a GM ruling."""
    given = [r.label for r in ruleset.reroll_reasons(state, step, key, check)]
    if not given:
        return "a GM ruling (with a note)"
    return f"a re-roll the rules give ({', '.join(given)}) or a GM ruling (with a note)"


def rolled_as(dice: StepRoller, key: str, lock: RollLock, nonce: int) -> Roll:
    """The roll ``key`` showed when it was rolled (its typed faces, else the keyed ones at ``nonce``)."""
    from kingdomlog.dice.notation import parse

    notation = str(lock.check.get("notation"))
    faces = list(lock.typed) if lock.typed is not None else list(dice.faces_at(key, notation, nonce))
    ev = parse(notation).evaluate(faces)
    return Roll(key, notation, ev.faces, ev.kept, ev.total, manual=lock.typed is not None, nonce=nonce)


def _lock_refusal(ruleset: Ruleset, state: State, phase: Step, sp: StepPlan, exc: LockBroken, was: Roll,
                  dice: StepRoller, *, campaign: str, turn: int, start_seq: int) -> str:
    """The words of a refused change to a rolled check, at the choice that changed it when one single choice did.

    The choices that differ from those the roll was made with are put back one at a time (each a dry
    run of the step up to that roll, nothing drawn there); the first that gives the rolled check back
    is the one named.
    """
    lock, key = exc.lock, exc.key
    label = _spoken(str(lock.check.get("label") or ""))
    name = label or f"Roll {key!r}"
    rolled = roll_words(lock.check, was)
    offer = reroll_offer(ruleset, state, phase.id, key, check_of(exc.now))
    for path in _diff(lock.choices, sp.choices)[:12]:
        trial = _with(sp.choices, path, _at(lock.choices, path))
        gate = StepGate(ruleset, state, phase.id, sp, keep=False, probe=key)
        probe = StepRoller(dice.seed, dice.campaign, dice.turn, dice.step, dict(sp.rolls), dict(sp.rerolls))
        try:
            res = run_step(ruleset, state, phase, trial, probe, campaign=campaign, turn=turn, start_seq=start_seq,
                           gate=gate)
        except KingdomlogError:
            continue
        got = res.pending
        if got is None or got.key != key or check_print(got.check, got.notation) != lock.check:
            continue
        named = [p for p in path if isinstance(p, str)]
        what = named[-1].replace("_", " ") if named else "choice"
        old = _at(lock.choices, path)
        if old is _MISSING:  # left at its default when it was rolled: say which
            with contextlib.suppress(KingdomlogError):
                old = _at(validate_choices(phase.choices, lock.choices, state=state, vocabulary=ruleset.vocabulary,
                                           step=phase.id).model_dump(mode="json"), path)
        value = "its default" if old is _MISSING else (old if isinstance(old, str) else json.dumps(old))
        return (f"choice {_path_text(path)}: {name} was rolled with {what} {value} ({rolled});"
                f" to change the {what}, re-roll it: {offer}")
    return (f"roll {key!r}: {label or 'It'} was rolled as {check_words(lock.check)} ({rolled}) and is now"
            f" {check_words(exc.now)}; put back what changed it, or re-roll it: {offer}")


def roll_arithmetic(print_: Mapping[str, Any], roll: Roll) -> str:
    """A rolled check's faces, total and DC as the table reads them: ``d20 = 5 +1 = 6 vs DC 16``.

    >>> roll_arithmetic({"notation": "1d20", "kind": "flat", "dc": 11}, Roll("a1", "1d20", (7,), (7,), 7))
    'd20 = 7 vs DC 11'
    >>> roll_arithmetic({"notation": "1d20", "kind": "total", "modifier": 11}, Roll("b", "1d20", (7,), (7,), 7))
    'd20 = 7 +11 = 18'
    """
    notation = str(print_.get("notation", roll.notation))
    die = notation[1:] if notation.startswith("1d") else notation
    text = f"{die} = {', '.join(str(f) for f in roll.faces)}"
    mod = print_.get("modifier")
    if isinstance(mod, int) and len(roll.faces) == 1 and print_.get("kind") in ("pf2e", "d20", "5e", "total"):
        text += f" {mod:+d} = {roll.faces[0] + mod}"
    if print_.get("dc") is not None and print_.get("kind") != "total":  # a total has no DC
        text += f" vs DC {print_['dc']}"
    return text


def outcome_words(print_: Mapping[str, Any], roll: Roll) -> str:
    """A rolled check in words, its degree first: ``a critical failure (d20 = 5 +1 = 6 vs DC 16)``.

    >>> outcome_words({"notation": "1d20", "kind": "pf2e", "modifier": 1, "dc": 16}, Roll("a1", "1d20", (5,), (5,), 5))
    'a critical failure (d20 = 5 +1 = 6 vs DC 16)'
    >>> outcome_words({"notation": "1d20", "kind": "flat", "dc": 11}, Roll("a1", "1d20", (7,), (7,), 7))
    'a failure (d20 = 7 vs DC 11)'
    """
    from kingdomlog.dice.odds import resolve

    text = roll_arithmetic(print_, roll)
    spec = check_of(print_)
    try:
        got = resolve(spec, roll) if spec is not None else None
    except (KingdomlogError, ValueError):
        got = None
    if got is None:
        return text
    label = str(got.label)
    return f"{'an' if label[:1] in 'aeiou' else 'a'} {label} ({text})"


def faces_as(print_: Mapping[str, Any], key: str, faces: Sequence[int]) -> Roll | None:
    """``faces`` read under the notation of ``print_`` (None when they do not fit its dice)."""
    from kingdomlog.dice.notation import parse

    notation = str(print_.get("notation", "1d20"))
    try:
        ev = parse(notation).evaluate(list(faces))
    except (KingdomlogError, ValueError):
        return None
    return Roll(key, notation, ev.faces, ev.kept, ev.total, manual=True)


def same_outcome(was: Mapping[str, Any], now: Mapping[str, Any], faces: Sequence[int]) -> bool:
    """Whether ``faces`` give the same outcome under check ``now`` as under ``was`` (``check_print``s): the same check,
    or the same dice and the same degree (a modifier moved by one that leaves a success a success).

    >>> was = {"notation": "1d20", "kind": "pf2e", "modifier": 1, "dc": 16}
    >>> same_outcome(was, {**was, "modifier": 2}, [15]), same_outcome(was, {**was, "modifier": 2}, [5])
    (True, False)
    """
    if was == now:
        return True
    from kingdomlog.dice.odds import resolve

    a, b = check_of(was), check_of(now)
    roll = faces_as(was, "", faces)
    if a is None or b is None or roll is None or was.get("notation") != now.get("notation"):
        return False
    try:
        x, y = resolve(a, roll), resolve(b, roll)
    except (KingdomlogError, ValueError):
        return False
    return x is not None and y is not None and x.label == y.label


def held_words(lock: RollLock, key: str, now: Mapping[str, Any] | None) -> str:
    """Why a held roll (``RollLock.by``) no longer stands in the month, in words: what it was rolled as, what the same
    faces give in the month as it stands (``now``: the check computed there; None: the month no longer rolls it), and
    ``RollLock.way``. Never the roll key.

    >>> lock = RollLock(check={"notation": "1d20", "kind": "pf2e", "modifier": 1, "dc": 16, "label": "Provide Care"},
    ...                 typed=[5], by="Maelis's Provide Care", way="re-roll it or send it back")
    >>> for part in held_words(lock, "a2", {**lock.check, "modifier": 2}).split("; "):
    ...     print(part)
    Maelis's Provide Care was rolled as a critical failure (d20 = 5 +1 = 6 vs DC 16)
    in the month as it stands it is a failure (d20 = 5 +2 = 7 vs DC 16): re-roll it or send it back
    >>> print(held_words(lock, "a2", None).split(";")[1])
     in the month as it stands it is not rolled: re-roll it or send it back
    """
    faces = list(lock.typed or [])
    was = faces_as(lock.check, key, faces)
    old = outcome_words(lock.check, was) if was is not None else check_words(lock.check)
    label = _spoken(str(lock.check.get("label") or ""))
    title = lock.by.split("'s ", 1)[-1].split(" (", 1)[0].lower()
    who = lock.by if not label or label.lower().startswith(title) else f"{lock.by}: its {label}"  # a follow-up roll
    if now is None:
        what = f"{who} was rolled as {old}; in the month as it stands it is not rolled"
    else:
        got = faces_as(now, key, faces)
        new = outcome_words(now, got) if got is not None else check_words(now)
        what = f"{who} was rolled as {old}; in the month as it stands it is {new}"
    return f"{what}: {lock.way}" if lock.way else what


def _held_gone(sp: StepPlan, rolls: Sequence[Roll]) -> tuple[str, str] | None:
    """``(by, words)`` when the step no longer makes a held roll (``RollLock.by``) it was given."""
    used = {r.key for r in rolls}
    for k, lock in sp.rolled.items():
        if lock.by and k not in used:
            return lock.by, held_words(lock, k, None)
    return None


def _stale_locks(phase: Step, sp: StepPlan, rolls: Sequence[Roll]) -> str | None:
    """A refusal when the step no longer makes a roll it made (a row taken away after its roll was seen)."""
    used = {r.key for r in rolls}
    gone = [k for k in sp.rolled if k not in used]
    if not gone:
        return None
    k = gone[0]
    name = _spoken(str(sp.rolled[k].check.get("label") or "")) or f"roll {k!r}"
    return (f"roll {k!r}: {name} was rolled ({check_words(sp.rolled[k].check)}) and this step no longer makes it;"
            f" put back what took it away, or take the roll back by a re-roll with its reason")


def _check_actors(step: str, sp: StepPlan, declared: Sequence[str] | None) -> None:
    """An ``InputError`` when a step names an actor the campaign does not declare as a player."""
    if declared is None:
        return
    for part, who in sp.actors.items():
        if who not in declared:
            known = ", ".join(declared) or "none"
            raise InputError(f"step {step!r}: actors.{part}: {who!r} is not a player of this campaign ({known})")


def _check_rerolls(step: str, sp: StepPlan, mode: DiceMode) -> None:
    """``InputError`` unless each re-roll has one reason (in an ``on_roll`` plan every re-roll must have one)."""
    keys = set(sp.reroll_reasons) | (set(sp.rerolls) if mode == "on_roll" else set())
    for key in sorted(keys):
        reasons = sp.reroll_reasons.get(key, [])
        nonce = sp.rerolls.get(key, 0)
        if len(reasons) == nonce:
            continue
        if mode == "on_roll" and len(reasons) < nonce:
            raise InputError(f"step {step!r}, roll {key!r}: re-rolled {nonce} time(s) with {len(reasons)} reason(s);"
                             " re-roll a rolled check from its card, with its reason")
        raise InputError(f"step {step!r}, roll {key!r}: {len(reasons)} re-roll reason(s) for re-roll nonce {nonce}"
                         " (one reason per re-roll)")


def common_visibility(visibilities: Sequence[str]) -> str:
    """Who may read all of ``visibilities``: ``public`` only if all are, else the players every one allows, else ``gm``.

    >>> common_visibility(["public", "faction:a,faction:b", "faction:b"])
    'faction:b'
    >>> common_visibility(["public", "gm"]), common_visibility([]), common_visibility(["public"])
    ('gm', 'gm', 'public')
    """
    if not visibilities:
        return GM
    parsed = [parse_visibility(v) for v in visibilities]
    if any(v.is_gm_only for v in parsed):
        return GM
    narrow = [set(v.parts) for v in parsed if not v.is_public]
    if not narrow:
        return PUBLIC
    both = set.intersection(*narrow)
    first = next(v for v in parsed if not v.is_public)
    return ",".join(p for p in first.parts if p in both) or GM


def _reroll_drafts(ruleset: Ruleset, state: State, step: str, sp: StepPlan, dice: StepRoller,
                   checks: Mapping[str, CheckSpec], drafts: Sequence[Draft], turn: int) -> list[Draft]:
    """One ``core.dice_rerolled`` per explicit re-roll of the step, for whoever may see all the step's events."""
    from kingdomlog.core.core_events import DiceRerolled

    if not sp.reroll_reasons:
        return []
    by_key = {r.key: r for r in dice.rolls}
    vis = common_visibility([d.visibility for d in drafts])
    out: list[Draft] = []
    for key, reasons in sp.reroll_reasons.items():
        now = by_key.get(key)
        labels = {GM_RULING.id: GM_RULING.label,
                  **{r.id: r.label for r in ruleset.reroll_reasons(state, step, key, checks.get(key))}}
        check = sp.rolled.get(key)
        for i, r in enumerate(reasons):
            before = list(r.before) or (list(dice.faces_at(key, now.notation, i)) if now is not None else [])
            after = (reasons[i + 1].before or (list(dice.faces_at(key, now.notation, i + 1)) if now else [])) \
                if i + 1 < len(reasons) else (list(now.faces) if now is not None else [])
            out.append(Draft(DiceRerolled(step=step, key=key, nonce=i + 1, reason=r.reason,
                                          reason_label=labels.get(r.reason, r.reason), note=r.note,
                                          check=_spoken(str(check.check.get("label") or "")) if check else "",
                                          faces_before=tuple(before), faces_after=tuple(after)),
                             phase=step, actor=sp.actors.get(key.split(".")[0], "gm"), visibility=vis,
                             turn=turn))
    return out


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
    release: Release = None,
) -> TurnPreview:
    """Play ``plan`` on ``state`` step by step, purely, and return the preview.

    ``start_seq`` is the log's last seq (the ``expect_seq`` of the commit). The seed
    comes from the plan, else ``seed``; one of them is required so that the same plan
    always gives the same dice. Each step's choices are validated by its schema; typed
    faces or re-rolls under a key the step does not roll are refused; with ``players``
    (the campaign's declared players) every draft's visibility must name only them. A
    refusal is recorded on its step and stops the preview there.

    In an ``on_roll`` plan a roll is drawn only once released (the module's text): ``release``
    names the rolls to release now (Roll pressed: keys by step; ``"all"``: Roll all), which the
    preview reports in ``released``. A step reaching a roll not released stops there, pending,
    and so does the preview. Each step's explicit re-rolls are recorded after its events.
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
        gate = step_gate(ruleset, current, plan, phase.id, sp, release)
        try:
            _check_rerolls(phase.id, sp, plan.dice)
            _check_actors(phase.id, sp, declared)
            res = run_step(ruleset, current, phase, sp.choices, dice, campaign=campaign, turn=turn, start_seq=seq,
                           gate=gate, rerolled={k: [r.reason for r in v] for k, v in sp.reroll_reasons.items()},
                           actors=sp.actors)
            if res.pending is not None:
                steps.append(StepPreview(phase, dict(sp.choices), [], list(dice.rolls), None, list(res.breakdowns),
                                         checks=dict(res.checks), typed=res.choices, pending=res.pending,
                                         released=dict(gate.made) if gate is not None else {}))
                break
            gone = _held_gone(sp, dice.rolls)
            if gone is not None:  # a roll made elsewhere (a player's row) the month no longer makes: in words
                steps.append(StepPreview(phase, dict(sp.choices), [], list(dice.rolls), None,
                                         error=str(RuleError(gone[1], step=phase.id)), held=gone[0]))
                break
            problem = _unused_dice(phase.id, sp, dice.rolls) or _stale_locks(phase, sp, dice.rolls)
            if problem:
                raise InputError(problem)
            if declared is not None:
                for d in res.drafts:
                    try:
                        parse_visibility(d.visibility, declared)
                    except InputError as exc:
                        raise InputError(f"step {phase.id!r}: event {d.type}: {exc}") from None
            drafts = [*res.drafts, *_reroll_drafts(ruleset, current, phase.id, sp, dice, res.checks, res.drafts,
                                                   turn)]
        except HeldNew as exc:  # a player's row makes a roll in the month it did not make at the table: in words
            steps.append(StepPreview(phase, dict(sp.choices), [], list(dice.rolls), None,
                                     error=str(RuleError(exc.words, step=phase.id)), held=exc.lock.by))
            break
        except (LockBroken, FacesChanged) as exc:  # shown with the roll as it was rolled, and its Re-roll
            lock = exc.lock
            was = rolled_as(dice, exc.key, lock, sp.rerolls.get(exc.key, 0))
            if lock.by:  # a roll made elsewhere (a player's row at the table): in words, never its key
                steps.append(StepPreview(phase, dict(sp.choices), [], list(dice.rolls), None,
                                         error=str(RuleError(held_words(lock, exc.key, exc.now if isinstance(
                                             exc, LockBroken) else lock.check), step=phase.id)), held=lock.by))
                break
            if isinstance(exc, LockBroken):
                words = _lock_refusal(ruleset, current, phase, sp, exc, was, dice, campaign=campaign, turn=turn,
                                      start_seq=seq)
            else:
                name = _spoken(str(lock.check.get("label") or "")) or "It"
                offer = reroll_offer(ruleset, current, phase.id, exc.key, check_of(lock.check))
                words = (f"roll {exc.key!r}: {name} was rolled ({roll_words(lock.check, was)}); its faces change"
                         f" only by a re-roll: {offer}")
            spec = check_of(lock.check)
            steps.append(StepPreview(phase, dict(sp.choices), [], [*dice.rolls, was], None,
                                     checks={exc.key: spec} if spec is not None else {},
                                     error=str(RuleError(words, step=phase.id))))
            break
        except (RuleError, InputError, InternalError) as exc:
            steps.append(StepPreview(phase, dict(sp.choices), [], list(dice.rolls), None, error=str(exc),
                                     internal=isinstance(exc, InternalError)))
            break
        seq += len(drafts)
        steps.append(StepPreview(phase, dict(sp.choices), drafts, list(dice.rolls), res.state,
                                 list(res.breakdowns), checks=dict(res.checks), typed=res.choices,
                                 questions=list(res.questions),
                                 released=dict(gate.made) if gate is not None else {}))
        current = res.state
    return TurnPreview(turn, use_seed, start_seq, steps, state, current, note_drafts(plan, turn, declared))


def step_gate(ruleset: Ruleset, state: State, plan: Plan, step: str, sp: StepPlan,
              release: Release = None) -> StepGate | None:
    """The gate of ``step``'s rolls in ``plan`` (``state``: before the step); in an ``auto`` plan every roll passes
    (None: no gate at all, unless the step has rolls locked or re-rolls with reasons to check)."""
    if plan.dice != "on_roll":
        return StepGate(ruleset, state, step, sp, True, keep=False) if sp.rolled or sp.reroll_reasons else None
    now: Collection[str] | bool = True if release == "all" else () if release is None or isinstance(release, str) \
        else release.get(step, ())
    return StepGate(ruleset, state, step, sp, now)


def keep_released(plan: Plan, preview: TurnPreview, *, only: Collection[str] | None = None) -> Plan:
    """``plan`` with the rolls ``preview`` released kept in each step's ``rolled`` (a step not in it is added).

    ``only``: keep those of these steps alone (a step filled by a player's submission keeps its typed faces).
    The same plan previewed again gives the same turn, without releasing anything.
    """
    released = preview.released
    if only is not None:
        released = {k: v for k, v in released.items() if k in only}
    if not released:
        return plan
    steps = dict(plan.steps)
    for sid, locks in released.items():
        sp = steps.get(sid, StepPlan())
        steps[sid] = sp.model_copy(update={"rolled": {**sp.rolled, **locks}})
    return plan.model_copy(update={"steps": steps})


def with_reroll(plan: Plan, step: str, key: str, reason: str, *, note: str = "", before: Sequence[int] = (),
                faces: Sequence[int] | None = None, base: StepPlan | None = None) -> Plan:
    """``plan`` with roll ``key`` of ``step`` re-rolled: a new nonce, its reason, the faces it showed, no lock.

    ``faces``: physical dice typed for the new roll (None: the keyed roller's). The roll is then
    pending again; preview it with ``release`` to roll it (nothing is drawn here). ``base``: the step's
    plan when ``plan`` leaves the step out (its defaults or a player's submission).
    """
    sp = plan.steps.get(step) or base or StepPlan()
    rolls = {k: v for k, v in sp.rolls.items() if k != key}
    if faces is not None:
        rolls[key] = list(faces)
    sp = sp.model_copy(update={
        "rolls": rolls,
        "rerolls": {**sp.rerolls, key: sp.rerolls.get(key, 0) + 1},
        "reroll_reasons": {**sp.reroll_reasons, key: [*sp.reroll_reasons.get(key, []),
                                                      Reroll(reason=reason, note=note, before=list(before))]},
        "rolled": {k: v for k, v in sp.rolled.items() if k != key},
    })
    return plan.model_copy(update={"steps": {**plan.steps, step: sp}})


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
    """Raise the first step's rule error, or say which roll a step still waits for (for headless play)."""
    for s in preview.steps:
        if s.error:
            raise InternalError(s.error, step=s.phase.id, formatted=True) if s.internal else RuleError(s.error)
        if s.pending is not None:
            raise RuleError(waiting_words(s), step=s.phase.id)
    return preview


def waiting_words(step: StepPreview) -> str:
    """Why a step of an ``on_roll`` plan stopped: the roll it waits for, and how to roll it."""
    p = step.pending
    if p is None:
        return ""
    what = check_words(check_print(p.check, p.notation))
    return (f"step {step.phase.id!r} waits for its roll {p.key!r} ({what}), not rolled yet: roll it on the turn"
            " sheet, or play the plan with \"dice\": \"auto\"")


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
                "rolled": {"type": "object", "description": "rolls released in an on_roll plan, by roll key: the"
                           " check each was rolled as and the step's choices then",
                           "additionalProperties": {"$ref": "#/$defs/RollLock"}},
                "reroll_reasons": {"type": "object", "description": "why each re-roll of a key was made, one per"
                                   " nonce (a re-roll the rules give, or gm: a GM ruling with a note)",
                                   "additionalProperties": {"type": "array", "items": {"$ref": "#/$defs/Reroll"}}},
            },
        }
    defs["RollLock"] = RollLock.model_json_schema()
    defs["Reroll"] = Reroll.model_json_schema()
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
            "dice": {"enum": ["auto", "on_roll"], "default": "auto",
                     "description": "auto: every roll is drawn when its step reaches it (a plan played headless);"
                                    " on_roll: only rolls released (rolled, faces typed), the turn sheet's mode"},
            "steps": {"type": "object", "additionalProperties": False, "properties": steps},
        },
        "$defs": defs,
    }
