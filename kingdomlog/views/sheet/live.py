"""The turn sheet's live parts: an edit redraws what it changed, never the widgets around it.

The page (``sheet_cards.page_html``: every card with its widgets, the kingdom panel, the
commit bar) is drawn when the widgets are built. An edit then changes the cards' results,
badges and classes, the panel's figures and the status line, but not the widgets, and
drawing the whole page again (its hundred and more widgets re-created by the browser) was
most of what an edit cost in the browser (``benchmarks/bench_notebook.py --anatomy``).

So those parts are marked in the page (``data-kl-slot="key"``: its content; ``data-kl-at="key"``:
its attributes) and one anywidget, ``LiveParts``, holds their current HTML (``slots``) and
attributes (``attrs``), computed by ``sheet_cards.page_slots``. Setting them from Python sends one
message; the widget's script writes only the parts whose HTML changed, keeps a folded or opened
``<details>`` as the GM left it, and sets the page's ``data-plan`` last (the rest is drawn then).
Nothing is sent back: the widget has no value.

The page is drawn with its slots empty (``live=True``) and ``data-plan`` blank: marimo draws an
output through React, which owns the nodes it made; a script that rewrote them made React's next
drawing of the page fail ("removeChild: the node is not a child", seen after a commit). So only
the script fills a slot, on its first appearance (a ``MutationObserver``, once a frame) and on
every message.

**The widgets come after the page.** Each card's left side (its widgets) is not in the page either: the page
leaves a holder (``data-kl-left="step"``) and ``LiveParts.lefts`` holds its HTML. The script mounts the cards in
the window before it sets ``data-plan``, and the others in one go after the page's next frame, the page marked
``data-kl-later`` until then: mounting the page's ~140 widgets through marimo's output (its sanitizer, React,
a shadow root and a React root each) was most of a first render in the browser. A left side whose HTML did not
change is left alone; one drawn before (the month before's, or the same widgets with an error moved) is patched
node by node as marimo patches an output, so a widget whose attributes did not change keeps what the GM typed.
After a commit the next month keeps the widgets that show what its own would (``views.forms.keep_same``,
``SheetSession.keep_from``): a card whose widgets were all kept has the same HTML, and is left alone.

Only the first cards' left sides (``FIRST_LEFTS``: those a window shows first) are made and sent with the page; the
notebook's next cell sends the others (``rest``: ``LiveParts.rest``, ``more`` cleared) once the page is on its way,
so the kernel's work and the message before the page are those of the cards in view (a first open made and sent all
17 of pf2e's, 145 KB, before the page). The script sets ``data-plan`` only once every card in the window has its
widgets, and keeps ``data-kl-later`` until every card has; a card drawn before whose left side is still to come is
hidden and guarded as a card below the window is.

An edit that moves an error to or from a widget, or changes a refusal, changes the left side
of a card (``sheet_cards.page_key``): ``show`` then says the page must be drawn again.
The script is inline (no request leaves the page); the parts hold the page's own escaped HTML.

The dice buttons the live parts draw (Roll, the faces of physical dice, Re-roll…, Roll all: plain
HTML marked ``data-kl-act``) reach the server through a second anywidget, ``RollPad``: its script
listens for their clicks on the page and sets its one value, ``press`` (what was pressed, on which
step and roll, the reason and faces typed beside it, and a count ``n``); the notebook hands the value
to ``SheetSession.update(press=...)``, which takes each count once. The button says "Rolling…" until
its part is drawn again. The face is drawn on the server when the press arrives, never before.

**Busy.** While the kernel rebuilds the widgets (a row added: a second or more on a loaded machine), the
widgets on the page are the old ones, and what is done to them arrives for widgets the rebuild replaced
(``views.sheet.late`` places it on the new ones). So ``rebuilding(session)`` sets ``busy`` on the parts
now drawn: the page's cards are disabled (``inert``) and dimmed until the next drawing, whose parts are
not busy, replaces them. While a commit is written (``views.sheet.commit``) the cards take no input either,
but through a guard on the window's input events (``klGuard``), not ``inert``: that attribute made the
browser restyle the whole page at every click on Commit. The page's root carries what is going on
(``BUSY_JS``): ``data-kl-rebuild``, ``data-kl-committing`` (``views.sheet.commit``) and ``data-kl-running``
(marimo is running a cell: its own indicator is in the page), and a pill at the foot of the window says
"Updating…" once one of them has lasted 300 ms.
"""

from __future__ import annotations

import uuid
from typing import Any

import anywidget
import traitlets

from kingdomlog.views.html import Html, h, marimo_html, style
from kingdomlog.views.sheet.draft import SheetDraft, SheetSession

__all__ = ["BUSY_CSS", "BUSY_JS", "ESM", "PAD_ESM", "Laid", "LiveParts", "RollPad", "hidden", "live_parts", "page",
           "rebuilding", "roll_pad", "show"]

BUSY_JS = r"""
// The page's busy state, on the document's root (no node React draws): flags set by the sheet's widgets.
// "Updating…" (or "Committing…") shows in a pill of its own at the foot of the window once the page has been
// busy for 300 ms: outside marimo's outputs, which it fades while their cells run.
function klPill() {
  let pill = document.getElementById("kl-busy");
  if (!pill) {
    pill = document.createElement("div");
    pill.id = "kl-busy";
    pill.setAttribute("role", "status");
    pill.setAttribute("aria-live", "polite");
    Object.assign(pill.style, {
      position: "fixed", bottom: "18px", left: "50%", transform: "translateX(-50%)", zIndex: "2147483000",
      background: "#2b2215", color: "#fff", borderRadius: "999px", padding: "6px 20px", fontSize: "15px",
      fontWeight: "700", letterSpacing: ".02em", boxShadow: "0 2px 12px rgba(0, 0, 0, .4)",
      pointerEvents: "none", display: "none" });
    document.body.appendChild(pill);
  }
  return pill;
}

// What the GM does on the cards while a commit is written would be for the month being committed, and lost; a
// month before's widgets waiting to be patched (data-kl-stale) are dead. Both take no input: every input event
// whose target is inside them is stopped at the window, before any widget (or the dice pad) sees it. Not `inert`:
// setting it on the cards at the click restyled the whole page's ~4,000 elements (benchmarks/README.md, the
// sheet's fifth pass); the guard changes no style. A rebuild still sets `inert` (it dims the cards as well).
const KL_GUARDED = ["pointerdown", "pointerup", "mousedown", "mouseup", "click", "dblclick", "auxclick", "contextmenu",
  "touchstart", "keydown", "keypress", "keyup", "beforeinput", "input", "paste", "cut", "drop", "dragstart"];

function klGuarded(target) {
  const at = target && target.closest ? target : target && target.parentElement;
  if (!at || !at.closest) return false;
  if (at.closest("[data-kl-stale]")) return true;
  return document.documentElement.hasAttribute("data-kl-committing") && !!at.closest(".kl-cards");
}

function klGuard() {
  if (window.__klGuard) return;
  window.__klGuard = true;
  const stop = (ev) => {
    if (!klGuarded(ev.target)) return;
    if (ev.cancelable) ev.preventDefault();
    ev.stopImmediatePropagation();
  };
  for (const type of KL_GUARDED) window.addEventListener(type, stop, { capture: true, passive: false });
}

function klFlag(name, on) {
  const root = document.documentElement;
  if (on !== root.hasAttribute(name)) {
    if (on) root.setAttribute(name, "");
    else root.removeAttribute(name);
  }
  const rebuild = root.hasAttribute("data-kl-rebuild");
  const block = rebuild || root.hasAttribute("data-kl-committing");
  if (block) klGuard();
  document.querySelectorAll(".kl-cards").forEach((c) => {
    if (rebuild !== c.hasAttribute("inert")) {
      if (rebuild) c.setAttribute("inert", "");
      else c.removeAttribute("inert");
    }
  });
  if (block && document.activeElement && document.activeElement.closest
      && document.activeElement.closest(".kl-cards")) document.activeElement.blur();
  const what = root.hasAttribute("data-kl-committing") ? "↻ Committing…"
    : block || root.hasAttribute("data-kl-running") ? "↻ Updating…" : "";
  const pill = klPill();
  pill.dataset.what = what;
  if (!what) {
    clearTimeout(window.__klPillTimer);
    window.__klPillTimer = 0;
    pill.style.display = "none";
    return;
  }
  pill.textContent = what;
  if (pill.style.display === "none" && !window.__klPillTimer) {
    window.__klPillTimer = setTimeout(() => {
      window.__klPillTimer = 0;
      if (pill.dataset.what) pill.style.display = "block";
    }, 300);
  }
}

// marimo's own indicator is in the page while a cell runs: data-kl-running follows it; when the kernel
// falls idle, nothing is being rebuilt or committed any more (a drawing that failed leaves no flag behind).
// One watcher for the page, whichever widget starts it (a widget's view comes and goes with its drawing).
function klWatchRunning() {
  if (window.__klWatchingRunning) return;
  window.__klWatchingRunning = true;
  let queued = false;
  let was = false;
  const look = () => {
    queued = false;
    const now = !!document.querySelector('[data-testid="loading-indicator"]');
    if (now === was) return;
    was = now;
    klFlag("data-kl-running", now);
    if (!now) {
      klFlag("data-kl-rebuild", false);
      klFlag("data-kl-committing", false);
    }
  };
  new MutationObserver(() => {
    if (!queued) {
      queued = true;
      requestAnimationFrame(look);
    }
  }).observe(document.body, { childList: true, subtree: true });
  look();
}
"""

ESM = BUSY_JS + r"""
function summaryOf(d) {
  const s = d.querySelector(":scope > summary");
  return s ? s.textContent : "";
}

// The parts of the drawing this model belongs to, and only those: marimo draws the next drawing (a rebuild, the next
// month) in place of the last and the last one's view may still run once (a frame it had queued, a change that
// arrives late); writing its parts into the new page put the widgets of the drawing before back into a card for
// good (seen: the signoria war board showing its form from before the battle, without its "+ add"). Each drawing
// is marked with its model's token (``data-kl-live``).
function roots(model) {
  const token = model && model.get("token");
  return token ? Array.from(document.querySelectorAll(`[data-kl-live="${CSS.escape(token)}"]`)) : [];
}

function within(rs, selector) {
  const out = [];
  for (const r of rs) out.push(...r.querySelectorAll(selector));
  return out;
}

function apply(model) {
  const rs = roots(model);
  if (!rs.length) return;
  const slots = model.get("slots") || {};
  for (const node of within(rs, "[data-kl-slot]")) {
    const html = slots[node.dataset.klSlot];
    if (html === undefined || node.__klHtml === html) continue;
    const open = new Map();  // a <details> the GM opened or folded stays so
    node.querySelectorAll("details").forEach((d) => open.set(summaryOf(d), d.open));
    node.innerHTML = html;
    node.__klHtml = html;
    if (open.size) node.querySelectorAll("details").forEach((d) => {
      const k = summaryOf(d);
      if (open.has(k)) d.open = open.get(k);
    });
  }
  const attrs = model.get("attrs") || {};
  const set = (node, values) => {
    for (const [name, value] of Object.entries(values || {})) {
      if (node.getAttribute(name) !== value) node.setAttribute(name, value);
    }
  };
  const pages = [];
  for (const node of within(rs, "[data-kl-at]")) {
    if (node.dataset.klAt === "page") pages.push(node);
    else set(node, attrs[node.dataset.klAt]);
  }
  const later = lefts(model, rs);
  const waiting = later === "window";  // a card in the window still waits for its widgets: not drawn yet
  pages.forEach((node) => {
    if (!!later !== node.hasAttribute("data-kl-later")) {  // before data-plan: "drawn" never hides a card to come
      if (later) node.setAttribute("data-kl-later", "");
      else node.removeAttribute("data-kl-later");
    }
    if (!waiting) set(node, attrs.page);  // last: the page's data-plan says the rest is drawn
  });
}

// Each card's left side (its widgets) is mounted by this script, not drawn in the page: the cards in view at
// once, the others one per task after the page is drawn (views.sheet.live: mounting a page's ~140 widgets was
// most of a first render and of a commit in the browser). A left side whose HTML did not change is never
// mounted again (its widgets keep what the GM typed); one that changed (an error moved to a widget) is.
const laterTimers = new Map();  // model -> its pending fillLater

// Every left side come so far: those sent with the page (``lefts``) and those sent just after it (``rest``).
function allLefts(model) {
  return model ? Object.assign({}, model.get("lefts") || {}, model.get("rest") || {}) : {};
}

function leftsToFill(model, rs) {
  const all = allLefts(model);
  const todo = [];
  for (const node of within(rs, "[data-kl-left]")) {
    const html = all[node.dataset.klLeft];
    if (html !== undefined && node.__klHtml !== html) todo.push([node, html]);
  }
  return todo;
}

// The holders whose left side has not come yet (the server sends the first cards' with the page, the others just
// after it: ``more``).
function leftsToCome(model, rs) {
  if (!model || !model.get("more")) return [];
  const all = allLefts(model);
  return within(rs, "[data-kl-left]").filter((node) => all[node.dataset.klLeft] === undefined);
}

// A left side drawn before (the month before's, or the same widgets with an error moved) is patched as marimo's
// own drawing patches an output: a node of the same kind at the same place is kept and its attributes set (a
// widget whose attributes did not change is left as it is, with what the GM typed and where the focus is; one
// made again is told by its attributes), the others replaced. A new one is written at once.
function morph(into, from) {
  const olds = Array.from(into.childNodes);
  const news = Array.from(from.childNodes);
  news.forEach((n, i) => {
    const o = olds[i];
    if (o && o.nodeType === n.nodeType && o.nodeName === n.nodeName) {
      if (n.nodeType !== 1) {
        if (o.nodeValue !== n.nodeValue) o.nodeValue = n.nodeValue;
        return;
      }
      morph(o, n);  // its children first, as React commits them: a widget made again (a new random-id on its
      // marimo-ui-element) draws itself from its child's attributes, which must be the new widget's by then
      for (const a of Array.from(o.attributes)) if (!n.hasAttribute(a.name)) o.removeAttribute(a.name);
      for (const a of Array.from(n.attributes)) if (o.getAttribute(a.name) !== a.value) o.setAttribute(a.name, a.value);
    } else if (o) into.replaceChild(n, o);
    else into.appendChild(n);
  });
  olds.slice(news.length).forEach((o) => o.remove());
}

function fillLeft(node, html) {
  if (node.firstChild) {
    const t = document.createElement("template");
    t.innerHTML = html;
    morph(node, t.content);
  } else node.innerHTML = html;
  node.__klHtml = html;
  if (node.hasAttribute("data-kl-stale")) {
    node.removeAttribute("data-kl-stale");
    node.style.opacity = "";
  }
}

// Whether cards are still to be mounted: false (none), true (below the window), "window" (one in the window waits for
// its left side from the server).
function lefts(model, rs) {
  const todo = leftsToFill(model, rs);
  const coming = leftsToCome(model, rs);
  // Reads before writes: each card is measured once the ones before it are filled (a forced layout each), and
  // the first below the window ends the measuring (the cards after it are below it too).
  const later = [];
  for (const [node, html] of todo) {
    const r = later.length && later[later.length - 1].below ? null : node.getBoundingClientRect();
    if (r && r.top < window.innerHeight && r.bottom >= 0) fillLeft(node, html);
    else later.push({ node, below: !r || r.top >= window.innerHeight });
  }
  let inWindow = false;
  for (const node of coming) {
    const r = node.getBoundingClientRect();
    if (r.top < window.innerHeight && r.bottom >= 0) inWindow = true;
    later.push({ node, below: r.top >= window.innerHeight });
  }
  for (const { node } of later) {
    // Another drawing's widgets (the month before's, after a commit) are hidden and out of reach at once, and
    // patched when the card's turn comes: transparent (opacity is not inherited: no style pass over the widgets
    // inside, as `inert` and `visibility` made) and guarded (klGuard: no input reaches them).
    if (node.firstChild && node.__klHtml !== undefined) {
      node.__klHtml = undefined;
      klGuard();
      node.setAttribute("data-kl-stale", "");
      node.style.opacity = "0";
    }
  }
  // the rest once the page is drawn (after its next frame)
  if (later.length > coming.length && !laterTimers.has(model)) {
    laterTimers.set(model, requestAnimationFrame(() => laterTimers.set(model, setTimeout(() => fillLater(model), 0))));
  }
  return inWindow ? "window" : later.length > 0;
}

function fillLater(model) {
  // All at once: each card mounted in a task of its own cost the browser a style and layout pass of the whole page
  // each (17 of them: a commit's redraw took more of the browser's time than mounting the page whole).
  laterTimers.delete(model);
  const rs = roots(model);
  for (const [node, html] of leftsToFill(model, rs)) fillLeft(node, html);
  if (leftsToCome(model, rs).length) return;  // the rest of the left sides have not come: still later
  within(rs, ".kl-page[data-kl-later]").forEach((p) => p.removeAttribute("data-kl-later"));
}

function render({ model, el }) {
  el.style.display = "none";
  let gone = false;  // this view is over: a frame it queued does nothing
  const again = () => { if (!gone) apply(model); };
  const busy = () => klFlag("data-kl-rebuild", !!model.get("busy"));
  model.on("change:slots", again);
  model.on("change:attrs", again);
  model.on("change:lefts", again);
  model.on("change:rest", again);
  model.on("change:more", again);
  model.on("change:busy", busy);
  again();
  busy();  // a new drawing's parts are not busy: the rebuild that made them is over
  klWatchRunning();
  // The page around this widget may be put in the document after it, or drawn again without it
  // being made again: fill the slots that appear (once a frame at most).
  let queued = false;
  const watch = new MutationObserver((records) => {
    if (queued) return;
    const outside = records.some((r) => r.type === "childList" && r.addedNodes.length
      && !(r.target.closest && r.target.closest("[data-kl-slot], [data-kl-left]")));
    if (!outside) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; again(); });
  });
  watch.observe(document.body, { childList: true, subtree: true });
  return () => {
    watch.disconnect();
    model.off("change:slots", again);
    model.off("change:attrs", again);
    model.off("change:lefts", again);
    model.off("change:rest", again);
    model.off("change:more", again);
    model.off("change:busy", busy);
    gone = true;
  };
}

export default { render };
"""


class LiveParts(anywidget.AnyWidget):
    """The live parts of one drawing of the sheet: ``slots`` (key → inner HTML), ``attrs`` (key → attributes)."""

    _esm = ESM
    slots = traitlets.Dict({}).tag(sync=True)
    attrs = traitlets.Dict({}).tag(sync=True)
    lefts = traitlets.Dict({}).tag(sync=True)
    rest = traitlets.Dict({}).tag(sync=True)
    """The left sides of the cards after the first few, sent after the page (``views.sheet.live.rest``)."""
    more = traitlets.Bool(False).tag(sync=True)
    """True while ``rest`` is still to come: the holders of those cards wait."""
    token = traitlets.Unicode("").tag(sync=True)
    """Marks the drawing this model's parts belong to (``data-kl-live`` around it): never written elsewhere."""
    """Each card's left side (its widgets' HTML) by the card's id: mounted by the script (``page``)."""
    busy = traitlets.Unicode("").tag(sync=True)
    """Not empty while the kernel rebuilds the widgets this drawing lays out (its cards are disabled)."""

    def __init__(self, forms: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not self.token:
            self.token = uuid.uuid4().hex
        self.forms = forms
        """The widgets this drawing lays out (``SheetSession.widgets()``)."""


PAD_ESM = r"""
function pressOf(btn) {
  const scope = btn.closest(".kl-reroll-form, .kl-rollbar") || btn.parentElement || document;
  const val = (sel) => { const e = scope.querySelector(sel); return e ? e.value : ""; };
  return { act: btn.dataset.klAct, step: btn.dataset.klStep || "", key: btn.dataset.klKey || "",
           nonce: btn.dataset.nonce || "", faces: val("[data-kl-faces]"), reason: val("[data-kl-reason]"),
           note: val("[data-kl-note]") };
}

function render({ model, el }) {
  el.style.display = "none";
  const send = (btn, ev) => {
    if (ev.__klTaken || btn.disabled) return;  // one press per click, however many pads listen
    ev.__klTaken = true;
    ev.preventDefault();
    const last = model.get("press") || {};
    const press = Object.assign(pressOf(btn), { n: (last.n || 0) + 1 });
    btn.disabled = true;  // busy until its part is drawn again (the server drew the face)
    btn.textContent = btn.dataset.klAct === "faces" ? "Taking your dice…" : "⚄ Rolling…";
    model.set("press", press);
    model.save_changes();
  };
  const onClick = (ev) => {
    const btn = ev.target && ev.target.closest ? ev.target.closest("[data-kl-act]") : null;
    if (btn) send(btn, ev);
  };
  const onKey = (ev) => {  // Enter in a box beside a button presses it
    if (ev.key !== "Enter" || !ev.target || !ev.target.closest) return;
    const scope = ev.target.closest(".kl-reroll-form, .kl-rollbar");
    if (!scope) return;
    const btn = scope.querySelector("[data-kl-act='faces'], [data-kl-act='reroll']");
    if (btn) send(btn, ev);
  };
  document.addEventListener("click", onClick, true);
  document.addEventListener("keydown", onKey, true);
  return () => {
    document.removeEventListener("click", onClick, true);
    document.removeEventListener("keydown", onKey, true);
  };
}

export default { render };
"""


class RollPad(anywidget.AnyWidget):
    """Sends the page's dice buttons to the server: ``press`` is the last one pressed (``n`` counts them)."""

    _esm = PAD_ESM
    press = traitlets.Dict({}).tag(sync=True)


def roll_pad(session: SheetSession) -> Any:
    """The ``mo.ui.anywidget`` that brings the dice buttons' presses to ``session`` (bind it to a global; pass its
    ``value`` to ``session.update(press=...)``). One per session: its count starts at 0 as the session's does."""
    import marimo as mo

    session.pressed = 0
    return mo.ui.anywidget(RollPad())


def hidden(widget: Any) -> Html:
    """A widget that draws nothing itself, in the page (its script runs there)."""
    return h("div", marimo_html(widget), class_="kl-live", hidden=True)


def live_parts(session: SheetSession, forms: Any) -> Any:
    """The ``mo.ui.anywidget`` holding the live parts of the page that lays out ``forms`` (bind it to a global).

    The one made for the widgets before is closed (ipywidgets keeps a widget until then).
    """
    import marimo as mo

    old = getattr(session, "live", None)
    if old is not None:
        old.widget.close()
    from kingdomlog.views.sheet import cards as sheet_cards

    slots, attrs = sheet_cards.page_slots(session, session.draft) if session.draft is not None else ({}, {})
    session.live = mo.ui.anywidget(LiveParts(forms, slots=slots, attrs=attrs))
    session.page_key = None
    return session.live


BUSY_CSS = """
.kl-drawing { display: contents; }
html[data-kl-rebuild] .kl-cards { cursor: progress; opacity: .5; filter: grayscale(.5); transition: opacity .1s .15s; }
"""
"""The cards dimmed while they are rebuilt (``BUSY_JS``: disabled, and "Updating…" after 300 ms)."""


def rebuilding(session: SheetSession, why: str = "Updating the steps…") -> None:
    """Say, before the widgets are rebuilt, that the page now drawn is being replaced (its cards are disabled)."""
    live = getattr(session, "live", None)
    if live is not None:
        live.widget.busy = why


class Laid:
    """A widget the page lays out, held under a name of its own so that its clicks do not draw the page again.

    marimo runs every cell that names a widget when its value changes. The page's cell named the Commit and
    Undo buttons to lay them out, so a click on Commit first drew the whole page again (175 KB: every card's
    widgets re-created by the browser) and only then committed, and the page was drawn again for the next
    month. The page names this holder instead (made in the button's own cell, which a click does not run):
    a click runs the cells that name the button (the commit, the undo question), and the page is drawn when
    the button is made again. ``text`` is the widget's HTML (what ``marimo_html`` lays out).
    """

    def __init__(self, widget: Any) -> None:
        self.widget = widget

    @property
    def text(self) -> str:
        return str(getattr(self.widget, "text", ""))


FIRST_LEFTS = 3
"""The cards whose left sides (widgets) ``page`` sends with the page: more than a window shows at first (the first
card at 1280 x 900 and at 390 px in every demo, two of aikakirjat's at 1280); the others follow from ``rest``."""


def page(live: Any, session: SheetSession, commit_button: Any, undo_button: Any, aside: Html, *,
         first: int | None = None) -> Html:
    """The whole page as drawn now: the commit bar, the cards with ``live``'s widgets, ``aside`` and the panel.

    ``first``: only the first cards' left sides are made and sent with the page (``live``'s ``more`` set), the
    others by ``rest`` once the page is sent (the notebook's next cell): the page's script holds ``data-plan`` back
    while a card in the window still waits for its widgets, and ``data-kl-later`` until every card has them."""
    from kingdomlog.views.sheet import cards as sheet_cards
    from kingdomlog.views.sheet import panel as sheet_panel
    from kingdomlog.views.sheet.draft import end_state

    draft = session.draft
    assert draft is not None
    session.page_key = sheet_cards.page_key(session, draft)
    panel = sheet_panel.panel_html(session.start.ruleset, session.start.state, after=end_state(draft), live=True,
                                   known=sheet_panel.campaign_names(session.start.camp))
    lefts: dict[str, str] = {}
    drawn = (style(BUSY_CSS) + h("div", sheet_cards.commit_bar_html(session, draft, commit_button, undo_button,
                                                                     live=True)
                                 + sheet_cards.page_html(session, live.widget.forms, draft, aside + panel, live=True,
                                                         lefts=lefts, first=first)
                                 + h("div", marimo_html(live), class_="kl-live", hidden=True),
                                 class_="kl-drawing", data_kl_live=live.widget.token))
    w = live.widget
    more = len(lefts) < len(draft.cards)
    with w.hold_sync():  # sent before the page (the page's cell returns it): its script mounts them
        w.lefts = lefts
        w.rest = {}
        w.more = more
    session.lefts_to_come = (w, draft) if more else None
    return drawn


def rest(live: Any, session: SheetSession) -> None:
    """Send the left sides ``page`` left for later (the cards after its ``first``), for the drawing it made: one
    message, after the page's; nothing when every card's went with the page."""
    from kingdomlog.views.sheet import cards as sheet_cards

    todo = session.lefts_to_come
    w = live.widget
    if todo is None or todo[0] is not w:
        return
    session.lefts_to_come = None
    with w.hold_sync():
        w.rest = sheet_cards.rest_lefts(session, w.forms, todo[1], w.lefts)
        w.more = False


def show(live: Any, session: SheetSession, draft: SheetDraft) -> bool:
    """Send ``draft``'s live parts to the page; True when the page must be drawn again (see the module's text)."""
    from kingdomlog.views.sheet import cards as sheet_cards

    slots, attrs = sheet_cards.page_slots(session, draft)
    w = live.widget
    with w.hold_sync():  # one message
        w.slots = slots
        w.attrs = attrs
    key = sheet_cards.page_key(session, draft)
    if session.page_key is None or key == session.page_key:
        return False  # not drawn yet (it will be, from this draft), or drawn with these left sides
    session.page_key = key
    return True
