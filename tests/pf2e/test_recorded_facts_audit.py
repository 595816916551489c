"""Numbers the fold used to derive are recorded in new event versions (issue 15), evolve applies them as they
are, and ``audit`` lists what today's rules would compute differently: Ruin overflow and penalty, Unrest and
Fame after their caps, founding structure numbers, stacking facts, structure bonuses where a check happened.
"""

from __future__ import annotations

from typing import Any

from kingdomlog.core.events import Draft, RecordedEvent, decode_payload, provisional
from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e.audit import audit
from kingdomlog.rulesets.pf2e.evolve import evolve
from kingdomlog.rulesets.pf2e.state import BuiltStructure, KingdomState, Ruin, Settlement

from .helpers import Game


def _rec(payload: Any) -> RecordedEvent:
    return provisional("test", 99, Draft(payload, phase="event.resolve", turn=1))


def _state(**upd: Any) -> KingdomState:
    return Game(options=upd.pop("options", {})).found().state.model_copy(update=upd)


def test_a_v2_ruin_change_replays_as_recorded_whatever_the_options_say() -> None:
    """RuinChanged v2 records the points and penalty after: evolve applies them, even where today's options
    (here ruin_overflow_at = reaches) would compute another result; the audit names the difference."""
    s = _state(options={"ruin_overflow_at": "reaches"}, ruin={**Game().found().state.ruin,
                                                             "crime": Ruin(points=8, threshold=10)})
    ev = _rec(E.RuinChanged(ruin="crime", delta=2, cause="test", points_after=10, penalty_after=0))
    after = evolve(s, ev)
    assert (after.ruin["crime"].points, after.ruin["crime"].penalty) == (10, 0)
    assert audit(s, ev) == ["crime +2 (test): 10 points, penalty 0 recorded; today's rules give 0, penalty 1"
                            " (§3.0.5)"]


def test_a_v1_ruin_change_replays_by_the_fold_and_the_audit_names_a_new_option() -> None:
    """A v1 RuinChanged (no values after) is folded as before (exceeds); under ruin_overflow_at = reaches the
    audit says what today's options would give."""
    v1 = decode_payload("pf2e.ruin_changed", 1, {"ruin": "crime", "delta": 2, "cause": "old"})
    assert isinstance(v1, E.RuinChanged) and v1.points_after is None
    s = _state(options={"ruin_overflow_at": "reaches"}, ruin={**Game().found().state.ruin,
                                                             "crime": Ruin(points=8, threshold=10)})
    after = evolve(s, _rec(v1))
    assert (after.ruin["crime"].points, after.ruin["crime"].penalty) == (10, 0)
    assert audit(s, _rec(v1)) == ["crime +2 (old): replays to 10 points, penalty 0 (v1, the fold's rule); today's"
                                  " options give 0, penalty 1 (§3.0.5)"]
    plain = _state(ruin={**Game().found().state.ruin, "crime": Ruin(points=8, threshold=10)})
    assert audit(plain, _rec(v1)) == []


def test_unrest_and_fame_after_are_recorded() -> None:
    """UnrestChanged v2 / FameChanged v2 carry the value after; a tampered value replays and is audited."""
    s = _state(unrest=3, fame=2)
    u = _rec(E.UnrestChanged(delta=-5, cause="test", unrest_after=1))
    assert evolve(s, u).unrest == 1
    assert audit(s, u) == ["Unrest -5 (test): 1 recorded after, today's rules give 0 (§3.0.7)"]
    f = _rec(E.FameChanged(delta=5, reason="test", fame_after=3))
    assert evolve(s, f).fame == 3 and audit(s, f) == []  # the cap 3 (level 1)


def test_a_structure_recorded_before_stacking_facts_is_named() -> None:
    """StructureBuilt v1 of a Mill: it replays with its reduction adding up (as then); the audit names the
    stacking facts today's data would record (the Mill's water condition)."""
    s = _state()
    v1 = decode_payload("pf2e.structure_built", 1, {"settlement": s.settlements[0].id, "structure": "mill",
                                                     "block": 0, "lots": [1], "consumption_reduction": 1,
                                                     "item_bonuses": {"activity:harvest-crops": 1}})
    out = audit(s, _rec(v1))
    assert len(out) == 1
    assert "recorded by an older version, before structures recorded their stacking facts" in out[0]
    assert "'reduction_when': 'water'" in out[0]
    after = evolve(s, _rec(v1))
    mill = next(b for b in after.settlements[0].structures if b.name == "mill")
    assert mill.reduction_stacks is None and mill.reduction_when == ""


def test_a_check_that_took_a_bonus_from_elsewhere_is_named() -> None:
    """A check made in settlement Far that recorded Oakhold's Library (+1, the kingdom-wide reading before
    issue 15): today's rules give no structure bonus there."""
    s = _state()
    cap = s.settlements[0].model_copy(update={"structures": (BuiltStructure(
        name="library", block=0, lots=(1,), item_bonuses={"skill:scholarship": 1}),)})
    far = Settlement(id="far", name="Far", hex="H0")
    s = s.model_copy(update={"settlements": (cap, far)})
    chk = E.CheckResolved(check_id="1:x:a1", activity="creative-solution", category="leadership",
                          settlement="far", skill="scholarship", ability="culture", dc=14, die=10, modifier=3,
                          terms=[E.TermOut(label="culture modifier", value=2, kind="ability"),
                                 E.TermOut(label="library (Oakhold)", value=1, kind="item")],
                          total=13, base_degree="failure", degree="failure")
    out = audit(s, _rec(chk))
    assert out == ["check 1:x:a1 (creative-solution): structure item bonus recorded library (Oakhold) +1; today's"
                   " rules give none for a check at settlement far (§5.10 structures reach their settlement and its"
                   " influence; identical structures stack)"]
    here = chk.model_copy(update={"settlement": "oakhold"})
    assert audit(s, _rec(here)) == []


def test_founding_v3_structure_numbers_replay_as_recorded() -> None:
    """KingdomFounded v3 records its structures' numbers: a founding whose Granary recorded storage 2 (data
    today: 1) replays with 2, and the audit names the difference."""
    g = Game()
    from .helpers import SECTION6_FOUNDING

    pv = g.play({"founding": {"choices": {**SECTION6_FOUNDING, "structures": ["granary"]}}})
    ev = next(d.payload for d in pv.drafts if isinstance(d.payload, E.KingdomFounded))
    facts = ev.structure_facts or []
    changed = ev.model_copy(update={"structure_facts": [facts[0].model_copy(update={"storage": {"food": 2}})]})
    s0 = Game().state
    after = evolve(s0, _rec(changed))
    assert after.settlements[0].structures[0].storage == {"food": 2}
    assert audit(s0, _rec(changed)) == ["founding structure granary: storage {'food': 2} recorded, today's data"
                                        " {'food': 1}"]
