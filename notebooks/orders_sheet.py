import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="kingdomlog: orders sheet", css_file="pickers.css")

with app.setup:
    # One player's orders sheet. Served by `kingdomlog serve DIR` (one page per faction, behind its own
    # link) or `kingdomlog orders DIR --as FACTION`; either fixes the viewer on the server side
    # (`mo.cli_args()`: --campaign DIR --viewer FACTION). It reads only what that player may see (its
    # redacted view after the GM's published opening, its own questions, the messages it may read) and
    # writes only that player's words: its submission (core.plan_submitted), its answers, its ready flag
    # and its messages, each once per click of its button. The library is views.orders; the form is the
    # GM sheet's form codec (views.forms). What only one ruleset's sheet has (signoria's hidden fields and
    # command roll) comes from its extras (views.extras), as start["extras"].
    from typing import Any

    import marimo as mo

    from kingdomlog.app import pbp
    from kingdomlog.app import submissions as subs
    from kingdomlog.core.errors import InputError, KingdomlogError
    from kingdomlog.views import orders
    from kingdomlog.views.player import page as player


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
        start = orders.open_orders(folder, viewer)
        view = player.player_view(folder, start["viewer"])
        _problem = None
    except KingdomlogError as exc:
        start, view, _problem = None, None, player.said_to_player(exc)
    mo.stop(start is None, mo.callout(mo.md(f"**Cannot open the orders sheet.** {_problem}"), kind="danger"))
    mo.Html(orders.head_html(start, view, report_link))
    return start, view


@app.cell(hide_code=True)
def _(get_outcome):
    _outcome = get_outcome()
    mo.callout(mo.md(_outcome[1]), kind=_outcome[0]) if _outcome is not None else None
    return


@app.cell(hide_code=True)
def _(start):
    answers = orders.questions_form(start)
    _open = orders.open_questions(start)
    _parts = [mo.md("## Questions for you")]
    _parts += [mo.vstack([mo.Html(orders.question_html(_q)), answers[_q.id]]) for _q in _open]
    if not _open:
        _parts.append(mo.md("_No question waits for you._"))
    answer_button = mo.ui.button(value=0, on_click=lambda n: n + 1, label="Send these answers", kind="success",
                                 disabled=not _open)
    get_answers_done, set_answers_done = mo.state(0)
    mo.vstack([*_parts, answer_button, mo.Html(orders.questions_html(start))])
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
            pbp.answer(camp, start["as_viewer"], qid, orders.question_value(raw), turn=start["turn"])
            sent.append(qid)
        return f"Answered {', '.join(sent) or 'nothing (choose an answer first)'}."

    set_outcome(orders.run_write(start, "Answers", _send))
    set_version(lambda v: v + 1)
    return


@app.cell(hide_code=True)
def _(start):
    # What only this ruleset's orders sheet has (views.extras): fields asked elsewhere, a roll made first.
    extras = start["extras"]
    first = extras.orders_first_roll
    return extras, first


@app.cell(hide_code=True)
def _(extras, first, start):
    # The steps rolled on submission before the others (the command roll) come first: once rolled, they
    # are sealed and shown; the other steps are forms.
    sealed = orders.sealed_steps(start)
    dice_steps = orders.first_steps(start, first)
    _to_roll = [sid for sid in dice_steps if sid not in sealed]
    roll_forms = orders.orders_form(start, _to_roll, extras.orders_hidden, extras.orders_other_example)
    _parts = [mo.md(f"## {start['turn_unit'].capitalize()} {start['turn']}: {first.heading}")] if first else []
    for _sid in dice_steps:
        if _sid in sealed:
            _parts.append(mo.Html(orders.sealed_html(start, sealed, _sid)))
        elif first is not None:
            _parts += [mo.md(first.intro), orders.form_layout(start, roll_forms, _sid)]
    roll_button = mo.ui.button(value=0, on_click=lambda n: n + 1, label=first.button if first else "Roll",
                               kind="warn", disabled=not _to_roll or bool(start["closed"]))
    get_rolls_done, set_rolls_done = mo.state(0)
    mo.vstack([*_parts, roll_button]) if dice_steps else None
    return dice_steps, get_rolls_done, roll_button, roll_forms, sealed, set_rolls_done


@app.cell(hide_code=True)
def _(dice_steps, extras, first, get_rolls_done, roll_button, roll_forms, sealed, set_outcome, set_rolls_done,
      set_version, start):
    # Write: the first roll, once per click (its dice are rolled and sealed by the server).
    mo.stop(roll_button.value <= get_rolls_done())
    set_rolls_done(roll_button.value)
    _steps, _problem = orders.read_orders(start, roll_forms.value, [s for s in dice_steps if s not in sealed],
                                          extras.orders_hidden)

    def _roll(camp: Any) -> str:
        if _steps is None:
            raise InputError(_problem)
        subs.submit(camp, start["as_viewer"], _steps, turn=start["turn"])
        return orders.dice_words(camp, start, _steps)

    set_outcome(orders.run_write(start, first.made if first else "Roll", _roll))
    set_version(lambda v: v + 1)
    return


@app.cell(hide_code=True)
def _(dice_steps, extras, first, sealed, start):
    order_steps = [sid for sid in start["steps"] if sid not in dice_steps]
    forms = orders.orders_form(start, order_steps, extras.orders_hidden, extras.orders_other_example)
    note = mo.ui.text_area(value=(start["submitted"] or {}).get("note", ""), label="Note to the GM", rows=2,
                           full_width=True)
    _head = [mo.md("## Your orders"), mo.md(orders.submission_md(start))]
    if first is not None and any(sid not in sealed for sid in dice_steps):
        _head.append(mo.md(f"_{first.waiting}_"))
    mo.vstack(_head + [mo.vstack([orders.form_layout(start, forms, _sid), mo.accordion(
        {"Help": mo.Html(orders.help_html(start, _sid))})]) for _sid in order_steps] + [note])
    return forms, note, order_steps


@app.cell(hide_code=True)
def _(dice_steps, extras, first, forms, order_steps, sealed, start):
    steps, _problem = orders.read_orders(start, forms.value, order_steps, extras.orders_hidden)
    _waiting = [sid for sid in dice_steps if sid not in sealed]
    _html, submittable = orders.check_html(start, steps, _problem, _waiting, first)
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
        set_outcome(orders.run_write(start, "Orders submitted", lambda camp: subs.submit(
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
    set_outcome(orders.run_write(start, "Ready" if _now_ready else "Not ready", lambda camp: pbp.mark_ready(
        camp, start["as_viewer"], _now_ready, turn=start["turn"]) and (
        "The GM and the turn know you are done." if _now_ready else "You may change your orders.")))
    set_version(lambda v: v + 1)
    return


@app.cell(hide_code=True)
def _(start):
    to = mo.ui.dictionary({_p: mo.ui.checkbox(value=False, label=start["names"][_p]) for _p in start["others"]})
    subject = mo.ui.text(value="", label="Subject", full_width=True)
    body = mo.ui.text_area(value="", label="Message", rows=3, full_width=True)
    send_button = mo.ui.button(value=0, on_click=lambda n: n + 1, label="Send message")
    get_sent_done, set_sent_done = mo.state(0)
    mo.vstack([mo.md("## Messages"), mo.Html(orders.messages_html(start)),
               mo.hstack([mo.md("To (none ticked: an open letter to everyone):"), *to.elements.values()],
                         justify="start", gap=1), subject, body, send_button])
    return body, get_sent_done, send_button, set_sent_done, subject, to


@app.cell(hide_code=True)
def _(body, get_sent_done, send_button, set_outcome, set_sent_done, set_version, start, subject, to):
    # Write: one message, once per click of "Send message".
    mo.stop(send_button.value <= get_sent_done())
    set_sent_done(send_button.value)
    _to = [p for p, ticked in to.value.items() if ticked]
    set_outcome(orders.run_write(start, "Message sent", lambda camp: pbp.send_message(
        camp, start["as_viewer"], _to, body.value, subject=subject.value) and f"To {', '.join(_to) or 'everyone'}."))
    set_version(lambda v: v + 1)
    return


@app.cell(hide_code=True)
def _(view):
    mo.accordion({"Your kingdom now": mo.Html(player.overview_html(view))})
    return


if __name__ == "__main__":
    app.run()
