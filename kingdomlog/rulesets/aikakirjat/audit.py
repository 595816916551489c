"""``audit`` for aikakirjat: where today's rules differ from what an event recorded (warnings only).

For a ``Recorded`` event the rules are re-run on the state before it with its recorded
dice (``ReplayTape``) and compared with what it recorded: the state its ``outcome``
leads to, its ``audit`` of totals, DCs and bands, and the dice it recorded. An event
today's rules refuse (a step out of order, a prerequisite not met) is reported with the
rule. A v1 event (no recorded outcome) is reported as folded by today's rules. For a
directly applied event the rules' checks are run. Replay folds the log whatever this says.
"""

from __future__ import annotations

import json
from typing import Any

from kingdomlog.core.errors import CorruptLogError, InputError, RuleError
from kingdomlog.core.events import RecordedEvent
from kingdomlog.core.patch import apply_patch, diff
from kingdomlog.rulesets.aikakirjat.events import Recorded, Resolved
from kingdomlog.rulesets.aikakirjat.outcomes import check, normalise, outcome
from kingdomlog.rulesets.aikakirjat.state import KingdomState
from kingdomlog.rulesets.aikakirjat.tape import ReplayTape

SHOWN = 6
"""At most this many differing paths (or audit keys) are named in one warning."""


def audit(state: KingdomState, event: RecordedEvent) -> list[str]:
    """What today's rules compute differently from what ``event`` recorded, given the state before it."""
    p = event.payload
    if not isinstance(p, Recorded):
        try:
            check(state, p)
        except RuleError as exc:
            return [f"today's rules refuse it: {exc}"]
        return []
    out: list[str] = []
    if p.outcome is None:
        out.append(f"v{event.version} event with no recorded outcome: folded by today's rules (legacy path)")
    tape = ReplayTape(p.dice if isinstance(p, Resolved) else (), where="the event")
    try:
        after, computed = outcome(state, p, tape)
    except (RuleError, InputError) as exc:
        return [*out, f"today's rules refuse it: {exc}"]
    if p.outcome is not None:
        try:
            recorded = apply_patch(state, p.outcome)
        except CorruptLogError:
            return out  # the fold reports a patch that does not fit
        changed = _paths(recorded, after)
        if changed:
            out.append("today's rules give another outcome: " + changed)
    if isinstance(p, Resolved):
        if p.audit and normalise(p.audit) != computed:
            out.append("today's rules compute other numbers: " + _audit_diff(normalise(p.audit), computed))
        unused = tape.unused()
        if unused:
            out.append(f"recorded dice {', '.join(unused)} are not used by today's rules")
    return out


def _show(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _lookup(doc: Any, path: tuple[str, ...]) -> tuple[bool, Any]:
    for key in path:
        if not isinstance(doc, dict) or key not in doc:
            return False, None
        doc = doc[key]
    return True, doc


def _paths(recorded: KingdomState, today: KingdomState) -> str:
    """``path: recorded X, today Y`` for every state path where the two differ (the first few)."""
    doc = recorded.model_dump(mode="json")
    parts = []
    ops = diff(recorded, today).ops
    for op in ops[:SHOWN]:
        had, old = _lookup(doc, op.path)
        new = "(absent)" if op.remove else _show(op.value)
        parts.append(f"{'.'.join(op.path)}: recorded {_show(old) if had else '(absent)'}, today {new}")
    if len(ops) > SHOWN:
        parts.append(f"and {len(ops) - SHOWN} more")
    return "; ".join(parts)


def _flat(doc: Any, prefix: str = "") -> dict[str, Any]:
    if not isinstance(doc, dict) or not doc:
        return {prefix: doc}
    out: dict[str, Any] = {}
    for k, v in doc.items():
        out.update(_flat(v, f"{prefix}.{k}" if prefix else str(k)))
    return out


def _audit_diff(recorded_audit: dict[str, Any], today_audit: dict[str, Any]) -> str:
    """``key: recorded X, today Y`` for every (dotted) audit key whose value differs (the first few)."""
    recorded, today = _flat(recorded_audit), _flat(today_audit)
    keys = [k for k in sorted(set(recorded) | set(today)) if recorded.get(k) != today.get(k)]
    parts = [f"{k}: recorded {_show(recorded[k]) if k in recorded else '(absent)'},"
             f" today {_show(today[k]) if k in today else '(absent)'}" for k in keys[:SHOWN]]
    if len(keys) > SHOWN:
        parts.append(f"and {len(keys) - SHOWN} more")
    return "; ".join(parts)
