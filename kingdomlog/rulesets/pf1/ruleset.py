"""The ``pf1-kingmaker`` ruleset object: options, steps, vocabularies and the seam hooks."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import ValidationError

from kingdomlog.core.choices import LIMIT, FieldSpec, Option
from kingdomlog.core.errors import InputError
from kingdomlog.core.events import Draft, EventModel, RecordedEvent
from kingdomlog.core.foreign import ForeignFormat
from kingdomlog.core.ruleset import Breakdown, CampaignContext, LazyFold, OptionSpec, Seat, Step, validate_options
from kingdomlog.core.viewers import Viewer
from kingdomlog.core.working import CopyOnWriteRuleset
from kingdomlog.rulesets.pf1 import derive as dv
from kingdomlog.rulesets.pf1 import tables as tb
from kingdomlog.rulesets.pf1.state import MODULE_WORDS, MODULES, Pf1State, hex_words
from kingdomlog.rulesets.pf1.tables import ATTRIBUTES

if TYPE_CHECKING:
    from kingdomlog.core.board import Board
    from kingdomlog.dice.checks import CheckSpec
    from kingdomlog.dice.roller import Roll

# The steps, their typed choices and vocabularies, the chronicle, the map and the samples are imported where they
# are used: `kingdomlog state` only folds and prints, and should import no more than that needs. The payload classes
# (`events`, ~100 models), the fold over them and the audit are imported at the first event decoded or folded
# (core.ruleset's type loader asks `event_types`): a warm `state` reads a snapshot and decodes no pf1 event.

_FOLD = LazyFold[Pf1State]("kingdomlog.rulesets.pf1.evolve")


_O = OptionSpec
OPTIONS: tuple[OptionSpec, ...] = (
    _O("modules", "list", [], "optional Ultimate Campaign modules switched on (opt §1.1)", choices=MODULES,
       said=tuple(MODULE_WORDS.items())),
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
    _O("item_sale_min_value_gp", "int", 4000, "minimum item value for a sale (base §4.4 N3)", minimum=0,
       maximum=4_000 * LIMIT),
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
    _O("building_edition", "choice", "rrr", "buildings: rrr = base §6.10 entries plus the Ultimate Campaign buildings "
       "they lack; uc = the Ultimate Campaign numbers (settlement lines, 2-lot Temples) for every building",
       choices=tb.EDITIONS),
    _O("event_table", "choice", "rrr", "kingdom events: rrr = the 17-event table (effects GM-entered, base §6.11); "
       "uc = the Ultimate Campaign tables with their effects as data (a month may choose its table)",
       choices=("rrr", "uc")),
    _O("uc_event_effect_duration", "choice", "lasting", "uc events: an attribute or settlement change with no "
       "printed duration lasts (as printed) or ends at the next Event phase (a GM ruling)",
       choices=("lasting", "until_next_event")),
    _O("improvement_edition", "choice", "seed", "terrain improvements: seed = base §6.8 (farms, third-party forts "
       "and sawmills, the proposed mine) plus the UC aqueduct, canal, fishery, highway, quarry and watchtower; uc = "
       "the Ultimate Campaign numbers for farms, forts, mines and sawmills too (sharing hexes, BP per turn), and "
       "river hexes count like roads (Economy +1 per 4, Stability +1 per 8)", choices=tb.IMPROVEMENT_EDITIONS),
    _O("leadership_roles", "choice", "rrr", "leadership roles: rrr = the 11 roles of base §2.4; uc = the Consort "
       "and the Heir added and the Royal Enforcer in place of the Royal Assassin (base §6.13)",
       choices=("rrr", "uc")),
    _O("anarchy_mode", "choice", "FROZEN", "anarchy (Unrest 20, base §4.7): FROZEN = no phase runs until the GM "
       "ends it (proposed default); SEED_ZERO_ATTRIBUTES = Upkeep and the Event phase run with effective attributes "
       "0 (seed); UC_RESULTS_ZERO = they run and every kingdom check result is 0 (UC); none lets the kingdom act",
       choices=("FROZEN", "SEED_ZERO_ATTRIBUTES", "UC_RESULTS_ZERO")),
    _O("army_weeks_per_turn", "int", 4, "mass combat: weeks of army Consumption in a month (UC gives it per week, "
       "a month is 4-5 weeks: a GM-set value)", minimum=1, maximum=5),
    _O("first_house_free", "bool", False, "UC: the first House, Mansion, Noble Villa or Tenement of a month does not "
       "count against the building limit (base §6.5 'UC extras not adopted by default')"),
)
EDITION_WORDS = {"rrr": "Rivers Run Red", "RRR": "Rivers Run Red", "uc": "Ultimate Campaign",
                 "UC": "Ultimate Campaign", "seed": "the seed's", "en": "the English text's"}
"""The sources an option's choice names (spec: RRR, the *Rivers Run Red* rules; UC, *Ultimate Campaign*), as a
page of the campaign's options says them ("Event table: Ultimate Campaign"; it read "event table uc")."""
OPTIONS = tuple(dataclasses.replace(o, said=tuple((c, EDITION_WORDS[c]) for c in o.choices if c in EDITION_WORDS))
                if any(c in EDITION_WORDS for c in o.choices) else o for o in OPTIONS)


_HEX_IN = re.compile(r"\bhex (h\d+)\b")
"""A hex named by its id in a text logged before it was said in words ("the town on hex h1")."""


class Pf1Kingmaker(CopyOnWriteRuleset):
    """Pathfinder 1e Kingmaker kingdom building with the Ultimate Campaign optional modules (``modules``)."""

    id = "pf1-kingmaker"
    name = "PF1 Kingmaker"
    aliases = ("pf1", "pathfinder 1e kingmaker", "ultimate-campaign", "pf1-uc")
    turn_unit = "month"
    chart_figures = (
        "treasury_bp", "unrest", "economy", "loyalty", "stability", "size", "control_dc", "population",
        "consumption", "fame", "infamy", "buildings",
    )
    better_figures = tb.BETTER
    panel_columns: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "cities": ("hex", "capital"), "districts": ("status", "hex"), "buildings": ("lots", "occupancy"),
        "foreign": ("alignment", "size", "economy"), "relations": ("level", "attitude"),
        "trade_routes": ("status", "successes"), "armies": ("acr", "hp", "status"),
    }

    @property
    def options(self) -> Sequence[OptionSpec]:
        return OPTIONS

    @property
    def event_types(self) -> Sequence[type[EventModel]]:
        from kingdomlog.rulesets.pf1.events import EVENT_TYPES  # registers them (core.ruleset's type loader asks)

        return EVENT_TYPES

    @property
    def phases(self) -> Sequence[Step]:
        from kingdomlog.rulesets.pf1.decide import PHASES

        return PHASES

    @property
    def all_steps(self) -> Sequence[Step]:
        from kingdomlog.rulesets.pf1.decide import ALL_STEPS

        return ALL_STEPS

    def phases_for(self, state: Any, turn: int) -> Sequence[Step]:
        from kingdomlog.rulesets.pf1.decide import FOUNDING, PHASES

        return (FOUNDING,) if turn == 0 else PHASES

    def initial_state(self, context: CampaignContext) -> Pf1State:
        opts = validate_options(OPTIONS, dict(context.options), where="pf1 option")
        catalog = tb.homebrew_catalog(context.data or {}, str(opts["building_edition"]),
                                      str(opts["improvement_edition"]))
        custom = opts["improvement_limits"]
        if custom:
            try:
                rows = [tb.LimitRow.model_validate(r) for r in custom.get("rows", [])]
            except (ValidationError, AttributeError) as exc:
                raise InputError(f"pf1 option 'improvement_limits': each row needs name, min_size, districts, "
                                 f"buildings, terrain, claims ({exc})") from None
            if not rows or rows[0].min_size != 0:
                raise InputError("pf1 option 'improvement_limits': rows must start at min_size 0 (base §6.5)")
        mods = tuple(m for m in MODULES if m in opts["modules"])
        return Pf1State(campaign=context.campaign, options=opts, catalog=catalog, modules=mods,
                        treasury=int(opts["starting_treasury_bp"]))

    def state_class(self, context: CampaignContext) -> type[Pf1State]:
        return Pf1State

    def evolve(self, state: Any, event: RecordedEvent) -> Pf1State:
        return _FOLD(state, event)

    def audit(self, state: Any, event: RecordedEvent) -> list[str]:
        from kingdomlog.rulesets.pf1.audit import audit

        return audit(state, event)

    def choices(self, state: Any, turn: int, step: str, values: Mapping[str, Any] | None = None
                ) -> tuple[FieldSpec, ...]:
        """The step's form, without the choices of optional modules that are off (and ``end_anarchy`` unless in
        anarchy); a plan may still give them, and the step refuses them with the rule."""
        from kingdomlog.rulesets.pf1.choices import MODULE_FIELDS

        s: Pf1State = state
        gated = MODULE_FIELDS.get(step, {})
        out = []
        for f in super().choices(state, turn, step, values):
            if f.name in gated and not any(s.module_on(m) for m in gated[f.name]):
                continue
            if step == "gm" and f.name == "end_anarchy" and not s.anarchy:
                continue
            out.append(f)
        return tuple(out)

    def boards(self, before: Any, step: str, choices: Mapping[str, Any], rolls: Sequence[Roll],
               checks: Mapping[str, CheckSpec], drafts: Sequence[Draft]) -> Sequence[Board]:
        """The war step: each battle as a board (``battleboard``)."""
        if step != "war":
            return ()
        from kingdomlog.rulesets.pf1.battleboard import boards

        return boards(before, choices, rolls, checks, drafts)

    def _board_check_title(self, key: str, spec: CheckSpec) -> str | None:
        """A kingdom check labelled with its roll key ("Loyalty check (w1_victory_1)", base §2.5) titled in words as
        the battle board names it ("Loyalty check after the victory, 1 of 2: d20 +5 vs DC 20"); None for the others."""
        from kingdomlog.rulesets.pf1.battleboard import check_name

        name = check_name(key, spec.label)
        if name == spec.label or spec.kind != "d20":
            return None
        return f"{name}: d20 {spec.modifier:+d} vs DC {spec.dc}"

    def vocabulary(self, state: Any, source: str, within: Mapping[str, Any]) -> Sequence[Option] | None:
        from kingdomlog.rulesets.pf1.vocabulary import SOURCES
        from kingdomlog.rulesets.pf1.vocabulary import vocabulary as _vocabulary

        if source not in SOURCES:
            return super().vocabulary(state, source, within)
        return _vocabulary(state, source, within)

    def seats(self, state: Any, turn: int, player: str, character: str) -> Sequence[Seat]:
        """A leader rolls the kingdom check their role supports (base §4.2, §4.4, §6.3): a leader whose role (or
        Ruler's choice) adds to Stability rolls the upkeep's Stability check, one adding to Economy the taxes'
        Economy check. Any such leader may roll it; the first roll stands. The General gives the orders of the
        kingdom's lead army in each battle the GM set up (UC Mass Combat: Army Tactics, Battle Phases;
        ``fill_seat``)."""
        from kingdomlog.rulesets.pf1.tables import load_roles

        s: Pf1State = state
        who = character.strip().casefold()
        attrs: set[str] = set()
        roles = {r.name: r for r in load_roles()}
        held: list[str] = []
        for role, entries in s.leaders.items():
            for e in entries:
                if e.name.strip().casefold() == who:
                    held.append(role.replace("_", " ").title())
                    attrs.update(roles[role].attributes if role in roles else ())
                    attrs.update(e.attributes)
        if not held:
            return []
        as_ = ", ".join(held)
        out = []
        if "STABILITY" in attrs:
            out.append(Seat("upkeep", "", f"{as_}: the Stability check of the upkeep", roll="stability",
                            help="rolled for the whole kingdom; the first leader to roll it rolls it"))
        if "ECONOMY" in attrs:
            out.append(Seat("income", "", f"{as_}: the Economy check of the taxes", roll="income",
                            help="rolled for the whole kingdom; the first leader to roll it rolls it"))
        if "General" in held and any(a.side == "kingdom" and a.status in ("active", "routed")
                                     for a in s.armies.values()):
            out.append(GENERAL_ORDERS)
        return out

    def fill_seat(self, state: Any, turn: int, seat: Seat, index: int, row: Mapping[str, Any]) -> Seat | None:
        """The General's orders of the GM's battle ``index`` (UC Battle Phases): a seat when the battle's armies are
        all in the General's view (an army the GM has not shown the players keeps the battle the GM's: no seat, and
        nothing of it said) and ours and its allies are the kingdom's. The orders are the lead army's (``ours``):
        its tactic, the special abilities it uses, each Melee phase's strategy, tactic change and potions; its
        tactics (the first and each change) are those the lead army knows (UC Army Tactics: ``known_tactics``)."""
        if seat.step != "war":
            return super().fill_seat(state, turn, seat, index, row)
        from kingdomlog.rulesets.pf1.battle import known_tactics

        s: Pf1State = state
        ours = [row.get("ours"), *(row.get("allies") or [])]
        theirs = [row.get("enemy"), *(row.get("enemies") or [])]
        if any(not isinstance(a, str) or a not in s.armies for a in (*ours, *theirs)):
            return None
        if any(s.armies[a].side != "kingdom" for a in ours):
            return None
        lead = s.armies[str(ours[0])]
        where = row.get("hex") if row.get("hex") in {s.armies[str(a)].hex for a in ours} else ""
        return dataclasses.replace(seat, fill=index, allowed={"ours_tactic": known_tactics(s, lead)},
                                   label=f"General: orders of battle {index}{f' at {where}' if where else ''}",
                                   help=f"the tactic, special abilities and each Melee phase's strategy of"
                                        f" {lead.name}; the GM gives the enemy's. Declare shows the first check's"
                                        " odds; Roll draws the whole battle's dice")

    def join_part(self, step: str, parts: Sequence[str], gm: Mapping[str, Any], given: Mapping[str, Any]
                  ) -> dict[str, Any]:
        """The GM's battle with the General's orders: the lead army's ``ours_*`` orders are the General's (the GM's
        own ``ours_*``, if any, give way), each Melee phase's joined to the GM's ``enemy_*`` orders of that phase.
        A round entry naming another key (the enemy's orders) is refused by name."""
        if step != "war":
            return super().join_part(step, parts, gm, given)
        out = {k: v for k, v in gm.items() if not (k in parts and k != "rounds")}
        out.update({k: given[k] for k in parts if k != "rounds" and given.get(k) is not None})
        if "rounds" not in parts:
            return out
        mine = given.get("rounds") or []
        theirs = [r for r in gm.get("rounds") or [] if isinstance(r, Mapping)]
        if not isinstance(mine, list) or not all(isinstance(r, Mapping) for r in mine):
            raise InputError("rounds: a list of Melee phases' orders (objects)")
        for i, r in enumerate(mine):
            bad = sorted(k for k in r if k not in ROUND_ORDERS)
            if bad:
                raise InputError(f"rounds[{i}]: {', '.join(bad)}: the GM gives the enemy's orders; this seat gives"
                                 f" {', '.join(ROUND_ORDERS)}")
        n = max(len(theirs), len(mine))
        out["rounds"] = [{**{k: v for k, v in (theirs[i] if i < len(theirs) else {}).items()
                             if k not in ROUND_ORDERS}, **(mine[i] if i < len(mine) else {})} for i in range(n)]
        return out

    def blank_part(self, step: str, parts: Sequence[str], gm: Mapping[str, Any]) -> dict[str, Any]:
        """The GM's battle as the General's form holds it: neither side's orders (the enemy's are the GM's), as many
        Melee phases as the GM's battle orders (one at least)."""
        if step != "war":
            return super().blank_part(step, parts, gm)
        out = {k: v for k, v in gm.items() if not k.startswith(("ours_", "enemy_"))}
        rounds = gm.get("rounds")
        out["rounds"] = [{} for _ in rounds] if isinstance(rounds, list) and rounds else [{}]
        return out

    def part_hidden(self, step: str, parts: Sequence[str]) -> frozenset[str]:
        """A Melee phase's orders of the enemy (``enemy_*``) are the GM's: the General's form leaves them out."""
        return ENEMY_ORDERS if step == "war" else super().part_hidden(step, parts)

    def row_part(self, step: str, index: int) -> str:
        """The war step's rows are battles, their dice keyed ``w<n>_…`` (``w2``: the second)."""
        return f"w{index}" if step == "war" else super().row_part(step, index)

    def row_key(self, step: str, key: str, index: int) -> str:
        """A battle's roll key rolled as the first battle (``w1_r2_ours``) for battle ``index`` (``w3_r2_ours``).

        >>> RULESET.row_key("war", "w1_r2_ours", 3), RULESET.row_key("war", "w10_fate", 3)
        ('w3_r2_ours', 'w10_fate')
        """
        if step == "war":
            return re.sub(r"^w1(?=_|$)", f"w{index}", key)
        return super().row_key(step, key, index)

    def redact(self, state: Any, viewer: Viewer) -> Pf1State:
        """Players and the public do not see the GM's figures for foreign kingdoms."""
        s: Pf1State = state
        if viewer.is_gm:
            return s
        foreign = {k: v.model_copy(update={"economy": None, "stability": None}) for k, v in s.foreign.items()}
        return s.model_copy(update={"foreign": foreign})

    def name_of(self, id: str, kind: str = "") -> str:
        """pf1's names of its ids in words where the default says them badly: a field of the state as the panel heads
        it (``names.FIELD_TITLES``: ``third_party`` → "Relations among foreign kingdoms"), a record's field as
        its column is headed (``names.COLUMN_TITLES``: ``om`` → "Offense modifier").

        >>> Pf1Kingmaker().name_of("third_party", "figure"), Pf1Kingmaker().name_of("third_party")
        ('Relations among foreign kingdoms', 'third party')
        >>> Pf1Kingmaker().name_of("h3", "field:hex")
        'hex 3'
        """
        from kingdomlog.rulesets.pf1.names import COLUMN_TITLES, FIELD_TITLES, SERIALS

        if id in MODULE_WORDS and kind in ("", "figure"):  # a module switched on, in the panel's Modules tile
            return MODULE_WORDS[id]
        if kind == "figure" and id in FIELD_TITLES:
            return FIELD_TITLES[id]
        if kind == "column" and id in COLUMN_TITLES:  # an army's "Offense modifier" (it read "Om")
            return COLUMN_TITLES[id]
        if kind == "field:serials" and id in SERIALS:  # "cities 2" (it read "C 2")
            return SERIALS[id]
        if kind in ("hex", "field:hex") and re.fullmatch(r"[hH]\d+", id):  # "hex 3", as the map labels it ("h3")
            return hex_words(id)
        if kind == "field:features" and ":" in id:  # a hex's "town (Oleg's Trading Post)" (it read "TOWN: …")
            from kingdomlog.rulesets.pf1.mapview import feature_words

            return feature_words(id)
        return super().name_of(id, kind)

    def record_names(self, state: Any) -> Mapping[str, str]:
        """Districts and buildings by the names the explanations give them (``names.record_names``)."""
        from kingdomlog.rulesets.pf1.names import record_names

        return record_names(state) if isinstance(state, Pf1State) else {}

    def field_words(self, state: Any) -> Mapping[tuple[str, str, str], str]:
        """A relation's treaty or alliance in words (``names.terms_words``; it read "x you 22")."""
        from kingdomlog.rulesets.pf1.names import field_words

        return field_words(state) if isinstance(state, Pf1State) else {}

    def check_title(self, key: str, spec: CheckSpec) -> str | None:
        """A check logged with its roll key in brackets ("Stability check (stability)", "Diplomacy (dip_check_1)":
        labels before issue 29) titled by the words its key computes (``helpers.check_label``: "Stability check:
        d20 +17 vs DC 31"), a battle's as its board names them; the log is not changed. Any other check: the
        sheet's shared title.

        >>> from kingdomlog.dice.checks import CheckSpec
        >>> Pf1Kingmaker().check_title("income", CheckSpec("d20", modifier=28, dc=31, label="Economy check (income)"))
        'Economy check for income: d20 +28 vs DC 31'

        A hex its label names by its id (the label is logged so) is said as the map labels it:

        >>> Pf1Kingmaker().check_title("town_h1", CheckSpec("d20", modifier=5, dc=20,
        ...                            label="Loyalty check to annex the town on hex h1"))
        'Loyalty check to annex the town on hex 1: d20 +5 vs DC 20'
        """
        from kingdomlog.rulesets.pf1.helpers import check_label

        if not spec.label.endswith(f" ({key})"):
            title = self._board_check_title(key, spec)  # a battle's checks as its board names them
            if title is None and spec.kind == "d20" and _HEX_IN.search(spec.label):
                title = f"{spec.label[:1].upper()}{spec.label[1:]}: d20 {spec.modifier:+d} vs DC {spec.dc}"
        else:
            what = spec.label.removesuffix(f" ({key})")
            name = check_label(what.removesuffix(" check"), key) if what.endswith(" check") else \
                check_label(what, key, check=False)
            title = f"{name}: d20 {spec.modifier:+d} vs DC {spec.dc}"
        return _HEX_IN.sub(lambda m: hex_words(m[1]), title) if title else title  # "hex 1" (the label: "hex h1")

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
            "armies": sum(1 for a in s.armies.values() if a.side == "kingdom" and a.status in ("active", "routed")),
            "modules": ",".join(s.modules),
        }

    def explain(self, state: Any) -> list[Breakdown]:
        s: Pf1State = state
        out = [dv.control_dc(s), dv.consumption(s), *(dv.attribute(s, a) for a in ATTRIBUTES), dv.population(s)]
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
        for a in s.armies.values():
            if a.status in ("active", "routed"):
                out.append(Breakdown(f"Army {a.name}", a.hp, note=f"{a.side}: {a.size} ACR {a.acr}, hp {a.hp}/"
                                     f"{a.max_hp}, OM {a.om:+d}, DV {a.dv}, Morale {a.morale:+d}, Consumption "
                                     f"{a.consumption}/week, {a.status}{' (reserve)' if a.reserve else ''}"
                                     f"{', in ' + hex_words(a.hex) if a.hex else ''} (UC Mass Combat)"))
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

    def map(self, state: Any, viewer: Viewer) -> Any:
        from kingdomlog.rulesets.pf1.mapview import kingdom_map

        return kingdom_map(state, viewer)

    def chronicle(self, before: Any, event: RecordedEvent, after: Any, viewer: Viewer) -> str | None:
        from kingdomlog.rulesets.pf1.chronicle import chronicle

        return chronicle(before, event, after, viewer)

    def portrait(self, state: Any, previous: Any, viewer: Viewer) -> Any:
        from kingdomlog.rulesets.pf1.mapview import portrait

        return portrait(state, previous, viewer)

    def foreign_formats(self) -> Sequence[ForeignFormat]:
        """The PF1 kingdom sheet's kingdom actor (read)."""
        from kingdomlog.rulesets.pf1.foundry import FORMATS

        return FORMATS

    def sample_events(self) -> list[Draft]:
        from kingdomlog.rulesets.pf1.samples import sample_events

        return sample_events()

    def sample_plans(self) -> list[dict[str, Any]]:
        from kingdomlog.rulesets.pf1.samples import sample_plans

        return sample_plans()

    def data_tables(self) -> Mapping[str, Callable[[], Any]]:
        return {
            "buildings": tb.load_buildings,
            "terrain": tb.load_terrains,
            "improvements": tb.load_improvements,
            "improvements_uc": tb.load_improvements_uc,
            "buildings_uc": tb.load_buildings_uc,
            "events_uc": tb.load_uc_events,
            "mass_combat": tb.load_mass_combat,
            "leaders": tb.load_roles,
            "edicts": tb.load_edicts,
            "limits": tb.load_limits,
            "events": tb.load_events,
            "government": tb.load_governments,
        }


RULESET = Pf1Kingmaker()


ROUND_ORDERS = ("ours_strategy", "ours_tactic", "ours_potions", "ours_use")
"""A Melee phase's orders the General gives (``choices.RoundEntry``); the ``enemy_*`` ones are the GM's."""
ENEMY_ORDERS = frozenset({"enemy_strategy", "enemy_tactic", "enemy_potions", "enemy_use"})
GENERAL_ORDERS = Seat("war", "battles", "General: battle orders", {}, 1, part="ours_tactic+ours_use+rounds")
"""The General's seat at a battle (UC Mass Combat): the lead army's tactic, special abilities and each Melee phase's
orders, of a battle the GM set up (``Pf1Kingmaker.fill_seat`` opens it per battle)."""
