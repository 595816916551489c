"""``core.ruleset.LazyFold``: a ruleset's fold named by module and attribute, imported at the first event and kept
(issue 31: a warm ``kingdomlog state`` folds no event and so imports no fold)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from kingdomlog.core.errors import InternalError
from kingdomlog.core.ruleset import LazyFold

ROOT = Path(__file__).resolve().parents[2]


def _module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, body: str) -> None:
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(body))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)


def test_the_fold_is_imported_at_the_first_call_once_and_its_result_returned(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _module(tmp_path, monkeypatch, "lazy_fold_probe", """
        CALLS = []
        def evolve(state, event):
            CALLS.append((state, event))
            return state + 1
    """)
    fold: LazyFold[Any] = LazyFold("lazy_fold_probe")
    assert "lazy_fold_probe" not in sys.modules and not fold.loaded  # naming it imports nothing
    assert fold(1, "e1") == 2  # type: ignore[arg-type]  # the probe takes any event
    module = sys.modules["lazy_fold_probe"]
    assert fold.loaded and fold.load() is module.evolve
    del sys.modules["lazy_fold_probe"]  # kept: the next call neither looks the module up nor imports it again
    assert fold(5, "e2") == 6  # type: ignore[arg-type]
    assert module.CALLS == [(1, "e1"), (5, "e2")]
    assert "lazy_fold_probe" not in sys.modules


def test_a_fold_named_wrongly_is_an_internal_error_at_its_first_call(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _module(tmp_path, monkeypatch, "lazy_fold_wrong", "evolve = 3\n")
    with pytest.raises(InternalError, match=r"lazy_fold_wrong\.evolve is not a function"):
        LazyFold[Any]("lazy_fold_wrong")(None, None)  # type: ignore[arg-type]
    with pytest.raises(InternalError, match=r"lazy_fold_wrong\.fold is not a function"):
        LazyFold[Any]("lazy_fold_wrong", "fold").load()


def test_the_rulesets_import_no_fold_until_one_is_asked_for() -> None:
    """pf2e's, pf1's and signoria's ruleset objects, found by name, have not imported their folds; the fold each
    names is its ``evolve`` module's."""
    code = textwrap.dedent("""
        import sys
        from kingdomlog.core.ruleset import find_ruleset
        for rid in ("pf2e-kingmaker", "pf1-kingmaker", "signoria"):
            rs = find_ruleset(rid)
            mod = sys.modules[type(rs).__module__]
            pkg = mod.__name__.rsplit(".", 1)[0]
            assert not mod._FOLD.loaded and pkg + ".evolve" not in sys.modules, rid
            assert mod._FOLD.load() is sys.modules[pkg + ".evolve"].evolve, rid
        print("ok")
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=ROOT,
                          env=env, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
