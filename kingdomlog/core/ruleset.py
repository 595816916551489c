"""The ruleset seam (design §4): the protocol every rule system implements, and its registry.

A ruleset is a plain object registered under an id with aliases
(``find_ruleset("PF2e Kingmaker")``). Everything it does is pure: no I/O, no
clock, no random draws; dice come in through the ``Dice`` argument of
``decide`` and their faces go into the events it returns.

Core code never names a ruleset: they are found by importing the
``kingdomlog.rulesets`` package (which imports its sub-packages) and the
``kingdomlog.rulesets`` entry-point group.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel

from kingdomlog.core.errors import InputError, UnknownRulesetError
from kingdomlog.core.events import Draft, EventModel, RecordedEvent

if TYPE_CHECKING:
    from kingdomlog.dice.roller import Roll

State = BaseModel
"""A ruleset's state: a pydantic model, treated as immutable (``evolve`` returns a new one)."""


class Dice(Protocol):
    """What ``decide`` rolls with: keyed, deterministic, possibly typed in by the GM."""

    def roll(self, key: str, notation: str) -> Roll:
        """Roll ``notation`` under ``key`` (unique within the step); the faces are in the result."""
        ...


OptionType = Literal["bool", "int", "float", "str", "choice", "list", "table"]


@dataclass(frozen=True)
class OptionSpec:
    """A campaign option a ruleset declares: type, default, help and allowed values."""

    name: str
    type: OptionType
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None

    def validate(self, value: Any, *, where: str = "option") -> Any:
        """Check and coerce ``value``; raises ``InputError`` naming the option."""
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
            except (TypeError, ValueError):
                kind = "an integer" if self.type == "int" else "a number"
                raise InputError(f"{label} must be {kind}, got {value!r}") from None
            if self.minimum is not None and num < self.minimum:
                raise InputError(f"{label} must be at least {self.minimum:g}, got {num}")
            if self.maximum is not None and num > self.maximum:
                raise InputError(f"{label} must be at most {self.maximum:g}, got {num}")
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
            return dict(value)
        raise InputError(f"{label} has unknown type {self.type!r}")  # pragma: no cover


def validate_options(specs: Sequence[OptionSpec], raw: Mapping[str, Any], *, where: str = "option") -> dict[str, Any]:
    """Fill defaults and validate ``raw`` against ``specs``; unknown keys are an error."""
    by_name = {s.name: s for s in specs}
    unknown = sorted(set(raw) - set(by_name))
    if unknown:
        known = ", ".join(sorted(by_name)) or "(none)"
        raise InputError(f"unknown {where}(s) {', '.join(unknown)}; this ruleset knows: {known}")
    out: dict[str, Any] = {}
    for spec in specs:
        out[spec.name] = spec.validate(raw[spec.name], where=where) if spec.name in raw else spec.default
    return out


ChoiceKind = Literal["select", "multiselect", "int", "text", "bool", "json"]


@dataclass(frozen=True)
class Choice:
    """One input a step needs from the GM (or a player), described for UIs and plans."""

    name: str
    label: str
    kind: ChoiceKind
    options: tuple[str, ...] = ()
    default: Any = None
    help: str = ""
    minimum: int | None = None
    maximum: int | None = None


@dataclass(frozen=True)
class Phase:
    """One step of a turn, in order. ``dice`` lists the roll keys it may use, for UIs."""

    id: str
    title: str
    help: str = ""
    dice: tuple[str, ...] = ()


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
    """What a ruleset gets to start a campaign: id, validated options, homebrew data."""

    campaign: str
    options: Mapping[str, Any]
    data: Mapping[str, Any] = field(default_factory=dict)
    viewers: tuple[str, ...] = ()


@runtime_checkable
class Ruleset(Protocol):
    """The plug-in protocol (design §4). All methods are pure."""

    id: str
    name: str
    aliases: tuple[str, ...]
    turn_unit: str
    """What one turn is called ("month", "year", "season")."""

    @property
    def options(self) -> Sequence[OptionSpec]: ...

    @property
    def event_types(self) -> Sequence[type[EventModel]]: ...

    @property
    def phases(self) -> Sequence[Phase]:
        """The ordered steps of a regular turn."""
        ...

    def phases_for(self, state: State, turn: int) -> Sequence[Phase]:
        """The ordered steps of ``turn`` in ``state`` (turn 0 is usually founding/setup)."""
        ...

    def initial_state(self, context: CampaignContext) -> State: ...

    def evolve(self, state: State, event: RecordedEvent) -> State: ...

    def choices(self, state: State, step: str) -> Sequence[Choice]: ...

    def decide(self, state: State, step: str, choices: Mapping[str, Any], dice: Dice) -> list[Draft]: ...

    def redact(self, state: State, viewer: str) -> State: ...

    def summary(self, state: State) -> dict[str, Any]:
        """Main figures as flat scalars (the columns of the ``states`` SQL view)."""
        ...

    def explain(self, state: State) -> list[Breakdown]:
        """Every derived number of ``state``, term by term."""
        ...

    def render(self, state: State) -> str:
        """A compact canonical one-line text of the state (for reprs, tests, errors)."""
        ...

    def sql_views(self) -> Mapping[str, str]:
        """View name -> SELECT over the ``events`` and ``states`` tables."""
        ...

    def sample_events(self) -> list[Draft]:
        """At least one valid payload of every event type (for the conformance suite)."""
        ...

    def sample_plans(self) -> list[dict[str, Any]]:
        """Plans (turn 0 founding first) that play legally from ``initial_state`` in order."""
        ...

    def data_tables(self) -> Mapping[str, Callable[[], Any]]:
        """Name -> loader of each rules data table (each must load without error)."""
        ...


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


def discover() -> None:
    """Import the bundled rulesets package and third-party entry points, once."""
    global _DISCOVERED
    if _DISCOVERED:
        return
    _DISCOVERED = True
    importlib.import_module("kingdomlog.rulesets")
    for ep in entry_points(group="kingdomlog.rulesets"):
        obj = ep.load()
        if isinstance(obj, Ruleset):
            register_ruleset(obj)


def all_rulesets() -> list[Ruleset]:
    """Every registered ruleset, by id."""
    discover()
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def find_ruleset(name: str) -> Ruleset:
    """The ruleset answering to ``name`` (id, name or alias, any case).

    Raises ``UnknownRulesetError`` listing the known ids.
    """
    discover()
    rid = _ALIASES.get(_norm(name))
    if rid is None:
        known = ", ".join(sorted(_REGISTRY)) or "(none installed)"
        raise UnknownRulesetError(f"unknown ruleset {name!r}; known rulesets: {known}")
    return _REGISTRY[rid]
