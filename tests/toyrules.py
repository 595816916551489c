"""A tiny ruleset used only by the core tests ("toy-farm"): one harvest and one market step.

It exercises every part of the seam (options, phases, choices, dice, decide,
evolve, redact, summary, explain, views) without depending on a real rule system.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from kingdomlog.core.choices import Choices, Count, Option, Pick
from kingdomlog.core.errors import CorruptLogError
from kingdomlog.core.events import Draft, EventModel, RecordedEvent, register_event, register_upcaster
from kingdomlog.core.modifiers import Modifier, stack
from kingdomlog.core.ruleset import (
    Breakdown,
    CampaignContext,
    OptionSpec,
    Ruleset,
    Step,
    StepContext,
    Term,
    register_ruleset,
)
from kingdomlog.core.viewers import Viewer


@register_event
class Founded(EventModel):
    type = "toy.founded"
    version = 1
    name: str
    gold: int = Field(ge=0)


@register_event
class Harvested(EventModel):
    """v2 renamed ``amount`` to ``food`` and added ``crop`` (see the upcaster)."""

    type = "toy.harvested"
    version = 2
    crop: str
    faces: tuple[int, ...]
    food: int


@register_upcaster("toy.harvested", 1)
def upcast_harvested_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
    out = dict(data)
    out["food"] = out.pop("amount")
    out.setdefault("crop", "wheat")
    return out


@register_event
class Sold(EventModel):
    type = "toy.sold"
    version = 1
    food: int = Field(ge=0)
    gold: int = Field(ge=0)


@register_event
class Secret(EventModel):
    type = "toy.secret_stash"
    version = 1
    gold: int


class ToyState(BaseModel):
    model_config = ConfigDict(frozen=True)
    name: str = ""
    gold: int = 0
    food: int = 0
    stash: int | None = 0
    price: int = 2
    history: tuple[int, ...] = ()


CROPS = ("wheat", "barley")


class FoundChoices(Choices):
    name: str = Field(default="Greenacre", title="Farm name")
    gold: Count = Field(default=10, title="Starting gold")


class HarvestChoices(Choices):
    crop: Annotated[str, Pick("crops", what="a crop of this farm")] = "wheat"
    stash: Count = Field(default=0, title="Gold hidden by the GM")


class MarketChoices(Choices):
    sell: Count = Field(default=0, title="Food to sell")


def found(ctx: StepContext[ToyState], c: FoundChoices) -> None:
    ctx.emit(Founded(name=c.name, gold=c.gold))


def harvest(ctx: StepContext[ToyState], c: HarvestChoices) -> None:
    roll = ctx.roll("harvest", "1d6" if c.crop == "wheat" else "2d6")
    ctx.emit(Harvested(crop=c.crop, faces=roll.faces, food=roll.total))
    if c.stash:
        ctx.emit(Secret(gold=c.stash), visibility="gm")


def market(ctx: StepContext[ToyState], c: MarketChoices) -> None:
    if c.sell > ctx.state.food:
        raise ctx.fail(f"cannot sell {c.sell} food, only {ctx.state.food} in store", "toy §2")
    ctx.explain(Breakdown("Sale", c.sell * ctx.state.price,
                          (Term("food sold", c.sell), Term("price", ctx.state.price))))
    if c.sell:
        ctx.emit(Sold(food=c.sell, gold=c.sell * ctx.state.price))


FOUND = Step("found", "Founding", choices=FoundChoices, decide=found)
HARVEST = Step("harvest", "Harvest", dice=("harvest",), choices=HarvestChoices, decide=harvest)
MARKET = Step("market", "Market", choices=MarketChoices, decide=market)


class ToyRuleset(Ruleset):
    id = "toy-farm"
    name = "Toy Farm"
    aliases = ("toy", "Toy Farm Rules")
    turn_unit = "season"

    @property
    def options(self) -> Sequence[OptionSpec]:
        return (OptionSpec("price", "int", 2, "gold per food when selling", minimum=1, maximum=10),
                OptionSpec("harvest_die", "choice", "1d6", "the harvest roll", choices=("1d6", "2d6", "1d6!")))

    @property
    def event_types(self) -> Sequence[type[EventModel]]:
        return (Founded, Harvested, Sold, Secret)

    @property
    def phases(self) -> Sequence[Step]:
        return (HARVEST, MARKET)

    @property
    def all_steps(self) -> Sequence[Step]:
        return (FOUND, HARVEST, MARKET)

    def phases_for(self, state: Any, turn: int) -> Sequence[Step]:
        return (FOUND,) if turn == 0 else self.phases

    def initial_state(self, context: CampaignContext) -> ToyState:
        return ToyState(price=int(context.options.get("price", 2)))

    def evolve(self, state: Any, event: RecordedEvent) -> ToyState:
        p = event.payload
        if isinstance(p, Founded):
            return state.model_copy(update={"name": p.name, "gold": p.gold})
        if isinstance(p, Harvested):
            return state.model_copy(update={"food": state.food + p.food, "history": (*state.history, p.food)})
        if isinstance(p, Sold):
            return state.model_copy(update={"food": state.food - p.food, "gold": state.gold + p.gold})
        if isinstance(p, Secret):
            return state.model_copy(update={"stash": (state.stash or 0) + p.gold})
        raise CorruptLogError(f"toy-farm cannot apply {event.type!r}", seq=event.seq)

    def audit(self, state: Any, event: RecordedEvent) -> list[str]:
        p = event.payload
        if isinstance(p, Sold) and p.gold != p.food * state.price:
            return [f"{p.food} food sells for {p.food * state.price} gold at price {state.price}, not {p.gold}"]
        return []

    def vocabulary(self, state: Any, source: str, within: Mapping[str, Any]) -> Sequence[Option] | None:
        if source == "crops":
            return [Option(c, c.capitalize(), "1d6" if c == "wheat" else "2d6") for c in CROPS]
        return super().vocabulary(state, source, within)

    def redact(self, state: Any, viewer: Viewer) -> ToyState:
        return state if viewer.is_gm else state.model_copy(update={"stash": None})

    def summary(self, state: Any) -> dict[str, Any]:
        return {"gold": state.gold, "food": state.food, "stash": state.stash}

    def explain(self, state: Any) -> list[Breakdown]:
        return [stack("Wealth", [Modifier("gold", state.gold), Modifier("food value", state.food * state.price)])]

    def render(self, state: Any) -> str:
        return f"{state.name or '?'} g{state.gold} f{state.food}"

    def sql_views(self) -> Mapping[str, str]:
        return {"toy_gold": "SELECT campaign, turn, gold FROM states WHERE ruleset = 'toy-farm'"}

    def sample_events(self) -> list[Draft]:
        return [Draft(Founded(name="x", gold=1)), Draft(Harvested(crop="wheat", faces=(3,), food=3)),
                Draft(Sold(food=1, gold=2)), Draft(Secret(gold=5), visibility="gm")]

    def sample_plans(self) -> list[dict[str, Any]]:
        return [
            {"seed": "s0", "steps": {"found": {"choices": {"name": "Dale", "gold": 5}}}},
            {"seed": "s1", "steps": {"harvest": {"choices": {"crop": "barley", "stash": 3}},
                                     "market": {"choices": {"sell": 1}}}},
            {"seed": "s2", "steps": {"harvest": {"rolls": {"harvest": [6]}}, "market": {"choices": {"sell": 2}}}},
        ]

    def data_tables(self) -> Mapping[str, Callable[[], Any]]:
        return {"crops": lambda: CROPS}


TOY = register_ruleset(ToyRuleset())
