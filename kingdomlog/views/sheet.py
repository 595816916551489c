"""The GM turn sheet's library (design §6): UI elements from ruleset choices, the plan from UI values,
and the per-step preview as HTML.

The notebook ``notebooks/turn_sheet.py`` calls these; they hold no rules. The flow:

1. ``load_start(folder, plan)``: the campaign at the start of its next turn (state,
   phases, each phase's choices from the start state, the dice seed).
2. ``phase_forms(start)``: one ``mo.ui`` element per choice, grouped per phase in a
   ``mo.ui.dictionary`` the notebook binds to a global.
3. ``build_plan(start, form.value, dice)``: the same JSON plan ``kingdomlog turn --plan`` reads.
4. ``preview(start, plan)``: ``preview_turn`` on the start state (pure, nothing written).
5. ``render_step(...)`` per step: its rolls (faces), the events it will append, the
   state after it (changes marked) and every breakdown.

Dice: each roll of the preview gets a re-roll number (the plan's ``rerolls``
nonce) and a text field for the faces of physical dice (the plan's ``rolls``);
``dice_controls`` builds them and ``dice_from_controls`` reads them back.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import marimo as mo

from kingdomlog.app import Campaign
from kingdomlog.app.campaign import TurnStart
from kingdomlog.core.choices import FieldSpec
from kingdomlog.core.errors import InputError, KingdomlogError
from kingdomlog.core.ruleset import Ruleset, State, Step
from kingdomlog.core.turn import Plan, StepPlan, StepPreview, TurnPreview
from kingdomlog.dice.roller import new_seed
from kingdomlog.views.html import STYLE, breakdown_items, draft_items, esc, key_values, roll_line

ENV_CAMPAIGN = "KINGDOMLOG_CAMPAIGN"

Dice = dict[str, dict[str, dict[str, Any]]]
"""Per step: ``{"rolls": {key: [faces]}, "rerolls": {key: nonce}}``."""


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


@dataclass(frozen=True)
class SheetStart:
    """A campaign at the start of its next turn: what the sheet's UI and preview are built from."""

    folder: Path
    campaign: str
    name: str
    ruleset: Ruleset
    turn: int
    start_seq: int
    state: State
    camp: Campaign
    begin: TurnStart
    phases: tuple[Step, ...]
    choices: dict[str, tuple[FieldSpec, ...]]
    seed: str
    plan: Plan | None = None
    turn_unit: str = "turn"
    problems: dict[str, str] = field(default_factory=dict)


def load_start(folder: Path, plan: Plan | None = None, *, seed: str | None = None) -> SheetStart:
    """Open ``folder`` and describe its next turn; ``plan`` (a loaded draft) supplies the seed and defaults.

    Raises ``InputError`` when ``plan`` is for another turn, and the store's errors
    when the folder is not a campaign.
    """
    camp = Campaign.open(folder)
    begin = camp.turn_start()
    turn, state = begin.turn, begin.state
    if plan is not None and plan.turn is not None and plan.turn != turn:
        raise InputError(f"the loaded plan is for turn {plan.turn}, but the campaign's next turn is {turn}")
    rs = camp.ruleset
    phases = tuple(rs.phases_for(state, turn))
    choices: dict[str, tuple[FieldSpec, ...]] = {}
    problems: dict[str, str] = {}
    for p in phases:
        try:
            choices[p.id] = rs.choices(state, turn, p.id)
        except KingdomlogError as exc:
            choices[p.id] = ()
            problems[p.id] = str(exc)
    use_seed = (plan.seed if plan is not None else None) or seed or new_seed()
    # Players' submitted steps (orders, with the dice rolled at submission) pre-fill the steps the GM's draft
    # leaves out; a step the GM's draft names wins.
    merged = camp.with_submissions(plan if plan is not None else Plan(turn=turn, seed=use_seed), state=state)
    if plan is not None or merged.steps:
        plan = merged
    return SheetStart(
        folder=Path(folder), campaign=camp.id, name=camp.config.name, ruleset=rs, turn=turn,
        start_seq=begin.start_seq, state=state, camp=camp, begin=begin, phases=phases, choices=choices,
        seed=use_seed, plan=plan, turn_unit=rs.turn_unit, problems=problems,
    )


_UNSET: Any = object()


def _jsonable(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    raise TypeError(f"{type(value).__name__} is not JSON")


def _option_values(choice: FieldSpec) -> list[Any]:
    return [o.value for o in choice.options or () if not o.disabled]


def choice_widget(choice: FieldSpec, value: Any = _UNSET) -> Any:
    """One ``mo.ui`` element for ``choice`` set to ``value``: a select, multiselect, number, checkbox or text.

    Nested entries (``rows``, ``group``) and free-form values are edited as JSON here.
    """
    v = choice.default if value is _UNSET else value
    label = choice.label or choice.name
    if choice.kind == "select" and choice.options is not None:
        opts = _option_values(choice)
        return mo.ui.dropdown(options=[str(o) for o in opts], value=str(v) if v in opts else None,
                              allow_select_none=True, label=label)
    if choice.kind == "multiselect" and choice.options is not None:
        opts = _option_values(choice)
        return mo.ui.multiselect(options=[str(o) for o in opts], value=[str(x) for x in (v or []) if x in opts],
                                 label=label)
    if choice.kind in ("int", "float"):
        if v is None:  # "unset" (the step's default applies) must stay expressible: a number box cannot be empty
            return mo.ui.text(value="", placeholder="default", label=label)
        return mo.ui.number(start=choice.minimum, stop=choice.maximum, step=1 if choice.kind == "int" else 0.1,
                            value=v, label=label)
    if choice.kind == "bool":
        return mo.ui.checkbox(value=bool(v), label=label)
    if choice.kind in ("json", "rows", "group", "variant", "list", "multiselect"):
        text = "" if v is None else json.dumps(v, indent=1, ensure_ascii=False, default=_jsonable)
        return mo.ui.text_area(value=text, label=label, rows=3, full_width=True)
    return mo.ui.text(value="" if v is None else str(v), label=label)


def phase_forms(start: SheetStart) -> Any:
    """A ``mo.ui.dictionary`` per phase id holding one element per choice (defaults from a loaded plan).

    A ruleset may provide its own widget for a choice (``Ruleset.choice_widget``); its
    value must read back as the choice's kind does.
    """
    forms: dict[str, Any] = {}
    for p in start.phases:
        given = start.plan.steps.get(p.id, StepPlan()).choices if start.plan is not None else {}
        elems = {}
        for c in start.choices.get(p.id, ()):
            value = given.get(c.name, _UNSET)
            el = start.ruleset.choice_widget(start.state, p.id, c, c.default if value is _UNSET else value)
            elems[c.name] = el if el is not None else choice_widget(c, value)
        forms[p.id] = mo.ui.dictionary(elems)
    return mo.ui.dictionary(forms)


def choice_value(choice: FieldSpec, raw: Any, *, step: str = "") -> tuple[bool, Any]:
    """Turn a UI element's raw value into the plan's value: ``(include, value)``.

    Empty inputs (no selection, empty text or JSON) are left out of the plan, so the
    step's default applies. Raises ``InputError`` for JSON that does not parse or a
    number that is not whole.

    >>> choice_value(FieldSpec("n", "N", "int"), 3.0)
    (True, 3)
    >>> choice_value(FieldSpec("t", "T", "text"), "")
    (False, None)
    >>> choice_value(FieldSpec("j", "J", "rows"), '[{"a": 1}]')
    (True, [{'a': 1}])
    """
    where = f"step {step!r}, choice {choice.name!r}" if step else f"choice {choice.name!r}"
    if raw is None:
        return False, None
    if choice.kind in ("int", "float") and isinstance(raw, str):
        text = raw.strip()
        if not text:
            return False, None
        try:
            num = float(text)
        except ValueError:
            raise InputError(f"{where}: {raw!r} is not a number") from None
        raw = num
    if choice.kind == "int":
        if isinstance(raw, float):
            if raw != int(raw):
                raise InputError(f"{where}: {raw} is not a whole number")
            raw = int(raw)
        return True, int(raw)
    if choice.kind == "float":
        return True, float(raw)
    if choice.kind == "bool":
        return True, bool(raw)
    if choice.kind in ("select", "multiselect") and choice.options is not None:
        by_text = {str(o.value): o.value for o in choice.options}
        if choice.kind == "select":
            return True, by_text.get(str(raw), raw)
        return True, [by_text.get(str(x), x) for x in raw]
    if choice.kind in ("json", "rows", "group", "variant", "list", "multiselect"):
        text = str(raw).strip()
        if not text:
            return False, None
        try:
            return True, json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    if choice.kind == "text" and raw == "":
        return False, None
    return True, raw


def build_plan(start: SheetStart, values: Mapping[str, Mapping[str, Any]], dice: Dice | None = None,
               *, note: str = "") -> Plan:
    """The plan for ``start``'s turn from the form values (``{step: {choice: raw}}``) and the dice state.

    Raises ``InputError`` naming the step and choice of a value that cannot be read.
    """
    steps: dict[str, StepPlan] = {}
    dice = dice or {}
    for p in start.phases:
        raw = values.get(p.id, {})
        chosen: dict[str, Any] = {}
        for c in start.choices.get(p.id, ()):
            if c.name not in raw:
                continue
            ok, v = choice_value(c, raw[c.name], step=p.id)
            if ok:
                chosen[c.name] = v
        d = dice.get(p.id, {})
        rolls: dict[str, list[int]] = {}
        for k, v in (d.get("rolls") or {}).items():
            try:
                faces = parse_faces(v) if isinstance(v, str) else [int(x) for x in v]
            except InputError as exc:
                raise InputError(f"step {p.id!r}, roll {k!r}: {exc}") from None
            if faces:
                rolls[k] = faces
        rerolls = {k: int(v) for k, v in (d.get("rerolls") or {}).items() if int(v)}
        if chosen or rolls or rerolls:
            steps[p.id] = StepPlan(choices=chosen, rolls=rolls, rerolls=rerolls)
    return Plan(turn=start.turn, seed=start.seed, steps=steps, note=note)


def plan_dice(plan: Plan | None) -> Dice:
    """The dice part of a loaded plan (typed faces and re-roll nonces per step)."""
    if plan is None:
        return {}
    return {sid: {"rolls": dict(sp.rolls), "rerolls": dict(sp.rerolls)}
            for sid, sp in plan.steps.items() if sp.rolls or sp.rerolls}


def preview(start: SheetStart, plan: Plan) -> TurnPreview:
    """``preview_turn`` of ``plan`` from the start state (pure; nothing is written)."""
    return start.camp.preview(plan, seed=start.seed, start=start.begin)


_FACES = re.compile(r"-?\d+")


def parse_faces(text: str) -> list[int]:
    """Faces typed as ``4 2`` or ``4, 2`` (empty = use keyed dice).

    >>> parse_faces("4, 2 6")
    [4, 2, 6]
    >>> parse_faces("  ")
    []
    """
    bad = re.sub(r"[\s,;]+", " ", text).strip()
    if bad and not all(_FACES.fullmatch(t) for t in bad.split(" ")):
        raise InputError(f"typed dice {text!r}: write the faces as numbers, e.g. 4 2")
    return [int(t) for t in _FACES.findall(text)]


def dice_controls(tp: TurnPreview | None, dice: Dice, on_change: Callable[[Any], None] | None = None) -> Any:
    """A ``mo.ui.dictionary`` ``{step: {key: {"reroll": number, "faces": text}}}`` for every roll of the preview.

    Keys typed or re-rolled earlier but not rolled now (a choice changed) keep their values.
    """
    steps: dict[str, Any] = {}
    for sp in tp.steps if tp is not None else []:
        d = dice.get(sp.phase.id, {})
        keys = [r.key for r in sp.rolls]
        keys += [k for k in list(d.get("rolls", {})) + list(d.get("rerolls", {})) if k not in keys]
        if not keys:
            continue
        per: dict[str, Any] = {}
        for k in keys:
            faces = d.get("rolls", {}).get(k)
            if faces is not None and not isinstance(faces, str):
                faces = " ".join(str(f) for f in faces)
            per[k] = mo.ui.dictionary({
                "reroll": mo.ui.number(start=0, step=1, value=int(d.get("rerolls", {}).get(k, 0)),
                                       label=f"re-roll {k}"),
                "faces": mo.ui.text(value=faces or "",
                                    placeholder="physical dice, e.g. 4 2", label=f"typed {k}"),
            })
        steps[sp.phase.id] = mo.ui.dictionary(per)
    return mo.ui.dictionary(steps, on_change=on_change)


def dice_from_controls(values: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> Dice:
    """Read ``dice_controls`` values back into the dice state.

    Typed faces stay text here (``build_plan`` reads them and reports bad ones), so a
    UI callback never raises.
    """
    out: Dice = {}
    for step, per in values.items():
        rolls: dict[str, Any] = {}
        rerolls: dict[str, int] = {}
        for key, v in per.items():
            faces = str(v.get("faces") or "").strip()
            if faces:
                rolls[key] = faces
            n = v.get("reroll")
            if n:
                rerolls[key] = int(n)
        if rolls or rerolls:
            out[step] = {"rolls": rolls, "rerolls": rerolls}
    return out


@dataclass
class DraftTurn:
    """The sheet's current draft: the plan from the UI, its preview, or the problem that stopped it."""

    plan: Plan | None
    preview: TurnPreview | None
    problem: str | None = None

    @property
    def committable(self) -> bool:
        return self.preview is not None and self.preview.ok and bool(self.preview.drafts)


def draft_turn(start: SheetStart, values: Mapping[str, Mapping[str, Any]], dice: Dice | None = None) -> DraftTurn:
    """Build the plan from UI values and preview it; an unreadable value or plan becomes ``problem``."""
    try:
        plan = build_plan(start, values, dice)
    except KingdomlogError as exc:
        return DraftTurn(None, None, str(exc))
    try:
        return DraftTurn(plan, preview(start, plan))
    except KingdomlogError as exc:
        return DraftTurn(plan, None, str(exc))


def read_plan_upload(name: str | None, data: bytes | None) -> Plan | None:
    """A draft plan uploaded as JSON (``None`` when nothing was uploaded); ``InputError`` when invalid."""
    if not data:
        return None
    return Plan.parse(data, source=name or "uploaded plan")


def open_sheet(folder: Path, upload_name: str | None = None, upload: bytes | None = None
               ) -> tuple[SheetStart | None, str | None]:
    """``load_start`` with a loaded plan if one is valid for this turn: ``(start, message)``.

    A plan that does not parse or is for another turn is set aside with a message;
    a folder that is not a campaign gives ``(None, message)``.
    """
    message = None
    try:
        plan = read_plan_upload(upload_name, upload)
    except KingdomlogError as exc:
        plan, message = None, f"plan not loaded: {exc}"
    try:
        return load_start(folder, plan), message
    except InputError as exc:
        if plan is None:
            return None, str(exc)
        message = f"plan not loaded: {exc}"
    except KingdomlogError as exc:
        return None, str(exc)
    try:
        return load_start(folder), message
    except KingdomlogError as exc:
        return None, str(exc)


@dataclass(frozen=True)
class Outcome:
    """What a commit or an undo did, for a callout: ``kind`` is success, warn or danger."""

    kind: str
    text: str


def commit_draft(start: SheetStart, draft: DraftTurn) -> Outcome:
    """Append the draft's events with ``expect_seq`` = the seq the draft started from.

    Never raises for a rule, input or conflict problem: those come back as an
    ``Outcome`` the sheet shows. Called only from the cell gated by the Commit click counter.
    """
    from kingdomlog.core.errors import ConflictError

    if draft.preview is None:
        return Outcome("warn", f"Nothing committed: {draft.problem or 'no preview'}")
    if not draft.preview.ok:
        return Outcome("warn", f"Nothing committed: a step was refused: {draft.preview.error}")
    if not draft.preview.drafts:
        return Outcome("warn", "Nothing committed: the turn produced no events")
    try:
        res = Campaign.open(start.folder).commit(draft.preview)
    except ConflictError as exc:
        return Outcome("danger", f"Not committed: someone else committed to this campaign first (the log now ends"
                                 f" at seq {exc.actual}, this draft started at seq {exc.expected}). The sheet has"
                                 " reloaded: check the new state and commit again.")
    except KingdomlogError as exc:
        return Outcome("danger", f"Not committed: {exc}")
    return Outcome("success", f"Committed {start.turn_unit} {start.turn}: seq {res.first_seq}–{res.last_seq}"
                              f" (batch {res.file}).")


def undo_last(start: SheetStart) -> Outcome:
    """Retract the last live turn (appends ``core.turn_retracted``; nothing is deleted)."""
    from kingdomlog.core.errors import ConflictError
    from kingdomlog.core.fold import last_live_turn

    camp = Campaign.open(start.folder)
    last = last_live_turn(camp.events())
    if last is None:
        return Outcome("warn", "Nothing to undo: no turn has been played")
    try:
        res = camp.retract(last, reason="undo from the turn sheet", expect_seq=start.start_seq)
    except ConflictError as exc:
        return Outcome("danger", f"Not undone: the log changed since the sheet loaded (now ends at seq {exc.actual})."
                                 " The sheet has reloaded; undo again if you still want to.")
    except KingdomlogError as exc:
        return Outcome("danger", f"Not undone: {exc}")
    return Outcome("success", f"Retracted {start.turn_unit} {last} (seq {res.first_seq}); it stays on the timeline"
                              " struck through.")


# ---- rendering ------------------------------------------------------------------------------


def header_html(start: SheetStart) -> str:
    """Campaign, ruleset, turn and the state at the start of the turn."""
    rs = start.ruleset
    summary = rs.summary(start.state)
    when = f"{esc(start.turn_unit)} {start.turn}" if start.turn else "founding"
    title = f"{esc(start.name)} — {when}"
    return (
        f"<style>{STYLE}</style><h2 class='kl-h2'>{title}</h2>"
        f"<p>Ruleset <b>{esc(rs.name)}</b> · campaign <code>{esc(start.campaign)}</code>"
        f" · log ends at seq {start.start_seq} · dice seed <code>{esc(start.seed)}</code></p>"
        f"<p><code>{esc(rs.render(start.state))}</code></p>{key_values(summary)}"
    )


def step_result_html(start: SheetStart, sp: StepPreview | None, before: State | None) -> str:
    """Under a step: its rolls, the events it will append, the state after it and its breakdowns."""
    if sp is None:
        return '<p class="kl-empty">(not computed: an earlier step was refused)</p>'
    rs = start.ruleset
    parts = []
    if sp.rolls:
        parts.append("<p><b>Dice</b><br>" + "<br>".join(roll_line(r) for r in sp.rolls) + "</p>")
    if sp.error:
        parts.append(f'<p class="kl-error">Refused: {esc(sp.error)}</p>')
        return "".join(parts)
    parts.append("<p><b>Events this step appends</b></p>" + draft_items(sp.drafts))
    if sp.state_after is not None:
        parts.append(f"<p><b>State after</b> <code>{esc(rs.render(sp.state_after))}</code></p>")
        after = rs.summary(sp.state_after)
        prior = rs.summary(before) if before is not None else {}
        changed = {k: v for k, v in after.items() if k not in prior or prior[k] != v}
        parts.append(key_values(changed, before=prior) if changed else '<p class="kl-empty">(no figure changed)</p>')
    if sp.breakdown:
        parts.append("<details><summary>Breakdowns</summary>" + breakdown_items(sp.breakdown) + "</details>")
    return "".join(parts)


def step_sections(start: SheetStart, tp: TurnPreview | None, forms: Any, dice: Any) -> list[Any]:
    """One row per phase: title, help, choice elements and dice controls on the left; its result on the right."""
    by_id = {sp.phase.id: sp for sp in (tp.steps if tp is not None else [])}
    before: State | None = start.state
    out = []
    for i, p in enumerate(start.phases, start=1):
        sp = by_id.get(p.id)
        title = f"<h3 class='kl-h3'>{i}. {esc(p.title)}</h3>" + (f"<p>{esc(p.help)}</p>" if p.help else "")
        left: list[Any] = [mo.Html(title)]
        if p.id in start.problems:
            left.append(mo.callout(mo.md(esc(start.problems[p.id])), kind="warn"))
        left += [forms[p.id][c.name] for c in start.choices.get(p.id, ())]
        if p.id in dice:
            per = dice[p.id]
            rows = [mo.hstack([per[k]["reroll"], per[k]["faces"]], justify="start") for k in per.value]
            left.append(mo.accordion({"Re-roll or type physical dice": mo.vstack(rows)}))
        right = mo.Html(f'<div class="kl-step" data-step="{esc(p.id)}">{step_result_html(start, sp, before)}</div>')
        out.append(mo.hstack([mo.vstack(left), right], widths=[2, 3], align="start", gap=2))
        if sp is not None and sp.state_after is not None:
            before = sp.state_after
    return out


def turn_events_html(start: SheetStart, tp: TurnPreview) -> str:
    """Every event the turn will append, in order, and the state at the end of the turn (all figures)."""
    rs = start.ruleset
    drafts = tp.drafts
    status = "" if tp.ok else f'<p class="kl-error">Cannot commit: {esc(tp.error)}</p>'
    return (
        f"<h3 class='kl-h3'>The whole turn</h3>{status}"
        f"<p><b>{len(drafts)} event(s) will be appended</b> after seq {tp.start_seq}</p>"
        + draft_items(drafts)
        + f"<details><summary>State at the end of the turn: <code>{esc(rs.render(tp.state_after))}</code></summary>"
        + key_values(rs.summary(tp.state_after), before=rs.summary(tp.state_before)) + "</details>"
    )
