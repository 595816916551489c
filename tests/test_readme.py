"""The README's quick start, executed: exactly two commands; the first brings up the GM turn sheet."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def quick_start_commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, flags=re.S)
    return [line.strip() for b in blocks for line in b.strip().splitlines() if line.strip()]


def test_quick_start_has_exactly_two_commands_and_ci_runs_the_second() -> None:
    cmds = quick_start_commands()
    assert len(cmds) == 2, cmds
    assert cmds[1] == "bash .ci/run"
    ci = (REPO / ".ci" / "run").read_text()
    assert "pytest" in ci and "set -euo pipefail" in ci
    assert "campaigns/stolen-lands" in cmds[0] and "kingdomlog gm" in cmds[0]
    assert (REPO / "campaigns" / "stolen-lands" / "campaign.toml").is_file()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_main_job_command_serves_the_gm_turn_sheet() -> None:
    """Run the first command as written (plus --headless and a free port) and fetch the printed URL."""
    port = free_port()
    cmd = quick_start_commands()[0] + f" --headless --port {port}"
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1")
    proc = subprocess.Popen(["bash", "-c", cmd], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env=env, start_new_session=True)
    seen: list[str] = []
    url = None
    try:
        deadline = time.monotonic() + 240
        assert proc.stdout is not None
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                if proc.poll() is not None:
                    break
                continue
            seen.append(line)
            m = re.search(r"(http://127\.0\.0\.1:\d+/\S*)", line)
            if m:
                url = m.group(1)
                break
        assert url, "no URL printed:\n" + "".join(seen[-30:])
        assert f":{port}/" in url
        with urllib.request.urlopen(url, timeout=30) as resp:
            body = resp.read().decode("utf-8", "replace")
            assert resp.status == 200
        assert "marimo" in body.lower()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
