"""A kingdom kept by the PF1 kingdom sheet (the Foundry VTT module ``pf1-kingdom-sheet``), read into a pf1
campaign (issue 32; ``core.foreign``).

The document is the kingdom actor as Foundry exports it (type ``pf1-kingdom-sheet.kingdom``): its ``system``
fields are the module's ``KingdomModel`` (government, alignment, turn, treasury, Unrest, Fame, Infamy, edicts,
leadership, settings), its items the kingdom's buildings and events. The schema before the module's version 4
(settlements and their districts inside the kingdom, buildings as the kingdom's items naming their settlement)
and before version 5 (the claimed hexes counted by terrain) is read too. In later versions settlements and hexes
live in other documents (settlement actors, scene hex data): those references are listed as not mapped.

What the sheet holds that the state cannot is listed (field, value, why) in the import's report and in the
``pf1.kingdom_imported`` event.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kingdomlog.core.errors import InputError
from kingdomlog.core.events import Draft
from kingdomlog.core.foreign import (
    Doc,
    ForeignFormat,
    ForeignKingdom,
    Naming,
    Unmapped,
    UnmappedField,
    given_name,
    named_target,
    note_drafts,
    placeholder,
)
from kingdomlog.rulesets.pf1 import events as ev
from kingdomlog.rulesets.pf1 import tables as tb
from kingdomlog.rulesets.pf1.rules import lot_shapes
from kingdomlog.rulesets.pf1.state import Building, City, District, Edicts, Hex, Occupant, Pf1State, unnamed

SHEET = "pf1-kingdom-sheet"
KINGDOM_TYPE = f"{SHEET}.kingdom"
BUILDING_TYPE = f"{SHEET}.building"
NOT_HELD = "kingdomlog has no field for it"
SHEET_ONLY = "a setting of the Foundry sheet itself, with no rule behind it in kingdomlog"

ALIGNMENTS = {"lg": "LG", "ng": "NG", "cg": "CG", "ln": "LN", "tn": "N", "n": "N", "cn": "CN", "le": "LE",
              "ne": "NE", "ce": "CE"}
GOVERNMENTS = {"aut": "autocracy", "mag": "magocracy", "oli": "oligarchy", "ove": "overlord", "rep": "republic",
               "sec": "secret_syndicate", "the": "theocracy"}
ROLES = {"ruler": "RULER", "consort": "CONSORT", "heir": "HEIR", "councilor": "COUNCILOR", "general": "GENERAL",
         "diplomat": "GRAND_DIPLOMAT", "priest": "HIGH_PRIEST", "magister": "MAGISTER", "marshal": "MARSHAL",
         "enforcer": "ROYAL_ENFORCER", "spymaster": "SPYMASTER", "treasurer": "TREASURER", "warden": "WARDEN"}
BONUS = {"economy": ("ECONOMY",), "loyalty": ("LOYALTY",), "stability": ("STABILITY",),
         "ecoLoy": ("ECONOMY", "LOYALTY"), "ecoSta": ("ECONOMY", "STABILITY"), "loySta": ("LOYALTY", "STABILITY"),
         "all": ("ECONOMY", "LOYALTY", "STABILITY")}
HOLIDAY = ("0", "1", "6", "12", "24")
PROMOTION = ("NONE", "TOKEN", "STANDARD", "AGGRESSIVE", "EXPANSIONIST")
TAXATION = ("NONE", "LIGHT", "NORMAL", "HEAVY", "OVERWHELMING")
TERRAIN = {"plains": "GRASSLAND", "hills": "HILLS", "forest": "FOREST", "jungle": "FOREST", "marsh": "MARSH",
           "mountains": "MOUNTAINS"}
MODULES = {"fameInfamy": "fame_infamy", "governmentForms": "government_forms", "leadershipSkills": "leadership_skills",
           "expandedSettlementModifiers": "expanded_settlement_modifiers", "altSettlementSizes": "settlement_sizes"}
BORDERS = {"north": "N", "south": "S", "east": "E", "west": "W"}
BIG = 1_000_000


def detect(doc: Any) -> bool:
    return isinstance(doc, Mapping) and doc.get("type") == KINGDOM_TYPE and isinstance(doc.get("system"), Mapping)


def stored(state: Pf1State) -> dict[str, Any]:
    """The fields an import records: the state's own, without the campaign's (id, options, catalogue, modules)."""
    return state.model_dump(mode="json", exclude=set(ev.KINGDOM_NOT_IMPORTED))


def read(doc: Any) -> ForeignKingdom:
    """The kingdom actor of the PF1 kingdom sheet as a new campaign's first batch."""
    top = Doc(doc, "")
    top.skip("type", "_id", "img", "folder", "sort", "ownership", "prototypeToken", "effects", "_stats", "flags")
    name = top.text("name", "Imported kingdom", max_len=200) or "Imported kingdom"
    root = top.obj("system")
    k: dict[str, Any] = {"name": name, "founded": True, "phase": "TURN_ENDED"}
    extra: list[Unmapped] = []
    options: dict[str, Any] = {}
    al = root.text("alignment", "tn", max_len=10)
    if al.lower() not in ALIGNMENTS:
        raise InputError(f"field system.alignment must be one of {', '.join(ALIGNMENTS)}; got {al!r}")
    k["alignment"] = ALIGNMENTS[al.lower()]
    turn = root.integer("turn", 0, 2**31 - 1, 0)
    k["turn"] = turn
    k["treasury"] = root.integer("treasury", -BIG, BIG, 0)
    root.obj("bpStorage", {}).unmapped("current", "kingdomlog keeps the Treasury only (no BP storage)")
    k["unrest"] = root.integer("unrest", 0, 1000, 0)
    k["fame_ledger"] = root.obj("fame", {}).integer("base", 0, BIG, 0)
    k["infamy_ledger"] = root.obj("infamy", {}).integer("base", 0, BIG, 0)
    if root.has("eventLastTurn"):
        k["event_last_turn"] = root.flag("eventLastTurn")
    edicts = root.obj("edicts", {})

    def edict(key: str, values: tuple[str, ...]) -> str:
        raw = edicts.raw(key, "")
        if raw in ("", None):
            return values[0]
        text = str(raw)
        if text not in {str(i) for i in range(len(values))}:
            raise InputError(f"field system.edicts.{key} must be one of 0-{len(values) - 1}; got {raw!r}")
        return values[int(text)]

    k["edicts"] = Edicts(festivals=edict("holiday", HOLIDAY), promotion=edict("promotion", PROMOTION),
                         taxation=edict("taxation", TAXATION))
    settings = root.obj("settings", {})
    rules = settings.obj("optionalRules", {})
    modules = [mod for key, mod in MODULES.items() if rules.flag(key, False)]
    rules.unmapped("kingdomModifiers", "a house rule of the sheet kingdomlog has no module for")
    settings.unmapped("secondRuler", "kingdomlog seats a co-ruler when a second RULER is assigned")
    for key in ("collapseTooltips", "color"):
        settings.unmapped(key, SHEET_ONLY)
    if modules:
        options["modules"] = modules
    gov = root.text("government", "aut", max_len=10)
    if gov not in GOVERNMENTS:
        raise InputError(f"field system.government must be one of {', '.join(GOVERNMENTS)}; got {gov!r}")
    if "government_forms" in modules:
        k["government"] = GOVERNMENTS[gov]
    elif gov != "aut":
        root.note("government", gov, "the government forms rule is off in the sheet; kingdomlog's kingdom is a"
                                     " feudal monarchy until the government_forms module is switched on")
    k["leaders"] = _leaders(root.obj("leadership", {}))
    catalog = tb.base_catalog()
    homebrew: list[dict[str, Any]] = []
    hexes, cities, districts, buildings = _settlements(root, top, catalog, extra, homebrew)
    k.update(hexes=hexes, cities=cities, districts=districts, buildings=buildings)
    k["serials"] = {"C": len(cities), "D": len(districts), "B": len(buildings), "X": 0}
    root.unmapped("settlementProxies", "settlements of version 4 and later are actors of their own, not in the"
                                       " kingdom's export: found them again in kingdomlog")
    root.unmapped("armies", "armies are actors of their own, not in the kingdom's export")
    big = 10_000_000
    text = root.obj("notes", {}).text("value", "", max_len=big) if isinstance(root.data.get("notes"), Mapping) \
        else root.text("notes", "", max_len=big)
    notes = note_drafts(text, "Notes from the Foundry kingdom sheet", visibility="gm", turn=turn)
    try:
        state = Pf1State.model_validate({**k, "campaign": "-", "options": {}, "catalog": catalog})
    except ValueError as exc:
        raise InputError(f"the kingdom does not fit kingdomlog's state: {str(exc).splitlines()[0]}") from None
    unmapped = [*extra, *top.leftovers(NOT_HELD)]
    version = ("before version 4 (settlements inside the kingdom)" if root.data.get("settlements")
               else "before version 5 (hexes counted by terrain)" if isinstance(root.data.get("terrain"), Mapping)
               and any(root.data["terrain"].values()) else "version 5 or later")
    event = ev.KingdomImported(source=SHEET, source_title="PF1 kingdom sheet", source_version=version,
                               kingdom=stored(state),
                               unmapped=[UnmappedField(field=u.field[:500] or "(document)", value=u.value,
                                                          why=u.why[:500]) for u in unmapped])
    return ForeignKingdom(format=SHEET, version=version, name=name, options=options,
                          events=[Draft(event, turn=turn), *notes], unmapped=tuple(unmapped),
                          homebrew={"buildings": {"building": homebrew}} if homebrew else {})


def _leaders(lead: Doc) -> dict[str, tuple[Occupant, ...]]:
    """Each seat's occupant by the actor the sheet names; their bonus is worked out from that actor in Foundry."""
    roles = {r.name: r for r in tb.base_catalog().roles.values()}
    out: dict[str, tuple[Occupant, ...]] = {}
    seats: dict[str, int] = {}

    def seat(d: Doc, role: str) -> Occupant | None:
        who = d.opt_str("actor") or d.opt_str("name") or d.opt_str("actorId")
        d.skip("id", "role", "skillBonusType")
        bonus = d.text("bonusType", "", max_len=20)
        if not who:
            return None
        info = roles.get(role)
        ability = info.abilities[0] if info is not None and info.abilities else "CHA"
        attrs = BONUS.get(bonus, tuple(info.attributes) if info is not None else ())
        d.note("actor", who, "the leader's bonus is worked out from the actor's abilities in Foundry; kingdomlog"
                             " seats them with +0 until a leader assignment gives their modifier")
        if d.data.get("name") == who:  # the sheet held the leader's name, not an actor
            return Occupant(name=who, ability=ability, modifier=0, attributes=attrs)
        seats[role] = seats.get(role, 0) + 1
        label = role.replace("_", " ").title() + (f" {seats[role]}" if role == "VICEROY" else "")
        return Occupant(name=placeholder(label), ability=ability, modifier=0, attributes=attrs, foundry_id=who)

    for key, role in ROLES.items():
        if lead.has(key) and lead.data[key] is not None:
            occ = seat(lead.obj(key), role)
            if occ is not None:
                out[role] = (occ,)
    vice = [o for d in lead.objs("viceroys", []) if (o := seat(d, "VICEROY")) is not None]
    if vice:
        out["VICEROY"] = tuple(vice)
    return out


def _settlements(root: Doc, top: Doc, catalog: tb.Catalog, extra: list[Unmapped], homebrew: list[dict[str, Any]]
                 ) -> tuple[dict[str, Hex], dict[str, City], dict[str, District], dict[str, Building]]:
    """Cities, districts and buildings of the schema before version 4, and hexes counted by terrain before
    version 5: each on an invented place of the map (a row of hexes), since the sheet keeps no coordinates."""
    hexes: dict[str, Hex] = {}
    cities: dict[str, City] = {}
    districts: dict[str, District] = {}
    buildings: dict[str, Building] = {}

    def new_hex(terrain: str, **kw: Any) -> Hex:
        h = Hex(id=f"H{len(hexes) + 1}", q=len(hexes), r=0, terrain=terrain, explored=True, cleared=True,
                claimed=True, **kw)
        hexes[h.id] = h
        return h

    by_sheet: dict[str, str] = {}
    for i, s in enumerate(root.objs("settlements", [])):
        sid = s.text("id", max_len=200)
        cid = f"C{i + 1}"
        by_sheet[sid] = cid
        home = new_hex("GRASSLAND", city=cid)
        dids = []
        for d in s.objs("districts", []):
            did = f"D{len(districts) + 1}"
            d.skip("id")
            d.unmapped("name", NOT_HELD)
            borders = d.obj("borders", {})
            sides = {BORDERS[b]: borders.text(b, "land", choices=("land", "water", "cliff")).upper()
                     for b in BORDERS if borders.has(b)}
            districts[did] = District(id=did, city=cid, hex=home.id, status="READY", ready_on_turn=0,
                                      borders={b: sides.get(b, "LAND") for b in ("N", "E", "S", "W")})
            dids.append(did)
        count = s.integer("districtCount", 0, 1000, len(dids))
        while len(dids) < count:  # districts the sheet counts but did not describe
            did = f"D{len(districts) + 1}"
            districts[did] = District(id=did, city=cid, hex=home.id, status="READY", ready_on_turn=0,
                                      borders=dict.fromkeys(("N", "E", "S", "W"), "LAND"))
            dids.append(did)
        cities[cid] = City(id=cid, name=s.text("name", "") or placeholder(f"Settlement {i + 1}"), hex=home.id,
                           capital=i == 0, districts=tuple(dids))
        s.unmapped("magicItems", "kingdomlog fills a building's magic item slots in its own turns")
        attrs = s.obj("attributes", {})
        attrs.unmapped("government", "the government forms module sets settlement government kingdom-wide in"
                                     " kingdomlog")
        attrs.unmapped("alignment", NOT_HELD)
    if cities:
        extra.append(Unmapped("system.settlements", len(cities), "the sheet keeps no map coordinates: each"
                                                                 " settlement stands on an invented hex (H1, H2 …)"
                                                                 " in a row; place the map again in kingdomlog"))
    terrain = root.obj("terrain", {})
    for key in list(terrain.data):
        n = terrain.integer(key, 0, 100_000, 0)
        if key in TERRAIN:
            for _ in range(n):
                new_hex(TERRAIN[key])
            if key == "jungle" and n:
                terrain.note(key, n, "kingdomlog's terrains have no jungle: these hexes are forest")
        elif n:
            terrain.note(key, n, "not a terrain of kingdomlog's data")
    used: dict[str, set[int]] = {d: set() for d in districts}
    items = top.raw("items", [])
    if isinstance(items, list):
        for i, item in enumerate(items):
            it = Doc(item, f"items[{i}]")
            if it.data.get("type") != BUILDING_TYPE:
                it.note("", {"name": it.data.get("name"), "type": it.data.get("type")},
                        "the sheet's kingdom events and other items: kingdomlog records events as they happen")
                top.notes.extend(it.notes)
                continue
            top.children.append(it)
            it.skip("type", "_id", "img", "sort", "flags", "_stats", "folder", "ownership", "effects")
            system = it.obj("system", {})
            kind = system.text("type", "", max_len=100) if system.has("type") else ""
            label = it.text("name", kind, max_len=200)
            amount = system.integer("amount", 0, 1000, 1)
            settlement = system.text("settlementId", "", max_len=200)
            system.skip("lots", "lotSize")
            if _known(catalog, kind, label):
                system.unmapped("changes", "a building's effects are kingdomlog's data for its type")
            system.unmapped("description", NOT_HELD)
            try:
                bt = catalog.building(kind.replace("_", " ")) if kind else catalog.building(label)
            except InputError:
                try:
                    bt = catalog.building(label)
                except InputError:
                    made = _homebrew_building(it, system, label, homebrew)
                    if made is None:
                        continue
                    bt = made
            city = by_sheet.get(settlement)
            if city is None:
                it.note("system.settlementId", system.data.get("settlementId"),
                        "the building's settlement is not in this export (version 4 and later keep it on the"
                        " settlement's own actor)")
                continue
            for _ in range(amount):
                placed = _place(cities[city], used, bt.lots)
                if placed is None:
                    it.note("system.amount", amount, f"{cities[city].name}'s districts have no room left for"
                                                     f" another {bt.name}")
                    break
                did, lots = placed
                bid = f"B{len(buildings) + 1}"
                buildings[bid] = Building(id=bid, type=bt.name, city=city, district=did, lots=lots,
                                          border="N" if bt.lots == 0 else None)
    return hexes, cities, districts, buildings


def _known(catalog: tb.Catalog, kind: str, label: str) -> bool:
    for name in (kind.replace("_", " "), label):
        try:
            if name:
                catalog.building(name)
                return True
        except InputError:
            pass
    return False


CHANGE_TARGETS = ("economy", "loyalty", "stability", "unrest", "defense")
"""The sheet's change targets a homebrew building of kingdomlog's data holds (its other lines stay listed)."""


def _homebrew_building(it: Doc, system: Doc, label: str, homebrew: list[dict[str, Any]]) -> tb.BuildingType | None:
    """A building the sheet has and kingdomlog's data has not, as a homebrew entry (``data/buildings.toml``):
    its lots and its changes to Economy, Loyalty, Stability, Unrest and Defense; None when it cannot be one."""
    lots = system.integer("lots", 0, 4, 1) if system.has("lots") else system.integer("lotSize", 0, 4, 1)
    if lots not in (0, 1, 2, 4):
        it.note("name", label, f"not a building of kingdomlog's data, and its {lots} lots are not a shape it holds")
        return None
    entry: dict[str, Any] = {"name": label, "cost": 0, "lots": lots,
                             "special": "brought in from the PF1 kingdom sheet; its cost was not in the export"}
    for j, ch in enumerate(system.objs("changes", [])):
        target = ch.text("target", "", max_len=100)
        bonus = ch.integer("bonus", -1000, 1000, 0)
        ch.skip("id", "target", "bonus")
        if target in CHANGE_TARGETS and ch.data.get("scope") in (None, "", "kingdom", "settlement"):
            entry[target] = entry.get(target, 0) + bonus
            ch.skip("scope")
        else:
            ch.note("", dict(ch.data), f"building {label!r}: change {j + 1} is not a line of kingdomlog's buildings")
    try:
        bt = tb.BuildingType.model_validate(entry)
    except ValueError as exc:
        it.note("name", label, f"not a building of kingdomlog's data ({str(exc).splitlines()[0]})")
        return None
    if all(e["name"] != label for e in homebrew):
        homebrew.append(entry)
        it.note("name", label, "not in kingdomlog's data: written to data/buildings.toml with cost 0 (the export has"
                               " no cost); set its cost there")
    return bt


def _place(city: City, used: dict[str, set[int]], n: int) -> tuple[str, tuple[int, ...]] | None:
    """The first district of ``city`` and lots in it that fit an ``n``-lot building (None: no room)."""
    for did in city.districts:
        if n == 0:
            return did, ()
        for cand in lot_shapes(n):
            if not set(cand) & used[did]:
                used[did].update(cand)
                return did, cand
    return None


def named_event(state: Pf1State, ident: str, name: Any, given_as: str) -> ev.Named:
    """The ``pf1.named`` event; ``InputError`` naming ``given_as`` for an id the state lacks or a name refused.
    ``ident`` is a city's id or a leader's Foundry actor id, or the name a page shows ("Ruler (unnamed in
    Foundry)")."""
    what, ident = named_target(
        ident, [*(("city", cid, (cid,), c.name) for cid, c in state.cities.items()),
                *(("leader", o.foundry_id, (o.foundry_id,), o.name if o.foundry_id else None)
                  for occ in state.leaders.values() for o in occ)],
        given_as, kinds="city or leader", ids="a city's id or a leader's Foundry actor id",
        unnamed=(i for i, _ in unnamed(state)))
    text = given_name(name, given_as)
    if what == "leader" and any(o.name == text and o.foundry_id != ident for occ in state.leaders.values()
                                for o in occ):
        raise InputError(f"{given_as}: {text!r} already holds another role (a character holds one role)")
    return ev.Named(what="city" if what == "city" else "leader", id=ident, name=text)


def _named(state: Pf1State, e: ev.Named) -> Pf1State:
    if e.what == "city":
        return state.model_copy(update={"cities": {**state.cities,
                                                   e.id: state.cities[e.id].model_copy(update={"name": e.name})}})
    return state.model_copy(update={"leaders": {
        r: tuple(o.model_copy(update={"name": e.name}) if o.foundry_id == e.id else o for o in occ)
        for r, occ in state.leaders.items()}})


NAMING = Naming(
    imported=ev.KingdomImported,
    state_of=lambda kingdom: Pf1State.model_validate({**kingdom, "campaign": "-", "options": {},
                                                      "catalog": tb.base_catalog()}),
    stored=stored, event=named_event, apply=_named)
"""The GM's names for the cities and leaders an import left unnamed: at the import (``--name ID=NAME``) and after
(``pf1.named``)."""


FORMATS: tuple[ForeignFormat, ...] = (
    ForeignFormat(SHEET, "PF1 kingdom sheet", f"type {KINGDOM_TYPE} with system", detect, read,
                  name=NAMING.kingdom, unnamed=unnamed, naming=NAMING.drafts),
)
