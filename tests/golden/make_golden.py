"""Write the golden copies of every demo campaign's ``state --json`` at every turn, for every viewer.

Run once from the repository root (``python tests/golden/make_golden.py``) with the code whose
output is the reference; ``tests/golden/test_golden.py`` then checks that today's code prints the
same documents. The files are gzip-compressed JSON: ``{viewer: {turn: document}}``.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).resolve().parent
DEMOS = ("stolen-lands", "river-kingdom", "aikakirjat-demo", "felmonte")


def state_doc(folder: Path, turn: int, viewer: str) -> dict:
    from kingdomlog.cli import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = main(["state", str(folder), "--turn", str(turn), "--json", "--as", viewer, "--no-cache"])
    assert rc == 0, (folder, turn, viewer)
    return json.loads(buf.getvalue())


def viewers_of(folder: Path) -> list[str]:
    import tomllib

    cfg = tomllib.loads((folder / "campaign.toml").read_text())
    return ["gm", "public", *[v["id"] for v in cfg.get("viewers", [])]]


def turns_of(folder: Path) -> list[int]:
    from kingdomlog.app import Campaign

    camp = Campaign.open(folder)
    return sorted({ev.turn for ev in camp.events()})


def golden(slug: str) -> dict[str, dict[str, dict]]:
    folder = ROOT / "campaigns" / slug
    return {v: {str(t): state_doc(folder, t, v) for t in turns_of(folder)} for v in viewers_of(folder)}


def main() -> int:
    for slug in DEMOS:
        doc = golden(slug)
        (OUT / f"{slug}.json.gz").write_bytes(
            gzip.compress(json.dumps(doc, sort_keys=True).encode(), mtime=0))
        print(slug, {v: len(t) for v, t in doc.items()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
