"""A campaign folder: ``campaign.toml``, the event log, homebrew data and the derived cache.

``Campaign`` is what the CLI and the notebooks use: open a folder, read its
events, fold state (through the snapshot cache), preview and commit turns,
retract, add notes, append raw events, export and import.
"""

from __future__ import annotations

import json
import re
import tomllib
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import tomli_w
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kingdomlog.core.core_events import (
    CampaignConfigured,
    NoteAdded,
    PlanSubmitted,
    SubmittedStep,
    TurnRetracted,
)
from kingdomlog.core.data import file_document
from kingdomlog.core.errors import CampaignNotFoundError, InputError, KingdomlogError, RuleError, StoreError
from kingdomlog.core.events import (
    Draft,
    EventModel,
    RecordedEvent,
    decode_payload,
    event_class,
    parse_visibility,
    visible_to,
)
from kingdomlog.core.fold import filter_visible, last_live_turn, live_events, next_turn, retracted_commits
from kingdomlog.core.ruleset import CampaignContext, Ruleset, State, find_ruleset, validate_options
from kingdomlog.core.turn import Plan, StepPlan, TurnPreview, preview_turn, provisional, require_ok
from kingdomlog.dice.roller import new_seed
from kingdomlog.store.cache import SnapshotCache
from kingdomlog.store.log import AppendResult, EventLog, Pending

CONFIG_FILE = "campaign.toml"
CONFIG_FORMAT = 1
SLUG_RE = re.compile(r"^[a-z][a-z0-9_-]{0,63}$")


class Viewer(BaseModel):
    """Someone who may open a player view: a player or a faction."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[a-z][a-z0-9_-]{0,63}$")
    name: str = ""


class CampaignConfig(BaseModel):
    """The contents of ``campaign.toml``."""

    model_config = ConfigDict(extra="forbid")

    format: int = CONFIG_FORMAT
    id: str
    name: str = ""
    ruleset: str
    options: dict[str, Any] = Field(default_factory=dict)
    viewers: list[Viewer] = Field(default_factory=list)


def slug_ok(slug: str) -> bool:
    """Whether ``slug`` is a valid campaign id (lower case, starts with a letter)."""
    return bool(SLUG_RE.match(slug))


def load_config(folder: Path) -> CampaignConfig:
    """Read and validate ``campaign.toml``; errors name the file and the field."""
    path = folder / CONFIG_FILE
    if not folder.is_dir():
        raise CampaignNotFoundError(f"{folder}: no such campaign folder")
    if not path.is_file():
        raise CampaignNotFoundError(f"{folder}: not a kingdomlog campaign (no {CONFIG_FILE}); create one with"
                                    " `kingdomlog new`")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot parse: {exc}") from None
    try:
        cfg = CampaignConfig.model_validate(raw)
    except ValidationError as exc:
        errs = "; ".join(f"{'.'.join(str(x) for x in e['loc'])}: {e['msg']}" for e in exc.errors()[:5])
        raise InputError(f"{path}: {errs}") from None
    if cfg.format > CONFIG_FORMAT:
        raise InputError(f"{path}: format {cfg.format} is newer than this kingdomlog reads ({CONFIG_FORMAT})")
    if not slug_ok(cfg.id):
        raise InputError(f"{path}: id {cfg.id!r} must be lower case letters, digits, - or _, starting with a letter")
    return cfg


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
class SubmissionCheck:
    """A player's submission as ``Campaign.submit`` would store it (nothing written).

    ``steps`` hold the choices and the faces rolled (or kept from an earlier submission);
    ``fresh`` names the steps whose dice this check rolled anew (a real submission rolls
    them again from its own seed); ``events`` are the drafts of each step the viewer may see.
    """

    viewer: str
    turn: int
    expect_seq: int
    steps: dict[str, SubmittedStep]
    fresh: tuple[str, ...]
    events: dict[str, list[Draft]]


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

        Refuses a folder that already holds a campaign or any other files.
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
        seen = []
        for v in viewers:
            if v in seen:
                continue
            seen.append(v)
        cfg = CampaignConfig(id=cid, name=name or cid, ruleset=rs.id, options=opts,
                             viewers=[Viewer(id=v) for v in seen])
        (path / "log").mkdir(parents=True, exist_ok=True)
        (path / CONFIG_FILE).write_text(_dump_config(cfg), encoding="utf-8")
        camp = cls(path, cfg)
        camp.log.append(
            [Pending(0, Draft(CampaignConfigured(ruleset=rs.id, options=opts, name=cfg.name), actor="gm"))],
            expect_seq=0, recorded_at=recorded_at,
        )
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

    @property
    def head_seq(self) -> int:
        return self.log.head().seq

    def configured(self) -> CampaignConfigured | None:
        evs = self.events()
        if evs and isinstance(evs[0].payload, CampaignConfigured):
            return evs[0].payload
        return None

    @property
    def context(self) -> CampaignContext:
        """Options from the log's first event (the truth), homebrew data from ``data/``."""
        conf = self.configured()
        opts = conf.options if conf is not None else self.config.options
        rs = self.ruleset
        return CampaignContext(
            campaign=self.id,
            options=validate_options(rs.options, opts, where=f"{self.folder / CONFIG_FILE} option"),
            data=self.homebrew(),
            viewers=tuple(v.id for v in self.config.viewers),
        )

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

    def state(self, until_turn: int | None = None, *, viewer: str = "gm", use_cache: bool = True) -> State:
        """The folded state (through the snapshot cache), redacted for ``viewer``."""
        rs = self.ruleset
        warm = self._warm_state(rs) if use_cache and until_turn is None and self._events is None else None
        if warm is not None:
            state = warm
        else:
            ctx = self.context
            events = self.events()
            state = self.cache.replay(rs, ctx, events, until_turn) if use_cache else _cold(rs, ctx, events,
                                                                                          until_turn)
        return state if viewer == "gm" else rs.redact(state, viewer)

    def _warm_state(self, rs: Ruleset) -> State | None:
        """The latest state from the newest snapshot, decoding only the events after it.

        The whole log is still checked (``EventLog.read_after``: files before the snapshot by
        their sha256 against the verified cache, the rest in full). Returns None, so the caller
        takes the ordinary path, whenever anything is not as the snapshot assumed.
        """
        from kingdomlog.store.cache import fingerprint
        from kingdomlog.store.log import decode_table

        if not self.cache.dir.is_dir():
            return None
        verified = self.log._load_verified()
        files = self.log.files()
        if not files:
            return None
        ent = verified.get(files[0].name)
        first = ent.get("config") if isinstance(ent, dict) else None
        if not first:
            return None
        try:
            conf = decode_payload(first[0], int(first[1]), first[2], seq=1)
        except KingdomlogError:
            return None
        if not isinstance(conf, CampaignConfigured):
            return None
        ctx = CampaignContext(campaign=self.id, data=self.homebrew(),
                              options=validate_options(rs.options, conf.options,
                                                       where=f"{self.folder / CONFIG_FILE} option"),
                              viewers=tuple(v.id for v in self.config.viewers))
        initial = rs.initial_state(ctx)
        fp = fingerprint(rs, ctx, type(initial))
        candidates = self.cache._candidates(fp)
        if not candidates:
            return None
        seq, path = candidates[0]
        try:
            snap = json.loads(path.read_text())
        except (OSError, ValueError):
            return None
        tail = self.log.read_after(seq)
        if tail.hash_at is None or snap.get("hash") != tail.hash_at or tail.config != first:
            return None
        if sorted(tail.retracted & tail.commits_upto) != sorted(snap.get("retracted", [])):
            return None
        events = decode_table(tail.table)
        gone = set(tail.retracted)
        for ev in events:
            if isinstance(ev.payload, TurnRetracted):
                gone.update(ev.payload.commit_ids)
        if gone & tail.commits_upto != tail.retracted & tail.commits_upto:
            return None
        try:
            state: State = type(initial).model_validate(snap["state"])
        except Exception:  # a bad snapshot is simply not used
            return None
        live = [ev for ev in events if not ev.type.startswith("core.") and ev.commit_id not in gone]
        for ev in live:
            state = rs.evolve(state, ev)
        self.cache.hits += 1
        if live:
            before = frozenset(tail.commits_upto | {e.commit_id for e in events if e.seq <= live[-1].seq})
            self.cache._save(fp, live[-1], frozenset(gone) & before, state)
        return state

    def stream_state(self, until_turn: int | None = None) -> State:
        """A cold replay in the memory of one batch (for very long logs): same result as
        ``state(until_turn, use_cache=False)``, every check included.

        Two passes over the files: the first collects retracted commits (decoding only
        ``core.turn_retracted`` rows), the second folds batch by batch.
        """
        import pyarrow.compute as pc

        from kingdomlog.store.log import decode_table

        gone: set[str] = set()
        conf: CampaignConfigured | None = None
        for table in self.log.iter_tables():
            if conf is None:
                first = decode_table(table.slice(0, 1))[0].payload
                conf = first if isinstance(first, CampaignConfigured) else None
            hits = table.filter(pc.equal(table.column("type"), TurnRetracted.type))
            for ev in decode_table(hits):
                if isinstance(ev.payload, TurnRetracted):
                    gone.update(ev.payload.commit_ids)
        rs = self.ruleset
        opts = conf.options if conf is not None else self.config.options
        ctx = CampaignContext(campaign=self.id, data=self.homebrew(),
                              options=validate_options(rs.options, opts, where=f"{self.folder / CONFIG_FILE} option"),
                              viewers=tuple(v.id for v in self.config.viewers))
        state = rs.initial_state(ctx)
        for table in self.log.iter_tables():
            for ev in decode_table(table):
                if ev.type.startswith("core.") or ev.commit_id in gone or (
                        until_turn is not None and ev.turn > until_turn):
                    continue
                state = rs.evolve(state, ev)
        return state

    def known_viewers(self) -> list[str]:
        """Player/faction ids from ``campaign.toml`` and, if the ruleset names them, from the state."""
        out = [v.id for v in self.config.viewers]
        fn = getattr(self.ruleset, "viewers", None)
        if callable(fn):
            out += [v for v in fn(self.state()) if v not in out]
        return out

    def next_turn(self) -> int:
        return next_turn(self.events())

    def visible_events(self, viewer: str) -> list[RecordedEvent]:
        return filter_visible(self.events(), viewer)

    # ---- player submissions ----------------------------------------------------------------

    def player_steps(self, viewer: str, *, state: State | None = None, turn: int | None = None) -> list[str]:
        """The steps of ``turn`` (default: the next) that ``viewer`` may submit; [] if the ruleset has none.

        Asks the ruleset's optional ``player_steps(state, turn, viewer)``; the GM and the
        public submit nothing.
        """
        who = viewer.removeprefix("faction:")
        fn = getattr(self.ruleset, "player_steps", None)
        if not callable(fn) or who in ("gm", "public", ""):
            return []
        st = self.state() if state is None else state
        t = self.next_turn() if turn is None else turn
        return [str(x) for x in fn(st, t, who)]

    def submissions(self, turn: int | None = None) -> dict[str, RecordedEvent]:
        """The latest ``core.plan_submitted`` of each player for ``turn`` (default: the next), by player id.

        Each value is the recorded event (``payload`` is a ``PlanSubmitted``); a later
        submission replaces the player's earlier ones whole.
        """
        events = self.events()
        t = next_turn(events) if turn is None else turn
        out: dict[str, RecordedEvent] = {}
        for ev in events:
            if isinstance(ev.payload, PlanSubmitted) and ev.payload.turn == t:
                out[ev.actor] = ev
        return out

    def with_submissions(self, plan: Plan) -> Plan:
        """``plan`` with the players' latest submissions for the next turn filled into the steps it leaves out.

        A step the GM's plan names wins (the GM's ruling). Submitted dice become typed
        dice, so the resolution uses exactly the faces rolled at submission. Steps the
        submitter may no longer submit (e.g. a faction that left the game) are ignored.
        """
        events = self.events()
        turn = next_turn(events)
        subs = self.submissions(turn)
        if not subs:
            return plan
        state = self.state()
        steps = dict(plan.steps)
        for who, ev in subs.items():
            assert isinstance(ev.payload, PlanSubmitted)
            allowed = set(self.player_steps(who, state=state, turn=turn))
            for sid, st in ev.payload.steps.items():
                if sid in allowed and sid not in steps:
                    steps[sid] = StepPlan(choices=dict(st.choices), rolls={k: list(v) for k, v in st.rolls.items()})
        return plan.model_copy(update={"steps": steps})

    def submit(self, viewer: str, steps: Mapping[str, Any], *, note: str = "") -> AppendResult:
        """Append a player's submission for the next turn (``core.plan_submitted``, visible to it and the GM).

        Checked first by ``check_submission`` (its refusals are this method's); then one
        batch of one event is appended with ``expect_seq`` = the head the check read.
        """
        check = self.check_submission(viewer, steps)
        try:
            payload = PlanSubmitted(turn=check.turn, steps=check.steps, note=note)
        except ValidationError as exc:
            raise InputError(f"submission: {exc.errors()[0]['msg']}") from None
        res = self.log.append([Pending(check.turn, Draft(payload, actor=check.viewer,
                                                         visibility=f"faction:{check.viewer}"))],
                              expect_seq=check.expect_seq)
        self._events = None
        return res

    def check_submission(self, viewer: str, steps: Mapping[str, Any]) -> SubmissionCheck:
        """Everything ``submit`` checks and rolls, without writing: the steps as they would be stored.

        ``steps`` is ``{step id: {"choices": {...}}}`` (a ``StepPlan`` or its JSON). Refused
        (``RuleError``, nothing appended) when a step is not the viewer's, when dice are
        given (the server rolls them), when a step whose dice were already rolled this turn
        is changed, or when previewing the next turn with this submission (every other step
        at its default) refuses one of the viewer's steps. The viewer's dice are rolled
        here with the keyed roller from a fresh seed, and their faces stored. Steps the
        viewer submitted earlier this turn and does not name again are carried over.
        """
        who = viewer.removeprefix("faction:")
        if who in ("gm", "public", ""):
            raise InputError("a submission is made by a player or faction, not by the GM or the public;"
                             " the GM plays the turn with `kingdomlog turn`")
        visibility = f"faction:{who}"
        parse_visibility(visibility)
        events = self.events()
        head = events[-1].seq if events else 0
        turn = next_turn(events)
        state = self.state()
        allowed = self.player_steps(who, state=state, turn=turn)
        if not steps:
            raise InputError(f"nothing to submit: name one of your steps for turn {turn}"
                             f" ({', '.join(allowed) or 'none'})")
        given: dict[str, StepPlan] = {}
        for sid, raw in steps.items():
            if sid not in allowed:
                raise RuleError(f"this step is not {who}'s to submit; for turn {turn} {who} may submit "
                                f"{', '.join(allowed) or 'nothing'}", step=str(sid))
            try:
                sp = raw if isinstance(raw, StepPlan) else StepPlan.model_validate(raw)
                json.dumps(sp.choices, allow_nan=False)
            except (ValidationError, TypeError, ValueError) as exc:
                raise InputError(f"step {sid!r}: not a step's input ({{\"choices\": {{...}}}}): {exc}") from None
            if sp.rolls or sp.rerolls:
                raise RuleError("a submission's dice are rolled by the server; leave out"
                                " \"rolls\" and \"rerolls\"", step=str(sid))
            given[sid] = sp
        previous = self.submissions(turn).get(who)
        before: dict[str, SubmittedStep] = {}
        if previous is not None and isinstance(previous.payload, PlanSubmitted):
            before = {k: v for k, v in previous.payload.steps.items() if k in allowed}
        merged: dict[str, StepPlan] = {
            sid: StepPlan(choices=dict(st.choices), rolls={k: list(v) for k, v in st.rolls.items()})
            for sid, st in before.items()
        }
        for sid, sp in given.items():
            old = before.get(sid)
            if old is not None and old.rolls:
                if old.choices != sp.choices:
                    raise RuleError("its dice were rolled when you submitted it earlier this turn,"
                                    " so its choices are sealed; ask the GM to change them", step=sid)
                continue  # the same choices again: keep the faces already rolled
            merged[sid] = StepPlan(choices=dict(sp.choices))
        plan = Plan(turn=turn, seed=new_seed(), steps=merged)
        tp = preview_turn(self.ruleset, state, plan, campaign=self.id, turn=turn, start_seq=head)
        by_id = {sp.phase.id: sp for sp in tp.steps}
        out: dict[str, SubmittedStep] = {}
        seen: dict[str, list[Draft]] = {}
        fresh: list[str] = []
        for sid in merged:
            result = by_id.get(sid)
            if result is None:
                raise RuleError(f"cannot be checked yet: an earlier step of turn {turn} does not"
                                " resolve; ask the GM", step=sid)
            if result.error:
                raise RuleError(result.error if sid in result.error else f"[{sid}] {result.error}")
            out[sid] = SubmittedStep(choices=dict(merged[sid].choices),
                                     rolls={r.key: list(r.faces) for r in result.rolls})
            seen[sid] = [d for d in result.drafts if visible_to(d.visibility, who)]
            if result.rolls and not merged[sid].rolls:
                fresh.append(sid)
        return SubmissionCheck(viewer=who, turn=turn, expect_seq=head, steps=out, fresh=tuple(fresh),
                               events=seen)

    # ---- writing -------------------------------------------------------------------------

    def preview(self, plan: Plan, *, seed: str | None = None) -> TurnPreview:
        """A draft of the next turn from ``plan`` (nothing written).

        The players' latest submissions fill the steps ``plan`` leaves out (``with_submissions``).
        """
        events = self.events()
        turn = next_turn(events)
        state = self.state()
        plan = self.with_submissions(plan)
        return preview_turn(self.ruleset, state, plan, campaign=self.id, turn=turn,
                            start_seq=events[-1].seq if events else 0, seed=seed or plan.seed or new_seed())

    def commit(self, preview: TurnPreview, *, commit_id: str | None = None) -> AppendResult:
        """Append a preview's events with ``expect_seq`` = the seq it started from."""
        require_ok(preview)
        if not preview.drafts:
            raise RuleError("the turn produced no events; nothing to commit")
        res = self.log.append([Pending(preview.turn, d) for d in preview.drafts],
                              expect_seq=preview.start_seq, commit_id=commit_id)
        self._events = None
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
        gone = retracted_commits(events)
        commits = []
        for ev in events:
            if ev.turn == turn and not ev.type.startswith("core.") and ev.commit_id not in gone \
                    and ev.commit_id not in commits:
                commits.append(ev.commit_id)
        draft = Draft(TurnRetracted(turn=turn, commit_ids=tuple(commits), reason=reason), actor="gm")
        res = self.log.append([Pending(turn, draft)], expect_seq=expect_seq if expect_seq is not None
                              else (events[-1].seq if events else 0))
        self._events = None
        return res

    def note(self, text: str, *, turn: int | None = None, visibility: str = "public", title: str = "") -> AppendResult:
        """Append a journal entry (``core.note_added``) visible as ``visibility`` says."""
        parse_visibility(visibility)
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
        res = self.log.append([Pending(turn, Draft(payload, actor="gm", visibility=visibility))],
                              expect_seq=events[-1].seq if events else 0)
        self._events = None
        return res

    def parse_jsonl(self, lines: Iterable[str], *, source: str = "input") -> list[Pending]:
        """Parse raw event lines (``{"turn", "type", "payload", ...}``); errors name the line."""
        rs = self.ruleset
        allowed = {t.type for t in rs.event_types} | {"core.note_added", "core.turn_retracted"}
        out: list[Pending] = []
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
            extra = set(obj) - {"turn", "phase", "type", "version", "actor", "visibility", "payload"}
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
                parse_visibility(vis)
            except InputError as exc:
                raise InputError(f"{where}: {exc}") from None
            out.append(Pending(turn, Draft(model, phase=phase, actor=actor, visibility=vis)))
        if not out:
            raise InputError(f"{source}: no events")
        return out

    def append_raw(self, pending: Sequence[Pending], *, expect_seq: int | None = None) -> AppendResult:
        """Append validated raw events, all or nothing, after checking they fold without error."""
        events = self.events()
        head = events[-1].seq if events else 0
        if expect_seq is not None and expect_seq != head:
            from kingdomlog.core.errors import ConflictError

            raise ConflictError(expect_seq, head)
        rs = self.ruleset
        state = self.state()
        seq = head
        for p in pending:
            seq += 1
            if p.draft.type.startswith("core."):
                continue
            try:
                state = rs.evolve(state, provisional(self.id, p.turn, seq, p.draft))
            except KingdomlogError as exc:
                raise InputError(f"event {seq - head} ({p.draft.type}) cannot be applied: {exc}") from None
            except (ValueError, KeyError, TypeError) as exc:
                raise InputError(f"event {seq - head} ({p.draft.type}) cannot be applied: {exc!r}") from None
        res = self.log.append(pending, expect_seq=head)
        self._events = None
        return res

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
            _cold(self.ruleset, self.context, events, None)
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

    # ---- export / import ----------------------------------------------------------------

    def export_lines(self, viewer: str = "gm") -> list[str]:
        """JSONL: a header line with the config, then one line per event visible to ``viewer``."""
        header = {"kingdomlog_export": 1, "campaign": self.config.model_dump(mode="json"), "viewer": viewer}
        out = [json.dumps(header, sort_keys=True)]
        for ev in self.visible_events(viewer):
            env = ev.envelope()
            env["recorded_at"] = ev.recorded_at.isoformat()
            env["payload"] = json.loads(ev.payload_text)
            out.append(json.dumps(env, sort_keys=True, ensure_ascii=False))
        return out

    @classmethod
    def import_lines(cls, lines: Sequence[str], folder: str | Path, *, source: str = "import") -> Campaign:
        """Create a campaign from an export; batches keep their commit ids, event ids and times.

        A complete (GM) export reproduces the original hash chain exactly.
        """
        if not lines:
            raise InputError(f"{source}: empty file")
        try:
            header = json.loads(lines[0])
        except json.JSONDecodeError as exc:
            raise InputError(f"{source} line 1: not valid JSON ({exc.msg})") from None
        if not isinstance(header, dict) or header.get("kingdomlog_export") != 1:
            raise InputError(f"{source} line 1: not a kingdomlog export header")
        try:
            cfg = CampaignConfig.model_validate(header["campaign"])
        except (KeyError, ValidationError) as exc:
            raise InputError(f"{source} line 1: bad campaign config: {exc}") from None
        path = Path(folder)
        if path.exists() and any(path.iterdir()):
            raise StoreError(f"{path}: folder is not empty; import into a new folder")
        rows = []
        for n, line in enumerate(lines[1:], start=2):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
                rows.append((n, obj, decode_payload(obj["type"], int(obj["version"]), obj["payload"],
                                                    seq=obj.get("seq"))))
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                raise InputError(f"{source} line {n}: not an exported event ({exc})") from None
        if not rows or not isinstance(rows[0][2], CampaignConfigured):
            raise InputError(f"{source}: the export does not start with core.campaign_configured")
        (path / "log").mkdir(parents=True, exist_ok=True)
        (path / CONFIG_FILE).write_text(_dump_config(cfg), encoding="utf-8")
        camp = cls(path, cfg)
        batch: list[Pending] = []
        commit: str | None = None

        def flush() -> None:
            if batch:
                camp.log.append(list(batch), expect_seq=camp.log.head().seq, commit_id=commit)
                batch.clear()

        for _n, obj, model in rows:
            if obj["commit_id"] != commit:
                flush()
                commit = obj["commit_id"]
            batch.append(Pending(int(obj["turn"]), Draft(model, phase=obj.get("phase"), actor=obj["actor"],
                                                         visibility=obj["visibility"]),
                                 event_id=obj["event_id"], recorded_at=datetime.fromisoformat(obj["recorded_at"])))
        flush()
        return camp


def _cold(rs: Ruleset, ctx: CampaignContext, events: Sequence[RecordedEvent], until: int | None) -> State:
    state = rs.initial_state(ctx)
    for ev in live_events(events, until):
        state = rs.evolve(state, ev)
    return state


def _dump_config(cfg: CampaignConfig) -> str:
    data = cfg.model_dump(mode="json")
    data["options"] = {k: v for k, v in data["options"].items() if v is not None}
    if not data["viewers"]:
        del data["viewers"]
    head = ("# kingdomlog campaign. The log (log/*.parquet) is the truth; options here are a readable copy of the\n"
            "# options recorded in the log's first event. Homebrew data goes in data/*.toml.\n")
    return head + tomli_w.dumps(data)


def new_commit_id() -> str:
    return str(uuid.uuid4())


__all__ = ["Campaign", "CampaignConfig", "EventModel", "SubmissionCheck", "VerifyReport", "load_config"]
