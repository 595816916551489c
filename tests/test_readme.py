"""The README's quick start, executed: exactly two commands; the first brings up the GM turn sheet.

"Brings up" means the sheet really renders in a browser (a step with its result and the Commit
button, and no cell stopped by an error), not that the server answers with a page holding the
word "marimo" (a notebook whose first cell raises does that too). The check is shown to pass on
a working sheet and to fail on one whose first cell raises (toy campaigns, so this runs with
any ruleset installed).
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
FIRST_RENDER = 120.0  # s: the first render includes starting marimo's kernel
FAILED_CELL = ("Ancestor stopped", "Cannot open the campaign", "Traceback", "An internal error", "internal error")


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
@pytest.mark.browser
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
            assert resp.status == 200
        problem = sheet_problem(url, "readme-quick-start")
        assert problem is None, problem
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


def sheet_problem(url: str, shot: str, timeout: float = FIRST_RENDER) -> str | None:
    """None when the GM turn sheet at ``url`` renders in chromium; else what is wrong (a screenshot is kept).

    Rendered: at least one step card (``[data-card]``) and the Commit button ("✔ Commit month 14") are visible,
    and no cell's output shows an error or a stop by one.
    """
    if not CHROMIUM.exists():
        pytest.fail("Debian chromium is missing: .ci/run installs it (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=[
            "--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
            "--disable-dev-shm-usage"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1200})
            page.goto(url)
            deadline = time.monotonic() + timeout
            problem: str | None = "the sheet did not render within the time limit (no step card, no Commit button)"
            def outputs() -> str:  # the cells' outputs only (the editor shows their code too; an app hides it)
                cells = page.locator("[data-cell-role=output]").all_inner_texts()
                if cells:
                    return "\n".join(cells)
                # an app: the outputs sit in shadow roots, which get_by_text reads and inner_text does not
                return "\n".join(f for f in FAILED_CELL if page.get_by_text(f).count())

            while time.monotonic() < deadline:
                text = outputs()
                failed = [f for f in FAILED_CELL if f in text]
                if failed:
                    problem = f"the sheet shows {failed[0]!r}: " + " ".join(text.split())[:300]
                    break
                if page.locator("[data-card]:visible").count() and \
                        page.get_by_role("button", name=re.compile(r"^✔ Commit ")).count():
                    time.sleep(0.5)  # let later cells finish: an error in them must show too
                    text = outputs()
                    failed = [f for f in FAILED_CELL if f in text]
                    problem = f"the sheet shows {failed[0]!r}" if failed else None
                    break
                time.sleep(0.25)
            (REPO / "test-artifacts").mkdir(exist_ok=True)
            page.screenshot(path=str(REPO / "test-artifacts" / f"{shot}.png"), full_page=True)
            return problem
        finally:
            browser.close()


@pytest.fixture
def toy_env(tmp_path: Path) -> dict[str, str]:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("import toyrules  # noqa: F401\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(REPO / "tests")]))
    env.pop("KINGDOMLOG_CAMPAIGN", None)
    return env


@pytest.fixture
def gm_server(toy_env: dict[str, str]) -> Iterator[Any]:
    procs: list[subprocess.Popen[str]] = []

    def start(folder: Path) -> str:
        port = free_port()
        proc = subprocess.Popen([sys.executable, "-m", "kingdomlog", "gm", str(folder), "--headless", "--port",
                                 str(port)], env=toy_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, start_new_session=True)
        procs.append(proc)
        assert proc.stdout is not None
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            m = re.search(r"GM turn sheet for .*: (http://\S+)", line)
            if m:
                return m.group(1)
            if not line and proc.poll() is not None:
                break
        raise AssertionError("kingdomlog gm did not start")

    yield start
    for proc in procs:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


def toy_campaign(folder: Path) -> Path:
    sys.path.insert(0, str(REPO / "tests"))
    import toyrules

    from kingdomlog.app import Campaign
    from kingdomlog.core.turn import Plan

    camp = Campaign.create(folder, "toy-farm", name="Farm")
    camp.play(Plan.parse(toyrules.TOY.sample_plans()[0]))
    return folder


@pytest.mark.browser
def test_the_render_check_passes_on_a_working_sheet_and_fails_on_a_broken_one(tmp_path: Path, gm_server: Any) -> None:
    good = toy_campaign(tmp_path / "good")
    assert sheet_problem(gm_server(good), "readme-check-good") is None
    broken = toy_campaign(tmp_path / "broken")
    (broken / "data").mkdir()
    (broken / "data" / "house.toml").write_text("this is = = not toml\n")  # the sheet's first cell raises
    broken_url = gm_server(broken)
    problem = sheet_problem(broken_url, "readme-check-broken", timeout=60)
    assert problem is not None, "the check passed a sheet whose first cell raises"
    assert re.search(r"the sheet shows '(Cannot open the campaign|Ancestor stopped)'", problem), problem
    # what the old check looked at: the server answers 200 with a page naming marimo, broken or not
    with urllib.request.urlopen(broken_url, timeout=30) as resp:
        assert resp.status == 200 and "marimo" in resp.read().decode("utf-8", "replace").lower()
