"""The options of every ``Pick(source)`` of the aikakirjat steps, computed from the state.

Each option carries what a GM weighs when choosing (``detail``): a skill's bonus, a
neighbour's diplomacy and population, a track's points, a project's progress. The
rules, not the lists, refuse what a year's events make impossible (a neighbour no
longer independent, a feat whose prerequisite is missing), so those stay listed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kingdomlog.core.choices import Option
from kingdomlog.core.errors import InputError
from kingdomlog.rulesets.aikakirjat import rules as R
from kingdomlog.rulesets.aikakirjat import tables
from kingdomlog.rulesets.aikakirjat.events import ACTION_TYPES
from kingdomlog.rulesets.aikakirjat.mapview import record_names, title
from kingdomlog.rulesets.aikakirjat.resolve import PC_ACTIONS
from kingdomlog.rulesets.aikakirjat.state import KingdomState
from kingdomlog.rulesets.aikakirjat.tables import ABILITIES, TRACK_ABILITY, TRACKS

ACTION_SKILL = {
    "embassy": ("diplomacy", "§3.10.1"), "attract_population": ("trade", "§3.10.2"),
    "research": ("science", "§3.10.3"), "reduce_corruption": ("religion", "§3.10.4"),
    "tax_collection": ("bureaucracy", "§3.10.5"), "declare_war": ("warfare", "§3.10.6"),
    "reduce_unrest": ("", "§3.10.7"), "equip": ("crafting", "§3.10.8"),
    "building_project": ("construction", "§3.10.9"),
}
"""The kingdom skill each action's check uses (Reduce Corruption of Decay uses Construction)."""

PC_SKILLS: dict[str, tuple[str, ...]] = {"reduce_unrest": ("persuasion", "intimidation"),
                                         "research": ("science", "magic")}
"""Actions whose rules name the skills allowed (§3.10.3, §3.10.7)."""


def _skill_detail(s: KingdomState, skill: str) -> str:
    ab = R.skill_ability(s, skill)
    mark = ", expert" if skill in R.active_expertise(s) else ", proficient" if skill in R.proficiencies(s) else ""
    return f"{ab}, {R.skill_bonus(s, skill):+d}{mark}"


def _governments(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    out = []
    for name in tables.GOVERNMENTS:
        g = tables.governments()[name]
        out.append(Option(name, name.capitalize(), f"+2 {', '.join(g.abilities)}; skills {', '.join(g.skills)};"
                                                    f" d{g.damage_die} militia; max level {g.max_level}"))
    return out


def _founding_skills(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    gov = tables.governments().get(str(within.get("government", "")))
    given = set(gov.skills) if gov else set()
    return [Option(sk, title(sk), ab) for sk, ab in sorted(tables.skills().items()) if sk not in given]


def _skills(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    return [Option(sk, title(sk), _skill_detail(s, sk)) for sk in sorted(R.skill_map(s))]


def _neighbour(n: Any) -> Option:
    return Option(n.id, n.name, f"diplomacy {n.diplomacy:+d}, population {n.population}, {n.status}")


def _neighbours(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    return [_neighbour(n) for n in s.neighbours.values()]


def _event_neighbours(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    free = sum(1 for n in s.neighbours.values() if n.status == "independent")
    # short enough for the closed dropdown at 1280 px and on a phone (it read "Random — 1d2 among the 2 independent
    # ne", and named its roll key); the field's help below says it whole
    return [Option("random", "Random", f"1d{free}, independent ones only"), *_neighbours(s, within)]


def _track(s: KingdomState, t: str) -> Option:
    tr = s.tracks[t]
    return Option(t, t.capitalize(), f"{tr.points}/{R.score(s, TRACK_ABILITY[t])} points, modifier {tr.modifier:+d}")


def _tracks(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    return [_track(s, t) for t in TRACKS]


def _law_and_order(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    held = "" if R.has_feat(s, "law_and_order") else " (the kingdom lacks the feat)"
    return [Option("none", "None", "no Law and Order this year"),
            *(Option(o.value, o.label, o.detail + held) for o in _tracks(s, within))]


def _pcs(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    return [Option(pid, pc.name, f"level {pc.level}" + ("" if pc.resident else ", not resident"))
            for pid, pc in s.pcs.items()]


def _institutions(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    out = []
    for i in s.institutions:
        off = f", disabled until year {i.disabled_until_year}" if i.disabled_until_year is not None else ""
        out.append(Option(i.id, record_names(s).get(i.id, i.id), f"{i.type}, founded year {i.founded_year}{off}"))
    return out


def _open_projects(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    return [Option(p.id, p.name, f"{p.points}/{p.points_required} points, {p.kind}")
            for p in s.building_projects if not p.completed]


def _provinces(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    names = record_names(s)
    return [Option(p.id, names.get(p.id, p.id), f"owner {_side_name(s, p.owner)}, held by"
                                              f" {_side_name(s, p.controller)}, {p.terrain}"
                                + (", road" if p.has_road else "") + (", highway" if p.has_highway else ""))
            for p in s.provinces.values()]


def _special_units(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    return [Option(u.id, u.name, f"d{u.damage_die}" + (", used this year" if u.used_this_year else ""))
            for u in s.special_units]


def _feats(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    out = []
    for f in tables.feats().values():
        needs = [x for x in (f.requires_skill and f"proficiency in {f.requires_skill}",
                             f.requires_level and f"level {f.requires_level}") if x]
        held = " (held)" if R.has_feat(s, f.name) and not f.repeatable else ""
        out.append(Option(f.name, title(f.name), ("needs " + " and ".join(needs) if needs else
                                                  "no prerequisite") + held))
    return out


def _actions(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    """The actions (§3.10); for a PC or the Court notable (``within``'s performer) only those a PC may perform
    (A75: Embassy, Reduce Corruption, Declare War, Reduce Unrest)."""
    out = []
    by_pc = within.get("performer") in ("pc", "court")
    for a in ACTION_TYPES:
        if by_pc and a not in PC_ACTIONS:
            continue
        skill, rule = ACTION_SKILL[a]
        if by_pc:  # the PC's own skill, not the kingdom's (A12); no rule's number: a player's dropdown on a phone cut
            # "Reduce Unrest — the PC's Persuasion or Intimidation (§3.10.7)" (test_selects_fit_browser.py)
            out.append(Option(a, action_name(a), f"the PC's {' or '.join(n.capitalize() for n in PC_ACTIONS[a])}"))
            continue
        if not skill:  # a PC's, without the rule's number: the GM sheet's entry on a phone cut "Reduce Unrest — a
            # PC's Persuasion or Intimidation (§3.10.7)" (356 px in 346; test_selects_fit_browser.py)
            out.append(Option(a, action_name(a), "a PC's Persuasion or Intimidation"))
            continue
        out.append(Option(a, action_name(a), f"{skill} {R.skill_bonus(s, skill):+d} ({rule})"))
    return out


def action_name(action: str) -> str:
    """An action as the report and the spec (§3.10) name it: ``attract_population`` -> ``Attract Population``,
    ``equip`` -> ``Equip Army / Navy``.

    >>> action_name("attract_population"), action_name("tax_collection"), action_name("equip")
    ('Attract Population', 'Tax Collection', 'Equip Army / Navy')
    """
    return "Equip Army / Navy" if action == "equip" else title(action)


def _action_skills(s: KingdomState, within: Mapping[str, Any]) -> list[Option] | None:
    action, performer = within.get("action"), within.get("performer", "kingdom")
    names = PC_SKILLS.get(str(action))
    if performer in ("pc", "court") and str(action) in PC_ACTIONS:
        names = PC_ACTIONS[str(action)]  # a PC's own skill (A75)
    if names is None:
        return None
    return [Option(n, title(n), _skill_detail(s, n) if n in R.skill_map(s) else "the PC's own skill") for n in names]


def _wars(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    out = []
    for w in s.wars:
        enemy = w.attacker if w.defender == "players" else w.defender
        name = s.neighbours[enemy].name if enemy in s.neighbours else enemy
        side = "we attack" if w.attacker == "players" else "they attack"
        out.append(Option(w.war_id, f"{name} ({side})", f"since year {w.started_year}"))
    return out


def _armies_of_year(s: KingdomState, within: Mapping[str, Any]) -> dict[str, tuple[str, str]]:
    """The armies of a war year, id -> (owner, what they are in words): those in the field, those allocated in the
    war's entry (``within[PARENT]``), and the armies the rules field for a side whose allocations are left empty
    (``war.war_defaults``)."""
    from kingdomlog.core.choices import PARENT
    from kingdomlog.rulesets.aikakirjat.war import enemy_of, war_defaults

    def whose(owner: str) -> str:
        return "ours" if owner == "players" else s.neighbours[owner].name if owner in s.neighbours else owner

    out = {a.army_id: (a.owner, f"{whose(a.owner)}, militia {a.militia} in {a.province_id}") for a in s.armies}
    parent = within.get(PARENT)
    given = parent if isinstance(parent, Mapping) else {}
    w = next((x for x in s.wars if x.war_id == given.get("war_id")), s.wars[0] if s.wars else None)
    if w is None:
        return out
    defaults = war_defaults(s, w) if w.armies_assigned_year != s.year else ((), ())
    for key, owner, default in zip(("allocations", "enemy_allocations"), ("players", enemy_of(w)), defaults,
                                   strict=True):
        listed = given.get(key)
        rows = [a.model_dump() for a in default] if listed is None else \
            [a for a in listed if isinstance(a, Mapping)] if isinstance(listed, list) else []
        for a in rows:
            if a.get("army_id") and a["army_id"] not in out:
                out[str(a["army_id"])] = (owner, f"{whose(owner)}, militia {a.get('militia')} in"
                                                 f" {a.get('province_id')}")
    return out


def _war_armies(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    """The armies of a war year (open: this year's allocations, made in the same step, may add others)."""
    return [Option(k, k, what) for k, (_, what) in _armies_of_year(s, within).items()]


def _war_targets(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    """The armies an order's army may attack: the other side's (all of them while no army is chosen)."""
    armies = _armies_of_year(s, within)
    mine = armies.get(str(within.get("army_id")), (None, ""))[0]
    return [Option(k, k, what) for k, (owner, what) in armies.items() if mine is None or owner != mine]


def _extra_turns(s: KingdomState, within: Mapping[str, Any], ours: bool) -> list[Option]:
    """The war turns in which a side may make General Staff's extra attack (§3.6, A66): each turn of the war's
    year, closed to a side without the feat."""
    from kingdomlog.rulesets.aikakirjat.war import enemy_of, side_has_feat

    w = next((x for x in s.wars if x.war_id == within.get("war_id")), s.wars[0] if s.wars else None)
    side = "players" if ours or w is None else enemy_of(w)
    lacks = "" if side_has_feat(s, side, "general_staff") else "needs General Staff (§3.6)"
    return [Option(o.value, o.label, o.detail, disabled=lacks) for o in _war_turns(s, within)]


WAR_ORDERS = (("attack", "attack", "an enemy army, in its province or an adjacent one: an engagement (§4.5.3)"),
              ("move", "march", "into an adjacent province with no army, one more through a road (§4.5.2)"),
              ("hold", "hold", "stay where it is"))


def _war_orders(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    """The orders an army may take in a war turn, in words (§4.5.2, A58)."""
    return [Option(v, label, detail) for v, label, detail in WAR_ORDERS]


def _war_turns(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    """The war turns of a war's year (§4.5.1: 4, 6 when the attacker has Advanced Logistics; A56: in turns 5-6
    only the attacker moves): the war of the entry (``war_id``), else the first war."""
    from kingdomlog.rulesets.aikakirjat.war import war_turns

    w = next((x for x in s.wars if x.war_id == within.get("war_id")), s.wars[0] if s.wars else None)
    n = war_turns(s, w) if w is not None else 4
    return [Option(str(t), f"War turn {t}", "only the attacker moves and attacks (A56)" if t > 4 else "")
            for t in range(1, n + 1)]


GM_FIELDS = {
    "fame": "Fame", "population": "Population", "militia": "Militia", "unrest": "Unrest",
    "technology_level": "Technology level", "mobility": "Mobility", "fire_capable": "Fire-capable",
    "research_points": "Research points", "naval_dice": "Naval dice", "stored_advantages": "Stored advantages",
    "omen_modifier": "The omen", "decadence": "Decadence (a corruption track)", "crime": "Crime (a corruption track)",
    "corruption": "Corruption (a corruption track)", "decay": "Decay (a corruption track)",
    "neighbour_diplomacy": "A neighbour's diplomacy", "neighbour_population": "A neighbour's population",
    "neighbour_status": "A neighbour's status", "territory": "The territory", "province": "A province",
    "neighbour": "A neighbour", "special_unit": "A special unit", "pc": "A player character",
}
"""What a GM adjustment changes (§8.3), in words."""


def _gm_fields(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    """What a GM adjustment may change, by name, with its value now."""
    out = []
    for f, label in GM_FIELDS.items():
        if f in TRACKS:
            detail = f"{s.tracks[f].points} points, modifier {s.tracks[f].modifier:+d}"
        elif f in ("province", "neighbour", "special_unit", "pc"):
            detail = "added, or replacing the one of its id"
        elif f == "territory":
            detail = f"{len(s.territory)} area{'s' if len(s.territory) != 1 else ''} now"
        elif f.startswith("neighbour_"):
            detail = ""
        else:
            detail = f"now {getattr(s, f)}"
        out.append(Option(f, label, detail))
    return out


def _gm_targets(s: KingdomState, within: Mapping[str, Any]) -> list[Option] | None:
    """Whose figure a GM adjustment changes: a neighbour's, or a PC's (none picked: a new PC known by its name)."""
    field = str(within.get("field") or "")
    if field.startswith("neighbour_"):
        return _neighbours(s, within)
    if field == "pc":
        return _pcs(s, within)
    return None


def _omens(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    return [Option(-1, "an ill omen (−1)"), Option(0, "no omen"), Option(1, "a good omen (+1)")]


def _sides(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    """Who may own or hold a province: the players' kingdom or a neighbour."""
    return [Option("players", s.name or "our kingdom", "the players' kingdom"), *_neighbours(s, within)]


def _side_name(s: KingdomState, side: str) -> str:
    """A province's owner or holder in words: the players' kingdom, or a neighbour by its name."""
    return "the players' kingdom" if side == "players" else s.neighbours[side].name if side in s.neighbours else side


def _abilities(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    return [Option(a, a.capitalize(), f"score {R.score(s, a)}") for a in ABILITIES]


def _succession_skills(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    return [Option(n, title(n), _skill_detail(s, n) if n in R.skill_map(s) else "") for n in SUCCESSION_SKILLS]


def _gods(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    return [Option("embrace", "Embrace the new god"), Option("resist", "Resist the new god")]


def _statuses(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    return [Option(v, said[:1].upper() + said[1:]) for (field, v), said in FIELD_WORDS.items() if field == "status"]


def _founders(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    court = "" if s.highest_level_reached >= 10 else "no Court notable before level 10 (§3.2)"
    return [Option("pc", "A PC", "between adventures (§2.12)"), Option("court", "The Court", "costs ×1.1 (§3.2)",
                                                                          disabled=court),
            Option("event", "An event", "a random event founded it")]


def _event_war_targets(s: KingdomState, within: Mapping[str, Any]) -> list[Option]:
    # short enough for the closed dropdown (it read "Another kingdom — the players may support"); the field's help
    # below says what each means whole
    return [Option("other", "Another kingdom", "we may take a side"),
            Option("players", "The players' kingdom", "attacked (§4.5)")]


SUCCESSION_SKILLS = ("diplomacy", "warfare", "magic")

SOURCES: dict[str, Callable[[KingdomState, Mapping[str, Any]], Sequence[Option] | None]] = {
    "governments": _governments, "founding_skills": _founding_skills, "skills": _skills,
    "neighbours": _neighbours, "event_neighbours": _event_neighbours, "tracks": _tracks,
    "law_and_order": _law_and_order, "pcs": _pcs, "institutions": _institutions,
    "open_projects": _open_projects, "provinces": _provinces, "special_units": _special_units,
    "feats": _feats, "actions": _actions, "action_skills": _action_skills, "wars": _wars,
    "war_armies": _war_armies, "war_targets": _war_targets, "war_orders": _war_orders, "war_turns": _war_turns,
    "our_extra_turns": lambda s, w: _extra_turns(s, w, True),
    "enemy_extra_turns": lambda s, w: _extra_turns(s, w, False),
    "gm_fields": _gm_fields, "gm_targets": _gm_targets, "omens": _omens, "sides": _sides,
    "abilities": _abilities, "succession_skills": _succession_skills, "gods": _gods,
    "event_war_targets": _event_war_targets, "founders": _founders,
    "statuses": _statuses,
}


def vocabulary(s: KingdomState, source: str, within: Mapping[str, Any]) -> Sequence[Option] | None:
    """The options of ``Pick(source)`` in ``s`` (``within``: the other values of the same entry)."""
    fn = SOURCES.get(source)
    if fn is None:
        raise InputError(f"aikakirjat has no list of {source!r} to choose from; lists: {', '.join(SOURCES)}")
    return fn(s, within)


_WAR_ROLL = re.compile(r"^w(\d*)\.(?:t(\d+)\.)?(.+)$")
_ATTRITION = {"in_field": "in the field", "hostile": "in a hostile province", "enemy_present": "an enemy army there",
              "desert_tundra": "desert or tundra"}


FIGURE_WORDS = {"session_no": "Session", "armies_max": "Armies (most allowed)",
                "session_years_total": "Years this session", "session_years_played": "Years played this session"}
"""The summary's figures a panel heads otherwise than their key in words (``Session no``: a column's name)."""

FIELD_WORDS = {("founder", "pc"): "a PC", ("founder", "court"): "the Court", ("founder", "event"): "an event",
               ("owner", "players"): "the players' kingdom", ("controller", "players"): "the players' kingdom",
               ("status", "independent"): "independent", ("status", "at_war_with_players"): "at war with us",
               ("status", "annexed"): "joined our kingdom", ("status", "split"): "split into parts"}
"""A record's field whose value says something only beside its field: an institution founded by ``pc`` (the log
keeps that a PC founded it, not which one), a province the ``players`` own (§0: the players' kingdom), a
neighbour's status (§2.10: ``at_war_with_players``, "at war with us"; annexed, it "joins the players' glorious
empire", §3.10.1)."""

TITLED_FIELDS = frozenset({"track", "area", "type", "terrain"})
"""Fields whose value is a name a person reads with its capital: a track (``Decadence``), an area (``Marsh``), an
institution's type (``Academy``), a province's terrain (``Tundra``)."""


def field_words(kind: str, value: str) -> str | None:
    """``value`` of a record's field (``kind``: ``field:founder``) in words, or None where the field does not change
    how it is said.

    >>> field_words("field:founder", "pc"), field_words("field:owner", "players"), field_words("field:track", "crime")
    ('a PC', "the players' kingdom", 'Crime')
    >>> field_words("field:owner", "tuonela") is None, field_words("", "pc") is None
    (True, True)
    """
    field = kind.removeprefix("field:")
    if field == kind:
        return None
    said = FIELD_WORDS.get((field, value))
    if said is None and field in TITLED_FIELDS and re.fullmatch(r"[a-z][a-z_-]*", value):
        said = title(value.replace("-", "_"))
    return said


def roll_words(key: str) -> str | None:
    """What a roll of the war that is no check rolls, in words (§4.5.1 initiative, §4.5.3 damage, §3.12 attrition);
    None for any other key.

    >>> roll_words("w.initiative"), roll_words("w2.initiative.enemy")
    ('Our initiative (d20 + Bureaucracy, §4.5.1)', "The enemy's initiative (war 2; d20 + its Bureaucracy, §4.5.1)")
    >>> roll_words("w.t1.p1.eng.melee.tuonela.damage"), roll_words("up.attrition.p-army1.desert_tundra")
    ("War turn 1: the enemy's damage (tuonela)", 'Attrition of p-army1: desert or tundra (§3.12)')
    >>> roll_words("a1.check") is None
    True
    """
    parts = key.split(".")
    if parts[:2] == ["up", "attrition"] and len(parts) == 4:
        return f"Attrition of {parts[2]}: {_ATTRITION.get(parts[3], parts[3].replace('_', ' '))} (§3.12)"
    m = _WAR_ROLL.match(key)
    if m is None:
        return None
    war, turn, rest = m.group(1), m.group(2), m.group(3).split(".")
    which = f"war {war}; " if war else ""
    if rest[0] == "initiative":
        if rest[1:] == ["enemy"]:
            return f"The enemy's initiative ({which}d20 + its Bureaucracy, §4.5.1)"
        return f"Our initiative ({which}d20 + Bureaucracy, §4.5.1)"
    if rest[-1] == "damage" and len(rest) >= 2 and turn:
        side = "our damage" if rest[-2] == "players" else f"the enemy's damage ({rest[-2]})"
        return f"War turn {turn}{' of war ' + war if war else ''}: {side}"
    return None
