"""The GM sheet's kingdom panel says what it shows in words, on every bundled demo (issue 29), read from the panel
it renders (no browser): the campaign's options as what each rule says ("Revolution: at Unrest 20 or more"; it
read "revolution threshold gte20", a cell of the state's record), a figure's word with its capital ("Season:
Winter", "Phase: Between years"; they read "winter", "between years"), a record's field as its spec names it (a
treaty "Non-aggression pact", a faction "player faction", a modifier's selector "Culture or Stability checks"; they
read "non aggression", "player", "ability in [culture, stability]"), a faction's figure by its name ("Duke
Fabian's power"; it read "Fabian power"), and no id or snake_case name in the text."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import pytest
from nb_support import panel_records

from kingdomlog.views.sheet import panel as sheet_panel
from kingdomlog.views.sheet.draft import load_start

REPO = Path(__file__).resolve().parents[2]
DEMOS = ("aikakirjat-demo", "felmonte", "river-kingdom", "stolen-lands")


@pytest.fixture(scope="module")
def panels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    out = {}
    for demo in DEMOS:
        folder = tmp_path_factory.mktemp("panel") / demo
        shutil.copytree(REPO / "campaigns" / demo, folder, ignore=shutil.ignore_patterns(".cache", "drafts", "table"))
        start = load_start(folder, check_forms=False)
        out[demo] = str(sheet_panel.panel_html(start.ruleset, start.state))
    return out


def text(page: str) -> str:
    return html.unescape(re.sub(r"(?:\s*\|\s*)+", " | ", re.sub(r"<[^>]+>", " | ", page)))


def tiles(page: str) -> dict[str, str]:
    return {html.unescape(k): html.unescape(v) for k, v in re.findall(
        r'<div class="kl-stat-name">([^<]*)</div><div class="kl-stat-value">([^<]*)<', page)}


def options(page: str) -> dict[str, str]:
    section = page[page.index("<summary>Campaign options</summary>"):]
    return {html.unescape(k): html.unescape(v) for k, v in re.findall(r"<tr><th>([^<]*)</th><td>([^<]*)</td></tr>",
                                                                      section.split("</details>")[0])}


def test_the_campaign_options_say_their_rules(panels: dict[str, str]) -> None:
    aik = options(panels["aikakirjat-demo"])
    assert aik["Revolution"] == "at Unrest 20 or more", aik
    assert aik["The growth roll"] == "an Agriculture (Stability) check" and aik["Holding a level: the check"] == \
        "Stability", aik
    assert aik["A levy die's militia gain is at least 0"] == "yes", aik
    pf1 = options(panels["river-kingdom"])
    assert pf1["Event table"] == "Ultimate Campaign" or pf1["Event table"] == "Rivers Run Red", pf1
    assert pf1["Control DC includes districts"] == "no" and pf1["Anarchy mode"] == "frozen", pf1
    assert options(panels["felmonte"])["Players"] == "Duke Fabian, Doge of Marburg"
    assert options(panels["stolen-lands"])["RP to XP limit"] == "120"
    for demo, page in panels.items():
        said = text(page)
        assert not re.search(r"\bgte20|revolution threshold|\boptions\b.*\bmodifier formula", said), demo
        assert "| Options |" not in said, demo  # the record's cell under "Everything else" is gone


def test_a_figures_word_is_headed(panels: dict[str, str]) -> None:
    assert tiles(panels["felmonte"])["Season"] == "Winter"
    named = tiles(panels["felmonte"])  # a faction's figure headed with its name (it read "Fabian power", its id)
    assert named["Duke Fabian's power"] == "3" and named["Signor Gusso's army"] == "3", named
    assert not [k for k in named if re.match(r"(Fabian|Marburg|Felmonte|Gusso) ", k)], named
    assert tiles(panels["aikakirjat-demo"])["Phase"] == "Between years"
    assert tiles(panels["river-kingdom"])["Government"] == "Republic"
    assert tiles(panels["stolen-lands"])["Resource die"] == "d4"  # dice stay as they are written


def test_a_records_field_is_said_as_the_spec_names_it(panels: dict[str, str]) -> None:
    sig = text(panels["felmonte"])
    assert "| Non-aggression pact | Duke Fabian | Signor Gusso |" in sig and "| Trade agreement |" in sig, sig
    kinds = {r["Name"]: r["Kind"] for r in panel_records(panels["felmonte"], "Factions")}
    assert kinds["Duke Fabian"] == "player faction" and kinds["Signor Gusso"] == "neutral faction", kinds
    assert not re.search(r"\bnon aggression\b|seek a trade treaty", sig)
    pf2e = text(panels["stolen-lands"])
    assert "| Culture or Stability checks |" in pf2e and "ability in [" not in pf2e, pf2e
    leaders = {r["Leader"]: (r["Holder"], r["Kind"]) for r in panel_records(panels["stolen-lands"], "Leaders")}
    assert leaders["Ruler"] == ("Ysolde", "a PC") and leaders["Emissary"] == ("Old Hobb", "an NPC"), leaders  # they
    # read "pc", "npc"
    pf1 = text(panels["river-kingdom"])
    assert "| NPC |" in pf1 and "| Sponsor |" in pf1 and "Is " not in pf1  # a true flag by its name: it read "Is
    # npc", then "Is NPC", the field's name ``is_npc``


def test_signorias_everything_else_names_its_ids(panels: dict[str, str]) -> None:
    """The felmonte panel's "Everything else" says a record keyed by ids by their names, and an order or a
    candidate as the ruleset words it (they read "fabian 3 item(s)", "t2 c1 Bianca", "by Duke Fabian.S2")."""
    rows = dict(re.findall(r"<tr><th>([^<]*)</th><td>([^<]*)</td></tr>", html.unescape(panels["felmonte"])))
    assert rows["Notices"] == "Duke Fabian: 3 notices; Doge of Marburg: 3 notices", rows["Notices"]
    assert rows["Aliases"] == "candidate 1 of month 2: Bianca", rows["Aliases"]
    assert "bribe of Lorenzo by Duke Fabian's special order 2: success" in rows["Rulings"], rows["Rulings"]
    assert "order S2" not in rows["Rulings"]
    assert not re.search(r"\.S\d|\bt\d+ c\d|\bfabian\b", " ".join(rows.values())), rows


def test_no_id_on_any_panel(panels: dict[str, str]) -> None:
    for demo, page in panels.items():
        said = re.sub(r"(?s)<(script|style)[^>]*>.*?</\1>", " ", page)
        raw = re.findall(r"\b[a-z]+(?:_[a-z0-9]+)+\b|\[[a-z][a-z, -]*\]", text(said))
        assert raw == [], (demo, raw)


def test_a_neighbours_status_is_offered_in_words(tmp_path: Path) -> None:
    """The GM's adjustment of a neighbour's status (§2.10) offers it as the player's page says it ("At war with us";
    the dropdown read "at war with players", the Literal's value)."""
    folder = tmp_path / "aikakirjat-demo"
    shutil.copytree(REPO / "campaigns" / "aikakirjat-demo", folder,
                    ignore=shutil.ignore_patterns(".cache", "drafts", "table"))
    start = load_start(folder, check_forms=False)
    fields = start.ruleset.choices(start.state, start.turn, "start", values={"gm_events": [
        {"event": "gm_adjustment", "field": "neighbour_status", "target": "kalevala"}]})
    entry = next(f for f in fields if f.name == "gm_events").entries[0]  # type: ignore[index]
    value = next(f for f in entry if f.name == "value")
    assert [o.label for o in value.options or ()] == ["Independent", "At war with us", "Joined our kingdom",
                                                      "Split into parts"]
