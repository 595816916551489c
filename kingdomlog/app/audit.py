"""Audit: what today's rules would compute differently from what a campaign's log recorded.

Replay folds the recorded facts (outcomes, totals, degrees) and never re-derives them,
so a rules fix never makes an old campaign unreadable. The audit is the other half: it
walks the live events in order and asks the ruleset (``Ruleset.audit``) to compare each
event with what its rules compute now from the state before it. Its findings are
warnings, turn by turn; nothing is refused and nothing is written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kingdomlog.core.fold import is_live, retracted_commits

if TYPE_CHECKING:
    from kingdomlog.app.campaign import Campaign


@dataclass(frozen=True)
class Finding:
    """One difference: the event (seq, turn, step, type) and what the rules compute now."""

    seq: int
    turn: int
    step: str | None
    type: str
    message: str


@dataclass(frozen=True)
class AuditReport:
    """Every finding of one campaign, and how many events were compared."""

    campaign: str
    events: int
    findings: tuple[Finding, ...]

    @property
    def clean(self) -> bool:
        return not self.findings

    def by_turn(self) -> dict[int, list[Finding]]:
        out: dict[int, list[Finding]] = {}
        for f in self.findings:
            out.setdefault(f.turn, []).append(f)
        return out


def audit(camp: Campaign) -> AuditReport:
    """Compare every live event of ``camp`` with today's rules (``Ruleset.audit``), in log order."""
    rs = camp.ruleset
    events = camp.events()
    retracted = retracted_commits(events)
    state = rs.initial_state(camp.context)
    findings: list[Finding] = []
    n = 0
    for ev in events:
        if not is_live(ev, retracted):
            continue
        n += 1
        for msg in rs.audit(state, ev):
            findings.append(Finding(ev.seq, ev.turn, ev.phase, ev.type, msg))
        state = rs.apply(state, ev)
    return AuditReport(camp.id, n, tuple(findings))
