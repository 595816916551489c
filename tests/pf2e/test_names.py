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
