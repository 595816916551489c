"""Signoria's extras: what a faction's orders sheet leaves out of its steps' forms, and the roll it makes first."""

from __future__ import annotations

from kingdomlog.views.extras import Extras
from kingdomlog.views.orders import FirstRoll

ORDERS_HIDDEN = ("faction", "dilemmas", "candidates")
"""Fields of a signoria step the orders sheet does not show: a row's ``faction`` (always the player who
submits), and the choices the rules ask as questions of their own (a dilemma's answer, a statesman on
offer: the page's "Questions for you")."""

ORDERS_FIRST_ROLL = FirstRoll(
    prefix="command_",
    heading="your command",
    intro="Choose your stake and the rerolls you would buy. The dice are rolled once, when you press the button, "
          "and sealed for the month.",
    button="Make the command roll",
    made="Command roll made",
    waiting="Make your command roll first: your orders are checked against the slots it gives.",
    unchecked="Your orders are checked once your command roll is made (above): the slots you have depend on it.",
)
"""A faction's ``command_<f>`` step (§3.1) is rolled and sealed before its orders: its outcome is the number of
special and ordinary slots the orders may use, so the orders are checked only once it is made."""

ORDERS_OTHER_EXAMPLE = "e.g. a rival's character id"
"""The placeholder of an order's open pick (a target no list of the faction's own view holds)."""

EXTRAS = Extras(orders_hidden=ORDERS_HIDDEN, orders_first_roll=ORDERS_FIRST_ROLL,
                orders_other_example=ORDERS_OTHER_EXAMPLE)
