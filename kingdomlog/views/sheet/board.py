"""The battle board (issue 30): a step that plays battles drawn as the battles it plays, beside its card's widgets.

For each battle (``Ruleset.boards``, a ``core.board.Board``): the armies of each side side by side, with their
statistics and conditions in words (the state before the step); then round by round every war action, rout check
and damage in words, each check with the chance of each degree (``dice.odds``, the kernels every check uses) and,
once rolled, its faces and the degree the kernel reads from them; after each round what it did; and once the step
has run, what the battle did (HP, conditions, routs, the winner). The check the step waits for comes last, with
its odds (its Roll button is the card's). Nothing is computed here: it is all the step's preview.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kingdomlog.core.board import Board, Line, Unit
from kingdomlog.dice.checks import CheckSpec
from kingdomlog.dice.odds import odds
from kingdomlog.dice.roller import Roll
from kingdomlog.views.html import EMPTY, Html, h, join, style
from kingdomlog.views.words import check_title

CSS = """
.kl-board{border:1px solid #c9b98f;border-radius:6px;padding:.5rem .7rem;margin:.4rem 0;background:#fffdf6}
.kl-board h3{margin:.1rem 0 .4rem;font-size:1.05rem}
.kl-board-sides{display:grid;grid-template-columns:1fr 1fr;gap:.6rem}
.kl-board-side h4{margin:.1rem 0 .3rem;font-size:.95rem}
.kl-unit{border:1px solid #ddd;border-radius:4px;padding:.3rem .45rem;margin-bottom:.3rem;background:#fff}
.kl-unit-name{font-weight:600}.kl-unit-stats{font-size:.85rem}.kl-unit-cond{font-size:.85rem;color:#8a3b12}
.kl-unit-note{font-size:.8rem;color:#555}
.kl-board-round{margin-top:.45rem}.kl-board-round h4{margin:.1rem 0 .2rem;font-size:.92rem}
.kl-board-line{font-size:.88rem;margin:.1rem 0 .1rem .4rem}
.kl-board-odds{font-size:.78rem;color:#555;margin-left:.6rem}
.kl-board-after{font-size:.86rem;font-style:italic;margin:.15rem 0 0 .4rem}
.kl-board-outcome{margin-top:.45rem;font-size:.9rem}.kl-board-next{font-size:.88rem;margin-top:.4rem}
@media (max-width:600px){.kl-board-sides{grid-template-columns:1fr}}
"""


def odds_words(spec: CheckSpec) -> str:
    """The chance of each degree of a check in one line (the impossible ones left out).

    >>> odds_words(CheckSpec("pf2e", modifier=9, dc=20))
    'critical failure 5.0% · failure 45.0% · success 45.0% · critical success 5.0%'
    >>> odds_words(CheckSpec("total", modifier=11))
    'no DC, so no odds before the roll'
    """
    try:
        got = odds(spec)
    except Exception as exc:  # a check the kernels refuse: say so, keep the board
        return f"odds not available: {exc}"
    return " · ".join(f"{o.label} {o.percent}" for o in got.outcomes if o.chance > 0) or got.note


def _unit(u: Unit) -> Html:
    return h("div", h("div", u.name, class_="kl-unit-name"), h("div", " · ".join(u.stats), class_="kl-unit-stats"),
             h("div", ", ".join(u.conditions), class_="kl-unit-cond") if u.conditions else None,
             h("div", u.note, class_="kl-unit-note") if u.note else None, class_="kl-unit", data_army=u.id)


def _line(x: Line, checks: Mapping[str, CheckSpec], rolls: Mapping[str, Roll]) -> Html:
    spec = checks.get(x.key) if x.key else None
    chance = None
    if spec is not None:
        chance = h("div", "chances: ", odds_words(spec), class_="kl-board-odds")
    if not x.army and not x.key:  # what the round did
        return h("div", x.text, class_="kl-board-after")
    return h("div", x.text, chance, class_="kl-board-line", data_army=x.army, data_roll=x.key or None)


def board_html(board: Board, checks: Mapping[str, CheckSpec], rolls: Sequence[Roll], pending: Any = None, *,
               ruleset: Any = None) -> Html:
    """One battle: its sides side by side, its rounds, the check it waits for (titled in words as its card is:
    ``views.words.check_title``, ``ruleset``'s own ``Ruleset.check_title`` first), its outcome."""
    by_key = {r.key: r for r in rolls}
    sides = h("div", (h("div", h("h4", s.label), (_unit(u) for u in s.units), class_="kl-board-side")
                      for s in board.sides), class_="kl-board-sides")
    rounds = [h("div", h("h4", board.round_title(n)), (_line(x, checks, by_key) for x in board.lines if x.round == n),
                class_="kl-board-round", data_round=n) for n in board.rounds]
    nxt = None
    if pending is not None and pending.key in checks:
        spec = checks[pending.key]
        nxt = h("div", h("b", "Next to roll: "), check_title(pending.key, spec, ruleset),
                h("div", "chances: ", odds_words(spec), class_="kl-board-odds"), class_="kl-board-next")
    outcome = h("div", h("b", "Outcome"), h("ul", (h("li", t) for t in board.outcome)), class_="kl-board-outcome") \
        if board.outcome else None
    return h("section", h("h3", board.title), sides, rounds, nxt, outcome, class_="kl-board", data_board=board.id)


def step_boards_html(ruleset: Any, card: Any) -> Html:
    """The boards of a card whose step plays battles (``Ruleset.boards``), or nothing.

    ``card``: a ``views.sheet.draft.Card`` (the state before the step, its choices, rolls, checks, events).
    """
    boards = ruleset.boards(card.before, card.step.id, card.choices, card.rolls, card.checks, card.drafts)
    if not boards:
        return EMPTY
    return join([style(CSS), *(board_html(b, card.checks, card.rolls, card.pending, ruleset=ruleset) for b in boards)])
