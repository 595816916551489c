"""Write tests/fixtures/toy-v1/: a toy campaign whose log holds ``toy.harvested`` v1 events.

v1 payloads are ``{"amount", "faces"}``; the current model (v2) has ``food`` and ``crop``
and an upcaster (tests/toyrules.py). Run once: ``python tests/faults/make_fixture.py``;
the folder is committed so the test reads bytes written by the old event version.
"""

from __future__ import annotations

import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import ClassVar

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import toyrules  # noqa: E402

from kingdomlog.app import Campaign  # noqa: E402
from kingdomlog.core.events import Draft, EventModel  # noqa: E402
from kingdomlog.core.turn import Plan  # noqa: E402
from kingdomlog.store.log import Stamp  # noqa: E402

FIXTURE = HERE.parent / "fixtures" / "toy-v1"


class HarvestedV1(EventModel):
    """The first version of toy.harvested, as an old kingdomlog wrote it (not registered)."""

    type: ClassVar[str] = "toy.harvested"
    version: ClassVar[int] = 1
    amount: int
    faces: tuple[int, ...]


def main() -> None:
    if FIXTURE.exists():
        shutil.rmtree(FIXTURE)
    when = datetime(2026, 11, 1, tzinfo=UTC)
    camp = Campaign.create(FIXTURE, "toy-farm", name="Old Farm", campaign_id="toy-v1", recorded_at=when)
    def stamps(*ids: str) -> list[Stamp]:
        return [Stamp(i, when) for i in ids]

    camp.log.append([Draft(toyrules.Founded(name="Oldacre", gold=7), phase="found", turn=0)], expect_seq=1,
                    commit_id="c-0", stamps=stamps("e-found"))
    camp.log.append([Draft(HarvestedV1(amount=4, faces=(4,)), phase="harvest", turn=1),
                     Draft(toyrules.Sold(food=3, gold=6), phase="market", turn=1)], expect_seq=2, commit_id="c-1",
                    stamps=stamps("e-h1", "e-s1"))
    camp.log.append([Draft(HarvestedV1(amount=2, faces=(2,)), phase="harvest", turn=2)], expect_seq=4,
                    commit_id="c-2", stamps=stamps("e-h2"))
    camp.play(Plan.parse({"seed": "new", "steps": {"harvest": {"choices": {"crop": "barley"},
                                                               "rolls": {"harvest": [5, 6]}}}}),
              commit_id="c-3")
    shutil.rmtree(FIXTURE / ".cache", ignore_errors=True)
    print(Campaign.open(FIXTURE).state())


if __name__ == "__main__":
    main()
