"""Processes that race at the table (``test_table.py``): each round, every role starts its write at a barrier.

``run_rounds(jobs, ctx)`` starts one process per role, each importing kingdomlog once, and plays the rounds:
``jobs[i][r]`` is what role ``r`` does in round ``i``:

- ``("cli_submit", folder, faction, plan)``: ``kingdomlog submit`` as that faction; the command reads its turn,
  then waits at the barrier before its write (``Campaign.submit``); result ``(exit code, stdout, stderr)``;
- ``("gm_play", folder)``: previews the next turn, waits at the barrier, then the GM commits it (and plays it
  again on a conflict, as a GM whose commit was refused because a submission landed first does); ``"ok"``;
- ``("submit", folder, faction, choices JSON)``: opens the campaign, waits at the barrier, then submits the
  faction's command roll with those choices; result ``"ok"`` or the refusal's words.
"""

from __future__ import annotations

import contextlib
import io
import json
import queue
from typing import Any

ROUND_TIMEOUT = 60.0


def _do(job: tuple[Any, ...], barrier: Any) -> Any:
    from kingdomlog.app import Campaign
    from kingdomlog.app import submissions as subs
    from kingdomlog.core.errors import ConflictError, KingdomlogError
    from kingdomlog.core.turn import Plan
    from kingdomlog.core.viewers import Viewer

    kind = job[0]
    if kind == "gm_play":
        camp = Campaign.open(job[1])
        preview = camp.preview(Plan())  # the GM's month is ready before the race: its write comes first
        barrier.wait(ROUND_TIMEOUT)
        for _ in range(5):
            try:
                camp.commit(preview)
                return "ok"
            except ConflictError:
                camp = Campaign.open(job[1])
                preview = camp.preview(Plan())
        return "the GM's commit conflicted five times"
    if kind == "submit":
        camp = Campaign.open(job[1])
        barrier.wait(ROUND_TIMEOUT)
        try:
            subs.submit(camp, Viewer("player", job[2]), {f"command_{job[2]}": {"choices": json.loads(job[3])}})
        except KingdomlogError as exc:
            return str(exc)
        return "ok"
    assert kind == "cli_submit", kind
    from kingdomlog.cli import main

    real = Campaign.submit

    def at_the_barrier(self: Any, *a: Any, **kw: Any) -> Any:
        barrier.wait(ROUND_TIMEOUT)  # the command has read its turn: the race starts here
        return real(self, *a, **kw)

    Campaign.submit = at_the_barrier  # type: ignore[method-assign]
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["submit", job[1], "--as", job[2], "--plan", job[3]])
    finally:
        Campaign.submit = real  # type: ignore[method-assign]
    return (code, out.getvalue(), err.getvalue())


def _role(role: int, jobs: list[list[tuple[Any, ...]]], barrier: Any, results: Any) -> None:
    for i, round_ in enumerate(jobs):
        try:
            results.put((i, role, _do(round_[role], barrier)))
        except BaseException as exc:  # reported to the test at once, never a silent hang
            barrier.abort()  # the other roles stop waiting for this one
            results.put((i, role, f"crashed: {type(exc).__name__}: {exc}"))
            return


def run_rounds(jobs: list[list[tuple[Any, ...]]], ctx: Any) -> list[list[Any]]:
    """Play ``jobs`` (rounds of one job per role) with one process per role; the results, by round and role."""
    roles = len(jobs[0])
    barrier = ctx.Barrier(roles)
    results = ctx.Queue()
    procs = [ctx.Process(target=_role, args=(r, jobs, barrier, results)) for r in range(roles)]
    for p in procs:
        p.start()
    out: list[list[Any]] = [[None] * roles for _ in jobs]
    try:
        for _ in range(len(jobs) * roles):
            i, r, res = results.get(timeout=ROUND_TIMEOUT * 2)
            out[i][r] = res
            if isinstance(res, str) and res.startswith("crashed:"):
                raise AssertionError(f"round {i}, role {r}: {res}")
    except queue.Empty:
        raise AssertionError(f"the racing processes stopped answering: {out}") from None
    finally:
        for p in procs:
            p.join(30)
            if p.is_alive():
                p.kill()
    return out
