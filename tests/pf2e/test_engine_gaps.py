"""Data fields the engine now applies: DC rules event/gm/none, infrastructure, conditional item bonuses,
structure Fame/Infamy and every-time effects, feat prerequisites and skill ranks, activity unlocks."""

from __future__ import annotations

from typing import Any

from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e.state import BuiltStructure, OngoingEvent, check_modifier

from .helpers import Game, events_of, step_state

RICH = {"upkeep.resources": {"rolls": {"resource": [4, 4, 4, 4, 4]}}}


def _refused(g: Game, steps: dict[str, Any], *needles: str) -> str:
    pv = g.play(steps, check=False)
    assert not pv.ok
    err = pv.error or ""
    for n in needles:
        assert n in err, err
    return err


def _checks(pv: Any, step: str) -> list[E.CheckResolved]:
    return [e for e in events_of(pv, step) if isinstance(e, E.CheckResolved)]


def _lead(act: dict[str, Any], rolls: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"activity.leadership": {"choices": {"activities": [act]},
                                    "rolls": {"a1": [10]} if rolls is None else rolls}}


# ------------------------------------------------------------------ 1. DC rules event / gm / none


def test_event_dc_uses_the_targeted_events_modifier() -> None:
    """§5.12: Hire Adventurers (dc = event) against Bandit Activity (+1): Control DC 14 + 1 = 15."""
    g = Game().found()
    g.state = g.state.model_copy(update={"ongoing_events": (OngoingEvent(name="bandit-activity"),)})
    pv = g.play(_lead({"activity": "hire-adventurers", "role": "ruler"}))
    chk = _checks(pv, "activity.leadership")[0]
    assert chk.activity == "hire-adventurers" and chk.dc == 15
    assert ("event modifier (bandit-activity)", 1) in [(t.label, t.value) for t in chk.dc_terms]


def test_event_dc_without_an_ongoing_event_is_refused() -> None:
    """§5.12: no ongoing event to target: refused naming the activity, never a silent Control DC."""
    _refused(Game().found(), _lead({"activity": "hire-adventurers", "role": "ruler"}),
             "hire-adventurers", "§5.12")


def test_event_dc_needs_a_name_when_several_events_are_ongoing() -> None:
    """§5.12: two ongoing events: the plan must say which one; a named one that is not ongoing is refused."""
    g = Game().found()
    g.state = g.state.model_copy(update={"ongoing_events": (OngoingEvent(name="bandit-activity"),
                                                            OngoingEvent(name="a-devil-comes-calling"))})
    _refused(g, _lead({"activity": "hire-adventurers", "role": "ruler"}), "name it as 'event'")
    _refused(g, _lead({"activity": "hire-adventurers", "role": "ruler", "event": "good-weather"}),
             "not an ongoing event")
    pv = g.play(_lead({"activity": "hire-adventurers", "role": "ruler", "event": "a-devil-comes-calling"}))
    assert _checks(pv, "activity.leadership")[0].dc == 14 + 3


def test_gm_dc_is_required_and_recorded_as_the_gms_ruling() -> None:
    """§4 (GM-ruled DC): Cleanse Item (a story activity) without 'dc' is refused naming it; with dc 22 the check
    uses 22."""
    g = Game(options={"unlock_all_activities": True}).found()
    _refused(g, _lead({"activity": "cleanse-item", "role": "ruler", "skill": "magic"}), "cleanse-item", "'dc'")
    pv = g.play(_lead({"activity": "cleanse-item", "role": "ruler", "skill": "magic", "dc": 22}))
    chk = _checks(pv, "activity.leadership")[0]
    assert chk.dc == 22
    assert [(t.label, t.value) for t in chk.dc_terms] == [("GM's ruling: cleanse-item DC", 22)]


NO_CHECK = {"activity": [{
    "name": "royal-decree", "title": "Royal Decree", "category": "leadership", "skills": ["politics"],
    "dc": "none", "outcomes": {"success": [{"kind": "unrest", "amount": -1}]},
}]}


def test_dc_none_applies_the_outcome_without_a_check() -> None:
    """dc = none: no d20 is rolled, the activity counts as used and its outcome applies (Unrest 2 -> 1)."""
    g = Game(data={"decree": NO_CHECK}).found()
    pv = g.play(_lead({"activity": "royal-decree", "role": "ruler"}, rolls={}))
    evs = events_of(pv, "activity.leadership")
    assert not [e for e in evs if isinstance(e, E.CheckResolved)]
    assert [e.activity for e in evs if isinstance(e, E.ActivityWithoutCheck)] == ["royal-decree"]
    after = step_state(pv, "activity.leadership")
    assert after.unrest == step_state(pv, "commerce.agreements").unrest - 1
    assert any(u.name == "royal-decree" for u in after.used_this_turn)


# ------------------------------------------------------------------ 2. infrastructure (lots = 0)


def _rich(g: Game, **update: Any) -> Game:
    com = {"food": 4, "lumber": 20, "stone": 20, "ore": 10, "luxuries": 10}
    g.state = g.state.model_copy(update={"pending": g.state.pending.model_copy(update={"rp": 80}),
                                         "commodities": com, **update})
    return g


def _civic(build: dict[str, Any], die: int = 18) -> dict[str, Any]:
    return {"upkeep.leadership": {"choices": {"party_level": 20}},
            "activity.civic": {"choices": {"activities": [{"activity": "build-structure", **build}]},
                               "rolls": {"a1": [die]}}}


def test_walls_take_a_border_not_a_lot_one_per_border_and_upgrade_in_place() -> None:
    """§5.15 infrastructure: a wooden wall goes on a border (no lot used); a second one on the same border is
    refused; a stone wall later replaces the wooden one on that border."""
    g = _rich(Game().found())
    blocks = g.state.settlements[0].blocks
    pv = g.play(_civic({"structure": "wall-wooden", "border": "north"}))
    built = [e for e in events_of(pv, "activity.civic") if isinstance(e, E.InfrastructureBuilt)]
    assert [(b.structure, b.placement, b.border, b.block) for b in built] == [("wall-wooden", "border", "north", -1)]
    st = step_state(pv, "activity.civic").settlements[0]
    assert st.blocks == blocks
    assert [(b.name, b.border, b.lots) for b in st.structures if b.name.startswith("wall")] == \
        [("wall-wooden", "north", ())]
    _rich(g)
    _refused(g, _civic({"structure": "wall-wooden", "border": "north"}), "one per border", "§5.15")
    _rich(g, level=5, skills={**g.state.skills, "defense": "trained"})
    pv = g.play(_civic({"structure": "wall-stone"}))
    st = step_state(pv, "activity.civic").settlements[0]
    assert [(b.name, b.border) for b in st.structures if b.name.startswith("wall")] == [("wall-stone", "north")]


def test_bridge_needs_a_water_border() -> None:
    """§5.15: a bridge stands on a water border; Oakhold's hex has no river or lake, so it is refused."""
    g = _rich(Game().found(), level=2)
    _refused(g, _civic({"structure": "bridge"}), "water border", "§5.15")
    hexes = tuple(h.model_copy(update={"river": True}) for h in g.state.hexes)
    g.state = g.state.model_copy(update={"hexes": hexes})
    pv = g.play(_civic({"structure": "bridge", "border": "east"}))
    assert any(isinstance(e, E.InfrastructureBuilt) and e.border == "east" for e in events_of(pv, "activity.civic"))


def test_sewer_system_once_per_settlement_reduces_consumption() -> None:
    """§5.15: a sewer system serves the whole settlement (one per settlement) and lowers its Consumption by 1."""
    g = Game().found()
    _rich(g, level=7, skills={**g.state.skills, "engineering": "expert"})
    cons = g.state.settlements[0].consumption
    pv = g.play(_civic({"structure": "sewer-system"}))
    st = step_state(pv, "activity.civic").settlements[0]
    assert [(b.name, b.block, b.lots) for b in st.structures if b.name == "sewer-system"] == \
        [("sewer-system", -1, ())]
    assert st.consumption == max(0, cons - 1)
    _rich(g)
    _refused(g, _civic({"structure": "sewer-system"}), "one per settlement")


def test_paved_streets_one_per_block_in_use() -> None:
    """§5.15: paved streets are laid on a block in use, one per block; an empty block is refused."""
    g = Game().found()
    _rich(g, level=4, skills={**g.state.skills, "industry": "trained"})
    _refused(g, _civic({"structure": "paved-streets", "block": 1}), "block of Oakhold in use")
    pv = g.play(_civic({"structure": "paved-streets"}))
    st = step_state(pv, "activity.civic").settlements[0]
    assert [(b.name, b.block) for b in st.structures if b.name == "paved-streets"] == [("paved-streets", 0)]
    _rich(g)
    _refused(g, _civic({"structure": "paved-streets", "block": 0}), "one per block")


# ------------------------------------------------------------------ 3. conditional item bonuses


def _with_structures(g: Game, bonuses: dict[str, dict[str, int]], blocks_used: int = 1) -> Game:
    st = g.state.settlements[0]
    built = tuple(BuiltStructure(name=n, block=0, lots=(), item_bonuses=b) for n, b in bonuses.items())
    blocks = tuple(("rubble", "", "", "") for _ in range(blocks_used)) if blocks_used > 1 else st.blocks
    st = st.model_copy(update={"structures": (*st.structures, *built), "blocks": blocks})
    g.state = g.state.model_copy(update={"settlements": (st,)})
    return g


def _items(b: Any) -> list[tuple[str, int]]:
    return [(t.label, int(t.value)) for t in b.terms if t.kind == "item"]


def test_skill_plus_activity_bonus_applies_only_to_that_skill_and_activity() -> None:
    """§5.15 item bonuses: Jail (+1 Intrigue for Quell Unrest) and Arcanist's Tower (+1 Magic for Quell Unrest)."""
    g = _with_structures(Game().found(), {"jail": {"skill:intrigue+activity:quell-unrest": 1},
                                          "arcanists-tower": {"skill:magic+activity:quell-unrest": 1}})
    s = g.state
    assert _items(check_modifier(s, "intrigue", activity="quell-unrest")) == [("jail (Oakhold)", 1)]
    assert _items(check_modifier(s, "magic", activity="quell-unrest")) == [("arcanists-tower (Oakhold)", 1)]
    assert _items(check_modifier(s, "politics", activity="quell-unrest")) == []
    assert _items(check_modifier(s, "intrigue", activity="infiltration")) == []


def test_targeted_activity_bonus_applies_only_to_that_target() -> None:
    """§5.15: "activity:repair-reputation:crime" helps repairing Crime, not Strife; ore work sites only ore."""
    g = _with_structures(Game().found(), {"mint": {"activity:repair-reputation:crime": 3},
                                          "foundry": {"activity:establish-work-site:ore": 1}})
    s = g.state
    assert _items(check_modifier(s, "trade", activity="repair-reputation", target="crime")) == [("mint (Oakhold)", 1)]
    assert _items(check_modifier(s, "trade", activity="repair-reputation", target="strife")) == []
    assert _items(check_modifier(s, "industry", activity="establish-work-site", target="ore")) == \
        [("foundry (Oakhold)", 1)]
    assert _items(check_modifier(s, "industry", activity="establish-work-site", target="lumber")) == []


def test_item_bonuses_do_not_stack_the_highest_counts() -> None:
    """§5.15/§5.10: in a city (item bonus cap 2) Printing House +2 and Arcanist's Tower +1 both match Magic
    for Quell Unrest; only the +2 counts, and the Arena's +3 (Warfare) is capped at 2."""
    g = _with_structures(Game().found(), {"printing-house": {"activity:quell-unrest": 2},
                                          "arcanists-tower": {"skill:magic+activity:quell-unrest": 1},
                                          "gladiatorial-arena": {"skill:warfare+activity:quell-unrest": 3}},
                         blocks_used=5)
    s = g.state
    magic = check_modifier(s, "magic", activity="quell-unrest")
    assert _items(magic) == [("printing-house (Oakhold)", 2)]
    warfare = check_modifier(s, "warfare", activity="quell-unrest")
    # the Arena's +3 is capped at the city's 2, tying the Printing House: one +2 counts
    assert [v for _, v in _items(warfare)] == [2]
    no_item = check_modifier(s.model_copy(update={"settlements": ()}), "magic", activity="quell-unrest")
    assert int(magic.total) == int(no_item.total) + 2


def test_conditional_bonus_shows_in_the_recorded_check() -> None:
    """§5.15: Repair Reputation of Crime (Intrigue) with a Mint: the check's terms list the Mint's item bonus."""
    g = _with_structures(Game().found(), {"mint": {"activity:repair-reputation:crime": 3}})
    pv = g.play(_lead({"activity": "repair-reputation", "role": "treasurer", "ruin": "crime"}))
    chk = _checks(pv, "activity.leadership")[0]
    assert chk.target == "crime"
    assert ("mint (Oakhold)", 1, "item") in [(t.label, t.value, t.kind) for t in chk.terms]


# ------------------------------------------------------------------ 4. Fame/Infamy and every-time effects


def _fame_events(pv: Any) -> list[tuple[int, str]]:
    return [(e.delta, e.reason) for e in events_of(pv, "activity.civic") if isinstance(e, E.FameChanged)]


def test_famous_only_structure_gives_fame_only_to_a_fame_kingdom() -> None:
    """§5.15 famous trait: a Luxury Tavern (famous only) gives 1 Fame to a Fame kingdom, nothing under Infamy."""
    for fame_type, want in (("fame", [(1, "tavern-luxury (fame)")]), ("infamy", [])):
        g = Game().found(fame_type=fame_type)
        _rich(g, level=9, skills={**g.state.skills, "trade": "master"})
        pv = g.play(_civic({"structure": "tavern-luxury"}, die=15))
        assert _fame_events(pv) == want, fame_type


def test_infamous_only_structure_gives_infamy_only_to_an_infamy_kingdom() -> None:
    """§5.15 infamous trait: an Illicit Market gives 1 Infamy under Infamy, nothing under Fame; +1 Crime always."""
    for fame_type, want in (("infamy", [(1, "illicit-market (infamy)")]), ("fame", [])):
        g = Game().found(fame_type=fame_type)
        _rich(g, level=6, skills={**g.state.skills, "intrigue": "trained"})
        crime = g.state.ruin["crime"].points
        pv = g.play(_civic({"structure": "illicit-market"}, die=15))
        assert _fame_events(pv) == want, fame_type
        assert step_state(pv, "activity.civic").ruin["crime"].points == crime + 1


def test_tenement_adds_a_ruin_of_the_plans_choice_every_time() -> None:
    """§5.15 Tenement: every time one is built, +1 to a Ruin of the GM's choice (here Decay); first each turn
    also -1 Unrest."""
    g = _rich(Game().found())
    before = g.state.ruin["decay"].points
    pv = g.play({**_civic({"structure": "tenement", "ruin": "decay"}, die=15)})
    after = step_state(pv, "activity.civic")
    assert after.ruin["decay"].points == before + 1
    assert after.unrest == step_state(pv, "commerce.agreements").unrest - 1


def test_wall_unrest_reduction_only_for_the_first_wall() -> None:
    """§5.15 walls: -1 Unrest for a settlement's first wall only (built_effects_limit = 1)."""
    g = _rich(Game().found(), unrest=5)
    pv = g.play(_civic({"structure": "wall-wooden", "border": "north"}))
    assert step_state(pv, "activity.civic").unrest == step_state(pv, "commerce.agreements").unrest - 1
    _rich(g, unrest=5)
    pv = g.play(_civic({"structure": "wall-wooden", "border": "south"}))
    assert step_state(pv, "activity.civic").unrest == step_state(pv, "commerce.agreements").unrest


def test_brewery_unrest_reduction_stops_at_four() -> None:
    """§5.15 Brewery: -1 Unrest each time while the settlement has fewer than 4 breweries."""
    for held, drop in ((3, 1), (4, 0)):
        g = _with_structures(Game().found(), {})
        st = g.state.settlements[0]
        brews = tuple(BuiltStructure(name="brewery", block=0, lots=()) for _ in range(held))
        g.state = g.state.model_copy(update={"settlements": (st.model_copy(update={"structures": (
            *st.structures, *brews)}),)})
        _rich(g, unrest=5)
        pv = g.play(_civic({"structure": "brewery"}, die=15))
        assert step_state(pv, "activity.civic").unrest == step_state(pv, "commerce.agreements").unrest - drop


# ------------------------------------------------------------------ 5. feat prerequisites, per-skill ranks


def _level_up(feat_choices: dict[str, Any]) -> dict[str, Any]:
    return {"upkeep.leadership": {"choices": {"party_level": 4}},
            "commerce.taxes": {"choices": {"mode": "none"}},
            "event.check": {"rolls": {"event": [1]}}, "event.level": {"choices": feat_choices}}


def test_feat_needing_a_trained_skill_is_refused_naming_it() -> None:
    """§5.5: Crush Dissent requires trained Warfare; untrained, it is refused naming the prerequisite; once
    the kingdom is trained in Warfare it is taken."""
    g = Game().found(resume={"turn": 1, "xp": 990}, party_level=2)
    assert g.state.skills.get("warfare", "untrained") == "untrained"
    _refused(g, _level_up({"feat": "crush-dissent"}), "crush-dissent requires trained warfare", "§5.5")
    g.state = g.state.model_copy(update={"skills": {**g.state.skills, "warfare": "trained"}})
    pv = g.play(_level_up({"feat": "crush-dissent"}))
    assert pv.state_after.feats[-1] == "crush-dissent"


def test_feat_needing_an_ability_score_is_refused() -> None:
    """§5.5: Endure Anarchy (level 3 feat, taken at level 4) requires Loyalty 14."""
    g = Game().found(resume={"turn": 1, "xp": 990}, party_level=4)
    g.state = g.state.model_copy(update={"level": 3, "scores": {**g.state.scores, "loyalty": 12}})
    _refused(g, _level_up({"feat": "endure-anarchy"}), "endure-anarchy requires loyalty 14")
    g.state = g.state.model_copy(update={"scores": {**g.state.scores, "loyalty": 14}})
    assert g.play(_level_up({"feat": "endure-anarchy"})).state_after.feats[-1] == "endure-anarchy"


def test_kingdom_assurance_needs_its_chosen_skill_trained() -> None:
    """§5.5: Kingdom Assurance is taken for a skill the kingdom is trained in (named as feat_skill)."""
    g = Game().found(resume={"turn": 1, "xp": 990}, party_level=2)
    _refused(g, _level_up({"feat": "kingdom-assurance", "feat_skill": "warfare"}),
             "requires trained warfare")
    pv = g.play(_level_up({"feat": "kingdom-assurance", "feat_skill": "trade"}))
    up = next(e for e in events_of(pv, "event.level") if isinstance(e, E.LeveledUp))
    assert (up.feat, up.feat_skill) == ("kingdom-assurance", "trade")


def test_per_skill_rank_minimum_of_an_activity() -> None:
    """§4 proficiency: Establish Trade Agreement by Magic needs master Magic (expert is not enough); by Trade
    (trained) it only needs the activity's base rank."""
    g = Game().found()
    g.state = g.state.model_copy(update={"skills": {**g.state.skills, "magic": "expert"},
                                         "diplomatic_relations": ("mivon",)})
    _refused(g, _lead({"activity": "establish-trade-agreement", "role": "ruler", "skill": "magic", "dc": 15,
                       "group": "mivon"}), "establish-trade-agreement needs master proficiency in magic")
    pv = g.play(_lead({"activity": "establish-trade-agreement", "role": "ruler", "skill": "trade", "dc": 15,
                       "group": "mivon"}))
    assert _checks(pv, "activity.leadership")[0].skill == "trade"


# ------------------------------------------------------------------ 6. unlocked activities


def test_structure_unlocked_activity_needs_the_structure() -> None:
    """§5.15: Capital Investment needs a Bank; refused naming it, taken once a Bank stands."""
    g = _rich(Game().found())
    _refused(g, _lead({"activity": "capital-investment", "role": "treasurer"}), "capital-investment", "bank",
             "§5.15 activity unlocks")
    _with_structures(g, {"bank": {"activity:tap-treasury": 1}})
    pv = g.play(_lead({"activity": "capital-investment", "role": "treasurer"}))
    assert _checks(pv, "activity.leadership")[0].activity == "capital-investment"


def test_companion_activity_needs_the_companion_in_a_role() -> None:
    """§5.15: Evangelize the End needs Harrim holding a leadership role."""
    g = Game().found()
    _refused(g, _lead({"activity": "evangelize-the-end", "role": "ruler"}), "companion Harrim")
    leaders = {**g.state.leaders, "counselor": g.state.leaders["counselor"].model_copy(update={"holder": "Harrim"})}
    g.state = g.state.model_copy(update={"leaders": leaders})
    pv = g.play(_lead({"activity": "evangelize-the-end", "role": "ruler"}))
    assert _checks(pv, "activity.leadership")[0].activity == "evangelize-the-end"


def test_gm_story_unlock_is_an_event_and_the_option_lifts_every_lock() -> None:
    """§5.17: Naval Support (unlocked_by gm) after the GM's unlock event; option unlock_all_activities = true."""
    g = Game().found()
    _refused(g, _lead({"activity": "naval-support", "role": "ruler"}), "GM's story unlock")
    pv = g.play({"upkeep.leadership": {"choices": {"unlock_activities": ["naval-support"]}},
                 **_lead({"activity": "naval-support", "role": "ruler"})})
    assert [e.activity for e in events_of(pv, "upkeep.leadership") if isinstance(e, E.ActivityUnlocked)] == \
        ["naval-support"]
    assert "naval-support" in pv.state_after.unlocked_activities
    g2 = Game(options={"unlock_all_activities": True}).found()
    pv = g2.play(_lead({"activity": "warfare-exercises", "role": "general"}))
    assert _checks(pv, "activity.leadership")[0].activity == "warfare-exercises"
