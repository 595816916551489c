"""Issue 28: every number a GM or a player types is bounded where it enters, and what a GM or a player could reach
as an internal error is a one-line refusal naming the field.

Each demo campaign is copied once (its cache left behind); a refused command must leave its log as it was.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from clirun import run

from kingdomlog.app import Campaign
from kingdomlog.core.choices import LIMIT
from kingdomlog.core.turn import Plan

DEMOS = Path(__file__).resolve().parents[2] / "campaigns"
HUGE = 10**30




def log_hash(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted((folder / "log").iterdir()):
        h.update(p.name.encode() + p.read_bytes())
    return h.hexdigest()


@pytest.fixture(scope="module")
def demos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("demos")
    out = {}
    for name in ("stolen-lands", "river-kingdom", "aikakirjat-demo", "felmonte"):
        out[name] = root / name
        shutil.copytree(DEMOS / name, out[name], ignore=shutil.ignore_patterns(".cache"))
    return out


def refused(folder: Path, tmp: Path, plan: dict[str, Any]) -> str:
    """``turn --plan`` exits 1 with one line and appends nothing; the message."""
    before = log_hash(folder)
    path = tmp / "plan.json"
    path.write_text(json.dumps(plan))
    rc, _, err = run("turn", str(folder), "--plan", str(path))
    assert rc == 1 and err.count("\n") == 1 and "internal error" not in err and "Traceback" not in err, err
    assert log_hash(folder) == before
    return err


GM_NUMBERS = [
    ("stolen-lands", "event.resolve", {"gm_effects": [{"kind": "rp", "amount": HUGE}]}, "gm_effects[0].amount"),
    ("stolen-lands", "event.xp", {"gm_xp": HUGE}, "gm_xp"),
    ("river-kingdom", "gm", {"adjustments": [{"field": "treasury", "delta": HUGE}]}, "adjustments[0].delta"),
    ("aikakirjat-demo", "start", {"gm_events": [{"event": "gm_adjustment", "field": "fame", "delta": HUGE}]},
     "gm_events[0].gm_adjustment.delta"),
    ("felmonte", "turn_open", {"rulings": [{"effects": [{"kind": "resource", "faction": "fabian",
                                                          "resource": "wealth", "delta": HUGE}]}]},
     "rulings[0].effects[0].delta"),
]


@pytest.mark.parametrize(("demo", "step", "choices", "where"), GM_NUMBERS, ids=[f"{g[0]}:{g[3]}" for g in GM_NUMBERS])
def test_a_gm_number_past_its_bound_is_refused_naming_the_field(
        demos: dict[str, Path], tmp_path: Path, demo: str, step: str, choices: dict[str, Any], where: str) -> None:
    """A GM effect of 10**30 committed and verified; then every SQL query over the root was an internal error."""
    err = refused(demos[demo], tmp_path, {"seed": "x", "steps": {step: {"choices": choices}}})
    assert f"({step}): choice {where}: {HUGE} is above the largest allowed, {LIMIT}" in err, err  # the step's id


def test_a_negative_gm_xp_is_refused_where_it_is_typed(demos: dict[str, Path], tmp_path: Path) -> None:
    err = refused(demos["stolen-lands"], tmp_path, {"seed": "x", "steps": {"event.xp": {"choices": {"gm_xp": -5}}}})
    assert "at Event: Kingdom XP (event.xp): choice gm_xp: -5 is below the smallest allowed, 0" in err


def test_the_sheets_number_fields_carry_the_bounds(demos: dict[str, Path]) -> None:
    """The bounds are in the FieldSpec the GM sheet builds its number widgets from."""
    camp = Campaign.open(demos["stolen-lands"])
    start = camp.turn_start()
    xp = {f.name: f for f in camp.ruleset.choices(start.state, start.turn, "event.xp")}
    assert (xp["gm_xp"].kind, xp["gm_xp"].minimum, xp["gm_xp"].maximum) == ("int", 0, LIMIT)
    resolve = {f.name: f for f in camp.ruleset.choices(start.state, start.turn, "event.resolve")}
    effect = {f.name: f for f in resolve["gm_effects"].fields}
    assert (effect["value"].minimum, effect["value"].maximum) == (-LIMIT, LIMIT)
    assert (effect["count"].minimum, effect["count"].maximum) == (0, 100)


def test_a_ruin_of_ten_thousand_points_is_counted_not_looped(demos: dict[str, Path]) -> None:
    """A GM Ruin of 10**9 took 21 s (a loop per threshold), 2**63 never ended: 10**9 is refused now, and the
    largest allowed, 10,000, overflows 1,000 times at once: Corruption 8 of 10 + 10,000 = 10,008 → 8 and a
    penalty of 0 + 1,000."""
    camp = Campaign.open(demos["stolen-lands"])
    before = camp.state().ruin["corruption"]
    assert (before.points, before.threshold, before.penalty) == (8, 10, 0)
    t0 = time.perf_counter()
    pv = camp.preview(Plan.parse({"seed": "x", "steps": {"event.resolve": {"choices": {"gm_effects": [
        {"kind": "ruin", "target": "corruption", "amount": LIMIT}]}}}}))
    assert pv.ok, pv.error
    assert time.perf_counter() - t0 < 10
    after = next(s for s in pv.steps if s.phase.id == "event.resolve").state_after.ruin["corruption"]  # type: ignore
    assert (after.points, after.penalty) == (8, 1000)


def test_append_refuses_a_payload_integer_no_reader_takes(demos: dict[str, Path], tmp_path: Path) -> None:
    """Raw events (``append``) are checked by the one payload writer: an integer past 2**53 - 1 is refused."""
    folder = demos["river-kingdom"]
    before = log_hash(folder)
    line = {"turn": 18, "type": "pf1.gm_adjustment", "payload": {"field": "treasury", "delta": HUGE, "reason": "x"},
            "visibility": "gm"}
    (tmp_path / "e.jsonl").write_text(json.dumps(line) + "\n")
    rc, _, err = run("append", str(folder), str(tmp_path / "e.jsonl"))
    assert rc == 1 and err.count("\n") == 1 and "internal error" not in err, err
    assert f"payload: delta is {HUGE}, past the largest integer an event carries" in err
    assert log_hash(folder) == before


# ---- internal errors a player or a GM could reach (item 9) ---------------------------------------------------


def test_a_war_order_with_characters_null_is_an_order_without_characters(demos: dict[str, Path],
                                                                          tmp_path: Path) -> None:
    """``submit --as marburg`` with ``"characters": null`` was an internal error (TypeError in the rules): a
    null is a value left out, as the schema declares it."""
    folder = tmp_path / "felmonte"
    shutil.copytree(demos["felmonte"], folder)
    plan = {"steps": {"command_marburg": {"choices": {"stake": "low"}},
                      "orders_marburg": {"choices": {"actor": "marburg", "orders": [
                          {"id": "O1", "action": "war", "slots": ["ordinary"], "target": "fabia",
                           "params": {"units": 1, "characters": None, "reserve": None, "tactic": None}}]}}}}
    (tmp_path / "p.json").write_text(json.dumps(plan))
    rc, out, err = run("submit", str(folder), "--as", "marburg", "--plan", str(tmp_path / "p.json"))
    assert rc == 0 and "Doge of Marburg submitted Command roll, Sealed orders for month 8" in out, err
    assert "command_marburg" not in out and "marburg " not in out  # its steps and itself in words (issue 29)
    pv = Campaign.open(folder).preview(Plan.parse({"seed": "x", "steps": plan["steps"]}))
    sealed = next(d.payload for d in pv.drafts if d.type == "signoria.orders_submitted"
                  and d.payload.faction == "marburg")  # type: ignore[attr-defined]
    assert sealed.orders[0]["params"] == {"units": 1}  # type: ignore[attr-defined]


@pytest.mark.parametrize(("effect", "needs"), [
    ({"kind": "resource", "resource": "wealth", "delta": 1},
     "a resource effect needs the faction: give it, or leave the effect out"),
    ({"kind": "resource", "faction": "marburg", "resource": "wealth", "delta": None},
     "a resource effect needs the change: give it"),
    ({"kind": "standing", "faction": "marburg", "delta": 1}, "a standing effect needs the neutral: give it"),
    ({"kind": "treaty", "type": "trade"}, "a treaty effect needs its parties: give them"),
])
def test_a_dilemma_effect_without_what_its_kind_reads_is_refused(demos: dict[str, Path], tmp_path: Path,
                                                                 effect: dict[str, Any], needs: str) -> None:
    """A dilemma option effect without ``faction`` or with ``delta: null`` was an internal error when the fold
    applied it; now the GM's opening is refused naming the effect."""
    dilemma = {"faction": "marburg", "id": "d9", "text": "x", "options": [{"id": "a", "text": "a",
                                                                            "effects": [effect]}]}
    err = refused(demos["felmonte"], tmp_path, {"seed": "x", "steps": {"turn_open": {"choices": {
        "dilemmas": [dilemma]}}}})
    assert f"(turn_open): choice dilemmas[0].options[0].effects[0]: {needs}" in err, err


def test_a_deadline_past_any_calendar_is_refused(demos: dict[str, Path]) -> None:
    """``deadline --in 99999999999999999999`` was an internal error (OverflowError)."""
    folder = demos["felmonte"]
    for arg in ("--in", "--answers"):
        rc, _, err = run("deadline", str(folder), arg, "99999999999999999999")
        assert rc == 1 and err.count("\n") == 1 and "internal error" not in err, err
        assert "'99999999999999999999' is more than a year; a deadline is due at most 366d from now" in err


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "1e400"])
def test_a_non_finite_option_in_campaign_toml_is_named_not_an_internal_error(
        demos: dict[str, Path], tmp_path: Path, value: str) -> None:
    """``max_rounds = inf`` in campaign.toml made every command an internal error (OverflowError); now the
    log's options apply and ``verify`` says why campaign.toml's are ignored."""
    folder = tmp_path / "felmonte"
    shutil.copytree(demos["felmonte"], folder)
    toml = folder / "campaign.toml"
    toml.write_text(toml.read_text().replace("max_rounds = 3", f"max_rounds = {value}"))
    rc, out, err = run("state", str(folder))
    assert rc == 0 and "T7 winter" in out, err
    rc, out, err = run("verify", str(folder))
    assert "internal error" not in out + err
    assert f"option 'max_rounds' must be an integer, got {float(value)!r}" in err, err
    rc, _, err = run("new", str(tmp_path / "n"), "--ruleset", "pf1-kingmaker", "--set",
                     f"trade_coastline_weight={value}")
    assert rc == 1 and "option 'trade_coastline_weight' must be a finite number" in err, err


# ---- coerced and undeclared (item 10) -------------------------------------------------------------------------


def test_a_plan_turn_given_as_text_is_refused(demos: dict[str, Path], tmp_path: Path) -> None:
    """``"turn": "8"`` was read as 8: a plan says what it means."""
    err = refused(demos["felmonte"], tmp_path, {"turn": "8", "seed": "x", "steps": {}})
    assert "invalid plan: turn: input should be a valid integer (got '8')" in err


def test_an_option_beyond_the_entry_limit_is_refused_when_given_but_a_log_that_recorded_one_still_folds() -> None:
    """The default range of an option with none declared (``core.choices.LIMIT``) holds where options enter
    (``new --set``, campaign.toml); a log made before that limit existed recorded its options as facts, and the
    fold reads them as they are (only the declared ``minimum``/``maximum`` hold there, as they always did)."""
    from kingdomlog.core.choices import LIMIT
    from kingdomlog.core.errors import InputError
    from kingdomlog.core.ruleset import CampaignContext, find_ruleset, validate_options

    rs = find_ruleset("pf2e-kingmaker")
    big = {"rp_to_xp_limit": LIMIT * 3}
    with pytest.raises(InputError, match="rp_to_xp_limit"):
        validate_options(rs.options, big, entering=True)
    assert validate_options(rs.options, big)["rp_to_xp_limit"] == LIMIT * 3
    state = rs.initial_state(CampaignContext(campaign="old", options=big))
    assert state is not None
    with pytest.raises(InputError, match="at least 0"):  # a declared range holds everywhere, as before
        validate_options(rs.options, {"rp_to_xp_limit": -1})
