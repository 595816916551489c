"""Hostile text in a campaign's own words reaches a page as text, escaped exactly once (issue 26).

A campaign name, a note, a leader's name and a faction's name each hold ``<script>``, a quote that would
close an attribute (``"onmouseover=``) and an entity (``&amp;``); they go into copies of the pf2e and
Signoria demos (the name in campaign.toml, the note with ``Campaign.note``, the names as events). The
player page, the report's HTML and the GM sheet's panel and header then hold each one:

- escaped once in the source (``esc`` of it), never raw and never escaped twice;
- as typed in what a reader sees (the parsed text and attribute values);
- and no element or attribute that it spells (no ``<script>``, no ``onmouseover``).
"""

from __future__ import annotations

import importlib.util
import shutil
import tomllib
from html.parser import HTMLParser
from pathlib import Path

import marimo as mo
import pytest
import tomli_w

from kingdomlog.app import Campaign, pbp
from kingdomlog.core.events import Draft
from kingdomlog.core.turn import Plan
from kingdomlog.rulesets.pf2e.events import LeaderChanged
from kingdomlog.rulesets.signoria import events as sev
from kingdomlog.views import orders
from kingdomlog.views.html import esc
from kingdomlog.views.player.page import render_static
from kingdomlog.views.player.report import to_html, turn_report
from kingdomlog.views.sheet import cards as sheet_cards
from kingdomlog.views.sheet import draft as sheet
from kingdomlog.views.sheet.panel import panel_html

REPO = Path(__file__).resolve().parents[2]
HOSTILE = '<script>alert(1)</script>"onmouseover=&amp;'
NAME, NOTE, LEADER, FACTION = (f"{what} {HOSTILE}" for what in ("Camp", "Note", "Lead", "Fact"))


class Seen(HTMLParser):
    """What a reader gets from a page: its text and attribute values (entities read), and its tags."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.tags: set[str] = set()
        self.attrs: set[str] = set()
        self.feed(page)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        for name, value in attrs:
            self.attrs.add(name)
            self.text.append(value or "")

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def escaped_once(page: str, *texts: str) -> None:
    seen = Seen(page)
    assert "script" not in seen.tags and not any(a.startswith("on") for a in seen.attrs)
    for text in texts:
        assert esc(text) in page, f"{text!r} is not on the page"
        assert text not in page, f"{text!r} is on the page unescaped"
        assert esc(esc(text)) not in page, f"{text!r} is escaped twice"
        assert any(text in t for t in seen.text), f"a reader does not see {text!r} as typed"


def _copy(root: Path, demo: str) -> Path:
    folder = root / demo
    shutil.copytree(REPO / "campaigns" / demo, folder, ignore=shutil.ignore_patterns(".cache"))
    config = tomllib.loads((folder / "campaign.toml").read_text())
    (folder / "campaign.toml").write_text(tomli_w.dumps({**config, "name": NAME}))
    return folder


@pytest.fixture(scope="module")
def kingdom(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pf2e demo named ``NAME``, its ruler ``LEADER``, a public ``NOTE``."""
    folder = _copy(tmp_path_factory.mktemp("hostile"), "stolen-lands")
    camp = Campaign.open(folder)
    camp.append_raw([Draft(LeaderChanged(role="ruler", holder=LEADER), turn=camp.next_turn() - 1)])
    camp.note(NOTE, title=NOTE, visibility="public")
    return folder


@pytest.fixture(scope="module")
def signoria(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Signoria demo named ``NAME``, with a neutral faction ``FACTION``, Fabian's leader ``LEADER``, a ``NOTE``."""
    folder = _copy(tmp_path_factory.mktemp("hostile"), "felmonte")
    camp = Campaign.open(folder)
    turn = camp.next_turn() - 1
    camp.append_raw([Draft(sev.FactionCreated(faction="rogue", name=FACTION, kind="neutral"), turn=turn),
                     Draft(sev.LeaderSucceeded(faction="fabian", character="c-hostile", name=LEADER, traits=()),
                           turn=turn)])
    camp.note(NOTE, title=NOTE, visibility="public")
    return folder


@pytest.mark.parametrize("viewer", ["public", "gm"])
def test_the_player_page_and_the_report_show_pf2e_names_and_notes_as_text(kingdom: Path, viewer: str) -> None:
    escaped_once(render_static(kingdom, viewer), NAME, NOTE, LEADER)
    escaped_once(to_html(turn_report(kingdom, viewer), None), NAME, NOTE, LEADER)


@pytest.mark.parametrize("viewer", ["public", "fabian"])
def test_the_player_page_and_the_report_show_faction_and_leader_names_as_text(signoria: Path, viewer: str) -> None:
    escaped_once(render_static(signoria, viewer), NAME, NOTE, LEADER, FACTION)
    escaped_once(to_html(turn_report(signoria, viewer), None), NAME, NOTE, LEADER, FACTION)


def test_the_sheets_panel_and_header_show_them_as_text(kingdom: Path, signoria: Path) -> None:
    for folder, names in ((kingdom, (LEADER,)), (signoria, (LEADER, FACTION))):
        camp = Campaign.open(folder)
        escaped_once(panel_html(camp.ruleset, camp.state()), *names)
        session, problem = sheet.open_session(folder)
        assert session is not None, problem
        escaped_once(sheet_cards.header_html(session), NAME)


# ---- the orders sheet -------------------------------------------------------------------------------------

PROMPT, OPTION, SUBJECT, BODY = (f"{what} {HOSTILE}" for what in ("Ask", "Opt", "Subj", "Body"))


@pytest.fixture(scope="module")
def orders_turn(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Signoria demo named ``NAME``, Fabian's leader ``LEADER``, the GM's opening published with a dilemma
    for Fabian asking ``PROMPT`` (its option ``OPTION``), and a letter from Marburg to Fabian (``SUBJECT``,
    ``BODY``)."""
    folder = _copy(tmp_path_factory.mktemp("hostile"), "felmonte")
    camp = Campaign.open(folder)
    camp.append_raw([Draft(sev.LeaderSucceeded(faction="fabian", character="c-hostile", name=LEADER, traits=()),
                           turn=camp.next_turn() - 1)])
    pbp.publish(camp, Plan.parse({"steps": {"turn_open": {"choices": {"dilemmas": [
        {"faction": "fabian", "id": "hostile", "text": PROMPT, "options": [{"id": "give", "text": OPTION}]}]}}}}))
    pbp.send_message(camp, camp.viewer("marburg"), ["fabian"], BODY, subject=SUBJECT)
    return folder


def _orders_page(folder: Path) -> str:
    """The orders sheet as Fabian's browser gets it: the notebook run in process, every cell's HTML."""
    path = REPO / "notebooks" / "orders_sheet.py"
    spec = importlib.util.spec_from_file_location("kl_orders_sheet_hostile", path)
    assert spec is not None and spec.loader is not None
    nb = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(nb)
    outputs, _ = nb.app.run(defs={"folder": folder, "viewer": "fabian", "report_link": None})
    return "".join(mo.as_html(o).text for o in outputs if o is not None)


def test_the_orders_sheet_shows_a_letter_a_question_and_a_leader_as_text(orders_turn: Path) -> None:
    escaped_once(_orders_page(orders_turn), NAME, LEADER, PROMPT, SUBJECT, BODY)


def test_an_answered_question_shows_its_prompt_and_answer_as_text(orders_turn: Path, tmp_path: Path) -> None:
    folder = tmp_path / "felmonte"
    shutil.copytree(orders_turn, folder)
    camp = Campaign.open(folder)
    [q] = [q for q in orders.open_orders(folder, "fabian")["questions"] if HOSTILE in q.prompt]
    pbp.answer(camp, camp.viewer("fabian"), q.id, "give")
    answered = orders.questions_html(orders.open_orders(folder, "fabian"))
    assert "Answered" in answered
    escaped_once(answered, PROMPT, OPTION)
    escaped_once(_orders_page(folder), PROMPT, OPTION, SUBJECT, BODY)
