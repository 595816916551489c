"""The GM sheet asks in words what a person can answer (issue 29, words10), read from what it renders (no browser):
pf2e's Reveal armies and Make peace with are multiselects of the state's enemy armies and enemies by name (they
were boxes for ids typed by hand) and refuse an id the state does not hold; the sheet's header says how many
events are recorded and that the draft is kept (it read "the log ends at seq 32" and the draft file's path); pf1's
panel heads a trade route's and an army's columns in words (they read "Trl", "Om", "Dv"); signoria's actions say
when they are resolved (they read "march to war — war") and its global event asks for "What happens" first and
says what its "Short name" is."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from nb_support import panel_records

from kingdomlog.core.choices import validate_choices
from kingdomlog.core.errors import InputError
from kingdomlog.core.ruleset import find_ruleset
from kingdomlog.core.turn import Plan
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.choices import LeadershipUpkeepChoices
from kingdomlog.rulesets.pf2e.warfare import new_army
from kingdomlog.views import forms as sf
from kingdomlog.views.sheet import cards
from kingdomlog.views.sheet import panel as sheet_panel
from kingdomlog.views.sheet.draft import SheetSession, load_start

REPO = Path(__file__).resolve().parents[2]


def start_of(demo: str, tmp_path: Path) -> Any:
    folder = tmp_path / demo
    shutil.copytree(REPO / "campaigns" / demo, folder, ignore=shutil.ignore_patterns(".cache", "drafts", "table"))
    return load_start(folder, check_forms=False)


def text(page: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


@pytest.fixture(scope="module")
def at_war(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The stolen-lands demo at war with the Stag Lord, his raiders hidden and a second band already seen."""
    start = start_of("stolen-lands", tmp_path_factory.mktemp("war"))
    defn = T.army_defs()["infantry"]
    hidden = new_army(defn, 1, "raiders2", "Stag Lord's Second Band", side="enemy", revealed=False)
    seen = new_army(defn, 1, "bandits", "Bandits of the Narlmarches", side="enemy", revealed=True)
    state = start.state.model_copy(update={"enemies": ("stag-lord",), "at_war": True,
                                           "army_units": (*start.state.army_units, hidden, seen)})
    return start.ruleset, state, start.turn


def widgets_of(ruleset: Any, state: Any, turn: int) -> dict[str, Any]:
    specs = ruleset.choices(state, turn, "upkeep.leadership")
    return sf.choice_widgets(specs, {})


def test_reveal_armies_and_peace_are_picked_by_name(at_war: Any) -> None:
    ruleset, state, turn = at_war
    w = widgets_of(ruleset, state, turn)
    reveal, peace = w["reveal_armies"], w["end_war"]
    assert isinstance(getattr(reveal, "options", None), dict), type(reveal)  # it was a box for ids typed by hand
    assert [k.split(" — ")[0] for k in reveal.options] == ["Stag Lord's Second Band"], reveal.options
    assert list(reveal.options.values()) == ["raiders2"]  # the value a plan stores is the army's id, as it was
    assert list(peace.options.values()) == ["stag-lord"] and "stag-lord" not in next(iter(peace.options)), peace.options
    labels = {s.name: s.label for s in ruleset.choices(state, turn, "upkeep.leadership")}
    assert (labels["declare_war"], labels["end_war"]) == ("Declare war on", "Make peace with")  # a new group: a box


def test_an_army_or_enemy_not_in_the_state_is_refused_where_it_enters(at_war: Any) -> None:
    ruleset, state, _ = at_war
    ok = validate_choices(LeadershipUpkeepChoices, {"reveal_armies": ["raiders2"], "end_war": ["stag-lord"]},
                          state=state, vocabulary=ruleset.vocabulary, step="upkeep.leadership")
    assert ok.reveal_armies == ["raiders2"]  # type: ignore[attr-defined]
    for raw, said in (({"reveal_armies": ["ghosts"]}, "'ghosts' is not an enemy army the players do not see yet"),
                      ({"reveal_armies": ["bandits"]}, "'bandits' cannot be chosen now: the players already see"),
                      ({"end_war": ["pitax"]}, "'pitax' is not a group the kingdom is at war with")):
        with pytest.raises(InputError, match=re.escape(said)):
            validate_choices(LeadershipUpkeepChoices, raw, state=state, vocabulary=ruleset.vocabulary,
                             step="upkeep.leadership")


def test_the_header_says_the_log_and_the_draft_in_words(tmp_path: Path) -> None:
    start = start_of("stolen-lands", tmp_path)
    session = SheetSession(start, Plan(turn=start.turn, seed="x", dice="on_roll"))
    page = str(cards.header_html(session))
    said = text(page)
    assert f"{start.start_seq} events recorded so far" in said, said
    assert "seq" not in said, said
    assert re.search(r"<summary>your draft is kept as you go</summary>", page), page  # where: on the toggle only
    before_toggle = page.split("<details")[0]
    assert "drafts" not in before_toggle and ".json" not in before_toggle


def test_pf1_panel_heads_columns_in_words(tmp_path: Path) -> None:
    start = start_of("river-kingdom", tmp_path)
    page = str(sheet_panel.panel_html(start.ruleset, start.state))
    heads = {html.unescape(x) for x in re.findall(r"<th[^>]*>([^<]*)</th>", page)}  # a column's, or a field's
    heads |= {k for t in ("Trade routes", "Armies") for r in panel_records(page, t) for k in r}  # on a line below
    assert {"Trade route length", "Route modifier", "Length modifier", "Offense modifier", "Defense value",
            "Hit dice", "Army CR", "Unit CR"} <= heads, heads
    assert not heads & {"Trl", "Rm", "Lm", "Om", "Dv", "Hd", "Acr", "Unit cr"}, heads


def test_signoria_actions_and_global_event_in_words() -> None:
    rs = find_ruleset("signoria")
    options = {o.value: sf.option_text(o) for o in rs.vocabulary(None, "actions", {})}
    assert options["war"] == "march to war — in the war phase", options["war"]
    assert options["support"] == "support another order — with the order it supports"
    from kingdomlog.rulesets.signoria.choices import GlobalEvent

    fields = GlobalEvent.model_fields
    assert list(fields)[:2] == ["title", "key"]
    assert (fields["title"].title, fields["key"].title) == ("What happens", "Short name")
    assert "short name of your own" in (fields["key"].description or "")


def test_commit_and_its_refusal_say_events_not_seq(toy: Path) -> None:
    """A commit says how many events it recorded, a commit refused because the log moved says how many are recorded
    now and then (they read "seq 5–9", "it now ends at seq 9; the draft started at seq 4")."""
    from kingdomlog.app import Campaign
    from kingdomlog.views.sheet import draft as sheet

    def rolled() -> Any:
        s, _ = sheet.open_session(toy)
        assert s is not None
        s.update(dict(s.widgets().value))
        s.roll_all()
        return s

    stale = rolled()
    Campaign.open(toy).note("the log moves on under the open sheet")
    head = Campaign.open(toy).head_seq
    refused = sheet.commit(stale, stale.draft)
    assert refused is not None and refused.kind == "danger", refused
    assert f"({head} events recorded now, {head - 1} then)" in refused.text, refused.text
    assert "seq" not in refused.text, refused.text
    fresh = rolled()
    done = sheet.commit(fresh, fresh.draft)
    assert done is not None and done.kind == "success", done
    assert re.fullmatch(r"Committed season 2: \d+ events recorded\.", done.text), done.text


def test_declare_war_says_the_groups_the_kingdom_deals_with(at_war: Any) -> None:
    """Declare war on is a box (a new group is the GM's to name) whose help names the groups the state holds, as
    it holds them, so the GM types the same name (it said only "groups the kingdom goes to war with")."""
    ruleset, state, turn = at_war
    state = state.model_copy(update={"diplomatic_relations": ("Mivon",), "trade_agreements": ("Mivon", "Pitax")})
    help_ = {s.name: s.help for s in ruleset.choices(state, turn, "upkeep.leadership")}["declare_war"]
    assert help_.endswith("groups the kingdom deals with: Mivon, Pitax"), help_
