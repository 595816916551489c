"""The saved draft beside the log (kingdomlog.app.drafts) and `kingdomlog turn` playing it (--dry-run, --seed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kingdomlog.app import Campaign
from kingdomlog.app.drafts import Drafts, SavedDraft
from kingdomlog.cli import main as cli
from kingdomlog.core.errors import InputError
from kingdomlog.core.turn import Plan, StepPlan
from kingdomlog.views.sheet import draft as sheet

PLAN = Plan(turn=2, seed="draft-seed", steps={"harvest": StepPlan(choices={"crop": "barley"}, rerolls={"harvest": 2}),
                                              "market": StepPlan(choices={"sell": 1})})


def test_a_draft_is_written_whole_and_read_back(toy: Path) -> None:
    d = Drafts(toy)
    assert d.load(2) is None
    assert d.save(SavedDraft(2, 7, PLAN)) is True
    assert d.save(SavedDraft(2, 7, PLAN)) is False  # the same draft is not written again
    assert [p.name for p in d.dir.iterdir()] == ["turn-0002.json"]  # no temp file left behind
    got = d.load(2)
    assert got is not None and got.plan == PLAN and got.start_seq == 7 and got.origin == "sheet"
    assert d.turns() == [2]
    # the log knows nothing of it
    assert Campaign.open(toy).verify().ok and Campaign.open(toy).next_turn() == 2


def test_a_damaged_draft_is_set_aside_not_lost(toy: Path) -> None:
    d = Drafts(toy)
    d.dir.mkdir()
    d.path(2).write_text('{"format": 1, "turn": 2, "start_seq": 7, "plan": {"steps": {"nope": 1}}')
    with pytest.raises(InputError, match="kept as"):
        d.load(2)
    kept = list((d.dir / "set-aside").iterdir())
    assert len(kept) == 1 and "nope" in kept[0].read_text()
    assert d.load(2) is None
    s, _ = sheet.open_session(toy)
    assert s is not None and s.plan.steps == {}


def test_a_draft_of_a_turn_already_played_is_set_aside(toy: Path) -> None:
    d = Drafts(toy)
    d.save(SavedDraft(1, 3, Plan(turn=1, seed="old")))
    s, message = sheet.open_session(toy)
    assert s is not None and "set aside" in (message or "")
    assert d.turns() == [2] and list((d.dir / "set-aside").iterdir())


def test_reopen_puts_the_committed_plan_back_and_sets_later_drafts_aside(toy: Path) -> None:
    d = Drafts(toy)
    d.record_commit("c-123", 2, PLAN)
    d.save(SavedDraft(3, 9, Plan(turn=3, seed="later")))
    got = d.reopen(2, ["c-123"], 10)
    assert got is not None and got.origin == "retracted" and got.plan == PLAN and got.start_seq == 10
    assert d.turns() == [2]
    assert d.reopen(2, ["unknown"], 10) is None
    with pytest.raises(InputError):
        d.committed_path("../escape")


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = cli(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_turn_dry_run_plays_the_saved_draft_with_its_seed(toy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    s, _ = sheet.open_session(toy)
    assert s is not None
    forms = s.widgets()
    values = dict(forms.value)
    s.update(values)
    values["harvest/c/crop"] = "barley"
    s.update(values)
    rc, out, err = run_cli(capsys, "turn", str(toy), "--dry-run")  # the harvest is not rolled yet
    assert rc == 1 and "Harvest (harvest): waits for its roll harvest" in out
    assert "step 'harvest' waits for its roll 'harvest' (2d6), not rolled yet" in err
    draft = s.type_faces("harvest", "harvest", "2 3")
    seed = draft.plan.seed
    head = Campaign.open(toy).head_seq
    rc, out, _ = run_cli(capsys, "turn", str(toy), "--dry-run", "--json")
    doc = json.loads(out)
    assert rc == 0 and doc["seed"] == seed and doc["committed"] is None
    assert "saved draft" in doc["plan_source"] and "saved draft" in doc["seed_source"]
    events = [e["payload"] for st in doc["steps"] for e in st["events"]]
    assert events == [d.payload.model_dump(mode="json") for d in draft.preview.drafts]  # type: ignore[union-attr]
    assert Campaign.open(toy).head_seq == head
    rc, out, _ = run_cli(capsys, "turn", str(toy), "--dry-run")
    assert rc == 0 and f"dice seed {seed}" in out and "not committed" in out


def test_a_plan_without_a_seed_takes_the_drafts_then_seed_flag(toy: Path, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"steps": {"market": {"choices": {"sell": 1}}}}))
    rc, out, _ = run_cli(capsys, "turn", str(toy), "--plan", str(plan), "--dry-run", "--seed", "flag-seed", "--json")
    assert rc == 0 and json.loads(out)["seed"] == "flag-seed"
    Drafts(toy).save(SavedDraft(2, 7, Plan(turn=2, seed="from-the-draft")))
    rc, out, _ = run_cli(capsys, "turn", str(toy), "--plan", str(plan), "--dry-run", "--json")
    assert rc == 0 and json.loads(out)["seed"] == "from-the-draft"
    rc, out, _ = run_cli(capsys, "turn", str(toy), "--plan", str(plan), "--dry-run", "--seed", "flag-seed", "--json")
    assert json.loads(out)["seed"] == "flag-seed"  # --seed wins over the draft's


def test_turn_without_a_plan_or_draft_says_how(toy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = run_cli(capsys, "turn", str(toy), "--dry-run")
    assert rc == 1 and "no saved draft of turn 2" in err


def test_committing_the_draft_from_the_cli_records_it_for_undo(toy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    Drafts(toy).save(SavedDraft(2, 7, PLAN))
    rc, out, _ = run_cli(capsys, "turn", str(toy), "--json")
    doc = json.loads(out)
    assert rc == 0 and doc["committed"] is not None
    d = Drafts(toy)
    assert d.load(2) is None and d.committed_plan([doc["committed"]["commit_id"]]) == PLAN
