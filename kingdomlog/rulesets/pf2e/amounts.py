"""Amount expressions used in effect data: ``3``, ``"-1d4"``, ``"rd"``, ``"2rd"``, ``"q"``, ``"2m"``.

>>> check_amount("2q"), check_amount("-1d6"), check_amount("rd")
('2q', '-1d6', 'rd')
"""

from __future__ import annotations

import re

from kingdomlog.core.errors import InputError

_RE = re.compile(r"^(?P<sign>-?)(?:(?P<dice>\d+d\d+)|(?P<k>\d*)(?P<sym>rd|q|m|terrain|roads|farmland))$")


def check_amount(text: str) -> str:
    """Validate an amount expression; raises ``InputError``."""
    if not _RE.match(text.strip()):
        raise InputError(f"amount {text!r} is not an integer, dice (1d4), or k×symbol (rd, q, m)")
    return text


def parse_amount(text: str) -> tuple[int, str, str]:
    """``(sign, dice_or_empty, symbol_with_multiplier)``: ``"-2rd"`` -> ``(-1, "", "2rd")``."""
    m = _RE.match(text.strip())
    if not m:
        raise InputError(f"bad amount {text!r}")
    sign = -1 if m["sign"] else 1
    if m["dice"]:
        return sign, m["dice"], ""
    return sign, "", (m["k"] or "1") + m["sym"]
