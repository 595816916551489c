"""The sheet's Commit button: a click commits only the draft it was drawn for, once, whatever the timing.

The button was a ``mo.ui.button`` made again with each session, in the same cell, so marimo gave the new
one the old one's id: clicks still queued while the first commit ran were given to the *next* month's
button once the page reloaded, and committed that draft untouched (three clicks 120 ms apart committed
two months; a one-second guard after the reload did not hold when the reload took longer).

So the button says which draft it belongs to. ``CommitControl`` is an anywidget drawn with the draft's
id (``draft_id``: its turn and the log seq it starts from, which is what the log's commit id is made
from). A click sends ``{"draft": that id, "n": a fresh token}`` once and shows "Committing…" (the button
and the cards disabled) until the kernel answers; ``take`` commits only a click naming the session's
draft, and each click once. A click for another draft commits nothing and says which draft it was for.
Behind it, ``Campaign.commit`` still writes a draft at most once (its commit id is the draft's).
"""

from __future__ import annotations

from typing import Any

import anywidget
import traitlets

from kingdomlog.views.sheet import draft as sheet
from kingdomlog.views.sheet.draft import Outcome, SheetSession
from kingdomlog.views.sheet.live import BUSY_JS

__all__ = ["CSS", "ESM", "CommitControl", "control", "draft_id", "shown", "stale_words", "take"]

ESM = BUSY_JS + r"""
function render({ model, el }) {
  const btn = document.createElement("button");
  btn.type = "button";
  btn.className = "klc-commit";
  const waiting = () => {
    const click = model.get("click") || {};
    return !!click.n && click.n !== model.get("answered");
  };
  const draw = () => {
    const busy = waiting();
    btn.textContent = busy ? "↻ Committing…" : model.get("label");
    btn.disabled = busy || model.get("disabled");
    btn.title = busy ? "Writing this draft to the log" : model.get("tooltip");
    btn.dataset.state = busy ? "committing" : model.get("disabled") ? "disabled" : "ready";
    klFlag("data-kl-committing", busy);
  };
  btn.addEventListener("click", () => {
    if (btn.disabled || waiting()) return;  // one click per draft is sent; the rest wait for the answer
    const n = Date.now().toString(36) + Math.random().toString(36).slice(2, 10);
    model.set("click", { draft: model.get("draft"), n });
    model.save_changes();
    draw();
  });
  for (const name of ["label", "tooltip", "disabled", "click", "answered"]) model.on("change:" + name, draw);
  el.appendChild(btn);
  draw();
  klWatchRunning();
  return () => {
    for (const name of ["label", "tooltip", "disabled", "click", "answered"]) model.off("change:" + name, draw);
  };
}

export default { render };
"""

CSS = """
.klc-commit { font: inherit; font-weight: 600; color: #fff; background: #1e8449; border: 1px solid #196f3d;
  border-radius: 6px; padding: .3em .9em; cursor: pointer; white-space: nowrap; }
.klc-commit:hover:not(:disabled) { background: #196f3d; }
.klc-commit:disabled { background: #9aa59d; border-color: #8a948c; cursor: not-allowed; }
.klc-commit[data-state="committing"] { background: #5b4a2f; border-color: #5b4a2f; cursor: progress; }
"""


class CommitControl(anywidget.AnyWidget):
    """The Commit button of one draft: ``draft`` is the draft's id; the page writes only ``click``."""

    _esm = ESM
    _css = CSS
    draft = traitlets.Unicode("").tag(sync=True)
    label = traitlets.Unicode("").tag(sync=True)
    tooltip = traitlets.Unicode("").tag(sync=True)
    disabled = traitlets.Bool(False).tag(sync=True)
    click = traitlets.Dict({}).tag(sync=True)
    """``{"draft": the id the button was drawn with, "n": a token of that click}``, sent by the page."""
    answered = traitlets.Unicode("").tag(sync=True)
    """The token of the last click the kernel answered without reloading (the button is enabled again)."""


def draft_id(session: SheetSession) -> str:
    """The id of the session's draft: ``"<turn>@<seq it starts from>"`` (``"14@475"``).

    Two sessions on the same draft (a second tab, a reload) share it; the next turn, an undo or a
    log that moved on make another.
    """
    return f"{session.start.turn}@{session.start.start_seq}"


def control(session: SheetSession) -> Any:
    """The ``mo.ui.anywidget`` Commit button of ``session``'s draft (disabled while a step is refused)."""
    import marimo as mo

    ok = session.draft is not None and session.draft.committable
    return mo.ui.anywidget(CommitControl(
        draft=draft_id(session), label=f"✔ Commit {session.start.when}", disabled=not ok,
        tooltip="Append this turn to the log" if ok else "Fix the refused step first"))


def stale_words(named: Any, session: SheetSession) -> str:
    """What a click naming the draft ``named`` (not the session's) says.

    >>> from types import SimpleNamespace as NS
    >>> s = NS(start=NS(turn=15, start_seq=490, turn_unit="month", when="month 15"))
    >>> stale_words("14@475", s)
    'A click on Commit for month 14 came after the sheet moved on to month 15: month 14 is committed already.'
    >>> stale_words("15@470", s).split(": ")[-1]
    'nothing was committed.'
    """
    turn, _, seq = str(named).partition("@")
    now = session.start
    if not turn.isdigit():
        return "A click on Commit for another draft was not taken: nothing was committed."
    when = "founding" if turn == "0" else f"{now.turn_unit} {int(turn)}"
    if int(turn) < now.turn:
        return f"A click on Commit for {when} came after the sheet moved on to {now.when}: {when} is committed already."
    return (f"A click on Commit for an earlier draft of {when} came after the log moved on (seq {seq} →"
            f" {now.start_seq}): nothing was committed.")


def take(button: Any, session: SheetSession) -> Outcome | None:
    """What the last click on ``button`` (``control``'s widget, or anything whose ``value`` holds ``click``) does.

    A click naming ``session``'s draft commits it (``sheet.commit``: at most once per session, and the
    log's commit id makes a draft idempotent across tabs and retries); a click naming another draft
    commits nothing and says which draft it was for (kind ``stale``); no click, or one already
    answered, is None. The button is answered (enabled again) unless the sheet reloads (a commit
    made or refused by the log).
    """
    click = (getattr(button, "value", None) or {}).get("click") or {}
    token, named = click.get("n"), click.get("draft")
    widget = getattr(button, "widget", None)
    if not token or (widget is not None and widget.answered == token):
        return None
    done: Outcome | None = None
    try:
        if named != draft_id(session):
            done = Outcome("stale", stale_words(named, session))
        else:
            done = sheet.commit(session, session.draft)
    finally:
        if widget is not None and (done is None or done.kind not in ("success", "danger")):
            widget.answered = token
    return done


def shown(before: Outcome | None, done: Outcome) -> Outcome:
    """The outcome box after ``done``: a stale click's words follow the box they came after."""
    if done.kind == "stale":
        if before is None:
            return Outcome("warn", done.text)
        if done.text in before.text:
            return before
        return Outcome(before.kind, f"{before.text} {done.text}", before.step)
    return done
