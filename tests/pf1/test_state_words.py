"""``kingdomlog state`` explains pf1's numbers in words (issue 29, the ninth pass): a trade route by where it runs
and what it carries, an improvement or a feature by the hex it is on, a tenth of the settlements' modifiers by
which; no route id, no sum signs."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from clirun import run

DEMO = Path(__file__).resolve().parents[2] / "campaigns" / "river-kingdom"


def test_the_state_explains_the_river_kingdoms_numbers_in_words(tmp_path: Path) -> None:
    folder = shutil.copytree(DEMO, tmp_path / "rk", ignore=shutil.ignore_patterns(".cache"))
    code, out, err = run("state", str(folder))
    assert code == 0, err
    why = out[out.index("why:"):]
    assert "goods trade route from Tatzlford to Mivon, by its tier +2" in why  # it read "trade route T2 tier"
    assert "farm on hex 1 (Stockyard) -3" in why and "sawmill on hex 2 +2" in why and "cave on hex 5 +1" in why
    assert not re.search(r"\bh\d+\b", why)  # a hex as the map labels it, "hex 2"; it read "hex h2", its id
    assert "a tenth of the settlements' Lore and Society (-5) -1" in why  # it read "Lore+Society Σ-5 / 10"
    assert "Oleg's Trading Post (1 lot × 250)" in why
    assert "T2" not in why and "Σ" not in why and "1 lots" not in why
