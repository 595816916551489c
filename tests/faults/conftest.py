"""A forkserver whose children start with kingdomlog, pyarrow and the toy ruleset already imported."""

from __future__ import annotations

import multiprocessing as mp
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


@pytest.fixture(scope="session")
def fork_ctx() -> mp.context.BaseContext:
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(["fault_workers"])
    return ctx
