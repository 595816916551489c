"""The fold: state is ``reduce(apply, live events, start)``; undo is an appended retraction.

``fold`` is the only function that folds events into a state. Every reader calls it:
the snapshot cache and the warm path (starting from a snapshot), streaming replay
(batch by batch, retractions gathered first), the SQL ``states`` table (a row at each
turn's end), raw appends (checking the new events fold), previews (their start) and
ruleset helpers. The rules that decide which events count live here once
(``is_live``): ``core.*`` events never reach a ruleset, events of retracted batches
are skipped, and ``until`` stops after a turn.

The events are folded into the ruleset's working state (``Ruleset.thaw``, ``evolve_working``,
``freeze``): by default the state itself and ``evolve``; a ruleset may fold into a private
mutable one instead of copying a frozen state per event. Either way the states ``fold`` hands
out (the result, ``on_turn``'s) are frozen and equal to ``reduce(apply, ...)``'s, and the start
state is never changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kingdomlog.core.core_events import NoteAdded, TurnRetracted
from kingdomlog.core.errors import KingdomlogError
from kingdomlog.core.events import RecordedEvent
from kingdomlog.core.ruleset import CampaignContext, Ruleset, State
from kingdomlog.core.viewers import Viewer, visible_to

CORE_PREFIX = "core."


@dataclass(frozen=True)
class Start:
    """Where a fold starts: a state and the seq of the last event already folded into it (0: none)."""

    state: State
    after_seq: int = 0


def retracted_commits(events: Iterable[RecordedEvent]) -> frozenset[str]:
    """The commit ids named by every ``core.turn_retracted`` in ``events``."""
    out: set[str] = set()
    for ev in events:
        if isinstance(ev.payload, TurnRetracted):
            out.update(ev.payload.commit_ids)
    return frozenset(out)


def is_live(ev: RecordedEvent, retracted: frozenset[str], until: int | None = None) -> bool:
    """Whether ``ev`` counts in the fold: a ruleset event, not retracted, at or before turn ``until``."""
    return (not ev.type.startswith(CORE_PREFIX) and ev.commit_id not in retracted
            and (until is None or ev.turn <= until))


def live_events(events: Sequence[RecordedEvent], until_turn: int | None = None) -> list[RecordedEvent]:
    """The ruleset events that count (``is_live``), in order."""
    gone = retracted_commits(events)
    return [ev for ev in events if is_live(ev, gone, until_turn)]


def fold(
    ruleset: Ruleset,
    start: State | Start,
    events: Iterable[RecordedEvent],
    *,
    until: int | None = None,
    retracted: frozenset[str] | None = None,
    on_turn: Callable[[int, int, State], None] | None = None,
) -> State:
    """Fold ``events`` into ``start``: the state after turn ``until`` (or after the last event).

    ``start`` is a state (nothing folded yet) or a ``Start`` from a snapshot (events up
    to its ``after_seq`` are skipped). ``retracted`` is the set of retracted commit ids
    of the *whole* log; when None it is read from ``events`` (which must then be the
    whole log). ``on_turn(turn, last_seq, state)`` is called with the state at the end
    of every turn that had live events.
    """
    if not isinstance(start, Start):
        start = Start(start)
    if retracted is None:
        events = events if isinstance(events, Sequence) else list(events)
        retracted = retracted_commits(events)
    after = start.after_seq
    # The events go into the ruleset's working state (``Ruleset.thaw``: a private copy, or the state itself),
    # which only this call holds; every state handed out (``on_turn``'s, the result) is a frozen one.
    work = ruleset.thaw(start.state)
    step = ruleset.evolve_working
    types: set[str] = set()  # event types whose namespace was checked (``Ruleset.apply``'s check, once a type)
    turn: int | None = None
    last_seq = 0
    # ``is_live`` written out in the loop (the same three tests), with nothing looked up per event
    for ev in events:
        if ev.seq <= after or ev.commit_id in retracted or ev.type.startswith(CORE_PREFIX) or (
                until is not None and ev.turn > until):
            continue
        if ev.type not in types:
            ruleset.check_namespace(ev)
            types.add(ev.type)
        if on_turn is not None:
            if turn is not None and ev.turn != turn:
                on_turn(turn, last_seq, ruleset.freeze(work))
            turn, last_seq = ev.turn, ev.seq
        try:
            work = step(work, ev)
        except KingdomlogError:
            raise
        except Exception as exc:  # a bug in the ruleset's fold, as ``Ruleset.apply`` says it
            raise ruleset.evolve_failed(ev, exc) from exc
    state: State = ruleset.freeze(work)
    if on_turn is not None and turn is not None:
        on_turn(turn, last_seq, state)
    return state


def replay(
    ruleset: Ruleset,
    events: Sequence[RecordedEvent],
    until_turn: int | None = None,
    *,
    context: CampaignContext | None = None,
) -> State:
    """Fold the whole log ``events`` from the initial state (``context`` defaults to default options)."""
    if context is None:
        context = default_context(ruleset, events[0].campaign if events else "campaign")
    return fold(ruleset, ruleset.initial_state(context), events, until=until_turn)


def default_context(ruleset: Ruleset, campaign: str) -> CampaignContext:
    """A context with every option at its default."""
    return CampaignContext(campaign=campaign, options={o.name: o.default for o in ruleset.options})


def last_live_turn(events: Sequence[RecordedEvent]) -> int | None:
    """The highest turn with live ruleset events, or None."""
    gone = retracted_commits(events)
    turns = [ev.turn for ev in events if is_live(ev, gone)]
    return max(turns) if turns else None


def next_turn(events: Sequence[RecordedEvent]) -> int:
    """The turn the next plan plays: 0 for an empty log, else the last live turn + 1."""
    last = last_live_turn(events)
    return 0 if last is None else last + 1


def live_commits_of_turn(events: Sequence[RecordedEvent], turn: int) -> list[str]:
    """The commit ids of the live batches holding ruleset events of ``turn``, in log order."""
    gone = retracted_commits(events)
    out: list[str] = []
    for ev in events:
        if ev.turn == turn and is_live(ev, gone) and ev.commit_id not in out:
            out.append(ev.commit_id)
    return out


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


def _note(ev: RecordedEvent) -> dict[str, Any]:
    assert isinstance(ev.payload, NoteAdded)
    return {"seq": ev.seq, "turn": ev.turn, "title": ev.payload.title, "text": ev.payload.text,
            "visibility": ev.visibility}


def timeline(events: Sequence[RecordedEvent], viewer: str | Viewer = "gm") -> list[Batch]:
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
                commit_id=ev.commit_id, first_seq=ev.seq, last_seq=ev.seq, turns=[], types=[],
                recorded_at=ev.recorded_at.isoformat(), retracted=ev.commit_id in retractor,
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
            b.notes.append(_note(ev))
    return [b for b in batches.values() if b.visible_count]


def notes(events: Sequence[RecordedEvent], viewer: str | Viewer = "gm") -> list[dict[str, object]]:
    """Journal entries ``viewer`` may read, in log order."""
    return [_note(ev) for ev in events if isinstance(ev.payload, NoteAdded) and visible_to(ev.visibility, viewer)]


def filter_visible(events: Sequence[RecordedEvent], viewer: str | Viewer) -> list[RecordedEvent]:
    """The events ``viewer`` may see (all of them for ``gm``)."""
    return [ev for ev in events if visible_to(ev.visibility, viewer)]
