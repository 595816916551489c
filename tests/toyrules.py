"""A tiny ruleset used only by the core tests ("toy-farm"): one harvest and one market step.

It exercises every part of the seam (options, phases, choices, dice, decide,
evolve, redact, summary, explain, views) without depending on a real rule system.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kingdomlog.core.errors import InputError, RuleError
from kingdomlog.core.events import Draft, EventModel, RecordedEvent, register_event, register_upcaster
from kingdomlog.core.modifiers import Modifier, stack
from kingdomlog.core.ruleset import Breakdown, CampaignContext, Choice, Dice, OptionSpec, Phase, register_ruleset


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


class ToyRuleset:
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
    def phases(self) -> Sequence[Phase]:
        return (Phase("harvest", "Harvest", dice=("harvest",)), Phase("market", "Market"))

    def phases_for(self, state: Any, turn: int) -> Sequence[Phase]:
        return (Phase("found", "Founding"),) if turn == 0 else self.phases

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
        return state

    def choices(self, state: Any, step: str) -> Sequence[Choice]:
        if step == "found":
            return (Choice("name", "Farm name", "text", default="Greenacre"),
                    Choice("gold", "Starting gold", "int", default=10, minimum=0))
        if step == "harvest":
            return (Choice("crop", "Crop", "select", options=("wheat", "barley"), default="wheat"),
                    Choice("stash", "Gold hidden by the GM", "int", default=0, minimum=0))
        return (Choice("sell", "Food to sell", "int", default=0, minimum=0),)

    def decide(self, state: Any, step: str, choices: Mapping[str, Any], dice: Dice) -> list[Draft]:
        if step == "found":
            gold = choices.get("gold", 10)
            if not isinstance(gold, int) or gold < 0:
                raise InputError("gold must be a whole number >= 0")
            return [Draft(Founded(name=str(choices.get("name", "Greenacre")), gold=gold), phase=step)]
        if step == "harvest":
            crop = choices.get("crop", "wheat")
            if crop not in ("wheat", "barley"):
                raise RuleError(f"unknown crop {crop!r}", rule="toy §1", step=step)
            roll = dice.roll("harvest", "1d6" if crop == "wheat" else "2d6")
            out = [Draft(Harvested(crop=crop, faces=roll.faces, food=roll.total), phase=step)]
            if choices.get("stash"):
                out.append(Draft(Secret(gold=int(choices["stash"])), phase=step, visibility="gm"))
            return out
        if step == "market":
            sell = choices.get("sell", 0)
            if not isinstance(sell, int) or sell < 0:
                raise InputError("sell must be a whole number >= 0")
            if sell > state.food:
                raise RuleError(f"cannot sell {sell} food, only {state.food} in store", rule="toy §2", step=step)
            return [Draft(Sold(food=sell, gold=sell * state.price), phase=step)] if sell else []
        raise InputError(f"unknown step {step!r}")

    def redact(self, state: Any, viewer: str) -> ToyState:
        return state if viewer == "gm" else state.model_copy(update={"stash": None})

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
        return {"crops": lambda: ("wheat", "barley")}


TOY = register_ruleset(ToyRuleset())
