"""A typed effect vocabulary rulesets share: what a rule does, to which checks it applies, and when.

Rules data (an activity's outcome, a structure, a feat, a kingdom event) describes what happens as a list
of ``Effect`` rows: a ``kind`` (what it does; the ruleset registers the kinds it knows), a ``value``
(``amount``: an integer or an expression the ruleset evaluates, such as dice), a ``type`` (a bonus type:
circumstance, item, status, untyped...), a ``selector`` (which checks a bonus applies to) and a ``when``
condition (whether the effect applies now). ``Outcomes`` hold the effects of each degree of a check.

Selectors and conditions are ``Predicate`` expressions over *facts*: plain names the ruleset provides for
a check (``skill``, ``activity``, ``settlement``...) or for its state (``unrest``, ``level``,
``used_last_turn``...). The language is small and readable in TOML:

>>> p = Predicate.parse("skill == magic and (unrest >= 5 or not at_war)")
>>> p.holds({"skill": "magic", "unrest": 2, "at_war": False}), p.holds({"skill": "arts", "unrest": 9})
(True, False)
>>> Predicate.parse("traits has dangerous").holds({"traits": ["dangerous", "continuous"]})
True
>>> Predicate.parse("ability:economy+activity:quell-unrest").text  # the compact selector form
'ability == economy and activity == quell-unrest'

``run_effects`` is the one interpreter: it walks a list in order, skips an effect whose condition does not
hold, lets the ruleset pick the branch of a ``choose`` effect, and hands every other effect to the handler
registered for its kind (an unknown kind is an error naming it). Roll keys follow the list:
``<key>.e1``, ``<key>.e2`` ..., a branch ``<key>.e1.o0`` ...

>>> seen = []
>>> run_effects([Effect(kind="gain", amount=2), Effect(kind="gain", amount=5, when="rich")],
...             {"gain": lambda eff, key: seen.append((key, eff.amount))}, facts=lambda: {"rich": False},
...             choose=lambda eff, key: 0, key="a1")
>>> seen
[('a1.e1', 2)]
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

from pydantic import Field, field_validator

from kingdomlog.core.errors import InputError
from kingdomlog.core.model import Frozen

Facts = Mapping[str, Any]
"""What a predicate reads: a name -> a number, a string, a bool, or a collection of strings."""

Op = Literal["==", "!=", ">=", "<=", ">", "<", "in", "has"]
DEGREES: tuple[str, ...] = ("critical_failure", "failure", "success", "critical_success")

_TOKEN = re.compile(r"\s*(?:(?P<op>==|!=|>=|<=|>|<)|(?P<paren>[()\[\],])|(?P<str>'[^']*'|\"[^\"]*\")"
                    r"|(?P<num>-?\d+)(?![\w:.-])|(?P<word>[A-Za-z_][\w:.-]*))")
_KEYWORDS = {"and", "or", "not", "in", "has", "true", "false"}


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise InputError(f"condition {text!r}: cannot read {text[pos:]!r}")
        kind = m.lastgroup or ""
        val = m.group(kind).strip()
        if kind == "word" and val in _KEYWORDS:
            kind = val
        out.append((kind, val))
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return out


Node = tuple[Any, ...]


class _Parser:
    """Recursive descent over the tokens of a predicate (or / and / not / comparisons)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = _tokens(text)
        self.i = 0

    def peek(self) -> str:
        return self.toks[self.i][0] if self.i < len(self.toks) else ""

    def take(self, kind: str | None = None) -> tuple[str, str]:
        if self.i >= len(self.toks):
            raise InputError(f"condition {self.text!r}: ends too early")
        tok = self.toks[self.i]
        if kind is not None and tok[0] != kind:
            raise InputError(f"condition {self.text!r}: expected {kind!r}, found {tok[1]!r}")
        self.i += 1
        return tok

    def parse(self) -> Node:
        node = self.expr()
        if self.i != len(self.toks):
            raise InputError(f"condition {self.text!r}: unexpected {self.toks[self.i][1]!r}")
        return node

    def expr(self) -> Node:
        node = self.conj()
        while self.peek() == "or":
            self.take()
            node = ("or", node, self.conj())
        return node

    def conj(self) -> Node:
        node = self.unary()
        while self.peek() == "and":
            self.take()
            node = ("and", node, self.unary())
        return node

    def unary(self) -> Node:
        if self.peek() == "not":
            self.take()
            return ("not", self.unary())
        if self.peek() == "paren" and self.toks[self.i][1] == "(":
            self.take()
            node = self.expr()
            if self.take("paren")[1] != ")":
                raise InputError(f"condition {self.text!r}: missing ')'")
            return node
        return self.atom()

    def value(self) -> Any:
        kind, val = self.take()
        if kind == "num":
            return int(val)
        if kind == "str":
            return val[1:-1]
        if kind in ("true", "false"):
            return kind == "true"
        if kind == "word":
            return val
        if kind == "paren" and val == "[":
            items: list[Any] = []
            while not (self.peek() == "paren" and self.toks[self.i][1] == "]"):
                items.append(self.value())
                if self.peek() == "paren" and self.toks[self.i][1] == ",":
                    self.take()
            self.take()
            return tuple(items)
        raise InputError(f"condition {self.text!r}: expected a value, found {val!r}")

    def atom(self) -> Node:
        kind, name = self.take()
        if kind == "true":
            return ("const", True)
        if kind == "false":
            return ("const", False)
        if kind != "word":
            raise InputError(f"condition {self.text!r}: expected a fact name, found {name!r}")
        nxt = self.peek()
        if nxt in ("op", "in", "has"):
            op = self.take()[1]
            return ("cmp", name, op, self.value())
        return ("truthy", name)


def _compact(text: str) -> str | None:
    """The compact selector form (``all``, ``key:value`` terms joined by ``+``) as an expression, or None."""
    t = text.strip()
    if t == "all":
        return "true"
    if not t or " " in t or ":" not in t:
        return None
    parts = []
    for term in t.split("+"):
        key, sep, val = term.partition(":")
        if not sep or not key or not val:
            return None
        parts.append(f"{key} == {val}")
    return " and ".join(parts)


def _eval(node: Node, facts: Facts) -> bool:
    tag = node[0]
    if tag == "const":
        return bool(node[1])
    if tag == "and":
        return _eval(node[1], facts) and _eval(node[2], facts)
    if tag == "or":
        return _eval(node[1], facts) or _eval(node[2], facts)
    if tag == "not":
        return not _eval(node[1], facts)
    if tag == "truthy":
        return bool(facts.get(node[1]))
    _, name, op, want = node
    if name not in facts:
        return bool(op == "!=")
    have = facts[name]
    collection = isinstance(have, (set, frozenset, list, tuple))
    if op == "has" or (op == "==" and collection):
        return collection and bool(want in have)
    if op == "!=":
        return (want not in have) if collection else have != want
    if op == "in":
        return bool(have in want) if isinstance(want, tuple) else bool(have == want)
    if op == "==":
        return bool(have == want)
    try:
        a, b = float(have), float(want)
    except (TypeError, ValueError):
        return False
    return {">=": a >= b, "<=": a <= b, ">": a > b, "<": a < b}[op]


def _render(node: Node) -> str:
    tag = node[0]
    if tag == "const":
        return "true" if node[1] else "false"
    if tag in ("and", "or"):
        left, right = _render(node[1]), _render(node[2])
        if tag == "and":
            left = f"({left})" if node[1][0] == "or" else left
            right = f"({right})" if node[2][0] == "or" else right
        return f"{left} {tag} {right}"
    if tag == "not":
        inner = _render(node[1])
        return f"not ({inner})" if node[1][0] in ("and", "or") else f"not {inner}"
    if tag == "truthy":
        return str(node[1])
    _, name, op, want = node
    if isinstance(want, tuple):
        shown = "[" + ", ".join(str(w) for w in want) + "]"
    elif isinstance(want, bool):
        shown = "true" if want else "false"
    elif isinstance(want, str) and (not re.fullmatch(r"[A-Za-z_][\w:.-]*", want) or want in _KEYWORDS):
        shown = repr(want)
    else:
        shown = str(want)
    return f"{name} {op} {shown}"


@functools.lru_cache(maxsize=4096)
def _parsed(text: str) -> Node:
    compact = _compact(text)
    return _Parser(compact if compact is not None else text).parse()


class Predicate(Frozen):
    """A condition over facts, kept as its (normalised) text so it reads back as it was written.

    Forms: a fact name alone (true when the fact is set and truthy), ``name OP value`` with ``==``,
    ``!=``, ``>=``, ``<=``, ``>``, ``<``, ``in [a, b]`` and ``has`` (a collection fact holds the value;
    ``==`` against a collection means the same), joined by ``and`` / ``or`` / ``not`` and parentheses;
    ``true``; and the compact selector form ``key:value+key:value`` / ``all``. A fact the predicate names
    but the facts lack is false (and ``!=`` true).
    """

    text: str

    @classmethod
    def parse(cls, text: str) -> Predicate:
        """Parse and normalise ``text``; ``InputError`` saying what could not be read."""
        return cls(text=_render(_parsed(text.strip() or "true")))

    def holds(self, facts: Facts) -> bool:
        return _eval(_parsed(self.text), facts)

    def names(self) -> frozenset[str]:
        """The fact names the predicate reads."""
        out: set[str] = set()

        def walk(node: Node) -> None:
            if node[0] in ("and", "or"):
                walk(node[1])
                walk(node[2])
            elif node[0] == "not":
                walk(node[1])
            elif node[0] in ("truthy", "cmp"):
                out.add(node[1])

        walk(_parsed(self.text))
        return frozenset(out)


def holds(text: str, facts: Facts) -> bool:
    """Whether the condition ``text`` ("" = always) holds for ``facts``."""
    return not text.strip() or _eval(_parsed(text.strip()), facts)


_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def fill(text: str, values: Mapping[str, Any]) -> str:
    """A selector template with its ``{name}`` placeholders filled (data may write ``skill == {skill}`` for "the
    skill this check chose"; the ruleset fills it when the effect applies).

    >>> fill("skill == {skill} and target == {target}", {"skill": "arts"})
    'skill == arts and target == '
    """
    return _PLACEHOLDER.sub(lambda m: str(values.get(m.group(1), "") or ""), text)


def check_predicate(text: str) -> str:
    """``text`` if it parses as a predicate (``InputError`` otherwise); for validators of data rows. A ``{name}``
    placeholder (see ``fill``) validates as a word."""
    if text.strip():
        _parsed(_PLACEHOLDER.sub(lambda m: m.group(1), text.strip()))
    return text


class Effect(Frozen):
    """One thing a rule does, as data: the shared vocabulary of effects (see the module doc).

    ``kind``: what it does (registered by the ruleset); ``amount``: its value (an integer, or an
    expression the ruleset evaluates: dice "1d4", "-2d6", Resource Dice "rd"...); ``target``: what it
    acts on; ``count``: how many times; ``selector`` / ``value`` / ``type``: a bonus of ``value`` of that
    bonus type to the checks the selector picks; ``expires`` / ``turns``: how long it lasts; ``when``: the
    condition under which it applies; ``options``: the branches of a ``choose`` effect; ``stacks``: for
    effects of identical sources (two Mills), whether their values add up (True), count once (False) or
    follow the ruleset's default (None); ``note``: what the data leaves to the GM, in words.
    """

    kind: str
    amount: int | str = 0
    target: str = ""
    count: int = Field(default=1, ge=0)
    selector: str = ""
    value: int = 0
    type: str = "circumstance"
    expires: str = "end_of_this_turn"
    turns: int = 0
    when: str = ""
    options: list[list[Effect]] = Field(default_factory=list)
    stacks: bool | None = None
    note: str = ""

    @field_validator("when", "selector")
    @classmethod
    def _predicates(cls, v: str) -> str:
        try:
            return check_predicate(v)
        except InputError as exc:
            raise ValueError(str(exc)) from None


class Outcomes(Frozen):
    """The effects of each degree of a check; a missing critical entry uses the success or failure one."""

    critical_success: list[Effect] | None = None
    success: list[Effect] | None = None
    failure: list[Effect] | None = None
    critical_failure: list[Effect] | None = None

    def for_degree(self, degree: str) -> list[Effect]:
        if degree not in DEGREES:
            raise InputError(f"unknown degree of success {degree!r}; degrees: {', '.join(DEGREES)}")
        got: list[Effect] | None = getattr(self, degree)
        if got is None and degree == "critical_success":
            got = self.success
        if got is None and degree == "critical_failure":
            got = self.failure
        return list(got or [])

    def kinds(self) -> frozenset[str]:
        """Every effect kind the outcomes use (branches included)."""
        out: set[str] = set()

        def walk(effects: Iterable[Effect]) -> None:
            for e in effects:
                out.add(e.kind)
                for branch in e.options:
                    walk(branch)

        for d in DEGREES:
            walk(getattr(self, d) or [])
        return frozenset(out)


Handler = Callable[[Effect, str], None]
"""Applies one effect; gets the effect and its roll key."""


def run_effects(effects: Sequence[Effect], handlers: Mapping[str, Handler], *, facts: Callable[[], Facts],
                choose: Callable[[Effect, str], int], key: str) -> None:
    """Apply ``effects`` in order (see the module doc). ``facts`` is called for each condition, so a
    condition sees what the effects before it changed; ``choose`` returns the index of a branch."""
    for j, eff in enumerate(effects):
        ek = f"{key}.e{j + 1}"
        if eff.when and not holds(eff.when, facts()):
            continue
        if eff.kind == "choose":
            idx = choose(eff, ek)
            if not 0 <= idx < len(eff.options):
                raise InputError(f"choose: option must be 0..{len(eff.options) - 1}, got {idx}")
            run_effects(eff.options[idx], handlers, facts=facts, choose=choose, key=f"{ek}.o{idx}")
            continue
        fn = handlers.get(eff.kind)
        if fn is None:
            raise InputError(f"no rule applies effects of kind {eff.kind!r} (known: {', '.join(sorted(handlers))})")
        fn(eff, ek)


def modifier_applies(effect: Effect, check: Facts, state: Facts) -> bool:
    """Whether a bonus effect applies to a check: its selector picks the check and its condition holds."""
    return holds(effect.selector or "true", check) and holds(effect.when, {**state, **check})


def combine(values: Iterable[int], *, stacks: bool, cap: int | None = None) -> int:
    """The value of identical sources together: their sum when they stack (up to ``cap``), else the best.

    >>> combine([1, 1, 1], stacks=True, cap=2), combine([1, 2], stacks=False), combine([], stacks=True)
    (2, 2, 0)
    """
    vals = list(values)
    if not vals:
        return 0
    total = sum(vals) if stacks else max(vals)
    return min(cap, total) if cap is not None else total


__all__ = ["DEGREES", "Effect", "Facts", "Handler", "Outcomes", "Predicate", "check_predicate", "combine", "fill",
           "holds", "modifier_applies", "run_effects"]
