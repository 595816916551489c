"""What the turn sheet offers an activity row (issue 12): the structure browser marks what the kingdom cannot build
now, and an activity's skill picker what the rules refuse, each with a reason and the step's rule (a skill's in
fewer words: the step's refusal says it whole).

Every structure offered without a mark really builds when played; every mark names a rule; a skill outside the
activity's (or the structure's) skills is marked; and a plan that picks a marked option is refused with the mark.
"""

from __future__ import annotations

from typing import Any

import pytest

from kingdomlog.core.choices import Option

from .helpers import RS, Game, step_state

RICH = {"upkeep.resources": {"rolls": {"resource": [4, 4, 4, 4, 4]}}}  # 5 Resource Dice of d4 at level 1: 20 RP


def civic_state(**found: Any) -> tuple[Game, Any]:
    """A founded kingdom and its state when the Civic activities start (after 20 RP were rolled)."""
    g = Game().found(**found)
    start = (g.state, g.seq, g.turn)
    pv = g.play(RICH)
    g.state, g.seq, g.turn = start  # the same turn is played again with the row under test
    return g, step_state(pv, "activity.region")


def options(state: Any, source: str, **within: Any) -> dict[Any, Option]:
    got = RS.vocabulary(state, source, within)
    assert got is not None
    return {o.value: o for o in got}


def test_structures_marked_by_level_cost_and_skill() -> None:
    _, s = civic_state()
    assert s.rp == 20 and s.level == 1
    opts = options(s, "buildable_structures", activity="build-structure")
    assert opts["houses"].disabled == ""
    assert "above the kingdom's level 1 (§4.9.1 structure level)" in opts["bank"].disabled
    # Granary: 12 RP and 1 lumber (the kingdom has 2): buildable; Mill needs more lumber than it has
    assert opts["granary"].disabled == ""
    lacking = [o for o in opts.values() if "§4.9.3" in o.disabled]
    assert lacking, "some level-1 structure needs commodities the kingdom lacks"
    for o in opts.values():
        assert o.disabled == "" or o.disabled.endswith(")"), o  # every mark names its rule
    # another Civic activity offers every structure unmarked
    assert all(not o.disabled for o in options(s, "buildable_structures", activity="demolish").values())


def test_every_unmarked_structure_builds() -> None:
    """The marks are not guesses: each structure offered without one is played and built (the check rolled a
    natural 20); each marked one is refused by the step with the same words."""
    _, s = civic_state()
    opts = options(s, "buildable_structures", activity="build-structure")
    free = [v for v, o in opts.items() if not o.disabled]
    assert len(free) >= 3
    for name in free:
        g2, _ = civic_state()
        pv = g2.play({**RICH, "activity.civic": {"choices": {"activities": [
            {"activity": "build-structure", "structure": name}]}, "rolls": {"a1": [20]}}}, check=False)
        assert pv.ok, (name, pv.error)
        built = step_state(pv, "activity.civic").settlements[0].structures
        assert any(b.name == name for b in built), name
    marked = next(v for v, o in opts.items() if "§3.0.3" in o.disabled or "§4.9.3" in o.disabled)
    g3, _ = civic_state()
    pv = g3.play({**RICH, "activity.civic": {"choices": {"activities": [
        {"activity": "build-structure", "structure": marked}]}, "rolls": {"a1": [20]}}}, check=False)
    assert not pv.ok and opts[marked].disabled in (pv.error or "")


def test_ruins_make_a_structure_affordable() -> None:
    _, s = civic_state(hexes=[{"id": "H0", "terrain": "plains", "features": ["ruins"], "q": 0, "r": 0}])
    s2 = s.model_copy(update={"rp": 8})
    assert "costs 12 RP but the kingdom has 8" in options(s2, "buildable_structures",
                                                          activity="build-structure")["granary"].disabled
    assert options(s2, "buildable_structures", activity="build-structure", use_ruins=True)["granary"].disabled == ""


def test_a_full_block_given_by_the_gm_marks_the_structure() -> None:
    """The row's own block is the one checked: houses in block 0 once it is full; without a block, the one the
    step would pick."""
    _, s = civic_state(structures=["houses"] * 4)  # 1 lot each: block 0 full
    mark = options(s, "buildable_structures", activity="build-structure", block=0)["houses"].disabled
    assert "§4.9.2" in mark
    # left to the step, the place would be a new block: a village cannot grow to a town before level 3
    assert "cannot grow to 2 blocks (town) before kingdom level 3 (§5.10 settlement types)" in options(
        s, "buildable_structures", activity="build-structure")["houses"].disabled


@pytest.mark.parametrize("activity", ["claim-hex", "quell-unrest", "establish-trade-agreement"])
def test_skills_outside_an_activity_are_marked(activity: str) -> None:
    _, s = civic_state()
    from kingdomlog.rulesets.pf2e import tables as T

    act = T.catalog(s.homebrew).activities[activity]
    opts = options(s, "activity_skills", activity=activity)
    assert list(opts)[: len(act.skills)] == act.skills  # the activity's own skills first
    for sk, o in opts.items():
        if sk not in act.skills:
            assert "§4 activity skills" in o.disabled, (sk, o)
        elif o.disabled:
            assert "§4 proficiency requirement" in o.disabled or "§4.4" in o.disabled, (sk, o)


def test_build_structure_skills_are_the_structure_s() -> None:
    _, s = civic_state()
    opts = options(s, "activity_skills", activity="build-structure", structure="houses")
    assert [sk for sk, o in opts.items() if not o.disabled] == ["industry"]
    assert opts["arts"].disabled == "not the structure's (§4.9.4)"
    # before a structure is picked, every skill stays open
    assert all(not o.disabled for o in options(s, "activity_skills", activity="build-structure").values())


def test_a_plan_picking_a_marked_skill_is_refused_with_the_mark() -> None:
    g, s = civic_state()
    pv = g.play({**RICH, "activity.region": {"choices": {"activities": [
        {"activity": "claim-hex", "skill": "arts", "hex": {"id": "H1", "terrain": "plains", "q": 1, "r": 0}}]}}},
        check=False)
    assert not pv.ok
    mark = options(s, "activity_skills", activity="claim-hex")["arts"].disabled
    assert mark == "not the activity's (§4 activity skills)"
    assert "§4 activity skills" in (pv.error or "") and "'arts'" in (pv.error or "")  # the refusal says it whole


def test_skill_and_branch_options_hold_no_id() -> None:
    """A person reads no catalog id in the skill pickers of an activity or an event, nor in an outcome's branches:
    it read "Agriculture — stability, trained, +6; not a skill of archaeological-find" (an event's id), "not a
    skill of garrison" (an activity's)."""
    from kingdomlog.rulesets.pf2e import tables as T
    from kingdomlog.rulesets.pf2e.choices import activity_branches, event_branches
    from kingdomlog.views.words import option_text

    _, s = civic_state()
    cat = T.catalog(s.homebrew)
    ids = {x.name for x in [*cat.activities.values(), *cat.events.values(), *cat.structures.values()]
           if "-" in x.name}  # an id of one word is a word too ("the inquisition returns"): two named below
    assert {"archaeological-find", "claim-hex", "build-structure"} <= ids
    said = []
    for a in cat.activities:
        said += [option_text(o) for o in options(s, "activity_skills", activity=a).values()]
        said += [option_text(o) for o in activity_branches(s, a) or ()]
    for st in cat.structures:
        said += [option_text(o) for o in options(s, "activity_skills", activity="build-structure",
                                                  structure=st).values()]
    for e in cat.events:
        said += [option_text(o) for o in options(s, "event_skills", event=e).values()]
        said += [option_text(o) for o in event_branches(s, e) or ()]
    assert len(said) > 1000
    import re
    words = {w for t in said for w in re.findall(r"[\w'-]+", t)}
    assert words & ids == set(), sorted(words & ids)[:10]
    assert not {"garrison", "houses"} & words  # the activity Garrison, the structure Houses: by their ids
