"""The application layer's edges (issue 26): viewers parsed from the config alone, one public append,
a commit that records its draft, one merge of the players' submissions."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import toyrules

from kingdomlog.app import Campaign
from kingdomlog.app.drafts import Drafts, SavedDraft, commit_id
from kingdomlog.core.core_events import NoteAdded
from kingdomlog.core.errors import ConflictError, InputError
from kingdomlog.core.events import Draft
from kingdomlog.core.turn import Plan, StepPlan
from kingdomlog.core.viewers import GM_VIEWER, PUBLIC_VIEWER, Viewer
from kingdomlog.store.log import EventLog

REPO = Path(__file__).resolve().parents[2]
FELMONTE = REPO / "campaigns" / "felmonte"


@pytest.fixture
def farm(tmp_path: Path) -> Campaign:
    camp = Campaign.create(tmp_path / "farm", "toy-farm", viewers=["alice", "bob"])
    for plan in toyrules.TOY.sample_plans()[:2]:
        camp.play(Plan.parse(plan))
    return camp


def no_reading_of_the_log(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any read of the log's events (and so any fold or replay) fails the test."""

    def refuse(*_a: object, **_k: object) -> None:
        raise AssertionError("the log was read to parse a viewer")

    for name in ("read", "read_table", "iter_tables", "read_after"):
        monkeypatch.setattr(EventLog, name, refuse)
    monkeypatch.setattr(Campaign, "state", refuse)
    monkeypatch.setattr(Campaign, "events", refuse)


# ---- viewers: parsed from the config, nothing folded -----------------------------------------------------------


def test_a_viewer_is_parsed_from_the_config_without_reading_the_log(farm: Campaign,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    camp = Campaign.open(farm.folder)
    no_reading_of_the_log(monkeypatch)
    assert camp.viewer("alice") == Viewer("player", "alice") == camp.viewer("faction:alice")
    assert camp.viewer("gm") == camp.viewer(None) == GM_VIEWER and camp.viewer("public") == PUBLIC_VIEWER
    with pytest.raises(InputError, match="unknown viewer 'nobody'; this campaign's viewers: gm, public, alice, bob"):
        camp.viewer("nobody")
    assert camp.players() == ("alice", "bob")


def test_a_rulesets_own_players_come_from_its_options_not_a_fold(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Signoria's factions are its ``players`` option: a campaign.toml that declares none still knows them."""
    folder = tmp_path / "felmonte"
    shutil.copytree(FELMONTE, folder, ignore=shutil.ignore_patterns(".cache", "plans", "*.py", "drafts"))
    cfg = folder / "campaign.toml"
    text = cfg.read_text()
    start, end = text.index("viewers = ["), text.index("]\n", text.index("viewers = [")) + 2
    cfg.write_text(text[:start] + text[end:])
    camp = Campaign.open(folder)
    assert camp.config.player_ids == ()
    no_reading_of_the_log(monkeypatch)
    assert camp.players() == ("fabian", "marburg")
    assert camp.viewer("marburg") == Viewer("player", "marburg")
    with pytest.raises(InputError, match="unknown viewer 'felmonte'"):  # a neutral is the GM's
        camp.viewer("felmonte")


# ---- the public append --------------------------------------------------------------------------------------------


def note(text: str, *, turn: int = 1, visibility: str = "public") -> Draft:
    return Draft(NoteAdded(text=text), actor="gm", visibility=visibility, turn=turn)


def batches(camp: Campaign) -> list[str]:
    return sorted(p.name for p in (camp.folder / "log").glob("*.parquet"))


def test_a_retry_of_one_commit_id_appends_once_and_says_so(farm: Campaign) -> None:
    head = farm.head_seq
    first = farm.append([note("one"), note("two")], expect_seq=head, commit_id="commit-1")
    assert not first.idempotent and (first.first_seq, first.last_seq) == (head + 1, head + 2)
    files = batches(farm)
    again = farm.append([note("one"), note("two")], expect_seq=head, commit_id="commit-1")
    assert again.idempotent and (again.first_seq, again.last_seq, again.commit_id) == (head + 1, head + 2, "commit-1")
    assert batches(farm) == files and farm.head_seq == head + 2
    assert [e.payload.text for e in farm.events()[-2:]] == ["one", "two"]  # type: ignore[attr-defined]


def test_a_stale_expect_seq_is_a_conflict_and_writes_nothing(farm: Campaign) -> None:
    head = farm.head_seq
    farm.append([note("someone else")], expect_seq=head)
    files = batches(farm)
    with pytest.raises(ConflictError) as exc:
        farm.append([note("mine")], expect_seq=head, commit_id="commit-2")
    assert (exc.value.expected, exc.value.actual) == (head, head + 1)
    assert batches(farm) == files


@pytest.mark.parametrize(("draft", "needle"), [
    (note("x", visibility="faction:zed"), "names 'zed', not a player or faction of this campaign"),
    (Draft(NoteAdded(text="x"), actor="gm"), "has no turn"),
])
def test_append_refuses_a_draft_it_cannot_place(farm: Campaign, draft: Draft, needle: str) -> None:
    files = batches(farm)
    with pytest.raises(InputError, match=needle):
        farm.append([draft], expect_seq=farm.head_seq)
    assert batches(farm) == files


# ---- a player's seen states: the one fold --------------------------------------------------------------------


def test_a_players_seen_states_are_the_fold_of_what_they_may_see(farm: Campaign) -> None:
    """``History.seen()`` folds the live events a player may see with ``core.fold.fold``: the same states, turn by
    turn, as applying those events one by one (the hand-written loop it replaced), and the same refusal when they
    do not fold without the hidden ones (Signoria's, whose pages then withhold their maps)."""
    from kingdomlog.core.fold import is_live, retracted_commits
    from kingdomlog.core.viewers import visible_to
    from kingdomlog.views.player.chronicle import read_history

    def by_hand(camp: Campaign, v: Viewer) -> dict[int, object] | None:
        rs, events = camp.ruleset, camp.events()
        gone, state, out = retracted_commits(events), rs.initial_state(camp.context), {}
        try:
            for ev in events:
                if is_live(ev, gone) and visible_to(ev.visibility, v):
                    state = rs.apply(state, ev)
                    out[ev.turn] = rs.redact(state, v)
        except Exception:
            return None
        return out

    farm.play(Plan.parse({"seed": "s", "steps": {"harvest": {"choices": {"crop": "barley", "stash": 2}}}}))
    felmonte = Campaign.open(FELMONTE)
    for camp, name, folds in ((farm, "alice", True), (felmonte, "fabian", False), (felmonte, "marburg", False)):
        v = camp.viewer(name)
        hist = read_history(camp.ruleset, camp.context, camp.events(), v, narrate=False)
        assert hist.hidden_live
        seen, failed = hist.seen()
        assert (seen, failed) == (by_hand(camp, v), not folds)
        assert not folds or len(seen or {}) >= 2


# ---- a commit records its draft ------------------------------------------------------------------------------


PLAN = Plan(seed="draft-seed", steps={"harvest": StepPlan(choices={"crop": "barley"}), "market": StepPlan(
    choices={"sell": 1})})


def test_a_commit_keeps_its_plan_for_undo_and_removes_the_saved_draft(farm: Campaign) -> None:
    turn = farm.next_turn()
    drafts = Drafts(farm.folder)
    drafts.save(SavedDraft(turn, farm.head_seq, PLAN))
    preview = farm.preview(PLAN)
    res = farm.commit(preview, plan=PLAN, from_draft=True)
    assert not res.idempotent and res.commit_id == commit_id(farm.id, preview.start_seq,
                                                            PLAN.model_copy(update={"turn": turn}))
    assert drafts.load(turn) is None  # the draft is in the log now
    assert drafts.committed_plan([res.commit_id]) == PLAN.model_copy(update={"turn": turn})  # Undo reopens it
    files = batches(farm)
    again = Campaign.open(farm.folder).commit(preview, plan=PLAN, from_draft=True)  # a retry of the same draft
    assert again.idempotent and (again.commit_id, again.first_seq, again.last_seq) == (
        res.commit_id, res.first_seq, res.last_seq)
    assert batches(farm) == files and farm.next_turn() == turn + 1


def test_a_refused_commit_keeps_the_draft_and_keeps_no_plan(farm: Campaign) -> None:
    turn = farm.next_turn()
    drafts = Drafts(farm.folder)
    drafts.save(SavedDraft(turn, farm.head_seq, PLAN))
    preview = farm.preview(PLAN)
    farm.note("someone wrote first")
    files = batches(farm)
    with pytest.raises(ConflictError):
        farm.commit(preview, plan=PLAN, from_draft=True)
    assert batches(farm) == files
    saved = drafts.load(turn)
    assert saved is not None and saved.plan == PLAN  # every choice and die kept
    assert not (drafts.dir / "committed").exists() or not any((drafts.dir / "committed").iterdir())
    res = farm.commit(farm.preview(PLAN), plan=PLAN)  # a plan that is not the saved draft leaves the draft alone
    assert drafts.load(turn) is not None and drafts.committed_plan([res.commit_id]) is not None
