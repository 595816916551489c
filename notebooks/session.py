import marimo

__generated_with = "0.25.2"
app = marimo.App(width="full", app_title="kingdomlog: growth session planner", css_file="pickers.css")

with app.setup:
    # The GM's growth session planner for an aikakirjat campaign (spec §4.0). Open it with
    # `kingdomlog session DIR --serve` (marimo run, password token), or
    # `marimo edit notebooks/session.py -- --campaign DIR`. The rules and the policy live in
    # kingdomlog.rulesets.aikakirjat; the cells call kingdomlog.views.extras.aikakirjat. The only writes are the
    # two commit buttons (Campaign.commit, one turn per year), each click used once.
    import marimo as mo

    from kingdomlog.app import Campaign
    from kingdomlog.core.errors import KingdomlogError
    from kingdomlog.dice.roller import new_seed
    from kingdomlog.rulesets.aikakirjat.policy import STEWARD_ACTIONS, Policy
    from kingdomlog.rulesets.aikakirjat.session import YearRefused
    from kingdomlog.views.extras import aikakirjat as S
    from kingdomlog.views.forms import PlainNumber


@app.cell(hide_code=True)
def _():
    try:
        folder = S.page_args(mo.cli_args())
        _problem = None
    except KingdomlogError as exc:
        folder, _problem = None, str(exc)
    mo.stop(folder is None, mo.callout(mo.md(f"**Cannot open the planner.** {_problem}"), kind="danger"))
    return (folder,)


@app.cell(hide_code=True)
def _():
    # Reload after a commit; the GM's changed years ({turn: override}); the last commit's message; the clicks of
    # the buttons already handled (each click is used exactly once, never again on a re-run or a reload).
    get_version, set_version = mo.state(0)
    get_overrides, set_overrides = mo.state({})
    get_outcome, set_outcome = mo.state(None)
    get_handled, set_handled = mo.state({"apply": 0, "clear": 0, "clear_all": 0, "next": 0, "all": 0})
    return (get_handled, get_outcome, get_overrides, get_version, set_handled, set_outcome, set_overrides,
            set_version)


@app.cell(hide_code=True)
def _(folder, get_version):
    get_version()
    try:
        start = S.open_session(folder)
        _problem = None
    except KingdomlogError as exc:
        start, _problem = None, str(exc)
    mo.stop(start is None, mo.callout(mo.md(f"**Cannot open the campaign.** {_problem}"), kind="danger"))
    mo.vstack([mo.md(f"# Growth session: {start.name}"),
               mo.Html(S.framed(S.status_html(start)))])
    return (start,)


@app.cell(hide_code=True)
def _(folder):
    # The GM's policy, created once per page (a commit reloads the campaign, not these widgets).
    _pcs = Campaign.open(folder).state().pcs
    policy_name = mo.ui.dropdown(["steward", "simple"], value="steward", label="Policy")
    alarm = mo.ui.slider(0, 20, value=8, label="Unrest alarm", show_value=True)
    performer = mo.ui.dropdown({"(highest-level PC, or the Court)": "", **{p.name: pid for pid, p in _pcs.items()},
                                "the Court notable": "court"}, value="(highest-level PC, or the Court)",
                               label="Who reduces Unrest")
    pc_bonus = PlainNumber(-5, 30, value=0, label="Their Persuasion / Intimidation bonus")
    unrest_skill = mo.ui.dropdown(["auto", "persuasion", "intimidation"], value="auto", label="Reduce Unrest with")
    _actions = S.in_words(STEWARD_ACTIONS)
    allowed = mo.ui.multiselect(_actions, value=list(_actions), label="Actions the policy may take (in this priority)")
    spend_on = mo.ui.multiselect(["hold", "growth", "actions", "war"], value=["hold", "growth", "actions", "war"],
                                 label="Spend stored advantages on")
    spend_below = mo.ui.slider(0, 1, 0.05, value=0.75, label="…when the chance is below", show_value=True)
    keep = PlainNumber(0, 10, value=0, label="Advantages kept in reserve")
    tax_risk = mo.ui.slider(0, 0.5, 0.05, value=0.15, label="Tax Collection: largest chance of tyranny",
                            show_value=True)
    seed = mo.ui.text(value=new_seed(), label="Dice seed (the same seed, the same dice)")
    years = PlainNumber(0, 50, value=0, label="Years to plan (0: the rest of the session)")
    mo.vstack([mo.md("## The GM's policy"),
               mo.hstack([policy_name, alarm, performer, pc_bonus, unrest_skill], wrap=True),
               mo.hstack([allowed, spend_on, spend_below, keep, tax_risk], wrap=True),
               mo.hstack([seed, years], wrap=True)])
    return (alarm, allowed, keep, pc_bonus, performer, policy_name, seed, spend_below, spend_on, tax_risk,
            unrest_skill, years)


@app.cell(hide_code=True)
def _(alarm, allowed, keep, pc_bonus, performer, policy_name, spend_below, spend_on, tax_risk, unrest_skill):
    _order = [a for a in STEWARD_ACTIONS if a in allowed.value]
    policy = Policy(name=policy_name.value, unrest_alarm=int(alarm.value), unrest_performer=performer.value or None,
                    unrest_bonus=int(pc_bonus.value or 0), unrest_skill=unrest_skill.value, actions=tuple(_order),
                    spend_on=tuple(spend_on.value), spend_below=float(spend_below.value),
                    keep_stored=int(keep.value or 0), tax_max_risk=float(tax_risk.value))
    return (policy,)


@app.cell(hide_code=True)
def _(policy, seed, start, years):
    # The plan without the GM's changed years: it fixes which years there are (the session's rolled length).
    try:
        base = S.plan(start, policy=policy, years=int(years.value) or None, seed=seed.value or "seed")
        _problem = None
    except KingdomlogError as exc:
        base, _problem = None, str(exc)
    mo.stop(base is None, mo.callout(mo.md(f"**The session cannot be planned.** {_problem}"), kind="danger"))
    return (base,)


@app.cell(hide_code=True)
def _(base, get_overrides, policy, seed, start, years):
    _over = {t: o for t, o in get_overrides().items() if t >= start.turn}
    refused = None
    if _over:
        try:
            plan = S.plan(start, policy=policy, overrides=_over, years=int(years.value) or None,
                          seed=seed.value or "seed")
        except YearRefused as exc:
            plan, refused = base, exc
        except KingdomlogError as exc:
            plan, refused = base, YearRefused(str(exc), turn=start.turn, step="start")
    else:
        plan = base
    return plan, refused


@app.cell(hide_code=True)
def _(base):
    year_pick = mo.ui.dropdown({f"year {y.turn}": y.turn for y in base.years},
                               value=f"year {base.years[0].turn}" if base.years else None, label="Change year")
    return (year_pick,)


@app.cell(hide_code=True)
def _(get_overrides, plan, year_pick):
    # The chosen year's widgets, filled from the state the year starts in and the GM's change of it (if any).
    _y = next((y for y in plan.years if y.turn == year_pick.value), None)
    mo.stop(_y is None)
    _given = get_overrides().get(_y.turn, {})
    _options = S.action_options(_y.state_before)
    _labels = {repr(v): k for k, v in _options.items() if v is not None}
    _set = _given.get("actions", {}).get("choices", {}).get("actions")
    _slots_n = S.action_slots(_y)
    _slots = [mo.ui.dropdown(_options, value=(_labels.get(repr(_set[i]), "(the policy's choice)") if _set
                                              and i < len(_set) else "(the policy's choice)"),
                            label=f"Action {i + 1}") for i in range(_slots_n)]
    _events = S.event_options(_y.state_before)
    _typed = list(_given.get("events", {}).get("rolls", {}).get("event", ()))
    _now = next((k for k, v in _events.items() if v and list(S.event_faces(_y.state_before, v) or ()) == _typed),
                "(as the dice fall)")
    event_pick = mo.ui.dropdown(_events, value=_now, label="Random event")
    slots_ui = mo.ui.array(_slots)
    return event_pick, slots_ui


@app.cell(hide_code=True)
def _():
    # Click counters, created once: the cells below consume each new count exactly once.
    apply_button = mo.ui.button(value=0, on_click=lambda n: n + 1, label="Apply the change", kind="warn")
    clear_button = mo.ui.button(value=0, on_click=lambda n: n + 1, label="Undo this year's change")
    clear_all_button = mo.ui.button(value=0, on_click=lambda n: n + 1, label="Undo every change")
    commit_next = mo.ui.button(value=0, on_click=lambda n: n + 1, label="Commit the next year", kind="success")
    commit_all = mo.ui.button(value=0, on_click=lambda n: n + 1, label="Commit the whole session", kind="success")
    return apply_button, clear_all_button, clear_button, commit_all, commit_next


@app.cell(hide_code=True)
def _(apply_button, clear_all_button, clear_button, event_pick, get_overrides, refused, slots_ui, year_pick):
    _changed = sorted(get_overrides())
    mo.vstack([
        mo.md("## Change a year"),
        mo.md("Pick a year and change what it does; every later year is planned again from it."
              + (f" Changed so far: {', '.join(f'year {t}' for t in _changed)}." if _changed else "")),
        mo.hstack([year_pick, event_pick, slots_ui.hstack()], wrap=True, justify="start"),
        mo.hstack([apply_button, clear_button, clear_all_button], justify="start"),
        mo.callout(mo.md(f"**Year {refused.turn} is refused ({refused.step}).** {refused} — undo that change."),
                   kind="danger") if refused is not None else mo.md(""),
    ])
    return


@app.cell(hide_code=True)
def _(apply_button, clear_all_button, clear_button, event_pick, get_handled, plan, policy, set_handled,
      set_overrides, slots_ui, year_pick):
    # Apply or undo a change (a click used once). The plan recomputes from the changed year on.
    _h = get_handled()
    mo.stop(apply_button.value <= _h["apply"] and clear_button.value <= _h["clear"]
            and clear_all_button.value <= _h["clear_all"])
    set_handled({**_h, "apply": apply_button.value, "clear": clear_button.value,
                 "clear_all": clear_all_button.value})
    _y = next((y for y in plan.years if y.turn == year_pick.value), None)
    if clear_all_button.value > _h["clear_all"]:
        set_overrides({})
    elif clear_button.value > _h["clear"] and _y is not None:
        set_overrides(lambda o: {t: v for t, v in o.items() if t != _y.turn})
    elif _y is not None:
        _over = S.year_override(_y, policy, list(slots_ui.value), event_pick.value or None)
        set_overrides(lambda o: {**{t: v for t, v in o.items() if t != _y.turn}, **({_y.turn: _over} if _over else {})})
    return


@app.cell(hide_code=True)
def _(plan, start):
    _charts = S.charts_html(plan, start)
    mo.vstack([
        mo.md("## The session, year by year"),
        mo.md(f"**{S.summary(plan)}** Dice seed `{plan.seed}`; changed years are marked ✎."),
        mo.Html(S.framed(_charts)) if _charts else mo.md("_Nothing to plan._"),
        mo.Html(S.framed(S.table_html(plan))),
    ])
    return


@app.cell(hide_code=True)
def _(commit_all, commit_next, get_outcome):
    _out = get_outcome()
    mo.vstack([
        mo.md("## Commit"),
        mo.md("Each year is one turn of the log, checked against this plan before it is written."),
        mo.hstack([commit_next, commit_all], justify="start"),
        mo.callout(mo.md(_out[1]), kind=_out[0]) if _out is not None else mo.md(""),
    ])
    return


@app.cell(hide_code=True)
def _(commit_all, commit_next, folder, get_handled, plan, refused, set_handled, set_outcome, set_version):
    # The only write: once per click of a commit button; never on load, on a change or a re-run.
    _h = get_handled()
    mo.stop(commit_next.value <= _h["next"] and commit_all.value <= _h["all"])
    set_handled({**_h, "next": commit_next.value, "all": commit_all.value})
    _n = 1 if commit_next.value > _h["next"] else None
    if refused is not None:
        set_outcome(("danger", f"**Not committed.** Year {refused.turn} is refused: undo that change first."))
    else:
        try:
            _done = S.commit(folder, plan, years=_n)
            set_outcome(("success", f"**Committed** {len(_done)} year(s): turns {_done[0].turn}–{_done[-1].turn}"
                                    f" (seq {_done[0].first_seq}–{_done[-1].last_seq}).") if _done else
                        ("warn", "**Nothing to commit.**"))
        except KingdomlogError as exc:
            set_outcome(("danger", f"**Not committed.** {exc}"))
    set_version(lambda v: v + 1)
    return


if __name__ == "__main__":
    app.run()
