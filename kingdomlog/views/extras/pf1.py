"""What pf1's pages add: the GM sheet names a city or leader a Foundry import (the PF1 kingdom sheet keeps its
leaders as actor ids) left without a name (``NAME_FROM_FOUNDRY``)."""

from __future__ import annotations

from kingdomlog.views.extras import NAME_FROM_FOUNDRY, Extras

EXTRAS = Extras(actions=(NAME_FROM_FOUNDRY,))

__all__ = ["EXTRAS"]
