"""The benchmark domain, written twice: as a kingdomlog ruleset and as an ``eventsourcing`` aggregate.

Both fold the same events (``food``, ``gold``, ``unrest`` deltas and a short note)
into the same final figures, the idiomatic way for each library: a frozen pydantic
state for kingdomlog, with ``evolve`` returning ``model_copy(update=...)`` for one event
and a fold of many (a replay) adding into a private mutable tally frozen at the end
(``Ruleset.thaw``, ``evolve_working``, ``freeze``); an ``Aggregate`` with ``@event``
methods mutating attributes for ``eventsourcing``.
So a replay measures each store's path from disk to typed events to state, with
equal domain work.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kingdomlog.core.choices import Choices
from kingdomlog.core.errors import CorruptLogError
from kingdomlog.core.events import Draft, EventModel, RecordedEvent, register_event
from kingdomlog.core.ruleset import CampaignContext, Ruleset, Step, StepContext, register_ruleset


@register_event
class Changed(EventModel):
    type = "bench.changed"
    version = 1
    food: int
    gold: int
    unrest: int
    note: str = ""


class LedgerState(BaseModel):
    model_config = ConfigDict(frozen=True)
    food: int = 0
    gold: int = 0
    unrest: int = 0
    events: int = 0


@dataclass(slots=True)
class Tally:
    """The ledger's working state during a fold of many events (mutable, held by that fold only)."""

    food: int
    gold: int
    unrest: int
    events: int


class LedgerChoices(Choices):
    n: int = Field(default=50, ge=1, le=1000, title="Events")


def change(ctx: StepContext[LedgerState], c: LedgerChoices) -> None:
    for i in range(c.n):
        r = ctx.roll(f"d{i}", "1d6")
        ctx.emit(Changed(food=r.total, gold=i % 7, unrest=(r.total % 3) - 1, note=f"e{i}"))


CHANGE = Step("change", "Change", choices=LedgerChoices, decide=change)


class LedgerRuleset(Ruleset):
    id = "bench-ledger"
    name = "Benchmark ledger"

    @property
    def event_types(self) -> Sequence[type[EventModel]]:
        return (Changed,)

    @property
    def phases(self) -> Sequence[Step]:
        return (CHANGE,)

    def initial_state(self, context: CampaignContext) -> LedgerState:
        return LedgerState()

    def evolve(self, state: Any, event: RecordedEvent) -> LedgerState:
        p = event.payload
        if isinstance(p, Changed):
            return state.model_copy(update={"food": state.food + p.food, "gold": state.gold + p.gold,
                                            "unrest": state.unrest + p.unrest, "events": state.events + 1})
        raise CorruptLogError(f"bench-ledger cannot apply {event.type!r}", seq=event.seq)

    def thaw(self, state: Any) -> Tally:
        return Tally(food=state.food, gold=state.gold, unrest=state.unrest, events=state.events)

    def evolve_working(self, work: Any, event: RecordedEvent) -> Any:
        p = event.payload
        if isinstance(p, Changed):
            work.food += p.food
            work.gold += p.gold
            work.unrest += p.unrest
            work.events += 1
            return work
        raise CorruptLogError(f"bench-ledger cannot apply {event.type!r}", seq=event.seq)

    def freeze(self, work: Any) -> LedgerState:
        return LedgerState(food=work.food, gold=work.gold, unrest=work.unrest, events=work.events)

    def summary(self, state: Any) -> dict[str, Any]:
        return {"food": state.food, "gold": state.gold, "unrest": state.unrest}

    def render(self, state: Any) -> str:
        return f"food {state.food} gold {state.gold} unrest {state.unrest}"

    def sample_events(self) -> list[Draft]:
        return [Draft(Changed(food=1, gold=1, unrest=0))]

    def sample_plans(self) -> list[dict[str, Any]]:
        return [{"seed": "s", "steps": {"change": {"choices": {"n": 3}}}}]


LEDGER = register_ruleset(LedgerRuleset())


def payload(i: int) -> dict[str, Any]:
    """The i-th benchmark event's payload (deterministic)."""
    return {"food": 1 + i % 6, "gold": i % 7, "unrest": (i % 3) - 1, "note": f"e{i % 50}"}
