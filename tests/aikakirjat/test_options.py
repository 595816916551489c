"""Campaign options switch the proposals that change numbers (§8.4)."""

from __future__ import annotations

from aik_helpers import Game, founding, quiet_year

from kingdomlog.rulesets.aikakirjat import rules as R
from kingdomlog.rulesets.aikakirjat import war
from kingdomlog.rulesets.aikakirjat.options import DEFAULTS
from kingdomlog.rulesets.aikakirjat.state import KingdomState, Neighbour, NeighbourProfile


def state(**opts: object) -> KingdomState:
    return KingdomState(options={**DEFAULTS, **opts}, founded=True, technology_level=4,
                        neighbours={"n": Neighbour(id="n", name="N", profile=NeighbourProfile(technology_level=1))})


def test_damage_dice_options() -> None:
    """A63: a technology gap of 3 gives 1 + 3 = 4 dice by default, 3 under 'difference'; A19: levy die option."""
    assert war.damage_dice(state(), "players", "n") == 4
    assert war.damage_dice(state(tech_extra_dice="difference"), "players", "n") == 3
    assert war.damage_dice(state(tech_extra_dice="difference"), "n", "players") == 1
    assert R.militia_damage_die(state()) == 4 and R.militia_damage_die(state(damage_die="levy_die")) == 6


def test_defence_base_option() -> None:
    """A61: defence 8 + Defense 2 + Stability 1 = 11 for the §7 kingdom; 13 with a base of 10."""
    for base, expect in ((8, 11), (10, 13)):
        g = Game({"defence_base": base})
        g.play(founding())
        assert war.defence_value(g.state, "players")[0] == expect


def test_growth_check_option() -> None:
    """A45: a plain Stability check drops the Agriculture proficiency: d20 9 + 1 = 10 instead of 12."""
    for opt, total in (("agriculture_stability", 12), ("stability", 10)):
        g = Game({"growth_check": opt})
        g.play(founding())
        p = g.play(quiet_year(growth={"rolls": {"growth": [9]}}))
        gr = next(d.payload for d in p.drafts if d.type == "aikakirjat.growth_rolled")
        assert gr.audit["check"]["total"] == total, opt


def test_evil_presence_mode_option() -> None:
    """A30: result 1 is a −1 on the ability until vanquished, or (option) one corruption point."""
    for mode in ("modifier", "point"):
        g = Game({"evil_presence_mode": mode})
        g.play(founding())
        g.play(quiet_year(events={"rolls": {"event": [2, 3]}}))
        g.play(quiet_year(events={"rolls": {"event": [1, 1]}, "choices": {"evil_ability": "culture"}}))
        if mode == "modifier":
            assert g.state.evil_presence == {"culture": -1} and g.state.tracks["decadence"].points == 0
        else:
            assert g.state.evil_presence == {} and g.state.tracks["decadence"].points == 1


def test_options_are_recorded_in_the_founding_event() -> None:
    """§8.4: the option values travel in KingdomFounded, so a replay reproduces the original results."""
    g = Game({"corruption_overflow": "reset"})
    p = g.play(founding())
    assert p.drafts[0].payload.options["corruption_overflow"] == "reset"
    assert R.opt(g.state, "corruption_overflow") == "reset"
