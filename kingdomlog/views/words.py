"""Words for the turn sheet: names as words (``control_dc`` → ``Control DC``), and the states' summaries.

Shared by the form codec (``views.forms``), the step cards (``sheet.cards``) and the kingdom panel (``sheet.panel``).
"""

from __future__ import annotations

import re
from typing import Any

from kingdomlog.core.choices import FieldSpec, Option
from kingdomlog.core.memo import ByIdentity

__all__ = ["ACRONYMS", "is_hex_field", "option_text", "summary_of", "words"]

ACRONYMS = {"rp": "RP", "xp": "XP", "dc": "DC", "bp": "BP", "gp": "gp", "hp": "HP", "id": "id"}


def words(name: str) -> str:
    """A field or figure name as words: ``control_dc`` → ``Control DC``, ``rp`` → ``RP``.

    >>> words("control_dc"), words("rp"), words("resource_dice"), words("unrest")
    ('Control DC', 'RP', 'Resource dice', 'Unrest')
    """
    parts = re.split(r"[_\s.]+", name.strip())
    out = [ACRONYMS.get(p.lower(), p) for p in parts if p]
    if not out:
        return name
    first = out[0]
    out[0] = first if first.isupper() or first in ACRONYMS.values() else first[:1].upper() + first[1:]
    return " ".join(out)


_SUMMARIES: ByIdentity[Any, dict[str, Any]] = ByIdentity(limit=257)


def summary_of(ruleset: Any, state: Any) -> dict[str, Any]:
    """``ruleset.summary(state)``, remembered for the states of the latest drafts (states are never changed)."""
    return _SUMMARIES.get(state, lambda s: dict(ruleset.summary(s)))


# ---- options and fields in words (shared by the widgets and the hex picker) ----------------------------


def option_text(o: Option) -> str:
    """What a dropdown shows for ``o``: ``label — detail``; a disabled one ``✗ label — reason``.

    An option without a label shows its value in words (``collect-taxes`` → ``collect taxes``).
    """
    text = o.label or (str(o.value).replace("_", " ").replace("-", " ") if isinstance(o.value, str) and
                       o.value.strip() else str(o.value) if o.value != "" else "(none)")
    if o.disabled:
        return f"✗ {text} — {o.disabled}"
    return f"{text} — {o.detail}" if o.detail else text


def is_hex_field(spec: FieldSpec) -> bool:
    """Whether ``spec`` picks hexes of the state: a select or multiselect whose ``Pick`` source ends in ``_hexes``.

    >>> is_hex_field(FieldSpec("hex", "Hex", "select", options=(), source="region_hexes"))
    True
    >>> is_hex_field(FieldSpec("leader", "Leader", "select", options=(), source="leaders"))
    False
    """
    return (spec.kind in ("select", "multiselect") and spec.options is not None
            and bool(spec.source) and str(spec.source).endswith("_hexes"))
