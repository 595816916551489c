"""Per-viewer projections (§11.4): own values exact, rivals only as last learned, secrets removed.

``redact`` is a pure function of the state: everything a faction learned is in the state's
``intel`` (scouts, spies, battles, public stats) and ``notices`` (possibly false beliefs).
"""

from __future__ import annotations

from kingdomlog.core.viewers import Viewer
from kingdomlog.rulesets.signoria.state import RESOURCES, Campaign, Character, Faction, IntelRecord, SignoriaState


def viewer_faction(state: SignoriaState, viewer: Viewer) -> str:
    """Whose view ``viewer`` gets: ``gm``, a player faction's id, else ``public`` (a declared player that is
    no player faction of this game, e.g. a neutral's id, sees only what is public)."""
    if viewer.is_gm:
        return "gm"
    if viewer.is_player and viewer.id in state.factions and state.factions[viewer.id].kind == "player":
        return viewer.id
    return "public"


def _rival(f: Faction, learned: dict[str, IntelRecord]) -> Faction:
    """A rival as the viewer knows it: each resource as last learned (with the turn), else None."""
    values: dict[str, int | None] = {}
    as_of: dict[str, int] = {}
    for r in RESOURCES:
        rec = learned.get(r)
        if rec is not None and isinstance(rec.value, int):
            values[r] = rec.value
            as_of[r] = rec.turn
        else:
            values[r] = None
    return f.model_copy(update={
        **values, "as_of": as_of, "leader": None, "statesmen": (),
        "standing": {}, "letters": (), "legitimacy_letter_to": None, "known": False,
    })


def _own_character(c: Character, v: str) -> Character:
    secret = c.true_master != v
    return c.model_copy(update={
        "loyalty": None,
        "true_master": None if secret else c.true_master,
        "agent_kind": "none" if secret else c.agent_kind,
    })


def redact(state: SignoriaState, viewer: Viewer) -> SignoriaState:
    """The state as ``viewer`` (the GM, the public or a player faction) may see it."""
    v = viewer_faction(state, viewer)
    if v == "gm":
        return state
    mine_intel = state.intel.get(v, {}) if v != "public" else {}
    factions = {fid: (f if fid == v else _rival(f, mine_intel.get(fid, {}))) for fid, f in state.factions.items()}
    chars: dict[str, Character] = {}
    for cid, c in state.characters.items():
        if c.employer == v:
            chars[cid] = _own_character(c, v)
        elif c.true_master == v:
            # my own agent abroad (or waiting to be hired): I know him, not his loyalty
            chars[cid] = c.model_copy(update={"loyalty": None, "activity": None})
    believed = state.believed_spies.get(v, {}) if v != "public" else {}
    for cid in believed:
        bc = state.characters.get(cid)
        if bc is not None:
            # what the briber believes: an ordinary spy of his (§11.4), never the double-agent truth
            chars[cid] = bc.model_copy(update={"loyalty": None, "true_master": v, "agent_kind": "spy",
                                              "activity": None, "condition": "active"})
    camps: dict[str, Campaign] = {}
    for k, cp in state.campaigns.items():
        if cp.faction == v:
            camps[k] = cp
        elif cp.status in ("arrived", "occupying", "besieging"):
            camps[k] = cp.model_copy(update={"units": None, "characters": (), "commander": None, "tactic": None,
                                            "conditional": None, "reserve": None})
    battles = tuple(b if v in (b.attacker, b.defender) else b.model_copy(update={"killed": {}})
                    for b in state.battles)
    mine = v != "public"
    return state.model_copy(update={
        "viewer": v,
        "factions": factions,
        "characters": chars,
        "treaties": {k: t for k, t in state.treaties.items() if v in t.parties},
        "intel": {v: state.intel.get(v, {})} if mine else {},
        "notices": {v: state.notices.get(v, ())} if mine else {},
        "spies": {a: h for a, h in state.spies.items() if state.characters[a].true_master == v},
        "plants": {a: h for a, h in state.plants.items() if state.characters[a].true_master == v},
        "aliases": {c: a for c, a in state.aliases.items() if state.characters[a].true_master == v},
        "believed_spies": {v: dict(believed)} if believed else {},
        "command": {v: state.command[v]} if v in state.command else {},
        "orders": {v: state.orders[v]} if v in state.orders else {},
        "dilemmas": {v: state.dilemmas[v]} if v in state.dilemmas else {},
        "candidates": {v: state.candidates[v]} if v in state.candidates else {},
        "campaigns": camps,
        "battles": battles,
        "felmonte_offers": {v: state.felmonte_offers[v]} if v in state.felmonte_offers else {},
        "flags": (),
        "rulings": (),
        "shortfalls": tuple(x for x in state.shortfalls if f" {v} " in x) if mine else (),
    })
