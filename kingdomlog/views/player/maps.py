"""Maps drawn by the library as inline SVG: hex maps, region maps and settlement grids (no script, no URL).

Everything drawn comes from a ``core.mapdata.MapData`` that a ruleset's ``map(state,
viewer)`` hook made for one viewer; this module draws all of it and filters nothing.
Text is SVG text (readable when zoomed, searchable), every hex and region carries a
``<title>`` (its tooltip) and a ``data-hex`` / ``data-region`` attribute (what a picker
in the GM sheet reads), and the legend lists only the symbols the map uses.

``turn_picker_html`` shows one map per turn under a row of turn buttons that work with
CSS alone (radio inputs), so the offline player file has a turn slider without script.
``standalone_svg`` and ``svg_to_png`` make image files for play-by-post reports
(PNG through vl-convert's SVG renderer). Every element is made by ``views.html.h``, so names and
notes in text and attributes are escaped by construction.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from kingdomlog.core.mapdata import AXIAL_DIRECTIONS, MapData, MapHex, SettlementGrid
from kingdomlog.views.html import EMPTY, Html, h, join, style

HEX_SIZE = 30.0
SQRT3 = math.sqrt(3.0)

TERRAIN_COLOURS: dict[str, str] = {
    "plains": "#dfe8a4", "grassland": "#dfe8a4", "farmland": "#ece5a0", "hills": "#d9c08a", "forest": "#8fbf7a",
    "swamp": "#a9c2a3", "marsh": "#a9c2a3", "mountains": "#b9aca0", "mountain": "#b9aca0", "water": "#9ecbe8",
    "lake": "#9ecbe8", "sea": "#9ecbe8", "coast": "#bcdcea", "tundra": "#e4ebee", "desert": "#efd9a6",
    "temperate": "#cfe2a8", "jungle": "#7fb37a", "unknown": "#dcdcdc",
}
"""Fill of each terrain word (unknown words get ``unknown``'s grey)."""

PARTY_COLOURS = ("#7b2d8b", "#1b6ca8", "#c0392b", "#2e7d4f", "#d35400", "#8a6d3b", "#5d6d7e", "#b03a74")
"""Colours of the parties of a map, in the map's order (the viewer's own side first when it has one)."""

KINGDOM_COLOUR = "#7b2d8b"
ROAD_COLOUR = "#8a5a2b"
RIVER_COLOUR = "#3b83c4"
FOG = "#d7d7d7"

STRUCTURE_COLOURS = ("#f2c48d", "#b7d7a8", "#a9c8e8", "#e8b4b4", "#d5c3e6", "#f4e19c", "#c4dfe0", "#e6c9a8")


def _num(x: float) -> str:
    """A coordinate with at most one decimal (``12.0`` -> ``12``)."""
    t = f"{x:.1f}"
    return t[:-2] if t.endswith(".0") else t


def terrain_colour(terrain: str) -> str:
    """The fill of ``terrain`` (case-insensitive; unknown words are grey).

    >>> terrain_colour("Forest"), terrain_colour("lava")
    ('#8fbf7a', '#dcdcdc')
    """
    return TERRAIN_COLOURS.get(terrain.lower(), TERRAIN_COLOURS["unknown"])


def party_colours(m: MapData) -> dict[str, str]:
    """Colour of each party id: the viewer's own first, then the others in the map's order."""
    order = [p for p in m.parties if p.own] + [p for p in m.parties if not p.own]
    return {p.id: PARTY_COLOURS[i % len(PARTY_COLOURS)] for i, p in enumerate(order)}


def slug(text: str) -> str:
    """An id-safe form of ``text`` (for element ids and CSS selectors).

    >>> slug("Month 7: the Granary!")
    'month-7-the-granary'
    """
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"


# ---- hex maps ----------------------------------------------------------------------------------


def hex_centre(q: int, r: int, size: float = HEX_SIZE) -> tuple[float, float]:
    """Pixel centre of axial hex ``(q, r)`` on a pointy-top grid.

    >>> hex_centre(0, 0), hex_centre(0, 1)
    ((0.0, 0.0), (25.980762113533157, 45.0))
    """
    return size * SQRT3 * (q + r / 2.0), size * 1.5 * r


def hex_corners(x: float, y: float, size: float = HEX_SIZE) -> list[tuple[float, float]]:
    """The six corners of a pointy-top hex, clockwise from the upper right (corner k at 60k - 30 degrees)."""
    out = []
    for k in range(6):
        a = math.radians(60 * k - 30)
        out.append((x + size * math.cos(a), y + size * math.sin(a)))
    return out


EDGE_NEIGHBOUR = {0: (1, 0), 1: (0, 1), 2: (-1, 1), 3: (-1, 0), 4: (0, -1), 5: (1, -1)}
"""Edge k (corner k to corner k+1) of a pointy-top hex faces this axial neighbour."""


def _points(pts: Iterable[tuple[float, float]]) -> str:
    return " ".join(f"{_num(x)},{_num(y)}" for x, y in pts)


def _star(x: float, y: float, r: float, fill: str, stroke: str = "#333") -> Html:
    pts = []
    for k in range(10):
        rad = r if k % 2 == 0 else r * 0.45
        a = math.radians(-90 + 36 * k)
        pts.append((x + rad * math.cos(a), y + rad * math.sin(a)))
    return h("polygon", points=_points(pts), fill=fill, stroke=stroke, stroke_width="0.8")


@dataclass(frozen=True)
class Glyph:
    """A small symbol for a feature or work site word, and its legend text."""

    key: str
    legend: str


GLYPH_WORDS: tuple[tuple[str, str], ...] = (
    ("resource", "resource"), ("lake", "lake"), ("farm", "farm"), ("lumber", "lumber"), ("sawmill", "lumber"),
    ("logging", "lumber"), ("mine", "mine"),
    ("ore", "mine"), ("quarry", "quarry"), ("stone", "quarry"), ("fort", "fort"), ("watchtower", "fort"),
    ("landmark", "landmark"), ("ruin", "ruins"), ("cave", "cave"), ("lair", "lair"), ("resource", "resource"),
    ("bridge", "bridge"), ("refuge", "refuge"), ("freehold", "freehold"), ("town", "town"), ("building", "site"),
    ("structure", "site"), ("fishing", "fishing"), ("camp", "lumber"),
)


def glyph_kind(word: str) -> str:
    """The symbol drawn for a feature or work-site word (``dot`` when none fits).

    >>> glyph_kind("Lumber camp"), glyph_kind("RUINS:tower"), glyph_kind("resource (ore)"), glyph_kind("shrine")
    ('lumber', 'ruins', 'resource', 'dot')
    """
    w = word.lower()
    for key, kind in GLYPH_WORDS:
        if key in w:
            return kind
    return "dot"


def glyph_svg(kind: str, x: float, y: float, s: float = 6.0) -> Html:
    """A symbol of ``kind`` centred on ``(x, y)``, about ``2 s`` wide."""
    if kind == "farm":
        return join([h("rect", x=_num(x - s), y=_num(y - s * .7), width=_num(2 * s), height=_num(1.4 * s),
                       fill="#f3d36b", stroke="#8a6d1f", stroke_width="0.7"),
                     *(h("line", x1=_num(x - s + 1), x2=_num(x + s - 1), y1=_num(y - s * .7 + i * s * .45),
                         y2=_num(y - s * .7 + i * s * .45), stroke="#8a6d1f", stroke_width="0.6") for i in (1, 2))])
    if kind == "lumber":
        return join([h("polygon", points=_points([(x, y - s), (x + s * .8, y + s * .6), (x - s * .8, y + s * .6)]),
                       fill="#2f6b2f", stroke="#173d17", stroke_width="0.7"),
                     h("rect", x=_num(x - 1), y=_num(y + s * .6), width="2", height=_num(s * .4), fill="#5a3a1a")])
    if kind in ("mine", "quarry"):
        return h("polygon", points=_points([(x - s, y + s * .7), (x, y - s * .8), (x + s, y + s * .7)]),
                 fill="#555" if kind == "mine" else "#9a9a9a", stroke="#222", stroke_width="0.7")
    if kind == "fort":
        return join([h("rect", x=_num(x - s * .7), y=_num(y - s * .8), width=_num(1.4 * s), height=_num(1.6 * s),
                       fill="#777", stroke="#222", stroke_width="0.7"),
                     h("rect", x=_num(x - s * .7), y=_num(y - s), width=_num(s * .4), height=_num(s * .4), fill="#777"),
                     h("rect", x=_num(x + s * .3), y=_num(y - s), width=_num(s * .4), height=_num(s * .4),
                       fill="#777")])
    if kind == "landmark":
        return _star(x, y, s, "#f5c542")
    if kind == "ruins":
        return join([h("rect", x=_num(x - s * .8), y=_num(y - s * .6), width=_num(s * .5), height=_num(s * 1.4),
                       fill="#bbb", stroke="#444", stroke_width="0.6"),
                     h("rect", x=_num(x + s * .2), y=_num(y), width=_num(s * .5), height=_num(s * .8), fill="#bbb",
                       stroke="#444", stroke_width="0.6")])
    if kind == "cave":
        return h("path", d=f"M{_num(x - s)},{_num(y + s * .6)} A{_num(s)},{_num(s)} 0 0 1 "
                           f"{_num(x + s)},{_num(y + s * .6)} Z", fill="#4a4a4a", stroke="#222", stroke_width="0.6")
    if kind == "lair":
        return h("polygon", points=_points([(x - s, y - s * .6), (x + s, y - s * .6), (x, y + s)]), fill="#b03030",
                 stroke="#501010", stroke_width="0.7")
    if kind == "resource":
        return h("polygon", points=_points([(x, y - s), (x + s * .7, y), (x, y + s), (x - s * .7, y)]),
                 fill="#3aa6a0", stroke="#1c5552", stroke_width="0.7")
    if kind == "lake":
        return h("ellipse", cx=_num(x), cy=_num(y), rx=_num(s), ry=_num(s * .6), fill=RIVER_COLOUR, stroke="#1f5a8c",
                 stroke_width="0.7")
    if kind == "bridge":
        return h("rect", x=_num(x - s), y=_num(y - s * .35), width=_num(2 * s), height=_num(s * .7), fill="#a0703a",
                 stroke="#4a3010", stroke_width="0.7")
    if kind in ("refuge", "freehold", "town", "site", "fishing"):
        fill = {"refuge": "#6aa0d8", "freehold": "#d89a6a", "town": "#e0e0e0", "site": "#c9b38f",
                "fishing": "#5fa8d3"}[kind]
        return h("rect", x=_num(x - s * .7), y=_num(y - s * .7), width=_num(1.4 * s), height=_num(1.4 * s), rx="1.5",
                 fill=fill, stroke="#333", stroke_width="0.7")
    return h("circle", cx=_num(x), cy=_num(y), r=_num(s * .55), fill="#444")


GLYPH_LEGEND = {"farm": "farm or farmland", "lumber": "lumber camp or sawmill", "mine": "mine", "quarry": "quarry",
                "fort": "fort", "landmark": "landmark", "ruins": "ruins", "cave": "cave", "lair": "lair",
                "resource": "resource", "bridge": "bridge", "refuge": "refuge", "freehold": "freehold",
                "town": "town", "site": "structure", "fishing": "fishing", "lake": "lake", "dot": "other feature"}


def _hex_title(h: MapHex) -> str:
    parts = [h.label]
    if not h.explored:
        parts.append("unexplored")
    else:
        parts.append(h.terrain.lower())
        if h.claimed:
            parts.append("claimed")
        if h.settlement:
            parts.append(("capital " if h.capital else "") + h.settlement)
        if h.river:
            parts.append("river")
        if h.road:
            parts.append("road")
        if h.work_site:
            parts.append(h.work_site)
        parts.extend(h.features)
        if h.armies:
            parts.append(("army: " if len(h.armies) == 1 else "armies: ") + ", ".join(h.armies))
    if h.note:
        parts.append(h.note)
    return " · ".join(parts)


def _label(x: float, y: float, text: str, *, size: float = 10, weight: str = "600", fill: str = "#111",
           anchor: str = "middle") -> Html:
    return h("text", text, x=_num(x), y=_num(y), font_size=_num(size), font_weight=weight, text_anchor=anchor,
             fill=fill, stroke="#fff", stroke_width="2.6", stroke_linejoin="round", paint_order="stroke")


Box = tuple[float, float, float, float]
"""``(x, y, width, height)`` of a drawing: its SVG viewBox."""


def hex_map_svg(m: MapData, *, selected: str | None = None, allowed: Collection[str] | None = None,
                standalone: bool = False) -> Html:
    """The placed hexes of ``m`` as one ``<svg>``: terrain, the kingdom's border, rivers, roads, settlements,
    work sites and features; each hex a ``<g data-hex=ID>`` with a tooltip. Empty when nothing is placed.

    For a picker (the GM sheet's activity target): ``selected`` is outlined, and with ``allowed`` the hexes not in
    it are faded and marked ``data-allowed="false"``.
    """
    drawn = _hex_map(m, selected=selected, allowed=allowed)
    return EMPTY if drawn is None else _svg(*drawn[0], drawn[1], m.title, standalone=standalone, cls="kl-map-hex")


def _hex_map(m: MapData, *, selected: str | None = None,
             allowed: Collection[str] | None = None) -> tuple[Box, Html] | None:
    """The hex map's box and drawing (``hex_map_svg`` without its ``<svg>``); None when nothing is placed."""
    hexes = m.placed_hexes()
    if not hexes:
        return None
    s = HEX_SIZE
    by_pos: dict[tuple[int, int], MapHex] = {(hx.q, hx.r): hx for hx in hexes if hx.q is not None and hx.r is not None}
    centres = {k: hex_centre(k[0], k[1], s) for k in by_pos}
    xs = [c[0] for c in centres.values()]
    ys = [c[1] for c in centres.values()]
    pad = s * 1.2
    minx, maxx = min(xs) - pad, max(xs) + pad
    miny, maxy = min(ys) - pad, max(ys) + pad + 8
    colours = party_colours(m)
    own = next((p.id for p in m.parties if p.own), "")
    body: list[Html] = []
    # terrain
    for (q, r), hx in by_pos.items():
        x, y = centres[(q, r)]
        fill = terrain_colour(hx.terrain) if hx.terrain != "unknown" else FOG
        cls = "kl-hex" + (" kl-hex-claimed" if hx.claimed else "") + (" kl-hex-selected" if hx.id == selected else "")
        ok = None if allowed is None else hx.id in allowed
        body.append(h("g", h("title", _hex_title(hx)),
                      h("polygon", points=_points(hex_corners(x, y, s)), fill=fill, stroke="#ffffff",
                        stroke_width="1.2"),
                      None if hx.explored else _hatch(x, y, s),
                      class_=cls, data_hex=hx.id, data_name=hx.name or None,
                      data_allowed=None if ok is None else "true" if ok else "false",
                      opacity="0.35" if ok is False else None))
    # rivers and roads: centre to centre between neighbours, a stub when alone
    lines = (("river", RIVER_COLOUR, 3.2, None), ("road", ROAD_COLOUR, 2.4, "5 3"))
    for attr, colour, width, dash in lines:
        drawn: set[frozenset[tuple[int, int]]] = set()
        for (q, r), hx in by_pos.items():
            if not getattr(hx, attr):
                continue
            x, y = centres[(q, r)]
            linked = False
            for dq, dr in AXIAL_DIRECTIONS:
                n = (q + dq, r + dr)
                nh = by_pos.get(n)
                if nh is None or not getattr(nh, attr):
                    continue
                linked = True
                pair = frozenset({(q, r), n})
                if pair in drawn:
                    continue
                drawn.add(pair)
                nx, ny = centres[n]
                body.append(h("line", x1=_num(x), y1=_num(y), x2=_num(nx), y2=_num(ny), stroke=colour,
                              stroke_width=width, stroke_linecap="round", stroke_dasharray=dash))
            if not linked:
                if attr == "river":
                    body.append(h("path", d=f"M{_num(x - s * .8)},{_num(y + s * .25)} q{_num(s * .4)},{_num(-s * .5)} "
                                            f"{_num(s * .8)},{_num(-s * .1)} t{_num(s * .8)},{_num(-s * .1)}",
                                  fill="none", stroke=colour, stroke_width=width, stroke_linecap="round"))
                else:
                    body.append(h("line", x1=_num(x - s * .6), y1=_num(y + s * .45), x2=_num(x + s * .6),
                                  y2=_num(y + s * .45), stroke=colour, stroke_width=width, stroke_dasharray=dash))
    # the border of each holder's land: edges of claimed hexes that face a hex not claimed by the same holder
    for (q, r), hx in by_pos.items():
        if not hx.claimed:
            continue
        holder = hx.owner or own
        colour = colours.get(holder, KINGDOM_COLOUR)
        x, y = centres[(q, r)]
        corners = hex_corners(x, y, s)
        for k in range(6):
            dq, dr = EDGE_NEIGHBOUR[k]
            nb = by_pos.get((q + dq, r + dr))
            if nb is not None and nb.claimed and (nb.owner or own) == holder:
                continue
            (x1, y1), (x2, y2) = corners[k], corners[(k + 1) % 6]
            body.append(h("line", x1=_num(x1), y1=_num(y1), x2=_num(x2), y2=_num(y2), stroke=colour,
                          stroke_width="3.4", stroke_linecap="round"))
        body.append(h("polygon", points=_points(hex_corners(x, y, s * .9)), fill=colour, fill_opacity="0.10",
                      stroke="none", pointer_events="none"))
    # symbols and labels
    for (q, r), hx in by_pos.items():
        x, y = centres[(q, r)]
        body.append(_label(x, y - s * .62, hx.mark, size=7.5, weight="400", fill="#555"))
        marks = ([hx.work_site] if hx.work_site else []) + list(hx.features)
        kinds: list[str] = []
        for word in marks:
            gk = glyph_kind(word)
            if gk not in kinds and not (hx.settlement and gk == "town"):
                kinds.append(gk)
        kinds = kinds[:4]
        if kinds:
            span = 13.0
            x0 = x - span * (len(kinds) - 1) / 2
            for i, gk in enumerate(kinds):
                body.append(glyph_svg(gk, x0 + i * span, y + (s * .05 if hx.settlement else 0),
                                      4.4 if hx.settlement else 5.2))
        if hx.settlement:  # its symbol above the centre, its works below, its name under them (_place_name)
            if hx.capital:
                body.append(_star(x, y - s * .32, 7, "#ffffff", "#222"))
            else:
                body.append(h("rect", x=_num(x - 5), y=_num(y - s * .32 - 5), width="10", height="10", fill="#fff",
                              stroke="#222", stroke_width="1.4"))
    for (q, r), hx in by_pos.items():
        if hx.armies and hx.explored:
            x, y = centres[(q, r)]
            body.append(_flag(x + s * .42, y - s * .30, len(hx.armies)))
    for (q, r), hx in by_pos.items():
        if hx.settlement and hx.explored:
            body.append(_place_name(*centres[(q, r)], hx.settlement, s))
    if selected and any(hx.id == selected for hx in hexes):
        hx = next(hx for hx in hexes if hx.id == selected)
        x, y = hex_centre(hx.q or 0, hx.r or 0, s)
        body.append(h("polygon", points=_points(hex_corners(x, y, s * .95)), fill="none", stroke="#e8590c",
                      stroke_width="3", stroke_dasharray="4 2"))
    return (minx, miny, maxx - minx, maxy - miny), join(body)


def name_lines(name: str, width: int = 11) -> list[str]:
    """A settlement's name as its hex writes it: one line up to ``width`` characters, else two, split at the space
    that keeps the longer line shortest.

    >>> name_lines("Tatzlford"), name_lines("Oleg's Trading Post"), name_lines("Restov Upon the Sellen")
    (['Tatzlford'], ["Oleg's", 'Trading Post'], ['Restov Upon', 'the Sellen'])
    """
    words = name.split()
    if len(name) <= width or len(words) < 2:
        return [name]
    splits = [[" ".join(words[:i]), " ".join(words[i:])] for i in range(1, len(words))]
    return min(splits, key=lambda p: (max(len(p[0]), len(p[1])), -len(p[0])))


def _place_name(x: float, y: float, name: str, s: float) -> Html:
    """A settlement's name inside its hex, under its symbol and works, small, with a white halo: it sat below the
    hex, across its bottom corner, over the numbers of the two hexes below (river-kingdom's "Tatzlford" hid hexes
    4 and 2)."""
    lines = name_lines(name)
    size = 7.5 if len(lines) == 1 else 6.5
    first = y + (s * .42 if len(lines) > 1 else s * .53)
    return join(_label(x, first + i * size, line, size=size, weight="700") for i, line in enumerate(lines))


def _flag(x: float, y: float, count: int) -> Html:
    """An army's flag at ``(x, y)`` (the pole's foot), with the number of armies when more than one."""
    return h("g", h("line", x1=_num(x), y1=_num(y), x2=_num(x), y2=_num(y - 13), stroke="#222", stroke_width="1.3"),
             h("path", d=f"M{_num(x)},{_num(y - 13)} l9,3 l-9,3 z", fill="#c0392b", stroke="#222", stroke_width="0.8"),
             _label(x + 6, y - 1, str(count), size=8, fill="#222") if count > 1 else None,
             class_="kl-army", pointer_events="none")


def _hatch(x: float, y: float, s: float) -> Html:
    """Diagonal strokes over a hex not yet explored (drawn lines: no pattern, so no ``url(...)`` reference)."""
    out = []
    for k in range(-2, 3):
        d = k * s * 0.32
        half = s * 0.62 * (1 - abs(k) * 0.16)
        out.append(h("line", x1=_num(x + d - half * .6), y1=_num(y + half * .8), x2=_num(x + d + half * .6),
                     y2=_num(y - half * .8), stroke="#b8b8b8", stroke_width="2", stroke_linecap="round"))
    return join(out)


def _svg(x: float, y: float, w: float, ht: float, body: Html, title: str, *, standalone: bool, cls: str,
         max_scale: float = 1.7) -> Html:
    return h("svg", h("title", title),
             h("rect", x=_num(x), y=_num(y), width=_num(w), height=_num(ht), fill="#fbfaf6") if standalone else None,
             body,
             xmlns="http://www.w3.org/2000/svg" if standalone else None, class_=cls,
             viewBox=f"{_num(x)} {_num(y)} {_num(w)} {_num(ht)}",
             width=_num(w * 2) if standalone else None, height=_num(ht * 2) if standalone else None,
             style=None if standalone else f"max-width:{_num(w * max_scale)}px",
             role="img", aria_label=title, font_family="system-ui, sans-serif")


def _swatch(shapes: Html) -> Html:
    """A 16 px legend swatch of ``shapes``."""
    return h("svg", shapes, viewBox="0 0 16 16", width="16", height="16")


def _party_shape(colour: str) -> Html:
    return h("rect", x="1", y="1", width="14", height="14", rx="3", fill=colour)


def hex_legend(m: MapData) -> list[tuple[Html, str]]:
    """``(swatch svg, words)`` for every terrain, line and symbol the hex map of ``m`` uses."""
    return [(_swatch(shapes), words) for shapes, words in _legend_shapes(m)]


def _legend_shapes(m: MapData) -> list[tuple[Html, str]]:
    """``hex_legend`` with each swatch's shapes alone (drawn at 16 × 16)."""
    out: list[tuple[Html, str]] = []
    seen: list[str] = []
    for hx in m.placed_hexes():
        t = hx.terrain.lower() if hx.terrain != "unknown" else "unexplored"
        if t not in seen:
            seen.append(t)
    if any(not hx.explored for hx in m.placed_hexes()) and "unexplored" not in seen:
        seen.append("unexplored")
    for t in seen:
        fill = FOG if t == "unexplored" else terrain_colour(t)
        out.append((h("polygon", points=_points(hex_corners(8, 8, 7.5)), fill=fill, stroke="#999", stroke_width="0.6"),
                    t))
    hexes = m.placed_hexes()
    if any(hx.claimed for hx in hexes):
        names = [p.name for p in m.parties if p.own] or ["the kingdom"]
        out.append((h("line", x1="1", y1="13", x2="15", y2="3", stroke=KINGDOM_COLOUR, stroke_width="3"),
                    f"border of {names[0]}"))
    if any(hx.river for hx in hexes):
        out.append((h("line", x1="1", y1="8", x2="15", y2="8", stroke=RIVER_COLOUR, stroke_width="3"), "river"))
    if any(hx.road for hx in hexes):
        out.append((h("line", x1="1", y1="8", x2="15", y2="8", stroke=ROAD_COLOUR, stroke_width="2.4",
                      stroke_dasharray="4 2"), "road"))
    if any(hx.settlement and hx.capital for hx in hexes):
        out.append((_star(8, 8, 7, "#fff", "#222"), "capital"))
    if any(hx.settlement and not hx.capital for hx in hexes):
        out.append((h("rect", x="3", y="3", width="10", height="10", fill="#fff", stroke="#222", stroke_width="1.4"),
                    "settlement"))
    if any(hx.armies and hx.explored for hx in hexes):
        out.append((_flag(5, 15, 1), "army"))
    kinds: list[str] = []
    for hx in hexes:
        for w in ([hx.work_site] if hx.work_site else []) + list(hx.features):
            k = glyph_kind(w)
            if k not in kinds and not (hx.settlement and k == "town"):
                kinds.append(k)
    for k in kinds:
        out.append((glyph_svg(k, 8, 8, 6), GLYPH_LEGEND[k]))
    return out


# ---- region maps -------------------------------------------------------------------------------

NODE_W, NODE_H, GAP_X, GAP_Y, PER_ROW = 168.0, 74.0, 26.0, 46.0, 2


def region_layout(m: MapData) -> dict[str, tuple[float, float]]:
    """Centres of the regions of ``m``: rows by distance (in links) from the viewer's own regions (or the
    first region), at most two to a row so the map reads on a phone; unlinked regions come last.

    >>> from kingdomlog.core.mapdata import MapLink, MapParty, MapRegion
    >>> m = MapData("m", regions=(MapRegion("a", "A", "me"), MapRegion("b", "B"), MapRegion("c", "C")),
    ...             links=(MapLink("a", "b"),), parties=(MapParty("me", "Me", own=True),))
    >>> sorted(region_layout(m))
    ['a', 'b', 'c']
    >>> region_layout(m)["a"][1] < region_layout(m)["b"][1] < region_layout(m)["c"][1]
    True
    """
    ids = [r.id for r in m.regions]
    nbrs: dict[str, list[str]] = {i: [] for i in ids}
    for link in m.links:
        if link.a in nbrs and link.b in nbrs:
            nbrs[link.a].append(link.b)
            nbrs[link.b].append(link.a)
    own = {p.id for p in m.parties if p.own}
    start = [r.id for r in m.regions if r.owner in own] or ids[:1]
    depth: dict[str, int] = {i: 0 for i in start}
    frontier = list(start)
    while frontier:
        nxt: list[str] = []
        for i in frontier:
            for j in nbrs[i]:
                if j not in depth:
                    depth[j] = depth[i] + 1
                    nxt.append(j)
        frontier = nxt
    rest = [i for i in ids if i not in depth]
    far = max(depth.values(), default=-1) + 1
    for k, i in enumerate(rest):  # each unlinked group below the rest, by owner
        depth[i] = far + k // PER_ROW
    owner = {r.id: r.owner for r in m.regions}
    layers: dict[int, list[str]] = {}
    for i in ids:
        layers.setdefault(depth[i], []).append(i)
    rows: list[list[str]] = []
    for d in sorted(layers):
        members = sorted(layers[d], key=lambda i: (owner[i] not in own, owner[i], ids.index(i)))
        for k in range(0, len(members), PER_ROW):
            rows.append(members[k:k + PER_ROW])
    out: dict[str, tuple[float, float]] = {}
    width = PER_ROW * NODE_W + (PER_ROW - 1) * GAP_X
    for y_i, row in enumerate(rows):
        row_w = len(row) * NODE_W + (len(row) - 1) * GAP_X
        x0 = (width - row_w) / 2 + NODE_W / 2
        for x_i, rid in enumerate(row):
            out[rid] = (x0 + x_i * (NODE_W + GAP_X), NODE_H / 2 + y_i * (NODE_H + GAP_Y))
    return out


def _wrap(text: str, width: int) -> list[str]:
    words, lines, cur = text.split(), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}".strip()
    if cur:
        lines.append(cur)
    return lines


def region_map_svg(m: MapData, *, standalone: bool = False) -> Html:
    """The regions of ``m`` as boxes coloured by holder, linked where they border (roads brown, sea dashed)."""
    drawn = _region_map(m)
    return EMPTY if drawn is None else _svg(*drawn[0], drawn[1], m.title, standalone=standalone, cls="kl-map-regions")


LINK_STYLES: dict[str, dict[str, str]] = {
    "sea": {"stroke": RIVER_COLOUR, "stroke-width": "2.5", "stroke-dasharray": "6 4"},
    "road": {"stroke": ROAD_COLOUR, "stroke-width": "4"},
    "highway": {"stroke": ROAD_COLOUR, "stroke-width": "7"},
}
"""How a link between two regions is drawn, by its kind (others: a grey line)."""


def _region_map(m: MapData) -> tuple[Box, Html] | None:
    """The region map's box and drawing (``region_map_svg`` without its ``<svg>``); None without regions."""
    if not m.regions:
        return None
    pos = region_layout(m)
    colours = party_colours(m)
    body: list[Html] = []
    for link in m.links:
        if link.a not in pos or link.b not in pos:
            continue
        (x1, y1), (x2, y2) = pos[link.a], pos[link.b]
        style = LINK_STYLES.get(link.kind, {"stroke": "#999", "stroke-width": "2.5"})
        if abs(y1 - y2) < 1 or abs(x1 - x2) < 1:
            body.append(h("line", x1=_num(x1), y1=_num(y1), x2=_num(x2), y2=_num(y2), **style))
        else:  # rows apart: a gentle curve keeps the line off the boxes between them
            my = (y1 + y2) / 2
            body.append(h("path", d=f"M{_num(x1)},{_num(y1)} C{_num(x1)},{_num(my)} {_num(x2)},{_num(my)} "
                                    f"{_num(x2)},{_num(y2)}", fill="none", **style))
    for r in m.regions:
        x, y = pos[r.id]
        party = m.party(r.owner)
        colour = colours.get(r.owner, "#9a9a9a")
        own = party is not None and party.own
        title = " · ".join([r.name, *([f"held by {party.name}"] if party else ["unclaimed"]), *r.status, *r.detail])
        left, top = _num(x - NODE_W / 2), y - NODE_H / 2
        lines = [party.name if party else "unclaimed", *r.status][:3]
        body.append(h(
            "g", h("title", title),
            h("rect", x=left, y=_num(top), width=_num(NODE_W), height=_num(NODE_H), rx="10",
              fill=terrain_colour(r.terrain) if r.terrain else "#f4f1e8", stroke=colour,
              stroke_width=4 if own else 2.5),
            h("rect", x=left, y=_num(top), width=_num(NODE_W), height="20", rx="10", fill=colour),
            h("rect", x=left, y=_num(top + 10), width=_num(NODE_W), height="10", fill=colour),
            h("text", r.name, x=_num(x), y=_num(top + 14.5), font_size="11.5", font_weight="700", fill="#fff",
              text_anchor="middle"),
            (h("text", line[:30], x=_num(x), y=_num(y - 4 + i * 14), font_size="11",
               font_weight="600" if i == 0 else "400", fill="#222", text_anchor="middle")
             for i, line in enumerate(lines)),
            class_="kl-region", data_region=r.id))
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    minx, maxx = min(xs) - NODE_W / 2 - 6, max(xs) + NODE_W / 2 + 6
    miny, maxy = min(ys) - NODE_H / 2 - 6, max(ys) + NODE_H / 2 + 6
    return (minx, miny, maxx - minx, maxy - miny), join(body)


# ---- settlement grids --------------------------------------------------------------------------

LOT, STREET, BORDER = 46.0, 9.0, 10.0


def _lot_xy(g: SettlementGrid, lot: int) -> tuple[float, float]:
    per = g.lots_per_block
    side = max(1, math.ceil(math.sqrt(per)))
    block, k = divmod(lot, per)
    bx, by = block % g.columns, block // g.columns
    lx, ly = k % side, k // side
    x = BORDER + STREET + bx * (side * LOT + STREET) + lx * LOT
    y = BORDER + STREET + by * (side * LOT + STREET) + ly * LOT
    return x, y


def structure_colour(name: str) -> str:
    """A stable pastel for a structure name (the same name has the same colour everywhere).

    >>> structure_colour("Houses") == structure_colour("Houses")
    True
    """
    code = sum((i + 1) * ord(c) for i, c in enumerate(name.lower()))
    return STRUCTURE_COLOURS[code % len(STRUCTURE_COLOURS)]


def settlement_svg(g: SettlementGrid, *, standalone: bool = False) -> Html:
    """A settlement's blocks and lots: each structure drawn over the lots it fills (one box when they form a
    rectangle), rubble hatched, borders drawn as water (blue), walls (dark) or open land."""
    per = g.lots_per_block
    side = max(1, math.ceil(math.sqrt(per)))
    rows = max(1, math.ceil(g.blocks / g.columns))
    cols = min(g.columns, max(1, g.blocks))
    w = 2 * BORDER + STREET + cols * (side * LOT + STREET)
    ht = 2 * BORDER + STREET + rows * (side * LOT + STREET)
    body: list[Html] = [h("rect", x=_num(BORDER), y=_num(BORDER), width=_num(w - 2 * BORDER),
                          height=_num(ht - 2 * BORDER), fill="#d9d4c7")]
    for b in range(g.blocks):
        x, y = _lot_xy(g, b * per)
        body.append(h("rect", x=_num(x), y=_num(y), width=_num(side * LOT), height=_num(side * LOT), fill="#fbfaf5",
                      stroke="#b8b2a2", stroke_width="0.8"))
        for k in range(per):
            lx, ly = _lot_xy(g, b * per + k)
            body.append(h("rect", x=_num(lx), y=_num(ly), width=_num(LOT), height=_num(LOT), fill="none",
                          stroke="#d8d2c2", stroke_width="0.6", stroke_dasharray="2 2"))
    for lot in g.rubble:
        lx, ly = _lot_xy(g, lot)
        body.append(h("g", h("title", "rubble"),
                      h("rect", x=_num(lx + 1), y=_num(ly + 1), width=_num(LOT - 2), height=_num(LOT - 2), fill="#ccc",
                        stroke="#777", stroke_width="0.8"),
                      h("path", d=f"M{_num(lx + 6)},{_num(ly + 6)} L{_num(lx + LOT - 6)},{_num(ly + LOT - 6)} "
                                  f"M{_num(lx + LOT - 6)},{_num(ly + 6)} L{_num(lx + 6)},{_num(ly + LOT - 6)}",
                        stroke="#777", stroke_width="2")))
    for st in g.structures:
        cells = [_lot_xy(g, lot) for lot in st.lots if 0 <= lot < g.lots]
        if not cells:
            continue
        fill = structure_colour(st.name)
        tip = (st.name + (f" · {st.note}" if st.note else "") + f" · lot{'s' if len(st.lots) > 1 else ''} "
               + ", ".join(str(lot + 1) for lot in st.lots))
        xs = sorted({c[0] for c in cells})
        ys = sorted({c[1] for c in cells})
        rect = len(xs) * len(ys) == len(cells) and all(
            abs(b - a - LOT) < .5 for seq in (xs, ys) for a, b in itertools.pairwise(seq))
        boxes = [(xs[0], ys[0], len(xs) * LOT, len(ys) * LOT)] if rect else [(cx, cy, LOT, LOT) for cx, cy in cells]
        bx, by, bw, bh = boxes[0]
        chars = max(4, int(bw / 6.2))
        lines = _wrap(st.name, chars)[:3] or [st.name[:chars]]
        lines = [ln if len(ln) <= chars else ln[:chars - 1] + "…" for ln in lines]
        top = by + bh / 2 - (len(lines) - 1) * 5.5 + 3
        body.append(h("g", h("title", tip),
                      (h("rect", x=_num(x + 2), y=_num(y + 2), width=_num(wd - 4), height=_num(hd - 4), rx="3",
                         fill=fill, stroke="#6b5e45", stroke_width="1") for x, y, wd, hd in boxes),
                      (h("text", ln, x=_num(bx + bw / 2), y=_num(top + i * 11), font_size="9.5", text_anchor="middle",
                         fill="#2b2418") for i, ln in enumerate(lines)),
                      class_="kl-structure"))
    sides = {"N": (0, 0, w, BORDER), "S": (0, ht - BORDER, w, BORDER), "W": (0, 0, BORDER, ht),
             "E": (w - BORDER, 0, BORDER, ht)}
    for side_name, kind in g.borders.items():
        if side_name not in sides:
            continue
        x, y, bw, bh = sides[side_name]
        kk = kind.lower()
        if kk == "water":
            body.append(h("rect", h("title", f"{side_name}: water"), x=_num(x), y=_num(y), width=_num(bw),
                          height=_num(bh), fill=RIVER_COLOUR))
        elif kk == "wall":
            body.append(h("rect", h("title", f"{side_name}: city wall"), x=_num(x + 2), y=_num(y + 2),
                          width=_num(bw - 4), height=_num(bh - 4), fill="#5b5248", stroke="#2d2822",
                          stroke_width="1", stroke_dasharray="6 3"))
    return _svg(0, 0, w, ht, join(body), g.name, standalone=standalone, cls="kl-grid")


# ---- HTML around the maps ----------------------------------------------------------------------


def legend_html(items: Sequence[tuple[Html, str]]) -> Html:
    """A wrapping legend: swatch and words per item."""
    if not items:
        return EMPTY
    return h("ul", (h("li", sw, h("span", words)) for sw, words in items), class_="kl-legend")


def map_html(m: MapData, *, selected: str | None = None, allowed: Collection[str] | None = None) -> Html:
    """One map as HTML: the SVG, its legend, hexes not yet placed, and the regions in words."""
    parts: list[Html] = []
    svg = hex_map_svg(m, selected=selected, allowed=allowed)
    if svg:
        parts += [h("div", svg, class_="kl-map"), legend_html(hex_legend(m))]
    unplaced = m.unplaced_hexes()
    if unplaced:
        parts.append(h("p", h("b", "Not yet placed on the map:"), " ", ", ".join(_hex_title(hx) for hx in unplaced),
                       class_="kl-unplaced"))
    rsvg = region_map_svg(m)
    if rsvg:
        colours = party_colours(m)
        parts.append(h("div", rsvg, class_="kl-map kl-map-narrow"))
        items = []
        for p in [p for p in m.parties if p.own] + [p for p in m.parties if not p.own]:
            held = [r.name for r in m.regions if r.owner == p.id]
            words = p.name + (" (you)" if p.own else "") + (f": {', '.join(held)}" if held else "")
            items.append((_swatch(_party_shape(colours[p.id])), words + (f" — {p.note}" if p.note else "")))
        parts.append(legend_html(items))
        rows = []
        for r in m.regions:
            party = m.party(r.owner)
            bits = [f"held by {party.name}" if party else "unclaimed", *r.status]
            rows.append(h("li", h("b", r.name), f" — {', '.join(bits)}",
                          h("ul", (h("li", d) for d in r.detail), class_="kl-region-detail") if r.detail else None))
        parts.append(h("ul", rows, class_="kl-regions"))
    if m.caption:
        parts.append(h("p", m.caption, class_="kl-caption"))
    return join(parts) or h("p", "Nothing on the map yet.", class_="kl-empty")


def settlement_html(g: SettlementGrid) -> Html:
    """A settlement grid with the list of its structures in words (readable on a phone)."""
    names: dict[str, int] = {}
    for st in g.structures:
        names[st.name] = names.get(st.name, 0) + 1
    listing = ", ".join(f"{n} ×{c}" if c > 1 else n for n, c in names.items()) or "no structures yet"
    used = g.used_lots()
    borders = ", ".join(f"{side} {kind.lower()}" for side, kind in g.borders.items() if kind.lower() != "land")
    facts = [f"{used} of {g.lots} lots built", *([f"borders: {borders}"] if borders else [])]
    if g.rubble:
        facts.append(f"{len(g.rubble)} lot{'s' if len(g.rubble) > 1 else ''} of rubble")
    kind = [" ", h("span", g.kind, class_="kl-muted")] if g.kind else None
    return h("figure", h("figcaption", h("b", g.name, kind)), h("div", settlement_svg(g), class_="kl-grid-svg"),
             h("p", " · ".join(facts), class_="kl-muted"), h("p", listing),
             h("p", g.note, class_="kl-muted") if g.note else None, class_="kl-grid-card")


def turn_picker_html(frames: Sequence[tuple[int, str, Html]], *, name: str = "map", legend: str = "Turn") -> Html:
    """One frame per turn under a row of turn buttons that work without script (radio inputs and CSS).

    ``frames`` are ``(turn, button label, html)``; the last one is shown first.
    """
    if not frames:
        return EMPTY
    key = slug(name)
    if len(frames) == 1:
        return h("div", frames[0][2], class_="kl-frames")
    radios, labels, panes, rules = [], [], [], []
    last = frames[-1][0]
    for turn, label, html in frames:
        rid = f"kl-{key}-t{turn}"  # a slug and a number: safe in an id and in the CSS below
        radios.append(h("input", class_="kl-turn-radio", type="radio", name=f"kl-{key}", id=rid, checked=turn == last))
        labels.append(h("label", str(turn), for_=rid, title=label))
        panes.append(h("div", html, class_=f"kl-frame kl-{key}-f{turn}"))
        rules.append(f"#{rid}:checked~.kl-frames .kl-{key}-f{turn}{{display:block}}"
                     f"#{rid}:checked~.kl-turn-row "
                     f"label[for={rid}]{{background:#3b2f63;color:#fff;border-color:#3b2f63}}"
                     f"#{rid}:focus-visible~.kl-turn-row label[for={rid}]{{outline:2px solid #e8590c}}")
    return h("div", style("".join(rules)), radios,
             h("div", h("span", f"{legend}:"), labels, class_="kl-turn-row", role="group", aria_label=legend),
             h("div", panes, class_="kl-frames"), class_="kl-picker")


def standalone_svg(m: MapData, *, with_legend: bool = True) -> Html:
    """``m`` as an SVG file of its own (namespace, size and a light background): the hex map if it has one,
    else the region map; with its legend drawn under it."""
    drawn = _hex_map(m) or _region_map(m)
    if drawn is None:
        drawn = (0, 0, 200, 40), _label(100, 24, "Nothing on the map yet", size=12)
    x, y, w, ht = (float(_num(v)) for v in drawn[0])  # as the map's viewBox writes them
    items = _legend_shapes(m) if m.placed_hexes() else []
    if m.regions:
        colours = party_colours(m)
        items += [(_party_shape(colours[p.id]), p.name) for p in m.parties]
    rows = []
    if with_legend and items:
        col = max(110.0, 24 + 5.2 * max(len(words) for _, words in items))  # 9 px text: about 5 px a letter
        if w < col + 12:
            x, w = x - (col + 12 - w) / 2, col + 12
        per_row = max(1, int((w - 6) // col))
        for i, (shapes, words) in enumerate(items):
            cx = x + 6 + (i % per_row) * col
            cy = y + ht + 8 + (i // per_row) * 18
            rows += [h("g", shapes, transform=f"translate({_num(cx)},{_num(cy)}) scale(0.8)"),
                     h("text", words, x=_num(cx + 16), y=_num(cy + 10), font_size="9", fill="#222")]
        h2 = ht + 14 + (len(items) + per_row - 1) // per_row * 18
    else:
        h2 = ht
    title = _label(x + 6, y - 8, m.title, size=11, anchor="start")
    body = join([h("title", m.title), drawn[1], *rows, title])
    return _svg(x, y - 24, w, h2 + 24, body, m.title, standalone=True, cls="kl-map-file")


def svg_to_png(svg: str, *, scale: float = 1.0) -> bytes:
    """A PNG of an SVG document (vl-convert's renderer: no browser, no network)."""
    import vl_convert as vlc

    data: bytes = vlc.svg_to_png(svg, scale=scale)
    return data


MAP_STYLE = """
.kl-map svg { width: 100%; height: auto; display: block; margin: 0 auto; }
.kl-map-narrow { max-width: 26em; margin: 0 auto; }
.kl-legend { list-style: none; padding: 0; margin: .4em 0; display: flex; flex-wrap: wrap; gap: .2em .9em;
  font-size: .88em; color: #333; }
.kl-legend li { display: flex; align-items: center; gap: .3em; }
.kl-legend svg { flex: none; }
.kl-regions { padding-left: 1.1em; margin: .4em 0; }
.kl-region-detail { color: #444; font-size: .92em; }
.kl-unplaced, .kl-caption, .kl-muted { color: #666; font-size: .9em; }
.kl-picker .kl-turn-radio { position: absolute; opacity: 0; width: 1px; height: 1px; }
.kl-turn-row { display: flex; flex-wrap: wrap; gap: .25em; align-items: center; margin: .3em 0 .5em; }
.kl-turn-row span { font-size: .9em; color: #555; margin-right: .2em; }
.kl-turn-row label { min-width: 2.1em; padding: .25em .45em; border: 1px solid #bbb; border-radius: .4em;
  text-align: center; cursor: pointer; font-size: .9em; background: #fff; }
.kl-picker .kl-frame { display: none; }
.kl-grid-card { margin: 0; }
.kl-grid-svg svg { width: 100%; height: auto; display: block; }
.kl-hex polygon { transition: opacity .1s; }
"""
"""CSS for the maps (inlined with the page's)."""
