"""A kingdom kept by the PF1 kingdom sheet (Foundry VTT) brought in as a pf1 campaign (issue 32).

Fixtures from the module's declarations (its ``KingdomModel`` and building items): today's schema, where
settlements and hexes live in other documents, and the schema before its version 4 (settlements with districts
inside the kingdom, buildings as the kingdom's items) and 5 (hexes counted by terrain).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from kingdomlog.app import Campaign
from kingdomlog.cli import main
from kingdomlog.core.viewers import GM_VIEWER
from kingdomlog.rulesets.pf1.ruleset import RULESET

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "foundry"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def imported(capsys: pytest.CaptureFixture[str], tmp_path: Path, fixture: str) -> tuple[Path, dict[str, Any]]:
    folder = tmp_path / "barony"
    code, out, err = run(capsys, "import-kingdom", str(folder), "--from", str(FIXTURES / fixture), "--json")
    assert code == 0, err
    return folder, json.loads(out)


def test_a_sheet_of_the_schema_before_version_4_imports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder, report = imported(capsys, tmp_path, "pf1-kingdom-v3.json")
    assert (report["ruleset"], report["format"]) == ("pf1-kingmaker", "pf1-kingdom-sheet")
    assert report["schema"].startswith("before version 4")
    camp = Campaign.open(folder)
    s = camp.state()
    assert (s.name, s.alignment, s.government, s.turn, s.treasury, s.unrest) == (
        "Greenbelt Barony", "NG", "republic", 7, 23, 2)
    assert (s.fame_ledger, s.infamy_ledger, s.event_last_turn) == (3, 1, True)
    assert (s.edicts.festivals, s.edicts.promotion, s.edicts.taxation) == ("6", "TOKEN", "HEAVY")
    assert set(s.modules) == {"fame_infamy", "government_forms"}
    # a leader is shown by a placeholder in words until named, never the raw actor id (kept for naming)
    assert (s.leaders["RULER"][0].name, s.leaders["RULER"][0].foundry_id) == ("Ruler (unnamed in Foundry)",
                                                                              "ActorRuler000001")
    assert s.leaders["RULER"][0].attributes == ("ECONOMY", "LOYALTY")
    assert "CONSORT" not in s.leaders and "GRAND_DIPLOMAT" not in s.leaders  # vacant seats
    assert [(c.name, c.capital, len(c.districts)) for c in s.cities.values()] == [("Tatzlford", True, 1),
                                                                                   ("Oleg's", False, 1)]
    d1 = s.districts[s.cities["C1"].districts[0]]
    assert d1.borders == {"N": "WATER", "E": "CLIFF", "S": "LAND", "W": "LAND"}
    built = sorted((b.type, b.city) for b in s.buildings.values())
    assert built == [("House", "C1"), ("House", "C1"), ("House", "C1"), ("Shrine", "C2"), ("Sky Citadel", "C1"),
                     ("Town Hall", "C1")]
    # a building kingdomlog's data does not have became a homebrew building the campaign loads
    assert report["data_files"] == ["data/buildings.toml"]
    citadel = s.catalog.building("Sky Citadel")
    assert (citadel.lots, citadel.economy, citadel.cost) == (4, 2, 0)
    lots = [x for b in s.buildings.values() if b.district == d1.id for x in b.lots]
    assert len(lots) == len(set(lots))  # no two buildings on one lot
    terrains = sorted(h.terrain for h in s.hexes.values() if h.claimed)
    assert terrains.count("FOREST") == 3 and terrains.count("HILLS") == 2 and terrains.count("MARSH") == 1
    assert len(terrains) == 2 + 3 + 2 + 1 + 4  # two settlements, then the counted terrain (coast listed)
    got = {u["field"]: u["value"] for u in report["unmapped"]}
    assert got["system.terrain.coast"] == 1
    assert got["items[3].name"] == "Sky Citadel"  # written with cost 0: listed
    assert got["items[3].system.changes[1]"]["target"] == "fame"
    assert got["items[4].name"] == "Wizard Spire"  # 3 lots: no shape kingdomlog holds
    assert got["items[5]"] == {"name": "Bandit Activity", "type": "pf1-kingdom-sheet.event"}
    assert got["system.bpStorage.current"] == 4
    assert got["system.settlements[0].districts[0].name"] == "Old Town"
    notes = [(e.visibility, e.payload.text) for e in camp.events() if e.type == "core.note_added"]
    assert notes == [("gm", "<p>The Stag Lord's fort was razed in month 5.</p>")]


def test_it_plays_on_from_the_month_it_was_imported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder, _ = imported(capsys, tmp_path, "pf1-kingdom-v3.json")
    assert Campaign.open(folder).next_turn() == 8
    plan = tmp_path / "month-8.json"
    plan.write_text(json.dumps({"turn": 8, "seed": "gb-8", "steps": {}}))
    code, _, err = run(capsys, "turn", str(folder), "--plan", str(plan))
    assert code == 0, err
    assert Campaign.open(folder).state().turn == 8
    camp = Campaign.open(folder)
    ev = next(e for e in camp.events() if e.type == "pf1.kingdom_imported")
    before = RULESET.initial_state(camp.context)
    line = RULESET.chronicle(before, ev, RULESET.evolve(before, ev), GM_VIEWER)
    assert line is not None and line.startswith("Greenbelt Barony came from PF1 kingdom sheet (pf1-kingdom-v3.json)")


def test_a_sheet_of_today_imports_and_lists_what_lives_elsewhere(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    folder, report = imported(capsys, tmp_path, "pf1-kingdom.json")
    assert report["schema"] == "version 5 or later"
    s = Campaign.open(folder).state()
    assert (s.alignment, s.government, s.treasury, s.edicts.taxation, s.edicts.festivals) == (
        "LN", "feudal_monarchy", 40, "NORMAL", "0")
    assert [(o.name, o.foundry_id) for o in s.leaders["VICEROY"]] == [("Viceroy 1 (unnamed in Foundry)",
                                                                        "ActorViceroy0001")]
    assert s.modules == ("leadership_skills",)
    got = {u["field"]: u["value"] for u in report["unmapped"]}
    assert got["system.settlementProxies"] == [{"id": "SettleProxy00001", "actor": "ActorSettlement1"}]
    assert got["system.settings.optionalRules.kingdomModifiers"] is True
    # every field of the sheet's KingdomModel is set in the fixture; what lives elsewhere or is the sheet's own is
    # listed, and the notes are the GM's journal entry
    assert got["system.armies"] == [{"id": "ArmyProxy000001", "actor": "ActorArmy0000001"}]
    assert (got["system.settings.color"], got["system.settings.collapseTooltips"]) == ("#336699", True)
    notes = [(e.visibility, e.payload.text) for e in Campaign.open(folder).events() if e.type == "core.note_added"]
    assert notes == [("gm", "<p>The Restov council meets monthly.</p>")]


@pytest.mark.parametrize(("change", "needle"), [
    ({"alignment": "good"}, "field system.alignment must be one of"),
    ({"treasury": "lots"}, "field system.treasury must be a whole number"),
    ({"edicts": {"taxation": "9"}}, "field system.edicts.taxation must be one of 0-4"),
    ({"leadership": {"ruler": {"actor": 5}}}, "field system.leadership.ruler.actor must be text"),
])
def test_a_malformed_sheet_is_refused_naming_the_field(change: dict[str, Any], needle: str, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads((FIXTURES / "pf1-kingdom.json").read_text())
    doc["system"].update(change)
    src = tmp_path / "in.json"
    src.write_text(json.dumps(doc))
    root = tmp_path / "campaigns"
    root.mkdir()
    code, _, err = run(capsys, "import-kingdom", str(root / "barony"), "--from", str(src))
    assert code == 1 and len(err.strip().splitlines()) == 1 and needle in err, err
    assert list(root.iterdir()) == []


def test_leaders_named_at_import_and_afterwards_never_shown_by_their_actor_id(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The PF1 sheet keeps its leaders as actor ids (issues 32, 29): a placeholder until the GM names them, at
    import (--name ID=NAME) or afterwards (kingdomlog name: pf1.named, folded by replay)."""
    from kingdomlog.app.kingdom_import import import_kingdom, name_in_campaign
    from kingdomlog.core.errors import InputError
    from kingdomlog.rulesets.pf1 import events as ev

    src = FIXTURES / "pf1-kingdom-v3.json"
    folder = tmp_path / "barony"
    assert main(["import-kingdom", str(folder), "--from", str(src), "--name", "ActorRuler000001=Lady Jamandi"]) == 0
    out = capsys.readouterr().out
    assert "name them: kingdomlog name" in out and "ActorCounc000001=NAME" in out and "ActorRuler000001=" not in out
    camp = Campaign.open(folder)
    s = camp.state()
    assert (s.leaders["RULER"][0].name, s.leaders["RULER"][0].foundry_id) == ("Lady Jamandi", "ActorRuler000001")
    shown = [o.name for occ in s.leaders.values() for o in occ] + [c.name for c in s.cities.values()]
    assert not [n for n in shown if n.startswith("Actor")], shown
    left = name_in_campaign(camp, {"ActorCounc000001": "Oleg", "C2": "Oleg's Rest"})
    assert "ActorCounc000001" not in dict(left) and "ActorGener000001" in dict(left)
    again = Campaign.open(folder)
    assert [e.payload.type for e in again.events()][-2:] == [ev.Named.type, ev.Named.type]
    s = again.state()
    assert s.leaders["COUNCILOR"][0].name == "Oleg" and s.cities["C2"].name == "Oleg's Rest"
    head = again.head_seq
    for names, said in (({"ActorNobody": "X"}, "name ActorNobody: the kingdom has no city or leader by that id"),
                        ({"ActorGener000001": ""}, "name ActorGener000001: the name must be words"),
                        ({"ActorGener000001": "Oleg"}, "'Oleg' already holds another role"),
                        ({"ActorGener000001": "x" * 101}, "the name is 101 characters; at most 100")):
        with pytest.raises(InputError, match=re.escape(said)):
            name_in_campaign(again, names)
    assert Campaign.open(folder).head_seq == head
    with pytest.raises(InputError, match=re.escape("--name ActorNobody: the kingdom has no city or leader")):
        import_kingdom(src.read_text(), tmp_path / "other", names={"ActorNobody": "X"})


def test_the_pf1_chronicle_tells_the_naming_in_words(tmp_path: Path) -> None:
    from kingdomlog.app.kingdom_import import import_kingdom, name_in_campaign

    camp = import_kingdom((FIXTURES / "pf1-kingdom-v3.json").read_text(), tmp_path / "barony").campaign
    before = camp.state()
    name_in_campaign(camp, {"ActorRuler000001": "Lady Jamandi"})
    camp = Campaign.open(camp.folder)
    assert camp.ruleset.chronicle(before, camp.events()[-1], camp.state(), GM_VIEWER) == (
        "The GM named Ruler: Lady Jamandi")


def test_the_gm_sheet_names_a_pf1_leader_picked_from_the_unnamed(tmp_path: Path) -> None:
    """The sheet's Give the name (views.extras) on pf1: a dropdown of only the unnamed, a refusal in the form in
    words, a pick recording ``pf1.named``, and no action once nothing is unnamed."""
    from kingdomlog.app.kingdom_import import import_kingdom
    from kingdomlog.core.turn import Plan
    from kingdomlog.views.extras import action_forms, extras_for, take_action

    camp = import_kingdom((FIXTURES / "pf1-kingdom.json").read_text(), tmp_path / "barony").campaign
    extras = extras_for("pf1-kingmaker")
    forms = action_forms(extras, camp.ruleset, camp.state())
    form = forms["name-from-foundry"]
    assert form.element.elements["who"].options == {"Ruler (unnamed in Foundry)": "ActorRestovRuler",
                                                    "Viceroy 1 (unnamed in Foundry)": "ActorViceroy0001"}
    assert form.validate({"who": ["Ruler (unnamed in Foundry)"], "name": ""}) == (
        "Ruler (unnamed in Foundry): the name must be words, got ''")
    sheet = type("Sheet", (), {"start": type("Start", (), {"folder": camp.folder})(), "plan": Plan()})()
    for who, name in (("Ruler (unnamed in Foundry)", "Kesten"), ("Viceroy 1 (unnamed in Foundry)", "Linzi")):
        forms._update({"name-from-foundry": {"who": [who], "name": name}})
        done = take_action(extras, forms, sheet)
        assert done is not None and done.kind == "success", done
    after = Campaign.open(camp.folder)
    assert [(e.type, e.payload.id, e.payload.name) for e in after.events()[-2:]] == [
        ("pf1.named", "ActorRestovRuler", "Kesten"), ("pf1.named", "ActorViceroy0001", "Linzi")]
    assert action_forms(extras, after.ruleset, after.state()) is None
