"""The SQL view, the turn-sheet choices, homebrew data and the store round trip of pf1."""

from __future__ import annotations

from pathlib import Path

import pytest
from pf1.kit import play

from kingdomlog.app import Campaign
from kingdomlog.core.errors import InputError
from kingdomlog.core.turn import Plan
from kingdomlog.projections.sql import Catalog
from kingdomlog.rulesets.pf1 import RULESET
from kingdomlog.rulesets.pf1.tables import homebrew_catalog


def test_pf1_turns_view_over_a_stored_campaign(tmp_path: Path) -> None:
    """design §9: ``pf1_turns`` joins ``states`` (summary columns) with that month's events."""
    camp = Campaign.create(tmp_path / "greenbelt", "pf1")
    for raw in RULESET.sample_plans():
        camp.play(Plan.parse(raw))
    cat = Catalog(tmp_path)
    assert not [w for w in cat.warnings if "pf1" in w], cat.warnings
    rows = cat.con.execute("SELECT turn, treasury_bp, unrest, economy, loyalty, stability, income_bp, "
                           "stability_d20, hexes_claimed, buildings_built, kingdom_event FROM pf1_turns "
                           "ORDER BY turn").fetchall()
    assert rows == [
        (0, 50, 0, -14, -6, -11, 0, None, 0, 0, None),
        (1, 45, 0, 4, 8, 9, 4, None, 1, 1, None),
        (2, 38, 3, 4, 9, 9, 4, 6, 1, 1, "Good Weather"),
    ]


def test_a_month_is_playable_with_defaults() -> None:
    """Every step's choices have defaults; a plan with no choices plays a legal month."""
    s, evs, _ = play(RULESET.sample_plans())
    for step in ("gm", "upkeep", "improvement", "income", "event"):
        for c in RULESET.choices(s, s.turn + 1, step):
            assert c.kind in ("select", "multiselect", "int", "text", "bool", "list", "rows", "group", "variant",
                              "json"), c
            if c.kind == "select" and c.default is not None:
                assert c.options is not None and c.default in [o.value for o in c.options], (step, c.name)
    after, _, _ = play([{"turn": 3, "seed": "defaults", "steps": {}}], state=s, events=evs)
    assert after.turn == 3 and after.phase == "TURN_ENDED"


def test_homebrew_replaces_and_adds_entries() -> None:
    """Campaign data/buildings.toml: the Barracks errata cost (base §6.10) and a new building."""
    cat = homebrew_catalog({"buildings": {"building": [
        {"name": "Barracks", "cost": 6, "lots": 1, "unrest": -1, "defense": 2, "tag": "errata"},
        {"name": "Apiary", "cost": 10, "lots": 1, "loyalty": 1, "stability": 1}]}})
    assert cat.building("Barracks").cost == 6 and cat.building("apiary").loyalty == 1
    assert len(cat.buildings) == len(homebrew_catalog({}).buildings) + 1


@pytest.mark.parametrize(("data", "msg"), [
    ({"buildings": {"building": [{"name": "Folly", "cost": -3}]}},
     r"campaign data/buildings.toml: entry 'Folly' \(#1\): cost"),
    ({"buildings": {"building": [{"name": "Folly", "cost": 3, "lots": 3}]}}, r"entry 'Folly'.*lots"),
    ({"building": []}, r"unknown pf1 data file.*data/building.toml"),
    ({"events": {"event": [{"name": "Flood", "low": 1, "high": 5, "kind": "harmful"}]}}, r"cover 1..100"),
])
def test_homebrew_errors_name_file_and_entry(data: dict, msg: str) -> None:
    with pytest.raises(InputError, match=msg):
        homebrew_catalog(data)


def test_homebrew_event_effects_apply_when_rolled() -> None:
    """base §4.5 E2 with effects as data: a campaign's events.toml gives Good Weather an Economy +1 for 2 months."""
    data = {"events": {"event": [{"name": "Good Weather", "low": 40, "high": 44, "kind": "beneficial",
                                  "effects": [{"kind": "ATTRIBUTE", "attribute": "ECONOMY", "value": 1,
                                               "turns": 2}]}]}}
    s, evs, _ = play(RULESET.sample_plans(), data=data)
    eff = [e.payload for e in evs if e.type == "pf1.event_effect_applied"]
    assert [(x.event, x.attribute, x.value, x.first_turn, x.last_turn) for x in eff] == [
        ("Good Weather", "ECONOMY", 1, 2, 3)]
    assert RULESET.summary(s)["economy"] == 5
    later, _, _ = play([{"turn": 3, "seed": "a", "steps": {}}, {"turn": 4, "seed": "b", "steps": {}}],
                       state=s, events=evs, data=data)
    assert later.turn == 4 and all(m.source != "event Good Weather" or m.last_turn == 3 for m in later.modifiers)


def test_custom_limits_option_is_validated() -> None:
    """base §6.5: a custom improvements-per-month table must be well formed."""
    from pf1.kit import context

    with pytest.raises(InputError, match="improvement_limits"):
        RULESET.initial_state(context(options={"improvement_limits": {"rows": [{"name": "x"}]}}))
    rows = {"rows": [{"name": "all", "min_size": 0, "districts": 2, "buildings": 3, "terrain": 4, "claims": 2}]}
    s = RULESET.initial_state(context(options={"improvement_limits": rows}))
    from kingdomlog.rulesets.pf1 import derive as dv

    assert dv.limits_row(s).buildings == 3


def test_pf1_battles_view_over_the_demo(tmp_path: Path) -> None:
    """``pf1_battles``: the demo's battle (month 16), one row per army: the bandits (Expert Flankers, Aggressive:
    OM 2 + 2 + 2 = 6) roll 16 → 22 vs DV 11: 11 + 3 = 14 damage; the Guard (OM 3 + 1 weapons + 2 = 6) roll 13 →
    19 vs DV 10: 9 + 3 = 12, the bandits' 11 hp gone. ``pf1_turns`` names the UC event and counts the battle."""
    import shutil

    shutil.copytree(Path(__file__).resolve().parents[2] / "campaigns" / "river-kingdom", tmp_path / "river-kingdom",
                    ignore=shutil.ignore_patterns(".cache"))
    cat = Catalog(tmp_path)
    rows = cat.con.execute("SELECT turn, battle, kind, army, tactic, strategy, om, dv, d20, offense, damage, "
                           "hp_before, hp_after, status FROM pf1_battles").fetchall()
    assert rows == [(16, "W1", "melee", "A1", "Expert Flankers", "Aggressive", 6, 10, 16, 22, 14, 11, 0, "defeated"),
                    (16, "W1", "melee", "A2", "Standard", "Aggressive", 6, 11, 13, 19, 12, 16, 2, "fighting")]
    turns = cat.con.execute("SELECT turn, armies, kingdom_event, battles_fought FROM pf1_turns WHERE turn >= 15 "
                            "ORDER BY turn").fetchall()
    assert turns == [(15, 1, None, 0), (16, 1, "Slavers", 1), (17, 1, None, 0)]
