"""The pf2e_turns view over the demo campaign (states.state_json), through the read-only console."""

from __future__ import annotations

import pytest

from kingdomlog.app import Campaign
from kingdomlog.projections.sql import SafeConsole

from .make_demo import DEMO

pytestmark = pytest.mark.skipif(not (DEMO / "log").exists(), reason="demo log not generated")


def test_pf2e_turns_view_matches_folded_states() -> None:
    con = SafeConsole(DEMO.parent, campaigns=[DEMO])
    res = con.query("SELECT turn, level, xp, size, control_dc, unrest, crime, crime_penalty, rp, food, lumber,"
                    " stone, fame FROM pf2e_turns WHERE campaign = 'stolen-lands' ORDER BY turn")
    camp = Campaign.open(DEMO)
    assert len(res.rows) == camp.next_turn()
    last = dict(zip(res.columns, res.rows[-1], strict=True))
    s = camp.state()
    assert (last["level"], last["xp"], last["size"], last["control_dc"], last["unrest"]) == (
        s.level, s.xp, s.size, s.control_dc, s.unrest)
    assert (last["crime"], last["crime_penalty"], last["food"], last["lumber"], last["stone"]) == (
        s.ruin["crime"].points, s.ruin["crime"].penalty, s.commodities["food"], s.commodities["lumber"],
        s.commodities["stone"])
    levels = [r[1] for r in res.rows]
    assert levels == sorted(levels) and levels[0] == 1 and levels[-1] >= 3
