"""The form codec (views/forms.py) as a player's page uses it: ``Offer``, ``choice_widgets``, ``open_pick``,
``read_fields(offer=...)`` and ``path_label``; and the GM sheet's reading left as it was.

Widget values are given as the flat ``{path: value}`` a ``mo.ui.dictionary`` of the flattened widgets holds.
"""

from __future__ import annotations

from typing import Any

import marimo as mo

from kingdomlog.core.choices import FieldSpec, Option
from kingdomlog.views import forms as sf

ACTION = FieldSpec("action", "Action", "select", required=True,
                   options=(Option("march"), Option("spy"), Option("bribe", disabled="no money")))
STAKE = FieldSpec("stake", "Stake", "select", default="low", options=(Option("low"), Option("high")))
TARGET = FieldSpec("target", "Target", "select", source="targets", depends=("action",))
PARAMS = FieldSpec("params", "Params", "group", fields=(FieldSpec("units", "Units", "int"),
                                                        FieldSpec("secret", "Secret", "bool")))
ORDERS = FieldSpec("orders", "Orders", "rows", default=[],
                   fields=(FieldSpec("faction", "Faction", "text"), ACTION, STAKE, TARGET, PARAMS))
ACTOR = FieldSpec("actor", "Actor", "select", default="fabian", options=(Option("fabian"), Option("marburg")))
SPECS = [ACTOR, ORDERS]
HINTS = (Option("fabia", "Fabia"), Option("q7"))
OFFER = sf.Offer(hidden=frozenset({"actor", "faction"}), hints={"target": HINTS}, other_example="e.g. an id")


def values(tree: Any) -> dict[str, Any]:
    """What the widgets of ``tree`` hold, as the flat dictionary the page reads."""
    return dict(mo.ui.dictionary(sf.flatten(tree)).value)


def read(flat: dict[str, Any], offer: sf.Offer | None = OFFER, specs: list[FieldSpec] = SPECS
         ) -> tuple[dict[str, Any], sf.Read]:
    out = sf.Read()
    return sf.read_fields(specs, sf.unflatten(flat), {}, (), out, offer=offer), out


def test_choice_widgets_leave_out_hidden_fields_and_offer_blank_entries() -> None:
    tree = sf.choice_widgets(SPECS, {"orders": [{"action": "spy", "faction": "fabian"}]}, offer=OFFER)
    assert list(tree) == ["orders"]
    rows = tree["orders"]["rows"]
    assert len(rows) == OFFER.min_rows and set(tree["orders"]) == {"rows"}  # no add picker, no remove buttons
    assert list(rows[0]) == ["action", "stake", "target", "params"]
    assert rows[0]["action"].value == "spy" and rows[1]["action"].value is None and rows[1]["stake"].value == "low"
    more = sf.choice_widgets(SPECS, {"orders": [{"action": "spy"}] * 5}, offer=OFFER)
    assert len(more["orders"]["rows"]) == 5 + OFFER.spare_rows


def test_the_gm_sheet_widgets_are_unchanged_without_an_offer() -> None:
    tree = sf.choice_widgets(SPECS, {"orders": [{"action": "spy"}]})
    assert list(tree) == ["actor", "orders"] and set(tree["orders"]) == {"rows", sf.ADD}
    assert len(tree["orders"]["rows"]) == 1 and sf.REMOVE in tree["orders"]["rows"][0]
    assert "faction" in tree["orders"]["rows"][0] and not isinstance(tree["orders"]["rows"][0]["target"], dict)
    form = sf.StepForm("s", tuple(SPECS), {"orders": [{"action": "spy"}]})
    assert set(sf.step_widgets(form)["c"]) == set(tree)


def test_an_open_pick_offers_its_hints_and_any_other_value() -> None:
    pick = sf.open_pick(TARGET, "fabia", HINTS, example="e.g. an id")
    assert set(pick) == set(sf.OPEN_PICK)
    assert pick["pick"].value == "fabia" and pick["other"].value == ""
    assert list(pick["pick"].options) == ["Fabia", "q7"]  # by name, not "Fabia [fabia]" (issue 29)
    other = sf.open_pick(TARGET, "zz", HINTS)
    assert other["pick"].value is None and other["other"].value == "zz"
    assert isinstance(sf.choice_widgets(SPECS, {}, offer=OFFER)["orders"]["rows"][0]["target"], dict)


def test_a_player_form_is_read_as_given_and_blank_entries_are_not_entries() -> None:
    tree = sf.choice_widgets(SPECS, {}, offer=OFFER)
    flat = values(tree)
    got, out = read(flat)
    assert got == {"orders": []} and out.errors == []  # four blank orders holding only their defaults
    flat["orders/rows/#1/action"] = "march"
    flat["orders/rows/#1/target/pick"] = "fabia"
    flat["orders/rows/#1/params/units"] = "3"
    got, out = read(flat)
    assert out.errors == []
    assert got == {"orders": [{"action": "march", "stake": "low", "target": "fabia", "params": {"units": 3}}]}
    flat["orders/rows/#1/target/other"] = " q9 "  # the box wins over the pick
    assert read(flat)[0]["orders"][0]["target"] == "q9"


def test_an_entry_with_a_value_but_without_its_required_one_is_an_error_not_dropped() -> None:
    flat = values(sf.choice_widgets(SPECS, {}, offer=OFFER))
    flat["orders/rows/#2/params/units"] = "2"
    got, out = read(flat)
    assert [(e.path, e.message) for e in out.errors] == [
        (("orders", 2, "action"), "needed: choose one, or clear the whole entry")]
    assert got == {"orders": [{"stake": "low", "params": {"units": 2}}]}  # kept: the check would refuse it too
    flat["orders/rows/#2/params/units"] = "many"
    _, out = read(flat)
    assert [e.path for e in out.errors] == [("orders", 2, "params", "units")]  # a value that cannot be read


def test_empty_inputs_stay_out_and_a_default_given_stays_in() -> None:
    specs = [STAKE, FieldSpec("pay", "Pay", "list", default=[], item_kind="text"), FieldSpec("flag", "Flag", "bool"),
             FieldSpec("note", "Note", "text")]
    got, _ = read({"stake": "low", "pay": "", "flag": False, "note": ""}, specs=specs)
    assert got == {"stake": "low"}
    got, _ = read({"stake": "low", "pay": "a, b", "flag": True, "note": "x"}, specs=specs)
    assert got == {"stake": "low", "pay": ["a", "b"], "flag": True, "note": "x"}
    gm, _ = read({"stake": "low", "pay": "", "flag": False, "note": ""}, offer=None, specs=specs)
    # the GM sheet: a value at its default stays out; an optional switch (default None: the rules decide) left off
    # stays out too, so touching a step never turns the rules' default into False (issue 29: pf2e's 'continues')
    assert gm == {}


def test_path_label_names_a_place_in_words() -> None:
    assert sf.path_label(SPECS, ("orders", 0, "params", "units")) == "Order 1 › Params › Units"
    assert sf.path_label(SPECS, ("actor",)) == "Actor"
