"""Signoria's extras: what a faction's orders sheet leaves out of its steps' forms."""

from __future__ import annotations

from kingdomlog.views.extras import Extras

ORDERS_HIDDEN = ("faction", "dilemmas", "candidates")
"""Fields of a signoria step the orders sheet does not show: a row's ``faction`` (always the player who
submits), and the choices the rules ask as questions of their own (a dilemma's answer, a statesman on
offer: the page's "Questions for you")."""

EXTRAS = Extras(orders_hidden=ORDERS_HIDDEN)

