"""Bundled rulesets: importing this package imports and registers each sub-package.

Each sub-package exposes ``RULESET`` (an object following
``kingdomlog.core.ruleset.Ruleset``); it is registered here, so core code never
names a ruleset. A sub-package that fails to import is recorded in ``BROKEN``
(shown by ``kingdomlog rulesets`` and failed by the test suite) instead of
taking every other ruleset down with it.
"""

from __future__ import annotations

import importlib
import pkgutil

from kingdomlog.core.ruleset import Ruleset, register_ruleset

BROKEN: dict[str, str] = {}

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if not _info.ispkg or _info.name.startswith("_"):
        continue
    try:
        _mod = importlib.import_module(f"{__name__}.{_info.name}")
    except Exception as exc:  # reported in BROKEN, not hidden
        BROKEN[_info.name] = f"{type(exc).__name__}: {exc}"
        continue
    _rs = getattr(_mod, "RULESET", None)
    if isinstance(_rs, Ruleset):
        register_ruleset(_rs)
