"""``evolve`` for aikakirjat: apply what an event recorded; never re-run the rules to re-derive or re-check it.

- A ``Recorded`` event (every event whose effect the rules compute) carries its
  effect as ``outcome``, a ``StatePatch``: ``evolve`` applies it. The one check it makes
  is that the recorded dice fit their own notation (faces on the dice, the total they
  give); a die that does not is a fault of the log (``CorruptLogError``).
- A ``Recorded`` event without an outcome (version 1, written before outcomes were
  recorded, or appended by hand) is folded by today's rules on its recorded dice: the
  legacy path. ``audit`` reports every such event; if today's rules cannot apply it the
  log cannot be folded (``CorruptLogError`` naming the seq and the reason).
- The founding, year start and end, session end, fame gained and evil vanquished
  record everything their effect needs and are applied directly.

The rules' checks of all of these (step order, prerequisites, what a roll should
give) run in ``decide`` (a refusal) and ``audit`` (a warning), not here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kingdomlog.core.dispatch import Handlers
from kingdomlog.core.errors import CorruptLogError, InputError, RuleError
from kingdomlog.core.events import RecordedEvent
from kingdomlog.core.patch import apply_patch
from kingdomlog.rulesets.aikakirjat import tables
from kingdomlog.rulesets.aikakirjat.events import (
    RECORDED_TYPES,
    EvilVanquished,
    FameGained,
    KingdomFounded,
    Recorded,
    Resolved,
    SessionEnded,
    YearEnded,
    YearStarted,
)
from kingdomlog.rulesets.aikakirjat.outcomes import outcome
from kingdomlog.rulesets.aikakirjat.state import KingdomState, Track
from kingdomlog.rulesets.aikakirjat.tables import ABILITIES, TRACKS
from kingdomlog.rulesets.aikakirjat.tape import ReplayTape, fits

Fold = Callable[[KingdomState, Any, int], KingdomState]
"""How one event type is applied: ``(state, payload, seq) -> state``."""

FOLDS: Handlers[Fold] = Handlers()


def evolve(state: KingdomState, event: RecordedEvent) -> KingdomState:
    """Apply one aikakirjat event (pure; ``Ruleset.apply`` has already refused other rulesets' events)."""
    fold = FOLDS.get(event.payload)
    if fold is None:
        raise CorruptLogError(f"aikakirjat cannot apply event type {event.type!r}"
                              f" (payload {type(event.payload).__name__})", seq=event.seq)
    return fold(state, event.payload, event.seq)


def recorded(s: KingdomState, p: Recorded, seq: int) -> KingdomState:
    """Apply a recorded outcome; without one (v1), fold the event by today's rules (the legacy path)."""
    if isinstance(p, Resolved):
        for die in p.dice:
            problem = fits(die)
            if problem:
                raise CorruptLogError(f"{p.type}: recorded {problem}", seq=seq)
    if p.outcome is not None:
        return apply_patch(s, p.outcome, seq=seq)
    return legacy(s, p, seq)


def legacy(s: KingdomState, p: Recorded, seq: int) -> KingdomState:
    """A v1 event records no outcome (an upcaster cannot compute one without the state): today's rules fold it."""
    try:
        tape = ReplayTape(p.dice if isinstance(p, Resolved) else (), where=p.type)
        new, _ = outcome(s, p, tape)
    except (RuleError, InputError) as exc:
        raise CorruptLogError(f"{p.type} records no outcome (v1) and today's rules cannot apply it: {exc}",
                              seq=seq) from None
    return new


for _t in RECORDED_TYPES:
    FOLDS.on(_t)(recorded)


@FOLDS.on(KingdomFounded)
def founded(s: KingdomState, e: KingdomFounded, seq: int) -> KingdomState:
    """Turn 0 (§2, §7.1): the founding values as recorded."""
    if e.government not in tables.GOVERNMENTS or set(e.base_scores) != set(ABILITIES):
        raise CorruptLogError(f"{e.type}: government {e.government!r} and scores {sorted(e.base_scores)} do not fit"
                              f" the state (governments: {', '.join(tables.GOVERNMENTS)};"
                              f" abilities: {', '.join(ABILITIES)})", seq=seq)
    options = {**s.options, **e.options}
    return s.model_copy(update={
        "options": options, "name": e.name, "founded": True, "phase": "between_years", "year": 0,
        "government": e.government, "base_scores": dict(e.base_scores),
        "improvements": dict.fromkeys(ABILITIES, 0), "tracks": {t: Track() for t in TRACKS},
        "population": e.population, "population_at_year_start": e.population,
        "territory": tuple(e.territory), "militia": e.militia, "levy_dice": e.levy_dice,
        "technology_level": e.technology_level, "mobility": e.mobility, "fire_capable": e.fire_capable,
        "chosen_proficiencies": (e.extra_proficiency,),
        "neighbours": {n.id: n for n in e.neighbours}, "provinces": {p.id: p for p in e.provinces},
        "pcs": dict(e.pcs), "special_units": tuple(e.special_units),
    })


@FOLDS.on(YearStarted)
def year_started(s: KingdomState, e: YearStarted, seq: int) -> KingdomState:
    """Step 0 (§4.1): the year counter and the population snapshot."""
    return s.model_copy(update={"year": e.year, "population_at_year_start": s.population, "phase": "start",
                                "actions_used": 0, "actions_forfeited": False, "war_declared_this_year": False})


@FOLDS.on(YearEnded)
def year_ended(s: KingdomState, e: YearEnded, seq: int) -> KingdomState:
    """Step 5 done (§4.6): year-scoped state cleared, one more year of the session played."""
    sess = s.session.model_copy(update={"years_played": s.session.years_played + 1})
    return s.model_copy(update={
        "phase": "between_years", "population_rose_last_year": s.population > s.population_at_year_start,
        "year_flags": (), "year_advantages": 0, "revolution_rolled_this_year": False, "revolution_due": None,
        "pc_assignments_this_year": (), "session": sess,
        "special_units": tuple(u.model_copy(update={"used_this_year": False}) for u in s.special_units),
        "wars": tuple(w.model_copy(update={"supremacy": {}}) for w in s.wars),
    })


@FOLDS.on(SessionEnded)
def session_ended(s: KingdomState, e: SessionEnded, seq: int) -> KingdomState:
    """A marker for historians: the session's years were counted by ``year_ended``."""
    return s


@FOLDS.on(FameGained)
def fame_gained(s: KingdomState, e: FameGained, seq: int) -> KingdomState:
    """Fame (§3.3): the recorded amount."""
    return s.model_copy(update={"fame": s.fame + e.amount})


@FOLDS.on(EvilVanquished)
def evil_vanquished(s: KingdomState, e: EvilVanquished, seq: int) -> KingdomState:
    """The GM records the evil put right (A30)."""
    return s.model_copy(update={"evil_presence": {k: v for k, v in s.evil_presence.items() if k != e.ability}})
