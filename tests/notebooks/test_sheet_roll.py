"""The roll has its moment on the GM sheet (design §5), under plain pytest: the notebook run with ``app.run``.

The page's dice buttons reach the session through ``pad`` (``views.sheet.live.RollPad``); here a stand-in
holds the press the page would send. What a face would be is computed from the draft's seed with the
keyed roller, so a test can look for it where it must not be.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from nb_support import load_notebook

from kingdomlog.app import Campaign
from kingdomlog.app.drafts import Drafts
from kingdomlog.dice.roller import KeyedRoller, StepRoller
from kingdomlog.views.sheet import cards as sheet_cards
from kingdomlog.views.sheet import draft as sheet
from kingdomlog.views.sheet import live as sheet_live

NB = load_notebook("turn_sheet")


def run(folder: Path, *, press: dict[str, Any] | None = None, commit: int = 0) -> Any:
    """The notebook run with ``press`` on the pad; ``commit``: Commit clicked on the draft the sheet opens at."""
    camp = Campaign.open(folder)
    click = {"click": {"draft": f"{camp.next_turn()}@{camp.head_seq}", "n": "click-1"}} if commit else {}
    _, defs = NB.app.run(defs={"folder": folder, "pad": SimpleNamespace(value={"press": press or {}}),
                               "commit_button": SimpleNamespace(value=click),
                               "commit_laid": SimpleNamespace(text="")})
    return defs


def would_be(folder: Path, step: str, key: str, notation: str, nonce: int = 0) -> tuple[int, ...]:
    """The faces ``key`` of ``step`` gets when it is rolled, from the saved draft's seed (the test knows, the page
    must not)."""
    saved = Drafts(folder).load(Campaign.open(folder).next_turn())
    assert saved is not None and saved.plan.seed
    camp = Campaign.open(folder)
    return KeyedRoller(saved.plan.seed, campaign=camp.id, turn=camp.next_turn()).for_step(step).faces_at(
        key, notation, nonce)


def page_text(defs: dict[str, Any]) -> str:
    """Everything of the sheet the browser gets: the page as drawn and every live part sent to it."""
    s = defs["session"]
    slots, attrs = sheet_cards.page_slots(s, defs["draft"])
    drawn = sheet_live.page(defs["live"], s, SimpleNamespace(text=""), SimpleNamespace(text=""), "")
    return "".join([str(drawn), str(sheet_cards.header_html(s)), *map(str, slots.values()), repr(attrs),
                    *defs["live"].widget.lefts.values()])


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    asked: list[tuple[str, str]] = []
    real = StepRoller.roll

    def roll(self: StepRoller, key: str, notation: str) -> Any:
        asked.append((self.step, key))
        return real(self, key, notation)

    monkeypatch.setattr(StepRoller, "roll", roll)
    return asked


def test_the_sheet_opens_with_the_check_declared_and_its_die_not_drawn(toy: Path, spy: list[tuple[str, str]]) -> None:
    defs = run(toy)
    draft, s = defs["draft"], defs["session"]
    harvest = draft.card("harvest")
    assert harvest.pending is not None and harvest.pending.notation == "1d6" and not harvest.rolls
    assert ("harvest", "harvest") not in spy  # the server never asked for the face
    text = page_text(defs)
    assert 'data-kl-act="roll" data-kl-step="harvest" data-kl-key="harvest"' in text and "⚄ Roll d6" in text
    assert "⚄ " + str(would_be(toy, "harvest", "harvest", "1d6")[0]) not in text  # no roll line anywhere
    assert s.plan.seed not in text  # nor the seed that would tell it
    assert "After the roll" in sheet_cards.result_html(s, draft.card("market"), draft)
    assert not draft.committable


def test_roll_draws_the_keyed_face_once_and_the_draft_keeps_it(toy: Path) -> None:
    run(toy)
    face = would_be(toy, "harvest", "harvest", "1d6")
    defs = run(toy, press={"n": 1, "act": "roll", "step": "harvest", "key": "harvest"})
    draft, s = defs["draft"], defs["session"]
    roll = draft.card("harvest").rolls[0]
    assert roll.faces == face and not roll.manual and draft.committable
    res = sheet_cards.result_html(s, draft.card("harvest"), draft)
    assert f"⚄ {face[0]}" in res and "🔒 Rolled" in res and 'data-kl-act="reroll"' in res
    assert 'data-kl-act="roll"' not in res
    saved = Drafts(toy).load(2)
    assert saved is not None and "harvest" in saved.plan.steps["harvest"].rolled  # survives a reload
    again = run(toy, press={"n": 1, "act": "roll", "step": "harvest", "key": "harvest"})  # a reload: same face
    assert again["draft"].card("harvest").rolls[0].faces == face


def test_a_press_is_taken_once(toy: Path) -> None:
    s, _ = sheet.open_session(toy)
    assert s is not None
    s.update(dict(s.widgets().value))
    s.update({}, press={"press": {"n": 1, "act": "roll", "step": "harvest", "key": "harvest"}})
    s.update({}, press={"press": {"n": 2, "act": "reroll", "step": "harvest", "key": "harvest", "reason": "gm",
                                  "note": "cocked die", "nonce": "0"}})
    plan = s.plan
    assert plan.steps["harvest"].rerolls == {"harvest": 1}
    for n, nonce in ((2, ""), (3, "0")):  # the same press again (its count); a second click on the button of nonce 0
        s.update({}, press={"press": {"n": n, "act": "reroll", "step": "harvest", "key": "harvest", "reason": "gm",
                                      "note": "cocked die", "nonce": nonce}})
        assert s.plan == plan


def test_changing_a_rolled_choice_is_refused_at_its_field_and_a_re_roll_takes_it(toy: Path) -> None:
    run(toy, press={"n": 1, "act": "roll", "step": "harvest", "key": "harvest"})
    s, _ = sheet.open_session(toy)
    assert s is not None
    forms = s.widgets()
    values = dict(forms.value)
    s.update(values)
    draft = s.update({**values, "harvest/c/crop": "barley"})
    card = draft.card("harvest")
    assert card is not None and card.error is not None and draft.refused is card
    face = would_be(toy, "harvest", "harvest", "1d6")[0]
    assert f"choice crop: Roll 'harvest' was rolled with crop wheat (d6 = {face}); to change the crop," \
           " re-roll it: a GM ruling (with a note)" in card.error
    html = sheet_cards.card_view(s, card, forms, draft).text  # the refusal sits at the crop's widget
    at = re.search(r'class="kl-field kl-field-bad" data-field="crop"', html)
    assert at is not None and "was rolled with crop wheat" in html[at.start():]
    assert "Put it back as it was rolled" in sheet_cards.result_html(s, card, draft)
    assert not draft.committable
    # the re-roll: a GM ruling without a note is not made; with one it is, and takes the barley
    s.reroll("harvest", "harvest", "gm", note="")
    assert "needs a note" in s.notices["harvest"] and s.plan.steps["harvest"].rerolls == {}
    draft = s.reroll("harvest", "harvest", "gm", note="the wrong crop was picked")
    card = draft.card("harvest")
    assert card is not None and card.error is None and draft.committable
    assert card.rolls[0].notation == "2d6" and card.rolls[0].faces == would_be(toy, "harvest", "harvest", "2d6", 1)
    res = sheet_cards.result_html(s, card, draft)
    assert "Re-rolled (GM ruling: the wrong crop was picked)" in res and f"it showed {face}" in res


def test_a_re_roll_is_in_the_log_of_the_month_after_commit(toy: Path) -> None:
    run(toy, press={"n": 1, "act": "roll", "step": "harvest", "key": "harvest"})
    before = would_be(toy, "harvest", "harvest", "1d6")
    run(toy, press={"n": 1, "act": "reroll", "step": "harvest", "key": "harvest", "reason": "gm",
                    "note": "cocked die", "nonce": "0"})
    after = would_be(toy, "harvest", "harvest", "1d6", 1)
    run(toy, commit=1)
    camp = Campaign.open(toy)
    assert camp.next_turn() == 3
    rr = [e for e in camp.events() if e.type == "core.dice_rerolled"]
    assert len(rr) == 1 and rr[0].turn == 2 and rr[0].phase == "harvest"
    p = rr[0].payload
    assert (p.reason, p.note, p.faces_before, p.faces_after) == ("gm", "cocked die", before, after)  # type: ignore


def test_typed_faces_count_as_rolled_and_roll_all_rolls_the_rest(toy: Path, spy: list[tuple[str, str]]) -> None:
    defs = run(toy, press={"n": 1, "act": "faces", "step": "harvest", "key": "harvest", "faces": "5"})
    roll = defs["draft"].card("harvest").rolls[0]
    assert (roll.faces, roll.manual) == ((5,), True) and defs["draft"].committable
    assert re.search(r"\(typed\)", sheet_cards.result_html(defs["session"], defs["draft"].card("harvest"),
                                                           defs["draft"]))


def test_roll_all_on_the_demo_rolls_every_check_in_order(tmp_path: Path) -> None:
    from nb_support import copy_demo

    folder = copy_demo(tmp_path / "stolen-lands")
    s, _ = sheet.open_session(folder)
    assert s is not None
    s.update(dict(s.widgets().value))
    assert s.draft is not None and s.draft.waiting is not None
    draft = s.roll_all()
    assert draft.waiting is None and draft.ok, draft.refused and draft.refused.error
    rolled = {sid: set(sp.rolled) for sid, sp in draft.plan.steps.items() if sp.rolled}
    assert rolled and all(keys for keys in rolled.values())
    assert sheet.commit(s, draft).kind == "success"  # type: ignore[union-attr]
