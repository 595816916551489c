"""Helpers for the aikakirjat tests: play plans purely (preview_turn) and collect events."""

from __future__ import annotations

from typing import Any

from kingdomlog.core.events import RecordedEvent, provisional
from kingdomlog.core.fold import default_context
from kingdomlog.core.turn import Plan, TurnPreview, preview_turn
from kingdomlog.rulesets.aikakirjat import RULESET
from kingdomlog.rulesets.aikakirjat.state import KingdomState

RS = RULESET


class Game:
    """A campaign played in memory: state, events, next turn."""

    def __init__(self, options: dict[str, Any] | None = None) -> None:
        ctx = default_context(RS, "test")
        if options:
            ctx = type(ctx)(campaign="test", options={**ctx.options, **options})
        self.state: KingdomState = RS.initial_state(ctx)
        self.events: list[RecordedEvent] = []
        self.turn = 0

    def preview(self, plan: dict[str, Any]) -> TurnPreview:
        raw = {"seed": f"test-{self.turn}", **plan}
        return preview_turn(RS, self.state, Plan.parse(raw), campaign="test", turn=self.turn,
                            start_seq=len(self.events))

    def play(self, plan: dict[str, Any]) -> TurnPreview:
        p = self.preview(plan)
        assert p.ok, p.error
        for d in p.drafts:
            self.events.append(provisional("test", len(self.events) + 1, d, turn=self.turn))
        self.state = p.state_after  # type: ignore[assignment]
        self.turn += 1
        return p


def founding(**over: Any) -> dict[str, Any]:
    """The §7.1 kingdom: Feudalism, Construction, scores 12/13/14/11, two hexes."""
    ch = {"name": "Esimerkki", "government": "feudalism",
          "base_scores": {"culture": 12, "economy": 13, "loyalty": 14, "stability": 11},
          "extra_proficiency": "construction", "population": 3,
          "territory": [{"area_id": "home", "unit": "hex", "amount": 2, "quality": 1.0}]}
    ch.update(over)
    return {"steps": {"founding": {"choices": ch}}}


def quiet_year(**steps: Any) -> dict[str, Any]:
    """A year with 'nothing special' (2d6 = 7), a failed growth roll and a no-effect tax collection."""
    plan: dict[str, Any] = {"steps": {
        "start": {"choices": {"new_session": False}},
        "events": {"rolls": {"event": [3, 4]}},
        "growth": {"rolls": {"growth": [1]}},
        "actions": {"choices": {"actions": [{"action": "tax_collection", "take_advantage": False}]},
                    "rolls": {"a1.check": [8]}},
    }}
    for k, v in steps.items():
        plan["steps"][k] = v
    return plan
