"""The Signoria chronicle: each faction's month in prose — what it ordered, what happened, what it learned (§3–§7).

Only events the viewer may see reach these narrators (the chronicle folds hidden ones without
telling them); the states around each event are redacted for the viewer (§11.4), so a
sentence can only name what that faction knows. Orders are told to the faction that gave
them; intelligence and private notices to the faction that received them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from kingdomlog.core.dispatch import ByName
from kingdomlog.core.events import RecordedEvent
from kingdomlog.core.viewers import Viewer
from kingdomlog.rulesets.signoria.mapview import (
    INTEL_LISTS,
    OUTCOME_WORDS,
    SOURCE_WORDS,
    and_list,
    fname,
    named_ids,
    notice_words,
    order_words,
    province_name,
)
from kingdomlog.rulesets.signoria.state import SignoriaState
from kingdomlog.rulesets.signoria.vocabulary import TREATY_WORDS

ORDERED = "What we ordered"
LEARNED = "What we learned"
ORDERS_GIVEN = "The orders given"
HOUSES_LEARNED = "What the houses learned"
"""The same sections for the GM (who reads every house's): no "we" there."""

Narrator = Callable[[SignoriaState, Any, SignoriaState, str], str | None]
_N: ByName[Narrator] = ByName()
narrates = _N.on


def chronicle(before: SignoriaState, event: RecordedEvent, after: SignoriaState, viewer: Viewer) -> str | None:
    """A sentence about ``event`` for ``viewer`` (whose side ``after.viewer`` names), or None."""
    fn = _N.get(event.type)
    return fn(before, event.payload, after, after.viewer) if fn else None


def section(event: RecordedEvent, viewer: Viewer) -> str:
    """Orders under "What we ordered", intelligence and private notices under "What we learned"."""
    mine = viewer.is_player
    if event.type == "signoria.orders_submitted":
        return ORDERED if mine else ORDERS_GIVEN
    if event.type in ("signoria.intel_recorded", "signoria.faction_notified", "signoria.spy_exposed"):
        return LEARNED if mine else HOUSES_LEARNED
    return ""


def _we(s: SignoriaState, fid: str, me: str) -> str:
    return "we" if fid == me else fname(s, fid)


def _our(s: SignoriaState, fid: str, me: str) -> str:
    return "our" if fid == me else f"{fname(s, fid)}'s"


def _battle_place(s: SignoriaState, bid: str) -> str:
    """`` at Fabia`` for a battle the state knows, else nothing."""
    battle = next((x for x in s.battles if x.id == bid), None)
    return f" at {province_name(s, battle.province)}" if battle is not None else ""


def _reason(s: SignoriaState, reason: str) -> str:
    """Why a resource moved, in words: ``won b7.1`` → ``battle won at Valdoro``, ``killed in b7.1`` → ``lost in
    the battle at Valdoro``, ``plunder of marburg`` → ``plunder of Marburg``."""
    m = re.fullmatch(r"(won|lost) (\S+)", reason)
    if m:
        return f"battle {m.group(1)}{_battle_place(s, m.group(2))}"
    m = re.fullmatch(r"killed in (\S+)", reason)
    if m:
        return f"lost in the battle{_battle_place(s, m.group(1))}"
    m = re.fullmatch(r"plunder of (\S+)", reason)
    if m:
        return f"plunder of {province_name(s, m.group(1))}"
    if reason.startswith("support of "):
        return "support given"
    return reason.replace("_", " ")


@narrates("signoria.game_created")
def _created(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    return f"the game began: {len(p.initiative)} houses vie for the League"


@narrates("signoria.turn_opened")
def _turn(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    return f"{p.year_label} began"


@narrates("signoria.global_event")
def _global(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    return f"news across the League: {p.title}"


@narrates("signoria.command_roll")
def _command(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    """§3.1: the attempt as recorded (faces, success, the slots it gave: version 2 of the event)."""
    paid = f", a reroll paid with 1 {p.paid_with}" if p.paid_with else ""
    how = "succeeded" if p.success else "failed"
    who = "we have" if p.faction == me else f"{fname(a, p.faction)} has"
    return (f"{_our(a, p.faction, me)} command roll at {p.stake} stake{paid}: {p.dice[0]} and {p.dice[1]}, it {how};"
            f" this month {who} {p.special} special and {p.ordinary} ordinary actions")


@narrates("signoria.orders_submitted")
def _orders(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str | None:
    if not p.orders:
        return None
    who = "we" if p.faction == me else fname(a, p.faction)
    return f"{who} ordered: " + "; ".join(order_words(a, dict(o)) for o in p.orders)


@narrates("signoria.action_resolved")
def _action(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    what = order_words(a, {"action": p.action, "target": p.target})
    how = OUTCOME_WORDS.get(p.outcome, f"ended: {p.outcome.replace('_', ' ')}")
    return f"{_our(a, p.faction, me)} order to {what} {how}"


@narrates("signoria.resource_adjusted")
def _resource(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str | None:
    if not p.delta:
        return None
    verb = "rose" if p.delta > 0 else "fell"
    why = f" ({_reason(a, p.reason)})" if p.reason else ""
    short = f"; {p.shortfall} short" if p.shortfall else ""
    return f"{_our(a, p.faction, me)} {p.resource} {verb} by {abs(p.delta)}{why}{short}"


@narrates("signoria.income_credited")
def _income(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    return f"{_we(a, p.faction, me)} took in {p.total} wealth"


@narrates("signoria.intel_recorded")
def _intel(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str | None:
    if p.turn == 0 and p.source == "public":
        return None
    known = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in p.fields.items()
                      if isinstance(v, int) and k != "units_in_battle")
    parts = [known] if known else []
    if isinstance(p.fields.get("units_in_battle"), int):
        n = p.fields["units_in_battle"]
        parts.append(f"{n or 'no'} unit{'' if n == 1 else 's'} in the battle")
    for k, v in p.fields.items():
        if isinstance(v, list):  # people by name; an empty list tells nothing, so it is not said
            names = [str(x["name"]) for x in v if isinstance(x, dict) and x.get("name")]
            if names:
                label = INTEL_LISTS.get(k, k.replace("_", " "))
                parts.append(f"{label} {and_list(names)}")
    what = "; ".join(parts) or "little"
    hedge = " (unconfirmed)" if p.believed else ""
    if p.observer != me:  # the GM reads every house's intelligence: whose it is, not "ours"
        src = SOURCE_WORDS.get(p.source, p.source).replace("our ", "its ")
        return f"{fname(a, p.observer)} learned of {fname(a, p.subject)} from {src}: {what}{hedge}"
    return f"{SOURCE_WORDS.get(p.source, p.source)} told us of {fname(a, p.subject)}: {what}{hedge}"


@narrates("signoria.faction_notified")
def _notified(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    return notice_words(a, p.kind, p.text, dict(p.data or {}), p.faction, me, b)


@narrates("signoria.treaty_concluded")
def _treaty(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    kind = TREATY_WORDS.get(p.kind, p.kind.replace("_", " "))
    with_ = fname(a, p.neutral) if p.neutral else " and ".join(fname(a, x) for x in p.parties if x != me)
    who = "we" if me in p.parties else " and ".join(fname(a, x) for x in p.parties)
    return f"{who} concluded a {kind} with {with_}"


@narrates("signoria.treaty_ended")
def _treaty_end(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str | None:
    """A treaty that ended, by its kind and partner; one outbid says nothing here: the notice to each party that
    goes with it says who outbid them ("our trade agreement with ... was outbid by ...")."""
    if p.reason == "outbid":
        return None
    t = b.treaties.get(p.treaty)
    why = p.reason.replace("_", " ")
    if t is None:
        return f"a treaty ended ({why})"
    whose = "our" if me in t.parties else f"{and_list([fname(a, x) for x in t.parties])}'s"
    with_ = f" with {fname(a, t.neutral)}" if t.neutral else ""
    return f"{whose} {TREATY_WORDS.get(t.type, 'treaty')}{with_} ended ({why})"


@narrates("signoria.standing_changed")
def _standing(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    verb = "improved" if p.delta > 0 else "worsened"
    return f"{_our(a, p.faction, me)} standing with {fname(a, p.neutral)} {verb} by {abs(p.delta)}"


@narrates("signoria.troops_hired")
def _troops(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    return f"{_we(a, p.faction, me)} hired {p.units} unit{'s' if p.units != 1 else ''} for {p.cost} wealth"


@narrates("signoria.statesman_hired")
def _hired(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    return f"{_we(a, p.faction, me)} took {p.name} ({p.trait}) into service"


@narrates("signoria.statesman_dismissed")
def _dismissed(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    c = b.characters.get(p.character)
    return f"{c.name if c else 'a statesman'} left {_our(a, p.faction, me)} service"


@narrates("signoria.statesman_defected")
def _defected(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    c = b.characters.get(p.character) or a.characters.get(p.character)
    return (f"{c.name if c else 'a statesman'} went over from {fname(a, p.from_faction)} to "
            f"{fname(a, p.to_faction)}")


@narrates("signoria.spy_placed", "signoria.spy_planted")
def _spy(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str | None:
    c = a.characters.get(p.agent)
    if p.master != me:
        return None
    return f"our agent {c.name if c else ''} is now in place with {fname(a, p.host)}".replace("  ", " ")


@narrates("signoria.spy_exposed")
def _exposed(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    c = b.characters.get(p.agent) or a.characters.get(p.agent)
    return f"a spy of {fname(a, p.master)} in the service of {fname(a, p.host)}" + (
        f", {c.name}," if c else "") + " was unmasked"


@narrates("signoria.candidate_offered")
def _candidate(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    return f"{p.name} ({p.trait}) offered to serve us for {p.cost} wealth"


@narrates("signoria.character_created")
def _character(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str | None:
    if p.faction != me:
        return None
    return f"{p.name} ({', '.join(p.traits)}) serves us as {'our leader' if p.role == 'leader' else 'a statesman'}"


@narrates("signoria.character_status")
def _status(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    c = a.characters.get(p.character) or b.characters.get(p.character)
    return f"{c.name if c else 'a character'} is {p.condition} ({p.cause.replace('_', ' ')})"


@narrates("signoria.leader_succeeded")
def _succession(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    return f"{p.name} now leads {fname(a, p.faction)}"


@narrates("signoria.campaign_launched")
def _launched(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    target = a.provinces[p.target].name if p.target in a.provinces else p.target
    return f"{_our(a, p.faction, me)} army of {p.units} set out for {target}"


@narrates("signoria.campaign_arrived")
def _arrived(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    where = a.provinces[p.province].name if p.province in a.provinces else p.province
    return f"{_our(a, p.faction, me)} army arrived in {where}"


@narrates("signoria.battle_reported")
def _battle(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    where = a.provinces[p.province].name if p.province in a.provinces else p.province
    return (f"battle at {where}: {fname(a, p.attacker)} against {fname(a, p.defender)}; "
            f"{'we' if p.winner == me else fname(a, p.winner)} won")


@narrates("signoria.battle_ended")
def _battle_end(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str | None:
    lost = p.killed.get(me) if me else None
    if lost:
        return f"we lost {lost} unit{'s' if lost != 1 else ''} in the battle"
    return None


@narrates("signoria.province_status")
def _province(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    where = a.provinces[p.province].name if p.province in a.provinces else p.province
    change = {"occupied": f"{fname(a, p.by)} occupied {where}",
              "siege_started": f"{fname(a, p.by)} laid siege to {where}",
              "siege_ended": f"the siege of {where} ended",
              "captured": f"{fname(a, p.by)} captured {where}",
              "liberated": f"{where} was freed"}.get(p.change, f"{where}: {p.change.replace('_', ' ')}")
    return change


@narrates("signoria.campaign_returned")
def _returned(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    return f"{_our(a, p.faction, me)} army came home"


@narrates("signoria.felmonte_sold")
def _felmonte(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    return f"Felmonte was sold to {'us' if p.winner == me else fname(a, p.winner)} for {p.amount} wealth"


@narrates("signoria.legitimacy_letter")
def _letter(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    return f"{fname(a, p.neutral)} wrote a letter of legitimacy for {'us' if p.faction == me else fname(a, p.faction)}"


@narrates("signoria.neutral_reaction")
def _reaction(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    return f"{fname(a, p.neutral)}: {p.reaction.replace('_', ' ')}"


@narrates("signoria.gm_ruling")
def _ruling(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    if p.gap == "G-29" and (p.text or "").startswith("to the dilemma "):  # recorded in words (issue 29)
        return str(p.text)
    m = re.fullmatch(r"dilemma (\S+): (\S+)", p.text or "") if p.gap == "G-29" else None  # recorded with ids
    if m:  # a dilemma resolved (§4.1 A7): its option in the words it was offered in
        for dealt in b.dilemmas.values():
            d = next((d for d in dealt if d.id == m.group(1)), None)
            opt = next((o for o in d.options if o.id == m.group(2)), None) if d is not None else None
            if d is not None and opt is not None:
                return f"to the dilemma “{d.text or d.id}” the answer was: {opt.text or opt.id}"
    m = re.fullmatch(r"bribe of (\S+) by (\w+)\.\S+: (\S+)", p.text or "")
    if m:  # §6.3: the bribe's band, as the GM recorded it
        c = b.characters.get(m.group(1)) or a.characters.get(m.group(1))
        return (f"by the GM's ruling: the bribe of {c.name if c else m.group(1).capitalize()} by "
                f"{fname(a, m.group(2))}: {m.group(3).replace('_', ' ')}")
    m = re.fullmatch(r"trait of candidate (.+) rolled: (\S+)", p.text or "")
    if m:  # §4.6: a candidate's trait (recorded with the candidate's id before it was recorded with his name)
        cand = next((c for st in (b, a) for cs in st.candidates.values() for c in cs if c.id == m.group(1)), None)
        named = any(c.name == m.group(1) for st in (b, a) for cs in st.candidates.values() for c in cs)
        who = f"{cand.name}'s" if cand is not None else f"{m.group(1)}'s" if named else "a candidate's"
        return f"by the GM's ruling: {who} trait was rolled: {m.group(2).replace('_', ' ')}"
    return f"by the GM's ruling: {named_ids(a, p.text or '')}"


@narrates("signoria.faction_eliminated")
def _eliminated(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    return f"{fname(a, p.faction)} was eliminated ({p.reason.replace('_', ' ')})"


@narrates("signoria.final_tally")
def _tally(b: SignoriaState, p: Any, a: SignoriaState, me: str) -> str:
    return f"the final tally: {'we' if p.winner == me else fname(a, p.winner)} won" if p.winner else p.text
