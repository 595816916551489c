"""Viewers and visibility as types (design §7): parsed once, checked on every read and write path.

A **viewer** is who reads: the GM (everything), the public (public events only), or a
player/faction the campaign declares. A **visibility** is who may read one event:
``public``, ``gm``, or one or more declared players (``faction:<id>[,faction:<id>…]``;
the GM always may).

Reserved names (``gm``, ``public``, ``system``) can never be declared as players, so
``--as faction:gm`` cannot borrow the GM's eyes, and an unknown viewer is refused
rather than shown the public view under a wrong name.

>>> v = parse_viewer("faction:red", declared=("red", "blue"))
>>> v.id, v.is_gm, v.token
('red', False, 'faction:red')
>>> parse_visibility("faction:red,faction:blue", declared=("red", "blue")).allows(v)
True
>>> parse_visibility("gm").allows(v), parse_visibility("public").allows(v)
(False, True)
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from kingdomlog.core.errors import InputError

GM = "gm"
PUBLIC = "public"
SYSTEM = "system"
RESERVED = frozenset({GM, PUBLIC, SYSTEM})
"""Names no player or faction may take."""

PLAYER_PREFIX = "faction:"
ID_PATTERN = r"^[a-z][a-z0-9_-]{0,63}$"
_ID_RE = re.compile(ID_PATTERN)

ViewerKind = Literal["gm", "public", "player"]


def check_player_id(pid: str, *, where: str = "player id") -> str:
    """``pid`` if it is a valid, unreserved player/faction id; ``InputError`` naming ``where`` otherwise.

    >>> check_player_id("red")
    'red'
    >>> check_player_id("gm")
    Traceback (most recent call last):
    ...
    kingdomlog.core.errors.InputError: player id 'gm' is reserved (gm, public and system cannot be players or factions)
    """
    if not isinstance(pid, str) or not _ID_RE.match(pid):
        raise InputError(f"{where} {pid!r} must be lower case letters, digits, - or _, starting with a letter")
    if pid in RESERVED:
        raise InputError(f"{where} {pid!r} is reserved (gm, public and system cannot be players or factions)")
    return pid


@dataclass(frozen=True)
class Viewer:
    """Who reads: ``gm``, ``public`` or a declared player/faction (``id``)."""

    kind: ViewerKind
    id: str

    @property
    def is_gm(self) -> bool:
        return self.kind == "gm"

    @property
    def is_public(self) -> bool:
        return self.kind == "public"

    @property
    def is_player(self) -> bool:
        return self.kind == "player"

    @property
    def token(self) -> str:
        """The part of a visibility string that names this viewer (``faction:<id>``, ``gm`` or ``public``)."""
        return f"{PLAYER_PREFIX}{self.id}" if self.is_player else self.id

    def __str__(self) -> str:
        return self.id


GM_VIEWER = Viewer("gm", GM)
PUBLIC_VIEWER = Viewer("public", PUBLIC)


def parse_viewer(text: str | Viewer | None, declared: Collection[str]) -> Viewer:
    """The viewer named by ``text`` (``None`` = the GM), refused unless the campaign knows it.

    ``faction:<id>`` and ``<id>`` name the same player. ``declared`` are the campaign's
    player/faction ids. Raises ``InputError`` listing the campaign's viewers.
    """
    if isinstance(text, Viewer):
        if text.is_player and text.id not in declared:
            raise _unknown(text.id, declared)
        return text
    if text is None or text == GM:
        return GM_VIEWER
    if text == PUBLIC:
        return PUBLIC_VIEWER
    if not isinstance(text, str):
        raise InputError(f"a viewer is a string, got {text!r}")
    pid = text.removeprefix(PLAYER_PREFIX)
    if pid in RESERVED and text.startswith(PLAYER_PREFIX):
        raise InputError(f"unknown viewer {text!r}: {pid!r} is reserved and is not a player or faction;"
                         f" say {pid!r} instead")
    if pid not in declared:
        raise _unknown(text, declared)
    return Viewer("player", pid)


def _unknown(text: str, declared: Iterable[str]) -> InputError:
    names = ", ".join([GM, PUBLIC, *sorted(declared)])
    return InputError(f"unknown viewer {text!r}; this campaign's viewers: {names}")


@dataclass(frozen=True)
class Visibility:
    """Who may read an event: ``("public",)``, ``("gm",)`` or player tokens ``("faction:a", …)``."""

    parts: tuple[str, ...]

    @property
    def text(self) -> str:
        """The stored form (parts joined by ``,``)."""
        return ",".join(self.parts)

    @property
    def is_public(self) -> bool:
        return self.parts == (PUBLIC,)

    @property
    def is_gm_only(self) -> bool:
        return self.parts == (GM,)

    @property
    def players(self) -> tuple[str, ...]:
        """The player ids named (empty for ``public`` and ``gm``)."""
        return tuple(p.removeprefix(PLAYER_PREFIX) for p in self.parts if p.startswith(PLAYER_PREFIX))

    def allows(self, viewer: Viewer) -> bool:
        """Whether ``viewer`` may read an event of this visibility (the GM reads everything)."""
        if viewer.is_gm or self.is_public:
            return True
        if self.is_gm_only or not viewer.is_player:
            return False
        return viewer.token in self.parts

    def __str__(self) -> str:
        return self.text


PUBLIC_VISIBILITY = Visibility((PUBLIC,))
GM_VISIBILITY = Visibility((GM,))


@lru_cache(maxsize=4096)
def _syntax(text: str) -> Visibility:
    """The parts of a visibility string, or an ``InputError`` saying which part is wrong and why.

    >>> _syntax("faction:a,faction:b").parts
    ('faction:a', 'faction:b')
    >>> _syntax("public,faction:a")
    Traceback (most recent call last):
    ...
    kingdomlog.core.errors.InputError: visibility 'public,faction:a': 'public' stands alone, not in a list
    >>> _syntax("faction:gm")
    Traceback (most recent call last):
    ...
    kingdomlog.core.errors.InputError: visibility 'faction:gm': 'gm' is reserved, not a player or faction id
    """
    if text in (PUBLIC, GM):
        return Visibility((text,))
    parts = tuple(p.strip() for p in text.split(","))
    for p in parts:
        pid = p[len(PLAYER_PREFIX):] if p.startswith(PLAYER_PREFIX) else None
        if p in (PUBLIC, GM):  # a reserved name beside others: it is one of the names, in the wrong place
            raise InputError(f"visibility {text!r}: {p!r} stands alone, not in a list"
                             + (" (the GM reads every event)" if p == GM else ""))
        if pid in RESERVED:
            raise InputError(f"visibility {text!r}: {pid!r} is reserved, not a player or faction id")
        if pid is None or not _ID_RE.match(pid):
            hint = ""
            if p.lower().startswith(PLAYER_PREFIX) and not p.startswith(PLAYER_PREFIX):
                hint = f" (write {PLAYER_PREFIX}{p[len(PLAYER_PREFIX):]} in lower case)"
            elif pid is None and _ID_RE.match(p) and p not in RESERVED:
                hint = f" (did you mean {PLAYER_PREFIX}{p}?)"
            raise InputError(f"visibility {text!r}: {p!r} is not 'public', 'gm' or '{PLAYER_PREFIX}<player id>'"
                             f"{hint}")
    if len(set(parts)) != len(parts):
        raise InputError(f"visibility {text!r} names a player twice")
    return Visibility(parts)


def parse_visibility(text: str | Visibility, declared: Collection[str] | None = None) -> Visibility:
    """Parse a visibility string; with ``declared``, every player it names must be one of them.

    Raises ``InputError`` naming the part that is wrong.
    """
    if isinstance(text, Visibility):
        vis = text
    elif not isinstance(text, str):
        raise InputError(f"a visibility is a string, got {text!r}")
    else:
        vis = _syntax(text)
    if declared is not None:
        unknown = [p for p in vis.players if p not in declared]
        if unknown:
            known = ", ".join(sorted(declared)) or "(none declared)"
            raise InputError(f"visibility {vis.text!r} names {', '.join(repr(u) for u in unknown)}, not a player"
                             f" or faction of this campaign (declared: {known})")
    return vis


def normalise_visibility(text: str, declared: Collection[str] | None = None) -> str:
    """A command-line visibility: ``public``, ``gm``, ``faction:x`` or a bare player id ``x``; checked.

    >>> normalise_visibility("red", declared=("red",))
    'faction:red'
    """
    if text not in (PUBLIC, GM) and _ID_RE.match(text) and text not in RESERVED:
        text = f"{PLAYER_PREFIX}{text}"
    return parse_visibility(text, declared).text


def visible_to(visibility: str, viewer: str | Viewer) -> bool:
    """Whether an event stored with ``visibility`` may be shown to ``viewer``.

    ``viewer`` is a parsed ``Viewer`` or the string ``gm``, ``public`` or a player id
    (with or without ``faction:``); strings are not checked against the campaign here.

    >>> visible_to("faction:red", "red"), visible_to("gm", "red"), visible_to("public", "red")
    (True, False, True)
    """
    if isinstance(viewer, str):
        if viewer == GM:
            viewer = GM_VIEWER
        elif viewer == PUBLIC:
            viewer = PUBLIC_VIEWER
        else:
            viewer = Viewer("player", viewer.removeprefix(PLAYER_PREFIX))
    if viewer.is_gm or visibility == PUBLIC:
        return True
    return _syntax(visibility).allows(viewer)


__all__ = [
    "GM",
    "GM_VIEWER",
    "GM_VISIBILITY",
    "PUBLIC",
    "PUBLIC_VIEWER",
    "PUBLIC_VISIBILITY",
    "RESERVED",
    "SYSTEM",
    "Viewer",
    "Visibility",
    "check_player_id",
    "normalise_visibility",
    "parse_viewer",
    "parse_visibility",
    "visible_to",
]
