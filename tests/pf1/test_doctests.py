"""The worked-example doctests in the pf1 modules run with the test suite (testpaths is tests/ only)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["derive", "rules"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    mod = importlib.import_module(f"kingdomlog.rulesets.pf1.{name}")
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
