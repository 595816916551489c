"""The error hierarchy: one root, input errors are also ``ValueError``.

Every message says what went wrong, where (file, line, seq, step) and, for rule
errors, which rule refused it.
"""

from __future__ import annotations


class KingdomlogError(Exception):
    """Root of every error kingdomlog raises on purpose."""


class InputError(KingdomlogError, ValueError):
    """Malformed input: a file, a JSON line, an option, a plan that does not parse."""


class RuleError(KingdomlogError, ValueError):
    """A well-formed choice that the rules forbid in the current state.

    ``rule`` names the rule (e.g. a spec section), ``step`` the turn step.
    """

    def __init__(self, message: str, *, rule: str | None = None, step: str | None = None) -> None:
        self.rule = rule
        self.step = step
        self.detail = message  # the message without its step and rule, for a wrapper that adds its own
        parts = [message]
        if rule:
            parts.append(f"(rule: {rule})")
        if step:
            parts.insert(0, f"[{step}]")
        super().__init__(" ".join(parts))


class UnknownRulesetError(InputError):
    """A ruleset id or alias that no registered ruleset answers to."""


class EventTypeError(InputError):
    """An event whose type or version the code does not know."""


class StoreError(KingdomlogError):
    """A problem with a campaign folder or its log."""


class CampaignNotFoundError(StoreError, InputError):
    """The folder is not a kingdomlog campaign."""


class ConflictError(StoreError):
    """Optimistic concurrency: the log's head was not the one the writer expected."""

    def __init__(self, expected: int, actual: int, detail: str = "") -> None:
        self.expected = expected
        self.actual = actual
        msg = (
            f"conflict: expected the log to end at seq {expected}, but it ends at seq {actual}"
            " (someone else committed first; reload and decide again)"
        )
        if detail:
            msg += f": {detail}"
        super().__init__(msg)


class CorruptLogError(StoreError):
    """The log on disk is damaged: a gap, a duplicate, a broken chain, an unreadable file."""

    def __init__(self, message: str, *, file: str | None = None, seq: int | None = None) -> None:
        self.file = file
        self.seq = seq
        where = []
        if file:
            where.append(f"file {file}")
        if seq is not None:
            where.append(f"seq {seq}")
        prefix = f"{', '.join(where)}: " if where else ""
        super().__init__(prefix + message)


class InternalError(KingdomlogError):
    """An unexpected exception inside kingdomlog or a ruleset (a bug), not a fault of the input or the log.

    Raised where a fold or a step calls ruleset code (``Ruleset.apply``, ``run_step``) and it
    fails with anything but a ``KingdomlogError``; the message names the ruleset, the step or
    seq and the original exception, and says it is a bug. ``__cause__`` holds the original.
    """

    def __init__(self, message: str, *, step: str | None = None, seq: int | None = None,
                 formatted: bool = False) -> None:
        self.step = step
        self.seq = seq
        super().__init__(message if formatted else
                         f"internal error: {message} (this is a bug in kingdomlog or the ruleset, not a mistake in"
                         " your input; please report it)")


class SqlRefusedError(KingdomlogError, ValueError):
    """A statement the read-only SQL console will not run."""
