"""What one viewer may see of a campaign (design §7): a kingdom in words, its map, its chronicle, its charts.

Every value here comes through the viewer-filtered read paths: states are folded from
the log and passed through the ruleset's ``redact``; the chronicle narrates only events
the viewer may see (``views.player.chronicle``); maps come from the ruleset's ``map`` hook for
that viewer (``views.player.maps`` draws them). Nothing here writes. The served player notebook
(``notebooks/kingdom_view.py``), ``kingdomlog share -o`` and ``kingdomlog report`` use it.

A player page holds no raw event, no JSON and no ``snake_case`` label: figures carry the
labels of the ruleset's ``portrait`` (or a readable form of the column name).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kingdomlog.app import Campaign
from kingdomlog.app.campaign import Witness
from kingdomlog.core.errors import CampaignNotFoundError, ConflictError, InputError, KingdomlogError, StoreError
from kingdomlog.core.events import RecordedEvent
from kingdomlog.core.fold import Batch, notes, timeline
from kingdomlog.core.mapdata import MapData, SettlementGrid
from kingdomlog.core.portrait import Figure, Portrait
from kingdomlog.core.ruleset import Breakdown, Ruleset, State
from kingdomlog.core.viewers import Viewer
from kingdomlog.views.html import EMPTY, Html, clean, document, h, join, scalar
from kingdomlog.views.html import STYLE as BASE_STYLE
from kingdomlog.views.player.charts import (
    CHART_STYLE,
    chart_grid,
    line_chart_svg,
    moving_figures,
    numeric_figures,
    series,
)
from kingdomlog.views.player.chronicle import History, TurnStory, humanize, read_history, turn_title
from kingdomlog.views.player.maps import MAP_STYLE, map_html, settlement_html, turn_picker_html
from kingdomlog.views.words import headed, said_breakdowns

ENV_CAMPAIGN = "KINGDOMLOG_CAMPAIGN"
ENV_VIEWER = "KINGDOMLOG_VIEWER"


LOG_NEEDS_THE_GM = ("The campaign's log cannot be read as it stands, so nothing is shown or written; the GM has been"
                    " told what to look at (kingdomlog verify).")
"""What a player's page says of a fault of the log (the GM's own tools say which batch and seq)."""
RACED = "Someone wrote to the campaign at the same moment; nothing of yours was written. Try again."
"""What a player's page says of a write that lost a race."""


def said_to_player(exc: KingdomlogError) -> str:
    """What a page a player (or the public) reads says of a refusal.

    A refusal of what the player typed or may know is said as it is. A fault of the store is not: its
    text names seqs, batch files and head hashes of the whole log, which tell how many events the
    player may not see exist (a corruption, a missing batch, a lost race for the log's next seq).

    >>> said_to_player(InputError("choose a hex"))
    'choose a hex'
    >>> said_to_player(ConflictError(40, 41)) == RACED
    True
    """
    if isinstance(exc, ConflictError):
        return RACED
    if isinstance(exc, StoreError) and not isinstance(exc, CampaignNotFoundError):
        return LOG_NEEDS_THE_GM
    return str(exc)


def view_args(args: Mapping[str, Any], env: Mapping[str, str] | None = None) -> tuple[Path, str]:
    """Campaign folder and viewer from ``--campaign``/``--viewer`` (``mo.cli_args()``) or the environment.

    The viewer defaults to ``public``: a player view never falls back to the GM's.

    >>> view_args({"campaign": "c", "viewer": "alice"}, env={})
    (PosixPath('c'), 'alice')
    >>> view_args({"campaign": "c"}, env={})
    (PosixPath('c'), 'public')
    """
    environ = os.environ if env is None else env
    folder = args.get("campaign") or environ.get(ENV_CAMPAIGN)
    if not folder or not isinstance(folder, str):
        raise InputError("no campaign folder: run `kingdomlog share DIR --as VIEWER`, or pass `-- --campaign DIR"
                         f" --viewer VIEWER`, or set {ENV_CAMPAIGN}")
    viewer = args.get("viewer") or environ.get(ENV_VIEWER) or "public"
    return Path(folder).expanduser(), str(viewer)


@dataclass
class PlayerView:
    """A campaign as ``viewer`` may see it."""

    campaign: str
    name: str
    ruleset: str
    turn_unit: str
    viewer: str
    last_turn: int | None
    rendered: str
    summary: dict[str, Any]
    breakdowns: list[Breakdown]
    batches: list[Batch]
    events: dict[str, list[RecordedEvent]]
    notes: list[dict[str, object]]
    per_turn: list[dict[str, Any]] = field(default_factory=list)
    chart_figures: tuple[str, ...] = ()
    history: History | None = None
    portrait: Portrait | None = None
    maps: list[tuple[int, MapData]] = field(default_factory=list)
    """The viewer's map at the end of every turn (empty when the ruleset draws none)."""
    labels: dict[str, str] = field(default_factory=dict)
    """Label of each ``summary`` column (from the portrait; a readable form of the name otherwise)."""
    ruleset_obj: Ruleset | None = None
    viewer_obj: Viewer | None = None
    head: Witness | None = None
    """The head of this viewer's log (its own numbering): the witness printed on the page."""
    viewer_name: str = ""
    """Who the viewer is, in words ("the GM", "everyone", "Duke Fabian"; ``Campaign.viewer_name``)."""

    @property
    def who(self) -> str:
        """The viewer in words, as "as ... sees it" says it (its id only when no name was found)."""
        return self.viewer_name or self.viewer

    def label(self, key: str) -> str:
        return self.labels.get(key) or humanize(key)

    @property
    def map(self) -> MapData | None:
        """The latest map."""
        return self.maps[-1][1] if self.maps else None

    def turn_name(self, turn: int) -> str:
        return turn_title(self.turn_unit, turn)


def generic_portrait(rs: Ruleset, state: State, previous: State | None, name: str) -> Portrait:
    """A portrait from the ``summary`` columns, for a ruleset without a ``portrait`` hook."""
    now = rs.summary(state)
    before = rs.summary(previous) if previous is not None else {}
    keys = list(rs.chart_figures) or [k for k, v in now.items() if isinstance(v, (int, float))
                                      and not isinstance(v, bool)]
    figs = tuple(Figure(k, humanize(k), now.get(k), before.get(k), better=rs.better(k)) for k in keys if k in now)
    return Portrait(headline=f"{name}.", figures=figs)


def _map_for(rs: Ruleset, hist: History, turn: int, viewer: Viewer) -> MapData | None:
    """The map of ``turn`` for ``viewer``: nothing that only an event hidden from them put there.

    Regions that first appeared through a hidden event are left out; hexes and settlement grids are drawn as
    the visible events alone leave them (withheld when those do not fold without the hidden ones).
    """
    full = rs.map(hist.states[turn], viewer)
    if full is None or viewer.is_gm or not hist.hidden_live:
        return full
    if hist.hidden_regions:
        gone = hist.hidden_regions
        full = replace(full, regions=tuple(r for r in full.regions if r.id not in gone),
                       links=tuple(x for x in full.links if x.a not in gone and x.b not in gone))
    if not full.hexes and not full.settlements:
        return full
    seen_states, failed = hist.seen()
    if failed or seen_states is None:
        return replace(full, hexes=(), settlements=(), caption="Part of this map is not shown in this view.")
    seen_turns = [t for t in sorted(seen_states) if t <= turn]
    seen = rs.map(seen_states[seen_turns[-1]], viewer) if seen_turns else None
    if seen is None:
        return replace(full, hexes=(), settlements=())
    ids = {h.id for h in full.hexes}
    grids = {g.id for g in full.settlements}
    return replace(full, hexes=tuple(h for h in seen.hexes if h.id in ids),
                   settlements=tuple(g for g in seen.settlements if g.id in grids))


LETTERS = "Letters"


def _tell_letters(camp: Campaign, v: Viewer, hist: History, state: State) -> None:
    """The letters ``v`` may read (play by post: ``kingdomlog message``), each under its turn's "Letters"."""
    if v.is_gm:
        return
    from kingdomlog.app.pbp import messages

    def who(fid: str) -> str:
        return "us" if fid == v.id else camp.player_name(fid, state) if fid in camp.players() else \
            fid.replace("_", " ").replace("-", " ").title()

    for m in messages(camp, v):
        st = hist.story(m.turn)
        if st is None:
            st = TurnStory(m.turn, turn_title(camp.ruleset.turn_unit, m.turn))
            hist.stories = sorted([*hist.stories, st], key=lambda x: x.turn)
        to = ("to " + ", ".join(who(t) for t in m.to)) if m.to else "an open letter"
        subject = f"“{m.subject}”: " if m.subject else ""
        text = m.text.strip().rstrip(".")
        st.sections.setdefault(LETTERS, []).append(f"From {who(m.sender)}, {to}. {subject}{text}.")


def player_view(folder: Path, viewer: str) -> PlayerView:
    """Read ``folder`` as ``viewer`` (``gm``, ``public`` or a player/faction id)."""
    camp = Campaign.open(folder)
    rs = camp.ruleset
    v = camp.viewer(viewer)
    events = camp.events()
    state = camp.state(viewer=v)
    visible = camp.visible_events(v)  # numbered as this viewer's own log: hidden events leave no trace
    head = camp.head_for(v)
    by_commit: dict[str, list[RecordedEvent]] = {}
    for ev in visible:
        by_commit.setdefault(ev.commit_id, []).append(ev)
    hist = read_history(rs, camp.context, events, v)
    shown = hist.states
    breakdowns_withheld = False
    if hist.hidden_live and not v.is_gm and not rs.redacts_hidden_events:
        # what a GM-only event put in the state (an army, a hex) stays off the page: show the state the
        # visible events fold to; when they do not fold alone, the numbers stay but their breakdowns go
        seen, failed = hist.seen()
        if seen is not None and not failed and seen:
            first = rs.redact(rs.initial_state(camp.context), v)
            shown = {t: seen[max(k for k in seen if k <= t)] if any(k <= t for k in seen) else first
                     for t in hist.turns}
            if hist.turns:
                state = shown[hist.turns[-1]]
        else:
            breakdowns_withheld = True
    _tell_letters(camp, v, hist, state)
    per_turn = [{"turn": t, **rs.summary(shown[t])} for t in hist.turns]
    last = hist.turns[-1] if hist.turns else None
    earlier = [t for t in hist.turns if last is not None and t < last]
    prev = shown[earlier[-1]] if earlier else None
    portrait = rs.portrait(state, prev, v) or generic_portrait(rs, state, prev, camp.config.name)
    labels = {f.key: f.label for f in portrait.figures}
    maps: list[tuple[int, MapData]] = []
    for t in hist.turns:
        m = _map_for(rs, hist, t, v)
        if m is not None:
            maps.append((t, m))
    return PlayerView(
        campaign=camp.id, name=camp.config.name, ruleset=rs.name, turn_unit=rs.turn_unit,
        viewer=v.id, last_turn=last, rendered=rs.render(state),
        summary=rs.summary(state),
        breakdowns=[] if breakdowns_withheld else said_breakdowns(rs, state, rs.explain(state)),
        batches=timeline(visible, v),
        events=by_commit, notes=notes(visible, v), per_turn=per_turn, chart_figures=rs.chart_figures,
        history=hist, portrait=portrait, maps=maps, labels=labels, ruleset_obj=rs, viewer_obj=v, head=head,
        viewer_name=camp.viewer_name(v, state),
    )


# ---- HTML fragments ----------------------------------------------------------------------------


def title_html(v: PlayerView) -> Html:
    when = "not founded yet" if v.last_turn is None else (
        "at its founding" if v.last_turn == 0 else f"after {v.turn_unit} {v.last_turn}")
    return h("header", h("h1", v.name, class_="kl-h1"),
             h("p", f"{v.ruleset} · {when} · as {v.who} sees it", class_="kl-sub"), class_="kl-top")


def head_html(v: PlayerView) -> Html:
    """The witness of what this page shows: the head of the viewer's log, and how to check it later."""
    if v.head is None:
        return EMPTY
    return h("p", "Log head of this view: ", h("code", v.head.text), ". Keep it: the GM's ",
             h("code", f"kingdomlog verify --expect-head {v.head.short}"),
             " shows later whether anything shown here was removed from the log.", class_="kl-head")


def _value(f: Figure) -> str:
    if f.value is None:
        return "unknown"
    if isinstance(f.value, bool):
        return "yes" if f.value else "no"
    if isinstance(f.value, (int, float)):
        return f"{f.value:,g}" + (f" {f.unit}" if f.unit else "")
    return str(f.value)


def change_sentence(figures: Sequence[Figure], since: str) -> str:
    """``Since month 12: Unrest rose by 2 to 13; Treasury fell by 3 to 7 BP.`` (or that nothing moved).

    >>> change_sentence([Figure("u", "Unrest", 13, 11, better="down"), Figure("g", "Gold", 4, 4)], "month 12")
    'Since month 12: Unrest rose by 2 to 13.'
    """
    parts = []
    for f in figures:
        d = f.change
        if d is None or d == 0:
            continue
        parts.append(f"{f.label} {'rose' if d > 0 else 'fell'} by {abs(d):,g} to {_value(f)}")
    if not parts:
        return f"Nothing in the main figures changed since {since}."
    return f"Since {since}: " + "; ".join(parts) + "."


def summary_html(v: PlayerView) -> Html:
    """The kingdom in words: the portrait's headline and sentences, what changed since the turn before, and the
    main figures as cards with their change."""
    p = v.portrait
    if p is None:
        return EMPTY
    hist = v.history
    prev_turn = None
    if hist and v.last_turn is not None:
        earlier = [t for t in hist.turns if t < v.last_turn]
        prev_turn = earlier[-1] if earlier else None
    text = [h("p", p.headline, class_="kl-lead"), *(h("p", s) for s in p.sentences)]
    if prev_turn is not None and p.figures:
        since = v.turn_name(prev_turn).lower() if prev_turn else "the founding"
        text.append(h("p", change_sentence(p.figures, since), class_="kl-change"))
    cards = []
    for f in p.figures:
        d = f.change
        badge = None
        if d is not None and d != 0:
            badge = h("span", f"{'▲' if d > 0 else '▼'} {abs(d):,g}", class_=f"kl-delta kl-{f.trend}",
                      title=f"change since the {v.turn_unit} before")
        cards.append(h("div", h("div", f.label, class_="kl-card-label"),
                       h("div", _value(f), badge, class_="kl-card-value"), class_="kl-card"))
    for sec in p.sections:
        text += [h("h3", sec.title, class_="kl-h3"), h("ul", (h("li", x) for x in sec.lines))]
    grid = h("div", cards, class_="kl-cards") if cards else None
    return h("section", h("h2", "The kingdom", class_="kl-h2"), text, grid, class_="kl-summary", id="summary")


def overview_html(v: PlayerView) -> Html:
    """The summary in words with its figures (the orders sheet shows this above a player's orders)."""
    return summary_html(v)


def map_section_html(v: PlayerView) -> Html:
    """The viewer's map with a turn picker over every turn (CSS only: works in the offline file)."""
    if not v.maps:
        return EMPTY
    frames = [(t, v.turn_name(t), map_html(m)) for t, m in v.maps]
    return h("section", h("h2", "The map", class_="kl-h2"),
             turn_picker_html(frames, name="map", legend=v.turn_unit.capitalize()), class_="kl-map-section", id="map")


def _lines_html(lines: Sequence[str]) -> Html:
    shown, more = lines[:8], lines[8:]
    return join([h("ul", (h("li", x) for x in shown), class_="kl-story") if shown else None,
                 h("details", h("summary", f"{len(more)} more"), h("ul", (h("li", x) for x in more), class_="kl-story"))
                 if more else None])


def story_html(s: TurnStory, *, open_: bool = True) -> Html:
    body: list[Html] = []
    for title, lines in s.sections.items():
        body += [h("h4", title, class_="kl-h4"), _lines_html(lines)]
    if s.lines:
        if s.sections:
            body.append(h("h4", "What happened", class_="kl-h4"))
        body.append(_lines_html(s.lines))
    body += [h("blockquote", h("b", title or "Note"), ": ", text) for title, text in s.notes]
    body += [h("p", u, class_="kl-undone") for u in s.undone]
    if not body:
        body.append(h("p", "A quiet time.", class_="kl-muted"))
    return h("details", h("summary", h("b", s.title)), body, class_="kl-turn", open=open_)


def chronicle_html(v: PlayerView, *, open_turns: int = 3) -> Html:
    """The chronicle, newest turn first; the latest ``open_turns`` turns open."""
    stories = [s for s in (v.history.stories if v.history else []) if not s.empty]
    items = [story_html(s, open_=i < open_turns) for i, s in enumerate(reversed(stories))]
    return h("section", h("h2", "Chronicle", class_="kl-h2"),
             items or h("p", "Nothing has happened yet.", class_="kl-muted"), class_="kl-chronicle", id="chronicle")


def settlement_cards(grids: Sequence[SettlementGrid]) -> Html:
    """Each settlement (district) as a card with its grid."""
    return h("div", (h("div", settlement_html(g), class_="kl-settlement") for g in grids), class_="kl-settlements")


def settlements_html(v: PlayerView) -> Html:
    """Each settlement (district) as a card with its grid."""
    m = v.map
    if m is None or not m.settlements:
        return EMPTY
    return h("section", h("h2", "Settlements", class_="kl-h2"), settlement_cards(m.settlements), id="settlements")


def leaders_html(v: PlayerView) -> Html:
    p = v.portrait
    if p is None or not p.leaders:
        return EMPTY
    items = (h("li", h("span", x.role, class_="kl-role"), " ", h("b", x.name),
               [" ", h("span", f"({x.note})", class_="kl-muted")] if x.note else None) for x in p.leaders)
    return h("section", h("h2", "Leaders", class_="kl-h2"), h("ul", items, class_="kl-leaders"), id="leaders")


def charts_html(v: PlayerView) -> Html:
    """A small chart for each figure that moved over the turns (flat ones left out)."""
    keys = moving_figures(v.per_turn, v.chart_figures)
    if not keys or len(v.per_turn) < 2:
        return EMPTY
    units = {f.key: f.unit for f in (v.portrait.figures if v.portrait else ())}
    charts = (line_chart_svg(v.label(k), series(v.per_turn, k), turn_unit=v.turn_unit, unit=units.get(k, ""))
              for k in keys)
    return h("section", h("h2", "How the kingdom has changed", class_="kl-h2"), chart_grid(charts), id="charts")


def readable(text: str) -> str:
    """Words joined by underscores read as words (a ruleset's breakdown labels shown to a player).

    >>> readable("royal_assassin Jaethal +3, success=True")
    'royal assassin Jaethal +3, success: yes'
    """
    text = re.sub(r"(?<=[A-Za-z])_(?=[A-Za-z])", " ", text)
    return text.replace("=True", ": yes").replace("=False", ": no")


def numbers_html(v: PlayerView) -> Html:
    """How each derived number is made, folded away."""
    if not v.breakdowns:
        return EMPTY
    items = []
    for b in v.breakdowns:
        terms = ", ".join(f"{readable(t.label)} {t.value:+g}" for t in b.terms)
        items.append(h("li", h("b", headed(readable(b.name))), f" {b.total:g}", f": {terms}" if terms else None,
                       [" ", h("span", readable(b.note), class_="kl-muted")] if b.note else None))
    return h("section", h("details", h("summary", h("b", "How each number is made")),
                          h("ul", items, class_="kl-breakdowns")), id="numbers")


def page_body(v: PlayerView) -> Html:
    """Every section of the player page, in reading order."""
    return join([title_html(v), summary_html(v), map_section_html(v), chronicle_html(v), settlements_html(v),
                 leaders_html(v), charts_html(v), numbers_html(v)])


def render_static(folder: Path, viewer: str, *, generated_at: datetime | None = None) -> str:
    """One self-contained HTML page of the view for ``viewer``: inline CSS and SVG, no script, no URL."""
    v = player_view(folder, viewer)
    when = (generated_at or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    footer = h("footer", h("p", f"Written by kingdomlog on {when} from the campaign log, as {scalar(v.who)}"
                                " may see it."), head_html(v))
    # a last guard: no NUL or other forbidden character reaches the page, whatever a builder did
    return clean(document(f"{v.name} — view for {v.who}", PAGE_CSS, page_body(v), footer))


VIEW_STYLE = """
.kl-top { margin-bottom: .6em; }
.kl-sub { color: #555; margin: 0; }
.kl-lead { font-size: 1.12em; }
.kl-change { background: #f5f2fb; border-left: 4px solid #3b2f63; padding: .4em .7em; }
.kl-cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(8.5em, 1fr)); gap: .5em; margin: .6em 0; }
.kl-card { border: 1px solid #ddd; border-radius: .5em; padding: .45em .6em; background: #fff; }
.kl-card-label { font-size: .85em; color: #555; }
.kl-card-value { font-size: 1.25em; font-weight: 650; }
.kl-delta { font-size: .7em; margin-left: .35em; font-weight: 600; white-space: nowrap; }
.kl-better { color: #1a7f37; } .kl-worse { color: #c0392b; } .kl-changed { color: #555; }
.kl-turn { border: 1px solid #e2e2e2; border-radius: .5em; padding: .3em .7em; margin: .4em 0; background: #fff; }
.kl-turn > summary { cursor: pointer; padding: .2em 0; }
.kl-story { margin: .3em 0; padding-left: 1.2em; }
.kl-story li { margin: .15em 0; }
.kl-undone { color: #8a5a00; font-style: italic; }
.kl-h4 { font-size: 1em; margin: .5em 0 .1em; color: #3b2f63; }
.kl-settlements { display: grid; grid-template-columns: repeat(auto-fill, minmax(16em, 1fr)); gap: .8em; }
.kl-settlement { border: 1px solid #ddd; border-radius: .5em; padding: .5em; background: #fff; }
.kl-leaders { list-style: none; padding: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(14em, 1fr));
  gap: .2em .8em; }
.kl-role { color: #555; font-size: .9em; display: block; }
.kl-breakdowns li { margin: .2em 0; }
"""

PAGE_STYLE = """
* { box-sizing: border-box; }
body { font-family: system-ui, sans-serif; margin: 0; color: #222; background: #faf9f6; line-height: 1.45;
  overflow-wrap: anywhere; }
main { max-width: 62em; margin: 0 auto; padding: .6em 1em 2em; }
h1 { margin-bottom: .1em; } h2 { border-bottom: 1px solid #ddd; margin-top: 1.4em; }
blockquote { margin: .3em 0 .3em 1em; padding-left: .6em; border-left: 3px solid #ccc; }
footer { color: #777; font-size: .85em; margin-top: 2em; }
"""

STYLE = STYLE_ALL = BASE_STYLE + MAP_STYLE + CHART_STYLE + VIEW_STYLE
"""Every CSS rule a player view fragment needs (the notebook and the orders sheet inline it once)."""
PAGE_CSS = STYLE_ALL + PAGE_STYLE


def figure_names(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The chartable figures of ``rows`` (for the notebook's figure picker)."""
    return numeric_figures(rows)
