"""Signoria: a multi-faction play-by-post game with sealed orders and fog of war (spec signoria.md)."""

from kingdomlog.rulesets.signoria.ruleset import RULESET, SignoriaRuleset

__all__ = ["RULESET", "SignoriaRuleset"]
