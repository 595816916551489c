"""Edges of the store (issue 28, item 10).

- A FIFO named like a batch file (``log/000000000099.parquet``) hung ``verify``, ``state`` and ``note``
  (a plain ``open`` waits for a writer). Batch files are now opened without blocking and anything but a
  regular file is a fault naming it.
"""

from __future__ import annotations

import io
import os
import threading
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from kingdomlog import cli
from kingdomlog.app import Campaign
from kingdomlog.core.turn import Plan
from kingdomlog.store import log as logmod


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def build(folder: Path) -> Campaign:
    camp = Campaign.create(folder, "toy-farm", name="Farm", viewers=["alice"])
    camp.play(Plan.parse({"seed": "s0", "steps": {"found": {"choices": {"name": "Dale", "gold": 5}}}}))
    camp.play(Plan.parse({"seed": "s1", "steps": {"harvest": {"choices": {"stash": 1}}}}))
    return camp


# ---- a FIFO named like a batch --------------------------------------------------------------------


def run_bounded(argv: tuple[str, ...], fifo: Path, seconds: float = 20.0) -> tuple[int, str, str]:
    """``run(*argv)`` in a thread; if it is still waiting after ``seconds``, release it (open the FIFO for writing)
    and fail."""
    got: list[tuple[int, str, str]] = []
    t = threading.Thread(target=lambda: got.append(run(*argv)), daemon=True)
    t.start()
    t.join(seconds)
    if t.is_alive():
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # a reader waits on the FIFO: let it go
        os.close(fd)
        t.join(10)
        pytest.fail(f"{argv[0]} waited on a FIFO named like a batch file")
    return got[0]


@pytest.mark.parametrize("name", ["000000000099.parquet", "next"])
def test_a_fifo_named_like_a_batch_is_a_fault_not_a_hang(tmp_path: Path, name: str) -> None:
    camp = build(tmp_path / "farm")
    head = camp.log.head().seq
    fifo = camp.folder / "log" / (logmod.batch_name(head + 1) if name == "next" else name)
    os.mkfifo(fifo)
    for argv in (("verify", str(camp.folder)), ("state", str(camp.folder)), ("state", str(camp.folder), "--no-cache"),
                 ("note", str(camp.folder), "past the fifo"), ("log", str(camp.folder))):
        rc, _, err = run_bounded(argv, fifo)
        assert rc == 1 and fifo.name in err and "FIFO" in err and "Traceback" not in err, (argv, err)
    fifo.unlink()
    assert Campaign.open(camp.folder).verify().ok and Campaign.open(camp.folder).head_for().seq == head
