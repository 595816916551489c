"""The uvicorn server ``kingdomlog serve`` runs: it says "Serving on ..." once its socket listens.

A module of its own so that uvicorn is imported only when a table is served (``server.serve`` imports this module
when it runs; ``kingdomlog --help`` and every other command never load uvicorn).
"""

from __future__ import annotations

import socket

import uvicorn


class AnnouncingServer(uvicorn.Server):
    """A uvicorn ``Server`` that prints ``line`` once its socket listens, not before: a person or a script that
    opens the link as soon as it is printed is never refused (``ERR_CONNECTION_REFUSED`` while the lifespan started
    and the socket was not bound yet, seen in a CI run's browser test); nothing is printed if the startup failed."""

    def __init__(self, config: uvicorn.Config, line: str) -> None:
        super().__init__(config)
        self.line = line

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started:
            print(self.line, flush=True)


__all__ = ["AnnouncingServer"]
