import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="kingdomlog: kingdom view")

with app.setup:
    # A player's read-only view of a campaign (design §7). Served by
    # `kingdomlog share DIR --as VIEWER`, which fixes the viewer on the server side.
    # This notebook only reads: every value comes through kingdomlog.views.player.page,
    # which narrates only the events the viewer may see and redacts every state for them.
    import marimo as mo

    from kingdomlog.core.errors import KingdomlogError
    from kingdomlog.views.html import h, style
    from kingdomlog.views.player import maps
    from kingdomlog.views.player import page as player


@app.cell(hide_code=True)
def _():
    folder, viewer = player.view_args(mo.cli_args())
    return folder, viewer


@app.cell(hide_code=True)
def _(folder, viewer):
    try:
        view = player.player_view(folder, viewer)
        _problem = None
    except KingdomlogError as exc:
        view, _problem = None, player.said_to_player(exc)
    mo.stop(view is None, mo.callout(mo.md(f"**Cannot show the campaign.** {_problem}"), kind="danger"))
    mo.Html(style(player.STYLE_ALL) + player.title_html(view) + player.summary_html(view))
    return (view,)


@app.cell(hide_code=True)
def _(view):
    map_turns = [t for t, _m in view.maps]
    turn_slider = mo.ui.slider(steps=map_turns, value=map_turns[-1], label=f"Map at {view.turn_unit}",
                               show_value=True, full_width=True) if len(map_turns) > 1 else None
    return (turn_slider,)


@app.cell(hide_code=True)
def _(turn_slider, view):
    shown_map = dict(view.maps).get(turn_slider.value) if turn_slider is not None else view.map
    mo.vstack([
        mo.Html(h("h2", "The map", class_="kl-h2", id="map")),
        turn_slider if turn_slider is not None else mo.md(""),
        mo.Html(maps.map_html(shown_map)) if shown_map is not None else mo.md("_No map for this campaign._"),
    ]) if view.maps else None
    return


@app.cell(hide_code=True)
def _(view):
    mo.Html(player.chronicle_html(view))
    return


@app.cell(hide_code=True)
def _(view):
    mo.Html(player.settlements_html(view) + player.leaders_html(view))
    return


@app.cell(hide_code=True)
def _(view):
    mo.Html(player.charts_html(view) + player.numbers_html(view) + player.head_html(view))
    return


if __name__ == "__main__":
    app.run()
