"""The aikakirjat chronicle: a sentence for each year's events worth telling (spec §3, §4).

aikakirjat events record their outcome as a state patch plus the dice and an ``audit``
of what decided it; a sentence names what happened (from the event and its audit) and
what it changed (from the states before and after, both redacted for the viewer).
Routine markers (a year begins or ends, fame for surviving a year) say nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kingdomlog.core.dispatch import ByName
from kingdomlog.core.events import RecordedEvent
from kingdomlog.core.viewers import Viewer
from kingdomlog.rulesets.aikakirjat.mapview import PLAYERS, and_list, institution_name, province_name, title, words
from kingdomlog.rulesets.aikakirjat.state import KingdomState
from kingdomlog.rulesets.aikakirjat.tables import TRACKS

Narrator = Callable[[KingdomState, Any, KingdomState], str | None]
_N: ByName[Narrator] = ByName()
narrates = _N.on


def chronicle(before: KingdomState, event: RecordedEvent, after: KingdomState, viewer: Viewer) -> str | None:
    """A sentence about ``event`` for ``viewer``, or None."""
    fn = _N.get(event.type)
    return fn(before, event.payload, after) if fn else None


def changes(b: KingdomState, a: KingdomState) -> list[str]:
    """What changed in the figures a player follows: ``population grew from 3 to 4``."""
    out = []
    for label, x, y in (("population", b.population, a.population), ("unrest", b.unrest, a.unrest),
                        ("fame", b.fame, a.fame), ("militia", b.militia, a.militia),
                        ("technology", b.technology_level, a.technology_level),
                        ("research", b.research_points, a.research_points)):
        if x != y:
            out.append(f"{label} {'rose' if y > x else 'fell'} from {x} to {y}")
    for t in TRACKS:
        x = b.tracks[t].points if t in b.tracks else 0
        y = a.tracks[t].points if t in a.tracks else 0
        if x != y:
            out.append(f"{t} {'rose' if y > x else 'fell'} from {x} to {y}")
    for nid, n in a.neighbours.items():
        old = b.neighbours.get(nid)
        if old is not None and old.diplomacy != n.diplomacy:
            out.append(f"relations with {n.name} {'warmed' if n.diplomacy > old.diplomacy else 'cooled'} "
                       f"({old.diplomacy:+d} to {n.diplomacy:+d})")
    for pid, p in a.provinces.items():
        old_p = b.provinces.get(pid)
        if old_p is not None and old_p.controller != p.controller:
            out.append(f"{province_name(pid)} fell to {_who(a, p.controller)}")
    return out


def _who(s: KingdomState, owner: str) -> str:
    if owner == PLAYERS:
        return s.name or "the kingdom"
    n = s.neighbours.get(owner)
    return n.name if n else words(owner)


def _with(text: str, b: KingdomState, a: KingdomState) -> str:
    ch = changes(b, a)
    return f"{text}: {'; '.join(ch)}" if ch else text


@narrates("aikakirjat.kingdom_founded")
def _founded(b: KingdomState, p: Any, a: KingdomState) -> str:
    ns = and_list([n.name for n in p.neighbours])
    return (f"{p.name} was founded under {words(p.government)}, {p.population} population strong"
            + (f", between {ns}" if ns else ""))


@narrates("aikakirjat.session_started")
def _session(b: KingdomState, p: Any, a: KingdomState) -> str:
    return f"a new age of the kingdom began: {a.session.years_total} years to tell"


@narrates("aikakirjat.session_ended")
def _session_end(b: KingdomState, p: Any, a: KingdomState) -> str:
    return "the age came to its end"


TOLD_BY_THEIR_OWN = frozenset({"natural_disaster", "plague", "neighbour_event"})
"""Random events whose own event tells what they did ("a natural disaster struck: ..."): the roll says nothing."""
FATE_WORDS = {"poor_harvest": "a poor harvest", "good_omens": "good omens", "bad_omens": "bad omens"}


@narrates("aikakirjat.random_event_rolled")
def _random(b: KingdomState, p: Any, a: KingdomState) -> str | None:
    key = str(p.audit.get("result_key", ""))
    if key in ("", "nothing") or key in TOLD_BY_THEIR_OWN:
        return None
    return _with(f"fate turned: {FATE_WORDS.get(key, words(key))}", b, a)


@narrates("aikakirjat.natural_disaster_resolved")
def _disaster(b: KingdomState, p: Any, a: KingdomState) -> str:
    return _with("a natural disaster struck", b, a)


@narrates("aikakirjat.plague_resolved")
def _plague(b: KingdomState, p: Any, a: KingdomState) -> str:
    return _with("plague swept the land", b, a)


@narrates("aikakirjat.evil_manifested")
def _evil(b: KingdomState, p: Any, a: KingdomState) -> str:
    return _with(f"an evil presence settled on the kingdom's {p.ability}", b, a)


@narrates("aikakirjat.evil_vanquished")
def _evil_gone(b: KingdomState, p: Any, a: KingdomState) -> str:
    return _with(f"the evil preying on its {p.ability} was driven out", b, a)


@narrates("aikakirjat.new_god_appeared")
def _god(b: KingdomState, p: Any, a: KingdomState) -> str:
    return _with(f"a new god appeared, and the kingdom chose to {p.choice} it", b, a)


@narrates("aikakirjat.neighbour_event_rolled")
def _neighbour(b: KingdomState, p: Any, a: KingdomState) -> str:
    n = a.neighbours.get(p.neighbour_id)
    key = str(p.audit.get("result_key", "news"))
    return _with(f"news came from {n.name if n else words(p.neighbour_id)} ({words(key)})", b, a)


@narrates("aikakirjat.growth_rolled")
def _growth(b: KingdomState, p: Any, a: KingdomState) -> str:
    if a.population > b.population:
        return f"the people multiplied: population grew from {b.population} to {a.population}"
    if a.population < b.population:
        return f"the population shrank from {b.population} to {a.population}"
    return "the population held steady"


ACTION_WORDS = {"embassy": "send an embassy", "attract_population": "draw settlers",
                "research": "pursue research", "reduce_corruption": "root out corruption",
                "tax_collection": "collect taxes", "declare_war": "declare war",
                "reduce_unrest": "calm the people", "equip": "equip the army",
                "building_project": "work on a building project"}


@narrates("aikakirjat.action_taken")
def _action(b: KingdomState, p: Any, a: KingdomState) -> str:
    who = "the kingdom" if p.performer == "kingdom" else (a.pcs[p.pc_id].name if p.pc_id in a.pcs else "a hero")
    what = ACTION_WORDS.get(p.action, words(p.action))
    target = ""
    if p.neighbour_id and p.neighbour_id in a.neighbours and p.action in ("embassy", "declare_war"):
        target = f" {'to' if p.action == 'embassy' else 'on'} {a.neighbours[p.neighbour_id].name}"
    return _with(f"{who} set out to {what}{target}", b, a)


@narrates("aikakirjat.levy_die_gained")
def _levy(b: KingdomState, p: Any, a: KingdomState) -> str:
    return f"the levy grew: militia rose from {b.militia} to {a.militia}"


@narrates("aikakirjat.revolution_rolled")
def _revolution(b: KingdomState, p: Any, a: KingdomState) -> str:
    if a.government != b.government:
        return _with(f"revolution! {words(b.government).capitalize()} gave way to {words(a.government)}", b, a)
    return _with("revolution shook the kingdom", b, a)


@narrates("aikakirjat.government_changed")
def _government(b: KingdomState, p: Any, a: KingdomState) -> str:
    return f"the kingdom took up {words(p.to)}"


@narrates("aikakirjat.war_begun")
def _war(b: KingdomState, p: Any, a: KingdomState) -> str:
    foe = p.defender if p.attacker == PLAYERS else p.attacker
    return f"war broke out with {_who(a, foe)}"


@narrates("aikakirjat.war_year_started")
def _war_year(b: KingdomState, p: Any, a: KingdomState) -> str:
    ours = sum(x.militia for x in p.allocations)
    theirs = sum(x.militia for x in p.enemy_allocations)
    return f"the armies took the field: {ours} militia against {theirs}"


@narrates("aikakirjat.war_turn_resolved")
def _war_turn(b: KingdomState, p: Any, a: KingdomState) -> str:
    ours_b = sum(x.militia for x in b.armies if x.owner == PLAYERS)
    ours_a = sum(x.militia for x in a.armies if x.owner == PLAYERS)
    theirs_b = sum(x.militia for x in b.armies if x.owner != PLAYERS)
    theirs_a = sum(x.militia for x in a.armies if x.owner != PLAYERS)
    text = f"a season of war (turn {p.war_turn})"
    losses = []
    if ours_a < ours_b:
        losses.append(f"we lost {ours_b - ours_a} militia")
    if theirs_a < theirs_b:
        losses.append(f"the enemy lost {theirs_b - theirs_a}")
    text += ": " + ", ".join(losses) if losses else ": the armies manoeuvred"
    return _with(text, b, a)


@narrates("aikakirjat.war_ended")
def _war_end(b: KingdomState, p: Any, a: KingdomState) -> str:
    war = next((w for w in b.wars if w.war_id == p.war_id), None)
    foe = (war.defender if war.attacker == PLAYERS else war.attacker) if war else ""
    who = f" with {_who(b, foe)}" if foe else ""
    won = {PLAYERS: ", and we won"}.get(p.winner or "", f", and {_who(b, p.winner)} won" if p.winner else "")
    return _with(f"the war{who} ended{won}", b, a)


@narrates("aikakirjat.war_upkeep_applied")
def _war_upkeep(b: KingdomState, p: Any, a: KingdomState) -> str | None:
    return _with("war wore the kingdom down", b, a) if p.technology_reduction else None


@narrates("aikakirjat.law_and_order_used")
def _law(b: KingdomState, p: Any, a: KingdomState) -> str:
    return _with(f"the kingdom used Law and Order on {p.track}", b, a)


@narrates("aikakirjat.fame_gained")
def _fame(b: KingdomState, p: Any, a: KingdomState) -> str | None:
    if p.source == "survived_year":
        return None
    return f"the kingdom's fame grew by {p.amount} ({words(p.source)})"


@narrates("aikakirjat.level_changed")
def _level(b: KingdomState, p: Any, a: KingdomState) -> str:
    verb = "rose" if p.to_level > p.from_level else "fell"
    return f"the kingdom {verb} to level {p.to_level}"


@narrates("aikakirjat.benefit_chosen")
def _benefit(b: KingdomState, p: Any, a: KingdomState) -> str:
    if p.feat:
        return f"the kingdom mastered a new feat: {title(p.feat)}"
    return f"the kingdom chose its reward of level {p.level}: {words(p.benefit)}"


@narrates("aikakirjat.institution_founded")
def _institution(b: KingdomState, p: Any, a: KingdomState) -> str:
    pc = a.pcs.get(p.pc_id) if getattr(p, "pc_id", None) else None
    by = f" by {pc.name}" if pc is not None else ""
    return _with(f"a new {words(p.kind)} was founded{by}, {institution_name(p.institution_id, p.kind)}", b, a)


@narrates("aikakirjat.pc_level_reached")
def _pc(b: KingdomState, p: Any, a: KingdomState) -> str:
    pc = a.pcs.get(p.pc_id)
    return f"{pc.name if pc else words(p.pc_id)} reached level {p.level}"


@narrates("aikakirjat.gm_adjustment")
def _gm(b: KingdomState, p: Any, a: KingdomState) -> str | None:
    ch = changes(b, a)
    reason = p.reason or "by the GM's ruling"
    return f"{'; '.join(ch)} ({reason})" if ch else None
