import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="kingdomlog: history")

with app.setup:
    # The historian's notebook (design §9): SQL over every campaign under a root.
    # Open with `marimo edit notebooks/history.py -- --root campaigns` (default root: ./campaigns).
    # The catalog is an in-memory DuckDB database behind kingdomlog's read-only console:
    # every query below goes through SafeConsole (history.run), which refuses anything but
    # SELECT and EXPLAIN of a SELECT and gives queries no file or directory to read or write.
    # Tables: events, campaigns, turns, states, and each ruleset's own views.
    import marimo as mo

    from kingdomlog.projections.sql import SafeConsole
    from kingdomlog.views import history


@app.cell(hide_code=True)
def _():
    root = history.root_arg(mo.cli_args())
    return (root,)


@app.cell(hide_code=True)
def _(root):
    console = SafeConsole(root)
    examples = {ex.key: ex for ex in history.examples(console)}
    mo.vstack([
        mo.md(f"# Campaign history\n\nCatalog of `{root}`: tables `events`, `campaigns`, `turns`, `states`"
              " and the rulesets' views. Read-only."),
        *[mo.callout(w, kind="warn") for w in console.warnings],
    ])
    return console, examples


@app.cell(hide_code=True)
def _(console):
    _campaigns, _problem = history.run(
        console, "SELECT campaign, name, ruleset, events, last_turn FROM campaigns ORDER BY campaign"
    )
    history.table_or_problem(mo, _campaigns, _problem)
    return


@app.cell(hide_code=True)
def _(examples):
    mo.md(f"## {examples['figure'].title}\n\n{examples['figure'].about}")
    return


@app.cell(hide_code=True)
def _(console, examples):
    figure_table, _problem = history.run(console, examples["figure"].sql)
    figure_chart = (
        history.line_chart(figure_table, title=examples["figure"].title) if figure_table is not None else None
    )
    mo.vstack([
        figure_chart if figure_chart is not None else mo.md(_problem or "_No turns yet._"),
        history.table_or_problem(mo, figure_table, _problem),
    ])
    return


@app.cell(hide_code=True)
def _(examples):
    mo.md(f"## {examples['rp'].title}\n\n{examples['rp'].about}")
    return


@app.cell(hide_code=True)
def _(console, examples):
    _rp, _problem = history.run(console, examples["rp"].sql)
    history.table_or_problem(mo, history.in_words(_rp, "activity"), _problem)
    return


@app.cell(hide_code=True)
def _(examples):
    mo.md(f"## {examples['success'].title}\n\n{examples['success'].about}")
    return


@app.cell(hide_code=True)
def _(console, examples):
    _found, _problem = history.run(console, examples["success"].sql)
    success_table = history.in_words(_found, "activity", "activity")
    success_chart = (
        history.bar_chart(success_table, x="activity", y="success_pct", title="Success rate (%) by activity")
        if success_table is not None else None
    )
    mo.vstack([
        success_chart if success_chart is not None else mo.md(_problem or "_No checks recorded yet._"),
        history.table_or_problem(mo, success_table, _problem),
    ])
    return


@app.cell(hide_code=True)
def _():
    free_sql = mo.ui.text_area(
        value="SELECT campaign, turn, count(*) AS batches FROM turns GROUP BY ALL ORDER BY campaign, turn",
        label="Your query (SELECT, EXPLAIN of a SELECT, DESCRIBE only)",
        full_width=True,
        rows=4,
    )
    mo.output.replace(free_sql)
    return (free_sql,)


@app.cell(hide_code=True)
def _(console, free_sql):
    free_table, free_problem = history.run(console, free_sql.value)
    history.table_or_problem(mo, free_table, free_problem)
    return


if __name__ == "__main__":
    app.run()
