import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="kingdomlog: orders sheet")

with app.setup:
    # One player's orders sheet. Served by `kingdomlog orders DIR --as FACTION`, which fixes the
    # viewer on the server side (`-- --campaign DIR --viewer FACTION`). It reads only what that
    # player may see (Campaign.state(viewer=...), the player view) and its only write is
    # Campaign.submit for that player: one core.plan_submitted, visible to the player and the GM.
    from pathlib import Path
    from typing import Any

    import marimo as mo

    from kingdomlog.app import Campaign
    from kingdomlog.core.errors import InputError, KingdomlogError
    from kingdomlog.views import player, sheet
    from kingdomlog.views.html import STYLE, draft_items, esc


@app.function
def open_orders(folder: Path, viewer: str) -> dict[str, Any]:
    """The player's next turn: redacted state, own steps, their choices, the own latest submission."""
    camp = Campaign.open(folder)
    v = camp.viewer(viewer)
    if not v.is_player:
        raise InputError(f"{viewer!r} is not a player of this campaign")
    who = v.id
    turn = camp.next_turn()
    state = camp.state(viewer=v)
    steps = camp.player_steps(v)
    rs = camp.ruleset
    choices = {sid: rs.choices(state, turn, sid) for sid in steps}
    mine = camp.submissions(turn).get(who)
    submitted = mine.payload.model_dump(mode="json") if mine is not None else None
    return {"folder": Path(folder), "viewer": who, "turn": turn, "name": camp.config.name,
            "turn_unit": rs.turn_unit, "steps": steps, "choices": choices,
            "submitted": submitted, "submitted_seq": mine.seq if mine is not None else None}


@app.function
def step_forms(start: dict[str, Any]) -> Any:
    """One ``mo.ui.dictionary`` per own step, each choice's widget set to the latest submission (else default)."""
    given = (start["submitted"] or {}).get("steps", {})
    forms = {}
    for sid in start["steps"]:
        values = given.get(sid, {}).get("choices", {})
        forms[sid] = mo.ui.dictionary({
            c.name: sheet.choice_widget(c, values[c.name]) if c.name in values else sheet.choice_widget(c)
            for c in start["choices"][sid]
        })
    return mo.ui.dictionary(forms)


@app.function
def submission_steps(start: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    """``{step: {"choices": {...}}}`` from the form values (empty inputs left out: the rules' defaults apply)."""
    out: dict[str, Any] = {}
    for sid in start["steps"]:
        raw = values.get(sid, {})
        chosen = {}
        for c in start["choices"][sid]:
            if c.name in raw:
                ok, v = sheet.choice_value(c, raw[c.name], step=sid)
                if ok:
                    chosen[c.name] = v
        out[sid] = {"choices": chosen}
    return out


@app.function
def check_html(start: dict[str, Any], steps: dict[str, Any] | None, problem: str | None) -> tuple[str, bool]:
    """The preview of the submission as HTML, and whether it can be submitted."""
    if problem:
        return f"<p class='kl-error'><b>Cannot read the form.</b> {esc(problem)}</p>", False
    try:
        check = Campaign.open(start["folder"]).check_submission(start["viewer"], steps or {})
    except KingdomlogError as exc:
        return f"<p class='kl-error'><b>These orders would be refused.</b> {esc(exc)}</p>", False
    parts = ["<p><b>These orders pass the rules' checks.</b></p>"]
    for sid, st in check.steps.items():
        parts += [f"<h3 class='kl-h3'>{esc(sid)}</h3>"]
        if sid in check.fresh:
            parts += ["<p>Your dice for this step are rolled when you submit; its choices are then sealed"
                      " for this turn.</p>"]
        else:
            for key, faces in st.rolls.items():
                parts += [f"<p>Roll <code>{esc(key)}</code>: {esc(' '.join(str(f) for f in faces))}"
                          " (sealed)</p>"]
            parts += [draft_items(check.events.get(sid, []))]
    if check.fresh:
        parts += ["<p><i>Later steps were checked against a trial roll; the real dice are rolled on"
                  " submit.</i></p>"]
    return "".join(parts), True


@app.function
def submit_orders(start: dict[str, Any], steps: dict[str, Any], note: str) -> tuple[str, str]:
    """Submit for the sheet's viewer (the only write); returns (callout kind, message)."""
    try:
        camp = Campaign.open(start["folder"])
        res = camp.submit(start["viewer"], steps, note=note)
    except KingdomlogError as exc:
        return "danger", f"**Not submitted.** {exc}"
    sub = camp.submissions(start["turn"])[start["viewer"]].payload
    rolled = "; ".join(f"{sid} {key}: {' '.join(str(f) for f in faces)}"
                       for sid, st in sub.model_dump(mode="json")["steps"].items()
                       for key, faces in st["rolls"].items())
    return "success", (f"**Submitted** for {start['turn_unit']} {start['turn']} (seq {res.first_seq})."
                       + (f" Dice: {rolled}." if rolled else ""))


@app.cell(hide_code=True)
def _():
    folder, viewer = player.view_args(mo.cli_args())
    return folder, viewer


@app.cell(hide_code=True)
def _():
    # Reload after a submission; the last submission's message.
    get_version, set_version = mo.state(0)
    get_outcome, set_outcome = mo.state(None)
    return get_outcome, get_version, set_outcome, set_version


@app.cell(hide_code=True)
def _(folder, get_version, viewer):
    get_version()
    try:
        start = open_orders(folder, viewer)
        view = player.player_view(folder, start["viewer"])
        load_problem = None
    except KingdomlogError as exc:
        start, view, load_problem = None, None, str(exc)
    mo.stop(start is None, mo.callout(mo.md(f"**Cannot open the orders sheet.** {load_problem}"), kind="danger"))
    mo.Html(f"<style>{STYLE}{player.STYLE}</style>" + player.title_html(view) + player.overview_html(view))
    return (start,)


@app.cell(hide_code=True)
def _(start):
    forms = step_forms(start)
    note = mo.ui.text_area(value=(start["submitted"] or {}).get("note", ""), label="Note to the GM", rows=2,
                           full_width=True)
    _head = (f"## Orders for {start['turn_unit']} {start['turn']}"
             + ("" if start["steps"] else "\n\n_You have nothing to submit this turn._"))
    _last = (f"_Your latest submission: seq {start['submitted_seq']}; submitting again replaces it._"
             if start["submitted_seq"] else "_Nothing submitted yet this turn._")
    mo.vstack([mo.md(_head), mo.md(_last)] + [
        mo.vstack([mo.md(f"### {sid}"), forms[sid],
                   mo.accordion({"Help": mo.Html("<br>".join(
                       f"<b>{esc(c.name)}</b>: {esc(c.help)}" for c in start["choices"][sid] if c.help))})])
        for sid in start["steps"]
    ] + [note])
    return forms, note


@app.cell(hide_code=True)
def _(forms, start):
    try:
        steps = submission_steps(start, forms.value)
        form_problem = None
    except KingdomlogError as exc:
        steps, form_problem = None, str(exc)
    _html, submittable = check_html(start, steps, form_problem)
    mo.Html(f"<div class='kl-preview'>{_html}</div>")
    return steps, submittable


@app.cell(hide_code=True)
def _():
    # A click counter, created once per session and never re-created: the cell below consumes each
    # new count exactly once, so a re-run or a reload can never submit again.
    submit_button = mo.ui.button(value=0, on_click=lambda n: n + 1, label="Submit orders", kind="success")
    get_submits_done, set_submits_done = mo.state(0)
    mo.hstack([submit_button], justify="start")
    return get_submits_done, set_submits_done, submit_button


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
    # The only write: once per click of "Submit orders"; never on load, on a change or a re-run.
    mo.stop(submit_button.value <= get_submits_done())
    set_submits_done(submit_button.value)
    if submittable and steps is not None:
        set_outcome(submit_orders(start, steps, note.value))
    else:
        set_outcome(("danger", "**Not submitted.** Fix the orders first (see the check above)."))
    set_version(lambda v: v + 1)
    return


@app.cell(hide_code=True)
def _(get_outcome):
    outcome = get_outcome()
    mo.callout(mo.md(outcome[1]), kind=outcome[0]) if outcome is not None else None
    return


if __name__ == "__main__":
    app.run()
