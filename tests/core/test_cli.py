"""The command line (design §8): every command, --json outputs, exit codes 0/1/2, no tracebacks."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import toyrules

from kingdomlog.cli import main

REPO = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture
def farm(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    d = tmp_path / "farm"
    rc, out, _ = run(capsys, "new", str(d), "--ruleset", "toy", "--set", "price=3", "--viewer", "alice")
    assert rc == 0 and "created campaign 'farm'" in out
    for i, plan in enumerate(toyrules.TOY.sample_plans()):
        p = tmp_path / f"plan-{i}.json"
        p.write_text(json.dumps(plan))
        rc, out, err = run(capsys, "turn", str(d), "--plan", str(p))
        assert rc == 0, err
    return d


def test_full_session(farm: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "state", str(farm), "--json")
    doc = json.loads(out)
    assert rc == 0
    assert doc["kingdomlog"]["campaign"] == "farm" and doc["kingdomlog"]["turn"] == 2
    # hand-computed from the sample plans: 5 gold, barley 2d6 and wheat [6]; sold 1 and 2 at price 3
    assert doc["gold"] == 5 + 3 * 1 + 3 * 2
    assert doc["summary"]["gold"] == doc["gold"]
    assert doc["explain"][0]["name"] == "Wealth"

    rc, out, _ = run(capsys, "state", str(farm), "--json", "--as", "alice")
    assert json.loads(out)["stash"] is None

    rc, out, _ = run(capsys, "state", str(farm), "--turn", "1", "--json")
    assert json.loads(out)["kingdomlog"]["turn"] == 1

    rc, out, _ = run(capsys, "note", str(farm), "Bandits seen", "--visibility", "gm")
    assert rc == 0 and out.endswith("(seen by the GM only)\n"), out  # who may read it in words, not "gm"
    rc, out, _ = run(capsys, "log", str(farm), "--json", "--as", "alice")
    doc = json.loads(out)
    assert all(e["visibility"] != "gm" for e in doc["events"])
    assert "Bandits" not in out

    rc, out, _ = run(capsys, "retract", str(farm), "--turn", "2")
    assert rc == 0 and "nothing was deleted" in out
    rc, out, _ = run(capsys, "log", str(farm))
    assert "[RETRACTED]" in out

    rc, out, _ = run(capsys, "verify", str(farm))
    assert rc == 0 and out.startswith("ok: farm:")

    exp = tmp_path / "farm.jsonl"
    rc, _, err = run(capsys, "export", str(farm), "-o", str(exp))
    assert rc == 0 and "exported" in err
    rc, out, _ = run(capsys, "import", str(exp), str(tmp_path / "copy"))
    assert rc == 0 and "verify: ok" in out
    a = json.loads(run(capsys, "state", str(farm), "--json")[1])
    b = json.loads(run(capsys, "state", str(tmp_path / "copy"), "--json")[1])
    a.pop("kingdomlog"), b.pop("kingdomlog")
    assert a == b

    rc, out, _ = run(capsys, "sql", "select campaign, turn, gold from states order by turn", "--root",
                     str(tmp_path), "--format", "json")
    rows = json.loads(out)
    # the imported copy keeps the campaign id (its hash chain names it), so the catalog loads it once
    assert rc == 0 and [(r["campaign"], r["turn"]) for r in rows] == [("farm", 0), ("farm", 1)]


def test_turn_dry_run_and_json(farm: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plan = tmp_path / "p.json"
    plan.write_text(json.dumps({"seed": "z", "steps": {"harvest": {"rolls": {"harvest": [5]}}}}))
    before = sorted(p.name for p in (farm / "log").iterdir())
    rc, out, _ = run(capsys, "turn", str(farm), "--plan", str(plan), "--dry-run", "--json")
    doc = json.loads(out)
    assert rc == 0 and doc["committed"] is None and doc["turn"] == 3
    assert doc["steps"][0]["rolls"][0]["faces"] == [5] and doc["steps"][0]["rolls"][0]["manual"]
    assert sorted(p.name for p in (farm / "log").iterdir()) == before


@pytest.mark.parametrize(
    ("argv", "rc", "message"),
    [
        (["new", "{tmp}/x", "--ruleset", "nope"], 1, "unknown ruleset 'nope'; known rulesets:"),
        (["new", "{tmp}/y", "--ruleset", "toy", "--set", "price"], 2, "--set expects KEY=VALUE"),
        (["state", "{tmp}/missing"], 1, "no such campaign folder"),
        (["turn", "{farm}", "--plan", "{tmp}/none.json"], 1, "cannot read plan"),
        (["retract", "{farm}", "--turn", "0"], 1, "only the last live turn"),
        (["log", "{farm}", "--as", "mallory"], 1, "unknown viewer 'mallory'"),
        (["sql", "copy (select 1) to 'x.csv'", "--root", "{tmp}"], 1, "read-only: COPY"),
        (["append", "{farm}", "{tmp}/bad.jsonl"], 1, "bad.jsonl line 1: not valid JSON"),
        (["append", "{farm}", "{tmp}/good.jsonl", "--expect-seq", "2"], 1,
         "conflict: expected the log to end at seq 2"),
        (["append", "{farm}", "{tmp}/stranger.jsonl"], 1,
         "stranger.jsonl line 1: actor 'zed' is not gm, system or a player or faction of this campaign"),
        (["frobnicate"], 2, "invalid choice"),
    ],
)
def test_errors_are_one_line_with_exit_codes(
    farm: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], rc: int, message: str
) -> None:
    (tmp_path / "bad.jsonl").write_text("{nope\n")
    (tmp_path / "good.jsonl").write_text('{"turn": 2, "type": "toy.sold", "payload": {"food": 0, "gold": 1}}\n')
    (tmp_path / "stranger.jsonl").write_text(
        '{"turn": 2, "type": "toy.sold", "payload": {"food": 0, "gold": 1}, "actor": "zed"}\n')
    args = [a.format(tmp=tmp_path, farm=farm) for a in argv]
    got_rc, _, err = run(capsys, *args)
    assert got_rc == rc
    assert message in err
    assert "Traceback" not in err


def test_rule_error_in_turn_exits_1_and_appends_nothing(farm: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    plan = tmp_path / "p.json"
    plan.write_text(json.dumps({"seed": "z", "steps": {"market": {"choices": {"sell": 500}}}}))
    before = sorted(p.name for p in (farm / "log").iterdir())
    rc, _, err = run(capsys, "turn", str(farm), "--plan", str(plan))
    assert rc == 1 and "cannot sell 500 food" in err and "toy §2" in err
    assert sorted(p.name for p in (farm / "log").iterdir()) == before


def test_python_dash_m_is_the_same_program() -> None:
    r = subprocess.run([sys.executable, "-m", "kingdomlog", "--help"], capture_output=True, text=True, check=False)
    assert r.returncode == 0 and "kingdomlog" in r.stdout and "verify" in r.stdout


def test_a_misspelt_subcommand_choice_or_option_suggests_the_nearest(capsys: pytest.CaptureFixture[str],
                                                                    farm: Path) -> None:
    """Issue 29 item 6: a typo printed the top-level usage with no suggestion (Python 3.11's argparse has no
    ``suggest_on_error``). Usage errors still exit 2."""
    cases = [(("stat", str(farm)), "invalid choice: 'stat' (did you mean 'state'?)"),
             (("state", str(farm), "--jsn"), "unrecognized argument: --jsn (did you mean '--json'?)"),
             (("report", str(farm), "--as", "gm", "--format", "mdd"), "invalid choice: 'mdd' (did you mean 'md'?)"),
             (("deadlin", str(farm)), "(did you mean 'deadline'?)")]  # a play-by-post command (pbp_cli)
    for argv, want in cases:
        rc, _, err = run(capsys, *argv)
        assert rc == 2 and want in err, (argv, err)
    rc, _, err = run(capsys, "state", str(farm), "--zzzz")
    assert rc == 2 and "unrecognized arguments: --zzzz" in err and "did you mean" not in err  # nothing near


def test_a_subcommand_takes_its_words_after_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    """``kingdomlog message DIR --to x hello there`` (a subcommand's optional positionals after its options) is read
    as typed, not refused as "unrecognized arguments"; a parser argparse cannot intermix refuses as before."""
    from kingdomlog.cli import Parser

    p = Parser(prog="k")
    sub = p.add_subparsers(dest="c")
    say = sub.add_parser("say")
    say.add_argument("dir")
    say.add_argument("text", nargs="*")
    say.add_argument("--to")
    assert vars(p.parse_args(["say", "d", "--to", "x", "hello", "there"])) == {
        "c": "say", "dir": "d", "text": ["hello", "there"], "to": "x"}
    pick = sub.add_parser("pick")
    either = pick.add_mutually_exclusive_group()
    either.add_argument("x", nargs="?")
    either.add_argument("--y")
    pick.add_argument("--z")
    with pytest.raises(SystemExit):
        p.parse_args(["pick", "--z", "1", "a", "b"])
    assert "unrecognized arguments: b" in capsys.readouterr().err


def test_a_refused_actor_is_said_once_after_its_step(farm: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """The last line names the step once, then what is wrong (not "…(harvest): step 'harvest', actors…")."""
    plan = tmp_path / "actors.json"
    plan.write_text(json.dumps({"steps": {"harvest": {"actors": {"harvest": "nobody"}}}}))
    rc, _, err = run(capsys, "turn", str(farm), "--plan", str(plan), "--dry-run")
    assert rc == 1
    last = err.strip().splitlines()[-1]
    assert re.fullmatch(r"kingdomlog: error: turn \d+ refused at .* \(harvest\): actors\.harvest: 'nobody' is not a"
                        r" player of this campaign \(alice\)", last), last


@pytest.mark.parametrize(
    ("argv", "rc", "kind", "message"),
    [
        (["state", "{tmp}/nowhere", "--json"], 1, "input", "no such campaign folder"),
        (["turn", "{farm}", "--plan", "{tmp}/unknown-key.json", "--json"], 1, "input", "unknown key 'bogus'"),
        (["append", "{farm}", "{tmp}/bad.jsonl", "--json"], 1, "input", "line 1"),
        (["state", "{farm}", "--turn", "99", "--json"], 1, "input",
         "season 99 has not been played; the log's last season is 2"),
        (["log", "{farm}", "--turn", "99", "--json"], 1, "input", "season 99 has not begun; the log's last season"),
        (["sql", "DELETE FROM states", "--root", "{tmp}", "--format", "json"], 1, "refused", "read-only"),
    ],
)
def test_an_error_asked_for_json_is_also_a_json_object_on_stdout(
    farm: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], rc: int, kind: str, message: str
) -> None:
    """A script reading ``--json`` gets the refusal as JSON too (``{ok: false, error, error_kind}``), the same words
    as the stderr line, and the same exit code; without ``--json`` stdout stays empty."""
    (tmp_path / "bad.jsonl").write_text("{nope\n")
    (tmp_path / "unknown-key.json").write_text(json.dumps({"bogus": 1}))
    args = [a.format(tmp=tmp_path, farm=farm) for a in argv]
    got_rc, out, err = run(capsys, *args)
    assert got_rc == rc, err
    doc = json.loads(out)
    assert doc == {"ok": False, "error": doc["error"], "error_kind": kind}, doc
    assert message in doc["error"] and err == f"kingdomlog: error: {doc['error']}\n", (doc, err)
    plain = [a for a in args if a != "--json"]
    if "--format" in plain:
        plain = plain[:plain.index("--format")]
    got_rc, out, err = run(capsys, *plain)
    assert (got_rc, out) == (rc, "") and message in err
