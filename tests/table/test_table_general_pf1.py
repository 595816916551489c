"""The pf1 General at the table (issue 30): where the GM's month has a battle (UC Mass Combat, Battle Phases), the
player whose character holds the General's role gives the orders of the kingdom's lead army from their own seat
(``Seat.part``: the battle's ``ours_tactic``, ``ours_use`` and each Melee phase's ``ours_*`` orders, joined to the
GM's ``enemy_*`` by ``Pf1Kingmaker.join_part``), checked on their own view, rolled at Roll (dice keyed by the server's
secret), accepted by the GM into the GM's battle; the battle's numbers are those of the same battle played from a
plan. The seat is pf2e's (``tests/table/test_table_general.py``) through the shared seam."""

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
from kingdomlog.rulesets.pf1 import events as E

STEP = "war"
ENEMY_ROUNDS = [{"enemy_strategy": "Aggressive"}, {"enemy_strategy": "Standard"}]
"""The GM's orders of the enemy, two Melee phases (the last repeats)."""
BATTLE = {"ours": "A2", "enemy": "A9", "enemy_tactic": "Standard"}
ORDERS: dict[str, Any] = {"ours_tactic": "Standard",
                          "rounds": [{"ours_strategy": "Defensive"}, {"ours_strategy": "Cautious"}]}
"""The General's orders of the Tatzlford Guard: its tactic, then each Melee phase's strategy."""


def raiders_enter(camp: Campaign, *, visibility: str = "public") -> None:
    """The Stag Lord's raiders (A9) come to the Tatzlford Guard's hex (seen by the players unless ``visibility``)."""
    s = camp.state()
    raiders = s.armies["A1"].model_copy(update={"id": "A9", "name": "Stag Raiders", "status": "active",
                                                "hp": s.armies["A1"].max_hp, "hex": s.armies["A2"].hex})
    camp.append([Draft(E.ArmyRecruited(army=raiders, counts_against_limit=False), actor="gm", visibility=visibility,
                       turn=camp.next_turn() - 1)], expect_seq=camp.head_seq)


def gm_battle(camp: Campaign, battle: dict[str, Any] | None = None, seed: str = "gm-seed") -> None:
    """The GM's month: the battle set up with the enemy's orders (the steps before it auto-rolled)."""
    turn = camp.next_turn()
    row = {**BATTLE, "rounds": ENEMY_ROUNDS} if battle is None else battle
    plan = Plan.parse({"turn": turn, "seed": seed, "dice": "auto", "steps": {STEP: {"choices": {"battles": [row]}}}})
    Drafts(camp.folder).save(SavedDraft(turn, camp.head_seq, plan))


@pytest.fixture
def war(tmp_path: Path) -> Campaign:
    camp = table_copy(tmp_path, "river-kingdom")
    raiders_enter(camp)
    gm_battle(camp)
    return camp


def general_seat(camp: Campaign, pid: str = "amiri") -> Any:
    op = table.opening(camp, camp.viewer(pid))
    return next((s for s in op.seats if s.step == STEP), None)


def test_the_general_sits_at_each_battle_the_gm_set_up(war: Campaign) -> None:
    seat = general_seat(war)
    assert seat is not None and seat.id == "war/battles/ours_tactic+ours_use+rounds@1"
    assert seat.parts == ("ours_tactic", "ours_use", "rounds") and seat.limit == 1
    assert "Tatzlford Guard" in seat.help
    assert general_seat(war, "jubilost") is None  # the Treasurer commands no army
    gm_battle(war, {**BATTLE, "hex": "h0", "rounds": ENEMY_ROUNDS})  # where the Guard stands: named
    assert general_seat(war).label == "General: orders of battle 1 at h0"
    gm_battle(war, {**BATTLE, "hex": "h11", "rounds": ENEMY_ROUNDS})  # not one of his armies' hexes: not named
    assert general_seat(war).label == "General: orders of battle 1"
    Drafts(war.folder).save(SavedDraft(war.next_turn(), war.head_seq, Plan(turn=war.next_turn(), dice="auto")))
    assert general_seat(war) is None  # no battle in the GM's month: no seat


def test_a_battle_with_an_army_not_in_the_generals_view_is_the_gms(war: Campaign) -> None:
    """An army the General's view does not hold (pf1's players see every army on the map; an id the GM typed for one
    not on it) keeps the battle the GM's: no seat, and nothing of it reaches the player."""
    gm_battle(war, {**BATTLE, "enemies": ["A77"], "rounds": ENEMY_ROUNDS})
    assert general_seat(war) is None
    op = table.opening(war, war.viewer("amiri"))
    assert "A77" not in repr(op.seats)
    gm_battle(war, {**BATTLE, "ours": "A9", "enemy": "A2"})  # not the kingdom's army at the lead: the GM's
    assert general_seat(war) is None


def test_the_general_gives_the_kingdoms_orders_only(war: Campaign) -> None:
    v = war.viewer("amiri")
    seat = general_seat(war)
    with pytest.raises(InputError, match=r"rounds\[0\]: enemy_strategy: the GM gives the enemy's orders"):
        table.declare(war, v, seat.id, {"rounds": [{"ours_strategy": "Standard", "enemy_strategy": "Reckless"}]})
    with pytest.raises(InputError, match="enemy_tactic: this seat gives ours_tactic, ours_use, rounds only"):
        table.declare(war, v, seat.id, {**ORDERS, "enemy_tactic": "Standard"})
    with pytest.raises(InputError, match="rounds: the GM's row has 2, not 3"):
        table.declare(war, v, seat.id, {"rounds": [*ORDERS["rounds"], {"ours_strategy": "Reckless"}]})
    # a tactic the Guard does not know is refused by the battle's rule
    with pytest.raises(RuleError, match="Expert Flankers"):
        table.declare(war, v, seat.id, {"ours_tactic": "Expert Flankers"})


def test_the_gm_accepts_the_orders_into_the_battle_and_the_log_equals_a_plan(war: Campaign, tmp_path: Path) -> None:
    """Accepted, the General's orders join the GM's battle phase by phase (the GM's orders of the enemy kept), with
    the faces rolled at the table; its numbers are those of the same battle played from a plan."""
    turn, head = war.next_turn(), war.head_seq
    v = war.viewer("amiri")
    prop, trial = table.declare(war, v, general_seat(war).id, ORDERS)
    assert trial.faces == {} and trial.pending.startswith("w1_")
    assert prop.title == "Orders of battle 1 (General)"
    faces = table.roll(war, v, prop.id).faces
    assert faces and all(k.startswith("w1_") for k in faces)
    table.accept(war, prop.id)
    draft = Drafts(war.folder).load(turn)
    assert draft is not None
    tp = war.preview(draft.plan)
    assert tp.ok, tp.error
    st = next(s for s in tp.steps if s.phase.id == STEP)
    joined = {**BATTLE, "ours_tactic": "Standard",
              "rounds": [{**ENEMY_ROUNDS[0], **ORDERS["rounds"][0]}, {**ENEMY_ROUNDS[1], **ORDERS["rounds"][1]}]}
    assert st.choices["battles"][0] == joined
    assert {r.key: list(r.faces) for r in st.rolls} == faces
    war.commit(tp, plan=draft.plan)
    logged = [e for e in war.events() if e.seq > head and e.phase == STEP]
    assert any(isinstance(e.payload, E.BattleEnded) for e in logged)
    twin = table_copy(tmp_path / "twin", "river-kingdom")
    raiders_enter(twin)
    plan = Plan.parse({"turn": turn, "seed": "gm-seed", "dice": "auto",
                       "steps": {STEP: {"choices": {"battles": [joined]}, "rolls": faces}}})
    mine = next(s for s in twin.preview(plan).steps if s.phase.id == STEP)
    assert [(e.type, e.payload.model_dump_json()) for e in logged] == \
        [(d.payload.type, d.payload.model_dump_json()) for d in mine.drafts]


def test_the_generals_strategy_moves_the_numbers(war: Campaign) -> None:
    """The orders are played: a Reckless Guard (OM +4, DV −4: UC Strategy) rolls with other numbers than a
    Defensive one on the same dice."""
    v = war.viewer("amiri")
    seat = general_seat(war)
    op = table.opening(war, v)
    a = table.trial(war, op, seat, {"rounds": [{"ours_strategy": "Defensive"}]}, draw=True, seed="s")
    b = table.trial(war, op, seat, {"rounds": [{"ours_strategy": "Reckless"}]}, draw=True, seed="s")
    assert a.checks != b.checks


def test_the_gms_own_roll_of_the_battle_closes_the_seat(war: Campaign) -> None:
    turn = war.next_turn()
    saved = Drafts(war.folder).load(turn)
    assert saved is not None
    plan = saved.plan.model_copy(deep=True)
    plan.steps[STEP].rolls["w1_r1_ours"] = [12]
    Drafts(war.folder).save(SavedDraft(turn, war.head_seq, plan))
    with pytest.raises(RuleError, match="the GM has rolled it already"):
        table.declare(war, war.viewer("amiri"), general_seat(war).id, ORDERS)


def test_a_refusal_of_the_gms_orders_does_not_name_them_to_the_general(war: Campaign) -> None:
    """The GM's orders of the enemy are the GM's: a tactic change the raiders cannot make (they know no
    Siegebreaker) is refused as the GM's side not playing yet, without naming it."""
    gm_battle(war, {**BATTLE, "rounds": [{"enemy_tactic": "Siegebreaker"}]})
    with pytest.raises(RuleError) as got:
        table.declare(war, war.viewer("amiri"), general_seat(war).id, {"rounds": [{"ours_strategy": "Standard"}]})
    assert "the GM's side of it does not play yet" in str(got.value)
    assert "Siegebreaker" not in str(got.value)


def test_the_generals_page_offers_the_orders_with_the_gm_boards_form(war: Campaign) -> None:
    """The seat's form is the battle's fields drawn by the GM sheet's codec (``views.forms``), the enemy's orders
    left out, no JSON field; the widgets' values read back into the orders, which declare."""
    import marimo as mo

    from kingdomlog.views import forms as sf
    from kingdomlog.views.table import seat as page_seat

    page = page_seat.open_page(war.folder, "amiri")
    i = next(n for n, s in enumerate(page.seats) if s.step == STEP)
    form = page_seat.seat_form(page, i)
    assert [s.name for s in form.specs] == ["ours_tactic", "rounds", "ours_use"]  # as the board orders them
    assert form.row["rounds"] == [{}, {}]  # the GM's orders of the enemy are not in the player's form
    gm = table.gm_row(war, page.turn, page.seats[i])
    assert "enemy_tactic" not in gm and gm["rounds"] == [{}, {}]
    widgets = sf.flatten(page_seat.row_widgets(form))
    assert not any(isinstance(w, mo.ui.text_area) for w in widgets.values())
    assert not any("enemy" in k for k in widgets), sorted(widgets)
    flat = dict(mo.ui.dictionary(widgets).value)
    assert "rounds/rows/#1/ours_strategy" in flat  # a widget per order of each Melee phase the GM's battle has
    flat["ours_tactic"] = "Standard"
    for r, orders in enumerate(ORDERS["rounds"]):
        for k, val in orders.items():
            flat[f"rounds/rows/#{r}/{k}"] = val
    html = mo.as_html(page_seat.row_layout(form, sf.View(mo.ui.dictionary(widgets)), {})).text
    assert "Melee phase 1" in html and "Melee phase 2" in html and html.count("Our strategy") >= 2  # each phase
    assert "Enemy" not in html
    row, errors = page_seat.read_row(form, sf.unflatten(flat))
    assert errors == [] and row == ORDERS
    prop, words = page_seat.declare_once(page, i, row)
    assert prop is not None and prop.row == row and "Press Roll" in words


def test_a_long_battle_is_rolled_and_said_in_its_first_phases_and_outcome(war: Campaign) -> None:
    """Two Defensive armies fight all ten Melee phases (UC Battle Phases: the battle breaks off, undecided): Roll
    writes its line (the words of every phase ran past the line's 2000 characters, and Roll refused with a
    validation error), said in its first phases, how many more the board shows, and the outcome."""
    gm_battle(war, {**BATTLE, "rounds": [{"enemy_strategy": "Defensive"}]})
    v = war.viewer("amiri")
    prop, _ = table.declare(war, v, general_seat(war).id, {"rounds": [{"ours_strategy": "Defensive"}]})
    rolled = table.roll(war, v, prop.id)
    assert len(rolled.outcome) <= table.WORDS_MAX
    assert rolled.outcome.startswith("Melee phase 1: ") and "more on the board" in rolled.outcome
    assert "Outcome: " in rolled.outcome and "undecided" in rolled.outcome


def test_on_the_gms_sheet_the_battle_is_marked_rolled_at_the_table_by_the_general(war: Campaign) -> None:
    """Accepted, the General's battle sits in the GM's battle it was given for (``views.sheet.table.placed``), and
    the sheet's dice of it are marked his, rolled at the table (its keys, ``w1_r1_ours``, are the row's ``w1``)."""
    from kingdomlog.views.sheet import cards as sheet_cards
    from kingdomlog.views.sheet import draft as sheet

    v = war.viewer("amiri")
    prop, _ = table.declare(war, v, general_seat(war).id, ORDERS)
    table.roll(war, v, prop.id)
    table.accept(war, prop.id)
    s, _ = sheet.open_session(war.folder)
    assert s is not None
    while (w := s.draft.preview.pending if s.draft is not None and s.draft.preview is not None else None) \
            is not None and w.phase.id != STEP:  # the GM rolls the month up to the battle
        assert w.pending is not None
        s.roll(w.phase.id, w.pending.key)
    draft = s.update({})
    card = draft.card(STEP)
    assert card is not None and [(pl.name, pl.index, pl.part) for pl in card.placed] == [("Amiri", 1, "w1")]
    assert all(card.placed[0].owns(k) for k in card.placed[0].typed) and not card.placed[0].owns("w10_r1_ours")
    shown = sheet_cards.result_html(s, card, draft)
    assert "proposed by Amiri" in shown and "Rolled at the table by Amiri" in shown


def test_the_gms_ruling_rolls_the_battle_again_and_it_is_accepted_as_rolled(war: Campaign) -> None:
    """pf1 has no re-roll a player may pay for: only the GM's ruling rolls the General's battle again (its dice keyed
    by the proposal's re-roll count); accepted, the month plays the battle with the faces of the re-roll."""
    v = war.viewer("amiri")
    prop, _ = table.declare(war, v, general_seat(war).id, ORDERS)
    first = table.roll(war, v, prop.id).faces
    with pytest.raises(InputError, match="re-roll reason 'fame': not one this check may have; it may have: none"):
        table.reroll(war, v, prop.id, "fame")
    ruled = table.reroll(war, war.viewer("gm"), prop.id, "gm", note="the raiders had not arrived")
    assert ruled.rerolls and ruled.rerolls[0][1] == "gm" and ruled.faces != first
    table.accept(war, prop.id)
    draft = Drafts(war.folder).load(war.next_turn())
    assert draft is not None
    tp = war.preview(draft.plan)
    assert tp.ok, tp.error
    st = next(s for s in tp.steps if s.phase.id == STEP)
    assert {r.key: list(r.faces) for r in st.rolls} == ruled.faces


def test_the_generals_form_offers_the_tactics_the_lead_army_knows_and_exactly_the_battles_phases(
        war: Campaign) -> None:
    """UC Mass Combat, Army Tactics: an army uses the tactics every army knows, its own and its commander's Bonus
    Tactic; the General's form (its tactic, and each Melee phase's change of tactic) offers those of the lead army
    only, and a tactic it does not know sent in a phase is refused. The form holds one entry per Melee phase the
    GM's battle has (two here), no spare one the battle would not play."""
    from kingdomlog.rulesets.pf1.battle import known_tactics
    from kingdomlog.views import forms as sf
    from kingdomlog.views.table import seat as page_seat

    guard = war.state().armies["A2"]
    default = tuple(t.name for t in war.state().catalog.mass_combat.tactics.values() if t.default)
    assert known_tactics(war.state(), guard) == default  # the Guard has learned none of its own
    taught = guard.model_copy(update={"tactics": ("Expert Flankers",)})
    assert set(known_tactics(war.state(), taught)) == {*default, "Expert Flankers"}

    page = page_seat.open_page(war.folder, "amiri")
    i = next(n for n, s in enumerate(page.seats) if s.step == STEP)
    form = page_seat.seat_form(page, i)
    offered = {o.value for o in next(s for s in form.specs if s.name == "ours_tactic").options or () if o.value}
    assert offered == set(default), offered
    phase = next(s for s in form.specs if s.name == "rounds")
    per_phase = [{o.value for o in next(f for f in e if f.name == "ours_tactic").options or () if o.value}
                 for e in (phase.entries or (phase.fields,))]
    assert per_phase and all(p == set(default) for p in per_phase), per_phase
    widgets = sf.flatten(page_seat.row_widgets(form))
    phases = sorted({k.split("/")[2] for k in widgets if k.startswith("rounds/rows/")})
    assert phases == ["#0", "#1"], phases  # the GM's battle has two Melee phases: no third
    picked = page_seat.seat_form(page, i, {"rounds": [{"ours_strategy": "Defensive"}]})  # the first phase's, picked
    phases = sorted({k.split("/")[2] for k in sf.flatten(page_seat.row_widgets(picked)) if k.startswith("rounds/")})
    assert phases == ["#0", "#1"], phases  # the second is still there to fill
    with pytest.raises(InputError, match="Expert Flankers"):
        table.declare(war, war.viewer("amiri"), general_seat(war).id,
                      {"rounds": [{"ours_strategy": "Standard", "ours_tactic": "Expert Flankers"}]})


def test_the_victors_loyalty_checks_are_named_in_words_on_the_board(war: Campaign) -> None:
    """The battle's board names each of the victor's Loyalty checks (UC Mass Combat: Victory) in words, 'Loyalty
    check after the victory of battle 1, 1 of 2', never by its roll key ('w1_victory_1'): the GM's battle as its
    seed plays it (the Guard wins)."""
    import re

    from kingdomlog.views.sheet.board import board_html

    plan = Drafts(war.folder).load(war.next_turn())
    assert plan is not None
    tp = war.preview(plan.plan)
    i = [sp.phase.id for sp in tp.steps].index(STEP)
    st, before = tp.steps[i], tp.steps[i - 1].state_after
    assert {"w1_victory_1", "w1_victory_2"} <= set(st.checks)  # the Guard won: its two Loyalty checks
    (board,) = war.ruleset.boards(before, STEP, st.choices, st.rolls, st.checks, st.drafts)
    shown = re.sub(r"<[^>]+>", " ", str(board_html(board, st.checks, st.rolls)))
    assert "Loyalty check after the victory of battle 1, 1 of 2: d20 " in shown, shown
    assert "Loyalty check after the victory of battle 1, 2 of 2: d20 " in shown
    assert not re.search(r"w\d+_\w+", shown), shown


def test_the_generals_form_and_the_boards_next_roll_are_in_words(war: Campaign) -> None:
    """The General's form names its fields in words ('Our tactic', each Melee phase 'Melee phase 1' with 'Our
    strategy'), not as the choice's keys ('Ours tactic', 'Rounds · 1', 'Ours strategy'); the board's Next to roll
    names a kingdom check labelled with its roll key in words ('Loyalty check after the victory of battle 1, 1 of 2',
    through ``Ruleset.check_title``), never by the key ('Loyalty check (w1_victory_1)')."""
    import re

    import marimo as mo

    from kingdomlog.core.board import Board
    from kingdomlog.core.ruleset import PendingRoll
    from kingdomlog.dice.checks import CheckSpec
    from kingdomlog.views import forms as sf
    from kingdomlog.views.sheet.board import board_html
    from kingdomlog.views.table import seat as page_seat

    page = page_seat.open_page(war.folder, "amiri")
    i = next(n for n, s in enumerate(page.seats) if s.step == STEP)
    form = page_seat.seat_form(page, i)
    widgets = mo.ui.dictionary(sf.flatten(page_seat.row_widgets(form)))
    html = mo.as_html(page_seat.row_layout(form, sf.View(widgets), {})).text
    assert "Our tactic" in html and "Melee phase 1" in html and "Melee phase 2" in html  # labels: in attributes
    assert html.count("Our strategy") == 2 and "Our special abilities" in html
    assert "Ours" not in html and "Rounds" not in html
    spec = CheckSpec("d20", modifier=5, dc=20, label="Loyalty check (w1_victory_1)", nat1_fails=False)
    board = Board("w1", "Battle w1", (), (), ())
    drawn = board_html(board, {"w1_victory_1": spec}, [], PendingRoll("w1_victory_1", "1d20", spec),
                       ruleset=war.ruleset)
    said = re.sub(r"<[^>]+>", " ", str(drawn))
    assert "Loyalty check after the victory of battle 1, 1 of 2: d20 +5 vs DC 20" in said, said
    assert "w1_victory" not in said, said


def test_the_generals_special_abilities_are_picked_from_those_the_lead_army_has(tmp_path: Path) -> None:
    """UC Mass Combat, Special Abilities: "Our special abilities" (from the start, and each Melee phase's) is a
    multiselect of the orders the lead army can be given, filled from its state (Rage; Judgment and Wild Shape with
    each choice; Channel Positive Energy to heal; a Wild Shape form's Flight), said in words; it was a text box of
    comma-separated names with examples. An ability the army lacks is still refused where the orders enter."""
    from kingdomlog.views import forms as sf
    from kingdomlog.views.table import seat as page_seat

    camp = table_copy(tmp_path, "river-kingdom")
    raiders_enter(camp)
    guard = camp.state().armies["A2"].model_copy(update={"specials": ("Rage", "Judgment", "Channel Positive Energy",
                                                                      "Wild Shape", "Darkvision")})
    camp.append([Draft(E.ArmyRecruited(army=guard, counts_against_limit=False), actor="gm", visibility="public",
                       turn=camp.next_turn() - 1)], expect_seq=camp.head_seq)
    gm_battle(camp)
    page = page_seat.open_page(camp.folder, "amiri")
    i = next(n for n, s in enumerate(page.seats) if s.step == STEP)
    form = page_seat.seat_form(page, i)
    start = next(s for s in form.specs if s.name == "ours_use")
    phase = next(s for s in form.specs if s.name == "rounds")
    each = [next(f for f in e if f.name == "ours_use") for e in (phase.entries or (phase.fields,))]
    for spec in (start, *each):
        assert spec.kind == "multiselect" and spec.options is not None, spec
        said = {o.value: o.label for o in spec.options}
        assert said["Rage"] == "Rage" and said["Judgment (damage)"] == "Judgment (damage)"
        assert said["Channel Positive Energy (heal)"] == "Channel Positive Energy: heal"
        assert said["Wild Shape (end)"] == "Wild Shape: end it" and "Flight" in said
        assert "Darkvision" not in said and "Smite Evil" not in said  # held but not ordered; not held
    widgets = sf.flatten(page_seat.row_widgets(form))
    assert not [k for k in widgets if k.endswith("ours_use") and type(widgets[k]).__name__ != "multiselect"]
    row = {"ours_use": ["Rage"], "rounds": [{"ours_strategy": "Aggressive", "ours_use": ["Judgment (damage)"]}]}
    prop, _ = page_seat.declare_once(page, i, row)
    assert prop is not None and prop.row["ours_use"] == ["Rage"]
    with pytest.raises(InputError, match=r"'Smite Evil' is not an order our lead army can be given"):
        table.declare(camp, camp.viewer("amiri"), general_seat(camp).id, {"ours_use": ["Smite Evil"]})
