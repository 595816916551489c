"""Each notebook passes `marimo check --strict` and runs as a plain script on a campaign."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from nb_support import NOTEBOOKS

from kingdomlog import notebook_server


def test_marimo_check_strict_is_clean() -> None:
    files = sorted(str(p) for p in NOTEBOOKS.glob("*.py"))
    assert {"turn_sheet.py", "kingdom_view.py", "history.py"} <= {Path(f).name for f in files}
    res = subprocess.run([sys.executable, "-m", "marimo", "check", "--strict", *files],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr


@pytest.mark.parametrize(("name", "args"), [
    ("turn_sheet", ["--campaign", "{c}"]),
    ("kingdom_view", ["--campaign", "{c}", "--viewer", "public"]),
    ("history", ["--root", "{root}"]),
])
def test_notebook_runs_as_a_script(name: str, args: list[str], campaign: Path,
                                   subprocess_env: dict[str, str]) -> None:
    before = sorted(p.name for p in (campaign / "log").glob("*.parquet"))
    argv = [a.format(c=campaign, root=campaign.parent) for a in args]
    res = subprocess.run([sys.executable, str(NOTEBOOKS / f"{name}.py"), "--", *argv],
                         env=subprocess_env, capture_output=True, text=True, timeout=180)
    assert res.returncode == 0, res.stderr[-3000:]
    assert sorted(p.name for p in (campaign / "log").glob("*.parquet")) == before


def test_the_notebooks_are_found_from_the_package() -> None:
    assert notebook_server.notebook("turn_sheet") == NOTEBOOKS / "turn_sheet.py"
