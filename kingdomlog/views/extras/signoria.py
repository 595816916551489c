"""Signoria's extras: what a faction's orders sheet leaves out of its steps' forms, and the roll it makes first."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path

from kingdomlog.core.turn import Plan
from kingdomlog.views.extras import Action, Done, Extras
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



# ---- the GM sheet: publish the month's opening -----------------------------------------------------------------

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(h|d|m|min)?\s*$")


def due_in(text: str, now: datetime) -> datetime | None:
    """When orders typed as ``48h``, ``2d``, ``90m`` or ``36`` (hours) from ``now`` are due, at a whole minute;
    None for an empty box (the month then waits until every player is ready). ``ValueError`` in words else.

    >>> due_in("2d", datetime(2026, 12, 6, 10, 0, 30, 5, tzinfo=UTC)).isoformat()
    '2026-12-08T10:01:00+00:00'
    >>> due_in("", datetime(2026, 12, 6, tzinfo=UTC)) is None
    True
    """
    if not text.strip():
        return None
    m = _DURATION.match(text)
    if not m:
        raise ValueError(f"“{text}” is not a time from now: write it like 48h, 2d or 90m")
    hours = float(m.group(1)) * {"m": 1 / 60, "min": 1 / 60, "h": 1.0, "d": 24.0}[m.group(2) or "h"]
    if not 0 < hours <= 24 * 366:
        raise ValueError(f"“{text}”: give a time from now between a minute and a year")
    t = now + timedelta(hours=hours)
    floor = t.replace(second=0, microsecond=0)
    return floor if floor == t else floor + timedelta(minutes=1)


def publish_opening(folder: Path, plan: Plan, values: Mapping[str, str], *, now: datetime | None = None) -> Done:
    """Publish the opening of the next month as the sheet's draft has it (its global event, the factions' events,
    the dilemmas and statesmen on offer), with the orders' deadline typed beside the button: the players see it at
    once and answer its questions on their orders sheets (``app.pbp.publish``; ``kingdomlog publish`` without a
    file). The opening leaves the draft: the month is resolved with what was published."""
    from kingdomlog.app import Campaign, pbp
    from kingdomlog.app import submissions as subs
    from kingdomlog.core.errors import KingdomlogError
    from kingdomlog.core.viewers import GM_VIEWER, Viewer

    try:
        camp = Campaign.open(folder)
        t = camp.next_turn()
        unit = camp.ruleset.turn_unit
        opening = [s.id for s in subs.opening_steps(camp.ruleset, camp.state(), t,
                                                     [Viewer("player", p) for p in camp.players()])]
        try:
            due = due_in(values.get("orders_due", ""), now or datetime.now(UTC))
        except ValueError as exc:
            return Done("danger", f"Not published: {exc}.")
        steps = {sid: plan.steps[sid] for sid in opening if sid in plan.steps}
        if due is not None:  # first: the opening's questions are open until the orders are due
            pbp.set_deadline(camp, orders_due=due)
        pbp.publish(camp, Plan(steps=steps, seed=plan.seed))
        asked = pbp.questions(camp, GM_VIEWER, t)
    except KingdomlogError as exc:
        return Done("danger", f"Not published: {exc}")
    when = f"orders due {due:%Y-%m-%d %H:%M} UTC" if due is not None else "no deadline: the month waits until " \
        "every player is ready"
    kept = plan.model_copy(update={"steps": {k: v for k, v in plan.steps.items() if k not in opening}})
    to = {q.to: sum(1 for x in asked if x.to == q.to) for q in asked}
    said = ", ".join(f"{n} to {camp.player_name(who)}" for who, n in to.items()) or "none"
    return Done("success", f"Published the opening of {unit} {t}: questions {said}; {when}.", kept)


PUBLISH = Action(
    name="publish", label="Publish the opening to the players",
    help="The players see the month's opening as the first step of the draft has it (the global and faction events, "
         "the dilemmas and statesmen on offer), and answer its questions on their orders sheets.",
    run=publish_opening,
    fields=(("orders_due", "Orders due in", "e.g. 48h or 2d; empty: when every player is ready"),),
)

def move_on(folder: Path, plan: Plan, values: Mapping[str, str], *, now: datetime | None = None) -> Done:
    """Move the month on with the sheet's draft as the GM's rulings (``app.pbp.advance``; ``kingdomlog resolve
    --close --commit``): close the orders, put the GM's questions of the draft (a council vote, elections, §8.2)
    to the factions they are for, let the defaults of questions out of time stand, and commit the month once
    nothing is left to ask. Each press goes as far as the answers allow and says what it waits on."""
    from kingdomlog.app import Campaign, pbp
    from kingdomlog.app import submissions as subs
    from kingdomlog.core.errors import KingdomlogError
    from kingdomlog.core.viewers import Viewer

    try:
        camp = Campaign.open(folder)
        t = camp.next_turn()
        opening = {s.id for s in subs.opening_steps(camp.ruleset, camp.state(), t,
                                                    [Viewer("player", p) for p in camp.players()])}
        # the month's dice: those the sheet rolled, the rest drawn now from the draft's seed (as `resolve` does)
        gm = plan.model_copy(update={"steps": {k: v for k, v in plan.steps.items() if k not in opening},
                                     "dice": "auto"})
        closed = []
        if subs.orders_closed(camp.events(), t) is None:
            pbp.close_orders(camp)
            closed = [f"closed the orders of {camp.ruleset.turn_unit} {t}"]
        res = pbp.advance(camp, plan=gm, commit=True, now=now)
    except KingdomlogError as exc:
        return Done("danger", f"Not moved on: {exc}")
    st = res.status
    said = "; ".join([*closed, *res.done]) or "nothing to do now"
    if st.problem:
        return Done("danger", f"{said}. The resolution is refused: {st.problem}")
    if res.committed is None and st.waiting_on:
        return Done("warn", f"{said}. Waiting on {', '.join(st.waiting_on)} ({st.stage}).")
    return Done("success", f"{said}.")


MOVE_ON = Action(
    name="move_on", label="Close the orders and move the month on",
    help="Closes the orders, puts the questions of the draft's upkeep (council votes, elections) to the factions, and"
         " commits the month once every question is answered or out of time.",
    run=move_on,
)

EXTRAS = Extras(orders_hidden=ORDERS_HIDDEN, orders_first_roll=ORDERS_FIRST_ROLL,
                orders_other_example=ORDERS_OTHER_EXAMPLE, actions=(PUBLISH, MOVE_ON))
