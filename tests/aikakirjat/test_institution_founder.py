"""An institution's founding PC (spec §8: ``pc_id``): the GM names the PC among the kingdom's PCs, by name; an id
not in the state, or a PC named for an institution the Court or an event founds, is refused at the field; the
event and the state keep the PC, and the GM sheet's panel and the chronicle name them ("Ilmari"; it read "a PC").
An event logged before the field existed is written, and folds, as it always did (no ``pc_id`` in its payload nor
in the state document: the golden states hold that for the demo's log)."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from kingdomlog.app import Campaign
from kingdomlog.core.events import payload_json
from kingdomlog.core.turn import Plan
from kingdomlog.core.viewers import parse_viewer
from kingdomlog.rulesets.aikakirjat.events import InstitutionFounded
from kingdomlog.rulesets.aikakirjat.state import Institution
from kingdomlog.views.sheet import panel as sheet_panel


@pytest.fixture(scope="module")
def camp(aikakirjat_demo: Path) -> Campaign:
    return Campaign.open(aikakirjat_demo)


def founded(camp: Campaign, **entry: Any) -> Any:
    plan = Plan.parse({"turn": camp.next_turn(), "seed": "x", "steps": {"start": {"choices": {"gm_events": [
        {"event": "institution_founded", "institution_id": "temple-ukko", "kind": "temple", **entry}]}}}})
    return camp.preview(plan)


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_the_form_offers_the_founders_in_words_and_the_pcs_by_name(camp: Campaign) -> None:
    fields = camp.ruleset.choices(camp.state(), camp.next_turn(), "start",
                                  values={"gm_events": [{"event": "institution_founded"}]})
    entry = {f.name: f for f in next(f for f in fields if f.name == "gm_events").entries[0]}  # type: ignore[index]
    pc = entry["pc_id"]
    assert pc.label == "Founded by" and [(o.value, o.label) for o in pc.options or ()] == [
        ("aino", "Aino"), ("ilmari", "Ilmari")]
    founder = entry["founder"]  # who founded it in words (they read "pc", "court", "event": the Literal's values)
    assert [o.label for o in founder.options or ()] == ["A PC", "The Court", "An event"]
    assert next(o for o in founder.options or () if o.value == "court").disabled.startswith("no Court notable")


def test_a_named_founder_is_kept_and_named_on_the_panel_and_in_the_chronicle(camp: Campaign) -> None:
    pv = founded(camp, pc_id="ilmari")
    assert pv.ok, [s.error for s in pv.steps]
    event = next(d.payload for d in pv.drafts if d.type == "aikakirjat.institution_founded")
    assert event.pc_id == "ilmari" and '"pc_id":"ilmari"' in payload_json(event)
    temple = next(i for i in pv.state_after.institutions if i.id == "temple-ukko")
    assert temple.pc_id == "ilmari" and temple.founder == "pc"
    shown = text(str(sheet_panel.panel_html(camp.ruleset, pv.state_after)))
    assert "the Ukko Temple Temple 16 — Ilmari" in shown, shown
    assert "the Sampo Academy Academy 0 — a PC" in shown  # founded before a PC was named: as it was
    logged = SimpleNamespace(type="aikakirjat.institution_founded", payload=event)
    told = camp.ruleset.chronicle(pv.state_before, logged, pv.state_after, parse_viewer("public", ()))
    assert told is not None and "a new temple was founded by Ilmari, the Ukko Temple" in told, told
    portrait = camp.ruleset.portrait(pv.state_after, None, parse_viewer("public", ()))
    assert portrait is not None and "Its institutions: the Sampo Academy and the Ukko Temple (founded by Ilmari)." \
        in portrait.sentences, portrait.sentences


@pytest.mark.parametrize(("entry", "said"), [
    ({"pc_id": "väinö"}, "gm_events[0].pc_id: 'väinö' is not a PC of the kingdom"),
    ({"pc_id": "aino", "founder": "event"}, "gm_events[0].pc_id: a PC founds it only when its founder is a PC"),
])
def test_a_founder_not_in_the_state_is_refused_at_its_field(camp: Campaign, entry: dict[str, Any], said: str) -> None:
    pv = founded(camp, **entry)
    error = str(pv.steps[0].error)
    assert said in error and "Traceback" not in error, error
    assert not any(d.type == "aikakirjat.institution_founded" for d in pv.drafts)


def test_an_institution_without_a_named_founder_is_written_as_before() -> None:
    event = InstitutionFounded(institution_id="academy-sampo", kind="academy")
    assert "pc_id" not in payload_json(event)
    assert InstitutionFounded.model_validate_json(payload_json(event)).pc_id is None
    assert "pc_id" not in Institution(id="academy-sampo", type="academy", founded_year=0).model_dump(mode="json")
