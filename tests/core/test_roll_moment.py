"""A roll has its moment (design §5): in an ``on_roll`` plan a check's die is drawn only once released.

A small ruleset of its own: ``upkeep`` rolls resource dice (no check), ``quell`` rolls one check per
row (the skill feeds its modifier), ``event`` a flat check. The roller is spied on: a key that is not
released is never asked for a face.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import pytest
import toyrules
from pydantic import BaseModel, ConfigDict, Field

from kingdomlog.app import Campaign
from kingdomlog.core.choices import Choices
from kingdomlog.core.errors import InputError, RuleError
from kingdomlog.core.events import EventModel, RecordedEvent, register_event
from kingdomlog.core.ruleset import CampaignContext, RerollReason, Ruleset, Step, StepContext
from kingdomlog.core.turn import Plan, Reroll, StepPlan, keep_released, preview_turn, require_ok, with_reroll
from kingdomlog.dice.checks import CheckSpec
from kingdomlog.dice.roller import StepRoller

SKILLS = {"politics": 6, "folklore": 2, "trade": 6}


@register_event
class Quelled(EventModel):
    type = "rollmoment.quelled"
    version = 1
    skill: str
    die: int
    total: int


@register_event
class Upkept(EventModel):
    type = "rollmoment.upkept"
    version = 1
    rp: int


@register_event
class FameSpent(EventModel):
    type = "rollmoment.fame_spent"
    version = 1
    points: int


class S(BaseModel):
    model_config = ConfigDict(frozen=True)
    rp: int = 0
    fame: int = 1
    quelled: int = 0


class Act(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
    skill: Literal["politics", "folklore", "trade"] = "politics"


class QuellChoices(Choices):
    acts: list[Act] = Field(default_factory=lambda: [Act()])


class Nothing(Choices):
    pass


def upkeep(ctx: StepContext[S], c: Nothing) -> None:
    ctx.emit(Upkept(rp=ctx.roll("resource", "2d4").total))


def quell(ctx: StepContext[S], c: QuellChoices) -> None:
    for i, act in enumerate(c.acts):
        key = f"a{i + 1}"
        spend = ctx.rerolled(key).count("fame")  # charged before the die is drawn: refused, nothing is rolled
        if spend > ctx.state.fame:
            raise ctx.fail("a Fame re-roll needs a Fame point", "§fame")
        r = ctx.roll(key, "1d20", check=CheckSpec("pf2e", modifier=SKILLS[act.skill], dc=16, label="quell-unrest"))
        if spend:
            ctx.emit(FameSpent(points=spend))
        ctx.emit(Quelled(skill=act.skill, die=r.faces[0], total=r.faces[0] + SKILLS[act.skill]))


def event(ctx: StepContext[S], c: Nothing) -> None:
    r = ctx.roll("event", "1d20", check=CheckSpec("flat", dc=16, label="random event"))
    ctx.emit(Upkept(rp=r.faces[0] // 10), visibility="gm")


class RollMoment(Ruleset):
    id = "roll-moment"
    name = "Roll moment"
    turn_unit = "month"

    @property
    def event_types(self) -> Sequence[type[EventModel]]:
        return (Quelled, Upkept, FameSpent)

    @property
    def phases(self) -> Sequence[Step]:
        return (Step("upkeep", "Upkeep", choices=Nothing, decide=upkeep),
                Step("quell", "Quell", choices=QuellChoices, decide=quell),
                Step("event", "Event", choices=Nothing, decide=event))

    def initial_state(self, context: CampaignContext) -> S:
        return S()

    def evolve(self, state: Any, event: RecordedEvent) -> S:
        p = event.payload
        if isinstance(p, Upkept):
            return state.model_copy(update={"rp": state.rp + p.rp})
        if isinstance(p, Quelled):
            return state.model_copy(update={"quelled": state.quelled + 1})
        if isinstance(p, FameSpent):
            return state.model_copy(update={"fame": state.fame - p.points})
        return state

    def reroll_reasons(self, state: Any, step: str, key: str, check: CheckSpec | None) -> Sequence[RerollReason]:
        return (RerollReason("fame", "Fame", "spend 1 Fame"),) if check is not None and check.kind == "pf2e" else ()


RS = RollMoment()


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every (step, key) whose faces anything computed: asked of the roller, typed, or drawn from the keyed stream."""
    from kingdomlog.dice import roller

    asked: list[tuple[str, str]] = []
    real_roll, real_stream = StepRoller.roll, roller._FaceStream.__init__

    def roll(self: StepRoller, key: str, notation: str) -> Any:
        asked.append((self.step, key))
        return real_roll(self, key, notation)

    def stream(self: Any, material: str, start: int = 0) -> None:
        parts = material.split("|")  # seed|campaign|turn|step|key|nonce
        asked.append((parts[3], parts[4]))
        real_stream(self, material, start)

    monkeypatch.setattr(StepRoller, "roll", roll)
    monkeypatch.setattr(roller._FaceStream, "__init__", stream)
    return asked


def preview(plan: Plan | dict[str, Any], **kw: Any) -> Any:
    p = plan if isinstance(plan, Plan) else Plan.parse({"seed": "s", **plan})
    return preview_turn(RS, S(), p, campaign="c", turn=1, start_seq=0, **kw)


keep = keep_released


def roll_in_order(plan: Plan) -> tuple[Plan, Any]:
    """Press Roll on each pending check in turn until the turn is whole."""
    tp = preview(plan)
    while tp.pending is not None:
        tp = preview(plan, release={tp.pending.phase.id: [tp.pending.pending.key]})
        plan = keep(plan, tp)
    return plan, tp


# ---- a roll not released is not drawn -----------------------------------------------------------


def test_an_on_roll_plan_stops_at_the_first_roll_without_drawing_it(spy: list[tuple[str, str]]) -> None:
    tp = preview({"dice": "on_roll"})
    assert [s.phase.id for s in tp.steps] == ["upkeep"]  # later steps wait for the roll
    st = tp.steps[0]
    assert st.pending is not None and (st.pending.key, st.pending.notation, st.pending.check) == ("resource", "2d4",
                                                                                                     None)
    assert st.drafts == [] and st.rolls == [] and st.state_after is None and st.error is None
    assert not tp.ok and tp.drafts == [] and tp.pending is st
    assert spy == []  # the roller was never asked for a face
    with pytest.raises(RuleError, match="waits for its roll 'resource'"):
        require_ok(tp)


def test_a_pending_check_carries_what_its_odds_need_and_nothing_drawn(spy: list[tuple[str, str]]) -> None:
    plan = Plan.parse({"seed": "s", "dice": "on_roll", "steps": {"upkeep": {"rolls": {"resource": [2, 3]}}}})
    tp = preview(plan)
    quell_ = tp.steps[1]
    assert tp.steps[0].drafts and tp.steps[0].released["resource"].check == {"notation": "2d4"}  # typed = rolled
    assert quell_.pending is not None and quell_.pending.key == "a1"
    assert quell_.checks["a1"] == CheckSpec("pf2e", modifier=6, dc=16, label="quell-unrest")
    assert ("quell", "a1") not in spy and ("event", "event") not in spy


def test_roll_releases_one_check_and_the_preview_goes_on_to_the_next(spy: list[tuple[str, str]]) -> None:
    plan = Plan.parse({"seed": "s", "dice": "on_roll", "steps": {"quell": {"choices": {"acts": [
        {"skill": "politics"}, {"skill": "trade"}]}}}})
    tp = preview(plan, release={"upkeep": ["resource"]})
    assert tp.steps[1].pending is not None and tp.steps[1].pending.key == "a1"
    plan = keep(plan, tp)
    tp = preview(plan, release={"quell": ["a1"]})
    plan = keep(plan, tp)
    assert tp.steps[1].pending is not None and tp.steps[1].pending.key == "a2"
    assert tp.steps[1].drafts == []  # a step waiting for a roll records nothing, not even its first check
    assert [r.key for r in tp.steps[1].rolls] == ["a1"] and ("quell", "a2") not in spy
    lock = plan.steps["quell"].rolled["a1"]
    assert lock.check["modifier"] == 6 and lock.check["label"] == "quell-unrest"
    assert lock.choices == {"acts": [{"skill": "politics"}, {"skill": "trade"}]}


def test_once_every_roll_is_released_the_turn_equals_the_auto_plan() -> None:
    choices = {"quell": {"choices": {"acts": [{"skill": "folklore"}, {"skill": "trade"}]}}}
    auto = preview({"steps": choices})
    _plan, tp = roll_in_order(Plan.parse({"seed": "s", "dice": "on_roll", "steps": choices}))
    assert tp.ok and [d.payload for d in tp.drafts] == [d.payload for d in auto.drafts]
    every = preview(Plan.parse({"seed": "s", "dice": "on_roll", "steps": choices}), release="all")  # Roll all
    assert every.ok and [d.payload for d in every.drafts] == [d.payload for d in auto.drafts]
    assert set(every.released) == {"upkeep", "quell", "event"}


def test_the_face_is_the_keyed_one_whenever_it_is_rolled() -> None:
    """Keyed dice: released late, or after another step rolled something else, the face is the same."""
    auto = preview({"steps": {"quell": {"choices": {"acts": [{"skill": "trade"}]}}}})
    face = auto.steps[1].rolls[0].faces
    _, keyed = roll_in_order(Plan.parse({"seed": "s", "dice": "on_roll"}))
    _, typed = roll_in_order(Plan.parse({"seed": "s", "dice": "on_roll",
                                         "steps": {"upkeep": {"rolls": {"resource": [1, 1]}}}}))
    assert keyed.steps[1].rolls[0].faces == typed.steps[1].rolls[0].faces == face
    assert keyed.steps[0].state_after != typed.steps[0].state_after


# ---- once rolled, the check is locked ---------------------------------------------------------------


def rolled_quell(skill: str = "politics", rows: int = 1) -> Plan:
    steps = {"quell": {"choices": {"acts": [{"skill": skill}] * rows}}}
    plan, tp = roll_in_order(Plan.parse({"seed": "s", "dice": "on_roll", "steps": steps}))
    assert tp.ok
    return plan


def with_choices(plan: Plan, step: str, choices: dict[str, Any]) -> Plan:
    sp = plan.steps[step].model_copy(update={"choices": choices})
    return plan.model_copy(update={"steps": {**plan.steps, step: sp}})


def test_changing_the_skill_of_a_rolled_check_is_refused_at_that_field_in_words(spy: list[tuple[str, str]]) -> None:
    plan = rolled_quell("politics", rows=2)
    face = preview(plan).steps[1].rolls[0].faces[0]
    spy.clear()
    tp = preview(with_choices(plan, "quell", {"acts": [{"skill": "folklore"}, {"skill": "politics"}]}))
    st = tp.steps[1]
    assert st.error is not None and not tp.ok and st.drafts == []
    assert "choice acts[0].skill: Quell unrest was rolled with skill politics" in st.error
    assert f"(d20 = {face}: " in st.error and "re-roll it: a re-roll the rules give (Fame) or a GM ruling" in st.error
    assert [s.phase.id for s in tp.steps] == ["upkeep", "quell"]  # never silently re-rolled or kept
    from kingdomlog.views.forms import error_path

    assert error_path(st.error) == ("acts", 0, "skill")


def test_a_change_in_another_row_or_step_never_touches_a_rolled_check() -> None:
    plan = rolled_quell("politics", rows=2)
    tp = preview(plan)
    same = preview(with_choices(plan, "quell", {"acts": [{"skill": "politics"}, {"skill": "trade"}]}))
    assert same.ok and [r.faces for r in same.steps[1].rolls] == [r.faces for r in tp.steps[1].rolls]  # same check
    after = preview(with_choices(plan, "quell", {"acts": [{"skill": "politics"}, {"skill": "folklore"}]}))
    assert after.steps[1].error is not None and "choice acts[1].skill:" in after.steps[1].error
    one = rolled_quell("politics", rows=1)
    longer = with_choices(one, "quell", {"acts": [{"skill": "politics"}, {"skill": "folklore"}]})
    grown = preview(longer)
    assert grown.steps[1].pending is not None and grown.steps[1].pending.key == "a2"  # a new row: a new roll
    assert grown.steps[1].rolls[0].faces == tp.steps[1].rolls[0].faces


def test_a_check_changed_by_something_else_is_refused_with_both_checks_named() -> None:
    plan = rolled_quell("politics")
    sp = plan.steps["quell"]
    lock = sp.rolled["a1"].model_copy(update={"check": {**sp.rolled["a1"].check, "dc": 15}})
    moved = plan.model_copy(update={"steps": {**plan.steps, "quell": sp.model_copy(update={"rolled": {"a1": lock}})}})
    err = preview(moved).steps[1].error or ""
    assert "roll 'a1': Quell unrest was rolled as d20 +6 vs DC 15" in err and "is now d20 +6 vs DC 16" in err


def test_a_row_taken_away_after_its_roll_is_refused() -> None:
    plan = rolled_quell("politics", rows=2)
    err = preview(with_choices(plan, "quell", {"acts": [{"skill": "politics"}]})).steps[1].error or ""
    assert "roll 'a2'" in err and "no longer makes it" in err


# ---- re-rolls are explicit -------------------------------------------------------------------------


def rerolled(plan: Plan, key: str, reason: str, note: str = "", skill: str | None = None,
             faces: list[int] | None = None) -> tuple[Plan, Any]:
    """What the sheet's Re-roll does: a new nonce with its reason and the faces it replaces, the roll released."""
    before = next(r for r in preview(plan).steps[1].rolls if r.key == key)
    plan = with_reroll(plan, "quell", key, reason, note=note, before=before.faces, faces=faces)
    if skill:
        plan = with_choices(plan, "quell", {"acts": [{"skill": skill}]})
    tp = preview(plan, release={"quell": [key]})
    return keep(plan, tp), tp


def test_a_re_roll_with_a_reason_takes_the_new_skill_and_is_recorded_with_faces_before_and_after() -> None:
    plan = rolled_quell("politics")
    first = preview(plan).steps[1].rolls[0].faces
    plan, tp = rerolled(plan, "a1", "gm", note="the wrong skill was picked", skill="folklore")
    tp = preview(plan)
    assert tp.ok, tp.error
    st = tp.steps[1]
    quelled = [d.payload for d in st.drafts if d.type == "rollmoment.quelled"]
    assert quelled[0].skill == "folklore"  # type: ignore[attr-defined]
    rr = [d for d in st.drafts if d.type == "core.dice_rerolled"]
    assert len(rr) == 1 and rr[0].visibility == "public" and rr[0].phase == "quell"
    p = rr[0].payload
    assert (p.key, p.nonce, p.reason, p.reason_label, p.note) == (  # type: ignore[attr-defined]
        "a1", 1, "gm", "GM ruling", "the wrong skill was picked")
    assert p.faces_before == first and p.faces_after == st.rolls[0].faces  # type: ignore[attr-defined]
    assert st.rolls[0].nonce == 1


def test_a_re_roll_the_rules_give_is_charged_by_the_rules_and_a_gm_ruling_needs_a_note() -> None:
    plan = rolled_quell("politics")
    fame, _tp = rerolled(plan, "a1", "fame")
    assert [d.type for d in preview(fame).steps[1].drafts if d.type.endswith("fame_spent")] == ["rollmoment.fame_spent"]
    _, twice = rerolled(fame, "a1", "fame")
    assert "a Fame re-roll needs a Fame point" in (twice.steps[1].error or "")
    assert [r.nonce for r in twice.steps[1].rolls] == []  # refused before the new die was drawn
    _, silent = rerolled(plan, "a1", "gm", note="")
    assert "needs a note" in (silent.steps[1].error or "")
    _, wrong = rerolled(plan, "a1", "hero-point")
    assert "re-roll reason 'hero-point' is not one this roll may have (fame, gm)" in (wrong.steps[1].error or "")
    sp = plan.steps["quell"].model_copy(update={"rerolls": {"a1": 1}})  # a nonce bumped without a reason
    bare = plan.model_copy(update={"steps": {**plan.steps, "quell": sp}})
    assert "re-rolled 1 time(s) with 0 reason(s)" in (preview(bare).steps[1].error or "")


def test_typed_faces_count_as_rolled_and_change_only_by_a_re_roll(spy: list[tuple[str, str]]) -> None:
    plan = Plan.parse({"seed": "s", "dice": "on_roll", "steps": {"upkeep": {"rolls": {"resource": [1, 1]}},
                                                                   "quell": {"rolls": {"a1": [3]}}}})
    tp = preview(plan)
    assert tp.steps[1].released["a1"].typed == [3] and tp.steps[2].pending is not None
    plan = keep(plan, tp)
    assert ("quell", "a1") in spy and not any(k == ("event", "event") for k in spy)
    sp = plan.steps["quell"]
    for other in ({"a1": [17]}, {}):  # typed again after seeing the outcome, or cleared for the keyed face
        moved = plan.model_copy(update={"steps": {**plan.steps, "quell": sp.model_copy(update={"rolls": other})}})
        err = preview(moved).steps[1].error or ""
        assert "roll 'a1': Quell unrest was rolled (d20 = 3: failure); its faces change only by a re-roll" in err
    again, tp = rerolled(plan, "a1", "gm", note="the die fell off the table", faces=[17])
    tp = preview(again, release="all")
    rr = next(d.payload for d in tp.steps[1].drafts if d.type == "core.dice_rerolled")
    assert (rr.faces_before, rr.faces_after) == ((3,), (17,))  # type: ignore[attr-defined]


def test_auto_plans_are_unchanged_by_the_new_fields() -> None:
    """A plan file without ``dice`` rolls everything and dumps exactly as before (same commit ids)."""
    doc = {"turn": 1, "seed": "s", "steps": {"quell": {"choices": {"acts": [{"skill": "trade"}]},
                                                       "rerolls": {"a1": 2}}}}
    plan = Plan.parse(doc)
    assert plan.dice == "auto" and preview(plan).ok
    dumped = plan.model_dump(mode="json")
    assert "dice" not in dumped and set(dumped["steps"]["quell"]) == {"choices", "rolls", "rerolls"}
    assert json.loads(plan.to_json())["steps"] == {"quell": {"choices": {"acts": [{"skill": "trade"}]}, "rolls": {},
                                                             "rerolls": {"a1": 2}}}
    with pytest.raises(InputError, match="invalid plan"):
        Plan.parse({**doc, "dice": "later"})


# ---- on the log: the re-roll is recorded, replay never rolls -------------------------------------


def test_a_re_roll_committed_is_in_the_log_for_whoever_sees_the_step_and_replay_reads_it(
        tmp_path: Path, spy: list[tuple[str, str]]) -> None:
    from kingdomlog.core.ruleset import register_ruleset, unregister_ruleset

    register_ruleset(RS)
    try:
        camp = Campaign.create(tmp_path / "c", "roll-moment", name="Moment")
        camp.play(Plan(turn=0, seed="s", steps={"upkeep": StepPlan(rolls={"resource": [1, 1]})}))
        plan = rolled_quell("politics")
        plan, _ = rerolled(plan, "a1", "fame")
        tp = camp.preview(plan)
        assert tp.ok
        camp.commit(tp, plan=plan)
        spy.clear()
        events = Campaign.open(camp.folder).events()
        state = Campaign.open(camp.folder).state()
        assert spy == []  # replay never rolls
        rr = [e for e in events if e.type == "core.dice_rerolled"]
        assert len(rr) == 1 and rr[0].payload.reason == "fame" and rr[0].visibility == "public"  # type: ignore
        assert state.fame == 0 and state.quelled == 2  # type: ignore[attr-defined]
        ev = next(e for e in events if e.type == "core.dice_rerolled")
        assert ev.seq == max(e.seq for e in events if e.type == "rollmoment.quelled") + 1
    finally:
        unregister_ruleset(RS.id)


def test_a_re_roll_of_a_secret_step_is_as_secret_as_its_events() -> None:
    plan, tp = roll_in_order(Plan.parse({"seed": "s", "dice": "on_roll"}))
    sp = plan.steps["event"]
    before = tp.steps[2].rolls[0].faces
    sp = sp.model_copy(update={"rerolls": {"event": 1}, "rolled": {},
                               "reroll_reasons": {"event": [Reroll(reason="gm", note="die fell off", before=list(
                                   before))]}})
    plan = plan.model_copy(update={"steps": {**plan.steps, "event": sp}})
    tp = preview(plan, release={"event": ["event"]})
    rr = [d for d in tp.steps[2].drafts if d.type == "core.dice_rerolled"]
    assert [d.visibility for d in rr] == ["gm"]


def test_the_toy_sample_plans_play_the_same_in_auto_mode() -> None:
    rs = toyrules.TOY
    assert all(Plan.parse(p).dice == "auto" for p in rs.sample_plans())


def test_pf2e_charges_a_fame_re_roll_before_the_die_and_offers_fame_for_checks_only() -> None:
    """pf2e (§3.0.8): a kingdom check re-rolled for Fame spends the point; more re-rolls than points are refused
    before the new die is drawn; resource dice (no check) offer no Fame re-roll."""
    from kingdomlog.core.ruleset import find_ruleset

    camp = Campaign.open(Path(__file__).resolve().parents[2] / "campaigns" / "stolen-lands")
    turn = camp.next_turn()

    def taxes(n: int) -> Any:
        plan = Plan.parse({"turn": turn, "seed": "s", "steps": {"commerce.taxes": {
            "rerolls": {"check": n}, "reroll_reasons": {"check": [{"reason": "fame"}] * n}}}})
        return next(s for s in camp.preview(plan).steps if s.phase.id == "commerce.taxes")

    once = taxes(1)
    assert once.error is None and [d.payload.points for d in once.drafts  # type: ignore[attr-defined]
                                   if d.type == "pf2e.fame_spent"] == [1]
    twice = taxes(2)
    assert "a Fame re-roll needs 2 Fame point(s)" in (twice.error or "") and twice.rolls == []
    rs = find_ruleset("pf2e")
    state = camp.state()
    assert [r.id for r in rs.reroll_reasons(state, "commerce.taxes", "check", CheckSpec("pf2e", 3, 16))] == ["fame"]
    assert rs.reroll_reasons(state, "upkeep.resources", "resource", None) == ()
