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

import shutil
import tomllib
from html.parser import HTMLParser
from pathlib import Path

import pytest
import tomli_w

from kingdomlog.app import Campaign
from kingdomlog.core.events import Draft
from kingdomlog.rulesets.pf2e.events import LeaderChanged
from kingdomlog.rulesets.signoria import events as sev
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
