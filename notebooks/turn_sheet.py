import marimo

__generated_with = "0.25.2"
app = marimo.App(width="full", app_title="kingdomlog: GM turn sheet", css_file="turn_sheet.css")

with app.setup:
    # The GM's turn sheet (design §6), served as an app by `kingdomlog gm DIR` (`--edit` opens
    # this notebook in marimo's editor). Every rule lives in the campaign's ruleset; the cells
    # below only call kingdomlog.views.sheet.draft (the draft), sheet_cards (the steps) and
    # sheet_panel (the kingdom); sheet_live redraws the parts of the page an edit changes.
    import marimo as mo

    from kingdomlog.views import extras as sheet_extras
    from kingdomlog.views.sheet import cards as sheet_cards
    from kingdomlog.views.sheet import commit as sheet_commit
    from kingdomlog.views.sheet import draft as sheet
    from kingdomlog.views.sheet import late as sheet_late
    from kingdomlog.views.sheet import live as sheet_live
    from kingdomlog.views.sheet import panel as sheet_panel
    from kingdomlog.views.sheet import table as sheet_table


@app.cell(hide_code=True)
def _():
    folder = sheet.campaign_folder(mo.cli_args())
    return (folder,)


@app.cell(hide_code=True)
def _():
    # get_reload: (count, why, campaign, widgets) bumped after a commit or an undo (the campaign the sheet held,
    # after a commit: the next month opens on it, decoding only the batch just appended; and the widgets on the
    # page: the next month keeps each one that shows what its own would); get_outcome: what it did;
    # get_layout: bumped when the widgets must be rebuilt (options, rows or dice keys changed; also by a change
    # that came for widgets already rebuilt, which marimo credits to the cell that made them: self loops).
    # get_ready: whether the draft can be committed (the Commit button is made again when it flips).
    # get_page: bumped when the page must be drawn again with the same widgets (an error moved).
    # get_merge: bumped when the rows accepted at the table moved: the draft is previewed again.
    get_reload, set_reload = mo.state((0, "", None, None))
    get_outcome, set_outcome = mo.state(None)
    get_layout, set_layout = mo.state(0, allow_self_loops=True)
    get_ready, set_ready = mo.state(None)
    get_page, set_page = mo.state(0)
    get_merge, set_merge = mo.state(0)
    return (
        get_layout,
        get_merge,
        get_outcome,
        get_page,
        get_ready,
        get_reload,
        set_layout,
        set_merge,
        set_outcome,
        set_page,
        set_ready,
        set_reload,
    )


@app.cell(hide_code=True)
def _(folder, get_reload):
    session, open_message = sheet.open_session(folder, after_commit=get_reload()[1] == "commit",
                                               after_action=get_reload()[1] == "action",
                                               camp=get_reload()[2], widgets=get_reload()[3])
    mo.stop(session is None, mo.callout(mo.md(f"**Cannot open the campaign.** {open_message}"), kind="danger"))
    return (session,)


@app.cell(hide_code=True)
def _(get_layout, session, set_layout, set_outcome):
    get_layout()
    forms = sheet_late.widgets(session, set_layout, set_outcome)
    live = sheet_live.live_parts(session, forms)
    return forms, live


@app.cell(hide_code=True)
def _(session):
    # The dice buttons of the page (Roll, your dice, Re-roll…, Roll all) reach the session through `pad`:
    # a check's die is drawn on the server when its Roll is pressed, never before (design §5).
    pad = sheet_live.roll_pad(session)
    mo.Html(sheet_live.hidden(pad))
    return (pad,)


@app.cell(hide_code=True)
def _(forms, get_merge, live, pad, session, set_page, set_ready):
    # Every change of a widget or press of a dice button: read the plan back, preview it and send the parts
    # of the page it changes (`live`; saved just after). Only this cell names `forms` and `pad`, so only this
    # cell runs on an edit or a Roll; each press is taken once. A row accepted at the table (or sent back, or
    # re-rolled once accepted) previews again: the accepted rows are in the month.
    get_merge()
    draft = session.update(forms.value, save=False, press=pad.value)
    if session.ready_changed():
        set_ready(draft.committable)
    if sheet_live.show(live, session, draft):
        set_page(lambda n: n + 1)
    return (draft,)


@app.cell(hide_code=True)
def _(session):
    mo.Html(sheet_cards.header_html(session))
    return


@app.cell(hide_code=True)
def _(session):
    # Play by post: who has submitted, is ready, is missing; open questions (as the sheet opened).
    table_status = sheet_panel.table_status_html(session.start.camp)
    return (table_status,)


@app.cell(hide_code=True)
def _(get_ready, session):
    # Made again for each session and whenever the draft turns committable or not: disabled while a
    # step is refused. A click names the draft the button was drawn for (views.sheet.commit).
    get_ready()
    commit_button = sheet_commit.control(session)
    commit_laid = sheet_live.Laid(commit_button)  # what the page lays out: a click does not draw the page again
    return commit_button, commit_laid


@app.cell(hide_code=True)
def _(session):
    _last = sheet.last_turn_label(session)
    undo_button = mo.ui.button(
        value=0, on_click=lambda n: n + 1, kind="danger", disabled=_last is None,
        label=f"↶ Undo {_last}" if _last else "↶ Undo", tooltip="Asks first; nothing is deleted",
    )
    undo_laid = sheet_live.Laid(undo_button)
    return undo_button, undo_laid


@app.cell(hide_code=True)
def _(undo_button):
    mo.stop(not undo_button.value)
    confirm_undo = mo.ui.button(value=0, on_click=lambda n: n + 1, kind="danger", label="Yes, undo it")
    cancel_undo = mo.ui.button(value=0, on_click=lambda n: n + 1, kind="neutral", label="No, keep it")
    return cancel_undo, confirm_undo


@app.cell(hide_code=True)
def _(cancel_undo, confirm_undo, session):
    mo.stop(cancel_undo.value > 0 or confirm_undo.value > 0)
    mo.callout(mo.vstack([
        mo.md(sheet_cards.undo_question(session)),
        mo.hstack([confirm_undo, cancel_undo], justify="start"),
    ]), kind="warn")
    return


@app.cell(hide_code=True)
def _(commit_button, session, set_outcome, set_reload):
    # The only write of a turn: a click of Commit naming this session's draft, taken once; never on load,
    # on a change or a re-run, under `python turn_sheet.py` or under app.run().
    _done = sheet_commit.take(commit_button, session)
    mo.stop(_done is None)
    set_outcome(lambda _before: sheet_commit.shown(_before, _done))
    if _done.kind in ("success", "danger"):
        set_reload(lambda r: (r[0] + 1, "commit" if _done.kind == "success" else "refused", session.start.camp,
                              sheet_late.on_page(session)))
    return


@app.cell(hide_code=True)
def _(confirm_undo, session, set_outcome, set_reload):
    # Undo appends core.turn_retracted: once per confirmed click. The page is disabled until the sheet reopens.
    mo.stop(not confirm_undo.value)
    sheet_live.rebuilding(session)
    _done = sheet.undo(session)
    mo.stop(_done is None)
    set_outcome(_done)
    set_reload(lambda r: (r[0] + 1, "undo", None, None))
    return


@app.cell(hide_code=True)
def _(get_outcome, session):
    mo.Html(sheet_cards.outcome_html_box(get_outcome(), session))
    return


@app.cell(hide_code=True)
def _(session, set_merge):
    # The Table (views.sheet.table): each player's proposals with Accept, Accept all, Send back and Re-roll by
    # GM ruling, and the feed. A watcher (a mo.Thread) looks at the table's file ten times a second and draws
    # the panel in place when it moved; the draft follows when the rows accepted at the table moved.
    table_panel = sheet_table.panel(session)
    sheet_table.watch(session, table_panel, set_merge)
    mo.Html(sheet_table.shown(session, table_panel))
    return (table_panel,)


@app.cell(hide_code=True)
def _(session, set_merge, table_panel):
    # A press in the Table panel, taken once (what it did is said beside the proposal); then the panel is
    # drawn as the table stands, and the draft told when the rows accepted at the table moved.
    sheet_table.pressed(session, table_panel, set_merge)
    return


@app.cell(hide_code=True)
def _(commit_laid, get_page, live, session, table_status, undo_laid):
    # The page, drawn when the widgets are built (or an error moved to another widget, or Commit
    # turned on or off); every other edit redraws only its live parts, in place. It names the buttons'
    # holders, not the buttons: a click on Commit or Undo does not draw it again (views.sheet.live.Laid). Only the
    # first cards' widgets go with it; the next cell sends the others.
    get_page()
    page_drawn = sheet_live.page(live, session, commit_laid, undo_laid, table_status, first=sheet_live.FIRST_LEFTS)
    mo.Html(page_drawn)
    return (page_drawn,)


@app.cell(hide_code=True)
def _(live, page_drawn, session):
    # The widgets of the cards after the first few, sent once the page is: the window shows the first cards
    # first (views.sheet.live.rest; the page's script mounts these after it is drawn).
    assert page_drawn is not None
    sheet_live.rest(live, session)
    return


@app.cell(hide_code=True)
def _(draft, session, set_layout):
    # After the cards are shown: save the draft beside the log, and rebuild the widgets if the
    # draft changed what they offer (options, entries, dice keys, a step switched to JSON).
    session.save()
    if session.refresh_forms(draft):
        sheet_live.rebuilding(session)
        set_layout(lambda n: n + 1)
    return


@app.cell(hide_code=True)
def _(session):
    # The ruleset's own panels (views.extras: aikakirjat's years ahead), each drawn only when opened.
    _panels = sheet_extras.extras_for(session.start.camp.config.ruleset).panels
    mo.stop(not _panels)
    mo.accordion({_p.title: (lambda _p=_p: mo.Html(_p.html(session.start.folder, sheet.panel_seed(session))))
                  for _p in _panels}, lazy=True)
    return


@app.cell(hide_code=True)
def _(session):
    # The ruleset's own actions on the draft (views.extras: signoria's Publish the opening), a form each.
    sheet_actions = sheet_extras.action_forms(sheet_extras.extras_for(session.start.camp.config.ruleset),
                                               session.start.ruleset, session.start.state)
    mo.stop(sheet_actions is None)
    mo.vstack([sheet_actions[_name] for _name in sheet_actions.elements])
    return (sheet_actions,)


@app.cell(hide_code=True)
def _(session, set_outcome, set_reload, sheet_actions):
    # One submission, one run; the sheet then reopens on the log it wrote to.
    _done = sheet_extras.take_action(sheet_extras.extras_for(session.start.camp.config.ruleset), sheet_actions,
                                     session)
    mo.stop(_done is None)
    set_outcome(_done)
    if _done.kind == "success":
        set_reload(lambda r: (r[0] + 1, "action", None, None))
    return


@app.cell(hide_code=True)
def _():
    plan_file = mo.ui.file(filetypes=[".json"], label="Load a plan file (JSON) as the draft")
    return (plan_file,)


@app.cell(hide_code=True)
def _(plan_file, session, set_layout):
    mo.stop(not plan_file.value)
    _msg = sheet.load_plan_file(session, plan_file.name(), plan_file.contents())
    sheet_live.rebuilding(session)
    set_layout(lambda n: n + 1)
    mo.callout(mo.md(_msg.text), kind=_msg.kind)
    return


@app.cell(hide_code=True)
def _(plan_file, session):
    mo.accordion({"Advanced: the draft as a plan file": mo.vstack([
        mo.md(sheet_cards.plan_file_help(session)),
        mo.download(data=lambda: session.plan.to_json().encode(), filename=f"{session.start.campaign}-turn-"
                    f"{session.start.turn}.plan.json", mimetype="application/json", label="Download the draft plan"),
        plan_file,
    ])})
    return


if __name__ == "__main__":
    app.run()
