"""The button or picker that adds an entry to a list on the GM sheet names one entry (``views.forms.add_widget``:
``singular(lower_label(label))``): pf1's read "+ Relations among foreign kingdom", "+ Items for empty magic slot"
(the phrase's last word made singular, not its noun) and "+ Pcs buy slot item" (an acronym's plural lower-cased)."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

from nb_support import demo_session

from kingdomlog.core.choices import FieldSpec
from kingdomlog.views import forms as sf

REPO = Path(__file__).resolve().parents[2]


def _rows(specs: tuple[FieldSpec, ...]) -> Iterator[FieldSpec]:
    for f in specs:
        if f.kind == "rows":
            yield f
        yield from _rows(tuple(f.fields or ()))


def _add_labels(demo: str, tmp: Path) -> dict[str, str]:
    """Each list field's label on ``demo``'s next turn's sheet, with its add button's or picker's label."""
    session = demo_session(demo, tmp)
    out = {}
    for card in session.draft.cards:
        for f in _rows(tuple(card.form.specs) if card.form is not None else ()):
            said = re.search(r"\\?\+ ([^<\\]*)", html.unescape(sf.add_widget(f).text))
            assert said is not None, f.label
            out[f.label] = said.group(1)
    return out


def test_pf1s_add_buttons_name_one_entry(tmp_path: Path) -> None:
    labels = _add_labels("river-kingdom", tmp_path)
    assert labels["Relations among foreign kingdoms"] == "Relation among foreign kingdoms", labels
    assert labels["Items for empty magic slots"] == "Item for empty magic slots", labels
    assert labels["PCs buy slot items"] == "PCs buy slot item", labels
    assert labels["GM adjustments"] == "GM adjustment", labels  # as before
