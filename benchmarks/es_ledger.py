"""The benchmark domain as an ``eventsourcing`` aggregate (the peer); see benchmarks/ledger.py."""

from __future__ import annotations

from eventsourcing.domain import Aggregate, event


class Kingdom(Aggregate):
    @event("Created")
    def __init__(self, name: str) -> None:
        self.name = name
        self.food = 0
        self.gold = 0
        self.unrest = 0
        self.events = 0

    @event("Changed")
    def change(self, food: int, gold: int, unrest: int, note: str) -> None:
        self.food += food
        self.gold += gold
        self.unrest += unrest
        self.events += 1


def application(db_path: str):  # type: ignore[no-untyped-def]
    """An ``Application`` on the SQLite recorder at ``db_path`` (durable commits: synchronous=FULL)."""
    from eventsourcing.application import Application

    return Application(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": db_path})
