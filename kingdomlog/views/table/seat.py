"""A player's page at the table (``notebooks/table_page.py``): their seats, their proposals, the feed.

The page is one viewer's, fixed by the server (``kingdomlog serve``'s ``/p/<player>/``). For each seat the
ruleset gives that player this turn (``app.table.opening``: pf2e's Ruler takes the Ruler's Leadership
activities, an aikakirjat PC its actions) it shows a form for ONE row of the seat's list, built with the
GM sheet's form codec (``views.forms``) from the step's row model, its options those of the player's own
view of the month as the GM has played it up to that step (``app.table.before_step``); the seat's fixed
keys (the role, the PC) and the fields the GM rules (``gm_*``, the ruleset's ``Extras.seat_hidden``) are
not offered. **Declare** proposes the row: the page shows the check in words and the odds of each degree
(the GM sheet's ``odds_html``), nothing drawn; **Roll** has the server draw the dice and shows the
outcome. The player's proposals are listed with where they stand (declared, rolled, accepted, sent back
with the GM's note) and what may still be done (Withdraw before the roll, a re-roll for a reason the rules
give). The feed (``views.table.feed``) shows what this viewer may read of the table.

What keeps it honest:

- **No face before Roll.** A declared proposal holds its checks, never faces (``app.table``); the page
  shows faces only of the viewer's own rolled proposals and of the lines the feed lets them read.
- **One press, one act.** Every button of the page is a click counter whose new counts are taken once
  (``Clicks``); an act names what it was drawn for (``Act``: the proposal's status and re-rolls then), so a
  second press that reaches the kernel after the first one's write finds the proposal moved on and does
  nothing. Declare on a row that is already declared and not rolled yet does nothing and says so (a double
  click declares once). Roll is idempotent in ``app.table``.
- **Live without a reload.** ``mark`` is a cheap look at the files (the log's head, the GM's draft, the
  table file); the page re-reads its proposals and the feed only when it changed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
import uuid
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anywidget
import marimo as mo
import traitlets

from kingdomlog.app import Campaign
from kingdomlog.app import table as tbl
from kingdomlog.core.choices import FieldSpec
from kingdomlog.core.errors import InputError, KingdomlogError, RuleError
from kingdomlog.core.ruleset import Seat
from kingdomlog.core.turn import check_of, check_words
from kingdomlog.core.viewers import Viewer
from kingdomlog.dice.odds import odds
from kingdomlog.views import forms as sf
from kingdomlog.views.extras import extras_for
from kingdomlog.views.html import EMPTY, Html, h, join, marimo_html, style
from kingdomlog.views.player import page as player
from kingdomlog.views.sheet.board import CSS as BOARD_CSS
from kingdomlog.views.sheet.board import board_html
from kingdomlog.views.sheet.cards import odds_html
from kingdomlog.views.sheet.live import BUSY_CSS, BUSY_JS
from kingdomlog.views.table.feed import STYLE as FEED_STYLE
from kingdomlog.views.table.feed import feed_html
from kingdomlog.views.words import namer, refusal_words

GM_FIELD_PREFIX = "gm_"
"""Fields named so are the GM's to rule (``gm_effects``): never offered to a player."""

CSS = """
.kl-seats.kl-cards { display: block; }
.kl-seat { border: 1px solid #d5dbe6; border-radius: 8px; padding: .6em .8em; margin: .6em 0; background: #fbfcfe; }
.kl-seat h3 { margin: 0 0 .2em 0; font-size: 1.05em; }
.kl-help { color: #555; font-size: .9em; }
.kl-wait { color: #5b4a2f; background: #fdf6e3; border-radius: 6px; padding: .4em .6em; }
.kl-err { color: #a51d2d; font-size: .9em; margin: .1em 0 .3em 0; }
.kl-prop { border-left: 4px solid #8a94a6; padding: .35em .7em; margin: .5em 0; background: #fafbfd; }
.kl-prop.rolled { border-left-color: #1a5fb4; } .kl-prop.accepted { border-left-color: #1e8449; }
.kl-prop.returned { border-left-color: #b9770e; } .kl-prop.withdrawn { opacity: .6; }
.kl-prop .kl-status { font-size: .9em; color: #333; }
.kl-odds { margin: .25em 0; }
.kl-bar { display: flex; height: 10px; border-radius: 5px; overflow: hidden; background: #eee; max-width: 28em; }
.kl-seg { display: block; height: 100%; }
.kl-chances { list-style: none; padding: 0; margin: .2em 0; display: flex; flex-wrap: wrap; gap: .2em 1em;
  font-size: .92em; }
.kl-dot { display: inline-block; width: .7em; height: .7em; border-radius: 50%; margin-right: .3em; }
.kl-o0 { background: #b03a2e; } .kl-o1 { background: #e59866; } .kl-o2 { background: #d4ac0d; }
.kl-o3 { background: #58d68d; } .kl-o4 { background: #1e8449; }
.kl-outcome { font-weight: 600; }
.kl-face { font-size: 1.6em; font-weight: 700; margin: .1em 0; } .kl-face small { font-size: .55em; color: #555; }
"""


# ---- the page's viewer and their seats ------------------------------------------------------------


@dataclass(frozen=True)
class TablePage:
    """What the page shows of its viewer's place at the table this turn (``open_page``)."""

    folder: Path
    viewer: Viewer
    campaign: str
    player: str
    turn: int
    unit: str
    seats: tuple[Seat, ...]
    names: Mapping[str, str]
    hidden: frozenset[str]
    report: str = ""
    head: int = 0
    """The log's head seq when the page was opened (a commit moves it)."""
    camp: Campaign | None = field(default=None, compare=False, repr=False)
    """The page's own ``Campaign``, kept for its cells' acts (``acting``): its log, read once, is read again only
    when a batch is added, so a press does not read the whole log. Used by the page's cells alone (one thread);
    the watcher (``views.table.live``) opens its own."""


def acting(page: TablePage) -> Campaign:
    """The campaign a cell of the page acts on: the page's own (``TablePage.camp``), else one opened now."""
    return page.camp if page.camp is not None else Campaign.open(page.folder)


def open_page(folder: Path, viewer: str, report: str = "") -> TablePage:
    """``viewer``'s place at the table in ``folder``'s next turn. ``InputError`` for the GM, the public or an
    unknown viewer (the page is a player's)."""
    camp = Campaign.open(folder)
    v = camp.viewer(viewer)
    if not v.is_player:
        raise InputError(f"{viewer!r} is not a player of this campaign; the table page is a player's")
    op = tbl.opening(camp, v)
    ex = extras_for(camp.config.ruleset)
    return TablePage(Path(folder), v, camp.config.name or camp.id, camp.player_name(v.id), op.turn, op.unit,
                     op.seats, {p: camp.player_name(p) for p in camp.players()}, frozenset(ex.seat_hidden), report,
                     camp.head_seq, camp)


def mark(page: TablePage) -> tuple[Any, ...]:
    """A cheap look at what the page depends on: the log (its folder, whose time a batch added changes, and
    ``log/.heads``, a line longer per append), the GM's saved draft, the table file. It changes when anything the
    page shows may have (four ``stat`` calls; no fold, no read of the log: the watcher of every open page takes
    one ten times a second)."""
    from kingdomlog.app.drafts import Drafts

    log = page.folder / "log"
    return ((_stat(log), _stat(log / ".heads")), _stat(Drafts(page.folder).path(page.turn)),
            tbl.TableFile(page.folder, page.turn).version())


def _stat(path: Path) -> tuple[int, int]:
    try:
        got = path.stat()
    except FileNotFoundError:
        return (0, 0)
    return (got.st_size, got.st_mtime_ns)


def moved_on(page: TablePage) -> bool:
    """Whether the turn the page was opened for is committed (the page opens the next one); the log's
    head is looked at first (a fold only once it moved)."""
    camp = Campaign.open(page.folder)
    return camp.head_seq != page.head and camp.next_turn() != page.turn


def waits(page: TablePage, month: Sequence[str] | None = None) -> tuple[str, ...]:
    """Per seat, why it takes nothing now, or "" when it may propose: its proposals this turn are all it takes
    (``taken``: the table's file, read now), else why the GM's month does not reach its step yet ("the GM is still at
    …"). ``month``: that last part per seat as ``month_waits`` last computed it (a preview of the month: looked at
    again only when the month moved); computed now, for the seats not full, when not given."""
    props = list(tbl.proposals(tbl.TableFile(page.folder, page.turn).lines()).values())
    out = []
    for i, seat in enumerate(page.seats):
        full = taken(seat, props, page.viewer.id, page.unit)
        out.append(full or (month[i] if month is not None else _month_wait(page, seat)))
    return tuple(out)


def month_waits(page: TablePage) -> tuple[str, ...]:
    """Per seat, "" when the GM's month has reached its step, else why not, in words (``app.table.before_step``)."""
    return tuple(_month_wait(page, seat) for seat in page.seats)


def _month_wait(page: TablePage, seat: Seat) -> str:
    try:
        tbl.before_step(Campaign.open(page.folder), page.viewer, page.turn, seat.step)
        return ""
    except KingdomlogError as exc:
        return player.said_to_player(exc)


def taken(seat: Seat, props: Sequence[tbl.Proposal], player: str, unit: str = "turn") -> str:
    """Why ``seat`` of ``player`` takes no more this ``unit``, in words, or "": its kingdom check taken by a
    leader, or as many rows proposed as it takes (as ``app.table.declare`` counts them: every one not withdrawn).

    >>> s = Seat("upkeep", "", "General", roll="stab")
    >>> taken(s, [tbl.Proposal("p1", 3, "ysolde", s.id, "upkeep", "", {})], "kesh", "month")
    'Another leader has taken this check this month.'
    >>> taken(Seat("a", "acts", "Ruler", limit=1), [], "kesh")
    ''
    """
    used = [p for p in props if p.seat == seat.id and p.open]
    mine = [p for p in used if p.player == player]
    if seat.roll and used:
        return (f"You have taken this check this {unit}: roll it under Your proposals." if mine else
                f"Another leader has taken this check this {unit}.")
    if seat.limit is not None and len(used) >= seat.limit:
        said = f"{seat.limit} proposed this {unit}, all this seat takes: see Your proposals"
        if any(p.status in ("declared", "returned") and not p.rolled for p in mine):
            return said + f" (withdraw {'it' if seat.limit == 1 else 'one'} before its roll to propose another)."
        return said + "."
    return ""


# ---- one row of a seat, as a form ---------------------------------------------------------------


@dataclass(frozen=True)
class SeatForm:
    """The form of one seat: the row's fields (options from ``row``), the row it holds, what it hides."""

    seat: Seat
    specs: tuple[FieldSpec, ...]
    row: Mapping[str, Any]
    offer: sf.Offer
    rows_spec: FieldSpec | None = None
    wait: str = ""

    @property
    def key(self) -> Hashable:
        """Two forms with the same key need no new widgets (``views.forms.spec_key``)."""
        return (self.seat.id, self.wait, tuple(sf.spec_key(s) for s in self.specs if self.offer.shows(s)))


def seat_form(page: TablePage, index: int, row: Mapping[str, Any] | None = None, wait: str = "") -> SeatForm:
    """Seat ``index``'s form holding ``row`` (the player's values, without the seat's fixed keys).

    Options come from the player's view of the month up to the seat's step (the view at the turn's start
    while the seat ``wait``s). Hidden: the seat's fixed keys, ``gm_*`` fields, the ruleset's ``seat_hidden``.
    """
    seat = page.seats[index]
    camp = acting(page)
    given = {k: v for k, v in (row or {}).items() if k not in seat.fixed}
    view: Any = None
    if seat.roll:  # a seat that rolls one check of the GM's step: nothing to choose
        return SeatForm(seat, (), {}, sf.Offer(), None, wait)
    if not wait:
        with contextlib.suppress(KingdomlogError):
            view = tbl.before_step(camp, page.viewer, page.turn, seat.step).view
    if view is None:
        view = camp.state(viewer=page.viewer)
    if seat.part:
        return _part_form(camp, page, seat, view, given, wait)
    specs = camp.ruleset.choices(view, page.turn, seat.step, {seat.rows: [{**given, **seat.fixed}]})
    rows_spec = next((s for s in specs if s.name == seat.rows), None)
    fields = (rows_spec.entries[0] if rows_spec is not None and rows_spec.entries else
              rows_spec.fields if rows_spec is not None else ())
    hidden = frozenset({*seat.fixed, *page.hidden, *(f.name for f in fields if f.name.startswith(GM_FIELD_PREFIX))})
    return SeatForm(seat, tuple(fields), given, sf.Offer(hidden=hidden), rows_spec, wait)


def _part_form(camp: Campaign, page: TablePage, seat: Seat, view: Any, given: Mapping[str, Any],
               wait: str) -> SeatForm:
    """The form of a seat that gives a part of the GM's row (the General's orders of a battle): those fields only,
    as the GM sheet's codec draws it (a battle's ``rounds``: a list of orders per round), its picks filled from
    the GM's row as the player's view shows it (the battle's armies, targets, what each army may do now), with
    the player's own values in it (never the GM's part: the enemy's orders stay the GM's) and its picks limited
    to what the seat allows (the kingdom's armies, the tactics the lead army knows). As many rounds as the GM's row
    has, and a ``rows`` part the GM's row gives entries of (pf1's Melee phases) exactly those: no spare one, which
    the battle would not play."""
    gm = tbl.gm_row(camp, page.turn, seat)
    mine: dict[str, Any] = {}
    for name in seat.parts:
        theirs, got = gm.get(name), given.get(name)  # theirs: the GM's part blanked (``Ruleset.blank_part``)
        if isinstance(theirs, list) and (not isinstance(got, list) or not got):
            got = theirs or [[]]
        elif isinstance(theirs, list) and isinstance(got, list) and len(got) < len(theirs):
            got = [*got, *theirs[len(got):]]  # the GM's row sets how many: the ones left blank are still there
        mine[name] = got
    specs = camp.ruleset.choices(view, page.turn, seat.step, {seat.rows: [{**gm, **mine}]})
    rows_spec = next((s for s in specs if s.name == seat.rows), None)
    fields = rows_spec.entries[0] if rows_spec is not None and rows_spec.entries else ()
    part = tuple(only(f, seat.allowed) for f in fields if f.name in seat.parts)
    hidden = camp.ruleset.part_hidden(seat.step, seat.parts)
    exact = frozenset(f.name for f in part if f.kind == "rows" and isinstance(gm.get(f.name), list) and gm[f.name])
    return SeatForm(seat, part, {k: v for k, v in mine.items() if v is not None},
                    sf.Offer(hidden=hidden, spare_rows=1, min_rows=2, exact_rows=exact), None, wait)


def proposal_board(page: TablePage, p: tbl.Proposal) -> Html:
    """A proposal of a seat that gives a part of a GM's battle, as the GM's board draws the battle
    (``views.sheet.board``) on the player's view: its armies side by side; declared, the check it waits for and
    its odds; rolled, every round's checks with their odds and faces, what each round did and the outcome. EMPTY
    for another proposal, and when the rules refuse it now (the GM changed the battle: Declare says why)."""
    if tbl.filled(p.seat) is None or p.status == "withdrawn":
        return EMPTY
    camp = Campaign.open(page.folder)
    op = tbl.opening(camp, page.viewer)
    seat = next((s for s in op.seats if s.id == p.seat), None)
    if seat is None:
        return EMPTY
    try:
        t = tbl.trial(camp, op, seat, p.row, faces=p.faces or None, leave_out=p.id)
    except KingdomlogError:
        return EMPTY
    if t.board is None:
        return EMPTY
    return join([style(BOARD_CSS), board_html(t.board.board, t.board.checks, t.board.rolls, t.board.pending,
                                              ruleset=camp.ruleset)])


def only(spec: FieldSpec, allowed: Mapping[str, tuple[str, ...]]) -> FieldSpec:
    """``spec`` with the options of each field named in ``allowed`` cut to those values (and "none"), at any depth:
    the General's orders offer the kingdom's armies only.

    >>> from kingdomlog.core.choices import Option
    >>> pick = FieldSpec("army", "Army", "select", options=(Option(""), Option("militia"), Option("raiders")))
    >>> [o.value for o in only(pick, {"army": ("militia",)}).options or ()]
    ['', 'militia']
    """
    options = spec.options
    if spec.name in allowed and options is not None:
        options = tuple(o for o in options if o.value in ("", None) or o.value in allowed[spec.name])
    return dataclasses.replace(spec, options=options, fields=tuple(only(f, allowed) for f in spec.fields),
                               entries=tuple(tuple(only(f, allowed) for f in e) for e in spec.entries))


def row_widgets(form: SeatForm) -> dict[str, Any]:
    """The widgets of the form's one row (``views.forms.choice_widgets``, as a player's page offers them)."""
    if form.wait:
        return {}
    return sf.choice_widgets(form.specs, form.row, offer=form.offer)


def read_row(form: SeatForm, raw: Mapping[str, Any]) -> tuple[dict[str, Any], list[sf.FieldError]]:
    """The row the widgets' values ``raw`` give (without the seat's fixed keys), and what cannot be read."""
    out = sf.Read()
    given = {k: v for k, v in raw.items() if not _blank_group(form, k, v)}
    got = sf.read_fields(form.specs, given, {}, (), out, offer=form.offer)
    return got, list(out.errors)


def _blank_group(form: SeatForm, name: str, value: Any) -> bool:
    """Whether ``value`` is an optional group left as its widgets start: no pick made, no text typed (its number
    boxes always hold a number, so they alone do not give it). A Building Project's new project is not asked
    of a row that reduces Unrest."""
    spec = next((s for s in form.specs if s.name == name), None)
    if spec is None or spec.kind != "group" or spec.required or not isinstance(value, Mapping):
        return False
    picks = [f for f in spec.fields if f.kind in ("text", "select", "multiselect") and f.name in value]
    return all(value[f.name] in (None, "", [], f.default) for f in picks)


def settled(form: SeatForm, row: Mapping[str, Any]) -> dict[str, Any]:
    """``row`` with choices the new options no longer allow cleared (activity changed: its old skill goes)."""
    return sf.settle(form.specs, row, form.row)


def after_declare(forms: Sequence[SeatForm], tree: Mapping[str, Any], declared: Sequence[int]
                  ) -> dict[int, dict[str, Any]]:
    """The rows the seats' forms hold once Declare went through for the seats ``declared``: each of those starts
    fresh (nothing chosen: what it held is a proposal now, under Your proposals, and the same choices again would
    be refused), every other seat keeps what the widgets' values ``tree`` (by seat index) hold. A refused Declare is
    not in ``declared``: its seat keeps everything typed.

    >>> f = SeatForm(Seat("s", "activities", "Ruler"), (), {}, sf.Offer())
    >>> after_declare([f, f], {"0": {}, "1": {}}, [0])
    {0: {}, 1: {}}
    """
    rows: dict[int, dict[str, Any]] = {}
    for i, f in enumerate(forms):
        if f.wait or f.seat.roll:
            continue
        rows[i] = {} if i in declared else settled(f, read_row(f, tree.get(str(i)) or {})[0])
    return rows


def error_at(form: SeatForm, message: str) -> tuple[str, str]:
    """Where a refusal of the row belongs: ``(field name, words)``; ``("", words)`` for the whole row.

    >>> f = SeatForm(Seat("s", "activities", "Ruler"), (), {}, sf.Offer())
    >>> error_at(f, "choice activities[0].skill: 'x' cannot be chosen now")
    ('skill', "'x' cannot be chosen now")
    >>> error_at(f, "choice activities[0].activity is required")
    ('activity', 'needed: choose one')
    >>> error_at(f, "the GM is still at Upkeep")
    ('', 'the GM is still at Upkeep')
    """
    path = sf.error_path(message)
    if path is None or len(path) < 3 or path[0] != form.seat.rows or not isinstance(path[2], str):
        return "", message
    words = message.split(": ", 1)[1] if ": " in message else "needed: choose one"
    if message.rstrip().endswith("is required"):
        words = "needed: choose one"
    return path[2], words


def row_layout(form: SeatForm, widgets: Any, errors: Mapping[str, str]) -> Any:
    """The form laid out for a phone: the main fields one under another, each with its error beside it;
    the rest folded under "More choices" (opened when one of them has an error)."""
    if form.wait:
        return mo.Html(h("p", form.wait, class_="kl-wait"))
    if form.seat.roll:
        return mo.Html(h("p", "Nothing to choose: this is the kingdom's check as the GM's month computes it. Declare"
                              " it to see its odds, then roll it.", class_="kl-help"))
    view = widgets
    spec = form.rows_spec or FieldSpec(form.seat.rows, form.seat.rows, "rows", fields=form.specs)
    shown = sf.primary(spec, form.specs, form.row, form.offer)
    main: list[Any] = []
    more: list[Any] = []
    for s in form.specs:
        if s.name not in view:
            continue
        part = _field(s, view[s.name], errors.get(s.name, ""))
        (main if s.name in shown or s.name in errors else more).append(part)
    if more:
        main.append(mo.accordion({"More choices": mo.vstack(more, gap=0.4)}))
    if errors.get(""):
        main.insert(0, mo.Html(h("p", errors[""], class_="kl-err")))
    return mo.vstack(main, gap=0.4)


def _field(spec: FieldSpec, node: Any, error: str) -> Any:
    parts: list[Any] = []
    if spec.kind == "rounds" and isinstance(node, sf.View) and "rounds" in node:
        parts.append(_rounds(spec, node))
    elif spec.kind == "rows" and isinstance(node, sf.View) and "rows" in node:
        parts.append(_rows(spec, node))
    elif isinstance(node, sf.View):
        if all(k in node for k in sf.OPEN_PICK):
            parts.append(mo.hstack([node[k] for k in sf.OPEN_PICK], justify="start", wrap=True))
        else:
            parts.append(mo.md(f"**{spec.label or spec.name}**"))
            parts += [_field(f, node[f.name], "") for f in spec.fields if f.name in node]
    else:
        parts.append(node)
    if spec.help and spec.kind not in ("bool",):
        parts.append(mo.Html(h("div", spec.help, class_="kl-help")))
    if error:
        parts.append(mo.Html(h("div", f"⚠ {spec.label or spec.name}: {error}", class_="kl-err", role="alert")))
    return mo.vstack(parts, gap=0.1)


ORDER_MAIN = 3
"""An order's first fields shown in line (a battle's: army, war action, target); the rest fold under "More"."""


def _rounds(spec: FieldSpec, node: Any) -> Any:
    """A ``rounds`` field (a battle's orders) laid out for a phone: each round under its title, each order's first
    fields in line and the rest folded (the GM sheet's codec made the widgets: ``views.forms.rounds_widget``)."""
    out: list[Any] = [mo.md(f"**{spec.label or spec.name}**")]
    for i, one in enumerate(node["rounds"].items()):
        rs = sf.round_spec(spec, i)
        per = list(rs.entries)
        orders = []
        for j, order in enumerate(one["rows"].items()):
            fields = [f for f in (per[j] if j < len(per) else rs.fields) if f.name in order]
            main = [order[f.name] for f in fields[:ORDER_MAIN]]
            rest = [order[f.name] for f in fields[ORDER_MAIN:]]
            line: list[Any] = [mo.hstack(main, justify="start", wrap=True)]
            if rest:
                line.append(mo.accordion({"More": mo.vstack(rest, gap=0.2)}))
            orders.append(mo.vstack(line, gap=0.1))
        out.append(mo.vstack([mo.md(f"*{rs.label}*"), *orders], gap=0.3))
    return mo.vstack(out, gap=0.4)


def _rows(spec: FieldSpec, node: Any) -> Any:
    """A ``rows`` field inside a seat's row (pf1's battle ``rounds``: one entry of orders per Melee phase) laid out
    one entry under another, each under its model's title and number ("Melee phase 2"; else "Rounds · 2"), its fields
    one under another (the GM sheet's codec made the widgets)."""
    out: list[Any] = [mo.md(f"**{spec.label or spec.name}**")]
    per = list(spec.entries)
    title = spec.model.model_config.get("title") if spec.model is not None else None  # "Melee phase"
    for j, entry in enumerate(node["rows"].items()):
        fields = [f for f in (per[j] if j < len(per) else spec.fields) if f.name in entry]
        head = f"{title} {j + 1}" if isinstance(title, str) and title else f"{spec.label or spec.name} · {j + 1}"
        out.append(mo.vstack([mo.md(f"*{head}*"),
                              *(_field(f, entry[f.name], "") for f in fields)], gap=0.2))
    return mo.vstack(out, gap=0.4)


# ---- a choice made while the forms are rebuilt ---------------------------------------------------
#
# A choice that changes what a row offers (an activity: its skills, its fields) makes the page build the seats'
# forms again; the page shows the old widgets until the new ones are drawn (a second or more on a loaded machine).
# A choice made on them meanwhile (the skill, 200 ms after the activity) reaches the kernel after the rebuild, for
# a widget no global names any more: marimo sets its value and runs nothing, and the choice was gone. So the page
# keeps its last few builds alive and each reports its changes (``on_change``): one made on an older build is
# placed on the build now on the page (same seat, same field) and the forms are made again holding it. And while
# the kernel rebuilds, the forms on the page are disabled and dimmed at once, "Updating…" once it lasted 300 ms
# (the GM sheet's busy state, ``views.sheet.live.BUSY_JS``).

KEEP_BUILDS = 4
"""How many builds of the seats' forms a late choice may still arrive for (the one on the page included)."""

SEATS_CLASS = "kl-seats kl-cards"
"""The class of the seats' forms on the page: ``kl-cards`` is what the busy state disables and dims."""


@dataclass(eq=False)
class _Build:
    forms: tuple[SeatForm, ...]
    widgets: Any = None
    seen: dict[str, Any] = field(default_factory=dict)


class SeatInput:
    """One page's builds of its seats' forms, and what a choice that arrives for an older one does.

    Made once per session (a cell of its own); ``dictionary`` makes each build's widgets, ``rebuilding`` says the
    forms on the page are being replaced. ``rebuild`` (the forms' state setter, which must allow self loops: marimo
    credits a late change to the cell that made the widgets) and ``tell`` (the page's message) are set by the page.
    """

    def __init__(self) -> None:
        self.builds: list[_Build] = []
        self.rebuild: Callable[[dict[int, dict[str, Any]]], None] = lambda rows: None
        self.tell: Callable[[Any], None] = lambda said: None
        self.busy: Any = None
        self.placed = 0
        """Late choices placed so far."""

    def dictionary(self, forms: Sequence[SeatForm]) -> Any:
        """The widgets of ``forms`` (one row per seat) as one flat ``mo.ui.dictionary`` keyed ``<seat>/<field>``,
        kept alive for the choices that arrive late (bind it to a global), and the busy widget of this build."""
        build = _Build(tuple(forms))
        flat = sf.flatten({str(i): row_widgets(f) for i, f in enumerate(forms)})
        build.widgets = mo.ui.dictionary(flat, on_change=lambda value: self.changed(build, value))
        build.seen = dict(build.widgets._value)  # marimo refuses .value in the cell that made it
        self.builds = [*self.builds, build][-KEEP_BUILDS:]
        self.busy = mo.ui.anywidget(SeatsBusy())
        return build.widgets

    def rebuilding(self) -> None:
        """The forms on the page are about to be replaced: disable them (the next drawing's are not)."""
        if self.busy is not None:
            self.busy.widget.busy = "rebuilding"

    def changed(self, build: _Build, value: Mapping[str, Any]) -> None:
        """A build's widgets changed to ``value``: nothing more when it is the one on the page, else place it."""
        before, build.seen = build.seen, dict(value)
        current = self.builds[-1] if self.builds else None
        if current is None or build is current or build not in self.builds:
            return
        changes = {k: v for k, v in value.items() if before.get(k) != v}
        now = dict(current.widgets.value)
        lost = [k for k in changes if k not in now]
        merged = {**now, **{k: v for k, v in changes.items() if k in now}}
        if merged != now:
            tree = sf.unflatten(merged)
            rows = {i: settled(f, read_row(f, tree.get(str(i)) or {})[0])
                    for i, f in enumerate(current.forms) if not f.wait and not f.seat.roll}
            self.placed += 1
            self.rebuilding()
            self.rebuild(rows)
        if lost:
            self.tell(("warn", "A choice came while your page was redrawing its forms, and the field it was made on"
                               " is not there any more: it was not applied. Please make it again."))


SEATS_BUSY_ESM = BUSY_JS + r"""
function render({ model, el }) {
  el.style.display = "none";
  const busy = () => klFlag("data-kl-rebuild", !!model.get("busy"));
  model.on("change:busy", busy);
  busy();  // a new drawing's forms are not busy: the rebuild that made them is over
  klWatchRunning();
  return () => model.off("change:busy", busy);
}

export default { render };
"""


class SeatsBusy(anywidget.AnyWidget):
    """The busy state of one drawing of the seats' forms (``views.sheet.live.BUSY_JS``): ``busy`` not empty while
    the kernel rebuilds them (they are disabled and dimmed; "Updating…" once it lasted 300 ms)."""

    _esm = SEATS_BUSY_ESM
    busy = traitlets.Unicode("").tag(sync=True)


def seats_html(cards: Sequence[Any], busy: Any) -> Html:
    """The seats' forms as the page lays them out, in the block the busy state disables, with ``busy`` (the
    build's ``SeatsBusy``) beside them."""
    inner = "".join(f"<div class='kl-seat'>{mo.as_html(c).text}</div>" for c in cards)
    return join([style(BUSY_CSS), Html(f"<div class='{SEATS_CLASS}'>{inner}</div>"),
                 h("div", marimo_html(busy), class_="kl-live", hidden=True) if busy is not None else None])


# ---- acts, once per press -----------------------------------------------------------------------


@dataclass(frozen=True)
class Act:
    """What a button does and what it was drawn for: ``kind`` (roll, withdraw, reroll), the proposal, a
    re-roll's reason, and the proposal's status and re-roll count when the button was drawn."""

    kind: str
    proposal: str
    reason: str = ""
    status: str = ""
    rerolls: int = 0
    drawn_at: float = 0.0
    """When the page made the button (``time.monotonic()``): a re-roll pressed sooner than ``REROLL_AFTER`` after
    it is a click meant for the button it replaced (Roll, pressed twice), and does nothing."""


REROLL_AFTER = 1.5
"""Seconds a re-roll button is on the page before a press of it counts. It appears where Roll was, once the roll is
drawn: the second and third clicks of Roll pressed three times landed on it and spent a Fame point."""


def new_clicks(values: Mapping[str, Any], taken: Mapping[str, int], build: str) -> dict[str, int]:
    """The buttons of build ``build`` (keys of a dictionary of click counters) pressed since the counts
    ``taken`` (by ``<build>/<key>``): ``{key: its count now}``. Merge the answer into ``taken`` with ``took``.

    >>> new_clicks({"a": 2, "b": 0, "c": 1}, {"x/a": 1, "x/c": 1}, "x")
    {'a': 2}
    """
    return {k: n for k, n in values.items() if isinstance(n, int) and n > int(taken.get(f"{build}/{k}", 0))}


def took(taken: Mapping[str, int], build: str, clicks: Mapping[str, int]) -> dict[str, int]:
    """``taken`` with ``clicks`` of build ``build`` taken (each count is taken once).

    >>> took({"x/a": 1}, "x", {"a": 2})
    {'x/a': 2}
    """
    return {**taken, **{f"{build}/{k}": n for k, n in clicks.items()}}


def counter(label: str, kind: Any = "neutral", tooltip: str = "", *, disabled: bool = False) -> Any:
    """A click counter button (its value counts the presses; ``new_clicks`` takes each new one once)."""
    return mo.ui.button(value=0, on_click=lambda n: n + 1, label=label, kind=kind, disabled=disabled,
                        tooltip=tooltip or None)


def declare_once(page: TablePage, index: int, row: Mapping[str, Any]) -> tuple[tbl.Proposal | None, str]:
    """Declare ``row`` from seat ``index``, unless this seat already has it declared and not rolled (a second
    press, a double click): then nothing is written. Returns the proposal (None when refused) and the
    words. Raises ``KingdomlogError`` when the table refuses the row."""
    seat = page.seats[index]
    camp = acting(page)
    full = tbl.full_row(seat, row)
    for p in tbl.mine(camp, page.viewer, page.turn):
        if p.seat == seat.id and p.status == "declared" and p.row == full:
            return p, f"{p.title} is declared already; press Roll when you are ready."
    try:
        p, t = tbl.declare(camp, page.viewer, seat.id, row)
    except (InputError, RuleError) as exc:
        raise in_words(exc, seen_names(camp, page.viewer)) from None
    odds_words = tbl.odds_text(t)
    if not odds_words:
        return p, f"{p.title}: declared. It rolls no dice: the GM resolves it as it is."
    return p, f"{p.title}: declared. {odds_words}. Press Roll when you are ready."


def seen_names(camp: Campaign, viewer: Viewer) -> Callable[[str, str], str]:
    """The ids ``viewer`` reads in words: a ``words.Namer`` of their own view of the state (a character by its
    name, only as their view holds it), else the ruleset's names."""
    try:
        return namer(camp.ruleset, camp.ruleset.redact(camp.state(), viewer))
    except KingdomlogError:
        return camp.ruleset.name_of


def in_words(exc: InputError | RuleError, name_of: Callable[[str, str], str]) -> KingdomlogError:
    """``exc`` (a refusal of what the player chose) with the ids it names said in words (``words.refusal_words``),
    of the same kind.

    >>> str(in_words(RuleError("a PC cannot perform tax_collection", rule="A75"), lambda i, k: i.replace("_", " ")))
    'a PC cannot perform tax collection (A75)'
    """
    said = refusal_words(str(exc), name_of)
    return RuleError(said) if isinstance(exc, RuleError) else InputError(said)


def run_act(page: TablePage, act: Act) -> str:
    """Do ``act`` if its proposal still stands as the button was drawn for; the words of what happened.

    Raises ``KingdomlogError`` when the table refuses it."""
    camp = acting(page)
    now = next((p for p in tbl.mine(camp, page.viewer, page.turn) if p.id == act.proposal), None)
    if now is None:
        raise InputError(f"no proposal {act.proposal!r} of yours this {page.unit}")
    if now.status != act.status or len(now.rerolls) != act.rerolls:
        return f"{now.title}: {status_words(now, page.unit)} (that press came after it moved on; nothing done)."
    if act.kind == "roll":
        p = tbl.roll(camp, page.viewer, act.proposal)
        return f"{p.title}: {tbl.said_once(p.outcome) or 'rolled'}."  # a battle's rounds: on its board
    if act.kind == "withdraw":
        p = tbl.withdraw(camp, page.viewer, act.proposal)
        return f"{p.title}: withdrawn."
    if act.kind == "reroll":
        if time.monotonic() - act.drawn_at < REROLL_AFTER:
            return (f"{now.title}: {status_words(now, page.unit)}. That press came with the one before it, so nothing"
                    " was rolled again; press Re-roll once more if you mean it.")
        p = tbl.reroll(camp, page.viewer, act.proposal, act.reason)
        return f"{p.title} rolled again: {p.outcome}."
    raise InputError(f"unknown act {act.kind!r}")


# ---- the proposals -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Listed:
    """The viewer's proposals as the page lists them, with the acts each offers (``listing``)."""

    proposals: tuple[tbl.Proposal, ...]
    acts: Mapping[str, Act] = field(default_factory=dict)
    labels: Mapping[str, tuple[str, str, str]] = field(default_factory=dict)
    """Act key → (button label, button kind, tooltip)."""

    @property
    def key(self) -> Hashable:
        """What the list shows: a new one only when a proposal moved (not on every line of the table)."""
        return tuple((p.id, p.status, len(p.rerolls), p.outcome, p.note, p.title) for p in self.proposals)

    @property
    def acts_key(self) -> Hashable:
        """What the page's act buttons are drawn from: their acts and labels, and whose proposals they are."""
        return (tuple(self.acts.items()), tuple(self.labels.items()), tuple((p.id, p.title) for p in self.proposals))


def listing(page: TablePage) -> Listed:
    """The viewer's proposals this turn and the acts each offers: Roll and Withdraw before the roll, a
    re-roll for each reason the rules give once rolled (not after the GM accepted it)."""
    camp = Campaign.open(page.folder)
    props = tuple(tbl.mine(camp, page.viewer, page.turn))
    acts: dict[str, Act] = {}
    labels: dict[str, tuple[str, str, str]] = {}
    now = time.monotonic()
    for p in props:
        drawn = {"proposal": p.id, "status": p.status, "rerolls": len(p.rerolls), "drawn_at": now}
        if p.status == "declared" and p.checks:
            acts[f"{p.id}/roll"] = Act("roll", **drawn)  # type: ignore[arg-type]
            labels[f"{p.id}/roll"] = ("Roll", "success", "the server draws the dice now; the table sees the roll")
        if p.status in ("declared", "returned") and not p.rolled:
            acts[f"{p.id}/withdraw"] = Act("withdraw", **drawn)  # type: ignore[arg-type]
            labels[f"{p.id}/withdraw"] = ("Withdraw", "neutral", "take it back (before its roll only)")
        if p.rolled and p.status in ("rolled", "returned"):
            for r in reroll_reasons(camp, page, p):
                acts[f"{p.id}/reroll/{r[0]}"] = Act("reroll", reason=r[0], **drawn)  # type: ignore[arg-type]
                labels[f"{p.id}/reroll/{r[0]}"] = (f"Re-roll ({r[1]})", "warn", r[2])
    return Listed(props, acts, labels)


def reroll_reasons(camp: Campaign, page: TablePage, p: tbl.Proposal) -> list[tuple[str, str, str]]:
    """The re-rolls the rules give ``p``'s first check: ``[(reason id, label, detail)]`` (pf2e: a Fame point)."""
    if not p.checks:
        return []
    key = sorted(p.checks)[0]
    view = camp.state(viewer=page.viewer)
    got = camp.ruleset.reroll_reasons(view, p.step, key, check_of(p.checks[key]))
    return [(r.id, r.label, r.detail) for r in got]


def status_words(p: tbl.Proposal, unit: str = "turn", *, board: bool = False) -> str:
    """Where a proposal stands, in words; ``board``: its battle is drawn below it (``proposal_board``), which says
    what its rounds did and its outcome, so they are not said here again.

    >>> p = tbl.Proposal("p1", 3, "ysolde", "s", "st", "activities", {}, title="Quell Unrest (Ruler)",
    ...                  checks={"a1": {"notation": "1d20", "kind": "pf2e", "modifier": 6, "dc": 16}})
    >>> status_words(p)
    'declared: not rolled yet'
    >>> status_words(tbl.Proposal("p2", 3, "ysolde", "s", "st", "activities", {}))
    'declared: it rolls no dice; the GM resolves it'
    >>> p.status, p.note = "returned", "not this month"
    >>> status_words(p)
    'sent back by the GM: not this month'
    >>> p.status, p.outcome = "rolled", "Round 1: Militia: Advance; Outcome: Militia: unhurt"
    >>> status_words(p, board=True)
    'rolled: the battle is drawn below'
    """
    if board and p.status in ("rolled", "accepted"):
        return f"{'rolled' if p.status == 'rolled' else 'accepted by the GM'}: the battle is drawn below"
    if p.status == "declared":
        return "declared: not rolled yet" if p.checks else "declared: it rolls no dice; the GM resolves it"
    if p.status == "rolled":
        return f"rolled: {p.outcome}" if p.outcome else "rolled"
    if p.status == "accepted":
        return f"accepted by the GM{': ' + p.outcome if p.outcome else ''}"
    if p.status == "returned":
        return f"sent back by the GM: {p.note}"
    return "withdrawn"


def check_html(p: tbl.Proposal) -> Html:
    """A proposal's check before its roll: the check in words and the odds of each degree (no face)."""
    if p.rolled or not p.checks:
        return EMPTY
    parts = []
    for key in sorted(p.checks):
        print_ = p.checks[key]
        spec = check_of(print_)
        parts.append(h("div", h("b", check_words(print_))))
        if spec is not None:
            try:
                parts.append(odds_html(odds(spec)))
            except (ValueError, KingdomlogError) as exc:
                parts.append(h("div", f"odds not available: {exc}", class_="kl-help"))
    return join(parts)


def proposal_html(p: tbl.Proposal, unit: str, *, board: bool = False) -> Html:
    """One proposal: its title, where it stands, its check and odds before the roll, its re-rolls. ``board``: its
    battle is drawn below it (``proposal_board``: each check with its chances and faces, what each round did, the
    outcome), so neither its faces, its check nor its words are said here again."""
    rerolled = [h("li", f"re-rolled ({reason}{': ' + note if note else ''}); it had rolled "
                       f"{', '.join(str(f) for f in before)}") for _k, reason, note, before in p.rerolls]
    keys = sorted(k for k in p.faces if k in p.checks) or sorted(p.faces)  # the checks' dice first: what decides
    faces = " · ".join(", ".join(str(f) for f in p.faces[k]) for k in keys)
    return h("div", h("b", p.title),
             h("div", h("small", "rolled "), faces, class_="kl-face") if p.rolled and not board else None,
             h("div", status_words(p, unit, board=board), class_="kl-status kl-outcome" if p.rolled else "kl-status"),
             None if board else check_html(p), h("ul", rerolled, class_="kl-help") if rerolled else None,
             class_=f"kl-prop {p.status}", data_proposal=p.id, data_status=p.status)


def act_head_html(p: tbl.Proposal) -> Html:
    """What the buttons beside it act on: the proposal's title (its card is in the live list above them)."""
    return h("span", h("b", p.title), ":", class_="kl-act-head", data_acts=p.id)


def feed_of(page: TablePage) -> Html:
    """The table's feed as this viewer may read it (newest first)."""
    lines = tbl.feed(Campaign.open(page.folder), page.viewer, page.turn)
    return feed_html(lines, page.names)


def head_html(page: TablePage) -> Html:
    """The top of the page: the CSS, who and when, a link to the player's report."""
    link = [" · ", h("a", "your kingdom's report", href=page.report)] if page.report else None
    seats = ", ".join(s.label for s in page.seats) or "none this " + page.unit
    return join([style(player.STYLE + CSS + FEED_STYLE.removeprefix("<style>").removesuffix("</style>")),
                 h("h1", f"{page.campaign}: {page.player}'s table", class_="kl-h1"),
                 h("p", f"{page.unit.capitalize()} {page.turn} · your seats: {seats}", link, class_="kl-help")])


def seat_head_html(seat: Seat) -> Html:
    """A seat's heading and help."""
    return join([h("h3", seat.label), h("div", seat.help, class_="kl-help") if seat.help else None])


def say(page: TablePage, text: str) -> None:
    """A line of talk from the page's player to the whole table (``app.table.say``)."""
    tbl.say(acting(page), page.viewer, text)


def page_token() -> str:
    """A fresh id for a build of the page's buttons (clicks are counted per build)."""
    return uuid.uuid4().hex[:10]


__all__ = [
    "CSS",
    "KEEP_BUILDS",
    "REROLL_AFTER",
    "SEATS_CLASS",
    "Act",
    "Listed",
    "SeatForm",
    "SeatInput",
    "SeatsBusy",
    "TablePage",
    "act_head_html",
    "acting",
    "after_declare",
    "check_html",
    "counter",
    "declare_once",
    "error_at",
    "feed_of",
    "head_html",
    "in_words",
    "listing",
    "mark",
    "month_waits",
    "moved_on",
    "new_clicks",
    "open_page",
    "page_token",
    "proposal_board",
    "proposal_html",
    "read_row",
    "reroll_reasons",
    "row_layout",
    "row_widgets",
    "run_act",
    "say",
    "seat_form",
    "seat_head_html",
    "seats_html",
    "settled",
    "status_words",
    "taken",
    "took",
    "waits",
]

