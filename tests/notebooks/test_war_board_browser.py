"""The battle board in a real browser for the wars of aikakirjat and signoria (issue 30; Debian chromium,
Playwright): each war played on the GM sheet through its widgets (no JSON typed; no battle field on the page is a
JSON text field), committed, its numbers equal to the same war played from a hand-written plan (``Campaign.preview``
on a twin of the campaign) and the numbers that matter worked out here from the rules text. The aikakirjat year on
`kingdomlog gm`; the signoria battle through `kingdomlog serve`, the defender answering from its own orders page in a
browser context of its own, the GM in another.

Screenshots: docs/images/war-board-*.png.
"""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from nb_support import DRAWN, REPO
from test_battle_board_browser import IMAGES, no_json_field, shot, shown_chances
from test_sheet_browser import commit, gm_server, open_sheet, roll_all, roll_until

from kingdomlog.app import Campaign
from kingdomlog.app.drafts import Drafts, SavedDraft
from kingdomlog.core.events import Draft
from kingdomlog.core.turn import Plan
from kingdomlog.dice.odds import odds
from kingdomlog.views.sheet import draft as sheet

pytestmark = pytest.mark.browser


# ---- aikakirjat: a war year (§4.5) ------------------------------------------------------------------------------

AIK_SEED = "board-5"
"""The year's dice (keyed: the same on the sheet and in the plan): three war turns, both our attacks hit, the peace
of turn 3 made."""
WAR = "war-tuonela"
ATTACK = {"army_id": "p-army1", "kind": "attack", "target": "t-army1"}
HOLD_T = {"army_id": "t-army1", "kind": "hold"}
AIK_CHOICES: dict[str, Any] = {
    "allocations": [{"army_id": "p-army1", "province_id": "p-march", "militia": 7}],
    "enemy_allocations": [{"army_id": "t-army1", "province_id": "t-border", "militia": 10}],
    "orders": {"1": [ATTACK], "2": [{"army_id": "p-army1", "kind": "hold"}], "3": [ATTACK]},
    "enemy_orders": {"1": [HOLD_T], "2": [HOLD_T], "3": [HOLD_T]},
    "enemy_extra_attacks": {"2": {"army_id": "t-army1", "kind": "attack", "target": "p-army1"}},
    "peace": {"3": {"attempt": True, "provinces_demanded": ["t-border"]}},
}
"""The war year as the equivalent plan writes it: our one army (level 2: one army, §2.9) of all 7 militia in the
march attacks Tuonela's 10 in t-border in turns 1 and 3 and holds in 2; Tuonela holds, but its General Staff makes
an extra attack in turn 2 (A66); in turn 3 we offer peace demanding t-border (§3.11)."""


def prepare_aikakirjat(folder: Path) -> None:
    """The GM's facts before the year: Tuonela has 10 militia, 12 population and General Staff; we are at war with
    it (appended as the GM's adjustment and a war begun)."""
    from kingdomlog.rulesets.aikakirjat import events as E

    camp = Campaign.open(folder)
    t = camp.state().neighbours["tuonela"].model_dump(mode="json")
    t["population"] = 12
    t["profile"] = {**t["profile"], "militia": 10, "feats": ["general_staff"]}
    turn = camp.next_turn() - 1
    camp.append([Draft(E.GmAdjustment(field="neighbour", value=t, reason="Tuonela arms"), actor="gm",
                       visibility="gm", turn=turn),
                 Draft(E.WarBegun(war_id=WAR, attacker="players", defender="tuonela"), actor="gm",
                       visibility="public", turn=turn)], expect_seq=camp.head_seq)


def test_an_aikakirjat_war_year_played_on_the_board(browser: Any, tmp_path: Path,
                                                     subprocess_env: dict[str, str]) -> None:
    folder = tmp_path / "aikakirjat"
    shutil.copytree(REPO / "campaigns" / "aikakirjat-demo", folder,
                    ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    prepare_aikakirjat(folder)
    start = Campaign.open(folder)
    turn, head = start.next_turn(), start.head_seq
    Drafts(folder).save(SavedDraft(turn, head, Plan(turn=turn, seed=AIK_SEED)))
    twin = tmp_path / "twin"
    shutil.copytree(folder, twin, ignore=shutil.ignore_patterns("drafts"))
    when = sheet.load_start(folder).when
    with gm_server(folder, subprocess_env) as gm:
        page, ui, _ = open_sheet(browser, gm, height=1000)
        roll_until(ui, "war")
        waits = ui.card("war").inner_text()  # the roll the year waits for, in words
        assert "Our initiative (d20 + Bureaucracy, §4.5.1): 1d20" in waits, waits
        play_war_year(ui)
        no_json_field(page, "war")
        shot(page, "war-board-aikakirjat-orders", '[data-card="war"]')
        roll_all(ui)
        page.locator('[data-card="war"] .kl-board-outcome').first.wait_for(timeout=60_000)
        no_json_field(page, "war")
        text = page.locator('[data-card="war"] .kl-board').first.inner_text()
        assert "War against Tuonela" in text and "p-army1" in text and "t-army1" in text
        for n in (1, 2, 3):
            assert f"War turn {n}" in text and f"After war turn {n}:" in text
        assert "t-army1 attacks p-army1 (General Staff's extra attack)" in text  # turn 2
        assert "peace offered demanding t-border: made" in text  # turn 3
        s, _ = sheet.open_session(folder)
        assert s is not None and s.draft is not None
        card = next(c for c in s.draft.cards if c.id == "war")
        chances = shown_chances(page)
        assert chances
        for key, shown in chances.items():
            want = " · ".join(f"{o.label} {o.percent}" for o in odds(card.checks[key]).outcomes if o.chance > 0)
            assert shown == want, (key, shown, want)
        shot(page, "war-board-aikakirjat", '[data-card="war"] .kl-board')
        status = page.locator(".kl-status").first.inner_text()
        assert status.startswith("Ready"), status
        commit(ui, when)
        page.locator(f'{DRAWN}[data-turn="{turn + 1}"]').wait_for(timeout=60_000)
        page.close()
    played = [e for e in Campaign.open(folder).events() if e.seq > head and e.phase == "war"]
    plan = Plan.parse({"turn": turn, "seed": AIK_SEED, "steps": {"war": {"choices": AIK_CHOICES}}})
    pv = Campaign.open(twin).preview(plan)
    assert pv.ok, pv.error
    twin_war = next(x for x in pv.steps if x.phase.id == "war")
    same_events([(e.type, e.payload) for e in played], [(d.type, d.payload) for d in twin_war.drafts])
    assert_war_year_by_the_rules([e.payload for e in played])


def same_events(played: list[tuple[str, Any]], planned: list[tuple[str, Any]]) -> None:
    """The events committed from the board are those of the plan, field by field (the first difference named)."""
    assert played and [t for t, _ in played] == [t for t, _ in planned]
    for (t, a), (_, b) in zip(played, planned, strict=True):
        x, y = a.model_dump(mode="json"), b.model_dump(mode="json")
        for k in x:
            assert x[k] == y[k], (t, k, x[k], y[k])


def play_war_year(ui: Any) -> None:
    """The war year of ``AIK_CHOICES`` given through the board's widgets."""
    card = ui.card("war")

    def press(add: str) -> None:
        before = ui.tag()
        ui.actions += 1
        card.locator(f'[data-add="{add}"] button').first.click()
        ui.settled(before)

    for field, army, where, militia in (("allocations", "p-army1", "March", "7"),
                                        ("enemy_allocations", "t-army1", "Border", "10")):  # provinces by name
        press(field)  # + Our army / + Enemy army
        ui.type("war", f"{field}.0.army_id", army)
        ui.select("war", f"{field}.0.province_id", where)
        ui.type("war", f"{field}.0.militia", militia)
    for t, orders in AIK_CHOICES["orders"].items():
        ui.add("war", f"orders.{t}", "p-army1")  # + Order: the army
        if orders[0]["kind"] == "attack":
            ui.select("war", f"orders.{t}.0.kind", "Attack")
            ui.select("war", f"orders.{t}.0.target", "t-army1")
    for t in AIK_CHOICES["enemy_orders"]:
        ui.add("war", f"enemy_orders.{t}", "t-army1")  # holds: the order's default
    def more() -> None:  # "More": the peace attempts and the General Staff's extra attacks (folded until set)
        ui.actions += 1
        card.get_by_text(re.compile("^More: .*extra attack")).first.click()
        time.sleep(0.4)

    more()
    before = ui.tag()
    ui.actions += 1  # Offer peace in war turn 3
    card.locator('[data-field="peace.3.attempt"]').get_by_role("checkbox").first.click()
    ui.settled(before)
    ui.actions += 1  # its terms: "More: provinces demanded, ..."
    card.locator('[data-field="peace.3"]').get_by_text(re.compile("^More: provinces demanded")).first.click()
    time.sleep(0.4)
    ui.pick("war", "peace.3.provinces_demanded", "Border")  # the province by its name
    more()
    ui.select("war", "enemy_extra_attacks.2.army_id", "t-army1")
    ui.select("war", "enemy_extra_attacks.2.kind", "Attack")
    ui.select("war", "enemy_extra_attacks.2.target", "p-army1")


def assert_war_year_by_the_rules(events: list[Any]) -> None:
    """The year's numbers, worked from the rules text with the faces the log recorded.

    §4.5.1: 4 war turns (no Advanced Logistics); initiative a Bureaucracy check each side. §4.5.3: a hit roll is
    a Warfare check (d20 + Loyalty modifier 3 + unrest modifier, §2.16) against the defence value: Tuonela's is its
    profile's 11 (A39); ours is 8 + Defense proficiency 0 + Stability modifier 1 + Decay modifier 0 = 9; Tuonela's
    hit is d20 + its warfare bonus 3. Damage: one die (1 + technology 1 − 1, A63) of the attacker's militia damage
    die (ours the Republic's d6, §3.4, no Military Traditions; Tuonela's profile d4), taken off the target's militia
    (§4.5.3). §3.11: the peace
    DC is 15, +5 for t-border demanded, no captured province, no more armies than Tuonela (one each), Tuonela's
    unrest modifier −floor(0/5) = 0: DC 20; the kingdom's Diplomacy check d20 + Loyalty 3 + proficiency 2 + unrest
    modifier; at 20 or more the war ends in peace and t-border changes owner (§4.5.5)."""
    from kingdomlog.rulesets.aikakirjat import events as E

    started = next(e for e in events if isinstance(e, E.WarYearStarted))
    assert started.audit["war_turns"] == 4
    militia = {"p-army1": 7, "t-army1": 10}
    hits: list[str] = []
    turns = [e for e in events if isinstance(e, E.WarTurnResolved)]
    assert [t.war_turn for t in turns] == [1, 2, 3]
    assert turns[1].enemy_extra_attack is not None and turns[1].enemy_extra_attack.target == "p-army1"
    for t in turns:
        for act in t.audit["actions"]:
            eng = act.get("engagement")
            if not eng:
                continue
            for r in eng["phases"]["melee"]["rolls"]:
                if militia[r["army"]] == 0:
                    continue
                ours = r["army"] == "p-army1"
                d20 = r["check"]["d20"]
                total = d20 + 3 + r["check"]["terms"]["unrest modifier"] if ours else d20 + 3
                assert r["check"]["total"] == total
                assert r["defence"] == (11 if ours else 8 + 0 + 1 + 0)
                assert r["hit"] == (total >= r["defence"])
                if r["hit"]:
                    assert r["damage_dice"] == ("1d6" if ours else "1d4")
                    assert 1 <= r["damage"] <= (6 if ours else 4)
                    militia[r["target"]] = max(0, militia[r["target"]] - r["damage"])
                    hits.append(r["army"])
            assert eng["militia_after"] == militia
    assert "p-army1" in hits and "t-army1" in hits  # both sides' damage dice were rolled (AIK_SEED)
    peace = turns[2].audit["peace"]
    assert peace["dc"] == 15 + 5 - 0 + 0 == 20
    terms = peace["check"]["terms"]
    assert peace["check"]["total"] == peace["check"]["d20"] + 3 + 2 + terms["unrest modifier"]
    assert peace["success"] == (peace["check"]["total"] >= 20) is True
    ended = next(e for e in events if isinstance(e, E.WarEnded))
    assert (ended.reason, ended.provinces_demanded) == ("peace", ("t-border",))


# ---- signoria: a battle declared on the board, the defender's response from its own page (§5) ------------------

SIG_SEED = "war-board-0"
"""The month's sealed seed: two rounds, both sides broken in the second (the defender wins, §5.8 step 9)."""
HIDDEN = "MARBURG-WAR-PLAN-4471"
"""Planted in Marburg's note to the GM with its war orders: what the attacker keeps from the defender."""
CAMPAIGN = "8.marburg.W"
DECLARATIONS = {CAMPAIGN: {"1": [{"side": "defender", "character": "cesare", "option": "join"}],
                           "2": [{"side": "defender", "character": "fabian.leader", "option": "join"}]}}
"""The GM's record of each round's declarations, as the equivalent plan writes them: Fabian's statesman Cesare
joins round 1 (+2d6), Fabian's leader round 2 (+3d6) (§5.5). Marburg sends no character: it declares nothing."""
ANSWER = "battle: encirclement"
"""Fabian's answer on its own page (§5.2): a battle now, its tactic Encirclement, every character at home."""


def prepare_signoria_war(folder: Path) -> dict[str, str]:
    """Month 8 of Felmonte, played by post with the GM resolving: the opening published, Marburg's war on Fabia
    submitted (4 units, Hold position; its note to the GM holds ``HIDDEN``), both factions ready: the orders close
    and Fabian is asked how to meet the army. The keys of the GM and of Fabian."""
    from datetime import UTC, datetime, timedelta

    from kingdomlog.app import pbp
    from kingdomlog.app import submissions as subs
    from kingdomlog.core.viewers import Viewer
    from kingdomlog.server import Credentials

    camp = Campaign.open(folder)
    now = datetime.now(UTC)
    pbp.set_deadline(camp, orders_due=now + timedelta(days=2), answer_hours=12, auto_resolve=False)
    pbp.publish(camp, Plan.parse({"steps": {"turn_open": {"choices": {}}}}), now=now)
    fabian, marburg = Viewer("player", "fabian"), Viewer("player", "marburg")
    war = {"choices": {"actor": "marburg", "orders": [{"id": "W", "action": "war", "slots": ["ordinary"],
                                                       "target": "fabia", "params": {"units": 4, "tactic": "hold"}}]}}
    subs.submit(camp, marburg, {"command_marburg": {"choices": {"stake": "low"}}, "orders_marburg": war},
                note=f"strike before the thaw {HIDDEN}", now=now)
    pbp.mark_ready(camp, fabian, now=now)
    pbp.mark_ready(camp, marburg, now=now)
    done = pbp.advance(camp, now=now).done
    assert done[-1] == ("asked Duke Fabian: Doge of Marburg's army has arrived at Fabia across its border. Fight a "
                        "battle now or shut the gates?"), done  # in words, not its key 'response:8.marburg.W'
    keys: dict[str, str] = Credentials.load(folder).issue(["gm", "fabian"])
    return keys


def test_a_signoria_battle_declared_on_the_board_and_answered_from_the_defenders_page(
        browser: Any, tmp_path: Path, python: str, subprocess_env: dict[str, str], monkeypatch: Any) -> None:
    from nb_support import Kernel, Server, free_port, ticking_cells
    from test_sheet_browser import FIRST_RENDER, Sheet

    from kingdomlog.dice import roller

    folder = tmp_path / "felmonte"
    shutil.copytree(REPO / "campaigns" / "felmonte", folder, ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    monkeypatch.setattr(roller, "new_seed", lambda: SIG_SEED)  # the seed the orders' close seals: known dice
    keys = prepare_signoria_war(folder)
    head = Campaign.open(folder).head_seq
    with Server([python, "-m", "kingdomlog", "serve", str(folder), "--port", str(free_port())], env=subprocess_env,
                ready=r"Serving on (http://\S+?)/?\s") as srv:
        base = srv.url.rstrip("/")
        # the defender, in its own browser: the question in words, answered from its own orders page
        fab_ctx = browser.new_context(viewport={"width": 1000, "height": 1600})
        fab = fab_ctx.new_page()
        frames: list[str] = []
        fab.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(
            f if isinstance(f, str) else f.decode("utf-8", "replace"))))
        fab.goto(f"{base}/login?key={keys['fabian']}")
        fab.get_by_role("heading", name="Questions for you").wait_for(timeout=90_000)
        fab.get_by_text("army has arrived at Fabia").first.wait_for(timeout=30_000)
        texts = [fab.content()]
        box = fab.get_by_label("Your answer", exact=True).first
        [label] = [t for t in box.locator("option").all_inner_texts() if t.startswith(ANSWER)]
        box.select_option(label=label)
        fab.wait_for_timeout(1500)
        fab.screenshot(path=str(IMAGES / "war-board-signoria-defender.png"))
        fab.get_by_role("button", name="Send these answers").click()
        fab.get_by_text("Answered").first.wait_for(timeout=90_000)
        texts.append(fab.content())
        twin = tmp_path / "twin"  # the campaign as the GM finds it: the same battle from a plan, below
        shutil.copytree(folder, twin, ignore=shutil.ignore_patterns("drafts"))

        # the GM, in another browser: the battle declared on the board, rolled, committed
        gm_ctx = browser.new_context(viewport={"width": 1280, "height": 1000})
        page = gm_ctx.new_page()
        kernel = Kernel(page, ticking=ticking_cells("turn_sheet"))
        page.goto(f"{base}/login?key={keys['gm']}")
        page.locator(DRAWN).first.wait_for(timeout=FIRST_RENDER)
        ui = Sheet(page, kernel)
        ui.quiet()
        when = sheet.load_start(folder).when
        roll_until(ui, "p3_war")
        said = ui.card("p3_war").locator(".kl-answered").first.inner_text()  # the defender's answer, beside its field
        assert said.startswith("Answered by Duke Fabian: defender response: battle: encirclement"), said
        names = {c.id: c.name for c in Campaign.open(folder).state().characters.values()}
        for r, rows in DECLARATIONS[CAMPAIGN].items():
            for i, d in enumerate(rows):
                ui.add("p3_war", f"declarations.{CAMPAIGN}.{r}", d["side"])  # + Declaration: the side
                ui.select("p3_war", f"declarations.{CAMPAIGN}.{r}.{i}.character", names[d["character"]])
                ui.select("p3_war", f"declarations.{CAMPAIGN}.{r}.{i}.option", "joins the battle")
        no_json_field(page, "p3_war")
        roll_all(ui)
        page.locator('[data-card="p3_war"] .kl-board-outcome').first.wait_for(timeout=60_000)
        no_json_field(page, "p3_war")
        from test_words_browser import RAW_ID

        titles = page.locator('[data-card="p3_war"] .kl-check-title').all_inner_texts()  # each pool says in words
        assert titles and all(t.startswith("Battle of Fabia, round ") for t in titles), titles  # what it rolls
        assert [t for t in titles if RAW_ID.search(t)] == [], titles
        board = page.locator('[data-card="p3_war"] .kl-board').first.inner_text()
        assert "Attacker: Doge of Marburg" in board and "Defender: Duke Fabian" in board
        assert "After round 1: Cesare: joins the battle;" in board, board  # the declarations, in names and words
        assert "After round 2: Duke Fabian: joins the battle;" in board, board
        s, _ = sheet.open_session(folder)
        assert s is not None and s.draft is not None
        card = next(c for c in s.draft.cards if c.id == "p3_war")
        chances = shown_chances(page)
        assert chances
        for key, shown in chances.items():
            want = " · ".join(f"{o.label} {o.percent}" for o in odds(card.checks[key]).outcomes if o.chance > 0)
            assert shown == want, (key, shown, want)
        shot(page, "war-board-signoria", '[data-card="p3_war"] .kl-board')
        status = page.locator(".kl-status").first.inner_text()
        assert status.startswith("Ready"), status
        commit(ui, when)
        page.locator(f'{DRAWN}[data-turn="9"]').wait_for(timeout=60_000)
        # the defender's page after the month: still nothing of what the attacker kept to itself
        fab.goto(f"{base}/f/fabian/orders/")
        fab.get_by_role("heading", name="Questions for you").wait_for(timeout=90_000)
        texts.append(fab.content())
        seen = "\n".join(texts + frames)
        assert HIDDEN not in seen
        assert "strike before the thaw" not in seen
        gm_ctx.close()
        fab_ctx.close()

    played = [e for e in Campaign.open(folder).events() if e.seq > head and e.phase == "p3_war"]
    from kingdomlog.app import submissions as subs

    tw = Campaign.open(twin)
    answer = {"response": "battle", "tactic": "encirclement", "characters": "all"}
    plan = subs.with_submissions(tw, Plan.parse({"turn": 8, "steps": {"p3_war": {"choices": {
        "responses": {CAMPAIGN: answer}, "declarations": DECLARATIONS}}}}))
    pv = tw.preview(plan)
    assert pv.ok, pv.error
    twin_war = next(x for x in pv.steps if x.phase.id == "p3_war")
    same_events([(e.type, e.payload) for e in played], [(d.type, d.payload) for d in twin_war.drafts])
    responded = next(e for e in played if e.type == "signoria.defender_responded")
    assert responded.actor == "fabian" and responded.payload.tactic == "encirclement"  # type: ignore[attr-defined]
    assert_battle_by_the_rules([e.payload for e in played])


def assert_battle_by_the_rules(events: list[Any]) -> None:
    """Each round's dice, worked from §5.3-5.8 with the faces the log recorded: one die per engaged unit, +2d6 for
    a statesman and +3d6 for a leader who joins (§5.5); Marburg holds position, so Fabian's dice succeed on 5+
    (§5.4); Marburg attacks in winter (month 8), so its 4+ becomes 5+ (§5.14); Fabian encircles: each 1 rerolled
    once, the new face stands (§5.4). A success showing 6 kills, any other routs (§5.3); the hits removed are at
    most the units engaged (§5.8 step 8)."""
    from kingdomlog.rulesets.signoria import events as ev

    opened = next(e for e in events if isinstance(e, ev.BattleOpened))
    engaged = {"attacker": opened.forces["marburg"]["units"], "defender": opened.forces["fabian"]["units"]}
    assert engaged == {"attacker": 4, "defender": opened.forces["fabian"]["units"]}
    joins = {1: 2, 2: 3}
    rounds = [e for e in events if isinstance(e, ev.BattleRound)]
    assert rounds
    for r in rounds:
        got = {}
        for side in ("attacker", "defender"):
            (g,) = r.sides[side]["groups"]
            join = joins.get(r.round, 0) if side == "defender" else 0
            assert (g["units"], g["join"]) == (engaged[side], join)
            assert len(g["dice"]) == engaged[side] + join
            assert g["threshold"] == 5
            faces = list(g["dice"])
            if side == "defender":  # the rerolls stand in for the 1s they replaced
                assert all(faces[i] == new for i, new in g["rerolls"])
                assert len(g["rerolls"]) == r.sides[side]["rerolls"]
            kills = sum(1 for f in faces if f == 6)
            routs = sum(1 for f in faces if 5 <= f < 6)
            assert (g["kills"], g["routs"]) == (kills, routs)
            got[side] = kills + routs
        for side, other in (("attacker", "defender"), ("defender", "attacker")):
            lost = min(got[other], engaged[side])
            assert r.sides[side]["lost_killed"] + r.sides[side]["lost_routed"] == lost
            engaged[side] -= lost
            assert r.sides[side]["engaged_after"] == engaged[side]
    ended = next(e for e in events if isinstance(e, ev.BattleEnded))
    broken = [s for s, n in engaged.items() if n == 0]
    assert ended.winner == ("marburg" if broken == ["defender"] else "fabian")  # else the defender (§5.8 step 9)
    assert (len(rounds), broken, ended.reason) == (2, ["attacker", "defender"], "both_broken")  # SIG_SEED's dice
