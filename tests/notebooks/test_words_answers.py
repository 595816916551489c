"""The orders page's answers in words: a candidate's "hire"/"pass" (signoria §4.6, decide's opening question) is
offered as "Hire (1 wealth, one slot)", "Pass", as the sheet's dropdowns show a lone word (``option_text``); they read
"hire", "pass". What the answer stores is the option's value, as it was."""

from __future__ import annotations

import json
from typing import Any, cast

from kingdomlog.app.pbp import Posted
from kingdomlog.core.core_events import QuestionOption
from kingdomlog.views import orders


def _question(answered: bool = False) -> Posted:
    return Posted(turn=2, id="candidate:t2.c1", to="marburg", kind="candidate", prompt="Hire Bianca?", step="opening",
                  path=("candidates", "t2.c1"), default="pass", deadline=None, posted_seq=1, answered=answered,
                  answer="hire" if answered else None,
                  options=(QuestionOption(value="hire", label="hire", detail="1 wealth, one slot"),
                           QuestionOption(value="pass", label="pass"), QuestionOption(value="wait_and_see"),
                           QuestionOption(value="open", label="open the granaries")))


def test_a_lone_word_answer_is_offered_with_its_capital() -> None:
    start = cast(Any, {"questions": [_question()], "closed": False})
    box = orders.questions_form(start)["candidate:t2.c1"]
    assert list(box.options) == ["Hire (1 wealth, one slot)", "Pass", "wait and see", "open the granaries"]
    assert [json.loads(v) for v in box.options.values()] == ["hire", "pass", "wait_and_see", "open"]
    assert orders.question_value(box.value) == "pass"  # the default picked, its value stored as it was
    assert "(else: Pass)" in orders.question_html(_question())
    answered = cast(Any, {"questions": [_question(answered=True)], "closed": False})
    assert "<b>Hire</b>" in orders.questions_html(answered)
