"""Every read path gives the same state (issue 11): for random logs with notes and retractions, the CLI's
``state --json``, the warm cache, a cold fold, the SQL ``states`` table, a player's view and a preview's
starting state agree."""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from pathlib import Path

import toyrules
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kingdomlog.app import Campaign
from kingdomlog.cli import main
from kingdomlog.core.errors import RuleError
from kingdomlog.core.turn import Plan
from kingdomlog.core.viewers import parse_viewer
from kingdomlog.projections.sql import state_rows
from kingdomlog.views.player.page import player_view

OPS = st.lists(
    st.one_of(
        st.tuples(st.just("play"), st.sampled_from(["wheat", "barley"]), st.integers(0, 3), st.integers(0, 2),
                  st.integers(1, 6)),
        st.tuples(st.just("note"), st.sampled_from(["public", "gm", "faction:alice", "faction:bob"])),
        st.tuples(st.just("retract")),
    ),
    min_size=1, max_size=9,
)


def cli_state(folder: Path, *extra: str) -> dict[str, object]:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["state", str(folder), "--json", *extra]) == 0
    doc = json.loads(buf.getvalue())
    for key in ("kingdomlog", "summary", "explain"):
        doc.pop(key)
    return doc


def build(folder: Path, ops: list[tuple[object, ...]]) -> Campaign:
    camp = Campaign.create(folder, "toy-farm", viewers=["alice", "bob"])
    camp.play(Plan.parse(toyrules.TOY.sample_plans()[0]))
    for i, op in enumerate(ops):
        c = Campaign.open(folder)
        if op[0] == "play":
            _, crop, stash, sell, face = op
            faces = [face] * (1 if crop == "wheat" else 2)
            plan = {"seed": f"s{i}", "steps": {"harvest": {"choices": {"crop": crop, "stash": stash},
                                                           "rolls": {"harvest": faces}},
                                               "market": {"choices": {"sell": sell}}}}
            with contextlib.suppress(RuleError):
                c.play(Plan.parse(plan))
        elif op[0] == "note":
            c.note(f"note {i}", visibility=str(op[1]))
        elif c.next_turn() > 1:
            c.retract(c.next_turn() - 1, reason="test")
    return Campaign.open(folder)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=OPS)
def test_every_read_path_gives_the_same_state(ops: list[tuple[object, ...]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "farm"
        camp = build(folder, ops)
        rs = camp.ruleset
        cold = camp.state(use_cache=False)
        want = cold.model_dump(mode="json")
        # the warm path (twice: the second read starts from the snapshot the first saved)
        assert Campaign.open(folder).state().model_dump(mode="json") == want
        again = Campaign.open(folder)
        assert again.state().model_dump(mode="json") == want
        assert cli_state(folder) == want
        assert cli_state(folder, "--no-cache") == want
        # the streaming replay
        assert camp.stream_state().model_dump(mode="json") == want
        # the SQL states table: its last row is the state now
        rows = state_rows(camp)
        assert json.loads(rows[-1]["state_json"]) == want
        # a preview starts from the same state
        begin = Campaign.open(folder).turn_start()
        assert begin.state.model_dump(mode="json") == want
        assert Campaign.open(folder).preview(Plan.parse({"seed": "p"})).state_before.model_dump(mode="json") == want
        # a player's view is the redacted state, by every path
        alice = parse_viewer("alice", ("alice", "bob"))
        mine = rs.redact(cold, alice).model_dump(mode="json")
        assert Campaign.open(folder).state(viewer=alice).model_dump(mode="json") == mine
        assert cli_state(folder, "--as", "alice") == mine
        assert json.loads(state_rows(camp, alice)[-1]["state_json"]) == mine
        assert player_view(folder, "alice").summary == rs.summary(rs.redact(cold, alice))
