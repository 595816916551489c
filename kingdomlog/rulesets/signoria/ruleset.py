"""The Signoria ruleset object: steps, options, vocabulary, evolve, audit, redact, views (spec signoria.md).

A regular turn is: ``turn_open``; one ``command_<faction>`` and one ``orders_<faction>`` step per
active player faction (the player's own sheet, actor = the faction); then the five resolution
phases in the seed's order (``p1_internal`` .. ``p5_hiring``) and ``upkeep``. Turn 0 is ``setup``;
the last turn (12 by default) is ``final_tally``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from kingdomlog.core.choices import Option
from kingdomlog.core.events import Draft, EventModel, RecordedEvent
from kingdomlog.core.modifiers import Modifier, stack
from kingdomlog.core.ruleset import Breakdown, CampaignContext, LazyFold, OptionSpec, Step
from kingdomlog.core.viewers import Viewer
from kingdomlog.core.working import CopyOnWriteRuleset
from kingdomlog.rulesets.signoria import tables as data
from kingdomlog.rulesets.signoria.options import OPTIONS
from kingdomlog.rulesets.signoria.redact import redact as _redact
from kingdomlog.rulesets.signoria.rules import COUNTED_TREATIES, ELEMENTARY_ONLY, FREE_ACTIONS, command_slots
from kingdomlog.rulesets.signoria.state import (
    FACTION_BETTER,
    RESOURCES,
    SignoriaState,
    home_force_breakdown,
    reroll_allowance,
)
from kingdomlog.rulesets.signoria.vocabulary import TREATY_WORDS, logged_order_check_words, rerolls_name
from kingdomlog.rulesets.signoria.vocabulary import battle_roll_words as _battle_roll_words
from kingdomlog.rulesets.signoria.vocabulary import name_of as _name_of
from kingdomlog.rulesets.signoria.vocabulary import vocabulary as _vocabulary

if TYPE_CHECKING:
    from kingdomlog.core.board import Board
    from kingdomlog.dice.checks import CheckSpec
    from kingdomlog.dice.roller import Roll

__all__ = ["OPTIONS", "RULESET", "SignoriaRuleset"]

# What only playing, auditing, narrating or drawing a turn needs (the steps and their forms, the audit, the
# chronicle, the map, the samples) is imported where it is used, and the payload classes and the fold at the first
# event decoded or folded (core.ruleset's type loader asks `event_types`): a warm `kingdomlog state` reads a snapshot,
# decodes no signoria event and plays no step.

_FOLD = LazyFold[SignoriaState]("kingdomlog.rulesets.signoria.evolve")


class SignoriaRuleset(CopyOnWriteRuleset):
    """Signoria: several factions, sealed orders, a fixed resolution order, fog of war."""

    id = "signoria"
    name = "Signoria"
    aliases = ("Синьория", "signoria-felmonte", "Signoria of Felmonte")
    turn_unit = "month"
    redacts_hidden_events = True  # each faction's view is its own belief, built by redact from the truth
    panel_columns: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "factions": ("power", "piety", "wealth", "army"), "characters": ("role", "employer"),
        "treaties": ("parties", "neutral", "active"), "command": ("stake", "success"),
        "battles": ("province", "winner"),
    }

    @property
    def options(self) -> Sequence[OptionSpec]:
        return OPTIONS

    @property
    def event_types(self) -> Sequence[type[EventModel]]:
        from kingdomlog.rulesets.signoria.events import EVENT_TYPES  # registers them (core.ruleset's type loader asks)

        return EVENT_TYPES

    @property
    def phases(self) -> Sequence[Step]:
        """A regular turn of the setting's player factions (``phases_for`` builds it for the game's own)."""
        from kingdomlog.rulesets.signoria.decide import REGULAR, TURN_OPEN, command_step, orders_step, setting_players

        players = setting_players()
        return (TURN_OPEN, *(command_step(f, n) for f, n in players), *(orders_step(f, n) for f, n in players),
                *REGULAR)

    @property
    def all_steps(self) -> Sequence[Step]:
        """Setup, a regular turn (the own steps of the setting's player factions) and the final tally.

        A faction the GM adds (``extra_factions``) gets its own ``command_<f>``/``orders_<f>`` steps from
        ``phases_for``; they are not in this list (it cannot know them without a state).
        """
        from kingdomlog.rulesets.signoria.decide import FINAL_TALLY, SETUP

        return (SETUP, *self.phases, FINAL_TALLY)

    def phases_for(self, state: Any, turn: int) -> Sequence[Step]:
        from kingdomlog.rulesets.signoria.decide import (
            FINAL_TALLY,
            REGULAR,
            SETUP,
            TURN_OPEN,
            command_step,
            orders_step,
        )

        s: SignoriaState = state
        if turn == 0 or not s.initiative:
            return (SETUP,)
        if s.finished:
            return ()
        if turn >= int(s.config.get("game_turns", 12)):
            return (FINAL_TALLY,)
        players = [(f, s.factions[f].name) for f in s.players()]
        return (TURN_OPEN, *(command_step(f, n) for f, n in players), *(orders_step(f, n) for f, n in players),
                *REGULAR)

    def initial_state(self, context: CampaignContext) -> SignoriaState:
        return SignoriaState(config=dict(context.options))

    def state_class(self, context: CampaignContext) -> type[SignoriaState]:
        return SignoriaState

    def evolve(self, state: Any, event: RecordedEvent) -> SignoriaState:
        return _FOLD(state, event)

    def audit(self, state: Any, event: RecordedEvent) -> list[str]:
        from kingdomlog.rulesets.signoria.audit import audit

        return audit(state, event)

    def boards(self, before: Any, step: str, choices: Mapping[str, Any], rolls: Sequence[Roll],
               checks: Mapping[str, CheckSpec], drafts: Sequence[Draft]) -> Sequence[Board]:
        """Phase 3: each battle as a board (``battleboard``)."""
        if step != "p3_war":
            return ()
        from kingdomlog.rulesets.signoria.battleboard import boards

        return boards(before, choices, rolls, checks, drafts)

    def name_of(self, id: str, kind: str = "") -> str:
        return _name_of(id, kind) or super().name_of(id, kind)

    def player_name(self, state: Any, player: str) -> str | None:
        """A player faction by its name in the state ("Duke Fabian"), None before it was founded."""
        f = state.factions.get(player)
        return f.name if f is not None and f.name else None

    def field_words(self, state: Any) -> Mapping[tuple[str, str, str], str]:
        """Each busy character's activity by the order that took them (``mapview.activity_words``: "intrigue
        abroad (special order 2)"; the state keeps the order's id, ``S2``)."""
        if not isinstance(state, SignoriaState):
            return {}
        from kingdomlog.rulesets.signoria.mapview import activity_words

        said = ((cid, activity_words(state, cid)) for cid in state.characters)
        return {("characters", cid, "activity"): w for cid, w in said if w is not None}

    def question_words(self, state: Any, kind: str, prompt: str, labels: list[str]) -> tuple[str, list[str]]:
        from kingdomlog.rulesets.signoria.mapview import question_words

        return question_words(state, kind, prompt, labels)

    def check_title(self, key: str, spec: CheckSpec) -> str | None:
        """A battle pool (§5.5) by what it rolls and its dice: "Battle of Fabia, round 1: the attacker's main army,
        7 dice at 5+", in the words its key computes whatever label was logged with it (a pool logged before these
        words, with its key or another label, reads as "Battle 1 of month 8, round 1: …"; the log is not changed).
        Its label is taken only when it is those words with the battle's place ("Battle of Fabia"), which the key
        alone cannot name. An order's 2d6 logged with its ids as its label ("fabian o1 bribery") reads in words
        ("Duke Fabian's order 1 to bribe: 2d6 +1"). Any other check: the sheet's shared title.

        >>> from kingdomlog.dice.checks import CheckSpec, PoolSpec
        >>> rs, key = SignoriaRuleset(), "b8.1.r1.attacker.main"
        >>> rs.check_title(key, CheckSpec("pool", pool=PoolSpec(7, 5), label="B8 1 r1 attacker main"))
        "Battle 1 of month 8, round 1: the attacker's main army, 7 dice at 5+"
        >>> rs.check_title(key, CheckSpec("pool", pool=PoolSpec(7, 5), label="Battle of Fabia, round 1: the "
        ...                                                                 "attacker's main army"))
        "Battle of Fabia, round 1: the attacker's main army, 7 dice at 5+"
        >>> rs.check_title("fabian.o1.1", CheckSpec("2d6", modifier=1, dc=7, label="fabian o1 bribery"))
        "Duke Fabian's order 1 to bribe: 2d6 +1 vs 7"
        """
        order = logged_order_check_words(spec.label) if spec.kind == "2d6" else None
        if order is not None:  # an order's check logged as "fabian o1 bribery" (before issue 29)
            mod = f" {spec.modifier:+d}" if spec.modifier else ""
            return f"{order}: 2d6{mod}" + ("" if spec.bands else f" vs {spec.dc}")
        said = _battle_roll_words(key)
        if said is None or spec.pool is None:
            return None
        said = said[:1].upper() + said[1:]
        rest = said[said.index(", round "):]  # what the key says after its battle: the round, side and group
        placed = spec.label.startswith("Battle of ") and spec.label.endswith(rest) and \
            ", round " not in spec.label[:-len(rest)]
        name = spec.label if placed else said
        n = spec.pool.count
        return f"{name}, {n} {'die' if n == 1 else 'dice'} at {spec.pool.threshold}+"

    def vocabulary(self, state: Any, source: str, within: Mapping[str, Any]) -> Sequence[Option] | None:
        try:
            return _vocabulary(state, source, within)
        except KeyError:
            return super().vocabulary(state, source, within)

    # -- players ------------------------------------------------------------------------------------------------
    def option_players(self, options: Mapping[str, Any]) -> list[str]:
        """Faction viewers: the player factions of the ``players`` option (§1.2; setup creates exactly these,
        neutrals are the GM's)."""
        return [str(p) for p in options.get("players") or []]

    def player_steps(self, state: Any, turn: int, viewer: Viewer) -> list[str]:
        """The steps ``viewer`` may submit for ``turn``: its own command roll and sealed orders (§1.3, §4.3).

        Only an active player faction has any; the GM's steps (``turn_open``, the phases, upkeep) never.
        """
        s: SignoriaState = state
        if not viewer.is_player or viewer.id not in s.players():
            return []
        own = (f"command_{viewer.id}", f"orders_{viewer.id}")
        return [p.id for p in self.phases_for(s, turn) if p.id in own]

    def redact(self, state: Any, viewer: Viewer) -> SignoriaState:
        return _redact(state, viewer)

    # -- reading ------------------------------------------------------------------------------------------------
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

    def better(self, key: str) -> Literal["up", "down", ""]:
        """A faction's figure (``<faction>_power``, ``<faction>_provinces``) by ``FACTION_BETTER``: more is
        better for that faction; the month, the season, the battles are neither."""
        faction, _, figure = key.rpartition("_")
        return FACTION_BETTER.get(figure, "") if faction else ""

    def explain(self, state: Any) -> list[Breakdown]:
        s: SignoriaState = state
        out: list[Breakdown] = []
        season = data.season_of(s.turn + 1)
        for fid in s.players():
            f = s.factions[fid]
            if not f.known or f.wealth is None:
                continue  # a rival in a redacted view: only its learned values, nothing to derive
            mods = [Modifier(p.name or p.id, p.income, source="§4.4") for p in s.provinces.values()
                    if p.owner == fid]  # a province by its name ("Gusso's lands")
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
                                 note=_command_note(cr.attempts[-1] if cr.attempts else (), cr.success, sp, od)))
            for o in s.orders[fid].orders if fid in s.orders else ():
                if o.action in FREE_ACTIONS or o.action in ELEMENTARY_ONLY or o.stake == "elementary":
                    continue
                _, terms = reroll_allowance(s, fid, o)
                mods = [Modifier(t, v, source="§3.4") for t, v in terms]
                out.append(stack(rerolls_name(fid, o), mods))
            out.append(stack(f"{fid} statesman cap", [Modifier("Power", f.power or 0, source="§4.7")]))
            out.append(home_force_breakdown(s, fid))
            for n in s.neutrals():
                ts = [t for t in s.active_treaties(fid, n) if t.type in COUNTED_TREATIES]
                if ts:
                    out.append(stack(f"{fid} treaties with {n}", [Modifier(_treaty(t.type), 1, source="§7.2")
                                                                   for t in ts]))
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

    # -- conformance --------------------------------------------------------------------------------------------
    def map(self, state: Any, viewer: Viewer) -> Any:
        from kingdomlog.rulesets.signoria.mapview import province_map

        return province_map(state, viewer)

    def chronicle(self, before: Any, event: RecordedEvent, after: Any, viewer: Viewer) -> str | None:
        from kingdomlog.rulesets.signoria.chronicle import chronicle

        return chronicle(before, event, after, viewer)

    def chronicle_section(self, event: RecordedEvent, viewer: Viewer) -> str:
        from kingdomlog.rulesets.signoria.chronicle import section

        return section(event, viewer)

    def portrait(self, state: Any, previous: Any, viewer: Viewer) -> Any:
        from kingdomlog.rulesets.signoria.mapview import portrait

        return portrait(state, previous, viewer)

    def sample_events(self) -> list[Draft]:
        from kingdomlog.rulesets.signoria.samples import sample_events

        return sample_events()

    def sample_plans(self) -> list[dict[str, Any]]:
        from kingdomlog.rulesets.signoria.samples import sample_plans

        return sample_plans()

    def data_tables(self) -> Mapping[str, Callable[[], Any]]:
        return {"traits": data.traits, "factions": data.factions, "provinces": data.provinces,
                "seasons": data.seasons, "adjacency": data.adjacency}


RULESET = SignoriaRuleset()


def _treaty(kind: str) -> str:
    """A treaty's type as §7.2 names it: ``non_aggression`` → "Non-aggression pact"."""
    said = TREATY_WORDS.get(kind, kind.replace("_", " "))
    return said[:1].upper() + said[1:]


def _command_note(faces: Sequence[int], success: bool, special: int, ordinary: int) -> str:
    """How a command roll gave its slots, in words (§3.1): "rolled 3 and 3: a success; 1 special and 2 ordinary
    slots at base" (it read "roll [3, 3], success=True; base 1+2").

    >>> _command_note((3, 3), True, 1, 2)
    'rolled 3 and 3: a success; 1 special and 2 ordinary slots at base'
    """
    rolled = " and ".join(str(x) for x in faces) or "nothing"
    return (f"rolled {rolled}: {'a success' if success else 'a failure'}; {special} special and {ordinary} ordinary"
            " slots at base")
