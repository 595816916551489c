"""The turn sheet's hex picker: a hex target field as one widget, a select and a map to click under it.

A choice whose ``Pick`` source names hexes (``…_hexes``: pf2e ``region_hexes``, pf1 ``claim_hexes``, …)
is a target on the map. On the sheet it is one anywidget (``HexPicker``) whose single synced
``value`` is the plan's value (a hex id, or a list of ids for a multiselect). Its script draws
the GM's map (``views.player.maps.hex_map_svg`` of ``ruleset.map(state_before_the_step, GM)``, sent as
a string) and a native ``<select>`` of the field's options; a click on an allowed hex or a change
of the select updates both at once in the page, then sends ``value`` once. So there is one source
of truth and the hex need not be part of ``forms.form_key``: a pick rebuilds no widget unless it
changes the form itself (the first pick on a new Claim Hex row brings the check's dice slot).

- allowed hexes are the field's options that are not disabled; the others are faded, and a click
  on one only says why it cannot be picked;
- hovering a hex shows its ``<title>`` (id, terrain, what stands there);
- labels, symbols and borders drawn over a hex let the click through (``pointer-events: none``);
- the selected hex is outlined (each of them, for a multiselect);
- the map folds away (``<details>``); the select stays for keyboard users.

Reading the value back never raises: an id the field does not offer is a ``FieldError`` at its path.
The script is inline (no request leaves the page).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import anywidget
import traitlets

from kingdomlog.core.choices import FieldSpec
from kingdomlog.core.mapdata import MapData
from kingdomlog.views.words import is_hex_field, option_text

__all__ = ["CSS", "ESM", "HexPicker", "can_pick", "hex_picker", "is_picker", "picker_options", "read_picker"]


def picker_options(spec: FieldSpec, current: Any) -> list[dict[str, Any]]:
    """The select's entries: ``{"v": value, "t": text, "d": why it cannot be picked ("" if it can)}``.

    A current value the field does not offer (any more) is listed too, flagged, so the plan shows as it is.
    """
    held = current if isinstance(current, list) else [] if current is None else [current]
    out: list[dict[str, Any]] = [{"v": o.value, "t": option_text(o), "d": o.disabled} for o in spec.options or ()
                                 if not o.alias or o.value in held]
    have = {o["v"] for o in out}
    for x in held:
        if x not in have and isinstance(x, (str, int)):
            out.append({"v": x, "t": f"⚠ {x} — not allowed now", "d": ""})
            have.add(x)
    return out


ESM = r"""
const folds = new Map();  // the field's key -> the GM's open/closed choice for its map (kept across re-renders)

function render({ model, el }) {
  const multi = !!model.get("multiple");
  const opts = model.get("options") || [];
  const index = new Map(opts.map((o, i) => [String(o.v), i]));
  const root = document.createElement("div");
  root.className = "klhp";
  const label = document.createElement("label");
  label.className = "klhp-label";
  const name = document.createElement("span");
  name.className = "klhp-name";
  name.textContent = model.get("label") || "";
  const sel = document.createElement("select");
  sel.className = "klhp-select";
  if (multi) {
    sel.multiple = true;
    sel.size = Math.max(2, Math.min(6, opts.length));
  } else {
    sel.add(new Option("--", "-1"));
  }
  // the hexes that can be picked first, then those the rules refuse (greyed, with the reason)
  const order = opts.map((o, i) => i).sort((a, b) => (!!opts[a].d - !!opts[b].d) || a - b);
  const byIndex = new Map();
  order.forEach((i) => {
    const op = new Option(opts[i].t, String(i));
    op.disabled = !!opts[i].d;
    sel.add(op);
    byIndex.set(i, op);
  });
  label.append(name, sel);
  const fold = document.createElement("details");
  fold.className = "klhp-fold";
  const foldKey = model.get("fold_key") || "";
  fold.open = foldKey && folds.has(foldKey) ? folds.get(foldKey) : !!model.get("expanded");
  fold.addEventListener("toggle", () => { if (foldKey) folds.set(foldKey, fold.open); });
  const summary = document.createElement("summary");
  summary.textContent = model.get("summary") || "Map";
  const box = document.createElement("div");
  box.className = "klhp-map";
  box.innerHTML = model.get("svg") || "";
  const msg = document.createElement("div");
  msg.className = "klhp-msg";
  msg.setAttribute("aria-live", "polite");
  fold.append(summary, box);
  root.append(label, fold, msg);

  const held = () => {
    const v = model.get("value");
    if (multi) return Array.isArray(v) ? v.map(String) : [];
    return v === null || v === undefined ? [] : [String(v)];
  };
  const svg = box.querySelector("svg");
  const show = () => {
    const on = new Set(held());
    if (multi) {
      opts.forEach((o, i) => { byIndex.get(i).selected = on.has(String(o.v)); });
    } else {
      const v = held()[0];
      sel.value = v !== undefined && index.has(v) ? String(index.get(v)) : "-1";
    }
    box.querySelectorAll(".klhp-outline").forEach((e) => e.remove());
    box.querySelectorAll("g.kl-hex").forEach((g) => {
      const picked = on.has(g.dataset.hex);
      g.classList.toggle("klhp-picked", picked);
      const shape = g.querySelector("polygon");
      if (picked && shape && svg) {
        const ring = document.createElementNS("http://www.w3.org/2000/svg", "polygon");
        ring.setAttribute("points", shape.getAttribute("points"));
        ring.setAttribute("class", "klhp-outline");
        ring.setAttribute("data-outline", g.dataset.hex);
        svg.appendChild(ring);
      }
    });
    root.dataset.value = held().join(" ");
  };
  const send = (v) => {
    model.set("value", v);
    model.save_changes();
    show();
  };
  sel.addEventListener("change", () => {
    if (multi) {
      send(Array.from(sel.selectedOptions).map((op) => opts[Number(op.value)].v));
    } else {
      const i = Number(sel.value);
      send(i < 0 ? null : opts[i].v);
    }
    msg.textContent = "";
  });
  box.addEventListener("click", (ev) => {
    const g = ev.target && ev.target.closest ? ev.target.closest("g.kl-hex") : null;
    if (!g) return;
    const id = g.dataset.hex;
    const said = g.dataset.name || id;  // the hex as a person reads it (pf1's "hex 3"), not its id ("h3")
    const i = index.get(id);
    if (i === undefined || g.dataset.allowed === "false") {
      const why = i === undefined ? "not one of the hexes this choice offers" : opts[i].d || "not allowed here";
      msg.textContent = said + " cannot be picked: " + why + ".";
      msg.dataset.kind = "refused";
      return;
    }
    if (multi) {
      const now = held();
      const v = opts[i].v;
      const next = now.includes(String(v)) ? now.filter((x) => x !== String(v)) : [...now, String(v)];
      send(opts.filter((o) => next.includes(String(o.v))).map((o) => o.v));
      msg.textContent = (next.includes(String(v)) ? "Added " : "Removed ") + said + ".";
    } else {
      send(opts[i].v);
      msg.textContent = "Picked " + said + ".";
    }
    msg.dataset.kind = "picked";
  });
  const follow = () => show();
  model.on("change:value", follow);
  show();
  el.replaceChildren(root);
  return () => model.off("change:value", follow);
}

export default { render };
"""

CSS = """
.klhp { display: flex; flex-direction: column; gap: .3em; max-width: 100%; font-size: 14px; }
.klhp-label { display: flex; flex-direction: column; gap: .15em; }
.klhp-name { font-size: .875rem; }
.klhp-select { width: 100%; max-width: 100%; padding: 4px 6px; border: 1px solid #c9c4b6; border-radius: 6px;
  background: #fff; font: inherit; font-size: .9em; }  /* 12.6 px, as the sheet's other dropdowns (marimo's) */
.klhp-fold > summary { cursor: pointer; color: #5b4a2f; font-size: .85em; }
.klhp-map { max-width: 100%; overflow: hidden; }
.klhp-map svg { display: block; width: 100%; max-width: 30em !important; height: auto; max-height: 24em; }
.klhp-map svg * { pointer-events: none; }
.klhp-map svg g.kl-hex > polygon { pointer-events: auto; cursor: pointer; }
.klhp-map svg g.kl-hex[data-allowed="false"] > polygon { cursor: not-allowed; }
.klhp-map svg g.kl-hex[data-allowed="true"]:hover > polygon { stroke: #5b4a2f; stroke-width: 2.4; }
.klhp-outline { fill: none; stroke: #e8590c; stroke-width: 3.4; stroke-dasharray: 4 2; pointer-events: none; }
.klhp-msg { font-size: .85em; color: #555; min-height: 1.2em; }
.klhp-msg[data-kind="refused"] { color: #a93226; }
"""


class HexPicker(anywidget.AnyWidget):
    """One hex target field: ``value`` (the plan's value) is the only trait the page writes."""

    _esm = ESM
    _css = CSS
    value = traitlets.Any(None).tag(sync=True)
    options: Any = traitlets.List([]).tag(sync=True)
    svg = traitlets.Unicode("").tag(sync=True)
    label = traitlets.Unicode("").tag(sync=True)
    summary = traitlets.Unicode("").tag(sync=True)
    multiple = traitlets.Bool(False).tag(sync=True)
    expanded = traitlets.Bool(True).tag(sync=True)
    fold_key = traitlets.Unicode("").tag(sync=True)
    """Where the field is (its key in the sheet's widgets): the map stays open or folded as the GM left it."""

    def traits_now(self) -> dict[str, Any]:
        return {"value": copy.deepcopy(self.value), "options": copy.deepcopy(self.options), "svg": self.svg,
                "label": self.label, "summary": self.summary, "multiple": self.multiple, "expanded": self.expanded,
                "fold_key": self.fold_key}

    def __deepcopy__(self, memo: dict[int, Any]) -> HexPicker:
        # marimo deep-copies the elements a mo.ui.dictionary wraps; a widget (its comm) cannot be copied
        return HexPicker(**self.traits_now())


def hex_picker(spec: FieldSpec, value: Any, hexmap: MapData, *, expanded: bool = True) -> Any:
    """The ``mo.ui.anywidget`` of a hex target field holding ``value`` (a plan value; None: none picked)."""
    import marimo as mo

    from kingdomlog.views.player.maps import hex_map_svg

    multi = spec.kind == "multiselect"
    current: Any
    if multi:
        current = [x for x in value if isinstance(x, (str, int))] if isinstance(value, (list, tuple)) else []
    else:
        current = value if isinstance(value, (str, int)) and not isinstance(value, bool) else None
    opts = picker_options(spec, current)
    allowed = {str(o["v"]) for o in opts if not o["d"]}
    svg = hex_map_svg(hexmap, allowed=allowed)
    placed = {h.id for h in hexmap.placed_hexes()}
    n_ok = len(allowed & placed)
    what = "click hexes to add or remove them" if multi else "click a hex to pick it"
    summary = f"Map: {what} ({n_ok} of {len(placed)} hex{'es' if len(placed) != 1 else ''} allowed)"
    w = HexPicker(value=current, options=opts, svg=svg, label=spec.label, summary=summary, multiple=multi,
                  expanded=expanded)
    return mo.ui.anywidget(w)


def can_pick(spec: FieldSpec, value: Any, hexmap: MapData | None) -> bool:
    """Whether ``spec`` holding ``value`` is shown as a hex picker (a hex field, a map with hexes, plain ids)."""
    if hexmap is None or not is_hex_field(spec) or not hexmap.placed_hexes():
        return False
    if spec.kind == "multiselect":
        return value is None or (isinstance(value, (list, tuple)) and all(isinstance(x, (str, int)) for x in value))
    return value is None or (isinstance(value, (str, int)) and not isinstance(value, bool))


def is_picker(elem: Any) -> bool:
    """Whether a built element is a hex picker (a ``mo.ui.anywidget`` wrapping ``HexPicker``)."""
    return isinstance(getattr(elem, "widget", None), HexPicker)


_MISSING: Any = object()


def read_picker(spec: FieldSpec, raw: Mapping[str, Any], given: Mapping[str, Any]) -> tuple[bool, Any, str | None]:
    """A picker's value as ``(given, plan value, problem)``; ``raw`` is its element's value in the dictionary.

    marimo gives ``{}`` until the page sent a value (the widget still holds the value it was built with,
    ``given``), then ``{"value": …}``. An id the field does not offer is a problem (the caller puts it at the
    field's path), never an exception.
    """
    got = raw.get("value", _MISSING) if isinstance(raw, Mapping) else _MISSING
    if got is _MISSING:
        if spec.name in given:
            return True, given[spec.name], None
        return False, None, None
    offered = {o.value for o in spec.options or ()}
    before = given.get(spec.name)
    if spec.kind == "multiselect":
        if got is None:
            got = []
        if not isinstance(got, (list, tuple)) or not all(isinstance(x, (str, int)) for x in got):
            return False, None, f"{got!r} is not a list of hexes"
        held = set(before) if isinstance(before, (list, tuple)) else set()
        bad = [x for x in got if x not in offered and x not in held]
        if bad:
            return False, None, f"{', '.join(map(str, bad))}: not a hex this choice offers"
        if not got and spec.item_kind is not None:  # as the multiselect: none picked is not given
            return False, None, None
        return True, list(got), None
    if got is None:
        return False, None, None
    if not isinstance(got, (str, int)) or isinstance(got, bool):
        return False, None, f"{got!r} is not a hex"
    if got not in offered and got != before:
        return False, None, f"{got!r} is not a hex this choice offers"
    return True, got, None
