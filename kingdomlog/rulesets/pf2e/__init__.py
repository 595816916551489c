"""The ``pf2e-kingmaker`` ruleset: Pathfinder 2e Kingmaker kingdom turns as pure rules over the log.

Spec: ``rulesets/pf2e-kingmaker.md``. Rules data (names and numbers) lives in ``data/``;
the SQL view in ``views.sql``; the plan format in ``docs/pf2e-plans.md``.
"""

from kingdomlog.rulesets.pf2e.ruleset import RULESET, Pf2eKingmaker

__all__ = ["RULESET", "Pf2eKingmaker"]
