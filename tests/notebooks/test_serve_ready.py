"""``kingdomlog serve`` says "Serving on ..." only once its socket listens: a link opened the moment it is printed
is answered, never refused (a CI run's browser test was refused: the line came before uvicorn bound its port)."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
from nb_support import Server, copy_demo, free_port

SLOW_LIFESPAN = """\
import asyncio

import uvicorn.lifespan.on as on

_real = on.LifespanOn.startup


async def _slow(self):  # the app's startup takes 1.5 s: the socket is bound only after it
    await asyncio.sleep(1.5)
    await _real(self)


on.LifespanOn.startup = _slow
"""


@pytest.mark.slow
def test_the_serving_line_comes_once_the_port_listens(tmp_path: Path, python: str,
                                                      subprocess_env: dict[str, str]) -> None:
    folder = copy_demo(tmp_path / "stolen-lands")
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SLOW_LIFESPAN)
    env = dict(subprocess_env, PYTHONPATH=os.pathsep.join([str(site), subprocess_env.get("PYTHONPATH", "")]))
    port = free_port()
    with Server([python, "-m", "kingdomlog", "serve", str(folder), "--port", str(port), "--no-gm-sheet"], env=env,
                ready=r"Serving on (http://\S+?)/?\s") as srv:
        assert srv.url == f"http://127.0.0.1:{port}"
        with socket.create_connection(("127.0.0.1", port), timeout=5):  # at once: refused if printed too early
            pass


def test_the_line_is_printed_after_startup_and_only_if_it_started(capsys: pytest.CaptureFixture[str],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's own startup (binding its socket, or failing to) runs first; the line comes after it, and only
    if it started."""
    import asyncio

    import uvicorn

    from kingdomlog.uvicorn_server import AnnouncingServer

    async def startup(self: uvicorn.Server, sockets: object = None) -> None:
        binds = self.config.port != 1
        print("bound" if binds else "startup failed")
        self.started = binds

    monkeypatch.setattr(uvicorn.Server, "startup", startup)
    asyncio.run(AnnouncingServer(uvicorn.Config(None, port=2730), "Serving on x").startup())
    assert capsys.readouterr().out.splitlines() == ["bound", "Serving on x"]
    asyncio.run(AnnouncingServer(uvicorn.Config(None, port=1), "Serving on x").startup())
    assert capsys.readouterr().out.splitlines() == ["startup failed"]


def test_serving_loads_uvicorn_only_to_serve(python: str, subprocess_env: dict[str, str]) -> None:
    """``kingdomlog.server`` (and so the CLI) imports uvicorn only when a table is served."""
    import subprocess

    code = "import sys, kingdomlog.server, kingdomlog.cli; print(any(m.startswith('uvicorn') for m in sys.modules))"
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True, env=subprocess_env)
    assert out.stdout.strip() == "False", out
