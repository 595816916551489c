"""A fold's private working copy of a frozen pydantic state: set in place, handed out frozen.

``Ruleset.thaw`` / ``evolve_working`` / ``freeze`` let a fold of many events skip copying the
whole state per event. ``CopyOnWriteRuleset`` is those three for a ruleset whose state is a
frozen pydantic model and whose ``evolve`` sets the state's fields through ``update``:

- ``thaw`` makes one shallow copy of the state: the working state, which only that fold holds;
- ``evolve_working`` runs the ruleset's own ``evolve`` with that copy marked as the working
  state, and ``update`` on it sets its fields in place; ``update`` on any other model (or with
  no fold running) is ``model_copy(update=...)``, so ``evolve`` called on its own (``apply``,
  previews, steps) never changes its input. A different state ``evolve`` returns (one it built
  or took from elsewhere) becomes the working state as a copy, never itself;
- ``freeze`` hands out a shallow copy, which later changes to the working state never reach.

Only the working state's own fields are set in place: the values in them (nested models, tuples,
dicts) are shared with states handed out before, and are replaced, never changed. The one rule
for an ``evolve`` written with ``update``: use the state ``update`` returns, not the one passed
in (it may be the same object, already changed), and keep no other name for it across a call.

>>> from kingdomlog.core.model import Frozen
>>> class S(Frozen):
...     unrest: int = 0
>>> s = S()
>>> update(s, unrest=2), s
(S(unrest=2), S(unrest=0))
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any, TypeVar

from pydantic import BaseModel

from kingdomlog.core.events import RecordedEvent
from kingdomlog.core.ruleset import Ruleset

M = TypeVar("M", bound=BaseModel)

_WORKING: ContextVar[BaseModel | None] = ContextVar("kingdomlog_working_state", default=None)


def update(state: M, changes: Mapping[str, Any] | None = None, /, **more: Any) -> M:
    """``state`` with ``changes`` (and ``more``) set: ``state.model_copy(update=...)``, or ``state`` itself changed
    in place when it is the working state of the fold running (``CopyOnWriteRuleset``). No validation, as
    ``model_copy``."""
    upd = more if changes is None else {**changes, **more} if more else changes
    if state is _WORKING.get():
        state.__dict__.update(upd)
        state.__pydantic_fields_set__.update(upd)
        return state
    return state.model_copy(update=upd)


def working_state() -> BaseModel | None:
    """The working state of the fold running in this context (None outside ``evolve_working``); for tests."""
    return _WORKING.get()


class CopyOnWriteRuleset(Ruleset):
    """A ruleset whose fold of many events sets the fields of one private copy of its state (see the module)."""

    def thaw(self, state: Any) -> Any:
        return state.model_copy()

    def evolve_working(self, work: Any, event: RecordedEvent) -> Any:
        token = _WORKING.set(work)
        try:
            new = self.evolve(work, event)
        finally:
            _WORKING.reset(token)
        return work if new is work else new.model_copy()

    def freeze(self, work: Any) -> Any:
        return work.model_copy()


__all__ = ["CopyOnWriteRuleset", "update", "working_state"]
