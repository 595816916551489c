"""The historian notebook's library: the catalog of a campaigns root and example queries (design §9).

The example queries are built from what the catalog holds, so they run on any
mix of rulesets: a figure missing from ``states`` falls back to another, and the
event-based queries read payload fields by name (``activity``, ``degree``,
``delta``, ``cause``) from whichever ruleset's events carry them, skipping
retracted batches. Every query goes through ``SafeConsole`` (read-only): the notebook's cells
call ``run``, never the DuckDB connection itself.

Its charts stay altair (Vega-Lite), unlike every page (``views.player.charts`` draws those as inline
SVG): the historian notebook is the one place for exploring, live in marimo, the result of any query,
so its charts take whatever columns a query returns, put many campaigns on one chart (a colour each)
or draw bars, and answer the pointer (tooltips, zoom); nothing of it is a page a player is given,
a file written or HTML built by hand.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import altair as alt
import pyarrow as pa

from kingdomlog.core.errors import KingdomlogError
from kingdomlog.projections.sql import SafeConsole
from kingdomlog.views.html import h

ENV_ROOT = "KINGDOMLOG_ROOT"

SUCCESS_DEGREES = ("success", "critical_success")


def root_arg(args: Mapping[str, Any], env: Mapping[str, str] | None = None) -> Path:
    """The campaigns root from ``--root`` (``mo.cli_args()``), ``$KINGDOMLOG_ROOT``, else ``campaigns``.

    >>> root_arg({"root": "/data/logs"}, env={})
    PosixPath('/data/logs')
    >>> root_arg({}, env={})
    PosixPath('campaigns')
    """
    environ = os.environ if env is None else env
    raw = args.get("root") or environ.get(ENV_ROOT) or "campaigns"
    return Path(str(raw)).expanduser()


def columns(console: SafeConsole, table: str) -> list[str]:
    """The column names of ``table`` in the catalog (empty if it does not exist)."""
    try:
        res = console.query(f"DESCRIBE {table}")
    except KingdomlogError:
        return []
    return [str(r[0]) for r in res.rows]


def numeric_state_columns(console: SafeConsole) -> list[str]:
    """Numeric figure columns of ``states`` (the rulesets' ``summary()`` columns)."""
    try:
        res = console.query("DESCRIBE states")
    except KingdomlogError:
        return []
    skip = {"turn", "last_seq"}
    numeric = ("INT", "BIGINT", "DOUBLE", "FLOAT", "DECIMAL", "HUGEINT", "SMALLINT", "TINYINT", "UBIGINT")
    return [str(r[0]) for r in res.rows if str(r[0]) not in skip and str(r[1]).upper().startswith(numeric)]


def _has_values(console: SafeConsole, column: str) -> bool:
    """Whether any campaign has a value in ``states.column`` (rulesets add columns others leave NULL)."""
    try:
        return bool(console.query(f'SELECT count("{column}") FROM states').rows[0][0])
    except KingdomlogError:
        return False


@dataclass(frozen=True)
class Example:
    """One example query: a title, what it shows, and its SQL."""

    key: str
    title: str
    about: str
    sql: str


def figure_by_turn(console: SafeConsole, preferred: str = "unrest") -> Example:
    """``preferred`` (unrest) by turn across campaigns; another numeric figure if no ruleset has it."""
    cols = [c for c in numeric_state_columns(console) if _has_values(console, c)]
    figure = preferred if preferred in cols else (cols[0] if cols else None)
    if figure is None:
        sql = "SELECT campaign, turn, last_seq AS value FROM states ORDER BY campaign, turn"
        about = "No ruleset in this root reports a numeric figure; showing each turn's last seq."
        return Example("figure", "Turns by campaign", about, sql)
    about = "" if figure == preferred else f"No campaign here reports {preferred!r}; showing {figure!r} instead."
    sql = (f'SELECT campaign, turn, "{figure}" AS value FROM states WHERE "{figure}" IS NOT NULL'
           " ORDER BY campaign, turn")
    return Example("figure", f"{figure.replace('_', ' ').capitalize()} by turn across campaigns", about, sql)


LIVE_EVENTS = "events e JOIN turns t ON t.campaign = e.campaign AND t.commit_id = e.commit_id AND NOT t.retracted"
WITH_RULESET = " JOIN campaigns c ON c.campaign = e.campaign"
"""The examples name each row's ruleset, so its ids can be said in that ruleset's words (``in_words``)."""


def rp_by_activity() -> Example:
    """Resource points spent per cause/activity (negative RP changes), over live (not retracted) turns."""
    sql = (
        "SELECT e.campaign, c.ruleset, replace(json_extract_string(e.payload, '$.cause'), ' ', '-') AS activity,"
        " -sum(CAST(json_extract(e.payload, '$.delta') AS BIGINT)) AS rp_spent, count(*) AS times"
        f" FROM {LIVE_EVENTS}{WITH_RULESET}"
        " WHERE e.type LIKE '%.rp_changed' AND CAST(json_extract(e.payload, '$.delta') AS BIGINT) < 0"
        " GROUP BY ALL ORDER BY rp_spent DESC, activity"
    )
    return Example("rp", "RP spent by activity", "From every ruleset's `*.rp_changed` events with a negative delta.",
                   sql)


def activity_success() -> Example:
    """How often each activity's check succeeds (success or critical success), over live turns."""
    ok = ", ".join(f"'{d}'" for d in SUCCESS_DEGREES)
    sql = (
        "SELECT c.ruleset, json_extract_string(e.payload, '$.activity') AS activity, count(*) AS checks,"
        f" count(*) FILTER (WHERE json_extract_string(e.payload, '$.degree') IN ({ok})) AS successes,"
        f" round(100.0 * count(*) FILTER (WHERE json_extract_string(e.payload, '$.degree') IN ({ok}))"
        " / count(*), 1) AS success_pct"
        f" FROM {LIVE_EVENTS}{WITH_RULESET}"
        " WHERE e.type LIKE '%.check_resolved' AND json_extract_string(e.payload, '$.activity') IS NOT NULL"
        " GROUP BY ALL ORDER BY checks DESC, activity"
    )
    return Example("success", "How often each activity succeeds",
                   "From every ruleset's `*.check_resolved` events (degree of success per check).", sql)


def examples(console: SafeConsole) -> list[Example]:
    """The notebook's example queries for this catalog."""
    return [figure_by_turn(console), rp_by_activity(), activity_success()]


def run(console: SafeConsole, sql: str) -> tuple[pa.Table | None, str | None]:
    """A read-only query's Arrow table, or ``(None, message)`` when it is refused or fails."""
    try:
        return console.arrow(sql), None
    except KingdomlogError as exc:
        return None, str(exc)


def in_words(table: pa.Table | None, column: str, kind: str = "") -> pa.Table | None:
    """``table`` with ``column``'s ids said by the name their row's ruleset gives them (``Ruleset.name_of``:
    ``natures-blessing`` → "Nature's Blessing", ``claim-hex`` → "Claim Hex"); a table without a ``ruleset`` column,
    or with ids no ruleset names, keeps them in plain words. None stays None."""
    if table is None or column not in table.column_names:
        return table
    from kingdomlog.core.ruleset import find_ruleset, plain_words

    names: dict[tuple[str, str], str] = {}
    rulesets = table.column("ruleset").to_pylist() if "ruleset" in table.column_names else [None] * table.num_rows
    said = []
    for rid, value in zip(rulesets, table.column(column).to_pylist(), strict=True):
        key = (str(rid), str(value))
        if key not in names:
            try:
                names[key] = find_ruleset(str(rid)).name_of(str(value), kind) if rid and value else \
                    plain_words(str(value or ""))
            except KingdomlogError:  # a ruleset not installed here: its ids in plain words
                names[key] = plain_words(str(value))
        said.append(names[key])
    return table.set_column(table.column_names.index(column), column, pa.array(said, pa.string()))


def table_or_problem(mo: Any, table: pa.Table | None, problem: str | None) -> Any:
    """A query's result as a marimo table, or its refusal or error as a warning beside it.

    ``mo`` is the ``marimo`` module (passed in, so this library does not import it).
    """
    if problem or table is None:
        return mo.callout(mo.md(h("strong", "Refused or failed:") + " " + (problem or "no result")), kind="warn")
    # column stats but no histograms: marimo bins a column with numpy, which kingdomlog does not need (a warning per
    # numeric column otherwise, issue 29)
    return mo.ui.table(table, selection=None, show_column_summaries="stats")


def inline_data(rows: Sequence[Mapping[str, Any]]) -> Any:
    """Rows as altair inline data (the values are embedded in the chart spec)."""
    return alt.Data(values=list(rows))  # type: ignore[no-untyped-call]


def line_chart(table: pa.Table, *, title: str, y: str = "value") -> alt.Chart | None:
    """``y`` over turns, one line per campaign; None for an empty result."""
    if table.num_rows == 0:
        return None
    chart = alt.Chart(inline_data(table.to_pylist())).mark_line(point=True).encode(
        x=alt.X("turn:O"), y=alt.Y(f"{y}:Q", title=None), color="campaign:N",
        tooltip=["campaign:N", "turn:O", f"{y}:Q"],
    ).properties(title=title, width=520, height=220)
    return cast(alt.Chart, chart)


def bar_chart(table: pa.Table, *, x: str, y: str, title: str) -> alt.Chart | None:
    """A horizontal bar per ``x`` of ``y``; None for an empty result."""
    if table.num_rows == 0:
        return None
    chart = alt.Chart(inline_data(table.to_pylist())).mark_bar().encode(
        y=alt.Y(f"{x}:N", sort="-x", title=None), x=alt.X(f"{y}:Q"), tooltip=[f"{x}:N", f"{y}:Q"],
    ).properties(title=title, width=480)
    return cast(alt.Chart, chart)
