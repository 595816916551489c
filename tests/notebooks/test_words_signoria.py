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


def test_the_rerolls_of_a_command_roll_are_labelled_once_on_the_gm_sheet() -> None:
    """The GM sheet's command roll read "Rerolls paid, in order, while failing" twice: a heading above the field and
    its first dropdown's label; the dropdown alone says it now, its help below it."""
    import html

    from kingdomlog.rulesets.signoria.choices import CommandChoices
    from kingdomlog.views import forms as sf
    from kingdomlog.views.html import marimo_html
    from kingdomlog.views.sheet import cards

    none: Any = lambda state, source, within: None  # noqa: E731
    pay = next(f for f in describe(CommandChoices, state=None, vocabulary=none) if f.name == "pay")
    label = "Rerolls paid, in order, while failing"
    assert pay.label == label
    for given in ([], ["power"]):
        view = sf.View(sf.flatten({"pay": sf.widget(pay, given)}))
        page = html.unescape(html.unescape(marimo_html(cards._field_view(pay, view["pay"], ("pay",),
                                                                          cards._Errors([]), given))))
        assert page.count(label) == len(given) + 1, page  # each dropdown its own label: "…", "… 2"
        assert "power or wealth, 1 of that resource per reroll" in page


def test_an_effects_form_asks_what_its_kind_reads_and_shows_what_it_needs_at_once() -> None:
    """A GM's effect of kind Treaty asked for a resource, a delta, an observer and a condition too, under "More:
    faction, resource, delta, value, …", and folded its parties there while the step said it "needs … its parties".
    Now a field its kind does not read is left out (unless it holds a value) and one it is refused without is shown
    at once (``Choices.unused`` / ``Choices.needed``)."""
    from kingdomlog.rulesets.signoria.choices import EFFECT_NEEDS, EFFECT_USES, Effect
    from kingdomlog.views import forms as sf
    from kingdomlog.views.sheet import cards

    none: Any = lambda state, source, within: None  # noqa: E731
    spec = FieldSpec("effects", "Effects", "rows")
    for kind, uses in EFFECT_USES.items():
        assert set(EFFECT_NEEDS[kind]) <= set(uses), kind  # what it needs it reads
        given = {"kind": kind}
        fields = describe(Effect, state=None, vocabulary=none, values=given)
        main = sf.primary(spec, fields, given)
        asked = main | {f.name for f in cards.folded_fields(spec, fields, given)}
        assert asked == {"kind", *uses}, (kind, sorted(asked))
        assert set(EFFECT_NEEDS[kind]) <= main, (kind, sorted(main))  # never folded
    given = {"kind": "treaty", "delta": 2}  # a delta given before the kind changed: seen, to clear
    fields = describe(Effect, state=None, vocabulary=none, values=given)
    assert "delta" in {f.name for f in cards.folded_fields(spec, fields, given)} | sf.primary(spec, fields, given)
