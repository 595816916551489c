"""The kingdom panel beside the turn sheet: what a GM looks up while deciding, read from the state.

Built from any ruleset's state: the main figures (``Ruleset.summary``) with what the
draft does to them, then every collection of records the state holds (leaders,
settlements, hexes, factions, ...) as a table (a wide one keeps as columns the fields its ruleset names,
``Ruleset.panel_columns``, and says the others on a line below each record), with an urban grid drawn for records
that carry one (``blocks``: per block, its lots), numbers kept against a capacity shown
as ``4 / 8`` (``commodities`` against ``storage``; a record's ``hp`` against its ``max_hp`` as ``16 / 16``), and the
remaining fields folded away.
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from functools import cache
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel

from kingdomlog.core.memo import ByIdentity
from kingdomlog.core.portrait import Better, Figure
from kingdomlog.core.ruleset import Ruleset, State, plain_words
from kingdomlog.views.forms import singular
from kingdomlog.views.html import EMPTY, Html, h, join, scalar
from kingdomlog.views.words import (
    ACRONYMS,
    Namer,
    figure_label,
    figure_text,
    figure_words,
    headed,
    namer,
    summary_of,
    words,
)

PRIORITY = ("id", "name", "role", "holder", "title", "kind", "type", "level", "terrain")
CAPACITY_NAMES = ("storage", "capacity", "limits", "max", "caps")
DASH = h("span", "—", class_="kl-empty")
"""An empty value in a cell: a grey dash (no occupier, no homebrew, an unknown economy)."""
VACANT = h("span", "—", class_="kl-vacant")
"""A seat nobody holds (a leader's ``holder``): the red dash of something to fix, where an empty value elsewhere is
the grey ``DASH`` (every empty cell was red: "Counters", "Homebrew", a province's occupier read as alarms)."""


def _records(value: Any) -> list[dict[str, Any]] | None:
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [dict(v) for v in value]
    if isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
        return [{"id": k, **v} if "id" not in v else dict(v) for k, v in value.items()]
    return None


def _spaced(text: str) -> str:
    """An id shown as a figure in words: ``between_years`` → ``between years``, ``a,b`` → ``a, b``."""
    if re.fullmatch(r"[a-z0-9_,]+", text):
        return text.replace("_", " ").replace(",", ", ")
    return text


def _plain(text: str) -> str:
    return _spaced(text)


def _uncapped(text: str) -> str:
    """An enum's value kept in capitals (``STABILITY``, ``HOLY_SITE``: pf1's attributes, terrains, features) said as
    a word (``Stability``, ``Holy site``); a short one stays (``NG``, ``BP``: an alignment, an abbreviation).

    >>> _uncapped("STABILITY"), _uncapped("HOLY_SITE"), _uncapped("NG"), _uncapped("Duke Fabian")
    ('Stability', 'Holy site', 'NG', 'Duke Fabian')
    """
    if re.fullmatch(r"[A-Z][A-Z_]{3,}", text):
        return text.replace("_", " ").capitalize()
    return text


def _cell(value: Any, name: Callable[[str], str] = _plain, noun: str = "", limit: int = 80) -> str:
    """A value in a table cell: text, or ``Html`` (a dash for an empty one); ``name`` says an id in words (a
    ``views.words.Namer``'s ``value``: ``fabian`` → ``Duke Fabian``); ``noun``: what one of the records a list
    holds is (``notice``: "3 notices", never "3 item(s)"); ``limit``: the characters a long one is cut at (a table's
    cell: 80; the line below a record and "Everything else", which wrap, say more: ``WHOLE``).

    >>> _cell([["mivon", "pitax"], ["brevoy", "pitax"]], str.capitalize), _cell([[3, 3], [6, 5]])
    ('Mivon and Pitax; Brevoy and Pitax', '3 3; 6 5')
    """
    if value is None or value == "" or value == {} or value == []:
        return DASH
    if isinstance(value, list) and all(isinstance(v, dict) for v in value):
        return _records_said(value, name, noun)
    if isinstance(value, dict) and all(isinstance(v, (int, float)) for v in value.values()):
        return ", ".join(f"{name(str(k))} {v:g}" for k, v in value.items())
    if isinstance(value, dict) and value and {str(k).upper() for k in value} <= set(COMPASS):
        return _compass(value, name)
    if isinstance(value, dict) and isinstance(value.get("name"), str) and value["name"]:
        # a record with a name by its name, its other fields beside (pf1's army's commander "Amiri (level 6; …)";
        # it read "name Amiri; cha 0; …")
        rest = "; ".join(_pair(str(k), v, name, noun) for k, v in value.items() if k != "name")
        text = f"{value['name']} ({rest})" if rest else str(value["name"])
        return _cut(text, limit)
    if isinstance(value, dict):  # a record inside a record: its fields in words, a nested one summed up; a record
        # keyed by ids the state names (signoria's notices by faction, aliases by candidate) by their names
        text = "; ".join(_pair(str(k), v, name, noun) for k, v in value.items())
        return _cut(text, limit)
    if isinstance(value, (list, tuple)) and all(isinstance(v, (str, int, float)) for v in value):
        said = [_uncapped(name(v)) if isinstance(v, str) else str(v) for v in value]
        return ("; " if any(", " in x for x in said) else ", ").join(said) or DASH  # "a, b; c" reads as two
    if isinstance(value, (list, tuple)) and all(isinstance(v, (list, tuple)) for v in value):  # pairs: "3 3; 6 5"
        # a pair of names as a person pairs them (pf1's foreign kingdoms at war with each other: "Mivon and Pitax";
        # it read "Mivon Pitax")
        text = "; ".join((" and " if v and all(isinstance(x, str) for x in v) else " ").join(_inner(x, name) for x in v)
                         for v in value)
        return _cut(text, limit)
    if isinstance(value, bool):
        return scalar(value)
    if isinstance(value, str):
        return _uncapped(name(value)) if len(value) <= limit else _cut(value, limit)
    text = scalar(value)
    return _cut(text, limit)


def _cut(text: str, limit: int) -> str:
    """``text`` cut at ``limit`` characters, an ellipsis where it is cut."""
    return text if len(text) <= limit else text[:limit - 3] + "…"


WHOLE = 300
"""Where "Everything else" and the line below a record cut a field's words (a table's cell cuts at 80): pf1's
Leaders read "Ruler: Kesten Garess; Councilor: Jhod Kavken; General: Amiri; Grand Diplomat:…", 3 of its 11 leaders
(212 characters whole), pf2e's Skills 4 of its 7, aikakirjat's neighbour's profile "…; crime modifier 0; unr…";
both wrap."""


COMPASS = {"N": "north", "E": "east", "S": "south", "W": "west"}
"""The sides of a record keyed by compass points (pf1's district's borders), in the order a person goes round."""


def _compass(value: Mapping[Any, Any], name: Callable[[str], str]) -> str:
    """A record keyed by compass points in words, round from the north: pf1's district's borders ``{"E": "LAND",
    "N": "LAND", "S": "WATER", "W": "LAND"}`` → "north land, east land, south water, west land" (it read "e Land; n
    Land; s Water; w Land").

    >>> _compass({"E": "LAND", "N": "LAND", "S": "WATER", "W": "LAND"}, _plain), _compass({"w": "wall"}, _plain)
    ('north land, east land, south water, west land', 'west wall')
    """
    side = {str(k).upper(): v for k, v in value.items()}
    return ", ".join(f"{COMPASS[k]} {_inner(side[k], name).lower()}" for k in COMPASS if k in side)


def _plural(noun: str) -> str:
    """``notice`` → ``notices``, ``entry`` → ``entries``, ``hex`` → ``hexes``.

    >>> _plural("notice"), _plural("entry"), _plural("hex"), _plural("day")
    ('notices', 'entries', 'hexes', 'days')
    """
    if noun.endswith("y") and noun[-2:-1] not in tuple("aeiou"):
        return noun[:-1] + "ies"
    return noun + "es" if noun.endswith(("s", "x", "ch", "sh")) else noun + "s"


def _count(n: int, noun: str = "") -> str:
    """``n`` records said as a person counts them: ``1 notice``, ``3 notices`` (``item`` without a noun).

    >>> _count(1, "notice"), _count(3, "notice"), _count(2)
    ('1 notice', '3 notices', '2 items')
    """
    noun = noun or "item"
    return f"{n} {noun}" if n == 1 else f"{n} {_plural(noun)}"


def _records_said(value: Sequence[Any], name: Callable[[str], str], noun: str = "") -> str:
    """Records inside a cell: by their names where each has one (pf1's leaders of a role: "Kesten Garess"), a name
    several hold once with how many hold it, in the order the names first come (pf2e's settlement's structures
    "houses ×5, granary"; it read "houses, houses, granary, houses, houses, houses"), else counted (``_count``:
    "3 notices").

    >>> _records_said([{"name": n} for n in ("houses", "houses", "granary", "houses")], _plain)
    'houses ×3, granary'
    >>> _records_said([{"name": "Kesten Garess"}], _plain), _records_said([{}, {}], _plain, "notice")
    ('Kesten Garess', '2 notices')
    """
    if value and all(isinstance(v, dict) and isinstance(v.get("name"), str) and v["name"] for v in value):
        held = Counter(str(v["name"]) for v in value)  # a Counter keeps the order each name first comes in
        return ", ".join(n if k == 1 else f"{n} ×{k}" for n, k in held.items())
    return _count(len(value), noun)


def _pair(key: str, value: Any, name: Callable[[str], str], noun: str = "") -> str:
    """One key of a record in a cell with its value: ``promotion None``; records kept under an id the state names
    counted as what the cell holds (``Duke Fabian: 3 notices``), under a plural key as that key says them
    (``70 buildings``), under another as items (``response 3 items``).

    >>> _pair("buildings", [{}] * 70, _plain), _pair("RULER", [{"name": "Kesten"}], _plain)
    ('70 buildings', 'Ruler: Kesten')
    >>> _pair("army", {"value": 4, "turn": 0}, _plain), _pair("response", {"tactic": "hold"}, _plain)
    ('army 4', 'response (tactic hold)')
    """
    said = _key_words(key, name)
    held = value.get("value") if isinstance(value, dict) else None
    if held is not None and held != [] and (_flat(held) or all(isinstance(v, dict) for v in held)):
        # a record of a value (signoria's intel: "army 4", "roster Doge Andrea, Lorenzo"; its source left out)
        return f"{said} {_inner(held, name) if _flat(held) else _records_said(held, name)}"
    if isinstance(value, dict) and value and all(_flat(v) for v in value.values()):  # a small record: its fields
        return f"{said} (" + "; ".join(f"{_key_words(str(k), name)} {_inner(v, name)}" for k, v in value.items()) + ")"
    if isinstance(value, (list, tuple, dict)) and value and not (
            isinstance(value, (list, tuple)) and all(isinstance(v, (str, int, float)) for v in value)):
        items = list(value.values()) if isinstance(value, dict) else list(value)
        if isinstance(value, list) and said.endswith(":"):
            return f"{said} {_records_said(items, name, noun)}"
        if re.fullmatch(r"[a-z]+(?: [a-z]+)*", said) and singular(said) != said:  # a catalog's "70 buildings"
            return f"{len(items)} {said}" if len(items) != 1 else f"1 {singular(said)}"
        return f"{said} {_records_said(items, name) if isinstance(value, list) else _count(len(items))}"
    return f"{said} {_inner(value, name)}"


def field_said(key: str, value: Any, name: Callable[[str], str] = _plain) -> str:
    """A field of a record with its value in a few words, as a cell of the panel says one (``_pair``): records
    inside by their names or counted as the field's name says them ("2 lines"), a small record by its fields
    ("response (tactic hold)"); for an event's line on the sheet's cards (``views.sheet.cards.event_words``).

    >>> field_said("lines", [{"source": "province:fabia", "amount": 1}] * 2), field_said("response", {"tactic": "hold"})
    ('2 lines', 'response (tactic hold)')
    """
    return _pair(key, value, name)


def _flat(value: Any) -> bool:
    """Whether ``value`` reads in a few words: a number, a word, a list of them."""
    return value is None or isinstance(value, (str, int, float)) or (
        isinstance(value, (list, tuple)) and all(isinstance(v, (str, int, float)) for v in value))


def _titled(code: str) -> str:
    """An enum's value in capitals that names a title (pf1's roles) as the rules write it: ``GRAND_DIPLOMAT`` →
    ``Grand Diplomat``.

    >>> _titled("GRAND_DIPLOMAT"), _titled("RULER")
    ('Grand Diplomat', 'Ruler')
    """
    small = {"of", "and", "the", "to", "in"}
    parts = code.lower().split("_")
    return " ".join(w if i and w in small else w.capitalize() for i, w in enumerate(parts))


class _FieldSays:
    """A value of a record's ``field`` in words (``Namer.field``), the ``Namer`` kept at hand (``namer``) for the
    words of the keys of a record the field holds (``_key_words``)."""

    def __init__(self, namer: Namer, field: str) -> None:
        self.namer, self.field = namer, field

    def __call__(self, value: str) -> str:
        return self.namer.field(self.field, value)


def _key_words(key: str, name: Callable[[str], str]) -> str:
    """A key of a record in a cell: a field's name in words (``health``), an id ``name`` says otherwise by its name
    and a colon (``fabian`` → ``Duke Fabian:``, ``t2.c1`` → ``candidate 1 of month 2:``), a pair of records the
    state names kept as one key (pf1's relations among foreign kingdoms, ``brevoy|mivon``) by both names
    (``Brevoy and Mivon:``).

    >>> _key_words("shelf_life", _plain), _key_words("fabian", {"fabian": "Duke Fabian"}.get)
    ('shelf life', 'Duke Fabian:')

    A key the ruleset heads a column by otherwise than its plain words (``Ruleset.name_of(key, "column")``) is said
    so inside a record too: pf1's commander's ``cha`` is his "Charisma modifier" (it read "cha 2").
    """
    if re.fullmatch(r"[A-Z][A-Z_]{3,}", key):  # an enum's value keying a record (pf1's leaders by role)
        return f"{_titled(key)}:"
    namer = getattr(name, "namer", None) or getattr(name, "__self__", None)  # the ``Namer`` ``name`` belongs to
    known = getattr(namer, "names", {})  # a ``Namer``'s records by id
    name_of = getattr(namer, "name_of", None)
    titled = name_of(key, "column") if callable(name_of) and re.fullmatch(r"[a-z][a-z0-9_]*", key) else ""
    if titled and titled.lower() != plain_words(key).lower() and key not in known:  # "Charisma modifier"
        return titled
    pair = key.split("|")
    if len(pair) > 1 and all(p in known for p in pair):
        return " and ".join(known[p] for p in pair) + ":"
    said = name(key)
    if said and (key in known or (said.lower() != words(key).lower() and said != _plain(key))):
        return f"{said}:"
    return " ".join(w if w in ACRONYMS.values() else w.lower() for w in words(key).split())  # "RP", not "rp"


def _inner(value: Any, name: Callable[[str], str]) -> str:
    """A value inside a cell's record, short: a number or words as they are, a list or record by its size."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        return f"{value:g}"
    if isinstance(value, str):
        return _uncapped(name(value)) if value else "—"  # an enum's value as a word: "NONE" → "None"
    if isinstance(value, (list, tuple)) and all(isinstance(v, (str, int, float)) for v in value):
        return ", ".join(_inner(v, name) for v in value) or "none"
    if isinstance(value, (list, tuple, dict)):
        return _count(len(value)) if value else "none"
    return "—" if value is None else str(value)


def _machine_ids(rows: Sequence[Mapping[str, Any]], name: Namer | None) -> bool:
    """Whether the records' ids are keys nobody reads: a ``name`` beside them says the same in words, or each is
    a dotted key no vocabulary names (a modifier's ``t18.event.resolve.check.e1``)."""
    if all(isinstance(r.get("name"), str) and r.get("name") for r in rows):
        return True
    ids = [r.get("id") for r in rows]
    return all(isinstance(i, str) and "." in i and (name is None or name(i) == plain_words(i)) for i in ids)


HEX_PLACE = {"q": "Column", "r": "Row"}
"""A hex's axial coordinates (``core.hexes``, every hex map's) as its table heads them, in the words the forms that
place a hex ask them by: they read "Q" and "R"."""


def column_words(field: str, name: Namer | None = None) -> str:
    """A record's field as its column is headed: as the ruleset says it (``Ruleset.name_of(field, "column")``: pf1's
    ``om`` → "Offense modifier", it read "Om") where it says it otherwise than its plain words, else ``words``.

    >>> column_words("travel_days")
    'Travel days'
    """
    if name is not None:
        said = name.name_of(field, "column")
        if said and said != plain_words(field):
            return said
    return words(field)


def records_table(rows: Sequence[Mapping[str, Any]], name: Namer | None = None, noun: str = "",
                  collection: str = "", keys: Sequence[str] | None = None,
                  defaults: Mapping[str, str] | None = None,
                  inner_defaults: Mapping[str, Mapping[str, Any]] | None = None) -> Html:
    """A table of records; identifying columns first, grid fields left to the grid drawing; a hex's axial ``q`` and
    ``r`` headed as its column and row (``HEX_PLACE``).

    ``keys``: the fields kept as columns beside the record's name or id (its first column), in that order
    (``Ruleset.panel_columns``); every other field is said on a line below the record (``kl-below``: what holds of
    them, a true one by its name, a number after its field's name, "Morale 2"; a false, empty or zero one left
    out; what the record's name says already left out too, a number against its most said as one, "HP 3 / 4"),
    so that the table fits the narrow panel. Without ``keys`` a table of hexes keeps its columns up to its
    place and says the rest below; any other keeps every field a column.

    >>> page = str(records_table([{"id": "A1", "terrain": "plains", "q": 0, "r": -1, "explored": True,
    ...                            "claimed": False, "features": ["bridge"], "road": None}], noun="Hex"))
    >>> page.split("</thead>")[0].removeprefix('<table class="kl-table kl-panel-table"><thead>')
    '<tr><th class="kl-hex">Hex</th><th>Terrain</th><th>Column</th><th>Row</th></tr>'
    >>> re.sub("<[^>]+>", "", page.split('<tr class="kl-below">')[1])
    'Explored · Features: bridge'
    >>> page = str(records_table([{"name": "Guard", "hp": 16, "morale": 2, "hex": "hex 4", "unpaid": False,
    ...                            "tactics": ["flankers"]}], keys=("hp",)))
    >>> re.findall("<th>([^<]+)</th>", page), re.sub("<[^>]+>", "", page.split('<tr class="kl-below">')[1])
    (['Name', 'HP'], 'Morale 2 · Hex 4 · Tactics: flankers')

    A value whose words begin with its field's is said once, as a hex is ("Hex 4"), however many words follow (pf1's
    building's district read "District: district 1 of Tatzlford"):

    >>> page = str(records_table([{"name": "House (Tatzlford)", "district": "district 1 of Tatzlford"}], keys=()))
    >>> re.sub("<[^>]+>", "", page.split('<tr class="kl-below">')[1])
    'District 1 of Tatzlford'
    >>> below = lambda page: [re.sub("<[^>]+>", "", x) for x in re.findall('<tr class="kl-below">(.*?)</tr>', page)]
    >>> below(str(records_table([{"name": "Mivon", "is_npc": True, "is_sponsor": True, "island": True}], keys=())))
    ['NPC · Sponsor · Island']
    >>> page = str(records_table([{"name": "Fabian", "power": 3, "leader": "Duke Fabian",
    ...                            "leader_name": "Duke Fabian", "heir_name": "Duke Fabian"}], keys=("power",)))
    >>> re.sub("<[^>]+>", "", page.split('<tr class="kl-below">')[1])
    'Leader: Duke Fabian · Heir name: Duke Fabian'

    Nor does the line say what the record's name (its first column) says: a field whose words are the name
    (signoria's faction "Duke Fabian" led by Duke Fabian), or whose words every record's name holds where it is set
    (the names are made of it: pf1's building "House (Tatzlford)" of type House in the city Tatzlford; a field
    another record's name does not hold stays, aikakirjat's "Home (Tuonela)" controlled by Tuonela):

    >>> below = lambda page: [re.sub("<[^>]+>", "", x) for x in re.findall('<tr class="kl-below">(.*?)</tr>', page)]
    >>> below(str(records_table([{"name": "House (Tatzlford)", "type": "House", "city": "Tatzlford", "turn": 1},
    ...                          {"name": "Mill (Marsh)", "type": "Mill", "city": "Marsh", "turn": 2}], keys=())))
    ['Turn 1', 'Turn 2']
    >>> below(str(records_table([{"name": "Duke Fabian", "leader": "Duke Fabian", "power": 3},
    ...                          {"name": "Doge of Marburg", "leader": "Doge Andrea", "power": 2}], keys=("power",))))
    ['Leader: Doge Andrea']
    >>> below(str(records_table([{"name": "Home (Tuonela)", "controller": "Tuonela"},
    ...                          {"name": "Border", "controller": "Tuonela"}], keys=())))
    ['Controller: Tuonela', 'Controller: Tuonela']

    A number beside the field of its most (``max_hp`` or ``hp_max`` beside ``hp``) is said with it, "16 / 16", in
    its column or on the line below, a zero too ("HP 0 / 11": a beaten army's); the field of its most is not said
    again (unless the ruleset keeps it a column):

    >>> page = str(records_table([{"name": "Guard", "hp": 0, "max_hp": 11, "morale": 2}], keys=("hp",)))
    >>> re.findall("<td[^>]*>([^<]+)</td>", page), below(page)
    (['Guard', '0 / 11'], ['Morale 2'])
    >>> below(str(records_table([{"name": "Militia", "level": 3, "hp": 3, "hp_max": 4}], keys=("level",))))
    ['HP 3 / 4']

    ``defaults``: the words a record's field holds unless something set it otherwise (its model's defaults,
    ``word_defaults``); the line below leaves out a field that holds them, as it leaves out a false or a zero one
    (pf1's buildings each read "Bonus mode: standard", its armies "Side: kingdom"); a column keeps them, and so does a
    field that says what the record is (``PRIORITY``'s kind, type, role, terrain: pf2e's army unit is infantry
    unless it is something else, and says so):

    >>> rows = [{"name": "Mill", "bonus_mode": "standard", "turn": 6, "occupancy": "active"},
    ...         {"name": "Shrine", "bonus_mode": "alignment", "turn": 4, "occupancy": "active"}]
    >>> page = str(records_table(rows, keys=("occupancy",), defaults={"bonus_mode": "standard", "occupancy": "active"}))
    >>> below(page), re.findall("<td>([^<]+)</td>", page)[1::2]
    (['Turn 6', 'Bonus mode: alignment · Turn 4'], ['active', 'active'])
    >>> below(str(records_table([{"name": "Militia", "type": "infantry", "side": "kingdom", "morale": 2}], keys=(),
    ...                         defaults={"type": "infantry", "side": "kingdom"})))
    ['Type: infantry · Morale 2']

    ``inner_defaults``: for a field holding a record of its own, that record's fields' zero, false or empty defaults
    (``inner_defaults``): one holding its default is left out of the words said of it, as it says nothing there (pf2e's
    hex's work site read "commodity lumber; double until turn 0", which is a site not doubled); a zero a record of no
    model holds is a fact and stays (signoria's intel of a battle, "units in battle 0"):

    >>> rows = [{"id": "A2", "work_site": {"commodity": "lumber", "double_until_turn": 0}, "intel": {"units": 0}},
    ...         {"id": "A3", "work_site": {"commodity": "stone", "double_until_turn": 4}}]
    >>> below(str(records_table(rows, keys=(), inner_defaults={"work_site": {"double_until_turn": 0}})))
    ['Work site: commodity lumber · Intel: units 0', 'Work site: commodity stone; double until turn 4']

    With ``name`` (the state's ``views.words.Namer``) every id is shown in words: a record's id column is headed by
    ``noun`` (what one record is: ``Leader``) and dropped where a ``name`` column says it, or where the ids are
    keys no vocabulary names; a field the state says in words for that record of ``collection`` (``Namer.said``:
    signoria's character's activity, an order's id) is said so.
    """
    if inner_defaults:  # a record's record without the fields at their zero, false or empty default
        rows = [{c: _without_defaults(v, inner_defaults.get(c)) for c, v in r.items()} for r in rows]
    cols: list[str] = []
    for r in rows:
        for k in r:
            if k not in cols and k != "blocks":
                cols.append(k)
    if name is not None and "id" in cols and _machine_ids(rows, name):
        cols.remove("id")
    by_kind = _kind_ids(rows, cols)
    cols = [c for c in cols if c not in by_kind.values()]
    order = {c: i for i, c in enumerate(cols)}
    cols.sort(key=lambda c: (PRIORITY.index(c) if c in PRIORITY else len(PRIORITY), order[c]))
    field = {c: noun.lower() if c == "id" and noun else c.removesuffix("_id") for c in cols}  # "track", "area"
    says = {c: _FieldSays(name, field[c]) if name is not None else _plain for c in cols}
    place = HEX_PLACE if set(HEX_PLACE) <= set(cols) else {}  # a hex's q and r: "Column", "Row"
    heads = [noun if c == "id" and noun else place.get(c) or column_words(c.removesuffix("_id"), name)
             for c in cols]  # "Area"
    def cell(r: Mapping[str, Any], c: str) -> str:
        said = name.said.get((collection, str(r.get("id")), c)) if name is not None else None
        if said is not None:
            return said
        if _against_most(r, c, most):  # "16 / 16": a unit's HP against its max HP
            return f"{r[c]:g} / {r[most[c]]:g}"
        named = r.get(by_kind.get(c, ""))  # "a PC" said as the PC its record names: "Aino"
        if isinstance(named, str) and named and isinstance(r.get(c), str) and r[c] + "_id" == by_kind[c]:
            return _cell(named, name.value if name is not None else _plain)
        if c == "holder" and r.get(c) in _UNSET:  # a seat nobody holds: red, to fix
            return VACANT
        out = _cell(r.get(c), says[c], singular(words(c).lower()), 80 if c in lead else WHOLE)  # the line below
        # wraps: a record there said whole (aikakirjat's neighbour's profile read "…; crime modifier 0; unr…")
        if c == "id" and isinstance(out, str) and re.fullmatch(r"[a-z][a-z0-9]*", out):
            return headed(out)  # a record named by a lone word, with its capital as a name has it (pf2e's Ruin
            # "Corruption", its Abilities "Culture"; they read "corruption", the state's key)
        return out

    # a hex's column keeps its words on one line ("hex 0" wrapped in the narrow panel): ``.kl-hex`` in ``CSS``
    kind = {c: "kl-hex" if field[c] == "hex" else None for c in cols}
    # the columns kept, the rest said on a line below each record: in the 313 px panel at 1280 px pf1's Armies
    # were 1198 px wide (25 columns), its Hexes 663 (13), signoria's Factions 1008 (20), a unit's morale out of sight
    if keys is not None:
        lead = cols[:1] + [c for c in keys if c in cols and c not in cols[:1]]
    elif place:
        lead = cols[:max(cols.index("q"), cols.index("r")) + 1]
    else:
        lead = list(cols)
    head = dict(zip(cols, heads, strict=True))
    most = {c: m for c in cols for m in (f"max_{c}", f"{c}_max") if m in cols and m not in lead}
    """A field said against the field of its most (``hp`` against ``max_hp`` or ``hp_max``: "16 / 16"), the latter
    then not said on its own (unless the ruleset keeps it a column)."""
    kind.update({c: "kl-most" for c in most if kind[c] is None})  # "16 / 16" on one line: it wrapped "16 /" in pf1's
    # narrow HP column
    first = cols[0] if cols and cols[0] in ("id", "name") else None  # the record's name, in words

    def item(r: Mapping[str, Any], c: str, cell: Callable[[str], str]) -> list[Any] | None:
        """One field on the line below a record: a true one by its name ("Explored"), a number after its name
        ("Morale 2"), a value whose words begin with its name's as those words ("hex 4": "Hex 4", pf1's building's
        district "district 1 of Tatzlford": "District 1 of Tatzlford"; it read "District: district 1 of
        Tatzlford"), any other after its name and a colon ("Features: Bridge"); a false, empty or zero one not at
        all (no forfeit, no wins: a dash or a 0 for each would be most of the line; pf2e's leaders read "Forfeit 0 ·
        Leadership modifier 0 · …")."""
        v = r.get(c)
        if _against_most(r, c, most):  # "HP 0 / 11": a number against its most, zero or not
            return [h("span", head[c], class_="kl-below-k"), " ", h("span", cell(c), class_=kind[c])]
        if v is None or v is False or v == "" or v == [] or v == {} or (v == 0 and not isinstance(v, bool)):
            return None
        if v is True:  # a flag by its name, without the question's "Is" (pf1's "NPC", "Sponsor"; "Is NPC" read as
            # the field's name ``is_npc``)
            flag = head[c].removeprefix("Is ") if head[c].startswith("Is ") and len(head[c]) > 3 else head[c]
            return [flag[:1].upper() + flag[1:]]
        said = cell(c)
        lead_word = f"{head[c].lower()} "
        if isinstance(v, (int, float)) and isinstance(said, str):
            key, rest = head[c], said
        elif isinstance(said, str) and said.lower().startswith(lead_word) and said[len(lead_word):].strip():
            key, rest = head[c], said[len(lead_word):]
        else:
            key, rest = f"{head[c]}:", said
        return [h("span", key, class_="kl-below-k"), " ", h("span", rest, class_=kind[c])]

    def again(r: Mapping[str, Any], c: str, shown: Sequence[str], cell: Callable[[str], str]) -> bool:
        """Whether field ``c`` says again what a field before it said of the same thing: its heading that one's
        and more ("Leader name" after "Leader") and its words the same (signoria's "Leader: Duke Fabian · Leader
        name: Duke Fabian")."""
        said = cell(c) if r.get(c) not in (None, "", True, False) else None
        return isinstance(said, str) and any(
            head[c].lower().startswith(f"{head[o].lower()} ") and cell(o) == said for o in shown)

    def named(r: Mapping[str, Any], c: str, cell: Callable[[str], str]) -> bool:
        """Whether field ``c`` of record ``r`` says words (not a number, not yes or no) that the record's name says
        whole: those words and no more (signoria's faction "Duke Fabian" led by Duke Fabian), or within the name
        (pf1's building "House (Tatzlford)" of type House in the city Tatzlford)."""
        v = r.get(c)
        if first is None or v in (None, "", [], {}) or isinstance(v, (bool, int, float)):
            return False
        said, name_words = cell(c), cell(first)
        return isinstance(said, str) and isinstance(name_words, str) and bool(
            re.search(rf"(?<!\w){re.escape(said)}(?!\w)", name_words))

    others = [c for c in cols if c not in lead]  # said on the line below
    cells = [_once(r, cell) for r in rows]

    def names_hold(c: str) -> bool:
        held = [named(r, c, w) for r, w in zip(rows, cells, strict=True) if r.get(c) not in _UNSET]
        return bool(held) and all(held)

    # a field whose words every record's name holds where it is set (the name is made of it: pf1 names a building by
    # its type and city) is said by the name alone; one that some record's name does not hold is left out only where
    # it is that record's name itself
    made_of = {c for c in others if names_hold(c)}

    def repeats(r: Mapping[str, Any], c: str, cell: Callable[[str], str]) -> bool:
        """Whether field ``c`` says what the record's own name says already (``named``): always where the names are
        made of the field (``made_of``), else where its words are the name, no more."""
        return c in made_of or (named(r, c, cell) and cell(c) == cell(first or ""))

    def unchanged(r: Mapping[str, Any], c: str) -> bool:
        """Whether field ``c`` of record ``r`` holds the words its model gives it unless set (``defaults``): it says
        nothing of this record ("Bonus mode: standard" on each of pf1's buildings); not a field that says what the
        record is (``PRIORITY``: "Type: infantry")."""
        v = r.get(c)
        return c not in PRIORITY and isinstance(v, str) and v == (defaults or {}).get(c)

    def below(r: Mapping[str, Any], cell: Callable[[str], str]) -> Html | None:
        """The line below a record: what holds of its fields that are not columns ("Explored · Morale 2"), none said
        twice (nor what the record's name says: ``repeats``; nor one at its default words: ``unchanged``); a number
        against its most as one ("HP 3 / 4")."""
        held = {most[c] for c in most if _against_most(r, c, most)}  # said with its number: "HP 3 / 4"
        shown = [c for c in others if c not in held and not repeats(r, c, cell) and not unchanged(r, c)]
        said = [x for i, c in enumerate(shown) if not again(r, c, lead + shown[:i], cell)
                for x in [item(r, c, cell)] if x is not None]
        # each item keeps the dot after it (a long one, pf1's commander, filled the line and left a "·" alone on one)
        items = [h("span", x, " ·" if i < len(said) - 1 else None, class_="kl-below-item") for i, x in enumerate(said)]
        return h("tr", h("td", join(items, " "), colspan=len(lead)), class_="kl-below") if items else None

    return h("table", h("thead", h("tr", (h("th", head[c], class_=kind[c]) for c in lead))),
             h("tbody", ((h("tr", (h("td", w(c), class_=kind[c]) for c in lead)), below(r, w))
                         for r, w in zip(rows, cells, strict=True))),
             class_="kl-table kl-panel-table")


def _item_model(annotation: Any) -> type[BaseModel] | None:
    """The model of the records a field of a state holds (``list[Building]``, ``dict[str, Faction]``, optional or
    not), or None.

    >>> class Item(BaseModel):
    ...     kind: str = "a"
    >>> _item_model(list[Item]), _item_model(dict[str, Item] | None), _item_model(tuple[Item, ...]), _item_model(int)
    (<class 'kingdomlog.views.sheet.panel.Item'>, <class 'kingdomlog.views.sheet.panel.Item'>, \
<class 'kingdomlog.views.sheet.panel.Item'>, None)
    """
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is dict:
        args = args[1:]
    elif origin not in (list, tuple, Union, UnionType, Annotated):
        return None
    for a in args[:1] if origin is Annotated else args:
        found = _item_model(a)
        if found is not None:
            return found
    return None


def _records_model(state_class: type, field: str) -> type[BaseModel] | None:
    """The model of the records a state class's ``field`` holds (``_item_model`` of its annotation), or None."""
    model_fields = getattr(state_class, "model_fields", {})
    return _item_model(model_fields[field].annotation) if field in model_fields else None


@cache
def word_defaults(state_class: type, field: str) -> dict[str, str]:
    """The words each field of the records a state's ``field`` holds has unless something set it otherwise: its
    model's default where that is a word (a ``str``, a ``Literal``'s, an enum's value; not an empty one, a
    number, a flag), as ``model_dump(mode="json")`` says it (``records_table``'s ``defaults``). A field whose
    ``json_schema_extra`` holds ``said_at_default`` is said all the same (signoria's treaty's stake: "low" is one of
    three a treaty is made at, not a state nothing set).

    >>> from kingdomlog.rulesets.pf1.state import Pf1State
    >>> word_defaults(Pf1State, "buildings")
    {'occupancy': 'active', 'bonus_mode': 'standard'}
    >>> from kingdomlog.rulesets.signoria.state import SignoriaState
    >>> "stake" in word_defaults(SignoriaState, "treaties")
    False
    """
    model = _records_model(state_class, field)
    if model is None:
        return {}
    out: dict[str, str] = {}
    for k, f in model.model_fields.items():
        extra = f.json_schema_extra
        if f.is_required() or (isinstance(extra, dict) and extra.get("said_at_default")):
            continue
        value = f.get_default(call_default_factory=True)
        value = value.value if isinstance(value, Enum) else value
        if isinstance(value, str) and value:
            out[k] = value  # as model_dump says it: by the field's name, not an alias
    return out


@cache
def inner_defaults(state_class: type, field: str) -> dict[str, dict[str, Any]]:
    """For each field of the records a state's ``field`` holds that holds a record of its own (a model, optional or
    not), that record's fields whose default is a zero, a false, an empty value or None, with it, as
    ``model_dump(mode="json")`` says them (``records_table``'s ``inner_defaults``: such a field at its default says
    nothing of the record; pf2e's work site "double until turn 0" is a site not doubled).

    >>> from kingdomlog.rulesets.pf2e.state import KingdomState
    >>> inner_defaults(KingdomState, "hexes")
    {'work_site': {'double_until_turn': 0}}
    """
    model = _records_model(state_class, field)
    if model is None:
        return {}
    out: dict[str, dict[str, Any]] = {}
    for k, f in model.model_fields.items():
        if get_origin(f.annotation) in (list, tuple, dict):  # records listed or keyed: said by names or counted
            continue
        inner = _item_model(f.annotation)
        if inner is None:
            continue
        zeros = {}
        for ik, inf in inner.model_fields.items():
            if inf.is_required():
                continue
            value = inf.get_default(call_default_factory=True)
            value = value.value if isinstance(value, Enum) else value
            if value is None or (not value and isinstance(value, (int, float, str, list, tuple, dict))):
                zeros[ik] = [] if isinstance(value, tuple) else value  # a tuple dumps as a list
        if zeros:
            out[k] = zeros
    return out


def _without_defaults(value: Any, zeros: Mapping[str, Any] | None) -> Any:
    """A record ``value`` without its fields at the defaults ``zeros`` gives them (``inner_defaults``); any other
    value as it is."""
    if not zeros or not isinstance(value, dict):
        return value
    return {k: v for k, v in value.items()
            if not (k in zeros and v == zeros[k] and type(v) is type(zeros[k]))}


_UNSET: tuple[Any, ...] = (None, "", [], {}, False)
"""A field's value that says nothing (no item on the line below a record)."""


def _once(r: Mapping[str, Any], cell: Callable[[Mapping[str, Any], str], str]) -> Callable[[str], str]:
    """``cell`` of record ``r``, each field's words worked out once (``records_table``'s ``again`` compares a field
    with every field before it, ``named`` with the record's name)."""
    said: dict[str, str] = {}

    def words_of(c: str) -> str:
        if c not in said:
            said[c] = cell(r, c)
        return said[c]

    return words_of


def _against_most(r: Mapping[str, Any], c: str, most: Mapping[str, str]) -> bool:
    """Whether record ``r``'s field ``c`` and the field of its most (``most[c]``: ``max_hp`` for ``hp``) are both
    numbers, said as one: "16 / 16"."""
    if c not in most:
        return False
    v, m = r.get(c), r.get(most[c])
    return all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (v, m))


def _kind_ids(rows: Sequence[Mapping[str, Any]], cols: Sequence[str]) -> dict[str, str]:
    """The columns whose value is a kind (``founder``: ``pc``) that a record may name one of by id beside it
    (``pc_id``: ``aino``), with that id's column: the kind's cell then says who (``Aino``), and the id's column
    goes, where every id it holds sits beside its kind (aikakirjat's institution founded by a named PC).

    >>> _kind_ids([{"founder": "pc", "pc_id": "aino"}, {"founder": "court", "pc_id": None}], ["founder", "pc_id"])
    {'founder': 'pc_id'}
    >>> _kind_ids([{"founder": "court", "pc_id": "aino"}], ["founder", "pc_id"])
    {}
    """
    out: dict[str, str] = {}
    for kind_col in cols:
        for id_col in cols:
            kind = id_col.removesuffix("_id")
            if id_col in (kind, kind_col) or id_col in out.values():
                continue
            with_id = [r for r in rows if r.get(id_col)]
            if any(r.get(kind_col) == kind for r in rows) and all(r.get(kind_col) == kind for r in with_id):
                out[kind_col] = id_col
    return out


def grid_html(record: Mapping[str, Any], name: Callable[[str], str] = _plain) -> Html:
    """A settlement's urban grid: each block a square of its lots, a lot showing what stands on it (numbered as
    the sheet's block and lot pickers number them, from 0; ``name``: what stands there in words)."""
    blocks = record.get("blocks")
    if not isinstance(blocks, list) or not all(isinstance(b, list) for b in blocks):
        return EMPTY
    cells = []
    for i, block in enumerate(blocks):
        lots = [h("div", name(str(lot))[:14] if lot else f"lot {j}", class_="kl-lot kl-lot-used" if lot else "kl-lot",
                  title=f"block {i}, lot {j}: {lot or 'empty'}") for j, lot in enumerate(block)]
        cells.append(h("div", h("div", f"block {i}", class_="kl-block-n"), h("div", lots, class_="kl-lots"),
                       class_="kl-block"))
    title = record.get("name") or record.get("id") or ""
    used = sum(1 for b in blocks for lot in b if lot)
    total = sum(len(b) for b in blocks)
    return h("div", h("div", f"{title}: {used} of {total} lots built", class_="kl-grid-title"),
             h("div", cells, class_="kl-grid"), class_="kl-grid-wrap")


def _against(dump: Mapping[str, Any]) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """Pairs of number tables with the same keys where one is a capacity (``commodities`` / ``storage``)."""
    tables = {k: v for k, v in dump.items() if isinstance(v, dict) and v
              and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v.values())}
    out = []
    for cap_name, cap in tables.items():
        if not any(n in cap_name.lower() for n in CAPACITY_NAMES):
            continue
        for name, have in tables.items():
            if name != cap_name and set(have) <= set(cap):
                out.append((name, have, cap))
    return out


CAP_SUFFIXES = ("_storage", "_threshold", "_capacity", "_max", "_limit")
SIDE_SUFFIXES = ("_penalty", "_modifier")


TREND_CLASS = {"better": "kl-then kl-then-better", "worse": "kl-then kl-then-worse"}


def _neither(key: str) -> Better:
    return ""


def _figure(value: Any, name: Callable[[str], str]) -> str:
    """A figure's value in words: an id, or ids joined by commas (``law_and_order,trade``), each as ``name`` says it
    (the state's ``views.words.Namer``: a feat by its title, ``Law and Order``, as the report names it)."""
    if isinstance(value, str) and re.fullmatch(r"[a-z0-9_,]+", value):
        return figure_text(value, name)  # a tile's word with its capital: "Winter"
    return scalar(value)


def stat_tiles(summary: Mapping[str, Any], later: Mapping[str, Any],
               better: Callable[[str], Better] = _neither, name: Callable[[str], str] = _plain,
               label: Callable[[str], str] = words) -> Html:
    """The main figures as tiles; ``x`` with ``x_storage``/``x_threshold`` as ``4 / 8``, its penalty beside it.

    A figure the draft moves shows what it ends with (``later``), coloured by whether that is good for the
    kingdom (``better``: the ruleset's ``Ruleset.better``; a figure it calls neither is left uncoloured). An id
    among the figures is said as ``name`` says it (default: its separators as spaces); a figure is headed as
    ``label`` says it (``views.words.figure_words``: ``Session``, not ``Session no``).
    """
    used: set[str] = set()
    tiles = []
    for k, v in summary.items():
        if k in used or k == "viewer":  # whose view a summary is (signoria's): on the GM's own panel, always the GM
            continue
        cap_key = next((k + s for s in CAP_SUFFIXES if k + s in summary), None)
        side = [k + s for s in SIDE_SUFFIXES if k + s in summary and summary[k + s]]
        used.update([k, *(x for x in [cap_key] if x), *(k + s for s in SIDE_SUFFIXES)])
        cap = [" ", h("span", f"/ {scalar(summary[cap_key])}", class_="kl-cap")] if cap_key is not None else None
        moved = k in later and later[k] != v
        trend = Figure(k, k, later.get(k), v, better=better(k)).trend if moved else ""
        tail = [" ", h("span", f"→ {_figure(later[k], name)}", class_=TREND_CLASS.get(trend, "kl-then"),
                       title={"better": "better for the kingdom", "worse": "worse for the kingdom"}.get(trend))
                ] if moved else None
        extra = [h("div", f"{words(x.removeprefix(k + '_'))} {scalar(summary[x])}", class_="kl-stat-side")
                 for x in side]
        full = " kl-stat-full" if cap_key is not None and isinstance(v, (int, float)) and not isinstance(v, bool) \
            and isinstance(summary[cap_key], (int, float)) and v >= summary[cap_key] else ""
        full += " kl-stat-wide" if len(scalar(v)) > 28 else ""
        tiles.append(h("div", h("div", label(k), class_="kl-stat-name"),
                       h("div", _figure(v, name), cap, tail, class_="kl-stat-value"), extra,
                       class_=f"kl-stat{full}", data_figure=k))
    return h("div", tiles, class_="kl-stats")


_STATIC: ByIdentity[State, dict[tuple[tuple[str, str], ...], Html]] = ByIdentity(limit=1)


def panel_tiles_html(ruleset: Ruleset, state: State, *, after: State | None = None) -> Html:
    """The panel's main figures of ``state``, with what the draft (ending at ``after``) does to them."""
    later = summary_of(ruleset, after) if after is not None else {}
    name = namer(ruleset, state)
    tiles = stat_tiles(summary_of(ruleset, state), later, ruleset.better, name.value,
                       lambda k: figure_label(ruleset, name.names, k))
    return tiles + (h("div", "→ what the draft turn ends with", class_="kl-help") if later else EMPTY)


def _also(name: Namer, known: Mapping[str, str]) -> Namer:
    """``name`` that also says the ids in ``known`` by their names (ids the state holds but cannot name itself)."""
    if not known:
        return name
    out = copy.copy(name)
    out.names = {**known, **name.names}  # the state's own records first: felmonte's campaign id is a faction's
    return out


def panel_html(ruleset: Ruleset, state: State, *, after: State | None = None, live: bool = False,
               known: Mapping[str, str] | None = None) -> Html:
    """The kingdom panel of ``state`` (the start of the turn); ``after``: the draft's end (figures it moves).

    The figures are a live part of the page (``data-kl-slot="tiles"``, views.sheet.live): an edit
    redraws them alone (``live``: left empty for it to fill); the records below them are those of the
    start of the turn. ``known``: ids the state keeps that only the campaign names, by their names (the
    campaign's own id, which pf1's and pf2e's states keep, by the campaign's name: ``campaign_names``).
    """
    tiles = None if live else panel_tiles_html(ruleset, state, after=after)
    drawn = _STATIC.get(state, lambda s: {})  # the records of this state, by the names known beside it
    said = tuple(sorted((known or {}).items()))
    if said not in drawn:
        drawn[said] = _collections_html(state, summary_of(ruleset, state), _also(namer(ruleset, state), dict(said)),
                                        ruleset)
    return h("div", h("div", tiles, data_kl_slot="tiles"), drawn[said],
             class_="kl-panel")


def campaign_names(camp: Any) -> dict[str, str]:
    """The campaign's own id by its name (``campaign.toml``'s ``name``), for ``panel_html``'s ``known``; none when
    it has no name."""
    name = str(getattr(camp.config, "name", "") or "")
    return {camp.id: name} if name else {}


def _shown(key: str, value: Any, summary: Mapping[str, Any]) -> bool:
    """Whether a record of the state is shown among the figures already, field by field (aikakirjat's ``session``:
    its ``session_no``, ``years_total`` as the figures ``session_no``, ``session_years_total``)."""
    if not isinstance(value, dict) or not value:
        return False
    return all(summary.get(k if k.startswith(f"{key}_") else f"{key}_{k}", ...) == v for k, v in value.items())


def _is_options(value: Any, ruleset: Ruleset | None) -> bool:
    """Whether ``value`` (a field of a state) is the campaign's options: a record of options ``ruleset`` declares."""
    names = {o.name for o in ruleset.options} if ruleset is not None else set()
    return isinstance(value, dict) and bool(value) and set(value) <= names


def options_html(ruleset: Ruleset, options: Mapping[str, Any], name: Namer | None = None) -> Html:
    """The campaign's options as a table of what each says (``Ruleset.option_words``: "Revolution — at Unrest 20
    or more"; it read "revolution threshold gte20", a cell of the state's record); a record's id among the values
    by its name (``name``: signoria's players "Duke Fabian, Doge of Marburg")."""
    say = name.text if name is not None else str
    return h("details", h("summary", "Campaign options"),
             h("table", (h("tr", h("th", title), h("td", say(value)))
                         for title, value in ruleset.option_words(options)), class_="kl-table"), class_="kl-panel-sec")


def _other(key: str, value: Any, name: Namer | None) -> str:
    """A field of the state among "Everything else": as the ruleset says that field's value (``Namer.field``:
    signoria's flags "Month 2: Duke Fabian low on wealth (1)"), a lone word with its capital as a tile says it
    ("Upkeep"; it read "upkeep"), records inside counted as what the field holds ("3 notices")."""
    if name is None:
        return _cell(value, _plain, singular(words(key).lower()), WHOLE)

    def field(v: str) -> str:  # the field's words, for its words alone: a record's keys keep the Namer's
        return name.field(key, v)

    if isinstance(value, str) and re.fullmatch(r"[a-z0-9_]+", value):
        return figure_text(value, field)
    if isinstance(value, dict) and value and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                 for v in value.values()):  # numbers by key: each key as the field
        return ", ".join(f"{field(str(k))} {v:g}" for k, v in value.items())  # says it (pf2e's cooldowns)
    if isinstance(value, (str, list, tuple)) and all(isinstance(v, str) for v in value):
        return _cell(value, field, singular(words(key).lower()), WHOLE)
    return _cell(value, name.value, singular(words(key).lower()), WHOLE)


def _collections_html(state: State, summary: Mapping[str, Any], name: Namer | None = None,
                      ruleset: Ruleset | None = None) -> Html:
    say = name.value if name is not None else _plain
    parts = []
    dump = state.model_dump(mode="json")
    kept = next((k for k, v in dump.items() if _is_options(v, ruleset)), None)
    paired = _against(dump)
    used: set[str] = set()
    if paired:
        rows = []
        for stock, have, cap in paired:
            used.add(stock)
            for k in cap:
                v = have.get(k, 0)
                full = " kl-full" if isinstance(v, (int, float)) and v >= cap[k] else ""
                rows.append(h("tr", h("th", words(k)), h("td", f"{v:g} / {cap[k]:g}", class_=f"kl-num-cell{full}")))
        parts.append(h("details", h("summary", "Stock against storage"), h("table", rows, class_="kl-table"),
                       class_="kl-panel-sec", open=True))
    other: dict[str, Any] = {}
    for k, v in dump.items():
        rows_ = _records(v)
        if rows_ is not None:
            keys = ruleset.panel_columns.get(k) if ruleset is not None else None  # the columns a GM scans down
            parts.append(h("details", h("summary", f"{words(k)} ({len(rows_)})"),
                           records_table(rows_, name, singular(words(k)), k, keys, word_defaults(type(state), k),
                                         inner_defaults(type(state), k)),
                           (grid_html(r, say) for r in rows_),
                           class_="kl-panel-sec", open=True))
        elif k not in summary and k not in used and not _shown(k, v, summary) and k != kept:
            other[k] = v
    if other:
        parts.append(h("details", h("summary", "Everything else"),
                       h("table", (h("tr", h("th", figure_words(ruleset, k)), h("td", _other(k, v, name)))
                                   for k, v in other.items()),
                         class_="kl-table"), class_="kl-panel-sec"))
    if kept is not None and ruleset is not None:
        parts.append(options_html(ruleset, dump[kept], name))
    return join(parts)


CSS = """
.kl-panel { font-size: .92em; }
.kl-pbp .kl-table { font-size: .85em; width: 100%; }
.kl-stats { display: flex; flex-wrap: wrap; gap: .4em; margin: .3em 0; }
.kl-stats { display: grid; grid-template-columns: repeat(auto-fill, minmax(6.5em, 1fr)); gap: .3em; }
.kl-stat { border: 1px solid #ddd; border-radius: 6px; padding: .15em .45em; background: #fff; }
.kl-stat-name { color: #666; font-size: .75em; }
.kl-stat-value { font-weight: 650; font-size: 1.02em; overflow-wrap: anywhere; }
.kl-stat-side { color: #a04000; font-size: .72em; } .kl-cap { color: #888; font-weight: 400; font-size: .85em; }
.kl-stat-full { border-color: #d68910; } .kl-stat-wide { grid-column: 1 / -1; }
.kl-then { color: #555; font-weight: 600; font-size: .9em; }
.kl-then-better { color: #1e6f3e; } .kl-then-worse { color: #b03a2e; }
.kl-panel-sec { margin: .4em 0; } .kl-panel-sec > summary { font-weight: 600; cursor: pointer; }
.kl-panel-table { font-size: .9em; } .kl-vacant { color: #c0392b; } .kl-empty { color: #999; }
.kl-panel-table .kl-hex, .kl-panel-table .kl-most { white-space: nowrap; }
.kl-below > td { border-top-style: hidden; font-size: .92em; color: #444; padding: 0 8px 3px 1.2em; }
.kl-below-item { display: inline-block; } .kl-below-k { color: #777; }
.kl-grid-wrap { margin: .4em 0; } .kl-grid-title { font-weight: 600; font-size: .9em; }
.kl-grid { display: grid; grid-template-columns: repeat(3, 7.5em); gap: .3em; }
.kl-block { border: 2px solid #8d7b5a; border-radius: 4px; padding: 2px; background: #f4efe3; }
.kl-block-n { font-size: .7em; color: #666; }
.kl-lots { display: grid; grid-template-columns: 1fr 1fr; gap: 2px; }
.kl-lot { border: 1px dashed #bbb; height: 2.6em; font-size: .66em; display: flex; align-items: center;
  justify-content: center; text-align: center; overflow: hidden; color: #aaa; background: #fff; }
.kl-lot-used { border-style: solid; border-color: #8d7b5a; color: #333; background: #e8dcc0; }
.kl-full { color: #b9770e; font-weight: 650; }
"""
"""The panel's CSS."""


# ---- play by post: where the turn stands -------------------------------------------------------------------------


def table_status_html(camp: Any) -> Html:
    """For a campaign with players' orders (Signoria): who has submitted, who is ready, who is missing, the
    questions still open with whom they wait for, and the time left (``app.pbp.status``, as the sheet opened).
    Empty for a campaign without player steps."""
    from kingdomlog.app import pbp

    st = pbp.status(camp)
    if not any(p.steps for p in st.players):
        return EMPTY
    due = f"{st.orders_due:%Y-%m-%d %H:%M} UTC, {st.time_left()}" if st.orders_due else "no deadline set"
    head = h("div", f"Now: {st.stage} · orders due {due}"
             + (" · resolves itself when everything is in" if st.auto_resolve else "")
             + ("" if st.published else " · the opening is not published yet"), class_="kl-help")

    def steps(p: Any, names: Sequence[str]) -> str:  # "command.fabian" -> "command": the row names the player
        return ", ".join(words(re.sub(rf"[._-]{re.escape(p.id)}$", "", n)).lower() for n in names) or "—"

    state = camp.state()

    def named(pid: str) -> str:  # a player by its name in the state ("Duke Fabian"), never its id
        return str(camp.player_name(pid, state))

    rows = [h("tr", h("th", named(p.id)), h("td", steps(p, p.submitted)), h("td", steps(p, p.missing)),
              h("td", "yes" if p.ready else "no"), h("td", len(p.questions_open) or "—")) for p in st.players]
    table = h("table", h("tr", (h("th", x) for x in ("Player", "Sent", "Missing", "Ready", "Asked"))), rows,
              class_="kl-table kl-small")
    extra = []
    for q in (q for q in st.questions if not q.answered):
        left = pbp.time_words((q.deadline - st.now).total_seconds()) if q.deadline else "no deadline"
        extra.append(h("li", f"waiting for {named(q.to)}: {words(q.kind)} ({left})"))
    if st.problem:
        extra.append(h("li", f"the resolution is refused: {st.problem}", class_="kl-bad"))
    if st.waiting_on:
        extra.append(h("li", f"waiting on: {', '.join(named(w) for w in st.waiting_on)}"))
    return h("details", h("summary", "The players this turn"), head, table,
             h("ul", extra, class_="kl-list") if extra else None, class_="kl-panel-sec kl-pbp", open=True)
