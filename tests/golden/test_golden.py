"""Every demo campaign's ``state --json`` at every turn, for every viewer, equals its golden copy.

The copies were written by ``make_golden.py`` before the ruleset seam was rebuilt (a demo given more months since
has its copy extended, older turns unchanged); a change to the
fold, the cache or a ruleset that alters what a committed log replays to fails here. When a change
*means* to alter a state document (a new field, say), regenerate the copies in the same commit and say why.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from make_golden import DEMOS, ROOT, golden  # noqa: E402


@pytest.mark.parametrize("slug", DEMOS)
def test_demo_states_equal_golden(slug: str) -> None:
    if not (ROOT / "campaigns" / slug / "log").is_dir():
        pytest.fail(f"demo campaign {slug} is missing")
    want = json.loads(gzip.decompress((HERE / f"{slug}.json.gz").read_bytes()))
    got = json.loads(json.dumps(golden(slug), sort_keys=True))
    assert sorted(got) == sorted(want), "viewers differ"
    for viewer in want:
        assert sorted(got[viewer], key=int) == sorted(want[viewer], key=int), f"{viewer}: turns differ"
        for turn in want[viewer]:
            assert state_of(got[viewer][turn]) == state_of(want[viewer][turn]), \
                f"{slug} as {viewer} after turn {turn} differs"


def state_of(doc: dict[str, object]) -> dict[str, object]:
    """The state document without its ``kingdomlog`` block: that block describes the log (its head, the next
    turn), which moves whenever a month is appended, and is not part of the state a turn folds to."""
    return {k: v for k, v in doc.items() if k != "kingdomlog"}
