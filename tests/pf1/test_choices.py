"""Typed step choices: the plan JSON Schema over the demo plans, refusals naming step and key, vocabularies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pf1.kit import kingdom, play, step

from kingdomlog.app import Campaign
from kingdomlog.core.errors import InputError, RuleError
from kingdomlog.core.turn import Plan, plan_schema, preview_turn
from kingdomlog.rulesets.pf1 import RULESET
from kingdomlog.rulesets.pf1 import events as ev

DEMO = Path(__file__).resolve().parents[2] / "campaigns" / "river-kingdom"
PLANS = sorted((DEMO / "plans").glob("turn-*.json"))


def demo_plans() -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in PLANS]


def test_every_demo_and_sample_plan_validates_against_the_plan_schema() -> None:
    schema = plan_schema(RULESET)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert len(PLANS) == 18
    for raw in [*demo_plans(), *RULESET.sample_plans()]:
        jsonschema.validate(raw, schema)
    steps = schema["properties"]["steps"]["properties"]
    assert list(steps) == ["founding", "gm", "upkeep", "improvement", "war", "income", "event"]


def test_the_schema_refuses_a_typo_and_marks_state_sources() -> None:
    schema = plan_schema(RULESET)
    bad = {"turn": 3, "seed": "x", "steps": {"improvement": {"choices": {"claims": ["h2"]}}}}
    with pytest.raises(jsonschema.ValidationError, match="claims"):
        jsonschema.validate(bad, schema)
    text = json.dumps(schema)
    for source in ("claim_hexes", "building_types", "cities", "roles", "foreign_kingdoms", "event_choices"):
        assert f'"x-kingdomlog-source": "{source}"' in text, source


def _demo_state_before(turn: int) -> tuple[Any, int]:
    camp = Campaign.open(DEMO)
    ctx = camp.context
    s, evs, _ = play(demo_plans()[:turn], campaign=camp.id, options=ctx.options, data=ctx.data)
    return s, len(evs)


@pytest.mark.parametrize(("choices", "needles"), [
    ({"claims": ["h2"]}, ["step 'improvement'", "unknown choice 'claims'", "claim"]),
    ({"claim": ["h99"]}, ["step 'improvement'", "choice claim[0]", "'h99' is not on the map"]),
    ({"buildings": [{"type": "Castle of Glass"}]}, ["step 'improvement'", "choice buildings[0].type",
                                                    "'Castle of Glass' is not a building of the catalogue"]),
    ({"buildings": [{"type": "House", "cty": "Tatzlford"}]}, ["step 'improvement'", "unknown choice 'cty'"]),
    ({"buildings": [{"type": "House", "city": "Atlantis"}]}, ["choice buildings[0].city", "'Atlantis'"]),
    ({"special_edict": {"kind": "diplomatic", "target": "cheliax"}}, ["choice special_edict.target",
                                                                       "'cheliax' is not a registered foreign"]),
    ({"improvements": [{"hex": "h2", "kind": "GOLDMINE"}]}, ["choice improvements[0].kind", "'GOLDMINE'"]),
    ({"leaders": [{"role": "JESTER", "name": "Kipp"}]}, ["choice leaders[0].role", "'JESTER'"]),
])
def test_a_demo_month_with_a_typo_or_an_unknown_id_is_refused_naming_step_and_key(
        choices: dict[str, Any], needles: list[str]) -> None:
    s, seq = _demo_state_before(3)
    plan = Plan.parse({"turn": 3, "seed": "river-03", "steps": {"improvement": {"choices": choices}}})
    pv = preview_turn(RULESET, s, plan, campaign="river-kingdom", turn=3, start_seq=seq)
    assert not pv.ok and pv.refused_step == "improvement"
    for needle in needles:
        assert needle in (pv.error or ""), (needle, pv.error)


def test_other_steps_refuse_unknown_ids_naming_the_key() -> None:
    s = kingdom(2)
    with pytest.raises(InputError, match=r"step 'event': choice event: 'Dragon Attack' is not roll, none or a"):
        step(s, "event", {"event": "Dragon Attack"})
    with pytest.raises(InputError, match=r"step 'upkeep': choice lose_hex: 'H5' is not a hex of the kingdom"):
        step(s, "upkeep", {"lose_hex": "H5"})
    with pytest.raises(InputError, match=r"step 'gm': choice explore\[0\]: 'Z1'"):
        step(s, "gm", {"explore": ["Z1"]})
    with pytest.raises(InputError, match=r"step 'income': choice deposit_gp: -5 is below the smallest allowed, 0"):
        step(s, "income", {"deposit_gp": -5})
    # a hex mapped in the same GM step may be explored at once (the vocabulary sees the sibling field)
    after, p = step(s, "gm", {"map": [{"id": "Z1", "q": 9, "r": 9, "explored": False}], "explore": ["Z1"]})
    assert after.hexes["Z1"].explored and isinstance(p[-1], ev.HexExplored)


def test_vocabularies_carry_what_a_gm_weighs() -> None:
    s, _ = _demo_state_before(3)
    form = {f.name: f for f in RULESET.choices(s, 3, "improvement")}
    claim = {o.value: o for o in form["claim"].options or ()}
    assert claim["h2"].detail == "claimable, 1 BP" and claim["h0"].detail == "already claimed (base §4.3 I2)"
    assert "not adjacent" in claim["h10"].detail
    assert form["buildings"].kind == "rows" and form["special_edict"].kind == "variant"
    nested = {f.name: f for f in form["buildings"].fields}
    types = {o.value: o.detail for o in nested["type"].options or ()}
    assert types["Barracks"] == "6 BP; Unrest -1"  # the campaign's homebrew errata cost; one lot: not said
    # a phone's dropdown holds the option whole: the lots when more than one, the attributes by their short names
    # where the full words do not fit (it read "Castle — 54 BP, 4 lot(s); Economy +2, Loyalty +2, Stability +2,
    # Unrest -4", 416 px in an entry's 346); the houses it needs beside it are the refusal's
    assert types["Castle"] == "54 BP, 4 lots; Eco, Loy, Stab +2; Unrest -4"
    assert types["Mint"] == "30 BP; Economy, Loyalty +3; Stability +1"
    roles = {o.value: o.detail for o in {f.name: f for f in form["leaders"].fields}["role"].options or ()}
    assert "held by Kesten Garess" in roles["RULER"]
    edicts = {o.value: o.detail for o in form["taxation"].options or ()}
    assert edicts["LIGHT"].endswith("; current")
    ev_form = {f.name: f for f in RULESET.choices(s, 3, "event")}
    assert [o.value for o in ev_form["event"].options or ()][:2] == ["roll", "none"]


def test_an_ability_choice_depends_on_the_role_beside_it() -> None:
    s = kingdom(1)
    form = {f.name: f for f in RULESET.choices(s, 1, "improvement", {"leaders": [{"role": "TREASURER"}]})}
    entry = {f.name: f for f in form["leaders"].entries[0]}
    details = {o.value: o.detail for o in entry["ability"].options or ()}
    assert details["INT"] == "the Treasurer's" and details["STR"] == "not the role's (base §2.4)"  # no role's id
    with pytest.raises(RuleError, match="TREASURER uses INT or WIS, not STR"):
        step(s, "improvement", {"leaders": [{"role": "TREASURER", "name": "X", "ability": "STR"}]})


def test_every_pick_has_a_vocabulary() -> None:
    from kingdomlog.rulesets.pf1.vocabulary import SOURCES

    used: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "x-kingdomlog-source" in node:
                used.add(node["x-kingdomlog-source"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(plan_schema(RULESET))
    assert used and used <= set(SOURCES), sorted(used - set(SOURCES))
    s, _ = _demo_state_before(3)
    for name in SOURCES:  # each answers on a real state, without sibling values
        assert RULESET.vocabulary(s, name, {}) is not None, name


def test_forms_leave_out_the_choices_of_modules_that_are_off() -> None:
    plain = {f.name for f in RULESET.choices(kingdom(1), 1, "improvement")}
    assert "special_edict" not in plain and "dedications" not in plain and "claim" in plain
    holy = {f.name for f in RULESET.choices(kingdom(1, options={"modules": ["holy_sites"]}), 1, "improvement")}
    assert "dedications" in holy and "special_edict" not in holy
    # a plan may still name them: the step refuses with the rule
    city = [ev.CityFounded(city="C1", name="A", hex="H0", capital=True),
            ev.DistrictPreparationStarted(city="C1", district="D1", hex="H0", terrain="GRASSLAND", cost_bp=0,
                                          months=0, ready_on_turn=1),
            ev.DistrictReady(district="D1"),
            ev.BuildingConstructed(building="B1", city="C1", district="D1", building_type="Shrine", lots=(0,),
                                   base_cost_bp=8, cost_bp=0, unrest_delta=0)]
    with pytest.raises(RuleError, match=r"dedications need the holy_sites module \(rule: opt §2.2"):
        step(kingdom(1, extra=city), "improvement", {"dedications": [{"building": "B1"}]})


def test_the_relations_among_foreign_kingdoms_are_asked_in_words() -> None:
    """The GM step's and the founding's ``third_party`` read "Third party", its entries "A", "B", "Level", "Enemy":
    the field says what it is, as the panel heads it, and each entry's fields say which kingdom and what tie."""
    from kingdomlog.rulesets.pf1 import choices as ch

    camp = Campaign.open(DEMO)
    start = camp.turn_start()
    field = next(f for f in RULESET.choices(start.state, start.turn, "gm") if f.name == "third_party")
    assert field.label == "Relations among foreign kingdoms" == RULESET.name_of("third_party", "figure")
    assert "two foreign kingdoms" in field.help
    assert [f.label for f in field.fields] == ["One kingdom", "The other kingdom", "Their relation", "Enemies"]
    assert ch.FoundingChoices.model_fields["third_party"].title == field.label


def test_an_entry_s_options_fit_a_phone_and_name_no_id() -> None:
    """The options of the fields an entry added on the GM sheet shows (a building's type, a district's hex, an
    army, its resources, a hex improvement, a role, a building) fit an entry's dropdown on a phone (346 px, about
    55 characters; the browser measures them in tests/notebooks/test_selects_fit_browser.py) and name no id: an
    army read "Tatzlford Guard — Large ACR 3: hp 16/16, OM +4, DV 13, Morale +0, active, led by Amiri; kingdom"
    (558 px), a resource "Healing Potions — 10 BP (Medium; scaled by size), Consumption +0/week; needs Alchemist or
    ..." (1003), a hex improvement "Aqueduct — 1 BP; on grassland, hills, forest, marsh, mountains; loyalty +1,
    stability +1" (498)."""
    from kingdomlog.views.words import option_text

    camp = Campaign.open(DEMO)
    s = camp.state()
    said: dict[str, list[str]] = {}
    for source, within in [("building_types", {}), ("district_hexes", {}), ("armies", {}), ("our_armies", {}),
                           ("army_resources", {}), ("improvement_types", {}), ("roles", {}), ("buildings", {}),
                           ("slot_buildings", {}), ("abilities", {}), ("abilities", {"role": "GRAND_DIPLOMAT"})]:
        said[source] = [option_text(o) for o in RULESET.vocabulary(s, source, within) or ()]
        assert said[source], source
    long = [t for texts in said.values() for t in texts if len(t) > 55]
    assert long == [], long
    assert "Tatzlford Guard — ACR 3, hp 16/16, OM +4, DV 13" in said["armies"]
    assert "Healing Potions — 10 BP" in said["army_resources"]
    assert "Aqueduct — 0 BP; Loyalty, Stability +1" in said["improvement_types"]  # its cost here
    assert "Mine — 8 BP; hills, mountains only; Eco, Stab +1" in said["improvement_types"]
    ids = {*s.armies, *s.buildings, *s.districts, *s.cities, *(r for r in s.catalog.roles), "kingdom"}
    words = {w for texts in said.values() for t in texts for w in t.replace(",", " ").replace(";", " ").split()}
    assert not words & ids, sorted(words & ids)
