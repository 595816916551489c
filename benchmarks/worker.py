"""One measurement per process, so each reports its own peak memory (``python -m benchmarks.worker CMD ...``).

Prints one JSON object: seconds, events, peak RSS (MB) and the final figures.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from typing import Any


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def replay_ours(folder: str, mode: str) -> dict[str, Any]:
    import benchmarks.ledger  # noqa: F401  (registers the ruleset)
    from kingdomlog.app import Campaign
    from kingdomlog.core.ruleset import find_ruleset

    find_ruleset("bench-ledger")  # import every bundled ruleset now, not inside the timing
    base = peak_mb()
    t = time.perf_counter()
    camp = Campaign.open(folder)
    if mode == "stream":
        state = camp.stream_state()
    elif mode == "warm":
        state = camp.state()
    else:
        state = camp.state(use_cache=False)
    dt = time.perf_counter() - t
    return {"seconds": dt, "events": state.events, "figures": [state.food, state.gold, state.unrest],
            "peak_mb": peak_mb(), "baseline_mb": base}


def replay_es(db: str, agg_id: str) -> dict[str, Any]:
    from uuid import UUID

    import eventsourcing.application
    import eventsourcing.sqlite  # noqa: F401

    from benchmarks.es_ledger import application

    base = peak_mb()
    t = time.perf_counter()
    app = application(db)
    k = app.repository.get(UUID(agg_id))
    dt = time.perf_counter() - t
    return {"seconds": dt, "events": k.events, "figures": [k.food, k.gold, k.unrest], "peak_mb": peak_mb(),
            "baseline_mb": base}


def main() -> None:
    cmd, *args = sys.argv[1:]
    if cmd == "ours":
        out = replay_ours(args[0], args[1])
    elif cmd == "es":
        out = replay_es(args[0], args[1])
    else:
        raise SystemExit(f"unknown command {cmd}")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
