"""The contract every ruleset's extras keep (``kingdomlog.views.extras``), run over each bundled demo.

For each demo campaign, what its ruleset's extras declare works on it: each GM sheet panel draws (no error in
the fragment), each page opens the campaign (``check``) and its notebook runs to the end with the campaign as
``folder``, each command runs as ``kingdomlog NAME DIR --json`` and writes nothing, and each field the orders
sheet hides is a field of some player step (a renamed field would otherwise be shown again, silently).
"""

from __future__ import annotations

import io
import json
import shutil
import tomllib
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from nb_support import REPO, load_notebook

from kingdomlog.app import Campaign
from kingdomlog.cli import main
from kingdomlog.views.extras import MANIFEST, NONE, extras_for

DEMOS = {tomllib.loads((d / "campaign.toml").read_text(encoding="utf-8"))["ruleset"]: d
         for d in sorted((REPO / "campaigns").iterdir()) if (d / "campaign.toml").is_file()}


@pytest.fixture(params=sorted(DEMOS), ids=str)
def demo(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, Path]:
    """(ruleset id, a copy of its demo campaign without the derived cache)."""
    rid = request.param
    folder = tmp_path / DEMOS[rid].name
    shutil.copytree(DEMOS[rid], folder, ignore=shutil.ignore_patterns(".cache", "plans", "*.py"))
    return rid, folder


def test_every_bundled_ruleset_has_a_demo() -> None:
    assert sorted(DEMOS) == ["aikakirjat", "pf1-kingmaker", "pf2e-kingmaker", "signoria"]
    assert set(MANIFEST) <= set(DEMOS)


def test_a_ruleset_without_extras_gets_none() -> None:
    assert extras_for("toy") is NONE and extras_for("no-such-ruleset") is NONE
    pf1 = extras_for("pf1-kingmaker")  # only the naming of what a Foundry import left unnamed
    assert [a.name for a in pf1.actions] == ["name-from-foundry"] and not (pf1.panels or pf1.pages or pf1.commands)


def test_each_panel_draws_for_the_demo(demo: tuple[str, Path]) -> None:
    rid, folder = demo
    for panel in extras_for(rid).panels:
        html = panel.html(folder, "contract-seed")
        assert html.strip() and "kl-error" not in html, f"{rid}: {panel.title}: {html[:300]}"
        assert html == panel.html(folder, "contract-seed"), "the same draft seed draws the same panel"


def test_each_page_opens_the_demo_and_its_notebook_runs(demo: tuple[str, Path]) -> None:
    rid, folder = demo
    for page in extras_for(rid).pages:
        page.check(folder)
        assert (REPO / "notebooks" / f"{page.notebook}.py").is_file()
        head = Campaign.open(folder).head_seq
        _, defs = load_notebook(page.notebook).app.run(defs={"folder": folder})
        assert defs.get("start") is not None, f"{rid}: the {page.name} page did not open the campaign"
        assert Campaign.open(folder).head_seq == head, "opening a page writes nothing"


def test_each_command_runs_on_the_demo_and_writes_nothing(demo: tuple[str, Path]) -> None:
    rid, folder = demo
    for command in extras_for(rid).commands:
        head = Campaign.open(folder).head_seq
        out = io.StringIO()
        with redirect_stdout(out):
            code = main([command.name, str(folder), "--json", "--seed", "contract"])
        assert code == 0
        assert isinstance(json.loads(out.getvalue()), dict)
        assert Campaign.open(folder).head_seq == head


def test_each_hidden_orders_field_is_a_field_of_a_player_step(demo: tuple[str, Path]) -> None:
    rid, folder = demo
    hidden = extras_for(rid).orders_hidden
    if not hidden:
        return
    camp = Campaign.open(folder)
    state, turn = camp.state(), camp.next_turn()
    names: set[str] = set()

    def walk(fields: object) -> None:
        for f in fields:  # type: ignore[attr-defined]
            names.add(f.name)
            walk(f.fields or ())

    for player in camp.players():
        for sid in camp.player_steps(camp.viewer(player)):
            walk(camp.ruleset.choices(state, turn, sid))
    assert set(hidden) <= names, f"{rid}: hidden fields no step has: {sorted(set(hidden) - names)}"


def test_a_command_of_another_ruleset_is_refused_in_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "stolen-lands"
    shutil.copytree(DEMOS["pf2e-kingmaker"], folder, ignore=shutil.ignore_patterns(".cache", "plans"))
    assert main(["session", str(folder), "--json"]) == 1
    err = capsys.readouterr().err
    assert "plans no growth sessions" in err and "aikakirjat" in err and "Traceback" not in err


def test_the_server_mounts_each_gm_page_of_the_extras(demo: tuple[str, Path]) -> None:
    from kingdomlog.server import pages

    rid, folder = demo
    served = {p.path: p for p in pages(folder, Campaign.open(folder))}
    for page in extras_for(rid).pages:
        mounted = served[f"/gm-{page.name}"]
        assert (mounted.notebook, mounted.owner, mounted.title) == (page.notebook, "gm", page.title)
    assert sorted(p for p in served if p.startswith("/gm-")) == sorted(f"/gm-{p.name}" for p in extras_for(rid).pages)
