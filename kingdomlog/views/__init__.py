"""Library code behind the notebooks: the GM turn sheet, the player view, the historian's queries.

The notebooks in ``notebooks/`` stay thin: they call these functions. Nothing here
holds a rule; rules live in the rulesets and are reached through the seam
(``kingdomlog.core.ruleset.Ruleset``).

- ``sheet``: campaign folder from the command line, one UI element per ruleset
  choice, the plan built from UI values, the per-step preview rendering.
- ``player``: what one viewer may see (redacted state, visible timeline and notes,
  per-turn figures) and the self-contained static HTML file.
- ``charts``: altair charts of the main figures over turns, and their inline SVG.
- ``history``: example queries for the historian notebook, built defensively from
  the catalog's columns and the rulesets' events.
"""
