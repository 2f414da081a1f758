"""Screenshot the live viewer following a run for the docs:
`python -m tests.report.live_screenshot [OUT]` (default docs/live-view.png).

A real town run on the scripted model plays six ticks and waits; the screenshot is taken
while it waits, with an agent selected. Needs /usr/bin/chromium.
"""

from __future__ import annotations

import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from simulacra.report import serve_run

from .screenshot import capture
from .test_live_view import TICKS, PacedRun

PLAYED = 6


def screenshot(out: Path) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        paced = PacedRun(Path(scratch))
        paced.start()
        paced.allow(PLAYED - 1)
        while len(paced.played) < PLAYED and not paced.failure:
            threading.Event().wait(0.1)
        server, url = serve_run(paced.path, live=True)
        try:
            capture(url + "#agent=marta_okafor", out, _waiting)
        finally:
            server.shutdown()
            server.server_close()
            paced.allow(TICKS)
            paced.thread.join(timeout=120)


def _waiting(page: Any) -> None:
    expect(page.locator("#live")).to_contain_text("following")
    page.wait_for_timeout(6000)  # long enough for "waiting for the next tick"


if __name__ == "__main__":
    screenshot(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/live-view.png"))
