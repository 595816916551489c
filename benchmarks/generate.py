"""Synthetic archives: N campaigns x M turns played through the real rulesets (benchmark data sets).

    python -m benchmarks.generate --campaigns 20 --turns 12 --out /tmp/archive [--ruleset pf2e-kingmaker]

Each turn is played the way a GM would: for every step of the turn, a random
legal set of choices is drawn from ``ruleset.choices(state, turn, step)`` (a select
picks one of its options, an int a value in its bounds, a bool a coin flip,
anything else its default); when the rules refuse it (``RuleError`` or
``InputError``) the step is retried with new random choices, then with the
defaults, then with no choices at all. Dice are keyed by a per-campaign seed, so
the same command writes the same archive (ids and timestamps aside). Each turn is
committed as one batch through ``Campaign.commit`` (durable, hash-chained).
Without ``--ruleset`` the campaigns cycle through every registered ruleset.
Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kingdomlog.app import Campaign
from kingdomlog.core.choices import FieldSpec
from kingdomlog.core.errors import InputError, KingdomlogError, RuleError
from kingdomlog.core.events import Draft
from kingdomlog.core.ruleset import Ruleset, all_rulesets, find_ruleset, run_step
from kingdomlog.core.turn import Plan, preview_turn
from kingdomlog.dice.roller import KeyedRoller

TRIES = 6


def random_choice_value(c: FieldSpec, rng: random.Random, *, entries: bool = False) -> Any:
    """A random value for one choice, within what the choice itself declares (``entries``: a list of entries,
    such as a step's activities, gets one entry of random field values most of the time)."""
    values = [o.value for o in c.options or () if not o.disabled]
    if c.kind == "select" and values:
        return rng.choice(values)
    if c.kind == "multiselect" and values:
        return rng.sample(values, rng.randint(0, min(3, len(values))))
    if c.kind == "bool":
        return rng.random() < 0.5
    if entries and c.kind == "rows" and c.fields and not c.variants and rng.random() < 0.7:
        # one entry (an activity, say) of random field values: what the rules refuse is retried
        entry = {f.name: v for f in c.fields if (v := random_choice_value(f, rng)) is not None}
        return [entry] if entry else c.default
    if c.kind == "int":
        lo = c.minimum if c.minimum is not None else 0
        base = c.default if isinstance(c.default, int) and not isinstance(c.default, bool) else lo
        hi = c.maximum if c.maximum is not None else max(lo, base) + 3
        return rng.randint(int(min(lo, hi)), int(max(lo, hi)))  # bounds may be floats (a FieldSpec's)
    return c.default


def random_choices(rs: Ruleset, state: Any, turn: int, step: str, rng: random.Random, *,
                   entries: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for c in rs.choices(state, turn, step):
        v = random_choice_value(c, rng, entries=entries)
        if v is not None:
            out[c.name] = v
    return out


def default_choices(rs: Ruleset, state: Any, turn: int, step: str) -> dict[str, Any]:
    return {c.name: c.default for c in rs.choices(state, turn, step) if c.default is not None}


@dataclass
class TurnStats:
    retries: int = 0
    fallbacks: int = 0
    skipped_steps: list[str] = field(default_factory=list)


def plan_turn(rs: Ruleset, state: Any, *, campaign: str, turn: int, seed: str, rng: random.Random,
              stats: TurnStats, start_seq: int = 0, entries: bool = False) -> tuple[Plan, list[Draft], Any]:
    """Choose every step's choices, step by step (each step sees the state the earlier ones made).

    Returns the plan, the drafts it produces and the state after them: exactly what
    ``preview_turn(plan)`` gives (same keyed dice, same decide/evolve order), without the
    per-step ``explain`` a turn sheet needs.
    """
    roller = KeyedRoller(seed, campaign=campaign, turn=turn)
    steps: dict[str, Any] = {}
    drafts: list[Draft] = []
    current = state
    seq = start_seq
    for phase in rs.phases_for(state, turn):
        candidates = [random_choices(rs, current, turn, phase.id, rng, entries=entries) for _ in range(TRIES)]
        candidates += [default_choices(rs, current, turn, phase.id), {}]
        for i, choices in enumerate(candidates):
            dice = roller.for_step(phase.id)
            try:
                res = run_step(rs, current, phase, choices, dice, campaign=campaign, turn=turn, start_seq=seq)
            except (RuleError, InputError):
                stats.retries += 1
                continue
            if i >= TRIES:
                stats.fallbacks += 1
            steps[phase.id] = {"choices": choices}
            drafts += res.drafts
            seq += len(res.drafts)
            current = res.state
            break
        else:
            stats.skipped_steps.append(phase.id)
            raise RuleError(f"turn {turn}: no choices make step {phase.id!r} legal", step=phase.id)
    return Plan.parse({"turn": turn, "seed": seed, "steps": steps}), drafts, current


def play_campaign(folder: Path, ruleset: str, turns: int, seed: int, *, campaign_id: str | None = None,
                  options: dict[str, Any] | None = None, check: bool = False) -> dict[str, Any]:
    """Create a campaign and play ``turns`` turns (turn 0, usually founding, included in the count).

    ``check`` also runs ``preview_turn`` on each chosen plan and asserts it gives the same events.
    """
    rng = random.Random(seed)
    camp = Campaign.create(folder, ruleset, campaign_id=campaign_id, options=options or {})
    rs = camp.ruleset
    state = camp.state()
    head = camp.head_seq
    stats = TurnStats()
    played = 0
    errors: list[str] = []
    for turn in range(turns):
        tseed = f"{seed}-{turn}"
        try:  # with random entries (activities, orders) first; a turn they leave unplayable, without
            try:
                plan, drafts, after = plan_turn(rs, state, campaign=camp.id, turn=turn, seed=tseed, rng=rng,
                                                stats=stats, start_seq=head, entries=True)
            except RuleError:
                plan, drafts, after = plan_turn(rs, state, campaign=camp.id, turn=turn, seed=tseed, rng=rng,
                                                stats=stats, start_seq=head)
        except RuleError as exc:
            errors.append(str(exc))
            break
        if check:
            pv = preview_turn(rs, state, plan, campaign=camp.id, turn=turn, start_seq=head, seed=tseed)
            assert pv.ok and [d.payload for d in pv.drafts] == [d.payload for d in drafts], pv.error
        if not drafts:
            errors.append(f"turn {turn}: no events")
            break
        res = camp.log.append([d.at_turn(turn) for d in drafts], expect_seq=head)
        head = res.last_seq
        state = after
        played += 1
    return {"campaign": camp.id, "ruleset": rs.id, "turns": played, "events": head, "retries": stats.retries,
            "fallbacks": stats.fallbacks, "skipped_steps": len(stats.skipped_steps), "errors": errors}


class Progress:
    """A plain stderr progress bar."""

    def __init__(self, total: int, label: str, stream: Any = sys.stderr) -> None:
        self.total, self.label, self.stream = total, label, stream
        self.t0 = time.perf_counter()
        self.done = 0

    def step(self, note: str = "") -> None:
        self.done += 1
        frac = self.done / max(1, self.total)
        bar = "#" * int(frac * 30)
        el = time.perf_counter() - self.t0
        eta = el / frac - el if frac else 0
        self.stream.write(f"\r{self.label} [{bar:<30}] {self.done}/{self.total} {el:6.1f}s eta {eta:5.0f}s"
                          f" {note[:40]:<40}")
        if self.done == self.total:
            self.stream.write("\n")
        self.stream.flush()


def _one(job: tuple[Path, str, int, int, str, bool]) -> dict[str, Any]:
    out, rid, turns, seed, slug, sync = job
    if not sync:
        from kingdomlog.store import log as logmod

        logmod.SYNC = False
    try:
        return play_campaign(out / slug, rid, turns, seed, campaign_id=slug)
    except KingdomlogError as exc:
        return {"campaign": slug, "ruleset": rid, "turns": 0, "events": 0, "errors": [str(exc)]}


def generate(out: Path, campaigns: int, turns: int, rulesets: Sequence[str] | None = None, seed: int = 1,
             progress: bool = True, jobs: int = 1, sync: bool = True) -> list[dict[str, Any]]:
    """Write ``campaigns`` campaign folders under ``out``; returns one summary per campaign."""
    ids = list(rulesets) if rulesets else [rs.id for rs in all_rulesets() if rs.id not in ("toy-farm", "bench-ledger")]
    if not ids:
        raise InputError("no ruleset registered")
    ids = [find_ruleset(r).id for r in ids]
    out.mkdir(parents=True, exist_ok=True)
    work = []
    for i in range(campaigns):
        rid = ids[i % len(ids)]
        slug = f"c{i:05d}-{rid.replace('_', '-')}"[:60].lower()
        work.append((out, rid, turns, seed * 1_000_003 + i, slug, sync))
    bar = Progress(campaigns, "generating") if progress else None
    results = []
    if jobs > 1:
        import multiprocessing as mp

        with mp.get_context("fork").Pool(jobs) as pool:
            for r in pool.imap(_one, work, chunksize=4):
                results.append(r)
                if bar:
                    bar.step(f"{r['campaign']}: {r['events']} events")
    else:
        for job in work:
            results.append(_one(job))
            if bar:
                bar.step(f"{results[-1]['campaign']}: {results[-1]['events']} events")
    return results


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.generate", description=__doc__.split("\n\n")[0])
    ap.add_argument("--campaigns", type=int, required=True)
    ap.add_argument("--turns", type=int, required=True)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--ruleset", action="append", help="ruleset id or alias (repeatable; default: all)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--toy", action="store_true", help="also register the toy ruleset from tests/ (for tests)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--no-sync", action="store_true",
                    help="skip fsync (throwaway archives only: appends stay atomic, not durable)")
    args = ap.parse_args(argv)
    ap2 = args
    if args.toy:
        load_toy()
    try:
        res = generate(args.out, args.campaigns, args.turns, args.ruleset, args.seed, jobs=ap2.jobs,
                       sync=not ap2.no_sync)
    except KingdomlogError as exc:
        print(f"generate: error: {exc}", file=sys.stderr)
        return 1
    total = sum(r["events"] for r in res)
    bad = [r for r in res if r["errors"]]
    print(f"{len(res)} campaigns, {total} events in {args.out}; {len(bad)} stopped early")
    for r in bad[:10]:
        print(f"  {r['campaign']} ({r['ruleset']}) after {r['turns']} turns: {r['errors'][0]}")
    return 0


def load_toy() -> None:
    """Register tests/toyrules.py (the toy ruleset lives with the tests)."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "tests" / "toyrules.py"
    if "toyrules" in sys.modules:
        return
    spec = importlib.util.spec_from_file_location("toyrules", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules["toyrules"] = mod
    spec.loader.exec_module(mod)


if __name__ == "__main__":
    raise SystemExit(main())
