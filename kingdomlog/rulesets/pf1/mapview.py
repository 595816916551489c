"""The PF1 kingdom for players: its hex map, its districts on their grids, and a portrait in words.

What a viewer may see: the GM sees every mapped hex; a player or the public sees a hex's
terrain, river and features only once it is explored (base §2.7 ``explored``) or claimed,
and an unexplored hex only as fog. Districts are 36 lots = 9 blocks × 4 lots
(base §2.8); lot ``i`` of a district is row ``i // 6``, column ``i % 6`` of its 6×6 grid.
"""

from __future__ import annotations

from kingdomlog.core.mapdata import GridStructure, MapData, MapHex, MapParty, SettlementGrid
from kingdomlog.core.portrait import Figure, Leader, Portrait
from kingdomlog.core.viewers import Viewer
from kingdomlog.rulesets.pf1 import derive as dv
from kingdomlog.rulesets.pf1.state import Hex, Pf1State, hex_words
from kingdomlog.rulesets.pf1.tables import BETTER

ALIGNMENT_WORDS = {"LG": "lawful good", "NG": "neutral good", "CG": "chaotic good", "LN": "lawful neutral",
                   "N": "neutral", "CN": "chaotic neutral", "LE": "lawful evil", "NE": "neutral evil",
                   "CE": "chaotic evil"}
IMPROVEMENT_WORDS = {"FARM": "farm", "FORT": "fort", "MINE": "mine", "SAWMILL": "sawmill", "QUARRY": "quarry",
                     "WATCHTOWER": "watchtower", "CANAL": "canal", "AQUEDUCT": "aqueduct", "BRIDGE": "bridge",
                     "FISHERY": "fishery", "VINEYARD": "vineyard"}


def words(tag: str) -> str:
    """``GRAND_DIPLOMAT`` -> ``Grand Diplomat``; ``holy_sites`` -> ``Holy sites``.

    >>> words("GRAND_DIPLOMAT"), words("feudal_monarchy")
    ('Grand Diplomat', 'Feudal monarchy')
    """
    if tag.isupper():
        return " ".join(w.capitalize() for w in tag.split("_"))
    text = tag.replace("_", " ")
    return text[:1].upper() + text[1:]


def feature_words(tag: str) -> str:
    """A hex feature tag for people: ``RUINS:tower`` -> ``ruins (tower)``, ``LAIR`` -> ``lair``.

    >>> feature_words("RUINS:old tower"), feature_words("BUILDING:Mill"), feature_words("LANDMARK")
    ('ruins (old tower)', 'building (Mill)', 'landmark')
    """
    kind, _, rest = tag.partition(":")
    head = kind.lower().replace("_", " ")
    return f"{head} ({rest})" if rest else head


def _sees(h: Hex, viewer: Viewer) -> bool:
    return viewer.is_gm or h.explored or h.claimed


def kingdom_map(s: Pf1State, viewer: Viewer) -> MapData:
    """The kingdom's hexes (fog where ``viewer`` has not explored) and its districts' grids."""
    cities = {c.id: c for c in s.cities.values()}
    armies = armies_by_hex(s, viewer)
    hexes = []
    for h in s.hexes.values():
        if not _sees(h, viewer):
            hexes.append(MapHex(h.id, h.q, h.r, "unknown", explored=False, name=hex_words(h.id)))
            continue
        city = cities.get(h.city) if h.city else None
        hexes.append(MapHex(
            h.id, h.q, h.r, h.terrain.lower(), claimed=h.claimed, explored=h.explored, river=h.river, road=h.road,
            settlement=city.name if city else "", capital=bool(city and city.capital),
            work_site=IMPROVEMENT_WORDS.get(h.improvement, h.improvement.lower()) if h.improvement else "",
            features=tuple(feature_words(f) for f in h.features if not f.startswith("TOWN") or not city),
            owner="kingdom" if h.claimed else "",
            note="" if h.cleared or not h.explored else "not yet cleared", armies=tuple(armies.get(h.id, ())),
            name=hex_words(h.id)))
    grids = []
    for c in dv.live_cities(s):
        ds = [s.districts[d] for d in c.districts if d in s.districts]
        for n, d in enumerate(ds, start=1):
            grids.append(district_grid(s, c.name if len(ds) == 1 else f"{c.name}, district {n}", d.id))
    name = s.name or "The kingdom"
    return MapData(title=f"{name}, month {s.turn}" if s.turn else name, hexes=tuple(hexes),
                   parties=(MapParty("kingdom", name, own=True),), settlements=tuple(grids))


def armies_by_hex(s: Pf1State, viewer: Viewer) -> dict[str, list[str]]:
    """Armies in the field by hex (UC Mass Combat), as ``s`` holds them: a player's state is folded from the
    events that player may see, so an army the GM recorded for the GM alone is not in it. Armies defeated or
    disbanded are gone from the map; another side's army is named with its side.
    """
    out: dict[str, list[str]] = {}
    for a in s.armies.values():
        if not a.hex or a.status not in ("active", "routed"):
            continue
        side = "" if a.side == "kingdom" else "enemy" if a.side == "enemy" else (
            s.foreign[a.side].name if a.side in s.foreign else words(a.side))
        out.setdefault(a.hex, []).append(a.name + (f" ({side})" if side else ""))
    return out


def pf1_lot(i: int) -> int:
    """A PF1 lot (row-major on the 6×6 district) as block × 4 + lot-in-block, for the grid drawing.

    >>> [pf1_lot(i) for i in (0, 1, 6, 7, 2, 35)]
    [0, 1, 2, 3, 4, 35]
    """
    row, col = divmod(i, 6)
    block = (row // 2) * 3 + col // 2
    return block * 4 + (row % 2) * 2 + col % 2


def district_grid(s: Pf1State, name: str, did: str) -> SettlementGrid:
    """One district as 9 blocks of 4 lots with its buildings and its borders (water, walls) (base §2.8)."""
    d = s.districts[did]
    borders = {side: ("WALL" if side in d.walls else kind) for side, kind in sorted(d.borders.items())}
    structures = []
    for b in s.buildings.values():
        if b.district != did or not b.lots:
            continue
        note = {"abandoned": "abandoned", "pending_shutdown": "closing"}.get(b.occupancy, "")
        if b.deity:
            note = ", ".join(x for x in (f"of {b.deity}", note) if x)
        structures.append(GridStructure(b.type, tuple(pf1_lot(i) for i in b.lots), note=note))
    kind = "district ready" if d.status == "READY" else f"being prepared, ready in month {d.ready_on_turn}"
    return SettlementGrid(did, name, blocks=9, lots_per_block=4, columns=3, structures=tuple(structures),
                          borders=borders, kind=kind, hex=d.hex)


def portrait(s: Pf1State, prev: Pf1State | None, viewer: Viewer) -> Portrait:
    """The kingdom in words: size, settlements, ruler; the figures of base §2.12 with their change."""
    x = _figures(s)
    p = _figures(prev) if prev is not None and prev.founded else {}
    if not s.founded:
        return Portrait(headline="The kingdom has not been founded yet.")
    cities = dv.live_cities(s)
    ruler = next(iter(s.leaders.get("RULER", ())), None)
    names = [c.name for c in cities]
    where = (f"one settlement, {names[0]}" if len(names) == 1 else
             f"{len(names)} settlements ({', '.join(names)})" if names else "no settlement yet")
    headline = (f"{s.name} is a {ALIGNMENT_WORDS.get(s.alignment, s.alignment)} kingdom of {x['size']} "
                f"hex{'es' if x['size'] != 1 else ''} with {where}"
                + (f", ruled by {ruler.name} ({dv.ruler_title(s)})." if ruler else "."))
    sentences = []
    if s.anarchy:
        sentences.append("The kingdom is in anarchy: Unrest has overwhelmed its government.")
    sentences.append(f"Its people number about {x['population']:,}; each month it consumes {x['consumption']} BP.")
    if s.module_on("government_forms"):
        sentences.append(f"It is governed as a {words(s.government).lower()}.")
    allies = [f.name for k, f in s.foreign.items() if s.relations.get(k) and s.relations[k].level != "none"]
    if allies:
        sentences.append("It has relations with " + " and ".join([", ".join(allies[:-1]), allies[-1]] if len(allies) > 1
                                                               else allies) + ".")
    labels = [("treasury_bp", "Treasury", "BP"), ("unrest", "Unrest", ""), ("economy", "Economy", ""),
              ("loyalty", "Loyalty", ""), ("stability", "Stability", ""), ("size", "Size", "hexes"),
              ("control_dc", "Control DC", ""), ("consumption", "Consumption", "BP"),
              ("population", "Population", ""), ("buildings", "Buildings", "")]
    if s.module_on("fame_infamy"):
        labels += [("fame", "Fame", ""), ("infamy", "Infamy", "")]
    figs = [Figure(k, lab, x[k], p.get(k), unit=unit, better=BETTER.get(k, "")) for k, lab, unit in labels]
    leaders = []
    for role, occ in s.leaders.items():
        for o in occ:
            leaders.append(Leader(words(role), o.name, "" if o.present else "away"))
    for role in s.catalog.roles:
        if role not in s.leaders and role in ("RULER", "COUNCILOR", "GENERAL", "GRAND_DIPLOMAT", "HIGH_PRIEST",
                                              "MAGISTER", "MARSHAL", "ROYAL_ASSASSIN", "SPYMASTER", "TREASURER",
                                              "WARDEN"):
            leaders.append(Leader(words(role), "vacant", "no one holds this role"))
    return Portrait(headline=headline, sentences=tuple(sentences), figures=tuple(figs), leaders=tuple(leaders))


def _figures(s: Pf1State) -> dict[str, int]:
    attrs = dv.attributes(s)
    return {"treasury_bp": s.treasury, "unrest": s.unrest, "size": dv.size(s),
            "control_dc": int(dv.control_dc(s).total), "consumption": int(dv.consumption(s).total),
            "economy": attrs["ECONOMY"], "loyalty": attrs["LOYALTY"], "stability": attrs["STABILITY"],
            "population": int(dv.population(s).total), "buildings": len(dv.live_buildings(s)),
            "fame": dv.fame_value(s), "infamy": dv.infamy_value(s)}
