"""The shape of the code: no import cycles, the same file layout in every ruleset, hooks called not looked up."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "kingdomlog"
RULESET_FILES = ("events.py", "state.py", "evolve.py", "decide.py", "rules.py", "tables.py", "data", "views.sql",
                 "ruleset.py", "samples.py", "chronicle.py", "mapview.py", "audit.py", "battleboard.py", "__init__.py",
                 "README.md")
"""docs/rulesets.md's table of files, in its order."""


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in ROOT.rglob("*.py")}


def _type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def imports_of(path: Path, name: str, known: set[str]) -> set[str]:
    """kingdomlog modules ``path`` imports anywhere (functions included: a lazy import does not undo a cycle),
    leaving out ``if TYPE_CHECKING:`` blocks."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.If) and not _type_checking(node):
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for h in node.handlers:
                    visit(h.body)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.With, ast.For, ast.While)):
                visit(node.body)
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith("kingdomlog"):
                        out.add(a.name)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[: len(base) - node.level + 1]
                    mod = ".".join([*base, node.module] if node.module else base)
                else:
                    mod = node.module or ""
                if not mod.startswith("kingdomlog"):
                    continue
                for a in node.names:
                    sub = f"{mod}.{a.name}"
                    out.add(sub if sub in known else mod)

    visit(tree.body)
    out.discard(name)
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return found


def test_no_import_cycles() -> None:
    mods = modules()
    known = set(mods)
    graph = {name: {m for m in imports_of(path, name, known) if m in known} for name, path in mods.items()}
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


BUNDLED = sorted(p.parent.name for p in (ROOT / "rulesets").glob("*/ruleset.py"))


def test_every_bundled_ruleset_is_found() -> None:
    assert BUNDLED == ["aikakirjat", "pf1", "pf2e", "signoria"]


@pytest.mark.parametrize("name", BUNDLED)
def test_every_ruleset_has_the_same_layout(name: str) -> None:
    folder = ROOT / "rulesets" / name
    missing = [f for f in RULESET_FILES if not (folder / f).exists()]
    assert missing == [], f"rulesets/{name} lacks {missing}"


def test_the_docs_list_the_files_every_ruleset_has() -> None:
    """docs/rulesets.md's table of files is what every bundled ruleset has, no more, no less."""
    doc = (ROOT.parent / "docs" / "rulesets.md").read_text(encoding="utf-8")
    section = doc.split("## Files", 1)[1].split("\n## ", 1)[0]
    listed = [n.rstrip("/") for row in section.splitlines() if row.startswith("| `")
              for n in re.findall(r"`([^`]+)`", row.split("|")[1])]
    shared = set.intersection(*({p.name for p in (ROOT / "rulesets" / b).iterdir() if p.name != "__pycache__"}
                                for b in BUNDLED))
    assert listed == list(RULESET_FILES)
    assert set(listed) == shared


def test_no_hook_is_looked_up_with_getattr() -> None:
    """Core, app, views and servers call declared hooks; ``getattr`` on a ruleset would hide a missing one."""
    offenders = []
    for name, path in modules().items():
        if ".rulesets." in name:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id in ("getattr", "hasattr"):
                target = ast.unparse(node.args[0]) if node.args else ""
                if "ruleset" in target or target in ("rs", "camp.ruleset", "start.ruleset"):
                    offenders.append(f"{name}: {ast.unparse(node)}")
    assert offenders == []


# ---- the edge: views by what a person looks at (docs/architecture.md) ------------------------------------------

VIEWS = ROOT / "views"
EDGE = ("kingdomlog.cli", "kingdomlog.pbp_cli", "kingdomlog.server", "kingdomlog.serve_warm",
        "kingdomlog.uvicorn_server",
        "kingdomlog.notebook_server")
RULESET_IDS = ("pf2e-kingmaker", "pf1-kingmaker", "aikakirjat", "signoria")


def test_views_are_laid_out_by_what_a_person_looks_at() -> None:
    packages = sorted(p.name for p in VIEWS.iterdir() if (p / "__init__.py").exists())
    assert packages == ["extras", "player", "sheet", "table"]
    loose = sorted(p.stem for p in VIEWS.glob("*.py") if p.stem != "__init__")
    assert loose == ["forms", "hexpicker", "history", "html", "orders", "words"]


def _escapes_by_hand(path: Path) -> list[str]:
    """The calls of ``esc`` in a module (``esc(x)``, ``html.esc(x)``), as written."""
    calls = [n for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, ast.Call)]
    return [ast.unparse(n) for n in calls
            if (n.func.id if isinstance(n.func, ast.Name) else n.func.attr if isinstance(n.func, ast.Attribute)
                else None) == "esc"]


def test_no_view_escapes_html_by_hand() -> None:
    """HTML is built by ``views.html``'s builders (``h``, ``join``), which escape text by construction (issue 26):
    no view but ``views.html`` itself calls ``esc``."""
    offenders = {name: calls for name, path in modules().items()
                 if name.startswith("kingdomlog.views.") and name != "kingdomlog.views.html"
                 and (calls := _escapes_by_hand(path))}
    assert offenders == {}


def test_the_escape_finder_finds_one(tmp_path: Path) -> None:
    f = tmp_path / "m.py"
    f.write_text('from kingdomlog.views import html\nfrom kingdomlog.views.html import esc\n'
                 'A = f"<b>{esc(name)}</b>"\nB = html.esc(1)\nC = escape(2)\n')
    assert sorted(_escapes_by_hand(f)) == ["esc(name)", "html.esc(1)"]


def _ruleset_names(path: Path) -> list[str]:
    """The bundled rulesets a module imports by name, and the ruleset ids it spells out as code (not prose)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.body
                  and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    found = []
    for node in ast.walk(tree):
        mods = []
        if isinstance(node, ast.ImportFrom) and node.module:
            mods = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            mods = [a.name for a in node.names]
        found += [m for m in mods if any(m.startswith(f"kingdomlog.rulesets.{b}") for b in BUNDLED)]
        if isinstance(node, ast.Constant) and node.value in RULESET_IDS and id(node) not in docstrings:
            found.append(repr(node.value))
    return found


def test_no_view_or_edge_names_a_ruleset_but_its_extras() -> None:
    """The sheet, the pages, the CLI and the servers ask ``views.extras`` what a ruleset adds; only the extras
    modules (and the manifest that names them) know a ruleset by name."""
    offenders = {}
    for name, path in modules().items():
        if name.startswith("kingdomlog.views.extras") or not (name.startswith("kingdomlog.views") or name in EDGE):
            continue
        if found := _ruleset_names(path):
            offenders[name] = found
    assert offenders == {}


def test_every_extras_module_in_the_manifest_declares_its_extras() -> None:
    from kingdomlog.views.extras import MANIFEST, Extras, extras_for

    assert set(MANIFEST) <= set(RULESET_IDS)
    on_disk = sorted(p.stem for p in (VIEWS / "extras").glob("*.py") if p.stem != "__init__")
    assert sorted(m.rpartition(".")[2] for m in MANIFEST.values()) == on_disk
    for rid in MANIFEST:
        assert isinstance(extras_for(rid), Extras)


def test_the_ruleset_name_finder_finds_one(tmp_path: Path) -> None:
    f = tmp_path / "m.py"
    f.write_text('"""About aikakirjat."""\nfrom kingdomlog.rulesets.signoria import rules\nX = "pf1-kingmaker"\n')
    assert _ruleset_names(f) == ["kingdomlog.rulesets.signoria", "kingdomlog.rulesets.signoria.rules",
                                 "'pf1-kingmaker'"]


NOTEBOOK_LINES = 350


@pytest.mark.parametrize("path", sorted((ROOT.parent / "notebooks").glob("*.py")), ids=lambda p: p.name)
def test_notebooks_are_pages_of_calls(path: Path) -> None:
    """A notebook holds layout and calls; what it computes lives in ``kingdomlog.views``."""
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines < NOTEBOOK_LINES, f"{path.name}: {lines} lines"
