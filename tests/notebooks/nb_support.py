"""Helpers for the notebook tests: campaigns (toy ruleset, and the pf2e demo once it exists), notebook loading."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
TESTS = REPO / "tests"
DEMO = REPO / "campaigns" / "stolen-lands"
SECRET = "SECRET-PLUM-7731"
"""Text of a GM-only note planted in every test campaign; no player view may contain it."""


def load_notebook(name: str) -> ModuleType:
    """Import ``notebooks/<name>.py`` as a module (its ``app`` is what the tests run)."""
    path = NOTEBOOKS / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"kl_notebook_{name}", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def make_toy_campaign(folder: Path) -> Path:
    """A toy-farm campaign: founding, one turn (with a GM-only stash event), a GM-only note."""
    import toyrules

    from kingdomlog.core.turn import Plan
    from kingdomlog.store import Campaign

    camp = Campaign.create(folder, "toy-farm", name="Farm", viewers=["alice"])
    for plan in toyrules.TOY.sample_plans()[:2]:
        camp.play(Plan.parse(plan))
    camp.note(f"the GM hides {SECRET} in the barn", visibility="gm", title="gm only")
    camp.note("market day was sunny", visibility="public", title="public note")
    return folder


def copy_demo(folder: Path) -> Path:
    """A copy of the bundled demo campaign (without its derived cache) with the planted GM note."""
    from kingdomlog.store import Campaign

    shutil.copytree(DEMO, folder, ignore=shutil.ignore_patterns(".cache"))
    Campaign.open(folder).note(f"the GM hides {SECRET} in the vault", visibility="gm", title="gm only")
    return folder


def campaign_kinds() -> list[str]:
    """``toy`` always; ``demo`` when campaigns/stolen-lands exists."""
    return ["toy", "demo"] if (DEMO / "campaign.toml").is_file() else ["toy"]


