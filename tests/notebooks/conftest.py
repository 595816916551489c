"""Fixtures for the notebook tests (helpers in nb_support.py, importable because this folder is put on sys.path)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from nb_support import TESTS, campaign_kinds, chromium, copy_demo, make_toy_campaign


@pytest.fixture(params=campaign_kinds())
def campaign(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """A writable campaign folder in a temp dir: the toy campaign, or a copy of the demo."""
    if request.param == "demo":
        return copy_demo(tmp_path / "stolen-lands")
    return make_toy_campaign(tmp_path / "farm")


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    return make_toy_campaign(tmp_path / "farm")


@pytest.fixture(scope="session")
def subprocess_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Environment for a kingdomlog/marimo subprocess that also knows the toy ruleset.

    The toy ruleset lives in tests/toyrules.py, not in the package; a ``sitecustomize``
    on PYTHONPATH imports it in every Python process the server starts (marimo's
    kernels included).
    """
    site = tmp_path_factory.mktemp("site")
    (site / "sitecustomize.py").write_text("import toyrules  # noqa: F401  (registers toy-farm)\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(TESTS), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.pop("KINGDOMLOG_CAMPAIGN", None)
    return env


@pytest.fixture(scope="session")
def python() -> str:
    return sys.executable


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One chromium per test module (``nb_support.chromium``)."""
    with chromium() as b:
        yield b
