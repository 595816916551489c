"""Derived numbers of a PF1 kingdom, each as a term-by-term breakdown.

Spec references are to ``pf1-kingmaker.md`` (base) and
``pf1-ultimate-campaign-optional.md`` (optional, prefixed "opt").
All divisions round down (base §0.2).
"""

from __future__ import annotations

from collections.abc import Iterable

from kingdomlog.core.modifiers import Modifier, stack
from kingdomlog.core.ruleset import Breakdown, Term
from kingdomlog.rulesets.pf1.rules import alignment_components, axial_neighbours
from kingdomlog.rulesets.pf1.state import (
    ATTITUDES,
    LEVELS,
    Building,
    City,
    Hex,
    Occupant,
    Pf1State,
    Relation,
    Terms,
    TimedModifier,
    TradeRoute,
    hex_words,
)
from kingdomlog.rulesets.pf1.tables import ATTRIBUTES, SETTLEMENT_MODIFIERS, BuildingType, ImprovementType, LimitRow

# ---------------------------------------------------------------- map


def edict_words(kind: str, level: str) -> str:
    """An edict's level as a breakdown's term says it: ``Promotion edict: none``, ``Festivals edict: 4 a year`` (it
    read ``promotion NONE``, ``festivals 4/year``: the catalog's key).

    >>> edict_words("promotion", "NONE"), edict_words("taxation", "LIGHT"), edict_words("festivals", "4")
    ('Promotion edict: none', 'Taxation edict: light', 'Festivals edict: 4 a year')
    """
    said = f"{level} a year" if kind == "festivals" and level.isdigit() else level.replace("_", " ").lower()
    return f"{kind.capitalize()} edict: {said}"


def claimed_hexes(s: Pf1State) -> list[Hex]:
    return [h for h in s.hexes.values() if h.claimed]


def adjacent_to_kingdom(s: Pf1State, h: Hex) -> bool:
    """Whether ``h`` touches a claimed hex (base §4.3 I2)."""
    mine = {(x.q, x.r) for x in claimed_hexes(s)}
    return bool(axial_neighbours(h.q, h.r) & mine)


def size(s: Pf1State) -> int:
    """Size = number of claimed hexes (base §2.2)."""
    return len(claimed_hexes(s))


def live_cities(s: Pf1State) -> list[City]:
    return [c for c in s.cities.values() if not c.detached]


def ready_districts(s: Pf1State) -> int:
    return sum(1 for c in live_cities(s) for d in c.districts if s.districts[d].status == "READY")


def live_buildings(s: Pf1State, *, active_only: bool = True) -> list[Building]:
    """Buildings in non-detached cities; abandoned ones excluded unless ``active_only`` is False."""
    live = {c.id for c in live_cities(s)}
    return [b for b in s.buildings.values()
            if b.city in live and b.owner is None and (not active_only or b.occupancy != "abandoned")]


def btype(s: Pf1State, b: Building) -> BuildingType:
    return s.catalog.building(b.type)


def control_dc(s: Pf1State) -> Breakdown:
    """Control DC = 20 + Size (+ districts with ``control_dc_includes_districts``), base §2.2."""
    mods = [Modifier("Size", size(s), source="hexes")]
    if s.opt("control_dc_includes_districts"):
        mods.append(Modifier("districts", ready_districts(s), source="option control_dc_includes_districts"))
    return stack("Control DC", mods, base=20, note="20 + Size" + (" + districts" if len(mods) > 1 else ""))


def district_cost(s: Pf1State, terrain: str) -> tuple[int, int]:
    """(BP, months) to prepare a district on ``terrain`` (base §3.2; option district_prep_mountains_bp)."""
    t = s.catalog.terrains[terrain]
    cost = int(s.opt("district_prep_mountains_bp")) if terrain == "MOUNTAINS" else t.district_cost
    return cost, t.district_months


def road_cost(s: Pf1State, h: Hex) -> tuple[int, bool]:
    """(BP, doubled) of a road in ``h``: by terrain (option road_cost_hills_bp), doubled over a river without a
    bridge (base §4.3 I7)."""
    cost = int(s.opt("road_cost_hills_bp")) if h.terrain == "HILLS" else s.catalog.terrains[h.terrain].road_cost
    doubled = h.river and "BRIDGE" not in h.features
    return cost * (2 if doubled else 1), doubled


def improvement_cost(s: Pf1State, imp: ImprovementType, h: Hex) -> int:
    """BP of a hex improvement in ``h``: a Farm by terrain, halved by a listed feature (base §4.3 I8); UC
    improvements priced as a road (Aqueduct: not doubled for rivers), twice a road (Canal, Highway)."""
    cost = imp.cost
    if imp.name == "FARM":
        cost = s.catalog.terrains[h.terrain].farm_cost or 0
    if imp.cost_as == "road_no_river":
        cost = road_cost(s, h.model_copy(update={"river": False}))[0]
    elif imp.cost_as is not None:
        cost = road_cost(s, h)[0] * (2 if imp.cost_as == "road_x2" else 1)
    if set(imp.half_cost_features) & set(h.features):
        cost //= 2
    return cost


def occupied(s: Pf1State, did: str) -> set[int]:
    """The built lots of district ``did``."""
    return {lot for b in s.buildings.values() if b.district == did for lot in b.lots}


def limits_row(s: Pf1State) -> LimitRow:
    """Row of the improvements-per-month table for the current Size (base §6.5)."""
    table = s.catalog.limits
    custom = s.opt("improvement_limits")
    if custom:
        table = tuple(LimitRow.model_validate(r) for r in custom.get("rows", []))
    row = table[0]
    for r in table:
        if size(s) >= r.min_size:
            row = r
    return row


def role_available(s: Pf1State, role: str) -> bool:
    """Whether a role exists in this campaign: its module on (Viceroy) and its edition the option leadership_roles
    (base §2.4 roles; UC Consort, Heir and Royal Enforcer)."""
    r = s.catalog.roles.get(role)
    if r is None:
        return False
    if r.module and not s.module_on(r.module):
        return False
    return r.edition is None or r.edition == s.opt("leadership_roles")


def ruler_stand_in(s: Pf1State) -> str | None:
    """The Consort or Heir acting as the Ruler this month (UC), if the Ruler is not effective and one was named."""
    if role_effective(s, "RULER") or s.acting_ruler is None:
        return None
    return s.acting_ruler if role_effective(s, s.acting_ruler) and role_available(s, s.acting_ruler) else None


def role_effective(s: Pf1State, role: str) -> bool:
    """Filled and present this month (base §2.4); co-rulers: one present is enough."""
    return any(o.present for o in s.leaders.get(role, ()))


def ruler_attribute_count(s: Pf1State) -> int:
    """1, 2 or 3 attributes for the Ruler by Size (base §2.2, option ruler_thresholds)."""
    two, three = {"seed": (20, 80), "rrr": (21, 81), "uc": (26, 101)}[s.opt("ruler_thresholds")]
    n = size(s)
    return 3 if n >= three else 2 if n >= two else 1


def ruler_title(s: Pf1State) -> str:
    return {1: "Baron", 2: "Duke", 3: "King"}[ruler_attribute_count(s)]


def has_building(s: Pf1State, name: str) -> bool:
    return any(btype(s, b).name == name for b in live_buildings(s))


def halving(s: Pf1State, edict: str) -> bool:
    return any(btype(s, b).halves_edict == edict for b in live_buildings(s))


# ---------------------------------------------------------------- consumption


def improvements_of(h: Hex) -> tuple[str, ...]:
    """The hex's improvements: its one exclusive improvement and those sharing the hex (UC)."""
    return ((h.improvement,) if h.improvement else ()) + h.extras


def farms(s: Pf1State) -> int:
    return sum(1 for h in claimed_hexes(s) if "FARM" in improvements_of(h))


def consumption_terms(s: Pf1State) -> list[Modifier]:
    promo = s.catalog.promotion[s.edicts.promotion].consumption
    fest = s.catalog.festivals[s.edicts.festivals].consumption
    mods = [
        Modifier("Size", size(s), source="hexes"),
        Modifier("districts", ready_districts(s), source="cities"),
        Modifier(edict_words("promotion", s.edicts.promotion)
                 + (" (halved: Cathedral)" if halving(s, "promotion") else ""),
                 promo // 2 if halving(s, "promotion") else promo, source="edicts"),
        Modifier(edict_words("festivals", s.edicts.festivals) + (" (halved: Arena)" if halving(s, "festival") else ""),
                 fest // 2 if halving(s, "festival") else fest, source="edicts"),
    ]
    stock = stockyard_hexes(s)
    for h in claimed_hexes(s):
        for kind in improvements_of(h):
            imp = s.catalog.improvements.get(kind)
            if imp and imp.consumption:
                v = imp.consumption
                if kind == "FARM" and (h.q, h.r) in stock:
                    v = stock[(h.q, h.r)]
                    mods.append(Modifier(f"farm on {hex_words(h.id)} (Stockyard)", v, source="UC Stockyard"))
                    continue
                if imp.resource_consumption and "RESOURCE" in h.features:
                    v += imp.resource_consumption
                mods.append(Modifier(f"{kind.lower()} on {hex_words(h.id)}", v, source="improvements"))
    if s.module_on("diplomatic_edicts"):
        for fid, rel in s.relations.items():
            if rel.embassy_building:
                mods.append(Modifier(f"embassy building in {fid}", 1, source="opt §2.5.6"))
    return mods


def stockyard_hexes(s: Pf1State) -> dict[tuple[int, int], int]:
    """Hexes (axial) whose Farms reduce Consumption by a Stockyard's number instead of 2: the hex of a city with
    a Stockyard and its neighbours (UC Stockyard)."""
    out: dict[tuple[int, int], int] = {}
    for b in live_buildings(s):
        v = btype(s, b).farm_consumption
        if v is None:
            continue
        h = s.hexes[s.cities[b.city].hex]
        for qr in {(h.q, h.r), *axial_neighbours(h.q, h.r)}:
            out[qr] = min(out.get(qr, 0), v)
    return out


def foundry_mines(s: Pf1State) -> int:
    """Mines a Foundry works: one per Foundry, among claimed Mine hexes with a road or river (UC Foundry)."""
    foundries = sum(1 for b in live_buildings(s) if btype(s, b).foundry_mine)
    if not foundries:
        return 0
    mines = sum(1 for h in claimed_hexes(s) if "MINE" in improvements_of(h)
                and (h.road or h.river or "ROAD" in h.features))
    return min(foundries, mines)


def raw_consumption(s: Pf1State) -> int:
    """Consumption before the floor at 0 (opt §1.6, food route)."""
    return sum(m.value for m in consumption_terms(s))


def active(s: Pf1State, attribute: str, city: str | None = None, *, any_city: bool = False) -> list[TimedModifier]:
    """Timed modifiers of ``attribute`` in force this month (for ``city``, or kingdom-wide ones)."""
    return [m for m in s.modifiers if m.attribute == attribute and m.first_turn <= s.turn
            and (m.last_turn is None or s.turn <= m.last_turn) and (any_city or m.city == city)]


def consumption(s: Pf1State) -> Breakdown:
    """max(0, Size + districts + edicts − 2 × farms) (base §2.2); an event's Consumption change of this month
    (UC Food Surplus/Shortage, Crop Failure) applies to the result."""
    terms = consumption_terms(s)
    for m in active(s, "CONSUMPTION", any_city=True):
        terms.append(Modifier(m.source, m.value, source="UC event"))
    b = stack("Consumption", terms, note="floored at 0")
    total = max(0, int(b.total))
    pct = sum(m.value for m in active(s, "CONSUMPTION_PCT", any_city=True))
    if pct:
        new = total // 2 if pct <= -50 else total + total * pct // 100
        return Breakdown(b.name, new, (*b.terms, Term(f"event: Consumption {pct:+d}%", new - total)),
                         f"{total} then {pct:+d}% (UC event)")
    if b.total < 0:
        return Breakdown(b.name, 0, b.terms, f"raw {b.total}, floored at 0")
    return b


# ---------------------------------------------------------------- attributes


ALIGN_AXES = {"L": 0, "N": 1, "C": 2, "G": 0, "E": 2}


COMPONENT_ATTR = {"Lawful": "ECONOMY", "Evil": "ECONOMY", "Neutral": "STABILITY", "Chaotic": "LOYALTY",
                  "Good": "LOYALTY"}


def skill_bonus(s: Pf1State, o: Occupant) -> int:
    """floor(ranks / ranks_per_bonus) (+1 Leadership feat) with leadership_skills (opt §2.12)."""
    if not s.module_on("leadership_skills"):
        return 0
    return o.skill_ranks // int(s.opt("leadership_ranks_per_bonus")) + (1 if o.leadership_feat else 0)


UC_VACANCY = {"GENERAL": {"LOYALTY": -4}, "WARDEN": {"LOYALTY": -2, "STABILITY": -2}}
"""Ultimate Campaign vacancy penalties that differ from RRR (base §6.3)."""


def leader_modifiers(s: Pf1State, attr: str) -> list[Modifier]:
    out: list[Modifier] = []
    for role in s.catalog.roles.values():
        if not role_available(s, role.name):
            continue
        occ = [o for o in s.leaders.get(role.name, ()) if o.present]
        if occ:
            for o in occ:
                if role.name == "RULER":
                    targets = o.attributes[: ruler_attribute_count(s)]
                elif role.name == "SPYMASTER":
                    targets = o.attributes[:1]
                else:
                    targets = role.attributes
                if attr in targets:
                    base = o.modifier // 2 if role.half_modifier else o.modifier
                    out.append(Modifier(f"{role.name.lower()} {o.name}", base, source="§2.4"))
                    sb = skill_bonus(s, o)
                    if sb:
                        out.append(Modifier(f"{role.name.lower()} {o.name} skill ranks", sb, source="opt §2.12"))
        else:
            pen = getattr(role, f"vacancy_{attr.lower()}")
            if s.opt("vacancy_table") == "uc" and role.name in UC_VACANCY:
                pen = UC_VACANCY[role.name].get(attr, 0)
            if pen and not role.module and not role.acts_as_ruler:
                out.append(Modifier(f"{role.name.lower()} vacant", pen, source="§6.3"))
    return out


def building_attr(s: Pf1State, b: Building, t: BuildingType, attr: str) -> int:
    """A building's Economy/Loyalty/Stability, with holy-site dedications (opt §2.2)."""
    if s.module_on("holy_sites") and t.religion and b.bonus_mode != "standard":
        if b.bonus_mode == "portfolio":
            return b.portfolio.get(attr, 0)
        comps = alignment_components(b.deity_alignment or "N")
        if t.religion == "shrine":
            return 1 if b.shrine_attribute == attr else 0
        per = 2 if t.religion == "temple" else 4
        return sum(per for c in comps if COMPONENT_ATTR[c] == attr)
    return t.attr(attr)


GOODS_EN = ("Guildhall", "Smithy", "Shop", "Trade Shop", "Tannery")
LUXURIES = ("Alchemist", "Caster's Tower", "Exotic Craftsman", "Herbalist", "Luxury Store", "Magic Shop")


def count_in(s: Pf1State, city: str, names: tuple[str, ...] | list[str]) -> int:
    """Live buildings of ``city`` called one of ``names`` (or an alias), any case."""
    want = {n.lower() for n in names}
    n = 0
    for b in live_buildings(s):
        if b.city != city:
            continue
        t = s.catalog.building(b.type)
        if t.name.lower() in want or any(x.lower() in want for x in t.aliases):
            n += 1
    return n


def trade_type_bonus(s: Pf1State, r: TradeRoute) -> int:
    """Economy bonus of a route's type (opt §2.7.6)."""
    if r.type == "food":
        return farms(s) // 10
    if r.type == "goods":
        names = GOODS_EN if s.opt("trade_goods_buildings") == "en" else tuple(x for x in GOODS_EN if x != "Shop")
        return count_in(s, r.origin, names) // 10
    if r.type == "luxuries":
        return count_in(s, r.origin, LUXURIES) // 10
    hexes = claimed_hexes(s)
    mines = sum(1 for h in hexes if "MINE" in improvements_of(h)) if count_in(s, r.origin, ("Foundry",)) else 0
    return (mines + sum(1 for h in hexes for k in improvements_of(h) if k in ("QUARRY", "SAWMILL"))) // 10


def relationship_modifier(s: Pf1State, target: str) -> int:
    """REL: one row per third party, the most specific (opt §2.5.4)."""
    total = 0
    for x in s.foreign:
        if x == target:
            continue
        y = LEVELS.index(s.relations.get(x, Relation()).level)
        a, b = sorted((target, x))
        t = LEVELS.index(s.third_party.get(f"{a}|{b}", "none"))
        if (a, b) in s.enemies:
            total += {3: 10, 2: 5, 1: 2}.get(y, 0)
        elif y == 3 and t == 3:
            total -= 8
        elif y >= 2 and t == 3:
            total -= 4
        elif y >= 2 and t >= 2:
            total -= 2
    return total


def trade_route_words(s: Pf1State, r: TradeRoute) -> str:
    """An established trade route's Economy by its tier (opt §2.7.5), said as the route: what it carries, to whom, from
    where ("goods trade route from Tatzlford to Mivon, by its tier"; its id ``T2`` said nothing)."""
    partner = s.foreign[r.partner].name if r.partner in s.foreign else r.partner
    origin = s.cities[r.origin].name if r.origin in s.cities else r.origin
    where = partner if r.destination in (partner, r.partner) else f"{r.destination}, {partner}"
    return f"{r.type.replace('_', ' ')} trade route from {origin} to {where}, by its tier"


def trade_economy(s: Pf1State) -> list[Modifier]:
    if not s.module_on("trade_edicts"):
        return []
    out: list[Modifier] = []
    for r in s.trade_routes:
        if r.status != "established" or r.established_turn is None:
            continue
        if not (r.established_turn <= s.turn <= r.established_turn + int(s.opt("trade_duration_turns")) - 1):
            continue
        out.append(Modifier(trade_route_words(s, r), r.tier_economy, source="opt §2.7.5"))
        bonus = trade_type_bonus(s, r) if s.opt("trade_type_bonus_mode") == "live" else r.type_bonus_snapshot
        if r.type == "food" and not r.food_active:
            bonus = 0
        if bonus:
            out.append(Modifier(f"trade route {r.id} {r.type}", bonus, source="opt §2.7.6"))
    return out


def relation_modifiers(s: Pf1State, attr: str, *, terms: bool = True) -> list[Modifier]:
    """Embassy buildings, treaties and alliances (diplomatic edicts, or a vassal's automatic treaty)."""
    if not (s.module_on("diplomatic_edicts") or s.module_on("vassalage_edicts")):
        return []
    out: list[Modifier] = []
    for fid, rel in sorted(s.relations.items()):
        if rel.embassy_building:
            bt = s.catalog.building(rel.embassy_building)
            v = bt.attr(attr) + (2 if attr == "ECONOMY" else 0)
            if v:
                out.append(Modifier(f"embassy {bt.name} in {fid}", v, source="opt §2.5.6"))
        for tm in (rel.treaty, rel.alliance) if terms else ():
            if tm and ((tm.kind == "treaty" and attr == "ECONOMY") or (tm.kind == "alliance" and attr == "STABILITY")):
                v = relation_bonus(s, tm)
                if v:
                    out.append(Modifier(f"{tm.kind} with {fid}", v, source="opt §2.5.7"))
    return out


def relation_bonus(s: Pf1State, terms: Terms) -> int:
    """A treaty/alliance bonus after the multi-relationship reduction (opt §2.5.7)."""
    k = terms.order_index
    reduce_by = (1 if k > 0 else 0) if s.opt("diplomatic_multi_relationship_penalty") == "flat" else k
    return max(0, terms.bonus_you - reduce_by)


def attribute(s: Pf1State, attr: str, *, raw: bool = False, exclude_relations: bool = False) -> Breakdown:
    """Economy, Loyalty or Stability (base §2.3), 0 in anarchy unless ``raw``.

    ``exclude_relations`` leaves out treaty and alliance bonuses (opt §2.5.7, to avoid circularity).
    """
    mods: list[Modifier] = []
    for comp in alignment_components(s.alignment):
        if COMPONENT_ATTR[comp] == attr:
            mods.append(Modifier(f"alignment {comp}", 2, source="§2.6"))
    mods += leader_modifiers(s, attr)
    ed = s.edicts
    promo = getattr(s.catalog.promotion[ed.promotion], attr.lower())
    tax = getattr(s.catalog.taxation[ed.taxation], attr.lower())
    fest = getattr(s.catalog.festivals[ed.festivals], attr.lower())
    if fest > 0 and not role_effective(s, "COUNCILOR"):
        fest = 0  # base §2.9: no festival benefit without a Councilor
    if tax < 0 and any(btype(s, b).tax_loyalty_halved for b in live_buildings(s)):
        tax = -((-tax) // 2)  # UC Waterfront: halves the Taxation edict's Loyalty penalty
    for label, v in ((edict_words("promotion", ed.promotion), promo), (edict_words("taxation", ed.taxation), tax),
                     (edict_words("festivals", ed.festivals), fest)):
        if v:
            mods.append(Modifier(label, v, source="§6.6"))
    for b in live_buildings(s):
        t = btype(s, b)
        v = building_attr(s, b, t, attr)
        if v:
            mods.append(Modifier(f"{t.name} ({s.cities[b.city].name})", v, source="buildings"))
    roads = sum(1 for h in claimed_hexes(s) if h.road or "ROAD" in h.features)
    rb = roads // 4 if attr == "ECONOMY" else roads // 8 if attr == "STABILITY" else 0
    if rb:
        mods.append(Modifier(f"roads ({roads} hexes)", rb, source="§6.7"))
    per: dict[str, int] = {}
    for h in claimed_hexes(s):
        for kind in improvements_of(h):
            imp = s.catalog.improvements.get(kind)
            if imp:
                if imp.economy_per or imp.stability_per:
                    per[kind] = per.get(kind, 0) + 1
                if imp.effect_needs_city and not h.city:
                    continue
                v = getattr(imp, attr.lower())
                if v and imp.double_with_feature and imp.double_with_feature in h.features:
                    v *= 2
                if v and imp.resource_bonus and "RESOURCE" in h.features:
                    v += 1  # UC Resource: a Mine, Quarry or Sawmill gets +1 to each benefit
                if v:
                    mods.append(Modifier(f"{kind.lower()} on {hex_words(h.id)}", v, source="§6.8"))
        for f, a in (("CAVE", "STABILITY"), ("LANDMARK", "LOYALTY"), ("RESOURCE", "ECONOMY")):
            if f in h.features and a == attr:
                mods.append(Modifier(f"{f.lower()} on {hex_words(h.id)}", 1, source="§6.9"))
    for kind, n in sorted(per.items()):  # UC Highway: +1 Economy per 4 hexes, +1 Stability per 8
        imp = s.catalog.improvements[kind]
        every = imp.economy_per if attr == "ECONOMY" else imp.stability_per if attr == "STABILITY" else None
        if every and n // every:
            mods.append(Modifier(f"{kind.lower()} ({n} hexes)", n // every, source="UC terrain improvements"))
    if s.opt("improvement_edition") == "uc" and attr in ("ECONOMY", "STABILITY"):
        rivers = sum(1 for h in claimed_hexes(s) if h.river or any(
            (i := s.catalog.improvements.get(k)) is not None and i.counts_as_river for k in improvements_of(h)))
        rv = rivers // 4 if attr == "ECONOMY" else rivers // 8
        if rv:
            mods.append(Modifier(f"rivers ({rivers} hexes)", rv, source="UC Special Terrain: River"))
    for m in active(s, attr, any_city=True):
        mods.append(Modifier(m.source, m.value, source="timed"))
    if attr == "ECONOMY":
        mods += trade_economy(s)
        fm = foundry_mines(s)
        if fm:
            mods.append(Modifier(f"Foundry working {fm} mine(s)", fm, source="UC Foundry"))
    mods += relation_modifiers(s, attr, terms=not exclude_relations)
    out = stack(attr.capitalize(), mods)
    if s.anarchy and not raw:
        return Breakdown(out.name, 0, out.terms, f"anarchy: effective value 0 (computed {out.total})")
    return out


def attributes(s: Pf1State) -> dict[str, int]:
    return {a: int(attribute(s, a).total) for a in ATTRIBUTES}


# ---------------------------------------------------------------- cities


def city_lots(s: Pf1State, c: City) -> int:
    return sum(len(b.lots) for b in s.buildings.values() if b.city == c.id)


def population(s: Pf1State) -> Breakdown:
    """250 × Size + 250 × built lots of each live city (base §2.2)."""
    mods = [Modifier("hexes × 250", 250 * size(s))]
    for c in live_cities(s):
        n = city_lots(s, c)
        if n:
            mods.append(Modifier(f"{c.name} ({n} lot{'' if n == 1 else 's'} × 250)", 250 * n))
    return stack("Population", mods)


def base_value(s: Pf1State, c: City) -> int:
    """min(16000, 200 + Σ building increments) gp (base §2.2)."""
    inc = sum(btype(s, b).base_value for b in live_buildings(s) if b.city == c.id)
    return min(16000, 200 + inc)


def defense(s: Pf1State, c: City) -> int:
    """A settlement's Defense: its buildings, and forts or watchtowers in its hex (UC)."""
    h = s.hexes.get(c.hex)
    imps = sum(i.defense for k in (improvements_of(h) if h else ()) if (i := s.catalog.improvements.get(k)))
    return sum(btype(s, b).defense for b in live_buildings(s) if b.city == c.id) + imps


def terrain_income(s: Pf1State) -> dict[str, int]:
    """BP earned with the taxes: UC Mines, Quarries, Sawmills (+1 with a Resource) and Foundries' mines."""
    out: dict[str, int] = {}
    for h in claimed_hexes(s):
        for kind in improvements_of(h):
            imp = s.catalog.improvements.get(kind)
            if imp and imp.bp_per_turn:
                out[f"{kind.lower()} {h.id}"] = imp.bp_per_turn + (1 if imp.resource_bonus and "RESOURCE" in h.features
                                                                   else 0)
    fm = foundry_mines(s)
    if fm:
        out["Foundry mines"] = fm
    return out


def settlement_size_row(lots: int) -> tuple[str, int, int, bool] | None:
    """(category, modifier, danger, per-district) for a settlement's lots (opt §2.4).

    >>> settlement_size_row(1), settlement_size_row(45)
    (('Village', -4, -10, False), ('Large city', 1, 5, True))
    """
    if lots <= 0:
        return None
    for hi, row in ((1, ("Village", -4, -10, False)), (8, ("Small town", -2, -5, False)),
                    (20, ("Large town", 0, 0, False)), (40, ("Small city", 1, 5, False)),
                    (100, ("Large city", 1, 5, True))):
        if lots <= hi:
            return row
    return ("Metropolis", 1, 5, True)


def settlement_size(s: Pf1State, c: City) -> tuple[str, int, int]:
    """(category, modifier, danger) with per-district multiplication (opt §2.4, D6)."""
    row = settlement_size_row(city_lots(s, c))
    if row is None:
        return ("none", 0, c.base_danger)
    cat, mod, danger, per = row
    nd = max(1, len(c.districts))
    if per:
        mod *= nd
        if s.opt("settlement_danger_per_district"):
            danger *= nd
    return (cat, mod, c.base_danger + danger)


def government_line(s: Pf1State) -> dict[str, int]:
    if not s.module_on("government_forms"):
        return dict.fromkeys(SETTLEMENT_MODIFIERS, 0)
    g = s.catalog.governments[s.government]
    line = {m: int(getattr(g, m)) for m in SETTLEMENT_MODIFIERS}
    if s.government == "secret_syndicate":
        line["productivity"] = int(s.opt("secret_syndicate_productivity"))
    return line


def settlement_modifiers(s: Pf1State, c: City) -> dict[str, int]:
    """S_m(s): building lines + government + size (opt §2.13)."""
    out = dict.fromkeys(SETTLEMENT_MODIFIERS, 0)
    for b in live_buildings(s):
        if b.city == c.id:
            line = btype(s, b).settlement
            for m in SETTLEMENT_MODIFIERS:
                out[m] += line.get(m)
    if s.module_on("government_forms") and s.opt("government_scope") == "per_settlement":
        for m, v in government_line(s).items():
            out[m] += v
    if s.module_on("settlement_sizes"):
        _, mod, _ = settlement_size(s, c)
        for m in SETTLEMENT_MODIFIERS:
            out[m] += mod
    for m in SETTLEMENT_MODIFIERS:  # localized event adjustments (UC Events, opt §2.13)
        out[m] += sum(x.value for x in active(s, f"SET:{m}", c.id))
    return out


ALIGN_SETTLEMENT = {"Chaotic": "crime", "Evil": "corruption", "Good": "society", "Lawful": "law", "Neutral": "lore"}


def kingdom_modifiers(s: Pf1State) -> dict[str, Breakdown]:
    """K_m = floor(Σ_s S_m / 10) + alignment + adjustments (opt §2.3)."""
    out: dict[str, Breakdown] = {}
    per_city = [settlement_modifiers(s, c) for c in live_cities(s)]
    for m in SETTLEMENT_MODIFIERS:
        total = sum(pc[m] for pc in per_city)
        mods = [Modifier(f"a tenth of the settlements' {m.capitalize()} ({total})", total // 10)]
        for comp in alignment_components(s.alignment):
            if ALIGN_SETTLEMENT[comp] == m:
                mods.append(Modifier(f"alignment {comp}", 1))
        if s.kingdom_adjustments.get(m):
            mods.append(Modifier("adjustments", s.kingdom_adjustments[m]))
        for x in active(s, f"SET:{m}"):  # kingdom-wide event adjustments (UC Events)
            mods.append(Modifier(x.source, x.value))
        if s.module_on("government_forms") and s.opt("government_scope") == "kingdom_final":
            g = government_line(s)[m]
            if g:
                mods.append(Modifier(f"government {s.government}", g))
        out[m] = stack(f"kingdom {m}", mods)
    return out


def effective_settlement(s: Pf1State, c: City) -> dict[str, int]:
    """E_m(s) = max(S_m(s), K_m) with expanded modifiers on, else S_m(s) (opt §2.3)."""
    own = settlement_modifiers(s, c)
    if not s.module_on("expanded_settlement_modifiers"):
        return own
    k = kingdom_modifiers(s)
    return {m: max(own[m], int(k[m].total)) for m in own}


# ---------------------------------------------------------------- fame


def fame(s: Pf1State) -> Breakdown:
    """Fame = max(0, ledger + building Fame + floor((ΣLore + ΣSociety)/10)) (opt §2.9)."""
    fb = sum(btype(s, b).fame for b in live_buildings(s))
    per = [settlement_modifiers(s, c) for c in live_cities(s)]
    ls = sum(p["lore"] + p["society"] for p in per)
    mods = [Modifier("ledger", s.fame_ledger), Modifier("buildings", fb),
            Modifier(f"a tenth of the settlements' Lore and Society ({ls})", ls // 10)]
    if s.module_on("diplomatic_edicts"):
        for fid, rel in s.relations.items():
            if rel.embassy_building:
                f = s.catalog.building(rel.embassy_building).fame
                if f:
                    mods.append(Modifier(f"embassy in {fid}", f))
    b = stack("Fame", mods)
    return Breakdown("Fame", max(0, int(b.total)), b.terms, "floored at 0")


def infamy(s: Pf1State) -> Breakdown:
    per = [settlement_modifiers(s, c) for c in live_cities(s)]
    cc = sum(p["corruption"] + p["crime"] for p in per)
    b = stack("Infamy", [Modifier("ledger", s.infamy_ledger),
                         Modifier(f"a tenth of the settlements' Corruption and Crime ({cc})", cc // 10)])
    return Breakdown("Infamy", max(0, int(b.total)), b.terms, "floored at 0")


def fame_value(s: Pf1State) -> int:
    return int(fame(s).total) if s.module_on("fame_infamy") else 0


def infamy_value(s: Pf1State) -> int:
    return int(infamy(s).total) if s.module_on("fame_infamy") else 0


def attitude_index(a: str) -> int:
    return ATTITUDES.index(a)


def sum_terms(mods: Iterable[Modifier]) -> int:
    return sum(m.value for m in mods)
