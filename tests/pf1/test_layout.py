"""The pf1 package keeps the layout of every ruleset, imports without cycles and folds only through core."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from kingdomlog.core.errors import CorruptLogError
from kingdomlog.core.events import Draft, EventModel, provisional, register_event
from kingdomlog.core.fold import default_context
from kingdomlog.rulesets.pf1 import RULESET

PKG = Path(__file__).resolve().parents[2] / "kingdomlog" / "rulesets" / "pf1"
LAYOUT = ("events.py", "state.py", "evolve.py", "decide.py", "rules.py", "tables.py", "data", "views.sql",
          "ruleset.py", "samples.py")


def _imports() -> dict[str, set[str]]:
    mods = {p.stem for p in PKG.glob("*.py")}
    out: dict[str, set[str]] = {}
    for p in PKG.glob("*.py"):
        deps: set[str] = set()
        for node in ast.parse(p.read_text()).body:
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("kingdomlog.rulesets.pf1"):
                rest = node.module.split(".")[3:]
                deps |= {rest[0]} if rest else {a.name for a in node.names if a.name in mods}
        out[p.stem] = deps - {p.stem}
    return out


def test_the_layout_of_every_ruleset_is_there() -> None:
    for name in LAYOUT:
        assert (PKG / name).exists(), name
    assert set(RULESET.sql_views()) == {"pf1_turns"}


def test_module_imports_form_a_dag_and_none_hide_inside_functions() -> None:
    graph = _imports()
    done: set[str] = set()

    def visit(n: str, path: tuple[str, ...]) -> None:
        assert n not in path, f"import cycle: {' -> '.join((*path, n))}"
        if n in done:
            return
        for d in graph.get(n, ()):
            visit(d, (*path, n))
        done.add(n)

    for n in graph:
        visit(n, ())
    for p in PKG.glob("*.py"):
        for fn in ast.walk(ast.parse(p.read_text())):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inner = [m for m in ast.walk(fn) if isinstance(m, (ast.Import, ast.ImportFrom))]
                assert not inner, f"{p.name}: {fn.name} imports inside a function"


def test_no_private_accumulator_or_fold() -> None:
    text = "\n".join(p.read_text() for p in PKG.glob("*.py"))
    assert "class Acc" not in text and "(StepContext" not in text
    assert "provisional(" not in text  # only StepContext.emit and core's fold build provisional events


@register_event
class _Unhandled(EventModel):
    type = "pf1.no_such_handler_xyz"


def test_an_unknown_event_of_the_pf1_namespace_is_a_corrupt_log_error_naming_the_seq() -> None:
    state = RULESET.initial_state(default_context(RULESET, "x"))
    with pytest.raises(CorruptLogError, match=r"seq 7: pf1 cannot apply event type 'pf1.no_such_handler_xyz'"):
        RULESET.apply(state, provisional("x", 7, Draft(_Unhandled(), turn=0)))
