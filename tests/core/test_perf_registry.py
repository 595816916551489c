"""The registry of rulesets (issue 18): a manifest says which package each id, alias and event namespace is in.

The manifest (``kingdomlog.rulesets.BUNDLED``) must equal what the packages register, so finding a
ruleset or an event type can import only the package it belongs to.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import kingdomlog.rulesets as bundled
from kingdomlog.core.errors import UnknownRulesetError
from kingdomlog.core.ruleset import Ruleset, find_ruleset

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("entry", bundled.BUNDLED, ids=[b.package for b in bundled.BUNDLED])
def test_the_manifest_equals_what_the_package_registers(entry: bundled.Bundled) -> None:
    rs = bundled.load(entry.package)
    assert isinstance(rs, Ruleset), bundled.BROKEN
    assert (rs.id, rs.name, tuple(rs.aliases)) == (entry.id, entry.name, entry.aliases)
    assert rs.namespaces == frozenset(entry.namespaces)
    assert type(rs).__module__.startswith(entry.module + ".")
    for alias in (entry.id, entry.name, *entry.aliases):
        assert find_ruleset(alias) is rs


def test_every_bundled_package_is_in_the_manifest() -> None:
    assert sorted(b.package for b in bundled.BUNDLED) == bundled.packages()
    ids = [b.id for b in bundled.BUNDLED]
    assert len(set(ids)) == len(ids)
    namespaces = [ns for b in bundled.BUNDLED for ns in b.namespaces]
    assert len(set(namespaces)) == len(namespaces)


def _modules_after(code: str) -> list[str]:
    """The kingdomlog.rulesets sub-packages a fresh interpreter has imported after running ``code``."""
    script = code + "\nimport json, sys\nprint(json.dumps(sorted({m.split('.')[2] for m in sys.modules" \
                    " if m.startswith('kingdomlog.rulesets.')})))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=REPO)
    return list(json.loads(out.stdout.strip().splitlines()[-1]))


def test_finding_a_ruleset_imports_only_its_package() -> None:
    assert _modules_after("from kingdomlog.core.ruleset import find_ruleset; find_ruleset('Kingmaker')") == ["pf2e"]
    assert _modules_after("from kingdomlog.core.ruleset import find_ruleset; find_ruleset('SIGNORIA of felmonte')") \
        == ["signoria"]
    assert _modules_after("import kingdomlog.rulesets") == []


def test_an_event_type_is_loaded_by_its_namespace() -> None:
    code = "from kingdomlog.core.events import event_class; assert event_class('pf1.hex_explored').type"
    assert _modules_after(code) == ["pf1"]
    # an unknown type of a known namespace: that package, then every ruleset, before giving up
    code = ("from kingdomlog.core.events import event_class\ntry:\n    event_class('aikakirjat.no_such_thing')\n"
            "except Exception as e:\n    assert 'unknown event type' in str(e), e")
    assert _modules_after(code) == sorted(b.package for b in bundled.BUNDLED)


def test_a_bundled_package_that_fails_to_import_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = bundled.Bundled("no_such_package", "broken-rules", "Broken Rules", ("br",), ("broken",))
    monkeypatch.setattr(bundled, "BUNDLED", (*bundled.BUNDLED, broken))
    try:
        with pytest.raises(UnknownRulesetError, match=r"kingdomlog\.rulesets\.no_such_package failed to import"):
            find_ruleset("BR")
    finally:
        bundled.BROKEN.pop("no_such_package", None)
