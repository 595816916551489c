"""The table: players propose their own acts of the turn and roll them; the GM accepts or sends them back.

In every rule system the kingdom turn is played by a table. A player acts from a **seat** the ruleset
gives them (``Ruleset.seats``: pf2e's Ruler takes the Ruler's Leadership activities, an aikakirjat PC
its actions): they pick a row of that step (activity, skill, target), see the check's odds, press Roll,
and the GM accepts the row into the month (or sends it back with a note). Players never write the log:
what they do is kept beside it, in ``DIR/table/t<turn>.jsonl``, one JSON line per thing that happened
(declared, rolled, re-rolled, accepted, sent back, withdrawn, said, committed). The GM's preview merges
the accepted rows into their steps (``merge``) with their faces typed and the player as each row's actor,
so the committed month records who did what and the faces that were rolled at the table.

Four rules hold the table honest:

- **A face is never shown before the choice it decides.** Declaring a row computes its check and odds
  with nothing drawn; the die is drawn by the server when Roll is pressed, written to the table file,
  and only then shown. A second press of Roll (a double click, a retry) shows the same faces.
- **A rolled row is locked.** Changing it means a re-roll with a reason the rules give (pf2e: a Fame
  point) or, by the GM only, a GM ruling with a note; the re-roll is a line the table sees and the
  month's log records (``core.dice_rerolled``). A rolled row cannot be withdrawn (no fishing for faces).
- **Checked against what the player knows.** A row is checked on the player's own view of the kingdom
  as the turn starts (``Campaign.state(viewer=...)``); its odds are those of that view. The GM's sheet
  resolves it in the month as played, with the same faces.
- **What a viewer may not see never reaches them.** Each line has a visibility: a player's own lines are
  theirs and the GM's; the GM's decision on a row is shared with the whole table (and a roll at once, when
  ``campaign.toml`` says ``[table] rolls = "at_once"``: dice rolled on a real table). ``feed`` returns only
  the lines a viewer may read, and a refusal never names another player's row.

The file is append-only; writers hold an exclusive ``flock`` while they read the last number and append
one line, so two players pressing Roll at once both land, numbered in order. A line cut short by a crash
is ignored on reading (it never completed, so nothing was shown from it).
"""

from __future__ import annotations

import contextlib
import copy
import fcntl
import os
from collections.abc import Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kingdomlog.core.choices import _shape_of, field_options
from kingdomlog.core.errors import InputError, KingdomlogError, RuleError
from kingdomlog.core.ruleset import Seat, Step, join_value, run_step
from kingdomlog.core.turn import (
    GM_RULING,
    Plan,
    Reroll,
    RollLock,
    StepGate,
    StepPlan,
    check_of,
    check_print,
    check_words,
    faces_as,
    outcome_words,
    roll_arithmetic,
    same_outcome,
)
from kingdomlog.core.viewers import GM_VIEWER, PLAYER_PREFIX, Viewer, parse_visibility
from kingdomlog.dice import roller
from kingdomlog.dice.odds import odds, resolve

if TYPE_CHECKING:
    from kingdomlog.app.campaign import Campaign
    from kingdomlog.core.ruleset import State

TABLE_DIR = "table"
Kind = Literal["declared", "rolled", "rerolled", "accepted", "returned", "withdrawn", "said", "committed"]
Status = Literal["declared", "rolled", "accepted", "returned", "withdrawn"]


class Line(BaseModel):
    """One thing that happened at the table, as written to ``table/t<turn>.jsonl``."""

    model_config = ConfigDict(extra="forbid")

    n: int = Field(ge=1)
    at: str
    turn: int = Field(ge=0)
    kind: Kind
    by: str
    visibility: str
    text: str = Field(max_length=4000)
    proposal: str = ""
    seat: str = ""
    row: dict[str, Any] = Field(default_factory=dict)
    faces: dict[str, list[int]] = Field(default_factory=dict)
    checks: dict[str, dict[str, Any]] = Field(default_factory=dict)
    reason: str = ""
    note: str = Field(default="", max_length=2000)


@dataclass
class Proposal:
    """One row a player proposed, as its lines fold: what, whose, its faces and where it stands."""

    id: str
    turn: int
    player: str
    seat: str
    step: str
    rows: str
    row: dict[str, Any]
    status: Status = "declared"
    faces: dict[str, list[int]] = field(default_factory=dict)
    """The faces by roll key as the list's first row (``a1``); ``Ruleset.row_key`` places them."""
    checks: dict[str, dict[str, Any]] = field(default_factory=dict)
    rerolls: list[tuple[str, str, str, list[int]]] = field(default_factory=list)
    """Each re-roll: (roll key, reason, note, the faces it replaced), oldest first."""
    outcome: str = ""
    note: str = ""
    """The GM's note when the row was sent back."""
    accepted_at: int = 0
    """The number of the line that accepted it (the order of the month's rows)."""
    title: str = ""

    @property
    def rolled(self) -> bool:
        return bool(self.faces)

    @property
    def open(self) -> bool:
        """Still counts against its seat (not withdrawn)."""
        return self.status != "withdrawn"


# ---- the file ----------------------------------------------------------------------------------


class TableFile:
    """``DIR/table/t<turn>.jsonl``: the table's lines of one turn (append-only, flock-serialised)."""

    def __init__(self, campaign_folder: Path, turn: int) -> None:
        self.path = campaign_folder / TABLE_DIR / f"t{turn}.jsonl"
        self.turn = turn

    def lines(self) -> list[Line]:
        """Every complete line, in order (a last line cut short by a crash is left out)."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return []
        out: list[Line] = []
        for text in raw.split(b"\n"):
            if not text.strip():
                continue
            try:
                out.append(Line.model_validate_json(text))
            except ValidationError:
                continue  # a line cut short (it was never complete, so nothing was shown from it)
        return out

    def version(self) -> tuple[int, int]:
        """A cheap mark that changes with every line written (size and modification time)."""
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return (0, 0)
        return (st.st_size, st.st_mtime_ns)

    @contextlib.contextmanager
    def locked(self) -> Iterator[list[Line]]:
        """The lines as they stand, with the file held exclusively until the block ends (append inside)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield self.lines()
        finally:
            os.close(fd)  # closing releases the lock

    def append(self, line: Line) -> None:
        """Write ``line`` at the end and make it durable (call inside ``locked``)."""
        data = line.model_dump_json().encode("utf-8") + b"\n"
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                data = b"\n" + data  # a line cut short by a crash stays alone on its line (and is skipped)
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _write(camp: Campaign, turn: int, make: Any) -> Line:
    """Append the line ``make(lines so far, next number)`` returns, under the file's lock."""
    tf = TableFile(camp.folder, turn)
    with tf.locked() as lines:
        line = make(lines, (lines[-1].n if lines else 0) + 1)
        if line is None:
            raise RuleError("nothing to record")
        tf.append(line)
        return line  # type: ignore[no-any-return]


# ---- who sits where ----------------------------------------------------------------------------


def table_viewers(camp: Campaign) -> str:
    """The visibility of a line the whole table reads: every declared player (the GM always reads)."""
    players = camp.players()
    return ",".join(f"{PLAYER_PREFIX}{p}" for p in players) if players else "gm"


def own(viewer: Viewer) -> str:
    """The visibility of a line only ``viewer`` and the GM read."""
    return viewer.token if viewer.is_player else "gm"


@dataclass(frozen=True)
class Opening:
    """A player's place at the table this turn: the turn, the player's view of the kingdom, their seats."""

    turn: int
    view: Any
    seats: tuple[Seat, ...]
    unit: str
    viewer: Viewer = GM_VIEWER


def opening(camp: Campaign, viewer: Viewer) -> Opening:
    """Where ``viewer`` acts in the next turn (no seats for the GM and the public)."""
    turn = camp.next_turn()
    view = camp.state(viewer=viewer)
    seats: tuple[Seat, ...] = ()
    if viewer.is_player:
        rs = camp.ruleset
        known = {s.id for s in rs.phases_for(view, turn)}
        seats = tuple(s for s in rs.seats(view, turn, viewer.id, camp.character(viewer.id)) if s.step in known)
        if any(s.part and not s.fill for s in seats):
            seats = _filled_seats(camp, view, turn, seats)
    return Opening(turn, view, seats, camp.ruleset.turn_unit, viewer)


def _filled_seats(camp: Campaign, view: Any, turn: int, seats: tuple[Seat, ...]) -> tuple[Seat, ...]:
    """``seats`` with each seat that gives a part of the GM's rows (``Seat.part``) opened once per row of its list in
    the GM's saved month (``Ruleset.fill_seat``): the General's orders, one seat per battle the GM set up."""
    out: list[Seat] = []
    for s in seats:
        if not s.part or s.fill:
            out.append(s)
            continue
        rows = _gm_step(camp, turn, s.step).choices.get(s.rows)
        for i, row in enumerate(rows if isinstance(rows, list) else [], start=1):
            got = camp.ruleset.fill_seat(view, turn, s, i, row) if isinstance(row, Mapping) else None
            if got is not None:
                out.append(got)
    return tuple(out)


def filled(seat_id: str) -> tuple[str, int] | None:
    """The part and the GM's row a seat's id names (``activity.battle/battles/rounds@1`` → ``("rounds", 1)``), None
    for a seat of rows of its own.

    >>> filled("activity.battle/battles/rounds@2"), filled("activity.leadership/activities/role=ruler")
    (('rounds', 2), None)
    """
    head = seat_id.split("/", 2)[-1].split("&", 1)[0]
    name, at, n = head.partition("@")
    return (name, int(n)) if at and n.isdigit() and name else None


def fill_part(gm: Any, given: Any) -> Any:
    """The GM's value of a part with the player's added, as ``Ruleset.join_part`` joins it by default
    (``core.ruleset.join_value``).

    >>> fill_part([[{"army": "raiders"}], []], [[{"army": "militia"}], [{"army": "militia"}]])
    [[{'army': 'raiders'}, {'army': 'militia'}], [{'army': 'militia'}]]
    """
    return join_value(gm, given)


def _entries(value: Any) -> Iterator[Mapping[str, Any]]:
    """Every entry (a mapping) of a part's value, however deep its lists go."""
    if isinstance(value, Mapping):
        yield value
    elif isinstance(value, list):
        for x in value:
            yield from _entries(x)


def _seat(op: Opening, seat_id: str) -> Seat:
    for s in op.seats:
        if s.id == seat_id:
            return s
    raise InputError(f"seat {seat_id!r} is not yours this {op.unit}; yours: "
                     f"{', '.join(s.label for s in op.seats) or 'none'}")


# ---- folding the lines -------------------------------------------------------------------------


def proposals(lines: Sequence[Line]) -> dict[str, Proposal]:
    """Each proposal as its lines fold, by id, in the order they were first declared."""
    out: dict[str, Proposal] = {}
    for ln in lines:
        if not ln.proposal:
            continue
        p = out.get(ln.proposal)
        if ln.kind == "declared":
            step, fld, _ = ln.seat.split("/", 2)
            if p is None:
                out[ln.proposal] = Proposal(ln.proposal, ln.turn, ln.by, ln.seat, step, fld, dict(ln.row),
                                            checks=dict(ln.checks), title=ln.text)
            else:
                p.row, p.status, p.note, p.title = dict(ln.row), ("rolled" if p.faces else "declared"), "", ln.text
                if not p.faces:
                    p.checks = dict(ln.checks)  # the check the row makes (its odds), until it is rolled
            continue
        if p is None:
            continue
        if ln.kind == "rolled":
            p.faces, p.checks, p.status, p.outcome = dict(ln.faces), dict(ln.checks), "rolled", ln.note
        elif ln.kind == "rerolled":  # the row's check rolled again (its first key); what follows it is new
            key = first_check(p.checks) or next(iter(ln.faces), "")
            p.rerolls.append((key, ln.reason, ln.note, list(p.faces.get(key, []))))
            p.faces = dict(ln.faces)
            p.checks = dict(ln.checks)
            if ln.row:
                p.row = dict(ln.row)
            # the GM's ruling on a row in the month keeps it there (a player's re-roll waits for the GM again)
            kept = p.status == "accepted" and ln.by == GM_VIEWER.id
            p.status, p.outcome = ("accepted" if kept else "rolled"), ln.text
        elif ln.kind == "accepted":
            p.status, p.accepted_at = "accepted", ln.n
        elif ln.kind == "returned":
            p.status, p.note = "returned", ln.note
        elif ln.kind == "withdrawn":
            p.status = "withdrawn"
    return out


def first_check(checks: Mapping[str, Any]) -> str:
    """The key of a row's own check (its first roll: ``a1`` before ``a1.pull``), "" when it has none."""
    return min(checks, key=lambda k: (k.count("."), k)) if checks else ""


def visible(camp: Campaign, lines: Sequence[Line], viewer: Viewer) -> list[Line]:
    """The lines ``viewer`` may read."""
    declared = camp.players()
    return [ln for ln in lines if parse_visibility(ln.visibility, declared).allows(viewer)]


def feed(camp: Campaign, viewer: Viewer, turn: int | None = None) -> list[Line]:
    """What ``viewer`` may read of the table this turn (default: the next turn), oldest first."""
    t = camp.next_turn() if turn is None else turn
    return visible(camp, TableFile(camp.folder, t).lines(), viewer)


def mine(camp: Campaign, viewer: Viewer, turn: int | None = None) -> list[Proposal]:
    """``viewer``'s own proposals of the turn (every proposal for the GM)."""
    t = camp.next_turn() if turn is None else turn
    got = proposals(TableFile(camp.folder, t).lines()).values()
    return [p for p in got if viewer.is_gm or p.player == viewer.id]


# ---- a row, checked and rolled -----------------------------------------------------------------


@dataclass(frozen=True)
class Trial:
    """A row run as its list's only row on the player's view: the check it makes (odds), or its outcome."""

    checks: dict[str, dict[str, Any]]
    faces: dict[str, list[int]]
    outcome: str
    pending: str = ""
    """The roll key the row stopped at (its check not rolled yet)."""
    board: Played | None = None
    """A row that plays a battle (a seat's ``part``): the battle as the step's board draws it."""


@dataclass(frozen=True)
class Played:
    """A row's battle as the ruleset's board draws it (``Ruleset.boards``): the board, the step's checks and rolls
    by their keys in the month, and the roll it waits for (None once rolled)."""

    board: Any
    checks: Mapping[str, Any]
    rolls: tuple[Any, ...]
    pending: Any = None


def _played(rs: Any, view: Any, step: str, choices: Mapping[str, Any], res: Any) -> Played | None:
    boards = rs.boards(view, step, choices, res.rolls, res.checks, res.drafts)
    return Played(boards[-1], dict(res.checks), tuple(res.rolls), res.pending) if boards else None


def _step(camp: Campaign, op: Opening, seat: Seat) -> Step:
    return camp.ruleset.find_step(op.view, op.turn, seat.step)


def full_row(seat: Seat, row: Mapping[str, Any]) -> dict[str, Any]:
    """``row`` with the seat's fixed keys set (a player cannot act as another role or PC)."""
    if seat.roll:
        if row:
            raise InputError(f"{seat.label}: this seat rolls a check of the GM's step; it takes no choices")
        return {}
    if not isinstance(row, Mapping):
        raise InputError(f"a row is an object of choices, got {type(row).__name__}")
    if seat.part:  # a part of the GM's row: that field only, each entry with a value the seat allows
        extra = sorted(set(row) - set(seat.parts))
        if extra:
            raise InputError(f"{', '.join(extra)}: this seat gives {', '.join(seat.parts)} only; the GM sets the"
                             " rest")
        for name in seat.parts:
            for entry in _entries(row.get(name)):
                for k, ok in seat.allowed.items():
                    if k in entry and entry[k] not in ok:
                        raise InputError(f"{name}: {entry[k]!r} is not one of yours to give ({k}: "
                                         f"{', '.join(ok) or 'none'})")
        return copy.deepcopy(dict(row))
    out = copy.deepcopy(dict(row))
    for k, v in seat.fixed.items():
        if k in out and out[k] != v:
            raise InputError(f"{k}: this seat acts as {v!r}, not {out[k]!r}")
        out[k] = v
    return out


_BEFORE: dict[tuple[Any, ...], Any] = {}
"""The month as the GM has played it up to a step, for a viewer, by what it was computed from (a few kept): a
``Before``, or the words of its refusal (``_Waits``) while the GM has not reached the step."""


@dataclass(frozen=True)
class _Waits:
    """``before_step``'s refusal, kept as its words: the month has not reached the step (raised again as new)."""

    words: str


@dataclass(frozen=True)
class Before:
    """The month up to a step as ``viewer`` may see it: the state, and the step's rows so far (the GM's own and
    those accepted) with their faces, which a proposed row follows."""

    view: Any
    choices: dict[str, Any]
    rolls: dict[str, list[int]]
    waiting: str = ""
    """Set when the step itself waits for a roll of the GM's (its words); a row still goes after rows the GM
    did not give (a step that falls back to default rows, aikakirjat's actions, plays the table's instead)."""
    pending: str = ""
    """The roll key the step waits for (with ``waiting``)."""


_LEAVING_OUT: ContextVar[str] = ContextVar("kingdomlog_table_leaving_out", default="")
"""An accepted proposal ``accepted`` leaves out while it is rolled again (it is not its own earlier row)."""


def before_step(camp: Campaign, viewer: Viewer, turn: int, step: str, *, leave_out: str = "") -> Before:
    """``viewer``'s view of the month as the GM has played it up to ``step`` (the GM's saved draft, its rolls
    and the rows accepted so far), redacted for ``viewer``: the state a row of ``step`` is checked on, and the
    step's choices and faces so far (a new row goes after them: a once-a-turn activity taken is seen).

    Refused (``RuleError``, in words) while the GM's month has not reached ``step``: a step before it waits
    for a roll or is refused, or a roll of the step itself waits for the GM. Kept per log head, draft, table
    file and viewer (a few at a time), the refusal too. ``leave_out``: an accepted proposal the month is played
    without (the GM's re-roll of it: its row comes after the others).
    """
    from kingdomlog.app.drafts import Drafts

    drafts = Drafts(camp.folder)
    path = drafts.path(turn)
    try:
        st = path.stat()
        mark: tuple[int, int] = (st.st_size, st.st_mtime_ns)
    except FileNotFoundError:
        mark = (0, 0)
    key = (str(camp.folder), camp.head_seq, mark, TableFile(camp.folder, turn).version(), viewer.token, step,
           leave_out)
    hit = _BEFORE.get(key)
    if isinstance(hit, _Waits):
        raise RuleError(hit.words)
    if hit is not None:
        return hit  # type: ignore[no-any-return]
    saved = drafts.load(turn)
    plan = saved.plan if saved is not None else Plan(dice="on_roll")
    token = _LEAVING_OUT.set(leave_out)
    try:
        tp = camp.preview(plan, seed=plan.seed or f"table-{turn}")
    finally:
        _LEAVING_OUT.reset(token)
    state = tp.state_before
    unit = camp.ruleset.turn_unit
    choices: dict[str, Any] = {}
    rolls: dict[str, list[int]] = {}
    waiting = pending = ""
    for sp in tp.steps:
        if sp.phase.id == step:
            if sp.pending is not None:
                waiting = f"the GM is rolling in {sp.phase.title}; your part opens once the GM's roll is made"
                pending = sp.pending.key
            choices = copy.deepcopy(dict(sp.choices))
            rolls = {r.key: list(r.faces) for r in sp.rolls}
            break
        if sp.pending is not None or sp.error is not None or sp.state_after is None:
            words = f"the GM is still at {sp.phase.title}; your part opens when the {unit} reaches it"
            _keep_before(key, _Waits(words))  # every page of a waiting seat asks again: the same files, the same words
            raise RuleError(words)
        state = sp.state_after
    got = Before(camp.ruleset.redact(state, viewer), choices, rolls, waiting, pending)
    _keep_before(key, got)
    return got


def _keep_before(key: tuple[Any, ...], got: Before | _Waits) -> None:
    if len(_BEFORE) > 64:
        _BEFORE.clear()
    _BEFORE[key] = got


def trial(camp: Campaign, op: Opening, seat: Seat, row: Mapping[str, Any], *,
          faces: Mapping[str, Sequence[int]] | None = None, draw: bool = False, viewer: Viewer | None = None,
          leave_out: str = "", seed: str | None = None) -> Trial:
    """Run ``row`` on the player's view of the month up to its step (``before_step``): with ``draw`` (Roll
    pressed) its dice are drawn now (keyed by ``seed`` when given, else fresh), with ``faces`` they are those; else
    it stops at its first check (odds, nothing drawn); with ``faces`` and no ``draw``, a check the row makes that has
    no face typed is not drawn either: the trial stops there (``pending``). ``InputError``/``RuleError`` when the rules
    refuse the row (its message names the field)."""
    step = _step(camp, op, seat)
    who = viewer if viewer is not None else op.viewer
    before = before_step(camp, who, op.turn, step.id, leave_out=leave_out)
    view = before.view
    if seat.roll:
        return _check_trial(camp, op, seat, step, view, faces=faces, draw=draw)
    rs = camp.ruleset
    prior = before.choices.get(seat.rows)
    rows = list(prior) if isinstance(prior, list) else []
    if seat.part:  # the GM's row with the player's part added, played after the GM's rows before it
        rows, new = _with_part(camp, op, seat, step, rows, before, full_row(seat, row))
    elif before.waiting and rows:  # the GM's own rows of the step wait for a roll
        raise RuleError(before.waiting)
    else:
        new = full_row(seat, row)
    index = len(rows) + 1
    ours = {rs.row_key(step.id, k, index): list(v) for k, v in (faces or {}).items()}
    choices = {**before.choices, seat.rows: [*rows, new]}
    earlier = {k: v for k, v in before.rolls.items() if _row_of(rs, step.id, k) < index}
    sp = StepPlan(choices=choices, rolls={**earlier, **ours})
    mine = _row_keys(rs, step.id, index)
    gate = StepGate(rs, view, step.id, sp, release=True if draw else list(earlier))  # typed faces release themselves
    dice = roller.KeyedRoller(seed or roller.new_seed(), campaign=camp.id, turn=op.turn).for_step(step.id,
                                                                                                 manual=sp.rolls)
    try:
        res = run_step(rs, view, step, sp.choices, dice, campaign=camp.id, turn=op.turn, gate=gate)
    except KingdomlogError as exc:
        if seat.part and isinstance(prior, list) and _gm_part_refused(
                camp, op, step, view, {**before.choices, seat.rows: [*rows, prior[index - 1]]}, earlier):
            raise RuleError(f"{seat.label}: the GM's side of it does not play yet; it opens once the GM has"
                            " set it up") from None  # the GM's orders are the GM's: not named to the player
        raise type(exc)(unstep(_row_path(str(exc), seat.rows, index), step.id)) from None
    checks = {mine(k): check_print(c, _notation(res, k)) for k, c in res.checks.items() if mine(k)}
    if res.pending is not None:
        if not mine(res.pending.key):
            raise RuleError(f"the GM is rolling in {step.title}; your part opens once the GM's roll is made")
        checks.setdefault(mine(res.pending.key), check_print(res.pending.check, res.pending.notation))
        return Trial(checks, {}, "", pending=mine(res.pending.key),
                     board=_played(rs, view, step.id, sp.choices, res) if seat.part else None)
    got = {mine(r.key): list(r.faces) for r in res.rolls if mine(r.key)}
    words = [_resolved(checks[mine(r.key)], r) for r in res.rolls if mine(r.key) in checks]
    if seat.part:  # a row of many checks (a battle): what it did in words, as the GM's board says it
        words = _fit(_board_words(rs, view, step.id, sp.choices, res)) or words
    return Trial(checks, got, "; ".join(words), board=_played(rs, view, step.id, sp.choices, res) if seat.part
                 else None)


def _board_words(rs: Any, view: Any, step: str, choices: Mapping[str, Any], res: Any) -> list[str]:
    """The last of a step's boards (``Ruleset.boards``: the row just played) in words, round by round: each war
    action and what each round did, then the outcome; [] for a step without boards."""
    boards = rs.boards(view, step, choices, res.rolls, res.checks, res.drafts)
    if not boards:
        return []
    b = boards[-1]
    rounds = [f"{b.round_title(n)}: " + "; ".join(x.text.rstrip(".") for x in b.lines if x.round == n)
              for n in b.rounds]
    return [*rounds, *(["Outcome: " + "; ".join(t.rstrip(".") for t in b.outcome)] if b.outcome else [])]


WORDS_MAX = 1800
"""The most characters a rolled row's words take in its table line (``Line.note`` holds 2000): a long battle (pf1's
ten Melee phases) is said in its first rounds and its outcome, the rest drawn on its board."""


def _fit(words: list[str], limit: int = WORDS_MAX) -> list[str]:
    """A battle's words (each round's, then the outcome) cut to ``limit`` characters joined: the outcome kept, the
    first rounds as many as fit, then how many more the board shows.

    >>> _fit(["Round 1: a", "Round 2: b", "Round 3: c", "Outcome: won"], 47)
    ['Round 1: a', '… 2 more on the board', 'Outcome: won']
    >>> _fit(["Round 1: a", "Outcome: won"], 40)
    ['Round 1: a', 'Outcome: won']
    """
    if len("; ".join(words)) <= limit:
        return words
    tail = [w for w in words[-1:] if w.startswith("Outcome: ")]
    rounds = words[:len(words) - len(tail)]
    keep: list[str] = []
    for w in rounds:
        more = f"… {len(rounds) - len(keep) - 1} more on the board"
        if len("; ".join([*keep, w, more, *tail])) > limit:
            break
        keep.append(w)
    left = len(rounds) - len(keep)
    out = [*keep, *([f"… {left} more on the board"] if left else []), *tail]
    return out if len("; ".join(out)) <= limit else [w[:limit] for w in (tail or out[:1])]


def said_once(words: str) -> str:
    """A rolled row's words as a line of the feed (and the word the page gives at Roll) says them: a battle's (each
    round's, then its outcome: ``_board_words``) by its outcome alone, its rounds being drawn on its board and listed
    with its proposal; any other row's words as they are.

    >>> said_once("Round 1: Militia: Advance; After round 1: no damage; Outcome: Militia: unhurt; Raiders: routed")
    'Militia: unhurt; Raiders: routed'
    >>> said_once("d20 = 14 +6 = 20 vs DC 16: a success")
    'd20 = 14 +6 = 20 vs DC 16: a success'
    """
    head, sep, tail = words.rpartition("Outcome: ")
    return tail if sep and (not head or head.endswith("; ")) else words


def _with_part(camp: Campaign, op: Opening, seat: Seat, step: Step, rows: list[Any], before: Before,
               row: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """The GM's rows before the seat's row, and the seat's row with the player's part added (``fill_part``).
    Refused while the GM's month waits for a roll of an earlier row, once the GM has rolled a check of the row
    itself (its dice are the GM's then), and when the GM's month no longer has the row."""
    rs = camp.ruleset
    n = seat.fill
    if n < 1 or n > len(rows) or not isinstance(rows[n - 1], Mapping):
        raise RuleError(f"{seat.label}: the GM's {op.unit} has no such row now")
    if before.pending and _row_of(rs, step.id, before.pending) != n:  # an earlier row's roll, or the step's own
        raise RuleError(before.waiting)
    gm = _gm_step(camp, op.turn, step.id)
    if any(_row_of(rs, step.id, k) == n for k in (*gm.rolls, *gm.rolled)):
        raise RuleError(f"{seat.label}: the GM has rolled it already this {op.unit}; the GM plays it")
    gm_row_ = dict(rows[n - 1])
    for name in seat.parts:
        theirs, given = gm_row_.get(name), row.get(name)
        if isinstance(theirs, list) and theirs and isinstance(given, list) and len(given) > len(theirs):
            raise InputError(f"{name}: the GM's row has {len(theirs)}, not {len(given)}; ask the GM for more")
    return rows[:n - 1], rs.join_part(step.id, seat.parts, gm_row_, row)  # the GM sets how many rounds are played


SEED_FILE = "table-seed"
"""``DIR/.secrets/table-seed``: the server's secret the dice of a part seat's roll are keyed by (never sent out)."""


def draw_seed(camp: Campaign, proposal: str, nonce: int = 0) -> str:
    """The seed of the dice a proposal's Roll draws when its row plays many checks (a battle of the General's):
    the server's secret (made once, mode 0600) with the proposal and its re-roll count. A Roll the rules refuse
    half-way (an order the dice made impossible: an army not engaged cannot Battle) writes nothing, and a changed
    row rolled again draws the same faces for the same checks: no fishing for faces."""
    folder = camp.folder / ".secrets"
    path = folder / SEED_FILE
    try:
        secret = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        folder.mkdir(mode=0o700, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            secret = path.read_text(encoding="utf-8").strip()
        else:
            secret = roller.new_seed() + roller.new_seed()
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(secret)
                f.flush()
                os.fsync(f.fileno())
    return f"{secret}:{proposal}:{nonce}"


def _gm_part_refused(camp: Campaign, op: Opening, step: Step, view: Any, choices: Mapping[str, Any],
                     earlier: Mapping[str, list[int]]) -> bool:
    """Whether the GM's rows alone (the GM's part of the seat's row, nothing of the player's) are refused on the
    player's view before a die of the row is drawn: a refusal of the player's row that is then the GM's."""
    rs = camp.ruleset
    sp = StepPlan(choices=dict(choices), rolls=dict(earlier))
    gate = StepGate(rs, view, step.id, sp, release=list(earlier))
    dice = roller.KeyedRoller(roller.new_seed(), campaign=camp.id, turn=op.turn).for_step(step.id)
    try:
        run_step(rs, view, step, sp.choices, dice, campaign=camp.id, turn=op.turn, gate=gate)
    except KingdomlogError:
        return True
    return False


def _row_of(rs: Any, step: str, key: str) -> int:
    """The row (1-based) a roll key belongs to (``a3.check`` → 3), 0 for a key of the step itself."""
    import re

    for m in re.finditer(r"\d+", key):
        first = key[:m.start()] + "1" + key[m.end():]
        if rs.row_key(step, first, 2) != first and rs.row_key(step, first, int(m.group())) == key:
            return int(m.group())
    return 0


def _row_keys(rs: Any, step: str, index: int) -> Any:
    """A function: a roll key of row ``index`` → the same key of the list's first row ("" for other keys)."""
    import re

    def mine(key: str) -> str:
        if _row_of(rs, step, key) != index:
            return ""
        for m in re.finditer(r"\d+", key):
            first = key[:m.start()] + "1" + key[m.end():]
            if rs.row_key(step, first, index) == key:
                return first
        return ""
    return mine


def _row_path(message: str, rows: str, index: int) -> str:
    """A refusal of row ``index`` worded as of the player's only row (``activities[2]`` → ``activities[0]``)."""
    return message.replace(f"{rows}[{index - 1}]", f"{rows}[0]")


def gm_row(camp: Campaign, turn: int, seat: Seat) -> dict[str, Any]:
    """The GM's row a seat with a ``part`` gives its part of, as the GM's saved month has it, without that part
    (the GM's own part, the enemy's orders, is the GM's: never offered nor shown to the player); {} when gone."""
    rows = _gm_step(camp, turn, seat.step).choices.get(seat.rows)
    if not seat.part or not isinstance(rows, list) or not 0 < seat.fill <= len(rows):
        return {}
    row = rows[seat.fill - 1]
    if not isinstance(row, Mapping):
        return {}
    return camp.ruleset.blank_part(seat.step, seat.parts, copy.deepcopy(dict(row)))


def _gm_step(camp: Campaign, turn: int, step: str) -> StepPlan:
    """The GM's saved plan of ``step`` (its choices, what was rolled), or an empty one."""
    from kingdomlog.app.drafts import Drafts

    saved = Drafts(camp.folder).load(turn)
    got = saved.plan.steps.get(step) if saved is not None else None
    return got if got is not None else StepPlan()


def _check_trial(camp: Campaign, op: Opening, seat: Seat, step: Step, view: Any, *,
                 faces: Mapping[str, Sequence[int]] | None, draw: bool) -> Trial:
    """A seat that rolls one check of the GM's step: the check as the GM's choices of the step compute it on
    the player's view (stopped at it, nothing drawn), then its dice drawn (``draw``) or typed (``faces``)."""
    key = seat.roll
    gm = _gm_step(camp, op.turn, step.id)
    if key in gm.rolled or key in gm.rolls:
        raise RuleError(f"{seat.label.split(': ')[-1]}: the GM has rolled it already this {op.unit}")
    sp = StepPlan(choices=copy.deepcopy(gm.choices))
    gate = StepGate(camp.ruleset, view, step.id, sp, keep=False, probe=key)
    dice = roller.KeyedRoller(roller.new_seed(), campaign=camp.id, turn=op.turn).for_step(step.id)
    try:
        res = run_step(camp.ruleset, view, step, sp.choices, dice, campaign=camp.id, turn=op.turn, gate=gate)
    except KingdomlogError as exc:
        raise type(exc)(unstep(str(exc), step.id)) from None
    pending = res.pending
    if pending is None or pending.key != key:
        raise RuleError(f"{seat.label.split(': ')[-1]}: not this {op.unit} (the GM's choices do not roll it)"
                        if pending is None else "the GM rolls another check of this step first")
    checks = {key: check_print(pending.check, pending.notation)}
    if not draw and not faces:
        return Trial(checks, {}, "", pending=key)
    manual = {key: list(faces[key])} if faces and key in faces else {}
    got = roller.KeyedRoller(roller.new_seed(), campaign=camp.id, turn=op.turn).for_step(step.id, manual=manual)
    r = got.roll(key, pending.notation)
    return Trial(checks, {key: list(r.faces)}, _resolved(checks[key], r))


def _notation(res: Any, key: str) -> str:
    for r in res.rolls:
        if r.key == key:
            return str(r.notation)
    pending = res.pending
    return str(pending.notation) if pending is not None and pending.key == key else "1d20"


def _resolved(print_: Mapping[str, Any], roll: Any) -> str:
    """``d20 = 16 +17 = 33 vs DC 31: success`` (a roll in words: the face, the total, the degree).

    >>> from kingdomlog.dice.roller import Roll
    >>> _resolved({"notation": "1d20", "kind": "pf2e", "modifier": 6, "dc": 16}, Roll("a1", "1d20", (13,), (13,), 13))
    'd20 = 13 +6 = 19 vs DC 16: success'
    """
    spec = check_of(print_)
    got = resolve(spec, roll) if spec is not None else None
    return roll_arithmetic(print_, roll) + (f": {got.label}" if got is not None else "")


def unstep(message: str, step: str) -> str:
    """A refusal without the machine's step id in front (the page shows it at the row)."""
    for head in (f"[{step}] ", f"step {step!r}: "):
        message = message.replace(head, "")
    return message


def odds_text(t: Trial) -> str:
    """``d20 +6 vs DC 16: critical failure 5%, failure 25%, success 50%, critical success 20%``."""
    if not t.pending:
        return ""
    print_ = t.checks[t.pending]
    spec = check_of(print_)
    if spec is None:
        return check_words(print_)
    got = odds(spec)
    return f"{check_words(print_)}: " + (", ".join(f"{o.label} {o.percent}" for o in got.outcomes) or got.note)


def _title(camp: Campaign, op: Opening, seat: Seat, row: Mapping[str, Any]) -> str:
    """The row in words: its first picked value's name, capitalised (``Quell Unrest``, ``Reduce unrest``), and the
    seat (``(Ruler)``, ``(Aino's actions)``; a part of the GM's row: ``Orders of battle 1 (General)``)."""
    if seat.roll or seat.part:
        words = seat.label.split(": ", 1)[-1][:1].upper() + seat.label.split(": ", 1)[-1][1:]
        return f"{words} ({seat.label.split(':')[0]})" if seat.part else words
    step = _step(camp, op, seat)
    info = step.choices.model_fields.get(seat.rows)
    label = ""
    if info is not None:
        item = _shape_of(info).item
        model = item.base if item is not None else None
        if model is not None and hasattr(model, "model_fields"):
            for name in model.model_fields:
                if name in seat.fixed or name not in row:
                    continue
                opts = field_options(model, name, state=op.view, vocabulary=camp.ruleset.vocabulary, within=row)
                hit = next((o for o in opts or () if o.value == row[name]), None)
                label = hit.label if hit is not None and hit.label else camp.ruleset.name_of(str(row[name]))
                break
    label = label[:1].upper() + label[1:]  # a title: "Reduce unrest (Aino's actions)", as a sentence starts
    return f"{label or 'An act'} ({seat.label.split(':')[0]})"


# ---- what a player does ------------------------------------------------------------------------


def declare(camp: Campaign, viewer: Viewer, seat_id: str, row: Mapping[str, Any], *,
            proposal: str | None = None) -> tuple[Proposal, Trial]:
    """Propose ``row`` from one of ``viewer``'s seats (or change proposal ``proposal`` before it is rolled).

    Returns the proposal and its trial (the check and its odds; nothing drawn). Refused when the seat is
    not the viewer's, its rows are used up, the rules refuse the row on the viewer's view, or the proposal
    was rolled (change it with ``reroll``) or accepted.
    """
    if not viewer.is_player:
        raise InputError("rows are proposed by players; the GM plays the turn on the sheet")
    op = opening(camp, viewer)
    seat = _seat(op, seat_id)
    full = full_row(seat, row)
    t = trial(camp, op, seat, full)
    title = _title(camp, op, seat, full)

    def make(lines: list[Line], n: int) -> Line:
        props = proposals(lines)
        pid = proposal
        if pid is not None:
            p = props.get(pid)
            if p is None or p.player != viewer.id:
                raise InputError(f"no proposal {pid!r} of yours this {op.unit}")
            if p.status == "accepted":
                raise RuleError("the GM has accepted it; ask the GM to send it back to change it")
            if p.rolled:
                raise RuleError("its die was rolled, so it is locked; change it with a re-roll (its reason is"
                                " recorded and the table sees it)")
        else:
            used = [p for p in props.values() if p.seat == seat.id and p.open]
            if seat.roll and used:  # one roll of a kingdom check: the first leader to take it rolls it
                raise RuleError(f"{_title(camp, op, seat, {})}: another leader has taken it this {op.unit}")
            if seat.limit is not None and len(used) >= seat.limit:
                raise RuleError(f"{seat.label}: {seat.limit} this {op.unit}, all proposed; withdraw one first")
            pid = f"p{sum(1 for _ in props) + 1}"
        _limit_refused(camp, op, seat, full, [q for q in props.values() if q.id != pid and q.player == viewer.id])
        return Line(n=n, at=_now(), turn=op.turn, kind="declared", by=viewer.id, visibility=own(viewer),
                    text=title, proposal=pid, seat=seat.id, row=full, checks=t.checks)

    line = _write(camp, op.turn, make)
    return _fold_one(camp, op.turn, line.proposal), t


def _limit_refused(camp: Campaign, op: Opening, seat: Seat, row: Mapping[str, Any], others: Sequence[Proposal]
                   ) -> None:
    """Refuse ``row`` at its field (``RuleError``) when the month's rows of its step so far and the player's other
    proposals not yet in the month (``others``: declared or rolled) already take what a limit per turn allows
    (``Ruleset.row_limit``: the rule the step applies when it runs). Only the player's own proposals count: another
    player's is not theirs to know before the GM accepts it (it stays the GM's to refuse then)."""
    if seat.roll or seat.part:
        return
    before = before_step(camp, op.viewer, op.turn, seat.step)
    month = before.choices.get(seat.rows)
    waiting = [q for q in others if q.status in ("declared", "rolled")]
    rows = [*(r for r in month if isinstance(r, Mapping))] if isinstance(month, list) else []
    got = camp.ruleset.row_limit(before.view, seat.step, [*rows, *(q.row for q in waiting)], row)
    if got is None:
        return
    name, words = got
    taking = [q for q in waiting if q.row.get(name) == row.get(name)]
    whose = (f": your {taking[0].title} takes it" + ("" if taking[0].rolled else "; withdraw it to take this one")
             if taking else "")
    raise RuleError(f"choice {seat.rows}[0].{name}: {words}{whose}")


def roll(camp: Campaign, viewer: Viewer, proposal: str) -> Proposal:
    """Draw the dice of ``viewer``'s proposal now (Roll pressed) and record them; seen by the player and the GM,
    and by the whole table once the GM accepts the row (or at once, with ``[table] rolls = "at_once"`` in
    ``campaign.toml``). Pressing Roll again on a rolled proposal draws nothing and returns it as it is."""
    op = opening(camp, viewer)

    def make(lines: list[Line], n: int) -> Any:
        p = proposals(lines).get(proposal)
        if p is None or p.player != viewer.id:
            raise InputError(f"no proposal {proposal!r} of yours this {op.unit}")
        if p.rolled:
            return _NOTHING
        if p.status == "withdrawn":
            raise RuleError("it was withdrawn; propose it again")
        seat = _seat(op, p.seat)
        t = trial(camp, op, seat, p.row, draw=True, seed=draw_seed(camp, p.id) if seat.part else None)
        if not t.faces:
            raise RuleError(f"{p.title}: it rolls no dice; the GM resolves it as it is")
        seen = table_viewers(camp) if camp.config.table.rolls == "at_once" else own(viewer)
        return Line(n=n, at=_now(), turn=op.turn, kind="rolled", by=viewer.id, visibility=seen,
                    text=f"{p.title}: {said_once(t.outcome)}", proposal=p.id, seat=p.seat, faces=t.faces,
                    checks=t.checks, note=t.outcome)

    with contextlib.suppress(_Nothing):
        _write(camp, op.turn, _raising(make))
    return _fold_one(camp, op.turn, proposal)


def reroll(camp: Campaign, viewer: Viewer, proposal: str, reason: str, *, note: str = "",
           row: Mapping[str, Any] | None = None) -> Proposal:
    """Roll a rolled proposal again for ``reason`` (one the rules give for its check; the GM may also rule
    ``gm`` with a note), optionally with its row changed; the new faces replace the old, both recorded."""
    op_viewer = viewer
    turn = camp.next_turn()
    tf = TableFile(camp.folder, turn)
    p0 = proposals(tf.lines()).get(proposal)
    if p0 is None or (viewer.is_player and p0.player != viewer.id):
        raise InputError(f"no proposal {proposal!r} of yours this {camp.ruleset.turn_unit}")
    player = camp.viewer(p0.player)
    op = opening(camp, player)
    seat = _seat(op, p0.seat)
    first = first_check(p0.checks)
    allowed = {r.id: r for r in camp.ruleset.reroll_reasons(op.view, seat.step, first, check_of(p0.checks[first]))
               } if first else {}
    if op_viewer.is_gm:
        allowed[GM_RULING.id] = GM_RULING
    if reason not in allowed:
        names = ", ".join(f"{r.id} ({r.label})" for r in allowed.values()) or "none the rules give"
        raise InputError(f"re-roll reason {reason!r}: not one this check may have; it may have: {names}")
    if reason == GM_RULING.id and not note.strip():
        raise InputError("a re-roll by GM ruling needs a note saying why")
    full = full_row(seat, row if row is not None else p0.row)

    def make(lines: list[Line], n: int) -> Line:
        p = proposals(lines).get(proposal)
        if p is None or not p.rolled:
            raise RuleError("it was not rolled; press Roll")
        if p.status == "accepted" and not op_viewer.is_gm:  # the GM's ruling keeps it in the month
            raise RuleError("the GM has accepted it; ask the GM to send it back first")
        if full != p.row and p.status != "accepted":  # another row now: its limit counts the player's other ones
            _limit_refused(camp, op, seat, full, [q for q in proposals(lines).values()
                                                  if q.id != p.id and q.player == p.player])
        t = trial(camp, op, seat, full, draw=True, leave_out=p.id,
                  seed=draw_seed(camp, p.id, len(p.rerolls) + 1) if seat.part else None)
        why = allowed[reason].label
        return Line(n=n, at=_now(), turn=turn, kind="rerolled", by=op_viewer.id, visibility=table_viewers(camp),
                    text=f"{p.title} rolled again ({why}{': ' + note if note else ''}): {said_once(t.outcome)}",
                    proposal=p.id, seat=p.seat, row=full if full != p.row else {}, faces=t.faces,
                    checks=t.checks, reason=reason, note=note)

    _write(camp, turn, make)
    return _fold_one(camp, turn, proposal)


def withdraw(camp: Campaign, viewer: Viewer, proposal: str) -> Proposal:
    """Take back a proposal not rolled yet (a rolled one stays: its face was seen)."""
    turn = camp.next_turn()

    def make(lines: list[Line], n: int) -> Line:
        p = proposals(lines).get(proposal)
        if p is None or p.player != viewer.id:
            raise InputError(f"no proposal {proposal!r} of yours this {camp.ruleset.turn_unit}")
        if p.rolled:
            raise RuleError("its die was rolled, so it stays; the GM decides on it")
        return Line(n=n, at=_now(), turn=turn, kind="withdrawn", by=viewer.id, visibility=own(viewer),
                    text=f"{p.title}: withdrawn", proposal=p.id, seat=p.seat)

    _write(camp, turn, make)
    return _fold_one(camp, turn, proposal)


def say(camp: Campaign, viewer: Viewer, text: str, *, to: str = "table") -> Line:
    """A line of talk in the feed: to the whole table (``table``) or to the GM only (``gm``)."""
    words = text.strip()
    if not words:
        raise InputError("say something")
    if len(words) > 2000:
        raise InputError(f"a line of talk is at most 2000 characters (this one {len(words)})")
    if to not in ("table", "gm"):
        raise InputError(f"to {to!r}: say it to the table or to the gm")
    turn = camp.next_turn()
    vis = table_viewers(camp) if to == "table" else own(viewer)
    who = "GM" if viewer.is_gm else viewer.id
    return _write(camp, turn, lambda lines, n: Line(n=n, at=_now(), turn=turn, kind="said", by=viewer.id,
                                                     visibility=vis, text=f"{who}: {words}"))


# ---- what the GM does --------------------------------------------------------------------------


def accept(camp: Campaign, proposal: str) -> Proposal:
    """The GM takes a proposal into the month (shared with the table); refused before it is rolled when
    it rolls dice."""
    turn = camp.next_turn()

    def make(lines: list[Line], n: int) -> Any:
        p = proposals(lines).get(proposal)
        if p is None:
            raise InputError(f"no proposal {proposal!r} this {camp.ruleset.turn_unit}")
        if p.status == "accepted":
            return _NOTHING
        if p.status == "withdrawn":
            raise RuleError("it was withdrawn")
        if not p.rolled and p.checks:
            raise RuleError(f"{p.title}: not rolled yet; the player rolls it first")
        if p.rows.startswith("@"):
            gm = _gm_step(camp, turn, p.step)
            if p.rows[1:] in gm.rolled or p.rows[1:] in gm.rolls:
                raise RuleError(f"{p.title}: the month already has the GM's roll of it; send this one back")
        else:  # the row must still fit after the rows the month has now (two Quell Unrests do not), and be there
            op = opening(camp, camp.viewer(p.player))  # the degrees it was rolled as (a Quell Unrest accepted
            try:                                       # before it may move its modifier, and so its degree)
                t = trial(camp, op, _seat(op, p.seat), p.row, faces=p.faces or None, leave_out=p.id)
            except KingdomlogError as exc:
                raise type(exc)(f"{p.title} does not fit the month as it stands: {exc}") from None
            moved = unfit(camp, turn, p, t) if _own_row(p) else ""
            if moved:
                raise RuleError(moved)
        result = f": {said_once(p.outcome)}" if p.outcome else ""
        return Line(n=n, at=_now(), turn=turn, kind="accepted", by="gm", visibility=table_viewers(camp),
                    text=f"{_player_name(camp, p.player)}'s {p.title}{result} — accepted", proposal=p.id,
                    seat=p.seat)

    with contextlib.suppress(_Nothing):
        _write(camp, turn, _raising(make))
    return _fold_one(camp, turn, proposal)


def accept_all(camp: Campaign) -> tuple[list[Proposal], list[tuple[Proposal, str]]]:
    """The GM accepts every proposal ready for it (rolled, or rolling no dice), in the order they were declared:
    (accepted, [(proposal, why not)] for those refused). One click for a table's worth of rows."""
    turn = camp.next_turn()
    done: list[Proposal] = []
    refused: list[tuple[Proposal, str]] = []
    for p in proposals(TableFile(camp.folder, turn).lines()).values():
        if p.status not in ("declared", "rolled") or (p.checks and not p.rolled):
            continue
        try:
            done.append(accept(camp, p.id))
        except KingdomlogError as exc:
            refused.append((p, str(exc)))
    return done, refused


def send_back(camp: Campaign, proposal: str, note: str) -> Proposal:
    """The GM sends a proposal back to its player with ``note`` (the player sees it; its faces stay)."""
    if not note.strip():
        raise InputError("say why it goes back (the player reads it)")
    turn = camp.next_turn()

    def make(lines: list[Line], n: int) -> Line:
        p = proposals(lines).get(proposal)
        if p is None:
            raise InputError(f"no proposal {proposal!r} this {camp.ruleset.turn_unit}")
        return Line(n=n, at=_now(), turn=turn, kind="returned", by="gm", visibility=f"{PLAYER_PREFIX}{p.player}",
                    text=f"{p.title}: sent back by the GM: {note.strip()}", proposal=p.id, seat=p.seat,
                    note=note.strip())

    _write(camp, turn, make)
    return _fold_one(camp, turn, proposal)


def committed(camp: Campaign, turn: int) -> None:
    """Say in ``turn``'s feed that the GM committed it (the table's next turn opens)."""
    unit = camp.ruleset.turn_unit
    _write(camp, turn, lambda lines, n: Line(n=n, at=_now(), turn=turn, kind="committed", by="gm",
                                             visibility=table_viewers(camp) if camp.players() else "public",
                                             text=f"The GM committed {unit} {turn}."))


def committed_if_played(camp: Campaign, turn: int) -> None:
    """``committed`` when ``turn`` was played at the table (its file exists); a failure to say so is not the
    commit's (the month is in the log): the feed then lacks the line, nothing else."""
    if TableFile(camp.folder, turn).path.exists():
        with contextlib.suppress(OSError, KingdomlogError):
            committed(camp, turn)


def _player_name(camp: Campaign, pid: str) -> str:
    return camp.player_name(pid)


def _fold_one(camp: Campaign, turn: int, pid: str) -> Proposal:
    got = proposals(TableFile(camp.folder, turn).lines()).get(pid)
    if got is None:
        raise InputError(f"no proposal {pid!r}")
    return got


class _Nothing(Exception):
    """Nothing to write (a second Roll, a second Accept): the call returns the proposal as it stands."""


_NOTHING: Any = object()


def _raising(make: Any) -> Any:
    def inner(lines: list[Line], n: int) -> Line:
        got = make(lines, n)
        if got is _NOTHING:
            raise _Nothing
        return got  # type: ignore[no-any-return]
    return inner


# ---- into the month ----------------------------------------------------------------------------


def accepted(camp: Campaign, turn: int) -> list[Proposal]:
    """The turn's accepted proposals, in the order the GM accepted them.

    While a proposal is checked or rolled again (``before_step``'s ``leave_out``) it is left out, and, when it is an
    accepted row of a list, so are the rows of that list accepted after it: it is checked at its place in the month
    (``merge`` puts it there), after the rows before it.
    """
    props = proposals(TableFile(camp.folder, turn).lines())
    gone = props.get(_LEAVING_OUT.get())
    got = [p for p in props.values() if p.status == "accepted" and (gone is None or p.id != gone.id)]
    if gone is not None and gone.status == "accepted" and _own_row(gone):
        got = [p for p in got if not (_own_row(p) and (p.step, p.rows) == (gone.step, gone.rows)
                                       and p.accepted_at > gone.accepted_at)]
    return sorted(got, key=lambda p: p.accepted_at)


def _own_row(p: Proposal) -> bool:
    """Whether ``p`` is a row of its own in its list (not one check of the GM's step, nor a part of a GM's row)."""
    return not p.rows.startswith("@") and filled(p.seat) is None


HELD_WAY = "re-roll it by GM ruling (with a note saying why) or send it back to its player, in the Table panel"
"""What the GM may do with a row rolled at the table that no longer stands in the month as it was rolled."""


def held_by(camp: Campaign, p: Proposal) -> str:
    """A proposal in words, as the month names the roll it holds: ``Maelis's Provide Care (Counselor)``."""
    return f"{_player_name(camp, p.player)}'s {p.title or 'row'}"


def unfit(camp: Campaign, turn: int, p: Proposal, t: Trial) -> str:
    """Why rolled proposal ``p`` does not stand in the month as it stands (``t``: its trial there with its faces
    typed), in words and never a roll key; "" when it stands as it was rolled: the same rolls, each with the outcome
    it was rolled as (a modifier moved by a row before it that leaves a success a success stands; the card says the
    numbers moved, ``views.sheet.cards.moved_checks``).

    The row's own check is said as it was rolled and as the same faces give it now; a follow-up roll (Pull Together)
    the month no longer makes, or makes anew, is named; so are the rows accepted before it in its list.
    """
    if not p.faces or (not t.pending and set(t.checks) == set(p.checks) and set(t.faces) == set(p.faces)
                       and all(same_outcome(c, t.checks[k], p.faces.get(k, [])) for k, c in p.checks.items())):
        return ""
    first = first_check(p.checks)
    if first not in p.faces:  # rolled without a check of its own (a bare roll): it stands or not as a whole
        return f"{held_by(camp, p)} does not roll in the month as it stands what it rolled at the table: {HELD_WAY}"

    def said(print_: Mapping[str, Any], key: str) -> str:
        got = faces_as(print_, key, p.faces.get(key, []))
        return outcome_words(print_, got) if got is not None else check_words(print_)

    def label(print_: Mapping[str, Any]) -> str:
        return str(print_.get("label") or "a roll").replace("-", " ")

    now = f"it is {said(t.checks[first], first)}" if first in t.checks else "it is not rolled"
    more: list[str] = []
    for k, was in p.checks.items():
        if k == first:
            continue
        if k not in t.checks:
            more.append(f"its {label(was)} ({said(was, k)}) is not rolled there")
        elif not same_outcome(was, t.checks[k], p.faces.get(k, [])):
            more.append(f"its {label(was)} is {said(t.checks[k], k)} there (rolled as {said(was, k)})")
    more += [f"it rolls {label(c)} there, not rolled at the table" for k, c in t.checks.items() if k not in p.checks]
    before = [held_by(camp, q) for q in accepted(camp, turn)
              if q.id != p.id and _own_row(q) and (q.step, q.rows) == (p.step, p.rows)
              and (p.status != "accepted" or q.accepted_at < p.accepted_at)]
    where = f" (after {', '.join(before)}, accepted before it)" if before else ""
    return (f"{held_by(camp, p)} was rolled as {said(p.checks[first], first)}; in the month as it stands{where} {now}"
            + (", and " + "; ".join(more) if more else "") + f": {HELD_WAY}")


def merge(camp: Campaign, plan: Plan, turn: int, state: State | None = None) -> Plan:
    """``plan`` with the turn's accepted proposals added to their steps, after the rows the GM's plan has.

    Each row's faces are typed under its place in the list (``Ruleset.row_key``), its re-rolls carried
    with their reasons and the faces they replaced, and the player recorded as the row's actor. A row of its own
    holds each check as it was rolled (a ``RollLock`` with ``by``): when the month as it stands computes one its
    faces give another degree under (a row accepted or a GM change before it moved its modifier), or no longer rolls
    it, the step is refused in words naming the row (``core.turn.held_words``), never folded with another degree
    than was rolled.
    """
    rows = accepted(camp, turn)
    if not rows:
        return plan
    rs = camp.ruleset
    steps = {k: v.model_copy(deep=True) for k, v in plan.steps.items()}
    for p in rows:
        sp = steps.setdefault(p.step, StepPlan())
        if p.rows.startswith("@"):  # a seat that rolled one check of the GM's step: its faces, unless the GM's
            key = p.rows[1:]        # plan has rolled that check itself (accept refuses that; the GM's stands)
            lock = sp.rolled.get(key)  # a sheet may keep the lock of the faces it was given: the same roll
            ours = lock is None or lock.typed == p.faces.get(key)
            if key not in sp.rolls and ours and p.faces.get(key):
                sp.rolls[key] = list(p.faces[key])
                for k, reason, note, before in p.rerolls:
                    sp.rerolls[k] = sp.rerolls.get(k, 0) + 1
                    sp.reroll_reasons.setdefault(k, []).append(Reroll(reason=reason, note=note or "at the table",
                                                                      before=before))
                sp.actors[key] = p.player
            continue
        have = sp.choices.get(p.rows)
        listed = list(have) if isinstance(have, list) else []
        index = len(listed) + 1
        part = filled(p.seat)
        if part is not None:  # the player's part of the GM's row (the General's orders of the GM's battle)
            name, index = part
            if index > len(listed) or not isinstance(listed[index - 1], Mapping):
                continue  # the GM removed the row: nothing to give a part of (accept refuses it)
            listed[index - 1] = rs.join_part(p.step, name.split("+"), copy.deepcopy(dict(listed[index - 1])),
                                             copy.deepcopy(p.row))
            sp.choices[p.rows] = listed
        else:
            sp.choices[p.rows] = [*listed, copy.deepcopy(p.row)]
        by = held_by(camp, p) if part is None else ""
        for key, faces in p.faces.items():
            k = rs.row_key(p.step, key, index)
            sp.rolls[k] = list(faces)
            if by and key in p.checks:  # held as rolled: the month refuses it in words if it computes it otherwise
                sp.rolled[k] = RollLock(check=dict(p.checks[key]), typed=list(faces), by=by, way=HELD_WAY)
        for key, reason, note, before in p.rerolls:
            k = rs.row_key(p.step, key, index)
            sp.rerolls[k] = sp.rerolls.get(k, 0) + 1
            sp.reroll_reasons.setdefault(k, []).append(Reroll(reason=reason, note=note or "at the table",
                                                              before=before))
        sp.actors[rs.row_part(p.step, index)] = p.player
    return plan.model_copy(update={"steps": steps})


__all__ = ["TABLE_DIR", "Before", "Line", "Opening", "Proposal", "TableFile", "Trial", "accept", "accept_all",
           "accepted", "before_step", "committed", "declare", "feed", "fill_part", "filled", "first_check", "gm_row",
           "held_by", "merge", "mine", "odds_text", "opening", "proposals", "reroll", "roll", "said_once", "say",
           "send_back", "table_viewers", "trial", "unfit", "unstep", "visible", "withdraw"]
