"""The docstring examples of the dice modules run (CI collects ``tests/`` only, so they are run from here)."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

from kingdomlog.dice import checks, notation, roller


@pytest.mark.parametrize("module", [checks, notation, roller], ids=lambda m: m.__name__)
def test_module_doctests_pass(module: ModuleType) -> None:
    result = doctest.testmod(module, verbose=False, report=True)
    assert result.attempted > 0, f"{module.__name__} has no doctest examples"
    assert result.failed == 0, f"{result.failed} doctest example(s) failed in {module.__name__} (see output above)"
