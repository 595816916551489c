"""The ruleset seam (design §4): the base class every rule system derives from, and its registry.

A ruleset is an object of a ``Ruleset`` subclass registered under an id with aliases
(``find_ruleset("PF2e Kingmaker")``). Every hook a ruleset may supply is declared
here once, with a neutral default, so core code calls hooks and never looks one up.
Everything a ruleset does is pure: no I/O, no clock, no random draws; dice come in
through the ``Dice`` of a step and their faces go into the events it emits.

A ruleset declares its turn as ``Step`` s (id, title, typed ``Choices``, ``decide``).
``run_step`` validates a step's choices against the state, gives its ``decide`` a
``StepContext`` (``emit``, ``roll``, ``fail``, ``explain``) and returns a
``StepResult``: the drafts, the state after the step (each draft folded once, through
``Ruleset.apply``) and the step's own breakdowns. With a ``RollGate`` (a plan whose dice
are rolled when someone presses Roll, design §5) a roll not yet released stops the step
there, before any die is drawn: the result is then ``pending`` on that roll, with no drafts.

Core code never names a ruleset: they are found through the ``kingdomlog.rulesets``
package (a manifest of its sub-packages, imported one at a time as a campaign or an
event type needs it) and the ``kingdomlog.rulesets`` entry-point group.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel

from kingdomlog.core.choices import (
    LIMIT,
    Choices,
    FieldSpec,
    NoChoices,
    Option,
    bounded_json,
    describe,
    validate_choices,
)
from kingdomlog.core.errors import (
    CorruptLogError,
    InputError,
    InternalError,
    KingdomlogError,
    RuleError,
    UnknownRulesetError,
)
from kingdomlog.core.events import Draft, EventModel, RecordedEvent, add_type_loader, is_registered, provisional
from kingdomlog.core.viewers import Viewer

if TYPE_CHECKING:
    from kingdomlog.core.board import Board
    from kingdomlog.core.foreign import ForeignFormat
    from kingdomlog.core.mapdata import MapData
    from kingdomlog.core.portrait import Better, Portrait
    from kingdomlog.dice.checks import CheckSpec
    from kingdomlog.dice.roller import Roll

State = BaseModel
"""A ruleset's state: a pydantic model, treated as immutable (``evolve`` returns a new one)."""

S = TypeVar("S", bound=BaseModel)


class Dice(Protocol):
    """What a step rolls with: keyed, deterministic, possibly typed in by the GM."""

    def roll(self, key: str, notation: str) -> Roll:
        """Roll ``notation`` under ``key`` (unique within the step); the faces are in the result."""
        ...


@dataclass(frozen=True)
class PendingRoll:
    """A roll a step reached whose dice are not released yet: what will be rolled, and the check it resolves.

    No face exists for it anywhere (``StepContext.roll`` stopped before the dice were asked).
    """

    key: str
    notation: str
    check: CheckSpec | None = None


class RollPending(BaseException):
    """Control flow, not an error: ``StepContext.roll`` reached a roll that is not released.

    Raised by a ``RollGate`` and caught by ``run_step`` alone (a ``BaseException``, so no
    ``except Exception`` in a ruleset's rules can swallow it); the step stops there.
    """

    def __init__(self, pending: PendingRoll) -> None:
        super().__init__(pending.key)
        self.pending = pending


class RollGate(Protocol):
    """Decides, before any die is drawn, whether a roll of a step may be drawn now (design §5: a roll has its moment).

    ``admit`` returns to let the roll be drawn, raises ``RollPending`` to stop the step before it,
    or raises a ``RuleError`` (a rolled check that changed since it was rolled).
    """

    def admit(self, key: str, notation: str, check: CheckSpec | None, dice: Dice) -> None: ...


@dataclass(frozen=True)
class RerollReason:
    """A re-roll the rules give (pf2e: spend a Fame point), offered beside "GM ruling" when a rolled check is re-rolled.

    ``id`` is what a plan records (``StepPlan.reroll_reasons``) and what ``StepContext.rerolled``
    returns to the step's rules, which charge its cost; ``label`` and ``detail`` are its words.
    """

    id: str
    label: str
    detail: str = ""


OptionType = Literal["bool", "int", "float", "str", "choice", "list", "table"]


@dataclass(frozen=True)
class OptionSpec:
    """A campaign option a ruleset declares: type, default, help and allowed values.

    A number is finite and within ``minimum``..``maximum``, each ``±LIMIT`` when not declared (issue 28: ``inf``
    in ``campaign.toml`` was an internal error, and a number no rule means can drive a loop without end); a table
    holds JSON's own values, its numbers within ``±LIMIT`` (``core.choices.bounded_json``).

    >>> OptionSpec("rounds", "int", 3, "battle rounds").validate(float("inf"))
    Traceback (most recent call last):
    ...
    kingdomlog.core.errors.InputError: option 'rounds' must be an integer, got inf
    >>> OptionSpec("weight", "float", 1.0, "a weight").validate(float("nan"))
    Traceback (most recent call last):
    ...
    kingdomlog.core.errors.InputError: option 'weight' must be a finite number, got nan
    >>> OptionSpec("rounds", "int", 3, "battle rounds").validate(10**6, entering=True)
    Traceback (most recent call last):
    ...
    kingdomlog.core.errors.InputError: option 'rounds' must be at most 10000, got 1000000
    >>> OptionSpec("rounds", "int", 3, "battle rounds").validate(10**6)  # as a log recorded it
    1000000
    """

    name: str
    type: OptionType
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    title: str = ""
    """What a person calls the option ("Revolution"); empty: its name in words ("Revolution threshold")."""
    said: tuple[tuple[str, str], ...] = ()
    """Each choice as a person says it, ``(value, words)`` (``("gte20", "at Unrest 20 or more")``); a value not
    here is said as its id in words."""

    def words(self, value: Any) -> tuple[str, str]:
        """The option and ``value`` as a page says them (issue 29: a campaign's options read "revolution threshold
        gte20"): ``(title, value in words)``.

        >>> OptionSpec("revolution_threshold", "choice", "gte20", "", ("gte20", "gt20"), title="Revolution",
        ...            said=(("gte20", "at Unrest 20 or more"),)).words("gte20")
        ('Revolution', 'at Unrest 20 or more')
        >>> OptionSpec("levy_gain_floor", "bool", True, "").words(False), OptionSpec("m", "list", [], "").words(
        ...     ["holy_sites", "fame_infamy"])
        (('Levy gain floor', 'no'), ('M', 'holy sites, fame infamy'))
        """
        title = self.title or _acronyms(plain_words(self.name).capitalize())
        said = dict(self.said)

        def one(v: Any) -> str:
            if isinstance(v, bool):
                return "yes" if v else "no"
            if isinstance(v, float):
                return f"{v:g}"
            if isinstance(v, str) and v in said:
                return said[v]
            if isinstance(v, str) and re.fullmatch(r"[A-Z][A-Z0-9_]{3,}", v):  # an enum's value kept in capitals
                return plain_words(v).lower()
            if isinstance(v, str):
                return _acronyms(plain_words(v)) if re.fullmatch(r"[a-z0-9_\-]+", v) else v
            if isinstance(v, (list, tuple)):
                return ", ".join(one(x) for x in v) or "none"
            if isinstance(v, dict):
                return "; ".join(f"{plain_words(str(k))} {one(x)}" for k, x in v.items()) or "none"
            return "—" if v is None else str(v)

        return title, one(value)

    def validate(self, value: Any, *, where: str = "option", entering: bool = False) -> Any:
        """Check and coerce ``value``; raises ``InputError`` naming the option.

        A number must lie within the option's declared ``minimum``/``maximum``. ``entering``: the value is
        being given now (``kingdomlog new --set``, campaign.toml), so a number with no declared range must also
        lie within ``core.choices.LIMIT``; a value a log recorded is only held to its declared range, so a
        campaign made before that limit existed still folds.
        """
        label = f"{where} {self.name!r}"
        if self.type == "bool":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.lower() in ("true", "false", "yes", "no", "1", "0", "on", "off"):
                return value.lower() in ("true", "yes", "1", "on")
            raise InputError(f"{label} must be true or false, got {value!r}")
        if self.type in ("int", "float"):
            try:
                if isinstance(value, bool):
                    raise ValueError
                num: float | int = int(value) if self.type == "int" else float(value)
                if self.type == "int" and isinstance(value, float) and value != int(value):
                    raise ValueError
            except (TypeError, ValueError, OverflowError):  # OverflowError: int(inf)
                kind = "an integer" if self.type == "int" else "a number"
                raise InputError(f"{label} must be {kind}, got {value!r}") from None
            if not math.isfinite(num):
                raise InputError(f"{label} must be a finite number, got {value!r}")
            lo = (-LIMIT if entering else -math.inf) if self.minimum is None else self.minimum
            hi = (LIMIT if entering else math.inf) if self.maximum is None else self.maximum
            if num < lo:
                raise InputError(f"{label} must be at least {lo:g}, got {num}")
            if num > hi:
                raise InputError(f"{label} must be at most {hi:g}, got {num}")
            return num
        if self.type == "choice":
            if value not in self.choices:
                raise InputError(f"{label} must be one of {', '.join(self.choices)}; got {value!r}")
            return value
        if self.type == "str":
            if not isinstance(value, str):
                raise InputError(f"{label} must be a string, got {value!r}")
            return value
        if self.type == "list":
            if isinstance(value, str):
                value = [v.strip() for v in value.split(",") if v.strip()]
            if not isinstance(value, list):
                raise InputError(f"{label} must be a list, got {value!r}")
            if self.choices:
                bad = [v for v in value if v not in self.choices]
                if bad:
                    raise InputError(f"{label}: unknown value(s) {bad}; allowed: {', '.join(self.choices)}")
            return list(value)
        if self.type == "table":
            if not isinstance(value, dict):
                raise InputError(f"{label} must be a table, got {value!r}")
            try:
                bounded_json(value)
            except ValueError as exc:
                raise InputError(f"{label}: {exc}") from None
            return dict(value)
        raise InputError(f"{label} has unknown type {self.type!r}")  # pragma: no cover


def validate_options(specs: Sequence[OptionSpec], raw: Mapping[str, Any], *, where: str = "option",
                     entering: bool = False) -> dict[str, Any]:
    """Fill defaults and validate ``raw`` against ``specs``; unknown keys are an error. ``entering``: the options
    are being given now, not read from a log (see ``OptionSpec.validate``)."""
    by_name = {s.name: s for s in specs}
    unknown = sorted(set(raw) - set(by_name))
    if unknown:
        known = ", ".join(sorted(by_name)) or "(none)"
        raise InputError(f"unknown {where}(s) {', '.join(unknown)}; this ruleset knows: {known}")
    out: dict[str, Any] = {}
    for spec in specs:
        out[spec.name] = spec.validate(raw[spec.name], where=where, entering=entering) if spec.name in raw \
            else spec.default
    return out


@dataclass(frozen=True)
class Term:
    """One term of a breakdown: a label, a signed value and its kind (status, item, ...)."""

    label: str
    value: int | float
    kind: str = "untyped"
    source: str = ""


@dataclass(frozen=True)
class Breakdown:
    """A derived number explained term by term (design: every number can be explained)."""

    name: str
    total: int | float
    terms: tuple[Term, ...] = ()
    note: str = ""

    def render(self) -> str:
        """``name = total (term +v, term -v)``."""
        inner = ", ".join(f"{t.label} {t.value:+g}" for t in self.terms)
        return f"{self.name} = {self.total:g}" + (f" ({inner})" if inner else "")


@dataclass(frozen=True)
class CampaignContext:
    """What a ruleset gets to start a campaign: id, validated options, homebrew data, declared players."""

    campaign: str
    options: Mapping[str, Any]
    data: Mapping[str, Any] = field(default_factory=dict)
    viewers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Seat:
    """Where a player acts in a turn: the rows they propose into one list of a step's choices.

    ``step`` and ``rows`` name the list (pf2e: ``activity.leadership``, ``activities``); ``fixed`` are the
    keys of each row the seat sets itself (``{"role": "ruler"}``: the player acts as the Ruler), neither
    shown nor changeable; ``limit`` is how many rows the seat may propose (None: as many as the step takes);
    ``label`` says in words who acts ("Ruler (Ysolde)"). A row's dice are rolled as the list's first row
    (roll keys ``Ruleset.row_key``); the GM's sheet places it where it goes.
    """

    step: str
    rows: str
    label: str
    fixed: Mapping[str, Any] = field(default_factory=dict)
    limit: int | None = None
    help: str = ""
    roll: str = ""
    """A seat that rolls one check of a GM step instead of proposing rows (pf1: the General rolls the upkeep's
    Stability check): the roll key. ``rows`` is then empty; the check is the one the GM's month computes."""
    part: str = ""
    """A seat that gives one field of a row the GM's month has, not a row of its own (pf2e: the General gives
    the kingdom's armies' orders, ``rounds``, of a battle the GM set up): the field's name. Declared with
    ``fill`` 0, the table opens one such seat per row of ``rows`` in the GM's month (``Ruleset.fill_seat``)."""
    fill: int = 0
    """With ``part``: the GM's row (1-based) of ``rows`` the seat gives its part of."""
    allowed: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """With ``part``: the values an entry of the part may hold, by key (``{"army": ("militia",)}``: orders for
    the kingdom's armies only); an entry with another value is refused by name."""

    @property
    def parts(self) -> tuple[str, ...]:
        """The fields of the GM's row a part seat gives (``part`` names several joined by ``+``: pf1's General gives
        ``ours_tactic+ours_use+rounds``); () for a seat of rows of its own."""
        return tuple(self.part.split("+")) if self.part else ()

    @property
    def id(self) -> str:
        """``activity.leadership/activities/role=ruler``: the seat's name in the table's records
        (``activity.battle/battles/rounds@1`` for a part of the GM's first row)."""
        parts = "&".join(f"{k}={self.fixed[k]}" for k in sorted(self.fixed))
        if self.part:
            parts = f"{self.part}@{self.fill}" + (f"&{parts}" if parts else "")
        return f"{self.step}/{self.rows or '@' + self.roll}/{parts}"


def join_value(gm: Any, given: Any) -> Any:
    """The GM's value of a part with the player's added: lists of lists joined list by list (a battle's rounds: the
    GM's orders of round 1, then the player's), lists joined, else the player's.

    >>> join_value([[{"army": "raiders"}], []], [[{"army": "militia"}], [{"army": "militia"}]])
    [[{'army': 'raiders'}, {'army': 'militia'}], [{'army': 'militia'}]]
    """
    if isinstance(gm, list) and isinstance(given, list):
        if all(isinstance(x, list) for x in (*gm, *given)):
            n = max(len(gm), len(given))
            return [[*(gm[i] if i < len(gm) else []), *(given[i] if i < len(given) else [])] for i in range(n)]
        return [*gm, *given]
    return given if given is not None else gm


def blank_value(gm: Any) -> Any:
    """A part's value with nothing of the GM's in it: as many empty lists as the GM's list of lists has (a battle's
    rounds), an empty list, else None.

    >>> blank_value([[{"army": "raiders"}], []]), blank_value([{"a": 1}]), blank_value("Standard")
    ([[], []], [], None)
    """
    if isinstance(gm, list):
        return [[] for _ in gm] if all(isinstance(x, list) for x in gm) else []
    return None


_ROW_KEY = re.compile(r"^([a-z]+)1((?:\.[^.]+)*)$")

DecideFn = Callable[["StepContext[Any]", Any], None]


def _no_decide(ctx: StepContext[Any], choices: Any) -> None:
    raise InputError(f"step {ctx.step!r} has no rules to decide it")


@dataclass(frozen=True)
class Step:
    """One step of a turn, declared once: id, title, help, its typed choices and its ``decide``.

    ``decide(ctx, choices)`` receives a ``StepContext`` and the validated ``choices``
    model; it emits events through ``ctx.emit`` and refuses with ``raise ctx.fail(...)``.
    ``dice`` lists the roll keys it may use (for forms and docs; a roll key may also be
    computed, like ``a1.0``, ``a1.1``).
    """

    id: str
    title: str
    help: str = ""
    dice: tuple[str, ...] = ()
    choices: type[Choices] = NoChoices
    decide: DecideFn = _no_decide


Phase = Step
"""The older name of ``Step``."""


@dataclass(frozen=True)
class Answer:
    """One answer a ``Question`` offers: the value that goes into the choices (any JSON), a label, a detail."""

    value: Any
    label: str = ""
    detail: str = ""


@dataclass(frozen=True)
class Question:
    """An input a step needs from one player, asked while the step is decided (``StepContext.ask``).

    The step went on with ``default``; the answer, once given, goes into the choices of ``step``
    at ``path`` (``("responses", "c1")`` is ``choices["responses"]["c1"]``), and the next preview
    decides with it. ``prompt`` and the options' labels must show only what ``to`` may see.
    Questions of one ``group`` are asked together; a later group waits for the earlier ones.
    """

    id: str
    to: str
    kind: str
    prompt: str
    step: str
    path: tuple[str, ...]
    options: tuple[Answer, ...] = ()
    default: Any = None
    group: str = ""


@dataclass(frozen=True)
class StepResult:
    """What one step decided: its drafts, the state after them and the step's own breakdowns.

    ``rolls`` are the dice the step read (faces, whether typed); ``checks`` the checks it
    rolled by roll key (the numbers their odds depend on).
    """

    step: str
    choices: Choices
    drafts: tuple[Draft, ...]
    state: BaseModel
    breakdowns: tuple[Breakdown, ...] = ()
    rolls: tuple[Roll, ...] = ()
    checks: Mapping[str, CheckSpec] = field(default_factory=dict)
    questions: tuple[Question, ...] = ()
    pending: PendingRoll | None = None
    """The roll the step stopped at, not released yet (then ``drafts`` is empty and ``state`` the state before)."""


class StepContext(Generic[S]):
    """A step being decided: the running state, the drafts so far, the dice and what explains them.

    Every ``emit`` folds its event at once (``Ruleset.apply``), so later choices in the
    same step are checked against the updated state. Nothing of a step reaches the log
    unless the whole step decides without error.
    """

    def __init__(self, ruleset: Ruleset, state: S, step: str, dice: Dice, *, campaign: str, turn: int,
                 start_seq: int = 0, gate: RollGate | None = None,
                 rerolled: Mapping[str, Sequence[str]] | None = None,
                 actors: Mapping[str, str] | None = None) -> None:
        self.ruleset = ruleset
        self.actors: Mapping[str, str] = dict(actors or {})
        self.actor = "gm"
        self.gate = gate
        self.reroll_reasons: Mapping[str, tuple[str, ...]] = {k: tuple(v) for k, v in (rerolled or {}).items()}
        self.start: S = state
        self.state: S = state
        self.step = step
        self.dice = dice
        self.campaign = campaign
        self.turn = turn
        self.seq = start_seq
        self.drafts: list[Draft] = []
        self.breakdowns: list[Breakdown] = []
        self.rolls: list[Roll] = []
        self.checks: dict[str, CheckSpec] = {}
        self.questions: list[Question] = []

    def emit(self, payload: EventModel, *, actor: str | None = None, visibility: str = "public") -> S:
        """Record ``payload`` as an event of this step and fold it; returns the new running state.

        ``actor``: who acted (default: the player acting in this part of the step, ``acting``, else the GM).
        """
        draft = Draft(payload, phase=self.step, actor=actor or self.actor, visibility=visibility, turn=self.turn)
        self.seq += 1
        new = self.ruleset.apply(self.state, provisional(self.campaign, self.seq, draft))
        self.state = new
        self.drafts.append(draft)
        return self.state

    def roll(self, key: str, notation: str, *, check: CheckSpec | None = None) -> Roll:
        """Roll ``notation`` under ``key``; ``check`` describes the check it resolves (for its odds).

        Under a ``RollGate`` a roll not released yet stops the step here (``RollPending``): nothing
        after this line of the rules runs, and no die is drawn.
        """
        if self.gate is not None:
            try:
                self.gate.admit(key, notation, check, self.dice)
            except RollPending:
                if check is not None:
                    self.checks[key] = check
                raise
        r = self.dice.roll(key, notation)
        self.rolls.append(r)
        if check is not None:
            self.checks[key] = check
        return r

    @contextlib.contextmanager
    def acting(self, part: str) -> Iterator[None]:
        """The events emitted inside are the acts of whoever the plan names for ``part`` (a row's roll key, ``a3``;
        ``StepPlan.actors``), the GM's when it names no one. Rulesets wrap each row a player may propose.

        >>> from kingdomlog.dice.roller import KeyedRoller
        >>> ctx = StepContext(Ruleset(), None, "s", KeyedRoller("x", "c", 1).for_step("s"), campaign="c", turn=1,
        ...                   actors={"a2": "ysolde"})
        >>> with ctx.acting("a2"):
        ...     inside = ctx.actor
        >>> inside, ctx.actor
        ('ysolde', 'gm')
        """
        before = self.actor
        self.actor = self.actors.get(part, before)
        try:
            yield
        finally:
            self.actor = before

    def rerolled(self, key: str) -> tuple[str, ...]:
        """The reasons (``RerollReason.id`` or ``gm``) of each explicit re-roll of ``key``, oldest first.

        A step whose rules give a re-roll at a cost (pf2e: a Fame point) charges it here, once per reason.
        """
        return self.reroll_reasons.get(key, ())

    def fail(self, message: str, rule: str | None = None) -> RuleError:
        """A ``RuleError`` naming this step and ``rule`` (raise it)."""
        return RuleError(message, rule=rule, step=self.step)

    def ask(self, question: Question) -> Any:
        """Record that this step needed ``question`` answered and went on without it; returns its default.

        Call it only where the input is missing (the answer, once given, arrives in the choices).
        """
        self.questions.append(question)
        return question.default

    def explain(self, *breakdowns: Breakdown) -> None:
        """Add breakdowns of the numbers this step used (shown under the step)."""
        self.breakdowns.extend(breakdowns)

    def result(self, choices: Choices) -> StepResult:
        return StepResult(self.step, choices, tuple(self.drafts), self.state, tuple(self.breakdowns),
                          tuple(self.rolls), dict(self.checks), tuple(self.questions))

    def stopped(self, choices: Choices, pending: PendingRoll) -> StepResult:
        """A step stopped at ``pending``: no drafts, the state before, what it explained and rolled so far."""
        return StepResult(self.step, choices, (), self.start, tuple(self.breakdowns), tuple(self.rolls),
                          dict(self.checks), tuple(self.questions), pending)


_ACRONYMS = {"bp": "BP", "dc": "DC", "rp": "RP", "xp": "XP", "hp": "HP", "pc": "PC", "pcs": "PCs", "uc": "UC",
             "rrr": "RRR", "lm": "LM", "trl": "TRL", "rm": "RM", "npc": "NPC", "Rp": "RP", "Xp": "XP", "Uc": "UC"}


def _acronyms(text: str) -> str:
    """The abbreviations in ``text`` in capitals: ``Rp to xp limit`` → ``RP to XP limit``."""
    return " ".join(_ACRONYMS.get(w, w) for w in text.split(" "))


def plain_words(id: str) -> str:
    """An id with its separators as spaces: ``hire_troops`` → ``hire troops``, ``claim-hex`` → ``claim hex``,
    ``a1.e1`` → ``a1 e1`` (a ruleset's ``name_of`` says better where it knows the id).

    >>> plain_words("pull-together:claim-hex"), plain_words("between_years")
    ('pull together: claim hex', 'between years')
    """
    return re.sub(r"\s*:\s*", ": ", re.sub(r"[_\-.]+", " ", id)).strip()


class LazyFold(Generic[S]):
    """A ruleset's fold (its ``evolve`` function) named by module and attribute, imported at the first event it folds
    and kept: ``_FOLD = LazyFold[Pf1State]("kingdomlog.rulesets.pf1.evolve")``, and the ruleset's ``evolve`` returns
    ``_FOLD(state, event)``.

    A warm ``kingdomlog state`` reads a snapshot and folds no event, so a ruleset whose fold (and the payload classes
    it imports) is named this way does not import it for that (issue 31). Importing is the module system's (once per
    process, under its lock); the function found is kept here, so each later event costs one test, not an import.
    """

    __slots__ = ("_fold", "attribute", "module")

    def __init__(self, module: str, attribute: str = "evolve") -> None:
        self.module = module
        self.attribute = attribute
        self._fold: Callable[[Any, RecordedEvent], S] | None = None

    def __call__(self, state: Any, event: RecordedEvent) -> S:
        """The state after ``event`` (the fold's own result and errors), importing the fold if it is the first."""
        return (self._fold or self.load())(state, event)

    @property
    def loaded(self) -> bool:
        """Whether the fold has been imported (by a call or ``load``)."""
        return self._fold is not None

    def load(self) -> Callable[[Any, RecordedEvent], S]:
        """Import the fold now (if not already) and return it; ``InternalError`` if the module has no such function."""
        if self._fold is None:
            fold = getattr(importlib.import_module(self.module), self.attribute, None)
            if not callable(fold):
                raise InternalError(f"{self.module}.{self.attribute} is not a function: a ruleset's fold is named"
                                    f" wrongly")
            self._fold = fold
        return self._fold

    def __repr__(self) -> str:
        return f"LazyFold({self.module!r}, {self.attribute!r})"


class Ruleset:
    """The base of every ruleset (design §4). Subclasses set the class attributes and the hooks they need.

    Required: ``id``, ``name``, ``initial_state`` and ``evolve``, and the turn's steps in
    ``phases`` / ``phases_for``. Every other hook has a neutral default here.
    """

    id: ClassVar[str] = ""
    name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    turn_unit: ClassVar[str] = "turn"
    """What one turn is called ("month", "year", "season")."""
    version: ClassVar[str] = "1"
    """The version of this ruleset's rules code and data (bump it when they change what a fold gives)."""
    chart_figures: ClassVar[tuple[str, ...]] = ()
    """The ``summary`` columns a player view charts over turns, in order."""
    better_figures: ClassVar[Mapping[str, Literal["up", "down"]]] = {}
    """Which way each ``summary`` column is good for the kingdom: ``up`` (more is better: Treasury,
    Stability) or ``down`` (less is better: Unrest, Ruin). A column not named is neither (a name, a count, a
    flag): its change is shown uncoloured. Read through ``better``."""
    panel_columns: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    """The fields of a collection of records (a field of the state: ``armies``) that the GM's kingdom panel keeps
    as columns beside each record's name, in order: the one or two a GM scans down (pf1's army: its Army CR, HP and
    status); the record's other fields are said on a line below it, those that are set ("Morale 2 · Hex 4"), so
    that the table fits the narrow panel (``views.sheet.panel.records_table``). A collection not named keeps every
    field a column (a table of hexes keeps its terrain and place and says the rest below)."""
    redacts_hidden_events: ClassVar[bool] = False
    """True when ``redact(state, viewer)`` itself removes all that events hidden from the viewer put in the
    state (Signoria's faction views are built that way). Otherwise a player's page shows the state folded from
    the events that player may see, so a GM-only event's army or hex never reaches it."""

    # ---- declarations ------------------------------------------------------------------

    @property
    def options(self) -> Sequence[OptionSpec]:
        """The campaign options (house rules, optional modules) this ruleset takes."""
        return ()

    @property
    def event_types(self) -> Sequence[type[EventModel]]:
        """Every payload class of this ruleset (they share its namespace, e.g. ``pf2e.``)."""
        return ()

    @cached_property
    def namespaces(self) -> frozenset[str]:
        """The namespaces of this ruleset's event types (``pf2e`` of ``pf2e.check_resolved``)."""
        return frozenset(t.type.split(".", 1)[0] for t in self.event_types)

    @property
    def phases(self) -> Sequence[Step]:
        """The ordered steps of a regular turn."""
        return ()

    def phases_for(self, state: Any, turn: int) -> Sequence[Step]:
        """The ordered steps of ``turn`` in ``state`` (turn 0 is usually founding/setup)."""
        return self.phases

    @property
    def all_steps(self) -> Sequence[Step]:
        """Every step this ruleset declares, in any turn (for plan schemas and docs)."""
        return self.phases

    def find_step(self, state: Any, turn: int, step: str) -> Step:
        """The step ``step`` of ``turn``; ``InputError`` listing the turn's steps."""
        steps = self.phases_for(state, turn)
        for s in steps:
            if s.id == step:
                return s
        raise InputError(f"turn {turn} has no step {step!r}; steps: {', '.join(s.id for s in steps)}")

    # ---- the fold ----------------------------------------------------------------------

    def initial_state(self, context: CampaignContext) -> Any:
        """The state before the first event."""
        raise NotImplementedError(f"{type(self).__name__} does not define initial_state")

    def state_class(self, context: CampaignContext) -> type[BaseModel]:
        """The class of the state in ``context``: ``type(initial_state(context))``, named without building one.

        A warm read (``store.cache.SnapshotCache.latest``) needs only the class, to fingerprint the snapshot and
        validate it into; the default builds the initial state to find it. A ruleset whose initial state costs
        something to build (pf1's reads and validates its whole catalogue, ~30 ms, issue 31) names its class.
        """
        cls: type[BaseModel] = type(self.initial_state(context))
        return cls

    def evolve(self, state: Any, event: RecordedEvent) -> Any:
        """Apply one of this ruleset's events (pure; returns a new state; never re-derives recorded outcomes)."""
        raise NotImplementedError(f"{type(self).__name__} does not define evolve")

    def apply(self, state: Any, event: RecordedEvent) -> Any:
        """``evolve`` guarded by the namespace check: an event of another ruleset is a ``CorruptLogError``."""
        self.check_namespace(event)
        try:
            return self.evolve(state, event)
        except KingdomlogError:
            raise
        except Exception as exc:  # a bug in evolve: said so, never passed off as the user's or the log's fault
            raise self.evolve_failed(event, exc) from exc

    def check_namespace(self, event: RecordedEvent) -> None:
        """``CorruptLogError`` unless ``event``'s type is in one of this ruleset's namespaces."""
        ns = event.type.split(".", 1)[0]
        if ns not in self.namespaces:
            raise CorruptLogError(f"event type {event.type!r} does not belong to ruleset {self.id!r} (its events"
                                  f" are {', '.join(sorted(f'{n}.*' for n in self.namespaces))})", seq=event.seq)

    def evolve_failed(self, event: RecordedEvent, exc: Exception) -> InternalError:
        """The error for a bug in ``evolve`` (or ``evolve_working``) applying ``event``."""
        return InternalError(f"ruleset {self.id!r} failed applying seq {event.seq} ({event.type}):"
                             f" {type(exc).__name__}: {exc}", seq=event.seq)

    # ---- the fold of many events: a private working state --------------------------------
    #
    # ``fold`` (replays, the snapshot cache, the SQL states table) folds many events at once. A ruleset
    # whose ``evolve`` copies a frozen state per event may fold them instead into a *working state* of
    # its own: ``thaw`` makes one from a frozen state, ``evolve_working`` applies one event to it (in
    # place, if it likes: no one but the fold holds it) and ``freeze`` gives back a frozen state. The
    # three must fold to a state equal to ``evolve``'s, event for event (tests/test_working_fold.py folds
    # every registered ruleset's samples both ways). The defaults are ``evolve`` itself: the working state
    # is the state. ``core.working.CopyOnWriteRuleset`` is the three for a frozen pydantic state.

    def thaw(self, state: Any) -> Any:
        """A working state equal to ``state`` that ``evolve_working`` may change; ``state`` itself never changes."""
        return state

    def evolve_working(self, work: Any, event: RecordedEvent) -> Any:
        """Apply one event to the working state ``work`` and return the working state (changed in place or new).

        The rules of ``evolve`` hold (pure but for ``work``; recorded outcomes applied, never re-derived),
        and so do its errors: a fault of the log is a ``CorruptLogError`` naming the seq.
        """
        return self.evolve(work, event)

    def freeze(self, work: Any) -> Any:
        """The frozen state equal to the working state ``work``; later changes to ``work`` never reach it."""
        return work

    def audit(self, state: Any, event: RecordedEvent) -> list[str]:
        """What today's rules compute differently from what ``event`` recorded, given the state before it.

        Warnings only: replay folds the recorded facts whatever this says (``kingdomlog audit``).
        """
        return []

    # ---- choices -----------------------------------------------------------------------

    def vocabulary(self, state: Any, source: str, within: Mapping[str, Any]) -> Sequence[Option] | None:
        """The allowed values of a ``Pick(source)`` in ``state``; ``within``: the sibling values of the entry."""
        raise InputError(f"ruleset {self.id!r} has no list of {source!r} to choose from")

    def choices(self, state: Any, turn: int, step: str, values: Mapping[str, Any] | None = None
                ) -> tuple[FieldSpec, ...]:
        """The form of ``step``: one ``FieldSpec`` per choice, options from ``state`` (and ``values``)."""
        spec = self.find_step(state, turn, step)
        return describe(spec.choices, state=state, vocabulary=self.vocabulary, values=values)

    def name_of(self, id: str, kind: str = "") -> str:
        """What a person reads for ``id``, an id of this ruleset (issue 29): the one place its names in words come
        from, for the GM sheet, the player pages, the orders sheet, reports and the CLI alike.

        ``kind`` says what ``id`` names: ``step`` (a step of the turn: its title), ``roll`` (a roll key: what is
        rolled), ``check`` (what a check or flat check is for), ``action``, ``activity``, ``role``, ``event``,
        ``option``, ``phase``, ``figure`` (a ``summary`` key as a panel heads it: aikakirjat's ``session_no`` is
        "Session"), ``column`` (a record's field as a table's column is headed: pf1's ``om`` is "Offense modifier"),
        ``field:<name>`` (a value of a record's field ``<name>`` as a table cell says it: a founder
        ``pc`` is "a PC"); ``""`` when unknown. A ruleset names what it knows (its ``vocabulary.py``) and
        leaves the rest to this default: a step's title, else the id with its separators as spaces.

        >>> Ruleset().name_of("hire_troops"), Ruleset().name_of("natures-blessing", "event")
        ('hire troops', 'natures blessing')
        """
        if kind == "step":
            found = next((s for s in self.all_steps if s.id == id), None)
            if found is not None and found.title:
                return found.title
        return plain_words(id)

    def check_title(self, key: str, spec: CheckSpec) -> str | None:
        """The title a check's card line reads, in words, when this ruleset says it itself (issue 29: a roll
        whose label is its key, "b8.1.r1.attacker.main", says what is rolled: "Battle of Fabia, round 1: the
        attacker's main army, 7 dice at 5+"); None (the default): the sheet's shared title
        (``views.words.check_title``: the check's label, its dice and DC).
        """
        return None

    def question_words(self, state: Any, kind: str, prompt: str, labels: list[str]) -> tuple[str, list[str]]:
        """A posted question's prompt and its options' labels as ``state`` (its reader's) words them (issue 29): a
        ruleset whose older questions were posted with ids ("marburg tried to bribe Cesare") tells them again
        from what they recorded; the log is not changed. The default: as posted."""
        return prompt, labels

    def choice_widget(self, state: Any, step: str, field: FieldSpec, value: Any) -> Any:
        """A custom form widget for one choice, or None for the one built from ``field``."""
        return None

    def boards(self, before: Any, step: str, choices: Mapping[str, Any], rolls: Sequence[Roll],
               checks: Mapping[str, CheckSpec], drafts: Sequence[Draft]) -> Sequence[Board]:
        """The battles ``step`` plays, as boards (``core.board``): the armies of each side from ``before`` (the
        state before the step), a line per roll made so far (``rolls``, their ``checks``), and once the step has
        run (``drafts``: its events; none while it waits for a roll) what came of each battle. ``()``: the step
        plays no battle (the default)."""
        return ()

    # ---- players -----------------------------------------------------------------------

    def option_players(self, options: Mapping[str, Any]) -> Sequence[str]:
        """Player/faction ids the campaign's validated ``options`` declare (beside ``campaign.toml``'s viewers).

        Read from the options alone, never from a state: a viewer's name is parsed from the
        campaign's config, with nothing of the log folded (Signoria: its ``players`` option).
        """
        return ()

    def player_name(self, state: Any, player: str) -> str | None:
        """The name ``state`` gives player or faction ``player`` (Signoria: its faction's, "Duke Fabian"), or None
        when the state names no one by it (the default): what a page, a report or the CLI calls a player whose
        ``campaign.toml`` entry has no ``name`` (``Campaign.player_name``). Every viewer may read it (it is read
        from the GM's state when no viewer's is at hand), so it names only what the whole table knows."""
        return None

    def option_words(self, options: Mapping[str, Any]) -> list[tuple[str, str]]:
        """A campaign's ``options`` as a page says them (``OptionSpec.words``): ``(title, value)`` for each this
        ruleset declares, in its order ("Revolution", "at Unrest 20 or more"); an option it does not declare is
        said with its name in words."""
        specs = {o.name: o for o in self.options}
        out = [specs[k].words(options[k]) for k in specs if k in options]
        return out + [OptionSpec(k, "str", None, "").words(v) for k, v in options.items() if k not in specs]

    def record_names(self, state: Any) -> Mapping[str, str]:
        """The names of the records ``state`` keeps without a ``name`` of their own, by id (aikakirjat: an
        institution ``academy-sampo`` is "the Sampo Academy", as its report says it): what ``views.words.Namer``
        says for such an id on a page; a record's own ``name`` comes first. None by default."""
        return {}

    def field_words(self, state: Any) -> Mapping[tuple[str, str, str], str]:
        """The values of records' fields that only ``state`` can say in words, by (collection, record id, field):
        signoria's character's ``activity`` ``S2`` is an order of its employer's, said by what it does ("intrigue
        abroad"), which the id alone cannot tell. What the GM's kingdom panel shows in that cell. None by
        default."""
        return {}

    def player_steps(self, state: Any, turn: int, viewer: Viewer) -> Sequence[str]:
        """The steps of ``turn`` that ``viewer`` (a player) may submit; none by default."""
        return ()

    def seats(self, state: Any, turn: int, player: str, character: str) -> Sequence[Seat]:
        """Where ``player`` (whose character in the state is named ``character``) acts in ``turn``: the rows
        they may propose at the table (``app.table``). ``state`` is the player's own view at the turn's start.
        None by default (a ruleset whose players only watch, or submit whole steps: ``player_steps``)."""
        return ()

    def row_limit(self, state: Any, step: str, rows: Sequence[Mapping[str, Any]], row: Mapping[str, Any]
                  ) -> tuple[str, str] | None:
        """Whether a limit per turn refuses ``row`` of ``step`` after ``rows``: rows of the turn that ``state`` does
        not hold yet (the step's rows in the month so far, a player's proposals at the table not yet in it). The
        same rule the step applies when it runs (pf2e: an activity once per Kingdom turn, §3.3 A1.3), asked before
        (``app.table.declare``). Returns (the field of ``row`` it concerns, the rule's words), or None. Default:
        None (a ruleset's steps check their limits when they run)."""
        return None

    def fill_seat(self, state: Any, turn: int, seat: Seat, index: int, row: Mapping[str, Any]) -> Seat | None:
        """The seat ``seat`` (one with a ``part``) for the GM's row ``index`` (1-based) of its list, or None when
        the player has no part in it. ``row``: the GM's values of that row, which the player never sees (decide
        from it only what their own view shows: ``state``). Default: the seat for that row."""
        return dataclasses.replace(seat, fill=index)

    def join_part(self, step: str, parts: Sequence[str], gm: Mapping[str, Any], given: Mapping[str, Any]
                  ) -> dict[str, Any]:
        """The GM's row ``gm`` with a part seat's values ``given`` (its ``parts``, ``Seat.parts``) added: by default
        each part's value joined as ``join_value`` joins it (pf2e's rounds: the GM's orders of round 1, then the
        player's). A ruleset whose part lies inside the GM's entries (pf1: a round's ``ours_*`` orders beside the GM's
        ``enemy_*``) joins it there, and refuses (``InputError``) what the player may not give."""
        out = dict(gm)
        for name in parts:
            out[name] = join_value(gm.get(name), given.get(name))
        return out

    def blank_part(self, step: str, parts: Sequence[str], gm: Mapping[str, Any]) -> dict[str, Any]:
        """The GM's row ``gm`` as a part seat's player may hold it: each part emptied (``blank_value``), so nothing of
        the GM's own part (the enemy's orders) is offered or shown."""
        return {**gm, **{name: blank_value(gm.get(name)) for name in parts}}

    def part_hidden(self, step: str, parts: Sequence[str]) -> frozenset[str]:
        """Names of fields inside a part that are the GM's (pf1: a round's ``enemy_*``): the player's form leaves them
        out at any depth. None by default."""
        return frozenset()

    def row_part(self, step: str, index: int) -> str:
        """The name of row ``index`` (1-based) of a seat's list in ``step``, as its rules name it in
        ``StepContext.acting`` (``a3``: the third activity). Default ``a<index>``."""
        return f"a{index}"

    def row_key(self, step: str, key: str, index: int) -> str:
        """Roll ``key`` of a row rolled as its list's first row, for the same row at ``index`` (1-based).

        By default the number right after the key's leading letters is the row's: ``a1`` → ``a3``,
        ``a1.check`` → ``a3.check``, ``rev1.d`` → ``rev3.d``; other keys are the step's own and stay.

        >>> Ruleset().row_key("s", "a1.check", 3), Ruleset().row_key("s", "resource", 3)
        ('a3.check', 'resource')
        """
        m = _ROW_KEY.match(key)
        return f"{m.group(1)}{index}{m.group(2)}" if m else key

    # ---- dice --------------------------------------------------------------------------

    def reroll_reasons(self, state: Any, step: str, key: str, check: CheckSpec | None) -> Sequence[RerollReason]:
        """The re-rolls the rules give for roll ``key`` of ``step`` (``check``: what it resolves, None for plain dice).

        ``state`` is the state before the step. A rolled check may always be re-rolled by a GM ruling
        (``gm``, with a note); these are the others. The step's rules see each re-roll's reason through
        ``StepContext.rerolled`` and charge its cost there, before the die is drawn (refusing it when
        the kingdom cannot pay). None by default.
        """
        return ()

    def redact(self, state: Any, viewer: Viewer) -> Any:
        """What ``viewer`` may see of ``state`` (everything, for rulesets without secrets)."""
        return state

    # ---- reading -----------------------------------------------------------------------

    def summary(self, state: Any) -> dict[str, Any]:
        """Main figures as flat scalars (the columns of the ``states`` SQL view)."""
        return {}

    def better(self, key: str) -> Better:
        """Which way ``summary`` column ``key`` is good for the kingdom: ``better_figures[key]``, or ``""``
        (neither) for a column it does not name. A ruleset whose columns are named per campaign (a faction's
        ``<id>_power``) overrides this."""
        return self.better_figures.get(key, "")

    def explain(self, state: Any) -> list[Breakdown]:
        """Every derived number of ``state``, term by term."""
        return []

    def render(self, state: Any) -> str:
        """A compact canonical one-line text of the state (for reprs, tests, errors)."""
        return " ".join(f"{k}={v}" for k, v in self.summary(state).items())

    # ---- player views ------------------------------------------------------------------

    def map(self, state: Any, viewer: Viewer) -> MapData | None:
        """The map of ``state`` as ``viewer`` may see it (``state`` is already redacted for them); None: no map.

        Hexes, regions and settlement grids as neutral ``core.mapdata`` values; the library draws them.
        Leave out whatever ``viewer`` may not see (fog of war, a rival's secrets): the drawing shows all of it.
        """
        return None

    def chronicle(self, before: Any, event: RecordedEvent, after: Any, viewer: Viewer) -> str | None:
        """One sentence for a player about ``event`` (None: nothing worth telling).

        ``before`` and ``after`` are the states around the event, redacted for ``viewer``; ``event`` is one
        ``viewer`` may see. Write for people ("the Granary was built in Tatzlford"), from recorded facts.
        """
        return None

    def chronicle_section(self, event: RecordedEvent, viewer: Viewer) -> str:
        """The part of a turn's report ``chronicle``'s sentence about ``event`` belongs to ("What we ordered",
        "What we learned"); "" (the default) is what happened."""
        return ""

    def portrait(self, state: Any, previous: Any | None, viewer: Viewer) -> Portrait | None:
        """The kingdom in words for ``viewer``: a headline, figures with labels and their change since
        ``previous`` (the state at the end of the turn before; None at founding), leaders, extra sections.

        Both states are redacted for ``viewer``. None: the view falls back to the ``summary`` columns.
        """
        return None

    def sql_views(self) -> Mapping[str, str]:
        """View name -> SELECT over the ``events`` and ``states`` tables.

        By default read from ``views.sql`` beside the ruleset's module: each view starts
        at a line ``-- view: <name>`` and runs to the next such line.
        """
        pkg = type(self).__module__.rsplit(".", 1)[0]
        try:
            text = resources.files(pkg).joinpath("views.sql").read_text(encoding="utf-8")
        except (FileNotFoundError, ModuleNotFoundError, TypeError):
            return {}
        return parse_views(text)

    # ---- other tools -------------------------------------------------------------------

    def foreign_formats(self) -> Sequence[ForeignFormat]:
        """Kingdoms other tools export that this ruleset imports (and writes back): ``core.foreign`` (issue 32).

        ``kingdomlog import-kingdom`` asks every ruleset; the first format whose ``detect`` accepts a document
        reads it. None by default.
        """
        return ()

    # ---- conformance -------------------------------------------------------------------

    def sample_events(self) -> list[Draft]:
        """At least one valid payload of every event type (for the conformance suite)."""
        return []

    def sample_plans(self) -> list[dict[str, Any]]:
        """Plans (turn 0 founding first) that play legally from ``initial_state`` in order."""
        return []

    def data_tables(self) -> Mapping[str, Callable[[], Any]]:
        """Name -> loader of each rules data table (each must load without error)."""
        return {}


def parse_views(text: str) -> dict[str, str]:
    """Views of a ``views.sql`` text: ``-- view: <name>`` lines start each one.

    >>> parse_views("-- header\\n-- view: a\\nSELECT 1;\\n-- view: b\\nSELECT 2\\n")
    {'a': 'SELECT 1', 'b': 'SELECT 2'}
    """
    out: dict[str, str] = {}
    name: str | None = None
    body: list[str] = []
    for line in text.splitlines():
        if line.startswith("-- view:"):
            if name:
                out[name] = "\n".join(body).strip().rstrip(";").strip()
            name, body = line.removeprefix("-- view:").strip(), []
        elif name is not None:
            body.append(line)
    if name:
        out[name] = "\n".join(body).strip().rstrip(";").strip()
    return out


def run_step(
    ruleset: Ruleset,
    state: Any,
    step: str | Step,
    choices: Mapping[str, Any] | Choices | None,
    dice: Dice,
    *,
    campaign: str = "campaign",
    turn: int = 0,
    start_seq: int = 0,
    gate: RollGate | None = None,
    rerolled: Mapping[str, Sequence[str]] | None = None,
    actors: Mapping[str, str] | None = None,
) -> StepResult:
    """Decide one step: validate ``choices`` against the step's schema and ``state``, run its ``decide``.

    Raises ``InputError`` for choices that do not fit the schema (naming the step and
    key) and whatever ``RuleError`` the step's rules raise; nothing is returned then.
    ``gate`` (a plan whose dice wait for Roll) may stop the step at a roll not released:
    the result is then ``pending`` on it, with no drafts. ``rerolled``: the reasons of each
    explicit re-roll by roll key (``StepContext.rerolled``). ``actors``: who acted in a part of
    the step, by the part's roll key (``StepContext.acting``).
    """
    spec = step if isinstance(step, Step) else ruleset.find_step(state, turn, step)
    model = validate_choices(spec.choices, choices, state=state, vocabulary=ruleset.vocabulary, step=spec.id)
    ctx: StepContext[Any] = StepContext(ruleset, state, spec.id, dice, campaign=campaign, turn=turn,
                                        start_seq=start_seq, gate=gate, rerolled=rerolled, actors=actors)
    try:
        spec.decide(ctx, model)
    except RollPending as stop:
        return ctx.stopped(model, stop.pending)
    except InternalError as exc:
        if exc.step is None:
            exc.step = spec.id
            exc.args = (f"[{spec.id}] {exc}",)
        raise
    except KingdomlogError:
        raise
    except Exception as exc:  # a bug in the step's rules, not a malformed choice
        raise InternalError(f"ruleset {ruleset.id!r} failed in step {spec.id!r}: {type(exc).__name__}: {exc}",
                            step=spec.id) from exc
    return ctx.result(model)


_REGISTRY: dict[str, Ruleset] = {}
_ALIASES: dict[str, str] = {}
_DISCOVERED = False


def _norm(name: str) -> str:
    return re.sub(r"[\s_\-]+", "-", name.strip().lower())


def register_ruleset(ruleset: Ruleset) -> Ruleset:
    """Register ``ruleset`` under its id, name and aliases (case-insensitive)."""
    _REGISTRY[ruleset.id] = ruleset
    for alias in (ruleset.id, ruleset.name, *ruleset.aliases):
        _ALIASES[_norm(alias)] = ruleset.id
    return ruleset


def unregister_ruleset(ruleset_id: str) -> None:
    """Remove a registered ruleset and its aliases (for tests and tools that register one for a while)."""
    rs = _REGISTRY.pop(ruleset_id, None)
    if rs is None:
        return
    for key in [k for k, v in _ALIASES.items() if v == ruleset_id]:
        del _ALIASES[key]


def _bundled() -> Any:
    """The bundled rulesets' package (``kingdomlog.rulesets``: its manifest, no ruleset imported)."""
    return importlib.import_module("kingdomlog.rulesets")


def _bundled_package(name: str) -> str | None:
    """The bundled sub-package whose ruleset answers to ``name`` (normalised), from the manifest; None if none."""
    for b in _bundled().BUNDLED:
        if name in {_norm(a) for a in (b.id, b.name, *b.aliases)}:
            return str(b.package)
    return None


def discover() -> None:
    """Import every bundled ruleset and the third-party entry points (``kingdomlog.rulesets`` group), once.

    Only needed to list them all: ``find_ruleset`` and the event-type registry import just
    the bundled package a name or an event namespace belongs to (``kingdomlog.rulesets.BUNDLED``).
    """
    global _DISCOVERED
    if _DISCOVERED:
        return
    _DISCOVERED = True
    from importlib.metadata import entry_points

    _bundled().load_all()
    for ep in entry_points(group="kingdomlog.rulesets"):
        obj = ep.load()
        if isinstance(obj, Ruleset):
            register_ruleset(obj)


def registered(name: str) -> Ruleset | None:
    """The ruleset already registered under ``name`` (id, name or alias, any case), or None; loads nothing."""
    rid = _ALIASES.get(_norm(name))
    return _REGISTRY[rid] if rid is not None else None


def registered_rulesets() -> list[Ruleset]:
    """The rulesets registered so far (imported by someone), by id; loads nothing."""
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def all_rulesets() -> list[Ruleset]:
    """Every registered ruleset, by id."""
    discover()
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def find_ruleset(name: str) -> Ruleset:
    """The ruleset answering to ``name`` (id, name or alias, any case).

    A ruleset already registered answers first; then a bundled one (the manifest says which
    package to import, and only that one is); then every entry point is loaded. A bundled id
    or alias always means the bundled ruleset. Raises ``UnknownRulesetError`` listing the
    known ids (and naming a bundled package that failed to import).
    """
    key = _norm(name)
    rid = _ALIASES.get(key)
    if rid is None:
        pkg = _bundled_package(key)
        if pkg is not None:
            _bundled().load(pkg)
            rid = _ALIASES.get(key)
            broken = _bundled().BROKEN.get(pkg)
            if rid is None and broken:
                raise UnknownRulesetError(f"ruleset {name!r} could not be loaded: its package"
                                          f" kingdomlog.rulesets.{pkg} failed to import ({broken})")
    if rid is None:
        discover()
        rid = _ALIASES.get(key)
    if rid is None:
        known = ", ".join(sorted(_REGISTRY)) or "(none installed)"
        raise UnknownRulesetError(f"unknown ruleset {name!r}; known rulesets: {known}")
    return _REGISTRY[rid]


def _load_event_types(type_name: str) -> None:
    """Register the payload types of the ruleset owning ``type_name``: the bundled package of its namespace
    (from the manifest), else every ruleset (``discover``).

    A ruleset may import its payload classes only when asked for them (pf2e's: a warm ``kingdomlog state``
    decodes none of them), so its ``event_types`` is asked when its package alone did not register the type.
    """
    ns = type_name.split(".", 1)[0]
    for b in _bundled().BUNDLED:
        if ns in b.namespaces:
            rs = _bundled().load(b.package)
            if not is_registered(type_name) and rs is not None:
                rs.event_types  # noqa: B018 - the property imports (and so registers) the payload classes
            if is_registered(type_name):
                return
    discover()


add_type_loader(_load_event_types)
