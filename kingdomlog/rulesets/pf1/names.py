"""pf1's ids and records in words for what names a figure (``Ruleset.name_of``, ``record_names``, ``field_words``):
a field of the state as the panel heads it, a record's column, what each serial numbers, a district, building and
trade route by the names the explanations give them, a treaty's or alliance's terms.

Kept apart from the forms' lists (``vocabulary``, which needs ``derive``, ``specials`` and the map's words) so that
``kingdomlog state`` and the panel, which name figures and records, do not load those (issue 31): this module needs
``state`` alone.
"""

from __future__ import annotations

from kingdomlog.rulesets.pf1.state import Pf1State, Terms

__all__ = ["COLUMN_TITLES", "FIELD_TITLES", "SERIALS", "field_words", "record_names", "terms_words"]

FIELD_TITLES = {"third_party": "Relations among foreign kingdoms", "serials": "Numbered so far"}
"""A field of the state as the panel heads it where its name says it badly (``Ruleset.name_of(field, "figure")``): the
GM's relations between two foreign kingdoms (opt §2.5.4) were "Third party"; the numbers the ids were given up to
(``serials``: ``C 2`` is two cities) were "Serials"."""

COLUMN_TITLES = {"trl": "Trade route length", "rm": "Route modifier", "lm": "Length modifier",
                 "hd": "Hit dice", "acr": "Army CR", "unit_cr": "Unit CR", "om": "Offense modifier",
                 "dv": "Defense value", "cha": "Charisma modifier"}
"""A record's field as the panel heads its column where its name is an abbreviation (``Ruleset.name_of(field,
"column")``): a trade route's TRL, RM and LM (opt §2.7.3), an army's HD, ACR, unit CR, OM and DV, its commander's
Charisma modifier (UC Mass Combat, Commanders); they read "Trl", "Om", "Unit cr", "cha"."""

SERIALS = {"C": "cities", "D": "districts", "B": "buildings", "T": "trade routes", "A": "armies", "W": "battles",
           "X": "expeditions"}
"""What each prefix of ``Pf1State.serials`` numbers (``helpers.new_id``; ``W`` a mass combat's battle)."""


def terms_words(t: Terms) -> str:
    """A treaty's or an alliance's terms (opt §2.5.7) in words: what kind, since when, whose terms, the two
    figures it was weighed by and what it gives us.

    >>> terms_words(Terms(kind="treaty", balanced=True, advantaged="you", established_turn=11, x_you=22,
    ...                   x_partner=30, bonus_you=3))
    'balanced treaty since month 11 on our terms: our Economy 22 against theirs 30; +3 to us'
    """
    attr = "Economy" if t.kind == "treaty" else "Stability"
    whose = "our" if t.advantaged == "you" else "their"
    return (f"{'balanced' if t.balanced else 'unbalanced'} {t.kind} since month {t.established_turn} on {whose} "
            f"terms: our {attr} {t.x_you} against theirs {t.x_partner}; {t.bonus_you:+d} to us")


def record_names(s: Pf1State) -> dict[str, str]:
    """The records pf1 keeps by an id alone, named as its explanations name them: a district by its city and its
    number there ("district 1 of Tatzlford"; it read "D1"), a building by its type and city ("Shrine
    (Tatzlford)"; it read "B4"), a trade route by what it carries and where ("goods route from Tatzlford to
    Mivon"; it read "T2")."""
    def city(cid: str) -> str:
        return s.cities[cid].name if cid in s.cities else cid

    out: dict[str, str] = {}
    seen: dict[str, int] = {}
    for d in s.districts.values():
        seen[d.city] = seen.get(d.city, 0) + 1
        out[d.id] = f"district {seen[d.city]} of {city(d.city)}"
    for b in s.buildings.values():
        out[b.id] = f"{b.type} ({city(b.city)})"
    for r in s.trade_routes:  # "goods route from Tatzlford to Mivon" (it read "T2")
        out[r.id] = f"{r.type.replace('_', ' ')} route from {city(r.origin)} to {r.destination}"
    return out


def field_words(s: Pf1State) -> dict[tuple[str, str, str], str]:
    """The relations' treaties and alliances in words (``terms_words``), by (``relations``, kingdom, field)."""
    out: dict[tuple[str, str, str], str] = {}
    for kid, r in s.relations.items():
        for f in ("treaty", "alliance"):
            t = getattr(r, f, None)
            if isinstance(t, Terms):
                out[("relations", kid, f)] = terms_words(t)
    return out

