"""A Playwright page for the viewer tests (the browser itself: tests/conftest.py)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


class Page:
    """A page that records console errors, page errors and every request it makes."""

    def __init__(self, browser: Any) -> None:
        self.page = browser.new_page(viewport={"width": 1400, "height": 860})
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))

    def open(self, url: str) -> Any:
        self.page.goto(url)
        self.page.wait_for_load_state("load")
        return self.page


def artifacts(tmp_path: Path) -> Path:
    """Where screenshots are kept: `SIMULACRA_ARTIFACTS`, else the test's temporary folder."""
    root = Path(os.environ.get("SIMULACRA_ARTIFACTS") or tmp_path) / "screenshots"
    root.mkdir(parents=True, exist_ok=True)
    return root
