"""A signoria month run from the GM sheet's own actions (issue 29, views/extras/signoria.py): the GM publishes the
opening as the draft has it, with a deadline, no opening.json written; the factions answer; the GM's council vote
is put to Marburg, answered, and the month is resolved and committed."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from nb_support import REPO

from kingdomlog.app import Campaign, pbp
from kingdomlog.core.turn import Plan
from kingdomlog.views.extras import extras_for
from kingdomlog.views.extras import signoria as sig_extras

NOW = datetime(2026, 12, 6, 10, 0, 30, tzinfo=UTC)
OPENING = {"turn_open": {"choices": {
    "dilemmas": [{"faction": "fabian", "id": "bread", "text": "The poor ask for bread.",
                  "options": [{"id": "feed", "text": "open the granaries"}, {"id": "refuse", "text": "refuse"}]}],
    "candidates": [{"faction": "marburg", "name": "Ottavio"}]}}}
COUNCIL = {"upkeep": {"choices": {"questions": [{
    "faction": "marburg", "id": "council", "kind": "council_vote", "text": "Does the council keep the doge?",
    "options": [{"id": "keep", "text": "keep him"}, {"id": "remove", "text": "remove him"}], "default": "keep"}]}}}


@pytest.fixture
def fel(tmp_path: Path) -> Path:
    folder = tmp_path / "felmonte"
    shutil.copytree(REPO / "campaigns" / "felmonte", folder, ignore=shutil.ignore_patterns(".cache"))
    return folder


def test_the_sheet_offers_signorias_actions_and_no_other_rulesets(tmp_path: Path) -> None:
    from kingdomlog.views.extras import NAME_FROM_FOUNDRY, action_forms

    assert [a.name for a in extras_for("signoria").actions] == ["publish", "move_on"]
    # pf2e's only action names what a Foundry import left unnamed: a kingdom with nothing unnamed shows none
    assert extras_for("pf2e-kingmaker").actions == (NAME_FROM_FOUNDRY,)
    camp = Campaign.create(tmp_path / "pf2e", "pf2e-kingmaker", name="Pf2e")
    assert action_forms(extras_for("pf2e-kingmaker"), camp.ruleset, camp.state()) is None


def test_a_month_opened_answered_and_resolved_from_the_sheet(fel: Path) -> None:
    draft = Plan.parse({"dice": "on_roll", "steps": {**OPENING, **COUNCIL}})  # the sheet draws a die on its Roll
    done = sig_extras.publish_opening(fel, draft, {"orders_due": "2d"}, now=NOW)
    assert done.kind == "success", done.text
    assert "questions 1 to Duke Fabian, 1 to Doge of Marburg" in done.text
    assert "orders due 2026-12-08 10:01 UTC" in done.text
    assert done.plan is not None and set(done.plan.steps) == {"upkeep"}  # the opening left the draft
    camp = Campaign.open(fel)
    month = camp.next_turn()
    fab, mar = camp.viewer("fabian"), camp.viewer("marburg")
    [q] = pbp.questions(camp, fab)
    assert q.id == "dilemma:bread" and "The poor ask for bread" in q.prompt
    pbp.answer(camp, fab, q.id, "abstain", now=NOW)  # no orders this month: no slot to resolve it with
    [c] = pbp.questions(camp, mar)
    pbp.answer(camp, mar, c.id, "pass", now=NOW)

    waits = sig_extras.move_on(fel, done.plan, {}, now=NOW)
    assert waits.kind == "warn" and "marburg" in waits.text, waits.text  # the council vote is put to Marburg
    camp = Campaign.open(fel)
    vote = next(x for x in pbp.questions(camp, mar) if x.id == "gm:council")
    assert vote.kind == "council_vote" and not vote.answered
    pbp.answer(camp, mar, vote.id, "remove", now=NOW)

    resolved = sig_extras.move_on(fel, done.plan, {}, now=NOW)
    assert resolved.kind == "success" and "committed" in resolved.text, resolved.text
    camp = Campaign.open(fel)
    assert camp.next_turn() == month + 1
    month_events = [e for e in camp.events() if e.turn == month]
    assert any(e.type == "signoria.gm_ruling" and "Answer: remove him" in e.payload.text
               for e in month_events)
    assert camp.verify().ok


def test_a_deadline_that_is_no_time_is_refused_in_words_and_nothing_is_published(fel: Path) -> None:
    head = Campaign.open(fel).head_seq
    done = sig_extras.publish_opening(fel, Plan.parse({"steps": OPENING}), {"orders_due": "soon"}, now=NOW)
    assert done.kind == "danger" and "write it like 48h, 2d or 90m" in done.text and done.plan is None
    assert Campaign.open(fel).head_seq == head
