"""Ultimate Campaign leadership roles (UC Leadership Roles; base §6.13): Consort, Heir, Royal Enforcer."""

from __future__ import annotations

import pytest
from pf1.kit import kingdom, step

from kingdomlog.core.errors import InputError, RuleError
from kingdomlog.rulesets.pf1 import derive as dv
from kingdomlog.rulesets.pf1 import events as ev

UC = {"leadership_roles": "uc"}
RULER = ev.LeaderAssigned(role="RULER", name="R", ability="CHA", modifier=3, attributes=("STABILITY",))
CONSORT = ev.LeaderAssigned(role="CONSORT", name="Cora", ability="CHA", modifier=5)


def test_consort_and_heir_add_half_their_charisma_to_loyalty() -> None:
    """Consort Cha +5 → Loyalty +2 (half, rounded down); Heir Cha +3 → +1; no vacancy penalty for either."""
    s = kingdom(2, options=UC, leaders=False, extra=[RULER])
    l0 = int(dv.attribute(s, "LOYALTY").total)
    s2, _ = step(s, "improvement", {"leaders": [{"role": "CONSORT", "name": "Cora", "ability": "CHA", "modifier": 5},
                                                {"role": "HEIR", "name": "Hal", "ability": "CHA", "modifier": 3}]})
    assert int(dv.attribute(s2, "LOYALTY").total) == l0 + 2 + 1


def test_uc_roles_only_with_the_option_and_the_assassin_only_without() -> None:
    with pytest.raises(InputError, match="'CONSORT' is not a leadership role of this campaign"):
        step(kingdom(2), "improvement", {"leaders": [{"role": "CONSORT", "name": "C", "ability": "CHA"}]})
    with pytest.raises(InputError, match="'ROYAL_ASSASSIN' is not a leadership role of this campaign"):
        step(kingdom(2, options=UC), "improvement", {"leaders": [{"role": "ROYAL_ASSASSIN", "name": "A",
                                                                  "ability": "DEX"}]})


def test_a_consort_acting_as_ruler_lets_the_kingdom_claim_and_replaces_the_unrest() -> None:
    """Ruler absent: with the Consort acting, a hex may be claimed; at Upkeep no Ruler vacancy +4, but a failed
    Loyalty check (natural 1) gives Unrest +1."""
    s = kingdom(2, options=UC, leaders=False,
                extra=[RULER, CONSORT, ev.LeaderPresenceRecorded(role="RULER", name="R", present=False)])
    s = s.model_copy(update={"counters": s.counters.model_copy(update={"claims": 0})})
    with pytest.raises(RuleError, match="needs an effective Ruler"):
        step(s, "improvement", {"claim": ["H2"]})
    s2, ps = step(s, "improvement", {"acting_ruler": "CONSORT", "claim": ["H2"]})
    assert isinstance(ps[0], ev.ActingRulerNamed) and s2.hexes["H2"].claimed
    _s3, ps3 = step(s2.model_copy(update={"turn": 2, "phase": "GM"}), "upkeep",
                   rolls={"stability": [20], "acting_ruler": [1]})
    vac = next((p for p in ps3 if isinstance(p, ev.VacancyUnrestApplied)), None)
    assert vac is None or "RULER" not in vac.items
    act = next(p for p in ps3 if isinstance(p, ev.ActingRulerCheckRolled))
    assert act.unrest_delta == 1 and not act.check.success


def test_royal_enforcer_lowers_unrest_at_a_loyalty_risk() -> None:
    """Royal Enforcer Dex +2: Loyalty +2; at Upkeep Unrest −1, and a failed Loyalty check costs Loyalty −1."""
    enf = ev.LeaderAssigned(role="ROYAL_ENFORCER", name="E", ability="DEX", modifier=2)
    s = kingdom(2, options=UC, leaders=False, unrest=3, extra=[RULER, enf])
    l0 = int(dv.attribute(s, "LOYALTY").total)
    s2, ps = step(s.model_copy(update={"phase": "GM"}), "upkeep", {"enforcer_reduces": True},
                  rolls={"stability": [10], "royal_enforcer": [1]})
    r = next(p for p in ps if isinstance(p, ev.RoyalEnforcerActed))
    assert r.unrest_delta == -1 and r.loyalty_delta == -1
    assert int(dv.attribute(s2, "LOYALTY").total) == l0 - 1
    with pytest.raises(RuleError, match="needs a Royal Enforcer"):
        step(kingdom(2).model_copy(update={"phase": "GM"}), "upkeep", {"enforcer_reduces": True},
             rolls={"stability": [10]})
