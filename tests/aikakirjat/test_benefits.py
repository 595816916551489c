"""The level benefits of §3.2 that the other tests leave out (three skills, two expertise, Rising Power) and
Global Empire (level 20), computed by hand.

The benefits are chosen through the turn's steps as a GM would (a ``level_changed`` between years grants them,
``benefit_chosen`` spends them); the kingdom is §7.1's (Feudalism: Agriculture and Defense from the government,
Construction as its level-1 skill; Stability 13 → +1, Culture 14 → +2, Economy 13 → +1, Loyalty 14 → +2).
"""

from __future__ import annotations

from typing import Any

import pytest
from aik_helpers import Game, founding, quiet_year

from kingdomlog.rulesets.aikakirjat import rules as R


def gm(*events: dict[str, Any]) -> dict[str, Any]:
    return {"choices": {"new_session": False, "gm_events": list(events)}}


def year(**steps: Any) -> dict[str, Any]:
    """``quiet_year`` with the growth roll left to the keyed dice (a large kingdom on 2 hexes rolls none)."""
    plan = quiet_year(**steps)
    plan["steps"].setdefault("growth", {}).pop("rolls", None)
    return plan


def at_level(level: int) -> Game:
    """A founded §7.1 kingdom raised to ``level`` by the GM, with the population the level needs (3 × level, so
    no hold check); every benefit up to the level is pending (A15)."""
    g = Game()
    g.play(founding())
    g.play(year(start=gm({"event": "gm_adjustment", "field": "population", "value": 3 * level, "reason": "test"},
                         {"event": "level_changed", "from_level": 1, "to_level": level, "cause": "gm"})))
    assert g.state.level == level and g.state.highest_level_reached == level
    return g


def choose(g: Game, **benefit: Any) -> Any:
    return g.preview(year(start=gm({"event": "benefit_chosen", **benefit})))


# --- level 7: proficiency in three additional skills -----------------------------------------------------


def test_level_seven_grants_three_skills_pending() -> None:
    """§3.1 row 7 / A15: benefits of levels 2-7 are pending once reached; 5 (Extra Action) needs no choice."""
    g = at_level(7)
    assert [(b.level, b.benefit) for b in g.state.pending_benefits] == [
        (2, "feat"), (3, "asi"), (4, "feat"), (6, "asi"), (7, "three_skills")]


def test_three_skills_add_three_proficiencies_at_the_level_seven_bonus() -> None:
    """§3.2: Religion, Bureaucracy and Trade become proficient. Level 7's proficiency bonus is +3 (§3.1), so
    Religion's bonus is Culture +2 + 3 = +5 (it was +2), Bureaucracy Economy +1 + 3 = +4, Trade +1 + 3 = +4."""
    g = at_level(7)
    before = {sk: R.skill_bonus(g.state, sk) for sk in ("religion", "bureaucracy", "trade")}
    assert before == {"religion": 2, "bureaucracy": 1, "trade": 1}
    p = choose(g, level=7, benefit="three_skills", skills=["religion", "bureaucracy", "trade"])
    assert p.ok, p.error
    s = p.state_after
    assert set(s.chosen_proficiencies) == {"construction", "religion", "bureaucracy", "trade"}
    assert {sk: R.skill_bonus(s, sk) for sk in ("religion", "bureaucracy", "trade")} == {
        "religion": 5, "bureaucracy": 4, "trade": 4}
    assert (7, "three_skills") not in [(b.level, b.benefit) for b in s.pending_benefits]


@pytest.mark.parametrize(("skills", "why"), [
    (["religion", "bureaucracy"], "exactly 3"),                 # two skills
    (["religion", "religion", "trade"], "exactly 3 different"),  # the same skill twice
    (["religion", "bureaucracy", "agriculture"], "already proficient in agriculture"),  # Feudalism gives it
    (["religion", "bureaucracy", "construction"], "already proficient in construction"),  # level-1 skill
])
def test_three_skills_refusals(skills: list[str], why: str) -> None:
    """§3.2 / §2.5: three new, different skills, none already proficient; refused naming the rule."""
    g = at_level(7)
    p = choose(g, level=7, benefit="three_skills", skills=skills)
    assert not p.ok and why in (p.error or "") and "§" in (p.error or "")


def test_three_skills_needs_the_pending_benefit() -> None:
    """§3.2: the benefit is chosen only when level 7 granted it (a level-6 kingdom has none to spend)."""
    g = at_level(6)
    p = choose(g, level=7, benefit="three_skills", skills=["religion", "bureaucracy", "trade"])
    assert not p.ok and "no pending three_skills benefit from level 7" in (p.error or "")


# --- level 14: expertise in two skills -----------------------------------------------------------------


def test_two_expertise_doubles_the_proficiency_bonus() -> None:
    """§3.2 / §2.5: expertise in Agriculture and Construction. Level 14's bonus is +5, doubled to +10: Agriculture
    (Stability +1) goes from +6 to +11, Construction likewise; Defense stays +6 (proficient, no expertise)."""
    g = at_level(14)
    assert [R.skill_bonus(g.state, sk) for sk in ("agriculture", "construction", "defense")] == [6, 6, 6]
    p = choose(g, level=14, benefit="two_expertise", expertise=["agriculture", "construction"])
    assert p.ok, p.error
    s = p.state_after
    assert set(s.expertise) == {"agriculture", "construction"}
    assert [R.proficiency_term(s, sk) for sk in ("agriculture", "construction", "defense")] == [10, 10, 5]
    assert [R.skill_bonus(s, sk) for sk in ("agriculture", "construction", "defense")] == [11, 11, 6]


def test_expertise_shows_in_a_check_total() -> None:
    """§2.16 with expertise: Reduce Corruption of Decay rolls Construction (§3.10.4): d20 4 + Stability 1 +
    2 × 5 + Decay 0 + Unrest 0 = 15, band 10–19."""
    g = at_level(14)
    g.play(year(start=gm({"event": "benefit_chosen", "level": 14, "benefit": "two_expertise",
                          "expertise": ["agriculture", "construction"]})))
    fix = {"choices": {"actions": [{"action": "reduce_corruption", "target_track": "decay"}]},
           "rolls": {"a1.check": [4], "a1.target": [2]}}
    p = g.play(year(actions=fix))
    act = next(d.payload for d in p.drafts if d.type == "aikakirjat.action_taken")
    assert (act.audit["check"]["total"], act.audit["band"]) == (15, "10-19")
    assert act.audit["check"]["terms"]["proficiency (construction)"] == 10


@pytest.mark.parametrize(("expertise", "why"), [
    (["agriculture"], "exactly 2"),
    (["agriculture", "religion"], "expertise needs proficiency in religion"),
])
def test_two_expertise_refusals(expertise: list[str], why: str) -> None:
    """§3.2: expertise in two skills the kingdom is already proficient in."""
    g = at_level(14)
    p = choose(g, level=14, benefit="two_expertise", expertise=expertise)
    assert not p.ok and why in (p.error or "")


def test_expertise_of_a_lost_proficiency_lies_dormant() -> None:
    """A28: expertise in Agriculture (Feudalism's) is dormant under a Republic (no Agriculture) and returns with
    the proficiency: the term is 0, then 2 × 5 again."""
    from kingdomlog.rulesets.aikakirjat.state import KingdomState

    g = at_level(14)
    g.play(year(start=gm({"event": "benefit_chosen", "level": 14, "benefit": "two_expertise",
                          "expertise": ["agriculture", "construction"]})))
    s: KingdomState = g.state.model_copy(update={"government": "republic"})
    assert R.proficiency_term(s, "agriculture") == 0 and R.proficiency_term(s, "construction") == 10
    assert R.proficiency_term(s.model_copy(update={"government": "feudalism"}), "agriculture") == 10


# --- level 17: Rising Power ------------------------------------------------------------------------------


def test_rising_power_records_the_god_and_changes_nothing_else() -> None:
    """§3.2 Rising Power: the kingdom may create a god; no mechanical effect, only ``god_created`` (and the
    benefit is spent). Everything else of the state is as it was."""
    g = at_level(17)
    before = g.state
    p = choose(g, level=17, benefit="rising_power", god_created=True)
    assert p.ok, p.error
    chosen = next(d.payload for d in p.steps[0].drafts if d.type == "aikakirjat.benefit_chosen")
    changed = {op.path[0] for op in chosen.outcome.ops}
    assert changed == {"god_created", "pending_benefits"}
    assert p.steps[0].state_after.god_created is True and before.god_created is False
    declined = choose(g, level=17, benefit="rising_power", god_created=False)
    assert declined.ok and declined.steps[0].state_after.god_created is False


def test_rising_power_is_granted_once() -> None:
    """A15: regaining level 17 grants no second Rising Power."""
    g = at_level(17)
    g.play(year(start=gm({"event": "benefit_chosen", "level": 17, "benefit": "rising_power", "god_created": True},
                         {"event": "level_changed", "from_level": 17, "to_level": 16, "cause": "gm"},
                         {"event": "level_changed", "from_level": 16, "to_level": 17, "cause": "gm"})))
    assert (17, "rising_power") not in [(b.level, b.benefit) for b in g.state.pending_benefits]


# --- level 20: Global Empire -------------------------------------------------------------------------------

FAR = {"id": "hyperborea", "name": "Hyperborea", "diplomacy": 2, "population": 40}


def test_global_empire_is_needed_to_contact_any_kingdom() -> None:
    """§3.2 Global Empire: before level 20 is reached, the players cannot bring a far kingdom into reach."""
    g = at_level(19)
    p = g.preview(year(start=gm({"event": "kingdom_contacted", **FAR})))
    assert not p.ok and "§3.2 Global Empire" in (p.error or "") and "19" in (p.error or "")


def test_global_empire_makes_any_kingdom_an_embassy_target() -> None:
    """§3.2: at level 20 Hyperborea becomes a neighbour; an Embassy to it has DC 5 + 2 × |2| = 9 (§3.10.1):
    d20 7 + Loyalty 2 + Diplomacy 0 (not proficient) = 9 ≥ 9, diplomacy 2 → 3."""
    g = at_level(20)
    g.play(year(start=gm({"event": "kingdom_contacted", **FAR})))
    assert g.state.neighbours["hyperborea"].population == 40
    embassy = {"choices": {"actions": [{"action": "embassy", "neighbour_id": "hyperborea"}]},
               "rolls": {"a1.check": [7]}}
    p = g.play(year(actions=embassy))
    act = next(d.payload for d in p.drafts if d.type == "aikakirjat.action_taken")
    assert (act.audit["dc"], act.audit["check"]["total"], act.audit["band"]) == (9, 9, "improved")
    assert g.state.neighbours["hyperborea"].diplomacy == 3


def test_global_empire_stays_after_a_lost_level() -> None:
    """A15: benefits are kept on a level-down; Global Empire was granted when level 20 was first reached."""
    g = at_level(20)
    g.play(year(start=gm({"event": "level_changed", "from_level": 20, "to_level": 12, "cause": "gm"},
                         {"event": "kingdom_contacted", **FAR})))
    assert "hyperborea" in g.state.neighbours and g.state.level == 12


@pytest.mark.parametrize(("kingdom", "why"), [
    ({**FAR, "id": "kalevala"}, "already a neighbour"),
    ({**FAR, "profile": {"feats": ["dragon_riders"]}}, "dragon_riders"),
])
def test_kingdom_contacted_refusals(kingdom: dict[str, Any], why: str) -> None:
    g = Game()
    g.play(founding(neighbours=[{"id": "kalevala", "name": "Kalevala"}]))
    g.play(year(start=gm({"event": "gm_adjustment", "field": "population", "value": 60, "reason": "test"},
                         {"event": "level_changed", "from_level": 1, "to_level": 20, "cause": "gm"})))
    p = g.preview(year(start=gm({"event": "kingdom_contacted", **kingdom})))
    assert not p.ok and why in (p.error or "")
