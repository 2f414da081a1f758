"""Every world kind's report and viewer in a real headless Chromium, at a wide and a narrow
window: each tells its own world's story and none the town's. The screenshots are kept in
the test's artifacts (`SIMULACRA_ARTIFACTS`, else the test's temporary folder)."""

from __future__ import annotations

import os
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import NEEDS_CHROMIUM
from tests.engine.test_conformance import SCENARIOS, SHIPPED, small

from simulacra.experiments import load_scenario, run
from simulacra.experiments.kinds import BINDINGS
from simulacra.report import world_report
from simulacra.runlog import read_events

pytestmark = NEEDS_CHROMIUM
SIZES = ((1440, 900), (800, 1000))


def _artifacts(tmp_path: Path) -> Path:
    root = Path(os.environ.get("SIMULACRA_ARTIFACTS") or tmp_path) / "screenshots"
    root.mkdir(parents=True, exist_ok=True)
    return root


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    """Each world's small run with its report, and its first agent. Made before the browser
    opens: Playwright's sync API holds an event loop, and a run calls asyncio.run."""
    found = {}
    for kind in sorted(BINDINGS):
        if kind == "embodied" and not all(find_spec(m) for m in ("pxr", "pyvista")):
            continue
        root = tmp_path_factory.mktemp(kind)
        settings = [s for s in small(SHIPPED[kind], root) if s != "output.report=false"]
        scenario = load_scenario(SCENARIOS / f"{SHIPPED[kind]}.yaml", settings)
        done = run(scenario, progress=False)
        found[kind] = (done.path, BINDINGS[kind].roster(scenario)[0])
    return found


@pytest.mark.parametrize("kind", sorted(BINDINGS))
def test_each_world_report_and_viewer_tell_its_own_story(
    kind: str, runs: dict[str, tuple[Path, str]], browser: Any, tmp_path: Path
) -> None:
    if kind not in runs:
        pytest.skip("the embodied world needs the 3d extra (usd-core and pyvista)")
    path, first = runs[kind]
    own = world_report(kind)
    shots = _artifacts(tmp_path)
    for width, height in SIZES:
        page = browser.new_page(viewport={"width": width, "height": height})
        errors: list[str] = []
        page.on("pageerror", lambda e, seen=errors: seen.append(str(e)))
        page.on(
            "console", lambda m, seen=errors: seen.append(m.text) if m.type == "error" else None
        )
        try:
            page.goto((path / "report.html").as_uri())
            headings = page.locator("section h2").all_inner_texts()
            assert ("Each agent's day" in headings) is own.timeline
            assert "Conversations per pair" not in headings or own.conversations
            # No section overflows the page sideways (a plot or table cut off at the right).
            wide = page.evaluate("document.documentElement.scrollWidth")
            assert wide <= width + 1, f"{kind}: the report is {wide} px wide in a {width} px window"
            page.screenshot(path=str(shots / f"{kind}-report-{width}.png"), full_page=True)

            page.goto((path / "viewer.html").as_uri() + f"#step=1&agent={first}")
            page.wait_for_timeout(200)
            panel = page.inner_text("#panel")
            assert first in panel
            # A run whose minds logged no memory shows no memory panel (the grid's bounded
            # notes, the embodied agent, El Farol's weeks).
            logged = any(read_events(path / "events.jsonl", {"memory.add"}))
            assert ("Memory stream" in panel) is logged, f"{kind}: memory panel {logged=}"
            page.screenshot(path=str(shots / f"{kind}-viewer-{width}.png"))
            assert errors == [], errors
        finally:
            page.close()
    assert len(list(shots.glob(f"{kind}-*.png"))) == 2 * len(SIZES)
