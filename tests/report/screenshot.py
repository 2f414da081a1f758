"""A 1440 x 900 screenshot of a page in headless Chromium, for live_screenshot.py. The docs'
pictures of the replay viewer are made from the shipped scenarios by
scripts/doc_pictures.py, not from these tests' hand-made runs. Needs /usr/bin/chromium.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright
from tests.conftest import CHROMIUM, CHROMIUM_ARGS


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
