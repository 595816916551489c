"""The GM turn sheet's library (design §6): a draft turn edited through widgets, previewed, saved, committed.

The notebook ``notebooks/turn_sheet.py`` only calls this module; it holds no rules.

- ``open_session(folder)`` opens the campaign at the start of its next turn and restores
  the saved draft of that turn (``kingdomlog.app.drafts``), or starts one (a new dice
  seed, the players' submitted steps filled in).
- ``session.widgets()`` builds one widget group per step from the step's typed choices,
  with options computed from the state *before that step* in the current preview (so
  what an upstream step changes, a downstream step offers).
- ``session.update(values)`` reads the widgets back into the plan, previews it (the one
  route: ``Campaign.preview``), saves the draft when it changed, and says whether the
  widgets must be rebuilt (options, rows or dice keys changed). A step refused by the
  rules stops the preview; the steps after it are still computed from the state before
  it, marked as provisional, so the GM sees what they would do.
- ``commit(session, draft)`` appends the previewed turn once; ``undo(session)`` retracts
  the last turn and reopens its plan, with its dice, as the draft.

The sheet's dice have their moment (design §5; the draft's plan is ``dice = "on_roll"``): a
check's die is drawn when the GM presses its Roll (``session.roll``; ``roll_all``) or types the
faces of physical dice (``type_faces``), never when the page opens. A step waits at its first
check not rolled, showing the odds, and the steps after it wait too. A rolled check is locked to
the choices it was rolled with; ``reroll`` rolls it again for a reason the rules give or a GM
ruling (recorded in the log on commit). The page's buttons reach these through ``press``.

What a draft is made of (choices, seed, re-rolls, typed faces) is the same JSON plan
``kingdomlog turn --plan`` reads; the saved draft is what ``kingdomlog turn --dry-run``
plays when no plan is given.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kingdomlog.app import Campaign, pbp
from kingdomlog.app.campaign import TurnStart
from kingdomlog.app.drafts import Drafts, SavedDraft
from kingdomlog.app.submissions import submitted_steps
from kingdomlog.app.table import Proposal, TableFile
from kingdomlog.core.choices import ROLLED, FieldSpec
from kingdomlog.core.errors import ConflictError, InputError, KingdomlogError, RuleError
from kingdomlog.core.events import Draft, RecordedEvent
from kingdomlog.core.fold import is_live, last_live_turn, live_commits_of_turn, retracted_commits
from kingdomlog.core.memo import ByIdentity
from kingdomlog.core.ruleset import Breakdown, PendingRoll, RerollReason, Ruleset, State, Step, run_step
from kingdomlog.core.turn import (
    GM_RULING,
    Plan,
    Release,
    StepPlan,
    TurnPreview,
    step_gate,
    with_reroll,
)
from kingdomlog.core.viewers import GM_VIEWER
from kingdomlog.dice.checks import CheckSpec
from kingdomlog.dice.roller import KeyedRoller, Roll, new_seed
from kingdomlog.store.config import load_config
from kingdomlog.views import forms as sf
from kingdomlog.views.forms import DiceSlot, FieldError, StepForm
from kingdomlog.views.sheet import grid as sheet_grid
from kingdomlog.views.sheet import table as sheet_table
from kingdomlog.views.words import answer_words, dice_label

ENV_CAMPAIGN = "KINGDOMLOG_CAMPAIGN"


def campaign_folder(args: Mapping[str, Any], env: Mapping[str, str] | None = None) -> Path:
    """The campaign folder from ``--campaign`` (``mo.cli_args()``) or ``$KINGDOMLOG_CAMPAIGN``.

    Raises ``InputError`` saying how to pass it when neither is set.

    >>> campaign_folder({"campaign": "campaigns/demo"}, env={})
    PosixPath('campaigns/demo')
    >>> campaign_folder({}, env={"KINGDOMLOG_CAMPAIGN": "x"})
    PosixPath('x')
    """
    environ = os.environ if env is None else env
    raw = args.get("campaign") or environ.get(ENV_CAMPAIGN)
    if not raw or not isinstance(raw, str):
        raise InputError(
            "no campaign folder: run `kingdomlog gm DIR`, or `marimo edit notebooks/turn_sheet.py -- --campaign DIR`,"
            f" or set {ENV_CAMPAIGN}=DIR"
        )
    return Path(raw).expanduser()


# ---- the start of a turn -----------------------------------------------------------------------


@dataclass(frozen=True)
class SheetStart:
    """A campaign at the start of its next turn: what the sheet's widgets and previews are built from."""

    folder: Path
    camp: Campaign
    ruleset: Ruleset
    begin: TurnStart
    phases: tuple[Step, ...]
    submitted: Mapping[str, str] = field(default_factory=dict)
    """Step id -> the player whose submitted orders fill it."""
    submitted_steps: Mapping[str, StepPlan] = field(default_factory=dict)
    seed: str = ""
    """The dice seed ``load_start`` settled on (the loaded plan's, the one given, else a new one)."""
    plan: Plan | None = None
    """The loaded plan with the players' submitted steps filled in (None: nothing loaded)."""
    problems: Mapping[str, str] = field(default_factory=dict)
    """Steps whose choices could not be listed in the start state, with the reason."""
    answered: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    """Step id -> the players' answers to its questions this turn, in words: (who, what they answered). An answer
    fills the step's choices where the GM's draft gives no value (``submissions.with_submissions``)."""

    @property
    def turn(self) -> int:
        return self.begin.turn

    @property
    def start_seq(self) -> int:
        return self.begin.start_seq

    @property
    def state(self) -> State:
        return self.begin.state

    @property
    def campaign(self) -> str:
        return self.camp.id

    @property
    def name(self) -> str:
        return self.camp.config.name

    @property
    def turn_unit(self) -> str:
        return self.ruleset.turn_unit

    @property
    def when(self) -> str:
        """``month 14`` (``founding`` for turn 0)."""
        return "founding" if self.turn == 0 else f"{self.turn_unit} {self.turn}"


def _submitted(camp: Campaign, begin: TurnStart) -> tuple[dict[str, str], dict[str, StepPlan]]:
    """Step id -> the player whose submitted orders fill it, and step id -> those orders (``submitted_steps``)."""
    got = submitted_steps(camp, begin.turn, begin.state)
    return {sid: who for sid, (who, _) in got.items()}, {sid: sp for sid, (_, sp) in got.items()}


def load_start(folder: Path, plan: Plan | None = None, *, seed: str | None = None,
               check_forms: bool = True, camp: Campaign | None = None) -> SheetStart:
    """Open ``folder`` and describe its next turn (state, steps, the players' submitted steps).

    ``plan`` (a loaded draft) must be for that turn (else ``InputError``); the start's
    ``plan`` is it with the submitted steps filled in (None when there is neither), its
    ``seed`` the plan's, else ``seed``, else a new one. ``camp``: the campaign as this process
    already holds it (``reopened``), else it is opened.
    """
    camp = camp if camp is not None else Campaign.open(folder)
    begin = camp.turn_start()
    if plan is not None and plan.turn is not None and plan.turn != begin.turn:
        raise InputError(f"the loaded plan is for turn {plan.turn}, but the campaign's next turn is {begin.turn}")
    rs = camp.ruleset
    owners, steps = _submitted(camp, begin)
    phases = tuple(rs.phases_for(begin.state, begin.turn))
    problems: dict[str, str] = {}
    for p in phases if check_forms else ():  # the sheet's session lists each step's choices itself
        try:
            rs.choices(begin.state, begin.turn, p.id)
        except KingdomlogError as exc:
            problems[p.id] = str(exc)
    use_seed = (plan.seed if plan is not None else None) or seed or new_seed()
    merged = None
    if plan is not None or steps:
        base = plan if plan is not None else Plan(turn=begin.turn, seed=use_seed)
        merged = camp.with_submissions(base.model_copy(update={"seed": use_seed}), state=begin.state)
    return SheetStart(folder=Path(folder), camp=camp, ruleset=rs, begin=begin, phases=phases, submitted=owners,
                      submitted_steps=steps, seed=use_seed, plan=merged, problems=problems,
                      answered=_answered(camp, begin.turn, begin.state))


def _answered(camp: Campaign, turn: int, state: State) -> dict[str, tuple[tuple[str, str], ...]]:
    """Step id -> each answered question of ``turn`` posed at it: (the player by name, "<its kind>: <the
    answer>")."""
    out: dict[str, list[tuple[str, str]]] = {}
    for q in pbp.questions(camp, GM_VIEWER, turn):
        if q.answered:
            words = f"{q.kind.replace('_', ' ')}: {answer_words(q, q.answer)}" + (" (the default stood)"
                                                                                 if q.by_default else "")
            out.setdefault(q.step, []).append((camp.player_name(q.to, state), words))
    return {k: tuple(v) for k, v in out.items()}


# ---- one step of a draft as the sheet shows it ---------------------------------------------------


@dataclass
class Card:
    """One step of the draft: the state before it, what it did (or why it was refused), and its form."""

    index: int
    step: Step
    before: State
    after: State | None
    choices: dict[str, Any]
    rolls: list[Roll]
    checks: dict[str, CheckSpec]
    drafts: list[Draft]
    breakdowns: list[Breakdown]
    error: str | None = None
    provisional: bool = False
    """Computed after an earlier step was refused, from the state before that step."""
    not_computed: str | None = None
    form: StepForm | None = None
    form_problem: str | None = None
    pending: PendingRoll | None = None
    """The roll this step waits for (not drawn): its check's odds and a Roll button are shown."""
    waiting: int | None = None
    """The index of the earlier step whose roll this one waits for (nothing of it is computed yet)."""
    placed: list[sheet_table.Placed] = field(default_factory=list)
    """The rows of this step the GM accepted at the table (the players' own: shown as theirs, not in the widgets)."""

    @property
    def id(self) -> str:
        return self.step.id

    @property
    def rule(self) -> str | None:
        """The rule a refusal names (``(rule: §4.2)`` in the message)."""
        import re

        m = re.search(r"\(rule: ([^)]+)\)", self.error or "")
        return m.group(1) if m else None

    def signature(self) -> tuple[Any, ...]:
        """What changes when this step's outcome changes (for highlighting the last edit)."""
        return (self.error, tuple((r.key, r.faces) for r in self.rolls),
                tuple((d.type, d.payload.model_dump_json()) for d in self.drafts), self.provisional,
                self.pending.key if self.pending is not None else None, self.waiting is not None)


@dataclass
class SheetDraft:
    """The draft as last computed: the plan, its preview, one card per step and the problems found reading it."""

    plan: Plan
    preview: TurnPreview | None
    cards: list[Card]
    problem: str | None = None
    field_errors: dict[str, list[FieldError]] = field(default_factory=dict)
    restructure: bool = False
    changed_steps: frozenset[str] = frozenset()
    """Steps whose outcome the last edit changed."""
    previous: dict[str, Card] = field(default_factory=dict)
    """The cards before the last edit, by step (for "what changed")."""

    @property
    def ok(self) -> bool:
        return self.preview is not None and self.preview.ok and not self.problem

    @property
    def committable(self) -> bool:
        has_events = self.preview is not None and bool(self.preview.drafts)
        return self.ok and has_events and not any(self.field_errors.values())

    @property
    def waiting(self) -> Card | None:
        """The step waiting for its roll (the turn stops there), if any."""
        return next((c for c in self.cards if c.pending is not None and not c.provisional), None)

    @property
    def refused(self) -> Card | None:
        for c in self.cards:
            if c.error and not c.provisional:
                return c
        return None

    def card(self, step: str) -> Card | None:
        for c in self.cards:
            if c.id == step:
                return c
        return None


def _cards(start: SheetStart, plan: Plan, tp: TurnPreview, accepted: Sequence[Proposal] = ()) -> list[Card]:
    """One card per step: the preview's steps, then the later ones.

    After a step waiting for its roll, the later steps wait too (nothing of them is computed: their
    rolls would come before it). After a refused step they are computed provisionally from the state
    before it, their dice as the plan has them (in an ``on_roll`` plan a roll not rolled stays so).
    """
    rs = start.ruleset
    cards: list[Card] = []
    before = start.state
    seq = tp.start_seq
    for i, sp in enumerate(tp.steps):
        cards.append(Card(i, sp.phase, before, sp.state_after, dict(sp.choices), list(sp.rolls), dict(sp.checks),
                          list(sp.drafts), list(sp.breakdown), sp.error, pending=sp.pending))
        seq += len(sp.drafts)
        if sp.state_after is not None:
            before = sp.state_after
    done = {sp.phase.id for sp in tp.steps}
    rest = [p for p in start.phases if p.id not in done]
    if not rest:
        return _place(start, cards, accepted)
    merged = start.camp.with_submissions(plan, state=start.state)
    if tp.pending is not None:
        at = len(tp.steps) - 1
        for p in rest:
            sp_plan = merged.steps.get(p.id, StepPlan())
            cards.append(Card(len(cards), p, before, None, dict(sp_plan.choices), [], {}, [], [], waiting=at))
        return _place(start, cards, accepted)
    # A step was refused: show what the later steps would do from the state before it (skipping it).
    roller = KeyedRoller(plan.seed or tp.seed, campaign=start.campaign, turn=start.turn)
    for p in rest:
        sp_plan = merged.steps.get(p.id, StepPlan())
        dice = roller.for_step(p.id, manual=sp_plan.rolls, nonces=sp_plan.rerolls)
        gate = step_gate(rs, before, plan, p.id, sp_plan)
        i = len(cards)
        try:
            res = run_step(rs, before, p, sp_plan.choices, dice, campaign=start.campaign, turn=start.turn,
                           start_seq=seq, gate=gate,
                           rerolled={k: [r.reason for r in v] for k, v in sp_plan.reroll_reasons.items()})
        except (RuleError, InputError) as exc:
            cards.append(Card(i, p, before, None, dict(sp_plan.choices), list(dice.rolls), {}, [], [], str(exc),
                              provisional=True))
            continue
        except Exception as exc:  # a rule that cannot run on a state it was never meant to see
            cards.append(Card(i, p, before, None, dict(sp_plan.choices), list(dice.rolls), {}, [], [],
                              provisional=True, not_computed=f"cannot be shown before the refused step is fixed"
                                                             f" ({type(exc).__name__})"))
            continue
        if res.pending is not None:  # it waits for a roll, which waits for the refused step
            cards.append(Card(i, p, before, None, dict(sp_plan.choices), list(dice.rolls), dict(res.checks), [],
                              list(res.breakdowns), provisional=True, pending=res.pending))
            continue
        cards.append(Card(i, p, before, res.state, dict(sp_plan.choices), list(dice.rolls), dict(res.checks),
                          list(res.drafts), list(res.breakdowns), provisional=True))
        seq += len(res.drafts)
        before = res.state
    return _place(start, cards, accepted)


def _place(start: SheetStart, cards: list[Card], accepted: Sequence[Proposal]) -> list[Card]:
    """``cards`` with the rows accepted at the table marked on their steps' cards (``Card.placed``)."""
    if accepted:
        where = sheet_table.placed(start.camp, accepted, {c.id: c.choices for c in cards})
        for c in cards:
            c.placed = where.get(c.id, [])
    return cards


def _keep(plan: Plan, tp: TurnPreview, only: set[str], skip: Mapping[str, frozenset[str]]) -> Plan:
    """``keep_released(plan, tp, only=only)`` without the rolls in ``skip`` (by step: the table's rows, whose
    faces the players rolled: they are theirs, placed by the merge on every preview, never the GM's plan's)."""
    steps = dict(plan.steps)
    for sid, locks in tp.released.items():
        mine = {k: v for k, v in locks.items() if k not in skip.get(sid, frozenset())}
        if sid not in only or not mine:
            continue
        sp = steps.get(sid, StepPlan())
        steps[sid] = sp.model_copy(update={"rolled": {**sp.rolled, **mine}})
    return plan.model_copy(update={"steps": steps}) if steps != plan.steps else plan


# ---- the session --------------------------------------------------------------------------------


_GRID_DUMPS: ByIdentity[Any, dict[str, Any] | None] = ByIdentity(limit=65)


_GRID_TYPES: dict[type, bool] = {}


def _holds_grid(cls: Any, seen: frozenset[type] = frozenset()) -> bool:
    """Whether a state model (or a model it nests) has a ``blocks`` field: only then is a dump worth it."""
    if not isinstance(cls, type) or not hasattr(cls, "model_fields") or cls in seen:
        return False
    if cls in _GRID_TYPES:
        return _GRID_TYPES[cls]
    found = "blocks" in cls.model_fields
    todo = [f.annotation for f in cls.model_fields.values()]
    while todo and not found:
        t = todo.pop()
        todo.extend(typing.get_args(t))
        found = _holds_grid(t, seen | {cls})
    _GRID_TYPES[cls] = found
    return found


def _grid_dump(state: Any) -> dict[str, Any] | None:
    """The state as JSON when it holds an urban grid (for the block and lot pickers), else None; remembered."""
    if not _holds_grid(type(state)):
        return None
    def make(state: Any) -> dict[str, Any] | None:
        dump = state.model_dump(mode="json") if hasattr(state, "model_dump") else None
        return dump if dump is not None and sheet_grid.grids(dump) else None

    return _GRID_DUMPS.get(state, make)


_STATE_DIGESTS: ByIdentity[Any, str | None] = ByIdentity(limit=65)
_SPECS: dict[tuple[Any, ...], tuple[Ruleset, tuple[FieldSpec, ...]]] = {}
_SPECS_LIMIT = 256
"""At most this many forms kept (a pf2e open lists 17, ~210 KB pickled): forgotten all at once beyond."""


def _state_digest(state: Any) -> str | None:
    """The sha256 of a state's JSON, remembered per state object; None for a state that has no JSON dump."""
    def make(state: Any) -> str | None:
        dump = getattr(state, "model_dump_json", None)
        return hashlib.sha256(dump().encode()).hexdigest() if dump is not None else None

    return _STATE_DIGESTS.get(state, make)


def _specs_key(rs: Ruleset, state: Any, turn: int, step: str, values: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """What a step's form depends on: the ruleset, the state before the step (by its content), the turn, the step
    and the values given; None when one of them cannot be said exactly (no cache then)."""
    digest = _state_digest(state)
    if digest is None:
        return None
    try:
        given = json.dumps(values, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError):
        return None
    return (id(rs), f"{type(state).__module__}.{type(state).__qualname__}", digest, turn, step, given)


def _specs(start: SheetStart, card: Card, values: Mapping[str, Any]) -> tuple[tuple[FieldSpec, ...], str | None]:
    """The form of ``card``'s step, as the ruleset lists it for the state before it and ``values``.

    A ruleset's ``choices`` is a pure function of (ruleset, state, turn, step, values) and its specs are frozen,
    so they are kept by that key (the state by its JSON's digest), across sessions: a sheet opened again on the
    same log head (a reload, another tab) lists none of its forms again; most of an open was listing them. A
    step that cannot be listed is not kept (its words are made each time).
    """
    rs = start.ruleset
    key = _specs_key(rs, card.before, start.turn, card.id, values)
    hit = _SPECS.get(key) if key is not None else None
    if hit is not None and hit[0] is rs:
        return hit[1], None
    try:
        specs = tuple(rs.choices(card.before, start.turn, card.id, values))
        if key is not None:
            if len(_SPECS) >= _SPECS_LIMIT:
                _SPECS.clear()
            _SPECS[key] = (rs, specs)
        return specs, None
    except KingdomlogError as exc:
        return (), str(exc)
    except Exception as exc:  # a vocabulary that cannot read a provisional state
        return (), f"the choices of this step cannot be listed now ({type(exc).__name__}: {exc})"


def _is_picker(elem: Any) -> bool:
    from kingdomlog.views.hexpicker import is_picker

    return is_picker(elem)


_MAPS: dict[int, tuple[Any, Any, str]] = {}


def _hex_map(rs: Ruleset, state: State, specs: tuple[FieldSpec, ...]) -> tuple[Any, str]:
    """The GM's map of ``state`` and a digest of its drawing when a field of ``specs`` picks hexes, else ``(None, "")``.

    A ruleset without a hex map (or whose map cannot be drawn from a provisional state) gives none: the fields
    stay plain selects. Remembered per state (steps that do not change the map share it).
    """
    if not sf.contains_hex_field(specs):
        return None, ""
    hit = _MAPS.get(id(state))
    if hit is None or hit[0] is not state:
        from kingdomlog.core.viewers import GM_VIEWER
        from kingdomlog.views.player.maps import hex_map_svg

        try:
            m = rs.map(state, GM_VIEWER)
        except Exception:  # a map hook that cannot read a provisional state: no map, the selects stay
            m = None
        placed = m is not None and bool(m.placed_hexes())
        key = hashlib.sha1(hex_map_svg(m).encode()).hexdigest()[:16] if placed and m is not None else ""
        if len(_MAPS) > 64:
            _MAPS.clear()
        hit = (state, m if placed else None, key)
        _MAPS[id(state)] = hit
    return hit[1], hit[2]


class SheetSession:
    """One GM's sheet on one turn: the draft plan, the widgets' forms, the latest preview. Not shared.

    Created by ``open_session``; the notebook keeps one per browser session and calls
    ``widgets()`` when ``update`` says the widgets must be rebuilt.
    """

    def __init__(self, start: SheetStart, plan: Plan, *, message: str | None = None,
                 after_commit: bool = False, origin: str = "new") -> None:
        self.start = start
        self.drafts = Drafts(start.folder)
        self.plan = plan
        self.message = message
        self.origin = origin
        self.after_commit = after_commit
        self.forms: dict[str, StepForm] = {}
        self.built: dict[str, StepForm] = {}
        """The forms the current widgets were built from (the cards lay out those widgets)."""
        self.initial: dict[str, Any] = {}
        self._fresh = False
        self.json_mode: dict[str, bool] = {}
        self.json_errors: dict[str, list[FieldError]] = {}
        self.draft: SheetDraft | None = None
        self.done = False
        """True once this session committed or undid a turn (later clicks on it do nothing)."""
        self.saved_at: float | None = None
        self._ready_shown: bool | None = None
        self.last_raw: dict[str, Any] = {}
        self._cache: dict[str, SheetDraft] = {}
        self._forms_cache: dict[Any, tuple[StepForm, str | None]] = {}
        self._shown_pickers: list[Any] = []
        self.problems: dict[str, str | None] = {}
        """Each step's form problem as its widgets were last made (a card shows it beside them)."""
        self.live: Any = None
        """The live parts of the page now drawn (views.sheet.live)."""
        self.late: Any = None
        """The builds of widgets a late change may still arrive for (views.sheet.late)."""
        self.page_key: tuple[Any, ...] | None = None
        """What the page now drawn shows besides its widgets and live parts (``sheet_cards.page_key``)."""
        self.lefts_to_come: tuple[Any, SheetDraft] | None = None
        """The live parts and draft of the page drawn with only its first cards' widgets (``views.sheet.live.rest``
        sends the others')."""
        self.pressed = 0
        """The count of the last button press on the page taken (``press``): each is taken once."""
        self.notices: dict[str, str] = {}
        """What the last press said about a step (a re-roll not made, faces that do not read), by step."""
        self.table: Any = None
        """The Table panel: the players' proposals and the GM's decisions on them (views.sheet.table)."""
        self.keep_from: Mapping[str, Any] | None = None
        """The widgets of the page the session before drew (after a commit): its first build keeps each one that
        shows what its own would (``sf.keep_same``), then forgets them."""
        self.kept_widgets = 0
        """How many widgets the first build kept from the page before (for tests and benchmarks)."""
        self.draft = self._compute(plan)
        self.plan = self.draft.plan
        self.refresh_forms(self.draft)

    # ---- what the widgets show ------------------------------------------------------------

    def display(self, step: str) -> StepPlan:
        """The plan of ``step`` as its widgets show it: the GM's draft, else the submitted orders, else defaults."""
        return self.plan.steps.get(step) or self.start.submitted_steps.get(step) or StepPlan()

    def _form(self, card: Card, shown: StepPlan) -> StepForm:
        faces = {r.key: list(r.faces) for r in card.rolls}  # those the card shows: a drawn event's either/ors
        specs, problem = _specs(self.start, card, {**shown.choices, ROLLED: faces} if faces else shown.choices)
        specs = sheet_grid.with_grid_pickers(specs, shown.choices, _grid_dump(card.before))
        card.form_problem = problem
        rolled = {r.key: r for r in card.rolls}
        slots: tuple[DiceSlot, ...] = ()
        extra: dict[str, Any] = {}
        if not self.on_roll:  # else the dice are rolled and typed on the card's right side (``press``)
            slots = tuple(DiceSlot(k, r.notation, shown.rerolls.get(k, 0),
                                   " ".join(str(f) for f in shown.rolls[k]) if k in shown.rolls else "",
                                   dice_label(k, r.notation, card.checks, self.start.camp.ruleset))
                          for k, r in rolled.items())
            extra = {k: {"faces": shown.rolls.get(k), "nonce": shown.rerolls.get(k, 0)}
                     for k in {*shown.rolls, *shown.rerolls} if k not in rolled and shown.rolls.get(k)}
        mode = self.json_mode.get(card.id, False)
        hexmap, map_key = _hex_map(self.start.ruleset, card.before, specs)
        text = sf.step_json(shown.model_copy(update={"rolled": {}, "reroll_reasons": {}})) if mode else ""
        return StepForm(card.id, specs, dict(shown.choices), slots, mode, text, extra, hexmap, map_key)

    @property
    def on_roll(self) -> bool:
        """Whether the draft's dice wait for Roll (the sheet's own drafts do; design §5)."""
        return self.plan.dice == "on_roll"

    def refresh_forms(self, draft: SheetDraft | None = None) -> bool:
        """Recompute every step's form from ``draft`` (default: the latest); True when the widgets must be rebuilt.

        A step's form depends on the state before it, so on the plans of the steps before
        it: forms are cached by that prefix and the step's own plan, and only recomputed
        when one of them changed. Run it after the cards are shown: an edit's outcome does
        not wait for it.
        """
        draft = draft or self.draft
        if draft is None:
            return False
        changed = False
        prefix: list[str] = [self.plan.seed or ""]
        for card in draft.cards:
            shown = self.display(card.id)
            own = shown.model_dump_json()
            dice = () if self.on_roll else tuple((r.key, r.notation) for r in card.rolls)
            key = (card.id, tuple(prefix), own, self.json_mode.get(card.id, False), dice, card.provisional)
            hit = self._forms_cache.get(key)
            if hit is None:
                hit = (self._form(card, shown), card.form_problem)
                self._forms_cache[key] = hit
            form, card.form_problem = hit
            self.problems[card.id] = card.form_problem
            card.form = form
            prefix.append(own)
            built = self.built.get(card.id)
            if built is None or sf.form_key(built) != sf.form_key(form):
                changed = True
            self.forms[card.id] = form
        if len(self._forms_cache) > 400:
            self._forms_cache.clear()
        return changed

    def widgets(self, on_change: Any = None) -> Any:
        """One flat ``mo.ui.dictionary`` of every step's widgets, keyed by path (bind it to a global).

        Read it back with ``update(forms.value)``; lay it out through ``sf.View(forms)``. ``on_change`` is
        the dictionary's (views.sheet.late: a change that arrives after the widgets were rebuilt).
        """
        with sf.fresh_ui_ids():  # never an id an earlier build gave another widget
            return self._build_widgets(on_change)

    def _build_widgets(self, on_change: Any = None) -> Any:
        tree = {}
        for p in self.start.phases:
            form = self.forms.get(p.id)
            if form is None:
                continue
            tree[p.id] = sf.step_widgets(form)
        self.built = dict(self.forms)
        self._fresh = True  # the next update() reads the values these widgets start with
        flat, self.kept_widgets = sf.keep_same(sf.flatten(tree), self.keep_from)
        self.keep_from = None
        pickers = [(key, e) for key, e in flat.items() if _is_picker(e)]
        for key, elem in pickers:  # a hex picker: its map stays open or folded by its key
            elem.widget.fold_key = key
        forms = sf.dictionary(flat, on_change=on_change)  # the widgets themselves, not copies
        # A widget lives until it is closed (ipywidgets keeps every one): close those of the build before (no
        # longer shown once the cards show these), and any the dictionary copied (never shown).
        shown = [e for e in forms.elements.values() if _is_picker(e)]
        for old in [*(e for _, e in pickers if not any(e is n for n in shown)), *self._shown_pickers]:
            old.widget.close()
        self._shown_pickers = shown
        return forms

    # ---- reading the widgets ----------------------------------------------------------------

    def update(self, flat: Mapping[str, Any], *, save: bool = True, press: Mapping[str, Any] | None = None
               ) -> SheetDraft:
        """Read the widgets' values (``forms.value``), take a button press of the page (``press``, once), preview
        the new plan, save it (unless ``save`` is False: the notebook saves after the cards are shown, ``save()``).

        Only the steps whose widgets changed since the last call are read again. Whether
        the widgets must then be rebuilt (options, rows, dice keys changed) is
        ``refresh_forms``'s answer.
        """
        values = sf.unflatten(flat)
        if self._fresh and flat:  # (a press alone, from code, reads no widget)
            self.initial = dict(values)
            self.last_raw = dict(values)
            self._fresh = False
        steps = dict(self.plan.steps)
        errors: dict[str, list[FieldError]] = dict(self.draft.field_errors) if self.draft is not None else {}
        for p in self.start.phases:
            form = self.built.get(p.id) or self.forms.get(p.id)
            raw = values.get(p.id)
            if form is None or raw is None or raw == self.last_raw.get(p.id):
                continue
            self.last_raw[p.id] = raw
            errors.pop(p.id, None)
            if p.id not in self.plan.steps and raw == self.initial.get(p.id):
                continue  # never touched: the step keeps its submitted orders or its defaults
            shown = self.display(p.id)
            sp, read = sf.read_step(form, raw, shown)
            if bool(raw.get("j")) != form.json_mode:
                self.json_mode[p.id] = bool(raw.get("j"))
            if read.errors:
                errors[p.id] = read.errors
            if not form.json_mode:
                specs, _ = _specs(self.start, self._card_of(p.id), sp.choices)
                settled = sf.settle(specs or form.specs, sp.choices, shown.choices)
                if settled != sp.choices:
                    sp = sp.model_copy(update={"choices": settled})
            if self.on_roll:  # the dice are the card's (rolled, typed, re-rolled there): the widgets keep them
                keep = {"rolled": shown.rolled, "reroll_reasons": shown.reroll_reasons}
                if not form.json_mode:
                    keep.update(rolls=shown.rolls, rerolls=shown.rerolls)
                sp = sp.model_copy(update=keep)
            if sp != shown or p.id in steps:
                steps[p.id] = sp
        plan = self.plan.model_copy(update={"steps": steps})
        previous = self.draft
        taken = self._take(press)
        if taken is not None:
            self.notices.clear()
            draft = self._pressed(plan, taken)
        else:
            draft = self._compute(plan)
        plan = draft.plan
        draft.field_errors = errors
        if previous is not None and plan != previous.plan:
            draft.previous = {c.id: c for c in previous.cards}
            draft.changed_steps = frozenset(c.id for c in draft.cards
                                            if c.id not in draft.previous
                                            or draft.previous[c.id].signature() != c.signature())
        elif previous is not None:
            draft.previous = previous.previous
            draft.changed_steps = previous.changed_steps
        for card in draft.cards:  # until refresh_forms runs, a card shows the widgets it has
            card.form = self.built.get(card.id) or card.form
            card.form_problem = self.problems.get(card.id, card.form_problem)
        self.plan = plan
        self.draft = draft
        if save:
            self.save()
        return draft

    def ready_changed(self) -> bool:
        """Whether the draft's committable flag differs from the one last reported (then remembered)."""
        now = self.draft.committable if self.draft is not None else False
        if now == self._ready_shown:
            return False
        self._ready_shown = now
        return True

    def _card_of(self, step: str) -> Card:
        assert self.draft is not None
        card = self.draft.card(step)
        assert card is not None
        return card

    def _compute(self, plan: Plan, release: Release = None) -> SheetDraft:
        """Preview ``plan`` (rolling ``release`` now); the draft's plan keeps the rolls released (typed faces too).

        The preview holds the rows accepted at the table (``Campaign.preview`` merges them): it is kept by
        the plan and those rows (``views.sheet.table.accepted_mark``), and the faces the players rolled
        stay theirs (never kept in the GM's plan, where a row of the GM's would take them once rows move).
        """
        camp, tf = self.start.camp, TableFile(self.start.folder, self.start.turn)
        for _ in range(3):  # the table's file read once for the mark and once by the merge: the same file
            seen = tf.version()
            mark, accepted = sheet_table.accepted_mark(camp, self.start.turn)
            key = f"{mark}|{plan.model_dump_json()}"
            hit = self._cache.get(key) if release is None else None
            if hit is not None:
                return SheetDraft(hit.plan, hit.preview, hit.cards, hit.problem)
            try:
                tp = camp.preview(plan, start=self.start.begin, release=release)
            except KingdomlogError as exc:
                cards = [Card(i, p, self.start.state, None, {}, [], {}, [], [], not_computed=str(exc))
                         for i, p in enumerate(self.start.phases)]
                return SheetDraft(plan, None, cards, str(exc))
            if tf.version() == seen:
                break
        where = sheet_table.placed(camp, accepted, {sp.phase.id: sp.choices for sp in tp.steps})
        skip = {sid: frozenset().union(*(pl.typed for pl in rows)) for sid, rows in where.items()}
        mine = set(plan.steps) | {s for s in tp.released if s not in self.start.submitted_steps}
        kept = _keep(plan, tp, mine, skip)  # a player's submitted step keeps its typed faces instead
        out = SheetDraft(kept, tp, _cards(self.start, kept, tp, accepted))
        self._cache.clear()  # only the latest plan: a rebuild of the widgets reads it back unchanged
        self._cache[f"{mark}|{kept.model_dump_json()}"] = out
        return out

    # ---- the dice: Roll, Roll all, typed faces, Re-roll ------------------------------------------

    def roll(self, step: str, key: str) -> SheetDraft:
        """Press Roll on ``key`` of ``step`` (the roll it waits for): drawn now, the preview goes on."""
        return self.update({}, press={"n": self.pressed + 1, "act": "roll", "step": step, "key": key})

    def roll_all(self) -> SheetDraft:
        """Roll every check the turn reaches, in order (the GM who wants every die at once)."""
        return self.update({}, press={"n": self.pressed + 1, "act": "roll_all"})

    def type_faces(self, step: str, key: str, faces: str) -> SheetDraft:
        """The faces of physical dice for the roll ``step`` waits for (``"14"``, ``"4 2"``): they count as rolled."""
        return self.update({}, press={"n": self.pressed + 1, "act": "faces", "step": step, "key": key,
                                      "faces": faces})

    def reroll(self, step: str, key: str, reason: str, note: str = "", faces: str = "") -> SheetDraft:
        """Roll ``key`` of ``step`` again for ``reason`` (a ``RerollReason`` id or ``gm`` with ``note``)."""
        return self.update({}, press={"n": self.pressed + 1, "act": "reroll", "step": step, "key": key,
                                      "reason": reason, "note": note, "faces": faces})

    def _take(self, press: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
        """The press to act on: the page's ``{"press": {...}}`` (or the press itself) when its count is new."""
        if not press:
            return None
        got = press.get("press", press)
        if not isinstance(got, Mapping):
            return None
        n = got.get("n")
        if not isinstance(n, int) or isinstance(n, bool) or n <= self.pressed or self.done:
            return None
        self.pressed = n
        return dict(got)

    def _pressed(self, plan: Plan, got: Mapping[str, Any]) -> SheetDraft:
        """Act on one press of a dice button of the page (``act``: roll, roll_all, faces, reroll)."""
        act, step, key = got.get("act"), str(got.get("step") or ""), str(got.get("key") or "")
        if act == "roll_all":
            return self._compute(plan, "all")
        card = self.draft.card(step) if self.draft is not None else None
        if card is None:
            return self._compute(plan)
        if act == "roll":
            if card.pending is None or card.pending.key != key or card.provisional:
                return self._compute(plan)  # a second click, or on a card that no longer waits for it
            return self._compute(plan, {step: [key]})
        if act == "faces":
            return self._faces(plan, card, key, str(got.get("faces") or ""))
        if act == "reroll":
            sp = plan.steps.get(step)
            if str(got.get("nonce", "")) not in ("", str(sp.rerolls.get(key, 0) if sp is not None else 0)):
                return self._compute(plan)  # pressed on a roll that was re-rolled since: once is enough
            return self._reroll(plan, card, key, str(got.get("reason") or ""), str(got.get("note") or ""),
                                str(got.get("faces") or ""))
        return self._compute(plan)

    def _faces(self, plan: Plan, card: Card, key: str, text: str) -> SheetDraft:
        """Physical dice typed for the roll ``card`` waits for: they count as rolled."""
        if card.pending is None or card.pending.key != key or card.provisional:
            return self._compute(plan)
        try:
            faces = sf.parse_faces(text)
        except InputError as exc:
            self.notices[card.id] = str(exc)
            return self._compute(plan)
        if not faces:
            self.notices[card.id] = "Type the faces of your dice (e.g. 14), or press Roll."
            return self._compute(plan)
        sp = plan.steps.get(card.id) or self.display(card.id)
        sp = sp.model_copy(update={"rolls": {**sp.rolls, key: faces}})
        return self._compute(plan.model_copy(update={"steps": {**plan.steps, card.id: sp}}))

    def reroll_reasons(self, card: Card, key: str) -> list[RerollReason]:
        """The re-rolls ``key`` of ``card`` may have: those its rules give, then a GM ruling."""
        try:
            given = list(self.start.ruleset.reroll_reasons(card.before, card.id, key, card.checks.get(key)))
        except Exception:  # a hook that cannot read this state: the GM ruling stays
            given = []
        return [*given, GM_RULING]

    def _reroll(self, plan: Plan, card: Card, key: str, reason: str, note: str, text: str) -> SheetDraft:
        """Roll ``key`` of ``card`` again for ``reason``: a new nonce recorded with its reason, rolled now.

        Not made (the plan unchanged, the card says why) for a reason not offered, a GM ruling without a
        note, or when the step's rules refuse it before the new die is drawn (pf2e: no Fame point left).
        """
        sp = plan.steps.get(card.id) or self.display(card.id)
        if key not in sp.rolled:
            return self._compute(plan)
        offered = {r.id for r in self.reroll_reasons(card, key)}
        if reason not in offered:
            self.notices[card.id] = f"Not re-rolled: choose why it is rolled again ({', '.join(sorted(offered))})."
            return self._compute(plan)
        if reason == GM_RULING.id and not note.strip():
            self.notices[card.id] = "Not re-rolled: a GM ruling needs a note saying why."
            return self._compute(plan)
        try:
            faces = sf.parse_faces(text) or None
        except InputError as exc:
            self.notices[card.id] = f"Not re-rolled: {exc}"
            return self._compute(plan)
        shown = next((r for r in card.rolls if r.key == key), None)
        lock = sp.rolled[key]
        if shown is not None:
            before = list(shown.faces)
        elif lock.typed is not None:
            before = list(lock.typed)
        else:  # a roll the step no longer makes (taken back): the faces it showed, released when it was rolled
            roller = KeyedRoller(plan.seed or "", campaign=self.start.campaign, turn=self.start.turn)
            before = list(roller.for_step(card.id).faces_at(key, str(lock.check.get("notation")),
                                                            sp.rerolls.get(key, 0)))
        again = with_reroll(plan, card.id, key, reason, note=note.strip(), before=before, faces=faces, base=sp)
        draft = self._compute(again, {card.id: [key]})
        new = draft.card(card.id)
        nonce = again.steps[card.id].rerolls[key]
        drawn = new is not None and any(r.key == key and r.nonce == nonce for r in new.rolls)
        if new is not None and new.error and not drawn:
            self.notices[card.id] = f"Not re-rolled: {new.error}"
            return self._compute(plan)
        return draft


    # ---- saving ---------------------------------------------------------------------------

    def save(self) -> bool:
        """Save the draft beside the log when it changed (never after this session committed); True when written."""
        if self.done:
            return False
        wrote = self.drafts.save(SavedDraft(self.start.turn, self.start.start_seq, self.plan))
        if wrote:
            self.saved_at = time.time()
        return wrote

    def replace_plan(self, plan: Plan) -> SheetDraft:
        """Take ``plan`` (an uploaded plan file) as the draft; the widgets must be rebuilt."""
        if plan.turn is not None and plan.turn != self.start.turn:
            raise InputError(f"the plan is for turn {plan.turn}, but the campaign's next turn is {self.start.turn}")
        # a plan file declares its steps; on the sheet its dice still wait for Roll (faces it types count as rolled)
        self.plan = plan.model_copy(update={"turn": self.start.turn, "seed": plan.seed or self.plan.seed,
                                            "dice": "on_roll"})
        self.json_mode.clear()
        draft = self._compute(self.plan)
        self.draft = draft
        self.save()
        self.refresh_forms(draft)
        self.built = {}
        draft.restructure = True
        return draft


def reopened(folder: Path, camp: Campaign | None) -> Campaign | None:
    """``camp`` (the campaign an earlier session of this sheet held) when it is still ``folder``'s as a fresh open
    would find it (the same folder and campaign.toml), else None.

    Its events stay in memory, so opening the next turn after a commit decodes only the batch the commit
    appended, and folds it onto the state before it (``Campaign.events``, ``Campaign.state``); the whole log is
    still checked as every read checks it.
    """
    if camp is None or Path(camp.folder) != Path(folder):
        return None
    try:
        same = load_config(Path(folder)) == camp.config
    except KingdomlogError:
        return None
    return camp if same else None


def open_session(folder: Path, *, after_commit: bool = False, after_action: bool = False,
                 camp: Campaign | None = None, widgets: Mapping[str, Any] | None = None
                 ) -> tuple[SheetSession | None, str | None]:
    """Open the sheet on ``folder``: ``(session, message)``; ``(None, message)`` when it is not a campaign.

    The saved draft of the next turn is restored (its choices, seed, re-rolls and typed
    faces); drafts of turns already in the log are set aside (kept in
    ``drafts/set-aside/``). Without a draft a new one starts with a fresh seed. ``camp``: the
    campaign the session before held (after a commit), reused when ``reopened`` allows.
    ``after_action``: the sheet reopens after one of its own actions wrote to the log (naming a settlement,
    say): the GM saw what it did, so the draft is kept without "Restored your draft" or "the log moved on".
    ``widgets``: the widgets of the page the session before drew (``views.sheet.late.on_page``), by path: the new
    session's first build keeps each one that shows exactly what its own would (``SheetSession.keep_from``).
    """
    try:
        start = load_start(folder, check_forms=False, camp=reopened(folder, camp))
    except KingdomlogError as exc:
        return None, str(exc)
    drafts = Drafts(folder)
    notes: list[str] = []
    for t in drafts.turns():
        if t < start.turn:
            moved = drafts.set_aside(t)
            notes.append(f"The draft of {start.turn_unit} {t} was set aside ({start.turn_unit} {t} is already in the"
                         f" log); it is kept as {moved}.")
    saved: SavedDraft | None = None
    try:
        saved = drafts.load(start.turn)
    except KingdomlogError as exc:
        notes.append(f"The saved draft could not be read: {exc}")
    origin = "new"
    roll_all = False
    if saved is not None:
        plan = saved.plan.model_copy(update={"turn": start.turn, "seed": saved.plan.seed or new_seed()})
        origin = saved.origin
        if plan.dice == "auto":  # a plan played with every die drawn (kingdomlog turn, or a sheet before rolls
            # had their moment): its dice were seen, so an undone turn's come back rolled; a draft's wait for Roll
            roll_all = saved.origin == "retracted"
            plan = plan.model_copy(update={"dice": "on_roll"})
        if saved.origin == "retracted":
            notes.append(f"Reopened the plan of {start.when} that was undone, with its dice.")
        elif not (after_commit or after_action):
            notes.append(f"Restored your draft of {start.when}.")
        if saved.start_seq != start.start_seq and not after_action:
            notes.append(f"The log moved on since this draft was saved (seq {saved.start_seq} → {start.start_seq});"
                         " check the steps below.")
    else:
        plan = Plan(turn=start.turn, seed=new_seed(), dice="on_roll")
    session = SheetSession(start, plan, message=" ".join(notes) or None, after_commit=after_commit, origin=origin)
    session.keep_from = widgets
    if roll_all:
        session.roll_all()
    session.save()
    return session, session.message


# ---- writing ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What a commit or an undo did, for a callout: ``kind`` is success, warn or danger; ``step`` a refused step."""

    kind: str
    text: str
    step: str | None = None


def commit(session: SheetSession, draft: SheetDraft | None) -> Outcome | None:
    """Append the draft's events once (``expect_seq`` = the seq the draft started from).

    Returns None when the click is not taken (this session already committed or undid; which
    draft a click was for is ``views.sheet.commit``'s question); never raises for a rule,
    input or conflict problem (an ``Outcome`` says what happened, and the draft with its
    dice stays saved either way). Called only from the cell gated by the Commit button.
    """
    if session.done:
        return None
    start = session.start
    if draft is None or draft.preview is None:
        return Outcome("warn", f"Nothing committed: {draft.problem if draft else 'no preview'}")
    refused = draft.refused
    if refused is not None:
        return Outcome("warn", f"Nothing committed: step {refused.index + 1} ({refused.step.title}) is refused:"
                               f" {refused.error}", step=refused.id)
    waiting = draft.waiting
    if waiting is not None:
        return Outcome("warn", f"Nothing committed: step {waiting.index + 1} ({waiting.step.title}) waits for its"
                               " roll: press its Roll (or Roll all).", step=waiting.id)
    if any(draft.field_errors.values()):
        step = next(s for s, errs in draft.field_errors.items() if errs)
        return Outcome("warn", "Nothing committed: a value on the sheet cannot be read (see the step).", step=step)
    if not draft.preview.drafts:
        return Outcome("warn", "Nothing committed: the turn produced no events")
    session.done = True
    try:  # the plan is the saved draft: the commit keeps it for Undo and removes the draft
        res = start.camp.commit(draft.preview, plan=draft.plan, from_draft=True)
    except ConflictError as exc:
        session.done = False
        return Outcome("danger", f"Not committed: the log changed since this draft was opened ({exc.actual} events"
                                 f" recorded now, {exc.expected} then). Your choices and dice are"
                                 " kept: check the steps again and commit.")
    except RuleError as exc:
        session.done = False
        return Outcome("danger", f"Not committed: {exc}. Your choices and dice are kept.", step=exc.step)
    except KingdomlogError as exc:
        session.done = False
        return Outcome("danger", f"Not committed: {exc}. Your choices and dice are kept.")
    if res.idempotent:  # the turn is in the log all the same: the sheet moves on to the next
        return Outcome("success", f"Nothing committed again: this draft of {start.when} is in the log already"
                                  " (from another tab or an earlier click).")
    return Outcome("success", f"Committed {start.when}: {len(draft.preview.drafts)} events recorded.")


def undo(session: SheetSession) -> Outcome | None:
    """Retract the last live turn (appends ``core.turn_retracted``) and reopen its plan, with its dice, as the draft."""
    if session.done:
        return None
    start = session.start
    camp = Campaign.open(start.folder)
    events = camp.events()
    last = last_live_turn(events)
    if last is None:
        return Outcome("warn", "Nothing to undo: no turn has been played")
    ids = live_commits_of_turn(events, last)
    session.done = True
    try:
        res = camp.retract(last, reason="undo from the turn sheet", expect_seq=start.start_seq)
    except ConflictError as exc:
        session.done = False
        return Outcome("danger", f"Not undone: the log changed since the sheet opened ({exc.actual} events recorded"
                                 " now). The sheet has reloaded; undo again if you still want to.")
    except KingdomlogError as exc:
        session.done = False
        return Outcome("danger", f"Not undone: {exc}")
    when = _turn_label(events, last, start.turn_unit)
    reopened = session.drafts.reopen(last, ids, res.last_seq)
    tail = (" Its plan is open again as the draft, with the same dice." if reopened is not None else
            " Its plan was not recorded (it was not played from the sheet or `kingdomlog turn`), so a new draft opens.")
    return Outcome("success", f"Undid {when}: a retraction was appended (seq {res.first_seq}); the turn stays on the"
                              f" timeline, struck through.{tail}")


def load_plan_file(session: SheetSession, name: str | None, data: bytes | None) -> Outcome:
    """Take an uploaded plan file as the draft (the widgets then show it); a bad file is a message."""
    if not data:
        return Outcome("warn", "The file is empty.")
    try:
        plan = Plan.parse(data, source=name or "the uploaded plan")
        session.replace_plan(plan)
    except KingdomlogError as exc:
        return Outcome("danger", f"Plan not loaded: {exc}")
    return Outcome("success", f"Loaded {name or 'the plan'} as the draft of {session.start.when}.")


def panel_seed(session: SheetSession) -> str:
    """The dice seed a ruleset's panel plays years ahead with (``views.extras``): the draft's own seed would
    show this turn's faces before their Roll, so a panel gets another seed, fixed for the draft."""
    seed = session.plan.seed or ""
    if not session.on_roll:
        return seed
    return hashlib.sha256(f"panel|{seed}".encode()).hexdigest()[:16]


def end_state(draft: SheetDraft) -> State | None:
    """The state at the end of the draft turn (None when a step was refused)."""
    if draft.preview is None or not draft.preview.ok:
        return None
    return draft.preview.state_after


def last_turn_label(session: SheetSession) -> str | None:
    """``month 13`` for the last live turn (what Undo would retract), ``the import`` for a kingdom brought in from
    another tool and not played yet (issue 32), or None."""
    events = session.start.camp.events()
    last = last_live_turn(events)
    return None if last is None else _turn_label(events, last, session.start.turn_unit)


def _turn_label(events: Sequence[RecordedEvent], turn: int, unit: str) -> str:
    """``month 13``, ``founding``, or ``the import`` when turn 0 is a kingdom brought in from another tool."""
    if turn:
        return f"{unit} {turn}"
    gone = retracted_commits(events)
    return "the import" if any(ev.type.endswith(".kingdom_imported") and is_live(ev, gone) for ev in events) else \
        "founding"


__all__ = [
    "Card",
    "Outcome",
    "SheetDraft",
    "SheetSession",
    "SheetStart",
    "campaign_folder",
    "commit",
    "end_state",
    "last_turn_label",
    "load_plan_file",
    "load_start",
    "open_session",
    "panel_seed",
    "reopened",
    "undo",
]

