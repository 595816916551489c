"""The PF1 chronicle: one sentence for a player per recorded event worth telling (base §3–§5, opt §1–§2).

Every sentence is written from the event's recorded payload and the states around it
(already redacted for the viewer): who, what, where and how much, never a re-derived
number. Routine bookkeeping (turn and phase markers, a quiet event roll) says nothing.
A hex mapped or an expedition's discoveries are told only to the GM until the hex is
explored (the fog of ``mapview``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kingdomlog.core.dispatch import ByName
from kingdomlog.core.events import RecordedEvent
from kingdomlog.core.foreign import UNNAMED, ImportedKingdom
from kingdomlog.core.viewers import Viewer
from kingdomlog.rulesets.pf1.mapview import ALIGNMENT_WORDS, IMPROVEMENT_WORDS, feature_words, words
from kingdomlog.rulesets.pf1.state import Pf1State, hex_words

Narrator = Callable[[Pf1State, Any, Pf1State, Viewer], str | None]
_N: ByName[Narrator] = ByName()
narrates = _N.on


def chronicle(before: Pf1State, event: RecordedEvent, after: Pf1State, viewer: Viewer) -> str | None:
    """A sentence about ``event`` for ``viewer``, or None."""
    fn = _N.get(event.type)
    return fn(before, event.payload, after, viewer) if fn else None


def _city(s: Pf1State, cid: str | None) -> str:
    c = s.cities.get(cid or "")
    return c.name if c else (cid or "the kingdom")


def _kingdom(s: Pf1State, kid: str) -> str:
    k = s.foreign.get(kid)
    return k.name if k else words(kid)


def _unrest(delta: int) -> str:
    if delta > 0:
        return f"Unrest rose by {delta}"
    if delta < 0:
        return f"Unrest fell by {-delta}"
    return ""


def _and_unrest(text: str, delta: int) -> str:
    u = _unrest(delta)
    return f"{text}; {u[0].lower()}{u[1:]}" if u else text


def _a(noun: str) -> str:
    """``cave`` -> ``a cave``, ``landmark`` -> ``a landmark``, ``ruins`` -> ``ruins``.

    >>> _a("cave"), _a("old ruins"), _a("ruins (tower)")
    ('a cave', 'old ruins', 'ruins (tower)')
    """
    head = noun.split(" (")[0]
    if head.endswith("s"):
        return noun
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def _hex(s: Pf1State, hid: str) -> str:
    h = s.hexes.get(hid)
    if h is None:
        return hex_words(hid)
    city = s.cities.get(h.city or "")
    return f"the {h.terrain.lower()} {hex_words(hid)}" + (f" of {city.name}" if city else "")


@narrates("pf1.kingdom_imported")
def _imported(b: Pf1State, p: ImportedKingdom, a: Pf1State, v: Viewer) -> str:
    hexes = sum(1 for h in a.hexes.values() if h.claimed)
    return (f"{a.name or 'The kingdom'} came from {p.came_from()}: {a.treasury} BP in its treasury, {hexes} claimed"
            f" hex{'' if hexes == 1 else 'es'}, {len(a.cities)} settlement{'' if len(a.cities) == 1 else 's'}"
            + p.left_behind())


@narrates("pf1.named")
def _named_by_gm(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    if p.what == "city":
        was = b.cities[p.id].name if p.id in b.cities else "a settlement"
    else:
        was = next((o.name for occ in b.leaders.values() for o in occ if o.foundry_id == p.id), "a leader")
    return f"The GM named {was.removesuffix(UNNAMED)}: {p.name}"


@narrates("pf1.kingdom_founded")
def _founded(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return (f"{p.name} was founded, a {ALIGNMENT_WORDS.get(p.alignment, p.alignment)} kingdom with "
            f"{p.starting_treasury_bp} BP in its treasury")


@narrates("pf1.hex_mapped")
def _mapped(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str | None:
    if not v.is_gm:
        return None
    feats = ", ".join(_a(feature_words(f)) for f in p.features)
    return f"{hex_words(p.hex)} was mapped: {p.terrain.lower()}{' with a river' if p.river else ''}" + (
        f"; it holds {feats}" if feats else "")


@narrates("pf1.hex_explored")
def _explored(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    h = a.hexes.get(p.hex)
    if h is None:
        return f"{hex_words(p.hex)} was explored"
    found = ", ".join(_a(feature_words(f)) for f in h.features)
    return (f"explorers charted {hex_words(p.hex)}, {h.terrain.lower()}{' with a river' if h.river else ''}"
            + (f", and found {found}" if found else ""))


@narrates("pf1.hex_cleared")
def _cleared(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return f"{hex_words(p.hex)} was cleared"


@narrates("pf1.hex_claimed")
def _claimed(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return f"the kingdom claimed {_hex(a, p.hex)} for {p.cost_bp} BP"


@narrates("pf1.town_annexation_check_rolled")
def _town(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    how = "welcomed the kingdom" if p.check.success else "resisted annexation"
    return _and_unrest(f"the town of {p.town} {how}", p.unrest_delta)


@narrates("pf1.hex_abandoned")
def _abandoned(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return _and_unrest(f"the kingdom abandoned {_hex(b, p.hex)}", p.unrest_delta)


@narrates("pf1.hex_lost_to_unrest")
def _lost(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return f"Unrest of {p.unrest} cost the kingdom {_hex(b, p.hex)}"


@narrates("pf1.city_founded")
def _city_founded(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return f"{p.name} was founded in {hex_words(p.hex)}" + (" as the capital" if p.capital else "")


@narrates("pf1.district_preparation_started")
def _prep(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return (f"work began on a new district of {_city(a, p.city)} ({p.cost_bp} BP), ready in month "
            f"{p.ready_on_turn}")


@narrates("pf1.district_ready")
def _ready(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    d = a.districts.get(p.district)
    water = [side for side, kind in p.borders.items() if kind == "WATER"]
    return f"a district of {_city(a, d.city if d else None)} was ready to build on" + (
        f", with water on its {' and '.join(water)} side" if water else "")


@narrates("pf1.building_constructed")
def _built(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    deity = f" to {p.deity}" if p.deity else ""
    cost = "at no cost" if p.free or p.cost_bp == 0 else f"for {p.cost_bp} BP"
    return _and_unrest(f"a {p.building_type}{deity} was built in {_city(a, p.city)} {cost}", p.unrest_delta)


@narrates("pf1.building_demolished")
def _demolished(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    bl = b.buildings.get(p.building)
    return f"the {bl.type} of {_city(b, bl.city)} was pulled down" if bl else "a building was pulled down"


@narrates("pf1.lots_destroyed")
def _destroyed(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    d = b.districts.get(p.district)
    lost = [b.buildings[x].type for x in p.buildings if x in b.buildings]
    text = f"{len(p.lots)} lot{'s' if len(p.lots) != 1 else ''} of {_city(b, d.city if d else None)} were destroyed"
    return _and_unrest(text + (f", taking the {', '.join(lost)} with them" if lost else ""), p.unrest_delta)


@narrates("pf1.road_built")
def _road(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return f"a road was laid through {hex_words(p.hex)} for {p.cost_bp} BP" + (
        " (twice the cost, across a river)" if p.river_doubled else "")


@narrates("pf1.hex_improvement_built")
def _improvement(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    what = IMPROVEMENT_WORDS.get(p.kind, p.kind.lower())
    return _and_unrest(f"a {what} was built in {hex_words(p.hex)} for {p.cost_bp} BP", p.unrest_delta)


@narrates("pf1.leader_assigned")
def _leader(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return f"{p.name} became {'co-' if p.co_ruler else ''}{words(p.role)}"


@narrates("pf1.leader_unassigned")
def _unassigned(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return f"{p.name} gave up the post of {words(p.role)}" + (f" ({p.reason})" if p.reason else "")


@narrates("pf1.leader_presence_recorded")
def _presence(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return f"{p.name} ({words(p.role)}) was {'back at court' if p.present else 'away from court'}"


@narrates("pf1.vacancy_unrest_applied")
def _vacancy(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str | None:
    if not p.unrest_delta:
        return None
    roles = ", ".join(words(r) for r in p.items)
    return f"empty posts ({roles}) raised Unrest by {p.unrest_delta}"


@narrates("pf1.stability_check_rolled")
def _stability(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    c = p.check
    if c.success:
        text = "the kingdom held steady (Stability check passed)"
        if p.treasury_delta > 0:
            text += f" and gained {p.treasury_delta} BP"
        return _and_unrest(text, p.unrest_delta)
    return _and_unrest(f"the kingdom was shaken (Stability check failed by {-c.margin})", p.unrest_delta)


@narrates("pf1.consumption_paid")
def _consumption(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    short = p.treasury_after < 0 or p.unrest_delta > 0
    text = f"the kingdom paid its upkeep of {p.consumption} BP"
    if short:
        text += ", but the treasury ran dry"
    return _and_unrest(text, p.unrest_delta)


@narrates("pf1.negative_attribute_unrest_applied")
def _neg(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str | None:
    if not p.unrest_delta:
        return None
    return f"weak {', '.join(x.lower() for x in p.attributes)} raised Unrest by {p.unrest_delta}"


@narrates("pf1.anarchy_began")
def _anarchy(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return f"with Unrest at {p.unrest}, the kingdom fell into anarchy"


@narrates("pf1.anarchy_ended")
def _anarchy_end(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return "order was restored and the anarchy ended" + (f" ({p.reason})" if p.reason else "")


@narrates("pf1.royal_assassin_acted")
def _assassin(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str | None:
    return f"the Royal Assassin's work lowered Unrest by {-p.unrest_delta}" if p.unrest_delta < 0 else None


@narrates("pf1.magic_item_slot_filled")
def _slot(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    bl = a.buildings.get(p.building)
    where = f"the {bl.type} of {_city(a, bl.city)}" if bl else "a shop"
    item = str(p.item)
    if item.lower().startswith("unnamed "):  # a slot the GM filled without naming the item
        item = f"an {item}"
    return f"{where} now offers {item}" + (f" ({p.price_gp:,} gp)" if p.price_gp else "")


@narrates("pf1.deposit_made")
def _deposit(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str | None:
    if not p.bp_gained:
        return None
    return f"the rulers deposited {p.gp_offered - p.gp_returned:,} gp, worth {p.bp_gained} BP, in the treasury"


@narrates("pf1.withdrawal_made")
def _withdrawal(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return _and_unrest(f"the rulers drew {p.bp} BP ({p.gp_paid:,} gp) from the treasury", p.unrest_delta)


@narrates("pf1.withdrawal_loyalty_check_rolled")
def _wd_loyalty(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str | None:
    if p.check.success:
        return "the people forgave the withdrawal"
    return _and_unrest("the people resented the withdrawal", p.unrest_delta)


@narrates("pf1.item_sale_attempted")
def _sale(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    if p.bp_gained:
        return f"{p.item} was sold for {p.bp_gained} BP"
    return f"no buyer was found for {p.item}"


@narrates("pf1.income_check_rolled")
def _income(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    if p.bp_gained > 0:
        return f"taxes brought in {p.bp_gained} BP"
    return "taxes came in short: the treasury gained nothing"


@narrates("pf1.income_skipped")
def _no_income(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return "no taxes were collected this month (" + words(p.reason).lower() + ")"


@narrates("pf1.kingdom_event_drawn")
def _event(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return f"an event struck the kingdom: {p.event}"


@narrates("pf1.event_effect_applied")
def _effect(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str | None:
    kind = p.kind
    what = p.event
    if kind == "UNREST":
        u = _unrest(p.value)
        return f"{what}: {u[0].lower()}{u[1:]}" if u else None
    if kind == "TREASURY":
        return f"{what} {'added' if p.value >= 0 else 'cost'} {abs(p.value)} BP"
    if kind in ("FAME", "INFAMY"):
        return f"{what}: {kind.capitalize()} {'+' if p.value >= 0 else ''}{p.value}"
    attr = (p.attribute or "").lower()
    until = f" until month {p.last_turn}" if p.last_turn else ""
    sign = "rose" if p.value > 0 else "fell"
    return f"{what}: {attr} {sign} by {abs(p.value)}{until}"


@narrates("pf1.building_support_lost")
def _support(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    bl = a.buildings.get(p.building)
    return f"the {bl.type if bl else 'building'} lost the houses it relied on and may close"


@narrates("pf1.building_abandoned")
def _bl_abandoned(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    bl = a.buildings.get(p.building)
    return _and_unrest(f"the {bl.type if bl else 'building'} was abandoned", p.unrest_delta)


@narrates("pf1.religious_building_dedicated")
def _dedicated(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    bl = a.buildings.get(p.building)
    return f"the {bl.type if bl else 'temple'} was dedicated to {p.deity}"


@narrates("pf1.foreign_kingdom_registered")
def _foreign(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return f"the kingdom learned of {p.name}" + (", its sponsor," if p.is_sponsor else ",") + \
        f" which is {p.attitude} towards it"


@narrates("pf1.attitude_changed")
def _attitude(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return f"{_kingdom(a, p.kingdom)} grew {p.after} towards the kingdom"


@narrates("pf1.diplomatic_edict_resolved")
def _diplomacy(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    who = _kingdom(a, p.target)
    if p.war:
        return f"talks with {who} ended in war"
    rel = b.relations.get(p.target)
    level = {"embassy": "an embassy", "treaty": "a treaty", "alliance": "an alliance"}.get(p.level_after, "")
    gained = level and (rel is None or rel.level != p.level_after)
    text = f"envoys to {who} " + (f"secured {level}" if gained else "came home without a new agreement")
    return _and_unrest(text + f"; {who} is now {p.attitude_after}", p.unrest_delta)


@narrates("pf1.relation_action_resolved")
def _relation(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return _and_unrest(f"{words(p.action).lower()} with {_kingdom(a, p.target)}"
                       + (": war" if p.at_war else ""), p.unrest_delta)


@narrates("pf1.trade_edict_issued")
def _trade(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return (f"a {p.route_type.replace('_', ' ')} caravan set out from {_city(a, p.origin)} for {p.destination} "
            f"({p.invested_bp} BP invested)")


@narrates("pf1.trade_expedition_arrived")
def _trade_arrived(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    if p.status == "established":
        text = "the caravan arrived and a trade route was opened"
    else:
        text = f"the caravan {'was turned aside' if p.status == 'diverted' else 'failed'}"
    if p.treasury_delta:
        text += f", bringing {p.treasury_delta} BP"
    return _and_unrest(text, p.unrest_delta)


@narrates("pf1.trade_route_expired")
def _trade_end(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return "a trade route came to its end"


@narrates("pf1.exploration_edict_issued")
def _exploration(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return f"an expedition set out for {p.months} month{'s' if p.months != 1 else ''}"


@narrates("pf1.expedition_progressed")
def _expedition(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    text = {"progressed": "the expedition pressed on", "returned": "the expedition came home"}.get(
        p.outcome, f"the expedition was {p.outcome.replace('_', ' ')}")
    if p.discoveries:
        text += ", reporting " + ", ".join(p.discoveries)
    return _and_unrest(text, p.unrest_delta)


@narrates("pf1.renown_changed")
def _renown(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str | None:
    bits = [f"Fame {p.fame_delta:+d}" if p.fame_delta else "", f"Infamy {p.infamy_delta:+d}" if p.infamy_delta else ""]
    bits = [x for x in bits if x]
    return (", ".join(bits) + (f" ({p.source})" if p.source else "")) if bits else None


@narrates("pf1.size_milestone_renown_chosen")
def _milestone(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return f"at Size {p.threshold} the kingdom chose to grow its {p.choice}"


@narrates("pf1.government_form_changed")
def _government(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return f"the kingdom became a {words(p.form).lower()}"


@narrates("pf1.alignment_changed")
def _alignment(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return f"the kingdom turned {ALIGNMENT_WORDS.get(p.after, p.after)}"


@narrates("pf1.gm_adjustment")
def _gm(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str | None:
    reason = p.reason or "by a ruling of the GM"
    if p.field == "unrest":
        u = _unrest(p.delta)
        return f"{u} ({reason})" if u else None
    return f"the treasury {'gained' if p.delta >= 0 else 'lost'} {abs(p.delta)} BP ({reason})"


@narrates("pf1.temporary_modifier_applied")
def _temp(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return (f"{p.source}: {p.attribute.lower()} {'+' if p.value >= 0 else ''}{p.value} until month {p.last_turn}")


@narrates("pf1.subjugation_check_rolled")
def _subjugation(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    how = "held" if p.check.success else "slipped"
    return _and_unrest(f"the hold over {words(p.vassal)} {how}", p.unrest_delta)


@narrates("pf1.vassalage_edict_issued")
def _vassal(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    kind = ("a new colony was sent out" if p.mode == "new_colony"
            else f"the kingdom moved to subjugate {words(p.vassal)}")
    return f"{kind} under {p.viceroy}"


@narrates("pf1.independence_declared")
def _independence(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return f"{len(p.daughters)} new kingdom{'s' if len(p.daughters) != 1 else ''} split away"


@narrates("pf1.union_formed")
def _union(b: Pf1State, p: Any, a: Pf1State, v: Viewer) -> str:
    return f"the kingdom joined a union of {len(p.members)} realms"
