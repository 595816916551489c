"""Kingdoms kept in Foundry VTT, read into a pf2e campaign and written back (issue 32; ``core.foreign``).

Two documents are read:

- **pf2e-kingmaker-tools** (the "Kingmaker Tools" / "Kingdom Building, Camping & Weather" module): the kingdom
  sheet's data, the actor flag ``flags.pf2e-kingmaker-tools.kingdom-sheet`` of an exported actor (or that object
  on its own). Its fields are the module's ``KingdomData`` and ``Raw*`` declarations; the schema before the
  module's migration 13 (charter, heartland and government as text, ``feats`` as ``{id, level}``, milestones by
  name, leaders by name) is read too.
- **the PF2e system's kingdom** (the party actor's ``system.campaign`` of type ``kingmaker``), including its older
  schema (work sites counted on the commodities, Unrest a bare number).

The pf2e-kingmaker-tools document is also written (``write_kmt``): the kingdom data in its flag, plus what that
format has no field for (hexes, settlement names and structures) under ``flags.kingdomlog``, which the module
leaves alone and this reader takes back. Every field mapped either way is in ``MAPPED``; what the source holds
that no field of the state can hold is listed (field, value, why) in the import's report and in the
``pf2e.kingdom_imported`` event itself (what the sheet keeps from its players in a GM-only journal entry
instead), and the writer gives it back to the module as the sheet had it (``_carry_back``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from kingdomlog.core.errors import InputError
from kingdomlog.core.events import Draft
from kingdomlog.core.foreign import (
    NAME_MAX,
    UNNAMED,
    Carried,
    Doc,
    ForeignFormat,
    ForeignKingdom,
    Naming,
    Unmapped,
    UnmappedField,
    given_name,
    holds_nothing,
    named_target,
    note_drafts,
    placeholder,
    secret_drafts,
)
from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.state import (
    Hex,
    KingdomModifier,
    KingdomState,
    Leader,
    OngoingEvent,
    Pending,
    Ruin,
    Settlement,
    WorkSite,
    capital,
    unnamed,
)

KMT = "pf2e-kingmaker-tools"
KMT_FLAG = "kingdom-sheet"
OURS = "kingdomlog"
SYSTEM = "pf2e-system"
NOT_HELD = "kingdomlog has no field for it"
SHEET_ONLY = "a setting of the Foundry sheet itself, with no rule behind it in kingdomlog"
BIG = 1_000_000

MAPPED: tuple[str, ...] = (
    "name", "level", "xp", "unrest", "fame", "fame_type", "rp", "commodities", "pending", "ruin", "scores",
    "skills", "leaders", "feats", "milestones", "ongoing_events", "modifiers", "hexes", "settlements", "at_war",
    "diplomatic_relations", "trade_agreements", "enemies", "armies", "event_dc", "charter", "heartland",
    "government", "cult_event_dc",
)
"""The state fields an import sets and an export writes back (the round trip keeps each of them)."""

RANKS = T.RANKS


def mapped_view(state: KingdomState) -> dict[str, Any]:
    """What of a state the pf2e-kingmaker-tools format carries both ways (``MAPPED``), as plain values: an
    export read back gives the same view."""
    s = state
    d = s.model_dump(mode="json", exclude_computed_fields=True)
    out = {f: d[f] for f in MAPPED if f not in ("leaders", "pending", "armies")}
    out["leaders"] = {r: (ld.holder, ld.kind, ld.invested) for r, ld in s.leaders.items()}
    p = s.pending
    out["pending"] = {"dice": p.bonus_dice - p.penalty_dice, "rp": p.rp, "fame": p.fame,
                      "consumption": p.consumption, "commodities": {c: v for c, v in p.commodities.items() if v}}
    out["armies"] = sum(s.armies.values())
    out["feats"] = sorted(s.feats)
    out["milestones"] = sorted(s.milestones)
    return out
KMT_MILESTONES: dict[str, str] = {
    "claim-your-first-landmark": "first-landmark",
    "claim-your-first-refuge": "first-refuge",
    "establish-your-first-village": "first-village",
    "reach-kingdom-size-10": "size-10",
    "all-eight-leadership-roles-are-assigned": "all-leadership-roles-assigned",
    "establish-diplomatic-relations-for-the-first-time": "first-diplomatic-relations",
    "expand-a-village-into-your-first-town": "first-town",
    "reach-kingdom-size-25": "size-25",
    "establish-your-first-trade-agreement": "first-trade-agreement",
    "expand-a-town-into-your-first-city": "first-city",
    "reach-kingdom-size-50": "size-50",
    "spend-100-rp-during-a-kingdom-turn": "spend-100-rp-in-a-turn",
    "expand-a-city-into-your-first-metropolis": "first-metropolis",
    "reach-kingdom-size-100": "size-100",
}
"""The module's milestone ids (its milestone names, slugged as its migration 13 does) -> ours."""

KMT_WORK_SITES: dict[str, str] = {"lumberCamps": "lumber", "mines": "ore", "quarries": "stone"}
MOD_TYPES = ("circumstance", "status", "item", "untyped")
RELATIONS = ("none", "diplomatic-relations", "trade-agreement")


def slug(text: str) -> str:
    """``Claim your first Landmark`` -> ``claim-your-first-landmark`` (the module's own slugs).

    >>> slug("Reach kingdom Size 10"), slug("Nature's Blessing")
    ('reach-kingdom-size-10', 'natures-blessing')
    """
    return re.sub(r"[^a-z0-9]+", "-", text.lower().replace("'", "")).strip("-")


# ---------------------------------------------------------------- detecting


def kmt_data(doc: Any) -> Any:
    """The kingdom data inside a pf2e-kingmaker-tools document: the flag of an actor export, or the object."""
    if isinstance(doc, Mapping):
        flags = doc.get("flags")
        if isinstance(flags, Mapping) and isinstance(flags.get(KMT), Mapping) and KMT_FLAG in flags[KMT]:
            return flags[KMT][KMT_FLAG]
    return doc


def detect_kmt(doc: Any) -> bool:
    """An actor export with the module's flag (whatever it holds: the reader refuses a flag that is no kingdom,
    naming it), or the kingdom data alone."""
    data = kmt_data(doc)
    return data is not doc or (isinstance(data, Mapping) and {"resourcePoints", "workSites", "ruin"} <= set(data))


def system_data(doc: Any) -> Any:
    """The kingdom of a PF2e party actor export (``system.campaign``), or the kingdom object itself."""
    if isinstance(doc, Mapping):
        system = doc.get("system")
        if isinstance(system, Mapping) and isinstance(system.get("campaign"), Mapping):
            return system["campaign"]
    return doc


def detect_system(doc: Any) -> bool:
    data = system_data(doc)
    return isinstance(data, Mapping) and data.get("type") == "kingmaker" and "leadership" in data


# ---------------------------------------------------------------- the state a reader builds


class Builder:
    """The pieces of a kingdom a reader collects, made into a ``KingdomState`` at the end."""

    def __init__(self) -> None:
        self.k: dict[str, Any] = {"step": "ended"}
        """The state's fields; an imported kingdom stands between two turns (its next turn starts at U0)."""
        self.options: dict[str, Any] = {}
        self.notes: list[Draft] = []
        self.homebrew: dict[str, list[dict[str, Any]]] = {}
        self.extra: list[Unmapped] = []
        self.secret: list[Unmapped] = []
        """What the source keeps from its players: listed in the GM's journal, never in the import event."""

    def hexes_for(self, settlements: list[dict[str, Any]], sites: list[tuple[str, str, bool]], farmland: int,
                  size: int, where: str) -> tuple[list[Hex], dict[str, str]]:
        """Unplaced hexes holding the settlements, the work sites (commodity, source field, on a resource) and
        the Farmland, then plain claimed hexes up to ``size``. Returns the hexes and each settlement's hex."""
        hexes: list[Hex] = []
        homes: dict[str, str] = {}

        def new(**kw: Any) -> Hex:
            h = Hex(id=f"K{len(hexes) + 1}", **kw)
            hexes.append(h)
            return h

        for st in settlements:
            homes[st["id"]] = new(features=("settlement",)).id
        for commodity, _src, on_resource in sites:
            new(work_site=WorkSite(commodity=commodity), resource=commodity if on_resource else "")
        cap = next((st["id"] for st in settlements if st.get("capital")), settlements[0]["id"] if settlements else "")
        for _ in range(farmland):
            new(features=("farmland",), farmland_of=cap)
        if len(hexes) > size:
            self.extra.append(Unmapped(where, size, f"the settlements, work sites and Farmland need {len(hexes)}"
                                                    f" hexes, more than the size; {len(hexes)} hexes were made"))
        while len(hexes) < size:
            new()
        return hexes, homes


def _state(b: Builder) -> KingdomState:
    try:
        return KingdomState.model_validate(b.k)
    except ValueError as exc:  # a value a field of the state refuses (the reader checked the shapes)
        raise InputError(f"the kingdom does not fit kingdomlog's state: {str(exc).splitlines()[0]}") from None


def stored(state: KingdomState) -> dict[str, Any]:
    """The fields an import records: the state's stored fields, without the campaign's own."""
    return state.model_dump(mode="json", exclude_computed_fields=True, exclude=set(E.KINGDOM_NOT_IMPORTED))


def _finish(b: Builder, root: Doc, *, fmt: str, title: str, version: str, stock: str,
            storage: Mapping[str, int] | None = None) -> ForeignKingdom:
    """The kingdom as a ``ForeignKingdom``. ``stock``: where a commodity's amount was (``{c}`` for the
    commodity), to list an amount above what kingdomlog can store; ``storage``: the source's own storage, listed
    where it differs from kingdomlog's (which follows the structures built)."""
    state = _state(b)
    for c in T.COMMODITIES:
        cap = state.storage[c]
        if storage is not None and storage.get(c, cap) != cap:
            b.extra.append(Unmapped(stock.format(c=c).rsplit(".", 1)[0] + ".max", storage[c],
                                    f"kingdomlog's {c} storage is {cap}, from the structures it knows"))
        if state.commodities[c] > cap:
            b.extra.append(Unmapped(stock.format(c=c), state.commodities[c],
                                    f"more than kingdomlog's {c} storage ({cap}, from the structures it knows): the"
                                    " amount is kept and falls to the storage when the kingdom next gains some"))
    unmapped = [*b.extra, *root.leftovers(NOT_HELD)]
    secret = {u.field for u in b.secret}
    unmapped = [u for u in unmapped if u.field not in secret]
    homebrew = {fmt: {k: v for k, v in b.homebrew.items() if v}} if any(b.homebrew.values()) else {}
    event = E.KingdomImported(source=fmt, source_title=title, source_version=version, kingdom=stored(state),
                              unmapped=[UnmappedField(field=u.field[:500], value=u.value, why=u.why[:500])
                                        for u in unmapped])
    return ForeignKingdom(format=fmt, version=version, name=state.name or "Imported kingdom",
                          options=dict(b.options),
                          events=[Draft(event, turn=0), *b.notes, *secret_drafts(b.secret, turn=0)],
                          homebrew=homebrew, unmapped=(*unmapped, *b.secret))


# ---------------------------------------------------------------- pf2e-kingmaker-tools


def read_kmt(doc: Any) -> ForeignKingdom:
    """A pf2e-kingmaker-tools kingdom (see the module's docstring) as a new campaign's first batch."""
    data = kmt_data(doc)
    root = Doc(data, KMT_FLAG)
    ours = _our_flags(doc)
    legacy = isinstance(data.get("charter"), str) or "feats" in data
    b = Builder()
    k = b.k
    k["name"] = root.text("name", "")
    k["level"] = root.integer("level", 1, 20)
    k["max_level"] = k["level"]
    k["xp"] = root.integer("xp", 0, BIG)
    thr = root.integer("xpThreshold", 0, BIG, 1000)
    if thr != 1000:
        root.note("xpThreshold", thr, "kingdomlog levels at the rules' 1000 XP")
    root.skip("size")  # the claimed hexes made below
    k["unrest"] = root.integer("unrest", 0, 1000)
    k["at_war"] = root.flag("atWar", False)
    fame = root.obj("fame")
    k["fame"] = fame.integer("now", 0, 100, 0)
    if fame.integer("max", 0, 100, 3) != 3:  # before migration 13: the maximum on the fame itself
        fame.note("max", fame.data["max"], "kingdomlog's Fame maximum is the rules' 3")
    ftype = fame.text("type", "famous", choices=("famous", "infamous", "fame", "infamy"))
    k["fame_type"] = "infamy" if ftype in ("infamous", "infamy") else "fame"
    pending: dict[str, Any] = {"fame": fame.integer("next", 0, 100, 0)}
    rp = root.obj("resourcePoints")
    k["rp"] = rp.integer("now", 0, BIG, 0)
    pending["rp"] = rp.integer("next", 0, BIG, 0)
    dice = root.obj("resourceDice")
    bonus = dice.integer("now", -100, 100, 0)
    pending["bonus_dice"], pending["penalty_dice"] = max(0, bonus), max(0, -bonus)
    dice.unmapped("next", "kingdomlog holds extra Resource Dice for the next turn only ('now' after the turn ended)")
    cons = root.obj("consumption")
    armies = cons.integer("armies", 0, BIG, 0)
    k["armies"] = {"armies": armies} if armies else {}
    pending["consumption"] = cons.integer("now", -BIG, BIG, 0)
    cons.unmapped("next", "kingdomlog holds extra Consumption for the next turn only ('now' after the turn ended)")
    com = root.obj("commodities")
    now, nxt = com.obj("now"), com.obj("next", {})
    k["commodities"] = {c: now.integer(c, 0, BIG, 0) for c in T.COMMODITIES}
    pending["commodities"] = {c: v for c in T.COMMODITIES if (v := nxt.integer(c, 0, BIG, 0))}
    k["pending"] = Pending(**pending)
    ruin = root.obj("ruin")
    k["ruin"] = {}
    for r in T.RUINS:
        one = ruin.obj(r)
        k["ruin"][r] = Ruin(points=one.integer("value", 0, BIG, 0), threshold=one.integer("threshold", 1, BIG, 10),
                            penalty=one.integer("penalty", 0, 100, 0))
    scores = root.obj("abilityScores")
    k["scores"] = {a: scores.integer(a, 0, 100, 10) for a in T.ABILITIES}
    ranks = root.obj("skillRanks", {})
    k["skills"] = {s: RANKS[rank] for s in T.core().skills if (rank := ranks.integer(s, 0, 4, 0))}
    _kmt_leaders(root, k, legacy, {**companion_names(data), **_our_names(ours)})
    _kmt_build(root, b, legacy)
    _kmt_settings(root, b)
    _kmt_settlements(root, b, ours)
    _kmt_groups(root, k)
    _kmt_milestones(root, k)
    _kmt_events(root, b, ours)
    _kmt_modifiers(root, b, ours)
    notes = root.obj("notes", {})
    for vis in ("public", "gm"):
        title = "Notes from the Foundry kingdom sheet" + (" (GM)" if vis == "gm" else "")
        b.notes += note_drafts(notes.text(vis, "", max_len=10_000_000), title, visibility=vis, turn=0)
    for key in ("activeSettlement", "realmSceneId"):
        root.unmapped(key, SHEET_ONLY)
    for key in ("activityBlacklist", "featBlacklist", "heartlandBlacklist", "charterBlacklist",
                "governmentBlacklist"):
        root.unmapped(key, "kingdomlog offers every activity, feat, charter, heartland and government of its data")
    root.unmapped("kingdomEventBlacklist", "kingdomlog's event table holds every event of its data: the GM names"
                                           " the event instead of rolling one kept off the sheet's table")
    root.unmapped("quests", "kingdomlog has no quests: the GM gives a quest's reward by ruling when it is done")
    root.unmapped("councilCooldowns", "the module's council missions are not rules kingdomlog plays")
    companions = root.items("companions", [])
    if any(isinstance(c, Mapping) and c.get("plotHook") for c in companions):  # the GM's notes on them
        b.secret.append(Unmapped(root.at("companions"), companions, "the module's companion travel roster (with the"
                                 " GM's plot hooks) is not part of kingdomlog's kingdom"))
    else:
        root.unmapped("companions", "the module's companion travel roster is not part of kingdomlog's kingdom (a"
                                    " companion leads as a PC when seated)")
    root.unmapped("supernaturalSolutions", "kingdomlog records a Supernatural Solution as a boon of the turn it is"
                                           " gained in; one kept between turns is not held")
    root.unmapped("creativeSolutions", "kingdomlog records a Creative Solution as a boon of the turn it is gained"
                                       " in; one kept between turns is not held")
    if data is not doc and detect_system(doc):
        other = system_data(doc)
        b.extra.append(Unmapped("system.campaign", {"name": other.get("name"), "level": other.get("level")},
                                "the PF2e system's own kingdom on the same actor is not read: the module's is"))
    version = "before migration 13 (charter, government and feats as names)" if legacy else "migration 13 or later"
    return _finish(b, root, fmt=KMT, title="pf2e-kingmaker-tools kingdom sheet", version=version,
                   stock=f"{KMT_FLAG}.commodities.now.{{c}}")


def _our_names(ours: Doc | None) -> dict[str, str]:
    """The names kingdomlog gave Foundry actors (``flags.kingdomlog.names``, of a kingdomlog export)."""
    if ours is None or not ours.has("names"):
        return {}
    names = ours.obj("names")
    return {key: names.text(key, max_len=NAME_MAX) for key in list(names.data)}


def _our_flags(doc: Any) -> Doc | None:
    """``flags.kingdomlog`` of a document kingdomlog wrote (hexes and settlements the module has no field for)."""
    if isinstance(doc, Mapping) and isinstance(doc.get("flags"), Mapping) and OURS in doc["flags"]:
        return Doc(doc["flags"][OURS], f"flags.{OURS}")
    return None


def is_actor(ident: str) -> bool:
    """A Foundry actor's uuid (``Actor.…``, or a compendium's ``Compendium.….Actor.…``), not a name."""
    return ident.startswith("Actor.") or (ident.startswith("Compendium.") and ".Actor." in ident)


def seat(role: str, who: str | None, names: Mapping[str, str]) -> tuple[str | None, str]:
    """A leader's holder in words and their Foundry actor id: the name the export or the GM gives the actor, or
    a placeholder until the GM names them (never the raw id); a name the sheet held (before migration 13) as
    it is."""
    if who is None:
        return None, ""
    if not is_actor(who):
        return who, ""
    return names.get(who) or placeholder(role.title()), who


def companion_names(data: Mapping[str, Any]) -> dict[str, str]:
    """The names the export itself holds for Foundry actors: the module's companions (``actorUuid`` with
    ``name``)."""
    out: dict[str, str] = {}
    for c in data.get("companions") or []:
        if (isinstance(c, Mapping) and isinstance(c.get("actorUuid"), str) and isinstance(c.get("name"), str)
                and c["name"].strip()):
            out[c["actorUuid"]] = c["name"].strip()[:NAME_MAX]
    return out


def _kmt_leaders(root: Doc, k: dict[str, Any], legacy: bool, known: Mapping[str, str]) -> None:
    leaders = root.obj("leaders")
    k["leaders"] = {}
    for role in T.ROLES:
        ld = leaders.obj(role)
        vacant = ld.flag("vacant", False)
        who = ld.opt_str("uuid") or (ld.opt_str("name") if legacy or ld.has("name") else None)
        kind = ld.text("type", "pc", choices=("pc", "npc", "companion"))
        invested = ld.flag("invested", False)
        holder, actor = seat(role, None if vacant else who, known)
        if kind == "companion":
            ld.note("type", kind, "a companion leads as a PC in kingdomlog")
        k["leaders"][role] = Leader(holder=holder, kind="npc" if kind == "npc" else "pc",
                                    invested=invested and holder is not None, foundry_id=actor)


def _kmt_build(root: Doc, b: Builder, legacy: bool) -> None:
    """Charter, heartland, government, feats (the module's features and bonus feats) and homebrew."""
    k = b.k
    picked: dict[str, str] = {}
    known: dict[str, Mapping[str, Any]] = {"charter": T.charters(), "heartland": T.heartlands(),
                                           "government": T.governments()}
    for part in ("charter", "heartland", "government"):
        if not isinstance(root.data.get(part), Mapping):  # a name (before migration 13), or none
            name = root.opt_str(part) or ""
        else:
            choice = root.obj(part)
            name = choice.opt_str("type") or ""
            boosts = choice.obj("abilityBoosts", {}) if choice.has("abilityBoosts") else None
            if boosts is not None:
                chosen = [a for a in T.ABILITIES if boosts.flag(a, False)]
                choice.note("abilityBoosts", chosen, "the ability scores are imported as they stand; the boosts"
                                                     " that made them are not kept")
        ident = slug(name) if name else ""
        if ident and ident not in known[part]:
            root.note(part, name, f"not a {part} of kingdomlog's data (kept by name)")
        picked[part] = ident
        k[part] = ident
    if root.has("abilityBoosts"):
        top = root.obj("abilityBoosts")
        chosen = [a for a in T.ABILITIES if top.flag(a, False)]
        top.note("", chosen, "the ability scores are imported as they stand; the boosts that made them are not kept")
    feats: list[str] = []
    hb_feats = {f["id"]: f for f in root.data.get("homebrewFeats") or []  # a bad id is refused below, by name
                if isinstance(f, Mapping) and isinstance(f.get("id"), str)}
    cat = T.catalog_feats()

    def take(fid: str, where: Doc, key: str) -> None:
        if fid in cat or fid in hb_feats:
            feats.append(fid)
        else:
            where.note(key, fid, "not a feat of kingdomlog's data nor of the sheet's homebrew feats")

    if legacy and root.has("feats"):
        for f in root.objs("feats"):
            take(slug(f.text("id")), f, "id")
            f.skip("level")
    for f in root.objs("features", []):
        f.skip("id")
        fid = f.opt_str("featId")
        if fid:
            take(fid, f, "featId")
        f.unmapped("skillIncrease", "the skill ranks are imported as they stand")
        if f.has("abilityBoosts") and f.data["abilityBoosts"] is not None:
            ab = f.obj("abilityBoosts")
            ab.note("", [a for a in T.ABILITIES if ab.flag(a, False)], "the ability scores are imported as they"
                                                                         " stand")
        f.unmapped("ruinThresholdIncreases", "the Ruin thresholds are imported as they stand")
        f.unmapped("featRuinThresholdIncreases", "the Ruin thresholds are imported as they stand")
    for f in root.objs("bonusFeats", []):
        take(slug(f.text("id")) if legacy else f.text("id"), f, "id")
        f.unmapped("ruinThresholdIncreases", "the Ruin thresholds are imported as they stand")
    choices = [f for key in ("features", "bonusFeats") for f in root.data.get(key) or [] if isinstance(f, Mapping)
               and not holds_nothing({k: v for k, v in f.items() if k not in ("id", "featId")})]
    if choices and not legacy:  # the level choices behind the scores, ranks and thresholds: the sheet's to keep
        for key in ("features", "bonusFeats"):
            root.note(key, root.data.get(key) or [], "the level choices as the sheet keeps them (the feats among"
                                                     " them are read): given back by export-kingdom")
    gov = known["government"].get(picked["government"])
    if gov is not None and gov.feat and gov.feat not in feats:
        feats.insert(0, gov.feat)
    k["feats"] = tuple(dict.fromkeys(feats))
    _kmt_homebrew(root, b)


def _kmt_homebrew(root: Doc, b: Builder) -> None:
    """Homebrew activities and feats as a campaign data file (every one, taken or not); what that file cannot
    hold is listed."""
    b.homebrew = {"activity": [], "feat": []}
    bundled_acts, bundled_feats = T.base_activities(), T.base_feats()
    skills = set(T.core().skills)
    cats = ("upkeep", "commerce", "leadership", "region", "civic", "army")
    for a in root.objs("homebrewActivities", []):
        ident = slug(a.text("id"))
        title = a.text("title", ident)
        phase = a.text("phase", "")
        ranks = a.obj("skills", {})
        wanted = {s: ranks.integer(s, 0, 4) for s in list(ranks.data)}
        if phase not in cats or not wanted or set(wanted) - skills:
            a.note("", a.data, f"activity {title!r}: its phase {phase!r} or skills {sorted(wanted)} are not"
                               " kingdomlog's (phases: " + ", ".join(cats) + ")")
            a.skip(*a.data)
            continue
        low = min(wanted.values())
        dc_raw = a.raw("dc", "control")
        adjust = a.integer("dcAdjustment", -50, 50, 0)
        dc = (str(int(dc_raw) + adjust) if isinstance(dc_raw, int | float) and not isinstance(dc_raw, bool)
              else {"control": f"control+{adjust}" if adjust > 0 else "control", "custom": "gm", "none": "none",
                    "scouting": "enemy_scouting"}.get(str(dc_raw), "gm"))
        if str(dc_raw) == "control" and adjust < 0:
            a.note("dcAdjustment", adjust, "kingdomlog's control DC rules add, never subtract")
        texts = [f"{deg}: {a.obj(key).text('msg', '')}" for key, deg in
                 (("criticalSuccess", "critical success"), ("success", "success"), ("failure", "failure"),
                  ("criticalFailure", "critical failure")) if a.has(key) and a.data[key]]
        entry: dict[str, Any] = {
            "name": ident, "title": title, "category": phase, "skills": sorted(wanted), "proficiency": RANKS[low],
            "dc": dc, "once_per_turn": a.flag("oncePerRound", False), "fortune": a.flag("fortune", False),
            "rules_in_spec": False, "source": "pf2e-kingmaker-tools homebrew",
            "gm_note": " ".join([a.text("description", "")[:2000], *texts])[:4000] or "outcomes by the GM",
        }
        if any(r > low for r in wanted.values()):
            entry["skill_proficiency"] = {s: RANKS[r] for s, r in wanted.items() if r > low}
        if ident in bundled_acts:
            entry["replace"] = True
        for key in ("requirement", "special", "automationNotes", "hint"):
            a.unmapped(key, "kept in the sheet's words only (the activity's gm_note holds its description and"
                            " outcomes)")
        a.unmapped("modifiers", "the activity's own modifiers are not applied automatically")
        a.skip("enabled", "actions", "order", "criticalSuccess", "success", "failure", "criticalFailure")
        b.homebrew["activity"].append(entry)
    for f in root.objs("homebrewFeats", []):
        ident = f.text("id")
        entry = {"name": ident, "title": f.text("name", ident), "level": f.integer("level", 1, 20, 1),
                 "source": "pf2e-kingmaker-tools homebrew", "gm_ruling": True,
                 "gm_note": " ".join(x for x in (f.text("text", "")[:3000], f.text("automationNotes", "")[:1000],
                                                 f.text("prerequisites", "")[:500]) if x) or "applied by the GM"}
        if ident in bundled_feats:
            entry["replace"] = True
        for key in ("modifiers", "resourceDice", "settlementItemLevelIncrease", "trainSkill", "assuranceForSkill",
                    "increaseUsableSkills", "flags", "rollOptions", "increaseAnarchyLimit",
                    "ruinThresholdIncreases"):
            f.unmapped(key, "not applied automatically: the feat is kept for the GM to apply (gm_ruling)")
        b.homebrew["feat"].append(entry)
    b.homebrew["event"] = _kmt_homebrew_events(root)
    for key, what in (("homebrewActivities", "activities"), ("homebrewFeats", "feats")):
        if root.data.get(key):
            root.note(key, root.data[key], f"made into {what} of data/pf2e-kingmaker-tools.toml (in kingdomlog's"
                                           " words, see below): the module's own definitions, with their"
                                           " outcomes, modifiers and automation, are given back by export-kingdom")
    try:
        T.validate_homebrew({KMT: b.homebrew})
    except InputError as exc:
        b.extra.append(Unmapped(f"{KMT_FLAG}.homebrewActivities/homebrewFeats/homebrewKingdomEvents", str(exc),
                                "the homebrew does not fit kingdomlog's data format; no data file was written"))
        b.homebrew = {}
        b.k["feats"] = tuple(f for f in b.k["feats"] if f in T.catalog_feats())
    for key in ("homebrewMilestones", "homebrewCharters", "homebrewGovernments", "homebrewHeartlands"):
        root.unmapped(key, "kingdomlog's data holds homebrew activities, structures, feats and events only")


DEGREES = {"criticalSuccess": "critical_success", "success": "success", "failure": "failure",
           "criticalFailure": "critical_failure"}
"""The module's degrees of success -> ours."""


def _kmt_homebrew_events(root: Doc) -> list[dict[str, Any]]:
    """The sheet's homebrew kingdom events (since the module's migration 14) as events of the campaign's data: the
    GM names one (it is on no random table), its checks use its stages' skills, and its outcomes, in the sheet's
    words, are the GM's to apply (``gm_ruling``). The whole list is also listed, as the module keeps it, for
    ``export-kingdom`` to give back (its outcomes' modifiers are the module's)."""
    if not root.has("homebrewKingdomEvents"):
        return []
    raw = root.items("homebrewKingdomEvents")
    out = []
    skills = set(T.core().skills)
    bundled = T.base_events()
    for ev in root.objs("homebrewKingdomEvents"):
        ident = slug(ev.text("id", max_len=200))
        title = ev.text("name", ident, max_len=500)
        modifier = ev.integer("modifier", -100, 100, 0)
        traits = ev.strs("traits", [])
        stage_skills: list[list[str]] = []
        words = [ev.text("description", "")[:2000]]
        leader = ""
        for i, st in enumerate(ev.objs("stages", [])):
            stage_skills.append([x for x in st.strs("skills", []) if x in skills])
            role = st.text("leader", "", max_len=50)
            leader = leader or (role if role in T.ROLES else "")
            for key, deg in DEGREES.items():
                if st.data.get(key):
                    words.append(f"stage {i + 1}, {deg.replace('_', ' ')}: {st.obj(key).text('msg', '')[:500]}")
        words += [ev.text(key, "")[:500] if ev.data.get(key) else "" for key in ("special", "resolution", "location",
                                                                                  "automationNotes")]
        ev.skip(*ev.data)
        entry: dict[str, Any] = {
            "name": ident, "title": title, "modifier": max(-4, min(4, modifier)),
            "skills": sorted({x for st in stage_skills for x in st}),
            "traits": [t for t in traits if t in T.EVENT_TRAITS], "continuous": "continuous" in traits,
            "leader": leader, "resolved_on": [DEGREES[d] for d in ev.strs("resolvedOn", []) if d in DEGREES],
            "gm_ruling": True, "gm_note": " ".join(w for w in words if w)[:4000] or "outcomes by the GM",
            "rules_in_spec": False, "source": "pf2e-kingmaker-tools homebrew",
        }
        if len(stage_skills) > 1:
            entry["stage_skills"] = stage_skills
        if ident in bundled:
            entry["replace"] = True
        out.append(entry)
    root.note("homebrewKingdomEvents", raw, "made into events of data/pf2e-kingmaker-tools.toml (the GM names one;"
                                          " its outcomes, in the sheet's words, are the GM's to apply): the"
                                          " module's own definitions, with their modifiers, are given back by"
                                          " export-kingdom")
    return out


SETTINGS_TO_OPTIONS: dict[str, tuple[str, int, int]] = {
    "rpToXpConversionLimit": ("rp_to_xp_limit", 0, BIG),
    "xpPerClaimedHex": ("xp_per_hex", 0, BIG),
    "resourceDicePerVillage": ("resource_dice_per_village", 0, 100),
    "resourceDicePerTown": ("resource_dice_per_town", 0, 100),
    "resourceDicePerCity": ("resource_dice_per_city", 0, 100),
    "resourceDicePerMetropolis": ("resource_dice_per_metropolis", 0, 100),
    "cultOfTheBloomEvents": ("cult_events", 0, 0),
    "cultEventDc": ("cult_event_dc_start", 1, 20),
    "cultEventDcStep": ("cult_event_dc_step", 0, 100),
    "eventDcStep": ("event_dc_step", 1, 100),
    "includeCapitalItemModifier": ("capital_structures_everywhere", 0, 0),
}
"""The module's settings that are campaign options here, one for one: (option, lowest, highest); a highest of
0 is a true/false setting. The bounds are the options' (``ruleset.OPTIONS``, checked by a test)."""
PROFICIENCY_MODES = {"none": "none", "half": "half_level", "full": "level"}


def _kmt_settings(root: Doc, b: Builder) -> None:
    st = root.obj("settings", {})
    for key, (opt, lo, hi) in SETTINGS_TO_OPTIONS.items():
        if st.has(key):
            b.options[opt] = st.flag(key) if hi == 0 else st.integer(key, lo, hi)
    if st.has("vanceAndKerensharaXP"):
        vk = st.flag("vanceAndKerensharaXP")
        b.options["xp_per_hex_mode"] = b.options["rp_to_xp_mode"] = "vk" if vk else "published"
    if st.has("proficiencyMode"):
        b.options["untrained_proficiency"] = PROFICIENCY_MODES[st.text("proficiencyMode",
                                                                       choices=tuple(PROFICIENCY_MODES))]
    rate = st.integer("rpToXpConversionRate", 0, BIG, 1)
    if rate != 1 and b.options.get("rp_to_xp_mode") != "vk":
        st.note("rpToXpConversionRate", rate, "kingdomlog converts RP to XP 1 for 1 (published) or by the"
                                              " Vance & Kerenshara table")
    step = int(b.options.get("event_dc_step", 5))
    base = st.integer("eventDc", 1, 100, 16)
    if base != 16:
        st.note("eventDc", base, "kingdomlog's event DC starts at the rules' 16")
    without = root.integer("turnsWithoutEvent", 0, 1000, 0)
    b.k["event_dc"] = max(0, base - step * without)
    cult_without = root.integer("turnsWithoutCultEvent", 0, 1000, 0)
    if b.options.get("cult_events"):
        start = int(b.options.get("cult_event_dc_start", 20))
        b.k["cult_event_dc"] = max(0, start - int(b.options.get("cult_event_dc_step", 2)) * cult_without)
    elif cult_without:
        root.note("turnsWithoutCultEvent", cult_without, "Cult of the Bloom events are off")
    for key in ("ruinThreshold", "increaseScorePicksBy", "maximumFamePoints", "kingdomSkillIncreaseEveryLevel",
                "kingdomAllStructureItemBonusesStack", "kingdomIgnoreSkillRequirements", "capitalInvestmentInCapital",
                "reduceDCToBuildLumberStructures", "enableLeadershipModifiers", "expandMagicUse",
                "autoCalculateArmyConsumption", "settlementsGenerateRd", "partialStructureConstruction",
                "capitalCanGrowOneSizeLarger", "enableCouncilMissions"):
        st.unmapped(key, "a house rule of the module kingdomlog has no option for")
    for key in ("realmSceneId", "autoCalculateSettlementLevel", "kingdomEventRollMode", "automateResources",
                "kingdomEventsTable", "kingdomCultTable", "leaderKingdomSkills", "leaderSkills", "automateStats",
                "recruitableArmiesFolderId"):
        st.unmapped(key, SHEET_ONLY)


def _kmt_settlements(root: Doc, b: Builder, ours: Doc | None) -> None:
    """Settlements (the module keeps each as a scene: its structures stand there, not in the kingdom data),
    claimed hexes and work sites; ``flags.kingdomlog`` (a kingdomlog export) gives back what the module has
    no field for."""
    k = b.k
    mine_hexes: list[Hex] | None = None
    mine_settlements: dict[str, Settlement] = {}
    if ours is not None:
        ours.integer("version", 1, 1)
        try:
            mine_hexes = [Hex.model_validate(h) for h in ours.items("hexes", [], max_len=50_000)]
            mine_settlements = {s.id: s for s in (Settlement.model_validate(x) for x in ours.items("settlements", []))}
        except ValueError as exc:
            raise InputError(f"field flags.{OURS}: {str(exc).splitlines()[0]}") from None
    found: list[dict[str, Any]] = []
    for s in root.objs("settlements", []):
        sid = s.text("sceneId", max_len=200)
        if not sid or any(f["id"] == sid for f in found):
            raise InputError(f"field {s.at('sceneId')} must name a scene no other settlement names, got {sid!r}")
        kind = s.text("type", "settlement", choices=("capital", "settlement"))
        lots = s.integer("lots", 0, 4000, 0)
        level = s.integer("level", 0, 100, 1)
        mine = mine_settlements.get(sid)
        if mine is None:
            s.note("lots", lots, "the settlement's structures stand on its scene in Foundry, not in the kingdom"
                                 " data: kingdomlog's settlement starts with empty lots")
            if level > 1:
                s.note("level", level, "derived in kingdomlog from the structures built")
        s.unmapped("secondaryTerritory", NOT_HELD)
        s.unmapped("manualSettlementLevel", SHEET_ONLY)
        s.unmapped("waterBorders", "kingdomlog reads water from the settlement hex's river or lake")
        name = s.text("name", "", max_len=NAME_MAX).strip() if s.has("name") else ""
        found.append({"id": sid, "capital": kind == "capital", "mine": mine,
                      "name": name or placeholder(f"Settlement {len(found) + 1}")})
    if found and not any(f["capital"] for f in found):
        found[0]["capital"] = True
        b.extra.append(Unmapped(f"{KMT_FLAG}.settlements", [f["id"] for f in found],
                                "no settlement is the capital; the first one was made the capital"))
    ws = root.obj("workSites")
    sites: list[tuple[str, str, bool]] = []
    counts: dict[str, int] = {}
    for key, commodity in KMT_WORK_SITES.items():
        w = ws.obj(key, {})
        n, res = w.integer("quantity", 0, 10_000, 0), w.integer("resources", 0, 10_000, 0)
        if res > n:
            raise InputError(f"field {KMT_FLAG}.workSites.{key}.resources ({res}) is more than its quantity ({n})")
        counts[commodity] = n
        sites += [(commodity, key, i < res) for i in range(n)]
    farms = ws.obj("farmlands", {})
    farmland = farms.integer("quantity", 0, 10_000, 0)
    farms.unmapped("resources", "kingdomlog's hexes hold lumber, ore and stone resources only")
    lux = ws.obj("luxurySources", {})
    for key in ("quantity", "resources"):
        lux.unmapped(key, "kingdomlog's work sites are lumber camps, mines and quarries")
    size = root.integer("size", 0, 10_000, 1)
    if mine_hexes is not None:
        hexes = mine_hexes
        have = {c: sum(1 for h in hexes if h.claimed and h.work_site and h.work_site.commodity == c)
                for c in counts}
        claimed = sum(1 for h in hexes if h.claimed)
        if claimed != size:
            b.extra.append(Unmapped(f"{KMT_FLAG}.size", size, f"differs from the hexes kingdomlog exported ({claimed}"
                                                              " claimed); the hexes are kept"))
        for c, n in counts.items():
            if have[c] != n:
                b.extra.append(Unmapped(f"{KMT_FLAG}.workSites", n, f"{c} work sites differ from the hexes"
                                                                   f" kingdomlog exported ({have[c]}); the hexes"
                                                                   " are kept"))
        homes: dict[str, str] = {}
    else:
        hexes, homes = b.hexes_for([{"id": f["id"], "capital": f["capital"]} for f in found], sites, farmland,
                                   size, f"{KMT_FLAG}.size")
    settlements = []
    for f in found:
        mine = f["mine"]
        if mine is not None:
            if mine.hex not in {h.id for h in hexes}:
                raise InputError(f"field flags.{OURS}.settlements: {mine.id} stands on hex {mine.hex!r}, which"
                                 f" flags.{OURS}.hexes does not hold")
            settlements.append(mine.model_copy(update={"capital": f["capital"]}))
            continue
        if f["id"] not in homes:  # a settlement added in Foundry after kingdomlog wrote the hexes
            taken = {h.id for h in hexes}
            home = Hex(id=next(f"K{i}" for i in range(1, len(taken) + 2) if f"K{i}" not in taken),
                       features=("settlement",))
            hexes = [*hexes, home]
            homes[f["id"]] = home.id
        settlements.append(Settlement(id=f["id"], name=f["name"], hex=homes[f["id"]], capital=f["capital"]))
    k["hexes"] = tuple(hexes)
    k["settlements"] = tuple(settlements)


def _kmt_groups(root: Doc, k: dict[str, Any]) -> None:
    rel: list[str] = []
    trade: list[str] = []
    war: list[str] = []
    for g in root.objs("groups", []):
        name = g.text("name", max_len=200)
        kind = g.text("relations", "none", choices=RELATIONS)
        if kind in ("diplomatic-relations", "trade-agreement"):
            rel.append(name)
        if kind == "trade-agreement":
            trade.append(name)
        if g.flag("atWar", False):
            war.append(name)
        g.unmapped("negotiationDC", "kingdomlog computes a group's negotiation DC when an activity names it")
        g.unmapped("preventPledgeOfFealty", NOT_HELD)
        if kind == "none" and not g.data.get("atWar"):
            g.note("", dict(g.data), f"kingdomlog keeps a group it has relations or war with; {name!r} has neither")
    raw = [g for g in root.data.get("groups") or [] if isinstance(g, Mapping)]
    if any(not holds_nothing({k: v for k, v in g.items() if k in ("negotiationDC", "preventPledgeOfFealty")}) or
           (g.get("relations", "none") == "none" and not g.get("atWar")) for g in raw):
        root.note("groups", raw, "the groups as the sheet keeps them (their negotiation DCs, pledges of fealty, and"
                                 " those without relations or war): given back by export-kingdom")
    k["diplomatic_relations"], k["trade_agreements"], k["enemies"] = tuple(rel), tuple(trade), tuple(war)


def _kmt_milestones(root: Doc, k: dict[str, Any]) -> None:
    done: list[str] = []
    for m in root.objs("milestones", []):
        ident = slug(m.text("name")) if m.has("name") else m.text("id")
        m.skip("id", "name", "xp", "enabled", "homebrew")
        ours = KMT_MILESTONES.get(ident)
        completed = m.flag("completed", False)
        if ours is not None:
            if completed:
                done.append(ours)
        elif completed or m.data.get("enabled") or m.data.get("homebrew"):
            m.note("", dict(m.data), "a milestone of the sheet's homebrew (kingdomlog's milestones are the"
                                     " published ones)")
    k["milestones"] = tuple(x for x in T.milestones() if x in done)


def _kmt_events(root: Doc, b: Builder, ours: Doc | None) -> None:
    """Ongoing events by name; ``flags.kingdomlog`` gives back their stage, failures and place."""
    events = T.catalog_events({KMT: b.homebrew} if b.homebrew else None)
    mine: dict[str, OngoingEvent] = {}
    if ours is not None:
        try:
            mine = {e.name: e for e in (OngoingEvent.model_validate(x) for x in ours.items("ongoing_events", []))}
        except ValueError as exc:
            raise InputError(f"field flags.{OURS}.ongoing_events: {str(exc).splitlines()[0]}") from None
    out = []
    towns = {st.id for st in b.k.get("settlements", ())}
    for e in root.objs("ongoingEvents", []):
        if not e.has("name"):  # since the module's migration 14: {id, stage, settlementSceneId, secretLocation}
            ident = e.text("id", max_len=200)
            if ident not in events:
                e.note("", dict(e.data), f"{ident!r} is not a kingdom event of kingdomlog's data")
                e.skip(*e.data)
                continue
            stage = e.integer("stage", 0, 100, 0)
            stages = len(events[ident].stage_skills)
            if stage and stage >= stages:
                e.note("stage", stage, f"{ident} has {stages or 'no'} stages in kingdomlog's data; it starts at the"
                                       " first")
                stage = 0
            where = e.opt_str("settlementSceneId") or ""
            if where and where not in towns:
                e.note("settlementSceneId", where, "not a settlement of the kingdom")
                where = ""
            if e.flag("secretLocation", False) and where:
                # kingdomlog shows where an event strikes to whoever sees the event: a place the sheet keeps
                # secret stays the GM's (named again when the event is resolved)
                b.secret.append(Unmapped(e.path, {"id": ident, "settlementSceneId": where, "secretLocation": True},
                                         "the sheet keeps this event's place secret (secretLocation): not imported,"
                                         " so the players' pages cannot show it (export-kingdom gives it back)"))
                where = ""
            out.append(mine.get(ident, OngoingEvent(name=ident, stage=stage, settlement=where)))
            continue
        name = e.text("name")  # before the module's migration 14: the event's journal link or its name
        e.skip("id")
        link = JOURNAL_LINK.fullmatch(name.strip())
        if link is not None and not link.group(1):
            e.note("name", name, "a link to the Kingmaker journal's page (the module's migration 14 turns it into"
                                 " the event's id); kingdomlog cannot tell which event it is: add it in the first"
                                 " turn")
            continue
        ident = slug(link.group(1) if link is not None else name)
        if ident in events:
            out.append(mine.get(ident, OngoingEvent(name=ident)))
        else:
            e.note("name", name, "not a kingdom event of kingdomlog's data")
    b.k["ongoing_events"] = tuple(out)


JOURNAL_LINK = re.compile(r"@UUID\[[^\]]*\](?:\{([^}]*)\})?")
"""A Foundry journal link (``@UUID[JournalEntry.….JournalEntryPage.…]``, optionally ``{its label}``), as the
module kept an ongoing event before its migration 14."""


_KEYS = {"@skill": "skill", "@activity": "activity", "@ability": "ability"}
SIMPLE_SELECTOR = re.compile(r"all|(skill|activity|ability):[a-z][a-z-]*(\+(skill|activity|ability):[a-z][a-z-]*)*")
"""A selector the module's ``applyIf`` can say (each term one skill, activity or ability); a modifier with any
other selector is written under ``flags.kingdomlog`` instead."""


def _selector(conds: list[Any]) -> str | None:
    """The module's ``applyIf`` (all of them must hold) as our selector, when each names one skill, activity or
    ability; None when it says more than that.

    >>> _selector([]), _selector([{"eq": ["@skill", "trade"]}]), _selector([{"in": ["@activity", ["a"]]}])
    ('all', 'skill:trade', 'activity:a')
    >>> _selector([{"gte": ["@unrest", 5]}]) is None, _selector([{"eq": [{"a": 1}, "x"]}]) is None
    (True, True)
    """
    parts = []
    for c in conds:
        if not isinstance(c, Mapping) or len(c) != 1:
            return None
        (op, args), = c.items()
        if op not in ("eq", "in") or not isinstance(args, list) or len(args) != 2 or not isinstance(args[0], str) \
                or args[0] not in _KEYS:
            return None
        value = args[1]
        if op == "in":
            if not isinstance(value, list) or len(value) != 1:
                return None
            value = value[0]
        if not isinstance(value, str) or not re.fullmatch(r"[a-z][a-z-]*", value):
            return None
        parts.append(f"{_KEYS[args[0]]}:{value}")
    return "+".join(parts) if parts else "all"


def _kmt_modifiers(root: Doc, b: Builder, ours: Doc | None) -> None:
    """The module's modifiers, then those ``flags.kingdomlog`` kept because the module cannot say their
    selector."""
    out: list[KingdomModifier] = []
    for i, m in enumerate(root.objs("modifiers", [])):
        name = m.text("name", "modifier", max_len=500)
        kind = m.text("type", "untyped", max_len=50)
        value = m.integer("value", -100, 100, 0)
        enabled = m.flag("enabled", True)
        turns = m.raw("turns", None)
        once = m.flag("isConsumedAfterRoll", False)
        conds = list(m.items("applyIf", []))
        for key, field in (("skills", "@skill"), ("activities", "@activity"), ("abilities", "@ability"),
                           ("phases", "@phase")):  # before the module's migration 13: restrictions as lists
            if m.has(key) and m.data[key] is not None:
                conds.append({"in": [field, m.strs(key)]})
        if m.has("consumeId"):  # before migration 13: an empty consumeId was a modifier used up by one roll
            once = once or m.opt_str("consumeId") == ""
        mid = m.opt_str("id") or f"imported-{i + 1}"
        selector = _selector(conds)
        expires = ("once" if once else "permanent" if turns is None else
                   {1: "end_of_this_turn", 2: "end_of_next_turn"}.get(turns) if isinstance(turns, int) else None)
        why = ("it is disabled" if not enabled else f"its type {kind!r} is not one kingdomlog stacks" if kind not in
               MOD_TYPES else "its conditions (applyIf) say more than one skill, activity or ability" if selector
               is None else f"it lasts {turns!r} turns; kingdomlog's modifiers last this turn, the next, once or for"
               " good" if expires is None else "")
        m.skip("buttonLabel", "valueExpression", "rollOptions", "fortune", "rollTwiceKeepLowest",
               "rollTwiceKeepHighest", "upgradeResults", "downgradeResults", "notes")
        if why:
            m.note("", dict(m.data), f"modifier {name!r}: {why}")
            continue
        for key in ("valueExpression", "rollOptions", "fortune", "rollTwiceKeepLowest", "rollTwiceKeepHighest",
                    "upgradeResults", "downgradeResults", "notes", "buttonLabel"):
            if not holds_nothing(m.data.get(key)):
                m.note(key, m.data[key], f"modifier {name!r}: only its value is kept")
        assert selector is not None and expires is not None
        out.append(KingdomModifier(id=mid, source=name, type=kind, value=value, selector=selector,
                                   expires=expires))
    if ours is not None:
        try:
            kept = [KingdomModifier.model_validate(x) for x in ours.items("modifiers", [])]
        except ValueError as exc:
            raise InputError(f"field flags.{OURS}.modifiers: {str(exc).splitlines()[0]}") from None
        have = {m.id for m in out}
        out += [m for m in kept if m.id not in have]
    b.k["modifiers"] = tuple(out)


# ---------------------------------------------------------------- writing pf2e-kingmaker-tools


def write_kmt(state: KingdomState, carried: Carried | None = None) -> dict[str, Any]:
    """The state as a Foundry actor export holding the module's kingdom data (``flags.pf2e-kingmaker-tools``)
    and, under ``flags.kingdomlog``, the hexes and settlements the module has no field for. What the campaign's
    import of a pf2e-kingmaker-tools kingdom listed and the state does not hold is ``carried`` back as the sheet
    had it (``_carry_back``): going back to Foundry loses none of it."""
    s = state
    if not s.founded:
        raise InputError("the kingdom is not founded yet: play turn 0 (the founding) before exporting it")
    sites = {c: [h for h in s.hexes if h.claimed and h.work_site and h.work_site.commodity == c]
             for c in KMT_WORK_SITES.values()}
    farms = [h for h in s.hexes if h.claimed and "farmland" in h.features]
    gov = T.governments().get(s.government)
    own = [f for f in s.feats if not (gov is not None and f == gov.feat)]
    levels = list(range(2, max(2, s.level) + 1, 2))
    feature_feats, bonus = own[:len(levels)], own[len(levels):]
    opt = s.options
    step = int(opt.get("event_dc_step", 5))
    cult_step = int(opt.get("cult_event_dc_step", 2))
    settings: dict[str, Any] = {key: opt[o] for key, (o, _, _) in SETTINGS_TO_OPTIONS.items() if o in opt}
    settings.update({
        "vanceAndKerensharaXP": opt.get("xp_per_hex_mode") == "vk",
        "proficiencyMode": {v: k for k, v in PROFICIENCY_MODES.items()}[str(opt.get("untrained_proficiency", "none"))],
        "rpToXpConversionRate": 1, "eventDc": 16,
    })
    cap = capital(s)
    data: dict[str, Any] = {
        "name": s.name, "atWar": s.at_war, "level": s.level, "xp": s.xp, "xpThreshold": 1000,
        "size": sum(1 for h in s.hexes if h.claimed), "unrest": s.unrest,
        "fame": {"now": s.fame, "next": s.pending.fame, "type": "infamous" if s.fame_type == "infamy" else "famous"},
        "resourcePoints": {"now": s.rp, "next": s.pending.rp},
        "resourceDice": {"now": s.pending.bonus_dice - s.pending.penalty_dice, "next": 0},
        "consumption": {"armies": sum(s.armies.values()), "now": s.pending.consumption, "next": 0},
        "workSites": {
            "farmlands": {"quantity": len(farms), "resources": 0},
            **{key: {"quantity": len(sites[c]), "resources": sum(1 for h in sites[c] if h.resource == c)}
               for key, c in KMT_WORK_SITES.items()},
            "luxurySources": {"quantity": 0, "resources": 0},
        },
        "commodities": {"now": {c: s.commodities.get(c, 0) for c in T.COMMODITIES},
                        "next": {c: s.pending.commodities.get(c, 0) for c in T.COMMODITIES}},
        "ruin": {r: {"value": s.ruin[r].points, "penalty": s.ruin[r].penalty, "threshold": s.ruin[r].threshold}
                 for r in T.RUINS},
        "abilityScores": {a: s.scores[a] for a in T.ABILITIES},
        "skillRanks": {sk: RANKS.index(s.skills.get(sk, "untrained")) for sk in T.core().skills},
        "leaders": {r: {"uuid": (ld.foundry_id or ld.holder) if ld.holder is not None else None,
                        "invested": ld.invested, "type": ld.kind, "vacant": ld.holder is None}
                    for r, ld in s.leaders.items()},
        "charter": {"type": s.charter or None, "abilityBoosts": dict.fromkeys(T.ABILITIES, False)},
        "heartland": {"type": s.heartland or None},
        "government": {"type": s.government or None, "abilityBoosts": dict.fromkeys(T.ABILITIES, False)},
        "abilityBoosts": dict.fromkeys(T.ABILITIES, False),
        "features": [{"id": f"kingdom-feat-level-{lv}", "featId": f, "featRuinThresholdIncreases": []}
                     for lv, f in zip(levels, feature_feats, strict=False)],
        "bonusFeats": [{"id": f, "ruinThresholdIncreases": []} for f in bonus],
        "groups": [{"name": g, "negotiationDC": 0, "atWar": g in s.enemies, "preventPledgeOfFealty": False,
                    "relations": "trade-agreement" if g in s.trade_agreements else "diplomatic-relations"
                    if g in s.diplomatic_relations else "none"}
                   for g in dict.fromkeys([*s.diplomatic_relations, *s.trade_agreements, *s.enemies])],
        "milestones": [{"id": kid, "completed": ours in s.milestones, "enabled": True}
                       for kid, ours in KMT_MILESTONES.items()],
        "ongoingEvents": [{"id": e.name, "stage": e.stage, "settlementSceneId": e.settlement or None,
                           "secretLocation": False} for e in s.ongoing_events],
        "modifiers": [_kmt_modifier(m) for m in s.modifiers if SIMPLE_SELECTOR.fullmatch(m.selector)],
        "settlements": [{"sceneId": st.id, "lots": sum(len(b.lots) for b in st.structures), "level": st.level,
                         "type": "capital" if st is cap else "settlement", "secondaryTerritory": False,
                         "manualSettlementLevel": False, "waterBorders": 0} for st in s.settlements],
        "turnsWithoutEvent": 0,
        "turnsWithoutCultEvent": (max(0, math.ceil((int(opt.get("cult_event_dc_start", 20)) - s.cult_event_dc)
                                                   / cult_step)) if cult_step and s.cult_event_dc else 0),
        "settings": settings,
        "notes": {"public": "", "gm": ""},
        "supernaturalSolutions": 0, "creativeSolutions": 0, "activeSettlement": None,
        "homebrewMilestones": [], "homebrewActivities": _kmt_activities(s), "homebrewCharters": [],
        "homebrewGovernments": [], "homebrewHeartlands": [], "homebrewFeats": _kmt_feats(s),
        "activityBlacklist": [], "featBlacklist": [],
        "heartlandBlacklist": [], "charterBlacklist": [], "governmentBlacklist": [],
    }
    _carry_back(data, s, carried or Carried())
    base = data["settings"].get("eventDc", 16)
    base = base if isinstance(base, int) and not isinstance(base, bool) else 16
    data["turnsWithoutEvent"] = max(0, math.ceil((base - s.event_dc) / step)) if step else 0
    extras = {"version": 1, "hexes": [h.model_dump(mode="json") for h in s.hexes],
              "ongoing_events": [e.model_dump(mode="json") for e in s.ongoing_events],
              "modifiers": [m.model_dump(mode="json") for m in s.modifiers
                            if not SIMPLE_SELECTOR.fullmatch(m.selector)],
              "settlements": [st.model_dump(mode="json", exclude_computed_fields=True) for st in s.settlements]}
    named = {ld.foundry_id: ld.holder for ld in s.leaders.values()
             if ld.foundry_id and ld.holder is not None and not ld.holder.endswith(UNNAMED)}
    if named:  # the names the GM gave Foundry's actors (the module keeps only their ids)
        extras["names"] = named
    return {"name": s.name, "type": "party", "flags": {KMT: {KMT_FLAG: data}, OURS: extras}}


WRITTEN_FROM_STATE = frozenset({
    "name", "atWar", "level", "xp", "size", "unrest", "fame", "resourcePoints", "resourceDice", "consumption",
    "workSites", "commodities", "ruin", "abilityScores", "skillRanks", "leaders", "charter", "heartland",
    "government", "features", "bonusFeats", "feats", "groups", "milestones", "ongoingEvents", "modifiers",
    "settlements", "turnsWithoutEvent", "turnsWithoutCultEvent", "homebrewActivities", "homebrewFeats", "notes",
})
"""The module's fields the export writes from the state; what the import listed under them is not carried back,
but for the paths of ``CARRIED_UNDER_STATE``."""
CARRIED_UNDER_STATE = re.compile(r"(charter|government)\.abilityBoosts|workSites\.luxurySources(\.\w+)?")
SETTINGS_FROM_OPTIONS = frozenset({*SETTINGS_TO_OPTIONS, "vanceAndKerensharaXP", "proficiencyMode"})
SETTLEMENT_CARRIED = ("lots", "level", "waterBorders", "secondaryTerritory", "manualSettlementLevel")
"""A settlement's fields the sheet keeps (its lots and level follow the structures on its scene in Foundry:
carried back while no structure was built here)."""


def _carry_back(data: dict[str, Any], state: KingdomState, carried: Carried) -> None:
    """Give back to the module what the campaign's import listed (in its event, or in the GM's journal for what
    the sheet keeps secret) and the state does not hold, as the sheet had it: the notes (kept as journal entries),
    settings, blacklists, the homebrew as the module defines it, Creative and Supernatural Solutions, the active
    settlement, ability boosts, luxury work sites, a settlement's lots, level and borders, the groups' negotiation
    DCs, the level choices, the milestones, modifiers and ongoing events kingdomlog could not hold (and an event's
    secret place), and any field it did not know. Not carried: the figures of a turn (``resourceDice.next``,
    ``consumption.next``: a month played here has used them up)."""
    if carried.notes:
        data["notes"] = {"public": carried.notes.get("public", ""), "gm": carried.notes.get("gm", "")}
    imp = carried.imported
    if imp is None or imp.source != KMT:
        return
    scenes = [st.get("id") for st in imp.kingdom.get("settlements", []) if isinstance(st, Mapping)]
    source: dict[str, list[dict[str, Any]]] = {}
    written = {st["sceneId"]: st for st in data["settlements"]}
    built = {st.id for st in state.settlements if st.structures}
    prefix = f"{KMT_FLAG}."
    listed: list[tuple[str, Any]] = [(u.field, u.value) for u in imp.unmapped]
    for where, value in [*listed, *((u.field, u.value) for u in carried.secret)]:
        if not where.startswith(prefix):
            continue
        path = where.removeprefix(prefix)
        entry = re.fullmatch(r"(settlements|milestones|modifiers|ongoingEvents)\[(\d+)\](?:\.(\w+))?", path)
        if entry is not None:
            kind, i, key = entry.group(1), int(entry.group(2)), entry.group(3)
            if kind == "settlements" and key in SETTLEMENT_CARRIED and i < len(scenes) and scenes[i] in written:
                if key not in ("lots", "level") or scenes[i] not in built:
                    written[scenes[i]][key] = value
            elif kind == "milestones" and key is None and isinstance(value, Mapping) and "id" in value:
                data["milestones"].append(value)  # a homebrew milestone
            elif kind == "modifiers" and key is None and isinstance(value, Mapping) and "applyIf" in value:
                data["modifiers"].append(value)  # one kingdomlog could not hold (disabled, other conditions)
            elif kind == "ongoingEvents" and key is None and isinstance(value, Mapping) and "id" in value:
                same = [e for e in data["ongoingEvents"] if e["id"] == value["id"]]
                for e in same:  # still ongoing here: the place the sheet kept secret, and its secrecy
                    e["settlementSceneId"] = e["settlementSceneId"] or value.get("settlementSceneId")
                    e["secretLocation"] = bool(value.get("secretLocation", False))
                if not same and value["id"] not in T.catalog_events(state.homebrew):
                    data["ongoingEvents"].append(value)  # an event kingdomlog's data does not have
            continue
        if path in ("homebrewActivities", "homebrewFeats") and isinstance(value, list):
            _carry_homebrew(data[path], value)
            continue
        if path == "groups" and isinstance(value, list):
            _carry_groups(data, value)
            continue
        if path in ("features", "bonusFeats") and isinstance(value, list):
            source[path] = [dict(e) for e in value if isinstance(e, Mapping)]
            continue
        role = re.fullmatch(r"leaders\.(\w+)\.type", path)
        if role is not None and value == "companion" and isinstance(data["leaders"].get(role.group(1)), dict):
            seat = data["leaders"][role.group(1)]
            held = imp.kingdom.get("leaders", {}).get(role.group(1), {})
            if seat["type"] == "pc" and isinstance(held, Mapping) and seat["uuid"] == held.get("holder"):
                seat["type"] = "companion"  # the same companion still holds the role
            continue
        keys = path.split(".")
        if "[" in path or "/" in path or path in ("resourceDice.next", "consumption.next"):
            continue
        if keys[0] in WRITTEN_FROM_STATE and not CARRIED_UNDER_STATE.fullmatch(path):
            continue
        if keys[0] == "settings" and len(keys) > 1 and keys[1] in SETTINGS_FROM_OPTIONS:
            continue
        if keys[-1] == "abilityBoosts" and isinstance(value, list):  # listed as the abilities chosen
            value = {a: a in value for a in T.ABILITIES}
        node = data
        for key in keys[:-1]:
            if not isinstance(node.get(key), dict):
                node[key] = {}
            node = node[key]
        node[keys[-1]] = value
    if source:
        _carry_features(data, source.get("features", []), source.get("bonusFeats", []))


def _carry_groups(data: dict[str, Any], source: list[Any]) -> None:
    """The sheet's groups with their negotiation DCs and pledges; their relations and war are the state's (a
    group it holds neither with goes back with none)."""
    ours = {g["name"]: g for g in data["groups"]}
    out = []
    for g in source:
        if not isinstance(g, Mapping) or not isinstance(g.get("name"), str):
            continue
        mine = ours.pop(g["name"], {"name": g["name"], "negotiationDC": 0, "atWar": False,
                                    "preventPledgeOfFealty": False, "relations": "none"})
        out.append({**mine, **g, "relations": mine["relations"], "atWar": mine["atWar"]})  # every field today's
    data["groups"] = out + list(ours.values())


def _carry_features(data: dict[str, Any], features: list[dict[str, Any]], bonus: list[dict[str, Any]]) -> None:
    """The sheet's level choices (skill increases, ability boosts, Ruin thresholds) back with the feats: as the
    sheet had them while the kingdom took no feat here; else the state's feat slots and the sheet's other
    choices."""
    taken = {f.get("featId") for f in features if f.get("featId")} | {b.get("id") for b in bonus}
    written = {f["featId"] for f in data["features"]} | {b["id"] for b in data["bonusFeats"]}
    if taken == written:
        data["features"], data["bonusFeats"] = features, bonus
        return
    slots = {f["id"] for f in data["features"]}
    data["features"] += [f for f in features if not f.get("featId") and f.get("id") not in slots]


def _carry_homebrew(written: list[dict[str, Any]], source: list[Any]) -> None:
    """The sheet's own homebrew definitions in place of kingdomlog's words for them (matched by id); one the
    campaign's data file no longer holds is given back too."""
    at = {slug(str(e.get("id", ""))): i for i, e in enumerate(written)}
    for entry in source:
        if not isinstance(entry, Mapping):
            continue
        i = at.get(slug(str(entry.get("id", ""))))
        if i is None:
            written.append(dict(entry))
        else:
            written[i] = dict(entry)


def _homebrew(state: KingdomState, section: str) -> list[dict[str, Any]]:
    return [item for doc in state.homebrew.values() for item in doc.get(section, [])]


def _kmt_activities(state: KingdomState) -> list[dict[str, Any]]:
    """The campaign's homebrew activities as the module's homebrew activities (their outcomes in words)."""
    out = []
    for a in _homebrew(state, "activity"):
        dc, adjust = str(a.get("dc", "control")), 0
        if dc.startswith("control+"):
            dc, adjust = "control", int(dc.removeprefix("control+"))
        base = a.get("proficiency", "untrained")
        out.append({
            "id": a["name"], "title": a.get("title") or a["name"], "description": a.get("gm_note", ""),
            "skills": {sk: RANKS.index(a.get("skill_proficiency", {}).get(sk, base)) for sk in a.get("skills", [])},
            "phase": a["category"], "dc": int(dc) if dc.isdigit() else dc if dc in ("control", "none") else
            "scouting" if dc == "enemy_scouting" else "custom", "dcAdjustment": adjust, "enabled": True,
            "fortune": bool(a.get("fortune", False)), "oncePerRound": bool(a.get("once_per_turn", False)),
        })
    return out


def _kmt_feats(state: KingdomState) -> list[dict[str, Any]]:
    """The campaign's homebrew feats as the module's homebrew feats (their effects in words)."""
    return [{"id": f["name"], "name": f.get("title") or f["name"], "level": f.get("level", 1),
             "text": f.get("gm_note", "")} for f in _homebrew(state, "feat")]


def _kmt_modifier(m: KingdomModifier) -> dict[str, Any]:
    conds = []
    if m.selector != "all":
        for term in m.selector.split("+"):
            key, _, value = term.partition(":")
            conds.append({"eq": [f"@{key}", value]})
    out: dict[str, Any] = {"id": m.id, "type": m.type, "value": m.value, "name": m.source, "enabled": True,
                           "applyIf": conds, "isConsumedAfterRoll": m.expires == "once"}
    if m.expires in ("end_of_this_turn", "start_of_next_turn"):
        out["turns"] = 1
    elif m.expires == "end_of_next_turn":
        out["turns"] = 2
    return out


# ---------------------------------------------------------------- the PF2e system's kingdom


def read_system(doc: Any) -> ForeignKingdom:
    """The PF2e system's own kingdom (a party actor's ``system.campaign``) as a new campaign's first batch."""
    data = system_data(doc)
    root = Doc(data, "system.campaign" if data is not doc else "campaign")
    b = Builder()
    k = b.k
    root.skip("type", "img", "active")
    k["name"] = root.text("name", "")
    k["level"] = root.integer("level", 1, 20, 1)
    k["max_level"] = k["level"]
    xp = root.obj("xp", {})
    k["xp"] = xp.integer("value", 0, BIG, 0)
    if xp.integer("max", 0, BIG, 1000) != 1000:
        xp.note("max", xp.data["max"], "kingdomlog levels at the rules' 1000 XP")
    k["fame_type"] = "infamy" if root.text("aspiration", "fame", choices=("fame", "infamy")) == "infamy" else "fame"
    abil = root.obj("abilities")
    by_ability: dict[str, str] = {info.ability: r for r, info in T.core().ruins.items()}
    k["scores"], k["ruin"] = {}, {}
    for a in T.ABILITIES:
        one = abil.obj(a)
        k["scores"][a] = one.integer("value", 0, 100, 10)
        one.skip("mod")
        ru = one.obj("ruin", {})
        k["ruin"][by_ability[a]] = Ruin(points=ru.integer("value", 0, BIG, 0), threshold=ru.integer("max", 1, BIG, 10),
                                        penalty=one.integer("penalty", 0, 100, 0))
    build = root.obj("build", {})
    skills = build.obj("skills", {})
    k["skills"] = {s: RANKS[r] for s in T.core().skills if (r := skills.obj(s, {}).integer("rank", 0, 4, 0))}
    known: dict[str, Mapping[str, Any]] = {"charter": T.charters(), "heartland": T.heartlands(),
                                           "government": T.governments()}
    for part in ("charter", "heartland", "government"):
        if build.data.get(part) is None:
            build.skip(part)
            k[part] = ""
            continue
        chg = build.obj(part)
        ident = slug(chg.opt_str("id") or chg.text("name", ""))
        chg.skip("id", "name", "img", "description", "boosts", "flaw", "skills", "feat")
        if ident not in known[part]:
            chg.note("name", chg.data.get("name"), f"not a {part} of kingdomlog's data (kept by name)")
        k[part] = ident
    build.unmapped("boosts", "the ability scores are imported as they stand; the boosts that made them are not kept")
    build.unmapped("manual", SHEET_ONLY)
    lead = root.obj("leadership")
    k["leaders"] = {}
    for role in T.ROLES:
        ld = lead.obj(role, {})
        who = ld.opt_str("uuid")
        vacant = ld.flag("vacant", who is None)
        holder, actor = seat(role, None if vacant else who or placeholder(role.title()), {})
        k["leaders"][role] = Leader(holder=holder, invested=ld.flag("invested", False) and holder is not None,
                                    foundry_id=actor)
    res = root.obj("resources", {})
    dice = res.obj("dice", {})
    dice.skip("number", "faces")
    pending: dict[str, Any] = {"bonus_dice": dice.integer("bonus", 0, 100, 0),
                               "penalty_dice": dice.integer("penalty", 0, 100, 0)}
    k["pending"] = Pending(**pending)
    fame = res.obj("fame", {})
    k["fame"] = fame.integer("value", 0, 100, 0)
    fame.skip("max")
    k["rp"] = res.integer("points", 0, BIG, 0)
    com = res.obj("commodities", {})
    k["commodities"] = {}
    storage: dict[str, int] = {}
    sites: list[tuple[str, str, bool]] = []
    farmland = 0
    old_sites = False
    for c in T.COMMODITIES:
        one = com.obj(c, {})
        k["commodities"][c] = one.integer("value", 0, BIG, 0)
        if one.data.get("max") is not None:
            storage[c] = one.integer("max", 0, BIG)
        if one.has("sites") or one.has("resourceSites"):
            old_sites = True
            sites_n, res_n = one.integer("sites", 0, 10_000, 0), one.integer("resourceSites", 0, 10_000, 0)
            farmland, sites = _system_sites(one, c, sites_n, res_n, farmland, sites)
    work = res.obj("workSites", {})
    old_regular = False
    for c in list(work.data):
        w = work.obj(c)
        regular = "regular" if w.has("regular") else "value"  # an earlier schema counted them as 'regular'
        old_regular = old_regular or regular == "regular"
        farmland, sites = _system_sites(w, c, w.integer(regular, 0, 10_000, 0), w.integer("resource", 0, 10_000, 0),
                                        farmland, sites)
    towns: list[dict[str, Any]] = []
    cap = root.text("capital", "", max_len=200)
    setl = root.obj("settlements", {})
    for sid in list(setl.data):
        one = setl.obj(sid)
        towns.append({"id": sid, "name": one.text("name", "", max_len=NAME_MAX).strip()
                      or placeholder(f"Settlement {len(towns) + 1}"), "capital": sid == cap})
        one.skip("sort", "consumption", "storage", "overcrowded")
        one.unmapped("description", NOT_HELD)
        lv = one.integer("level", 0, 100, 1)
        kind = one.text("type", "village", max_len=50)
        if lv > 1 or kind != "village":
            one.note("level", {"level": lv, "type": kind},
                     "derived in kingdomlog from the structures built (the structures are not in the export)")
    if towns and not any(t["capital"] for t in towns):
        towns[0]["capital"] = True
    hexes, homes = b.hexes_for(towns, sites, farmland, root.integer("size", 0, 10_000, 1), "system.campaign.size")
    k["hexes"] = tuple(hexes)
    k["settlements"] = tuple(Settlement(id=t["id"], name=t["name"], hex=homes[t["id"]], capital=t["capital"])
                             for t in towns)
    cons = root.obj("consumption", {})
    army = cons.integer("army", 0, BIG, 0)
    k["armies"] = {"armies": army} if army else {}
    cons.skip("base", "settlement", "value", "breakdown")  # derived by the system from the rest
    unrest = root.raw("unrest", 0)
    if isinstance(unrest, Mapping):
        u = root.obj("unrest")
        k["unrest"] = u.integer("value", 0, 1000, 0)
        b.options["anarchy_threshold"] = u.integer("anarchyThreshold", 1, 1000, 20)
    else:
        k["unrest"] = root.integer("unrest", 0, 1000, 0)
    ev = root.obj("event", {})
    k["event_dc"] = ev.integer("dc", 0, 100, 16)
    ev.unmapped("text", NOT_HELD)
    mods: list[KingdomModifier] = []
    custom = root.obj("customModifiers", {})
    for sel in list(custom.data):
        for i, m in enumerate(custom.objs(sel)):
            kind = m.text("type", "untyped", max_len=50)
            label = m.text("label", "modifier", max_len=500)
            value = m.integer("modifier", -100, 100, 0)
            target = ("all" if sel in ("all", "kingdom-check") else f"skill:{sel}" if sel in T.core().skills
                      else f"ability:{sel}" if sel in T.ABILITIES else None)
            m.skip("slug", "label", "modifier", "type", "predicate", "enabled", "ignored")
            if target is None or kind not in MOD_TYPES or m.data.get("predicate") or m.data.get("enabled") is False:
                m.note("", dict(m.data), f"modifier {label!r}: its selector, type or predicate is not one kingdomlog"
                                         " holds")
                continue
            mods.append(KingdomModifier(id=m.text("slug", f"{sel}-{i + 1}"), source=label, type=kind,
                                        value=value, selector=target, expires="permanent"))
    k["modifiers"] = tuple(mods)
    root.unmapped("module", "settings of a Foundry module kept on the system's kingdom")
    feats: list[str] = []
    items = doc.get("items") if isinstance(doc, Mapping) and data is not doc else None
    if isinstance(items, list):
        cat = T.catalog_feats()
        for i, item in enumerate(items):
            it = Doc(item, f"items[{i}]")
            if it.data.get("type") != "campaignFeature":
                continue
            system = it.obj("system", {})
            category = system.text("category", "", max_len=100)
            fid = slug(system.text("slug", "") if system.data.get("slug") else it.text("name", ""))
            if category == "kingdom-feat" and fid in cat:
                feats.append(fid)
            elif category == "kingdom-feat":
                b.extra.append(Unmapped(f"items[{i}]", it.data.get("name"), "not a feat of kingdomlog's data"))
    gov = known["government"].get(k["government"])
    if gov is not None and gov.feat and gov.feat not in feats:
        feats.insert(0, gov.feat)
    k["feats"] = tuple(dict.fromkeys(feats))
    version = ("older schema (work sites on the commodities)" if old_sites else
               "earlier schema (work sites as 'regular', Unrest a number)" if old_regular or not isinstance(unrest,
                                                                                                   Mapping) else
               "current schema")
    return _finish(b, root, fmt=SYSTEM, title="PF2e system kingdom (party actor)", version=version,
                   stock=f"{root.path}.resources.commodities.{{c}}.value", storage=storage)


def _system_sites(w: Doc, commodity: str, n: int, res_n: int, farmland: int,
                  sites: list[tuple[str, str, bool]]) -> tuple[int, list[tuple[str, str, bool]]]:
    """Work sites of one commodity: ``n`` regular and ``res_n`` on resource hexes (the system's reading)."""
    if commodity == "food":
        if res_n:
            w.note("resource", res_n, "kingdomlog's hexes hold lumber, ore and stone resources only")
        return farmland + n + res_n, sites
    if commodity not in ("lumber", "ore", "stone"):
        w.note("", {"value": n, "resource": res_n}, "kingdomlog's work sites are lumber camps, mines and quarries")
        return farmland, sites
    return farmland, [*sites, *((commodity, commodity, False) for _ in range(n)),
                      *((commodity, commodity, True) for _ in range(res_n))]


# ---------------------------------------------------------------- names the export does not hold


def _apply_named(state: KingdomState, ev: E.Named) -> KingdomState:
    if ev.what == "settlement":
        return state.model_copy(update={"settlements": tuple(
            st.model_copy(update={"name": ev.name}) if st.id == ev.id else st for st in state.settlements)})
    ld = state.leaders[ev.id]
    return state.model_copy(update={"leaders": {**state.leaders, ev.id: ld.model_copy(update={"holder": ev.name})}})


def named_event(state: KingdomState, ident: str, name: Any, given_as: str) -> E.Named:
    """The ``pf2e.named`` event; ``InputError`` naming ``given_as`` for an id the state does not hold or a name it
    refuses (empty, too long, or a leader's name another role's holder has). ``ident`` is a settlement's id (its
    scene's), a leader's Foundry actor id or role, or the name a page shows ("Settlement 2 (unnamed in Foundry)")."""
    what, ident = named_target(
        ident, [*(("settlement", st.id, (st.id,), st.name) for st in state.settlements),
                *(("leader", role, (ld.foundry_id, role), ld.holder)
                  for role, ld in state.leaders.items() if ld.holder is not None)],
        given_as, kinds="settlement or leader", ids="a settlement's id, a leader's Foundry actor id or role",
        unnamed=(i for i, _ in unnamed(state)))
    text = given_name(name, given_as)
    if what == "leader":
        other = next((r for r, ld in state.leaders.items()
                      if r != ident and ld.holder is not None and ld.holder.casefold() == text.casefold()), None)
        if other is not None:
            raise InputError(f"{given_as}: {text!r} is already the {other.title()}'s name (one person holds one"
                             " role)")
    return E.Named(what="settlement" if what == "settlement" else "leader", id=ident, name=text)


NAMING = Naming(imported=E.KingdomImported, state_of=KingdomState.model_validate, stored=stored, event=named_event,
                apply=_apply_named)
"""The GM's names for the settlements and leaders an import left unnamed (by a settlement's scene id, a leader's
actor id or role): at the import (``--name ID=NAME``, ``--names FILE``) and after (``pf2e.named``)."""


FORMATS: tuple[ForeignFormat, ...] = (
    ForeignFormat(KMT, "pf2e-kingmaker-tools kingdom sheet", f"flags.{KMT}.{KMT_FLAG}", detect_kmt, read_kmt,
                  write_kmt, name=NAMING.kingdom, unnamed=unnamed, naming=NAMING.drafts),
    ForeignFormat(SYSTEM, "PF2e system kingdom (party actor)", "system.campaign (type kingmaker)", detect_system,
                  read_system, name=NAMING.kingdom, unnamed=unnamed, naming=NAMING.drafts),
)
