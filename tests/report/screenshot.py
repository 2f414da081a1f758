"""Screenshot the viewer for the README: `python -m tests.report.screenshot [RUN] [OUT] [HASH]`.

Without RUN it draws the hand-made town run of these tests. Needs /usr/bin/chromium.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright
from tests.conftest import CHROMIUM, CHROMIUM_ARGS

from simulacra.report import build_outputs, serve_run

from .conftest import write_town_run


def screenshot(run: Path, out: Path, where: str = "#step=7&agent=ada") -> None:
    build_outputs(run)
    server, url = serve_run(run)
    try:
        capture(url + where, out)
    finally:
        server.shutdown()
        server.server_close()


def capture(url: str, out: Path, ready: Callable[[Any], None] | None = None) -> None:
    """A 1440 x 900 screenshot of `url` once it has loaded and `ready(page)` has returned."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.goto(url)
        page.wait_for_load_state("load")
        if ready is not None:
            ready(page)
        out.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(out))
        browser.close()


if __name__ == "__main__":
    args = sys.argv[1:]
    with tempfile.TemporaryDirectory() as scratch:
        run = Path(args[0]) if args and args[0] else write_town_run(Path(scratch) / "run")
        target = Path(args[1]) if len(args) > 1 else Path("docs/viewer.png")
        screenshot(run, target, *args[2:3])
        sys.stderr.write(f"wrote {target}\n")
