"""``kingdomlog session DIR`` on a copy of the aikakirjat demo: plan, preview, change a year mid-way, commit year by
year and the whole session; a resumed session ends where its rolled length says (in-process, no subprocess)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from kingdomlog.app import Campaign
from kingdomlog.cli import main

DEMO = Path(__file__).resolve().parents[2] / "campaigns" / "aikakirjat-demo"


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    folder = tmp_path / "pohjola"
    shutil.copytree(DEMO, folder, ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    return folder


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = main(["session", *args])
    out = capsys.readouterr()
    return rc, out.out, out.err


def session_json(capsys: pytest.CaptureFixture[str], folder: Path, *args: str) -> dict[str, Any]:
    rc, out, err = run(capsys, str(folder), "--json", *args)
    assert rc == 0, err
    doc: dict[str, Any] = json.loads(out)
    return doc


def test_plan_preview_change_and_commit_from_the_cli(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The demo's session 1 is played out, so the plan starts session 2 (its 5d10 from the seed). A preview writes
    nothing; an override of a mid-way year is planned and shown; the committed years are the planned ones."""
    head = Campaign.open(demo).head_seq
    rc, out, _ = run(capsys, str(demo), "--seed", "cli", "--years", "4")
    assert rc == 0
    assert "session 1 played out" in out and "why: action 1" in out and "not committed" in out
    assert Campaign.open(demo).head_seq == head

    plan = session_json(capsys, demo, "--seed", "cli")
    assert plan["status"]["under_way"] is False and plan["complete"]
    years = plan["years"]
    total = len(years)
    assert years[0]["plan"]["steps"]["start"]["choices"]["new_session"] is True
    assert "session 2 begins" in years[0]["notes"][0] and f"{total} years" in years[0]["notes"][0]
    assert "session 2 ends" in years[-1]["notes"][-1]

    mid = years[len(years) // 2]["year"]
    over = demo / "change.json"
    over.write_text(json.dumps({str(mid): {"actions": {"choices": {"actions": [{"action": "tax_collection"}]}}}}))
    changed = session_json(capsys, demo, "--seed", "cli", "--override", str(over))
    by_year = {y["year"]: y for y in changed["years"]}
    assert by_year[mid]["changed"] == ["actions"] and by_year[mid]["actions"][0].startswith("tax collection")
    assert [y["plan"] for y in changed["years"] if y["year"] < mid] == [y["plan"] for y in years if y["year"] < mid]

    done = session_json(capsys, demo, "--seed", "cli", "--override", str(over), "--years", "3", "--commit")
    assert [c["turn"] for c in done["committed"]] == [17, 18, 19]
    camp = Campaign.open(demo)
    s = camp.state()
    assert camp.next_turn() == 20 and s.session.years_played == 3
    planned = done["years"][2]
    assert (s.unrest, s.population, s.fame, s.level) == (planned["unrest"], planned["population"], planned["fame"],
                                                         planned["level"])


def test_a_resumed_session_ends_where_its_rolled_length_says(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """§4.0: after 3 years of session 2 are committed, `kingdomlog session` plans exactly the rest and
    `--commit` ends the session at its 5d10 years; no third session is started. The log verifies and its new
    events agree with today's rules (kingdomlog audit)."""
    session_json(capsys, demo, "--seed", "cli", "--years", "3", "--commit")
    s = Campaign.open(demo).state()
    total, played = s.session.years_total, s.session.years_played
    assert played == 3
    rest = session_json(capsys, demo, "--seed", "cli")
    assert rest["status"]["remaining"] == total - 3 == len(rest["years"]) and rest["complete"]
    session_json(capsys, demo, "--seed", "cli", "--commit")
    camp = Campaign.open(demo)
    s = camp.state()
    assert (s.session.session_no, s.session.years_played, s.session.years_total) == (2, total, total)
    assert camp.next_turn() == 17 + total
    assert camp.verify().ok
    from kingdomlog.app.audit import audit

    assert audit(camp).clean


def test_policies_and_refusals(demo: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """--policy presets and settings; a bad setting, a refused override and a campaign of another ruleset are
    errors (exit 1, one line, nothing written)."""
    simple = session_json(capsys, demo, "--seed", "cli", "--years", "2", "--policy", "simple")
    assert simple["policy"]["name"] == "simple" and "the rules' defaults" in simple["years"][0]["why"][0]
    tuned = session_json(capsys, demo, "--seed", "cli", "--years", "1", "--policy", "unrest_alarm=3",
                         "--policy", "unrest_bonus=4")
    assert tuned["policy"]["unrest_alarm"] == 3 and tuned["years"][0]["actions"][0].startswith("reduce unrest")
    rc, _, err = run(capsys, str(demo), "--policy", "alarm=3")
    assert rc == 1 and "unknown setting 'alarm'" in err
    bad = demo / "bad.json"
    bad.write_text(json.dumps({"18": {"actions": {"choices": {"actions": [{"action": "tax_collection"}] * 2}}}}))
    head = Campaign.open(demo).head_seq
    rc, _, err = run(capsys, str(demo), "--seed", "cli", "--override", str(bad), "--commit")
    assert rc == 1 and "year 18" in err and "§2.9" in err
    assert Campaign.open(demo).head_seq == head
    other = tmp_path / "farm"
    main(["new", str(other), "--ruleset", "pf2e-kingmaker"])
    capsys.readouterr()
    rc, _, err = run(capsys, str(other))
    assert rc == 1 and "plans no growth sessions (rulesets that do: aikakirjat)" in err
