"""Bad input: hypothesis-generated plans, event lines, campaign.toml files and CLI arguments (issue 8, fault 4).

Everything goes through ``kingdomlog.cli.main(argv)`` in process, with stdout and
stderr captured. For every case: no traceback and no "internal error" (the CLI's
last guard, which means a bug), a one-line ``kingdomlog: ...`` (or argparse usage)
message whenever the exit code is not 0, and the log folder byte-for-byte
unchanged unless the command legitimately appended (exit 0 of turn/note/retract/
append; then it grew by whole, verified batches). Over 10,000 cases in total.
"""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kingdomlog import cli
from kingdomlog.app import Campaign
from kingdomlog.core.turn import Plan

N_PLANS = 2500
N_LINES = 2400
N_TOML = 1600
N_ARGV = 3600
COUNTS: dict[str, int] = {}
SETTINGS = dict(deadline=None, database=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                       HealthCheck.data_too_large, HealthCheck.filter_too_much])

json_leaf = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True),
                      st.text(max_size=12), st.sampled_from(["wheat", "barley", "gm", "public", "1d6", "-1", ""]))
json_value = st.recursive(json_leaf, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                            st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                          max_leaves=12)


def log_hash(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted((folder / "log").iterdir()):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def run(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old_stdin = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = cli.main(argv)
    finally:
        sys.stdin = old_stdin
    return code, out.getvalue(), err.getvalue()


def check_outcome(argv: list[str], code: int, err: str, out: str = "") -> None:
    assert "Traceback" not in err, (argv, err)
    assert "internal error" not in err, (argv, err)
    if code != 0:
        assert code in (1, 2), (argv, code, err)
        if not argv:  # no command: the help text on stdout, exit 2
            assert code == 2 and "usage:" in out, (argv, out)
            return
        assert err.strip(), (argv, "no message")
        # one message (it may quote user text that itself holds newlines), or argparse's usage
        assert err.startswith("kingdomlog: ") or "usage:" in err, (argv, err)


def check_log(folder: Path, before: str, code: int, may_append: bool) -> str:
    """The log is byte-for-byte unchanged, or (a legitimate append) grew by verified batches.

    A legitimate append is then undone (its new files removed, the derived cache dropped), so
    the log stays small and every case starts from the same log.
    """
    after = log_hash(folder)
    if after != before:
        assert code == 0 and may_append, "log changed by a refused command"
        assert Campaign.open(folder).verify().ok
        for p in (folder / "log").iterdir():
            if p.name not in ORIGINAL:
                p.unlink()
            elif p.name == ".heads":  # the log's record of its heads goes back with it (a restored older copy)
                p.write_bytes(ORIGINAL[p.name])
        shutil.rmtree(folder / ".cache", ignore_errors=True)
        assert log_hash(folder) == before
    return before


ORIGINAL: dict[str, bytes] = {}


@pytest.fixture(scope="module", autouse=True)
def _one_parser() -> Any:
    """Build the argparse tree once (5 ms a call, half of a case's cost); main() is otherwise untouched."""
    mp = pytest.MonkeyPatch()
    parser = cli.build_parser()
    mp.setattr(cli, "build_parser", lambda: parser)
    yield
    mp.undo()


@pytest.fixture(scope="module")
def farm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bad")
    camp = Campaign.create(root / "farm", "toy-farm", viewers=["alice"])
    camp.play(Plan.parse({"seed": "a", "steps": {"found": {"choices": {"name": "Dale", "gold": 5}}}}))
    camp.play(Plan.parse({"seed": "b", "steps": {"harvest": {"choices": {"crop": "barley"}}}}))
    ORIGINAL.update((p.name, p.read_bytes()) for p in (camp.folder / "log").iterdir())
    return camp.folder


steps = st.sampled_from(["found", "harvest", "market", "upkeep", "", "HARVEST"])
choice_keys = st.sampled_from(["crop", "stash", "sell", "name", "gold", "x", ""])
near_plan = st.fixed_dictionaries(
    {},
    optional={
        "turn": st.one_of(st.integers(-3, 10), json_leaf),
        "seed": st.one_of(st.text(max_size=10), json_leaf),
        "steps": st.one_of(
            st.dictionaries(steps, st.fixed_dictionaries({}, optional={
                "choices": st.one_of(st.dictionaries(choice_keys, json_value, max_size=3), json_leaf),
                "rolls": st.one_of(st.dictionaries(st.sampled_from(["harvest", "x"]),
                                                   st.lists(st.integers(-2, 30), max_size=3)), json_leaf),
                "rerolls": json_value,
                "junk": json_leaf,
            }), max_size=3),
            json_value),
        "extra": json_value,
    })
plan_text = st.one_of(near_plan.map(lambda d: json.dumps(d)), json_value.map(json.dumps),
                      st.text(max_size=40), st.binary(max_size=40).map(lambda b: b.decode("latin-1")))


@settings(max_examples=N_PLANS, **SETTINGS)
@given(text=plan_text, dry=st.booleans(), as_json=st.booleans())
def test_fuzzed_plans(farm: Path, tmp_path_factory: pytest.TempPathFactory, text: str, dry: bool,
                      as_json: bool) -> None:
    COUNTS["plans"] = COUNTS.get("plans", 0) + 1
    plan = farm.parent / "plan.json"
    plan.write_text(text, encoding="utf-8", errors="surrogatepass")
    before = log_hash(farm)
    argv = ["turn", str(farm), "--plan", str(plan)] + (["--dry-run"] if dry else []) + (["--json"] if as_json else [])
    code, _out, err = run(argv)
    check_outcome(argv, code, err)
    check_log(farm, before, code, may_append=not dry)


event_types = st.sampled_from(["toy.sold", "toy.harvested", "toy.founded", "toy.secret_stash", "core.note_added",
                               "core.turn_retracted", "core.campaign_configured", "pf2e.nothing", "sold", ""])
near_event = st.fixed_dictionaries(
    {},
    optional={
        "turn": st.one_of(st.integers(-2, 5), json_leaf),
        "type": st.one_of(event_types, json_leaf),
        "version": st.one_of(st.integers(-1, 4), json_leaf),
        "payload": st.one_of(st.dictionaries(st.sampled_from(["food", "gold", "crop", "faces", "name", "text",
                                                              "amount", "turn", "commit_ids"]),
                                             st.one_of(st.integers(-5, 50), json_value), max_size=4), json_value),
        "visibility": st.one_of(st.sampled_from(["public", "gm", "faction:alice", "faction:", "alice", "a,b"]),
                                json_leaf),
        "actor": json_leaf,
        "phase": json_leaf,
        "seq": json_leaf,
    })
event_line = st.one_of(near_event.map(json.dumps), json_value.map(json.dumps), st.text(max_size=30))


@settings(max_examples=N_LINES, **SETTINGS)
@given(lines=st.lists(event_line, min_size=0, max_size=4), expect=st.one_of(st.none(), st.integers(-1, 12)))
def test_fuzzed_event_lines(farm: Path, lines: list[str], expect: int | None) -> None:
    COUNTS["lines"] = COUNTS.get("lines", 0) + 1
    src = farm.parent / "events.jsonl"
    src.write_text("\n".join(lines), encoding="utf-8", errors="surrogatepass")
    before = log_hash(farm)
    argv = ["append", str(farm), str(src)] + ([] if expect is None else ["--expect-seq", str(expect)])
    code, _out, err = run(argv)
    check_outcome(argv, code, err)
    check_log(farm, before, code, may_append=True)


toml_value: Any = st.recursive(
    st.one_of(st.booleans(), st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=False), st.text(max_size=10),
              st.sampled_from(["toy-farm", "toy", "farm", "pf2e-kingmaker", "Farm", "1", "gm"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(min_size=1, max_size=6), inner,
                                                                         max_size=3)),
    max_leaves=8)
near_config = st.fixed_dictionaries(
    {},
    optional={
        "format": st.one_of(st.integers(-1, 3), toml_value),
        "id": st.one_of(st.sampled_from(["farm", "Farm", "other", "1farm", ""]), toml_value),
        "name": toml_value,
        "ruleset": st.one_of(st.sampled_from(["toy-farm", "toy", "Toy Farm Rules", "nope"]), toml_value),
        "options": st.one_of(st.dictionaries(st.sampled_from(["price", "harvest_die", "x"]), toml_value, max_size=2),
                             toml_value),
        "viewers": st.one_of(st.lists(st.fixed_dictionaries({"id": toml_value}), max_size=2), toml_value),
        "extra": toml_value,
    })
toml_text = st.one_of(near_config.map(tomli_w.dumps), st.text(max_size=60))


@settings(max_examples=N_TOML, **SETTINGS)
@given(text=toml_text, cmd=st.sampled_from([["state", "--json"], ["verify"], ["log"], ["state", "--as", "alice"],
                                             ["note", "hi"]]))
def test_fuzzed_campaign_toml(farm: Path, tmp_path_factory: pytest.TempPathFactory, text: str,
                              cmd: list[str]) -> None:
    COUNTS["toml"] = COUNTS.get("toml", 0) + 1
    cfg = farm / "campaign.toml"
    original = cfg.read_bytes()
    try:
        cfg.write_text(text, encoding="utf-8", errors="surrogatepass")
        before = log_hash(farm)
        argv = [cmd[0], str(farm), *cmd[1:]]
        code, _out, err = run(argv)
        check_outcome(argv, code, err)
        check_log(farm, before, code, may_append=cmd[0] == "note")
    finally:
        cfg.write_bytes(original)


def argv_tokens(farm: Path, scratch: Path) -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(["rulesets", "new", "turn", "retract", "note", "append", "log", "state", "verify",
                         "export", "import", "sql", "--json", "--turn", "--as", "--plan", "--set", "--ruleset",
                         "--id", "--viewer", "--expect-seq", "--format", "--timeout", "-o", "--root", "--dry-run",
                         "--seed", "--no-cache", "--title", "--visibility", "--reason", "--name", "--help",
                         "--version", "-h", "--", "-", "=", "x=1", "price=3", "price=99", "harvest_die=\"2d6\"",
                         "toy-farm", "toy", "nope", "gm", "public", "alice", "faction:alice", "faction:", "0",
                         "1", "-1", "99999999999999999999", "1e3", "nan", "csv", "json", "table", "abc", "",
                         "select 1", "select * from events", "drop table events",
                         str(farm), str(farm / "log"), str(farm / "campaign.toml"), str(scratch / "new-a"),
                         str(scratch / "Bad Name"), str(scratch / "out.jsonl"), str(scratch / "missing"),
                         str(scratch)]),
        st.text(max_size=8),
    )


@settings(max_examples=N_ARGV, **SETTINGS)
@given(data=st.data())
def test_fuzzed_cli_arguments(farm: Path, tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    COUNTS["argv"] = COUNTS.get("argv", 0) + 1
    scratch = farm.parent / "scratch"
    scratch.mkdir(exist_ok=True)
    argv = data.draw(st.lists(argv_tokens(farm, scratch), min_size=0, max_size=6))
    if argv and argv[0] in ("gm", "share"):  # these start servers; not part of this fuzz
        return
    before = log_hash(farm)
    code, out, err = run(argv)
    check_outcome(argv, code, err, out)
    may_append = bool(argv) and argv[0] in ("turn", "note", "retract", "append")
    check_log(farm, before, code, may_append=may_append)
    shutil.rmtree(scratch, ignore_errors=True)


def test_case_counts() -> None:
    """Runs last in this module: the fuzzers above ran their full budgets (>= 10,000 cases)."""
    if len(COUNTS) < 4:
        pytest.skip("run together with the fuzz tests of this module")
    assert COUNTS["plans"] >= N_PLANS and COUNTS["lines"] >= N_LINES
    assert COUNTS["toml"] >= N_TOML and COUNTS["argv"] >= N_ARGV
    assert sum(COUNTS.values()) >= 10_000, COUNTS
