"""How well a growth-session policy plays the aikakirjat rules: many simulated sessions from the demo's start.

    .venv/bin/python -m benchmarks.bench_policy                      # 200 sessions per policy, 2 processes
    .venv/bin/python -m benchmarks.bench_policy --sessions 20 --jobs 1
    .venv/bin/python -m benchmarks.bench_policy --policy simple --policy "steward unrest_alarm=6"

Each session starts from the founding of ``campaigns/aikakirjat-demo`` (its options, ``sample_founding``) and is
planned with the pure rules (``aikakirjat.session.plan_session``: no store, no notebook), its dice keyed by the
seed ``bench-<i>``. Every policy plays the same seeds, so the sessions have the same length and the same dice
under the same keys (a paired comparison: where two policies choose the same, they roll the same). A session
is counted as played out; the figures are the state at its end and what its events recorded.

Prints a table and writes JSON (``--out``, default ``benchmarks/results/policy.json``).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

CAMPAIGN = "aikakirjat-demo"
HERE = Path(__file__).resolve().parent


def start_state() -> Any:
    """The demo's kingdom just founded (turn 0), with the demo's campaign options."""
    import tomllib

    from kingdomlog.core.ruleset import CampaignContext
    from kingdomlog.core.turn import Plan, preview_turn
    from kingdomlog.rulesets.aikakirjat import RULESET
    from kingdomlog.rulesets.aikakirjat.samples import sample_founding

    cfg = tomllib.loads((HERE.parent / "campaigns" / CAMPAIGN / "campaign.toml").read_text(encoding="utf-8"))
    ctx = CampaignContext(campaign=CAMPAIGN, options=cfg["options"])
    founding = Plan.parse({"turn": 0, "seed": f"{CAMPAIGN}-0", "steps": {"founding": {"choices": sample_founding()}}})
    p = preview_turn(RULESET, RULESET.initial_state(ctx), founding, campaign=CAMPAIGN, turn=0, start_seq=0)
    if not p.ok:
        raise SystemExit(p.error)
    return p.state_after


def one_session(args: tuple[str, int]) -> dict[str, Any]:
    """Plan (play) one whole session with ``policy`` and seed ``bench-<i>``; the figures that matter."""
    from kingdomlog.rulesets.aikakirjat.policy import parse_policy
    from kingdomlog.rulesets.aikakirjat.session import plan_session

    spec, i = args
    policy = parse_policy(spec.split())
    s0 = start_state()
    sp = plan_session(s0, campaign=CAMPAIGN, first_turn=1, seed=f"bench-{i}", policy=policy, verify=False)
    end = sp.state_after
    revolutions = sum(1 for y in sp.years for d in y.drafts if d.type == "aikakirjat.revolution_rolled")
    changed = sum(1 for y in sp.years for d in y.drafts if d.type == "aikakirjat.revolution_rolled"
                  and d.payload.audit.get("government"))
    spent = sum(1 for y in sp.years for r in y.reasons if "spend a stored" in r or "spend this year's" in r)
    wars = sum(1 for y in sp.years for d in y.drafts if d.type == "aikakirjat.war_begun")
    return {"unrest_gained": unrest_sources(sp), **{
        "seed": i, "years": len(sp.years), "revolutions": revolutions, "governments_changed": changed,
        "level": end.level, "highest_level": end.highest_level_reached, "population": end.population,
        "fame": end.fame, "unrest": end.unrest, "fallen": end.fallen,
        "worst_corruption_modifier": min(t.modifier for t in end.tracks.values()),
        "years_unrest_15_plus": sum(1 for y in sp.years if y.state_after.unrest >= 15),
        "advantages_spent": spent, "wars_begun": wars, "government": end.government,
    }}


def unrest_sources(sp: Any) -> dict[str, int]:
    """Unrest gained in the session, by the event that raised it (from each event's recorded outcome)."""
    out: Counter[str] = Counter()
    for y in sp.years:
        u = y.state_before.unrest
        for d in y.drafts:
            new = u
            patch = getattr(d.payload, "outcome", None)
            for op in patch.ops if patch is not None else ():
                if op.path == ("unrest",):
                    new = op.value
            if new > u:
                kind = d.type.split(".", 1)[1]
                out[f"{kind}:{d.payload.action}" if kind == "action_taken" else kind] += new - u
            u = new
    return dict(out)


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)

    def mean_ci(key: str) -> dict[str, float]:
        xs = [float(r[key]) for r in rows]
        m = statistics.fmean(xs)
        sd = statistics.stdev(xs) if n > 1 else 0.0
        return {"mean": round(m, 3), "ci95": round(1.96 * sd / math.sqrt(n), 3) if n > 1 else 0.0,
                "min": min(xs), "max": max(xs)}

    return {
        "sessions": n,
        "years": mean_ci("years"),
        "revolutions": mean_ci("revolutions"),
        "sessions_with_a_revolution": round(sum(1 for r in rows if r["revolutions"]) / n, 3),
        "governments_changed": mean_ci("governments_changed"),
        "level_reached": dict(sorted(Counter(r["highest_level"] for r in rows).items())),
        "level_at_end": dict(sorted(Counter(r["level"] for r in rows).items())),
        "population": {**mean_ci("population"), "median": statistics.median(r["population"] for r in rows)},
        "unrest_at_end": mean_ci("unrest"),
        "years_unrest_15_plus": mean_ci("years_unrest_15_plus"),
        "worst_corruption_modifier": mean_ci("worst_corruption_modifier"),
        "advantages_spent": mean_ci("advantages_spent"),
        "wars_begun": mean_ci("wars_begun"),
        "fallen": sum(1 for r in rows if r["fallen"]),
        "fallen_seeds": [r["seed"] for r in rows if r["fallen"]],
        "revolutions_total": sum(r["revolutions"] for r in rows),
        "sessions_with_several_revolutions": sum(1 for r in rows if r["revolutions"] > 1),
        "unrest_gained": dict(sum((Counter(r["unrest_gained"]) for r in rows), Counter()).most_common()),
    }


def paired(a: list[dict[str, Any]], b: list[dict[str, Any]], key: str) -> dict[str, float]:
    """Mean of b − a over the same seeds, with a 95% interval."""
    d = [float(y[key] - x[key]) for x, y in zip(a, b, strict=True)]
    sd = statistics.stdev(d) if len(d) > 1 else 0.0
    return {"mean": round(statistics.fmean(d), 3), "ci95": round(1.96 * sd / math.sqrt(len(d)), 3)}


SOURCE_WORDS = {"plague_resolved": "plague", "natural_disaster_resolved": "natural disaster",
                "war_upkeep_applied": "war upkeep", "neighbour_event_rolled": "neighbour event"}


def source_words(key: str) -> str:
    """``action_taken:tax_collection`` → ``tax collection``; ``plague_resolved`` → ``plague``."""
    kind, _, action = key.partition(":")
    return (action or SOURCE_WORDS.get(kind, kind)).replace("_", " ")


def table(results: dict[str, dict[str, Any]]) -> str:
    names = list(results)
    lines = ["| figure (per session, at its end) | " + " | ".join(names) + " |",
             "|---|" + "---:|" * len(names)]

    def cell(s: dict[str, Any], key: str, fmt: str = "{:.2f}") -> str:
        v = s[key]
        return f"{fmt.format(v['mean'])} ± {fmt.format(v['ci95'])}"

    rows = [
        ("session length (years)", lambda s: cell(s, "years", "{:.1f}")),
        ("revolution rolls", lambda s: cell(s, "revolutions")),
        ("sessions with a revolution", lambda s: f"{100 * s['sessions_with_a_revolution']:.0f}%"),
        ("governments changed", lambda s: cell(s, "governments_changed")),
        ("highest level reached", lambda s: ", ".join(f"L{k}: {v}" for k, v in s["level_reached"].items())),
        ("level at the end", lambda s: ", ".join(f"L{k}: {v}" for k, v in s["level_at_end"].items())),
        ("population", lambda s: f"{cell(s, 'population')} (median {s['population']['median']:g},"
                                 f" {s['population']['min']:g}–{s['population']['max']:g})"),
        ("unrest at the end", lambda s: cell(s, "unrest_at_end")),
        ("years at unrest 15+", lambda s: cell(s, "years_unrest_15_plus")),
        ("worst corruption modifier", lambda s: cell(s, "worst_corruption_modifier")),
        ("stored advantages spent", lambda s: cell(s, "advantages_spent")),
        ("wars begun", lambda s: cell(s, "wars_begun")),
        ("kingdoms fallen", lambda s: str(s["fallen"])),
    ]
    for label, fn in rows:
        lines.append(f"| {label} | " + " | ".join(fn(results[n]["summary"]) for n in names) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--sessions", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--policy", action="append", help="a policy: 'steward', 'simple', or 'NAME KEY=VALUE ...'")
    ap.add_argument("--out", default=str(HERE / "results" / "policy.json"))
    args = ap.parse_args(argv)
    policies = args.policy or ["simple", "steward"]
    results: dict[str, dict[str, Any]] = {}
    t0 = time.perf_counter()
    for spec in policies:
        t = time.perf_counter()
        work = [(spec, i) for i in range(args.sessions)]
        if args.jobs > 1:
            with ProcessPoolExecutor(args.jobs) as ex:
                rows = list(ex.map(one_session, work, chunksize=8))
        else:
            rows = [one_session(w) for w in work]
        results[spec] = {"summary": summarise(rows), "sessions": rows, "seconds": round(time.perf_counter() - t, 1)}
        print(f"{spec}: {args.sessions} sessions in {results[spec]['seconds']} s", file=sys.stderr)
    names = list(results)
    doc: dict[str, Any] = {"campaign": CAMPAIGN, "sessions": args.sessions,
                           "seeds": f"bench-0..bench-{args.sessions - 1}",
                           "seconds": round(time.perf_counter() - t0, 1), "policies": results}
    if len(names) >= 2:
        a, b = results[names[0]]["sessions"], results[names[-1]]["sessions"]
        doc["paired"] = {"of": [names[-1], names[0]],
                         **{k: paired(a, b, k) for k in ("revolutions", "population", "unrest", "highest_level")}}
    print(table(results))
    for n in names:
        gained = results[n]["summary"]["unrest_gained"]
        total = sum(gained.values()) or 1
        print(f"\nUnrest gained in {n}'s {args.sessions} sessions: {sum(gained.values())} points — "
              + ", ".join(f"{source_words(k)} {v} ({100 * v / total:.0f}%)" for k, v in gained.items()))
    if "paired" in doc:
        pd = doc["paired"]
        print(f"\npaired difference ({names[-1]} − {names[0]}, same seeds): revolutions"
              f" {pd['revolutions']['mean']:+.2f} ± {pd['revolutions']['ci95']:.2f}, population"
              f" {pd['population']['mean']:+.2f} ± {pd['population']['ci95']:.2f}, unrest"
              f" {pd['unrest']['mean']:+.2f} ± {pd['unrest']['ci95']:.2f}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    print(f"\nwrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
