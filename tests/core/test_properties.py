"""Property tests (hypothesis): serialisation through Parquet, replay and the snapshot cache."""

from __future__ import annotations

import contextlib
import itertools
import shutil
import tempfile
from pathlib import Path

import toyrules
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kingdomlog.app import Campaign
from kingdomlog.core.events import Draft, canonical_json, event_hash
from kingdomlog.core.fold import replay
from kingdomlog.store.log import EventLog

texts = st.text(min_size=0, max_size=40)
payloads = st.one_of(
    st.builds(toyrules.Founded, name=texts, gold=st.integers(0, 10**12)),
    st.builds(toyrules.Harvested, crop=texts, faces=st.lists(st.integers(1, 6), max_size=5).map(tuple),
              food=st.integers(-(10**9), 10**9)),
    st.builds(toyrules.Sold, food=st.integers(0, 10**6), gold=st.integers(0, 10**6)),
    st.builds(toyrules.Secret, gold=st.integers(-(10**6), 10**6)),
)
visibilities = st.sampled_from(["public", "gm", "faction:alice", "faction:alice,faction:bob"])
drafts = st.builds(Draft, payload=payloads, phase=st.one_of(st.none(), st.sampled_from(["harvest", "market"])),
                   actor=st.sampled_from(["gm", "alice", "system"]), visibility=visibilities)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches=st.lists(st.lists(drafts, min_size=1, max_size=6), min_size=1, max_size=5))
def test_any_events_round_trip_through_parquet_with_an_intact_chain(batches: list[list[Draft]]) -> None:
    tmp = Path(tempfile.mkdtemp())
    try:
        (tmp / "log").mkdir()
        log = EventLog(tmp / "log", "prop")
        for turn, batch in enumerate(batches):
            log.append([d.at_turn(turn) for d in batch], expect_seq=log.head().seq)
        back = log.read(full_verify=True)
        flat = [d for b in batches for d in b]
        assert [e.payload for e in back] == [d.payload for d in flat]
        assert [(e.visibility, e.actor, e.phase) for e in back] == [(d.visibility, d.actor, d.phase) for d in flat]
        assert [e.seq for e in back] == list(range(1, len(flat) + 1))
        for prev, ev in itertools.pairwise(back):
            assert ev.prev_hash == prev.hash
    finally:
        shutil.rmtree(tmp)


@given(st.dictionaries(st.text(max_size=5), st.integers(), max_size=6))
def test_canonical_json_ignores_key_order(d: dict[str, int]) -> None:
    reordered = dict(reversed(list(d.items())))
    assert canonical_json(d) == canonical_json(reordered)


def test_event_hash_covers_every_field() -> None:
    base = {"campaign": "c", "seq": 1, "turn": 0, "phase": None, "type": "t.x", "version": 1, "actor": "gm",
            "visibility": "public", "payload": "{}", "recorded_at": "2026-01-01T00:00:00+00:00",
            "event_id": "e", "commit_id": "k", "prev_hash": "0" * 64}
    h = event_hash(base)
    for key in base:
        changed = dict(base, **{key: "other" if key != "seq" else 2})
        assert event_hash(changed) != h, key


# A turn is one of: play a plan (sell k food, harvest with typed faces), or retract the last turn.
actions = st.lists(
    st.one_of(
        st.tuples(st.just("play"), st.integers(1, 6), st.integers(0, 3)),
        st.tuples(st.just("retract"), st.just(0), st.just(0)),
    ),
    min_size=1, max_size=8,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(acts=actions)
def test_cached_state_equals_cold_replay_after_any_plays_and_retractions(acts: list[tuple[str, int, int]]) -> None:
    from kingdomlog.core.errors import RuleError
    from kingdomlog.core.turn import Plan

    tmp = Path(tempfile.mkdtemp())
    try:
        camp = Campaign.create(tmp / "p", "toy")
        camp.play(Plan.parse({"seed": "f", "steps": {"found": {"choices": {"gold": 3}}}}))
        for kind, face, sell in acts:
            if kind == "retract":
                with contextlib.suppress(RuleError):
                    camp.retract(camp.next_turn() - 1)
            else:
                plan = {"seed": "s", "steps": {"harvest": {"rolls": {"harvest": [face]}},
                                               "market": {"choices": {"sell": min(sell, face)}}}}
                if camp.next_turn() == 0:
                    plan = {"seed": "f", "steps": {"found": {"choices": {"gold": 3}}}}
                camp.play(Plan.parse(plan))
            warm = Campaign.open(camp.folder).state()
            cold = replay(camp.ruleset, camp.events(), context=camp.context)
            assert warm == cold
            for t in range(camp.next_turn()):
                assert Campaign.open(camp.folder).state(t) == replay(camp.ruleset, camp.events(), t,
                                                                      context=camp.context)
        assert camp.verify().ok
    finally:
        shutil.rmtree(tmp)
