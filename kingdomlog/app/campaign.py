"""A campaign as the CLI, the notebooks and the servers use it: open, read, preview, commit, retract, note.

``Campaign`` sits on the store (``store.log`` for the batches, ``store.cache`` for
snapshots, ``store.config`` for ``campaign.toml``) and the pure core (``core.fold`` for
every state, ``core.turn`` for previews). There is one route to each thing a person
does: one to a state (``state``), one to a preview (``preview``, with the players'
submissions merged in), one to a commit (``commit``, with ``expect_seq``, recording its
draft), and one write path under every write (``append``), where each draft is placed in
its turn and checked (visibility against the campaign's declared players) before the store
builds its envelope. Viewers come in parsed (``viewer`` parses a name from the config).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from kingdomlog.core.core_events import CampaignConfigured, NoteAdded, TurnRetracted
from kingdomlog.core.data import file_document
from kingdomlog.core.errors import (
    CampaignNotFoundError,
    ConflictError,
    CorruptLogError,
    InputError,
    InternalError,
    KingdomlogError,
    RuleError,
    StoreError,
)
from kingdomlog.core.events import (
    GENESIS_HASH,
    Draft,
    RecordedEvent,
    decode_payload,
    event_class,
    provisional,
    renumber,
)
from kingdomlog.core.fold import (
    CORE_PREFIX,
    Start,
    filter_visible,
    fold,
    is_live,
    last_live_turn,
    live_commits_of_turn,
    next_turn,
    retracted_commits,
)
from kingdomlog.core.ruleset import CampaignContext, Ruleset, State, find_ruleset, validate_options
from kingdomlog.core.viewers import GM_VIEWER, PUBLIC_VIEWER, Viewer, parse_viewer, parse_visibility
from kingdomlog.store.cache import Latest, SnapshotCache
from kingdomlog.store.config import CONFIG_FILE, CampaignConfig, ViewerEntry, load_config, slug_ok, write_config
from kingdomlog.store.errors import describe_os_error
from kingdomlog.store.log import AppendResult, EventLog, batch_name, footer_value, read_batch

if TYPE_CHECKING:
    from kingdomlog.app.submissions import SubmissionCheck
    from kingdomlog.core.turn import Plan, Release, TurnPreview

# A turn's preview and commit (``core.turn``, its dice, ``app.drafts``, ``app.table``), the players' submissions and
# export/import are imported where they are used: ``kingdomlog state`` reads a state and uses none of them (issue 31).

RAW_FIELDS = frozenset({"turn", "phase", "type", "version", "actor", "visibility", "payload"})


def _top_live_turn(events: Sequence[RecordedEvent], cols: Mapping[str, list[Any]], commits: AbstractSet[str],
                   retracted: frozenset[str], until: int | None) -> int | None:
    """The highest turn of ``events`` that counts in the fold (``core.fold.is_live``), or None.

    ``cols`` are the events' columns as ``codec.decode_columns`` gives them and ``commits`` their commit ids:
    when no event is retracted, none is a core event and no turn is cut, every event counts and the highest
    turn is read off the turn column (~0.15 against ~0.6 ms a 4,000-event table through each event, issue 31).
    """
    if until is None and retracted.isdisjoint(commits) and \
            not any(t.startswith(CORE_PREFIX) for t in set(cols["type"])):
        top: int = max(cols["turn"])
        return top
    return max((ev.turn for ev in events if is_live(ev, retracted, until)), default=None)


NOTE_ATTEMPTS = 40
"""How many times a note is placed after a head that moved on before it gives up (``Campaign.note``).

Between tries a writer waits ``note_pause`` (growing, capped, spread per writer): about 1.7 s in all,
so three writers appending a dozen notes each on a loaded machine all land (8 tries of 1-8 ms did not:
one writer lost 8 races in a row in a CI run)."""


def note_pause(attempt: int, spread: float) -> float:
    """Seconds to wait after the ``attempt``-th lost race: 3 ms growing by half each time, at most 50 ms,
    times ``spread`` (0.5-1.5, this writer's own) so writers that collided try again at different times."""
    return min(0.002 * 1.5 ** attempt, 0.05) * spread
SHORT_HASH = 16
"""Hex digits of a head hash shown on views (64 bits: enough that nobody can make another log end on them)."""
MIN_WITNESS = 12
WITNESS_RE = re.compile(r"^\s*(?:(?:seq\s*)?(\d+)\s*[:·,\s-]\s*(?:head\s*)?)?([0-9a-fA-F]{12,64})\s*$")


@dataclass(frozen=True)
class Witness:
    """A log's head as one viewer is shown it: the last seq in that viewer's numbering, and its hash.

    For the GM it is the log's own head; for anyone else the head of their own numbering
    (``core.events.renumber``), which reveals nothing about hidden events.
    """

    viewer: str
    seq: int
    hash: str

    @property
    def short(self) -> str:
        """The first 16 hex digits, as views print them."""
        return self.hash[:SHORT_HASH]

    @property
    def text(self) -> str:
        """``seq 42 · head 3f9c1a2b4d5e6f70``."""
        return f"seq {self.seq} · head {self.short}"

    def as_dict(self) -> dict[str, Any]:
        return {"viewer": self.viewer, "seq": self.seq, "hash": self.hash, "short": self.short}


@dataclass(frozen=True)
class WitnessCheck:
    """What ``verify --expect-head`` found: the witness, where it is in the log (None: nowhere) and a sentence."""

    expected: str
    found: Witness | None
    head: Witness | None
    message: str

    @property
    def ok(self) -> bool:
        return self.found is not None


@dataclass(frozen=True)
class VerifyReport:
    """What ``verify`` found: counts, and problems (empty when the log is sound)."""

    campaign: str
    files: int
    events: int
    problems: list[str]
    temp_files: list[str]
    warnings: list[str] = field(default_factory=list)
    """Not faults of the log: e.g. campaign.toml options that differ from the log's (the log wins)."""
    head: Witness | None = None
    """The log's head (the GM's witness), when the log could be read."""
    witness: WitnessCheck | None = None
    """The result of ``expect_head``, when one was given."""

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class TurnStart:
    """Where the next turn starts: its number, the log's last seq, the state and the declared players.

    A sheet holds one while the GM edits the draft, so each preview folds nothing again.
    """

    turn: int
    start_seq: int
    state: State
    players: tuple[str, ...]


class Campaign:
    """One campaign folder."""

    def __init__(self, folder: Path, config: CampaignConfig, *, log_id: str | None = None) -> None:
        self.folder = folder
        self.config = config
        self.log = EventLog(folder / "log", log_id or config.id, cache_dir=folder / ".cache")
        self.cache = SnapshotCache(folder / ".cache" / "snapshots")
        self._events: list[RecordedEvent] | None = None
        self._events_key: tuple[str, ...] | None = None
        self._head_problems: tuple[str, ...] = ()
        self._kept: tuple[int, str, State] | None = None
        """The GM's latest state as last folded here, with the seq and hash of the event it ends at."""
        self._players: tuple[str, ...] | None = None
        self.id_problem: str | None = None
        """Set when campaign.toml's id is not the log's: reads use the log's id, every write is refused."""
        if log_id is not None and log_id != config.id:
            self.id_problem = (f"{folder / CONFIG_FILE}: id is {config.id!r}, but this log belongs to campaign"
                               f" {log_id!r} (a campaign's id is fixed when it is created; set id = \"{log_id}\""
                               " again)")

    # ---- creating and opening ------------------------------------------------------------

    @classmethod
    def open(cls, folder: str | Path) -> Campaign:
        """Open an existing campaign folder; ``CampaignNotFoundError`` if it is not one.

        The log must hold its first event (a folder whose ``log/`` is empty is a creation or
        an import that did not finish, not a campaign). When campaign.toml's ``id`` was edited,
        the log's id wins: the campaign reads under it and refuses every write (``id_problem``).
        """
        path = Path(folder)
        config = load_config(path)
        probe = EventLog(path / "log", config.id)
        try:
            owner = probe.owner()
        except CorruptLogError:  # a damaged first batch: whoever reads the log reports it (verify names the file)
            owner = config.id
        if owner is None:
            raise CampaignNotFoundError(
                f"{path}: not a campaign yet: its log/ holds no events (a `kingdomlog new` or an import that did not"
                " finish?); remove the folder and create or import the campaign again")
        return cls(path, config, log_id=owner)

    @classmethod
    def create(
        cls,
        folder: str | Path,
        ruleset: str,
        *,
        name: str | None = None,
        options: Mapping[str, Any] | None = None,
        viewers: Iterable[str | ViewerEntry] = (),
        campaign_id: str | None = None,
        recorded_at: datetime | None = None,
    ) -> Campaign:
        """Create a campaign folder, write ``campaign.toml`` and log its configuration (seq 1).

        Refuses a folder that already holds a campaign or any other files, an id that is
        not a slug, and a player named like a reserved viewer (``gm``, ``public``, ``system``).
        When it fails part way (a full disk), what it made is removed again, so the same command
        can simply be run again; a log that holds a batch is never removed.
        """
        path = Path(folder)
        rs = find_ruleset(ruleset)
        cid = campaign_id or path.name
        if not slug_ok(cid):
            raise InputError(
                f"campaign id {cid!r} must be lower case letters, digits, - or _, starting with a letter"
                " (name the folder so, or pass an id)"
            )
        if path.exists() and any(path.iterdir()):
            if (path / CONFIG_FILE).exists():
                raise StoreError(f"{path}: a campaign already exists here")
            raise StoreError(f"{path}: folder is not empty; choose a new folder for the campaign")
        opts = validate_options(rs.options, dict(options or {}), entering=True)
        seen: dict[str, str | ViewerEntry] = {}
        for v in viewers:  # a player's id, or their entry (name, character)
            seen.setdefault(v.id if isinstance(v, ViewerEntry) else v, v)
        try:
            cfg = CampaignConfig(id=cid, name=name or cid, ruleset=rs.id, options=opts,
                                 viewers=[v if isinstance(v, ViewerEntry) else ViewerEntry(id=v)
                                          for v in seen.values()])
        except ValidationError as exc:
            err = exc.errors()[0]
            raise InputError(f"player {err.get('input')!r}: {err['msg']}") from None
        existed = path.exists()
        cid = str(uuid.uuid4())
        try:
            (path / "log").mkdir(parents=True, exist_ok=True)
            write_config(path, cfg)
            camp = cls(path, cfg)
            camp.log.append([Draft(CampaignConfigured(ruleset=rs.id, options=opts, name=cfg.name), actor="gm",
                                   turn=0)], expect_seq=0, commit_id=cid, recorded_at=recorded_at)
        except OSError as exc:
            _undo_create(path, existed, cid)
            raise StoreError(f"{path}: the campaign was not created: {describe_os_error(exc)}") from None
        except BaseException:
            _undo_create(path, existed, cid)
            raise
        return camp

    # ---- reading -------------------------------------------------------------------------

    @property
    def id(self) -> str:
        """The campaign's id: the one its log was written for (campaign.toml's, unless someone edited it)."""
        return self.log.campaign

    @property
    def ruleset(self) -> Ruleset:
        return find_ruleset(self.config.ruleset)

    def events(self, *, full_verify: bool = False) -> list[RecordedEvent]:
        """Every event of the log, checked and decoded (re-read when the log changed).

        Raises ``CorruptLogError`` for a damaged log, and for one that ends before (or differs from) the
        head it recorded (``store.witness``): a log that lost its newest batches is not served.
        """
        return self._read(full_verify=full_verify, check_head=True)

    def _read(self, *, full_verify: bool, check_head: bool) -> list[RecordedEvent]:
        files = tuple(f.name for f in self.log.files())
        if self._events is None or self._events_key != files or full_verify:
            had, key = self._events, self._events_key
            self._events = None
            grew = (had and key is not None and not full_verify and check_head and len(files) > len(key)
                    and files[:len(key)] == key)
            self._events = self._grown(had, files) if grew and had else None
            if self._events is None:
                self._events = self.log.read(full_verify=full_verify, check_head=check_head)
            self._events_key = files
            walked = self.log.walked
            self._head_problems = walked.head_problems if walked is not None else ()
        if check_head and self._head_problems:
            raise CorruptLogError(self._head_problems[0])
        return self._events

    def _grown(self, had: list[RecordedEvent], files: tuple[str, ...]) -> list[RecordedEvent] | None:
        """``had`` (the events read before) and the ones appended since, when the log only grew since then.

        The whole log is checked as any read checks it (``EventLog.read_after``: the files read before confirmed
        by their identity on disk or their digest, the chain of every file, the head against its records), and
        only the new batches are decoded. None (read it all again) when the event ``had`` ends at is not the
        log's any more, or a batch was retracted since (a fold must then start before it).
        """
        from kingdomlog.store.codec import decode_table

        tail = self.log.read_after(had[-1].seq)
        if tail.hash_at != had[-1].hash or tail.table is None:
            return None
        new = decode_table(tail.table)
        if not new or new[0].seq != had[-1].seq + 1 or new[0].prev_hash != had[-1].hash:
            return None
        return had + new

    def _changed(self) -> None:
        self._events = None

    @property
    def head_seq(self) -> int:
        return self.log.head().seq

    def configured(self) -> CampaignConfigured | None:
        evs = self.events()
        if evs and isinstance(evs[0].payload, CampaignConfigured):
            return evs[0].payload
        return None

    def context_for(self, conf: CampaignConfigured | None) -> CampaignContext:
        """The campaign context: options recorded at seq 1 (``conf``; else campaign.toml's), homebrew data."""
        opts = conf.options if conf is not None else self.config.options
        return CampaignContext(
            campaign=self.id,
            options=validate_options(self.ruleset.options, opts, where=f"{self.folder / CONFIG_FILE} option",
                                     entering=conf is None),
            data=self.homebrew(),
            viewers=self.config.player_ids,
        )

    @property
    def context(self) -> CampaignContext:
        """Options from the log's first event (the truth), homebrew data from ``data/``."""
        return self.context_for(self.configured())

    def homebrew(self) -> dict[str, Any]:
        """Campaign-local data files (``data/*.toml``/``*.json``) by file stem."""
        d = self.folder / "data"
        if not d.is_dir():
            return {}
        out: dict[str, Any] = {}
        for p in sorted(d.iterdir()):
            if p.suffix in (".toml", ".json") and not p.name.startswith("."):
                out[p.stem] = file_document(p)
        return out

    # ---- viewers ------------------------------------------------------------------------

    def players(self) -> tuple[str, ...]:
        """Declared player/faction ids: campaign.toml's viewers, then those the ruleset reads in its options.

        From the config alone: nothing of the log is read or folded, so parsing a viewer or checking
        a visibility never waits on a replay. The options are campaign.toml's (the copy of those the
        log recorded at seq 1); only when they no longer validate are the log's read instead.
        """
        if self._players is None:
            rs = self.ruleset
            try:
                options = validate_options(rs.options, self.config.options, entering=True)
            except InputError:  # campaign.toml's options were edited into something invalid: the log's apply
                options = dict(self.context.options)
            out = list(self.config.player_ids)
            out += [p for p in rs.option_players(options) if p not in out]
            self._players = tuple(out)
        return self._players

    def player_name(self, pid: str, state: State | None = None) -> str:
        """A player's name as the table reads it: ``campaign.toml``'s ``name``, else the name the state gives
        them (``Ruleset.player_name``: a Signoria faction's, "Duke Fabian"; ``state``, else the GM's state now),
        else the id."""
        for v in self.config.viewers:
            if v.id == pid and v.name:
                return v.name
        rs = self.ruleset
        if type(rs).player_name is not Ruleset.player_name and pid in self.players():
            named = rs.player_name(self.state() if state is None else state, pid)
            if named:
                return named
        return pid

    def viewer_name(self, viewer: Viewer | str, state: State | None = None) -> str:
        """Who ``viewer`` is, in words, as a sentence says it: "the GM", "everyone", a player's name
        (``player_name``)."""
        vid = viewer.id if isinstance(viewer, Viewer) else viewer
        return "the GM" if vid == GM_VIEWER.id else "everyone" if vid == PUBLIC_VIEWER.id else \
            self.player_name(vid, state)

    def character(self, pid: str) -> str:
        """The character player ``pid`` plays, as the state names it (``campaign.toml``'s ``character``, else
        its ``name``, else the id): where the ruleset seats that player (``Ruleset.seats``)."""
        for v in self.config.viewers:
            if v.id == pid:
                return v.character or v.name or v.id
        return pid

    def known_viewers(self) -> list[str]:
        """The player/faction ids a view may be opened for (``players`` as a list)."""
        return list(self.players())

    def viewer(self, name: str | None) -> Viewer:
        """The viewer ``name`` names (``gm``, ``public``, a player id or ``faction:<id>``; None: the GM).

        The one parser of a viewer's name for a campaign, called where a name comes in (the
        command line, a server, a notebook's arguments); everything behind it takes the parsed
        ``Viewer``. Needs the config only (``players``). Raises ``InputError`` for a name the
        campaign does not know, listing its viewers.
        """
        return parse_viewer(name, self.players())

    # ---- state ---------------------------------------------------------------------------

    def state(self, until_turn: int | None = None, *, viewer: Viewer = GM_VIEWER,
              use_cache: bool = True) -> State:
        """The folded state (through the snapshot cache), redacted for ``viewer``.

        Without a usable snapshot (or with ``use_cache=False``) the log is folded as it is read,
        one table at a time (``stream_state``), unless its events are already in memory. With them
        in memory, the latest state this campaign folded before is folded on by the events appended
        since (``_onward``: after a commit, only its batch).
        """
        rs = self.ruleset
        state: State | None = None
        if use_cache and until_turn is None and self._events is None:
            state = self.cache.warm(rs, self.context_for, self.log)
        if state is None:
            if self._events is None and (until_turn is None or not use_cache):
                state = self._stream(until_turn, save=use_cache).state
            else:
                events = self.events()
                ctx = self.context
                onward = self._onward(events) if use_cache and until_turn is None else None
                if onward is not None:
                    state = onward
                elif use_cache:
                    state = self.cache.replay(rs, ctx, events, until_turn)
                else:
                    state = fold(rs, rs.initial_state(ctx), events, until=until_turn)
                if until_turn is None and events:
                    self._kept = (events[-1].seq, events[-1].hash, state)
        out: State = state if viewer.is_gm else rs.redact(state, viewer)
        return out

    def _onward(self, events: Sequence[RecordedEvent]) -> State | None:
        """The GM's state at the end of ``events``, folded on from the state kept at an earlier event of the same log
        (a commit's own batch folded onto the state before it), or None: nothing kept, kept at another log's event,
        or a batch retracted since (the fold must then start before the batch it retracts).

        A fold is a left fold of pure steps: the kept state and the events after it give the state the whole
        log gives.
        """
        kept = self._kept
        if kept is None or not events:
            return None
        seq, hash_, state = kept
        if seq == events[-1].seq and hash_ == events[-1].hash:
            return state
        if not 0 < seq < events[-1].seq or events[seq - 1].seq != seq or events[seq - 1].hash != hash_:
            return None
        after = events[seq:]
        if any(isinstance(ev.payload, TurnRetracted) for ev in after):
            return None
        rs = self.ruleset
        gone = retracted_commits(events)
        state = fold(rs, Start(state, seq), after, retracted=gone)
        # the snapshot at the head, as ``SnapshotCache.replay`` leaves it (another process starts from it)
        self.cache.save_head(rs, self.context, events[-1], gone, state, last_live_turn(events))
        return state

    def latest(self) -> Latest:
        """The GM's latest state with the log's head and its highest live turn, from the warm path when it can.

        What ``kingdomlog state`` shows: with a snapshot at the head, nothing of the log is decoded.
        """
        if self._events is None:
            got = self.cache.latest(self.ruleset, self.context_for, self.log)
            if got is not None:
                return got
            return self._stream(None, save=True)
        events = self.events()
        state = self.state()
        return Latest(state, events[-1].seq if events else 0, events[-1].hash if events else GENESIS_HASH,
                      last_live_turn(events))

    def stream_state(self, until_turn: int | None = None) -> State:
        """A cold replay in the memory of one table (for very long logs): same result as
        ``state(until_turn, use_cache=False)``, every check included."""
        return self._stream(until_turn, save=False).state

    def _stream(self, until_turn: int | None, *, save: bool) -> Latest:
        """Fold the log table by table as it is read and checked (``EventLog.iter_tables``).

        The fold needs the retracted commits of the whole log before its first event: they are
        taken from the verified record (``retracted_hint``), and if the read finds others the log
        is folded again with those (a log whose record is missing or out of date). ``save`` keeps
        the result as the snapshot at the head (only for the latest state).
        """
        from kingdomlog.store.codec import collector_paused

        with collector_paused():  # each table's events are dropped as soon as they are folded
            return self._stream_tables(until_turn, save=save)

    def _stream_tables(self, until_turn: int | None, *, save: bool) -> Latest:
        from kingdomlog.store.codec import decode_columns

        rs = self.ruleset
        hint = self.log.retracted_hint()
        for _attempt in range(2):
            ctx: CampaignContext | None = None
            state: State | None = None
            last: RecordedEvent | None = None
            top: int | None = None
            commits: set[str] = set()
            for batch in self.log.iter_tables():
                events, cols = decode_columns(batch)
                if not events:
                    continue
                mine = set(cols["commit_id"])
                commits |= mine
                if state is None:
                    first = events[0].payload
                    ctx = self.context_for(first if isinstance(first, CampaignConfigured) else None)
                    state = rs.initial_state(ctx)
                state = fold(rs, state, events, until=until_turn, retracted=hint)
                here = _top_live_turn(events, cols, mine, hint, until_turn)
                if here is not None and (top is None or here > top):
                    top = here
                last = events[-1]
            walked = self.log.walked
            if walked is None or walked.retracted == hint:
                break
            hint = walked.retracted
        if state is None or ctx is None:
            ctx = self.context_for(None)
            state = rs.initial_state(ctx)
        if save and until_turn is None and last is not None:
            self.cache.save_head(rs, ctx, last, hint & frozenset(commits), state, top)
        return Latest(state, last.seq if last else 0, last.hash if last else GENESIS_HASH, top)

    def next_turn(self) -> int:
        return next_turn(self.events())

    def visible_events(self, viewer: Viewer) -> list[RecordedEvent]:
        """The events ``viewer`` may see, numbered as that viewer's log (``core.events.renumber``).

        For the GM these are the log's events as they are; for anyone else seq, prev_hash and
        hash are those of the viewer's own numbering, so nothing shows where hidden events sit.
        """
        events = self.events()
        return events if viewer.is_gm else renumber(filter_visible(events, viewer))

    def head_for(self, viewer: Viewer = GM_VIEWER) -> Witness:
        """The head ``viewer`` is shown (see ``Witness``): seq 0 and the genesis hash for an empty view."""
        if viewer.is_gm:
            head = self.log.head()
            return Witness(viewer.id, head.seq, head.hash)
        mine = self.visible_events(viewer)
        return Witness(viewer.id, mine[-1].seq, mine[-1].hash) if mine else Witness(viewer.id, 0, GENESIS_HASH)

    def check_witness(self, expected: str, *, events: Sequence[RecordedEvent] | None = None) -> WitnessCheck:
        """Where the head ``expected`` (``HASH``, a prefix of 12+ hex digits, or ``SEQ:HASH``) is in the log.

        It is looked for in the GM's numbering and in each viewer's (public and every player),
        so a head printed on any page a person was given can be checked. Found as a head, or
        with events appended after it, is fine; not found means events that were in the log
        when it was printed were removed or altered. ``events``: the log as already read (``verify``).
        """
        m = WITNESS_RE.match(expected)
        if m is None:
            raise InputError(f"--expect-head {expected!r}: give the head hash (at least {MIN_WITNESS} hex digits, as"
                             " printed on a view), optionally after its seq (`42:3f9c1a2b4d5e6f70`)")
        want_seq = int(m.group(1)) if m.group(1) else None
        prefix = m.group(2).lower()
        if events is None:
            events = self.events()
        viewers = [GM_VIEWER, PUBLIC_VIEWER, *(Viewer("player", p) for p in self.players())]
        head = Witness(GM_VIEWER.id, events[-1].seq, events[-1].hash) if events else Witness(GM_VIEWER.id, 0,
                                                                                             GENESIS_HASH)
        for v in viewers:
            mine = events if v.is_gm else renumber(filter_visible(events, v))
            for ev in mine:
                if ev.hash.startswith(prefix) and (want_seq is None or ev.seq == want_seq):
                    found = Witness(v.id, ev.seq, ev.hash)
                    whose = "the log" if v.is_gm else f"{v.id}'s log"
                    after = len(mine) - ev.seq
                    where = (f"is the head of {whose} (seq {ev.seq})" if not after else
                             f"is seq {ev.seq} of {whose}; {after} event(s) {'' if v.is_gm else 'it may see '}were"
                             " appended after it")
                    return WitnessCheck(expected, found, head, f"head {prefix[:SHORT_HASH]} {where}")
        return WitnessCheck(expected, None, head, (
            f"head {prefix[:SHORT_HASH]}{f' at seq {want_seq}' if want_seq is not None else ''} is not in this log,"
            " neither as the GM's head nor as any viewer's: events that were in the log when it was printed were"
            f" removed or altered (the log now ends at seq {head.seq}, head {head.short})"))

    # ---- writing -------------------------------------------------------------------------

    def append(self, drafts: Sequence[Draft], *, expect_seq: int, commit_id: str | None = None) -> AppendResult:
        """Append ``drafts`` to the log as one batch: the one write path of a campaign (and of the app layer).

        ``drafts`` are events not yet in the log, each with its ``turn``, ``actor`` and
        ``visibility`` (every player a visibility names must be one of ``players()``); the store
        gives them their seqs, times, ids and hashes. ``expect_seq`` is the log's last seq when the
        caller decided what to write: if the log has moved on since, nothing is written and
        ``ConflictError`` (expected, actual) is raised, unless the batch right after
        ``expect_seq`` is this ``commit_id`` already, a retry of a commit that landed: nothing is
        written again and that batch is returned with ``idempotent`` set. ``commit_id`` names the
        batch (default: a new uuid, which no retry can recognise); pass the same one on every retry
        of one commit.

        Returns the ``AppendResult`` (first and last seq, file, commit id, idempotent). Raises
        ``StoreError`` when campaign.toml's id is not the log's (``id_problem``), ``InputError`` for
        a draft without a turn or with a visibility naming someone undeclared, and
        ``ConflictError``; nothing is written then.
        """
        if self.id_problem:
            raise StoreError(f"{self.id_problem}; nothing was written")
        declared = self.players()
        for d in drafts:
            if d.turn is None:
                raise InputError(f"event {d.type!r} has no turn")
            try:
                parse_visibility(d.visibility, declared)
            except InputError as exc:
                raise InputError(f"event {d.type!r}: {exc}") from None
        # The events read so far stay: the next read decodes only what was appended (``_grown``).
        return self.log.append(drafts, expect_seq=expect_seq, commit_id=commit_id)

    def turn_start(self) -> TurnStart:
        """The next turn's start (read from the log now)."""
        events = self.events()
        state = self.state()
        return TurnStart(next_turn(events), events[-1].seq if events else 0, state, self.players())

    def preview(self, plan: Plan, *, seed: str | None = None, start: TurnStart | None = None,
                release: Release = None) -> TurnPreview:
        """A draft of the next turn from ``plan`` (nothing written): the one route to a preview.

        The players' latest submissions fill the steps ``plan`` leaves out (``with_submissions``).
        ``start`` (from ``turn_start``) saves reading the log again; a commit of the preview
        is refused if the log moved past it meanwhile. ``release``: the rolls of an ``on_roll``
        plan to roll now (Roll pressed; ``core.turn.preview_turn``).
        """
        from kingdomlog.core.turn import preview_turn
        from kingdomlog.dice.roller import new_seed

        begin = self.turn_start() if start is None else start
        plan = self.with_submissions(plan, state=begin.state)
        return preview_turn(self.ruleset, begin.state, plan, campaign=self.id, turn=begin.turn,
                            start_seq=begin.start_seq, seed=seed or plan.seed or new_seed(),
                            players=self.players(), release=release)

    def commit(self, preview: TurnPreview, *, plan: Plan | None = None, from_draft: bool = False,
               commit_id: str | None = None) -> AppendResult:
        """Append a preview's events with ``expect_seq`` = the seq it started from; with ``plan``, record the draft.

        ``plan`` is the plan the preview played (choices, seed, re-rolls, typed faces): the turn
        sheet's draft or ``kingdomlog turn``'s plan. It names the commit (``drafts.commit_id``,
        unless ``commit_id`` is given), so a second click, tab or retry of the same draft commits
        nothing and says so (the result's ``idempotent``); and it is kept as the commit's plan
        (``Drafts.record_commit``, what an Undo reopens) before anything is appended, so no
        committed turn is without it. ``from_draft``: ``plan`` is the turn's saved draft, removed
        once the turn is in the log. Without ``plan`` only the events are appended.

        Refused (``RuleError`` for a refused or empty preview, ``ConflictError`` when the log moved
        on, ``InputError``/``StoreError`` as ``append`` says) with nothing appended, no plan kept
        and the saved draft as it was.
        """
        from kingdomlog.app import table
        from kingdomlog.app.drafts import Drafts
        from kingdomlog.app.drafts import commit_id as draft_commit_id
        from kingdomlog.core.turn import require_ok

        require_ok(preview)
        if not preview.step_drafts:
            raise RuleError("the turn produced no events; nothing to commit")
        events = [d.at_turn(preview.turn) for d in preview.drafts]
        if plan is None:
            return self.append(events, expect_seq=preview.start_seq, commit_id=commit_id)
        played = plan.model_copy(update={"turn": preview.turn, "seed": preview.seed})
        cid = commit_id or draft_commit_id(self.id, preview.start_seq, played)
        drafts = Drafts(self.folder)
        kept_before = drafts.committed_path(cid).exists()
        try:
            kept = drafts.record_commit(cid, preview.turn, played)
        except StoreError as exc:
            raise StoreError(f"{exc}; nothing appended") from None
        try:
            res = self.append(events, expect_seq=preview.start_seq, commit_id=cid)
        except BaseException:
            if not kept_before:
                with contextlib.suppress(OSError):  # a plan kept for a commit that never was: never read
                    kept.unlink(missing_ok=True)
            raise
        if from_draft:
            drafts.discard(preview.turn)
        if not res.idempotent:
            table.committed_if_played(self, preview.turn)
        return res

    def play(self, plan: Plan, *, seed: str | None = None, commit_id: str | None = None) -> AppendResult:
        """Preview ``plan`` and commit it (refused whole if any step breaks a rule)."""
        return self.commit(self.preview(plan, seed=seed), commit_id=commit_id)

    def retract(self, turn: int, *, reason: str = "", expect_seq: int | None = None) -> AppendResult:
        """Undo the last live turn by appending ``core.turn_retracted``; nothing is deleted."""
        events = self.events()
        last = last_live_turn(events)
        if last is None:
            raise RuleError("there is no turn to retract")
        if turn != last:
            raise RuleError(f"only the last live turn can be retracted: that is turn {last}, not {turn}"
                            f"{'' if turn < last else ' (no such turn yet)'}")
        draft = Draft(TurnRetracted(turn=turn, commit_ids=tuple(live_commits_of_turn(events, turn)), reason=reason),
                      actor="gm", turn=turn)
        head = events[-1].seq if events else 0
        return self.append([draft], expect_seq=head if expect_seq is None else expect_seq)

    def note(self, text: str, *, turn: int | None = None, visibility: str = "public", title: str = "") -> AppendResult:
        """Append a journal entry (``core.note_added``) visible as ``visibility`` says.

        ``turn`` (default: the last live turn) may be any turn played so far or the next one, not later.
        A note decides nothing from the state, so when another writer appends first (``ConflictError``)
        it is placed again after the new head (read from the head record, not the whole log), up to
        ``NOTE_ATTEMPTS`` times, under one commit id: a retry never writes it twice.
        """
        vis = parse_visibility(visibility, self.players()).text
        try:
            payload = NoteAdded(text=text, title=title)
        except ValidationError as exc:
            raise InputError(f"note: {exc.errors()[0]['msg']}") from None
        events = self.events()
        if turn is None:
            last = last_live_turn(events)
            turn = 0 if last is None else last
        if turn < 0:
            raise InputError("note: turn must be 0 or more")
        nxt = next_turn(events)
        if turn > nxt:
            raise InputError(f"note: turn {turn} has not begun: the log's next turn is {nxt} (a note belongs to a turn"
                             f" played so far or the next one, 0..{nxt})")
        cid = str(uuid.uuid4())
        spread = 0.5 + int(cid[:4], 16) / 0x10000  # writers that collided wait different times before the next try
        expect = events[-1].seq if events else 0
        for attempt in range(1, NOTE_ATTEMPTS + 1):
            try:
                return self.append([Draft(payload, actor="gm", visibility=vis, turn=turn)], expect_seq=expect,
                                   commit_id=cid)
            except ConflictError:
                if attempt == NOTE_ATTEMPTS:
                    raise
            time.sleep(note_pause(attempt, spread))
            expect = self.log.head().seq  # later turns only raise the next turn: ``turn`` stays in bounds
        raise AssertionError("unreachable")

    def parse_jsonl(self, lines: Iterable[str], *, source: str = "input") -> list[Draft]:
        """Parse raw event lines (``{"turn", "type", "payload", ...}``); errors name the line."""
        from kingdomlog.app.exchange import json_objects

        rs = self.ruleset
        allowed = {t.type for t in rs.event_types} | {NoteAdded.type, TurnRetracted.type}
        declared = self.players()
        out: list[Draft] = []
        for where, obj in json_objects(lines, source=source):
            extra = set(obj) - RAW_FIELDS
            if extra:
                raise InputError(f"{where}: unknown field(s) {sorted(extra)}")
            typ = obj.get("type")
            if not isinstance(typ, str):
                raise InputError(f"{where}: missing \"type\"")
            try:
                cls = event_class(typ)
            except InputError:
                raise InputError(f"{where}: unknown event type {typ!r}") from None
            if typ not in allowed:
                raise InputError(f"{where}: event type {typ!r} does not belong to ruleset {rs.id!r}")
            turn = obj.get("turn")
            if not isinstance(turn, int) or isinstance(turn, bool) or turn < 0:
                raise InputError(f"{where}: \"turn\" must be an integer >= 0")
            version = obj.get("version", cls.version)
            if not isinstance(version, int) or isinstance(version, bool):
                raise InputError(f"{where}: \"version\" must be an integer")
            payload = obj.get("payload", {})
            if not isinstance(payload, dict):
                raise InputError(f"{where}: \"payload\" must be a JSON object")
            try:
                model = decode_payload(typ, version, payload)
            except InputError as exc:
                raise InputError(f"{where}: {exc}") from None
            vis = obj.get("visibility", "public")
            actor = obj.get("actor", "gm")
            phase = obj.get("phase")
            if not isinstance(vis, str) or not isinstance(actor, str) or not (phase is None or isinstance(phase, str)):
                raise InputError(f"{where}: visibility, actor and phase must be strings")
            try:
                parse_visibility(vis, declared)
            except InputError as exc:
                raise InputError(f"{where}: {exc}") from None
            if actor not in ("gm", "system", *declared):
                raise InputError(f"{where}: actor {actor!r} is not gm, system or a player or faction of this campaign"
                                 f" (declared: {', '.join(declared) or 'none'})")
            out.append(Draft(model, phase=phase, actor=actor, visibility=vis, turn=turn))
        if not out:
            raise InputError(f"{source}: no events")
        return out

    def append_raw(self, drafts: Sequence[Draft], *, expect_seq: int | None = None) -> AppendResult:
        """Append validated raw events, all or nothing, after checking they fold without error.

        An event's turn is one played so far or the next one (as ``note``'s): a turn further ahead has not begun, and
        ``next_turn`` would then skip the turns between. Within the batch a ruleset event of the next turn begins it,
        so the events after it may belong to the turn after that (a whole turn or two in one file)."""
        events = self.events()
        head = events[-1].seq if events else 0
        if expect_seq is not None and expect_seq != head:
            raise ConflictError(expect_seq, head)
        nxt = next_turn(events)
        for i, d in enumerate(drafts, start=1):
            turn = d.turn if d.turn is not None else -1
            if turn > nxt:
                raise InputError(f"event {i} ({d.type}): turn {turn} has not begun: the log's next turn is {nxt} (an "
                                 f"event belongs to a turn played so far or the next one, 0..{nxt})")
            if not d.type.startswith(CORE_PREFIX):
                nxt = max(nxt, turn + 1)
        rs = self.ruleset
        state = self.state()
        retracted = retracted_commits(events)
        for i, d in enumerate(drafts, start=1):
            try:
                state = fold(rs, state, [provisional(self.id, head + i, d)], retracted=retracted)
            except InternalError:
                raise  # a bug in the ruleset's evolve, not the user's event
            except KingdomlogError as exc:
                raise InputError(f"event {i} ({d.type}) cannot be applied: {exc}") from None
        return self.append(drafts, expect_seq=head)

    # ---- player submissions (kingdomlog.app.submissions) ---------------------------------

    def player_steps(self, viewer: Viewer, *, state: State | None = None,
                     turn: int | None = None) -> list[str]:
        """The steps of ``turn`` (default: the next) that ``viewer`` may submit."""
        from kingdomlog.app import submissions as subs

        return subs.player_steps(self, viewer, state=state, turn=turn)

    def submissions(self, turn: int | None = None) -> dict[str, RecordedEvent]:
        """The latest submission of each player for ``turn`` (default: the next), by player id."""
        from kingdomlog.app import submissions as subs

        return subs.submissions(self, turn)

    def with_submissions(self, plan: Plan, *, state: State | None = None) -> Plan:
        """``plan`` with the players' latest submissions in the steps it leaves out."""
        from kingdomlog.app import submissions as subs

        return subs.with_submissions(self, plan, state=state)

    def check_submission(self, viewer: Viewer, steps: Mapping[str, Any], *, turn: int | None = None,
                         now: datetime | None = None) -> SubmissionCheck:
        """What ``submit`` would store (checked and rolled), without writing."""
        from kingdomlog.app import submissions as subs

        return subs.check_submission(self, viewer, steps, turn=turn, now=now)

    def submit(self, viewer: Viewer, steps: Mapping[str, Any], *, note: str = "", turn: int | None = None,
               now: datetime | None = None) -> AppendResult:
        """Append a player's submission for ``turn`` (the turn the caller read; refused once the campaign
        has moved on) at ``now`` (refused from the orders deadline on); see ``submissions.submit``."""
        from kingdomlog.app import submissions as subs

        return subs.submit(self, viewer, steps, note=note, turn=turn, now=now)

    # ---- export and import (kingdomlog.app.exchange) -------------------------------------

    def export_lines(self, viewer: Viewer = GM_VIEWER) -> list[str]:
        """JSONL of the events ``viewer`` may see, after a header with the config."""
        from kingdomlog.app import exchange

        return exchange.export_lines(self, viewer)

    @classmethod
    def import_lines(cls, lines: Sequence[str], folder: str | Path, *, source: str = "import") -> Campaign:
        """Create a campaign from an export; batches keep their commit ids, event ids and times.

        A complete (GM) export reproduces the original hash chain exactly (payloads at their
        current version). Built in a hidden folder and moved into place only once it verifies
        (``exchange.import_campaign``): a refused import leaves ``folder`` as it was.
        """
        from kingdomlog.app import exchange

        return exchange.import_campaign(cls, lines, folder, source=source)[0]

    @classmethod
    def import_checked(cls, lines: Sequence[str], folder: str | Path, *,
                       source: str = "import") -> tuple[Campaign, list[str]]:
        """``import_lines`` and its warnings (exported hashes the imported chain does not reproduce)."""
        from kingdomlog.app import exchange

        return exchange.import_campaign(cls, lines, folder, source=source)

    # ---- checking ------------------------------------------------------------------------

    def verify(self, expect_head: str | None = None) -> VerifyReport:
        """Check the whole log (every hash recomputed) and that it folds; never raises for log faults.

        Also checks the head this folder's cache recorded (a log that ends before it lost its
        newest batches) and, with ``expect_head``, that a head printed earlier is still in the
        log (``check_witness``; an ``InputError`` for a malformed one).
        """
        problems: list[str] = []
        warnings: list[str] = []
        files = 0
        n = 0
        if expect_head is not None and WITNESS_RE.match(expect_head) is None:
            self.check_witness(expect_head)  # raises the InputError explaining the form
        if self.id_problem:
            problems.append(self.id_problem)
        scanned = self.log.scan()
        if scanned:
            files = len(list(self.log.dir.glob("[0-9]*.parquet"))) if self.log.dir.is_dir() else 0
            return VerifyReport(self.id, files, 0, problems + scanned, [str(p) for p in self.log.temp_files()],
                                warnings)
        head: Witness | None = None
        witness: WitnessCheck | None = None
        try:
            files = len(self.log.files())
            events = self._read(full_verify=True, check_head=False)
            n = len(events)
            head = Witness(GM_VIEWER.id, events[-1].seq, events[-1].hash) if events else None

            def hash_at(s: int) -> str | None:
                return events[s - 1].hash if 0 < s <= len(events) else None

            walked = self.log.walked
            problems.extend(walked.head_problems if walked is not None else ())
            if events and not self.log.keeps_witness() and not problems:
                warnings.append(f"{self.log.dir}/.heads is missing (a log written before kingdomlog kept it, or"
                                " deleted): a deleted newest batch can now be told only from this machine's"
                                " .cache/head.rec or a head kept outside the folder (--expect-head); the next"
                                " append starts it again")
            swept = self.cache.sweep(hash_at)
            if swept:
                warnings.append(f"deleted {swept} snapshot(s) in {self.cache.dir} that did not match the log, this"
                                " code or this machine's key (edited, or written elsewhere); the next read rebuilds"
                                " them")
            if expect_head is not None:
                witness = self.check_witness(expect_head, events=events)
                if not witness.ok:
                    problems.append(witness.message)
            first = events[0].payload if events else None
            conf = first if isinstance(first, CampaignConfigured) else None
            if conf is None:
                problems.append("seq 1: the log does not start with core.campaign_configured")
            elif conf.ruleset != self.config.ruleset:
                problems.append(f"seq 1: the log's ruleset {conf.ruleset!r} differs from campaign.toml's "
                                f"{self.config.ruleset!r}")
            else:
                warnings.extend(self._config_drift(conf.options))
            rs = self.ruleset
            fold(rs, rs.initial_state(self.context_for(conf)), events)
        except KingdomlogError as exc:
            problems.append(str(exc))
        return VerifyReport(self.id, files, n, problems, [str(p) for p in self.log.temp_files()], warnings, head,
                            witness)

    def accept_head(self) -> tuple[Witness, list[str]]:
        """Take the log's present head as its head (``kingdomlog verify --accept-head``): the GM's explicit word.

        For a log the records of its head say once reached further (a batch deleted, an older copy
        restored on purpose) or whose records cannot be read: after checking the whole log (every
        hash recomputed; a log damaged otherwise is refused, nothing recorded), its head is recorded
        anew in ``log/.heads`` (an ``accept`` line) and this machine's cache, so reads and appends go
        on from it and the next append reuses the seqs it lost. Returns the head and what the records
        said before (empty when they held). A head printed earlier (``verify --expect-head``) still
        tells what was lost.
        """
        if self.id_problem:
            raise StoreError(f"{self.id_problem}; nothing recorded")
        scanned = self.log.scan()
        if scanned:
            raise StoreError(f"the log is damaged, not only shorter: {scanned[0]}; nothing recorded (restore the"
                             " damaged files first)")
        walked = self.log.accept_head()
        self._changed()
        return Witness(GM_VIEWER.id, walked.seq, walked.hash), list(walked.head_problems)

    def _config_drift(self, logged: Mapping[str, Any]) -> list[str]:
        """How campaign.toml's options differ from the ones the log recorded at seq 1 (which are the ones used)."""
        where = f"{self.folder / CONFIG_FILE}"
        try:
            toml_opts = validate_options(self.ruleset.options, self.config.options, where=f"{where} option",
                                         entering=True)
        except InputError as exc:
            return [f"{exc} (ignored: the options recorded in the log at seq 1 apply)"]
        log_opts = validate_options(self.ruleset.options, logged)
        return [f"{where}: option {k!r} is {toml_opts[k]!r} but the log recorded {log_opts[k]!r} at seq 1;"
                " the log's value applies (options are fixed when the campaign is created)"
                for k in sorted(log_opts) if toml_opts.get(k) != log_opts[k]]


def _undo_create(path: Path, existed: bool, commit_id: str) -> None:
    """Remove what a ``Campaign.create`` that failed made in ``path``: its ``campaign.toml``, ``log/`` and ``.cache/``,
    and the folder itself if it made it. Nothing is removed when ``log/`` holds a batch other than this creation's
    own (``commit_id``; one linked before a later step failed): that is someone else's campaign."""
    log = path / "log"
    try:
        batches = [n for n in os.listdir(log) if not n.startswith(".") and n.endswith(".parquet")] \
            if log.is_dir() else []
        if batches and (batches != [batch_name(1)] or footer_value(read_batch(log / batches[0]),
                                                                    b"kingdomlog.commit_id") != commit_id.encode()):
            return
        for name in ("log", ".cache"):
            shutil.rmtree(path / name, ignore_errors=True)
        (path / CONFIG_FILE).unlink(missing_ok=True)
        if not existed:
            path.rmdir()  # only if empty: anything someone else put there stays
    except (OSError, KingdomlogError):  # what cannot be told to be this creation's own stays
        pass


__all__ = ["Campaign", "TurnStart", "VerifyReport", "Witness", "WitnessCheck"]
