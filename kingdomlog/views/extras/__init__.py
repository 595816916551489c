"""Pages only some rulesets have, found by ruleset id: the GM sheet, the CLI and the server ask here.

Most of what a person sees is the same for every ruleset: the GM sheet (``views.sheet``) is built from the
steps' typed choices, a player's page from the same form codec, the player view from the ruleset's hooks. A
few things exist for one ruleset only, such as aikakirjat's growth-session planner (a panel on the GM sheet,
a page of its own and the ``kingdomlog session`` command) or the fields signoria's orders sheet leaves out.
Those live in ``views/extras/<module>.py``, one module per ruleset, each declaring one ``EXTRAS``; the
``MANIFEST`` below names the module of each ruleset id, as ``rulesets/__init__.py`` names the rulesets. No
other module under ``views/`` imports a ruleset by name (``tests/test_layout.py`` holds that), and nothing
outside this package names a ruleset to decide what to show.

A ruleset's extras module is imported only when its ruleset is asked about, so ``kingdomlog --help`` and
the pages of other rulesets load none of it.

>>> extras_for("toy").panels, extras_for("toy").pages
((), ())
>>> [p.name for p in extras_for("aikakirjat").pages]
['session']
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kingdomlog.core.turn import Plan
    from kingdomlog.views.orders import FirstRoll

MANIFEST: Mapping[str, str] = {
    "aikakirjat": "kingdomlog.views.extras.aikakirjat",
    "pf1-kingmaker": "kingdomlog.views.extras.pf1",
    "pf2e-kingmaker": "kingdomlog.views.extras.pf2e",
    "signoria": "kingdomlog.views.extras.signoria",
}
"""Ruleset id -> the module that declares its ``EXTRAS``. A fifth ruleset with pages of its own adds one line."""


@dataclass(frozen=True)
class Panel:
    """A section of the GM sheet, drawn only when the GM opens it (it may take seconds).

    ``html(folder, seed)`` returns one HTML fragment for the campaign in ``folder``; ``seed`` is the sheet's
    draft seed, so the panel shows the same dice on every open of one draft. It never raises for a
    campaign it cannot plan: the fragment says why.
    """

    title: str
    html: Callable[[Path, str | None], str]


@dataclass(frozen=True)
class Page:
    """A page of the GM's own: ``notebooks/<notebook>.py``, served by ``kingdomlog serve`` at ``/gm/<name>/``
    and by its command's ``--serve``. ``check(folder)`` raises a clear ``InputError`` when the page cannot
    open that campaign (an unfounded kingdom, say), so a server never starts on a page that would only say so."""

    name: str
    notebook: str
    title: str
    check: Callable[[Path], object]


@dataclass(frozen=True)
class Command:
    """A ``kingdomlog`` subcommand for campaigns of this ruleset only: ``run(args)`` returns the exit code.

    The CLI declares the command's arguments (so ``--help`` loads no extras); it finds ``run`` here
    by the campaign's ruleset.
    """

    name: str
    run: Callable[[argparse.Namespace], int]


@dataclass(frozen=True)
class Done:
    """What an ``Action`` did: ``kind`` (success, warn or danger) and ``text`` for the sheet's box, and the draft plan
    to keep from now on (None: the draft as it was)."""

    kind: str
    text: str
    plan: Plan | None = None


@dataclass(frozen=True)
class Action:
    """A button of the GM sheet that acts on the draft beyond committing it (signoria: publish the month's opening
    to the players), one click at a time.

    ``fields``: the boxes asked beside the button, each ``(name, label, placeholder)``; ``run(folder, plan,
    values)`` does it with the sheet's draft ``plan`` and the boxes' ``values``, and says what it did. It raises
    nothing a person caused: a refusal is a ``Done("danger", ...)`` in words.

    ``picks(ruleset, state)``: the fields that are dropdowns rather than boxes, filled from the sheet's state,
    ``{name: ((label, value), ...)}``; only the labels reach the page, ``run`` gets the value. An action with a
    dropdown that has nothing to pick is not shown. ``refused(ruleset, state, values)``: why the form's values
    would be refused, in words, said in the form before anything runs (None: fine).
    """

    name: str
    label: str
    help: str
    run: Callable[[Path, Plan, Mapping[str, str]], Done]
    fields: tuple[tuple[str, str, str], ...] = ()
    picks: Callable[[Any, Any], Mapping[str, Sequence[tuple[str, str]]]] | None = None
    refused: Callable[[Any, Any, Mapping[str, str]], str | None] | None = None


@dataclass(frozen=True)
class Extras:
    """What one ruleset adds to the pages every ruleset has.

    - ``panels``: sections of the GM sheet;
    - ``pages``: pages of their own;
    - ``commands``: CLI subcommands that act on a campaign of this ruleset;
    - ``orders_hidden``: the fields of a player's step the orders sheet leaves out (a row's owner, always the
      player; choices the rules ask as questions of their own);
    - ``orders_first_roll``: the player's steps rolled and sealed before the others, and the words for them
      (signoria's command roll, whose outcome the orders are checked against); None when there are none;
    - ``orders_other_example``: the placeholder of an open pick (a value no list of the player's view holds);
    - ``seat_hidden``: the fields of a row a player proposes at the table (``views.table.seat``) that the page
      does not offer: the GM's to rule (a DC the GM sets, modifiers the GM adds), or a re-roll the page asks
      for after the roll (fields named ``gm_*`` are never offered, whatever the ruleset).
    - ``actions``: buttons of the GM sheet that act on the draft (``Action``).
    """

    panels: tuple[Panel, ...] = ()
    pages: tuple[Page, ...] = ()
    commands: tuple[Command, ...] = ()
    orders_hidden: tuple[str, ...] = ()
    orders_first_roll: FirstRoll | None = None
    orders_other_example: str = ""
    seat_hidden: tuple[str, ...] = ()
    actions: tuple[Action, ...] = ()

    def command(self, name: str) -> Command | None:
        """The command called ``name``, or None."""
        return next((c for c in self.commands if c.name == name), None)

    def page(self, name: str) -> Page | None:
        """The page called ``name``, or None."""
        return next((p for p in self.pages if p.name == name), None)


NONE = Extras()
"""The extras of a ruleset that has none."""


def extras_for(ruleset_id: str) -> Extras:
    """The extras of ``ruleset_id`` (``NONE`` for a ruleset without a module in ``MANIFEST``)."""
    module = MANIFEST.get(ruleset_id)
    if module is None:
        return NONE
    extras = importlib.import_module(module).EXTRAS
    if not isinstance(extras, Extras):
        raise TypeError(f"{module}.EXTRAS is a {type(extras).__name__}, not an Extras")
    return extras


def offering(kind: str, name: str) -> list[str]:
    """The ruleset ids whose extras have a ``kind`` (``"command"`` or ``"page"``) called ``name``: for the
    message that refuses it to a campaign of another ruleset."""
    found = []
    for rid in MANIFEST:
        ex = extras_for(rid)
        if (ex.command(name) if kind == "command" else ex.page(name)) is not None:
            found.append(rid)
    return found


# ---- the GM sheet's actions ---------------------------------------------------------------------------------


def action_forms(extras: Extras, ruleset: Any = None, state: Any = None) -> Any:
    """The sheet's forms of ``extras.actions`` (``{name: mo.ui.form}``, a submit button each, with its boxes and
    dropdowns filled from the sheet's ``ruleset`` and ``state``), or None when there is none to show (an action
    whose dropdown has nothing to pick is left out). Read a submission with ``take_action``."""
    import marimo as mo

    forms = {}
    for a in extras.actions:
        picks = a.picks(ruleset, state) if a.picks is not None else {}
        if any(not options for options in picks.values()):
            continue
        boxes: dict[str, Any] = {}
        for name, label, hint in a.fields:
            if name in picks:
                boxes[name] = mo.ui.dropdown(options=dict(picks[name]), value=None, allow_select_none=True,
                                             label=label, full_width=True)
            else:
                boxes[name] = mo.ui.text(label=label, placeholder=hint, full_width=True)
        template = mo.md(a.help + "".join(f"\n\n{{{name}}}" for name in boxes))
        forms[a.name] = template.batch(**boxes).form(
            submit_button_label=a.label, bordered=True, show_clear_button=False,
            validate=_validator(a, ruleset, state, picks))
    return mo.ui.dictionary(forms) if forms else None


def _validator(a: Action, ruleset: Any, state: Any,
               picks: Mapping[str, Sequence[tuple[str, str]]]) -> Callable[[Any], str | None] | None:
    """The form's check of what the page sends (a dropdown sends its label, as a list): ``a.refused`` on the values
    ``run`` would get."""
    if a.refused is None:
        return None
    refused = a.refused

    def check(raw: Any) -> str | None:
        values = {}
        for name, _, _ in a.fields:
            got = raw.get(name) if isinstance(raw, Mapping) else None
            if name in picks:
                label = got[0] if isinstance(got, list) and got else None
                values[name] = dict(picks[name]).get(label, "") if isinstance(label, str) else ""
            else:
                values[name] = got if isinstance(got, str) else ""
        return refused(ruleset, state, values)

    return check


_TAKEN: dict[int, set[int]] = {}
"""The submissions already run, per sheet's forms (by id: a marimo element is not hashable)."""


def take_action(extras: Extras, forms: Any, session: Any) -> Done | None:
    """Run the action whose form was just submitted, once per submission, with the sheet ``session``'s draft; keep
    the plan it returns as the draft (saved). None when no form holds a submission not yet taken."""
    if forms is None:
        return None
    if len(_TAKEN) > 64:
        _TAKEN.clear()
    seen = _TAKEN.setdefault(id(forms), set())
    for a in extras.actions:
        values = forms.value.get(a.name)
        if values is None or id(values) in seen:
            continue
        seen.add(id(values))
        done = a.run(session.start.folder, session.plan, {k: str(v or "") for k, v in values.items()})
        if done.plan is not None:
            session.replace_plan(done.plan)
            session.save()
        return done
    return None


def _unnamed(ruleset: Any, state: Any) -> dict[str, Sequence[tuple[str, str]]]:
    """The dropdown of who is still unnamed: each by the placeholder the sheet shows, its id the value."""
    from kingdomlog.app.kingdom_import import unnamed_in

    seen: dict[str, int] = {}
    out = []
    for ident, shown in unnamed_in(ruleset, state):
        seen[shown] = seen.get(shown, 0) + 1
        out.append((shown if seen[shown] == 1 else f"{shown} #{seen[shown]}", ident))  # one label, one option
    return {"who": tuple(out)}


def _said(text: str, ident: str, shown: str) -> str:
    """A refusal naming ``ident`` (a naming's ``name ID: ...``) in the words the sheet shows instead."""
    text = text.removeprefix(f"name {ident}:").strip()
    return f"{shown}: {text}" if shown and not text.startswith(shown) else text


def _naming_refused(ruleset: Any, state: Any, values: Mapping[str, str]) -> str | None:
    """Why the sheet's naming would be refused (who not picked, the name empty, too long or another leader's), in
    words naming them as the sheet shows them."""
    from kingdomlog.app.kingdom_import import naming_refused, unnamed_in

    who = values.get("who", "").strip()
    left = dict(unnamed_in(ruleset, state))
    if not who:
        return "Pick who or what to name."
    if who not in left:
        return "That one has a name already."
    why = naming_refused(ruleset, state, {who: values.get("name", "")})
    return None if why is None else _said(why, who, left[who])


def name_from_foundry(folder: Path, plan: Plan, values: Mapping[str, str]) -> Done:
    """Name a settlement or a leader a Foundry import left without one (``app.kingdom_import.name_in_campaign``;
    ``kingdomlog name``): ``who`` is the id the sheet's dropdown holds behind the placeholder it shows ("Settlement
    2 (unnamed in Foundry)"), or that placeholder typed. One ``*.named`` event, a fact folded by replay; the draft
    is left as it is. A refusal is said in words, naming them as the sheet shows them, and writes nothing."""
    from kingdomlog.app import Campaign
    from kingdomlog.app.kingdom_import import name_in_campaign, unnamed_in
    from kingdomlog.core.errors import KingdomlogError

    who, name = values.get("who", "").strip(), values.get("name", "")
    if not who:
        return Done("danger", "Not named: say who or what to name (pick one from the list).")
    try:
        camp = Campaign.open(folder)
        left = dict(unnamed_in(camp.ruleset, camp.state()))
    except KingdomlogError as exc:
        return Done("danger", f"Not named: {exc}")
    ident = who if who in left else {s.casefold(): i for i, s in left.items()}.get(who.casefold())
    if ident is None:
        still = ", ".join(left.values()) or "none"
        return Done("danger", "Not named: no settlement or leader still unnamed is the one given (named meanwhile,"
                              f" or not in the kingdom); still unnamed: {still}.")
    try:
        rest = name_in_campaign(camp, {ident: name})
    except KingdomlogError as exc:
        return Done("danger", f"Not named: {_said(str(exc), ident, left[ident])}")
    more = "; still without a name: " + ", ".join(s for _, s in rest) if rest else ""
    return Done("success", f"{left[ident]} is now {name.strip()!r}{more}.")


NAME_FROM_FOUNDRY = Action(
    name="name-from-foundry", label="Give the name",
    help="A kingdom brought in from Foundry keeps only the ids of its settlements and leaders: until named they are"
         " shown as 'Settlement 1 (unnamed in Foundry)', 'Ruler (unnamed in Foundry)'. Give one its name here (or"
         " with `kingdomlog name`).",
    run=name_from_foundry,
    fields=(("who", "Who or what", ""), ("name", "Their name", "e.g. Kesten Garess")),
    picks=_unnamed,
    refused=_naming_refused,
)
"""The GM sheet's naming of what a Foundry import left unnamed (pf2e, pf1): shown only while one is."""
