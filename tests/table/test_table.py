"""The table (app.table): seats, a face drawn only at Roll, locks, re-rolls seen by the table, what each player
reads, the GM's accept into the month with the player as actor, and the file's behaviour under races and crashes."""

from __future__ import annotations

import re
import shutil
import threading
from pathlib import Path

import pytest

from kingdomlog.app import Campaign, table
from kingdomlog.app.drafts import Drafts, SavedDraft
from kingdomlog.core.errors import InputError, RuleError
from kingdomlog.core.turn import Plan, StepPlan
from kingdomlog.core.viewers import GM_VIEWER
from kingdomlog.dice import roller

ROOT = Path(__file__).resolve().parents[2] / "campaigns"
PLAYERS = {"stolen-lands": [("ysolde", "Ysolde", ""), ("maelis", "Maelis", ""), ("kesh", "Kesh", "")],
           "river-kingdom": [("amiri", "Amiri", ""), ("jubilost", "Jubilost", ""),
                             ("kesten", "Kesten", "Kesten Garess")],
           "aikakirjat-demo": [("aino", "Aino", "aino"), ("ilmari", "Ilmari", "ilmari")]}


def table_copy(tmp_path: Path, demo: str, *, dice: str = "auto") -> Campaign:
    """A copy of a bundled demo with its table's players declared and a GM draft of the next turn saved
    (``auto``: the GM's month played through, as when the GM has rolled every step before the players')."""
    folder = tmp_path / demo
    shutil.copytree(ROOT / demo, folder, ignore=shutil.ignore_patterns("drafts", "table", ".cache"))
    toml = folder / "campaign.toml"
    text = toml.read_text(encoding="utf-8")
    text = re.sub(r"(?m)^viewers = \[\n(?:.*\n)*?\]\n", "", text)
    rows = "".join(f'    {{ id = "{i}", name = "{n}", character = "{c}" }},\n' for i, n, c in PLAYERS[demo])
    text = text.replace("\n[options]", f"\nviewers = [\n{rows}]\n\n[options]", 1)
    toml.write_text(text, encoding="utf-8")
    camp = Campaign.open(folder)
    turn = camp.next_turn()
    Drafts(folder).save(SavedDraft(turn, camp.head_seq, Plan(dice=dice, seed="gm-seed", turn=turn)))  # type: ignore[arg-type]
    return camp


@pytest.fixture
def pf2e(tmp_path: Path) -> Campaign:
    return table_copy(tmp_path, "stolen-lands")


def _leadership(camp: Campaign, pid: str) -> str:
    op = table.opening(camp, camp.viewer(pid))
    return next(s.id for s in op.seats if s.step == "activity.leadership")


def test_a_pc_leader_sits_at_each_role_they_hold(pf2e: Campaign) -> None:
    seats = {pid: table.opening(pf2e, pf2e.viewer(pid)).seats for pid in ("ysolde", "maelis", "kesh")}
    assert [s.fixed for s in seats["ysolde"]] == [{"role": "ruler"}, {"role": "ruler"}]
    assert seats["ysolde"][0].limit == 2  # two Leadership activities a month without a seat of government
    assert seats["kesh"][0].fixed == {"role": "general"}
    assert table.opening(pf2e, GM_VIEWER).seats == ()


def test_declaring_shows_the_odds_and_draws_nothing(pf2e: Campaign) -> None:
    v = pf2e.viewer("ysolde")
    prop, trial = table.declare(pf2e, v, _leadership(pf2e, "ysolde"), {"activity": "quell-unrest", "skill": "intrigue"})
    assert trial.faces == {} and trial.pending == "a1"
    odds = table.odds_text(trial)
    assert odds.startswith("d20 +") and "vs DC" in odds and "critical success" in odds
    assert prop.status == "declared" and prop.faces == {}
    text = table.TableFile(pf2e.folder, pf2e.next_turn()).path.read_text(encoding="utf-8")
    assert '"faces":{}' in text and "rolled" not in text


def test_roll_draws_once_and_locks_the_row(pf2e: Campaign) -> None:
    v = pf2e.viewer("ysolde")
    seat = _leadership(pf2e, "ysolde")
    prop, _ = table.declare(pf2e, v, seat, {"activity": "quell-unrest", "skill": "intrigue"})
    rolled = table.roll(pf2e, v, prop.id)
    assert rolled.status == "rolled" and len(rolled.faces["a1"]) == 1
    assert re.match(r"d20 = \d+ [+-]\d+ = \d+ vs DC \d+: (critical )?(success|failure)(;|$)", rolled.outcome)
    again = table.roll(pf2e, v, prop.id)  # a second press, a retry: the same faces, nothing written
    assert again.faces == rolled.faces
    assert len(table.TableFile(pf2e.folder, pf2e.next_turn()).lines()) == 2
    with pytest.raises(RuleError, match="locked"):
        table.declare(pf2e, v, seat, {"activity": "quell-unrest", "skill": "politics"}, proposal=prop.id)
    with pytest.raises(RuleError, match="stays"):
        table.withdraw(pf2e, v, prop.id)


def test_a_reroll_needs_a_reason_the_rules_give_and_the_table_sees_it(pf2e: Campaign) -> None:
    v = pf2e.viewer("ysolde")
    prop, _ = table.declare(pf2e, v, _leadership(pf2e, "ysolde"), {"activity": "quell-unrest", "skill": "intrigue"})
    first = table.roll(pf2e, v, prop.id).faces["a1"]
    with pytest.raises(InputError, match="fame"):
        table.reroll(pf2e, v, prop.id, "gm", note="because")  # a GM ruling is the GM's
    again = table.reroll(pf2e, v, prop.id, "fame", row={"activity": "quell-unrest", "skill": "politics"})
    assert again.rerolls == [("a1", "fame", "", first)] and again.row["skill"] == "politics"
    seen = [ln for ln in table.feed(pf2e, pf2e.viewer("kesh")) if ln.kind == "rerolled"]
    assert len(seen) == 1 and "Fame" in seen[0].text
    with pytest.raises(InputError, match="note"):
        table.reroll(pf2e, GM_VIEWER, prop.id, "gm")


def test_another_player_reads_a_proposal_only_once_the_gm_shares_it(pf2e: Campaign) -> None:
    v, other = pf2e.viewer("ysolde"), pf2e.viewer("kesh")
    prop, _ = table.declare(pf2e, v, _leadership(pf2e, "ysolde"), {"activity": "quell-unrest", "skill": "intrigue"})
    rolled = table.roll(pf2e, v, prop.id)
    assert table.feed(pf2e, other) == [] and table.mine(pf2e, other) == []
    with pytest.raises(InputError) as refused:
        table.roll(pf2e, other, prop.id)
    assert "Quell" not in str(refused.value) and rolled.outcome not in str(refused.value)
    table.accept(pf2e, prop.id)
    shared = table.feed(pf2e, other)
    assert [ln.kind for ln in shared] == ["accepted"] and rolled.outcome in shared[0].text
    assert "Ysolde" in shared[0].text


def test_accepted_rows_join_the_month_with_their_player_as_actor(pf2e: Campaign) -> None:
    turn = pf2e.next_turn()
    picks = {"ysolde": {"activity": "quell-unrest", "skill": "intrigue"},
             "maelis": {"activity": "provide-care", "skill": "defense"}}
    faces = {}
    for pid, row in picks.items():
        v = pf2e.viewer(pid)
        prop, _ = table.declare(pf2e, v, _leadership(pf2e, pid), row)
        faces[pid] = table.roll(pf2e, v, prop.id).faces["a1"]
        table.accept(pf2e, prop.id)
    draft = Drafts(pf2e.folder).load(turn)
    assert draft is not None
    tp = pf2e.preview(draft.plan)
    assert tp.ok, tp.error
    lead = next(s for s in tp.steps if s.phase.id == "activity.leadership")
    assert [r.faces[0] for r in lead.rolls if r.key in ("a1", "a2")] == [faces["ysolde"][0], faces["maelis"][0]]
    actors = [d.actor for d in lead.drafts if d.type == "pf2e.check_resolved"]
    assert actors == ["ysolde", "maelis"]
    pf2e.commit(tp, plan=draft.plan)
    logged = [e for e in pf2e.events() if e.turn == turn and e.type == "pf2e.check_resolved"
              and e.phase == "activity.leadership"]
    assert [e.actor for e in logged] == ["ysolde", "maelis"]
    assert [ln.kind for ln in table.feed(pf2e, pf2e.viewer("kesh"), turn)][-1] == "committed"


def test_a_seat_cannot_act_as_another_role_nor_past_its_slots(pf2e: Campaign) -> None:
    v = pf2e.viewer("ysolde")
    seat = _leadership(pf2e, "ysolde")
    with pytest.raises(InputError, match="role"):
        table.declare(pf2e, v, seat, {"activity": "quell-unrest", "role": "counselor"})
    with pytest.raises(InputError, match="seat"):
        table.declare(pf2e, v, _leadership(pf2e, "kesh"), {"activity": "quell-unrest"})
    with pytest.raises(InputError, match="nonsense"):
        table.declare(pf2e, v, seat, {"activity": "quell-unrest", "nonsense": 1})
    for row in ({"activity": "quell-unrest", "skill": "intrigue"}, {"activity": "celebrate-holiday"}):
        table.declare(pf2e, v, seat, row)  # two (a second Quell Unrest is once a turn's)
    with pytest.raises(RuleError, match="2 this month"):
        table.declare(pf2e, v, seat, {"activity": "rest-and-relax"})


def test_a_row_is_checked_after_the_rows_the_month_already_has(pf2e: Campaign) -> None:
    v = pf2e.viewer("ysolde")
    prop, _ = table.declare(pf2e, v, _leadership(pf2e, "ysolde"), {"activity": "quell-unrest", "skill": "intrigue"})
    table.roll(pf2e, v, prop.id)
    table.accept(pf2e, prop.id)
    with pytest.raises(RuleError, match="once per turn"):  # Maelis sees the Ruler's Quell Unrest, shared
        table.declare(pf2e, pf2e.viewer("maelis"), _leadership(pf2e, "maelis"),
                      {"activity": "quell-unrest", "skill": "politics"})
    with pytest.raises(InputError, match=r"activities\[0\]\.skill: 'arts' cannot be chosen now"):
        table.declare(pf2e, v, _leadership(pf2e, "ysolde"), {"activity": "quell-unrest", "skill": "arts"})


def test_players_waiting_for_the_gm_are_told_so(tmp_path: Path) -> None:
    camp = table_copy(tmp_path, "stolen-lands", dice="on_roll")  # the GM has rolled nothing yet
    with pytest.raises(RuleError, match="the GM is still at"):
        table.declare(camp, camp.viewer("ysolde"), _leadership(camp, "ysolde"), {"activity": "quell-unrest"})


def test_a_waiting_seats_refusal_is_kept_for_its_viewer_until_the_month_moves(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Every page of a seat that waits for the GM asks again (its form, its wait, each open): the refusal is kept
    per log head, draft, table file and viewer like the month itself, never given to another viewer, and gone as
    soon as the GM's draft or the log moves."""
    camp = table_copy(tmp_path, "stolen-lands", dice="on_roll")  # the GM has rolled nothing yet
    turn, step = camp.next_turn(), "activity.leadership"
    previews: list[int] = []
    real = Campaign.preview

    def counted(self: Campaign, *args: object, **kwargs: object) -> object:
        previews.append(1)
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Campaign, "preview", counted)
    for _ in range(3):
        with pytest.raises(RuleError, match="the GM is still at"):
            table.before_step(Campaign.open(camp.folder), camp.viewer("ysolde"), turn, step)
    assert len(previews) == 1  # kept: the same files, the same words
    with pytest.raises(RuleError, match="the GM is still at"):
        table.before_step(camp, camp.viewer("maelis"), turn, step)
    assert len(previews) == 2  # another viewer: their own
    Drafts(camp.folder).save(SavedDraft(turn, camp.head_seq, Plan(dice="auto", seed="gm-seed", turn=turn)))  # type: ignore[arg-type]
    got = table.before_step(camp, camp.viewer("ysolde"), turn, step)  # the GM played the month: no refusal kept
    assert isinstance(got, table.Before) and len(previews) == 3
    Drafts(camp.folder).save(SavedDraft(turn, camp.head_seq, Plan(dice="on_roll", seed="gm-seed", turn=turn)))  # type: ignore[arg-type]
    with pytest.raises(RuleError, match="the GM is still at"):
        table.before_step(camp, camp.viewer("ysolde"), turn, step)
    camp.note("MARK: the log moves", visibility="gm")
    with pytest.raises(RuleError, match="the GM is still at"):
        table.before_step(Campaign.open(camp.folder), camp.viewer("ysolde"), turn, step)
    assert len(previews) == 5  # a new head: asked again


def test_two_players_rolling_at_once_both_land(pf2e: Campaign) -> None:
    props = {}
    for pid in ("ysolde", "maelis"):
        props[pid], _ = table.declare(pf2e, pf2e.viewer(pid), _leadership(pf2e, pid),
                                      {"activity": "quell-unrest", "skill": "intrigue"})
    errors: list[BaseException] = []

    def go(pid: str) -> None:
        try:
            table.roll(pf2e, pf2e.viewer(pid), props[pid].id)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=go, args=(pid,)) for pid in props for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    lines = table.TableFile(pf2e.folder, pf2e.next_turn()).lines()
    assert [ln.n for ln in lines] == [1, 2, 3, 4]
    assert sorted(ln.by for ln in lines if ln.kind == "rolled") == ["maelis", "ysolde"]


def test_a_line_cut_short_by_a_crash_is_skipped_and_the_next_lands(pf2e: Campaign) -> None:
    v = pf2e.viewer("ysolde")
    table.declare(pf2e, v, _leadership(pf2e, "ysolde"), {"activity": "quell-unrest", "skill": "intrigue"})
    tf = table.TableFile(pf2e.folder, pf2e.next_turn())
    with tf.path.open("ab") as fh:
        fh.write(b'{"n": 2, "at": "2026-')
    assert len(tf.lines()) == 1
    table.say(pf2e, v, "Shall we?")
    assert [ln.kind for ln in tf.lines()] == ["declared", "said"]


def test_a_pf1_leader_rolls_the_check_their_role_supports(tmp_path: Path) -> None:
    camp = table_copy(tmp_path, "river-kingdom")
    seats = {pid: [s.roll for s in table.opening(camp, camp.viewer(pid)).seats]
             for pid in ("amiri", "jubilost", "kesten")}
    assert seats == {"amiri": ["stability"], "jubilost": ["income"], "kesten": []}
    v = camp.viewer("amiri")
    seat = table.opening(camp, v).seats[0]
    prop, trial = table.declare(camp, v, seat.id, {})
    assert trial.faces == {} and "vs DC" in table.odds_text(trial)
    rolled = table.roll(camp, v, prop.id)
    table.accept(camp, prop.id)
    draft = Drafts(camp.folder).load(camp.next_turn())
    assert draft is not None
    tp = camp.preview(draft.plan)
    upkeep = next(s for s in tp.steps if s.phase.id == "upkeep")
    got = next(d for d in upkeep.drafts if d.type == "pf1.stability_check_rolled")
    assert got.actor == "amiri" and [got.payload.check.d20] == rolled.faces["stability"]  # type: ignore[attr-defined]


def test_an_aikakirjat_pc_proposes_an_action(tmp_path: Path) -> None:
    camp = table_copy(tmp_path, "aikakirjat-demo")
    v = camp.viewer("aino")
    seats = table.opening(camp, v).seats
    assert [s.fixed for s in seats] == [{"performer": "pc", "pc_id": "aino"}]
    prop, trial = table.declare(camp, v, seats[0].id, {"action": "reduce_unrest"})
    assert trial.faces == {}
    assert prop.title == "Reduce Unrest (Aino's actions)"  # a title, capitalised: not "reduce unrest (...)"
    rolled = table.roll(camp, v, prop.id)
    assert rolled.faces and rolled.outcome
    table.accept(camp, prop.id)
    draft = Drafts(camp.folder).load(camp.next_turn())
    assert draft is not None
    tp = camp.preview(draft.plan)
    acts = next(s for s in tp.steps if s.phase.id == "actions")
    assert acts.error is None
    assert {d.actor for d in acts.drafts if d.type == "aikakirjat.action_taken"} == {"aino"}


def test_an_open_table_sees_a_roll_at_once_but_never_a_row_only_declared(pf2e: Campaign) -> None:
    toml = pf2e.folder / "campaign.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + '\n[table]\nrolls = "at_once"\n', encoding="utf-8")
    camp = Campaign.open(pf2e.folder)
    v, other = camp.viewer("ysolde"), camp.viewer("kesh")
    prop, _ = table.declare(camp, v, _leadership(camp, "ysolde"), {"activity": "quell-unrest", "skill": "intrigue"})
    assert table.feed(camp, other) == []
    rolled = table.roll(camp, v, prop.id)
    assert [ln.text for ln in table.feed(camp, other)] == [f"{rolled.title}: {rolled.outcome}"]


def test_accept_all_takes_every_rolled_row_and_leaves_the_rest(pf2e: Campaign, monkeypatch: pytest.MonkeyPatch) -> None:
    # the dice keyed (a 7 each: two failures): a Quell Unrest success would move Provide Care's modifier, and a face
    # on a degree's edge would then not be taken (tests/notebooks/test_sheet_table_merge.py holds that case)
    monkeypatch.setattr(roller, "new_seed", lambda: "seed-4")
    rolled = []
    for pid, row in (("ysolde", {"activity": "quell-unrest", "skill": "intrigue"}),
                     ("maelis", {"activity": "provide-care", "skill": "defense"})):
        prop, _ = table.declare(pf2e, pf2e.viewer(pid), _leadership(pf2e, pid), row)
        got = table.roll(pf2e, pf2e.viewer(pid), prop.id)
        assert got.faces == {"a1": [7]}
        rolled.append(got.id)
    waiting, _ = table.declare(pf2e, pf2e.viewer("kesh"), _leadership(pf2e, "kesh"),
                               {"activity": "celebrate-holiday", "skill": "folklore"})
    done, refused = table.accept_all(pf2e)
    assert [p.id for p in done] == rolled and refused == []
    assert {p.id: p.status for p in table.mine(pf2e, GM_VIEWER)}[waiting.id] == "declared"
    with pytest.raises(RuleError, match="not rolled yet"):
        table.accept(pf2e, waiting.id)


def test_the_gm_may_rule_a_reroll_of_an_accepted_row_which_stays_in_the_month(pf2e: Campaign) -> None:
    v = pf2e.viewer("ysolde")
    prop, _ = table.declare(pf2e, v, _leadership(pf2e, "ysolde"), {"activity": "quell-unrest", "skill": "intrigue"})
    first = table.roll(pf2e, v, prop.id).faces["a1"]
    table.accept(pf2e, prop.id)
    with pytest.raises(RuleError, match="send it back"):
        table.reroll(pf2e, v, prop.id, "fame")
    again = table.reroll(pf2e, GM_VIEWER, prop.id, "gm", note="the die fell off the table")
    assert again.status == "accepted" and again.rerolls == [("a1", "gm", "the die fell off the table", first)]
    draft = Drafts(pf2e.folder).load(pf2e.next_turn())
    assert draft is not None
    lead = next(s for s in pf2e.preview(draft.plan).steps if s.phase.id == "activity.leadership")
    assert lead.error is None and [r.faces for r in lead.rolls if r.key == "a1"] == [tuple(again.faces["a1"])]


def test_a_row_that_no_longer_fits_the_month_is_not_accepted(pf2e: Campaign) -> None:
    rows = {}
    for pid in ("ysolde", "maelis"):  # both declare and roll Quell Unrest before either is accepted
        prop, _ = table.declare(pf2e, pf2e.viewer(pid), _leadership(pf2e, pid),
                                {"activity": "quell-unrest", "skill": "intrigue" if pid == "ysolde" else "politics"})
        rows[pid] = table.roll(pf2e, pf2e.viewer(pid), prop.id)
    done, refused = table.accept_all(pf2e)
    assert [p.player for p in done] == ["ysolde"]
    assert [(p.player, "once per turn" in why) for p, why in refused] == [("maelis", True)]
    draft = Drafts(pf2e.folder).load(pf2e.next_turn())
    assert draft is not None and pf2e.preview(draft.plan).ok


def test_a_checks_faces_stay_the_players_when_the_sheet_kept_their_lock(tmp_path: Path) -> None:
    camp = table_copy(tmp_path, "river-kingdom", dice="on_roll")
    v = camp.viewer("amiri")
    prop, _ = table.declare(camp, v, table.opening(camp, v).seats[0].id, {})
    faces = table.roll(camp, v, prop.id).faces["stability"]
    table.accept(camp, prop.id)
    draft = Drafts(camp.folder).load(camp.next_turn())
    assert draft is not None
    tp = camp.preview(draft.plan, release={"upkeep": ["stability"]})
    kept = tp.released["upkeep"]["stability"]  # what the GM's sheet keeps in its plan once the month shows it
    assert kept.typed == faces
    sp = draft.plan.steps.get("upkeep") or StepPlan()
    plan = draft.plan.model_copy(update={"steps": {**draft.plan.steps,
                                                   "upkeep": sp.model_copy(update={"rolled": {"stability": kept}})}})
    upkeep = next(s for s in camp.preview(plan).steps if s.phase.id == "upkeep")
    assert upkeep.error is None, upkeep.error
    assert [r.faces for r in upkeep.rolls if r.key == "stability"] == [tuple(faces)]


def test_a_second_once_a_turn_activity_is_refused_at_declare_while_the_first_is_proposed(pf2e: Campaign) -> None:
    """Quell Unrest is once per Kingdom turn (§3.3 A1.3): while the Ruler's first is proposed (declared or rolled, not
    yet in the month) a second is refused at Declare, at its activity field, by the rule the month applies; before,
    nothing refused it until the GM accepted the first. Changing the proposal itself, another activity, or one
    withdrawn are not refused; Maelis, who cannot see the Ruler's proposal, is told nothing of it."""
    from kingdomlog.core.ruleset import Seat
    from kingdomlog.views.forms import Offer
    from kingdomlog.views.table import seat as page_seat

    v = pf2e.viewer("ysolde")
    seat = _leadership(pf2e, "ysolde")
    first, _ = table.declare(pf2e, v, seat, {"activity": "quell-unrest", "skill": "intrigue"})
    table.declare(pf2e, v, seat, {"activity": "quell-unrest", "skill": "politics"}, proposal=first.id)  # itself
    table.roll(pf2e, v, first.id)
    with pytest.raises(RuleError, match=r"once per turn") as refused:
        table.declare(pf2e, v, seat, {"activity": "quell-unrest", "skill": "intrigue"})
    form = page_seat.SeatForm(Seat("s", "activities", "Ruler"), (), {}, Offer())
    where, words = page_seat.error_at(form, str(refused.value))
    assert where == "activity" and "your Quell Unrest (Ruler)" in words and "a1" not in words, words
    assert len(table.mine(pf2e, v)) == 1  # nothing written
    other, _ = table.declare(pf2e, v, seat, {"activity": "celebrate-holiday"})  # another activity: its own limit
    with pytest.raises(RuleError, match=r"once per turn"):  # nor as a change of another proposal
        table.declare(pf2e, v, seat, {"activity": "quell-unrest", "skill": "intrigue"}, proposal=other.id)
    table.declare(pf2e, pf2e.viewer("maelis"), _leadership(pf2e, "maelis"),
                  {"activity": "quell-unrest", "skill": "politics"})
    maelis = table.mine(pf2e, pf2e.viewer("maelis"))
    assert [p.title for p in maelis] == ["Quell Unrest (Counselor)"]
