"""Playing Signoria plans purely (preview_turn + provisional events), as the store does."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kingdomlog.core.events import RecordedEvent, provisional
from kingdomlog.core.fold import replay
from kingdomlog.core.ruleset import CampaignContext
from kingdomlog.core.turn import Plan, preview_turn
from kingdomlog.core.viewers import PUBLIC_VIEWER, Viewer
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
        new = [provisional("test", len(self.events) + i + 1, d, turn=t) for i, d in enumerate(pv.drafts)]
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
            new = [provisional("test", len(self.events) + i + 1, d, turn=t) for i, d in enumerate(pv.drafts)]
            self.events.extend(new)
            self.state = pv.state_after
            return None
        return pv.error

    def replayed(self) -> SignoriaState:
        st = replay(RULESET, self.events, context=self.ctx)
        assert isinstance(st, SignoriaState)
        return st


def viewer(who: str) -> Viewer:
    """The parsed viewer ``who`` ("gm", "public" or a faction id)."""
    if who == "public":
        return PUBLIC_VIEWER
    return Viewer("gm", "gm") if who == "gm" else Viewer("player", who.removeprefix("faction:"))


def types(events: Sequence[RecordedEvent]) -> list[str]:
    return [e.type.removeprefix("signoria.") for e in events]


def setup_plan(**choices: Any) -> dict[str, Any]:
    """Turn 0 with Fabian (Cesare steward heir, Orsino general) and Marburg (Lorenzo intriguer, Bianca steward)."""
    base: dict[str, Any] = {
        "leader_traits": {"fabian": ["general", "intriguer"], "marburg": ["steward", "intriguer"]},
        "statesmen": {"fabian": [{"id": "cesare", "name": "Cesare", "heir": True}, {"id": "orsino", "name": "Orsino"}],
                      "marburg": [{"id": "lorenzo", "name": "Lorenzo"}, {"id": "bianca", "name": "Bianca"}]}}
    base.update(choices)
    return {"turn": 0, "seed": "setup", "steps": {"setup": {"choices": base, "rolls": {
        "trait.cesare.1": [1], "trait.orsino.1": [3], "trait.lorenzo.1": [2], "trait.bianca.1": [1]}}}}


def turn_plan(turn: int, *, orders: Mapping[str, Any] | None = None,
              command: Mapping[str, tuple[str, list[int]]] | None = None,
              steps: Mapping[str, Mapping[str, Any]] | None = None,
              opening: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A turn: command rolls (default low stake, a success [3, 3]), orders per faction, extra step input."""
    st: dict[str, Any] = {"turn_open": {"choices": dict(opening or {})}}
    for fid in ("fabian", "marburg"):
        stake, faces = (command or {}).get(fid, ("low", [3, 3]))
        st[f"command_{fid}"] = {"choices": {"stake": stake}, "rolls": {"cmd.1": faces}}
        body = (orders or {}).get(fid, [])
        st[f"orders_{fid}"] = {"choices": body if isinstance(body, dict) else {"orders": body}}
    for k, v in (steps or {}).items():
        st.setdefault(k, {}).update(v)
    return {"turn": turn, "seed": f"t{turn}", "steps": st}
