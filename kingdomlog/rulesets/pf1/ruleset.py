"""The ``pf1-kingmaker`` ruleset object: options, phases, choices and the seam methods."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from typing import Any

from pydantic import ValidationError

from kingdomlog.core.errors import InputError
from kingdomlog.core.events import Draft, EventModel, RecordedEvent
from kingdomlog.core.ruleset import Breakdown, CampaignContext, Choice, Dice, OptionSpec, Phase, validate_options
from kingdomlog.rulesets.pf1 import catalog as cat
from kingdomlog.rulesets.pf1 import decide as dc
from kingdomlog.rulesets.pf1 import derive as dv
from kingdomlog.rulesets.pf1.events import EVENT_TYPES
from kingdomlog.rulesets.pf1.evolve import evolve as _evolve
from kingdomlog.rulesets.pf1.samples import sample_events, sample_plans
from kingdomlog.rulesets.pf1.state import ALIGNMENTS, MODULES, Pf1State

_O = OptionSpec
OPTIONS: tuple[OptionSpec, ...] = (
    _O("modules", "list", [], "optional Ultimate Campaign modules switched on (opt §1.1)", choices=MODULES),
    _O("starting_treasury_bp", "int", 50, "treasury at founding (base §2.12)"),
    _O("control_dc_includes_districts", "bool", False, "UC Control DC 20 + Size + districts (base §2.12)"),
    _O("stability_minor_failure_unrest", "int", 0, "Unrest when Stability fails by 0-4 (UC: 1)", minimum=0, maximum=1),
    _O("stability_major_failure_unrest", "choice", "2", "Unrest when Stability fails by 5+ (UC: 1d4)",
      choices=("2", "1d4")),
    _O("negative_attribute_unrest", "bool", False, "UC: +1 Unrest per negative attribute at Upkeep"),
    _O("ruler_thresholds", "choice", "seed", "Size for 2/3 Ruler attributes: seed 20/80, rrr 21/81, uc 26/101",
      choices=("seed", "rrr", "uc")),
    _O("leader_min_days_present", "int", 7, "days of duty a month for a leader to count as present, when the GM "
       "records days (base §2.4; seed introduction: 10)", minimum=0, maximum=31),
    _O("district_prep_mountains_bp", "int", 16, "district preparation on mountains (RRR/UC: 12)", minimum=0),
    _O("road_cost_hills_bp", "int", 1, "road cost in hills (UC: 3; proposed default)", minimum=0),
    _O("improvement_limits", "table", {}, "custom improvements-per-month table {rows: [...]} (base §6.5)"),
    _O("spending_below_zero_allowed", "bool", False, "purchases may take the treasury below 0 (base §4.0)"),
    _O("magic_slot_fill_mode", "choice", "ALL_VACANT", "magic item slot refill (base §4.2 U3)",
      choices=("ALL_VACANT", "UC_50_PERCENT_PER_DISTRICT")),
    _O("item_sale_bp", "choice", "2/8/15", "BP for selling a minor/medium/major item (S9 vs S1)",
      choices=("2/8/15", "2/6/12")),
    _O("item_sale_mode", "choice", "rrr", "item sales: rrr = Economy check DC 20/35/50; uc = no check, "
       "floor(price / 2 / 4000) BP, price ≤ the settlement's base value (base §6.4)", choices=("rrr", "uc")),
    _O("vacancy_table", "choice", "rrr", "vacancy penalties: rrr (base §6.3) or uc (General Loyalty -4; "
       "Warden Loyalty -2, Stability -2)", choices=("rrr", "uc")),
    _O("item_sale_min_value_gp", "int", 4000, "minimum item value for a sale (base §4.4 N3)", minimum=0),
    _O("income_mode", "choice", "rrr", "taxes: rrr = Economy vs Control DC, result/5; uc = no DC, result/3",
      choices=("rrr", "uc")),
    _O("withdrawal_mode", "choice", "RRR", "RRR: +1 Unrest and a Loyalty check; UC: +1 Unrest per BP",
      choices=("RRR", "UC")),
    _O("event_chance_base", "int", 25, "event chance (%) after a month with an event", minimum=0, maximum=100),
    _O("event_chance_after_quiet_turn", "int", 75, "event chance (%) after a quiet month", minimum=0, maximum=100),
    _O("first_turn_counts_as_quiet", "bool", True, "the first Event phase uses the quiet-month chance"),
    _O("discount_first_only", "bool", False, "UC: a halving building discounts only the first such building"),
    _O("improvements_require_road", "bool", True, "hex improvements need a road in the hex (seed)"),
    _O("base_danger_default", "int", 0, "settlement_sizes: base Danger of a new settlement (opt U4)"),
    _O("settlement_danger_per_district", "bool", True, "settlement_sizes: Danger +5 per district for large "
      "settlements (English, D6); false = seed table"),
    _O("secret_syndicate_productivity", "int", 1, "government_forms: Secret Syndicate Productivity (D5; seed -1)"),
    _O("government_scope", "choice", "per_settlement", "government_forms: modifiers per settlement or kingdom-wide",
      choices=("per_settlement", "kingdom_final")),
    _O("leadership_ranks_per_bonus", "int", 5, "leadership_skills: ranks per +1", minimum=1),
    _O("abandoned_cancel_if_replaced", "bool", True, "abandoned_buildings: cancel a shutdown if support returns"),
    _O("diplomatic_attitude_dc_step", "int", 5, "diplomatic_edicts: DC per attitude step worse than helpful"),
    _O("diplomatic_fame_skill_bonus", "bool", True, "diplomatic_edicts: +1 per 10 Fame/Infamy on edict checks"),
    _O("diplomatic_extreme_margin", "int", 5, "diplomatic_edicts: margin that shifts attitude in negotiations"),
    _O("diplomatic_attitude_shift_multi", "bool", True, "diplomatic_edicts: attitude shifts between checks"),
    _O("diplomatic_war_on_any_threat_failure", "bool", False, "diplomatic_edicts: war on any failed threat"),
    _O("diplomatic_multi_relationship_penalty", "choice", "flat", "diplomatic_edicts: later treaties -1 (flat) "
      "or -(k-1) (cumulative)", choices=("flat", "cumulative")),
    _O("exploration_cost_roll_mode", "choice", "per_month", "exploration_edicts: 1d4 per month or one 1d4 x months",
      choices=("per_month", "single_times_months")),
    _O("trade_lm_formula", "choice", "trl_minus_size", "trade_edicts: LM (seed, D1) or printed English",
      choices=("trl_minus_size", "size_minus_trl")),
    _O("trade_treasury_reading", "choice", "rm_once", "trade_edicts: RM once (A) or per 5 BP block (B), §3",
      choices=("rm_once", "rm_per_block")),
    _O("trade_travel_time_reading", "choice", "en_hexes_per_day", "trade_edicts: travel speeds (D2)",
      choices=("en_hexes_per_day", "seed_days_per_hex")),
    _O("trade_overland_days_per_hex", "float", 1.0, "trade_edicts: days per open hex without road (U2)"),
    _O("trade_coastline_weight", "float", 1.0, "trade_edicts: TRL weight of a coastline hex (U3)"),
    _O("trade_goods_buildings", "choice", "en", "trade_edicts: goods list with Shops (en, D3) or seed",
      choices=("en", "seed")),
    _O("trade_raw_materials_foundry", "choice", "gates_mines", "trade_edicts: Foundry gates Mines (D4) or is required",
      choices=("gates_mines", "required_for_route")),
    _O("trade_type_bonus_mode", "choice", "live", "trade_edicts: type bonus recomputed or fixed at arrival",
      choices=("live", "snapshot")),
    _O("trade_duration_turns", "int", 12, "trade_edicts: months a route lasts", minimum=1),
    _O("trade_waterfront_implies_pier", "bool", True, "trade_edicts: a Waterfront also allows rivers and coasts"),
    _O("days_per_turn", "int", 30, "days in a kingdom turn (opt U1)", minimum=1),
    _O("vassal_grant_rule", "choice", "up_to_quarter", "vassalage_edicts: grant up to or exactly 1/4 (D7)",
      choices=("up_to_quarter", "exactly_quarter")),
)

FOUNDING = Phase("founding", "Founding", "name, alignment, map, and module set-up (base §3.1)")
PHASES: tuple[Phase, ...] = (
    Phase("gm", "Month start & GM rulings", "turn start, map and exploration, GM adjustments"),
    Phase("upkeep", "Upkeep", "stability, consumption, slots, unrest (base §4.2)", ("stability", "stability_unrest")),
    Phase("improvement", "Improvement", "leaders, hexes, districts, buildings, roads, edicts (base §4.3)"),
    Phase("income", "Income", "deposits, withdrawals, sales, taxes (base §4.4)", ("income",)),
    Phase("event", "Event", "event chance, event, effects (base §4.5)", ("chance", "table")),
)


class Pf1Kingmaker:
    """Pathfinder 1e Kingmaker kingdom building with the Ultimate Campaign optional modules."""

    id = "pf1-kingmaker"
    name = "PF1 Kingmaker"
    aliases: tuple[str, ...] = ("pf1", "pathfinder 1e kingmaker", "ultimate-campaign", "pf1-uc")
    turn_unit = "month"
    chart_figures: tuple[str, ...] = (
        "treasury_bp", "unrest", "economy", "loyalty", "stability", "size", "control_dc", "population",
        "consumption", "fame", "infamy", "buildings",
    )
    """The summary columns the player view charts over turns, in order."""

    @property
    def options(self) -> Sequence[OptionSpec]:
        return OPTIONS

    @property
    def event_types(self) -> Sequence[type[EventModel]]:
        return EVENT_TYPES

    @property
    def phases(self) -> Sequence[Phase]:
        return PHASES

    def phases_for(self, state: Any, turn: int) -> Sequence[Phase]:
        return (FOUNDING,) if turn == 0 else PHASES

    def initial_state(self, context: CampaignContext) -> Pf1State:
        opts = validate_options(OPTIONS, dict(context.options), where="pf1 option")
        catalog = cat.homebrew_catalog(context.data or {})
        custom = opts["improvement_limits"]
        if custom:
            try:
                rows = [cat.LimitRow.model_validate(r) for r in custom.get("rows", [])]
            except (ValidationError, AttributeError) as exc:
                raise InputError(f"pf1 option 'improvement_limits': each row needs name, min_size, districts, "
                                 f"buildings, terrain, claims ({exc})") from None
            if not rows or rows[0].min_size != 0:
                raise InputError("pf1 option 'improvement_limits': rows must start at min_size 0 (base §6.5)")
        mods = tuple(m for m in MODULES if m in opts["modules"])
        return Pf1State(campaign=context.campaign, options=opts, catalog=catalog, modules=mods,
                        treasury=int(opts["starting_treasury_bp"]))

    def evolve(self, state: Any, event: RecordedEvent) -> Pf1State:
        return _evolve(state, event)

    def decide(self, state: Any, step: str, choices: Mapping[str, Any], dice: Dice) -> list[Draft]:
        fn = {"founding": dc.decide_founding, "gm": dc.decide_gm, "upkeep": dc.decide_upkeep,
              "improvement": dc.decide_improvement, "income": dc.decide_income, "event": dc.decide_event}.get(step)
        if fn is None:
            raise InputError(f"pf1 has no step {step!r}; steps: founding, {', '.join(p.id for p in PHASES)}")
        if not isinstance(choices, Mapping):
            raise InputError(f"[{step}] choices must be an object")
        acc = dc.Acc(state, step, dice)
        fn(state, choices, acc)
        return acc.drafts

    # ------------------------------------------------------------------ choices

    def choices(self, state: Any, step: str) -> Sequence[Choice]:
        s: Pf1State = state
        C = Choice
        if step == "founding":
            out = [C("name", "Kingdom name", "text", default="New Kingdom"),
                   C("alignment", "Alignment", "select", ALIGNMENTS, default="N"),
                   C("hexes", "Map hexes [{id, q, r, terrain, river?, features?, explored?, cleared?}]", "json",
                     default=[])]
            if s.module_on("government_forms"):
                out.append(C("government", "Form of government", "select", tuple(s.catalog.governments),
                             default="feudal_monarchy"))
            if s.module_on("fame_infamy"):
                out.append(C("starting_renown", "Ruler's choice: start with Fame 1 or Infamy 1", "select",
                             ("fame", "infamy"), default="fame"))
            if s.module_on("diplomatic_edicts") or s.module_on("trade_edicts") or s.module_on("vassalage_edicts"):
                out += [C("foreign_kingdoms", "Foreign kingdoms [{id, name, alignment, size, economy?, "
                          "is_sponsor?}]", "json", default=[]),
                        C("third_party", "Relations among foreign kingdoms [{a, b, level, enemy}]", "json", default=[])]
            if s.module_on("independence_unification"):
                out.append(C("lineage", "Born of a split or a union: {kind, campaigns, unrest_added}", "json",
                             default=None))
            return out
        if step == "gm":
            out = [C("map", "Map new hexes", "json", default=[]),
                   C("explore", "Hexes explored", "multiselect", tuple(h.id for h in s.hexes.values()
                                                                         if not h.explored), default=[]),
                   C("clear", "Hexes cleared", "multiselect", tuple(h.id for h in s.hexes.values() if not h.cleared),
                     default=[]),
                   C("adjustments", "GM adjustments [{field: treasury|unrest, delta, reason}]", "json", default=[]),
                   C("destroy_lots", "Lots destroyed [{district, lots}]", "json", default=[])]
            if s.anarchy:
                out.append(C("end_anarchy", "End anarchy {reason, unrest_after}", "json", default=None))
            if s.module_on("government_forms"):
                out.append(C("government", "Government (GM ruling)", "select", tuple(s.catalog.governments),
                             default=s.government))
            if s.module_on("fame_infamy"):
                out.append(C("renown", "Fame/Infamy change {fame, infamy, source}", "json", default={}))
            if s.module_on("diplomatic_edicts"):
                out += [C("foreign_kingdoms", "Register foreign kingdoms", "json", default=[]),
                        C("attitudes", "Attitude changes {kingdom: attitude}", "json", default={})]
            return out
        if step == "upkeep":
            out = [C("slot_items", "Items rolled for empty magic slots {building: [{item, price_gp}]}", "json",
                     default={})]
            claimed = tuple(h.id for h in dv.claimed_hexes(s))
            if claimed:
                out.append(C("lose_hex", "Hex lost if Unrest reaches 11", "select", claimed,
                             default=dc.default_lost_hex(s)))
            return out
        if step == "improvement":
            claimable = tuple(h.id for h in s.hexes.values() if h.explored and h.cleared and not h.claimed
                              and (dv.size(s) == 0 or dv.adjacent_to_kingdom(s, h)))
            claimed = tuple(h.id for h in dv.claimed_hexes(s))
            out = [
                C("leaders", "Assign leaders [{role, name, ability, modifier, attributes?, present?}]", "json",
                  default=[]),
                C("unassign", "Remove leaders [{role, name}]", "json", default=[]),
                C("presence", "Presence this month [{role, name, present or days}]", "json", default=[]),
                C("claim", "Claim hexes", "multiselect", claimable, default=[]),
                C("abandon", "Abandon hexes", "multiselect", claimed, default=[]),
                C("districts", "Prepare districts [{hex, city?}]", "json", default=[]),
                C("buildings", "Construct [{type, city?, district?, lots?, deity_alignment?}]", "json", default=[]),
                C("demolish", "Demolish", "multiselect", tuple(s.buildings), default=[]),
                C("roads", "Roads", "multiselect", tuple(h.id for h in dv.claimed_hexes(s) if not h.road),
                  default=[]),
                C("improvements", "Hex improvements {hex: FARM|FORT|MINE|SAWMILL}", "json", default={}),
                C("promotion", "Promotion edict", "select", tuple(s.catalog.promotion), default=s.edicts.promotion),
                C("taxation", "Taxation edict", "select", tuple(s.catalog.taxation), default=s.edicts.taxation),
                C("festivals", "Festivals per year", "select", tuple(s.catalog.festivals), default=s.edicts.festivals),
            ]
            if s.module_on("leadership_skills"):
                out.append(C("skill_ranks", "Leader skill ranks [{role, name, ranks}]", "json", default=[]))
            if any(s.module_on(m) for m in ("diplomatic_edicts", "exploration_edicts", "trade_edicts",
                                            "vassalage_edicts")):
                out.append(C("special_edict", "Special edict {kind, ...}", "json", default=None))
            if s.module_on("holy_sites"):
                out.append(C("dedications", "Dedications [{building, deity, deity_alignment, bonus_mode}]", "json",
                             default=[]))
            if s.module_on("fame_infamy"):
                out.append(C("milestone_choice", "Size milestone: Fame or Infamy", "select", ("fame", "infamy"),
                             default="fame"))
            if s.module_on("abandoned_buildings"):
                out.append(C("abandon_dependents", "GM: dependents of a demolished house shut down", "bool",
                             default=True))
            return out
        if step == "income":
            return [C("deposit_gp", "Deposit (gp)", "int", default=0, minimum=0),
                    C("withdrawals", "Withdrawals (BP each)", "json", default=[]),
                    C("sales", "Item sales [{item, value_gp, category, building?, slot?}]", "json", default=[]),
                    C("purchases", "PCs buy slot items [{building, slot}]", "json", default=[])]
        if step == "event":
            out = [C("event", "Event: roll, none, or the GM's choice", "select",
                     ("roll", "none", *(e.name for e in s.catalog.events)), default="roll"),
                   C("effects", "Effects [{kind, attribute?, value, turns?}]", "json", default=[])]
            if s.module_on("exploration_edicts"):
                out.append(C("expeditions", "Expedition reports {id: {cr?, stealth_modifier?, discoveries?}}",
                             "json", default={}))
            if s.module_on("independence_unification"):
                out += [C("independence", "Declare independence {daughters, non_structural_unrest, kept_by}",
                          "json", default=None),
                        C("union", "Form a union {members, new_campaign, non_structural_unrest}", "json",
                          default=None)]
            return out
        raise InputError(f"pf1 has no step {step!r}")

    # ------------------------------------------------------------------ views

    def redact(self, state: Any, viewer: str) -> Pf1State:
        """Players do not see the GM's figures for foreign kingdoms."""
        s: Pf1State = state
        if viewer == "gm":
            return s
        foreign = {k: v.model_copy(update={"economy": None, "stability": None}) for k, v in s.foreign.items()}
        return s.model_copy(update={"foreign": foreign})

    def summary(self, state: Any) -> dict[str, Any]:
        s: Pf1State = state
        attrs = dv.attributes(s)
        return {
            "name": s.name,
            "alignment": s.alignment,
            "treasury_bp": s.treasury,
            "unrest": s.unrest,
            "size": dv.size(s),
            "control_dc": int(dv.control_dc(s).total),
            "consumption": int(dv.consumption(s).total),
            "economy": attrs["ECONOMY"],
            "loyalty": attrs["LOYALTY"],
            "stability": attrs["STABILITY"],
            "population": int(dv.population(s).total),
            "cities": len(dv.live_cities(s)),
            "districts": dv.ready_districts(s),
            "buildings": len(dv.live_buildings(s)),
            "farms": dv.farms(s),
            "road_hexes": sum(1 for h in dv.claimed_hexes(s) if h.road),
            "anarchy": s.anarchy,
            "ruler_title": dv.ruler_title(s),
            "fame": dv.fame_value(s),
            "infamy": dv.infamy_value(s),
            "government": s.government,
            "trade_routes": sum(1 for r in s.trade_routes if r.status == "established"),
            "embassies": sum(1 for r in s.relations.values() if r.level != "none"),
            "modules": ",".join(s.modules),
        }

    def explain(self, state: Any) -> list[Breakdown]:
        s: Pf1State = state
        out = [dv.control_dc(s), dv.consumption(s), *(dv.attribute(s, a) for a in cat.ATTRIBUTES), dv.population(s)]
        lim = dv.limits_row(s)
        out.append(Breakdown("Limits per month", lim.buildings, note=f"Size row {lim.name}: claims {lim.claims}, "
                             f"districts {lim.districts}, buildings {lim.buildings}, terrain {lim.terrain}"))
        for c in dv.live_cities(s):
            slots = [sl for b in dv.live_buildings(s) if b.city == c.id for sl in b.slots]
            filled = sum(1 for sl in slots if sl.item)
            out.append(Breakdown(f"{c.name} base value (gp)", dv.base_value(s, c),
                                 note=f"200 + building increments, max 16,000 (base §2.2); defense "
                                      f"{dv.defense(s, c)}; magic slots {filled}/{len(slots)} filled"))
            if s.module_on("settlement_sizes") or s.module_on("government_forms") \
                    or s.module_on("expanded_settlement_modifiers"):
                mods = dv.effective_settlement(s, c)
                cat_, size_mod, danger = dv.settlement_size(s, c)
                out.append(Breakdown(f"{c.name} settlement modifiers", size_mod,
                                     note=f"{cat_}, Danger {danger}; " + ", ".join(f"{k} {v:+d}"
                                                                                  for k, v in mods.items())))
        if s.module_on("fame_infamy"):
            out += [dv.fame(s), dv.infamy(s)]
        if s.module_on("expanded_settlement_modifiers"):
            out += list(dv.kingdom_modifiers(s).values())
        return out

    def render(self, state: Any) -> str:
        s: Pf1State = state
        x = self.summary(s)
        extra = f" Fame{x['fame']} Inf{x['infamy']}" if s.module_on("fame_infamy") else ""
        return (f"{s.name or '(unfounded)'} T{s.turn} BP{x['treasury_bp']} U{x['unrest']} Sz{x['size']} "
                f"DC{x['control_dc']} Con{x['consumption']} E{x['economy']} L{x['loyalty']} S{x['stability']} "
                f"Pop{x['population']}{' ANARCHY' if s.anarchy else ''}{extra}")

    def sql_views(self) -> Mapping[str, str]:
        text = resources.files("kingdomlog.rulesets.pf1").joinpath("pf1_turns.sql").read_text(encoding="utf-8")
        return {"pf1_turns": text.strip().rstrip(";")}

    def sample_events(self) -> list[Draft]:
        return sample_events()

    def sample_plans(self) -> list[dict[str, Any]]:
        return sample_plans()

    def data_tables(self) -> Mapping[str, Callable[[], Any]]:
        return {
            "buildings": cat.load_buildings,
            "terrain": cat.load_terrains,
            "improvements": cat.load_improvements,
            "leaders": cat.load_roles,
            "edicts": cat.load_edicts,
            "limits": cat.load_limits,
            "events": cat.load_events,
            "government": cat.load_governments,
        }


RULESET = Pf1Kingmaker()
