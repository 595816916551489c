"""The pf2e handlers of the shared effect interpreter (``kingdomlog.core.effects.run_effects``).

Activities, kingdom events, structures and feats describe what they do as ``tables.Effect`` rows (data,
never code); ``Run.apply`` walks them with ``core.effects.run_effects`` and applies each kind here. A ``Run``
knows the check it belongs to: the step's ``Asked`` choices, the row's ``Picks``, the cause recorded in
every event it emits (``name``), what the activity prepared (``prep``: the traded quantity ``q``, the
agreements managed ``m``, the targeted Ruin, hex, settlement, structure, group or event, the RP it paid) and
the degree of its check. A condition (``when``) reads ``Run.facts``: the kingdom's facts (``state_facts``)
and the check's (``used_last_turn``, ``not_used_last_turn``, ``degree``, ``target``, the target hex's
``terrain`` / ``river`` / ``lake`` / ``features``, ``q``, ``m``).

Effect kinds (data/activities.toml header describes their fields):

- figures: ``rp`` (negative: a forced cost, §3.0.3), ``spend_rp`` (a voluntary cost), ``refund_rp``,
  ``rp_no_xp``, ``unrest``, ``fame``, ``xp``, ``ruin``, ``ruin_penalty``, ``ruin_threshold``, ``commodity``,
  ``food_loss``, ``pending``, ``trade_goods``;
- bookkeeping: ``modifier``, ``cooldown``, ``treasury_debt``, ``boon``, ``extra_region``, ``flat_check``
  (options = [on failure, on success]), ``gm`` (a GM ruling's note, recorded), ``choose`` (core);
- the map: ``claim_hex``, ``work_site``, ``farmland``, ``roads``, ``fortify``, ``irrigate``, ``abandon_hex``,
  ``destroy_feature``, ``settlement``, ``crop_failure_watch``;
- settlements: ``build``, ``demolish``, ``rubble``, ``damage``, ``relocate_capital``;
- relations and events: ``relations``, ``end_event``, ``event_watch``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kingdomlog.core.effects import Effect as CoreEffect
from kingdomlog.core.effects import fill, run_effects
from kingdomlog.core.errors import InputError
from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e import rules as R
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.engine import (
    Asked,
    Ctx,
    Picks,
    add_ruin,
    amount,
    default_ruins,
    flat,
    gain_commodity,
    hex_of,
    pick_ruins,
    roll,
    spend_rp,
    unrest,
)
from kingdomlog.rulesets.pf2e.hexmap import auto_second
from kingdomlog.rulesets.pf2e.state import fame_max, feat_unrest_reduction, state_facts


class Redirect(Exception):
    """An outcome that turns into another degree's (Celebrate Holiday, Establish Settlement: "if you cannot pay
    this cost, treat the result as a critical failure")."""

    def __init__(self, degree: str, why: str) -> None:
        super().__init__(why)
        self.degree = degree
        self.why = why


_NEEDS = {"ruin": "a Ruin targeted", "hex": "a hex", "commodity": "a commodity", "settlement": "a settlement",
          "settlement_id": "a settlement to found", "settlement_name": "a settlement to found",
          "army_new": "an army to recruit", "tactic": "a tactic", "gear": "army gear"}
"""What an effect's ``need`` is, in words."""


class Run:
    """One list of effects applied for one check or rule (see the module doc)."""

    def __init__(self, ctx: Ctx, asked: Asked, picks: Picks, name: str, prep: Mapping[str, Any] | None = None,
                 degree: str = "") -> None:
        self.ctx = ctx
        self.asked = asked
        self.picks = picks
        self.name = name
        self.prep: dict[str, Any] = prep if isinstance(prep, dict) else dict(prep or {})
        self.degree = degree
        self._chosen = 0
        self.last = 0
        """The value of the effect before (an amount "last": "increase your Crime by an equal amount")."""
        self.handlers: dict[str, Callable[[Any, str], None]] = {
            "rp": self._rp, "spend_rp": self._spend_rp, "refund_rp": self._refund_rp, "rp_no_xp": self._rp_no_xp,
            "unrest": self._unrest, "fame": self._fame, "xp": self._xp, "ruin": self._ruin,
            "ruin_penalty": self._ruin, "ruin_threshold": self._ruin_threshold, "commodity": self._commodity,
            "food_loss": self._food_loss, "pending": self._pending, "trade_goods": self._trade_goods,
            "modifier": self._modifier, "cooldown": self._cooldown, "treasury_debt": self._treasury_debt,
            "boon": self._boon, "extra_region": self._extra_region, "flat_check": self._flat_check,
            "gm": self._gm, "claim_hex": self._claim_hex, "work_site": self._work_site, "farmland": self._lines,
            "roads": self._lines, "fortify": self._fortify, "irrigate": self._irrigate,
            "abandon_hex": self._abandon_hex, "destroy_feature": self._destroy_feature,
            "settlement": self._settlement, "crop_failure_watch": self._crop_watch, "build": self._build,
            "demolish": self._demolish, "rubble": self._rubble, "damage": self._damage,
            "relocate_capital": self._relocate, "relations": self._relations, "end_event": self._end_event,
            "event_watch": self._event_watch, "flag": self._flag, "unlock": self._unlock,
            "gift_structure": self._gift_structure, "commodity_per_die": self._commodity_per_die,
            "army_recruit": self._army_recruit, "army_condition": self._army_condition, "army_hp": self._army_hp,
            "army_move": self._army_move, "army_tactic": self._army_tactic, "army_gear": self._army_gear,
            "army_disband": self._army_disband, "army_consumption": self._army_consumption,
        }

    # ---------------------------------------------------------------- driving

    def apply(self, effects: list[T.Effect], key: str) -> None:
        """Apply ``effects`` in order (roll keys ``key.e1`` ...)."""
        run_effects(list(effects), self.handlers, facts=self.facts, choose=self._choose, key=key)

    def again(self, effects: list[T.Effect], key: str, name: str, *, fresh_picks: bool = False) -> None:
        """Apply more effects for the same step (a structure's own effects when it is built)."""
        Run(self.ctx, self.asked, Picks() if fresh_picks else self.picks, name).apply(effects, key)

    def facts(self) -> dict[str, Any]:
        """What an effect's condition reads (see the module doc)."""
        s = self.ctx.state
        used_last = any(u.name == self.name for u in s.used_last_turn)
        out = state_facts(s)
        out.update(used_last_turn=used_last, not_used_last_turn=not used_last, degree=self.degree,
                   target=str(self.prep.get("ruin") or self.prep.get("target") or ""),
                   q=int(self.prep.get("q", 0)), m=int(self.prep.get("m", 0)))
        hx = self.prep.get("hex")
        known = hex_of(s, hx.id) if hx is not None else None
        if known is not None:
            out.update(terrain=known.terrain, river=known.river, lake=known.lake, features=list(known.features),
                       hex_claimed=known.claimed)
        return out

    def _choose(self, eff: CoreEffect, key: str) -> int:
        """The branch of a ``choose`` effect: the row's ``options`` in order, else its ``option``."""
        i = self._chosen
        self._chosen += 1
        if self.picks.options:
            if i >= len(self.picks.options):
                raise InputError(f"{self.name}: 'options' names {len(self.picks.options)} branch(es); this outcome"
                                 f" asks for at least {i + 1}")
            return self.picks.options[i]
        return self.picks.option

    def need(self, name: str) -> Any:
        """What the check prepared for an effect (its hex, settlement, ...); a clear refusal when it has none.

        A GM-ruled effect may be of a kind the check never prepares for (a settlement founded by an
        event's ruling, a Ruin "targeted" by Collect Taxes): that is the GM's input to change, not a bug.
        """
        value = self.prep.get(name)
        if value is None or value == "":
            what = _NEEDS.get(name, name.replace("_", " "))
            raise InputError(f"{self.name}: this effect needs {what}, which this check does not have; change the"
                             " effect or pick it in the activity that provides it")
        return value

    def value(self, eff: Any, key: str, default: int | str = 0) -> tuple[int, list[int]]:
        """An effect's amount (dice rolled under ``key``), with the activity's symbols."""
        expr = eff.amount if eff.amount not in (0, "") else default
        half = int(self.prep.get("rp_paid", 0)) // 2
        extra = {"half": half, "settlements": len(self.ctx.state.settlements),
                 "hexes": sum(1 for h in self.ctx.state.hexes if h.claimed)}
        extra.update({k: int(v) for k, v in self.prep.get("symbols", {}).items()})
        extra["last"] = abs(self.last)
        val, faces = amount(self.ctx, expr, key, q=int(self.prep.get("q", 0)), m=int(self.prep.get("m", 0)),
                            extra=extra)
        self.last = val
        return val, faces

    def text(self, template: str) -> str:
        """A selector or key with the check's ``{target}``, ``{skill}``, ``{settlement}``, ``{event}`` filled in."""
        return fill(template, {k: self.prep.get(k) for k in ("target", "skill", "settlement", "event", "condition")})

    # ---------------------------------------------------------------- figures

    def _rp(self, eff: Any, key: str) -> None:
        val, faces = self.value(eff, key)
        if val >= 0:
            self.ctx.emit(E.RPChanged(delta=val, cause=self.name, faces=faces))
        else:
            spend_rp(self.ctx, self.asked, -val, self.name, forced=True, faces=faces)

    def _spend_rp(self, eff: Any, key: str) -> None:
        """A voluntary cost of an outcome (§3.0.3: refused when the treasury cannot pay it; ``target`` a degree:
        an unpayable cost turns the result into that degree, as the rules of the activity say)."""
        val, faces = self.value(eff, key)
        if eff.target and val > self.ctx.state.rp:
            raise Redirect(eff.target, f"{val} RP cannot be paid (the kingdom has {self.ctx.state.rp})")
        spend_rp(self.ctx, self.asked, val, self.name, faces=faces)

    def _refund_rp(self, eff: Any, key: str) -> None:
        val, faces = self.value(eff, key, "half")
        if val:
            self.ctx.emit(E.RPChanged(delta=val, cause=f"{self.name}: refund", faces=faces))

    def _rp_no_xp(self, eff: Any, key: str) -> None:
        val, faces = self.value(eff, key)
        if val:
            self.ctx.emit(E.RPChanged(delta=val, cause=self.name, faces=faces, no_xp=True))

    def _unrest(self, eff: Any, key: str) -> None:
        val, faces = self.value(eff, key)
        ctx = self.ctx
        # feats reducing Unrest further (Endure Anarchy) look at the Unrest before this reduction
        more = feat_unrest_reduction(ctx.state) if val < 0 and ctx.step.startswith("activity.") else []
        unrest(ctx, val, self.name, faces, asked=self.asked)
        for title, n in more:
            if ctx.state.unrest > 0:
                unrest(ctx, -min(n, ctx.state.unrest), f"feat {title}")

    def _fame(self, eff: Any, key: str) -> None:
        val, _ = self.value(eff, key)
        s = self.ctx.state
        self.ctx.emit(E.FameChanged(delta=val, reason=self.name,
                                    fame_after=max(0, min(fame_max(s), s.fame + val))))

    def _xp(self, eff: Any, key: str) -> None:
        val, _ = self.value(eff, key)
        self.ctx.emit(E.XPAwarded(amount=val, source=self.name, to_pending=True))

    def _ruins(self, eff: Any) -> list[str]:
        """The Ruins ``eff`` acts on, each one of ``T.RUINS`` (else an InputError naming the effect)."""
        ruins = self._ruin_names(eff)
        bad = [r for r in ruins if r not in T.RUINS]
        if bad:
            what = f"{bad[0]!r} is not a Ruin" if bad[0] else f"'{eff.kind}' names no Ruin"
            raise InputError(f"{self.name}: {what} (one of {', '.join(T.RUINS)})")
        return ruins

    def _ruin_names(self, eff: Any) -> list[str]:
        target = str(eff.target)
        count = int(eff.count)
        if target == "target":
            return [str(self.need("ruin"))] * count
        if target == "all":
            return list(T.RUINS) * count
        if target == "choice":
            return pick_ruins(self.ctx, self.picks.ruins, count)
        if target.startswith("choice-except:"):
            banned = target.split(":", 1)[1]
            given = [r for r in self.picks.ruins if r != banned]
            out = given[:count]
            if len(out) < count:
                out += default_ruins(self.ctx.state, count - len(out), exclude=[*out, banned])
            return out
        return [target] * count

    def _ruin(self, eff: Any, key: str) -> None:
        for i, r in enumerate(self._ruins(eff)):
            val, faces = self.value(eff, f"{key}.{i}")
            if eff.kind == "ruin":
                add_ruin(self.ctx, self.asked, r, val, self.name, key=f"{key}.{i}.flat", faces=faces)
            elif val:
                self.ctx.emit(E.RuinPenaltyChanged(ruin=r, delta=val, cause=self.name))

    def _ruin_threshold(self, eff: Any, key: str) -> None:
        for r in self._ruins(eff):
            val, _ = self.value(eff, key)
            after = self.ctx.state.ruin[r].threshold + val
            self.ctx.emit(E.RuinThresholdChanged(ruin=r, delta=val, threshold_after=after, cause=self.name))

    def _commodity(self, eff: Any, key: str) -> None:
        c = eff.target if eff.target not in ("choice", "") else self.picks.commodity
        if c == "target":
            c = str(self.prep.get("commodity") or self.picks.commodity)
        if c not in T.COMMODITIES:
            raise InputError(f"{self.name}: {c!r} is not a commodity")
        val, faces = self.value(eff, key)
        if val < 0:
            val = -min(-val, self.ctx.state.commodities[c])
        gain_commodity(self.ctx, c, val, self.name, faces)

    def _commodity_per_die(self, eff: Any, key: str) -> None:
        """For each of ``amount`` dice (Festive Invitation: the gifts), one Resource Die of the Commodity chosen
        for it (the row's ``gift_commodities`` in order, else ``commodity``), rolled under ``key.1``, ``key.2`` ...
        (KMT data/events/Festive Invitiation.json: "For each Resource Die you brought as a gift, choose a type of
        Commodity. Then roll the die; you gain that amount of that Commodity")."""
        n, _ = self.value(eff, key)
        chosen = list(self.prep.get("gift_commodities") or [])
        if len(chosen) > n:
            raise InputError(f"{self.name}: 'gift_commodities' names {len(chosen)} Commodities for {n} gift dice")
        for i in range(n):
            c = chosen[i] if i < len(chosen) else self.picks.commodity
            if c not in T.COMMODITIES:
                raise InputError(f"{self.name}: choose the Commodity of gift die {i + 1} ('gift_commodities' or"
                                 " 'commodity')")
            val, faces = amount(self.ctx, "rd", f"{key}.{i + 1}")
            gain_commodity(self.ctx, c, val, f"{self.name}: gift die {i + 1}", faces)

    def _food_loss(self, eff: Any, key: str) -> None:
        if self.ctx.state.commodities["food"] == 0:
            unrest(self.ctx, 1, f"{self.name}: no Food to lose")
            return
        val, faces = self.value(eff, key)
        gain_commodity(self.ctx, "food", -min(val, self.ctx.state.commodities["food"]), self.name, faces)

    def _pending(self, eff: Any, key: str) -> None:
        val, _ = self.value(eff, key)
        if not val:
            return
        kind, _, com = eff.target.partition(":")
        if kind == "commodity":
            com = com if com not in ("", "choice") else self.picks.commodity
            self.ctx.emit(E.PendingAdded(kind="commodity", amount=val, commodity=com, cause=self.name))
        else:
            self.ctx.emit(E.PendingAdded(kind=kind, amount=val, cause=self.name))

    def _trade_goods(self, eff: Any, key: str) -> None:
        for c, n in (self.prep.get("goods") or {}).items():
            self.ctx.emit(E.PendingAdded(kind="commodity", amount=int(n), commodity=c, cause=self.name))

    # ---------------------------------------------------------------- bookkeeping

    def _modifier(self, eff: Any, key: str) -> None:
        ctx = self.ctx
        mid = f"t{ctx.state.turn}.{ctx.step}.{key}"
        selector = self.text(eff.selector)
        ctx.emit(E.ModifierAdded(id=mid, source=self.name, kind=eff.type, value=eff.value, selector=selector,
                                 expires=eff.expires))

    def _cooldown(self, eff: Any, key: str) -> None:
        ck = self.text(eff.target.replace("{target}", str(self.prep.get("ruin") or self.prep.get("target") or "")))
        self.ctx.emit(E.CooldownSet(key=ck, blocked_through_turn=self.ctx.state.turn + eff.turns))

    def _treasury_debt(self, eff: Any, key: str) -> None:
        self.ctx.emit(E.TreasuryDebtChanged(outstanding=True))

    def _boon(self, eff: Any, key: str) -> None:
        """A benefit held for a later check (the row's ``boon`` id names it when it is used)."""
        ctx = self.ctx
        kind = eff.target or "bonus"
        if kind not in ("reroll", "second_roll", "bonus", "roll_twice"):
            raise InputError(f"{self.name}: a boon is reroll, second_roll, bonus or roll_twice, not {kind!r}")
        bid = f"t{ctx.state.turn}.{ctx.step}.{key}"
        ctx.emit(E.BoonGained(boon=E.BoonIn(id=bid, source=self.name, kind=kind, value=eff.value, type=eff.type,
                                            selector=self.text(eff.selector), skill="magic" if kind == "second_roll"
                                            else "", xp=int(eff.amount or 0)
                                            if isinstance(eff.amount, int) else 0,
                                            expires=eff.expires)))

    def _extra_region(self, eff: Any, key: str) -> None:
        self.ctx.emit(E.ExtraActivityGranted(category="region", cause=self.name))

    def _flat_check(self, eff: Any, key: str) -> None:
        """A flat check against DC ``value``: branch 0 on a failure, branch 1 on a success."""
        ok = flat(self.ctx, f"{key}.flat", eff.value, f"{self.name}:{eff.note or 'flat check'}")
        branch = eff.options[1 if ok else 0] if len(eff.options) > (1 if ok else 0) else []
        if branch:
            self.apply(branch, f"{key}.{'s' if ok else 'f'}")

    def _gm(self, eff: Any, key: str) -> None:
        """Where the rules leave it to the GM: the note is recorded; the GM's own effects follow in the plan."""
        self.ctx.emit(E.GMRuling(source=self.name, note=eff.note or "the GM rules this outcome"))

    # ---------------------------------------------------------------- the map

    def _hex(self) -> Any:
        hx = self.prep.get("hex")
        if hx is None:
            raise InputError(f"{self.name}: this outcome needs a 'hex'")
        return hx

    def _claim_hex(self, eff: Any, key: str) -> None:
        if "hex" not in self.prep:  # Pledge of Fealty claims the group's hex only when one is named
            return
        claim(self.ctx, self.asked, self.need("hex"), self.name, key=key, picks=self.picks)

    def _work_site(self, eff: Any, key: str) -> None:
        hx = self._hex()
        self.ctx.emit(E.WorkSiteEstablished(hex_id=hx.id, commodity=self.need("commodity"),
                                            double_until_turn=self.ctx.state.turn + 1 if int(eff.amount) == 2
                                            else 0))

    def _lines(self, eff: Any, key: str) -> None:
        """Farmland or roads in the target hex; amount 2 (a critical success): a second hex too (§4.8)."""
        hx = self._hex()
        ids = [hx.id]
        if int(eff.amount) == 2:
            first = hex_of(self.ctx.state, hx.id)
            second = self.prep.get("second_hex") or (auto_second(self.ctx.state, first, eff.kind) if first else "")
            if second:
                ids.append(second)
        if eff.kind == "farmland":
            self.ctx.emit(E.FarmlandEstablished(hex_ids=ids, settlement=self.need("settlement"),
                                                distance=self.prep.get("distance", 0)))
        else:
            self.ctx.emit(E.RoadsBuilt(hex_ids=ids, bridge_added=bool(hx.river)))

    def _fortify(self, eff: Any, key: str) -> None:
        self.ctx.emit(E.HexChanged(hex_id=self._hex().id, fortified=True, cause=self.name))

    def _irrigate(self, eff: Any, key: str) -> None:
        """Irrigation: the hex counts as having a river for Farmland and structures (``amount`` 1), or is marked
        as a failed irrigation (``amount`` -1) that a later success undoes."""
        hx = self._hex()
        if int(eff.amount or 1) > 0:
            self.ctx.emit(E.HexChanged(hex_id=hx.id, add_features=["irrigation"], failed_irrigation=False,
                                       cause=self.name))
        else:
            self.ctx.emit(E.HexChanged(hex_id=hx.id, failed_irrigation=True, cause=self.name))

    def _abandon_hex(self, eff: Any, key: str) -> None:
        hx = self._hex()
        self.ctx.emit(E.HexLost(hex_id=hx.id, cause=self.name))

    def _destroy_feature(self, eff: Any, key: str) -> None:
        hx = self.prep.get("hex")
        if hx is None:
            return
        feature = eff.target
        self.ctx.emit(E.HexChanged(hex_id=hx.id, remove_features=[feature] if feature != "work_site" else [],
                                   remove_work_site=feature == "work_site", remove_roads=feature == "roads",
                                   cause=self.name))

    def _settlement(self, eff: Any, key: str) -> None:
        ctx = self.ctx
        val, faces = self.value(eff, key)
        if val > ctx.state.rp:
            # §4.8 Establish Settlement: an unpayable result is treated as a critical failure.
            ctx.emit(E.FlatCheckResolved(purpose="establish_settlement_unpayable", dc=0, die=1, success=False))
            return
        spend_rp(ctx, self.asked, val, self.name, faces=faces)
        ctx.emit(E.SettlementFounded(id=self.need("settlement_id"), name=self.need("settlement_name"),
                                     hex_id=self.need("hex").id))
        from kingdomlog.rulesets.pf2e.structures import free_structures

        free_structures(ctx, self.need("settlement_id"), self.need("hex").id)

    def _crop_watch(self, eff: Any, key: str) -> None:
        self.ctx.emit(E.CropFailureWatch(hex_id=self._hex().id, turns=eff.turns or 2))

    # ---------------------------------------------------------------- settlements

    def _needs(self, kind: str, *keys: str) -> None:
        """An effect that finishes an activity's own work (Build Structure, Demolish) needs what that activity
        prepared; given elsewhere (a GM effect of an event, say) it is refused, naming what is missing."""
        missing = [k for k in keys if k not in self.prep]
        if missing:
            raise InputError(f"{self.name}: a {kind!r} effect finishes Build Structure or Demolish and needs its "
                             f"{', '.join(missing)}; it cannot be given here")

    def _build(self, eff: Any, key: str) -> None:
        from kingdomlog.rulesets.pf2e.structures import build_outcome

        self._needs("build", "structure", "settlement", "block", "lots", "border", "replaces", "key",
                    "paid_commodities")
        build_outcome(self.ctx, self, self.prep, int(eff.amount), self.name)

    def _gift_structure(self, eff: Any, key: str) -> None:
        """A structure built free for the kingdom (``target``: its name) in the event's settlement, else the
        largest with room (Wealthy Immigrant)."""
        from kingdomlog.rulesets.pf2e.structures import gift_structure

        if eff.target not in T.catalog(self.ctx.state.homebrew).structures:
            raise InputError(f"{self.name}: 'gift_structure' names {eff.target!r}, not a structure")
        gift_structure(self.ctx, eff.target, str(self.prep.get("settlement") or ""),
                       list(self.prep.get("lots_hit", [])), self.name)

    def _demolish(self, eff: Any, key: str) -> None:
        from kingdomlog.rulesets.pf2e.structures import demolish_outcome

        self._needs("demolish", "settlement", "block", "lot")
        demolish_outcome(self.ctx, self.prep, int(eff.amount), key, self.picks.recover)

    def _rubble(self, eff: Any, key: str) -> None:
        from kingdomlog.rulesets.pf2e.structures import rubble_lots

        sid = str(self.prep.get("settlement") or "")
        if not sid:
            return
        val, _ = self.value(eff, key, 1)
        rubble_lots(self.ctx, sid, list(self.prep.get("lots_hit", [])), val, self.name,
                    structures_first=eff.target == "structure", residential=eff.target == "residential")

    def _damage(self, eff: Any, key: str) -> None:
        """A structure of the event's settlement is damaged (the one the row names, else the highest level)."""
        sid = str(self.prep.get("settlement") or "")
        st = next((x for x in self.ctx.state.settlements if x.id == sid), None)
        if st is None:
            return
        standing = [b for b in st.structures if not b.damaged and (not eff.target or eff.target in b.name)]
        if not standing:
            return
        named = self.prep.get("structure_hit")
        b = next((x for x in standing if x.name == named), standing[-1])
        self.ctx.emit(E.StructureDamaged(settlement=st.id, structure=b.name, block=b.block, border=b.border,
                                         cause=self.name))

    def _relocate(self, eff: Any, key: str) -> None:
        self.ctx.emit(E.CapitalMoved(settlement=str(self.need("settlement"))))

    # ---------------------------------------------------------------- relations and events

    def _relations(self, eff: Any, key: str) -> None:
        group = str(self.prep.get("group") or "")
        if not group:
            raise InputError(f"{self.name}: name the 'group'")
        kind = eff.target or "diplomatic_relations"
        added = int(eff.amount or 1) > 0
        self.ctx.emit(E.RelationsChanged(group=group, kind=kind, added=added))

    def _end_event(self, eff: Any, key: str) -> None:
        name = str(self.prep.get("event") or "")
        if name and name in {e.name for e in self.ctx.state.ongoing_events}:
            self.ctx.emit(E.KingdomEventResolved(name=name, degree=self.degree or None, continues=False))

    def _flag(self, eff: Any, key: str) -> None:
        """A mark for the rest of the turn that a later rule reads (``flags has <name>``)."""
        if not str(eff.target).strip():
            raise InputError(f"{self.name}: a 'flag' effect needs its flag's name as its target")
        self.ctx.emit(E.FlagSet(flag=eff.target, cause=self.name))

    def _unlock(self, eff: Any, key: str) -> None:
        """An outcome that gives access to an activity (The Local Paper: Read All About It), recorded as the
        same ``pf2e.activity_unlocked`` fact a story unlock is; an activity already unlocked stays so."""
        if eff.target not in T.catalog(self.ctx.state.homebrew).activities:
            raise InputError(f"{self.name}: 'unlock' names {eff.target!r}, not an activity")
        if eff.target not in self.ctx.state.unlocked_activities:
            self.ctx.emit(E.ActivityUnlocked(activity=eff.target, cause=self.name))

    def _event_watch(self, eff: Any, key: str) -> None:
        """A kingdom event due later: ``target`` the event, ``value`` the flat-check DC (0: it simply occurs),
        ``turns`` how many turns from now it is checked."""
        ctx = self.ctx
        hx = self.prep.get("hex")
        ctx.emit(E.EventScheduled(id=f"t{ctx.state.turn}.{ctx.step}.{key}", event=eff.target, dc=eff.value,
                                  turn=ctx.state.turn + max(0, eff.turns), cause=self.name,
                                  hex=hx.id if hx is not None else "",
                                  settlement=str(self.prep.get("settlement", ""))))


    # ---------------------------------------------------------------- armies (Appendix 3)

    def _unit(self, which: str = "") -> Any:
        from kingdomlog.rulesets.pf2e.warfare import army_of

        aid = str(self.prep.get("enemy") if which == "enemy" else self.prep.get("army") or "")
        return army_of(self.ctx, aid)

    def _army_recruit(self, eff: Any, key: str) -> None:
        self.ctx.emit(E.ArmyRecruited(army=self.need("army_new"), cause=self.name))

    def _army_condition(self, eff: Any, key: str) -> None:
        """A condition of the acting army (``target`` its name; "enemy:<name>" the enemy army's; "{condition}" the
        row's): ``amount`` added to its value (a condition without a value: 1 sets it, -1 removes it)."""
        target = self.text(eff.target)
        who = ""
        if target.startswith("enemy:"):
            who, target = "enemy", target.split(":", 1)[1]
        a = self._unit(who)
        val, _ = self.value(eff, key, 1)
        new = max(0, a.conditions.get(target, 0) + val)
        changes = {target: new}
        if target == "shaken" and new >= 4:
            changes["routed"] = 1
        if target == "mired" and new >= 4:
            changes["pinned"] = 1
        self.ctx.emit(E.ArmyUpdated(army=a.id, conditions=changes, cause=self.name))

    def _army_hp(self, eff: Any, key: str) -> None:
        a = self._unit()
        val, _ = self.value(eff, key)
        hp = max(0, min(a.hp_max, a.hp + val))
        conditions = {"defeated": 0} if hp > 0 and "defeated" in a.conditions else {}
        if hp == 0:
            conditions["defeated"] = 1
        self.ctx.emit(E.ArmyUpdated(army=a.id, set={"hp": hp}, conditions=conditions, cause=self.name))

    def _army_move(self, eff: Any, key: str) -> None:
        a = self._unit()
        hx = self.prep.get("hex")
        if hx is None:
            raise InputError(f"{self.name}: name the destination 'hex'")
        self.ctx.emit(E.ArmyUpdated(army=a.id, set={"hex": hx.id, "garrison_consumption": 0},
                                    conditions={"fortified": 0} if "fortified" in a.conditions else {},
                                    cause=self.name))

    def _army_tactic(self, eff: Any, key: str) -> None:
        a = self._unit()
        tactic = str(self.need("tactic"))
        learned = [t for t in a.tactics if not T.tactic_defs().get(t, T.TacticDef(name=t, level=1, types=[])).innate]
        cap = T.army_statistics()[a.level].max_tactics
        tactics = list(a.tactics)
        if len(learned) >= cap:
            tactics.remove(learned[0])  # the oldest learned tactic is replaced (the players' choice: GM note)
        tactics.append(tactic)
        # a tactic's stat-block numbers (Toughened Soldiers' HP, Increased Ammunition's shots, Sharpshooter's
        # Strikes, Hold the Line's Rout Threshold) change the record from now on; only what changes is set
        from kingdomlog.rulesets.pf2e.warfare import army_def, army_numbers

        defn, opts = army_def(a), self.ctx.state.options
        old, new = army_numbers(defn, a.level, a.tactics, options=opts), army_numbers(defn, a.level, tactics,
                                                                                     options=opts)
        now = {"hp_max": (a.hp_max, "hp"), "rout_threshold": (a.rout_threshold, "rout_threshold"),
               "ammunition": (a.ammunition, "ammunition"), "attack": (a.attack, "attack")}
        if a.ranged and a.ranged_attack is not None:
            now["ranged_attack"] = (a.ranged_attack, "ranged_attack")
        upd: dict[str, Any] = {"tactics": tactics}
        upd |= {k: v + new[n] - old[n] for k, (v, n) in now.items() if new[n] != old[n]}
        if "hp_max" in upd:
            upd["hp"] = max(0, a.hp + upd["hp_max"] - a.hp_max)
        self.ctx.emit(E.ArmyUpdated(army=a.id, set=upd, cause=self.name))

    def _army_gear(self, eff: Any, key: str) -> None:
        a = self._unit()
        gd = T.gear_defs()[str(self.need("gear"))]
        gear = dict(a.gear)
        if gd.kind == "potion":
            gear[gd.name] = min(3, gear.get(gd.name, 0) + 1)
        else:
            for g in [g for g in gear if g in T.gear_defs() and T.gear_defs()[g].kind == gd.kind]:
                del gear[g]  # a more powerful version replaces the previous one
            gear[gd.name] = 1
        self.ctx.emit(E.ArmyUpdated(army=a.id, set={"gear": gear}, cause=self.name))

    def _army_disband(self, eff: Any, key: str) -> None:
        self.ctx.emit(E.ArmyRemoved(army=self._unit().id, cause="destroyed" if eff.target == "destroyed"
                                    else "disbanded"))

    def _army_consumption(self, eff: Any, key: str) -> None:
        val, _ = self.value(eff, key)
        self.ctx.emit(E.ArmyUpdated(army=self._unit().id, set={"garrison_consumption": val}, cause=self.name))


def claim(ctx: Ctx, asked: Asked, hx: E.HexIn, cause: str, *, key: str, picks: Picks) -> None:
    """A hex enters the kingdom (§4.8 Claim Hex): XP (option xp_per_hex, or by size with the homebrew mode);
    a claimed Landmark or Refuge gives its benefit (§4.11)."""
    from kingdomlog.rulesets.pf2e.state import size_of

    old = hex_of(ctx.state, hx.id)
    xp = 0 if old is not None and old.ever_claimed else R.xp_for_hex(ctx.state.options, size_of(ctx.state))
    ctx.emit(E.HexClaimed(hex=hx, via=cause, xp=xp))
    if "landmark" in hx.features:
        val, faces = roll(ctx, f"{key}.landmark", "1d4")
        unrest(ctx, -val, "landmark claimed", faces)
        for ab in ("culture", "economy"):
            ctx.emit(E.ModifierAdded(id=f"t{ctx.state.turn}.landmark.{hx.id}.{ab}", source=f"landmark {hx.id}",
                                     value=2, selector=f"ability:{ab}", expires="end_of_next_turn"))
    if "refuge" in hx.features:
        r = pick_ruins(ctx, picks.refuge_ruin, 1)[0]
        add_ruin(ctx, asked, r, -1, "refuge claimed", key=f"{key}.refuge")
        for ab in ("loyalty", "stability"):
            ctx.emit(E.ModifierAdded(id=f"t{ctx.state.turn}.refuge.{hx.id}.{ab}", source=f"refuge {hx.id}",
                                     value=2, selector=f"ability:{ab}", expires="end_of_next_turn"))
