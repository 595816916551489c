"""Issue 29: a check's label (``CheckSpec.label``: the Roll card's title, the typed-dice box, the table's proposals, the
feed) is words: who, what, against what. No raw id, snake_case token, faction id, order key ("o1"), roll key in
brackets ("Stability check (stability)") or doubled word ("vs DC 20: d20 -1 vs DC 20") in any label the demos' next
turn shows, nor in the labels each ruleset's decide code makes; a label logged in an older form is titled in words
(the log is not changed)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from test_words_browser import RAW_ID

from kingdomlog.core.ruleset import find_ruleset
from kingdomlog.dice.checks import CheckSpec
from kingdomlog.views.sheet import cards
from kingdomlog.views.words import dice_label

REPO = Path(__file__).resolve().parents[2]


def raw_label(text: str, key: str = "") -> str | None:
    """Why ``text`` (a check's title or label) is not words, or None when it is."""
    if RAW_ID.search(text):
        return "a raw id"
    if re.search(r"\bo\d+\b", text):
        return "an order key"
    if key and re.search(rf"\(({re.escape(key)}|{re.escape(key.split('.')[-1])})\)", text):
        return "its key in brackets"
    if re.search(r"\(([a-z0-9]+_)+[a-z0-9]+\)", text):
        return "a key in brackets"
    if re.search(r"(?i)\b(\w+)\b \1\b", text):
        return "a doubled word"
    if len(re.findall(r"\bvs\b", text)) > 1:
        return "its DC twice"
    if re.search(r"(?i)(\w{4,}) check \(\1\)", text):
        return "a doubled word"
    if not text[:1].isupper():
        return "no capital"
    return None


@pytest.mark.parametrize("demo", ["stolen-lands", "river-kingdom", "aikakirjat-demo", "felmonte"])
def test_the_next_turns_checks_are_labelled_in_words(demo: str, tmp_path: Path) -> None:
    """Each demo's next turn, drafted as the GM sheet drafts it (every die drawn), titles each check and labels each
    typed-dice box in words (river-kingdom's read "Stability check (stability): d20 +17 vs DC 31", aikakirjat's
    "agriculture vs DC 20: d20 -1 vs DC 20 with disadvantage")."""
    from kingdomlog.core.turn import Plan
    from kingdomlog.views.sheet.draft import SheetSession, load_start

    folder = tmp_path / demo
    shutil.copytree(REPO / "campaigns" / demo, folder, ignore=shutil.ignore_patterns(".cache", "drafts", "table"))
    start = load_start(folder, check_forms=False)
    rs = start.camp.ruleset
    session = SheetSession(start, Plan(turn=start.turn, seed="x", dice="auto"))
    shown: dict[str, str] = {}
    for card in session.draft.cards:
        for key, spec in card.checks.items():
            shown[f"{card.id} {key} title"] = cards.check_title(key, spec, rs)
        if card.form is not None:
            for d in card.form.dice:
                shown[f"{card.id} {d.key} box"] = dice_label(d.key, d.notation, card.checks, rs)
    assert len(shown) >= 2
    assert {k: (t, raw_label(t, k.split()[1])) for k, t in shown.items() if raw_label(t, k.split()[1])} == {}
    if demo == "river-kingdom":
        assert shown["upkeep stability title"].startswith("Stability check: d20 ")
        assert shown["income income title"].startswith("Economy check for income: d20 ")


def test_pf1s_checks_say_what_they_are_for() -> None:
    """Every key pf1's decide code rolls a kingdom or skill check under names what the check is for; a check logged
    with its key in brackets is titled by the same words."""
    from kingdomlog.rulesets.pf1.helpers import check_label

    keys = ["stability", "income", "acting_ruler", "royal_enforcer", "reactivate_B2", "town_H3", "withdrawal_1",
            "sale_2", "subjugation_east-march", "rally_A1", "w1_victory_1", "w2_siege_victory_2",
            "renegotiate_loyalty", "trade_r1_economy", "exp_x1_stability", "drought_check_2",
            "close_embassy_varn", "withdraw_treaty_varn", "attack_varn"]
    said = {k: check_label("LOYALTY", k) for k in keys}
    said |= {k: check_label("Diplomacy", k, check=False) for k in ("dip_check_1", "exp_x1_search_2", "exp_x1_stealth")}
    assert {k: t for k, t in said.items() if raw_label(t, k)} == {}
    assert said["stability"] == "Loyalty check" and said["acting_ruler"] == "Loyalty check of the acting ruler"
    pf1 = find_ruleset("pf1-kingmaker")
    for key, label in (("stability", "Stability check (stability)"), ("income", "Economy check (income)"),
                       ("dip_check_1", "Diplomacy (dip_check_1)"), ("w1_victory_2", "Loyalty check (w1_victory_2)")):
        logged = CheckSpec("d20", modifier=3, dc=20, label=label)
        title = cards.check_title(key, logged, pf1)
        assert raw_label(title, key) is None, title
        assert logged.label == label  # the logged check is not changed
    assert cards.check_title("stability", CheckSpec("d20", modifier=17, dc=31, label="Stability check (stability)"),
                             pf1) == "Stability check: d20 +17 vs DC 31"


def test_signorias_order_checks_say_whose_order_and_what_it_does() -> None:
    """An order's 2d6 (signoria §3.5) is "Duke Fabian's order to bribe <the statesman>", for every action an order
    can take; the label it was logged with ("fabian o1 bribery") is titled in words."""
    from kingdomlog.app import Campaign
    from kingdomlog.rulesets.signoria.decide import order_check_label
    from kingdomlog.rulesets.signoria.state import Order
    from kingdomlog.rulesets.signoria.vocabulary import ACTION_NAMES

    camp = Campaign.open(REPO / "campaigns" / "felmonte")
    s = camp.turn_start().state
    someone = next(c for c in s.characters.values() if c.employer not in (None, "fabian"))
    targets = {"bribery": someone.id, "assassination": someone.id, "war": "marburg", "scouts": "marburg",
               "hire_statesman": someone.id}
    said = {a: order_check_label(s, "fabian", Order(id="o1", action=a, target=targets.get(a, "marburg")))
            for a in ACTION_NAMES}
    assert {a: t for a, t in said.items() if raw_label(t)} == {}
    assert said["bribery"] == f"Duke Fabian's order to bribe {someone.name}"
    assert "o1" not in " ".join(said.values()) and "fabian" not in " ".join(said.values())
    sig = camp.ruleset
    for label in ("fabian o1 bribery", "marburg o2 hire_troops", "fabian o3 intrigue_self"):
        logged = CheckSpec("2d6", modifier=1, dc=7, label=label)
        title = cards.check_title("fabian.o1.1", logged, sig)
        assert raw_label(title) is None, title
    assert cards.check_title("fabian.o1.1", CheckSpec("2d6", dc=7, label="marburg o2 hire_troops"), sig) == \
        "Doge of Marburg's order 2 to hire troops: 2d6 vs 7"


def test_aikakirjats_checks_name_the_pc_and_say_the_dc_once() -> None:
    """An aikakirjat check is labelled by its skill in words or its PC's name, without the DC its title adds."""
    from kingdomlog.rulesets.aikakirjat.rules import CheckSpec as AikaCheck
    from kingdomlog.rulesets.aikakirjat.rules import check_label
    from kingdomlog.rulesets.aikakirjat.state import PC, KingdomState

    s = KingdomState(pcs={"aino_k": PC(name="Aino")})
    said = [check_label(s, AikaCheck(kind="skill", skill="animal_handling"), "animal_handling"),
            check_label(s, AikaCheck(kind="pc", label="aino_k persuasion"), "aino_k persuasion"),
            check_label(s, AikaCheck(kind="pc", label="court notable insight"), "court notable insight")]
    assert said == ["Animal handling", "Aino's persuasion", "A court notable's insight"]
    logged = CheckSpec("5e", modifier=-1, dc=20, mode="disadvantage", label="agriculture vs DC 20")
    assert cards.check_title("growth", logged) == "Agriculture: d20 -1 vs DC 20 with disadvantage"


def test_no_check_label_is_built_from_ids() -> None:
    """The decide code of every ruleset builds no check label from a roll key in brackets, a faction id with an order
    key, or an activity's id (each was a raw label on the sheet)."""
    bad = re.compile(r"label=f\"[^\"]*(\(\{key\}\)|\{fid\} \{o(rder)?\.id\}|\{at\.activity\}|\{key\})")
    found = [f"{p.relative_to(REPO)}:{i}" for p in (REPO / "kingdomlog" / "rulesets").rglob("*.py")
             for i, line in enumerate(p.read_text().splitlines(), 1) if bad.search(line)]
    assert found == []
