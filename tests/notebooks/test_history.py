"""The historian notebook: example queries over the catalog, charts, and a free SQL cell that cannot write."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from nb_support import DEMO, load_notebook, make_toy_campaign

from kingdomlog.projections.sql import SafeConsole
from kingdomlog.views import history

NB = load_notebook("history")


def test_history_notebook_runs_on_a_root_and_falls_back_to_known_figures(tmp_path: Path) -> None:
    make_toy_campaign(tmp_path / "farm")
    _, defs = NB.app.run(defs={"root": tmp_path})
    ex = defs["examples"]
    # the toy has no unrest: another of its figures is shown, and the notebook says so
    assert "unrest" not in ex["figure"].sql and "unrest" in ex["figure"].about
    console = defs["console"]
    table, problem = history.run(console, ex["figure"].sql)
    assert problem is None
    by_figure = {"gold": [5, 7], "food": [0, 4]}
    shown = next(f for f in by_figure if f'"{f}"' in ex["figure"].sql)
    assert table.column("value").to_pylist() == by_figure[shown]
    for key in ("rp", "success"):
        t, p = history.run(console, ex[key].sql)
        assert p is None and t.num_rows == 0


def test_free_sql_refuses_writes_as_a_message(tmp_path: Path) -> None:
    make_toy_campaign(tmp_path / "farm")
    target = tmp_path / "evil.csv"
    sql = f"COPY (SELECT 1) TO '{target}'"
    _, defs = NB.app.run(defs={"root": tmp_path, "free_sql": SimpleNamespace(value=sql)})
    assert defs["console"] is not None
    table, problem = history.run(defs["console"], sql)
    assert table is None and "read-only" in problem
    assert not target.exists()


def test_example_queries_on_the_demo_when_present(tmp_path: Path) -> None:
    if not (DEMO / "campaign.toml").is_file():
        pytest.skip("no demo campaign in this checkout")
    shutil.copytree(DEMO, tmp_path / "stolen-lands", ignore=shutil.ignore_patterns(".cache"))
    console = SafeConsole(tmp_path)
    ex = {e.key: e for e in history.examples(console)}
    assert "unrest" in ex["figure"].sql
    for e in ex.values():
        t, p = history.run(console, e.sql)
        assert p is None, p
        assert t is not None
    figure, _ = history.run(console, ex["figure"].sql)
    assert figure.num_rows >= 1


def test_a_result_table_draws_no_histogram_that_needs_numpy(caplog: pytest.LogCaptureFixture) -> None:
    """Issue 29: under each chart the notebook printed "Failed to get bin values for column turn: No module named
    'numpy'" (marimo bins a table's numeric columns with numpy, which kingdomlog does not install): its tables
    show each column's stats, no histogram."""
    import logging

    import marimo as mo
    import pyarrow as pa

    from kingdomlog.views import history

    rows = range(60)  # enough rows for marimo to draw a histogram per column by default
    table = history.table_or_problem(mo, pa.table({"turn": list(rows), "value": [n / 2 for n in rows]}), None)
    marimo_log = logging.getLogger("marimo")
    marimo_log.addHandler(caplog.handler)
    try:
        with caplog.at_level(logging.DEBUG, logger="marimo"):
            got = table._get_column_summaries(type("Args", (), {"precompute": False})())
    finally:
        marimo_log.removeHandler(caplog.handler)
    assert not [r for r in caplog.records if "numpy" in r.getMessage()]
    assert got.bin_values == {} and set(got.stats) == {"turn", "value"}


def test_example_charts_name_activities_in_words(tmp_path: Path) -> None:
    """The history notebook speaks in words (issue 29): its activity chart and tables label each bar by the
    activity's name ("Nature's Blessing", "Claim Hex"), not its id ("natures-blessing", "claim-hex"), and a cause
    recorded both ways ("claim-hex", "claim hex") is one row."""
    if not (DEMO / "campaign.toml").is_file():
        pytest.skip("no demo campaign in this checkout")
    shutil.copytree(DEMO, tmp_path / "stolen-lands", ignore=shutil.ignore_patterns(".cache"))
    console = SafeConsole(tmp_path)
    ex = {e.key: e for e in history.examples(console)}
    success = history.in_words(history.run(console, ex["success"].sql)[0], "activity", "activity")
    assert success is not None
    said = success.column("activity").to_pylist()
    assert {"Nature's Blessing", "Claim Hex", "Establish Work Site"} <= set(said)
    assert not [a for a in said if "-" in a or "_" in a]
    rp = history.in_words(history.run(console, ex["rp"].sql)[0], "activity")
    assert rp is not None and rp.column("activity").to_pylist().count("Claim Hex") == 1
    chart = history.bar_chart(success, x="activity", y="success_pct", title="t")
    assert chart is not None and "natures-blessing" not in chart.to_json()
