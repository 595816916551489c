"""The ruleset seam as users meet it: typed choices refused by name, plan schemas, viewers and visibility
checked on every path, recorded facts replayed and audited apart (issue 11)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import toyrules

from kingdomlog.app import Campaign, audit
from kingdomlog.cli import main
from kingdomlog.core.choices import describe
from kingdomlog.core.errors import CorruptLogError, InputError
from kingdomlog.core.events import EventModel, register_event
from kingdomlog.core.turn import Plan
from kingdomlog.core.viewers import parse_viewer, parse_visibility


@register_event
class Alien(EventModel):
    type = "alien.landed"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture
def farm(tmp_path: Path) -> Campaign:
    camp = Campaign.create(tmp_path / "farm", "toy-farm", viewers=["alice", "bob"])
    camp.play(Plan.parse(toyrules.TOY.sample_plans()[0]))
    return camp


def files(camp: Campaign) -> list[str]:
    return sorted(p.name for p in (camp.folder / "log").iterdir())


# ---- typed choices ------------------------------------------------------------------------------


@pytest.mark.parametrize(("steps", "needle"), [
    ({"harvest": {"choices": {"stsh": 1}}}, "unknown choice 'stsh'; this step takes: crop, stash"),
    ({"harvest": {"choices": {"crop": "rye"}}},
     "choice crop: 'rye' is not a crop of this farm; allowed: wheat, barley"),
    ({"harvest": {"choices": {"stash": "3"}}}, "choice stash: input should be a valid integer"),
    ({"market": {"choices": {"sell": -1}}}, "choice sell: -1 is below the smallest allowed, 0"),
    ({"harvest": {"rolls": {"harvset": [3]}}}, "typed faces under roll key(s) 'harvset' that this step does not roll"),
    ({"harvest": {"rerolls": {"harvset": 1}}}, "re-rolls of key(s) 'harvset'"),
])
def test_a_plan_that_does_not_fit_a_step_is_refused_naming_step_and_key(
        farm: Campaign, steps: dict[str, object], needle: str) -> None:
    before = files(farm)
    p = farm.preview(Plan.parse({"seed": "s", "steps": steps}))
    assert not p.ok
    step = next(iter(steps))
    assert f"step {step!r}" in (p.error or "") and needle in (p.error or ""), p.error
    assert p.refused_step == step
    with pytest.raises(ValueError):
        farm.play(Plan.parse({"seed": "s", "steps": steps}))
    assert files(farm) == before


def test_the_cli_refuses_a_typo_with_exit_1_and_appends_nothing(
        farm: Campaign, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plan = tmp_path / "typo.json"
    plan.write_text(json.dumps({"seed": "s", "steps": {"market": {"choices": {"sel": 1}}}}))
    before = files(farm)
    rc, _, err = run(capsys, "turn", str(farm.folder), "--plan", str(plan))
    assert rc == 1 and "unknown choice 'sel'" in err and "Traceback" not in err
    assert files(farm) == before


def test_a_step_form_is_described_from_the_state(farm: Campaign) -> None:
    fields = farm.ruleset.choices(farm.state(), 1, "harvest")
    crop = next(f for f in fields if f.name == "crop")
    assert crop.kind == "select" and [o.value for o in crop.options or ()] == ["wheat", "barley"]
    assert [o.detail for o in crop.options or ()] == ["1d6", "2d6"]
    stash = next(f for f in fields if f.name == "stash")
    assert (stash.kind, stash.label, stash.minimum, stash.default) == ("int", "Gold hidden by the GM", 0.0, 0)
    assert describe(toyrules.MarketChoices, state=None, vocabulary=lambda *a: None)[0].label == "Food to sell"


def test_a_step_returns_its_own_breakdowns_not_the_kingdoms(farm: Campaign) -> None:
    farm.play(Plan.parse({"seed": "s", "steps": {"harvest": {"rolls": {"harvest": [4]}}}}))
    p = farm.preview(Plan.parse({"seed": "s", "steps": {"market": {"choices": {"sell": 2}}}}))
    market = next(s for s in p.steps if s.phase.id == "market")
    assert [b.name for b in market.breakdown] == ["Sale"] and market.breakdown[0].total == 4
    harvest = next(s for s in p.steps if s.phase.id == "harvest")
    assert harvest.breakdown == []


def test_plan_schema_validates_sample_plans_and_rejects_a_typo(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "plan-schema", "toy")
    assert rc == 0
    schema = json.loads(out)
    jsonschema.Draft202012Validator.check_schema(schema)
    for plan in toyrules.TOY.sample_plans():
        jsonschema.validate(plan, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"steps": {"harvest": {"choices": {"stsh": 1}}}}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"steps": {"harvest": {"choices": {"stash": -1}}}}, schema)
    crop = schema["$defs"]["HarvestChoices"]["properties"]["crop"]
    assert crop["x-kingdomlog-source"] == "crops"


# ---- viewers and visibility ---------------------------------------------------------------------


@pytest.mark.parametrize("cmd", ["log", "state", "export"])
@pytest.mark.parametrize(("who", "needle"), [
    ("nobody", "unknown viewer 'nobody'; this campaign's viewers: gm, public, alice, bob"),
    ("faction:gm", "'gm' is reserved"),
    ("faction:public", "'public' is reserved"),
    ("system", "unknown viewer 'system'"),
])
def test_every_read_path_refuses_an_unknown_viewer(farm: Campaign, capsys: pytest.CaptureFixture[str],
                                                   cmd: str, who: str, needle: str) -> None:
    extra = ["-o", "-"] if cmd == "export" else []
    rc, out, err = run(capsys, cmd, str(farm.folder), "--as", who, *extra)
    assert rc == 1 and needle in err, err
    assert out == ""


def test_faction_prefix_names_the_same_player(farm: Campaign, capsys: pytest.CaptureFixture[str]) -> None:
    rc1, a, _ = run(capsys, "state", str(farm.folder), "--as", "alice", "--json")
    rc2, b, _ = run(capsys, "state", str(farm.folder), "--as", "faction:alice", "--json")
    assert rc1 == rc2 == 0 and a == b and json.loads(a)["kingdomlog"]["viewer"] == "alice"


@pytest.mark.parametrize("name", ["gm", "public", "system"])
def test_reserved_names_cannot_be_declared(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    rc, _, err = run(capsys, "new", str(tmp_path / "x"), "--ruleset", "toy", "--viewer", name)
    assert rc == 1 and "reserved" in err
    assert not (tmp_path / "x").exists()


def test_campaign_toml_declaring_a_reserved_viewer_is_refused(farm: Campaign) -> None:
    cfg = farm.folder / "campaign.toml"
    cfg.write_text(cfg.read_text().replace('id = "alice"', 'id = "gm"'))
    with pytest.raises(InputError, match="reserved"):
        Campaign.open(farm.folder)


@pytest.mark.parametrize(("vis", "needle"), [
    ("everyone", "'everyone'"),
    ("FACTION:alice", "in lower case"),
    ("faction:zed", "names 'zed', not a player or faction of this campaign"),
    ("faction:alice,faction:alice", "names a player twice"),
    ("faction:gm", "'gm' is reserved, not a player or faction id"),
    ("public,faction:alice", "'public' stands alone, not in a list"),
    ("faction:alice,gm", "'gm' stands alone, not in a list (the GM reads every event)"),
    ("faction:alice,faction:public", "'public' is reserved, not a player or faction id"),
])
def test_a_bad_visibility_is_refused_before_anything_is_written(
        farm: Campaign, capsys: pytest.CaptureFixture[str], vis: str, needle: str) -> None:
    before = files(farm)
    rc, _, err = run(capsys, "note", str(farm.folder), "text", "--visibility", vis)
    assert rc == 1 and needle in err, err
    line = json.dumps({"turn": 0, "type": "core.note_added", "payload": {"text": "x"}, "visibility": vis})
    with pytest.raises(InputError, match="visibility"):
        farm.parse_jsonl([line])
    assert files(farm) == before
    # and every reader still works
    assert farm.state(viewer=farm.viewer("alice")) is not None


def test_note_visibility_accepts_a_bare_player_id(farm: Campaign, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "note", str(farm.folder), "for alice", "--visibility", "alice")
    assert rc == 0 and "(seen by alice)" in out  # the bare id taken as the player (no name: its id)
    rc, out, _ = run(capsys, "log", str(farm.folder), "--as", "bob")
    assert "for alice" not in out
    rc, out, _ = run(capsys, "log", str(farm.folder), "--as", "alice", "--json")
    assert "for alice" in out


def test_a_ruleset_step_emitting_an_undeclared_visibility_is_refused(farm: Campaign,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    def leak(ctx: object, c: object) -> None:
        ctx.emit(toyrules.Secret(gold=1), visibility="faction:mallory")

    monkeypatch.setattr(toyrules, "MARKET", toyrules.MARKET.__class__(
        "market", "Market", choices=toyrules.MarketChoices, decide=leak))
    monkeypatch.setattr(type(toyrules.TOY), "phases", property(lambda self: (toyrules.HARVEST, toyrules.MARKET)))
    p = farm.preview(Plan.parse({"seed": "s"}))
    assert not p.ok and "mallory" in (p.error or "") and p.refused_step == "market"


def test_viewer_and_visibility_types() -> None:
    v = parse_viewer("alice", ("alice",))
    assert parse_visibility("faction:alice").allows(v)
    assert not parse_visibility("faction:bob").allows(v)
    assert not parse_visibility("gm").allows(parse_viewer("public", ()))
    assert parse_visibility("public").allows(parse_viewer("public", ()))
    assert parse_visibility("faction:bob").allows(parse_viewer("gm", ()))


# ---- recorded facts, audited apart --------------------------------------------------------------


def test_a_log_whose_numbers_differ_from_todays_rules_replays_and_audit_lists_them(
        farm: Campaign, capsys: pytest.CaptureFixture[str]) -> None:
    farm.play(Plan.parse({"seed": "s", "steps": {"harvest": {"rolls": {"harvest": [5]}}}}))
    # recorded by an older rule: 2 food sold for 9 gold (today's price 2 would give 4)
    line = json.dumps({"turn": 1, "phase": "market", "type": "toy.sold", "payload": {"food": 2, "gold": 9}})
    farm.append_raw(farm.parse_jsonl([line]))
    state = Campaign.open(farm.folder).state(use_cache=False)
    assert (state.gold, state.food) == (5 + 9, 3)  # the recorded facts
    rep = audit(farm)
    assert not rep.clean and [f.message for f in rep.findings] == [
        "2 food sells for 4 gold at price 2, not 9"]
    assert rep.findings[0].turn == 1 and rep.findings[0].type == "toy.sold"
    rc, out, _ = run(capsys, "audit", str(farm.folder))
    assert rc == 0 and "season 1:" in out and "2 food sells for 4 gold at price 2, not 9" in out
    rc, out, _ = run(capsys, "audit", str(farm.folder), "--json")
    assert json.loads(out)["findings"][0]["seq"] == farm.head_seq
    rc, _, _ = run(capsys, "verify", str(farm.folder))
    assert rc == 0


def test_an_event_of_another_ruleset_is_refused_alike(farm: Campaign) -> None:
    from kingdomlog.core.events import Draft, provisional

    ev = provisional("farm", 99, Draft(toyrules.Founded(name="x", gold=1), turn=1))
    state = farm.state()
    assert farm.ruleset.apply(state, ev).name == "x"
    with pytest.raises(CorruptLogError, match="does not belong to ruleset 'toy-farm'"):
        farm.ruleset.apply(state, provisional("farm", 99, Draft(Alien(), turn=1)))


# ---- entries of several kinds (tagged unions), lists of numbers, parent values ------------------


def test_tagged_union_entries_are_described_validated_and_named_in_errors() -> None:
    from typing import Annotated, Literal

    from pydantic import Field

    from kingdomlog.core.choices import PARENT, Choices, Option, Pick, validate_choices

    class Grant(Choices):
        kind: Literal["grant"]
        town: Annotated[str, Pick("towns")]
        gold: int = Field(default=1, ge=0)

    class Levy(Choices):
        kind: Literal["levy"]
        men: list[int] = Field(default_factory=list)

    class Edicts(Choices):
        edicts: list[Annotated[Grant | Levy, Field(discriminator="kind")]] = Field(default_factory=list)
        first: Grant | Levy | None = None

    seen: list[object] = []

    def vocab(state: object, source: str, within: object) -> list[Option]:
        seen.append(within)
        return [Option("ash"), Option("elm")]

    fields = {f.name: f for f in describe(Edicts, state=None, vocabulary=vocab,
                                          values={"edicts": [{"kind": "levy", "men": [3]}, {"kind": "grant"}]})}
    rows = fields["edicts"]
    assert rows.kind == "rows" and rows.discriminator == "kind"
    assert [(v.tag, [f.name for f in v.fields]) for v in rows.variants] == [
        ("grant", ["kind", "town", "gold"]), ("levy", ["kind", "men"])]
    assert [f.kind for f in rows.entries[0]] == ["select", "list"] and rows.entries[0][1].item_kind == "int"
    assert [o.value for o in rows.entries[1][1].options or ()] == ["ash", "elm"]
    assert fields["first"].kind == "variant"
    ok = validate_choices(Edicts, {"edicts": [{"kind": "grant", "town": "elm"}]}, state=None, vocabulary=vocab,
                          step="s")
    assert ok.edicts[0].town == "elm"  # type: ignore[union-attr]
    assert any(isinstance(w, dict) and PARENT in w for w in seen)
    with pytest.raises(InputError, match=r"choice edicts\[0\]\.town: 'oak' is not one of the towns"):
        validate_choices(Edicts, {"edicts": [{"kind": "grant", "town": "oak"}]}, state=None, vocabulary=vocab,
                         step="s")
    with pytest.raises(InputError, match=r"unknown choice 'gild' in edicts\[0\]\.grant; this entry takes: kind, town"):
        validate_choices(Edicts, {"edicts": [{"kind": "grant", "town": "elm", "gild": 2}]}, state=None,
                         vocabulary=vocab, step="s")


def test_picks_in_mapping_keys_and_values_are_checked() -> None:
    from typing import Annotated

    from pydantic import Field

    from kingdomlog.core.choices import Choices, Option, Pick, validate_choices

    Town = Annotated[str, Pick("towns", what="a town")]

    class Grants(Choices):
        gold: dict[Town, int] = Field(default_factory=dict)
        roads: dict[str, list[Town]] = Field(default_factory=dict)

    def vocab(state: object, source: str, within: object) -> list[Option]:
        return [Option("ash"), Option("elm")]

    assert validate_choices(Grants, {"gold": {"ash": 1}, "roads": {"r1": ["elm"]}}, state=None, vocabulary=vocab,
                            step="s").gold == {"ash": 1}
    with pytest.raises(InputError, match=r"choice gold\.oak: 'oak' is not a town; allowed: ash, elm"):
        validate_choices(Grants, {"gold": {"oak": 1}}, state=None, vocabulary=vocab, step="s")
    with pytest.raises(InputError, match=r"choice roads\.r1\[1\]: 'oak' is not a town"):
        validate_choices(Grants, {"roads": {"r1": ["elm", "oak"]}}, state=None, vocabulary=vocab, step="s")


def test_plan_schema_of_a_campaign_and_its_usage_error(farm: Campaign, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "plan-schema", "--campaign", str(farm.folder))
    assert rc == 0 and set(json.loads(out)["properties"]["steps"]["properties"]) == {"found", "harvest", "market"}
    rc, _, err = run(capsys, "plan-schema")
    assert rc == 2 and "needs a RULESET or --campaign" in err
