"""The Table on the GM sheet (issue 27, item 4; ``views.sheet.table``), without a browser.

A copy of the pf2e demo with three players declared (Ysolde the Ruler, Maelis the Counselor, Kesh the General):
the GM's draft rolled up to the Activity phase, the players propose and roll through ``app.table`` (as their
pages do), and the GM decides through the panel's presses (``act``), as the page's buttons send them.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from nb_support import DEMO

from kingdomlog.app import Campaign, table
from kingdomlog.app.table import TableFile
from kingdomlog.dice import roller
from kingdomlog.store.config import ViewerEntry, load_config, write_config
from kingdomlog.views.sheet import cards as sheet_cards
from kingdomlog.views.sheet import draft as sheet
from kingdomlog.views.sheet import table as sheet_table

STEP = "activity.leadership"
PLAYERS = {"ysolde": "Ysolde", "maelis": "Maelis", "kesh": "Kesh"}


def table_demo(folder: Path) -> Path:
    """The pf2e demo with its three PC leaders declared as the table's players."""
    shutil.copytree(DEMO, folder, ignore=shutil.ignore_patterns(".cache", "plans"))
    cfg = load_config(folder)
    write_config(folder, cfg.model_copy(update={"viewers": [ViewerEntry(id=k, name=v) for k, v in PLAYERS.items()]}))
    return folder


def opened(folder: Path) -> sheet.SheetSession:
    """The GM's sheet with every check of the month rolled (the players' part of the month is open).

    The random event check is typed as a 1 (no event this month): an event's check rolled before the players'
    rows are accepted may change with them (its modifier follows Unrest), and the GM would then re-roll it; that
    case has its own tests (``test_sheet_roll.py``), here it would only make the commit depend on the dice.
    """
    s, _ = sheet.open_session(folder)
    assert s is not None
    while (w := s.draft.preview.pending if s.draft is not None and s.draft.preview is not None else None) \
            is not None and w.phase.id != "event.check":  # typed only once the month waits for it (else ignored)
        assert w.pending is not None
        s.roll(w.phase.id, w.pending.key)
    s.type_faces("event.check", "event", "1")
    s.roll_all()
    s.save()
    return s


ACTS = {"ysolde": ("quell-unrest", "intrigue"), "kesh": ("rest-and-relax", "wilderness"),
        "maelis": ("celebrate-holiday", "folklore")}
"""What each player proposes from their Leadership seat (each activity once a month: §3.3)."""


def propose(folder: Path, pid: str, *, roll: bool = True) -> table.Proposal:
    """``pid`` proposes their activity (``ACTS``) from their Leadership seat, and presses Roll."""
    camp = Campaign.open(folder)
    v = camp.viewer(pid)
    seat = next(s for s in table.opening(camp, v).seats if s.step == STEP)
    activity, skill = ACTS[pid]
    p, _ = table.declare(camp, v, seat.id, {"activity": activity, "skill": skill})
    return table.roll(camp, v, p.id) if roll else p


class Presses:
    """The panel's presses as the page sends them: each with the next count."""

    def __init__(self, session: sheet.SheetSession) -> None:
        self.session, self.n = session, 0

    def __call__(self, act: str, proposal: str, note: str = "", *, n: int | None = None) -> bool:
        self.n = self.n + 1 if n is None else n
        return sheet_table.act(self.session, {"press": {"act": act, "proposal": proposal, "note": note, "n": self.n}})


def said(session: sheet.SheetSession, pid: str) -> tuple[str, str]:
    return sheet_table.desk(session).said[pid]


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    return table_demo(tmp_path / "stolen-lands")


def test_a_proposal_shows_its_face_only_once_rolled(demo: Path) -> None:
    s = opened(demo)
    p = propose(demo, "ysolde", roll=False)
    # the GM cannot take a row with dice into the month before its player rolled it (app.table)
    assert not Presses(s)("accept", p.id)
    assert said(s, p.id)[0] == "error" and "not rolled yet" in said(s, p.id)[1]
    before = sheet_table.panel_html(s)
    assert "Not rolled yet: d20 +1 vs DC 16: critical failure 25.0%" in before
    assert 'data-tp-outcome="p1"' not in before
    rolled = table.roll(Campaign.open(demo), Campaign.open(demo).viewer("ysolde"), p.id)
    after = sheet_table.panel_html(s)
    assert f'data-tp-outcome="{p.id}"' in after and rolled.outcome in after
    assert "Ysolde" in after and "Maelis" in after and "nothing proposed yet" in after


def keyed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The players' dice keyed: each row's first check a 7 (a failure for every ``ACTS`` row: no figure a later row
    reads moves, so each row is taken as rolled; a moved degree has its own tests, ``test_sheet_table_merge.py``)."""
    monkeypatch.setattr(roller, "new_seed", lambda: "seed-4")


def test_an_accepted_row_is_the_players_in_the_draft_and_in_the_log(demo: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    s = opened(demo)
    keyed(monkeypatch)
    p1, p2 = propose(demo, "ysolde"), propose(demo, "kesh")
    press = Presses(s)
    assert press("accept", p1.id) and press("accept", p2.id)
    assert said(s, p1.id)[0] == "ok"
    draft = s.update({})  # the next preview holds them, without a reload or a cleared cache
    card = draft.card(STEP)
    assert card is not None and [(pl.name, pl.index, pl.part) for pl in card.placed] == [
        ("Ysolde", 1, "a1"), ("Kesh", 2, "a2")]
    assert {d.actor for d in card.drafts} == {"ysolde", "kesh"}
    assert {r.key: list(r.faces) for r in card.rolls if r.key in ("a1", "a2")} == {
        "a1": p1.faces["a1"], "a2": p2.faces["a1"]}
    shown = sheet_cards.result_html(s, card, draft)
    assert "proposed by Ysolde" in shown and "proposed by Kesh" in shown and "Rolled at the table by Kesh" in shown
    assert "kl-reroll" not in shown  # the card offers no re-roll of a player's row (the panel's GM ruling does)
    # the faces the players rolled are theirs: never kept in the GM's plan
    assert STEP not in s.plan.steps or not s.plan.steps[STEP].rolled
    start = s.start.start_seq
    done = sheet.commit(s, draft)
    assert done is not None and done.kind == "success", done
    camp = Campaign.open(demo)
    got = [e for e in camp.events() if e.seq > start and e.type == "pf2e.check_resolved" and e.phase == STEP]
    assert [(e.actor, e.payload.model_dump().get("die")) for e in got] == [
        ("ysolde", p1.faces["a1"][0]), ("kesh", p2.faces["a1"][0])]
    # the next month's table is empty
    after, _ = sheet.open_session(demo, after_commit=True)
    assert after is not None and after.start.turn == s.start.turn + 1
    assert table.mine(Campaign.open(demo), table.GM_VIEWER, after.start.turn) == []
    assert sheet_table.panel_html(after).count("nothing proposed yet") == 3


def test_a_row_of_the_gms_added_after_an_accept_waits_for_its_own_roll(demo: Path) -> None:
    """The faces a player rolled belong to their row: when the GM adds a row before it in the list, the GM's row is
    not rolled with the player's face (nor refused as re-rolled), and the player's row moves with its faces."""
    s = opened(demo)
    p = propose(demo, "ysolde")
    assert Presses(s)("accept", p.id)
    s.update({})
    mine = {"activity": "quell-unrest", "skill": "politics", "role": "ruler"}
    plan = s.plan.model_copy(deep=True)
    steps = dict(plan.steps)
    sp = steps.get(STEP) or s.display(STEP)
    steps[STEP] = sp.model_copy(update={"choices": {**sp.choices, "activities": [mine]}})
    draft = s.replace_plan(plan.model_copy(update={"steps": steps}))
    card = draft.card(STEP)
    assert card is not None and card.error is None, card and card.error
    assert card.pending is not None and card.pending.key == "a1"  # the GM's own row waits for its Roll
    assert "a1" not in {r.key for r in card.rolls}
    assert [(pl.name, pl.index) for pl in card.placed] == [("Ysolde", 2)]


def test_send_back_and_a_gm_ruling_need_a_note(demo: Path) -> None:
    s = opened(demo)
    p = propose(demo, "maelis")
    tf = TableFile(demo, s.start.turn)
    press = Presses(s)
    v0 = tf.version()
    assert not press("send_back", p.id, "   ")
    assert said(s, p.id)[0] == "error" and "write a note first" in said(s, p.id)[1]
    assert not press("reroll", p.id, "")
    assert "write a note first" in said(s, p.id)[1]
    assert not press("send_back", p.id, "x" * (sheet_table.NOTE_MAX + 1))
    assert "at most" in said(s, p.id)[1]
    assert not press("accept", "p99")
    assert said(s, "p99")[0] == "error"
    assert tf.version() == v0  # nothing written by a refusal
    assert sheet_table.desk(s).epochs.get(p.id, 0) == 0  # the box keeps what the GM typed
    assert press("reroll", p.id, "the die fell off the table")
    again = table.mine(Campaign.open(demo), table.GM_VIEWER)[0]
    assert again.rerolls and again.rerolls[0][1:3] == ("gm", "the die fell off the table")
    assert press("send_back", p.id, "Not during the siege; try it next month")
    assert sheet_table.desk(s).epochs[p.id] == 2  # the box is emptied once its note was used
    camp = Campaign.open(demo)
    theirs = [ln.text for ln in table.feed(camp, camp.viewer("maelis"))]
    assert any("Not during the siege" in t for t in theirs)
    assert not any("Not during the siege" in ln.text for ln in table.feed(camp, camp.viewer("kesh")))
    # a press is taken once: the same count again does nothing
    v1 = tf.version()
    assert not press("reroll", p.id, "again", n=press.n)
    assert tf.version() == v1


def test_the_watcher_draws_the_panel_when_the_file_moved_and_the_draft_follows_only_accepts(demo: Path) -> None:
    s = opened(demo)
    bumps: list[Any] = []
    widget = sheet_table.panel(s)
    assert not sheet_table.follow(s, widget, bumps.append)
    p = propose(demo, "kesh", roll=False)
    assert sheet_table.follow(s, widget, bumps.append) and "Rest and Relax" in widget.widget.html
    assert not sheet_table.follow(s, widget, bumps.append)
    table.roll(Campaign.open(demo), Campaign.open(demo).viewer("kesh"), p.id)
    assert sheet_table.follow(s, widget, bumps.append) and bumps == []  # drawn; nothing in the month changed
    table.accept(Campaign.open(demo), p.id)
    assert sheet_table.follow(s, widget, bumps.append) and len(bumps) == 1  # the draft follows an accept
    assert not sheet_table.follow(s, widget, bumps.append) and len(bumps) == 1


def test_no_players_no_table(tmp_path: Path) -> None:
    shutil.copytree(DEMO, tmp_path / "d", ignore=shutil.ignore_patterns(".cache", "plans"))
    toml = tmp_path / "d" / "campaign.toml"  # the demo declares its PC leaders: a copy without them
    text = toml.read_text(encoding="utf-8")
    toml.write_text(text[:text.index("viewers = [")] + text[text.index("[options]"):], encoding="utf-8")
    assert Campaign.open(tmp_path / "d").players() == ()
    s, _ = sheet.open_session(tmp_path / "d")
    assert s is not None
    sheet_table.watch(s, object(), lambda _: None)  # no players: no watcher started (none needed)
    assert sheet_table.shown(s, object()) == ""


def test_a_gm_ruling_on_an_accepted_row_reaches_the_draft_and_the_log(demo: Path) -> None:
    s = opened(demo)
    p = propose(demo, "ysolde")
    press = Presses(s)
    assert press("accept", p.id)
    first = s.update({}).card(STEP)
    assert first is not None and [list(r.faces) for r in first.rolls if r.key == "a1"] == [p.faces["a1"]]
    assert press("reroll", p.id, "the die rolled off the table")
    assert sheet_table.merge_moved(s)
    again = table.mine(Campaign.open(demo), table.GM_VIEWER)[0]
    assert again.status == "accepted" and again.rerolls[0][3] == p.faces["a1"]
    draft = s.update({})
    card = draft.card(STEP)
    assert card is not None and [list(r.faces) for r in card.rolls if r.key == "a1"] == [again.faces["a1"]]
    start = s.start.start_seq
    done = sheet.commit(s, draft)
    assert done is not None and done.kind == "success", done
    rerolled = [e for e in Campaign.open(demo).events() if e.seq > start and e.type == "core.dice_rerolled"]
    assert len(rerolled) == 1 and rerolled[0].actor == "ysolde"
    got = rerolled[0].payload.model_dump()
    assert got["note"] == "the die rolled off the table"
    assert list(got["faces_before"]) == p.faces["a1"] and list(got["faces_after"]) == again.faces["a1"]


def test_a_refused_accepted_row_says_where_it_is_decided(demo: Path) -> None:
    """Two leaders' Quell Unrest: the rules take it once a month. The second is not accepted (it does not fit the
    month as it stands, said beside it); and when the GM's own edit after an accept makes an accepted row refused,
    the card says the row is sent back in the Table panel (the card's widgets do not hold it)."""
    s = opened(demo)
    p1 = propose(demo, "ysolde")
    camp = Campaign.open(demo)
    v = camp.viewer("maelis")
    seat = next(x for x in table.opening(camp, v).seats if x.step == STEP)
    p2 = table.roll(camp, v, table.declare(camp, v, seat.id, {"activity": "quell-unrest", "skill": "folklore"})[0].id)
    press = Presses(s)
    assert press("accept", p1.id) and not press("accept", p2.id)
    assert said(s, p2.id)[0] == "error" and "does not fit the month as it stands" in said(s, p2.id)[1]
    assert "once per turn" in said(s, p2.id)[1]
    s.update({})
    plan = s.plan.model_copy(deep=True)  # the GM then takes Quell Unrest too, on the card
    steps = dict(plan.steps)
    sp = steps.get(STEP) or s.display(STEP)
    steps[STEP] = sp.model_copy(update={"choices": {**sp.choices, "activities": [
        {"activity": "quell-unrest", "skill": "politics", "role": "ruler"}]}, "rolls": {**sp.rolls, "a1": [10]}})
    draft = s.replace_plan(plan.model_copy(update={"steps": steps}))  # its die typed: the month reaches Ysolde's
    card = draft.card(STEP)
    assert card is not None and card.error and "once per turn" in card.error and not draft.committable
    assert "send it back (or re-roll it by your ruling) in the Table panel" in sheet_cards.result_html(s, card, draft)


def test_a_check_that_moved_since_the_player_rolled_it_is_said_on_the_card() -> None:
    """A player rolls on their view as the month reached them; an earlier row accepted since (Quell Unrest) may move a
    figure: the card resolves the same face against the month as played and says the numbers moved."""
    from kingdomlog.core.turn import check_print
    from kingdomlog.dice.checks import CheckSpec

    theirs = check_print(CheckSpec("pf2e", modifier=6, dc=16, label="rest-and-relax"), "1d20")
    p = table.Proposal("p2", 19, "kesh", "s/acts/role=general", STEP, "activities", {}, status="accepted",
                       faces={"a1": [9]}, checks={"a1": theirs}, outcome="d20 +6 vs DC 16: rolled 9, failure",
                       title="Rest and Relax (General)")
    placed = sheet_table.Placed(p, "Kesh", 2, "a2", {"a1": "a2"})
    card = sheet.Card(0, None, None, None, {}, [], {"a2": CheckSpec("pf2e", modifier=7, dc=16)}, [], [],  # type: ignore[arg-type]
                      placed=[placed])
    assert sheet_cards.moved_checks(card, placed) == [
        "rolled at the table as d20 +6 vs DC 16, resolved in the month as played as d20 +7 vs DC 16"]
    assert "⚠ rolled at the table as d20 +6" in sheet_cards.table_rows_html(card)
    card.checks["a2"] = CheckSpec("pf2e", modifier=6, dc=16)
    assert sheet_cards.moved_checks(card, placed) == [] and "⚠" not in sheet_cards.table_rows_html(card)


def test_accept_all_takes_every_rolled_row_in_one_press(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = opened(demo)
    keyed(monkeypatch)
    rolled = [propose(demo, pid) for pid in ("ysolde", "maelis")]
    waiting = propose(demo, "kesh", roll=False)
    assert 'data-kl-table="accept_all"' in str(sheet_table.panel_html(s))
    press = Presses(s)
    assert press("accept_all", sheet_table.ALL)
    assert said(s, sheet_table.ALL) == ("ok", "Accepted 2 rows into the draft.")
    status = {p.id: p.status for p in table.mine(Campaign.open(demo), table.GM_VIEWER)}
    assert [status[p.id] for p in rolled] == ["accepted", "accepted"] and status[waiting.id] == "declared"
