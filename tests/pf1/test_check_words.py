"""Issue 29: a pf1 check whose roll key holds an id of the state (a foreign kingdom, an army, a building) names it
by its name in the state, never by the id ("Loyalty check to attack varn" read the foreign kingdom's id)."""
from __future__ import annotations

import pytest

from kingdomlog.app.campaign import Campaign
from kingdomlog.rulesets.pf1.helpers import check_label


@pytest.fixture(scope="module")
def state():  # type: ignore[no-untyped-def]
    return Campaign.open("campaigns/river-kingdom").state()


@pytest.mark.parametrize(("key", "words"), [
    ("attack_brevoy", "Loyalty check to attack Brevoy"),
    ("subjugation_mivon", "Loyalty check to hold Mivon subjugated"),
    ("rally_A2", "Loyalty check to rally Tatzlford Guard"),
    ("reactivate_B2", "Loyalty check to reactivate the Brewery in Tatzlford"),
    ("town_h1", "Loyalty check to annex the town on hex h1"),
])
def test_a_checks_key_is_said_by_the_names_the_state_gives(state, key: str, words: str) -> None:  # type: ignore[no-untyped-def]
    assert check_label("LOYALTY", key, state=state) == words


def test_an_id_the_state_does_not_hold_is_said_with_what_it_is() -> None:
    assert check_label("LOYALTY", "reactivate_B9") == "Loyalty check to reactivate building B9"
    assert check_label("LOYALTY", "attack_east_march") == "Loyalty check to attack east march"
