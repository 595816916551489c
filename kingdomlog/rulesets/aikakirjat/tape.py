"""Dice tapes: the one code path of the rules, for ``decide`` (rolls and records) and ``audit`` (replays).

Every rule function asks a tape for dice by key. In ``decide`` a ``RecordingTape``
rolls through the step's ``StepContext`` (so the roll, its check and its breakdown
are the step's) under ``prefix + key`` and keeps the records that go into the
event's ``dice``. In ``audit`` (and the legacy fold of v1 events) a ``ReplayTape``
hands back the recorded faces: a missing key or a different notation means today's
rules need other dice than the event recorded. ``fits`` is the one check ``evolve``
makes of a recorded die: its faces fit its own notation and give its total.
"""

from __future__ import annotations

from typing import Any, Protocol

from kingdomlog.core.errors import InputError
from kingdomlog.core.ruleset import Breakdown, StepContext
from kingdomlog.dice.checks import CheckSpec as OddsSpec
from kingdomlog.dice.notation import parse
from kingdomlog.rulesets.aikakirjat.events import DieRecord


class Tape(Protocol):
    """Where the rules get their dice (and leave the breakdowns of the numbers they used)."""

    def roll(self, key: str, notation: str, check: OddsSpec | None = None) -> DieRecord: ...

    def explain(self, *breakdowns: Breakdown) -> None: ...


class RecordingTape:
    """Rolls through the step's context under ``prefix + key`` and keeps the records."""

    def __init__(self, ctx: StepContext[Any], prefix: str = "") -> None:
        self.ctx = ctx
        self.prefix = prefix
        self.records: list[DieRecord] = []

    def roll(self, key: str, notation: str, check: OddsSpec | None = None) -> DieRecord:
        r = self.ctx.roll(self.prefix + key, notation, check=check)
        rec = DieRecord(key=key, notation=notation, faces=tuple(r.faces), total=r.total)
        self.records.append(rec)
        return rec

    def explain(self, *breakdowns: Breakdown) -> None:
        self.ctx.explain(*breakdowns)


class ReplayTape:
    """Hands back recorded dice by key; refuses a key the event lacks or a different notation."""

    def __init__(self, records: tuple[DieRecord, ...] | list[DieRecord], where: str = "event") -> None:
        self.by_key = {r.key: r for r in records}
        if len(self.by_key) != len(records):
            raise InputError(f"{where}: a dice key is recorded twice")
        self.used: set[str] = set()
        self.where = where

    def roll(self, key: str, notation: str, check: OddsSpec | None = None) -> DieRecord:
        rec = self.by_key.get(key)
        if rec is None:
            raise InputError(f"{self.where}: the rules need die {key!r} ({notation}) but the event does not record it")
        if rec.notation != notation:
            raise InputError(f"{self.where}: die {key!r} was recorded as {rec.notation}, the rules need {notation}")
        self.used.add(key)
        return rec

    def explain(self, *breakdowns: Breakdown) -> None:
        return None

    def unused(self) -> list[str]:
        """Recorded dice the rules did not ask for."""
        return sorted(set(self.by_key) - self.used)


def fits(rec: DieRecord) -> str | None:
    """Why the recorded faces of ``rec`` do not fit its own notation and total, or None when they do."""
    try:
        total = parse(rec.notation).evaluate(list(rec.faces)).total
    except InputError as exc:
        return f"die {rec.key!r}: {exc}"
    if total != rec.total:
        return f"die {rec.key!r}: faces {list(rec.faces)} of {rec.notation} total {total}, recorded {rec.total}"
    return None
