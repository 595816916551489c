"""Property tests: any seed plays legal default years, replay reproduces the state, invariants hold (§2, §8.1)."""

from __future__ import annotations

from aik_helpers import RS, Game
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kingdomlog.core.fold import replay
from kingdomlog.rulesets.aikakirjat import rules as R
from kingdomlog.rulesets.aikakirjat.samples import sample_founding


def check_invariants(s) -> None:  # type: ignore[no-untyped-def]
    assert s.unrest >= 0 and s.population >= 0 and s.militia >= 0 and s.fame >= 0
    assert 1 <= s.level <= 20 and s.levy_dice <= s.level
    for t, tr in s.tracks.items():
        assert tr.modifier <= 0, t
        assert 0 <= tr.points <= max(1, R.score(s, {"decadence": "culture", "crime": "economy",
                                                    "corruption": "loyalty", "decay": "stability"}[t])), t
    assert min((n.diplomacy for n in s.neighbours.values()), default=0) >= -10
    assert s.militia == sum(a.militia for a in s.armies if a.owner == "players") or not s.wars or not s.armies


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.text(min_size=1, max_size=8), hostile=st.booleans())
def test_default_years_are_legal_and_replayable(seed: str, hostile: bool) -> None:
    """Five default years from the sample kingdom (a hostile Tuonela at −9 starts an automatic war)."""
    f = sample_founding()
    if hostile:
        f["neighbours"][1]["diplomacy"] = -9
    g = Game()
    g.play({"seed": seed, "steps": {"founding": {"choices": f}}})
    for _ in range(6):
        p = g.play({"seed": f"{seed}-{g.turn}", "steps": {}})
        check_invariants(g.state)
        if g.state.fallen:  # A81: nothing but GM events afterwards
            assert g.play({"seed": "after", "steps": {}}).drafts == []
            break
        assert p.drafts[-1].type in ("aikakirjat.year_ended", "aikakirjat.session_ended")
    assert replay(RS, g.events).model_dump() == g.state.model_dump()
