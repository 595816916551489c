"""Playing Signoria plans purely (preview_turn + provisional events), as the store does."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kingdomlog.core.events import RecordedEvent
from kingdomlog.core.fold import replay
from kingdomlog.core.ruleset import CampaignContext
from kingdomlog.core.turn import Plan, preview_turn, provisional
from kingdomlog.rulesets.signoria import RULESET
from kingdomlog.rulesets.signoria.ruleset import OPTIONS
from kingdomlog.rulesets.signoria.state import SignoriaState


def context(**options: Any) -> CampaignContext:
    opts = {o.name: o.default for o in OPTIONS}
    opts.update(options)
    return CampaignContext(campaign="test", options=opts)


class Game:
    """A log in memory: plans in, recorded events out."""

    def __init__(self, **options: Any) -> None:
        self.ctx = context(**options)
        self.events: list[RecordedEvent] = []
        self.state: SignoriaState = RULESET.initial_state(self.ctx)

    def play(self, plan: Mapping[str, Any], turn: int | None = None) -> list[RecordedEvent]:
        p = Plan.parse(dict(plan))
        t = p.turn if p.turn is not None else (turn if turn is not None else self.state.turn + 1)
        pv = preview_turn(RULESET, self.state, p, campaign="test", turn=t, start_seq=len(self.events),
                          seed="test-seed")
        if not pv.ok:
            raise AssertionError(pv.error)
        new = [provisional("test", t, len(self.events) + i + 1, d) for i, d in enumerate(pv.drafts)]
        self.events.extend(new)
        self.state = pv.state_after
        return new

    def try_play(self, plan: Mapping[str, Any], turn: int | None = None) -> str | None:
        """Play, returning the refusal message (nothing appended) or None."""
        p = Plan.parse(dict(plan))
        t = p.turn if p.turn is not None else (turn if turn is not None else self.state.turn + 1)
        pv = preview_turn(RULESET, self.state, p, campaign="test", turn=t, start_seq=len(self.events),
                          seed="test-seed")
        if pv.ok:
            new = [provisional("test", t, len(self.events) + i + 1, d) for i, d in enumerate(pv.drafts)]
            self.events.extend(new)
            self.state = pv.state_after
            return None
        return pv.error

    def replayed(self) -> SignoriaState:
        st = replay(RULESET, self.events, context=self.ctx)
        assert isinstance(st, SignoriaState)
        return st


def types(events: Sequence[RecordedEvent]) -> list[str]:
    return [e.type.removeprefix("signoria.") for e in events]
