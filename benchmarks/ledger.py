"""The benchmark domain, written twice: as a kingdomlog ruleset and as an ``eventsourcing`` aggregate.

Both fold the same events (``food``, ``gold``, ``unrest`` deltas and a short note)
into the same final figures, the idiomatic way for each library: a frozen pydantic
state and ``evolve`` returning ``model_copy(update=...)`` for kingdomlog, an
``Aggregate`` with ``@event`` methods mutating attributes for ``eventsourcing``.
So a replay measures each store's path from disk to typed events to state, with
equal domain work.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from kingdomlog.core.events import Draft, EventModel, RecordedEvent, register_event
from kingdomlog.core.ruleset import Breakdown, CampaignContext, Choice, Dice, OptionSpec, Phase, register_ruleset


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


class LedgerRuleset:
    id = "bench-ledger"
    name = "Benchmark ledger"
    aliases = ()
    turn_unit = "turn"
    options: Sequence[OptionSpec] = ()
    event_types: Sequence[type[EventModel]] = (Changed,)
    phases: Sequence[Phase] = (Phase("change", "Change"),)

    def phases_for(self, state: Any, turn: int) -> Sequence[Phase]:
        return self.phases

    def initial_state(self, context: CampaignContext) -> LedgerState:
        return LedgerState()

    def evolve(self, state: Any, event: RecordedEvent) -> LedgerState:
        p = event.payload
        if isinstance(p, Changed):
            return state.model_copy(update={"food": state.food + p.food, "gold": state.gold + p.gold,
                                            "unrest": state.unrest + p.unrest, "events": state.events + 1})
        return state

    def choices(self, state: Any, step: str) -> Sequence[Choice]:
        return (Choice("n", "Events", "int", default=50, minimum=1, maximum=1000),)

    def decide(self, state: Any, step: str, choices: Mapping[str, Any], dice: Dice) -> list[Draft]:
        n = int(choices.get("n", 50))
        out = []
        for i in range(n):
            r = dice.roll(f"d{i}", "1d6")
            out.append(Draft(Changed(food=r.total, gold=i % 7, unrest=(r.total % 3) - 1, note=f"e{i}"), phase=step))
        return out

    def redact(self, state: Any, viewer: str) -> LedgerState:
        return state

    def summary(self, state: Any) -> dict[str, Any]:
        return {"food": state.food, "gold": state.gold, "unrest": state.unrest}

    def explain(self, state: Any) -> list[Breakdown]:
        return []

    def render(self, state: Any) -> str:
        return f"food {state.food} gold {state.gold} unrest {state.unrest}"

    def sql_views(self) -> Mapping[str, str]:
        return {}

    def sample_events(self) -> list[Draft]:
        return [Draft(Changed(food=1, gold=1, unrest=0))]

    def sample_plans(self) -> list[dict[str, Any]]:
        return [{"seed": "s", "steps": {"change": {"choices": {"n": 3}}}}]

    def data_tables(self) -> Mapping[str, Callable[[], Any]]:
        return {}


LEDGER = register_ruleset(LedgerRuleset())


def payload(i: int) -> dict[str, Any]:
    """The i-th benchmark event's payload (deterministic)."""
    return {"food": 1 + i % 6, "gold": i % 7, "unrest": (i % 3) - 1, "note": f"e{i % 50}"}
