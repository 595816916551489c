"""Kingdom feat effects as data (§5.5 kingdom feats; numbers from KMT data/feats/*.json, see data/feats.toml).

Each case is computed by hand from the section 6 kingdom (helpers.SECTION6_FOUNDING) with one feat added.
"""

from __future__ import annotations

import pytest

from kingdomlog.rulesets.pf2e import events as E
from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.state import KingdomState, check_modifier, resource_dice

from .helpers import Game, events_of


def _with(s: KingdomState, *feats: str, **upd: object) -> KingdomState:
    return s.model_copy(update={"feats": (*s.feats, *feats), **upd})


def _terms(b: object) -> list[tuple[str, int, str]]:
    return [(t.label, int(t.value), t.kind) for t in b.terms]  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def base() -> KingdomState:
    return Game().found().state


def test_every_feat_is_data_or_flagged() -> None:
    """§5.5: every feat either carries effects, is Skill Training (grants), or is flagged as a GM ruling."""
    for f in T.base_feats().values():
        assert f.effects or f.grants or f.gm_ruling, f.name
        if f.gm_ruling:
            assert f.gm_note, f.name


def _uninvested(s: KingdomState) -> KingdomState:
    """The kingdom with no invested roles (no status bonus of its own to compete with a feat's)."""
    return s.model_copy(update={"leaders": {r: ld.model_copy(update={"invested": False})
                                            for r, ld in s.leaders.items()}})


def test_practical_magic_adds_status_to_magic_only(base: KingdomState) -> None:
    """Practical Magic (published: +1 status bonus to Magic checks); other skills unchanged. A status bonus
    does not stack with the invested leader's status bonus (+1 at level 1, §5.7): only one counts."""
    plain = _uninvested(base)
    s = _with(plain, "practical-magic")
    before, after = check_modifier(plain, "magic"), check_modifier(s, "magic")
    assert after.total == before.total + 1
    assert ("feat Practical Magic", 1, "status") in _terms(after)
    assert check_modifier(s, "arts").total == check_modifier(plain, "arts").total
    # invested Culture (+1 status) and the feat (+1 status): +1 in all
    assert check_modifier(_with(base, "practical-magic"), "magic").total == check_modifier(base, "magic").total


def test_inspiring_entertainment_needs_unrest(base: KingdomState) -> None:
    """Inspiring Entertainment (published: +2 status to Culture-based checks while Unrest >= 1). Against the
    invested +1 status the better, +2, counts: one more than without the feat."""
    calm = _with(base, "inspiring-entertainment", unrest=0)
    restless = _with(base, "inspiring-entertainment", unrest=1)
    assert "feat Inspiring Entertainment" not in [t[0] for t in _terms(check_modifier(calm, "arts"))]
    assert check_modifier(restless, "arts").total == check_modifier(base.model_copy(update={"unrest": 1}),
                                                                    "arts").total + 1
    plain = _uninvested(base)
    assert check_modifier(_with(plain, "inspiring-entertainment", unrest=1), "arts").total == check_modifier(
        plain.model_copy(update={"unrest": 1}), "arts").total + 2
    # Economy-based Trade gets nothing
    assert "feat Inspiring Entertainment" not in [t[0] for t in _terms(check_modifier(restless, "trade"))]


def test_status_bonuses_do_not_stack(base: KingdomState) -> None:
    """§2.10 / §5.7 stacking: the feat's +1 status and a +2 status modifier on the same check: only +2."""
    from kingdomlog.core.modifiers import Modifier

    plain = _uninvested(base)
    s = _with(plain, "practical-magic")
    b = check_modifier(s, "magic", extra=[Modifier("other", 2, "status")])
    assert b.total == check_modifier(plain, "magic").total + 2
    assert "feat Practical Magic" not in [t[0] for t in _terms(b)]


def test_free_and_fair_loyalty_and_activity(base: KingdomState) -> None:
    """KMT Free and Fair: +2 circumstance to Loyalty-based New Leadership / Pledge of Fealty checks only."""
    s = _with(base, "free-and-fair")
    assert check_modifier(s, "intrigue", activity="new-leadership").total == check_modifier(
        base, "intrigue", activity="new-leadership").total + 2  # intrigue is Loyalty-based
    assert check_modifier(s, "intrigue", activity="pledge-of-fealty").total == check_modifier(
        base, "intrigue", activity="pledge-of-fealty").total + 2
    # a Culture-based skill (Arts) on New Leadership gets nothing, nor Intrigue on another activity
    assert check_modifier(s, "arts", activity="new-leadership").total == check_modifier(
        base, "arts", activity="new-leadership").total
    assert check_modifier(s, "intrigue", activity="quell-unrest").total == check_modifier(
        base, "intrigue", activity="quell-unrest").total
    assert T.core().skills["intrigue"] == "loyalty" and T.core().skills["arts"] == "culture"


def test_insider_trading_resource_die_and_activity_bonus(base: KingdomState) -> None:
    """Insider Trading: +1 Resource Die (KMT resourceDice 1) and +1 status to Establish Work Site (published)."""
    s = _with(base, "insider-trading")
    assert resource_dice(s).total == resource_dice(base).total + 1 == base.level + 4 + 1
    assert ("feat Insider Trading", 1, "feat") in _terms(resource_dice(s))
    plain = _uninvested(base)
    p = _with(plain, "insider-trading")
    assert check_modifier(p, "engineering", activity="establish-work-site").total == check_modifier(
        plain, "engineering", activity="establish-work-site").total + 1
    assert check_modifier(p, "engineering", activity="claim-hex").total == check_modifier(
        plain, "engineering", activity="claim-hex").total


def test_fortified_fiefs_in_a_played_check() -> None:
    """KMT Fortified Fiefs: +2 circumstance on Fortify Hex; the term is in the recorded check's breakdown."""
    g = Game().found()
    g.state = _with(g.state, "fortified-fiefs")
    from kingdomlog.rulesets.pf2e.state import Hex

    g.state = g.state.model_copy(update={"pending": g.state.pending.model_copy(update={"rp": 60}),
                                         "hexes": (*g.state.hexes, Hex(id="H1", terrain="hills", q=1, r=0))})
    pv = g.play({"activity.region": {"choices": {"activities": [
        {"activity": "fortify-hex", "hex": "H1", "skill": "defense"}]}, "rolls": {"a1": [10]}}}, check=False)
    assert pv.ok, pv.error
    chk = next(e for e in events_of(pv, "activity.region") if isinstance(e, E.CheckResolved))
    assert ("feat Fortified Fiefs", 2, "circumstance") in [(t.label, t.value, t.kind) for t in chk.terms]
    assert chk.total == 10 + chk.modifier


def test_repeatable_feat_counts_once(base: KingdomState) -> None:
    """A feat's effects apply once even if the feat name appears twice in the log."""
    s = _with(base, "insider-trading", "insider-trading")
    assert resource_dice(s).total == resource_dice(base).total + 1


def test_fortified_fiefs_on_defensive_structures_only(base: KingdomState) -> None:
    """KMT Fortified Fiefs: +2 circumstance to build a Barracks (or Keep, walls ...), not Houses."""
    s = _with(base, "fortified-fiefs")
    kw = {"activity": "build-structure", "category": "civic"}
    assert check_modifier(s, "defense", target="barracks", **kw).total == check_modifier(
        base, "defense", target="barracks", **kw).total + 2
    assert check_modifier(s, "industry", target="houses", **kw).total == check_modifier(
        base, "industry", target="houses", **kw).total


def _quell(feats: tuple[str, ...], die: int) -> list[tuple[str, int, str]]:
    g = Game().found()
    g.state = _with(g.state, *feats)
    pv = g.play({"activity.leadership": {"choices": {"activities": [
        {"activity": "quell-unrest", "role": "ruler", "skill": "politics"}]}, "rolls": {"a1": [die]}}})
    chk = next(e for e in events_of(pv, "activity.leadership") if isinstance(e, E.CheckResolved))
    pend = [(p.kind, p.amount, p.cause) for p in events_of(pv, "activity.leadership")
            if isinstance(p, E.PendingAdded)]
    return [(chk.degree, 0, ""), *pend]


def test_fame_and_fortune_critical_success_dice() -> None:
    """KMT Fame and Fortune: a critical success on a Leadership activity queues +1 Resource Die next turn;
    a plain success or a kingdom without the feat queues nothing."""
    crit = _quell(("fame-and-fortune",), 20)
    assert crit[0][0] == "critical_success"
    assert ("bonus_dice", 1, "feat Fame and Fortune") in crit
    assert ("bonus_dice", 1, "feat Fame and Fortune") not in _quell((), 20)
    plain = _quell(("fame-and-fortune",), 11)
    assert plain[0][0] != "critical_success"
    assert all(c != "feat Fame and Fortune" for _, _, c in plain)


def _event_terms(feats: tuple[str, ...], event: str) -> list[tuple[str, int, str]]:
    g = Game().found()
    g.state = _with(g.state, *feats)
    pv = g.play({"event.resolve": {"choices": {"event": event}, "rolls": {"check": [10]}}})
    chk = next(e for e in events_of(pv, "event.resolve") if isinstance(e, E.CheckResolved))
    return [(t.label, t.value, t.kind) for t in chk.terms]


def test_quick_recovery_on_ongoing_dangerous_events() -> None:
    """Quick Recovery (published: +4 status) on checks of dangerous continuous events (Sensational Crime),
    not on a dangerous one-off event (Public Scandal)."""
    assert ("feat Quick Recovery", 4, "status") in _event_terms(("quick-recovery",), "sensational-crime")
    assert "feat Quick Recovery" not in [t[0] for t in _event_terms(("quick-recovery",), "public-scandal")]
    assert "feat Quick Recovery" not in [t[0] for t in _event_terms((), "sensational-crime")]


def _quell_unrest_change(feats: tuple[str, ...], unrest: int) -> int:
    g = Game().found()
    g.state = _with(g.state, *feats, unrest=unrest)
    pv = g.play({"activity.leadership": {"choices": {"activities": [
        {"activity": "quell-unrest", "role": "ruler", "skill": "politics"}]}, "rolls": {"a1": [12]}}})
    chk = next(e for e in events_of(pv, "activity.leadership") if isinstance(e, E.CheckResolved))
    assert chk.degree == "success"  # Quell Unrest success: -1 Unrest
    return sum(e.delta for e in events_of(pv, "activity.leadership") if isinstance(e, E.UnrestChanged))


def test_endure_anarchy_reduces_unrest_one_more_from_six() -> None:
    """KMT Endure Anarchy (increaseActivityUnrestReductionBy 1, minimumCurrentUnrest 6): Quell Unrest's
    success removes 2 Unrest at Unrest 8, still 1 at Unrest 5 and 1 without the feat."""
    assert _quell_unrest_change(("endure-anarchy",), 8) == -2
    assert _quell_unrest_change(("endure-anarchy",), 5) == -1
    assert _quell_unrest_change((), 8) == -1
