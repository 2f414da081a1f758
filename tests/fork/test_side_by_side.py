"""The viewer's side-by-side mode: another run of the family, picked in the tree, shown by
its own viewer beside this one from the step where the two part, held at this page's step
by this page's scrubber; the other branch's agent text stays text."""

import posixpath
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import pytest
from playwright.sync_api import expect
from tests.conftest import NEEDS_CHROMIUM
from tests.engine.test_conformance import SCENARIOS, SHIPPED, small

from simulacra.experiments import fork, load_scenario, run
from simulacra.report import build_outputs
from simulacra.report.serve import serve_run
from simulacra.runlog import read_events

pytestmark = NEEDS_CHROMIUM

HOSTILE = 'I leave town <img src=x onerror="document.title=\'owned\'"><b id="bold">x</b>'


# Made before the browser starts: Playwright's sync API runs an event loop, the runs too.
@pytest.fixture(scope="module")
def family(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    root = tmp_path_factory.mktemp("side")
    name = SHIPPED["town"]
    parent = run(load_scenario(SCENARIOS / f"{name}.yaml", small(name, root)), progress=False)
    (start,) = read_events(parent.events_path, {"run"})
    agents = list(start.data["agents"])[:2]
    said = {"at": "07:30", "type": "conversation", "agents": agents, "text": HOSTILE}
    (child,) = fork(parent.path, at="07:30", interventions=[said], progress=False)
    (sibling,) = fork(parent.path, at="07:40", progress=False)
    for path in (parent.path, child.path, sibling.path):
        build_outputs(path)
    return parent.path, child.path, sibling.path


def test_a_fork_shown_beside_its_parent_follows_the_scrubber_from_the_fork_point(
    family: tuple[Path, Path, Path], browser: Any
) -> None:
    parent, child, _ = family
    page = browser.new_page(viewport={"width": 1400, "height": 860})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto((child / "viewer.html").as_uri() + "#step=0")
    page.wait_for_load_state("load")
    button = page.locator(f'nav#family button.side-by-side[data-name="{parent.name}"]')
    fork_mark = page.locator("nav#family ul.branch-marks a").first.get_attribute("href")
    assert fork_mark == f"#step={button.get_attribute('data-from')}"
    button.click()
    side = page.frame_locator("#side iframe")
    # Both start at the fork point (the child's first mark), the other's controls hidden.
    page.wait_for_function("location.hash.startsWith('#step=')")
    step = int(page.evaluate("location.hash").split("=")[1])
    assert step == int(button.get_attribute("data-from") or -1) > 0
    expect(side.locator("#clock")).to_have_text(page.locator("#clock").inner_text())
    assert not side.locator("footer#controls").is_visible()
    assert "beside: " + parent.name in page.locator("#side h2").inner_text()
    # One scrubber moves both.
    page.locator("#step-forward").click()
    page.locator("#step-forward").click()
    here = page.locator("#clock").inner_text()
    assert f"step {step + 2}" in here
    expect(side.locator("#clock")).to_have_text(here)
    page.locator("#side > button").click()
    assert page.locator("#side").count() == 0
    assert not errors
    page.close()


def test_the_parent_shows_a_child_beside_it_and_its_agent_text_stays_text(
    family: tuple[Path, Path, Path], browser: Any
) -> None:
    parent, child, sibling = family
    page = browser.new_page(viewport={"width": 1400, "height": 860})
    page.goto((parent / "viewer.html").as_uri())
    page.wait_for_load_state("load")
    froms = {
        b.get_attribute("data-name"): b.get_attribute("data-from")
        for b in page.locator("nav#family button.side-by-side").all()
    }
    assert froms[child.name] != froms[sibling.name]  # each parts where it was forked
    page.locator(f'button.side-by-side[data-name="{child.name}"]').click()
    side = page.frame_locator("#side iframe")
    # The child's change at the fork point, in its list beside the parent's: as text.
    page.locator("#step-forward").click()
    expect(side.locator("#now-list li.note").last).to_contain_text("I leave town <img src=x")
    assert side.locator("#bold").count() == 0 and side.locator("img[src=x]").count() == 0
    assert "leave town" not in page.locator("#now-list").inner_text()  # not the parent's
    assert page.title() != "owned"
    page.close()


def test_served_by_simulacra_view_the_tree_and_the_side_frame_open_the_family_pages(
    family: tuple[Path, Path, Path], browser: Any
) -> None:
    # `simulacra view PARENT` serves the parent's pages; its tree links to the forks' pages,
    # which the server gives at the paths those links name, and nothing else of theirs.
    parent, child, _ = family
    server, url = serve_run(parent)
    try:
        page = browser.new_page(viewport={"width": 1400, "height": 860})
        page.goto(url)
        page.locator(f'button.side-by-side[data-name="{child.name}"]').click()
        side = page.frame_locator("#side iframe")
        page.locator("#step-forward").click()
        expect(side.locator("#now-list li.note").last).to_contain_text("I leave town <img src=x")
        link = page.locator(f'nav#family a:text-is("{child.name}")').get_attribute("href")
        page.goto(urljoin(url, link))
        assert page.locator("nav#family strong").inner_text() == child.name
        base = url.removesuffix("viewer.html")
        events = urljoin(
            base, posixpath.join(posixpath.dirname(urlsplit(page.url).path), "events.jsonl")
        )
        assert page.request.get(events).status == 404  # the fork's log stays unreachable
        page.close()
    finally:
        server.shutdown()
        server.server_close()
