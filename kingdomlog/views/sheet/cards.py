"""The turn sheet's step cards: each step's widgets on the left, what it does on the right, in words.

A card shows, for one step: its title and help; each check with its modifier, DC and the
exact chance of each outcome (``kingdomlog.dice.odds``, before the dice), then the roll
(faces, total against the DC, the outcome); the other dice; the outcome in words (the
figures the step changes, ``Unrest 3 → 2``); the step's own breakdown; the events it
will record (folded away). A refused step says so in a box naming the rule and what to
change, and its error also sits at the widget that caused it. Steps after a refused
one are marked provisional. What the last edit changed is highlighted.

A roll has its moment (design §5): a check not rolled yet shows its odds and a **Roll**
button (or a box for the faces of physical dice); once rolled, the faces, the total against
the DC and the outcome, a lock saying its choices are fixed, and **Re-roll…** (why: a re-roll
the rules give, or a GM ruling with a note). The buttons are plain HTML marked ``data-kl-act``;
``views.sheet.live``'s ``RollPad`` sends each click to ``SheetSession.update(press=...)``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

import marimo as mo

from kingdomlog.core.choices import FieldSpec
from kingdomlog.core.events import Draft
from kingdomlog.core.memo import ByIdentity
from kingdomlog.core.ruleset import Breakdown
from kingdomlog.core.turn import check_of, check_print, check_words
from kingdomlog.dice.checks import CheckSpec
from kingdomlog.dice.odds import Odds, Outcome, odds, resolve
from kingdomlog.dice.roller import Roll
from kingdomlog.views import forms as sf
from kingdomlog.views.forms import FieldError
from kingdomlog.views.html import EMPTY, Html, h, join, marimo_html, roll_mark, scalar, style
from kingdomlog.views.sheet.board import step_boards_html
from kingdomlog.views.sheet.draft import Card, SheetDraft, SheetSession
from kingdomlog.views.words import (
    ONE_ID,
    Namer,
    check_name,
    check_title,
    figure_label,
    headed,
    help_words,
    id_words,
    namer,
    refusal_words,
    roll_name,
    summary_of,
    visibility_words,
    words,
)
from kingdomlog.views.words import dc_against as _against


def _num(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v)


def changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
    """The figures that differ between two summaries, as ``(name, old, new)``."""
    return [(k, before.get(k), v) for k, v in after.items() if before.get(k) != v]


def change_words(before: Mapping[str, Any], after: Mapping[str, Any]) -> str:
    """``Unrest 3 → 2 · RP 10 → 14 (+4)``; empty when nothing changed.

    >>> change_words({"unrest": 3, "rp": 10, "fame": 1}, {"unrest": 2, "rp": 14, "fame": 1})
    'Unrest 3 → 2 (−1) · RP 10 → 14 (+4)'
    """
    parts = []
    for k, old, new in changes(before, after):
        a, b = _num(old), _num(new)
        delta = ""
        if a is not None and b is not None:
            d = b - a
            delta = f" ({'+' if d > 0 else '−'}{abs(d):g})"
        parts.append(f"{words(k)} {scalar(old)} → {scalar(new)}{delta}")
    return " · ".join(parts)


# ---- checks and dice --------------------------------------------------------------------------

_GOOD = ["kl-o0", "kl-o1", "kl-o2", "kl-o3", "kl-o4"]


def odds_html(o: Odds) -> Html:
    """The chance of each outcome as a bar and a list (``critical success 5.0%``)."""
    n = len(o.outcomes)

    def tone(x: Outcome) -> str:
        return _GOOD[min(4, round(x.good * 4 / max(1, n - 1)))]

    bar = (h("span", class_=f"kl-seg {tone(x)}", style=f"width:{float(x.chance) * 100:.2f}%",
             title=f"{x.label} {x.percent}") for x in o.outcomes if x.chance > 0)
    items = (h("li", h("span", class_=f"kl-dot {tone(x)}"), x.label, " ", h("b", x.percent), data_outcome=x.label)
             for x in _compact(list(o.outcomes)))
    return h("div", h("div", bar, class_="kl-bar"), h("ul", items, class_="kl-chances"),
             h("div", o.note, class_="kl-help") if o.note else None, class_="kl-odds")


def _compact(outcomes: list[Any]) -> list[Any]:
    """Drop the impossible outcomes at either end (a PF2e check that cannot critically fail lists three)."""
    while len(outcomes) > 2 and outcomes[0].chance == 0:
        outcomes = outcomes[1:]
    while len(outcomes) > 2 and outcomes[-1].chance == 0:
        outcomes = outcomes[:-1]
    return outcomes


def _name_of(session: SheetSession | None) -> Callable[[str, str], str] | None:
    """The ruleset's names in words (``Ruleset.name_of``), when the card is drawn for a sheet."""
    return session.start.camp.ruleset.name_of if session is not None else None


def _ruleset(session: SheetSession | None) -> Any:
    """The sheet's ruleset (its ``check_title``), when the card is drawn for a sheet."""
    return session.start.camp.ruleset if session is not None else None


def roll_result_html(roll: Roll, spec: CheckSpec | None, name: str = "") -> Html:
    """The roll: faces, total (against the DC) and the outcome the kernel reads from it; ``name``: what a roll
    that is no check rolls (``views.words.roll_name``)."""
    faces = ", ".join(str(f) for f in roll.faces)
    kept = "" if tuple(roll.kept) == tuple(roll.faces) else f" kept {', '.join(str(k) for k in roll.kept)}"
    mark = roll_mark(roll, reroll="re-roll {}")
    dice = [h("span", f"⚄ {faces}", class_="kl-faces"), kept]
    if spec is None:
        return h("div", f"{name or words(roll.key)}, {roll.notation}: ", dice, " = ", h("b", roll.total), mark,
                 class_="kl-roll")
    out = resolve(spec, roll)
    said = [" → ", h("b", out.label, class_="kl-degree", data_degree=out.label)] if out else None
    if spec.kind in ("pf2e", "d20", "5e", "total"):
        die = sum(roll.kept)
        return h("div", "Rolled ", dice, f": {die} {spec.modifier:+d} = ", h("b", die + spec.modifier),
                 _against(spec) if spec.kind != "total" else None,
                 said, mark, class_="kl-roll")
    if spec.kind == "2d6":
        return h("div", "Rolled ", dice, ": total ", h("b", sum(roll.kept) + spec.modifier), said, mark,
                 class_="kl-roll")
    return h("div", "Rolled ", dice, said, mark, class_="kl-roll")


def _act(label: str, act: str, card: Card, key: str = "", **attrs: Any) -> Html:
    """A button of the page's dice (``data-kl-act``; ``views.sheet.live.RollPad`` sends its click)."""
    return h("button", label, type="button", class_=f"kl-act kl-act-{act}", data_kl_act=act, data_kl_step=card.id,
             data_kl_key=key, **attrs)


def roll_button_html(card: Card, key: str, notation: str) -> Html:
    """Roll (drawn on the server when pressed), or the faces of physical dice typed instead."""
    die = notation[1:] if notation.startswith("1d") else notation
    return h("div", _act(f"⚄ Roll {die}", "roll", card, key, title="Roll this check now"),
             h("span", "or your dice:", class_="kl-or"),
             h("input", type="text", class_="kl-faces-in", data_kl_faces=True, size=7, placeholder="e.g. 14",
               aria_label=f"faces of your {die} for {words(key)}", inputmode="numeric"),
             _act("Use these", "faces", card, key, title="Take the faces of your physical dice as the roll"),
             class_="kl-rollbar")


def reroll_html(session: SheetSession, card: Card, key: str) -> Html:
    """Re-roll…: why (the re-rolls the rules give, a GM ruling with a note), optional physical dice, the button."""
    reasons = session.reroll_reasons(card, key)
    options = [h("option", f"{r.label}" + (f" — {r.detail}" if r.detail else ""), value=r.id) for r in reasons]
    sp = session.plan.steps.get(card.id)
    nonce = sp.rerolls.get(key, 0) if sp is not None else 0  # a second click on the same button re-rolls nothing
    return h("details", h("summary", "Re-roll…"),
             h("div", h("label", "Why: ", h("select", options, data_kl_reason=True, class_="kl-reason")),
               h("input", type="text", data_kl_note=True, class_="kl-note-in", maxlength=300,
                 placeholder="note (a GM ruling says why)", aria_label="why it is rolled again"),
               h("input", type="text", data_kl_faces=True, class_="kl-faces-in", size=7,
                 placeholder="your dice (optional)", aria_label="faces of physical dice for the re-roll"),
               _act("⚄ Re-roll", "reroll", card, key, data_nonce=nonce), class_="kl-reroll-form"),
             class_="kl-reroll", data_reroll=key)


def _history(session: SheetSession, card: Card, key: str) -> Html:
    """The re-rolls already made of ``key``: why, and the faces each replaced."""
    sp = session.plan.steps.get(card.id)
    done = sp.reroll_reasons.get(key, []) if sp is not None else []
    if not done:
        return EMPTY
    labels = {r.id: r.label for r in session.reroll_reasons(card, key)}
    items = (h("li", f"Re-rolled ({labels.get(r.reason, r.reason)}{': ' + r.note if r.note else ''})",
               f" — it showed {', '.join(str(f) for f in r.before)}" if r.before else "") for r in done)
    return h("ul", items, class_="kl-rerolls")


def _locked(session: SheetSession, card: Card, key: str) -> bool:
    sp = session.plan.steps.get(card.id)
    return sp is not None and key in sp.rolled and not card.provisional


def _odds(spec: CheckSpec) -> Html:
    try:
        return odds_html(odds(spec))
    except Exception as exc:  # a spec the kernels refuse: say so, keep the card
        return h("div", f"odds not available: {exc}", class_="kl-error")


def dice_html(card: Card, session: SheetSession | None = None) -> Html:
    """Every roll of the step: checks with their odds first, then the other dice; the roll it waits for last.

    With ``session`` (the sheet), a rolled check is marked locked with its Re-roll…, and the roll the
    step waits for has its Roll button; its face does not exist yet.
    """
    parts = []
    for r in card.rolls:
        spec = card.checks.get(r.key)
        by = next((pl for pl in card.placed if pl.owns(r.key)), None)
        lock = session is not None and _locked(session, card, r.key)
        extra: Any = [h("div", "🔒 Rolled: the choices it was rolled with are locked; changing one needs a re-roll.",
                        class_="kl-locked"), _history(session, card, r.key), reroll_html(session, card, r.key)] \
            if lock and session is not None else None
        if by is not None and r.key in by.typed:  # a player's row: theirs as rolled, decided in the Table panel
            lock, extra = True, h("div", f"🔒 Rolled at the table by {by.name}: their row as they rolled it. Re-roll it"
                                         " by your ruling, or send it back, in the Table panel.", class_="kl-locked")
        who = h("span", f" · proposed by {by.name}", class_="kl-by", data_by=by.proposal.player) \
            if by is not None else None
        if spec is None:
            named = roll_name(r.key, card.checks, _name_of(session))
            parts.append(h("div", roll_result_html(r, None, named), who, extra, class_="kl-dice", data_roll=r.key))
            continue
        parts.append(h("div", h("div", check_title(r.key, spec, _ruleset(session)), who, class_="kl-check-title"),
                       _odds(spec),
                       roll_result_html(r, spec), extra, class_="kl-check kl-check-rolled" if lock else "kl-check",
                       data_roll=r.key))
    pending = card.pending
    if pending is not None:
        key, spec = pending.key, card.checks.get(pending.key)
        title = check_title(key, spec, _ruleset(session)) if spec is not None \
            else f"{roll_name(key, card.checks, _name_of(session))}: {pending.notation}"
        if card.provisional:
            act: Html = h("div", "Rolled once the refused step above is fixed.", class_="kl-empty")
        elif card.waiting is None and session is not None:
            act = roll_button_html(card, key, pending.notation)
        else:
            act = EMPTY
        parts.append(h("div", h("div", title, class_="kl-check-title"), _odds(spec) if spec is not None else None,
                       act, class_="kl-check kl-check-pending", data_roll=key, data_pending=key))
    return join(parts)


# ---- the outcome ------------------------------------------------------------------------------


def event_words(d: Draft, name_of: Callable[[str, str], str] | None = None,
                names: Mapping[str, str] | None = None, player_name: Callable[[str], str] | None = None) -> Html:
    """One event as a short line: its type in words and its main fields (ids by the ruleset's names, or a state's
    ``views.words.Namer``, which names its records too; ``names``: a player's, by actor id, for the acts of a row
    the table proposed), and who may read it unless everyone (``player_name``: a player's name by id). Records
    inside a field are said as the kingdom panel says them (``views.sheet.panel.field_said``: "1 line", "response
    (tactic hold)"; signoria's income read ``lines [{"source": "province:fabia", "amount": 1}]``).

    >>> from kingdomlog.rulesets.signoria import events as ev
    >>> line = event_words(Draft(ev.IncomeCredited(faction="fabian", lines=({"source": "province:fabia",
    ...                                                                     "amount": 1},), total=1), turn=8),
    ...                    lambda i, kind="": {"fabian": "Duke Fabian"}.get(i, i))
    >>> re.sub("<[^>]+>", "", str(line))
    'Income credited: faction Duke Fabian, 1 line, total 1'
    """
    from kingdomlog.views.sheet.panel import field_said

    def say(x: str) -> str:  # a value inside a list or record: an id as the state or the ruleset names it
        if isinstance(name_of, Namer):
            return name_of.value(x)
        return str(id_words(x, name_of)) if name_of is None or not ONE_ID.fullmatch(x) else name_of(x, "") or x

    name = words(d.type.split(".", 1)[-1])
    payload = d.payload.model_dump(mode="json")
    bits = []
    for k, v in payload.items():
        if k in ("terms", "dc_terms") or v in (None, "", [], {}):
            continue
        if isinstance(v, (list, tuple, dict)):  # a list or a record: in words, never as JSON
            said = field_said(k, v, say)
            if re.fullmatch(r"[a-z ]+ \d+ items?", said):  # "outcome 1 item": records nothing names, counted,
                continue  # tell a person nothing (aikakirjat's outcome, audit and dice read as JSON)
            bits.append(said if len(said) <= 70 else said[:67] + "…")
            if len(bits) >= 6:
                break
            continue
        text = scalar(id_words(v, name_of))
        if isinstance(v, str) and re.fullmatch(r"[A-Z][A-Z_ ]{3,}", v):  # an enum's value in capitals as a word:
            text = v.replace("_", " ").capitalize()  # pf1's check outcome "Unrest up" (it read "UNREST UP")
        # a value the ruleset says by its field, an id (pf1's hex "h11" is "hex 11"; words are kept: signoria's
        # year label "Winter 216-217" read "Winter 216 217")
        said = name_of(v, f"field:{k}") if name_of is not None and isinstance(v, str) and ONE_ID.fullmatch(v) else ""
        if said and said not in (text, v):
            text = said
        if len(text) > 60:
            text = text[:57] + "…"
        key = words(k).lower()
        bits.append(text if text.startswith(key + " ") else f"{key} {text}")  # "hex 11", not "hex hex 11"
        if len(bits) >= 6:
            break
    who = (lambda pid, _kind: player_name(pid)) if player_name is not None else None
    vis = None if d.visibility == "public" else [" ", h("span", f"({visibility_words(d.visibility, who)})",
                                                       class_="kl-vis")]
    by = [" ", h("span", f"by {names[d.actor]}", class_="kl-by")] if names and d.actor in names else None
    return h("li", h("b", name), by, vis, ": ", ("; " if any(", " in b for b in bits) else ", ").join(bits))


def moved_checks(card: Card, placed: Any) -> list[str]:
    """The checks of an accepted row whose numbers differ in the month as played from those its player rolled
    against (their own view of the kingdom; an earlier row of the month may have moved a figure), in words."""
    out = []
    for theirs_key, key in placed.keys.items():
        theirs = placed.proposal.checks.get(theirs_key)
        ours = card.checks.get(key)
        spec = check_of(theirs) if theirs else None
        if spec is None or ours is None or (spec.modifier, spec.dc) == (ours.modifier, ours.dc):
            continue
        now = check_words(check_print(ours, str(theirs.get("notation", "1d20")))) if theirs else ""
        out.append(f"rolled at the table as {check_words(theirs or {})}, resolved in the month as played as {now}")
    return out


def table_rows_html(card: Card) -> Html:
    """The rows of the step the GM accepted at the table: each in words, its player, its roll and outcome (and
    where a check's numbers moved since the player rolled it: the same faces, resolved in the month as played)."""
    if not card.placed:
        return EMPTY
    items = (h("li", h("b", pl.proposal.title or pl.proposal.id), f" — proposed by {pl.name}",
               [": ", pl.proposal.outcome] if pl.proposal.outcome else None,
               [h("div", f"⚠ {w}", class_="kl-moved") for w in moved_checks(card, pl)] or None,
               data_table_row=pl.proposal.id)
             for pl in card.placed)
    return h("div", h("div", "From the table (accepted; the players' own rows, as they rolled them):",
                      class_="kl-table-rows-title"), h("ul", items), class_="kl-table-rows")


def _namer(session: SheetSession, card: Card) -> Callable[[str], str]:
    """The ids of the card's labels in words, named from the state the step starts from."""
    return namer(session.start.ruleset, card.before).text


def breakdown_html(items: Sequence[Breakdown], name: Callable[[str], str] | None = None) -> Html:
    """The numbers this step used, term by term; ``name`` says the ids in a label in words (a
    ``views.words.Namer``'s ``text``: ``o1 (hire_troops)`` → ``o1 (hire troops)``). Each is headed by its name
    with its capital, as the panel and the report name a figure (``Growth DC``, ``Bureaucracy``)."""
    say: Callable[[str], str] = name or (lambda x: x)
    return join(h("div", h("b", headed(say(b.name))), f" = {b.total:g}",
                  h("ul", (h("li", say(t.label), " ", h("b", f"{t.value:+g}"),
                             [" ", h("i", t.kind)] if t.kind != "untyped" else None) for t in b.terms)),
                  h("div", b.note, class_="kl-help") if b.note else None, class_="kl-bd") for b in items)


def outcome_html(session: SheetSession, card: Card, draft: SheetDraft) -> Html:
    """What the step changes, in words, the figures the last edit moved highlighted; a figure named as the panel's
    tile names it (``views.words.figure_label``: signoria's "Duke Fabian's wealth 3 → 4"; it read "Fabian wealth")."""
    rs = session.start.ruleset
    if card.after is None:
        return EMPTY
    before, after = summary_of(rs, card.before), summary_of(rs, card.after)
    moved = changes(before, after)
    prev = draft.previous.get(card.id)
    prev_after = summary_of(rs, prev.after) if prev is not None and prev.after is not None else None
    if not moved:
        text = "no figure changes" if card.drafts else "nothing happens in this step"
        return h("div", h("span", text, class_="kl-empty"), class_="kl-outcome")
    parts = []
    names = namer(rs, card.before).names
    for k, old, new in moved:
        a, b = _num(old), _num(new)
        delta = None
        if a is not None and b is not None:
            d = b - a
            delta = [" ", h("span", f"({'+' if d > 0 else '−'}{abs(d):g})", class_="kl-delta")]
        hot = prev_after is not None and card.id in draft.changed_steps and prev_after.get(k) != new
        was = [" ", h("span", f"was {scalar(id_words(prev_after.get(k), rs.name_of))}", class_="kl-was")] \
            if hot and prev_after else None
        parts.append(h("span", f"{figure_label(rs, names, k)} {scalar(id_words(old, rs.name_of))} → ",
                       h("b", scalar(id_words(new, rs.name_of))), delta, was,
                       class_="kl-fig kl-hot" if hot else "kl-fig", data_figure=k))
    return h("div", join(parts, " · "), class_="kl-outcome")


def _hint(session: SheetSession, card: Card) -> str:
    if card.placed:  # the rows the rules refuse may be the table's, which the card cannot change
        names = ", ".join(dict.fromkeys(pl.name for pl in card.placed))
        return (f"This step holds rows accepted at the table ({names}): if the rules refuse one of them, send it back"
                " (or re-roll it by your ruling) in the Table panel; change your own rows on the left.")
    if "was rolled" in (card.error or ""):
        return "Put it back as it was rolled, or roll the check again: Re-roll… beside its roll, with why."
    path = _error_at(card)
    if path and path[0] == "dice":
        return (f"Change or clear the faces typed for {_roll_words(session, card, str(path[1]))} (under “Type"
                " physical dice”), or re-roll it.")
    if path:
        spec = _spec_at(card.form.specs if card.form else (), path)
        label = spec.label if spec is not None else ".".join(str(p) for p in path)
        return f"Change “{label}” (marked on the left)."
    return "Change this step's choices on the left, or an earlier step whose result it depends on."


def result_html(session: SheetSession, card: Card, draft: SheetDraft) -> Html:
    """The right side of a card: dice and odds, outcome, breakdown, events; or the refusal."""
    parts = []
    if card.provisional:
        ref = draft.refused
        which = f"step {ref.index + 1} ({ref.step.title})" if ref else "an earlier step"
        parts.append(h("div", f"Provisional: {which} is refused, so this is what this step would do from the state"
                              " before it. It is not committed until that step is fixed.", class_="kl-provisional"))
    if card.not_computed:
        parts.append(h("div", f"Not computed: {card.not_computed}", class_="kl-empty"))
    notice = session.notices.get(card.id)
    if notice:
        parts.append(h("div", notice, class_="kl-notice", role="status"))
    parts.append(table_rows_html(card))
    if card.waiting is not None:
        at = draft.cards[card.waiting] if card.waiting < len(draft.cards) else None
        which = f"step {at.index + 1} ({at.step.title})" if at is not None else "an earlier step"
        parts.append(h("div", f"After the roll: {which} waits for its roll, and this step comes after it.",
                       class_="kl-waiting"))
        return join(parts)
    parts.append(step_boards_html(session.start.ruleset, card))  # a step that plays battles: its battle board
    parts.append(dice_html(card, session))
    if card.pending is not None:
        if not card.provisional:
            parts.append(h("div", "Declared, not rolled: nothing of this step is recorded until it is rolled, and the"
                                  " steps after it wait.", class_="kl-waiting"))
        if card.breakdowns:
            parts.append(h("details", h("summary", "How the numbers are made"),
                           breakdown_html(card.breakdowns, _namer(session, card)),
                           class_="kl-details", open=True))
        return join(parts)
    if card.error:
        msg = refused_words(session, card)
        path = _error_at(card)
        if path and path[0] != "dice" and msg.startswith("choice "):  # the field in words, not as a path
            msg = f"{sf.path_label(card.form.specs if card.form else (), path)}: {msg.split(': ', 1)[-1]}"
        head = "Rolled already." if "was rolled" in msg else "Refused by the rules."
        parts.append(h("div", h("b", head), " ", msg,
                       h("div", "Rule: ", h("b", card.rule)) if card.rule else None,
                       h("div", _hint(session, card), class_="kl-hint"), class_="kl-refused"))
        return join(parts)
    parts.append(outcome_html(session, card, draft))
    if card.breakdowns:
        parts.append(h("details", h("summary", "How the numbers are made"),
                       breakdown_html(card.breakdowns, _namer(session, card)),
                       class_="kl-details", open=True))
    if card.drafts:
        names = {pl.proposal.player: pl.name for pl in card.placed}
        n = len(card.drafts)
        parts.append(h("details", h("summary", f"{n} event{'' if n == 1 else 's'} this step records"),
                       h("ul", (event_words(d, namer(session.start.ruleset, card.before) if session is not None
                                            else None, names,
                                            session.start.camp.player_name if session is not None else None)
                                for d in card.drafts),
                         class_="kl-evlist"), class_="kl-details"))
    return join(parts)


# ---- the card with its widgets ------------------------------------------------------------------


def _roll_words(session: SheetSession | None, card: Card, key: str) -> str:
    """A roll of the card in words: its check's name, else what the ruleset says it rolls, else its dice."""
    check = card.checks.get(key)
    if check is not None:
        return check_name(key, check)
    named = roll_name(key, card.checks, _name_of(session))
    if named.lower() != key.lower() and named != words(key):
        return named
    slot = next((d for d in card.form.dice if d.key == key), None) if card.form is not None else None
    return f"the roll of {slot.notation}" if slot is not None else "the roll"


def refused_words(session: SheetSession | None, card: Card) -> str:
    """The card's refusal as the GM reads it: without the step's key or the rule (shown apart), the ids it quotes or
    lists said by their names in the state the step starts from (``words.refusal_words``: *Cesare*, not
    ``'cesare'``); the choice it is about kept, to place it at its field."""
    msg = re.sub(r"\s*\(rule: [^)]+\)$", "", card.error or "")
    msg = re.sub(r"^step '[^']*', roll '([^']+)':\s*",
                 lambda m: f"The faces typed for {_roll_words(session, card, m.group(1))}: ", msg)
    msg = re.sub(r"^((?:step '[^']*':\s*)?choice [\w.\[\]]+) is required$", r"\1: needed, choose or give one", msg)
    return refusal_words(msg, namer(session.start.ruleset, card.before) if session is not None else None)


def _error_at(card: Card) -> tuple[Any, ...] | None:
    """Where the card's refusal belongs among its widgets (an army's line of a mapping shown as rows too)."""
    if card.form is None:
        return sf.error_path(card.error or "")
    return sf.placed_path(card.form.specs, card.form.values, card.error or "")


def _spec_at(specs: Sequence[FieldSpec], path: tuple[Any, ...]) -> FieldSpec | None:
    cur: Sequence[FieldSpec] = specs
    found: FieldSpec | None = None
    for part in path:
        if isinstance(part, int):
            continue
        found = next((s for s in cur if s.name == part), None)
        if found is None:
            return None
        cur = found.fields
    return found


def _error_box(messages: Sequence[str]) -> Any:
    return mo.Html(join(h("div", f"⚠ {m}", class_="kl-field-error", role="alert") for m in messages))


class _Errors:
    """The step's errors by path; ``take(path)`` hands out those for one widget."""

    def __init__(self, errors: Sequence[FieldError]) -> None:
        self.by_path: dict[tuple[Any, ...], list[str]] = {}
        for e in errors:
            self.by_path.setdefault(tuple(e.path), []).append(e.message)

    def take(self, path: tuple[Any, ...]) -> list[str]:
        return self.by_path.pop(path, [])

    def rest(self) -> list[str]:
        out = [m for ms in self.by_path.values() for m in ms]
        self.by_path.clear()
        return out


def folded_fields(spec: FieldSpec, fields: Sequence[FieldSpec], given: Mapping[str, Any],
                  main: AbstractSet[str] | None = None) -> list[FieldSpec]:
    """The fields of an entry folded under "More" (those not shown at once: ``forms.primary``). A field the chosen
    kind does not use (``FieldSpec.unused``) is left out, not folded (a treaty effect's "More: faction, resource,
    delta, value, …"), unless it holds a value (given before the kind changed: seen, to clear)."""
    main = sf.primary(spec, fields, given) if main is None else main
    return [f for f in fields if f.name not in main and not (f.unused and not sf.holds_value(f, given))]


def more_title(labels: Sequence[str], most: int) -> str:
    """The title of the fields folded away, the first ``most`` named by their labels inside the sentence
    (``More: who performs it, the PC's bonus, …``)."""
    return "More: " + ", ".join(sf.lower_label(x) for x in labels[:most]) + (", …" if len(labels) > most else "")


def _entry_view(spec: FieldSpec, fields: Sequence[FieldSpec], elems: Any, given: Mapping[str, Any],
                path: tuple[Any, ...], errors: _Errors, extra: Sequence[Any] = (), state: Any = None) -> Any:
    """One entry (a row, a group, a variant): its main fields in a line, the others folded under "more"."""
    main = sf.primary(spec, fields, given)
    shown = [f for f in fields if f.name in main and f.name in elems]
    folded = [f for f in folded_fields(spec, fields, given, main) if f.name in elems]
    cells = [_field_view(f, elems[f.name], (*path, f.name), errors, given.get(f.name), state) for f in shown]
    line = _grid([*cells, *extra])
    parts: list[Any] = [line]
    names_ = {f.name for f in fields}
    if state is not None and {"block", "lots"} <= names_ and ({"block", "lots"} & main):
        hint = lot_picker_html(state, given)
        if hint:
            parts.append(mo.Html(hint))
    if folded:
        inner = [_field_view(f, elems[f.name], (*path, f.name), errors, given.get(f.name), state) for f in folded]
        parts.append(mo.accordion({more_title([f.label for f in folded], 6): _grid(inner)}))
    mine = errors.take(path)
    if mine:
        parts.append(_error_box(mine))
    return mo.vstack(parts, gap=0.2)


_DUMPS: ByIdentity[Any, dict[str, Any]] = ByIdentity(limit=1)


def _dump(state: Any) -> dict[str, Any]:
    return _DUMPS.get(state, lambda s: s.model_dump(mode="json"))


def lot_picker_html(state: Any, given: Mapping[str, Any]) -> Html:
    """The urban grid of the entry's settlement (a record of the state with ``blocks``), the chosen block
    and lots marked, each lot labelled with the numbers the ``block`` and ``lots`` fields take."""
    grids: list[Mapping[str, Any]] = []
    for value in _dump(state).values():
        rows = value if isinstance(value, list) else list(value.values()) if isinstance(value, dict) else []
        grids += [r for r in rows if isinstance(r, Mapping) and isinstance(r.get("blocks"), list)]
    if not grids:
        return EMPTY
    want = given.get("settlement")
    rec = next((r for r in grids if want is not None and want in (r.get("id"), r.get("name"))), grids[0])
    block, lots = given.get("block"), set(given.get("lots") or [])
    cells = []
    for b, lots_of in enumerate(rec["blocks"]):
        if not isinstance(lots_of, list):
            continue
        inner = (h("div", str(lot)[:12] if lot else f"lot {j}",
                   class_="kl-lot" + (" kl-lot-used" if lot else "") + (" kl-lot-pick" if b == block and j in lots
                                                                        else ""),
                   title=f"block {b}, lot {j}: {lot or 'empty'}") for j, lot in enumerate(lots_of))
        cells.append(h("div", h("div", f"block {b}", class_="kl-block-n"), h("div", inner, class_="kl-lots"),
                       class_="kl-block kl-block-pick" if b == block else "kl-block"))
    name = rec.get("name") or rec.get("id") or ""
    return h("details", h("summary", f"Urban grid of {name} (the block and lots picked are marked)"),
             h("div", cells, class_="kl-grid"), class_="kl-lotpick", open=True)


def _grid(items: Sequence[Any]) -> Any:
    """Fields side by side, as many per line as fit, each at least a dropdown wide."""
    return mo.Html(h("div", (h("div", marimo_html(x)) for x in items), class_="kl-entry-grid"))


def _variant_label(spec: FieldSpec, given: Mapping[str, Any]) -> str:
    tag = given.get(spec.discriminator) if spec.discriminator else None
    return next((v.label for v in spec.variants if v.tag == tag), str(tag or ""))


def _field_view(spec: FieldSpec, elem: Any, path: tuple[Any, ...], errors: _Errors, value: Any = None,
                state: Any = None) -> Any:
    """A widget with its help, its option browser and its errors beneath it."""
    items: list[Any] = []
    if spec.kind == "rows" and (spec.fields or spec.variants):
        per = list(spec.entries)
        given_rows = sf.as_entries(spec, value)
        rows = []
        for i, row in enumerate(elem["rows"].items()):
            fields = per[i] if i < len(per) else spec.fields
            given = given_rows[i] if i < len(given_rows) and isinstance(given_rows[i], Mapping) else {}
            head = []
            if spec.variants:
                head = [mo.Html(h("span", _variant_label(spec, given), class_="kl-entry-kind"))]
            remove = mo.Html(h("span", marimo_html(row[sf.REMOVE]), class_="kl-remove",
                               data_remove=".".join(str(p) for p in (*path, i))))
            body = _entry_view(spec, fields, row, given, (*path, i), errors, extra=[remove], state=state)
            rows.append(mo.Html(h("div", marimo_html(mo.vstack([*head, body], gap=0.1)), class_="kl-entry")))
        head_html = mo.Html(h("div", spec.label, class_="kl-rows-label") + sf.help_html(spec))
        add = mo.Html(h("div", marimo_html(elem[sf.ADD]), class_="kl-add", data_add=".".join(str(p) for p in path)))
        items = [head_html, *rows, add]
    elif spec.kind == "rounds" and spec.fields:
        lists = value if isinstance(value, list) else []
        rounds = []
        for i, one in enumerate(elem["rounds"].items()):
            given_round = lists[i] if i < len(lists) and isinstance(lists[i], list) else []
            remove = mo.Html(h("span", marimo_html(one[sf.REMOVE]), class_="kl-remove",
                               data_remove=".".join(str(p) for p in (*path, i))))
            body = _field_view(sf.round_spec(spec, i), one, (*path, i), errors, given_round, state)
            rounds.append(mo.Html(h("div", marimo_html(mo.vstack([body, remove], gap=0.1)), class_="kl-entry")))
        add = mo.Html(h("div", marimo_html(elem[sf.ADD]), class_="kl-add", data_add=".".join(str(p) for p in path)))
        items = [mo.Html(h("div", spec.label, class_="kl-rows-label") + sf.help_html(spec)), *rounds, add]
    elif spec.kind in ("group", "mapping") and spec.fields:
        given = {str(k): x for k, x in value.items()} if isinstance(value, Mapping) else {}
        alone = [elem[sf.ALONE]] if sf.ALONE in elem else []  # a mapping's "all at once"
        items = [mo.Html(h("div", spec.label, class_="kl-rows-label") + sf.help_html(spec)),
                 _entry_view(spec, spec.fields, elem, given, path, errors, extra=alone, state=state)]
    elif isinstance(elem, sf.View) and "rows" in elem:  # a list picked in order: a dropdown per item
        picks = mo.hstack(elem["rows"].items(), justify="start", wrap=True)
        if spec.fields:  # picked place by place: each dropdown its place's label, the field's above them
            items = [mo.Html(h("div", spec.label, class_="kl-rows-label") + sf.help_html(spec)), picks]
        else:  # the first dropdown says the field's label ("Rerolls paid, in order, while failing"); a heading
            # above said it again, signoria's command roll's words read twice on the GM sheet
            items = [picks, *([mo.Html(sf.help_html(spec))] if spec.help else [])]
    elif spec.kind == "variant" and spec.variants:
        given = value if isinstance(value, Mapping) else {}
        items = [elem[sf.VARIANT]]
        if spec.fields:
            items.append(_entry_view(spec, spec.fields, elem, given, path, errors, state=state))
    else:
        items = [elem]
        if spec.help:
            items.append(mo.Html(sf.help_html(spec)))
        browser = sf.browser_html(spec)
        if browser:
            items.append(mo.Html(browser))
    mine = errors.take(path)
    if mine:
        items.append(_error_box(mine))
    cls = "kl-field kl-field-bad" if mine else "kl-field"
    if _is_hex_picker(elem):
        cls += " kl-field-map"  # the map takes the entry's whole line
    return mo.Html(h("div", marimo_html(mo.vstack(items, gap=0.25)), class_=cls,
                     data_field=".".join(str(p) for p in path)))


def _is_hex_picker(elem: Any) -> bool:
    if getattr(elem, "widget", None) is None:
        return False
    from kingdomlog.views.hexpicker import is_picker

    return is_picker(elem)


def _cached_widgets_view(session: SheetSession, card: Card, elems: Any, draft: SheetDraft) -> Any:
    """``widgets_view``, remembered per session while the widgets, the errors and the submitted flag are the same."""
    form = session.built.get(card.id)
    widgets = elems.forms if isinstance(elems, sf.View) else elems
    key = (id(form), id(widgets), left_key(session, card, draft))
    cache: dict[Any, Any] = session.__dict__.setdefault("_left_cache", {})
    hit = cache.get(key)
    # The entry keeps the form and the widgets it was drawn from, and is used only for those very objects: keyed by
    # id() alone, a view of widgets rebuilt and freed was found again for new widgets that took the same id, and
    # the page showed the old, dead widgets (a '+ Activity' picker missing after a choice rebuilt the card).
    if hit is None or hit[0] is not form or hit[1] is not widgets:
        if len(cache) > 200:
            cache.clear()
        hit = (form, widgets, widgets_view(session, card, elems, draft))
        cache[key] = hit
    return hit[2]


def left_key(session: SheetSession, card: Card, draft: SheetDraft) -> tuple[Any, ...]:
    """What the left side of a card shows besides its widgets: the errors at them, the refusal, whose orders."""
    errs = tuple((e.path, e.message) for e in draft.field_errors.get(card.id, ()))
    return (card.id, errs, card.error, card.form_problem, card.id in session.plan.steps)


def widgets_view(session: SheetSession, card: Card, elems: Any, draft: SheetDraft) -> Any:
    """The left side of a card: the step's widgets with errors beside them, its dice, the JSON toggle."""
    form = session.built.get(card.id)
    errs: list[FieldError] = list(draft.field_errors.get(card.id, []))
    if card.error:
        path = _error_at(card)
        msg = refused_words(session, card)
        if path and path[0] != "dice":  # it sits at the field: the path is said by where it is
            msg = re.sub(r"^choice [^:]+:\s*", "", msg)
            msg = msg[:1].upper() + msg[1:]
        errs.append(FieldError(path or (), msg))
    errors = _Errors(errs)
    items: list[Any] = []
    owner = session.start.submitted.get(card.id)
    owner = session.start.camp.player_name(owner, session.start.state) if owner else owner  # by name (issue 29)
    if owner and card.id not in session.plan.steps:
        items.append(mo.Html(h("div", "Orders submitted by ", h("b", owner), " (change them here to overrule)",
                               class_="kl-submitted")))
    elif owner:
        items.append(mo.Html(h("div", "Submitted by ", h("b", owner), "; overruled by your draft",
                               class_="kl-submitted")))
    for who, said in session.start.answered.get(card.id, ()):  # a player's answer fills what the draft leaves
        items.append(mo.Html(h("div", "Answered by ", h("b", who), f": {said} (a value you set here overrules it)",
                               class_="kl-submitted kl-answered")))
    if card.form_problem:
        items.append(mo.callout(card.form_problem, kind="warn"))  # text: marimo escapes it
    if form is None or elems is None:
        return mo.vstack(items)
    if form.json_mode:
        items.append(elems["t"])
        mine = errors.take(("json",))
        items.append(_error_box(mine + errors.rest()) if mine or errors.by_path else mo.md(""))
    else:
        choice_elems = elems.get("c", {})
        main = sf.top_fields(form.specs, form.values)
        folded: list[Any] = []
        for spec in form.specs:
            if spec.name not in choice_elems:
                continue
            view = _field_view(spec, choice_elems[spec.name], (spec.name,), errors, form.values.get(spec.name),
                               card.before)
            (items if spec.name in main else folded).append(view)
        if folded:
            title = more_title([s.label for s in form.specs if s.name not in main and s.name in choice_elems], 5)
            items.append(mo.accordion({title: mo.vstack(folded, gap=0.4)}))
        if form.dice and "d" in elems:
            rows = []
            for d in form.dice:
                e = elems["d"][d.key]
                mine = errors.take(("dice", d.key))
                line = mo.hstack([e["faces"], e["reroll"]], justify="start", gap=0.5)
                rows.append(mo.vstack([line, _error_box(mine)]) if mine else line)
            items.append(mo.accordion({"⚄ Type physical dice or re-roll": mo.vstack(rows)}))
        rest = errors.rest()
        if rest:
            items.insert(0, _error_box(rest))
    items.append(mo.hstack([elems["j"]], justify="end"))
    return mo.vstack(items, gap=0.5)


def _changed(card: Card, draft: SheetDraft) -> bool:
    return card.id in draft.changed_steps and bool(draft.previous)


def badges_html(card: Card, draft: SheetDraft) -> Html:
    """The card header's badges: refused, to roll, after a roll, provisional, changed by the last edit."""
    return join([h("span", "refused", class_="kl-badge kl-badge-bad") if card.error and not card.provisional else None,
                 h("span", "⚄ to roll", class_="kl-badge kl-badge-roll") if card.pending is not None
                 and not card.provisional else None,
                 h("span", "after the roll", class_="kl-badge kl-badge-prov") if card.waiting is not None else None,
                 h("span", "provisional", class_="kl-badge kl-badge-prov") if card.provisional else None,
                 h("span", "changed by your last edit", class_="kl-badge kl-badge-new") if _changed(card, draft)
                 else None])


def card_class(card: Card, draft: SheetDraft) -> str:
    outer = ["kl-card"]
    if _changed(card, draft):
        outer.append("kl-card-changed")
    if card.pending is not None and not card.provisional:
        outer.append("kl-card-pending")
    if card.waiting is not None:
        outer.append("kl-card-wait")
    if card.error and not card.provisional:
        outer.append("kl-card-refused")
    if card.provisional:
        outer.append("kl-card-prov")
    return " ".join(outer)


def result_class(card: Card) -> str:
    return "kl-result kl-result-bad" if card.error and not card.provisional else "kl-result"


def card_view(session: SheetSession, card: Card, forms: Any, draft: SheetDraft, *, live: bool = False,
              lefts: dict[str, str] | None = None, first: int | None = None) -> Any:
    """One step: a header in words, the widgets on the left and what the step does on the right.

    The parts an edit changes carry ``data-kl-slot`` (their content) or ``data-kl-at`` (their
    attributes), keyed as in ``page_slots``. ``live``: the slots are left empty, for views.sheet.live
    to fill (the page's script must own what it rewrites). ``lefts``: the left side (the widgets) is
    put there under the card's id and the card's ``data-kl-left`` holder left empty: views.sheet.live
    mounts the cards in view first and the others after the page is drawn. ``first``: only the first cards'
    left sides are made now (``card.index < first``); the others' holders wait for ``rest_lefts``.
    """
    cid = card.id
    head = mo.Html(join([
        h("div", h("span", card.index + 1, class_="kl-num"), h("span", card.step.title, class_="kl-title"),
          h("span", None if live else badges_html(card, draft), class_="kl-badges", data_kl_slot=f"badges:{cid}"),
          class_="kl-card-head", id=f"step-{cid}"),
        h("div", help_words(card.step.help), class_="kl-step-help") if card.step.help else None]))
    view = forms if isinstance(forms, sf.View) else sf.View(forms)
    later = lefts is not None and first is not None and card.index >= first
    left = None if later else _cached_widgets_view(session, card, view.get(card.id, None), draft)
    right = h("div", None if live else result_html(session, card, draft), class_=result_class(card), data_step=cid,
              data_kl_slot=f"res:{cid}", data_kl_at=f"res:{cid}")
    if lefts is None:
        held = h("div", marimo_html(left), class_="kl-left")
    else:
        if not later:
            lefts[cid] = str(marimo_html(left))
        held = h("div", None, class_="kl-left", data_kl_left=cid)
    body = mo.Html(h("div", held, h("div", right, class_="kl-right"), class_="kl-card-body"))
    return mo.Html(h("section", marimo_html(mo.vstack([head, body])), class_=card_class(card, draft), data_card=cid,
                     data_kl_at=f"card:{cid}"))


def cards_view(session: SheetSession, forms: Any, draft: SheetDraft, *, live: bool = False,
               lefts: dict[str, str] | None = None, first: int | None = None) -> Any:
    """Every step's card, in order (``forms``: the flat dictionary of widgets; ``lefts``, ``first``: as in
    ``card_view``)."""
    view = sf.View(forms)
    return mo.vstack([card_view(session, c, view, draft, live=live, lefts=lefts, first=first) for c in draft.cards],
                     gap=0.75)


def rest_lefts(session: SheetSession, forms: Any, draft: SheetDraft, have: Mapping[str, str]) -> dict[str, str]:
    """The left sides (``card_view``'s ``lefts``) of ``draft``'s cards not in ``have``: those ``first`` left out."""
    view = sf.View(forms)
    return {c.id: str(marimo_html(_cached_widgets_view(session, c, view.get(c.id, None), draft)))
            for c in draft.cards if c.id not in have}


def plan_tag(draft: SheetDraft) -> str:
    """A short digest of the draft's plan (``data-plan`` of the page: it changes once the page shows a new draft)."""
    import hashlib

    return hashlib.sha1(draft.plan.model_dump_json().encode()).hexdigest()[:12]


def page_html(session: SheetSession, forms: Any, draft: SheetDraft, panel: Html, *, live: bool = False,
              lefts: dict[str, str] | None = None, first: int | None = None) -> Html:
    """The cards, and the kingdom panel beside them (it stays in view while the cards scroll).

    ``live``: the cards' live parts are left empty and so are ``data-turn`` and ``data-plan``, until
    views.sheet.live has filled them (``data-plan`` is set last; both are the script's alone, so a page drawn
    again in place for the next month cannot keep the month before's and look drawn). ``lefts``: each card's
    widgets go there, not in the page (``card_view``); ``first``: only the first cards' (``rest_lefts``: the others).
    """
    return h("div", h("div", marimo_html(cards_view(session, forms, draft, live=live, lefts=lefts, first=first)),
                      class_="kl-cards"),
             h("aside", h("div", f"The kingdom at the start of {session.start.when}", class_="kl-aside-title"), panel,
               class_="kl-aside"),
             class_="kl-page", data_turn=None if live else session.start.turn,
             data_plan="" if live else plan_tag(draft), data_kl_at="page")


# ---- header, commit bar, messages ---------------------------------------------------------------


def header_html(session: SheetSession) -> Html:
    """Campaign, month and ruleset, how many events the log holds, and that the draft is kept (where, on a toggle;
    with the sheet's CSS)."""
    from kingdomlog.views.sheet.panel import CSS as PANEL_CSS

    st = session.start
    saved = session.drafts.path(st.turn)
    try:
        shown = saved.relative_to(st.folder.parent)
    except ValueError:
        shown = saved
    return style(CSS + PANEL_CSS) + h(
        "div", h("h1", f"{st.name} — {st.when}", class_="kl-h1"),
        h("div", f"{st.ruleset.name} · {len(st.phases)} steps · {recorded_words(st.start_seq)} · ",
          # the seed would tell every face before its Roll: it stays on the server (design §5)
          "dice rolled when you press Roll" if session.on_roll else ["dice seed ", h("code", session.plan.seed or "")],
          " · ", h("details", h("summary", "your draft is kept as you go"),
                   "in the file ", h("code", shown), class_="kl-details kl-where"), class_="kl-sub"),
        h("div", session.message, class_="kl-note") if session.message else None, class_="kl-header")


def recorded_words(seq: int) -> str:
    """How many events the log holds, in words.

    >>> recorded_words(32), recorded_words(1), recorded_words(0)
    ('32 events recorded so far', '1 event recorded so far', 'nothing recorded yet')
    """
    if seq <= 0:
        return "nothing recorded yet"
    return f"{seq} event{'' if seq == 1 else 's'} recorded so far"


def status_html(session: SheetSession, draft: SheetDraft) -> Html:
    """One line: ready to commit (how many events), or which step stops the commit (a link to it)."""
    bad_ = "kl-status kl-status-bad"
    ref = draft.refused
    if ref is not None:
        return h("span", f"Step {ref.index + 1} (", h("a", ref.step.title, href=f"#step-{ref.id}"),
                 ") is refused: fix it to commit.", class_=bad_)
    if draft.problem:
        return h("span", draft.problem, class_=bad_)
    bad = [s for s, e in draft.field_errors.items() if e]
    if bad:
        c = draft.card(bad[0])
        title = c.step.title if c is not None else bad[0]
        return h("span", "A value in ", h("a", title, href=f"#step-{bad[0]}"), " cannot be read.", class_=bad_)
    wait = draft.waiting
    if wait is not None:
        return h("span", f"Step {wait.index + 1} (", h("a", wait.step.title, href=f"#step-{wait.id}"),
                 ") waits for its roll.", class_="kl-status kl-status-roll")
    n = len(draft.preview.drafts) if draft.preview is not None else 0
    if not n:
        return h("span", "This turn records nothing yet.", class_="kl-status")
    return h("span", f"Ready: {n} event{'s' if n != 1 else ''} will be appended.", class_="kl-status kl-status-ok")


def commit_bar_html(session: SheetSession, draft: SheetDraft, commit_button: Any, undo_button: Any, *,
                    live: bool = False) -> Html:
    """The bar at the top: Commit (this draft), Undo (asks first) and the status line."""
    return h("div", marimo_html(commit_button), " ",
             h("span", None if live else status_html(session, draft), class_="kl-status-slot", data_kl_slot="status"),
             h("span", None if live else roll_all_html(draft), class_="kl-status-slot", data_kl_slot="rollall"),
             h("span", class_="kl-spacer"), marimo_html(undo_button), class_="kl-commit-bar")


def roll_all_html(draft: SheetDraft) -> Html:
    """Roll all (every check the turn reaches, in order), while a step waits for its roll."""
    wait = draft.waiting
    if wait is None:
        return EMPTY
    return h("button", "⚄ Roll all", type="button", class_="kl-act kl-act-roll_all", data_kl_act="roll_all",
             title="Roll every check now, as the choices stand (each is then locked)")


def page_slots(session: SheetSession, draft: SheetDraft) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """The parts of the page an edit changes, as drawn by ``page_html`` and ``commit_bar_html``.

    ``(slots, attrs)``: slots maps a ``data-kl-slot`` key to its inner HTML, attrs a ``data-kl-at``
    key to its attributes; the page's ``data-plan`` comes last (it says the rest is drawn).
    """
    from kingdomlog.views.sheet.draft import end_state
    from kingdomlog.views.sheet.panel import panel_tiles_html

    slots: dict[str, str] = {"status": status_html(session, draft), "rollall": roll_all_html(draft),
             "tiles": panel_tiles_html(session.start.ruleset, session.start.state, after=end_state(draft))}
    attrs: dict[str, dict[str, str]] = {}
    for card in draft.cards:
        slots[f"badges:{card.id}"] = badges_html(card, draft)
        slots[f"res:{card.id}"] = result_html(session, card, draft)
        attrs[f"card:{card.id}"] = {"class": card_class(card, draft)}
        attrs[f"res:{card.id}"] = {"class": result_class(card)}
    attrs["page"] = {"data-turn": str(session.start.turn), "data-plan": plan_tag(draft)}
    return slots, attrs


def page_key(session: SheetSession, draft: SheetDraft) -> tuple[Any, ...]:
    """What only a whole new drawing of the page shows: each card's ``left_key`` (errors at widgets, refusals)."""
    return tuple(left_key(session, c, draft) for c in draft.cards)


def undo_question(session: SheetSession) -> Html:
    """The confirmation text of Undo (for ``mo.md``)."""
    from kingdomlog.views.sheet.draft import last_turn_label

    what = last_turn_label(session) or "the last turn"
    if what == "the import":  # a kingdom brought in from another tool (issue 32): no plan to reopen
        return h("strong", "Undo the import?") + (
            " A retraction is appended to the log (nothing is deleted): the campaign is as before the import, with"
            " no kingdom, and the founding opens as the draft. To bring the kingdom in again, import it into a new"
            " folder.")
    return h("strong", f"Undo {what}?") + (
        " A retraction is appended to the log (nothing is deleted; the turn stays on the timeline, struck through),"
        f" and {what}'s plan opens again as the draft with the same dice. Your current draft is kept aside.")


def outcome_html_box(outcome: Any, session: SheetSession) -> Html:
    """The last commit or undo, as a coloured box (a refused step linked)."""
    if outcome is None:
        return EMPTY
    step = getattr(outcome, "step", None)
    return h("div", outcome.text, [" ", h("a", "Go to the step.", href=f"#step-{step}")] if step else None,
             class_=f"kl-outcome-box kl-outcome-{outcome.kind}", role="status")


def plan_file_help(session: SheetSession) -> str:
    """How the draft relates to `kingdomlog turn` (markdown)."""
    folder = session.start.folder
    return (f"The draft is the plan `kingdomlog turn` reads. `kingdomlog turn {folder} --dry-run` plays the saved"
            f" draft with its seed and prints every step; `kingdomlog turn {folder}` commits it.")


CSS = """
.kl-card { border: 1px solid #d9d4c7; border-radius: 8px; padding: .6em .9em; background: #fffdf8; }
.kl-card-changed { border-color: #d6a800; box-shadow: 0 0 0 2px #f7e08a; }
.kl-card-refused { border-color: #c0392b; box-shadow: 0 0 0 2px #f3c1bb; }
.kl-card-prov { background: #f7f7f5; }
.kl-card-pending { border-color: #2e6da4; box-shadow: 0 0 0 2px #c9dcf0; }
.kl-card-wait { background: #f7f7f5; }
.kl-badge-roll { background: #2e6da4; color: #fff; }
.kl-check-pending { border-left-color: #2e6da4; background: #eef4fb; }
.kl-rollbar { display: flex; flex-wrap: wrap; align-items: center; gap: .3em .5em; margin: .35em 0 .1em; }
.kl-act { font: inherit; border: 1px solid #8a7a55; background: #fff; border-radius: 6px; padding: .15em .7em;
  cursor: pointer; }
.kl-act-roll, .kl-act-roll_all { background: #2e6da4; border-color: #245a88; color: #fff; font-weight: 650;
  padding: .3em 1em; }
.kl-act[disabled] { opacity: .6; cursor: progress; }
.kl-faces-in, .kl-note-in { font: inherit; border: 1px solid #bbb; border-radius: 4px; padding: .1em .35em; }
.kl-note-in { min-width: 14em; flex: 1; }
.kl-or { color: #666; font-size: .9em; }
.kl-locked { color: #5b4a2f; font-size: .88em; margin: .15em 0; }
.kl-reroll > summary { cursor: pointer; color: #5b4a2f; font-size: .9em; }
.kl-reroll-form { display: flex; flex-wrap: wrap; gap: .3em .5em; align-items: center; margin: .3em 0; }
.kl-rerolls { margin: .1em 0 .2em 1.1em; padding: 0; font-size: .88em; color: #444; }
.kl-waiting { background: #eef4fb; border-radius: 4px; padding: .3em .5em; font-size: .9em; margin: .3em 0; }
.kl-notice { background: #fdf3d8; border: 1px solid #d6a800; border-radius: 4px; padding: .3em .5em; margin: .3em 0; }
.kl-status-roll { color: #245a88; font-weight: 600; }
.kl-card-head { display: flex; align-items: baseline; gap: .5em; margin-bottom: .3em; }
.kl-badges, .kl-status-slot { display: contents; }  /* live parts (views.sheet.live): laid out as their children */
.kl-num { background: #5b4a2f; color: #fff; border-radius: 50%; min-width: 1.6em; height: 1.6em; display: inline-flex;
  align-items: center; justify-content: center; font-size: .85em; }
.kl-title { font-size: 1.15em; font-weight: 650; }
.kl-step-help, .kl-help { color: #666; font-size: .85em; }
.kl-badge { font-size: .75em; border-radius: 4px; padding: 1px 6px; }
.kl-badge-bad { background: #c0392b; color: #fff; } .kl-badge-prov { background: #999; color: #fff; }
.kl-badge-new { background: #f7e08a; color: #5b4a00; }
.kl-result { font-size: .95em; }
.kl-check { border-left: 3px solid #5b4a2f; padding: .2em .6em; margin: .3em 0; background: #faf6ec; }
.kl-check-title { font-weight: 600; }
.kl-odds { margin: .25em 0; }
.kl-bar { display: flex; height: 10px; border-radius: 5px; overflow: hidden; background: #eee; max-width: 28em; }
.kl-seg { display: block; height: 100%; }
.kl-chances { list-style: none; padding: 0; margin: .2em 0; display: flex; flex-wrap: wrap; gap: .2em 1em;
  font-size: .9em; }
.kl-dot { display: inline-block; width: .7em; height: .7em; border-radius: 50%; margin-right: .3em; }
.kl-o0 { background: #b03a2e; } .kl-o1 { background: #e59866; } .kl-o2 { background: #d4ac0d; }
.kl-o3 { background: #58d68d; } .kl-o4 { background: #1e8449; }
.kl-roll { margin: .2em 0; } .kl-faces { font-family: ui-monospace, monospace; background: #eee; padding: 0 4px;
  border-radius: 3px; }
.kl-degree { text-transform: capitalize; }
.kl-outcome { margin: .35em 0; font-size: 1.02em; }
.kl-fig { white-space: nowrap; } .kl-hot { background: #fff0a8; border-radius: 3px; padding: 0 3px; }
.kl-delta { color: #555; } .kl-was { color: #8a6d00; font-size: .85em; }
.kl-refused { border: 1px solid #c0392b; background: #fdecea; padding: .4em .6em; border-radius: 6px; margin: .3em 0; }
.kl-hint { margin-top: .3em; font-style: italic; }
.kl-provisional { background: #eee; padding: .3em .5em; border-radius: 4px; font-size: .9em; margin-bottom: .3em; }
.kl-field-error { color: #a93226; font-weight: 600; font-size: .9em; margin: .1em 0; }
.kl-field-bad { border-left: 3px solid #c0392b; padding-left: .4em; }
.kl-rows-label { font-weight: 600; margin-top: .2em; }
/* the widgets' column the wider: at 1280 px a dropdown is 369 px wide, as wide as on a phone (turn_sheet.css); at
   1fr / 1.15fr it was 309 and cut aikakirjat's "Kalevala — diplomacy -3, population 0, independent" (318 px) and
   pf1's "Secret syndicate — corruption, crime, productivity +1; law -3" (361; test_selects_fit_browser.py) */
.kl-card-body { display: grid; grid-template-columns: minmax(0, 1.25fr) minmax(0, 1fr); gap: 1.2em; }
.kl-left, .kl-right { min-width: 0; }
.kl-left[data-kl-left]:empty { min-height: 3em; border-radius: 6px;  /* widgets not mounted yet (below the window) */
  background: repeating-linear-gradient(-45deg, #0000 0 8px, #8881 8px 16px); }
/* a field at least 14em wide: at 12em two stood side by side in the 369 px widgets' column at 1280 px, each 180 px,
   and cut signoria's "Duke Fabian — leader, general, intriguer" (253 px; test_selects_fit_browser.py) */
.kl-entry-grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(14em, 1fr)); gap: .3em .6em;
  align-items: end; }
.kl-entry { border-left: 3px solid #c9b98f; padding: .2em .5em; margin: .25em 0; background: #fbf8f0; }
.kl-lotpick { font-size: .85em; margin: .2em 0; } .kl-lotpick > summary { cursor: pointer; color: #5b4a2f; }
.kl-lot-pick { background: #ffe066 !important; border-color: #b7950b !important; color: #333 !important; }
.kl-block-pick { border-color: #b7950b; }
.kl-entry-grid > div:has(> .kl-field-map) { grid-column: 1 / -1; }
.kl-field-map { max-width: 32em; }
.kl-entry-kind { font-weight: 600; font-size: .9em; color: #5b4a2f; }
.kl-submitted { background: #eaf2fb; border-radius: 4px; padding: .2em .5em; font-size: .9em; }
.kl-table-rows { background: #eef6ee; border-left: 3px solid #1e8449; border-radius: 4px; padding: .25em .6em;
  margin: .2em 0 .4em; font-size: .92em; }
.kl-table-rows ul { margin: .15em 0 0 1.1em; padding: 0; }
.kl-table-rows-title { font-weight: 600; color: #1b5e20; }
.kl-by { color: #1b5e20; font-weight: 600; }
.kl-moved { color: #8a4b00; font-size: .95em; }
.kl-details summary { cursor: pointer; color: #5b4a2f; }
.kl-bd ul { margin: .1em 0 .3em 1em; padding: 0; }
.kl-evlist { margin: .2em 0; padding-left: 1.2em; font-size: .88em; }
.kl-browser { font-size: .88em; } .kl-browser .kl-blocked td { color: #999; } .kl-ok { color: #1e8449; }
.kl-empty { color: #888; font-style: italic; }
.kl-vis { color: #666; font-size: .9em; } .kl-mark { color: #666; font-size: .9em; }
.kl-error { color: #b00; font-weight: 600; }
.kl-table { border-collapse: collapse; margin: .3em 0; font-size: .92em; }
.kl-table th, .kl-table td { border: 1px solid #ccc; padding: 2px 8px; text-align: left; vertical-align: top; }
.kl-h1 { font-size: 1.7em; font-weight: 700; margin: .2em 0 .1em; }
.kl-sub { color: #555; font-size: .9em; } .kl-where { display: inline; } .kl-where summary { display: inline; }
.kl-note { background: #eef6ee; border-radius: 4px; padding: .3em .6em;
  margin: .4em 0; }
.kl-commit-bar { position: sticky; top: 0; z-index: 5; display: flex; align-items: center; gap: .8em;
  background: #f6f1e4; border: 1px solid #d9d4c7; border-radius: 8px; padding: .4em .8em; }
.kl-spacer { flex: 1; }
.kl-status-ok { color: #1e6f3e; font-weight: 600; } .kl-status-bad { color: #a93226; font-weight: 600; }
.kl-outcome-box { border-radius: 6px; padding: .5em .8em; margin: .3em 0; font-weight: 500; }
.kl-outcome-success { background: #e3f4e8; border: 1px solid #58a672; }
.kl-outcome-warn { background: #fdf3d8; border: 1px solid #d6a800; }
.kl-outcome-danger { background: #fdecea; border: 1px solid #c0392b; }
.kl-page { display: grid; grid-template-columns: minmax(0, 3fr) minmax(18em, 1.5fr); gap: 1em; align-items: start; }
.kl-aside { position: sticky; top: 3.5em; max-height: calc(100vh - 4em); overflow: auto; border: 1px solid #d9d4c7;
  border-radius: 8px; padding: .5em .7em; background: #fcfaf5; }
.kl-aside-title { font-weight: 700; margin-bottom: .3em; }
@media (max-width: 900px) { .kl-page { grid-template-columns: 1fr; } .kl-aside { position: static; max-height: none; } }
.kl-aside .kl-table { display: block; max-width: 100%; overflow-x: auto; }
.kl-aside .kl-table th, .kl-aside .kl-table td { padding: 2px 5px; }
/* the panel 1.5fr wide and its cells padded 5px: at 1280 px, with a scrollbar shown, a table of six columns (pf1's
   Modifiers) fits the panel; at 1.25fr and 8px it was cut at "City" (tests/notebooks/test_panel_fit_browser.py) */
.kl-commit-bar { white-space: nowrap; } .kl-commit-bar .kl-status { white-space: normal; }
@media (max-width: 700px) {
  .kl-card-body { grid-template-columns: minmax(0, 1fr); gap: .4em; }
  .kl-card { padding: .5em .6em; }
  .kl-commit-bar { flex-wrap: wrap; gap: .3em .6em; padding: .35em .5em; margin-right: 2.4em; }
  .kl-commit-bar .kl-status { order: 3; flex-basis: 100%; font-size: .9em; }
  .kl-h1 { font-size: 1.35em; } .kl-sub { font-size: .8em; overflow-wrap: anywhere; }
  .kl-entry-grid { grid-template-columns: minmax(0, 1fr); }
}
"""
"""The cards' CSS (the notebook puts it in the page once)."""
