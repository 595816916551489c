"""The Table on the GM sheet: the players' proposals of the turn, the GM's decisions on them, the live feed.

The players propose their acts from their own pages and roll them there (``app.table``). The GM's sheet
shows each proposal under its player's name: the row in words, its roll and outcome once rolled (its odds
before: a face is never shown before Roll was pressed), where it stands; and three buttons. **Accept**
takes the row into the month: ``Campaign.preview`` merges every accepted row into its step
(``app.table.merge``), so the sheet's draft previews it at once, and the step's card shows it as the
player's (its faces, its outcome, "proposed by"). **Send back** returns it with a note the player reads
(refused without one). **Re-roll by GM ruling** rolls it again, with a note saying why, recorded in the
table's feed and, once committed, in the log. An accepted row is never in the card's widgets: the GM cannot
change it there, only re-roll it or send it back here (``Placed``: which rows of a step are the table's).

Live without a reload: a watcher (``watch``, a ``mo.Thread``) looks at the table file's size and time
(``TableFile.version``) ten times a second and only when they moved draws the panel again in place (``draw``: its
HTML pushed to the page, no cell run, so a quiet table costs the page nothing); when the accepted rows moved
(``merge_moved``), it bumps the notebook's state the draft depends on and the draft is previewed again
(``SheetSession`` keys its preview by the accepted rows, ``accepted_mark``). The panel is one anywidget
(``TablePanel``) whose HTML is set from Python: its script swaps the HTML and keeps what the GM was typing in a
note box (and the cursor) unless that box's note was just used (its ``epoch`` moved). A click sends ``press``
(what, which proposal, the note), which ``act`` takes once. Served by ``kingdomlog serve``, the watcher looks only
while the GM's browser is connected (``views.table.browsers``: a tab gone within marimo's TTL draws nothing, and
catches up at once when it is back) and stops when the sheet's session is closed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anywidget
import traitlets

from kingdomlog.app import table
from kingdomlog.app.table import Proposal, TableFile, Trial
from kingdomlog.core.errors import InputError, KingdomlogError
from kingdomlog.core.viewers import GM_VIEWER
from kingdomlog.views.html import EMPTY, Html, h, marimo_html, style
from kingdomlog.views.table import browsers
from kingdomlog.views.table.feed import feed_html

if TYPE_CHECKING:
    from kingdomlog.app.campaign import Campaign
    from kingdomlog.views.sheet.draft import SheetSession

__all__ = [
    "ESM",
    "NOTE_MAX",
    "Desk",
    "Placed",
    "TablePanel",
    "accepted_mark",
    "act",
    "desk",
    "draw",
    "follow",
    "held",
    "merge_moved",
    "panel",
    "panel_html",
    "placed",
    "pressed",
    "proposal_html",
    "shown",
    "watch",
]

NOTE_MAX = 500
"""The longest note the GM may give with a decision (the box says so; longer is refused)."""


# ---- the accepted rows in the draft -------------------------------------------------------------


@dataclass(frozen=True)
class Placed:
    """An accepted proposal as a row of its step in the draft as played: whose it is and where it sits."""

    proposal: Proposal
    name: str
    """The player's name (``Campaign.player_name``)."""
    index: int
    """Its row in its list (1-based), after the rows of the GM's own plan."""
    part: str
    """The row's name in its step's rules (``Ruleset.row_part``: ``a3``): its roll keys start with it."""
    keys: Mapping[str, str] = field(default_factory=dict)
    """Each roll key as rolled at the table (``a1``: as its list's first row) -> its key in the step (``a3``)."""

    @property
    def typed(self) -> frozenset[str]:
        """The roll keys of the step whose faces were rolled at the table (typed by ``app.table.merge``)."""
        return frozenset(self.keys.values())

    def owns(self, key: str) -> bool:
        """Whether roll ``key`` of the step is this row's (``a3``, ``a3.pull``, pf1's ``w3_r1_ours``; not ``a30``).

        >>> pl = Placed(Proposal("p", 1, "x", "s/r/", "s", "r", {}), "X", 3, "w3")
        >>> pl.owns("w3_r1_ours"), pl.owns("w3.check"), pl.owns("w30_r1_ours")
        (True, True, False)
        """
        return key == self.part or key.startswith((self.part + ".", self.part + "_"))


def accepted_mark(camp: Campaign, turn: int) -> tuple[str, list[Proposal]]:
    """The turn's accepted proposals (``app.table.accepted``) and a digest of what the merge reads of them.

    Two readings with the same digest merge into the same month: the sheet keys its preview by it.
    """
    rows = table.accepted(camp, turn)
    data = [(p.id, p.player, p.step, p.rows, p.row, p.faces, p.rerolls) for p in rows]
    return hashlib.sha1(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:16], rows


def placed(camp: Campaign, accepted: Sequence[Proposal], choices: Mapping[str, Mapping[str, Any]]
           ) -> dict[str, list[Placed]]:
    """Where each of ``accepted`` sits in the month as played (``choices``: each step's merged choices), by step.

    ``app.table.merge`` appends a list's accepted rows, in the order they were accepted, after the rows
    the GM's plan has: they are the last rows of the list. A list shorter than its accepted rows (the
    step not played from this reading of the table) places none of them.

    >>> from types import SimpleNamespace as NS
    >>> from kingdomlog.core.ruleset import Ruleset
    >>> camp = NS(ruleset=Ruleset(), player_name=lambda pid: pid.title())
    >>> p = Proposal("p1", 19, "ysolde", "s/acts/role=ruler", "s", "acts", {"activity": "x"}, faces={"a1": [11]})
    >>> [(x.name, x.index, x.part, sorted(x.typed)) for x in placed(camp, [p], {"s": {"acts": [{}, {}]}})["s"]]
    [('Ysolde', 2, 'a2', ['a2'])]

    A part of a GM's row (``Seat.part``: the General's orders of the GM's battle 1) sits in that row:

    >>> q = Proposal("p2", 19, "kesh", "s/acts/rounds@1", "s", "acts", {"rounds": []}, faces={"a1.x": [3]})
    >>> [(x.name, x.index, x.part, sorted(x.typed)) for x in placed(camp, [q], {"s": {"acts": [{}, {}]}})["s"]]
    [('Kesh', 1, 'a1', ['a1.x'])]
    """
    rs = camp.ruleset
    lists: dict[tuple[str, str], list[Proposal]] = {}
    out: dict[str, list[Placed]] = {}
    for p in accepted:
        part = table.filled(p.seat)
        if part is not None:  # a part of the GM's row (the General's orders of a battle): that row
            listed = (choices.get(p.step) or {}).get(p.rows)
            if isinstance(listed, list) and part[1] <= len(listed):
                out.setdefault(p.step, []).append(Placed(
                    p, camp.player_name(p.player), part[1], rs.row_part(p.step, part[1]),
                    {k: rs.row_key(p.step, k, part[1]) for k in p.faces}))
            continue
        lists.setdefault((p.step, p.rows), []).append(p)
    for (step, rows), ps in lists.items():
        listed = (choices.get(step) or {}).get(rows)
        first = (len(listed) if isinstance(listed, list) else 0) - len(ps) + 1
        if first < 1:
            continue
        for i, p in enumerate(ps):
            index = first + i
            out.setdefault(step, []).append(Placed(
                p, camp.player_name(p.player), index, rs.row_part(step, index),
                {k: rs.row_key(step, k, index) for k in p.faces}))
    return out


# ---- the panel ----------------------------------------------------------------------------------


@dataclass
class Desk:
    """The Table panel of one session: presses taken, what the last decision on a proposal said, note epochs."""

    widget: Any = None
    pressed: int = 0
    said: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Proposal id -> (``ok`` or ``error``, words): shown beside its note box."""
    epochs: dict[str, int] = field(default_factory=dict)
    """Proposal id -> how often its note was used (the page then empties its box)."""
    seen: tuple[int, int] | None = None
    """The table file's ``version`` the panel was last drawn from."""
    drawn: int = 0
    merged: str = ""
    """The accepted rows the draft was last told of (``accepted_mark``)."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    """Held while the panel is drawn or a press taken: the page's cell and the watcher (``watch``) share the desk."""


def desk(session: SheetSession) -> Desk:
    """The session's ``Desk`` (made on first use)."""
    got = session.table
    if not isinstance(got, Desk):
        got = Desk()
        session.table = got
    return got


def _file(session: SheetSession) -> TableFile:
    return TableFile(session.start.folder, session.start.turn)


def _odds(p: Proposal) -> str:
    """What the row's check is and its odds, nothing drawn (``d20 +1 vs DC 16: critical failure 25%, …``)."""
    if not p.checks:
        return "it rolls no dice"
    return table.odds_text(Trial(p.checks, {}, "", pending=sorted(p.checks)[0]))


ALL = "all"
"""The panel's Accept all: its press names this instead of a proposal (its words are shown beside it)."""

STATUS = {"declared": "declared, not rolled yet", "rolled": "rolled: accept it or send it back",
          "accepted": "accepted: in the draft", "returned": "sent back", "withdrawn": "withdrawn"}


def proposal_html(p: Proposal, *, said: tuple[str, str] | None = None, epoch: int = 0, moved: str = "") -> Html:
    """One proposal: the row in words, its roll and outcome (its odds until it is rolled), where it stands,
    and the GM's buttons (those its status allows) with the note box and what the last decision said.
    ``moved``: why an accepted row does not stand in the month as it was rolled (``held``), shown above its buttons.

    >>> p = Proposal("p1", 19, "ysolde", "s/a/r=x", "s", "a", {}, status="rolled", faces={"a1": [11]},
    ...              outcome="d20 +1 vs DC 16: rolled 11, failure", title="Quell Unrest (Ruler)")
    >>> html = proposal_html(p)
    >>> "rolled 11, failure" in html and 'data-kl-table="accept"' in html
    True
    >>> "rolled 11" in proposal_html(Proposal("p2", 19, "kesh", "s/a/r=y", "s", "a", {}, faces={}))
    False
    """
    if p.rolled:
        roll: Html = h("div", "⚄ ", p.outcome or "rolled", class_="kl-tp-roll", data_tp_outcome=p.id)
    else:
        roll = h("div", "Not rolled yet: ", _odds(p), class_="kl-tp-odds")
    rerolls = [h("li", f"rolled again ({'GM ruling' if r == 'gm' else r}{': ' + n if n else ''})",
                 f" — it showed {', '.join(str(f) for f in before)}" if before else "")
               for _key, r, n, before in p.rerolls]
    can_accept = p.status in ("rolled", "returned") or (p.status == "declared" and not p.checks)
    can_return = p.status in ("declared", "rolled", "accepted")
    can_reroll = p.rolled and p.status != "withdrawn"
    acts: Html = EMPTY
    if can_accept or can_return or can_reroll:
        acts = h("div",
                 h("button", "✔ Accept", type="button", class_="kl-tp-accept", data_kl_table="accept",
                   disabled=not can_accept, title="Take this row into the month as rolled"),
                 h("input", type="text", class_="kl-tp-note", data_kl_note=p.id, data_kl_epoch=epoch,
                   maxlength=NOTE_MAX, placeholder="note to the player (why)", aria_label=f"note on {p.title}"),
                 h("button", "↩ Send back", type="button", class_="kl-tp-return", data_kl_table="send_back",
                   disabled=not can_return, title="Return it to the player with your note"),
                 h("button", "⚄ Re-roll by GM ruling", type="button", class_="kl-tp-reroll", data_kl_table="reroll",
                   disabled=not can_reroll, title="Roll it again; your note says why (the table sees it)"),
                 class_="kl-tp-acts")
    message = (h("div", said[1], class_=f"kl-tp-said kl-tp-{said[0]}", role="alert" if said[0] == "error"
                 else "status") if said else None)
    return h("article",
             h("div", h("b", p.title or p.id), " ", h("span", STATUS.get(p.status, p.status), class_="kl-tp-status"),
               class_="kl-tp-head"),
             roll, h("ul", rerolls, class_="kl-tp-rerolls") if rerolls else None,
             h("div", "Your note: ", p.note, class_="kl-tp-note-sent") if p.status == "returned" and p.note else None,
             h("div", "⚠ ", moved, class_="kl-tp-moved", role="alert") if moved else None,
             acts, message, class_=f"kl-tp kl-tp-{p.status}", data_proposal=p.id, data_status=p.status)


CSS = """
.kl-table-panel { border: 1px solid #d9d4c7; border-radius: 8px; padding: .5em .9em .7em; background: #fbf8f0;
  font-size: 15px; color: #2b2215; }
.kl-table-panel h2 { font-size: 1.15em; font-weight: 700; margin: .2em 0 .4em; }
.kl-table-panel h3 { font-size: 1em; font-weight: 700; margin: .6em 0 .25em; }
.kl-table-cols { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 1.2em; }
.kl-tp { border: 1px solid #e4dfd2; border-left: 4px solid #b8a46a; border-radius: 6px; padding: .35em .6em;
  margin: .3em 0; background: #fff; }
.kl-tp-accepted { border-left-color: #1e8449; }
.kl-tp-returned { border-left-color: #b9770e; }
.kl-tp-withdrawn { opacity: .55; }
.kl-tp-status { color: #6b5d45; font-size: .88em; margin-left: .4em; }
.kl-tp-roll { font-weight: 600; margin: .15em 0; }
.kl-tp-odds { color: #555; margin: .15em 0; }
.kl-tp-acts { display: flex; flex-wrap: wrap; gap: .4em; align-items: center; margin-top: .3em; }
.kl-tp-acts button { font: inherit; font-size: .92em; border-radius: 5px; border: 1px solid #b5ab94;
  background: #f4efe2; padding: .15em .6em; cursor: pointer; }
.kl-tp-all { margin-left: .8em; font-size: .8em; font-weight: 400; }
.kl-tp-all button { padding: .15em .6em; border-radius: 4px; border: 1px solid #196f3d; background: #1e8449;
  color: #fff; cursor: pointer; }
.kl-tp-acts button.kl-tp-accept { background: #1e8449; border-color: #196f3d; color: #fff; }
.kl-tp-acts button:disabled { opacity: .45; cursor: not-allowed; }
.kl-tp-note { font: inherit; font-size: .92em; min-width: 14em; flex: 1; padding: .15em .4em;
  border: 1px solid #b5ab94; border-radius: 5px; background: #fff; }
.kl-tp-said { margin-top: .25em; font-size: .92em; }
.kl-tp-error { color: #a93226; font-weight: 600; }
.kl-tp-moved { color: #a93226; margin: .2em 0; font-size: .94em; }
.kl-tp-ok { color: #1b5e20; }
.kl-tp-rerolls { margin: .1em 0 .1em 1.2em; padding: 0; font-size: .9em; color: #555; }
.kl-tp-nothing { color: #777; font-size: .92em; margin: .1em 0 .3em; }
.kl-feed-box { max-height: 22em; overflow-y: auto; }
"""


def panel_html(session: SheetSession) -> Html:
    """The Table as it stands now: each declared player with their proposals of the turn, then the feed."""
    d = desk(session)
    camp, turn = session.start.camp, session.start.turn
    props = table.mine(camp, GM_VIEWER, turn)
    players = list(camp.players())
    players += [p.player for p in props if p.player not in players]
    names = {pid: camp.player_name(pid) for pid in players}
    moved = held(session)
    groups = []
    for pid in players:
        theirs = [p for p in props if p.player == pid]
        items = [proposal_html(p, said=d.said.get(p.id), epoch=d.epochs.get(p.id, 0),
                               moved=moved.get(table.held_by(camp, p), "") if p.status == "accepted" else "")
                 for p in theirs] or \
            [h("div", "nothing proposed yet", class_="kl-tp-nothing")]
        groups.append(h("section", h("h3", names[pid]), items, class_="kl-tp-player", data_player=pid))
    waiting = sum(1 for p in props if p.status == "rolled")
    ready = sum(1 for p in props if p.status == "rolled" or (p.status == "declared" and not p.checks))
    head = h("h2", f"The table — {session.start.when}: ", f"{len(props)} proposal{'s' if len(props) != 1 else ''}",
             f", {waiting} waiting for you" if waiting else "",
             h("span", h("button", f"✔ Accept all {ready} rolled", type="button", class_="kl-tp-accept",
                         data_kl_table="accept_all", title="Take every rolled row into the month, as rolled"),
               h("span", d.said.get(ALL, ("", ""))[1], class_=f"kl-tp-said kl-tp-{d.said.get(ALL, ('', ''))[0]}"),
               class_="kl-tp-all", data_proposal=ALL) if ready or ALL in d.said else None)
    feed = h("div", h("h3", "Feed"), h("div", feed_html(table.feed(camp, GM_VIEWER, turn), names),
                                       class_="kl-feed-box"), class_="kl-feed-col")
    return h("div", style(CSS), head, h("div", h("div", groups, class_="kl-tp-list"), feed,
                                                 class_="kl-table-cols"),
             class_="kl-table-panel", data_drawn=d.drawn)


def held(session: SheetSession) -> dict[str, str]:
    """The accepted rows the draft's month refuses as they were rolled (``core.turn.StepPreview.held``: a row or a
    GM change before one moved its check), by ``app.table.held_by``: what it was rolled as and what it is in the
    month as it stands, in words; the panel says it at the row, beside its Re-roll by GM ruling and Send back."""
    draft = session.draft
    tp = draft.preview if draft is not None else None
    if tp is None:
        return {}
    return {s.held: table.unstep(s.error or "", s.phase.id) for s in tp.steps if s.held}


def _decide(session: SheetSession, what: str, pid: str, note: str) -> tuple[str, bool]:
    """Carry out one decision; ``(what it says, whether the note was used)``. Raises ``KingdomlogError``."""
    camp = session.start.camp
    if len(note) > NOTE_MAX:
        raise InputError(f"the note is {len(note)} characters; at most {NOTE_MAX}")
    if camp.next_turn() != session.start.turn:
        raise InputError(f"the log moved on past {session.start.when}: reload the sheet")
    if what == "accept_all":
        done, refused = table.accept_all(camp)
        words = f"Accepted {len(done)} row{'s' if len(done) != 1 else ''} into the draft."
        if refused:
            words += " Not taken: " + "; ".join(f"{p.title} ({why})" for p, why in refused)
        return words, False
    if what == "accept":
        p = table.accept(camp, pid)
        return f"Accepted: it is in the draft as {camp.player_name(p.player)} rolled it.", False
    if what == "send_back":
        if not note.strip():
            raise InputError("write a note first: the player reads why it goes back")
        p = table.send_back(camp, pid, note)
        return f"Sent back to {camp.player_name(p.player)} with your note.", True
    if not note.strip():
        raise InputError("write a note first: a re-roll by GM ruling says why (the table sees it)")
    p = table.reroll(camp, GM_VIEWER, pid, "gm", note=note.strip())
    return f"Rolled again by your ruling: {p.outcome}", True


def act(session: SheetSession, value: Any) -> bool:
    """Take the panel's last press (``TablePanel.press``, through the ``mo.ui.anywidget``'s ``value``) once.

    Accept, Send back (a note required) or Re-roll by GM ruling (a note required), on the proposal named.
    What it did, or why not, is shown beside that proposal's note box. True when it wrote to the table
    (the draft must be previewed again); never raises for a refusal.
    """
    d = desk(session)
    press = value.get("press", value) if isinstance(value, Mapping) else None
    if not isinstance(press, Mapping):
        return False
    n = press.get("n")
    if not isinstance(n, int) or isinstance(n, bool) or n <= d.pressed:
        return False
    d.pressed = n
    d.drawn += 1
    what, pid, note = press.get("act"), press.get("proposal"), press.get("note", "")
    if what not in ("accept", "accept_all", "send_back", "reroll") or not isinstance(pid, str) \
            or not isinstance(note, str):
        return False
    if session.done:
        d.said[pid] = ("error", "This sheet has committed its month; nothing more is decided on it.")
        return False
    try:
        words, used = _decide(session, what, pid, note)
    except KingdomlogError as exc:
        text = str(exc)
        d.said[pid] = ("error", f"Not done: {text}")  # as said: a refusal may begin with a name (Maelis's …)
        return False
    d.said[pid] = ("ok", words)
    if used:
        d.epochs[pid] = d.epochs.get(pid, 0) + 1
    d.seen = None  # the next look (``follow``) draws the panel again from the file as it now stands
    return True


def draw(session: SheetSession, widget: Any) -> None:
    """Set the panel's HTML (``widget``: ``panel``'s ``mo.ui.anywidget``) from the table as it stands."""
    d = desk(session)
    d.seen = _file(session).version()
    widget.widget.html = str(panel_html(session))


def merge_moved(session: SheetSession) -> bool:
    """Whether the rows accepted at the table changed since the draft was last told (then remembered): the draft
    must be previewed again. A proposal declared or rolled, a line of talk, changes nothing in the month."""
    d = desk(session)
    mark, _ = accepted_mark(session.start.camp, session.start.turn)
    if mark == d.merged:
        return False
    d.merged = mark
    return True


WATCH_EVERY = 0.1
"""How often the watcher looks at the table's file (one ``stat``), in seconds."""


def follow(session: SheetSession, widget: Any, moved: Callable[[Any], None]) -> bool:
    """One look of the watcher: when the table's file moved since the panel was drawn, the panel is drawn again
    in place (its HTML pushed to the page, no cell run) and, when the rows accepted at the table moved, ``moved``
    (the notebook's state setter the draft depends on) is bumped: the draft is previewed again. True when drawn."""
    d = desk(session)
    with d.lock:
        if _file(session).version() == d.seen:
            return False
        draw(session, widget)
        if merge_moved(session):
            moved(lambda n: n + 1)
        return True


def watch(session: SheetSession, widget: Any, moved: Callable[[Any], None]) -> None:
    """Keep the panel live: a ``mo.Thread`` looks at the table's file every ``WATCH_EVERY`` s (``follow``) until
    the cell that started it runs again or the session commits. A proposal, a roll or a line of talk reaches the
    page in about a tenth of a second, and nothing runs on the page while the table is quiet (no refresh cell,
    no running indicator). Nothing when the campaign declares no players."""
    import marimo as mo

    if not session.start.camp.players() or not mo.running_in_notebook():
        return  # no table, or a run as a script (tests, an export): nothing to keep live
    kernel = threading.current_thread()  # the page's kernel (marimo's run mode: a thread of the server)

    def run() -> None:
        me = mo.current_thread()
        while not me.should_exit and not session.done:
            time.sleep(WATCH_EVERY)
            go = browsers.looking(kernel)  # served: nothing while the GM's tab is away, stop once it is closed
            if go is None:
                return
            if not go:
                continue
            with contextlib.suppress(OSError, KingdomlogError):  # a file mid-write: the next look reads it
                follow(session, widget, moved)

    mo.Thread(target=run, daemon=True, name="kingdomlog-table-watch").start()


def pressed(session: SheetSession, widget: Any, moved: Callable[[Any], None]) -> None:
    """The panel's cell: its last press taken once (``act``), the panel drawn as the table stands, and ``moved``
    bumped when the rows accepted at the table moved."""
    d = desk(session)
    with d.lock:
        act(session, widget.value)
        draw(session, widget)
        if merge_moved(session):
            moved(lambda n: n + 1)


ESM = r"""
function render({ model, el }) {
  const root = document.createElement("div");
  el.appendChild(root);
  const draw = () => {
    // A note the GM is typing survives the redraw (and so does the cursor), unless its note was just used.
    const active = el.getRootNode().activeElement || document.activeElement;
    const kept = {};
    for (const box of root.querySelectorAll("[data-kl-note]")) {
      kept[box.dataset.klNote] = { epoch: box.dataset.klEpoch, value: box.value, focus: active === box,
                                   start: box.selectionStart, end: box.selectionEnd };
    }
    root.innerHTML = model.get("html");
    for (const box of root.querySelectorAll("[data-kl-note]")) {
      const k = kept[box.dataset.klNote];
      if (!k || k.epoch !== box.dataset.klEpoch) continue;
      box.value = k.value;
      if (k.focus) {
        box.focus();
        try { box.setSelectionRange(k.start, k.end); } catch (e) { /* a box that takes no selection */ }
      }
    }
  };
  const onClick = (ev) => {
    const btn = ev.target && ev.target.closest ? ev.target.closest("[data-kl-table]") : null;
    if (!btn || btn.disabled) return;
    const item = btn.closest("[data-proposal]");
    if (!item) return;
    const box = item.querySelector("[data-kl-note]");
    const last = model.get("press") || {};
    btn.disabled = true;  // until the panel is drawn again with what the decision did
    btn.textContent = "…";
    model.set("press", { act: btn.dataset.klTable, proposal: item.dataset.proposal, note: box ? box.value : "",
                         n: (last.n || 0) + 1 });
    model.save_changes();
  };
  root.addEventListener("click", onClick);
  model.on("change:html", draw);
  draw();
  return () => {
    root.removeEventListener("click", onClick);
    model.off("change:html", draw);
  };
}

export default { render };
"""


class TablePanel(anywidget.AnyWidget):
    """The Table panel of one session: ``html`` set from Python; the page writes only ``press``."""

    _esm = ESM
    html = traitlets.Unicode("").tag(sync=True)
    press = traitlets.Dict({}).tag(sync=True)
    """``{"act": accept|send_back|reroll, "proposal": id, "note": the box's text, "n": a count}``."""


def panel(session: SheetSession) -> Any:
    """The ``mo.ui.anywidget`` of ``session``'s Table panel (bind it to a global; ``act`` takes its ``value``)."""
    import marimo as mo

    d = desk(session)
    d.pressed = 0
    d.seen = _file(session).version()
    d.merged = accepted_mark(session.start.camp, session.start.turn)[0]
    d.widget = mo.ui.anywidget(TablePanel(html=str(panel_html(session))))
    return d.widget


def shown(session: SheetSession, widget: Any) -> Html:
    """The panel on the page, when the campaign declares players (``watch`` keeps it live)."""
    if not session.start.camp.players():
        return EMPTY
    return marimo_html(widget)
