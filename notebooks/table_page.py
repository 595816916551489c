import marimo

__generated_with = "0.25.2"
app = marimo.App(width="compact", app_title="kingdomlog: at the table", css_file="pickers.css")

with app.setup:
    # One player's page at the table (design §7a). Served by `kingdomlog serve DIR` at /p/<player>/, behind
    # that player's own link; the server fixes the viewer (`mo.cli_args()`: --campaign DIR --viewer PLAYER),
    # never the browser. For each seat the ruleset gives the player this turn: a form of one row (the GM
    # sheet's form codec), Declare (the check and its odds, nothing drawn), Roll (the server draws the dice).
    # The player's proposals with where they stand, and the table's feed, follow the table without a
    # reload and without a cell run: each is one widget whose HTML a watcher sets in place, computed for this
    # viewer (views.table.live). Every write is behind a click counter taken once (views.table.seat).
    import marimo as mo

    from kingdomlog.core.errors import KingdomlogError
    from kingdomlog.views import forms as sf
    from kingdomlog.views.player import page as player
    from kingdomlog.views.table import live as table_live
    from kingdomlog.views.table import seat as table


@app.cell(hide_code=True)
def _():
    folder, viewer = player.view_args(mo.cli_args())
    report_link = str(mo.cli_args().get("report") or "")  # set by `kingdomlog serve`: this player's report
    return folder, report_link, viewer


@app.cell(hide_code=True)
def _():
    # The page's states: the turn it was opened for (bumped when the GM commits it), the player's acts (set
    # only when one of their proposals moved), why each seat waits, the rows of the seats' forms (set when a
    # form must be rebuilt), errors by seat and field, the last act's words, the counts of clicks taken.
    get_opened, set_opened = mo.state(0)
    get_listed, set_listed = mo.state(None)
    get_waits, set_waits = mo.state(None)
    get_rows, set_rows = mo.state({}, allow_self_loops=True)  # a late choice sets it from the forms' own cell
    get_errors, set_errors = mo.state({})
    get_said, set_said = mo.state(None)
    get_taken, set_taken = mo.state({})
    get_spoken, set_spoken = mo.state(0)
    get_declared, set_declared = mo.state(0)  # bumped when a Declare went through: its buttons are made again
    return (get_declared, get_errors, get_listed, get_opened, get_rows, get_said, get_spoken, get_taken, get_waits,
            set_declared, set_errors, set_listed, set_opened, set_rows, set_said, set_spoken, set_taken, set_waits)


@app.cell(hide_code=True)
def _(folder, get_opened, report_link, viewer):
    get_opened()
    try:
        page = table.open_page(folder, viewer, report_link)
        _problem = None
    except KingdomlogError as exc:
        page, _problem = None, player.said_to_player(exc)
    mo.stop(page is None, mo.callout(mo.md(f"**Cannot open your table.** {_problem}"), kind="danger"))
    mo.Html(table.head_html(page))
    return (page,)


@app.cell(hide_code=True)
def _(page, set_listed, set_opened, set_waits):
    # The live parts: the feed and the player's proposals, each one widget whose HTML a watcher (a mo.Thread,
    # a few stats ten times a second) sets in place when the files moved, computed for this viewer only. What
    # others do at the table runs no cell here; a state is set only when this player's acts, the seats' waits
    # (a preview of the GM's month, looked at only when the month moved) or the turn moved.
    live = table_live.live(page, listed=set_listed, waited=set_waits, turned=lambda: set_opened(lambda n: n + 1))
    feed_view, proposals_view = live.feed, live.proposals
    table_live.watch(live)
    return feed_view, live, proposals_view


@app.cell(hide_code=True)
def _(get_said):
    _said = get_said()
    mo.callout(mo.md(_said[1]), kind=_said[0]) if _said is not None else None
    return


@app.cell(hide_code=True)
def _(get_listed):
    listed = get_listed()
    mo.stop(listed is None)
    with sf.fresh_ui_ids():
        act_buttons = mo.ui.dictionary({_k: table.counter(*listed.labels[_k]) for _k in listed.acts})
    acts_build = table.page_token()
    return act_buttons, acts_build, listed


@app.cell(hide_code=True)
def _(act_buttons, listed, proposals_view):
    # The proposals (live), then what may be done with each: drawn again only when the acts moved.
    _acts = []
    for _p in listed.proposals:
        _btns = [act_buttons[_k] for _k, _a in listed.acts.items() if _a.proposal == _p.id]
        if _btns:
            _acts.append(mo.hstack([mo.Html(table.act_head_html(_p)), *_btns], justify="start", wrap=True, gap=0.4))
    mo.vstack([mo.md("## Your proposals"), table_live.shown(proposals_view), *_acts], gap=0.4)
    return


@app.cell(hide_code=True)
def _(act_buttons, acts_build, get_taken, listed, live, page, set_said, set_taken):
    # Write: Roll, Withdraw, a re-roll, once per click taken, each only if its proposal stands as drawn.
    _new = table.new_clicks(act_buttons.value, get_taken(), acts_build)
    mo.stop(not _new)
    set_taken(lambda t: table.took(t, acts_build, _new))
    _said = []
    for _k in _new:
        try:
            _said.append(("success", table.run_act(page, listed.acts[_k])))
        except KingdomlogError as exc:
            _said.append(("danger", f"**Not done.** {player.said_to_player(exc)}"))
    set_said(("danger" if any(k == "danger" for k, _ in _said) else "success", " ".join(w for _, w in _said)))
    table_live.refresh(live)  # this page at once: its proposals, the feed, its acts
    return


@app.cell(hide_code=True)
def _():
    # The builds of the seats' forms a choice may still arrive for while they are rebuilt (made once a session).
    seat_input = table.SeatInput()
    return (seat_input,)


@app.cell(hide_code=True)
def _(get_rows, get_waits, page, seat_input, set_rows, set_said):
    # The seats' forms: made again only when a seat opens or a choice changes what the others offer. A choice
    # made on the forms before (while these were built) is placed on these (views.table.seat.SeatInput).
    _waits = get_waits()
    mo.stop(_waits is None)
    seat_forms = [table.seat_form(page, _i, get_rows().get(_i), _waits[_i]) for _i in range(len(page.seats))]
    seat_input.rebuild, seat_input.tell = set_rows, set_said
    with sf.fresh_ui_ids():
        row_forms = seat_input.dictionary(seat_forms)
    seats_busy = seat_input.busy
    return row_forms, seat_forms, seats_busy


@app.cell(hide_code=True)
def _(get_declared, get_waits):
    # The Declare buttons: not made again when a form is (a press while the form rebuilds is not lost), but once a
    # Declare went through (its seat's form starts fresh: a press that followed it on the old button is its double
    # click, and does nothing).
    get_declared()
    mo.stop(get_waits() is None)
    with sf.fresh_ui_ids():
        declare_buttons = mo.ui.dictionary({str(_i): table.counter("Declare", "success", disabled=bool(_w))
                                            for _i, _w in enumerate(get_waits())})
    forms_build = table.page_token()
    return declare_buttons, forms_build


@app.cell(hide_code=True)
def _(declare_buttons, get_errors, page, row_forms, seat_forms, seats_busy):
    _view = sf.View(row_forms)
    _errors = get_errors()
    _cards = [mo.vstack([mo.Html(table.seat_head_html(_f.seat)),
                         table.row_layout(_f, _view.get(str(_i), {}), _errors.get(_i, {})),
                         declare_buttons[str(_i)]], gap=0.4) for _i, _f in enumerate(seat_forms)]
    _none = [mo.md(f"_No seat is yours this {page.unit}: you watch the table._")] if not seat_forms else []
    mo.vstack([mo.md("## Your seats"), *_none, mo.Html(table.seats_html(_cards, seats_busy))])
    return


@app.cell(hide_code=True)
def _(page, row_forms, seat_forms, seat_input, set_rows):
    # A choice that changes what the row offers (another activity: its skills) rebuilds the form, values kept.
    _tree = sf.unflatten(row_forms.value)
    _rows, _rebuild = {}, False
    for _i, _f in enumerate(seat_forms):
        if _f.wait:
            continue
        _row = table.settled(_f, table.read_row(_f, _tree.get(str(_i)) or {})[0])
        _rows[_i] = _row
        _rebuild = _rebuild or table.seat_form(page, _i, _row, _f.wait).key != _f.key
    if _rebuild:
        seat_input.rebuilding()  # the forms on the page are disabled until the new ones are drawn
        set_rows(_rows)
    return


@app.cell(hide_code=True)
def _(declare_buttons, forms_build, get_taken, live, page, row_forms, seat_forms, seat_input, set_declared,
      set_errors, set_rows, set_said, set_taken):
    # Write: Declare, once per click taken; a second press on a row already declared writes nothing. A seat whose
    # row went through starts fresh; a refused one keeps everything typed (its widgets are not made again).
    _new = table.new_clicks(declare_buttons.value, get_taken(), forms_build)
    mo.stop(not _new)
    set_taken(lambda t: table.took(t, forms_build, _new))
    _tree = sf.unflatten(row_forms.value)
    _errs, _said, _fresh = {}, [], []
    for _k in _new:
        _i = int(_k)
        _f = seat_forms[_i]
        _row, _bad = table.read_row(_f, _tree.get(_k) or {})
        if _bad:
            _errs[_i] = {str(e.path[0]): e.message for e in _bad}
            _said.append(("danger", f"**{_f.seat.label}: not declared.** Fix the marked choices."))
            continue
        try:
            _p, _words = table.declare_once(page, _i, _row)
            _errs[_i] = {}
            _fresh.append(_i)
            _said.append(("success", f"**{_words}**"))
        except KingdomlogError as exc:
            _field, _words = table.error_at(_f, player.said_to_player(exc))
            _errs[_i] = {_field: _words}
            _said.append(("danger", f"**{_f.seat.label}: not declared.** {_words}"))
    set_errors(lambda e: {**e, **_errs})
    set_said(("danger" if any(k == "danger" for k, _ in _said) else "success", " ".join(w for _, w in _said)))
    if _fresh:
        seat_input.rebuilding()  # the forms on the page are disabled until the fresh ones are drawn
        set_rows(table.after_declare(seat_forms, _tree, _fresh))
        set_declared(lambda n: n + 1)
    table_live.refresh(live)  # this page at once: its proposals, the feed, its acts
    return


@app.cell(hide_code=True)
def _(get_spoken):
    get_spoken()  # made again (empty) after each line said
    say_text = mo.ui.text(value="", placeholder="say something to the table", full_width=True)
    say_button = table.counter("Say")
    say_build = table.page_token()
    return say_build, say_button, say_text


@app.cell(hide_code=True)
def _(feed_view, say_button, say_text):
    mo.vstack([mo.md("## The table"),
               mo.hstack([say_text, say_button], widths=[4, 1]), table_live.shown(feed_view)], gap=0.4)
    return


@app.cell(hide_code=True)
def _(get_taken, live, page, say_build, say_button, say_text, set_said, set_spoken, set_taken):
    # Write: a line of talk to the table, once per click.
    _new = table.new_clicks({"say": say_button.value}, get_taken(), say_build)
    mo.stop(not _new)
    set_taken(lambda t: table.took(t, say_build, _new))
    try:
        table.say(page, say_text.value)
        set_said(None)
        set_spoken(lambda n: n + 1)
    except KingdomlogError as exc:
        set_said(("danger", f"**Not said.** {player.said_to_player(exc)}"))
    table_live.refresh(live)  # this page at once: its proposals, the feed, its acts
    return


if __name__ == "__main__":
    app.run()
