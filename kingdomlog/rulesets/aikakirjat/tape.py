"""Dice tapes: one resolver code path for ``decide`` (rolls and records) and ``evolve`` (replays).

Every resolver asks a tape for dice by key. In ``decide`` a ``RecordingTape``
rolls through the step's keyed roller and records the faces; those records go
into the event payload. In ``evolve`` a ``ReplayTape`` hands back the recorded
faces and refuses a missing key or a different notation, so evolve never rolls
and a tampered event is caught (spec §8.1 "randomness is data").
"""

from __future__ import annotations

from typing import Protocol

from kingdomlog.core.errors import InputError
from kingdomlog.core.ruleset import Dice
from kingdomlog.dice.notation import parse
from kingdomlog.rulesets.aikakirjat.model import Frozen


class DieRecord(Frozen):
    """One recorded roll: key, notation, every face read and the total."""

    key: str
    notation: str
    faces: tuple[int, ...]
    total: int


class Tape(Protocol):
    def roll(self, key: str, notation: str) -> DieRecord: ...


class RecordingTape:
    """Rolls with the step's dice under ``prefix + key`` and keeps the records."""

    def __init__(self, dice: Dice, prefix: str = "") -> None:
        self.dice = dice
        self.prefix = prefix
        self.records: list[DieRecord] = []

    def roll(self, key: str, notation: str) -> DieRecord:
        r = self.dice.roll(self.prefix + key, notation)
        rec = DieRecord(key=key, notation=notation, faces=tuple(r.faces), total=r.total)
        self.records.append(rec)
        return rec


class ReplayTape:
    """Hands back recorded dice by key; validates notation and faces."""

    def __init__(self, records: tuple[DieRecord, ...] | list[DieRecord], where: str = "event") -> None:
        self.by_key = {r.key: r for r in records}
        if len(self.by_key) != len(records):
            raise InputError(f"{where}: a dice key is recorded twice")
        self.used: set[str] = set()
        self.where = where

    def roll(self, key: str, notation: str) -> DieRecord:
        rec = self.by_key.get(key)
        if rec is None:
            raise InputError(f"{self.where}: the rules need die {key!r} ({notation}) but the event does not record it")
        if rec.notation != notation:
            raise InputError(f"{self.where}: die {key!r} was recorded as {rec.notation}, the rules need {notation}")
        total = parse(notation).evaluate(list(rec.faces)).total
        if total != rec.total:
            raise InputError(f"{self.where}: die {key!r} faces {list(rec.faces)} total {total}, recorded {rec.total}")
        self.used.add(key)
        return rec

    def check_all_used(self) -> None:
        extra = sorted(set(self.by_key) - self.used)
        if extra:
            raise InputError(f"{self.where}: recorded dice {extra} are not used by the rules")
