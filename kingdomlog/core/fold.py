"""The fold: state is ``reduce(evolve, events, initial_state)``; undo is an appended retraction.

``replay`` is the only way state comes to exist. Events of batches named by a
``core.turn_retracted`` are skipped; ``core.*`` events never reach the ruleset.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from kingdomlog.core.core_events import NoteAdded, TurnRetracted
from kingdomlog.core.events import RecordedEvent, visible_to
from kingdomlog.core.ruleset import CampaignContext, Ruleset, State


def retracted_commits(events: Iterable[RecordedEvent]) -> frozenset[str]:
    """The commit ids named by every ``core.turn_retracted`` in ``events``."""
    out: set[str] = set()
    for ev in events:
        if isinstance(ev.payload, TurnRetracted):
            out.update(ev.payload.commit_ids)
    return frozenset(out)


def live_events(events: Sequence[RecordedEvent], until_turn: int | None = None) -> list[RecordedEvent]:
    """The ruleset events that count: not ``core.*``, not retracted, turn <= ``until_turn``."""
    gone = retracted_commits(events)
    return [
        ev
        for ev in events
        if not ev.type.startswith("core.")
        and ev.commit_id not in gone
        and (until_turn is None or ev.turn <= until_turn)
    ]


def fold(ruleset: Ruleset, state: State, events: Iterable[RecordedEvent]) -> State:
    """Apply ``ruleset.evolve`` over ``events`` in order (no filtering)."""
    for ev in events:
        state = ruleset.evolve(state, ev)
    return state


def replay(
    ruleset: Ruleset,
    events: Sequence[RecordedEvent],
    until_turn: int | None = None,
    *,
    context: CampaignContext | None = None,
) -> State:
    """Fold ``events`` into the state after ``until_turn`` (or the end of the log).

    ``context`` defaults to the ruleset's default options for an unnamed campaign.
    """
    if context is None:
        context = default_context(ruleset, events[0].campaign if events else "campaign")
    return fold(ruleset, ruleset.initial_state(context), live_events(events, until_turn))


def default_context(ruleset: Ruleset, campaign: str) -> CampaignContext:
    """A context with every option at its default."""
    return CampaignContext(campaign=campaign, options={o.name: o.default for o in ruleset.options})


def next_turn(events: Sequence[RecordedEvent]) -> int:
    """The turn the next plan plays: 0 for an empty log, else the last live turn + 1."""
    live = [ev.turn for ev in live_events(events)]
    return (max(live) + 1) if live else 0


def last_live_turn(events: Sequence[RecordedEvent]) -> int | None:
    """The highest turn with live ruleset events, or None."""
    live = [ev.turn for ev in live_events(events)]
    return max(live) if live else None


@dataclass
class Batch:
    """One committed batch as the timeline shows it."""

    commit_id: str
    first_seq: int
    last_seq: int
    turns: list[int]
    types: list[str]
    recorded_at: str
    retracted: bool = False
    retracted_by: int | None = None
    notes: list[dict[str, object]] = field(default_factory=list)
    visible_count: int = 0


def timeline(events: Sequence[RecordedEvent], viewer: str = "gm") -> list[Batch]:
    """Batches in order, retracted ones flagged, notes only where ``viewer`` may read them.

    A batch with no event visible to ``viewer`` is left out.
    """
    retractor: dict[str, int] = {}
    for ev in events:
        if isinstance(ev.payload, TurnRetracted):
            for cid in ev.payload.commit_ids:
                retractor.setdefault(cid, ev.seq)
    batches: dict[str, Batch] = {}
    for ev in events:
        b = batches.get(ev.commit_id)
        if b is None:
            b = batches[ev.commit_id] = Batch(
                commit_id=ev.commit_id,
                first_seq=ev.seq,
                last_seq=ev.seq,
                turns=[],
                types=[],
                recorded_at=ev.recorded_at.isoformat(),
                retracted=ev.commit_id in retractor,
                retracted_by=retractor.get(ev.commit_id),
            )
        b.last_seq = ev.seq
        if not visible_to(ev.visibility, viewer):
            continue
        b.visible_count += 1
        if ev.turn not in b.turns:
            b.turns.append(ev.turn)
        b.types.append(ev.type)
        if isinstance(ev.payload, NoteAdded):
            b.notes.append(
                {"seq": ev.seq, "turn": ev.turn, "title": ev.payload.title, "text": ev.payload.text,
                 "visibility": ev.visibility}
            )
    return [b for b in batches.values() if b.visible_count]


def notes(events: Sequence[RecordedEvent], viewer: str = "gm") -> list[dict[str, object]]:
    """Journal entries ``viewer`` may read, in log order."""
    out: list[dict[str, object]] = []
    for ev in events:
        if isinstance(ev.payload, NoteAdded) and visible_to(ev.visibility, viewer):
            out.append({"seq": ev.seq, "turn": ev.turn, "title": ev.payload.title,
                        "text": ev.payload.text, "visibility": ev.visibility})
    return out


def filter_visible(events: Sequence[RecordedEvent], viewer: str) -> list[RecordedEvent]:
    """The events ``viewer`` may see (all of them for ``gm``)."""
    return [ev for ev in events if visible_to(ev.visibility, viewer)]
