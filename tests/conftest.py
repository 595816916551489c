"""Shared fixtures: the toy ruleset is registered for every test."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).parent))

import toyrules

# In CI (CI=true, as .ci/run is run) the property tests draw the same examples on every run, so a submission's
# result does not depend on the luck of the draw; a developer's run explores new examples (and the database
# keeps any failure found, to be turned into an @example).
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

REPO = Path(__file__).resolve().parents[1]

# A pytest-xdist worker (.ci/run spreads the test files over the cores) runs as `python -c`: its ``__main__`` has
# neither ``__spec__`` nor ``__file__``, which pyspark's connect package takes for a doctest run and answers with
# ``sys.exit(0)``; marimo's formatter registration imports that package once a test has imported pyspark
# (tests/test_spark.py), so every page served later in that worker failed with SystemExit. A spec named
# ``__main__`` says what pytest's own ``__main__`` says (a module run as main; multiprocessing's children skip it).
if os.environ.get("PYTEST_XDIST_WORKER") and getattr(sys.modules["__main__"], "__spec__", None) is None \
        and not hasattr(sys.modules["__main__"], "__file__"):
    import importlib.machinery

    sys.modules["__main__"].__spec__ = importlib.machinery.ModuleSpec("__main__", None)


@pytest.fixture(autouse=True, scope="module")
def _main_module_as_it_was(request: pytest.FixtureRequest) -> Iterator[None]:
    """This process's ``__main__`` given back after each test module, with a warning naming the module that left
    another there.

    A marimo kernel started in this process (a page served in a thread) puts its own module in
    ``sys.modules["__main__"]`` for good (marimo's ``patch_main_module``: kernels in threads share one
    ``sys.modules``). A later test that starts a process with ``multiprocessing`` then finds a ``__main__`` without
    ``__spec__`` and fails for a reason of its own (seen in full runs: tests/signoria/test_table.py's real-process
    tests). Given back at the module's end, after its servers stopped (an autouse fixture is torn down last).

    A kernel still alive then (marimo's stop of a run-mode session does not wait for its thread) would set its own
    again later, during another module, and this guard would name that module: a module that leaves a kernel it
    started running is named here instead (the servers of the tests wait for their kernels to end:
    tests/notebooks/test_serve_warm.py's ``InProcess.stop``).
    """
    import threading
    import warnings

    def kernels() -> set[threading.Thread]:  # marimo's run-mode kernel threads (test_serve_warm.kernel_threads)
        return {t for t in threading.enumerate() if t.name.endswith("(launch_kernel_with_cleanup)") and t.is_alive()}

    main, before = sys.modules["__main__"], kernels()
    yield None
    if left := kernels() - before:
        warnings.warn(f"{request.module.__name__} left {len(left)} marimo kernel thread(s) running, which set their "
                      "own __main__ whenever they run", stacklevel=1)
    if sys.modules["__main__"] is not main:
        sys.modules["__main__"] = main
        warnings.warn(f"{request.module.__name__} left a marimo kernel's __main__ in sys.modules; given back",
                      stacklevel=1)


@pytest.fixture
def toy_campaign(tmp_path: Path):
    """A fresh toy campaign with its founding and one turn played."""
    from kingdomlog.app import Campaign
    from kingdomlog.core.turn import Plan

    camp = Campaign.create(tmp_path / "farm", "toy-farm", name="Farm", viewers=["alice"])
    for plan in toyrules.TOY.sample_plans()[:2]:
        camp.play(Plan.parse(plan))
    return camp


@pytest.fixture(scope="module")
def aikakirjat_demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the aikakirjat demo campaign for one test module, without what is derived or kept beside its log
    (its cache, drafts and table): the campaign as the repository holds it."""
    import shutil

    folder = tmp_path_factory.mktemp("aikakirjat") / "aikakirjat-demo"
    shutil.copytree(REPO / "campaigns" / "aikakirjat-demo", folder,
                    ignore=shutil.ignore_patterns(".cache", "drafts", "table"))
    return folder
