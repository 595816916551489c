"""Charts of figures over turns, drawn by the library as inline SVG: the one chart route of every page.

The player page, the report, the session planner's panel (in the GM sheet) and its page draw each figure
with ``line_chart_svg`` (no script, no URL, text escaped by construction), laid out by ``chart_grid``.
For a player view the figures are the ruleset's ``summary()`` columns (the ``states`` rows of design
§9): ``moving_figures`` picks those a ruleset charts (``chart_figures``) that moved at all.
The historian notebook alone draws with altair (``views.history`` says why).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from kingdomlog.views.html import Html, h

SKIP_COLUMNS = {"campaign", "ruleset", "turn", "last_seq", "state_json"}
MAX_FIGURES = 12


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


def series(rows: Sequence[Mapping[str, Any]], key: str, *, x: str = "turn") -> list[tuple[int, float]]:
    """``(turn, value)`` of ``key`` in every row that has a number for it.

    >>> series([{"turn": 1, "gold": 3}, {"turn": 2, "gold": None}, {"turn": 3, "gold": 4.5}], "gold")
    [(1, 3.0), (3, 4.5)]
    """
    return [(int(r[x]), float(r[key])) for r in rows if isinstance(r.get(key), (int, float))]


def chart_grid(charts: Iterable[Html]) -> Html:
    """Charts side by side, as many to a line as fit (``CHART_STYLE``)."""
    return h("div", (h("div", c, class_="kl-chart") for c in charts), class_="kl-charts")


CHART_STYLE = """
.kl-charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(15em, 1fr)); gap: .6em; }
.kl-chart { border: 1px solid #e5e5e5; border-radius: .5em; background: #fff; padding: .2em; }
.kl-chart svg { width: 100%; height: auto; display: block; }
"""
"""CSS for ``chart_grid`` (pages inline it with their own)."""


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

    def tick(y: float) -> Html | None:  # a value on the y axis, unless the rule's own label is there
        if rule is not None and y != rule[0] and abs(py(y) - py(rule[0])) < 12:
            return None
        return h("text", _tick(y), x=left - 5, y=f"{py(y) + 4:.1f}", font_size="11", text_anchor="end", fill="#555")

    axis = [h("line", x1=left, y1=top + ph, x2=left + pw, y2=top + ph, stroke="#bbb"),
            h("line", x1=left, y1=top, x2=left, y2=top + ph, stroke="#bbb"),
            tick(max(ys)), tick(min(ys)),
            *(h("text", x, x=f"{px(x):.1f}", y=height - 6, font_size="11", text_anchor="middle", fill="#555")
              for x in sorted({x0, x1})),
            h("text", turn_unit, x=f"{left + pw / 2:.1f}", y=height - 6, font_size="10", text_anchor="middle",
              fill="#888")]
    if rule is not None:
        axis += [h("line", h("title", rule[1]), x1=left, y1=f"{py(rule[0]):.1f}", x2=left + pw,
                   y2=f"{py(rule[0]):.1f}", stroke="#555", stroke_dasharray="4 3"), tick(rule[0])]
    head = [h("text", title, x="4", y="17", font_size="14", font_weight="600", fill="#222"),
            h("text", value(ys[-1]), x=width - 6, y="17", font_size="14", font_weight="700", text_anchor="end",
              fill="#3b2f63")]
    line = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(xs, ys, strict=True))
    return h("svg", h("title", f"{title} by {turn_unit}"), head, axis,
             h("polyline", points=line, fill="none", stroke="#3b2f63", stroke_width="2.2", stroke_linejoin="round"),
             (dot(x, y) for x, y in zip(xs, ys, strict=True)),
             class_="kl-line-chart", viewBox=f"0 0 {width:g} {height:g}", role="img",
             aria_label=f"{title} by {turn_unit}, now {_tick(ys[-1])}", font_family="system-ui, sans-serif")
