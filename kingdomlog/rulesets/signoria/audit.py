"""What today's Signoria rules compute differently from what a log recorded (``kingdomlog audit``).

``evolve`` folds the recorded facts (the faces, the outcome, the totals, who gained what) and never
re-derives them, so a rules fix never makes an old campaign unreadable. ``audit(state, event)``
is the other half: given the state before an event, it recomputes with today's rules what the
event recorded and returns the differences as warnings. Nothing here refuses anything.

Checked: a command roll's success and slots (§3.1) and rerolls paid after a success; an action's
threshold (§3.3, §6.5, §7.3), reroll allowance (§3.4) and its outcome against its own dice (§3.5);
income lines and total (§4.4); a resource change's shortfall (§4.8); troops' cost (§4.1 A5a); a
hired statesman's cost (§4.6); military aid's size (§7.2); the final scores (G-40).
"""

from __future__ import annotations

from typing import Any

from kingdomlog.core.events import RecordedEvent
from kingdomlog.rulesets.signoria import events as ev
from kingdomlog.rulesets.signoria.rules import (
    LEADER_KILL_THRESHOLD,
    NEUTRAL_GOALS,
    STAKE_THRESHOLD,
    aid_size,
    clamp,
    command_slots,
    final_score,
    neutral_threshold,
)
from kingdomlog.rulesets.signoria.state import SignoriaState, income_lines, reroll_allowance

ROLLED = {"success": True, "failure": False, "killed": True, "wounded": True}
"""Outcomes that say whether the roll reached its threshold."""


def audit(state: SignoriaState, event: RecordedEvent) -> list[str]:
    """Warnings: where ``event`` differs from what today's rules give in ``state`` (the state before it)."""
    e = event.payload
    try:
        if isinstance(e, ev.CommandRollMade):
            return _command(state, e)
        if isinstance(e, ev.ActionResolved):
            return _action(state, e)
        if isinstance(e, ev.IncomeCredited):
            return _income(state, e)
        if isinstance(e, ev.ResourceAdjusted):
            return _shortfall(state, e)
        if isinstance(e, ev.TroopsHired) and e.cost != e.units:
            return [f"{e.faction} hired {e.units} units for {e.cost} wealth; the rules charge 1 wealth a unit "
                    "(§4.1 A5a)"]
        if isinstance(e, ev.StatesmanHired):
            cand = next((c for c in state.candidates.get(e.faction, ()) if c.id == e.candidate), None)
            if cand is not None and cand.cost != e.cost:
                return [f"{e.faction} paid {e.cost} for {e.candidate}, who was offered at {cand.cost} (§4.6)"]
        if isinstance(e, ev.TreatyConcluded) and e.kind in ("military_aid", "military_alliance") and e.neutral \
                and e.neutral in state.factions:
            want = aid_size(state.factions[e.neutral].army or 0)
            if e.aid_units != want:
                return [f"{e.treaty}: {e.aid_units} aid units recorded; ceil(Army/2) of {e.neutral} is {want} (§7.2)"]
        if isinstance(e, ev.FinalTallyRecorded):
            return _tally(state, e)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        return [f"cannot be compared with today's rules ({type(exc).__name__}: {exc})"]
    return []


def _command(s: SignoriaState, e: ev.CommandRollMade) -> list[str]:
    out: list[str] = []
    recorded = ev.command_roll_outcome(e)
    ok = sum(e.dice) >= STAKE_THRESHOLD[e.stake]
    today = (ok, *command_slots(e.stake, ok))
    if recorded != today:
        out.append(f"{e.faction} command roll {list(e.dice)} at {e.stake} stake: recorded success={recorded[0]}, "
                   f"{recorded[1]} special + {recorded[2]} ordinary; today's rules give success={today[0]}, "
                   f"{today[1]} special + {today[2]} ordinary (§3.1)")
    prev = s.command.get(e.faction)
    if e.paid_with and prev is not None and prev.attempts:
        last = prev.attempts[-1]
        if sum(last) >= STAKE_THRESHOLD[prev.stake]:
            out.append(f"{e.faction} bought a command reroll with {e.paid_with} after a success {list(last)} "
                       "(§3.1: rerolls are bought while failing)")
    return out


def _threshold(s: SignoriaState, e: ev.ActionResolved) -> int | None:
    """The threshold today's rules give the action of ``e`` (None when it has no fixed one)."""
    order = next((o for o in s.orders[e.faction].orders if o.id == e.order), None) if e.faction in s.orders else None
    if e.action in ("liberties", "intrigue_self", "scouts", "intrigue_foreign", "bribery") and e.stake in \
            STAKE_THRESHOLD:
        return STAKE_THRESHOLD[e.stake]
    if e.action == "spy":
        return STAKE_THRESHOLD["low"]
    if e.action == "assassination" and e.stake in STAKE_THRESHOLD:
        tgt = s.characters.get(e.target or "")
        kill = order is not None and bool(order.params.get("kill_leader")) and tgt is not None and \
            tgt.role == "leader" and s.factions[tgt.employer].kind == "player"
        return LEADER_KILL_THRESHOLD if kill else STAKE_THRESHOLD[e.stake]
    if e.action in NEUTRAL_GOALS and e.stake in STAKE_THRESHOLD and e.target in s.factions:
        standing = s.factions[e.faction].standing.get(e.target, 0)
        lo, hi = int(s.config.get("threshold_clamp_low", 2)), int(s.config.get("threshold_clamp_high", 12))
        t = neutral_threshold(e.stake, standing, 0, lo, hi)
        if e.action == "military_aid" and order is not None:
            against = order.params.get("against")
            pen = sum(int(s.config.get("pact_aid_penalty", 1)) for tr in s.treaties.values()
                      if tr.active and tr.neutral == e.target and tr.type == "non_aggression"
                      and against in tr.parties)
            t = clamp(t + pen, 2, 12)
        return t
    return None


def _action(s: SignoriaState, e: ev.ActionResolved) -> list[str]:
    out: list[str] = []
    what = f"{e.faction}.{e.order} ({e.action})"
    if e.threshold is None:
        return out
    want = _threshold(s, e)
    if want is not None and want != e.threshold:
        out.append(f"{what}: threshold {e.threshold} recorded; today's rules give {want}")
    order = next((o for o in s.orders[e.faction].orders if o.id == e.order), None) if e.faction in s.orders else None
    if order is not None and e.rolls:
        r, _ = reroll_allowance(s, e.faction, order)
        if r != e.rerolls_allowed:
            out.append(f"{what}: {e.rerolls_allowed} rerolls allowed recorded; today's rules give {r} (§3.4)")
    if e.outcome not in ROLLED or not e.rolls:
        return out
    reached = [i for i, (a, b) in enumerate(e.rolls) if a + b + e.modifier >= e.threshold]
    if ROLLED[e.outcome] and not reached:
        out.append(f"{what}: recorded as {e.outcome}, but no roll of {[list(p) for p in e.rolls]} reaches "
                   f"{e.threshold} (§3.5)")
    elif not ROLLED[e.outcome] and reached:
        out.append(f"{what}: recorded as a failure, but roll {reached[0] + 1} {list(e.rolls[reached[0]])} reaches "
                   f"{e.threshold} (§3.5)")
    elif reached and reached[0] != len(e.rolls) - 1:
        out.append(f"{what}: rolls go on after the success at roll {reached[0] + 1} (§3.5)")
    elif not reached and len(e.rolls) != e.rerolls_allowed + 1:
        out.append(f"{what}: a failure uses every reroll: {len(e.rolls)} rolls for {e.rerolls_allowed} "
                   "rerolls (§3.5)")
    return out


def _income(s: SignoriaState, e: ev.IncomeCredited) -> list[str]:
    out: list[str] = []
    total = sum(int(x.get("amount", 0)) for x in e.lines)
    if total != e.total:
        out.append(f"{e.faction} income: total {e.total} recorded but its lines add up to {total} (§4.4)")
    want = income_lines(s, e.faction, s.turn)
    if [dict(x) for x in e.lines] != want:
        out.append(f"{e.faction} income lines {list(e.lines)} recorded; today's rules give {want} (§4.4)")
    return out


def _shortfall(s: SignoriaState, e: ev.ResourceAdjusted) -> list[str]:
    if e.faction not in s.factions:
        return []
    cur = getattr(s.factions[e.faction], e.resource) or 0
    short = max(0, -(cur + e.delta)) if e.delta < 0 else 0
    if short != e.shortfall:
        return [f"{e.faction} {e.resource} {cur} {e.delta:+d} ({e.reason}): shortfall {e.shortfall} recorded, "
                f"{short} by the §4.8 floor"]
    return []


def _tally(s: SignoriaState, e: ev.FinalTallyRecorded) -> list[str]:
    out: list[str] = []
    pts = int(s.config.get("legitimacy_points", 5))
    for fid, comp in e.scores.items():
        parts: dict[str, Any] = dict(comp)
        if not all(k in parts for k in ("power", "piety", "wealth", "army", "provinces", "letters")):
            continue
        want = final_score(parts["power"], parts["piety"], parts["wealth"], parts["army"], parts["provinces"],
                           parts["letters"], pts)
        if parts.get("total") != want:
            out.append(f"{fid} final score {parts.get('total')} recorded; G-40 gives {want}")
    return out
