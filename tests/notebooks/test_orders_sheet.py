"""A player's orders sheet (notebooks/orders_sheet.py): run with ``app.run(defs=...)`` on a copy of the
Felmonte demo (month 8 next, the GM's opening published), and once in a real browser through
``kingdomlog orders``.

The sheet's viewer comes from its command line; its writes are that viewer's own words (its submission,
its answers, its ready flag, its messages), each once per click of its button, each for the sheet's turn.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import marimo as mo
import pytest
from nb_support import NOTEBOOKS, REPO, Kernel, Server, batches_since, free_port, load_notebook, number_shown

from kingdomlog.app import Campaign, pbp
from kingdomlog.app import submissions as subs
from kingdomlog.core.core_events import MessageSent, PlanSubmitted, QuestionAnswered, ReadyMarked
from kingdomlog.core.errors import InputError
from kingdomlog.core.turn import Plan
from kingdomlog.views import orders

NB = load_notebook("orders_sheet")
FELMONTE = REPO / "campaigns" / "felmonte"
SEED = "t-seed-1"  # fabian's cmd.1 in month 8 of the demo under this seed: (3, 4) = 7, a low-stake success
MARK = "SHEET-NOTE-2291"
OPENING = {"steps": {"turn_open": {"choices": {"dilemmas": [
    {"faction": "fabian", "id": "winter_relief", "text": "The poor ask for bread",
     "options": [{"id": "give", "text": "open the granaries"}]}]}}}}


@pytest.fixture
def fel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    if not (FELMONTE / "campaign.toml").is_file():
        pytest.skip("campaigns/felmonte is not built")
    folder = tmp_path / "felmonte"
    shutil.copytree(FELMONTE, folder, ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    monkeypatch.setattr("kingdomlog.dice.roller.new_seed", lambda: SEED)
    pbp.publish(Campaign.open(folder), Plan.parse(OPENING))
    return folder


class Fake:
    """A UI element stand-in: its value."""

    def __init__(self, value: Any) -> None:
        self.value = value


def counter(n: int, consumed: int = 0) -> tuple[Any, Any, Any]:
    done, set_done = mo.state(consumed)
    return SimpleNamespace(value=n), done, set_done


def run(folder: Path, viewer: str = "fabian", **overrides: Any) -> Any:
    _, defs = NB.app.run(defs={"folder": folder, "viewer": viewer, "report_link": None, **overrides})
    return defs


def roll_cell(folder: Path, clicks: int, stake: str = "low") -> dict[str, Any]:
    start = orders.open_orders(folder, "fabian")
    button, done, set_done = counter(clicks)
    return {"roll_forms": Fake({"command_fabian": {"stake": stake, "pay": ""}}), "roll_button": button,
            "get_rolls_done": done, "set_rolls_done": set_done, "sealed": orders.sealed_steps(start),
            "dice_steps": ["command_fabian"]}


def order_rows(*rows: dict[str, Any]) -> list[dict[str, Any]]:
    """What the order rows of the form hold: the given fields, every other field empty."""
    blank = {"id": "", "action": None, "slots": [], "stake": None, "leader": None,
             "target": {"pick": None, "other": ""}, "params": {}}
    return [{**blank, **r} for r in rows] + [dict(blank) for _ in range(2)]


def orders_cell(rows: list[dict[str, Any]], note: str = "") -> dict[str, Any]:
    return {"forms": Fake({"orders_fabian": {"orders": {"rows": rows}, "standing": {"response": {}, "losses": []}}}),
            "note": Fake(note), "order_steps": ["orders_fabian"]}


def buttons(submit: int = 0, ready: int = 0) -> dict[str, Any]:
    s, sd, ssd = counter(submit)
    r, rd, rsd = counter(ready)
    return {"submit_button": s, "get_submits_done": sd, "set_submits_done": ssd,
            "ready_button": r, "get_ready_done": rd, "set_ready_done": rsd}


def new_events(folder: Path, head: int) -> list[Any]:
    return [e for e in Campaign.open(folder).events() if e.seq > head]


def test_the_sheet_writes_nothing_without_a_button(fel: Path) -> None:
    head = Campaign.open(fel).head_seq
    defs = run(fel)
    assert defs["start"]["steps"] == ["command_fabian", "orders_fabian"]
    assert [q.id for q in defs["start"]["questions"]] == ["dilemma:winter_relief"]
    assert defs["steps"] == {"orders_fabian": {"choices": {"actor": "fabian", "orders": []}}}
    assert defs["submittable"] is False  # the command roll comes first
    run(fel, **roll_cell(fel, 0))
    assert Campaign.open(fel).head_seq == head


def test_the_command_roll_is_rolled_once_and_sealed(fel: Path) -> None:
    head = Campaign.open(fel).head_seq
    run(fel, **roll_cell(fel, 1))
    new = new_events(fel, head)
    assert [(e.type, e.actor, e.visibility) for e in new] == [("core.plan_submitted", "fabian", "faction:fabian")]
    p = new[0].payload
    assert isinstance(p, PlanSubmitted) and list(p.steps) == ["command_fabian"]
    assert p.steps["command_fabian"].rolls == {"cmd.1": [3, 4]}
    done, set_done = mo.state(1)
    again = roll_cell(fel, 1)
    again.update(get_rolls_done=done, set_rolls_done=set_done)
    run(fel, **again)  # a click already handled is never replayed
    assert Campaign.open(fel).head_seq == head + 1
    defs = run(fel)
    assert "command_fabian" in defs["sealed"]
    rolled = defs["start"]["rolled"]["command_fabian"]  # in words: the faces, the outcome, the slots (§3.1)
    assert "3 and 4, it succeeded; this month we have 1 special and 2 ordinary actions" in rolled


def test_orders_are_built_from_the_rows_and_submitted_once(fel: Path) -> None:
    run(fel, **roll_cell(fel, 1))
    head = Campaign.open(fel).head_seq
    rows = order_rows({"id": "Q7", "action": "hire_troops", "slots": ["ordinary"], "stake": "low",
                       "params": {"units": "1"}})
    defs = run(fel, **orders_cell(rows, MARK))
    assert defs["steps"] == {"orders_fabian": {"choices": {"actor": "fabian", "orders": [
        {"id": "Q7", "action": "hire_troops", "slots": ["ordinary"], "stake": "low", "params": {"units": 1}}]}}}
    assert defs["submittable"] is True
    assert Campaign.open(fel).head_seq == head  # typing orders writes nothing
    run(fel, **orders_cell(rows, MARK), **buttons(submit=1))
    new = new_events(fel, head)
    assert [(e.type, e.actor, e.visibility) for e in new] == [("core.plan_submitted", "fabian", "faction:fabian")]
    sub = new[0].payload
    assert isinstance(sub, PlanSubmitted) and sub.note == MARK
    assert sub.steps["command_fabian"].rolls == {"cmd.1": [3, 4]}  # the sealed roll is carried over
    assert sub.steps["orders_fabian"].choices["orders"][0]["id"] == "Q7"


def test_refused_orders_are_not_submitted(fel: Path) -> None:
    run(fel, **roll_cell(fel, 1))
    head = Campaign.open(fel).head_seq
    bad = order_rows({"action": "hire_troops", "slots": ["special", "special"], "params": {"units": "1"}})
    defs = run(fel, **orders_cell(bad), **buttons(submit=1))
    assert defs["submittable"] is False
    broken = order_rows({"action": "hire_troops", "params": {"units": "many"}})
    defs = run(fel, **orders_cell(broken), **buttons(submit=1))
    assert defs["steps"] is None and defs["submittable"] is False
    assert Campaign.open(fel).head_seq == head


def test_answers_ready_and_a_message_are_the_viewers_own(fel: Path) -> None:
    head = Campaign.open(fel).head_seq
    done, set_done = mo.state(0)
    run(fel, answers=Fake({"dilemma:winter_relief": json.dumps("give")}), answer_button=SimpleNamespace(value=1),
        get_answers_done=done, set_answers_done=set_done)
    d2, s2 = mo.state(0)
    run(fel, to=Fake({"marburg": True}), subject=Fake("truce"), body=Fake("a word"),
        send_button=SimpleNamespace(value=1), get_sent_done=d2, set_sent_done=s2)
    run(fel, **roll_cell(fel, 1))
    run(fel, **orders_cell(order_rows()), **buttons(ready=1))
    got = [(e.type, e.actor, e.visibility) for e in new_events(fel, head)]
    assert got == [("core.question_answered", "fabian", "faction:fabian"),
                   ("core.message_sent", "fabian", "faction:fabian,faction:marburg"),
                   ("core.plan_submitted", "fabian", "faction:fabian"),
                   ("core.ready_marked", "fabian", "faction:fabian")]
    evs = new_events(fel, head)
    assert isinstance(evs[0].payload, QuestionAnswered) and evs[0].payload.answer == "give"
    assert isinstance(evs[1].payload, MessageSent) and evs[1].payload.to == ("marburg",)
    assert isinstance(evs[3].payload, ReadyMarked) and evs[3].payload.ready


def test_a_sheet_left_open_from_an_earlier_month_files_nothing(fel: Path) -> None:
    """Issue 14 item 4: the sheet was opened for month 8; the month resolved meanwhile. Its submit is refused
    with the month it was written for, and nothing is filed under month 9 (with other dice)."""
    run(fel, **roll_cell(fel, 1))
    stale = orders.open_orders(fel, "fabian")
    camp = Campaign.open(fel)
    camp.play(Plan(turn=8, seed="gm"))
    head = Campaign.open(fel).head_seq
    steps = {"orders_fabian": {"choices": {"actor": "fabian", "orders": []}}}
    me = stale["as_viewer"]
    kind, text = orders.run_write(stale, "Orders submitted", lambda c: subs.submit(c, me, steps, turn=8))
    assert kind == "danger" and "written for month 8, but the campaign is now at month 9" in text
    kind, text = orders.run_write(stale, "Ready", lambda c: pbp.mark_ready(c, me, True, turn=8))
    assert kind == "danger" and "month 8" in text
    assert Campaign.open(fel).head_seq == head


def test_the_gm_and_the_public_get_no_sheet(fel: Path) -> None:
    for who in ("gm", "public", "felmonte"):
        defs = run(fel, viewer=who)
        assert "start" not in defs or defs["start"] is None


def test_the_only_writes_are_the_viewers_own_words() -> None:
    """The sheet (the notebook and its library, views/orders.py) calls the library's writes only for its viewer's
    own words (and moves the turn on after them); it never commits, appends, notes, publishes, sets deadlines or
    touches files."""
    src = (NOTEBOOKS / "orders_sheet.py").read_text() + "\n" + Path(orders.__file__).read_text()
    code = "\n".join(line for line in src.splitlines() if not line.lstrip().startswith("#"))
    called = set(re.findall(r"\b(?:subs|pbp|camp|c|Campaign\.open\([^()]*\))\.(\w+)\s*\(", code))
    writes = called & {"commit", "append", "_append", "append_raw", "retract", "note", "play", "import_lines", "create",
                       "submit", "answer", "mark_ready", "send_message", "advance", "publish", "set_deadline",
                       "close_orders"}
    assert writes == {"advance", "answer", "mark_ready", "send_message", "submit"}
    assert not re.search(r"write_text|write_bytes|unlink|rmtree|mkdir|\bsubprocess\b|os\.system", code)
    for call in ('subs.submit(camp, start["as_viewer"]', 'pbp.answer(camp, start["as_viewer"]',
                 'pbp.mark_ready(\n        camp, start["as_viewer"]',
                 'pbp.send_message(\n        camp, start["as_viewer"]'):
        assert call in code, call


# ---- a real browser ---------------------------------------------------------------------------------------


@pytest.mark.browser
def test_orders_sheet_in_a_browser_rolls_submits_and_never_shows_a_rivals_secret(
        tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    """`kingdomlog orders` for fabian on a copy of Felmonte: the command roll and the orders are two clicks,
    each one core.plan_submitted that only fabian (and the GM) may see; no page or websocket frame carries
    marburg's hidden values."""
    from nb_support import CHROMIUM
    from test_browser import FIRST_RENDER, shot

    if not CHROMIUM.exists():
        pytest.fail("Debian chromium is missing: .ci/run installs it (apt-get install chromium)")
    if not (FELMONTE / "campaign.toml").is_file():
        pytest.skip("campaigns/felmonte is not built")
    folder = tmp_path / "felmonte"
    shutil.copytree(FELMONTE, folder, ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    camp = Campaign.open(folder)
    secret, wealth = "RIVAL-SECRET-8812", 7351
    ruling = {"turn": 7, "type": "signoria.gm_ruling", "visibility": "faction:marburg",
              "payload": {"gap": "test", "text": f"marburg's treasure {secret}",
                          "effects": [{"kind": "set_resource", "faction": "marburg", "resource": "wealth",
                                       "value": wealth}]}}
    camp.append_raw(camp.parse_jsonl([json.dumps(ruling)]))
    camp.note(f"marburg hides {secret}", visibility="faction:marburg", title="marburg only")
    camp.note(f"the GM hides {secret}", visibility="gm", title="gm only")
    pbp.publish(camp, Plan.parse(OPENING))
    head = camp.head_seq

    from playwright.sync_api import sync_playwright

    port = free_port()
    frames: list[str] = []
    with Server([sys.executable, "-m", "kingdomlog", "orders", str(folder), "--as", "fabian", "--port", str(port)],
                env=subprocess_env, ready=r"Orders sheet of .*: (http://\S+)") as srv, sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM),
                              args=["--no-sandbox", "--headless", "--disable-gpu", "--disable-dev-shm-usage"])
        page = b.new_page(viewport={"width": 1000, "height": 2200})
        page.on("websocket", lambda ws: (ws.on("framereceived", lambda f: frames.append(str(f))),
                                         ws.on("framesent", lambda f: frames.append(str(f)))))
        kernel = Kernel(page)
        page.goto(srv.url)
        page.get_by_role("button", name="Make the command roll").wait_for(timeout=FIRST_RENDER)
        page.wait_for_timeout(1500)
        shot(page, "orders-fabian-1-loaded")
        page.get_by_role("button", name="Make the command roll").click()
        page.get_by_text("Rolled and sealed").wait_for(timeout=60_000)
        page.wait_for_timeout(3000)  # the sheet reloads after the write: let its new form settle
        page.get_by_label("Action", exact=True).first.select_option(
            label="grant liberties — in the internal affairs phase")
        page.wait_for_timeout(400)
        page.get_by_label("Stake", exact=True).nth(0).select_option(label="Elementary")
        for _ in range(60):  # the check re-runs on the new row: its record names the order
            page.wait_for_timeout(1000)
            if re.search(r"records</summary>.{0,1200}liberties", page.content(), re.S):  # "What … records", in words
                break
        else:
            raise AssertionError("the check never saw the order")
        page.get_by_text("These orders pass the checks").wait_for(timeout=60_000)
        assert Campaign.open(folder).head_seq == head + 1  # the roll; typing orders writes nothing
        page.get_by_role("button", name="Submit orders").click()
        page.get_by_text(re.compile(r"Orders submitted")).first.wait_for(timeout=60_000)
        kernel.settled()  # a second run of the submit cell (the click fired twice) would have written by now
        assert len(batches_since(folder, head)) == 2  # the roll's click and the submission's: one batch each
        shot(page, "orders-fabian-2-submitted")
        content = page.content()
        anon = b.new_page()
        anon.goto(srv.url.split("?")[0])
        anon.locator("input[type=password]").wait_for(timeout=30_000)  # the refusal, awaited (not slept for)
        anon_content = anon.content()
        b.close()

    camp = Campaign.open(folder)
    new = [e for e in camp.events() if e.seq > head]
    assert [(e.type, e.actor, e.visibility) for e in new] == [("core.plan_submitted", "fabian", "faction:fabian")] * 2
    sub = new[-1].payload
    assert isinstance(sub, PlanSubmitted) and sub.steps["orders_fabian"].choices["orders"][0]["action"] == "liberties"
    assert [len(f) for f in sub.steps["command_fabian"].rolls.values()] == [2]
    assert not {e.seq for e in new} & {e.seq for e in camp.visible_events(camp.viewer("marburg"))}
    assert camp.verify().ok
    assert frames, "no websocket frames captured"
    for text in [content, *frames]:
        assert secret not in text
        assert number_shown(text, wealth) is None, number_shown(text, wealth)
    assert "Submit orders" in content and "Doge of Marburg" in content  # the rivals' side, by name
    assert "Submit orders" not in anon_content


# ---- the library (views/orders.py) ------------------------------------------------------------------------

FIRST = orders.FirstRoll("command_", heading="", intro="", button="", made="", waiting="", unchecked="ROLL FIRST")


def test_open_orders_reads_the_viewers_own_turn(fel: Path) -> None:
    start = orders.open_orders(fel, "fabian")
    assert (start["viewer"], start["turn"], start["turn_unit"]) == ("fabian", 8, "month")
    assert start["answered_in"] == {"orders_fabian": {"dilemmas"}} and start["submitted"] is None
    hints = start["hints"]["orders_fabian"]["target"]  # the targets of every action fabian may take, each once
    assert hints and len({o.value for o in hints}) == len(hints)
    with pytest.raises(InputError, match="not a player"):
        orders.open_orders(fel, "gm")


def test_the_form_of_a_step_round_trips_through_the_form_codec(fel: Path) -> None:
    start = orders.open_orders(fel, "fabian")
    hidden = ("faction", "dilemmas", "candidates")
    assert orders.first_steps(start, FIRST) == ["command_fabian"]
    assert orders.first_steps(start, None) == []
    assert orders.fixed_choices(start, "orders_fabian") == {"actor": "fabian"}
    offer = orders.step_offer(start, "orders_fabian", hidden, "e.g. x")
    assert {"actor", "faction", "dilemmas", "candidates"} <= offer.hidden and "target" in offer.hints
    form = orders.orders_form(start, ["orders_fabian"], hidden, "e.g. x")
    assert not any("/actor" in k or "faction" in k or "dilemmas" in k for k in form.value)
    steps, problem = orders.read_orders(start, form.value, ["orders_fabian"], hidden)
    assert problem is None and steps == {"orders_fabian": {"choices": {"actor": "fabian", "orders": []}}}
    flat = dict(form.value)
    flat["orders_fabian/orders/rows/#0/action"] = "liberties"
    flat["orders_fabian/orders/rows/#1/params/units"] = "many"
    steps, problem = orders.read_orders(start, flat, ["orders_fabian"], hidden)
    assert steps is None and problem == "Order 2 › Details › Units: 'many' is not a number"
    del flat["orders_fabian/orders/rows/#1/params/units"]
    steps, _ = orders.read_orders(start, flat, ["orders_fabian"], hidden)
    assert steps is not None and steps["orders_fabian"]["choices"]["orders"] == [
        {"action": "liberties", "slots": ["ordinary"], "stake": "low"}]
    laid = mo.as_html(orders.form_layout(start, form, "orders_fabian")).text
    assert "Order 1" in laid and "Order 4" in laid and "Details" in laid and "Params" not in laid
    assert "Orders" in orders.help_html(start, "orders_fabian")


def test_the_sheets_words(fel: Path) -> None:
    start = orders.open_orders(fel, "fabian")
    assert "Month 8" in orders.header_html(start) and "not ready" in orders.header_html(start)
    assert orders.submission_md(start) == "_Nothing submitted yet this month._"
    assert orders.check_html(start, None, "Units: bad", [], None) == (
        '<p class="kl-error"><b>Cannot read the form.</b> Units: bad</p>', False)
    assert orders.check_html(start, {}, None) == ("<p>Nothing to submit.</p>", False)
    assert orders.check_html(start, {"x": {}}, None, ["command_fabian"], FIRST) == (
        "<p><i>ROLL FIRST</i></p>", False)
    [q] = orders.open_questions(start)
    assert q.id == "dilemma:winter_relief" and "The poor ask for bread" in orders.question_html(q)
    assert list(orders.questions_form(start).value) == [q.id]
    assert orders.questions_html(start) == "" and orders.messages_html(start) == "<p><i>No messages yet.</i></p>"
    run(fel, **roll_cell(fel, 1))
    start = orders.open_orders(fel, "fabian")
    sealed = orders.sealed_steps(start)
    assert list(sealed) == ["command_fabian"]
    said = orders.sealed_html(start, sealed, "command_fabian")
    assert "Rolled and sealed" in said and "the command roll: 3 4" in said and "1 special and 2 ordinary" in said
    assert "cmd.1" not in said and "(Stake: low)" in said  # what is rolled and chosen, in words (issue 29)
    assert orders.dice_words(Campaign.open(fel), start, {"command_fabian": {}}) == "Dice: the command roll: 3 4."
    said = orders.submission_md(start)  # submitted, said without the log's seq (it counts events the player
    assert "are in" in said and "seq" not in said and str(start["submitted_seq"]) not in said  # may not see)
    head = orders.head_html(start, orders.player.player_view(fel, "fabian"), "/f/fabian/report/")
    assert head.startswith("<style>") and 'href="/f/fabian/report/"' in head


def test_a_fault_of_the_log_reaches_a_players_pages_in_words_naming_no_seq_or_hash(fel: Path) -> None:
    """With the newest batch gone, the GM's tools name the missing seqs and the head hash; a player's orders sheet
    and report say only that the log needs the GM (those numbers tell how many events the player may not see)."""
    import html
    import io
    from contextlib import redirect_stderr

    from kingdomlog import cli

    newest = sorted((fel / "log").glob("*.parquet"))[-1]
    newest.unlink()
    err = io.StringIO()
    with redirect_stderr(err):
        assert cli.main(["state", str(fel)]) == 1
    gm_said = err.getvalue()
    assert re.search(r"seq \d+", gm_said), gm_said  # the GM is told which
    outputs = []
    for nb, defs in ((NB, {"folder": fel, "viewer": "fabian", "report_link": None}),
                     (load_notebook("kingdom_view"), {"folder": fel, "viewer": "fabian"})):
        app_outputs, _ = nb.app.run(defs=defs)
        raw = " ".join(str(getattr(o, "text", o)) for o in app_outputs if o is not None)
        outputs.append(html.unescape(html.unescape(raw)).encode().decode("unicode_escape"))
    for text in outputs:
        assert "cannot be read as it stands" in text and "the GM has been told" in text, text
        assert not re.search(r"seq \d+|[0-9a-f]{12}", text), text


def test_messages_name_who_wrote_and_to_whom(fel: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A message on Marburg's orders page and in ``kingdomlog message --list`` says who wrote it and to whom by
    name ("from Duke Fabian to Doge of Marburg"; the page read "from fabian to marburg", the ids), the recipients
    offered by name; ``kingdomlog message`` and ``answer`` take their words after their options too (they said
    "unrecognized arguments")."""
    from kingdomlog.cli import main

    assert main(["message", str(fel), "--as", "fabian", "--to", "marburg", "--subject", "truce", "a word"]) == 0
    assert main(["answer", str(fel), "--as", "fabian", "dilemma:winter_relief", "1"]) == 0
    capsys.readouterr()
    start = orders.open_orders(fel, "marburg")
    page = re.sub(r"<[^>]+>", "", orders.messages_html(start))
    assert "month 8 · from Duke Fabian to Doge of Marburg · truce" in page, page
    assert [start["names"][p] for p in start["others"]] == ["Duke Fabian"]
    assert main(["message", str(fel), "--list", "--as", "marburg"]) == 0
    listed = capsys.readouterr().out
    assert "month 8 · from Duke Fabian to Doge of Marburg · truce\n  a word" in listed and "->" not in listed, listed
    asked = pbp.questions(Campaign.open(fel), orders.open_orders(fel, "fabian")["as_viewer"])
    assert [(q.id, q.answer) for q in asked] == [("dilemma:winter_relief", "give")]
