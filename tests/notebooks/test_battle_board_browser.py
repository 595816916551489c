"""The battle board in a real browser (issue 30; Debian chromium, Playwright, `kingdomlog gm`): a pf2e battle of
two armies over three rounds, tactical actions included, played on the GM sheet through its widgets (no JSON
typed: no battle field on the page is a JSON text field), each round's orders picked from what each army may do,
the board showing the armies, every check's chances and what each round did; committed; and its numbers equal to
the same battle played from a hand-written plan (``Campaign.preview`` on a twin of the campaign).

Screenshots: docs/images/battle-board-*.png.
"""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from nb_support import DRAWN, REPO
from test_sheet_browser import ARTIFACTS, commit, gm_server, open_sheet, roll_all, roll_until

from kingdomlog.app import Campaign
from kingdomlog.app.drafts import Drafts, SavedDraft
from kingdomlog.core.events import Draft
from kingdomlog.core.turn import Plan
from kingdomlog.dice.odds import odds
from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.warfare import new_army
from kingdomlog.views.sheet import draft as sheet

pytestmark = pytest.mark.browser

STEP = "activity.battle"
SEED = "board-0"
"""The month's dice (keyed: the same on the sheet and in the plan): both Advances hit, so the armies engage."""
IMAGES = REPO / "docs" / "images"
ROUNDS = [
    [{"army": "militia", "action": "advance", "target": "raiders"},
     {"army": "raiders", "action": "advance", "target": "militia"}],
    [{"army": "militia", "action": "all-out-assault", "target": "raiders"},
     {"army": "raiders", "action": "taunt", "target": "militia"}],
    [{"army": "militia", "action": "battle", "target": "raiders"},
     {"army": "raiders", "action": "battle", "target": "militia"}],
]
"""The orders given on the board, as the equivalent plan writes them (All-Out Assault: the militia's Merciless;
Taunt: the raiders' Taunt)."""
NAMES = {"militia": "Brightwater Militia", "raiders": "Stag Raiders"}
ACTIONS = {"advance": "Advance", "all-out-assault": "All-Out Assault", "battle": "Battle", "taunt": "Taunt"}


def prepare(folder: Path) -> None:
    """The demo's militia learns Merciless (All-Out Assault) and the Stag Lord's raiders (Focused Devotion: Taunt)
    enter its hex: the GM's facts before the month, appended as events."""
    camp = Campaign.open(folder)
    militia = next(a for a in camp.state().army_units if a.id == "militia")
    raiders = new_army(T.army_defs()["infantry"], militia.level, "raiders", NAMES["raiders"], side="enemy",
                       hex_id=militia.hex)
    raiders = raiders.model_copy(update={"tactics": [*raiders.tactics, "focused-devotion"]})
    turn = camp.next_turn() - 1
    camp.append([Draft(E.ArmyUpdated(army="militia", set={"tactics": [*militia.tactics, "merciless"]},
                                     cause="trained"), actor="gm", visibility="public", turn=turn),
                 Draft(E.ArmyRecruited(army=raiders, cause="enemy"), actor="gm", visibility="gm", turn=turn)],
                expect_seq=camp.head_seq)


class Board:
    """The battle step's card on the sheet: every pick goes through its widgets."""

    def __init__(self, ui: Any) -> None:
        self.ui = ui
        self.card = ui.card(STEP)

    def button(self, add: str) -> None:
        before = self.ui.tag()
        self.ui.actions += 1
        self.card.locator(f'[data-add="{add}"] button').first.click()
        self.ui.settled(before)

    def order(self, r: int, i: int, o: dict[str, str]) -> None:
        self.ui.add(STEP, f"battles.0.rounds.{r}", NAMES[o["army"]])
        self.ui.select(STEP, f"battles.0.rounds.{r}.{i}.action", ACTIONS[o["action"]])
        self.ui.select(STEP, f"battles.0.rounds.{r}.{i}.target", NAMES[o["target"]])

    def unfinished(self) -> None:
        """The GM may stop the battle after the three rounds (a battle not over then is marked so)."""
        self.card.get_by_text(re.compile("^More: hex")).first.click()
        time.sleep(0.4)
        before = self.ui.tag()
        self.ui.actions += 1
        self.card.locator('[data-field="battles.0.unfinished"]').get_by_role("checkbox").first.click()
        self.ui.settled(before)


def no_json_field(page: Any, step: str = STEP) -> None:
    """No field of the battle step is a JSON text field: no text area, no input whose label or placeholder says JSON."""
    got = page.evaluate("""(step) => {
        const card = document.querySelector(`[data-card="${step}"]`);
        const out = [];
        const walk = (root) => {
          for (const e of root.querySelectorAll('textarea, input')) {
            const label = (e.closest('label') || {}).textContent || '';
            const around = (e.closest('[data-field]') || {}).textContent || '';
            if (e.tagName === 'TEXTAREA' || /json/i.test((e.placeholder || '') + label + around)) {
              out.push(e.outerHTML.slice(0, 120));
            }
          }
          for (const x of root.querySelectorAll('*')) { if (x.shadowRoot) walk(x.shadowRoot); }
        };
        walk(card);
        return out;
    }""", step)
    assert got == [], got


def shown_chances(page: Any) -> dict[str, str]:
    """Each line of the board with a check: roll key -> the chances it shows."""
    return page.evaluate("""() => {
        const out = {};
        for (const x of document.querySelectorAll('.kl-board-line[data-roll]')) {
          const o = x.querySelector('.kl-board-odds');
          if (o) out[x.dataset.roll] = o.textContent.replace(/^chances: /, '').trim();
        }
        return out;
    }""")


def battle_facts(events: list[Any]) -> list[tuple[Any, ...]]:
    """The battle's numbers as the log records them: every war action's roll, the armies after, the end."""
    out: list[tuple[Any, ...]] = []
    for e in events:
        p = e.payload
        if isinstance(p, E.WarActionTaken):
            out.append(("war", p.round, p.army, p.action, p.target, p.die, p.modifier, p.dc, p.total, p.degree))
        elif isinstance(p, (E.ArmyUpdated, E.ArmyRemoved, E.BattleStarted, E.BattleEnded)):
            out.append((p.type, p.model_dump_json()))
    return out


def shot(page: Any, name: str, selector: str) -> None:
    IMAGES.mkdir(parents=True, exist_ok=True)
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator(selector).first.evaluate("e => e.scrollIntoView({block: 'start'})")
    page.mouse.wheel(0, -70)
    time.sleep(0.4)
    page.screenshot(path=str(IMAGES / f"{name}.png"))


def test_a_pf2e_battle_played_on_the_board(browser: Any, tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    folder = tmp_path / "stolen-lands"
    shutil.copytree(REPO / "campaigns" / "stolen-lands", folder, ignore=shutil.ignore_patterns(".cache", "plans",
                                                                                                 "*.py"))
    prepare(folder)
    start = Campaign.open(folder)
    turn, head = start.next_turn(), start.head_seq
    Drafts(folder).save(SavedDraft(turn, head, Plan(turn=turn, seed=SEED)))
    twin = tmp_path / "twin"
    shutil.copytree(folder, twin, ignore=shutil.ignore_patterns("drafts"))
    when = sheet.load_start(folder).when
    with gm_server(folder, subprocess_env) as gm:
        page, ui, _ = open_sheet(browser, gm, height=1000)
        roll_until(ui, STEP)
        board = Board(ui)
        board.button("battles")  # + Battle
        ui.pick(STEP, "battles.0.kingdom", NAMES["militia"])
        ui.pick(STEP, "battles.0.enemy", NAMES["raiders"])
        for r, orders in enumerate(ROUNDS):
            board.button("battles.0.rounds")  # + Round
            for i, o in enumerate(orders):
                board.order(r, i, o)
        board.unfinished()
        no_json_field(page)
        shot(page, "battle-board-orders", f'[data-card="{STEP}"]')
        roll_all(ui)
        page.locator(f'[data-card="{STEP}"] .kl-board-outcome').first.wait_for(timeout=60_000)
        no_json_field(page)
        # the board: both armies, three rounds, each check's chances those of the kernels, the outcome in words
        text = page.locator(f'[data-card="{STEP}"] .kl-board').first.inner_text()
        for name in NAMES.values():
            assert name in text
        for n in (1, 2, 3):
            assert f"Round {n}" in text and f"After round {n}:" in text
        assert "All-Out Assault" in text and "Taunt" in text
        s, _ = sheet.open_session(folder)
        assert s is not None and s.draft is not None
        card = next(c for c in s.draft.cards if c.id == STEP)
        chances = shown_chances(page)
        assert len(chances) >= 8
        for key, shown in chances.items():
            want = " · ".join(f"{o.label} {o.percent}" for o in odds(card.checks[key]).outcomes if o.chance > 0)
            assert shown == want, (key, shown, want)
        shot(page, "battle-board-rounds", f'[data-card="{STEP}"] .kl-board')
        shot(page, "battle-board-outcome", f'[data-card="{STEP}"] .kl-board-outcome')
        status = page.locator(".kl-status").first.inner_text()
        assert status.startswith("Ready"), status
        commit(ui, when)
        page.locator(f'{DRAWN}[data-turn="{turn + 1}"]').wait_for(timeout=60_000)
        page.close()
    camp = Campaign.open(folder)
    played = [e for e in camp.events() if e.seq > head and e.phase == STEP]
    assert played
    # the same battle from a plan written by hand: the same numbers
    plan = Plan.parse({"turn": turn, "seed": SEED, "steps": {STEP: {"choices": {"battles": [
        {"kingdom": ["militia"], "enemy": ["raiders"], "rounds": ROUNDS, "unfinished": True}]}}}})
    pv = Campaign.open(twin).preview(plan)
    assert pv.ok, pv.error
    twin_battle = next(s for s in pv.steps if s.phase.id == STEP)
    assert battle_facts(played) == battle_facts(twin_battle.drafts)
    assert any(f[0] == "war" and f[3] == "all-out-assault" for f in battle_facts(played))
    assert any(f[0] == "war" and f[3] == "taunt" for f in battle_facts(played))


# ---- pf1: a mass combat (UC Mass Combat) ----------------------------------------------------------------------

ORCS = {"name": "Tusk Raiders", "size": "Medium", "unit": "orcs (fighter 3)", "unit_cr": "2", "hd": 10, "side": "enemy"}
STRATEGIES = ["Aggressive", "Standard", "Defensive"]


def prepare_pf1(folder: Path) -> str:
    """The GM's orcs enter the map (as the gm step places an enemy army), appended before the month: their id."""
    from kingdomlog.core.ruleset import run_step
    from kingdomlog.dice.roller import KeyedRoller

    camp = Campaign.open(folder)
    turn = camp.next_turn()
    spec = next(x for x in camp.ruleset.all_steps if x.id == "gm")
    res = run_step(camp.ruleset, camp.state(), spec, {"enemy_armies": [ORCS]},
                   KeyedRoller("prepare", campaign="x", turn=turn).for_step("gm"), campaign="x", turn=turn)
    placed = [d for d in res.drafts if d.type == "pf1.army_recruited"]
    camp.append([Draft(d.payload, actor="gm", visibility="gm", turn=turn - 1) for d in placed],
                expect_seq=camp.head_seq)
    return str(placed[0].payload.army.id)  # type: ignore[attr-defined]


def test_a_pf1_mass_combat_played_on_the_board(browser: Any, tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    """Tatzlford Guard against the GM's orcs, three Melee phases' strategies picked on the board (Aggressive,
    Standard, Defensive; the last repeats until the battle ends), rolled, committed: the same numbers as the same
    battle from a plan written by hand."""
    folder = tmp_path / "river-kingdom"
    shutil.copytree(REPO / "campaigns" / "river-kingdom", folder,
                    ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    orcs = prepare_pf1(folder)
    start = Campaign.open(folder)
    turn, head = start.next_turn(), start.head_seq
    Drafts(folder).save(SavedDraft(turn, head, Plan(turn=turn, seed=SEED)))
    twin = tmp_path / "twin"
    shutil.copytree(folder, twin, ignore=shutil.ignore_patterns("drafts"))
    when = sheet.load_start(folder).when
    with gm_server(folder, subprocess_env) as gm:
        page, ui, _ = open_sheet(browser, gm, height=1000)
        roll_until(ui, "war")
        ui.add("war", "battles", "Tatzlford Guard")
        ui.select("war", "battles.0.enemy", ORCS["name"])
        for strategy in STRATEGIES:
            ui.add("war", "battles.0.rounds", strategy)
        no_json_field(page, "war")
        roll_all(ui)
        page.locator('[data-card="war"] .kl-board-outcome').first.wait_for(timeout=60_000)
        text = page.locator('[data-card="war"] .kl-board').first.inner_text()
        assert "Tatzlford Guard" in text and ORCS["name"] in text and "Melee phase 1" in text
        s, _ = sheet.open_session(folder)
        assert s is not None and s.draft is not None
        card = next(c for c in s.draft.cards if c.id == "war")
        chances = shown_chances(page)
        assert chances
        for key, shown in chances.items():
            want = " · ".join(f"{o.label} {o.percent}" for o in odds(card.checks[key]).outcomes if o.chance > 0)
            assert shown == want, (key, shown, want)
        shot(page, "battle-board-pf1", '[data-card="war"] .kl-board')
        status = page.locator(".kl-status").first.inner_text()
        assert status.startswith("Ready"), status
        commit(ui, when)
        page.locator(f'{DRAWN}[data-turn="{turn + 1}"]').wait_for(timeout=60_000)
        page.close()
    played = [e for e in Campaign.open(folder).events() if e.seq > head and e.phase == "war"]
    plan = Plan.parse({"turn": turn, "seed": SEED, "steps": {"war": {"choices": {"battles": [
        {"ours": "A2", "enemy": orcs, "rounds": [{"ours_strategy": x} for x in STRATEGIES]}]}}}})
    pv = Campaign.open(twin).preview(plan)
    assert pv.ok, pv.error
    twin_war = next(s for s in pv.steps if s.phase.id == "war")
    mine = [(e.type, e.payload.model_dump_json()) for e in played]
    assert mine and mine == [(d.type, d.payload.model_dump_json()) for d in twin_war.drafts]
    assert any(t == "pf1.battle_phase_resolved" for t, _ in mine)
