"""The sheet's hex picker (views.hexpicker) without a browser: what the widget carries, what it reads back.

A hex target field (a Pick whose source ends in ``_hexes``) is one anywidget whose ``value`` is the plan's
value; marimo hands its element's value to the sheet as ``{}`` until the page sends ``{"value": ...}``.
The browser half (clicks on the map, the select following, the draft and the commit) is in
test_sheet_browser.py.
"""

from __future__ import annotations

import copy
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from nb_support import REPO

from kingdomlog.app.campaign import Campaign
from kingdomlog.app.drafts import Drafts, SavedDraft
from kingdomlog.core.turn import Plan, StepPlan
from kingdomlog.views import forms as sf
from kingdomlog.views import hexpicker as sheet_hexmap
from kingdomlog.views.sheet import draft as sheet

HEX = "activity.region/c/activities/rows/#0/hex"
CLAIM = "improvement/c/claim"


def _copy(tmp_path: Path, demo: str, steps: dict[str, dict[str, Any]] | None = None) -> Path:
    folder = tmp_path / demo
    shutil.copytree(REPO / "campaigns" / demo, folder, ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    camp = Campaign.open(folder)
    turn = camp.next_turn()
    plan = Plan(turn=turn, seed="hexmap-unit", steps={k: StepPlan(choices=v) for k, v in (steps or {}).items()})
    Drafts(folder).save(SavedDraft(turn, camp.head_seq, plan))
    return folder


def _open(folder: Path, *, roll_before: str | None = None) -> tuple[sheet.SheetSession, Any]:
    """The sheet on ``folder``; ``roll_before``: Roll pressed on each check of the steps before that one."""
    s, _ = sheet.open_session(folder)
    assert s is not None
    forms = s.widgets()
    draft = s.update(forms.value)
    order = [p.id for p in s.start.phases]
    while roll_before and draft.waiting is not None and order.index(draft.waiting.id) < order.index(roll_before):
        assert draft.waiting.pending is not None
        draft = s.roll(draft.waiting.id, draft.waiting.pending.key)
    if s.refresh_forms(draft):
        forms = s.widgets()
        s.update(forms.value)
    return s, forms


@pytest.fixture
def pf2e(tmp_path: Path) -> tuple[sheet.SheetSession, Any]:
    return _open(_copy(tmp_path, "stolen-lands",
                       {"activity.region": {"activities": [{"activity": "claim-hex", "hex": "A5"}]}}),
                 roll_before="activity.region")


def test_a_hex_field_is_one_picker_carrying_its_hexes_and_its_value(pf2e: tuple[sheet.SheetSession, Any]) -> None:
    s, forms = pf2e
    elem = forms[HEX]
    assert sheet_hexmap.is_picker(elem)
    w = elem.widget
    assert w.value == "A5" and not w.multiple and w.label == "Hex" and w.fold_key == HEX
    opts = {o["v"]: o["d"] for o in w.options}
    assert set(opts) == {h.id for h in s.start.state.hexes}  # every hex of the kingdom, in the ruleset's order
    # Claim Hex: the kingdom's own hexes are refused, naming the rule
    assert opts["A5"] == "" and opts["A1"] == "already claimed (§4.8 Claim Hex)"
    # the map: every hex a <g data-hex>, with its tooltip; what the rules refuse is marked (faded)
    for hid, why in opts.items():
        m = re.search(rf'<g class="kl-hex[^"]*" data-hex="{hid}" data-allowed="(true|false)"[^>]*><title>([^<]*)',
                      w.svg)
        assert m is not None, hid
        assert m.group(1) == ("false" if why else "true") and m.group(2).startswith(hid)
    assert "(5 of 12 hexes allowed)" in w.summary
    assert w.expanded  # in an entry, the map is open
    # the page's script and style are inline and ask for nothing over the network
    assert not re.search(r"\bimport\b|fetch\(|XMLHttpRequest|url\(|<script", sheet_hexmap.ESM + sheet_hexmap.CSS)
    # the same element is what the card lays out, at the field's place
    assert "marimo-anywidget" in elem.text


def test_reading_the_picker_back_gives_the_plan_value(pf2e: tuple[sheet.SheetSession, Any]) -> None:
    s, forms = pf2e
    flat = dict(forms.value)
    assert flat[HEX] == {}  # marimo's value of an anywidget before the page sent one: the built value holds
    assert s.plan.steps["activity.region"].choices["activities"][0]["hex"] == "A5"
    flat[HEX] = {"value": "B3"}
    draft = s.update(flat)
    assert s.plan.steps["activity.region"].choices["activities"][0]["hex"] == "B3"
    assert not draft.field_errors.get("activity.region")
    card = draft.card("activity.region")
    assert card is not None and card.error is None
    assert card.checks["a1"].label == "Claim Hex on B3"  # the card's check names the hex, in words
    assert not s.refresh_forms(draft)  # a pick is no new form: no widget is rebuilt
    flat[HEX] = {"value": None}  # "--" in the select: none picked, the row has no hex
    s.update(flat)
    assert "hex" not in s.plan.steps["activity.region"].choices["activities"][0]


@pytest.mark.parametrize("bad", ["Z9", 7, True, {"q": 1}, ["A5"]])
def test_an_unknown_hex_is_an_error_at_the_field_not_an_exception(pf2e: tuple[sheet.SheetSession, Any],
                                                                  bad: Any) -> None:
    s, forms = pf2e
    flat = dict(forms.value)
    flat[HEX] = {"value": bad}
    draft = s.update(flat)
    errors = draft.field_errors.get("activity.region") or []
    assert [e.path for e in errors] == [("activities", 0, "hex")], errors
    assert "hex" in errors[0].message
    assert not draft.committable
    assert s.plan.steps["activity.region"].choices["activities"][0].get("hex") in (None, "A5")
    flat[HEX] = {"value": "A5"}  # fixed: the error goes
    assert not s.update(flat).field_errors.get("activity.region")


def test_the_widget_survives_marimos_deep_copy(pf2e: tuple[sheet.SheetSession, Any]) -> None:
    _, forms = pf2e
    elem = forms[HEX]
    twin = copy.deepcopy(elem)
    assert sheet_hexmap.is_picker(twin) and twin.widget is not elem.widget
    assert twin.widget.traits_now() == elem.widget.traits_now()


def test_a_pf1_multiselect_of_hexes_toggles_a_list(tmp_path: Path) -> None:
    s, forms = _open(_copy(tmp_path, "river-kingdom"), roll_before="improvement")
    elem = forms[CLAIM]
    assert sheet_hexmap.is_picker(elem)
    w = elem.widget
    assert w.multiple and w.value == []
    opts = {o["v"]: o["d"] for o in w.options}
    assert opts["h11"] == "" and opts["h3"] == "already claimed (base §4.3 I2)"
    assert not w.expanded  # a step-level field: the map is folded until the GM opens it
    flat = dict(forms.value)
    flat[CLAIM] = {"value": ["h11"]}
    draft = s.update(flat)
    assert s.plan.steps["improvement"].choices["claim"] == ["h11"]
    assert not draft.field_errors.get("improvement")
    card = draft.card("improvement")
    assert card is not None and card.error is None
    assert any(d.type.endswith("hex_claimed") and d.payload.model_dump().get("hex") == "h11" for d in card.drafts)
    flat[CLAIM] = {"value": ["h11", "nowhere"]}
    errors = s.update(flat).field_errors.get("improvement") or []
    assert [e.path for e in errors] == [("claim",)] and "nowhere" in errors[0].message
    flat[CLAIM] = {"value": []}
    s.update(flat)
    assert "claim" not in s.plan.steps["improvement"].choices


def test_what_pf2e_claim_hex_refuses_is_disabled() -> None:
    from kingdomlog.core.choices import PARENT
    from kingdomlog.rulesets.pf2e.choices import vocabulary

    state = Campaign.open(REPO / "campaigns" / "stolen-lands").state()
    claimed = {h.id for h in state.hexes if h.claimed}
    assert claimed

    def refused(within: dict[str, Any], source: str = "region_hexes") -> set[str]:
        return {str(o.value) for o in vocabulary(state, source, within) or () if o.disabled}

    assert refused({"activity": "claim-hex"}) == claimed
    assert refused({"activity": "build-roads"}) == set()  # an earlier row may claim the hex first
    assert refused({"activity": "claim-hex"}, "region_second_hexes") == set()
    freed = sorted(claimed)[0]
    rows = {"activities": [{"activity": "abandon-hex", "hex": freed}, {"activity": "claim-hex"}]}
    assert refused({"activity": "claim-hex", PARENT: rows}) == claimed - {freed}


def test_a_campaign_without_a_hex_field_gets_no_picker(toy: Path) -> None:
    s, forms = _open(toy)
    assert not [k for k, e in forms.elements.items() if sheet_hexmap.is_picker(e)]
    assert all(f.hex_map is None and f.map_key == "" for f in s.forms.values())
    assert sf.is_hex_field is sheet_hexmap.is_hex_field
