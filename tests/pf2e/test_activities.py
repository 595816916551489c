"""Activity paths beyond §6: leadership changes, settlements, roads, demolish, trade agreements, choices()."""

from __future__ import annotations

from typing import Any

from pydantic_core import to_jsonable_python

from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e.decide import STEP_IDS
from kingdomlog.rulesets.pf2e.state import Hex, check_modifier

from .helpers import RS, Game, events_of, step_state

RICH = {"upkeep.resources": {"rolls": {"resource": [4, 4, 4, 4, 4]}}}


def _rich(g: Game) -> Game:
    g.state = g.state.model_copy(update={"pending": g.state.pending.model_copy(update={"rp": 60})})
    return g


def test_new_leadership_fills_the_magister() -> None:
    """§4.2: Statecraft matches the Magister (+2 circumstance); success fills the role now."""
    g = Game().found()
    pv = g.play({"upkeep.leadership": {"choices": {"new_leadership": [
        {"role": "magister", "holder": "Ezra", "kind": "pc", "skill": "statecraft"}]}, "rolls": {"nl1": [15]}}})
    chk = next(e for e in events_of(pv, "upkeep.leadership") if isinstance(e, E.CheckResolved))
    assert ("matching role", 2, "circumstance") in [(t.label, t.value, t.kind) for t in chk.terms]
    assert step_state(pv, "upkeep.leadership").leaders["magister"].holder == "Ezra"


def test_vacant_ruler_raises_control_dc_and_unrest() -> None:
    """§5.11: a vacant Ruler: Control DC +2, -1 to all checks, +1d4 Unrest at U2."""
    g = Game().found(leaders={
        "counselor": {"holder": "B", "invested": True}, "treasurer": {"holder": "C", "invested": True},
        "general": {"holder": "D", "invested": True}, "warden": {"holder": "E", "invested": True}})
    assert g.state.control_dc == 16
    pv = g.play({"upkeep.unrest": {"rolls": {"ruler_vacancy": [3]}}})
    assert step_state(pv, "upkeep.unrest").unrest == 2 + 3
    chk = next(e for e in events_of(pv, "commerce.taxes") if isinstance(e, E.CheckResolved))
    assert ("ruler vacancy", -1, "untyped") in [(t.label, t.value, t.kind) for t in chk.terms]


def test_establish_settlement_and_roads() -> None:
    """§4.8: a settlement on a cleared hex (success: 3d6 RP); roads cost terrain RP, doubled by a river."""
    g = _rich(Game().found())
    g.state = g.state.model_copy(update={"hexes": (*g.state.hexes, Hex(id="H2", terrain="hills", river=True))})
    pv = g.play({"activity.region": {"choices": {"activities": [
        {"activity": "establish-settlement", "hex": "H2", "id": "tatz", "name": "Tatzford", "skill": "politics"},
        {"activity": "build-roads", "hex": "H2"}]},
        "rolls": {"a1": [15], "a1.e1": [2, 3, 4], "a2": [15]}}})
    s = step_state(pv, "activity.region")
    assert [st.name for st in s.settlements] == ["Oakhold", "Tatzford"]
    rp = [e for e in events_of(pv, "activity.region") if isinstance(e, E.RPChanged)]
    assert [-e.delta for e in rp] == [9, 4]  # 2+3+4, then hills 2 x river 2
    assert next(h for h in s.hexes if h.id == "H2").roads


def test_demolish_clears_a_lot() -> None:
    """§4.9 Demolish: success clears the lot."""
    g = Game().found()
    pv = g.play({"activity.civic": {"choices": {"activities": [
        {"activity": "demolish", "block": 0, "lot": 0}]}, "rolls": {"a1": [15]}}})
    st = step_state(pv, "activity.civic").settlements[0]
    assert st.blocks[0][0] == "" and st.structures == ()


def test_build_critical_failure_leaves_rubble_and_failure_keeps_payment() -> None:
    """§4.9: failure keeps the payment for a retry; critical failure leaves Rubble."""
    g = _rich(Game().found())
    pv = g.play({"activity.civic": {"choices": {"activities": [
        {"activity": "build-structure", "structure": "granary"}]}, "rolls": {"a1": [3]}}})
    st = step_state(pv, "activity.civic").settlements[0]
    assert st.paid_unbuilt == ("granary",)
    _rich(g)
    pv2 = g.play({"activity.civic": {"choices": {"activities": [
        {"activity": "build-structure", "structure": "granary"}]}, "rolls": {"a1": [15]}}})
    assert not [e for e in events_of(pv2, "activity.civic") if isinstance(e, E.RPChanged)]  # no second payment
    g3 = _rich(Game().found())
    pv3 = g3.play({"activity.civic": {"choices": {"activities": [
        {"activity": "build-structure", "structure": "granary"}]}, "rolls": {"a1": [1]}}})
    assert step_state(pv3, "activity.civic").settlements[0].blocks[0][1] == "rubble"


def test_manage_trade_agreements() -> None:
    """§4.3: 2 RP per agreement; failure gives m RP next turn."""
    g = _rich(Game().found())
    g.state = g.state.model_copy(update={"trade_agreements": ("restov", "mivon")})
    pv = g.play({"commerce.agreements": {"choices": {"activity": "manage-trade-agreements"},
                                         "rolls": {"check": [4]}}})
    s = step_state(pv, "commerce.agreements")
    assert s.pending.rp == 2
    rp = next(e for e in events_of(pv, "commerce.agreements") if isinstance(e, E.RPChanged))
    assert rp.delta == -4


def test_tap_treasury_debt_worsens_later_results() -> None:
    """§4.3 Tap Treasury: after a success, later attempts are worsened two degrees until repaid."""
    g = Game().found()
    g.play({"commerce.expenses": {"choices": {"activity": "tap-treasury"}, "rolls": {"check": [18]}}})
    assert g.state.treasury_debt
    pv = g.play({"commerce.expenses": {"choices": {"activity": "tap-treasury"}, "rolls": {"check": [18]}}})
    chk = next(e for e in events_of(pv, "commerce.expenses") if isinstance(e, E.CheckResolved))
    assert (chk.worsened, chk.degree) == (2, "critical_failure")


def test_claim_hex_landmark_and_refuge() -> None:
    """§4.11: a Landmark gives -1d4 Unrest and +2 circumstance to Culture/Economy until the end of next turn."""
    g = _rich(Game().found())
    pv = g.play({"activity.region": {"choices": {"activities": [
        {"activity": "claim-hex", "skill": "wilderness", "hex": {"id": "H5", "terrain": "plains", "q": 1, "r": 0,
                                                                  "features": ["landmark"]}}]},
        "rolls": {"a1": [15], "a1.e1.landmark": [1]}}})
    s = step_state(pv, "activity.region")
    assert s.unrest == 1
    assert {(m.selector, m.value, m.expires) for m in s.modifiers} >= {
        ("ability:culture", 2, "end_of_next_turn"), ("ability:economy", 2, "end_of_next_turn")}
    assert "first-landmark" in pv.state_after.milestones
    assert {m.selector for m in pv.state_after.modifiers} == {"ability:culture", "ability:economy"}


def _defaults(step: str, g: Game) -> dict[str, Any]:
    """The turn sheet's defaults of a step (its form), as plan JSON."""
    specs = RS.choices(g.state, g.turn, step)
    return {f.name: to_jsonable_python(f.default) for f in specs if f.default is not None}


def test_choices_describe_every_step_and_defaults_play() -> None:
    """The turn sheet builds its form from choices(); a plan of the form's defaults plays a legal turn."""
    g = Game()
    found = _defaults("founding", g)
    assert {"charter", "heartland", "government", "leaders", "capital"} <= set(found)
    g.play({"founding": {"choices": found}})
    for step in STEP_IDS:
        for c in RS.choices(g.state, g.turn, step):
            assert c.kind in ("select", "multiselect", "int", "text", "bool", "json", "rows", "group", "list",
                              "mapping"), (step, c)
            if c.kind == "select" and c.default not in (None, "") and c.options is not None:
                assert c.default in [o.value for o in c.options], (step, c.name)
    pv = g.play({s: {"choices": _defaults(s, g)} for s in STEP_IDS})
    assert pv.ok and pv.state_after.turn == 1


def test_choices_name_what_the_gm_weighs() -> None:
    """Picks list the campaign's ids with what a GM weighs: a leader's holder, a skill's modifier, a cost."""
    g = Game().found()
    lead = {f.name: f for f in RS.choices(g.state, g.turn, "activity.leadership")}["activities"]
    row = {f.name: f for f in lead.fields}
    assert row["activity"].kind == "select" and "quell-unrest" in [o.value for o in row["activity"].options or ()]
    roles = {o.value: o.detail for o in row["role"].options or ()}
    assert roles["ruler"] == "Aldra (PC, invested)" and roles["warden"] == "Gale (NPC)"
    civic = {f.name: f for f in RS.choices(g.state, g.turn, "activity.civic")}["activities"]
    structures = {o.value: o.detail for o in {f.name: f for f in civic.fields}["structure"].options or ()}
    assert structures["granary"].startswith("level 1, 1 lot, 12 RP + 2 lumber")
    taxes = {f.name: f for f in RS.choices(g.state, g.turn, "commerce.taxes")}
    trade = {o.value: o.detail for o in taxes["skill"].options or ()}
    assert trade["trade"] == f"economy, trained, {int(check_modifier(g.state, 'trade').total):+d}"


def test_civic_planning_gives_one_settlement_a_second_civic_activity() -> None:
    """§2.11.11 / §5.9: one Civic activity per settlement; from level 12 one settlement gets a second."""
    steps = {"activity.civic": {"choices": {"activities": [
        {"activity": "build-structure", "structure": "granary"},
        {"activity": "build-structure", "structure": "houses"}]}, "rolls": {"a1": [15], "a2": [15]}}}
    g = _rich(Game().found())
    pv = g.play(steps, check=False)
    assert not pv.ok and "§2.11.11" in (pv.error or "")
    g12 = _rich(Game().found())
    g12.state = g12.state.model_copy(update={"level": 12, "max_level": 12})
    assert g12.play(steps).ok


def test_war_armies_and_relations_are_gm_inputs() -> None:
    """§2.9: at war +1 Unrest at U2; army Consumption adds; a first trade agreement is a milestone (§5.13)."""
    g = Game().found(commodities={"food": 4, "lumber": 2})
    pv = g.play({"upkeep.leadership": {"choices": {
        "at_war": True, "armies": {"militia": 1},
        "relations": [{"group": "restov", "kind": "trade_agreement"}]}}})
    assert step_state(pv, "upkeep.unrest").unrest == 3
    paid = next(e for e in events_of(pv, "upkeep.consumption") if isinstance(e, E.ConsumptionPaid))
    assert paid.consumption == 2
    assert "first-trade-agreement" in pv.state_after.milestones


def test_failed_new_leadership_penalty_and_its_removal() -> None:
    """§4.2 failure: -1 circumstance in the Activity phase until a Loyalty-based check at a turn's end succeeds."""
    g = Game().found()
    g.play({"upkeep.leadership": {"choices": {"new_leadership": [
        {"role": "magister", "holder": "Ezra", "kind": "pc", "skill": "statecraft"}]}, "rolls": {"nl1": [4]}}})
    assert g.state.leaders["magister"].leadership_modifier == -1
    pv = g.play({"activity.leadership": {"choices": {"activities": [
        {"activity": "quell-unrest", "role": "magister", "skill": "politics"}]}},
        "event.level": {"choices": {"leader_checks": {"magister": "politics"}}, "rolls": {"leader.magister": [15]}}})
    chk = next(e for e in events_of(pv, "activity.leadership") if isinstance(e, E.CheckResolved))
    assert ("magister new leadership", -1, "circumstance") in [(t.label, t.value, t.kind) for t in chk.terms]
    assert pv.state_after.leaders["magister"].leadership_modifier == 0


def test_favored_land_pairs_two_region_activities() -> None:
    """§5.9 Favored Land: in a heartland-terrain hex two Region activities go together (one slot), each at -2."""
    g = _rich(Game().found())
    g.state = g.state.model_copy(update={"hexes": (*g.state.hexes, Hex(id="F1", terrain="forest"))})
    pv = g.play({"activity.region": {"choices": {"activities": [
        {"activity": "harvest-crops"}, {"activity": "gather-livestock"},
        {"activity": "establish-work-site", "hex": "F1", "commodity": "lumber", "favored_land": True},
        {"activity": "build-roads", "hex": "F1", "favored_land": True}]},
        "rolls": {"a1": [10], "a2": [10], "a3": [15], "a4": [15]}}})
    checks = [e for e in events_of(pv, "activity.region") if isinstance(e, E.CheckResolved)]
    assert len(checks) == 4
    assert ("Favored Land", -2, "untyped") in [(t.label, t.value, t.kind) for t in checks[3].terms]
    g2 = _rich(Game().found())
    g2.state = g2.state.model_copy(update={"hexes": (*g2.state.hexes, Hex(id="P1", terrain="plains"))})
    bad = g2.play({"activity.region": {"choices": {"activities": [
        {"activity": "build-roads", "hex": "P1", "favored_land": True}]}}}, check=False)
    assert not bad.ok and "heartland" in (bad.error or "")


def test_ruins_halve_a_structure_cost() -> None:
    """§4.9 / §4.11: a structure built on the Ruins in its settlement's hex costs half (Granary 12 RP -> 6,
    2 Lumber -> 1); the Ruins are then used up."""
    g = Game().found(hexes=[{"id": "H0", "terrain": "plains", "features": ["ruins"]}])
    pv = g.play({"upkeep.resources": {"rolls": {"resource": [2, 2, 2, 2, 2]}},
                 "activity.civic": {"choices": {"activities": [
                     {"activity": "build-structure", "structure": "granary", "use_ruins": True}]},
                     "rolls": {"a1": [15]}}})
    s = step_state(pv, "activity.civic")
    assert (s.rp, s.commodities["lumber"]) == (4, 1)
    assert "ruins" not in s.hexes[0].features


def test_an_activity_a_companion_unlocks_names_the_companion() -> None:
    """An activity locked until a companion holds a leadership role says the companion by name ("the companion
    Nok-Nok"; it read "the companion nok-nok", the data's key), on the GM sheet's options and its browse table."""
    from pathlib import Path

    from kingdomlog.app import Campaign
    from kingdomlog.rulesets.pf2e import state as S

    s = Campaign.open(Path(__file__).resolve().parents[2] / "campaigns" / "stolen-lands").turn_start().state
    acts = S.T.catalog(s.homebrew).activities
    assert S.activity_lock(s, acts["recruit-monsters"]) == "the companion Nok-Nok in a leadership role"
    assert S.activity_lock(s, acts["decadent-feasts"]) == "the companion Jaethal in a leadership role"
