"""The GM turn sheet (design §6): a draft turn edited through widgets, previewed, saved and committed.

- ``draft``: the sheet's session: the campaign opened at its next turn, the saved draft, the plan built from
  the widgets' values, each step's preview, commit and undo.
- ``cards``: each step as a card: its widgets, the odds, the roll, the outcome in words.
- ``panel``: the kingdom's figures beside the cards, before and after the draft.
- ``live``: the parts of the page that change with the draft, sent without rebuilding the cards.
- ``grid``: a settlement's lots picked on its grid.
- ``table``: the players' proposals of the turn, the GM's decisions on them (Accept, Send back, Re-roll by GM
  ruling) and the table's feed, kept live.
"""
