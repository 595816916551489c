"""Purity (design §5, style "Habits"): core, dice and rulesets do no I/O, read no clock, draw no random numbers.

The only randomness is ``new_seed`` in ``kingdomlog/dice/roller.py`` (it may use ``secrets``,
nowhere else in that file). Reading package data (``importlib.resources``, ``read_text``) is
allowed; writing files, ``os``, clocks and random modules are not. A failure lists file:line.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "kingdomlog"
SCANNED = ["core", "dice", "rulesets"]

#: modules whose import alone breaks purity (randomness, clocks, processes, network, the file system)
FORBIDDEN_MODULES = {
    "random": "random numbers (roll with the dice passed to decide)",
    "secrets": "random numbers (only roller.new_seed may draw a seed)",
    "time": "the clock",
    "os": "the operating system (environment, files)",
    "uuid": "random or clock-based ids",
    "subprocess": "processes",
    "socket": "the network",
    "urllib": "the network",
    "http": "the network",
    "requests": "the network",
    "shutil": "the file system",
    "tempfile": "the file system",
    "numpy.random": "random numbers",
}
CLOCK_METHODS = {"now", "utcnow", "today"}
#: Path methods that change the file system (names a domain object is unlikely to use)
WRITE_METHODS = {"write_text", "write_bytes", "mkdir", "unlink", "rmdir", "symlink_to", "hardlink_to"}
#: (file relative to kingdomlog/, module) pairs allowed, and the one function there that may use it
ALLOWED = {("dice/roller.py", "secrets"): "new_seed"}


@dataclass(frozen=True)
class Violation:
    file: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.what}"


def _forbidden(module: str) -> str | None:
    parts = module.split(".")
    for i in range(len(parts), 0, -1):
        reason = FORBIDDEN_MODULES.get(".".join(parts[:i]))
        if reason:
            return reason
    return None


def _mode_writes(node: ast.Call, position: int) -> bool | None:
    """True if the call's mode opens for writing, False if read-only, None if it cannot be told."""
    mode: ast.expr | None = None
    if len(node.args) > position:
        mode = node.args[position]
    for kw in node.keywords:
        if kw.arg == "mode":
            mode = kw.value
    if mode is None:
        return False
    if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
        return any(c in mode.value for c in "wax+")
    return None


class _Scanner(ast.NodeVisitor):
    def __init__(self, rel: str) -> None:
        self.rel = rel
        self.found: list[Violation] = []
        self.allowed_modules = {m: fn for (f, m), fn in ALLOWED.items() if f == rel}
        self.module_aliases: dict[str, str] = {}  # local name -> module ("dt" -> "datetime")
        self.clock_classes: set[str] = set()  # local names of datetime.datetime / datetime.date
        self.function_stack: list[str] = []

    def flag(self, node: ast.AST, what: str) -> None:
        self.found.append(Violation(self.rel, getattr(node, "lineno", 0), what))

    # imports ---------------------------------------------------------------
    def _check_module(self, node: ast.AST, module: str) -> None:
        reason = _forbidden(module)
        if reason and module.split(".")[0] not in self.allowed_modules:
            self.flag(node, f"imports {module!r}: {reason}")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._check_module(node, alias.name)
            local = alias.asname or alias.name.split(".")[0]
            self.module_aliases[local] = alias.name if alias.asname else alias.name.split(".")[0]
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level == 0:
            self._check_module(node, module)
            for alias in node.names:
                self._check_module(node, f"{module}.{alias.name}")
                local = alias.asname or alias.name
                if module == "datetime" and alias.name in ("datetime", "date"):
                    self.clock_classes.add(local)
                if module in FORBIDDEN_MODULES or f"{module}.{alias.name}" in FORBIDDEN_MODULES:
                    self.module_aliases[local] = f"{module}.{alias.name}"
        self.generic_visit(node)

    # functions (for the one allowed use of secrets) -------------------------
    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.function_stack.append(node.name)
        self.generic_visit(node)
        self.function_stack.pop()

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_Name(self, node: ast.Name) -> None:
        allowed_in = self.allowed_modules.get(self.module_aliases.get(node.id, ""))
        if allowed_in and allowed_in not in self.function_stack:
            self.flag(node, f"uses {node.id!r} outside {allowed_in}()")
        self.generic_visit(node)

    # calls -----------------------------------------------------------------
    def _is_clock_receiver(self, value: ast.expr) -> bool:
        if isinstance(value, ast.Name):
            return value.id in self.clock_classes
        if isinstance(value, ast.Attribute) and value.attr in ("datetime", "date"):
            base = value.value
            return isinstance(base, ast.Name) and self.module_aliases.get(base.id) == "datetime"
        return False

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in CLOCK_METHODS and self._is_clock_receiver(node.value):
            self.flag(node, f"reads the clock ({ast.unparse(node)})")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if (isinstance(func, ast.Name) and func.id == "open") or (
            isinstance(func, ast.Attribute)
            and func.attr == "open"
            and isinstance(func.value, ast.Name)
            and func.value.id in ("io", "builtins", "codecs")
        ):
            writes = _mode_writes(node, 1)
            if writes is None:
                self.flag(node, "open() with a mode that cannot be checked (only reading is allowed)")
            elif writes:
                self.flag(node, "open() for writing")
        elif isinstance(func, ast.Attribute) and func.attr == "open":
            writes = _mode_writes(node, 0)  # Path.open(mode) / Traversable.open(mode)
            if writes:
                self.flag(node, f"{ast.unparse(func)}() for writing")
            elif writes is None:
                self.flag(node, f"{ast.unparse(func)}() with a mode that cannot be checked")
        elif isinstance(func, ast.Attribute) and func.attr in WRITE_METHODS:
            self.flag(node, f"changes the file system ({func.attr})")
        elif isinstance(func, ast.Name) and func.id in ("exec", "eval", "__import__", "input", "print"):
            self.flag(node, f"calls {func.id}()")
        self.generic_visit(node)


def scan_source(source: str, rel: str) -> list[Violation]:
    """Every purity violation in one file's source, with its line."""
    scanner = _Scanner(rel)
    scanner.visit(ast.parse(source, filename=rel))
    return scanner.found


def scanned_files() -> list[Path]:
    files: list[Path] = []
    for sub in SCANNED:
        files.extend(sorted((PACKAGE / sub).rglob("*.py")))
    return files


def test_scanned_folders_exist_and_hold_code() -> None:
    files = scanned_files()
    rels = {f.relative_to(PACKAGE).as_posix() for f in files}
    assert {"core/turn.py", "dice/roller.py", "dice/notation.py", "dice/checks.py"} <= rels


def test_core_dice_and_rulesets_are_pure() -> None:
    found: list[Violation] = []
    for path in scanned_files():
        rel = path.relative_to(PACKAGE).as_posix()
        found.extend(scan_source(path.read_text(encoding="utf-8"), rel))
    assert not found, "impure code (kingdomlog/...):\n" + "\n".join(str(v) for v in found)


# the scanner itself: each rule catches what it should, with the line --------------------------


@pytest.mark.parametrize(
    ("source", "what"),
    [
        ("import random", "imports 'random'"),
        ("from random import randint", "imports 'random'"),
        ("import time\n", "imports 'time'"),
        ("from time import monotonic", "imports 'time'"),
        ("import os.path", "imports 'os.path'"),
        ("from os import environ", "imports 'os'"),
        ("import secrets", "imports 'secrets'"),
        ("import uuid", "imports 'uuid'"),
        ("from numpy import random", "imports 'numpy.random'"),
        ("import numpy.random as npr", "imports 'numpy.random'"),
        ("import subprocess", "imports 'subprocess'"),
        ("from datetime import datetime\nx = datetime.now()", "reads the clock (datetime.now)"),
        ("from datetime import datetime as dt\nx = dt.utcnow()", "reads the clock (dt.utcnow)"),
        ("from datetime import date\nx = date.today()", "reads the clock (date.today)"),
        ("import datetime\nx = datetime.datetime.now(datetime.UTC)", "reads the clock (datetime.datetime.now)"),
        ("import datetime as d\nf = d.date.today", "reads the clock (d.date.today)"),
        ("open('x', 'w')", "open() for writing"),
        ("open('x', mode='a')", "open() for writing"),
        ("open('x', 'r+')", "open() for writing"),
        ("m = 'w'\nopen('x', m)", "cannot be checked"),
        ("import io\nio.open('x', 'wb')", "open() for writing"),
        ("p.open('w')", "p.open() for writing"),
        ("p.write_text('x')", "changes the file system (write_text)"),
        ("p.write_bytes(b'x')", "changes the file system (write_bytes)"),
        ("p.mkdir()", "changes the file system (mkdir)"),
        ("print('debug')", "calls print()"),
        ("eval('1')", "calls eval()"),
    ],
)
def test_scanner_flags(source: str, what: str) -> None:
    found = scan_source("x0 = 1\n" + source, "rulesets/demo/rules.py")
    assert found, source
    assert any(what in v.what for v in found), [str(v) for v in found]
    assert all(v.line >= 2 for v in found)  # the offending line, not the padding line
    assert str(found[0]).startswith("rulesets/demo/rules.py:")


@pytest.mark.parametrize(
    "source",
    [
        "from datetime import UTC, datetime\nEPOCH = datetime(1970, 1, 1, tzinfo=UTC)",
        "from importlib import resources\nt = resources.files('kingdomlog').joinpath('x.toml').read_text()",
        "from pathlib import Path\ntext = Path('x').read_text(encoding='utf-8')",
        "open('x')\nopen('x', 'rb')\nopen('x', mode='r')",
        "p.open()\np.open('rb')",
        "import json, re, hashlib, math, tomllib",
        "s = 'x'.replace('a', 'b')",
        "class T:\n    def now(self) -> int:\n        return 1\nT().now()",
        "import importlib\nm = importlib.import_module('kingdomlog.rulesets')",
    ],
)
def test_scanner_allows(source: str) -> None:
    assert scan_source(source, "core/demo.py") == []


def test_secrets_only_inside_new_seed_of_roller() -> None:
    ok = "import secrets\n\ndef new_seed() -> str:\n    return secrets.token_hex(8)\n"
    assert scan_source(ok, "dice/roller.py") == []
    bad = ok + "\ndef other() -> int:\n    return secrets.randbelow(6)\n"
    found = scan_source(bad, "dice/roller.py")
    assert [(v.line, v.what) for v in found] == [(7, "uses 'secrets' outside new_seed()")]
    assert scan_source(ok, "dice/checks.py")[0].what.startswith("imports 'secrets'")
