"""The General at the table (issue 30): where the GM's month has a battle, the player holding the General's role
gives the kingdom's armies' orders of it, round by round, from their own seat (``Seat.part``: a part of the GM's
row, here its ``rounds``), checked on their own view, rolled at Roll, accepted by the GM into the GM's battle, with
the player recorded as the actor of their armies' war actions; the battle's numbers are those of the same battle
played from a plan."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_table import table_copy

from kingdomlog.app import Campaign, table
from kingdomlog.app.drafts import Drafts, SavedDraft
from kingdomlog.core.errors import InputError, RuleError
from kingdomlog.core.events import Draft
from kingdomlog.core.turn import Plan
from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.warfare import new_army

STEP = "activity.battle"
ENEMY = [[{"army": "raiders", "action": "advance", "target": "militia"}],
         [{"army": "raiders", "action": "guard", "target": "militia"}]]
"""The GM's orders of the enemy, two rounds (none the dice can make impossible: the dice are the server's)."""
ORDERS = [[{"army": "militia", "action": "advance", "target": "raiders"}],
          [{"army": "militia", "action": "guard", "target": "raiders"}]]
"""The General's orders of the kingdom's militia, two rounds."""
BATTLE = {"id": "ford", "kingdom": ["militia"], "enemy": ["raiders"], "unfinished": True}


def enemy_enters(camp: Campaign, *, revealed: bool = True) -> None:
    """The Stag Lord's raiders enter the militia's hex (seen by the players unless ``revealed`` is False)."""
    militia = next(a for a in camp.state().army_units if a.id == "militia")
    raiders = new_army(T.army_defs()["infantry"], militia.level, "raiders", "Stag Raiders", side="enemy",
                       hex_id=militia.hex, revealed=revealed)
    camp.append([Draft(E.ArmyRecruited(army=raiders, cause="enemy"), actor="gm",
                       visibility="public" if revealed else "gm", turn=camp.next_turn() - 1)],
                expect_seq=camp.head_seq)


def gm_battle(camp: Campaign, battle: dict[str, Any] | None = None, seed: str = "gm-seed") -> None:
    """The GM's month: the battle set up, with the enemy's orders (dice drawn as the month is played)."""
    turn = camp.next_turn()
    row = {**BATTLE, "rounds": ENEMY} if battle is None else battle
    plan = Plan.parse({"turn": turn, "seed": seed, "dice": "auto", "steps": {STEP: {"choices": {"battles": [row]}}}})
    Drafts(camp.folder).save(SavedDraft(turn, camp.head_seq, plan))


@pytest.fixture
def war(tmp_path: Path) -> Campaign:
    camp = table_copy(tmp_path, "stolen-lands")
    enemy_enters(camp)
    gm_battle(camp)
    return camp


def general_seat(camp: Campaign, pid: str = "kesh") -> Any:
    op = table.opening(camp, camp.viewer(pid))
    return next((s for s in op.seats if s.step == STEP), None)


def test_the_general_sits_at_each_battle_the_gm_set_up(war: Campaign, tmp_path: Path) -> None:
    seat = general_seat(war)
    assert seat is not None and seat.id == "activity.battle/battles/rounds@1"
    assert seat.allowed == {"army": ("militia",)} and seat.limit == 1
    assert general_seat(war, "ysolde") is None  # the Ruler commands no army
    militia = next(a for a in war.state().army_units if a.id == "militia")
    gm_battle(war, {**BATTLE, "hex": militia.hex, "rounds": ENEMY})  # where the militia stands: named
    assert general_seat(war).label == f"General: orders of battle 1 at {militia.hex}"
    gm_battle(war, {**BATTLE, "hex": "Z9", "rounds": ENEMY})  # a hex the General does not know of: not named
    assert general_seat(war).label == "General: orders of battle 1"
    # no battle in the GM's month: no seat
    gm_battle(war, {**BATTLE, "rounds": ENEMY})
    Drafts(war.folder).save(SavedDraft(war.next_turn(), war.head_seq, Plan(turn=war.next_turn(), dice="auto")))
    assert general_seat(war) is None


def test_a_battle_with_an_enemy_the_general_has_not_seen_is_the_gms(tmp_path: Path) -> None:
    """An unrevealed enemy army keeps the battle the GM's: no seat, and nothing of the army reaches the player."""
    camp = table_copy(tmp_path, "stolen-lands")
    enemy_enters(camp, revealed=False)
    gm_battle(camp)
    assert general_seat(camp) is None
    op = table.opening(camp, camp.viewer("kesh"))
    assert "raiders" not in repr(op.seats) and "Stag" not in repr(op.seats)


def test_the_general_gives_their_armies_orders_only(war: Campaign) -> None:
    v = war.viewer("kesh")
    seat = general_seat(war)
    with pytest.raises(InputError, match=r"rounds: 'raiders' is not one of yours to give \(army: militia\)"):
        table.declare(war, v, seat.id, {"rounds": [[{"army": "raiders", "action": "guard", "target": "militia"}]]})
    with pytest.raises(InputError, match="kingdom: this seat gives rounds only"):
        table.declare(war, v, seat.id, {"rounds": ORDERS, "kingdom": ["militia"]})
    with pytest.raises(InputError, match="rounds: the GM's row has 2, not 3"):  # the GM sets how many rounds
        table.declare(war, v, seat.id, {"rounds": [*ORDERS, ORDERS[1]]})
    # an order the rules refuse on the General's view is refused by the battle's rule, at the row
    with pytest.raises(RuleError, match="has no tactic that grants"):
        table.declare(war, v, seat.id, {"rounds": [[{"army": "militia", "action": "taunt", "target": "raiders"}]]})


def test_declare_shows_the_first_check_and_roll_draws_the_whole_battle(war: Campaign) -> None:
    v = war.viewer("kesh")
    prop, trial = table.declare(war, v, general_seat(war).id, {"rounds": ORDERS})
    assert trial.faces == {} and trial.pending.startswith("b1.init.")
    assert prop.title == "Orders of battle 1 (General)"
    assert "vs DC" in table.odds_text(trial) or "d20" in table.odds_text(trial)
    rolled = table.roll(war, v, prop.id)
    assert {"b1.init.militia", "b1.init.raiders", "b1.r1.militia.1", "b1.r1.raiders.1"} <= set(rolled.faces)
    assert "Stag" not in prop.title


def test_the_gm_accepts_the_orders_into_the_battle_and_the_log_equals_a_plan(war: Campaign, tmp_path: Path) -> None:
    """Accepted, the General's orders join the GM's battle round by round (the GM's orders of the enemy first), with
    the faces rolled at the table; the committed battle records the General as the actor of the militia's war
    actions and the GM of the raiders'; its numbers are those of the same battle played from a plan."""
    turn, head = war.next_turn(), war.head_seq
    v = war.viewer("kesh")
    prop, _ = table.declare(war, v, general_seat(war).id, {"rounds": ORDERS})
    faces = table.roll(war, v, prop.id).faces
    table.accept(war, prop.id)
    draft = Drafts(war.folder).load(turn)
    assert draft is not None
    tp = war.preview(draft.plan)
    assert tp.ok, tp.error
    st = next(s for s in tp.steps if s.phase.id == STEP)
    assert st.choices["battles"][0]["rounds"] == [[*ENEMY[0], *ORDERS[0]], [*ENEMY[1], *ORDERS[1]]]
    assert {r.key: list(r.faces) for r in st.rolls} == faces
    war.commit(tp, plan=draft.plan)
    logged = [e for e in war.events() if e.seq > head and e.phase == STEP]
    actions = [(e.payload.army, e.payload.action, e.actor) for e in logged if isinstance(e.payload, E.WarActionTaken)
               and e.payload.action in ("advance", "guard")]
    assert ("militia", "advance", "kesh") in actions and ("raiders", "advance", "gm") in actions
    assert all(who == "gm" for army, _, who in actions if army == "raiders")
    assert any(army == "militia" for army, _, _ in actions)
    # the same battle from a plan written by hand, with the faces rolled at the table: the same numbers
    twin = table_copy(tmp_path / "twin", "stolen-lands")
    enemy_enters(twin)
    plan = Plan.parse({"turn": turn, "seed": "gm-seed", "dice": "auto", "steps": {STEP: {
        "choices": {"battles": [{**BATTLE, "rounds": [[*ENEMY[0], *ORDERS[0]], [*ENEMY[1], *ORDERS[1]]]}]},
        "rolls": faces}}})
    mine = next(s for s in twin.preview(plan).steps if s.phase.id == STEP)
    assert facts(logged) == facts(mine.drafts)


def facts(events: list[Any]) -> list[tuple[Any, ...]]:
    """A battle's numbers as the log records them: every war action's roll, the armies after, the end."""
    out: list[tuple[Any, ...]] = []
    for e in events:
        p = e.payload
        if isinstance(p, E.WarActionTaken):
            out.append(("war", p.round, p.army, p.action, p.target, p.die, p.modifier, p.dc, p.total, p.degree))
        elif isinstance(p, (E.ArmyUpdated, E.ArmyRemoved, E.BattleStarted, E.BattleEnded)):
            out.append((p.type, p.model_dump_json()))
    return out


def test_the_gms_own_roll_of_the_battle_closes_the_seat(war: Campaign) -> None:
    turn = war.next_turn()
    saved = Drafts(war.folder).load(turn)
    assert saved is not None
    plan = saved.plan.model_copy(deep=True)
    plan.steps[STEP].rolls["b1.init.militia"] = [12]
    Drafts(war.folder).save(SavedDraft(turn, war.head_seq, plan))
    with pytest.raises(RuleError, match="the GM has rolled it already"):
        table.declare(war, war.viewer("kesh"), general_seat(war).id, {"rounds": ORDERS})


def test_a_refusal_of_the_gms_orders_does_not_name_them_to_the_general(war: Campaign) -> None:
    """The GM's orders of the enemy are the GM's: when they are what the rules refuse, the General is told the GM's
    side does not play yet, not what the GM ordered."""
    gm_battle(war, {**BATTLE, "rounds": [[{"army": "raiders", "action": "taunt", "target": "militia"}], []]})
    with pytest.raises(RuleError) as got:
        table.declare(war, war.viewer("kesh"), general_seat(war).id, {"rounds": ORDERS})
    assert "the GM's side of it does not play yet" in str(got.value)
    assert "aunt" not in str(got.value) and "Raiders" not in str(got.value)


def test_the_generals_page_offers_the_orders_with_the_gm_boards_form(war: Campaign) -> None:
    """The seat's form is the battle's ``rounds`` field drawn by the GM sheet's codec (``views.forms``: the same
    kind, no copy), one round per round of the GM's battle, its army picks cut to the kingdom's armies, no JSON
    field; the widgets' values read back into the orders, which declare."""
    import marimo as mo

    from kingdomlog.views import forms as sf
    from kingdomlog.views.table import seat as page_seat

    page = page_seat.open_page(war.folder, "kesh")
    i = next(n for n, s in enumerate(page.seats) if s.step == STEP)
    form = page_seat.seat_form(page, i)
    assert [s.name for s in form.specs] == ["rounds"] and form.specs[0].kind == "rounds"
    assert form.row == {"rounds": [[], []]}  # the GM's orders of the enemy are not in the player's form
    assert table.gm_row(war, page.turn, page.seats[i])["rounds"] == [[], []]
    tree = page_seat.row_widgets(form)
    widgets = sf.flatten(tree)
    assert not any(isinstance(w, mo.ui.text_area) for w in widgets.values())
    assert not any("json" in str(getattr(w, "label", "")).lower() for w in widgets.values())
    rounds = form.specs[0]
    assert [e[0].label for e in rounds.entries] == ["Round 1", "Round 2"]
    army = next(f for f in rounds.entries[0][0].fields if f.name == "army")
    assert [o.value for o in army.options or ()] == ["militia"]
    flat = dict(mo.ui.dictionary(widgets).value)
    for r, orders in enumerate(ORDERS):
        for k, v in orders[0].items():
            flat[f"rounds/rounds/#{r}/rows/#0/{k}"] = v
    row, errors = page_seat.read_row(form, sf.unflatten(flat))
    assert errors == [] and row == {"rounds": [[{**o, "engage": True} for o in r] for r in ORDERS]}  # as ticked
    html = mo.as_html(page_seat.row_layout(form, sf.View(mo.ui.dictionary(widgets)), {})).text
    assert "Round 1" in html and "Round 2" in html and "Stag Raiders" in html
    prop, words = page_seat.declare_once(page, i, row)
    assert prop is not None and prop.row == row and "Press Roll" in words


def test_a_rolled_battle_has_no_fame_reroll(war: Campaign) -> None:
    """A Fame point re-rolls a kingdom check (§3.0.8); a battle's checks are the armies' (AoN 1869), and the battle
    charges no Fame: the General's rolled battle offers no re-roll but the GM's ruling."""
    v = war.viewer("kesh")
    prop, _ = table.declare(war, v, general_seat(war).id, {"rounds": ORDERS})
    table.roll(war, v, prop.id)
    with pytest.raises(InputError, match="re-roll reason 'fame': not one this check may have; it may have: none"):
        table.reroll(war, v, prop.id, "fame")
    ruled = table.reroll(war, war.viewer("gm"), prop.id, "gm", note="the raiders were not there yet")
    assert ruled.rerolls and ruled.rerolls[0][1] == "gm"


def test_a_battles_dice_are_keyed_by_the_servers_secret_and_the_proposal(war: Campaign) -> None:
    """Roll draws the battle's dice keyed by a secret the server keeps (mode 0600) and the proposal: a Roll the rules
    refuse half-way (an order the dice made impossible) writes nothing, and the row rolled again draws the same
    faces for the same checks, so no one fishes for faces by pressing Roll again."""
    v = war.viewer("kesh")
    seat = general_seat(war)
    prop, _ = table.declare(war, v, seat.id, {"rounds": ORDERS})
    op = table.opening(war, v)
    again = table.trial(war, op, seat, prop.row, draw=True, seed=table.draw_seed(war, prop.id))
    assert table.roll(war, v, prop.id).faces == again.faces
    secret = war.folder / ".secrets" / table.SEED_FILE
    assert secret.stat().st_mode & 0o777 == 0o600
    assert secret.read_text(encoding="utf-8").strip() not in table.TableFile(war.folder, op.turn).path.read_text(
        encoding="utf-8")


def test_the_generals_proposal_is_drawn_as_the_gm_board_draws_the_battle(war: Campaign) -> None:
    """Declared, the proposal shows the battle's armies and the check it waits for with its odds (no face);
    rolled, every round's checks with their chances (those of the kernels), what each round did, the outcome."""
    from kingdomlog.views.table import seat as page_seat

    page = page_seat.open_page(war.folder, "kesh")
    v = war.viewer("kesh")
    prop, _ = table.declare(war, v, general_seat(war).id, {"rounds": ORDERS})
    declared = str(page_seat.proposal_board(page, prop))
    assert 'class="kl-board"' in declared and "Next to roll" in declared and "Stag Raiders" in declared
    assert "Round 1" not in declared  # nothing rolled, nothing of the rounds yet
    rolled = table.roll(war, v, prop.id)
    board = str(page_seat.proposal_board(page, rolled))
    assert "Round 1" in board and "Round 2" in board and "Outcome" in board and "chances: " in board
    assert "Next to roll" not in board


def test_on_the_gms_sheet_the_battle_waits_for_the_generals_orders(war: Campaign) -> None:
    """The GM's sheet draws a check only when Roll is pressed (``on_roll``): with the month rolled up to the battle,
    the GM's battle waits at its first roll; the General's seat is open then, and once his orders are accepted the
    battle is played with his faces, nothing left to roll in it."""
    turn = war.next_turn()
    auto = war.preview(Plan.parse({"turn": turn, "seed": "gm-seed", "dice": "auto"}))
    steps: dict[str, Any] = {}
    for sp in auto.steps:
        if sp.phase.id == STEP:
            break
        if sp.rolls:
            steps[sp.phase.id] = {"rolls": {r.key: list(r.faces) for r in sp.rolls}}
    steps[STEP] = {"choices": {"battles": [{**BATTLE, "rounds": ENEMY}]}}
    plan = Plan.parse({"turn": turn, "seed": "gm-seed", "dice": "on_roll", "steps": steps})
    Drafts(war.folder).save(SavedDraft(turn, war.head_seq, plan))
    battle = next(s for s in war.preview(plan).steps if s.phase.id == STEP)
    assert battle.pending is not None and battle.pending.key.startswith("b1.init.")
    v = war.viewer("kesh")
    prop, _ = table.declare(war, v, general_seat(war).id, {"rounds": ORDERS})
    faces = table.roll(war, v, prop.id).faces
    table.accept(war, prop.id)
    played = next(s for s in war.preview(plan).steps if s.phase.id == STEP)
    assert played.error is None and played.pending is None
    assert {r.key: list(r.faces) for r in played.rolls} == faces


def test_the_generals_page_says_the_battles_words_once(war: Campaign) -> None:
    """Rolled, the General's page says what each round did once, on the proposal's board: its card says it was
    rolled (no faces nor rounds of its own), the feed line and the word at Roll say the battle's outcome only; the
    GM accepting it shares the outcome with the table, not the rounds again. The proposal keeps the battle's words
    (the GM's panel reads them)."""
    import re

    from kingdomlog.views.table import live
    from kingdomlog.views.table import seat as page_seat

    page = page_seat.open_page(war.folder, "kesh")
    v = war.viewer("kesh")
    prop, _ = table.declare(war, v, general_seat(war).id, {"rounds": ORDERS})
    said = page_seat.run_act(page, page_seat.listing(page).acts[f"{prop.id}/roll"])
    rolled = table.mine(war, v)[0]
    assert "Round 1:" in rolled.outcome and "Outcome: " in rolled.outcome
    outcome = table.said_once(rolled.outcome)
    assert said == f"{rolled.title}: {outcome}." and "Round" not in said
    mine = str(live.proposals_html(page, page_seat.listing(page)))
    feed = str(page_seat.feed_of(page))
    shown = re.sub(r"<[^>]+>", " ", mine + feed)
    action = "Advance → Stag Raiders"  # round 1's war action of the militia
    assert shown.count(action) == 1 and re.sub(r"<[^>]+>", " ", mine).count(action) == 1, shown
    assert 'class="kl-face"' not in mine and "rolled: the battle is drawn below" in mine
    assert f"{rolled.title}: {outcome}" in feed and "Round" not in feed
    table.accept(war, prop.id)
    line = table.feed(war, war.viewer("ysolde"))[-1]
    assert line.kind == "accepted" and outcome in line.text and "Round" not in line.text, line.text


def test_declare_says_the_initiative_has_no_dc_rather_than_odds_against_0(war: Campaign) -> None:
    """The battle's first check is each army's initiative (a Scouting check, AoN 1869): its total is compared with the
    enemy's, so it has no DC before the dice. Declare says that in words; it gave 'd20 +11 vs DC 0' with odds of
    95% critical success before. The board's Next to roll says the same, and the rolled total is said without a DC."""
    from kingdomlog.views.table import seat as page_seat

    v = war.viewer("kesh")
    prop, trial = table.declare(war, v, general_seat(war).id, {"rounds": ORDERS})
    said = table.odds_text(trial)
    assert said == "d20 +11 against the other side's total: no DC, so no odds before the roll", said
    board = str(page_seat.proposal_board(page_seat.open_page(war.folder, "kesh"), prop))
    nxt = board[board.index("Next to roll"):]
    assert "initiative" in nxt and "no DC, so no odds" in nxt and "DC 0" not in nxt and "%" not in nxt, nxt
    rolled = table.roll(war, v, prop.id)
    assert rolled.checks["b1.init.militia"]["kind"] == "total"


def test_a_gm_draft_with_an_initiative_rolled_before_the_total_kind_still_stands(war: Campaign) -> None:
    """A GM's saved month whose battle had its initiative rolled when that check was printed as a pf2e check against
    DC 0 is read with it as the total it is (``RollLock``'s check upcast on read): the battle goes on from the faces
    rolled, not refused as 'rolled as another check'."""
    from kingdomlog.core.turn import RollLock

    turn = war.next_turn()
    plan = Plan.parse({"turn": turn, "seed": "gm-seed", "dice": "on_roll",
                       "steps": {STEP: {"choices": {"battles": [{**BATTLE, "rounds": ENEMY}]}}}})
    auto = war.preview(plan.model_copy(update={"dice": "auto"}))
    before = [s.phase.id for s in auto.steps].index(STEP)
    steps = {s.phase.id: {"rolls": {r.key: list(r.faces) for r in s.rolls}} for s in auto.steps[:before] if s.rolls}
    plan = Plan.parse({**plan.model_dump(mode="json"), "steps": {**steps, STEP: plan.steps[STEP].model_dump(
        mode="json")}})
    tp = war.preview(plan, release={STEP: ["b1.init.militia"]})
    lock = tp.released[STEP]["b1.init.militia"]
    assert lock.check["kind"] == "total"
    old = RollLock.model_validate({**lock.model_dump(mode="json"), "check": {**lock.check, "kind": "pf2e"}})
    assert old.check == lock.check  # read as today's print
    sp = plan.steps[STEP].model_copy(update={"rolled": {"b1.init.militia": old}})
    again = war.preview(plan.model_copy(update={"steps": {**plan.steps, STEP: sp}}))
    st = next(s for s in again.steps if s.phase.id == STEP)
    assert st.error is None and st.pending is not None and st.pending.key != "b1.init.militia", st.error
