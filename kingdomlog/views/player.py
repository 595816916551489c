"""What one viewer may see of a campaign (design §7), as data, HTML fragments and one static HTML file.

Every value here comes through the viewer-filtered read paths: the state is
folded from the log and passed through the ruleset's ``redact``; events,
timeline and notes are filtered by visibility; the per-turn figures are the
redacted ``states`` rows. Nothing here writes. The served player notebook
(``notebooks/kingdom_view.py``) and ``kingdomlog share -o`` both use it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kingdomlog.app import Campaign
from kingdomlog.app.campaign import Witness
from kingdomlog.core.errors import InputError
from kingdomlog.core.events import RecordedEvent
from kingdomlog.core.fold import Batch, notes, timeline
from kingdomlog.core.ruleset import Breakdown
from kingdomlog.projections.sql import state_rows
from kingdomlog.views.html import STYLE, breakdown_items, clean, esc, key_values, recorded_items, scalar, table

ENV_CAMPAIGN = "KINGDOMLOG_CAMPAIGN"
ENV_VIEWER = "KINGDOMLOG_VIEWER"


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
    overview: dict[str, Any]
    collections: list[tuple[str, list[dict[str, Any]]]]
    batches: list[Batch]
    events: dict[str, list[RecordedEvent]]
    notes: list[dict[str, object]]
    per_turn: list[dict[str, Any]] = field(default_factory=list)
    chart_figures: tuple[str, ...] = ()
    head: Witness | None = None
    """The head of this viewer's log (its own numbering): the witness printed on the page."""


def _rows_of(value: Any) -> list[dict[str, Any]] | None:
    """A list/dict of records as table rows, else None."""
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [dict(v) for v in value]
    if isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
        return [{"id": k, **v} for k, v in value.items()]
    return None


def split_state(dump: Mapping[str, Any]) -> tuple[dict[str, Any], list[tuple[str, list[dict[str, Any]]]]]:
    """A state dump split into scalar-ish figures (overview) and record collections (settlements, hexes, ...).

    >>> split_state({"name": "x", "hexes": [{"id": "a1"}], "tags": ["t"]})
    ({'name': 'x', 'tags': ['t']}, [('hexes', [{'id': 'a1'}])])
    """
    overview: dict[str, Any] = {}
    collections: list[tuple[str, list[dict[str, Any]]]] = []
    for k, v in dump.items():
        rows = _rows_of(v)
        if rows is not None:
            collections.append((k, rows))
        else:
            overview[k] = v
    return overview, collections


def player_view(folder: Path, viewer: str) -> PlayerView:
    """Read ``folder`` as ``viewer`` (``gm``, ``public`` or a player/faction id)."""
    camp = Campaign.open(folder)
    rs = camp.ruleset
    state = camp.state(viewer=viewer)
    visible = camp.visible_events(viewer)  # numbered as this viewer's own log: hidden events leave no trace
    head = camp.head_for(viewer)
    by_commit: dict[str, list[RecordedEvent]] = {}
    for ev in visible:
        by_commit.setdefault(ev.commit_id, []).append(ev)
    overview, collections = split_state(state.model_dump(mode="json"))
    per_turn = [{k: v for k, v in r.items() if k != "state_json"} for r in state_rows(camp, viewer)]
    live_turns = [r["turn"] for r in per_turn]
    return PlayerView(
        campaign=camp.id, name=camp.config.name, ruleset=rs.name, turn_unit=rs.turn_unit,
        viewer=viewer, last_turn=max(live_turns) if live_turns else None, rendered=rs.render(state),
        summary=rs.summary(state), breakdowns=list(rs.explain(state)), overview=overview,
        collections=collections, batches=timeline(visible, viewer), events=by_commit,
        notes=notes(visible, viewer), per_turn=per_turn, chart_figures=rs.chart_figures, head=head,
    )


# ---- HTML fragments ----------------------------------------------------------------------------


def title_html(v: PlayerView) -> str:
    when = "not founded yet" if v.last_turn is None else (
        "founding" if v.last_turn == 0 else f"after {esc(v.turn_unit)} {v.last_turn}")
    head = (f" · log head: seq {v.head.seq}, <code class='kl-head'>{esc(v.head.short)}</code>"
            if v.head is not None else "")
    return (f"<h1 class='kl-h1'>{esc(v.name)}</h1><p>{esc(v.ruleset)} · {when} · view for <b>{esc(v.viewer)}</b>"
            f"{head}</p><p><code>{esc(v.rendered)}</code></p>")


def head_html(v: PlayerView) -> str:
    """The witness of what this page shows: the head of the viewer's log, and how to check it later."""
    if v.head is None:
        return ""
    return (f"<p class='kl-head'>Log head of this view: <code>{esc(v.head.text)}</code>. Keep it: the GM's"
            f" <code>kingdomlog verify --expect-head {esc(v.head.short)}</code> shows later whether anything shown"
            " here was removed from the log.</p>")


def overview_html(v: PlayerView) -> str:
    """Main figures with every derived number explained, then the other scalar fields of the state."""
    rest = {k: val for k, val in v.overview.items() if k not in v.summary}
    return (
        "<h2 class='kl-h2'>Kingdom overview</h2>" + key_values(v.summary)
        + "<h3 class='kl-h3'>How each number is made</h3>" + breakdown_items(v.breakdowns)
        + ("<details><summary>Everything else</summary>" + key_values(rest) + "</details>" if rest else "")
    )


def collections_html(v: PlayerView) -> str:
    """One table per collection of records in the state (settlements, hexes, leaders, ...)."""
    if not v.collections:
        return ""
    parts = ["<h2 class='kl-h2'>Holdings</h2>"]
    for name, rows in v.collections:
        parts.append(f"<h3 class='kl-h3'>{esc(name.replace('_', ' ').capitalize())} ({len(rows)})</h3>" + table(rows))
    return "".join(parts)


def batch_label(v: PlayerView, b: Batch) -> str:
    """``season 2 · seq 7–9`` (founding for turn 0; notes and undo named)."""
    evs = v.events.get(b.commit_id, [])
    kinds = {e.type for e in evs}
    turns = ", ".join("founding" if t == 0 else f"{v.turn_unit} {t}" for t in b.turns) or "?"
    if kinds == {"core.note_added"}:
        what = "note"
    elif kinds == {"core.turn_retracted"}:
        what = "undo"
    elif kinds == {"core.campaign_configured"}:
        what = "campaign created"
    else:
        what = "turn"
    shown = [e.seq for e in evs] or [b.first_seq]  # only seqs the viewer sees (hidden events leave no gap hint)
    seqs = f"seq {shown[0]}" if len(shown) == 1 else f"seq {shown[0]}–{shown[-1]}"
    return f"{turns} · {what} · {seqs}"


def timeline_html(v: PlayerView, *, newest_first: bool = True) -> str:
    """Every committed batch the viewer may see; retracted turns struck through; notes inline."""
    items = []
    batches = list(reversed(v.batches)) if newest_first else list(v.batches)
    for b in batches:
        evs = v.events.get(b.commit_id, [])
        cls = ' class="kl-retracted"' if b.retracted else ""
        by = f" (retracted by seq {b.retracted_by})" if b.retracted else ""
        note_html = "".join(
            f'<blockquote><b>{esc(n.get("title") or "Note")}</b>: {esc(n["text"])}</blockquote>' for n in b.notes)
        body = recorded_items(e for e in evs if e.type != "core.note_added") if any(
            e.type != "core.note_added" for e in evs) else ""
        items.append(
            f'<li{cls} data-commit="{esc(b.commit_id[:8])}"><details{" open" if not b.retracted else ""}>'
            f"<summary><b>{esc(batch_label(v, b))}</b>{esc(by)} · {esc(b.recorded_at[:16].replace('T', ' '))}"
            f"</summary>{note_html}{body}</details></li>"
        )
    return "<h2 class='kl-h2'>Timeline</h2><ol class='kl-timeline'>" + "".join(items) + "</ol>"


def per_turn_html(v: PlayerView) -> str:
    """The main figures of every turn as a table."""
    cols = ["turn", *[c for c in (v.per_turn[0] if v.per_turn else {}) if c not in
                      ("campaign", "ruleset", "turn", "last_seq")]]
    return "<h3 class='kl-h3'>Figures by turn</h3>" + table(v.per_turn, cols)


def render_static(folder: Path, viewer: str, *, generated_at: datetime | None = None) -> str:
    """One self-contained HTML page of the view for ``viewer``: inline CSS and SVG, no script, no URL."""
    from kingdomlog.views.charts import chart_svg, figures_chart

    v = player_view(folder, viewer)
    chart = figures_chart(v.per_turn, figures=v.chart_figures, turn_unit=v.turn_unit)
    charts = "" if chart is None else f"<h2 class='kl-h2'>Charts</h2><div class='kl-chart'>{chart_svg(chart)}</div>"
    when = (generated_at or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    return clean(  # a last guard: no NUL or other forbidden character reaches the page, whatever a builder did
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>{esc(v.name)} — view for {esc(v.viewer)}</title>"
        f"<style>{STYLE}{PAGE_STYLE}</style></head><body>"
        f"{title_html(v)}{overview_html(v)}{charts}{per_turn_html(v)}{collections_html(v)}{timeline_html(v)}"
        f"<footer><p>Written by kingdomlog on {esc(when)} from the campaign log, as {esc(scalar(v.viewer))}"
        f" may see it.</p>{head_html(v)}</footer></body></html>\n"
    )


PAGE_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 70em; margin: 1em auto; padding: 0 1em; color: #222; }
h1 { margin-bottom: .2em; } h2 { border-bottom: 1px solid #ddd; margin-top: 1.4em; }
blockquote { margin: .3em 0 .3em 1em; padding-left: .6em; border-left: 3px solid #ccc; }
.kl-chart svg { max-width: 100%; height: auto; }
footer { color: #777; font-size: .85em; margin-top: 2em; }
"""


def figure_names(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The chartable figures of ``rows`` (for the notebook's figure picker)."""
    from kingdomlog.views.charts import numeric_figures

    return numeric_figures(rows)
