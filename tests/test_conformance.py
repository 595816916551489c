"""The shared conformance suite (design §4): every registered ruleset runs it.

Deterministic replay, Parquet round-trip of every event type, ``evolve`` never
mutates its input, prefix + rest replay equals full replay (also through a
JSON snapshot, as the cache does), every data table loads.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kingdomlog.app import Campaign
from kingdomlog.core.errors import CorruptLogError
from kingdomlog.core.events import Draft, EventModel, RecordedEvent, event_types, provisional, register_event
from kingdomlog.core.fold import default_context, fold, replay
from kingdomlog.core.ruleset import Breakdown, Ruleset, all_rulesets, find_ruleset, validate_options
from kingdomlog.core.turn import Plan, plan_schema, preview_turn
from kingdomlog.core.viewers import GM_VIEWER, PUBLIC_VIEWER
from kingdomlog.store.log import EventLog

RULESETS = all_rulesets()
IDS = [rs.id for rs in RULESETS]


def test_no_ruleset_package_is_broken() -> None:
    from kingdomlog.rulesets import BROKEN

    assert BROKEN == {}, f"ruleset packages that failed to import: {BROKEN}"


def test_there_are_rulesets() -> None:
    assert len(RULESETS) >= 1


def play_samples(rs: Ruleset) -> list[RecordedEvent]:
    """Play the ruleset's sample plans from its initial state; every plan must be legal."""
    ctx = default_context(rs, "conf")
    state = rs.initial_state(ctx)
    events: list[RecordedEvent] = []
    for turn, raw in enumerate(rs.sample_plans()):
        plan = Plan.parse(raw, source=f"{rs.id} sample plan {turn}")
        p = preview_turn(rs, state, plan, campaign="conf", turn=turn, start_seq=len(events), seed=f"seed-{turn}")
        assert p.ok, f"{rs.id}: sample plan {turn} refused: {p.error}"
        for d in p.drafts:
            events.append(provisional("conf", len(events) + 1, d, turn=turn))
        state = p.state_after
    return events


@pytest.fixture(params=RULESETS, ids=IDS, scope="module")
def played(request: pytest.FixtureRequest) -> tuple[Ruleset, list[RecordedEvent]]:
    rs = request.param
    return rs, play_samples(rs)


@pytest.mark.parametrize("rs", RULESETS, ids=IDS)
def test_registry_finds_by_id_name_and_alias(rs: Ruleset) -> None:
    assert find_ruleset(rs.id) is rs
    assert find_ruleset(rs.id.upper()) is rs
    assert find_ruleset(rs.name) is rs
    for alias in rs.aliases:
        assert find_ruleset(alias.lower()) is rs


@pytest.mark.parametrize("rs", RULESETS, ids=IDS)
def test_event_types_are_registered_namespaced_and_sampled(rs: Ruleset) -> None:
    declared = rs.event_types  # a ruleset may import (and so register) its payload classes only when asked (pf2e)
    registry = event_types()
    ns = {t.type.split(".")[0] for t in declared}
    assert "core" not in ns
    for t in rs.event_types:
        assert registry[t.type] is t
        assert t.model_config.get("frozen") and t.model_config.get("extra") == "forbid", t.type
    sampled = {d.payload.type for d in rs.sample_events()}
    missing = {t.type for t in rs.event_types} - sampled
    assert not missing, f"sample_events() lacks {sorted(missing)}"


@pytest.mark.parametrize("rs", RULESETS, ids=IDS)
def test_every_event_type_round_trips_through_parquet(rs: Ruleset, tmp_path: Path) -> None:
    (tmp_path / "log").mkdir()
    log = EventLog(tmp_path / "log", "conf")
    samples = rs.sample_events()
    log.append([d.at_turn(1) for d in samples], expect_seq=0)
    back = log.read(full_verify=True)
    assert len(back) == len(samples)
    for d, ev in zip(samples, back, strict=True):
        assert ev.type == d.payload.type
        assert ev.payload == d.payload
        assert ev.visibility == d.visibility and ev.actor == d.actor and ev.phase == d.phase


@pytest.mark.parametrize("rs", RULESETS, ids=IDS)
def test_options_defaults_validate_and_unknown_is_refused(rs: Ruleset) -> None:
    defaults = validate_options(rs.options, {})
    assert set(defaults) == {o.name for o in rs.options}
    with pytest.raises(ValueError, match="unknown option"):
        validate_options(rs.options, {"no_such_option_xyz": 1})


@pytest.mark.parametrize("rs", RULESETS, ids=IDS)
def test_the_state_class_is_the_initial_states(rs: Ruleset) -> None:
    """``state_class`` (what a warm read validates a snapshot into, named without building the initial state) is the
    class ``initial_state`` builds."""
    ctx = default_context(rs, "conf")
    assert rs.state_class(ctx) is type(rs.initial_state(ctx))


@pytest.mark.parametrize("rs", RULESETS, ids=IDS)
def test_every_data_table_loads(rs: Ruleset) -> None:
    for name, loader in rs.data_tables().items():
        assert loader() is not None, name


def test_replay_is_deterministic(played: tuple[Ruleset, list[RecordedEvent]]) -> None:
    rs, events = played
    assert events, f"{rs.id}: sample plans produced no events"
    a = replay(rs, events)
    b = replay(rs, events)
    assert a.model_dump(mode="json") == b.model_dump(mode="json")


def test_sample_plans_are_deterministic(played: tuple[Ruleset, list[RecordedEvent]]) -> None:
    rs, events = played
    again = play_samples(rs)
    assert [(e.type, e.payload_text) for e in events] == [(e.type, e.payload_text) for e in again]


def test_evolve_never_mutates_its_input(played: tuple[Ruleset, list[RecordedEvent]]) -> None:
    rs, events = played
    state = rs.initial_state(default_context(rs, "conf"))
    for ev in events:
        before = json.dumps(state.model_dump(mode="json"), sort_keys=True)
        new = rs.apply(state, ev)
        assert json.dumps(state.model_dump(mode="json"), sort_keys=True) == before, f"{ev.type} mutated its input"
        state = new


def test_prefix_plus_rest_equals_full_replay(played: tuple[Ruleset, list[RecordedEvent]]) -> None:
    rs, events = played
    ctx = default_context(rs, "conf")
    full = replay(rs, events, context=ctx).model_dump(mode="json")
    cls = type(rs.initial_state(ctx))
    for k in range(len(events) + 1):
        prefix = fold(rs, rs.initial_state(ctx), events[:k])
        # through JSON, as the snapshot cache stores it
        restored = cls.model_validate(prefix.model_dump(mode="json"))
        assert restored == prefix, f"state after {k} events does not survive a JSON round trip"
        assert fold(rs, restored, events[k:]).model_dump(mode="json") == full


def test_derived_views_are_well_formed(played: tuple[Ruleset, list[RecordedEvent]]) -> None:
    rs, events = played
    state = replay(rs, events)
    summary = rs.summary(state)
    assert summary and all(isinstance(v, (int, float, str, bool, type(None))) for v in summary.values()), summary
    assert isinstance(rs.render(state), str) and rs.render(state)
    assert all(isinstance(b, Breakdown) for b in rs.explain(state))
    assert type(rs.redact(state, PUBLIC_VIEWER)) is type(state)
    assert rs.redact(state, GM_VIEWER) == state


def test_preview_is_pure_and_repeatable(played: tuple[Ruleset, list[RecordedEvent]]) -> None:
    rs, _ = played
    ctx = default_context(rs, "conf")
    state = rs.initial_state(ctx)
    plan = Plan.parse(rs.sample_plans()[0])
    before = state.model_dump(mode="json")
    a = preview_turn(rs, state, plan, campaign="conf", turn=0, start_seq=0, seed="x")
    b = preview_turn(rs, state, plan, campaign="conf", turn=0, start_seq=0, seed="x")
    assert state.model_dump(mode="json") == before
    assert [d.payload for d in a.drafts] == [d.payload for d in b.drafts]


@pytest.mark.parametrize("rs", RULESETS, ids=IDS)
def test_sample_campaign_through_the_store(rs: Ruleset, tmp_path: Path) -> None:
    camp = Campaign.create(tmp_path / "conf", rs.id)
    for raw in rs.sample_plans():
        camp.play(Plan.parse(raw), seed="store-seed")
    rep = camp.verify()
    assert rep.ok, rep.problems
    warm = camp.state()
    cold = camp.state(use_cache=False)
    assert warm.model_dump(mode="json") == cold.model_dump(mode="json")
    again = Campaign.open(tmp_path / "conf").state()
    assert again.model_dump(mode="json") == cold.model_dump(mode="json")




def test_every_ruleset_sql_view_is_created(tmp_path: Path) -> None:
    """Each ruleset's views compile against the catalog's tables (no warnings), even with no campaigns."""
    from kingdomlog.projections.sql import Catalog

    cat = Catalog(tmp_path, campaigns=[])
    assert cat.warnings == []
    names = {r[0] for r in cat.con.execute("select view_name from duckdb_views() where not internal").fetchall()}
    for rs in RULESETS:
        assert set(rs.sql_views()) <= names, rs.id


def test_every_ruleset_sql_view_answers_over_the_demo_campaigns() -> None:
    from kingdomlog.projections.sql import SafeConsole

    root = Path(__file__).resolve().parents[1] / "campaigns"
    con = SafeConsole(root)
    assert con.warnings == []
    for rs in RULESETS:
        for name in rs.sql_views():
            con.query(f"select * from {name} limit 5")


@register_event
class _Foreign(EventModel):
    type = "alien.thing_happened"
    n: int = 0


@pytest.mark.parametrize("rs", RULESETS, ids=IDS)
def test_an_event_of_another_ruleset_is_a_corrupt_log_error(rs: Ruleset) -> None:
    state = rs.initial_state(default_context(rs, "conf"))
    ev = provisional("conf", 1, Draft(_Foreign(), turn=0))
    with pytest.raises(CorruptLogError, match="does not belong to ruleset"):
        rs.apply(state, ev)


@pytest.mark.parametrize("rs", RULESETS, ids=IDS)
def test_every_ruleset_derives_from_the_base_and_declares_its_steps_once(rs: Ruleset) -> None:
    assert isinstance(rs, Ruleset)
    ids = [s.id for s in rs.all_steps]
    assert len(ids) == len(set(ids)), f"{rs.id}: a step id is declared twice: {ids}"
    state = rs.initial_state(default_context(rs, "conf"))
    for step in rs.phases_for(state, 0):
        assert step in rs.all_steps, f"{rs.id}: step {step.id} of turn 0 is not in all_steps"


def test_sample_plans_validate_against_the_plan_schema(played: tuple[Ruleset, list[RecordedEvent]]) -> None:
    import jsonschema

    rs, _ = played
    schema = plan_schema(rs)
    jsonschema.Draft202012Validator.check_schema(schema)
    for raw in rs.sample_plans():
        jsonschema.validate(raw, schema)


def test_a_typo_in_a_choice_key_is_refused_naming_it(played: tuple[Ruleset, list[RecordedEvent]]) -> None:
    rs, _ = played
    ctx = default_context(rs, "conf")
    state = rs.initial_state(ctx)
    first = rs.phases_for(state, 0)[0]
    plan = Plan.parse({"seed": "x", "steps": {first.id: {"choices": {"no_such_choice_xyz": 1}}}})
    p = preview_turn(rs, state, plan, campaign="conf", turn=0, start_seq=0)
    assert not p.ok and "no_such_choice_xyz" in (p.error or "") and first.id in (p.error or "")


def test_a_misspelt_step_key_is_refused_naming_it(played: tuple[Ruleset, list[RecordedEvent]]) -> None:
    """The README: a misspelt key is refused naming the step and the key, "choice" for "choices" too (issue 28: a
    step that ignored unknown keys dropped the GM's choices silently and passed the suite)."""
    from kingdomlog.core.errors import InputError

    rs, _ = played
    state = rs.initial_state(default_context(rs, "conf"))
    raw = dict(rs.sample_plans()[0])
    first = rs.phases_for(state, 0)[0].id
    entry = dict(raw["steps"].get(first, {}))
    entry["choice"] = entry.pop("choices", {})
    with pytest.raises(InputError, match=rf"steps\.{re.escape(first)}: unknown key 'choice'; a step takes: choices"):
        Plan.parse({**raw, "steps": {**raw["steps"], first: entry}})


def test_typed_dice_under_a_key_the_step_does_not_roll_are_refused(
        played: tuple[Ruleset, list[RecordedEvent]]) -> None:
    rs, _ = played
    state = rs.initial_state(default_context(rs, "conf"))
    raw = dict(rs.sample_plans()[0])
    first = rs.phases_for(state, 0)[0].id
    steps = dict(raw.get("steps", {}))
    entry = dict(steps.get(first, {}))
    entry["rolls"] = {**entry.get("rolls", {}), "no_such_roll_xyz": [1]}
    steps[first] = entry
    p = preview_turn(rs, state, Plan.parse({**raw, "steps": steps}), campaign="conf", turn=0, start_seq=0,
                     seed="x")
    assert not p.ok and "no_such_roll_xyz" in (p.error or "")


def _unbounded(tp: object, meta: tuple[object, ...], path: str, seen: set[type]) -> list[str]:
    """The numbers under ``tp`` (a field's declared type) a person could type without a bound on either side, and
    the free-form values not checked by ``bounded_json`` (issue 28)."""
    import types
    import typing

    from pydantic.fields import FieldInfo

    from kingdomlog.core.choices import Choices, _bounds, bounded_json

    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        inner, *more = typing.get_args(tp)
        return _unbounded(inner, (*meta, *more), path, seen)
    if origin in (typing.Union, types.UnionType):
        return [x for a in typing.get_args(tp) if a is not type(None) for x in _unbounded(a, meta, path, seen)]
    if origin in (list, tuple, set, frozenset):
        return [x for i, a in enumerate(typing.get_args(tp)) if a is not Ellipsis
                for x in _unbounded(a, (), f"{path}[{i if origin is tuple else ''}]", seen)]
    if origin is dict:
        k, v = typing.get_args(tp)
        return _unbounded(k, (), f"{path} key", seen) + _unbounded(v, (), f"{path}{{}}", seen)
    if isinstance(tp, type) and issubclass(tp, Choices):
        if tp in seen:
            return []
        seen.add(tp)
        return [x for name, info in tp.model_fields.items()
                for x in _unbounded(info.annotation, tuple(info.metadata), f"{tp.__name__}.{name}", seen)]
    if tp in (int, float):
        lo, hi = _bounds(meta)
        return [] if lo is not None and hi is not None else [f"{path} ({tp.__name__} [{lo}, {hi}])"]
    if tp is typing.Any or tp in (dict, list, object):
        checked = any(getattr(m, "func", None) is bounded_json for m in meta) or any(
            getattr(x, "func", None) is bounded_json for m in meta if isinstance(m, FieldInfo) for x in m.metadata)
        return [] if checked else [f"{path} (free-form, not bounded_json)"]
    return []


@pytest.mark.parametrize("rs", RULESETS, ids=IDS)
def test_every_number_a_step_takes_is_bounded(rs: Ruleset) -> None:
    """Every number a GM or player types has a bound on both sides at the schema, and a free-form value is
    checked (issue 28: a GM effect of 10**30 committed, then every SQL query broke; a Ruin of 2**63 hung)."""
    seen: set[type] = set()
    loose = [x for step in rs.all_steps for x in _unbounded(step.choices, (), step.choices.__name__, seen)]
    assert loose == [], f"{rs.id}: {len(loose)} unbounded:\n" + "\n".join(loose)
