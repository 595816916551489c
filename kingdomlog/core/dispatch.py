"""A registry of fold handlers by payload class, shared by rulesets whose ``evolve`` dispatches on type.

>>> from kingdomlog.core.dispatch import Handlers
>>> h: Handlers[object] = Handlers()
>>> @h.on(int)
... def add(x): return x + 1
>>> h.get(3) is add, h.get("x")
(True, None)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

H = TypeVar("H")


class Handlers(Generic[H]):
    """Maps a payload class to its handler; ``on(cls)`` registers, ``get(payload)`` looks up exactly its class."""

    def __init__(self) -> None:
        self._by_type: dict[type[Any], H] = {}

    def on(self, cls: type[Any]) -> Callable[[H], H]:
        """Decorator: register the decorated function as the handler of ``cls``."""

        def deco(fn: H) -> H:
            if cls in self._by_type:
                raise ValueError(f"a handler for {cls.__name__} is registered twice")
            self._by_type[cls] = fn
            return fn

        return deco

    def get(self, payload: object) -> H | None:
        """The handler of ``payload``'s exact class, or None."""
        return self._by_type.get(type(payload))

    def __contains__(self, cls: object) -> bool:
        return cls in self._by_type


class ByName(Generic[H]):
    """Maps event type names to one handler each (a chronicle's narrators): ``on(*names)`` registers the decorated
    function for every name given, ``get(name)`` looks it up.

    >>> n: ByName[object] = ByName()
    >>> @n.on("a.x", "a.y")
    ... def tell(x): return x
    >>> n.get("a.y") is tell, n.get("a.z")
    (True, None)
    """

    def __init__(self) -> None:
        self._by_name: dict[str, H] = {}

    def on(self, *names: str) -> Callable[[H], H]:
        """Decorator: register the decorated function for each of ``names`` (a name registered twice is an error)."""

        def deco(fn: H) -> H:
            for name in names:
                if name in self._by_name:
                    raise ValueError(f"{name} has a handler already")
                self._by_name[name] = fn
            return fn

        return deco

    def get(self, name: str) -> H | None:
        """The handler registered for ``name``, or None."""
        return self._by_name.get(name)
