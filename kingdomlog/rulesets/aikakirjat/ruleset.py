"""The aikakirjat ruleset object (the plug-in seam of design §4)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from kingdomlog.core.choices import Option
from kingdomlog.core.events import Draft, EventModel, RecordedEvent
from kingdomlog.core.modifiers import Modifier, stack
from kingdomlog.core.ruleset import Breakdown, CampaignContext, OptionSpec, Ruleset, Seat, Step, validate_options
from kingdomlog.core.viewers import Viewer
from kingdomlog.rulesets.aikakirjat import rules as R
from kingdomlog.rulesets.aikakirjat import tables
from kingdomlog.rulesets.aikakirjat.events import EVENT_TYPES
from kingdomlog.rulesets.aikakirjat.evolve import evolve
from kingdomlog.rulesets.aikakirjat.mapview import portrait as _portrait
from kingdomlog.rulesets.aikakirjat.mapview import realm_map, record_names, title
from kingdomlog.rulesets.aikakirjat.options import OPTIONS
from kingdomlog.rulesets.aikakirjat.state import KingdomState
from kingdomlog.rulesets.aikakirjat.tables import ABILITIES, ABILITY_TRACK, TRACKS
from kingdomlog.rulesets.aikakirjat.vocabulary import FIGURE_WORDS, field_words, roll_words, vocabulary

if TYPE_CHECKING:
    from kingdomlog.core.board import Board
    from kingdomlog.dice.checks import CheckSpec
    from kingdomlog.dice.roller import Roll

# The steps and their forms (`decide`), the audit, the chronicle and the samples are imported where they are used:
# a warm `kingdomlog state` plays no step (they were about a third of this ruleset's import time). The payload
# classes stay: the rules' dice tape (`tape`) and the words of the figures (`vocabulary`) import them.


class Aikakirjat(Ruleset):
    """L&L Aikakirjat: yearly kingdom growth sessions, neighbours and wars.

    No hidden information: ``redact`` and ``player_steps`` keep the base's defaults
    (everything is shown, no step is a player's). Neighbour profiles (A39) are
    GM-maintained but not secret: war events carry their numbers in audits, so
    hiding them in the state would be pretence. The GM keeps secrets in GM-visible
    notes.
    """

    id = "aikakirjat"
    name = "L&L Aikakirjat"
    aliases = ("aikakirjat-5e", "Aikakirjat", "L&L Chronicles", "Valtakuntasäännöt")
    turn_unit = "year"
    chart_figures = (
        "culture_score", "economy_score", "loyalty_score", "stability_score", "population", "fame", "level",
        "unrest", "militia", "corruption_points", "research_points", "technology_level",
    )
    better_figures = tables.BETTER
    panel_columns: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "neighbours": ("diplomacy", "status"), "provinces": ("terrain", "owner"),
    }

    @property
    def options(self) -> Sequence[OptionSpec]:
        return OPTIONS

    @property
    def event_types(self) -> Sequence[type[EventModel]]:
        return EVENT_TYPES

    @property
    def phases(self) -> Sequence[Step]:
        from kingdomlog.rulesets.aikakirjat.decide import PHASES

        return PHASES

    @property
    def all_steps(self) -> Sequence[Step]:
        from kingdomlog.rulesets.aikakirjat.decide import FOUNDING, PHASES

        return (FOUNDING, *PHASES)

    def phases_for(self, state: Any, turn: int) -> Sequence[Step]:
        from kingdomlog.rulesets.aikakirjat.decide import FOUNDING, PHASES

        return (FOUNDING,) if turn == 0 else PHASES

    def initial_state(self, context: CampaignContext) -> KingdomState:
        opts = validate_options(OPTIONS, dict(context.options))
        return KingdomState(options=opts)

    def state_class(self, context: CampaignContext) -> type[KingdomState]:
        return KingdomState

    def evolve(self, state: Any, event: RecordedEvent) -> KingdomState:
        return evolve(state, event)

    def audit(self, state: Any, event: RecordedEvent) -> list[str]:
        from kingdomlog.rulesets.aikakirjat.audit import audit

        return audit(state, event)

    def boards(self, before: Any, step: str, choices: Mapping[str, Any], rolls: Sequence[Roll],
               checks: Mapping[str, CheckSpec], drafts: Sequence[Draft]) -> Sequence[Board]:
        """The war step: each war's year as a board (``battleboard``)."""
        if step != "war":
            return ()
        from kingdomlog.rulesets.aikakirjat.battleboard import boards

        return boards(before, choices, rolls, checks, drafts)

    def vocabulary(self, state: Any, source: str, within: Mapping[str, Any]) -> Sequence[Option] | None:
        return vocabulary(state, source, within)

    def name_of(self, id: str, kind: str = "") -> str:
        """The war's rolls in words (``vocabulary.roll_words``), a feat by its title as the report says it
        (``mapview.title``: ``law_and_order`` -> ``Law and Order``), a figure the panel heads in words
        (``FIGURE_WORDS``: ``Session``), a record's field's value (``field_words``: a founder ``pc`` -> ``a PC``),
        the rest as every ruleset names them."""
        named = (roll_words(id) if kind == "roll" else FIGURE_WORDS.get(id) if kind == "figure"
                 else field_words(kind, id) if kind.startswith("field:") else None)
        named = named if named is not None else title(id) if id in tables.feats() else (
            id.capitalize() if id in tables.governments() else None)  # "Republic", as the tile and profile say it
        return named if named is not None else super().name_of(id, kind)

    def record_names(self, state: Any) -> Mapping[str, str]:
        """Institutions and provinces by the names the report gives them (``mapview.record_names``)."""
        return record_names(state) if isinstance(state, KingdomState) else {}

    def seats(self, state: Any, turn: int, player: str, character: str) -> Sequence[Seat]:
        """A PC acts in the year's actions (§4.4): the one action that PC may perform this year (A75: each PC
        performs at most one, and only an action that allows a PC; the kingdom has a number a year, §2.9, shared
        by the PCs and the court). None for a PC who has acted this year, nor while a revolution takes the year's
        actions (§4.4.2). ``character`` is the PC's id or name."""
        s: KingdomState = state
        who = character.strip().casefold()
        if s.pending_revolution or s.actions_forfeited:
            return []
        return [Seat("actions", "actions", f"{pc.name}'s actions", {"performer": "pc", "pc_id": pid}, 1,
                     "one action a year for each PC, one that allows a PC (Embassy, Reduce Corruption, Declare War,"
                     " Reduce Unrest); the kingdom's actions this year are shared by the PCs and the court")
                for pid, pc in s.pcs.items() if who in (pid.casefold(), pc.name.strip().casefold())
                and pid not in s.pc_assignments_this_year]

    def summary(self, state: Any) -> dict[str, Any]:
        return summary(state)

    def explain(self, state: Any) -> list[Breakdown]:
        return explain(state)

    def render(self, state: Any) -> str:
        return render(state)

    def map(self, state: Any, viewer: Viewer) -> Any:
        return realm_map(state, viewer)

    def chronicle(self, before: Any, event: RecordedEvent, after: Any, viewer: Viewer) -> str | None:
        from kingdomlog.rulesets.aikakirjat.chronicle import chronicle

        return chronicle(before, event, after, viewer)

    def portrait(self, state: Any, previous: Any, viewer: Viewer) -> Any:
        return _portrait(state, previous, viewer)

    def sample_events(self) -> list[Draft]:
        from kingdomlog.rulesets.aikakirjat.samples import sample_events

        return sample_events()

    def sample_plans(self) -> list[dict[str, Any]]:
        from kingdomlog.rulesets.aikakirjat.samples import sample_plans

        return sample_plans()

    def data_tables(self) -> Mapping[str, Callable[[], Any]]:
        return dict(tables.DATA_TABLES)


def summary(s: KingdomState) -> dict[str, Any]:
    """Flat figures (the ``states`` SQL columns)."""
    out: dict[str, Any] = {
        "name": s.name, "year": s.year, "phase": s.phase, "government": s.government, "level": s.level,
        "title": R.title(s), "fame": s.fame, "population": s.population, "militia": s.militia,
        "levy_dice": s.levy_dice, "unrest": s.unrest, "unrest_modifier": R.unrest_modifier(s.unrest),
        "proficiency_bonus": R.proficiency_bonus(s), "actions_per_year": R.actions_per_year(s),
        "armies_max": R.armies_max(s), "stored_advantages": s.stored_advantages, "omen_modifier": s.omen_modifier,
        "research_points": s.research_points, "technology_level": s.technology_level, "naval_dice": s.naval_dice,
        "at_war": bool(s.wars), "wars": len(s.wars), "neighbours": len(s.neighbours),
        "institutions": len(s.institutions), "feats": ",".join(f.feat for f in s.feats),
        "session_no": s.session.session_no, "session_years_total": s.session.years_total,
        "session_years_played": s.session.years_played, "pending_revolution": s.pending_revolution,
        "fallen": s.fallen,
    }
    for a in ABILITIES:
        out[f"{a}_score"] = R.score(s, a)
        out[f"{a}_modifier"] = R.ability_modifier(s, a)
    for t in TRACKS:
        out[f"{t}_points"] = s.tracks[t].points
        out[f"{t}_modifier"] = s.tracks[t].modifier
    dc = R.growth_dc(s)
    out["growth_dc"] = dc
    return out


def explain(s: KingdomState) -> list[Breakdown]:
    """Every derived number of the state, term by term."""
    out: list[Breakdown] = []
    gov = tables.governments()[s.government]
    for a in ABILITIES:
        sc = stack(f"{a} score", [Modifier("base", s.base_scores[a], "untyped", "founding"),
                                  Modifier("improvements", s.improvements.get(a, 0), "untyped", "§3.2 ASI"),
                                  Modifier(f"government ({gov.name})", R.government_bonus(s.government, a),
                                           "untyped", "§3.4")])
        out.append(sc)
        out.append(Breakdown(f"{a} modifier", R.ability_modifier(s, a), note=f"floor(({sc.total} − 10) / 2) (§2.1)"))
        t = ABILITY_TRACK[a]
        out.append(Breakdown(f"{t} modifier", s.tracks[t].modifier,
                             note=f"{s.tracks[t].points} points of {sc.total} before the next step (§2.2)"))
    out.append(Breakdown("unrest modifier", R.unrest_modifier(s.unrest), note=f"−floor({s.unrest} / 5) (§2.8)"))
    out.append(Breakdown("proficiency bonus", R.proficiency_bonus(s), note=f"level {s.level} (§3.1)"))
    out.append(stack("actions per year", [Modifier("base", 1), Modifier("level ≥ 5", int(s.level >= 5)),
                                          Modifier("level ≥ 11", int(s.level >= 11)),
                                          Modifier("level ≥ 19", int(s.level >= 19))]))
    out.append(stack("armies", [Modifier("actions per year", R.actions_per_year(s)),
                                Modifier("General Staff", int(R.has_feat(s, "general_staff")))]))
    out.append(Breakdown("levy die", R.levy_die(s), note="d6, one step per Military Traditions / Census (§2.4)"))
    out.append(Breakdown("militia damage die", R.militia_damage_die(s), note=f"{gov.name} d{gov.damage_die} (§2.4)"))
    for sk in sorted(R.skill_map(s)):
        ab = R.skill_ability(s, sk)
        out.append(stack(f"{sk} bonus", [
            Modifier(f"{ab} modifier", R.ability_modifier(s, ab)),
            Modifier("proficiency", R.proficiency_term(s, sk), source="§2.5"),
            Modifier(f"{ABILITY_TRACK[ab]} modifier", R.corruption_modifier(s, ab), source="§2.2"),
            Modifier("unrest", R.unrest_modifier(s.unrest), source="§2.8")]))
    if s.founded:
        m, c, n, sp = R.living_space_row(s, s.population)
        dc = R.growth_dc(s)
        out.append(Breakdown("growth DC", dc if dc is not None else 0,
                             note=f"area {R.effective_area(s):g} hexes vs min {m} / crowded {c} / normal {n} / "
                                  f"sparse {sp} (§3.9)" + ("; no growth" if dc is None else "")))
    nxt = min(20, s.level + 1)
    out.append(Breakdown("next level", nxt, note=f"fame {s.fame}/{R.fame_required(nxt)}, "
                                                 f"population {s.population}/{R.population_required(nxt)} (§3.1)"))
    return out


def render(s: KingdomState) -> str:
    """Compact canonical text: ``name Y3 L1 Knight feudalism fame 2 pop 5 mil 4 unrest 7 C14 E13 L14 S13 ...``."""
    if not s.founded:
        return "aikakirjat: not founded"
    ab = " ".join(f"{a[0].upper()}{R.score(s, a)}" for a in ABILITIES)
    tr = " ".join(f"{t}:{s.tracks[t].points}/{s.tracks[t].modifier}" for t in TRACKS)
    war = f" war:{','.join(w.war_id for w in s.wars)}" if s.wars else ""
    return (f"{s.name} Y{s.year} L{s.level} {R.title(s)} {s.government} fame {s.fame} pop {s.population} "
            f"mil {s.militia} levy {s.levy_dice} unrest {s.unrest} {ab} {tr}{war}")


RULESET = Aikakirjat()
