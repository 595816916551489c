"""A player's page at the table, kept live: what others do reaches it in place, no cell of the page runs.

The page (``notebooks/table_page.py``) has two live parts, each one anywidget (``LivePart``) whose HTML is
set from Python: the table's **feed** and the player's **proposals** (where each stands, its odds before
the roll, its faces once rolled, a General's battle board). A watcher (``watch``, a ``mo.Thread``) takes a
cheap ``seat.mark`` of the files ten times a second; when it moved, ``look`` computes both parts again for the
page's own viewer and sets their HTML, which marimo sends to that page alone: a roll, a decision or a line of
talk elsewhere at the table costs the page one message and no cell run. The page's cells run again only when
what they draw changes:

- **the acts** (Roll, Withdraw, a re-roll: marimo buttons, a press taken once) when the player's own
  proposals moved (their own press, or the GM's decision on one of them): ``listed`` is called;
- **the seats' forms** when whether a seat waits for the GM changed; that needs a preview of the GM's month,
  so it is looked at only when the log's head, the GM's draft or the rows accepted at the table moved
  (``month_mark``), never for a roll, a declaration or a line of talk: ``waited`` is called;
- **the whole page** when the GM committed the turn (the page opens the next): ``turned`` is called.

Served by ``kingdomlog serve``, the watcher looks only while a browser is connected to the page (``tick``,
``views.table.browsers``): a page whose browser left (marimo keeps its session two minutes for a dropped connection)
or a page made ahead not opened yet computes nothing when the log moves; the first look once a browser is back
catches up with all of it (what it last saw is kept). The watcher stops when the page's session is closed (marimo
leaves a closed kernel's threads running).

The viewer rule holds by construction: each page has its own ``Live`` (made in its own session), and every
HTML it sets is computed for ``page.viewer`` by the same functions the page drew before (``app.table.feed``
for the feed, ``app.table.mine`` for the proposals: ``seat.feed_of``, ``seat.listing``). Nothing is shared
between two pages' widgets. Run as a script (tests, an export) nothing is watched and ``shown`` draws each
part's HTML as it stands.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

import anywidget
import marimo as mo
import traitlets

from kingdomlog.app import Campaign
from kingdomlog.app import table as tbl
from kingdomlog.core.errors import KingdomlogError
from kingdomlog.views.html import Html, h, join, style
from kingdomlog.views.table import browsers
from kingdomlog.views.table import seat as st

__all__ = ["ESM", "WATCH_EVERY", "Live", "LivePart", "live", "look", "month_mark", "proposals_html", "refresh", "shown",
           "tick", "watch"]

ESM = r"""
function render({ model, el }) {
  const root = document.createElement("div");
  el.appendChild(root);
  const draw = () => { root.innerHTML = model.get("html"); };
  model.on("change:html", draw);
  draw();
  return () => model.off("change:html", draw);
}

export default { render };
"""


class LivePart(anywidget.AnyWidget):
    """One live part of a player's page: ``html`` set from Python (``look``); the page sends nothing back."""

    _esm = ESM
    html = traitlets.Unicode("").tag(sync=True)


def proposals_html(page: st.TablePage, listed: st.Listed) -> Html:
    """The player's proposals as the page shows them (``seat.proposal_html`` each, and the battle board of a
    General's orders, ``seat.proposal_board``), with their own CSS (the part is drawn in its own shadow root: the
    page's CSS does not reach it)."""
    items = []
    for p in listed.proposals:
        board = st.proposal_board(page, p)  # a battle's rounds, drawn once: here, not in its card's words
        items.append(join([st.proposal_html(p, page.unit, board=bool(board)), board]))
    if not items:
        items = [h("p", f"Nothing proposed yet this {page.unit}.", class_="kl-help kl-none")]
    return join([style(st.CSS), h("div", items, class_="kl-props", data_viewer=page.viewer.id)])


def month_mark(page: st.TablePage) -> Hashable:
    """What whether a seat waits depends on: the log's head, the GM's saved draft, the rows accepted at the table
    (a digest of what ``app.table.merge`` reads of them). A declaration, a roll or a line of talk leaves it."""
    camp = Campaign.open(page.folder)
    rows = tbl.accepted(camp, page.turn)
    data = [(p.id, p.player, p.step, p.rows, p.row, p.faces, p.rerolls) for p in rows]
    digest = hashlib.sha1(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:16]
    return (camp.head_seq, st.mark(page)[1], digest)


@dataclass
class Live:
    """One page's live parts and what the watcher last saw. Made per page (per session), never shared."""

    page: st.TablePage
    feed: Any
    """The feed's ``mo.ui.anywidget`` (bind it to a global)."""
    proposals: Any
    """The proposals' ``mo.ui.anywidget`` (bind it to a global)."""
    listed: Callable[[st.Listed], None]
    """Called with the listing when the acts it offers moved (the notebook's state setter)."""
    waited: Callable[[tuple[str, ...]], None]
    """Called with the seats' waits when they moved (the notebook's state setter)."""
    turned: Callable[[], None]
    """Called when the GM committed the page's turn (the notebook bumps the state the page is opened from)."""
    seen: tuple[Any, ...] | None = None
    """The files' ``seat.mark`` last looked at."""
    mine: Hashable = None
    """The player's proposals as last listed, with the ``month_mark`` (a re-roll the rules give moves with the log,
    a General's battle board with the GM's draft)."""
    acts: Hashable = None
    """The acts last handed to the page (``listed``)."""
    month: Hashable = None
    """The ``month_mark`` the seats' waits on the GM's month were last looked at for (``month_waits``)."""
    month_waits: tuple[str, ...] | None = None
    """Per seat, why the GM's month does not reach its step yet, or "" (``seat.month_waits``, for ``month``)."""
    waits: tuple[str, ...] | None = None
    pushed: int = 0
    """How many times a part's HTML was set (a test reads it)."""
    idle: int = 0
    """How many of the watcher's turns found no browser on the page and did nothing (``tick``; a test reads it)."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    """Held during a look: the watcher and the page's cells (after a press) both look."""


def live(page: st.TablePage, *, listed: Callable[[st.Listed], None], waited: Callable[[tuple[str, ...]], None],
         turned: Callable[[], None]) -> Live:
    """The page's live parts, empty until the first ``look`` (``watch`` takes it at once); the three callables
    are the only cell runs a look may cause (``Live``)."""
    return Live(page, mo.ui.anywidget(LivePart(html="")), mo.ui.anywidget(LivePart(html="")), listed, waited,
                turned)


def _set(part: Any, html: Html, lv: Live) -> None:
    if part.widget.html != str(html):
        part.widget.html = str(html)
        lv.pushed += 1


def look(lv: Live, *, force: bool = False) -> bool:
    """One look at the table for ``lv``'s page: when the files moved since the last one (or ``force``), the feed
    and the proposals are computed again for the page's viewer and set in place when they changed; ``lv.listed``
    is called with the new listing when the acts it offers moved, ``lv.waited`` with the seats' waits when they
    moved (the GM's month looked at only when ``month_mark`` moved; whether the proposals made fill a seat, whose
    form then gives way to saying so, at each look), ``lv.turned`` when the GM committed the page's turn (and
    nothing else: the page opens the next). True when it looked."""
    page = lv.page
    with lv.lock:
        now = st.mark(page)
        if now == lv.seen and not force:
            return False
        head_moved = lv.seen is None or now[0] != lv.seen[0]
        lv.seen = now
        if head_moved and st.moved_on(page):
            lv.turned()
            return True
        _set(lv.feed, st.feed_of(page), lv)
        month = month_mark(page)
        props = tbl.mine(Campaign.open(page.folder), page.viewer, page.turn)
        mine = (month, tuple((p.id, p.status, len(p.rerolls), p.outcome, p.note, p.title) for p in props))
        if mine != lv.mine:
            lv.mine = mine
            got = st.listing(page)
            _set(lv.proposals, proposals_html(page, got), lv)
            if got.acts_key != lv.acts:
                lv.acts = got.acts_key
                lv.listed(got)
        if month != lv.month or lv.month_waits is None:  # a preview of the month: only when it moved
            lv.month = month
            lv.month_waits = st.month_waits(page)
        w = st.waits(page, lv.month_waits)  # and whether the proposals made fill a seat: the table's file
        if w != lv.waits:
            lv.waits = w
            lv.waited(w)
        return True


def refresh(lv: Live) -> None:
    """A look at once, after the page's own press wrote (its proposals, the feed and its acts follow it)."""
    look(lv, force=True)


WATCH_EVERY = 0.1
"""How often the watcher looks at the files (``seat.mark``: a few ``stat`` calls), in seconds."""


def tick(lv: Live, kernel: threading.Thread) -> bool | None:
    """One turn of the watcher of ``lv``'s page, whose kernel runs in ``kernel``: a ``look`` when a browser is
    there (``browsers.state``: ``HERE``, or ``UNKNOWN`` when the page is not served by ``kingdomlog serve``);
    none while it is away (its browser left within marimo's TTL, or a page made ahead not handed yet): what
    ``lv`` last saw is kept, so the first look once a browser is back catches up with everything that moved
    meanwhile (the feed, the proposals, the seats' waits, a turn committed). True when it looked, False when
    it did not, None when the session is gone (the watcher stops)."""
    go = browsers.looking(kernel)
    if go is None:
        return None
    if not go:
        lv.idle += 1
        return False
    try:
        return look(lv)
    except (OSError, KingdomlogError):  # a file mid-write: the next look reads it
        with lv.lock:
            lv.seen = None
        return False


def watch(lv: Live) -> None:
    """Keep the page live: the first ``look`` now (the page is drawn from it), then a ``mo.Thread`` that ticks
    (``tick``) every ``WATCH_EVERY`` s until the cell that started it runs again or the page's session is
    closed. A quiet table, or a page no browser looks at, runs nothing."""
    look(lv, force=True)
    if not mo.running_in_notebook():
        return  # a run as a script (tests, an export): nothing to keep live
    kernel = threading.current_thread()  # the page's kernel (marimo's run mode: a thread of the server)

    def run() -> None:
        me = mo.current_thread()
        while not me.should_exit:
            time.sleep(WATCH_EVERY)
            if tick(lv, kernel) is None:
                return

    mo.Thread(target=run, daemon=True, name="kingdomlog-table-live").start()


def shown(part: Any) -> Any:
    """A live part on the page: its widget in a served notebook; run as a script, its HTML as it stands."""
    if mo.running_in_notebook():
        return part
    return mo.Html(part.widget.html)
