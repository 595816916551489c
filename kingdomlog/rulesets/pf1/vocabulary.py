"""The options of every ``Pick(source)`` of the pf1 choices, computed from the state.

Each ``Option`` carries what a GM weighs in its ``detail`` (cost, modifier, status). A
vocabulary lists every id the state has (plus ids an earlier field of the same step creates,
through ``within``); whether one may be used now is the step's rule check, so a refusal
names its rule.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kingdomlog.core.choices import PARENT, Option
from kingdomlog.rulesets.pf1 import derive as dv
from kingdomlog.rulesets.pf1 import specials as sx
from kingdomlog.rulesets.pf1.mapview import feature_words
from kingdomlog.rulesets.pf1.names import record_names
from kingdomlog.rulesets.pf1.state import Army, Hex, Pf1State, hex_words
from kingdomlog.rulesets.pf1.tables import EdictLevel

ABILITIES = ("STR", "DEX", "CON", "INT", "WIS", "CHA")

Vocab = Callable[[Pf1State, Mapping[str, Any]], list[Option]]
SOURCES: dict[str, Vocab] = {}


def source(name: str) -> Callable[[Vocab], Vocab]:
    def deco(fn: Vocab) -> Vocab:
        SOURCES[name] = fn
        return fn

    return deco


def vocabulary(s: Pf1State, name: str, within: Mapping[str, Any]) -> Sequence[Option] | None:
    """The options of ``Pick(name)`` in ``s`` (``within``: the sibling values, typed or as given in a plan)."""
    return SOURCES[name](s, within)


# ------------------------------------------------------------------ hexes


def _hex_label(h: Hex) -> str:
    """A hex as an option reads it, named as the map labels it: "hex 3 (hills)" (it read "h3 (hills)")."""
    return f"{hex_words(h.id)} ({h.terrain.lower()}{', river' if h.river else ''})"


def _status(h: Hex, s: Pf1State | None = None, *, claimed: bool = False) -> str:
    """What a hex holds, in words: its city by its name (it read "city C1"), its features as the map says them
    ("bridge", "town (Oleg's Trading Post)"; they read "BRIDGE", "TOWN:Oleg's Trading Post"), a town that is its
    city once (the city's name says it; it read "Oleg's Trading Post; town (Oleg's Trading Post)"); whether it is
    claimed unless every hex of the list is (``claimed``). Short enough for the closed dropdown at 1280 px and on a
    phone (tests/notebooks/test_selects_fit_browser.py)."""
    parts = []
    if h.claimed:
        parts += [] if claimed else ["claimed"]
    else:
        parts += [x for x, ok in (("unexplored", not h.explored), ("not cleared", not h.cleared)) if ok]
    if h.road:
        parts.append("road")
    if h.improvement:
        parts.append(h.improvement.lower())
    city = ""
    if h.city:
        city = s.cities[h.city].name if s is not None and h.city in s.cities else "a city"
        parts.append(city)
    features = [feature_words(f) for f in h.features if f != f"TOWN:{city}"]
    if features:
        parts.append(", ".join(features))
    return "; ".join(parts)


def _mapped_in(within: Mapping[str, Any], key: str) -> list[str]:
    out = []
    for entry in within.get(key) or ():
        hid = entry.get("id") if isinstance(entry, Mapping) else getattr(entry, "id", None)
        if hid:
            out.append(str(hid))
    return out


@source("hexes")
def _hexes(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    out = [Option(h.id, _hex_label(h), _status(h, s)) for h in s.hexes.values()]
    have = set(s.hexes)
    out += [Option(x, hex_words(x), "mapped in this step") for x in _mapped_in(within, "map") if x not in have]
    return out


@source("claim_hexes")
def _claim_hexes(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    out = []
    for h in s.hexes.values():
        refused = ""  # what the claim (base §4.3 I2) refuses whatever else the step does; adjacency may change
        if h.claimed:
            why = refused = "already claimed (base §4.3 I2)"
        elif not (h.explored and h.cleared):
            why = refused = "explore and clear it first (base §4.3 I2)"
        elif dv.size(s) > 0 and not dv.adjacent_to_kingdom(s, h):
            why = "not adjacent to the kingdom"
        else:
            town = next((f.split(":", 1)[1] for f in h.features if f.startswith("TOWN:")), None)
            why = "claimable, 1 BP" + (f"; annexing {town}: Stability check" if town else "")
        out.append(Option(h.id, _hex_label(h), why, refused))
    return out


@source("claimed_hexes")
def _claimed(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    return [Option(h.id, _hex_label(h), _status(h, s, claimed=True)) for h in dv.claimed_hexes(s)]


@source("abandon_hexes")
def _abandon(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    out = [Option(h.id, _hex_label(h), "Unrest +4 (a city)" if h.city else "Unrest +1")
           for h in dv.claimed_hexes(s)]
    have = {o.value for o in out}
    out += [Option(str(x), hex_words(str(x)), "claimed in this step; Unrest +1") for x in within.get("claim") or ()
            if x not in have]
    return out


@source("district_hexes")
def _district_hexes(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    out = []
    for h in s.hexes.values():
        cost, months = dv.district_cost(s, h.terrain)
        # short enough for an entry on a phone (it read "1 BP, 0 month(s); claimed; adds to Oleg's Trading Post")
        where = (f"adds to {s.cities[h.city].name}" if h.city and h.city in s.cities else "claimed") if h.claimed \
            else "not claimed"
        time = f", {_plural(months, 'month')}" if months else ""
        out.append(Option(h.id, _hex_label(h), f"{cost} BP{time}; {where}"))
    return out


@source("road_hexes")
def _road_hexes(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    out = []
    for h in s.hexes.values():
        cost, doubled = dv.road_cost(s, h)
        state = "has a road" if h.road else "claimed" if h.claimed else "not claimed"
        out.append(Option(h.id, _hex_label(h), f"{cost} BP{', no bridge' if doubled else ''}; {state}"))
    return out


@source("improvement_hexes")
def _improvement_hexes(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    out = []
    for h in s.hexes.values():
        bits = ["claimed" if h.claimed else "not claimed", "road" if h.road or "ROAD" in h.features else "no road"]
        if h.improvement:
            bits.append(f"has a {h.improvement.lower()}")
        if h.city:
            bits.append("city")
        out.append(Option(h.id, _hex_label(h), ", ".join(bits)))
    return out


SHORT = {"Economy": "Eco", "Loyalty": "Loy", "Stability": "Stab", "Consumption": "Cons"}
"""A kingdom attribute's short name, where an option would not fit a phone's dropdown in full words."""

FITS = 52
"""The characters an option (``label — detail``) holds in an entry's dropdown on a phone (346 px: "Ruler — CHA →
chosen attribute(s); held by Kesten Garess", 56 characters, needed 349; tests/notebooks/test_selects_fit_browser.py).
"""


def _by_value(label: str, mods: Sequence[tuple[str, int]], before: str = "") -> str:
    """``before`` and the modifiers grouped by their value ("Economy, Stability +1; Unrest -4"), the attributes by
    their short names where ``label — detail`` would not fit a phone's dropdown in full words (each said apart it
    read "Economy +2, Loyalty +2, Stability +2, Unrest -4", up to 554 px in an entry's 346).

    >>> _by_value("Mint", [("Economy", 3), ("Loyalty", 3), ("Stability", 1)], "30 BP")
    '30 BP; Economy, Loyalty +3; Stability +1'
    >>> _by_value("Castle", [("Economy", 2), ("Loyalty", 2), ("Stability", 2), ("Unrest", -4)], "54 BP, 4 lots")
    '54 BP, 4 lots; Eco, Loy, Stab +2; Unrest -4'
    """
    def said(short: bool) -> str:
        by: dict[int, list[str]] = {}
        for name, v in mods:
            if v:
                by.setdefault(v, []).append(SHORT.get(name, name) if short else name)
        return "; ".join(x for x in (before, *(f"{', '.join(names)} {v:+d}" for v, names in by.items())) if x)

    full = said(False)
    return full if len(f"{label} — {full}") <= FITS else said(True)


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


@source("improvement_types")
def _improvement_types(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    h = s.hexes.get(str(within.get("hex"))) if within.get("hex") else None
    out = []
    every = {t for imp in s.catalog.improvements.values() for t in imp.terrains}
    for imp in s.catalog.improvements.values():
        cost = dv.improvement_cost(s, imp, h) if h is not None else imp.cost
        effects = [(a.capitalize(), getattr(imp, a)) for a in ("economy", "loyalty", "stability", "consumption")]
        # the terrains only where they are not all of them (it read "on grassland, hills, forest, marsh, mountains"
        # on six of ten: 498 px in a 337 px select on a phone); a hex of another terrain is refused in words
        where = "" if set(imp.terrains) == every else f"; {', '.join(imp.terrains).lower()} only"
        out.append(Option(imp.name, imp.name.capitalize(), _by_value(imp.name.capitalize(), effects,
                                                                     f"{cost} BP{where}")))
    return out


# ------------------------------------------------------------------ cities, districts, buildings


@source("cities")
def _cities(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    out = []
    for c in s.cities.values():
        n, lots = len(c.districts), dv.city_lots(s, c)  # counted as a person counts: it read "1 district(s), 1 lots"
        detail = (f"{'capital, ' if c.capital else ''}{n} district{'' if n == 1 else 's'}, "
                  f"{lots} lot{'' if lots == 1 else 's'}" + (", detached (hex lost)" if c.detached else ""))
        out.append(Option(c.name, c.name, detail))
    names = {c.name for c in s.cities.values()}
    # a plan may name a city by its id: allowed, read as the city ("Tatzlford"; it read "C1 = Tatzlford")
    out += [Option(c.id, o.label, o.detail, alias=True)
            for c, o in zip(s.cities.values(), out, strict=True) if c.id not in names]
    return out


@source("districts")
def _districts(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    out = []
    said = record_names(s)  # "district 1 of Tatzlford" (it read "D1 (Tatzlford)")
    for d in s.districts.values():
        status = "ready" if d.status == "READY" else f"preparing until turn {d.ready_on_turn}"
        out.append(Option(d.id, said[d.id], f"{status}; {len(dv.occupied(s, d.id))} of 36 lots built"))
    return out


@source("buildings")
def _buildings(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    out = []
    said = record_names(s)  # "Granary (Tatzlford)", on lots of "district 1 of Tatzlford" (it read "B2", "D1")
    for b in s.buildings.values():
        extra = "" if b.occupancy == "active" else f", {b.occupancy.replace('_', ' ')}"
        where = f"lot{'' if len(b.lots) == 1 else 's'} {', '.join(str(n) for n in b.lots)}"  # it read "lots [0]"
        # the city is the label's: the district by its number (it read "House (Oleg's Trading Post) — lot 0 in
        # district 1 of Oleg's Trading Post", 409 px in an entry's 346 on a phone)
        district = said.get(b.district, b.district).split(" of ")[0]  # "district 1 of Tatzlford": "district 1"
        out.append(Option(b.id, said[b.id], f"{district}, {where}{extra}"))
    return out


@source("slot_buildings")
def _slot_buildings(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    out = []
    said = record_names(s)
    for b in s.buildings.values():
        if not b.slots:
            continue
        filled = [sl for sl in b.slots if sl.item]  # which items: the kingdom panel (it read "(0: unnamed minor item)")
        out.append(Option(b.id, said[b.id], f"{len(filled)}/{len(b.slots)} slots filled"))
    return out


@source("building_types")
def _building_types(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    out = []
    for t in s.catalog.buildings.values():
        effects = [(a.capitalize(), getattr(t, a)) for a in ("economy", "loyalty", "stability", "unrest")]
        # its cost, its lots when more than one, what it gives: the houses it needs beside it are the field's help
        # and the refusal's (it read "Black Market — 50 BP, 1 lot(s); Economy +2, Stability +1, Unrest +1; next to 2
        # house(s)", 496 px in an entry's 346 on a phone)
        detail = _by_value(t.name, effects, f"{t.cost} BP" + (f", {t.lots} lots" if t.lots != 1 else ""))
        out.append(Option(t.name, t.name, detail))
        out += [Option(a, a, f"the same as {t.name}") for a in t.aliases]
    return out


# ------------------------------------------------------------------ leaders


@source("roles")
def _roles(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    out = []
    for r in s.catalog.roles.values():
        if not dv.role_available(s, r.name):
            continue
        holders = ", ".join(o.name + ("" if o.present else " (absent)") for o in s.leaders.get(r.name, ()))
        # the attribute it adds to when the role fixes it ("→ chosen attribute(s)" otherwise said nothing a person
        # chooses by: 371 px in an entry's 346 on a phone)
        attrs = f" → {', '.join(a.capitalize() for a in r.attributes)}" if r.attributes else ""
        out.append(Option(r.name, _role_words(r.name),
                          f"{'/'.join(r.abilities)}{attrs}; " + (f"held by {holders}" if holders else "vacant")))
    return out


@source("abilities")
def _abilities(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    role = s.catalog.roles.get(str(within.get("role") or ""))
    out = []
    for a in ABILITIES:
        if role is None:
            n = sum(a in r.abilities for r in s.catalog.roles.values())  # which: the role's own list, once picked
            detail = f"used by {n} role{'' if n == 1 else 's'}"
        else:  # the role in words (it read "RULER's ability", "CHA — RULER, COUNCILOR, GENERAL, GRAND_DIPLOMAT, ...")
            detail = f"the {_role_words(role.name)}'s" if a in role.abilities else "not the role's (base §2.4)"
        out.append(Option(a, a, detail))
    return out


def _role_words(role: str) -> str:
    """A role's id as its dropdown says it: ``GRAND_DIPLOMAT`` → ``Grand Diplomat``."""
    return role.replace("_", " ").title()


@source("leader_names")
def _leader_names(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    role = within.get("role")
    out = []
    for r, occ in s.leaders.items():
        if role and r != role:
            continue
        for o in occ:
            out.append(Option(o.name, o.name, f"{_role_words(r)}, {o.ability} {o.modifier:+d}"
                              + ("" if o.present else ", absent")))
    return out


# ------------------------------------------------------------------ edicts, events, modules


def _edict_detail(e: EdictLevel) -> str:
    parts = [f"{a.capitalize()} {getattr(e, a):+d}" for a in ("economy", "loyalty", "stability", "consumption")
             if getattr(e, a)]
    return ", ".join(parts) or "no effect"


def _edicts(table: str) -> Vocab:
    def fn(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
        cur = {"promotion": s.edicts.promotion, "taxation": s.edicts.taxation, "festivals": s.edicts.festivals}
        rows: Mapping[str, EdictLevel] = getattr(s.catalog, table)
        return [Option(k, k.capitalize(), _edict_detail(v) + ("; current" if cur[table] == k else ""))
                for k, v in rows.items()]

    return fn


source("promotion_levels")(_edicts("promotion"))
source("taxation_levels")(_edicts("taxation"))
source("festival_levels")(_edicts("festivals"))


@source("event_tables")
def _event_tables(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    own = s.opt("event_table")
    # short enough for the closed dropdown (it read "Rivers Run Red — the 17 kingdom events, their effects entered by
    # the GM; the campaign's", 517 px in a 309 px select; tests/notebooks/test_selects_fit_browser.py)
    return [Option(v, label, detail + ("; in use" if own == v else "")) for v, label, detail in (
        ("rrr", "Rivers Run Red", "17 events, effects by the GM"),
        ("uc", "Ultimate Campaign", "its tables, effects as data"))]


@source("adventurers_hired")
def _adventurers_hired(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    return [Option(0, "None"), *(Option(bonus, f"+{bonus} on one event check", f"{bp} BP")
                                 for bonus, bp in ((2, 4), (5, 8), (10, 16)))]


@source("event_choices")
def _event_choices(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    last = s.event_last_turn
    quiet = last is False or (last is None and s.opt("first_turn_counts_as_quiet"))
    chance = int(s.opt("event_chance_after_quiet_turn")) if quiet else int(s.opt("event_chance_base"))
    out = [Option("roll", "Roll", f"{chance}% chance, then d100 on the table"),
           Option("none", "None", "no event this month (the chance is still rolled)")]
    if (within.get("event_table") or s.opt("event_table")) == "uc":
        tabs = s.catalog.uc_events
        where = {n: f"{t} d100 {lo}-{hi}" for t, rows in tabs.tables.items() for lo, hi, n in rows}
        out += [Option(e.name, e.name, f"{e.kind} {e.scope} event{', continuous' if e.continuous else ''}"
                       f"{', checks ' + ' + '.join(e.checks) if e.checks else ''}; {where.get(e.name, 'Table 4-7')}")
                for e in sorted(tabs.events.values(), key=lambda x: x.name)]
        return out
    # the chance is Roll's ("75% chance, then d100 on the table"); it was said on every event as well ("…; if the
    # chance (75%) comes up", up to 450 px in a 309 px select; tests/notebooks/test_selects_fit_browser.py)
    out += [Option(e.name, e.name, f"{e.kind}, d100 {e.low}-{e.high}") for e in s.catalog.events]
    return out


@source("governments")
def _governments(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    out = []
    for g in s.catalog.governments.values():
        by: dict[int, list[str]] = {}  # the modifiers by their value: "corruption, crime, productivity +1; law -3"
        for m in ("corruption", "crime", "law", "lore", "productivity", "society"):
            if getattr(g, m):
                by.setdefault(getattr(g, m), []).append(m)
        line = "; ".join(f"{', '.join(names)} {v:+d}" for v, names in by.items())
        note = "" if s.module_on("government_forms") or g.name == "feudal_monarchy" else "; needs government forms"
        out.append(Option(g.name, g.name.replace("_", " ").capitalize(), (line or "no modifiers") + note))
    return out


@source("foreign_kingdoms")
def _foreign(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    out = []
    for k, fk in s.foreign.items():
        rel = s.relations.get(k)
        detail = f"{fk.alignment}, Size {fk.size}"
        if rel is not None:
            detail += f"; {rel.attitude}, {rel.level}" + (", at war" if rel.at_war else "")
        out.append(Option(k, fk.name, detail))
    return out


@source("expeditions")
def _expeditions(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    return [Option(x.id, x.id, f"{x.status}, month {x.months_elapsed + 1} of {x.months}")
            for x in s.expeditions if x.status in ("active", "scattered_this_month")]


# ------------------------------------------------------------------ mass combat (UC Mass Combat)


def _army_detail(s: Pf1State, a: Army) -> str:
    """An army's key numbers and, when it is not the kingdom's, whose it is (by name: it read the side's id,
    "; kingdom"); its size, Morale and commander are the army's card (it read "Large ACR 3: hp 16/16, OM +4, DV 13,
    Morale +0, active, led by Amiri; kingdom", 558 px in an entry's 346 on a phone)."""
    status = "" if a.status == "active" else f", {a.status.replace('_', ' ')}"
    whose = "" if a.side == "kingdom" else f"; {s.foreign[a.side].name}" if a.side in s.foreign else "; enemy"
    return f"ACR {a.acr}, hp {a.hp}/{a.max_hp}, OM {a.om:+d}, DV {a.dv}{status}{' (reserve)' if a.reserve else ''}" \
        + whose


@source("armies")
def _armies(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    return [Option(a.id, a.name, _army_detail(s, a),
                   disabled=f"{a.status}" if a.status in ("defeated", "disbanded") else "")
            for a in s.armies.values()]


@source("our_armies")
def _our_armies(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    return [Option(a.id, a.name, _army_detail(s, a),
                   disabled=f"{a.status}" if a.status in ("defeated", "disbanded") else "")
            for a in s.armies.values() if a.side == "kingdom"]


@source("tactics")
def _tactics(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    out = []
    for t in s.catalog.mass_combat.tactics.values():
        nums = ", ".join(x for x in (f"OM {t.om:+d}" if t.om else "", f"DV {t.dv:+d}" if t.dv else "",
                                     f"Morale {t.morale:+d}" if t.morale else "",
                                     f"damage {t.damage:+d}" if t.damage else "") if x)
        need = f"; needs {t.requires}" if t.requires else ""
        out.append(Option(t.name, t.name, (nums or t.note or t.special or "no modifiers")
                          + (" (every army knows it)" if t.default else "") + need))
    return out


@source("army_resources")
def _resources(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    # its cost and what it adds; the scaling by size and the buildings it needs are the field's help and the
    # refusal's (it read "Healing Potions — 10 BP (Medium; scaled by size), Consumption +0/week; needs Alchemist or
    # Caster's Tower or Cathedral or ...", 1003 px in an entry's 346 on a phone)
    return [Option(r.name, r.name, ", ".join(x for x in (
        f"{r.cost} BP", f"OM +{r.om}" if r.om else "", f"DV +{r.dv}" if r.dv else "", "ranged" if r.ranged else "",
        f"Consumption +{r.consumption}" if r.consumption else "") if x))
        for r in s.catalog.mass_combat.resources.values()]


@source("army_specials")
def _specials(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    def how(x: Any) -> str:
        if x.param == "number":
            return f"written with its number: {x.name} {x.default if x.default is not None else 5}"
        if x.param == "choice":
            return f"written with its choice: {x.name} ({x.choices[0] if x.choices else '…'})"
        return ""
    def detail(x: Any) -> str:
        return ", ".join(p for p in (f"OM {x.om:+d}" if x.om else "", f"DV {x.dv:+d}" if x.dv else "",
                                     f"damage +{x.damage}" if x.damage else "", "ranged" if x.ranged else "",
                                     x.note, how(x), "GM ruling: " + x.ruling if x.ruling else "") if p) or (x.kind
                                                                                                          or "")
    mc = s.catalog.mass_combat
    immunities = sorted({i for x in mc.specials.values() for i in x.immune})
    out: list[Option] = []
    for x in mc.specials.values():
        # an ability chosen from a list is offered with each choice (Hex (healing), Immunity (Poison)); one
        # taking a free number or creature is offered bare and written with it (the step says how)
        variants = (x.choices or (immunities if x.kind == "immunity" else ())) if x.param == "choice" else ()
        out += [Option(f"{x.name} ({v})", f"{x.name} ({v})", detail(x)) for v in variants] or [
            Option(x.name, x.name, detail(x))]
    return out


def _in_battle(within: Mapping[str, Any], key: str) -> Any:
    """A value of the battle an order is given in: the entry's own (a battle's), else its battle's (a Melee
    phase's orders, ``within[PARENT]``)."""
    if key in within:
        return within.get(key)
    parent = within.get(PARENT)
    return parent.get(key) if isinstance(parent, Mapping) else None


def _uses(s: Pf1State, lead_key: str, allies_key: str, within: Mapping[str, Any]) -> list[Option]:
    """The orders of a special ability the battle's lead army (``lead_key``: ``ours`` or ``enemy``) can be given
    (UC Special Abilities: those the data marks ``use``), each written as the battle reads it (battle._use): with
    its choice where it needs one (``Judgment (damage)``, ``Wild Shape (Flight)`` and ``(end)``, ``Channel Positive
    Energy (heal)``), with an allied army of the battle where it names one (``Inspire Courage (A3)``, said ``for
    Tatzlford Guard``), and the orders a Wild Shape form gives (``Flight``). None offered before the lead army is
    chosen."""
    lead = s.armies.get(str(_in_battle(within, lead_key) or ""))
    if lead is None:
        return []
    mc = s.catalog.mass_combat
    allies = [s.armies[a] for a in (_in_battle(within, allies_key) or ()) if isinstance(a, str) and a in s.armies]
    held = dict(sx.of(s, lead))
    forms = {f for f in held["Wild Shape"][0].choices if f in mc.specials and f not in held} if "Wild Shape" in held \
        else set()
    held.update({f: (mc.specials[f], None) for f in sorted(forms)})
    out: list[Option] = []
    for name, (sp, own) in held.items():
        if not sp.use:
            continue
        note = f"once wild-shaped into it: {sp.note}" if name in forms else sp.note
        if sp.kind in ("channel_negative", "channel_positive"):
            out.append(Option(f"{name} (heal)", f"{name}: heal", note))
        elif sp.kind in ("combat_style", "weapon_specialization", "judgment", "wild_shape"):
            ends = ("end",) if sp.kind == "wild_shape" else ()
            out += [Option(f"{name} ({c})", f"{name} ({c})" if c != "end" else f"{name}: end it", note)
                    for c in (*sp.choices, *ends)]
        elif sp.kind == "courage":
            out += [Option(f"{name} ({a.id})", f"{name} for {a.name}", note) for a in allies]
        else:
            out.append(Option(name, name, note))
            if own:  # as written on the army (``Hex (healing)``): the battle reads it the same
                out.append(Option(f"{name} ({own})", f"{name} ({own})", note))
            if sp.kind == "hunters_bond":
                out += [Option(f"{name} ({a.id})", f"{name} with {a.name}", note) for a in allies]
    return out


@source("our_uses")
def _our_uses(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    return _uses(s, "ours", "allies", within)


@source("enemy_uses")
def _enemy_uses(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    return _uses(s, "enemy", "enemies", within)


@source("boons")
def _boons(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    return [Option(b.name, b.name, (f"Leadership {b.min_leadership}+; " if b.min_leadership else "") + b.note
                   if b.note else f"Leadership {b.min_leadership}+" if b.min_leadership else "")
            for b in s.catalog.mass_combat.boons.values()]


@source("battle_conditions")
def _conditions(s: Pf1State, within: Mapping[str, Any]) -> list[Option]:
    return [Option(c.name, c.name, ", ".join(p for p in (f"OM {c.om:+d}" if c.om else "",
                                                         f"DV {c.dv:+d}" if c.dv else "",
                                                         "half damage" if c.half_damage else "",
                                                         f"ranged OM {c.ranged_om:+d}" if c.ranged_om else "",
                                                         "both armies" if c.all else "", c.note) if p))
            for c in s.catalog.mass_combat.conditions.values()]
