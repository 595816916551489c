"""The steps of a Signoria turn (§3-§7): their typed choices and ``decide(ctx, choices)`` functions.

Each step is declared once as a ``core.ruleset.Step``. Its ``decide`` receives the shared
``StepContext``: ``ctx.emit`` folds every event at once (later sub-steps see earlier outcomes, the
fixed order of §4.3), ``ctx.roll`` rolls keyed dice (or the GM's typed faces) and records the check
each 2d6 or d6 pool resolves, ``ctx.fail`` makes the rule error to raise and ``ctx.explain`` adds the
numbers the step used (reroll allowances, thresholds, income, slots, forces, scores). Every die read
is recorded in a payload; nothing is appended unless the whole step decides.

A faction's own steps (``command_<f>``, ``orders_<f>``) are built per faction (``command_step``,
``orders_step``); the GM's are module constants.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache, wraps
from typing import Any, TypeVar

from pydantic import ValidationError

from kingdomlog.core.choices import Choices
from kingdomlog.core.errors import InputError
from kingdomlog.core.modifiers import Modifier, stack
from kingdomlog.core.ruleset import Answer, Breakdown, Question, Step, StepContext, Term
from kingdomlog.core.viewers import parse_visibility
from kingdomlog.dice.checks import CheckSpec, PoolSpec
from kingdomlog.rulesets.signoria import events as ev
from kingdomlog.rulesets.signoria.battle import BattleSetup, Fighter, SideSetup, fight
from kingdomlog.rulesets.signoria.choices import (
    CommandChoices,
    EspionageChoices,
    FinalChoices,
    Ruling,
    RulingsChoices,
    SetupChoices,
    StatesmanEntry,
    TurnOpenChoices,
    UpkeepChoices,
    WarChoices,
    orders_choices,
)
from kingdomlog.rulesets.signoria.mapview import ROUTE_WORDS, fname, order_words, province_name
from kingdomlog.rulesets.signoria.options import option_defaults
from kingdomlog.rulesets.signoria.rules import (
    ACTIONS,
    COUNTED_TREATIES,
    FREE_ACTIONS,
    LEADER_KILL_THRESHOLD,
    MIN_STAKE,
    NEUTRAL_GOALS,
    SPY_ACTIONS,
    STAKE_RANK,
    STAKE_THRESHOLD,
    TREATY_KIND,
    aid_size,
    bribery_band,
    clamp,
    command_slots,
    final_score,
    neutral_threshold,
)
from kingdomlog.rulesets.signoria.state import (
    RESOURCES,
    Order,
    SignoriaState,
    home_force,
    income_breakdown,
    income_lines,
    reroll_allowance,
)
from kingdomlog.rulesets.signoria.tables import adjacency, season_of, trait_from_die, traits
from kingdomlog.rulesets.signoria.tables import factions as setting_factions
from kingdomlog.rulesets.signoria.tables import provinces as setting_provinces
from kingdomlog.rulesets.signoria.vocabulary import (
    ACTION_NAMES,
    battle_roll_words,
    order_check_words,
    own_spies,
    rerolls_name,
)

Ctx = StepContext[SignoriaState]
C = TypeVar("C", bound=Choices)


def vis(state: SignoriaState, *fids: str | None) -> str:
    """Visibility naming player factions only (a neutral's side is the GM's, §11.3)."""
    out: list[str] = []
    for f in fids:
        if f and f in state.factions and state.factions[f].kind == "player" and f"faction:{f}" not in out:
            out.append(f"faction:{f}")
    return ",".join(out) if out else "gm"


def cfg(ctx: Ctx) -> dict[str, Any]:
    return ctx.state.config


def guarded(fn: Callable[[Ctx, C], None]) -> Callable[[Ctx, C], None]:
    """A step's decide: the rules. A rule or input error passes through, and so does any other exception:
    ``core.ruleset.run_step`` reports it as an ``InternalError`` naming the step (a bug of the rules, never
    the user's mistake: the typed choices refuse malformed input before ``decide`` runs)."""

    @wraps(fn)
    def run(ctx: Ctx, c: C) -> None:
        fn(ctx, c)

    return run


# ---------------------------------------------------------------------------------------------- dice

def d6(ctx: Ctx, key: str, n: int = 1) -> list[int]:
    if n <= 0:
        return []
    return list(ctx.roll(key, f"{n}d6").faces)


def pool(ctx: Ctx, key: str, n: int, threshold: int, place: str | None = None) -> list[int]:
    """A battle pool of ``n`` d6 succeeding at ``threshold``+ (§5.3), labelled with what it rolls in words (the
    battle by its ``place``: "Battle of Fabia, round 1: the attacker's main army"; issue 29)."""
    if n <= 0:
        return []
    spec = CheckSpec("pool", pool=PoolSpec(n, threshold), label=battle_roll_words(key, place) or key)
    return list(ctx.roll(key, f"{n}d6", check=spec).faces)


def roll2(ctx: Ctx, key: str, check: CheckSpec | None = None) -> tuple[int, int]:
    f = ctx.roll(key, "2d6", check=check).faces
    return (int(f[0]), int(f[1]))


def pass_fail(threshold: int, modifier: int = 0, label: str = "") -> CheckSpec:
    """A 2d6 + ``modifier`` roll that succeeds at ``threshold`` (§3.3)."""
    return CheckSpec("2d6", modifier=modifier, dc=threshold, label=label,
                     bands=((None, threshold - 1, "failure"), (threshold, None, "success")))


def random_trait(ctx: Ctx, key: str, exclude: tuple[str, ...] = ()) -> tuple[str, tuple[int, ...]]:
    """A random trait by d6 (§8.5): 1-4 map, 5-6 and excluded traits roll again."""
    faces: list[int] = []
    for i in range(1, 40):
        face = d6(ctx, f"{key}.{i}")[0]
        faces.append(face)
        t = trait_from_die(face)
        if t and t not in exclude:
            return t, tuple(faces)
    raise ctx.fail("no trait after 39 dice", "§8.5")  # pragma: no cover


# ---------------------------------------------------------------------------------------------- shared helpers

def adjust(ctx: Ctx, fid: str, resource: str, delta: int, reason: str, visible_to: str | None = None) -> None:
    """A resource change with the §4.8 floor recorded as a shortfall."""
    s = ctx.state
    if delta == 0 or fid not in s.factions:
        return
    cur = getattr(s.factions[fid], resource) or 0
    short = max(0, -(cur + delta)) if delta < 0 else 0
    ctx.emit(ev.ResourceAdjusted(faction=fid, resource=resource, delta=delta, reason=reason,
                                 shortfall=short), visibility=visible_to or vis(s, fid))


def order_check_label(s: SignoriaState, fid: str, order: Order) -> str:
    """An order's 2d6 check (§3.5) in words: whose order and what it does to whom ("Duke Fabian's order to bribe
    Cesare"), never its ids; the target is the one the order's faction named itself."""
    from kingdomlog.rulesets.signoria.mapview import fname, order_words

    return order_check_words(fname(s, fid), order_words(s, {"action": order.action, "target": order.target}))


def allowance_breakdown(s: SignoriaState, fid: str, order: Order) -> Breakdown:
    """``reroll_allowance`` as a breakdown (§3.4), named in words (``vocabulary.rerolls_name``)."""
    _, terms = reroll_allowance(s, fid, order)
    return stack(rerolls_name(fid, order), [Modifier(t, v, source="§3.4") for t, v in terms])


def act(ctx: Ctx, fid: str, order: Order, threshold: int, modifier: int = 0,
        check: CheckSpec | None = None) -> tuple[bool, list[tuple[int, int]], int, int]:
    """Roll an action with automatic rerolls (§3.5); returns (success, rolls, R, last total)."""
    r, _ = reroll_allowance(ctx.state, fid, order)
    ctx.explain(allowance_breakdown(ctx.state, fid, order))
    spec = check or pass_fail(threshold, modifier, order_check_label(ctx.state, fid, order))
    rolls: list[tuple[int, int]] = []
    for i in range(r + 1):
        pair = roll2(ctx, f"{fid}.{order.id}.{i + 1}", spec)
        rolls.append(pair)
        if sum(pair) + modifier >= threshold:
            return True, rolls, r, sum(pair) + modifier
    return False, rolls, r, sum(rolls[-1]) + modifier


def staked(ctx: Ctx, fid: str, order: Order, target: str | None = None) -> bool | None:
    """An order at its stake (§3.3, §3.5): elementary is recorded as done (None); a low or high stake is rolled against
    its threshold (with its rerolls) and recorded, and says whether it succeeded."""
    if order.stake == "elementary":
        record(ctx, fid, order, "elementary", target=target)
        return None
    t = STAKE_THRESHOLD[order.stake]
    ok, rolls, r, _ = act(ctx, fid, order, t)
    record(ctx, fid, order, "success" if ok else "failure", threshold=t, r=r, rolls=rolls, target=target)
    return ok


def record(ctx: Ctx, fid: str, order: Order, outcome: str, *, threshold: int | None = None, modifier: int = 0,
           r: int = 0, rolls: list[tuple[int, int]] | None = None, target: str | None = None,
           detail: dict[str, Any] | None = None) -> None:
    ctx.emit(ev.ActionResolved(faction=fid, order=order.id, action=order.action,
                               stake=order.stake, threshold=threshold, modifier=modifier, rerolls_allowed=r,
                               rolls=tuple(rolls or ()), outcome=outcome, target=target, detail=detail or {}),
             visibility=vis(ctx.state, fid), actor=fid)


def void(ctx: Ctx, fid: str, o: Order, reason: str, rule: str) -> None:
    """An order that cannot be carried out is void on its own (§3.5 step 1, §4.8); its faction is told why
    (``OrderVoided``, visible to it and the GM) and the rest of the month goes on."""
    ctx.emit(ev.OrderVoided(faction=fid, order=o.id, action=o.action, reason=reason, rule=rule),
             visibility=vis(ctx.state, fid))


def orders_for(ctx: Ctx, action: str | tuple[str, ...], run: Mapping[str, bool] | None = None
               ) -> list[tuple[str, Order]]:
    """Orders of ``action`` in initiative order; double-agent slot orders only if the owner lets them run
    (``run``: ``<briber>.<order id>`` -> carried out)."""
    acts = (action,) if isinstance(action, str) else action
    s = ctx.state
    out: list[tuple[str, Order]] = []
    for fid in s.initiative:
        o = s.orders.get(fid)
        if o is None:
            continue
        out.extend((fid, x) for x in o.orders if x.action in acts and gated(ctx, fid, x, run or {}))
    return out


def gated(ctx: Ctx, fid: str, o: Order, run_orders: Mapping[str, bool]) -> bool:
    """§6.4: an order in a double agent's believed spy slot goes to the owner, who decides if it runs."""
    s = ctx.state
    agent = next((x[4:] for x in o.slots if x.startswith("spy:")), None)
    if agent is None:
        return True
    c = s.characters.get(agent)
    if c is None or c.agent_kind != "double_agent" or c.true_master in (None, fid):
        return True
    owner = c.true_master
    key = f"{fid}.{o.id}"
    said = order_words(s, {"action": o.action, "target": o.target})  # not who leads it: the owner cannot know
    if key not in run_orders and owner in s.factions and s.factions[owner].kind == "player":
        ctx.ask(Question(
            id=f"double_agent_order:{key}", to=owner, kind="double_agent_order", step="p2_espionage",
            path=("double_agent_orders", key), default=False, group=f"p2.{key}",
            prompt=f"{fname(s, fid)} believes {c.name} is its spy and orders him to {said} ({o.stake} stake). "
                   "Carry it out? (§6.4)",
            options=(Answer(True, "carry it out"), Answer(False, "do not: they are told it failed"))))
    run = bool(run_orders.get(key, False))
    ctx.emit(ev.FactionNotified(faction=owner, kind="double_agent_order",
                                text=f"{fname(s, fid)} ordered {c.name} to {said}" + (" (carried out)" if run else
                                                                                      " (not carried out)"),
                                data={"order": o.model_dump(mode="json"), "briber": fid, "executed": run,
                                      "character": c.id}),
             visibility=vis(s, owner))
    if not run:
        ctx.emit(ev.FactionNotified(faction=fid, kind="spy_report",
                                    text=f"{c.name} reports that your order to {said} failed",
                                    data={"order": o.id, "outcome": "failure"}), visibility=vis(ctx.state, fid))
    return run


def rulings(ctx: Ctx, given: list[Ruling]) -> None:
    """Record the GM's rulings; each visibility may name only player factions of this game (§11.3)."""
    players = [f for f in ctx.state.initiative if ctx.state.factions[f].kind == "player"]
    for i, r in enumerate(given):
        try:
            parse_visibility(r.visibility, players)
        except InputError as exc:
            raise InputError(f"step {ctx.step!r}: choice rulings[{i}].visibility: {exc}") from None
        ctx.emit(ev.GMRulingRecorded(gap=r.gap, text=r.text,
                                     effects=as_given(r.effects)),
                 visibility=r.visibility)


def _slug(name: str, taken: Mapping[str, Any]) -> str:
    """A character id from a name, unique in ``taken``.

    >>> _slug("Doge Andrea", {}), _slug("Cesare", {"cesare": 1})
    ('doge-andrea', 'cesare-2')
    """
    base = "-".join("".join(ch if ch.isalnum() else " " for ch in name.lower()).split()) or "character"
    cid, n = base, 1
    while cid in taken:
        n += 1
        cid = f"{base}-{n}"
    return cid


# ---------------------------------------------------------------------------------------------- setup

def decide_setup(ctx: Ctx, c: SetupChoices) -> None:
    """Turn 0 (§2.9): provinces, factions, resources, leaders (2 chosen traits), statesmen (random trait)."""
    if ctx.state.initiative:
        raise InputError("setup has already been played")
    options = {**option_defaults(), **ctx.state.config}
    factions_data = setting_factions()
    players = list(options["players"])
    if not 2 <= len(players) <= 5:
        raise ctx.fail(f"{len(players)} player factions; the game takes 2 to 5", "§1.2")
    extra = dict(options.get("extra_factions") or {})
    rows: dict[str, dict[str, Any]] = {}
    for p in players:
        if p in factions_data and factions_data[p].kind == "player":
            rows[p] = factions_data[p].model_dump()
        elif p in extra:
            dflt = dict(options["initial_resources"].get("_other", {"power": 4, "piety": 5, "wealth": 3, "army": 4}))
            rows[p] = {"name": p, "label": extra[p].get("label", p), "kind": "player", "traits": (),
                       "province": extra[p].get("province", p), "leader": extra[p].get("leader", f"Leader of {p}"),
                       "may_name_heir": True, "heir_from_start": False, **dflt}
        else:
            raise ctx.fail(f"unknown player faction {p!r}; define it in extra_factions", "§1.2")
    for n in options["neutrals"]:
        rows[n] = factions_data[n].model_dump()
    over = dict(options.get("initial_resources") or {})
    # secret starting values typed in by the GM at setup (not a public campaign option)
    for fid, vals in c.resources.items():
        over[fid] = {**dict(over.get(fid, {})), **vals.model_dump(exclude_none=True)}
    for fid, given in over.items():
        if fid in rows:
            rows[fid].update({k: int(v) for k, v in given.items() if k in RESOURCES})
    initiative = tuple(rows)
    ctx.emit(ev.GameCreated(config=dict(options), initiative=initiative, resume_turn=c.resume_turn),
             visibility="public")
    prows = setting_provinces()
    for fid, row in rows.items():
        pid = row["province"]
        if pid in prows:
            pr = prows[pid]
            ctx.emit(ev.ProvinceDefined(province=pid, name=pr.label, income=pr.income, owner=fid), visibility="public")
        else:
            ctx.emit(ev.ProvinceDefined(province=pid, name=str(extra.get(fid, {}).get("province_name", pid)),
                                        income=1, owner=fid), visibility="public")
    for fid, lname in c.leader_names.items():
        if fid in rows:
            rows[fid]["leader"] = str(lname)
    for fid, row in rows.items():
        ctx.emit(ev.FactionCreated(faction=fid, name=row["label"], kind=row["kind"], traits=tuple(row["traits"]),
                                   keys=tuple(row.get("keys", ())), leader_name=row["leader"],
                                   may_name_heir=bool(row.get("may_name_heir", True))), visibility="public")
        public_stats = row["kind"] == "neutral"
        ctx.emit(ev.ResourcesInitialized(faction=fid, power=row["power"], piety=row["piety"], wealth=row["wealth"],
                                         army=row["army"]),
                 visibility="public" if public_stats else vis(ctx.state, fid))
        if row["kind"] == "neutral":
            ctx.emit(ev.CharacterCreated(character=f"{fid}.leader", faction=fid, name=row["leader"], role="leader",
                                         traits=tuple(row["leader_traits"]), trait_source="setting"), visibility="gm")
            continue
        lt = tuple(c.leader_traits.get(fid, ()))
        if len(lt) != 2 or len(set(lt)) != 2 or any(t not in traits() or t == "liar" for t in lt):
            raise ctx.fail(f"{fid}: a leader needs two distinct traits from "
                           f"{', '.join(t for t in traits() if t != 'liar')}, got {list(lt)}", "§2.4, §8.5")
        ctx.emit(ev.CharacterCreated(character=f"{fid}.leader", faction=fid, name=row["leader"], role="leader",
                                     traits=lt, trait_source="chosen"), visibility=vis(ctx.state, fid))
        # the leader's name is public (§11.3): it is in FactionCreated.leader_name
        smen = list(c.statesmen.get(fid) or [StatesmanEntry(name=f"Statesman {len(ctx.state.characters) + i}")
                                             for i in range(int(options["statesmen_per_faction"]))])
        heir_given = any(sm.heir for sm in smen)
        for i, sm in enumerate(smen):
            # ids carry no faction prefix: a planted spy must not betray his master by his id (§6.2)
            cid = str(sm.id or _slug(sm.name, ctx.state.characters))
            trait, faces = random_trait(ctx, f"trait.{cid}")
            heir = sm.heir or (row.get("heir_from_start", False) and not heir_given and i == 0)
            if heir and not row.get("may_name_heir", True):
                raise ctx.fail(f"{fid} cannot name an heir", "§8.2")
            ctx.emit(ev.CharacterCreated(character=cid, faction=fid, name=sm.name, role="statesman",
                                         traits=(trait,), trait_source="random", trait_dice=faces, is_heir=heir),
                     visibility=vis(ctx.state, fid))
    # the neutrals' stats are public knowledge at turn 0 (§1.4)
    for fid in rows:
        if rows[fid]["kind"] != "player":
            continue
        for n in options["neutrals"]:
            r = rows[n]
            ctx.emit(ev.IntelRecorded(observer=fid, subject=n, fields={k: r[k] for k in RESOURCES},
                                      turn=0, phase="setup", source="public"), visibility=vis(ctx.state, fid))
    rulings(ctx, c.rulings)


# ---------------------------------------------------------------------------------------------- turn opening

def decide_turn_open(ctx: Ctx, c: TurnOpenChoices) -> None:
    """§4.3 turn opening: season, income (§4.4), global event, faction events, dilemmas, candidates."""
    turn = ctx.state.turn + 1
    season = season_of(turn)
    ctx.emit(ev.TurnOpened(turn=turn, season=season.name, year_label=season.year_label), visibility="public")
    for t in list(ctx.state.treaties.values()):
        if t.active and t.expires_turn is not None and t.expires_turn < turn:
            ctx.emit(ev.TreatyEnded(treaty=t.id, reason="expired"), visibility=vis(ctx.state, *t.parties))
    for fid in ctx.state.players():
        lines = income_lines(ctx.state, fid, turn)
        ctx.explain(income_breakdown(ctx.state, fid, turn))
        ctx.emit(ev.IncomeCredited(faction=fid, lines=tuple(lines), total=sum(x["amount"] for x in lines)),
                 visibility=vis(ctx.state, fid))
    ge = c.global_event
    if ge is not None and ge.model_fields_set:
        ctx.emit(ev.GlobalEventAnnounced(key=ge.key or "event", title=ge.title,
                                         effects=as_given(ge.effects)),
                 visibility="public")
    for fe in c.faction_events:
        ctx.emit(ev.GMRulingRecorded(gap="§4.2", text=fe.text,
                                     effects=as_given(fe.effects)),
                 visibility=vis(ctx.state, fe.faction))
    for d in c.dilemmas:
        ctx.emit(ev.DilemmaPresented(faction=d.faction, dilemma=d.id, text=d.text,
                                     options=as_given(d.options)),
                 visibility=vis(ctx.state, d.faction))
        if d.faction in ctx.state.players():  # the faction answers in its orders (§4.1 A7); G-34: abstain
            ctx.ask(Question(
                id=f"dilemma:{d.id}", to=d.faction, kind="dilemma", step=f"orders_{d.faction}",
                path=("dilemmas", d.id), default="abstain", group="opening",
                prompt=f"{(d.text or 'A dilemma the GM left without words').rstrip('.')}. Resolving it takes one"
                       " action slot; abstaining is free (§4.1 A7).",
                options=(*(Answer(o.id, o.text or o.id) for o in d.options),
                         Answer("abstain", "abstain", "no slot spent"))))
    # candidates (§4.6) and planted agents (§6.2 step 2) are offered alike: per host, sorted by name, numbered
    # t<turn>.c<n>; a planted agent's real id is told only to the GM and his master (candidate_alias)
    offers: list[dict[str, Any]] = []
    for cand in c.candidates:
        offers.append({"faction": cand.faction, "name": cand.name, "id": cand.id,
                       "cost": int(cand.cost if cand.cost is not None else cfg(ctx).get("statesman_hire_cost", 1))})
    for agent, host in _pending_plants(ctx.state).items():
        ch = ctx.state.characters[agent]
        offers.append({"faction": host, "name": ch.name, "agent": agent, "trait": ch.traits[0],
                       "cost": int(cfg(ctx).get("statesman_hire_cost", 1))})
    order = {f: i for i, f in enumerate(ctx.state.initiative)}
    offers.sort(key=lambda o: (order.get(o["faction"], 99), o["name"], o.get("agent") or ""))
    for n, o in enumerate(offers, start=1):
        cid = str(o.get("id") or f"t{turn}.c{n}")
        if "agent" in o:
            master = ctx.state.characters[o["agent"]].true_master or ""
            ctx.emit(ev.CandidateAlias(candidate=cid, agent=o["agent"], host=o["faction"]),
                     visibility=vis(ctx.state, master))
            trait = o["trait"]
        else:
            trait, faces = random_trait(ctx, f"candidate.{cid}")
            ctx.emit(ev.GMRulingRecorded(gap="§4.6", text=f"trait of candidate {o['name']} rolled: {trait}",
                                         effects=({"kind": "text", "candidate": cid, "dice": list(faces)},)),
                     visibility="gm")
        ctx.emit(ev.CandidateOffered(faction=o["faction"], candidate=cid, name=o["name"], trait=trait,
                                     cost=o["cost"]), visibility=vis(ctx.state, o["faction"]))
        if o["faction"] in ctx.state.players():  # hired in phase 5 for one slot and his cost (§4.6)
            ctx.ask(Question(
                id=f"candidate:{cid}", to=o["faction"], kind="candidate", step=f"orders_{o['faction']}",
                path=("candidates", cid), default="pass", group="opening",
                prompt=f"{o['name']} ({trait}) offers to serve you for {o['cost']} wealth; the hiring takes one "
                       "action slot and is done in phase 5 (§4.6).",
                options=(Answer("hire", "hire", f"{o['cost']} wealth, one slot"), Answer("pass", "pass"))))
    rulings(ctx, c.rulings)


def _active_player(s: SignoriaState, fid: str | None) -> bool:
    return bool(fid) and fid in s.factions and s.factions[str(fid)].kind == "player" and \
        s.factions[str(fid)].status == "active"


def _pending_plants(s: SignoriaState) -> dict[str, str]:
    """Agents planted last turn and waiting to be hired: agent -> host.

    An agent whose master has been eliminated since is no longer anyone's agent: he left play with his
    master's court (§5.13) and is offered to nobody.
    """
    out: dict[str, str] = {}
    for agent, (host, turn) in s.plants.items():
        c = s.characters.get(agent)
        if c is not None and c.condition == "departed" and turn == s.turn - 1 and _active_player(s, c.true_master):
            out[agent] = host
    return out


# ---------------------------------------------------------------------------------------------- command roll

def _own_faction(ctx: Ctx, prefix: str) -> str:
    fid = ctx.step.removeprefix(prefix)
    if fid not in ctx.state.players():
        raise InputError(f"[{ctx.step}] {fid!r} is not an active player faction")
    return fid


def command_grants(s: SignoriaState, fid: str) -> tuple[int, int]:
    """(special, ordinary) slots the GM granted (or took) this turn before the command roll (§3.2).

    Before the first attempt they are the turn's slots so far; after an attempt, what its recorded
    slots hold beyond the stake's row of §3.1.
    """
    cr = s.command.get(fid)
    if cr is None:
        return 0, 0
    if not cr.attempts:
        return cr.special, cr.ordinary
    sp, od = command_slots(cr.stake, cr.success)
    return cr.special - sp, cr.ordinary - od


def decide_command(ctx: Ctx, c: CommandChoices) -> None:
    """The command roll (§3.1): 2d6 at a stake, rerolls bought with 1 Power or 1 Wealth while failing.

    Every planned reroll must be payable before anything is rolled (each resource named at most as
    many times as the faction holds of it), so a refusal never depends on the dice and a player cannot
    learn the roll from it (no fishing for the dice with refused plans). The slots the GM granted this turn
    before the roll stay on top of the stake's row (§3.2); each attempt records the slots it gives.
    """
    fid = _own_faction(ctx, "command_")
    stake = c.stake
    pay = list(c.pay)
    limit = int(cfg(ctx).get("command_reroll_limit", -1))
    if limit >= 0 and len(pay) > limit:
        raise ctx.fail(f"{len(pay)} rerolls planned; the limit is {limit}", "§3.1 command_reroll_limit")
    me = ctx.state.factions[fid]
    for res in ("power", "wealth"):
        want, have = pay.count(res), getattr(me, res) or 0
        if want > have:
            raise ctx.fail(f"{fid} cannot pay 1 {res} for each of the {want} rerolls planned with {res} ({res} is "
                           f"{have})", "§3.1 reroll needs 1 Power or Wealth")
    grant_sp, grant_od = command_grants(ctx.state, fid)
    threshold = STAKE_THRESHOLD[stake]
    check = pass_fail(threshold, label=f"{me.name}'s command roll ({stake} stake)")

    def attempt_made(n: int, pair: tuple[int, int], paid: Any) -> None:
        ok = sum(pair) >= threshold
        sp, od = command_slots(stake, ok)
        ctx.emit(ev.CommandRollMade(faction=fid, attempt=n, stake=stake, dice=pair, paid_with=paid, success=ok,
                                    special=max(0, sp + grant_sp), ordinary=max(0, od + grant_od)),
                 visibility=vis(ctx.state, fid), actor=fid)

    pair = roll2(ctx, "cmd.1", check)
    attempt_made(1, pair, None)
    attempt = 1
    while sum(pair) < threshold and attempt <= len(pay):
        res = pay[attempt - 1]
        attempt += 1
        pair = roll2(ctx, f"cmd.{attempt}", check)
        attempt_made(attempt, pair, res)
    cr = ctx.state.command[fid]
    sp, od = command_slots(stake, cr.success)
    terms = [Term(f"special ({stake})", sp, source="§3.1"), Term(f"ordinary ({stake})", od, source="§3.1")]
    if grant_sp:
        terms.append(Term("special granted this turn", grant_sp, source="§3.2"))
    if grant_od:
        terms.append(Term("ordinary granted this turn", grant_od, source="§3.2"))
    ctx.explain(Breakdown(f"{fid} command roll", sum(pair), (Term("2d6", sum(pair)),),
                          note=f"{stake} stake needs {threshold}+: {'success' if cr.success else 'failure'}"),
                Breakdown(f"{fid} action slots", cr.special + cr.ordinary, tuple(terms)))


# ---------------------------------------------------------------------------------------------- sealed orders

def decide_orders(ctx: Ctx, c: Choices) -> None:
    """Check and seal one faction's orders (§4.3, §3.2, §3.5, §3.7, §4.8, §7.2); visible to it and the GM only.

    Decided on the faction's own redacted view (its submission check, ``state.viewer`` is the faction),
    any order the faction can know to be wrong refuses the submission, with a message built from that
    view only; what only the full state can settle (a rival's character, a leader, costs after the GM's
    events) is left to the resolution. Decided on the truth (the GM's turn), an order that cannot be
    carried out is void on its own (``OrderVoided``, told to the faction) and the others are sealed: the
    month goes on. Choices left entirely at their defaults mean the faction gave no orders (G-34: it is
    listed as missing when the orders lock).
    """
    fid = _own_faction(ctx, "orders_")
    choices: Any = c
    if not c.model_fields_set:
        return  # nothing submitted: no actions, every dilemma abstained (G-34 missing_orders)
    if choices.actor != fid:
        raise ctx.fail(f"orders submitted by {choices.actor!r} in {fid!r}'s orders step: a faction orders only itself",
                       "§1.3 sealed orders per faction")
    orders: list[Order] = []
    for i, o in enumerate(choices.orders):
        if o.faction is not None and o.faction != fid:
            raise ctx.fail(f"order {o.id!r} is for {o.faction!r}, not {fid!r}", "§1.3 sealed orders")
        body = o.model_dump(exclude_unset=True, exclude={"faction"})
        if body.get("id") is None:
            body["id"] = f"O{i + 1}"
        # a parameter given as null is a parameter not given (the rules read each with its default)
        body["params"] = {k: v for k, v in (body.get("params") or {}).items() if v is not None}
        try:
            orders.append(Order.model_validate(body))
        except ValidationError as exc:  # pragma: no cover - the typed entry fits Order
            raise InputError(f"[{ctx.step}] order #{i + 1} is malformed: {exc}") from None
    ids = [o.id for o in orders]
    if len(set(ids)) != len(ids):
        raise ctx.fail("order ids must be unique", "§11.2")
    kept, dilemmas = validate_orders(ctx, fid, orders, dict(choices.dilemmas), dict(choices.candidates))
    standing = as_given([choices.standing])[0] if choices.standing is not None else {}
    ctx.emit(ev.OrdersSubmitted(faction=fid, orders=tuple(o.model_dump(mode="json") for o in kept),
                                dilemmas=dilemmas, standing=standing), visibility=vis(ctx.state, fid), actor=fid)


def as_given(entries: Sequence[Choices]) -> tuple[dict[str, Any], ...]:
    """Typed entries (effects, dilemma options, standing instructions) as recorded: the fields given, a null left
    out, so what reads them takes each one's default rather than a null (issue 28)."""
    return tuple(e.model_dump(exclude_unset=True, exclude_none=True) for e in entries)


class _Sealing:
    """One faction's orders being checked: refuse (its own view) or void (the truth) what cannot stand."""

    def __init__(self, ctx: Ctx, fid: str) -> None:
        self.ctx, self.fid = ctx, fid
        self.own_view = ctx.state.viewer == fid
        """True: the submission check on the faction's redacted view; False: the GM's turn, on the truth."""
        self.void: set[str] = set()
        self.voided: list[tuple[Order, str, str]] = []

    def bad(self, o: Order | None, message: str, rule: str) -> None:
        """The order cannot stand: refuse the submission (own view) or void the order (truth)."""
        if self.own_view or o is None:
            raise self.ctx.fail(message if o is None else f"order {o.id}: {message}", rule)
        if o.id not in self.void:
            self.void.add(o.id)
            self.voided.append((o, message, rule))

    def settle(self, o: Order, message: str, rule: str) -> None:
        """Only the truth can tell (a rival's court): nothing on the faction's own view; void on the truth."""
        if not self.own_view:
            self.bad(o, message, rule)


def validate_orders(ctx: Ctx, fid: str, orders: list[Order], dilemmas: dict[str, str],
                    candidates: dict[str, str] | None = None) -> tuple[list[Order], dict[str, str]]:
    """The orders that stand, in order, and the dilemma choices that stand (see ``decide_orders``).

    A dilemma answered with an option and a candidate marked ``hire`` get their order (one ordinary slot,
    else a special one) after the written orders when the orders do not already hold one (§4.1 A7, A9).
    """
    s = ctx.state
    me = s.factions[fid]
    if me.kind != "player" or me.status != "active":
        raise ctx.fail(f"{fid} is not an active player faction", "§1.2")
    cr = s.command.get(fid)
    if cr is None or not cr.attempts:
        raise ctx.fail(f"{fid} has not made its command roll this turn", "§3.1")
    chk = _Sealing(ctx, fid)
    orders = list(orders)
    known_dilemmas = {d.id: d for d in s.dilemmas.get(fid, ())}
    offered = {x.id: x for x in s.candidates.get(fid, ())}
    standing_dilemmas: dict[str, str] = {}
    for did, choice in dilemmas.items():
        d = known_dilemmas.get(did)
        if d is None:
            chk.bad(None, f"no dilemma {did!r} was dealt to {fname(s, fid)} this month", "§4.1 A7")
            continue
        if choice != "abstain" and choice not in {x.id for x in d.options}:
            raise ctx.fail(f"{choice!r} is not an option of dilemma {did} ({', '.join(x.id for x in d.options)} or "
                           "abstain)", "§4.1 A7")
        standing_dilemmas[did] = choice
    extra: list[Order] = []
    for did, choice in standing_dilemmas.items():
        if choice != "abstain" and not any(o.action == "dilemma" and o.target == did for o in orders):
            extra.append(Order(id=f"dilemma-{did}", action="dilemma", target=did, stake="elementary",
                               slots=("ordinary",), params={"option": choice}))
    for cid, choice in (candidates or {}).items():
        if cid not in offered:
            chk.bad(None, f"{cid!r} was not offered to {fname(s, fid)} this month", "§4.6")
            continue
        if choice == "hire" and not any(o.action == "hire_statesman" and o.target == cid for o in orders):
            extra.append(Order(id=f"hire-{cid}", action="hire_statesman", target=cid, stake="elementary",
                               slots=("ordinary",)))
    _check_each(ctx, chk, fid, orders, standing_dilemmas)
    # slots (§3.1, §3.2): the written orders take theirs first; an order beyond them is void (truth)
    special_left, ordinary_left = cr.special, cr.ordinary
    for o in orders:
        if o.id in chk.void or o.action in FREE_ACTIONS:
            continue
        sp = sum(1 for x in o.slots if x == "special")
        od = sum(1 for x in o.slots if x == "ordinary")
        if sp > special_left or od > ordinary_left + (special_left - sp):
            used_sp = cr.special - special_left + sp
            used = used_sp + (cr.ordinary - ordinary_left) + od
            if sp > special_left:
                chk.bad(o, f"{used_sp} special slots used but {fname(s, fid)} has {cr.special} special this month",
                        "§3.1")
            else:
                chk.bad(o, f"{used} action slots used but {fname(s, fid)} has {cr.special} special + {cr.ordinary} "
                        "ordinary this month", "§3.1")
            continue
        special_left -= sp
        take = min(od, ordinary_left)
        ordinary_left -= take
        special_left -= od - take  # a special slot may be spent as an ordinary one
    for o in extra:
        if ordinary_left > 0:
            ordinary_left -= 1
        elif special_left > 0:
            special_left -= 1
            o = o.model_copy(update={"slots": ("special",)})
        else:
            d = next((d for d in s.dilemmas.get(fid, ()) if d.id == o.target), None)
            what = (f"resolving the dilemma “{d.text.rstrip('.')}”" if d is not None and d.text else
                    "resolving the dilemma of the month") if o.action == "dilemma" else \
                f"hiring {next((c.name for c in s.candidates.get(fid, ()) if c.id == o.target), o.target)}"
            chk.bad(o, f"{what} costs one action slot and none is left: free a slot"
                    + (" or abstain" if o.action == "dilemma" else ""), "§4.1 A7" if o.action == "dilemma" else "§4.6")
            continue
        orders.append(o)
    used = sum(len(o.slots) for o in orders if o.id not in chk.void and o.action not in FREE_ACTIONS)
    if used > int(cfg(ctx).get("max_slots_per_turn", 7)):
        ctx.emit(ev.UpkeepFlagged(faction=fid, kind="slots_over_max", detail=f"{used} slots used"), visibility="gm")
    # costs (§4.8): a voluntary cost that cannot be paid makes the order invalid; paid in the order written
    wealth = me.wealth or 0
    costs: list[Term] = []
    spent = 0
    for o in orders:
        if o.id in chk.void:
            continue
        cost = _wealth_cost(ctx, fid, o)
        if not cost:
            continue
        if spent + cost > wealth:
            chk.bad(o, f"costs {cost} wealth but {fname(s, fid)} has {wealth - spent} left after its earlier orders "
                    f"({wealth} in all)", "§4.8 voluntary costs")
            continue
        spent += cost
        costs.append(Term(f"{o.id} ({o.action})", cost, source="§4.8"))
    by_id = {o.id: o for o in orders if o.id not in chk.void}
    for o in orders:
        if o.action == "support" and o.id not in chk.void:
            tgt = by_id.get(str(o.params.get("order")))
            if tgt is None or tgt.action in (*FREE_ACTIONS, "support", "war") or tgt.stake == "elementary":
                chk.bad(o, "support names a rolled action of this turn's orders", "§4.1 A5c")
    ctx.explain(Breakdown(f"{fid} slots used", used, (Term("special", cr.special - special_left),
                                                       Term("ordinary", cr.ordinary - ordinary_left)),
                          note=f"this month {fid} has {cr.special} special + {cr.ordinary} ordinary (§3.1, §3.2)"),
                Breakdown(f"{fid} wealth spent by orders", spent, tuple(costs),
                          note=f"{fid} has {wealth} wealth (§4.8)"))
    for o, message, rule in chk.voided:
        void(ctx, fid, o, message, rule)
    kept = [o for o in orders if o.id not in chk.void]
    choices_kept = {d: ch for d, ch in standing_dilemmas.items()
                    if ch == "abstain" or any(o.action == "dilemma" and o.target == d for o in kept)}
    return kept, choices_kept


def _check_each(ctx: Ctx, chk: _Sealing, fid: str, orders: list[Order], dilemmas: Mapping[str, str]) -> None:
    """Each order on its own: its slots' kind, its leader, its target, stake and parameters."""
    s = ctx.state
    spy_used: dict[str, int] = {}
    busy: dict[str, str] = {}
    my_spies = own_spies(s, fid)
    one_activity = bool(cfg(ctx).get("character_one_activity_per_turn", True))
    for o in orders:
        if o.action not in ACTIONS:
            raise ctx.fail(f"order {o.id}: unknown action {o.action!r}", "§4.1")
        slots = () if o.action in FREE_ACTIONS else o.slots
        if not slots and o.action not in FREE_ACTIONS:
            chk.bad(o, f"{_said(o.action)} needs at least one slot", "§4.1")
            continue
        for sl in slots:
            if sl in ("special", "ordinary"):
                continue
            if not sl.startswith("spy:"):
                raise InputError(f"[{ctx.step}] order {o.id}: slot {sl!r} is not special, ordinary or spy:<agent>")
            agent = sl[4:]
            if agent not in my_spies:
                chk.bad(o, f"{agent!r} is not a spy of {fname(s, fid)}", "§6.2")
                break
            spy_used[agent] = spy_used.get(agent, 0) + 1
            if spy_used[agent] > 1:
                chk.bad(o, f"spy {_cname(s, agent)} gives one action per turn", "§3.2")
                break
            if o.action not in SPY_ACTIONS:
                chk.bad(o, "a spy slot is for intelligence, bribery, assassination or intrigue only", "§3.2, §4.1")
                break
            host = my_spies[agent]
            tgt_char = s.characters.get(o.target or "")
            if tgt_char is None and o.target not in s.factions:
                chk.settle(o, f"a spy slot acts only in the spy's host state, {fname(s, host)}", "§6.2")
            elif (tgt_char.employer if tgt_char is not None else o.target) != host:
                chk.bad(o, f"a spy slot acts only in the spy's host state, {fname(s, host)}", "§6.2")
        if o.id in chk.void:
            continue
        if o.stake == "elementary" and o.action == "bribery":
            chk.bad(o, "bribery needs a roll (low or high stake)", "§6.3")
            continue
        spy_lead = any(sl == f"spy:{o.leader}" for sl in slots)
        if o.leader and not spy_lead:
            c = s.characters.get(o.leader)
            if c is None or c.employer != fid or c.condition != "active":
                chk.bad(o, f"{o.leader!r} is not an available character of {fname(s, fid)}", "§3.7")
                continue
            if c.role == "leader" and not cfg(ctx).get("leader_leads_actions", True):
                chk.bad(o, "the leader may not lead actions in this game", "§3.4")
                continue
            if o.leader in busy and one_activity:
                chk.bad(o, f"{_cname(s, o.leader)} already leads order {busy[o.leader]} this turn", "§3.7")
                continue
            busy[o.leader] = o.id
        sent = sum(int(x.params.get("units", 0)) for x in orders[: orders.index(o)]
                   if x.action == "war" and x.id not in chk.void)
        _validate_target(ctx, chk, fid, o, sent, dilemmas)
        if o.action == "war" and o.id not in chk.void:
            for cid in o.params.get("characters", []):
                if cid in busy and one_activity:
                    chk.bad(o, f"{_cname(s, cid)} already has an activity this turn", "§3.7")
                    break
                busy[cid] = o.id


def _wealth_cost(ctx: Ctx, fid: str, o: Order) -> int:
    """The wealth an order spends (§4.1 A5, §4.6, §6.3, §7.7)."""
    p = o.params
    if o.action == "hire_troops":
        return int(p.get("units", 0))
    if o.action == "donation":
        return int(cfg(ctx).get("donation_wealth_per_piety", 2)) * int(p.get("piety", 1))
    if o.action in ("bribery", "felmonte_offer", "support"):
        return int(p.get("wealth", 0))
    if o.action == "hire_statesman":
        c = next((c for c in ctx.state.candidates.get(fid, ()) if c.id == o.target), None)
        return c.cost if c else int(cfg(ctx).get("statesman_hire_cost", 1))
    return 0


def _validate_target(ctx: Ctx, chk: _Sealing, fid: str, o: Order, sent: int, dilemmas: Mapping[str, str]) -> None:
    """Targets, stakes and prerequisites of one order; ``sent`` = units of earlier war orders this turn.

    On the faction's own view a rival character it names is unknown unless it is in the view: that part
    is settled at the resolution (``chk.settle``), where the void notice says only that the target could
    not be reached.
    """
    s = ctx.state
    a = o.action
    bad = chk.bad
    if a in NEUTRAL_GOALS:
        n = o.target
        if n not in s.factions or s.factions[n].kind != "neutral":
            return bad(o, f"{_said(a)} needs a neutral as target, got {n!r}", "§7.1")
        if s.factions[n].captured_by:
            return bad(o, f"{fname(s, n)} has been captured", "§7.6")
        if o.stake == "elementary":
            return bad(o, "diplomacy with a neutral is rolled (low or high stake)", "§7.2")
        need = MIN_STAKE.get(a)
        if need and STAKE_RANK[o.stake] < STAKE_RANK[need]:
            return bad(o, f"{_said(a)} needs at least the {need} stake", "§7.2")
        if a in ("military_alliance", "legitimacy"):
            count = sum(1 for t in s.active_treaties(fid, n) if t.type in COUNTED_TREATIES)
            if count < 2:
                return bad(o, f"{_said(a)} with {fname(s, n)} needs at least 2 treaties with it; {fname(s, fid)} has "
                           f"{count}", "§7.2 needs at least 2 treaties")
        if a == "legitimacy" and s.factions[n].legitimacy_letter_to:
            return bad(o, f"{fname(s, n)} has already sent its one letter", "§7.2")
        if a == "turn_against" and o.params.get("against") not in s.factions:
            return bad(o, "turn-against names no faction (params.against)", "§7.2")
        return None
    if a in ("scouts", "intrigue_foreign", "spy"):
        if o.target not in s.factions or o.target == fid:
            return bad(o, f"{_said(a)} targets another faction, got {o.target!r}", "§4.1")
        if a == "spy":
            agent = s.characters.get(str(o.params.get("agent")))
            if agent is None or agent.employer != fid or agent.role != "statesman" or agent.condition != "active":
                return bad(o, f"the agent must be one of {fname(s, fid)}'s active statesmen", "§6.2")
        return None
    if a in ("bribery", "assassination"):
        if not o.target:
            return bad(o, f"{_said(a)} names its target (a rival's character)", "§6.3, §6.5")
        c = s.characters.get(o.target)
        if c is not None and c.employer == fid:
            return bad(o, f"{_said(a)} targets a rival's character, not one of {fname(s, fid)}'s own", "§6.3, §6.5")
        if a == "bribery":
            _bribe_params(chk, o)
            if o.id in chk.void:
                return None
        if c is None or c.condition in ("dead", "departed") or c.employer not in s.factions:
            # on the faction's own view a rival's court is unknown: the resolution settles it
            return chk.settle(o, f"its target {o.target!r} could not be found in a rival's service", "§6.3, §6.5")
        if a == "assassination" and c.role == "leader" and s.factions[c.employer].kind == "player" \
                and o.stake == "low":
            return bad(o, "a low-stake attempt on a leader is not allowed", "§6.5")
        return None
    if a == "felmonte_offer":
        if "felmonte" not in s.factions or s.factions["felmonte"].captured_by:
            return bad(o, "Felmonte is not for sale", "§7.7")
        if int(o.params.get("wealth", 0)) < 1:
            return bad(o, "an offer is at least 1 wealth", "§7.7")
        return None
    if a == "war":
        tgt = s.provinces.get(o.target or "")
        if tgt is None or tgt.owner == fid:
            return bad(o, f"war needs an enemy province as target, got {o.target!r}", "§5.1")
        units = int(o.params.get("units", 0))
        home = home_force(s, fid) - sent
        if units < 1 or units > home:
            return bad(o, f"{units} units sent but the home force is {home}", "§5.1")
        if int(o.params.get("reserve", 0)) > units // 3:
            return bad(o, "the reserve may be at most a third of the units", "§5.4")
        if int(o.params.get("reserve", 0)) and o.params.get("tactic") not in ("ambush", "counterattack"):
            return bad(o, "only Ambush or Counterattack hold a reserve", "§5.4")
        for cid in o.params.get("characters", []):
            c = s.characters.get(cid)
            if c is None or c.employer != fid or c.condition != "active":
                return bad(o, f"{cid!r} is not an available character of {fname(s, fid)}", "§3.7")
        return None
    if a == "storm":
        if not any(c.faction == fid and c.target == o.target and c.status in ("occupying", "besieging")
                   for c in s.campaigns.values()):
            return bad(o, f"{fname(s, fid)} has no army besieging {o.target!r} to storm", "§5.11")
        return None
    if a == "sally":
        p = s.provinces.get(o.target or "")
        if p is None or p.owner != fid or p.siege_since is None:
            return bad(o, f"{o.target!r} is not a besieged province of {fname(s, fid)}", "§5.11")
        if int(o.params.get("reserve", 0)) > home_force(s, fid) // 3:
            return bad(o, "the reserve may be at most a third of the garrison", "§5.4")
        return None
    if a == "hire_statesman":
        if not any(c.id == o.target for c in s.candidates.get(fid, ())):
            return bad(o, f"{o.target!r} was not offered to {fname(s, fid)} this turn", "§4.6")
        return None
    if a == "designate_heir":
        if not s.factions[fid].may_name_heir:
            return bad(o, f"{fname(s, fid)} cannot designate an heir", "§8.2 Voice of the people")
        c = s.characters.get(o.target or "")
        if c is None or c.employer != fid or c.role != "statesman":
            return bad(o, f"the heir must be one of {fname(s, fid)}'s statesmen", "§6.6")
        return None
    if a == "player_treaty":
        if o.target not in s.factions or s.factions[o.target].kind != "player" or o.target == fid:
            return bad(o, "a player treaty names another player faction", "§4.1 A4")
        if not str(o.params.get("terms") or "").strip():
            return bad(o, "a player treaty states its terms (params.terms, the same words on both sides)", "§4.1 A4")
        return None
    if a == "support":
        if int(o.params.get("wealth", 0)) < 1:
            return bad(o, "support invests at least 1 wealth", "§4.1 A5c")
        return None  # the supported order is checked against this submission in validate_orders
    if a == "dismiss":
        c = s.characters.get(o.target or "")
        if c is None or c.employer != fid or c.role != "statesman" or c.condition == "dead":
            return bad(o, "a faction dismisses only its own statesmen", "§4.3 phase 5")
        return None
    if a == "dilemma":
        d = next((d for d in s.dilemmas.get(fid, ()) if d.id == o.target), None)
        if d is None:
            return bad(o, f"no dilemma {o.target!r} was dealt to {fname(s, fid)} this month", "§4.1 A7")
        opt = o.params.get("option") or dilemmas.get(d.id)
        if opt not in {x.id for x in d.options}:
            return bad(o, f"{opt!r} is not an option of dilemma {d.id} "
                       f"({', '.join(x.id for x in d.options)})", "§4.1 A7")
        return None
    if a == "hire_troops" and int(o.params.get("units", 0)) < 1:
        return bad(o, "hire at least 1 unit", "§4.1 A5a")
    if a == "donation" and int(o.params.get("piety", 1)) < 1:
        return bad(o, "a donation buys at least 1 piety", "§4.1 A5b")
    return None


def _bribe_params(chk: _Sealing, o: Order) -> None:
    if o.action != "bribery":
        return
    if int(o.params.get("wealth", 0)) < 1:
        chk.bad(o, "a bribe invests at least 1 wealth", "§6.3")
        return
    mode = o.params.get("on_success", "spy")
    if mode not in ("spy", "defect") or (mode == "defect" and o.stake != "high"):
        chk.bad(o, "a low-stake bribe can only make a spy", "§6.3")


# ---------------------------------------------------------------------------------------------- phase 1: internal

def decide_p1(ctx: Ctx, c: RulingsChoices) -> None:
    """§4.3 phase 1: orders locked, then dilemmas -> liberties -> own intrigue -> donations."""
    missing = tuple(f for f in ctx.state.players() if f not in ctx.state.orders)
    ctx.emit(ev.OrdersLocked(turn=ctx.state.turn, missing=missing), visibility="public")
    for fid, o in orders_for(ctx, "dilemma"):
        d = next(d for d in ctx.state.dilemmas.get(fid, ()) if d.id == o.target)
        opt_id = o.params.get("option") or ctx.state.orders[fid].dilemmas.get(d.id)
        opt = next(x for x in d.options if x.id == opt_id)
        record(ctx, fid, o, "resolved", target=d.id, detail={"option": opt.id})
        # the GM's ruling applies the chosen option's effects (G-29; §11.5 event 14)
        said = f"“{d.text}”" if d.text else "of the month"
        ctx.emit(ev.GMRulingRecorded(gap="G-29", text=f"to the dilemma {said} the answer was: {opt.text or opt.id}",
                                     effects=opt.effects),
                 visibility=vis(ctx.state, fid))
    for fid, o in orders_for(ctx, "liberties"):
        if o.stake == "elementary":
            record(ctx, fid, o, "elementary")
            adjust(ctx, fid, "power", -1, "liberties")
            adjust(ctx, fid, "piety", 1, "liberties")
            continue
        ok, rolls, r, _ = act(ctx, fid, o, STAKE_THRESHOLD[o.stake])
        record(ctx, fid, o, "success" if ok else "failure", threshold=STAKE_THRESHOLD[o.stake], r=r, rolls=rolls)
        adjust(ctx, fid, "power", -1, "liberties")
        adjust(ctx, fid, "piety", (2 if o.stake == "low" else 3) if ok else 1, "liberties")
    for fid, o in orders_for(ctx, "intrigue_self"):
        won = staked(ctx, fid, o)
        if won is None:
            continue
        if won:
            adjust(ctx, fid, "power", 1 if o.stake == "low" else 2, "intrigue")
            adjust(ctx, fid, "piety", -int(cfg(ctx).get("intrigue_success_piety_cost", 0)), "intrigue")
        else:
            adjust(ctx, fid, "piety", -1, "failed intrigue")
    for fid, o in orders_for(ctx, "support"):
        w = int(o.params.get("wealth", 0))
        record(ctx, fid, o, "elementary", target=str(o.params.get("order")), detail={"wealth": w})
        adjust(ctx, fid, "wealth", -w, f"support of {o.params.get('order')}")
    for fid, o in orders_for(ctx, "donation"):
        n = int(o.params.get("piety", 1))
        record(ctx, fid, o, "elementary", detail={"piety": n})
        adjust(ctx, fid, "wealth", -int(cfg(ctx).get("donation_wealth_per_piety", 2)) * n, "donation")
        adjust(ctx, fid, "piety", n, "donation")
    rulings(ctx, c.rulings)


# ---------------------------------------------------------------------------------------------- phase 2: espionage

def decide_p2(ctx: Ctx, c: EspionageChoices) -> None:
    """§4.3 phase 2: scouts -> spy infiltration -> bribery and offers -> assassination -> external intrigue."""
    run = dict(c.double_agent_orders)
    doubles = dict(c.double_agents)
    for fid, o in orders_for(ctx, "scouts", run):
        tgt = str(o.target)
        won = staked(ctx, fid, o, target=tgt)
        if won is None:
            continue
        if won:
            f = ctx.state.factions[tgt]
            if o.stake == "low":
                field = str(o.params.get("field", "army"))
                if field not in RESOURCES:
                    raise ctx.fail(f"order {o.id}: scouts at low stake learn one of {RESOURCES}", "§6.1")
                fields: dict[str, Any] = {field: getattr(f, field)}
            else:
                fields = {k: getattr(f, k) for k in RESOURCES}
                roster = []
                for cid in ([f.leader] if f.leader else []) + list(f.statesmen):
                    ch = ctx.state.characters[cid]
                    roster.append({"id": ch.id, "name": ch.name, "role": ch.role, "traits": list(ch.traits)})
                fields["roster"] = roster
            ctx.emit(ev.IntelRecorded(observer=fid, subject=tgt, fields=fields, turn=ctx.state.turn, phase=ctx.step,
                                      source="scouts"), visibility=vis(ctx.state, fid))
            if cfg(ctx).get("scouting_notifies_target"):
                ctx.emit(ev.FactionNotified(faction=tgt, kind="scouted", text="foreign scouts were seen"),
                         visibility=vis(ctx.state, tgt))
    for fid, o in orders_for(ctx, "spy", run):
        agent = str(o.params["agent"])
        ok, rolls, r, _ = act(ctx, fid, o, STAKE_THRESHOLD["low"])
        record(ctx, fid, o, "success" if ok else "failure", threshold=5, r=r, rolls=rolls, target=o.target,
               detail={"agent": agent})
        if ok:
            ctx.emit(ev.SpyPlanted(agent=agent, master=fid, host=str(o.target)), visibility=vis(ctx.state, fid))
    for fid, o in orders_for(ctx, "bribery", run):
        _bribery(ctx, fid, o, doubles)
    offers = orders_for(ctx, "felmonte_offer", run)
    for fid, o in offers:
        record(ctx, fid, o, "offered", target="felmonte", detail={"amount": int(o.params["wealth"])})
    if offers:
        best = max(int(o.params["wealth"]) for _, o in offers)
        top = [fid for fid, o in offers if int(o.params["wealth"]) == best]
        ctx.explain(Breakdown("best offer for Felmonte", best, tuple(Term(fid, int(o.params["wealth"]))
                                                                   for fid, o in offers),
                              note=f"Luigi sells for {int(cfg(ctx).get('luigi_min_price', 3))}+ to a single best "
                                   "offer (§7.7)"))
        if best >= int(cfg(ctx).get("luigi_min_price", 3)) and len(top) == 1:
            ctx.emit(ev.FelmonteSold(winner=top[0], amount=best), visibility=vis(ctx.state, top[0]))
            ctx.emit(ev.ProvinceStatusChanged(province="felmonte", change="captured", by=top[0], owner=top[0]),
                     visibility="public")
    for fid, o in orders_for(ctx, "assassination", run):
        _assassination(ctx, fid, o, c.successor_traits)
    for fid, o in orders_for(ctx, "intrigue_foreign", run):
        tgt = str(o.target)
        won = staked(ctx, fid, o, target=tgt)
        if won is None:
            continue
        if won:
            reason = f"intrigue by {fname(ctx.state, fid)}" if cfg(ctx).get("reveal_intrigue_author") \
                else "foreign intrigue"
            adjust(ctx, tgt, "power", -(1 if o.stake == "low" else 2), reason, visible_to=vis(ctx.state, tgt))
        else:
            adjust(ctx, fid, "piety", -1, "failed intrigue")
    rulings(ctx, c.rulings)


def _bribery(ctx: Ctx, fid: str, o: Order, doubles: Mapping[str, bool]) -> None:
    """§6.3: total = 2d6 + W - L against T; success / light failure / full failure; §6.4 double agents."""
    tgt = ctx.state.characters[str(o.target)]
    owner = tgt.employer
    w = int(o.params["wealth"])
    loyalty = tgt.loyalty if tgt.loyalty is not None else int(cfg(ctx).get("statesman_loyalty_default", 2))
    t = STAKE_THRESHOLD[o.stake]
    mod = w - loyalty
    label = order_check_label(ctx.state, fid, o)
    ctx.explain(Breakdown(f"{label}: the modifier", mod, (Term("wealth invested", w, source="§6.3"),
                                                          Term(f"loyalty of {tgt.name}", -loyalty, source="§2.4"))))
    check = CheckSpec("2d6", modifier=mod, dc=t, label=label,
                      bands=((None, t - 4, "full_failure"), (t - 3, t - 1, "light_failure"), (t, None, "success")))
    _, rolls, r, total = act(ctx, fid, o, t, modifier=mod, check=check)
    band = bribery_band(total, t)
    mode = str(o.params.get("on_success", "spy"))
    # the briber sees its dice but not the band, which depends on a loyalty only the GM knows (§2.4, §11.4)
    ctx.emit(ev.ActionResolved(faction=fid, order=o.id, action="bribery", stake=o.stake, threshold=t,
                               rerolls_allowed=r, rolls=tuple(rolls), outcome="reported", target=tgt.id,
                               detail={"wealth": w, "on_success": mode}), visibility=vis(ctx.state, fid), actor=fid)
    ctx.emit(ev.GMRulingRecorded(gap="§6.3", text=f"the bribe of {tgt.name} by {fname(ctx.state, fid)}: "
                                                  f"{band.replace('_', ' ')}",
                                 effects=({"kind": "text", "band": band, "total": total, "modifier": mod},)),
             visibility="gm")
    if band == "success":
        adjust(ctx, fid, "wealth", -w, "bribe")
        if mode == "defect":
            ctx.emit(ev.StatesmanDefected(character=tgt.id, from_faction=owner, to_faction=fid, kind="bribe"),
                     visibility=vis(ctx.state, owner, fid))
        else:
            ctx.emit(ev.SpyPlaced(agent=tgt.id, master=fid, host=owner), visibility=vis(ctx.state, fid))
        ctx.emit(ev.FactionNotified(faction=fid, kind="bribe_result", text=f"the bribe of {tgt.name} succeeded",
                                    data={"outcome": "success", "character": tgt.id, "host": owner,
                                          "mode": "none"}), visibility=vis(ctx.state, fid))
        return
    if band == "full_failure":
        adjust(ctx, fid, "wealth", -w, "bribe taken and lost")
    key = f"{fid}.{o.id}"
    briber = fname(ctx.state, fid)
    ctx.emit(ev.FactionNotified(faction=owner, kind="bribe_attempt", text=f"{briber} tried to bribe {tgt.name}",
                                data={"briber": fid, "character": tgt.id, "order": key}),
             visibility=vis(ctx.state, owner))
    if ctx.state.factions[owner].kind == "player" and key not in doubles:
        ctx.ask(Question(
            id=f"double_agent:{key}", to=owner, kind="double_agent", step="p2_espionage",
            path=("double_agents", key), default=False, group=f"p2.{key}",
            prompt=f"{briber} tried to bribe {tgt.name}. Make him a double agent? {briber} will then believe "
                   "the bribe worked (§6.4).",
            options=(Answer(True, "yes: a double agent"), Answer(False, "no: tell them the bribe failed"))))
    if ctx.state.factions[owner].kind == "player" and bool(doubles.get(key)):
        da_mode = "believed_spy" if mode == "spy" else "planted_defector"
        ctx.emit(ev.DoubleAgentChosen(character=tgt.id, owner=owner, briber=fid, mode=da_mode),
                 visibility=vis(ctx.state, owner))
        if band == "light_failure":
            adjust(ctx, fid, "wealth", -w, "bribe")
        ctx.emit(ev.FactionNotified(faction=fid, kind="bribe_result", text=f"the bribe of {tgt.name} succeeded",
                                    data={"outcome": "success", "character": tgt.id, "host": owner,
                                          "mode": "spy" if da_mode == "believed_spy" else "none"}),
                 visibility=vis(ctx.state, fid))
        if da_mode == "planted_defector":
            ctx.emit(ev.StatesmanDefected(character=tgt.id, from_faction=owner, to_faction=fid, kind="bribe"),
                     visibility=vis(ctx.state, fid))
            ctx.emit(ev.SpyPlaced(agent=tgt.id, master=owner, host=fid), visibility=vis(ctx.state, owner))
        return
    ctx.emit(ev.FactionNotified(faction=fid, kind="bribe_result", text=f"the bribe of {tgt.name} failed",
                                data={"outcome": band, "character": tgt.id}), visibility=vis(ctx.state, fid))


def _assassination(ctx: Ctx, fid: str, o: Order, successor_traits: Mapping[str, str]) -> None:
    """§6.5: statesman low wound / high kill; leader high wound, leader-kill 10+; failure tells the target."""
    tgt = ctx.state.characters[str(o.target)]
    owner = tgt.employer
    if tgt.condition != "active" and tgt.condition != "wounded":
        record(ctx, fid, o, "no_target", target=tgt.id)
        return
    if o.stake == "elementary":
        record(ctx, fid, o, "elementary", target=tgt.id)
        return
    is_player_leader = tgt.role == "leader" and ctx.state.factions[owner].kind == "player"
    kill_leader = is_player_leader and bool(o.params.get("kill_leader"))
    t = LEADER_KILL_THRESHOLD if kill_leader else STAKE_THRESHOLD[o.stake]
    ok, rolls, r, _ = act(ctx, fid, o, t)
    if not ok:
        record(ctx, fid, o, "failure", threshold=t, r=r, rolls=rolls, target=tgt.id)
        sender = {"sender": fid} if cfg(ctx).get("assassination_reveal_sender") else {}
        ctx.emit(ev.FactionNotified(faction=owner, kind="assassination_attempt",
                                    text=f"an attempt was made on {tgt.name}'s life",
                                    data={"character": tgt.id, **sender}), visibility=vis(ctx.state, owner))
        return
    kill = kill_leader or (not is_player_leader and o.stake == "high")
    record(ctx, fid, o, "killed" if kill else "wounded", threshold=t, r=r, rolls=rolls, target=tgt.id)
    ctx.emit(ev.CharacterStatusChanged(character=tgt.id, condition="dead" if kill else "wounded",
                                       cause=f"assassination by {fname(ctx.state, fid)}"),
             visibility="public" if kill and tgt.role == "leader" else vis(ctx.state, owner, fid))
    if kill and tgt.role == "leader":
        succession(ctx, owner, successor_traits)


def succession(ctx: Ctx, fid: str, picks: Mapping[str, str]) -> None:
    """§6.6: heir succeeds (keeps his trait, second chosen or rolled); else 2 random traits; Fabian regrants."""
    s = ctx.state
    f = s.factions[fid]
    heir = next((c for c in s.statesmen_of(fid) if c.is_heir and c.condition != "dead"), None)
    if heir is not None:
        first = heir.traits[0]
        second = picks.get(fid)
        faces: tuple[int, ...] = ()
        if second is None and f.kind == "player":
            ctx.ask(Question(
                id=f"heir_trait:{fid}", to=fid, kind="heir_trait", step=ctx.step, path=("successor_traits", fid),
                default=None, group=f"{ctx.step}.succession.{fid}",
                prompt=f"Your leader is dead; {heir.name} ({first}) succeeds. Choose his second trait (§6.6); "
                       "unanswered, it is rolled.",
                options=tuple(Answer(t.name, t.label, t.parameter or "") for t in traits().values()
                              if t.name not in (first, "liar"))))
        if second is None or second == first or second not in traits():
            second, faces = random_trait(ctx, f"succession.{fid}.{heir.id}", exclude=(first,))
        ctx.emit(ev.LeaderSucceeded(faction=fid, character=heir.id, name=heir.name, traits=(first, str(second)),
                                    trait_dice=faces, from_statesman=True), visibility="public")
    elif f.kind == "neutral":
        # §7.5 default: the GM appoints a new neutral leader with one random trait
        a, fa = random_trait(ctx, f"succession.{fid}.a")
        ctx.emit(ev.LeaderSucceeded(faction=fid, character=f"{fid}.leader{ctx.state.turn}",
                                    name=f"new leader of {f.name}", traits=(a,), trait_dice=fa), visibility="public")
    else:
        a, fa = random_trait(ctx, f"succession.{fid}.a")
        b, fb = random_trait(ctx, f"succession.{fid}.b", exclude=(a,))
        cid = f"{fid}.leader{ctx.state.turn}"
        ctx.emit(ev.LeaderSucceeded(faction=fid, character=cid, name=f"new leader of {f.name}", traits=(a, b),
                                    trait_dice=fa + fb), visibility="public")
        if "voice_of_the_people" in f.traits:
            ctx.emit(ev.UpkeepFlagged(faction=fid, kind="elections", detail="the doge died: elections"),
                     visibility="gm")
    if "absolute_power" in f.traits:
        t, tfaces = random_trait(ctx, f"succession.{fid}.newheir")
        cid = f"{fid}.heir{ctx.state.turn}"
        ctx.emit(ev.CharacterCreated(character=cid, faction=fid, name=f"heir of {f.name} ({ctx.state.turn})",
                                     role="statesman", traits=(t,), trait_source="random", trait_dice=tfaces,
                                     is_heir=True), visibility=vis(ctx.state, fid))


# ---------------------------------------------------------------------------------------------- phase 3: war

WarInput = tuple[dict[str, Any], dict[str, Any], set[str]]
"""(responses by campaign, declarations by campaign or battle, the keys used so far)."""


def _fighters(ctx: Ctx, ids: list[str] | tuple[str, ...], fid: str) -> tuple[Fighter, ...]:
    out = []
    for cid in ids:
        c = ctx.state.characters.get(cid)
        if c is None or c.condition != "active" or c.employer != fid:
            continue  # the wounded, the dead and those who changed sides do not fight for fid
        general = "general" in c.traits or (c.role == "leader" and bool(cfg(ctx).get("leader_always_general")))
        spy_of = c.true_master if c.agent_kind in ("spy", "double_agent") and c.true_master != fid else None
        believed = tuple(b for b, agents in ctx.state.believed_spies.items() if cid in agents)
        out.append(Fighter(cid, c.role == "leader", general, spy_of, believed))
    return tuple(out)


def _commander(chars: tuple[Fighter, ...], named: str | None) -> str | None:
    for f in chars:
        if f.leader:
            return f.id
    if named and any(f.id == named for f in chars):
        return named
    return chars[0].id if chars else None


def decide_p3(ctx: Ctx, c: WarChoices) -> None:
    """§5: campaigns launch and arrive, defenders respond, battles are fought round by round, sieges, storms."""
    war: WarInput = (
        {k: v.model_dump(exclude_unset=True, exclude_none=True) for k, v in c.responses.items()},
        {k: {rk: [d.model_dump(exclude_unset=True) for d in ds] for rk, ds in rounds.items()}
         for k, rounds in c.declarations.items()},
        set(),
    )
    responses, declarations, used = war
    # surrender or sally of a starving garrison (§5.11)
    for fid, o in orders_for(ctx, ("storm", "sally")):
        s = ctx.state
        camp = next((cp for cp in s.campaigns.values()
                     if (o.action == "storm" and cp.faction == fid and cp.target == o.target) or
                     (o.action == "sally" and s.provinces[cp.target].owner == fid and cp.target == o.target)), None)
        if camp is None:
            raise ctx.fail(f"order {o.id}: no siege at {o.target} to {o.action}", "§5.11")
        if o.action == "storm":
            defender = s.provinces[camp.target].owner
            _battle(ctx, camp.id, "storm", fid, defender, war)
        else:
            _battle(ctx, camp.id, "sally", fid, camp.faction, war, sally_order=o)
    for pid in list(ctx.state.starving):
        sp = ctx.state.provinces[pid]
        if sp.siege_since is not None and sp.occupier:
            ctx.emit(ev.ProvinceStatusChanged(province=pid, change="captured", by=sp.occupier, owner=sp.occupier),
                     visibility="public")
    for fid, o in orders_for(ctx, "war"):
        p = o.params
        tgt = ctx.state.provinces[str(o.target)]
        route = _route(ctx.state, fid, tgt.id)
        cid = f"{ctx.state.turn}.{fid}.{o.id}"
        chars = tuple(p.get("characters", []))
        ctx.emit(ev.CampaignLaunched(campaign=cid, faction=fid, order=o.id, target=tgt.id, units=int(p["units"]),
                                     characters=chars, commander=p.get("commander"), route=route,
                                     tactic=str(p.get("tactic", "hold")), conditional=p.get("if_defence"),
                                     reserve=int(p.get("reserve", 0))),
                 visibility=vis(ctx.state, fid), actor=fid)
        if route == "transit":
            ctx.emit(ev.UpkeepFlagged(faction=fid, kind="transit", detail=f"{fname(ctx.state, fid)}'s army marching "
                                                                     f"on {tgt.name} crosses a neutral's land"),
                     visibility="gm")
            continue
        _arrive(ctx, cid, war)
    for cp in list(ctx.state.campaigns.values()):
        if cp.status == "in_transit" and cp.id.split(".")[0] != str(ctx.state.turn):
            _arrive(ctx, cp.id, war)
    rulings(ctx, c.rulings)
    stray = sorted((set(responses) | set(declarations)) - used)
    if stray:
        raise InputError(f"[{ctx.step}] no campaign or battle {', '.join(stray)} this turn "
                         f"(known: {', '.join(sorted(used)) or 'none'})")


def _route(s: SignoriaState, fid: str, target: str) -> str:
    """direct if an own province borders the target; passage through a neutral granting it; else transit (§5.1)."""
    adj = set(adjacency())
    for xf, row in dict(s.config.get("extra_factions") or {}).items():  # G-6: the GM maps extra provinces
        for b in row.get("borders", []) if isinstance(row, dict) else []:
            adj.add(frozenset((str(row.get("province", xf)), str(b))))
    own = [p.id for p in s.provinces.values() if p.owner == fid]
    if any(frozenset((o, target)) in adj for o in own):
        return "direct"
    for n in s.neutrals():
        if not any(t.type == "right_of_passage" and t.neutral == n for t in s.active_treaties(fid)):
            continue
        land = [p.id for p in s.provinces.values() if p.owner == n]
        if any(frozenset((x, target)) in adj and any(frozenset((x, o)) in adj for o in own) for x in land):
            return "passage"
    return "transit"


def _arrive(ctx: Ctx, cid: str, war: WarInput) -> None:
    responses, _, used = war
    used.add(cid)
    s = ctx.state
    camp = s.campaigns[cid]
    tgt = s.provinces[camp.target]
    defender = tgt.owner
    ctx.emit(ev.CampaignArrived(campaign=cid, faction=camp.faction, province=tgt.id, route=camp.route),
             visibility="public")
    dfac = ctx.state.factions[defender]
    if dfac.kind == "neutral":
        _neutral_attacked(ctx, defender, camp.faction)
    # the GM's record of the defender's answer, else its standing instruction, else the defaults (G-34)
    s = ctx.state
    standing = s.orders[defender].standing.get("response") if defender in s.orders else None
    resp = dict(responses.get(cid) or standing or {})
    if not resp:
        if dfac.kind == "neutral" and "defends_on_principle" in dfac.keys:
            resp = {"response": "defence"}
        else:
            resp = {"response": cfg(ctx).get("default_defender_response", "battle"), "tactic": "hold",
                    "characters": "all"}
            if dfac.kind == "player":
                ctx.ask(_response_question(s, cid, defender, camp.faction, tgt.name, camp.route, resp))
    if resp.get("response") not in ("battle", "defence"):
        raise ctx.fail(f"defender response must be battle or defence, got {resp.get('response')!r}", "§5.2")
    chars = resp.get("characters") or []  # null in a response recorded before nulls were dropped: none
    if chars == "all":
        chars = [c for c in ([dfac.leader] if dfac.leader else []) + list(dfac.statesmen)
                 if s.characters[c].condition == "active"]
    for c in chars:
        ch = s.characters.get(c)
        if ch is None or ch.employer != defender or ch.condition != "active":
            raise ctx.fail(f"{c!r} cannot join {defender}'s defence (not an unwounded character at home)", "§3.7")
    ctx.emit(ev.DefenderResponded(campaign=cid, defender=defender, response=resp["response"],
                                  tactic=resp.get("tactic") if resp["response"] == "battle" else None,
                                  characters=tuple(chars), commander=resp.get("commander"),
                                  reserve=int(resp.get("reserve") or 0)), visibility=vis(s, defender, camp.faction),
             actor=defender if dfac.kind == "player" else "gm")
    if resp["response"] == "battle":
        _battle(ctx, cid, "field", camp.faction, defender, war, defence=resp)
    elif camp.conditional == "storm":
        _battle(ctx, cid, "storm", camp.faction, defender, war)
    else:
        ctx.emit(ev.ProvinceStatusChanged(province=tgt.id, change="siege_started", by=camp.faction, owner=defender,
                                          campaign=cid), visibility="public")


def _said(action: str) -> str:
    """An order's action as a person says it (``hire_troops`` → "hire troops", ``vocabulary.ACTION_NAMES``)."""
    return ACTION_NAMES.get(action, action.replace("_", " "))


def _cname(s: SignoriaState, cid: str) -> str:
    """A character by his name (his id only when the state knows nothing of him)."""
    c = s.characters.get(cid)
    return c.name if c is not None else cid


def _response_question(s: SignoriaState, cid: str, defender: str, attacker: str, where: str, route: str,
                       default: Mapping[str, Any]) -> Question:
    """§5.2 asked of the defender: a battle now (its tactic; Ambush or Counterattack hold back a third) or
    defence behind the walls. It knows whose army arrived where (public) and its own home force."""
    home = home_force(s, defender)
    k = home // 3
    opts = [Answer({"response": "battle", "tactic": t, "characters": "all"}, f"battle: {label}",
                   "every unwounded character at home joins") for t, label in
            (("hold", "hold position"), ("encirclement", "encirclement"), ("breakthrough", "breakthrough"))]
    if k:
        opts += [Answer({"response": "battle", "tactic": t, "characters": "all", "reserve": k},
                        f"battle: {t}, {k} of {home} units in reserve", "the reserve enters in round 2")
                 for t in ("ambush", "counterattack")]
    opts.append(Answer({"response": "defence"}, "defence: shut the gates",
                       "no battle now; the attacker storms or besieges, you lose 1 wealth a month (§5.11)"))
    return Question(id=f"response:{cid}", to=defender, kind="defender_response", step="p3_war",
                    path=("responses", cid), options=tuple(opts), default=dict(default), group=f"p3.{cid}",
                    prompt=f"{fname(s, attacker)}'s army has arrived at {where} {ROUTE_WORDS.get(route, route)}. "
                           "Fight a battle now or shut the "
                           f"gates? Your home force is {home} units (§5.2). Unanswered: a battle holding position "
                           "with every character at home (G-34).")


def _check_declared(ctx: Ctx, setup: BattleSetup, decl: Mapping[int, list[Any]], place: str) -> None:
    """Each declaration names a character who fights on its side in this battle, or (defecting) its side's spy in the
    enemy's army (§5.5, §5.7): else a refusal naming him and the battle in words, and who may be named."""
    s = ctx.state

    def name(cid: str) -> str:
        c = s.characters.get(cid)
        return c.name if c is not None else cid

    sides = {"attacker": (setup.attacker, setup.defender), "defender": (setup.defender, setup.attacker)}
    for r, ds in sorted(decl.items()):
        for d in ds:
            cid, side = d.get("character"), str(d.get("side"))
            if not cid or side not in sides:
                continue
            me, opp = sides[side]
            there = opp if d.get("defect") else me
            if any(f.id == cid for f in there.characters):
                continue
            fac = s.factions[me.faction].name if me.faction in s.factions else me.faction
            may = ", ".join(name(f.id) for f in me.characters) or "nobody"
            if d.get("defect"):
                raise ctx.fail(f"the battle of {place}, round {r}: {name(str(cid))} is not in the army {fac} fights, "
                               f"so cannot defect to it", "§5.7")
            raise ctx.fail(f"the battle of {place}, round {r}: {name(str(cid))} does not fight for {fac} (the "
                           f"{side}) there; its characters in this battle: {may}", "§5.5")


def _declaration_questions(ctx: Ctx, key: str, bid: str, where: str, setup: BattleSetup,
                           given: Mapping[int, list[Any]], rounds: tuple[dict[str, Any], ...]) -> None:
    """§5.8 step 1: each player side declares its characters' options round by round; a round no one of a
    side declared for is asked of that side (a later round after the earlier ones are answered)."""
    sides = (("attacker", setup.attacker, setup.defender), ("defender", setup.defender, setup.attacker))
    used: dict[str, set[str]] = {"attacker": set(), "defender": set()}
    for rec in rounds:
        r = int(rec["round"])
        for side_name, me, opp in sides:
            if ctx.state.factions[me.faction].kind != "player":
                continue
            if any(d.get("side") == side_name for d in given.get(r, ())):
                used[side_name].update(str(d.get("character")) for d in given.get(r, ())
                                       if d.get("side") == side_name)
                continue
            q = _declaration_question(ctx.state, key, where, r, side_name, me, opp, rounds, used[side_name])
            if len(q.options) > 1:  # a side with nobody to declare for has nothing to answer
                ctx.ask(q)


def _declaration_question(s: SignoriaState, key: str, where: str, r: int, side: str, me: SideSetup,
                          opp: SideSetup, rounds: tuple[dict[str, Any], ...], used: set[str]) -> Question:
    """The options one side may declare in round ``r``, with what both sides saw in the earlier rounds; its
    characters, the enemy and the place by their names (issue 29)."""
    opts: list[Answer] = [Answer([], "no option this round")]
    for f in me.characters:
        if f.id in used:
            continue
        who = f"{_cname(s, f.id)} ({'leader' if f.leader else 'statesman'})"
        for opt, label in (("join", "joins the battle: +3d6" if f.leader else "joins the battle: +2d6"),
                           ("hospital", "field hospital"), ("no_prisoners", "take no prisoners!"),
                           ("back_cowards", "back, cowards!")):
            body: dict[str, Any] = {"side": side, "character": f.id, "option": opt}
            if opt == "join":
                body["group"] = "main"
            opts.append(Answer([body], f"{who}: {label}"))
        if f.general:
            specials = [("fight_to_last", "fight to the last! (a third round)")]
            if r > 1:
                specials.append(("regroup", "regroup: last round's routed return"))
            specials += [("epic_duel", f"epic duel with {_cname(s, x.id)}") for x in opp.characters if x.leader]
            for opt, label in specials:
                body = {"side": side, "character": f.id, "option": opt}
                if opt == "epic_duel":
                    body["target"] = next(x.id for x in opp.characters if x.leader)
                opts.append(Answer([body], f"{who}: {label}"))
    if me.reserve:
        opts.append(Answer([{"side": side, "option": "reserve_first"}], "this round's losses fall on the reserve"))
    past = []
    for rec in rounds:
        if int(rec["round"]) >= r:
            break
        mine, theirs = rec["sides"][side], rec["sides"]["defender" if side == "attacker" else "attacker"]
        past.append(f"round {rec['round']}: you lost {mine['lost_killed']} killed and {mine['lost_routed']} routed "
                    f"({mine['engaged_after']} still fighting); the enemy lost {theirs['lost_killed']} killed and "
                    f"{theirs['lost_routed']} routed ({theirs['engaged_after']} still fighting)")
    head = (f"The battle at {province_name(s, where)}: your {me.units} units ({me.tactic or 'no tactic'}) against "
            f"{fname(s, opp.faction)}'s {opp.units} ({opp.tactic or 'no tactic'}). ")
    return Question(id=f"declare:{key}:{r}:{side}", to=me.faction, kind="battle_declaration", step="p3_war",
                    path=("declarations", key, str(r)), options=tuple(opts), default=[], group=f"p3.{key}.r{r}",
                    prompt=head + ("; ".join(past) + ". " if past else "")
                    + f"Round {r}: which of your characters use an option (§5.5-5.7)? Unanswered: none.")


def _neutral_attacked(ctx: Ctx, neutral: str, attacker: str) -> None:
    """§7.6: the attacked neutral allies at once with another player faction; Gusso aids against a brother attack."""
    s = ctx.state
    others = [f for f in s.players() if f != attacker]
    if not others:
        return
    others.sort(key=lambda f: -s.factions[f].standing.get(neutral, 0))
    called = others[0]
    for t in list(s.treaties.values()):
        if t.active and t.neutral == neutral and t.type == "military_alliance" and \
                bool(cfg(ctx).get("neutral_alliance_exclusive", True)) and attacker not in t.parties:
            ctx.emit(ev.TreatyEnded(treaty=t.id, reason="replaced"), visibility=vis(ctx.state, *t.parties))
    ctx.emit(ev.NeutralReaction(neutral=neutral, key="call_for_help", reaction="alliance", beneficiary=called),
             visibility=vis(ctx.state, called))
    ctx.emit(ev.TreatyConcluded(treaty=f"{neutral}.alliance.{ctx.state.turn}", kind="military_alliance",
                                parties=(called,), neutral=neutral, stake="high",
                                aid_units=aid_size(ctx.state.factions[neutral].army or 0)),
             visibility=vis(ctx.state, called))
    if neutral == "felmonte" and "gusso" in ctx.state.factions and not ctx.state.factions["gusso"].captured_by:
        ctx.emit(ev.NeutralReaction(neutral="gusso", key="aids_against_brother_attack", reaction="aid",
                                    beneficiary=called), visibility=vis(ctx.state, called))
        ctx.emit(ev.TreatyConcluded(treaty=f"gusso.aid.{ctx.state.turn}", kind="military_aid", parties=(called,),
                                    neutral="gusso", stake="high",
                                    aid_units=aid_size(ctx.state.factions["gusso"].army or 0),
                                    expires_turn=ctx.state.turn + 1), visibility=vis(ctx.state, called))


def _aid_sizes(s: SignoriaState, fid: str, enemy: str) -> dict[str, int]:
    """Neutral units joining ``fid``'s battle, by neutral (§7.2): alliances always, aid while it lasts."""
    out: dict[str, int] = {}
    if s.factions[fid].kind != "player":
        return out
    for t in s.active_treaties(fid):
        if t.type in ("military_alliance", "military_aid") and t.neutral and t.neutral != enemy and \
                not s.factions[t.neutral].captured_by and t.neutral not in out:
            n = s.factions[t.neutral]
            out[t.neutral] = min(aid_size(n.army or 0), n.army or 0)
    return out


def _aid(s: SignoriaState, fid: str, enemy: str) -> tuple[int, list[str]]:
    """Neutral units joining ``fid``'s battle (§7.2): their total and the neutrals sending them."""
    sizes = _aid_sizes(s, fid, enemy)
    return sum(sizes.values()), list(sizes)


def loss_order(s: SignoriaState, fid: str, given: Any = None) -> list[str]:
    """Who of ``fid``'s side falls first (§5.8 step 8, §7.2): the order the faction gave (``given``, else its
    standing instruction ``losses``), else its own units first, then the contingents as they joined.
    Entries are ``own`` and neutral ids; any left out fall after those named, in the default order."""
    chosen = given
    if not chosen and fid in s.orders:
        chosen = s.orders[fid].standing.get("losses")
    out = [str(x) for x in (chosen or [])]
    for x in ["own", *s.neutrals()]:
        if x not in out:
            out.append(x)
    return out


def allocate_losses(killed: int, own: int, contingents: Mapping[str, int], order: list[str]) -> dict[str, int]:
    """Split a side's killed units between its own army and each neutral contingent, in ``order``; nobody
    loses more units than it brought (§7.2: kills reduce the neutral's Army).

    >>> allocate_losses(4, 3, {"gusso": 2}, ["gusso", "own"])
    {'gusso': 2, 'own': 2}
    >>> allocate_losses(4, 3, {"gusso": 2}, ["own", "gusso"])
    {'own': 3, 'gusso': 1}
    """
    sizes = {"own": own, **contingents}
    out: dict[str, int] = {}
    left = killed
    for who in order:
        if who not in sizes or left <= 0:
            continue
        take = min(left, sizes[who])
        if take:
            out[who] = take
        left -= take
    return out


def _battle(ctx: Ctx, cid: str, kind: str, attacker: str, defender: str, war: WarInput,
            defence: Mapping[str, Any] | None = None, sally_order: Order | None = None) -> None:
    """Set up, fight (battle.fight) and record one battle, then its aftermath (§5.8, §5.11, §5.13)."""
    responses, declarations, used = war
    s = ctx.state
    camp = s.campaigns[cid]
    winter = s.season == "winter"
    wmod = int(cfg(ctx).get("winter_attacker_threshold_mod", 1)) if winter else 0
    bid = f"b{s.turn}.{sum(1 for b in s.battles if b.turn == s.turn) + 1}"
    if kind == "sally":
        o = sally_order
        assert o is not None
        a_units = home_force(s, attacker)
        # a null (in orders sealed before nulls were dropped) is the default
        a_chars = _fighters(ctx, o.params.get("characters") or [], attacker)
        a_tactic: str | None = str(o.params.get("tactic") or "hold")
        a_res = int(o.params.get("reserve") or 0)
        d_units = camp.units or 0
        d_chars = _fighters(ctx, camp.characters, defender)
        d_tactic: str | None = camp.tactic
        d_res = 0
    else:
        a_units = camp.units or 0
        a_chars = _fighters(ctx, camp.characters, attacker)
        a_tactic = None if kind == "storm" else camp.tactic
        a_res = 0 if kind == "storm" else (camp.reserve or 0)
        d_units = home_force(s, defender)
        dresp = dict(defence or responses.get(cid) or {})
        dchars = dresp.get("characters", "all")
        dfac = s.factions[defender]
        if dchars == "all":
            dchars = [c for c in ([dfac.leader] if dfac.leader else []) + list(dfac.statesmen)]
        d_chars = _fighters(ctx, dchars, defender)
        d_tactic = dresp.get("tactic", "hold")
        if kind == "storm" and dfac.kind == "neutral" and "no_storm_tactic" in dfac.keys:
            d_tactic = None
        d_res = int(dresp.get("reserve", 0))
    a_sizes, d_sizes = _aid_sizes(s, attacker, defender), _aid_sizes(s, defender, attacker)
    a_aid, a_who = sum(a_sizes.values()), list(a_sizes)
    d_aid, d_who = sum(d_sizes.values()), list(d_sizes)
    d_given = dict(defence or responses.get(cid) or {}).get("losses") if kind != "sally" else None
    a_order, d_order = loss_order(s, attacker), loss_order(s, defender, d_given)
    a = SideSetup(attacker, a_units + a_aid, a_tactic, a_res, a_chars,
                  _commander(a_chars, camp.commander if kind != "sally" else None),
                  "bloody_dukes" in s.factions[attacker].traits, wmod, a_aid)
    d = SideSetup(defender, d_units + d_aid, d_tactic, d_res, d_chars,
                  _commander(d_chars, None), "bloody_dukes" in s.factions[defender].traits, 0, d_aid)
    for side, who, own in ((a, a_who, a_units), (d, d_who, d_units)):
        ctx.explain(Breakdown(f"{bid} {side.faction} units", side.units,
                              (Term("own army", own, source="§5.8"),
                               Term(f"contingents ({', '.join(who) or 'none'})", side.contingent, source="§7.2")),
                              note=f"tactic {side.tactic or 'none'}, reserve {side.reserve}"
                                   + (f", thresholds +{side.threshold_mod} (winter)" if side.threshold_mod else "")))
    setup = BattleSetup(bid, a, d, max_rounds=int(cfg(ctx).get("max_rounds", 3)),
                        threshold_cap=int(cfg(ctx).get("threshold_cap", 6)),
                        explosions_chain=bool(cfg(ctx).get("explosions_chain", True)),
                        both_broken=str(cfg(ctx).get("both_broken", "defender")))
    used.update((cid, bid))
    key = bid if bid in declarations and cid not in declarations else cid
    raw = declarations.get(key) or {}
    decl = {int(k): list(v) for k, v in dict(raw).items()}

    place = s.provinces[camp.target].name if camp.target in s.provinces else camp.target

    def roll(key: str, n: int, threshold: int) -> list[int]:
        return pool(ctx, key, n, threshold, place)

    _check_declared(ctx, setup, decl, place)
    result = fight(setup, decl, roll)
    _declaration_questions(ctx, key, bid, camp.target, setup, decl, result.rounds)
    both = vis(ctx.state, attacker, defender)
    forces = {
        side.faction: {"units": side.units, "reserve": side.reserve, "tactic": side.tactic,
                       "characters": [f.id for f in side.characters], "commander": side.commander,
                       "contingents": who, "threshold_mod": side.threshold_mod}
        for side, who in ((a, a_who), (d, d_who))
    }
    ctx.emit(ev.BattleOpened(battle=bid, kind=kind, province=camp.target, attacker=attacker,
                             defender=defender, forces=forces, season=ctx.state.season), visibility=both)
    for rec in result.rounds:
        ctx.emit(ev.BattleRound(battle=bid, round=rec["round"], declarations=tuple(rec["declarations"]),
                                sides=rec["sides"]), visibility=both)
    # who of each side fell: its own units and each contingent, in the order the faction chose (§5.8 step 8)
    split = {side.faction: allocate_losses(result.killed.get(side.faction, 0), side.units - side.contingent,
                                           sizes, order)
             for side, sizes, order in ((a, a_sizes, a_order), (d, d_sizes, d_order))}
    ctx.emit(ev.BattleEnded(battle=bid, province=camp.target, attacker=attacker, defender=defender,
                            winner=result.winner, reason=result.reason,
                            killed={f: parts.get("own", 0) for f, parts in split.items()},
                            contingent_killed={f: sum(v for k, v in parts.items() if k != "own")
                                               for f, parts in split.items()},
                            contingent_losses={f: {k: v for k, v in parts.items() if k != "own"}
                                               for f, parts in split.items() if any(k != "own" for k in parts)},
                            routed_at_end=dict(result.routed_at_end)), visibility=both)
    ctx.emit(ev.BattleReported(battle=bid, province=camp.target, attacker=attacker, defender=defender,
                               winner=result.winner), visibility="public")
    for parts in split.values():
        for n, lost in parts.items():
            if n != "own":
                adjust(ctx, n, "army", -min(lost, ctx.state.factions[n].army or 0),
                       f"lost in the battle at {province_name(ctx.state, camp.target)}", visible_to="gm")
    for side_fac, who in ((attacker, a_who), (defender, d_who)):
        for t in list(ctx.state.active_treaties(side_fac)):
            if t.type == "military_aid" and t.neutral in who:
                ctx.emit(ev.TreatyEnded(treaty=t.id, reason="aid used"), visibility=vis(ctx.state, side_fac))
    # intel from the battle (§5.9)
    for me, other, side in ((attacker, defender, d), (defender, attacker, a)):
        if ctx.state.factions[me].kind == "player":
            seen = [{"id": f.id, "name": ctx.state.characters[f.id].name,
                     "traits": list(ctx.state.characters[f.id].traits)} for f in side.characters]
            ctx.emit(ev.IntelRecorded(observer=me, subject=other,
                                      fields={"units_in_battle": side.units - side.contingent,
                                              "characters_in_battle": seen},
                                      turn=ctx.state.turn, phase=ctx.step, source="battle"),
                     visibility=vis(ctx.state, me))
    for spy in result.defected:
        ch = ctx.state.characters[spy]
        if cfg(ctx).get("spy_exposed_on_defection", True) and ch.true_master:
            ctx.emit(ev.SpyExposed(agent=spy, master=ch.true_master, host=ch.employer),
                     visibility=vis(ctx.state, ch.employer, ch.true_master))
            ctx.emit(ev.StatesmanDefected(character=spy, from_faction=ch.employer, to_faction=ch.true_master,
                                          kind="exposure"), visibility=vis(ctx.state, ch.employer, ch.true_master))
    # war outcome effects (§5.13)
    win_att = result.winner == attacker
    place = province_name(ctx.state, camp.target)
    if win_att:
        adjust(ctx, attacker, "power", 1, f"battle won at {place}")
        adjust(ctx, defender, "power", -1, f"battle lost at {place}")
        adjust(ctx, defender, "piety", -1, f"battle lost at {place}")
    else:
        adjust(ctx, defender, "power", 1, f"battle won at {place}")
        adjust(ctx, attacker, "power", -1, f"battle lost at {place}")
        adjust(ctx, attacker, "piety", -1, f"battle lost at {place}")
        adjust(ctx, attacker, "wealth", -1, f"battle lost at {place}")
    prov = camp.target
    if kind == "sally":
        if win_att:
            ctx.emit(ev.ProvinceStatusChanged(province=prov, change="siege_ended", by=camp.faction, owner=attacker,
                                              campaign=cid), visibility="public")
            ctx.emit(ev.CampaignReturned(campaign=cid, faction=camp.faction), visibility="public")
        else:
            ctx.emit(ev.ProvinceStatusChanged(province=prov, change="captured", by=camp.faction, owner=camp.faction,
                                              campaign=cid), visibility="public")
        return
    if win_att:
        if kind == "storm" or home_force(ctx.state, defender) == 0:
            ctx.emit(ev.ProvinceStatusChanged(province=prov, change="captured", by=attacker, owner=attacker,
                                              campaign=cid), visibility="public")
        else:
            ctx.emit(ev.ProvinceStatusChanged(province=prov, change="occupied", by=attacker, owner=defender,
                                              campaign=cid), visibility="public")
            ctx.emit(ev.ProvinceStatusChanged(province=prov, change="siege_started", by=attacker, owner=defender,
                                              campaign=cid), visibility="public")
    else:
        if ctx.state.provinces[prov].occupier == attacker:
            ctx.emit(ev.ProvinceStatusChanged(province=prov, change="siege_ended", by=attacker, owner=defender,
                                              campaign=cid), visibility="public")
        ctx.emit(ev.CampaignReturned(campaign=cid, faction=attacker), visibility="public")


# ---------------------------------------------------------------------------------------------- phase 4: diplomacy

def decide_p4(ctx: Ctx, c: RulingsChoices) -> None:
    """§7 diplomacy with neutrals (grouped by neutral), then player treaties (§4.1 A4)."""
    trade_winners: dict[str, tuple[str, Order, int]] = {}
    for n in ctx.state.neutrals():
        for fid, o in [(f, o) for f, o in orders_for(ctx, NEUTRAL_GOALS) if o.target == n]:
            s = ctx.state
            standing = s.factions[fid].standing.get(n, 0)
            pen = 0
            lo, hi = int(cfg(ctx).get("threshold_clamp_low", 2)), int(cfg(ctx).get("threshold_clamp_high", 12))
            t = neutral_threshold(o.stake, standing, pen, lo, hi)
            if o.action == "military_aid":
                against = o.params.get("against")
                pen = sum(int(cfg(ctx).get("pact_aid_penalty", 1)) for tr in s.treaties.values()
                          if tr.active and tr.neutral == n and tr.type == "non_aggression" and against in tr.parties)
                t = clamp(t + pen, 2, 12)
            if o.action in ("military_alliance", "legitimacy"):
                count = sum(1 for tr in s.active_treaties(fid, n) if tr.type in COUNTED_TREATIES)
                if count < 2:
                    record(ctx, fid, o, "refused_prerequisite", target=n, detail={"treaties": count})
                    continue
            ctx.explain(Breakdown(f"{fid} {o.id} ({o.action}) threshold", t,
                                  (Term(f"{o.stake} stake", STAKE_THRESHOLD[o.stake], source="§3.3"),
                                   Term(f"standing with {n}", -standing, source="§7.3"),
                                   Term("pacts with the faction aimed at", pen, source="§7.2")),
                                  note=f"clamped to {lo}..{hi}"))
            ok, rolls, r, total = act(ctx, fid, o, t)
            record(ctx, fid, o, "success" if ok else "failure", threshold=t, r=r, rolls=rolls, target=n,
                   detail={"standing": standing, "penalty": pen})
            if not ok:
                continue
            size = 1 if o.stake == "low" else 2
            if o.action == "improve_relations":
                ctx.emit(ev.StandingChanged(neutral=n, faction=fid, delta=size, cause="improve_relations"),
                         visibility=vis(ctx.state, fid))
            elif o.action == "turn_against":
                other = str(o.params["against"])
                cause = "turned against" if not cfg(ctx).get("reveal_intrigue_author") \
                    else f"turned against by {fname(ctx.state, fid)}"
                ctx.emit(ev.StandingChanged(neutral=n, faction=other, delta=-size, cause=cause),
                         visibility=vis(ctx.state, other))
            elif o.action == "trade":
                cur = trade_winners.get(n)
                if cur is None or STAKE_RANK[o.stake] > STAKE_RANK[cur[1].stake] or \
                        (o.stake == cur[1].stake and total > cur[2]):
                    trade_winners[n] = (fid, o, total)
            elif o.action == "legitimacy":
                ctx.emit(ev.LegitimacyLetterSent(neutral=n, faction=fid), visibility=vis(ctx.state, fid))
            else:
                kind = TREATY_KIND[o.action]
                if kind == "military_alliance" and cfg(ctx).get("neutral_alliance_exclusive", True):
                    for tr in list(ctx.state.treaties.values()):
                        if tr.active and tr.neutral == n and tr.type == "military_alliance":
                            ctx.emit(ev.TreatyEnded(treaty=tr.id, reason="replaced"),
                                     visibility=vis(ctx.state, *tr.parties))
                aid = aid_size(ctx.state.factions[n].army or 0) if kind in ("military_aid", "military_alliance") \
                    else 0
                ctx.emit(ev.TreatyConcluded(treaty=f"{n}.{o.action}.{fid}.{ctx.state.turn}",
                                            kind=kind,
                                            parties=(fid,), neutral=n, stake=o.stake, aid_units=aid,
                                            expires_turn=ctx.state.turn + 1 if kind == "military_aid" else None),
                         visibility=vis(ctx.state, fid))
        if n in trade_winners:
            fid, o, _ = trade_winners[n]
            existing = next((tr for tr in ctx.state.treaties.values() if tr.active and tr.neutral == n and
                             tr.type == "trade"), None)
            if existing is not None and existing.parties == (fid,):
                continue
            if existing is not None and STAKE_RANK[o.stake] <= STAKE_RANK[existing.stake]:
                ctx.emit(ev.FactionNotified(faction=fid, kind="trade_refused",
                                            text=f"{fname(ctx.state, n)} keeps its existing trade agreement"),
                         visibility=vis(ctx.state, fid))
                continue
            if existing is not None:
                ctx.emit(ev.TreatyEnded(treaty=existing.id, reason="outbid"),
                         visibility=vis(ctx.state, *existing.parties))
                who = f" by {fname(ctx.state, fid)}" if cfg(ctx).get("reveal_new_trade_holder", True) else ""
                for holder in existing.parties:
                    ctx.emit(ev.FactionNotified(faction=holder, kind="trade_outbid",
                                                text=f"your trade agreement with {fname(ctx.state, n)} was outbid{who}",
                                                data={"neutral": n, **({"by": fid} if who else {})}),
                             visibility=vis(ctx.state, holder))
            shown = vis(ctx.state, fid, *(existing.parties if existing and cfg(ctx).get("reveal_new_trade_holder",
                                                                                         True) else ()))
            ctx.emit(ev.TreatyConcluded(treaty=f"{n}.trade.{fid}.{ctx.state.turn}", kind="trade", parties=(fid,),
                                        neutral=n, stake=o.stake), visibility=shown)
    # player treaties: both sides must order matching terms this turn
    pt = orders_for(ctx, "player_treaty")
    done: set[str] = set()
    for fid, o in pt:
        if fid in done:
            continue
        match = next(((g, p) for g, p in pt if g == o.target and p.target == fid and
                      p.params.get("terms") == o.params.get("terms")), None)
        record(ctx, fid, o, "concluded" if match else "no_match", target=o.target)
        if match:
            g, p = match
            record(ctx, g, p, "concluded", target=fid)
            ctx.emit(ev.TreatyConcluded(treaty=f"pt.{fid}.{g}.{ctx.state.turn}", kind="player_treaty",
                                        parties=(fid, g), stake="elementary"), visibility=vis(ctx.state, fid, g))
            adjust(ctx, fid, "wealth", 1, "treaty")
            adjust(ctx, g, "wealth", 1, "treaty")
            done.update((fid, g))
    rulings(ctx, c.rulings)


# ---------------------------------------------------------------------------------------------- phase 5: hiring

def _landless(ctx: Ctx, fid: str, o: Order) -> bool:
    """A faction left without a province this turn hires nothing and names no heir: its army disbanded and it
    is eliminated at upkeep (§5.13); the order is void and the faction told why."""
    if any(p.owner == fid for p in ctx.state.provinces.values()):
        return False
    void(ctx, fid, o, f"{fname(ctx.state, fid)} holds no province any more: it hires nothing (its army "
                      "disbanded)", "§5.13")
    return True


def decide_p5(ctx: Ctx, c: RulingsChoices) -> None:
    """§4.3 phase 5: dismissals -> statesmen -> troops -> heir (a faction without a province hires nothing)."""
    for fid, o in orders_for(ctx, "dismiss"):
        ctx.emit(ev.StatesmanDismissed(faction=fid, character=str(o.target), reason="choice"),
                 visibility=vis(ctx.state, fid))
    plants = _pending_plants(ctx.state)
    for fid, o in orders_for(ctx, "hire_statesman"):
        if _landless(ctx, fid, o):
            continue
        s = ctx.state
        cand = next(x for x in s.candidates.get(fid, ()) if x.id == o.target)
        if cfg(ctx).get("statesman_cap_equals_power", True) and \
                len(s.factions[fid].statesmen) >= (s.factions[fid].power or 0):
            record(ctx, fid, o, "refused_cap", target=cand.id)
            continue
        if (s.factions[fid].wealth or 0) < cand.cost:
            record(ctx, fid, o, "refused_wealth", target=cand.id)
            continue
        record(ctx, fid, o, "hired", target=cand.id)
        ctx.emit(ev.StatesmanHired(faction=fid, candidate=cand.id, name=cand.name, trait=cand.trait, cost=cand.cost),
                 visibility=vis(ctx.state, fid), actor=fid)
        agent = ctx.state.aliases.get(cand.id)
        if agent is not None and agent in plants:
            master = ctx.state.characters[agent].true_master or ""
            ctx.emit(ev.SpyPlaced(agent=agent, master=master, host=fid), visibility=vis(ctx.state, master))
    for fid, o in orders_for(ctx, "hire_troops"):
        if _landless(ctx, fid, o):
            continue
        n = min(int(o.params["units"]), ctx.state.factions[fid].wealth or 0)
        record(ctx, fid, o, "hired", detail={"units": n})
        if n:
            ctx.emit(ev.TroopsHired(faction=fid, units=n, cost=n), visibility=vis(ctx.state, fid), actor=fid)
    for fid, o in orders_for(ctx, "designate_heir"):
        if _landless(ctx, fid, o):
            continue
        ctx.emit(ev.HeirDesignated(faction=fid, character=str(o.target)), visibility=vis(ctx.state, fid), actor=fid)
    rulings(ctx, c.rulings)


# ---------------------------------------------------------------------------------------------- upkeep

def decide_upkeep(ctx: Ctx, c: UpkeepChoices) -> None:
    """§4.3 upkeep: plunder, siege starvation, cap, flags, elimination, wounds expire, turn closes."""
    # plunder (§5.12): once per province per turn, transferred to the occupier
    # the occupier gains only what the owner actually paid: nothing from an empty treasury (§4.8 floor)
    for p in list(ctx.state.provinces.values()):
        if p.occupier and p.occupier != p.owner and ctx.state.factions[p.owner].kind == "player":
            paid = min(1, ctx.state.factions[p.owner].wealth or 0)
            adjust(ctx, p.owner, "wealth", -1, f"plunder of {p.name}")
            if cfg(ctx).get("plunder_transfers", True) and paid:
                adjust(ctx, p.occupier, "wealth", paid, f"plunder of {p.name}")
    # siege starvation (§5.11): a besieged faction at 0 wealth must sally or surrender next turn
    for p in list(ctx.state.provinces.values()):
        if p.siege_since is not None and p.occupier and (ctx.state.factions[p.owner].wealth or 0) == 0 \
                and p.id not in ctx.state.starving:
            ctx.emit(ev.UpkeepFlagged(faction=p.owner, kind="starving", detail=p.id),
                     visibility=vis(ctx.state, p.owner))
    # statesman cap (§4.7): dismiss the most recently hired unless the owner chose
    for fid in ctx.state.players():
        f = ctx.state.factions[fid]
        cap = f.power or 0
        smen = ctx.state.statesmen_of(fid)
        if cfg(ctx).get("statesman_cap_equals_power", True) and len(smen) > cap:
            ctx.explain(Breakdown(f"{fid} statesmen over the cap", len(smen) - cap,
                                  (Term("statesmen", len(smen)), Term("Power", -cap, source="§4.7"))))
            chosen = list(c.dismiss.get(fid, []))
            order = chosen + [x.id for x in sorted(smen, key=lambda x: -x.hired_turn) if x.id not in chosen]
            for cid in order[: len(smen) - cap]:
                ctx.emit(ev.StatesmanDismissed(faction=fid, character=cid, reason="cap"),
                         visibility=vis(ctx.state, fid))
    low = int(cfg(ctx).get("low_resource_threshold", 1))
    dis = int(cfg(ctx).get("disloyalty_threshold", 1))
    for fid in ctx.state.players():
        f = ctx.state.factions[fid]
        for r in RESOURCES:
            if (getattr(f, r) or 0) <= low:
                ctx.emit(ev.UpkeepFlagged(faction=fid, kind="low_resource", detail=f"{r} {getattr(f, r)}"),
                         visibility="gm")
        for ch in ctx.state.statesmen_of(fid):
            par = traits()[ch.traits[0]].parameter if ch.traits and ch.traits[0] in traits() else ""
            if par and (getattr(f, par) or 0) <= dis:
                ctx.emit(ev.UpkeepFlagged(faction=fid, kind="trait_trap",
                                          detail=f"{ch.name} ({ch.traits[0]}) unhappy: {par} {getattr(f, par)}"),
                         visibility="gm")
        if "voice_of_the_people" in f.traits and (f.power or 0) <= 1:
            ctx.emit(ev.UpkeepFlagged(faction=fid, kind="council_vote", detail=f"power {f.power}"), visibility="gm")
    for fid in ctx.state.players():
        if not any(p.owner == fid for p in ctx.state.provinces.values()):
            ctx.emit(ev.FactionEliminated(faction=fid, reason="no provinces"), visibility="public")
    for ch in list(ctx.state.characters.values()):
        if ch.condition == "wounded":
            ctx.emit(ev.CharacterStatusChanged(character=ch.id, condition="active", cause="wound healed"),
                     visibility=vis(ctx.state, ch.employer))
    # unhired planted agents come home (§6.2 step 3); one whose master was eliminated has no home to come
    # back to and stays out of play with his master's court (§5.13)
    for agent, (host, turn) in list(ctx.state.plants.items()):
        ag = ctx.state.characters.get(agent)
        if ag is not None and turn == ctx.state.turn - 1 and agent not in ctx.state.spies and \
                ag.condition == "departed" and _active_player(ctx.state, ag.true_master):
            master = str(ag.true_master)
            ctx.emit(ev.StatesmanDefected(character=agent, from_faction=host, to_faction=master,
                                          kind="infiltration_failed"), visibility=vis(ctx.state, master))
            ctx.emit(ev.CharacterStatusChanged(character=agent, condition="active", cause="came home"),
                     visibility=vis(ctx.state, master))
    for q in c.questions:
        # §8.2, §4.7, §4.8 [GM]: the faction concerned answers the GM's question; the picked option is the ruling
        ids = [o.id for o in q.options]
        if q.default not in ids:
            raise InputError(f"step {ctx.step!r}: question {q.id}: default {q.default!r} is not one of its options"
                             f" ({', '.join(ids)})")
        picked = c.answers.get(q.id)
        if picked is None:
            picked = ctx.ask(Question(id=f"gm:{q.id}", to=q.faction, kind=q.kind, step=ctx.step,
                                      path=("answers", q.id), default=q.default, group=f"upkeep.{q.id}",
                                      prompt=q.text, options=tuple(Answer(o.id, o.text or o.id) for o in q.options)))
        if picked not in ids:
            raise ctx.fail(f"question {q.id}: {picked!r} is not one of its options ({', '.join(ids)})", "§11.1")
        opt = next(o for o in q.options if o.id == picked)
        ctx.emit(ev.GMRulingRecorded(gap=q.kind, text=f"{q.text} Answer: {opt.text or opt.id}",
                                     effects=as_given(opt.effects)),
                 visibility=vis(ctx.state, q.faction))
    stray = sorted(set(c.answers) - {q.id for q in c.questions})
    if stray:
        raise InputError(f"step {ctx.step!r}: answers to no question of this step: {', '.join(stray)}")
    rulings(ctx, c.rulings)
    if cfg(ctx).get("reveal_orders_after_turn"):
        for fid, od in ctx.state.orders.items():
            ctx.emit(ev.OrdersRevealed(turn=ctx.state.turn, faction=fid,
                                       orders=tuple(o.model_dump(mode="json") for o in od.orders)),
                     visibility="public")
    alive = ctx.state.players()
    if len(alive) == 1:
        ctx.emit(ev.GameEnded(winner=alive[0], reason="all competitors eliminated"), visibility="public")
    ctx.emit(ev.TurnClosed(turn=ctx.state.turn), visibility="public")


# ---------------------------------------------------------------------------------------------- final tally

def decide_final(ctx: Ctx, c: FinalChoices) -> None:
    """Turn 12 (G-40): the final tally by the default formula; the GM's verdict may override the winner."""
    ctx.emit(ev.TurnOpened(turn=ctx.state.turn + 1, season="tally", year_label="Summing up"), visibility="public")
    pts = int(cfg(ctx).get("legitimacy_points", 5))
    scores: dict[str, dict[str, int]] = {}
    for fid in ctx.state.players():
        f = ctx.state.factions[fid]
        provs = sum(1 for p in ctx.state.provinces.values() if p.owner == fid)
        comp = {"power": f.power or 0, "piety": f.piety or 0, "wealth": f.wealth or 0, "army": f.army or 0,
                "provinces": provs, "letters": len(f.letters)}
        comp["total"] = final_score(comp["power"], comp["piety"], comp["wealth"], comp["army"], provs,
                                    len(f.letters), pts)
        scores[fid] = comp
        ctx.explain(Breakdown(f"{fid} final score", comp["total"], (
            *(Term(r.capitalize(), comp[r], source="G-40") for r in RESOURCES),
            Term(f"{provs} provinces x 3", 3 * provs, source="G-40"),
            Term(f"{len(f.letters)} letters x {pts}", pts * len(f.letters), source="G-40"))))
    best = max((v["total"] for v in scores.values()), default=0)
    top = [k for k, v in scores.items() if v["total"] == best]
    winner = c.winner or (top[0] if len(top) == 1 else None)
    ctx.emit(ev.FinalTallyRecorded(scores=scores, winner=winner, felmonte_verdict=c.felmonte, text=c.verdict),
             visibility="public")
    ctx.emit(ev.GameEnded(winner=winner, reason="final tally"), visibility="public")


# ---------------------------------------------------------------------------------------------- the steps

TITLES = {
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
ACTION_DICE = ("<faction>.<order id>.<attempt>",)

SETUP = Step("setup", TITLES["setup"], help="Turn 0: every faction, leader, statesman and province; the "
             "statesmen's traits are rolled on a d6 (1 Steward, 2 Intriguer, 3 General, 4 Devout, 5-6 again).",
             dice=("trait.<id>.<n>",), choices=SetupChoices, decide=guarded(decide_setup))
TURN_OPEN = Step("turn_open", TITLES["turn_open"], help="The season and income, the GM's events, dilemmas and "
                 "candidates (each candidate's trait rolled on a d6).", dice=("candidate.<id>.<n>",),
                 choices=TurnOpenChoices, decide=guarded(decide_turn_open))
P1 = Step("p1_internal", TITLES["p1_internal"], help="Dilemmas, liberties, own intrigue, support, donations.",
          dice=ACTION_DICE, choices=RulingsChoices, decide=guarded(decide_p1))
P2 = Step("p2_espionage", TITLES["p2_espionage"], help="Scouts, spies, bribery and Felmonte offers, "
          "assassination, foreign intrigue; the owners' answers to failed bribes.",
          dice=(*ACTION_DICE, "succession.<faction>.<heir>.<n>"), choices=EspionageChoices, decide=guarded(decide_p2))
P3 = Step("p3_war", TITLES["p3_war"], help="Sallies and storms, campaigns, defenders' answers, battles round by "
          "round (each side's main body and reserve roll their dice).",
          dice=("b<turn>.<n>.r<round>.<side>.<group>",), choices=WarChoices, decide=guarded(decide_p3))
P4 = Step("p4_diplomacy", TITLES["p4_diplomacy"], help="Diplomacy with the neutrals by neutral, then treaties "
          "between players.", dice=ACTION_DICE, choices=RulingsChoices, decide=guarded(decide_p4))
P5 = Step("p5_hiring", TITLES["p5_hiring"], help="Dismissals, statesmen, troops, heirs.", choices=RulingsChoices,
          decide=guarded(decide_p5))
UPKEEP = Step("upkeep", TITLES["upkeep"], help="Plunder, starvation, the statesman cap, the GM's flags; the turn "
              "closes.", choices=UpkeepChoices, decide=guarded(decide_upkeep))
FINAL_TALLY = Step("final_tally", TITLES["final_tally"], help="The default formula's scores; the cardinal's "
                   "verdict may name the winner.", choices=FinalChoices, decide=guarded(decide_final))
REGULAR = (P1, P2, P3, P4, P5, UPKEEP)


@cache
def command_step(fid: str, name: str) -> Step:
    """``command_<fid>``: the faction's own command roll (actor = the faction)."""
    return Step(f"command_{fid}", f"Command roll: {name} (§3.1)", help=f"{name}'s command roll at a stake, with "
                "rerolls bought in order while it fails.", dice=("cmd.1", "cmd.2", "cmd.<n>"),
                choices=CommandChoices, decide=guarded(decide_command))


@cache
def orders_step(fid: str, name: str) -> Step:
    """``orders_<fid>``: the faction's sealed orders (actor = the faction; visible to it and the GM only)."""
    return Step(f"orders_{fid}", f"Sealed orders: {name} (§4.3)", help=f"{name}'s sealed orders, dilemma "
                "choices and standing instructions.", choices=orders_choices(fid), decide=guarded(decide_orders))


def setting_players() -> list[tuple[str, str]]:
    """(id, name) of the setting's player factions (the steps every plan schema lists)."""
    return [(f, r.label) for f, r in setting_factions().items() if r.kind == "player"]
