"""Charts of a campaign's main figures over turns (altair), and the same charts as inline SVG.

The figures are the ruleset's ``summary()`` columns (the ``states`` rows of design §9).
``figures_chart`` is what the notebooks show; ``chart_svg`` renders it with
vl-convert (no browser, no network) for the self-contained HTML player view.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, cast

import altair as alt

from kingdomlog.views.html import Html, h

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
                   width: float = 300, height: float = 150, rule: tuple[float, str] | None = None,
                   marked: Collection[int] = (), marked_as: str = "") -> Html:
    """A small line chart of one figure over turns as inline SVG (no script): title, the last value, min and
    max on the y axis, first and last turn on the x axis, a point per turn with its value as a tooltip.

    ``rule``: ``(value, words)``, a dashed line across at ``value`` (a threshold), its words as its tooltip;
    ``marked``: the turns whose point is drawn as a triangle, ``marked_as`` saying why in their tooltips.

    >>> svg = line_chart_svg("Unrest", [(1, 2), (2, 5), (3, 4)], rule=(20, "revolution at 20"), marked={2})
    >>> svg.startswith("<svg") and "Unrest" in svg and "<title>revolution at 20</title>" in svg
    True
    """
    pts = sorted(points)
    left, right, top, bottom = 42.0, 12.0, 30.0, 24.0
    pw, ph = width - left - right, height - top - bottom
    xs = [p[0] for p in pts]
    ys = [float(p[1]) for p in pts]
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(ys + ([rule[0]] if rule else [])), max(ys + ([rule[0]] if rule else []))
    if y0 == y1:
        y0, y1 = y0 - 1, y1 + 1
    pad = (y1 - y0) * 0.08
    y0, y1 = y0 - pad, y1 + pad

    def px(x: float) -> float:
        return left + (0.5 if x1 == x0 else (x - x0) / (x1 - x0)) * pw

    def py(y: float) -> float:
        return top + (1 - (y - y0) / (y1 - y0)) * ph

    def value(y: float) -> str:
        return _tick(y) + (f" {unit}" if unit else "")

    def dot(x: int, y: float) -> Html:
        tip = h("title", f"{turn_unit} {x}: {value(y)}" + (f" ({marked_as})" if x in marked and marked_as else ""))
        if x in marked:
            cx, cy = px(x), py(y)
            return h("polygon", tip, points=f"{cx:.1f},{cy - 6:.1f} {cx + 5.5:.1f},{cy + 4:.1f} {cx - 5.5:.1f},"
                                            f"{cy + 4:.1f}", fill="#111")
        return h("circle", tip, cx=f"{px(x):.1f}", cy=f"{py(y):.1f}", r="3", fill="#3b2f63")

    lo, hi = min(ys), max(ys)
    axis = [h("line", x1=left, y1=top + ph, x2=left + pw, y2=top + ph, stroke="#bbb"),
            h("line", x1=left, y1=top, x2=left, y2=top + ph, stroke="#bbb"),
            h("text", _tick(hi), x=left - 5, y=f"{py(hi) + 4:.1f}", font_size="11", text_anchor="end", fill="#555"),
            h("text", _tick(lo), x=left - 5, y=f"{py(lo) + 4:.1f}", font_size="11", text_anchor="end", fill="#555"),
            *(h("text", x, x=f"{px(x):.1f}", y=height - 6, font_size="11", text_anchor="middle", fill="#555")
              for x in sorted({x0, x1})),
            h("text", turn_unit, x=f"{left + pw / 2:.1f}", y=height - 6, font_size="10", text_anchor="middle",
              fill="#888")]
    if rule is not None:
        axis.append(h("line", h("title", rule[1]), x1=left, y1=f"{py(rule[0]):.1f}", x2=left + pw,
                      y2=f"{py(rule[0]):.1f}", stroke="#555", stroke_dasharray="4 3"))
    head = [h("text", title, x="4", y="17", font_size="14", font_weight="600", fill="#222"),
            h("text", value(ys[-1]), x=width - 6, y="17", font_size="14", font_weight="700", text_anchor="end",
              fill="#3b2f63")]
    line = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(xs, ys, strict=True))
    return h("svg", h("title", f"{title} by {turn_unit}"), head, axis,
             h("polyline", points=line, fill="none", stroke="#3b2f63", stroke_width="2.2", stroke_linejoin="round"),
             (dot(x, y) for x, y in zip(xs, ys, strict=True)),
             class_="kl-line-chart", viewBox=f"0 0 {width:g} {height:g}", role="img",
             aria_label=f"{title} by {turn_unit}, now {_tick(ys[-1])}", font_family="system-ui, sans-serif")
