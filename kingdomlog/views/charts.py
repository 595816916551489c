"""Charts of a campaign's main figures over turns (altair), and the same charts as inline SVG.

The figures are the ruleset's ``summary()`` columns (the ``states`` rows of design §9).
``figures_chart`` is what the notebooks show; ``chart_svg`` renders it with
vl-convert (no browser, no network) for the self-contained HTML player view.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import altair as alt

SKIP_COLUMNS = {"campaign", "ruleset", "turn", "last_seq", "state_json"}
MAX_FIGURES = 12


def inline_data(rows: Sequence[Mapping[str, Any]]) -> Any:
    """Rows as altair inline data (the values are embedded in the chart spec)."""
    return alt.Data(values=list(rows))  # type: ignore[no-untyped-call]


def numeric_figures(rows: Sequence[Mapping[str, Any]], limit: int = MAX_FIGURES) -> list[str]:
    """The summary columns that hold numbers in every row where they are set (in order, at most ``limit``).

    >>> numeric_figures([{"turn": 1, "gold": 3, "name": "x", "stash": None}, {"turn": 2, "gold": 4, "stash": 1}])
    ['gold', 'stash']
    """
    cols: list[str] = []
    for r in rows:
        for k in r:
            if k not in cols and k not in SKIP_COLUMNS:
                cols.append(k)
    out = []
    for c in cols:
        values = [r.get(c) for r in rows if r.get(c) is not None]
        if values and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            out.append(c)
    return out[:limit]


def long_rows(rows: Sequence[Mapping[str, Any]], figures: Sequence[str]) -> list[dict[str, Any]]:
    """``[{turn, figure, value}]`` for the chart (rows without a value are left out).

    >>> long_rows([{"turn": 1, "gold": 3, "food": None}], ["gold", "food"])
    [{'turn': 1, 'figure': 'gold', 'value': 3}]
    """
    return [{"turn": r["turn"], "figure": f, "value": r[f]}
            for r in rows for f in figures if r.get(f) is not None]


def figures_chart(rows: Sequence[Mapping[str, Any]], *, title: str = "",
                  columns: int = 3, figures: Sequence[str] = (), turn_unit: str = "turn") -> alt.FacetChart | None:
    """Small multiples, one line per figure over turns (independent y scales); None without data.

    ``figures`` (a ruleset's ``chart_figures``) picks and orders the columns; those that hold
    no numbers are skipped. Without it, the first numeric summary columns are charted.
    """
    numeric = numeric_figures(rows, limit=10_000)
    figures = [f for f in figures if f in numeric][:MAX_FIGURES] or numeric[:MAX_FIGURES]
    data = long_rows(rows, figures)
    if not data:
        return None
    base = alt.Chart(inline_data(data)).mark_line(point=True).encode(
        x=alt.X("turn:O", title=turn_unit),
        y=alt.Y("value:Q", title=None),
        tooltip=["figure:N", "turn:O", "value:Q"],
    ).properties(width=190, height=110)
    chart = base.facet(
        facet=alt.Facet("figure:N", title=None, sort=list(figures)), columns=columns
    ).resolve_scale(y="independent").properties(title=title or f"Main figures by {turn_unit}")
    return cast(alt.FacetChart, chart)


def chart_svg(chart: alt.TopLevelMixin) -> str:
    """The chart as one ``<svg>`` element (text as SVG text; no scripts, no external references)."""
    import vl_convert as vlc

    svg: str = vlc.vegalite_to_svg(chart.to_json())
    start = svg.find("<svg")
    svg = svg[start:] if start >= 0 else svg
    # Inline SVG in HTML needs no namespace declarations; dropping them leaves no URL-like text in the page.
    return svg.replace(' xmlns="http://www.w3.org/2000/svg"', "").replace(
        ' xmlns:xlink="http://www.w3.org/1999/xlink"', "")
