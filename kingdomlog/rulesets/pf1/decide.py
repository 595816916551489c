"""``decide``: validate a step's choices against the state, roll its dice, return its events.

Each step runs on an accumulator that evolves a working copy of the state after
every draft, so later sub-steps see earlier ones (base §4: steps in order).
Every refusal is a ``RuleError`` naming the spec section; malformed choices are
``InputError``. Nothing is returned unless the whole step validates.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kingdomlog.core.errors import InputError, RuleError
from kingdomlog.core.events import Draft, EventModel
from kingdomlog.core.ruleset import Dice
from kingdomlog.core.turn import provisional
from kingdomlog.dice.checks import d20_check
from kingdomlog.rulesets.pf1 import derive as dv
from kingdomlog.rulesets.pf1 import events as ev
from kingdomlog.rulesets.pf1.catalog import ATTRIBUTES, TERRAINS
from kingdomlog.rulesets.pf1.evolve import evolve
from kingdomlog.rulesets.pf1.state import ALIGNMENTS, ATTITUDES, Building, Pf1State

SIDES = ("N", "E", "S", "W")


class Acc:
    """Drafts of one step plus the state after them."""

    def __init__(self, state: Pf1State, step: str, dice: Dice) -> None:
        self.state = state
        self.step = step
        self.dice = dice
        self.drafts: list[Draft] = []
        self.serials = dict(state.serials)

    def add(self, payload: EventModel, visibility: str = "public") -> Pf1State:
        d = Draft(payload, phase=self.step, actor="gm", visibility=visibility)
        self.drafts.append(d)
        rec = provisional(self.state.campaign, self.state.turn, len(self.drafts), d)
        self.state = evolve(self.state, rec)
        return self.state

    def new_id(self, prefix: str) -> str:
        n = max(self.serials.get(prefix, 0), self.state.serials.get(prefix, 0)) + 1
        self.serials[prefix] = n
        return f"{prefix}{n}"

    def roll(self, key: str, notation: str) -> tuple[int, ...]:
        return tuple(self.dice.roll(key, notation).faces)

    def d20(self, key: str) -> int:
        return self.roll(key, "1d20")[0]

    def refuse(self, msg: str, rule: str) -> RuleError:
        return RuleError(msg, rule=rule, step=self.step)


def kcheck(s: Pf1State, attr: str, die: int, dc: int, situational: int = 0) -> ev.KCheck:
    """A kingdom check (base §2.5): d20 + attribute − Unrest + situational; natural 1/20."""
    value = int(dv.attribute(s, attr).total)
    mod = value - s.unrest + situational
    ok = d20_check(die, mod, dc)
    return ev.KCheck(attribute=attr, d20=die, attribute_value=value, unrest=s.unrest, situational=situational,
                     total=die + mod, dc=dc, success=ok, margin=die + mod - dc)


def control_dc(s: Pf1State) -> int:
    return int(dv.control_dc(s).total)


# ------------------------------------------------------------------ choice readers


def _list(ch: Mapping[str, Any], key: str, step: str) -> list[Any]:
    v = ch.get(key, [])
    if v is None:
        return []
    if not isinstance(v, list):
        raise InputError(f"[{step}] choice {key!r} must be a list, got {v!r}")
    return v


def _dict(ch: Mapping[str, Any], key: str, step: str) -> dict[str, Any]:
    v = ch.get(key, {})
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise InputError(f"[{step}] choice {key!r} must be an object, got {v!r}")
    return v


def _int(v: Any, what: str, step: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise InputError(f"[{step}] {what} must be an integer, got {v!r}")
    return v


def _known(ch: Mapping[str, Any], allowed: set[str], step: str) -> None:
    extra = sorted(set(ch) - allowed)
    if extra:
        raise InputError(f"[{step}] unknown choice(s) {extra}; this step takes: {', '.join(sorted(allowed))}")


def _hex(a: Acc, hex_id: Any, rule: str) -> Any:
    h = a.state.hexes.get(str(hex_id))
    if h is None:
        raise a.refuse(f"hex {hex_id!r} is not on the map (map it first)", rule)
    return h


def _city(a: Acc, ref: Any) -> Any:
    s = a.state
    if ref is None:
        caps = [c for c in dv.live_cities(s) if c.capital] or dv.live_cities(s)
        if not caps:
            raise a.refuse("no city to build in: prepare a district first", "base §4.3 I6")
        return caps[0]
    for c in s.cities.values():
        if ref in (c.id, c.name):
            return c
    raise InputError(f"[{a.step}] unknown city {ref!r}; cities: {', '.join(c.name for c in s.cities.values())}")


def _pay(a: Acc, cost: int, what: str) -> None:
    if cost > a.state.treasury and not a.state.opt("spending_below_zero_allowed"):
        raise a.refuse(f"{what} costs {cost} BP but the treasury holds {a.state.treasury} BP", "base §4.0")


def _not_anarchy(a: Acc, ch: Mapping[str, Any]) -> None:
    if not any(v not in (None, [], {}, 0, False, "") for v in ch.values()):
        return
    if a.state.closed:
        gone = ", ".join(c for x in a.state.lineage if x.kind in ("split_into", "merged_into") for c in x.campaigns)
        raise a.refuse(f"this kingdom's log is closed: it became {gone}; play those campaigns", "opt §2.11")
    if a.state.anarchy:
        raise a.refuse("the kingdom is in anarchy and can take no action until the GM ends it", "base §4.7")


# ------------------------------------------------------------------ founding (turn 0)


def decide_founding(s: Pf1State, ch: Mapping[str, Any], a: Acc) -> None:
    _known(ch, {"name", "alignment", "hexes", "government", "starting_renown", "foreign_kingdoms",
                "third_party", "lineage"}, a.step)
    if s.founded:
        raise a.refuse("the kingdom is already founded", "base §3.1 F1")
    name = str(ch.get("name") or "New Kingdom")
    al = ch.get("alignment", "N")
    if al not in ALIGNMENTS:
        raise InputError(f"[{a.step}] alignment must be one of {', '.join(ALIGNMENTS)}, got {al!r}")
    gov = ch.get("government", "feudal_monarchy") or "feudal_monarchy"
    if gov != "feudal_monarchy" and not s.module_on("government_forms"):
        raise a.refuse("a form of government needs the government_forms module", "opt §2.10")
    if gov not in s.catalog.governments:
        raise InputError(f"[{a.step}] unknown government {gov!r}; known: {', '.join(s.catalog.governments)}")
    renown = ch.get("starting_renown")
    if s.module_on("fame_infamy"):
        renown = renown or "fame"
        if renown not in ("fame", "infamy"):
            raise InputError(f"[{a.step}] starting_renown must be fame or infamy, got {renown!r}")
    elif renown:
        raise a.refuse("starting Fame/Infamy needs the fame_infamy module", "opt §2.9")
    a.add(ev.KingdomFounded(name=name, alignment=al, starting_treasury_bp=int(s.opt("starting_treasury_bp")),
                            government=gov, starting_renown=renown))
    map_hexes(a, _list(ch, "hexes", a.step))
    foreign(a, _list(ch, "foreign_kingdoms", a.step), _list(ch, "third_party", a.step))
    lin = ch.get("lineage")
    if lin:
        if not s.module_on("independence_unification"):
            raise a.refuse("lineage (independence or union) needs the independence_unification module", "opt §2.11")
        if not isinstance(lin, dict):
            raise InputError(f"[{a.step}] lineage must be an object")
        a.add(ev.LineageRecorded(kind=lin.get("kind", "split_from"), campaigns=tuple(lin.get("campaigns", ())),
                                 unrest_added=_int(lin.get("unrest_added", 0), "lineage unrest_added", a.step),
                                 loyalty_bonus_turns=6 if lin.get("kind", "split_from") == "split_from" else 0))


def map_hexes(a: Acc, hexes: list[Any]) -> None:
    for h in hexes:
        if not isinstance(h, dict) or "id" not in h:
            raise InputError(f"[{a.step}] each hex needs an object with id, q, r, terrain; got {h!r}")
        terrain = str(h.get("terrain", "GRASSLAND")).upper()
        if terrain not in TERRAINS:
            raise InputError(f"[{a.step}] hex {h['id']!r}: terrain must be one of {', '.join(TERRAINS)}")
        q, r = _int(h.get("q"), f"hex {h['id']} q", a.step), _int(h.get("r"), f"hex {h['id']} r", a.step)
        a.add(ev.HexMapped(hex=str(h["id"]), q=q, r=r, terrain=terrain, river=bool(h.get("river", False)),
                           features=tuple(str(f) for f in h.get("features", ()))))
        if h.get("explored", True):
            a.add(ev.HexExplored(hex=str(h["id"])))
        if h.get("cleared", True):
            a.add(ev.HexCleared(hex=str(h["id"])))


def foreign(a: Acc, kingdoms: list[Any], third: list[Any]) -> None:
    if (kingdoms or third) and not (a.state.module_on("diplomatic_edicts") or a.state.module_on("trade_edicts")
                                    or a.state.module_on("vassalage_edicts")):
        raise a.refuse("foreign kingdoms need the diplomatic, trade or vassalage edicts module", "opt §2.5.1")
    for k in kingdoms:
        if not isinstance(k, dict) or "id" not in k:
            raise InputError(f"[{a.step}] a foreign kingdom needs id, name, alignment, size; got {k!r}")
        if k.get("attitude", "indifferent") not in ATTITUDES:
            raise InputError(f"[{a.step}] attitude must be one of {', '.join(ATTITUDES)}")
        a.add(ev.ForeignKingdomRegistered(
            kingdom=str(k["id"]), name=str(k.get("name", k["id"])), alignment=str(k.get("alignment", "N")),
            size=_int(k.get("size", 1), "foreign size", a.step), economy=k.get("economy"),
            stability=k.get("stability"), is_npc=bool(k.get("is_npc", True)),
            is_sponsor=bool(k.get("is_sponsor", False)), attitude=k.get("attitude", "indifferent")))
    for t in third:
        if not isinstance(t, dict):
            raise InputError(f"[{a.step}] a third-party relation is an object {{a, b, level, enemy}}")
        a.add(ev.ThirdPartyRelationDeclared(a=str(t["a"]), b=str(t["b"]), level=t.get("level", "none"),
                                            enemy=bool(t.get("enemy", False))))


# ------------------------------------------------------------------ GM step (start of each month)


def decide_gm(s: Pf1State, ch: Mapping[str, Any], a: Acc) -> None:
    _known(ch, {"map", "explore", "clear", "adjustments", "end_anarchy", "alignment", "foreign_kingdoms",
                "third_party", "attitudes", "government", "renown", "kingdom_modifier_adjustments",
                "base_danger", "destroy_lots", "union_stability_roll", "relation_actions"}, a.step)
    if not s.founded:
        raise a.refuse("found the kingdom first (turn 0)", "base §3.1")
    a.add(ev.TurnStarted(turn=s.turn + 1))
    # scheduled expiries (optional §2.7.6, §6.1 principle 4)
    for r in a.state.trade_routes:
        if (r.status == "established" and r.established_turn is not None
                and a.state.turn >= r.established_turn + int(s.opt("trade_duration_turns"))):
            a.add(ev.TradeRouteExpired(route=r.id))
    map_hexes(a, _list(ch, "map", a.step))
    for h in _list(ch, "explore", a.step):
        _hex(a, h, "base §2.7")
        a.add(ev.HexExplored(hex=str(h)))
    for h in _list(ch, "clear", a.step):
        _hex(a, h, "base §2.7")
        a.add(ev.HexCleared(hex=str(h)))
    al = ch.get("alignment")
    if al and al != a.state.alignment:
        if al not in ALIGNMENTS:
            raise InputError(f"[{a.step}] alignment must be one of {', '.join(ALIGNMENTS)}")
        a.add(ev.AlignmentChanged(before=a.state.alignment, after=al))
    for adj in _list(ch, "adjustments", a.step):
        if not isinstance(adj, dict) or adj.get("field") not in ("treasury", "unrest"):
            raise InputError(f"[{a.step}] an adjustment is {{field: treasury|unrest, delta, reason}}; got {adj!r}")
        a.add(ev.GmAdjustment(field=adj["field"], delta=_int(adj.get("delta", 0), "delta", a.step),
                              reason=str(adj.get("reason", ""))))
    end = ch.get("end_anarchy")
    if end:
        if not a.state.anarchy:
            raise a.refuse("the kingdom is not in anarchy", "base §4.7")
        a.add(ev.AnarchyEnded(reason=str(end.get("reason", "order restored")),
                              unrest_after=_int(end.get("unrest_after", 19), "unrest_after", a.step)))
    foreign(a, _list(ch, "foreign_kingdoms", a.step), _list(ch, "third_party", a.step))
    for k, att in _dict(ch, "attitudes", a.step).items():
        if k not in a.state.relations or att not in ATTITUDES:
            raise InputError(f"[{a.step}] attitudes: unknown kingdom {k!r} or attitude {att!r}")
        a.add(ev.AttitudeChanged(kingdom=k, before=a.state.relations[k].attitude, after=att, reason="gm"))
    gov = ch.get("government")
    if gov and gov != a.state.government:
        if not s.module_on("government_forms"):
            raise a.refuse("changing the government needs the government_forms module", "opt §2.10")
        if gov not in s.catalog.governments:
            raise InputError(f"[{a.step}] unknown government {gov!r}")
        a.add(ev.GovernmentFormChanged(form=gov, reason="GM ruling (opt §4.2 U10)"))
    ren = _dict(ch, "renown", a.step)
    if ren:
        if not s.module_on("fame_infamy"):
            raise a.refuse("Fame/Infamy changes need the fame_infamy module", "opt §2.9")
        a.add(ev.RenownChanged(fame_delta=int(ren.get("fame", 0)), infamy_delta=int(ren.get("infamy", 0)),
                               source=str(ren.get("source", "gm"))))
    for m, delta in _dict(ch, "kingdom_modifier_adjustments", a.step).items():
        if not s.module_on("expanded_settlement_modifiers"):
            raise a.refuse("kingdom-wide settlement modifiers need expanded_settlement_modifiers", "opt §2.3")
        a.add(ev.KingdomSettlementModifierAdjusted(modifier=m, delta=int(delta), source="gm"))
    for c, v in _dict(ch, "base_danger", a.step).items():
        if not s.module_on("settlement_sizes"):
            raise a.refuse("settlement Danger needs the settlement_sizes module", "opt §2.4")
        a.add(ev.SettlementBaseDangerSet(city=_city(a, c).id, base_danger=int(v)))
    for d in _list(ch, "destroy_lots", a.step):
        destroy_lots(a, d)
    for act in _list(ch, "relation_actions", a.step):
        from kingdomlog.rulesets.pf1.modules import relation_action

        relation_action(a, act)
    if ch.get("union_stability_roll"):
        # GM option: 1d4 − 2 Stability, rolled each turn for 6 months after a union (opt §2.11)
        union = [x for x in a.state.lineage if x.kind == "merged_from"]
        if not union or not 0 < a.state.turn - union[-1].turn <= 6:
            raise a.refuse("the union Stability roll applies in the 6 months after a union", "opt §2.11")
        faces = a.roll("union_stability", "1d4")
        a.add(ev.TemporaryModifierApplied(attribute="STABILITY", value=faces[0] - 2, first_turn=a.state.turn,
                                          last_turn=a.state.turn, source="union (1d4 − 2)", roll=faces))


def destroy_lots(a: Acc, d: Any) -> None:
    """Lots destroyed by an event or attack: Unrest +1 per lot (base §2.8)."""
    dist = a.state.districts.get(str(d.get("district"))) if isinstance(d, dict) else None
    if dist is None:
        raise InputError(f"[{a.step}] destroy_lots needs {{district, lots}}; got {d!r}")
    lots = tuple(int(x) for x in d.get("lots", ()))
    hit = tuple(b.id for b in a.state.buildings.values() if b.district == dist.id and set(b.lots) & set(lots))
    a.add(ev.LotsDestroyed(district=dist.id, lots=lots, buildings=hit, unrest_delta=len(lots)))
    support_lost(a, hit)


# ------------------------------------------------------------------ upkeep


def skip_reason(s: Pf1State) -> str | None:
    if s.closed:
        return "CLOSED"
    if s.anarchy:
        return "ANARCHY"
    return None


def decide_upkeep(s: Pf1State, ch: Mapping[str, Any], a: Acc) -> None:
    _known(ch, {"slot_items", "lose_hex", "reactivate"}, a.step)
    why = skip_reason(s) or ("SIZE_ZERO" if dv.size(s) == 0 else None)
    if why:
        a.add(ev.PhaseSkipped(phase="upkeep", reason=why))
        return
    # U1 stability (base §4.2, §6.1)
    dc = control_dc(s)
    c = kcheck(s, "STABILITY", a.d20("stability"), dc)
    extra: tuple[int, ...] = ()
    if c.success:
        outcome, du, dt = ("UNREST_DOWN", -1, 0) if s.unrest >= 1 else ("BP_GAINED", 0, 1)
    else:
        margin = max(0, dc - c.total)
        if margin < 5:
            du = int(s.opt("stability_minor_failure_unrest"))
        elif s.opt("stability_major_failure_unrest") == "1d4":
            extra = a.roll("stability_unrest", "1d4")
            du = extra[0]
        else:
            du = 2
        outcome, dt = ("UNREST_UP" if du else "NO_EFFECT"), 0
    a.add(ev.StabilityCheckRolled(check=c, outcome=outcome, extra_dice=extra, unrest_delta=du, treasury_delta=dt))
    # U2 consumption
    cons = int(dv.consumption(a.state).total)
    before = a.state.treasury
    after = before - cons
    a.add(ev.ConsumptionPaid(consumption=cons, treasury_before=before, treasury_after=after,
                             unrest_delta=2 if after < 0 else 0))
    # U3 magic item slots
    fill_slots(a, _dict(ch, "slot_items", a.step))
    # U3b optional-module upkeep checks (opt §1.2)
    module_upkeep(a, ch)
    # U4 unrest
    st = a.state
    items = {}
    for role in st.catalog.roles.values():
        if role.module or role.vacancy_unrest == 0:
            continue
        if not dv.role_effective(st, role.name):
            items[role.name] = role.vacancy_unrest
    if items:
        a.add(ev.VacancyUnrestApplied(items=items, unrest_delta=sum(items.values())))
    if s.opt("negative_attribute_unrest"):
        neg = tuple(x for x in ATTRIBUTES if dv.attribute(a.state, x).total < 0)
        if neg:
            a.add(ev.NegativeAttributeUnrestApplied(attributes=neg, unrest_delta=len(neg)))
    if a.state.unrest >= 11 and dv.size(a.state) > 0:
        choice = ch.get("lose_hex") or default_lost_hex(a.state)
        h = a.state.hexes.get(choice)
        if h is None or not h.claimed:
            raise a.refuse(f"lose_hex {choice!r} is not a claimed hex", "base §4.6")
        a.add(ev.HexLostToUnrest(hex=h.id, unrest=a.state.unrest))
    if a.state.unrest >= 20:
        a.add(ev.AnarchyBegan(unrest=a.state.unrest))
        return
    # U5 royal assassin
    if dv.role_effective(a.state, "ROYAL_ASSASSIN"):
        a.add(ev.RoyalAssassinActed(unrest_delta=-1 if a.state.unrest > 0 else 0))


def default_lost_hex(s: Pf1State) -> str:
    """The leaders' default choice: the last claimed hex (by id) without a city, else any."""
    hexes = sorted(dv.claimed_hexes(s), key=lambda h: (h.city is not None, h.id), reverse=True)
    no_city = [h for h in hexes if h.city is None]
    return (no_city or hexes)[0].id


def fill_slots(a: Acc, items: dict[str, Any]) -> None:
    s = a.state
    mode = s.opt("magic_slot_fill_mode")
    if mode == "ALL_VACANT":
        for b in dv.live_buildings(s):
            given = list(items.get(b.id, ()))
            for i, slot in enumerate(b.slots):
                if slot.item is None:
                    spec = given.pop(0) if given else {}
                    if isinstance(spec, str):
                        spec = {"item": spec}
                    a.add(ev.MagicItemSlotFilled(building=b.id, slot=i, category=slot.category,
                                                 item=str(spec.get("item", f"unnamed {slot.category} item")),
                                                 price_gp=spec.get("price_gp")))
        return
    # UC: per district with an empty slot, d100 51-100 fills one slot (base §4.2 U3)
    for dist in sorted({b.district for b in dv.live_buildings(s)}):
        empties = [(b, i) for b in dv.live_buildings(a.state) if b.district == dist
                   for i, sl in enumerate(b.slots) if sl.item is None]
        if not empties:
            continue
        d100 = a.roll(f"slots_{dist}", "1d100")[0]
        if d100 >= 51:
            b, i = empties[0]
            given = list(items.get(b.id, ()))
            spec = given[0] if given else {}
            if isinstance(spec, str):
                spec = {"item": spec}
            a.add(ev.MagicItemSlotFilled(building=b.id, slot=i, category=b.slots[i].category,
                                         item=str(spec.get("item", f"unnamed {b.slots[i].category} item")),
                                         price_gp=spec.get("price_gp"), d100=d100))


def module_upkeep(a: Acc, ch: Mapping[str, Any]) -> None:
    s = a.state
    t = s.turn
    if s.module_on("abandoned_buildings"):
        for b in list(a.state.buildings.values()):
            if b.occupancy == "pending_shutdown" and b.shutdown_due_turn is not None and b.shutdown_due_turn <= t:
                if s.opt("abandoned_cancel_if_replaced") and supported(a.state, b):
                    a.add(ev.BuildingShutdownCancelled(building=b.id, reason="support restored"))
                else:
                    a.add(ev.BuildingAbandoned(building=b.id, unrest_delta=1))
        for b in list(a.state.buildings.values()):
            if (b.occupancy == "abandoned" and b.reactivation_from_turn is not None
                    and b.reactivation_from_turn <= t and supported(a.state, b)):
                c = kcheck(a.state, "ECONOMY", a.d20(f"reactivate_{b.id}"), control_dc(a.state))
                a.add(ev.BuildingReactivationAttempted(building=b.id, check=c))
    if s.module_on("vassalage_edicts"):
        for v in a.state.vassals:
            if v.mode == "subjugation" and not v.resolved and v.issued_turn < t:
                subjugation_check(a, v.kingdom, v.subjugated_size, v.streak)
    if s.module_on("trade_edicts"):
        for r in a.state.trade_routes:
            if r.type == "food" and r.status == "established":
                raw = dv.raw_consumption(a.state)
                a.add(ev.FoodRouteConditionEvaluated(route=r.id, raw_consumption=raw, active=raw < 0))


def subjugation_check(a: Acc, vassal: str, size: int, streak: int) -> None:
    """Loyalty check DC Control DC + floor(size/5); failure Unrest +1d4 (opt §2.8)."""
    c = kcheck(a.state, "LOYALTY", a.d20(f"subjugation_{vassal}"), control_dc(a.state) + size // 5)
    if c.success:
        a.add(ev.SubjugationCheckRolled(vassal=vassal, check=c, streak_after=streak + 1))
    else:
        u = a.roll(f"subjugation_{vassal}_unrest", "1d4")[0]
        a.add(ev.SubjugationCheckRolled(vassal=vassal, check=c, unrest_roll=u, unrest_delta=u, streak_after=0))


def supported(s: Pf1State, b: Building) -> bool:
    need = s.catalog.building(b.type).adjacent_houses
    return len([x for x in b.supported_by if x in s.buildings]) >= need


def support_lost(a: Acc, removed: tuple[str, ...], apply: bool = True) -> None:
    """Dependents whose required house went away (opt §2.1 trigger)."""
    if not a.state.module_on("abandoned_buildings"):
        return
    for b in list(a.state.buildings.values()):
        if b.occupancy != "active" or supported(a.state, b):
            continue
        lost = next((x for x in removed), "")
        if apply:
            k = a.roll(f"shutdown_{b.id}", "1d3")[0]
            a.add(ev.BuildingSupportLost(building=b.id, supporter=lost, gm_applies=True, d3=k,
                                         shutdown_due_turn=a.state.turn + k))
        else:
            a.add(ev.BuildingSupportLost(building=b.id, supporter=lost, gm_applies=False))


# ------------------------------------------------------------------ improvement


def decide_improvement(s: Pf1State, ch: Mapping[str, Any], a: Acc) -> None:
    _known(ch, {"leaders", "unassign", "presence", "skill_ranks", "claim", "abandon", "districts", "buildings",
                "demolish", "roads", "improvements", "promotion", "taxation", "festivals", "special_edict",
                "dedications", "milestone_choice", "abandon_dependents"}, a.step)
    why = skip_reason(s)
    if why:
        _not_anarchy(a, {k: v for k, v in ch.items()
                         if k not in ("promotion", "taxation", "festivals", "milestone_choice", "abandon_dependents")
                         or (k in ("promotion", "taxation", "festivals") and v != getattr(s.edicts, k))})
        a.add(ev.PhaseSkipped(phase="improvement", reason=why))
        return
    limits = dv.limits_row(s)  # by Size at the start of the phase (base §4.3)
    # I0 districts that finish preparing
    for d in sorted(s.districts.values(), key=lambda d: d.id):
        if d.status == "PREPARING" and d.ready_on_turn <= s.turn:
            district_ready(a, d.id, {})
    # I1 leaders
    leaders(a, ch)
    # I2 claims
    for hid in _list(ch, "claim", a.step):
        claim(a, str(hid), limits.claims)
    milestones(a, ch.get("milestone_choice") or "fame")
    # I3 abandon
    for hid in _list(ch, "abandon", a.step):
        h = _hex(a, hid, "base §4.3 I3")
        if not h.claimed:
            raise a.refuse(f"hex {h.id} is not part of the kingdom", "base §4.3 I3")
        a.add(ev.HexAbandoned(hex=h.id, had_city=h.city is not None, unrest_delta=4 if h.city else 1))
    # I5 districts
    for d in _list(ch, "districts", a.step):
        prepare_district(a, d, limits.districts)
    # I6 buildings (demolitions first; both count against the limit)
    for bid in _list(ch, "demolish", a.step):
        if bid not in a.state.buildings:
            raise InputError(f"[{a.step}] no building {bid!r} to demolish")
        _limit(a, a.state.counters.buildings, limits.buildings, "buildings (demolitions count)", "base §4.3 I6")
        a.add(ev.BuildingDemolished(building=bid))
        support_lost(a, (bid,), apply=bool(ch.get("abandon_dependents", True)))
    for b in _list(ch, "buildings", a.step):
        construct(a, b, limits.buildings)
    for d in _list(ch, "dedications", a.step):
        dedicate(a, d)
    # I7 roads
    for hid in _list(ch, "roads", a.step):
        road(a, str(hid), limits.terrain)
    # I8 hex improvements
    for hid, kind in _dict(ch, "improvements", a.step).items():
        improve(a, str(hid), str(kind).upper(), limits.terrain)
    # I9 edicts
    edicts(a, ch)
    # special edict slot right after I9 (opt §1.4), then trade arrivals (opt §2.7.5)
    spec = ch.get("special_edict")
    if spec:
        from kingdomlog.rulesets.pf1.modules import special_edict

        special_edict(a, spec)
    if a.state.module_on("trade_edicts"):
        from kingdomlog.rulesets.pf1.modules import trade_arrivals

        trade_arrivals(a)


def _limit(a: Acc, used: int, limit: int, what: str, rule: str) -> None:
    if limit >= 0 and used >= limit:
        raise a.refuse(f"the per-month limit of {limit} {what} for Size {dv.size(a.state)} is used up", rule)


def _need_ruler(a: Acc, what: str) -> None:
    if not dv.role_effective(a.state, "RULER"):
        raise a.refuse(f"{what} needs an effective Ruler (the Ruler is vacant or absent)", "base §2.4 Ruler vacancy")


def leaders(a: Acc, ch: Mapping[str, Any]) -> None:
    s = a.state
    for u in _list(ch, "unassign", a.step):
        role, name = str(u.get("role", "")).upper(), str(u.get("name", ""))
        if not any(o.name == name for o in a.state.leaders.get(role, ())):
            raise InputError(f"[{a.step}] {name!r} does not hold {role}")
        a.add(ev.LeaderUnassigned(role=role, name=name, reason=str(u.get("reason", ""))))
    for x in _list(ch, "leaders", a.step):
        if not isinstance(x, dict):
            raise InputError(f"[{a.step}] a leader is {{role, name, ability, modifier, attributes?, present?}}")
        role_id = str(x.get("role", "")).upper()
        rl = s.catalog.roles.get(role_id)
        if rl is None or (rl.module and not s.module_on(rl.module)):
            known = [r.name for r in s.catalog.roles.values() if not r.module or s.module_on(r.module)]
            raise InputError(f"[{a.step}] unknown leadership role {role_id!r}; roles: {', '.join(known)}")
        ability = str(x.get("ability", rl.abilities[0])).upper()
        if ability not in rl.abilities:
            raise a.refuse(f"{role_id} uses {' or '.join(rl.abilities)}, not {ability}", "base §2.4")
        attrs = tuple(str(v).upper() for v in x.get("attributes", ()))
        if role_id == "RULER":
            n = dv.ruler_attribute_count(a.state)
            if len(attrs) != n or len(set(attrs)) != n or not set(attrs) <= set(ATTRIBUTES):
                raise a.refuse(f"the Ruler chooses exactly {n} distinct attribute(s) at Size {dv.size(a.state)},"
                               f" got {list(attrs)}", "base §2.4")
        elif role_id == "SPYMASTER":
            if len(attrs) != 1 or attrs[0] not in ATTRIBUTES:
                raise a.refuse(f"the Spymaster chooses one attribute, got {list(attrs)}", "base §2.4")
        elif attrs and attrs != rl.attributes:
            raise a.refuse(f"{role_id} always affects {', '.join(rl.attributes)}", "base §2.4")
        co = bool(x.get("co_ruler", False))
        if co and (role_id != "RULER" or len(a.state.leaders.get("RULER", ())) >= 2):
            raise a.refuse("only the Ruler role takes a second (married) occupant", "base §2.4 co-rulers")
        ranks = _int(x.get("skill_ranks", 0), "skill_ranks", a.step)
        feat = bool(x.get("leadership_feat", False))
        if (ranks or feat) and not s.module_on("leadership_skills"):
            raise a.refuse("skill ranks for leaders need the leadership_skills module", "opt §2.12")
        a.add(ev.LeaderAssigned(role=role_id, name=str(x.get("name", "")), ability=ability,
                                modifier=_int(x.get("modifier", 0), "modifier", a.step), attributes=attrs,
                                present=bool(x.get("present", True)), co_ruler=co, skill_ranks=ranks,
                                leadership_feat=feat))
    for p in _list(ch, "presence", a.step):
        role, name = str(p.get("role", "")).upper(), str(p.get("name", ""))
        if not any(o.name == name for o in a.state.leaders.get(role, ())):
            raise InputError(f"[{a.step}] {name!r} does not hold {role}")
        days = p.get("days")
        if days is not None:
            days = _int(days, "days", a.step)
            present = days >= int(s.opt("leader_min_days_present"))  # base §2.4: at least a week of duty
        else:
            present = bool(p.get("present", True))
        a.add(ev.LeaderPresenceRecorded(role=role, name=name, present=present, days_present=days))
    for p in _list(ch, "skill_ranks", a.step):
        if not s.module_on("leadership_skills"):
            raise a.refuse("skill ranks for leaders need the leadership_skills module", "opt §2.12")
        role, name = str(p.get("role", "")).upper(), str(p.get("name", ""))
        if not any(o.name == name for o in a.state.leaders.get(role, ())):
            raise InputError(f"[{a.step}] {name!r} does not hold {role}")
        a.add(ev.LeaderSkillRanksRecorded(role=role, name=name, ranks=_int(p.get("ranks", 0), "ranks", a.step),
                                          leadership_feat=bool(p.get("leadership_feat", False))))


def claim(a: Acc, hid: str, limit: int) -> None:
    rule = "base §4.3 I2"
    h = _hex(a, hid, rule)
    if h.claimed:
        raise a.refuse(f"hex {hid} is already part of the kingdom", rule)
    if not (h.explored and h.cleared):
        raise a.refuse(f"hex {hid} must be explored and cleared before it is claimed", rule)
    if dv.size(a.state) > 0 and not dv.adjacent_to_kingdom(a.state, h):
        raise a.refuse(f"hex {hid} is not adjacent to the kingdom (annexing a non-adjacent hex)", rule)
    _need_ruler(a, "claiming a hex")
    _limit(a, a.state.counters.claims, limit, "hex claims", "base §6.5")
    _pay(a, 1, f"claiming hex {hid}")
    town = next((f.split(":", 1)[1] for f in h.features if f.startswith("TOWN:")), None)
    if h.city and a.state.cities[h.city].detached:  # a lost city must be annexed again (base §4.6)
        town = a.state.cities[h.city].name
    dc = control_dc(a.state)  # computed before the claim (base §4.3 I2)
    check = kcheck(a.state, "STABILITY", a.d20(f"town_{hid}"), dc) if town else None
    a.add(ev.HexClaimed(hex=hid, cost_bp=1))
    if town and check is not None:
        dice: tuple[int, ...] = () if check.success else a.roll(f"town_{hid}_unrest", "2d4")
        a.add(ev.TownAnnexationCheckRolled(hex=hid, town=town, check=check, unrest_dice=dice,
                                           unrest_delta=sum(dice)))
        if h.city is None:
            cid = a.new_id("C")
            a.add(ev.CityFounded(city=cid, name=town, hex=hid, capital=not a.state.cities))
            did = a.new_id("D")
            a.add(ev.DistrictPreparationStarted(city=cid, district=did, hex=hid, terrain=h.terrain, cost_bp=0,
                                                months=0, ready_on_turn=a.state.turn))
            district_ready(a, did, {})


def milestones(a: Acc, choice: str) -> None:
    """Fame or Infamy +1 when Size first reaches 11, 26, 51, 101, 201 (opt §2.9)."""
    if not a.state.module_on("fame_infamy"):
        return
    if choice not in ("fame", "infamy"):
        raise InputError(f"[{a.step}] milestone_choice must be fame or infamy")
    for th in (11, 26, 51, 101, 201):
        if dv.size(a.state) >= th and th not in a.state.milestones:
            a.add(ev.SizeMilestoneRenownChosen(threshold=th, choice=choice))


def district_ready(a: Acc, did: str, borders: dict[str, str]) -> None:
    b = {k: str(borders.get(k, "LAND")).upper() for k in SIDES}
    if any(v not in ("LAND", "WATER") for v in b.values()):
        raise InputError(f"[{a.step}] district borders are LAND or WATER, got {borders!r}")
    a.add(ev.DistrictReady(district=did, borders=b))
    dist = a.state.districts[did]
    city = a.state.cities[dist.city]
    if len(city.districts) == 1:  # a BUILDING feature of the hex comes in free (base §3.1 F5)
        h = a.state.hexes[city.hex]
        for f in h.features:
            if f.startswith("BUILDING:"):
                t = a.state.catalog.building(f.split(":", 1)[1])
                lots = place(a, dist.id, t.lots, None, "base §3.1 F5")
                a.add(ev.BuildingConstructed(building=a.new_id("B"), city=city.id, district=did, building_type=t.name,
                                             lots=lots, base_cost_bp=t.cost, cost_bp=0, unrest_delta=0, free=True))


def district_cost(s: Pf1State, terrain: str) -> tuple[int, int]:
    t = s.catalog.terrains[terrain]
    cost = int(s.opt("district_prep_mountains_bp")) if terrain == "MOUNTAINS" else t.district_cost
    return cost, t.district_months


def prepare_district(a: Acc, d: Any, limit: int) -> None:
    rule = "base §4.3 I5"
    if not isinstance(d, dict) or "hex" not in d:
        raise InputError(f"[{a.step}] a district is {{hex, city?: name of a new city, borders?}}; got {d!r}")
    h = _hex(a, d["hex"], rule)
    _need_ruler(a, "preparing a district")
    if not h.claimed:
        raise a.refuse(f"hex {h.id} is not part of the kingdom", rule)
    if h.improvement:
        raise a.refuse(f"hex {h.id} holds a {h.improvement.lower()}; a city cannot share it", rule)
    _limit(a, a.state.counters.districts, limit, "new cities/districts", "base §6.5")
    cost, months = district_cost(a.state, h.terrain)
    _pay(a, cost, f"preparing a district on {h.terrain.lower()}")
    if h.city is None:
        cid = a.new_id("C")
        a.add(ev.CityFounded(city=cid, name=str(d.get("city") or f"City {cid}"), hex=h.id,
                             capital=not a.state.cities))
    else:
        cid = h.city
        city = a.state.cities[cid]
        for did in city.districts:
            used = occupied(a.state, did)
            if len(used) < 36:
                raise a.refuse(f"{city.name} may add a district only when its districts are full "
                               f"({did} uses {len(used)} of 36 lots)", rule)
    did = a.new_id("D")
    a.add(ev.DistrictPreparationStarted(city=cid, district=did, hex=h.id, terrain=h.terrain, cost_bp=cost,
                                        months=months, ready_on_turn=a.state.turn + months))
    if months == 0:
        district_ready(a, did, d.get("borders") or {})


def occupied(s: Pf1State, did: str) -> set[int]:
    return {lot for b in s.buildings.values() if b.district == did for lot in b.lots}


def _adj(i: int, j: int) -> bool:
    ri, ci, rj, cj = i // 6, i % 6, j // 6, j % 6
    return abs(ri - rj) + abs(ci - cj) == 1


def shapes(n: int) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]]
    """Candidate lot sets in a 6×6 district for an n-lot building (contiguous; 4 = a 2×2 block)."""
    if n == 1:
        return [(i,) for i in range(36)]
    if n == 2:
        out = [(i, i + 1) for i in range(36) if i % 6 < 5]
        out += [(i, i + 6) for i in range(30)]
        return out
    return [(i, i + 1, i + 6, i + 7) for i in range(30) if i % 6 < 5]


def valid_shape(lots: tuple[int, ...]) -> bool:
    return tuple(sorted(lots)) in {tuple(sorted(x)) for x in shapes(len(lots))}


def free_houses(s: Pf1State, did: str, lots: tuple[int, ...]) -> list[str]:
    out = []
    for b in s.buildings.values():
        if (b.district == did and s.catalog.building(b.type).house and b.supports is None
                and any(_adj(x, y) for x in b.lots for y in lots)):
            out.append(b.id)
    return sorted(out)


def place(a: Acc, did: str, n: int, lots: Any, rule: str, houses: int = 0) -> tuple[int, ...]:
    """Lots for an ``n``-lot building in district ``did`` (given or the first that fits)."""
    used = occupied(a.state, did)
    if lots is not None:
        want = tuple(int(x) for x in lots)
        if len(want) != n or not all(0 <= x < 36 for x in want) or not valid_shape(want):
            raise a.refuse(f"a {n}-lot building needs {n} contiguous lots (0..35), got {list(want)}", "base §2.8")
        if set(want) & used:
            raise a.refuse(f"lots {sorted(set(want) & used)} of {did} are already built on", "base §2.8")
        if houses and len(free_houses(a.state, did, want)) < houses:
            raise a.refuse(f"lots {list(want)} are not adjacent to {houses} free house(s)", "base §2.8 adjacency")
        return want
    if 36 - len(used) < n:
        raise a.refuse(f"district {did} is full ({len(used)} of 36 lots used)", "base §2.8 (36 lots per district)")
    for cand in shapes(n):
        if not set(cand) & used and (not houses or len(free_houses(a.state, did, cand)) >= houses):
            return cand
    if houses:
        raise a.refuse(f"no free lots in {did} next to {houses} house(s) not already supporting a building",
                       "base §2.8 adjacency")
    raise a.refuse(f"district {did} has no room for a {n}-lot building", "base §2.8")


def construct(a: Acc, b: Any, limit: int) -> None:
    rule = "base §4.3 I6"
    s = a.state
    if isinstance(b, str):
        b = {"type": b}
    if not isinstance(b, dict) or "type" not in b:
        raise InputError(f"[{a.step}] a building is {{type, city?, district?, lots?, deity?, ...}}; got {b!r}")
    t = s.catalog.building(str(b["type"]))
    city = _city(a, b.get("city"))
    _limit(a, s.counters.buildings, limit, "buildings", "base §6.5")
    if t.limit_per_city and sum(1 for x in s.buildings.values()
                                if x.city == city.id and x.type == t.name) >= t.limit_per_city:
        raise a.refuse(f"{city.name} already has {t.limit_per_city} {t.name}", rule)
    ready = [d for d in city.districts if s.districts[d].status == "READY"]
    if not ready:
        raise a.refuse(f"{city.name} has no READY district to build in", rule)
    did = b.get("district")
    border = None
    if did is not None and did not in ready:
        raise a.refuse(f"district {did!r} of {city.name} is not READY (READY: {', '.join(ready)})", rule)
    lots: tuple[int, ...] = ()
    supported_by: tuple[str, ...] = ()
    if t.border:
        did = did or ready[0]
        border = str(b.get("border", "N")).upper()
        dist = s.districts[did]
        if dist.borders.get(border) != "LAND" or border in dist.walls:
            raise a.refuse(f"a {t.name} goes on a free LAND border; {did} {border} is "
                           f"{dist.borders.get(border)}{' and walled' if border in dist.walls else ''}", "base §2.8")
    else:
        if did is None:
            did = next((d for d in ready if 36 - len(occupied(s, d)) >= t.lots), None)
            if did is None:
                raise a.refuse(f"every district of {city.name} is full", "base §2.8 (36 lots per district)")
        lots = place(a, did, t.lots, b.get("lots"), rule, t.adjacent_houses)
        if t.adjacent_houses:
            supported_by = tuple(free_houses(s, did, lots)[: t.adjacent_houses])
    religion_ok(a, t, b)
    discounts: list[ev.Discount] = []
    cost = t.cost
    halver = next((s.catalog.building(x.type).name for x in dv.live_buildings(s) if x.city == city.id
                   and t.name in s.catalog.building(x.type).halves), None)
    if halver and not (s.opt("discount_first_only") and t.name in city.discounts_used):
        discounts.append(ev.Discount(kind="HALVED_BY", source=halver, amount_bp=cost - cost // 2))
    elif f"RUINS:{t.name}" in s.hexes[city.hex].features:
        discounts.append(ev.Discount(kind="RUINS", source=city.hex, amount_bp=cost - cost // 2))
    elif f"{did}|{t.name}" in s.rubble:
        discounts.append(ev.Discount(kind="REBUILD", source=str(did), amount_bp=cost - cost // 2))
    cost -= sum(d.amount_bp for d in discounts)
    if b.get("magical_assistance"):
        amt = min(2, cost)
        discounts.append(ev.Discount(kind="MAGICAL_ASSISTANCE", source="magic", amount_bp=amt))
        cost -= amt
    _pay(a, cost, f"building a {t.name}")
    supports = b.get("supports")
    if supports is not None:
        dep = s.buildings.get(supports)
        if dep is None or not t.house or not any(_adj(x, y) for x in lots for y in dep.lots):
            raise a.refuse(f"supports {supports!r}: a house must be built next to the building it supports",
                           "opt §2.1 step 5")
    a.add(ev.BuildingConstructed(building=a.new_id("B"), city=city.id, district=did, building_type=t.name, lots=lots,
                                 border=border, base_cost_bp=t.cost, discounts=tuple(discounts), cost_bp=cost,
                                 unrest_delta=t.unrest, deity=b.get("deity"), supported_by=supported_by,
                                 supports=supports))
    if b.get("deity_alignment") and s.module_on("holy_sites") and t.religion:
        dedicate(a, {"building": f"B{a.serials['B']}", **{k: v for k, v in b.items() if k != "type"}})


def religion_ok(a: Acc, t: Any, b: dict[str, Any]) -> None:
    """Temple: no opposed component; Cathedral: within one step (base §2.6)."""
    if t.religion not in ("temple", "cathedral"):
        return
    al = b.get("deity_alignment")
    if al is None:
        raise InputError(f"[{a.step}] a {t.name} needs its deity's alignment (deity_alignment)")
    if al not in ALIGNMENTS:
        raise InputError(f"[{a.step}] deity_alignment must be one of {', '.join(ALIGNMENTS)}")
    k = dv.axes(a.state.alignment)
    d = dv.axes(al)
    if t.religion == "temple":
        if (k[0] != 1 and d[0] != 1 and k[0] != d[0]) or (k[1] != 1 and d[1] != 1 and k[1] != d[1]):
            raise a.refuse(f"a Temple's deity ({al}) may not oppose the kingdom's alignment ({a.state.alignment})",
                           "base §2.6")
    elif abs(k[0] - d[0]) + abs(k[1] - d[1]) > 1:
        raise a.refuse(f"a Cathedral's deity ({al}) must be within one step of {a.state.alignment}", "base §2.6")


def dedicate(a: Acc, d: Any) -> None:
    """Holy-site dedication of a Shrine, Temple or Cathedral (opt §2.2)."""
    if not a.state.module_on("holy_sites"):
        raise a.refuse("dedications need the holy_sites module", "opt §2.2")
    b = a.state.buildings.get(str(d.get("building"))) if isinstance(d, dict) else None
    if b is None:
        raise InputError(f"[{a.step}] a dedication names a built building: {d!r}")
    t = a.state.catalog.building(b.type)
    if not t.religion:
        raise a.refuse(f"{t.name} is not a Shrine, Temple or Cathedral", "opt §2.2")
    al = str(d.get("deity_alignment", "N"))
    if al not in ALIGNMENTS:
        raise InputError(f"[{a.step}] deity_alignment must be one of {', '.join(ALIGNMENTS)}")
    mode = d.get("bonus_mode", "alignment")
    shrine_attr = d.get("shrine_attribute")
    portfolio = {str(k).upper(): int(v) for k, v in dict(d.get("portfolio", {})).items()}
    cap = {"shrine": 1, "temple": 4, "cathedral": 8}[t.religion]
    if mode == "alignment" and t.religion == "shrine":
        allowed = {dv.COMPONENT_ATTR[c] for c in dv.alignment_components(al)}
        shrine_attr = shrine_attr or sorted(allowed)[0]
        if shrine_attr not in allowed:
            raise a.refuse(f"a {al} Shrine may raise {' or '.join(sorted(allowed))}, not {shrine_attr}", "opt §2.2")
    if mode == "portfolio" and (any(v < 0 for v in portfolio.values()) or sum(portfolio.values()) > cap
                                or not set(portfolio) <= set(ATTRIBUTES)):
        raise a.refuse(f"portfolio bonuses must be ≥ 0 and sum to at most {cap} for a {t.name}", "opt §2.2")
    a.add(ev.ReligiousBuildingDedicated(building=b.id, deity=str(d.get("deity", "unnamed deity")),
                                        deity_alignment=al, bonus_mode=mode, shrine_attribute=shrine_attr,
                                        portfolio=portfolio))


def road(a: Acc, hid: str, limit: int) -> None:
    rule = "base §4.3 I7"
    h = _hex(a, hid, rule)
    _need_ruler(a, "building a road")
    if not h.claimed or h.road:
        raise a.refuse(f"hex {hid} is {'not claimed' if not h.claimed else 'already roaded'}", rule)
    _limit(a, a.state.counters.terrain, limit, "terrain improvements (roads + hex improvements)", "base §6.5")
    cost = int(a.state.opt("road_cost_hills_bp")) if h.terrain == "HILLS" else a.state.catalog.terrains[
        h.terrain].road_cost
    doubled = h.river and "BRIDGE" not in h.features
    cost *= 2 if doubled else 1
    _pay(a, cost, f"a road in {hid}")
    a.add(ev.RoadBuilt(hex=hid, cost_bp=cost, river_doubled=doubled))


def improve(a: Acc, hid: str, kind: str, limit: int) -> None:
    rule = "base §4.3 I8"
    h = _hex(a, hid, rule)
    imp = a.state.catalog.improvements.get(kind)
    if imp is None:
        raise InputError(f"[{a.step}] unknown improvement {kind!r}; known: {', '.join(a.state.catalog.improvements)}")
    if not h.claimed or h.city or h.improvement:
        raise a.refuse(f"hex {hid} must be claimed, without a city and without another improvement", rule)
    if a.state.opt("improvements_require_road") and not (h.road or "ROAD" in h.features):
        raise a.refuse(f"hex {hid} needs a road before a {kind.lower()}", rule)
    if h.terrain not in imp.terrains:
        raise a.refuse(f"a {kind.lower()} goes on {', '.join(imp.terrains).lower()}, not {h.terrain.lower()}", rule)
    if imp.needs_ruler:
        _need_ruler(a, f"creating a {kind.lower()}")
    _limit(a, a.state.counters.terrain, limit, "terrain improvements (roads + hex improvements)", "base §6.5")
    cost = imp.cost
    if kind == "FARM":
        cost = a.state.catalog.terrains[h.terrain].farm_cost or 0
    if set(imp.half_cost_features) & set(h.features):
        cost //= 2
    _pay(a, cost, f"a {kind.lower()} in {hid}")
    a.add(ev.HexImprovementBuilt(hex=hid, kind=kind, cost_bp=cost, unrest_delta=imp.unrest))


def edicts(a: Acc, ch: Mapping[str, Any]) -> None:
    s = a.state
    cur = s.edicts
    promo = str(ch.get("promotion", cur.promotion)).upper()
    tax = str(ch.get("taxation", cur.taxation)).upper()
    fest = str(ch.get("festivals", cur.festivals))
    for val, table, what in ((promo, s.catalog.promotion, "promotion"), (tax, s.catalog.taxation, "taxation"),
                             (fest, s.catalog.festivals, "festivals")):
        if val not in table:
            raise InputError(f"[{a.step}] {what} must be one of {', '.join(table)}, got {val!r}")
    forced = False
    if promo != "NONE" and not dv.role_effective(s, "GRAND_DIPLOMAT"):
        if "promotion" in ch and ch["promotion"] != cur.promotion:
            raise a.refuse("no promotion edict while the Grand Diplomat is vacant", "base §2.9")
        promo, forced = "NONE", True
    if (promo, tax, fest) != (cur.promotion, cur.taxation, cur.festivals):
        a.add(ev.EdictsSet(promotion=promo, taxation=tax, festivals=fest, forced=forced))


# ------------------------------------------------------------------ income


def decide_income(s: Pf1State, ch: Mapping[str, Any], a: Acc) -> None:
    _known(ch, {"deposit_gp", "withdrawals", "sales", "purchases"}, a.step)
    why = skip_reason(s)
    if why:
        _not_anarchy(a, ch)
        a.add(ev.PhaseSkipped(phase="income", reason=why))
        return
    gp = _int(ch.get("deposit_gp", 0) or 0, "deposit_gp", a.step)
    if gp < 0:
        raise InputError(f"[{a.step}] deposit_gp must be ≥ 0")
    if gp:
        a.add(ev.DepositMade(gp_offered=gp, bp_gained=gp // 4000, gp_returned=gp % 4000))
    ws = _list(ch, "withdrawals", a.step)
    if ws and s.opt("withdrawal_mode") == "UC" and len(ws) > 1:
        raise a.refuse("UC withdrawals: once per turn", "base §4.4 N2 (withdrawal_mode UC)")
    for i, w in enumerate(ws, 1):
        bp = _int(w, "withdrawal", a.step)
        if bp < 1 or bp > a.state.treasury:
            raise a.refuse(f"withdraw between 1 and {a.state.treasury} BP, got {bp}", "base §4.4 N2")
        if s.opt("withdrawal_mode") == "UC":
            a.add(ev.WithdrawalMade(index=i, bp=bp, gp_paid=2000 * bp, unrest_delta=bp))
            continue
        a.add(ev.WithdrawalMade(index=i, bp=bp, gp_paid=2000 * bp, unrest_delta=1))
        c = kcheck(a.state, "LOYALTY", a.d20(f"withdrawal_{i}"), control_dc(a.state) + bp)
        a.add(ev.WithdrawalLoyaltyCheckRolled(index=i, check=c, unrest_delta=0 if c.success else bp))
    sales = _list(ch, "sales", a.step)
    if len(sales) > dv.ready_districts(a.state):
        raise a.refuse(f"one item sale per READY district: {len(sales)} > {dv.ready_districts(a.state)}",
                       "base §4.4 N3")
    bp_table = dict(zip(("minor", "medium", "major"),
                        (int(x) for x in str(s.opt("item_sale_bp")).split("/")), strict=True))
    for i, it in enumerate(sales, 1):
        cat = str(it.get("category", "minor")).lower()
        val = _int(it.get("value_gp", 0), "value_gp", a.step)
        if cat not in bp_table:
            raise InputError(f"[{a.step}] item category is minor, medium or major, got {cat!r}")
        if s.opt("item_sale_mode") == "rrr" and val < int(s.opt("item_sale_min_value_gp")):
            raise a.refuse(f"only items worth ≥ {s.opt('item_sale_min_value_gp')} gp are sold, not {val} gp",
                           "base §4.4 N3")
        src = "SLOT" if it.get("building") else "PC"
        if src == "SLOT":
            bl = a.state.buildings.get(it["building"])
            slot = it.get("slot", 0)
            if bl is None or slot >= len(bl.slots) or bl.slots[slot].item is None:
                raise a.refuse(f"no item in slot {slot} of {it.get('building')!r}", "base §4.4 N3")
        if s.opt("item_sale_mode") == "uc":
            # UC: no check; half the price in BP; the item must be within the settlement's base value
            city = _city(a, it.get("city") or (a.state.buildings[it["building"]].city if src == "SLOT" else None))
            if val > dv.base_value(a.state, city):
                raise a.refuse(f"{city.name}'s base value is {dv.base_value(a.state, city)} gp; a {val} gp item "
                               "cannot be sold there", "base §6.4 (item_sale_mode uc)")
            a.add(ev.ItemSaleAttempted(item=str(it.get("item", "item")), value_gp=val, category=cat,
                                       source=src, building=it.get("building"),
                                       slot=it.get("slot") if src == "SLOT" else None, check=None,
                                       bp_gained=val // 2 // 4000))
            continue
        dc = {"minor": 20, "medium": 35, "major": 50}[cat]
        c = kcheck(a.state, "ECONOMY", a.d20(f"sale_{i}"), dc)
        a.add(ev.ItemSaleAttempted(item=str(it.get("item", "item")), value_gp=val, category=cat,
                                   source=src, building=it.get("building"),
                                   slot=it.get("slot") if src == "SLOT" else None,
                                   check=c, bp_gained=bp_table[cat] if c.success else 0))
    for p in _list(ch, "purchases", a.step):
        bl = a.state.buildings.get(p.get("building"))
        slot = int(p.get("slot", 0))
        if bl is None or slot >= len(bl.slots) or bl.slots[slot].item is None:
            raise InputError(f"[{a.step}] nothing to buy in {p!r}")
        a.add(ev.MagicItemPurchased(building=bl.id, slot=slot, price_gp=bl.slots[slot].price_gp))
    # N4 taxes
    if not dv.role_effective(a.state, "TREASURER"):
        a.add(ev.IncomeSkipped(reason="TREASURER_NOT_EFFECTIVE"))
        return
    die = a.d20("income")
    if s.opt("income_mode") == "uc":
        c = kcheck(a.state, "ECONOMY", die, 0)
        c = c.model_copy(update={"success": True, "margin": c.total})
        a.add(ev.IncomeCheckRolled(check=c, bp_gained=max(0, c.total) // 3))
        return
    c = kcheck(a.state, "ECONOMY", die, control_dc(a.state))
    a.add(ev.IncomeCheckRolled(check=c, bp_gained=max(0, c.total) // 5 if c.success else 0))


# ------------------------------------------------------------------ events


def decide_event(s: Pf1State, ch: Mapping[str, Any], a: Acc) -> None:
    _known(ch, {"event", "effects", "independence", "union", "expeditions", "stability_roll_union"}, a.step)
    why = skip_reason(s)
    if why:
        a.add(ev.PhaseSkipped(phase="event", reason=why))
        a.add(ev.TurnEnded(turn=s.turn))
        return
    choice = ch.get("event", "roll") or "roll"
    last = s.event_last_turn
    quiet = last is False or (last is None and s.opt("first_turn_counts_as_quiet"))
    chance = int(s.opt("event_chance_after_quiet_turn")) if quiet else int(s.opt("event_chance_base"))
    d100 = a.roll("chance", "1d100")[0]
    occurred = d100 <= chance
    if choice == "none":
        occurred = False
    a.add(ev.EventChanceRolled(d100=d100, chance=chance, occurred=occurred))
    effects = _list(ch, "effects", a.step)
    if occurred:
        if choice == "roll":
            roll = a.roll("table", "1d100")[0]
            t = s.catalog.event_for(roll)
            a.add(ev.KingdomEventDrawn(event=t.name, kind=t.kind, d100=roll, chosen_by="roll"))
        else:
            t = s.catalog.event_named(str(choice))
            a.add(ev.KingdomEventDrawn(event=t.name, kind=t.kind, chosen_by="gm"))
        for eff in (*[e.model_dump() for e in t.effects], *effects):
            apply_effect(a, t.name, eff)
    elif effects:
        raise a.refuse("event effects given but no event occurred this month", "base §4.5 E2")
    from kingdomlog.rulesets.pf1.modules import event_phase_modules

    event_phase_modules(a, ch)
    a.add(ev.EventPhaseClosed(occurred=occurred))
    a.add(ev.TurnEnded(turn=s.turn))


def apply_effect(a: Acc, name: str, eff: Any) -> None:
    if not isinstance(eff, dict) or eff.get("kind") not in ("ATTRIBUTE", "UNREST", "TREASURY", "FAME", "INFAMY"):
        raise InputError(f"[{a.step}] an effect is {{kind: ATTRIBUTE|UNREST|TREASURY|FAME|INFAMY, value, "
                         f"attribute?, turns?}}; got {eff!r}")
    if eff["kind"] in ("FAME", "INFAMY") and not a.state.module_on("fame_infamy"):
        return  # Fame/Infamy are 0 while the module is off (opt §1.1)
    turns = eff.get("turns")
    first = a.state.turn
    a.add(ev.EventEffectApplied(event=name, kind=eff["kind"], attribute=eff.get("attribute"),
                                value=int(eff.get("value", 0)),
                                first_turn=first if eff["kind"] == "ATTRIBUTE" else None,
                                last_turn=first + int(turns) - 1 if turns else None))
