"""Bundled rulesets: importing this package imports and registers each sub-package.

Each sub-package exposes ``RULESET`` (an object following
``kingdomlog.core.ruleset.Ruleset``); it is registered here, so core code never
names a ruleset.
"""

from __future__ import annotations

import importlib
import pkgutil

from kingdomlog.core.ruleset import Ruleset, register_ruleset

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if not _info.ispkg or _info.name.startswith("_"):
        continue
    _mod = importlib.import_module(f"{__name__}.{_info.name}")
    _rs = getattr(_mod, "RULESET", None)
    if isinstance(_rs, Ruleset):
        register_ruleset(_rs)
