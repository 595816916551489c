"""The ``aikakirjat`` ruleset (L&L Aikakirjat): yearly kingdom growth sessions, neighbours and wars.

Spec: ``rulesets/aikakirjat.md``. One turn is one in-world year; turn 0 is the founding.
"""

from kingdomlog.rulesets.aikakirjat.ruleset import RULESET, Aikakirjat

__all__ = ["RULESET", "Aikakirjat"]
