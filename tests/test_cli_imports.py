"""What ``kingdomlog state`` loads: the fold and the words of its figures, never the forms of a turn.

``state`` is the command a person types most; its time is mostly imports (issue 31: <= 2x a bare
``import duckdb, pyarrow, pydantic``). pf2e's forms (``rulesets/pf2e/choices.py``, ~35 ms to import) were loaded
to name a figure (``Ruleset.name_of``) and took the command from 1.99x to 2.40x; the names live in
``rulesets/pf2e/names.py`` now, which needs the tables alone. A warm ``state`` (a snapshot at the head) decodes no
event of the ruleset, so pf2e's, pf1's and signoria's payload classes (``events.py``, ~50-100 models each) and
their folds are not imported for it either, nor signoria's and aikakirjat's steps, forms, audit and chronicle; and
of the model classes of the state and the tables (``core.model.Frozen``, built at their first use), only those the
command validates are built.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
NEVER = ("marimo", "duckdb", "uvicorn", "markupsafe", "kingdomlog.views.sheet", "kingdomlog.views.forms",
         "kingdomlog.views.html")
"""Loaded by no campaign's ``state``: the notebooks, the historian's engine, the server, the pages' HTML, the
sheet's forms."""


def _state_modules(campaign: Path) -> tuple[str, list[str]]:
    """``kingdomlog state CAMPAIGN`` in a fresh interpreter: its output and every module it left loaded."""
    got = _state_run(campaign)
    return got["out"], got["modules"]


def _state_run(campaign: Path) -> dict[str, Any]:
    """``kingdomlog state CAMPAIGN`` in a fresh interpreter: its output (``out``), every module it left loaded
    (``modules``) and every pydantic model class whose validator it built (``built``: module.qualname)."""
    code = ("import io, json, sys, contextlib; from kingdomlog import cli; out = io.StringIO()\n"
            "with contextlib.redirect_stdout(out): code = cli.main(['state', sys.argv[1]])\n"
            "from pydantic import BaseModel\n"
            "from pydantic._internal._mock_val_ser import MockValSer\n"
            "def subs(c):\n"
            "    for s in c.__subclasses__():\n"
            "        yield s\n"
            "        yield from subs(s)\n"
            "built = sorted({f'{c.__module__}.{c.__qualname__}' for c in subs(BaseModel)\n"
            "                if not isinstance(c.__dict__.get('__pydantic_validator__'), MockValSer)})\n"
            "print(json.dumps({'code': code, 'out': out.getvalue(), 'modules': sorted(sys.modules), 'built': built}))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", code, str(campaign)], capture_output=True, text=True, check=False,
                          cwd=ROOT, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["code"] == 0, got["out"]
    return dict(got)


@pytest.mark.parametrize("slug", ["stolen-lands", "river-kingdom", "aikakirjat-demo", "felmonte"])
def test_state_loads_no_notebook_server_or_sheet(slug: str, tmp_path: Path) -> None:
    import shutil

    folder = tmp_path / slug
    shutil.copytree(ROOT / "campaigns" / slug, folder)
    out, modules = _state_modules(folder)
    assert "sees it" in out, out
    loaded = [m for m in modules if any(m == n or m.startswith(n + ".") for n in NEVER)]
    assert loaded == [], f"kingdomlog state {slug} loaded {loaded}"


def test_pf2e_state_names_its_figures_without_its_forms(tmp_path: Path) -> None:
    """The figures are still said in words (a feat by its title), and pf2e's forms are not loaded for it."""
    import shutil

    folder = tmp_path / "stolen-lands"
    shutil.copytree(ROOT / "campaigns" / "stolen-lands", folder)
    out, modules = _state_modules(folder)
    assert "kingdomlog.rulesets.pf2e.names" in modules
    assert "kingdomlog.rulesets.pf2e.choices" not in modules, "pf2e's forms loaded by `state`"
    assert "why:" in out


WARM_NEVER = {
    "stolen-lands": ("kingdomlog.rulesets.pf2e.events", "kingdomlog.rulesets.pf2e.evolve"),
    "felmonte": ("kingdomlog.rulesets.signoria.events", "kingdomlog.rulesets.signoria.evolve",
                 "kingdomlog.rulesets.signoria.decide", "kingdomlog.rulesets.signoria.choices",
                 "kingdomlog.rulesets.signoria.audit", "kingdomlog.rulesets.signoria.chronicle",
                 "kingdomlog.rulesets.signoria.samples"),
    "river-kingdom": ("kingdomlog.rulesets.pf1.events", "kingdomlog.rulesets.pf1.evolve",
                      "kingdomlog.rulesets.pf1.audit", "kingdomlog.rulesets.pf1.vocabulary",
                      "kingdomlog.rulesets.pf1.specials", "kingdomlog.rulesets.pf1.mapview", "kingdomlog.core.mapdata",
                      "kingdomlog.core.portrait"),
    "aikakirjat-demo": ("kingdomlog.rulesets.aikakirjat.decide", "kingdomlog.rulesets.aikakirjat.audit",
                        "kingdomlog.rulesets.aikakirjat.chronicle", "kingdomlog.rulesets.aikakirjat.samples"),
}
"""What a warm ``state`` (a snapshot at the head) does not import, by demo: pf2e's, pf1's and signoria's payload
classes and folds (and pf1's audit, and its forms' lists, ``vocabulary``, with the army specials and the map's words
they need: the names of pf1's figures and records are in ``names``), and signoria's and aikakirjat's steps, forms,
audit, chronicle and samples (aikakirjat's payload classes stay: its rules' dice tape imports them)."""
PLAYING = ("kingdomlog.core.turn", "kingdomlog.dice.roller", "kingdomlog.dice.odds", "kingdomlog.app.table",
           "kingdomlog.app.submissions", "kingdomlog.app.drafts", "kingdomlog.app.exchange")
"""What plays, submits or moves a turn and what a state never needs: the turn's preview and its plan models
(``core.turn``), the dice roller and odds, the table, the players' submissions, the drafts, export and import. Imported
by no demo's ``state``, cold or warm (``kingdomlog.core`` and ``app.campaign`` import them where they are used)."""
COLD_READS = {"stolen-lands": "kingdomlog.rulesets.pf2e.events", "felmonte": "kingdomlog.rulesets.signoria.events",
              "river-kingdom": "kingdomlog.rulesets.pf1.events"}
"""The payload module the first (cold) read imports, where a warm one does not."""


@pytest.mark.parametrize("slug", sorted(WARM_NEVER))
def test_warm_state_imports_no_payload_class_or_step(slug: str, tmp_path: Path) -> None:
    """The second ``state`` reads the snapshot the first left: what it does not need is not imported, and it prints
    what the first (which decoded and folded every event) printed."""
    import shutil

    folder = tmp_path / slug
    shutil.copytree(ROOT / "campaigns" / slug, folder, ignore=shutil.ignore_patterns(".cache"))
    cold, cold_modules = _state_modules(folder)
    if slug in COLD_READS:
        assert COLD_READS[slug] in cold_modules  # the first read decoded the log
    assert [m for m in PLAYING if m in cold_modules] == [], f"a cold `state` of {slug} imported what plays a turn"
    warm, modules = _state_modules(folder)
    assert warm == cold
    loaded = [m for m in (*WARM_NEVER[slug], *PLAYING) if m in modules]
    assert loaded == [], f"a warm `state` of {slug} imported {loaded}"


def _warm_models_built(tmp_path: Path, demo: str) -> list[str]:
    """The kingdomlog models whose validators a warm ``kingdomlog state`` of a copy of ``demo`` built (a first run,
    with no ``.cache/``, makes the snapshot the second one reads)."""
    import shutil

    folder = tmp_path / demo
    shutil.copytree(ROOT / "campaigns" / demo, folder, ignore=shutil.ignore_patterns(".cache"))
    _state_run(folder)
    return [m for m in _state_run(folder)["built"] if m.startswith("kingdomlog.")]


def test_warm_pf2e_state_builds_only_the_models_it_validates(tmp_path: Path) -> None:
    """A warm ``state`` validates the snapshot's state, the config and three classes of the tables (the core tables,
    a feat and a role: the figures' words): the other rows of the tables and the parts of the state not nested in
    what it validates keep their validators unbuilt (``defer_build``)."""
    built = _warm_models_built(tmp_path, "stolen-lands")
    assert "kingdomlog.rulesets.pf2e.state.KingdomState" in built
    tables = [m for m in built if m.startswith("kingdomlog.rulesets.pf2e.tables.")]
    assert "kingdomlog.rulesets.pf2e.tables.Activity" not in tables, tables
    assert len(tables) <= 5, tables
    assert len(built) <= 25, built


def test_warm_pf1_state_does_not_build_the_initial_state(tmp_path: Path) -> None:
    """A warm ``state`` validates the snapshot into the ruleset's state class (``Ruleset.state_class``) and builds no
    initial state: pf1's reads and validates its whole catalogue (``tables.base_catalog``, ~30 ms), which the snapshot
    holds already, so the catalogue's row classes keep their validators unbuilt (37 models were built with it)."""
    built = _warm_models_built(tmp_path, "river-kingdom")
    assert "kingdomlog.rulesets.pf1.state.Pf1State" in built
    assert "kingdomlog.rulesets.pf1.tables.Catalog" not in built, built
    assert len(built) <= 15, built
