"""A campaign as the CLI, the notebooks and the servers use it: open, read, preview, commit, retract, note.

``Campaign`` sits on the store (``store.log`` for the batches, ``store.cache`` for
snapshots, ``store.config`` for ``campaign.toml``) and the pure core (``core.fold`` for
every state, ``core.turn`` for previews). There is one route to each thing a person
does: one to a state (``state``), one to a preview (``preview``, with the players'
submissions merged in), one to a commit (``commit``, with ``expect_seq``), and every
draft is placed in its turn and checked (visibility against the campaign's declared
players) before the store builds its envelope.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from kingdomlog.app import exchange
from kingdomlog.app import submissions as subs
from kingdomlog.app.submissions import SubmissionCheck
from kingdomlog.core.core_events import CampaignConfigured, NoteAdded, TurnRetracted
from kingdomlog.core.data import file_document
from kingdomlog.core.errors import ConflictError, InputError, KingdomlogError, RuleError, StoreError
from kingdomlog.core.events import Draft, RecordedEvent, decode_payload, event_class, provisional
from kingdomlog.core.fold import (
    filter_visible,
    fold,
    last_live_turn,
    live_commits_of_turn,
    next_turn,
    retracted_commits,
)
from kingdomlog.core.ruleset import CampaignContext, Ruleset, State, find_ruleset, validate_options
from kingdomlog.core.turn import Plan, TurnPreview, preview_turn, require_ok
from kingdomlog.core.viewers import GM_VIEWER, Viewer, parse_viewer, parse_visibility
from kingdomlog.dice.roller import new_seed
from kingdomlog.store.cache import SnapshotCache
from kingdomlog.store.config import CONFIG_FILE, CampaignConfig, ViewerEntry, load_config, slug_ok, write_config
from kingdomlog.store.log import AppendResult, EventLog

RAW_FIELDS = frozenset({"turn", "phase", "type", "version", "actor", "visibility", "payload"})


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

    def __init__(self, folder: Path, config: CampaignConfig) -> None:
        self.folder = folder
        self.config = config
        self.log = EventLog(folder / "log", config.id, cache_dir=folder / ".cache")
        self.cache = SnapshotCache(folder / ".cache" / "snapshots")
        self._events: list[RecordedEvent] | None = None
        self._events_key: tuple[str, ...] | None = None

    # ---- creating and opening ------------------------------------------------------------

    @classmethod
    def open(cls, folder: str | Path) -> Campaign:
        """Open an existing campaign folder; ``CampaignNotFoundError`` if it is not one."""
        path = Path(folder)
        return cls(path, load_config(path))

    @classmethod
    def create(
        cls,
        folder: str | Path,
        ruleset: str,
        *,
        name: str | None = None,
        options: Mapping[str, Any] | None = None,
        viewers: Iterable[str] = (),
        campaign_id: str | None = None,
        recorded_at: datetime | None = None,
    ) -> Campaign:
        """Create a campaign folder, write ``campaign.toml`` and log its configuration (seq 1).

        Refuses a folder that already holds a campaign or any other files, an id that is
        not a slug, and a player named like a reserved viewer (``gm``, ``public``, ``system``).
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
        opts = validate_options(rs.options, dict(options or {}))
        seen: list[str] = []
        for v in viewers:
            if v not in seen:
                seen.append(v)
        try:
            cfg = CampaignConfig(id=cid, name=name or cid, ruleset=rs.id, options=opts,
                                 viewers=[ViewerEntry(id=v) for v in seen])
        except ValidationError as exc:
            err = exc.errors()[0]
            raise InputError(f"player {err.get('input')!r}: {err['msg']}") from None
        (path / "log").mkdir(parents=True, exist_ok=True)
        write_config(path, cfg)
        camp = cls(path, cfg)
        camp.log.append([Draft(CampaignConfigured(ruleset=rs.id, options=opts, name=cfg.name), actor="gm", turn=0)],
                        expect_seq=0, recorded_at=recorded_at)
        return camp

    # ---- reading -------------------------------------------------------------------------

    @property
    def id(self) -> str:
        return self.config.id

    @property
    def ruleset(self) -> Ruleset:
        return find_ruleset(self.config.ruleset)

    def events(self, *, full_verify: bool = False) -> list[RecordedEvent]:
        """Every event of the log, checked and decoded (re-read when the log changed)."""
        files = tuple(f.name for f in self.log.files())
        if self._events is None or self._events_key != files or full_verify:
            self._events = self.log.read(full_verify=full_verify)
            self._events_key = files
        return self._events

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
            options=validate_options(self.ruleset.options, opts, where=f"{self.folder / CONFIG_FILE} option"),
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

    def players(self, state: State | None = None) -> tuple[str, ...]:
        """Declared player/faction ids: campaign.toml's, then those the ruleset finds in the state."""
        out = list(self.config.player_ids)
        extra = self.ruleset.viewers(self.state() if state is None else state)
        out += [v for v in extra if v not in out]
        return tuple(out)

    def known_viewers(self) -> list[str]:
        """The player/faction ids a view may be opened for (``players`` as a list)."""
        return list(self.players())

    def viewer(self, text: str | Viewer | None) -> Viewer:
        """Parse ``text`` (``gm``, ``public``, a player id, ``faction:<id>``; None = gm); unknown ones refused."""
        if text is None or text in ("gm", "public") or (isinstance(text, Viewer) and not text.is_player):
            return parse_viewer(text, ())
        return parse_viewer(text, self.players())

    # ---- state ---------------------------------------------------------------------------

    def state(self, until_turn: int | None = None, *, viewer: str | Viewer = GM_VIEWER,
              use_cache: bool = True) -> State:
        """The folded state (through the snapshot cache), redacted for ``viewer``."""
        v = viewer if isinstance(viewer, Viewer) else self.viewer(viewer)
        rs = self.ruleset
        state: State | None = None
        if use_cache and until_turn is None and self._events is None:
            state = self.cache.warm(rs, self.context_for, self.log)
        if state is None:
            events = self.events()
            ctx = self.context
            if use_cache:
                state = self.cache.replay(rs, ctx, events, until_turn)
            else:
                state = fold(rs, rs.initial_state(ctx), events, until=until_turn)
        out: State = state if v.is_gm else rs.redact(state, v)
        return out

    def stream_state(self, until_turn: int | None = None) -> State:
        """A cold replay in the memory of one batch (for very long logs): same result as
        ``state(until_turn, use_cache=False)``, every check included.

        Two passes over the files: the first collects retracted commits (decoding only
        ``core.turn_retracted`` rows), the second folds batch by batch.
        """
        from kingdomlog.store.log import decode_table

        gone: set[str] = set()
        conf: CampaignConfigured | None = None
        for table in self.log.iter_tables():
            if conf is None:
                first = decode_table(table.slice(0, 1))[0].payload
                conf = first if isinstance(first, CampaignConfigured) else None
            types = table.column("type").to_pylist()
            rows = [i for i, t in enumerate(types) if t == TurnRetracted.type]
            for i in rows:
                ev = decode_table(table.slice(i, 1))[0]
                if isinstance(ev.payload, TurnRetracted):
                    gone.update(ev.payload.commit_ids)
        rs = self.ruleset
        retracted = frozenset(gone)
        state: State = rs.initial_state(self.context_for(conf))
        for table in self.log.iter_tables():
            state = fold(rs, state, decode_table(table), until=until_turn, retracted=retracted)
        return state

    def next_turn(self) -> int:
        return next_turn(self.events())

    def visible_events(self, viewer: str | Viewer) -> list[RecordedEvent]:
        return filter_visible(self.events(), self.viewer(viewer) if isinstance(viewer, str) else viewer)

    # ---- writing -------------------------------------------------------------------------

    def _append(self, drafts: Sequence[Draft], *, expect_seq: int, commit_id: str | None = None,
                state: State | None = None) -> AppendResult:
        """The one write path of a campaign: check each draft's turn and visibility, then append."""
        declared = self.players(state)
        for d in drafts:
            if d.turn is None:
                raise InputError(f"event {d.type!r} has no turn")
            try:
                parse_visibility(d.visibility, declared)
            except InputError as exc:
                raise InputError(f"event {d.type!r}: {exc}") from None
        res = self.log.append(drafts, expect_seq=expect_seq, commit_id=commit_id)
        self._changed()
        return res

    def turn_start(self) -> TurnStart:
        """The next turn's start (read from the log now)."""
        events = self.events()
        state = self.state()
        return TurnStart(next_turn(events), events[-1].seq if events else 0, state, self.players(state))

    def preview(self, plan: Plan, *, seed: str | None = None, start: TurnStart | None = None) -> TurnPreview:
        """A draft of the next turn from ``plan`` (nothing written): the one route to a preview.

        The players' latest submissions fill the steps ``plan`` leaves out (``with_submissions``).
        ``start`` (from ``turn_start``) saves reading the log again; a commit of the preview
        is refused if the log moved past it meanwhile.
        """
        begin = self.turn_start() if start is None else start
        plan = self.with_submissions(plan, state=begin.state)
        return preview_turn(self.ruleset, begin.state, plan, campaign=self.id, turn=begin.turn,
                            start_seq=begin.start_seq, seed=seed or plan.seed or new_seed(),
                            players=self.config.player_ids)

    def commit(self, preview: TurnPreview, *, commit_id: str | None = None) -> AppendResult:
        """Append a preview's events with ``expect_seq`` = the seq it started from."""
        require_ok(preview)
        if not preview.drafts:
            raise RuleError("the turn produced no events; nothing to commit")
        return self._append([d.at_turn(preview.turn) for d in preview.drafts], expect_seq=preview.start_seq,
                            commit_id=commit_id, state=preview.state_after)

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
        return self._append([draft], expect_seq=head if expect_seq is None else expect_seq)

    def note(self, text: str, *, turn: int | None = None, visibility: str = "public", title: str = "") -> AppendResult:
        """Append a journal entry (``core.note_added``) visible as ``visibility`` says."""
        vis = parse_visibility(visibility, self.players()).text
        events = self.events()
        if turn is None:
            last = last_live_turn(events)
            turn = 0 if last is None else last
        if turn < 0:
            raise InputError("turn must be 0 or more")
        try:
            payload = NoteAdded(text=text, title=title)
        except ValidationError as exc:
            raise InputError(f"note: {exc.errors()[0]['msg']}") from None
        return self._append([Draft(payload, actor="gm", visibility=vis, turn=turn)],
                            expect_seq=events[-1].seq if events else 0)

    def parse_jsonl(self, lines: Iterable[str], *, source: str = "input") -> list[Draft]:
        """Parse raw event lines (``{"turn", "type", "payload", ...}``); errors name the line."""
        rs = self.ruleset
        allowed = {t.type for t in rs.event_types} | {NoteAdded.type, TurnRetracted.type}
        declared = self.players()
        out: list[Draft] = []
        for n, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            where = f"{source} line {n}"
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
            if not isinstance(obj, dict):
                raise InputError(f"{where}: expected a JSON object")
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
            out.append(Draft(model, phase=phase, actor=actor, visibility=vis, turn=turn))
        if not out:
            raise InputError(f"{source}: no events")
        return out

    def append_raw(self, drafts: Sequence[Draft], *, expect_seq: int | None = None) -> AppendResult:
        """Append validated raw events, all or nothing, after checking they fold without error."""
        events = self.events()
        head = events[-1].seq if events else 0
        if expect_seq is not None and expect_seq != head:
            raise ConflictError(expect_seq, head)
        rs = self.ruleset
        state = self.state()
        retracted = retracted_commits(events)
        for i, d in enumerate(drafts, start=1):
            try:
                state = fold(rs, state, [provisional(self.id, head + i, d)], retracted=retracted)
            except KingdomlogError as exc:
                raise InputError(f"event {i} ({d.type}) cannot be applied: {exc}") from None
            except (ValueError, KeyError, TypeError) as exc:
                raise InputError(f"event {i} ({d.type}) cannot be applied: {exc!r}") from None
        return self._append(drafts, expect_seq=head, state=state)

    # ---- player submissions (kingdomlog.app.submissions) ---------------------------------

    def player_steps(self, viewer: str | Viewer, *, state: State | None = None,
                     turn: int | None = None) -> list[str]:
        """The steps of ``turn`` (default: the next) that ``viewer`` may submit."""
        return subs.player_steps(self, viewer, state=state, turn=turn)

    def submissions(self, turn: int | None = None) -> dict[str, RecordedEvent]:
        """The latest submission of each player for ``turn`` (default: the next), by player id."""
        return subs.submissions(self, turn)

    def with_submissions(self, plan: Plan, *, state: State | None = None) -> Plan:
        """``plan`` with the players' latest submissions in the steps it leaves out."""
        return subs.with_submissions(self, plan, state=state)

    def check_submission(self, viewer: str | Viewer, steps: Mapping[str, Any]) -> SubmissionCheck:
        """What ``submit`` would store (checked and rolled), without writing."""
        return subs.check_submission(self, viewer, steps)

    def submit(self, viewer: str | Viewer, steps: Mapping[str, Any], *, note: str = "") -> AppendResult:
        """Append a player's submission for the next turn."""
        return subs.submit(self, viewer, steps, note=note)

    # ---- export and import (kingdomlog.app.exchange) -------------------------------------

    def export_lines(self, viewer: str | Viewer = GM_VIEWER) -> list[str]:
        """JSONL of the events ``viewer`` may see, after a header with the config."""
        return exchange.export_lines(self, viewer)

    @classmethod
    def import_lines(cls, lines: Sequence[str], folder: str | Path, *, source: str = "import") -> Campaign:
        """Create a campaign from an export; batches keep their commit ids, event ids and times.

        A complete (GM) export reproduces the original hash chain exactly.
        """
        cfg, rows = exchange.read_export(lines, source=source)
        camp = cls(exchange.prepare_folder(folder, cfg), cfg)
        exchange.append_batches(camp.log, rows)
        return camp

    # ---- checking ------------------------------------------------------------------------

    def verify(self) -> VerifyReport:
        """Check the whole log (every hash recomputed) and that it folds; never raises for log faults."""
        problems: list[str] = []
        warnings: list[str] = []
        files = 0
        n = 0
        scanned = self.log.scan()
        if scanned:
            files = len(list(self.log.dir.glob("[0-9]*.parquet"))) if self.log.dir.is_dir() else 0
            return VerifyReport(self.id, files, 0, scanned, [str(p) for p in self.log.temp_files()], warnings)
        try:
            files = len(self.log.files())
            events = self.events(full_verify=True)
            n = len(events)
            conf = self.configured()
            if conf is None:
                problems.append("seq 1: the log does not start with core.campaign_configured")
            elif conf.ruleset != self.config.ruleset:
                problems.append(f"seq 1: the log's ruleset {conf.ruleset!r} differs from campaign.toml's "
                                f"{self.config.ruleset!r}")
            else:
                warnings.extend(self._config_drift(conf.options))
            rs = self.ruleset
            fold(rs, rs.initial_state(self.context), events)
        except KingdomlogError as exc:
            problems.append(str(exc))
        return VerifyReport(self.id, files, n, problems, [str(p) for p in self.log.temp_files()], warnings)

    def _config_drift(self, logged: Mapping[str, Any]) -> list[str]:
        """How campaign.toml's options differ from the ones the log recorded at seq 1 (which are the ones used)."""
        where = f"{self.folder / CONFIG_FILE}"
        try:
            toml_opts = validate_options(self.ruleset.options, self.config.options, where=f"{where} option")
        except InputError as exc:
            return [f"{exc} (ignored: the options recorded in the log at seq 1 apply)"]
        log_opts = validate_options(self.ruleset.options, logged)
        return [f"{where}: option {k!r} is {toml_opts[k]!r} but the log recorded {log_opts[k]!r} at seq 1;"
                " the log's value applies (options are fixed when the campaign is created)"
                for k in sorted(log_opts) if toml_opts.get(k) != log_opts[k]]


__all__ = ["Campaign", "TurnStart", "VerifyReport"]
