"""Headless play of plans without a store (tests, demo generation): preview each turn, keep its events."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kingdomlog.core.errors import RuleError
from kingdomlog.core.events import RecordedEvent
from kingdomlog.core.ruleset import CampaignContext, validate_options
from kingdomlog.core.turn import Plan, TurnPreview, preview_turn, provisional
from kingdomlog.rulesets.pf1.ruleset import RULESET
from kingdomlog.rulesets.pf1.state import Pf1State


def context(campaign: str = "test", options: Mapping[str, Any] | None = None,
            data: Mapping[str, Any] | None = None) -> CampaignContext:
    return CampaignContext(campaign=campaign, options=validate_options(RULESET.options, dict(options or {})),
                           data=dict(data or {}))


def play(plans: Iterable[Mapping[str, Any]], *, campaign: str = "test", options: Mapping[str, Any] | None = None,
         data: Mapping[str, Any] | None = None, state: Pf1State | None = None,
         events: list[RecordedEvent] | None = None) -> tuple[Pf1State, list[RecordedEvent], list[TurnPreview]]:
    """Play ``plans`` in order from ``state`` (default: a new campaign); a refused step raises ``RuleError``."""
    st = state if state is not None else RULESET.initial_state(context(campaign, options, data))
    evs = list(events or [])
    previews = []
    for raw in plans:
        plan = Plan.parse(dict(raw))
        turn = plan.turn if plan.turn is not None else (st.turn + 1 if st.founded else 0)
        pv = preview_turn(RULESET, st, plan, campaign=campaign, turn=turn, start_seq=len(evs), seed=f"seed-{turn}")
        if not pv.ok:
            raise RuleError(pv.error or "refused")
        for d in pv.drafts:
            evs.append(provisional(campaign, turn, len(evs) + 1, d))
        previews.append(pv)
        assert isinstance(pv.state_after, Pf1State)
        st = pv.state_after
    return st, evs, previews


def fold_payloads(payloads: Iterable[Any], *, campaign: str = "test", options: Mapping[str, Any] | None = None,
                  data: Mapping[str, Any] | None = None, turn: int = 0) -> Pf1State:
    """Fold event payloads straight into a state (``turn`` follows ``pf1.turn_started``); for tests and tools."""
    from kingdomlog.core.events import Draft
    from kingdomlog.rulesets.pf1.events import TurnStarted

    st = RULESET.initial_state(context(campaign, options, data))
    for i, p in enumerate(payloads, 1):
        if isinstance(p, TurnStarted):
            turn = p.turn
        st = RULESET.evolve(st, provisional(campaign, turn, i, Draft(p)))
    return st
