"""The aikakirjat realm for players: its provinces and its neighbours' as a region map, and a portrait in words.

The spec gives the realm as far as war needs it (§2.13): provinces with an owner, a
controller (who occupies it), a terrain, roads and highways, land borders and sea links,
and armies standing in them; the neighbours (§2.10) with their diplomacy; the kingdom's
territory for living space (§2.3). No geometry: the library lays the provinces out by
their borders. aikakirjat has no per-player secrets (one kingdom, its players share it).
"""

from __future__ import annotations

from kingdomlog.core.mapdata import MapData, MapLink, MapParty, MapRegion
from kingdomlog.core.portrait import Figure, Leader, Portrait
from kingdomlog.core.viewers import Viewer
from kingdomlog.rulesets.aikakirjat import rules as R
from kingdomlog.rulesets.aikakirjat.state import KingdomState
from kingdomlog.rulesets.aikakirjat.tables import ABILITIES, BETTER, TRACKS

PLAYERS = "players"
UNIT_WORDS = {"hex": "hex", "province": "province", "phex": "planetary hex", "triangle": "triangle",
              "planet": "planet"}


def words(tag: str) -> str:
    """``attract_population`` -> ``attract population``.

    >>> words("law_and_order")
    'law and order'
    """
    return tag.replace("_", " ").replace("-", " ")


SMALL_WORDS = frozenset({"a", "an", "and", "at", "in", "of", "on", "the", "to"})


def title(tag: str) -> str:
    """A feat or a name's id as a title: ``law_and_order`` -> ``Law and Order``.

    >>> title("law_and_order"), title("advanced_logistics")
    ('Law and Order', 'Advanced Logistics')
    """
    parts = words(tag).split()
    return " ".join(w if i and w in SMALL_WORDS else w.capitalize() for i, w in enumerate(parts))


def institution_name(iid: str, kind: str) -> str:
    """An institution by the name its id gives it, with its kind: ``academy-sampo`` (an academy) -> ``the Sampo
    Academy``; an id that does not name its kind keeps it beside: ``valley-hall`` -> ``Valley Hall (an academy)``.

    >>> institution_name("academy-sampo", "academy"), institution_name("valley-hall", "academy")
    ('the Sampo Academy', 'Valley Hall (an academy)')
    """
    said, k = words(iid).split(), words(kind).split()
    if said[:len(k)] == k or said[-len(k):] == k:
        rest = said[len(k):] if said[:len(k)] == k else said[:-len(k)]
        return f"the {title(' '.join([*rest, *k]))}"
    article = "an" if kind[:1].lower() in "aeiou" else "a"
    return f"{title(iid)} ({article} {words(kind)})"


def and_list(items: list[str]) -> str:
    """``a, b and c``.

    >>> and_list(["Kalevala", "Tuonela"])
    'Kalevala and Tuonela'
    """
    return " and ".join([", ".join(items[:-1]), items[-1]]) if len(items) > 1 else "".join(items)


def province_name(pid: str) -> str:
    """A province id for people: a one-letter owner prefix dropped, words capitalised.

    >>> province_name("p-home"), province_name("t-border"), province_name("north_fells")
    ('Home', 'Border', 'North fells')
    """
    head, sep, rest = pid.partition("-")
    text = rest if sep and len(head) == 1 and rest else pid
    text = words(text)
    return text[:1].upper() + text[1:]


def record_names(s: KingdomState) -> dict[str, str]:
    """The names of the records the state keeps by id alone: each institution as the report says it (``the Sampo
    Academy``), each province by its name (``Home``), its owner beside it when another province has that name too
    (``Home (Tuonela)``).

    >>> from kingdomlog.rulesets.aikakirjat.state import Institution, Province
    >>> record_names(KingdomState(name="Pohjola", institutions=(Institution(id="academy-sampo", type="academy",
    ...     founded_year=0),), provinces={"p-home": Province(id="p-home", owner="players",
    ...     controller="players"), "t-home": Province(id="t-home", owner="t", controller="t")}))
    {'academy-sampo': 'the Sampo Academy', 'p-home': 'Home (Pohjola)', 't-home': 'Home (t)'}
    """
    out = {i.id: institution_name(i.id, i.type) for i in s.institutions}
    said = {pid: province_name(pid) for pid in s.provinces}
    for pid, p in s.provinces.items():
        twice = sum(1 for x in said.values() if x == said[pid]) > 1
        out[pid] = f"{said[pid]} ({_owner_name(s, p.owner)})" if twice else said[pid]
    return out


def _owner_name(s: KingdomState, owner: str) -> str:
    if owner == PLAYERS:
        return s.name or "the kingdom"
    n = s.neighbours.get(owner)
    return n.name if n else words(owner)


def attitude(diplomacy: int) -> str:
    """How a neighbour's diplomacy value reads (§2.10: positive is friendly).

    >>> attitude(-6), attitude(0), attitude(3)
    ('hostile', 'wary', 'friendly')
    """
    if diplomacy <= -5:
        return "hostile"
    if diplomacy < 0:
        return "cool"
    if diplomacy == 0:
        return "wary"
    return "friendly" if diplomacy < 5 else "close allies"


def realm_map(s: KingdomState, viewer: Viewer) -> MapData:
    """The provinces (held by the kingdom or a neighbour, occupied or not, with the armies in them) and links."""
    parties = [MapParty(PLAYERS, s.name or "The kingdom", own=True)]
    for n in s.neighbours.values():
        war = any(n.id in (w.attacker, w.defender) for w in s.wars)
        note = f"{attitude(n.diplomacy)} (diplomacy {n.diplomacy:+d})" + (", at war with us" if war else "") + (
            f", {words(n.status)}" if n.status not in ("independent", "at_war_with_players") else "")
        parties.append(MapParty(n.id, n.name, note=note))
    regions, links = [], []
    seen: set[frozenset[str]] = set()
    for p in s.provinces.values():
        status = []
        if p.controller != p.owner:
            status.append(f"occupied by {_owner_name(s, p.controller)}")
        armies = [a for a in s.armies if a.province_id == p.id]
        for a in armies:
            status.append(f"army of {_owner_name(s, a.owner)} ({a.militia} militia)")
        detail = [f"terrain: {p.terrain}"]
        if p.has_highway:
            detail.append("a highway runs through it")
        elif p.has_road:
            detail.append("a road runs through it")
        regions.append(MapRegion(p.id, province_name(p.id), owner=p.owner, terrain=p.terrain, status=tuple(status),
                                 detail=tuple(detail)))
        for other, kind in [(o, "land") for o in p.adjacent] + [(o, "sea") for o in p.sea_links]:
            pair = frozenset({p.id, other})
            if other in s.provinces and pair not in seen:
                seen.add(pair)
                q = s.provinces[other]
                road = "highway" if p.has_highway and q.has_highway else "road" if (
                    (p.has_road or p.has_highway) and (q.has_road or q.has_highway)) else kind
                links.append(MapLink(p.id, other, road if kind == "land" else kind))
    land = [f"{a.amount:g} {UNIT_WORDS.get(a.unit, a.unit)}{'es' if a.unit == 'hex' and a.amount != 1 else ''} "
            f"of {words(a.area_id)}" + ("" if a.quality == 1 else f" ({_quality(a.quality)})") for a in s.territory]
    caption = f"{s.name}'s land: " + "; ".join(land) + "." if land else ""
    return MapData(title=f"{s.name or 'The realm'}, year {s.year}", regions=tuple(regions), links=tuple(links),
                   parties=tuple(parties), caption=caption)


def _quality(q: float) -> str:
    return "poor land, counts half" if q == 0.5 else "very poor land, counts a quarter" if q == 0.25 else f"×{q:g}"


def portrait(s: KingdomState, prev: KingdomState | None, viewer: Viewer) -> Portrait:
    """The kingdom in words: level and title, government, people; its abilities, tracks and fame with their change."""
    if not s.founded:
        return Portrait(headline="The kingdom has not been founded yet.")
    x = _figures(s)
    p = _figures(prev) if prev is not None and prev.founded else {}
    headline = (f"{s.name} is a level {x['level']} {words(s.government)} of {s.population} population in year "
                f"{s.year}; its ruler bears the title of {R.title(s)}.")
    sentences = []
    if s.fallen:
        sentences.append("The kingdom has fallen.")
    if s.wars:
        foes = [_owner_name(s, w.defender if w.attacker == PLAYERS else w.attacker) for w in s.wars]
        sentences.append("It is at war with " + and_list(foes) + ".")
    if s.neighbours:
        sentences.append("Its neighbours: " + "; ".join(f"{n.name}, {attitude(n.diplomacy)}"
                                                         for n in s.neighbours.values()) + ".")
    if s.institutions:
        founded = {i.id: f" (founded by {s.pcs[i.pc_id].name})" for i in s.institutions if i.pc_id in s.pcs}
        sentences.append("Its institutions: " + and_list([institution_name(i.id, i.type) + founded.get(i.id, "")
                                                          for i in s.institutions]) + ".")
    if s.feats:
        sentences.append("It has mastered " + and_list([title(f.feat) for f in s.feats]) + ".")
    if s.pending_revolution:
        sentences.append("Revolution is brewing.")
    labels = [("population", "Population"), ("unrest", "Unrest"), ("fame", "Fame"), ("level", "Level"),
              ("militia", "Militia"), *((f"{a}_score", a.capitalize()) for a in ABILITIES),
              *((f"{t}_points", t.capitalize()) for t in ("corruption", "crime", "decadence", "decay")),
              ("research_points", "Research"), ("technology_level", "Technology")]
    f = [Figure(k, lab, x[k], p.get(k), better=BETTER.get(k, "")) for k, lab in labels]
    leaders = tuple(Leader("Hero", pc.name, f"level {pc.level}" + ("" if pc.resident else ", abroad"))
                    for pc in s.pcs.values())
    return Portrait(headline=headline, sentences=tuple(sentences), figures=tuple(f), leaders=leaders)


def _figures(s: KingdomState) -> dict[str, int]:
    out = {"population": s.population, "unrest": s.unrest, "fame": s.fame, "level": s.level, "militia": s.militia,
           "research_points": s.research_points, "technology_level": s.technology_level}
    for a in ABILITIES:
        out[f"{a}_score"] = R.score(s, a)
    for t in TRACKS:
        out[f"{t}_points"] = s.tracks[t].points if t in s.tracks else 0
    return out
