"""What tests in several folders share: Debian's headless Chromium, driven by Playwright, and
hypothesis without a deadline."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

# Examples are judged by what they return, never by how fast: on two loaded cores one example
# of a 0.2 ms property took 274 ms and failed hypothesis's default 200 ms deadline.
settings.register_profile("simulacra", deadline=None)
settings.load_profile("simulacra")

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

# For the modules that drive the browser.
NEEDS_CHROMIUM = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)",
    ),
]


# Module scope: Playwright's sync API runs an event loop while the browser is open, and tests
# in other modules call asyncio.run.
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api", reason="needs playwright (dev extra)")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
