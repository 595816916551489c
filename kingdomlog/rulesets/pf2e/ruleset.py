"""The ``pf2e-kingmaker`` ruleset object: the plug-in seam (design §4) over the modules of this package.

``events`` (payloads), ``state`` (the kingdom and its derived numbers), ``evolve`` (the fold of
recorded facts), ``choices`` + ``decide`` (the typed steps), ``engine`` + ``activities`` (what the
steps do), ``rules`` (kernels of plain numbers), ``audit`` (today's rules against a log),
``tables`` + ``data/`` (rules data), ``views.sql``, ``samples``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from kingdomlog.core.choices import FieldSpec, Option
from kingdomlog.core.events import Draft, EventModel, RecordedEvent
from kingdomlog.core.foreign import ForeignFormat
from kingdomlog.core.ruleset import Breakdown, CampaignContext, LazyFold, OptionSpec, RerollReason, Seat, Step
from kingdomlog.core.viewers import Viewer
from kingdomlog.core.working import CopyOnWriteRuleset
from kingdomlog.dice.checks import CheckSpec
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.state import KingdomState, capital, explain_all, size_of

if TYPE_CHECKING:
    from kingdomlog.core.board import Board
    from kingdomlog.dice.roller import Roll

# What only playing, auditing, narrating or drawing a turn needs (the steps, their typed choices, the audit, the
# chronicle, the map) is imported where it is used: `kingdomlog state` folds and prints, and these modules are
# about a third of the ruleset's import time. The payload classes (`events`, ~80 models) and the fold over them
# (`evolve`) are imported at the first event folded or decoded (`core.ruleset`'s type loader asks `event_types`):
# a warm `kingdomlog state` reads a snapshot and decodes no pf2e event.

_FOLD = LazyFold[KingdomState]("kingdomlog.rulesets.pf2e.evolve")


OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("ruin_overflow_mode", "choice", "subtract_threshold",
               "§5.3/§5.17: when a Ruin passes its threshold, subtract the threshold (default) or reset to 0",
               choices=("subtract_threshold", "reset_to_zero")),
    OptionSpec("ruin_penalty_cap", "int", 0, "§5.17: upper cap on a Ruin penalty (0 = none)", minimum=0),
    OptionSpec("ruin_reduction_trigger", "choice", "currently_zero",
               "§3.0.6: the DC 16 flat check to lower a penalty happens when the Ruin is currently 0 (seed) or"
               " when a reduction would go below 0 (RPOL)", choices=("currently_zero", "below_zero")),
    OptionSpec("unrest_cap", "int", 0, "§5.17: upper cap on Unrest (0 = none)", minimum=0),
    OptionSpec("anarchy_threshold", "int", 20, "§5.4/§5.17: Unrest at which anarchy starts (and below which it ends)",
               minimum=1),
    OptionSpec("vacancy_penalty_type", "choice", "untyped", "§5.11/§5.17: bonus type of vacancy penalties",
               choices=("untyped", "circumstance", "status", "item")),
    OptionSpec("lost_hex_settlement", "choice", "freehold",
               "§4.10/§5.17: a settlement in a lost hex becomes a Freehold (default) or stays",
               choices=("freehold", "kept")),
    OptionSpec("farmland_in_settlement_hex", "bool", True, "§4.11/§5.17: Farmland allowed in a settlement's hex"),
    OptionSpec("half_commodities_rounding", "choice", "down",
               "§4.9/§5.17: rounding of the half-commodity refund on a Build Structure critical success",
               choices=("down", "up")),
    OptionSpec("leadership_activities_without_seat", "int", 2,
               "§5.8: Leadership activities per PC leader without a Castle/Palace/Town Hall", minimum=0, maximum=3),
    OptionSpec("collect_taxes_requires_trained", "bool", False, "§5.17: Collect Taxes needs trained Trade"),
    OptionSpec("event_xp_mode", "choice", "flat_30", "§5.12: XP for a random event: 30, or by event level",
               choices=("flat_30", "by_level")),
    OptionSpec("rp_to_xp_limit", "int", 120, "§3.4 E3: most XP from unspent RP per turn", minimum=0),
    OptionSpec("xp_per_hex", "int", 10, "§5.13: XP per newly claimed hex", minimum=0),
    OptionSpec("event_dc_step", "int", 5, "§3.4 E1: how much the event DC falls after a turn without event",
               minimum=1),
    OptionSpec("founding_free_boosts", "int", 2, "Founding: free ability boosts after charter, heartland and"
               " government (published rules; not in the spec)", minimum=0, maximum=4),
    OptionSpec("require_four_invested", "bool", True, "§2.3: exactly four invested roles at founding"),
    OptionSpec("unlock_all_activities", "bool", False, "§5.15/§5.17: every activity is available without the"
               " structure, companion or story unlock its data names (house rule)"),
    # readings the rules leave to the GM, house rules and homebrew
    OptionSpec("ruin_overflow_at", "choice", "exceeds",
               "§3.0.5: a Ruin overflows when its points exceed the threshold (published) or already reach it",
               choices=("exceeds", "reaches")),
    OptionSpec("fame_averts_ruin", "choice", "overflow_without_penalty",
               "§3.0.5: Fame spent to avert a Ruin penalty lets the points overflow without the penalty (default),"
               " keeps the Ruin gain from being added at all, or stops the Ruin at its threshold",
               choices=("overflow_without_penalty", "no_gain", "stop_at_threshold")),
    OptionSpec("fame_averts_anarchy", "choice", "this_turn",
               "§3.0.7: Fame spent to avert anarchy keeps the kingdom out of anarchy this turn with its Unrest"
               " (default) or lowers Unrest to one below the anarchy threshold", choices=("this_turn", "unrest_below")),
    OptionSpec("structure_bonus_scope", "choice", "location",
               "§5.10: a structure's item bonus reaches checks made in its settlement or in hexes of its influence"
               " (published) or every check of the kingdom (how older versions of kingdomlog read it)",
               choices=("location", "kingdom")),
    OptionSpec("capital_structures_everywhere", "bool", False,
               "house rule: the capital's structures' item bonuses reach every check of the kingdom"),
    OptionSpec("untrained_proficiency", "choice", "none",
               "§5.7: untrained kingdom skills add nothing (published) or, homebrew untrained improvisation"
               " (Vance & Kerenshara), half the level or the level", choices=("none", "half_level", "level")),
    OptionSpec("xp_per_hex_mode", "choice", "published",
               "§5.13: XP per claimed hex: option xp_per_hex (published 10), or by kingdom size (Vance &"
               " Kerenshara: size < 10: 100, < 25: 50, < 50: 25, < 100: 10, else 5)", choices=("published", "vk")),
    OptionSpec("rp_to_xp_mode", "choice", "published",
               "§3.4 E3: unspent RP become XP 1 for 1 (published), or by kingdom level (Vance & Kerenshara:"
               " level 1-4: 10 XP per RP, 5-8: 7, 9-12: 5, 13-16: 2, 17+: 1), either up to rp_to_xp_limit XP",
               choices=("published", "vk")),
    OptionSpec("resource_dice_per_village", "int", 0, "house rule: extra Resource Dice per village", minimum=0),
    OptionSpec("resource_dice_per_town", "int", 0, "house rule: extra Resource Dice per town", minimum=0),
    OptionSpec("resource_dice_per_city", "int", 0, "house rule: extra Resource Dice per city", minimum=0),
    OptionSpec("resource_dice_per_metropolis", "int", 0, "house rule: extra Resource Dice per metropolis",
               minimum=0),
    OptionSpec("cult_events", "bool", False,
               "Kingmaker Adventure Path: Cult of the Bloom events - each Event phase a flat check against a DC that"
               " starts at cult_event_dc_start and falls by cult_event_dc_step each turn without one"),
    OptionSpec("cult_event_dc_start", "int", 20, "the first Cult of the Bloom flat-check DC (GM's number)",
               minimum=1, maximum=20),
    OptionSpec("cult_event_dc_step", "int", 2, "how much the Cult of the Bloom DC falls per turn without one",
               minimum=0),
    OptionSpec("kingdom_event_selection", "choice", "table",
               "§3.4 E2: a random event the GM does not name is rolled on the random kingdom event table (d100, AoN"
               " 1843; default) or left to the GM (recorded as 'unspecified')", choices=("table", "gm")),
    OptionSpec("muddle_through_reading", "choice", "three_ruins",
               "§5.5 Muddle Through: the feat raises three chosen Ruin thresholds (+2, +1, +1) or two (+2, +1)",
               choices=("three_ruins", "two_ruins")),
    OptionSpec("warfare_mode", "choice", "battles",
               "Appendix 3: war encounters played as battles (default) or left in the narrative, costing 1d6 Unrest"
               " and a Ruin +1 at the start of a turn after warfare", choices=("battles", "abstract")),
    OptionSpec("structure_reduction_conditions", "choice", "apply",
               "§5.15: a structure's Consumption reduction needs its surroundings (a Mill: water in its settlement's"
               " hex; the rules text, default) or counts wherever it stands (the published tool, KMT, has no such"
               " condition)", choices=("apply", "ignore")),
    OptionSpec("sharpshooter_reading", "choice", "text",
               "Appendix 3 Sharpshooter: the rules text (+1 status to ranged Strikes; the melee penalty -2, -1 from"
               " 9th level, none from 15th; default) or the published tool's numbers (KMT: +1 circumstance; none"
               " from 17th)", choices=("text", "tool")),
    OptionSpec("army_visibility", "choice", "revealed",
               "what player views show of enemy armies: those the GM revealed (default), all, or none",
               choices=("revealed", "all", "none")),
)


FEAT_OPT_INS = frozenset({"crush_dissent", "liquidate_resources"})
"""A step's choices that opt into a feat's reaction, each named after the feat effect it needs (``feat_effects``)."""


class Pf2eKingmaker(CopyOnWriteRuleset):
    """Pathfinder 2e Kingmaker kingdom turns (spec rulesets/pf2e-kingmaker.md)."""

    id = "pf2e-kingmaker"
    name = "PF2e Kingmaker"
    aliases = ("pf2e", "kingmaker2e", "pf2e-km", "pathfinder2e-kingmaker", "kingmaker")
    turn_unit = "month"
    chart_figures = (
        "level", "xp", "unrest", "rp", "fame", "size", "control_dc", "corruption", "crime", "decay", "strife",
        "food",
    )
    """The summary columns the player view charts over turns, in order."""
    better_figures = T.BETTER
    panel_columns: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "leaders": ("holder", "invested"), "settlements": ("level", "hex"), "used_last_turn": ("role", "skill"),
        "army_units": ("level", "hp", "ac"),
    }

    @property
    def options(self) -> Sequence[OptionSpec]:
        return OPTIONS

    @property
    def event_types(self) -> Sequence[type[EventModel]]:
        from kingdomlog.rulesets.pf2e.events import EVENT_TYPES  # registers them (core.ruleset's type loader asks)

        return EVENT_TYPES

    @property
    def phases(self) -> Sequence[Step]:
        from kingdomlog.rulesets.pf2e.decide import PHASES

        return PHASES

    @property
    def all_steps(self) -> Sequence[Step]:
        from kingdomlog.rulesets.pf2e.decide import ALL_STEPS

        return ALL_STEPS

    def phases_for(self, state: Any, turn: int) -> Sequence[Step]:
        from kingdomlog.rulesets.pf2e.decide import FOUNDING, PHASES

        return PHASES if state.founded else (FOUNDING,)

    def initial_state(self, context: CampaignContext) -> KingdomState:
        options = {o.name: o.default for o in OPTIONS}
        options.update(dict(context.options))
        homebrew = T.validate_homebrew(context.data) if context.data else {}
        return KingdomState(campaign=context.campaign, options=options, homebrew=homebrew)

    def state_class(self, context: CampaignContext) -> type[KingdomState]:
        return KingdomState

    def evolve(self, state: Any, event: RecordedEvent) -> KingdomState:
        return _FOLD(state, event)

    def audit(self, state: Any, event: RecordedEvent) -> list[str]:
        from kingdomlog.rulesets.pf2e.audit import audit

        return audit(state, event)

    def boards(self, before: Any, step: str, choices: Mapping[str, Any], rolls: Sequence[Roll],
               checks: Mapping[str, CheckSpec], drafts: Sequence[Draft]) -> Sequence[Board]:
        """A5 War encounters: each battle as a board (``battleboard``)."""
        if step != "activity.battle":
            return ()
        from kingdomlog.rulesets.pf2e.battleboard import boards

        return boards(before, choices, rolls, checks, drafts)

    def name_of(self, id: str, kind: str = "") -> str:
        from kingdomlog.rulesets.pf2e.names import name_of

        return name_of(id, kind) or super().name_of(id, kind)

    def vocabulary(self, state: Any, source: str, within: Mapping[str, Any]) -> Sequence[Option] | None:
        from kingdomlog.rulesets.pf2e.choices import vocabulary

        if source == "buildable_structures":
            from kingdomlog.rulesets.pf2e.activities import buildable_options

            return buildable_options(self, state, within)
        return vocabulary(state, source, within)

    def choices(self, state: Any, turn: int, step: str, values: Mapping[str, Any] | None = None
                ) -> tuple[FieldSpec, ...]:
        """The step's form, without the opt-ins of feats the kingdom does not have (Crush Dissent, Liquidate
        Resources: without the feat the rules ignore them) unless the plan already sets one; Declare war on says
        the groups the kingdom deals with by the names the state holds (a box: a new group is the GM's to name)."""
        import dataclasses

        from kingdomlog.rulesets.pf2e.state import feat_effects

        specs = super().choices(state, turn, step, values)
        given = values or {}
        out = tuple(s for s in specs if s.name not in FEAT_OPT_INS or given.get(s.name)
                    or feat_effects(state, s.name))
        known = list(dict.fromkeys(g for g in (*getattr(state, "diplomatic_relations", ()),
                                               *getattr(state, "trade_agreements", ()))
                                   if g not in getattr(state, "enemies", ())))
        if step != "upkeep.leadership" or not known:
            return out
        return tuple(dataclasses.replace(s, help=f"{s.help}; groups the kingdom deals with: {', '.join(known)}")
                     if s.name == "declare_war" else s for s in out)

    def seats(self, state: Any, turn: int, player: str, character: str) -> Sequence[Seat]:
        """A PC leader acts in the Activity phase (§3.3): for each role ``character`` holds as a PC, that role's
        Leadership activities (2, 3 with a seat of government) and Region activities taken as that role."""
        from kingdomlog.rulesets.pf2e.state import leadership_slots

        s: KingdomState = state
        who = character.strip().casefold()
        out: list[Seat] = []
        for role, ld in s.leaders.items():
            if ld.holder is None or ld.kind != "pc" or ld.holder.strip().casefold() != who:
                continue
            name = role.replace("_", " ").title()
            slots = leadership_slots(s, role)
            if slots:
                out.append(Seat("activity.leadership", "activities", f"{name}: Leadership activities",
                                {"role": role}, slots, f"{slots} this month, as the {name} ({ld.holder})"))
            out.append(Seat("activity.region", "activities", f"{name}: Region activities", {"role": role}, None,
                            "the kingdom takes three a month (more after critical Claim Hex successes), shared by"
                            " the leaders"))
            if role == "general" and any(a.side == "kingdom" for a in s.army_units):
                out.append(GENERAL_ORDERS)
        return out

    def fill_seat(self, state: Any, turn: int, seat: Seat, index: int, row: Mapping[str, Any]) -> Seat | None:
        """The General's orders of the GM's battle ``index`` (A5, AoN 1869): a seat when the battle has one of the
        kingdom's armies and every army in it is one the General's view shows (an enemy army the GM has not
        revealed keeps the battle the GM's: the seat is not offered, and nothing of it is said). The orders may
        name the battle's kingdom armies only; the GM gives the enemy's."""
        if seat.step != "activity.battle":
            return super().fill_seat(state, turn, seat, index, row)
        s: KingdomState = state
        seen = {a.id: a for a in s.army_units}
        kingdom, enemy = row.get("kingdom"), row.get("enemy")
        if not isinstance(kingdom, list) or not isinstance(enemy, list):
            return None
        if any(not isinstance(a, str) or a not in seen for a in (*kingdom, *enemy)):
            return None
        ours = tuple(a for a in kingdom if seen[a].side == "kingdom")
        if not ours:
            return None
        where = row.get("hex") if row.get("hex") in {seen[a].hex for a in ours} else ""  # a hex the General knows
        names = ", ".join(seen[a].name for a in ours)
        return dataclasses.replace(seat, fill=index, allowed={"army": ours},
                                   label=f"General: orders of battle {index}{f' at {where}' if where else ''}",
                                   help=f"each round's war actions of {names}; the GM gives the enemy's. Declare"
                                        " shows the first check (each army's initiative: no DC, so no odds); Roll"
                                        " draws the whole battle's dice")

    def row_limit(self, state: Any, step: str, rows: Sequence[Mapping[str, Any]], row: Mapping[str, Any]
                  ) -> tuple[str, str] | None:
        """An activity row past its limit per turn (once per Kingdom turn, §3.3 A1.3; Claim Hex by level, §5.9),
        with ``rows`` taken before it: the rule ``activities.perform`` applies when the step runs."""
        from kingdomlog.rulesets.pf2e.activities import row_limit

        return row_limit(state, rows, row) if step.startswith("activity.") else None

    def row_part(self, step: str, index: int) -> str:
        """A5's rows are battles (``b2``: the second); the others' activities (``a2``)."""
        return f"b{index}" if step == "activity.battle" else super().row_part(step, index)

    def reroll_reasons(self, state: Any, step: str, key: str, check: CheckSpec | None) -> Sequence[RerollReason]:
        """A kingdom check may be re-rolled for a Fame (or Infamy) point (§3.0.8); the check charges it. An army's
        checks in a battle (A5: initiative, war actions, rout and flat checks) are not kingdom checks: none."""
        if check is None or check.kind != "pf2e" or step == "activity.battle":
            return ()
        name = "Infamy" if state.fame_type == "infamy" else "Fame"
        return (RerollReason("fame", name, f"spend 1 {name} point to re-roll the check (§3.0.8); you have"
                                           f" {state.fame}"),)

    def redact(self, state: Any, viewer: Viewer) -> Any:
        """A kingdom keeps no secrets from its players but the GM's: enemy armies the GM has not revealed
        (option ``army_visibility``: revealed / all / none)."""
        s: KingdomState = state
        if viewer.is_gm:
            return s
        return redact_armies(s)

    def summary(self, state: Any) -> dict[str, Any]:
        s: KingdomState = state
        out: dict[str, Any] = {
            "kingdom": s.name, "kingdom_turn": s.turn, "level": s.level, "xp": s.xp, "size": size_of(s),
            "control_dc": s.control_dc, "resource_die": s.resource_die, "resource_dice": s.resource_dice,
            "rp": s.rp, "unrest": s.unrest, "unrest_penalty": s.unrest_penalty, "anarchy": s.anarchy,
            "fame": s.fame, "event_dc": s.event_dc, "consumption": s.consumption,
            "settlements": len(s.settlements),
        }
        for r in T.RUINS:
            out[r] = s.ruin[r].points
            out[f"{r}_threshold"] = s.ruin[r].threshold
            out[f"{r}_penalty"] = s.ruin[r].penalty
        for c in T.COMMODITIES:
            out[c] = s.commodities[c]
            out[f"{c}_storage"] = s.storage[c]
        for a in T.ABILITIES:
            out[a] = s.scores[a]
        out["armies"] = sum(1 for a in s.army_units if a.side == "kingdom")
        out["at_war"] = s.at_war
        return out

    def explain(self, state: Any) -> list[Breakdown]:
        return explain_all(state)

    def render(self, state: Any) -> str:
        s: KingdomState = state
        ruins = " ".join(f"{r[:3]}{s.ruin[r].points}/{s.ruin[r].threshold}p{s.ruin[r].penalty}" for r in T.RUINS)
        goods = " ".join(f"{c[:3]}{s.commodities[c]}/{s.storage[c]}" for c in T.COMMODITIES)
        cap = capital(s)
        return (f"{s.name or '(unfounded)'} T{s.turn} L{s.level} xp{s.xp} size{size_of(s)} dc{s.control_dc}"
                f" rp{s.rp} unrest{s.unrest} fame{s.fame} edc{s.event_dc} | {ruins} | {goods}"
                f" | cap={cap.name if cap else '-'}")

    def map(self, state: Any, viewer: Viewer) -> Any:
        from kingdomlog.rulesets.pf2e.mapview import kingdom_map

        return kingdom_map(state, viewer)

    def chronicle(self, before: Any, event: RecordedEvent, after: Any, viewer: Viewer) -> str | None:
        from kingdomlog.rulesets.pf2e.chronicle import chronicle

        return chronicle(before, event, after, viewer)

    def portrait(self, state: Any, previous: Any, viewer: Viewer) -> Any:
        from kingdomlog.rulesets.pf2e.mapview import portrait

        return portrait(state, previous, viewer)

    def foreign_formats(self) -> Sequence[ForeignFormat]:
        """The pf2e-kingmaker-tools kingdom sheet (read and written) and the PF2e system's kingdom (read)."""
        from kingdomlog.rulesets.pf2e.foundry import FORMATS

        return FORMATS

    def sample_events(self) -> list[Draft]:
        from kingdomlog.rulesets.pf2e.samples import sample_events

        return sample_events()

    def sample_plans(self) -> list[dict[str, Any]]:
        from kingdomlog.rulesets.pf2e.samples import sample_plans

        return sample_plans()

    def data_tables(self) -> Mapping[str, Callable[[], Any]]:
        return T.data_tables()


def redact_armies(s: KingdomState) -> KingdomState:
    """The state a player sees: the kingdom's armies, and the enemy armies ``army_visibility`` lets through."""
    mode = str(s.options.get("army_visibility", "revealed"))
    keep = tuple(a for a in s.army_units if a.side == "kingdom" or mode == "all" or (mode == "revealed"
                                                                                      and a.revealed))
    return s if len(keep) == len(s.army_units) else s.model_copy(update={"army_units": keep})


GENERAL_ORDERS = Seat("activity.battle", "battles", "General: battle orders", {}, 1, part="rounds")
"""The General's seat at a battle (A5): the kingdom's armies' orders, round by round, of a battle the GM set up
(``Pf2eKingmaker.fill_seat`` opens it per battle)."""

RULESET = Pf2eKingmaker()
