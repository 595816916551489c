"""A row rolled at the table is folded in the month exactly as it was checked, or the GM is told why not (issue 27).

Benchmark run 3 (``benchmarks/results/table-push-3-gm-stuck.png``): Maelis's Provide Care rolled a critical failure at
the table and Pull Together's flat check; Ysolde's Quell Unrest, accepted before it in the same Accept all, took
Unrest from 5 to 4, which moved Provide Care's modifier from +1 to +2: in the month the same face was a failure, the
flat check was not rolled, and the step was refused on the raw roll key ``a2.pull``, the month stuck. Here the faces
are typed (physical dice), so no luck is needed.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest
from test_sheet_table import STEP, Presses, said, table_demo

from kingdomlog.app import Campaign, table
from kingdomlog.dice import roller
from kingdomlog.views.sheet import cards as sheet_cards
from kingdomlog.views.sheet import draft as sheet
from kingdomlog.views.sheet import table as sheet_table

RAW_KEY = re.compile(r"'a\d|\ba\d(\.\w+)?\b")
"""A roll key as the machine names it (``a2``, ``a2.pull``, ``'a1``): never in what the GM reads."""


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    return table_demo(tmp_path / "stolen-lands")


def opened(folder: Path) -> sheet.SheetSession:
    """The GM's sheet with the month rolled up to the players' part, every check before it typed as a 15: no check of
    the GM's takes the turn's one Pull Together before the players' rows (a critical failure would), whatever the
    dice; the event check a 1 (no event this month)."""
    s, _ = sheet.open_session(folder)
    assert s is not None
    while (w := s.draft.preview.pending if s.draft is not None and s.draft.preview is not None else None) \
            is not None and w.phase.id != "event.check":
        pending = w.pending
        assert pending is not None
        s.type_faces(w.phase.id, pending.key, "15") if pending.check is not None else s.roll(w.phase.id, pending.key)
    s.type_faces("event.check", "event", "1")  # no event: its check would move with the players' rows (Unrest)
    s.roll_all()
    s.save()
    return s


def typed_roll(folder: Path, pid: str, activity: str, skill: str, faces: dict[str, list[int]]) -> table.Proposal:
    """``pid`` declares ``activity`` from their Leadership seat and rolls it with physical dice (``faces``, by the
    row's roll keys): the line ``table.roll`` writes, with the faces typed instead of drawn."""
    camp = Campaign.open(folder)
    v = camp.viewer(pid)
    op = table.opening(camp, v)
    seat = next(x for x in op.seats if x.step == STEP)
    p, _ = table.declare(camp, v, seat.id, {"activity": activity, "skill": skill})
    t = table.trial(camp, op, seat, p.row, faces=faces)
    assert set(t.faces) == set(faces), t  # every face typed is one the row rolls, and nothing else was drawn

    def line(lines: Any, n: int) -> table.Line:
        return table.Line(n=n, at="2026-12-06T00:00:00.000+00:00", turn=op.turn, kind="rolled", by=v.id,
                          visibility=table.own(v), text=f"{p.title}: {t.outcome}", proposal=p.id, seat=p.seat,
                          faces=t.faces, checks=t.checks, note=t.outcome)

    table._write(camp, op.turn, line)
    return table.mine(camp, v)[-1]


def quell(folder: Path) -> table.Proposal:
    """Ysolde's Quell Unrest, a success (d20 = 19 +1): Unrest 5 → 4, its penalty -2 → -1."""
    return typed_roll(folder, "ysolde", "quell-unrest", "intrigue", {"a1": [19]})


def care(folder: Path, faces: dict[str, list[int]]) -> table.Proposal:
    return typed_roll(folder, "maelis", "provide-care", "defense", faces)


def step_error(s: sheet.SheetSession) -> str | None:
    card = s.update({}).card(STEP)
    assert card is not None
    return card.error


def test_accept_all_does_not_take_a_row_the_rows_it_took_before_changed(demo: Path) -> None:
    s = opened(demo)
    p1 = quell(demo)
    p2 = care(demo, {"a1": [5], "a1.pull": [7]})  # rolled on Unrest 5: 5 +1 = 6, a critical failure; Pull Together 7
    assert "critical failure" in p2.outcome and "DC 11" in p2.outcome
    press = Presses(s)
    assert press("accept_all", sheet_table.ALL)
    kind, words = said(s, sheet_table.ALL)
    assert kind == "ok", words
    status = {p.id: p.status for p in table.mine(Campaign.open(demo), table.GM_VIEWER)}
    assert status == {p1.id: "accepted", p2.id: "rolled"}, words
    assert words.startswith("Accepted 1 row into the draft. Not taken: "), words
    assert "Maelis's Provide Care (Counselor) was rolled as a critical failure (d20 = 5 +1 = 6 vs DC 16)" in words
    assert "in the month as it stands (after Ysolde's Quell Unrest (Ruler), accepted before it) it is a failure" \
           " (d20 = 5 +2 = 7 vs DC 16)" in words
    assert "Pull Together" in words and "re-roll it by GM ruling" in words and "send it back" in words
    assert not RAW_KEY.search(words), words
    assert step_error(s) is None  # the month goes on with what was taken


def test_a_row_refused_by_accept_all_is_rolled_again_by_gm_ruling_then_fits(demo: Path) -> None:
    s = opened(demo)
    quell(demo)
    p2 = care(demo, {"a1": [5], "a1.pull": [7]})
    press = Presses(s)
    assert press("accept_all", sheet_table.ALL)
    assert press("reroll", p2.id, "rolled before Quell Unrest took Unrest down")
    assert press("accept", p2.id), said(s, p2.id)
    again = next(p for p in table.mine(Campaign.open(demo), table.GM_VIEWER) if p.id == p2.id)
    assert again.status == "accepted" and again.rerolls[0][1:] == ("gm", "rolled before Quell Unrest took Unrest"
                                                                    " down", [5])
    assert again.checks["a1"]["modifier"] == 2  # rolled on the month as it stands
    draft = s.update({})
    card = draft.card(STEP)
    assert card is not None and card.error is None
    assert [list(r.faces) for r in card.rolls if r.key == "a2"] == [again.faces["a1"]]


def test_a_row_the_month_moved_under_after_its_accept_is_said_in_words_at_the_row(demo: Path) -> None:
    """Accepted as it fits (after Quell Unrest: 5 +2 = 7, a failure); the GM then sends Quell Unrest back: in the month
    as it stands the same face is a critical failure. The month is not folded with another degree than was rolled:
    its step is refused in words at the row, and the GM's ways on are there (send it back, or re-roll by ruling)."""
    s = opened(demo)
    p1 = quell(demo)
    press = Presses(s)
    assert press("accept", p1.id)
    p2 = care(demo, {"a1": [5]})
    assert "failure" in p2.outcome and "critical" not in p2.outcome and p2.checks["a1"]["modifier"] == 2
    assert press("accept", p2.id), said(s, p2.id)
    assert step_error(s) is None
    assert press("send_back", p1.id, "take Quell Unrest next month")
    error = step_error(s)
    want = ("Maelis's Provide Care (Counselor) was rolled as a failure (d20 = 5 +2 = 7 vs DC 16); in the month as it"
            " stands it is a critical failure (d20 = 5 +1 = 6 vs DC 16)")
    assert error is not None and want in error and "re-roll it by GM ruling" in error, error
    assert not RAW_KEY.search(error.split(":", 1)[1]), error  # past the step's own name
    panel = html.unescape(str(sheet_table.panel_html(s)))
    row = panel[panel.index(f'data-proposal="{p2.id}"'):]
    row = row[:row.index("</article>")]
    assert want in row and 'data-kl-table="reroll"' in row and 'data-kl-table="send_back"' in row
    assert not RAW_KEY.search(row.split("kl-tp-moved", 1)[1].split("</div>", 1)[0])
    # a way on: the GM rules it rolled again at its place in the month, and the month goes on
    assert press("reroll", p2.id, "Quell Unrest was sent back")
    assert step_error(s) is None
    assert 'class="kl-tp-moved"' not in str(sheet_table.panel_html(s))


def test_a_row_the_month_moved_under_is_sent_back_and_the_month_goes_on(demo: Path) -> None:
    s = opened(demo)
    p1 = quell(demo)
    press = Presses(s)
    assert press("accept", p1.id)
    p2 = care(demo, {"a1": [5]})
    assert press("accept", p2.id)
    assert press("send_back", p1.id, "next month")
    assert step_error(s) is not None
    assert press("send_back", p2.id, "the kingdom changed under it: roll it again")
    assert step_error(s) is None


def test_a_gm_ruling_rolls_an_accepted_row_again_at_its_place_in_the_month(demo: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Provide Care accepted first (row 1, on Unrest 5: +1), Quell Unrest after it (row 2). The GM's re-roll of Provide
    Care is checked where the month has it, before Quell Unrest (+1), not after every accepted row (+2): else the month
    would refuse the GM's own re-roll as soon as it was made. (The re-roll's die is keyed: a 7, a failure, which
    leaves Unrest and so Quell Unrest as they were.)"""
    s = opened(demo)
    monkeypatch.setattr(roller, "new_seed", lambda: "seed-4")
    press = Presses(s)
    p1 = care(demo, {"a1": [12]})
    assert press("accept", p1.id)
    p2 = quell(demo)
    assert press("accept", p2.id)
    assert step_error(s) is None
    assert press("reroll", p1.id, "the die fell off the table")
    again = next(p for p in table.mine(Campaign.open(demo), table.GM_VIEWER) if p.id == p1.id)
    assert again.status == "accepted" and again.checks["a1"]["modifier"] == 1 and again.faces["a1"] == [7]
    assert step_error(s) is None


def test_accept_says_why_a_row_does_not_stand_with_its_players_name(demo: Path) -> None:
    s = opened(demo)
    p1 = quell(demo)
    p2 = care(demo, {"a1": [5], "a1.pull": [7]})
    press = Presses(s)
    assert press("accept", p1.id) and not press("accept", p2.id)
    kind, words = said(s, p2.id)
    assert kind == "error" and words.startswith("Not done: Maelis's Provide Care (Counselor) was rolled as a critical"
                                                " failure"), words


def test_a_row_whose_numbers_moved_but_not_its_degree_is_taken_and_folded_as_rolled(demo: Path) -> None:
    """Provide Care rolled a 15 on Unrest 5 (+1 = 16: a success); after Quell Unrest it is +2 = 17, still a success:
    Accept all takes both, the card says the numbers moved, and the month records the face and degree rolled."""
    s = opened(demo)
    quell(demo)
    p2 = care(demo, {"a1": [15]})
    press = Presses(s)
    assert press("accept_all", sheet_table.ALL)
    assert said(s, sheet_table.ALL) == ("ok", "Accepted 2 rows into the draft."), said(s, sheet_table.ALL)
    draft = s.update({})
    card = draft.card(STEP)
    assert card is not None and card.error is None
    assert "rolled at the table as d20 +1 vs DC 16, resolved in the month as played as d20 +2 vs DC 16" in \
        html.unescape(str(sheet_cards.table_rows_html(card)))
    start = s.start.start_seq
    done = sheet.commit(s, draft)
    assert done is not None and done.kind == "success", done
    got = [e.payload.model_dump() for e in Campaign.open(demo).events()
           if e.seq > start and e.type == "pf2e.check_resolved" and e.actor == "maelis"]
    assert [(g.get("die"), g.get("degree")) for g in got] == [(p2.faces["a1"][0], "success")], got


def test_a_roll_the_month_adds_to_an_accepted_row_is_not_drawn_but_said(demo: Path) -> None:
    """Ysolde's Quell Unrest took the month's one Pull Together (a natural 1, pulled to a failure); Maelis's Provide
    Care, rolled after it, was a critical failure with none. Once the GM sends Quell Unrest back, the month would give
    Provide Care a Pull Together of its own: not drawn on the GM's sheet for Maelis's row, said in words."""
    s = opened(demo)
    p1 = typed_roll(demo, "ysolde", "quell-unrest", "intrigue", {"a1": [1], "a1.pull": [15]})
    assert "DC 11" in p1.outcome
    press = Presses(s)
    assert press("accept", p1.id), said(s, p1.id)
    p2 = care(demo, {"a1": [5]})
    assert "critical failure" in p2.outcome and set(p2.checks) == {"a1"}
    assert press("accept", p2.id), said(s, p2.id)
    assert step_error(s) is None
    assert press("send_back", p1.id, "next month")
    error = step_error(s)
    want = ("Maelis's Provide Care (Counselor) was rolled without Pull Together for Provide Care; in the month as it"
            " stands it also rolls it (DC 11 flat check)")
    assert error is not None and want in error, error
    assert not RAW_KEY.search(error.split(":", 1)[1]), error
    assert "Maelis's Provide Care (Counselor) was rolled without" in html.unescape(str(sheet_table.panel_html(s)))
