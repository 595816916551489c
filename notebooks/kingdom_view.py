import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="kingdomlog: kingdom view")

with app.setup:
    # A player's read-only view of a campaign (design §7). Served by
    # `kingdomlog share DIR --as VIEWER`, which fixes the viewer on the server side.
    # This notebook only reads: every value comes through kingdomlog.views.player,
    # which filters events by visibility and redacts the state for the viewer.
    import marimo as mo

    from kingdomlog.views import charts, player


@app.cell(hide_code=True)
def _():
    folder, viewer = player.view_args(mo.cli_args())
    return folder, viewer


@app.cell(hide_code=True)
def _(folder, viewer):
    view = player.player_view(folder, viewer)
    mo.Html(f"<style>{player.STYLE}</style>" + player.title_html(view) + player.overview_html(view))
    return (view,)


@app.cell(hide_code=True)
def _(view):
    figures_chart = charts.figures_chart(view.per_turn, figures=view.chart_figures, turn_unit=view.turn_unit)
    mo.vstack([
        mo.md("## Charts"),
        figures_chart if figures_chart is not None else mo.md("_No turns yet._"),
        mo.Html(player.per_turn_html(view)),
    ])
    return


@app.cell(hide_code=True)
def _(view):
    mo.Html(player.collections_html(view))
    return


@app.cell(hide_code=True)
def _(view):
    mo.Html(player.timeline_html(view))
    return


if __name__ == "__main__":
    app.run()
