"""Ultimate Campaign events (UC Kingdoms and War, Events; option event_table = "uc"): the tables, checks,
outcomes and effects as data, continuous events, free buildings, hired adventurers; numbers by hand."""

from __future__ import annotations

from typing import Any

import pytest
from pf1.kit import kingdom, month, step

from kingdomlog.core.errors import RuleError
from kingdomlog.rulesets.pf1 import derive as dv
from kingdomlog.rulesets.pf1 import events as ev
from kingdomlog.rulesets.pf1.tables import load_uc_events

UC = {"event_table": "uc"}


def town(options: dict[str, Any] | None = None, **kw: Any) -> Any:
    s = kingdom(2, options={**UC, **(options or {})}, **kw)
    s, _ = step(s, "improvement", {"districts": [{"hex": "H0", "city": "Burg"}]})
    return s


def uc(ps: list[Any]) -> list[ev.UcEventResolved]:
    return [p for p in ps if isinstance(p, ev.UcEventResolved)]


def test_the_tables_cover_every_face_and_name_40_events() -> None:
    """Table 4-7 and the four sub-tables cover d100 once each; 40 distinct events (Discovery, Feud, Inquisition,
    Monster Attack and Plague appear in two tables)."""
    t = load_uc_events()
    assert len(t.events) == 40 and t.top_row(1).event == "Natural Blessing" and t.top_row(100).event == "Vandals"
    assert t.sub_event("kb", 21).name == "Economic Boom" and t.sub_event("sd", 100).name == "Vandals"


def test_economic_boom_explodes_its_d6() -> None:
    """Top d100 10 → beneficial kingdom (05-25); kb d100 25 → Economic Boom (21-31): Treasury + 1d6!, faces 6, 3
    → +9 BP."""
    s = town()
    t0 = s.treasury
    s2, ps = step(s, "event", rolls={"chance": [10], "table": [10], "table_1_kb": [25], "ev1_1": [6, 3]})
    [r] = uc(ps)
    assert r.event == "Economic Boom" and r.rolls == (("top", 10), ("kb", 25))
    assert r.effects[0].value == 9 and s2.treasury == t0 + 9 and s2.event_last_turn is True


def test_food_shortage_failed_doubles_next_upkeeps_consumption() -> None:
    """Food Shortage: Stability check fails (natural 1) → Consumption in the next Upkeep +100%."""
    s = town()
    c0 = int(dv.consumption(s).total)
    s2, ps = step(s, "event", {"event": "Food Shortage"}, rolls={"chance": [10], "ev1_check_1": [1]})
    [r] = uc(ps)
    assert r.outcome == "failure" and r.effects[0].kind == "CONSUMPTION_PCT" and r.effects[0].first_turn == 2
    assert int(dv.consumption(s2).total) == c0  # this month: unchanged
    assert int(dv.consumption(month(s2, 2)).total) == 2 * c0
    assert int(dv.consumption(month(s2, 3)).total) == c0


def test_public_scandal_infamy_unrest_and_loyalty_check_penalty() -> None:
    """Public Scandal: Infamy +1; the Loyalty check fails → Unrest +2 and −4 on Loyalty checks until the next Event
    phase (this month and the next)."""
    s = town({"modules": ["fame_infamy"]})
    s2, _ps = step(s, "event", {"event": "Public Scandal"}, rolls={"chance": [10], "ev1_check_1": [1]})
    assert s2.unrest == s.unrest + 2 and s2.infamy_ledger == s.infamy_ledger + 1
    nxt = month(s2, 2)
    _, ps2 = step(nxt, "income", {"withdrawals": [1]}, rolls={"withdrawal_1": [20]})
    chk = next(p for p in ps2 if isinstance(p, ev.WithdrawalLoyaltyCheckRolled)).check
    assert chk.situational == -4
    assert not dv.active(month(s2, 3), "CHECK:LOYALTY", any_city=True)


def test_monster_attack_goes_on_until_a_stability_check_succeeds() -> None:
    """Monster Attack (continuous): failure → Unrest +4, goes on; next Event phase success → it ends, no Unrest."""
    s = town()
    s2, _ps = step(s, "event", {"event": "Monster Attack"}, rolls={"chance": [10], "ev1_check_1": [1]})
    assert s2.unrest == s.unrest + 4 and [o.name for o in s2.ongoing_events] == ["Monster Attack"]
    s3, ps3 = step(month(s2, 2), "event", {"event": "none"}, rolls={"chance": [99], "ev1_check_1": [20]})
    [r] = uc(ps3)
    assert r.continuing and r.outcome == "success" and not r.ongoing and s3.ongoing_events == ()
    assert s3.unrest == s2.unrest


def test_inquisition_ends_after_two_successes_in_a_row_without_penalty_on_the_last() -> None:
    """Inquisition: a success costs Lore/Productivity/Loyalty/Stability −1; the second success in a row ends it
    and brings no penalty."""
    s = town()
    l0 = int(dv.attribute(s, "LOYALTY").total)
    s2, _ = step(s, "event", {"event": "Inquisition", "event_city": "Burg"}, rolls={"chance": [10],
                                                                                     "ev1_check_1": [20]})
    assert int(dv.attribute(s2, "LOYALTY").total) == l0 - 1 and s2.ongoing_events[0].streak == 1
    s3, ps = step(month(s2, 2), "event", {"event": "none"}, rolls={"chance": [99], "ev1_check_1": [20]})
    [r] = uc(ps)
    assert r.outcome == "success" and not r.ongoing and r.effects == ()
    assert int(dv.attribute(s3, "LOYALTY").total) == l0 - 1


def test_wealthy_immigrant_builds_a_noble_villa_free() -> None:
    """Wealthy Immigrant: d100 80 (76-100) → a Noble Villa at no cost, not counted against the limit."""
    s = town()
    t0 = s.treasury
    s2, ps = step(s, "event", {"event": "Wealthy Immigrant"}, rolls={"chance": [10], "ev1_1": [80]})
    b = next(p for p in ps if isinstance(p, ev.BuildingConstructed))
    assert b.building_type == "Noble Villa" and b.free and b.cost_bp == 0 and s2.treasury == t0


def test_political_calm_in_a_quiet_kingdom() -> None:
    """Political Calm with Unrest 0 and no continuous event: Unrest −1d6 (wasted at 0), Loyalty and Stability +1."""
    s = town()
    l0, s0 = int(dv.attribute(s, "LOYALTY").total), int(dv.attribute(s, "STABILITY").total)
    s2, _ = step(s, "event", {"event": "Political Calm"}, rolls={"chance": [10], "ev1_1": [4]})
    assert s2.unrest == 0
    assert (int(dv.attribute(s2, "LOYALTY").total), int(dv.attribute(s2, "STABILITY").total)) == (l0 + 1, s0 + 1)


def test_good_weather_lasts_until_the_next_event_phase() -> None:
    """Good Weather: Economy and Loyalty +2 this month and the next, gone the month after."""
    s = town()
    e0 = int(dv.attribute(s, "ECONOMY").total)
    s2, _ = step(s, "event", {"event": "Good Weather"}, rolls={"chance": [10]})
    assert int(dv.attribute(month(s2, 2), "ECONOMY").total) == e0 + 2
    assert int(dv.attribute(month(s2, 3), "ECONOMY").total) == e0


def test_a_pilgrimage_without_a_temple_is_rolled_again() -> None:
    """sb d100 60 → Pilgrimage, invalid without a Shrine, Temple or Cathedral; the reroll 90 → Visiting Celebrity."""
    s = town()
    _, ps = step(s, "event", rolls={"chance": [10], "table": [60], "table_1_sb": [60], "table_1_sb_2": [90],
                                    "ev1_2": [2]})
    [r] = uc(ps)
    assert r.event == "Visiting Celebrity" and r.rolls == (("top", 60), ("sb", 60), ("sb", 90))
    assert r.localized == "settlement" and r.city == "C1"


def test_plague_counts_buildings_and_hired_adventurers_help_one_check() -> None:
    """Plague checks −1 per Inn, +1 per Temple in the settlement; adventurers +5 on the first check for 8 BP."""
    s = town(treasury=200)
    s, _ = step(s, "improvement", {"buildings": [{"type": "House"}]})
    s = month(s, 2)
    s, _ = step(s, "improvement", {"buildings": [{"type": "Inn"}]})
    t0 = s.treasury
    _, ps = step(s, "event", {"event": "Plague", "event_city": "Burg", "hire_adventurers": 5},
                 rolls={"chance": [10], "ev1_check_1": [10], "ev1_check_2": [10]})
    [r] = uc(ps)
    assert [c.situational for c in r.checks] == [-1 + 5, -1]
    assert r.effects[0].kind == "TREASURY" and r.effects[0].value == -8
    assert t0 > 0


def test_uc_only_choices_are_refused_with_the_rrr_table() -> None:
    s = kingdom(2)
    with pytest.raises(RuleError, match="belong to the uc event table"):
        step(s, "event", {"hire_adventurers": 2}, rolls={"chance": [99]})
