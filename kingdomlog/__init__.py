"""kingdomlog: event-sourced kingdom turns for tabletop campaigns.

Layers, bottom up: ``dice`` (notation, keyed roller, check kernels), ``core``
(events, the ruleset seam, the fold, draft turns), ``store`` (the append-only
Parquet log of a campaign folder), ``projections`` (DuckDB catalog and the safe
SQL console), ``rulesets`` (the plug-ins), ``cli``.
"""

__version__ = "0.1.0"
