"""A hex choice in the GM sheet has a map to click beside its select (issue 13): only the hexes the choice allows can
be picked, a click fills the choice, the select still works, and a ruleset without a hex map gets no picker."""

from __future__ import annotations

from pathlib import Path

import shutil

from nb_support import REPO

from kingdomlog.core.choices import FieldSpec, Option
from kingdomlog.core.mapdata import MapData, MapHex
from kingdomlog.views import hexpick
from kingdomlog.views import sheet_form as sf
from kingdomlog.views.sheet_form import Read, StepForm

HEX = FieldSpec("hex", "Hex", "select", options=(Option("H2", "H2 (forest)"), Option("H3", "H3", disabled=True)),
                source="hexes")
ROWS = FieldSpec("activities", "Activities", "rows", fields=(FieldSpec("activity", "Activity", "text"), HEX),
                 entries=((FieldSpec("activity", "Activity", "text"), HEX),))
MAP = MapData("m", hexes=(MapHex("H1", q=0, r=0, terrain="plains", claimed=True),
                          MapHex("H2", q=1, r=0, terrain="forest"), MapHex("H3", q=0, r=1, terrain="hills")))


def test_a_hex_choice_gets_a_map_with_only_its_allowed_hexes_clickable() -> None:
    form = StepForm("s", (HEX,), {}, hexmap=MAP)
    c = sf.step_widgets(form)["c"]
    assert set(c) == {"hex", "hex" + sf.MAP}
    widget = c["hex" + sf.MAP].widget
    assert isinstance(widget, hexpick.HexPicker) and widget.value == ""
    assert 'data-hex="H2" data-allowed="true"' in widget.svg
    assert 'data-hex="H3" data-allowed="false"' in widget.svg  # disabled: on the map, not clickable
    assert 'data-hex="H1" data-allowed="false"' in widget.svg  # not offered at all


def test_rows_entries_get_their_own_map_and_a_ruleset_without_a_map_gets_none() -> None:
    form = StepForm("s", (ROWS,), {"activities": [{"activity": "claim-hex", "hex": "H2"}]}, hexmap=MAP)
    row = sf.step_widgets(form)["c"]["activities"]["rows"][0]
    assert row["hex" + sf.MAP].widget.value == "H2"
    assert "hex" + sf.MAP not in sf.step_widgets(StepForm("s", (HEX,), {}))["c"]
    assert "hex" + sf.MAP not in sf.step_widgets(StepForm("s", (HEX,), {}, hexmap=MapData("none")))["c"]


def test_a_click_on_the_map_fills_the_choice_and_the_select_still_wins_when_it_moved() -> None:
    def read(raw: dict[str, object], given: dict[str, object]) -> dict[str, object]:
        return sf.read_fields((HEX,), raw, given, (), Read())

    clicked = {"value": "H2", "svg": "", "prompt": ""}
    assert read({"hex": None, "hex~map": clicked}, {}) == {"hex": "H2"}  # nothing chosen yet: the click
    assert read({"hex": "H3", "hex~map": clicked}, {"hex": "H3"}) == {"hex": "H2"}  # select untouched: the click
    assert read({"hex": "H3", "hex~map": clicked}, {"hex": "H2"}) == {"hex": "H3"}  # select moved: the select
    assert read({"hex": "H2", "hex~map": {"value": ""}}, {}) == {"hex": "H2"}  # no click: the select


def test_the_sheet_builds_the_pf2e_map_for_a_step_whose_choices_name_hexes(tmp_path: Path) -> None:
    from kingdomlog.views import sheet

    folder = tmp_path / "stolen-lands"
    shutil.copytree(REPO / "campaigns" / "stolen-lands", folder, ignore=shutil.ignore_patterns(".cache", "drafts"))
    s, _ = sheet.open_session(folder)
    assert s is not None
    assert s.draft is not None
    forms = [c.form for c in s.draft.cards if c.form is not None]
    with_map = [f for f in forms if f.hexmap is not None]
    assert with_map, "no pf2e step got a map"
    m = with_map[0].hexmap
    assert {h.id for h in m.placed_hexes()} >= {"A1", "B5"}
