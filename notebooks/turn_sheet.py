import marimo

__generated_with = "0.25.2"
app = marimo.App(width="full", app_title="kingdomlog: GM turn sheet", css_file="turn_sheet.css")

with app.setup:
    # The GM's reactive turn sheet (design §6). Open it with `kingdomlog gm DIR`, or
    # `marimo edit notebooks/turn_sheet.py -- --campaign DIR`. Every rule lives in the
    # campaign's ruleset; the cells below only call kingdomlog.views.sheet.
    import marimo as mo

    from kingdomlog.views import sheet


@app.cell(hide_code=True)
def _():
    folder = sheet.campaign_folder(mo.cli_args())
    return (folder,)


@app.cell(hide_code=True)
def _():
    # Reload after a commit or an undo; the dice state (re-rolls, typed faces) of the draft;
    # the last commit/undo message.
    get_version, set_version = mo.state(0)
    get_dice, set_dice = mo.state({})
    get_outcome, set_outcome = mo.state(None)
    return get_dice, get_outcome, get_version, set_dice, set_outcome, set_version


@app.cell(hide_code=True)
def _():
    plan_file = mo.ui.file(filetypes=[".json"], label="Load a draft plan (JSON)")
    return (plan_file,)


@app.cell(hide_code=True)
def _(folder, get_version, plan_file, set_dice):
    get_version()
    start, load_message = sheet.open_sheet(
        folder,
        plan_file.name() if plan_file.value else None,
        plan_file.contents() if plan_file.value else None,
    )
    set_dice(sheet.plan_dice(start.plan) if start is not None else {})
    mo.stop(start is None, mo.callout(mo.md(f"**Cannot open the campaign.** {load_message}"), kind="danger"))
    mo.vstack([
        mo.Html(sheet.header_html(start)),
        plan_file,
        mo.callout(load_message, kind="warn") if load_message else mo.md(""),
    ])
    return (start,)


@app.cell(hide_code=True)
def _(start):
    forms = sheet.phase_forms(start)
    return (forms,)


@app.cell(hide_code=True)
def _(forms, get_dice, start):
    draft = sheet.draft_turn(start, forms.value, get_dice())
    mo.callout(mo.md(f"**This draft cannot be previewed.** {draft.problem}"), kind="danger") if draft.problem else None
    return (draft,)


@app.cell(hide_code=True)
def _(draft, get_dice, set_dice):
    dice = sheet.dice_controls(
        draft.preview, get_dice(), on_change=lambda v: set_dice(sheet.dice_from_controls(v))
    )
    return (dice,)


@app.cell(hide_code=True)
def _(dice, draft, forms, start):
    mo.vstack(sheet.step_sections(start, draft.preview, forms, dice))
    return


@app.cell(hide_code=True)
def _(draft, start):
    _save_plan = mo.download(
        data=(draft.plan.to_json() if draft.plan is not None else "{}").encode(),
        filename=f"{start.campaign}-turn-{start.turn}.plan.json",
        mimetype="application/json",
        label="Save draft plan",
    )
    mo.vstack([
        mo.Html(sheet.turn_events_html(start, draft.preview)) if draft.preview is not None else mo.md(""),
        _save_plan,
    ])
    return


@app.cell(hide_code=True)
def _():
    # Click counters, created once per session and never re-created, so a click cannot be
    # replayed by a re-run: the cells below consume each new count exactly once.
    commit_button = mo.ui.button(value=0, on_click=lambda n: n + 1, label="Commit turn", kind="success")
    undo_button = mo.ui.button(value=0, on_click=lambda n: n + 1, label="Undo last turn", kind="danger")
    get_commits_done, set_commits_done = mo.state(0)
    get_undos_done, set_undos_done = mo.state(0)
    mo.hstack([commit_button, undo_button], justify="start")
    return (
        commit_button,
        get_commits_done,
        get_undos_done,
        set_commits_done,
        set_undos_done,
        undo_button,
    )


@app.cell(hide_code=True)
def _(
    commit_button,
    draft,
    get_commits_done,
    set_commits_done,
    set_outcome,
    set_version,
    start,
):
    # The only write of a turn: once per click of "Commit turn"; never on load, on a change,
    # on a re-run, under `python turn_sheet.py` or under app.run().
    mo.stop(commit_button.value <= get_commits_done())
    set_commits_done(commit_button.value)
    set_outcome(sheet.commit_draft(start, draft))
    set_version(lambda v: v + 1)
    return


@app.cell(hide_code=True)
def _(get_undos_done, set_outcome, set_undos_done, set_version, start, undo_button):
    # Undo appends core.turn_retracted: once per click of "Undo last turn".
    mo.stop(undo_button.value <= get_undos_done())
    set_undos_done(undo_button.value)
    set_outcome(sheet.undo_last(start))
    set_version(lambda v: v + 1)
    return


@app.cell(hide_code=True)
def _(get_outcome):
    outcome = get_outcome()
    mo.callout(mo.md(outcome.text), kind=outcome.kind) if outcome is not None else None
    return


if __name__ == "__main__":
    app.run()
