import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="kingdomlog: orders sheet")

with app.setup:
    # One player's orders sheet. Served by `kingdomlog serve DIR` (one page per faction, behind its own
    # link) or `kingdomlog orders DIR --as FACTION`; either fixes the viewer on the server side
    # (`mo.cli_args()`: --campaign DIR --viewer FACTION). It reads only what that player may see (its
    # redacted view after the GM's published opening, its own questions, the messages it may read) and
    # writes only that player's words: its submission (core.plan_submitted), its answers, its ready flag
    # and its messages, each once per click of its button.
    import json
    from pathlib import Path
    from typing import Any

    import marimo as mo

    from kingdomlog.app import Campaign, pbp
    from kingdomlog.app import submissions as subs
    from kingdomlog.core.choices import FieldSpec
    from kingdomlog.core.errors import InputError, KingdomlogError
    from kingdomlog.views.html import STYLE, draft_items, esc
    from kingdomlog.views.player import page as player

    NONE = "—"
    # Fields the sheet leaves out: a row's faction (always the viewer) and the choices the rules ask as
    # questions (a dilemma's answer, a statesman on offer: see "Questions for you").
    HIDDEN = ("faction", "dilemmas", "candidates")
    CSS = """
    .kl-bar { background: #f4f6fa; border: 1px solid #d5dbe6; border-radius: 6px; padding: .5em .8em; margin: .4em 0; }
    .kl-bar b { font-weight: 600; }
    .kl-q { border-left: 4px solid #1a5fb4; padding: .3em .7em; margin: .5em 0; background: #fafbfd; }
    .kl-q.kl-done { border-left-color: #2a8c4a; }
    .kl-msg { border: 1px solid #ddd; border-radius: 6px; padding: .4em .7em; margin: .4em 0; }
    .kl-msg .kl-meta { color: #666; font-size: .88em; }
    .kl-error { color: #a51d2d; }
    .kl-ok { color: #2a8c4a; }
    .kl-faces { font-family: monospace; font-size: 1.1em; }
    """


@app.function
def open_orders(folder: Path, viewer: str) -> dict[str, Any]:
    """The player's next turn: its own view after the GM's opening, its steps and their fields, its
    latest submission, its questions and messages, where the turn stands (its own part only)."""
    camp = Campaign.open(folder)
    v = camp.viewer(viewer)
    if not v.is_player:
        raise InputError(f"{viewer!r} is not a player of this campaign")
    who = v.id
    turn = camp.next_turn()
    rs = camp.ruleset
    events = camp.events()
    view = rs.redact(subs.opened(camp, camp.state(), turn, events=events), v)
    steps = camp.player_steps(v)
    choices = {sid: rs.choices(view, turn, sid) for sid in steps}
    mine = camp.submissions(turn).get(who)
    submitted = mine.payload.model_dump(mode="json") if mine is not None else None
    hints: dict[str, dict[str, list[tuple[str, Any]]]] = {}
    for sid, fields in choices.items():
        for f in fields:
            for g in f.fields if f.kind == "rows" else ():
                dep = next((x for x in f.fields if g.depends and x.name == g.depends[0]), None)
                if g.options is None and g.source and dep is not None and dep.options:
                    seen: dict[Any, str] = {}
                    for o in dep.options:
                        for t in rs.vocabulary(view, g.source, {dep.name: o.value}) or ():
                            seen.setdefault(t.value, t.label or str(t.value))
                    hints.setdefault(sid, {})[g.name] = [(lab, val) for val, lab in seen.items()]
    rolled: dict[str, str] = {}
    for sid, sub in ((submitted or {}).get("steps") or {}).items():
        if sub.get("rolls") and not st_closed(camp, turn):
            try:
                chk = subs.check_submission(camp, v, {sid: {"choices": sub["choices"]}}, turn=turn)
                rolled[sid] = in_words(rs, view, v, chk.events.get(sid, []))
            except KingdomlogError:
                pass
    st = pbp.status(camp)
    me = next((p for p in st.players if p.id == who), None)
    asked = pbp.questions(camp, v, turn)
    return {"folder": Path(folder), "viewer": who, "as_viewer": v, "turn": turn, "name": camp.config.name, "turn_unit": rs.turn_unit,
            "steps": steps, "choices": choices, "submitted": submitted,
            "submitted_seq": pbp.own_seq(camp, v, mine.seq) if mine is not None else None,
            "questions": asked, "answered_in": {q.step: {q.path[0] for q in asked} for q in asked},
            "messages": pbp.messages(camp, v), "others": [p for p in camp.players() if p != who],
            "stage": st.stage, "closed": st.closed, "orders_due": st.orders_due, "time_left": st.time_left(),
            "ready": bool(me and me.ready), "published": st.published, "hints": hints, "rolled": rolled}


@app.function
def in_words(rs: Any, view: Any, v: Any, drafts: list[Any]) -> str:
    """What a step recorded, in the ruleset's words for this viewer (its chronicle), else as a list of events."""
    from kingdomlog.core.events import provisional

    lines = [rs.chronicle(view, provisional("sheet", i + 1, d), view, v) for i, d in enumerate(drafts)]
    if not lines or not all(lines):
        return draft_items(drafts)
    return "<ul>" + "".join(f"<li>{esc(x[:1].upper() + x[1:])}.</li>" for x in lines if x) + "</ul>"


@app.function
def st_closed(camp: Any, turn: int) -> bool:
    """Whether ``turn``'s orders are closed."""
    return subs.orders_closed(camp.events(), turn) is not None


@app.function
def sealed_steps(start: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The steps of the latest submission whose dice are rolled (their choices can no longer change)."""
    given = (start["submitted"] or {}).get("steps", {})
    return {sid: st for sid, st in given.items() if st.get("rolls")}


@app.function
def option_map(f: FieldSpec) -> dict[str, Any]:
    """Dropdown label -> value for a select field (labels made unique)."""
    out: dict[str, Any] = {}
    for o in f.options or ():
        if o.disabled:
            continue
        label = o.label or str(o.value)
        if o.detail:
            label = f"{label} ({o.detail})"
        if label in out:
            label = f"{label} [{o.value}]"
        out[label] = o.value
    return out


@app.function
def field_widget(f: FieldSpec, value: Any = None, *, hints: list[tuple[str, Any]] | None = None) -> Any:
    """One widget for ``f`` set to ``value``: a dropdown of labelled options, a list, a number, a box; an open
    pick with ``hints`` is a dropdown of them plus a box for any other value."""
    label = f.label or f.name
    if hints:
        opts = {f"{lab} [{val}]" if lab != str(val) else str(val): val for lab, val in hints}
        chosen = next((k for k, v in opts.items() if v == value), None)
        return mo.ui.dictionary({
            "pick": mo.ui.dropdown(options={NONE: None, **opts}, value=chosen or NONE, label=label),
            "other": mo.ui.text(value="" if value is None or chosen else str(value), label="or another",
                                placeholder="e.g. a rival's character id"),
        })
    if f.kind == "select" and f.options is not None:
        opts = option_map(f)
        chosen = next((k for k, v in opts.items() if v == value), None)
        return mo.ui.dropdown(options={NONE: None, **opts}, value=chosen or NONE, label=label)
    if f.kind == "multiselect" and f.options is not None:
        opts = option_map(f)
        return mo.ui.multiselect(options=opts, value=[k for k, v in opts.items() if v in (value or [])], label=label)
    if f.kind == "bool":
        return mo.ui.checkbox(value=bool(value), label=label)
    if f.kind == "group" and f.fields:
        return mo.ui.dictionary({g.name: field_widget(g, (value or {}).get(g.name)) for g in f.fields}, label=label)
    if f.kind in ("rows", "json", "variant", "list"):
        text = "" if value in (None, [], {}) else json.dumps(value, ensure_ascii=False)
        return mo.ui.text(value=text, label=label, placeholder='JSON, e.g. ["wealth"]' if f.kind == "list" else "JSON",
                          full_width=True)
    text = "" if value is None else str(value)
    return mo.ui.text(value=text, label=label, placeholder="number" if f.kind == "int" else "")


@app.function
def field_value(f: FieldSpec, raw: Any) -> tuple[bool, Any]:
    """A widget's value as the choice's value: ``(given, value)``; empty inputs are left out (defaults)."""
    if isinstance(raw, dict) and set(raw) == {"pick", "other"}:
        other = str(raw["other"] or "").strip()
        return (True, other) if other else (raw["pick"] is not None, raw["pick"])
    if f.kind == "select" and f.options is not None:
        return raw is not None, raw
    if f.kind == "multiselect" and f.options is not None:
        return bool(raw), list(raw or [])
    if f.kind == "bool":
        return bool(raw), bool(raw)
    if f.kind == "group" and f.fields:
        out = {}
        for g in f.fields:
            ok, val = field_value(g, (raw or {}).get(g.name))
            if ok:
                out[g.name] = val
        return bool(out), out
    text = str(raw or "").strip()
    if not text:
        return False, None
    if f.kind == "int":
        try:
            return True, int(text)
        except ValueError:
            raise InputError(f"{f.label or f.name}: {text!r} is not a whole number") from None
    if f.kind in ("rows", "json", "variant", "list", "group", "multiselect"):
        try:
            return True, json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"{f.label or f.name}: not valid JSON ({exc.msg})") from None
    return True, text


@app.function
def step_form(start: dict[str, Any], sid: str) -> Any:
    """The form of one own step: its fields (those answered as questions and a fixed actor left out); a
    field of entries (the orders) as rows of fields, one per order, with room for more."""
    given = (start["submitted"] or {}).get("steps", {}).get(sid, {}).get("choices", {})
    skip = {*start["answered_in"].get(sid, set()), *HIDDEN}
    hints = start["hints"].get(sid, {})
    elems: dict[str, Any] = {}
    for f in start["choices"][sid]:
        if f.name in skip or (f.name == "actor" and f.default == start["viewer"]):
            continue
        if f.kind == "rows" and f.fields:
            rows = list(given.get(f.name) or [])
            n = max(len(rows) + 2, 4)
            elems[f.name] = mo.ui.array([
                mo.ui.dictionary({g.name: field_widget(g, (rows[i] if i < len(rows) else {}).get(g.name, g.default),
                                                       hints=hints.get(g.name))
                                  for g in f.fields if g.name not in skip}, label=f"{f.label or f.name} {i + 1}")
                for i in range(n)], label=f.label or f.name)
        else:
            elems[f.name] = field_widget(f, given.get(f.name, f.default))
    return mo.ui.dictionary(elems)


@app.function
def layout(el: Any, depth: int = 0, name: str = "") -> Any:
    """A form laid out for people: fields side by side, one block per order, long groups folded away."""
    if isinstance(el, mo.ui.array):
        word = name.removesuffix("s").replace("_", " ").capitalize() or "Entry"
        return mo.vstack([mo.vstack([mo.md(f"**{word} {i + 1}**"), layout(x, depth + 1)])
                          for i, x in enumerate(el.elements)], gap=0.6)
    if isinstance(el, mo.ui.dictionary):
        items = dict(el.items())
        if set(items) == {"pick", "other"}:
            return mo.hstack([items["pick"], items["other"]], justify="start", gap=0.5, wrap=True)  # 390 px
        parts = [layout(v, depth + 1, k) for k, v in items.items()]
        if depth >= 3 and len(parts) > 4:
            return mo.accordion({f"{name.replace('_', ' ').capitalize()}: details": mo.hstack(
                parts, wrap=True, justify="start", gap=0.5)})
        if depth >= 1:
            return mo.hstack(parts, wrap=True, justify="start", gap=0.5, align="end")
        return mo.vstack(parts, gap=0.6)
    return el


@app.function
def form_choices(start: dict[str, Any], sid: str, raw: dict[str, Any]) -> dict[str, Any]:
    """The step's choices from its form (empty inputs and empty rows left out; the actor is the viewer)."""
    out: dict[str, Any] = {}
    for f in start["choices"][sid]:
        if f.name == "actor" and f.default == start["viewer"]:
            out[f.name] = start["viewer"]
            continue
        if f.name not in raw:
            continue
        if f.kind == "rows" and f.fields:
            rows = []
            for entry in raw[f.name] or []:
                row = {}
                for g in f.fields:
                    if g.name in entry:
                        ok, val = field_value(g, entry.get(g.name))
                        if ok:
                            row[g.name] = val
                if all(g.name in row for g in f.fields if g.required):  # a row without its action is empty
                    rows.append(row)
            out[f.name] = rows
            continue
        ok, val = field_value(f, raw[f.name])
        if ok:
            out[f.name] = val
    return out


@app.function
def check_html(start: dict[str, Any], steps: dict[str, Any] | None, problem: str | None,
               waiting: list[str] | None = None) -> tuple[str, bool]:
    """What the submission check says about the form, in words, and whether it can be submitted.

    ``waiting``: own steps whose dice are not rolled yet; the orders are checked once they are."""
    if problem:
        return f"<p class='kl-error'><b>Cannot read the form.</b> {esc(problem)}</p>", False
    if not steps:
        return "<p>Nothing to submit.</p>", False
    if waiting:
        return ("<p><i>Your orders are checked once your command roll is made (above): the slots you have "
                "depend on it.</i></p>"), False
    try:
        check = subs.check_submission(Campaign.open(start["folder"]), start["as_viewer"], steps, turn=start["turn"])
    except KingdomlogError as exc:
        return f"<p class='kl-error'><b>These orders would be refused.</b> {esc(exc)}</p>", False
    parts = ["<p class='kl-ok'><b>These orders pass the checks of what you know.</b> What only the whole game can"
             " settle is settled when the month resolves; an order that cannot be carried out then is void on"
             " its own and your report says why.</p>"]
    for sid in check.unchecked:
        parts.append(f"<p><i>{esc(sid)} is checked once your dice are rolled (on submit).</i></p>")
    for sid, drafts in check.events.items():
        if sid not in check.fresh and drafts:
            parts += [f"<details><summary>What {esc(sid)} records</summary>{draft_items(drafts)}</details>"]
    return "".join(parts), True


@app.function
def header_html(start: dict[str, Any]) -> str:
    """Where the month stands for this player: deadline, time left, ready or not, orders closed."""
    due = (f"orders due <b>{start['orders_due']:%Y-%m-%d %H:%M} UTC</b> ({esc(start['time_left'])} left)"
           if start["orders_due"] else "no deadline set: the month waits until everyone is ready")
    if start["closed"]:
        due = f"<b>orders closed</b> ({esc(start['closed'])})"
    ready = "<b class='kl-ok'>you are ready</b>" if start["ready"] else "you are <b>not ready</b> yet"
    return (f"<div class='kl-bar'>{esc(start['turn_unit']).capitalize()} {start['turn']} · {due} · {ready}</div>")


@app.function
def open_questions(start: dict[str, Any]) -> list[Any]:
    """The questions this player can still answer (an opening one may be changed until orders close)."""
    return [q for q in start["questions"]
            if not q.answered or (q.opening and not start["closed"] and not q.by_default)]


@app.function
def questions_form(start: dict[str, Any]) -> Any:
    """One answer widget per open question (a dropdown, or a list for questions of several picks)."""
    elems = {}
    for q in open_questions(start):
        labels = {q.label_of(o.value) + (f" ({o.detail})" if o.detail else ""): json.dumps(o.value)
                  for o in q.options}
        current = q.answer if q.answered else q.default
        several = bool(q.options) and all(isinstance(o.value, list) for o in q.options)
        if several:
            items = {o.label: json.dumps(o.value) for o in q.options if o.value}
            chosen = [k for k, v in items.items() if all(x in (current or []) for x in json.loads(v))
                      and json.loads(v)]
            elems[q.id] = mo.ui.multiselect(options=items, value=chosen, label="Your picks (none: no option)")
        else:
            chosen = next((k for k, v in labels.items() if json.loads(v) == current), None)
            elems[q.id] = mo.ui.dropdown(options=labels, value=chosen, label="Your answer")
    return mo.ui.dictionary(elems)


@app.function
def question_value(raw: Any) -> Any:
    """A widget value as the answer: one option's JSON, or the items of several."""
    if isinstance(raw, list):
        out: list[Any] = []
        for r in raw:
            out.extend(json.loads(r))
        return out
    return json.loads(raw) if isinstance(raw, str) else raw


@app.function
def questions_html(start: dict[str, Any]) -> str:
    """The questions already answered (and how), in words."""
    done = [q for q in start["questions"] if q.answered]
    if not done:
        return ""
    items = "".join(f"<div class='kl-q kl-done'><b>{esc(q.kind.replace('_', ' '))}</b>: {esc(q.prompt)}<br>"
                    f"answered: <b>{esc(q.label_of(q.answer))}</b>{' (the default stood)' if q.by_default else ''}"
                    "</div>" for q in done)
    return "<h3 class='kl-h3'>Answered</h3>" + items


@app.function
def messages_html(start: dict[str, Any]) -> str:
    """The messages this player may read, newest first."""
    if not start["messages"]:
        return "<p><i>No messages yet.</i></p>"
    out = []
    for m in reversed(start["messages"]):
        to = ", ".join(m.to) if m.to else "everyone (open letter)"
        out.append(f"<div class='kl-msg'><div class='kl-meta'>{esc(start['turn_unit'])} {m.turn} · from "
                   f"<b>{esc(m.sender)}</b> to {esc(to)}{' · ' + esc(m.subject) if m.subject else ''}</div>"
                   f"<div>{esc(m.text)}</div></div>")
    return "".join(out)


@app.function
def run_write(start: dict[str, Any], what: str, fn: Any) -> tuple[str, str]:
    """One write for the sheet's viewer, then the turn moved on; returns (callout kind, message)."""
    try:
        camp = Campaign.open(start["folder"])
        said = fn(camp)
    except KingdomlogError as exc:
        return "danger", f"**{what}: not done.** {exc}"
    try:
        _camp = Campaign.open(start["folder"])
        moved = pbp.advance(_camp).for_viewer(start["as_viewer"])
    except KingdomlogError:
        moved = []
    return "success", f"**{what}.** {said}" + (" " + " ".join(f"Then: {m}." for m in moved) if moved else "")


@app.cell(hide_code=True)
def _():
    folder, viewer = player.view_args(mo.cli_args())
    report_link = mo.cli_args().get("report")  # set by `kingdomlog serve`: this faction's report page
    return folder, report_link, viewer


@app.cell(hide_code=True)
def _():
    # Reload after each write; the last write's message.
    get_version, set_version = mo.state(0)
    get_outcome, set_outcome = mo.state(None)
    return get_outcome, get_version, set_outcome, set_version


@app.cell(hide_code=True)
def _(folder, get_version, report_link, viewer):
    get_version()
    try:
        start = open_orders(folder, viewer)
        view = player.player_view(folder, start["viewer"])
        load_problem = None
    except KingdomlogError as exc:
        start, view, load_problem = None, None, str(exc)
    mo.stop(start is None, mo.callout(mo.md(f"**Cannot open the orders sheet.** {load_problem}"), kind="danger"))
    _link = f" · <a href='{esc(report_link)}'>your report</a>" if isinstance(report_link, str) else ""
    mo.Html(f"<style>{STYLE}{player.STYLE}{CSS}</style>" + player.title_html(view)
            + header_html(start).replace("</div>", f"{_link}</div>", 1))
    return start, view


@app.cell(hide_code=True)
def _(get_outcome):
    _outcome = get_outcome()
    mo.callout(mo.md(_outcome[1]), kind=_outcome[0]) if _outcome is not None else None
    return


@app.cell(hide_code=True)
def _(start):
    answers = questions_form(start)
    _open = open_questions(start)
    _parts = [mo.md("## Questions for you")]
    for _q in _open:
        _due = f" (answer by {_q.deadline:%Y-%m-%d %H:%M} UTC; else: {_q.label_of(_q.default)})" if _q.deadline \
            else f" (else: {_q.label_of(_q.default)})"
        _parts.append(mo.vstack([mo.Html(f"<div class='kl-q'><b>{esc(_q.kind.replace('_', ' '))}</b>: "
                                         f"{esc(_q.prompt)}<br><i>{esc(_due)}</i></div>"), answers[_q.id]]))
    if not _open:
        _parts.append(mo.md("_No question waits for you._"))
    answer_button = mo.ui.button(value=0, on_click=lambda n: n + 1, label="Send these answers", kind="success",
                                 disabled=not _open)
    get_answers_done, set_answers_done = mo.state(0)
    mo.vstack([*_parts, answer_button, mo.Html(questions_html(start))])
    return answer_button, answers, get_answers_done, set_answers_done


@app.cell(hide_code=True)
def _(answer_button, answers, get_answers_done, set_answers_done, set_outcome, set_version, start):
    # Write: the answers, once per click of "Send my answers".
    mo.stop(answer_button.value <= get_answers_done())
    set_answers_done(answer_button.value)

    def _send(camp: Any) -> str:
        sent = []
        for qid, raw in answers.value.items():
            if raw is None:
                continue  # a dropdown left empty; a list left empty is the answer "none"
            pbp.answer(camp, start["as_viewer"], qid, question_value(raw))
            sent.append(qid)
        return f"Answered {', '.join(sent) or 'nothing (choose an answer first)'}."

    set_outcome(run_write(start, "Answers", _send))
    set_version(lambda v: v + 1)
    return


@app.cell(hide_code=True)
def _(start):
    # The steps whose dice are rolled on submission (the command roll) come first: once rolled, they are
    # sealed and shown; the other steps are forms.
    sealed = sealed_steps(start)
    dice_steps = [sid for sid in start["steps"] if sid.startswith("command_")]
    _to_roll = [sid for sid in dice_steps if sid not in sealed]
    roll_forms = mo.ui.dictionary({sid: step_form(start, sid) for sid in _to_roll})
    _parts = [mo.md(f"## {esc(start['turn_unit']).capitalize()} {start['turn']}: your command")]
    for _sid in dice_steps:
        if _sid in sealed:
            _faces = "; ".join(f"{k}: {' '.join(str(x) for x in v)}" for k, v in sealed[_sid]["rolls"].items())
            _chosen = ", ".join(f"{k} {json.dumps(v)}" for k, v in sealed[_sid]["choices"].items())
            _parts.append(mo.Html(f"<p>Rolled and sealed: <span class='kl-faces'>{esc(_faces)}</span> ({esc(_chosen)})"
                                  "</p>" + start["rolled"].get(_sid, "")))
        else:
            _parts += [mo.md("Choose your stake and the rerolls you would buy. The dice are rolled once, when you "
                             "press the button, and sealed for the month."), layout(roll_forms[_sid])]
    roll_button = mo.ui.button(value=0, on_click=lambda n: n + 1, label="Make the command roll", kind="warn",
                               disabled=not _to_roll or bool(start["closed"]))
    get_rolls_done, set_rolls_done = mo.state(0)
    mo.vstack([*_parts, roll_button]) if dice_steps else None
    return get_rolls_done, roll_button, roll_forms, sealed, set_rolls_done


@app.cell(hide_code=True)
def _(get_rolls_done, roll_button, roll_forms, set_outcome, set_rolls_done, set_version, start):
    # Write: the command roll, once per click (its dice are rolled and sealed by the server).
    mo.stop(roll_button.value <= get_rolls_done())
    set_rolls_done(roll_button.value)

    def _roll(camp: Any) -> str:
        steps = {sid: {"choices": form_choices(start, sid, raw)} for sid, raw in roll_forms.value.items()}
        subs.submit(camp, start["as_viewer"], steps, turn=start["turn"])
        got = camp.submissions(start["turn"])[start["viewer"]].payload.steps
        return "Dice: " + "; ".join(f"{k} {' '.join(str(x) for x in v)}" for sid in steps
                                    for k, v in got[sid].rolls.items()) + "."

    set_outcome(run_write(start, "Command roll made", _roll))
    set_version(lambda v: v + 1)
    return


@app.cell(hide_code=True)
def _(sealed, start):
    order_steps = [sid for sid in start["steps"] if not sid.startswith("command_")]
    forms = mo.ui.dictionary({sid: step_form(start, sid) for sid in order_steps})
    note = mo.ui.text_area(value=(start["submitted"] or {}).get("note", ""), label="Note to the GM", rows=2,
                           full_width=True)
    _waiting = [sid for sid in start["steps"] if sid.startswith("command_") and sid not in sealed]
    _last = (f"_Your latest submission: seq {start['submitted_seq']}; submitting again replaces your orders._"
             if start["submitted_seq"] else "_Nothing submitted yet this month._")
    _head = [mo.md("## Your orders"), mo.md(_last)]
    if _waiting:
        _head.append(mo.md("_Make your command roll first: your orders are checked against the slots it gives._"))
    mo.vstack(_head + [mo.vstack([layout(forms[_sid]), mo.accordion({"Help": mo.Html("<br>".join(
        f"<b>{esc(c.label or c.name)}</b>: {esc(c.help)}" for c in start["choices"][_sid] if c.help))})])
                       for _sid in order_steps] + [note])
    return forms, note


@app.cell(hide_code=True)
def _(forms, sealed, start):
    try:
        steps = {sid: {"choices": form_choices(start, sid, raw)} for sid, raw in forms.value.items()}
        form_problem = None
    except KingdomlogError as exc:
        steps, form_problem = None, str(exc)
    _waiting = [sid for sid in start["steps"] if sid.startswith("command_") and sid not in sealed]
    _html, submittable = check_html(start, steps, form_problem, _waiting)
    mo.Html(f"<div class='kl-preview'>{_html}</div>")
    return steps, submittable


@app.cell(hide_code=True)
def _(start):
    # Click counters, created once per session and never re-created: each write cell below consumes
    # each new count exactly once, so a re-run or a reload never writes again.
    submit_button = mo.ui.button(value=0, on_click=lambda n: n + 1, label="Submit orders", kind="success",
                                 disabled=bool(start["closed"]))
    ready_button = mo.ui.button(value=0, on_click=lambda n: n + 1,
                                label="Not ready yet" if start["ready"] else "I'm done: ready",
                                disabled=bool(start["closed"]))
    get_submits_done, set_submits_done = mo.state(0)
    get_ready_done, set_ready_done = mo.state(0)
    mo.hstack([submit_button, ready_button], justify="start")
    return get_ready_done, get_submits_done, ready_button, set_ready_done, set_submits_done, submit_button


@app.cell(hide_code=True)
def _(
    get_submits_done,
    note,
    set_outcome,
    set_submits_done,
    set_version,
    start,
    steps,
    submit_button,
    submittable,
):
    # Write: the orders, once per click of "Submit orders"; never on load, on a change or a re-run.
    mo.stop(submit_button.value <= get_submits_done())
    set_submits_done(submit_button.value)
    if submittable and steps is not None:
        set_outcome(run_write(start, "Orders submitted", lambda camp: subs.submit(
            camp, start["as_viewer"], steps, note=note.value, turn=start["turn"]) and
            f"For {start['turn_unit']} {start['turn']}."))
    else:
        set_outcome(("danger", "**Not submitted.** Fix the orders first (see the check above)."))
    set_version(lambda v: v + 1)
    return


@app.cell(hide_code=True)
def _(get_ready_done, ready_button, set_outcome, set_ready_done, set_version, start):
    # Write: the ready flag, once per click.
    mo.stop(ready_button.value <= get_ready_done())
    set_ready_done(ready_button.value)
    _now_ready = not start["ready"]
    set_outcome(run_write(start, "Ready" if _now_ready else "Not ready", lambda camp: pbp.mark_ready(
        camp, start["as_viewer"], _now_ready, turn=start["turn"]) and (
        "The GM and the turn know you are done." if _now_ready else "You may change your orders.")))
    set_version(lambda v: v + 1)
    return


@app.cell(hide_code=True)
def _(start):
    to = mo.ui.dictionary({_p: mo.ui.checkbox(value=False, label=_p) for _p in start["others"]})
    subject = mo.ui.text(value="", label="Subject", full_width=True)
    body = mo.ui.text_area(value="", label="Message", rows=3, full_width=True)
    send_button = mo.ui.button(value=0, on_click=lambda n: n + 1, label="Send message")
    get_sent_done, set_sent_done = mo.state(0)
    mo.vstack([mo.md("## Messages"), mo.Html(messages_html(start)),
               mo.hstack([mo.md("To (none ticked: an open letter to everyone):"), *to.elements.values()],
                         justify="start", gap=1), subject, body, send_button])
    return body, get_sent_done, send_button, set_sent_done, subject, to


@app.cell(hide_code=True)
def _(body, get_sent_done, send_button, set_outcome, set_sent_done, set_version, start, subject, to):
    # Write: one message, once per click of "Send message".
    mo.stop(send_button.value <= get_sent_done())
    set_sent_done(send_button.value)
    _to = [p for p, ticked in to.value.items() if ticked]
    set_outcome(run_write(start, "Message sent", lambda camp: pbp.send_message(
        camp, start["as_viewer"], _to, body.value, subject=subject.value) and f"To {', '.join(_to) or 'everyone'}."))
    set_version(lambda v: v + 1)
    return


@app.cell(hide_code=True)
def _(view):
    mo.accordion({"Your kingdom now": mo.Html(player.overview_html(view))})
    return


if __name__ == "__main__":
    app.run()
