"""The Signoria ruleset object: phases, options, choices, decide, evolve, redact, views (spec signoria.md).

A regular turn is: ``turn_open``; one ``command_<faction>`` and one ``orders_<faction>`` step per
active player faction (the player's own sheet, actor = the faction); then the five resolution
phases in the seed's order (``p1_internal`` .. ``p5_hiring``) and ``upkeep``. Turn 0 is ``setup``;
the last turn (12 by default) is ``final_tally``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from typing import Any

from kingdomlog.core.errors import InputError, KingdomlogError
from kingdomlog.core.events import Draft, EventModel, RecordedEvent
from kingdomlog.core.modifiers import Modifier, stack
from kingdomlog.core.ruleset import Breakdown, CampaignContext, Choice, Dice, OptionSpec, Phase
from kingdomlog.rulesets.signoria import decide as dec
from kingdomlog.rulesets.signoria import tables as data
from kingdomlog.rulesets.signoria.events import EVENT_TYPES
from kingdomlog.rulesets.signoria.evolve import evolve as _evolve
from kingdomlog.rulesets.signoria.rules import command_slots
from kingdomlog.rulesets.signoria.samples import sample_events, sample_plans
from kingdomlog.rulesets.signoria.state import RESOURCES, SignoriaState

TACTICS = ("breakthrough", "encirclement", "ambush", "hold", "counterattack")

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("players", "list", ["fabian", "marburg"], "Player factions, 2 to 5 (§1.2; G-41)."),
    OptionSpec("neutrals", "list", ["felmonte", "gusso"], "Neutral factions run by the GM (§1.2).",
               choices=("felmonte", "gusso")),
    OptionSpec("extra_factions", "table", {}, "Player factions beyond the two great houses: id -> {label, province,"
               " leader, borders: [province ids]} (G-41, G-6; the GM defines them)."),
    OptionSpec("initial_resources", "table", {}, "Override starting Power/Piety/Wealth/Army per faction id; key "
               "'_other' for extra factions (default 4/5/3/4) (§2.9 initial_resources). Campaign options are "
               "public: for secret starting values use the setup step's 'resources' choice."),
    OptionSpec("statesmen_per_faction", "int", 2, "Starting statesmen per player faction (§2.9, G-41).", minimum=0),
    OptionSpec("statesman_loyalty_default", "int", 2, "Loyalty of a statesman, used against bribes (§2.4, G-24)."),
    OptionSpec("command_reroll_limit", "int", -1, "Bought command rerolls per turn; -1 = no limit (§3.1).",
               minimum=-1),
    OptionSpec("max_slots_per_turn", "int", 7, "Slot count above which a warning is flagged (§3.2, G-31)."),
    OptionSpec("threshold_clamp_low", "int", 2, "Lowest action threshold after modifiers (§3.3)."),
    OptionSpec("threshold_clamp_high", "int", 12, "Highest action threshold after modifiers (§3.3)."),
    OptionSpec("leader_leads_actions", "bool", True, "The leader may lead actions like a statesman (§3.4, G-28)."),
    OptionSpec("character_one_activity_per_turn", "bool", True, "A character leads or accompanies one thing a turn"
               " (§3.7)."),
    OptionSpec("intrigue_success_piety_cost", "int", 0, "Piety lost on a successful own intrigue (G-1)."),
    OptionSpec("reveal_intrigue_author", "bool", False, "Tell the target who intrigued against it (§4.1 A2)."),
    OptionSpec("donation_wealth_per_piety", "int", 2, "Wealth per Piety in a pious donation (A5b).", minimum=1),
    OptionSpec("expense_support_max_rerolls", "int", 2, "Rerolls bought by wealth invested in support (A5c)."),
    OptionSpec("statesman_hire_cost", "int", 1, "Wealth to hire a statesman (§4.6, G-22)."),
    OptionSpec("statesman_cap_equals_power", "bool", True, "No more statesmen than Power (§0, §4.7)."),
    OptionSpec("scouting_notifies_target", "bool", False, "Tell the scouted faction (§6.1, G-43)."),
    OptionSpec("assassination_reveal_sender", "bool", False, "Tell the target who sent assassins (§6.5)."),
    OptionSpec("pact_aid_penalty", "int", 1, "Threshold penalty per pact on military aid against its holder (§7.2)."),
    OptionSpec("reveal_new_trade_holder", "bool", True, "Tell the outbid trade holder who replaced it (§7.2)."),
    OptionSpec("neutral_alliance_exclusive", "bool", True, "A neutral has one military alliance at a time (§7.2)."),
    OptionSpec("legitimacy_points", "int", 5, "Final-tally points per legitimacy letter (G-40)."),
    OptionSpec("luigi_min_price", "int", 3, "Lowest offer for which Luigi sells Felmonte (§7.7)."),
    OptionSpec("neutral_province_income", "int", 1, "Income of a captured neutral province (§2.2, G-38)."),
    OptionSpec("summer_wealth_bonus", "int", 1, "Multiplier of the summer +1 wealth (0 switches it off) (§4.5)."),
    OptionSpec("winter_attacker_threshold_mod", "int", 1, "Winter: attacker's battle thresholds +N (§5.14, G-7)."),
    OptionSpec("threshold_cap", "int", 6, "Highest battle threshold (§5.8)."),
    OptionSpec("max_rounds", "int", 3, "Rounds a battle can reach with Fight to the last! (§5.6)."),
    OptionSpec("explosions_chain", "bool", True, "Breakthrough: extra dice showing 6 explode again (G-12)."),
    OptionSpec("both_broken", "choice", "defender", "Who wins when both sides break (G-10).",
               choices=("defender", "attacker")),
    OptionSpec("leader_always_general", "bool", False, "Every leader may use the general's specials (G-16)."),
    OptionSpec("spy_exposed_on_defection", "bool", True, "A spy who defects in battle leaves the host (§5.7)."),
    OptionSpec("default_defender_response", "choice", "battle", "Response of a defender who gave none (G-34).",
               choices=("battle", "defence")),
    OptionSpec("plunder_transfers", "bool", True, "Plundered wealth goes to the occupier (§5.12)."),
    OptionSpec("low_resource_threshold", "int", 1, "A resource at or below this is flagged at upkeep (§4.8)."),
    OptionSpec("disloyalty_threshold", "int", 1, "Trait-trap flag when the trait's resource is at or below (§4.7)."),
    OptionSpec("reveal_orders_after_turn", "bool", False, "Publish every faction's orders when the turn closes"
               " (§11.3)."),
    OptionSpec("game_turns", "int", 12, "Turns in the game; the last is the final tally (§4.5).", minimum=2),
)

_REGULAR = ("p1_internal", "p2_espionage", "p3_war", "p4_diplomacy", "p5_hiring", "upkeep")
_TITLES = {
    "setup": "Setup: factions, leaders, statesmen, provinces (§2.9)",
    "turn_open": "Turn opening: season, income, events, dilemmas, candidates (§4.3)",
    "p1_internal": "Phase 1: internal reforms (§4.3)",
    "p2_espionage": "Phase 2: espionage and external intrigue (§4.3, §6)",
    "p3_war": "Phase 3: war and battles (§5)",
    "p4_diplomacy": "Phase 4: diplomacy (§7)",
    "p5_hiring": "Phase 5: hiring statesmen and troops (§4.6)",
    "upkeep": "Upkeep: plunder, sieges, cap, flags (§4.3)",
    "final_tally": "Final tally (G-40)",
}

ORDERS_HELP = (
    'A list of orders, each {"id": "S1", "action": ..., "slots": ["special"|"ordinary"|"spy:<agent>"], '
    '"stake": "elementary"|"low"|"high", "leader": <character id>, "target": <faction, character, province or '
    'neutral>, "params": {...}}. Actions: ' + ", ".join(dec.ACTIONS) + ". Params: war {units, characters, "
    "commander, tactic, reserve, if_defence: storm|siege}; scouts {field} at low stake; spy {agent}; bribery "
    "{wealth, on_success: spy|defect}; assassination {kill_leader}; felmonte_offer {wealth}; turn_against "
    "{against}; military_aid {against}; donation {piety}; hire_troops {units}; support {order, wealth}; dilemma "
    "{option}; player_treaty {terms}."
)


class SignoriaRuleset:
    """Signoria: several factions, sealed orders, a fixed resolution order, fog of war."""

    id = "signoria"
    name = "Signoria"
    aliases = ("Синьория", "signoria-felmonte", "Signoria of Felmonte")
    turn_unit = "month"

    @property
    def options(self) -> Sequence[OptionSpec]:
        return OPTIONS

    @property
    def event_types(self) -> Sequence[type[EventModel]]:
        return EVENT_TYPES

    @property
    def phases(self) -> Sequence[Phase]:
        return (
            Phase("turn_open", _TITLES["turn_open"], dice=("candidate.*",)),
            Phase("command_<faction>", "Command roll of one faction (§3.1)", dice=("cmd.1", "cmd.2")),
            Phase("orders_<faction>", "Sealed orders of one faction (§4.3)"),
            *(Phase(p, _TITLES[p]) for p in _REGULAR),
        )

    def phases_for(self, state: Any, turn: int) -> Sequence[Phase]:
        s: SignoriaState = state
        if turn == 0 or not s.initiative:
            return (Phase("setup", _TITLES["setup"], dice=("trait.*",)),)
        if s.finished:
            return ()
        if turn >= int(s.config.get("game_turns", 12)):
            return (Phase("final_tally", _TITLES["final_tally"]),)
        out = [Phase("turn_open", _TITLES["turn_open"], dice=("candidate.*",))]
        for f in s.players():
            out.append(Phase(f"command_{f}", f"Command roll: {s.factions[f].name} (§3.1)", dice=("cmd.1", "cmd.2")))
        for f in s.players():
            out.append(Phase(f"orders_{f}", f"Sealed orders: {s.factions[f].name} (§4.3)"))
        out.extend(Phase(p, _TITLES[p]) for p in _REGULAR)
        return tuple(out)

    def initial_state(self, context: CampaignContext) -> SignoriaState:
        return SignoriaState(config=dict(context.options))

    def evolve(self, state: Any, event: RecordedEvent) -> SignoriaState:
        return _evolve(state, event.payload, event.phase)

    # -- choices and decide ------------------------------------------------------------------------------------------
    def choices(self, state: Any, step: str) -> Sequence[Choice]:
        s: SignoriaState = state
        rulings = Choice("rulings", "GM rulings", "json", default=[],
                         help='[{"gap": "G-29", "text": ..., "visibility": "gm"|"public"|"faction:x", "effects": '
                              '[{"kind": "resource", "faction", "resource", "delta"}, ...]}]')
        if step == "setup":
            return (
                Choice("leader_traits", "Leaders' two traits", "json",
                       default={"fabian": ["general", "intriguer"], "marburg": ["steward", "intriguer"]},
                       help="faction -> two distinct traits (§2.4): steward, intriguer, general, devout"),
                Choice("leader_names", "Leaders' names", "json", default={}, help="faction -> name"),
                Choice("statesmen", "Starting statesmen (names; traits are rolled)", "json", default={},
                       help='faction -> [{"id", "name", "heir": bool}] (trait rolled on a d6, §8.5)'),
                Choice("resources", "Secret starting resources", "json", default={},
                       help="faction -> {power, piety, wealth, army}; recorded only in that faction's events"),
                Choice("resume_turn", "Resume a game after this turn (0 = new game)", "int", default=0, minimum=0),
                rulings,
            )
        if step == "turn_open":
            return (
                Choice("global_event", "Global event", "json", default=None, help='{"key", "title", "effects"}'),
                Choice("faction_events", "Faction events", "json", default=[],
                       help='[{"faction", "text", "effects"}]'),
                Choice("dilemmas", "Dilemmas", "json", default=[],
                       help='[{"faction", "id", "text", "options": [{"id", "text", "effects"}]}]'),
                Choice("candidates", "Statesman candidates", "json", default=[], help='[{"faction", "name", "cost"}]'),
                rulings,
            )
        if step.startswith("command_"):
            return (
                Choice("stake", "Stake", "select", ("low", "high"), default="low", help="low 5+, high 8+ (§3.1)"),
                Choice("pay", "Rerolls paid, in order, while failing", "json", default=[],
                       help='e.g. ["wealth", "power"]: 1 of that resource per reroll (§3.1)'),
            )
        if step.startswith("orders_"):
            fid = step[len("orders_"):]
            return (
                Choice("actor", "Faction giving these orders", "select", tuple(s.players()), default=fid),
                Choice("orders", "Orders", "json", default=[], help=ORDERS_HELP),
                Choice("dilemmas", "Dilemma choices", "json", default={}, help='{dilemma id: option id | "abstain"}'),
                Choice("standing", "Standing instructions", "json", default={},
                       help='{"response": {"response": "battle"|"defence", "tactic", "characters", "reserve"}}'),
            )
        if step == "p2_espionage":
            return (Choice("double_agents", "Turn failed bribes into double agents", "json", default={},
                           help='{"<briber>.<order id>": true} (§6.4)'),
                    Choice("double_agent_orders", "Carry out orders given to double agents", "json", default={},
                           help='{"<briber>.<order id>": true} (§6.4; default: not carried out)'),
                    Choice("successor_traits", "Second trait of a succeeding heir", "json", default={}), rulings)
        if step == "p3_war":
            return (
                Choice("responses", "Defender responses", "json", default={},
                       help='campaign id -> {"response": "battle"|"defence", "tactic": one of ' + ", ".join(TACTICS)
                            + ', "characters": [...], "reserve": n}'),
                Choice("declarations", "Battle declarations per round", "json", default={},
                       help='campaign id -> {"1": [{"side": "attacker"|"defender", "character", "option", "group", '
                            '"target", "defect"}], "2": [...]}'),
                rulings,
            )
        if step == "upkeep":
            return (Choice("dismiss", "Statesmen dismissed for the cap", "json", default={},
                           help="faction -> [statesman ids] dismissed first when over the cap (§4.7)"), rulings)
        if step == "final_tally":
            return (Choice("winner", "Cardinal's verdict (empty = formula)", "select", tuple(s.players()),
                           default=None),
                    Choice("felmonte", "The bull on Felmonte", "text", default=""),
                    Choice("verdict", "Verdict text", "text", default=""))
        return (rulings,)

    def decide(self, state: Any, step: str, choices: Mapping[str, Any], dice: Dice) -> list[Draft]:
        """Validate ``choices`` for ``step`` and return its drafts; ``RuleError`` names the rule refused,
        ``InputError`` a malformed choice (a wrong type or a missing key in the JSON)."""
        try:
            return self._decide(state, step, choices, dice)
        except KingdomlogError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InputError(f"[{step}] malformed choice: {type(exc).__name__}: {exc}") from exc

    def _decide(self, state: Any, step: str, choices: Mapping[str, Any], dice: Dice) -> list[Draft]:
        s: SignoriaState = state
        if step == "setup":
            if s.initiative:
                raise InputError("setup has already been played")
            return dec.decide_setup(s, choices, dice, {**{o.name: o.default for o in OPTIONS}, **s.config},
                                    data.factions())
        if step == "turn_open":
            return dec.decide_turn_open(s, choices, dice)
        if step.startswith("command_"):
            fid = step[len("command_"):]
            self._player(s, fid, step)
            return dec.decide_command(s, fid, choices, dice)
        if step.startswith("orders_"):
            fid = step[len("orders_"):]
            self._player(s, fid, step)
            return dec.decide_orders(s, fid, choices, dice)
        fn: dict[str, Callable[[SignoriaState, Mapping[str, Any], Dice], list[Draft]]] = {
            "p1_internal": dec.decide_p1, "p2_espionage": dec.decide_p2, "p3_war": dec.decide_p3,
            "p4_diplomacy": dec.decide_p4, "p5_hiring": dec.decide_p5, "upkeep": dec.decide_upkeep,
            "final_tally": dec.decide_final,
        }
        if step not in fn:
            raise InputError(f"signoria has no step {step!r}")
        return fn[step](s, choices, dice)

    def viewers(self, state: Any) -> list[str]:
        """Faction viewers: every player faction (neutrals are the GM's)."""
        s: SignoriaState = state
        return [f for f in s.initiative if s.factions[f].kind == "player"]

    def player_steps(self, state: Any, turn: int, viewer: str) -> list[str]:
        """The steps ``viewer`` may submit for ``turn``: its own command roll and sealed orders (§1.3, §4.3).

        Only an active player faction has any; the GM's steps (``turn_open``, the phases, upkeep) never.
        """
        s: SignoriaState = state
        fid = viewer.removeprefix("faction:")
        if fid not in s.players():
            return []
        own = (f"command_{fid}", f"orders_{fid}")
        return [p.id for p in self.phases_for(s, turn) if p.id in own]

    @staticmethod
    def _player(s: SignoriaState, fid: str, step: str) -> None:
        if fid not in s.players():
            raise InputError(f"[{step}] {fid!r} is not an active player faction")

    # -- views ------------------------------------------------------------------------------------------------------
    def redact(self, state: Any, viewer: str) -> SignoriaState:
        from kingdomlog.rulesets.signoria.redact import redact
        return redact(state, viewer)

    def summary(self, state: Any) -> dict[str, Any]:
        s: SignoriaState = state
        out: dict[str, Any] = {"turn": s.turn, "season": s.season, "viewer": s.viewer, "battles": len(s.battles),
                               "winner": s.winner}
        for fid in s.initiative:
            f = s.factions[fid]
            for r in RESOURCES:
                out[f"{fid}_{r}"] = getattr(f, r)
            out[f"{fid}_provinces"] = sum(1 for p in s.provinces.values() if p.owner == fid)
        return out

    def explain(self, state: Any) -> list[Breakdown]:
        s: SignoriaState = state
        out: list[Breakdown] = []
        season = data.season_of(s.turn + 1)
        for fid in s.players():
            f = s.factions[fid]
            if not f.known or f.wealth is None:
                continue  # a rival in a redacted view: only its learned values, nothing to derive
            mods = [Modifier(f"province {p.id}", p.income, source="§4.4") for p in s.provinces.values()
                    if p.owner == fid]
            mods += [Modifier(f"trade with {t.neutral}", 1, source="§7.2") for t in s.active_treaties(fid)
                     if t.type == "trade"]
            if season.wealth_bonus:
                mods.append(Modifier(f"season {season.name}", season.wealth_bonus, source="§4.5"))
            out.append(stack(f"{fid} next income", mods))
            cr = s.command.get(fid)
            if cr is not None:
                sp, od = command_slots(cr.stake, cr.success)
                out.append(stack(f"{fid} action slots", [Modifier(f"special ({cr.stake})", cr.special, source="§3.1"),
                                                         Modifier(f"ordinary ({cr.stake})", cr.ordinary,
                                                                  source="§3.1")],
                                 note=f"roll {list(cr.attempts[-1]) if cr.attempts else []}, success={cr.success}; "
                                      f"base {sp}+{od}"))
            for o in s.orders[fid].orders if fid in s.orders else ():
                if o.action in dec.FREE_ACTIONS or o.action in dec.ELEMENTARY_ONLY or o.stake == "elementary":
                    continue
                _, terms = dec.reroll_allowance(s, fid, o)
                mods = [Modifier(t, v, source="§3.4") for t, v in terms]
                out.append(stack(f"{fid} {o.id} ({o.action}) rerolls", mods))
            out.append(stack(f"{fid} statesman cap", [Modifier("Power", f.power or 0, source="§4.7")]))
            away = sum(c.units or 0 for c in s.campaigns.values() if c.faction == fid)
            out.append(stack(f"{fid} home force", [Modifier("Army", f.army or 0, source="§2.7"),
                                                   Modifier("on campaign", -away, source="§2.7")]))
            for n in s.neutrals():
                ts = [t for t in s.active_treaties(fid, n) if t.type in dec.COUNTED_TREATIES]
                if ts:
                    out.append(stack(f"{fid} treaties with {n}", [Modifier(t.type, 1, source="§7.2") for t in ts]))
        return out

    def render(self, state: Any) -> str:
        s: SignoriaState = state
        parts = [f"T{s.turn} {s.season}"]
        for fid in s.initiative:
            f = s.factions[fid]
            vals = " ".join(f"{k[:2].capitalize()}{'?' if getattr(f, k) is None else getattr(f, k)}"
                            + (f"@t{f.as_of[k]}" if k in f.as_of else "") for k in RESOURCES)
            parts.append(f"{fid} {vals}")
        occ = [f"{p.id}<{p.occupier}" for p in s.provinces.values() if p.occupier]
        if occ:
            parts.append("occupied " + ",".join(occ))
        return " | ".join(parts)

    def sql_views(self) -> Mapping[str, str]:
        text = resources.files("kingdomlog.rulesets.signoria").joinpath("signoria.sql").read_text(encoding="utf-8")
        views: dict[str, str] = {}
        parts = re.split(r"^-- view: (\w+)[ \t]*$", text, flags=re.M)
        for name, body in zip(parts[1::2], parts[2::2], strict=True):
            views[name] = body.strip().rstrip(";")
        return views

    def sample_events(self) -> list[Draft]:
        return sample_events()

    def sample_plans(self) -> list[dict[str, Any]]:
        return sample_plans()

    def data_tables(self) -> Mapping[str, Callable[[], Any]]:
        return {"traits": data.traits, "factions": data.factions, "provinces": data.provinces,
                "seasons": data.seasons, "adjacency": data.adjacency}


RULESET = SignoriaRuleset()
