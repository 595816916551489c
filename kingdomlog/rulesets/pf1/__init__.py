"""Pathfinder 1e Kingmaker kingdom building (``pf1-kingmaker``) with the twelve Ultimate Campaign
optional modules as campaign switches.

Specs: ``pf1-kingmaker.md`` (base, "base §") and ``pf1-ultimate-campaign-optional.md`` ("opt §").
"""

from kingdomlog.rulesets.pf1.ruleset import RULESET, Pf1Kingmaker

__all__ = ["RULESET", "Pf1Kingmaker"]
