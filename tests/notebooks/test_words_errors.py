"""An error appears at the widget that caused it, in words, saying what to change (issue 29); a default is never one
the rules refuse. Driven through the GM sheet's session on a copy of the pf2e demo (no browser)."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path
from typing import Any

import marimo as mo
import pytest
from nb_support import DEMO

from kingdomlog.core.turn import Plan
from kingdomlog.views import forms as sf
from kingdomlog.views.sheet import cards as sheet_cards
from kingdomlog.views.sheet import draft as sheet


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    folder = tmp_path / "stolen-lands"
    shutil.copytree(DEMO, folder, ignore=shutil.ignore_patterns(".cache"))
    return folder


def with_rows(folder: Path, step: str, rows: list[dict[str, Any]] | None) -> tuple[sheet.SheetSession,
                                                                                 sheet.SheetDraft]:
    """The sheet opened on a draft whose ``step`` has activity ``rows`` (None: no choices), every check before it
    rolled."""
    s, _ = sheet.open_session(folder)
    assert s is not None
    plan = Plan.parse({"steps": {step: {"choices": {"activities": rows} if rows is not None else {}}}})
    s.plan = plan
    draft = s.update(dict(s.widgets().value))
    for _ in range(12):
        card = draft.card(step)
        if card is None or (card.pending is None and card.waiting is None):
            break
        draft = s.roll_all()
    s.refresh_forms(draft)
    return s, s.update(dict(s.widgets().value))


def shown_at(s: sheet.SheetSession, draft: sheet.SheetDraft, step: str) -> dict[str, str]:
    """The card's left side as drawn: each field's path (``data-field``) and the error text beside it."""
    card = draft.card(step)
    assert card is not None
    view = sheet_cards.widgets_view(s, card, sf.View(s.widgets())[step], draft)
    html = mo.as_html(view).text
    out = {}
    for m in re.finditer(r'data-field="([^"]+)"', html):
        rest = html[m.end():]
        nxt = rest.find('data-field="')
        box = re.search(r'class="kl-field-error[^"]*"[^>]*>(.*?)</', rest[: nxt if nxt > 0 else len(rest)], re.S)
        if box:
            out[m.group(1)] = re.sub(r"<[^>]+>", "", box.group(1)).strip()
    return out


def test_a_claim_hex_without_its_hex_is_refused_at_hex_in_words(demo: Path) -> None:
    s, draft = with_rows(demo, "activity.region", [{"activity": "claim-hex", "role": "warden", "skill": "exploration"}])
    card = draft.card("activity.region")
    assert card is not None and card.error is not None
    assert sf.error_path(card.error) == ("activities", 0, "hex")
    errors = shown_at(s, draft, "activity.region")
    assert errors.get("activities.0.hex") == "⚠ Choose the hex for Claim Hex", errors
    assert "claim-hex" not in " ".join(errors.values()) and "'hex'" not in " ".join(errors.values())


def test_a_leadership_activity_without_a_leader_is_refused_at_role(demo: Path) -> None:
    _s, draft = with_rows(demo, "activity.leadership", [{"activity": "hire-adventurers"}])
    card = draft.card("activity.leadership")
    assert card is not None and card.error is not None
    assert sf.error_path(card.error) == ("activities", 0, "role"), card.error
    assert "choose the leader who does Hire Adventurers" in card.error
    assert "ruler, counselor" not in card.error


def test_the_default_skill_is_one_the_rules_allow(demo: Path) -> None:
    """Last month Quell Unrest was made with Arts (§4.4: not twice in a row): left at "--", the skill is the first
    one the picker offers, not Arts."""
    s, draft = with_rows(demo, "activity.leadership", [{"activity": "quell-unrest", "role": "ruler"}])
    card = draft.card("activity.leadership")
    assert card is not None and card.error is None, card.error
    spec = next(iter(card.checks.values()))
    assert spec.label == "Quell Unrest, Ruler"
    offered = next(f for f in s.start.ruleset.choices(s.start.state, s.start.turn, "activity.leadership",
                                                  {"activities": [{"activity": "quell-unrest"}]})
               if f.name == "activities").entries[0]
    skill = next(f for f in offered if f.name == "skill")
    first_allowed = next(o.value for o in skill.options or () if not o.disabled)
    assert first_allowed == "folklore"
    assert any(e.type == "pf2e.check_resolved" and e.payload.skill == "folklore" for e in card.drafts)


def test_a_gm_xp_below_zero_is_refused_at_its_box_saying_what_to_give(demo: Path) -> None:
    """A GM XP of -5 is neither clamped to 0 nor refused at the top of the card: at GM XP award, in words, with
    what to give instead."""
    s, draft = with_rows(demo, "event.xp", None)
    values = dict(s.widgets().value)
    s.update(values)  # the widgets as built: what the GM's edit is read against
    draft = s.update({**values, "event.xp/c/gm_xp": -5})
    card = draft.card("event.xp")
    assert card is not None and card.error is not None and sf.error_path(card.error) == ("gm_xp",)
    s.refresh_forms(draft)
    draft = s.update(dict(s.widgets().value))
    assert shown_at(s, draft, "event.xp") == {"gm_xp": "⚠ -5 is below the smallest allowed, 0; give 0 or more"}
    card = draft.card("event.xp")
    assert card is not None  # the refusal beside the card says the field by its label, not the step's key
    result = re.sub(r"<[^>]+>", "", str(sheet_cards.result_html(s, card, draft)))
    assert "Refused by the rules. GM XP award: -5 is below" in result and "step '" not in result, result


def test_an_armys_consumption_below_zero_is_refused_at_its_line(demo: Path) -> None:
    """An army named by the GM is a line of the Armies' Consumption rows: a Consumption of -1 is refused beside
    that army's box, not at the top of the card (the message names the army by its key, which has a space)."""
    s, _ = sheet.open_session(demo)
    assert s is not None
    s.plan = Plan.parse({"steps": {"upkeep.leadership": {"choices": {"armies": {"Reed Riders": 1,
                                                                                "Black Hand": -1}}}}})
    draft = s.update(dict(s.widgets().value))
    s.refresh_forms(draft)
    draft = s.update(dict(s.widgets().value))
    card = draft.card("upkeep.leadership")
    assert card is not None and card.error is not None and "Black Hand" in card.error
    assert shown_at(s, draft, "upkeep.leadership") == {
        "armies.1.value": "⚠ -1 is below the smallest allowed, 0; give 0 or more"}
    result = re.sub(r"<[^>]+>", "", str(sheet_cards.result_html(s, card, draft)))
    assert "Refused by the rules. Army 2 › Consumption: -1 is below" in result, result


# ---- refusals name things by their names, not their ids (issue 29) ----------------------------------------------


@pytest.fixture
def felmonte(tmp_path: Path) -> Path:
    folder = tmp_path / "felmonte"
    shutil.copytree(DEMO.parent / "felmonte", folder, ignore=shutil.ignore_patterns(".cache"))
    return folder


def refused_at(folder: Path, steps: dict[str, Any], step: str) -> tuple[str, dict[str, str]]:
    """The refusal beside ``step``'s card as drawn (its text) and the errors at its fields."""
    s, _ = sheet.open_session(folder)
    assert s is not None
    s.plan = Plan.parse({"steps": steps})
    draft = s.update(dict(s.widgets().value))
    s.refresh_forms(draft)
    draft = s.update(dict(s.widgets().value))
    card = draft.card(step)
    assert card is not None and card.error is not None
    text = html.unescape(re.sub(r"<[^>]+>", "", str(sheet_cards.result_html(s, card, draft))))
    return text, {k: html.unescape(v) for k, v in shown_at(s, draft, step).items()}


def test_a_refusal_names_the_characters_and_factions_it_quotes(felmonte: Path) -> None:
    """'bianca' is not a character who may lead fabian's action; allowed: fabian.leader, cesare, … — on the GM's
    card, beside the Leader it is about, with each named as the state names them."""
    order = {"id": "S2", "action": "improve_relations", "slots": ["special"], "stake": "low", "target": "felmonte",
             "leader": "bianca"}
    result, at = refused_at(felmonte, {"orders_fabian": {"choices": {"actor": "fabian", "orders": [order]}}},
                            "orders_fabian")
    said = "Bianca is not a character who may lead Duke Fabian's action; allowed: Duke Fabian, Cesare, Orsino, Lorenzo"
    assert said in result, result
    assert at.get("orders.0.leader") == f"⚠ {said}", at
    for raw in ("'bianca'", "fabian.leader", "fabian's"):
        assert raw not in result and raw not in " ".join(at.values())


def test_an_intel_ruling_without_what_was_learned_says_to_give_it(felmonte: Path) -> None:
    effect = {"kind": "intel", "observer": "fabian", "subject": "marburg"}
    result, at = refused_at(felmonte, {"turn_open": {"choices": {"rulings": [{"text": "x", "effects": [effect]}]}}},
                            "turn_open")
    assert "an intel effect needs what was learned: give it, or leave the effect out" in result, result
    assert any(v.endswith("n intel effect needs what was learned: give it, or leave the effect out")
               for v in at.values()), at  # beside the effect
    assert "null" not in result and "left out)" not in result and "'intel'" not in result


def test_a_players_refusal_names_only_what_their_view_holds(felmonte: Path) -> None:
    """The orders sheet says a refusal in the names of the player's own view of the state (``open_orders``'
    ``named``), never from the GM's."""
    from kingdomlog.app import Campaign, pbp
    from kingdomlog.views import orders
    from kingdomlog.views.words import refusal_words

    shutil.rmtree(felmonte / "plans")
    pbp.publish(Campaign.open(felmonte), Plan.parse({"steps": {"turn_open": {"choices": {}}}}))
    start = orders.open_orders(felmonte, "fabian")
    msg = ("step 'orders_fabian': choice orders[0].leader: 'bianca' is not a character who may lead fabian's action;"
           " allowed: fabian.leader, cesare")
    assert refusal_words(msg, start["named"]) == (
        "choice orders[0].leader: Bianca is not a character who may lead Duke Fabian's action; allowed: Duke Fabian,"
        " Cesare")
    view = Campaign.open(felmonte)
    shown = view.ruleset.redact(view.state(), view.viewer("fabian")).model_dump(mode="json")
    assert set(start["named"].names) <= set(json.dumps(shown).replace('"', " ").split())  # every id from the view


# ---- aikakirjat's GM adjustment on the sheet: what the form shows is what the plan holds, refusals at the field ----


@pytest.fixture
def aikakirjat(tmp_path: Path) -> Path:
    folder = tmp_path / "aikakirjat-demo"
    shutil.copytree(DEMO.parent / "aikakirjat-demo", folder, ignore=shutil.ignore_patterns(".cache"))
    return folder


def adjusting(folder: Path, entry: dict[str, Any], change: dict[str, Any] | None = None
              ) -> tuple[sheet.SheetSession, sheet.SheetDraft]:
    """The sheet with one GM adjustment ``entry`` in its start step's between-year events, then the GM's ``change``
    of its widgets (``{path under the entry: value}``), each read as the page reads it, the widgets rebuilt."""
    s, _ = sheet.open_session(folder)
    assert s is not None
    s.plan = Plan.parse({"steps": {"start": {"choices": {"gm_events": [entry]}}}})
    draft = s.update(dict(s.widgets().value))
    s.refresh_forms(draft)
    values = dict(s.widgets().value)
    draft = s.update(values)
    if change:
        draft = s.update({**values, **{f"start/c/gm_events/rows/#0/{k}": v for k, v in change.items()}})
        s.refresh_forms(draft)
        draft = s.update(dict(s.widgets().value))
    return s, draft


def test_the_territory_the_gm_sees_is_the_territory_the_plan_sets(aikakirjat: Path) -> None:
    """Picking 'The territory' fills its rows with the kingdom's areas; left as shown, the plan holds them and the
    kingdom keeps its land (a value left out set the territory to none)."""
    s, draft = adjusting(aikakirjat, {"event": "gm_adjustment", "reason": "a survey"}, {"field": "territory"})
    before = s.start.state.territory
    value = s.plan.steps["start"].choices["gm_events"][0].get("value")
    assert [a["area_id"] for a in value] == [a.area_id for a in before]
    card = draft.card("start")
    assert card is not None and card.error is None and card.after is not None, card.error
    assert card.after.territory == before


def test_a_gm_adjustment_missing_what_it_needs_is_refused_at_that_field(aikakirjat: Path) -> None:
    s, draft = adjusting(aikakirjat, {"event": "gm_adjustment", "reason": "x"})
    assert shown_at(s, draft, "start") == {"gm_events.0.field": "⚠ Needed, choose or give one"}
    s, draft = adjusting(aikakirjat, {"event": "gm_adjustment", "field": "special_unit", "reason": "x"})
    card = draft.card("start")
    assert card is not None and card.error is not None and "internal error" not in card.error
    at = {k: html.unescape(v) for k, v in shown_at(s, draft, "start").items()}
    assert list(at.values()) == ["⚠ Give the special unit's fields, or take the adjustment out"]
    assert next(iter(at)).startswith("gm_events.0.value")  # under the unit's fields, in their group
    s, draft = adjusting(aikakirjat, {"event": "gm_adjustment", "field": "neighbour_population", "delta": 1})
    assert shown_at(s, draft, "start") == {
        "gm_events.0.target": "⚠ Pick the neighbour whose population changes"}


def test_a_war_refusal_names_the_sides_and_the_war() -> None:
    """aikakirjat's war refusals said 'players has no army 'p9' in war-17-kalevala': the kingdom and the war by their
    names."""
    from kingdomlog.core.errors import RuleError
    from kingdomlog.rulesets.aikakirjat import war
    from kingdomlog.rulesets.aikakirjat.events import Order
    from kingdomlog.rulesets.aikakirjat.state import KingdomState, Neighbour, War

    w = War(war_id="war-17-kalevala", attacker="players", defender="kalevala", started_year=17)
    s = KingdomState(name="Pohjola", neighbours={"kalevala": Neighbour(id="kalevala", name="Kalevala")}, wars=(w,))
    with pytest.raises(RuleError) as got:
        war._orders_for(s, w, "players", (Order(army_id="p9"),))
    assert str(got.value).startswith("Pohjola has no army 'p9' in the war with Kalevala"), str(got.value)
    two = tuple(war.Allocation(army_id=f"k{i}", province_id="x", militia=0) for i in range(2))
    with pytest.raises(RuleError, match=r"^Kalevala may field at most 1 armies"):
        war._check_allocations(s, "kalevala", two, 0, 3, 1)


def test_a_typed_face_refused_says_which_roll_in_words(demo: Path) -> None:
    """A d20 typed as 99 is refused beside the card as 'The faces typed for …', not "step 'activity.leadership', roll
    'a1': …", and the hint says where to change it, not the roll's key."""
    s, _ = sheet.open_session(demo)
    assert s is not None
    s.plan = Plan.parse({"steps": {"activity.leadership": {
        "choices": {"activities": [{"activity": "quell-unrest", "role": "ruler"}]}, "rolls": {"a1": [99]}}}})
    draft = s.update(dict(s.widgets().value))
    for _ in range(12):
        card = draft.card("activity.leadership")
        if card is None or (card.pending is None and card.waiting is None):
            break
        draft = s.roll_all()
    card = draft.card("activity.leadership")
    assert card is not None and card.error is not None
    result = html.unescape(re.sub(r"<[^>]+>", " ", str(sheet_cards.result_html(s, card, draft))))
    assert "The faces typed for the roll: 1d20: face #1 is 99, not a d20 face (1..20)" in result, result
    assert "'a1'" not in result and "step '" not in result
    assert "Change or clear the faces typed for the roll (under “Type physical dice”), or re-roll it." in result


def test_a_refusal_names_records_never_a_field_keyed_like_an_id() -> None:
    """A Namer knows the pf1 army's commander by the name of the record under 'commander' (Amiri) for the panel's
    tables; a refusal that writes the word commander, bare or as an unknown choice, keeps it."""
    from kingdomlog.app import Campaign
    from kingdomlog.views.words import namer, refusal_words

    camp = Campaign.open(DEMO.parent / "river-kingdom")
    names = namer(camp.ruleset, camp.turn_start().state)
    assert names("commander") == "Amiri"
    said = refusal_words("step 'battle': unknown choice 'commander' in armies[0]; the commander of A2 is needed",
                         names)
    assert "Amiri" not in said and "the commander of" in said, said
