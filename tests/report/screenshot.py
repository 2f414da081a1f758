"""Screenshot the viewer for the README: `python -m tests.report.screenshot [RUN] [OUT] [HASH]`.

Without RUN it draws the hand-made town run of these tests. Needs /usr/bin/chromium.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright
from tests.conftest import CHROMIUM, CHROMIUM_ARGS

from simulacra.report import build_outputs, serve_run

from .conftest import write_town_run


def screenshot(run: Path, out: Path, where: str = "#step=7&agent=ada") -> None:
    build_outputs(run)
    server, url = serve_run(run)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            page.goto(url + where)
            page.wait_for_load_state("load")
            out.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(out))
            browser.close()
    finally:
        server.shutdown()
        server.server_close()


if __name__ == "__main__":
    args = sys.argv[1:]
    with tempfile.TemporaryDirectory() as scratch:
        run = Path(args[0]) if args and args[0] else write_town_run(Path(scratch) / "run")
        target = Path(args[1]) if len(args) > 1 else Path("docs/viewer.png")
        screenshot(run, target, *args[2:3])
        sys.stderr.write(f"wrote {target}\n")
