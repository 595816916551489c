"""Bundled rulesets: a manifest of what each sub-package registers, so a campaign imports only its own.

Each sub-package exposes ``RULESET`` (an object following
``kingdomlog.core.ruleset.Ruleset``). ``BUNDLED`` lists, for every bundled
sub-package, the id, name and aliases its ruleset answers to and the namespaces of its
event types; the registry (``core.ruleset.find_ruleset``, and ``core.events`` for an
event type not yet known) imports a sub-package only when one of those is asked for,
so core code still never names a ruleset and opening a pf2e campaign builds no model
class of the other rule systems. ``load_all`` imports every sub-package (``kingdomlog
rulesets``, the catalog of an empty root, the conformance suite).
``tests/core/test_perf_registry.py`` checks that the manifest equals what the packages
really register.

A sub-package that fails to import is recorded in ``BROKEN`` (shown by ``kingdomlog
rulesets``, named by ``find_ruleset`` and failed by the test suite) instead of taking
every other ruleset down with it.

Importing this package imports no ruleset (and nothing but the standard library).
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Bundled:
    """What one bundled sub-package registers: its ruleset's id, name, aliases and event namespaces."""

    package: str
    id: str
    name: str
    aliases: tuple[str, ...]
    namespaces: tuple[str, ...]

    @property
    def module(self) -> str:
        return f"{__name__}.{self.package}"


BUNDLED: tuple[Bundled, ...] = (
    Bundled("aikakirjat", "aikakirjat", "L&L Aikakirjat",
            ("aikakirjat-5e", "Aikakirjat", "L&L Chronicles", "Valtakuntasäännöt"), ("aikakirjat",)),
    Bundled("pf1", "pf1-kingmaker", "PF1 Kingmaker", ("pf1", "pathfinder 1e kingmaker", "ultimate-campaign", "pf1-uc"),
            ("pf1",)),
    Bundled("pf2e", "pf2e-kingmaker", "PF2e Kingmaker",
            ("pf2e", "kingmaker2e", "pf2e-km", "pathfinder2e-kingmaker", "kingmaker"), ("pf2e",)),
    Bundled("signoria", "signoria", "Signoria", ("Синьория", "signoria-felmonte", "Signoria of Felmonte"),
            ("signoria",)),
)

BROKEN: dict[str, str] = {}
_LOADED: dict[str, Any] = {}


def load(package: str) -> Any | None:
    """Import the bundled sub-package ``package`` and register its ``RULESET`` (once); None if it is broken."""
    if package in _LOADED:
        return _LOADED[package]
    if package in BROKEN:
        return None
    from kingdomlog.core.ruleset import Ruleset, register_ruleset

    try:
        mod = importlib.import_module(f"{__name__}.{package}")
    except Exception as exc:  # reported in BROKEN, not hidden
        BROKEN[package] = f"{type(exc).__name__}: {exc}"
        return None
    rs = getattr(mod, "RULESET", None)
    if isinstance(rs, Ruleset):
        register_ruleset(rs)
    _LOADED[package] = rs
    return rs


def packages() -> list[str]:
    """Every bundled sub-package (found on disk, so one missing from ``BUNDLED`` is still loaded by ``load_all``)."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if m.ispkg and not m.name.startswith("_"))


def load_all() -> None:
    """Import and register every bundled sub-package."""
    for name in packages():
        load(name)


__all__ = ["BROKEN", "BUNDLED", "Bundled", "load", "load_all", "packages"]
