"""A player's page at the table (notebooks/table_page.py, views/table/seat.py) without a browser.

On a copy of the pf2e demo whose GM has a draft that reached the Activity phase: the seat's form offers
one row without the seat's fixed role nor the GM's fields; Declare through the notebook's own cell
declares once however many times its count is seen; the page shows the check and its odds and no face
before Roll; a press that reaches the kernel after its proposal moved on does nothing; another player's
page shows none of it until the GM accepts it. The server gives a seated campaign's players ``/p/`` pages.
The browser test is test_table_browser.py.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from nb_support import REPO, SECRET, copy_demo, load_notebook

from kingdomlog.app import Campaign
from kingdomlog.app import table as tbl
from kingdomlog.app.drafts import Drafts, SavedDraft
from kingdomlog.core.errors import InputError, RuleError
from kingdomlog.core.turn import Plan
from kingdomlog.views.table import seat

NB = load_notebook("table_page")
QUELL = {"activity": "quell-unrest", "skill": "intrigue"}


def gm_draft(folder: Path) -> Path:
    """The GM's saved draft with every die drawn (the month reaches the Activity phase)."""
    camp = Campaign.open(folder)
    Drafts(folder).save(SavedDraft(camp.next_turn(), camp.head_seq,
                                   Plan(dice="auto", seed="gm-seed", turn=camp.next_turn())))
    return folder


@pytest.fixture
def sl(tmp_path: Path) -> Path:
    return gm_draft(copy_demo(tmp_path / "stolen-lands"))


class Fake(dict[str, Any]):
    """A ``mo.ui.dictionary`` stand-in: its value, and its items in place of its widgets."""

    @property
    def value(self) -> dict[str, Any]:
        return dict(self)


def run(folder: Path, viewer: str, **overrides: Any) -> tuple[str, dict[str, Any]]:
    """The page run once as ``viewer``: its outputs as one text, and its definitions."""
    import marimo as mo

    outs, defs = NB.app.run(defs={"folder": folder, "viewer": viewer, "report_link": "", **overrides})
    return "\n".join(mo.as_html(o).text for o in outs if o is not None), defs


def declare_cell(folder: Path, viewer: str, clicks: int, row: dict[str, Any]) -> dict[str, Any]:
    """The forms cell's names, as if seat 0's Declare had been pressed ``clicks`` times on ``row``."""
    page = seat.open_page(folder, viewer)
    forms = [seat.seat_form(page, i) for i in range(len(page.seats))]
    return {"seat_forms": forms, "seats_busy": None, "forms_build": "build-1",
            "declare_buttons": Fake({"0": clicks, "1": 0}),
            "row_forms": Fake({f"0/{k}": v for k, v in row.items()})}


def test_a_seat_offers_one_row_without_its_role_or_the_gms_fields(sl: Path) -> None:
    page = seat.open_page(sl, "ysolde")
    assert [s.label for s in page.seats] == ["Ruler: Leadership activities", "Ruler: Region activities"]
    form = seat.seat_form(page, 0)
    assert set(seat.row_widgets(form)) == {"activity"}  # the rest follows from the activity chosen
    names = set(seat.row_widgets(seat.seat_form(page, 0, {"activity": "establish-trade-agreement"})))
    assert {"activity", "skill", "group"} <= names
    assert not names & {"role", "gm_effects", "dc", "fame_reroll", "reroll_for_rp"}
    activity = next(s for s in form.specs if s.name == "activity")
    assert "quell-unrest" in {o.value for o in activity.options or ()}
    assert "claim-hex" not in {o.value for o in activity.options or ()}  # a Region activity, not this seat's
    skills = seat.seat_form(page, 0, QUELL)
    assert {o.value for o in next(s for s in skills.specs if s.name == "skill").options or ()} >= {
        "intrigue", "politics"}


def test_a_seat_shows_only_the_fields_its_activity_uses(sl: Path) -> None:
    """Quell Unrest takes no hex (nor a structure, a group, an army): its row shows none of them, and its form is
    made again when another activity is chosen; Claim Hex's row shows the hex. The GM sheet's row, through the
    same codec, folds the hex away for Quell Unrest instead of showing it in the row's line."""
    from kingdomlog.views import forms as sf

    page = seat.open_page(sl, "ysolde")
    quell = seat.seat_form(page, 0, QUELL)
    names = set(seat.row_widgets(quell))
    assert {"activity", "skill", "ruins", "option"} <= names  # its critical failure asks a branch and two Ruins
    assert not names & {"hex", "second_hex", "structure", "lots", "group", "army_type", "quantity", "goods", "event"}
    branch = next(s for s in quell.specs if s.name == "option")  # its branches in words, not a number to type
    assert (branch.kind, [(o.value, o.label, o.detail) for o in branch.options or ()]) == ("select", [
        (0, "Unrest +1d4", ""), (1, "2 Ruins of your choice +1 each", "")])  # the degree: the odds say it
    pledge = seat.seat_form(page, 0, {"activity": "pledge-of-fealty"})
    assert "hex" in seat.row_widgets(pledge) and pledge.key != quell.key  # a rebuild when the activity changes
    claim = seat.seat_form(page, 1, {"activity": "claim-hex"})
    assert {"hex", "reconnoitered"} <= set(seat.row_widgets(claim)) and "ruins" not in seat.row_widgets(claim)
    rows = next(s for s in quell.specs if s.name == "hex")
    assert rows.unused and "hex" not in sf.primary(quell.rows_spec or rows, quell.specs, QUELL)
    assert "hex" in sf.primary(claim.rows_spec or rows, claim.specs, {"activity": "claim-hex"})


def test_an_aikakirjat_pc_acts_as_itself(tmp_path: Path) -> None:
    folder = tmp_path / "aikakirjat"
    shutil.copytree(REPO / "campaigns" / "aikakirjat-demo", folder, ignore=shutil.ignore_patterns(".cache"))
    page = seat.open_page(folder, "aino")
    assert [s.label for s in page.seats] == ["Aino's actions"]
    names = set(seat.row_widgets(seat.seat_form(page, 0)))
    assert "action" in names and not names & {"performer", "pc_id", "situational"}
    form = seat.seat_form(page, 0, {"action": "reduce_unrest"})
    raw = {k: (w.value if hasattr(w, "value") else {n: x.value for n, x in w.items()})
           for k, w in seat.row_widgets(form).items()}
    assert "new_project" not in raw  # a Building Project's new project is no part of Reduce Unrest
    row, errors = seat.read_row(form, raw)
    assert (row["action"], errors) == ("reduce_unrest", [])


def test_an_aikakirjat_pc_is_offered_only_what_that_pc_may_do_and_refused_in_words(tmp_path: Path) -> None:
    """A75: a PC performs one action a year, one that allows a PC (Embassy, Reduce Corruption, Declare War, Reduce
    Unrest); a refusal names actions, neighbours and fields in words, never by id."""
    folder = tmp_path / "aikakirjat"
    shutil.copytree(REPO / "campaigns" / "aikakirjat-demo", folder, ignore=shutil.ignore_patterns(".cache"))
    gm_draft(folder)
    page = seat.open_page(folder, "aino")
    form = seat.seat_form(page, 0)
    action = next(s for s in form.specs if s.name == "action")
    assert [o.value for o in action.options or ()] == ["embassy", "reduce_corruption", "declare_war", "reduce_unrest"]
    assert next(o.detail for o in action.options or ()) == "the PC's Persuasion"  # not the kingdom's skill
    assert set(seat.row_widgets(form)) == {"action"}  # the rest follows from the action
    embassy = seat.seat_form(page, 0, {"action": "embassy"})
    assert set(seat.row_widgets(embassy)) == {"action", "pc_bonus", "skill", "neighbour_id"}  # her bonus, no track
    assert [o.value for o in next(s for s in embassy.specs if s.name == "skill").options or ()] == ["persuasion"]
    assert next(s for s in embassy.specs if s.name == "neighbour_id").label == "Neighbour"
    with pytest.raises(InputError) as refused:  # a row sent without the form (a stale page, a script)
        seat.declare_once(page, 0, {"action": "attract_population"})
    said = str(refused.value)
    assert "attract population is not an action" in said and not re.search(r"\w_\w", said.split(": ", 1)[1]), said
    assert seat.error_at(form, said)[0] == "action"
    with pytest.raises(InputError) as refused:
        seat.declare_once(page, 0, {"action": "embassy"})
    assert seat.error_at(form, str(refused.value)) == ("neighbour_id", "choose the neighbour Embassy is aimed at")
    seat.declare_once(page, 0, {"action": "embassy", "neighbour_id": "kalevala"})
    with pytest.raises(RuleError, match="Aino's actions: 1 this year, all proposed"):  # one action a year
        seat.declare_once(page, 0, {"action": "reduce_unrest"})
    camp = Campaign.open(folder)
    acted = camp.state().model_copy(update={"pc_assignments_this_year": ("aino",)})
    assert camp.ruleset.seats(acted, page.turn, "aino", "aino") == []  # Aino has acted this year: no seat
    assert [s.fixed["pc_id"] for s in camp.ruleset.seats(acted, page.turn, "ilmari", "ilmari")] == ["ilmari"]


def test_a_players_refusal_names_what_their_view_holds_by_its_name(tmp_path: Path) -> None:
    """A refused row lists what may be chosen by the names of the player's view of the state (seat.seen_names):
    'allowed: Kalevala, Tuonela', not 'kalevala, tuonela'."""
    folder = tmp_path / "aikakirjat"
    shutil.copytree(REPO / "campaigns" / "aikakirjat-demo", folder, ignore=shutil.ignore_patterns(".cache"))
    gm_draft(folder)
    page = seat.open_page(folder, "aino")
    with pytest.raises(InputError) as refused:
        seat.declare_once(page, 0, {"action": "embassy", "neighbour_id": "kalevalaa"})
    said = str(refused.value)
    assert "'kalevalaa' is not" in said and said.endswith("allowed: Kalevala, Tuonela"), said


def test_declare_once_however_many_times_its_count_is_seen(sl: Path) -> None:
    run(sl, "ysolde", **declare_cell(sl, "ysolde", 1, QUELL))
    run(sl, "ysolde", **declare_cell(sl, "ysolde", 1, QUELL))  # the same click seen by a new session
    text, defs = run(sl, "ysolde", **declare_cell(sl, "ysolde", 2, QUELL))  # a double click
    assert "<span>True</span>" not in text  # a write cell draws nothing of its own (it once showed its look's bool)
    camp = Campaign.open(sl)
    mine = tbl.mine(camp, camp.viewer("ysolde"))
    assert [(p.title, p.status) for p in mine] == [("Quell Unrest (Ruler)", "declared")]
    assert "is declared already" in defs["get_said"]()[1]


def test_a_refused_row_is_said_beside_its_field(sl: Path) -> None:
    import marimo as mo

    _, defs = run(sl, "ysolde", **declare_cell(sl, "ysolde", 1, {"activity": "quell-unrest",
                                                                   "skill": "agriculture"}))
    assert tbl.mine(Campaign.open(sl), Campaign.open(sl).viewer("ysolde")) == []
    errors = defs["get_errors"]()[0]
    assert list(errors) == ["skill"] and errors["skill"].startswith("Agriculture cannot be chosen now")  # named
    form = seat.seat_form(seat.open_page(sl, "ysolde"), 0, {"activity": "quell-unrest"})
    shown = mo.as_html(seat.row_layout(form, seat.row_widgets(form), errors)).text
    assert "⚠ Skill: " in shown and "Agriculture" in shown.split("⚠ Skill: ")[1][:40]


def test_the_page_shows_the_odds_and_no_face_before_roll(sl: Path) -> None:
    camp = Campaign.open(sl)
    ysolde = camp.viewer("ysolde")
    p, _ = tbl.declare(camp, ysolde, seat.open_page(sl, "ysolde").seats[0].id, QUELL)
    text, defs = run(sl, "ysolde")
    assert "d20 +1 vs DC 16" in text and "critical success" in text and "declared: not rolled yet" in text
    assert 'class="kl-face"' not in text and re.search(r"d20 = \d", text) is None
    assert list(defs["listed"].acts) == [f"{p.id}/roll", f"{p.id}/withdraw"]
    rolled = tbl.roll(camp, ysolde, p.id)
    text, defs = run(sl, "ysolde")
    face = str(rolled.faces["a1"][0])
    assert 'class="kl-face"' in text and f"d20 = {face} " in text
    assert [a.kind for a in defs["listed"].acts.values()] == ["reroll"]  # a Fame point; no withdraw now


def test_a_press_after_its_proposal_moved_on_does_nothing(sl: Path) -> None:
    camp = Campaign.open(sl)
    ysolde = camp.viewer("ysolde")
    page = seat.open_page(sl, "ysolde")
    p, _ = tbl.declare(camp, ysolde, page.seats[0].id, QUELL)
    roll, withdraw = (seat.listing(page).acts[f"{p.id}/{k}"] for k in ("roll", "withdraw"))
    said = seat.run_act(page, roll)
    assert said.startswith("Quell Unrest (Ruler): d20 = ")
    assert "nothing done" in seat.run_act(page, roll)  # Roll pressed twice: the same faces, one line
    assert "nothing done" in seat.run_act(page, withdraw)  # drawn before the roll: it stays
    fame = seat.listing(page).acts[f"{p.id}/reroll/fame"]
    # Roll pressed three times: the later presses land on Re-roll, which appears where Roll was: no re-roll
    assert "nothing was rolled again" in seat.run_act(page, fame)
    assert [ln.kind for ln in tbl.TableFile(sl, page.turn).lines()] == ["declared", "rolled"]
    seen = dataclasses.replace(fame, drawn_at=fame.drawn_at - seat.REROLL_AFTER)  # pressed once the roll was seen
    assert "rolled again" in seat.run_act(page, seen)
    assert "nothing done" in seat.run_act(page, seen)  # a double click on Re-roll: one re-roll
    kinds = [ln.kind for ln in tbl.TableFile(sl, page.turn).lines()]
    assert kinds == ["declared", "rolled", "rerolled"]


def test_another_player_sees_nothing_of_it_until_the_gm_accepts(sl: Path) -> None:
    camp = Campaign.open(sl)
    ysolde = camp.viewer("ysolde")
    p, _ = tbl.declare(camp, ysolde, seat.open_page(sl, "ysolde").seats[0].id, QUELL)
    with pytest.raises(RuleError, match="not rolled yet"):
        tbl.accept(camp, p.id)  # a check is rolled by its player before the GM takes it
    rolled = tbl.roll(camp, ysolde, p.id)
    text, _ = run(sl, "maelis")
    assert "Quell Unrest (Ruler)" not in text and rolled.outcome not in text and SECRET not in text
    tbl.accept(camp, p.id)
    text, _ = run(sl, "maelis")
    assert "Quell Unrest (Ruler)" in text and rolled.outcome in text and SECRET not in text


def test_a_seated_campaigns_players_get_table_pages(sl: Path) -> None:
    from test_server_gate import call

    from kingdomlog.server import Credentials, build, home_of, pages

    got = {p.path: (p.notebook, p.owner) for p in pages(sl, Campaign.open(sl))}
    # what the server prints for each page names its player in words (the credential keeps the id)
    assert {p.path: p.title for p in pages(sl, Campaign.open(sl)) if "ysolde" in p.path} == {
        "/p/ysolde": "table of Ysolde", "/p/ysolde/report": "report of Ysolde"}
    assert got["/p/ysolde"] == ("table_page", "ysolde") and got["/p/ysolde/report"] == ("kingdom_view", "ysolde")
    assert not [p for p in got if p.startswith("/f/")]
    assert home_of("ysolde", at_table=True) == "/p/ysolde/"
    keys = Credentials.load(sl).issue(["gm", "ysolde", "maelis", "public"])
    app, _ = build(sl, tick=None)
    assert call(app, "/login", query=f"key={keys['ysolde']}")["headers"]["location"] == "/p/ysolde/"
    assert call(app, "/p/ysolde/", key=keys["maelis"])["status"] == 403
    assert call(app, "/p/ysolde/ws", key=keys["maelis"], kind="websocket")["close"] == 4403
    assert call(app, "/p/ysolde/report/", key=keys["ysolde"])["status"] == 200


def test_a_player_at_the_table_from_the_command_line(sl: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kingdomlog.cli import main

    row = '{"activity": "quell-unrest", "skill": "intrigue"}'
    assert main(["table", str(sl), "--as", "ysolde", "--declare", "1", row]) == 0
    assert "p1: Quell Unrest (Ruler) declared. d20" in capsys.readouterr().out
    assert main(["table", str(sl), "--as", "ysolde", "--roll", "p1"]) == 0
    rolled = capsys.readouterr().out
    assert re.match(r"p1: Quell Unrest \(Ruler\): d20 = \d+ \+\d+ = \d+ vs DC 16", rolled)
    assert main(["table", str(sl), "--as", "kesh"]) == 0  # Kesh reads his seats; nothing of Ysolde's row
    shown = capsys.readouterr().out
    assert "Quell Unrest" not in shown
    # each seat by its number (what --declare takes) and what it is in words: what it proposes, the leader and the
    # role; never its id ("activity.leadership/activities/role=general")
    assert "  seat 1: Leadership activities, Kesh as the General" in shown, shown
    assert "  seat 2: Region activities, Kesh as the General" in shown and "role=" not in shown, shown
    assert main(["table", str(sl), "--as", "kesh", "--declare", "9", "{}"]) == 1  # the seats said to choose from
    refused = capsys.readouterr().err
    assert "yours: 1 (Leadership activities, Kesh as the General); 2 (Region activities, Kesh as the General)" \
        in refused and "role=" not in refused, refused
    # the feed names who did what by their names, as the page does, never by their ids
    assert main(["table", str(sl), "--as", "ysolde", "--say", "the Ruler will speak"]) == 0
    assert main(["table", str(sl), "--as", "ysolde"]) == 0
    feed = capsys.readouterr().out
    assert "Ysolde declares Quell Unrest (Ruler)" in feed and "Ysolde rolls Quell Unrest (Ruler): d20" in feed, feed
    assert "Ysolde: the Ruler will speak" in feed and "ysolde" not in feed, feed
    assert main(["table", str(sl), "--as", "ysolde", "--roll", "p9"]) == 1
    assert "no proposal 'p9' of yours this month; yours: p1: Quell Unrest (Ruler) (rolled)" in capsys.readouterr().err
    assert main(["table", str(sl), "--as", "ysolde", "--declare", "1", '{"activity": "nope"}']) == 1
    assert "'nope' is not a Leadership activity" in capsys.readouterr().err
    assert main(["table", str(sl), "--as", "gm"]) == 1


def test_new_takes_the_tables_players(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kingdomlog.cli import main

    folder = tmp_path / "new"
    assert main(["new", str(folder), "--ruleset", "pf2e", "--player", "ysolde:Ysolde",
                 "--player", "kesh:Kesh:Kesh the Bold", "--viewer", "tavi"]) == 0
    camp = Campaign.open(folder)
    assert camp.players() == ("tavi", "ysolde", "kesh")
    assert (camp.player_name("ysolde"), camp.character("ysolde"), camp.character("kesh")) == (
        "Ysolde", "Ysolde", "Kesh the Bold")
    capsys.readouterr()
    assert main(["new", str(tmp_path / "bad"), "--ruleset", "pf2e", "--player", "public:Pub"]) == 1
    assert "--player 'public:Pub': Value error, 'public' is reserved" in capsys.readouterr().err
    assert not (tmp_path / "bad").exists()


def test_a_seat_waits_for_the_gm_until_the_month_reaches_its_step(tmp_path: Path) -> None:
    folder = copy_demo(tmp_path / "stolen-lands")  # no draft of the GM's: the month waits at its first roll
    text, defs = run(folder, "ysolde")
    assert all(f.wait.startswith("the GM is still at") for f in defs["seat_forms"])
    assert "the GM is still at" in text and "your part opens when the month reaches it" in text
    assert defs["row_forms"].value == {}
    gm_draft(folder)
    _, defs = run(folder, "ysolde")
    assert [f.wait for f in defs["seat_forms"]] == ["", ""]


def test_a_row_sent_back_shows_the_gms_note_to_its_player_only(sl: Path) -> None:
    camp = Campaign.open(sl)
    ysolde = camp.viewer("ysolde")
    p, _ = tbl.declare(camp, ysolde, seat.open_page(sl, "ysolde").seats[0].id, QUELL)
    tbl.send_back(camp, p.id, "NOTE-4471: the crowd is not here this month")
    text, defs = run(sl, "ysolde")
    assert "sent back by the GM: NOTE-4471: the crowd is not here this month" in text
    assert [a.kind for a in defs["listed"].acts.values()] == ["withdraw"]  # not rolled: it may be taken back
    text, _ = run(sl, "kesh")
    assert "NOTE-4471" not in text and "Quell Unrest (Ruler)" not in text


def test_a_pf1_leader_rolls_the_check_their_role_supports(tmp_path: Path) -> None:
    folder = tmp_path / "river"
    shutil.copytree(REPO / "campaigns" / "river-kingdom", folder, ignore=shutil.ignore_patterns(".cache"))
    toml = folder / "campaign.toml"
    toml.write_text(toml.read_text().replace("\n[options]", '\nviewers = [{ id = "amiri", name = "Amiri" }]\n'
                                                           "\n[options]", 1))
    gm_draft(folder)
    text, defs = run(folder, "amiri")
    assert [f.seat.label for f in defs["seat_forms"]] == ["General: the Stability check of the upkeep"]
    assert "Nothing to choose" in text and defs["row_forms"].value == {}
    page = seat.open_page(folder, "amiri")
    p, words = seat.declare_once(page, 0, {})
    assert words.startswith("The Stability check of the upkeep: declared. d20 +")
    assert seat.run_act(page, seat.listing(page).acts[f"{p.id}/roll"]).startswith(
        "The Stability check of the upkeep: d20 = ")
    # the check is taken: the seat says so, and its Declare is not offered again (it would be refused)
    assert seat.waits(page) == ("You have taken this check this month: roll it under Your proposals.",)
    text, defs = run(folder, "amiri")
    assert "You have taken this check" in text and defs["declare_buttons"]["0"]._component_args["disabled"]


def test_a_seat_whose_rows_are_all_proposed_takes_no_more(sl: Path) -> None:
    page = seat.open_page(sl, "ysolde")
    assert seat.waits(page) == ("", "")
    seat.declare_once(page, 0, QUELL)
    seat.declare_once(page, 0, {"activity": "celebrate-holiday"})
    said = ("2 proposed this month, all this seat takes: see Your proposals (withdraw one before its roll to propose"
            " another).")
    assert seat.waits(page) == (said, "")
    camp = Campaign.open(sl)
    tbl.withdraw(camp, camp.viewer("ysolde"), tbl.mine(camp, camp.viewer("ysolde"))[0].id)
    assert seat.waits(page) == ("", "")


def test_a_line_said_to_the_table_reaches_every_player(sl: Path) -> None:
    from types import SimpleNamespace

    press = {"say_build": "b1", "say_button": SimpleNamespace(value=1),
             "say_text": SimpleNamespace(value="SAY-5512: to the river!")}
    run(sl, "ysolde", **press)
    text, _ = run(sl, "kesh")
    assert text.count("SAY-5512: to the river!") == 1 and SECRET not in text
    _, defs = run(sl, "ysolde", **{**press, "say_text": SimpleNamespace(value="  ")})
    assert defs["get_said"]() == ("danger", "**Not said.** say something")


def _watched(folder: Path, viewer: str) -> tuple[Any, list[str], list[str]]:
    """``viewer``'s page with its live parts, as the notebook makes them: the ``Live``, the state setters it called
    (the only cell runs a look can cause: recorded here), and every HTML set on its parts since it was drawn."""
    from kingdomlog.views.table import live

    calls: list[str] = []
    lv = live.live(seat.open_page(folder, viewer), listed=lambda _l: calls.append("listed"),
                   waited=lambda _w: calls.append("waits"), turned=lambda: calls.append("turned"))
    pushed: list[str] = []
    for part in (lv.feed, lv.proposals):
        part.widget.observe(lambda change: pushed.append(str(change["new"])), names="html")
    live.watch(lv)  # the first look draws the page (not served: no thread; each look below is the watcher's)
    assert calls == ["listed", "waits"] and len(pushed) == 2
    calls.clear()
    return lv, calls, pushed


def test_a_change_at_the_table_is_pushed_to_an_open_page_and_runs_none_of_its_cells(sl: Path) -> None:
    """Another player's roll, the GM's decision on it, a line of talk: each reaches Kesh's open page as the HTML of
    its live parts, with no state set (no cell of his page runs); Ysolde's proposal, her note from the GM and her
    word to the GM alone are in nothing pushed to Kesh. His own proposal moving hands his page its new acts."""
    from kingdomlog.views.table import live

    lv, calls, pushed = _watched(sl, "kesh")
    mine, _, _ = _watched(sl, "ysolde")
    assert lv.feed is not mine.feed and lv.proposals is not mine.proposals  # each page its own widgets
    assert not live.look(lv)  # a quiet table: nothing looked at
    camp = Campaign.open(sl)
    ysolde = camp.viewer("ysolde")
    p, _ = tbl.declare(camp, ysolde, seat.open_page(sl, "ysolde").seats[0].id, QUELL)
    assert live.look(lv)
    rolled = tbl.roll(camp, ysolde, p.id)
    assert live.look(lv)
    tbl.send_back(camp, p.id, "NOTE-8812: not while the bridge burns")
    assert live.look(lv)
    tbl.say(camp, ysolde, "SAY-4410: only the GM may read this", to="gm")
    assert live.look(lv)
    tbl.say(camp, camp.viewer("maelis"), "SAY-7301: to the river!")
    assert live.look(lv) and calls == []  # five changes at the table: not one cell of Kesh's page ran
    assert "SAY-7301: to the river!" in lv.feed.widget.html  # ...and the table's line is on it
    seen = "\n".join(pushed)
    for hidden in ("Quell Unrest", rolled.outcome, "NOTE-8812", "SAY-4410", SECRET, f'data-proposal="{p.id}"'):
        assert hidden not in seen, hidden
    assert 'data-viewer="kesh"' in lv.proposals.widget.html
    live.look(mine)  # Ysolde's own page has all of hers
    assert "NOTE-8812" in mine.proposals.widget.html and "SAY-4410" in mine.feed.widget.html

    tbl.accept(camp, p.id)  # the GM shares her row: it reaches Kesh's feed, still without a cell run
    assert live.look(lv) and calls == []
    assert "Quell Unrest (Ruler)" in lv.feed.widget.html and "NOTE-8812" not in lv.feed.widget.html
    kp, _ = tbl.declare(camp, camp.viewer("kesh"), seat.open_page(sl, "kesh").seats[0].id,
                        {"activity": "rest-and-relax", "skill": "wilderness"})
    assert live.look(lv) and calls == ["listed"]  # his own proposal: his page's acts (Roll) are drawn again
    assert f'data-proposal="{kp.id}"' in lv.proposals.widget.html


def test_after_declare_the_seats_form_starts_fresh_and_a_refused_one_keeps_what_was_typed(sl: Path) -> None:
    """Declare went through: the seat's form is made again with nothing chosen (the same activity again would be a
    second Quell Unrest), the other seat keeps what was typed in it. Refused: no form is made again, so everything
    typed stays where it was, the refusal beside its field."""
    page = seat.open_page(sl, "ysolde")
    harvest = {"activity": "harvest-crops"}

    def press(build: str, row: dict[str, Any]) -> dict[str, Any]:
        """Seat 0's Declare pressed on forms drawn for ``row`` (and the Region seat's Harvest Crops), as typed."""
        forms = [seat.seat_form(page, 0, row), seat.seat_form(page, 1, harvest)]
        typed = {**{f"0/{k}": v for k, v in row.items()}, "1/activity": "harvest-crops"}
        return {"seat_forms": forms, "seats_busy": None, "forms_build": build,
                "declare_buttons": Fake({"0": 1, "1": 0}), "row_forms": Fake(typed)}

    _, defs = run(sl, "ysolde", **press("build-1", QUELL))
    camp = Campaign.open(sl)
    assert [p.title for p in tbl.mine(camp, camp.viewer("ysolde"))] == ["Quell Unrest (Ruler)"]
    rows = defs["get_rows"]()
    assert rows[0] == {} and rows[1].get("activity") == "harvest-crops", rows
    fresh = seat.seat_form(page, 0, rows[0])
    assert fresh.row == {} and set(seat.row_widgets(fresh)) == {"activity"}
    assert seat.row_widgets(fresh)["activity"].value is None  # no activity chosen

    _, defs = run(sl, "ysolde", **press("build-2", {"activity": "quell-unrest", "skill": "agriculture"}))
    assert defs["get_rows"]() == {} and list(defs["get_errors"]()[0]) == ["skill"]  # nothing made again
    assert len(tbl.mine(camp, camp.viewer("ysolde"))) == 1


def test_a_seat_its_own_declarations_fill_says_so_on_the_open_page(sl: Path) -> None:
    """Ysolde declares the Ruler's two Leadership activities from her open page: its seat then says it takes no
    more (its form gone, no Declare), without a reload; withdrawing one opens it again; once both are rolled the seat
    no longer offers to withdraw one. None of it previews the GM's month again."""
    from kingdomlog.views.table import live

    lv, calls, _ = _watched(sl, "ysolde")
    page, month = lv.page, lv.month_waits
    camp = Campaign.open(sl)
    ysolde = camp.viewer("ysolde")
    p1, _ = seat.declare_once(page, 0, QUELL)
    live.refresh(lv)
    assert "waits" not in calls and lv.waits == ("", "")  # one of two: the seat still takes one
    p2, _ = seat.declare_once(page, 0, {"activity": "celebrate-holiday"})
    live.refresh(lv)
    assert calls.count("waits") == 1 and lv.waits is not None and lv.waits[0].startswith("2 proposed this month")
    assert "withdraw one before its roll" in lv.waits[0]
    assert p1 is not None and p2 is not None
    tbl.withdraw(camp, ysolde, p2.id)
    live.refresh(lv)
    assert calls.count("waits") == 2 and lv.waits == ("", "")
    p3, _ = seat.declare_once(page, 0, {"activity": "celebrate-holiday"})
    assert p3 is not None
    tbl.roll(camp, ysolde, p1.id)
    live.refresh(lv)
    assert calls.count("waits") == 3 and "withdraw one" in (lv.waits or ("",))[0]  # one still not rolled
    tbl.roll(camp, ysolde, p3.id)
    live.refresh(lv)
    assert calls.count("waits") == 4 and (lv.waits or ("",))[0] == ("2 proposed this month, all this seat takes: see"
                                                                    " Your proposals.")
    assert lv.month_waits is month  # the GM's month was not looked at again
