"""Regenerate the screenshots of docs/player-views.md: `python docs/screenshots.py` (needs /usr/bin/chromium).

For each bundled demo: the offline player page (`kingdomlog share -o`) at 390 px and 1280 px, the map section
at 1280 px, and the report's map image (`kingdomlog report`), all written to docs/img/.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from kingdomlog.views.player import page as player
from kingdomlog.views.player.report import write_report

ROOT = Path(__file__).resolve().parents[1]
IMG = ROOT / "docs" / "img"
DEMOS = {"stolen-lands": "public", "river-kingdom": "public", "aikakirjat-demo": "public", "felmonte": "fabian"}


def main() -> None:
    IMG.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", args=[
            "--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
            "--disable-dev-shm-usage"])
        for demo, viewer in DEMOS.items():
            folder = ROOT / "campaigns" / demo
            page_file = Path(tmp) / f"{demo}.html"
            page_file.write_text(player.render_static(folder, viewer), encoding="utf-8")
            for width, height in ((390, 2200), (1280, 1500)):
                ctx = b.new_context(viewport={"width": width, "height": height}, offline=True)
                page = ctx.new_page()
                page.goto(page_file.as_uri())
                page.screenshot(path=str(IMG / f"player-{demo}-{width}.png"))
                if width == 1280:
                    page.locator("#map").screenshot(path=str(IMG / f"map-{demo}.png"))
                    page.locator("#chronicle").screenshot(path=str(IMG / f"chronicle-{demo}.png"))
                ctx.close()
            for path in write_report(folder, viewer, fmt="md", output=Path(tmp) / f"{demo}.md"):
                if path.suffix == ".png":
                    (IMG / f"report-map-{demo}.png").write_bytes(path.read_bytes())
        b.close()


if __name__ == "__main__":
    main()
