"""Trust in the GM sheet in a real browser (issue 27, item 6; Debian chromium, one browser context per person).

- Commit clicked three times 100 ms apart commits exactly one month (the pf1 and pf2e demos, the sheet reloading
  slowly after the commit, as on a loaded machine: before the fix the clicks queued meanwhile committed the next
  month), and so does Commit clicked in two tabs at once;
- an activity added 200 ms after the previous change is in the saved draft and on the page after the rebuild;
- a rebuild shows that the sheet is busy: the cards disabled and dimmed at once, "Updating…" after 300 ms
  (screenshot test-artifacts/sheet-busy.png, the one in docs/notebooks.md).

A loaded machine is played by the server's own process: a ``sitecustomize`` makes the sheet slow at one point
(``KL_TEST_SLOW_AT``: ``refresh``, the kernel deciding that the widgets must be rebuilt; ``widgets``, the rebuild
itself; ``every-build``, the widgets of a session opened after a commit as well), so what the tests race against is
there on every run.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from nb_support import DRAWN, REPO, TESTS, Kernel, batches_since, ticking_cells
from playwright.sync_api import expect
from test_sheet_browser import Sheet, gm_server, open_sheet, roll_all, shot, wait_saved

from kingdomlog.app import Campaign
from kingdomlog.app.drafts import Drafts, SavedDraft
from kingdomlog.core.turn import Plan
from kingdomlog.views.sheet import draft as sheet

pytestmark = pytest.mark.browser

DEMOS = {"pf1": "river-kingdom", "pf2e": "stolen-lands"}
STEP = "activity.region"

SLOW_SITE = '''
import os
import time

import toyrules  # noqa: F401  (registers toy-farm)
from kingdomlog.views.sheet import draft as _draft

_AT, _S = os.environ.get("KL_TEST_SLOW_AT", ""), float(os.environ.get("KL_TEST_SLOW_S", "0"))


def _slow(name, after):
    real = getattr(_draft.SheetSession, name)

    def slow(self, *args, **kwargs):
        got = real(self, *args, **kwargs) if after else None
        if (getattr(self, "_kl_test_built", False) or _AT == "every-build") and (got or not after):
            time.sleep(_S)
        self._kl_test_built = True
        return got if after else real(self, *args, **kwargs)

    setattr(_draft.SheetSession, name, slow)


if _AT == "refresh":  # the kernel is slow to find that the widgets must be rebuilt (the busy state comes late)
    _slow("refresh_forms", True)
elif _AT in ("widgets", "every-build"):  # the rebuild itself is slow (every-build: the first of a session too)
    _slow("widgets", False)
'''


@pytest.fixture(scope="module")
def slow_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("slow-site")
    (site / "sitecustomize.py").write_text(SLOW_SITE)
    return site


@pytest.fixture
def slow_env(subprocess_env: dict[str, str], slow_site: Path) -> Callable[[str, float], dict[str, str]]:
    def make(at: str, seconds: float) -> dict[str, str]:
        env = dict(subprocess_env)
        env["PYTHONPATH"] = f"{slow_site}:{TESTS}:{env.get('PYTHONPATH', '')}"
        env["KL_TEST_SLOW_AT"], env["KL_TEST_SLOW_S"] = at, str(seconds)
        return env
    return make


def demo_copy(tmp_path: Path, ruleset: str, seed: str | None = None) -> Path:
    folder = tmp_path / DEMOS[ruleset]
    shutil.copytree(REPO / "campaigns" / DEMOS[ruleset], folder,
                    ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    if seed is not None:
        camp = Campaign.open(folder)
        Drafts(folder).save(SavedDraft(camp.next_turn(), camp.head_seq, Plan(turn=camp.next_turn(), seed=seed)))
    return folder


def rolled(folder: Path) -> sheet.SheetSession:
    """The sheet opened on ``folder``, its widgets read once and Roll all pressed (the draft saved, committable)."""
    s, _ = sheet.open_session(folder)
    assert s is not None
    s.update(dict(s.widgets().value))
    s.roll_all()
    assert s.draft is not None and s.draft.committable, s.draft and s.draft.problem
    return s


def both_months_rolled(folder: Path, tmp_path: Path) -> None:
    """The next month's draft rolled, and the one after it too, as it will be once the next is committed.

    Then nothing but the Commit click stands between the month after and the log: a click that reached that
    month's button would commit it (the roll of its checks, which the sheet waits for, is no guard against a
    click meant for another month).
    """
    rolled(folder)
    scratch = tmp_path / "scratch"
    shutil.copytree(folder, scratch)
    s, _ = sheet.open_session(scratch)  # the same saved draft: the same events, the same seq after the commit
    assert s is not None and sheet.commit(s, s.draft) is not None and s.done
    after = rolled(scratch)
    shutil.copy2(Drafts(scratch).path(after.start.turn), Drafts(folder).path(after.start.turn))


def turns_of(folder: Path, commits: list[str]) -> list[int]:
    """The turn of each of the batches ``commits``."""
    turn = {e.commit_id: e.turn for e in Campaign.open(folder).events()}
    return [turn[c] for c in commits]


@pytest.mark.parametrize("ruleset", sorted(DEMOS))
def test_commit_clicked_three_times_100ms_apart_commits_one_month(
        browser: Any, tmp_path: Path, slow_env: Callable[[str, float], dict[str, str]], ruleset: str) -> None:
    folder = demo_copy(tmp_path, ruleset)
    camp = Campaign.open(folder)
    turn, head = camp.next_turn(), camp.head_seq
    when, after = sheet.load_start(folder).when, f"{camp.ruleset.turn_unit} {turn + 1}"
    both_months_rolled(folder, tmp_path)
    with gm_server(folder, slow_env("every-build", 1.5)) as gm:
        page, ui, _frames = open_sheet(browser, gm)
        button = page.get_by_role("button", name=f"✔ Commit {when}")
        expect(button).to_be_enabled(timeout=30_000)
        for _ in range(3):  # as a person clicks: on whatever the button is then (a disabled one takes no click)
            try:
                button.click(force=True, timeout=1_000)
            except Exception:  # the button is gone: the page shows the next month already
                break
            page.wait_for_timeout(100)
        page.locator(f'{DRAWN}:not([data-turn="{turn}"])').wait_for(timeout=120_000)  # the sheet moved on
        ui.kernel.settled()  # a click taken late would have committed by now
        assert turns_of(folder, batches_since(folder, head)) == [turn]
        page.get_by_text(f"Committed {when}").first.wait_for(timeout=30_000)
        assert page.get_by_role("button", name=f"✔ Commit {after}").count() == 1
        assert page.locator(f'{DRAWN}[data-turn="{turn + 1}"]').count() == 1
        page.close()
    assert Campaign.open(folder).verify().ok


def test_commit_from_two_tabs_at_once_commits_one_month(browser: Any, toy: Path,
                                                        subprocess_env: dict[str, str]) -> None:
    head = Campaign.open(toy).head_seq
    with gm_server(toy, subprocess_env) as gm:
        tabs: list[Sheet] = []
        for _ in range(2):  # two tabs of one GM (the second restores the draft the first saved, rolled)
            page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            kernel = Kernel(page, ticking=ticking_cells("turn_sheet"))
            page.goto(gm.url)
            page.locator(DRAWN).first.wait_for(timeout=120_000)
            tab = Sheet(page, kernel)
            tab.quiet()
            roll_all(tab)
            tabs.append(tab)
        buttons = [t.page.get_by_role("button", name="✔ Commit season 2") for t in tabs]
        for b in buttons:
            expect(b).to_be_enabled(timeout=30_000)
        for b in buttons:
            b.click(no_wait_after=True)
        for t in tabs:
            t.page.locator(f'{DRAWN}[data-turn="3"]').wait_for(timeout=120_000)
            t.kernel.settled()
        said = [t.page.locator(".kl-outcome-box").first.inner_text() for t in tabs]
        for t in tabs:
            t.page.context.close()
    assert turns_of(toy, batches_since(toy, head)) == [2]
    assert sum("Committed season 2" in s for s in said) == 1, said
    assert sum("Nothing committed again" in s or "the log changed" in s for s in said) == 1, said


def rows_shown(ui: Sheet) -> list[str]:
    return [t.split(" — ")[0] for t in ui.card(STEP).locator('[data-field$=".activity"] select').evaluate_all(
        "es => es.map(e => e.options[e.selectedIndex].text)")]


def add_select(ui: Sheet) -> Any:
    return ui.card(STEP).locator('[data-add="activities"] select').first


def option_index(select: Any, text: str) -> int:
    texts = select.evaluate("e => Array.from(e.options).map(o => o.text)")
    return next(i for i, t in enumerate(texts) if t.startswith(text))


def test_an_activity_added_200ms_after_the_previous_change_is_kept(browser: Any, tmp_path: Path,
                                                                   slow_env: Callable[[str, float], dict[str, str]],
                                                                   ) -> None:
    """The first activity makes the sheet rebuild its widgets; the second is chosen 200 ms later on the widgets still
    on the page (the sheet is slow to say it is busy, as on a loaded machine): it reaches the kernel after the rebuild,
    for widgets it replaced, and is placed on the new ones."""
    folder = demo_copy(tmp_path, "pf2e", seed="trust-late")
    turn = Campaign.open(folder).next_turn()
    with gm_server(folder, slow_env("refresh", 1.5)) as gm:
        page, ui, _frames = open_sheet(browser, gm)
        add = add_select(ui)
        add.select_option(index=option_index(add, "Claim Hex"))
        page.wait_for_timeout(200)
        assert ui.card(STEP).locator('[data-field$=".activity"] select').count() == 0  # not rebuilt yet
        add.select_option(index=option_index(add, "Build Roads"), timeout=5_000)
        expect(ui.card(STEP).locator('[data-field$=".activity"] select')).to_have_count(2, timeout=120_000)
        ui.kernel.settled()
        assert rows_shown(ui) == ["Claim Hex", "Build Roads"]
        saved = wait_saved(folder, turn, STEP, lambda c: len(c.get("activities", [])) == 2)
        assert [r["activity"] for r in saved["activities"]] == ["claim-hex", "build-roads"]
        assert page.get_by_text("was not applied").count() == 0
        page.close()


def test_a_rebuild_shows_that_the_sheet_is_busy(browser: Any, tmp_path: Path,
                                                slow_env: Callable[[str, float], dict[str, str]]) -> None:
    folder = demo_copy(tmp_path, "pf2e", seed="trust-busy")
    ui_rows: list[str] = []
    with gm_server(folder, slow_env("widgets", 2.0)) as gm:
        page, ui, _frames = open_sheet(browser, gm)
        flags = ("() => [document.documentElement.hasAttribute('data-kl-rebuild'),"
                 " !!document.querySelector('.kl-cards[inert]')]")
        assert page.evaluate(flags) == [False, False]
        add = add_select(ui)
        add.select_option(index=option_index(add, "Claim Hex"))
        rows = ui.card(STEP).locator('[data-field$=".activity"] select')
        expect(rows).to_have_count(1, timeout=60_000)
        ui.kernel.settled()
        add.select_option(index=option_index(add, "Build Roads"))
        page.wait_for_function(f"() => ({flags})().every(Boolean)", timeout=30_000)  # at once: the cards disabled
        pill = page.locator("#kl-busy")
        expect(pill).to_be_visible(timeout=10_000)  # "Updating…" once the rebuild has lasted 300 ms
        assert pill.inner_text() == "↻ Updating…"
        shot(page, "sheet-busy", f'[data-card="{STEP}"]')
        page.wait_for_function(f"() => !({flags})().some(Boolean)", timeout=60_000)
        ui.kernel.settled()
        expect(pill).to_be_hidden()
        ui_rows = rows_shown(ui)
        page.close()
    assert ui_rows == ["Claim Hex", "Build Roads"]
