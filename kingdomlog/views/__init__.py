"""What a person looks at, as library code the notebooks call: the GM sheet, player pages, the historian's queries.

The notebooks in ``notebooks/`` stay thin: they lay out what these functions return. Nothing here holds a rule;
rules live in the rulesets and are reached through the seam (``kingdomlog.core.ruleset.Ruleset``), and nothing
here names a ruleset except ``extras`` (docs/architecture.md).

- ``forms``: the one form codec, a step's typed choices (``FieldSpec``) <-> widget <-> plan value, for the GM sheet,
  every player page and the orders sheet; ``words`` (option labels in words) and ``hexpicker`` (a hex picked
  on the map) serve it.
- ``sheet``: the GM turn sheet (``draft``, ``cards``, ``panel``, ``live``, ``grid``).
- ``player``: what one viewer may see (``page``, ``chronicle``, ``report``, ``maps``, ``charts``).
- ``orders``: what a player's orders sheet computes.
- ``history``: the historian notebook's catalog and example queries.
- ``html``: small HTML builders shared by the pages.
- ``extras``: the registry of what only some rulesets add (GM sheet panels, pages, commands).
"""
