"""Ruin overflow at the threshold, the Ruin penalty cap, and issue 15's campaign options: each option changes
what it says and nothing else (the same turn is played with the option off and on; everything but what the
option names stays equal). Numbers worked by hand in each test's comments.

The founding kingdom (helpers.SECTION6_FOUNDING) starts with Crime 2/10, penalty 0.
"""

from __future__ import annotations

from typing import Any

import pytest

from kingdomlog.core.viewers import Viewer
from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e import rules as R
from kingdomlog.rulesets.pf2e.ruleset import OPTIONS, RULESET
from kingdomlog.rulesets.pf2e.state import Army, Ruin, Settlement, check_modifier, proficiency_bonus, resource_dice

from .helpers import Game, events_of, step_state


def _gm_ruin(options: dict[str, Any], amount: int, *, crime: Ruin | None = None, fame: int | None = None,
             avert: bool = False) -> tuple[Ruin, list[Any]]:
    """Crime + ``amount`` by a GM-ruled effect in E2; the Ruin after and the step's events."""
    g = Game(options=options).found()
    upd: dict[str, Any] = {}
    if crime is not None:
        upd["ruin"] = {**g.state.ruin, "crime": crime}
    if upd:
        g.state = g.state.model_copy(update=upd)
    steps: dict[str, Any] = {"event.resolve": {"choices": {"gm_effects": [
        {"kind": "ruin", "target": "crime", "amount": amount}], "avert_ruin_penalty_with_fame": avert}}}
    if fame is not None:
        steps["upkeep.leadership"] = {"choices": {}}
    pv = g.play(steps)
    return step_state(pv, "event.resolve").ruin["crime"], events_of(pv, "event.resolve")


# ------------------------------------------------------------------ Ruin at exactly the threshold (mutation gap)


def test_ruin_at_exactly_the_threshold_does_not_overflow() -> None:
    """§3.0.5 "while value > threshold": Crime 2 + 8 = 10 = threshold: no overflow, no penalty; + 9 = 11 > 10:
    11 - 10 = 1, penalty 1. Off by one either way (>= or > threshold + 1) fails one of the two."""
    at, _ = _gm_ruin({}, 8)
    assert (at.points, at.penalty) == (10, 0)
    past, _ = _gm_ruin({}, 9)
    assert (past.points, past.penalty) == (1, 1)


def test_ruin_overflow_kernel_at_the_threshold() -> None:
    """The kernel: 9 + 1 = 10 stays (10, 0); 9 + 2 = 11 -> (1, 1); exactly 20 from 0 overflows once (20 -> 10,
    not again: 10 is not > 10)."""
    kw: dict[str, Any] = {"mode": "subtract_threshold", "penalty_cap": 0, "averted": False}
    assert R.ruin_after(9, 10, 0, 1, **kw) == (10, 0)
    assert R.ruin_after(9, 10, 0, 2, **kw) == (1, 1)
    assert R.ruin_after(0, 10, 0, 20, **kw) == (10, 1)
    assert R.ruin_after(0, 10, 0, 21, **kw) == (1, 2)


def test_option_ruin_overflow_at_reaches() -> None:
    """Option ruin_overflow_at = reaches: Crime 2 + 8 = 10 reaches 10: 0, penalty 1 (published "exceeds": 10, 0).
    Nothing else differs: the recorded event, cause and delta are the same."""
    off, ev_off = _gm_ruin({}, 8)
    on, ev_on = _gm_ruin({"ruin_overflow_at": "reaches"}, 8)
    assert (off.points, off.penalty) == (10, 0)
    assert (on.points, on.penalty) == (0, 1)
    a = next(e for e in ev_off if isinstance(e, E.RuinChanged))
    b = next(e for e in ev_on if isinstance(e, E.RuinChanged))
    assert (a.delta, a.cause) == (b.delta, b.cause) == (8, "GM ruling")
    assert (a.points_after, a.penalty_after, b.points_after, b.penalty_after) == (10, 0, 0, 1)


# ------------------------------------------------------------------ ruin_penalty_cap (mutation gap)


@pytest.mark.parametrize(("penalty", "cap", "want"), [
    (1, 2, 2),  # one below the cap: rises to it
    (2, 2, 2),  # at the cap: stays
    (2, 3, 3),  # the cap one higher: rises
    (2, 0, 3),  # 0 = no cap
])
def test_ruin_penalty_cap_bounds_the_penalty(penalty: int, cap: int, want: int) -> None:
    """§5.17 ruin_penalty_cap: Crime 5/10 + 6 = 11 > 10 -> 1, penalty + 1, bounded by the cap (0 = none)."""
    r, ev = _gm_ruin({"ruin_penalty_cap": cap}, 6, crime=Ruin(points=5, threshold=10, penalty=penalty))
    assert (r.points, r.penalty) == (1, want)
    rec = next(e for e in ev if isinstance(e, E.RuinChanged))
    assert rec.penalty_after == want  # recorded (v2)


def test_ruin_penalty_cap_with_two_overflows() -> None:
    """Crime 0 + 21 with cap 1: two overflows (21 -> 11 -> 1) would give penalty 2; the cap keeps 1."""
    r, _ = _gm_ruin({"ruin_penalty_cap": 1}, 21, crime=Ruin(points=0, threshold=10, penalty=0))
    assert (r.points, r.penalty) == (1, 1)


# ------------------------------------------------------------------ Fame averting a Ruin penalty


def _averted(option: str) -> tuple[Ruin, list[Any]]:
    g = Game(options={"fame_averts_ruin": option}).found()
    g.state = g.state.model_copy(update={"fame": 1})
    pv = g.play({"event.resolve": {"choices": {"gm_effects": [{"kind": "ruin", "target": "crime", "amount": 9}],
                                               "avert_ruin_penalty_with_fame": True}}})
    return step_state(pv, "event.resolve").ruin["crime"], events_of(pv, "event.resolve")


def test_option_fame_averts_ruin() -> None:
    """§3.0.5 Fame spent on a Ruin overflow: Crime 2 + 9 = 11 against its threshold 10. Default
    overflow_without_penalty: 1, penalty 0 (the points overflow, the penalty does not rise); no_gain: the 9 are
    not added (2, penalty 0); stop_at_threshold (issue 30: the reading in which the averted Ruin stops at its
    threshold): 10, penalty 0. Fame is spent either way."""
    a, ev_a = _averted("overflow_without_penalty")
    b, ev_b = _averted("no_gain")
    c, ev_c = _averted("stop_at_threshold")
    assert (a.points, a.penalty) == (1, 0)
    assert (b.points, b.penalty) == (2, 0)
    assert (c.points, c.penalty) == (10, 0)
    for ev in (ev_a, ev_b, ev_c):
        assert any(isinstance(e, E.FameSpent) and e.kind == "ruin_penalty" for e in ev)


# ------------------------------------------------------------------ Fame averting anarchy


def _anarchy(option: str) -> Any:
    g = Game(options={"fame_averts_anarchy": option, "anarchy_threshold": 5}).found(
        resume={"turn": 1, "unrest": 7})
    return g.play({"upkeep.unrest": {"choices": {"avert_anarchy_with_fame": True}}})


def test_option_fame_averts_anarchy() -> None:
    """§3.0.7 with anarchy at 5 and Unrest 7 (U2 adds nothing on this kingdom): this_turn keeps Unrest 7 and the
    kingdom out of anarchy this turn; unrest_below lowers Unrest to 4 (one below 5)."""
    keep = step_state(_anarchy("this_turn"), "upkeep.unrest")
    lower = step_state(_anarchy("unrest_below"), "upkeep.unrest")
    assert (keep.unrest, keep.anarchy_averted, keep.anarchy) == (7, True, False)
    assert (lower.unrest, lower.anarchy_averted, lower.anarchy) == (4, True, False)
    assert keep.fame == lower.fame == 0


# ------------------------------------------------------------------ structures' reach


def _two_towns(options: dict[str, Any]) -> Any:
    """Oakhold (capital) has a Library (+1 item to Scholarship, §5.15 data); a second settlement Far has none."""
    from kingdomlog.rulesets.pf2e.state import BuiltStructure

    g = Game(options=options).found()
    cap = g.state.settlements[0]
    lib = BuiltStructure(name="library", block=0, lots=(1,), item_bonuses={"skill:scholarship": 1})
    cap = cap.model_copy(update={"structures": (*cap.structures, lib)})
    far = Settlement(id="far", name="Far", hex="H0")
    return g.state.model_copy(update={"settlements": (cap, far)})


def _item(b: Any) -> int:
    return sum(int(t.value) for t in b.terms if t.kind == "item")


def test_option_structure_bonus_scope() -> None:
    """§5.10: a check in Far gets nothing from Oakhold's Library (location, published); in Oakhold or with no
    place named (the capital) +1. With structure_bonus_scope = kingdom every check gets the +1."""
    s = _two_towns({})
    assert _item(check_modifier(s, "scholarship", settlement="far")) == 0
    assert _item(check_modifier(s, "scholarship", settlement="oakhold")) == 1
    assert _item(check_modifier(s, "scholarship")) == 1
    k = _two_towns({"structure_bonus_scope": "kingdom"})
    assert _item(check_modifier(k, "scholarship", settlement="far")) == 1
    assert _item(check_modifier(k, "arts", settlement="far")) == 0  # nothing else changes


def test_option_capital_structures_everywhere() -> None:
    """House rule: the capital's Library reaches a check in Far too (+1); other skills unchanged."""
    s = _two_towns({"capital_structures_everywhere": True})
    assert _item(check_modifier(s, "scholarship", settlement="far")) == 1
    assert _item(check_modifier(s, "arts", settlement="far")) == 0


# ------------------------------------------------------------------ homebrew (Vance & Kerenshara)


def test_option_untrained_proficiency() -> None:
    """§5.7 untrained adds 0; homebrew half_level adds level // 2, level adds the level. Trained is unchanged
    (level 3: 3 + 2 = 5 whatever the option)."""
    assert [proficiency_bonus("untrained", 3, m) for m in ("none", "half_level", "level")] == [0, 1, 3]
    assert {proficiency_bonus("trained", 3, m) for m in ("none", "half_level", "level")} == {5}
    g = Game(options={"untrained_proficiency": "level"}).found()
    base = Game().found()
    # level 1: an untrained skill (defense) gains +1, a trained one (arts) nothing
    assert check_modifier(g.state, "defense").total == check_modifier(base.state, "defense").total + 1
    assert check_modifier(g.state, "arts").total == check_modifier(base.state, "arts").total


def test_option_xp_per_hex_mode() -> None:
    """§5.13: 10 XP per hex (published); Vance & Kerenshara by size before the claim: < 10: 100, < 25: 50,
    < 50: 25, < 100: 10, else 5. The published xp_per_hex option is ignored in that mode."""
    assert R.xp_for_hex({}, 1) == R.xp_for_hex({}, 200) == 10
    assert R.xp_for_hex({"xp_per_hex": 12}, 1) == 12
    vk = {"xp_per_hex_mode": "vk", "xp_per_hex": 12}
    assert [R.xp_for_hex(vk, n) for n in (1, 9, 10, 24, 25, 49, 50, 99, 100)] == [100, 100, 50, 50, 25, 25, 10,
                                                                                   10, 5]


def _claim(options: dict[str, Any]) -> int:
    g = Game(options=options).found()
    g.state = g.state.model_copy(update={"pending": g.state.pending.model_copy(update={"rp": 10})})
    pv = g.play({"activity.region": {"choices": {"activities": [
        {"activity": "claim-hex", "skill": "wilderness", "hex": {"id": "H1", "terrain": "plains", "q": 1, "r": 0}}]},
        "rolls": {"a1": [15]}}})
    return next(e.xp for e in events_of(pv, "activity.region") if isinstance(e, E.HexClaimed))


def test_option_xp_per_hex_mode_in_a_claim() -> None:
    """A size-1 kingdom claims its second hex: 10 XP (published), 100 XP (vk)."""
    assert _claim({}) == 10
    assert _claim({"xp_per_hex_mode": "vk"}) == 100


def test_option_rp_to_xp_mode() -> None:
    """§3.4 E3: 17 unspent RP at level 3 give 17 XP (published); Vance & Kerenshara 10 XP per RP at levels 1-4,
    up to rp_to_xp_limit 120 XP: 12 RP become 120 XP, 5 are discarded."""
    assert R.rp_to_xp_at(17, 120, R.rp_to_xp_rate(3)) == (17, 0)
    assert R.rp_to_xp_at(17, 120, R.rp_to_xp_rate(3, "vk")) == (120, 5)
    assert R.rp_to_xp_at(17, 120, R.rp_to_xp_rate(9, "vk")) == (85, 0)  # 17 x 5


def _rp_to_xp(options: dict[str, Any]) -> E.RPConverted:
    g = Game(options=options).found()
    g.state = g.state.model_copy(update={"pending": g.state.pending.model_copy(update={"rp": 0})})
    pv = g.play({"upkeep.resources": {"rolls": {"resource": [1, 1, 1, 1, 1]}}})
    return next(e for e in events_of(pv, "event.xp") if isinstance(e, E.RPConverted))


def test_option_rp_to_xp_mode_in_a_turn() -> None:
    """Level 1, 5 Resource Dice all 1 = 5 RP unspent: 5 XP (published), 50 XP (vk, 10 each)."""
    assert (_rp_to_xp({}).rp, _rp_to_xp({}).xp) == (5, 5)
    assert _rp_to_xp({"rp_to_xp_mode": "vk"}).xp == 50


def test_option_resource_dice_per_settlement_type() -> None:
    """House rule: extra Resource Dice per settlement by type (a village here: +2); the other types do nothing
    to a kingdom of one village."""
    base = Game().found().state
    village = Game(options={"resource_dice_per_village": 2}).found().state
    town = Game(options={"resource_dice_per_town": 3}).found().state
    assert resource_dice(village).total == resource_dice(base).total + 2
    assert resource_dice(town).total == resource_dice(base).total


# ------------------------------------------------------------------ armies in player views


def _with_armies(option: str) -> Any:
    g = Game(options={"army_visibility": option}).found()
    mk = {"hp": 4, "hp_max": 4, "rout_threshold": 2, "ac": 16, "maneuver": 4, "morale": 4, "scouting": 4,
          "attack": 6}
    units = (Army(id="ours", name="Militia", **mk), Army(id="seen", name="Raiders", side="enemy", **mk),
             Army(id="hidden", name="Ambush", side="enemy", revealed=False, **mk))
    return g.state.model_copy(update={"army_units": units})


@pytest.mark.parametrize(("option", "shown"), [("revealed", ["ours", "seen"]), ("all", ["ours", "seen", "hidden"]),
                                               ("none", ["ours"])])
def test_option_army_visibility(option: str, shown: list[str]) -> None:
    """A player view shows the kingdom's armies and the enemy armies the option lets through; the GM sees all."""
    s = _with_armies(option)
    player = RULESET.redact(s, Viewer(kind="player", id="players"))
    gm = RULESET.redact(s, Viewer(kind="gm", id="gm"))
    assert [a.id for a in player.army_units] == shown
    assert [a.id for a in gm.army_units] == ["ours", "seen", "hidden"]
    assert player.model_dump(exclude={"army_units"}) == s.model_dump(exclude={"army_units"})


def test_every_issue15_option_is_declared() -> None:
    names = {o.name for o in OPTIONS}
    assert {"ruin_overflow_at", "fame_averts_ruin", "fame_averts_anarchy", "structure_bonus_scope",
            "capital_structures_everywhere", "untrained_proficiency", "xp_per_hex_mode", "rp_to_xp_mode",
            "resource_dice_per_village", "resource_dice_per_town", "resource_dice_per_city",
            "resource_dice_per_metropolis", "cult_events", "army_visibility"} <= names


@pytest.mark.parametrize("at", ["exceeds", "reaches"])
def test_fame_stopping_a_ruin_at_its_threshold_audits_clean(at: str) -> None:
    """The stop_at_threshold reading records Crime 2 -> 10 (penalty 0), whether a Ruin overflows when it exceeds
    or reaches its threshold; the audit under that option finds nothing to warn about."""
    from kingdomlog.rulesets.pf2e.audit import AUDITS

    g = Game(options={"fame_averts_ruin": "stop_at_threshold", "ruin_overflow_at": at}).found()
    g.state = g.state.model_copy(update={"fame": 1})
    before = g.state
    pv = g.play({"event.resolve": {"choices": {"gm_effects": [{"kind": "ruin", "target": "crime", "amount": 9}],
                                               "avert_ruin_penalty_with_fame": True}}})
    ch = next(e for e in events_of(pv, "event.resolve") if isinstance(e, E.RuinChanged))
    assert (ch.delta, ch.points_after, ch.penalty_after, ch.penalty_averted) == (8, 10, 0, True)
    check = AUDITS.get(ch)
    assert check is not None and check(before, ch) == []
