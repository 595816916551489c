"""A player's orders sheet (``notebooks/orders_sheet.py``, design §7a): what it reads, its form, its words.

The notebook lays these out, a cell each, and keeps its writes (the viewer's submission, answers, ready
flag and messages) behind click counters; ``run_write`` wraps each one. Everything here reads only what
the sheet's viewer may see: its redacted view after the GM's published opening, its own questions, the
messages it may read. Nothing here writes but ``run_write``'s ``pbp.advance`` (the turn moving on after
the viewer's own write).

The form is the GM sheet's form codec (``views.forms``) with an ``Offer``: the fields the rules ask as
questions hidden, suggestions for open picks, blank orders to fill, values read as the player gave them.
What one ruleset's page has that others do not (fields asked elsewhere, a roll made before the orders)
comes in as parameters (``hidden``, ``first``), from the ruleset's ``views.extras`` (``start["extras"]``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TypedDict

import marimo as mo

from kingdomlog.app import Campaign, pbp
from kingdomlog.app import submissions as subs
from kingdomlog.core.choices import FieldSpec, Option
from kingdomlog.core.core_events import PlanSubmitted
from kingdomlog.core.errors import InputError, KingdomlogError
from kingdomlog.core.viewers import Viewer
from kingdomlog.views import forms as sf
from kingdomlog.views.extras import Extras, extras_for
from kingdomlog.views.html import EMPTY, STYLE, Html, h, join, style
from kingdomlog.views.player import page as player
from kingdomlog.views.words import answer_words, help_words, namer, refusal_words, words

CSS = """
.kl-bar { background: #f4f6fa; border: 1px solid #d5dbe6; border-radius: 6px; padding: .5em .8em; margin: .4em 0; }
.kl-bar b { font-weight: 600; }
.kl-q { border-left: 4px solid #1a5fb4; padding: .3em .7em; margin: .5em 0; background: #fafbfd; }
.kl-q.kl-done { border-left-color: #2a8c4a; }
.kl-msg { border: 1px solid #ddd; border-radius: 6px; padding: .4em .7em; margin: .4em 0; }
.kl-msg .kl-meta { color: #666; font-size: .88em; }
.kl-error { color: #a51d2d; }
.kl-ok { color: #2a8c4a; }
.kl-faces { font-family: monospace; font-size: 1.1em; }
"""
"""The sheet's own CSS (after ``views.html.STYLE`` and the player view's)."""


@dataclass(frozen=True)
class FirstRoll:
    """Own steps a player rolls, and seals, before giving the others (whose checks depend on the outcome).

    ``prefix``: their step ids start with it. The words: the section's ``heading`` (after the turn),
    its ``intro`` above the form, its ``button``, what its write says when ``made``, what the orders say
    while it ``waiting``, and what their check says until it is made (``unchecked``).
    """

    prefix: str
    heading: str
    intro: str
    button: str
    made: str
    waiting: str
    unchecked: str


class OrdersStart(TypedDict):
    """What the sheet shows of its viewer's next turn (``open_orders``)."""

    folder: Path
    viewer: str
    as_viewer: Viewer
    turn: int
    name: str
    turn_unit: str
    steps: list[str]
    choices: dict[str, list[FieldSpec]]
    submitted: dict[str, Any] | None
    submitted_seq: int | None
    questions: list[pbp.Posted]
    answered_in: dict[str, set[str]]
    messages: list[pbp.Message]
    others: list[str]
    names: dict[str, str]
    """Who each viewer a message names is, in words, as a sentence says it (``Campaign.viewer_name``: "the GM",
    "Doge of Marburg"): a message's sender and recipients, the players offered as recipients (``others``)."""
    stage: str
    closed: str | None
    orders_due: datetime | None
    time_left: str
    ready: bool
    published: bool
    hints: dict[str, dict[str, tuple[Option, ...]]]
    rolled: dict[str, Html]
    extras: Extras
    said: Callable[[Sequence[Any]], Html]
    """What a step's events record, in words for this player (``in_words`` on their view)."""
    name_of: Callable[[str, str], str]
    """The ruleset's names in words (``Ruleset.name_of``): a step's title, what a roll key rolls."""
    named: Callable[[str, str], str]
    """The ids of what this player may see in words (a ``words.Namer`` of their view: a character by its name)."""


# ---- reading --------------------------------------------------------------------------------------------


def open_orders(folder: Path, viewer: str) -> OrdersStart:
    """The player's next turn, as ``viewer`` may see it: its view after the GM's opening, its own steps and their
    fields, its latest submission, its questions and messages, where the turn stands (its own part only).

    Raises ``InputError`` when ``viewer`` is not a player of the campaign (the GM and the public get no
    sheet), ``KingdomlogError`` when ``folder`` cannot be read.
    """
    camp = Campaign.open(folder)
    v = camp.viewer(viewer)
    if not v.is_player:
        raise InputError(f"{viewer!r} is not a player of this campaign")
    turn = camp.next_turn()
    rs = camp.ruleset
    events = camp.events()
    view = rs.redact(subs.opened(camp, camp.state(), turn, events=events), v)
    steps = camp.player_steps(v)
    choices = {sid: list(rs.choices(view, turn, sid)) for sid in steps}
    mine = camp.submissions(turn).get(v.id)
    submitted = mine.payload.model_dump(mode="json") if mine is not None else None
    closed = subs.orders_closed(events, turn) is not None
    rolled: dict[str, Html] = {}
    for sid, sub in ((submitted or {}).get("steps") or {}).items():
        if sub.get("rolls") and not closed:
            try:
                chk = subs.check_submission(camp, v, {sid: {"choices": sub["choices"]}}, turn=turn)
                rolled[sid] = in_words(rs, view, v, chk.events.get(sid, []))
            except KingdomlogError:
                pass
    st = pbp.status(camp)
    me = next((p for p in st.players if p.id == v.id), None)
    asked = pbp.questions(camp, v, turn)
    letters = pbp.messages(camp, v)
    others = [p for p in camp.players() if p != v.id]
    named = {x for m in letters for x in (m.sender, *m.to)} | set(others)
    return {"folder": Path(folder), "viewer": v.id, "as_viewer": v, "turn": turn, "name": camp.config.name,
            "turn_unit": rs.turn_unit,
            "steps": list(steps), "choices": choices, "submitted": submitted,
            "submitted_seq": pbp.own_seq(camp, v, mine.seq) if mine is not None else None,
            "questions": asked, "answered_in": {q.step: {a.path[0] for a in asked if a.step == q.step} for q in asked},
            "messages": letters, "others": others, "names": {x: camp.viewer_name(x) for x in sorted(named)},
            "stage": st.stage, "closed": st.closed, "orders_due": st.orders_due, "time_left": st.time_left(),
            "ready": bool(me and me.ready), "published": st.published, "hints": open_pick_hints(rs, view, choices),
            "rolled": rolled, "extras": extras_for(camp.config.ruleset), "name_of": rs.name_of,
            "named": namer(rs, view),
            "said": lambda drafts: in_words(rs, view, v, drafts)}


def open_pick_hints(rs: Any, view: Any, choices: Mapping[str, Sequence[FieldSpec]]
                    ) -> dict[str, dict[str, tuple[Option, ...]]]:
    """Suggestions for the open picks of entries, per step and field: ``{step: {field: options}}``.

    An open pick is a field of a ``rows`` entry with a ``source`` but no options of its own, whose options
    depend on a sibling (a target depends on the action): its suggestions are the options of ``source``
    in ``view`` (the viewer's own) for every option of that sibling, each value once.
    """
    hints: dict[str, dict[str, tuple[Option, ...]]] = {}
    for sid, fields in choices.items():
        for f in fields:
            for g in f.fields if f.kind == "rows" else ():
                dep = next((x for x in f.fields if g.depends and x.name == g.depends[0]), None)
                if g.options is not None or not g.source or dep is None or not dep.options:
                    continue
                seen: dict[Any, Option] = {}
                for o in dep.options:
                    for t in rs.vocabulary(view, g.source, {dep.name: o.value}) or ():
                        seen.setdefault(t.value, Option(t.value, t.label or str(t.value)))
                hints.setdefault(sid, {})[g.name] = tuple(seen.values())
    return hints


def in_words(rs: Any, view: Any, viewer: Viewer, drafts: Sequence[Any]) -> Html:
    """What a step recorded (``drafts``), as HTML: the ruleset's chronicle lines for ``viewer``, else a list of
    the events."""
    from kingdomlog.core.events import provisional
    from kingdomlog.views.sheet.cards import event_words

    lines = [rs.chronicle(view, provisional("sheet", i + 1, d), view, viewer) for i, d in enumerate(drafts)]
    if not lines or not all(lines):  # the ruleset has no line for one of them: each event's type and fields in words
        return h("ul", (event_words(d, rs.name_of) for d in drafts), class_="kl-evlist")
    return h("ul", (h("li", f"{x[:1].upper() + x[1:]}.") for x in lines if x))


def sealed_steps(start: OrdersStart) -> dict[str, dict[str, Any]]:
    """The steps of the latest submission whose dice are rolled (their choices can no longer change)."""
    given = (start["submitted"] or {}).get("steps", {})
    return {sid: st for sid, st in given.items() if st.get("rolls")}


def first_steps(start: OrdersStart, first: FirstRoll | None) -> list[str]:
    """The own steps rolled before the others (``first``; none without it)."""
    return [sid for sid in start["steps"] if first is not None and sid.startswith(first.prefix)]


# ---- the form -------------------------------------------------------------------------------------------


def step_offer(start: OrdersStart, sid: str, hidden: Sequence[str] = (), example: str = "") -> sf.Offer:
    """How step ``sid`` is offered: ``hidden`` fields, those answered as questions and a fixed actor left out,
    its open picks with their suggestions (``example``: the placeholder of their box)."""
    skip = {*hidden, *start["answered_in"].get(sid, set()), *fixed_choices(start, sid)}
    return sf.Offer(hidden=frozenset(skip), hints=start["hints"].get(sid, {}), other_example=example)


def fixed_choices(start: OrdersStart, sid: str) -> dict[str, Any]:
    """Choices the player does not make: the ``actor`` of a step that defaults to the viewer is the viewer."""
    me = start["viewer"]
    return {f.name: me for f in start["choices"][sid] if f.name == "actor" and f.default == me}


def orders_form(start: OrdersStart, steps: Sequence[str], hidden: Sequence[str] = (), example: str = "") -> Any:
    """One flat ``mo.ui.dictionary`` of the forms of ``steps`` (keyed by path, ``views.forms.flatten``),
    filled in with the latest submission; bind it to a global and read it with ``read_orders``."""
    tree = {}
    for sid in steps:
        given = (start["submitted"] or {}).get("steps", {}).get(sid, {}).get("choices", {})
        tree[sid] = sf.choice_widgets(start["choices"][sid], given, offer=step_offer(start, sid, hidden, example))
    return mo.ui.dictionary(sf.flatten(tree))


def read_orders(start: OrdersStart, value: Mapping[str, Any], steps: Sequence[str], hidden: Sequence[str] = ()
                ) -> tuple[dict[str, dict[str, Any]] | None, str | None]:
    """Steps ``steps`` as a form's ``value`` gives them, as a submission takes them: ``({step: {"choices": ...}},
    None)``, or ``(None, what cannot be read)`` (a number that is not one, an order without its action, ...)."""
    tree = sf.unflatten(value)
    out: dict[str, dict[str, Any]] = {}
    problems: list[str] = []
    for sid in steps:
        specs = start["choices"][sid]
        read = sf.Read()
        chosen = sf.read_fields(specs, tree.get(sid) or {}, {}, (), read, offer=step_offer(start, sid, hidden))
        problems += [f"{sf.path_label(specs, e.path)}: {e.message}" for e in read.errors]
        out[sid] = {"choices": {**fixed_choices(start, sid), **chosen}}
    return (None, "; ".join(problems)) if problems else (out, None)


def form_layout(start: OrdersStart, form: Any, sid: str) -> Any:
    """Step ``sid``'s part of ``form`` laid out for people: fields side by side, a block per entry, long
    groups of an entry folded away."""
    view = sf.View(form)[sid]
    shown = [s for s in start["choices"][sid] if s.name in view]
    # a lone widget in an hstack keeps its own width (the codec's dropdowns fill their container)
    return mo.vstack([_layout(s, view[s.name], 1) if isinstance(view[s.name], sf.View)
                      else mo.hstack([view[s.name]], justify="start") for s in shown], gap=0.6)


def _layout(spec: FieldSpec, node: Any, depth: int) -> Any:
    if not isinstance(node, sf.View):
        return node
    if all(k in node for k in sf.OPEN_PICK):
        return mo.hstack([node[k] for k in sf.OPEN_PICK], justify="start", gap=0.5, wrap=True)
    if spec.kind == "list" and "rows" in node:  # a list picked in order: a dropdown per item
        return mo.hstack(node["rows"].items(), justify="start", gap=0.5, wrap=True)
    if spec.kind == "rows":
        word = sf.singular(sf.lower_label(spec.label or spec.name)).capitalize()
        return mo.vstack([mo.vstack([mo.md(f"**{word} {i + 1}**"), _group(spec, e, depth + 1)])
                          for i, e in enumerate(node["rows"].items())], gap=0.6)
    return _group(spec, node, depth)


def _group(spec: FieldSpec, node: Any, depth: int) -> Any:
    """A group's (or an entry's) fields side by side; deep in an entry, more than four fold away."""
    parts = [node[sf.VARIANT]] if sf.VARIANT in node else []
    parts += [_layout(f, node[f.name], depth + 1) for f in spec.fields if f.name in node]
    if sf.ALONE in node:  # a mapping's "all at once"
        parts.append(node[sf.ALONE])
    if depth >= 3 and len(parts) > 4:
        head = spec.label or spec.name
        head = head if "detail" in head.lower() else f"{head}: details"  # "Details", not "Details: details"
        return mo.accordion({head: mo.hstack(parts, wrap=True, justify="start", gap=0.5)})
    return mo.hstack(parts, wrap=True, justify="start", gap=0.5, align="end")


def help_html(start: OrdersStart, sid: str) -> Html:
    """The help of step ``sid``'s fields, one line each."""
    return join((join([h("b", c.label or c.name), f": {help_words(c.help)}"]) for c in start["choices"][sid] if c.help),
                h("br"))


# ---- words ----------------------------------------------------------------------------------------------


def head_html(start: OrdersStart, view: player.PlayerView, report_link: Any = None) -> Html:
    """The top of the page: its CSS, the view's title and where the turn stands (with the report's link)."""
    return join([style(STYLE + player.STYLE + CSS), player.title_html(view), header_html(start, report_link)])


def header_html(start: OrdersStart, report_link: Any = None) -> Html:
    """Where the turn stands for this player: deadline, time left, ready or not, orders closed (and, when
    ``report_link`` is a URL, a link to the player's report)."""
    unit = start["turn_unit"]
    due: Any
    if start["closed"]:
        due = [h("b", "orders closed"), f" ({start['closed']})"]
    elif start["orders_due"]:
        due = ["orders due ", h("b", f"{start['orders_due']:%Y-%m-%d %H:%M} UTC"), f" ({start['time_left']} left)"]
    else:
        due = f"no deadline set: the {unit} waits until everyone is ready"
    ready = h("b", "you are ready", class_="kl-ok") if start["ready"] else ["you are ", h("b", "not ready"), " yet"]
    link = [" · ", h("a", "your report", href=report_link)] if isinstance(report_link, str) else None
    return h("div", f"{unit.capitalize()} {start['turn']} · ", due, " · ", ready, link, class_="kl-bar")


def sealed_html(start: OrdersStart, sealed: Mapping[str, Mapping[str, Any]], sid: str) -> Html:
    """A rolled step: its faces and choices, sealed, and what it recorded in words."""
    name = start["name_of"]
    faces = "; ".join(f"{name(k, 'roll')}: {' '.join(str(x) for x in v)}" for k, v in sealed[sid]["rolls"].items())
    chosen = chosen_words(start["choices"].get(sid, []), sealed[sid]["choices"])
    return join([h("p", "Rolled and sealed: ", h("span", faces, class_="kl-faces"), f" ({chosen})" if chosen else ""),
                 start["rolled"].get(sid, EMPTY)])


def chosen_words(specs: Sequence[FieldSpec], choices: Mapping[str, Any]) -> str:
    """A step's choices as a person reads them: each field's label and its value's option text.

    >>> from kingdomlog.core.choices import Option
    >>> stake = FieldSpec("stake", "Stake", "select", options=(Option("low", "low stake"),))
    >>> chosen_words([stake], {"stake": "low", "pay": ["power", "wealth"]})
    'Stake: low stake; Pay: power, wealth'
    """
    by = {f.name: f for f in specs}
    out = []
    for k, v in choices.items():
        f = by.get(k)
        texts = {o.value: o.text for o in (f.options or ()) if isinstance(o.value, str)} if f is not None else {}
        items = v if isinstance(v, list) else [v]
        said = ", ".join(texts.get(x, str(x)) if isinstance(x, str) else str(x) for x in items)
        out.append(f"{f.label if f is not None else words(k)}: {said}")
    return "; ".join(out)


def dice_words(camp: Campaign, start: OrdersStart, steps: Mapping[str, Any]) -> str:
    """The faces the latest submission rolled for ``steps`` (said after a roll)."""
    payload = camp.submissions(start["turn"])[start["viewer"]].payload
    got = payload.steps if isinstance(payload, PlanSubmitted) else {}
    name = start["name_of"]
    return "Dice: " + "; ".join(f"{name(k, 'roll')}: {' '.join(str(x) for x in v)}" for sid in steps
                                if sid in got for k, v in got[sid].rolls.items()) + "."


def submission_md(start: OrdersStart) -> str:
    """Whether the faction has submitted this turn (markdown): said without the log's seq, which would tell a player
    how many events the log holds, those they may not see too."""
    if start["submitted_seq"]:
        return f"_Your orders for this {start['turn_unit']} are in; submitting again replaces them._"
    return f"_Nothing submitted yet this {start['turn_unit']}._"


def check_html(start: OrdersStart, steps: Mapping[str, Any] | None, problem: str | None,
               waiting: Sequence[str] = (), first: FirstRoll | None = None) -> tuple[Html, bool]:
    """What the submission check says about the form, in words, and whether it can be submitted.

    ``problem``: why the form cannot be read; ``waiting``: own steps whose dice are not rolled yet (the
    orders are checked once they are, in ``first``'s words).
    """
    if problem:
        return h("p", h("b", "Cannot read the form."), f" {problem}", class_="kl-error"), False
    if not steps:
        return h("p", "Nothing to submit."), False
    if waiting:
        words = first.unchecked if first is not None else "Your orders are checked once your dice are rolled."
        return h("p", h("i", words)), False
    try:
        check = subs.check_submission(Campaign.open(start["folder"]), start["as_viewer"], steps, turn=start["turn"])
    except KingdomlogError as exc:
        return h("p", h("b", "These orders would be refused."), f" {refusal_words(str(exc), start['named'])}",
                 class_="kl-error"), False
    parts = [h("p", h("b", "These orders pass the checks of what you know."),
               f" What only the whole game can settle is settled when the {start['turn_unit']} resolves; an order"
               " that cannot be carried out then is void on its own and your report says why.", class_="kl-ok")]
    name = start["name_of"]
    for sid in check.unchecked:
        parts.append(h("p", h("i", f"{name(sid, 'step')} is checked once your dice are rolled (on submit).")))
    for sid, drafts in check.events.items():
        if sid not in check.fresh and drafts:
            parts.append(h("details", h("summary", f"What {name(sid, 'step')} records"), start["said"](drafts)))
    return join(parts), True


def open_questions(start: OrdersStart) -> list[pbp.Posted]:
    """The questions this player can still answer (an opening one may be changed until orders close)."""
    return [q for q in start["questions"]
            if not q.answered or (q.opening and not start["closed"] and not q.by_default)]


def question_html(q: pbp.Posted) -> Html:
    """An open question: its kind, its prompt, by when and what stands if it is not answered."""
    due = (f" (answer by {q.deadline:%Y-%m-%d %H:%M} UTC; else: {answer_words(q, q.default)})" if q.deadline
           else f" (else: {answer_words(q, q.default)})")
    return h("div", h("b", q.kind.replace("_", " ")), f": {q.prompt}", h("br"), h("i", due), class_="kl-q")


def questions_form(start: OrdersStart) -> Any:
    """One answer widget per open question, a ``mo.ui.dictionary`` by question id (a dropdown, or a list for
    questions of several picks); read an answer with ``question_value``."""
    elems: dict[str, Any] = {}
    for q in open_questions(start):
        current = q.answer if q.answered else q.default
        if q.options and all(isinstance(o.value, list) for o in q.options):
            items = {o.label: json.dumps(o.value) for o in q.options if o.value}
            chosen = [k for k, v in items.items() if all(x in (current or []) for x in json.loads(v))]
            elems[q.id] = mo.ui.multiselect(options=items, value=chosen, label="Your picks (none: no option)")
        else:
            labels = {answer_words(q, o.value) + (f" ({o.detail})" if o.detail else ""): json.dumps(o.value)
                      for o in q.options}
            picked = next((k for k, v in labels.items() if json.loads(v) == current), None)
            elems[q.id] = mo.ui.dropdown(options=labels, value=picked, label="Your answer")
    return mo.ui.dictionary(elems)


def question_value(raw: Any) -> Any:
    """An answer widget's value as the answer: one option's value, or the items of several (a list).

    >>> question_value('"give"'), question_value(['["a"]', '["b", "c"]'])
    ('give', ['a', 'b', 'c'])
    """
    if isinstance(raw, list):
        out: list[Any] = []
        for r in raw:
            out.extend(json.loads(r))
        return out
    return json.loads(raw) if isinstance(raw, str) else raw


def questions_html(start: OrdersStart) -> Html:
    """The questions already answered (and how), in words."""
    done = [q for q in start["questions"] if q.answered]
    if not done:
        return EMPTY
    return join([h("h3", "Answered", class_="kl-h3"),
                 *(h("div", h("b", q.kind.replace("_", " ")), f": {q.prompt}", h("br"), "answered: ",
                     h("b", answer_words(q, q.answer)), " (the default stood)" if q.by_default else None,
                     class_="kl-q kl-done") for q in done)])


def messages_html(start: OrdersStart) -> Html:
    """The messages this player may read, newest first."""
    if not start["messages"]:
        return h("p", h("i", "No messages yet."))
    out = []
    said = start["names"]
    for m in reversed(start["messages"]):  # who by name ("Doge of Marburg"; it read "marburg", the viewer's id)
        to = ", ".join(said.get(t, t) for t in m.to) if m.to else "everyone (an open letter)"
        meta = h("div", f"{start['turn_unit']} {m.turn} · from ", h("b", said.get(m.sender, m.sender)), f" to {to}",
                 f" · {m.subject}" if m.subject else None, class_="kl-meta")
        out.append(h("div", meta, h("div", m.text), class_="kl-msg"))
    return join(out)


# ---- a write ----------------------------------------------------------------------------------------------


def run_write(start: OrdersStart, what: str, fn: Callable[[Campaign], Any]) -> tuple[str, str]:
    """One write for the sheet's viewer (``fn(camp)``, returning what to say), then the turn moved on.

    Returns ``(callout kind, markdown)``: ``success`` with what ``fn`` said and what moved, or ``danger``
    with why nothing was written. Never raises for a refusal (``KingdomlogError``).
    """
    try:
        said = fn(Campaign.open(start["folder"]))
    except KingdomlogError as exc:
        return "danger", f"**{what}: not done.** {player.said_to_player(exc)}"
    try:
        camp = Campaign.open(start["folder"])
        moved = pbp.advance(camp).for_viewer(start["as_viewer"])
    except KingdomlogError:
        moved = []
    return "success", f"**{what}.** {said}" + (" " + " ".join(f"Then: {m}." for m in moved) if moved else "")
