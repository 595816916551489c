"""The pf2e steps are named in words, as the book's Kingdom Turn heads its phases and steps ("Upkeep: Adjust Unrest"),
never by the spec's shorthand ("U2", "E2"); ``kingdomlog turn`` names a refused step by those words first and keeps
its id for the plan's author."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from clirun import run

from kingdomlog.rulesets.pf2e.decide import ALL_STEPS

REPO = Path(__file__).resolve().parents[2]
CODE = re.compile(r"\b[UCAE]\d\b")
"""The spec's step codes (U0..U4, C1..C4, A1..A5, E1..E4)."""


def test_every_step_title_is_its_phase_and_step_in_words() -> None:
    phases = {"upkeep": "Upkeep", "commerce": "Commerce", "activity": "Activity", "event": "Event"}
    for step in ALL_STEPS:
        assert not CODE.search(step.title), step.title
        if step.id != "founding":
            assert step.title.startswith(phases[step.id.split(".")[0]] + ": "), step.title


def test_a_refused_step_is_named_in_words_then_by_its_id(tmp_path: Path) -> None:
    folder = tmp_path / "stolen-lands"
    shutil.copytree(REPO / "campaigns" / "stolen-lands", folder, ignore=shutil.ignore_patterns(".cache"))
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"steps": {"upkeep.unrest": {"choices": {"lost_hex": "ZZ9"}}}}))
    rc, out, err = run("turn", str(folder), "--plan", str(plan), "--dry-run")
    assert rc == 1
    assert "Upkeep: Adjust Unrest (upkeep.unrest): refused" in out.splitlines(), out
    assert "    error: choice lost_hex: 'ZZ9' is not a claimed hex" in out, out
    assert re.match(r"kingdomlog: error: turn \d+ refused at Upkeep: Adjust Unrest \(upkeep\.unrest\): choice"
                    r" lost_hex: 'ZZ9'", err), err
    assert not CODE.search(out.replace("A1, A2, A3, A4", "")), out  # the hexes allowed are named A1..B5


def _catalog_ids() -> frozenset[str]:
    """pf2e's hyphenated ids (``collect-taxes``, ``printing-house``): each a thing with a title in words."""
    from kingdomlog.rulesets.pf2e import tables as T

    cat = T.catalog()
    return frozenset(k for table in (cat.activities, cat.events, cat.structures) for k in table if "-" in k)


def test_no_choice_help_or_activity_detail_says_a_catalog_id() -> None:
    """A field's help and an activity's detail say a thing by its title: "default: Collect Taxes" (it read
    "default: collect-taxes"), "needs a printing house" (it read "needs a printing-house")."""
    import inspect

    from kingdomlog.app import Campaign
    from kingdomlog.core.choices import Choices
    from kingdomlog.rulesets.pf2e import choices as C
    from kingdomlog.rulesets.pf2e import tables as T

    ids = _catalog_ids()
    said = re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, sorted(ids, key=len, reverse=True))) + r")(?![\w-])")
    helps = [f"{model.__name__}.{name}: {field.description}"
             for _, model in inspect.getmembers(C, inspect.isclass) if issubclass(model, Choices)
             for name, field in model.model_fields.items() if field.description and said.search(field.description)]
    assert helps == []
    state = Campaign.open(REPO / "campaigns" / "stolen-lands").state()
    details = [(a.name, C._activity_detail(state, a)) for a in T.catalog().activities.values()]
    assert [d for d in details if said.search(d[1])] == []
    assert ("read-all-about-it", "needs a printing house") in details  # a structure's lock, by its title
