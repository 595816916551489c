"""Every dropdown of every bundled demo's GM sheet says its options in words (issue 29), read from the widgets the
sheet renders (no browser): a stake "Low"/"High", a battle's tactic "Ambush", a pf2e GM ruling's effect "Boon",
pf1's relation action "Attack", a Ruin "Corruption" (they read "low", "ambush", "boon", "attack", "corruption":
the bare value a plan stores); and the value a pick stores is still that value."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from nb_support import demo_session

from kingdomlog.views import forms as sf

REPO = Path(__file__).resolve().parents[2]
DEMOS = ("stolen-lands", "river-kingdom", "aikakirjat-demo", "felmonte")
BARE = re.compile(r"[a-z][a-z0-9_]*")  # an identifier as a plan stores it ("ambush", "low", "gm")


def dropdowns(demo: str, tmp_path: Path) -> dict[str, dict[str, Any]]:
    """``{"<step> <path>": {option text: value}}`` of every dropdown and multiselect the demo's sheet renders."""
    session = demo_session(demo, tmp_path)
    out: dict[str, dict[str, Any]] = {}
    for card in session.draft.cards:
        if card.form is None:
            continue
        for path, w in sf.flatten(sf.step_widgets(card.form)).items():
            options = getattr(w, "options", None)
            if isinstance(options, dict):
                out[f"{card.form.step} {path}"] = dict(options)
    return out


@pytest.mark.parametrize("demo", DEMOS)
def test_no_option_is_a_bare_identifier(demo: str, tmp_path: Path) -> None:
    shown = dropdowns(demo, tmp_path)
    assert shown, "no dropdown rendered"
    bare = sorted({(where, text) for where, options in shown.items() for text in options
                   if BARE.fullmatch(text.split(" — ")[0].removeprefix("✗ "))})
    assert bare == [], bare[:20]
    capitals = sorted({(where, text) for where, options in shown.items() for text in options
                       if re.fullmatch(r"[A-Z][A-Z_]{3,}", text.split(" — ")[0].removeprefix("✗ "))})
    assert capitals == [], capitals[:20]  # an enum's value: pf1's "CONSORT", "ATTRIBUTE" read so
    said: dict[str, set[Any]] = {}  # the values each text stands for, in any dropdown (pf1's "Fame": a
    for options in shown.values():  # milestone's "fame", an effect's kind "FAME")
        for text, value in options.items():
            said.setdefault(text, set()).add(value)
    expected = {"stolen-lands": {"Boon": "boon", "Corruption": "corruption", "GM": "gm", "None": "none"},
                "river-kingdom": {"Attack": "attack", "Fame": "fame", "Consort": "CONSORT", "Attribute": "ATTRIBUTE"},
                "aikakirjat-demo": {"Court": "court", "Kingdom": "kingdom"},
                "felmonte": {"Low": "low", "High": "high", "Ambush": "ambush", "Hold": "hold"}}[demo]
    assert {t: v for t, v in expected.items() if v not in said.get(t, set())} == {}  # the words shown, the value
    # the plan stores
