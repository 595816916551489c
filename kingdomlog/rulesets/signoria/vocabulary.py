"""The options of every ``Pick`` of Signoria's choices, computed from the state.

Sources named ``<what>:<faction>`` belong to that faction's own steps (its orders) and list only
what that faction may see: its own characters, its spies (real and believed), its dilemmas and
candidates, and what is public (factions, provinces). They give the same answer on the GM's state
and on the faction's redacted view, so neither a form nor a refusal's "allowed: ..." shows a faction
a rival's secret. The GM's sources (``characters``, ``statesmen``, this turn's orders, campaigns and
battles) list everything.

At setup (no initiative yet) the factions are the campaign options' players and neutrals.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from kingdomlog.core.choices import KEY, KEYS, PARENT, Option
from kingdomlog.rulesets.signoria.rules import ACTIONS, NEUTRAL_GOALS, PHASE_OF_ACTION
from kingdomlog.rulesets.signoria.state import Character, Order, SignoriaState
from kingdomlog.rulesets.signoria.tables import factions as setting_factions
from kingdomlog.rulesets.signoria.tables import traits

FACTION_TARGETS = (*NEUTRAL_GOALS, "scouts", "intrigue_foreign", "spy", "player_treaty")
"""Actions whose target is a faction (the rules then check which kind, §4.1, §7.1)."""
PROVINCE_TARGETS = ("war", "storm", "sally")
RULES_CHECK_TARGET = ("bribery", "assassination", "designate_heir", "dismiss")
"""Actions naming a character: any id goes here and the rules check it, citing the section (a faction
may have heard of a rival's statesman without the state saying so, and listing every character
would show a faction its rivals' secrets)."""


def _setup_ids(s: SignoriaState, key: str) -> list[str]:
    return [str(x) for x in s.config.get(key) or []]


def faction_options(s: SignoriaState) -> list[Option]:
    if s.initiative:
        return [Option(f, s.factions[f].name, s.factions[f].kind) for f in s.initiative if f in s.factions]
    rows = setting_factions()
    ids = [*_setup_ids(s, "players"), *_setup_ids(s, "neutrals")]
    return [Option(f, rows[f].label if f in rows else f, "player" if f in _setup_ids(s, "players") else "neutral")
            for f in ids]


def player_options(s: SignoriaState) -> list[Option]:
    if s.initiative:
        return [Option(f, s.factions[f].name, "player") for f in s.players()]
    rows = setting_factions()
    return [Option(f, rows[f].label if f in rows else f, "player") for f in _setup_ids(s, "players")]


def neutral_options(s: SignoriaState) -> list[Option]:
    if s.initiative:
        return [Option(f, s.factions[f].name, "neutral" + (f", captured by {s.factions[f].captured_by}"
                                                           if s.factions[f].captured_by else ""))
                for f in s.neutrals()]
    rows = setting_factions()
    return [Option(f, rows[f].label if f in rows else f, "neutral") for f in _setup_ids(s, "neutrals")]


def _character(c: Character) -> Option:
    detail = ", ".join([c.role, *c.traits] + ([c.condition] if c.condition != "active" else []))
    return Option(c.id, c.name, detail)


def _in_play(c: Character) -> bool:
    return c.condition not in ("dead", "departed")


def own_characters(s: SignoriaState, fid: str) -> list[Character]:
    """``fid``'s characters in play (its leader and statesmen, including a rival's spy it does not know of)."""
    return [c for c in s.characters.values() if c.employer == fid and _in_play(c)]


def own_spies(s: SignoriaState, fid: str) -> dict[str, str]:
    """Agent -> host of ``fid``'s spies in place and of the spies it believes it has (§6.2, §6.4)."""
    out = {a: h for a, h in s.spies.items() if a in s.characters and s.characters[a].true_master == fid}
    out.update(s.believed_spies.get(fid, {}))
    return out


def _targets(s: SignoriaState, fid: str, action: Any) -> list[Option] | None:
    if action in FACTION_TARGETS:
        return faction_options(s)
    if action in PROVINCE_TARGETS:
        return [Option(p.id, p.name, f"owner {p.owner}" + (f", occupied by {p.occupier}" if p.occupier else ""))
                for p in s.provinces.values()]
    if action == "dilemma":
        return [Option(d.id, d.id, d.text) for d in s.dilemmas.get(fid, ())]
    if action == "hire_statesman":
        return [Option(c.id, c.name, f"{c.trait}, costs {c.cost} wealth") for c in s.candidates.get(fid, ())]
    return None  # a character (checked by the rules) or no target at all


def _turn_orders(s: SignoriaState) -> list[Option]:
    """The orders of this turn, each by its faction's name, the order's place and what it does ("Duke Fabian's
    ordinary order 1 — hire troops"; it read "fabian O1 — hire_troops")."""
    return [Option(f"{fid}.{o.id}", f"{s.factions[fid].name if fid in s.factions else fid}'s {order_id_words(o.id)}",
                   ACTION_NAMES.get(o.action, o.action.replace("_", " ")))
            for fid in s.initiative if fid in s.orders for o in s.orders[fid].orders]


def _war_campaigns(s: SignoriaState) -> list[Option]:
    def named(f: str) -> str:
        return s.factions[f].name if f in s.factions else f

    def where(p: str) -> str:
        return s.provinces[p].name if p in s.provinces else p

    out = [Option(c.id, f"{named(c.faction)}'s campaign on {where(c.target)}", c.status)  # no id: it read "c3, ..."
           for c in s.campaigns.values()]
    for fid in s.initiative:
        for o in s.orders[fid].orders if fid in s.orders else ():
            if o.action == "war":
                cid = f"{s.turn}.{fid}.{o.id}"
                out.append(Option(cid, f"{named(fid)}'s march on {where(str(o.target))}", "this turn"))
    return out


BATTLE_ROUNDS = (("1", "Round 1", "the clash"), ("2", "Round 2", "after casualties and routs (§5.3)"),
                 ("3", "Round 3", "only with Fight to the last! (§5.6)"))

BATTLE_OPTIONS = (
    ("join", "joins the battle", "+2d6 (a leader +3d6)"),
    ("hospital", "field hospital", "enemy kills → routs: 1 (a leader 2)"),
    ("no_prisoners", "take no prisoners!", "your routs → kills: 1 (a leader 2)"),
    ("back_cowards", "back, cowards!", "2 (a leader 3) routed units return"),
    ("regroup", "regroup", "a general: all routed last round return"),
    ("fight_to_last", "fight to the last!", "a general: a third round"),
    ("epic_duel", "epic duel", "a general: blocks the enemy leader"),
    ("none", "no option", "the character does nothing this round"),
    ("reserve_first", "losses to the reserve first", "this round"),
)
"""A battle option's words in a dropdown, short enough for an entry on a phone (346 px; it read "joins the battle
— +2d6 (a leader +3d6) this round, to the main group or an attacking reserve (§5.5)", 566 px): what each does in
full is the field's help (``choices.BATTLE_OPTION_HELP``)."""


def _battles(s: SignoriaState) -> list[Option]:
    camps = _war_campaigns(s)
    sieges = sum(1 for fid in s.initiative for o in (s.orders[fid].orders if fid in s.orders else ())
                 if o.action in ("storm", "sally"))
    done = sum(1 for b in s.battles if b.turn == s.turn)
    battles = [Option(f"b{s.turn}.{n}", f"battle {n} of this turn", "a siege, or a march no campaign names")
               for n in range(done + 1, done + len(camps) + sieges + 1)]
    return camps + battles


def battle_sides(s: SignoriaState, key: str, responses: Mapping[str, Any] | None = None
                 ) -> dict[str, tuple[str, tuple[str, ...]]] | None:
    """The factions and characters of each side (``attacker``, ``defender``) of the battle a campaign ``key``
    brings this turn (§5.1-5.2, §5.11: the attacker's characters are those its war or sally order sends; the
    defender's those its answer names, else every one at home); only those who can fight (active, in the faction's
    service). None for a key the state cannot place (a battle's own id: the rules check its declarations)."""
    camp = s.campaigns.get(key)
    orders = {(fid, o.id): o for fid in s.orders for o in s.orders[fid].orders}
    if camp is not None:
        attacker, target, sent = camp.faction, camp.target, tuple(camp.characters)
    else:
        m = re.fullmatch(r"(\d+)\.([^.]+)\.(.+)", key)
        o = orders.get((m.group(2), m.group(3))) if m and int(m.group(1)) == s.turn else None
        if o is None or o.action != "war" or not o.target:
            return None
        attacker, target, sent = m.group(2) if m else "", str(o.target), tuple(o.params.get("characters") or ())
    province = s.provinces.get(target)
    defender = province.owner if province is not None else None
    if defender is None or defender not in s.factions:
        return None

    def fighting(fid: str, ids: Any) -> tuple[str, ...]:
        f = s.factions[fid]
        if ids in (None, "all"):
            ids = [*([f.leader] if f.leader else []), *f.statesmen]
        return tuple(str(c) for c in ids if (x := s.characters.get(str(c))) is not None and
                     x.condition == "active" and x.employer == fid)

    sally = next((o for (fid, _), o in orders.items() if fid == defender and o.action == "sally" and
                  o.target == target and camp is not None), None)
    if sally is not None:  # the besieged sally out against the besieger (§5.11)
        return {"attacker": (defender, fighting(defender, sally.params.get("characters") or [])),
                "defender": (attacker, fighting(attacker, sent))}
    answer = (responses or {}).get(key)
    chosen = _field(answer, "characters") if answer is not None else None
    return {"attacker": (attacker, fighting(attacker, sent)), "defender": (defender, fighting(defender, chosen))}


def _battle_characters(s: SignoriaState, within: Mapping[str, Any]) -> list[Option] | None:
    """The characters a battle declaration may name (§5.5-5.7): those fighting on its side in that battle, and
    the side's spies fighting on the other (they may defect); both sides' while no side is chosen. None (any, the
    rules check it) for a battle the state cannot place."""
    parent = within.get(PARENT) or {}
    keys = parent.get(KEYS) or ()
    sides = battle_sides(s, str(keys[0]), _field_map(parent.get("responses"))) if keys else None
    if sides is None:
        return None
    side = within.get("side")
    out: dict[str, Option] = {}
    for name, (fid, ids) in sides.items():
        other_fid, other_ids = sides["defender" if name == "attacker" else "attacker"]
        if side in (None, name):
            for cid in ids:
                out.setdefault(cid, _character(s.characters[cid]))
            for cid in other_ids:  # this side's spy in the enemy's army may defect (§5.7)
                c = s.characters[cid]
                if c.agent_kind in ("spy", "double_agent") and c.true_master == fid:
                    out.setdefault(cid, Option(cid, c.name, f"your spy with {s.factions[other_fid].name}: he may "
                                                            "defect"))
    for name, (fid, _) in sides.items():  # the side's others: shown why not (a refusal names them in words)
        if side in (None, name):
            for c in own_characters(s, fid):
                if c.id not in out and _in_play(c):  # said short in the dropdown, whole in the refusal
                    out[c.id] = Option(c.id, c.name, disabled="not in this battle", refusal=f"{c.name} is not in "
                                       f"{s.factions[fid].name}'s army in this battle")
    return list(out.values())


def _duel_targets(s: SignoriaState, within: Mapping[str, Any]) -> list[Option] | None:
    """Whom an epic duel declared for a side may target (§5.6, G-16 ``epic_duel_target`` = ``enemy_leader_only``):
    the leader fighting on the other side in that battle. The other side's other characters are shown not
    choosable, in words (in the battle but no leader; at home), so a plan naming one is refused naming him; no other
    faction's character is offered. Both sides' enemy leaders while no side is chosen; None (any, the rules check
    it) for a battle the state cannot place."""
    parent = within.get(PARENT) or {}
    keys = parent.get(KEYS) or ()
    sides = battle_sides(s, str(keys[0]), _field_map(parent.get("responses"))) if keys else None
    if sides is None:
        return None
    side = within.get("side")
    out: dict[str, Option] = {}
    for name in sides:
        if side not in (None, name):
            continue
        fid, ids = sides["defender" if name == "attacker" else "attacker"]
        army = f"{s.factions[fid].name}'s army"
        for cid in ids:
            c = s.characters[cid]
            # said short in the dropdown (it read "✗ Lorenzo — Lorenzo is not the leader of Duke Fabian's army: an epic
            # duel targets the enemy leader (§5.6)", 608 px in an entry's 346 on a phone), whole in the refusal
            out.setdefault(cid, Option(cid, c.name, "the enemy leader") if c.role == "leader"
                           else Option(cid, c.name, disabled="not the enemy leader (§5.6)", refusal=f"{c.name} is not"
                                       f" the leader of {army}: an epic duel targets the enemy leader (§5.6)"))
        for c in own_characters(s, fid):
            if c.id not in out:
                out[c.id] = Option(c.id, c.name, disabled="not in this battle",
                                   refusal=f"{c.name} is not in {army} in this battle")
    return list(out.values())


def _field_map(x: Any) -> dict[str, Any]:
    return dict(x) if isinstance(x, Mapping) else {}


def _dilemma_options(s: SignoriaState, fid: str, dilemma: Any) -> list[Option] | None:
    """The options of ``fid``'s dilemma ``dilemma``, then abstaining (§4.1 A7); None (any, the rules check it) for a
    dilemma the state does not deal to ``fid``."""
    d = next((d for d in s.dilemmas.get(fid, ()) if d.id == dilemma), None)
    if d is None:
        return None
    return [*(Option(o.id, o.text or o.id, "takes one action slot") for o in d.options),
            Option("abstain", "abstain", "no slot spent")]


def _field(x: Any, name: str) -> Any:
    return x.get(name) if isinstance(x, Mapping) else getattr(x, name, None)


def _questions(s: SignoriaState, source: str, within: Mapping[str, Any]) -> list[Option]:
    """The questions the GM puts in this step (``questions``), or the answers the question ``within[KEY]`` offers."""
    asked = [q for q in within.get("questions") or () if _field(q, "id")]
    if source == "questions":
        return [Option(str(_field(q, "id")), str(_field(q, "text") or _field(q, "id")),
                       f"to {_field(q, 'faction')}") for q in asked]
    q = next((q for q in asked if _field(q, "id") == within.get(KEY)), None)
    return [Option(str(_field(o, "id")), str(_field(o, "text") or _field(o, "id")))
            for o in (_field(q, "options") or ()) if _field(o, "id")] if q is not None else []


def vocabulary(state: Any, source: str, within: Mapping[str, Any]) -> Sequence[Option] | None:
    """The options of ``Pick(source)`` in ``state``; ``within`` holds the sibling values of the entry.

    Raises ``KeyError`` for a source Signoria does not know (the ruleset turns it into the base's error).
    """
    s: SignoriaState = state
    if source == "visibilities":  # who may read a ruling (core.viewers' visibility strings), by name
        players = player_options(s)
        both = [Option(",".join(f"faction:{o.value}" for o in players), "the player factions, not the public")] \
            if len(players) > 1 else []
        return [Option("gm", "the GM only"), Option("public", "everyone"),
                *(Option(f"faction:{o.value}", f"{o.label} only") for o in players), *both]
    if source == "factions":
        return faction_options(s)
    if source == "player_factions":
        return player_options(s)
    if source == "neutrals":
        return neutral_options(s)
    if source == "traits":
        return [Option(t.name, t.label, t.parameter or "no parameter") for t in traits().values()]
    if source == "leader_traits":
        return [Option(t.name, t.label, f"watches {t.parameter}") for t in traits().values() if t.name != "liar"]
    if source == "characters":
        return [_character(c) for c in s.characters.values()] if s.initiative else None
    if source == "statesmen":
        return [_character(c) for c in s.characters.values() if c.role == "statesman"]
    if source == "loss_entries":
        return [Option("own", "own units", "the faction's own army"),
                *(Option(n, f"{s.factions[n].name if n in s.factions else n}'s contingent", "neutral")
                  for n in (s.neutrals() if s.initiative else _setup_ids(s, "neutrals")))]
    if source == "turn_orders":
        return _turn_orders(s)
    if source == "p3_campaigns":
        return _war_campaigns(s)
    if source == "p3_battles":
        return _battles(s)
    if source == "battle_rounds":
        return [Option(*r) for r in BATTLE_ROUNDS]
    if source == "battle_characters":
        return _battle_characters(s, within)
    if source == "duel_targets":
        return _duel_targets(s, within)
    if source == "battle_options":
        return [Option(*o) for o in BATTLE_OPTIONS]
    if source == "actions":
        return [Option(a, ACTION_NAMES.get(a, a.replace("_", " ")), action_when(a)) for a in ACTIONS]
    if source in ("questions", "answers"):
        return _questions(s, source, within)
    kind, _, fid = source.partition(":")
    if not fid:
        raise KeyError(source)
    if kind == "characters":
        return [_character(c) for c in own_characters(s, fid)]
    if kind == "agents":
        return [_character(c) for c in own_characters(s, fid) if c.role == "statesman"]
    if kind == "leaders":
        out = {c.id: _character(c) for c in own_characters(s, fid)}
        believed = s.believed_spies.get(fid, {})
        for agent, host in own_spies(s, fid).items():
            c = s.characters.get(agent)
            # a believed spy is offered whatever became of him: the briber cannot know (§6.4)
            if c is not None and agent not in out and (agent in believed or _in_play(c)):
                out[agent] = Option(agent, c.name, f"your spy in {host}")
        return list(out.values())
    if kind == "slots":
        spies = [Option(f"spy:{a}", f"spy {s.characters[a].name if a in s.characters else a}", f"in {h}")
                 for a, h in own_spies(s, fid).items()]
        return [Option("special", "special"), Option("ordinary", "ordinary"), *spies]
    if kind == "targets":
        return _targets(s, fid, within.get("action"))
    if kind == "dilemmas":
        return [Option(d.id, d.text or d.id, "a dilemma") for d in s.dilemmas.get(fid, ())]
    if kind == "dilemma_options":
        return _dilemma_options(s, fid, within.get(KEY))
    if kind == "candidates":
        return [Option(c.id, c.name, f"{c.trait}, costs {c.cost} wealth") for c in s.candidates.get(fid, ())]
    raise KeyError(source)


# ---- names in words (Ruleset.name_of) ------------------------------------------------------------------------

ACTION_NAMES = {
    "dilemma": "resolve a dilemma", "liberties": "grant liberties", "intrigue_self": "intrigue at home",
    "donation": "donate to the Church", "scouts": "send scouts", "spy": "plant a spy", "bribery": "bribe",
    "felmonte_offer": "make Felmonte an offer", "assassination": "assassinate", "intrigue_foreign": "intrigue abroad",
    "war": "march to war", "storm": "storm a city", "sally": "sally out", "pact": "seek a pact",
    "improve_relations": "improve relations", "turn_against": "turn a neutral against a rival",
    "passage": "seek right of passage", "trade": "seek a trade treaty", "military_aid": "seek military aid",
    "military_alliance": "seek a military alliance", "legitimacy": "seek legitimacy",
    "player_treaty": "treaty with a player", "hire_troops": "hire troops", "hire_statesman": "hire a statesman",
    "designate_heir": "designate an heir", "dismiss": "dismiss a statesman", "support": "support another order",
}
"""Each order's action as a person says it (§4.1): an order "to hire troops", the option "hire troops"."""
PHASE_WORDS = {"p1_internal": "internal affairs", "p2_espionage": "espionage", "p3_war": "war",
               "p4_diplomacy": "diplomacy", "p5_hiring": "hiring"}
"""The phases orders are resolved in (§4.3), by name."""


def action_when(action: str) -> str:
    """When an order of ``action`` is resolved (§4.3), its option's detail in words (it read "march to war — war";
    then "turn a neutral against a rival — resolved in the diplomacy phase", 380 px in the orders page's 354 px
    dropdown on a phone: tests/notebooks/test_selects_fit_browser.py).

    >>> action_when("war"), action_when("spy"), action_when("support")
    ('in the war phase', 'in the espionage phase', 'with the order it supports')
    """
    phase = PHASE_WORDS.get(PHASE_OF_ACTION.get(action, ""))
    return f"in the {phase} phase" if phase else "with the order it supports"


BATTLE_ROLL = re.compile(r"b(\d+)\.(\d+)\.r(\d+)\.(attacker|defender)\.(main|reserve)(?:\.(reroll|x(\d+)))?")
"""A battle pool's roll key (§5.5): ``<battle>.r<round>.<side>.<group>``, its re-rolled ones (``.reroll``,
Encirclement) or a wave of its exploding sixes (``.x<n>``, Breakthrough)."""


def battle_roll_words(key: str, place: str | None = None) -> str | None:
    """What a battle pool's roll key rolls, in words (the battle by its place when known); None for another key.

    >>> battle_roll_words("b8.1.r1.attacker.main", "Fabia")
    "Battle of Fabia, round 1: the attacker's main army"
    >>> battle_roll_words("b7.1.r2.defender.reserve.x2"), battle_roll_words("b7.1.r1.attacker.main.reroll")
    ("battle 1 of month 7, round 2: the defender's reserve, exploding sixes (wave 2)", \
"battle 1 of month 7, round 1: the attacker's main army, re-rolled ones")
    >>> battle_roll_words("cmd.1") is None
    True
    """
    m = BATTLE_ROLL.fullmatch(key)
    if m is None:
        return None
    battle = f"Battle of {place}" if place else f"battle {m.group(2)} of month {m.group(1)}"
    group = "main army" if m.group(5) == "main" else "reserve"
    more = ", re-rolled ones" if m.group(6) == "reroll" else f", exploding sixes (wave {m.group(7)})" \
        if m.group(7) else ""
    return f"{battle}, round {m.group(3)}: the {m.group(4)}'s {group}{more}"


ORDER_CHECK = re.compile(r"([a-z][a-z0-9_]*) (o\d+) ([a-z][a-z0-9_]*)")
"""The label an order's 2d6 was logged with before issue 29: ``<faction> <order> <action>`` ("fabian o1 bribery")."""


def order_id_words(order_id: str, slots: Sequence[str] = ()) -> str:
    """An order by the slot it takes (§3.3) and its number: ``S2`` (a special slot) is "special order 2", ``O1``
    "ordinary order 1", an order through a spy's own slot "order through a spy" (its id, ``X1``, is the plan's
    own key); without its slots, as its id says it (``o1``, an order logged before slots: "order 1").

    >>> order_id_words("S2", ("special",)), order_id_words("O1"), order_id_words("o3")
    ('special order 2', 'ordinary order 1', 'order 3')
    >>> order_id_words("X1", ("spy:lorenzo",)), order_id_words("X1"), order_id_words("S1", ("ordinary",))
    ('order through a spy', 'order', 'ordinary order')
    """
    m = re.fullmatch(r"([SOo])(\d+)", order_id)
    by_id = {"S": "special", "O": "ordinary", "o": ""}.get(m.group(1), "") if m else ""
    kind = slots[0].split(":")[0] if slots else by_id
    if kind == "spy":
        return "order through a spy"
    if m is None:
        return f"{kind} order" if kind else "order"
    said = f"{kind} order" if kind else "order"
    return f"{said} {m.group(2)}" if kind == by_id or not slots else said


def rerolls_name(fid: str, order: Order) -> str:
    """The name of an order's reroll allowance (§3.4): whose order, by its slot and what it does; the faction by its
    id, which a page says by its name (``views.words.Namer.text``).

    >>> rerolls_name("marburg", Order(id="S2", action="intrigue_foreign", slots=("special",)))
    "rerolls for marburg's special order 2 (intrigue abroad)"
    """
    what = ACTION_NAMES.get(order.action, order.action)
    return f"rerolls for {fid}'s {order_id_words(order.id, order.slots)} ({what})"


def order_check_words(who: str, verb: str) -> str:
    """An order's 2d6 check (§3.5) by whose order it is and what it does: "Duke Fabian's order to bribe Cesare".

    >>> order_check_words("Duke Fabian", "bribe Cesare")
    "Duke Fabian's order to bribe Cesare"
    """
    return f"{who}{chr(39) if who.endswith('s') else chr(39) + 's'} order to {verb}"


def logged_order_check_words(label: str) -> str | None:
    """A label logged as ``<faction> <order> <action>`` in words, from what it holds (the target it did not keep is
    not named); None for any other label.

    >>> logged_order_check_words("fabian o1 bribery"), logged_order_check_words("marburg o2 hire_troops")
    ("Duke Fabian's order 1 to bribe", "Doge of Marburg's order 2 to hire troops")
    >>> logged_order_check_words("Duke Fabian's order to bribe Cesare") is None
    True
    """
    from kingdomlog.rulesets.signoria.tables import factions

    m = ORDER_CHECK.fullmatch(label)
    if m is None:
        return None
    row = factions().get(m.group(1))
    who = row.label if row is not None else m.group(1).replace("_", " ").title()
    action = ACTION_NAMES.get(m.group(3), m.group(3).replace("_", " "))
    said = order_check_words(who, action)
    return said.replace("'s order to", f"'s order {m.group(2)[1:]} to", 1).replace(
        "' order to", f"' order {m.group(2)[1:]} to", 1)


TREATY_WORDS = {"non_aggression": "non-aggression pact", "right_of_passage": "right of passage",
                "trade": "trade agreement", "military_aid": "military aid agreement",
                "military_alliance": "military alliance", "player_treaty": "treaty"}
"""Each treaty type (§2.6) as a noun: "a non-aggression pact with Signor Gusso"."""


FACTION_KINDS = {"player": "player faction", "neutral": "neutral faction"}
"""A faction's kind (§2.3, §2.5) as its table's cell says it: "player faction" (it read "player")."""


FLAG = re.compile(r"t(\d+) ([a-z_]+) (low_resource|trait_trap|council_vote): (.*)")


def flag_words(flag: str) -> str | None:
    """A flag the upkeep raised for the GM (the state's ``flags``: "t2 fabian low_resource: wealth 1") as §4.7,
    §4.8 and §8.2 say it: "Month 2: fabian low on wealth (1)" (the faction's id for the page to name), None for
    a text it does not know.

    >>> flag_words("t2 fabian low_resource: wealth 1"), flag_words("t6 fabian council_vote: power 1")
    ('Month 2: fabian low on wealth (1)', 'Month 6: fabian, council check: power 1')
    >>> flag_words("t2 fabian trait_trap: cesare (steward) unhappy: wealth 1")
    'Month 2: fabian, trait trap: cesare (steward) unhappy at wealth 1'
    >>> flag_words("t2 fabian low_resource: wealth")
    'Month 2: fabian low on wealth'
    """
    m = FLAG.fullmatch(flag.strip())
    if not m:
        return None
    month, faction, kind, detail = m.groups()
    if kind == "low_resource":
        r = re.fullmatch(r"([a-z]+) (-?\d+)", detail)
        return f"Month {month}: {faction} low on " + (f"{r.group(1)} ({r.group(2)})" if r else detail)
    if kind == "trait_trap":
        return f"Month {month}: {faction}, trait trap: " + re.sub(r"unhappy: ", "unhappy at ", detail, count=1)
    return f"Month {month}: {faction}, council check: {detail}"


def name_of(id: str, kind: str = "") -> str | None:
    """Signoria's names of its ids in words, or None for one it does not name (the ruleset's default then).

    >>> name_of("cmd.1", "roll"), name_of("cmd.3", "roll"), name_of("hire_troops", "action")
    ('the command roll', 'reroll 2', 'hire troops')
    >>> name_of("candidate.t8.c1.2", "roll"), name_of("b7.1.r2.defender.main", "roll")
    ("a candidate's trait, die 2", "battle 1 of month 7, round 2: the defender's main army")
    >>> name_of("b7.1"), name_of("fabian.leader"), name_of("province:fabia")
    ('battle 1 of month 7', "fabian's leader", 'the province of Fabia')
    >>> name_of("t2.c1"), name_of("fabian.S2")
    ('candidate 1 of month 2', "fabian's special order 2")
    """
    if kind in ("roll", ""):
        m = re.fullmatch(r"cmd\.(\d+)", id)
        if m:
            n = int(m.group(1))
            return "the command roll" if n == 1 else f"reroll {n - 1}"
        m = re.fullmatch(r"(candidate|trait)\.(.+)\.(\d+)", id)
        if m:  # a statesman's trait, rolled on a d6 until it names one (§4.6, §2.9)
            who = "a candidate's" if m.group(1) == "candidate" else f"{m.group(2)}'s"
            return f"{who} trait, die {m.group(3)}"
        said = battle_roll_words(id)
        if said:  # a battle round's dice (§5.5)
            return said
    if kind == "field:type" and id in TREATY_WORDS:  # a treaty's type as §7.2 names it: "Non-aggression pact"
        return TREATY_WORDS[id][:1].upper() + TREATY_WORDS[id][1:]
    if kind == "field:flags":  # a flag raised at upkeep for the GM (§4.7, §4.8, §8.2)
        said = flag_words(id)
        if said:
            return said
    if kind == "field:kind" and id in FACTION_KINDS:
        return FACTION_KINDS[id]
    if kind in ("action", "option", "") and id in ACTION_NAMES:
        return ACTION_NAMES[id]
    m = re.fullmatch(r"b(\d+)\.(\d+)", id)
    if m:
        return f"battle {m.group(2)} of month {m.group(1)}"
    m = re.fullmatch(r"t(\d+)\.c(\d+)", id)
    if m:  # a candidate offered in a month (§4.6): the aliases' key, a ruling's candidate
        return f"candidate {m.group(2)} of month {m.group(1)}"
    m = re.fullmatch(r"([a-z]+)\.([A-Z]+\d+)", id)
    if m:  # a faction's order (its key in the log: a ruling's "bribe of lorenzo by fabian.S2")
        return f"{m.group(1)}'s {order_id_words(m.group(2))}"  # "fabian's special order 2" (it read "order S2")
    m = re.fullmatch(r"([a-z]+)\.leader", id)
    if m:
        return f"{m.group(1)}'s leader"
    m = re.fullmatch(r"province:([a-z_]+)", id)
    if m:  # where an income line comes from (§4.3)
        return f"the province of {m.group(1).replace('_', ' ').title()}"
    return None
