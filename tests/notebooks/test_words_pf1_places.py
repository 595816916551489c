"""pf1's GM sheet says a city, a district and a building by name (words-nits2), read from the dropdowns it renders
(no browser): a building's city reads "Tatzlford" once (it read "Tatzlford" and "C1 = Tatzlford — city id"), a
plan holding the id ``C1`` shows "Tatzlford" picked and keeps ``C1``; a district reads "district 1 of Tatzlford"
(it read "D1 (Tatzlford)"), a building "Brewery (Tatzlford)" (it read "B2 Brewery (Tatzlford)"). The values a
plan stores are the ids and names they were."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from kingdomlog.core.choices import validate_choices
from kingdomlog.rulesets.pf1.choices import BuildingEntry
from kingdomlog.views import forms as sf
from kingdomlog.views.sheet.draft import load_start

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def river(tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = tmp_path_factory.mktemp("rk") / "river-kingdom"
    shutil.copytree(REPO / "campaigns" / "river-kingdom", folder,
                    ignore=shutil.ignore_patterns(".cache", "drafts", "table"))
    start = load_start(folder, check_forms=False)
    specs = {s.name: s for s in start.ruleset.choices(start.state, start.turn, "improvement")}
    entry = {f.name: f for f in specs["buildings"].fields}
    return start, entry


def texts(spec: Any, current: Any = None) -> tuple[dict[str, Any], str | None]:
    return sf._choices_map(spec.options, current, show_disabled=True)


def test_a_city_reads_by_its_name_once(river: Any) -> None:
    _, entry = river
    opts, chosen = texts(entry["city"])
    assert opts == {"Tatzlford — capital, 1 district, 19 lots": "Tatzlford",
                    "Oleg's Trading Post — 1 district, 1 lot": "Oleg's Trading Post"}, opts
    assert chosen is None


def test_a_plan_naming_a_city_by_its_id_shows_its_name_and_keeps_the_id(river: Any) -> None:
    start, entry = river
    opts, chosen = texts(entry["city"], "C1")
    assert chosen == "Tatzlford — capital, 1 district, 19 lots" and opts[chosen] == "C1", opts
    assert not any("C1" in t or "C2" in t or "⚠" in t for t in opts), opts
    widget = sf.widget(entry["city"], "C1")
    assert widget.value == "C1" and widget.selected_key == chosen
    # the id stays a value the step allows (the form and the CLI take either)
    vocab = start.ruleset.vocabulary
    for city in ("C1", "Tatzlford"):
        got = validate_choices(BuildingEntry, {"city": city, "district": "D1", "type": "House"}, state=start.state,
                               vocabulary=vocab, step="improvement")
        assert got.city == city


def test_districts_and_buildings_read_by_place_not_id(river: Any) -> None:
    start, entry = river
    districts, _ = texts(entry["district"])
    assert districts == {"district 1 of Tatzlford — ready; 19 of 36 lots built": "D1",
                         "district 1 of Oleg's Trading Post — ready; 1 of 36 lots built": "D2"}, districts
    buildings = {o.value: sf.option_text(o) for o in start.ruleset.vocabulary(start.state, "buildings", {})}
    assert buildings["B2"] == "Brewery (Tatzlford) — district 1, lot 1", buildings  # its city: the label's
    assert not any(t.startswith(("B1", "B2", "B3", "B4", "B5")) or " D1" in t for t in buildings.values()), buildings
    slots = {o.value: sf.option_text(o) for o in start.ruleset.vocabulary(start.state, "slot_buildings", {})}
    assert slots == {"B4": "Shrine (Tatzlford) — 1/1 slots filled"}, slots
