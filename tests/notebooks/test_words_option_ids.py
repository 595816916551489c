"""No option of any field of any step of the bundled demos says a raw id, and no field's help as a page shows it:
every pick a form can offer (each field's own options, and a list the ruleset fills from the state, once for each
value of the sibling it depends on), its detail and the reason a refused one gives, read without a browser.

The browser tests read what a page shows when it opens (``test_words_browser``) and after an entry of each kind is
added (``test_selects_fit_browser``); a pick that shows only in a state the demos reach later (a failed bribe's
double agent, a structure the kingdom cannot build yet) is read here. Found on ``510f175``: signoria's double
agents offered "fabian O1 — hire_troops"; pf2e's structures the kingdom cannot build yet said "✗ Printing House —
printing-house is level 10, ..." and an activity's lock "a printing-house built in a settlement"; pf1's Live off the
Land boon "(army_actions: live_off_the_land)"; pf2e's GM effect's condition "a condition (core.effects.Predicate)".
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from test_words_browser import CATALOG_ID, RAW_ID

from kingdomlog.app import Campaign
from kingdomlog.core.choices import FieldSpec
from kingdomlog.views.words import help_words, option_text

REPO = Path(__file__).resolve().parents[2]
DEMOS = ("aikakirjat-demo", "felmonte", "river-kingdom", "stolen-lands")


def fields(specs: Sequence[FieldSpec], path: str) -> Iterator[tuple[str, FieldSpec, Sequence[FieldSpec]]]:
    """Every field of a step's form, nested ones (an entry's, a variant's) included: its path, itself, its siblings."""
    for f in specs:
        where = f"{path}/{f.label or f.name}"
        yield where, f, specs
        yield from fields(f.fields, where)
        for entry in f.entries:
            yield from fields(entry, where)
        for v in f.variants:
            yield from fields(getattr(v, "fields", ()), f"{where}<{v.tag}>")


def said(demo: str) -> dict[str, str]:
    """What the forms of ``demo``'s next turn say, text -> where: options (label, detail or refusal), help."""
    camp = Campaign.open(REPO / "campaigns" / demo)
    rs, state, turn = camp.ruleset, camp.state(), camp.next_turn()
    out: dict[str, str] = {}
    for step in rs.phases_for(state, turn):
        for where, f, siblings in fields(rs.choices(state, turn, step.id), step.id):
            texts = [help_words(f.help or ""), f.label or ""]
            options: list[Any] = list(f.options or ())
            if f.source:
                within: list[dict[str, Any]] = [{}]
                within += [{d.name: o.value} for d in siblings if d.name in f.depends and d.options
                           for o in d.options if o.value not in ("", None)]
                for w in within:
                    options += rs.vocabulary(state, f.source, w) or []
            texts += [t for o in options for t in (option_text(o), o.disabled)]
            for t in texts:
                if t:
                    out.setdefault(t, where)
    return out


@pytest.mark.parametrize("demo", DEMOS)
def test_no_option_or_help_says_a_raw_id(demo: str) -> None:
    texts = said(demo)
    assert len(texts) > 100, len(texts)  # the forms were read
    raw = [f"{where}: {t}" for t, where in texts.items()
           if RAW_ID.search(t.replace("e.g.", "").replace("i.e.", "")) or CATALOG_ID.search(t)]
    assert raw == [], "\n".join(raw)
