"""The keyed roller: the only code that produces random dice.

A roll is keyed by (seed, campaign, turn, step, key, nonce): the same plan gives
the same faces, a changed choice in one step does not move the dice of another,
and a re-roll bumps only that key's nonce. Faces come from sha256 of the key
material with rejection sampling (uniform, platform-independent). The GM may
type the faces of physical dice instead; they are validated against the notation.

>>> a = KeyedRoller("seed", campaign="c", turn=1).for_step("upkeep").roll("resource", "4d4")
>>> b = KeyedRoller("seed", campaign="c", turn=1).for_step("upkeep").roll("resource", "4d4")
>>> a.faces == b.faces and len(a.faces) == 4
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


def _escape(part: object) -> str:
    return str(part).replace("\\", "\\\\").replace("|", "\\|")


def key_material(seed: str, campaign: str, turn: int, step: str, key: str, nonce: int) -> str:
    """The text a roll's faces are hashed from: the key parts joined by ``|``.

    A ``|`` or backslash inside a part is escaped, so two different keys never
    share material (step ``"a|b"`` + key ``"c"`` differs from step ``"a"`` + key
    ``"b|c"``); parts without them are joined unchanged.

    >>> key_material("s", "camp", 3, "upkeep", "resource", 0)
    's|camp|3|upkeep|resource|0'
    >>> key_material("s", "c", 1, "a|b", "c", 0) == key_material("s", "c", 1, "a", "b|c", 0)
    False
    """
    return "|".join(_escape(p) for p in (seed, campaign, turn, step, key, nonce))


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
        if not isinstance(key, str) or not key:
            raise InputError(f"step {self.step!r}: a roll key must be a non-empty string, got {key!r}")
        if any(r.key == key for r in self.rolls):
            raise InputError(f"step {self.step!r}: roll key {key!r} used twice in one step")
        try:
            expr = parse(notation)
        except InputError as exc:
            raise InputError(f"step {self.step!r}, roll {key!r}: {exc}") from None
        nonce = self.nonces.get(key, 0)
        if not isinstance(nonce, int) or isinstance(nonce, bool) or nonce < 0:
            raise InputError(f"step {self.step!r}, roll {key!r}: re-roll nonce must be an integer >= 0, got {nonce!r}")
        if key in self.manual:
            try:
                ev = expr.evaluate(list(self.manual[key]))
            except InputError as exc:
                raise InputError(f"step {self.step!r}, roll {key!r}: {exc}") from None
            result = Roll(key, notation, ev.faces, ev.kept, ev.total, manual=True, nonce=nonce)
        else:
            material = key_material(self.seed, self.campaign, self.turn, self.step, key, nonce)
            ev = expr.roll(_FaceStream(material))
            result = Roll(key, notation, ev.faces, ev.kept, ev.total, manual=False, nonce=nonce)
        self.rolls.append(result)
        return result

    def faces_at(self, key: str, notation: str, nonce: int) -> tuple[int, ...]:
        """The keyed faces of ``key`` at re-roll ``nonce`` (typed faces aside), not remembered as a roll.

        For the faces a re-roll replaced: ask only for a roll that was released at that nonce.
        """
        material = key_material(self.seed, self.campaign, self.turn, self.step, key, nonce)
        return tuple(parse(notation).roll(_FaceStream(material)).faces)

    def unused_manual(self) -> list[str]:
        """Keys the GM typed faces for that no roll of this step used (likely a typo in the plan)."""
        used = {r.key for r in self.rolls}
        return sorted(k for k in self.manual if k not in used)


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
