"""Deciding a Signoria step: validate the choices, roll the dice, return the drafts (§3-§7).

A ``Step`` keeps a working copy of the state and folds each draft into it as it goes,
so later sub-steps see earlier outcomes (the fixed order of §4.3). Every die read is
recorded in a payload; nothing is appended unless the whole step validates.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kingdomlog.core.errors import InputError, RuleError
from kingdomlog.core.events import Draft, EventModel
from kingdomlog.core.ruleset import Dice
from kingdomlog.rulesets.signoria import events as ev
from kingdomlog.rulesets.signoria.battle import BattleSetup, Fighter, SideSetup, fight
from kingdomlog.rulesets.signoria.evolve import evolve
from kingdomlog.rulesets.signoria.rules import (
    LEADER_KILL_THRESHOLD,
    STAKE_THRESHOLD,
    aid_size,
    bribery_band,
    character_rerolls,
    clamp,
    final_score,
    neutral_threshold,
    slot_rerolls,
)
from kingdomlog.rulesets.signoria.state import RESOURCES, Character, Order, SignoriaState
from kingdomlog.rulesets.signoria.tables import adjacency, season_of, trait_from_die, traits

PHASE_OF_ACTION = {
    "dilemma": "p1_internal", "liberties": "p1_internal", "intrigue_self": "p1_internal", "donation": "p1_internal",
    "scouts": "p2_espionage", "spy": "p2_espionage", "bribery": "p2_espionage", "felmonte_offer": "p2_espionage",
    "assassination": "p2_espionage", "intrigue_foreign": "p2_espionage",
    "war": "p3_war", "storm": "p3_war", "sally": "p3_war",
    "pact": "p4_diplomacy", "improve_relations": "p4_diplomacy", "turn_against": "p4_diplomacy",
    "passage": "p4_diplomacy", "trade": "p4_diplomacy", "military_aid": "p4_diplomacy",
    "military_alliance": "p4_diplomacy", "legitimacy": "p4_diplomacy", "player_treaty": "p4_diplomacy",
    "hire_troops": "p5_hiring", "hire_statesman": "p5_hiring", "designate_heir": "p5_hiring", "dismiss": "p5_hiring",
    "support": "",
}
ACTIONS = tuple(PHASE_OF_ACTION)
FREE_ACTIONS = ("designate_heir", "dismiss")
SPY_ACTIONS = ("intrigue_foreign", "bribery", "assassination", "scouts")
NEUTRAL_GOALS = ("pact", "improve_relations", "turn_against", "passage", "trade", "military_aid", "military_alliance",
                 "legitimacy")
MIN_STAKE = {"pact": "low", "passage": "low", "trade": "low", "military_aid": "high", "military_alliance": "high",
             "legitimacy": "high"}
TREATY_KIND = {"pact": "non_aggression", "passage": "right_of_passage", "trade": "trade",
               "military_aid": "military_aid", "military_alliance": "military_alliance"}
COUNTED_TREATIES = ("non_aggression", "right_of_passage", "trade", "military_aid")
ELEMENTARY_ONLY = ("hire_troops", "hire_statesman", "donation", "felmonte_offer", "player_treaty", "dilemma", "support",
                   "designate_heir", "dismiss")
STAKE_RANK = {"elementary": 0, "low": 1, "high": 2}


def vis(state: SignoriaState, *fids: str | None) -> str:
    """Visibility naming player factions only (a neutral's side is the GM's, §11.3)."""
    out: list[str] = []
    for f in fids:
        if f and f in state.factions and state.factions[f].kind == "player" and f"faction:{f}" not in out:
            out.append(f"faction:{f}")
    return ",".join(out) if out else "gm"


class Step:
    """One step being decided: working state, drafts so far, the dice."""

    def __init__(self, state: SignoriaState, step: str, dice: Dice) -> None:
        self.s = state
        self.step = step
        self.dice = dice
        self.drafts: list[Draft] = []
        self.choices: Mapping[str, Any] = {}
        self.used: set[str] = set()

    @property
    def cfg(self) -> dict[str, Any]:
        return self.s.config

    def emit(self, payload: EventModel, visibility: str, actor: str = "gm") -> None:
        self.drafts.append(Draft(payload, phase=self.step, actor=actor, visibility=visibility))
        self.s = evolve(self.s, payload, self.step)

    def d6(self, key: str, n: int = 1) -> list[int]:
        if n <= 0:
            return []
        return list(self.dice.roll(key, f"{n}d6").faces)

    def roll2(self, key: str) -> tuple[int, int]:
        f = self.dice.roll(key, "2d6").faces
        return (int(f[0]), int(f[1]))

    def random_trait(self, key: str, exclude: tuple[str, ...] = ()) -> tuple[str, tuple[int, ...]]:
        """A random trait by d6 (§8.5): 1-4 map, 5-6 and excluded traits roll again."""
        faces: list[int] = []
        for i in range(1, 40):
            face = self.d6(f"{key}.{i}")[0]
            faces.append(face)
            t = trait_from_die(face)
            if t and t not in exclude:
                return t, tuple(faces)
        raise RuleError("no trait after 39 dice", rule="§8.5")  # pragma: no cover

    def err(self, msg: str, rule: str) -> RuleError:
        return RuleError(msg, rule=rule, step=self.step)

    def adjust(self, fid: str, resource: str, delta: int, reason: str, visible_to: str | None = None) -> None:
        """A resource change with the §4.8 floor recorded as a shortfall."""
        if delta == 0 or fid not in self.s.factions:
            return
        cur = getattr(self.s.factions[fid], resource) or 0
        short = max(0, -(cur + delta)) if delta < 0 else 0
        self.emit(ev.ResourceAdjusted(faction=fid, resource=resource, delta=delta, reason=reason, shortfall=short),
                  visible_to or vis(self.s, fid))

    def home_force(self, fid: str) -> int:
        out = sum(c.units or 0 for c in self.s.campaigns.values() if c.faction == fid)
        return max(0, (self.s.factions[fid].army or 0) - out)

    def usable(self, cid: str | None) -> Character | None:
        if not cid:
            return None
        c = self.s.characters.get(cid)
        if c is None or c.condition != "active":
            return None
        return c

    # -- actions -------------------------------------------------------------------------------------------------
    def allowance(self, fid: str, order: Order) -> tuple[int, list[tuple[str, int]]]:
        """Reroll allowance R (§3.4): slots, leading character, support."""
        return reroll_allowance(self.s, fid, order)

    def act(self, fid: str, order: Order, threshold: int, modifier: int = 0,
            target: str | None = None) -> tuple[bool, list[tuple[int, int]], int, int]:
        """Roll an action with automatic rerolls (§3.5); returns (success, rolls, R, last total)."""
        r, _ = self.allowance(fid, order)
        rolls: list[tuple[int, int]] = []
        for i in range(r + 1):
            pair = self.roll2(f"{fid}.{order.id}.{i + 1}")
            rolls.append(pair)
            if sum(pair) + modifier >= threshold:
                return True, rolls, r, sum(pair) + modifier
        return False, rolls, r, sum(rolls[-1]) + modifier

    def record(self, fid: str, order: Order, outcome: str, *, threshold: int | None = None, modifier: int = 0,
               r: int = 0, rolls: list[tuple[int, int]] | None = None, target: str | None = None,
               detail: dict[str, Any] | None = None) -> None:
        self.emit(ev.ActionResolved(faction=fid, order=order.id, action=order.action, stake=order.stake,
                                    threshold=threshold, modifier=modifier, rerolls_allowed=r,
                                    rolls=tuple(rolls or ()), outcome=outcome, target=target,
                                    detail=detail or {}), vis(self.s, fid), actor=fid)

    def orders_for(self, action: str | tuple[str, ...]) -> list[tuple[str, Order]]:
        """Orders of ``action`` in initiative order; double-agent slot orders only if the owner lets them run."""
        acts = (action,) if isinstance(action, str) else action
        out: list[tuple[str, Order]] = []
        for fid in self.s.initiative:
            o = self.s.orders.get(fid)
            if o is None:
                continue
            out.extend((fid, x) for x in o.orders if x.action in acts and self.gated(fid, x))
        return out

    def gated(self, fid: str, o: Order) -> bool:
        """§6.4: an order in a double agent's believed spy slot goes to the owner, who decides if it runs."""
        agent = next((x[4:] for x in o.slots if x.startswith("spy:")), None)
        if agent is None:
            return True
        c = self.s.characters.get(agent)
        if c is None or c.agent_kind != "double_agent" or c.true_master in (None, fid):
            return True
        owner = c.true_master
        key = f"{fid}.{o.id}"
        run = bool(dict(self.choices.get("double_agent_orders") or {}).get(key, False))
        self.emit(ev.FactionNotified(faction=owner, kind="double_agent_order",
                                     text=f"{fid} ordered {c.name}: {o.action}" + (" (carried out)" if run else
                                                                                  " (not carried out)"),
                                     data={"order": o.model_dump(mode="json"), "briber": fid, "executed": run}),
                  vis(self.s, owner))
        if not run:
            self.emit(ev.FactionNotified(faction=fid, kind="spy_report", text=f"{c.name} reports that {o.id} failed",
                                         data={"order": o.id, "outcome": "failure"}), vis(self.s, fid))
        return run


def reroll_allowance(s: SignoriaState, fid: str, order: Order) -> tuple[int, list[tuple[str, int]]]:
    """R for ``order`` (§3.4): 2s + o - 1 for its slots (support slots included), +2/+1 for an on/off-profile
    leading character, +1 per wealth of support up to ``expense_support_max_rerolls``; with its terms."""
    sp = sum(1 for x in order.slots if x == "special")
    od = sum(1 for x in order.slots if x != "special")
    extra: list[tuple[str, int]] = []
    for o in s.orders[fid].orders if fid in s.orders else ():
        if o.action == "support" and o.params.get("order") == order.id:
            sp += sum(1 for x in o.slots if x == "special")
            od += sum(1 for x in o.slots if x != "special")
            w = min(int(o.params.get("wealth", 0)), int(s.config.get("expense_support_max_rerolls", 2)))
            extra.append((f"support {o.id} wealth", w))
    terms = [(f"slots ({sp} special, {od} ordinary)", slot_rerolls(special=sp, ordinary=od))]
    c = s.characters.get(order.leader or "")
    if c is not None and c.condition == "active":
        spy_lead = f"spy:{c.id}" in order.slots  # a spy may lead his own slot's action (§6.2)
        if (c.employer == fid or spy_lead) and (c.role == "statesman" or s.config.get("leader_leads_actions", True)):
            on = any(order.action in traits()[t].profile for t in c.traits if t in traits())
            terms.append((f"{c.name} ({'on' if on else 'off'}-profile)", character_rerolls(on)))
    terms.extend(extra)
    return sum(v for _, v in terms), terms


# ---------------------------------------------------------------------------------------------------------------- setup

def decide_setup(state: SignoriaState, choices: Mapping[str, Any], dice: Dice, options: Mapping[str, Any],
                 factions_data: Mapping[str, Any]) -> list[Draft]:
    """Turn 0 (§2.9): provinces, factions, resources, leaders (2 chosen traits), statesmen (random trait)."""
    st = Step(state, "setup", dice)
    players = list(options["players"])
    if not 2 <= len(players) <= 5:
        raise st.err(f"{len(players)} player factions; the game takes 2 to 5", "§1.2")
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
            raise st.err(f"unknown player faction {p!r}; define it in extra_factions", "§1.2")
    for n in options["neutrals"]:
        rows[n] = factions_data[n].model_dump()
    over = dict(options.get("initial_resources") or {})
    # secret starting values typed in by the GM at setup (not a public campaign option)
    for fid, vals in dict(choices.get("resources") or {}).items():
        over[fid] = {**dict(over.get(fid, {})), **dict(vals)}
    for fid, vals in over.items():
        if fid in rows:
            rows[fid].update({k: int(v) for k, v in vals.items() if k in RESOURCES})
    initiative = tuple(rows)
    cfg = dict(options)
    st.emit(ev.GameCreated(config=cfg, initiative=initiative, resume_turn=int(choices.get("resume_turn", 0))), "public")
    from kingdomlog.rulesets.signoria.tables import provinces as prov_rows
    prows = prov_rows()
    for fid, row in rows.items():
        pid = row["province"]
        if pid in prows:
            pr = prows[pid]
            st.emit(ev.ProvinceDefined(province=pid, name=pr.label, income=pr.income, owner=fid), "public")
        else:
            st.emit(ev.ProvinceDefined(province=pid, name=str(extra.get(fid, {}).get("province_name", pid)),
                                       income=1, owner=fid), "public")
    leader_traits = dict(choices.get("leader_traits") or {})
    names = dict(choices.get("statesmen") or {})
    for fid, lname in dict(choices.get("leader_names") or {}).items():
        if fid in rows:
            rows[fid]["leader"] = str(lname)
    for fid, row in rows.items():
        st.emit(ev.FactionCreated(faction=fid, name=row["label"], kind=row["kind"], traits=tuple(row["traits"]),
                                  keys=tuple(row.get("keys", ())), leader_name=row["leader"],
                                  may_name_heir=bool(row.get("may_name_heir", True))), "public")
        public_stats = row["kind"] == "neutral"
        st.emit(ev.ResourcesInitialized(faction=fid, power=row["power"], piety=row["piety"], wealth=row["wealth"],
                                        army=row["army"]), "public" if public_stats else vis(st.s, fid))
        if row["kind"] == "neutral":
            st.emit(ev.CharacterCreated(character=f"{fid}.leader", faction=fid, name=row["leader"], role="leader",
                                        traits=tuple(row["leader_traits"]), trait_source="setting"), "gm")
            continue
        lt = tuple(leader_traits.get(fid, ()))
        if len(lt) != 2 or len(set(lt)) != 2 or any(t not in traits() or t == "liar" for t in lt):
            raise st.err(f"{fid}: a leader needs two distinct traits from "
                         f"{', '.join(t for t in traits() if t != 'liar')}, got {list(lt)}", "§2.4, §8.5")
        st.emit(ev.CharacterCreated(character=f"{fid}.leader", faction=fid, name=row["leader"], role="leader",
                                    traits=lt, trait_source="chosen"), vis(st.s, fid))
        # the leader's name is public (§11.3): it is in FactionCreated.leader_name
        smen = list(names.get(fid) or [{"name": f"Statesman {len(st.s.characters) + i}"}
                                       for i in range(int(options["statesmen_per_faction"]))])
        heir_given = any(bool(x.get("heir")) for x in smen)
        for i, sm in enumerate(smen):
            # ids carry no faction prefix: a planted spy must not betray his master by his id (§6.2)
            cid = str(sm.get("id") or _slug(str(sm["name"]), st.s.characters))
            trait, faces = st.random_trait(f"trait.{cid}")
            heir = bool(sm.get("heir")) or (row.get("heir_from_start", False) and not heir_given and i == 0)
            if heir and not row.get("may_name_heir", True):
                raise st.err(f"{fid} cannot name an heir", "§8.2")
            st.emit(ev.CharacterCreated(character=cid, faction=fid, name=str(sm["name"]), role="statesman",
                                        traits=(trait,), trait_source="random", trait_dice=faces, is_heir=heir),
                    vis(st.s, fid))
    # the neutrals' stats are public knowledge at turn 0 (§1.4)
    for fid in rows:
        if rows[fid]["kind"] != "player":
            continue
        for n in options["neutrals"]:
            r = rows[n]
            st.emit(ev.IntelRecorded(observer=fid, subject=n, fields={k: r[k] for k in RESOURCES},
                                     turn=0, phase="setup", source="public"), vis(st.s, fid))
    _rulings(st, choices.get("rulings") or [])
    return st.drafts


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


def _rulings(st: Step, rulings: Any) -> None:
    if not isinstance(rulings, list):
        raise InputError(f"[{st.step}] rulings must be a list of {{gap, text, visibility, effects}}")
    for r in rulings:
        visibility = str(r.get("visibility", "gm"))
        st.emit(ev.GMRulingRecorded(gap=str(r.get("gap", "GM")), text=str(r.get("text", "")),
                                    effects=tuple(r.get("effects", ()))), visibility)


# ------------------------------------------------------------------------------------------------------------ turn open

def decide_turn_open(state: SignoriaState, choices: Mapping[str, Any], dice: Dice) -> list[Draft]:
    """§4.3 turn opening: season, income (§4.4), global event, faction events, dilemmas, candidates."""
    st = Step(state, "turn_open", dice)
    turn = state.turn + 1
    season = season_of(turn)
    st.emit(ev.TurnOpened(turn=turn, season=season.name, year_label=season.year_label), "public")
    for t in list(st.s.treaties.values()):
        if t.active and t.expires_turn is not None and t.expires_turn < turn:
            st.emit(ev.TreatyEnded(treaty=t.id, reason="expired"), vis(st.s, *t.parties))
    for fid in st.s.players():
        lines: list[dict[str, Any]] = []
        for p in st.s.provinces.values():
            if p.owner == fid:
                lines.append({"source": f"province:{p.id}", "amount": p.income})
        for t in st.s.active_treaties(fid):
            if t.type == "trade" and t.concluded_turn < turn:
                lines.append({"source": f"trade:{t.neutral}", "amount": 1})
        bonus = season.wealth_bonus * int(st.cfg.get("summer_wealth_bonus", 1))
        if bonus:
            lines.append({"source": f"season:{season.name}", "amount": bonus})
        st.emit(ev.IncomeCredited(faction=fid, lines=tuple(lines), total=sum(x["amount"] for x in lines)),
                vis(st.s, fid))
    ge = choices.get("global_event")
    if ge:
        st.emit(ev.GlobalEventAnnounced(key=str(ge.get("key", "event")), title=str(ge.get("title", "")),
                                        effects=tuple(ge.get("effects", ()))), "public")
    for fe in choices.get("faction_events") or []:
        fid = str(fe["faction"])
        st.emit(ev.GMRulingRecorded(gap="§4.2", text=str(fe.get("text", "")), effects=tuple(fe.get("effects", ()))),
                vis(st.s, fid))
    for d in choices.get("dilemmas") or []:
        fid = str(d["faction"])
        if fid not in st.s.factions:
            raise st.err(f"dilemma for unknown faction {fid!r}", "§4.2")
        st.emit(ev.DilemmaPresented(faction=fid, dilemma=str(d["id"]), text=str(d.get("text", "")),
                                    options=tuple(d.get("options", ()))), vis(st.s, fid))
    # candidates (§4.6) and planted agents (§6.2 step 2) are offered alike: per host, sorted by name, numbered
    # t<turn>.c<n>; a planted agent's real id is told only to the GM and his master (candidate_alias)
    offers: list[dict[str, Any]] = []
    for c in choices.get("candidates") or []:
        fid = str(c["faction"])
        if fid not in st.s.factions:
            raise st.err(f"candidate for unknown faction {fid!r}", "§4.6")
        offers.append({"faction": fid, "name": str(c["name"]), "id": c.get("id"),
                       "cost": int(c.get("cost", st.cfg.get("statesman_hire_cost", 1)))})
    for agent, host in _pending_plants(st.s).items():
        ch = st.s.characters[agent]
        offers.append({"faction": host, "name": ch.name, "agent": agent, "trait": ch.traits[0],
                       "cost": int(st.cfg.get("statesman_hire_cost", 1))})
    order = {f: i for i, f in enumerate(st.s.initiative)}
    offers.sort(key=lambda o: (order.get(o["faction"], 99), o["name"], o.get("agent") or ""))
    for n, o in enumerate(offers, start=1):
        cid = str(o.get("id") or f"t{turn}.c{n}")
        if "agent" in o:
            master = st.s.characters[o["agent"]].true_master or ""
            st.emit(ev.CandidateAlias(candidate=cid, agent=o["agent"], host=o["faction"]), vis(st.s, master))
            trait = o["trait"]
        else:
            trait, faces = st.random_trait(f"candidate.{cid}")
            st.emit(ev.GMRulingRecorded(gap="§4.6", text=f"trait of candidate {cid} rolled: {trait}",
                                        effects=({"kind": "text", "candidate": cid, "dice": list(faces)},)), "gm")
        st.emit(ev.CandidateOffered(faction=o["faction"], candidate=cid, name=o["name"], trait=trait, cost=o["cost"]),
                vis(st.s, o["faction"]))
    _rulings(st, choices.get("rulings") or [])
    return st.drafts


def _pending_plants(s: SignoriaState) -> dict[str, str]:
    """Agents planted last turn and waiting to be hired: agent -> host (from the GM's flags)."""
    out: dict[str, str] = {}
    for agent, (host, turn) in s.plants.items():
        c = s.characters.get(agent)
        if c is not None and c.condition == "departed" and turn == s.turn - 1:
            out[agent] = host
    return out


# ------------------------------------------------------------------------------------------------------------- command

def decide_command(state: SignoriaState, fid: str, choices: Mapping[str, Any], dice: Dice) -> list[Draft]:
    """The command roll (§3.1): 2d6 at a stake, rerolls bought with 1 Power or 1 Wealth while failing."""
    st = Step(state, f"command_{fid}", dice)
    stake = str(choices.get("stake", "low"))
    if stake not in ("low", "high"):
        raise InputError(f"[{st.step}] stake must be low or high, got {stake!r}")
    pay = list(choices.get("pay") or [])
    for p in pay:
        if p not in ("power", "wealth"):
            raise InputError(f"[{st.step}] rerolls are paid with power or wealth, got {p!r}")
    limit = int(st.cfg.get("command_reroll_limit", -1))
    if limit >= 0 and len(pay) > limit:
        raise st.err(f"{len(pay)} rerolls planned; the limit is {limit}", "§3.1 command_reroll_limit")
    threshold = STAKE_THRESHOLD[stake]
    pair = st.roll2("cmd.1")
    st.emit(ev.CommandRollMade(faction=fid, attempt=1, stake=stake, dice=pair), vis(st.s, fid), actor=fid)
    attempt = 1
    while sum(pair) < threshold and attempt <= len(pay):
        res = pay[attempt - 1]
        have = getattr(st.s.factions[fid], res) or 0
        if have < 1:
            raise st.err(f"{fid} cannot pay 1 {res} for a command reroll ({res} is {have})",
                         "§3.1 reroll needs 1 Power or Wealth")
        attempt += 1
        pair = st.roll2(f"cmd.{attempt}")
        st.emit(ev.CommandRollMade(faction=fid, attempt=attempt, stake=stake, dice=pair, paid_with=res),
                vis(st.s, fid), actor=fid)
    return st.drafts


# --------------------------------------------------------------------------------------------------------------- orders

def decide_orders(state: SignoriaState, fid: str, choices: Mapping[str, Any], dice: Dice) -> list[Draft]:
    """Validate and seal one faction's orders (§4.3, §3.2, §3.7, §7.2); visible to it and the GM only."""
    st = Step(state, f"orders_{fid}", dice)
    actor = str(choices.get("actor", fid))
    if actor != fid:
        raise st.err(f"orders submitted by {actor!r} in {fid!r}'s orders step: a faction orders only itself",
                     "§1.3 sealed orders per faction")
    raw = choices.get("orders") or []
    if not isinstance(raw, list):
        raise InputError(f"[{st.step}] orders must be a list")
    orders: list[Order] = []
    for i, o in enumerate(raw):
        if not isinstance(o, dict):
            raise InputError(f"[{st.step}] order #{i + 1} must be an object")
        if o.get("faction", fid) != fid:
            raise st.err(f"order {o.get('id')!r} is for {o.get('faction')!r}, not {fid!r}", "§1.3 sealed orders")
        body = {k: v for k, v in o.items() if k != "faction"}
        body.setdefault("id", f"O{i + 1}")
        if isinstance(body.get("slots"), str):
            body["slots"] = [body["slots"]]
        try:
            orders.append(Order.model_validate(body))
        except Exception as exc:
            raise InputError(f"[{st.step}] order #{i + 1} is malformed: {exc}") from None
    validate_orders(st, fid, orders, dict(choices.get("dilemmas") or {}))
    st.emit(ev.OrdersSubmitted(faction=fid, orders=tuple(o.model_dump(mode="json") for o in orders),
                               dilemmas=dict(choices.get("dilemmas") or {}),
                               standing=dict(choices.get("standing") or {})), vis(st.s, fid), actor=fid)
    return st.drafts


def validate_orders(st: Step, fid: str, orders: list[Order], dilemmas: dict[str, str]) -> None:
    s = st.s
    me = s.factions[fid]
    if me.kind != "player" or me.status != "active":
        raise st.err(f"{fid} is not an active player faction", "§1.2")
    cr = s.command.get(fid)
    if cr is None or not cr.attempts:
        raise st.err(f"{fid} has not made its command roll this turn", "§3.1")
    ids = [o.id for o in orders]
    if len(set(ids)) != len(ids):
        raise st.err("order ids must be unique", "§11.2")
    special = ordinary = 0
    spy_used: dict[str, int] = {}
    leaders: dict[str, str] = {}
    wealth_cost = 0
    my_spies = {a: h for a, h in s.spies.items() if s.characters[a].true_master == fid}
    my_spies.update(s.believed_spies.get(fid, {}))
    for o in orders:
        if o.action not in ACTIONS:
            raise st.err(f"order {o.id}: unknown action {o.action!r}", "§4.1")
        if o.action in FREE_ACTIONS:
            slots: tuple[str, ...] = ()
        else:
            slots = o.slots
            if not slots:
                raise st.err(f"order {o.id}: {o.action} needs at least one slot", "§4.1")
        for sl in slots:
            if sl == "special":
                special += 1
            elif sl == "ordinary":
                ordinary += 1
            elif sl.startswith("spy:"):
                agent = sl[4:]
                if agent not in my_spies:
                    raise st.err(f"order {o.id}: {agent!r} is not a spy of {fid}", "§6.2")
                spy_used[agent] = spy_used.get(agent, 0) + 1
                if spy_used[agent] > 1:
                    raise st.err(f"order {o.id}: spy {agent} gives one action per turn", "§3.2")
                if o.action not in SPY_ACTIONS:
                    raise st.err(f"order {o.id}: a spy slot is for intelligence, bribery, assassination or "
                                 "intrigue only", "§3.2, §4.1")
                host = my_spies[agent]
                tgt_fac = s.characters[o.target].employer if o.target in s.characters else o.target
                if tgt_fac != host:
                    raise st.err(f"order {o.id}: a spy slot acts only in the spy's host state {host}", "§6.2")
            else:
                raise InputError(f"[{st.step}] order {o.id}: slot {sl!r} is not special, ordinary or spy:<agent>")
        if o.stake == "elementary" and o.action in ("bribery",):
            raise st.err(f"order {o.id}: bribery needs a roll (low or high stake)", "§6.3")
        if o.action in ELEMENTARY_ONLY and o.action not in ("dilemma", "support"):
            pass
        spy_lead = any(sl == f"spy:{o.leader}" for sl in slots)
        if o.leader and not spy_lead:
            c = s.characters.get(o.leader)
            if c is None or c.employer != fid or c.condition != "active":
                raise st.err(f"order {o.id}: {o.leader!r} is not an available character of {fid}", "§3.7")
            if c.role == "leader" and not st.cfg.get("leader_leads_actions", True):
                raise st.err(f"order {o.id}: the leader may not lead actions in this game", "§3.4")
            if o.leader in leaders and st.cfg.get("character_one_activity_per_turn", True):
                raise st.err(f"order {o.id}: {o.leader} already leads {leaders[o.leader]} this turn", "§3.7")
            leaders[o.leader] = o.id
        sent = sum(int(x.params.get("units", 0)) for x in orders[: orders.index(o)] if x.action == "war")
        _validate_target(st, fid, o, sent)
        wealth_cost += _wealth_cost(st, o)
        if o.action == "war":
            for cid in o.params.get("characters", []):
                if cid in leaders and st.cfg.get("character_one_activity_per_turn", True):
                    raise st.err(f"order {o.id}: {cid} already has an activity this turn", "§3.7")
                leaders[cid] = o.id
    if special > cr.special:
        raise st.err(f"{special} special slots used but the command roll gave {cr.special}", "§3.1")
    if ordinary > cr.ordinary + (cr.special - special):
        raise st.err(f"{special + ordinary} action slots used but the command roll gave "
                     f"{cr.special} special + {cr.ordinary} ordinary", "§3.1")
    if special + ordinary + sum(spy_used.values()) > int(st.cfg.get("max_slots_per_turn", 7)):
        st.emit(ev.UpkeepFlagged(faction=fid, kind="slots_over_max",
                                 detail=f"{special + ordinary + sum(spy_used.values())} slots used"), "gm")
    if wealth_cost > (me.wealth or 0):
        raise st.err(f"orders cost {wealth_cost} wealth but {fid} has {me.wealth}", "§4.8 voluntary costs")
    by_id = {o.id: o for o in orders}
    for o in orders:
        if o.action == "support":
            tgt = by_id.get(str(o.params.get("order")))
            if tgt is None or tgt.action in (*FREE_ACTIONS, "support", "war") or tgt.stake == "elementary":
                raise st.err(f"order {o.id}: support names a rolled action of this turn's orders", "§4.1 A5c")
            if int(o.params.get("wealth", 0)) < 1:
                raise st.err(f"order {o.id}: support invests at least 1 wealth", "§4.1 A5c")
    known = {d.id for d in s.dilemmas.get(fid, ())}
    for did, choice in dilemmas.items():
        if did not in known:
            raise st.err(f"no dilemma {did!r} was dealt to {fid}", "§4.1 A7")
        if choice != "abstain" and not any(o.action == "dilemma" and o.target == did for o in orders):
            raise st.err(f"resolving dilemma {did} costs one action slot: add a dilemma order or abstain", "§4.1 A7")
    for o in orders:
        if o.action == "dilemma":
            d = next((d for d in s.dilemmas.get(fid, ()) if d.id == o.target), None)
            if d is None:
                raise st.err(f"order {o.id}: no dilemma {o.target!r}", "§4.1 A7")
            opt = o.params.get("option") or dilemmas.get(d.id)
            if opt not in {x.id for x in d.options}:
                raise st.err(f"order {o.id}: {opt!r} is not an option of dilemma {d.id}", "§4.1 A7")


def _wealth_cost(st: Step, o: Order) -> int:
    p = o.params
    if o.action == "hire_troops":
        return int(p.get("units", 0))
    if o.action == "donation":
        return int(st.cfg.get("donation_wealth_per_piety", 2)) * int(p.get("piety", 1))
    if o.action in ("bribery", "felmonte_offer", "support"):
        return int(p.get("wealth", 0))
    if o.action == "hire_statesman":
        c = next((c for c in st.s.candidates.get(o.target or "", ()) if c.id == o.target), None)
        return c.cost if c else int(st.cfg.get("statesman_hire_cost", 1))
    return 0


def _validate_target(st: Step, fid: str, o: Order, sent: int = 0) -> None:
    """Targets, stakes and prerequisites of one order; ``sent`` = units of earlier war orders this turn."""
    s = st.s
    a = o.action
    if a in NEUTRAL_GOALS:
        n = o.target
        if n not in s.factions or s.factions[n].kind != "neutral":
            raise st.err(f"order {o.id}: {a} needs a neutral as target, got {n!r}", "§7.1")
        if s.factions[n].captured_by:
            raise st.err(f"order {o.id}: {n} has been captured", "§7.6")
        if o.stake == "elementary":
            raise st.err(f"order {o.id}: diplomacy with a neutral is rolled (low or high stake)", "§7.2")
        need = MIN_STAKE.get(a)
        if need and STAKE_RANK[o.stake] < STAKE_RANK[need]:
            raise st.err(f"order {o.id}: {a} needs at least the {need} stake", "§7.2")
        if a in ("military_alliance", "legitimacy"):
            count = sum(1 for t in s.active_treaties(fid, n) if t.type in COUNTED_TREATIES)
            if count < 2:
                raise st.err(f"order {o.id}: {a} with {n} needs at least 2 treaties with it; {fid} has {count}",
                             "§7.2 needs at least 2 treaties")
        if a == "legitimacy" and s.factions[n].legitimacy_letter_to:
            raise st.err(f"order {o.id}: {n} has already sent its one letter", "§7.2")
        if a == "turn_against" and o.params.get("against") not in s.factions:
            raise st.err(f"order {o.id}: turn-against names no faction (params.against)", "§7.2")
        return
    if a in ("scouts", "intrigue_foreign", "spy"):
        if o.target not in s.factions or o.target == fid:
            raise st.err(f"order {o.id}: {a} targets another faction, got {o.target!r}", "§4.1")
        if a == "spy":
            agent = s.characters.get(str(o.params.get("agent")))
            if agent is None or agent.employer != fid or agent.role != "statesman" or agent.condition != "active":
                raise st.err(f"order {o.id}: the agent must be one of {fid}'s active statesmen", "§6.2")
        return
    if a in ("bribery", "assassination"):
        c = s.characters.get(o.target or "")
        if c is None or c.employer == fid or c.condition == "dead":
            raise st.err(f"order {o.id}: {a} targets a rival character, got {o.target!r}", "§6.3, §6.5")
        if a == "bribery":
            if int(o.params.get("wealth", 0)) < 1:
                raise st.err(f"order {o.id}: a bribe invests at least 1 wealth", "§6.3")
            mode = o.params.get("on_success", "spy")
            if mode not in ("spy", "defect") or (mode == "defect" and o.stake != "high"):
                raise st.err(f"order {o.id}: a low-stake bribe can only make a spy", "§6.3")
        if a == "assassination" and c.role == "leader" and s.factions[c.employer].kind == "player" \
                and o.stake == "low":
            raise st.err(f"order {o.id}: a low-stake attempt on a leader is not allowed", "§6.5")
        return
    if a == "felmonte_offer":
        if "felmonte" not in s.factions or s.factions["felmonte"].captured_by:
            raise st.err("Felmonte is not for sale", "§7.7")
        if int(o.params.get("wealth", 0)) < 1:
            raise st.err(f"order {o.id}: an offer is at least 1 wealth", "§7.7")
        return
    if a == "war":
        tgt = s.provinces.get(o.target or "")
        if tgt is None or tgt.owner == fid:
            raise st.err(f"order {o.id}: war needs an enemy province as target, got {o.target!r}", "§5.1")
        units = int(o.params.get("units", 0))
        home = st.home_force(fid) - sent
        if units < 1 or units > home:
            raise st.err(f"order {o.id}: {units} units sent but the home force is {home}", "§5.1")
        tactic = o.params.get("tactic", "hold")
        if tactic not in ("breakthrough", "encirclement", "ambush", "hold", "counterattack"):
            raise st.err(f"order {o.id}: unknown tactic {tactic!r}", "§5.4")
        if int(o.params.get("reserve", 0)) > units // 3:
            raise st.err(f"order {o.id}: the reserve may be at most a third of the units", "§5.4")
        for cid in o.params.get("characters", []):
            c = s.characters.get(cid)
            if c is None or c.employer != fid or c.condition != "active":
                raise st.err(f"order {o.id}: {cid!r} is not an available character of {fid}", "§3.7")
        return
    if a == "storm":
        if not any(c.faction == fid and c.target == o.target and c.status in ("occupying", "besieging")
                   for c in s.campaigns.values()):
            raise st.err(f"order {o.id}: {fid} has no army besieging {o.target!r} to storm", "§5.11")
        return
    if a == "sally":
        p = s.provinces.get(o.target or "")
        if p is None or p.owner != fid or p.siege_since is None:
            raise st.err(f"order {o.id}: {o.target!r} is not a besieged province of {fid}", "§5.11")
        if int(o.params.get("reserve", 0)) > st.home_force(fid) // 3:
            raise st.err(f"order {o.id}: the reserve may be at most a third of the garrison", "§5.4")
        return
    if a == "hire_statesman":
        if not any(c.id == o.target for c in s.candidates.get(fid, ())):
            raise st.err(f"order {o.id}: {o.target!r} was not offered to {fid} this turn", "§4.6")
        return
    if a == "designate_heir":
        if not s.factions[fid].may_name_heir:
            raise st.err(f"{fid} cannot designate an heir", "§8.2 Voice of the people")
        c = s.characters.get(o.target or "")
        if c is None or c.employer != fid or c.role != "statesman":
            raise st.err(f"order {o.id}: the heir must be one of {fid}'s statesmen", "§6.6")
        return
    if a == "player_treaty":
        if o.target not in s.factions or s.factions[o.target].kind != "player" or o.target == fid:
            raise st.err(f"order {o.id}: a player treaty names another player faction", "§4.1 A4")
        return
    if a == "support":
        return  # the supported order is checked against this submission in validate_orders
    if a == "dismiss":
        c = s.characters.get(o.target or "")
        if c is None or c.employer != fid or c.role != "statesman" or c.condition == "dead":
            raise st.err(f"order {o.id}: a faction dismisses only its own statesmen", "§4.3 phase 5")
        return
    if a == "hire_troops" and int(o.params.get("units", 0)) < 1:
        raise st.err(f"order {o.id}: hire at least 1 unit", "§4.1 A5a")


def decide_orders_locked(st: Step) -> None:
    missing = tuple(f for f in st.s.players() if f not in st.s.orders)
    st.emit(ev.OrdersLocked(turn=st.s.turn, missing=missing), "public")


# ---------------------------------------------------------------------------------------------- phase 1: internal

def decide_p1(state: SignoriaState, choices: Mapping[str, Any], dice: Dice) -> list[Draft]:
    """§4.3 phase 1: dilemmas -> liberties -> own intrigue -> donations."""
    st = Step(state, "p1_internal", dice)
    decide_orders_locked(st)
    for fid, o in st.orders_for("dilemma"):
        d = next(d for d in st.s.dilemmas.get(fid, ()) if d.id == o.target)
        opt_id = o.params.get("option") or st.s.orders[fid].dilemmas.get(d.id)
        opt = next(x for x in d.options if x.id == opt_id)
        st.record(fid, o, "resolved", target=d.id, detail={"option": opt.id})
        # the GM's ruling applies the chosen option's effects (G-29; §11.5 event 14)
        st.emit(ev.GMRulingRecorded(gap="G-29", text=f"dilemma {d.id}: {opt.id}", effects=opt.effects),
                vis(st.s, fid))
    for fid, o in st.orders_for("liberties"):
        if o.stake == "elementary":
            st.record(fid, o, "elementary")
            st.adjust(fid, "power", -1, "liberties")
            st.adjust(fid, "piety", 1, "liberties")
            continue
        ok, rolls, r, _ = st.act(fid, o, STAKE_THRESHOLD[o.stake])
        st.record(fid, o, "success" if ok else "failure", threshold=STAKE_THRESHOLD[o.stake], r=r, rolls=rolls)
        st.adjust(fid, "power", -1, "liberties")
        st.adjust(fid, "piety", (2 if o.stake == "low" else 3) if ok else 1, "liberties")
    for fid, o in st.orders_for("intrigue_self"):
        if o.stake == "elementary":
            st.record(fid, o, "elementary")
            continue
        t = STAKE_THRESHOLD[o.stake]
        ok, rolls, r, _ = st.act(fid, o, t)
        st.record(fid, o, "success" if ok else "failure", threshold=t, r=r, rolls=rolls)
        if ok:
            st.adjust(fid, "power", 1 if o.stake == "low" else 2, "intrigue")
            st.adjust(fid, "piety", -int(st.cfg.get("intrigue_success_piety_cost", 0)), "intrigue")
        else:
            st.adjust(fid, "piety", -1, "failed intrigue")
    for fid, o in st.orders_for("support"):
        w = int(o.params.get("wealth", 0))
        st.record(fid, o, "elementary", target=str(o.params.get("order")), detail={"wealth": w})
        st.adjust(fid, "wealth", -w, f"support of {o.params.get('order')}")
    for fid, o in st.orders_for("donation"):
        n = int(o.params.get("piety", 1))
        st.record(fid, o, "elementary", detail={"piety": n})
        st.adjust(fid, "wealth", -int(st.cfg.get("donation_wealth_per_piety", 2)) * n, "donation")
        st.adjust(fid, "piety", n, "donation")
    _rulings(st, choices.get("rulings") or [])
    return st.drafts


# ---------------------------------------------------------------------------------------------- phase 2: espionage

def decide_p2(state: SignoriaState, choices: Mapping[str, Any], dice: Dice) -> list[Draft]:
    """§4.3 phase 2: scouts -> spy infiltration -> bribery and offers -> assassination -> external intrigue."""
    st = Step(state, "p2_espionage", dice)
    st.choices = choices
    doubles = dict(choices.get("double_agents") or {})
    for fid, o in st.orders_for("scouts"):
        tgt = str(o.target)
        if o.stake == "elementary":
            st.record(fid, o, "elementary", target=tgt)
            continue
        t = STAKE_THRESHOLD[o.stake]
        ok, rolls, r, _ = st.act(fid, o, t)
        st.record(fid, o, "success" if ok else "failure", threshold=t, r=r, rolls=rolls, target=tgt)
        if ok:
            f = st.s.factions[tgt]
            if o.stake == "low":
                field = str(o.params.get("field", "army"))
                if field not in RESOURCES:
                    raise st.err(f"order {o.id}: scouts at low stake learn one of {RESOURCES}", "§6.1")
                fields: dict[str, Any] = {field: getattr(f, field)}
            else:
                fields = {k: getattr(f, k) for k in RESOURCES}
                roster = []
                for cid in ([f.leader] if f.leader else []) + list(f.statesmen):
                    c = st.s.characters[cid]
                    roster.append({"id": c.id, "name": c.name, "role": c.role, "traits": list(c.traits)})
                fields["roster"] = roster
            st.emit(ev.IntelRecorded(observer=fid, subject=tgt, fields=fields, turn=st.s.turn, phase=st.step,
                                     source="scouts"), vis(st.s, fid))
            if st.cfg.get("scouting_notifies_target"):
                st.emit(ev.FactionNotified(faction=tgt, kind="scouted", text="foreign scouts were seen"),
                        vis(st.s, tgt))
    for fid, o in st.orders_for("spy"):
        agent = str(o.params["agent"])
        ok, rolls, r, _ = st.act(fid, o, STAKE_THRESHOLD["low"])
        st.record(fid, o, "success" if ok else "failure", threshold=5, r=r, rolls=rolls, target=o.target,
                  detail={"agent": agent})
        if ok:
            st.emit(ev.SpyPlanted(agent=agent, master=fid, host=str(o.target)), vis(st.s, fid))
    for fid, o in st.orders_for("bribery"):
        _bribery(st, fid, o, doubles)
    offers = st.orders_for("felmonte_offer")
    for fid, o in offers:
        st.record(fid, o, "offered", target="felmonte", detail={"amount": int(o.params["wealth"])})
    if offers:
        best = max(int(o.params["wealth"]) for _, o in offers)
        top = [fid for fid, o in offers if int(o.params["wealth"]) == best]
        if best >= int(st.cfg.get("luigi_min_price", 3)) and len(top) == 1:
            st.emit(ev.FelmonteSold(winner=top[0], amount=best), vis(st.s, top[0]))
            st.emit(ev.ProvinceStatusChanged(province="felmonte", change="captured", by=top[0], owner=top[0]),
                    "public")
    for fid, o in st.orders_for("assassination"):
        _assassination(st, fid, o, choices)
    for fid, o in st.orders_for("intrigue_foreign"):
        tgt = str(o.target)
        if o.stake == "elementary":
            st.record(fid, o, "elementary", target=tgt)
            continue
        t = STAKE_THRESHOLD[o.stake]
        ok, rolls, r, _ = st.act(fid, o, t)
        st.record(fid, o, "success" if ok else "failure", threshold=t, r=r, rolls=rolls, target=tgt)
        if ok:
            reason = f"intrigue by {fid}" if st.cfg.get("reveal_intrigue_author") else "foreign intrigue"
            st.adjust(tgt, "power", -(1 if o.stake == "low" else 2), reason, visible_to=vis(st.s, tgt))
        else:
            st.adjust(fid, "piety", -1, "failed intrigue")
    _rulings(st, choices.get("rulings") or [])
    return st.drafts


def _bribery(st: Step, fid: str, o: Order, doubles: Mapping[str, Any]) -> None:
    """§6.3: total = 2d6 + W - L against T; success / light failure / full failure; §6.4 double agents."""
    tgt = st.s.characters[str(o.target)]
    owner = tgt.employer
    w = int(o.params["wealth"])
    loyalty = tgt.loyalty if tgt.loyalty is not None else int(st.cfg.get("statesman_loyalty_default", 2))
    t = STAKE_THRESHOLD[o.stake]
    mod = w - loyalty
    _, rolls, r, total = st.act(fid, o, t, modifier=mod)
    band = bribery_band(total, t)
    mode = str(o.params.get("on_success", "spy"))
    # the briber sees its dice but not the band, which depends on a loyalty only the GM knows (§2.4, §11.4)
    st.emit(ev.ActionResolved(faction=fid, order=o.id, action="bribery", stake=o.stake, threshold=t,
                              rerolls_allowed=r, rolls=tuple(rolls), outcome="reported", target=tgt.id,
                              detail={"wealth": w, "on_success": mode}), vis(st.s, fid), actor=fid)
    st.emit(ev.GMRulingRecorded(gap="§6.3", text=f"bribe of {tgt.id} by {fid}.{o.id}: {band}",
                                effects=({"kind": "text", "band": band, "total": total, "modifier": mod},)), "gm")
    if band == "success":
        st.adjust(fid, "wealth", -w, "bribe")
        if mode == "defect":
            st.emit(ev.StatesmanDefected(character=tgt.id, from_faction=owner, to_faction=fid, kind="bribe"),
                    vis(st.s, owner, fid))
        else:
            st.emit(ev.SpyPlaced(agent=tgt.id, master=fid, host=owner), vis(st.s, fid))
        st.emit(ev.FactionNotified(faction=fid, kind="bribe_result", text=f"the bribe of {tgt.name} succeeded",
                                   data={"outcome": "success", "character": tgt.id, "host": owner, "mode": "none"}),
                vis(st.s, fid))
        return
    if band == "full_failure":
        st.adjust(fid, "wealth", -w, "bribe taken and lost")
    key = f"{fid}.{o.id}"
    st.emit(ev.FactionNotified(faction=owner, kind="bribe_attempt",
                               text=f"{fid} tried to bribe {tgt.name}",
                               data={"briber": fid, "character": tgt.id, "order": key}), vis(st.s, owner))
    if st.s.factions[owner].kind == "player" and bool(doubles.get(key)):
        da_mode = "believed_spy" if mode == "spy" else "planted_defector"
        st.emit(ev.DoubleAgentChosen(character=tgt.id, owner=owner, briber=fid, mode=da_mode), vis(st.s, owner))
        if band == "light_failure":
            st.adjust(fid, "wealth", -w, "bribe")
        st.emit(ev.FactionNotified(faction=fid, kind="bribe_result", text=f"the bribe of {tgt.name} succeeded",
                                   data={"outcome": "success", "character": tgt.id, "host": owner,
                                         "mode": "spy" if da_mode == "believed_spy" else "none"}), vis(st.s, fid))
        if da_mode == "planted_defector":
            st.emit(ev.StatesmanDefected(character=tgt.id, from_faction=owner, to_faction=fid, kind="bribe"),
                    vis(st.s, fid))
            st.emit(ev.SpyPlaced(agent=tgt.id, master=owner, host=fid), vis(st.s, owner))
        return
    st.emit(ev.FactionNotified(faction=fid, kind="bribe_result", text=f"the bribe of {tgt.name} failed",
                               data={"outcome": band, "character": tgt.id}), vis(st.s, fid))


def _assassination(st: Step, fid: str, o: Order, choices: Mapping[str, Any]) -> None:
    """§6.5: statesman low wound / high kill; leader high wound, leader-kill 10+; failure tells the target."""
    tgt = st.s.characters[str(o.target)]
    owner = tgt.employer
    if tgt.condition != "active" and tgt.condition != "wounded":
        st.record(fid, o, "no_target", target=tgt.id)
        return
    if o.stake == "elementary":
        st.record(fid, o, "elementary", target=tgt.id)
        return
    is_player_leader = tgt.role == "leader" and st.s.factions[owner].kind == "player"
    kill_leader = is_player_leader and bool(o.params.get("kill_leader"))
    t = LEADER_KILL_THRESHOLD if kill_leader else STAKE_THRESHOLD[o.stake]
    ok, rolls, r, _ = st.act(fid, o, t)
    if not ok:
        st.record(fid, o, "failure", threshold=t, r=r, rolls=rolls, target=tgt.id)
        sender = {"sender": fid} if st.cfg.get("assassination_reveal_sender") else {}
        st.emit(ev.FactionNotified(faction=owner, kind="assassination_attempt",
                                   text=f"an attempt was made on {tgt.name}'s life",
                                   data={"character": tgt.id, **sender}), vis(st.s, owner))
        return
    kill = kill_leader or (not is_player_leader and o.stake == "high")
    st.record(fid, o, "killed" if kill else "wounded", threshold=t, r=r, rolls=rolls, target=tgt.id)
    st.emit(ev.CharacterStatusChanged(character=tgt.id, condition="dead" if kill else "wounded",
                                      cause=f"assassination ({fid})"),
            "public" if kill and tgt.role == "leader" else vis(st.s, owner, fid))
    if kill and tgt.role == "leader":
        succession(st, owner, choices)


def succession(st: Step, fid: str, choices: Mapping[str, Any]) -> None:
    """§6.6: heir succeeds (keeps his trait, second chosen or rolled); else 2 random traits; Fabian regrants."""
    f = st.s.factions[fid]
    heir = next((c for c in st.s.statesmen_of(fid) if c.is_heir and c.condition != "dead"), None)
    picks = dict(choices.get("successor_traits") or {})
    if heir is not None:
        first = heir.traits[0]
        second = picks.get(fid)
        faces: tuple[int, ...] = ()
        if second is None or second == first or second not in traits():
            second, faces = st.random_trait(f"succession.{fid}.{heir.id}", exclude=(first,))
        st.emit(ev.LeaderSucceeded(faction=fid, character=heir.id, name=heir.name, traits=(first, str(second)),
                                   trait_dice=faces, from_statesman=True), "public")
    elif f.kind == "neutral":
        # §7.5 default: the GM appoints a new neutral leader with one random trait
        a, fa = st.random_trait(f"succession.{fid}.a")
        st.emit(ev.LeaderSucceeded(faction=fid, character=f"{fid}.leader{st.s.turn}", name=f"new leader of {f.name}",
                                   traits=(a,), trait_dice=fa), "public")
    else:
        a, fa = st.random_trait(f"succession.{fid}.a")
        b, fb = st.random_trait(f"succession.{fid}.b", exclude=(a,))
        cid = f"{fid}.leader{st.s.turn}"
        st.emit(ev.LeaderSucceeded(faction=fid, character=cid, name=f"new leader of {f.name}", traits=(a, b),
                                   trait_dice=fa + fb), "public")
        if "voice_of_the_people" in f.traits:
            st.emit(ev.UpkeepFlagged(faction=fid, kind="elections", detail="the doge died: elections"), "gm")
    if "absolute_power" in f.traits:
        t, faces = st.random_trait(f"succession.{fid}.newheir")
        cid = f"{fid}.heir{st.s.turn}"
        st.emit(ev.CharacterCreated(character=cid, faction=fid, name=f"heir of {f.name} ({st.s.turn})",
                                    role="statesman", traits=(t,), trait_source="random", trait_dice=faces,
                                    is_heir=True),
                vis(st.s, fid))


# ---------------------------------------------------------------------------------------------- phase 3: war

def _fighters(st: Step, ids: list[str] | tuple[str, ...], fid: str) -> tuple[Fighter, ...]:
    out = []
    for cid in ids:
        c = st.s.characters.get(cid)
        if c is None or c.condition != "active" or c.employer != fid:
            continue  # the wounded, the dead and those who changed sides do not fight for fid
        general = "general" in c.traits or (c.role == "leader" and bool(st.cfg.get("leader_always_general")))
        spy_of = c.true_master if c.agent_kind in ("spy", "double_agent") and c.true_master != fid else None
        believed = tuple(b for b, agents in st.s.believed_spies.items() if cid in agents)
        out.append(Fighter(cid, c.role == "leader", general, spy_of, believed))
    return tuple(out)


def _commander(st: Step, fid: str, chars: tuple[Fighter, ...], named: str | None) -> str | None:
    for f in chars:
        if f.leader:
            return f.id
    if named and any(f.id == named for f in chars):
        return named
    return chars[0].id if chars else None


def decide_p3(state: SignoriaState, choices: Mapping[str, Any], dice: Dice) -> list[Draft]:
    """§5: campaigns launch and arrive, defenders respond, battles are fought round by round, sieges, storms."""
    st = Step(state, "p3_war", dice)
    responses = dict(choices.get("responses") or {})
    declarations = dict(choices.get("declarations") or {})
    # surrender or sally of a starving garrison (§5.11)
    for fid, o in st.orders_for(("storm", "sally")):
        camp = next((c for c in st.s.campaigns.values()
                     if (o.action == "storm" and c.faction == fid and c.target == o.target) or
                     (o.action == "sally" and st.s.provinces[c.target].owner == fid and c.target == o.target)), None)
        if camp is None:
            raise st.err(f"order {o.id}: no siege at {o.target} to {o.action}", "§5.11")
        if o.action == "storm":
            defender = st.s.provinces[camp.target].owner
            _battle(st, camp.id, "storm", fid, defender, declarations, responses)
        else:
            _battle(st, camp.id, "sally", fid, camp.faction, declarations, responses, sally_order=o)
    for pid in list(st.s.starving):
        sp = st.s.provinces[pid]
        if sp.siege_since is not None and sp.occupier:
            st.emit(ev.ProvinceStatusChanged(province=pid, change="captured", by=sp.occupier, owner=sp.occupier),
                    "public")
    for fid, o in st.orders_for("war"):
        p = o.params
        tgt = st.s.provinces[str(o.target)]
        route = _route(st.s, fid, tgt.id)
        cid = f"{st.s.turn}.{fid}.{o.id}"
        chars = tuple(p.get("characters", []))
        st.emit(ev.CampaignLaunched(campaign=cid, faction=fid, order=o.id, target=tgt.id, units=int(p["units"]),
                                    characters=chars, commander=p.get("commander"), route=route,
                                    tactic=str(p.get("tactic", "hold")), conditional=p.get("if_defence"),
                                    reserve=int(p.get("reserve", 0))),
                vis(st.s, fid), actor=fid)
        if route == "transit":
            st.emit(ev.UpkeepFlagged(faction=fid, kind="transit", detail=f"{cid} crosses a neutral's land"), "gm")
            continue
        _arrive(st, cid, responses, declarations)
    for c in list(st.s.campaigns.values()):
        if c.status == "in_transit" and c.id.split(".")[0] != str(st.s.turn):
            _arrive(st, c.id, responses, declarations)
    _rulings(st, choices.get("rulings") or [])
    stray = sorted((set(responses) | set(declarations)) - st.used)
    if stray:
        raise InputError(f"[{st.step}] no campaign or battle {', '.join(stray)} this turn "
                         f"(known: {', '.join(sorted(st.used)) or 'none'})")
    return st.drafts


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


def _arrive(st: Step, cid: str, responses: Mapping[str, Any], declarations: Mapping[str, Any]) -> None:
    st.used.add(cid)
    camp = st.s.campaigns[cid]
    tgt = st.s.provinces[camp.target]
    defender = tgt.owner
    st.emit(ev.CampaignArrived(campaign=cid, faction=camp.faction, province=tgt.id, route=camp.route), "public")
    dfac = st.s.factions[defender]
    if dfac.kind == "neutral":
        _neutral_attacked(st, defender, camp.faction)
    # the GM's record of the defender's answer, else its standing instruction, else the defaults (G-34)
    standing = st.s.orders[defender].standing.get("response") if defender in st.s.orders else None
    resp = dict(responses.get(cid) or standing or {})
    if not resp:
        if dfac.kind == "neutral" and "defends_on_principle" in dfac.keys:
            resp = {"response": "defence"}
        else:
            resp = {"response": st.cfg.get("default_defender_response", "battle"), "tactic": "hold",
                    "characters": "all"}
    if resp.get("response") not in ("battle", "defence"):
        raise st.err(f"defender response must be battle or defence, got {resp.get('response')!r}", "§5.2")
    chars = resp.get("characters", [])
    if chars == "all":
        chars = [c for c in ([dfac.leader] if dfac.leader else []) + list(dfac.statesmen)
                 if st.s.characters[c].condition == "active"]
    for c in chars:
        ch = st.s.characters.get(c)
        if ch is None or ch.employer != defender or ch.condition != "active":
            raise st.err(f"{c!r} cannot join {defender}'s defence (not an unwounded character at home)", "§3.7")
    st.emit(ev.DefenderResponded(campaign=cid, defender=defender, response=resp["response"],
                                 tactic=resp.get("tactic") if resp["response"] == "battle" else None,
                                 characters=tuple(chars), commander=resp.get("commander"),
                                 reserve=int(resp.get("reserve", 0))), vis(st.s, defender, camp.faction),
            actor=defender if dfac.kind == "player" else "gm")
    if resp["response"] == "battle":
        _battle(st, cid, "field", camp.faction, defender, declarations, responses, defence=resp)
    elif camp.conditional == "storm":
        _battle(st, cid, "storm", camp.faction, defender, declarations, responses)
    else:
        st.emit(ev.ProvinceStatusChanged(province=tgt.id, change="siege_started", by=camp.faction, owner=defender,
                                         campaign=cid), "public")


def _neutral_attacked(st: Step, neutral: str, attacker: str) -> None:
    """§7.6: the attacked neutral allies at once with another player faction; Gusso aids against a brother attack."""
    others = [f for f in st.s.players() if f != attacker]
    if not others:
        return
    others.sort(key=lambda f: -st.s.factions[f].standing.get(neutral, 0))
    called = others[0]
    for t in list(st.s.treaties.values()):
        if t.active and t.neutral == neutral and t.type == "military_alliance" and \
                bool(st.cfg.get("neutral_alliance_exclusive", True)) and attacker not in t.parties:
            st.emit(ev.TreatyEnded(treaty=t.id, reason="replaced"), vis(st.s, *t.parties))
    st.emit(ev.NeutralReaction(neutral=neutral, key="call_for_help", reaction="alliance", beneficiary=called),
            vis(st.s, called))
    st.emit(ev.TreatyConcluded(treaty=f"{neutral}.alliance.{st.s.turn}", kind="military_alliance",
                               parties=(called,), neutral=neutral, stake="high",
                               aid_units=aid_size(st.s.factions[neutral].army or 0)), vis(st.s, called))
    if neutral == "felmonte" and "gusso" in st.s.factions and not st.s.factions["gusso"].captured_by:
        st.emit(ev.NeutralReaction(neutral="gusso", key="aids_against_brother_attack", reaction="aid",
                                   beneficiary=called), vis(st.s, called))
        st.emit(ev.TreatyConcluded(treaty=f"gusso.aid.{st.s.turn}", kind="military_aid", parties=(called,),
                                   neutral="gusso", stake="high", aid_units=aid_size(st.s.factions["gusso"].army or 0),
                                   expires_turn=st.s.turn + 1), vis(st.s, called))


def _aid(st: Step, fid: str, enemy: str) -> tuple[int, list[str]]:
    """Neutral units joining ``fid``'s battle (§7.2): alliances always, aid while it lasts."""
    units = 0
    who = []
    if st.s.factions[fid].kind != "player":
        return 0, []
    for t in st.s.active_treaties(fid):
        if t.type in ("military_alliance", "military_aid") and t.neutral and t.neutral != enemy and \
                not st.s.factions[t.neutral].captured_by:
            n = st.s.factions[t.neutral]
            size = min(aid_size(n.army or 0), n.army or 0)
            units += size
            who.append(t.neutral)
    return units, who


def _battle(st: Step, cid: str, kind: str, attacker: str, defender: str, declarations: Mapping[str, Any],
            responses: Mapping[str, Any], defence: Mapping[str, Any] | None = None,
            sally_order: Order | None = None) -> None:
    """Set up, fight (battle.fight) and record one battle, then its aftermath (§5.8, §5.11, §5.13)."""
    camp = st.s.campaigns[cid]
    winter = st.s.season == "winter"
    wmod = int(st.cfg.get("winter_attacker_threshold_mod", 1)) if winter else 0
    bid = f"b{st.s.turn}.{sum(1 for b in st.s.battles if b.turn == st.s.turn) + 1}"
    if kind == "sally":
        o = sally_order
        assert o is not None
        a_units = st.home_force(attacker)
        a_chars = _fighters(st, o.params.get("characters", []), attacker)
        a_tactic: str | None = str(o.params.get("tactic", "hold"))
        a_res = int(o.params.get("reserve", 0))
        d_units = camp.units or 0
        d_chars = _fighters(st, camp.characters, defender)
        d_tactic: str | None = camp.tactic
        d_res = 0
    else:
        a_units = camp.units or 0
        a_chars = _fighters(st, camp.characters, attacker)
        a_tactic = None if kind == "storm" else camp.tactic
        a_res = 0 if kind == "storm" else (camp.reserve or 0)
        d_units = st.home_force(defender)
        dresp = dict(defence or responses.get(cid) or {})
        dchars = dresp.get("characters", "all")
        dfac = st.s.factions[defender]
        if dchars == "all":
            dchars = [c for c in ([dfac.leader] if dfac.leader else []) + list(dfac.statesmen)]
        d_chars = _fighters(st, dchars, defender)
        d_tactic = dresp.get("tactic", "hold")
        if kind == "storm" and dfac.kind == "neutral" and "no_storm_tactic" in dfac.keys:
            d_tactic = None
        d_res = int(dresp.get("reserve", 0))
    a_aid, a_who = _aid(st, attacker, defender)
    d_aid, d_who = _aid(st, defender, attacker)
    a = SideSetup(attacker, a_units + a_aid, a_tactic, a_res, a_chars,
                  _commander(st, attacker, a_chars, camp.commander if kind != "sally" else None),
                  "bloody_dukes" in st.s.factions[attacker].traits, wmod, a_aid)
    d = SideSetup(defender, d_units + d_aid, d_tactic, d_res, d_chars,
                  _commander(st, defender, d_chars, None), "bloody_dukes" in st.s.factions[defender].traits, 0,
                  d_aid)
    setup = BattleSetup(bid, a, d, max_rounds=int(st.cfg.get("max_rounds", 3)),
                        threshold_cap=int(st.cfg.get("threshold_cap", 6)),
                        explosions_chain=bool(st.cfg.get("explosions_chain", True)),
                        both_broken=str(st.cfg.get("both_broken", "defender")))
    st.used.update((cid, bid))
    raw = declarations.get(cid) or declarations.get(bid) or {}
    decl = {int(k): list(v) for k, v in dict(raw).items()}

    def roll(key: str, n: int) -> list[int]:
        return st.d6(key, n)

    result = fight(setup, decl, roll)
    both = vis(st.s, attacker, defender)
    forces = {
        side.faction: {"units": side.units, "reserve": side.reserve, "tactic": side.tactic,
                       "characters": [f.id for f in side.characters], "commander": side.commander,
                       "contingents": who, "threshold_mod": side.threshold_mod}
        for side, who in ((a, a_who), (d, d_who))
    }
    st.emit(ev.BattleOpened(battle=bid, kind=kind, province=camp.target, attacker=attacker, defender=defender,
                            forces=forces, season=st.s.season), both)
    for rec in result.rounds:
        st.emit(ev.BattleRound(battle=bid, round=rec["round"], declarations=tuple(rec["declarations"]),
                               sides=rec["sides"]), both)
    st.emit(ev.BattleEnded(battle=bid, province=camp.target, attacker=attacker, defender=defender,
                           winner=result.winner, reason=result.reason,
                           killed={k: v - result.contingent_killed.get(k, 0) for k, v in result.killed.items()},
                           contingent_killed=dict(result.contingent_killed),
                           routed_at_end=dict(result.routed_at_end)), both)
    st.emit(ev.BattleReported(battle=bid, province=camp.target, attacker=attacker, defender=defender,
                              winner=result.winner), "public")
    for side, who in ((a, a_who), (d, d_who)):
        lost = result.contingent_killed.get(side.faction, 0)
        for n in who:
            if lost:
                take = min(lost, st.s.factions[n].army or 0)
                st.adjust(n, "army", -take, f"killed in {bid}", visible_to="gm")
                lost -= take
    for side_fac, who in ((attacker, a_who), (defender, d_who)):
        for t in list(st.s.active_treaties(side_fac)):
            if t.type == "military_aid" and t.neutral in who:
                st.emit(ev.TreatyEnded(treaty=t.id, reason="aid used"), vis(st.s, side_fac))
    # intel from the battle (§5.9)
    for me, other, side in ((attacker, defender, d), (defender, attacker, a)):
        if st.s.factions[me].kind == "player":
            seen = [{"id": f.id, "name": st.s.characters[f.id].name, "traits": list(st.s.characters[f.id].traits)}
                    for f in side.characters]
            st.emit(ev.IntelRecorded(observer=me, subject=other,
                                     fields={"units_in_battle": side.units - side.contingent,
                                             "characters_in_battle": seen},
                                     turn=st.s.turn, phase=st.step, source="battle"), vis(st.s, me))
    for spy in result.defected:
        ch = st.s.characters[spy]
        if st.cfg.get("spy_exposed_on_defection", True) and ch.true_master:
            st.emit(ev.SpyExposed(agent=spy, master=ch.true_master, host=ch.employer),
                    vis(st.s, ch.employer, ch.true_master))
            st.emit(ev.StatesmanDefected(character=spy, from_faction=ch.employer, to_faction=ch.true_master,
                                         kind="exposure"), vis(st.s, ch.employer, ch.true_master))
    # war outcome effects (§5.13)
    win_att = result.winner == attacker
    if win_att:
        st.adjust(attacker, "power", 1, f"won {bid}")
        st.adjust(defender, "power", -1, f"lost {bid}")
        st.adjust(defender, "piety", -1, f"lost {bid}")
    else:
        st.adjust(defender, "power", 1, f"won {bid}")
        st.adjust(attacker, "power", -1, f"lost {bid}")
        st.adjust(attacker, "piety", -1, f"lost {bid}")
        st.adjust(attacker, "wealth", -1, f"lost {bid}")
    prov = camp.target
    if kind == "sally":
        if win_att:
            st.emit(ev.ProvinceStatusChanged(province=prov, change="siege_ended", by=camp.faction, owner=attacker,
                                             campaign=cid), "public")
            st.emit(ev.CampaignReturned(campaign=cid, faction=camp.faction), "public")
        else:
            st.emit(ev.ProvinceStatusChanged(province=prov, change="captured", by=camp.faction, owner=camp.faction,
                                             campaign=cid), "public")
        return
    if win_att:
        if kind == "storm" or st.home_force(defender) == 0:
            st.emit(ev.ProvinceStatusChanged(province=prov, change="captured", by=attacker, owner=attacker,
                                             campaign=cid), "public")
        else:
            st.emit(ev.ProvinceStatusChanged(province=prov, change="occupied", by=attacker, owner=defender,
                                             campaign=cid), "public")
            st.emit(ev.ProvinceStatusChanged(province=prov, change="siege_started", by=attacker, owner=defender,
                                             campaign=cid), "public")
    else:
        if st.s.provinces[prov].occupier == attacker:
            st.emit(ev.ProvinceStatusChanged(province=prov, change="siege_ended", by=attacker, owner=defender,
                                             campaign=cid), "public")
        st.emit(ev.CampaignReturned(campaign=cid, faction=attacker), "public")


# ---------------------------------------------------------------------------------------------- phase 4: diplomacy

def decide_p4(state: SignoriaState, choices: Mapping[str, Any], dice: Dice) -> list[Draft]:
    """§7 diplomacy with neutrals (grouped by neutral), then player treaties (§4.1 A4)."""
    st = Step(state, "p4_diplomacy", dice)
    trade_winners: dict[str, tuple[str, Order, int]] = {}
    for n in st.s.neutrals():
        for fid, o in [(f, o) for f, o in st.orders_for(NEUTRAL_GOALS) if o.target == n]:
            standing = st.s.factions[fid].standing.get(n, 0)
            pen = 0
            t = neutral_threshold(o.stake, standing, pen, int(st.cfg.get("threshold_clamp_low", 2)),
                                  int(st.cfg.get("threshold_clamp_high", 12)))
            if o.action == "military_aid":
                against = o.params.get("against")
                pen = sum(int(st.cfg.get("pact_aid_penalty", 1)) for tr in st.s.treaties.values()
                          if tr.active and tr.neutral == n and tr.type == "non_aggression" and against in tr.parties)
                t = clamp(t + pen, 2, 12)
            if o.action in ("military_alliance", "legitimacy"):
                count = sum(1 for tr in st.s.active_treaties(fid, n) if tr.type in COUNTED_TREATIES)
                if count < 2:
                    st.record(fid, o, "refused_prerequisite", target=n, detail={"treaties": count})
                    continue
            ok, rolls, r, total = st.act(fid, o, t)
            st.record(fid, o, "success" if ok else "failure", threshold=t, r=r, rolls=rolls, target=n,
                      detail={"standing": standing, "penalty": pen})
            if not ok:
                continue
            size = 1 if o.stake == "low" else 2
            if o.action == "improve_relations":
                st.emit(ev.StandingChanged(neutral=n, faction=fid, delta=size, cause="improve_relations"),
                        vis(st.s, fid))
            elif o.action == "turn_against":
                other = str(o.params["against"])
                cause = "turned against" if not st.cfg.get("reveal_intrigue_author") else f"turned against by {fid}"
                st.emit(ev.StandingChanged(neutral=n, faction=other, delta=-size, cause=cause), vis(st.s, other))
            elif o.action == "trade":
                cur = trade_winners.get(n)
                if cur is None or STAKE_RANK[o.stake] > STAKE_RANK[cur[1].stake] or \
                        (o.stake == cur[1].stake and total > cur[2]):
                    trade_winners[n] = (fid, o, total)
            elif o.action == "legitimacy":
                st.emit(ev.LegitimacyLetterSent(neutral=n, faction=fid), vis(st.s, fid))
            else:
                kind = TREATY_KIND[o.action]
                if kind == "military_alliance" and st.cfg.get("neutral_alliance_exclusive", True):
                    for tr in list(st.s.treaties.values()):
                        if tr.active and tr.neutral == n and tr.type == "military_alliance":
                            st.emit(ev.TreatyEnded(treaty=tr.id, reason="replaced"), vis(st.s, *tr.parties))
                aid = aid_size(st.s.factions[n].army or 0) if kind in ("military_aid", "military_alliance") else 0
                st.emit(ev.TreatyConcluded(treaty=f"{n}.{o.action}.{fid}.{st.s.turn}", kind=kind, parties=(fid,),
                                           neutral=n, stake=o.stake, aid_units=aid,
                                           expires_turn=st.s.turn + 1 if kind == "military_aid" else None),
                        vis(st.s, fid))
        if n in trade_winners:
            fid, o, _ = trade_winners[n]
            existing = next((tr for tr in st.s.treaties.values() if tr.active and tr.neutral == n and
                             tr.type == "trade"), None)
            if existing is not None and existing.parties == (fid,):
                continue
            if existing is not None and STAKE_RANK[o.stake] <= STAKE_RANK[existing.stake]:
                st.emit(ev.FactionNotified(faction=fid, kind="trade_refused",
                                           text=f"{n} keeps its existing trade agreement"), vis(st.s, fid))
                continue
            if existing is not None:
                st.emit(ev.TreatyEnded(treaty=existing.id, reason="outbid"), vis(st.s, *existing.parties))
                who = f" by {fid}" if st.cfg.get("reveal_new_trade_holder", True) else ""
                for holder in existing.parties:
                    st.emit(ev.FactionNotified(faction=holder, kind="trade_outbid",
                                               text=f"your trade agreement with {n} was outbid{who}",
                                               data={"by": fid} if who else {}), vis(st.s, holder))
            shown = vis(st.s, fid, *(existing.parties if existing and st.cfg.get("reveal_new_trade_holder", True)
                                     else ()))
            st.emit(ev.TreatyConcluded(treaty=f"{n}.trade.{fid}.{st.s.turn}", kind="trade", parties=(fid,),
                                       neutral=n, stake=o.stake), shown)
    # player treaties: both sides must order matching terms this turn
    pt = st.orders_for("player_treaty")
    done: set[str] = set()
    for fid, o in pt:
        if fid in done:
            continue
        match = next(((g, p) for g, p in pt if g == o.target and p.target == fid and
                      p.params.get("terms") == o.params.get("terms")), None)
        st.record(fid, o, "concluded" if match else "no_match", target=o.target)
        if match:
            g, p = match
            st.record(g, p, "concluded", target=fid)
            st.emit(ev.TreatyConcluded(treaty=f"pt.{fid}.{g}.{st.s.turn}", kind="player_treaty", parties=(fid, g),
                                       stake="elementary"), vis(st.s, fid, g))
            st.adjust(fid, "wealth", 1, "treaty")
            st.adjust(g, "wealth", 1, "treaty")
            done.update((fid, g))
    _rulings(st, choices.get("rulings") or [])
    return st.drafts


# ---------------------------------------------------------------------------------------------- phase 5: hiring

def decide_p5(state: SignoriaState, choices: Mapping[str, Any], dice: Dice) -> list[Draft]:
    """§4.3 phase 5: dismissals -> statesmen -> troops -> heir."""
    st = Step(state, "p5_hiring", dice)
    for fid, o in st.orders_for("dismiss"):
        st.emit(ev.StatesmanDismissed(faction=fid, character=str(o.target), reason="choice"), vis(st.s, fid))
    plants = _pending_plants(st.s)
    for fid, o in st.orders_for("hire_statesman"):
        cand = next(c for c in st.s.candidates.get(fid, ()) if c.id == o.target)
        if st.cfg.get("statesman_cap_equals_power", True) and \
                len(st.s.factions[fid].statesmen) >= (st.s.factions[fid].power or 0):
            st.record(fid, o, "refused_cap", target=cand.id)
            continue
        if (st.s.factions[fid].wealth or 0) < cand.cost:
            st.record(fid, o, "refused_wealth", target=cand.id)
            continue
        st.record(fid, o, "hired", target=cand.id)
        st.emit(ev.StatesmanHired(faction=fid, candidate=cand.id, name=cand.name, trait=cand.trait, cost=cand.cost),
                vis(st.s, fid), actor=fid)
        agent = st.s.aliases.get(cand.id)
        if agent is not None and agent in plants:
            master = st.s.characters[agent].true_master or ""
            st.emit(ev.SpyPlaced(agent=agent, master=master, host=fid), vis(st.s, master))
    for fid, o in st.orders_for("hire_troops"):
        n = min(int(o.params["units"]), st.s.factions[fid].wealth or 0)
        st.record(fid, o, "hired", detail={"units": n})
        if n:
            st.emit(ev.TroopsHired(faction=fid, units=n, cost=n), vis(st.s, fid), actor=fid)
    for fid, o in st.orders_for("designate_heir"):
        st.emit(ev.HeirDesignated(faction=fid, character=str(o.target)), vis(st.s, fid), actor=fid)
    _rulings(st, choices.get("rulings") or [])
    return st.drafts


# ---------------------------------------------------------------------------------------------- upkeep

def decide_upkeep(state: SignoriaState, choices: Mapping[str, Any], dice: Dice) -> list[Draft]:
    """§4.3 upkeep: plunder, siege starvation, cap, flags, elimination, wounds expire, turn closes."""
    st = Step(state, "upkeep", dice)
    # plunder (§5.12): once per province per turn, transferred to the occupier
    for p in st.s.provinces.values():
        if p.occupier and p.occupier != p.owner and st.s.factions[p.owner].kind == "player":
            st.adjust(p.owner, "wealth", -1, f"plunder of {p.id}")
            if st.cfg.get("plunder_transfers", True):
                st.adjust(p.occupier, "wealth", 1, f"plunder of {p.id}")
    # siege starvation (§5.11): a besieged faction at 0 wealth must sally or surrender next turn
    for p in list(st.s.provinces.values()):
        if p.siege_since is not None and p.occupier and (st.s.factions[p.owner].wealth or 0) == 0 \
                and p.id not in st.s.starving:
            st.emit(ev.UpkeepFlagged(faction=p.owner, kind="starving", detail=p.id), vis(st.s, p.owner))
    # statesman cap (§4.7): dismiss the most recently hired unless the owner chose
    picks = dict(choices.get("dismiss") or {})
    for fid in st.s.players():
        f = st.s.factions[fid]
        cap = f.power or 0
        smen = st.s.statesmen_of(fid)
        if st.cfg.get("statesman_cap_equals_power", True) and len(smen) > cap:
            chosen = list(picks.get(fid, []))
            order = chosen + [c.id for c in sorted(smen, key=lambda c: -c.hired_turn) if c.id not in chosen]
            for cid in order[: len(smen) - cap]:
                st.emit(ev.StatesmanDismissed(faction=fid, character=cid, reason="cap"), vis(st.s, fid))
    low = int(st.cfg.get("low_resource_threshold", 1))
    dis = int(st.cfg.get("disloyalty_threshold", 1))
    for fid in st.s.players():
        f = st.s.factions[fid]
        for r in RESOURCES:
            if (getattr(f, r) or 0) <= low:
                st.emit(ev.UpkeepFlagged(faction=fid, kind="low_resource", detail=f"{r} {getattr(f, r)}"), "gm")
        for c in st.s.statesmen_of(fid):
            par = traits()[c.traits[0]].parameter if c.traits and c.traits[0] in traits() else ""
            if par and (getattr(f, par) or 0) <= dis:
                st.emit(ev.UpkeepFlagged(faction=fid, kind="trait_trap",
                                         detail=f"{c.id} ({c.traits[0]}) unhappy: {par} {getattr(f, par)}"), "gm")
        if "voice_of_the_people" in f.traits and (f.power or 0) <= 1:
            st.emit(ev.UpkeepFlagged(faction=fid, kind="council_vote", detail=f"power {f.power}"), "gm")
    for fid in st.s.players():
        if not any(p.owner == fid for p in st.s.provinces.values()):
            st.emit(ev.FactionEliminated(faction=fid, reason="no provinces"), "public")
    for c in list(st.s.characters.values()):
        if c.condition == "wounded":
            st.emit(ev.CharacterStatusChanged(character=c.id, condition="active", cause="wound healed"),
                    vis(st.s, c.employer))
    # unhired planted agents come home (§6.2 step 3)
    for agent, (host, turn) in list(st.s.plants.items()):
        ag = st.s.characters.get(agent)
        if ag is not None and turn == st.s.turn - 1 and agent not in st.s.spies and ag.condition == "departed":
            master = ag.true_master or ""
            st.emit(ev.StatesmanDefected(character=agent, from_faction=host, to_faction=master,
                                         kind="infiltration_failed"), vis(st.s, master))
            st.emit(ev.CharacterStatusChanged(character=agent, condition="active", cause="came home"),
                    vis(st.s, master))
    _rulings(st, choices.get("rulings") or [])
    if st.cfg.get("reveal_orders_after_turn"):
        for fid, od in st.s.orders.items():
            st.emit(ev.OrdersRevealed(turn=st.s.turn, faction=fid,
                                      orders=tuple(o.model_dump(mode="json") for o in od.orders)), "public")
    alive = st.s.players()
    if len(alive) == 1:
        st.emit(ev.GameEnded(winner=alive[0], reason="all competitors eliminated"), "public")
    st.emit(ev.TurnClosed(turn=st.s.turn), "public")
    return st.drafts


def decide_final(state: SignoriaState, choices: Mapping[str, Any], dice: Dice) -> list[Draft]:
    """Turn 12 (G-40): the final tally by the default formula; the GM's verdict may override the winner."""
    st = Step(state, "final_tally", dice)
    st.emit(ev.TurnOpened(turn=state.turn + 1, season="tally", year_label="Summing up"), "public")
    pts = int(st.cfg.get("legitimacy_points", 5))
    scores: dict[str, dict[str, int]] = {}
    for fid in st.s.players():
        f = st.s.factions[fid]
        provs = sum(1 for p in st.s.provinces.values() if p.owner == fid)
        comp = {"power": f.power or 0, "piety": f.piety or 0, "wealth": f.wealth or 0, "army": f.army or 0,
                "provinces": provs, "letters": len(f.letters)}
        comp["total"] = final_score(comp["power"], comp["piety"], comp["wealth"], comp["army"], provs,
                                    len(f.letters), pts)
        scores[fid] = comp
    best = max((v["total"] for v in scores.values()), default=0)
    top = [k for k, v in scores.items() if v["total"] == best]
    winner = choices.get("winner") or (top[0] if len(top) == 1 else None)
    st.emit(ev.FinalTallyRecorded(scores=scores, winner=winner, felmonte_verdict=str(choices.get("felmonte", "")),
                                  text=str(choices.get("verdict", ""))), "public")
    st.emit(ev.GameEnded(winner=winner, reason="final tally"), "public")
    return st.drafts
