"""The keyed roller: the only code that produces random dice.

A roll is keyed by (seed, campaign, turn, step, key, nonce): the same plan gives
the same faces, a changed choice in one step does not move the dice of another,
and a re-roll bumps only that key's nonce. Faces come from sha256 of the key
material with rejection sampling (uniform, platform-independent). The GM may
type the faces of physical dice instead; they are validated against the notation.

>>> r = KeyedRoller("seed", campaign="c", turn=1).for_step("upkeep")
>>> a = r.roll("resource", "4d4"); b = KeyedRoller("seed", campaign="c", turn=1).for_step("upkeep").roll("resource", "4d4")
>>> a.faces == b.faces
True
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from kingdomlog.core.errors import InputError
from kingdomlog.dice.notation import parse


@dataclass(frozen=True)
class Roll:
    """One roll: its key and notation, every face read, the kept dice and the total."""

    key: str
    notation: str
    faces: tuple[int, ...]
    kept: tuple[int, ...]
    total: int
    manual: bool = False
    nonce: int = 0

    def as_dict(self) -> dict[str, object]:
        return {"key": self.key, "notation": self.notation, "faces": list(self.faces),
                "kept": list(self.kept), "total": self.total, "manual": self.manual}


def new_seed() -> str:
    """A fresh random seed for a turn (drawn here, at the edge, and written into the plan)."""
    return secrets.token_hex(8)


def keyed_faces(material: str, sides: int, start: int = 0) -> _FaceStream:
    """A deterministic stream of faces for ``material``."""
    return _FaceStream(material, start)


class _FaceStream:
    def __init__(self, material: str, start: int = 0) -> None:
        self.material = material
        self.i = start

    def __call__(self, sides: int) -> int:
        limit = (2**64 // sides) * sides
        while True:
            h = hashlib.sha256(f"{self.material}#{self.i}".encode()).digest()
            self.i += 1
            n = int.from_bytes(h[:8], "big")
            if n < limit:
                return n % sides + 1


@dataclass
class StepRoller:
    """Rolls for one step; remembers every roll made (for the turn sheet to show)."""

    seed: str
    campaign: str
    turn: int
    step: str
    manual: Mapping[str, Sequence[int]] = field(default_factory=dict)
    nonces: Mapping[str, int] = field(default_factory=dict)
    rolls: list[Roll] = field(default_factory=list)

    def roll(self, key: str, notation: str) -> Roll:
        """Roll ``notation`` under ``key``; typed faces for the key win over keyed dice."""
        if any(r.key == key for r in self.rolls):
            raise InputError(f"step {self.step!r}: roll key {key!r} used twice in one step")
        expr = parse(notation)
        nonce = int(self.nonces.get(key, 0))
        if key in self.manual:
            try:
                ev = expr.evaluate(list(self.manual[key]))
            except InputError as exc:
                raise InputError(f"step {self.step!r}, roll {key!r}: {exc}") from None
            result = Roll(key, notation, ev.faces, ev.kept, ev.total, manual=True, nonce=nonce)
        else:
            material = f"{self.seed}|{self.campaign}|{self.turn}|{self.step}|{key}|{nonce}"
            ev = expr.roll(_FaceStream(material))
            result = Roll(key, notation, ev.faces, ev.kept, ev.total, manual=False, nonce=nonce)
        self.rolls.append(result)
        return result


@dataclass(frozen=True)
class KeyedRoller:
    """Per-turn roller; ``for_step`` gives the roller a step's ``decide`` uses."""

    seed: str
    campaign: str
    turn: int

    def for_step(
        self, step: str, *, manual: Mapping[str, Sequence[int]] | None = None, nonces: Mapping[str, int] | None = None
    ) -> StepRoller:
        return StepRoller(self.seed, self.campaign, self.turn, step, dict(manual or {}), dict(nonces or {}))
