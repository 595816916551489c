"""A kingdom kept in Foundry VTT brought in as a campaign and written back (issue 32).

The fixtures in tests/fixtures/foundry are built from the formats' published field declarations (every field
set): pf2e-kingmaker-tools' kingdom data (its ``KingdomData`` and ``Raw*`` types) today and before its migration
13, and the PF2e system's party kingdom today and in its older schema.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from kingdomlog.app import Campaign
from kingdomlog.cli import main
from kingdomlog.core.foreign import SECRET_TITLE, holds_nothing
from kingdomlog.core.viewers import GM_VIEWER
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.foundry import KMT, MAPPED, SETTINGS_TO_OPTIONS, mapped_view
from kingdomlog.rulesets.pf2e.ruleset import OPTIONS, RULESET
from kingdomlog.rulesets.pf2e.samples import sample_plans

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "foundry"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def state_json(capsys: pytest.CaptureFixture[str], folder: Path) -> dict[str, Any]:
    code, out, err = run(capsys, "state", str(folder), "--json")
    assert code == 0, err
    doc: dict[str, Any] = json.loads(out)
    state: dict[str, Any] = doc.get("state", doc)
    return state


def imported(capsys: pytest.CaptureFixture[str], tmp_path: Path, fixture: str,
             name: str = "realm") -> tuple[Path, dict[str, Any]]:
    folder = tmp_path / name
    code, out, err = run(capsys, "import-kingdom", str(folder), "--from", str(FIXTURES / fixture), "--json")
    assert code == 0, err
    return folder, json.loads(out)


def unmapped_fields(report: dict[str, Any]) -> dict[str, Any]:
    return {u["field"]: u["value"] for u in report["unmapped"]}


def test_a_kmt_kingdom_imports_field_by_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder, report = imported(capsys, tmp_path, "kmt-kingdom.json")
    assert (report["ruleset"], report["format"], report["schema"]) == ("pf2e-kingmaker", KMT, "migration 13 or later")
    s = state_json(capsys, folder)
    assert (s["name"], s["level"], s["xp"], s["unrest"], s["fame"], s["fame_type"], s["rp"]) == (
        "Tatzlford", 5, 340, 3, 2, "fame", 14)
    assert s["at_war"] is True
    assert s["commodities"] == {"food": 4, "lumber": 3, "luxuries": 1, "ore": 2, "stone": 5}
    assert s["pending"]["commodities"] == {"food": 1, "stone": 2}
    assert (s["pending"]["rp"], s["pending"]["fame"], s["pending"]["bonus_dice"], s["pending"]["consumption"]) == (
        4, 1, 2, 1)
    assert s["ruin"] == {"corruption": {"points": 2, "threshold": 10, "penalty": 0},
                         "crime": {"points": 5, "threshold": 11, "penalty": 1},
                         "decay": {"points": 0, "threshold": 10, "penalty": 0},
                         "strife": {"points": 7, "threshold": 12, "penalty": 0}}
    assert s["scores"] == {"culture": 14, "economy": 16, "loyalty": 16, "stability": 14}
    assert s["skills"]["boating"] == "expert" and s["skills"]["trade"] == "expert"
    assert "engineering" not in s["skills"] and s["skills"]["agriculture"] == "trained"
    leaders = s["leaders"]
    assert leaders["emissary"]["holder"] is None
    # the export names no actor but its companions: a leader is their name, or a placeholder in words until the
    # GM names them, never the raw id (issue 29); the actor's id is kept for export-kingdom
    assert (leaders["ruler"]["holder"], leaders["ruler"]["invested"]) == ("Ruler (unnamed in Foundry)", True)
    assert leaders["ruler"]["foundry_id"] == "Actor.Ruler00000000001"
    assert (leaders["general"]["holder"], leaders["general"]["foundry_id"]) == ("Amiri", "Actor.Amiri0000000001")
    assert (leaders["general"]["kind"], leaders["general"]["invested"]) == ("npc", False)
    assert sum(ld["invested"] for ld in leaders.values()) == 4
    assert (s["charter"], s["heartland"], s["government"]) == ("expansion", "lake-or-river", "feudalism")
    assert sorted(s["feats"]) == sorted([T.governments()["feudalism"].feat, "civil-service", "river-wardens",
                                         "practical-magic"])
    assert s["milestones"] == ["first-landmark", "first-village", "size-10"]
    # the module's ongoing events since its migration 14: {id, stage, settlementSceneId, secretLocation}
    assert [(e["name"], e["stage"], e["settlement"]) for e in s["ongoing_events"]] == [
        ("bandit-activity", 0, ""), ("cult-activity", 1, ""),  # its place is the GM's secret in the sheet
        ("wandering-dragon-parade", 0, "")]  # an event of the sheet's homebrew
    assert [(m["id"], m["selector"], m["expires"]) for m in s["modifiers"]] == [
        ("mod-trade-1", "skill:trade", "permanent"), ("mod-once-1", "all", "once"),
        ("mod-turn-1", "activity:claim-hex", "end_of_next_turn")]
    assert s["size"] == 12
    sites = [(h["work_site"]["commodity"], h["resource"]) for h in s["hexes"] if h["work_site"]]
    assert sorted(sites) == [("lumber", ""), ("lumber", "lumber"), ("ore", ""), ("stone", "stone")]
    assert sum("farmland" in h["features"] for h in s["hexes"]) == 2
    assert [(st["id"], st["name"], st["capital"]) for st in s["settlements"]] == [
        ("SceneTatzl000001", "Settlement 1 (unnamed in Foundry)", True),
        ("SceneTusk0000001", "Settlement 2 (unnamed in Foundry)", False)]
    assert (s["diplomatic_relations"], s["trade_agreements"], s["enemies"]) == (["Brevoy", "Mivon"], ["Brevoy"],
                                                                               ["Pitax"])
    assert s["armies"] == {"armies": 1}
    assert (s["event_dc"], s["cult_event_dc"]) == (11, 18)  # one turn without an event: 16 - 5; 20 - 2
    camp = Campaign.open(folder)
    opts = camp.config.options
    assert (opts["rp_to_xp_limit"], opts["resource_dice_per_town"], opts["cult_events"],
            opts["untrained_proficiency"], opts["capital_structures_everywhere"]) == (100, 1, True, "half_level", True)
    # the homebrew became a data file the campaign loads
    assert report["data_files"] == [f"data/{KMT}.toml"]
    cat = T.catalog(camp.state().homebrew)
    assert cat.activities["harvest-festival"].category == "leadership"
    assert cat.activities["harvest-festival"].dc == "control+2"
    assert cat.feats["river-wardens"].level == 3
    parade = cat.events["wandering-dragon-parade"]  # the sheet's homebrew event, its outcomes the GM's
    assert (parade.title, parade.skills, parade.leader, parade.continuous, parade.gm_ruling, parade.table) == (
        "Wandering Dragon Parade", ["arts", "folklore"], "counselor", True, True, None)
    assert parade.resolved_on == ["critical_success", "success"] and "Gain 1 Fame" in parade.gm_note
    # the notes became journal entries, the GM's hidden from the players
    notes = [(ev.visibility, ev.payload.text) for ev in camp.events() if ev.type == "core.note_added"
             and ev.payload.title != SECRET_TITLE]
    assert notes == [("public", "The river freezes early this year."), ("gm", "The mayor of Tuskwater is a spy.")]


def test_the_report_lists_what_is_not_mapped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder, report = imported(capsys, tmp_path, "kmt-kingdom.json")
    got = unmapped_fields(report)
    sheet = "kingdom-sheet"
    assert got[f"{sheet}.workSites.luxurySources.quantity"] == 1
    assert got[f"{sheet}.modifiers[4]"]["name"] == "Old Blessing"  # disabled
    assert got[f"{sheet}.modifiers[3]"]["applyIf"] == [{"gte": ["@unrest", 5]}]
    assert got[f"{sheet}.homebrewKingdomEvents"][0]["id"] == "wandering-dragon-parade"  # made data, and kept
    assert got[f"{sheet}.ongoingEvents[1]"] == {"id": "cult-activity", "settlementSceneId": "SceneTusk0000001",
                                                "secretLocation": True}  # secret: listed, not shown
    assert got[f"{sheet}.settings.reduceDCToBuildLumberStructures"] is True
    assert got[f"{sheet}.groups[0].negotiationDC"] == 22
    assert got[f"{sheet}.groups[3]"]["name"] == "Tiger Lords"  # neither relations nor war: no place in the state
    assert got[f"{sheet}.settlements[0].lots"] == 6
    assert all(u["why"] for u in report["unmapped"])
    # the report is kept with the fact, and the CLI prints it as field = value: why
    ev = next(e for e in Campaign.open(folder).events() if e.type == "pf2e.kingdom_imported")
    secret = {f"{sheet}.ongoingEvents[1]", f"{sheet}.companions"}  # in the GM's journal only (a test below)
    assert [u.field for u in ev.payload.unmapped] == [u["field"] for u in report["unmapped"]
                                                      if u["field"] not in secret]
    code, out, _ = run(capsys, "import-kingdom", str(tmp_path / "again"), "--from", str(FIXTURES / "kmt-kingdom.json"))
    assert code == 0
    assert f'  {sheet}.workSites.luxurySources.quantity = 1: kingdomlog\'s work sites are' in out


KMT_DECLARED = (
    "name", "atWar", "fame", "level", "xpThreshold", "xp", "size", "unrest", "resourcePoints", "resourceDice",
    "workSites", "consumption", "supernaturalSolutions", "creativeSolutions", "settings", "commodities", "ruin",
    "activeSettlement", "turnsWithoutCultEvent", "turnsWithoutEvent", "notes", "homebrewMilestones",
    "homebrewActivities", "homebrewCharters", "homebrewGovernments", "homebrewHeartlands", "homebrewFeats",
    "activityBlacklist", "featBlacklist", "heartlandBlacklist", "charterBlacklist", "governmentBlacklist",
    "modifiers", "settlements", "leaders", "charter", "heartland", "government", "abilityBoosts", "features",
    "bonusFeats", "ongoingEvents", "groups", "skillRanks", "abilityScores", "milestones",
    # added by the module's migrations 14 (events by id), 22 (council missions), 23 (quests), 24 (companions)
    "homebrewKingdomEvents", "kingdomEventBlacklist", "councilCooldowns", "quests", "companions",
)
"""The module's ``KingdomData`` fields (its declaration, and the fields its later migrations add)."""
KMT_SETTINGS_DECLARED = (
    "rpToXpConversionRate", "rpToXpConversionLimit", "resourceDicePerVillage", "resourceDicePerTown",
    "resourceDicePerCity", "ruinThreshold", "increaseScorePicksBy", "realmSceneId", "resourceDicePerMetropolis",
    "xpPerClaimedHex", "includeCapitalItemModifier", "cultOfTheBloomEvents", "autoCalculateSettlementLevel",
    "vanceAndKerensharaXP", "capitalInvestmentInCapital", "reduceDCToBuildLumberStructures",
    "kingdomSkillIncreaseEveryLevel", "kingdomAllStructureItemBonusesStack", "kingdomIgnoreSkillRequirements",
    "autoCalculateArmyConsumption", "enableLeadershipModifiers", "expandMagicUse", "kingdomEventRollMode",
    "automateResources", "proficiencyMode", "kingdomEventsTable", "kingdomCultTable", "maximumFamePoints",
    "leaderKingdomSkills", "leaderSkills", "automateStats", "eventDc", "eventDcStep", "cultEventDc",
    "cultEventDcStep", "settlementsGenerateRd", "partialStructureConstruction", "capitalCanGrowOneSizeLarger",
    "enableCouncilMissions",
)
KMT_READ = {"name", "atWar", "fame", "level", "xpThreshold", "xp", "size", "unrest", "resourcePoints",
            "resourceDice", "workSites", "consumption", "commodities", "ruin", "turnsWithoutCultEvent",
            "turnsWithoutEvent", "notes", "homebrewActivities", "homebrewFeats", "modifiers", "settlements",
            "leaders", "charter", "heartland", "government", "features", "bonusFeats", "ongoingEvents", "groups",
            "skillRanks", "abilityScores", "milestones", "settings"}
"""What the import maps (into the state, options, journal or data files); each other field is listed."""


def test_every_declared_field_is_in_the_fixture_and_mapped_or_listed_with_why(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = json.loads((FIXTURES / "kmt-kingdom.json").read_text())["flags"][KMT]["kingdom-sheet"]
    assert set(src) == set(KMT_DECLARED)  # each declared field set, and no other
    assert set(src["settings"]) == set(KMT_SETTINGS_DECLARED)
    _, report = imported(capsys, tmp_path, "kmt-kingdom.json")
    why = {u["field"]: u["why"] for u in report["unmapped"]}
    for key in set(KMT_DECLARED) - KMT_READ:
        if not holds_nothing(src[key]):
            assert f"kingdom-sheet.{key}" in why, key
            assert why[f"kingdom-sheet.{key}"] != "kingdomlog has no field for it", key  # a reason, not a shrug
    mapped_settings = {*SETTINGS_TO_OPTIONS, "vanceAndKerensharaXP", "proficiencyMode", "rpToXpConversionRate",
                       "eventDc"}  # the last two are listed when they differ from kingdomlog's 1 and 16
    for key in set(KMT_SETTINGS_DECLARED) - mapped_settings:
        if not holds_nothing(src["settings"][key]):
            assert f"kingdom-sheet.settings.{key}" in why, key
            assert why[f"kingdom-sheet.settings.{key}"] != "kingdomlog has no field for it", key


def test_a_field_nobody_reads_is_listed_never_dropped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads((FIXTURES / "kmt-kingdom.json").read_text())
    data = doc["flags"][KMT]["kingdom-sheet"]
    data["brandNewField"] = {"answer": 42}
    data["settings"]["someFutureSetting"] = True
    data["leaders"]["ruler"]["title"] = "Baron"
    data["homebrewActivities"][0]["success"]["modifiers"] = [{"name": "Cheer", "value": 1, "type": "status"}]
    path = tmp_path / "kingdom.json"
    path.write_text(json.dumps(doc))
    code, out, err = run(capsys, "import-kingdom", str(tmp_path / "realm"), "--from", str(path), "--json")
    assert code == 0, err
    got = unmapped_fields(json.loads(out))
    assert got["kingdom-sheet.brandNewField"] == {"answer": 42}
    assert got["kingdom-sheet.settings.someFutureSetting"] is True
    assert got["kingdom-sheet.leaders.ruler.title"] == "Baron"
    assert got["kingdom-sheet.homebrewActivities[0].success.modifiers"][0]["name"] == "Cheer"


def test_a_kmt_kingdom_of_the_schema_before_migration_13_imports(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    folder, report = imported(capsys, tmp_path, "kmt-kingdom-legacy.json")
    assert report["schema"].startswith("before migration 13")
    s = state_json(capsys, folder)
    assert (s["name"], s["level"], s["xp"], s["fame_type"], s["rp"]) == ("Oleg's Rest", 2, 80, "infamy", 6)
    assert (s["charter"], s["government"], s["heartland"]) == ("grant", "republic", "forest-or-swamp")
    assert sorted(s["feats"]) == sorted({T.governments()["republic"].feat, "civil-service", "muddle-through"})
    assert s["milestones"] == ["first-village"]
    assert s["leaders"]["ruler"]["holder"] == "Kesten" and s["leaders"]["viceroy"]["holder"] is None
    assert s["leaders"]["counselor"]["kind"] == "pc"  # a companion
    assert [(m["selector"], m["expires"]) for m in s["modifiers"]] == [("skill:trade", "permanent"), ("all", "once")]
    assert [e["name"] for e in s["ongoing_events"]] == ["crop-failure"]  # a journal link with its label
    link = "@UUID[JournalEntry.dAtoyQhSfSBvjr2W.JournalEntryPage.N29niitpzc7GWUxN]"
    assert unmapped_fields(report)["kingdom-sheet.ongoingEvents[1].name"] == link  # a bare link: listed
    assert s["enemies"] == ["Stag Lord's Bandits"]
    assert s["ruin"]["decay"] == {"points": 3, "threshold": 12, "penalty": 0}
    assert s["size"] == 4
    got = unmapped_fields(report)
    assert got["kingdom-sheet.leaders.counselor.type"] == "companion"
    assert got["kingdom-sheet.creativeSolutions"] == 1
    # every field of the module's KingdomData of then is set: read, or listed with its reason
    assert (got["kingdom-sheet.realmSceneId"], got["kingdom-sheet.settings.expandMagicUse"]) == ("RealmOleg0000001",
                                                                                                 True)
    assert "kingdom-sheet.fame.max" not in got  # the rules' 3
    assert T.catalog(Campaign.open(folder).state().homebrew).activities["hold-a-feast"].category == "leadership"
    notes = [(e.visibility, e.payload.text) for e in Campaign.open(folder).events() if e.type == "core.note_added"]
    assert notes == [("public", "Oleg's trading post is our first home."), ("gm", "Svetlana pays the bandits.")]


def test_the_pf2e_systems_kingdom_imports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder, report = imported(capsys, tmp_path, "pf2e-party-kingdom.json")
    assert (report["format"], report["schema"]) == ("pf2e-system", "current schema")
    s = state_json(capsys, folder)
    assert (s["name"], s["level"], s["xp"], s["unrest"], s["rp"], s["fame"], s["event_dc"]) == (
        "Varnhold Reach", 3, 150, 2, 9, 1, 11)
    assert s["scores"] == {"culture": 14, "economy": 12, "loyalty": 14, "stability": 16}
    assert s["ruin"]["crime"] == {"points": 4, "threshold": 10, "penalty": 1}  # economy's Ruin
    assert s["ruin"]["strife"]["threshold"] == 11  # loyalty's
    assert s["skills"]["warfare"] == "expert"
    assert (s["charter"], s["heartland"], s["government"]) == ("conquest", "hill-or-plain", "despotism")
    assert sorted(s["feats"]) == ["crush-dissent", "fortified-fiefs"]
    assert [(st["name"], st["capital"]) for st in s["settlements"]] == [("Varnhold", True), ("Hollow Ford", False)]
    assert s["leaders"]["emissary"]["holder"] is None and s["leaders"]["general"]["invested"] is True
    assert [(m["id"], m["selector"]) for m in s["modifiers"]] == [("veteran-troops", "skill:warfare")]
    sites = sorted((h["work_site"]["commodity"], h["resource"]) for h in s["hexes"] if h["work_site"])
    assert sites == [("lumber", ""), ("lumber", "lumber"), ("ore", "ore")]
    assert s["pending"]["bonus_dice"] == 1 and s["armies"] == {"armies": 1}
    assert Campaign.open(folder).config.options["anarchy_threshold"] == 24
    got = unmapped_fields(report)
    assert got["items[3]"] == "Aurochs Whisperer"
    assert got["system.campaign.event.text"].startswith("A herd")
    assert "system.campaign.customModifiers.all[0]" in got
    assert not [f for f in got if f.startswith("system.campaign.consumption")]  # derived, the army's read


def test_the_pf2e_systems_older_kingdom_imports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder, report = imported(capsys, tmp_path, "pf2e-party-kingdom-old.json")
    assert report["schema"].startswith("older schema")
    s = state_json(capsys, folder)
    assert (s["name"], s["unrest"], s["fame_type"], s["pending"]["penalty_dice"]) == ("Tuskwater", 4, "infamy", 1)
    sites = sorted((h["work_site"]["commodity"], h["resource"]) for h in s["hexes"] if h["work_site"])
    assert sites == [("ore", ""), ("stone", "stone")]
    assert sum("farmland" in h["features"] for h in s["hexes"]) == 1
    assert (s["leaders"]["ruler"]["holder"], s["leaders"]["ruler"]["foundry_id"]) == ("Ruler (unnamed in Foundry)",
                                                                                       "Actor.tusk-ruler")
    assert unmapped_fields(report)["system.campaign.build.manual"] is True


@pytest.mark.parametrize("fixture", ["kmt-kingdom.json", "kmt-kingdom-legacy.json", "pf2e-party-kingdom.json",
                                     "pf2e-party-kingdom-old.json"])
def test_imported_played_a_month_and_exported_round_trips(fixture: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    folder, first_report = imported(capsys, tmp_path, fixture)
    first = unmapped_fields(first_report)
    plan = tmp_path / "turn-1.json"
    plan.write_text(json.dumps(sample_plans()[1]))
    code, _, err = run(capsys, "turn", str(folder), "--plan", str(plan))
    assert code == 0, err
    played = Campaign.open(folder).state()
    assert played.turn == 1
    out = tmp_path / "back.json"
    code, _, err = run(capsys, "export-kingdom", str(folder), "--to", str(out))
    assert code == 0, err
    doc = json.loads(out.read_text())
    sheet = doc["flags"][KMT]["kingdom-sheet"]
    assert (sheet["xp"], sheet["resourcePoints"]["now"], sheet["commodities"]["now"]["food"]) == (
        played.xp, played.rp, played.commodities["food"])
    # ongoing events in the shape the module reads since its migration 14 (it reads no 'name')
    ours = sheet["ongoingEvents"][:len(played.ongoing_events)]  # then the sheet's own kingdomlog had no place for
    assert [(e["id"], e["stage"], e["settlementSceneId"]) for e in ours] == [
        (e.name, e.stage, e.settlement or None) for e in played.ongoing_events]
    code, report, err = run(capsys, "import-kingdom", str(tmp_path / "again"), "--from", str(out), "--json")
    assert code == 0, err
    again_camp = Campaign.open(tmp_path / "again")
    want, got = mapped_view(played), mapped_view(again_camp.state())
    assert set(got) == set(want) == set(MAPPED)
    for f in MAPPED:  # every field the format carries, one by one
        assert got[f] == want[f], f
    opts, back = Campaign.open(folder).config.options, again_camp.config.options
    default = {o.name: o.default for o in OPTIONS}
    for opt in [o for o, _, _ in SETTINGS_TO_OPTIONS.values()] + ["xp_per_hex_mode", "rp_to_xp_mode",
                                                                  "untrained_proficiency"]:
        assert back.get(opt, default[opt]) == opts.get(opt, default[opt]), opt  # the settings, as options
    # nothing written that the reader cannot take back: what it lists again is what the sheet held and kingdomlog
    # does not (the export gave it back to the module as it was)
    listed = {re.sub(r"\[\d+\]", "[]", u["field"]) for u in json.loads(report)["unmapped"]}
    assert listed <= {re.sub(r"\[\d+\]", "[]", f) for f in first}, listed


def _played_and_exported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    folder, _ = imported(capsys, tmp_path, "kmt-kingdom.json")
    plan = tmp_path / "turn-1.json"
    plan.write_text(json.dumps(sample_plans()[1]))
    assert run(capsys, "turn", str(folder), "--plan", str(plan))[0] == 0
    out = tmp_path / "back.json"
    code, _, err = run(capsys, "export-kingdom", str(folder), "--to", str(out))
    assert code == 0, err
    sheet: dict[str, Any] = json.loads(out.read_text())["flags"][KMT]["kingdom-sheet"]
    return sheet


def test_going_back_to_foundry_loses_nothing_the_import_listed(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The export is meant to be set on the Foundry actor again: what the sheet held and kingdomlog does not
    (notes, settings, blacklists, homebrew it has no place for, a settlement's lots) goes back as it was, not
    blanked to the module's defaults."""
    src = json.loads((FIXTURES / "kmt-kingdom.json").read_text())["flags"][KMT]["kingdom-sheet"]
    sheet = _played_and_exported(tmp_path, capsys)
    assert sheet["notes"] == src["notes"]  # kept as two journal entries, written back
    for key in ("activeSettlement", "supernaturalSolutions", "activityBlacklist", "featBlacklist", "abilityBoosts",
                "xpThreshold", "homebrewMilestones", "homebrewCharters", "homebrewGovernments", "homebrewHeartlands",
                "homebrewKingdomEvents", "kingdomEventBlacklist", "quests", "companions", "councilCooldowns",
                "homebrewActivities", "homebrewFeats"):  # the sheet's own homebrew, outcomes and modifiers too
        assert sheet[key] == src[key], key
    for part in ("charter", "government"):
        assert sheet[part]["abilityBoosts"] == src[part]["abilityBoosts"], part
    for key, value in src["settings"].items():
        if not holds_nothing(value):
            assert sheet["settings"][key] == value, key
    assert sheet["workSites"]["luxurySources"] == src["workSites"]["luxurySources"]
    # the groups with their negotiation DCs (one with neither relations nor war too), the level choices
    assert sheet["groups"] == src["groups"]
    assert (sheet["features"], sheet["bonusFeats"]) == (src["features"], src["bonusFeats"])
    assert [(st["sceneId"], st["lots"], st["level"], st["waterBorders"], st["secondaryTerritory"])
            for st in sheet["settlements"]] == [("SceneTatzl000001", 6, 2, 1, False),
                                                ("SceneTusk0000001", 1, 1, 0, True)]
    # the leaders go back as the Foundry actors they are (kingdomlog shows them by name)
    assert {r: ld["uuid"] for r, ld in sheet["leaders"].items()} == {r: ld["uuid"] for r, ld in src["leaders"].items()}
    assert src["milestones"][4] in sheet["milestones"]  # the sheet's homebrew milestone
    assert src["modifiers"][3] in sheet["modifiers"] and src["modifiers"][4] in sheet["modifiers"]
    cult = next(e for e in sheet["ongoingEvents"] if e["id"] == "cult-activity")  # still ongoing after the month
    assert (cult["settlementSceneId"], cult["secretLocation"]) == ("SceneTusk0000001", True)  # its secret place
    # the figures of a turn are not carried: a month played here used them
    assert (sheet["resourceDice"]["next"], sheet["consumption"]["next"]) == (0, 0)


def test_the_settings_map_onto_options_within_their_bounds() -> None:
    specs = {o.name: o for o in OPTIONS}
    for key, (opt, lo, hi) in SETTINGS_TO_OPTIONS.items():
        spec = specs[opt]
        if hi == 0:
            assert spec.type == "bool", key
        else:
            assert spec.type == "int", key
            assert lo >= (spec.minimum or 0) and hi <= (spec.maximum if spec.maximum is not None else hi), key


def _mutate(path: str, value: Any) -> dict[str, Any]:
    doc = json.loads((FIXTURES / "kmt-kingdom.json").read_text())
    node: Any = doc["flags"][KMT]["kingdom-sheet"]
    *parents, last = path.split(".")
    for p in parents:
        node = node[int(p)] if isinstance(node, list) else node[p]
    if value is _DELETE:
        del node[last]
    else:
        node[last] = value
    return doc


_DELETE = object()


@pytest.mark.parametrize(("doc", "needle"), [
    (lambda: _mutate("level", "five"), "field kingdom-sheet.level must be a whole number from 1 to 20, got 'five'"),
    (lambda: _mutate("leaders.ruler.invested", "yes"), "field kingdom-sheet.leaders.ruler.invested must be true or"),
    (lambda: _mutate("ruin", _DELETE), "field kingdom-sheet.ruin is missing"),
    (lambda: _mutate("settlements.0.type", "metropolis"), "field kingdom-sheet.settlements[0].type must be one of"),
    (lambda: _mutate("workSites.mines.resources", 3), "field kingdom-sheet.workSites.mines.resources (3) is more"),
    (lambda: _mutate("commodities", [1, 2]), "field kingdom-sheet.commodities must be an object"),
    (lambda: _mutate("settlements.1.sceneId", "SceneTatzl000001"),
     "field kingdom-sheet.settlements[1].sceneId must name a scene no other settlement names"),
    (lambda: {"name": "A journal", "pages": []}, "flags.pf2e-kingmaker-tools.kingdom-sheet (pf2e-kingmaker-tools"),
    (lambda: [1, 2, 3], "not a kingdom export kingdomlog reads"),
    (lambda: "{not json", "not JSON"),
    (lambda: "", "not JSON (Expecting value: line 1, column 1)"),
    (lambda: "[" * 100_000 + "]" * 100_000, "nests deeper than 64 levels"),
    (lambda: _mutate("notes.public", json.loads("[" * 70 + "]" * 70)), "field flags.pf2e-kingmaker-tools.kingdom"),
    (lambda: {"type": "party", "flags": {KMT: {"kingdom-sheet": None}}},
     "pf2e-kingmaker-tools kingdom sheet: field kingdom-sheet must be an object, got null"),
    (lambda: _mutate("xp", 10 ** 30), "field kingdom-sheet.xp must be a whole number from 0 to 1000000"),
    (lambda: _mutate("commodities.now.ore", -2), "field kingdom-sheet.commodities.now.ore must be a whole number"),
    (lambda: _mutate("ongoingEvents.1.stage", "two"), "field kingdom-sheet.ongoingEvents[1].stage must be a whole"),
    (lambda: _mutate("homebrewFeats.0.id", []), "field kingdom-sheet.homebrewFeats[0].id must be text"),
    (lambda: _mutate("size", 10_001), "field kingdom-sheet.size must be a whole number from 0 to 10000"),
])
def test_a_malformed_or_unknown_export_is_refused_naming_the_field(doc: Any, needle: str, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    value = doc()
    src = tmp_path / "in.json"
    src.write_text(value if isinstance(value, str) else json.dumps(value))
    root = tmp_path / "campaigns"
    root.mkdir()
    code, _, err = run(capsys, "import-kingdom", str(root / "realm"), "--from", str(src))
    assert code == 1
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert err.startswith(f"kingdomlog: error: {src}: ") and needle in err, err
    assert list(root.iterdir()) == []  # nothing written: no campaign, no half-built hidden folder


def test_an_ongoing_events_place_is_imported_unless_the_sheet_keeps_it_secret(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "open.json"
    src.write_text(json.dumps(_mutate("ongoingEvents.1.secretLocation", False)))
    code, _, err = run(capsys, "import-kingdom", str(tmp_path / "open"), "--from", str(src))
    assert code == 0, err
    cult = next(e for e in Campaign.open(tmp_path / "open").state().ongoing_events if e.name == "cult-activity")
    assert (cult.stage, cult.settlement) == (1, "SceneTusk0000001")
    folder, _ = imported(capsys, tmp_path, "kmt-kingdom.json")  # the fixture's place is secret
    cult = next(e for e in Campaign.open(folder).state().ongoing_events if e.name == "cult-activity")
    assert cult.settlement == ""


def test_an_ongoing_event_kingdomlog_does_not_know_goes_back_as_it_was(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads((FIXTURES / "kmt-kingdom.json").read_text())
    doc["flags"][KMT]["kingdom-sheet"]["ongoingEvents"].append({"id": "unheard-of-omen", "stage": 2})
    src = tmp_path / "kingdom.json"
    src.write_text(json.dumps(doc))
    code, out, err = run(capsys, "import-kingdom", str(tmp_path / "realm"), "--from", str(src), "--json")
    assert code == 0, err
    assert unmapped_fields(json.loads(out))["kingdom-sheet.ongoingEvents[3]"] == {"id": "unheard-of-omen", "stage": 2}
    back = tmp_path / "back.json"
    assert run(capsys, "export-kingdom", str(tmp_path / "realm"), "--to", str(back))[0] == 0
    events = json.loads(back.read_text())["flags"][KMT]["kingdom-sheet"]["ongoingEvents"]
    assert {"id": "unheard-of-omen", "stage": 2} in events
    assert [e["id"] for e in events].count("cult-activity") == 1  # its secret place goes back onto it, once


def test_what_the_sheet_keeps_secret_never_reaches_the_players(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The import event is every viewer's (it is the kingdom); an event's secret place and the GM's plot hooks
    go to a GM-only journal entry instead of its report, and still go back to Foundry."""
    folder, report = imported(capsys, tmp_path, "kmt-kingdom.json")
    got = unmapped_fields(report)  # the GM's own report still names them
    assert got["kingdom-sheet.ongoingEvents[1]"]["settlementSceneId"] == "SceneTusk0000001"
    for viewer in ("public", "gm"):
        out = tmp_path / f"{viewer}.jsonl"
        code, _, err = run(capsys, "export", str(folder), "--as", viewer, "-o", str(out))
        assert code == 0, err
        text = out.read_text()
        assert ("secretLocation" in text) == (viewer == "gm")  # the secret place's entry
        assert ("Hunts the Tatzlwyrm" in text) == (viewer == "gm")  # a companion's plot hook
    page = tmp_path / "public.html"
    assert run(capsys, "share", str(folder), "--as", "public", "-o", str(page))[0] == 0
    assert "Hunts the Tatzlwyrm" not in page.read_text() and SECRET_TITLE not in page.read_text()
    back = tmp_path / "back.json"
    assert run(capsys, "export-kingdom", str(folder), "--to", str(back))[0] == 0
    sheet = json.loads(back.read_text())["flags"][KMT]["kingdom-sheet"]
    cult = next(e for e in sheet["ongoingEvents"] if e["id"] == "cult-activity")
    assert (cult["settlementSceneId"], cult["secretLocation"]) == ("SceneTusk0000001", True)
    assert sheet["companions"][0]["plotHook"] == "Hunts the Tatzlwyrm."


def test_a_companion_leading_goes_back_as_a_companion(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder, _ = imported(capsys, tmp_path, "kmt-kingdom-legacy.json")  # Jubilost, a companion, is counselor
    back = tmp_path / "back.json"
    assert run(capsys, "export-kingdom", str(folder), "--to", str(back))[0] == 0
    leaders = json.loads(back.read_text())["flags"][KMT]["kingdom-sheet"]["leaders"]
    assert (leaders["counselor"]["uuid"], leaders["counselor"]["type"]) == ("Jubilost", "companion")
    assert leaders["ruler"]["type"] == "pc"


def test_a_byte_order_mark_is_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An export saved again by an editor that writes a UTF-8 byte-order mark (a hand-edited kingdom)."""
    src = tmp_path / "edited.json"
    src.write_bytes(b"\xef\xbb\xbf" + (FIXTURES / "kmt-kingdom.json").read_bytes())
    code, _, err = run(capsys, "import-kingdom", str(tmp_path / "realm"), "--from", str(src))
    assert code == 0, err
    assert Campaign.open(tmp_path / "realm").state().name == "Tatzlford"


def test_the_systems_earlier_work_sites_are_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A schema of the PF2e system between the older and the current: ``workSites.<lumber|ore|stone>`` counted
    as ``regular`` and ``resource`` (the system's kingdom schema declared them so)."""
    party = json.loads((FIXTURES / "pf2e-party-kingdom.json").read_text())
    kingdom = party["system"]["campaign"]
    kingdom["resources"]["workSites"] = {"lumber": {"regular": 2, "resource": 0}, "ore": {"regular": 0, "resource": 1},
                                         "stone": {"regular": 1, "resource": 0}}
    kingdom["unrest"] = 2
    src = tmp_path / "party.json"
    src.write_text(json.dumps(party))
    code, out, err = run(capsys, "import-kingdom", str(tmp_path / "realm"), "--from", str(src), "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["schema"].startswith("earlier schema")
    assert not [f for f in unmapped_fields(report) if "workSites" in f]
    s = Campaign.open(tmp_path / "realm").state()
    sites = sorted((h.work_site.commodity, h.resource) for h in s.hexes if h.work_site)
    assert sites == [("lumber", ""), ("lumber", ""), ("ore", "ore"), ("stone", "")]


def test_a_folder_that_is_not_empty_is_refused_and_left_alone(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "realm"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    code, _, err = run(capsys, "import-kingdom", str(folder), "--from", str(FIXTURES / "kmt-kingdom.json"))
    assert code == 1 and "folder is not empty" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["realm"]
    assert [p.name for p in folder.iterdir()] == ["notes.txt"]


def test_the_chronicle_says_where_the_campaign_came_from(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder, _ = imported(capsys, tmp_path, "kmt-kingdom.json")
    camp = Campaign.open(folder)
    ev = next(e for e in camp.events() if e.type == "pf2e.kingdom_imported")
    before = RULESET.initial_state(camp.context)
    after = RULESET.evolve(before, ev)
    line = RULESET.chronicle(before, ev, after, GM_VIEWER)
    assert line is not None
    assert line.startswith("Tatzlford came from pf2e-kingmaker-tools kingdom sheet (kmt-kingdom.json): level 5, 12")
    assert "stayed behind" in line


def test_export_is_refused_for_a_ruleset_without_a_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "saga"
    code, _, err = run(capsys, "new", str(folder), "--ruleset", "aikakirjat")
    assert code == 0, err
    code, _, err = run(capsys, "export-kingdom", str(folder), "--to", str(tmp_path / "out.json"))
    assert code == 1 and "cannot be exported" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out.json").exists()


def test_the_import_event_is_checked_when_it_enters() -> None:
    from kingdomlog.rulesets.pf2e.events import KingdomImported

    with pytest.raises(ValueError, match="campaign's own"):
        KingdomImported(source=KMT, kingdom={"name": "X", "options": {}})
    with pytest.raises(ValueError):
        KingdomImported(source=KMT, kingdom={"name": "X", "level": "high"})
    ok = KingdomImported(source=KMT, kingdom=copy.deepcopy({"name": "X", "level": 2}))
    assert ok.kingdom["level"] == 2


def test_a_failure_after_the_campaign_was_begun_leaves_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from kingdomlog.core.errors import StoreError

    def refuse(self: Campaign, *a: Any, **k: Any) -> Any:
        raise StoreError("the disk is full (simulated)")

    monkeypatch.setattr(Campaign, "append", refuse)
    root = tmp_path / "campaigns"
    root.mkdir()
    code, _, err = run(capsys, "import-kingdom", str(root / "realm"), "--from", str(FIXTURES / "kmt-kingdom.json"))
    assert code == 1 and "simulated" in err
    assert list(root.iterdir()) == []


def test_the_gm_sheet_opens_an_imported_kingdom_on_its_first_month(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from kingdomlog.views.sheet import draft as sheet

    # a fixed seed: with some seeds a Cult of the Bloom event occurs (the fixture turns them on) and the sheet
    # rightly waits for the GM to name it
    monkeypatch.setattr(sheet, "new_seed", lambda: "import-sheet-1")
    folder, _ = imported(capsys, tmp_path, "kmt-kingdom.json")
    session, message = sheet.open_session(folder)
    assert session is not None, message
    forms = session.widgets()
    draft = session.update(dict(forms.value))
    assert draft.plan.turn == 1 and draft.problem is None
    session.roll_all()
    draft = session.update(dict(session.widgets().value))
    assert draft.ok and draft.committable, draft.problem or (draft.refused and draft.refused.error)
    assert sheet.last_turn_label(session) == "the import"  # what Undo would take back: not a "founding"
    from kingdomlog.views.sheet.cards import undo_question

    assert "Undo the import?" in str(undo_question(session)) and "plan opens again" not in str(undo_question(session))
    outcome = sheet.undo(session)
    assert outcome is not None and outcome.text.startswith("Undid the import: a retraction was appended")
    assert not Campaign.open(folder).state().founded  # nothing deleted: the import's batch is retracted
    code, out, _ = run(capsys, "state", str(folder))
    assert code == 0 and "— nothing played yet, as the GM sees it" in out.splitlines()[0]  # not "after month None"


def test_a_long_note_is_kept_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads((FIXTURES / "kmt-kingdom.json").read_text())
    long = "".join(f"Month {i}: the barons argued again. " for i in range(900))
    assert len(long) > 20_000
    doc["flags"][KMT]["kingdom-sheet"]["notes"]["gm"] = long
    src = tmp_path / "kingdom.json"
    src.write_text(json.dumps(doc))
    code, _, err = run(capsys, "import-kingdom", str(tmp_path / "realm"), "--from", str(src))
    assert code == 0, err
    gm = [e.payload.text for e in Campaign.open(tmp_path / "realm").events()
          if e.type == "core.note_added" and e.visibility == "gm" and e.payload.title != SECRET_TITLE]
    assert len(gm) == 2 and "".join(gm) == long


def test_the_demo_kingdom_founded_here_round_trips_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A kingdom founded and played in kingdomlog (18 months of the stolen-lands demo) exports and imports to the
    same figures: a modifier whose selector the module cannot say travels in flags.kingdomlog."""
    import shutil

    demo = tmp_path / "stolen-lands"
    shutil.copytree(Path(__file__).resolve().parents[2] / "campaigns" / "stolen-lands", demo,
                    ignore=shutil.ignore_patterns(".cache", "drafts"))
    out = tmp_path / "back.json"
    code, _, err = run(capsys, "export-kingdom", str(demo), "--to", str(out))
    assert code == 0, err
    sheet_mods = json.loads(out.read_text())["flags"][KMT]["kingdom-sheet"]["modifiers"]
    assert all(c[next(iter(c))][0].startswith("@") for m in sheet_mods for c in m["applyIf"])
    code, report, err = run(capsys, "import-kingdom", str(tmp_path / "again"), "--from", str(out), "--json")
    assert code == 0, err
    assert json.loads(report)["unmapped"] == []
    assert mapped_view(Campaign.open(tmp_path / "again").state()) == mapped_view(Campaign.open(demo).state())


def test_commodities_beyond_kingdomlogs_storage_are_listed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = _mutate("commodities.now.food", 20)
    src = tmp_path / "kingdom.json"
    src.write_text(json.dumps(doc))
    code, out, err = run(capsys, "import-kingdom", str(tmp_path / "realm"), "--from", str(src), "--json")
    assert code == 0, err
    got = {u["field"]: u for u in json.loads(out)["unmapped"]}
    assert got["kingdom-sheet.commodities.now.food"]["value"] == 20
    assert "storage (8" in got["kingdom-sheet.commodities.now.food"]["why"]
    assert Campaign.open(tmp_path / "realm").state().commodities["food"] == 20  # kept as the sheet had it
    party = json.loads((FIXTURES / "pf2e-party-kingdom.json").read_text())
    party["system"]["campaign"]["resources"]["commodities"]["ore"]["max"] = 12
    src.write_text(json.dumps(party))
    code, out, err = run(capsys, "import-kingdom", str(tmp_path / "party"), "--from", str(src), "--json")
    assert code == 0, err
    got = {u["field"]: u for u in json.loads(out)["unmapped"]}
    assert got["system.campaign.resources.commodities.ore.max"]["value"] == 12


def test_a_party_holding_both_kingdoms_reads_the_modules_and_lists_the_systems(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads((FIXTURES / "kmt-kingdom.json").read_text())
    doc["system"] = json.loads((FIXTURES / "pf2e-party-kingdom.json").read_text())["system"]
    src = tmp_path / "party.json"
    src.write_text(json.dumps(doc))
    code, out, err = run(capsys, "import-kingdom", str(tmp_path / "realm"), "--from", str(src), "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["format"] == KMT
    assert unmapped_fields(report)["system.campaign"] == {"name": "Varnhold Reach", "level": 3}


def test_the_players_page_tells_where_the_kingdom_came_from(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder, _ = imported(capsys, tmp_path, "kmt-kingdom.json")
    page = tmp_path / "public.html"
    code, _, err = run(capsys, "share", str(folder), "--as", "public", "-o", str(page))
    assert code == 0, err
    html = page.read_text()
    assert "Tatzlford came from pf2e-kingmaker-tools kingdom sheet (kmt-kingdom.json)" in html
    assert "The mayor of Tuskwater is a spy" not in html  # the GM's note stays the GM's
    assert "The river freezes early this year" in html


def test_an_edited_kingdomlog_flag_is_refused_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder, _ = imported(capsys, tmp_path, "kmt-kingdom.json")
    out = tmp_path / "back.json"
    assert run(capsys, "export-kingdom", str(folder), "--to", str(out))[0] == 0
    doc = json.loads(out.read_text())
    doc["flags"]["kingdomlog"]["settlements"][0]["hex"] = "nowhere"
    out.write_text(json.dumps(doc))
    code, _, err = run(capsys, "import-kingdom", str(tmp_path / "again"), "--from", str(out))
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert "field flags.kingdomlog.settlements: SceneTatzl000001 stands on hex 'nowhere'" in err
    assert not (tmp_path / "again").exists()


def test_an_unfounded_kingdom_is_not_exported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "empty"
    assert run(capsys, "new", str(folder), "--ruleset", "pf2e")[0] == 0
    code, _, err = run(capsys, "export-kingdom", str(folder), "--to", str(tmp_path / "out.json"))
    assert code == 1 and "empty: the kingdom is not founded yet" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out.json").exists()
