"""Signoria for players: the provinces (§2.2) as a region map with who holds each and what the viewer knows of
them, and each faction's portrait: its resources, its people, and what it believes of each rival and since when.

Everything is read from the state as ``redact`` leaves it for the viewer (§11.4): a rival's
resources are the values the viewer last learned (``Faction.as_of`` names the turn), an
army on campaign shows no units unless it is the viewer's own, and the owner, occupier and
siege of a province are public (§1.4). Adjacency is the default map (G-6).
"""

from __future__ import annotations

import re
from typing import Any

from kingdomlog.core.mapdata import MapData, MapLink, MapParty, MapRegion
from kingdomlog.core.portrait import Figure, Leader, Portrait, Section
from kingdomlog.core.viewers import Viewer
from kingdomlog.rulesets.signoria.state import FACTION_BETTER, RESOURCES, Faction, IntelRecord, SignoriaState, Treaty
from kingdomlog.rulesets.signoria.tables import adjacency
from kingdomlog.rulesets.signoria.vocabulary import ACTION_NAMES, TREATY_WORDS, order_id_words

SOURCE_WORDS = {"scouts": "our scouts", "spy": "our spy", "battle": "the battlefield", "notice": "a report",
                "public": "public knowledge", "ruling": "the GM"}


def fname(s: SignoriaState, fid: str | None) -> str:
    """A faction's name (its id when unknown)."""
    if not fid:
        return "no one"
    f = s.factions.get(fid)
    return f.name if f else fid


def and_list(items: list[str]) -> str:
    """``a, b and c``; ``a``; ``""``.

    >>> and_list(["Marburg", "Felmonte"]), and_list(["a", "b", "c"]), and_list([])
    ('Marburg and Felmonte', 'a, b and c', '')
    """
    return " and ".join([", ".join(items[:-1]), items[-1]]) if len(items) > 1 else "".join(items)


ACTION_WORDS = {
    "dilemma": "answer {t}", "liberties": "grant liberties", "intrigue_self": "intrigue at home",
    "donation": "donate to the Church", "scouts": "send scouts to {t}", "spy": "place a spy with {t}",
    "bribery": "bribe {t}", "felmonte_offer": "bid for Felmonte", "assassination": "strike at {t}",
    "intrigue_foreign": "intrigue against {t}", "war": "march on {t}", "storm": "storm {t}", "sally": "sally out",
    "pact": "make a pact with {t}", "improve_relations": "improve relations with {t}",
    "turn_against": "turn {t} against a rival", "passage": "ask right of passage through {t}",
    "trade": "seek a trade agreement with {t}", "military_aid": "seek military aid from {t}",
    "military_alliance": "seek a military alliance with {t}", "legitimacy": "seek a letter of legitimacy from {t}",
    "player_treaty": "make a treaty with {t}", "hire_troops": "hire troops", "hire_statesman": "hire {t}",
    "designate_heir": "name {t} heir", "dismiss": "dismiss {t}", "support": "support an order",
}
"""Each action (``rules.ACTIONS``) as the verb of "our order to ...", ``{t}`` its target by name."""
OUTCOME_WORDS = {
    "success": "succeeded", "failure": "failed", "critical": "succeeded brilliantly",
    "hired": "was carried out", "elementary": "was carried out", "resolved": "was carried out",
    "offered": "was delivered", "reported": "was carried out",
    "killed": "succeeded: the target was killed", "wounded": "succeeded: the target was wounded",
    "concluded": "succeeded: the treaty was concluded", "no_match": "came to nothing: the terms did not match",
    "no_target": "came to nothing: the target was beyond reach",
    "refused_cap": "was refused: no more statesmen than Power allows",
    "refused_wealth": "was refused: not enough wealth", "refused_prerequisite": "was refused: two treaties come first",
}
"""How each recorded outcome of an order ends the sentence "our order to ... {outcome}" (§4–§7)."""


def thing_name(s: SignoriaState, tag: str) -> str:
    """Whatever an order or a reason names, by its name: a faction, a province, a character, a candidate, a
    dilemma ("the dilemma of ..."); the id itself if the viewer's state knows nothing of it."""
    if tag in s.factions:
        return fname(s, tag)
    if tag in s.provinces:
        return s.provinces[tag].name
    if tag in s.characters:
        return s.characters[tag].name
    cand = next((c for cs in s.candidates.values() for c in cs if c.id == tag), None)
    if cand is not None:
        return cand.name
    if any(d.id == tag for ds in s.dilemmas.values() for d in ds):
        return "the dilemma of the month"
    return tag.replace("_", " ").capitalize()


def province_name(s: SignoriaState, pid: str) -> str:
    """A province by its name (``marburg`` is the province, not the house that holds it)."""
    return s.provinces[pid].name if pid in s.provinces else thing_name(s, pid)


def order_words(s: SignoriaState, o: dict[str, Any]) -> str:
    """One order in words: ``send scouts to Marburg (high stake, led by Duke Fabian)``."""
    action = str(o.get("action", "act"))
    target = o.get("target")
    t = thing_name(s, str(target)) if target else "them"
    verb = ACTION_WORDS.get(action, action.replace("_", " ") + (" {t}" if target else ""))
    text = verb.format(t=t)
    extra = []
    if o.get("stake") == "high":
        extra.append("high stake")
    leader = o.get("leader")
    if leader and leader in s.characters:
        extra.append(f"led by {s.characters[leader].name}")
    return text + (f" ({', '.join(extra)})" if extra else "")


def activity_words(s: SignoriaState, cid: str) -> str | None:
    """What a character is busy with this month (``Character.activity``, the id of the order that took them,
    §3.7) in words: that order of their employer's (or of any faction that named them) by what it does ("intrigue
    abroad (special order 2)"); the order's slot alone when the state no longer holds it; None when idle."""
    c = s.characters.get(cid)
    if c is None or not c.activity:
        return None
    for fid in (c.employer, *(f for f in s.orders if f != c.employer)):
        o = next((o for o in (s.orders[fid].orders if fid in s.orders else ()) if o.id == c.activity), None)
        if o is not None and (o.leader == cid or cid in (o.params.get("characters") or [])):
            return f"{order_words(s, {'action': o.action, 'target': o.target})} ({order_id_words(o.id, o.slots)})"
    return order_id_words(c.activity)


def _our(s: SignoriaState, fid: str, me: str) -> str:
    return "our" if fid == me else f"{fname(s, fid)}'s"


INTEL_LISTS = {"roster": "its people:", "characters_in_battle": "in the field:"}
"""How a list of people in a report (§2.6 intel) is introduced."""


def named_ids(s: SignoriaState, text: str) -> str:
    """``text`` with each faction id in it by the faction's name (notices recorded with an id: "marburg tried
    to bribe Cesare" → "Doge of Marburg tried to bribe Cesare")."""
    for fid in sorted(s.factions, key=len, reverse=True):
        text = re.sub(rf"(?<![\w.]){re.escape(fid)}(?![\w.])", fname(s, fid), text)
    return text


def notice_words(a: SignoriaState, kind: str, text: str, data: dict[str, Any], faction: str, me: str,
                 b: SignoriaState | None = None) -> str:
    """A private notice, told from its recorded data in words where its kind is known (a double agent's order,
    a spy's report, a bribe tried, a trade agreement outbid), else its recorded text with factions by name."""
    d = data or {}
    b = b or a
    if kind == "double_agent_order" and isinstance(d.get("order"), dict):
        c = a.characters.get(str(d.get("character"))) or b.characters.get(str(d.get("character")))
        m = re.match(r"\S+ ordered (.+?): ", text or "")  # recorded before the notice named its character
        who = c.name if c is not None else m.group(1) if m else "a statesman"
        done = "it was carried out" if d.get("executed") else "it was not carried out"
        return f"{fname(a, str(d.get('briber')))} ordered {who} to {order_words(a, d['order'])}; {done}"
    if kind == "spy_report":
        m = re.match(r"(.+?) reports that ", text or "")
        how = OUTCOME_WORDS.get(str(d.get("outcome")), "failed")
        return f"{m.group(1) if m else 'an agent'} reports that {_our(a, faction, me)} order through him {how}"
    if kind == "bribe_attempt" and d.get("briber"):
        c = a.characters.get(str(d.get("character"))) or b.characters.get(str(d.get("character")))
        return f"{fname(a, str(d['briber']))} tried to bribe {c.name if c else 'one of our statesmen'}"
    if kind == "trade_outbid":
        m = re.match(r"your trade agreement with (\S+) was outbid", text or "")  # recorded before its data named it
        n = str(d["neutral"]) if d.get("neutral") else m.group(1) if m else ""
        with_ = f" with {fname(a, n)}" if n else ""
        by = f" by {fname(a, str(d['by']))}" if d.get("by") else ""
        return f"{_our(a, faction, me)} trade agreement{with_} was outbid{by}"
    if kind == "order_void" and d.get("action"):  # "order O1 (hire_troops) is void: ..." (evolve's words)
        m = re.match(r"order \S+ \(\S+\) is void: (.*)", text or "", re.S)
        action = str(d["action"])
        return (f"{_our(a, faction, me)} order to {ACTION_NAMES.get(action, action.replace('_', ' '))} is void: "
                f"{named_ids(a, m.group(1) if m else str(text))}")
    return named_ids(a, str(text))


ROUTE_WORDS = {"direct": "across its border", "passage": "through a neutral's land, by right of passage",
               "transit": "after crossing a neutral's land"}
"""How an army came (§5.1), as the end of "X's army has arrived at Fabia ..."."""

_OLD_PROMPTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("double_agent", re.compile(r"(\S+) tried to bribe (.+) \(\S+\)\. Make him a double agent\? \S+ (will then "
                                r"believe the bribe worked \(§6\.4\)\.)")),
    ("double_agent_order", re.compile(r"(\S+) believes (.+) is its spy and orders him: (\w+) \((\w+)"
                                      r"(?:, target (\S+))?\)\. (Carry it out\? \(§6\.4\))")),
    ("defender_response", re.compile(r"(\S+)'s army has arrived at (.+?) \((direct|passage|transit)\)\. (.*)", re.S)),
    ("battle_declaration", re.compile(r"Battle \S+ at (\S+): (your .*?) against (\S+)'s (.*)", re.S)),
)
"""The prompts of questions as decide.py wrote them before they said every name in words (issue 29)."""


def question_words(s: SignoriaState, kind: str, prompt: str, labels: list[str]) -> tuple[str, list[str]]:
    """A question as posted, its prompt and its options' labels in words: one posted before decide.py named
    factions, characters and places by their names ("marburg tried to bribe Cesare (marburg.S2). ...") is told
    again from what it recorded, by the names in ``s`` (the reader's state: a name it does not know stays as
    recorded); any other prompt is as recorded.

    >>> from kingdomlog.rulesets.signoria.state import Faction
    >>> st = SignoriaState(factions={"marburg": Faction(id="marburg", name="Doge of Marburg", kind="player")})
    >>> said, _ = question_words(st, "double_agent", "marburg tried to bribe Cesare (marburg.S2). Make him a "
    ...                          "double agent? marburg will then believe the bribe worked (§6.4).", [])
    >>> said.split("? ")
    ['Doge of Marburg tried to bribe Cesare. Make him a double agent', \
'Doge of Marburg will then believe the bribe worked (§6.4).']
    """
    pattern = dict(_OLD_PROMPTS).get(kind)
    m = pattern.fullmatch(prompt) if pattern is not None else None
    if m is None:
        return prompt, labels
    if kind == "double_agent":
        who = fname(s, m.group(1))
        return f"{who} tried to bribe {m.group(2)}. Make him a double agent? {who} {m.group(3)}", labels
    if kind == "double_agent_order":
        order = order_words(s, {"action": m.group(3), "target": m.group(5)})
        return (f"{fname(s, m.group(1))} believes {m.group(2)} is its spy and orders him to {order} ({m.group(4)} "
                f"stake). {m.group(6)}", labels)
    if kind == "defender_response":
        return (f"{fname(s, m.group(1))}'s army has arrived at {m.group(2)} {ROUTE_WORDS[m.group(3)]}. "
                f"{m.group(4)}", labels)
    said: list[str] = []  # a battle declaration: its characters by name ("cesare (statesman): field hospital")
    for label in labels:
        row = re.fullmatch(r"(\S+) \((leader|statesman)\): (.*)", label)
        if row is not None:
            duel = re.fullmatch(r"epic duel with (\S+)", row.group(3))
            what = f"epic duel with {thing_name(s, duel.group(1))}" if duel is not None else row.group(3)
            label = f"{thing_name(s, row.group(1))} ({row.group(2)}): {what}"
        said.append(label)
    return (f"The battle at {province_name(s, m.group(1))}: {m.group(2)} against {fname(s, m.group(3))}'s "
            f"{m.group(4)}", said)


def _me(s: SignoriaState) -> str:
    return s.viewer if s.viewer in s.factions else ""


def known_line(s: SignoriaState, f: Faction) -> str:
    """What the viewer knows of faction ``f``'s resources: ``army 6 (month 3), wealth 14 (month 5)``."""
    if f.known:
        return ", ".join(f"{r} {getattr(f, r)}" for r in RESOURCES if getattr(f, r) is not None)
    bits = []
    for r in RESOURCES:
        v = getattr(f, r)
        if v is None:
            bits.append(f"{r} unknown")
        else:
            when = f.as_of.get(r, 0)
            bits.append(f"{r} {v} ({'at the start' if when == 0 else f'month {when}'})")
    return ", ".join(bits)


def province_map(s: SignoriaState, viewer: Viewer) -> MapData:
    """The provinces, their holders, occupiers and sieges, the armies on campaign there, and the viewer's
    knowledge of each holder."""
    me = _me(s)
    parties = tuple(MapParty(fid, f.name, own=fid == me, note=("" if fid == me else known_line(s, f)))
                    for fid, f in s.factions.items())
    regions = []
    for p in s.provinces.values():
        status = []
        if p.occupier:
            status.append(f"occupied by {fname(s, p.occupier)}")
        if p.siege_since is not None:
            status.append(f"under siege since month {p.siege_since}")
        for c in s.campaigns.values():
            if c.target == p.id and c.status in ("arrived", "occupying", "besieging", "in_transit"):
                units = f" ({c.units} units)" if c.units is not None else ""
                status.append(f"army of {fname(s, c.faction)}{units}")
        owner = s.factions.get(p.owner)
        detail = [f"income {p.income} wealth a month"]
        if owner is not None and p.owner != me:
            detail.append(f"what we know of {owner.name}: {known_line(s, owner)}")
        regions.append(MapRegion(p.id, p.name, owner=p.owner, status=tuple(status), detail=tuple(detail)))
    ids = set(s.provinces)
    links = tuple(MapLink(*sorted(pair)) for pair in sorted(adjacency(), key=sorted) if set(pair) <= ids)
    when = f"month {s.turn}" + (f", {s.season}" if s.season and s.season != "setup" else "")
    return MapData(title=f"The League, {when}", regions=tuple(regions), links=links, parties=parties)


def beliefs(s: SignoriaState, me: str) -> list[str]:
    """What ``me`` believes of each rival, and since when (§2.6 intel): one sentence per rival."""
    out = []
    intel: dict[str, dict[str, IntelRecord]] = s.intel.get(me, {})
    for fid, f in s.factions.items():
        if fid == me:
            continue
        recs = intel.get(fid, {})
        parts = []
        unknown = []
        for r in RESOURCES:
            rec = recs.get(r)
            if rec is None or not isinstance(rec.value, int):
                unknown.append(r)
                continue
            since = "from the start" if rec.turn == 0 else f"since month {rec.turn}"
            src = SOURCE_WORDS.get(rec.source, rec.source)
            hedge = " (a belief we cannot check)" if rec.believed else ""
            parts.append(f"{r} {rec.value} ({src}, {since}){hedge}")
        if unknown:  # "its power, piety and wealth are unknown", once
            parts.append(f"its {and_list(unknown)} {'is' if len(unknown) == 1 else 'are'} unknown")
        roster = recs.get("roster")
        if roster is not None and isinstance(roster.value, list):
            names = ", ".join(str(c.get("name", "?")) for c in roster.value if isinstance(c, dict))
            parts.append(f"its people: {names} (month {roster.turn})")
        out.append(f"{f.name}: " + "; ".join(parts) + ".")
    return out


def portrait(s: SignoriaState, prev: SignoriaState | None, viewer: Viewer) -> Portrait:
    """A faction's monthly picture (a player), or the League's public picture (the GM and the public)."""
    me = _me(s)
    when = f"month {s.turn} of {s.config.get('game_turns', 12)}" + (f" ({s.season})" if s.season != "setup" else "")
    if not me:
        held = {fid: [p.name for p in s.provinces.values() if p.owner == fid] for fid in s.factions}
        lines = [f"{f.name} holds {and_list(held[fid]) or 'no province'}" for fid, f in s.factions.items()]
        head = f"The League in {when}: " + "; ".join(lines) + "."
        if s.finished:
            head += f" The game is over; {fname(s, s.winner)} won."
        return Portrait(headline=head)
    f = s.factions[me]
    pf = prev.factions.get(me) if prev is not None else None
    mine_held = [p.name for p in s.provinces.values() if p.owner == me]
    headline = (f"{f.name}, {when}: we hold {and_list(mine_held) or 'no province'}"
                + (f", led by {f.leader_name}" if f.leader_name and f.leader_name != f.name else "") + ".")
    sentences = []
    for p in s.provinces.values():
        if p.owner == me and p.occupier:
            sentences.append(f"{fname(s, p.occupier)}'s army occupies our {p.name}.")
        elif p.occupier == me:
            sentences.append(f"Our army occupies {p.name}, a province of {fname(s, p.owner)}.")
    if f.besieged:
        sentences.append("We are besieged.")
    mine = [t for t in s.treaties.values() if t.active and me in t.parties]
    if mine:
        def partner(t: Treaty) -> str:
            return fname(s, t.neutral) if t.neutral else ", ".join(fname(s, x) for x in t.parties if x != me)
        sentences.append("Our treaties: " + "; ".join(f"a {TREATY_WORDS.get(t.type, t.type)} with {partner(t)}"
                                                      for t in mine) + ".")
    for n, v in f.standing.items():
        if v:
            sentences.append(f"Our standing with {fname(s, n)} is {v:+d}.")
    figs = tuple(Figure(r, r.capitalize(), getattr(f, r), getattr(pf, r) if pf else None, better=FACTION_BETTER[r])
                 for r in RESOURCES)
    leaders = []
    for c in s.characters.values():
        if c.employer != me:
            continue
        note = ", ".join(c.traits) + ("" if c.condition == "active" else f"; {c.condition}")
        leaders.append(Leader("Leader" if c.role == "leader" else "Statesman", c.name, note))
    sections: tuple[Section, ...] = (Section("What we believe of our rivals", tuple(beliefs(s, me))),)
    notices = [n for n in s.notices.get(me, ()) if n.turn == s.turn]
    if notices:
        said = [notice_words(s, n.kind, n.text, n.data, me, me) for n in notices]
        sections += (Section("Reports this month", tuple(x[:1].upper() + x[1:] for x in said)),)
    return Portrait(headline=headline, sentences=tuple(sentences), figures=figs, leaders=tuple(leaders),
                    sections=sections)
