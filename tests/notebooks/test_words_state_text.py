"""``kingdomlog state`` and a player's "How each number is made" in words (issue 29), on every bundled demo: each
figure headed and said as the GM sheet's panel says it ("Feats  Law and Order", "At war  no", "Phase  Between
years"; they read "law_and_order", "False", "between_years"), each number's terms with the ids in them named ("Duke
Fabian treaties with Signor Gusso = 2 (Right of passage +1, Non-aggression pact +1)"; it read "fabian treaties
with gusso = 2 (right_of_passage +1, non_aggression +1)"), a command roll's note in words ("rolled 3 and 3: a
success"; it read "roll [3, 3], success=True"), and no snake_case, True/False/None or bracketed list anywhere."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

from kingdomlog.views.player import page as player

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

from clirun import run  # noqa: E402

DEMOS = ("aikakirjat-demo", "felmonte", "river-kingdom", "stolen-lands")
CODE = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b|\b(?:True|False|None)\b|=True|\[\d")


@pytest.fixture(scope="module")
def demos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("state")
    for demo in DEMOS:
        shutil.copytree(REPO / "campaigns" / demo, root / demo, ignore=shutil.ignore_patterns(".cache", "drafts",
                                                                                            "table"))
    return {d: root / d for d in DEMOS}


@pytest.mark.parametrize("demo", DEMOS)
def test_the_state_reads_in_words(demos: dict[str, Path], demo: str) -> None:
    code, out, err = run("state", str(demos[demo]))
    assert code == 0, err
    body = out.split("\n", 2)[2].rsplit("-- head of this log", 1)[0]  # the canonical line above is the log's own
    assert [x for x in body.splitlines() if CODE.search(x)] == []
    figures = dict(re.findall(r"^  (\S.*?)\s{2,}(\S.*)$", body.split("\nwhy:")[0], re.M))
    if demo == "aikakirjat-demo":
        assert figures["Feats"] == "Law and Order" and figures["At war"] == "no", figures
        assert figures["Phase"] == "Between years" and figures["Growth DC"] == "20", figures
        assert "  Loyalty score = 16 (base +14, government (republic) +2)" in body
    if demo == "felmonte":
        assert figures["Season"] == "Winter" and figures["Winner"] == "—" and "Viewer" not in figures, figures
        assert figures["Duke Fabian's power"] == "3" and "Fabian power" not in figures, figures
        assert "Duke Fabian treaties with Signor Gusso = 2 (Right of passage +1, Non-aggression pact +1)" in body
        assert "Doge of Marburg next income = 3 (Marburg +2, Felmonte +1)" in body
    if demo == "river-kingdom":
        assert figures["Anarchy"] == "no" and figures["Government"] == "Republic", figures
        assert "royal assassin Jaethal +3" in body


def test_a_players_numbers_name_what_they_count(demos: dict[str, Path]) -> None:
    page = player.render_static(demos["felmonte"], "fabian")
    numbers = re.sub(r"<[^>]+>", "", page[page.index('id="numbers"'):])
    assert "Duke Fabian treaties with Signor Gusso 2: Right of passage +1, Non-aggression pact +1" in numbers, numbers
    assert "rolled 3 and 3: a success; 1 special and 2 ordinary slots at base" in numbers, numbers
    assert not CODE.search(numbers.replace("&#x27;", "'")), numbers
