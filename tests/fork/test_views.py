"""A fork's family in its report and viewer, in headless Chromium: the tree of runs, where
the fork first parts from its parent, the figures over time of both branches, the two
branches side by side from the fork point, and the fork point and first difference marked on
the viewer's time scrubber."""

from pathlib import Path
from typing import Any

import pytest
from tests.conftest import NEEDS_CHROMIUM
from tests.engine.test_conformance import SCENARIOS, SHIPPED, small

from simulacra.experiments import fork, load_scenario, run
from simulacra.report import build_outputs
from simulacra.runlog import read_events

pytestmark = NEEDS_CHROMIUM


# Made before the browser starts: Playwright's sync API runs an event loop, the runs too.
@pytest.fixture(scope="module")
def family(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("family")
    name = SHIPPED["town"]
    parent = run(load_scenario(SCENARIOS / f"{name}.yaml", small(name, root)), progress=False)
    (start,) = read_events(parent.events_path, {"run"})
    agent = next(iter(start.data["agents"]))
    thought = {"at": "07:30", "type": "thought", "agent": agent, "text": "I will leave town."}
    (child,) = fork(parent.path, at="07:30", interventions=[thought], progress=False)
    build_outputs(parent.path)
    build_outputs(child.path)
    return parent.path, child.path


def test_the_fork_report_shows_its_family_and_where_it_parts(
    family: tuple[Path, Path], browser: Any
) -> None:
    parent, child = family
    page = browser.new_page()
    page.goto((child / "report.html").as_uri())
    tree = page.locator("#family ul.family-tree")
    assert tree.locator("a").first.inner_text() == parent.name
    assert tree.locator("[aria-current=page]").inner_text() == child.name
    assert "thought at" in tree.inner_text()
    assert "intervention" in page.locator("#family .first-difference").inner_text()
    assert page.locator("#family table.branch-figures tbody tr").count() > 0
    assert page.locator("#family figure.plot img").count() == 1
    # Side by side from the fork point: the first row that differs is marked, and only one.
    marked = page.locator("#family table.branches tr.first-difference-row")
    assert marked.count() == 1 and "intervention" in marked.locator("td").nth(1).inner_text()
    # The link to the parent opens the parent's report, which now lists the child.
    tree.locator("a").first.click()
    page.wait_for_load_state("load")
    assert page.locator("#family ul.family-tree a").first.inner_text() == child.name
    page.close()


def test_the_fork_viewer_marks_the_fork_point_and_the_first_difference(
    family: tuple[Path, Path], browser: Any
) -> None:
    parent, child = family
    page = browser.new_page()
    page.goto((child / "viewer.html").as_uri())
    page.wait_for_load_state("load")
    marks = page.locator("datalist#branch-marks option")
    assert [marks.nth(i).get_attribute("label") for i in range(marks.count())] == [
        "fork point",
        "first difference",
    ]
    assert page.locator("#scrubber").get_attribute("list") == "branch-marks"
    page.locator("nav#family ul.branch-marks a").first.click()
    frame = int(marks.nth(0).get_attribute("value") or -1)
    page.wait_for_function(f"document.getElementById('scrubber').value === '{frame}'")
    assert "07:30" in page.locator("#clock").inner_text()
    assert page.locator("nav#family a").first.inner_text() == parent.name
    page.close()
