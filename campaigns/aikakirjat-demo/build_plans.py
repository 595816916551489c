"""Write the demo's plans: the founding of Pohjola and one growth session (5d10 = 16 years).

Each year's plan comes from the session planner (``kingdomlog.rulesets.aikakirjat.session.plan_session``)
with the ``simple`` policy (every choice is the step's default) unless the GM's overrides below change it:
the demo was written before the steward policy, and its log records what the simple policy chose.
Dice are keyed by the plan seeds; the few dice the story needs are typed in.

    .venv/bin/python campaigns/aikakirjat-demo/build_plans.py          # write plans/
    .venv/bin/python campaigns/aikakirjat-demo/build_plans.py --log    # and replay them into a fresh log/

``--log`` plays every plan through ``Campaign.play`` (as ``kingdomlog turn --plan`` does)
in a new campaign with this folder's ``campaign.toml`` and replaces ``log/`` with its log.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import tomllib
from pathlib import Path

from kingdomlog.app import Campaign
from kingdomlog.core.fold import default_context
from kingdomlog.core.turn import Plan, preview_turn
from kingdomlog.rulesets.aikakirjat import RULESET
from kingdomlog.rulesets.aikakirjat.policy import SIMPLE
from kingdomlog.rulesets.aikakirjat.samples import sample_founding
from kingdomlog.rulesets.aikakirjat.session import plan_session

CAMPAIGN = "aikakirjat-demo"
HERE = Path(__file__).resolve().parent
POLICY = SIMPLE

OVERRIDES = {
    # Year 1: the session's 5d10 (typed in: 16 years); the PCs found an academy between adventures (+2 fame).
    1: {"start": {"rolls": {"years": [3, 3, 3, 3, 4]},
                  "choices": {"gm_events": [{"event": "institution_founded", "institution_id": "academy-sampo",
                                             "kind": "academy"}]}}},
    # Year 2: research at the new academy.
    2: {"actions": {"choices": {"actions": [{"action": "research", "institution_id": "academy-sampo"}]}}},
    # Year 4: war on Tuonela with a casus belli (advantage); the speech goes badly (3 and 4: tyranny).
    4: {"actions": {"choices": {"actions": [{"action": "declare_war", "neighbour_id": "tuonela",
                                             "casus_belli": True}]},
                    "rolls": {"a1.check": [3, 4]}}},
    # Year 8: level 2 reached this year; its feat is Law and Order.
    8: {"end": {"choices": {"benefits": [{"level": 2, "benefit": "feat", "feat": "law_and_order"}]}}},
    # Year 14: a natural disaster (+6 Unrest) and Ilmari's heavy hand (+5) push Unrest to 20: the revolution
    # roll (typed: 3 + 5 = 8) brings a Republic.
    14: {"events": {"rolls": {"event": [1, 1], "disaster.unrest": [6]}},
         "actions": {"choices": {"actions": [{"action": "reduce_unrest", "performer": "pc", "pc_id": "ilmari",
                                              "pc_bonus": 2, "skill": "intimidation"}]},
                     "rolls": {"a1.check": [1], "a1.unrest": [5], "rev1.roll": [3, 5]}}},
}


def main() -> None:
    ctx = default_context(RULESET, CAMPAIGN)
    founding = Plan.parse({"turn": 0, "seed": f"{CAMPAIGN}-0", "steps": {"founding": {"choices": sample_founding()}}})
    p = preview_turn(RULESET, RULESET.initial_state(ctx), founding, campaign=CAMPAIGN, turn=0, start_seq=0)
    if not p.ok:
        raise SystemExit(p.error)
    out = HERE / "plans"
    out.mkdir(exist_ok=True)
    (out / "turn-00.json").write_text(founding.to_json() + "\n", encoding="utf-8")
    session = plan_session(p.state_after, campaign=CAMPAIGN, first_turn=1, seed=CAMPAIGN, policy=POLICY,
                           overrides=OVERRIDES)
    for year in session.years:
        (out / f"turn-{year.turn:02d}.json").write_text(year.plan.to_json() + "\n", encoding="utf-8")
        print(year.turn, RULESET.render(year.state_after))
    (out / "expected-final-state.json").write_text(
        json.dumps(RULESET.summary(year.state_after), indent=2, sort_keys=True) + "\n", encoding="utf-8")


def rebuild_log() -> None:
    """Replay ``plans/turn-*.json`` into a new campaign and replace ``log/`` with its log."""
    cfg = tomllib.loads((HERE / "campaign.toml").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        camp = Campaign.create(Path(tmp) / CAMPAIGN, cfg["ruleset"], name=cfg["name"], options=cfg["options"],
                               campaign_id=cfg["id"])
        for path in sorted((HERE / "plans").glob("turn-*.json")):
            camp.play(Plan.parse(path.read_text(encoding="utf-8"), source=path.name))
        shutil.rmtree(HERE / "log")
        shutil.copytree(camp.folder / "log", HERE / "log")
        print(f"log: {camp.head_seq} events")


if __name__ == "__main__":
    main()
    if "--log" in sys.argv[1:]:
        rebuild_log()
