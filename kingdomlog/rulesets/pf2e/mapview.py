"""The PF2e kingdom for players: its hexes on their axial coordinates (§2.7), its settlements on their urban
grids (§2.8: blocks of four lots, each structure in its lots), and a portrait in words.

The state holds the kingdom's own hexes (claimed, or lost); a hex recorded before hex
coordinates is *unplaced* and listed under the map until the GM places it (``pf2e.hex_placed``).
PF2e keeps no per-player secrets in its state; what a GM-only event put on the map is left out
by the player view (it draws hexes as the visible events alone leave them).
"""

from __future__ import annotations

from kingdomlog.core.mapdata import GridStructure, MapData, MapHex, MapParty, SettlementGrid
from kingdomlog.core.portrait import Figure, Leader, Portrait
from kingdomlog.core.viewers import Viewer
from kingdomlog.rulesets.pf2e import state as S
from kingdomlog.rulesets.pf2e import tables as T

WORK_SITES = {"lumber": "lumber camp", "ore": "mine", "stone": "quarry"}
SILENT_FEATURES = {"settlement", "work_site", "resource"}


def words(tag: str) -> str:
    """``repair-reputation`` / ``work_site`` -> ``repair reputation`` / ``work site``.

    >>> words("create-a-masterpiece"), words("work_site")
    ('create a masterpiece', 'work site')
    """
    return tag.replace("-", " ").replace("_", " ")


def title(tag: str) -> str:
    """A structure or role id as a name: ``town-hall`` -> ``Town Hall``.

    >>> title("town-hall"), title("houses")
    ('Town Hall', 'Houses')
    """
    return " ".join(w.capitalize() for w in words(tag).split())


def kingdom_map(s: S.KingdomState, viewer: Viewer) -> MapData:
    """The kingdom's hexes (terrain, border, rivers, roads, settlements, work sites, features) and grids."""
    by_hex = {st.hex: st for st in s.settlements}
    armies = armies_by_hex(s, viewer)
    hexes = []
    for h in s.hexes:
        st = by_hex.get(h.id)
        feats = [words(f) for f in h.features if f not in SILENT_FEATURES]
        if h.resource and not h.work_site:
            feats.append(f"resource ({h.resource})")
        if h.lake:
            feats.append("lake")
        note = "" if h.claimed else ("lost to the kingdom" if h.ever_claimed else "not claimed")
        hexes.append(MapHex(h.id, h.q, h.r, h.terrain, claimed=h.claimed, river=h.river, road=h.roads,
                            settlement=st.name if st else "", capital=bool(st and st.capital),
                            work_site=WORK_SITES.get(h.work_site.commodity, "") if h.work_site else "",
                            features=tuple(feats), owner="kingdom" if h.claimed else "", note=note,
                            armies=tuple(armies.get(h.id, ()))))
    grids = tuple(settlement_grid(st) for st in s.settlements)
    name = s.name or "The kingdom"
    return MapData(title=f"{name}, month {s.turn}" if s.turn else name, hexes=tuple(hexes),
                   parties=(MapParty("kingdom", name, own=True),), settlements=grids)


def armies_by_hex(s: S.KingdomState, viewer: Viewer) -> dict[str, list[str]]:
    """The armies in the field, by hex, as ``s`` holds them: a player's state is already redacted (the enemy
    armies the option ``army_visibility`` lets through). Defeated or lost armies are gone from the map.
    """
    out: dict[str, list[str]] = {}
    for a in s.army_units:
        if not a.hex or a.conditions.get("defeated") or a.conditions.get("lost"):
            continue
        out.setdefault(a.hex, []).append(a.name + ("" if a.side == "kingdom" else " (enemy)"))
    return out


def settlement_grid(st: S.Settlement) -> SettlementGrid:
    """A settlement's blocks (four lots each, up to 3 to a row) with each structure in its lots (§2.8)."""
    structures = [GridStructure(title(b.name), tuple(b.block * 4 + lot for lot in b.lots),
                                kind="residential" if b.residential else "",
                                note="residential" if b.residential else "")
                  for b in st.structures if b.lots]
    rubble = tuple(i * 4 + j for i, block in enumerate(st.blocks) for j, lot in enumerate(block) if lot == "rubble")
    borders = {b.border[:1].upper(): "water" for b in st.structures if b.border}
    kind = f"{st.type}{', capital' if st.capital else ''}"
    return SettlementGrid(st.id, st.name, blocks=len(st.blocks), lots_per_block=4, columns=3,
                          structures=tuple(structures), rubble=rubble, borders=borders, kind=kind, hex=st.hex,
                          note="overcrowded: fewer residential lots than blocks in use" if st.overcrowded else "")


def _figures(s: S.KingdomState) -> dict[str, int]:
    out = {"level": s.level, "xp": s.xp, "unrest": s.unrest, "rp": s.rp, "fame": s.fame, "size": s.size,
           "control_dc": s.control_dc, "consumption": s.consumption}
    for a in ("culture", "economy", "loyalty", "stability"):
        out[a] = s.scores.get(a, 10)
    for r, ruin in s.ruin.items():
        out[r] = ruin.points
    for c, n in s.commodities.items():
        out[c] = n
    return out


def portrait(s: S.KingdomState, prev: S.KingdomState | None, viewer: Viewer) -> Portrait:
    """The kingdom in words: level, government, charter, its hexes and settlements; figures with their change."""
    if not s.founded:
        return Portrait(headline="The kingdom has not been founded yet.")
    x = _figures(s)
    p = _figures(prev) if prev is not None and prev.founded else {}
    names = [f"{st.name} ({st.type})" for st in s.settlements]
    where = (f"one settlement, {names[0]}" if len(names) == 1 else
             f"{len(names)} settlements: {', '.join(names)}" if names else "no settlement")
    headline = (f"{s.name} is a level {s.level} {words(s.government)} with {s.size} "
                f"hex{'es' if s.size != 1 else ''} and {where}.")
    sentences = [f"It was founded under the {words(s.charter)} charter in {words(s.heartland)} country."]
    if s.anarchy:
        sentences.append("It is in anarchy: Unrest has overwhelmed its government.")
    elif s.unrest_penalty:
        sentences.append(f"Unrest {s.unrest} weighs on every check ({s.unrest_penalty}).")
    pen = [f"{title(r)} {-abs(ruin.penalty)}" for r, ruin in s.ruin.items() if ruin.penalty]
    if pen:
        sentences.append("Ruin weighs on its checks: " + ", ".join(pen) + ".")
    if s.at_war:
        sentences.append("The kingdom is at war.")
    ongoing = [title(e.name) for e in s.ongoing_events]
    if ongoing:
        sentences.append("Still unfolding: " + ", ".join(ongoing) + ".")
    labels = [("level", "Level", ""), ("xp", "XP", ""), ("unrest", "Unrest", ""), ("rp", "Resource Points", "RP"),
              ("fame", "Fame", ""), ("size", "Size", "hexes"), ("control_dc", "Control DC", ""),
              ("consumption", "Consumption", ""), *((a, a.capitalize(), "") for a in T.ABILITIES),
              *((r, r.capitalize(), "") for r in T.RUINS), *((c, c.capitalize(), "") for c in T.COMMODITIES)]
    figs = tuple(Figure(k, lab, x.get(k), p.get(k), unit=unit, better=T.BETTER.get(k, ""))
                 for k, lab, unit in labels if k in x)
    leaders = []
    for role, ld in s.leaders.items():
        if ld.holder:
            note = ", ".join(n for n in (("invested" if ld.invested else ""), ("NPC" if ld.kind == "npc" else ""))
                             if n)
            leaders.append(Leader(title(role), ld.holder, note))
        else:
            leaders.append(Leader(title(role), "vacant", "no one holds this role"))
    return Portrait(headline=headline, sentences=tuple(sentences), figures=figs, leaders=tuple(leaders))
