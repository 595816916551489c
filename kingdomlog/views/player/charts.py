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


def moving_figures(rows: Sequence[Mapping[str, Any]], figures: Sequence[str] = ()) -> list[str]:
    """The figures among ``figures`` (or every numeric column) whose value changed at least once over ``rows``.

    A figure that stays flat (at zero or anywhere) tells a player nothing as a chart.

    >>> moving_figures([{"turn": 1, "gold": 3, "food": 0}, {"turn": 2, "gold": 5, "food": 0}], ["gold", "food"])
    ['gold']
    """
    numeric = numeric_figures(rows, limit=10_000)
    keys = [f for f in figures if f in numeric] or numeric
    out = []
    for k in keys:
        values = {r[k] for r in rows if r.get(k) is not None}
        if len(values) > 1:
            out.append(k)
    return out


def _tick(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 100 or float(v).is_integer() else f"{v:.1f}"


def line_chart_svg(title: str, points: Sequence[tuple[int, float]], *, turn_unit: str = "turn", unit: str = "",
                   width: float = 300, height: float = 150) -> str:
    """A small line chart of one figure over turns as inline SVG (no script): title, the last value, min and
    max on the y axis, first and last turn on the x axis, a point per turn with its value as a tooltip.

    >>> svg = line_chart_svg("Unrest", [(1, 2), (2, 5), (3, 4)])
    >>> svg.startswith("<svg") and "Unrest" in svg and "<title>" in svg
    True
    """
    from kingdomlog.views.html import esc

    pts = sorted(points)
    left, right, top, bottom = 42.0, 12.0, 30.0, 24.0
    w, h = width - left - right, height - top - bottom
    xs = [p[0] for p in pts]
    ys = [float(p[1]) for p in pts]
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(ys), max(ys)
    if y0 == y1:
        y0, y1 = y0 - 1, y1 + 1
    pad = (y1 - y0) * 0.08
    y0, y1 = y0 - pad, y1 + pad

    def px(x: float) -> float:
        return left + (0.5 if x1 == x0 else (x - x0) / (x1 - x0)) * w

    def py(y: float) -> float:
        return top + (1 - (y - y0) / (y1 - y0)) * h

    line = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(xs, ys, strict=True))
    last = ys[-1]
    dots = "".join(
        f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="#3b2f63"><title>{esc(turn_unit)} {x}: '
        f"{esc(_tick(y))}{(' ' + esc(unit)) if unit else ''}</title></circle>" for x, y in zip(xs, ys, strict=True))
    lo, hi = min(ys), max(ys)
    axis = (f'<line x1="{left}" y1="{top + h}" x2="{left + w}" y2="{top + h}" stroke="#bbb"/>'
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + h}" stroke="#bbb"/>'
            f'<text x="{left - 5}" y="{py(hi) + 4:.1f}" font-size="11" text-anchor="end" '
            f'fill="#555">{esc(_tick(hi))}</text>'
            f'<text x="{left - 5}" y="{py(lo) + 4:.1f}" font-size="11" text-anchor="end" '
            f'fill="#555">{esc(_tick(lo))}</text>'
            f'<text x="{px(x0):.1f}" y="{height - 6}" font-size="11" text-anchor="middle" fill="#555">{x0}</text>'
            + (f'<text x="{px(x1):.1f}" y="{height - 6}" font-size="11" text-anchor="middle" fill="#555">{x1}</text>'
               if x1 != x0 else "")
            + f'<text x="{left + w / 2:.1f}" y="{height - 6}" font-size="10" text-anchor="middle" fill="#888">'
              f"{esc(turn_unit)}</text>")
    head = (f'<text x="4" y="17" font-size="14" font-weight="600" fill="#222">{esc(title)}</text>'
            f'<text x="{width - 6}" y="17" font-size="14" font-weight="700" text-anchor="end" fill="#3b2f63">'
            f"{esc(_tick(last))}{(' ' + esc(unit)) if unit else ''}</text>")
    return (f'<svg class="kl-line-chart" viewBox="0 0 {width:g} {height:g}" role="img" '
            f'aria-label="{esc(title)} by {esc(turn_unit)}, now {esc(_tick(last))}" font-family="system-ui, '
            f'sans-serif">'
            f"<title>{esc(title)} by {esc(turn_unit)}</title>{head}{axis}"
            f'<polyline points="{line}" fill="none" stroke="#3b2f63" stroke-width="2.2" stroke-linejoin="round"/>'
            f"{dots}</svg>")
