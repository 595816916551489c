"""pf2e's ids in words (``rulesets/pf2e/names.py``): every catalog row by its title, and an id that is no row
said without parsing the catalog (``kingdomlog state`` names its figures' values: "d4", "Brightwater")."""

from __future__ import annotations

from typing import Any

import pytest

from kingdomlog.core.ruleset import Ruleset
from kingdomlog.rulesets.pf2e import names
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.ruleset import Pf2eKingmaker


@pytest.mark.parametrize("table", sorted(names._TABLES))
def test_every_row_of_the_catalog_is_named_by_its_title(table: str) -> None:
    rows = getattr(T.catalog(None), table)
    assert rows, table
    for tag, row in rows.items():
        if row.title:
            assert names._title(table, tag) == row.title, (table, tag)


def test_an_id_that_is_no_row_is_said_without_the_catalog(monkeypatch: pytest.MonkeyPatch) -> None:
    def parsed() -> Any:
        raise AssertionError("a catalog table was parsed to name an id that is none of its rows")

    monkeypatch.setattr(names, "_TABLES", {k: (f, parsed) for k, (f, _) in names._TABLES.items()})
    for text in ("d4", "brightwater", "control_dc", "greenbelt_march", "h12", "law-and-order-x"):
        assert names.name_of(text) is None, text
    assert Pf2eKingmaker().name_of("d4") == Ruleset().name_of("d4")  # the seam's plain words, as before
    assert names.name_of("control_dc", "figure") is None


def test_a_row_is_still_found_when_its_tag_is_in_the_file() -> None:
    assert names.name_of("natures-blessing") == "Nature's Blessing"
    assert names.name_of("repair-reputation:crime") == "Repair Reputation (crime)"
    assert names.name_of("ruler", "role") == "Ruler"  # quoted in the activities' file (a leader), no row of it
