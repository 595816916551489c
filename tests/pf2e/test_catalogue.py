"""The pf2e-kingmaker rules catalogues (structures, feats, events, activities) as data.

Source of the numbers spot-checked below (names and numbers only, no prose):
  GitHub BernhardPosselt/pf2e-kingmaker-tools (the Foundry "Kingmaker Tools" module, "KMT"):
    data/structures/<Name>.json, data/feats/<Name>.json, data/events/<Name>.json,
    data/kingdom-activities/<Name>.json, src/kingdom/data/activityData.ts, src/kingdom/data/feats.ts
  GitHub foundryvtt/pf2e packs/kingmaker-features/kingdom-activities/*.json (the 49 core activities' names).
Rules-as-written entries only: KMT's optional "V&K" homebrew variants are left out (spec §7 source note),
so the catalogue sizes are the published ones: 80 structures, 17 general feats (Kingdom Assurance and
Skill Training are one repeatable feat each, not one row per skill), 56 events, 66 activities.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from kingdomlog.core.data import package_document
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.state import check_modifier

from .helpers import Game

SKILLS = set(T.core().skills)
PENDING_TARGETS = {"bonus_dice", "penalty_dice", "rp", "fame", "consumption", "halve_dice",
                   *(f"commodity:{c}" for c in T.COMMODITIES)}


def _effects(outcomes: T.Outcomes) -> list[T.Effect]:
    out: list[T.Effect] = []
    todo = [e for d in T.DEGREES for e in outcomes.for_degree(d)]
    while todo:
        e = todo.pop()
        out.append(e)
        todo.extend(x for opt in e.options for x in opt)
    return out


def test_every_table_loads_through_the_ruleset_loaders() -> None:
    """Every loader of ``data_tables()`` validates its file (errors would name file and entry)."""
    loaded = {name: loader() for name, loader in T.data_tables().items()}
    assert set(loaded) >= {"activities", "structures", "feats", "events", "charters", "heartlands", "governments"}
    for name in ("activities", "structures", "feats", "events"):
        assert loaded[name], name


def test_catalogue_sizes() -> None:
    """Published catalogue sizes (see the module docstring for why they are below KMT's V&K-inclusive counts)."""
    assert len(T.base_structures()) >= 80
    assert len(T.base_feats()) >= 17
    assert len(T.base_events()) >= 56
    assert len(T.base_activities()) >= 66
    # the 49 activities of foundryvtt/pf2e packs/kingmaker-features/kingdom-activities are all present
    core49 = {a.name for a in T.base_activities().values() if a.unlocked_by in ("", "structure:bank")}
    assert len(core49) == 49


@pytest.mark.parametrize("file,key", [("structures.toml", "structure"), ("feats.toml", "feat"),
                                      ("events.toml", "event"), ("activities.toml", "activity")])
def test_no_duplicate_names(file: str, key: str) -> None:
    """A duplicate row would silently shadow another in the name-keyed loaders, so check the raw file."""
    names = [row["name"] for row in package_document(T.PKG, file)[key]]
    titles = [row.get("title", row["name"]) for row in package_document(T.PKG, file)[key]]
    assert [n for n, c in Counter(names).items() if c > 1] == []
    assert [n for n, c in Counter(titles).items() if c > 1] == []


def test_structure_levels_and_lots() -> None:
    """Levels 1..20 (Tenement is level 0 in KMT data/structures/Tenement.json); lots 1..4, infrastructure 0."""
    for s in T.base_structures().values():
        if s.name == "tenement":
            assert s.level == 0
        else:
            assert 1 <= s.level <= 20, s.name
        if "infrastructure" in s.traits:
            assert s.lots == 0, s.name
        else:
            assert 1 <= s.lots <= 4, s.name
        assert s.dc >= 14 and s.cost_rp >= 1, s.name
        assert set(s.skills) <= SKILLS, s.name
        assert s.residential == ("residential" in s.traits), s.name
        assert s.fame == ("famous" in s.traits and "infamous" in s.traits), s.name


def test_structure_references_resolve() -> None:
    """upgrade_from, unlocks and every item-bonus selector name an existing entry."""
    structs, acts = T.base_structures(), T.base_activities()
    for s in structs.values():
        assert not s.upgrade_from or s.upgrade_from in structs, (s.name, s.upgrade_from)
        assert s.upgrade_from != s.name
        assert set(s.unlocks) <= set(acts), s.name
        for sel in s.item_bonuses:
            kind, _, rest = sel.partition(":")
            if kind == "skill":
                skill, _, act = rest.partition("+activity:")
                assert skill in SKILLS and (not act or act in acts), (s.name, sel)
            else:
                act, _, target = rest.partition(":")
                assert act in acts, (s.name, sel)
                assert not target or target in T.RUINS + T.COMMODITIES, (s.name, sel)
        for e in [*s.first_built_each_turn, *s.built_effects]:
            assert e.kind in ("unrest", "ruin"), s.name
            assert e.kind != "ruin" or e.target in (*T.RUINS, "choice"), s.name
    # upgrade chains end (no cycles)
    for s in structs.values():
        seen, cur = set(), s
        while cur.upgrade_from:
            assert cur.name not in seen, s.name
            seen.add(cur.name)
            cur = structs[cur.upgrade_from]


def test_activity_and_feat_references_resolve() -> None:
    """Skills, unlock structures, feat prerequisites and government-granted feats all resolve."""
    acts, structs, feats, govs = T.base_activities(), T.base_structures(), T.base_feats(), T.governments()
    for a in acts.values():
        assert set(a.skills) <= SKILLS, a.name
        assert set(a.skill_proficiency) <= set(a.skills), a.name
        kind, _, what = a.unlocked_by.partition(":")
        assert kind in ("", "gm", "structure", "companion"), a.name
        if kind == "structure":
            assert what in structs and a.name in structs[what].unlocks, a.name
        for e in _effects(a.outcomes):
            assert e.kind != "pending" or e.target in PENDING_TARGETS, a.name
    for f in feats.values():
        assert set(f.requires_trained) <= SKILLS | {"chosen"}, f.name
        for g in f.granted_by:
            assert govs[g].feat == f.name, (f.name, g)
    for g in govs.values():
        assert g.feat in feats and g.name in feats[g.feat].granted_by, g.name


def test_event_rows_are_consistent() -> None:
    """Event skills/leaders resolve; plain-number events carry all four degrees, the others are GM-ruled."""
    roles = set(T.roles())
    for e in T.base_events().values():
        assert set(e.skills) <= SKILLS, e.name
        assert not e.leader or e.leader in roles, e.name
        assert e.continuous == ("continuous" in e.traits), e.name
        assert not e.resolved_on or e.continuous, e.name
        assert not ("beneficial" in e.traits and "dangerous" in e.traits), e.name
        if e.name == "good-weather":
            continue
        o = e.outcomes
        assert None not in (o.critical_success, o.success, o.failure, o.critical_failure), e.name
        for x in _effects(e.outcomes):
            assert x.kind != "pending" or x.target in PENDING_TARGETS, e.name


# ---- spot checks against the source files (one row each) -------------------------------------------

def _s(name: str) -> T.Structure:
    return T.base_structures()[name]


def test_spot_structures_against_kmt() -> None:
    """KMT data/structures/{Academy,Alchemy Laboratory,Castle,Embassy,Foundry,Mill,Illicit Market,Jail,
    Noble Villa,Wall Stone,Tenement,Waterfront,Tavern Luxury}.json; Castle/Palace/Town Hall also spec §5.15."""
    a = _s("academy")
    assert (a.level, a.lots, a.cost_rp, a.cost, a.proficiency, a.dc) == (
        10, 2, 52, {"lumber": 12, "luxuries": 6, "stone": 12}, "expert", 27)
    assert a.item_bonuses == {"activity:creative-solution": 2} and a.upgrade_from == "library"
    al = _s("alchemy-laboratory")
    assert (al.level, al.cost_rp, al.cost, al.skills, al.proficiency, al.dc) == (
        3, 18, {"ore": 2, "stone": 5}, ["industry"], "trained", 16)
    c = _s("castle")
    assert (c.level, c.lots, c.cost_rp, c.cost, c.proficiency, c.dc, c.upgrade_from) == (
        9, 4, 54, {"lumber": 12, "stone": 12}, "expert", 26, "town-hall")
    assert c.seat and c.fame and c.item_bonuses["activity:new-leadership"] == 2
    p = _s("palace")
    assert (p.level, p.lots, p.cost_rp, p.cost, p.dc) == (
        15, 4, 108, {"lumber": 20, "stone": 20, "ore": 15, "luxuries": 12}, 34)
    th = _s("town-hall")
    assert (th.level, th.lots, th.cost_rp, th.proficiency, th.dc) == (2, 2, 22, "trained", 16)
    assert [(e.kind, e.amount) for e in th.first_built_each_turn] == [("unrest", -1)]
    assert (_s("embassy").dc, _s("embassy").lots) == (24, 2)
    f = _s("foundry")
    assert (f.lots, f.storage, f.item_bonuses) == (2, {"ore": 1}, {"activity:establish-work-site:ore": 1})
    m = _s("mill")
    assert (m.consumption_reduction, m.item_bonuses) == (1, {"activity:harvest-crops": 1})
    im = _s("illicit-market")
    assert "infamous" in im.traits and not im.fame
    assert [(e.kind, e.target, e.amount) for e in im.built_effects] == [("ruin", "crime", 1)]
    j = _s("jail")
    assert j.item_bonuses == {"skill:intrigue+activity:quell-unrest": 1}
    assert [(e.kind, e.target, e.amount) for e in j.first_built_each_turn] == [("ruin", "crime", -1)]
    assert (_s("noble-villa").level, _s("noble-villa").dc) == (9, 19)
    w = _s("wall-stone")
    assert (w.lots, w.cost_rp, w.cost, w.upgrade_from) == (0, 4, {"stone": 8}, "wall-wooden")
    assert (_s("tenement").level, _s("tenement").dc, _s("tenement").cost_rp) == (0, 14, 1)
    assert (_s("waterfront").cost_rp, _s("waterfront").lots, _s("waterfront").upgrade_from) == (90, 4, "pier")
    tl = _s("tavern-luxury")
    assert [(e.kind, e.amount) for e in tl.first_built_each_turn] == [("unrest", "-1d4"), ("unrest", -1)]


def test_spot_feats_against_kmt() -> None:
    """KMT data/feats/{Endure Anarchy,Liquidate Resources,Fame and Fortune,Free and Fair,Crush Dissent}.json."""
    f = T.base_feats()
    assert (f["endure-anarchy"].level, f["endure-anarchy"].requires_ability) == (3, {"loyalty": 14})
    assert (f["liquidate-resources"].level, f["liquidate-resources"].requires_ability) == (3, {"economy": 14})
    assert f["fame-and-fortune"].level == 11 and f["free-and-fair"].level == 7
    assert (f["crush-dissent"].level, f["crush-dissent"].requires_trained) == (1, ["warfare"])
    assert f["crush-dissent"].granted_by == ["despotism"]
    assert f["kingdom-assurance"].repeatable and f["skill-training"].grants == "skill_training"


def test_spot_events_against_kmt() -> None:
    """KMT data/events/{The Rampage of the Owlbear,Goblin Backlash,Cult Activity,Discovery,Bandit Activity,
    Trouble with a Weird Gnome}.json."""
    ev = T.base_events()
    ow = ev["the-rampage-of-the-owlbear"]
    assert (ow.modifier, ow.skills, ow.traits, ow.location) == (4, ["defense"], ["dangerous", "settlement"], "capital")
    assert (ev["goblin-backlash"].modifier, ev["goblin-backlash"].resolved_on) == (-2, ["critical_success"])
    assert ev["cult-activity"].stage_skills == [["intrigue"], ["folklore"]]
    d = ev["discovery"].outcomes
    assert [(e.kind, e.target, e.amount) for e in d.for_degree("critical_success")] == [
        ("pending", "fame", 1), ("pending", "bonus_dice", 6), ("unrest", "", -2)]
    assert [(e.target, e.amount) for e in d.for_degree("critical_failure")] == [("penalty_dice", 2)]
    b = ev["bandit-activity"]
    assert (b.modifier, b.skills, b.leader, b.continuous) == (1, ["defense"], "warden", True)
    g = ev["trouble-with-a-weird-gnome"].outcomes.for_degree("critical_failure")
    assert [(e.kind, e.amount, e.count) for e in g] == [("unrest", 2, 1), ("ruin", 1, 2)]


def test_spot_activities_against_kmt() -> None:
    """KMT src/kingdom/data/activityData.ts / data/kingdom-activities: Harvest Lily Pollen (master Agriculture,
    DC 30), Establish Trade Agreement (Magic at master), Recover Army (a defeated army: Politics at master),
    Focused Attention (DC 20), Clandestine Business (trained), Show of Force (Regongar)."""
    a = T.base_activities()
    h = a["harvest-azure-lily-pollen"]
    assert (h.category, h.skills, h.proficiency, h.dc) == ("region", ["agriculture"], "master", "30")
    assert a["establish-trade-agreement"].skill_proficiency == {"magic": "master"}
    assert a["recover"].skills_by_target["defeated"] == {"politics": "master", "warfare": "expert"}
    assert a["focused-attention"].dc == "20"
    assert a["clandestine-business"].proficiency == "trained"
    sf = a["show-of-force"]
    assert sf.unlocked_by == "companion:regongar"
    assert [(e.target, e.amount) for e in sf.outcomes.for_degree("success")] == [("crime", -1)]


# ---- the new rows work through the engine ------------------------------------------------------------

def test_founding_structure_item_bonus_applies() -> None:
    """A bundled Herbalist (KMT: +1 item bonus to Provide Care) shows in the check's breakdown."""
    g = Game().found(structures=["houses", "herbalist"])
    mod = check_modifier(g.state, "defense", activity="provide-care", category="leadership")
    assert ("herbalist (Oakhold)", 1, "item") in [(t.label, t.value, t.kind) for t in mod.terms]
    other = check_modifier(g.state, "defense", activity="quell-unrest", category="leadership")
    assert all(t.kind != "item" for t in other.terms)


def test_plain_event_outcome_is_applied() -> None:
    """Discovery (plain numbers): a success queues 3 bonus Resource Dice for the next turn."""
    g = Game().found()
    steps: dict[str, Any] = {"event.resolve": {"choices": {"event": "discovery"}, "rolls": {"check": [12]}}}
    pv = g.play(steps)
    checks = [d.payload for d in pv.drafts
              if d.type == "pf2e.check_resolved" and getattr(d.payload, "activity", "") == "discovery"]
    assert [getattr(c, "degree", None) for c in checks] == ["success"]
    pend = [d.payload for d in pv.drafts
            if d.type == "pf2e.pending_added" and getattr(d.payload, "cause", "") == "discovery"]
    assert [(getattr(p, "kind", None), getattr(p, "amount", None)) for p in pend] == [("bonus_dice", 3)]


def test_spot_founding_against_kmt() -> None:
    """KMT data/charters/Conquest.json (commit c302b63), data/governments/{Republic,Thaumocracy}.json,
    data/heartlands/Lake or River.json."""
    c = T.charters()["conquest"]
    assert (c.boost, c.flaw, c.free_boosts) == ("loyalty", "culture", 1)
    assert T.charters()["open"].boost is None and T.charters()["open"].free_boosts == 1
    r = T.governments()["republic"]
    assert (r.boosts, r.skills, r.feat) == (["stability", "loyalty"], ["engineering", "politics"], "pull-together")
    th = T.governments()["thaumocracy"]
    assert (th.boosts, th.skills, th.feat) == (["economy", "culture"], ["folklore", "magic"], "practical-magic")
    assert T.heartlands()["lake-or-river"].boost == "economy"
