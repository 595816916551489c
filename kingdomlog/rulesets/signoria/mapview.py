"""Signoria for players: the provinces (§2.2) as a region map with who holds each and what the viewer knows of
them, and each faction's portrait: its resources, its people, and what it believes of each rival and since when.

Everything is read from the state as ``redact`` leaves it for the viewer (§11.4): a rival's
resources are the values the viewer last learned (``Faction.as_of`` names the turn), an
army on campaign shows no units unless it is the viewer's own, and the owner, occupier and
siege of a province are public (§1.4). Adjacency is the default map (G-6).
"""

from __future__ import annotations

from kingdomlog.core.mapdata import MapData, MapLink, MapParty, MapRegion
from kingdomlog.core.portrait import Figure, Leader, Portrait, Section
from kingdomlog.core.viewers import Viewer
from kingdomlog.rulesets.signoria.state import FACTION_BETTER, RESOURCES, Faction, IntelRecord, SignoriaState, Treaty
from kingdomlog.rulesets.signoria.tables import adjacency

SOURCE_WORDS = {"scouts": "our scouts", "spy": "our spy", "battle": "the battlefield", "notice": "a report",
                "public": "public knowledge", "ruling": "the GM"}


def fname(s: SignoriaState, fid: str | None) -> str:
    """A faction's name (its id when unknown)."""
    if not fid:
        return "no one"
    f = s.factions.get(fid)
    return f.name if f else fid


def _me(s: SignoriaState) -> str:
    return s.viewer if s.viewer in s.factions else ""


def known_line(s: SignoriaState, f: Faction) -> str:
    """What the viewer knows of faction ``f``'s resources: ``army 6 (month 3), wealth 14 (month 5)``."""
    if f.known:
        return ", ".join(f"{r} {getattr(f, r)}" for r in RESOURCES if getattr(f, r) is not None)
    bits = []
    for r in RESOURCES:
        v = getattr(f, r)
        if v is None:
            bits.append(f"{r} unknown")
        else:
            when = f.as_of.get(r, 0)
            bits.append(f"{r} {v} ({'at the start' if when == 0 else f'month {when}'})")
    return ", ".join(bits)


def province_map(s: SignoriaState, viewer: Viewer) -> MapData:
    """The provinces, their holders, occupiers and sieges, the armies on campaign there, and the viewer's
    knowledge of each holder."""
    me = _me(s)
    parties = tuple(MapParty(fid, f.name, own=fid == me, note=("" if fid == me else known_line(s, f)))
                    for fid, f in s.factions.items())
    regions = []
    for p in s.provinces.values():
        status = []
        if p.occupier:
            status.append(f"occupied by {fname(s, p.occupier)}")
        if p.siege_since is not None:
            status.append(f"under siege since month {p.siege_since}")
        for c in s.campaigns.values():
            if c.target == p.id and c.status in ("arrived", "occupying", "besieging", "in_transit"):
                units = f" ({c.units} units)" if c.units is not None else ""
                status.append(f"army of {fname(s, c.faction)}{units}")
        owner = s.factions.get(p.owner)
        detail = [f"income {p.income} wealth a month"]
        if owner is not None and p.owner != me:
            detail.append(f"what we know of {owner.name}: {known_line(s, owner)}")
        regions.append(MapRegion(p.id, p.name, owner=p.owner, status=tuple(status), detail=tuple(detail)))
    ids = set(s.provinces)
    links = tuple(MapLink(*sorted(pair)) for pair in sorted(adjacency(), key=sorted) if set(pair) <= ids)
    when = f"month {s.turn}" + (f", {s.season}" if s.season and s.season != "setup" else "")
    return MapData(title=f"The League, {when}", regions=tuple(regions), links=links, parties=parties)


def beliefs(s: SignoriaState, me: str) -> list[str]:
    """What ``me`` believes of each rival, and since when (§2.6 intel): one sentence per rival."""
    out = []
    intel: dict[str, dict[str, IntelRecord]] = s.intel.get(me, {})
    for fid, f in s.factions.items():
        if fid == me:
            continue
        recs = intel.get(fid, {})
        parts = []
        for r in RESOURCES:
            rec = recs.get(r)
            if rec is None or not isinstance(rec.value, int):
                parts.append(f"its {r} is unknown")
            else:
                since = "from the start" if rec.turn == 0 else f"since month {rec.turn}"
                src = SOURCE_WORDS.get(rec.source, rec.source)
                hedge = " (a belief we cannot check)" if rec.believed else ""
                parts.append(f"{r} {rec.value} ({src}, {since}){hedge}")
        roster = recs.get("roster")
        if roster is not None and isinstance(roster.value, list):
            names = ", ".join(str(c.get("name", "?")) for c in roster.value if isinstance(c, dict))
            parts.append(f"its people: {names} (month {roster.turn})")
        out.append(f"{f.name}: " + "; ".join(parts) + ".")
    return out


def portrait(s: SignoriaState, prev: SignoriaState | None, viewer: Viewer) -> Portrait:
    """A faction's monthly picture (a player), or the League's public picture (the GM and the public)."""
    me = _me(s)
    when = f"month {s.turn} of {s.config.get('game_turns', 12)}" + (f" ({s.season})" if s.season != "setup" else "")
    if not me:
        held = {fid: [p.name for p in s.provinces.values() if p.owner == fid] for fid in s.factions}
        lines = [f"{f.name} holds {', '.join(held[fid]) or 'no province'}" for fid, f in s.factions.items()]
        head = f"The League in {when}: " + "; ".join(lines) + "."
        if s.finished:
            head += f" The game is over; {fname(s, s.winner)} won."
        return Portrait(headline=head)
    f = s.factions[me]
    pf = prev.factions.get(me) if prev is not None else None
    mine_held = [p.name for p in s.provinces.values() if p.owner == me]
    headline = (f"{f.name}, {when}: we hold {', '.join(mine_held) or 'no province'}"
                + (f", led by {f.leader_name}" if f.leader_name else "") + ".")
    sentences = []
    for p in s.provinces.values():
        if p.owner == me and p.occupier:
            sentences.append(f"{fname(s, p.occupier)}'s army occupies our {p.name}.")
        elif p.occupier == me:
            sentences.append(f"Our army occupies {p.name} of {fname(s, p.owner)}.")
    if f.besieged:
        sentences.append("We are besieged.")
    mine = [t for t in s.treaties.values() if t.active and me in t.parties]
    if mine:
        def partner(t: Treaty) -> str:
            return fname(s, t.neutral) if t.neutral else ", ".join(fname(s, x) for x in t.parties if x != me)
        sentences.append("Our treaties: " + "; ".join(f"{t.type.replace('_', ' ')} with {partner(t)}"
                                                      for t in mine) + ".")
    for n, v in f.standing.items():
        if v:
            sentences.append(f"Our standing with {fname(s, n)} is {v:+d}.")
    figs = tuple(Figure(r, r.capitalize(), getattr(f, r), getattr(pf, r) if pf else None, better=FACTION_BETTER[r])
                 for r in RESOURCES)
    leaders = []
    for c in s.characters.values():
        if c.employer != me:
            continue
        note = ", ".join(c.traits) + ("" if c.condition == "active" else f"; {c.condition}")
        leaders.append(Leader("Leader" if c.role == "leader" else "Statesman", c.name, note))
    sections: tuple[Section, ...] = (Section("What we believe of our rivals", tuple(beliefs(s, me))),)
    notices = [n for n in s.notices.get(me, ()) if n.turn == s.turn]
    if notices:
        sections += (Section("Reports this month", tuple(n.text[:1].upper() + n.text[1:] for n in notices)),)
    return Portrait(headline=headline, sentences=tuple(sentences), figures=figs, leaders=tuple(leaders),
                    sections=sections)
