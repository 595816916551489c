"""pf2e's ids in words (``rulesets/pf2e/names.py``): every catalog row by its title, and an id that is no row
said without parsing the catalog (``kingdomlog state`` names its figures' values: "d4", "Brightwater")."""

from __future__ import annotations

from typing import Any

import pytest

from kingdomlog.core.ruleset import Ruleset
from kingdomlog.rulesets.pf2e import names
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.ruleset import Pf2eKingmaker


@pytest.mark.parametrize("table", sorted(T.CATALOG_FILES))
def test_every_row_of_the_catalog_is_named_by_its_title(table: str) -> None:
    rows = getattr(T.catalog(None), table)
    assert rows, table
    for tag, row in rows.items():
        if row.title:
            assert names._title(table, tag) == row.title, (table, tag)


def test_an_id_that_is_no_row_is_said_without_the_catalog(monkeypatch: pytest.MonkeyPatch) -> None:
    def parsed(table: str) -> Any:
        raise AssertionError("a catalog table was parsed to name an id that is none of its rows")

    monkeypatch.setattr(T, "base_rows", parsed)
    names._title.cache_clear()  # each id looked up afresh (``_title`` keeps what it found)
    for text in ("d4", "brightwater", "control_dc", "greenbelt_march", "h12", "law-and-order-x"):
        assert names.name_of(text) is None, text
    assert Pf2eKingmaker().name_of("d4") == Ruleset().name_of("d4")  # the seam's plain words, as before
    assert names.name_of("control_dc", "figure") is None


def test_a_row_is_still_found_when_its_tag_is_in_the_file() -> None:
    assert names.name_of("natures-blessing") == "Nature's Blessing"
    assert names.name_of("repair-reputation:crime") == "Repair Reputation (crime)"
    assert names.name_of("ruler", "role") == "Ruler"  # quoted in the activities' file (a leader), no row of it


def test_each_catalog_table_is_read_from_the_file_its_names_read() -> None:
    """``tables.CATALOG_FILES`` is the one place a catalog table's data file is named: its loader parses that file
    and ``names`` reads that file's text, so a row's tag is always quoted in the text ``names`` searches."""
    assert set(T.CATALOG_FILES) == set(T.Catalog.model_fields)
    for table, (file, _) in T.CATALOG_FILES.items():
        assert T.base_rows(table) == getattr(T.catalog(None), table), table
        names._data_text.cache_clear()
        text = names._data_text(table)
        for tag in T.base_rows(table):
            assert f'"{tag}"' in text or f"'{tag}'" in text, (table, file, tag)


def _data_selectors() -> set[str]:
    """Every modifier selector and item-bonus selector written in pf2e's bundled data files."""
    import re
    from importlib import resources

    found: set[str] = set()
    for file in resources.files(T.PKG).iterdir():
        if file.name.endswith(".toml"):
            text = file.read_text(encoding="utf-8")
            found |= set(re.findall(r'\bselector\s*=\s*"([^"]*)"', text))
            for bonuses in re.findall(r"\bitem_bonuses\s*=\s*\{([^}]*)\}", text):
                found |= set(re.findall(r'"([^"]+)"\s*=', bonuses))
    return found


def test_every_selector_of_the_data_is_said_in_words() -> None:
    """Each selector the bundled data writes is said (no predicate's ``==``, ``[``, ``{placeholder}``, snake_case
    or kebab-case id left), the same by the sheet's effect lines and by ``name_of`` (one function says both)."""
    from kingdomlog.rulesets.pf2e.choices import _effect_words

    selectors = _data_selectors()
    assert len(selectors) > 40 and "skill == {skill}" in selectors and "skill:magic+activity:quell-unrest" in selectors
    for sel in sorted(selectors):
        said = names.selector_words(sel)
        assert said is not None, sel
        assert not any(code in said for code in ("==", "[", "{", "_", ":")), (sel, said)
        assert not any("-" in word for word in said.split()), (sel, said)
        assert names.name_of(sel, "field:selector") == said, sel
        line = _effect_words(T.Effect(kind="modifier", selector=sel, value=2))
        assert line == f"a +2 circumstance modifier to {said}", (sel, line)


@pytest.mark.parametrize(("selector", "said"), [
    ("ability in [culture, stability]", "Culture or Stability checks"),
    ("activity == send-diplomatic-envoy", "Send Diplomatic Envoy"),
    ("skill:warfare", "Warfare checks"),
    ("skill:magic+activity:quell-unrest", "Magic checks for Quell Unrest"),
    ("activity:repair-reputation:crime", "Repair Reputation for Crime"),
    ("category == leadership", "Leadership activities"),
    ("category == event and traits has dangerous", "dangerous event checks"),
    ("event in [bandit-activity, sacrifices]", "checks to resolve Bandit Activity or Sacrifices"),
    ("activity == build-structure and target in [keep, wall-stone]", "Build Structure for Keep or Stone Wall"),
    ("activity == send-diplomatic-envoy and target == {target}", "Send Diplomatic Envoy for the same target"),
    ("category == civic and struck == true and not settlement_structures has sewer-system",
     "Civic activities in the settlement struck without a Sewer System"),
    ("all", "every check"), ("", "every check"), ("warfare_activities", "warfare activities"),
])
def test_a_selector_in_words(selector: str, said: str) -> None:
    assert names.selector_words(selector) == said


def test_a_selector_not_said_is_none_and_the_sheet_says_so_in_words() -> None:
    from kingdomlog.rulesets.pf2e.choices import _effect_words

    for sel in ("ability == loyalty or skill == magic", "hex == h12", "role in []"):
        assert names.selector_words(sel) is None, sel
    line = _effect_words(T.Effect(kind="modifier", selector="hex == h12", value=-1))
    assert line == "a -1 circumstance modifier to the checks its rule picks", line
