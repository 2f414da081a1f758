"""What tests in several folders share: Debian's headless Chromium, driven by Playwright,
hypothesis without a deadline, and how `make test` shares the tests between two workers."""

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

# Test files that one xdist worker runs together: the folder whose conftest makes one run for
# the session (tests/evaluate), and the two modules that start a local Ray head, which must not
# start two at once.
TOGETHER = {
    "tests/evaluate/": "evaluate",
    "tests/commute/test_sweep.py": "ray",
    "tests/commute/test_sweep_recovery.py": "ray",
}

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


def work_unit(nodeid: str) -> str:
    """The part of the suite one worker runs whole: a test's file, or its TOGETHER group."""
    path = nodeid.split("::", 1)[0]
    return next((group for prefix, group in TOGETHER.items() if path.startswith(prefix)), path)


# pytest-xdist's own hook (make test: `pytest -n 2 --dist loadfile`): loadfile keeps a file's
# tests on one worker, so its module-scoped runs are made once; this adds TOGETHER. (Its
# loadgroup would do the same from marks, but pytest 9 keeps no `_nodeid` for it to tag.)
@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByWorkUnit(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    return ByWorkUnit(config, log)
