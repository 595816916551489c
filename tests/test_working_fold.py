"""The fold into a ruleset's working state gives what ``evolve`` gives event by event, and changes no state it
handed out (``Ruleset.thaw`` / ``evolve_working`` / ``freeze``, ``core.working``; issue 18).

``fold`` folds many events into a private working state (for pf2e, pf1 and Signoria a copy of the
frozen state whose fields ``core.working.update`` sets in place; for the benchmark ledger a mutable
tally). Each stream here is folded both ways, through ``fold`` and through ``Ruleset.apply`` one event
at a time (which copies a frozen state per event, as before the working state), with the same rules
of which events count (``is_live``): the states at every turn's end and the last one must be equal,
and every state handed out (the start, ``on_turn``'s, the result) must be unchanged by what came after.
The streams: every registered ruleset's sample plans, the four demo campaigns cut at random places,
and random legal turns of the four rulesets (``benchmarks.generate``).
"""

from __future__ import annotations

import json
import random
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from kingdomlog.app import Campaign
from kingdomlog.core.errors import CorruptLogError, InternalError, RuleError
from kingdomlog.core.events import Draft, EventModel, RecordedEvent, provisional, register_event
from kingdomlog.core.fold import Start, default_context, fold, is_live, retracted_commits
from kingdomlog.core.model import Frozen
from kingdomlog.core.ruleset import CampaignContext, Ruleset, all_rulesets, find_ruleset
from kingdomlog.core.turn import Plan, preview_turn
from kingdomlog.core.working import CopyOnWriteRuleset, update, working_state

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo root: benchmarks/ is not installed

CAMPAIGNS = Path(__file__).resolve().parents[1] / "campaigns"
DEMOS = ("stolen-lands", "river-kingdom", "aikakirjat-demo", "felmonte")
FOUR = ("pf2e-kingmaker", "pf1-kingmaker", "aikakirjat", "signoria")


RULESETS = all_rulesets()


def play_samples(rs: Ruleset) -> list[RecordedEvent]:
    """The ruleset's sample plans played from its initial state (as ``test_conformance.play_samples``)."""
    state = rs.initial_state(default_context(rs, "conf"))
    events: list[RecordedEvent] = []
    for turn, raw in enumerate(rs.sample_plans()):
        p = preview_turn(rs, state, Plan.parse(raw), campaign="conf", turn=turn, start_seq=len(events),
                         seed=f"seed-{turn}")
        assert p.ok, f"{rs.id}: sample plan {turn} refused: {p.error}"
        events += [provisional("conf", len(events) + i, d, turn=turn) for i, d in enumerate(p.drafts, start=1)]
        state = p.state_after
    return events


def doc(state: Any) -> str:
    return json.dumps(state.model_dump(mode="json"), sort_keys=True)


def one_by_one(rs: Ruleset, start: Any, events: Sequence[RecordedEvent], *, until: int | None,
               retracted: frozenset[str], after: int = 0) -> tuple[Any, list[tuple[int, int, Any]]]:
    """The fold as ``Ruleset.apply`` gives it, event by event: the last state and the state at each turn's end."""
    state, turns, turn, last = start, [], None, 0
    for ev in events:
        if ev.seq <= after or not is_live(ev, retracted, until):
            continue
        if turn is not None and ev.turn != turn:
            turns.append((turn, last, state))
        state = rs.apply(state, ev)
        turn, last = ev.turn, ev.seq
    if turn is not None:
        turns.append((turn, last, state))
    return state, turns


def check_both_ways(rs: Ruleset, start: Any, events: Sequence[RecordedEvent], *, until: int | None = None,
                    after: int = 0) -> Any:
    """Fold ``events`` both ways from ``start`` and compare; every state handed out stays as it was handed out."""
    assert [ev.seq for ev in events] == list(range(events[0].seq, events[0].seq + len(events))) if events else True
    gone = retracted_commits(events)
    start_doc = doc(start)
    want, want_turns = one_by_one(rs, start, events, until=until, retracted=gone, after=after)
    handed: list[tuple[int, int, Any, str]] = []
    got = fold(rs, Start(start, after), events, until=until, retracted=gone,
               on_turn=lambda t, seq, s: handed.append((t, seq, s, doc(s))))
    assert type(got) is type(want)
    assert got == want
    assert doc(got) == doc(want)
    if isinstance(rs, CopyOnWriteRuleset):  # ``update`` keeps even pydantic's record of the fields set
        assert got.__pydantic_fields_set__ == want.__pydantic_fields_set__
    assert [(t, seq) for t, seq, _, _ in handed] == [(t, seq) for t, seq, _ in want_turns]
    for (t, _, mine, _), (_, _, theirs) in zip(handed, want_turns, strict=True):
        assert mine == theirs, f"{rs.id}: the state at the end of turn {t} differs"
    # the start and every state handed out are as they were when handed out, after the whole fold ...
    assert doc(start) == start_doc
    for t, _, s, d in handed:
        assert doc(s) == d, f"{rs.id}: the state handed out at the end of turn {t} changed afterwards"
    # ... and after folding on from them (a snapshot the cache keeps is the start of a later fold)
    for _, seq, s, d in handed:
        fold(rs, Start(s, seq), events, until=until, retracted=gone)
        assert doc(s) == d
    again = fold(rs, Start(got, events[-1].seq if events else 0), events, retracted=gone)
    assert again == got and doc(got) == doc(want)
    return got


# ---- every registered ruleset's sample plans (the four, the toy rulesets of the tests, the ledger) -------------


@pytest.mark.parametrize("rs", RULESETS, ids=[rs.id for rs in RULESETS])
def test_the_sample_plans_fold_the_same_both_ways(rs: Ruleset) -> None:
    events = play_samples(rs)
    ctx = default_context(rs, "conf")
    got = check_both_ways(rs, rs.initial_state(ctx), events)
    for k in range(len(events)):  # every prefix, and on from it
        mid = check_both_ways(rs, rs.initial_state(ctx), events[:k])
        check_both_ways(rs, mid, events, after=events[k - 1].seq if k else 0)
    assert got == check_both_ways(rs, rs.initial_state(ctx), events)


def test_the_three_copy_on_write_rulesets_are_the_ones_whose_evolve_updates() -> None:
    """pf2e, pf1 and Signoria fold into a working copy; aikakirjat (whose events mostly apply a recorded
    patch, a new state each) keeps the default, the state itself."""
    kinds = {rid: isinstance(find_ruleset(rid), CopyOnWriteRuleset) for rid in FOUR}
    assert kinds == {"pf2e-kingmaker": True, "pf1-kingmaker": True, "aikakirjat": False, "signoria": True}


# ---- the demo campaigns, cut anywhere ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def demos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Ruleset, CampaignContext, list[RecordedEvent]]]:
    out = {}
    for slug in DEMOS:
        folder = tmp_path_factory.mktemp("demo") / slug
        shutil.copytree(CAMPAIGNS / slug, folder, ignore=shutil.ignore_patterns(".cache"))
        camp = Campaign.open(folder)
        out[slug] = (camp.ruleset, camp.context, camp.events())
    assert {rs.id for rs, _, _ in out.values()} == set(FOUR)
    return out


@pytest.mark.parametrize("slug", DEMOS)
def test_a_whole_demo_folds_the_same_both_ways(slug: str, demos: dict[str, Any]) -> None:
    rs, ctx, events = demos[slug]
    assert len(events) > 100
    check_both_ways(rs, rs.initial_state(ctx), events)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_demo_cut_anywhere_folds_the_same_both_ways(data: st.DataObject, demos: dict[str, Any]) -> None:
    slug = data.draw(st.sampled_from(DEMOS))
    rs, ctx, events = demos[slug]
    k = data.draw(st.integers(0, len(events)))
    turns = sorted({ev.turn for ev in events})
    until = data.draw(st.none() | st.sampled_from(turns))
    mid = check_both_ways(rs, rs.initial_state(ctx), events[:k], until=until)
    check_both_ways(rs, mid, events, until=until, after=events[k - 1].seq if k else 0)


# ---- random legal turns of the four rulesets ------------------------------------------------------------------


def random_stream(rs: Ruleset, seed: int, turns: int) -> list[RecordedEvent]:
    """``turns`` turns of random legal choices (as ``benchmarks.generate`` plays them), as provisional events."""
    from benchmarks.generate import TurnStats, plan_turn

    state = rs.initial_state(default_context(rs, "rand"))
    rng = random.Random(seed)
    events: list[RecordedEvent] = []
    for turn in range(turns):
        try:
            try:
                _, drafts, state = plan_turn(rs, state, campaign="rand", turn=turn, seed=f"{seed}-{turn}", rng=rng,
                                             stats=TurnStats(), start_seq=len(events), entries=True)
            except RuleError:
                _, drafts, state = plan_turn(rs, state, campaign="rand", turn=turn, seed=f"{seed}-{turn}", rng=rng,
                                             stats=TurnStats(), start_seq=len(events))
        except RuleError:
            # no legal turn found (a refused random choice): the stream ends there, what it has is still a legal
            # log. An internal error is a bug and fails the test (pf2e's GM-ruled effects lacking a Ruin or a
            # flag were, found here: now refused naming the effect, tests/pf2e/test_illegal.py)
            break
        events += [provisional("rand", len(events) + i, d, turn=turn) for i, d in enumerate(drafts, start=1)]
    return events


@pytest.mark.parametrize("rid", FOUR)
@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), turns=st.integers(2, 5), cut=st.floats(0, 1))
def test_random_turns_fold_the_same_both_ways(rid: str, seed: int, turns: int, cut: float) -> None:
    rs = find_ruleset(rid)
    events = random_stream(rs, seed, turns)
    assert events
    start = rs.initial_state(default_context(rs, "rand"))
    k = int(cut * len(events))
    mid = check_both_ways(rs, start, events[:k])
    check_both_ways(rs, mid, events, after=events[k - 1].seq if k else 0)


# ---- the benchmark ledger: a mutable tally --------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(-10**6, 10**6), st.integers(-10**6, 10**6), st.integers(-5, 5),
                          st.integers(0, 3)), max_size=60))
def test_the_ledger_tally_folds_the_same_both_ways(rows: list[tuple[int, int, int, int]]) -> None:
    import benchmarks.ledger as ledger

    events = [provisional("ledger", i + 1, Draft(ledger.Changed(food=f, gold=g, unrest=u), turn=t))
              for i, (f, g, u, t) in enumerate(sorted(rows, key=lambda r: r[3]))]
    start = ledger.LEDGER.initial_state(default_context(ledger.LEDGER, "ledger"))
    got = check_both_ways(ledger.LEDGER, start, events)
    assert (got.food, got.events) == (sum(r[0] for r in rows), len(rows))


# ---- core.working on its own ----------------------------------------------------------------------------------


class Tally(Frozen):
    n: int = 0
    seen: tuple[int, ...] = ()


@register_event
class Counted(EventModel):
    type = "cow.counted"
    by: int = 1
    stray: bool = False


@register_event
class Broke(EventModel):
    type = "cow.broke"


@register_event
class Alien(EventModel):
    type = "cowless.thing"


STRAY = Tally(n=1000)
"""A state held by someone else (a module, a payload, a cache): a fold must never adopt it as its working state."""


class CowRules(CopyOnWriteRuleset):
    id = "test-cow"
    name = "Copy on write"
    @property
    def event_types(self) -> Sequence[type[EventModel]]:
        return (Counted, Broke)

    def initial_state(self, context: CampaignContext) -> Tally:
        return Tally()

    def evolve(self, state: Any, event: RecordedEvent) -> Tally:
        p = event.payload
        if isinstance(p, Broke):
            raise ZeroDivisionError("a bug")
        assert isinstance(p, Counted)
        if p.stray:
            return STRAY
        s: Tally = update(state, n=state.n + p.by)
        return update(s, {"seen": (*s.seen, p.by)})


COW = CowRules()


def counted(*items: tuple[int, int] | str) -> list[RecordedEvent]:
    out = []
    for i, it in enumerate(items):
        payload: EventModel = Counted(stray=True) if it == "stray" else Broke() if it == "broke" else \
            Counted(by=it[0])  # type: ignore[index]
        out.append(provisional("cow", i + 1, Draft(payload, turn=0 if isinstance(it, str) else it[1])))
    return out


def test_update_outside_a_fold_is_model_copy_and_changes_nothing() -> None:
    s = Tally(n=1)
    t = update(s, n=2)
    assert (s.n, t.n) == (1, 2) and t is not s
    assert update(s, {"n": 3}, seen=(1,)) == Tally(n=3, seen=(1,))
    assert t.__pydantic_fields_set__ == {"n"} == s.model_copy(update={"n": 2}).__pydantic_fields_set__
    assert working_state() is None


def test_in_a_fold_only_the_working_state_is_set_in_place() -> None:
    outside = Tally(n=5)
    seen: list[tuple[bool, bool]] = []

    class Probe(CowRules):
        id = "test-cow-probe"

        def evolve(self, state: Any, event: RecordedEvent) -> Tally:
            other = update(outside, n=6)  # any other model is copied, never changed
            seen.append((working_state() is state, other is not outside and outside.n == 5))
            return super().evolve(state, event)

    probe = Probe()
    start = Tally()
    got = fold(probe, start, counted((1, 0), (2, 0), (3, 1)))
    assert got == Tally(n=6, seen=(1, 2, 3)) and start == Tally() and outside == Tally(n=5)
    assert seen == [(True, True)] * 3
    assert probe.apply(start, counted((4, 0))[0]) == Tally(n=4, seen=(4,)) and start == Tally()


def test_a_state_evolve_returns_from_elsewhere_is_copied_not_adopted() -> None:
    got = check_both_ways(COW, Tally(), counted((1, 0), "stray", (2, 0), (3, 1)))
    assert got == Tally(n=1005, seen=(2, 3))
    assert (STRAY.n, STRAY.seen) == (1000, ())


def test_the_states_handed_out_per_turn_are_not_the_working_state() -> None:
    handed: list[Tally] = []
    got = fold(COW, Tally(), counted((1, 0), (2, 1), (3, 2)), on_turn=lambda t, q, s: handed.append(s))
    assert handed == [Tally(n=1, seen=(1,)), Tally(n=3, seen=(1, 2)), Tally(n=6, seen=(1, 2, 3))]
    assert handed[-1] is got and len({id(s) for s in handed}) == 3


def test_a_bug_in_the_working_fold_and_an_alien_event_are_reported_as_apply_reports_them() -> None:
    events = counted((1, 0), "broke")
    with pytest.raises(InternalError, match=r"failed applying seq 2 \(cow.broke\): ZeroDivisionError") as got:
        fold(COW, Tally(), events)
    with pytest.raises(InternalError) as want:
        COW.apply(Tally(n=1), events[1])
    assert str(got.value) == str(want.value) and got.value.seq == 2

    alien = [*counted((1, 0)), provisional("cow", 2, Draft(Alien(), turn=0))]
    with pytest.raises(CorruptLogError, match="does not belong to ruleset 'test-cow'") as err:
        fold(COW, Tally(), alien)
    assert err.value.seq == 2


def test_a_working_state_is_not_a_frozen_one_to_anyone_else() -> None:
    """The working copy ``thaw`` gives is a new object; ``freeze`` gives another; neither is the input."""
    s = Tally(n=1)
    w = COW.thaw(s)
    assert w == s and w is not s and isinstance(w, BaseModel)
    f = COW.freeze(w)
    assert f == s and f is not w
