"""Settlements and leaders a Foundry export holds only the ids of (issues 32, 29): shown by name or by a
placeholder in words, never the raw id; named at import (``--name ID=NAME``, ``--names FILE``) or afterwards
(``kingdomlog name``, the ``pf2e.named`` event, folded by replay); export-kingdom still writes the ids."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from kingdomlog.app import Campaign
from kingdomlog.app.kingdom_import import import_kingdom, name_in_campaign
from kingdomlog.core.errors import InputError
from kingdomlog.core.events import Draft
from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e.foundry import KMT, read_kmt, read_system

from .test_foundry_import import FIXTURES, run, state_json

RAW_ID = re.compile(r"^(Actor\.|Scene)|sett-")
KMT_FILE = FIXTURES / "kmt-kingdom.json"


def _kingdom(fk: Any) -> dict[str, Any]:
    imp = next(d.payload for d in fk.events if isinstance(d.payload, E.KingdomImported))
    kingdom: dict[str, Any] = imp.kingdom
    return kingdom


def test_an_export_without_names_reads_into_words_not_ids() -> None:
    k = _kingdom(read_kmt(json.loads(KMT_FILE.read_text())))
    shown = [st["name"] for st in k["settlements"]] + [ld["holder"] for ld in k["leaders"].values() if ld["holder"]]
    assert not [s for s in shown if RAW_ID.search(s)], shown
    assert [st["name"] for st in k["settlements"]] == ["Settlement 1 (unnamed in Foundry)",
                                                        "Settlement 2 (unnamed in Foundry)"]
    assert (k["leaders"]["ruler"]["holder"], k["leaders"]["ruler"]["foundry_id"]) == (
        "Ruler (unnamed in Foundry)", "Actor.Ruler00000000001")
    # the module's companions carry their actor's name: the General is Amiri
    assert (k["leaders"]["general"]["holder"], k["leaders"]["general"]["foundry_id"]) == (
        "Amiri", "Actor.Amiri0000000001")
    system = _kingdom(read_system(json.loads((FIXTURES / "pf2e-party-kingdom-old.json").read_text())))
    assert system["leaders"]["ruler"]["holder"] == "Ruler (unnamed in Foundry)"


def test_names_given_at_import_and_what_is_left_is_listed(tmp_path: Path) -> None:
    done = import_kingdom(KMT_FILE.read_text(), tmp_path / "realm",
                          names={"SceneTatzl000001": "Tatzlford", "Actor.Ruler00000000001": " Kesten Garess ",
                                 "treasurer": "Jubilost"})
    s = done.campaign.state()
    assert [st.name for st in s.settlements] == ["Tatzlford", "Settlement 2 (unnamed in Foundry)"]
    assert (s.leaders["ruler"].holder, s.leaders["treasurer"].holder) == ("Kesten Garess", "Jubilost")
    left = dict(done.unnamed)
    assert "SceneTatzl000001" not in left and "Actor.Ruler00000000001" not in left
    assert left["SceneTusk0000001"] == "Settlement 2 (unnamed in Foundry)"
    assert left["Actor.Couns0000000001"] == "Counselor (unnamed in Foundry)"
    assert done.name_command().startswith(f"kingdomlog name {tmp_path / 'realm'} SceneTusk0000001=NAME ")


@pytest.mark.parametrize(("names", "said"), [
    ({"SceneNowhere0001": "X"}, "--name SceneNowhere0001: the kingdom has no settlement or leader by that id"),
    ({"emissary": "Linzi"}, "--name emissary: the kingdom has no settlement or leader"),  # the seat is vacant
    ({"SceneTatzl000001": "   "}, "--name SceneTatzl000001: the name must be words"),
    ({"Actor.Ruler00000000001": "amiri"}, "--name Actor.Ruler00000000001: 'amiri' is already the General's name"),
    ({"Actor.Ruler00000000001": "K" * 101}, "--name Actor.Ruler00000000001: the name is 101 characters"),
])
def test_a_bad_name_at_import_is_refused_naming_it_and_nothing_is_written(tmp_path: Path, names: dict[str, str],
                                                                         said: str) -> None:
    with pytest.raises(InputError) as info:
        import_kingdom(KMT_FILE.read_text(), tmp_path / "realm", names=names)
    assert str(info.value).startswith(said), str(info.value)
    assert not (tmp_path / "realm").exists()


def test_the_cli_names_at_import_and_its_report_says_how_to_name_the_rest(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "realm"
    names = tmp_path / "names.json"
    names.write_text(json.dumps({"SceneTusk0000001": "Tusk Hollow"}))
    code, out, err = run(capsys, "import-kingdom", str(folder), "--from", str(KMT_FILE), "--name", "Stolen Lands",
                         "--name", "SceneTatzl000001=Tatzlford", "--name", "Actor.Ruler00000000001=Kesten Garess",
                         "--names", str(names))
    assert code == 0, err
    s = state_json(capsys, folder)
    assert [st["name"] for st in s["settlements"]] == ["Tatzlford", "Tusk Hollow"]
    assert s["leaders"]["ruler"]["holder"] == "Kesten Garess"
    assert Campaign.open(folder).config.name == "Stolen Lands"  # a --name without '=' is the campaign's name
    assert "  Actor.Couns0000000001: shown as 'Counselor (unnamed in Foundry)'" in out
    assert "Actor.Ruler00000000001:" not in out.split("without a name")[1]
    line = next(x for x in out.splitlines() if x.startswith("name them: "))
    assert line == (f"name them: kingdomlog name {folder} Actor.Couns0000000001=NAME Actor.Magis0000000001=NAME"
                    " Actor.Treas0000000001=NAME Actor.Vicer0000000001=NAME Actor.Warde0000000001=NAME")
    code, out, err = run(capsys, "import-kingdom", str(tmp_path / "other"), "--from", str(KMT_FILE),
                         "--name", "Actor.Nobody=X")
    assert (code, out) == (1, "") and err.count("\n") == 1 and "Actor.Nobody" in err and "Traceback" not in err


def test_naming_afterwards_is_a_fact_folded_by_replay_and_export_keeps_the_ids(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "realm"
    import_kingdom(KMT_FILE.read_text(), folder)
    code, out, err = run(capsys, "name", str(folder), "SceneTusk0000001=Tusk Hollow", "warden=Ekundayo",
                         "Actor.Couns0000000001=Jubilost")
    assert code == 0, err
    camp = Campaign.open(folder)
    named = [e.payload for e in camp.events() if isinstance(e.payload, E.Named)]
    assert [(p.what, p.id, p.name) for p in named] == [("settlement", "SceneTusk0000001", "Tusk Hollow"),
                                                        ("leader", "warden", "Ekundayo"),
                                                        ("leader", "counselor", "Jubilost")]
    s = camp.state()
    assert s.settlements[1].name == "Tusk Hollow"
    assert (s.leaders["warden"].holder, s.leaders["warden"].foundry_id) == ("Ekundayo", "Actor.Warde0000000001")
    rest = out.split("without a name")[1]
    assert "Actor.Couns0000000001" not in rest and "Actor.Magis0000000001=NAME" in rest
    # refused naming the id or the name; nothing appended
    head = camp.head_seq
    for pair, said in (("SceneNope=X", "name SceneNope: the kingdom has no settlement or leader by that id"),
                       ("warden=", "name warden: the name must be words"),
                       ("warden", "'warden': give ID=NAME"),
                       ("warden=Amiri", "name warden: 'Amiri' is already the General's name")):
        code, out, err = run(capsys, "name", str(folder), pair)
        assert (code, out) == (1, "") and said in err and err.count("\n") == 1, err
    assert Campaign.open(folder).head_seq == head
    # export-kingdom writes the actor ids Foundry needs, and the names for the way back
    back = tmp_path / "back.json"
    assert run(capsys, "export-kingdom", str(folder), "--to", str(back))[0] == 0
    doc = json.loads(back.read_text())
    sheet = doc["flags"][KMT]["kingdom-sheet"]
    assert sheet["leaders"]["warden"]["uuid"] == "Actor.Warde0000000001"
    assert sheet["leaders"]["counselor"]["uuid"] == "Actor.Couns0000000001"
    assert [st["sceneId"] for st in sheet["settlements"]] == ["SceneTatzl000001", "SceneTusk0000001"]
    again = import_kingdom(back.read_text(), tmp_path / "again").campaign.state()
    assert again.leaders["warden"].holder == "Ekundayo" and again.settlements[1].name == "Tusk Hollow"
    assert again.leaders["counselor"].foundry_id == "Actor.Couns0000000001"


def test_name_in_campaign_refuses_a_name_too_long_and_a_replayed_leader_keeps_their_actor(tmp_path: Path) -> None:
    camp = import_kingdom(KMT_FILE.read_text(), tmp_path / "realm").campaign
    with pytest.raises(InputError, match=r"name ruler: the name is 101 characters; at most 100"):
        name_in_campaign(camp, {"ruler": "x" * 101})
    name_in_campaign(camp, {"ruler": "Kesten"})
    # New Leadership re-seating the same person (investiture changes) keeps the Foundry actor they are
    camp.append([Draft(E.LeaderChanged(role="ruler", holder="Kesten", invested=False), actor="gm", turn=0)],
                expect_seq=camp.head_seq)
    ld = Campaign.open(camp.folder).state().leaders["ruler"]
    assert (ld.holder, ld.foundry_id, ld.invested) == ("Kesten", "Actor.Ruler00000000001", False)


def test_the_gm_sheet_names_one_as_the_sheet_shows_them(tmp_path: Path) -> None:
    """The GM sheet's action (views.extras) takes who as the page shows them, in words, and says what it did;
    a refusal is said in words, and nothing is written."""
    from kingdomlog.core.turn import Plan
    from kingdomlog.views.extras import NAME_FROM_FOUNDRY, extras_for

    assert NAME_FROM_FOUNDRY in extras_for("pf2e-kingmaker").actions
    assert NAME_FROM_FOUNDRY in extras_for("pf1-kingmaker").actions
    folder = tmp_path / "realm"
    import_kingdom(KMT_FILE.read_text(), folder)
    done = NAME_FROM_FOUNDRY.run(folder, Plan(), {"who": "settlement 2 (unnamed in Foundry)", "name": "Tusk Hollow"})
    assert done.kind == "success" and "'Tusk Hollow'" in done.text and "Ruler (unnamed in Foundry)" in done.text
    done = NAME_FROM_FOUNDRY.run(folder, Plan(), {"who": "Ruler (unnamed in Foundry)", "name": "Kesten Garess"})
    assert done.kind == "success", done.text
    s = Campaign.open(folder).state()
    assert (s.settlements[1].name, s.leaders["ruler"].holder) == ("Tusk Hollow", "Kesten Garess")
    head = Campaign.open(folder).head_seq
    for values, said in (({"who": "", "name": "X"}, "say who or what"),
                         ({"who": "Nobody at all", "name": "X"}, "no settlement or leader"),
                         ({"who": "Magister (unnamed in Foundry)", "name": " "}, "the name must be words")):
        done = NAME_FROM_FOUNDRY.run(folder, Plan(), values)
        assert done.kind == "danger" and said in done.text and "Not named" in done.text, done.text
    assert Campaign.open(folder).head_seq == head


def test_a_leader_recorded_by_actor_id_before_names_were_read_is_named_and_keeps_the_actor(tmp_path: Path) -> None:
    """A log whose import recorded a leader's holder as the raw ``Actor.…`` (before this change): nothing logged
    changes; naming takes the recorded id as the leader's, and export-kingdom still writes it."""
    from dataclasses import replace

    from kingdomlog.rulesets.pf2e.foundry import FORMATS

    fk = read_kmt(json.loads(KMT_FILE.read_text()))
    imp = next(d for d in fk.events if isinstance(d.payload, E.KingdomImported))
    old = dict(imp.payload.kingdom)
    old["leaders"] = {r: {k: v for k, v in ld.items() if k != "foundry_id"} | (
        {"holder": ld["foundry_id"]} if ld["foundry_id"] else {}) for r, ld in old["leaders"].items()}
    camp = Campaign.create(tmp_path / "old", "pf2e-kingmaker", name="Old")
    camp = Campaign.open(tmp_path / "old")
    camp.append([replace(imp, payload=imp.payload.model_copy(update={"kingdom": old}))], expect_seq=camp.head_seq)
    assert camp.state().leaders["ruler"].holder == "Actor.Ruler00000000001"  # as recorded
    name_in_campaign(camp, {"Actor.Ruler00000000001": "Kesten Garess"})
    ld = Campaign.open(camp.folder).state().leaders["ruler"]
    assert (ld.holder, ld.foundry_id) == ("Kesten Garess", "Actor.Ruler00000000001")
    write = FORMATS[0].write
    assert write is not None
    assert write(Campaign.open(camp.folder).state(), None)["flags"][KMT]["kingdom-sheet"]["leaders"]["ruler"][
        "uuid"] == "Actor.Ruler00000000001"


def test_the_chronicle_tells_the_naming_in_words(tmp_path: Path) -> None:
    from kingdomlog.core.viewers import GM_VIEWER

    camp = import_kingdom(KMT_FILE.read_text(), tmp_path / "realm").campaign
    before = camp.state()
    name_in_campaign(camp, {"SceneTusk0000001": "Tusk Hollow", "Actor.Ruler00000000001": "Kesten Garess"})
    camp = Campaign.open(camp.folder)
    after = camp.state()
    told = [camp.ruleset.chronicle(before, e, after, GM_VIEWER) for e in camp.events()[-2:]]
    assert told == ["the GM named Settlement 2: Tusk Hollow", "the GM named the Ruler: Kesten Garess"]


def test_a_player_page_of_an_imported_kingdom_shows_no_foundry_id(tmp_path: Path) -> None:
    """The player page (its static render, as shared) of a kingdom imported with nothing named: placeholders in
    words, no scene or actor id anywhere in the page."""
    from kingdomlog.views.player import page as player

    folder = tmp_path / "realm"
    import_kingdom(KMT_FILE.read_text(), folder)
    html = player.render_static(folder, "public")
    assert "Settlement 1 (unnamed in Foundry)" in html and "Ruler (unnamed in Foundry)" in html
    assert not re.search(r"Actor\.|Scene(Tatzl|Tusk)", html)


def test_a_settlement_name_the_export_holds_is_taken(tmp_path: Path) -> None:
    """A schema whose settlements carry a ``name`` (and a kingdomlog export's ``flags.kingdomlog``) names them; a
    blank one is a placeholder; a ``pf2e.named`` event with a blank name is refused by the event itself."""
    doc = json.loads(KMT_FILE.read_text())
    doc["flags"][KMT]["kingdom-sheet"]["settlements"][0]["name"] = "Tatzlford"
    doc["flags"][KMT]["kingdom-sheet"]["settlements"][1]["name"] = "  "
    k = _kingdom(read_kmt(doc))
    assert [st["name"] for st in k["settlements"]] == ["Tatzlford", "Settlement 2 (unnamed in Foundry)"]
    with pytest.raises(ValueError, match="name must not be empty"):
        E.Named(what="leader", id="ruler", name="   ")


@pytest.mark.parametrize(("text", "said"), [
    ('["SceneTusk0000001"]', "must be a JSON object {id: name}, got list"),
    ('{"SceneTusk0000001": 7}', "the name for SceneTusk0000001 must be text, got 7"),
    ('{"SceneTusk0000001": ', "not JSON"),
])
def test_a_bad_names_file_is_refused_in_one_line_and_nothing_is_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, said: str) -> None:
    names = tmp_path / "names.json"
    names.write_text(text)
    code, out, err = run(capsys, "import-kingdom", str(tmp_path / "realm"), "--from", str(KMT_FILE),
                         "--names", str(names))
    assert (code, out) == (1, "") and said in err and err.count("\n") == 1, err
    assert not (tmp_path / "realm").exists()


class _Sheet:
    """What ``take_action`` needs of the GM sheet's session: its folder and draft plan."""

    def __init__(self, folder: Path) -> None:
        from kingdomlog.core.turn import Plan

        self.start = type("Start", (), {"folder": folder})()
        self.plan = Plan()

    def replace_plan(self, plan: Any) -> None:
        self.plan = plan

    def save(self) -> None:
        pass


def test_the_sheet_offers_a_dropdown_of_exactly_the_unnamed_and_names_through_it(tmp_path: Path) -> None:
    """Issue 29/32: 'who' is a dropdown of only those still unnamed, their placeholders as labels and their ids
    as values that never reach the page; a pick and a name record ``pf2e.named``; a refusal is said in the form,
    in words."""
    from kingdomlog.views.extras import action_forms, extras_for, take_action

    camp = import_kingdom(KMT_FILE.read_text(), tmp_path / "realm",
                          names={"Actor.Ruler00000000001": "Kesten Garess"}).campaign
    extras = extras_for("pf2e-kingmaker")
    forms = action_forms(extras, camp.ruleset, camp.state())
    form = forms["name-from-foundry"]
    who = form.element.elements["who"]
    assert who.options == {
        "Settlement 1 (unnamed in Foundry)": "SceneTatzl000001",
        "Settlement 2 (unnamed in Foundry)": "SceneTusk0000001",
        "Counselor (unnamed in Foundry)": "Actor.Couns0000000001",
        "Magister (unnamed in Foundry)": "Actor.Magis0000000001",
        "Treasurer (unnamed in Foundry)": "Actor.Treas0000000001",
        "Viceroy (unnamed in Foundry)": "Actor.Vicer0000000001",
        "Warden (unnamed in Foundry)": "Actor.Warde0000000001"}
    assert not RAW_ID.search(form.text) and "Actor." not in form.text  # the ids stay on the server
    # refusals in the form, naming them as the sheet shows them
    assert form.validate({"who": [], "name": "X"}) == "Pick who or what to name."
    assert form.validate({"who": ["Warden (unnamed in Foundry)"], "name": "kesten garess"}) == (
        "Warden (unnamed in Foundry): 'kesten garess' is already the Ruler's name (one person holds one role)")
    assert form.validate({"who": ["Settlement 2 (unnamed in Foundry)"], "name": " "}).startswith(
        "Settlement 2 (unnamed in Foundry): the name must be words")
    assert form.validate({"who": ["Settlement 2 (unnamed in Foundry)"], "name": "Tusk Hollow"}) is None
    head = Campaign.open(camp.folder).head_seq
    forms._update({"name-from-foundry": {"who": ["Settlement 2 (unnamed in Foundry)"], "name": "Tusk Hollow"}})
    done = take_action(extras, forms, _Sheet(camp.folder))
    assert done is not None and done.kind == "success", done
    assert done.text.startswith("Settlement 2 (unnamed in Foundry) is now 'Tusk Hollow'") and "Scene" not in done.text
    after = Campaign.open(camp.folder)
    named = [e.payload for e in after.events() if e.seq > head]
    assert [(type(p), p.what, p.id, p.name) for p in named] == [(E.Named, "settlement", "SceneTusk0000001",
                                                                 "Tusk Hollow")]
    assert take_action(extras, forms, _Sheet(camp.folder)) is None  # one submission, one run
    # a page drawn before the Warden was named elsewhere: refused in words, no id shown, nothing written
    name_in_campaign(Campaign.open(camp.folder), {"warden": "Ekundayo"})
    head = Campaign.open(camp.folder).head_seq
    forms._update({"name-from-foundry": {"who": ["Warden (unnamed in Foundry)"], "name": "Linzi"}})
    done = take_action(extras, forms, _Sheet(camp.folder))
    assert done is not None and done.kind == "danger" and "no settlement or leader still unnamed" in done.text
    assert "Actor." not in done.text and Campaign.open(camp.folder).head_seq == head
    after = Campaign.open(camp.folder)
    # the sheet rebuilt on the new state no longer offers the one named
    again = action_forms(extras, after.ruleset, after.state())["name-from-foundry"].element.elements["who"]
    assert "Settlement 2 (unnamed in Foundry)" not in again.options and len(again.options) == 5


def test_the_naming_action_is_not_shown_when_nothing_is_unnamed(tmp_path: Path) -> None:
    from kingdomlog.views.extras import action_forms, extras_for

    camp = import_kingdom(KMT_FILE.read_text(), tmp_path / "realm").campaign
    extras = extras_for("pf2e-kingmaker")
    name_in_campaign(camp, {i: f"Name {n}" for n, (i, _) in enumerate(camp.ruleset.foreign_formats()[0].unnamed(
        camp.state()))})  # type: ignore[misc]
    camp = Campaign.open(camp.folder)
    assert action_forms(extras, camp.ruleset, camp.state()) is None
    pf1 = Campaign.create(tmp_path / "pf1", "pf1-kingmaker", name="Pf1")
    assert action_forms(extras_for("pf1-kingmaker"), pf1.ruleset, pf1.state()) is None
    # an action without dropdowns (signoria's) is shown as before
    sig = Campaign.create(tmp_path / "sig", "signoria", name="Sig")
    assert set(action_forms(extras_for("signoria"), sig.ruleset, sig.state()).elements) == {"publish", "move_on"}
