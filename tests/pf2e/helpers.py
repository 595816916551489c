"""Helpers for the pf2e tests: found a kingdom and play plans purely (preview_turn), as the store does."""

from __future__ import annotations

from typing import Any

from kingdomlog.core.ruleset import CampaignContext, find_ruleset
from kingdomlog.core.turn import Plan, TurnPreview, preview_turn
from kingdomlog.rulesets.pf2e.state import KingdomState

RS = find_ruleset("pf2e-kingmaker")

SECTION6_FOUNDING: dict[str, Any] = {
    "name": "Oakhold March",
    "charter": "open", "heartland": "forest-or-swamp", "government": "yeomanry",
    "charter_free_boost": "stability", "government_free_boost": "stability",
    "free_boosts": ["loyalty", "economy"],
    "trained_skills": ["arts", "intrigue", "politics", "trade"],
    "leaders": {
        "ruler": {"holder": "Aldra", "kind": "pc", "invested": True},
        "counselor": {"holder": "Borin", "kind": "pc", "invested": True},
        "treasurer": {"holder": "Cirra", "kind": "pc", "invested": True},
        "general": {"holder": "Dace", "kind": "pc", "invested": True},
        "emissary": {"holder": "Elsa", "kind": "npc"},
        "viceroy": {"holder": "Fenn", "kind": "npc"},
        "warden": {"holder": "Gale", "kind": "npc"},
    },
    "capital": {"id": "oakhold", "name": "Oakhold", "hex": "H0", "terrain": "plains"},
    "hexes": [{"id": "H0", "terrain": "plains", "q": 0, "r": 0}],
    "structures": ["houses"],
    "commodities": {"food": 3, "lumber": 2},
    "resume": {"turn": 1, "xp": 52, "unrest": 2, "ruin_points": {"crime": 2, "strife": 1}, "event_dc": 11},
}


class Game:
    """A campaign played in memory: state plus the running seq, one plan per call."""

    def __init__(self, options: dict[str, Any] | None = None, data: dict[str, Any] | None = None) -> None:
        # a random event the plan does not name is left to the GM here (tests of one rule stay free of the d100
        # table's events); tests of the table set kingdom_event_selection = "table"
        opts = {"kingdom_event_selection": "gm", **(options or {})}
        self.ctx = CampaignContext(campaign="test", options=opts, data=data or {})
        self.state: KingdomState = RS.initial_state(self.ctx)  # type: ignore[assignment]
        self.seq = 0
        self.turn = 0
        self.previews: list[TurnPreview] = []

    def play(self, steps: dict[str, Any], *, seed: str = "seed", check: bool = True) -> TurnPreview:
        plan = Plan.parse({"turn": self.turn, "seed": seed, "steps": steps})
        pv = preview_turn(RS, self.state, plan, campaign="test", turn=self.turn, start_seq=self.seq)
        if check and not pv.ok:
            raise AssertionError(pv.error)
        if pv.ok:
            self.state = pv.state_after  # type: ignore[assignment]
            self.seq += len(pv.drafts)
            self.turn += 1
        self.previews.append(pv)
        return pv

    def found(self, **over: Any) -> Game:
        self.play({"founding": {"choices": {**SECTION6_FOUNDING, **over}}})
        return self


def step_state(pv: TurnPreview, step: str) -> KingdomState:
    for s in pv.steps:
        if s.phase.id == step:
            assert s.state_after is not None, s.error
            return s.state_after  # type: ignore[return-value]
    raise KeyError(step)


def events_of(pv: TurnPreview, step: str) -> list[Any]:
    for s in pv.steps:
        if s.phase.id == step:
            return [d.payload for d in s.drafts]
    raise KeyError(step)
