"""A page's kernel starting while another kernel thread holds ``__main__`` (a module without ``__spec__``) does not
fail in marimo's formatter registration (pyspark installed without pandas: its connect package checked
``__main__.__spec__`` at every kernel start and raised AttributeError, so the page never drew)."""

from __future__ import annotations

import sys
import types

import pytest

from kingdomlog.server import FORMATTER_IMPORTS, _remember_failed_formatter_imports


def test_a_kernel_start_while_main_is_another_kernels_module(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pyspark")
    from marimo._output.formatters.formatters import register_formatters

    for name in FORMATTER_IMPORTS:
        monkeypatch.delitem(sys.modules, name, raising=False)
    _remember_failed_formatter_imports()
    kernel_main = types.ModuleType("__main__")
    del kernel_main.__spec__  # as a kernel thread's own __main__ is
    monkeypatch.setitem(sys.modules, "__main__", kernel_main)
    register_formatters()  # raised AttributeError: module has no attribute '__spec__' when not remembered
