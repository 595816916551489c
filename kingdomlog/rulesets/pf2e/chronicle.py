"""The PF2e chronicle: a sentence for each recorded event worth telling a player (§3 turn, §4 activities).

Sentences come from the recorded payloads (degrees, amounts, causes) and the states around the
event (names of settlements and structures). Bookkeeping with no story (turn markers, pending
dice, modifiers, cooldowns) says nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kingdomlog.core.dispatch import ByName
from kingdomlog.core.events import RecordedEvent
from kingdomlog.core.foreign import UNNAMED, ImportedKingdom
from kingdomlog.core.viewers import Viewer
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.mapview import WORK_SITES, title, words
from kingdomlog.rulesets.pf2e.state import KingdomState

Narrator = Callable[[KingdomState, Any, KingdomState], str | None]
_N: ByName[Narrator] = ByName()
narrates = _N.on
DEGREES = {"critical_success": "a critical success", "success": "a success", "failure": "a failure",
           "critical_failure": "a critical failure"}


def chronicle(before: KingdomState, event: RecordedEvent, after: KingdomState, viewer: Viewer) -> str | None:
    """A sentence about ``event`` for ``viewer``, or None."""
    fn = _N.get(event.type)
    return fn(before, event.payload, after) if fn else None


def _settlement(s: KingdomState, sid: str) -> str:
    st = next((x for x in s.settlements if x.id == sid), None)
    return st.name if st else title(sid)


def _named(s: KingdomState, table: str, tag: str) -> str:
    """An activity, structure, feat or event by its name in the rules data (``natures-blessing`` → "Nature's
    Blessing", a campaign's homebrew included), or its id in words when the data has no title for it."""
    row = getattr(T.catalog(s.homebrew), table).get(tag)
    return row.title if row is not None and row.title else title(tag)


CHECKS_NOT_ACTIVITIES = {"new-leadership": "took up the reins", "new-leadership-recheck": "held on to the reins"}
"""Checks the rules call for that are not activities a leader tries (§3.1 new leadership): what their
sentence says the leader did."""


def _a(name: str) -> str:
    """``Arcanist's Tower`` → ``an Arcanist's Tower``."""
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def _was(structure: str) -> str:
    """A structure whose name is a plural (Houses, Tenements, Mills) "were" built."""
    return "were" if structure.endswith("s") and not structure.endswith(("ss", "us")) else "was"


CAUSES = {"at war": "being at war", "landmark claimed": "claiming a landmark",
          "taxes flat check": "leaving the taxes uncollected", "unrest 10+": "Unrest at 10 or more",
          "unrest": "Unrest", "built": "building", "destroyed": "destroyed", "the GM": "the GM"}
"""Causes recorded in words that a sentence says otherwise (§3.1 C1: the flat check for not collecting taxes)."""


def _reason(s: KingdomState, cause: str) -> str:
    """A recorded cause in words: an activity, event, structure or feat by its name in the rules data
    (``repair-reputation`` → "Repair Reputation", ``event bandit-activity`` → "Bandit Activity"), a GM's ruling
    said as one, a degree as a degree, a work site by its hex; else the cause with its separators as spaces.

    >>> from kingdomlog.rulesets.pf2e.state import KingdomState
    >>> s = KingdomState()
    >>> _reason(s, "bandit-activity (GM ruling)"), _reason(s, "build houses"), _reason(s, "critical_success")
    ("Bandit Activity, by the GM's ruling", 'building the Houses', 'a critical success')
    >>> _reason(s, "trade commodities"), _reason(s, "work site A2"), _reason(s, "taxes flat check")
    ('Trade Commodities', 'the work site in hex A2', 'leaving the taxes uncollected')
    """
    cause = cause.strip()
    if cause.endswith("(GM ruling)"):
        return f"{_reason(s, cause.removesuffix('(GM ruling)'))}, by the GM's ruling"
    if cause in CAUSES:
        return CAUSES[cause]
    if cause in DEGREES:
        return DEGREES[cause]
    if cause.startswith("event "):
        return _named(s, "events", cause[len("event "):])
    if cause.startswith("work site "):
        return f"the work site in hex {cause[len('work site '):]}"
    if cause.startswith("build "):
        return f"building the {_named(s, 'structures', cause[len('build '):].replace(' ', '-'))}"
    if cause.startswith("battle "):
        return f"the battle of {title(cause[len('battle '):])}"
    tag = cause.replace(" ", "-")
    for table in ("activities", "events", "structures", "feats"):
        row = getattr(T.catalog(s.homebrew), table).get(tag)
        if row is not None and row.title:
            return str(row.title)
    return words(cause)


def _because(s: KingdomState, cause: str) -> str:
    return f" ({_reason(s, cause)})" if cause else ""


@narrates("pf2e.kingdom_founded")
def _founded(b: KingdomState, p: Any, a: KingdomState) -> str:
    return (f"{p.name} was founded under the {words(p.charter)} charter, with {p.settlement_name} as its first "
            f"settlement")


@narrates("pf2e.kingdom_imported")
def _imported(b: KingdomState, p: ImportedKingdom, a: KingdomState) -> str:
    size = sum(1 for h in a.hexes if h.claimed)
    towns = len(a.settlements)
    return (f"{a.name or 'The kingdom'} came from {p.came_from()}: level {a.level}, {size} claimed hex"
            f"{'' if size == 1 else 'es'}, {towns} settlement{'' if towns == 1 else 's'}" + p.left_behind())


@narrates("pf2e.leader_changed")
def _leader(b: KingdomState, p: Any, a: KingdomState) -> str:
    if not p.holder:
        return f"the post of {title(p.role)} fell vacant" + _because(a, p.cause)
    return f"{p.holder} became {title(p.role)}" + (" and was invested" if p.invested else "")


@narrates("pf2e.named")
def _named_by_gm(b: KingdomState, p: Any, a: KingdomState) -> str:
    if p.what == "settlement":
        was = _settlement(b, p.id)
    else:
        holder = b.leaders[p.id].holder if p.id in b.leaders else None
        was = f"the {title(p.id)}" if holder is None or holder.endswith(UNNAMED) else holder
    return f"the GM named {was.removesuffix(UNNAMED)}: {p.name}"


@narrates("pf2e.consumption_paid")
def _consumption(b: KingdomState, p: Any, a: KingdomState) -> str | None:
    if not p.consumption:
        return None
    if p.remainder > 0 and p.method == "unrest":
        return f"the kingdom went hungry: {p.remainder} Consumption unpaid"
    if p.method == "rp":
        food = f"{p.food} Food and " if p.food else ""
        return f"the kingdom fed itself with {food}{p.rp} RP"
    return f"the kingdom ate {p.food} Food"


def _leader_words(s: KingdomState, role: str) -> str:
    """Who acted in ``role``: its holder by name and the role ("Dorran, the Treasurer,"), or the role alone."""
    held = s.leaders.get(role)
    return f"{held.holder}, the {title(role)}," if held is not None and held.holder else f"the {title(role)}"


def _target(s: KingdomState, activity: str, target: str) -> str:
    """What an activity was done to, as the sentence goes on: a hex ("Claim Hex A2", "in hex A2"), an army by
    its name ("Deploy the Brightwater Militia"), a Ruin by its name ("against Crime"), else in parentheses."""
    if activity.endswith("hex"):
        return f" {target}"
    if any(h.id == target for h in s.hexes):
        return f" in hex {target}"
    army = next((x for x in s.army_units if x.id == target), None)
    if army is not None:
        return f" {'' if army.name.lower().startswith('the ') else 'the '}{army.name}"
    if target in s.ruin:
        return f" against {title(target)}"
    return f" ({words(target)})"


@narrates("pf2e.check_resolved")
def _check(b: KingdomState, p: Any, a: KingdomState) -> str:
    """A check by who made it and the activity by its name: "Dorran, the Treasurer, tried to Provide Care: a
    success"; "the kingdom tried to Deploy the Brightwater Militia: a success"; an event's check "the
    kingdom met Nature's Blessing: a success"."""
    where = f" in {_settlement(a, p.settlement)}" if p.settlement else ""
    target = "" if not p.target or p.settlement else _target(a, p.activity, p.target)
    who = _leader_words(a, p.role) if p.role else "the kingdom"
    if p.category == "event":
        did = f"met {_named(a, 'events', p.activity)}"
    else:
        did = CHECKS_NOT_ACTIVITIES.get(p.activity) or f"tried to {_named(a, 'activities', p.activity)}"
    return f"{who} {did}{where}{target}: {DEGREES.get(p.degree, words(p.degree))}"


@narrates("pf2e.resource_dice_rolled")
def _resource(b: KingdomState, p: Any, a: KingdomState) -> str:
    return f"the kingdom's work brought in {p.total} Resource Points"


@narrates("pf2e.commodity_changed")
def _commodity(b: KingdomState, p: Any, a: KingdomState) -> str | None:
    if not p.delta:
        return None
    lost = f", {p.lost_to_cap} lost for want of storage" if p.lost_to_cap else ""
    verb = "gained" if p.delta > 0 else "spent"
    return f"the kingdom {verb} {abs(p.delta)} {title(p.commodity)}{_because(a, p.cause)}{lost}"


@narrates("pf2e.unrest_changed")
def _unrest(b: KingdomState, p: Any, a: KingdomState) -> str | None:
    if not p.delta:
        return None
    return f"{_cause_name(a, p.cause) if p.cause else 'Events'} {'raised' if p.delta > 0 else 'lowered'} " \
           f"Unrest by {abs(p.delta)}"


def _cause_name(s: KingdomState, cause: str) -> str:
    """What raised or lowered a figure, as the sentence's subject: an ongoing event by its name in the rules data
    (``event bandit-activity`` → "Bandit Activity"), else the cause in words."""
    said = _reason(s, cause)
    return said[:1].upper() + said[1:]


@narrates("pf2e.ruin_changed")
def _ruin(b: KingdomState, p: Any, a: KingdomState) -> str | None:
    if not p.delta:
        return None
    return f"{p.ruin.capitalize()} {'grew' if p.delta > 0 else 'eased'} by {abs(p.delta)}{_because(a, p.cause)}"


@narrates("pf2e.ruin_penalty_changed")
def _ruin_penalty(b: KingdomState, p: Any, a: KingdomState) -> str:
    return f"{p.ruin.capitalize()} now weighs on the kingdom ({p.delta:+d})"


@narrates("pf2e.fame_changed")
def _fame(b: KingdomState, p: Any, a: KingdomState) -> str | None:
    return f"the kingdom's Fame {'grew' if p.delta > 0 else 'fell'} by {abs(p.delta)}{_because(a, p.reason)}" \
        if p.delta else None


@narrates("pf2e.hex_claimed")
def _claimed(b: KingdomState, p: Any, a: KingdomState) -> str:
    return f"the kingdom claimed hex {p.hex.id}, {p.hex.terrain}" + (f" ({p.xp} XP)" if p.xp else "")


@narrates("pf2e.hex_placed")
def _placed(b: KingdomState, p: Any, a: KingdomState) -> str:
    return f"hex {p.hex_id} was placed on the map"


@narrates("pf2e.hex_lost")
def _lost(b: KingdomState, p: Any, a: KingdomState) -> str:
    if p.cause == "unrest":
        return f"the kingdom lost hex {p.hex_id} to Unrest"
    return f"the kingdom lost hex {p.hex_id}{_because(a, p.cause)}"


@narrates("pf2e.work_site_established")
def _work_site(b: KingdomState, p: Any, a: KingdomState) -> str:
    return f"a {WORK_SITES.get(p.commodity, 'work site')} was established in hex {p.hex_id}"


@narrates("pf2e.farmland_established")
def _farmland(b: KingdomState, p: Any, a: KingdomState) -> str:
    hexes = ", ".join(p.hex_ids)
    return f"farmland was sown in hex {hexes} for {_settlement(a, p.settlement)}"


@narrates("pf2e.roads_built")
def _roads(b: KingdomState, p: Any, a: KingdomState) -> str:
    return f"roads were built through hex {', '.join(p.hex_ids)}" + (" with a bridge" if p.bridge_added else "")


@narrates("pf2e.settlement_founded")
def _settlement_founded(b: KingdomState, p: Any, a: KingdomState) -> str:
    return f"{p.name} was founded in hex {p.hex_id}" + (" as the capital" if p.capital else "")


@narrates("pf2e.structure_built", "pf2e.infrastructure_built")
def _built(b: KingdomState, p: Any, a: KingdomState) -> str:
    if p.replaces:
        return (f"in {_settlement(a, p.settlement)}, the {_named(a, 'structures', p.replaces)} {_was(p.replaces)} "
                f"replaced by {_a(_named(a, 'structures', p.structure))}")
    return f"in {_settlement(a, p.settlement)}, the {_named(a, 'structures', p.structure)} {_was(p.structure)} built"


@narrates("pf2e.structure_not_built")
def _not_built(b: KingdomState, p: Any, a: KingdomState) -> str:
    return (f"the {_named(a, 'structures', p.structure)} of {_settlement(a, p.settlement)} {_was(p.structure)} "
            "not built") + (
        ", leaving rubble" if p.rubble else "")


@narrates("pf2e.lots_cleared")
def _cleared(b: KingdomState, p: Any, a: KingdomState) -> str:
    return f"rubble was cleared in {_settlement(a, p.settlement)}"


@narrates("pf2e.kingdom_event_occurred")
def _event(b: KingdomState, p: Any, a: KingdomState) -> str:
    where = f" ({p.target})" if p.target and p.target != "kingdom" else ""
    return f"an event befell the kingdom: {_named(a, 'events', p.name)}{where}"


@narrates("pf2e.kingdom_event_resolved")
def _event_done(b: KingdomState, p: Any, a: KingdomState) -> str | None:
    """What became of an event once met: it goes on, or an ongoing one came to an end. How its check went is
    the check's own sentence ("the kingdom met Nature's Blessing: a success"), not said twice; an event that
    ends as it is met says nothing more."""
    name = _named(a, "events", p.name)
    if p.continues:
        return f"{name} goes on"
    if any(o.name == p.name for o in b.ongoing_events):
        return f"{name} came to an end"
    return None if p.degree else f"{name} passed without effect"


@narrates("pf2e.milestone_achieved")
def _milestone(b: KingdomState, p: Any, a: KingdomState) -> str:
    return f"a milestone: the {words(p.milestone)} ({p.xp} XP)"


@narrates("pf2e.leveled_up")
def _level(b: KingdomState, p: Any, a: KingdomState) -> str:
    feat = f" and took the feat {_named(a, 'feats', p.feat)}" if p.feat else ""
    return f"the kingdom rose to level {p.level_to}{feat}"


@narrates("pf2e.rp_converted")
def _converted(b: KingdomState, p: Any, a: KingdomState) -> str | None:
    return f"{p.rp} unspent Resource Points became {p.xp} XP" if p.xp else None


@narrates("pf2e.relations_changed")
def _relations(b: KingdomState, p: Any, a: KingdomState) -> str:
    kind = words(p.kind)
    return f"a {kind} with {title(p.group)} was {'made' if p.added else 'ended'}"


@narrates("pf2e.war_status_changed")
def _war(b: KingdomState, p: Any, a: KingdomState) -> str:
    return "the kingdom went to war" if p.at_war else "the kingdom made peace"


@narrates("pf2e.activity_unlocked")
def _unlocked(b: KingdomState, p: Any, a: KingdomState) -> str:
    return f"the kingdom can now {_named(a, 'activities', p.activity)}"
