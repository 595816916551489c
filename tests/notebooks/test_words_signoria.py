"""Signoria's forms in words: no field's help reads as a key mapped to a value ("faction -> trait",
"<briber>.<order id> -> true", "faction -> {power, piety, wealth, army}", 'candidate id -> "hire"'), nor names a
setting by its key ("statesmen_per_faction"): a person reads "each faction's heir's second trait"."""

from __future__ import annotations

import re
from typing import Any

from kingdomlog.core.choices import FieldSpec, describe
from kingdomlog.rulesets.signoria.choices import orders_choices
from kingdomlog.rulesets.signoria.ruleset import SignoriaRuleset


def _helps(specs: tuple[FieldSpec, ...]) -> list[str]:
    out = []
    for f in specs:
        out.append(f.help or "")
        for entry in f.entries or ():
            out += _helps(tuple(entry))
    return out


def test_no_help_reads_as_a_mapping_of_keys() -> None:
    rs = SignoriaRuleset()
    none: Any = lambda state, source, within: None  # noqa: E731
    models = [s.choices for s in rs.all_steps] + [orders_choices("fabian")]
    helps = [h for m in models for h in _helps(describe(m, state=None, vocabulary=none))]
    assert "each faction's heir's second trait (§6.6; rolled when left out)" in helps
    bad = [h for h in helps if re.search(r"->|[{<]|\b[a-z]+_[a-z_]+\b", h)]
    assert bad == [], bad
