"""House rules (§5.17 options) and campaign-local homebrew data, validated with file and entry names."""

from __future__ import annotations

import pytest

from kingdomlog.core.errors import InputError
from kingdomlog.core.ruleset import validate_options

from .helpers import RS, Game

BREWERY = {
    "structure": [{
        "name": "cider-press", "title": "Cider Press", "level": 1, "lots": 1, "cost_rp": 6, "cost": {"lumber": 1},
        "skills": ["trade"], "dc": 15, "storage": {"luxuries": 2},
        "item_bonuses": {"activity:craft-luxuries": 1},
    }],
    "activity": [{
        "name": "hold-a-fair", "category": "leadership", "skills": ["arts"],
        "outcomes": {"success": [{"kind": "unrest", "amount": -1}], "failure": []},
    }],
}


def test_homebrew_structure_and_activity_play() -> None:
    """A custom structure is built with its own numbers; a custom activity's outcome is data."""
    g = Game(data={"my-brews": BREWERY}).found(resume={"turn": 1, "unrest": 3})
    pv = g.play({
        "upkeep.resources": {"rolls": {"resource": [4, 4, 4, 4, 4]}},
        "commerce.taxes": {"choices": {"mode": "none"}},
        "activity.leadership": {"choices": {"activities": [{"activity": "hold-a-fair", "role": "counselor"}]},
                                "rolls": {"a1": [15]}},
        "activity.civic": {"choices": {"activities": [{"activity": "build-structure", "structure": "cider-press"}]},
                           "rolls": {"a1": [15]}},
    })
    s = pv.state_after
    assert s.storage["luxuries"] == 6 and s.unrest == 2
    assert s.rp == 0 and "cider-press" in [b.name for b in s.settlements[0].structures]
    from kingdomlog.rulesets.pf2e.state import check_modifier

    arts = check_modifier(s, "arts", activity="craft-luxuries", category="leadership")
    assert ("cider-press (Oakhold)", 1, "item") in [(t.label, t.value, t.kind) for t in arts.terms]


def test_homebrew_errors_name_file_and_entry() -> None:
    bad = {"structure": [{"name": "tower", "level": 1, "lots": 9, "cost_rp": 1, "skills": ["arts"], "dc": 15}]}
    with pytest.raises(InputError, match=r"homebrew file castles.*'tower'.*lots"):
        Game(data={"castles": bad})
    with pytest.raises(InputError, match=r"homebrew file feats2: unknown section"):
        Game(data={"feats2": {"feets": []}})
    with pytest.raises(InputError, match=r"'granary' already exists"):
        Game(data={"x": {"structure": [{"name": "granary", "level": 1, "lots": 1, "cost_rp": 1,
                                        "skills": ["agriculture"], "dc": 15}]}})
    with pytest.raises(InputError, match=r"unknown skill 'juggling'"):
        Game(data={"x": {"activity": [{"name": "juggle", "category": "leadership", "skills": ["juggling"]}]}})


def test_options_are_validated() -> None:
    opts = validate_options(RS.options, {"anarchy_threshold": "24", "ruin_overflow_mode": "reset_to_zero"})
    assert opts["anarchy_threshold"] == 24 and opts["unrest_cap"] == 0
    with pytest.raises(InputError):
        validate_options(RS.options, {"ruin_overflow_mode": "explode"})


def test_anarchy_threshold_option() -> None:
    """§5.4: option anarchy_threshold (e.g. raised by a feat): Unrest 22 is not anarchy at 24."""
    assert Game().found(resume={"turn": 1, "unrest": 22}).state.anarchy
    assert not Game(options={"anarchy_threshold": 24}).found(resume={"turn": 1, "unrest": 22}).state.anarchy


def test_leadership_activities_without_seat_option() -> None:
    """§5.8 option: 3 Leadership activities per PC leader even without a seat."""
    steps = {"activity.leadership": {"choices": {"activities": [
        {"activity": "quell-unrest", "role": "ruler", "skill": "politics"},
        {"activity": "create-a-masterpiece", "role": "ruler"},
        {"activity": "craft-luxuries", "role": "ruler"}]}}}
    assert not Game().found().play(steps, check=False).ok
    assert Game(options={"leadership_activities_without_seat": 3}).found().play(steps, check=False).ok


def test_the_bundled_catalogue_is_found_without_encoding_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """pf2e's names of ids ask for the catalogue thousands of times a sheet's page, without homebrew: that is the
    bundled one, found without JSON-encoding an empty key each time (~11 ms of CPU per 6,754 asks, measured); with
    homebrew the key is the homebrew's, and its rows are there."""
    from kingdomlog.rulesets.pf2e import tables as T

    bundled = T.catalog()
    encoded: list[object] = []
    real = T.json.dumps
    monkeypatch.setattr(T.json, "dumps", lambda *a, **k: encoded.append(a[0]) or real(*a, **k))
    assert T.catalog(None) is bundled and T.catalog({}) is bundled
    assert encoded == []
    brewed = T.catalog({"my-brews": BREWERY})
    assert encoded == [{"my-brews": BREWERY}]
    assert "cider-press" in brewed.structures and "cider-press" not in bundled.structures
