"""What pf2e's pages add: the fields of a leader's activity the table page leaves to the GM or to a re-roll.

A PC leader proposes an activity from their own page (``views.table.seat``); the DC of a group the GM
names, and the re-rolls (a Fame point, Free and Fair's 2 RP) are not chosen in the row: the GM sets the DC
on the sheet, and a re-roll is pressed after the roll, where the table sees it and the log records it.

The GM sheet names a settlement or leader a Foundry import left without a name (``NAME_FROM_FOUNDRY``).
"""

from __future__ import annotations

from kingdomlog.views.extras import NAME_FROM_FOUNDRY, Extras

EXTRAS = Extras(seat_hidden=("dc", "fame_reroll", "reroll_for_rp"), actions=(NAME_FROM_FOUNDRY,))

__all__ = ["EXTRAS"]
