"""A hex picked on the map: the GM sheet's map widget for a choice that names a hex (issue 13).

The map is the library's own SVG (``maps.hex_map_svg``), drawn for the GM, with the hexes the
step's choice allows marked ``data-allowed="true"`` and the rest faded. A click on an allowed
hex sets the widget's ``value`` to its id; a click anywhere else does nothing, so the picker can
never hold a hex the choice refuses. The widget is an anywidget (marimo renders it with
``mo.ui.anywidget``): a few lines of script in the page, no network request, no CDN.

>>> from kingdomlog.core.mapdata import MapData, MapHex
>>> m = MapData("m", hexes=(MapHex("H1", q=0, r=0, terrain="plains", claimed=True),
...                         MapHex("H2", q=1, r=0, terrain="forest")))
>>> w = HexPicker.of(m, allowed=["H2"], value="H2")
>>> w.value, 'data-hex="H2" data-allowed="true"' in w.svg, 'data-hex="H1" data-allowed="false"' in w.svg
('H2', True, True)
>>> HexPicker.of(m, allowed=["H2"], value="H1").value   # a value the choice does not allow is not shown picked
''
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import anywidget
import traitlets

from kingdomlog.core.mapdata import MapData
from kingdomlog.views import maps

_ESM = """
function render({ model, el }) {
  el.classList.add("kl-hexpick");
  const map = document.createElement("div");
  const said = document.createElement("p");
  said.className = "kl-hexpick-said";
  el.append(map, said);
  function mark() {
    const v = model.get("value");
    map.querySelectorAll("[data-hex]").forEach((g) => g.classList.toggle("kl-hex-picked", g.dataset.hex === v));
    const g = v ? map.querySelector(`[data-hex="${CSS.escape(v)}"]`) : null;
    const title = g && g.querySelector("title");
    said.textContent = v ? "Picked on the map: " + (title ? title.textContent : v) : model.get("prompt");
  }
  function draw() { map.innerHTML = model.get("svg"); mark(); }
  map.addEventListener("click", (e) => {
    const g = e.target.closest("[data-hex]");
    if (!g || g.dataset.allowed !== "true") return;
    model.set("value", g.dataset.hex);
    model.save_changes();
  });
  model.on("change:value", mark);
  model.on("change:svg", draw);
  draw();
}
export default { render };
"""

_CSS = """
.kl-hexpick svg { width: 100%; height: auto; max-height: 420px; }
.kl-hexpick [data-allowed="true"] { cursor: pointer; }
.kl-hexpick [data-allowed="true"]:hover > polygon { stroke: #1b6ca8; stroke-width: 2.5; }
.kl-hexpick .kl-hex-picked > polygon { stroke: #e8590c; stroke-width: 3.5; }
.kl-hexpick-said { margin: .25rem 0 0; font-size: .9rem; color: #444; }
"""


class HexPicker(anywidget.AnyWidget):
    """The map with its allowed hexes clickable; ``value`` is the picked hex id ("" when none)."""

    _esm = _ESM
    _css = _CSS
    svg = traitlets.Unicode("").tag(sync=True)
    value = traitlets.Unicode("").tag(sync=True)
    prompt = traitlets.Unicode("Click a hex on the map.").tag(sync=True)

    @classmethod
    def of(cls, m: MapData, *, allowed: Collection[str], value: str | None = None,
           prompt: str = "Click a hex on the map.") -> HexPicker:
        """A picker over ``m`` where only ``allowed`` hexes can be picked; ``value`` shows picked if allowed."""
        ok = set(allowed)
        picked = value if value in ok else ""
        return cls(svg=maps.hex_map_svg(m, allowed=ok), value=picked or "", prompt=prompt)


def picked(raw: object) -> str | None:
    """The hex id in a picker's value as marimo reports it (``{"value": id, ...}``), None when none is picked.

    >>> picked({"value": "H2", "svg": "..."}), picked({"value": ""}), picked(None)
    ('H2', None, None)
    """
    if isinstance(raw, Mapping):
        v = raw.get("value")
        return v if isinstance(v, str) and v else None
    return None
