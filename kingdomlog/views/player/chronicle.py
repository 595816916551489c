"""A campaign as one viewer may know it, turn by turn: the states at each turn's end and a chronicle in words.

``read_history`` folds the log once. For every live event the viewer may see it asks the
ruleset's ``chronicle(before, event, after, viewer)`` hook for a sentence, with both
states redacted for that viewer; notes the viewer may read and undone turns join the
turn they belong to. A turn the hook says nothing about is told from the change of its
main figures. Nothing here writes, and nothing a viewer may not see is read into a
sentence: hidden events are folded (the state needs them) but never narrated, and every
state handed out is redacted.

When the log holds live events the viewer may not see, ``History.seen()`` folds the
visible events alone: a hex map drawn from those states shows nothing that only a hidden
event put there, and ``hidden_regions`` names the regions that first appeared through a
hidden event (the player view leaves both out of the viewer's map).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kingdomlog.core.core_events import NoteAdded, TurnRetracted
from kingdomlog.core.events import RecordedEvent
from kingdomlog.core.fold import filter_visible, fold, is_live, retracted_commits
from kingdomlog.core.portrait import Portrait
from kingdomlog.core.ruleset import CampaignContext, Ruleset, State
from kingdomlog.core.viewers import Viewer, visible_to


@dataclass
class TurnStory:
    """What one viewer is told of one turn."""

    turn: int
    title: str
    lines: list[str] = field(default_factory=list)
    notes: list[tuple[str, str]] = field(default_factory=list)
    undone: list[str] = field(default_factory=list)
    sections: dict[str, list[str]] = field(default_factory=dict)
    """Sentences the ruleset files under a heading of their own (``chronicle_section``), in first-seen order."""

    @property
    def empty(self) -> bool:
        return not (self.lines or self.notes or self.undone or any(self.sections.values()))


@dataclass
class History:
    """A viewer's history of a campaign: redacted end-of-turn states, the chronicle, and the seen states."""

    viewer: Viewer
    turns: list[int]
    states: dict[int, State]
    stories: list[TurnStory]
    hidden_live: bool = False
    """Some live event is hidden from the viewer."""
    hidden_regions: set[str] = field(default_factory=set)
    """Map regions that first appeared through an event hidden from the viewer (withheld from their map)."""
    _seen: Any = None

    def seen(self) -> tuple[dict[int, State] | None, bool]:
        """States folded from the visible events only, redacted (None when the viewer sees every live event),
        and whether those events alone failed to fold (a hidden event is needed: hex maps are then withheld)."""
        if not self.hidden_live or self.viewer.is_gm:
            return None, False
        if self._seen is None:
            rs, context, events, gone = self._source
            self._seen = _seen_states(rs, context, events, gone, self.viewer)
        out: tuple[dict[int, State] | None, bool] = self._seen
        return out

    _source: Any = None

    def state(self, turn: int) -> State | None:
        return self.states.get(turn)

    def previous(self, turn: int) -> State | None:
        """The state at the end of the turn before ``turn`` (None for the first)."""
        earlier = [t for t in self.turns if t < turn]
        return self.states[earlier[-1]] if earlier else None

    def story(self, turn: int) -> TurnStory | None:
        return next((s for s in self.stories if s.turn == turn), None)


def turn_title(turn_unit: str, turn: int) -> str:
    """``Founding`` for turn 0, else ``Month 7``.

    >>> turn_title("month", 0), turn_title("season", 3)
    ('Founding', 'Season 3')
    """
    return "Founding" if turn == 0 else f"{turn_unit.capitalize()} {turn}"


def sentence(text: str) -> str:
    """``text`` with a capital first letter and a full stop.

    >>> sentence("taxes came in short"), sentence("Done!")
    ('Taxes came in short.', 'Done!')
    """
    t = text.strip()
    if not t:
        return t
    t = t[0].upper() + t[1:]
    return t if t[-1] in ".!?" else t + "."


def merge_alike(lines: Sequence[str]) -> list[str]:
    """Three or more sentences of a turn that differ in one word only, told once (where the first stood) with
    the words listed.

    >>> merge_alike(["Hex A1 was placed on the map.", "Taxes came in.", "Hex A2 was placed on the map.",
    ...              "Hex B1 was placed on the map."])
    ['Hexes A1, A2 and B1 were placed on the map.', 'Taxes came in.']
    """
    split = [ln.split(" ") for ln in lines]
    used = [False] * len(lines)
    out: list[str] = []
    for i in range(len(lines)):
        if used[i]:
            continue
        group, pos = [i], None
        for j in range(i + 1, len(lines)):
            if used[j] or len(split[j]) != len(split[i]):
                continue
            diff = [k for k, (a, b) in enumerate(zip(split[i], split[j], strict=True)) if a != b]
            if len(diff) == 1 and (pos is None or diff[0] == pos):
                pos = diff[0]
                group.append(j)
        if pos is None or len(group) < 3:
            out.append(lines[i])
            used[i] = True
            continue
        for k in group:
            used[k] = True
        words = [split[k][pos].rstrip(".,;") for k in group]
        tail = split[i][pos][len(words[0]):]
        listed = ", ".join(words[:-1]) + f" and {words[-1]}" + tail
        text = " ".join([*split[i][:pos], listed, *split[i][pos + 1:]])
        text = re.sub(r"^(?:The )?[Hh]ex (.*?) was ", lambda m: f"Hexes {m.group(1)} were ", text)
        text = re.sub(r"\bhex (?=\S+, )", "hexes ", text)
        out.append(text)
    return out


def humanize(key: str) -> str:
    """A ``summary()`` column for people when the ruleset gives no label: ``food_storage`` -> ``Food storage``.

    >>> humanize("treasury_bp"), humanize("rp")
    ('Treasury (BP)', 'RP')
    """
    special = {"bp": "(BP)", "rp": "RP", "xp": "XP", "dc": "DC", "gp": "(gp)"}
    words = [special.get(w, w) for w in key.split("_")]
    if len(words) == 1 and words[0].isupper():
        return words[0]
    text = " ".join(words)
    return text[:1].upper() + text[1:]


def figure_changes(before: Mapping[str, Any], after: Mapping[str, Any], keys: Sequence[str],
                   labels: Mapping[str, str]) -> list[str]:
    """Sentences for the figures among ``keys`` that changed: ``Gold rose from 10 to 16``.

    >>> figure_changes({"gold": 10, "food": 3}, {"gold": 16, "food": 3}, ["gold", "food"], {"gold": "Gold"})
    ['Gold rose from 10 to 16']
    """
    out = []
    for k in keys:
        a, b = before.get(k), after.get(k)
        if not isinstance(a, (int, float)) or not isinstance(b, (int, float)) or isinstance(a, bool) \
                or isinstance(b, bool) or a == b:
            continue
        word = "rose" if b > a else "fell"
        out.append(f"{labels.get(k) or humanize(k)} {word} from {a:g} to {b:g}")
    return out


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def read_history(ruleset: Ruleset, context: CampaignContext, events: Sequence[RecordedEvent], viewer: Viewer,
                 *, turn_unit: str | None = None, narrate: bool = True) -> History:
    """Fold ``events`` once for ``viewer``: end-of-turn states (redacted), the chronicle, and the seen states."""
    rs = ruleset
    unit = turn_unit or rs.turn_unit
    gone = retracted_commits(events)
    retractor: dict[str, TurnRetracted] = {}
    for ev in events:
        if isinstance(ev.payload, TurnRetracted):
            for cid in ev.payload.commit_ids:
                retractor.setdefault(cid, ev.payload)
    stories: dict[int, TurnStory] = {}

    def story(turn: int) -> TurnStory:
        if turn not in stories:
            stories[turn] = TurnStory(turn, turn_title(unit, turn))
        return stories[turn]

    def shown(s: State) -> State:
        return s if viewer.is_gm else rs.redact(s, viewer)

    state: State = rs.initial_state(context)
    states: dict[int, State] = {}
    hidden_live = False
    hidden_regions: set[str] = set()
    last_ids: set[str] | None = None

    def region_ids(s: State) -> set[str]:
        m = rs.map(s, viewer)
        return {r.id for r in m.regions} if m is not None else set()

    told_undone: set[str] = set()
    shown_state: State | None = None
    for ev in events:
        if ev.type.startswith("core."):
            if not visible_to(ev.visibility, viewer):
                continue
            if isinstance(ev.payload, NoteAdded):
                story(ev.turn).notes.append((ev.payload.title, ev.payload.text))
            continue
        if ev.commit_id in gone:
            if narrate and visible_to(ev.visibility, viewer) and ev.commit_id not in told_undone:
                told_undone.add(ev.commit_id)
                why = retractor[ev.commit_id].reason if ev.commit_id in retractor else ""
                story(ev.turn).undone.append(
                    f"A first telling of this {unit} was undone" + (f" ({why})." if why else "."))
            continue
        if not is_live(ev, gone):
            continue
        before = state
        state = rs.apply(state, ev)
        states[ev.turn] = state
        if not visible_to(ev.visibility, viewer):
            hidden_live = True
            if not viewer.is_gm:
                a_ids = region_ids(shown(state))
                hidden_regions.update(a_ids - (last_ids if last_ids is not None else region_ids(shown(before))))
                last_ids = a_ids
            shown_state = None
            continue
        last_ids = None
        if not narrate:
            continue
        b = shown_state if shown_state is not None else shown(before)
        a = shown(state)
        shown_state = a
        text = rs.chronicle(b, ev, a, viewer)
        if text:
            section = rs.chronicle_section(ev, viewer)
            st = story(ev.turn)
            (st.sections.setdefault(section, []) if section else st.lines).append(sentence(text))
    for st in stories.values():
        st.lines = merge_alike(st.lines)
        st.sections = {k: merge_alike(v) for k, v in st.sections.items()}
    turns = sorted(states)
    redacted = {t: shown(s) for t, s in states.items()}
    if narrate:
        _figure_fallback(rs, redacted, turns, story, viewer)
    ordered = [stories[t] for t in sorted(stories)]
    hist = History(viewer, turns, redacted, ordered, hidden_live=hidden_live, hidden_regions=hidden_regions)
    hist._source = (rs, context, events, gone)
    return hist


def _figure_fallback(rs: Ruleset, states: Mapping[int, State], turns: Sequence[int], story: Any,
                     viewer: Viewer) -> None:
    """Turns the ruleset told nothing about: the change of their main figures, in words."""
    prev: State | None = None
    for t in turns:
        s = states[t]
        st: TurnStory = story(t)
        if not st.lines and not st.sections and prev is not None:
            portrait: Portrait | None = rs.portrait(s, prev, viewer)
            labels = {f.key: f.label for f in portrait.figures} if portrait else {}
            keys = list(rs.chart_figures) or [k for k, v in rs.summary(s).items() if _is_number(v)]
            st.lines.extend(sentence(x) for x in figure_changes(rs.summary(prev), rs.summary(s), keys, labels))
        prev = s


def _seen_states(rs: Ruleset, context: CampaignContext, events: Sequence[RecordedEvent], gone: frozenset[str],
                 viewer: Viewer) -> tuple[dict[int, State] | None, bool]:
    """End-of-turn states folded (``core.fold.fold``) from the live events ``viewer`` may see, redacted;
    (None, True) if they do not fold without the hidden ones."""
    out: dict[int, State] = {}

    def keep(turn: int, _last_seq: int, state: State) -> None:
        out[turn] = state

    try:
        fold(rs, rs.initial_state(context), filter_visible(events, viewer), retracted=gone, on_turn=keep)
        return {t: rs.redact(s, viewer) for t, s in out.items()}, False
    except Exception:  # whatever stops the visible events folding alone, the answer is the same: withhold
        return None, True
