"""The kingdom panel's "Everything else" in words, read from the panel as the sheet renders it (no browser): pf1's
enum codes said as the pf1 spec names them ("Grand Diplomat", "None"; they read "GRAND_DIPLOMAT", "NONE"), records
inside a cell counted as a person counts them or listed by name ("3 notices", "Ruler: Kesten Garess"; they read
"RULER: 1 item(s)"), signoria's upkeep flags and phase as signoria.md says them ("Month 2: Duke Fabian low on
wealth (1)", "Upkeep"; they read "t2 Duke Fabian low resource: wealth 1", "upkeep")."""

from __future__ import annotations

import html as html_
import re
import shutil
from pathlib import Path

from nb_support import panel_records

from kingdomlog.views.sheet import panel
from kingdomlog.views.sheet.draft import load_start

REPO = Path(__file__).resolve().parents[2]


def _rows(demo: str, tmp: Path) -> dict[str, str]:
    """The panel's "Everything else" rows of ``demo``'s start of turn: heading → cell text."""
    folder = tmp / demo
    shutil.copytree(REPO / "campaigns" / demo, folder, ignore=shutil.ignore_patterns(".cache", "drafts", "table"))
    start = load_start(folder, check_forms=False)
    page = str(panel.panel_html(start.ruleset, start.state))
    section = next(s for s in re.findall(r"<details.*?</details>", page, re.S) if "Everything else" in s)
    rows = re.findall(r"<tr><th>(.*?)</th><td>(.*?)</td></tr>", section, re.S)
    return {html_.unescape(k): html_.unescape(re.sub(r"<[^>]+>", "", v)) for k, v in rows}


def _all_tables(demo: str, tmp: Path) -> str:
    folder = tmp / f"{demo}-all"
    shutil.copytree(REPO / "campaigns" / demo, folder, ignore=shutil.ignore_patterns(".cache", "drafts", "table"))
    start = load_start(folder, check_forms=False)
    return html_.unescape(re.sub(r"<[^>]+>", " ", str(panel.panel_html(start.ruleset, start.state))))


def test_pf1_codes_are_said_as_the_spec_names_them(tmp_path: Path) -> None:
    rows = _rows("river-kingdom", tmp_path)
    assert rows["Edicts"].startswith("promotion None; taxation Normal"), rows["Edicts"]
    assert rows["Leaders"].startswith("Ruler: Kesten Garess; Councilor: Jhod Kavken; General: Amiri; Grand Diplomat"
                                      ), rows["Leaders"]
    assert rows["Catalog"].startswith("70 buildings; 5 terrains; 10 improvements; 15 roles"), rows["Catalog"]
    shown = " ".join(rows.values())
    assert not re.findall(r"\b[A-Z]{2,}_[A-Z_]+\b|\b(?:NONE|NORMAL|RULER)\b", shown), shown


def test_pf1s_foreign_kingdoms_at_war_with_each_other_read_as_a_pair(tmp_path: Path) -> None:
    """pf1's enemies among the foreign kingdoms (a list of pairs of ids) read "Mivon and Pitax" (it read "Mivon
    Pitax", one name or two)."""
    assert _rows("river-kingdom", tmp_path)["Enemies"] == "Mivon and Pitax"


def test_everything_else_says_a_field_whole(tmp_path: Path) -> None:
    """"Everything else" (folded; its cells wrap) cuts a field's words at ``panel.WHOLE``, not at a table cell's 80
    characters: pf1's Leaders read "…; General: Amiri; Grand Diplomat:…", 3 of its 11 leaders, pf2e's Skills 4 of 7."""
    leaders = _rows("river-kingdom", tmp_path)["Leaders"]
    assert leaders.endswith("; Spymaster: Nok-Nok; Treasurer: Jubilost; Warden: Valerie"), leaders
    assert _rows("stolen-lands", tmp_path)["Skills"].endswith("; industry trained")


def test_no_cell_counts_in_item_s(tmp_path: Path) -> None:
    texts = {demo: _all_tables(demo, tmp_path) for demo in ("river-kingdom", "felmonte")}
    for demo, text in texts.items():
        assert "item(s)" not in text, (demo, re.findall(r".{40}item\(s\)", text))
    assert "Duke Fabian 2 orders" in " ".join(texts["felmonte"].split())
    rows = _rows("felmonte", tmp_path)
    assert rows["Notices"] == "Duke Fabian: 3 notices; Doge of Marburg: 3 notices", rows["Notices"]
    assert rows["Plants"] == "Bianca: Duke Fabian, 1", rows["Plants"]  # a record keyed by an id: by its name


def test_signoria_flags_and_phase_in_words(tmp_path: Path) -> None:
    rows = _rows("felmonte", tmp_path)
    assert rows["Phase"] == "Upkeep", rows["Phase"]
    assert rows["Flags"].split("; ") == [
        "Month 2: Duke Fabian low on wealth (1)",
        "Month 2: Duke Fabian, trait trap: Cesare (steward) unhappy at wealth 1",
        "Month 6: Duke Fabian low on army (0)",
        "Month 6: Duke Fabian, trait trap: Orsino (general) unhappy at army 0"], rows["Flags"]


def test_a_record_in_a_cell_says_its_value(tmp_path: Path) -> None:
    """Signoria's intel says what is known ("army 4", "roster Doge Andrea, Lorenzo"; it read "army 5 item(s)", the
    record's fields counted), a standing response its fields ("tactic hold"; it read "response 3 item(s)")."""
    text = " ".join(_all_tables("felmonte", tmp_path).split())
    assert "Duke Fabian army 4; piety 5; power 3; wealth 2 army 5; piety 7; power 5; wealth 5 army 6" in text, text
    assert "roster Doge Andrea, Lorenzo" in text and "characters in battle Duke Fabian, Orsino" in text, text
    assert "response (characters Duke Fabian, Orsino; response battle; tactic hold)" in text, text


def test_pf1_relations_among_foreign_kingdoms_name_both(tmp_path: Path) -> None:
    """River Kingdom's relations among foreign kingdoms say both by name ("Brevoy and Mivon: treaty"; it read
    "brevoy|mivon treaty", the state's key) under what they are ("Relations among foreign kingdoms"; it read "Third
    party", the field's name); the state keeps its key."""
    rows = _rows("river-kingdom", tmp_path)
    said = rows.get("Relations among foreign kingdoms")
    assert said == "Brevoy and Mivon: treaty; Mivon and Pitax: none" and "Third party" not in rows, rows
    assert not re.findall(r"\w\|\w", " ".join(rows.values()))


def _table(demo: str, title: str, tmp: Path) -> list[dict[str, str]]:
    """The records of the panel's table ``title``, each its fields by their names, in its columns or on the line
    below it (``nb_support.panel_records``)."""
    folder = tmp / f"{demo}-{title}"
    shutil.copytree(REPO / "campaigns" / demo, folder, ignore=shutil.ignore_patterns(".cache", "drafts", "table"))
    start = load_start(folder, check_forms=False)
    return panel_records(str(panel.panel_html(start.ruleset, start.state)), title)


def test_an_id_two_collections_share_is_said_by_the_one_its_column_names(tmp_path: Path) -> None:
    """Signoria's battles at Marburg say the province "Marburg" (it read "Doge of Marburg", the faction keyed by
    the same id); pf1's hexes say their city by name ("Tatzlford"; it read "C1"), its buildings and districts in
    their names ("House (Tatzlford)", "district 1 of Tatzlford"; their City, said by the name, left off)."""
    battles = _table("felmonte", "Battles", tmp_path)
    where = [r["Province"] for r in battles]
    assert where == ["Marburg", "Marburg", "Marburg", "Fabia"], battles
    hexes = _table("river-kingdom", "Hexes", tmp_path)
    assert {r["City"] for r in hexes if "City" in r} == {"Tatzlford", "Oleg's Trading Post"}, hexes
    for title in ("Buildings", "Districts"):
        rows = _table("river-kingdom", title, tmp_path)
        cities = {re.sub(r".* of |.*\(|\)$", "", r[title[:-1]]) for r in rows}
        assert cities == {"Tatzlford", "Oleg's Trading Post"} and not [r for r in rows if "City" in r], (title, rows)


def test_pf2e_cooldowns_and_pending_in_words(tmp_path: Path) -> None:
    """The Stolen Lands' cooldowns say the activity and its target ("Repair Reputation (crime)", "Repair Reputation
    (every target)"; they read "repair reputation: crime", "Repair Reputation:*", the state's keys), its pending
    RP as the tiles say it ("RP 0"; it read "rp 0")."""
    rows = _rows("stolen-lands", tmp_path)
    assert rows["Cooldowns"] == "Repair Reputation (crime) 8, Repair Reputation (every target) 15", rows["Cooldowns"]
    assert "; RP 0;" in rows["Pending"], rows["Pending"]


def test_a_settlement_offered_counts_its_blocks_and_lots_in_words(tmp_path: Path) -> None:
    """The GM sheet's settlement dropdowns count Brightwater's blocks and free lots as a person counts them ("1
    block"; it read "1 block(s), 3 free lot(s)")."""
    folder = tmp_path / "stolen-lands"
    shutil.copytree(REPO / "campaigns" / "stolen-lands", folder, ignore=shutil.ignore_patterns(".cache", "drafts",
                                                                                                "table"))
    start = load_start(folder, check_forms=False)
    offered = start.ruleset.vocabulary(start.state, "settlements", {})
    assert offered and all("(s)" not in o.detail for o in offered), offered
    assert re.fullmatch(r"town, \d+ blocks?, \d+ free lots?, capital", offered[0].detail), offered[0].detail


def test_a_named_record_in_a_cell_is_said_by_its_name_first(tmp_path: Path) -> None:
    """The Tatzlford Guard's commander reads "Amiri (…)" (it read "name Amiri; cha 0; …", the record's keys)."""
    armies = _table("river-kingdom", "Armies", tmp_path)
    said = next(r for r in armies if r["Name"] == "Tatzlford Guard")["Commander"]
    assert said.startswith("Amiri (") and "name Amiri" not in said, said
