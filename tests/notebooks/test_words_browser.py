"""Every page a person plays speaks in words (issue 29), in a real browser: the GM sheet of each bundled demo and
a player's orders sheet ask nothing as a JSON text field, and their labels, options and roll lines name no raw id
(a snake_case name, a dotted key, an issue number), read over the page text and the aria-labels, shadow roots
included.

Screenshots go to test-artifacts/ (words-*.png).
"""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from nb_support import DRAWN, REPO, Server, free_port

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = REPO / "test-artifacts"

WORDS_JS = r"""() => {
  const out = {labels: [], options: [], rolls: [], json_fields: []};
  const walk = (root) => {
    for (const e of root.querySelectorAll('*')) {
      if (e.shadowRoot) walk(e.shadowRoot);
      const a = e.getAttribute('aria-label');
      if (a) out.labels.push(a);
      if (e.matches('label, .kl-rows-label, .kl-check-title, .kl-title')) out.labels.push(e.textContent.trim());
      if (e.matches('option, [role=option]')) out.options.push(e.textContent.trim());
      if (e.matches('.kl-roll, .kl-faces, .kl-dice, .kl-outcome')) out.rolls.push(e.textContent.trim());
      if (e.matches('textarea')) {
        const around = e.closest('label');
        const label = (e.getAttribute('aria-label') || '') + ' ' + (around ? around.textContent : '');
        if (/JSON/.test(label) || e.closest('[data-field]')) out.json_fields.push(label.trim());
      }
    }
  };
  walk(document);
  for (const k of Object.keys(out)) out[k] = Array.from(new Set(out[k])).filter(x => x);
  return out; }"""

RAW_ID = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b|\b[a-z]+\d*\.[a-z0-9_]+\b|\(issue \d+\)|<span class=")
"""A machine's name on a page: ``hire_troops``, ``cmd.1``, ``b7.1``, "(issue 13)", a label's raw markup."""


def raw_ids(texts: list[str]) -> list[str]:
    """The texts that name a raw id ("e.g." is words)."""
    return [t for t in texts if RAW_ID.search(t.replace("e.g.", "").replace("i.e.", ""))]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.fail("Debian chromium is missing: .ci/run installs it (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=[
            "--no-sandbox", "--headless", "--disable-gpu", "--disable-dev-shm-usage"])
        yield b
        b.close()


def copy(demo: str, tmp_path: Path) -> Path:
    folder = tmp_path / demo
    shutil.copytree(REPO / "campaigns" / demo, folder, ignore=shutil.ignore_patterns(".cache"))
    return folder


def words_of(page: Any) -> dict[str, list[str]]:
    return dict(page.evaluate(WORDS_JS))


@pytest.mark.parametrize("demo", ["stolen-lands", "aikakirjat-demo", "felmonte"])
def test_the_gm_sheet_asks_nothing_as_json(demo: str, browser: Any, tmp_path: Path,
                                           subprocess_env: dict[str, str]) -> None:
    folder = copy(demo, tmp_path)
    with Server([sys.executable, "-m", "kingdomlog", "gm", str(folder), "--headless", "--port", str(free_port())],
                env=subprocess_env, ready=r"GM turn sheet for .*: (http://\S+)") as srv:
        page = browser.new_page(viewport={"width": 1280, "height": 1600})
        page.goto(srv.url)
        page.locator(DRAWN).first.wait_for(timeout=180_000)
        page.wait_for_timeout(2000)
        got = words_of(page)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"words-gm-{demo}.png"))
        page.close()
    assert got["options"] and got["labels"]
    assert got["json_fields"] == []
    assert raw_ids(got["options"]) == []


def test_the_orders_sheet_asks_nothing_as_json(browser: Any, tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    folder = copy("felmonte", tmp_path)
    with Server([sys.executable, "-m", "kingdomlog", "orders", str(folder), "--as", "fabian", "--port",
                 str(free_port())], env=subprocess_env, ready=r"Orders sheet of .*: (http://\S+)") as srv:
        page = browser.new_page(viewport={"width": 1280, "height": 1600})
        page.goto(srv.url)
        page.get_by_role("button", name="Make the command roll").wait_for(timeout=180_000)
        page.wait_for_timeout(1500)
        got = words_of(page)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "words-orders-fabian.png"))
        page.close()
    assert got["options"] and got["labels"]
    assert got["json_fields"] == []
    assert not [x for x in got["labels"] if "JSON" in x]  # "Rerolls paid — JSON" is a dropdown per reroll
    assert raw_ids(got["options"]) == []
